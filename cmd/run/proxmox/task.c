/* SPDX-License-Identifier: MIT */
/*
 * Proxmox tasks (pve.h): a UPID polled until it stopped, its times by the
 * node's clock, its log read from the end when it failed, and the write
 * that starts it, sent once and decided by task identity when its answer
 * is lost.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxmox/internal.h"

/* The log is read in pages of this many lines (the API's default is 50). */
#define LOG_PAGE 500
/* The task list rows read for one guest and task type. */
#define TASK_LIST_LIMIT 50
/* A task's endtime lags its status by at most a reaping; asked this often. */
#define ENDTIME_TRIES 3

/* ---- results ------------------------------------------------------------------------ */

void fcr_pve_task_release(struct fcr_pve_task *t)
{
	json_decref(t->warn_lines);
	json_decref(t->log_tail);
	json_decref(t->log);
	t->warn_lines = t->log_tail = t->log = NULL;
}

bool fcr_pve_exit_ok(const char *es, unsigned *warnings)
{
	unsigned long n = 0;
	if (warnings)
		*warnings = 0;
	if (!strcmp(es, "OK"))
		return true;
	/* UPID.pm status_is_error: "WARNINGS: n" is success */
	if (strncmp(es, "WARNINGS: ", 10) != 0 || fcr_parse_uint(es + 10, 1000000000, &n) < 0)
		return false;
	if (warnings)
		*warnings = (unsigned)n;
	return true;
}

static bool says_locked(const char *s)
{
	return (strstr(s, "can't lock file") && strstr(s, "got timeout")) ||
	       strstr(s, "VM is locked (");
}

bool fcr_pve_lock_refusal(const char *es, json_t *log_tail)
{
	if (says_locked(es))
		return true;
	/* vzdump ends with "job errors"; the guest's reason is an ERROR line */
	if (strcmp(es, "job errors") != 0)
		return false;
	size_t i;
	json_t *l;
	json_array_foreach(log_tail, i, l) {
		const char *t = json_string_value(l);
		if (t && strstr(t, "ERROR: Backup of VM") && says_locked(t))
			return true;
	}
	return false;
}

static json_t *node_utc(long long t)
{
	return t >= 0 ? fcr_jutc((double)t) : json_null();
}

json_t *fcr_pve_task_json(const struct fcr_pve_task *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(t->u.type));
	json_object_set_new(o, "upid", json_string(t->upid));
	json_object_set_new(o, "node", json_string(t->u.node));
	json_object_set_new(o, "role", json_string(t->role[0] ? t->role : "main"));
	json_object_set_new(o, "state", t->stopped ? fcr_jtext(t->exitstatus) : json_null());
	json_object_set_new(o, "starttime", json_integer(t->u.starttime));
	json_object_set_new(o, "endtime", t->endtime >= 0 ? json_integer(t->endtime) : json_null());
	json_object_set_new(o, "started", node_utc(t->u.starttime));
	json_object_set_new(o, "finished", node_utc(t->endtime));
	json_object_set_new(o, "duration_s",
			    t->endtime >= 0 ? json_integer(t->endtime - t->u.starttime)
					    : json_null());
	json_object_set_new(o, "clock", json_string("node"));
	json_object_set_new(o, "stopwatch_s",
			    isfinite(t->stopwatch_s) ? fcr_jseconds(t->stopwatch_s) : json_null());
	json_object_set_new(o, "polls", json_integer(t->polls));
	json_object_set_new(o, "warnings", json_integer(t->warnings));
	if (t->warn_lines && json_array_size(t->warn_lines))
		json_object_set(o, "warn_lines", t->warn_lines);
	if (t->log_tail)
		json_object_set(o, "log_tail", t->log_tail);
	return o;
}

/* ---- in flight ---------------------------------------------------------------------- */

bool fcr_pve_any_in_flight(const struct fcr_pve *pve)
{
	return pve->in_flight.n > 0;
}

json_t *fcr_pve_in_flight_json(const struct fcr_pve *pve)
{
	json_t *a = json_array();
	for (size_t i = 0; i < pve->in_flight.n; i++) {
		struct fcr_pve_upid u;
		const char *upid = pve->in_flight.v[i];
		json_array_append_new(a, json_pack("{s:s, s:s}", "name",
						   fcr_pve_upid_parse(upid, &u) == 0 ? u.type : "?",
						   "id", upid));
	}
	return a;
}

static char *task_path(const struct fcr_pve_task *t, const char *what)
{
	char *esc = fcr_url_escape(t->upid);
	char *p = cm_asprintf("/nodes/%s/tasks/%s/%s", t->u.node, esc, what);
	free(esc);
	return p;
}

/* ---- the log ------------------------------------------------------------------------- */

/* Lines [start, start+limit) of the log into `lines` (strings); *total. */
static int log_page(struct fcr_pve *pve, const struct fcr_pve_task *t, long start, long limit,
		    json_t *lines, long *total, struct fcr_error *err)
{
	char *base = task_path(t, "log");
	char *path = cm_asprintf("%s?start=%ld&limit=%ld", base, start, limit);
	free(base);
	json_t *d;
	int rc = fcr_pve_get(pve, path, &d, total, err);
	free(path);
	if (rc < 0)
		return rc;
	size_t i;
	json_t *l;
	json_array_foreach(d, i, l) {
		const char *text = fcr_jstr(l, "t");
		if (text)
			json_array_append_new(lines, fcr_jtext(text));
	}
	if (*total < 0)
		*total = start + (long)json_array_size(d);
	json_decref(d);
	return 0;
}

/* The whole log, in pages, at most FCR_PVE_LOG_MAX_LINES. */
static int log_all(struct fcr_pve *pve, const struct fcr_pve_task *t, json_t **out,
		   struct fcr_error *err)
{
	json_t *lines = json_array();
	long total = 0;
	for (long start = 0; start < FCR_PVE_LOG_MAX_LINES;) {
		size_t before = json_array_size(lines);
		int rc = log_page(pve, t, start, LOG_PAGE, lines, &total, err);
		if (rc < 0) {
			json_decref(lines);
			return rc;
		}
		size_t got = json_array_size(lines) - before;
		start += (long)got;
		if (got < LOG_PAGE || start >= total)
			break;
	}
	*out = lines;
	return 0;
}

/* The log's last k lines: its total first, then the page at its end. */
static int log_tail(struct fcr_pve *pve, const struct fcr_pve_task *t, long k, json_t **out,
		    struct fcr_error *err)
{
	json_t *first = json_array();
	long total = 0;
	int rc = log_page(pve, t, 0, 1, first, &total, err);
	json_decref(first);
	if (rc < 0)
		return rc;
	json_t *lines = json_array();
	rc = log_page(pve, t, total > k ? total - k : 0, k, lines, &total, err);
	if (rc < 0) {
		json_decref(lines);
		return rc;
	}
	*out = lines;
	return 0;
}

static void collect_warnings(struct fcr_pve_task *t, json_t *lines)
{
	t->warn_lines = json_array();
	size_t i;
	json_t *l;
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);
		if (s && !strncmp(s, "WARN: ", 6) &&
		    json_array_size(t->warn_lines) < FCR_PVE_MAX_WARN_LINES)
			json_array_append(t->warn_lines, l);
	}
}

/* ---- waiting ------------------------------------------------------------------------- */

/* The task's endtime from the node's task list (the status has none). */
static void read_endtime(struct fcr_pve *pve, struct fcr_pve_task *t)
{
	char *path =
	    cm_asprintf("/nodes/%s/tasks?vmid=%ld&typefilter=%s&source=archive&since=%lld"
			"&limit=%d",
			t->u.node, pve->cfg.vmid, t->u.type, t->u.starttime, TASK_LIST_LIMIT);
	for (int tries = 0; tries < ENDTIME_TRIES && t->endtime < 0; tries++) {
		if (tries && fcr_api_sleep_ms(&pve->api, pve->cfg.poll_interval_ms, NULL) < 0)
			break;
		json_t *d;
		struct fcr_error e;
		if (fcr_pve_get(pve, path, &d, NULL, &e) < 0)
			break;
		size_t i;
		json_t *row;
		json_array_foreach(d, i, row) {
			const char *u = fcr_jstr(row, "upid");
			json_t *end = json_object_get(row, "endtime");
			if (u && !strcmp(u, t->upid) && json_is_integer(end))
				t->endtime = (long long)json_integer_value(end);
		}
		json_decref(d);
	}
	free(path);
}

static void emit_state(struct fcr_pve *pve, const struct fcr_pve_task *t)
{
	fcr_pve_emit(pve, "task-state",
		     json_pack("{s:s, s:s, s:o}", "upid", t->upid, "status",
			       t->stopped ? "stopped" : "running", "exitstatus",
			       t->stopped ? fcr_jtext(t->exitstatus) : json_null()));
}

/* The error of a task that did not end well, with its log's end. */
static int task_failed(struct fcr_pve_task *t, struct fcr_error *err)
{
	struct cm_buf tail = {0};
	size_t i;
	json_t *l;
	json_array_foreach(t->log_tail, i, l) {
		const char *s = json_string_value(l);
		/* the last line repeats the exit status */
		if (s && strncmp(s, "TASK ERROR: ", 12) != 0)
			cm_buf_printf(&tail, "%s%s", tail.len ? " | " : "", s);
	}
	if (err)
		snprintf(err->api_code, sizeof(err->api_code), "%.*s",
			 (int)sizeof(err->api_code) - 1, t->exitstatus);
	int rc = fcr_fail_as(err, FCR_E_TASK, "task %s (%s) on %s ended: %s%s%s", t->u.type,
			     t->upid, t->u.node, t->exitstatus, tail.len ? "; its log ends: " : "",
			     tail.len ? tail.s : "");
	cm_buf_release(&tail);
	return rc;
}

void fcr_pve_set_long_wait(struct fcr_pve *pve, bool on)
{
	pve->long_wait = on;
}

unsigned fcr_pve_wait_limit_ms(const struct fcr_pve *pve)
{
	unsigned ms = pve->cfg.task_timeout_ms;
	if (pve->long_wait && ms < FCR_PVE_SAFETY_WAIT_MS)
		ms = FCR_PVE_SAFETY_WAIT_MS;
	return ms;
}

int fcr_pve_task_wait(struct fcr_pve *pve, struct fcr_pve_task *t, bool read_log,
		      struct fcr_error *err)
{
	const struct fcr_pve_config *cfg = &pve->cfg;
	unsigned limit_ms = fcr_pve_wait_limit_ms(pve);
	double deadline = cm_mono_s() + limit_ms / 1000.0;
	char *path = task_path(t, "status");
	int rc = 0;
	t->endtime = -1;
	t->stopwatch_s = NAN;
	cm_strv_add_once(&pve->in_flight, t->upid);
	while (!t->stopped) {
		if (cm_mono_s() >= deadline) {
			rc = fcr_fail_as(err, FCR_E_TIMEOUT,
					 "task %s (%s) is still running after %.0f s; it may still "
					 "finish",
					 t->u.type, t->upid, limit_ms / 1000.0);
			break;
		}
		rc = fcr_api_sleep_ms(
		    &pve->api, t->polls ? cfg->poll_interval_ms : (cfg->poll_interval_ms + 1) / 2,
		    err);
		if (rc < 0)
			break;
		json_t *d;
		rc = fcr_pve_get(pve, path, &d, NULL, err);
		if (rc < 0)
			break;
		t->polls++;
		const char *status = fcr_jstr(d, "status");
		if (!status) {
			json_decref(d);
			rc = fcr_fail_as(err, FCR_E_PROTOCOL,
					 "GET %s: no task status in the answer", path);
			break;
		}
		if (!strcmp(status, "stopped")) {
			t->stopwatch_s = cm_mono_s() - t->t0_mono;
			t->stopped = true;
			fcr_jcopy_str(t->exitstatus, sizeof(t->exitstatus), d, "exitstatus");
			emit_state(pve, t);
		} else if (t->polls == 1) {
			emit_state(pve, t);
		}
		json_decref(d);
	}
	free(path);
	if (!t->stopped)
		return rc;
	cm_strv_del(&pve->in_flight, t->upid);
	read_endtime(pve, t);
	bool ok = fcr_pve_exit_ok(t->exitstatus, &t->warnings);
	struct fcr_error e = {0};
	if (read_log || (ok && t->warnings)) {
		if (log_all(pve, t, &t->log, &e) == 0) {
			collect_warnings(t, t->log);
			if (!ok) {
				size_t n = json_array_size(t->log);
				t->log_tail = json_array();
				for (size_t i = n > FCR_PVE_LOG_TAIL ? n - FCR_PVE_LOG_TAIL : 0;
				     i < n; i++)
					json_array_append(t->log_tail, json_array_get(t->log, i));
			}
		}
	} else if (!ok) {
		log_tail(pve, t, FCR_PVE_LOG_TAIL, &t->log_tail, &e);
	}
	return ok ? 0 : task_failed(t, err);
}

/* A task waited for, as the safety contract names it: name, id, state. */
static json_t *waited_json(const char *upid)
{
	struct fcr_pve_upid u;
	bool ok = fcr_pve_upid_parse(upid, &u) == 0;
	return json_pack("{s:s, s:s, s:n}", "name", ok ? u.type : "?", "id", upid, "state");
}

/* A task's status until it stopped, for one we only know the UPID of;
 * `seen` gets its state. */
static int wait_upid(struct fcr_pve *pve, const char *upid, json_t *seen, struct fcr_error *err)
{
	struct fcr_pve_task t = {.t0_mono = cm_mono_s()};
	snprintf(t.upid, sizeof(t.upid), "%s", upid);
	if (fcr_pve_upid_parse(upid, &t.u) < 0) {
		cm_strv_del(&pve->in_flight, upid);
		return 0;
	}
	snprintf(t.role, sizeof(t.role), "in-flight");
	int rc = fcr_pve_task_wait(pve, &t, false, err);
	json_object_set_new(seen, "state", t.stopped ? fcr_jtext(t.exitstatus) : json_null());
	fcr_pve_task_release(&t);
	/* how it ended is the business of whoever started it */
	return rc == FCR_E_TASK ? 0 : rc;
}

int fcr_pve_wait_in_flight(struct fcr_pve *pve, json_t **waited, struct fcr_error *err)
{
	json_t *list = json_array();
	int rc = 0;
	while (rc == 0 && pve->in_flight.n) {
		char *upid = cm_strdup(pve->in_flight.v[0]);
		json_t *seen = waited_json(upid);
		json_array_append_new(list, seen);
		rc = wait_upid(pve, upid, seen, err);
		cm_strv_del(&pve->in_flight, upid);
		free(upid);
	}
	/* and whatever else runs on the guest (another session, the GUI) */
	char *path = cm_asprintf("/nodes/%s/tasks?vmid=%ld&source=active&limit=%d", pve->node,
				 pve->cfg.vmid, TASK_LIST_LIMIT);
	double deadline = cm_mono_s() + fcr_pve_wait_limit_ms(pve) / 1000.0;
	while (rc == 0) {
		json_t *d;
		rc = fcr_pve_get(pve, path, &d, NULL, err);
		if (rc < 0)
			break;
		size_t n = json_array_size(d), i;
		char first[256];
		fcr_jcopy_str(first, sizeof(first), json_array_get(d, 0), "upid");
		json_t *row, *w;
		size_t k;
		json_array_foreach(list, k, w) {
			if (json_object_get(w, "_active"))
				json_object_set_new(w, "_active", json_false());
		}
		json_array_foreach(d, i, row) {
			const char *u = fcr_jstr(row, "upid");
			json_t *known = NULL;
			json_array_foreach(list, k, w) {
				if (u && !strcmp(fcr_jstr(w, "id"), u))
					known = w;
			}
			if (u && !known) {
				known = waited_json(u);
				json_array_append_new(list, known);
			}
			/* listed as running now: "_active" true */
			if (known && json_is_null(json_object_get(known, "state")))
				json_object_set_new(known, "_active", json_true());
		}
		json_decref(d);
		if (!n)
			break;
		if (cm_mono_s() >= deadline) {
			rc = fcr_fail_as(
			    err, FCR_E_TIMEOUT,
			    "task %s (and %zu more) of guest %ld still runs after %.0f s",
			    first[0] ? first : "?", n - 1, pve->cfg.vmid,
			    fcr_pve_wait_limit_ms(pve) / 1000.0);
			break;
		}
		rc = fcr_api_sleep_ms(&pve->api, pve->cfg.poll_interval_ms, err);
	}
	free(path);
	/* the tasks of the list that are gone from it ended: how, once asked */
	size_t k;
	json_t *w;
	json_array_foreach(list, k, w) {
		json_t *active = json_object_get(w, "_active");
		if (active && !json_is_true(active)) {
			struct fcr_pve_task t = {0};
			snprintf(t.upid, sizeof(t.upid), "%s", fcr_jstr(w, "id"));
			json_t *d = NULL;
			struct fcr_error e;
			char *sp =
			    fcr_pve_upid_parse(t.upid, &t.u) == 0 ? task_path(&t, "status") : NULL;
			if (sp && fcr_pve_get(pve, sp, &d, NULL, &e) == 0 &&
			    fcr_jstr(d, "exitstatus"))
				json_object_set(w, "state", json_object_get(d, "exitstatus"));
			json_decref(d);
			free(sp);
		}
		json_object_del(w, "_active");
	}
	if (waited)
		*waited = list;
	else
		json_decref(list);
	return rc;
}

/* ---- writes --------------------------------------------------------------------------- */

/* The UPIDs of the guest's tasks of one type (every user's, active and done). */
static int list_tasks(struct fcr_pve *pve, const char *type, json_t **rows, struct fcr_error *err)
{
	char *path = cm_asprintf("/nodes/%s/tasks?vmid=%ld&typefilter=%s&source=all&limit=%d",
				 pve->node, pve->cfg.vmid, type, TASK_LIST_LIMIT);
	int rc = fcr_pve_get(pve, path, rows, NULL, err);
	free(path);
	return rc;
}

static bool ours(const struct fcr_pve *pve, json_t *row)
{
	const char *user = fcr_jstr(row, "user");
	const char *tokenid = fcr_jstr(row, "tokenid");
	if (!user)
		return false;
	/* Tasks.pm splits a token's user into user and tokenid */
	if (tokenid) {
		size_t n = strlen(user);
		return !strncmp(pve->token_id, user, n) && pve->token_id[n] == '!' &&
		       !strcmp(pve->token_id + n + 1, tokenid);
	}
	return !strcmp(user, pve->token_id);
}

static bool in_list(json_t *list, const char *s)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) {
		if (json_is_string(v) && !strcmp(json_string_value(v), s))
			return true;
	}
	return false;
}

int fcr_pve_find_new_task(struct fcr_pve *pve, const char *type, json_t *before, bool *found,
			  char *upid, size_t upid_len, struct fcr_error *err)
{
	*found = false;
	/* without the ids seen before, no task can be told to be the write's */
	if (!json_is_array(before))
		return 0;
	json_t *rows;
	int rc = list_tasks(pve, type, &rows, err);
	if (rc < 0)
		return rc;
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *u = fcr_jstr(row, "upid");
		if (!u || in_list(before, u) || !ours(pve, row))
			continue;
		*found = true;
		snprintf(upid, upid_len, "%s", u);
		break;
	}
	json_decref(rows);
	return 0;
}

struct check_arg {
	struct fcr_pve *pve;
	const struct fcr_pve_write *w;
	struct fcr_pve_written *out;
	json_t *before; /* the UPIDs seen before the first attempt (in out) */
};

/*
 * Before the first attempt (http/api.h): the UPIDs of the write's type that
 * exist already.  fcr_api_write journals them in the write-intent event,
 * with the task type a resume looks for.
 */
static int write_baseline(void *arg, const struct fcr_api_write *aw, json_t **before,
			  struct fcr_error *err)
{
	(void)aw;
	struct check_arg *ca = arg;
	json_t *rows;
	int rc = list_tasks(ca->pve, ca->w->task_type, &rows, err);
	if (rc < 0)
		return rc;
	json_t *ids = json_array();
	size_t i;
	json_t *row;
	json_array_foreach(rows, i, row) {
		const char *u = fcr_jstr(row, "upid");
		if (u)
			json_array_append_new(ids, json_string(u));
	}
	json_decref(rows);
	json_decref(ca->out->tasks_before);
	ca->out->tasks_before = ids;
	ca->before = ids;
	*before = json_pack("{s:O, s:s}", "tasks", ids, "task_type", ca->w->task_type);
	return 0;
}

static void emit_check(struct fcr_pve *pve, const struct fcr_pve_write *w, const char *outcome,
		       const char *upid)
{
	json_t *f =
	    json_pack("{s:s, s:s, s:s}", "method", w->method, "path", w->path, "outcome", outcome);
	if (f && upid)
		json_object_set_new(f, "upid", json_string(upid));
	fcr_pve_emit(pve, "write-check", f);
}

/*
 * Before a write is sent again (http/api.h): a task of its type by our
 * token that was not there before the first attempt is the one it started;
 * else its effect, where one can be seen, says it went through.
 */
static int write_check(void *arg, const struct fcr_api_write *aw, json_t *before, bool maybe_sent,
		       struct fcr_written *out, struct fcr_error *err)
{
	(void)aw, (void)before, (void)maybe_sent;
	struct check_arg *ca = arg;
	bool found = false, done = false;
	char upid[256];
	int rc = fcr_pve_find_new_task(ca->pve, ca->w->task_type, ca->before, &found, upid,
				       sizeof(upid), err);
	if (rc < 0)
		return rc;
	if (found) {
		out->how = FCR_WRITTEN_TASK;
		snprintf(out->task, sizeof(out->task), "%s", upid);
		emit_check(ca->pve, ca->w, "task", upid);
		return 1;
	}
	if (ca->w->observe) {
		rc = ca->w->observe(ca->pve, ca->w->arg, &done, err);
		if (rc < 0)
			return rc;
	}
	if (done) {
		out->how = FCR_WRITTEN_DONE;
		emit_check(ca->pve, ca->w, "done", NULL);
		return 1;
	}
	emit_check(ca->pve, ca->w, "not-received", NULL);
	return 0;
}

void fcr_pve_written_release(struct fcr_pve_written *w)
{
	json_decref(w->tasks_before);
	w->tasks_before = NULL;
}

/* Failures after which a write may have been carried out. */
static bool outcome_unknown(int rc, const struct fcr_error *err)
{
	return rc == FCR_E_TRANSPORT || rc == FCR_E_STOPPED || rc == FCR_E_PROTOCOL ||
	       rc == FCR_E_TIMEOUT ||
	       (rc == FCR_E_API && err && err->http_status >= 500 &&
		!fcr_api_status_permanent(err->http_status));
}

/* One attempt: the UPIDs before, the write, the task it started. */
static int write_once(struct fcr_pve *pve, const struct fcr_pve_write *w, struct fcr_pve_task *t,
		      struct fcr_pve_written *out, bool *have_task, struct fcr_error *err)
{
	*have_task = false;
	const char *what = w->what ? w->what : w->path;
	struct check_arg ca = {pve, w, out, NULL};
	/* which sub-step of its action this write is: what a resume adopts by */
	json_t *intent =
	    json_pack("{s:s, s:s}", "task_type", w->task_type, "role", w->role ? w->role : "main");
	struct fcr_api_write aw = {
	    .intent = intent,
	    .call = {.method = w->method,
		     .path = w->path,
		     .content_type = w->form ? "application/x-www-form-urlencoded" : NULL,
		     .body = w->form,
		     .write = true},
	    .what = what,
	    .baseline = write_baseline,
	    .check = write_check,
	    .arg = &ca,
	};
	struct fcr_written wr;
	t->t0_mono = cm_mono_s();
	int rc = fcr_api_write(&pve->api, &aw, &wr, err);
	json_decref(intent);
	out->retries += wr.retries;
	out->recovered |= wr.recovered;
	if (rc < 0) {
		out->unknown = outcome_unknown(rc, err);
		fcr_reply_clear(&wr.reply);
		return rc;
	}
	const char *upid = NULL;
	if (wr.how == FCR_WRITTEN_TASK) {
		upid = wr.task;
	} else if (wr.how == FCR_WRITTEN_DONE) {
		out->sent_nothing = wr.already;
		fcr_reply_clear(&wr.reply);
		return 0;
	} else {
		upid = json_string_value(json_object_get(wr.reply.json, "data"));
	}
	if (upid && !strcmp(upid, "OK") && !strcmp(w->task_type, "vzdump")) {
		/* API2/VZDump.pm: "silent exit if specified VMs run on other nodes" */
		rc = fcr_fail_as(err, FCR_E_API,
				 "%s %s: vzdump answered OK without a task: guest %ld is not on "
				 "node %s, so nothing was backed up",
				 w->method, w->path, pve->cfg.vmid, pve->node);
		fcr_reply_clear(&wr.reply);
		return rc;
	}
	if (!upid || strncmp(upid, "UPID:", 5) != 0 || strlen(upid) >= sizeof(t->upid) ||
	    fcr_pve_upid_parse(upid, &t->u) < 0) {
		rc = fcr_fail_as(err, FCR_E_PROTOCOL,
				 "%s %s: the answer holds no task id (UPID) but %s", w->method,
				 w->path, upid ? upid : "no string");
		fcr_reply_clear(&wr.reply);
		return rc;
	}
	snprintf(t->upid, sizeof(t->upid), "%s", upid);
	snprintf(t->role, sizeof(t->role), "%s", w->role ? w->role : "main");
	fcr_reply_clear(&wr.reply);
	*have_task = true;
	/* the write-outcome before it said "accepted"; this names its task */
	fcr_pve_emit(pve, "pve-task",
		     json_pack("{s:s, s:s, s:s, s:s, s:I, s:s, s:b}", "write", what, "upid",
			       t->upid, "type", t->u.type, "node", t->u.node, "starttime",
			       (json_int_t)t->u.starttime, "role", t->role, "recovered",
			       wr.how == FCR_WRITTEN_TASK));
	rc = fcr_pve_task_wait(pve, t, w->read_log, err);
	if (rc < 0 && rc != FCR_E_TASK)
		out->unknown = true; /* still running, or we lost sight of it */
	return rc;
}

int fcr_pve_write_task(struct fcr_pve *pve, const struct fcr_pve_write *w, json_t *tasks,
		       struct fcr_pve_task *last, struct fcr_pve_written *out,
		       struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	memset(last, 0, sizeof(*last));
	last->endtime = -1;
	last->stopwatch_s = NAN;
	for (unsigned attempt = 1;; attempt++) {
		struct fcr_pve_task t = {.endtime = -1, .stopwatch_s = NAN};
		bool have_task;
		int rc = write_once(pve, w, &t, out, &have_task, err);
		if (have_task)
			json_array_append_new(tasks, fcr_pve_task_json(&t));
		if (rc == FCR_E_TASK && attempt <= pve->cfg.lock_retries &&
		    fcr_pve_lock_refusal(t.exitstatus, t.log_tail)) {
			/* refused before it did anything: the guest was busy */
			out->lock_retries++;
			fcr_pve_emit(pve, "lock-retry",
				     json_pack("{s:s, s:s, s:i, s:f}", "upid", t.upid, "exitstatus",
					       t.exitstatus, "attempt", (int)attempt, "wait_s",
					       pve->cfg.lock_wait_ms / 1000.0));
			fcr_pve_task_release(&t);
			rc = fcr_api_sleep_ms(&pve->api, pve->cfg.lock_wait_ms, err);
			if (rc == 0)
				continue;
		}
		*last = t;
		return rc;
	}
}

/* ---- vzdump's log ------------------------------------------------------------------------ */

double fcr_pve_parse_size(const char *text)
{
	char *end;
	double v = strtod(text, &end);
	if (end == text || !isfinite(v) || v < 0)
		return NAN;
	while (*end == ' ')
		end++;
	static const struct {
		const char *unit;
		double f;
	} units[] = {
	    {"TiB", 1099511627776.0}, {"GiB", 1073741824.0},   {"MiB", 1048576.0},
	    {"KiB", 1024.0},	      {"TB", 1099511627776.0}, {"GB", 1073741824.0},
	    {"MB", 1048576.0},	      {"KB", 1024.0},	       {"B", 1.0},
	};
	/* pve-common render_bytes and VZDump.pm format_size: both 1024-based */
	for (size_t i = 0; i < CM_ARRAY_SIZE(units); i++) {
		size_t n = strlen(units[i].unit);
		if (!strncmp(end, units[i].unit, n) && !isalpha((unsigned char)end[n]))
			return v * units[i].f;
	}
	return NAN;
}

/* The text after `prefix` in s up to `stop` (or the end), into buf. */
static bool after(const char *s, const char *prefix, char stop, char *buf, size_t len)
{
	const char *p = strstr(s, prefix);
	if (!p)
		return false;
	p += strlen(prefix);
	const char *e = stop ? strchr(p, stop) : NULL;
	size_t n = e ? (size_t)(e - p) : strlen(p);
	snprintf(buf, len, "%.*s", (int)n, p);
	return true;
}

void fcr_pve_vzdump_log_parse(json_t *lines, struct fcr_pve_vzdump_log *out)
{
	memset(out, 0, sizeof(*out));
	out->transferred_bytes = out->transfer_s = NAN;
	size_t i;
	json_t *l;
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);
		char buf[128];
		if (!s)
			continue;
		after(s, "INFO: creating vzdump archive '", '\'', out->archive_path,
		      sizeof(out->archive_path));
		after(s, "INFO: archive file size: ", 0, out->archive_size_text,
		      sizeof(out->archive_size_text));
		if (strstr(s, "Finished Backup of VM "))
			after(s, "(", ')', out->guest_duration, sizeof(out->guest_duration));
		if (strstr(s, "trying to get global lock - waiting"))
			out->waited_for_global_lock = true;
		/* "INFO: transferred 20.00 GiB in 18 seconds (1.11 GiB/s)" */
		if (after(s, "INFO: transferred ", 0, buf, sizeof(buf))) {
			char *in = strstr(buf, " in ");
			if (!in)
				continue;
			*in = '\0';
			snprintf(out->transferred_text, sizeof(out->transferred_text), "%.*s",
				 (int)sizeof(out->transferred_text) - 1, buf);
			out->transferred_bytes = fcr_pve_parse_size(buf);
			char *end;
			double secs = strtod(in + 4, &end);
			if (end != in + 4 && !strncmp(end, " seconds", 8))
				out->transfer_s = secs;
		}
	}
}
