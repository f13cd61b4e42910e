/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze's sweeps (stats/sweep.c): the saturation rule on
 * synthetic numbers, and which tests make a sweep (workload keys made by
 * hand, no runs).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "check.h"

static void test_saturation(void)
{
	/* a device that tops out at 2000 IOPS from queue depth 4: latency
	 * doubles with every step beyond */
	double iops[] = {500, 1000, 1950, 2000, 2010, 2005, 2000};
	double p99[] = {2000, 2000, 2100, 4100, 8200, 16400, 32800};
	CHECK_INT(an_saturation(iops, p99, 7), 2);
	/* still growing by 10 % or more: not reached */
	double grow[] = {1000, 2000, 3000, 4000, 5000};
	double lat[] = {100, 150, 300, 600, 1200};
	CHECK_INT(an_saturation(grow, lat, 5), -1);
	/* flat IOPS but latency flat too (a cache): not reached */
	double flat[] = {5000, 5000, 5000};
	double same[] = {100, 110, 120};
	CHECK_INT(an_saturation(flat, same, 3), -1);
	/* a flat step that later grows again is no saturation */
	double dip[] = {1000, 1050, 2000, 2050};
	double up[] = {100, 200, 300, 600};
	CHECK_INT(an_saturation(dip, up, 4), 2);
	/* saturated from the first point */
	double cap[] = {2000, 2000, 2000};
	double dbl[] = {500, 1000, 2000};
	CHECK_INT(an_saturation(cap, dbl, 3), 0);
	/* a point not measured is stepped over */
	double gap[] = {1000, NAN, 2000, 2050};
	double gl[] = {100, NAN, 200, 400};
	CHECK_INT(an_saturation(gap, gl, 4), 2);
	/* fewer than two points */
	CHECK_INT(an_saturation(cap, dbl, 1), AN_SAT_UNKNOWN);
	CHECK_INT(an_saturation(gap + 1, gl + 1, 1), AN_SAT_UNKNOWN);
}

/* A test of one job (or `jobs` alike) with the given options. */
static void add_test(struct an_analysis *a, const char *name, const char *rw, const char *bs,
		     const char *qd, const char *nj, size_t jobs)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t j = 0; j < jobs; j++) {
		if (j)
			cm_buf_putc(&b, '\x1e');
		an_wl_put(&b, AN_WL_NAME, "job");
		an_wl_put(&b, AN_WL_RW, rw);
		an_wl_put(&b, AN_WL_BS, bs);
		an_wl_put(&b, AN_WL_IODEPTH, qd);
		an_wl_put(&b, AN_WL_NUMJOBS, nj);
		an_wl_put(&b, AN_WL_IOENGINE, "libaio");
	}
	a->tests = cm_realloc(a->tests, a->n_tests + 1, sizeof(*a->tests));
	struct an_test *t = &a->tests[a->n_tests++];
	memset(t, 0, sizeof(*t));
	t->name = cm_strdup(name);
	t->workload = b.s; /* the test's own here; freed below */
	t->n_runs = 1;
	t->bonnie_test = -1;
}

static void release(struct an_analysis *a)
{
	for (size_t t = 0; t < a->n_tests; t++) {
		free(a->tests[t].name);
		free(a->tests[t].workload);
		a->tests[t].name = a->tests[t].workload = NULL;
	}
	free(a->tests);
	a->tests = NULL;
	a->n_tests = 0;
	an_analysis_free(a);
}

static void test_recognise(void)
{
	struct an_analysis a;
	an_analysis_init(&a);
	/* iodepth x numjobs at two rw: two sweeps, iodepth rows, numjobs columns
	 * (numjobs=2 as two jobs alike, without group_reporting) */
	const char *rws[] = {"randread", "randwrite"};
	const char *qds[] = {"16", "1", "4"};
	for (size_t r = 0; r < 2; r++)
		for (size_t q = 0; q < 3; q++)
			for (size_t n = 1; n <= 2; n++) {
				char name[64], nj[8];
				snprintf(name, sizeof(name), "%s_qd%s_nj%zu", rws[r], qds[q], n);
				snprintf(nj, sizeof(nj), "%zu", n);
				add_test(&a, name, rws[r], "4k", qds[q], nj, n);
			}
	/* a suite beside it: rr8k and rw8k differ in rw only, no sweep; a
	 * 1m read differs from them in two options, a grid with a hole */
	add_test(&a, "rr8k", "randread", "8k", "32", "1", 1);
	add_test(&a, "rw8k", "randwrite", "8k", "32", "1", 1);
	add_test(&a, "seq1m", "read", "1m", "32", "1", 1);
	an_sweeps_build(&a);
	CHECK_INT(a.n_sweeps, 2);
	if (a.n_sweeps == 2) {
		const struct an_sweep *s = &a.sweeps[0];
		CHECK_STR(s->label, "randread bs=4k");
		CHECK_INT(s->n_opts, 2);
		CHECK_STR(s->opts[0], "iodepth");
		CHECK_STR(s->opts[1], "numjobs");
		CHECK_INT(s->n_values[0], 3);
		CHECK_STR(s->values[0][0], "1"); /* numbers ascending */
		CHECK_STR(s->values[0][2], "16");
		CHECK_INT(s->n_points, 6);
		CHECK_INT(s->load, 0);
		CHECK_INT(s->n_lines, 2);
		CHECK(!s->bandwidth);
		CHECK_STR(a.sweeps[1].label, "randwrite bs=4k");
	}
	release(&a);

	/* a campaign's points: the test's name before '@'; bs alone, in bytes'
	 * order, with MiB/s the headline */
	an_analysis_init(&a);
	add_test(&a, "seqr@bs=1m", "read", "1m", "8", "1", 1);
	add_test(&a, "seqr@bs=4k", "read", "4k", "8", "1", 1);
	add_test(&a, "seqr@bs=64k", "read", "64k", "8", "1", 1);
	an_sweeps_build(&a);
	CHECK_INT(a.n_sweeps, 1);
	if (a.n_sweeps == 1) {
		const struct an_sweep *s = &a.sweeps[0];
		CHECK_STR(s->label, "seqr");
		CHECK_INT(s->n_opts, 1);
		CHECK_STR(s->opts[0], "bs");
		CHECK_STR(s->values[0][0], "4k");
		CHECK_STR(s->values[0][1], "64k");
		CHECK_STR(s->values[0][2], "1m");
		CHECK(s->bandwidth);
		CHECK_INT(s->load, -1);
	}
	release(&a);

	/* two tests at one point are no sweep */
	an_analysis_init(&a);
	add_test(&a, "a", "randread", "4k", "1", "1", 1);
	add_test(&a, "b", "randread", "4k", "1", "1", 1);
	add_test(&a, "c", "randread", "4k", "8", "1", 1);
	an_sweeps_build(&a);
	CHECK_INT(a.n_sweeps, 0);
	release(&a);
}

int main(void)
{
	cm_init("test-analyze-sweep", 1);
	test_saturation();
	test_recognise();
	return check_exit();
}
