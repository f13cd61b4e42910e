/* SPDX-License-Identifier: MIT */
/*
 * bonnie++ results as runs: libfiocamp reads the CSV rows of a file
 * (fc_bonnie_read_file, every release from 1.00 to 2.00a); here each row
 * becomes one run per test it ran, so that bonnie++'s block write, rewrite,
 * block read, seeks, per-char and file-creation tests get the statistics
 * and comparisons of fio's tests.
 *
 * What a row's test is, in the terms of a fio run:
 *
 *   putc, put_block           write, bw (bonnie++'s K/sec are KiB/s)
 *   rewrite                   read, bw: bonnie++ divides the file size by
 *                             the time, which is the bandwidth of either
 *                             direction (bon_rewrite's read bandwidth)
 *   getc, get_block           read, bw
 *   seeks                     read, iops (seeks per second)
 *   seq_create, seq_del,      write, files (files per second)
 *   ran_create, ran_del
 *   seq_stat, ran_stat        read, files
 *
 * and in every test cpu (bonnie++'s %CP) and lat_max (its latency, the
 * slowest single operation, so beside fio's maximum, never a mean).
 * "+++++" (done in less than MinTime) is a result without a rate: it is
 * counted, never a value; a test left empty did not run and is no run.
 *
 * Its workload is what bonnie++ was told, as far as the row says: the file
 * size and chunk of the I/O tests, the seeks and seeker processes of the
 * seek test, the files, their sizes and directories of the file tests, the
 * concurrency; so rows of 16 GiB and 32 GiB are never one test.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

#define MIB (1024.0 * 1024.0)

/*
 * Constants of bonnie++'s source (bonnie.h of each release, in the git
 * history of github.com/ng-alt/bonnie): MinTime, below which a test is
 * "+++++", is 0.5 s from 1.01 on, and 1.00 printed "+++++" below 1 s; the
 * seek test does Seeks = 8192 seeks (8000 in 1.00) with SeekProcCount
 * processes, 3 in 1.0x and 5 from 1.9x on; only 1.98 and later let -s
 * change them, and print them.
 */
#define MIN_TIME_S	    0.5
#define MIN_TIME_1_0X_S	    1.0
#define SEEKS_1_9X	    8192
#define SEEKS_1_0X_AT_LEAST 8000
#define SEEKERS_1_0X	    3
#define SEEKERS_1_9X	    5

struct test_map {
	enum fc_ddir dir;
	enum an_metric metric;
};

static const struct test_map test_map[FC_BONNIE_TEST_COUNT] = {
    [FC_BONNIE_PUTC] = {FC_DDIR_WRITE, AN_M_BW},
    [FC_BONNIE_PUT_BLOCK] = {FC_DDIR_WRITE, AN_M_BW},
    [FC_BONNIE_REWRITE] = {FC_DDIR_READ, AN_M_BW},
    [FC_BONNIE_GETC] = {FC_DDIR_READ, AN_M_BW},
    [FC_BONNIE_GET_BLOCK] = {FC_DDIR_READ, AN_M_BW},
    [FC_BONNIE_SEEKS] = {FC_DDIR_READ, AN_M_IOPS},
    [FC_BONNIE_SEQ_CREATE] = {FC_DDIR_WRITE, AN_M_FILES},
    [FC_BONNIE_SEQ_STAT] = {FC_DDIR_READ, AN_M_FILES},
    [FC_BONNIE_SEQ_DEL] = {FC_DDIR_WRITE, AN_M_FILES},
    [FC_BONNIE_RAN_CREATE] = {FC_DDIR_WRITE, AN_M_FILES},
    [FC_BONNIE_RAN_STAT] = {FC_DDIR_READ, AN_M_FILES},
    [FC_BONNIE_RAN_DEL] = {FC_DDIR_WRITE, AN_M_FILES},
};

void an_bonnie_test_place(int test, enum fc_ddir *dir, enum an_metric *metric)
{
	*dir = test_map[test].dir;
	*metric = test_map[test].metric;
}

/* ---- reading ----------------------------------------------------------------- */

int an_bonnie_load(struct an_run *r)
{
	struct fc_error err;
	memset(&err, 0, sizeof(err));
	int rc = fc_bonnie_read_file(r->path, &r->bonnie, &err);
	if (rc == FC_OK)
		return AN_BONNIE_ROWS;
	if (rc == FC_E_NOT_FIO) {
		/* bonnie++'s text table, or a header without rows, is worth
		 * saying; anything else is simply not bonnie++ output */
		if (!strstr(err.message, "text table") && !strstr(err.message, "header"))
			return AN_BONNIE_NONE;
		r->reason = cm_strdup(err.message);
		return AN_BONNIE_NO_ROWS;
	}
	if (err.line && err.column)
		r->reason = cm_asprintf("bonnie++ CSV, line %lu, column %lu: %s", err.line,
					err.column, err.message);
	else if (err.line)
		r->reason = cm_asprintf("bonnie++ CSV, line %lu: %s", err.line, err.message);
	else
		r->reason = cm_strdup(err.message[0] ? err.message : fc_status_text(err.code));
	return AN_BONNIE_BAD;
}

/* ---- a row's test as a run -------------------------------------------------- */

static void put_size(struct cm_buf *b, enum an_wl_field f, uint64_t bytes)
{
	char s[32];
	an_fmt_size(s, sizeof(s), bytes);
	an_wl_put(b, f, s);
}

static void put_u64(struct cm_buf *b, enum an_wl_field f, uint64_t v)
{
	char s[32];
	snprintf(s, sizeof(s), "%" PRIu64, v);
	an_wl_put(b, f, s);
}

static bool io_test(int t)
{
	return t <= FC_BONNIE_SEEKS;
}

/* The seeks the row's seek test did, and its processes; 0 unknown. */
static uint64_t row_seeks(const struct fc_bonnie_row *row, bool at_least)
{
	if (row->seeks_known)
		return row->seeks;
	if (row->format == FC_BONNIE_FORMAT_1_96 || row->format == FC_BONNIE_FORMAT_1_97)
		return SEEKS_1_9X;
	return row->format == FC_BONNIE_FORMAT_1_0X && at_least ? SEEKS_1_0X_AT_LEAST : 0;
}

static unsigned row_seekers(const struct fc_bonnie_row *row)
{
	if (row->seek_procs_known)
		return row->seek_procs;
	return row->format == FC_BONNIE_FORMAT_1_0X ? SEEKERS_1_0X : SEEKERS_1_9X;
}

static char *workload_key(const struct fc_bonnie_row *row, int t)
{
	struct cm_buf b = {NULL, 0, 0};
	an_wl_put(&b, AN_WL_NAME, fc_bonnie_test_info(t)->name);
	if (io_test(t)) {
		if (row->chunk_size_known)
			put_size(&b, AN_WL_BS, row->chunk_size_bytes);
		put_size(&b, AN_WL_SIZE, row->file_size_bytes);
		if (t == FC_BONNIE_SEEKS) {
			uint64_t seeks = row_seeks(row, false);
			if (seeks)
				put_u64(&b, AN_WL_SEEKS, seeks);
			put_u64(&b, AN_WL_SEEKERS, row_seekers(row));
		}
	} else {
		put_u64(&b, AN_WL_FILES, row->files);
		char fs[64];
		if (row->links == FC_BONNIE_FILES_HARD_LINKS)
			snprintf(fs, sizeof(fs), "link");
		else if (row->links == FC_BONNIE_FILES_SYMLINKS)
			snprintf(fs, sizeof(fs), "symlink");
		else
			snprintf(fs, sizeof(fs), "%" PRIu64 ":%" PRIu64, row->max_file_size_bytes,
				 row->min_file_size_bytes);
		an_wl_put(&b, AN_WL_FILE_SIZE, fs);
		put_u64(&b, AN_WL_DIRS, row->directories);
	}
	/* 1.0x had no -c: one process ran */
	put_u64(&b, AN_WL_CONCURRENCY, row->concurrency_known ? row->concurrency : 1);
	return cm_buf_take(&b);
}

/* What a "+++++" says: the test took less than MinTime, so its rate was
 * above what it did in that time.  NaN where the row does not say how much
 * it did (the per-char tests' amount is no field). */
static double too_fast_bound(const struct fc_bonnie_row *row, int t)
{
	double min_time = row->format == FC_BONNIE_FORMAT_1_0X ? MIN_TIME_1_0X_S : MIN_TIME_S;
	switch (t) {
	case FC_BONNIE_PUT_BLOCK:
	case FC_BONNIE_REWRITE:
	case FC_BONNIE_GET_BLOCK:
		return row->file_size_known ? (double)row->file_size_bytes / MIB / min_time : NAN;
	case FC_BONNIE_SEEKS: {
		uint64_t seeks = row_seeks(row, true);
		return seeks ? (double)seeks / min_time : NAN;
	}
	case FC_BONNIE_PUTC:
	case FC_BONNIE_GETC:
		return NAN;
	default:
		return row->files_known ? (double)row->files / min_time : NAN;
	}
}

/* One run of test t of a row, from the file's run `f`. */
static void row_run(struct an_run *r, const struct an_run *f, const struct fc_bonnie_row *row,
		    size_t n_rows, int t)
{
	const struct fc_bonnie_result *res = &row->tests[t];
	const char *name = fc_bonnie_test_info(t)->name;
	r->path = cm_strdup(f->path);
	r->key = cm_strdup(f->key);
	r->campaign = f->campaign;
	r->input = f->input;
	r->group = f->group ? cm_strdup(f->group) : NULL;
	r->source = f->source;
	r->reading = f->reading ? cm_strdup(f->reading) : NULL;
	r->id.variant = f->id.variant ? cm_strdup(f->id.variant) : NULL;
	r->id.state = f->id.state ? cm_strdup(f->id.state) : NULL;
	r->id.round = f->id.round;
	r->rep_round = f->rep_round;
	r->disturbed = f->disturbed ? cm_strdup(f->disturbed) : NULL;
	r->steal = f->steal;
	r->foreign_io = f->foreign_io;
	r->env = f->env; /* the file's run: its campaign's environment, or none */
	r->maybe = f->maybe;
	r->csv = f->csv;
	r->accepted = true;
	r->timestamp_ms = -1;
	r->time_based = -1;
	r->bonnie_test = t;
	r->line = row->line;
	r->file_rows = n_rows;
	r->bonnie_format = row->format;
	r->bonnie_version = row->bonnie_version ? cm_utf8_dup(row->bonnie_version) : NULL;
	r->bonnie_name = cm_utf8_dup(row->name);
	r->bonnie_seed = row->seed ? cm_utf8_dup(row->seed) : NULL;
	r->workload = workload_key(row, t);
	r->job_label = cm_strdup(name);
	r->n_jobs = 1;
	r->jobs = cm_calloc(1, sizeof(*r->jobs));
	struct an_job *j = &r->jobs[0];
	j->name = cm_strdup(name);
	j->procs = t == FC_BONNIE_SEEKS ? row_seekers(row) : 1;
	for (int d = 0; d < FC_DDIR_COUNT; d++) {
		for (int m = 0; m < AN_M_COUNT; m++)
			j->dir[d].v[m] = NAN;
		j->dir[d].log_type = FC_LOG_UNKNOWN;
		j->dir[d].too_fast_above = NAN;
	}
	struct an_dirvals *dv = &j->dir[test_map[t].dir];
	dv->present = true;
	if (res->status == FC_BONNIE_TOO_FAST) {
		dv->too_fast = true;
		dv->too_fast_above = too_fast_bound(row, t);
	} else {
		enum an_metric m = test_map[t].metric;
		dv->v[m] = m == AN_M_BW ? res->rate / 1024.0 : res->rate;
	}
	/* 1.00 printed a CPU share beside "+++++"; the rate is unknown all
	 * the same */
	if (res->status == FC_BONNIE_MEASURED)
		dv->v[AN_M_CPU] = res->cpu_pct;
	dv->v[AN_M_LAT_MAX] = res->latency_ns / 1000.0;
}

void an_bonnie_expand(struct an_analysis *a)
{
	size_t extra = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct fc_bonnie *b = a->runs[i].bonnie;
		if (b)
			extra += b->n_rows * FC_BONNIE_TEST_COUNT;
	}
	if (!extra)
		return;
	size_t cap = a->n_runs + extra;
	struct an_run *runs = cm_calloc(cap, sizeof(*runs));
	size_t n = 0;
	/* Each file's runs where the file was, so that the order of runs
	 * stays the order of the paths. */
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *f = &a->runs[i];
		if (!f->bonnie) {
			runs[n++] = *f;
			continue;
		}
		size_t before = n;
		for (size_t k = 0; k < f->bonnie->n_rows; k++) {
			const struct fc_bonnie_row *row = &f->bonnie->rows[k];
			for (int t = 0; t < FC_BONNIE_TEST_COUNT; t++) {
				if (row->tests[t].status != FC_BONNIE_NOT_RUN)
					row_run(&runs[n++], f, row, f->bonnie->n_rows, t);
			}
		}
		fc_bonnie_free(f->bonnie);
		f->bonnie = NULL;
		if (n > before) {
			an_run_free(f);
			continue;
		}
		/* rows, but every test left empty (-s 0 -n 0) */
		f->reason =
		    cm_strdup("bonnie++ rows without a result: every test is empty (not run)");
		runs[n++] = *f;
	}
	free(a->runs);
	a->runs = runs;
	a->n_runs = n;
	a->cap_runs = cap;
}

/* ---- the fio suite beside bonnie++ ------------------------------------------ */

/* The jobs of fio-jobs/ that measure what a bonnie++ test measures, and
 * the value of theirs that is bonnie++'s (docs/backends.md). */
static const struct {
	const char *job;
	int test;
} fio_suite[] = {
    {"bon_write", FC_BONNIE_PUT_BLOCK},
    {"bon_rewrite", FC_BONNIE_REWRITE},
    {"bon_read", FC_BONNIE_GET_BLOCK},
    {"bon_seeks", FC_BONNIE_SEEKS},
};

int an_bonnie_role(const struct an_analysis *a, size_t test)
{
	const struct an_test *t = &a->tests[test];
	if (t->bonnie_test >= 0)
		return t->bonnie_test;
	for (size_t i = 0; i < CM_ARRAY_SIZE(fio_suite); i++) {
		if (strcmp(t->base, fio_suite[i].job) == 0)
			return fio_suite[i].test;
	}
	return -1;
}
