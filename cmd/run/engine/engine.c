/* SPDX-License-Identifier: MIT */
/*
 * A campaign's session from end to end: the campaign directory created (or
 * reopened on --resume), the provider opened and its preflight, the target's
 * preflight and prefill, then the states one after the other
 * (fcr_session_run_state, state.c), and at the end the test files, the
 * manifest's last word and the closing report.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/session.h"
#include "fleet/link.h"
#include "util/status.h"
#include "machine/probe.h"
#include "machine/spawn.h"

static void count_work(struct fcr_session *S)
{
	const struct fcr_campaign *c = S->c;
	json_t *states = json_object_get(S->rec.m, "states");
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *s = json_array_get(states, si);
		if (fcr_has_status(s, CM_STATUS_DONE))
			continue;
		for (size_t k = 1; k <= st->repeat; k++) {
			json_t *rep = fcr_manifest_rep(s, k);
			unsigned left = 0;
			/* until steady: the fewest rounds; those after the window are
			 * added as they begin (state.c) */
			unsigned planned = st->steady_max ? st->steady_window : st->rounds;
			for (unsigned r = 0; r < planned; r++) {
				if (!fcr_has_status(
					json_array_get(json_object_get(rep, "rounds"), r),
					CM_STATUS_DONE))
					left++;
			}
			unsigned per_round = (unsigned)fcr_manifest_round_tests(c, st);
			fcr_status_add_work(left * per_round, left ? left - 1 : 0, 0);
			for (size_t ai = 0; ai < st->n_actions; ai++) {
				const struct fcr_step *a = &st->actions[ai];
				if (a->def->duration_ms &&
				    !fcr_has_status(
					json_array_get(json_object_get(rep, "before"), ai),
					CM_STATUS_DONE))
					fcr_status_add_work(0, 0, a->def->duration_ms(a));
			}
			/* each variant's own before, at its first use in a state with rounds */
			json_t *vs = json_object_get(rep, "variants");
			for (size_t vi = 0; st->rounds && vi < c->n_variants; vi++) {
				const struct fcr_variant *v = &c->variants[vi];
				json_t *vb = json_object_get(json_array_get(vs, vi), "before");
				for (size_t ai = 0; ai < v->n_actions; ai++) {
					const struct fcr_step *a = &v->actions[ai];
					if (a->def->duration_ms &&
					    !fcr_has_status(json_array_get(vb, ai), CM_STATUS_DONE))
						fcr_status_add_work(0, 0, a->def->duration_ms(a));
				}
			}
		}
	}
}

static int create_campaign_dir(struct fcr_session *S, struct fcr_error *err)
{
	return fcr_record_create_dir(S->o->out_dir, S->c, &S->cdir, err);
}

static void provider_journal(void *opaque, json_t *event)
{
	struct fcr_session *S = opaque;
	if (!S->journal_ready) {
		/* before the campaign directory exists nothing is worth keeping */
		json_decref(event);
		return;
	}
	const char *name = fcr_jstr(event, "event");
	char *copy = cm_strdup(name ? name : "provider");
	json_object_del(event, "event");
	/* which action it belongs to, for a resume to find its writes */
	if (S->ai >= 0)
		json_object_set_new(
		    event, "at",
		    fcr_session_at(S, json_pack("{s:s, s:i}", "state", S->c->states[S->si].name,
						"index", S->ai)));
	fcr_record_event(&S->rec, copy, event);
	free(copy);
}

static void provider_note(void *opaque, const char *level, const char *text)
{
	struct fcr_session *S = opaque;
	if (!strcmp(level, "problem")) {
		/* refusals are shown even with --quiet */
		fcr_progress_clear();
		fprintf(stderr, "%s: PROBLEM: %s\n", S->c->provider_type, text);
	} else if (!strcmp(level, "warning")) {
		fcr_progress_line("%s: warning: %s", S->c->provider_type, text);
	} else {
		fcr_progress_line("%s: %s", S->c->provider_type, text);
	}
	if (S->journal_ready)
		fcr_record_event(&S->rec, "provider-note",
				 json_pack("{s:s, s:s, s:s}", "provider", S->c->provider_type,
					   "level", level, "text", text));
}

/*
 * The provider's turns with what the hosts of a fleet share (provider.h):
 * a turn is short (one request), so only a second Ctrl-C stops the wait,
 * and the safety power-on gets its turn too.  With the supervisor gone the
 * host is alone: it goes on.
 */
static int provider_lock(void *opaque, const char *key)
{
	struct fcr_session *S = opaque;
	double waited;
	int rc = fcr_fleet_lock(key, S->hard_stop, &waited);
	if (S->journal_ready && waited >= 0.05)
		fcr_record_event(
		    &S->rec, "provider-lock",
		    json_pack("{s:s, s:o}", "key", key, "waited_s", fcr_jseconds(waited)));
	return rc == 1 ? FCR_E_STOPPED : 0;
}

static void provider_unlock(void *opaque, const char *key)
{
	(void)opaque;
	fcr_fleet_unlock(key);
}

/* The provider's configuration and credentials: before anything is created. */
static int open_provider(struct fcr_session *S, struct fcr_error *err)
{
	const struct fcr_campaign *c = S->c;
	S->pctx = (struct fcr_provider_ctx){
	    .journal = provider_journal,
	    .note = provider_note,
	    .opaque = S,
	    .stop = S->stop,
	    .hard_stop = S->hard_stop,
	    .lock = fcr_fleet_linked() ? provider_lock : NULL,
	    .unlock = fcr_fleet_linked() ? provider_unlock : NULL,
	};
	struct fcr_provider_section sec = fcr_campaign_provider_section(c);
	struct cm_strv problems = {0};
	if (c->provider->configure(&sec, &S->pctx, &S->prov, &problems) < 0) {
		/* the campaign file was checked already: the first problem says it */
		fcr_fail(err, "%s", problems.n ? problems.v[0] : "the provider refused its keys");
		cm_strv_release(&problems);
		return -1;
	}
	cm_strv_release(&problems);
	S->prov_ready = true;
	return c->provider->connect(S->prov, err);
}

/* The provider's preflight, with every provider action and what earlier
 * sessions made of it. */
static int provider_preflight(struct fcr_session *S, struct fcr_error *err)
{
	const struct fcr_campaign *c = S->c;
	struct fcr_provider_step *steps = NULL;
	size_t n = 0;
	json_t *states = json_object_get(S->rec.m, "states");
	json_t *writes = fcr_resume_writes(S);
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		for (size_t k = 1; k <= st->repeat; k++) {
			json_t *before = json_object_get(
			    fcr_manifest_rep(json_array_get(states, si), k), "before");
			for (size_t ai = 0; ai < st->n_actions; ai++) {
				const struct fcr_step *a = &st->actions[ai];
				if (!a->from_provider)
					continue;
				json_t *obj = json_array_get(before, ai);
				const char *status = fcr_jstr(obj, "status");
				steps = cm_realloc(steps, n + 1, sizeof(*steps));
				steps[n++] = (struct fcr_provider_step){
				    .state = st->name,
				    .action = a->words.v[0],
				    .argc = (int)a->words.n - 1,
				    .argv = a->words.v + 1,
				    .args = a->args,
				    .file = c->source,
				    .line = a->line,
				    .repetition = st->repeat > 1 ? (unsigned)k : 0,
				    .status = status ? status : CM_STATUS_PENDING,
				    .result = json_object_get(obj, "result"),
				    .recorded = obj,
				    .journal = fcr_resume_step_writes(writes, st->name,
								      st->repeat > 1 ? k : 0, ai),
				};
			}
		}
	}
	struct fcr_error pe = {0};
	int rc = c->provider->preflight(S->prov, steps, n, &pe);
	free(steps);
	json_decref(writes);
	if (rc < 0)
		return fcr_fail(err, "provider %s: %s", c->provider_type, pe.msg);
	return 0;
}

/*
 * The test file at the end: a campaign done removes it (a file of
 * gigabytes must not stay behind on a rented server) unless keep-file =
 * yes; one that failed or was interrupted keeps it for --resume.  Journaled;
 * returns the line that says which (caller frees), or NULL without a test
 * file.
 */
static char *one_test_file_end(struct fcr_session *S, const char *path, enum fcr_outcome result);

static char *test_file_end(struct fcr_session *S, enum fcr_outcome result)
{
	/* each place's test file; a device is left as it is */
	struct fcr_place places[FCR_VARIANTS_MAX];
	size_t n = fcr_target_places(&S->tgt, places);
	struct cm_buf lines = {0};
	for (size_t i = 0; i < n; i++) {
		if (!places[i].directory)
			continue;
		char *line = one_test_file_end(S, places[i].test_file, result);
		if (line)
			cm_buf_printf(&lines, "%s%s", lines.len ? "; " : "", line);
		free(line);
	}
	return lines.s;
}

static char *one_test_file_end(struct fcr_session *S, const char *path, enum fcr_outcome result)
{
	if (!path)
		return NULL;
	const char *what = "kept";
	char *line;
	struct fcr_error err = {0};
	if (result != FCR_DONE) {
		line = cm_asprintf("the test file %s is kept for --resume", path);
	} else if (S->c->keep_file) {
		line = cm_asprintf("the test file %s is kept (keep-file = yes)", path);
	} else if (fcr_target_remove_file(&S->tgt, path, &err) < 0) {
		what = "failed";
		line = cm_asprintf("the test file %s could not be removed: %s", path, err.msg);
	} else {
		what = "removed";
		line = cm_asprintf("the test file %s is removed (keep-file = yes keeps it)", path);
	}
	json_t *ev = json_pack("{s:s, s:s}", "path", path, "status", what);
	if (err.msg[0])
		fcr_jset_text(ev, "error", err.msg);
	fcr_record_event(&S->rec, "test-file", ev);
	return line;
}

int fcr_engine_run(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct fcr_session S_ = {.c = c, .o = o, .ai = -1}, *S = &S_;
	struct fcr_error err;
	fcr_safety_init(S);
	/* a host of a fleet: its supervisor draws the status line */
	if (fcr_fleet_link_open() > 0)
		fcr_status_sink(fcr_fleet_status);
	fcr_status_begin(c->n_states, c->runtime_ms, c->pause_ms);
	fcr_progress_init(o->quiet		  ? FCR_PROGRESS_QUIET
			  : isatty(STDERR_FILENO) ? FCR_PROGRESS_TTY
						  : FCR_PROGRESS_PLAIN);
	int exit_code = FCR_EXIT_FAILED;
	if (fcr_session_jobs(S, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	if (fcr_aggregate_mode(c)) {
		/* what this mode cannot do is said before anything is made */
		struct cm_strv problems = {0};
		if (fcr_aggregate_check(c, &problems) < 0 || fcr_aggregate_open(S, &problems) < 0) {
			for (size_t i = 0; i < problems.n; i++)
				fprintf(stderr, "%s\n", problems.v[i]);
			cm_strv_release(&problems);
			fcr_session_release(S);
			return FCR_EXIT_USAGE;
		}
		cm_strv_release(&problems);
	}
	bool resume = o->resume_dir != NULL;
	S->resumed = resume;
	S->session_wall = cm_wall_s();
	S->restored_down_wall = NAN;
	if (resume) {
		S->cdir = cm_strdup(o->resume_dir);
		if (fcr_resume_check_dir(S->cdir, &err) < 0 ||
		    fcr_record_open(&S->rec, S->cdir, &err) < 0 || fcr_resume_load(S, &err) < 0) {
			fprintf(stderr, "fiocamp-run: cannot resume: %s\n", err.msg);
			fcr_session_release(S);
			return FCR_EXIT_USAGE;
		}
	}
	bool complete = resume && fcr_has_status(S->rec.m, CM_STATUS_DONE);
	if (resume && !complete && fcr_resume_check_jobs(S, &err) < 0) {
		fprintf(stderr, "fiocamp-run: cannot resume: %s\n", err.msg);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	/* credentials before anything is created: a bad token file is a usage error */
	if (!complete && open_provider(S, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	if (!resume) {
		if (create_campaign_dir(S, &err) < 0) {
			fprintf(stderr, "fiocamp-run: %s\n", err.msg);
			fcr_session_release(S);
			return FCR_EXIT_USAGE;
		}
		if (fcr_record_open(&S->rec, S->cdir, &err) < 0) {
			fprintf(stderr, "fiocamp-run: %s\n", err.msg);
			fcr_session_release(S);
			return FCR_EXIT_FAILED;
		}
		S->rec.session = 1;
		S->rec.m = fcr_manifest_new(c, S->fio.jobs, o->campaign_path);
	}
	S->journal_ready = true;
	S->fio.cdir = S->cdir;
	fcr_safety_signals();
	fcr_record_event(&S->rec, resume ? "resume" : "campaign-start",
			 json_pack("{s:s, s:s, s:b}", "campaign", c->name, "directory", S->cdir,
				   "keep_going", o->keep_going));
	if (complete) {
		fcr_progress_line("%s: the campaign is complete; nothing left to do", S->cdir);
		fcr_record_event(&S->rec, "campaign-end",
				 json_pack("{s:s}", "status", CM_STATUS_DONE));
		if (!o->quiet)
			fcr_report_print(S);
		fcr_session_release(S);
		return FCR_EXIT_OK;
	}
	json_object_set_new(S->rec.m, "status", json_string(CM_STATUS_RUNNING));
	fcr_record_touch(&S->rec, S->rec.m);
	if (fcr_record_save(&S->rec) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", S->rec.err.msg);
		fcr_session_release(S);
		return FCR_EXIT_FAILED;
	}
	fcr_progress_line("campaign %s: %s%s", c->name, S->cdir, resume ? " (resumed)" : "");

	const char *final = CM_STATUS_FAILED;
	enum fcr_outcome result = FCR_DONE;
	if (fcr_target_init(&S->tgt, c, S->stop, S->hard_stop, &err) < 0) {
		fcr_progress_problem("%s", err.msg);
		fcr_session_failure(S, "target", err.msg);
		result = FCR_FAILED;
		goto end;
	}
	if (resume) {
		S->maybe_down = fcr_safety_maybe_down(S);
		fcr_target_mux_hold(&S->tgt, S->maybe_down);
		/* an ssh target can only be checked once the machine is back */
		if (S->maybe_down && c->target == FCR_TARGET_SSH &&
		    fcr_safety_power_on(S, "resuming a transition that was cut short") < 0) {
			fcr_session_failure(S, "resume", "the machine could not be brought back");
			result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
			goto end;
		}
	}
	/* one fio per target: none of a dead session's may run beside ours */
	if (resume && fcr_resume_reap(S, &err) < 0) {
		fcr_progress_problem("%s", err.msg);
		fcr_session_failure(S, "leftover-fio", err.msg);
		result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
		goto end;
	}
	if (S->agg) {
		/* resume: a server a killed session left stops before ours starts */
		if ((resume && fcr_aggregate_reap(S, &err) < 0) ||
		    fcr_aggregate_preflight(S, &err) < 0 || fcr_aggregate_start(S, &err) < 0) {
			fcr_progress_problem("preflight failed: %s", err.msg);
			fcr_session_failure(S, "preflight", err.msg);
			result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
			goto end;
		}
	} else {
		char *fio_version = NULL;
		json_t *host = json_object();
		fcr_progress_line("preflight: %s", c->target_text);
		if (fcr_target_preflight(&S->tgt, host, &fio_version, &err) < 0) {
			json_decref(host);
			fcr_progress_problem("preflight failed: %s", err.msg);
			fcr_session_failure(S, "preflight", err.msg);
			result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
			goto end;
		}
		if (fcr_target_check_places(&S->tgt, &err) < 0) {
			json_decref(host);
			free(fio_version);
			fcr_progress_problem("preflight failed: %s", err.msg);
			fcr_session_failure(S, "preflight", err.msg);
			result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
			goto end;
		}
		json_object_set_new(S->rec.m, "fio_version", fcr_jtext(fio_version));
		json_object_set_new(S->rec.m, "host", host);
		fcr_record_event(&S->rec, "preflight",
				 json_pack("{s:O, s:O, s:s*}", "fio_version",
					   json_object_get(S->rec.m, "fio_version"), "host", host,
					   "remote_dir", S->tgt.remote_tmp));
		free(fio_version);
		fcr_session_environment(S, NULL, "preflight");
	}
	if (provider_preflight(S, &err) < 0) {
		fcr_progress_clear();
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		fcr_session_failure(S, "provider", err.msg);
		result = *S->stop ? FCR_INTERRUPTED : FCR_FAILED;
		goto end;
	}
	fcr_record_touch(&S->rec, S->rec.m); /* fio's version, the host */
	fcr_record_save(&S->rec);
	count_work(S);

	/* the campaign's own place now; a variant's at its first use (state.c) */
	if (!c->n_variants)
		result = fcr_session_prefill(S, NULL);
	bool any_failed = result == FCR_FAILED;
	if (result == FCR_FATAL || (result == FCR_FAILED && !o->keep_going))
		goto end;
	result = FCR_DONE;
	for (size_t si = 0; si < c->n_states; si++) {
		enum fcr_outcome s = fcr_session_run_state(S, si);
		if (s == FCR_FAILED) {
			any_failed = true;
			/* the next states must not find the machine off */
			if (o->keep_going && S->maybe_down && S->prov_ready &&
			    fcr_safety_power_on(S, "a state failed; --keep-going goes on") < 0)
				s = FCR_FATAL;
			else if (o->keep_going)
				continue;
		}
		if (s != FCR_DONE) {
			result = s;
			break;
		}
	}
	if (result == FCR_DONE && any_failed)
		result = FCR_FAILED;
	if (result == FCR_DONE)
		final = CM_STATUS_DONE;
	/* as the campaign file wants it, but worth saying */
	if (result == FCR_DONE && S->maybe_down && S->prov_ready)
		provider_note(S, "warning",
			      "the campaign ends with the machine taken away (no wait-ssh saw it "
			      "back after the last power-off, reboot or revert)");
end:
	/* what follows starts on a line of its own */
	fcr_progress_end();
	if (S->rec.failed) {
		fprintf(stderr, "fiocamp-run: %s\n", S->rec.err.msg);
		result = FCR_FATAL;
	}
	if (result == FCR_INTERRUPTED || (*S->stop && result != FCR_DONE)) {
		final = CM_STATUS_INTERRUPTED;
		exit_code = FCR_EXIT_INTERRUPTED;
	} else if (result == FCR_DONE) {
		exit_code = FCR_EXIT_OK;
	}
	/* mark whatever was left running */
	json_t *states = json_object_get(S->rec.m, "states");
	for (size_t si = 0; si < json_array_size(states); si++) {
		json_t *s = json_array_get(states, si);
		for (size_t k = 1;
		     s && json_object_get(s, "repetitions") && k <= fcr_manifest_reps(s); k++) {
			json_t *rep = fcr_manifest_rep(s, k);
			if (fcr_has_status(rep, CM_STATUS_RUNNING))
				json_object_set_new(rep, "status", json_string(final));
			fcr_record_touch(&S->rec, rep);
		}
		if (fcr_has_status(s, CM_STATUS_RUNNING))
			json_object_set_new(s, "status", json_string(final));
		fcr_record_touch(&S->rec, s);
	}
	if (S->maybe_down && S->prov_ready && result != FCR_DONE) {
		fcr_record_save(&S->rec);
		fcr_safety_power_on(S, *S->stop ? "interrupted" : "the campaign failed");
	}
	/* the servers of mode = aggregate: after a failure and Ctrl-C too */
	fcr_aggregate_stop(S);
	char *file_note = S->agg ? fcr_aggregate_end(S, result) : test_file_end(S, result);
	fcr_target_cleanup(&S->tgt);
	json_object_set_new(S->rec.m, "status", json_string(final));
	fcr_record_touch(&S->rec, S->rec.m);
	json_t *end_ev = json_pack("{s:s, s:o}", "status", final, "elapsed_s",
				   fcr_jseconds(fcr_status_elapsed_s()));
	/* what stopped it: the fleet's supervisor went away */
	if (fcr_fleet_lost())
		json_object_set_new(end_ev, "supervisor_gone", json_true());
	fcr_record_event(&S->rec, "campaign-end", end_ev);
	/* whole: the session leaves manifest.json exact */
	if (fcr_record_save_whole(&S->rec) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", S->rec.err.msg);
		if (exit_code == FCR_EXIT_OK)
			exit_code = FCR_EXIT_FAILED;
	}
	char el[32];
	fcr_format_clock(el, sizeof(el), fcr_status_elapsed_s());
	if (exit_code == FCR_EXIT_INTERRUPTED) {
		fprintf(
		    stderr,
		    "fiocamp-run: interrupted after %s; continue with: fiocamp-run --resume %s\n",
		    el, S->cdir);
	} else if (exit_code != FCR_EXIT_OK) {
		fprintf(stderr,
			"fiocamp-run: the campaign failed after %s (details in %s/manifest.json); "
			"after fixing the cause: fiocamp-run --resume %s\n",
			el, S->cdir, S->cdir);
	} else {
		fcr_progress_line("campaign %s done in %s: %s", c->name, el, S->cdir);
	}
	if (file_note) {
		/* a failure's lines go to stderr even with --quiet: so does this one */
		if (exit_code == FCR_EXIT_OK)
			fcr_progress_line("%s", file_note);
		else
			fprintf(stderr, "fiocamp-run: %s\n", file_note);
	}
	free(file_note);
	if (!o->quiet &&
	    (exit_code == FCR_EXIT_OK || (o->keep_going && exit_code == FCR_EXIT_FAILED)))
		fcr_report_print(S);
	fcr_session_release(S);
	return exit_code;
}
