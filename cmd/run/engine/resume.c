/* SPDX-License-Identifier: MIT */
/*
 * --resume: an earlier session's manifest read back and checked against the
 * campaign file, the job files it ran, a transition cut short brought back
 * to where its next step expects the machine, and the downtime of such a
 * transition.  A resumed campaign continues at its first step not done;
 * what was done is never done again.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/session.h"
#include "machine/reap.h"
#include "util/status.h"

/*
 * A transition cut short in an earlier session (kill, Ctrl-C, failure) has
 * no downtime of its own: what is measured through it is marked cut, never a
 * sample.  When its take-down itself was cut short and is continued now, it
 * counts from that action's first start (in the earlier session); when the
 * take-down had ended before, from the power-off repeated on resume if there
 * was one; otherwise it is unknown.
 */
double fcr_resume_down_since(const struct fcr_session *S, json_t *state_obj, size_t upto,
			     const struct fcr_state *s, const char **note, bool *cut)
{
	json_t *before = json_object_get(state_obj, "before");
	*note = NULL;
	*cut = false;
	for (size_t j = 0; j < upto && j < s->n_actions; j++) {
		if (!s->actions[j].takes_down)
			continue;
		json_t *a = json_array_get(before, j);
		double t = cm_parse_rfc3339(fcr_jstr(a, "started"));
		if (!isfinite(t))
			continue;
		double first = cm_parse_rfc3339(fcr_jstr(a, "first_started"));
		if (isfinite(first)) {
			*cut = true;
			*note =
			    "the transition was cut short and resumed: its downtime counts from "
			    "the take-down's first start, across the interruption, and is no "
			    "sample";
			return first;
		}
		/* format_utc keeps milliseconds */
		if (t >= S->session_wall - 0.001)
			return t;
		*cut = true;
		if (isfinite(S->restored_down_wall)) {
			*note =
			    "the transition was cut short and resumed: downtime counts from the "
			    "power-off repeated on resume";
			return S->restored_down_wall;
		}
		*note = "the transition was cut short and resumed: its downtime is unknown";
		return NAN;
	}
	return NAN;
}

/*
 * A state cut short in an earlier session, resumed.  When the last finished
 * action of it that changed the power was a power-off, the steps after it
 * expect the machine off, but it may be on again (the earlier session powered
 * it on after a failure, or someone did).  That power-off is repeated, which
 * costs one GET when the machine is still off.  Not when the next step
 * changes the power itself.
 */
enum fcr_outcome fcr_resume_restore_power(struct fcr_session *S, size_t si, json_t *rep_obj)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	json_t *before = json_object_get(rep_obj, "before");
	size_t next = st->n_actions;
	for (size_t ai = 0; ai < st->n_actions; ai++) {
		if (!fcr_has_status(json_array_get(before, ai), CM_STATUS_DONE)) {
			next = ai;
			break;
		}
	}
	const struct fcr_step *last = NULL;
	for (size_t ai = 0; ai < next; ai++) {
		const struct fcr_step *a = &st->actions[ai];
		if (a->takes_down || a->brings_up)
			last = a;
	}
	if (!last || !last->takes_down || last->brings_up)
		return FCR_DONE;
	if (next < st->n_actions) {
		const struct fcr_step *a = &st->actions[next];
		if (a->takes_down || a->brings_up)
			return FCR_DONE;
	}
	fcr_progress_line("%s: resumed after '%s': doing it again, so that what follows finds the "
			  "machine off",
			  st->name, last->text);
	fcr_record_event(
	    &S->rec, "resume-restore",
	    fcr_session_at(S, json_pack("{s:s, s:s}", "state", st->name, "action", last->text)));
	S->maybe_down = true;
	fcr_target_mux_hold(&S->tgt, true);
	json_t *res = json_object();
	struct fcr_error pe = {0};
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	char label[300];
	snprintf(label, sizeof(label), "%s: %s", st->name, last->text);
	struct fcr_action_ctx ctx;
	fcr_session_ctx(S, si, label, &ctx);
	S->ai = (int)(last - st->actions);
	int rc = last->def->perform(&ctx, last, res, &pe);
	S->ai = -1;
	if (rc == 0 && !json_is_true(json_object_get(res, "already")))
		S->restored_down_wall = t0_wall;
	json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:o}", "state", st->name, "action", last->text,
			       "status", rc == 0 ? CM_STATUS_DONE : CM_STATUS_FAILED, "duration_s",
			       fcr_jseconds(cm_mono_s() - t0), "result", res);
	if (rc < 0)
		fcr_jset_text(ev, "error", pe.msg);
	fcr_record_event(&S->rec, "resume-restore-end", fcr_session_at(S, ev));
	if (rc == 0)
		return FCR_DONE;
	fcr_progress_problem("%s: repeating '%s' failed: %s", st->name, last->text, pe.msg);
	fcr_session_failure(S, "resume-restore", pe.msg);
	return *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
}

/*
 * A resumed campaign runs the job files the earlier sessions ran: the rounds
 * of a state must be alike.  A job found elsewhere this time (a --jobs-dir
 * given then but not now, a copy beside the campaign file since) is refused.
 */
int fcr_resume_check_jobs(const struct fcr_session *S, struct fcr_error *err)
{
	json_t *sources = json_object_get(S->rec.m, "job_sources");
	for (size_t i = 0; i < S->c->suite.n; i++) {
		const struct fcr_jobfile *j = &S->fio.jobs[i];
		const char *then = fcr_jstr(sources, j->test);
		if (then && strcmp(then, j->origin))
			return fcr_fail(err,
					"test %s ran with the job file %s, and this session would "
					"use %s (give the same --jobs-dir as then)",
					j->test, then, j->origin);
	}
	return 0;
}

int fcr_resume_check_dir(const char *dir, struct fcr_error *err)
{
	char *path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, dir);
	int rc = 0;
	if (!fcr_path_exists(path))
		rc =
		    fcr_fail(err,
			     "%s: no manifest.json: not a campaign directory, or its first session "
			     "ended before it wrote one (start the campaign again)",
			     dir);
	free(path);
	return rc;
}

int fcr_resume_load(struct fcr_session *S, struct fcr_error *err)
{
	char *path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, S->cdir);
	json_error_t jerr;
	json_t *m = json_load_file(path, 0, &jerr);
	if (!m) {
		fcr_fail(err, "%s:%d: %s", path, jerr.line, jerr.text);
		free(path);
		return -1;
	}
	struct fcr_error why;
	/* a manifest saved in parts: the steps the journal has since its rewrite */
	long long seq;
	if (fcr_record_replay(S->cdir, m, &seq, &why) < 0) {
		fcr_fail(err, "%s/" CM_CAMPAIGN_JOURNAL ": %s", S->cdir, why.msg);
		free(path);
		json_decref(m);
		return -1;
	}
	S->rec.patch_seq = seq;
	if (fcr_manifest_check(m, S->c, S->fio.jobs, &why) < 0) {
		fcr_fail(err, "%s: %s", path, why.msg);
		free(path);
		json_decref(m);
		return -1;
	}
	free(path);
	S->rec.m = m;
	S->rec.session = (int)json_integer_value(json_object_get(m, "sessions")) + 1;
	json_object_set_new(m, "sessions", json_integer(S->rec.session));
	return 0;
}

/* ---- the writes of earlier sessions ---------------------------------------- */

json_t *fcr_resume_writes(const struct fcr_session *S)
{
	json_t *out = json_object();
	if (!S->resumed)
		return out;
	static const char *const kinds[] = {"write-intent", "write-outcome", NULL};
	json_t *ev = fcr_record_read_events(S->cdir, kinds);
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		json_t *at = json_object_get(e, "at");
		const char *state = fcr_jstr(at, "state");
		json_t *index = json_object_get(at, "index");
		if (!state || !json_is_integer(index))
			continue;
		json_t *rep = json_object_get(at, "repetition");
		char *key =
		    json_is_integer(rep)
			? cm_asprintf("%s/%lld/%lld", state, (long long)json_integer_value(rep),
				      (long long)json_integer_value(index))
			: cm_asprintf("%s/%lld", state, (long long)json_integer_value(index));
		json_t *list = json_object_get(out, key);
		if (!list) {
			list = json_array();
			json_object_set_new(out, key, list);
		}
		json_array_append(list, e);
		free(key);
	}
	json_decref(ev);
	return out;
}

json_t *fcr_resume_step_writes(json_t *writes, const char *state, size_t rep, size_t index)
{
	char *key = rep ? cm_asprintf("%s/%zu/%zu", state, rep, index)
			: cm_asprintf("%s/%zu", state, index);
	json_t *list = json_object_get(writes, key);
	if (!list) {
		list = json_array();
		json_object_set_new(writes, key, list);
	}
	free(key);
	return list;
}

/* ---- what an earlier session left running ------------------------------------ */

int fcr_resume_reap(struct fcr_session *S, struct fcr_error *err)
{
	static const char *const kinds[] = {"fio-start", "preflight", NULL};
	json_t *ev = fcr_record_read_events(S->cdir, kinds);
	json_t *procs = json_array(), *dirs = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		json_t *proc = json_object_get(e, "proc");
		const char *dir = fcr_jstr(e, "remote_dir");
		if (!dir)
			dir = fcr_jstr(proc, "remote_dir");
		if (json_is_object(proc))
			json_array_append(procs, proc);
		if (dir)
			json_array_append_new(dirs, json_string(dir));
	}
	json_decref(ev);
	unsigned stopped = 0;
	int rc = fcr_reap_leftovers(&S->tgt, procs, dirs, &stopped, err);
	if (stopped || rc < 0) {
		json_t *f = json_pack("{s:i, s:s}", "stopped", (int)stopped, "status",
				      rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
		if (rc < 0)
			fcr_jset_text(f, "error", err->msg);
		fcr_record_event(&S->rec, "leftover-fio", f);
	}
	if (stopped)
		fcr_progress_line("stopped %u fio process%s an earlier session left running",
				  stopped, stopped == 1 ? "" : "es");
	json_decref(procs);
	json_decref(dirs);
	return rc;
}
