/* SPDX-License-Identifier: MIT */
/*
 * OAuth2 with netcup's Keycloak realm: the offline refresh token (file or
 * environment), access tokens from its token endpoint, rotated refresh
 * tokens written back, and the one-time device-code login.  No token ever
 * leaves this file except in the Authorization header and the token
 * endpoint's form body.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "http/secret.h"
#include "netcup/internal.h"

#define TOKEN_PATH  "/protocol/openid-connect/token"
#define DEVICE_PATH "/protocol/openid-connect/auth/device"
#define LOGIN_HINT  "run 'fiocamp-run netcup-login' to get a new refresh token"

/* ---- the refresh token ---------------------------------------------------- */

int fcr_netcup_token_load(struct fcr_netcup *nc, struct fcr_error *err)
{
	if (nc->token_file)
		return fcr_secret_read_file(nc->token_file, "refresh token", LOGIN_HINT,
					    &nc->refresh_token, err);
	const char *env = getenv(FCR_NETCUP_TOKEN_ENV);
	if (!env || !env[0])
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "no refresh token: set token-file in [provider] or the "
				   "environment variable " FCR_NETCUP_TOKEN_ENV
				   " ('fiocamp-run netcup-login' writes a token file)");
	nc->refresh_token = fcr_secret_word(env);
	if (!nc->refresh_token)
		return fcr_fail_as(err, FCR_E_TOKEN,
				   FCR_NETCUP_TOKEN_ENV " must hold only the refresh token");
	return 0;
}

/* ---- the token endpoint ------------------------------------------------------ */

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
	fcr_secret_free(nc->refresh_token);
	nc->refresh_token = copy;
	json_t *f = json_pack("{s:s, s:b}", "action", "rotated", "stored", nc->token_file != NULL);
	if (nc->token_file) {
		struct fcr_error werr = {0};
		if (fcr_secret_write_file(nc->token_file, copy, &werr) < 0) {
			json_object_set_new(f, "stored", json_false());
			json_object_set_new(f, "error", json_string(werr.msg));
		}
	}
	fcr_api_emit(&nc->auth, "token", f);
}

static int refresh(struct fcr_netcup *nc, struct fcr_error *err);

/* ---- sharing a token file between processes ------------------------------- */

/*
 * Processes that read one token file (the hosts of a fleet, or campaigns
 * run side by side on one account) share it through two files beside it:
 * PATH.lock, which a process holds (flock) from reading the token file to
 * writing what the refresh rotated, and PATH.access, the access token the
 * last refresh got with the wall-clock time to renew it and a digest of
 * the realm and refresh token it came from (a new login makes it stale).  Within its
 * time every process takes that access token: N processes make one refresh
 * instead of N, and no two use one refresh token at once.
 */
#define SHARE_POLL_MS 20

/* Of the realm and the refresh token an access token came from. */
static uint64_t token_digest(const struct fcr_netcup *nc)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a */
	for (const char *s = nc->auth.base; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	h *= 1099511628211ull; /* a NUL between the two */
	for (const char *s = nc->refresh_token; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The lock file's descriptor, held; -1 when it cannot be made (a read-only
 * directory: then the process goes on alone, as before) or the wait was
 * stopped (*stopped set). */
static int share_lock(struct fcr_netcup *nc, bool *stopped)
{
	*stopped = false;
	char *path = cm_asprintf("%s.lock", nc->token_file);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	free(path);
	if (fd < 0)
		return -1;
	double since = cm_mono_s();
	while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		bool busy = errno == EWOULDBLOCK || errno == EINTR;
		if (busy && nc->cfg.should_stop && nc->cfg.should_stop(nc->cfg.ctx))
			*stopped = true;
		if (!busy || *stopped) {
			close(fd);
			return -1;
		}
		poll(NULL, 0, SHARE_POLL_MS);
	}
	double waited = cm_mono_s() - since;
	if (waited >= 0.05)
		fcr_api_emit(&nc->auth, "token",
			     json_pack("{s:s, s:f}", "action", "waited", "waited_s", waited));
	return fd;
}

/* The shared access token when it came from our refresh token and has more
 * than its margin left (and, with other_than, is another): 0 with
 * *token and *left_s, else -1. */
static int share_read(const struct fcr_netcup *nc, const char *other_than, char **token,
		      double *left_s)
{
	char *path = cm_asprintf("%s.access", nc->token_file);
	char *word = NULL;
	int rc = fcr_secret_read_file(path, "access token", "", &word, NULL);
	free(path);
	if (rc < 0)
		return -1;
	/* RENEW_AT:DIGEST:TOKEN */
	char *end;
	double renew_at = strtod(word, &end);
	rc = -1;
	if (*end == ':' && isfinite(renew_at)) {
		uint64_t digest = strtoull(end + 1, &end, 16);
		double left = renew_at - cm_wall_s();
		if (*end == ':' && end[1] && digest == token_digest(nc) && left > 0 &&
		    (!other_than || strcmp(end + 1, other_than))) {
			*token = cm_strdup(end + 1);
			*left_s = left;
			rc = 0;
		}
	}
	fcr_secret_free(word);
	return rc;
}

static void share_write(struct fcr_netcup *nc, double valid_s)
{
	char *path = cm_asprintf("%s.access", nc->token_file);
	char *word = cm_asprintf("%.3f:%016" PRIx64 ":%s", cm_wall_s() + valid_s, token_digest(nc),
				 nc->access_token);
	struct fcr_error werr = {0};
	if (fcr_secret_write_file(path, word, &werr) < 0)
		fcr_api_emit(&nc->auth, "token",
			     json_pack("{s:s, s:s}", "action", "not-shared", "error", werr.msg));
	fcr_secret_free(word);
	free(path);
}

static void use_access(struct fcr_netcup *nc, char *token, double valid_s)
{
	fcr_secret_free(nc->access_token);
	fcr_secret_free(nc->authorization);
	nc->access_token = token;
	nc->authorization = cm_asprintf("Bearer %s", token);
	nc->access_valid_until = cm_mono_s() + valid_s;
}

/* In a turn with the token file: what another process may have rotated. */
static void reread(struct fcr_netcup *nc)
{
	char *now = NULL;
	if (fcr_secret_read_file(nc->token_file, "refresh token", LOGIN_HINT, &now, NULL) == 0 &&
	    strcmp(now, nc->refresh_token)) {
		fcr_secret_free(nc->refresh_token);
		nc->refresh_token = now;
		fcr_api_emit(&nc->auth, "token", json_pack("{s:s}", "action", "reread"));
	} else {
		fcr_secret_free(now);
	}
}

/*
 * In a turn with the token file and its lock file: take the shared access
 * token when there is one (on a forced renewal, one other than the refused
 * one), else refresh and share.
 */
static int refresh_shared(struct fcr_netcup *nc, bool force, struct fcr_error *err)
{
	char *shared;
	double left;
	if (share_read(nc, force ? nc->access_token : NULL, &shared, &left) == 0) {
		use_access(nc, shared, left);
		fcr_api_emit(&nc->auth, "token",
			     json_pack("{s:s, s:f}", "action", "shared", "valid_s", left));
		return 0;
	}
	int rc = refresh(nc, err);
	if (rc == 0)
		share_write(nc, nc->access_valid_until - cm_mono_s());
	return rc;
}

/*
 * Hosts of a fleet may share the token file, and a refresh may rotate the
 * token, which ends the old one: they take turns (cfg.lock, the fleet's,
 * and the lock file for every process), and each reads the file again in
 * its turn, for what another wrote.
 */
int fcr_netcup_access_token(struct fcr_netcup *nc, bool force, struct fcr_error *err)
{
	if (!force && nc->access_token && cm_mono_s() < nc->access_valid_until)
		return 0;
	if (!nc->token_file)
		return refresh(nc, err);
	char *key = NULL;
	if (nc->cfg.lock) {
		char *real = realpath(nc->token_file, NULL);
		key = cm_asprintf("netcup-token:%s", real ? real : nc->token_file);
		free(real);
		if (nc->cfg.lock(nc->cfg.ctx, key) < 0) {
			free(key);
			return fcr_fail_as(
			    err, FCR_E_STOPPED,
			    "stopped while another host of the fleet refreshed the token of %s",
			    nc->token_file);
		}
	}
	bool stopped;
	int fd = share_lock(nc, &stopped);
	int rc;
	if (stopped)
		rc = fcr_fail_as(err, FCR_E_STOPPED,
				 "stopped while another process refreshed the token of %s",
				 nc->token_file);
	else {
		reread(nc);
		rc = fd < 0 ? refresh(nc, err) : refresh_shared(nc, force, err);
	}
	if (fd >= 0)
		close(fd); /* and the lock with it */
	if (key) {
		nc->cfg.unlock(nc->cfg.ctx, key);
		free(key);
	}
	return rc;
}

/* A new access token from the refresh token (rotated when the realm says). */
static int refresh(struct fcr_netcup *nc, struct fcr_error *err)
{
	fcr_secret_free(nc->access_token);
	fcr_secret_free(nc->authorization);
	nc->access_token = nc->authorization = NULL;

	char *esc = fcr_url_escape(nc->refresh_token);
	char *form = cm_asprintf("grant_type=refresh_token&client_id=scp&refresh_token=%s", esc);
	fcr_secret_free(esc);
	long status;
	json_t *j;
	int rc = fcr_api_post_secret(&nc->auth, TOKEN_PATH, form, &status, &j, err);
	fcr_secret_free(form);
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
			return fcr_fail_as(
			    err, FCR_E_PROTOCOL,
			    "the token endpoint answered 200 without an access token");
		/* the server's trouble, not the token's: a new login would not help */
		if (status >= 500)
			return fcr_fail_as(
			    err, FCR_E_API,
			    "the token endpoint %s%s answered HTTP %ld (%s) after %u "
			    "attempts; try again later",
			    nc->auth.base, TOKEN_PATH, status, why, nc->cfg.transport_retries + 1);
		return fcr_fail_as(
		    err, FCR_E_AUTH,
		    "the token endpoint refused the refresh token (HTTP %ld %s).  An "
		    "offline token ends when unused for 30 days or when revoked: " LOGIN_HINT,
		    status, why);
	}
	nc->access_token = cm_strdup(access);
	nc->authorization = cm_asprintf("Bearer %s", access);
	double expires = seconds_in(j, "expires_in", 300);
	/* Renew a minute before the end; short-lived tokens (tests) at half-life. */
	nc->access_valid_until = cm_mono_s() + (expires > 120 ? expires - 60 : expires / 2);
	const char *fresh = json_string_value(json_object_get(j, "refresh_token"));
	if (fresh && fresh[0] && fcr_secret_is_word(fresh) && strcmp(fresh, nc->refresh_token) != 0)
		rotate(nc, fresh);
	free_token_answer(j);
	fcr_api_emit(&nc->auth, "token",
		     json_pack("{s:s, s:f}", "action", "refreshed", "expires_in_s", expires));
	return 0;
}

int fcr_netcup_authenticate(struct fcr_netcup *nc, struct fcr_error *err)
{
	return fcr_netcup_access_token(nc, false, err);
}

int fcr_netcup_authorize(void *opaque, bool renew, const char **header, struct fcr_error *err)
{
	struct fcr_netcup *nc = opaque;
	int rc = fcr_netcup_access_token(nc, renew, err);
	*header = rc < 0 ? NULL : nc->authorization;
	return rc;
}

/* ---- device-code login ------------------------------------------------------ */

static int login_poll(struct fcr_api *auth, const struct fcr_netcup_config *cfg,
		      const char *device_code, double interval_s, double expires_in_s,
		      char **refresh, struct fcr_error *err)
{
	char *esc = fcr_url_escape(device_code);
	char *form =
	    cm_asprintf("grant_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Agrant-type%%3Adevice_code"
			"&client_id=scp&device_code=%s",
			esc);
	fcr_secret_free(esc);
	double deadline = cm_mono_s() + expires_in_s;
	double interval_ms = interval_s * 1000.0;
	int rc;
	for (;;) {
		rc = fcr_api_sleep_ms(auth, (unsigned)interval_ms, err);
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
		rc = fcr_api_post_secret(auth, TOKEN_PATH, form, &status, &j, err);
		if (rc < 0)
			break;
		const char *rt = json_string_value(json_object_get(j, "refresh_token"));
		if (status == 200 && rt && rt[0] && fcr_secret_is_word(rt)) {
			*refresh = cm_strdup(rt);
			free_token_answer(j);
			rc = 0;
			break;
		}
		char code[128], why[512];
		fcr_jcopy_str(code, sizeof(code), j, "error");
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
	fcr_secret_free(form);
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
	struct fcr_http http;
	if (fcr_http_init(&http, cfg->connect_timeout_ms, cfg->http_timeout_ms,
			  cfg->max_response_bytes) < 0)
		return fcr_fail(err, "cannot initialise libcurl");
	struct fcr_api api;
	struct fcr_api_config ac;
	fcr_netcup_api_config(cfg, true, &ac);
	fcr_api_init(&api, &http, auth, &ac);
	long status;
	json_t *j = NULL;
	char *refresh = NULL;
	int rc = fcr_api_post_secret(
	    &api, DEVICE_PATH, "client_id=scp&scope=offline_access%20openid", &status, &j, err);
	if (rc < 0)
		goto out;
	const char *device_code = json_string_value(json_object_get(j, "device_code"));
	const char *user_code = json_string_value(json_object_get(j, "user_code"));
	const char *uri = json_string_value(json_object_get(j, "verification_uri"));
	if (status != 200 || !device_code || !user_code || !uri) {
		oauth_error(j, why, sizeof(why));
		rc = fcr_fail_as(
		    err, status == 200 ? FCR_E_PROTOCOL : FCR_E_AUTH,
		    "the device authorization endpoint answered HTTP %ld %s", status,
		    status == 200 ? "without device_code, user_code or verification_uri" : why);
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
	rc = login_poll(&api, cfg, device_code, interval, p.expires_in_s, &refresh, err);
	if (rc < 0)
		goto out;
	rc = fcr_secret_write_file(token_file, refresh, err);
	if (rc == 0) {
		/* what the old token's access token was shared in is stale */
		char *shared = cm_asprintf("%s.access", token_file);
		unlink(shared);
		free(shared);
	}
	if (rc == 0)
		fcr_api_emit(&api, "token",
			     json_pack("{s:s, s:b, s:s}", "action", "login", "stored", 1, "file",
				       token_file));
out:
	free_token_answer(j);
	fcr_secret_free(refresh);
	fcr_api_release(&api);
	fcr_http_cleanup(&http);
	return rc;
}
