/* SPDX-License-Identifier: MIT */
/*
 * What the Proxmox provider's actions do (their rows are actions.c): each
 * reads the guest first (its name must be vm-name), sends its writes
 * through the client (pve.h), and records every task it saw.  The result
 * holds "task" (the task the action is about: the rollback, the backup,
 * the restore), "tasks" (all of them, each with its role, when there were
 * several), "node" and "vmid", and what the action learnt (an archive, the
 * snapshots a restore removed ...).  A write whose outcome stayed unknown is
 * kept as "outcome": "unknown" with "unknown_write" (its UPID, or the UPIDs
 * seen before it) for a resumed session to decide.
 *
 * A step an earlier session began comes with that session's tasks, each in
 * its role (preflight.c waited for every one until it ended).  Each sub-step
 * of the action (a restore's stop, its qmrestore, its start; a revert's
 * rollback and start) takes over the task of its own role and type when it
 * ended well, and sends its write only when there is none: a task of another
 * role completes its own sub-step and nothing more.  A power sub-step whose
 * effect is there already (the guest stopped for a restore) sends nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "proxmox/actions.h"

/* How long a reboot may take from the end of its task (the shutdown half)
 * until qmeventd has started the guest again, before we start it. */
#define RESTART_WAIT_S 60.0

/* ---- the frame of every action ---------------------------------------------------- */

void fcr_pxp_op_begin(struct fcr_pxp_op *o, struct fcr_pxp *p, struct fcr_action_ctx *ctx,
		      const struct fcr_step *step, json_t *result, struct fcr_error *e)
{
	memset(o, 0, sizeof(*o));
	o->p = p;
	o->ctx = ctx;
	o->step = step;
	o->result = result;
	o->tasks = json_array();
	o->e = e;
	o->key = ctx && step ? fcr_provider_step_key(ctx->state->name, ctx->repetition, step->line)
			     : NULL;
	json_t *earlier =
	    o->key ? json_object_get(json_object_get(p->adopt, o->key), "tasks") : NULL;
	size_t i;
	json_t *t;
	json_array_foreach(earlier, i, t) {
		/* they ran first: every task of the step is in its record */
		json_array_append_new(o->tasks, json_copy(t));
		o->resumed = true;
	}
}

/* The task the action is about: the last "main" one, else the last. */
static json_t *main_task(json_t *tasks)
{
	json_t *found = NULL;
	size_t i;
	json_t *t;
	json_array_foreach(tasks, i, t) {
		const char *role = fcr_jstr(t, "role");
		if (role && !strcmp(role, "main"))
			found = t;
	}
	return found ? found : json_array_get(tasks, json_array_size(tasks) - 1);
}

void fcr_pxp_op_end(struct fcr_pxp_op *o)
{
	json_object_set_new(o->result, "node", json_string(o->p->node));
	json_object_set_new(o->result, "vmid", json_integer(o->p->cfg.vmid));
	json_t *m = main_task(o->tasks);
	if (m)
		json_object_set(o->result, "task", m);
	if (json_array_size(o->tasks) > 1)
		json_object_set(o->result, "tasks", o->tasks);
	if (o->retries)
		json_object_set_new(o->result, "retries", json_integer(o->retries));
	if (o->lock_retries)
		json_object_set_new(o->result, "lock_retries", json_integer(o->lock_retries));
	if (o->recovered)
		json_object_set_new(o->result, "recovered", json_true());
	if (o->adopted)
		json_object_set_new(o->result, "adopted", json_true());
	if (o->key)
		json_object_del(o->p->adopt, o->key);
	json_decref(o->tasks);
	free(o->key);
}

/* A write of the action, with its bookkeeping. */
static int do_write(struct fcr_pxp_op *o, const struct fcr_pve_write *w_in, struct fcr_pve_task *t)
{
	struct fcr_pve_write w = *w_in;
	const char *step = o->step ? o->step->text : "ensure-powered-on";
	const char *role = w.role ? w.role : "main";
	/* what the journal's write events say it is for */
	char *what = strcmp(role, "main") ? cm_asprintf("%s: %s", step, role) : cm_strdup(step);
	w.what = what;
	struct fcr_pve_written wr;
	int rc = fcr_pve_write_task(o->p->pve, &w, o->tasks, t, &wr, o->e);
	o->retries += wr.retries;
	o->lock_retries += wr.lock_retries;
	o->recovered |= wr.recovered;
	if (rc < 0 && wr.unknown) {
		/* the safety contract: unknown, never "did not happen" */
		json_t *u =
		    json_pack("{s:s, s:s, s:s, s:s, s:s, s:{s:O}}", "write", what, "method",
			      w.method, "path", w.path, "task_type", w.task_type, "role", role,
			      "before", "tasks", wr.tasks_before ? wr.tasks_before : json_null());
		if (t->upid[0])
			json_object_set_new(u, "upid", json_string(t->upid));
		json_object_set_new(o->result, "unknown_write", u);
		json_object_set_new(o->result, "outcome", json_string("unknown"));
	}
	fcr_pve_written_release(&wr);
	free(what);
	return rc;
}

/*
 * The task an earlier session ran for this sub-step (its role and type) and
 * that ended well, taken over instead of sending the write again: read once
 * more (its end, and with read_log its log) into *t, and marked "adopted" in
 * the record.  1 when taken over, 0 when there is none.
 */
static int adopt(struct fcr_pxp_op *o, const char *role, const char *type, bool read_log,
		 struct fcr_pve_task *t)
{
	memset(t, 0, sizeof(*t));
	t->endtime = -1;
	t->stopwatch_s = NAN;
	if (!o->resumed)
		return 0;
	size_t at = SIZE_MAX, i;
	json_t *tj;
	json_array_foreach(o->tasks, i, tj) {
		const char *r = fcr_jstr(tj, "role"), *n = fcr_jstr(tj, "name");
		const char *state = fcr_jstr(tj, "state");
		if (json_is_true(json_object_get(tj, "earlier")) &&
		    !json_is_true(json_object_get(tj, "adopted")) && r && n && state &&
		    !strcmp(r, role) && !strcmp(n, type) && fcr_pve_exit_ok(state, NULL))
			at = i;
	}
	if (at == SIZE_MAX)
		return 0;
	const char *upid = fcr_jstr(json_array_get(o->tasks, at), "upid");
	snprintf(t->upid, sizeof(t->upid), "%s", upid ? upid : "");
	snprintf(t->role, sizeof(t->role), "%s", role);
	if (fcr_pve_upid_parse(t->upid, &t->u) < 0)
		return 0;
	t->t0_mono = cm_mono_s();
	int rc = fcr_pve_task_wait(o->p->pve, t, read_log, o->e);
	t->stopwatch_s = NAN; /* it began in another session */
	if (rc < 0) {
		fcr_pve_task_release(t);
		return rc;
	}
	tj = fcr_pve_task_json(t);
	json_object_set_new(tj, "earlier", json_true());
	json_object_set_new(tj, "adopted", json_true());
	json_array_set_new(o->tasks, at, tj);
	o->adopted = true;
	fcr_provider_note(&o->p->base, "info",
			  "%s: the %s task %s of an earlier session did it; taken as done",
			  o->step ? o->step->text : type, role, t->upid);
	return 1;
}

static int observe_status(struct fcr_pve *pve, const void *arg, bool *done, struct fcr_error *err)
{
	struct fcr_pve_guest g;
	int rc = fcr_pve_guest_status(pve, &g, err);
	if (rc == 0)
		*done = !strcmp(g.status, (const char *)arg);
	return rc;
}

static int observe_snapshot(struct fcr_pve *pve, const void *arg, bool *done, struct fcr_error *err)
{
	const struct fcr_pxp_snap_want *want = arg;
	struct fcr_pve_snapshots s;
	int rc = fcr_pve_snapshots(pve, &s, err);
	if (rc < 0)
		return rc;
	const struct fcr_pve_snapshot *x = fcr_pve_snapshot_find(&s, want->name);
	*done = want->present ? x && !x->incomplete : !x;
	fcr_pve_snapshots_release(&s);
	return 0;
}

/* A power write (stop, shutdown, start) and the state it leaves. */
static int power_write(struct fcr_pxp_op *o, const char *what, const char *type, const char *role,
		       const char *want)
{
	char *path = fcr_pve_guest_path(o->p->pve, what);
	struct fcr_pve_write w = {
	    .method = "POST",
	    .path = path,
	    .form = "",
	    .task_type = type,
	    .role = role,
	    .observe = observe_status,
	    .arg = want,
	};
	struct fcr_pve_task t;
	int rc;
	if (o->resumed) {
		/* an earlier session's sub-step (or the safety power-on after it)
		 * may have done it: the guest's state decides */
		struct fcr_pve_guest g;
		rc = fcr_pve_guest_status(o->p->pve, &g, o->e);
		if (rc == 0 && !strcmp(g.status, want)) {
			free(path);
			rc = adopt(o, role, type, false, &t);
			fcr_pve_task_release(&t);
			if (rc < 0)
				return rc;
			json_object_set_new(o->result, "guest_state", json_string(g.status));
			return 0;
		}
		if (rc < 0) {
			free(path);
			return rc;
		}
	}
	rc = do_write(o, &w, &t);
	free(path);
	/* a start that found the guest running (qmeventd was quicker) is fine */
	if (rc == FCR_E_TASK && strstr(t.exitstatus, "already running") && !strcmp(want, "running"))
		rc = 0;
	fcr_pve_task_release(&t);
	if (rc < 0)
		return rc;
	struct fcr_pve_guest g;
	rc = fcr_pve_guest_status(o->p->pve, &g, o->e);
	if (rc == 0 && strcmp(g.status, want))
		rc = fcr_fail_as(o->e, FCR_E_TASK, "the %s task ended, but guest %ld is %s, not %s",
				 type, o->p->cfg.vmid, g.status, want);
	if (rc == 0)
		json_object_set_new(o->result, "guest_state", json_string(g.status));
	return rc;
}

int fcr_pxp_start(struct fcr_pxp_op *o, const char *role)
{
	return power_write(o, "/status/start", "qmstart", role, "running");
}

/* ---- power ------------------------------------------------------------------------ */

int fcr_pxp_power_off(struct fcr_pxp_op *o, bool hard)
{
	struct fcr_pve_guest g;
	int rc = fcr_pve_check_guest(o->p->pve, "power off", &g, o->e);
	if (rc < 0)
		return rc;
	json_object_set_new(o->result, "hard", json_boolean(hard));
	if (!strcmp(g.status, "stopped")) {
		struct fcr_pve_task t;
		rc = adopt(o, "main", hard ? "qmstop" : "qmshutdown", false, &t);
		fcr_pve_task_release(&t);
		if (rc < 0)
			return rc;
		json_object_set_new(o->result, "already", json_boolean(rc == 0));
		json_object_set_new(o->result, "guest_state", json_string("stopped"));
		return 0;
	}
	json_object_set_new(o->result, "already", json_false());
	return hard ? power_write(o, "/status/stop", "qmstop", "main", "stopped")
		    : power_write(o, "/status/shutdown", "qmshutdown", "main", "stopped");
}

int fcr_pxp_power_on(struct fcr_pxp_op *o)
{
	struct fcr_pve_guest g;
	int rc = fcr_pve_check_guest(o->p->pve, "start", &g, o->e);
	if (rc < 0)
		return rc;
	bool running = !strcmp(g.status, "running");
	if (running) {
		struct fcr_pve_task t;
		rc = adopt(o, "main", "qmstart", false, &t);
		fcr_pve_task_release(&t);
		if (rc < 0)
			return rc;
		json_object_set_new(o->result, "already", json_boolean(rc == 0));
		json_object_set_new(o->result, "guest_state", json_string("running"));
		return 0;
	}
	json_object_set_new(o->result, "already", json_false());
	return fcr_pxp_start(o, "main");
}

/* After a reboot's task: until qmeventd has started the guest again. */
static int wait_restarted(struct fcr_pxp_op *o, double t0)
{
	struct fcr_pxp *p = o->p;
	double deadline = cm_mono_s() + RESTART_WAIT_S;
	for (;;) {
		struct fcr_pve_guest g;
		int rc = fcr_pve_guest_status(p->pve, &g, o->e);
		if (rc < 0)
			return rc;
		if (!strcmp(g.status, "running")) {
			json_object_set_new(o->result, "restart_seen_s",
					    fcr_jseconds(cm_mono_s() - t0));
			json_object_set_new(o->result, "guest_state", json_string("running"));
			return 0;
		}
		if (cm_mono_s() >= deadline) {
			fcr_provider_note(
			    &p->base, "warning",
			    "guest %ld is still stopped %.0f s after its reboot task ended "
			    "(qmeventd starts it normally): starting it",
			    p->cfg.vmid, RESTART_WAIT_S);
			return fcr_pxp_start(o, "start");
		}
		rc = fcr_pve_sleep_ms(p->pve, p->cfg.poll_interval_ms, o->e);
		if (rc < 0)
			return rc;
	}
}

int fcr_pxp_reboot(struct fcr_pxp_op *o)
{
	struct fcr_pve_guest g;
	int rc = fcr_pve_check_guest(o->p->pve, "reboot", &g, o->e);
	if (rc < 0)
		return rc;
	if (strcmp(g.status, "running")) {
		/* Proxmox refuses a reboot of a stopped guest ("VM 100 not running") */
		fcr_provider_note(&o->p->base, "info",
				  "guest %ld is %s: starting it instead of a reboot",
				  o->p->cfg.vmid, g.status);
		return fcr_pxp_start(o, "main");
	}
	char *path = fcr_pve_guest_path(o->p->pve, "/status/reboot");
	struct fcr_pve_write w = {
	    .method = "POST", .path = path, .form = "", .task_type = "qmreboot", .role = "main"};
	struct fcr_pve_task t;
	double t0 = cm_mono_s();
	rc = adopt(o, "main", "qmreboot", false, &t);
	if (rc == 0)
		rc = do_write(o, &w, &t);
	fcr_pve_task_release(&t);
	free(path);
	return rc < 0 ? rc : wait_restarted(o, t0);
}

/* ---- snapshots -------------------------------------------------------------------- */

int fcr_pxp_snapshot(struct fcr_pxp_op *o, const char *name, bool vmstate)
{
	struct fcr_pxp *p = o->p;
	struct fcr_pve_guest g;
	json_object_set_new(o->result, "snapshot", json_string(name));
	json_object_set_new(o->result, "vmstate_requested", json_boolean(vmstate));
	int rc = fcr_pve_check_guest(p->pve, "snapshot", &g, o->e);
	if (rc < 0)
		return rc;
	json_t *entry = o->key ? json_object_get(p->adopt, o->key) : NULL;
	if (entry && json_is_true(json_object_get(entry, "made"))) {
		/* an earlier session made it and recorded so; it was cut short after */
		json_object_del(p->adopt, o->key);
		json_object_set_new(o->result, "adopted", json_true());
		fcr_provider_note(&p->base, "info",
				  "snapshot %s: made by an earlier session of this campaign", name);
	}
	struct fcr_pve_task t;
	memset(&t, 0, sizeof(t));
	rc = json_is_true(json_object_get(o->result, "adopted"))
		 ? 1
		 : adopt(o, "main", "qmsnapshot", false, &t);
	if (rc < 0)
		return rc;
	if (rc == 0) {
		if (vmstate && strcmp(g.status, "running"))
			fcr_provider_note(
			    &p->base, "warning",
			    "snapshot %s: guest %ld is %s, so Proxmox saves no RAM state "
			    "(vmstate needs a running guest)",
			    name, p->cfg.vmid, g.status);
		char *esc = fcr_url_escape(name);
		char *form = cm_asprintf("snapname=%s&description=fiocamp%s", esc,
					 vmstate ? "&vmstate=1" : "");
		free(esc);
		char *path = fcr_pve_guest_path(p->pve, "/snapshot");
		struct fcr_pxp_snap_want want = {name, true};
		struct fcr_pve_write w = {
		    .method = "POST",
		    .path = path,
		    .form = form,
		    .task_type = "qmsnapshot",
		    .role = "main",
		    .observe = observe_snapshot,
		    .arg = &want,
		};
		rc = do_write(o, &w, &t);
		free(form);
		free(path);
	}
	fcr_pve_task_release(&t);
	if (rc < 0) {
		/* a task that failed took its snapshot away (snapshot_create's
		 * cleanup); one whose end we did not see may have made it */
		bool unknown = json_object_get(o->result, "unknown_write") != NULL;
		json_object_set_new(o->result, "created", unknown ? json_null() : json_false());
		if (unknown)
			cm_strv_add_once(&p->made.maybe, name);
		return rc;
	}
	struct fcr_pve_snapshots s;
	rc = fcr_pve_snapshots(p->pve, &s, o->e);
	if (rc < 0)
		return rc;
	const struct fcr_pve_snapshot *x = fcr_pve_snapshot_find(&s, name);
	if (!x) {
		fcr_pve_snapshots_release(&s);
		json_object_set_new(o->result, "created", json_false());
		return fcr_fail_as(o->e, FCR_E_TASK,
				   "the snapshot task ended, but guest %ld has no snapshot %s",
				   p->cfg.vmid, name);
	}
	json_object_set_new(o->result, "vmstate", json_boolean(x->vmstate));
	json_object_set_new(o->result, "created", json_true());
	fcr_pve_snapshots_release(&s);
	fcr_provider_made_add(&p->made, name);
	return 0;
}

/* One snapshot; one that is gone already counts as deleted. */
static int delete_one(void *arg, const char *name, json_t *deleted, json_t *gone)
{
	struct fcr_pxp_op *o = arg;
	struct fcr_pxp *p = o->p;
	bool absent;
	struct fcr_pxp_snap_want want = {name, false};
	int rc = observe_snapshot(p->pve, &want, &absent, o->e);
	if (rc < 0)
		return rc;
	if (absent) {
		json_array_append_new(gone, json_string(name));
		fcr_provider_note(&p->base, "info",
				  "snapshot %s was gone already: counted as deleted", name);
	} else {
		char *esc = fcr_url_escape(name);
		char *suffix = cm_asprintf("/snapshot/%s", esc);
		char *path = fcr_pve_guest_path(p->pve, suffix);
		free(esc);
		free(suffix);
		/* no body: DELETE takes its parameters in the query (AnyEvent.pm) */
		struct fcr_pve_write w = {
		    .method = "DELETE",
		    .path = path,
		    .task_type = "qmdelsnapshot",
		    .role = "main",
		    .observe = observe_snapshot,
		    .arg = &want,
		};
		struct fcr_pve_task t;
		rc = do_write(o, &w, &t);
		fcr_pve_task_release(&t);
		free(path);
		if (rc < 0)
			return rc;
		json_array_append_new(deleted, json_string(name));
	}
	return 0;
}

int fcr_pxp_delete_snapshot(struct fcr_pxp_op *o, const char *what)
{
	struct fcr_pxp *p = o->p;
	struct fcr_pve_guest g;
	int rc = fcr_pve_check_guest(p->pve, "delete snapshots of", &g, o->e);
	if (rc < 0)
		return rc;
	return fcr_provider_made_delete(&p->made, what, o->result, delete_one, o);
}

int fcr_pxp_revert(struct fcr_pxp_op *o, const char *name)
{
	struct fcr_pxp *p = o->p;
	struct fcr_pve_guest g;
	json_object_set_new(o->result, "snapshot", json_string(name));
	int rc = fcr_pve_check_guest(p->pve, "roll back", &g, o->e);
	if (rc < 0)
		return rc;
	struct fcr_pve_snapshots s;
	rc = fcr_pve_snapshots(p->pve, &s, o->e);
	if (rc < 0)
		return rc;
	const struct fcr_pve_snapshot *x = fcr_pve_snapshot_find(&s, name);
	bool vmstate = x && x->vmstate;
	fcr_pve_snapshots_release(&s);
	if (!x)
		return fcr_fail_as(o->e, FCR_E_NOT_FOUND,
				   "guest %ld has no snapshot %s to roll back to", p->cfg.vmid,
				   name);
	json_object_set_new(o->result, "vmstate", json_boolean(vmstate));
	json_object_set_new(o->result, "guest_state_before", json_string(g.status));
	struct fcr_pve_task t;
	rc = adopt(o, "main", "qmrollback", false, &t);
	if (rc == 0) {
		char *esc = fcr_url_escape(name);
		char *suffix = cm_asprintf("/snapshot/%s/rollback", esc);
		char *path = fcr_pve_guest_path(p->pve, suffix);
		free(esc);
		free(suffix);
		/* start=0: a start is a task of its own, timed apart from the rollback */
		struct fcr_pve_write w = {.method = "POST",
					  .path = path,
					  .form = "start=0",
					  .task_type = "qmrollback",
					  .role = "main"};
		rc = do_write(o, &w, &t);
		free(path);
	}
	fcr_pve_task_release(&t);
	if (rc < 0)
		return rc;
	rc = fcr_pve_guest_status(p->pve, &g, o->e);
	if (rc < 0)
		return rc;
	bool running = !strcmp(g.status, "running");
	if (vmstate && running) {
		/* __snapshot_rollback_vm_start: RAM state resumes inside the rollback task */
		json_object_set_new(o->result, "started_by", json_string("rollback"));
		json_object_set_new(o->result, "guest_state", json_string("running"));
		return 0;
	}
	if (running) {
		/* no RAM state, and yet it runs: an earlier session's start of this
		 * step did it, or the safety power-on after it was interrupted */
		rc = adopt(o, "start", "qmstart", false, &t);
		fcr_pve_task_release(&t);
		if (rc < 0)
			return rc;
		json_object_set_new(o->result, "started_by", json_string(rc ? "start" : "earlier"));
		json_object_set_new(o->result, "guest_state", json_string("running"));
		return 0;
	}
	if (!vmstate)
		fcr_provider_note(
		    &p->base, "info",
		    "snapshot %s has no RAM state, so Proxmox leaves guest %ld stopped after "
		    "the rollback: starting it in a task of its own, timed apart from the "
		    "rollback",
		    name, p->cfg.vmid);
	json_object_set_new(o->result, "started_by", json_string("start"));
	return fcr_pxp_start(o, "start");
}

/* ---- backup and restore -------------------------------------------------------------- */

static bool volid_in(json_t *list, const char *volid)
{
	size_t i;
	json_t *v;
	json_array_foreach(list, i, v) {
		const char *id = fcr_jstr(v, "volid");
		if (id && !strcmp(id, volid))
			return true;
	}
	return false;
}

/*
 * The archive a backup made, among the backups listed after it: the one the
 * log named ("creating vzdump archive '.../NAME'"), else the one that was
 * not listed before.  NULL when neither tells (borrowed from `after`).
 */
static json_t *made_archive(json_t *before, json_t *after, const char *log_path)
{
	const char *base = strrchr(log_path, '/');
	base = base ? base + 1 : log_path;
	size_t i;
	json_t *v, *fresh = NULL;
	unsigned n_fresh = 0;
	json_array_foreach(after, i, v) {
		const char *id = fcr_jstr(v, "volid");
		if (!id)
			continue;
		const char *slash = strrchr(id, '/');
		if (base[0] && slash && !strcmp(slash + 1, base))
			return v;
		if (!volid_in(before, id)) {
			fresh = v;
			n_fresh++;
		}
	}
	return n_fresh == 1 ? fresh : NULL;
}

/* What vzdump's log says, into the result ("vzdump_log") and *l. */
static void record_vzdump_log(json_t *result, json_t *log, struct fcr_pve_vzdump_log *out)
{
	struct fcr_pve_vzdump_log l;
	fcr_pve_vzdump_log_parse(log, &l);
	*out = l;
	if (!log)
		return;
	json_t *o = json_object();
	fcr_jset_text(o, "archive_path", l.archive_path[0] ? l.archive_path : NULL);
	fcr_jset_text(o, "transferred", l.transferred_text[0] ? l.transferred_text : NULL);
	json_object_set_new(o, "transferred_bytes",
			    isfinite(l.transferred_bytes)
				? json_integer((json_int_t)l.transferred_bytes)
				: json_null());
	json_object_set_new(o, "transfer_s",
			    isfinite(l.transfer_s) ? json_real(l.transfer_s) : json_null());
	fcr_jset_text(o, "archive_size", l.archive_size_text[0] ? l.archive_size_text : NULL);
	fcr_jset_text(o, "guest_duration", l.guest_duration[0] ? l.guest_duration : NULL);
	json_object_set_new(o, "waited_for_global_lock", json_boolean(l.waited_for_global_lock));
	json_object_set_new(result, "vzdump_log", o);
}

int fcr_pxp_backup(struct fcr_pxp_op *o, const struct fcr_pxp_backup *b)
{
	struct fcr_pxp *p = o->p;
	struct fcr_pve_guest g;
	json_object_set_new(o->result, "storage", json_string(b->storage));
	json_object_set_new(o->result, "mode", json_string(b->mode));
	json_object_set_new(o->result, "compress", json_string(b->compress));
	int rc = fcr_pve_check_guest(p->pve, "back up", &g, o->e);
	if (rc < 0)
		return rc;
	json_t *before = NULL;
	rc = fcr_pve_backups(p->pve, b->storage, &before, o->e);
	if (rc < 0)
		return rc;
	struct fcr_pve_task t;
	rc = adopt(o, "main", "vzdump", true, &t);
	if (rc == 0) {
		char *st = fcr_url_escape(b->storage);
		/* remove=0: never prune a backup the campaign did not make */
		char *form =
		    cm_asprintf("vmid=%ld&storage=%s&mode=%s&compress=%s&remove=0", p->cfg.vmid, st,
				b->mode, strcmp(b->compress, "none") ? b->compress : "0");
		free(st);
		char *path = cm_asprintf("/nodes/%s/vzdump", p->node);
		struct fcr_pve_write w = {.method = "POST",
					  .path = path,
					  .form = form,
					  .task_type = "vzdump",
					  .role = "main",
					  .read_log = true};
		rc = do_write(o, &w, &t);
		free(form);
		free(path);
	}
	struct fcr_pve_vzdump_log l;
	record_vzdump_log(o->result, t.log, &l);
	fcr_pve_task_release(&t);
	if (rc < 0) {
		json_decref(before);
		return rc;
	}
	if (l.waited_for_global_lock)
		fcr_provider_note(&p->base, "info",
				  "the backup waited for another backup on node %s (one vzdump per "
				  "node): its task seconds include the wait",
				  p->node);
	json_t *after = NULL;
	rc = fcr_pve_backups(p->pve, b->storage, &after, o->e);
	json_t *a = rc == 0 ? made_archive(before, after, l.archive_path) : NULL;
	if (rc == 0 && !a)
		rc = fcr_fail_as(
		    o->e, FCR_E_PROTOCOL,
		    "the backup ended, but its archive is not among guest %ld's backups "
		    "on %s",
		    p->cfg.vmid, b->storage);
	if (rc == 0) {
		json_t *arc =
		    json_pack("{s:O?, s:O?, s:O?, s:O?}", "volid", json_object_get(a, "volid"),
			      "size_bytes", json_object_get(a, "size"), "format",
			      json_object_get(a, "format"), "ctime", json_object_get(a, "ctime"));
		json_object_set_new(o->result, "archive", arc);
		free(p->last_backup);
		p->last_backup = cm_strdup(fcr_jstr(a, "volid"));
	}
	json_decref(before);
	json_decref(after);
	return rc;
}

static json_t *names_of(const struct fcr_pve_snapshots *s)
{
	json_t *a = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(a, json_string(s->v[i].name));
	return a;
}

int fcr_pxp_restore(struct fcr_pxp_op *o, const struct fcr_pxp_restore *r)
{
	struct fcr_pxp *p = o->p;
	if (!p->allow_destroy)
		return fcr_fail_as(
		    o->e, FCR_E_INVAL,
		    "restore replaces guest %ld's disks: it needs allow-destroy = yes "
		    "in [provider]",
		    p->cfg.vmid);
	const char *volid = strcmp(r->archive, "last-backup") ? r->archive : p->last_backup;
	if (!volid)
		return fcr_fail_as(o->e, FCR_E_INVAL,
				   "restore last-backup: this campaign has made no backup yet");
	json_object_set_new(o->result, "archive", json_string(volid));
	json_object_set_new(o->result, "storage",
			    r->storage ? json_string(r->storage) : json_null());
	struct fcr_pve_guest g;
	int rc = fcr_pve_check_guest(p->pve, "restore over", &g, o->e);
	if (rc < 0)
		return rc;
	struct fcr_pve_task t;
	rc = adopt(o, "main", "qmrestore", false, &t);
	if (rc < 0)
		return rc;
	if (rc > 0)
		p->restore_failed = false;
	if (rc == 0) {
		struct fcr_pve_snapshots s;
		rc = fcr_pve_snapshots(p->pve, &s, o->e);
		if (rc < 0)
			return rc;
		json_object_set_new(o->result, "snapshots_before", names_of(&s));
		fcr_pve_snapshots_release(&s);
		/* "unable to restore VM - vm is running": a hard stop, the disks are
		 * replaced anyway.  On resume, an earlier stop of this step that left
		 * it stopped is taken over (power_write) */
		if (strcmp(g.status, "stopped") || o->resumed) {
			rc = power_write(o, "/status/stop", "qmstop", "stop", "stopped");
			if (rc < 0)
				return rc;
		}
		char *arc = fcr_url_escape(volid);
		char *st = r->storage ? fcr_url_escape(r->storage) : NULL;
		char *form = cm_asprintf("vmid=%ld&archive=%s&force=1%s%s", p->cfg.vmid, arc,
					 st ? "&storage=" : "", st ? st : "");
		free(arc);
		free(st);
		char *path = cm_asprintf("/nodes/%s/qemu", p->node);
		struct fcr_pve_write w = {.method = "POST",
					  .path = path,
					  .form = form,
					  .task_type = "qmrestore",
					  .role = "main"};
		rc = do_write(o, &w, &t);
		free(form);
		free(path);
		p->restore_failed = rc < 0;
	}
	fcr_pve_task_release(&t);
	if (rc < 0)
		return rc;
	/* restore_cleanup_oldconf: the restored guest has no snapshots */
	json_t *forgotten = json_array();
	for (size_t i = 0; i < p->made.created.n; i++)
		json_array_append_new(forgotten, json_string(p->made.created.v[i]));
	for (size_t i = 0; i < p->made.maybe.n; i++)
		json_array_append_new(forgotten, json_string(p->made.maybe.v[i]));
	if (json_array_size(forgotten))
		fcr_provider_note(&p->base, "info",
				  "the restore removed every snapshot of guest %ld; the %zu this "
				  "campaign made are no longer its to delete",
				  p->cfg.vmid, json_array_size(forgotten));
	json_object_set_new(o->result, "campaign_snapshots_removed", forgotten);
	fcr_provider_made_clear(&p->made);
	struct fcr_pve_snapshots s;
	rc = fcr_pve_snapshots(p->pve, &s, o->e);
	if (rc < 0)
		return rc;
	json_object_set_new(o->result, "snapshots_after", names_of(&s));
	fcr_pve_snapshots_release(&s);
	return fcr_pxp_start(o, "start");
}

/* ---- the safety layer's power-on ------------------------------------------------------ */

int fcr_pxp_ensure_powered_on(void *state, json_t *result, struct fcr_error *err)
{
	struct fcr_pxp *p = state;
	if (!p->pve)
		return fcr_fail(err, "proxmox: not connected");
	struct fcr_error e = {0};
	p->base.safety = true;
	p->base.current = "ensure-powered-on";
	/* every task waited for however long task-timeout was: a shutdown,
	 * rollback or restore still under way would undo a start */
	fcr_pve_set_long_wait(p->pve, true);
	json_t *waited = NULL;
	int rc = fcr_pve_wait_in_flight(p->pve, &waited, &e);
	if (!waited)
		waited = json_array();
	json_object_set_new(result, "waited_for", waited);
	if (rc == FCR_E_STOPPED)
		fcr_fail_as(&e, rc,
			    "stopped (a second Ctrl-C) while waiting for the guest's tasks");
	struct fcr_pve_guest g;
	if (rc == 0)
		rc = fcr_pve_check_guest(p->pve, "start", &g, &e);
	if (rc == FCR_E_INVAL && p->restore_failed)
		/* qmrestore's "VM state is NOT cleaned up": a half-restored guest */
		fcr_fail_as(&e, rc,
			    "the restore failed and left guest %ld with Proxmox's placeholder "
			    "configuration (named '%s'), so it is not booted: restore it again "
			    "(qmrestore ARCHIVE %ld --force 1 on the node) and start it",
			    p->cfg.vmid, g.name, p->cfg.vmid);
	/*
	 * No task runs (waited for above), yet the config is locked: the
	 * operation that set the lock failed and left it, as a failed rollback
	 * leaves "rollback" (AbstractConfig.pm snapshot_rollback) over disks
	 * that may be half rolled back.  A start would only be refused, lock
	 * retry after lock retry; unlocking is for someone who has looked.
	 */
	if (rc == 0 && g.lock[0] && strcmp(g.status, "running") != 0)
		rc = fcr_fail_as(
		    &e, FCR_E_INVAL,
		    "guest %ld is stopped and locked (%s), and no task of it runs: the "
		    "operation that failed left the lock, so it is not started; read that "
		    "task's log, repeat the operation or restore the guest, then on the "
		    "node: qm unlock %ld; qm start %ld",
		    p->cfg.vmid, g.lock, p->cfg.vmid, p->cfg.vmid);
	bool already = rc == 0 && !strcmp(g.status, "running");
	if (rc == 0 && !already) {
		struct fcr_pxp_op o;
		fcr_pxp_op_begin(&o, p, NULL, NULL, result, &e);
		rc = fcr_pxp_start(&o, "start");
		fcr_pxp_op_end(&o);
	}
	json_object_set_new(result, "already", json_boolean(already));
	fcr_pve_set_long_wait(p->pve, false);
	/* the tasks it left running: not seen stopped, and ours not seen stopped
	 * (a start cut short), for the message that says what may still happen */
	json_t *flight = fcr_pve_in_flight_json(p->pve);
	size_t i;
	json_t *w;
	json_array_foreach(waited, i, w) {
		const char *id = fcr_jstr(w, "id");
		bool listed = false;
		size_t k;
		json_t *f;
		json_array_foreach(flight, k, f) {
			listed |= id && !strcmp(id, fcr_jstr(f, "id"));
		}
		if (id && !listed && json_is_null(json_object_get(w, "state")))
			json_array_append_new(
			    flight,
			    json_pack("{s:O, s:s}", "name", json_object_get(w, "name"), "id", id));
	}
	json_object_set_new(result, "in_flight", flight);
	/* what the node says now, whatever happened */
	struct fcr_error e2 = {0};
	if (fcr_pve_guest_status(p->pve, &g, &e2) == 0)
		json_object_set_new(result, "server_state", json_string(g.status));
	else
		json_object_set_new(result, "server_state", json_null());
	if (rc < 0)
		fcr_fail_as(err, rc, "%s", e.msg);
	p->base.current = NULL;
	p->base.safety = false;
	return rc < 0 ? -1 : 0;
}
