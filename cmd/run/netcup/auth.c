/* SPDX-License-Identifier: MIT */
/*
 * Tokens: the offline refresh token (file or environment), access tokens
 * from Keycloak's token endpoint, the token file written with mode 0600, and
 * the one-time device-code login.  No token ever leaves this file except in
 * the Authorization header and the token endpoint's form body.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netcup/netcup-internal.h"

#define TOKEN_PATH	     "/protocol/openid-connect/token"
#define DEVICE_PATH	     "/protocol/openid-connect/auth/device"
#define TOKEN_FILE_MAX_BYTES 65536
#define LOGIN_HINT	     "run 'fiocamp-run netcup-login' to get a new refresh token"

void nc_free_secret(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

/* ---- the token file ------------------------------------------------------ */

/* Copies [s, s+len) without surrounding white space; NULL when empty. */
static char *trimmed(const char *s, size_t len)
{
	while (len && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
		       s[len - 1] == '\n'))
		len--;
	return len ? strndup(s, len) : NULL;
}

/* A refresh token is one printable word; anything else is a wrong file. */
static bool token_plausible(const char *t)
{
	for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f)
			return false;
	}
	return true;
}

static int load_from_file(struct fcr_netcup *nc, struct fcr_error *err)
{
	const char *path = nc->token_file;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fcr_fail_as(err, FCR_E_TOKEN, "cannot open token file %s: %s%s", path,
			       strerror(errno), errno == ENOENT ? " (" LOGIN_HINT ")" : "");
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN, "cannot stat token file %s: %s", path,
			       strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN, "token file %s is not a regular file", path);
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
			       "token file %s belongs to uid %u, not to you (uid %u)", path,
			       (unsigned)st.st_uid, (unsigned)geteuid());
	}
	if (st.st_mode & 077) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
			       "token file %s has mode %04o; others can read it.  It must be "
			       "0600 or stricter: run chmod 600 %s",
			       path, (unsigned)(st.st_mode & 07777), path);
	}
	if (st.st_size > TOKEN_FILE_MAX_BYTES) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
			       "token file %s is %lld bytes; a refresh token is at most %d", path,
			       (long long)st.st_size, TOKEN_FILE_MAX_BYTES);
	}
	char *buf = cm_malloc(TOKEN_FILE_MAX_BYTES + 1);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, TOKEN_FILE_MAX_BYTES - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			explicit_bzero(buf, len);
			free(buf);
			return fcr_fail_as(err, FCR_E_TOKEN, "cannot read token file %s: %s", path,
				       strerror(e));
		}
		if (n == 0 || len + (size_t)n == TOKEN_FILE_MAX_BYTES) {
			len += (size_t)n;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	nc->refresh_token = trimmed(buf, len);
	explicit_bzero(buf, len);
	free(buf);
	if (!nc->refresh_token)
		return fcr_fail_as(err, FCR_E_TOKEN, "token file %s is empty (" LOGIN_HINT ")",
			       path);
	if (!token_plausible(nc->refresh_token))
		return fcr_fail_as(err, FCR_E_TOKEN,
			       "token file %s holds more than one word; it must hold only the "
			       "refresh token",
			       path);
	return 0;
}

int nc_token_load(struct fcr_netcup *nc, struct fcr_error *err)
{
	if (nc->token_file)
		return load_from_file(nc, err);
	const char *env = getenv(FCR_NETCUP_TOKEN_ENV);
	if (!env || !env[0])
		return fcr_fail_as(err, FCR_E_TOKEN,
			       "no refresh token: set token-file in [provider] or the environment "
			       "variable " FCR_NETCUP_TOKEN_ENV " ('fiocamp-run netcup-login' writes a "
			       "token file)");
	nc->refresh_token = trimmed(env, strlen(env));
	if (!nc->refresh_token || !token_plausible(nc->refresh_token))
		return fcr_fail_as(err, FCR_E_TOKEN,
			       FCR_NETCUP_TOKEN_ENV " must hold only the refresh token");
	return 0;
}

/* mkdir -p with mode 0700 for what it creates. */
static int make_dirs(char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		int rc = make_dirs(dir);
		*slash = '/';
		if (rc < 0)
			return rc;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int nc_write_secret_file(const char *path, const char *text, struct fcr_error *err)
{
	char *copy = cm_strdup(path);
	char *copy2 = cm_strdup(path);
	char *tmp = NULL;
	int fd = -1, rc = 0;
	char *dir = dirname(copy);
	const char *base = basename(copy2);
	int e = make_dirs(dir);
	if (e < 0) {
		rc = fcr_fail_as(err, FCR_E_TOKEN, "cannot create directory %s: %s", dir,
			     strerror(-e));
		goto out;
	}
	tmp = cm_asprintf("%s/.%s.XXXXXX", dir, base);
	/* mkstemp creates the file with mode 0600: never readable by others, not even briefly */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = fcr_fail_as(err, FCR_E_TOKEN, "cannot create a file in %s: %s", dir,
			     strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	size_t len = strlen(text);
	const char *p = text;
	bool ok = fchmod(fd, 0600) == 0;
	while (ok && len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ok = false;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	ok = ok && write(fd, "\n", 1) == 1 && fsync(fd) == 0;
	e = errno;
	if (close(fd) < 0 && ok) {
		ok = false;
		e = errno;
	}
	fd = -1;
	if (!ok || rename(tmp, path) < 0) {
		if (ok)
			e = errno;
		rc = fcr_fail_as(err, FCR_E_TOKEN, "cannot write token file %s: %s", path,
			     strerror(e));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd); /* the rename itself must survive a crash */
		close(dfd);
	}
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(copy);
	free(copy2);
	return rc;
}

/* ---- the token endpoint ----------------------------------------------------- */

/*
 * A form POST to the realm (path below auth_base); retried on transport
 * errors and 5xx.  Emits "api-call" (api "auth"); never the answer, which
 * holds tokens.  *json: the answer's JSON or NULL (caller frees).
 */
static int auth_post(const struct fcr_netcup_config *cfg, struct fcr_http *http, const char *auth_base,
		     const char *path, const char *form, long *status, json_t **json,
		     struct fcr_error *err)
{
	*json = NULL;
	*status = 0;
	char *url = cm_asprintf("%s%s", auth_base, path);
	struct fcr_http_req req = {
	    .method = "POST",
	    .url = url,
	    .content_type = "application/x-www-form-urlencoded",
	    .body = form,
	};
	int rc = 0;
	for (unsigned attempt = 1;; attempt++) {
		struct fcr_http_resp h;
		fcr_http_perform(http, &req, &h);
		json_t *f = json_pack("{s:s, s:s, s:s, s:i, s:f, s:i}", "api", "auth", "method",
				      "POST", "path", path, "status", (int)h.status, "duration_s",
				      h.duration_s, "attempt", (int)attempt);
		if (f && h.transport != FCR_T_OK)
			json_object_set_new(f, "error", json_string(h.error));
		nc_emit(cfg, "api-call", f);
		if (err)
			err->http_status = (int)h.status;
		bool retry = h.transport != FCR_T_OK || h.status >= 500;
		if (!retry || attempt > cfg->transport_retries) {
			if (h.transport != FCR_T_OK)
				rc = fcr_fail_as(err, FCR_E_TRANSPORT, "POST %s%s: %s (%u attempts)",
					     auth_base, path, h.error, attempt);
			*status = h.status;
			if (h.len)
				*json = json_loadb(h.body, h.len, 0, NULL);
			explicit_bzero(h.body, h.len);
			fcr_http_resp_clear(&h);
			break;
		}
		explicit_bzero(h.body, h.len);
		fcr_http_resp_clear(&h);
		nc_emit(cfg, "api-retry",
			json_pack("{s:s, s:s, s:s, s:f, s:i}", "method", "POST", "path", path,
				  "reason", h.transport != FCR_T_OK ? "transport" : "server-error",
				  "wait_s", cfg->transport_wait_ms / 1000.0, "attempt",
				  (int)attempt));
		rc = nc_sleep_ms(cfg, cfg->transport_wait_ms, err);
		if (rc < 0)
			break;
	}
	free(url);
	return rc;
}

/* Wipes the token strings inside a token endpoint answer, then frees it. */
static void free_token_answer(json_t *j)
{
	static const char *const keys[] = {"access_token", "refresh_token", "id_token",
					   "device_code"};
	if (!j)
		return;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(j, keys[i]);
		const char *s = json_string_value(v);
		if (s) {
			/* jansson owns the buffer; overwrite it in place */
			explicit_bzero((char *)s, strlen(s));
		}
	}
	json_decref(j);
}

static void oauth_error(json_t *j, char *buf, size_t len)
{
	const char *e = json_string_value(json_object_get(j, "error"));
	const char *d = json_string_value(json_object_get(j, "error_description"));
	snprintf(buf, len, "%s%s%s", e ? e : "no error code", d ? ": " : "", d ? d : "");
}

static double seconds_in(json_t *j, const char *key, double dflt)
{
	json_t *v = json_object_get(j, key);
	if (!json_is_number(v))
		return dflt;
	double s = json_number_value(v);
	return isfinite(s) && s >= 0 ? s : dflt;
}

/* Stores a rotated refresh token; the old one may no longer work. */
static void rotate(struct fcr_netcup *nc, const char *fresh)
{
	char *copy = cm_strdup(fresh);
	nc_free_secret(nc->refresh_token);
	nc->refresh_token = copy;
	json_t *f = json_pack("{s:s, s:b}", "action", "rotated", "stored", nc->token_file != NULL);
	if (nc->token_file) {
		struct fcr_error werr = {0};
		if (nc_write_secret_file(nc->token_file, copy, &werr) < 0) {
			json_object_set_new(f, "stored", json_false());
			json_object_set_new(f, "error", json_string(werr.msg));
		}
	}
	nc_emit(&nc->cfg, "token", f);
}

int nc_access_token(struct fcr_netcup *nc, bool force, struct fcr_error *err)
{
	if (!force && nc->access_token && cm_mono_s() < nc->access_valid_until)
		return 0;
	nc_free_secret(nc->access_token);
	nc->access_token = NULL;

	char *esc = fcr_url_escape(nc->refresh_token);
	char *form = cm_asprintf("grant_type=refresh_token&client_id=scp&refresh_token=%s", esc);
	nc_free_secret(esc);
	long status;
	json_t *j;
	int rc = auth_post(&nc->cfg, &nc->http, nc->auth_base, TOKEN_PATH, form, &status, &j, err);
	nc_free_secret(form);
	if (rc < 0)
		return rc;
	char why[512];
	const char *access = json_string_value(json_object_get(j, "access_token"));
	if (status != 200 || !access || !access[0]) {
		oauth_error(j, why, sizeof(why));
		const char *code = json_string_value(json_object_get(j, "error"));
		if (err)
			snprintf(err->api_code, sizeof(err->api_code), "%s", code ? code : "");
		free_token_answer(j);
		if (status == 200)
			return fcr_fail_as(err, FCR_E_PROTOCOL,
				       "the token endpoint answered 200 without an access token");
		/* the server's trouble, not the token's: a new login would not help */
		if (status >= 500)
			return fcr_fail_as(err, FCR_E_API,
				       "the token endpoint %s%s answered HTTP %ld (%s) after %u "
				       "attempts; try again later",
				       nc->auth_base, TOKEN_PATH, status, why,
				       nc->cfg.transport_retries + 1);
		return fcr_fail_as(
		    err, FCR_E_AUTH,
		    "the token endpoint refused the refresh token (HTTP %ld %s).  An "
		    "offline token ends when unused for 30 days or when revoked: " LOGIN_HINT,
		    status, why);
	}
	nc->access_token = cm_strdup(access);
	double expires = seconds_in(j, "expires_in", 300);
	/* Renew a minute before the end; short-lived tokens (tests) at half-life. */
	nc->access_valid_until = cm_mono_s() + (expires > 120 ? expires - 60 : expires / 2);
	const char *fresh = json_string_value(json_object_get(j, "refresh_token"));
	if (fresh && fresh[0] && token_plausible(fresh) && strcmp(fresh, nc->refresh_token) != 0)
		rotate(nc, fresh);
	free_token_answer(j);
	nc_emit(&nc->cfg, "token",
		json_pack("{s:s, s:f}", "action", "refreshed", "expires_in_s", expires));
	return 0;
}

int fcr_netcup_authenticate(struct fcr_netcup *nc, struct fcr_error *err)
{
	return nc_access_token(nc, false, err);
}

/* ---- device-code login ------------------------------------------------------ */

static int login_poll(const struct fcr_netcup_config *cfg, struct fcr_http *http, const char *auth_base,
		      const char *device_code, double interval_s, double expires_in_s,
		      char **refresh, struct fcr_error *err)
{
	char *esc = fcr_url_escape(device_code);
	char *form =
	    cm_asprintf("grant_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Agrant-type%%3Adevice_code"
			"&client_id=scp&device_code=%s",
			esc);
	nc_free_secret(esc);
	double deadline = cm_mono_s() + expires_in_s;
	double interval_ms = interval_s * 1000.0;
	int rc;
	for (;;) {
		rc = nc_sleep_ms(cfg, (unsigned)interval_ms, err);
		if (rc < 0)
			break;
		if (cm_mono_s() >= deadline) {
			rc = fcr_fail_as(err, FCR_E_AUTH,
				     "the login code expired before it was confirmed; run the "
				     "login again");
			break;
		}
		long status;
		json_t *j;
		rc = auth_post(cfg, http, auth_base, TOKEN_PATH, form, &status, &j, err);
		if (rc < 0)
			break;
		const char *rt = json_string_value(json_object_get(j, "refresh_token"));
		if (status == 200 && rt && rt[0] && token_plausible(rt)) {
			*refresh = cm_strdup(rt);
			free_token_answer(j);
			rc = 0;
			break;
		}
		char code[128], why[512];
		nc_copy_str(code, sizeof(code), j, "error");
		const char *e = code[0] ? code : NULL;
		oauth_error(j, why, sizeof(why));
		if (err)
			snprintf(err->api_code, sizeof(err->api_code), "%s", code);
		if (status == 200) {
			free_token_answer(j);
			rc = fcr_fail_as(err, FCR_E_PROTOCOL,
				     "the token endpoint answered 200 without a refresh token");
			break;
		}
		free_token_answer(j);
		if (e && strcmp(e, "authorization_pending") == 0)
			continue;
		if (e && strcmp(e, "slow_down") == 0) {
			interval_ms += cfg->slow_down_ms;
			continue;
		}
		if (e && strcmp(e, "access_denied") == 0)
			rc = fcr_fail_as(err, FCR_E_AUTH, "the login was denied in the browser");
		else if (e && strcmp(e, "expired_token") == 0)
			rc = fcr_fail_as(err, FCR_E_AUTH,
				     "the login code expired before it was confirmed; run the "
				     "login again");
		else
			rc = fcr_fail_as(err, FCR_E_AUTH, "the token endpoint answered HTTP %ld %s",
				     status, why);
		break;
	}
	nc_free_secret(form);
	return rc;
}

int fcr_netcup_login(const struct fcr_netcup_config *cfg, const char *token_file,
		 void (*prompt)(void *ctx, const struct fcr_netcup_login_prompt *p),
		 struct fcr_error *err)
{
	char why[512];
	if (err)
		memset(err, 0, sizeof(*err));
	if (!token_file || !token_file[0])
		return fcr_fail_as(err, FCR_E_INVAL, "the login needs a token file to write");
	const char *auth = cfg->auth_url ? cfg->auth_url : FCR_NETCUP_DEFAULT_AUTH_URL;
	if (fcr_url_check(auth, "auth-url", why, sizeof(why)) < 0)
		return fcr_fail_as(err, FCR_E_INVAL, "%s", why);
	char *base = cm_strdup(auth);
	for (size_t n = strlen(base); n > 0 && base[n - 1] == '/'; n--)
		base[n - 1] = '\0';
	struct fcr_http http;
	if (fcr_http_init(&http, cfg->connect_timeout_ms, cfg->http_timeout_ms,
			 cfg->max_response_bytes) < 0) {
		free(base);
		return fcr_fail(err, "cannot initialise libcurl");
	}
	long status;
	json_t *j = NULL;
	char *refresh = NULL;
	int rc = auth_post(cfg, &http, base, DEVICE_PATH,
			   "client_id=scp&scope=offline_access%20openid", &status, &j, err);
	if (rc < 0)
		goto out;
	const char *device_code = json_string_value(json_object_get(j, "device_code"));
	const char *user_code = json_string_value(json_object_get(j, "user_code"));
	const char *uri = json_string_value(json_object_get(j, "verification_uri"));
	if (status != 200 || !device_code || !user_code || !uri) {
		oauth_error(j, why, sizeof(why));
		rc = fcr_fail_as(err, status == 200 ? FCR_E_PROTOCOL : FCR_E_AUTH,
			     "the device authorization endpoint answered HTTP %ld %s", status,
			     status == 200 ? "without device_code, user_code or verification_uri"
					   : why);
		goto out;
	}
	struct fcr_netcup_login_prompt p = {
	    .verification_uri = uri,
	    .verification_uri_complete =
		json_string_value(json_object_get(j, "verification_uri_complete")),
	    .user_code = user_code,
	    .expires_in_s = seconds_in(j, "expires_in", 600),
	};
	if (prompt)
		prompt(cfg->ctx, &p);
	/* RFC 8628: 5 s when the server names no interval. */
	double interval = seconds_in(j, "interval", 5);
	rc = login_poll(cfg, &http, base, device_code, interval, p.expires_in_s, &refresh, err);
	if (rc < 0)
		goto out;
	rc = nc_write_secret_file(token_file, refresh, err);
	if (rc == 0)
		nc_emit(cfg, "token",
			json_pack("{s:s, s:b, s:s}", "action", "login", "stored", 1, "file",
				  token_file));
out:
	free_token_answer(j);
	nc_free_secret(refresh);
	fcr_http_cleanup(&http);
	free(base);
	return rc;
}
