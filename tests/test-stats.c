/* SPDX-License-Identifier: MIT */
/*
 * Statistics helpers.  Expected values are derived by hand (quartiles,
 * MAD, 4 vs 4 separation = 2/70), taken from a textbook example (R's
 * wilcox.test help page: W = 35, one-sided p = 0.1272), computed with exact
 * fractions in Python (itertools.combinations over all splits), or checked
 * against a brute-force enumeration done here in the test.
 */
#include <float.h>
#include <stdint.h>

#include "check.h"
#include "fiocamp.h"

static void test_quantile(void)
{
	const double v[] = {1, 2, 3, 4};
	CHECK_DBL(fc_quantile_sorted(v, 4, 0.0), 1.0, 0);
	CHECK_DBL(fc_quantile_sorted(v, 4, 0.25), 1.75, 1e-15);
	CHECK_DBL(fc_quantile_sorted(v, 4, 0.5), 2.5, 0);
	CHECK_DBL(fc_quantile_sorted(v, 4, 0.75), 3.25, 1e-15);
	CHECK_DBL(fc_quantile_sorted(v, 4, 0.9), 3.7, 1e-15);
	CHECK_DBL(fc_quantile_sorted(v, 4, 1.0), 4.0, 0);
	CHECK_DBL(fc_quantile_sorted(v, 1, 0.3), 1.0, 0);
	CHECK(isnan(fc_quantile_sorted(v, 0, 0.5)));
	CHECK(isnan(fc_quantile_sorted(v, 4, 1.5)));
	CHECK(isnan(fc_quantile_sorted(v, 4, -0.1)));
	CHECK(isnan(fc_quantile_sorted(v, 4, NAN)));
	/* no overflow between two finite values, no 0 * inf at a data point */
	const double wide[] = {-DBL_MAX, DBL_MAX};
	CHECK_DBL(fc_quantile_sorted(wide, 2, 0.5), 0, 0);
	CHECK_DBL(fc_quantile_sorted(wide, 2, 0.75), DBL_MAX / 2, 1e-15);
	const double inf[] = {1, INFINITY};
	CHECK_DBL(fc_quantile_sorted(inf, 2, 0.0), 1, 0);
	CHECK(isinf(fc_quantile_sorted(inf, 2, 0.5)));
}

static void test_summarize_huge(void)
{
	/* the sum of these overflows, their mean and median do not */
	const double v[] = {DBL_MAX, DBL_MAX / 2, DBL_MAX};
	struct fc_summary s;
	CHECK_INT(fc_summarize(v, 3, &s), FC_OK);
	CHECK_DBL(s.mean, DBL_MAX / 6 * 5, 1e-15);
	CHECK_DBL(s.median, DBL_MAX, 0);
	CHECK_DBL(s.q1, DBL_MAX / 4 * 3, 1e-15);
	CHECK(isfinite(s.iqr));
}

static void test_summarize(void)
{
	/* Finite values sorted: 1 1 2 3 4 5 6 9.  Type 7: median at h = 3.5,
	 * q1 at 1.75, q3 at 5.25.  |x - 3.5| sorted: .5 .5 1.5 1.5 2.5 2.5
	 * 2.5 5.5, median 2.0.  (R: quantile() and mad(constant = 1) agree.) */
	double v[] = {3, NAN, 1, 4, 1, 5, 9, 2, 6, INFINITY};
	double copy[10];
	memcpy(copy, v, sizeof(v));
	struct fc_summary s;
	CHECK_INT(fc_summarize(v, 10, &s), FC_OK);
	CHECK_INT(s.n, 8);
	CHECK_DBL(s.min, 1, 0);
	CHECK_DBL(s.max, 9, 0);
	CHECK_DBL(s.mean, 3.875, 1e-15);
	CHECK_DBL(s.median, 3.5, 0);
	CHECK_DBL(s.q1, 1.75, 1e-15);
	CHECK_DBL(s.q3, 5.25, 1e-15);
	CHECK_DBL(s.iqr, 3.5, 1e-15);
	CHECK_DBL(s.mad, 2.0, 1e-15);
	CHECK(memcmp(v, copy, sizeof(v)) == 0); /* input unchanged, NaN bits too */

	/* Odd count: the middle value. */
	const double w[] = {29094, 22900, 49674, 31000, 25000};
	CHECK_INT(fc_summarize(w, 5, &s), FC_OK);
	CHECK_DBL(s.median, 29094, 0);
	CHECK_DBL(s.q1, 25000, 0);
	CHECK_DBL(s.q3, 31000, 0);
	CHECK_DBL(s.mad, 4094, 0); /* |x-29094|: 6194 20580 1906 4094 0 */

	const double nan2[] = {NAN, NAN};
	CHECK_INT(fc_summarize(nan2, 2, &s), FC_OK);
	CHECK_INT(s.n, 0);
	CHECK(isnan(s.median) && isnan(s.min) && isnan(s.iqr) && isnan(s.mad));
	CHECK_INT(fc_summarize(NULL, 0, &s), FC_OK);
	CHECK_INT(s.n, 0);

	const double one[] = {7.5};
	CHECK_INT(fc_summarize(one, 1, &s), FC_OK);
	CHECK_INT(s.n, 1);
	CHECK_DBL(s.median, 7.5, 0);
	CHECK_DBL(s.iqr, 0, 0);
	CHECK_DBL(s.mad, 0, 0);
}

static void test_mw_known(void)
{
	struct fc_mann_whitney m;

	/* 4 vs 4, complete separation: 2 of the C(8,4) = 70 splits are as
	 * extreme, p = 2/70, the smallest p two samples of 4 can give. */
	const double lo[] = {1, 2, 3, 4}, hi[] = {5, 6, 7, 8};
	CHECK_INT(fc_mann_whitney(lo, 4, hi, 4, &m), FC_OK);
	CHECK(m.exact);
	CHECK(!m.ties);
	CHECK_DBL(m.u, 0, 0);
	CHECK_DBL(m.p, 2.0 / 70.0, 1e-14);
	CHECK_INT(fc_mann_whitney(hi, 4, lo, 4, &m), FC_OK);
	CHECK_DBL(m.u, 16, 0);
	CHECK_DBL(m.p, 2.0 / 70.0, 1e-14);

	/* 3 vs 3: 2/20 = 0.1 at best. */
	const double a3[] = {10, 11, 12}, b3[] = {1, 2, 3};
	CHECK_INT(fc_mann_whitney(a3, 3, b3, 3, &m), FC_OK);
	CHECK_DBL(m.p, 0.1, 1e-14);

	/* R's ?wilcox.test example: W = 35, one-sided p = 0.1272, so the
	 * two-sided p is 764/3003 = 0.25441... */
	const double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
	const double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
	CHECK_INT(fc_mann_whitney(x, 10, y, 5, &m), FC_OK);
	CHECK(m.exact);
	CHECK_DBL(m.u, 35, 0);
	CHECK_DBL(m.p, 764.0 / 3003.0, 1e-13);

	/* Ties: mid-ranks 1, 3, 3, 5.5 against 3, 5.5, 5.5, 8, 9: p = 1/9. */
	const double ta[] = {1, 2, 2, 3}, tb[] = {2, 3, 3, 4, 5};
	CHECK_INT(fc_mann_whitney(ta, 4, tb, 5, &m), FC_OK);
	CHECK(m.exact);
	CHECK(m.ties);
	CHECK_DBL(m.u, 3, 0);
	CHECK_DBL(m.p, 1.0 / 9.0, 1e-14);

	/* All equal: nothing to tell apart. */
	const double same[] = {10, 10, 10};
	CHECK_INT(fc_mann_whitney(same, 3, same, 3, &m), FC_OK);
	CHECK_DBL(m.u, 4.5, 0);
	CHECK_DBL(m.p, 1.0, 1e-15);

	/* NaNs are skipped: {3.5} against {1, 2, 3}, p = 2/4. */
	const double na[] = {NAN, 3.5}, nb[] = {1, NAN, 2, 3};
	CHECK_INT(fc_mann_whitney(na, 2, nb, 4, &m), FC_OK);
	CHECK_DBL(m.u, 3, 0);
	CHECK_DBL(m.p, 0.5, 1e-15);

	CHECK_INT(fc_mann_whitney(na, 1, nb, 4, &m), FC_E_INVAL);
	CHECK_INT(fc_mann_whitney(lo, 4, NULL, 0, &m), FC_E_INVAL);
	CHECK(isnan(m.p));

	/* Large samples: normal approximation with tie and continuity
	 * correction.  a = 0,0,1,1,...,14,14 (30); b = 5,5,6,...,20 (31).
	 * U = 200; p = 0.00013274842700879870 (Python, same formula). */
	double big_a[30], big_b[31];
	for (int i = 0; i < 30; i++)
		big_a[i] = (double)(i / 2);
	for (int i = 0; i < 31; i++)
		big_b[i] = (double)(i / 2) + 5;
	CHECK_INT(fc_mann_whitney(big_a, 30, big_b, 31, &m), FC_OK);
	CHECK(!m.exact);
	CHECK(m.ties);
	CHECK_DBL(m.u, 200, 0);
	CHECK_DBL(m.p, 0.0001327484270087987, 1e-9);
}

/* The permutation p by brute force over all subsets (N <= 16). */
static double brute_p(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double all[16];
	double rank2[16];
	for (size_t i = 0; i < na; i++)
		all[i] = a[i];
	for (size_t i = 0; i < nb; i++)
		all[na + i] = b[i];
	/* Doubled mid-rank: 2 * (#smaller) + (#equal) + 1. */
	for (size_t i = 0; i < n; i++) {
		int less = 0, eq = 0;
		for (size_t j = 0; j < n; j++) {
			less += all[j] < all[i];
			eq += all[j] == all[i];
		}
		rank2[i] = 2.0 * less + eq + 1;
	}
	double w = 0;
	for (size_t i = 0; i < na; i++)
		w += rank2[i];
	double mean = (double)na * (double)(n + 1);
	double dev = fabs(w - mean);
	unsigned long ext = 0, total = 0;
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		if ((size_t)__builtin_popcount(mask) != na)
			continue;
		double s = 0;
		for (size_t i = 0; i < n; i++) {
			if (mask & (1u << i))
				s += rank2[i];
		}
		total++;
		if (fabs(s - mean) >= dev - 1e-9)
			ext++;
	}
	return (double)ext / (double)total;
}

static uint32_t lcg_state = 12345;
static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1103515245u + 12345u;
	return lcg_state >> 16;
}

static void test_mw_brute(void)
{
	int mismatches = 0;
	for (int iter = 0; iter < 300; iter++) {
		size_t na = 1 + lcg() % 7, nb = 1 + lcg() % 7;
		/* Few distinct values so that ties are common. */
		unsigned range = 2 + lcg() % 12;
		double a[8], b[8];
		for (size_t i = 0; i < na; i++)
			a[i] = (double)(lcg() % range);
		for (size_t i = 0; i < nb; i++)
			b[i] = (double)(lcg() % range) + (double)(lcg() % 3);
		struct fc_mann_whitney m;
		CHECK_INT(fc_mann_whitney(a, na, b, nb, &m), FC_OK);
		double want = brute_p(a, na, b, nb);
		if (fabs(m.p - want) > 1e-12) {
			mismatches++;
			fprintf(stderr, "iter %d: p %.17g, brute force %.17g\n", iter, m.p, want);
		}
		CHECK(m.exact);
	}
	CHECK_INT(mismatches, 0);
}

static void check_window(const double *v, size_t n, bool reached, double range, double slope)
{
	struct fc_steady st;
	CHECK_INT(fc_steady_window(v, n, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(st.reached == reached);
	CHECK_DBL(st.range, range, 1e-12);
	CHECK_DBL(st.slope, slope, 1e-12);
}

/*
 * The PTS rule by hand: for rounds at x = 0..4 the least-squares slope is
 * sum (x - 2)(y - mean) / 10, and the excursion across the window is
 * |slope| x 4 over the average.
 */
static void test_steady_window(void)
{
	const double flat[] = {100, 100, 100, 100, 100};
	check_window(flat, 5, true, 0, 0);
	/* range exactly 20 %: within; sxy = -15, slope -1.5, 6 % */
	const double wobble[] = {100, 110, 90, 105, 95};
	check_window(wobble, 5, true, 0.20, 0.06);
	/* a steady rise: range 8 %, excursion 8 % */
	const double rise[] = {96, 98, 100, 102, 104};
	check_window(rise, 5, true, 0.08, 0.08);
	/* range 12 % is within, the excursion 12 % is not */
	const double steeper[] = {94, 97, 100, 103, 106};
	check_window(steeper, 5, false, 0.12, 0.12);
	/* a ramp: 40 % range, 40 % across the window */
	const double ramp[] = {80, 90, 100, 110, 120};
	check_window(ramp, 5, false, 0.40, 0.40);

	struct fc_steady st;
	const double hole[] = {100, NAN, 100, 100, 100};
	CHECK_INT(fc_steady_window(hole, 5, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(!st.reached);
	CHECK(isnan(st.range) && isnan(st.slope) && isnan(st.average));
	const double zero[] = {0, 0, 0, 0, 0};
	CHECK_INT(fc_steady_window(zero, 5, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(!st.reached);
	CHECK_INT(fc_steady_window(flat, 1, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_E_INVAL);
	CHECK_INT(fc_steady_window(flat, 5, 0, FC_STEADY_SLOPE, &st), FC_E_INVAL);
	CHECK_INT(fc_steady_window(flat, 5, FC_STEADY_RANGE, NAN, &st), FC_E_INVAL);
}

static void test_steady_first(void)
{
	/* windows [0..4] (range 52/86) and [1..5] (22/96.2) are not steady;
	 * [2..6] is: range 4 %, sxy = -3, excursion 1.2 % */
	const double warmup[] = {50, 80, 100, 102, 98, 101, 99, 100};
	struct fc_steady st;
	CHECK_INT(fc_steady_first(warmup, 8, 5, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(st.reached);
	CHECK_INT(st.first, 2);
	CHECK_INT(st.last, 6);
	CHECK_DBL(st.average, 100, 1e-12);
	CHECK_DBL(st.range, 0.04, 1e-12);
	CHECK_DBL(st.slope, 0.012, 1e-12);

	/* never steady: the last window is described */
	const double ramp[] = {80, 90, 100, 110, 120, 130};
	CHECK_INT(fc_steady_first(ramp, 6, 5, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(!st.reached);
	CHECK_INT(st.first, 1);
	CHECK_INT(st.last, 5);
	CHECK_DBL(st.average, 110, 1e-12);

	/* fewer rounds than the window: not reached, nothing to say */
	CHECK_INT(fc_steady_first(ramp, 3, 5, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(!st.reached);
	CHECK(isnan(st.range));
	CHECK_INT(fc_steady_first(ramp, 6, 1, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_E_INVAL);

	/* a window of 3 finds the first steady triple */
	const double w3[] = {10, 50, 100, 101, 99};
	CHECK_INT(fc_steady_first(w3, 5, 3, FC_STEADY_RANGE, FC_STEADY_SLOPE, &st), FC_OK);
	CHECK(st.reached);
	CHECK_INT(st.first, 2);
}

int main(void)
{
	test_quantile();
	test_summarize();
	test_summarize_huge();
	test_mw_known();
	test_mw_brute();
	test_steady_window();
	test_steady_first();
	return check_exit();
}
