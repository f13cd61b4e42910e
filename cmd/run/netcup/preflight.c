/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider's preflight (provider.h): what earlier sessions left
 * running and what they made, the plan of what is left, and the SCP
 * client's checks of it (plan.c); for --dry-run, what it will ask.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcup/ncp.h"

/* ---- what earlier sessions left running ----------------------------------------- */

/*
 * A step an earlier session began (provider.h, "the safety contract"): the
 * tasks its writes started, each waited for until it ended, however long
 * task-timeout was (fcr_netcup_earlier_tasks): a task of ours still running
 * is never sent again.  Kept in p->earlier for perform(), which takes a task
 * over only for the same write.  < 0 when a task cannot be decided (still
 * running after the wait, a Ctrl-C): then nothing is sent.
 */
static int reconcile(struct fcr_ncp *p, const struct fcr_provider_step *st, struct fcr_error *err)
{
	json_t *tasks = NULL;
	int rc = fcr_netcup_earlier_tasks(p->nc, st->journal, &tasks, err);
	if (rc < 0) {
		return fcr_fail_as(err, rc,
				   "%s:%u: '%s' of an earlier session: %s.  Nothing is sent while "
				   "its task may run; resume again once it has ended",
				   st->file, st->line, st->action, err->msg);
	}
	size_t i;
	json_t *t;
	json_array_foreach(tasks, i, t) {
		fcr_provider_note(&p->base, "info",
				  "%s:%u: '%s' of an earlier session: task %s (%s) of its %s "
				  "ended %s",
				  st->file, st->line, st->action, fcr_jstr(t, "name"),
				  fcr_jstr(t, "uuid"), fcr_jstr(t, "write"), fcr_jstr(t, "state"));
	}
	if (json_array_size(tasks)) {
		char *key = fcr_provider_step_key(st->state, st->repetition, st->line);
		json_object_set_new(p->earlier, key, tasks);
		free(key);
	} else {
		json_decref(tasks);
	}
	return 0;
}

/* ---- preflight --------------------------------------------------------------- */

/*
 * What an earlier session's write of a step may have done, by its journal
 * events (provider.h, "provably created"): 1 when the API accepted it, 0
 * when it may have (an intent with the effect absent before, and no answer,
 * or an unknown one, after it), -1 when it did nothing (never sent, or every
 * attempt refused).
 */
static int journal_says(json_t *journal, const char *write)
{
	int verdict = -1;
	bool open = false;
	size_t i;
	json_t *e;
	json_array_foreach(journal, i, e) {
		const char *w = fcr_jstr(e, "write");
		const char *ev = fcr_jstr(e, "event");
		if (!w || !ev || strcmp(w, write))
			continue;
		if (!strcmp(ev, "write-intent")) {
			/* the effect was there before: this write did not make it */
			open =
			    !json_is_true(json_object_get(json_object_get(e, "before"), "exists"));
			continue;
		}
		const char *outcome = fcr_jstr(e, "outcome");
		if (outcome && !strcmp(outcome, "accepted"))
			return 1;
		if (outcome && !strcmp(outcome, "unknown") && open)
			verdict = 0;
		open = false;
	}
	return open ? 0 : verdict;
}

/*
 * What earlier sessions did (a resumed campaign), and the plan of what is
 * left, in campaign order.  `sim` is the set of our snapshots as the plan
 * goes, for expanding delete-snapshot all-created.
 */
static void build_plan(struct fcr_ncp *p, const struct fcr_provider_step *steps, size_t n,
		       struct cm_strv *store, struct fcr_netcup_plan_step **out, size_t *n_out)
{
	struct cm_strv sim = {0};
	struct fcr_netcup_plan_step *plan = NULL;
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fcr_provider_step *st = &steps[i];
		bool done = fcr_provider_step_is(st, CM_STATUS_DONE);
		bool started = st->status && !done &&
			       !fcr_provider_step_is(st, CM_STATUS_PENDING) &&
			       !fcr_provider_step_is(st, CM_STATUS_SKIPPED);
		const char *name = st->argc ? st->argv[0] : NULL;
		if (!strcmp(st->action, "snapshot")) {
			if (!st->args)
				continue;
			const struct fcr_ncp_snapshot a =
			    *(const struct fcr_ncp_snapshot *)st->args;
			json_t *created = json_object_get(st->result, "created");
			cm_strv_add_once(&sim, name);
			if (done) {
				fcr_provider_made_add(&p->made, name);
				continue;
			}
			/*
			 * Cut short or failed: it runs again, and takes a snapshot of
			 * that name as its own only when an earlier attempt provably
			 * made it or may have: its result says so, or its journaled
			 * write does.  A step that never ran (pending, skipped) made
			 * nothing: such a snapshot is someone else's.
			 */
			char *write = cm_asprintf("snapshot %s", name);
			int said = journal_says(st->journal, write);
			free(write);
			if (started && (json_is_true(created) || said > 0))
				cm_strv_add_once(&p->made.created, name);
			else if (started && ((created && json_is_null(created)) || said == 0))
				cm_strv_add_once(&p->made.maybe, name);
			if (cm_strv_has(&p->made.created, name) ||
			    cm_strv_has(&p->made.maybe, name))
				cm_strv_add_once(&p->adopt, name);
			plan = cm_realloc(plan, np + 1, sizeof(*plan));
			plan[np++] = (struct fcr_netcup_plan_step){
			    .kind = FCR_NETCUP_PLAN_SNAPSHOT,
			    .name = name,
			    .online = a.online,
			    .disk = a.disk,
			    .resumed = cm_strv_has(&p->adopt, name),
			};
		} else if (!strcmp(st->action, "delete-snapshot")) {
			bool all = !strcmp(name, "all-created");
			if (done) {
				if (all) {
					fcr_provider_made_clear(&p->made);
					cm_strv_release(&sim);
				} else {
					fcr_provider_made_gone(&p->made, name);
					cm_strv_del(&sim, name);
				}
				continue;
			}
			for (size_t k = 0; k < (all ? sim.n : 1); k++) {
				const char *nm = all ? sim.v[k] : name;
				/* a copy that lives as long as the plan (sim's do not) */
				cm_strv_add(store, nm);
				plan = cm_realloc(plan, np + 1, sizeof(*plan));
				plan[np++] = (struct fcr_netcup_plan_step){
				    .kind = FCR_NETCUP_PLAN_DELETE,
				    .name = store->v[store->n - 1],
				    /* ours, and gone already: counts as deleted */
				    .resumed = started || cm_strv_has(&p->made.maybe, nm) ||
					       cm_strv_has(&p->made.created, nm),
				};
			}
			if (all)
				cm_strv_release(&sim);
			else
				cm_strv_del(&sim, name);
		} else if (!strcmp(st->action, "revert") && !done) {
			plan = cm_realloc(plan, np + 1, sizeof(*plan));
			plan[np++] = (struct fcr_netcup_plan_step){.kind = FCR_NETCUP_PLAN_REVERT,
								   .name = name};
		}
	}
	cm_strv_release(&sim);
	*out = plan;
	*n_out = np;
}

int fcr_ncp_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
		      struct fcr_error *err)
{
	struct fcr_ncp *p = state;
	if (!p->nc) {
		return fcr_fail(err, "netcup: not connected");
	}
	/* before anything else: a task of an earlier session still running
	 * would be sent again, or undo what the campaign does next */
	p->base.current = "preflight";
	for (size_t i = 0; i < n_steps; i++) {
		const struct fcr_provider_step *st = &steps[i];
		if (!st->status || fcr_provider_step_is(st, CM_STATUS_DONE) ||
		    fcr_provider_step_is(st, CM_STATUS_PENDING) ||
		    fcr_provider_step_is(st, CM_STATUS_SKIPPED))
			continue;
		struct fcr_error e = {0};
		int rc = reconcile(p, st, &e);
		if (rc < 0) {
			p->base.current = NULL;
			fcr_provider_note(&p->base, "problem", "%s", e.msg);
			return fcr_fail_as(err, rc == FCR_E_STOPPED ? rc : FCR_E_PREFLIGHT,
					   "the netcup preflight stopped at a task of an earlier "
					   "session (said above); nothing was changed");
		}
	}
	p->base.current = NULL;
	struct fcr_netcup_plan_step *ps = NULL;
	size_t nps = 0;
	struct cm_strv store = {0};
	build_plan(p, steps, n_steps, &store, &ps, &nps);
	if (p->made.created.n || p->made.maybe.n) {
		struct cm_buf b = {0};
		for (size_t i = 0; i < p->made.created.n; i++)
			cm_buf_printf(&b, "%s%s", b.len ? ", " : "", p->made.created.v[i]);
		for (size_t i = 0; i < p->made.maybe.n; i++)
			cm_buf_printf(&b, "%s%s (maybe)", b.len ? ", " : "", p->made.maybe.v[i]);
		fcr_provider_note(&p->base, "info",
				  "snapshots this campaign made in earlier runs: %s", b.s);
		cm_buf_release(&b);
	}
	struct fcr_netcup_plan plan = {.steps = ps, .n_steps = nps};
	struct fcr_netcup_findings f = {0};
	struct fcr_error e = {0};
	p->base.current = "preflight";
	int rc = fcr_netcup_preflight(p->nc, &plan, &f, NULL, &e);
	p->base.current = NULL;
	for (size_t i = 0; i < f.n; i++) {
		const struct fcr_netcup_finding *x = &f.items[i];
		const char *level = x->level == FCR_NETCUP_PROBLEM   ? "problem"
				    : x->level == FCR_NETCUP_WARNING ? "warning"
								     : "info";
		fcr_provider_note(&p->base, level, "%s", x->message);
	}
	if (rc == FCR_E_PREFLIGHT)
		fcr_fail_as(err, rc,
			    "the netcup preflight found %zu problem%s (listed above); nothing was "
			    "changed",
			    f.n_problems, f.n_problems == 1 ? "" : "s");
	else if (rc < 0)
		fcr_fail_as(err, rc, "the netcup preflight could not check: %s", e.msg);
	fcr_netcup_findings_free(&f);
	free(ps);
	cm_strv_release(&store);
	return rc < 0 ? -1 : 0;
}

/* ---- --dry-run --------------------------------------------------------------- */

void fcr_ncp_describe_preflight(void *state, struct cm_buf *b)
{
	struct fcr_ncp *p = state;
	long id = p->cfg.server_id;
	if (p->token_file)
		cm_buf_printf(b, "refresh token from %s%s (refused unless mode 0600)\n",
			      p->token_file, p->token_default ? " (the default)" : "");
	else if (p->token_default)
		cm_buf_printf(b, "refresh token: none (no token-file, no $" FCR_NETCUP_TOKEN_ENV
				 ", no HOME)\n");
	else
		cm_buf_printf(b, "refresh token from $" FCR_NETCUP_TOKEN_ENV "\n");
	cm_buf_printf(b,
		      "POST %s/protocol/openid-connect/token (grant_type=refresh_token): an "
		      "access token\n",
		      p->auth_url ? p->auth_url : FCR_NETCUP_DEFAULT_AUTH_URL);
	cm_buf_printf(b,
		      "GET /api/v1/servers/%ld: it exists, its state, UEFI, snapshotAllowed, "
		      "disks\n",
		      id);
	cm_buf_printf(b, "GET /api/v1/servers/%ld/snapshots: names taken, names to delete\n", id);
	cm_buf_printf(b,
		      "POST /api/v1/servers/%ld/snapshots:dryrun once per kind of snapshot "
		      "planned\n",
		      id);
	cm_buf_printf(b,
		      "(API base %s; a 409 server.lock.error on a write is retried every "
		      "%.1fs)\n",
		      p->api_url ? p->api_url : FCR_NETCUP_DEFAULT_API_URL,
		      p->cfg.lock_wait_ms / 1000.0);
}
