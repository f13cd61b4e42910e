/* SPDX-License-Identifier: MIT */
/*
 * Reading the runs: each fio output once with fc_output_read_file(), its
 * per-second rate log with fc_profile_read_file(), on several threads.
 * Then the checks that keep failed runs out of the statistics.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static char *reason_from_error(const struct fc_error *err)
{
	/* The message may already start with the status text. */
	const char *what = fc_status_text(err->code);
	if (strncmp(err->message, what, strlen(what)) == 0)
		what = "";
	const char *sep = what[0] ? ": " : "";
	if (err->line)
		return an_asprintf("%s%sline %lu: %s", what, sep, err->line, err->message);
	if (err->has_offset)
		return an_asprintf("%s%sbyte %llu: %s", what, sep, err->offset, err->message);
	if (err->message[0])
		return an_asprintf("%s%s%s", what, sep, err->message);
	return an_strdup(fc_status_text(err->code));
}

static double percentile_us(const struct fc_lat *l, double pct)
{
	for (size_t i = 0; i < l->n_percentiles; i++) {
		if (fabs(l->percentiles[i].percent - pct) < 1e-6)
			return l->percentiles[i].value_ns / 1000.0;
	}
	return NAN;
}

static double mean_us(const struct fc_lat *l)
{
	if (!l->present || (l->n_known && l->n == 0))
		return NAN;
	return l->mean_ns / 1000.0;
}

static void extract_dir(const struct fc_dir *d, struct an_dirvals *dv)
{
	for (int m = 0; m < AN_M_COUNT; m++)
		dv->v[m] = NAN;
	dv->present = d->present && (d->total_ios > 0 || d->io_bytes > 0);
	if (!dv->present)
		return;
	dv->v[AN_M_IOPS] = d->iops;
	dv->v[AN_M_BW] = d->bw_bytes / (1024.0 * 1024.0);
	dv->v[AN_M_CLAT_MEAN] = mean_us(&d->clat);
	dv->v[AN_M_LAT_MEAN] = mean_us(&d->lat);
	dv->v[AN_M_CLAT_P50] = percentile_us(&d->clat, 50.0);
	dv->v[AN_M_CLAT_P99] = percentile_us(&d->clat, 99.0);
	dv->v[AN_M_CLAT_P999] = percentile_us(&d->clat, 99.9);
	dv->v[AN_M_LAT_P50] = percentile_us(&d->lat, 50.0);
	dv->v[AN_M_LAT_P99] = percentile_us(&d->lat, 99.0);
	dv->v[AN_M_LAT_P999] = percentile_us(&d->lat, 99.9);
}

/* Checks the final report and copies out what the statistics need. */
static char *take_run(struct an_run *r, const struct fc_output *out)
{
	const struct fc_run *run = out->final;
	if (out->signal)
		return an_asprintf("fio was stopped by signal %d, so the run was cut short",
				   out->signal);
	if (run->n_jobs == 0)
		return an_strdup("the report holds no jobs");
	for (size_t j = 0; j < run->n_jobs; j++) {
		const struct fc_job *job = &run->jobs[j];
		if (job->error != 0)
			return an_asprintf("job \"%s\" failed with error %d (%s)", job->name,
					   job->error, strerror(job->error));
	}
	r->n_jobs = run->n_jobs;
	r->jobs = an_calloc(run->n_jobs, sizeof(*r->jobs));
	bool any_io = false;
	for (size_t j = 0; j < run->n_jobs; j++) {
		const struct fc_job *job = &run->jobs[j];
		struct an_job *aj = &r->jobs[j];
		aj->name = an_strdup(job->name ? job->name : "");
		if (fc_job_option(run, job, "runtime") || fc_job_option(run, job, "time_based"))
			r->timed = true;
		const char *avg = fc_job_option(run, job, "log_avg_msec");
		if (avg && !r->log_avg_ms)
			r->log_avg_ms = strtoull(avg, NULL, 10);
		for (int d = 0; d < FC_DDIR_COUNT; d++) {
			extract_dir(&job->dir[d], &aj->dir[d]);
			aj->dir[d].log_type = FC_LOG_UNKNOWN;
		}
		for (size_t k = 0; k < AN_N_REPORT_DIRS; k++) {
			enum fc_ddir d = an_report_dirs[k];
			if (!aj->dir[d].present)
				continue;
			any_io = true;
			if (job->dir[d].runtime_ms > r->runtime_ms)
				r->runtime_ms = job->dir[d].runtime_ms;
			/* mixed repeats read+write+trim under unified_rw_reporting=both */
			if (d != FC_DDIR_MIXED || !job->dir[FC_DDIR_READ].present)
				r->io_bytes += job->dir[d].io_bytes;
		}
	}
	if (!any_io)
		return an_strdup("no I/O was done (every job moved 0 bytes)");
	if (run->timestamp_ms >= 0)
		r->timestamp_ms = run->timestamp_ms;
	else if (run->timestamp_s >= 0)
		r->timestamp_ms = run->timestamp_s * 1000;
	if (run->fio_version)
		r->fio_version = an_strdup(run->fio_version);
	return NULL;
}

/* Copies the profile's series into the job the log belongs to. */
static void take_profile(struct an_run *r, struct an_log *l, size_t log_index,
			 const struct fc_profile *prof)
{
	/* fio numbers logs by global thread, from 1; 0 is a shared file. */
	size_t job = l->index > 0 ? (size_t)(l->index - 1) : 0;
	if (l->index == 0 && r->n_jobs > 1) {
		/* Its lines interleave the jobs; whose second is whose is lost. */
		l->error = an_asprintf("one log for the report's %zu jobs (per_job_logs=0): its "
				       "seconds cannot be told apart by job",
				       r->n_jobs);
		return;
	}
	if (job >= r->n_jobs) {
		l->error = an_asprintf("log number %d, but the report has %zu job(s) "
				       "(group_reporting?)",
				       l->index, r->n_jobs);
		return;
	}
	struct an_job *aj = &r->jobs[job];
	bool took = false;
	for (int d = 0; d < 3; d++) {
		struct an_dirvals *dv = &aj->dir[d];
		const struct fc_profile_series *s = &prof->dir[d];
		if (!dv->present || s->n == 0)
			continue;
		if (dv->sec.n) {
			l->error = an_asprintf("a second %s log for job %zu; the first one is used",
					       fc_log_type_name(l->type), job + 1);
			break;
		}
		/* bw profiles are KiB/s; the report uses MiB/s. */
		double scale = l->type == FC_LOG_BW ? 1.0 / 1024.0 : 1.0;
		dv->sec.values = an_calloc(s->n, sizeof(*dv->sec.values));
		uint64_t interval = prof->interval_ms ? prof->interval_ms : 1000;
		size_t n = 0;
		for (size_t p = 0; p < s->n; p++) {
			const struct fc_profile_point *pt = &s->points[p];
			/* A second the log covers for less than half (the 1 ms tail
			 * of fio's last window, or a per-I/O log's last partial
			 * second) is no measured second. */
			double covered = pt->covered_ms;
			if (prof->per_io && r->runtime_ms > pt->start_ms &&
			    r->runtime_ms - pt->start_ms < interval)
				covered = (double)(r->runtime_ms - pt->start_ms);
			bool partial = covered < 0.5 * (double)interval;
			dv->sec.values[p] = pt->gap || partial ? NAN : pt->value * scale;
			if (!isnan(dv->sec.values[p]))
				n = p + 1;
		}
		if (n == 0) {
			free(dv->sec.values);
			dv->sec.values = NULL;
			continue;
		}
		dv->sec.n = n; /* trailing gaps dropped */
		dv->sec.start_ms = s->points[0].start_ms;
		dv->sec.interval_ms = interval;
		dv->log = log_index;
		dv->log_type = l->type;
		took = true;
	}
	if (!took && !l->error)
		l->error = an_strdup("the log holds no values for a direction the report shows "
				     "I/O for");
}

/* Reads the per-second rate logs: iops logs, or bw logs when there are none. */
static void load_logs(struct an_run *r)
{
	bool have_iops = false;
	for (size_t i = 0; i < r->n_logs; i++)
		have_iops |= r->logs[i].type == FC_LOG_IOPS;
	enum fc_log_type want = have_iops ? FC_LOG_IOPS : FC_LOG_BW;
	for (size_t i = 0; i < r->n_logs; i++) {
		struct an_log *l = &r->logs[i];
		if (l->type != want)
			continue;
		struct fc_profile_opts opts;
		memset(&opts, 0, sizeof(opts));
		opts.interval_ms = 1000;
		opts.type = l->type;
		/* fio's log_avg_msec, when the report lists it, places a log's
		 * first window exactly. */
		opts.window_ms = r->log_avg_ms;
		struct fc_error err;
		memset(&err, 0, sizeof(err));
		struct fc_profile *prof = NULL;
		if (fc_profile_read_file(l->path, &opts, &prof, &err) < 0) {
			l->error = reason_from_error(&err);
			continue;
		}
		take_profile(r, l, i, prof);
		fc_profile_free(prof);
	}
}

static void load_run(struct an_run *r)
{
	struct fc_output *out = NULL;
	struct fc_error err;
	memset(&err, 0, sizeof(err));
	int rc = fc_output_read_file(r->path, &out, &err);
	if (rc == FC_E_UNFINISHED) {
		if (out && out->signal)
			r->reason = an_asprintf("fio did not finish (stopped by signal %d): %s",
						out->signal, err.message);
		else
			r->reason = reason_from_error(&err);
		fc_output_free(out);
		return;
	}
	if (rc < 0) {
		r->reason = reason_from_error(&err);
		return;
	}
	r->reason = take_run(r, out);
	fc_output_free(out);
	if (r->reason)
		return;
	r->accepted = true;
	load_logs(r);
}

struct pool {
	struct an_analysis *a;
	size_t next;
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		if (i >= p->a->n_runs)
			break;
		load_run(&p->a->runs[i]);
	}
	return NULL;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return (a > b) - (a < b);
}

static uint64_t median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A run is short when its runtime is below short_fraction of the median
 * runtime of the same test's usable runs, and either it was meant to run
 * for a time (a runtime or time_based option) or it also moved less than
 * that share of their median bytes: cut short, not merely done early
 * because a fixed-size job ran fast.
 */
static void reject_short_runs(struct an_analysis *a)
{
	uint64_t *rt = an_calloc(a->n_runs, sizeof(*rt));
	uint64_t *io = an_calloc(a->n_runs, sizeof(*io));
	bool *done = an_calloc(a->n_runs, sizeof(*done));
	for (size_t i = 0; i < a->n_runs; i++) {
		if (done[i] || !a->runs[i].accepted)
			continue;
		const char *test = a->runs[i].id.test;
		size_t n = 0;
		for (size_t k = i; k < a->n_runs; k++) {
			const struct an_run *r = &a->runs[k];
			if (r->accepted && strcmp(r->id.test, test) == 0) {
				rt[n] = r->runtime_ms;
				io[n] = r->io_bytes;
				n++;
			}
		}
		uint64_t med_rt = median_u64(rt, n);
		uint64_t med_io = median_u64(io, n);
		for (size_t k = i; k < a->n_runs; k++) {
			struct an_run *r = &a->runs[k];
			if (!r->accepted || strcmp(r->id.test, test) != 0)
				continue;
			done[k] = true;
			bool short_time =
			    (double)r->runtime_ms < a->short_fraction * (double)med_rt;
			bool short_io = (double)r->io_bytes < a->short_fraction * (double)med_io;
			if (short_time && (r->timed || short_io)) {
				r->accepted = false;
				r->reason = an_asprintf(
				    "runtime %.3f s is well short of the %.3f s median of the "
				    "%zu runs of test %s (below %.0f %%)",
				    (double)r->runtime_ms / 1000.0, (double)med_rt / 1000.0, n,
				    test, a->short_fraction * 100.0);
			}
		}
	}
	free(rt);
	free(io);
	free(done);
}

void an_load(struct an_analysis *a, int threads)
{
	if (threads < 1)
		threads = 1;
	if ((size_t)threads > a->n_runs)
		threads = a->n_runs ? (int)a->n_runs : 1;
	struct pool p = {a, 0};
	pthread_t *tids = an_calloc((size_t)threads, sizeof(*tids));
	int started = 0;
	for (int i = 1; i < threads; i++) {
		if (pthread_create(&tids[i], NULL, worker, &p) != 0)
			break;
		started++;
	}
	worker(&p);
	for (int i = 1; i <= started; i++)
		pthread_join(tids[i], NULL);
	free(tids);

	reject_short_runs(a);
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted) {
			an_reject(a, r->path, "%s", r->reason ? r->reason : "not read");
			continue;
		}
		for (size_t k = 0; k < r->n_logs; k++) {
			if (r->logs[k].error)
				an_reject(a, r->logs[k].path, "%s", r->logs[k].error);
		}
	}
}
