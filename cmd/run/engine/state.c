/* SPDX-License-Identifier: MIT */
/*
 * One state of a campaign: its repetitions, in each its actions, then its
 * rounds, in each round every variant (and size) of the suite; the manifest
 * and journal written at every step.  What is done is never done again: a
 * resumed session skips it.  The campaign around it (the campaign
 * directory, the provider, the end) is engine.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/session.h"
#include "engine/steady.h"
#include "fleet/link.h"
#include "util/status.h"
#include "machine/probe.h"
#include "machine/spawn.h"

/* The downtime that an action which saw the machine back ends; rep_obj is
 * the repetition's object (the state's when it does not repeat). */
static void record_downtime(struct fcr_session *S, const struct fcr_state *st, size_t ai,
			    json_t *rep_obj, json_t *obj, double back_wall)
{
	const char *note;
	bool cut;
	double since = fcr_resume_down_since(S, rep_obj, ai, st, &note, &cut);
	bool first = !json_is_number(json_object_get(rep_obj, "downtime_s")) &&
		     !json_is_true(json_object_get(rep_obj, "downtime_cut"));
	if (note) {
		json_object_set_new(obj, "downtime_note", json_string(note));
		if (!json_object_get(rep_obj, "downtime_note"))
			json_object_set_new(rep_obj, "downtime_note", json_string(note));
		fcr_progress_line("%s: %s", st->name, note);
	}
	/* an interrupt came between: never a sample (provider.h) */
	if (cut) {
		json_object_set_new(obj, "downtime_cut", json_true());
		if (first)
			json_object_set_new(rep_obj, "downtime_cut", json_true());
	}
	if (isfinite(since) && isfinite(back_wall)) {
		double down = back_wall - since;
		json_object_set_new(obj, "downtime_s", fcr_jseconds(down));
		if (first)
			json_object_set_new(rep_obj, "downtime_s", fcr_jseconds(down));
		fcr_progress_line("%s: SSH is back after %.2fs of downtime%s", st->name, down,
				  cut ? " (across an interruption: not a sample)" : "");
	}
}

/*
 * Data back: from the start of the repetition's first take-down action to
 * the end of the first check of the data after it that matched (a
 * verify-hash).  Only the first counts; a cut-short transition counts from
 * where its downtime does (fcr_resume_down_since).
 */
static void record_data_back(struct fcr_session *S, const struct fcr_state *st, size_t ai,
			     json_t *rep_obj, double end_wall)
{
	if (json_is_number(json_object_get(rep_obj, "data_back_s")) ||
	    json_is_true(json_object_get(rep_obj, "data_back_cut")))
		return;
	const char *note;
	bool cut;
	double since = fcr_resume_down_since(S, rep_obj, ai, st, &note, &cut);
	if (cut)
		json_object_set_new(rep_obj, "data_back_cut", json_true());
	if (!isfinite(since))
		return;
	json_object_set_new(rep_obj, "data_back_s", fcr_jseconds(end_wall - since));
	fcr_progress_line("%s: the data is back %.2fs after the machine was taken away%s", st->name,
			  end_wall - since, cut ? " (across an interruption: not a sample)" : "");
}

/*
 * Action ai of state si in the repetition at hand (rep_obj: its manifest
 * object, the state's when it does not repeat), with its manifest object
 * obj: the bookkeeping around its row's perform().
 */
static enum fcr_outcome perform_action(struct fcr_session *S, size_t si, size_t ai,
				       const struct fcr_variant *variant, json_t *rep_obj,
				       json_t *obj)
{
	const struct fcr_state *st = &S->c->states[si];
	const struct fcr_step *a = variant ? &variant->actions[ai] : &st->actions[ai];
	char where[FCR_NAME_MAX_BYTES + 64], label[FCR_NAME_MAX_BYTES * 3 + 1024];
	if (S->rep)
		snprintf(where, sizeof(where), "%s rep %u/%u", st->name, S->rep, st->repeat);
	else
		snprintf(where, sizeof(where), "%s", st->name);
	if (variant)
		snprintf(label, sizeof(label), "%s: variant %s: %s", where, variant->name, a->text);
	else
		snprintf(label, sizeof(label), "%s: %s", where, a->text);
	json_t *res = json_object();
	struct fcr_error err = {0};

	/*
	 * Begun in an earlier session (cut short by an interrupt, or failed):
	 * this attempt continues it.  Its timings are cut: its duration is this
	 * attempt's part only, and a downtime through it counts from its first
	 * start, across the interruption ("first_started").
	 */
	bool again = !fcr_has_status(obj, CM_STATUS_PENDING) && fcr_jstr(obj, "started");
	if (again && !json_object_get(obj, "first_started"))
		json_object_set(obj, "first_started", json_object_get(obj, "started"));
	json_object_set_new(obj, "status", json_string(CM_STATUS_RUNNING));
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	json_object_set_new(obj, "started", fcr_jutc(t0_wall));
	static const char *const stale[] = {"error", "result", "downtime_s",  "downtime_note",
					    "task",  "tasks",  "downtime_cut"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(stale); i++)
		json_object_del(obj, stale[i]);
	if (again)
		json_object_set_new(obj, "cut", json_true());
	if (a->takes_down) {
		S->maybe_down = true;
		/* no command over a connection from before the transition */
		fcr_target_mux_hold(&S->tgt, true);
	}
	fcr_record_touch(&S->rec, obj);
	fcr_record_save(&S->rec);
	json_t *start_ev = fcr_session_at(S, json_pack("{s:s, s:i, s:s}", "state", st->name,
						       "index", (int)ai, "action", a->text));
	if (variant)
		json_object_set_new(start_ev, "variant", json_string(variant->name));
	fcr_record_event(&S->rec, "action-start", start_ev);
	fcr_progress_line("%s", label);
	fcr_status_show(a->text, true);

	struct fcr_action_ctx ctx;
	fcr_session_ctx(S, si, label, &ctx);
	const char *note_ignored;
	bool cut_ignored;
	/* a variant's actions come after all of the state's */
	ctx.down_wall = fcr_resume_down_since(S, rep_obj, variant ? st->n_actions : ai, st,
					      &note_ignored, &cut_ignored);
	S->ai = variant ? -1 : (int)ai;
	/* from now on the ETA counts what is left of its wait (fcr_status_wait) */
	if (a->def->duration_ms)
		fcr_status_waited(a->def->duration_ms(a));
	int rc = a->def->perform(&ctx, a, res, &err);
	S->ai = -1;
	/* after any provider action the next command connects anew */
	if (a->from_provider)
		fcr_target_mux_stop(&S->tgt);
	enum fcr_outcome s = FCR_DONE;
	if (rc < 0)
		s = rc == FCR_E_STOPPED || *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
	if (rc == 0 && a->def->ends_downtime) {
		S->maybe_down = false;
		fcr_target_mux_hold(&S->tgt, false);
		record_downtime(S, st, ai, rep_obj, obj, ctx.back_wall);
	}
	/* the contract wants a provider's tasks beside our timing */
	static const char *const lifted[] = {"task", "tasks"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(lifted); i++) {
		json_t *v = json_object_get(res, lifted[i]);
		if (!v)
			continue;
		json_object_set(obj, lifted[i], v);
		json_object_del(res, lifted[i]);
	}
	if (s == FCR_DONE && *S->stop)
		s = FCR_INTERRUPTED;
	double t1 = cm_mono_s(), t1_wall = cm_wall_s();
	json_object_set_new(obj, "finished", fcr_jutc(t1_wall));
	if (s == FCR_DONE && a->def->checks_data)
		record_data_back(S, st, ai, rep_obj, t1_wall);
	json_object_set_new(obj, "duration_s", fcr_jseconds(t1 - t0));
	if (json_object_size(res))
		json_object_set_new(obj, "result", res);
	else
		json_decref(res);
	const char *status = fcr_outcome_status(s);
	json_object_set_new(obj, "status", json_string(status));
	if (s == FCR_FAILED)
		fcr_jset_text(obj, "error", err.msg);
	json_t *ev = fcr_session_at(S, json_pack("{s:s, s:i, s:s, s:s, s:o}", "state", st->name,
						 "index", (int)ai, "action", a->text, "status",
						 status, "duration_s", fcr_jseconds(t1 - t0)));
	static const char *const echoed[] = {"downtime_s", "downtime_cut", "cut",
					     "result",	   "task",	   "tasks"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(echoed); i++) {
		if (json_object_get(obj, echoed[i]))
			json_object_set(ev, echoed[i], json_object_get(obj, echoed[i]));
	}
	if (s == FCR_FAILED)
		fcr_jset_text(ev, "error", err.msg);
	if (variant)
		json_object_set_new(ev, "variant", json_string(variant->name));
	fcr_record_touch(&S->rec, obj);
	fcr_record_touch(&S->rec, rep_obj); /* its downtime, its data back */
	fcr_record_commit(&S->rec, "action-end", ev);
	if (s == FCR_FAILED)
		fcr_progress_problem("%s: FAILED: %s", label, err.msg);
	else if (s == FCR_INTERRUPTED)
		fcr_progress_line("%s: interrupted", label);
	return S->rec.failed ? FCR_FATAL : s;
}

/* ---- rounds -------------------------------------------------------------- */

/* The steady window of a state of rounds = until-steady (its rounds the
 * most); 0 for fixed rounds.  For the round counts it shows. */
static unsigned steady_window(const struct fcr_state *st)
{
	return st->steady_max ? st->steady_window : 0;
}

/* The state's name in messages, with the repetition at hand when it repeats:
 * "after" or "after rep 2/3". */
static void step_label(const struct fcr_session *S, const struct fcr_state *st, char *buf,
		       size_t size)
{
	if (st->repeat > 1 && S->rep)
		snprintf(buf, size, "%s rep %u/%u", st->name, S->rep, st->repeat);
	else
		snprintf(buf, size, "%s", st->name);
}

/*
 * Runs round r's suite in <cdir>/<rel> at each point of the state's sweep,
 * run j (fcr_state_run_at) into tests[first + j]; a run done already (a
 * round resumed at a point) is not run again.  `where` (borrowed) names the
 * runs in the journal, `what` in messages ("basis r1/4").  round_obj is
 * saved when a point ends.  *any_failed is set when a test failed and
 * --keep-going went on.
 */
static enum fcr_outcome run_tests(struct fcr_session *S, const struct fcr_state *st, unsigned r,
				  const char *rel, json_t *round_obj, size_t first, json_t *where,
				  const char *what, bool *any_failed)
{
	const struct fcr_campaign *c = S->c;
	json_t *tests = json_object_get(round_obj, "tests");
	size_t runs = fcr_state_runs(st);
	bool swept = st->sweep->n_axes > 0;
	for (size_t j = 0; j < runs; j++) {
		size_t ti, pt;
		fcr_state_run_at(c, st, r, j, &ti, &pt);
		json_t *t = json_array_get(tests, first + j);
		if (fcr_has_status(t, CM_STATUS_DONE))
			continue;
		const struct fcr_jobfile *job = &S->fio.jobs[st->tests[ti]];
		char *name = fcr_sweep_run_name(st->sweep, pt, job->test);
		json_t *w = json_deep_copy(where);
		json_object_set_new(w, "test", json_string(job->test));
		if (swept)
			json_object_set_new(w, "point", fcr_manifest_point(st->sweep, pt));
		char label[FCR_NAME_MAX_BYTES * 5 + 64];
		snprintf(label, sizeof(label), "%s %s", what, name);
		fcr_status_show(name, true);
		S->fio.sweep = st->sweep;
		S->fio.point = pt;
		enum fcr_outcome s = fcr_fio_run(&S->fio, rel, name, job, t, w, label);
		S->fio.sweep = NULL;
		json_decref(w);
		free(name);
		fcr_status_test_done();
		if (S->rec.failed)
			return FCR_FATAL;
		if (s == FCR_INTERRUPTED)
			return FCR_INTERRUPTED;
		if (s == FCR_FAILED) {
			*any_failed = true;
			if (!S->o->keep_going)
				return FCR_FAILED;
		}
		/* without a sweep the manifest is saved when the round (or the
		 * variant) ends: one cut short runs again as a whole.  A sweep's
		 * points are saved as each ends, its outputs durable first: a
		 * resumed session continues at the point cut short. */
		if (swept && st->sweep->n_points > 1 && (j + 1) % st->n_tests == 0 &&
		    j + 1 < runs) {
			char *abs = cm_asprintf("%s/%s", S->cdir, rel);
			fcr_fio_sync_outputs(abs);
			free(abs);
			fcr_record_touch(&S->rec, round_obj);
			fcr_record_save(&S->rec);
			if (S->rec.failed)
				return FCR_FATAL;
		}
	}
	return FCR_DONE;
}

/*
 * Whether the attempt at a round (or at a unit of one: its runs from
 * `first`) continues an earlier one at the point it was cut short: the
 * state sweeps, and the earlier attempt finished some of its runs.
 */
static bool continues_at_point(const struct fcr_state *st, json_t *tests, size_t first)
{
	if (st->sweep->n_points < 2 || !json_is_array(tests))
		return false;
	size_t runs = fcr_state_runs(st);
	if (json_array_size(tests) < first + runs)
		return false;
	for (size_t j = 0; j < runs; j++) {
		if (fcr_has_status(json_array_get(tests, first + j), CM_STATUS_DONE))
			return true;
	}
	return false;
}

/* Moves <cdir>/<rel> aside as <rel>.<tag>-<k>, listed in obj's
 * moved_aside; `where` (borrowed) goes into the moved-aside event. */
static int move_aside(struct fcr_session *S, const char *rel, const char *tag, json_t *obj,
		      json_t *where, const char *what)
{
	struct fcr_error err;
	char *abs = cm_asprintf("%s/%s", S->cdir, rel);
	unsigned k;
	char *aside = fcr_aside_name(abs, tag, &k);
	int rc = rename(abs, aside);
	if (rc < 0) {
		fcr_fail_errno(&err, errno, "cannot move %s aside", abs);
		fcr_progress_problem("%s", err.msg);
	} else {
		const char *aside_rel = aside + strlen(S->cdir) + 1;
		json_t *list = json_object_get(obj, "moved_aside");
		if (!json_is_array(list)) {
			list = json_array();
			json_object_set_new(obj, "moved_aside", list);
		}
		json_array_append_new(list, json_string(aside_rel));
		json_t *ev = json_deep_copy(where);
		json_object_set_new(ev, "from", json_string(rel));
		json_object_set_new(ev, "to", json_string(aside_rel));
		fcr_record_event(&S->rec, "moved-aside", ev);
		fcr_progress_line("%s: the unfinished earlier attempt is kept as %s", what,
				  aside_rel);
	}
	free(aside);
	free(abs);
	return rc;
}

/* Whether file `f` is one of run `name`'s: NAME.json, NAME_iops.1.log ... */
static bool file_of_run(const char *f, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(f, name, n) && (f[n] == '.' || f[n] == '_');
}

/*
 * What run j of an earlier attempt left in <cdir>/<rel> when it did not
 * end well (its entry t): its files go into <rel>/<name>.<tag>-<k>/, listed
 * in t's moved_aside, so that the round continues beside the runs done.
 */
static int move_run_aside(struct fcr_session *S, const char *rel, const char *name, json_t *t,
			  json_t *where, const char *what)
{
	char *abs = cm_asprintf("%s/%s", S->cdir, rel);
	struct cm_strv files = {0};
	DIR *d = opendir(abs);
	for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
		struct stat st;
		/* its files, not the directories of its own earlier attempts */
		if (file_of_run(e->d_name, name) &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    !S_ISDIR(st.st_mode))
			cm_strv_add(&files, e->d_name);
	}
	if (d)
		closedir(d);
	int rc = 0;
	if (files.n) {
		char *base = cm_asprintf("%s/%s", abs, name);
		const char *tag =
		    fcr_has_status(t, CM_STATUS_FAILED) ? CM_ASIDE_FAILED : CM_ASIDE_INTERRUPTED;
		unsigned k;
		char *aside = fcr_aside_name(base, tag, &k);
		struct fcr_error err;
		if (fcr_mkdir_p(aside, 0755, &err) < 0) {
			fcr_progress_problem("%s", err.msg);
			rc = -1;
		}
		for (size_t i = 0; rc == 0 && i < files.n; i++) {
			char *from = cm_asprintf("%s/%s", abs, files.v[i]);
			char *to = cm_asprintf("%s/%s", aside, files.v[i]);
			if (rename(from, to) < 0) {
				fcr_fail_errno(&err, errno, "cannot move %s aside", from);
				fcr_progress_problem("%s", err.msg);
				rc = -1;
			}
			free(from);
			free(to);
		}
		if (rc == 0) {
			fcr_fsync_dir(aside, NULL);
			fcr_fsync_dir(abs, NULL);
			const char *aside_rel = aside + strlen(S->cdir) + 1;
			json_t *list = json_object_get(t, "moved_aside");
			if (!json_is_array(list)) {
				list = json_array();
				json_object_set_new(t, "moved_aside", list);
			}
			json_array_append_new(list, json_string(aside_rel));
			json_t *ev = json_deep_copy(where);
			json_object_set_new(ev, "from", json_string(rel));
			json_object_set_new(ev, "run", json_string(name));
			json_object_set_new(ev, "to", json_string(aside_rel));
			fcr_record_event(&S->rec, "moved-aside", ev);
			fcr_progress_line("%s: the unfinished earlier attempt at %s is kept as %s",
					  what, name, aside_rel);
		}
		free(aside);
		free(base);
	}
	cm_strv_release(&files);
	free(abs);
	return rc;
}

/*
 * An attempt that continues at the point cut short (continues_at_point):
 * the runs not done are pending again, what they left moved aside.
 */
static int continue_at_point(struct fcr_session *S, const struct fcr_state *st, unsigned r,
			     const char *rel, json_t *tests, size_t first, json_t *where,
			     const char *what)
{
	for (size_t j = 0; j < fcr_state_runs(st); j++) {
		json_t *t = json_array_get(tests, first + j);
		if (fcr_has_status(t, CM_STATUS_DONE))
			continue;
		size_t ti, pt;
		fcr_state_run_at(S->c, st, r, j, &ti, &pt);
		char *name = fcr_sweep_run_name(st->sweep, pt, S->fio.jobs[st->tests[ti]].test);
		int rc = move_run_aside(S, rel, name, t, where, what);
		free(name);
		if (rc < 0)
			return -1;
		json_object_set_new(t, "status", json_string(CM_STATUS_PENDING));
	}
	fcr_progress_line("%s: continues at the point cut short", what);
	return 0;
}

/*
 * The directory <cdir>/<rel> of an attempt at a round, or at a unit of one
 * (obj: its manifest object).  An empty one that an earlier attempt left
 * (stopped before its first run) is removed; one with runs in it (cut short
 * or failed) is kept, moved aside as the earlier attempt's, unless obj is
 * NULL (a round of units: each unit's directory is kept by itself).  Then
 * it is made anew, and the directories above it up to the campaign
 * directory's are fsync'd.  `what` names the attempt in messages.
 */
static int attempt_dir(struct fcr_session *S, const char *rel, json_t *obj, json_t *where,
		       const char *what)
{
	char *abs = cm_asprintf("%s/%s", S->cdir, rel);
	int rc = 0;
	if (fcr_path_exists(abs) && rmdir(abs) == 0)
		fcr_progress_line("%s: removed the empty directory of an earlier attempt", what);
	if (obj && fcr_path_exists(abs)) {
		const char *tag =
		    fcr_has_status(obj, CM_STATUS_FAILED) ? CM_ASIDE_FAILED : CM_ASIDE_INTERRUPTED;
		rc = move_aside(S, rel, tag, obj, where, what);
	}
	struct fcr_error err;
	if (rc == 0 && fcr_mkdir_p(abs, 0755, &err) < 0) {
		fcr_progress_problem("%s", err.msg);
		rc = -1;
	}
	/* what mkdir_p made is durable once each directory holding it is synced */
	size_t top = strlen(S->cdir);
	for (char *slash = strrchr(abs, '/'); rc == 0 && slash && (size_t)(slash - abs) > top;
	     slash = strrchr(abs, '/')) {
		*slash = '\0';
		fcr_fsync_dir(abs, NULL);
	}
	free(abs);
	return rc;
}

static enum fcr_outcome run_units(struct fcr_session *S, size_t si, unsigned r, json_t *round_obj,
				  size_t only);

/*
 * Runs round r.  `pause_ms` > 0: the pause between rounds, counted from the
 * end of the last fio run; the round's bookkeeping happens inside it.  With
 * variants (or sizes) the round runs each unit's suite (run_units); `only`
 * is the one unit to run now (order = sequential), SIZE_MAX all of them.
 */
static enum fcr_outcome run_round(struct fcr_session *S, size_t si, unsigned r, json_t *round_obj,
				  uint64_t pause_ms, size_t only)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	bool units = fcr_campaign_has_units(c);
	/* a repeated state's rounds live in a directory per repetition */
	char *rel = cm_campaign_round_dir(st->name, st->repeat > 1 ? S->rep : 0, r, NULL);
	char *abs = cm_asprintf("%s/%s", S->cdir, rel);
	char name[FCR_NAME_MAX_BYTES + 32];
	step_label(S, st, name, sizeof(name));
	enum fcr_outcome result = FCR_DONE;
	json_t *where =
	    fcr_session_at(S, json_pack("{s:s, s:i}", "state", st->name, "round", (int)r));

	char what_dir[FCR_NAME_MAX_BYTES + 64];
	snprintf(what_dir, sizeof(what_dir), "%s round %u", name, r);
	/* with units each unit's directory is kept or moved aside by itself */
	bool resume_point =
	    !units && continues_at_point(st, json_object_get(round_obj, "tests"), 0);
	if (resume_point ? continue_at_point(S, st, r, rel, json_object_get(round_obj, "tests"), 0,
					     where, what_dir) < 0
			 : attempt_dir(S, rel, units ? NULL : round_obj, where, what_dir) < 0) {
		result = FCR_FATAL;
		goto out;
	}
	bool first_start = !units || !json_is_array(json_object_get(round_obj, "order"));
	json_object_set_new(round_obj, "status", json_string(CM_STATUS_RUNNING));
	/* mode = aggregate: who fio's client_stats are */
	if (S->agg)
		json_object_set_new(round_obj, "clients", fcr_aggregate_clients(S));
	if (first_start)
		json_object_set_new(round_obj, "started", fcr_jutc(cm_wall_s()));
	json_object_del(round_obj, "finished");
	json_t *tests = json_object_get(round_obj, "tests");
	if (!units && !resume_point) {
		tests = json_array();
		json_object_set_new(round_obj, "tests", tests);
		for (size_t j = 0; j < fcr_state_runs(st); j++)
			json_array_append_new(tests,
					      fcr_manifest_run(c, NULL, st, S->fio.jobs, r, j));
	} else if (units && first_start) {
		/* the order this round runs its units in, and their tests in it */
		json_t *order = json_array();
		tests = json_array();
		for (size_t k = 0; k < c->n_units; k++) {
			const struct fcr_unit *u = &c->units[fcr_campaign_unit_at(c, r, k)];
			json_t *e = json_object();
			if (u->variant)
				json_object_set_new(e, "variant", json_string(u->variant->name));
			if (c->by_size)
				json_object_set_new(e, "size", json_string(u->size->text));
			json_object_set_new(e, "status", json_string(CM_STATUS_PENDING));
			json_array_append_new(order, e);
			for (size_t j = 0; j < fcr_state_runs(st); j++)
				json_array_append_new(
				    tests, fcr_manifest_run(c, u, st, S->fio.jobs, r, j));
		}
		json_object_set_new(round_obj, "order", order);
		json_object_set_new(round_obj, "tests", tests);
	}
	json_t *start_ev = json_deep_copy(where);
	if (only != SIZE_MAX && c->units[only].variant)
		json_object_set_new(start_ev, "variant", json_string(c->units[only].variant->name));
	if (only != SIZE_MAX && c->by_size)
		json_object_set_new(start_ev, "size", json_string(c->units[only].size->text));
	fcr_record_event_lazy(&S->rec, "round-start", start_ev);
	fcr_record_touch(&S->rec, round_obj);
	fcr_record_save(&S->rec);
	if (S->rec.failed) {
		result = FCR_FATAL;
		goto out;
	}
	bool any_failed = false;
	if (pause_ms) {
		char label[64], d[32];
		cm_format_duration(d, sizeof(d), pause_ms);
		snprintf(label, sizeof(label), "pause %s", d);
		double since = cm_mono_s() - S->fio.last_end_mono;
		uint64_t done_ms = since > 0 ? (uint64_t)(since * 1000.0) : 0;
		if (fcr_status_wait(done_ms < pause_ms ? pause_ms - done_ms : 0, label, S->stop))
			result = FCR_INTERRUPTED;
		if (first_start)
			json_object_set_new(round_obj, "started", fcr_jutc(cm_wall_s()));
	}
	if (result == FCR_DONE && units) {
		result = run_units(S, si, r, round_obj, only);
		if (result == FCR_FATAL)
			goto out;
	} else if (result == FCR_DONE) {
		char of[48], what[FCR_NAME_MAX_BYTES + 32 + sizeof(of) + 2];
		fcr_format_round_of(of, sizeof(of), r, st->rounds, steady_window(st));
		snprintf(what, sizeof(what), "%s r%s", name, of);
		result = run_tests(S, st, r, rel, round_obj, 0, where, what, &any_failed);
		if (result == FCR_FATAL)
			goto out;
	}
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	const char *status = fcr_outcome_status(result);
	if (units) {
		/* done when every unit is; after one unit of a sequential campaign
		 * the round waits for the others */
		json_t *order = json_object_get(round_obj, "order");
		bool all = true;
		for (size_t k = 0; k < json_array_size(order); k++)
			all &= fcr_has_status(json_array_get(order, k), CM_STATUS_DONE);
		if (result == FCR_DONE && !all)
			status = CM_STATUS_RUNNING;
		else if (result == FCR_FAILED && S->o->keep_going && !all && only != SIZE_MAX)
			status = CM_STATUS_RUNNING;
	} else {
		for (size_t ti = 0; ti < json_array_size(tests); ti++) {
			json_t *t = json_array_get(tests, ti);
			if (fcr_has_status(t, CM_STATUS_PENDING))
				json_object_set_new(t, "status", json_string(CM_STATUS_SKIPPED));
		}
		fcr_fio_sync_outputs(abs);
	}
	json_object_set_new(round_obj, "status", json_string(status));
	if (strcmp(status, CM_STATUS_RUNNING))
		json_object_set_new(round_obj, "finished", fcr_jutc(cm_wall_s()));
	/* the manifest first: the journal never says more than it */
	json_t *end_ev = json_deep_copy(where);
	json_object_set_new(end_ev, "status", json_string(status));
	fcr_record_touch(&S->rec, round_obj);
	fcr_record_commit(&S->rec, "round-end", end_ev);
	if (S->rec.failed)
		result = FCR_FATAL;
out:
	json_decref(where);
	free(rel);
	free(abs);
	return result;
}

/* ---- variants ------------------------------------------------------------ */

/* Points the fio unit at unit u's test file and size; NULL: back to the
 * campaign's, for what runs between the rounds (a state's prefill). */
static void use_unit(struct fcr_session *S, const struct fcr_unit *u)
{
	S->fio.file = u && u->variant ? u->variant->test_file : NULL;
	S->fio.size_bytes = u ? u->size->bytes : 0;
	S->fio.size_text = u ? u->size->text : NULL;
	S->fio.variant = u && u->variant ? u->variant->name : NULL;
}

/*
 * Variant vi's first use in state si: its `before` actions (once per
 * state), then its prefill (once per campaign, with prefill = yes: after
 * its actions, which may be what makes its place, such as a mount).
 */
static enum fcr_outcome prepare_variant(struct fcr_session *S, size_t si, size_t vi)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_variant *v = &c->variants[vi];
	json_t *state_obj = json_array_get(json_object_get(S->rec.m, "states"), si);
	/* in each repetition of a repeated state: its transition may undo a mount */
	json_t *rep_obj = fcr_manifest_rep(state_obj, S->rep ? S->rep : 1);
	json_t *vobj = json_array_get(json_object_get(rep_obj, "variants"), vi);
	enum fcr_outcome result = FCR_DONE;
	if (!fcr_has_status(vobj, CM_STATUS_DONE)) {
		json_object_set_new(vobj, "status", json_string(CM_STATUS_RUNNING));
		fcr_record_touch(&S->rec, vobj);
		json_t *before = json_object_get(vobj, "before");
		for (size_t ai = 0; result == FCR_DONE && ai < v->n_actions; ai++) {
			json_t *a = json_array_get(before, ai);
			if (!fcr_has_status(a, CM_STATUS_DONE))
				result = perform_action(S, si, ai, v, rep_obj, a);
		}
		json_object_set_new(vobj, "status", json_string(fcr_outcome_status(result)));
		fcr_record_touch(&S->rec, vobj);
		fcr_record_save(&S->rec);
		if (S->rec.failed)
			return FCR_FATAL;
		if (result != FCR_DONE)
			return result;
	}
	return fcr_session_prefill(S, v);
}

/*
 * Unit k of round r's order (its entry `e`): its directory <state>/r<N>/<dir>
 * (an earlier attempt moved aside first), the variant's preparation, the
 * suite, and the unit's status saved when it ends, so that a resumed
 * session continues with the next unit.
 */
static enum fcr_outcome run_variant(struct fcr_session *S, size_t si, unsigned r, json_t *round_obj,
				    size_t k, const struct fcr_unit *u)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	json_t *e = json_array_get(json_object_get(round_obj, "order"), k);
	json_t *tests = json_object_get(round_obj, "tests");
	char *rel = cm_campaign_round_dir(st->name, st->repeat > 1 ? S->rep : 0, r, u->dir);
	char *abs = cm_asprintf("%s/%s", S->cdir, rel);
	json_t *where =
	    fcr_session_at(S, json_pack("{s:s, s:i}", "state", st->name, "round", (int)r));
	if (u->variant)
		json_object_set_new(where, "variant", json_string(u->variant->name));
	if (c->by_size)
		json_object_set_new(where, "size", json_string(u->size->text));
	char name[FCR_NAME_MAX_BYTES + 32], what[FCR_NAME_MAX_BYTES * 3 + 112];
	step_label(S, st, name, sizeof(name));
	char of[48];
	fcr_format_round_of(of, sizeof(of), r, st->rounds, steady_window(st));
	snprintf(what, sizeof(what), "%s r%s %s", name, of, u->label);
	enum fcr_outcome result = FCR_DONE;

	if (u->variant) {
		result = prepare_variant(S, si, u->variant_index);
		if (result != FCR_DONE) {
			if (result == FCR_FAILED) {
				json_object_set_new(e, "status", json_string(CM_STATUS_FAILED));
				json_object_set_new(
				    e, "error", json_string("the variant's preparation failed"));
				size_t first = k * fcr_state_runs(st);
				for (size_t j = 0; j < fcr_state_runs(st); j++)
					json_object_set_new(json_array_get(tests, first + j),
							    "status",
							    json_string(CM_STATUS_SKIPPED));
				fcr_record_touch(&S->rec, round_obj);
			}
			goto out;
		}
	}
	size_t first = k * fcr_state_runs(st);
	bool resume_point = continues_at_point(st, tests, first);
	if (resume_point ? continue_at_point(S, st, r, rel, tests, first, where, what) < 0
			 : attempt_dir(S, rel, e, where, what) < 0) {
		result = FCR_FATAL;
		goto out;
	}
	for (size_t j = 0; !resume_point && j < fcr_state_runs(st); j++)
		json_array_set_new(tests, first + j, fcr_manifest_run(c, u, st, S->fio.jobs, r, j));
	json_object_set_new(e, "status", json_string(CM_STATUS_RUNNING));
	json_object_set_new(e, "started", fcr_jutc(cm_wall_s()));
	json_object_del(e, "finished");
	json_object_del(e, "error");
	fcr_record_event(&S->rec, "variant-start", json_deep_copy(where));
	fcr_record_touch(&S->rec, round_obj);
	fcr_record_save(&S->rec);
	if (S->rec.failed) {
		result = FCR_FATAL;
		goto out;
	}
	use_unit(S, u);
	bool any_failed = false;
	result = run_tests(S, st, r, rel, round_obj, first, where, what, &any_failed);
	use_unit(S, NULL);
	if (result == FCR_FATAL)
		goto out;
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	for (size_t j = 0; j < fcr_state_runs(st); j++) {
		json_t *t = json_array_get(tests, first + j);
		if (fcr_has_status(t, CM_STATUS_PENDING))
			json_object_set_new(t, "status", json_string(CM_STATUS_SKIPPED));
	}
	fcr_fio_sync_outputs(abs);
	json_object_set_new(e, "status", json_string(fcr_outcome_status(result)));
	json_object_set_new(e, "finished", fcr_jutc(cm_wall_s()));
	json_t *end_ev = json_deep_copy(where);
	json_object_set_new(end_ev, "status", json_string(fcr_outcome_status(result)));
	fcr_record_touch(&S->rec, round_obj);
	fcr_record_commit(&S->rec, "variant-end", end_ev);
	if (S->rec.failed)
		result = FCR_FATAL;
out:
	json_decref(where);
	free(rel);
	free(abs);
	return result;
}

/* The unit an entry of a round's order names. */
static size_t unit_of_entry(const struct fcr_campaign *c, json_t *e)
{
	const char *v = fcr_jstr(e, "variant"), *size = fcr_jstr(e, "size");
	for (size_t i = 0; i < c->n_units; i++) {
		const struct fcr_unit *u = &c->units[i];
		if ((u->variant ? v && !strcmp(v, u->variant->name) : !v) &&
		    (!c->by_size || (size && !strcmp(size, u->size->text))))
			return i;
	}
	return SIZE_MAX;
}

/* The units of round r in the order it recorded (`only`: that one alone),
 * each one not done yet. */
static enum fcr_outcome run_units(struct fcr_session *S, size_t si, unsigned r, json_t *round_obj,
				  size_t only)
{
	const struct fcr_campaign *c = S->c;
	json_t *order = json_object_get(round_obj, "order");
	enum fcr_outcome result = FCR_DONE;
	bool any_failed = false;
	for (size_t k = 0; k < json_array_size(order); k++) {
		json_t *e = json_array_get(order, k);
		size_t ui = unit_of_entry(c, e);
		if (ui == SIZE_MAX) {
			fcr_progress_problem("%s round %u: entry %zu of its order names no variant "
					     "of campaign.ini",
					     c->states[si].name, r, k + 1);
			return FCR_FATAL;
		}
		if ((only != SIZE_MAX && ui != only) || fcr_has_status(e, CM_STATUS_DONE))
			continue;
		enum fcr_outcome s = run_variant(S, si, r, round_obj, k, &c->units[ui]);
		if (s == FCR_FAILED && S->o->keep_going) {
			any_failed = true;
			continue;
		}
		if (s != FCR_DONE) {
			result = s;
			break;
		}
	}
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	return result;
}

/* ---- repetitions ---------------------------------------------------------- */

/*
 * rounds = until-steady MAX: after round r of the repetition at hand (run
 * now or by an earlier session), whether its rounds end with it: steady, or
 * the last.  Then the verdict goes into rep_obj's "steady", the journal and
 * the terminal, and once steady the rounds after r (all pending) are
 * dropped from the manifest.  A verdict an earlier session recorded ends
 * them too.
 */
static bool steady_ends(struct fcr_session *S, size_t si, json_t *rep_obj, unsigned r)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	if (!st->steady_max || r < st->steady_window)
		return false;
	if (json_is_object(json_object_get(rep_obj, "steady")))
		return true;
	json_t *v = fcr_steady_verdict(st, rep_obj, r);
	bool reached = json_is_true(json_object_get(v, "reached"));
	if (!reached && r < st->steady_max) {
		json_decref(v);
		return false;
	}
	json_object_set_new(rep_obj, "steady", v);
	json_t *rounds = json_object_get(rep_obj, "rounds");
	if (json_array_size(rounds) > r) {
		while (json_array_size(rounds) > r)
			json_array_remove(rounds, r);
		fcr_record_reshaped(&S->rec);
	}
	fcr_record_touch(&S->rec, rep_obj);
	char label[FCR_NAME_MAX_BYTES + 32];
	step_label(S, st, label, sizeof(label));
	char *line = fcr_steady_describe(v);
	fcr_progress_line("steady: %s %s", label, line);
	free(line);
	json_t *ev = fcr_session_at(S, json_pack("{s:s}", "state", st->name));
	json_object_update(ev, v);
	fcr_record_commit(&S->rec, "steady", ev);
	return true;
}

/* Whether round_obj's order has unit ui done. */
static bool unit_done_in(const struct fcr_campaign *c, json_t *round_obj, size_t ui)
{
	json_t *order = json_object_get(round_obj, "order");
	for (size_t k = 0; k < json_array_size(order); k++) {
		json_t *e = json_array_get(order, k);
		if (unit_of_entry(c, e) == ui)
			return fcr_has_status(e, CM_STATUS_DONE);
	}
	return false;
}

/* What was still pending of a repetition that failed is skipped. */
static void mark_rest_skipped(json_t *rep_obj)
{
	json_t *rounds = json_object_get(rep_obj, "rounds");
	for (size_t i = 0; i < json_array_size(rounds); i++) {
		json_t *r = json_array_get(rounds, i);
		if (fcr_has_status(r, CM_STATUS_PENDING))
			json_object_set_new(r, "status", json_string(CM_STATUS_SKIPPED));
		/* in the round that failed too: the units and tests after it */
		const char *parts[] = {"tests", "order"};
		for (size_t p = 0; p < CM_ARRAY_SIZE(parts); p++) {
			json_t *list = json_object_get(r, parts[p]);
			for (size_t j = 0; j < json_array_size(list); j++) {
				json_t *e = json_array_get(list, j);
				if (fcr_has_status(e, CM_STATUS_PENDING))
					json_object_set_new(e, "status",
							    json_string(CM_STATUS_SKIPPED));
			}
		}
	}
	json_t *before = json_object_get(rep_obj, "before");
	for (size_t i = 0; i < json_array_size(before); i++) {
		json_t *a = json_array_get(before, i);
		if (fcr_has_status(a, CM_STATUS_PENDING))
			json_object_set_new(a, "status", json_string(CM_STATUS_SKIPPED));
	}
	if (fcr_has_status(rep_obj, CM_STATUS_PENDING))
		json_object_set_new(rep_obj, "status", json_string(CM_STATUS_SKIPPED));
}

/* The barrier's number of repetition k of state si: every repetition of
 * every state counts, from 1 (fleet/link.h). */
static unsigned barrier_seq(const struct fcr_campaign *c, size_t si, unsigned k)
{
	unsigned seq = 0;
	for (size_t i = 0; i < si; i++)
		seq += c->states[i].repeat;
	return seq + k;
}

/*
 * In a fleet that keeps in step (sync = states): no host begins repetition
 * k of state si before every live host has ended the one before.  The wait
 * is journaled ("barrier").  FCR_INTERRUPTED when Ctrl-C (or the
 * supervisor's end) stopped it.
 */
static enum fcr_outcome fleet_barrier(struct fcr_session *S, size_t si, unsigned k)
{
	const struct fcr_state *st = &S->c->states[si];
	if (!fcr_fleet_linked() || S->c->sync == FCR_SYNC_NONE)
		return FCR_DONE;
	unsigned seq = barrier_seq(S->c, si, k);
	char label[FCR_NAME_MAX_BYTES + 32];
	step_label(S, st, label, sizeof(label));
	double waited = 0;
	int rc = fcr_fleet_barrier(seq, st->name, k, S->stop, &waited);
	json_t *ev = json_pack("{s:i, s:s, s:i, s:o}", "seq", (int)seq, "state", st->name,
			       "repetition", (int)k, "waited_s", fcr_jseconds(waited));
	if (rc)
		json_object_set_new(ev, "status", json_string(CM_STATUS_INTERRUPTED));
	fcr_record_event(&S->rec, "barrier", ev);
	if (rc) {
		fcr_progress_line("%s: interrupted while waiting for the fleet", label);
		return FCR_INTERRUPTED;
	}
	fcr_progress_line("%s: the fleet goes on (waited %.2fs)", label, waited);
	return S->rec.failed ? FCR_FATAL : FCR_DONE;
}

/*
 * Before a transition's first provider action, in a fleet whose hosts must
 * not transition at once on one place (parallel-transitions = no, and the
 * provider names what they contend for): waits for the lock of that place.
 * *key gets the lock held (caller unlocks and frees), NULL when none was
 * needed.  The wait is journaled ("transition-lock").
 */
static enum fcr_outcome fleet_lock(struct fcr_session *S, size_t si, char **key)
{
	const struct fcr_campaign *c = S->c;
	*key = NULL;
	if (!fcr_fleet_linked() || c->parallel_transitions || !S->prov_ready ||
	    !c->provider->contention_key)
		return FCR_DONE;
	char *k = c->provider->contention_key(S->prov);
	if (!k)
		return FCR_DONE;
	double waited = 0;
	int rc = fcr_fleet_lock(k, S->stop, &waited);
	json_t *ev = fcr_session_at(S, json_pack("{s:s, s:s, s:o}", "state", c->states[si].name,
						 "key", k, "waited_s", fcr_jseconds(waited)));
	if (rc)
		json_object_set_new(ev, "status", json_string(CM_STATUS_INTERRUPTED));
	fcr_record_event(&S->rec, "transition-lock", ev);
	if (rc) {
		free(k);
		return FCR_INTERRUPTED;
	}
	if (waited >= 0.05)
		fcr_progress_line("%s: waited %.2fs for another host's transition (%s)",
				  c->states[si].name, waited, k);
	*key = k;
	return S->rec.failed ? FCR_FATAL : FCR_DONE;
}

/*
 * One repetition of state si (S->rep; 0 for a state that does not repeat,
 * whose own object is rep_obj): its actions, then its rounds.  `cut_short`:
 * an earlier session began it.
 */
static enum fcr_outcome run_repetition(struct fcr_session *S, size_t si, json_t *rep_obj,
				       bool cut_short)
{
	const struct fcr_state *st = &S->c->states[si];
	if (fcr_has_status(rep_obj, CM_STATUS_DONE))
		return FCR_DONE;
	enum fcr_outcome waited = fleet_barrier(S, si, S->rep ? S->rep : 1);
	if (waited != FCR_DONE)
		return waited;
	if (S->rep) {
		json_object_set_new(rep_obj, "status", json_string(CM_STATUS_RUNNING));
		if (!json_object_get(rep_obj, "started"))
			json_object_set_new(rep_obj, "started", fcr_jutc(cm_wall_s()));
		json_object_del(rep_obj, "finished");
		fcr_record_event(
		    &S->rec, "repetition-start",
		    json_pack("{s:s, s:i}", "state", st->name, "repetition", (int)S->rep));
		fcr_record_touch(&S->rec, rep_obj);
		fcr_record_save(&S->rec);
		fcr_progress_line("%s: repetition %u/%u", st->name, S->rep, st->repeat);
		fcr_status_at(&(struct fcr_status_where){si, st->name, S->rep, st->repeat, 0,
							 st->rounds, steady_window(st)});
	}
	enum fcr_outcome result = FCR_DONE;
	/* in a fleet, from its first provider action to its last one the
	 * transition may have to wait for another host's (fleet_lock) */
	size_t last_prov = SIZE_MAX;
	for (size_t ai = 0; ai < st->n_actions; ai++) {
		if (st->actions[ai].from_provider)
			last_prov = ai;
	}
	char *key = NULL;
	if (cut_short) {
		/* the power-off it may repeat is a provider's transition too */
		if (last_prov != SIZE_MAX)
			result = fleet_lock(S, si, &key);
		if (result == FCR_DONE)
			result = fcr_resume_restore_power(S, si, rep_obj);
		if (key) {
			fcr_fleet_unlock(key);
			free(key);
			key = NULL;
		}
	}
	json_t *before = json_object_get(rep_obj, "before");
	for (size_t ai = 0; result == FCR_DONE && ai < st->n_actions; ai++) {
		json_t *a = json_array_get(before, ai);
		if (fcr_has_status(a, CM_STATUS_DONE))
			continue;
		if (!key && st->actions[ai].from_provider && ai <= last_prov) {
			result = fleet_lock(S, si, &key);
			if (result != FCR_DONE)
				break;
		}
		enum fcr_outcome s = perform_action(S, si, ai, NULL, rep_obj, a);
		if (key && ai == last_prov) {
			fcr_fleet_unlock(key);
			free(key);
			key = NULL;
		}
		if (s != FCR_DONE) {
			result = s;
			break;
		}
	}
	if (key)
		fcr_fleet_unlock(key);
	free(key);
	if (result == FCR_DONE) {
		char where[FCR_NAME_MAX_BYTES + 32];
		if (S->rep)
			snprintf(where, sizeof(where), "state %s rep %u", st->name, S->rep);
		else
			snprintf(where, sizeof(where), "state %s", st->name);
		fcr_session_environment(S, rep_obj, where);
	}
	bool ran_round = false;
	bool any_failed = false;
	json_t *rounds = json_object_get(rep_obj, "rounds");
	const struct fcr_campaign *c = S->c;
	/* order = sequential: all rounds of one unit, then the next */
	bool seq = fcr_campaign_has_units(c) && c->order == FCR_ORDER_SEQUENTIAL;
	/* until steady: rounds a steady verdict dropped are not in the manifest */
	unsigned n_rounds = st->rounds;
	if (json_array_size(rounds) < n_rounds)
		n_rounds = (unsigned)json_array_size(rounds);
	if (result == FCR_DONE && st->steady_max && !json_object_get(rep_obj, "steady")) {
		char label[FCR_NAME_MAX_BYTES + 32];
		step_label(S, st, label, sizeof(label));
		fcr_progress_line("%s: %u to %u rounds, until the last %u are steady", label,
				  st->steady_window, st->steady_max, st->steady_window);
	}
	for (size_t only = 0; only < (seq ? c->n_units : 1); only++) {
		for (unsigned r = 1; result == FCR_DONE && r <= n_rounds; r++) {
			json_t *round_obj = json_array_get(rounds, r - 1);
			fcr_status_at(&(struct fcr_status_where){si, st->name, S->rep, st->repeat,
								 r, st->rounds, steady_window(st)});
			if (fcr_has_status(round_obj, CM_STATUS_DONE) ||
			    (seq && unit_done_in(c, round_obj, only))) {
				if (steady_ends(S, si, rep_obj, r))
					break;
				continue;
			}
			/* past the minimum the ETA counted (engine.c) */
			if (st->steady_max && r > st->steady_window)
				fcr_status_add_work((unsigned)fcr_manifest_round_tests(c, st),
						    ran_round, 0);
			uint64_t pause_ms = 0;
			if (ran_round && c->pause_ms) {
				pause_ms = c->pause_ms;
				fcr_record_event_lazy(
				    &S->rec, "pause",
				    fcr_session_at(
					S, json_pack("{s:s, s:i, s:o}", "state", st->name, "round",
						     (int)r, "duration_s",
						     fcr_jseconds((double)pause_ms / 1000))));
			}
			if (r > 1)
				fcr_status_pause_done();
			enum fcr_outcome s =
			    run_round(S, si, r, round_obj, pause_ms, seq ? only : SIZE_MAX);
			ran_round = true;
			if (s == FCR_FAILED && S->o->keep_going) {
				any_failed = true;
				if (steady_ends(S, si, rep_obj, r))
					break;
				continue;
			}
			if (s != FCR_DONE)
				result = s;
			else if (steady_ends(S, si, rep_obj, r))
				break;
			if (S->rec.failed)
				result = FCR_FATAL;
		}
	}
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	/* rounds a sequential campaign left between units end with the repetition */
	for (size_t i = 0; result != FCR_DONE && i < json_array_size(rounds); i++) {
		json_t *ro = json_array_get(rounds, i);
		if (fcr_has_status(ro, CM_STATUS_RUNNING))
			json_object_set_new(ro, "status", json_string(fcr_outcome_status(result)));
	}
	if (result == FCR_FAILED)
		mark_rest_skipped(rep_obj);
	/* rounds, tests and actions of it that changed on the way out */
	if (result != FCR_DONE)
		fcr_record_touch_all(&S->rec, rep_obj);
	if (S->rep) {
		const char *status = fcr_outcome_status(result);
		json_object_set_new(rep_obj, "status", json_string(status));
		json_object_set_new(rep_obj, "finished", fcr_jutc(cm_wall_s()));
		json_t *ev = json_pack("{s:s, s:i, s:s, s:O, s:O}", "state", st->name, "repetition",
				       (int)S->rep, "status", status, "downtime_s",
				       json_object_get(rep_obj, "downtime_s"), "data_back_s",
				       json_object_get(rep_obj, "data_back_s"));
		fcr_session_cut_marks(rep_obj, ev);
		fcr_record_touch(&S->rec, rep_obj);
		fcr_record_commit(&S->rec, "repetition-end", ev);
	}
	if (S->rec.failed)
		return FCR_FATAL;
	return result;
}

/* ---- states -------------------------------------------------------------- */

enum fcr_outcome fcr_session_run_state(struct fcr_session *S, size_t si)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	json_t *state_obj = json_array_get(json_object_get(S->rec.m, "states"), si);
	S->si = si;
	S->rep = 0;
	fcr_status_at(&(struct fcr_status_where){si, st->name, 0, st->repeat, 0, st->rounds,
						 steady_window(st)});
	if (fcr_has_status(state_obj, CM_STATUS_DONE))
		return FCR_DONE;
	bool began = !fcr_has_status(state_obj, CM_STATUS_PENDING);
	json_object_set_new(state_obj, "status", json_string(CM_STATUS_RUNNING));
	fcr_record_event_lazy(&S->rec, "state-start",
			      json_pack("{s:s, s:i}", "state", st->name, "index", (int)si));
	fcr_record_touch(&S->rec, state_obj);
	fcr_record_save(&S->rec);
	fcr_progress_line("state %zu/%zu: %s", si + 1, c->n_states, st->name);
	enum fcr_outcome result = FCR_DONE;
	bool any_failed = false;
	for (unsigned k = 1; k <= st->repeat; k++) {
		S->rep = st->repeat > 1 ? k : 0;
		json_t *rep_obj = fcr_manifest_rep(state_obj, k);
		bool cut_short =
		    S->resumed &&
		    (st->repeat > 1 ? !fcr_has_status(rep_obj, CM_STATUS_PENDING) : began);
		enum fcr_outcome s = run_repetition(S, si, rep_obj, cut_short);
		if (s == FCR_FAILED && S->o->keep_going) {
			any_failed = true;
			/* the next repetition must not find the machine off */
			if (k < st->repeat && S->maybe_down && S->prov_ready &&
			    fcr_safety_power_on(S, "a repetition failed; --keep-going goes on") <
				0) {
				result = FCR_FATAL;
				break;
			}
			continue;
		}
		if (s != FCR_DONE) {
			result = s;
			break;
		}
	}
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	if (result == FCR_FAILED) {
		for (size_t k = 1; k <= st->repeat; k++)
			mark_rest_skipped(fcr_manifest_rep(state_obj, k));
		fcr_record_touch_all(&S->rec, state_obj);
	}
	S->rep = 0;
	const char *status = fcr_outcome_status(result);
	json_object_set_new(state_obj, "status", json_string(status));
	json_t *ev = json_pack("{s:s, s:s}", "state", st->name, "status", status);
	if (st->repeat == 1) {
		json_object_set(ev, "downtime_s", json_object_get(state_obj, "downtime_s"));
		json_object_set(ev, "data_back_s", json_object_get(state_obj, "data_back_s"));
		fcr_session_cut_marks(state_obj, ev);
	}
	fcr_record_touch(&S->rec, state_obj);
	fcr_record_commit(&S->rec, "state-end", ev);
	if (S->rec.failed)
		return FCR_FATAL;
	return result;
}
