/* SPDX-License-Identifier: MIT */
/*
 * The netcup SCP client: requests with their retry policy, the check that
 * keeps a write from being sent twice, task polling, and the actions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "netcup/netcup-internal.h"

/* How far the API's clock may be behind ours when we look for a task we may
 * have started (seconds). */
#define CLOCK_SKEW_S 120.0

/* ---- small helpers ------------------------------------------------------ */

static bool is_secret_key(const char *k)
{
	return strcmp(k, "executingUser") == 0 || strcmp(k, "access_token") == 0 ||
	       strcmp(k, "refresh_token") == 0 || strcmp(k, "id_token") == 0 ||
	       strcmp(k, "device_code") == 0;
}

/* Removes personal fields and anything token-like, at any depth. */
static void redact(json_t *j)
{
	if (json_is_object(j)) {
		const char *k;
		json_t *v;
		void *tmp;
		json_object_foreach_safe(j, tmp, k, v) {
			if (is_secret_key(k))
				json_object_del(j, k);
			else
				redact(v);
		}
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v) {
			redact(v);
		}
	}
}

void nc_emit(const struct fcr_netcup_config *cfg, const char *type, json_t *fields)
{
	if (!fields)
		return;
	if (cfg->event)
		cfg->event(cfg->ctx, type, fields);
	json_decref(fields);
}

int nc_sleep_ms(const struct fcr_netcup_config *cfg, unsigned ms, struct fcr_error *err)
{
	double end = cm_mono_s() + ms / 1000.0;
	for (;;) {
		if (cfg->should_stop && cfg->should_stop(cfg->ctx))
			return fcr_fail_as(err, FCR_E_STOPPED, "stopped while waiting");
		double left = end - cm_mono_s();
		if (left <= 0)
			return 0;
		if (left > 0.1)
			left = 0.1;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(left * 1e9)};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}

void nc_copy_str(char *buf, size_t len, json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));
	snprintf(buf, len, "%s", s ? s : "");
}

void nc_reply_clear(struct nc_reply *r)
{
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

/* ---- config and context -------------------------------------------------- */

void fcr_netcup_config_init(struct fcr_netcup_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->poll_interval_ms = 2000;
	cfg->task_timeout_ms = 15 * 60 * 1000;
	cfg->http_timeout_ms = 30000;
	cfg->connect_timeout_ms = 10000;
	cfg->lock_wait_ms = 5000;
	cfg->lock_retries = 30;
	cfg->unavailable_wait_ms = 15000;
	cfg->unavailable_retries = 6;
	cfg->transport_wait_ms = 3000;
	cfg->transport_retries = 4;
	cfg->slow_down_ms = 5000;
	cfg->max_response_bytes = 4u << 20;
}

/* A copy of a base URL without trailing slashes. */
static char *base_url(const char *url)
{
	char *b = cm_strdup(url);
	size_t n = strlen(b);
	while (n > 0 && b[n - 1] == '/')
		b[--n] = '\0';
	return b;
}

void fcr_netcup_free(struct fcr_netcup *nc)
{
	if (!nc)
		return;
	fcr_http_cleanup(&nc->http);
	nc_free_secret(nc->refresh_token);
	nc_free_secret(nc->access_token);
	free(nc->api_base);
	free(nc->auth_base);
	free(nc->token_file);
	free(nc);
}

int fcr_netcup_new(const struct fcr_netcup_config *cfg, struct fcr_netcup **out, struct fcr_error *err)
{
	char why[512];
	*out = NULL;
	if (err)
		memset(err, 0, sizeof(*err));
	if (cfg->server_id <= 0 || cfg->server_id > 2147483647L)
		return fcr_fail_as(err, FCR_E_INVAL,
			       "server-id %ld is not a netcup server id (a positive number)",
			       cfg->server_id);
	const char *api = cfg->api_url ? cfg->api_url : FCR_NETCUP_DEFAULT_API_URL;
	const char *auth = cfg->auth_url ? cfg->auth_url : FCR_NETCUP_DEFAULT_AUTH_URL;
	if (fcr_url_check(api, "api-url", why, sizeof(why)) < 0 ||
	    fcr_url_check(auth, "auth-url", why, sizeof(why)) < 0)
		return fcr_fail_as(err, FCR_E_INVAL, "%s", why);
	if (!cfg->poll_interval_ms || !cfg->task_timeout_ms || !cfg->http_timeout_ms ||
	    !cfg->connect_timeout_ms || !cfg->max_response_bytes)
		return fcr_fail_as(err, FCR_E_INVAL,
			       "poll interval, timeouts and the response size limit must not be 0 "
			       "(fcr_netcup_config_init() sets the defaults)");

	struct fcr_netcup *nc = cm_calloc(1, sizeof(*nc));
	nc->cfg = *cfg;
	nc->api_base = base_url(api);
	nc->auth_base = base_url(auth);
	if (cfg->token_file)
		nc->token_file = cm_strdup(cfg->token_file);
	nc->cfg.api_url = nc->api_base;
	nc->cfg.auth_url = nc->auth_base;
	nc->cfg.token_file = nc->token_file;
	if (fcr_http_init(&nc->http, cfg->connect_timeout_ms, cfg->http_timeout_ms,
			 cfg->max_response_bytes) < 0) {
		fcr_netcup_free(nc);
		return fcr_fail(err, "cannot initialise libcurl");
	}
	int rc = nc_token_load(nc, err);
	if (rc < 0) {
		fcr_netcup_free(nc);
		return rc;
	}
	*out = nc;
	return 0;
}

/* ---- requests ------------------------------------------------------------ */

static void parse_body(struct nc_reply *r, const struct fcr_http_resp *h)
{
	r->json = NULL;
	r->snippet[0] = '\0';
	if (!h->len)
		return;
	r->json = json_loadb(h->body, h->len, 0, NULL);
	if (r->json)
		return;
	/* Not JSON: keep a printable start of it for the error message. */
	size_t n = 0;
	for (size_t i = 0; i < h->len && n + 1 < sizeof(r->snippet); i++) {
		unsigned char ch = (unsigned char)h->body[i];
		r->snippet[n++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : ' ';
	}
	r->snippet[n] = '\0';
}

static void emit_call(struct fcr_netcup *nc, const struct nc_call *c, const struct fcr_http_resp *h,
		      unsigned attempt)
{
	json_t *f = json_pack("{s:s, s:s, s:s, s:i, s:f, s:i}", "api", "scp", "method", c->method,
			      "path", c->path, "status", (int)h->status, "duration_s",
			      h->duration_s, "attempt", (int)attempt);
	if (f && h->transport != FCR_T_OK)
		json_object_set_new(f, "error", json_string(h->error));
	nc_emit(&nc->cfg, "api-call", f);
}

static void emit_response(struct fcr_netcup *nc, const struct nc_call *c, const struct nc_reply *r)
{
	if (!r->json || !nc->cfg.event)
		return;
	json_t *body = json_deep_copy(r->json);
	if (!body)
		return;
	redact(body);
	nc_emit(&nc->cfg, "api-response",
		json_pack("{s:s, s:s, s:s, s:i, s:o}", "api", "scp", "method", c->method, "path",
			  c->path, "status", (int)r->status, "body", body));
}

static void emit_retry(struct fcr_netcup *nc, const struct nc_call *c, const char *reason,
		       unsigned wait_ms, unsigned attempt)
{
	nc_emit(&nc->cfg, "api-retry",
		json_pack("{s:s, s:s, s:s, s:f, s:i}", "method", c->method, "path", c->path,
			  "reason", reason, "wait_s", wait_ms / 1000.0, "attempt", (int)attempt));
}

/* One exchange, with the bearer token. */
static int exchange(struct fcr_netcup *nc, const struct nc_call *c, unsigned attempt,
		    struct nc_reply *r, struct fcr_error *err)
{
	char *url = cm_asprintf("%s%s", nc->api_base, c->path);
	struct fcr_http_req req = {
	    .method = c->method,
	    .url = url,
	    .content_type = c->content_type,
	    .body = c->body,
	    .bearer = nc->access_token,
	    .fresh_connection = c->write,
	};
	struct fcr_http_resp h;
	fcr_http_perform(&nc->http, &req, &h);
	free(url);
	emit_call(nc, c, &h, attempt);
	memset(r, 0, sizeof(*r));
	r->status = h.status;
	r->transport = h.transport;
	snprintf(r->error, sizeof(r->error), "%s", h.error);
	if (h.transport == FCR_T_OK)
		parse_body(r, &h);
	fcr_http_resp_clear(&h);
	if (err)
		err->http_status = (int)r->status;
	emit_response(nc, c, r);
	return 0;
}

/* One logical attempt: an exchange, and on 401 a new access token and one more. */
static int call_once(struct fcr_netcup *nc, const struct nc_call *c, unsigned attempt,
		     struct nc_reply *r, struct fcr_error *err)
{
	int rc = nc_access_token(nc, false, err);
	if (rc < 0)
		return rc;
	rc = exchange(nc, c, attempt, r, err);
	if (rc < 0 || r->status != 401)
		return rc;
	emit_retry(nc, c, "unauthorized", 0, attempt);
	nc_reply_clear(r);
	rc = nc_access_token(nc, true, err);
	if (rc < 0)
		return rc;
	rc = exchange(nc, c, attempt, r, err);
	if (rc < 0)
		return rc;
	if (r->status == 401)
		return fcr_fail_as(err, FCR_E_AUTH,
			       "%s %s: the API refused a freshly issued access token (HTTP 401)",
			       c->method, c->path);
	return 0;
}

static const char *api_code(const struct nc_reply *r)
{
	json_t *j = r->json;
	if (json_is_array(j))
		j = json_array_get(j, 0);
	return json_string_value(json_object_get(j, "code"));
}

int nc_api_error(struct fcr_error *err, const struct nc_call *c, const struct nc_reply *r)
{
	enum fcr_status code = r->status == 404 ? FCR_E_NOT_FOUND : FCR_E_API;
	char msg[768] = "";
	size_t used = 0;
	json_t *items = r->json;
	json_t *single = NULL;
	if (json_is_object(items)) {
		single = json_array();
		json_array_append(single, items);
		items = single;
	}
	if (json_is_array(items)) {
		size_t i;
		json_t *e;
		json_array_foreach(items, i, e) {
			const char *ec = json_string_value(json_object_get(e, "code"));
			const char *em = json_string_value(json_object_get(e, "message"));
			if (!ec && !em)
				continue;
			int w =
			    snprintf(msg + used, sizeof(msg) - used, "%s%s%s%s", used ? "; " : "",
				     ec ? ec : "", ec && em ? ": " : "", em ? em : "");
			if (w < 0 || (size_t)w >= sizeof(msg) - used)
				break;
			used += (size_t)w;
		}
	}
	json_decref(single);
	if (!msg[0] && r->snippet[0])
		snprintf(msg, sizeof(msg), "%s", r->snippet);
	if (err) {
		const char *ac = api_code(r);
		snprintf(err->api_code, sizeof(err->api_code), "%s", ac ? ac : "");
		err->http_status = (int)r->status;
	}
	return fcr_fail_as(err, code, "%s %s: HTTP %ld%s%s", c->method, c->path, r->status,
		       msg[0] ? " " : "", msg);
}

static bool is_lock_error(const struct nc_reply *r)
{
	const char *code = api_code(r);
	return r->status == 409 && code && strcmp(code, "server.lock.error") == 0;
}

static unsigned unavailable_wait(const struct fcr_netcup_config *cfg, unsigned tries)
{
	unsigned shift = tries < 3 ? tries : 3; /* doubles up to 8x */
	unsigned long w = (unsigned long)cfg->unavailable_wait_ms << shift;
	return w > 0xffffffffUL ? 0xffffffffU : (unsigned)w;
}

int nc_request(struct fcr_netcup *nc, const struct nc_call *c, struct nc_reply *r,
	       struct fcr_error *err)
{
	const struct fcr_netcup_config *cfg = &nc->cfg;
	unsigned t_transport = 0, t_unavail = 0, t_lock = 0;
	for (unsigned attempt = 1;; attempt++) {
		int rc = call_once(nc, c, attempt, r, err);
		if (rc < 0)
			return rc;
		const char *reason = NULL;
		unsigned wait_ms = 0;
		if (r->transport != FCR_T_OK || (r->status >= 500 && r->status != 503)) {
			if (r->transport == FCR_T_TOO_BIG)
				return fcr_fail_as(err, FCR_E_PROTOCOL, "%s %s: %s", c->method,
					       c->path, r->error);
			if (t_transport++ < cfg->transport_retries) {
				reason = r->transport != FCR_T_OK ? "transport" : "server-error";
				wait_ms = cfg->transport_wait_ms;
			} else if (r->transport != FCR_T_OK) {
				return fcr_fail_as(err, FCR_E_TRANSPORT, "%s %s: %s (%u attempts)",
					       c->method, c->path, r->error, attempt);
			} else {
				rc = nc_api_error(err, c, r);
				nc_reply_clear(r);
				return rc;
			}
		} else if (r->status == 503) {
			if (t_unavail < cfg->unavailable_retries) {
				reason = "unavailable";
				wait_ms = unavailable_wait(cfg, t_unavail++);
			} else {
				rc = nc_api_error(err, c, r);
				nc_reply_clear(r);
				return rc;
			}
		} else if (is_lock_error(r) && t_lock < cfg->lock_retries) {
			t_lock++;
			reason = "server.lock.error";
			wait_ms = cfg->lock_wait_ms;
		} else {
			return 0;
		}
		emit_retry(nc, c, reason, wait_ms, attempt);
		nc_reply_clear(r);
		rc = nc_sleep_ms(cfg, wait_ms, err);
		if (rc < 0)
			return rc;
	}
}

int nc_get(struct fcr_netcup *nc, const char *path, struct nc_reply *r, struct fcr_error *err)
{
	struct nc_call c = {.method = "GET", .path = path};
	int rc = nc_request(nc, &c, r, err);
	if (rc < 0)
		return rc;
	if (r->status < 200 || r->status > 299) {
		rc = nc_api_error(err, &c, r);
		nc_reply_clear(r);
		return rc;
	}
	return 0;
}

/* ---- reading ---------------------------------------------------------------- */

int nc_parse_server(json_t *j, struct fcr_netcup_server *out, struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !json_is_integer(json_object_get(j, "id")))
		return fcr_fail_as(err, FCR_E_PROTOCOL, "the server object has no id");
	out->id = (long)json_integer_value(json_object_get(j, "id"));
	nc_copy_str(out->name, sizeof(out->name), j, "name");
	nc_copy_str(out->hostname, sizeof(out->hostname), j, "hostname");
	out->disabled = json_is_true(json_object_get(j, "disabled"));
	out->snapshot_allowed = json_is_true(json_object_get(j, "snapshotAllowed"));
	out->snapshot_count = (int)json_integer_value(json_object_get(j, "snapshotCount"));
	json_t *live = json_object_get(j, "serverLiveInfo");
	if (!json_is_object(live))
		return 0;
	out->live_info = true;
	nc_copy_str(out->state, sizeof(out->state), live, "state");
	out->uefi = json_is_true(json_object_get(live, "uefi"));
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(live, "disks"), i, d) {
		if (out->n_disks == FCR_NETCUP_MAX_DISKS)
			break;
		struct fcr_netcup_disk *disk = &out->disks[out->n_disks++];
		nc_copy_str(disk->dev, sizeof(disk->dev), d, "dev");
		disk->capacity_mib = json_integer_value(json_object_get(d, "capacityInMiB"));
		disk->allocation_mib = json_integer_value(json_object_get(d, "allocationInMiB"));
	}
	return 0;
}

int fcr_netcup_get_server(struct fcr_netcup *nc, struct fcr_netcup_server *out, struct fcr_error *err)
{
	char path[96];
	struct nc_reply r;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld", nc->cfg.server_id);
	memset(out, 0, sizeof(*out));
	int rc = nc_get(nc, path, &r, err);
	if (rc < 0)
		return rc;
	rc = nc_parse_server(r.json, out, err);
	nc_reply_clear(&r);
	return rc;
}

void fcr_netcup_snapshot_list_free(struct fcr_netcup_snapshot_list *list)
{
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

int fcr_netcup_list_snapshots(struct fcr_netcup *nc, struct fcr_netcup_snapshot_list *out,
			  struct fcr_error *err)
{
	char path[96];
	struct nc_reply r;
	out->items = NULL;
	out->n = 0;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots", nc->cfg.server_id);
	int rc = nc_get(nc, path, &r, err);
	if (rc < 0)
		return rc;
	if (!json_is_array(r.json)) {
		nc_reply_clear(&r);
		return fcr_fail_as(err, FCR_E_PROTOCOL, "GET %s: expected a JSON array", path);
	}
	size_t n = json_array_size(r.json);
	out->items = cm_calloc(n, sizeof(*out->items));
	size_t i;
	json_t *s;
	json_array_foreach(r.json, i, s) {
		struct fcr_netcup_snapshot *o = &out->items[out->n++];
		nc_copy_str(o->name, sizeof(o->name), s, "name");
		nc_copy_str(o->uuid, sizeof(o->uuid), s, "uuid");
		nc_copy_str(o->creation_time, sizeof(o->creation_time), s, "creationTime");
		nc_copy_str(o->state, sizeof(o->state), s, "state");
		o->online = json_is_true(json_object_get(s, "online"));
		size_t k;
		json_t *d;
		size_t used = 0;
		json_array_foreach(json_object_get(s, "disks"), k, d) {
			const char *dev = json_string_value(d);
			if (!dev)
				continue;
			int w = snprintf(o->disks + used, sizeof(o->disks) - used, "%s%s",
					 used ? "," : "", dev);
			if (w < 0 || (size_t)w >= sizeof(o->disks) - used)
				break;
			used += (size_t)w;
		}
	}
	nc_reply_clear(&r);
	return 0;
}

static int snapshot_exists(struct fcr_netcup *nc, const char *name, bool *exists,
			   struct fcr_error *err)
{
	struct fcr_netcup_snapshot_list l;
	int rc = fcr_netcup_list_snapshots(nc, &l, err);
	if (rc < 0)
		return rc;
	*exists = false;
	for (size_t i = 0; i < l.n; i++) {
		if (strcmp(l.items[i].name, name) == 0)
			*exists = true;
	}
	fcr_netcup_snapshot_list_free(&l);
	return 0;
}

/* ---- tasks ------------------------------------------------------------------- */

static bool task_terminal(const char *state)
{
	return strcmp(state, "FINISHED") == 0 || strcmp(state, "ERROR") == 0 ||
	       strcmp(state, "CANCELED") == 0 || strcmp(state, "ROLLBACK") == 0;
}

static void remember_task(struct fcr_netcup *nc, const char *uuid)
{
	for (unsigned i = 0; i < nc->n_seen && i < NC_SEEN_TASKS; i++) {
		if (strcmp(nc->seen[i], uuid) == 0)
			return;
	}
	snprintf(nc->seen[nc->n_seen % NC_SEEN_TASKS], sizeof(nc->seen[0]), "%s", uuid);
	nc->n_seen++;
}

static bool task_seen(const struct fcr_netcup *nc, const char *uuid)
{
	for (unsigned i = 0; i < nc->n_seen && i < NC_SEEN_TASKS; i++) {
		if (strcmp(nc->seen[i], uuid) == 0)
			return true;
	}
	return false;
}

/* Fills t from a TaskInfo; returns true when its state changed. */
static bool task_update(struct fcr_netcup_task *t, json_t *j)
{
	char before[sizeof(t->state)];
	snprintf(before, sizeof(before), "%s", t->state);
	if (json_is_string(json_object_get(j, "uuid")))
		nc_copy_str(t->uuid, sizeof(t->uuid), j, "uuid");
	if (json_is_string(json_object_get(j, "name")))
		nc_copy_str(t->name, sizeof(t->name), j, "name");
	nc_copy_str(t->state, sizeof(t->state), j, "state");
	const char *m =
	    json_string_value(json_object_get(json_object_get(j, "responseError"), "message"));
	if (!m || !m[0])
		m = json_string_value(json_object_get(j, "message"));
	snprintf(t->message, sizeof(t->message), "%s", m ? m : "");
	nc_copy_str(t->started_at, sizeof(t->started_at), j, "startedAt");
	nc_copy_str(t->finished_at, sizeof(t->finished_at), j, "finishedAt");
	t->started_s = t->started_at[0] ? cm_parse_rfc3339(t->started_at) : NAN;
	t->finished_s = t->finished_at[0] ? cm_parse_rfc3339(t->finished_at) : NAN;
	t->duration_s = t->finished_s - t->started_s; /* NaN if either is */
	return strcmp(before, t->state) != 0;
}

static void emit_task_state(struct fcr_netcup *nc, const struct fcr_netcup_task *t, json_t *j)
{
	json_t *progress = json_object_get(json_object_get(j, "taskProgress"), "progressInPercent");
	nc_emit(&nc->cfg, "task-state",
		json_pack("{s:s, s:s, s:s, s:O?}", "uuid", t->uuid, "name", t->name, "state",
			  t->state, "progress", progress));
}

/*
 * Polls GET /tasks/{uuid} every poll interval until the task ends.  `first`
 * is the TaskInfo the write answered with (may be NULL).
 */
static int task_wait(struct fcr_netcup *nc, const char *uuid, json_t *first, struct fcr_netcup_task *t,
		     struct fcr_error *err)
{
	const struct fcr_netcup_config *cfg = &nc->cfg;
	char path[160];
	double deadline = cm_mono_s() + cfg->task_timeout_ms / 1000.0;
	memset(t, 0, sizeof(*t));
	t->started_s = t->finished_s = t->duration_s = NAN;
	snprintf(t->uuid, sizeof(t->uuid), "%s", uuid);
	remember_task(nc, uuid);
	if (first && task_update(t, first))
		emit_task_state(nc, t, first);
	char *esc = fcr_url_escape(uuid);
	snprintf(path, sizeof(path), "/api/v1/tasks/%s", esc);
	free(esc);
	while (!task_terminal(t->state)) {
		if (cm_mono_s() >= deadline)
			return fcr_fail_as(
			    err, FCR_E_TIMEOUT,
			    "task %s (%s) is still %s after %.0f s; it may still finish: "
			    "look at the SCP's task list",
			    t->name[0] ? t->name : "?", t->uuid, t->state[0] ? t->state : "unknown",
			    cfg->task_timeout_ms / 1000.0);
		int rc = nc_sleep_ms(cfg, cfg->poll_interval_ms, err);
		if (rc < 0)
			return rc;
		struct nc_reply r;
		rc = nc_get(nc, path, &r, err);
		if (rc < 0)
			return rc;
		t->polls++;
		if (!json_is_object(r.json) || !json_is_string(json_object_get(r.json, "state"))) {
			nc_reply_clear(&r);
			return fcr_fail_as(err, FCR_E_PROTOCOL,
				       "GET %s: no task state in the answer", path);
		}
		if (task_update(t, r.json))
			emit_task_state(nc, t, r.json);
		nc_reply_clear(&r);
	}
	if (strcmp(t->state, "FINISHED") == 0)
		return 0;
	if (err)
		snprintf(err->api_code, sizeof(err->api_code), "%s", t->state);
	return fcr_fail_as(err, FCR_E_TASK, "task %s (%s) ended in %s: %s", t->name, t->uuid,
		       t->state, t->message[0] ? t->message : "the API gave no reason");
}

/*
 * The newest task named `name` on our server that this context has not seen
 * and that started at `since` or later (by the API's clock).  found = false
 * when there is none.
 */
static int task_find_recent(struct fcr_netcup *nc, const char *name, double since, bool *found,
			    char *uuid, size_t uuid_len, char *state, size_t state_len,
			    struct fcr_error *err)
{
	char path[128];
	struct nc_reply r;
	*found = false;
	snprintf(path, sizeof(path), "/api/v1/tasks?serverId=%ld&limit=20", nc->cfg.server_id);
	int rc = nc_get(nc, path, &r, err);
	if (rc < 0)
		return rc;
	size_t i;
	json_t *t;
	json_array_foreach(r.json, i, t) {
		const char *n = json_string_value(json_object_get(t, "name"));
		const char *u = json_string_value(json_object_get(t, "uuid"));
		if (!n || !u || strcmp(n, name) != 0 || task_seen(nc, u))
			continue;
		double started =
		    cm_parse_rfc3339(json_string_value(json_object_get(t, "startedAt")));
		if (!isnan(started) && started < since)
			continue;
		*found = true;
		snprintf(uuid, uuid_len, "%s", u);
		nc_copy_str(state, state_len, t, "state");
		break;
	}
	nc_reply_clear(&r);
	return 0;
}

/* ---- writes ------------------------------------------------------------------ */

/*
 * Tells whether the wanted effect of a write is visible (the state reached,
 * the snapshot there or gone).
 */
struct nc_observe {
	int (*fn)(struct fcr_netcup *nc, const void *arg, bool *done, struct fcr_error *err);
	const void *arg;
};

struct nc_write {
	struct nc_call call;
	const char *task_name; /* the task this write starts */
	struct nc_observe observe;
};

enum nc_write_how {
	NC_W_REPLY, /* the API answered 2xx: reply */
	NC_W_DONE,  /* an earlier attempt went through; its effect is visible, no task found */
	NC_W_TASK,  /* an earlier attempt went through; wait for task_uuid */
};

struct nc_write_out {
	enum nc_write_how how;
	struct nc_reply reply;
	char task_uuid[64];
};

static void emit_check(struct fcr_netcup *nc, const struct nc_call *c, const char *outcome,
		       const char *uuid)
{
	json_t *f =
	    json_pack("{s:s, s:s, s:s}", "method", c->method, "path", c->path, "outcome", outcome);
	if (f && uuid)
		json_object_set_new(f, "task_uuid", json_string(uuid));
	nc_emit(&nc->cfg, "write-check", f);
}

/*
 * Before sending a write again.  full: the last attempt may have gone through
 * (a timeout, a dropped connection, a 5xx), so also look for its task; else
 * (409, 503: refused) only whether the effect is there already, which happens
 * when a run that was cut short is resumed.  Returns 1 when nothing is to be
 * sent (out filled), 0 to send again.
 */
static int write_check(struct fcr_netcup *nc, const struct nc_write *w, double since, bool full,
		       struct nc_write_out *out, struct fcr_error *err)
{
	bool done = false, found = false;
	char uuid[64] = "", state[24] = "";
	int rc;
	if (w->observe.fn) {
		rc = w->observe.fn(nc, w->observe.arg, &done, err);
		if (rc < 0)
			return rc;
	}
	if (!full && !done)
		return 0;
	if (w->task_name) {
		rc = task_find_recent(nc, w->task_name, since - CLOCK_SKEW_S, &found, uuid,
				      sizeof(uuid), state, sizeof(state), err);
		if (rc < 0)
			return rc;
	}
	/*
	 * A task of that kind that we did not start before, started since we
	 * sent: ours.  Without an effect to look at (revert) or with the effect
	 * not yet visible, it is still the best evidence there is.
	 */
	if (found && (done || full)) {
		out->how = NC_W_TASK;
		snprintf(out->task_uuid, sizeof(out->task_uuid), "%s", uuid);
		emit_check(nc, &w->call, "task", uuid);
		return 1;
	}
	if (done) {
		out->how = NC_W_DONE;
		emit_check(nc, &w->call, "done", NULL);
		return 1;
	}
	emit_check(nc, &w->call, "not-received", NULL);
	return 0;
}

/*
 * Sends a write until the API takes it, and never twice: a 409 lock or a 503
 * is retried after a pause; an attempt that may have gone through is checked
 * (write_check) before anything is sent again.
 */
static int write_send(struct fcr_netcup *nc, const struct nc_write *w, struct fcr_netcup_result *res,
		      struct nc_write_out *out, struct fcr_error *err)
{
	const struct fcr_netcup_config *cfg = &nc->cfg;
	const struct nc_call *c = &w->call;
	unsigned t_transport = 0, t_unavail = 0, t_lock = 0;
	double since = cm_wall_s();
	/* full: some attempt may have gone through; stays so for every later check */
	bool check = false, full = false;
	memset(out, 0, sizeof(*out));
	for (unsigned attempt = 1;; attempt++) {
		int rc;
		if (check) {
			rc = write_check(nc, w, since, full, out, err);
			if (rc < 0)
				return rc;
			if (rc > 0) {
				/*
				 * full: an attempt of ours went through.  Else every
				 * attempt was refused (409, 503) and the effect was there
				 * before we sent anything: a resumed run.
				 */
				if (full)
					res->recovered = true;
				else
					res->already = true;
				return 0;
			}
		}
		rc = call_once(nc, c, attempt, &out->reply, err);
		if (rc < 0)
			return rc;
		struct nc_reply *r = &out->reply;
		const char *reason;
		unsigned wait_ms;
		if (r->status >= 200 && r->status <= 299) {
			out->how = NC_W_REPLY;
			return 0;
		}
		if (r->transport != FCR_T_OK || (r->status >= 500 && r->status != 503)) {
			if (t_transport++ >= cfg->transport_retries) {
				if (r->transport == FCR_T_OK)
					return nc_api_error(err, c, r);
				return fcr_fail_as(err, FCR_E_TRANSPORT,
					       "%s %s: %s (%u attempts); whether the last one "
					       "went through is unknown: look at the SCP",
					       c->method, c->path, r->error, attempt);
			}
			reason = r->transport != FCR_T_OK ? "transport" : "server-error";
			wait_ms = cfg->transport_wait_ms;
			check = true;
			/* Only a request that never left is known not to have gone through. */
			full = full || r->transport != FCR_T_NOT_SENT;
		} else if (r->status == 503 && t_unavail < cfg->unavailable_retries) {
			reason = "unavailable";
			wait_ms = unavailable_wait(cfg, t_unavail++);
			check = true;
		} else if (is_lock_error(r) && t_lock < cfg->lock_retries) {
			t_lock++;
			reason = "server.lock.error";
			wait_ms = cfg->lock_wait_ms;
			check = true;
		} else {
			return nc_api_error(err, c, r);
		}
		res->retries++;
		emit_retry(nc, c, reason, wait_ms, attempt);
		nc_reply_clear(r);
		rc = nc_sleep_ms(cfg, wait_ms, err);
		if (rc < 0)
			return rc;
	}
}

/* ---- results ---------------------------------------------------------------- */

static double res_begin(struct fcr_netcup_result *res)
{
	memset(res, 0, sizeof(*res));
	res->started_s = cm_wall_s();
	for (unsigned i = 0; i < FCR_NETCUP_MAX_TASKS; i++)
		res->tasks[i].started_s = res->tasks[i].finished_s = res->tasks[i].duration_s = NAN;
	res->finished_s = res->duration_s = NAN;
	return cm_mono_s();
}

static int res_end(struct fcr_netcup_result *res, double t0, int rc)
{
	res->finished_s = cm_wall_s();
	res->duration_s = cm_mono_s() - t0;
	return rc;
}

static struct fcr_netcup_task *res_task(struct fcr_netcup_result *res)
{
	if (res->n_tasks < FCR_NETCUP_MAX_TASKS)
		return &res->tasks[res->n_tasks++];
	return &res->tasks[FCR_NETCUP_MAX_TASKS - 1];
}

/*
 * After write_send: wait for the task the write started, however we learnt
 * of it.  A 2xx without a task is accepted as done (200 "patched").
 */
static int write_finish(struct fcr_netcup *nc, const struct nc_write *w, struct nc_write_out *out,
			struct fcr_netcup_result *res, struct fcr_error *err)
{
	int rc = 0;
	if (out->how == NC_W_TASK) {
		rc = task_wait(nc, out->task_uuid, NULL, res_task(res), err);
	} else if (out->how == NC_W_REPLY) {
		json_t *j = out->reply.json;
		const char *uuid = json_string_value(json_object_get(j, "uuid"));
		if (out->reply.status == 202 && !uuid)
			rc = fcr_fail_as(err, FCR_E_PROTOCOL,
				     "%s %s: HTTP 202 without a task uuid in the answer",
				     w->call.method, w->call.path);
		else if (uuid)
			rc = task_wait(nc, uuid, j, res_task(res), err);
	}
	nc_reply_clear(&out->reply);
	return rc;
}

/* A write, sent once (write_send), and its task waited for (write_finish). */
static int write_and_wait(struct fcr_netcup *nc, const struct nc_write *w, struct fcr_netcup_result *res,
			  struct fcr_error *err)
{
	struct nc_write_out out;
	int rc = write_send(nc, w, res, &out, err);
	if (rc < 0) {
		nc_reply_clear(&out.reply);
		return rc;
	}
	return write_finish(nc, w, &out, res, err);
}

/* ---- power ---------------------------------------------------------------- */

static int observe_state(struct fcr_netcup *nc, const void *arg, bool *done, struct fcr_error *err)
{
	struct fcr_netcup_server s;
	int rc = fcr_netcup_get_server(nc, &s, err);
	if (rc < 0)
		return rc;
	*done = strcmp(s.state, (const char *)arg) == 0;
	return 0;
}

/* Polls GET /servers/{id} until its state is `want`. */
static int wait_state(struct fcr_netcup *nc, const char *want, struct fcr_error *err)
{
	double deadline = cm_mono_s() + nc->cfg.task_timeout_ms / 1000.0;
	char last[24] = "";
	for (;;) {
		struct fcr_netcup_server s;
		int rc = fcr_netcup_get_server(nc, &s, err);
		if (rc < 0)
			return rc;
		if (!s.live_info)
			return fcr_fail_as(
			    err, FCR_E_PROTOCOL,
			    "server %ld: the API gave no serverLiveInfo, so its state is "
			    "unknown",
			    nc->cfg.server_id);
		if (strcmp(s.state, want) == 0)
			return 0;
		snprintf(last, sizeof(last), "%s", s.state);
		if (cm_mono_s() >= deadline)
			return fcr_fail_as(
			    err, FCR_E_TIMEOUT, "server %ld is still %s, not %s, after %.0f s",
			    nc->cfg.server_id, last, want, nc->cfg.task_timeout_ms / 1000.0);
		rc = nc_sleep_ms(&nc->cfg, nc->cfg.poll_interval_ms, err);
		if (rc < 0)
			return rc;
	}
}

/*
 * PATCH {"state": word}[?stateOption=option], wait for its task, then for
 * GET to show `target`.  skip_if_there: read the state first and send nothing
 * when it is `target` already.
 */
static int power_step(struct fcr_netcup *nc, const char *word, const char *option, const char *target,
		      bool skip_if_there, struct fcr_netcup_result *res, struct fcr_error *err)
{
	char path[128], body[64];
	int rc;
	if (skip_if_there) {
		bool there = false;
		rc = observe_state(nc, target, &there, err);
		if (rc < 0)
			return rc;
		if (there) {
			res->already = true;
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/api/v1/servers/%ld%s%s", nc->cfg.server_id,
		 option ? "?stateOption=" : "", option ? option : "");
	snprintf(body, sizeof(body), "{\"state\":\"%s\"}", word);
	struct nc_write w = {
	    .call = {.method = "PATCH",
		     .path = path,
		     .content_type = "application/merge-patch+json",
		     .body = body,
		     .write = true},
	    .task_name = "ServerStateChangeTask",
	    /* RESET and POWERCYCLE end where they began: nothing to observe */
	    .observe = {option && strcmp(word, "ON") == 0 ? NULL : observe_state, target},
	};
	rc = write_and_wait(nc, &w, res, err);
	if (rc < 0)
		return rc;
	return wait_state(nc, target, err);
}

int fcr_netcup_power_off(struct fcr_netcup *nc, bool hard, struct fcr_netcup_result *res,
		     struct fcr_error *err)
{
	double t0 = res_begin(res);
	int rc = power_step(nc, "OFF", hard ? "POWEROFF" : NULL, "SHUTOFF", true, res, err);
	return res_end(res, t0, rc);
}

int fcr_netcup_power_on(struct fcr_netcup *nc, struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = res_begin(res);
	int rc = power_step(nc, "ON", NULL, "RUNNING", true, res, err);
	return res_end(res, t0, rc);
}

int fcr_netcup_reboot(struct fcr_netcup *nc, enum fcr_netcup_reboot how, struct fcr_netcup_result *res,
		  struct fcr_error *err)
{
	double t0 = res_begin(res);
	int rc;
	switch (how) {
	case FCR_NETCUP_REBOOT_GRACEFUL:
		rc = power_step(nc, "OFF", NULL, "SHUTOFF", true, res, err);
		if (rc == 0) {
			bool was_off = res->already;
			rc = power_step(nc, "ON", NULL, "RUNNING", false, res, err);
			res->already = was_off && res->n_tasks == 0;
		}
		break;
	case FCR_NETCUP_REBOOT_POWERCYCLE:
		rc = power_step(nc, "ON", "POWERCYCLE", "RUNNING", false, res, err);
		break;
	case FCR_NETCUP_REBOOT_RESET:
		rc = power_step(nc, "ON", "RESET", "RUNNING", false, res, err);
		break;
	default:
		rc = fcr_fail_as(err, FCR_E_INVAL, "unknown reboot mode %d", (int)how);
	}
	return res_end(res, t0, rc);
}

/* ---- snapshots ----------------------------------------------------------- */

struct snap_want {
	const char *name;
	bool present;
};

static int observe_snapshot(struct fcr_netcup *nc, const void *arg, bool *done,
			    struct fcr_error *err)
{
	const struct snap_want *sw = arg;
	bool exists;
	int rc = snapshot_exists(nc, sw->name, &exists, err);
	if (rc < 0)
		return rc;
	*done = exists == sw->present;
	return 0;
}

static int check_name(const char *name, struct fcr_error *err)
{
	if (!name || !name[0])
		return fcr_fail_as(err, FCR_E_INVAL, "a snapshot needs a name");
	size_t chars = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if ((*p & 0xc0) != 0x80)
			chars++;
		if (*p < 0x20 || *p == 0x7f)
			return fcr_fail_as(err, FCR_E_INVAL,
				       "snapshot name \"%s\" contains a control character", name);
	}
	if (chars > 255)
		return fcr_fail_as(err, FCR_E_INVAL,
			       "snapshot name is %zu characters long; the API allows 255", chars);
	return 0;
}

/* "/api/v1/servers/{id}/snapshots/{escaped name}{suffix}", heap. */
static char *snapshot_path(struct fcr_netcup *nc, const char *name, const char *suffix)
{
	char *esc = fcr_url_escape(name);
	char *p = cm_asprintf("/api/v1/servers/%ld/snapshots/%s%s", nc->cfg.server_id, esc, suffix);
	free(esc);
	return p;
}

static int snapshot_create(struct fcr_netcup *nc, const struct fcr_netcup_snapshot_opts *o,
			   struct fcr_netcup_result *res, struct fcr_error *err)
{
	int rc = check_name(o->name, err);
	if (rc < 0)
		return rc;
	struct snap_want want = {o->name, true};
	if (o->adopt_existing) {
		bool exists;
		rc = snapshot_exists(nc, o->name, &exists, err);
		if (rc < 0)
			return rc;
		if (exists) {
			bool found;
			char uuid[64], state[24];
			res->already = true;
			rc = task_find_recent(nc, "ServerSnapshotCreateTask", -INFINITY, &found,
					      uuid, sizeof(uuid), state, sizeof(state), err);
			if (rc < 0 || !found || task_terminal(state))
				return rc;
			return task_wait(nc, uuid, NULL, res_task(res), err);
		}
	}
	json_t *body = json_pack("{s:s, s:b}", "name", o->name, "onlineSnapshot", o->online);
	if (body && o->disk)
		json_object_set_new(body, "diskName", json_string(o->disk));
	if (body && o->description)
		json_object_set_new(body, "description", json_string(o->description));
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(body);
	char path[96];
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots", nc->cfg.server_id);
	if (!text)
		cm_die("out of memory");
	struct nc_write w = {
	    .call = {.method = "POST",
		     .path = path,
		     .content_type = "application/json",
		     .body = text,
		     .write = true},
	    .task_name = "ServerSnapshotCreateTask",
	    .observe = {observe_snapshot, &want},
	};
	rc = write_and_wait(nc, &w, res, err);
	free(text);
	return rc;
}

int fcr_netcup_snapshot_create(struct fcr_netcup *nc, const struct fcr_netcup_snapshot_opts *opts,
			   struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = res_begin(res);
	return res_end(res, t0, snapshot_create(nc, opts, res, err));
}

static int snapshot_delete(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	int rc = check_name(name, err);
	if (rc < 0)
		return rc;
	char *path = snapshot_path(nc, name, "");
	struct snap_want want = {name, false};
	struct nc_write w = {
	    /* no body, so no Content-Type: the recorded live DELETE had none */
	    .call = {.method = "DELETE", .path = path, .write = true},
	    .task_name = "ServerSnapshotDeleteTask",
	    .observe = {observe_snapshot, &want},
	};
	rc = write_and_wait(nc, &w, res, err);
	free(path);
	return rc;
}

int fcr_netcup_snapshot_delete(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	double t0 = res_begin(res);
	return res_end(res, t0, snapshot_delete(nc, name, res, err));
}

static int snapshot_revert(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	int rc = check_name(name, err);
	if (rc < 0)
		return rc;
	char *path = snapshot_path(nc, name, "/revert");
	struct nc_write w = {
	    /* bodiless, but the API wants a Content-Type on every POST */
	    .call = {.method = "POST",
		     .path = path,
		     .content_type = "application/json",
		     .body = "",
		     .write = true},
	    .task_name = "ServerSnapshotRevertTask",
	};
	rc = write_and_wait(nc, &w, res, err);
	free(path);
	if (rc < 0)
		return rc;
	return wait_state(nc, "RUNNING", err);
}

int fcr_netcup_snapshot_revert(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	double t0 = res_begin(res);
	return res_end(res, t0, snapshot_revert(nc, name, res, err));
}

/* ---- dry-run and findings ------------------------------------------------- */

void nc_finding(struct fcr_netcup_findings *f, enum fcr_netcup_level level, const char *code,
		const char *fmt, ...)
{
	struct fcr_netcup_finding *x = CM_PUSH(f->items, f->n, f->cap);
	x->level = level;
	snprintf(x->code, sizeof(x->code), "%s", code ? code : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof(x->message), fmt, ap);
	va_end(ap);
	if (level == FCR_NETCUP_PROBLEM)
		f->n_problems++;
	else if (level == FCR_NETCUP_WARNING)
		f->n_warnings++;
}

void fcr_netcup_findings_free(struct fcr_netcup_findings *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}

int fcr_netcup_snapshot_dryrun(struct fcr_netcup *nc, bool online, const char *disk, bool *possible,
			   struct fcr_netcup_findings *f, struct fcr_error *err)
{
	char path[96];
	*possible = false;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots:dryrun", nc->cfg.server_id);
	json_t *body = json_pack("{s:b}", "onlineSnapshot", online);
	if (body && disk)
		json_object_set_new(body, "diskName", json_string(disk));
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(body);
	if (!text)
		cm_die("out of memory");
	/* A check without side effects: retried like a GET. */
	struct nc_call c = {
	    .method = "POST", .path = path, .content_type = "application/json", .body = text};
	struct nc_reply r;
	int rc = nc_request(nc, &c, &r, err);
	free(text);
	if (rc < 0)
		return rc;
	if ((r.status != 200 && r.status != 400) || !json_is_array(r.json)) {
		rc = nc_api_error(err, &c, &r);
		nc_reply_clear(&r);
		return rc;
	}
	size_t i;
	json_t *e;
	json_array_foreach(r.json, i, e) {
		const char *ec = json_string_value(json_object_get(e, "code"));
		const char *em = json_string_value(json_object_get(e, "message"));
		nc_finding(f, FCR_NETCUP_PROBLEM, ec,
				"the API's dry-run of an %s snapshot%s%s says: %s",
				online ? "online" : "offline", disk ? " of disk " : "",
				disk ? disk : "", em ? em : (ec ? ec : "?"));
	}
	*possible = r.status == 200 && json_array_size(r.json) == 0;
	nc_reply_clear(&r);
	return 0;
}
