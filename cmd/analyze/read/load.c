/* SPDX-License-Identifier: MIT */
/*
 * Reading the runs: each fio output once with fc_output_read_file() (files
 * whose names say nothing are looked at first), its workload and what the
 * statistics need copied out; later the per-second rate logs with
 * fc_profile_read_file().  Both on several threads.
 */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/read.h"

static char *reason_from_error(const struct fc_error *err)
{
	/* The message may already start with the status text. */
	const char *what = fc_status_text(err->code);
	if (strncmp(err->message, what, strlen(what)) == 0)
		what = "";
	const char *sep = what[0] ? ": " : "";
	if (err->line)
		return cm_asprintf("%s%sline %lu: %s", what, sep, err->line, err->message);
	if (err->has_offset)
		return cm_asprintf("%s%sbyte %llu: %s", what, sep, err->offset, err->message);
	if (err->message[0])
		return cm_asprintf("%s%s%s", what, sep, err->message);
	return cm_strdup(fc_status_text(err->code));
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

/* The slowest I/O: of the whole latency, else of the completion. */
static double max_us(const struct fc_lat *total, const struct fc_lat *clat)
{
	const struct fc_lat *l = total->present ? total : clat;
	if (!l->present || (l->n_known && l->n == 0))
		return NAN;
	return l->max_ns / 1000.0;
}

static void extract_dir(const struct fc_job *job, const struct fc_dir *d, struct an_dirvals *dv)
{
	for (int m = 0; m < AN_M_COUNT; m++)
		dv->v[m] = NAN;
	dv->too_fast_above = NAN;
	dv->present = d->present && (d->total_ios > 0 || d->io_bytes > 0);
	if (!dv->present)
		return;
	/* the job's, beside each direction it did */
	dv->v[AN_M_CPU] = job->usr_cpu_pct + job->sys_cpu_pct;
	dv->v[AN_M_LAT_MAX] = max_us(&d->lat, &d->clat);
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

/*
 * fio's normal output has no Unix time, only ctime()'s text of the end of
 * the run ("Tue Dec  1 16:21:05 2026") in the time zone of the machine that
 * ran it, which the report does not say.  Read in our time zone it orders
 * the runs of one machine (which state ran first: the baseline); -1 when it
 * is not that text.
 */
static int64_t ctime_ms(const char *text)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	const char *end = strptime(text, "%a %b %d %H:%M:%S %Y", &tm);
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	time_t t = mktime(&tm);
	return t == (time_t)-1 ? -1 : (int64_t)t * 1000;
}

/*
 * The processes of each report entry.  numjobs clones are entries of their
 * own, one after the other under one name; with group_reporting one entry
 * stands for all of them (normal output says how many, "jobs=N").  fio
 * numbers the logs by process, from 1, in the order of the jobs.
 */
static void count_procs(struct an_run *r, const struct fc_run *run)
{
	for (size_t j = 0; j < run->n_jobs; j++) {
		const struct fc_job *job = &run->jobs[j];
		unsigned procs = 1;
		if (job->members > 0) {
			procs = job->members;
		} else {
			const char *nj = fc_job_option(run, job, "numjobs");
			uint64_t n;
			size_t same = 0;
			for (size_t k = 0; k < run->n_jobs; k++)
				same += run->jobs[k].groupid == job->groupid && job->name &&
					run->jobs[k].name &&
					strcmp(run->jobs[k].name, job->name) == 0;
			/* one entry where numjobs made several: group-reported */
			if (nj && an_parse_size(nj, false, &n) && n > 1 && n <= 65536 && same == 1)
				procs = (unsigned)n;
		}
		r->jobs[j].procs = procs;
	}
}

/* A client/server entry's client, and where it goes in the run's order:
 * the campaign's host for its hostname and port (its place in the list),
 * else as fio reports it, after the hosts named. */
/* fio's net_port, which --client uses when it names none */
#define FIO_DEFAULT_PORT 8765

struct client_entry {
	size_t rank;
	char *name;
	size_t index;
	bool all;
};

static char *client_name(const struct an_run *r, const struct fc_job *job, size_t *rank)
{
	const char *hn = job->hostname ? job->hostname : "";
	for (size_t i = 0; i < r->n_clients; i++) {
		const struct an_client_host *c = &r->clients[i];
		if (strcmp(c->hostname, hn) == 0 && (c->port == 0 || c->port == job->port)) {
			*rank = i;
			return cm_utf8_dup(c->host);
		}
	}
	*rank = r->n_clients;
	/* fio's default port is no part of a name (a Unix socket reports it
	 * too: sock:h1 is "h1" on 8765) */
	if (job->port <= 0 || job->port == FIO_DEFAULT_PORT)
		return cm_utf8_dup(hn);
	char *hp = cm_asprintf("%s:%d", hn, job->port);
	char *clean = cm_utf8_dup(hp);
	free(hp);
	return clean;
}

static int cmp_client_entry(const void *x, const void *y)
{
	const struct client_entry *p = x, *q = y;
	if (p->all != q->all)
		return p->all ? 1 : -1;
	if (p->rank != q->rank)
		return p->rank < q->rank ? -1 : 1;
	int c = strcmp(p->name, q->name);
	if (c)
		return c;
	return (p->index > q->index) - (p->index < q->index);
}

/*
 * fio's client_stats in an order of the clients rather than of when each
 * finished (which changes from run to run): a copy of the report whose
 * jobs are sorted (freed by the caller: *jobs), and each entry's client
 * name in r->jobs.
 */
static const struct fc_run *clients_in_order(struct an_run *r, const struct fc_run *run,
					     struct fc_run *copy, struct fc_job **jobs)
{
	struct client_entry *e = cm_calloc(run->n_jobs, sizeof(*e));
	for (size_t j = 0; j < run->n_jobs; j++) {
		e[j].index = j;
		e[j].all = run->jobs[j].all_clients;
		e[j].name =
		    e[j].all ? cm_strdup("All clients") : client_name(r, &run->jobs[j], &e[j].rank);
	}
	qsort(e, run->n_jobs, sizeof(*e), cmp_client_entry);
	*copy = *run;
	*jobs = cm_calloc(run->n_jobs, sizeof(**jobs));
	for (size_t j = 0; j < run->n_jobs; j++) {
		(*jobs)[j] = run->jobs[e[j].index];
		r->jobs[j].client = e[j].name;
		r->jobs[j].client_hostname = run->jobs[e[j].index].hostname
						 ? cm_utf8_dup(run->jobs[e[j].index].hostname)
						 : NULL;
		r->jobs[j].all_clients = e[j].all;
	}
	copy->jobs = *jobs;
	free(e);
	r->client_mode = true;
	return copy;
}

/* take_run's work on the report, or on a copy (in copy, *sorted) whose
 * jobs are in the order of the clients. */
static char *take_run_of(struct an_run *r, const struct fc_output *out, struct fc_run *copy,
			 struct fc_job **sorted)
{
	const struct fc_run *run = out->final;
	if (out->signal)
		return cm_asprintf("fio was stopped by signal %d, so the run was cut short",
				   out->signal);
	if (run->n_jobs == 0)
		return cm_strdup("the report holds no jobs");
	for (size_t j = 0; j < run->n_jobs; j++) {
		const struct fc_job *job = &run->jobs[j];
		if (job->error != 0) {
			char *name = cm_utf8_dup(job->name ? job->name : "");
			char *why = cm_asprintf("job \"%s\" failed with error %d (%s)", name,
						job->error, strerror(job->error));
			free(name);
			return why;
		}
	}
	r->n_jobs = run->n_jobs;
	r->jobs = cm_calloc(run->n_jobs, sizeof(*r->jobs));
	if (run->client_mode)
		run = clients_in_order(r, run, copy, sorted);
	r->format = run->format;
	r->workload = an_workload_key(run);
	bool any_io = false;
	struct cm_buf label = {NULL, 0, 0};
	cm_buf_puts(&label, "");
	for (size_t j = 0; j < run->n_jobs; j++) {
		const struct fc_job *job = &run->jobs[j];
		struct an_job *aj = &r->jobs[j];
		aj->name = cm_utf8_dup(job->name ? job->name : "");
		/* numjobs clones follow each other under one name: each name
		 * once, and a long list cut (a label, not a record) */
		if (j == 0 || strcmp(r->jobs[j - 1].name, aj->name) != 0) {
			if (label.len > 200) {
				if (label.s[label.len - 1] != '.')
					cm_buf_puts(&label, "+...");
			} else {
				if (label.len)
					cm_buf_putc(&label, '+');
				cm_buf_puts(&label, aj->name);
			}
		}
		const char *merged;
		size_t merged_len;
		if (an_wl_get(r->workload, j, AN_WL_MERGED, &merged, &merged_len)) {
			/* its options are one job's: the name says it is not one,
			 * with the other jobs' names where the report has them */
			for (size_t k = 0; k < job->n_merged; k++) {
				char *other = cm_utf8_dup(job->merged[k].name);
				cm_buf_printf(&label, "+%s", other);
				free(other);
			}
			cm_buf_printf(&label, " (group_reporting: %.*s merged)", (int)merged_len,
				      merged);
			r->merged_jobs = true;
		}
		if (j == 0) {
			const char *tb = fc_job_option(run, job, "time_based");
			if (tb)
				r->time_based = tb[0] == '\0' || strtol(tb, NULL, 10) != 0;
			else if (run->version_major > 3 ||
				 (run->version_major == 3 && run->version_minor >= 39))
				r->time_based = 0; /* fio >= 3.39 lists valueless options */
		}
		if (fc_job_option(run, job, "runtime") || fc_job_option(run, job, "time_based"))
			r->timed = true;
		const char *avg = fc_job_option(run, job, "log_avg_msec");
		if (avg && !r->log_avg_ms)
			r->log_avg_ms = strtoull(avg, NULL, 10);
		for (int d = 0; d < FC_DDIR_COUNT; d++) {
			extract_dir(job, &job->dir[d], &aj->dir[d]);
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
	r->job_label = label.s;
	count_procs(r, run);
	if (!any_io)
		return cm_strdup("no I/O was done (every job moved 0 bytes)");
	if (run->timestamp_ms >= 0)
		r->timestamp_ms = run->timestamp_ms;
	else if (run->timestamp_s >= 0)
		r->timestamp_ms = run->timestamp_s * 1000;
	else if (run->time_text)
		r->timestamp_ms = ctime_ms(run->time_text);
	if (run->fio_version)
		r->fio_version = cm_utf8_dup(run->fio_version);
	return NULL;
}

/* Checks the final report and copies out what the statistics need. */
static char *take_run(struct an_run *r, const struct fc_output *out)
{
	struct fc_run copy;
	struct fc_job *sorted = NULL;
	char *why = take_run_of(r, out, &copy, &sorted);
	free(sorted);
	return why;
}

/* A profile point's value in the report's unit; NaN for a gap or a second
 * the log covers for less than half. */
static double point_value(const struct an_run *r, const struct fc_profile *prof,
			  const struct fc_profile_point *pt, uint64_t interval)
{
	/* The 1 ms tail of fio's last window, or a per-I/O log's last
	 * partial second, is no measured second. */
	double covered = pt->covered_ms;
	if (prof->per_io && r->runtime_ms > pt->start_ms && r->runtime_ms - pt->start_ms < interval)
		covered = (double)(r->runtime_ms - pt->start_ms);
	if (pt->gap || covered < 0.5 * (double)interval)
		return NAN;
	/* bw profiles are KiB/s; the report uses MiB/s. */
	return prof->type == FC_LOG_BW ? pt->value / 1024.0 : pt->value;
}

/* The report entry whose process wrote log number `index`; SIZE_MAX if none. */
static size_t job_of_log(const struct an_run *r, int index, const char *host)
{
	/* client/server mode: the client's log (fio writes it here, named
	 * after the client) numbers the processes on its server */
	if (host && r->client_mode) {
		size_t first = 1;
		for (size_t j = 0; j < r->n_jobs; j++) {
			const struct an_job *jb = &r->jobs[j];
			if (jb->all_clients || !jb->client_hostname ||
			    strcmp(jb->client_hostname, host) != 0)
				continue;
			if ((size_t)index >= first && (size_t)index < first + jb->procs)
				return j;
			first += jb->procs;
		}
		return SIZE_MAX;
	}
	if (index == 0)
		return 0;
	size_t first = 1;
	for (size_t j = 0; j < r->n_jobs; j++) {
		if ((size_t)index < first + r->jobs[j].procs)
			return j;
		first += r->jobs[j].procs;
	}
	return SIZE_MAX;
}

/* One log, read, waiting to be summed with the others of its entry. */
struct read_log {
	size_t log; /* index into r->logs */
	size_t job;
	struct fc_profile *prof;
};

/* Sums the logs of entry `job` into its per-second series: a second counts
 * when every process's log has it. */
static void sum_logs(struct an_run *r, size_t job, struct read_log *rl, size_t n, unsigned expect)
{
	struct an_job *aj = &r->jobs[job];
	for (int d = 0; d < 3; d++) {
		struct an_dirvals *dv = &aj->dir[d];
		if (!dv->present)
			continue;
		uint64_t interval = 0, k0 = UINT64_MAX, k1 = 0;
		size_t with = 0, first = SIZE_MAX;
		for (size_t i = 0; i < n; i++) {
			const struct fc_profile_series *s = &rl[i].prof->dir[d];
			if (rl[i].job != job || s->n == 0)
				continue;
			interval = rl[i].prof->interval_ms ? rl[i].prof->interval_ms : 1000;
			uint64_t a = s->points[0].start_ms / interval;
			k0 = a < k0 ? a : k0;
			k1 = a + s->n > k1 ? a + s->n : k1;
			with++;
			if (first == SIZE_MAX)
				first = rl[i].log;
		}
		if (with == 0 || with < expect)
			continue;
		size_t len = (size_t)(k1 - k0);
		double *sum = cm_calloc(len, sizeof(*sum));
		unsigned *cnt = cm_calloc(len, sizeof(*cnt));
		for (size_t i = 0; i < n; i++) {
			const struct fc_profile_series *s = &rl[i].prof->dir[d];
			if (rl[i].job != job || s->n == 0)
				continue;
			size_t off = (size_t)(s->points[0].start_ms / interval - k0);
			for (size_t p = 0; p < s->n; p++) {
				double v = point_value(r, rl[i].prof, &s->points[p], interval);
				if (!isnan(v)) {
					sum[off + p] += v;
					cnt[off + p]++;
				}
			}
		}
		size_t last = 0;
		for (size_t k = 0; k < len; k++) {
			if (cnt[k] == with)
				last = k + 1;
			else
				sum[k] = NAN;
		}
		free(cnt);
		if (last == 0) {
			free(sum);
			continue;
		}
		dv->sec.values = sum;
		dv->sec.n = last; /* trailing gaps dropped */
		dv->sec.start_ms = k0 * interval;
		dv->sec.interval_ms = interval;
		dv->log = first;
		dv->log_type = r->logs[first].type;
	}
}

/*
 * Reads the per-second rate logs (iops logs, or bw logs when there are
 * none) into the series of the entries they belong to.  An entry of
 * several processes (numjobs with group_reporting) has a log from each,
 * numbered on from the entries before it: its series is their sum, or a
 * log shared by all of them (per_job_logs=0), which holds the sum already.
 */
static void load_logs(struct an_run *r)
{
	bool have_iops = false;
	for (size_t i = 0; i < r->n_logs; i++)
		have_iops |= r->logs[i].type == FC_LOG_IOPS;
	enum fc_log_type want = have_iops ? FC_LOG_IOPS : FC_LOG_BW;
	struct read_log *rl = cm_calloc(r->n_logs ? r->n_logs : 1, sizeof(*rl));
	size_t n = 0;
	/* what each entry has: a shared log, or which processes' logs */
	bool *shared = cm_calloc(r->n_jobs, sizeof(*shared));
	size_t *taken = cm_calloc(r->n_jobs, sizeof(*taken));
	for (size_t i = 0; i < r->n_logs; i++) {
		struct an_log *l = &r->logs[i];
		if (l->type != want)
			continue;
		/* fio numbers logs by global thread, from 1; 0 is a shared file. */
		size_t job = job_of_log(r, l->index, l->host);
		if (l->index == 0 && r->n_jobs > 1) {
			/* Its lines interleave the jobs; whose second is whose is lost. */
			l->error =
			    cm_asprintf("one log for the report's %zu jobs (per_job_logs=0): "
					"its seconds cannot be told apart by job",
					r->n_jobs);
			continue;
		}
		if (job == SIZE_MAX) {
			l->error =
			    l->host && r->client_mode
				? cm_asprintf(
				      "log number %d of client %s, but the report has no such "
				      "process of that client",
				      l->index, l->host)
				: cm_asprintf("log number %d, but the report has %zu job(s) "
					      "(several jobs in one group_reporting "
					      "group?)",
					      l->index, r->n_jobs);
			continue;
		}
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
		/* one log per process: the same number twice, or a shared log
		 * beside numbered ones, is one too many */
		bool again = shared[job] || (l->index == 0 && taken[job]);
		for (size_t k = 0; k < n && !again; k++)
			again = rl[k].job == job && r->logs[rl[k].log].index == l->index;
		if (again) {
			l->error = cm_asprintf("a second %s log for job %zu; the first one is used",
					       fc_log_type_name(l->type), job + 1);
			fc_profile_free(prof);
			continue;
		}
		bool any = false;
		for (int d = 0; d < 3; d++)
			any |= r->jobs[job].dir[d].present && prof->dir[d].n > 0;
		if (!any && r->log_avg_ms > 0 && r->runtime_ms < 2 * r->log_avg_ms) {
			/* fio writes an averaged value at the end of each window, and
			 * not always the last one, cut by the end of the run: a run
			 * no longer than two windows (a 1 s run lasts 1001 ms) may
			 * leave its log empty, and the run simply has no per-second
			 * profile */
			fc_profile_free(prof);
			continue;
		}
		if (!any) {
			l->error = cm_strdup("the log holds no values for a direction the report "
					     "shows I/O for");
			fc_profile_free(prof);
			continue;
		}
		shared[job] |= l->index == 0;
		taken[job]++;
		rl[n++] = (struct read_log){i, job, prof};
	}
	for (size_t j = 0; j < r->n_jobs; j++) {
		unsigned expect = shared[j] ? 1 : r->jobs[j].procs;
		if (taken[j] && taken[j] < expect) {
			/* the sum of some of the processes is no rate of the job */
			for (size_t k = 0; k < n; k++) {
				if (rl[k].job == j)
					r->logs[rl[k].log].error = cm_asprintf(
					    "the logs of %zu of the %u processes of job %zu "
					    "(numjobs, group_reporting) were found: their sum "
					    "would fall short, so none is used",
					    taken[j], expect, j + 1);
			}
			continue;
		}
		if (taken[j])
			sum_logs(r, j, rl, n, expect);
	}
	for (size_t k = 0; k < n; k++)
		fc_profile_free(rl[k].prof);
	free(rl);
	free(shared);
	free(taken);
}

/*
 * A file whose name says nothing (.txt, .log, none) is read only if it
 * looks like text: fio never writes NUL bytes.  NULL, or why it is not fio
 * output (static).
 */
static const char *sniff(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL; /* the reader says why */
	unsigned char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n >= 2 && ((buf[0] == 0xff && buf[1] == 0xfe) || (buf[0] == 0xfe && buf[1] == 0xff)))
		return "UTF-16 text, not fio output as fio writes it (convert it: iconv -f UTF-16 "
		       "-t UTF-8)";
	if (memchr(buf, '\0', n))
		return "a binary file, not fio output";
	return NULL;
}

/* Why a file read as neither fio's nor bonnie++'s output is left out
 * unread (static). */
static const char *neither(const struct an_run *r)
{
	return r->csv ? "a CSV file, not bonnie++ output" : "not fio output";
}

static void load_run(struct an_run *r)
{
	if (r->skip || r->reason)
		return; /* left out before reading */
	if (r->maybe) {
		r->skip = sniff(r->path);
		if (r->skip)
			return;
	}
	struct fc_output *out = NULL;
	struct fc_error err;
	memset(&err, 0, sizeof(err));
	int rc = fc_output_read_file(r->path, &out, &err);
	/* Not fio's: bonnie++'s CSV rows, unless the name says fio (.json,
	 * .terse).  They become runs in an_bonnie_expand(). */
	const char *why;
	if (rc == FC_E_NOT_FIO && an_file_kind(r->path, &why) != AN_FILE_OUTPUT) {
		int got = an_bonnie_load(r);
		if (got == AN_BONNIE_ROWS || got == AN_BONNIE_BAD)
			return;
		if (got == AN_BONNIE_NO_ROWS && r->maybe) {
			/* saved beside its CSV, as people do with bonnie++'s stderr */
			r->skip = strstr(r->reason, "header")
				      ? "a bonnie++ CSV header without rows"
				      : "bonnie++'s text table, not its CSV rows";
			free(r->reason);
			r->reason = NULL;
			return;
		}
		if (got == AN_BONNIE_NO_ROWS)
			return;
		if (r->maybe) {
			r->skip = neither(r);
			return;
		}
		if (r->csv) {
			r->reason = cm_strdup("not bonnie++ output: no bonnie++ CSV row");
			return;
		}
	}
	if (rc == FC_E_NOT_FIO && r->maybe) {
		r->skip = "not fio output";
		return;
	}
	if (rc == FC_E_UNFINISHED) {
		if (out && out->signal)
			r->reason = cm_asprintf("fio did not finish (stopped by signal %d): %s",
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
}

struct pool {
	struct an_analysis *a;
	size_t next;
	void (*work)(struct an_run *r);
};

static void *worker(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED);
		if (i >= p->a->n_runs)
			break;
		p->work(&p->a->runs[i]);
	}
	return NULL;
}

static void run_pool(struct an_analysis *a, int threads, void (*work)(struct an_run *r))
{
	if (threads < 1)
		threads = 1;
	if ((size_t)threads > a->n_runs)
		threads = a->n_runs ? (int)a->n_runs : 1;
	struct pool p = {a, 0, work};
	pthread_t *tids = cm_calloc((size_t)threads, sizeof(*tids));
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
}

void an_load_reports(struct an_analysis *a, int threads)
{
	run_pool(a, threads, load_run);
	an_bonnie_expand(a);
}

static void load_run_logs(struct an_run *r)
{
	if (r->accepted && r->n_logs && r->bonnie_test < 0)
		load_logs(r);
}

void an_load_logs(struct an_analysis *a, int threads)
{
	run_pool(a, threads, load_run_logs);
}

void an_list_rejects(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (r->skip) {
			an_skip(a, r->path, r->skip);
			continue;
		}
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
