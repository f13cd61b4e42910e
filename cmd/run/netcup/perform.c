/* SPDX-License-Identifier: MIT */
/*
 * What the netcup provider's actions do (their rows are actions.c): each
 * turns into calls of the SCP client (netcup.h), a step an earlier session
 * began handed its tasks, and records the tasks it saw in the manifest's
 * `task` and `tasks`; the safety layer's power-on.  A write whose outcome
 * stayed unknown is kept as "outcome": "unknown" for a resumed session to
 * decide.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "netcup/ncp.h"

static char *action_text(const char *action, int argc, char *const *argv)
{
	struct cm_buf b = {0};
	cm_buf_puts(&b, action);
	for (int i = 0; i < argc; i++) {
		cm_buf_puts(&b, " ");
		cm_buf_puts(&b, argv[i]);
	}
	return cm_buf_take(&b);
}

static json_t *utc_or_raw(double s, const char *raw)
{
	if (isfinite(s)) {
		char buf[40];
		cm_format_utc(buf, sizeof(buf), s);
		return json_string(buf);
	}
	return raw[0] ? json_string(raw) : json_null();
}

json_t *fcr_ncp_task_json(const struct fcr_netcup_task *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(t->name[0] ? t->name : "?"));
	json_object_set_new(o, "uuid", json_string(t->uuid));
	json_object_set_new(o, "state", t->state[0] ? json_string(t->state) : json_null());
	json_object_set_new(o, "started", utc_or_raw(t->started_s, t->started_at));
	json_object_set_new(o, "finished", utc_or_raw(t->finished_s, t->finished_at));
	json_object_set_new(o, "duration_s",
			    isfinite(t->duration_s) ? json_real(round(t->duration_s * 1000) / 1000)
						    : json_null());
	json_object_set_new(o, "polls", json_integer(t->polls));
	if (t->message[0] && strcmp(t->state, "FINISHED"))
		json_object_set_new(o, "message", json_string(t->message));
	return o;
}

/* The tasks an action ran, gathered over one or more client calls. */
struct tasks {
	struct fcr_netcup_task *v;
	size_t n;
	unsigned retries;
	bool recovered;
	bool unknown; /* a write was taken or may have been, and then something failed */
};

static void tasks_add(struct tasks *t, const struct fcr_netcup_result *res)
{
	t->unknown |= res->accepted || res->maybe_sent;
	if (!res->n_tasks && !res->retries && !res->recovered)
		return;
	t->v = cm_realloc(t->v, t->n + res->n_tasks + 1, sizeof(*t->v));
	for (unsigned i = 0; i < res->n_tasks; i++)
		t->v[t->n++] = res->tasks[i];
	t->retries += res->retries;
	t->recovered |= res->recovered;
}

/*
 * "task": the one task, or for several one summary (names joined by " + ",
 * the first start, the last end, the sum of the provider's own durations),
 * so that readers of `task` see every action alike; "tasks": each of them.
 */
static void tasks_put(json_t *result, struct tasks *t)
{
	if (t->retries)
		json_object_set_new(result, "retries", json_integer(t->retries));
	if (t->recovered)
		json_object_set_new(result, "recovered", json_true());
	if (t->n == 1) {
		json_object_set_new(result, "task", fcr_ncp_task_json(&t->v[0]));
	} else if (t->n > 1) {
		struct cm_buf names = {0};
		double sum = 0;
		bool all = true;
		json_t *list = json_array();
		for (size_t i = 0; i < t->n; i++) {
			cm_buf_printf(&names, "%s%s", i ? " + " : "", t->v[i].name);
			if (isfinite(t->v[i].duration_s))
				sum += t->v[i].duration_s;
			else
				all = false;
			json_array_append_new(list, fcr_ncp_task_json(&t->v[i]));
		}
		const struct fcr_netcup_task *first = &t->v[0], *last = &t->v[t->n - 1];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(names.s));
		json_object_set_new(o, "state",
				    last->state[0] ? json_string(last->state) : json_null());
		json_object_set_new(o, "started", utc_or_raw(first->started_s, first->started_at));
		json_object_set_new(o, "finished", utc_or_raw(last->finished_s, last->finished_at));
		json_object_set_new(o, "duration_s",
				    all ? json_real(round(sum * 1000) / 1000) : json_null());
		json_object_set_new(o, "count", json_integer((json_int_t)t->n));
		json_object_set_new(result, "task", o);
		json_object_set_new(result, "tasks", list);
		cm_buf_release(&names);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* The client's error as the action's, said for the user. */
static int action_failed(struct fcr_error *err, const struct fcr_error *e, int rc)
{
	if (rc == FCR_E_STOPPED)
		return fcr_fail_as(err, rc, "stopped (Ctrl-C) while waiting for the API: %s",
				   e->msg);
	return fcr_fail_as(err, rc, "%s", e->msg[0] ? e->msg : fcr_status_text(rc));
}

static int do_snapshot(struct fcr_ncp *p, const struct fcr_ncp_snapshot *args, json_t *result,
		       struct tasks *tasks, struct fcr_error *e)
{
	struct fcr_ncp_snapshot a = *args;
	struct fcr_netcup_snapshot_opts o = {
	    .name = a.name,
	    .online = a.online,
	    .disk = a.disk,
	    .description = "fiocamp",
	    .adopt_existing = cm_strv_has(&p->adopt, a.name),
	};
	json_object_set_new(result, "snapshot", json_string(a.name));
	json_object_set_new(result, "online", json_boolean(a.online));
	json_object_set_new(result, "disk", a.disk ? json_string(a.disk) : json_null());
	struct fcr_netcup_result res;
	int rc = fcr_netcup_snapshot_create(p->nc, &o, &res, e);
	tasks_add(tasks, &res);
	if (rc == 0) {
		cm_strv_del(&p->adopt, a.name);
		fcr_provider_made_add(&p->made, a.name);
		json_object_set_new(result, "created", json_true());
		if (res.already)
			json_object_set_new(result, "adopted", json_true());
		return 0;
	}
	/* the API took the POST, or may have: the snapshot may exist (a resume
	 * looks), and all-created deletes it if it does */
	if (res.accepted || res.maybe_sent) {
		cm_strv_add_once(&p->made.maybe, a.name);
		json_object_set_new(result, "created", json_null());
	} else {
		json_object_set_new(result, "created", json_false());
	}
	return rc;
}

/* What delete_one() needs besides the name. */
struct delete_arg {
	struct fcr_ncp *p;
	struct tasks *tasks;
	struct fcr_error *e;
};

/* Deletes one snapshot; one that is gone already counts as deleted. */
static int delete_one(void *arg, const char *name, json_t *deleted, json_t *gone)
{
	struct delete_arg *d = arg;
	struct fcr_netcup_result res;
	int rc = fcr_netcup_snapshot_delete(d->p->nc, name, &res, d->e);
	tasks_add(d->tasks, &res);
	if (rc == FCR_E_NOT_FOUND) {
		json_array_append_new(gone, json_string(name));
		fcr_provider_note(&d->p->base, "info",
				  "snapshot %s was gone already: counted as deleted", name);
		rc = 0;
	} else if (rc == 0) {
		json_array_append_new(deleted, json_string(name));
	}
	return rc;
}

static int do_delete(struct fcr_ncp *p, const char *what, json_t *result, struct tasks *tasks,
		     struct fcr_error *e)
{
	struct delete_arg d = {p, tasks, e};
	return fcr_provider_made_delete(&p->made, what, result, delete_one, &d);
}

int fcr_ncp_ensure_powered_on(void *state, json_t *result, struct fcr_error *err)
{
	struct fcr_ncp *p = state;
	struct fcr_error e = {0};
	struct fcr_netcup_result res;
	struct tasks tasks = {0};
	if (!p->nc) {
		return fcr_fail(err, "netcup: not connected");
	}
	p->base.safety = true;
	p->base.current = "ensure-powered-on";
	fcr_netcup_set_safety(p->nc, true);
	/* a shutdown still under way would take the server down after we looked */
	struct fcr_netcup_task flight[8];
	size_t n_flight = 0;
	int rc = fcr_netcup_wait_in_flight(p->nc, flight, CM_ARRAY_SIZE(flight), &n_flight, &e);
	json_t *waited = json_array();
	for (size_t i = 0; i < n_flight && i < CM_ARRAY_SIZE(flight); i++)
		json_array_append_new(waited, fcr_ncp_task_json(&flight[i]));
	json_object_set_new(result, "waited_for", waited);
	/* the tasks it stopped waiting for (a second Ctrl-C, its bound): they may
	 * still change the server */
	json_t *flight_left = json_array();
	for (size_t i = 0; rc < 0 && i < n_flight && i < CM_ARRAY_SIZE(flight); i++) {
		if (!fcr_netcup_task_over(flight[i].state))
			json_array_append_new(flight_left,
					      json_pack("{s:s, s:s}", "name",
							flight[i].name[0] ? flight[i].name : "?",
							"id", flight[i].uuid));
	}
	json_object_set_new(result, "in_flight", flight_left);
	if (rc == FCR_E_TIMEOUT) {
		fcr_fail_as(&e, rc, "%s (the server may go off when it ends)", e.msg);
	} else if (rc < 0 && rc != FCR_E_STOPPED) {
		/* the task list could not be read: powering on is still worth a try */
		fcr_provider_note(&p->base, "warning", "the server's tasks could not be listed: %s",
				  e.msg);
		rc = 0;
	}
	if (rc == 0) {
		rc = fcr_netcup_power_on(p->nc, &res, &e);
		tasks_add(&tasks, &res);
	}
	json_object_set_new(result, "already", json_boolean(rc == 0 && res.already));
	tasks_put(result, &tasks);
	if (rc < 0)
		action_failed(err, &e, rc);
	/* what the API says now, whatever happened */
	struct fcr_netcup_server s;
	struct fcr_error e2 = {0};
	if (fcr_netcup_get_server(p->nc, &s, &e2) == 0 && s.live_info)
		json_object_set_new(result, "server_state", json_string(s.state));
	else
		json_object_set_new(result, "server_state", json_null());
	fcr_netcup_set_safety(p->nc, false);
	p->base.current = NULL;
	p->base.safety = false;
	return rc < 0 ? -1 : 0;
}

typedef int (*ncp_op)(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		      struct tasks *tasks, struct fcr_error *e);

/* Performs a row's client calls with what every row does around them. */
static int perform_op(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
		      struct fcr_error *err, ncp_op op)
{
	struct fcr_ncp *p = ctx->provider;
	if (!p || !p->nc)
		return fcr_fail(err, "netcup: not connected");
	struct fcr_error e = {0};
	struct tasks tasks = {0};
	char *text = action_text(step->words.v[0], (int)step->words.n - 1, step->words.v + 1);
	p->base.current = text;
	/* what an earlier session of this step started (preflight waited for it) */
	char *key = fcr_provider_step_key(ctx->state->name, ctx->repetition, step->line);
	json_t *earlier = json_incref(json_object_get(p->earlier, key));
	json_object_del(p->earlier, key);
	free(key);
	fcr_netcup_set_earlier(p->nc, earlier);
	int rc = op(p, step, result, &tasks, &e);
	fcr_netcup_set_earlier(p->nc, NULL);
	if (earlier) {
		/* every task of the step is in its record; the ones taken over say so */
		bool adopted = false;
		size_t i;
		json_t *t;
		json_array_foreach(earlier, i, t) {
			adopted |= json_is_true(json_object_get(t, "adopted"));
		}
		json_object_set_new(result, "earlier_tasks", earlier);
		if (adopted)
			json_object_set_new(result, "adopted", json_true());
	}
	/* what a failed action did is unknown once a write of it was taken or
	 * may have been (provider.h) */
	if (rc < 0 && tasks.unknown)
		json_object_set_new(result, "outcome", json_string("unknown"));
	tasks_put(result, &tasks);
	p->base.current = NULL;
	free(text);
	return rc < 0 ? action_failed(err, &e, rc) : 0;
}

/* A result's "already" and, when it worked, the state the server is in. */
static int power_result(int rc, const struct fcr_netcup_result *res, json_t *result,
			const char *state, bool already)
{
	if (already)
		json_object_set_new(result, "already", json_boolean(rc == 0 && res->already));
	if (rc == 0)
		json_object_set_new(result, "server_state", json_string(state));
	return rc;
}

static int power_off(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		     struct tasks *tasks, struct fcr_error *e)
{
	struct fcr_netcup_result res;
	int rc = fcr_netcup_power_off(p->nc, step->words.n == 2, &res, e);
	tasks_add(tasks, &res);
	return power_result(rc, &res, result, "SHUTOFF", true);
}

int fcr_ncp_power_off_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      json_t *result, struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, power_off);
}

static int power_on(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		    struct tasks *tasks, struct fcr_error *e)
{
	(void)step;
	struct fcr_netcup_result res;
	int rc = fcr_netcup_power_on(p->nc, &res, e);
	tasks_add(tasks, &res);
	return power_result(rc, &res, result, "RUNNING", true);
}

int fcr_ncp_power_on_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     json_t *result, struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, power_on);
}

static int reboot(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		  struct tasks *tasks, struct fcr_error *e)
{
	(void)step;
	struct fcr_netcup_result res;
	int rc = fcr_netcup_reboot(p->nc, FCR_NETCUP_REBOOT_GRACEFUL, &res, e);
	tasks_add(tasks, &res);
	return power_result(rc, &res, result, "RUNNING", false);
}

int fcr_ncp_reboot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, reboot);
}

static int snapshot(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		    struct tasks *tasks, struct fcr_error *e)
{
	return do_snapshot(p, step->args, result, tasks, e);
}

int fcr_ncp_snapshot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     json_t *result, struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, snapshot);
}

static int delete_snapshot(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
			   struct tasks *tasks, struct fcr_error *e)
{
	return do_delete(p, step->words.v[1], result, tasks, e);
}

int fcr_ncp_delete_snapshot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
				    json_t *result, struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, delete_snapshot);
}

static int revert(struct fcr_ncp *p, const struct fcr_step *step, json_t *result,
		  struct tasks *tasks, struct fcr_error *e)
{
	struct fcr_netcup_result res;
	json_object_set_new(result, "snapshot", json_string(step->words.v[1]));
	int rc = fcr_netcup_snapshot_revert(p->nc, step->words.v[1], &res, e);
	tasks_add(tasks, &res);
	return power_result(rc, &res, result, "RUNNING", false);
}

int fcr_ncp_revert_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, revert);
}
