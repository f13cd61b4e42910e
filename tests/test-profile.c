/* SPDX-License-Identifier: MIT */
/*
 * Profiles of fio's logs: every log in tests/fixtures/fio-3.33/logs against
 * values worked out by hand from the lines (the arithmetic is in the
 * comments), the per-I/O logs of one run against that run's JSON, and the
 * definitions in fiocamp.h one by one: windows spread over intervals, gaps,
 * job blocks, Unix times, histograms, limits and errors.
 */
#include "check.h"
#include "fiocamp.h"
#include "profile.h"
#include "util.h"

#define LOGS "tests/fixtures/fio-3.33/logs/"
#define REL  1e-9

static struct fc_profile *profile(const char *rel, const struct fc_profile_opts *o)
{
	struct fc_profile *p = NULL;
	struct fc_error e;
	int rc = fc_profile_read_file(check_src(rel), o, &p, &e);
	if (rc != 0) {
		char msg[1024];
		fc_error_format(&e, msg, sizeof(msg));
		fprintf(stderr, "%s: %s\n", rel, msg);
	}
	CHECK_INT(rc, 0);
	return p;
}

static struct fc_profile *profile_text(const char *text, const char *label,
				       const struct fc_profile_opts *o, int expect,
				       struct fc_error *e)
{
	struct fc_profile *p = NULL;
	struct fc_error local;
	struct fc_error *err = e ? e : &local;
	int rc = fc_profile_read_buffer(text, strlen(text), label, o, &p, err);
	if (rc != expect) {
		char msg[1024];
		fc_error_format(err, msg, sizeof(msg));
		fprintf(stderr, "%s: rc %d, expected %d: %s\n", label, rc, expect, msg);
	}
	CHECK_INT(rc, expect);
	return p;
}

static void check_point(const struct fc_profile_point *pt, uint64_t start_ms, double value,
			double min, double max, double total, double covered_ms, uint64_t samples)
{
	CHECK_U64(pt->start_ms, start_ms);
	CHECK_INT(pt->gap, samples == 0);
	CHECK_DBL(pt->value, value, REL);
	CHECK_DBL(pt->min, min, REL);
	CHECK_DBL(pt->max, max, REL);
	CHECK_DBL(pt->total, total, REL);
	CHECK_DBL(pt->covered_ms, covered_ms, REL);
	CHECK_U64(pt->samples, samples);
}

static double series_total(const struct fc_profile_series *s)
{
	double t = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (!s->points[i].gap)
			t += s->points[i].total;
	}
	return t;
}

/* Per-I/O lines whose times go down, one interval apart: each line opens an
 * interval below the others.  The series grows downwards by doubling, as
 * upwards: quadratic copying made 30,000 such lines take minutes. */
static void test_descending(void)
{
	size_t n = 20000, cap = n * 40, len = 0;
	char *text = malloc(cap);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%zu, 1, 1, 4096, 0\n",
					1000000000 - 1000 * i);
	struct fc_profile *p = profile_text(text, "desc_iops.1.log", NULL, 0, NULL);
	if (p) {
		CHECK(p->time_went_backwards);
		CHECK_U64(p->dir[1].n, n);
		CHECK_U64(p->dir[1].points[0].start_ms, 1000000000 - 1000 * (n - 1));
		CHECK_U64(p->dir[1].points[n - 1].start_ms, 1000000000);
		CHECK_DBL(p->dir[1].points[n / 2].value, 1, 0);
		CHECK_DBL(series_total(&p->dir[1]), (double)n, 0);
		fc_profile_free(p);
	}
	free(text);
}

/* ---- fio 3.33's windowed logs ------------------------------------------------ */

static void test_windowed_fio333(void)
{
	/* iops, windows ending at 1000, 2001, 3002; 3500 is missing (fixed in 3.37).
	 * Interval [2000, 3000): 1 ms of the 11057 window and 999 ms of the 9898
	 * one: (11057 + 9898 * 999) / 1000 = 9899.159.  [3000, 4000): the last 2 ms
	 * of the 9898 window. */
	struct fc_profile *p = profile(LOGS "avg1000ms_3500ms_run_randrw_iops.1.log", NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_IOPS);
		CHECK(!p->per_io && !p->time_went_backwards && !p->time_absolute);
		CHECK_U64(p->interval_ms, 1000);
		CHECK_U64(p->lines, 6);
		CHECK_INT(p->layout.columns, 5);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 4);
		check_point(&r->points[0], 0, 12302, 12302, 12302, 12302, 1000, 1);
		check_point(&r->points[1], 1000, 11057, 11057, 11057, 11057, 1000, 1);
		check_point(&r->points[2], 2000, 9899.159, 9898, 11057, 9899.159, 1000, 2);
		check_point(&r->points[3], 3000, 9898, 9898, 9898, 19.796, 2, 1);
		CHECK(r->points[0].percentiles_ns == NULL);
		const struct fc_profile_series *w = &p->dir[FC_DDIR_WRITE];
		CHECK_INT(w->n, 4);
		check_point(&w->points[2], 2000, (10922 + 10138 * 999) / 1000.0, 10138, 10922,
			    (10922 + 10138 * 999) / 1000.0, 1000, 2);
		/* the mass is the rate times the windows: 12271 + 10922 * 1.001 + 10138 * 1.001 */
		CHECK_DBL(series_total(w), 12271 + 10922 * 1.001 + 10138 * 1.001, REL);
		CHECK_INT(p->dir[FC_DDIR_TRIM].n, 0);
		fc_profile_free(p);
	}

	/* bw: KiB/s, same windows */
	p = profile(LOGS "avg1000ms_3500ms_run_randrw_bw.1.log", NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_BW);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 4);
		check_point(&r->points[0], 0, 49204, 49204, 49204, 49204, 1000, 1);
		check_point(&r->points[2], 2000, (44236 + 39592 * 999) / 1000.0, 39592, 44236,
			    (44236 + 39592 * 999) / 1000.0, 1000, 2);
		check_point(&r->points[3], 3000, 39592, 39592, 39592, 79.184, 2, 1);
		fc_profile_free(p);
	}

	/* lat: windows end on the second, the partial window 3500 is there */
	p = profile(LOGS "avg1000ms_3500ms_run_randrw_clat.1.log", NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_CLAT);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 4);
		check_point(&r->points[0], 0, 39032, 39032, 39032, NAN, 1000, 1);
		check_point(&r->points[2], 2000, 47350, 47350, 47350, NAN, 1000, 1);
		check_point(&r->points[3], 3000, 45832, 45832, 45832, NAN, 500, 1);
		check_point(&p->dir[FC_DDIR_WRITE].points[1], 1000, 44020, 44020, 44020, NAN, 1000,
			    1);
		fc_profile_free(p);
	}
	p = profile(LOGS "avg1000ms_3500ms_run_randrw_lat.1.log", NULL);
	if (p) {
		check_point(&p->dir[FC_DDIR_WRITE].points[3], 3000, 46692, 46692, 46692, NAN, 500,
			    1);
		fc_profile_free(p);
	}

	/* log_max_value=1 with 500 ms windows: the values are maxima */
	p = profile(LOGS "avg500ms_log_max_value_clat.1.log", NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 0, (1808461 + 865043) / 2.0, 865043, 1808461, NAN, 1000,
			    2);
		check_point(&r->points[1], 1000, (1122645 + 276548) / 2.0, 276548, 1122645, NAN,
			    1000, 2);
		fc_profile_free(p);
	}
	p = profile(LOGS "avg500ms_log_max_value_bw.1.log", NULL);
	if (p) {
		const struct fc_profile_series *w = &p->dir[FC_DDIR_WRITE];
		CHECK_INT(w->n, 2);
		check_point(&w->points[0], 0, (37600 + 43382) / 2.0, 37600, 43382,
			    (37600 + 43382) / 2.0, 1000, 2);
		check_point(&w->points[1], 1000, 44464, 44464, 44464, 44464 / 2.0, 500, 1);
		fc_profile_free(p);
	}
	p = profile(LOGS "avg500ms_log_max_value_lat.1.log", NULL);
	if (p) {
		CHECK_DBL(p->dir[FC_DDIR_WRITE].points[1].value, (300013 + 741050) / 2.0, REL);
		fc_profile_free(p);
	}

	/* a 2 s run with 1 s windows kept one line */
	p = profile(LOGS "iops_avg1000ms_2s_run_iops.1.log", NULL);
	if (p) {
		CHECK_INT(p->dir[FC_DDIR_READ].n, 1);
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 23275, 23275, 23275, 23275, 1000,
			    1);
		fc_profile_free(p);
	}

	/* client mode, 500 ms windows */
	p = profile(LOGS "client_mode_cs_iops.1.log.127.0.0.1", NULL);
	if (p) {
		CHECK_INT(p->dir[FC_DDIR_READ].n, 1);
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 19224, 19224, 19224, 9612, 500, 1);
		fc_profile_free(p);
	}
	p = profile(LOGS "client_mode_cs_iops.2.log.127.0.0.1", NULL);
	if (p) {
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 18596, 18596, 18596, 9298, 500, 1);
		fc_profile_free(p);
	}

	/* sub-second windows at 200 ms, profiled at 1 s and at 100 ms */
	p = profile(LOGS "windowed_200ms/win_iops.1.log", NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		/* (0,200] 505, (200,400] 500, (400,601] 500, (601,802] 500 and 198 ms
		 * of (802,1002] 505 */
		double m0 = 505 * 200 + 500 * 200 + 500 * 201 + 500 * 201 + 505 * 198;
		check_point(&r->points[0], 0, m0 / 1000, 500, 505, m0 / 1000, 1000, 5);
		/* then 2 ms of 505, 500*200, 490*201, 510*200, 500*200: up to 1803 ms,
		 * the final window is missing (fio 3.33) */
		double m1 = 505 * 2 + 500 * 200 + 490 * 201 + 510 * 200 + 500 * 200;
		check_point(&r->points[1], 1000, m1 / 803, 490, 510, m1 / 1000, 803, 5);
		fc_profile_free(p);
	}
	struct fc_profile_opts fine = {.interval_ms = 100};
	p = profile(LOGS "windowed_200ms/win_iops.1.log", &fine);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 19);
		/* each 100 ms interval lies in one window: the window's rate */
		check_point(&r->points[0], 0, 505, 505, 505, 50.5, 100, 1);
		check_point(&r->points[1], 100, 505, 505, 505, 50.5, 100, 1);
		/* [800, 900): 2 ms of the 500 window (601, 802], 98 ms of 505 */
		check_point(&r->points[8], 800, (500 * 2 + 505 * 98) / 100.0, 500, 505,
			    (500 * 2 + 505 * 98) / 1000.0, 100, 2);
		check_point(&r->points[18], 1800, 500, 500, 500, 1.5, 3, 1);
		fc_profile_free(p);
	}

	/* --bandwidth-log: unequal windows (197, 249, 249, 250, 249, 251, 250,
	 * 250, 252 ms) since fio's start */
	p = profile(LOGS "same_run/agg-read_bw.log", NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_BW);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 3);
		double m0 = 122 * 197 + 401 * 249 + 385 * 249 + 400 * 250 + 401 * 55;
		check_point(&r->points[0], 0, m0 / 1000, 122, 401, m0 / 1000, 1000, 5);
		double m1 = 401 * 194 + 400 * 251 + 400 * 250 + 400 * 250 + 318 * 55;
		check_point(&r->points[1], 1000, m1 / 1000, 318, 401, m1 / 1000, 1000, 5);
		check_point(&r->points[2], 2000, 318, 318, 318, 318 * 0.197, 197, 1);
		CHECK_INT(p->dir[FC_DDIR_WRITE].n, 0);
		fc_profile_free(p);
	}
	/* a zero rate is a value, not a gap */
	p = profile(LOGS "same_run/agg-trim_bw.log", NULL);
	if (p) {
		CHECK_INT(p->dir[FC_DDIR_TRIM].n, 3);
		check_point(&p->dir[FC_DDIR_TRIM].points[1], 1000, 0, 0, 0, 0, 1000, 5);
		fc_profile_free(p);
	}
}

/* per_job_logs=0, numjobs=2: two blocks in one file add up */
static void test_shared_file(void)
{
	struct fc_profile *p = profile(LOGS "per_job_logs0_numjobs2_shared_iops.log", NULL);
	if (!p)
		return;
	CHECK(p->time_went_backwards);
	const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
	CHECK_INT(r->n, 1);
	/* job 1: 207456*250 + 202464*251 + 238815*249; job 2: (208792 + 201836 +
	 * 221823) * 250; both cover 750 ms, so the rates add */
	double mass =
	    207456.0 * 250 + 202464.0 * 251 + 238815.0 * 249 + (208792.0 + 201836 + 221823) * 250;
	check_point(&r->points[0], 0, mass / 750, 201836, 238815, mass / 1000, 750, 6);
	CHECK_DBL(r->points[0].value, 427013.532, REL);
	fc_profile_free(p);
}

/* Unix-epoch times: the first window's length must come from somewhere */
static void test_unix_epoch(void)
{
	/* a lone line: a window of interval_ms, (1796049012160, 1796049013160] */
	struct fc_profile *p = profile(LOGS "iops_avg1000ms_unix_epoch_iops.1.log", NULL);
	if (p) {
		CHECK(p->time_absolute);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 1796049012000ull, 19667, 19667, 19667, 19667 * 0.84, 840,
			    1);
		check_point(&r->points[1], 1796049013000ull, 19667, 19667, 19667, 19667 * 0.16, 160,
			    1);
		fc_profile_free(p);
	}
	/* the caller knows log_avg_msec */
	struct fc_profile_opts o = {.window_ms = 500};
	p = profile(LOGS "iops_avg1000ms_unix_epoch_iops.1.log", &o);
	if (p) {
		CHECK_INT(p->dir[FC_DDIR_READ].n, 2);
		CHECK_DBL(p->dir[FC_DDIR_READ].points[0].covered_ms, 340, REL);
		CHECK_DBL(p->dir[FC_DDIR_READ].points[1].covered_ms, 160, REL);
		fc_profile_free(p);
	}
	/* otherwise the next window's length: 500 ms */
	p = profile_text("1796049013000, 100, 0, 0, 0\n1796049013500, 200, 0, 0, 0\n"
			 "1796049014000, 300, 0, 0, 0\n",
			 "u_iops.1.log", NULL, 0, NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 1796049012000ull, 100, 100, 100, 50, 500, 1);
		check_point(&r->points[1], 1796049013000ull, 250, 200, 300, 250, 1000, 2);
		fc_profile_free(p);
	}
}

/* log_compression with log_avg_msec (issue #1746): per-I/O lines with bs 0 */
static void test_compression_quirk(void)
{
	struct fc_profile *p = profile(LOGS "quirk_log_compression_with_avg500_iops.1.log", NULL);
	if (!p)
		return;
	CHECK(!p->per_io);
	CHECK_U64(p->lines, 70);
	CHECK_U64(p->empty_windows, 62); /* lines at a time seen just before */
	CHECK_INT(p->dir[FC_DDIR_READ].n, 2);
	check_point(&p->dir[FC_DDIR_READ].points[0], 0, 1, 1, 1, 1, 1000, 4);
	fc_profile_free(p);
}

/* ---- per-I/O logs ------------------------------------------------------------ */

static void test_per_io_fio333(void)
{
	struct fc_profile *p = profile(LOGS "iops_per_io_randrw_rate25_iops.1.log", NULL);
	if (p) {
		CHECK(p->per_io);
		for (int d = 0; d < 2; d++) {
			const struct fc_profile_series *s = &p->dir[d];
			CHECK_INT(s->n, 2);
			check_point(&s->points[0], 0, 25, NAN, NAN, 25, 1000, 25);
			check_point(&s->points[1], 1000, 25, NAN, NAN, 25, 1000, 25);
		}
		fc_profile_free(p);
	}
	/* per-I/O bw: the bs column counts, not the value column */
	p = profile(LOGS "per_io_log_offset_bw.1.log", NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 0, 80, NAN, NAN, 80, 1000, 20);
		check_point(&r->points[1], 1000, 80, NAN, NAN, 80, 1000, 20);
		fc_profile_free(p);
	}
	p = profile(LOGS "per_io_log_offset_clat.1.log", NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 0, 143806, 107091, 186359, NAN, 1000, 20);
		check_point(&r->points[1], 1000, 138192.2, 11922, 271269, NAN, 1000, 20);
		fc_profile_free(p);
	}
	p = profile(LOGS "per_io_log_offset_slat.1.log", NULL);
	if (p) {
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 91939.5, 75853, 116808, NAN, 1000,
			    20);
		fc_profile_free(p);
	}
	p = profile(LOGS "per_io_log_offset_lat.1.log", NULL);
	if (p) {
		check_point(&p->dir[FC_DDIR_READ].points[1], 1000, 227283.35, 174507, 357170, NAN,
			    1000, 20);
		fc_profile_free(p);
	}
	p = profile(LOGS "per_io_log_prio_clat.1.log", NULL);
	if (p) {
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 160332.5, 10520, 282069, NAN, 1000,
			    10);
		fc_profile_free(p);
	}
	p = profile(LOGS "prio_offset/po_clat.1.log", NULL);
	if (p) {
		CHECK_INT(p->dir[FC_DDIR_READ].n, 1);
		check_point(&p->dir[FC_DDIR_READ].points[0], 0, 230536.5, 121770, 311870, NAN, 1000,
			    10);
		fc_profile_free(p);
	}
}

/* The per-I/O logs of one run against the JSON report of that run. */
static void test_same_run(void)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	CHECK_INT(fc_output_read_file(check_src(LOGS "same_run/perio.json"), &o, &e), 0);
	if (!o)
		return;
	const struct fc_job *job = &o->final->jobs[0];
	struct fc_profile *iops = profile(LOGS "same_run/perio_iops.1.log", NULL);
	struct fc_profile *bw = profile(LOGS "same_run/perio_bw.1.log", NULL);
	struct fc_profile *clat = profile(LOGS "same_run/perio_clat.1.log", NULL);
	struct fc_profile *agg[2] = {profile(LOGS "same_run/agg-read_bw.log", NULL),
				     profile(LOGS "same_run/agg-write_bw.log", NULL)};
	for (int d = 0; iops && bw && clat && agg[0] && agg[1] && d < 2; d++) {
		const struct fc_dir *dir = &job->dir[d];
		CHECK_U64(dir->total_ios, 200);
		CHECK_U64(dir->io_bytes, 819200);
		/* every I/O is a line: the counts are fio's total_ios */
		CHECK_DBL(series_total(&iops->dir[d]), (double)dir->total_ios, 0);
		CHECK_DBL(series_total(&bw->dir[d]), dir->io_bytes / 1024.0, 0);
		CHECK_INT(iops->dir[d].n, 2);
		check_point(&iops->dir[d].points[0], 0, 100, NAN, NAN, 100, 1000, 100);
		check_point(&bw->dir[d].points[1], 1000, 400, NAN, NAN, 400, 1000, 100);
		/* the I/O-weighted mean of the interval means is fio's clat mean */
		double sum = 0, n = 0, min = INFINITY, max = 0;
		for (size_t i = 0; i < clat->dir[d].n; i++) {
			const struct fc_profile_point *pt = &clat->dir[d].points[i];
			sum += pt->value * (double)pt->samples;
			n += (double)pt->samples;
			min = fmin(min, pt->min);
			max = fmax(max, pt->max);
		}
		CHECK_DBL(n, (double)dir->clat.n, 0);
		CHECK_DBL(sum / n, dir->clat.mean_ns, 1e-8);
		CHECK_DBL(min, dir->clat.min_ns, 0);
		CHECK_DBL(max, dir->clat.max_ns, 0);
		/* --bandwidth-log (windowed, since fio's start): 800.133 KiB of 800 */
		CHECK_DBL(series_total(&agg[d]->dir[d]), dir->io_bytes / 1024.0, 1e-3);
		CHECK_DBL(series_total(&agg[d]->dir[d]), 800.133, REL);
	}
	CHECK_DBL(clat->dir[0].points[0].value, 180665.26, REL);
	CHECK_DBL(clat->dir[1].points[1].value, 496742.36, REL);
	fc_profile_free(iops);
	fc_profile_free(bw);
	fc_profile_free(clat);
	fc_profile_free(agg[0]);
	fc_profile_free(agg[1]);
	fc_output_free(o);

	/* windowed iops of a run: the mass falls short of total_ios only by the
	 * final window fio 3.33 left out (1803 of 2001 ms, at 500 I/O per second) */
	CHECK_INT(fc_output_read_file(check_src(LOGS "windowed_200ms/win.json"), &o, &e), 0);
	struct fc_profile *p = profile(LOGS "windowed_200ms/win_iops.1.log", NULL);
	if (o && p) {
		const struct fc_dir *dir = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK_U64(dir->total_ios, 1001);
		double covered = 0;
		for (size_t i = 0; i < p->dir[0].n; i++)
			covered += p->dir[0].points[i].covered_ms;
		CHECK_DBL(covered, 1803, REL);
		CHECK_DBL(series_total(&p->dir[0]),
			  (double)dir->total_ios * covered / (double)dir->runtime_ms, 5e-3);
	}
	fc_profile_free(p);
	fc_output_free(o);
}

/* ---- histograms ---------------------------------------------------------------- */

static void check_pct(const struct fc_profile_point *pt, double p50, double p90, double p99,
		      double p999)
{
	CHECK(pt->percentiles_ns != NULL);
	if (!pt->percentiles_ns)
		return;
	CHECK_DBL(pt->percentiles_ns[0], p50, REL);
	CHECK_DBL(pt->percentiles_ns[1], p90, REL);
	CHECK_DBL(pt->percentiles_ns[2], p99, REL);
	CHECK_DBL(pt->percentiles_ns[3], p999, REL);
}

static void test_hist(void)
{
	/* One interval holding every row: the values were computed from the
	 * buckets independently (fio's plat_idx_to_val, its percentile rule). */
	struct fc_profile_opts all = {.interval_ms = 100000};
	struct fc_profile *p = profile(LOGS "hist_c0_500ms/hist_clat_hist.1.log", &all);
	if (p) {
		CHECK_INT(p->type, FC_LOG_CLAT_HIST);
		CHECK(!p->per_io);
		CHECK_INT(p->n_percentiles, 4);
		CHECK_DBL(p->percentiles[3], 99.9, 0);
		CHECK_INT(p->dir[0].n, 1);
		const struct fc_profile_point *pt = &p->dir[0].points[0];
		check_point(pt, 0, 1059669.3333333333, 90624, 8716288, 303, 1514, 3);
		/* p99 equals the JSON's (5996544): the 98 I/Os of the missing final
		 * window do not move it */
		check_pct(pt, 250880, 3063808, 5996544, 8716288);
		fc_profile_free(p);
	}
	struct fc_output *o = NULL;
	struct fc_error e;
	CHECK_INT(fc_output_read_file(check_src(LOGS "hist_c0_500ms/hist.json"), &o, &e), 0);
	if (o) {
		const struct fc_lat *clat = &o->final->jobs[0].dir[FC_DDIR_READ].clat;
		CHECK_DBL(clat->percentiles[12].percent, 99, 0);
		CHECK_DBL(clat->percentiles[12].value_ns, 5996544, 0);
		fc_output_free(o);
	}

	/* coarseness 4: 116 buckets of 16; a bucket stands for its centre */
	p = profile(LOGS "hist_1000ms_coarseness4_clat_hist.1.log", &all);
	if (p) {
		CHECK_INT(p->layout.hist_buckets, 116);
		const struct fc_profile_point *pt = &p->dir[0].points[0];
		check_point(pt, 0, 38473.76867223989, 30720, 294912, 25479, 1001, 1);
		check_pct(pt, 36864, 45056, 73728, 122880);
		fc_profile_free(p);
	}
	/* at 1 s the row (0, 1001] leaves 1/1001 in [1000, 2000) */
	p = profile(LOGS "hist_1000ms_coarseness4_clat_hist.1.log", NULL);
	if (p) {
		CHECK_INT(p->dir[0].n, 2);
		check_point(&p->dir[0].points[0], 0, 38473.76867223989, 30720, 294912,
			    25479 * 1000 / 1001.0, 1000, 1);
		check_point(&p->dir[0].points[1], 1000, 38473.76867223989, 30720, 294912,
			    25479 / 1001.0, 1, 1);
		check_pct(&p->dir[0].points[1], 36864, 45056, 73728, 122880);
		fc_profile_free(p);
	}
	/* coarseness 0: fio's own bucket values; read and write apart */
	p = profile(LOGS "hist_1000ms_coarseness0_first2rows_clat_hist.1.log", &all);
	if (p) {
		CHECK_INT(p->layout.hist_buckets, 1856);
		check_point(&p->dir[0].points[0], 0, 39037.784315318975, 28032, 264192, 12305, 1001,
			    1);
		check_pct(&p->dir[0].points[0], 36096, 49920, 79360, 152576);
		check_point(&p->dir[1].points[0], 0, 39521.454782467, 28544, 1019904, 12274, 1001,
			    1);
		check_pct(&p->dir[1].points[0], 36608, 48896, 78336, 134144);
		fc_profile_free(p);
	}
	/* other percentiles: 0 and 100 are the lowest and highest bucket */
	const double want[] = {0, 100, 50};
	struct fc_profile_opts o3 = {
	    .interval_ms = 100000, .percentiles = want, .n_percentiles = 3};
	p = profile(LOGS "hist_1000ms_coarseness4_clat_hist.1.log", &o3);
	if (p) {
		CHECK_INT(p->n_percentiles, 3);
		const double *v = p->dir[0].points[0].percentiles_ns;
		CHECK_DBL(v[0], 30720, 0);
		CHECK_DBL(v[1], 294912, 0);
		CHECK_DBL(v[2], 36864, 0);
		fc_profile_free(p);
	}

	/* fio 2.x: 1216 >> 3 buckets of us, reported in ns.  Bucket 40 spans
	 * fio's buckets 320..327 (1032..1144 us), centre 1088 us; 41: 1216 us;
	 * 45: 1728 us.  Row 1: 30 x 1088 + 10 x 1216 -> mean 1120 us. */
	p = profile(LOGS "handmade/fio2_hist_clat_hist.1.log", NULL);
	if (p) {
		CHECK_INT(p->layout.hist_groups, 19);
		CHECK_INT(p->dir[0].n, 2);
		check_point(&p->dir[0].points[0], 0, 1120000, 1088000, 1216000, 40, 1000, 1);
		check_pct(&p->dir[0].points[0], 1088000, 1216000, 1216000, 1216000);
		check_point(&p->dir[0].points[1], 1000, 1728000, 1728000, 1728000, 20, 1000, 1);
		fc_profile_free(p);
	}

	/* a hist row without completions: covered, total 0, no values */
	char row[512];
	size_t len = (size_t)snprintf(row, sizeof(row), "1000, 0, 4096");
	for (int j = 0; j < 29; j++)
		len += (size_t)snprintf(row + len, sizeof(row) - len, ", 0");
	snprintf(row + len, sizeof(row) - len, "\n");
	p = profile_text(row, "z_clat_hist.1.log", NULL, 0, NULL);
	if (p) {
		const struct fc_profile_point *pt = &p->dir[0].points[0];
		CHECK(!pt->gap);
		CHECK_DBL(pt->total, 0, 0);
		CHECK(isnan(pt->value) && isnan(pt->min) && isnan(pt->percentiles_ns[0]));
		fc_profile_free(p);
	}
}

/* ---- layouts fio 3.33 cannot write ------------------------------------------- */

static void test_handmade(void)
{
	/* fio 2.x clat in us; the caller says so and gets ns */
	struct fc_log_layout us = {.value_us = true};
	struct fc_profile_opts o = {.layout = &us};
	struct fc_profile *p = profile(LOGS "handmade/fio2_clat.1.log", &o);
	if (p) {
		CHECK(p->per_io && p->layout.value_us);
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		CHECK_INT(r->n, 2);
		check_point(&r->points[0], 0, 350000 / 3.0, 90000, 140000, NAN, 1000, 3);
		check_point(&r->points[1], 1000, 110000, 110000, 110000, NAN, 1000, 1);
		check_point(&p->dir[FC_DDIR_WRITE].points[1], 1000, 300000, 300000, 300000, NAN,
			    1000, 1);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/fio2_clat.1.log", NULL);
	if (p) {
		CHECK_DBL(p->dir[FC_DDIR_READ].points[1].value, 110, 0);
		fc_profile_free(p);
	}

	/* windowed fio 2.x iops, 500 ms windows; no write line at 1000 (no
	 * writes then), so the write window at 1500 reaches back to 500 ... */
	p = profile(LOGS "handmade/fio2_iops.1.log", NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[FC_DDIR_READ];
		check_point(&r->points[0], 0, 1100, 1000, 1200, 1100, 1000, 2);
		check_point(&r->points[1], 1000, 800, 800, 800, 400, 500, 1);
		const struct fc_profile_series *w = &p->dir[FC_DDIR_WRITE];
		check_point(&w->points[0], 0, 500, 400, 600, 500, 1000, 2);
		check_point(&w->points[1], 1000, 600, 600, 600, 300, 500, 1);
		fc_profile_free(p);
	}
	/* ... unless the caller gives log_avg_msec */
	struct fc_profile_opts w500 = {.window_ms = 500};
	p = profile(LOGS "handmade/fio2_iops.1.log", &w500);
	if (p) {
		const struct fc_profile_series *w = &p->dir[FC_DDIR_WRITE];
		check_point(&w->points[0], 0, 400, 400, 400, 200, 500, 1);
		check_point(&w->points[1], 1000, 600, 600, 600, 300, 500, 1);
		fc_profile_free(p);
	}

	/* fio 1.x: no bs column; a bw log is windowed */
	p = profile(LOGS "handmade/fio1_bw.1.log", NULL);
	if (p) {
		CHECK(!p->per_io);
		check_point(&p->dir[0].points[0], 0, 5000, 2000, 8000, 5000, 1000, 4);
		fc_profile_free(p);
	}
	p = profile_text("250, 40, 0\n500, 60, 1\n", "t_clat.1.log", NULL, 0, NULL);
	if (p) {
		CHECK(p->per_io); /* lat logs without bs are per-I/O */
		check_point(&p->dir[1].points[0], 0, 60, 60, 60, NAN, 1000, 1);
		fc_profile_free(p);
	}

	/* log_window_value=both: the max comes from value1 */
	p = profile(LOGS "handmade/window_both_clat.1.log", NULL);
	if (p) {
		check_point(&p->dir[0].points[0], 0, 82500, 80000, 350000, NAN, 1000, 2);
		check_point(&p->dir[1].points[0], 0, 97000, 95000, 520000, NAN, 1000, 2);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/window_both_offset_lat.1.log", NULL);
	if (p) {
		CHECK_INT(p->dir[0].n, 2);
		check_point(&p->dir[0].points[1], 1000, 110000, 110000, 700000, NAN, 1000, 1);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/issue_time_clat.1.log", NULL);
	if (p) {
		check_point(&p->dir[0].points[0], 0, 128000, 125000, 131000, NAN, 1000, 2);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/both_issue_time_clat.1.log", NULL);
	if (p) {
		CHECK(p->per_io);
		check_point(&p->dir[1].points[0], 0, 131000, 131000, 131000, NAN, 1000, 1);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/log_offset_317_clat.1.log", NULL);
	if (p) {
		CHECK(p->layout.has_offset && !p->layout.has_prio);
		check_point(&p->dir[0].points[0], 0, 160000, 150000, 170000, NAN, 1000, 3);
		fc_profile_free(p);
	}
	p = profile(LOGS "handmade/messy_iops.1.log", NULL);
	if (p) {
		check_point(&p->dir[0].points[1], 1000, 1, NAN, NAN, 1, 1000, 1);
		fc_profile_free(p);
	}
}

/* ---- the definitions, one by one ------------------------------------------- */

static void test_definitions(void)
{
	struct fc_error e;
	/* per-I/O gaps: no I/O in [1000, 3000) */
	struct fc_profile *p = profile_text("100, 1, 0, 4096, 0\n3500, 1, 0, 4096, 0\n"
					    "3600, 1, 0, 4096, 0\n",
					    "g_iops.1.log", NULL, 0, NULL);
	if (p) {
		const struct fc_profile_series *r = &p->dir[0];
		CHECK_INT(r->n, 4);
		check_point(&r->points[0], 0, 1, NAN, NAN, 1, 1000, 1);
		check_point(&r->points[1], 1000, NAN, NAN, NAN, NAN, 0, 0);
		check_point(&r->points[2], 2000, NAN, NAN, NAN, NAN, 0, 0);
		check_point(&r->points[3], 3000, 2, NAN, NAN, 2, 1000, 2);
		fc_profile_free(p);
	}
	/* windowed gaps need the window length: without it the 5000 window covers
	 * (1000, 5000]; with log_avg_msec = 1000 it is (4000, 5000] */
	const char *win = "1000, 100, 0, 0, 0\n5000, 300, 0, 0, 0\n";
	p = profile_text(win, "g_iops.1.log", NULL, 0, NULL);
	if (p) {
		CHECK_INT(p->dir[0].n, 5);
		check_point(&p->dir[0].points[2], 2000, 300, 300, 300, 300, 1000, 1);
		fc_profile_free(p);
	}
	struct fc_profile_opts w1000 = {.window_ms = 1000};
	p = profile_text(win, "g_iops.1.log", &w1000, 0, NULL);
	if (p) {
		CHECK_INT(p->dir[0].n, 5);
		check_point(&p->dir[0].points[0], 0, 100, 100, 100, 100, 1000, 1);
		CHECK(p->dir[0].points[1].gap && p->dir[0].points[3].gap);
		CHECK(isnan(p->dir[0].points[2].value));
		check_point(&p->dir[0].points[4], 4000, 300, 300, 300, 300, 1000, 1);
		fc_profile_free(p);
	}
	/* per-I/O lines in Unix time */
	p = profile_text("1796049013160, 1, 0, 4096, 0\n1796049014001, 1, 0, 4096, 0\n",
			 "u_iops.1.log", NULL, 0, NULL);
	if (p) {
		CHECK(p->time_absolute && p->per_io);
		CHECK_INT(p->dir[0].n, 2);
		check_point(&p->dir[0].points[1], 1796049014000ull, 1, NAN, NAN, 1, 1000, 1);
		fc_profile_free(p);
	}
	/* per-I/O blocks (files concatenated) add up */
	p = profile_text("0, 1, 1, 4096, 0\n500, 1, 1, 4096, 0\n10, 1, 1, 4096, 0\n", "c_iops.log",
			 NULL, 0, NULL);
	if (p) {
		CHECK(p->time_went_backwards && !p->time_absolute);
		check_point(&p->dir[1].points[0], 0, 3, NAN, NAN, 3, 1000, 3);
		fc_profile_free(p);
	}
	/* windowed lat with several blocks: the mean over both */
	p = profile_text("500, 100, 0, 0, 0\n1000, 200, 0, 0, 0\n500, 300, 0, 0, 0\n", "c_lat.log",
			 NULL, 0, NULL);
	if (p) {
		check_point(&p->dir[0].points[0], 0, 200, 100, 300, NAN, 1000, 3);
		fc_profile_free(p);
	}
	/* interval 0 is the default; limits */
	struct fc_profile_opts zero = {0};
	p = profile_text("1, 1, 0, 4096, 0\n", "d_iops.1.log", &zero, 0, NULL);
	if (p) {
		CHECK_U64(p->interval_ms, 1000);
		fc_profile_free(p);
	}
	struct fc_profile_opts huge = {.interval_ms = (1ull << 40) + 1};
	profile_text("1, 1, 0, 4096, 0\n", "d_iops.1.log", &huge, FC_E_INVAL, NULL);
	struct fc_profile_opts one = {.interval_ms = 1};
	profile_text("0, 1, 0, 4096, 0\n2000000, 1, 0, 4096, 0\n", "d_iops.1.log", &one, FC_E_LIMIT,
		     &e);
	CHECK_INT(e.line, 2);
	CHECK(strstr(e.message, "2000001 intervals of 1 ms") != NULL);
	profile_text("9007199254740993, 1, 0, 4096, 0\n", "d_iops.1.log", NULL, FC_E_FORMAT, &e);
	CHECK(strstr(e.message, "beyond 2^53") != NULL);
	/* a hist row spread over 200,000 intervals, 1856 buckets each: more
	 * work than FC_PROFILE_MAX_SPREAD, refused before it is done */
	static char row[64 + 3 * FC_HIST_BUCKETS];
	size_t at = (size_t)snprintf(row, sizeof(row), "200000000, 0, 0");
	for (int i = 0; i < FC_HIST_BUCKETS; i++)
		at += (size_t)snprintf(row + at, sizeof(row) - at, ", 1");
	snprintf(row + at, sizeof(row) - at, "\n");
	profile_text(row, "w_clat_hist.1.log", NULL, FC_E_LIMIT, &e);
	CHECK_INT(e.line, 1);
	CHECK(strstr(e.message, "FC_PROFILE_MAX_SPREAD") != NULL);
	const double bad_pct[] = {50, 101};
	struct fc_profile_opts bp = {.percentiles = bad_pct, .n_percentiles = 2};
	profile_text("1, 1, 0, 4096, 0\n", "d_iops.1.log", &bp, FC_E_INVAL, NULL);
	const double nan_pct[] = {NAN};
	struct fc_profile_opts np = {.percentiles = nan_pct, .n_percentiles = 1};
	profile_text("1, 1, 0, 4096, 0\n", "d_iops.1.log", &np, FC_E_INVAL, NULL);
	struct fc_profile_opts many = {.percentiles = bad_pct, .n_percentiles = 65};
	profile_text("1, 1, 0, 4096, 0\n", "d_iops.1.log", &many, FC_E_INVAL, NULL);

	/* the type: from the name, or the caller */
	profile_text("1, 1, 0, 4096, 0\n", "no name", NULL, FC_E_INVAL, &e);
	CHECK(strstr(e.message, "fc_profile_opts.type") != NULL);
	struct fc_profile_opts bw = {.type = FC_LOG_BW};
	p = profile_text("1, 1, 0, 4096, 0\n", "no name", &bw, 0, NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_BW);
		CHECK_DBL(p->dir[0].points[0].value, 4, 0);
		fc_profile_free(p);
	}
	struct fc_profile_opts hist = {.type = FC_LOG_CLAT_HIST};
	profile_text("1, 1, 0, 4096, 0\n", "no name", &hist, FC_E_FORMAT, NULL);
	struct fc_profile_opts junk = {.type = (enum fc_log_type)42};
	profile_text("1, 1, 0, 4096, 0\n", "no name", &junk, FC_E_INVAL, NULL);
	/* an empty log: an empty profile */
	p = profile_text("", "no name", NULL, 0, NULL);
	if (p) {
		CHECK_U64(p->lines, 0);
		CHECK(p->dir[0].n == 0 && p->dir[1].n == 0 && p->dir[2].n == 0);
		fc_profile_free(p);
	}
	p = profile_text("", "e_clat_hist.1.log", NULL, 0, NULL);
	if (p) {
		CHECK_INT(p->type, FC_LOG_CLAT_HIST);
		CHECK_INT(p->dir[0].n, 0);
		fc_profile_free(p);
	}

	/* one kind per log */
	profile_text("0, 1, 0, 4096, 0\n100, 1, 0, 0, 0\n", "k_iops.1.log", NULL, FC_E_FORMAT, &e);
	CHECK_INT(e.line, 2);
	CHECK(strstr(e.message, "bs 0 makes this a windowed line, but the log began with "
				"per-I/O lines") != NULL);
	profile_text("100, 5, 0, 0, 0\n200, 1, 0, 4096, 0\n", "k_iops.1.log", NULL, FC_E_FORMAT,
		     &e);
	CHECK_INT(e.line, 2);
	/* reader errors come through */
	profile_text("100, 5, 0, 0, 0\n200, 1, 9, 0, 0\n", "k_iops.1.log", NULL, FC_E_FORMAT, &e);
	CHECK_INT(e.line, 2);
	CHECK_INT(e.column, 9);
	struct fc_profile *none = (struct fc_profile *)&e;
	CHECK_INT(
	    fc_profile_read_file(check_src(LOGS "compressed/fz_iops.1.log.fz"), NULL, &none, &e),
	    FC_E_FORMAT);
	CHECK(none == NULL);
	CHECK_INT(fc_profile_read_buffer("1, 2\n", 5, "t_iops.log", NULL, NULL, &e), FC_E_INVAL);
	CHECK_INT(fc_profile_read_file("t_iops.log", NULL, NULL, NULL), FC_E_INVAL);
	fc_profile_free(NULL);
}

/* ---- clat_hist logs of any length ------------------------------------------------ */

/*
 * A made-up clat_hist log of `rows` rows per direction (reads, and writes if
 * `dirs` is 2), fio's way: a row per direction every second, the times
 * drifting (1000, 2001, 3002, ...), counts in a few buckets of `buckets`
 * (1856 >> coarseness).  `blocks` job blocks follow each other, time
 * starting over in each (per_job_logs=0).  Caller frees.
 */
static char *hist_log(unsigned rows, unsigned buckets, int dirs, unsigned blocks, size_t *len)
{
	size_t cap = (size_t)rows * dirs * blocks * (64 + 5 * buckets) + 1, at = 0;
	char *text = malloc(cap);
	uint32_t seed = 12345;
	for (unsigned b = 0; b < blocks; b++) {
		for (unsigned i = 1; i <= rows; i++) {
			for (int d = 0; d < dirs; d++) {
				at += (size_t)snprintf(text + at, cap - at, "%u, %d, 4096",
						       i * 1000 + i - 1 + b * 7, d);
				unsigned base =
				    (buckets * 2 / 9 + i % 37 + (unsigned)d * 5) % buckets;
				for (unsigned j = 0; j < buckets; j++) {
					if (j < base || j >= base + 4 + i % 3) {
						memcpy(text + at, ", 0", 3);
						at += 3;
						continue;
					}
					seed = seed * 1103515245u + 12345u;
					at += (size_t)snprintf(text + at, cap - at, ", %u",
							       1 + (seed >> 16) % 40);
				}
				text[at++] = '\n';
			}
		}
	}
	text[at] = '\0';
	*len = at;
	return text;
}

/* The value fiocamp.h gives merged bucket j of `stride` fine ones. */
static double merged_value(unsigned j, unsigned stride)
{
	return (fc_hist_bucket_value(j * stride, 29, 0) +
		fc_hist_bucket_value(j * stride + stride - 1, 29, 0)) /
	       2;
}

/*
 * The slow way, as fiocamp.h defines a hist profile: every interval's
 * merged buckets at once, each row's window (the previous row of its
 * direction and block, or 0) shared out by overlap, then fio's percentile
 * rule.  Returns the summaries: per direction and interval, total, mean,
 * min, max and the percentiles `want`.
 */
static double *hist_reference(const char *text, unsigned buckets, size_t n_intervals,
			      const double *want, size_t n_want)
{
	size_t per = 4 + n_want;
	double *h = calloc((size_t)2 * n_intervals * buckets, sizeof(double));
	double *out = calloc((size_t)2 * n_intervals * per, sizeof(double));
	uint64_t prev[2] = {0, 0};
	uint64_t *row = malloc(buckets * sizeof(*row));
	const char *p = text;
	while (*p) {
		char *e;
		uint64_t t = strtoull(p, &e, 10);
		int d = (int)strtol(e + 1, &e, 10);
		strtoull(e + 1, &e, 10);
		for (unsigned j = 0; j < buckets; j++)
			row[j] = strtoull(e + 1, &e, 10);
		p = e + 1;
		if (t < prev[d])
			prev[d] = 0; /* the next job block: its first window starts at 0 */
		uint64_t from = prev[d], to = t;
		prev[d] = t;
		for (uint64_t k = from / 1000; k <= (to - 1) / 1000 && k < n_intervals; k++) {
			uint64_t lo = k * 1000 > from ? k * 1000 : from;
			uint64_t hi = (k + 1) * 1000 < to ? (k + 1) * 1000 : to;
			double share = (double)(hi - lo) / (double)(to - from);
			for (unsigned j = 0; j < buckets; j++)
				h[((size_t)d * n_intervals + k) * buckets + j] +=
				    (double)row[j] * share;
		}
	}
	unsigned stride = 1856 / buckets;
	for (int d = 0; d < 2; d++) {
		for (size_t k = 0; k < n_intervals; k++) {
			const double *hk = &h[((size_t)d * n_intervals + k) * buckets];
			double *o = &out[((size_t)d * n_intervals + k) * per];
			double total = 0, weighted = 0;
			int lo = -1, hi = -1;
			for (unsigned j = 0; j < buckets; j++) {
				if (hk[j] <= 0)
					continue;
				total += hk[j];
				weighted += hk[j] * merged_value(j, stride);
				if (lo < 0)
					lo = (int)j;
				hi = (int)j;
			}
			o[0] = total;
			if (lo < 0)
				continue;
			o[1] = weighted / total;
			o[2] = merged_value((unsigned)lo, stride);
			o[3] = merged_value((unsigned)hi, stride);
			for (size_t i = 0; i < n_want; i++) {
				long double target = (long double)want[i] / 100.0 * total;
				double cum = 0;
				for (int j = lo; j <= hi; j++) {
					if (hk[j] <= 0)
						continue;
					cum += hk[j];
					if (cum >= target) {
						o[4 + i] = merged_value((unsigned)j, stride);
						break;
					}
				}
			}
		}
	}
	free(row);
	free(h);
	return out;
}

/* Every point of directions 0 and 1 against the slow way. */
static void same_as_reference(const struct fc_profile *p, const double *ref, size_t n_intervals,
			      size_t n_want)
{
	for (int d = 0; d < 2; d++) {
		const struct fc_profile_series *s = &p->dir[d];
		CHECK_INT(s->n, n_intervals);
		for (size_t k = 0; k < s->n && k < n_intervals; k++) {
			const struct fc_profile_point *pt = &s->points[k];
			const double *o = &ref[((size_t)d * n_intervals + k) * (4 + n_want)];
			CHECK_U64(pt->start_ms, k * 1000);
			CHECK_DBL(pt->total, o[0], 1e-12);
			CHECK_DBL(pt->value, o[1], 1e-12);
			CHECK_DBL(pt->min, o[2], 0);
			CHECK_DBL(pt->max, o[3], 0);
			for (size_t i = 0; i < n_want; i++)
				CHECK_DBL(pt->percentiles_ns[i], o[4 + i], 0);
		}
	}
}

static void test_hist_streaming(void)
{
	static const double want[] = {0, 1, 50, 90, 99, 99.9, 100};
	const size_t n_want = sizeof(want) / sizeof(want[0]);
	struct fc_profile_opts o = {.percentiles = want, .n_percentiles = n_want};
	struct fc_profile_stats st;
	struct fc_error e;
	struct fc_profile *p = NULL;

	/* one job block, coarseness 0: one read, two open intervals per direction */
	size_t len;
	char *text = hist_log(300, 1856, 2, 1, &len);
	double *ref = hist_reference(text, 1856, 301, want, n_want);
	CHECK_INT(fc_profile_read_buffer(text, len, "s_clat_hist.1.log", &o, &p, &e), 0);
	if (p) {
		same_as_reference(p, ref, 301, n_want);
		fc_profile_get_stats(p, &st);
		CHECK_INT(st.reads, 1);
		CHECK(st.hist_peak_bytes <= 6 * 1856 * sizeof(double));
		CHECK(!p->time_went_backwards);
		CHECK_U64(p->lines, 600);
		fc_profile_free(p);
	}
	free(ref);
	free(text);

	/* two job blocks: the second reaches back into closed intervals, so the
	 * log is read again, for everything but the buckets and then in chunks
	 * of as many intervals as the buckets' memory holds (here 8 per
	 * direction) */
	text = hist_log(100, 1856, 2, 2, &len);
	ref = hist_reference(text, 1856, 101, want, n_want);
	size_t cap = 16 * 1856 * sizeof(double);
	CHECK_INT(fc_profile_read_buffer_capped(text, len, "b_clat_hist.log", &o, cap, &p, &e), 0);
	if (p) {
		same_as_reference(p, ref, 101, n_want);
		fc_profile_get_stats(p, &st);
		CHECK_INT(st.reads, 2 + (101 + 7) / 8);
		CHECK(st.hist_peak_bytes <= cap);
		CHECK(p->time_went_backwards);
		CHECK_U64(p->lines, 400);
		fc_profile_free(p);
	}
	/* the same with the library's memory: one chunk */
	CHECK_INT(fc_profile_read_buffer(text, len, "b_clat_hist.log", &o, &p, &e), 0);
	if (p) {
		same_as_reference(p, ref, 101, n_want);
		fc_profile_get_stats(p, &st);
		CHECK_INT(st.reads, 3);
		fc_profile_free(p);
	}
	/* one window over more intervals than the buckets' memory holds: read
	 * in chunks too, not refused */
	char wide[64 + 8 * 116];
	size_t at = (size_t)snprintf(wide, sizeof(wide), "60000, 0, 4096");
	for (int j = 0; j < 116; j++)
		at += (size_t)snprintf(wide + at, sizeof(wide) - at, ", %d", j == 50 ? 600 : 0);
	snprintf(wide + at, sizeof(wide) - at, "\n");
	CHECK_INT(fc_profile_read_buffer_capped(wide, strlen(wide), "w_clat_hist.1.log", NULL,
						10 * 116 * sizeof(double), &p, &e),
		  0);
	if (p) {
		CHECK_INT(p->dir[0].n, 60);
		CHECK_DBL(p->dir[0].points[59].total, 10, 1e-12);
		fc_profile_get_stats(p, &st);
		CHECK_INT(st.reads, 2 + 6);
		fc_profile_free(p);
	}
	/* memory for less than one interval's buckets: refused, naming it */
	CHECK_INT(fc_profile_read_buffer_capped(wide, strlen(wide), "w_clat_hist.1.log", NULL, 100,
						&p, &e),
		  FC_E_LIMIT);
	CHECK(p == NULL);
	CHECK_INT(e.line, 1);
	CHECK(strstr(e.message, "the histograms of this log need more than 100 bytes") != NULL);
	free(ref);
	free(text);

	/* 24 hours of 1 s rows (86,400 intervals, coarseness 4): one read, the
	 * buckets of a few intervals at a time, a few hundred bytes per
	 * interval in all */
	text = hist_log(86400, 116, 1, 1, &len);
	CHECK_INT(fc_profile_read_buffer(text, len, "day_clat_hist.1.log", NULL, &p, &e), 0);
	if (p) {
		CHECK_INT(p->dir[0].n, 86487); /* the last row at 86,486,399 ms: fio's drift */
		fc_profile_get_stats(p, &st);
		CHECK_INT(st.reads, 1);
		CHECK(st.hist_peak_bytes <= 3 * 116 * sizeof(double));
		size_t per_interval = (st.series_bytes + st.result_bytes) / 86487;
		if (per_interval > 400)
			fprintf(stderr, "%zu bytes per interval\n", per_interval);
		CHECK(per_interval <= 400);
		double sum = 0;
		for (size_t k = 0; k < p->dir[0].n; k++)
			sum += p->dir[0].points[k].total;
		double counted = 0; /* every count of the log, shared out */
		for (const char *q = text; *q;) {
			char *end;
			strtoull(q, &end, 10);
			strtoull(end + 1, &end, 10);
			strtoull(end + 1, &end, 10);
			for (int j = 0; j < 116; j++)
				counted += (double)strtoull(end + 1, &end, 10);
			q = end + 1;
		}
		CHECK_DBL(sum, counted, 1e-12);
		CHECK(p->dir[0].points[43200].percentiles_ns[2] > 0);
		fc_profile_free(p);
	}
	free(text);
}

int main(void)
{
	test_descending();
	test_windowed_fio333();
	test_shared_file();
	test_unix_epoch();
	test_compression_quirk();
	test_per_io_fio333();
	test_same_run();
	test_hist();
	test_hist_streaming();
	test_handmade();
	test_definitions();
	return check_exit();
}
