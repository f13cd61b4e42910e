/* SPDX-License-Identifier: MIT */
/* One fio run, from its job file to its verdict (fio.h). */
#include "fio/fio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiocamp.h>

#include "machine/environment.h"
#include "machine/sampler.h"
#include "util/status.h"

static void on_rate(void *opaque, const char *text)
{
	(void)opaque;
	fcr_status_fio_rate(text);
}

struct started {
	const char *test;
	struct fcr_record *rec;
	json_t *ev;		 /* the fio-start event, until it is journaled */
	struct fcr_sampler *smp; /* NULL: the run is not sampled */
};

static void on_ended(void *opaque)
{
	struct started *st = opaque;
	if (st->smp)
		fcr_sampler_stop(st->smp);
}

static void on_slow_stop(void *opaque, unsigned waited_s)
{
	struct started *st = opaque;
	fcr_progress_problem("fio (%s) has not ended %u s after the interrupt; "
			     "Ctrl-C again kills it",
			     st->test, waited_s);
}

static void on_started(void *opaque, json_t *proc)
{
	struct started *st = opaque;
	json_object_set(st->ev, "proc", proc);
	fcr_record_event(st->rec, "fio-start", st->ev);
	st->ev = NULL;
}

/* ---- the job files -------------------------------------------------------- */

int fcr_fio_resolve_jobs(struct fcr_fio *f, const char *campaign_dir, const char *jobs_dir,
			 bool need_prefill, struct fcr_error *err)
{
	const struct fcr_campaign *c = f->c;
	f->jobs = cm_calloc(c->suite.n, sizeof(*f->jobs));
	for (size_t i = 0; i < c->suite.n; i++) {
		if (fcr_jobs_resolve(c->suite.v[i], campaign_dir, jobs_dir, &f->jobs[i], err) < 0) {
			/* the campaign file names the test: say which */
			char *msg = cm_strdup(err->msg);
			fcr_fail(err, "%s: suite: %s", c->source, msg);
			free(msg);
			return -1;
		}
	}
	if (need_prefill &&
	    fcr_jobs_resolve("prefill", campaign_dir, jobs_dir, &f->prefill_job, err) < 0)
		return -1;
	/* a swept option the job file sets itself would make every point the same */
	struct cm_strv problems = {0};
	bool *checked = cm_calloc(c->suite.n + 1, sizeof(*checked)); /* with c->sweep */
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		bool shared = st->sweep == &c->sweep;
		for (size_t ti = 0; st->rounds && ti < st->n_tests; ti++) {
			if (shared && checked[st->tests[ti]])
				continue;
			checked[st->tests[ti]] |= shared;
			fcr_jobs_check_sweep(&f->jobs[st->tests[ti]], st->sweep, &problems);
		}
	}
	free(checked);
	int rc = 0;
	if (problems.n) {
		struct cm_buf b = {0};
		for (size_t i = 0; i < problems.n; i++)
			cm_buf_printf(&b, "%s%s", i ? "; " : "", problems.v[i]);
		fcr_fail(err, "%s", b.s);
		cm_buf_release(&b);
		rc = -1;
	}
	cm_strv_release(&problems);
	return rc;
}

void fcr_fio_release(struct fcr_fio *f)
{
	for (size_t i = 0; f->jobs && i < f->c->suite.n; i++)
		fcr_jobfile_release(&f->jobs[i]);
	free(f->jobs);
	f->jobs = NULL;
	fcr_jobfile_release(&f->prefill_job);
}

/* ---- the fio environment ------------------------------------------------ */

void fcr_fio_env(const struct fcr_fio *f, const struct fcr_jobfile *job, const char *test,
		 struct cm_strv *env)
{
	const struct fcr_campaign *c = f->c;
	const char *file = f->file ? f->file : f->target->test_file;
	cm_strv_addf(env, "FIOCAMP_FILE=%s", file ? file : "");
	cm_strv_addf(env, "FIOCAMP_SIZE=%llu",
		     (unsigned long long)(f->size_bytes ? f->size_bytes : c->size_bytes));
	cm_strv_addf(env, "FIOCAMP_RUNTIME=%llu", (unsigned long long)(c->runtime_ms / 1000));
	cm_strv_addf(env, "FIOCAMP_IOENGINE=%s", c->ioengine);
	cm_strv_addf(env, "FIOCAMP_DIRECT=%d", c->direct);
	cm_strv_addf(env, "FIOCAMP_TEST=%s", test);
	for (size_t i = 0; i < FCR_SWEEP_OPTS; i++) {
		enum fcr_sweep_opt o = (enum fcr_sweep_opt)i;
		const char *v = fcr_jobs_default(job, o);
		for (size_t a = 0; f->sweep && a < f->sweep->n_axes; a++) {
			if (f->sweep->axes[a].opt == o)
				v = fcr_sweep_value(f->sweep, f->point, a);
		}
		if (v)
			cm_strv_addf(env, "%s=%s", fcr_sweep_opt_env(o), v);
	}
}

char *fcr_fio_job_text(const struct fcr_jobfile *job, char *const *env, size_t *len)
{
	static const char prefix[] = "FIOCAMP_NUMJOBS=";
	unsigned long numjobs = 1;
	for (size_t i = 0; env[i]; i++) {
		if (!strncmp(env[i], prefix, sizeof(prefix) - 1) &&
		    fcr_parse_uint(env[i] + sizeof(prefix) - 1, ULONG_MAX, &numjobs) < 0)
			numjobs = 1;
	}
	if (numjobs <= 1 || fcr_jobs_sets(job, "group_reporting")) {
		*len = job->len;
		return cm_strndup(job->text, job->len);
	}
	char *text = cm_asprintf("; fiocamp-run: numjobs=%lu, its processes reported as one group\n"
				 "[global]\ngroup_reporting\n\n%s",
				 numjobs, job->text);
	*len = strlen(text);
	return text;
}

/* ---- evaluating a fio run ----------------------------------------------- */

/*
 * Makes every file of a run directory durable, then the directory itself.
 * Done once per round, before the manifest says "done", and not between
 * two fio runs, where it would add to the gap between them.
 */
void fcr_fio_sync_outputs(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	int *fds = NULL;
	size_t n = 0;
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		if (e->d_name[0] == '.')
			continue;
		struct stat st;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		fds = cm_realloc(fds, n + 1, sizeof(*fds));
		fds[n++] = fd;
	}
	/* the directory last: its entries after the files they name */
	fds = cm_realloc(fds, n + 1, sizeof(*fds));
	fds[n++] = dup(dirfd(d));
	closedir(d);
	fcr_fsync_fds(fds, n, NULL);
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
	}
	free(fds);
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

/* The largest of a bs value's sizes ("4k", "1M", "4k,64k"): fio's suffixes,
 * powers of 1024 (k, m, g, with "i" and "b" allowed); 0 when unreadable. */
static uint64_t largest_block(const char *bs)
{
	uint64_t max = 0;
	while (bs && *bs) {
		char *end;
		unsigned long long n = strtoull(bs, &end, 10);
		if (end == bs)
			return max;
		uint64_t unit = 1;
		switch (*end | 0x20) {
		case 'k':
			unit = 1024;
			break;
		case 'm':
			unit = 1024 * 1024;
			break;
		case 'g':
			unit = 1024 * 1024 * 1024;
			break;
		}
		if (n * unit > max && n < (1ull << 32))
			max = n * unit;
		bs = strchr(end, ',');
		if (bs)
			bs++;
	}
	return max;
}

/* Reads fio's JSON; fills obj's iops and, on a problem, error text.  Returns
 * true when the report is complete and no job reported an error. */
static bool judge_report(const char *json_path, json_t *obj, double *fio_bytes, char *why,
			 size_t len)
{
	*fio_bytes = NAN;
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
		double iops = 0, bytes = 0, bw = 0;
		json_t *shares = json_object(); /* client mode: IOPS by host */
		for (size_t j = 0; j < out->final->n_jobs; j++) {
			const struct fc_job *job = &out->final->jobs[j];
			if (job->all_clients)
				continue; /* the sum of the others */
			if (job->hostname) {
				double share = 0;
				for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
					if (job->dir[d].present && isfinite(job->dir[d].iops))
						share += job->dir[d].iops;
				}
				json_t *had = json_object_get(shares, job->hostname);
				json_object_set_new(
				    shares, job->hostname,
				    json_real(round((json_number_value(had) + share) * 1000) /
					      1000));
			}
			if (job->error && ok) {
				snprintf(why, len, "fio reported error %d (%s) in job %s",
					 job->error, strerror(job->error),
					 job->name ? job->name : "?");
				ok = false;
			}
			for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
				if (job->dir[d].present && isfinite(job->dir[d].iops))
					iops += job->dir[d].iops;
				if (job->dir[d].present && isfinite(job->dir[d].bw_bytes))
					bw += job->dir[d].bw_bytes;
				if (job->dir[d].present)
					bytes += (double)job->dir[d].io_bytes;
			}
		}
		if (json_object_size(shares))
			json_object_set(obj, "client_iops", shares);
		json_decref(shares);
		*fio_bytes = bytes;
		if (out->final->n_jobs == 0 && ok) {
			snprintf(why, len, "fio's report lists no job");
			ok = false;
		}
		json_object_set_new(obj, "iops", json_real(round(iops * 1000) / 1000));
		json_object_set_new(obj, "bw_bytes", json_real(round(bw)));
		/* fiocamp-analyze's choice: bandwidth for blocks of 64 KiB and more */
		const char *bs = out->final->n_jobs
				     ? fc_job_option(out->final, &out->final->jobs[0], "bs")
				     : NULL;
		json_object_set_new(obj, "headline",
				    json_string(largest_block(bs) >= 64 * 1024 ? "bw" : "iops"));
	}
	fc_output_free(out);
	return ok;
}

/*
 * The samples of a run as <name>.telemetry beside its report (made durable
 * with the round's files) and their summary as obj's "telemetry"; null
 * with "telemetry_error" when there is none.  Returns why the run was
 * disturbed (borrowed from obj), or NULL.
 */
static const char *record_telemetry(struct fcr_fio *f, struct fcr_sampler *smp, const char *dir_rel,
				    const char *name, const char *device, double fio_bytes,
				    json_t *obj)
{
	struct cm_tm_series series;
	char why[512];
	json_object_del(obj, "telemetry_error");
	if (fcr_sampler_finish(smp, &series, why, sizeof(why)) < 0) {
		json_object_set_new(obj, "telemetry", json_null());
		fcr_jset_text(obj, "telemetry_error", why);
		return NULL;
	}
	struct cm_buf b = {0};
	cm_tm_write_header(&b);
	for (size_t i = 0; i < series.n; i++)
		cm_tm_write_sample(&b, &series.samples[i]);
	char *rel = cm_asprintf("%s/%s.telemetry", dir_rel, name);
	char *abs = cm_asprintf("%s/%s", f->cdir, rel);
	struct fcr_error err;
	if (fcr_write_file_nosync(abs, b.s, b.len, &err) < 0) {
		json_object_set_new(obj, "telemetry", json_null());
		fcr_jset_text(obj, "telemetry_error", err.msg);
	} else {
		json_t *sum = fcr_telemetry_summary(
		    &series, device, fio_bytes, f->c->disturbed_steal, f->c->disturbed_foreign_io);
		json_t *t = json_pack("{s:s}", "file", rel);
		json_object_update(t, sum);
		json_decref(sum);
		json_object_set_new(obj, "telemetry", t);
	}
	cm_buf_release(&b);
	free(rel);
	free(abs);
	cm_tm_series_release(&series);
	return fcr_jstr(json_object_get(obj, "telemetry"), "disturbed");
}

/* ---- mode = aggregate: one client, every host's server ------------------ */

/* `text` with each ${NAME} that env (NAME=value) sets put in: the client
 * has one environment for all its servers, each host's values must be in
 * its own job file. */
static char *put_in_env(const char *text, size_t len, char *const *env, size_t *out_len)
{
	struct cm_buf b = {0};
	cm_buf_puts(&b, "");
	for (size_t i = 0; i < len;) {
		const char *end = i + 2 < len && text[i] == '$' && text[i + 1] == '{'
				      ? memchr(text + i + 2, '}', len - i - 2)
				      : NULL;
		const char *value = NULL;
		size_t nl = end ? (size_t)(end - (text + i + 2)) : 0;
		for (size_t k = 0; end && env[k] && !value; k++) {
			if (!strncmp(env[k], text + i + 2, nl) && env[k][nl] == '=')
				value = env[k] + nl + 1;
		}
		if (value) {
			cm_buf_puts(&b, value);
			i = (size_t)(end - text) + 1;
		} else {
			cm_buf_putn(&b, text + i, 1);
			i++;
		}
	}
	*out_len = b.len;
	return cm_buf_take(&b);
}

/*
 * Each host's job file and environment, <name>.<host>.fio and .env in dir
 * (obj's "jobs" and "envs", by host); files gets their absolute paths, in
 * the order of the servers.
 */
static int write_client_jobs(struct fcr_fio *f, const char *dir_rel, const char *name,
			     const struct fcr_jobfile *job, json_t *obj, struct cm_strv *files,
			     struct fcr_error *err)
{
	const struct fcr_fio_hosts *H = f->hosts;
	char *dir = cm_asprintf("%s/%s", f->cdir, dir_rel);
	char *dir_abs = realpath(dir, NULL);
	free(dir);
	if (!dir_abs)
		return fcr_fail_errno(err, errno, "%s/%s", f->cdir, dir_rel);
	json_t *jobs = json_object(), *envs = json_object();
	json_object_set_new(obj, "jobs", jobs);
	json_object_set_new(obj, "envs", envs);
	int rc = 0;
	for (size_t i = 0; i < H->n && rc == 0; i++) {
		const struct fcr_fioserver *s = &H->servers[i];
		struct fcr_fio hf = *f;
		hf.c = s->t->c;
		hf.target = s->t;
		hf.file = NULL;
		hf.size_bytes = 0;
		struct cm_strv env = {0};
		fcr_fio_env(&hf, job, name, &env);
		size_t tl, jl;
		char *t = fcr_fio_job_text(job, env.v, &tl);
		char *text = put_in_env(t, tl, env.v, &jl);
		free(t);
		struct cm_buf envtext = {0};
		for (size_t k = 0; k < env.n; k++)
			cm_buf_printf(&envtext, "%s\n", env.v[k]);
		char *job_rel = cm_asprintf("%s/%s.%s.fio", dir_rel, name, s->host);
		char *env_rel = cm_asprintf("%s/%s.%s.env", dir_rel, name, s->host);
		char *job_abs = cm_asprintf("%s/%s", f->cdir, job_rel);
		char *env_abs = cm_asprintf("%s/%s", f->cdir, env_rel);
		if (fcr_write_file_nosync(job_abs, text, jl, err) < 0 ||
		    fcr_write_file_nosync(env_abs, envtext.s, envtext.len, err) < 0)
			rc = -1;
		json_object_set_new(jobs, s->host, json_string(job_rel));
		json_object_set_new(envs, s->host, json_string(env_rel));
		cm_strv_addf(files, "%s/%s.%s.fio", dir_abs, name, s->host);
		free(job_rel);
		free(env_rel);
		free(job_abs);
		free(env_abs);
		free(text);
		cm_buf_release(&envtext);
		cm_strv_release(&env);
	}
	free(dir_abs);
	return rc;
}

/*
 * One fio run: writes <name>.fio and <name>.env into dir, runs fio, records
 * everything in obj.  `what` labels the run in messages ("sparse r1 rr4k").
 */
enum fcr_outcome fcr_fio_run(struct fcr_fio *f, const char *dir_rel, const char *name,
			     const struct fcr_jobfile *job, json_t *obj, json_t *where,
			     const char *what)
{
	struct fcr_error err;
	char *dir = cm_asprintf("%s/%s", f->cdir, dir_rel);
	char *job_rel = cm_asprintf("%s/%s.fio", dir_rel, name);
	char *env_rel = cm_asprintf("%s/%s.env", dir_rel, name);
	char *json_rel = cm_asprintf("%s/%s.json", dir_rel, name);
	char *stderr_rel = cm_asprintf("%s/%s.stderr", dir_rel, name);
	char *job_abs = cm_asprintf("%s/%s", f->cdir, job_rel);
	char *env_abs = cm_asprintf("%s/%s", f->cdir, env_rel);
	char *json_abs = cm_asprintf("%s/%s", f->cdir, json_rel);
	char *stderr_abs = cm_asprintf("%s/%s", f->cdir, stderr_rel);
	struct cm_strv env = {0};
	struct cm_strv argv = {0};
	enum fcr_outcome result = FCR_FAILED;
	fcr_fio_env(f, job, name, &env);
	size_t job_len;
	char *job_text = fcr_fio_job_text(job, env.v, &job_len);
	struct cm_buf envtext = {0};
	for (size_t i = 0; i < env.n; i++) {
		cm_buf_puts(&envtext, env.v[i]);
		cm_buf_puts(&envtext, "\n");
	}
	json_object_set_new(obj, "status", json_string(CM_STATUS_RUNNING));
	struct cm_strv client_jobs = {0};
	/* made durable with the other outputs when the round ends (sync_outputs) */
	if (f->hosts ? write_client_jobs(f, dir_rel, name, job, obj, &client_jobs, &err) < 0
		     : fcr_write_file_nosync(job_abs, job_text, job_len, &err) < 0 ||
			   fcr_write_file_nosync(env_abs, envtext.s, envtext.len, &err) < 0) {
		cm_strv_release(&client_jobs);
		cm_buf_release(&envtext);
		json_object_set_new(obj, "status", json_string(CM_STATUS_FAILED));
		fcr_jset_text(obj, "error", err.msg);
		fcr_progress_problem("%s: %s", what, err.msg);
		goto out;
	}
	cm_buf_release(&envtext);
	if (!f->hosts) {
		fcr_jset_text(obj, "job", job_rel);
		fcr_jset_text(obj, "env", env_rel);
		fcr_target_fio_argv(f->target, name, env.v, job_len, &argv);
	} else {
		fcr_fioserver_client_argv(f->hosts->servers, f->hosts->n, client_jobs.v, &argv);
	}
	json_t *ev = json_deep_copy(where);
	char *joined = fcr_shell_join(argv.v);
	json_object_set_new(ev, "argv", json_string(joined));
	free(joined);
	/* journaled once fio runs, with its pid: a later session stops it if it
	 * outlives us (machine/reap.h) */
	/* the machine meanwhile: the prefill fills a file, it measures nothing */
	bool sample = strcmp(dir_rel, "prefill") != 0 && !f->hosts;
	struct fcr_sampler smp;
	struct cm_strv devices = {0};
	if (sample) {
		fcr_environment_devices(f->environment, f->variant, &devices);
		fcr_sampler_start(&smp, f->target, &devices);
	}
	struct started start = {name, f->rec, ev, sample ? &smp : NULL};
	double t0_wall = cm_wall_s(), t0 = cm_mono_s();
	fcr_status_fio_start(name);
	json_object_set_new(obj, "started", fcr_jutc(t0_wall));
	struct fcr_fio_exec x = {
	    .test = name,
	    .dir = dir,
	    .env = env.v,
	    .on_status = on_rate,
	    .on_start = on_started,
	    .on_end = on_ended,
	    .on_slow_stop = on_slow_stop,
	    .opaque = &start,
	    .interrupts = f->stop,
	};
	if (sample)
		fcr_sampler_fio_starts(&smp);
	int rc = f->hosts ? fcr_fioserver_run_client(f->hosts->servers, f->hosts->n,
						     f->hosts->run_dir, client_jobs.v, &x, &err)
			  : fcr_target_run_fio(f->target, &x, &err);
	cm_strv_release(&client_jobs);
	if (start.ev) /* fio did not start: the attempt is journaled all the same */
		fcr_record_event(f->rec, "fio-start", start.ev);
	double t1 = cm_mono_s(), t1_wall = cm_wall_s();
	f->last_end_mono = t1;
	double extra_s = NAN; /* beyond the runtime, for the ETA */
	json_object_set_new(obj, "finished", fcr_jutc(t1_wall));
	json_object_set_new(obj, "duration_s", fcr_jseconds(t1 - t0));

	char why[1600] = "";
	bool interrupted = x.interrupted || (f->stop && *f->stop);
	if (x.started && WIFEXITED(x.status))
		json_object_set_new(obj, "exit_status", json_integer(WEXITSTATUS(x.status)));
	else
		json_object_set_new(obj, "exit_status", json_null());
	bool have_json = fcr_path_exists(json_abs);
	fcr_jset_text(obj, "json", have_json ? json_rel : NULL);
	json_object_set_new(obj, "logs", list_logs(dir, dir_rel, name));
	bool have_stderr = fcr_path_exists(stderr_abs);
	fcr_jset_text(obj, "stderr", have_stderr ? stderr_rel : NULL);

	bool ok = false;
	double fio_bytes = NAN;
	if (rc < 0) {
		snprintf(why, sizeof(why), "%s", err.msg);
	} else if (!have_json) {
		snprintf(why, sizeof(why), "fio wrote no JSON report");
	} else {
		/* the report first: a job's error says more than fio's exit status */
		ok = judge_report(json_abs, obj, &fio_bytes, why, sizeof(why));
	}
	const char *disturbed = NULL;
	if (sample)
		disturbed = record_telemetry(f, &smp, dir_rel, name,
					     devices.n ? devices.v[0] : NULL, fio_bytes, obj);
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
		result = FCR_INTERRUPTED;
		json_object_set_new(obj, "status", json_string(CM_STATUS_INTERRUPTED));
	} else if (ok) {
		result = FCR_DONE;
		json_object_set_new(obj, "status", json_string(CM_STATUS_DONE));
		if (f->c->runtime_ms && strcmp(dir_rel, "prefill"))
			extra_s = (t1 - t0) - (double)f->c->runtime_ms / 1000.0;
	} else {
		result = FCR_FAILED;
		json_object_set_new(obj, "status", json_string(CM_STATUS_FAILED));
		fcr_jset_text(obj, "error", why);
	}
	fcr_status_fio_end(extra_s);
	ev = json_deep_copy(where);
	json_object_set_new(ev, "status", json_incref(json_object_get(obj, "status")));
	json_object_set_new(ev, "exit_status", json_incref(json_object_get(obj, "exit_status")));
	json_object_set_new(ev, "duration_s", fcr_jseconds(t1 - t0));
	if (json_object_get(obj, "iops"))
		json_object_set_new(ev, "iops", json_incref(json_object_get(obj, "iops")));
	if (result == FCR_FAILED)
		fcr_jset_text(ev, "error", why);
	if (sample)
		fcr_jset_text(ev, "disturbed", disturbed);
	/* durable with the manifest's next save, which records the run: not
	 * between two runs, where a sync would add to the gap between them */
	fcr_record_event_lazy(f->rec, "fio-end", ev);
	if (result == FCR_DONE) {
		double iops = json_number_value(json_object_get(obj, "iops"));
		fcr_progress_line("%s: %.0f IOPS (%.1fs)%s%s", what, iops, t1 - t0,
				  disturbed ? "; disturbed: " : "", disturbed ? disturbed : "");
	} else if (result == FCR_FAILED) {
		fcr_progress_problem("%s: FAILED: %s", what, why);
	} else {
		fcr_progress_line("%s: interrupted", what);
	}
	cm_strv_release(&devices);
out:
	cm_strv_release(&env);
	cm_strv_release(&argv);
	free(job_text);
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

/* Moves the prefill files of `name` (prefill/<name>.*) into
 * prefill/<name>.interrupted-<k>/. */
static int move_prefill_aside(struct fcr_fio *f, const char *name, struct fcr_error *err)
{
	char *dir = cm_asprintf("%s/prefill", f->cdir);
	DIR *d = opendir(dir);
	if (!d) {
		free(dir);
		return 0;
	}
	size_t nl = strlen(name);
	struct cm_strv found = {0};
	for (struct dirent *e = readdir(d); e; e = readdir(d)) {
		if (!strncmp(e->d_name, name, nl) && e->d_name[nl] == '.' &&
		    strncmp(e->d_name + nl, "." CM_ASIDE_INTERRUPTED "-",
			    strlen("." CM_ASIDE_INTERRUPTED "-")))
			cm_strv_add(&found, e->d_name);
	}
	closedir(d);
	int rc = 0;
	if (found.n) {
		char *base = cm_asprintf("%s/%s", dir, name);
		unsigned k;
		char *aside = fcr_aside_name(base, CM_ASIDE_INTERRUPTED, &k);
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
			fcr_record_event(f->rec, "moved-aside",
					 json_pack("{s:s, s:s}", "from", name, "to",
						   aside + strlen(f->cdir) + 1));
			fcr_fsync_dir(dir, NULL);
		}
		free(aside);
	}
	cm_strv_release(&found);
	free(dir);
	return rc;
}

/* ---- prefill ------------------------------------------------------------- */

enum fcr_outcome fcr_fio_prefill(struct fcr_fio *f, const char *name, json_t *obj,
				 const char *label)
{
	struct fcr_error err;
	char *dir = cm_asprintf("%s/prefill", f->cdir);
	if (fcr_mkdir_p(dir, 0755, &err) < 0 || move_prefill_aside(f, name, &err) < 0) {
		free(dir);
		fcr_progress_problem("%s: %s", label, err.msg);
		fcr_jset_text(obj, "error", err.msg);
		json_object_set_new(obj, "status", json_string(CM_STATUS_FAILED));
		return FCR_FAILED;
	}
	free(dir);
	fcr_progress_line("%s: writing the whole test file (%s)", label,
			  f->size_text ? f->size_text : f->c->size_text);
	fcr_status_show(label, true);
	json_t *where = json_pack("{s:s}", "test", name);
	if (f->variant)
		json_object_set_new(where, "variant", json_string(f->variant));
	json_t *fio = json_object();
	enum fcr_outcome s = fcr_fio_run(f, "prefill", name, &f->prefill_job, fio, where, label);
	json_decref(where);
	char *pdir = cm_asprintf("%s/prefill", f->cdir);
	fcr_fio_sync_outputs(pdir);
	free(pdir);
	/* the manifest keeps prefill as {status, json}: the details go to its fio object */
	json_object_set(obj, "status", json_object_get(fio, "status"));
	json_object_set(obj, "json", json_object_get(fio, "json"));
	json_object_set(obj, "started", json_object_get(fio, "started"));
	json_object_set(obj, "finished", json_object_get(fio, "finished"));
	json_object_set(obj, "duration_s", json_object_get(fio, "duration_s"));
	if (json_object_get(fio, "error"))
		json_object_set(obj, "error", json_object_get(fio, "error"));
	json_decref(fio);
	return s;
}
