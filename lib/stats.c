/* SPDX-License-Identifier: MIT */
/*
 * Statistics helpers: order statistics of a sample, the two-sided
 * Mann-Whitney U test, exact for the small samples fio campaigns produce
 * (a handful of rounds per state), and the steady-state rule of SNIA's
 * PTS over a window of rounds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Above this many values in both samples together the exact distribution
 * gives way to the normal approximation.  Up to 50 the permutation counts
 * (at most C(50,25) ~ 1.3e14) stay exact integers in a double. */
#define MW_EXACT_MAX_N 50

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double fc_quantile_sorted(const double *sorted, size_t n, double q)
{
	if (!sorted || n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	if (lo >= n - 1)
		return sorted[n - 1];
	double frac = h - (double)lo;
	double a = sorted[lo], b = sorted[lo + 1];
	if (frac == 0)
		return a; /* not a + 0 * (b - a), which is NaN for an infinite b */
	if (isinf(b - a) && isfinite(a) && isfinite(b))
		return a * (1 - frac) + b * frac; /* the difference overflowed */
	return a + frac * (b - a);
}

/* Copies the finite values of `v` into a new array; *out NULL when none. */
static int finite_copy(const double *v, size_t n, double **out, size_t *n_out)
{
	*out = NULL;
	*n_out = 0;
	if (n == 0 || !v)
		return FC_OK;
	double *c = malloc(n * sizeof(*c));
	if (!c)
		return FC_E_NOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(v[i]))
			c[m++] = v[i];
	}
	if (m == 0) {
		free(c);
		return FC_OK;
	}
	*out = c;
	*n_out = m;
	return FC_OK;
}

int fc_summarize(const double *values, size_t n, struct fc_summary *out)
{
	out->n = 0;
	out->min = out->max = out->mean = out->median = NAN;
	out->q1 = out->q3 = out->iqr = out->mad = NAN;

	_cleanup_free_ double *x = NULL;
	size_t m;
	int rc = finite_copy(values, n, &x, &m);
	if (rc < 0)
		return rc;
	if (m == 0)
		return FC_OK;
	qsort(x, m, sizeof(*x), cmp_double);

	/* Kahan-free but ordered summation is plenty for a few thousand values. */
	double sum = 0;
	for (size_t i = 0; i < m; i++)
		sum += x[i];
	out->n = m;
	out->min = x[0];
	out->max = x[m - 1];
	out->mean = sum / (double)m;
	if (!isfinite(out->mean)) {
		/* the sum overflowed; the mean of finite values does not */
		out->mean = 0;
		for (size_t i = 0; i < m; i++)
			out->mean += x[i] / (double)m;
	}
	out->median = fc_quantile_sorted(x, m, 0.5);
	out->q1 = fc_quantile_sorted(x, m, 0.25);
	out->q3 = fc_quantile_sorted(x, m, 0.75);
	out->iqr = out->q3 - out->q1;

	for (size_t i = 0; i < m; i++)
		x[i] = fabs(x[i] - out->median);
	qsort(x, m, sizeof(*x), cmp_double);
	out->mad = fc_quantile_sorted(x, m, 0.5);
	return FC_OK;
}

struct mw_item {
	double value;
	int group; /* 0 = first sample, 1 = second */
};

static int cmp_item(const void *a, const void *b)
{
	return cmp_double(&((const struct mw_item *)a)->value, &((const struct mw_item *)b)->value);
}

/*
 * Exact two-sided p from the permutation distribution of the doubled rank
 * sum of the smaller sample.  ranks2[] are the doubled mid-ranks (integers)
 * of all N values; the sample of size k has doubled rank sum w.  p is the
 * share of all C(N, k) ways to pick k of the N ranks whose sum lies at least
 * as far from its mean as w does.
 */
static int mw_exact_p(const long *ranks2, size_t n_all, size_t k, long w, double *p)
{
	long total2 = 0;
	for (size_t i = 0; i < n_all; i++)
		total2 += ranks2[i];
	long max_sum = total2; /* every subset sum is below the total */
	size_t width = (size_t)max_sum + 1;
	/* counts[j * width + s]: subsets of j items among those seen so far with sum s */
	double *counts = calloc((k + 1) * width, sizeof(*counts));
	if (!counts)
		return FC_E_NOMEM;
	counts[0] = 1;
	long reach = 0; /* largest sum reachable so far */
	for (size_t i = 0; i < n_all; i++) {
		long r = ranks2[i];
		size_t jmax = i + 1 < k ? i + 1 : k;
		/* Downwards in j so that each item is used at most once. */
		for (size_t j = jmax; j >= 1; j--) {
			double *dst = counts + j * width;
			const double *src = counts + (j - 1) * width;
			for (long s = reach; s >= 0; s--) {
				if (src[s] != 0)
					dst[s + r] += src[s];
			}
		}
		reach += r;
		if (reach > max_sum)
			reach = max_sum;
	}

	/* Mean of the doubled rank sum: k * (N + 1). */
	long mean2 = (long)k * (long)(n_all + 1);
	long dev = labs(w - mean2);
	double extreme = 0, all = 0;
	const double *row = counts + k * width;
	for (long s = 0; s <= max_sum; s++) {
		if (row[s] == 0)
			continue;
		all += row[s];
		if (labs(s - mean2) >= dev)
			extreme += row[s];
	}
	free(counts);
	*p = all > 0 ? extreme / all : NAN;
	if (*p > 1)
		*p = 1;
	return FC_OK;
}

int fc_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct fc_mann_whitney *out)
{
	out->u = NAN;
	out->p = NAN;
	out->exact = false;
	out->ties = false;

	_cleanup_free_ double *xa = NULL;
	_cleanup_free_ double *xb = NULL;
	size_t ma, mb;
	int rc = finite_copy(a, na, &xa, &ma);
	if (rc < 0)
		return rc;
	rc = finite_copy(b, nb, &xb, &mb);
	if (rc < 0)
		return rc;
	if (ma == 0 || mb == 0)
		return FC_E_INVAL;

	size_t n_all = ma + mb;
	_cleanup_free_ struct mw_item *items = malloc(n_all * sizeof(*items));
	_cleanup_free_ long *ranks2 = malloc(n_all * sizeof(*ranks2));
	if (!items || !ranks2)
		return FC_E_NOMEM;
	for (size_t i = 0; i < ma; i++)
		items[i] = (struct mw_item){xa[i], 0};
	for (size_t i = 0; i < mb; i++)
		items[ma + i] = (struct mw_item){xb[i], 1};
	qsort(items, n_all, sizeof(*items), cmp_item);

	/*
	 * Doubled mid-ranks: a run of t equal values at 1-based positions
	 * p..p+t-1 shares the rank p + (t-1)/2, i.e. 2p + t - 1 doubled.
	 */
	long w2[2] = {0, 0};
	double tie_sum = 0; /* sum of t^3 - t over tie groups */
	for (size_t i = 0; i < n_all;) {
		size_t j = i + 1;
		while (j < n_all && items[j].value == items[i].value)
			j++;
		size_t t = j - i;
		long r2 = 2 * (long)(i + 1) + (long)t - 1;
		if (t > 1) {
			out->ties = true;
			tie_sum += (double)t * t * t - (double)t;
		}
		for (size_t k = i; k < j; k++) {
			ranks2[k] = r2;
			w2[items[k].group] += r2;
		}
		i = j;
	}

	double dma = (double)ma, dmb = (double)mb, dn = (double)n_all;
	out->u = (double)w2[0] / 2.0 - dma * (dma + 1) / 2.0;

	if (n_all <= MW_EXACT_MAX_N) {
		/* The smaller sample keeps the table small; |W - E| is the same for both. */
		size_t k = ma <= mb ? ma : mb;
		long w = ma <= mb ? w2[0] : w2[1];
		rc = mw_exact_p(ranks2, n_all, k, w, &out->p);
		if (rc < 0)
			return rc;
		out->exact = true;
		return FC_OK;
	}

	/* Normal approximation with tie correction and continuity correction. */
	double mu = dma * dmb / 2.0;
	double var = dma * dmb / 12.0 * ((dn + 1) - tie_sum / (dn * (dn - 1)));
	if (!(var > 0)) {
		out->p = 1.0;
		return FC_OK;
	}
	double d = out->u - mu;
	double cc = d > 0 ? 0.5 : (d < 0 ? -0.5 : 0);
	double z = (d - cc) / sqrt(var);
	out->p = erfc(fabs(z) / sqrt(2.0));
	if (out->p > 1)
		out->p = 1;
	return FC_OK;
}

static bool steady_limit_ok(double limit)
{
	return isfinite(limit) && limit > 0;
}

static void steady_unknown(struct fc_steady *out, size_t first, size_t last)
{
	*out = (struct fc_steady){.reached = false,
				  .first = first,
				  .last = last,
				  .average = NAN,
				  .range = NAN,
				  .slope = NAN};
}

int fc_steady_window(const double *values, size_t n, double range_limit, double slope_limit,
		     struct fc_steady *out)
{
	steady_unknown(out, 0, n ? n - 1 : 0);
	if (n < 2 || !steady_limit_ok(range_limit) || !steady_limit_ok(slope_limit))
		return FC_E_INVAL;

	double sum = 0, min = INFINITY, max = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(values[i]))
			return FC_OK;
		sum += values[i];
		min = fmin(min, values[i]);
		max = fmax(max, values[i]);
	}
	double dn = (double)n;
	double avg = sum / dn;
	if (!(avg > 0) || !isfinite(avg))
		return FC_OK;

	/* Rounds at x = 0..n-1: sum (x - mean x)^2 is n (n^2 - 1) / 12. */
	double xmean = (dn - 1) / 2;
	double sxy = 0;
	for (size_t i = 0; i < n; i++)
		sxy += ((double)i - xmean) * (values[i] - avg);
	double slope = sxy / (dn * (dn * dn - 1) / 12);

	out->average = avg;
	out->range = (max - min) / avg;
	out->slope = fabs(slope) * (dn - 1) / avg;
	out->reached = out->range <= range_limit && out->slope <= slope_limit;
	return FC_OK;
}

int fc_steady_first(const double *values, size_t n, size_t window, double range_limit,
		    double slope_limit, struct fc_steady *out)
{
	steady_unknown(out, 0, 0);
	if (window < 2 || !steady_limit_ok(range_limit) || !steady_limit_ok(slope_limit))
		return FC_E_INVAL;
	if (n < window) {
		steady_unknown(out, 0, n ? n - 1 : 0);
		return FC_OK;
	}
	for (size_t first = 0; first + window <= n; first++) {
		int rc = fc_steady_window(values + first, window, range_limit, slope_limit, out);
		if (rc < 0)
			return rc;
		out->first = first;
		out->last = first + window - 1;
		if (out->reached)
			return FC_OK;
	}
	return FC_OK;
}
