/* SPDX-License-Identifier: MIT */
/*
 * fio's log files: names, layouts and samples.  Every log fio 3.33 wrote in
 * tests/fixtures/fio-3.33/logs (see its README for the command lines) and
 * the hand-made logs for layouts 3.33 cannot write, checked line by line
 * against the files; then hints, errors, the buffer refills of a large file,
 * mutated inputs, and lines of known shapes read every way (log.c).
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "check-log.h"
#include "check.h"
#include "fiocamp.h"
#include "log.h"
#include "util.h"

#define LOGS "tests/fixtures/fio-3.33/logs/"

/* ---- names --------------------------------------------------------------- */

static void check_name(const char *path, const char *prefix, enum fc_log_type type, int index,
		       bool compressed, const char *host)
{
	struct fc_log_name n;
	int rc = fc_log_name_parse(path, &n);
	if (rc != FC_OK)
		fprintf(stderr, "name %s: rc %d\n", path, rc);
	CHECK_INT(rc, FC_OK);
	if (rc != FC_OK)
		return;
	char buf[256];
	snprintf(buf, sizeof(buf), "%.*s", (int)n.prefix_len, n.prefix);
	CHECK_STR(buf, prefix);
	CHECK_INT(n.type, type);
	CHECK_INT(n.index, index);
	CHECK_INT(n.compressed, compressed);
	if (host) {
		snprintf(buf, sizeof(buf), "%.*s", (int)n.host_len, n.host ? n.host : "");
		CHECK_STR(buf, host);
	} else {
		CHECK(n.host == NULL && n.host_len == 0);
	}
	CHECK(!n.aggregate);
}

static void test_names(void)
{
	check_name(LOGS "avg1000ms_3500ms_run_randrw_bw.1.log", "avg1000ms_3500ms_run_randrw",
		   FC_LOG_BW, 1, false, NULL);
	check_name("hist_1000ms_coarseness4_clat_hist.1.log", "hist_1000ms_coarseness4",
		   FC_LOG_CLAT_HIST, 1, false, NULL);
	check_name("per_io_log_offset_slat.1.log", "per_io_log_offset", FC_LOG_SLAT, 1, false,
		   NULL);
	check_name("per_io_log_offset_clat.1.log", "per_io_log_offset", FC_LOG_CLAT, 1, false,
		   NULL);
	check_name("per_io_log_offset_lat.1.log", "per_io_log_offset", FC_LOG_LAT, 1, false, NULL);
	check_name("my_slat_lat.12.log", "my_slat", FC_LOG_LAT, 12, false, NULL);
	/* per_job_logs=0: no index */
	check_name(LOGS "per_job_logs0_numjobs2_shared_iops.log", "per_job_logs0_numjobs2_shared",
		   FC_LOG_IOPS, 0, false, NULL);
	/* client mode: the host after .log */
	check_name(LOGS "client_mode_cs_iops.2.log.127.0.0.1", "client_mode_cs", FC_LOG_IOPS, 2,
		   false, "127.0.0.1");
	check_name("cs_iops.1.log.fz.vm", "cs", FC_LOG_IOPS, 1, true, "vm");
	check_name("cs_iops.1.log.x.log", "cs", FC_LOG_IOPS, 1, false, "x.log");
	check_name(LOGS "compressed/fz_iops.1.log.fz", "fz", FC_LOG_IOPS, 1, true, NULL);
	/* dots and underscores in the prefix; fio's doubled prefix (issue #29) */
	check_name("/x/a.b_c.d_iops.3.log", "a.b_c.d", FC_LOG_IOPS, 3, false, NULL);
	check_name("/x/foo_bw.log_bw.1.log", "foo_bw.log", FC_LOG_BW, 1, false, NULL);
	check_name("a_iops.log.b_iops.log", "a_iops.log.b", FC_LOG_IOPS, 0, false, NULL);
	/* naming/files_produced.txt: the index is the global thread number */
	check_name("./jobA_iops.2.log", "jobA", FC_LOG_IOPS, 2, false, NULL);
	check_name("./custom_prefix_iops.4.log", "custom_prefix", FC_LOG_IOPS, 4, false, NULL);
	check_name("./sub/dir_prefix_iops.5.log", "dir_prefix", FC_LOG_IOPS, 5, false, NULL);
	check_name("x-read_bw.1.log", "x-read", FC_LOG_BW, 1, false, NULL);

	/* --bandwidth-log */
	struct fc_log_name n;
	CHECK_INT(fc_log_name_parse(LOGS "same_run/agg-read_bw.log", &n), FC_OK);
	CHECK(n.aggregate && n.aggregate_ddir == FC_DDIR_READ && n.type == FC_LOG_BW);
	CHECK(n.prefix_len == 3 && memcmp(n.prefix, "agg", 3) == 0 && n.index == 0);
	CHECK_INT(fc_log_name_parse("run7-write_bw.log", &n), FC_OK);
	CHECK(n.aggregate && n.aggregate_ddir == FC_DDIR_WRITE && n.prefix_len == 4);
	CHECK_INT(fc_log_name_parse("agg-trim_bw.log.host", &n), FC_OK);
	CHECK(n.aggregate && n.aggregate_ddir == FC_DDIR_TRIM && n.host_len == 4);

	const char *bad[] = {
	    "x.log",
	    "_iops.1.log",
	    "x_iops.0.log",
	    "x_iops.1.log.",
	    "x_iops.1.txt",
	    "x_iops.1.logx",
	    "x_iops.99999999999.log",
	    "iops.1.log",
	    "x_foo.1.log",
	    "",
	    "dir/",
	    "x_iops.1.log.fz.",
	};
	for (size_t i = 0; i < FC_ARRAY_SIZE(bad); i++) {
		int rc = fc_log_name_parse(bad[i], &n);
		if (rc != FC_E_FORMAT)
			fprintf(stderr, "name \"%s\" was accepted\n", bad[i]);
		CHECK_INT(rc, FC_E_FORMAT);
		CHECK(n.prefix == NULL && n.type == FC_LOG_UNKNOWN);
	}
	CHECK_INT(fc_log_name_parse(NULL, &n), FC_E_FORMAT);
	CHECK_STR(fc_log_type_name(FC_LOG_CLAT_HIST), "clat_hist");
	CHECK_STR(fc_log_type_name(FC_LOG_UNKNOWN), NULL);
	CHECK_STR(fc_log_type_name((enum fc_log_type)99), NULL);
}

/* ---- reading whole logs -------------------------------------------------- */

#define MAX_SAMPLES 512

struct log_read {
	int rc;
	size_t n;
	struct fc_log_sample s[MAX_SAMPLES];
	struct fc_log_layout layout;
	enum fc_log_type type;
	struct fc_error err;
};

static void drain(struct fc_log_reader *r, struct log_read *out)
{
	int rc;
	struct fc_log_sample s;
	while ((rc = fc_log_next(r, &s, &out->err)) == 1) {
		if (out->n < MAX_SAMPLES)
			out->s[out->n] = s;
		out->n++;
	}
	out->rc = rc;
	out->layout = *fc_log_get_layout(r);
	out->type = fc_log_get_type(r);
}

/* Reads a fixture fully; static storage, valid until the next call. */
static struct log_read *read_log(const char *rel, const struct fc_log_layout *hint)
{
	static struct log_read lr;
	memset(&lr, 0, sizeof(lr));
	struct fc_log_reader *r;
	lr.rc = fc_log_open(check_src(rel), hint, &r, &lr.err);
	if (lr.rc < 0)
		return &lr;
	drain(r, &lr);
	fc_log_close(r);
	return &lr;
}

static struct log_read *read_text(const char *text, const char *label,
				  const struct fc_log_layout *hint)
{
	static struct log_read lr;
	memset(&lr, 0, sizeof(lr));
	struct fc_log_reader *r;
	lr.rc = fc_log_open_buffer(text, strlen(text), label, hint, &r, &lr.err);
	if (lr.rc < 0)
		return &lr;
	drain(r, &lr);
	fc_log_close(r);
	return &lr;
}

static void check_sample(const struct fc_log_sample *s, uint64_t t, int64_t v, int ddir,
			 uint64_t bs, uint64_t offset, uint32_t prio, unsigned long line)
{
	CHECK_U64(s->time_ms, t);
	CHECK_INT(s->value, v);
	CHECK_INT(s->ddir, ddir);
	CHECK_U64(s->bs, bs);
	CHECK_U64(s->offset, offset);
	CHECK_U64(s->prio, prio);
	CHECK_U64(s->line, line);
}

/* columns and the flags a detected layout must show */
static void check_layout(const struct fc_log_layout *l, unsigned columns, bool value1, bool offset,
			 bool prio, bool prio_hex, bool issue)
{
	CHECK_INT(l->columns, columns);
	CHECK_INT(l->has_value1, value1);
	CHECK_INT(l->has_offset, offset);
	CHECK_INT(l->has_prio, prio);
	CHECK_INT(l->prio_hex, prio_hex);
	CHECK_INT(l->has_issue_time, issue);
	CHECK(!l->hist);
}

static void test_fio333_windowed(void)
{
	struct log_read *lr = read_log(LOGS "avg1000ms_3500ms_run_randrw_bw.1.log", NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->type, FC_LOG_BW);
	check_layout(&lr->layout, 5, false, false, true, false, false);
	CHECK(lr->layout.has_ddir && lr->layout.has_bs);
	CHECK_INT(lr->n, 6);
	check_sample(&lr->s[0], 1000, 49204, 0, 0, 0, 0, 1);
	check_sample(&lr->s[3], 2001, 43692, 1, 0, 0, 0, 4);
	check_sample(&lr->s[5], 3002, 40555, 1, 0, 0, 0, 6);

	lr = read_log(LOGS "avg1000ms_3500ms_run_randrw_clat.1.log", NULL);
	CHECK_INT(lr->n, 8);
	check_sample(&lr->s[0], 1000, 39513, 1, 0, 0, 0, 1); /* write before read */
	check_sample(&lr->s[7], 3500, 46406, 1, 0, 0, 0, 8); /* the flushed partial window */

	lr = read_log(LOGS "avg1000ms_3500ms_run_randrw_iops.1.log", NULL);
	CHECK_INT(lr->n, 6);
	check_sample(&lr->s[4], 3002, 9898, 0, 0, 0, 0, 5);

	lr = read_log(LOGS "avg1000ms_3500ms_run_randrw_lat.1.log", NULL);
	CHECK_INT(lr->n, 8);
	check_sample(&lr->s[6], 3500, 46006, 0, 0, 0, 0, 7);

	lr = read_log(LOGS "avg500ms_log_max_value_bw.1.log", NULL);
	CHECK_INT(lr->n, 6);
	check_sample(&lr->s[5], 1500, 44464, 1, 0, 0, 0, 6);
	lr = read_log(LOGS "avg500ms_log_max_value_clat.1.log", NULL);
	CHECK_INT(lr->n, 8);
	check_sample(&lr->s[0], 500, 2102232, 1, 0, 0, 0, 1);
	lr = read_log(LOGS "avg500ms_log_max_value_lat.1.log", NULL);
	CHECK_INT(lr->n, 8);
	check_sample(&lr->s[7], 2000, 276659, 0, 0, 0, 0, 8);

	lr = read_log(LOGS "iops_avg1000ms_2s_run_iops.1.log", NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->n, 1);
	check_sample(&lr->s[0], 1000, 23275, 0, 0, 0, 0, 1);

	lr = read_log(LOGS "iops_avg1000ms_unix_epoch_iops.1.log", NULL);
	CHECK_INT(lr->n, 1);
	check_sample(&lr->s[0], 1796049013160ull, 19667, 0, 0, 0, 0, 1);

	lr = read_log(LOGS "per_job_logs0_numjobs2_shared_iops.log", NULL);
	CHECK_INT(lr->type, FC_LOG_IOPS);
	CHECK_INT(lr->n, 6);
	check_sample(&lr->s[2], 750, 238815, 0, 0, 0, 0, 3);
	check_sample(&lr->s[3], 250, 208792, 0, 0, 0, 0, 4); /* time went back: job 2 */

	lr = read_log(LOGS "quirk_log_compression_with_avg500_iops.1.log", NULL);
	CHECK_INT(lr->n, 70);
	check_sample(&lr->s[69], 2000, 1, 0, 0, 0, 0, 70);

	lr = read_log(LOGS "client_mode_cs_iops.1.log.127.0.0.1", NULL);
	CHECK_INT(lr->type, FC_LOG_IOPS);
	CHECK_INT(lr->n, 1);
	check_sample(&lr->s[0], 500, 19224, 0, 0, 0, 0, 1);
	lr = read_log(LOGS "client_mode_cs_iops.2.log.127.0.0.1", NULL);
	CHECK_INT(lr->n, 1);
	check_sample(&lr->s[0], 500, 18596, 0, 0, 0, 0, 1);

	lr = read_log(LOGS "windowed_200ms/win_iops.1.log", NULL);
	CHECK_INT(lr->n, 9);
	check_sample(&lr->s[2], 601, 500, 0, 0, 0, 0, 3);
	check_sample(&lr->s[8], 1803, 500, 0, 0, 0, 0, 9);

	lr = read_log(LOGS "same_run/agg-write_bw.log", NULL);
	CHECK_INT(lr->type, FC_LOG_BW);
	CHECK_INT(lr->n, 9);
	check_sample(&lr->s[0], 197, 122, 1, 0, 0, 0, 1);
	check_sample(&lr->s[8], 2197, 318, 1, 0, 0, 0, 9);
	lr = read_log(LOGS "same_run/agg-trim_bw.log", NULL);
	CHECK_INT(lr->n, 9);
	check_sample(&lr->s[4], 1194, 0, 2, 0, 0, 0, 5);
}

static void test_fio333_per_io(void)
{
	struct log_read *lr = read_log(LOGS "iops_per_io_randrw_rate25_iops.1.log", NULL);
	CHECK_INT(lr->rc, 0);
	check_layout(&lr->layout, 5, false, false, true, false, false);
	CHECK_INT(lr->n, 100);
	size_t writes = 0;
	for (size_t i = 0; i < lr->n; i++) {
		writes += lr->s[i].ddir == 1;
		CHECK_INT(lr->s[i].value, 1);
	}
	CHECK_INT(writes, 50);
	check_sample(&lr->s[0], 0, 1, 0, 4096, 0, 0, 1);
	check_sample(&lr->s[2], 40, 1, 0, 4096, 0, 0, 3);

	/* log_offset: 6 columns */
	lr = read_log(LOGS "per_io_log_offset_bw.1.log", NULL);
	check_layout(&lr->layout, 6, false, true, true, false, false);
	CHECK_INT(lr->n, 40);
	check_sample(&lr->s[0], 0, 32846, 0, 4096, 503808, 0, 1);
	lr = read_log(LOGS "per_io_log_offset_clat.1.log", NULL);
	check_layout(&lr->layout, 6, false, true, true, false, false);
	CHECK_INT(lr->n, 40);
	check_sample(&lr->s[25], 1250, 11922, 0, 4096, 8282112, 0, 26);
	lr = read_log(LOGS "per_io_log_offset_slat.1.log", NULL);
	check_sample(&lr->s[1], 50, 116808, 0, 4096, 6209536, 0, 2);
	CHECK_INT(lr->type, FC_LOG_SLAT);
	lr = read_log(LOGS "per_io_log_offset_lat.1.log", NULL);
	check_sample(&lr->s[0], 0, 234319, 0, 4096, 503808, 0, 1);
	CHECK_INT(lr->type, FC_LOG_LAT);

	/* log_prio: 0x%04x */
	lr = read_log(LOGS "per_io_log_prio_clat.1.log", NULL);
	check_layout(&lr->layout, 5, false, false, true, true, false);
	CHECK_INT(lr->n, 20);
	check_sample(&lr->s[3], 300, 282069, 0, 4096, 0, 0, 4);
	lr = read_log(LOGS "prio_offset/po_clat.1.log", NULL);
	check_layout(&lr->layout, 6, false, true, true, true, false);
	CHECK_INT(lr->n, 10);
	check_sample(&lr->s[2], 201, 311870, 0, 4096, 7069696, 0, 3);

	lr = read_log(LOGS "same_run/perio_iops.1.log", NULL);
	CHECK_INT(lr->n, 400);
	lr = read_log(LOGS "same_run/perio_clat.1.log", NULL);
	CHECK_INT(lr->n, 400);
	check_sample(&lr->s[0], 5, 5360184, 0, 4096, 0, 0, 1);
	lr = read_log(LOGS "same_run/perio_bw.1.log", NULL);
	CHECK_INT(lr->n, 400);
}

static void test_fio333_hist(void)
{
	struct fc_log_reader *r;
	struct fc_error e;
	struct fc_hist_row row;
	CHECK_INT(
	    fc_log_open(check_src(LOGS "hist_1000ms_coarseness4_clat_hist.1.log"), NULL, &r, &e),
	    FC_OK);
	const struct fc_log_layout *l = fc_log_get_layout(r);
	CHECK(l->hist);
	CHECK_INT(l->columns, 119);
	CHECK_INT(l->hist_buckets, 116);
	CHECK_INT(l->hist_groups, 29);
	CHECK_INT(fc_log_next_hist(r, &row, &e), 1);
	CHECK_U64(row.time_ms, 1001);
	CHECK_INT(row.ddir, 0);
	CHECK_U64(row.bs, 4096);
	CHECK_INT(row.n_buckets, 116);
	CHECK_U64(row.buckets[39], 2047);
	CHECK_U64(row.buckets[40], 19768);
	CHECK_U64(row.buckets[41], 2384);
	CHECK_U64(row.buckets[115], 0);
	CHECK_INT(row.line, 1);
	CHECK_INT(fc_log_next_hist(r, &row, &e), 0);
	/* the wrong reader for the kind */
	struct fc_log_sample s;
	CHECK_INT(fc_log_next(r, &s, &e), FC_E_INVAL);
	fc_log_close(r);

	CHECK_INT(fc_log_open(check_src(LOGS "hist_1000ms_coarseness0_first2rows_clat_hist.1.log"),
			      NULL, &r, &e),
		  FC_OK);
	CHECK_INT(fc_log_get_layout(r)->hist_buckets, 1856);
	uint64_t sum[2] = {0, 0};
	int rows = 0, rc;
	while ((rc = fc_log_next_hist(r, &row, &e)) == 1) {
		CHECK_INT(row.ddir, rows);
		for (unsigned j = 0; j < row.n_buckets; j++)
			sum[row.ddir & 1] += row.buckets[j];
		rows++;
	}
	CHECK_INT(rc, 0);
	CHECK_INT(rows, 2);
	CHECK_U64(sum[0], 12305);
	CHECK_U64(sum[1], 12274);
	fc_log_close(r);

	CHECK_INT(fc_log_open(check_src(LOGS "hist_c0_500ms/hist_clat_hist.1.log"), NULL, &r, &e),
		  FC_OK);
	uint64_t times[3], counts[3];
	rows = 0;
	while ((rc = fc_log_next_hist(r, &row, &e)) == 1 && rows < 3) {
		times[rows] = row.time_ms;
		counts[rows] = 0;
		for (unsigned j = 0; j < row.n_buckets; j++)
			counts[rows] += row.buckets[j];
		rows++;
	}
	CHECK_INT(rows, 3);
	CHECK_U64(times[0], 512);
	CHECK_U64(times[2], 1514);
	CHECK_U64(counts[0], 103);
	CHECK_U64(counts[1], 100);
	CHECK_U64(counts[2], 100);
	fc_log_close(r);
}

/* ---- layouts fio 3.33 cannot write (handmade/, see the README) ------------ */

static void test_handmade(void)
{
	/* fio 1.x: time, value, ddir */
	struct log_read *lr = read_log(LOGS "handmade/fio1_bw.1.log", NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->layout.columns, 3);
	CHECK(lr->layout.has_ddir && !lr->layout.has_bs && !lr->layout.has_prio);
	CHECK_INT(lr->n, 4);
	check_sample(&lr->s[1], 500, 8000, 0, 0, 0, 0, 2);

	/* fio 2.x: 4 columns, us */
	lr = read_log(LOGS "handmade/fio2_clat.1.log", NULL);
	check_layout(&lr->layout, 4, false, false, false, false, false);
	CHECK(lr->layout.has_bs && !lr->layout.value_us);
	CHECK_INT(lr->n, 6);
	check_sample(&lr->s[1], 3, 250, 1, 4096, 0, 0, 2);
	struct fc_log_layout us = {.value_us = true};
	lr = read_log(LOGS "handmade/fio2_clat.1.log", &us);
	CHECK(lr->layout.value_us);
	CHECK_INT(lr->layout.columns, 4);

	lr = read_log(LOGS "handmade/fio2_iops.1.log", NULL);
	CHECK_INT(lr->n, 5);
	check_sample(&lr->s[4], 1500, 600, 1, 0, 0, 0, 5);

	/* 2.1.11 - 3.17 log_offset: the first offset 0 looks like a prio */
	struct fc_log_reader *r;
	struct fc_error e;
	struct fc_log_sample s;
	CHECK_INT(fc_log_open(check_src(LOGS "handmade/log_offset_317_clat.1.log"), NULL, &r, &e),
		  FC_OK);
	CHECK(fc_log_get_layout(r)->has_prio && !fc_log_get_layout(r)->has_offset);
	CHECK_INT(fc_log_next(r, &s, &e), 1);
	check_sample(&s, 0, 150000, 0, 4096, 0, 0, 1);
	CHECK_INT(fc_log_next(r, &s, &e), 1);
	check_sample(&s, 40, 160000, 0, 4096, 4096, 0, 2);
	CHECK(!fc_log_get_layout(r)->has_prio && fc_log_get_layout(r)->has_offset);
	CHECK_INT(fc_log_get_layout(r)->columns, 5);
	CHECK_INT(fc_log_next(r, &s, &e), 1);
	check_sample(&s, 80, 170000, 0, 4096, 8192, 0, 3);
	CHECK_INT(fc_log_next(r, &s, &e), 0);
	CHECK_INT(fc_log_next(r, &s, &e), 0);
	fc_log_close(r);
	/* a caller that knows log_offset=1 says so */
	struct fc_log_layout off = {.has_offset = true};
	CHECK_INT(fc_log_open(check_src(LOGS "handmade/log_offset_317_clat.1.log"), &off, &r, &e),
		  FC_OK);
	CHECK(!fc_log_get_layout(r)->has_prio && fc_log_get_layout(r)->has_offset);
	fc_log_close(r);

	/* 3.37 log_window_value=both */
	lr = read_log(LOGS "handmade/window_both_clat.1.log", NULL);
	check_layout(&lr->layout, 6, true, false, true, false, false);
	CHECK_INT(lr->n, 4);
	check_sample(&lr->s[1], 500, 95000, 1, 0, 0, 0, 2);
	CHECK_INT(lr->s[1].value1, 410000);
	lr = read_log(LOGS "handmade/window_both_offset_lat.1.log", NULL);
	check_layout(&lr->layout, 7, true, true, true, false, false);
	CHECK_INT(lr->n, 3);
	check_sample(&lr->s[2], 2000, 110000, 0, 0, 0, 0, 3);
	CHECK_INT(lr->s[2].value1, 700000);

	/* 3.38 log_issue_time */
	lr = read_log(LOGS "handmade/issue_time_clat.1.log", NULL);
	check_layout(&lr->layout, 7, false, true, true, false, true);
	CHECK_INT(lr->n, 3);
	check_sample(&lr->s[1], 100, 131000, 0, 4096, 6209536, 0, 2);
	CHECK_U64(lr->s[1].issue_time_ns, 99869000);
	CHECK_INT(lr->s[1].value1, 0);
	lr = read_log(LOGS "handmade/both_issue_time_clat.1.log", NULL);
	check_layout(&lr->layout, 8, true, true, true, true, true);
	CHECK_INT(lr->n, 2);
	check_sample(&lr->s[1], 100, 131000, 1, 4096, 6209536, 0x6004, 2);
	CHECK_U64(lr->s[1].issue_time_ns, 99869000);

	/* fio 2.x histogram: 1216 >> 3 buckets of us */
	CHECK_INT(fc_log_open(check_src(LOGS "handmade/fio2_hist_clat_hist.1.log"), NULL, &r, &e),
		  FC_OK);
	CHECK_INT(fc_log_get_layout(r)->hist_groups, 19);
	CHECK_INT(fc_log_get_layout(r)->hist_buckets, 152);
	struct fc_hist_row row;
	CHECK_INT(fc_log_next_hist(r, &row, &e), 1);
	CHECK_U64(row.buckets[40], 30);
	CHECK_U64(row.buckets[41], 10);
	CHECK_INT(fc_log_next_hist(r, &row, &e), 1);
	CHECK_U64(row.time_ms, 2000);
	CHECK_U64(row.buckets[45], 20);
	CHECK_INT(row.line, 2);
	CHECK_INT(fc_log_next_hist(r, &row, &e), 0);
	fc_log_close(r);
}

/* BOM, CRLF, blank lines, spaces and tabs, mixed prio notation, no final newline. */
static void test_messy(void)
{
	for (int pass = 0; pass < 2; pass++) {
		struct log_read *lr;
		if (pass == 0) {
			lr = read_log(LOGS "handmade/messy_iops.1.log", NULL);
		} else {
			char *buf;
			size_t len;
			struct fc_error e;
			CHECK_INT(fc_read_file(check_src(LOGS "handmade/messy_iops.1.log"), 1 << 20,
					       &buf, &len, &e),
				  0);
			lr = read_text(buf, "messy_iops.1.log", NULL);
			free(buf);
		}
		CHECK_INT(lr->rc, 0);
		CHECK_INT(lr->type, FC_LOG_IOPS);
		check_layout(&lr->layout, 5, false, false, true, false, false);
		CHECK_INT(lr->n, 4);
		check_sample(&lr->s[0], 0, 1, 0, 4096, 0, 0, 2);
		check_sample(&lr->s[1], 40, 1, 1, 4096, 0, 0, 3);
		check_sample(&lr->s[2], 1010, 1, 0, 4096, 0, 0, 6);
		check_sample(&lr->s[3], 1500, 1, 1, 4096, 0, 0, 8);
	}
}

/* The first line settles ambiguous field counts (rules in fiocamp.h). */
static void test_detection(void)
{
	struct log_read *lr;
	lr = read_text("1000, 500, 900, 1, 0, 0\n", NULL, NULL);
	check_layout(&lr->layout, 6, true, false, true, false, false);
	lr = read_text("0, 131406, 0, 4096, 503808, 0\n", NULL, NULL);
	check_layout(&lr->layout, 6, false, true, true, false, false);
	lr = read_text("0, 131406, 0, 1, 4096, 0\n", NULL, NULL); /* per-I/O with both */
	check_layout(&lr->layout, 6, true, false, true, false, false);
	CHECK_INT(lr->s[0].ddir, 1);
	CHECK_U64(lr->s[0].bs, 4096);
	lr = read_text("1000, 1, 1, 0, 0, 0\n", NULL, NULL);
	check_layout(&lr->layout, 6, false, true, true, false, false);
	struct fc_log_layout both = {.has_value1 = true};
	lr = read_text("1000, 1, 1, 0, 0, 0\n", NULL, &both);
	check_layout(&lr->layout, 6, true, false, true, false, false);
	CHECK_INT(lr->s[0].value1, 1);
	lr = read_text("1, 125000, 0, 4096, 503808, 0x0000, 875000\n", NULL, NULL);
	check_layout(&lr->layout, 7, false, true, true, true, true);
	lr = read_text("1000, 120000, 900000, 0, 0, 0, 0x0000\n", NULL, NULL);
	check_layout(&lr->layout, 7, true, true, true, true, false);
	lr = read_text("1000, 1, 0, 0, 0, 0, 0\n", NULL, &both);
	check_layout(&lr->layout, 7, true, true, true, false, false);
	lr = read_text("1000, 1, 0, 0, 0, 0, 0\n", NULL, NULL);
	check_layout(&lr->layout, 7, false, true, true, false, true);
	lr = read_text("1000, 1, 0, 4096, 0x2001\n", NULL, NULL);
	check_layout(&lr->layout, 5, false, false, true, true, false);
	CHECK_U64(lr->s[0].prio, 0x2001);
	lr = read_text("1000, 1, 0, 4096, 1\n", NULL, NULL);
	check_layout(&lr->layout, 5, false, false, true, false, false);
	CHECK_U64(lr->s[0].prio, 1);
	lr = read_text("1000, 1, 0, 4096, 8192\n", NULL, NULL);
	check_layout(&lr->layout, 5, false, true, false, false, false);
	CHECK_U64(lr->s[0].offset, 8192);
	lr = read_text("1000, 7\n", NULL, NULL);
	CHECK_INT(lr->layout.columns, 2);
	CHECK(!lr->layout.has_ddir && !lr->layout.has_bs);
	check_sample(&lr->s[0], 1000, 7, 0, 0, 0, 0, 1);
	/* negative values are fio's PRId64 */
	lr = read_text("5, -12, 0, 0, 0\n", NULL, NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->s[0].value, -12);
	lr = read_text("5, -9223372036854775808, 0, 0, 0\n", NULL, NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->s[0].value, INT64_MIN);

	/* an exact layout is taken as given */
	struct fc_log_layout exact = {
	    .columns = 5, .has_ddir = true, .has_bs = true, .has_offset = true};
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &exact);
	CHECK_INT(lr->rc, 0);
	CHECK(lr->layout.has_offset && !lr->layout.has_prio);
	exact.columns = 6;
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &exact);
	CHECK_INT(lr->rc, FC_E_INVAL);
	exact.columns = 4;
	exact.has_offset = false;
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &exact);
	CHECK_INT(lr->rc, FC_E_SYNTAX);
	CHECK_STR(lr->err.message, "5 fields, expected 4 (time, value, ddir, bs)");
	/* hints that no line fits */
	struct fc_log_layout issue = {.has_issue_time = true};
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &issue);
	CHECK_INT(lr->rc, FC_E_FORMAT);
	struct fc_log_layout hist = {.hist = true};
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &hist);
	CHECK_INT(lr->rc, FC_E_FORMAT);
	struct fc_log_layout groups = {.hist_groups = 7};
	lr = read_text("1000, 1, 0, 4096, 0\n", NULL, &groups);
	CHECK_INT(lr->rc, FC_E_INVAL);
	/* an empty log has no layout and no samples */
	lr = read_text("", "x_iops.1.log", NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->n, 0);
	CHECK_INT(lr->layout.columns, 0);
	lr = read_text("\n  \r\n\t\n", NULL, NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_INT(lr->n, 0);
	struct fc_log_reader *r;
	struct fc_error e;
	struct fc_hist_row row;
	CHECK_INT(fc_log_open_buffer("", 0, NULL, NULL, &r, &e), 0);
	CHECK_INT(fc_log_next_hist(r, &row, &e), 0);
	fc_log_close(r);
}

/* ---- errors -------------------------------------------------------------- */

static void check_error(const struct log_read *lr, int code, unsigned long line,
			unsigned long column, const char *message)
{
	CHECK_INT(lr->rc, code);
	CHECK_INT(lr->err.code, code);
	CHECK_U64(lr->err.line, line);
	CHECK_U64(lr->err.column, column);
	if (message && !strstr(lr->err.message, message)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", lr->err.message, message);
		CHECK(0);
	}
}

static void test_errors(void)
{
	struct log_read *lr = read_log(LOGS "handmade/bad/bad_number_iops.1.log", NULL);
	check_error(lr, FC_E_SYNTAX, 2, 6,
		    "after field 2: expected ',' or the end of the line, "
		    "found 'x'");
	CHECK_INT(lr->n, 1);
	CHECK(strstr(lr->err.source, "bad_number_iops.1.log") != NULL);
	char msg[1024];
	fc_error_format(&lr->err, msg, sizeof(msg));
	CHECK(strstr(msg, "bad_number_iops.1.log:2:6: after field 2") != NULL);

	lr = read_log(LOGS "handmade/bad/field_count_clat.1.log", NULL);
	check_error(lr, FC_E_SYNTAX, 3, 1,
		    "4 fields, expected 5 like line 1 (time, value, ddir, bs, prio)");
	CHECK_INT(lr->n, 2);

	lr = read_log(LOGS "handmade/bad/ddir7_bw.1.log", NULL);
	check_error(lr, FC_E_FORMAT, 2, 12,
		    "field 3 (ddir): 7 is not a direction (0 read, 1 write, 2 trim)");
	CHECK_INT(lr->n, 1);

	/* compressed: by name, and by content under any name */
	lr = read_log(LOGS "compressed/fz_iops.1.log.fz", NULL);
	check_error(lr, FC_E_FORMAT, 0, 0, "fio --inflate-log");
	char *buf;
	size_t len;
	struct fc_error e;
	CHECK_INT(
	    fc_read_file(check_src(LOGS "compressed/fz_iops.1.log.fz"), 1 << 20, &buf, &len, &e),
	    0);
	struct fc_log_reader *r = NULL;
	CHECK_INT(fc_log_open_buffer(buf, len, "fz_iops.1.log", NULL, &r, &e), FC_E_FORMAT);
	CHECK(r == NULL && strstr(e.message, "zlib") != NULL);
	free(buf);
	CHECK_INT(fc_log_open_buffer("\x1f\x8b\x08\x00", 4, "x", NULL, &r, &e), FC_E_FORMAT);
	CHECK(strstr(e.message, "gzip") != NULL);

	lr = read_text("1, 2,\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 6, "field 3: expected a number, found the end of the line");
	lr = read_text("0, 1, 0, 4096, 0\n1, 1, 0, 4096, 0;\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 2, 17, "found ';'");
	{
		static const char nul[] = "0, 1, 0, 4096, 0\n1, 1, \0, 4096, 0\n";
		struct log_read lr2 = {0};
		CHECK_INT(fc_log_open_buffer(nul, sizeof(nul) - 1, "t", NULL, &r, &lr2.err), 0);
		drain(r, &lr2);
		fc_log_close(r);
		check_error(&lr2, FC_E_SYNTAX, 2, 7, "field 3: expected a number, found byte 0x00");
		CHECK(lr2.err.has_offset && lr2.err.offset == 23);
	}
	lr = read_text("-1, 1, 0, 4096, 0\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 1, "field 1 (time): expected an unsigned number");
	lr = read_text("0x10, 1, 0, 4096, 0\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 1, "hex only in the prio column");
	lr = read_text("10, 1, 0, 4096, 0x\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 19, "expected hex digits after 0x");
	lr = read_text("18446744073709551616, 1, 0, 0, 0\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 1, "field 1: number too large");
	lr = read_text("18446744073709551615, 1, 0, 0, 0\n", "t", NULL);
	CHECK_INT(lr->rc, 0);
	CHECK_U64(lr->s[0].time_ms, UINT64_MAX);
	lr = read_text("1, 9223372036854775808, 0, 0, 0\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 4, "field 2 (value): 9223372036854775808 is out of range");
	lr = read_text("1, 1, 0, 0, 4294967296\n", "t", NULL);
	CHECK_INT(lr->rc, 0); /* an offset: prio is 0 or 1 */
	lr = read_text("1, 1, 0, 0, 0x100000000\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 13, "field 5 (prio): 4294967296 is out of range");
	lr = read_text("12345\n", "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 1, "1 field: expected at least time and value");
	lr = read_text("1, 2, 0, 0, 0, 0, 0, 0, 0\n", "x_iops.1.log", NULL);
	check_error(lr, FC_E_FORMAT, 1, 1, "9 fields: iops log lines have 2 to 8 fields");
	lr = read_text("1, 2, 0, 0, 0, 0, 0, 0, 0\n", "t", NULL);
	check_error(lr, FC_E_FORMAT, 1, 1, "9 fields: a clat_hist line has");
	/* clat_hist lines of 29 buckets (coarseness 6) */
	char hist[256];
	size_t hl = (size_t)snprintf(hist, sizeof(hist), "1, 0, 4096, -1");
	for (int j = 1; j < 29; j++)
		hl += (size_t)snprintf(hist + hl, sizeof(hist) - hl, ", 0");
	snprintf(hist + hl, sizeof(hist) - hl, "\n");
	lr = read_text(hist, "t", NULL);
	check_error(lr, FC_E_SYNTAX, 1, 13, "field 4 (bucket): expected an unsigned number");
	hist[3] = '3';
	hist[12] = ' ';
	lr = read_text(hist, "t", NULL);
	check_error(lr, FC_E_FORMAT, 1, 4, "field 2 (ddir): 3 is not a direction");
	CHECK_INT(lr->err.offset, 3);
	hist[3] = '0';
	memcpy(hist + hl, ", 0, 0\n", 8);
	lr = read_text(hist, "t", NULL);
	check_error(lr, FC_E_FORMAT, 1, 1, "34 fields: a clat_hist line has");

	/* a clat_hist name wants clat_hist lines */
	lr = read_text("1000, 1, 0, 4096, 0\n", "x_clat_hist.1.log", NULL);
	check_error(lr, FC_E_FORMAT, 1, 1, "5 fields: a clat_hist line has");

	/* errors stay */
	struct fc_log_sample s;
	static const char sticky[] = "1, 2, 0, 0, 0\n3, x\n4, 5, 0, 0, 0\n";
	CHECK_INT(fc_log_open_buffer(sticky, strlen(sticky), "t", NULL, &r, &e), 0);
	CHECK_INT(fc_log_next(r, &s, &e), 1);
	CHECK_INT(fc_log_next(r, &s, &e), FC_E_SYNTAX);
	memset(&e, 0, sizeof(e));
	CHECK_INT(fc_log_next(r, &s, &e), FC_E_SYNTAX);
	CHECK_INT(e.line, 2);
	CHECK_INT(fc_log_next(r, &s, NULL), FC_E_SYNTAX);
	fc_log_close(r);

	/* files */
	CHECK_INT(fc_log_open(check_src(LOGS "no_such_iops.1.log"), NULL, &r, &e), FC_E_IO);
	CHECK_INT(e.sys_errno, ENOENT);
	CHECK(r == NULL);
	CHECK_INT(fc_log_open(check_src(LOGS "handmade"), NULL, &r, &e), FC_E_IO);
	CHECK_INT(fc_log_open(NULL, NULL, &r, &e), FC_E_INVAL);
	CHECK_INT(fc_log_open(check_src(LOGS "iops_avg1000ms_2s_run_iops.1.log"), NULL, NULL, &e),
		  FC_E_INVAL);
	CHECK_INT(fc_log_open_buffer("1, 2\n", 5, "t", NULL, NULL, &e), FC_E_INVAL);
	CHECK_INT(fc_log_open_buffer(NULL, 3, "t", NULL, &r, &e), FC_E_INVAL);
	CHECK_INT(fc_log_open(check_src(LOGS "no_such_iops.1.log"), NULL, &r, NULL), FC_E_IO);
}

/* ---- large files: refills, long lines ------------------------------------ */

static char *temp_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("FC_BUILDDIR");
	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "/tmp", name);
	return path;
}

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void test_large(void)
{
	/* about 1.3 MB of lines of varying length: the file reader refills its
	 * 256 KiB buffer several times; the buffer reader has it all at once */
	size_t cap = 2 << 20, len = 0;
	char *text = malloc(cap);
	uint64_t x = 12345;
	unsigned lines = 0;
	while (len < cap - 200 && lines < 60000) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		lines++;
		if (lines % 1000 == 7) {
			len += (size_t)snprintf(text + len, cap - len, " \r\n");
			continue;
		}
		len += (size_t)snprintf(
		    text + len, cap - len, "%u, %llu, %u, %u, %llu%s\n", lines * 3,
		    (unsigned long long)(x >> 40), lines % 3, lines % 2 ? 4096 : 131072,
		    (unsigned long long)((x >> 20) & 0xfff) * 4096, lines % 5 ? "" : ", 0");
	}
	/* every fifth line has 6 fields: the reader must stop at the first one */
	char *path = temp_path("test-log-large_lat.1.log");
	write_file(path, text, len);
	struct fc_log_reader *r;
	struct fc_error e;
	struct fc_log_sample s;
	CHECK_INT(fc_log_open(path, NULL, &r, &e), 0);
	int rc;
	unsigned n = 0;
	while ((rc = fc_log_next(r, &s, &e)) == 1)
		n++;
	CHECK_INT(rc, FC_E_SYNTAX);
	CHECK_INT(n, 4);
	CHECK_INT(e.line, 5);
	fc_log_close(r);

	/* now without the extra field, and without a final newline */
	len = 0;
	lines = 0;
	x = 12345;
	while (len < cap - 200 && lines < 60000) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		lines++;
		len += (size_t)snprintf(text + len, cap - len, "%u, %llu, %u, %u, %llu\n",
					lines * 3, (unsigned long long)(x >> 40), lines % 3,
					lines % 2 ? 4096 : 131072,
					(unsigned long long)((x >> 20) & 0xfff) * 4096);
	}
	len--;
	write_file(path, text, len);
	struct fc_log_reader *rb;
	CHECK_INT(fc_log_open(path, NULL, &r, &e), 0);
	CHECK_INT(fc_log_open_buffer(text, len, path, NULL, &rb, &e), 0);
	struct fc_log_sample sb;
	n = 0;
	unsigned same = 0;
	for (;;) {
		int ra = fc_log_next(r, &s, &e);
		int rbuf = fc_log_next(rb, &sb, &e);
		CHECK_INT(ra, rbuf);
		if (ra != 1)
			break;
		n++;
		same += s.time_ms == sb.time_ms && s.value == sb.value && s.ddir == sb.ddir &&
			s.bs == sb.bs && s.offset == sb.offset && s.line == sb.line &&
			s.time_ms == (uint64_t)n * 3 && s.line == n;
	}
	CHECK_INT(n, lines);
	CHECK_INT(same, lines);
	CHECK(len > 3 * FC_LOG_LINE_MAX);
	CHECK(fc_log_get_layout(r)->has_offset); /* offsets above 1 */
	fc_log_close(r);
	fc_log_close(rb);

	/* lines up to FC_LOG_LINE_MAX - 1 bytes, with or without a newline */
	for (size_t l = FC_LOG_LINE_MAX - 1; l <= FC_LOG_LINE_MAX; l++) {
		for (int nl = 0; nl < 2; nl++) {
			memset(text, ' ', l);
			memcpy(text, "1,", 2);
			text[l - 1] = '2';
			text[l] = '\n';
			write_file(path, text, l + (size_t)nl);
			int want = l < FC_LOG_LINE_MAX ? 0 : FC_E_LIMIT;
			int got = fc_log_open(path, NULL, &r, &e);
			CHECK_INT(got, want);
			if (got == 0) {
				CHECK_INT(fc_log_next(r, &s, &e), 1);
				CHECK_U64(s.time_ms, 1);
				CHECK_INT(s.value, 2);
				fc_log_close(r);
			} else {
				CHECK_STR(e.message, "line is longer than 262143 bytes");
			}
			CHECK_INT(fc_log_open_buffer(text, l + (size_t)nl, "t", NULL, &r, &e),
				  nl ? 0 : want);
			if (nl || !want)
				fc_log_close(r);
		}
	}
	/* a line longer than the buffer */
	memset(text, '1', FC_LOG_LINE_MAX + 10);
	write_file(path, text, FC_LOG_LINE_MAX + 10);
	CHECK_INT(fc_log_open(path, NULL, &r, &e), FC_E_LIMIT);
	CHECK_INT(e.line, 1);
	CHECK_INT(fc_log_open_buffer(text, FC_LOG_LINE_MAX + 10, "t", NULL, &r, &e), FC_E_LIMIT);
	/* the longest a hist line gets: 1856 buckets of 20 digits */
	len = (size_t)snprintf(text, cap, "1000, 0, 4096");
	for (int j = 0; j < 1856; j++)
		len += (size_t)snprintf(text + len, cap - len, ", 18446744073709551615");
	text[len++] = '\n';
	unlink(path);
	path = temp_path("test-log-large_clat_hist.1.log");
	write_file(path, text, len);
	int rc2 = fc_log_open(path, NULL, &r, &e);
	CHECK_INT(rc2, 0);
	if (rc2 == 0) {
		struct fc_hist_row row;
		CHECK_INT(fc_log_next_hist(r, &row, &e), 1);
		CHECK_U64(row.buckets[1855], UINT64_MAX);
		fc_log_close(r);
	}
	unlink(path);
	free(text);
}

/* ---- mutated inputs ------------------------------------------------------ */

/* Random byte edits of fixtures, read and profiled: no crash, no leak (ASan),
 * and every failure comes with a message. */
static void test_mutations(void)
{
	static const char *const files[] = {
	    LOGS "avg1000ms_3500ms_run_randrw_iops.1.log",
	    LOGS "iops_per_io_randrw_rate25_iops.1.log",
	    LOGS "per_io_log_prio_clat.1.log",
	    LOGS "hist_1000ms_coarseness4_clat_hist.1.log",
	    LOGS "handmade/window_both_offset_lat.1.log",
	    LOGS "handmade/both_issue_time_clat.1.log",
	    LOGS "handmade/messy_iops.1.log",
	    LOGS "per_job_logs0_numjobs2_shared_iops.log",
	};
	static const char pool[] = "0123456789, \n\r\t-x0xff9999999999999999999\x00\xff";
	uint64_t x = 99;
	unsigned failures = 0, ok = 0;
	for (size_t f = 0; f < FC_ARRAY_SIZE(files); f++) {
		char *orig;
		size_t len;
		struct fc_error e;
		if (fc_read_file(check_src(files[f]), 1 << 20, &orig, &len, &e) != 0) {
			CHECK(0);
			continue;
		}
		char *buf = malloc(len + 64);
		for (int iter = 0; iter < 300; iter++) {
			memcpy(buf, orig, len);
			size_t n = len;
			int edits = 1 + iter % 4;
			for (int k = 0; k < edits && n; k++) {
				x = x * 6364136223846793005ull + 1442695040888963407ull;
				size_t at = (size_t)(x >> 33) % n;
				char c = pool[(x >> 20) % (sizeof(pool) - 1)];
				switch ((x >> 10) % 3) {
				case 0:
					buf[at] = c;
					break;
				case 1: /* delete */
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
					break;
				default: /* insert */
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = c;
					n++;
				}
			}
			struct fc_log_reader *r;
			int rc = fc_log_open_buffer(buf, n, iter % 2 ? files[f] : "mutant", NULL,
						    &r, &e);
			if (rc == 0) {
				struct fc_log_sample s;
				struct fc_hist_row row;
				while ((rc = fc_log_next(r, &s, &e)) == 1)
					;
				if (rc == FC_E_INVAL)
					while ((rc = fc_log_next_hist(r, &row, &e)) == 1)
						;
				fc_log_close(r);
			}
			struct fc_profile *p;
			struct fc_profile_opts o = {.interval_ms = 1 + iter % 700,
						    .window_ms = iter % 3 ? 0 : 250};
			int prc = fc_profile_read_buffer(buf, n, files[f], &o, &p, &e);
			if (prc == 0)
				fc_profile_free(p);
			if (rc < 0 || prc < 0) {
				failures++;
				CHECK(e.message[0] != '\0');
			} else {
				ok++;
			}
		}
		free(buf);
		free(orig);
	}
	CHECK(failures > 0 && ok > 0);
}

/* ---- lines of known shapes: every way of reading gives the same --------- */

static uint64_t rnd_state = 1;

static uint64_t rnd(uint64_t n)
{
	rnd_state = rnd_state * 6364136223846793005ull + 1442695040888963407ull;
	return n ? (rnd_state >> 33) % n : 0;
}

/* A number of `digits` digits (1..20), the first not 0 unless it is 0. */
static int put_number(char *out, unsigned digits)
{
	if (digits <= 1)
		return sprintf(out, "%u", (unsigned)rnd(10));
	int n = sprintf(out, "%u", 1 + (unsigned)rnd(9));
	for (unsigned i = 1; i < digits; i++)
		out[n++] = (char)('0' + rnd(10));
	out[n] = '\0';
	return n;
}

/* What one generated log is like. */
struct gen {
	unsigned columns; /* 2..8 */
	unsigned lines;
	bool per_io;	  /* bs column non-zero */
	bool epoch;	  /* 13-digit Unix times */
	unsigned vary;	  /* 0: fields keep their widths; else a field in `vary` changes width */
	unsigned flaws;	  /* 1 in `flaws` lines is odd (0: none) */
	bool hex_prio;	  /* 0x... in the prio column */
	const char *name; /* decides the type */
};

/* Odd fields and lines: what fio's reader takes or refuses, and the bytes
 * next to the digits and separators. */
static const char *const odd[] = {
    "-1",
    "x",
    "18446744073709551616",
    "9223372036854775808",
    "9223372036854775807",
    "4294967296",
    "4294967295",
    "3",
    "2",
    "0x1f",
    "",
    ",",
    "00012",
    "\t",
    " ",
    ":",
    "/",
    "9:",
    "/0",
    "1 2",
    "1\r",
    "\x7f",
    "\xff",
    "99999999999999999999",
    "1234567890123456789",
    "123456789",
    "+1",
    ", ",
    "0x",
    "1.5",
};
#define ODD_LINES 6

/* Line `line` (len bytes, '\n' included) with odd thing k: an odd field in
 * place of field `field`, or one of ODD_LINES odd lines. */
static int put_flaw(char *out, const char *line, int len, unsigned k, unsigned field)
{
	switch (k) {
	case 0:
		return sprintf(out, "\n%s", line);
	case 1:
		return sprintf(out, "  \n%s", line);
	case 2: /* CRLF */
		return sprintf(out, "%.*s\r\n", len - 1, line);
	case 3: /* without its last field */
		return sprintf(out, "%.*s\n", (int)(strrchr(line, ',') - line), line);
	case 4: /* a field more */
		return sprintf(out, "%.*s, 7\n", len - 1, line);
	case 5: /* a NUL byte */
		memcpy(out, line, (size_t)len);
		out[len / 2] = '\0';
		return len;
	}
	const char *o = odd[k - ODD_LINES];
	unsigned f = 0;
	int at = 0;
	while (f < field && at < len && line[at] != '\n') {
		if (line[at] == ',')
			f++;
		at++;
	}
	int end = at;
	while (end < len && line[end] != ',' && line[end] != '\n')
		end++;
	if (at && line[at] == ' ')
		at++;
	return sprintf(out, "%.*s%s%s", at, line, o, line + end);
}

/* Writes a log as fio could (and with flaws as it could not) into text. */
static size_t gen_log(const struct gen *g, char *text, size_t cap)
{
	size_t len = 0;
	uint64_t t = g->epoch ? 1700000000000ull : 0;
	unsigned widths[8] = {0, 1, 1, 4, 1, 1, 1, 1};
	if (!g->per_io)
		widths[3] = 1; /* bs 0 */
	for (unsigned i = 0; i < g->lines && len + 512 < cap; i++) {
		char line[512];
		int n = 0;
		t += g->per_io ? rnd(3) / 2 : 1000;
		n += sprintf(line + n, "%llu", (unsigned long long)t);
		for (unsigned c = 1; c < g->columns; c++) {
			n += sprintf(line + n, ", ");
			if (g->vary && c == g->vary && rnd(3) == 0)
				widths[c] = 1 + (unsigned)rnd(c == 1 ? 18 : 12);
			if (c == 2 && g->columns >= 3) {
				n += sprintf(line + n, "%u", (unsigned)rnd(3)); /* ddir */
			} else if (c == 3 && !g->per_io) {
				n += sprintf(line + n, "0");
			} else if (c == g->columns - 1 && g->hex_prio && c >= 4) {
				n += sprintf(line + n, "0x%x", (unsigned)rnd(0x8000));
			} else {
				n += put_number(line + n, widths[c]);
			}
		}
		line[n++] = '\n';
		line[n] = '\0';
		if (g->flaws && rnd(g->flaws) == 0)
			n = put_flaw(text + len, line, n,
				     (unsigned)rnd(ODD_LINES + FC_ARRAY_SIZE(odd)),
				     (unsigned)rnd(8));
		else
			memcpy(text + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	return len;
}

static const enum fc_log_shapes every_way[] = {FC_LOG_SHAPES_WORDS, FC_LOG_SHAPES_BEST};

/* Each way of reading text (as a buffer, as a file, into profiles) against
 * reading it byte by byte.  Returns how many comparisons differed. */
static unsigned compare_ways(const char *text, size_t len, const char *name, bool files)
{
	char *path = temp_path(name);
	if (files)
		write_file(path, text, len);
	static const struct fc_profile_opts opts[] = {
	    {.interval_ms = 1000},
	    {.interval_ms = 97},
	    {.interval_ms = 1000, .type = FC_LOG_LAT},
	    {.interval_ms = 250, .window_ms = 100, .type = FC_LOG_BW},
	};
	enum { READS = 2 + 2 * FC_ARRAY_SIZE(opts) };
	struct log_digest want[READS], got;
	unsigned differ = 0;
	for (size_t w = 0; w <= FC_ARRAY_SIZE(every_way); w++) {
		fc_log_shapes = w ? every_way[w - 1] : FC_LOG_SHAPES_OFF;
		for (int k = 0; k < READS; k++) {
			if (k % 2 && !files)
				continue;
			const char *file = k % 2 ? path : NULL;
			struct log_digest *d = w ? &got : &want[k];
			if (k < 2)
				log_digest_read(text, len, name, file, d);
			else
				log_digest_profile(text, len, name, file, &opts[(k - 2) / 2], d);
			if (w && !log_digest_equal(&want[k], &got)) {
				differ++;
				fprintf(stderr, "%s: way %zu, read %d differs\n", name, w, k);
				log_digest_print("byte by byte", &want[k]);
				log_digest_print("this way", &got);
			}
		}
	}
	fc_log_shapes = FC_LOG_SHAPES_BEST;
	if (files)
		unlink(path);
	return differ;
}

static void test_shapes(void)
{
	static const struct gen gens[] = {
	    /* fio 3.x per-I/O logs: time, value, ddir, bs, prio; with offsets */
	    {5, 30000, true, false, 0, 0, false, "gen_iops.1.log"},
	    {5, 15000, true, false, 1, 0, false, "gen_clat.1.log"},
	    {6, 15000, true, false, 4, 0, false, "gen_lat.1.log"},
	    {6, 15000, true, true, 1, 0, true, "gen_slat.1.log"},
	    {5, 20000, true, false, 4, 0, true, "gen_bw.1.log"},
	    {4, 20000, true, false, 3, 0, false, "gen_bw.2.log"},
	    /* windowed, two and three columns, 7 and 8 (value1, issue time) */
	    {5, 5000, false, false, 1, 0, false, "gen_iops.3.log"},
	    {2, 3000, false, true, 1, 0, false, "gen_lat.2.log"},
	    {3, 3000, false, false, 1, 0, false, "gen_bw.3.log"},
	    {7, 5000, true, false, 5, 0, false, "gen_clat.2.log"},
	    {8, 5000, true, true, 6, 0, false, "gen_clat.3.log"},
	    /* with flaws: blank lines, CRLF, spaces, signs, hex, huge numbers */
	    {5, 20000, true, false, 1, 300, false, "gen_iops.4.log"},
	    {6, 20000, true, false, 4, 50, false, "gen_lat.3.log"},
	    {5, 20000, true, false, 0, 20, false, "gen_bw.4.log"},
	    {5, 3000, true, false, 1, 3, true, "gen_iops.5.log"},
	};
	size_t cap = 4u << 20;
	char *text = malloc(cap);
	unsigned differ = 0, compared = 0;
	for (size_t i = 0; i < FC_ARRAY_SIZE(gens); i++) {
		for (unsigned seed = 1; seed <= (gens[i].flaws ? 4 : 1); seed++) {
			rnd_state = seed * 1000 + i;
			size_t len = gen_log(&gens[i], text, cap);
			differ += compare_ways(text, len, gens[i].name, true);
			compared++;
			/* the same without its last newline, and cut anywhere */
			if (len > 1 && text[len - 1] == '\n')
				differ += compare_ways(text, len - 1, gens[i].name, false);
			differ += compare_ways(text, (size_t)rnd(len), gens[i].name, false);
			compared += 2;
		}
	}
	/* every odd thing once, in every field, in the middle of a run */
	static const struct gen clean[] = {
	    {5, 600, true, false, 0, 0, false, "gen_iops.6.log"},
	    {6, 600, true, false, 0, 0, false, "gen_clat.4.log"},
	    {4, 600, false, false, 0, 0, false, "gen_bw.5.log"},
	};
	for (size_t i = 0; i < FC_ARRAY_SIZE(clean); i++) {
		rnd_state = 77 + i;
		size_t clen = gen_log(&clean[i], text, cap);
		char *flawed = text + clen + 1;
		for (unsigned k = 0; k < ODD_LINES + FC_ARRAY_SIZE(odd); k++) {
			for (unsigned field = 0; field < (k < ODD_LINES ? 1 : clean[i].columns);
			     field++) {
				/* the line after about a third of them */
				const char *at =
				    (const char *)memchr(text + clen / 3, '\n', clen - clen / 3) +
				    1;
				const char *next =
				    (const char *)memchr(at, '\n', (size_t)(text + clen - at)) + 1;
				size_t head = (size_t)(at - text);
				memcpy(flawed, text, head);
				size_t fl = head + (size_t)put_flaw(flawed + head, at,
								    (int)(next - at), k, field);
				memcpy(flawed + fl, next, (size_t)(text + clen - next));
				fl += (size_t)(text + clen - next);
				differ += compare_ways(flawed, fl, clean[i].name, false);
				compared++;
			}
		}
	}
	/* fields at the widest their checks allow, one line past them in the
	 * middle of lines of the same widths */
	static const struct {
		const char *head, *tail; /* around 3 digits (4 for the time) */
		unsigned past;
	} wide[] = {
	    {"9223372036854775", ", 1, 4096, 0", 808},	  /* value: 2^63 - 1 */
	    {"1, 1, 4096, 4294967", "", 296},		  /* prio: 2^32 - 1 */
	    {"1, 1, 4096, 1, 4294967", "", 296},	  /* prio after offset */
	    {"9223372036854775", ", 9, 1, 4096, 0", 808}, /* value1 */
	    {"1, 1, 18446744073709551", ", 0", 616},	  /* bs: 2^64 - 1 */
	    {"1, 1, 4096, 0x", "", 999},		  /* hex prio */
	    {NULL, ", 1, 1, 4096, 0", 1616},		  /* time: 2^64 - 1 */
	};
	size_t len;
	for (size_t w = 0; w < FC_ARRAY_SIZE(wide); w++) {
		len = 0;
		for (unsigned i = 0; i < 3000; i++) {
			unsigned v = i == 2000 ? wide[w].past : 100 + i % 500;
			if (wide[w].head)
				len += (size_t)snprintf(text + len, cap - len, "%u, %s%03u%s\n", i,
							wide[w].head, v, wide[w].tail);
			else
				len += (size_t)snprintf(text + len, cap - len,
							"1844674407370955%04u%s\n",
							i == 2000 ? v : 1000 + v, wide[w].tail);
		}
		differ += compare_ways(text, len, "gen_wide_lat.1.log", false);
		compared++;
	}
	/* a guessed prio that turns out an offset, late in a long run */
	len = 0;
	for (unsigned i = 0; i < 30000; i++)
		len += (size_t)snprintf(text + len, cap - len, "%u, 1, 1, 4096, %u\n", i / 3,
					i < 20000 ? 0 : 8192 * i);
	differ += compare_ways(text, len, "gen_prio_iops.1.log", true);
	/* a busy device's per-I/O log: 29 I/Os a millisecond, read in groups of
	 * one time (profile.c), with a line in the middle of a group that
	 * breaks it: a bs of 0, a time gone back, a trim, a time gone ahead, a
	 * ddir of 3, a last field that is not a prio */
	for (unsigned b = 0; b < 7; b++) {
		len = 0;
		for (unsigned i = 0; i < 60000; i++) {
			unsigned t = i / 29, ddir = i % 7 < 2, bs = 4096, last = 0;
			if (b && i == 30013) {
				bs = b == 1 ? 0 : bs;
				t = b == 2 ? t - 700 : b == 4 ? t + 1 : t;
				ddir = b == 3 ? 2 : b == 5 ? 3 : ddir;
				last = b == 6 ? 2 : 0; /* the guessed prio an offset */
			}
			len += (size_t)snprintf(text + len, cap - len, "%u, 1, %u, %u, %u\n", t,
						ddir, bs, last);
		}
		differ += compare_ways(text, len, "gen_busy_iops.1.log", b == 0);
		compared++;
	}
	/* lines at the very start and end of a buffer, every length up to 80 */
	for (size_t l = 1; l <= 80; l++) {
		len = 0;
		for (unsigned i = 0; i < 40; i++)
			len += (size_t)snprintf(text + len, cap - len, "%u, 1, %u, 4096, 0\n",
						10 + i, i % 2);
		differ += compare_ways(text, l, "gen_short_iops.1.log", false);
		differ += compare_ways(text + len - l, l, "gen_short_iops.1.log", false);
	}
	compared += 161;
	CHECK_INT(differ, 0);
	CHECK(compared > 200);
	free(text);
}

int main(void)
{
	test_names();
	test_fio333_windowed();
	test_fio333_per_io();
	test_fio333_hist();
	test_handmade();
	test_messy();
	test_detection();
	test_errors();
	test_large();
	test_mutations();
	test_shapes();
	return check_exit();
}
