/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox client's context (pve.h): the API token, the node's
 * certificate, the API below /api2/json with what is Proxmox's own in it
 * (the {"data": ...} envelope, the lock refusals that mean "busy", the 401
 * that no new credential can cure), and reading the guest: its status,
 * snapshots and backups.  Tasks and writes are task.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/secret.h"
#include "proxmox/internal.h"

/* Never stored, should an answer ever hold them (a ticket login, a token
 * made through the API). */
static const char *const secret_keys[] = {"ticket", "CSRFPreventionToken", "value", NULL};

void fcr_pve_config_init(struct fcr_pve_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->poll_interval_ms = 500;
	cfg->task_timeout_ms = 30 * 60 * 1000;
	cfg->http_timeout_ms = 30000;
	cfg->connect_timeout_ms = 10000;
	cfg->lock_wait_ms = 5000;
	cfg->lock_retries = 12;
	cfg->transport_wait_ms = 2000;
	cfg->transport_retries = 4;
	cfg->max_response_bytes = 4u << 20;
}

void fcr_pve_emit(struct fcr_pve *pve, const char *type, json_t *fields)
{
	fcr_api_emit(&pve->api, type, fields);
}

int fcr_pve_sleep_ms(struct fcr_pve *pve, unsigned ms, struct fcr_error *err)
{
	return fcr_api_sleep_ms(&pve->api, ms, err);
}

char *fcr_pve_guest_path(const struct fcr_pve *pve, const char *suffix)
{
	return cm_asprintf("/nodes/%s/qemu/%ld%s", pve->node, pve->cfg.vmid, suffix);
}

/* ---- the token ---------------------------------------------------------------- */

/* [A-Za-z][A-Za-z0-9.\-_]+: a realm or a token name (Auth/Plugin.pm). */
static bool is_id(const char *s, size_t n)
{
	if (n < 2 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '.' && c != '-' && c != '_')
			return false;
	}
	return true;
}

bool fcr_pve_token_valid(const char *text, size_t *id_len)
{
	/* AccessControl.pm verify_token splits at the last '=' */
	const char *eq = strrchr(text, '=');
	const char *at = memchr(text, '@', eq ? (size_t)(eq - text) : 0);
	const char *bang = at ? memchr(at, '!', (size_t)(eq - at)) : NULL;
	if (!eq || !at || !bang || at == text)
		return false;
	for (const char *p = text; p < at; p++) {
		if (isspace((unsigned char)*p) || *p == ':' || *p == '/' || *p == '!')
			return false;
	}
	if (!is_id(at + 1, (size_t)(bang - at - 1)) || !is_id(bang + 1, (size_t)(eq - bang - 1)))
		return false;
	/* The secret as the header carries it: the server cuts the value at ';'
	 * and percent-decodes it, so only plain characters pass unchanged. */
	const char *secret = eq + 1;
	if (!secret[0])
		return false;
	for (const char *p = secret; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (!isalnum(c) && c != '-' && c != '_' && c != '.')
			return false;
	}
	if (id_len)
		*id_len = (size_t)(eq - text);
	return true;
}

#define TOKEN_FORM                                                                                 \
	"USER@REALM!TOKENID=SECRET (the token's full id as `pveum user token add` shows it, '=', " \
	"and its value)"

static int token_load(struct fcr_pve *pve, struct fcr_error *err)
{
	char *tok = NULL;
	const char *from;
	if (pve->token_file) {
		int rc = fcr_secret_read_file(pve->token_file, "Proxmox API token",
					      "write USER@REALM!TOKENID=SECRET into it, mode 0600",
					      &tok, err);
		if (rc < 0)
			return rc;
		from = pve->token_file;
	} else {
		const char *env = getenv(FCR_PVE_TOKEN_ENV);
		if (!env || !env[0])
			return fcr_fail_as(err, FCR_E_TOKEN,
					   "no token-file in [provider] and no " FCR_PVE_TOKEN_ENV
					   " in the environment: the API token is needed");
		tok = fcr_secret_word(env);
		from = "$" FCR_PVE_TOKEN_ENV;
		if (!tok)
			return fcr_fail_as(err, FCR_E_TOKEN,
					   "%s is not one word: it must hold " TOKEN_FORM, from);
	}
	size_t id_len = 0;
	if (!fcr_pve_token_valid(tok, &id_len)) {
		fcr_secret_free(tok);
		/* never a word of what it holds: it may be the secret alone */
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "%s does not hold a Proxmox API token: it must "
				   "hold " TOKEN_FORM,
				   from);
	}
	snprintf(pve->token_id, sizeof(pve->token_id), "%.*s", (int)id_len, tok);
	pve->token = tok;
	pve->authorization = cm_asprintf("PVEAPIToken=%s", tok);
	return 0;
}

const char *fcr_pve_token_id(const struct fcr_pve *pve)
{
	return pve->token_id;
}

/* ---- the API's hooks ------------------------------------------------------------- */

/* Both lock refusals of a synchronous handler come as a 500 (Telmate#173). */
static const char *lock_busy(const struct fcr_reply *r)
{
	if (r->status != 500 || !json_is_object(r->json))
		return NULL;
	const char *m = json_string_value(json_object_get(r->json, "message"));
	if (!m)
		return NULL;
	if (strstr(m, "can't lock file") && strstr(m, "got timeout"))
		return "lock-timeout";
	if (strstr(m, "VM is locked ("))
		return "vm-locked";
	return NULL;
}

static int authorize(void *opaque, bool renew, const char **header, struct fcr_error *err)
{
	struct fcr_pve *pve = opaque;
	if (renew)
		/* a token is not renewed: the node said no to this one */
		return fcr_fail_as(err, FCR_E_AUTH,
				   "the node refused the API token %s (HTTP 401): its secret is "
				   "wrong, the token was removed, it expired, or its user is "
				   "disabled (pveum user token list on the node)",
				   pve->token_id);
	*header = pve->authorization;
	return 0;
}

static void api_event(void *opaque, const char *type, json_t *fields)
{
	const struct fcr_pve_config *cfg = opaque;
	if (cfg->event)
		cfg->event(cfg->ctx, type, fields);
}

static bool api_should_stop(void *opaque)
{
	const struct fcr_pve_config *cfg = opaque;
	return cfg->should_stop && cfg->should_stop(cfg->ctx);
}

_Static_assert(offsetof(struct fcr_pve, cfg) == 0, "cfg leads struct fcr_pve");

/* ---- the context ------------------------------------------------------------------- */

void fcr_pve_free(struct fcr_pve *pve)
{
	if (!pve)
		return;
	fcr_api_release(&pve->api);
	fcr_http_cleanup(&pve->http);
	fcr_secret_free(pve->token);
	fcr_secret_free(pve->authorization);
	free(pve->api_url);
	free(pve->node);
	free(pve->vm_name);
	free(pve->token_file);
	free(pve->ca_file);
	cm_strv_release(&pve->in_flight);
	free(pve);
}

static char *copy_or_null(const char *s)
{
	return s ? cm_strdup(s) : NULL;
}

/* A write's answer: {"data": "UPID:..."}. */
static bool reply_task(const struct fcr_reply *r, char *id, size_t len)
{
	const char *upid = json_string_value(json_object_get(r->json, "data"));
	if (!upid || strncmp(upid, "UPID:", 5) != 0 || strlen(upid) >= len)
		return false;
	snprintf(id, len, "%s", upid);
	return true;
}

int fcr_pve_new(const struct fcr_pve_config *cfg, struct fcr_pve **out, struct fcr_error *err)
{
	char why[600];
	*out = NULL;
	if (!cfg->api_url || !cfg->node || !cfg->vm_name || cfg->vmid < 100)
		return fcr_fail_as(err, FCR_E_INVAL, "api-url, node, vmid and vm-name are needed");
	if (fcr_url_check(cfg->api_url, "api-url", why, sizeof(why)) < 0)
		return fcr_fail_as(err, FCR_E_INVAL, "%s", why);
	if (!cfg->poll_interval_ms || !cfg->task_timeout_ms || !cfg->http_timeout_ms ||
	    !cfg->connect_timeout_ms || !cfg->max_response_bytes)
		return fcr_fail_as(err, FCR_E_INVAL,
				   "poll interval, timeouts and the response size limit must not "
				   "be 0 (fcr_pve_config_init() sets the defaults)");
	struct fcr_pve *pve = cm_calloc(1, sizeof(*pve));
	pve->cfg = *cfg;
	pve->api_url = cm_strdup(cfg->api_url);
	pve->node = cm_strdup(cfg->node);
	pve->vm_name = cm_strdup(cfg->vm_name);
	pve->token_file = copy_or_null(cfg->token_file);
	pve->ca_file = copy_or_null(cfg->ca_file);
	pve->cfg.api_url = pve->api_url;
	pve->cfg.node = pve->node;
	pve->cfg.vm_name = pve->vm_name;
	pve->cfg.token_file = pve->token_file;
	pve->cfg.ca_file = pve->ca_file;
	if (fcr_http_init(&pve->http, cfg->connect_timeout_ms, cfg->http_timeout_ms,
			  cfg->max_response_bytes) < 0) {
		fcr_pve_free(pve);
		return fcr_fail(err, "cannot initialise libcurl");
	}
	if (fcr_http_trust(&pve->http, cfg->ca_file, cfg->pinned ? cfg->fingerprint : NULL, why,
			   sizeof(why)) < 0) {
		fcr_pve_free(pve);
		return fcr_fail_as(err, FCR_E_INVAL, "%s", why);
	}
	struct fcr_api_config ac = {
	    .reply_task = reply_task,
	    .name = "pve",
	    .panel = "the node's task list (Datacenter, Tasks)",
	    .transport_wait_ms = cfg->transport_wait_ms,
	    .transport_retries = cfg->transport_retries,
	    /* pveproxy answers 503 while it restarts */
	    .unavailable_wait_ms = cfg->transport_wait_ms,
	    .unavailable_retries = cfg->transport_retries,
	    .busy_wait_ms = cfg->lock_wait_ms,
	    .busy_retries = cfg->lock_retries,
	    .secret_keys = secret_keys,
	    .store_answers = true,
	    .busy = lock_busy,
	    .authorize = authorize,
	    .event = api_event,
	    .should_stop = api_should_stop,
	    .opaque = pve,
	};
	char *base = cm_asprintf("%s/api2/json", pve->api_url);
	fcr_api_init(&pve->api, &pve->http, base, &ac);
	free(base);
	int rc = token_load(pve, err);
	if (rc < 0) {
		fcr_pve_free(pve);
		return rc;
	}
	*out = pve;
	return 0;
}

/* ---- UPIDs --------------------------------------------------------------------- */

static bool hex_field(const char *s, size_t n, size_t min, size_t max, unsigned long long *v)
{
	if (n < min || n > max)
		return false;
	unsigned long long x = 0;
	for (size_t i = 0; i < n; i++) {
		int d = isdigit((unsigned char)s[i])	? s[i] - '0'
			: isxdigit((unsigned char)s[i]) ? (tolower((unsigned char)s[i]) - 'a' + 10)
							: -1;
		if (d < 0)
			return false;
		x = x << 4 | (unsigned)d;
	}
	*v = x;
	return true;
}

static bool copy_field(char *dst, size_t cap, const char *s, size_t n, bool may_be_empty)
{
	if ((!n && !may_be_empty) || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (isspace((unsigned char)s[i]) || s[i] == '/')
			return false;
	}
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

int fcr_pve_upid_parse(const char *upid, struct fcr_pve_upid *out)
{
	memset(out, 0, sizeof(*out));
	if (strncmp(upid, "UPID:", 5) != 0)
		return -1;
	const char *f[7];
	size_t len[7];
	const char *p = upid + 5;
	for (int i = 0; i < 7; i++) {
		const char *c = strchr(p, ':');
		if (!c)
			return -1;
		f[i] = p;
		len[i] = (size_t)(c - p);
		p = c + 1;
	}
	if (*p) /* the trailing ':' ends it */
		return -1;
	unsigned long long pid, pstart, start;
	if (!copy_field(out->node, sizeof(out->node), f[0], len[0], false) ||
	    !hex_field(f[1], len[1], 8, 8, &pid) || !hex_field(f[2], len[2], 8, 9, &pstart) ||
	    !hex_field(f[3], len[3], 8, 8, &start) ||
	    !copy_field(out->type, sizeof(out->type), f[4], len[4], false) ||
	    !copy_field(out->id, sizeof(out->id), f[5], len[5], true) ||
	    !copy_field(out->user, sizeof(out->user), f[6], len[6], false))
		return -1;
	/* the node name as UPID.pm's pattern wants it */
	for (const char *q = out->node; *q; q++) {
		if (!isalnum((unsigned char)*q) && *q != '-')
			return -1;
	}
	if (out->node[0] == '-' || out->node[strlen(out->node) - 1] == '-')
		return -1;
	out->pid = (unsigned long)pid;
	out->pstart = (unsigned long)pstart;
	out->starttime = (long long)start;
	return 0;
}

/* ---- reading --------------------------------------------------------------------- */

int fcr_pve_get(struct fcr_pve *pve, const char *path, json_t **data, long *total,
		struct fcr_error *err)
{
	struct fcr_reply r;
	*data = NULL;
	if (total)
		*total = -1;
	int rc = fcr_api_get(&pve->api, path, &r, err);
	if (rc < 0)
		return rc;
	if (!json_is_object(r.json) || !json_object_get(r.json, "data")) {
		fcr_reply_clear(&r);
		return fcr_fail_as(err, FCR_E_PROTOCOL,
				   "GET %s: the answer is not Proxmox's {\"data\": ...}", path);
	}
	*data = json_incref(json_object_get(r.json, "data"));
	if (total && json_is_integer(json_object_get(r.json, "total")))
		*total = (long)json_integer_value(json_object_get(r.json, "total"));
	fcr_reply_clear(&r);
	return 0;
}

int fcr_pve_guest_status(struct fcr_pve *pve, struct fcr_pve_guest *g, struct fcr_error *err)
{
	memset(g, 0, sizeof(*g));
	char *path = fcr_pve_guest_path(pve, "/status/current");
	json_t *d;
	int rc = fcr_pve_get(pve, path, &d, NULL, err);
	if (rc == 0 && !json_is_string(json_object_get(d, "status")))
		rc = fcr_fail_as(err, FCR_E_PROTOCOL, "GET %s: no status in the answer", path);
	free(path);
	if (rc < 0) {
		json_decref(d);
		return rc;
	}
	fcr_jcopy_str(g->status, sizeof(g->status), d, "status");
	fcr_jcopy_str(g->qmpstatus, sizeof(g->qmpstatus), d, "qmpstatus");
	fcr_jcopy_str(g->name, sizeof(g->name), d, "name");
	fcr_jcopy_str(g->lock, sizeof(g->lock), d, "lock");
	json_t *ha = json_object_get(d, "ha");
	json_t *managed = json_object_get(ha, "managed");
	g->ha_managed = json_is_true(managed) || json_integer_value(managed) == 1;
	fcr_jcopy_str(g->ha_state, sizeof(g->ha_state), ha, "state");
	g->template_ = json_integer_value(json_object_get(d, "template")) == 1;
	g->uptime_s = json_integer_value(json_object_get(d, "uptime"));
	json_decref(d);
	return 0;
}

int fcr_pve_check_guest(struct fcr_pve *pve, const char *what, struct fcr_pve_guest *g,
			struct fcr_error *err)
{
	int rc = fcr_pve_guest_status(pve, g, err);
	if (rc < 0)
		return rc;
	if (strcmp(g->name, pve->vm_name) != 0)
		return fcr_fail_as(err, FCR_E_INVAL,
				   "guest %ld on node %s is named '%s', not '%s' as vm-name says: "
				   "refusing to %s it (is vmid right?)",
				   pve->cfg.vmid, pve->node, g->name, pve->vm_name, what);
	return 0;
}

void fcr_pve_snapshots_release(struct fcr_pve_snapshots *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

int fcr_pve_snapshots(struct fcr_pve *pve, struct fcr_pve_snapshots *out, struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	char *path = fcr_pve_guest_path(pve, "/snapshot");
	json_t *d;
	int rc = fcr_pve_get(pve, path, &d, NULL, err);
	if (rc == 0 && !json_is_array(d))
		rc = fcr_fail_as(err, FCR_E_PROTOCOL, "GET %s: expected a list", path);
	free(path);
	if (rc < 0) {
		json_decref(d);
		return rc;
	}
	out->v = cm_calloc(json_array_size(d) + 1, sizeof(*out->v));
	size_t i;
	json_t *s;
	json_array_foreach(d, i, s) {
		const char *name = fcr_jstr(s, "name");
		/* "current" is where the guest is now, no snapshot */
		if (!name || !strcmp(name, "current"))
			continue;
		struct fcr_pve_snapshot *o = &out->v[out->n++];
		snprintf(o->name, sizeof(o->name), "%s", name);
		o->vmstate = json_integer_value(json_object_get(s, "vmstate")) == 1;
		o->incomplete = json_object_get(s, "snapstate") != NULL;
		o->snaptime = json_integer_value(json_object_get(s, "snaptime"));
	}
	json_decref(d);
	return 0;
}

const struct fcr_pve_snapshot *fcr_pve_snapshot_find(const struct fcr_pve_snapshots *s,
						     const char *name)
{
	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	}
	return NULL;
}

int fcr_pve_backups(struct fcr_pve *pve, const char *storage, json_t **list, struct fcr_error *err)
{
	char *esc = fcr_url_escape(storage);
	char *path = cm_asprintf("/nodes/%s/storage/%s/content?content=backup&vmid=%ld", pve->node,
				 esc, pve->cfg.vmid);
	free(esc);
	int rc = fcr_pve_get(pve, path, list, NULL, err);
	if (rc == 0 && !json_is_array(*list)) {
		json_decref(*list);
		*list = NULL;
		rc = fcr_fail_as(err, FCR_E_PROTOCOL, "GET %s: expected a list", path);
	}
	free(path);
	return rc;
}
