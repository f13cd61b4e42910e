/* SPDX-License-Identifier: MIT */
/*
 * The series: the baseline bands of the per-second logs, each round's
 * per-second statistics against them, and one series per test x job x
 * direction x metric with a cell per column (a state of a variant): its
 * summary, round 1 against rounds 2..n, and both comparisons (against the
 * baseline state of its variant, against the baseline variant in its
 * state).
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

void an_series_stats(const struct an_sec_series *s, const struct an_band *band, double *first,
		     double *min, double *max, double *last, double *recovery)
{
	*first = *min = *max = *last = *recovery = NAN;
	for (size_t i = 0; i < s->n; i++) {
		double v = s->values[i];
		if (!isfinite(v))
			continue;
		if (isnan(*first))
			*first = v;
		if (isnan(*min) || v < *min)
			*min = v;
		if (isnan(*max) || v > *max)
			*max = v;
		*last = v;
		if (band && band->n > 0 && isnan(*recovery) && v >= band->low)
			*recovery = (double)(s->start_ms + i * s->interval_ms) / 1000.0;
	}
}

/* ---- per-second bands ----------------------------------------------------- */

static struct an_band *band_get(struct an_analysis *a, size_t variant, size_t test, size_t job,
				enum fc_ddir dir, enum fc_log_type type)
{
	const struct an_band *b = an_find_band(a, variant, test, job, dir, type);
	if (b)
		return (struct an_band *)b;
	struct an_band *nb = CM_PUSH(a->bands, a->n_bands, a->cap_bands);
	nb->variant = variant;
	nb->test = test;
	nb->job_index = job;
	nb->dir = dir;
	nb->log_type = type;
	nb->low = nb->high = NAN;
	return nb;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/*
 * The band of a (variant, test, job, direction) is p10..p90 of every
 * per-second value in the logs of the variant's baseline state: the range
 * the baseline itself spends 80 % of its seconds in.
 */
static void compute_bands(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->state != a->baseline)
			continue;
		for (size_t j = 0; j < r->n_jobs; j++) {
			for (int d = 0; d < 3; d++) {
				const struct an_dirvals *dv = &r->jobs[j].dir[d];
				if (dv->sec.n)
					band_get(a, r->variant, r->test, j, (enum fc_ddir)d,
						 dv->log_type);
			}
		}
	}
	for (size_t b = 0; b < a->n_bands; b++) {
		struct an_band *band = &a->bands[b];
		double *v = NULL;
		size_t n = 0, cap = 0;
		for (size_t i = 0; i < a->n_runs; i++) {
			const struct an_run *r = &a->runs[i];
			if (!r->accepted || r->state != a->baseline ||
			    r->variant != band->variant || r->test != band->test ||
			    band->job_index >= r->n_jobs)
				continue;
			const struct an_dirvals *dv = &r->jobs[band->job_index].dir[band->dir];
			if (!dv->sec.n || dv->log_type != band->log_type)
				continue;
			for (size_t p = 0; p < dv->sec.n; p++) {
				if (!isfinite(dv->sec.values[p]))
					continue;
				double *slot = CM_PUSH(v, n, cap);
				*slot = dv->sec.values[p];
			}
		}
		band->n = n;
		if (n) {
			qsort(v, n, sizeof(*v), cmp_double);
			band->low = fc_quantile_sorted(v, n, 0.10);
			band->high = fc_quantile_sorted(v, n, 0.90);
		}
		free(v);
	}
}

static void per_second_metrics(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		for (size_t j = 0; j < r->n_jobs; j++) {
			for (int d = 0; d < 3; d++) {
				struct an_dirvals *dv = &r->jobs[j].dir[d];
				if (!dv->sec.n)
					continue;
				const struct an_band *band = an_find_band(
				    a, r->variant, r->test, j, (enum fc_ddir)d, dv->log_type);
				struct an_band none = {.log_type = dv->log_type};
				an_series_stats(&dv->sec, band ? band : &none,
						&dv->v[AN_M_SEC_FIRST], &dv->v[AN_M_SEC_MIN],
						&dv->v[AN_M_SEC_MAX], &dv->v[AN_M_SEC_LAST],
						&dv->v[AN_M_RECOVERY]);
			}
		}
	}
}

/* ---- series ---------------------------------------------------------------- */

/*
 * The recovery of a round that never got back into the band is NaN.  That
 * round took longer than every round that did, so it is ranked after them,
 * not left out (which made a state whose rounds mostly never recovered look
 * quick): NEVER stands in for it, and a statistic that falls on it is +inf,
 * written as an empty field or null.
 */
#define NEVER DBL_MAX

static double *with_never(const double *v, size_t n)
{
	double *x = cm_calloc(n, sizeof(*x));
	for (size_t i = 0; i < n; i++)
		x[i] = isnan(v[i]) ? NEVER : v[i];
	return x;
}

static void summarize(const double *v, size_t n, bool never_last, struct fc_summary *s)
{
	if (!never_last) {
		fc_summarize(v, n, s);
		return;
	}
	double *x = with_never(v, n);
	fc_summarize(x, n, s);
	free(x);
	double top = -INFINITY;
	bool never = false;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			never = true;
		else if (v[i] > top)
			top = v[i];
	}
	if (!never)
		return;
	/* Above every round that got back: on or between NEVERs. */
	double *const order_stats[] = {&s->min, &s->max, &s->median, &s->q1, &s->q3};
	for (size_t k = 0; k < sizeof(order_stats) / sizeof(order_stats[0]); k++) {
		if (*order_stats[k] > top)
			*order_stats[k] = INFINITY;
	}
	s->mean = INFINITY;
	s->iqr = s->q3 - s->q1;
	s->mad = NAN;
}

static double *never_copy(const double *v, size_t n, bool never_last)
{
	return never_last ? with_never(v, n) : NULL;
}

/* Mann-Whitney of c against base; only the ranks count, so NEVER ranks
 * last without distorting p. */
static bool mann_whitney(const struct an_cell *c, const struct an_cell *base, bool never_last,
			 struct fc_mann_whitney *mw)
{
	double *cv = never_copy(c->values, c->n, never_last);
	double *bv = never_copy(base->values, base->n, never_last);
	bool ok =
	    fc_mann_whitney(cv ? cv : c->values, c->n, bv ? bv : base->values, base->n, mw) == 0;
	free(cv);
	free(bv);
	return ok;
}

/* A cell's values without its disturbed rounds, NEVER for a NaN with
 * never_last; *n their number.  Caller frees. */
static double *undisturbed(const struct an_cell *c, bool never_last, size_t *n)
{
	double *v = cm_calloc(c->n ? c->n : 1, sizeof(*v));
	*n = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (!c->disturbed[i])
			v[(*n)++] = never_last && isnan(c->values[i]) ? NEVER : c->values[i];
	}
	return v;
}

/* The median of values that may hold NEVER: +inf when it falls on or
 * beside one (above every round that got back). */
static double never_median(const double *v, size_t n)
{
	double m = an_median(v, n), top = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (v[i] != NEVER && v[i] > top)
			top = v[i];
	}
	return m > top ? INFINITY : m;
}

/* The change against the baseline without the disturbed rounds of either
 * cell, when either has some. */
static void clean_stats(struct an_cell *c, const struct an_cell *base, bool never_last)
{
	if (!c->disturbed_n && !base->disturbed_n)
		return;
	size_t nc, nb;
	double *cv = undisturbed(c, never_last, &nc);
	double *bv = undisturbed(base, never_last, &nb);
	if (nc && nb) {
		c->clean_n = nc;
		c->clean_median = never_median(cv, nc);
		c->clean_change_pct = an_pct_change(c->clean_median, never_median(bv, nb));
		c->clean_have_mw = fc_mann_whitney(cv, nc, bv, nb, &c->clean_mw) == 0;
	}
	free(cv);
	free(bv);
}

/* The round split and both comparisons of a cell whose summary is known:
 * against the baseline state of its variant (`base`) and against the
 * baseline variant in its state (`vbase`); either may be NULL (none) or
 * the cell itself. */
static void cell_stats(struct an_cell *c, const struct an_cell *base, const struct an_cell *vbase,
		       bool never_last)
{
	c->change_pct = c->round1 = c->round1_change_pct = NAN;
	c->round1_n = 0;
	c->rest_median = c->rest_change_pct = c->v_change_pct = NAN;
	c->outside = c->v_outside = c->have_mw = c->v_have_mw = false;
	c->clean_median = c->clean_change_pct = NAN;
	c->clean_n = 0;
	c->clean_have_mw = false;
	/* The baseline's own rounds compare to its own median. */
	double ref = base ? base->sum.median : NAN;
	if (base == c)
		base = NULL;
	if (vbase == c)
		vbase = NULL;
	double bmed = base ? base->sum.median : NAN;
	if (base && base->sum.n > 0 && c->sum.n > 0) {
		c->change_pct = an_pct_change(c->sum.median, bmed);
		/* a range needs two values */
		c->outside = base->sum.n > 1 &&
			     (c->sum.median < base->sum.min || c->sum.median > base->sum.max);
		c->have_mw = mann_whitney(c, base, never_last, &c->mw);
		clean_stats(c, base, never_last);
	}
	if (vbase && vbase->sum.n > 0 && c->sum.n > 0) {
		c->v_change_pct = an_pct_change(c->sum.median, vbase->sum.median);
		c->v_outside = vbase->sum.n > 1 &&
			       (c->sum.median < vbase->sum.min || c->sum.median > vbase->sum.max);
		c->v_have_mw = mann_whitney(c, vbase, never_last, &c->v_mw);
	}
	/* round 1 of each repetition (one without repeat) against the rest */
	double *rest = cm_calloc(c->n ? c->n : 1, sizeof(*rest));
	double *firsts = cm_calloc(c->n ? c->n : 1, sizeof(*firsts));
	size_t nr = 0, nf = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->first[i])
			firsts[nf++] = c->values[i];
		else
			rest[nr++] = c->values[i];
	}
	struct fc_summary rs;
	if (nf == 1) {
		c->round1 = firsts[0];
		c->round1_n = 1;
	} else if (nf > 1) {
		summarize(firsts, nf, never_last, &rs);
		c->round1 = rs.median;
		c->round1_n = rs.n;
	}
	free(firsts);
	summarize(rest, nr, never_last, &rs);
	c->rest_n = rs.n;
	c->rest_median = rs.median;
	c->round1_change_pct = an_pct_change(c->round1, ref);
	c->rest_change_pct = an_pct_change(c->rest_median, ref);
	free(rest);
}

struct run_ref {
	size_t run;
	size_t col; /* column of its state and variant */
	int round;
};

static int cmp_run_ref(const void *x, const void *y)
{
	const struct run_ref *a = x, *b = y;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return (a->round > b->round) - (a->round < b->round);
}

/* The value of metric m for job j, direction d of a run; NULL when the
 * run has none (per-second metrics need a log of `type`). */
static const struct an_dirvals *run_dir(const struct an_run *r, size_t j, enum fc_ddir d,
					enum an_metric m, enum fc_log_type type)
{
	if (j >= r->n_jobs)
		return NULL;
	const struct an_dirvals *dv = &r->jobs[j].dir[d];
	if (!dv->present)
		return NULL;
	if (m >= AN_M_FIRST_LOG && (!dv->sec.n || dv->log_type != type))
		return NULL;
	return dv;
}

/* Whether metric m of a bonnie++ test is "+++++": its rate, and the CPU
 * bonnie++ then does not print. */
static bool too_fast(const struct an_run *r, const struct an_dirvals *dv, enum an_metric m)
{
	if (!dv->too_fast || !isnan(dv->v[m]))
		return false;
	enum fc_ddir d;
	enum an_metric rate;
	an_bonnie_test_place(r->bonnie_test, &d, &rate);
	return m == rate || m == AN_M_CPU;
}

/* One series over the runs of a test (refs, in column order). */
static void add_series(struct an_analysis *a, const struct run_ref *refs, size_t n, size_t t,
		       size_t j, enum fc_ddir d, enum an_metric m, enum fc_log_type type)
{
	const char *job_name = NULL, *client = NULL;
	bool client_all = false;
	bool any_value = false, any_too_fast = false;
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (!dv)
			continue;
		if (!job_name) {
			job_name = r->jobs[j].name;
			client = r->jobs[j].client;
			client_all = r->jobs[j].all_clients;
		}
		any_value |= !isnan(dv->v[m]);
		any_too_fast |= too_fast(r, dv, m);
	}
	/* Recovery may be NaN in every run (never back in the band) and still
	 * says something; other metrics without any value are left out (but
	 * for a rate bonnie++ found too fast to measure every time). */
	if (!job_name || (!any_value && !any_too_fast && m != AN_M_RECOVERY))
		return;

	struct an_series *s = CM_PUSH(a->series, a->n_series, a->cap_series);
	s->test = t;
	s->job_index = j;
	s->job_name = cm_strdup(job_name);
	s->client = client ? cm_strdup(client) : NULL;
	s->client_all = client_all;
	s->dir = d;
	s->metric = m;
	s->log_type = m >= AN_M_FIRST_LOG ? type : FC_LOG_UNKNOWN;
	s->cells = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*s->cells));
	/* Count, allocate once per cell, fill.  Too fast is no value. */
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (dv && too_fast(r, dv, m))
			s->cells[refs[q].col].too_fast++;
		else if (dv)
			s->cells[refs[q].col].n++;
	}
	for (size_t p = 0; p < a->n_cols; p++) {
		struct an_cell *c = &s->cells[p];
		c->values = cm_calloc(c->n ? c->n : 1, sizeof(*c->values));
		c->rounds = cm_calloc(c->n ? c->n : 1, sizeof(*c->rounds));
		c->first = cm_calloc(c->n ? c->n : 1, sizeof(*c->first));
		c->runs = cm_calloc(c->n ? c->n : 1, sizeof(*c->runs));
		c->disturbed = cm_calloc(c->n ? c->n : 1, sizeof(*c->disturbed));
		c->too_fast_rounds = c->too_fast ? cm_calloc(c->too_fast, sizeof(int)) : NULL;
		c->too_fast_runs = c->too_fast ? cm_calloc(c->too_fast, sizeof(size_t)) : NULL;
		c->too_fast_above = NAN;
		c->n = c->too_fast = 0;
	}
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (!dv)
			continue;
		struct an_cell *c = &s->cells[refs[q].col];
		if (too_fast(r, dv, m)) {
			c->too_fast_rounds[c->too_fast] = r->id.round;
			c->too_fast_runs[c->too_fast++] = refs[q].run;
			c->round1_too_fast |= an_run_first(r);
			/* the least bound holds for every one of them */
			double above = m == AN_M_CPU ? NAN : dv->too_fast_above;
			if (!isnan(above) &&
			    (isnan(c->too_fast_above) || above < c->too_fast_above))
				c->too_fast_above = above;
			continue;
		}
		c->values[c->n] = dv->v[m];
		c->rounds[c->n] = r->id.round;
		c->first[c->n] = an_run_first(r);
		c->runs[c->n] = refs[q].run;
		c->disturbed[c->n] = r->disturbed != NULL;
		c->disturbed_n += r->disturbed != NULL;
		c->n++;
	}
	/* Summaries first: the comparisons read the baselines' summaries. */
	for (size_t p = 0; p < a->n_cols; p++) {
		struct an_cell *c = &s->cells[p];
		const struct an_band *band =
		    m == AN_M_RECOVERY ? an_find_band(a, a->cols[p].variant, t, j, d, type) : NULL;
		summarize(c->values, c->n, band && band->n > 0, &c->sum);
	}
	for (size_t p = 0; p < a->n_cols; p++) {
		const struct an_col *col = &a->cols[p];
		/* Without a band every recovery is NaN for want of one: no values. */
		const struct an_band *band =
		    m == AN_M_RECOVERY ? an_find_band(a, col->variant, t, j, d, type) : NULL;
		size_t bs = an_col_find(a, a->baseline, col->variant);
		size_t bv = an_col_find(a, col->state, a->baseline_variant);
		cell_stats(&s->cells[p], bs == SIZE_MAX ? NULL : &s->cells[bs],
			   bv == SIZE_MAX ? NULL : &s->cells[bv], band && band->n > 0);
	}
}

static void build_series(struct an_analysis *a)
{
	struct run_ref *refs = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*refs));
	size_t **by_test = cm_calloc(a->n_tests ? a->n_tests : 1, sizeof(*by_test));
	size_t *n_by_test = cm_calloc(a->n_tests ? a->n_tests : 1, sizeof(*n_by_test));
	for (size_t t = 0; t < a->n_tests; t++)
		by_test[t] =
		    cm_calloc(a->tests[t].n_runs ? a->tests[t].n_runs : 1, sizeof(**by_test));
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->accepted)
			by_test[r->test][n_by_test[r->test]++] = i;
	}
	for (size_t t = 0; t < a->n_tests; t++) {
		size_t n = 0, max_jobs = 0;
		for (size_t k = 0; k < n_by_test[t]; k++) {
			const struct an_run *r = &a->runs[by_test[t][k]];
			size_t col = an_col_find(a, r->state, r->variant);
			if (col == SIZE_MAX)
				continue;
			refs[n++] = (struct run_ref){by_test[t][k], col, r->id.round};
			if (r->n_jobs > max_jobs)
				max_jobs = r->n_jobs;
		}
		free(by_test[t]);
		qsort(refs, n, sizeof(*refs), cmp_run_ref);
		a->tests[t].series_start = a->n_series;
		for (size_t j = 0; j < max_jobs; j++) {
			for (size_t k = 0; k < AN_N_REPORT_DIRS; k++) {
				for (int m = 0; m < AN_M_FIRST_LOG; m++)
					add_series(a, refs, n, t, j, an_report_dirs[k],
						   (enum an_metric)m, FC_LOG_UNKNOWN);
				/* Per-second metrics come from iops logs, else bw logs. */
				for (int m = AN_M_FIRST_LOG; m < AN_M_COUNT; m++) {
					add_series(a, refs, n, t, j, an_report_dirs[k],
						   (enum an_metric)m, FC_LOG_IOPS);
					add_series(a, refs, n, t, j, an_report_dirs[k],
						   (enum an_metric)m, FC_LOG_BW);
				}
			}
		}
		a->tests[t].series_end = a->n_series;
	}
	free(by_test);
	free(n_by_test);
	free(refs);
}

void an_series_build(struct an_analysis *a)
{
	compute_bands(a);
	per_second_metrics(a);
	build_series(a);
}
