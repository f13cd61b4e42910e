/* SPDX-License-Identifier: MIT */
#include "engine/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fiocamp.h>

#include "campaign/jobs.h"
#include "target/probe.h"
#include "engine/progress.h"
#include "record/record.h"
#include "target/spawn.h"
#include "target/target.h"

/* Ctrl-C, SIGTERM and SIGHUP count here (an int is written atomically on Linux, and
 * the API of the helpers takes `volatile int *`). */
static volatile int g_interrupts;
static volatile int g_hard_stop; /* the second one: even copying back stops */

static void on_signal(int sig)
{
	(void)sig;
	g_interrupts++;
	if (g_interrupts >= 2)
		g_hard_stop = 1;
	if (g_interrupts >= 3)
		_exit(FCR_EXIT_INTERRUPTED); /* something hangs: leave now */
}

/* First guess of fio's own time beyond its runtime (start-up, layout,
 * report); replaced by what the runs measure. */
#define FIO_OVERHEAD_GUESS_S 0.3

enum step { STEP_OK = 0, STEP_FAILED = 1, STEP_INTERRUPTED = 2, STEP_FATAL = 3 };

struct runner {
	const struct fcr_campaign *c;
	const struct fcr_options *o;
	char *cdir;
	struct fcr_record rec;
	struct fcr_target tgt;
	struct fcr_jobfile *jobs; /* one per suite entry */
	struct fcr_jobfile prefill_job;
	void *prov;
	bool prov_ready;
	struct fcr_provider_ctx pctx;
	bool maybe_down; /* an action took the machine away and no wait-ssh saw it back */
	bool resumed;	 /* this session continues an earlier one */
	bool journal_ready;
	double session_wall;	   /* when this session began */
	double restored_down_wall; /* the power-off repeated on resume took the machine away */

	/* for the ETA */
	double fio_extra_s;
	unsigned fio_extra_n;
	unsigned tests_left;
	unsigned pauses_left;
	uint64_t settle_left_ms;
	double started_mono;
	double last_fio_end; /* mono time the last fio run ended */

	/* where we are, for the status line */
	size_t si;
	unsigned round;
	const char *test;
	double test_started;
	char iops[64];
};

/* ---- small helpers ------------------------------------------------------ */

static json_t *jget(json_t *o, const char *k)
{
	return json_object_get(o, k);
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void jset_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, v ? fcr_jtext(v) : json_null());
}

static bool status_is(json_t *o, const char *s)
{
	const char *st = jstr(o, "status");
	return st && !strcmp(st, s);
}

static void journal_failure(struct runner *R, const char *what, const char *msg)
{
	fcr_record_event(&R->rec, "error",
		     json_pack("{s:s, s:o}", "step", what, "message", fcr_jtext(msg)));
}

static void fmt_clock(char *buf, size_t len, double s)
{
	if (s < 0)
		s = 0;
	unsigned long t = (unsigned long)(s + 0.5);
	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, (t / 60) % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

static double fio_extra(const struct runner *R)
{
	return R->fio_extra_n ? R->fio_extra_s / R->fio_extra_n : FIO_OVERHEAD_GUESS_S;
}

static double eta_s(const struct runner *R)
{
	const struct fcr_campaign *c = R->c;
	double left = R->tests_left * ((double)c->runtime_ms / 1000.0 + fio_extra(R)) +
		      R->pauses_left * ((double)c->pause_ms / 1000.0) +
		      (double)R->settle_left_ms / 1000.0;
	if (R->test)
		left -= cm_mono_s() - R->test_started;
	return left < 0 ? 0 : left;
}

static void show_status(struct runner *R, const char *what, int force)
{
	if (fcr_progress_mode() != FCR_PROGRESS_TTY)
		return;
	char el[32], eta[32];
	fmt_clock(el, sizeof(el), cm_mono_s() - R->started_mono);
	fmt_clock(eta, sizeof(eta), eta_s(R));
	const struct fcr_campaign *c = R->c;
	if (R->si < c->n_states && R->round)
		fcr_progress_status(force,
				"state %zu/%zu %s | round %u/%u | %s | %s elapsed | ETA %s%s%s",
				R->si + 1, c->n_states, c->states[R->si].name, R->round, c->rounds,
				what, el, eta, R->iops[0] ? " | " : "", R->iops);
	else if (R->si < c->n_states)
		fcr_progress_status(force, "state %zu/%zu %s | before | %s | %s elapsed | ETA %s",
				R->si + 1, c->n_states, c->states[R->si].name, what, el, eta);
	else
		fcr_progress_status(force, "%s | %s elapsed | ETA %s%s%s", what, el, eta,
				R->iops[0] ? " | " : "", R->iops);
}

static void on_fio_status(void *opaque, const char *text)
{
	struct runner *R = opaque;
	snprintf(R->iops, sizeof(R->iops), "%s", text);
	show_status(R, R->test ? R->test : "fio", 0);
}

/* Waits `ms` with the status line ticking.  1 when interrupted. */
static int wait_ticking(struct runner *R, uint64_t ms, const char *what)
{
	double end = cm_mono_s() + (double)ms / 1000.0;
	for (;;) {
		double left = end - cm_mono_s();
		if (left <= 0)
			return 0;
		char label[96];
		snprintf(label, sizeof(label), "%s (%.0fs left)", what, ceil(left));
		show_status(R, label, 0);
		uint64_t chunk = left > 0.5 ? 500 : (uint64_t)(left * 1000.0) + 1;
		if (cm_sleep_ms(chunk, &g_interrupts))
			return 1;
	}
}

/* ---- the fio environment ------------------------------------------------ */

static void fio_env(const struct runner *R, const char *test, struct cm_strv *env)
{
	const struct fcr_campaign *c = R->c;
	cm_strv_addf(env, "FIOCAMP_FILE=%s", R->tgt.test_file);
	cm_strv_addf(env, "FIOCAMP_SIZE=%llu", (unsigned long long)c->size_bytes);
	cm_strv_addf(env, "FIOCAMP_RUNTIME=%llu", (unsigned long long)(c->runtime_ms / 1000));
	cm_strv_addf(env, "FIOCAMP_IOENGINE=%s", c->ioengine);
	cm_strv_addf(env, "FIOCAMP_DIRECT=%d", c->direct);
	cm_strv_addf(env, "FIOCAMP_TEST=%s", test);
}

/* ---- evaluating a fio run ----------------------------------------------- */

static int fsync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

/*
 * Makes every file of a run directory durable, then the directory itself.
 * Done once per round, before the manifest says "done", and not between
 * two fio runs, where it would add to the gap between them.
 */
static void sync_outputs(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		if (e->d_name[0] == '.')
			continue;
		char *p = cm_asprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISREG(st.st_mode))
			fsync_path(p);
		free(p);
	}
	closedir(d);
	fcr_fsync_dir(dir, NULL);
}

/* Logs fio wrote for `test` in `dir`, as paths relative to the campaign
 * directory, sorted. */
static json_t *list_logs(const char *dir_abs, const char *dir_rel, const char *test)
{
	json_t *arr = json_array();
	DIR *d = opendir(dir_abs);
	if (!d)
		return arr;
	struct cm_strv names = {0};
	size_t tl = strlen(test);
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		/* by the prefix fio put in front of "_iops.1.log": test "rr4k" does
		 * not own the logs of test "rr4k_qd1" */
		struct fc_log_name ln;
		if (fc_log_name_parse(e->d_name, &ln) == 0 && ln.prefix_len == tl &&
		    !strncmp(ln.prefix, test, tl))
			cm_strv_add(&names, e->d_name);
	}
	closedir(d);
	for (size_t i = 1; i < names.n; i++) {
		for (size_t j = i; j > 0 && strcmp(names.v[j - 1], names.v[j]) > 0; j--) {
			char *t = names.v[j];
			names.v[j] = names.v[j - 1];
			names.v[j - 1] = t;
		}
	}
	for (size_t i = 0; i < names.n; i++) {
		json_array_append_new(arr, json_sprintf("%s/%s", dir_rel, names.v[i]));
	}
	cm_strv_release(&names);
	return arr;
}

/* A line worth quoting from fio's stderr: its first "fio: " line, or the last. */
static void stderr_hint(const char *path, char *buf, size_t len)
{
	buf[0] = '\0';
	char *text;
	if (cm_read_file(path, 1024 * 1024, &text, NULL, NULL, 0) < 0)
		return;
	char *save = NULL, *last = NULL, *hit = NULL;
	for (char *l = strtok_r(text, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save)) {
		if (!*l)
			continue;
		if (!hit && !strncmp(l, "fio: ", 5) && !strstr(l, "terminating on signal"))
			hit = l;
		last = l;
	}
	if (hit || last)
		snprintf(buf, len, "%s", hit ? hit : last);
	free(text);
}

/* Reads fio's JSON; fills obj's iops and, on a problem, error text.  Returns
 * true when the report is complete and no job reported an error. */
static bool judge_report(const char *json_path, json_t *obj, char *why, size_t len)
{
	struct fc_output *out = NULL;
	struct fc_error ferr;
	int rc = fc_output_read_file(json_path, &out, &ferr);
	if (rc < 0 && !out) {
		char msg[512];
		fc_error_format(&ferr, msg, sizeof(msg));
		snprintf(why, len, "no JSON report (%s)", msg);
		return false;
	}
	bool ok = true;
	json_t *diags = json_array();
	for (size_t i = 0; i < out->n_diags && json_array_size(diags) < 10; i++) {
		const struct fc_diag *d = &out->diags[i];
		if (d->kind == FC_DIAG_FIO || d->kind == FC_DIAG_BROKEN || d->kind == FC_DIAG_NOTE)
			json_array_append_new(diags, fcr_jtext(d->text));
	}
	if (json_array_size(diags))
		json_object_set_new(obj, "diagnostics", diags);
	else
		json_decref(diags);
	if (!out->final) {
		snprintf(why, len, "fio's JSON report is incomplete");
		ok = false;
	} else {
		double iops = 0;
		for (size_t j = 0; j < out->final->n_jobs; j++) {
			const struct fc_job *job = &out->final->jobs[j];
			if (job->error && ok) {
				snprintf(why, len, "fio reported error %d (%s) in job %s",
					 job->error, strerror(job->error),
					 job->name ? job->name : "?");
				ok = false;
			}
			for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
				if (job->dir[d].present && isfinite(job->dir[d].iops))
					iops += job->dir[d].iops;
			}
		}
		if (out->final->n_jobs == 0 && ok) {
			snprintf(why, len, "fio's report lists no job");
			ok = false;
		}
		json_object_set_new(obj, "iops", json_real(round(iops * 1000) / 1000));
	}
	fc_output_free(out);
	return ok;
}

/*
 * One fio run: writes <name>.fio and <name>.env into dir, runs fio, records
 * everything in obj.  `what` labels the run in messages ("sparse r1 rr4k").
 */
static enum step fio_unit(struct runner *R, const char *dir_rel, const char *name,
			  const struct fcr_jobfile *job, json_t *obj, json_t *where, const char *what)
{
	struct fcr_error err;
	char *dir = cm_asprintf("%s/%s", R->cdir, dir_rel);
	char *job_rel = cm_asprintf("%s/%s.fio", dir_rel, name);
	char *env_rel = cm_asprintf("%s/%s.env", dir_rel, name);
	char *json_rel = cm_asprintf("%s/%s.json", dir_rel, name);
	char *stderr_rel = cm_asprintf("%s/%s.stderr", dir_rel, name);
	char *job_abs = cm_asprintf("%s/%s", R->cdir, job_rel);
	char *env_abs = cm_asprintf("%s/%s", R->cdir, env_rel);
	char *json_abs = cm_asprintf("%s/%s", R->cdir, json_rel);
	char *stderr_abs = cm_asprintf("%s/%s", R->cdir, stderr_rel);
	struct cm_strv env = {0};
	struct cm_strv argv = {0};
	enum step result = STEP_FAILED;
	fio_env(R, name, &env);
	struct cm_buf envtext = {0};
	for (size_t i = 0; i < env.n; i++) {
		cm_buf_puts(&envtext, env.v[i]);
		cm_buf_puts(&envtext, "\n");
	}
	json_object_set_new(obj, "status", json_string("running"));
	/* made durable with the other outputs when the round ends (sync_outputs) */
	if (fcr_write_file_nosync(job_abs, job->text, job->len, &err) < 0 ||
	    fcr_write_file_nosync(env_abs, envtext.s, envtext.len, &err) < 0) {
		cm_buf_release(&envtext);
		json_object_set_new(obj, "status", json_string("failed"));
		jset_str(obj, "error", err.msg);
		fcr_progress_line("%s: %s", what, err.msg);
		goto out;
	}
	cm_buf_release(&envtext);
	jset_str(obj, "job", job_rel);
	jset_str(obj, "env", env_rel);

	fcr_target_fio_argv(&R->tgt, name, env.v, &argv);
	json_t *ev = json_deep_copy(where);
	char *joined = fcr_shell_join(argv.v);
	json_object_set_new(ev, "argv", json_string(joined));
	free(joined);
	fcr_record_event(&R->rec, "fio-start", ev);
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	R->test = name;
	R->test_started = t0;
	R->iops[0] = '\0';
	json_object_set_new(obj, "started", fcr_jutc(t0_wall));
	struct fcr_fio_exec x = {
	    .test = name,
	    .dir = dir,
	    .env = env.v,
	    .on_status = on_fio_status,
	    .opaque = R,
	    .interrupts = &g_interrupts,
	};
	int rc = fcr_target_run_fio(&R->tgt, &x, &err);
	double t1 = cm_mono_s(), t1_wall = cm_wall_s();
	R->last_fio_end = t1;
	R->test = NULL;
	R->iops[0] = '\0';
	json_object_set_new(obj, "finished", fcr_jutc(t1_wall));
	json_object_set_new(obj, "duration_s", fcr_jseconds(t1 - t0));

	char why[1600] = "";
	bool interrupted = x.interrupted || g_interrupts;
	if (x.started && WIFEXITED(x.status))
		json_object_set_new(obj, "exit_status", json_integer(WEXITSTATUS(x.status)));
	else
		json_object_set_new(obj, "exit_status", json_null());
	bool have_json = fcr_path_exists(json_abs);
	jset_str(obj, "json", have_json ? json_rel : NULL);
	json_object_set_new(obj, "logs", list_logs(dir, dir_rel, name));
	bool have_stderr = fcr_path_exists(stderr_abs);
	jset_str(obj, "stderr", have_stderr ? stderr_rel : NULL);

	bool ok = false;
	if (rc < 0) {
		snprintf(why, sizeof(why), "%s", err.msg);
	} else if (!have_json) {
		snprintf(why, sizeof(why), "fio wrote no JSON report");
	} else {
		/* the report first: a job's error says more than fio's exit status */
		ok = judge_report(json_abs, obj, why, sizeof(why));
	}
	if (rc == 0 && !interrupted && !fcr_exited_ok(x.status)) {
		char st[64];
		fcr_describe_status(st, sizeof(st), x.status);
		size_t n = strlen(why);
		if (ok || !n)
			snprintf(why, sizeof(why), "fio ended with %s", st);
		else
			snprintf(why + n, sizeof(why) - n, " (fio ended with %s)", st);
		ok = false;
	}
	if (!ok && have_stderr && !interrupted) {
		char hint[400];
		stderr_hint(stderr_abs, hint, sizeof(hint));
		if (hint[0]) {
			size_t n = strlen(why);
			snprintf(why + n, sizeof(why) - n, ": %s", hint);
		}
	}

	if (interrupted) {
		result = STEP_INTERRUPTED;
		json_object_set_new(obj, "status", json_string("interrupted"));
	} else if (ok) {
		result = STEP_OK;
		json_object_set_new(obj, "status", json_string("done"));
		if (R->c->runtime_ms && strcmp(dir_rel, "prefill")) {
			R->fio_extra_s += (t1 - t0) - (double)R->c->runtime_ms / 1000.0;
			R->fio_extra_n++;
		}
	} else {
		result = STEP_FAILED;
		json_object_set_new(obj, "status", json_string("failed"));
		jset_str(obj, "error", why);
	}
	ev = json_deep_copy(where);
	json_object_set_new(ev, "status", json_incref(jget(obj, "status")));
	json_object_set_new(ev, "exit_status", json_incref(jget(obj, "exit_status")));
	json_object_set_new(ev, "duration_s", fcr_jseconds(t1 - t0));
	if (jget(obj, "iops"))
		json_object_set_new(ev, "iops", json_incref(jget(obj, "iops")));
	if (result == STEP_FAILED)
		jset_str(ev, "error", why);
	fcr_record_event(&R->rec, "fio-end", ev);
	if (result == STEP_OK) {
		double iops = json_number_value(jget(obj, "iops"));
		fcr_progress_line("%s: %.0f IOPS (%.1fs)", what, iops, t1 - t0);
	} else if (result == STEP_FAILED) {
		fcr_progress_line("%s: FAILED: %s", what, why);
	} else {
		fcr_progress_line("%s: interrupted", what);
	}
out:
	cm_strv_release(&env);
	cm_strv_release(&argv);
	free(dir);
	free(job_rel);
	free(env_rel);
	free(json_rel);
	free(stderr_rel);
	free(job_abs);
	free(env_abs);
	free(json_abs);
	free(stderr_abs);
	return result;
}

/* ---- moving unfinished work aside --------------------------------------- */

/* The first free "<base>.<tag>-<k>", k from 1. */
static char *aside_name(const char *base_abs, const char *tag, unsigned *k)
{
	for (*k = 1;; (*k)++) {
		char *p = cm_asprintf("%s.%s-%u", base_abs, tag, *k);
		if (!fcr_path_exists(p))
			return p;
		free(p);
	}
}

/* Moves the prefill files of `name` (prefill/<name>.*) into
 * prefill/<name>.interrupted-<k>/. */
static int move_prefill_aside(struct runner *R, const char *name, struct fcr_error *err)
{
	char *dir = cm_asprintf("%s/prefill", R->cdir);
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	size_t nl = strlen(name);
	struct cm_strv found = {0};
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		if (!strncmp(e->d_name, name, nl) && e->d_name[nl] == '.' &&
		    strncmp(e->d_name + nl, ".interrupted-", 13))
			cm_strv_add(&found, e->d_name);
	}
	closedir(d);
	int rc = 0;
	if (found.n) {
		char *base = cm_asprintf("%s/%s", dir, name);
		unsigned k;
		char *aside = aside_name(base, "interrupted", &k);
		free(base);
		if (mkdir(aside, 0755) < 0)
			rc = fcr_fail_errno(err, errno, "%s: cannot create", aside);
		for (size_t i = 0; rc == 0 && i < found.n; i++) {
			char *from = cm_asprintf("%s/%s", dir, found.v[i]);
			char *to = cm_asprintf("%s/%s", aside, found.v[i]);
			if (rename(from, to) < 0)
				rc = fcr_fail_errno(err, errno, "cannot move %s aside", from);
			free(from);
			free(to);
		}
		if (rc == 0) {
			fcr_record_event(&R->rec, "moved-aside",
				     json_pack("{s:s, s:s}", "from", name, "to",
					       aside + strlen(R->cdir) + 1));
			fcr_fsync_dir(dir, NULL);
		}
		free(aside);
	}
	cm_strv_release(&found);
	free(dir);
	return rc;
}

/* ---- prefill ------------------------------------------------------------- */

static enum step run_prefill(struct runner *R, const char *name, json_t *obj, const char *label)
{
	struct fcr_error err;
	char *dir = cm_asprintf("%s/prefill", R->cdir);
	if (fcr_mkdir_p(dir, 0755, &err) < 0 || move_prefill_aside(R, name, &err) < 0) {
		free(dir);
		fcr_progress_line("%s: %s", label, err.msg);
		jset_str(obj, "error", err.msg);
		json_object_set_new(obj, "status", json_string("failed"));
		return STEP_FAILED;
	}
	free(dir);
	fcr_progress_line("%s: writing the whole test file (%s)", label, R->c->size_text);
	show_status(R, label, 1);
	json_t *where = json_pack("{s:s}", "test", name);
	json_t *fio = json_object();
	enum step s = fio_unit(R, "prefill", name, &R->prefill_job, fio, where, label);
	json_decref(where);
	char *pdir = cm_asprintf("%s/prefill", R->cdir);
	sync_outputs(pdir);
	free(pdir);
	/* the manifest keeps prefill as {status, json}: the details go to its fio object */
	json_object_set(obj, "status", jget(fio, "status"));
	json_object_set(obj, "json", jget(fio, "json"));
	json_object_set(obj, "started", jget(fio, "started"));
	json_object_set(obj, "finished", jget(fio, "finished"));
	json_object_set(obj, "duration_s", jget(fio, "duration_s"));
	if (jget(fio, "error"))
		json_object_set(obj, "error", jget(fio, "error"));
	json_decref(fio);
	return s;
}

/* ---- actions ------------------------------------------------------------- */

/* The sha256 recorded by the latest finished `hash PATH` before state si. */
static const char *recorded_hash(struct runner *R, const char *path)
{
	const char *found = NULL;
	json_t *states = jget(R->rec.m, "states");
	for (size_t i = 0; i < json_array_size(states); i++) {
		json_t *before = jget(json_array_get(states, i), "before");
		for (size_t j = 0; j < json_array_size(before); j++) {
			json_t *a = json_array_get(before, j);
			json_t *res = jget(a, "result");
			if (!strcmp(jstr(a, "action") ? jstr(a, "action") : "", "hash") &&
			    status_is(a, "done") && jstr(res, "path") &&
			    !strcmp(jstr(res, "path"), path))
				found = jstr(res, "sha256");
		}
	}
	return found;
}

/*
 * The start of the first action of this state that took the machine away, or
 * NAN.  A transition cut short in an earlier session (kill, Ctrl-C, failure)
 * has no meaningful downtime of its own: it counts from the power-off
 * repeated on resume if there was one; otherwise it is unknown (*note says
 * why).
 */
static double down_since(const struct runner *R, json_t *state_obj, size_t upto,
			 const struct fcr_state *s, const char **note)
{
	json_t *before = jget(state_obj, "before");
	*note = NULL;
	for (size_t j = 0; j < upto && j < s->n_actions; j++) {
		if (!s->actions[j].takes_down)
			continue;
		double t = cm_parse_rfc3339(jstr(json_array_get(before, j), "started"));
		if (!isfinite(t))
			continue;
		/* format_utc keeps milliseconds */
		if (t >= R->session_wall - 0.001)
			return t;
		if (isfinite(R->restored_down_wall)) {
			*note =
			    "the transition was cut short and resumed: downtime counts from the "
			    "power-off repeated on resume";
			return R->restored_down_wall;
		}
		*note = "the transition was cut short and resumed: its downtime is unknown";
		return NAN;
	}
	return NAN;
}

static void put_output(json_t *res, const char *key, const char *text)
{
	size_t n = strlen(text);
	if (!n)
		return;
	/* a command's output is evidence, but the manifest is no log file (the
	 * cut may split a character: fcr_jtext replaces what is left of it) */
	if (n > 4096) {
		char *tail = cm_asprintf("…%s", text + n - 4096);
		json_object_set_new(res, key, fcr_jtext(tail));
		free(tail);
	} else {
		json_object_set_new(res, key, fcr_jtext(text));
	}
}

static enum step run_command_action(struct runner *R, const struct fcr_step *a, json_t *res,
				    char *why, size_t len)
{
	char *const *argv = a->words.v + 1;
	struct fcr_capture cap;
	struct fcr_error err;
	int rc = a->kind == ACT_RUN
		     ? fcr_run_capture(argv, NULL, 0, 1024 * 1024, &g_interrupts, &cap, &err)
		     : fcr_target_exec(&R->tgt, argv, NULL, 0, &cap, &err);
	if (rc < 0) {
		snprintf(why, len, "%s", err.msg);
		return g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
	}
	json_object_set_new(res, "exit_status",
			    WIFEXITED(cap.status) ? json_integer(WEXITSTATUS(cap.status))
						  : json_null());
	put_output(res, "stdout", cap.out);
	put_output(res, "stderr", cap.err);
	enum step s = STEP_OK;
	if (cap.stopped) {
		s = STEP_INTERRUPTED;
	} else if (!fcr_exited_ok(cap.status)) {
		char st[64];
		fcr_describe_status(st, sizeof(st), cap.status);
		const char *nl = strchr(cap.err, '\n');
		snprintf(why, len, "'%s' ended with %s%s%.*s", a->text, st, cap.err[0] ? ": " : "",
			 (int)(nl ? (size_t)(nl - cap.err) : strlen(cap.err)), cap.err);
		s = STEP_FAILED;
	}
	fcr_capture_release(&cap);
	return s;
}

static enum step perform_action(struct runner *R, size_t si, size_t ai, json_t *state_obj,
				json_t *obj)
{
	const struct fcr_campaign *c = R->c;
	const struct fcr_state *st = &c->states[si];
	const struct fcr_step *a = &st->actions[ai];
	char label[300];
	snprintf(label, sizeof(label), "%s: %s", st->name, a->text);
	json_t *res = json_object();
	char why[1600] = "";
	enum step s = STEP_OK;
	struct fcr_error err;

	json_object_set_new(obj, "status", json_string("running"));
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	json_object_set_new(obj, "started", fcr_jutc(t0_wall));
	json_object_del(obj, "error");
	json_object_del(obj, "result");
	json_object_del(obj, "downtime_s");
	json_object_del(obj, "downtime_note");
	json_object_del(obj, "task");
	json_object_del(obj, "tasks");
	if (a->takes_down)
		R->maybe_down = true;
	fcr_record_save(&R->rec);
	fcr_record_event(
	    &R->rec, "action-start",
	    json_pack("{s:s, s:i, s:s}", "state", st->name, "index", (int)ai, "action", a->text));
	fcr_progress_line("%s", label);
	show_status(R, a->text, 1);

	switch (a->kind) {
	case ACT_SETTLE:
		if (wait_ticking(R, a->settle_ms, "settle"))
			s = STEP_INTERRUPTED;
		else
			R->settle_left_ms -= a->settle_ms;
		break;
	case ACT_WAIT_SSH: {
		const char *host = a->probe_host ? a->probe_host : fcr_target_probe_host(&R->tgt);
		unsigned port = a->probe_host ? a->probe_port : c->ssh_port;
		struct fcr_probe_result pr;
		int rc = fcr_probe_ssh(host, port, c->wait_timeout_ms, &g_interrupts, &pr, &err);
		json_object_set_new(res, "host", json_string(host));
		json_object_set_new(res, "port", json_integer(port));
		json_object_set_new(res, "probes", json_integer(pr.probes));
		json_object_set_new(res, "interval_ms", json_integer(FCR_PROBE_INTERVAL_MS));
		if (rc > 0) {
			s = STEP_INTERRUPTED;
			break;
		}
		if (rc < 0) {
			snprintf(why, sizeof(why), "%s", err.msg);
			s = STEP_FAILED;
			break;
		}
		json_object_set_new(res, "banner", json_string(pr.banner));
		json_object_set_new(res, "answered", fcr_jutc(pr.ready_wall));
		R->maybe_down = false;
		const char *note;
		double since = down_since(R, state_obj, ai, st, &note);
		if (note) {
			json_object_set_new(obj, "downtime_note", json_string(note));
			if (!jget(state_obj, "downtime_note"))
				json_object_set_new(state_obj, "downtime_note", json_string(note));
			fcr_progress_line("%s: %s", st->name, note);
		}
		if (isfinite(since)) {
			double down = pr.ready_wall - since;
			json_object_set_new(obj, "downtime_s", fcr_jseconds(down));
			if (!json_is_number(jget(state_obj, "downtime_s")))
				json_object_set_new(state_obj, "downtime_s", fcr_jseconds(down));
			fcr_progress_line("%s: SSH is back after %.2fs of downtime", st->name, down);
		}
		break;
	}
	case ACT_RUN:
	case ACT_REMOTE:
		s = run_command_action(R, a, res, why, sizeof(why));
		break;
	case ACT_HASH: {
		char *hex = NULL;
		if (fcr_target_sha256(&R->tgt, a->words.v[1], &hex, &err) < 0) {
			snprintf(why, sizeof(why), "%s", err.msg);
			s = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
			break;
		}
		json_object_set_new(res, "path", json_string(a->words.v[1]));
		json_object_set_new(res, "sha256", json_string(hex));
		fcr_progress_line("%s: sha256 %s", st->name, hex);
		free(hex);
		break;
	}
	case ACT_VERIFY_HASH: {
		const char *expected = recorded_hash(R, a->words.v[1]);
		char *hex = NULL;
		if (!expected) {
			snprintf(why, sizeof(why), "verify-hash %s: no finished 'hash %s' recorded",
				 a->words.v[1], a->words.v[1]);
			s = STEP_FAILED;
			break;
		}
		if (fcr_target_sha256(&R->tgt, a->words.v[1], &hex, &err) < 0) {
			snprintf(why, sizeof(why), "%s", err.msg);
			s = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
			break;
		}
		bool match = !strcmp(hex, expected);
		json_object_set_new(res, "path", json_string(a->words.v[1]));
		json_object_set_new(res, "expected", json_string(expected));
		json_object_set_new(res, "actual", json_string(hex));
		json_object_set_new(res, "match", json_boolean(match));
		if (!match) {
			snprintf(why, sizeof(why),
				 "verify-hash %s: sha256 differs: expected %s, got %s",
				 a->words.v[1], expected, hex);
			s = STEP_FAILED;
		} else {
			fcr_progress_line("%s: sha256 of %s matches", st->name, a->words.v[1]);
		}
		free(hex);
		break;
	}
	case ACT_PREFILL: {
		char *name = cm_asprintf("before-%s", st->name);
		json_t *pobj = json_object();
		s = run_prefill(R, name, pobj, label);
		json_object_set(res, "json", jget(pobj, "json"));
		if (s == STEP_FAILED)
			snprintf(why, sizeof(why), "%s",
				 jstr(pobj, "error") ? jstr(pobj, "error") : "prefill failed");
		json_decref(pobj);
		free(name);
		break;
	}
	case ACT_FRESH_FILE:
		if (fcr_target_fresh_file(&R->tgt, &err) < 0) {
			snprintf(why, sizeof(why), "%s", err.msg);
			s = STEP_FAILED;
		} else {
			json_object_set_new(res, "path", json_string(R->tgt.test_file));
			json_object_set_new(res, "size", json_integer((json_int_t)c->size_bytes));
		}
		break;
	case ACT_PROVIDER: {
		struct fcr_error pe = {0};
		int rc = c->provider->perform(R->prov, a->words.v[0], (int)a->words.n - 1,
					      a->words.v + 1, res, &pe);
		if (rc < 0) {
			snprintf(why, sizeof(why), "%s", pe.msg);
			s = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
		}
		/* the contract wants the provider's tasks beside our timing */
		static const char *const lifted[] = {"task", "tasks"};
		for (size_t i = 0; i < CM_ARRAY_SIZE(lifted); i++) {
			json_t *v = jget(res, lifted[i]);
			if (!v)
				continue;
			json_object_set(obj, lifted[i], v);
			json_object_del(res, lifted[i]);
		}
		break;
	}
	}
	if (s == STEP_OK && g_interrupts)
		s = STEP_INTERRUPTED;
	double t1 = cm_mono_s();
	json_object_set_new(obj, "finished", fcr_jutc(cm_wall_s()));
	json_object_set_new(obj, "duration_s", fcr_jseconds(t1 - t0));
	if (json_object_size(res))
		json_object_set_new(obj, "result", res);
	else
		json_decref(res);
	const char *status = s == STEP_OK	     ? "done"
			     : s == STEP_INTERRUPTED ? "interrupted"
						     : "failed";
	json_object_set_new(obj, "status", json_string(status));
	if (s == STEP_FAILED)
		jset_str(obj, "error", why);
	json_t *ev =
	    json_pack("{s:s, s:i, s:s, s:s, s:o}", "state", st->name, "index", (int)ai, "action",
		      a->text, "status", status, "duration_s", fcr_jseconds(t1 - t0));
	if (jget(obj, "downtime_s"))
		json_object_set(ev, "downtime_s", jget(obj, "downtime_s"));
	if (jget(obj, "result"))
		json_object_set(ev, "result", jget(obj, "result"));
	if (jget(obj, "task"))
		json_object_set(ev, "task", jget(obj, "task"));
	if (jget(obj, "tasks"))
		json_object_set(ev, "tasks", jget(obj, "tasks"));
	if (s == STEP_FAILED)
		jset_str(ev, "error", why);
	fcr_record_event(&R->rec, "action-end", ev);
	if (s == STEP_FAILED)
		fcr_progress_line("%s: FAILED: %s", label, why);
	else if (s == STEP_INTERRUPTED)
		fcr_progress_line("%s: interrupted", label);
	fcr_record_save(&R->rec);
	return R->rec.failed ? STEP_FATAL : s;
}

/*
 * A state cut short in an earlier session, resumed.  When the last finished
 * action of it that changed the power was a power-off, the steps after it
 * expect the machine off, but it may be on again (the earlier session powered
 * it on after a failure, or someone did).  That power-off is repeated, which
 * costs one GET when the machine is still off.  Not when the next step
 * changes the power itself.
 */
static enum step restore_power_off(struct runner *R, size_t si, json_t *state_obj)
{
	const struct fcr_campaign *c = R->c;
	const struct fcr_state *st = &c->states[si];
	json_t *before = jget(state_obj, "before");
	size_t next = st->n_actions;
	for (size_t ai = 0; ai < st->n_actions; ai++) {
		if (!status_is(json_array_get(before, ai), "done")) {
			next = ai;
			break;
		}
	}
	const struct fcr_step *last = NULL;
	for (size_t ai = 0; ai < next; ai++) {
		const struct fcr_step *a = &st->actions[ai];
		if (a->kind == ACT_PROVIDER && (a->takes_down || a->brings_up))
			last = a;
	}
	if (!last || !last->takes_down || last->brings_up)
		return STEP_OK;
	if (next < st->n_actions) {
		const struct fcr_step *a = &st->actions[next];
		if (a->kind == ACT_PROVIDER && (a->takes_down || a->brings_up))
			return STEP_OK;
	}
	fcr_progress_line("%s: resumed after '%s': doing it again, so that what follows finds the "
		      "machine off",
		      st->name, last->text);
	fcr_record_event(&R->rec, "resume-restore",
		     json_pack("{s:s, s:s}", "state", st->name, "action", last->text));
	R->maybe_down = true;
	json_t *res = json_object();
	struct fcr_error pe = {0};
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	int rc = c->provider->perform(R->prov, last->words.v[0], (int)last->words.n - 1,
				      last->words.v + 1, res, &pe);
	if (rc == 0 && !json_is_true(jget(res, "already")))
		R->restored_down_wall = t0_wall;
	json_t *ev = json_pack("{s:s, s:s, s:s, s:o, s:o}", "state", st->name, "action", last->text,
			       "status", rc == 0 ? "done" : "failed", "duration_s",
			       fcr_jseconds(cm_mono_s() - t0), "result", res);
	if (rc < 0)
		jset_str(ev, "error", pe.msg);
	fcr_record_event(&R->rec, "resume-restore-end", ev);
	if (rc == 0)
		return STEP_OK;
	fcr_progress_line("%s: repeating '%s' failed: %s", st->name, last->text, pe.msg);
	journal_failure(R, "resume-restore", pe.msg);
	return g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
}

/* ---- rounds -------------------------------------------------------------- */

/*
 * Runs round r.  `pause_ms` > 0: the pause between rounds, counted from the
 * end of the last fio run; the round's bookkeeping happens inside it.
 */
static enum step run_round(struct runner *R, size_t si, unsigned r, json_t *round_obj,
			   uint64_t pause_ms)
{
	const struct fcr_campaign *c = R->c;
	const struct fcr_state *st = &c->states[si];
	struct fcr_error err;
	char *rel = cm_asprintf("%s/r%u", st->name, r);
	char *abs = cm_asprintf("%s/%s", R->cdir, rel);
	enum step result = STEP_OK;

	/* a round stopped in the pause before its first run left an empty directory */
	if (fcr_path_exists(abs) && rmdir(abs) == 0)
		fcr_progress_line("%s round %u: removed the empty directory of an earlier attempt",
			      st->name, r);
	if (fcr_path_exists(abs)) {
		/* a round cut short (or failed) earlier: keep it, run the round again */
		const char *tag = status_is(round_obj, "failed") ? "failed" : "interrupted";
		unsigned k;
		char *aside = aside_name(abs, tag, &k);
		if (rename(abs, aside) < 0) {
			fcr_fail_errno(&err, errno, "cannot move %s aside", abs);
			fcr_progress_line("%s", err.msg);
			free(aside);
			result = STEP_FATAL;
			goto out;
		}
		char *aside_rel = cm_strdup(aside + strlen(R->cdir) + 1);
		json_t *list = jget(round_obj, "moved_aside");
		if (!json_is_array(list)) {
			list = json_array();
			json_object_set_new(round_obj, "moved_aside", list);
		}
		json_array_append_new(list, json_string(aside_rel));
		fcr_record_event(&R->rec, "moved-aside",
			     json_pack("{s:s, s:i, s:s, s:s}", "state", st->name, "round", (int)r,
				       "from", rel, "to", aside_rel));
		fcr_progress_line("%s round %u: the unfinished earlier attempt is kept as %s", st->name,
			      r, aside_rel);
		free(aside_rel);
		free(aside);
	}
	if (fcr_mkdir_p(abs, 0755, &err) < 0) {
		fcr_progress_line("%s", err.msg);
		result = STEP_FATAL;
		goto out;
	}
	char *state_dir = cm_asprintf("%s/%s", R->cdir, st->name);
	fcr_fsync_dir(state_dir, NULL);
	free(state_dir);
	json_object_set_new(round_obj, "status", json_string("running"));
	json_object_set_new(round_obj, "started", fcr_jutc(cm_wall_s()));
	json_object_del(round_obj, "finished");
	json_t *tests = json_array();
	json_object_set_new(round_obj, "tests", tests);
	for (size_t ti = 0; ti < c->suite.n; ti++) {
		json_t *t = json_object();
		json_object_set_new(t, "test", json_string(R->jobs[ti].test));
		json_object_set_new(t, "status", json_string("pending"));
		json_array_append_new(tests, t);
	}
	fcr_record_event(&R->rec, "round-start",
		     json_pack("{s:s, s:i}", "state", st->name, "round", (int)r));
	fcr_record_save(&R->rec);
	if (R->rec.failed) {
		result = STEP_FATAL;
		goto out;
	}
	bool any_failed = false;
	if (pause_ms) {
		char label[64], d[32];
		cm_format_duration(d, sizeof(d), pause_ms);
		snprintf(label, sizeof(label), "pause %s", d);
		double since = cm_mono_s() - R->last_fio_end;
		uint64_t done_ms = since > 0 ? (uint64_t)(since * 1000.0) : 0;
		if (wait_ticking(R, done_ms < pause_ms ? pause_ms - done_ms : 0, label))
			result = STEP_INTERRUPTED;
		json_object_set_new(round_obj, "started", fcr_jutc(cm_wall_s()));
	}
	for (size_t ti = 0; result == STEP_OK && ti < c->suite.n; ti++) {
		const struct fcr_jobfile *job = &R->jobs[ti];
		json_t *t = json_array_get(tests, ti);
		json_t *where = json_pack("{s:s, s:i, s:s}", "state", st->name, "round", (int)r,
					  "test", job->test);
		char what[300];
		snprintf(what, sizeof(what), "%s r%u/%u %s", st->name, r, c->rounds, job->test);
		show_status(R, job->test, 1);
		enum step s = fio_unit(R, rel, job->test, job, t, where, what);
		json_decref(where);
		if (R->tests_left)
			R->tests_left--;
		/* the manifest is saved when the round ends: a round cut short runs
		 * again as a whole, so the state of its single tests needs no save */
		if (R->rec.failed) {
			result = STEP_FATAL;
			goto out;
		}
		if (s == STEP_INTERRUPTED) {
			result = STEP_INTERRUPTED;
			break;
		}
		if (s == STEP_FAILED) {
			any_failed = true;
			if (!R->o->keep_going) {
				result = STEP_FAILED;
				break;
			}
		}
	}
	if (result == STEP_OK && any_failed)
		result = STEP_FAILED;
	const char *status = result == STEP_OK		  ? "done"
			     : result == STEP_INTERRUPTED ? "interrupted"
							  : "failed";
	for (size_t ti = 0; ti < json_array_size(tests); ti++) {
		json_t *t = json_array_get(tests, ti);
		if (status_is(t, "pending"))
			json_object_set_new(t, "status", json_string("skipped"));
	}
	sync_outputs(abs);
	json_object_set_new(round_obj, "status", json_string(status));
	json_object_set_new(round_obj, "finished", fcr_jutc(cm_wall_s()));
	fcr_record_event(
	    &R->rec, "round-end",
	    json_pack("{s:s, s:i, s:s}", "state", st->name, "round", (int)r, "status", status));
	fcr_record_save(&R->rec);
	if (R->rec.failed)
		result = STEP_FATAL;
out:
	free(rel);
	free(abs);
	return result;
}

/* ---- states -------------------------------------------------------------- */

static void mark_rest_skipped(json_t *state_obj)
{
	json_t *rounds = jget(state_obj, "rounds");
	for (size_t i = 0; i < json_array_size(rounds); i++) {
		json_t *r = json_array_get(rounds, i);
		if (!status_is(r, "pending"))
			continue;
		json_object_set_new(r, "status", json_string("skipped"));
		json_t *tests = jget(r, "tests");
		for (size_t j = 0; j < json_array_size(tests); j++)
			json_object_set_new(json_array_get(tests, j), "status",
					    json_string("skipped"));
	}
	json_t *before = jget(state_obj, "before");
	for (size_t i = 0; i < json_array_size(before); i++) {
		json_t *a = json_array_get(before, i);
		if (status_is(a, "pending"))
			json_object_set_new(a, "status", json_string("skipped"));
	}
}

static enum step run_state(struct runner *R, size_t si)
{
	const struct fcr_campaign *c = R->c;
	const struct fcr_state *st = &c->states[si];
	json_t *state_obj = json_array_get(jget(R->rec.m, "states"), si);
	R->si = si;
	R->round = 0;
	if (status_is(state_obj, "done"))
		return STEP_OK;
	bool cut_short = R->resumed && !status_is(state_obj, "pending");
	json_object_set_new(state_obj, "status", json_string("running"));
	fcr_record_event(&R->rec, "state-start",
		     json_pack("{s:s, s:i}", "state", st->name, "index", (int)si));
	fcr_record_save(&R->rec);
	fcr_progress_line("state %zu/%zu: %s", si + 1, c->n_states, st->name);
	enum step result = STEP_OK;
	json_t *before = jget(state_obj, "before");
	if (cut_short)
		result = restore_power_off(R, si, state_obj);
	for (size_t ai = 0; result == STEP_OK && ai < st->n_actions; ai++) {
		json_t *a = json_array_get(before, ai);
		if (status_is(a, "done"))
			continue;
		enum step s = perform_action(R, si, ai, state_obj, a);
		if (s != STEP_OK) {
			result = s;
			break;
		}
	}
	bool ran_round = false;
	bool any_failed = false;
	json_t *rounds = jget(state_obj, "rounds");
	for (unsigned r = 1; result == STEP_OK && r <= c->rounds; r++) {
		json_t *round_obj = json_array_get(rounds, r - 1);
		R->round = r;
		if (status_is(round_obj, "done"))
			continue;
		uint64_t pause_ms = 0;
		if (ran_round && c->pause_ms) {
			pause_ms = c->pause_ms;
			fcr_record_event(&R->rec, "pause",
				     json_pack("{s:s, s:i, s:o}", "state", st->name, "round",
					       (int)r, "duration_s",
					       fcr_jseconds((double)c->pause_ms / 1000)));
		}
		if (R->pauses_left && r > 1)
			R->pauses_left--;
		enum step s = run_round(R, si, r, round_obj, pause_ms);
		ran_round = true;
		if (s == STEP_FAILED && R->o->keep_going) {
			any_failed = true;
			continue;
		}
		if (s != STEP_OK)
			result = s;
	}
	if (result == STEP_OK && any_failed)
		result = STEP_FAILED;
	if (result == STEP_FAILED)
		mark_rest_skipped(state_obj);
	const char *status = result == STEP_OK		  ? "done"
			     : result == STEP_INTERRUPTED ? "interrupted"
							  : "failed";
	json_object_set_new(state_obj, "status", json_string(status));
	fcr_record_event(&R->rec, "state-end",
		     json_pack("{s:s, s:s}", "state", st->name, "status", status));
	fcr_record_save(&R->rec);
	if (R->rec.failed)
		return STEP_FATAL;
	return result;
}

/* ---- the manifest -------------------------------------------------------- */

static json_t *settings_json(const struct fcr_campaign *c)
{
	return json_pack("{s:i, s:o, s:o, s:s, s:I, s:s, s:b, s:s, s:i}", "rounds", (int)c->rounds,
			 "pause_s", fcr_jseconds((double)c->pause_ms / 1000), "runtime_s",
			 fcr_jseconds((double)c->runtime_ms / 1000), "size", c->size_text,
			 "size_bytes", (json_int_t)c->size_bytes, "directory", c->directory,
			 "prefill", c->prefill, "ioengine", c->ioengine, "direct", c->direct);
}

static json_t *new_manifest(const struct runner *R)
{
	const struct fcr_campaign *c = R->c;
	json_t *m = json_object();
	json_object_set_new(m, "format", json_string("fiocamp-manifest"));
	json_object_set_new(m, "version", json_integer(1));
	json_object_set_new(m, "campaign", json_string(c->name));
	json_object_set_new(m, "status", json_string("running"));
	json_object_set_new(m, "created", fcr_jutc(cm_wall_s()));
	json_object_set_new(m, "updated", fcr_jutc(cm_wall_s()));
	json_object_set_new(m, "fio_version", json_null());
	json_object_set_new(m, "target", json_string(c->target_text));
	json_object_set_new(m, "host", json_object());
	json_object_set_new(m, "settings", settings_json(c));
	json_t *tests = json_array();
	json_t *jobs = json_object();
	for (size_t i = 0; i < c->suite.n; i++) {
		json_array_append_new(tests, json_string(R->jobs[i].test));
		json_object_set_new(jobs, R->jobs[i].test, fcr_jtext(R->jobs[i].origin));
	}
	json_object_set_new(m, "tests", tests);
	json_object_set_new(m, "job_sources", jobs);
	json_object_set_new(m, "campaign_file",
			    R->o->campaign_path ? fcr_jtext(R->o->campaign_path) : json_null());
	json_object_set_new(m, "provider", json_string(c->provider_type));
	json_object_set_new(m, "sessions", json_integer(1));
	if (c->prefill)
		json_object_set_new(m, "prefill",
				    json_pack("{s:s, s:n}", "status", "pending", "json"));
	else
		json_object_set_new(m, "prefill", json_null());
	json_t *states = json_array();
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *before = json_array();
		for (size_t ai = 0; ai < st->n_actions; ai++)
			json_array_append_new(before,
					      json_pack("{s:s, s:s, s:s}", "action",
							st->actions[ai].words.v[0], "text",
							st->actions[ai].text, "status", "pending"));
		json_t *rounds = json_array();
		for (unsigned r = 1; r <= c->rounds; r++) {
			json_t *tests_of_round = json_array();
			for (size_t ti = 0; ti < c->suite.n; ti++)
				json_array_append_new(tests_of_round,
						      json_pack("{s:s, s:s}", "test",
								R->jobs[ti].test, "status",
								"pending"));
			json_array_append_new(rounds, json_pack("{s:i, s:s, s:o}", "round", (int)r,
								"status", "pending", "tests",
								tests_of_round));
		}
		json_array_append_new(states, json_pack("{s:s, s:s, s:n, s:o, s:o}", "name",
							st->name, "status", "pending", "downtime_s",
							"before", before, "rounds", rounds));
	}
	json_object_set_new(m, "states", states);
	return m;
}

/* Checks that a manifest read back describes this campaign. */
static int check_manifest(const struct runner *R, json_t *m, struct fcr_error *err)
{
	const struct fcr_campaign *c = R->c;
	if (!json_is_object(m) || !jstr(m, "format") ||
	    strcmp(jstr(m, "format"), "fiocamp-manifest"))
		return fcr_fail(err, "not a fiocamp manifest");
	if (json_integer_value(jget(m, "version")) != 1)
		return fcr_fail(err, "manifest version %lld is not 1",
				(long long)json_integer_value(jget(m, "version")));
	json_t *states = jget(m, "states");
	if (json_array_size(states) != c->n_states)
		return fcr_fail(err, "the manifest has %zu states, campaign.ini %zu",
				json_array_size(states), c->n_states);
	json_t *tests = jget(m, "tests");
	if (json_array_size(tests) != c->suite.n)
		return fcr_fail(err, "the manifest has %zu tests, campaign.ini %zu",
				json_array_size(tests), c->suite.n);
	for (size_t i = 0; i < c->suite.n; i++) {
		const char *t = json_string_value(json_array_get(tests, i));
		if (!t || strcmp(t, R->jobs[i].test))
			return fcr_fail(err, "test %zu is %s in the manifest, %s in campaign.ini",
					i + 1, t ? t : "?", R->jobs[i].test);
	}
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *s = json_array_get(states, si);
		const struct fcr_state *st = &c->states[si];
		if (!jstr(s, "name") || strcmp(jstr(s, "name"), st->name))
			return fcr_fail(err, "state %zu is %s in the manifest, %s in campaign.ini",
					si + 1, jstr(s, "name") ? jstr(s, "name") : "?", st->name);
		if (json_array_size(jget(s, "before")) != st->n_actions ||
		    json_array_size(jget(s, "rounds")) != c->rounds)
			return fcr_fail(err,
					"state %s has other actions or rounds than campaign.ini",
					st->name);
		for (size_t r = 0; r < c->rounds; r++) {
			json_t *ro = json_array_get(jget(s, "rounds"), r);
			if (!jstr(ro, "status") || !json_is_array(jget(ro, "tests")))
				return fcr_fail(err, "state %s round %zu is malformed", st->name,
						r + 1);
		}
		for (size_t ai = 0; ai < st->n_actions; ai++) {
			if (!jstr(json_array_get(jget(s, "before"), ai), "status"))
				return fcr_fail(err, "state %s action %zu is malformed", st->name,
						ai + 1);
		}
	}
	if (c->prefill && !json_is_object(jget(m, "prefill")))
		return fcr_fail(err, "the manifest lacks the prefill step");
	return 0;
}

/*
 * A resumed campaign runs the job files the earlier sessions ran: the rounds
 * of a state must be alike.  A job found elsewhere this time (a --jobs-dir
 * given then but not now, a copy beside the campaign file since) is refused.
 */
static int check_job_sources(const struct runner *R, struct fcr_error *err)
{
	json_t *sources = jget(R->rec.m, "job_sources");
	for (size_t i = 0; i < R->c->suite.n; i++) {
		const struct fcr_jobfile *j = &R->jobs[i];
		const char *then = jstr(sources, j->test);
		if (then && strcmp(then, j->origin))
			return fcr_fail(err,
					"test %s ran with the job file %s, and this session would "
					"use %s (give the same --jobs-dir as then)",
					j->test, then, j->origin);
	}
	return 0;
}

static void count_work(struct runner *R)
{
	const struct fcr_campaign *c = R->c;
	json_t *states = jget(R->rec.m, "states");
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *s = json_array_get(states, si);
		if (status_is(s, "done"))
			continue;
		unsigned left = 0;
		for (unsigned r = 0; r < c->rounds; r++) {
			if (!status_is(json_array_get(jget(s, "rounds"), r), "done"))
				left++;
		}
		R->tests_left += left * (unsigned)c->suite.n;
		R->pauses_left += left ? left - 1 : 0;
		for (size_t ai = 0; ai < c->states[si].n_actions; ai++) {
			const struct fcr_step *a = &c->states[si].actions[ai];
			if (a->kind == ACT_SETTLE &&
			    !status_is(json_array_get(jget(s, "before"), ai), "done"))
				R->settle_left_ms += a->settle_ms;
		}
	}
}

/* ---- the end report ------------------------------------------------------ */

static char *find_analyzer(void)
{
	const char *env = getenv("FIOCAMP_ANALYZE");
	if (env && *env)
		return strcmp(env, "builtin") ? cm_strdup(env) : NULL;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *dir = fcr_path_dirname(self);
		const char *rel[] = {"../analyze/fiocamp-analyze", "fiocamp-analyze"};
		for (size_t i = 0; i < CM_ARRAY_SIZE(rel); i++) {
			char *p = cm_asprintf("%s/%s", dir, rel[i]);
			if (access(p, X_OK) == 0) {
				free(dir);
				return p;
			}
			free(p);
		}
		free(dir);
	}
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = cm_strdup(path), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = cm_asprintf("%s/fiocamp-analyze", *d ? d : ".");
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* A short per-state table of median IOPS through libfiocamp. */
static void builtin_table(const struct runner *R)
{
	const struct fcr_campaign *c = R->c;
	json_t *states = jget(R->rec.m, "states");
	printf("\n%-16s %-10s %6s %12s %12s %12s %9s\n", "state", "test", "rounds", "median IOPS",
	       "min", "max", "vs first");
	double *base = cm_calloc(c->suite.n, sizeof(double));
	for (size_t ti = 0; ti < c->suite.n; ti++)
		base[ti] = NAN;
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *s = json_array_get(states, si);
		for (size_t ti = 0; ti < c->suite.n; ti++) {
			double *vals = cm_calloc(c->rounds, sizeof(double));
			size_t n = 0;
			for (unsigned r = 0; r < c->rounds; r++) {
				json_t *t = json_array_get(
				    jget(json_array_get(jget(s, "rounds"), r), "tests"), ti);
				if (!status_is(t, "done") || !jstr(t, "json"))
					continue;
				char *path = cm_asprintf("%s/%s", R->cdir, jstr(t, "json"));
				struct fc_output *out = NULL;
				struct fc_error ferr;
				fc_output_read_file(path, &out, &ferr);
				free(path);
				if (!out || !out->final) {
					fc_output_free(out);
					continue;
				}
				double iops = 0;
				for (size_t j = 0; j < out->final->n_jobs; j++) {
					for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
						const struct fc_dir *dd =
						    &out->final->jobs[j].dir[d];
						if (dd->present && isfinite(dd->iops))
							iops += dd->iops;
					}
				}
				fc_output_free(out);
				vals[n++] = iops;
			}
			struct fc_summary sum;
			if (n == 0 || fc_summarize(vals, n, &sum) < 0) {
				printf("%-16s %-10s %6zu %12s\n", c->states[si].name,
				       R->jobs[ti].test, n, "-");
				free(vals);
				continue;
			}
			char change[16] = "";
			if (isnan(base[ti]))
				base[ti] = sum.median;
			else if (base[ti] > 0)
				snprintf(change, sizeof(change), "%+.1f%%",
					 (sum.median / base[ti] - 1) * 100);
			printf("%-16s %-10s %6zu %12.0f %12.0f %12.0f %9s\n", c->states[si].name,
			       R->jobs[ti].test, n, sum.median, sum.min, sum.max, change);
			free(vals);
		}
	}
	free(base);
	printf("(IOPS: read + write of each run, median over the rounds; the last column is the\n"
	       " change of the median against the first state, %s)\n",
	       c->n_states ? c->states[0].name : "");
	fflush(stdout);
}

static void print_analysis(const struct runner *R)
{
	char *analyzer = find_analyzer();
	fflush(stdout);
	if (analyzer) {
		/* the table even when stdout is a pipe or a file */
		char *const argv[] = {analyzer, "--table", R->cdir, NULL};
		struct fcr_spawn_opts o = {
		    .argv = argv,
		    .stdin_fd = FCR_SPAWN_DEVNULL,
		    .stdout_fd = STDOUT_FILENO,
		    .stderr_fd = STDERR_FILENO,
		};
		struct fcr_child ch;
		struct fcr_error err;
		int status = 0;
		/* exit 1: the report is out, some inputs were left out of it */
		if (fcr_spawn(&o, &ch, &err) == 0 && fcr_child_wait(&ch, &status) == 0 &&
		    WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
			free(analyzer);
			return;
		}
		fprintf(stderr, "fiocamp-run: %s did not finish; the short table instead:\n",
			analyzer);
		free(analyzer);
	}
	builtin_table(R);
}

/* ---- the campaign ------------------------------------------------------- */

static int resolve_jobs(struct runner *R, struct fcr_error *err)
{
	const struct fcr_campaign *c = R->c;
	R->jobs = cm_calloc(c->suite.n, sizeof(*R->jobs));
	for (size_t i = 0; i < c->suite.n; i++) {
		if (fcr_jobs_resolve(c->suite.v[i], R->o->campaign_dir, R->o->jobs_dir, &R->jobs[i],
				 err) < 0)
			return -1;
	}
	bool need_prefill = c->prefill;
	for (size_t si = 0; si < c->n_states; si++) {
		for (size_t ai = 0; ai < c->states[si].n_actions; ai++)
			need_prefill |= c->states[si].actions[ai].kind == ACT_PREFILL;
	}
	if (need_prefill &&
	    fcr_jobs_resolve("prefill", R->o->campaign_dir, R->o->jobs_dir, &R->prefill_job, err) < 0)
		return -1;
	return 0;
}

static void release_runner(struct runner *R)
{
	for (size_t i = 0; R->jobs && i < R->c->suite.n; i++)
		fcr_jobfile_release(&R->jobs[i]);
	free(R->jobs);
	fcr_jobfile_release(&R->prefill_job);
	fcr_target_release(&R->tgt);
	if (R->prov_ready)
		R->c->provider->free(R->prov);
	R->prov_ready = false;
	if (R->rec.dir)
		fcr_record_close(&R->rec);
	free(R->cdir);
}

static char *default_dir_name(const struct fcr_campaign *c)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return cm_asprintf("%s-%s", c->name, stamp);
}

static int create_campaign_dir(struct runner *R, struct fcr_error *err)
{
	const struct fcr_campaign *c = R->c;
	R->cdir = R->o->out_dir ? cm_strdup(R->o->out_dir) : default_dir_name(c);
	size_t n = strlen(R->cdir);
	while (n > 1 && R->cdir[n - 1] == '/')
		R->cdir[--n] = '\0';
	char *parent = fcr_path_dirname(R->cdir);
	int rc = fcr_mkdir_p(parent, 0755, err);
	free(parent);
	if (rc < 0)
		return -1;
	if (mkdir(R->cdir, 0755) < 0) {
		if (errno == EEXIST)
			return fcr_fail(err,
					"%s already exists: a campaign directory is never "
					"overwritten (continue it with --resume %s, or choose "
					"another with -o)",
					R->cdir, R->cdir);
		return fcr_fail_errno(err, errno, "%s: cannot create", R->cdir);
	}
	char *ini = cm_asprintf("%s/campaign.ini", R->cdir);
	rc = fcr_write_file(ini, c->text, c->text_len, false, err);
	free(ini);
	if (rc < 0)
		return -1;
	return fcr_fsync_dir(R->cdir, err);
}

static int load_manifest(struct runner *R, struct fcr_error *err)
{
	char *path = cm_asprintf("%s/manifest.json", R->cdir);
	json_error_t jerr;
	json_t *m = json_load_file(path, 0, &jerr);
	if (!m) {
		fcr_fail(err, "%s:%d: %s", path, jerr.line, jerr.text);
		free(path);
		return -1;
	}
	struct fcr_error why;
	if (check_manifest(R, m, &why) < 0) {
		fcr_fail(err, "%s: %s", path, why.msg);
		free(path);
		json_decref(m);
		return -1;
	}
	free(path);
	R->rec.m = m;
	R->rec.session = (int)json_integer_value(jget(m, "sessions")) + 1;
	json_object_set_new(m, "sessions", json_integer(R->rec.session));
	return 0;
}

static void install_signals(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: waits return early and look at g_interrupts */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a lost terminal or ssh session must not leave the machine off; under
	 * nohup a hangup stays ignored */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void provider_journal(void *opaque, json_t *event)
{
	struct runner *R = opaque;
	if (!R->journal_ready) {
		/* before the campaign directory exists nothing is worth keeping */
		json_decref(event);
		return;
	}
	const char *name = jstr(event, "event");
	char *copy = cm_strdup(name ? name : "provider");
	json_object_del(event, "event");
	fcr_record_event(&R->rec, copy, event);
	free(copy);
}

static void provider_note(void *opaque, const char *level, const char *text)
{
	struct runner *R = opaque;
	if (!strcmp(level, "problem")) {
		/* refusals are shown even with --quiet */
		fcr_progress_clear();
		fprintf(stderr, "%s: PROBLEM: %s\n", R->c->provider_type, text);
	} else if (!strcmp(level, "warning")) {
		fcr_progress_line("%s: warning: %s", R->c->provider_type, text);
	} else {
		fcr_progress_line("%s: %s", R->c->provider_type, text);
	}
	if (R->journal_ready)
		fcr_record_event(&R->rec, "provider-note",
			     json_pack("{s:s, s:s, s:s}", "provider", R->c->provider_type, "level",
				       level, "text", text));
}

static struct fcr_provider_section provider_section_of(const struct fcr_campaign *c)
{
	return (struct fcr_provider_section){
	    .file = c->source,
	    .line = c->provider_line ? c->provider_line : 1,
	    .keys = c->provider_keys,
	    .n_keys = c->n_provider_keys,
	};
}

/* The provider's configuration and credentials: before anything is created. */
static int open_provider(struct runner *R, struct fcr_error *err)
{
	const struct fcr_campaign *c = R->c;
	R->pctx = (struct fcr_provider_ctx){
	    .journal = provider_journal,
	    .note = provider_note,
	    .opaque = R,
	    .stop = &g_interrupts,
	    .hard_stop = &g_hard_stop,
	};
	struct fcr_provider_section sec = provider_section_of(c);
	struct cm_strv problems = {0};
	if (c->provider->configure(&sec, &R->pctx, &R->prov, &problems) < 0) {
		/* the campaign file was checked already: the first problem says it */
		fcr_fail(err, "%s", problems.n ? problems.v[0] : "the provider refused its keys");
		cm_strv_release(&problems);
		return -1;
	}
	cm_strv_release(&problems);
	R->prov_ready = true;
	return c->provider->connect(R->prov, err);
}

/* The provider's preflight, with every provider action and what earlier
 * sessions made of it. */
static int provider_preflight(struct runner *R, struct fcr_error *err)
{
	const struct fcr_campaign *c = R->c;
	struct fcr_provider_step *steps = NULL;
	size_t n = 0;
	json_t *states = jget(R->rec.m, "states");
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *before = jget(json_array_get(states, si), "before");
		for (size_t ai = 0; ai < c->states[si].n_actions; ai++) {
			const struct fcr_step *a = &c->states[si].actions[ai];
			if (a->kind != ACT_PROVIDER)
				continue;
			json_t *obj = json_array_get(before, ai);
			steps = cm_realloc(steps, n + 1, sizeof(*steps));
			steps[n++] = (struct fcr_provider_step){
			    .state = c->states[si].name,
			    .action = a->words.v[0],
			    .argc = (int)a->words.n - 1,
			    .argv = a->words.v + 1,
			    .file = c->source,
			    .line = a->line,
			    .status = jstr(obj, "status") ? jstr(obj, "status") : "pending",
			    .result = jget(obj, "result"),
			};
		}
	}
	struct fcr_error pe = {0};
	int rc = c->provider->preflight(R->prov, steps, n, &pe);
	free(steps);
	if (rc < 0)
		return fcr_fail(err, "provider %s: %s", c->provider_type, pe.msg);
	return 0;
}

/*
 * Whether the machine may be off as the manifest leaves it: an action that
 * takes it away ran (or began) and no wait-ssh saw it back since.
 */
static bool manifest_maybe_down(const struct runner *R)
{
	const struct fcr_campaign *c = R->c;
	json_t *states = jget(R->rec.m, "states");
	bool down = false;
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *before = jget(json_array_get(states, si), "before");
		for (size_t ai = 0; ai < c->states[si].n_actions; ai++) {
			const struct fcr_step *a = &c->states[si].actions[ai];
			json_t *obj = json_array_get(before, ai);
			if (a->takes_down && !status_is(obj, "pending") &&
			    !status_is(obj, "skipped"))
				down = true;
			if (a->kind == ACT_WAIT_SSH && status_is(obj, "done"))
				down = false;
		}
	}
	return down;
}

/* Where to look for the machine's SSH server after powering it on: the
 * campaign's wait-ssh (the current state's first, then any), else the ssh
 * target.  false when there is nothing to probe. */
static bool safety_probe_target(const struct runner *R, const char **host, unsigned *port)
{
	const struct fcr_campaign *c = R->c;
	for (size_t k = 0; k < c->n_states; k++) {
		size_t si = (R->si + k) % c->n_states;
		const struct fcr_state *st = &c->states[si];
		for (size_t ai = 0; ai < st->n_actions; ai++) {
			const struct fcr_step *a = &st->actions[ai];
			if (a->kind != ACT_WAIT_SSH)
				continue;
			*host = a->probe_host ? a->probe_host : fcr_target_probe_host(&R->tgt);
			*port = a->probe_host ? a->probe_port : c->ssh_port;
			return *host != NULL;
		}
	}
	if (c->target != FCR_TARGET_SSH)
		return false;
	*host = fcr_target_probe_host(&R->tgt);
	*port = c->ssh_port;
	return *host != NULL;
}

/*
 * The machine may be off: power it on and wait for its SSH server, and
 * record in which state it was left.  Only a second Ctrl-C cuts this short.
 * Returns 0 when it is on (and answers SSH, where there is something to
 * probe).
 */
static int safety_power_on(struct runner *R, const char *why)
{
	const struct fcr_campaign *c = R->c;
	struct fcr_error pe = {0};
	fcr_progress_line("the machine may be off (%s): asking %s to power it on", why,
		      c->provider_type);
	json_t *res = json_object();
	int rc = c->provider->ensure_powered_on(R->prov, res, &pe);
	char state_buf[32] = "";
	snprintf(state_buf, sizeof(state_buf), "%s",
		 jstr(res, "server_state") ? jstr(res, "server_state") : "");
	const char *state = state_buf[0] ? state_buf : NULL;
	json_t *ev = json_pack("{s:s, s:s, s:O}", "why", why, "status", rc < 0 ? "failed" : "done",
			       "result", res);
	json_object_set_new(ev, "server_state", state ? json_string(state) : json_null());
	if (rc < 0)
		jset_str(ev, "error", pe.msg);
	const char *host = NULL;
	unsigned port = 0;
	bool ssh_ok = false;
	if (rc == 0 && safety_probe_target(R, &host, &port)) {
		struct fcr_probe_result pr;
		struct fcr_error perr;
		fcr_progress_line("waiting for SSH on %s:%u", host, port);
		int prc = fcr_probe_ssh(host, port, c->wait_timeout_ms, &g_hard_stop, &pr, &perr);
		json_t *ssh = json_pack("{s:s, s:i, s:i}", "host", host, "port", (int)port,
					"probes", (int)pr.probes);
		if (prc == 0) {
			ssh_ok = true;
			json_object_set_new(ssh, "answered", fcr_jutc(pr.ready_wall));
			json_object_set_new(ssh, "banner", json_string(pr.banner));
		} else {
			json_object_set_new(ssh, "error",
					    json_string(prc > 0 ? "stopped (Ctrl-C)" : perr.msg));
		}
		json_object_set_new(ev, "ssh", ssh);
	} else if (rc == 0) {
		ssh_ok = true; /* nothing to probe */
	}
	fcr_record_event(&R->rec, "ensure-powered-on", ev);
	json_decref(res);
	fcr_progress_clear();
	if (rc < 0) {
		fprintf(
		    stderr,
		    "fiocamp-run: could not power the machine on: %s\n"
		    "fiocamp-run: the server was left %s: power it on in the provider's panel\n",
		    pe.msg, state ? state : "in an unknown state");
		return -1;
	}
	if (!ssh_ok) {
		fprintf(stderr,
			"fiocamp-run: the server is %s, but SSH on %s:%u did not answer in time\n",
			state ? state : "on", host, port);
		return -1;
	}
	R->maybe_down = false;
	if (host)
		fprintf(stderr, "fiocamp-run: the server is %s again and answers SSH on %s:%u\n",
			state ? state : "on", host, port);
	else
		fprintf(stderr, "fiocamp-run: the server is %s again\n", state ? state : "on");
	return 0;
}

int fcr_run_campaign(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct runner R_ = {.c = c, .o = o}, *R = &R_;
	struct fcr_error err;
	R->started_mono = cm_mono_s();
	fcr_progress_init(o->quiet		      ? FCR_PROGRESS_QUIET
		      : isatty(STDERR_FILENO) ? FCR_PROGRESS_TTY
					      : FCR_PROGRESS_PLAIN);
	int exit_code = FCR_EXIT_FAILED;
	if (resolve_jobs(R, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		release_runner(R);
		return FCR_EXIT_USAGE;
	}
	bool resume = o->resume_dir != NULL;
	R->resumed = resume;
	R->session_wall = cm_wall_s();
	R->restored_down_wall = NAN;
	if (resume) {
		R->cdir = cm_strdup(o->resume_dir);
		if (fcr_record_open(&R->rec, R->cdir, &err) < 0 || load_manifest(R, &err) < 0) {
			fprintf(stderr, "fiocamp-run: cannot resume: %s\n", err.msg);
			release_runner(R);
			return FCR_EXIT_USAGE;
		}
	}
	bool complete = resume && status_is(R->rec.m, "done");
	if (resume && !complete && check_job_sources(R, &err) < 0) {
		fprintf(stderr, "fiocamp-run: cannot resume: %s\n", err.msg);
		release_runner(R);
		return FCR_EXIT_USAGE;
	}
	/* credentials before anything is created: a bad token file is a usage error */
	if (!complete && open_provider(R, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		release_runner(R);
		return FCR_EXIT_USAGE;
	}
	if (!resume) {
		if (create_campaign_dir(R, &err) < 0) {
			fprintf(stderr, "fiocamp-run: %s\n", err.msg);
			release_runner(R);
			return FCR_EXIT_USAGE;
		}
		if (fcr_record_open(&R->rec, R->cdir, &err) < 0) {
			fprintf(stderr, "fiocamp-run: %s\n", err.msg);
			release_runner(R);
			return FCR_EXIT_FAILED;
		}
		R->rec.session = 1;
		R->rec.m = new_manifest(R);
	}
	R->journal_ready = true;
	install_signals();
	fcr_record_event(&R->rec, resume ? "resume" : "campaign-start",
		     json_pack("{s:s, s:s, s:b}", "campaign", c->name, "directory", R->cdir,
			       "keep_going", o->keep_going));
	if (complete) {
		fcr_progress_line("%s: the campaign is complete; nothing left to do", R->cdir);
		fcr_record_event(&R->rec, "campaign-end", json_pack("{s:s}", "status", "done"));
		if (!o->quiet)
			print_analysis(R);
		release_runner(R);
		return FCR_EXIT_OK;
	}
	json_object_set_new(R->rec.m, "status", json_string("running"));
	if (fcr_record_save(&R->rec) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", R->rec.err.msg);
		release_runner(R);
		return FCR_EXIT_FAILED;
	}
	fcr_progress_line("campaign %s: %s%s", c->name, R->cdir, resume ? " (resumed)" : "");

	const char *final = "failed";
	enum step result = STEP_OK;
	if (fcr_target_init(&R->tgt, c, &g_interrupts, &g_hard_stop, &err) < 0) {
		fcr_progress_line("%s", err.msg);
		journal_failure(R, "target", err.msg);
		result = STEP_FAILED;
		goto end;
	}
	if (resume) {
		R->maybe_down = manifest_maybe_down(R);
		/* an ssh target can only be checked once the machine is back */
		if (R->maybe_down && c->target == FCR_TARGET_SSH &&
		    safety_power_on(R, "resuming a transition that was cut short") < 0) {
			journal_failure(R, "resume", "the machine could not be brought back");
			result = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
			goto end;
		}
	}
	char *fio_version = NULL;
	json_t *host = json_object();
	fcr_progress_line("preflight: %s", c->target_text);
	if (fcr_target_preflight(&R->tgt, host, &fio_version, &err) < 0) {
		json_decref(host);
		fcr_progress_line("preflight failed: %s", err.msg);
		journal_failure(R, "preflight", err.msg);
		result = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
		goto end;
	}
	json_object_set_new(R->rec.m, "fio_version", fcr_jtext(fio_version));
	json_object_set_new(R->rec.m, "host", host);
	fcr_record_event(&R->rec, "preflight",
		     json_pack("{s:O, s:O, s:s*}", "fio_version", jget(R->rec.m, "fio_version"),
			       "host", host, "remote_dir", R->tgt.remote_tmp));
	free(fio_version);
	if (provider_preflight(R, &err) < 0) {
		fcr_progress_clear();
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		journal_failure(R, "provider", err.msg);
		result = g_interrupts ? STEP_INTERRUPTED : STEP_FAILED;
		goto end;
	}
	fcr_record_save(&R->rec);
	count_work(R);

	json_t *prefill = jget(R->rec.m, "prefill");
	if (c->prefill && !status_is(prefill, "done")) {
		result = run_prefill(R, "prefill", prefill, "prefill");
		fcr_record_save(&R->rec);
	}
	bool any_failed = result == STEP_FAILED;
	if (result == STEP_FAILED && !o->keep_going)
		goto end;
	result = STEP_OK;
	for (size_t si = 0; si < c->n_states; si++) {
		enum step s = run_state(R, si);
		if (s == STEP_FAILED) {
			any_failed = true;
			/* the next states must not find the machine off */
			if (o->keep_going && R->maybe_down && R->prov_ready &&
			    safety_power_on(R, "a state failed; --keep-going goes on") < 0)
				s = STEP_FATAL;
			else if (o->keep_going)
				continue;
		}
		if (s != STEP_OK) {
			result = s;
			break;
		}
	}
	if (result == STEP_OK && any_failed)
		result = STEP_FAILED;
	if (result == STEP_OK)
		final = "done";
	/* as the campaign file wants it, but worth saying */
	if (result == STEP_OK && R->maybe_down && R->prov_ready)
		provider_note(R, "warning",
			      "the campaign ends with the machine taken away (no wait-ssh saw it "
			      "back after the last power-off, reboot or revert)");
end:
	if (R->rec.failed) {
		fprintf(stderr, "\nfiocamp-run: %s\n", R->rec.err.msg);
		result = STEP_FATAL;
	}
	if (result == STEP_INTERRUPTED || (g_interrupts && result != STEP_OK)) {
		final = "interrupted";
		exit_code = FCR_EXIT_INTERRUPTED;
	} else if (result == STEP_OK) {
		exit_code = FCR_EXIT_OK;
	}
	/* mark whatever was left running */
	json_t *states = jget(R->rec.m, "states");
	for (size_t si = 0; si < json_array_size(states); si++) {
		json_t *s = json_array_get(states, si);
		if (status_is(s, "running"))
			json_object_set_new(s, "status", json_string(final));
	}
	if (R->maybe_down && R->prov_ready && result != STEP_OK) {
		fcr_record_save(&R->rec);
		safety_power_on(R, g_interrupts ? "interrupted" : "the campaign failed");
	}
	fcr_target_cleanup(&R->tgt);
	json_object_set_new(R->rec.m, "status", json_string(final));
	fcr_record_event(&R->rec, "campaign-end",
		     json_pack("{s:s, s:o}", "status", final, "elapsed_s",
			       fcr_jseconds(cm_mono_s() - R->started_mono)));
	fcr_record_save(&R->rec);
	fcr_progress_clear();
	char el[32];
	fmt_clock(el, sizeof(el), cm_mono_s() - R->started_mono);
	if (exit_code == FCR_EXIT_INTERRUPTED) {
		fprintf(
		    stderr,
		    "fiocamp-run: interrupted after %s; continue with: fiocamp-run --resume %s\n",
		    el, R->cdir);
	} else if (exit_code != FCR_EXIT_OK) {
		fprintf(stderr,
			"fiocamp-run: the campaign failed after %s (details in %s/manifest.json); "
			"after fixing the cause: fiocamp-run --resume %s\n",
			el, R->cdir, R->cdir);
	} else {
		fcr_progress_line("campaign %s done in %s: %s", c->name, el, R->cdir);
	}
	if (!o->quiet &&
	    (exit_code == FCR_EXIT_OK || (o->keep_going && exit_code == FCR_EXIT_FAILED)))
		print_analysis(R);
	release_runner(R);
	return exit_code;
}

/* ---- --dry-run ----------------------------------------------------------- */

/* A provider's description, one line each, below the step it belongs to. */
static void print_indented(const char *text)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		printf("           %.*s\n", (int)n, l);
		l += n + (nl ? 1 : 0);
	}
}

int fcr_run_dry(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct runner R_ = {.c = c, .o = o}, *R = &R_;
	struct fcr_error err;
	if (resolve_jobs(R, &err) < 0 || fcr_target_init(&R->tgt, c, NULL, NULL, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		release_runner(R);
		return FCR_EXIT_USAGE;
	}
	char size[32], pause[32], runtime[32];
	cm_format_size(size, sizeof(size), c->size_bytes);
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	cm_format_duration(runtime, sizeof(runtime), c->runtime_ms);
	printf("campaign %s (%s): %zu state%s x %u round%s x %zu test%s, target %s\n", c->name,
	       c->source, c->n_states, c->n_states == 1 ? "" : "s", c->rounds,
	       c->rounds == 1 ? "" : "s", c->suite.n, c->suite.n == 1 ? "" : "s", c->target_text);
	printf("test file %s, %s (%llu bytes); runtime %s; pause %s; ioengine %s, direct=%d\n",
	       R->tgt.test_file, size, (unsigned long long)c->size_bytes, runtime, pause,
	       c->ioengine, c->direct);
	printf("provider %s\n", c->provider_type);
	struct fcr_provider_section sec = provider_section_of(c);
	struct cm_strv problems = {0};
	if (c->provider->configure(&sec, NULL, &R->prov, &problems) < 0) {
		for (size_t i = 0; i < problems.n; i++)
			fprintf(stderr, "%s\n", problems.v[i]);
		cm_strv_release(&problems);
		release_runner(R);
		return FCR_EXIT_USAGE;
	}
	R->prov_ready = true;
	if (o->resume_dir)
		printf("resuming %s: steps marked done there are skipped\n", o->resume_dir);
	else
		printf("campaign directory %s\n", o->out_dir ? o->out_dir : "NAME-YYYYmmdd-HHMMSS");
	printf("jobs:\n");
	for (size_t i = 0; i < c->suite.n; i++)
		printf("  %-10s %s\n", R->jobs[i].test, R->jobs[i].origin);
	if (R->prefill_job.origin)
		printf("  %-10s %s\n", "prefill", R->prefill_job.origin);

	double total_s = 0;
	unsigned unknown = 0;
	unsigned step = 0;
	struct cm_strv env = {0}, argv = {0};
	char *joined;
	printf("\nplan:\n");
	printf("%3u. preflight on %s: fio --version, mkdir -p %s, free space >= %s\n", ++step,
	       c->target_text, c->directory, size);
	char *desc = c->provider->describe ? c->provider->describe(R->prov, NULL, 0, NULL) : NULL;
	if (desc) {
		printf("%3u. %s preflight, nothing changed:\n", ++step, c->provider_type);
		print_indented(desc);
		free(desc);
	}
	if (c->prefill) {
		fio_env(R, "prefill", &env);
		fcr_target_fio_argv(&R->tgt, "prefill", env.v, &argv);
		joined = fcr_shell_join(argv.v);
		char *envj = fcr_shell_join(env.v);
		printf("%3u. prefill -> prefill/prefill.json (duration depends on the disk)\n"
		       "       env %s %s\n",
		       ++step, envj, joined);
		free(envj);
		free(joined);
		cm_strv_release(&env);
		cm_strv_release(&argv);
		unknown++;
	}
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		printf("%3u. state %zu/%zu: %s\n", ++step, si + 1, c->n_states, st->name);
		for (size_t ai = 0; ai < st->n_actions; ai++) {
			const struct fcr_step *a = &st->actions[ai];
			char d[32];
			switch (a->kind) {
			case ACT_SETTLE:
				cm_format_duration(d, sizeof(d), a->settle_ms);
				printf("%3u.   settle %s\n", ++step, d);
				total_s += (double)a->settle_ms / 1000.0;
				break;
			case ACT_WAIT_SSH:
				printf("%3u.   wait-ssh %s:%u: a probe every %d ms until the SSH "
				       "banner "
				       "arrives twice in a row (at most %llus)\n",
				       ++step, a->probe_host ? a->probe_host : c->ssh_host,
				       a->probe_host ? a->probe_port : c->ssh_port,
				       FCR_PROBE_INTERVAL_MS,
				       (unsigned long long)(c->wait_timeout_ms / 1000));
				unknown++;
				break;
			case ACT_RUN:
				joined = fcr_shell_join(a->words.v + 1);
				printf("%3u.   run here: %s\n", ++step, joined);
				free(joined);
				unknown++;
				break;
			case ACT_REMOTE:
			case ACT_HASH:
			case ACT_VERIFY_HASH: {
				char *const sha[] = {"sha256sum", "--",
						     a->words.n > 1 ? a->words.v[1] : "", NULL};
				joined = fcr_shell_join(a->kind == ACT_REMOTE ? a->words.v + 1 : sha);
				printf("%3u.   %s on %s: %s%s\n", ++step, a->words.v[0],
				       c->target_text, joined,
				       a->kind == ACT_VERIFY_HASH
					   ? " (compared with the recorded hash)"
				       : a->kind == ACT_HASH ? " (recorded)"
							     : "");
				free(joined);
				unknown++;
				break;
			}
			case ACT_PREFILL:
				printf("%3u.   prefill -> prefill/before-%s.json (write the whole "
				       "test "
				       "file)\n",
				       ++step, st->name);
				unknown++;
				break;
			case ACT_FRESH_FILE:
				printf(
				    "%3u.   fresh-file: remove %s and create it again, %s, never "
				    "written (sparse)\n",
				    ++step, R->tgt.test_file, size);
				break;
			case ACT_PROVIDER:
				printf("%3u.   provider %s: %s%s\n", ++step, c->provider_type,
				       a->text,
				       a->takes_down ? " (the machine goes away: downtime starts)"
						     : "");
				desc =
				    c->provider->describe
					? c->provider->describe(R->prov, a->words.v[0],
								(int)a->words.n - 1, a->words.v + 1)
					: NULL;
				if (desc)
					print_indented(desc);
				free(desc);
				unknown++;
				break;
			}
		}
		for (unsigned r = 1; r <= c->rounds; r++) {
			if (r > 1 && c->pause_ms) {
				printf("%3u.   pause %s\n", ++step, pause);
				total_s += (double)c->pause_ms / 1000.0;
			}
			printf("%3u.   round %u/%u -> %s/r%u/\n", ++step, r, c->rounds, st->name,
			       r);
			for (size_t ti = 0; ti < c->suite.n; ti++) {
				fio_env(R, R->jobs[ti].test, &env);
				fcr_target_fio_argv(&R->tgt, R->jobs[ti].test, env.v, &argv);
				joined = fcr_shell_join(argv.v);
				char *envj = fcr_shell_join(env.v);
				if (c->target == FCR_TARGET_LOCAL)
					printf("         %s (%s): cd %s/r%u && env %s %s\n",
					       R->jobs[ti].test, runtime, st->name, r, envj,
					       joined);
				else
					printf("         %s (%s): %s\n", R->jobs[ti].test, runtime,
					       joined);
				free(envj);
				free(joined);
				cm_strv_release(&env);
				cm_strv_release(&argv);
				total_s += (double)c->runtime_ms / 1000.0 + FIO_OVERHEAD_GUESS_S;
			}
		}
	}
	char d[32];
	cm_format_duration(d, sizeof(d), (uint64_t)(total_s * 1000));
	printf("\nexpected duration: about %s", d);
	if (unknown)
		printf(" plus %u step%s whose duration depends on the machine (prefill, waits, "
		       "commands, provider actions)",
		       unknown, unknown == 1 ? "" : "s");
	printf("\n");
	release_runner(R);
	return FCR_EXIT_OK;
}
