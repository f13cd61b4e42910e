/* SPDX-License-Identifier: MIT */
/*
 * The netcup SCP client's context (netcup.h): its two APIs on one
 * connection, reading the server and its snapshots, waiting for tasks, and
 * the check that keeps a write from being sent twice.  The policy itself is
 * the shared one of http/api.h; what is netcup's is here: the lock error
 * that means "busy", the fields that are secret or personal, and how to tell
 * that a write went through (its effect, and a task of its kind).
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/secret.h"
#include "netcup/internal.h"

/* Never stored: tokens, and executingUser (a person's name and e-mail). */
static const char *const secret_keys[] = {
    "executingUser", "access_token", "refresh_token", "id_token", "device_code", NULL,
};

/* ---- the context -------------------------------------------------------------- */

void fcr_netcup_config_init(struct fcr_netcup_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->poll_interval_ms = 2000;
	cfg->task_timeout_ms = FCR_NETCUP_SAFETY_WAIT_MS;
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

/* 409 server.lock.error: another change of the server is under way. */
static const char *lock_busy(const struct fcr_reply *r)
{
	const char *code = fcr_api_code(r);
	if (r->status == 409 && code && !strcmp(code, "server.lock.error"))
		return "server.lock.error";
	return NULL;
}

/* The hooks below get the config; the SCP API's opaque is the context itself,
 * whose first member the config is (for its authorize hook). */
_Static_assert(offsetof(struct fcr_netcup, cfg) == 0, "cfg leads struct fcr_netcup");

static void api_event(void *opaque, const char *type, json_t *fields)
{
	const struct fcr_netcup_config *cfg = opaque;
	if (cfg->event)
		cfg->event(cfg->ctx, type, fields);
}

static bool api_should_stop(void *opaque)
{
	const struct fcr_netcup_config *cfg = opaque;
	return cfg->should_stop && cfg->should_stop(cfg->ctx);
}

/* A write's 202 answer: a task object with its uuid. */
static bool reply_task(const struct fcr_reply *r, char *id, size_t len)
{
	const char *uuid = json_string_value(json_object_get(r->json, "uuid"));
	if (!uuid || !uuid[0] || strlen(uuid) >= len)
		return false;
	snprintf(id, len, "%s", uuid);
	return true;
}

void fcr_netcup_api_config(const struct fcr_netcup_config *cfg, bool auth,
			   struct fcr_api_config *out)
{
	*out = (struct fcr_api_config){
	    .name = auth ? "auth" : "scp",
	    .panel = "the SCP",
	    .transport_wait_ms = cfg->transport_wait_ms,
	    .transport_retries = cfg->transport_retries,
	    .unavailable_wait_ms = cfg->unavailable_wait_ms,
	    .unavailable_retries = cfg->unavailable_retries,
	    .busy_wait_ms = cfg->lock_wait_ms,
	    .busy_retries = cfg->lock_retries,
	    .secret_keys = secret_keys,
	    /* the token endpoint answers with tokens: never stored */
	    .store_answers = !auth,
	    .busy = lock_busy,
	    .event = api_event,
	    .should_stop = api_should_stop,
	    .opaque = (void *)cfg,
	    .reply_task = auth ? NULL : reply_task,
	};
}

void fcr_netcup_free(struct fcr_netcup *nc)
{
	if (!nc)
		return;
	fcr_api_release(&nc->scp);
	fcr_api_release(&nc->auth);
	fcr_http_cleanup(&nc->http);
	fcr_secret_free(nc->refresh_token);
	fcr_secret_free(nc->access_token);
	fcr_secret_free(nc->authorization);
	free(nc->token_file);
	free(nc);
}

int fcr_netcup_new(const struct fcr_netcup_config *cfg, struct fcr_netcup **out,
		   struct fcr_error *err)
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
				   "poll interval, timeouts and the response size limit must not "
				   "be 0 (fcr_netcup_config_init() sets the defaults)");

	struct fcr_netcup *nc = cm_calloc(1, sizeof(*nc));
	nc->cfg = *cfg;
	if (cfg->token_file)
		nc->token_file = cm_strdup(cfg->token_file);
	nc->cfg.token_file = nc->token_file;
	if (fcr_http_init(&nc->http, cfg->connect_timeout_ms, cfg->http_timeout_ms,
			  cfg->max_response_bytes) < 0) {
		fcr_netcup_free(nc);
		return fcr_fail(err, "cannot initialise libcurl");
	}
	struct fcr_api_config ac;
	fcr_netcup_api_config(&nc->cfg, false, &ac);
	ac.authorize = fcr_netcup_authorize;
	ac.opaque = nc; /* cfg is its first member: the event hooks find it there */
	fcr_api_init(&nc->scp, &nc->http, api, &ac);
	fcr_netcup_api_config(&nc->cfg, true, &ac);
	fcr_api_init(&nc->auth, &nc->http, auth, &ac);
	nc->cfg.api_url = nc->scp.base;
	nc->cfg.auth_url = nc->auth.base;
	int rc = fcr_netcup_token_load(nc, err);
	if (rc < 0) {
		fcr_netcup_free(nc);
		return rc;
	}
	*out = nc;
	return 0;
}

/* ---- reading ---------------------------------------------------------------- */

static int parse_server(json_t *j, struct fcr_netcup_server *out, struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !json_is_integer(json_object_get(j, "id")))
		return fcr_fail_as(err, FCR_E_PROTOCOL, "the server object has no id");
	out->id = (long)json_integer_value(json_object_get(j, "id"));
	fcr_jcopy_str(out->name, sizeof(out->name), j, "name");
	fcr_jcopy_str(out->hostname, sizeof(out->hostname), j, "hostname");
	out->disabled = json_is_true(json_object_get(j, "disabled"));
	out->snapshot_allowed = json_is_true(json_object_get(j, "snapshotAllowed"));
	out->snapshot_count = (int)json_integer_value(json_object_get(j, "snapshotCount"));
	json_t *live = json_object_get(j, "serverLiveInfo");
	if (!json_is_object(live))
		return 0;
	out->live_info = true;
	fcr_jcopy_str(out->state, sizeof(out->state), live, "state");
	out->uefi = json_is_true(json_object_get(live, "uefi"));
	size_t i;
	json_t *d;
	json_array_foreach(json_object_get(live, "disks"), i, d) {
		if (out->n_disks == FCR_NETCUP_MAX_DISKS)
			break;
		struct fcr_netcup_disk *disk = &out->disks[out->n_disks++];
		fcr_jcopy_str(disk->dev, sizeof(disk->dev), d, "dev");
		disk->capacity_mib = json_integer_value(json_object_get(d, "capacityInMiB"));
		disk->allocation_mib = json_integer_value(json_object_get(d, "allocationInMiB"));
	}
	return 0;
}

int fcr_netcup_get_server(struct fcr_netcup *nc, struct fcr_netcup_server *out,
			  struct fcr_error *err)
{
	char path[96];
	struct fcr_reply r;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld", nc->cfg.server_id);
	memset(out, 0, sizeof(*out));
	int rc = fcr_api_get(&nc->scp, path, &r, err);
	if (rc < 0)
		return rc;
	rc = parse_server(r.json, out, err);
	fcr_reply_clear(&r);
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
	struct fcr_reply r;
	out->items = NULL;
	out->n = 0;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots", nc->cfg.server_id);
	int rc = fcr_api_get(&nc->scp, path, &r, err);
	if (rc < 0)
		return rc;
	if (!json_is_array(r.json)) {
		fcr_reply_clear(&r);
		return fcr_fail_as(err, FCR_E_PROTOCOL, "GET %s: expected a JSON array", path);
	}
	size_t n = json_array_size(r.json);
	out->items = cm_calloc(n, sizeof(*out->items));
	size_t i;
	json_t *s;
	json_array_foreach(r.json, i, s) {
		struct fcr_netcup_snapshot *o = &out->items[out->n++];
		fcr_jcopy_str(o->name, sizeof(o->name), s, "name");
		fcr_jcopy_str(o->uuid, sizeof(o->uuid), s, "uuid");
		fcr_jcopy_str(o->creation_time, sizeof(o->creation_time), s, "creationTime");
		fcr_jcopy_str(o->state, sizeof(o->state), s, "state");
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
	fcr_reply_clear(&r);
	return 0;
}

int fcr_netcup_snapshot_exists(struct fcr_netcup *nc, const char *name, bool *exists,
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

bool fcr_netcup_task_over(const char *state)
{
	return strcmp(state, "FINISHED") == 0 || strcmp(state, "ERROR") == 0 ||
	       strcmp(state, "CANCELED") == 0 || strcmp(state, "ROLLBACK") == 0;
}

static void remember_task(struct fcr_netcup *nc, const char *uuid)
{
	for (unsigned i = 0; i < nc->n_seen && i < FCR_NETCUP_SEEN_TASKS; i++) {
		if (strcmp(nc->seen[i], uuid) == 0)
			return;
	}
	snprintf(nc->seen[nc->n_seen % FCR_NETCUP_SEEN_TASKS], sizeof(nc->seen[0]), "%s", uuid);
	nc->n_seen++;
}

static bool task_seen(const struct fcr_netcup *nc, const char *uuid)
{
	for (unsigned i = 0; i < nc->n_seen && i < FCR_NETCUP_SEEN_TASKS; i++) {
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
		fcr_jcopy_str(t->uuid, sizeof(t->uuid), j, "uuid");
	if (json_is_string(json_object_get(j, "name")))
		fcr_jcopy_str(t->name, sizeof(t->name), j, "name");
	fcr_jcopy_str(t->state, sizeof(t->state), j, "state");
	const char *m =
	    json_string_value(json_object_get(json_object_get(j, "responseError"), "message"));
	if (!m || !m[0])
		m = json_string_value(json_object_get(j, "message"));
	snprintf(t->message, sizeof(t->message), "%s", m ? m : "");
	fcr_jcopy_str(t->started_at, sizeof(t->started_at), j, "startedAt");
	fcr_jcopy_str(t->finished_at, sizeof(t->finished_at), j, "finishedAt");
	t->started_s = t->started_at[0] ? cm_parse_rfc3339(t->started_at) : NAN;
	t->finished_s = t->finished_at[0] ? cm_parse_rfc3339(t->finished_at) : NAN;
	t->duration_s = t->finished_s - t->started_s; /* NaN if either is */
	return strcmp(before, t->state) != 0;
}

static void emit_task_state(struct fcr_netcup *nc, const struct fcr_netcup_task *t, json_t *j)
{
	json_t *progress = json_object_get(json_object_get(j, "taskProgress"), "progressInPercent");
	fcr_api_emit(&nc->scp, "task-state",
		     json_pack("{s:s, s:s, s:s, s:O?}", "uuid", t->uuid, "name", t->name, "state",
			       t->state, "progress", progress));
}

unsigned fcr_netcup_wait_limit_ms(const struct fcr_netcup *nc)
{
	unsigned ms = nc->cfg.task_timeout_ms;
	/* a task that outlived task-timeout is waited for again, and at least as
	 * long as the default: a timed-out take-down is still a take-down */
	if (nc->safety && ms < FCR_NETCUP_SAFETY_WAIT_MS)
		ms = FCR_NETCUP_SAFETY_WAIT_MS;
	return ms;
}

void fcr_netcup_set_safety(struct fcr_netcup *nc, bool on)
{
	nc->safety = on;
}

int fcr_netcup_task_wait(struct fcr_netcup *nc, const char *uuid, json_t *first,
			 struct fcr_netcup_task *t, struct fcr_error *err)
{
	const struct fcr_netcup_config *cfg = &nc->cfg;
	unsigned timeout_ms = fcr_netcup_wait_limit_ms(nc);
	char path[160];
	double deadline = cm_mono_s() + timeout_ms / 1000.0;
	memset(t, 0, sizeof(*t));
	t->started_s = t->finished_s = t->duration_s = NAN;
	snprintf(t->uuid, sizeof(t->uuid), "%s", uuid);
	remember_task(nc, uuid);
	if (first && task_update(t, first))
		emit_task_state(nc, t, first);
	char *esc = fcr_url_escape(uuid);
	snprintf(path, sizeof(path), "/api/v1/tasks/%s", esc);
	free(esc);
	while (!fcr_netcup_task_over(t->state)) {
		if (cm_mono_s() >= deadline)
			return fcr_fail_as(
			    err, FCR_E_TIMEOUT,
			    "task %s (%s) is still %s after %.0f s; it may still finish: "
			    "look at the SCP's task list",
			    t->name[0] ? t->name : "?", t->uuid, t->state[0] ? t->state : "unknown",
			    timeout_ms / 1000.0);
		int rc = fcr_api_sleep_ms(&nc->scp, cfg->poll_interval_ms, err);
		if (rc < 0)
			return rc;
		struct fcr_reply r;
		rc = fcr_api_get(&nc->scp, path, &r, err);
		if (rc < 0)
			return rc;
		t->polls++;
		if (!json_is_object(r.json) || !json_is_string(json_object_get(r.json, "state"))) {
			fcr_reply_clear(&r);
			return fcr_fail_as(err, FCR_E_PROTOCOL,
					   "GET %s: no task state in the answer", path);
		}
		if (task_update(t, r.json))
			emit_task_state(nc, t, r.json);
		fcr_reply_clear(&r);
	}
	if (strcmp(t->state, "FINISHED") == 0)
		return 0;
	if (err)
		snprintf(err->api_code, sizeof(err->api_code), "%s", t->state);
	return fcr_fail_as(err, FCR_E_TASK, "task %s (%s) ended in %s: %s", t->name, t->uuid,
			   t->state, t->message[0] ? t->message : "the API gave no reason");
}

/* GET /api/v1/tasks?serverId={id}&limit=20: the server's newest tasks,
 * newest first (a JSON array in r->json). */
static int list_tasks(struct fcr_netcup *nc, struct fcr_reply *r, struct fcr_error *err)
{
	char path[128];
	snprintf(path, sizeof(path), "/api/v1/tasks?serverId=%ld&limit=20", nc->cfg.server_id);
	return fcr_api_get(&nc->scp, path, r, err);
}

static bool among(json_t *uuids, const char *uuid)
{
	size_t i;
	json_t *u;
	json_array_foreach(uuids, i, u) {
		if (json_is_string(u) && !strcmp(json_string_value(u), uuid))
			return true;
	}
	return false;
}

int fcr_netcup_task_find(struct fcr_netcup *nc, const char *name, json_t *known, bool *found,
			 char *uuid, size_t uuid_len, char *state, size_t state_len,
			 struct fcr_error *err)
{
	struct fcr_reply r;
	*found = false;
	int rc = list_tasks(nc, &r, err);
	if (rc < 0)
		return rc;
	size_t i;
	json_t *t;
	json_array_foreach(r.json, i, t) {
		const char *n = json_string_value(json_object_get(t, "name"));
		const char *u = json_string_value(json_object_get(t, "uuid"));
		if (!n || !u || strcmp(n, name) != 0 || task_seen(nc, u) || among(known, u))
			continue;
		*found = true;
		snprintf(uuid, uuid_len, "%s", u);
		fcr_jcopy_str(state, state_len, t, "state");
		break;
	}
	fcr_reply_clear(&r);
	return 0;
}

/* At most this many rounds of "list the tasks, wait for those in flight":
 * a task that starts another is followed, a server that never settles is not. */
#define IN_FLIGHT_ROUNDS 8

int fcr_netcup_wait_in_flight(struct fcr_netcup *nc, struct fcr_netcup_task *tasks, size_t max,
			      size_t *n, struct fcr_error *err)
{
	*n = 0;
	for (unsigned round = 0; round < IN_FLIGHT_ROUNDS; round++) {
		struct fcr_reply r;
		int rc = list_tasks(nc, &r, err);
		if (rc < 0)
			return rc;
		char uuid[64] = "";
		size_t i;
		json_t *t;
		/* the oldest one in flight first: the list is newest first */
		json_array_foreach(r.json, i, t) {
			const char *u = json_string_value(json_object_get(t, "uuid"));
			const char *st = json_string_value(json_object_get(t, "state"));
			if (u && st && !fcr_netcup_task_over(st))
				snprintf(uuid, sizeof(uuid), "%s", u);
		}
		fcr_reply_clear(&r);
		if (!uuid[0])
			return 0;
		struct fcr_netcup_task scratch, *slot = *n < max ? &tasks[*n] : &scratch;
		(*n)++;
		rc = fcr_netcup_task_wait(nc, uuid, NULL, slot, err);
		if (rc < 0 && rc != FCR_E_TASK)
			return rc;
	}
	return fcr_fail_as(err, FCR_E_TIMEOUT,
			   "server %ld: tasks were still starting after %d were waited for",
			   nc->cfg.server_id, IN_FLIGHT_ROUNDS);
}

/* ---- writes ------------------------------------------------------------------ */

static void emit_check(struct fcr_netcup *nc, const struct fcr_api_call *c, const char *outcome,
		       const char *uuid)
{
	json_t *f =
	    json_pack("{s:s, s:s, s:s}", "method", c->method, "path", c->path, "outcome", outcome);
	if (f && uuid)
		json_object_set_new(f, "task_uuid", json_string(uuid));
	fcr_api_emit(&nc->scp, "write-check", f);
}

/*
 * The baseline and the check of http/api.h: what is there before a write is
 * first sent (the server's tasks, the effect), and before it is sent again,
 * whether an earlier attempt went through.
 */
struct check_arg {
	struct fcr_netcup *nc;
	const struct fcr_netcup_write *w;
};

static int write_baseline(void *arg, const struct fcr_api_write *aw, json_t **before,
			  struct fcr_error *err)
{
	const struct check_arg *ca = arg;
	struct fcr_netcup *nc = ca->nc;
	const struct fcr_netcup_write *w = ca->w;
	(void)aw;
	struct fcr_reply r;
	int rc = list_tasks(nc, &r, err);
	if (rc < 0)
		return rc;
	json_t *b = json_object(), *uuids = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(r.json, i, t) {
		json_t *u = json_object_get(t, "uuid");
		if (json_is_string(u))
			json_array_append(uuids, u);
	}
	fcr_reply_clear(&r);
	json_object_set_new(b, "tasks", uuids);
	if (w->observe) {
		bool done;
		rc = w->observe(nc, w->arg, &done, b, err);
		if (rc < 0) {
			json_decref(b);
			return rc;
		}
	}
	*before = b;
	return 0;
}

static int write_check(void *arg, const struct fcr_api_write *aw, json_t *before, bool maybe_sent,
		       struct fcr_written *out, struct fcr_error *err)
{
	const struct check_arg *ca = arg;
	struct fcr_netcup *nc = ca->nc;
	const struct fcr_netcup_write *w = ca->w;
	(void)aw;
	bool done = false, found = false;
	char uuid[64] = "", state[24] = "";
	int rc;
	if (w->observe) {
		rc = w->observe(nc, w->arg, &done, NULL, err);
		if (rc < 0)
			return rc;
	}
	if (!maybe_sent && !done)
		return 0;
	if (w->task_name) {
		rc = fcr_netcup_task_find(nc, w->task_name, json_object_get(before, "tasks"),
					  &found, uuid, sizeof(uuid), state, sizeof(state), err);
		if (rc < 0)
			return rc;
	}
	/*
	 * A task of that kind that was not there before the write was first
	 * sent: ours (never one found by its name and a time window: an earlier
	 * session's task is in the baseline).  Without an effect to look at
	 * (revert) or with the effect not yet visible, it is still the best
	 * evidence there is.
	 */
	if (found && (done || maybe_sent)) {
		out->how = FCR_WRITTEN_TASK;
		snprintf(out->task, sizeof(out->task), "%s", uuid);
		emit_check(nc, &w->call, "task", uuid);
		return 1;
	}
	if (done) {
		out->how = FCR_WRITTEN_DONE;
		emit_check(nc, &w->call, "done", NULL);
		return 1;
	}
	emit_check(nc, &w->call, "not-received", NULL);
	return 0;
}

void fcr_netcup_set_earlier(struct fcr_netcup *nc, json_t *tasks)
{
	nc->earlier = tasks;
}

const char *fcr_netcup_write_task_name(const char *write)
{
	static const struct {
		const char *prefix, *task;
	} kinds[] = {
	    {"power ", "ServerStateChangeTask"},
	    {"snapshot ", "ServerSnapshotCreateTask"},
	    {"delete-snapshot ", "ServerSnapshotDeleteTask"},
	    {"revert ", "ServerSnapshotRevertTask"},
	};
	for (size_t i = 0; write && i < CM_ARRAY_SIZE(kinds); i++) {
		if (!strncmp(write, kinds[i].prefix, strlen(kinds[i].prefix)))
			return kinds[i].task;
	}
	return NULL;
}

static bool uuid_claimed(json_t *writes, const char *uuid)
{
	size_t i;
	json_t *w;
	json_array_foreach(writes, i, w) {
		const char *u = fcr_jstr(w, "uuid");
		if (u && !strcmp(u, uuid))
			return true;
	}
	return false;
}

static json_t *utc_or_null(double s)
{
	return isfinite(s) ? fcr_jutc(s) : json_null();
}

int fcr_netcup_earlier_tasks(struct fcr_netcup *nc, json_t *journal, json_t **out,
			     struct fcr_error *err)
{
	json_t *writes = json_array(), *cur = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(journal, i, e) {
		const char *ev = fcr_jstr(e, "event"), *write = fcr_jstr(e, "write");
		if (ev && write && !strcmp(ev, "write-intent")) {
			const char *name = fcr_jstr(e, "task_type");
			if (!name)
				name = fcr_netcup_write_task_name(write);
			cur = json_pack(
			    "{s:s, s:s?, s:O?, s:n}", "write", write, "name", name, "before",
			    json_object_get(json_object_get(e, "before"), "tasks"), "outcome");
			json_array_append_new(writes, cur);
		} else if (ev && !strcmp(ev, "write-outcome") && cur) {
			json_object_set(cur, "outcome", json_object_get(e, "outcome"));
			if (fcr_jstr(e, "task"))
				json_object_set(cur, "uuid", json_object_get(e, "task"));
		}
	}
	int rc = 0;
	json_t *tasks = json_array();
	bool was = nc->safety;
	nc->safety = true; /* the long wait: a task of ours still running is never sent again */
	json_array_foreach(writes, i, cur) {
		const char *outcome = fcr_jstr(cur, "outcome"), *name = fcr_jstr(cur, "name");
		json_t *before = json_object_get(cur, "before");
		/* without the ids seen before, no task can be told to be the write's */
		if (!fcr_jstr(cur, "uuid") && name && json_is_array(before) &&
		    (!outcome || strcmp(outcome, "refused"))) {
			json_t *known = json_copy(before);
			size_t k;
			json_t *o;
			json_array_foreach(writes, k, o) {
				if (fcr_jstr(o, "uuid"))
					json_array_append(known, json_object_get(o, "uuid"));
			}
			bool found = false;
			char uuid[64], state[24];
			rc = fcr_netcup_task_find(nc, name, known, &found, uuid, sizeof(uuid),
						  state, sizeof(state), err);
			json_decref(known);
			if (rc < 0)
				break;
			if (found && !uuid_claimed(writes, uuid))
				json_object_set_new(cur, "uuid", json_string(uuid));
		}
		const char *uuid = fcr_jstr(cur, "uuid");
		if (!uuid)
			continue;
		struct fcr_netcup_task t;
		rc = fcr_netcup_task_wait(nc, uuid, NULL, &t, err);
		if (rc < 0 && rc != FCR_E_TASK)
			break;
		rc = 0;
		json_t *tj = json_pack(
		    "{s:O, s:s, s:s, s:s}", "write", json_object_get(cur, "write"), "name",
		    t.name[0] ? t.name : (name ? name : "?"), "uuid", t.uuid, "state", t.state);
		json_object_set_new(tj, "started", utc_or_null(t.started_s));
		json_object_set_new(tj, "finished", utc_or_null(t.finished_s));
		json_object_set_new(tj, "duration_s",
				    isfinite(t.duration_s) ? fcr_jseconds(t.duration_s)
							   : json_null());
		json_object_set_new(tj, "polls", json_integer(t.polls));
		json_object_set_new(tj, "earlier", json_true());
		json_array_append_new(tasks, tj);
	}
	nc->safety = was;
	json_decref(writes);
	if (rc < 0) {
		json_decref(tasks);
		return rc;
	}
	*out = tasks;
	return 0;
}

int fcr_netcup_adopt_earlier(struct fcr_netcup *nc, const char *what, const char *task_name,
			     struct fcr_netcup_result *res, struct fcr_error *err)
{
	json_t *found = NULL;
	size_t i;
	json_t *t;
	json_array_foreach(nc->earlier, i, t) {
		const char *w = fcr_jstr(t, "write"), *n = fcr_jstr(t, "name");
		const char *state = fcr_jstr(t, "state");
		if (w && n && state && !strcmp(w, what) && !strcmp(n, task_name) &&
		    !strcmp(state, "FINISHED") && !json_is_true(json_object_get(t, "adopted")))
			found = t;
	}
	const char *uuid = fcr_jstr(found, "uuid");
	if (!uuid)
		return 0;
	/* it ended: one GET for what the record keeps of it */
	int rc = fcr_netcup_task_wait(nc, uuid, NULL, fcr_netcup_result_task(res), err);
	if (rc < 0)
		return rc;
	json_object_set_new(found, "adopted", json_true());
	res->adopted = res->accepted = true;
	return 1;
}

int fcr_netcup_write(struct fcr_netcup *nc, const struct fcr_netcup_write *w,
		     struct fcr_netcup_result *res, struct fcr_error *err)
{
	/* a resumed action: its own earlier task did it, the write is not sent again */
	int rc = w->task_name ? fcr_netcup_adopt_earlier(nc, w->what, w->task_name, res, err) : 0;
	if (rc != 0)
		return rc < 0 ? rc : 0;
	struct check_arg ca = {nc, w};
	json_t *intent = w->task_name ? json_pack("{s:s}", "task_type", w->task_name) : NULL;
	struct fcr_api_write aw = {.call = w->call,
				   .what = w->what,
				   .intent = intent,
				   .baseline = write_baseline,
				   .check = write_check,
				   .arg = &ca};
	struct fcr_written out;
	rc = fcr_api_write(&nc->scp, &aw, &out, err);
	json_decref(intent);
	res->retries += out.retries;
	res->recovered |= out.recovered;
	res->already |= out.already;
	if (rc < 0) {
		res->maybe_sent |= out.maybe_sent;
		fcr_reply_clear(&out.reply);
		return rc;
	}
	res->accepted |= !out.already;
	/* however we learnt of the task, wait for it; a 2xx without one is done (200 "patched") */
	if (out.how == FCR_WRITTEN_TASK) {
		rc = fcr_netcup_task_wait(nc, out.task, NULL, fcr_netcup_result_task(res), err);
	} else if (out.how == FCR_WRITTEN_REPLY) {
		json_t *j = out.reply.json;
		const char *uuid = json_string_value(json_object_get(j, "uuid"));
		if (out.reply.status == 202 && !uuid)
			rc = fcr_fail_as(err, FCR_E_PROTOCOL,
					 "%s %s: HTTP 202 without a task uuid in the answer",
					 w->call.method, w->call.path);
		else if (uuid)
			rc = fcr_netcup_task_wait(nc, uuid, j, fcr_netcup_result_task(res), err);
	}
	fcr_reply_clear(&out.reply);
	return rc;
}

/* ---- results ---------------------------------------------------------------- */

double fcr_netcup_result_begin(struct fcr_netcup_result *res)
{
	memset(res, 0, sizeof(*res));
	res->started_s = cm_wall_s();
	for (unsigned i = 0; i < FCR_NETCUP_MAX_TASKS; i++)
		res->tasks[i].started_s = res->tasks[i].finished_s = res->tasks[i].duration_s = NAN;
	res->finished_s = res->duration_s = NAN;
	return cm_mono_s();
}

int fcr_netcup_result_end(struct fcr_netcup_result *res, double t0, int rc)
{
	res->finished_s = cm_wall_s();
	res->duration_s = cm_mono_s() - t0;
	return rc;
}

struct fcr_netcup_task *fcr_netcup_result_task(struct fcr_netcup_result *res)
{
	if (res->n_tasks < FCR_NETCUP_MAX_TASKS)
		return &res->tasks[res->n_tasks++];
	return &res->tasks[FCR_NETCUP_MAX_TASKS - 1];
}
