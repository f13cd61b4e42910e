/* SPDX-License-Identifier: MIT */
/*
 * From accepted runs to statistics: states and tests in order, the
 * baseline, the baseline bands of the per-second logs, and one series per
 * test x job x direction x metric with a cell per state.
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

const enum fc_ddir an_report_dirs[AN_N_REPORT_DIRS] = {FC_DDIR_READ, FC_DDIR_WRITE, FC_DDIR_TRIM,
						       FC_DDIR_MIXED};

static const struct {
	const char *name, *label;
} metric_names[AN_M_COUNT] = {
    [AN_M_IOPS] = {"iops", "IOPS"},
    [AN_M_BW] = {"bw", "bw MiB/s"},
    [AN_M_CLAT_MEAN] = {"clat_mean", "clat mean us"},
    [AN_M_LAT_MEAN] = {"lat_mean", "lat mean us"},
    [AN_M_CLAT_P50] = {"clat_p50", "clat p50 us"},
    [AN_M_CLAT_P99] = {"clat_p99", "clat p99 us"},
    [AN_M_CLAT_P999] = {"clat_p99.9", "clat p99.9 us"},
    [AN_M_LAT_P50] = {"lat_p50", "lat p50 us"},
    [AN_M_LAT_P99] = {"lat_p99", "lat p99 us"},
    [AN_M_LAT_P999] = {"lat_p99.9", "lat p99.9 us"},
    [AN_M_SEC_FIRST] = {"sec_first", "1st second"},
    [AN_M_SEC_MIN] = {"sec_min", "slowest second"},
    [AN_M_SEC_MAX] = {"sec_max", "fastest second"},
    [AN_M_SEC_LAST] = {"sec_last", "last second"},
    [AN_M_RECOVERY] = {"recovery_s", "recovery s"},
};

const char *an_metric_name(enum an_metric m)
{
	return (unsigned)m < AN_M_COUNT ? metric_names[m].name : "?";
}

const char *an_metric_label(enum an_metric m)
{
	return (unsigned)m < AN_M_COUNT ? metric_names[m].label : "?";
}

const char *an_metric_unit(enum an_metric m, enum fc_log_type log_type)
{
	switch (m) {
	case AN_M_IOPS:
		return "IO/s";
	case AN_M_BW:
		return "MiB/s";
	case AN_M_SEC_FIRST:
	case AN_M_SEC_MIN:
	case AN_M_SEC_MAX:
	case AN_M_SEC_LAST:
		return log_type == FC_LOG_BW ? "MiB/s" : "IO/s";
	case AN_M_RECOVERY:
		return "s";
	default:
		return "us";
	}
}

int an_metric_parse(const char *name)
{
	for (int m = 0; m < AN_M_COUNT; m++) {
		if (strcmp(metric_names[m].name, name) == 0)
			return m;
	}
	return -1;
}

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

const struct an_band *an_find_band(const struct an_analysis *a, size_t test, size_t job,
				   enum fc_ddir dir, enum fc_log_type type)
{
	for (size_t i = 0; i < a->n_bands; i++) {
		const struct an_band *b = &a->bands[i];
		if (b->test == test && b->job_index == job && b->dir == dir && b->log_type == type)
			return b;
	}
	return NULL;
}

/* ---- states, tests, rounds ------------------------------------------------ */

static size_t test_get(struct an_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_tests; i++) {
		if (strcmp(a->tests[i], name) == 0)
			return i;
	}
	char **slot = AN_PUSH(a->tests, a->n_tests, a->cap_tests);
	*slot = an_strdup(name);
	return a->n_tests - 1;
}

static int cmp_ts(int64_t x, int64_t y)
{
	/* Unknown (-1) after every known time. */
	if (x < 0 || y < 0)
		return (x < 0) - (y < 0);
	return (x > y) - (x < y);
}

static const struct an_analysis *sort_ctx;

static int cmp_run_identity(const void *x, const void *y)
{
	const struct an_run *r = &sort_ctx->runs[*(const size_t *)x];
	const struct an_run *s = &sort_ctx->runs[*(const size_t *)y];
	int c = strcmp(r->id.state, s->id.state);
	if (c)
		return c;
	c = strcmp(r->id.test, s->id.test);
	if (c)
		return c;
	if (r->id.round != s->id.round)
		return r->id.round < s->id.round ? -1 : 1;
	c = cmp_ts(r->timestamp_ms, s->timestamp_ms);
	if (c)
		return c;
	return strcmp(r->path, s->path);
}

/* One (state, test) group, sorted: unnumbered runs (round 0) first. */
static void number_group(struct an_analysis *a, const size_t *idx, size_t n)
{
	const struct an_run *head = &a->runs[idx[0]];
	int max_round = 0;
	for (size_t k = 0; k < n; k++) {
		if (a->runs[idx[k]].id.round > max_round)
			max_round = a->runs[idx[k]].id.round;
	}
	size_t unnumbered = 0;
	for (size_t k = 0; k < n; k++) {
		struct an_run *r = &a->runs[idx[k]];
		if (r->id.round == 0) {
			r->id.round = ++max_round;
			unnumbered++;
		}
	}
	if (unnumbered)
		an_note(a,
			"state %s, test %s: %zu run(s) without a round number in the "
			"name, numbered by fio's timestamp",
			head->id.state, head->id.test, unnumbered);
	/* Same state, round and test twice: the first (by time, then path) counts. */
	const struct an_run *kept = head;
	for (size_t k = 1; k < n; k++) {
		struct an_run *r = &a->runs[idx[k]];
		if (r->id.round != kept->id.round) {
			kept = r;
			continue;
		}
		r->accepted = false;
		an_reject(a, r->path, "state %s, round %d, test %s again; %s is used instead",
			  r->id.state, r->id.round, r->id.test, kept->path);
	}
}

static void number_rounds(struct an_analysis *a)
{
	size_t *idx = an_calloc(a->n_runs, sizeof(*idx));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		if (a->runs[i].accepted)
			idx[n++] = i;
	}
	sort_ctx = a;
	qsort(idx, n, sizeof(*idx), cmp_run_identity);
	size_t start = 0;
	for (size_t k = 1; k <= n; k++) {
		const struct an_run *h = &a->runs[idx[start]];
		if (k < n && strcmp(a->runs[idx[k]].id.state, h->id.state) == 0 &&
		    strcmp(a->runs[idx[k]].id.test, h->id.test) == 0)
			continue;
		number_group(a, idx + start, k - start);
		start = k;
	}
	free(idx);
}

static int cmp_state_time(const void *x, const void *y)
{
	const struct an_state *s = &sort_ctx->states[*(const size_t *)x];
	const struct an_state *t = &sort_ctx->states[*(const size_t *)y];
	if (s->in_manifest != t->in_manifest)
		return s->in_manifest ? -1 : 1;
	if (s->in_manifest)
		return (s->first_seen > t->first_seen) - (s->first_seen < t->first_seen);
	int c = cmp_ts(s->first_ts_ms, t->first_ts_ms);
	if (c)
		return c;
	return (s->first_seen > t->first_seen) - (s->first_seen < t->first_seen);
}

struct test_order {
	size_t test;
	int64_t first_ts;
};

static int cmp_test_order(const void *x, const void *y)
{
	const struct test_order *a = x, *b = y;
	int c = cmp_ts(a->first_ts, b->first_ts);
	if (c)
		return c;
	return (a->test > b->test) - (a->test < b->test);
}

/* Tests in the order they first ran, so a suite reads in its own order. */
static void order_tests(struct an_analysis *a)
{
	struct test_order *o = an_calloc(a->n_tests, sizeof(*o));
	for (size_t t = 0; t < a->n_tests; t++) {
		o[t].test = t;
		o[t].first_ts = -1;
	}
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->timestamp_ms < 0)
			continue;
		if (o[r->test].first_ts < 0 || r->timestamp_ms < o[r->test].first_ts)
			o[r->test].first_ts = r->timestamp_ms;
	}
	qsort(o, a->n_tests, sizeof(*o), cmp_test_order);
	char **names = an_calloc(a->n_tests, sizeof(*names));
	size_t *map = an_calloc(a->n_tests, sizeof(*map));
	for (size_t t = 0; t < a->n_tests; t++) {
		names[t] = a->tests[o[t].test];
		map[o[t].test] = t;
	}
	for (size_t i = 0; i < a->n_runs; i++)
		a->runs[i].test = map[a->runs[i].test];
	free(a->tests);
	a->tests = names;
	a->cap_tests = a->n_tests;
	free(map);
	free(o);
}

/* Appends a state to the display order unless it is there already. */
static void order_add(struct an_analysis *a, size_t state)
{
	for (size_t m = 0; m < a->n_order; m++) {
		if (a->order[m] == state)
			return;
	}
	a->order[a->n_order++] = state;
}

static int order_states(struct an_analysis *a, const struct an_options *opt)
{
	size_t *time_order = an_calloc(a->n_states, sizeof(*time_order));
	size_t n = 0;
	for (size_t i = 0; i < a->n_states; i++) {
		if (a->states[i].shown)
			time_order[n++] = i;
		else if (a->states[i].in_manifest)
			an_note(a, "state %s: no usable runs", a->states[i].name);
	}
	sort_ctx = a;
	qsort(time_order, n, sizeof(*time_order), cmp_state_time);

	a->order = an_calloc(n ? n : 1, sizeof(*a->order));
	a->n_order = 0;
	if (opt->state_order) {
		char *list = an_strdup(opt->state_order);
		char *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			size_t k;
			for (k = 0; k < n; k++) {
				if (strcmp(a->states[time_order[k]].name, tok) == 0)
					break;
			}
			if (k == n) {
				fprintf(stderr,
					"fiocamp-analyze: --state-order: no usable runs of a state "
					"called \"%s\"\n",
					tok);
				free(list);
				free(time_order);
				return -1;
			}
			order_add(a, time_order[k]);
		}
		free(list);
	}
	for (size_t k = 0; k < n; k++)
		order_add(a, time_order[k]);

	if (opt->baseline) {
		size_t k;
		for (k = 0; k < n; k++) {
			if (strcmp(a->states[time_order[k]].name, opt->baseline) == 0)
				break;
		}
		if (k == n) {
			fprintf(stderr,
				"fiocamp-analyze: --baseline: no usable runs of a state called "
				"\"%s\"\n",
				opt->baseline);
			free(time_order);
			return -1;
		}
		a->baseline = time_order[k];
	} else {
		/* The manifest's first state, else the one that ran first. */
		a->baseline = time_order[0];
		if (a->manifest && a->n_states && a->states[0].in_manifest && !a->states[0].shown)
			an_note(a,
				"the manifest's first state %s has no usable runs; baseline is %s",
				a->states[0].name, a->states[a->baseline].name);
	}
	free(time_order);
	return 0;
}

/* Index of a state in the display order; SIZE_MAX if not shown. */
static size_t display_pos(const struct an_analysis *a, size_t state)
{
	for (size_t k = 0; k < a->n_order; k++) {
		if (a->order[k] == state)
			return k;
	}
	return SIZE_MAX;
}

/* ---- per-second bands ----------------------------------------------------- */

static struct an_band *band_get(struct an_analysis *a, size_t test, size_t job, enum fc_ddir dir,
				enum fc_log_type type)
{
	const struct an_band *b = an_find_band(a, test, job, dir, type);
	if (b)
		return (struct an_band *)b;
	struct an_band *nb = AN_PUSH(a->bands, a->n_bands, a->cap_bands);
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
 * The band of a (test, job, direction) is p10..p90 of every per-second
 * value in the baseline's logs of it: the range the baseline itself spends
 * 80 % of its seconds in.
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
					band_get(a, r->test, j, (enum fc_ddir)d, dv->log_type);
			}
		}
	}
	for (size_t b = 0; b < a->n_bands; b++) {
		struct an_band *band = &a->bands[b];
		double *v = NULL;
		size_t n = 0, cap = 0;
		for (size_t i = 0; i < a->n_runs; i++) {
			const struct an_run *r = &a->runs[i];
			if (!r->accepted || r->state != a->baseline || r->test != band->test ||
			    band->job_index >= r->n_jobs)
				continue;
			const struct an_dirvals *dv = &r->jobs[band->job_index].dir[band->dir];
			if (!dv->sec.n || dv->log_type != band->log_type)
				continue;
			for (size_t p = 0; p < dv->sec.n; p++) {
				if (!isfinite(dv->sec.values[p]))
					continue;
				double *slot = AN_PUSH(v, n, cap);
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
				const struct an_band *band =
				    an_find_band(a, r->test, j, (enum fc_ddir)d, dv->log_type);
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

double an_pct_change(double v, double base)
{
	if (!isfinite(v) || !isfinite(base) || base == 0)
		return NAN;
	return (v - base) / base * 100.0;
}

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
	double *x = an_calloc(n, sizeof(*x));
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

static void cell_stats(struct an_cell *c, const struct an_cell *base, bool is_base, bool never_last)
{
	summarize(c->values, c->n, never_last, &c->sum);
	c->change_pct = NAN;
	c->round1 = NAN;
	c->round1_change_pct = NAN;
	c->rest_median = NAN;
	c->rest_change_pct = NAN;
	double bmed = base ? base->sum.median : NAN;
	if (!is_base && base && base->sum.n > 0 && c->sum.n > 0) {
		c->change_pct = an_pct_change(c->sum.median, bmed);
		c->outside = c->sum.median < base->sum.min || c->sum.median > base->sum.max;
		/* Only the ranks count, so NEVER ranks last without distorting p. */
		double *cv = never_last ? with_never(c->values, c->n) : NULL;
		double *bv = never_last ? with_never(base->values, base->n) : NULL;
		c->have_mw = fc_mann_whitney(cv ? cv : c->values, c->n, bv ? bv : base->values,
					     base->n, &c->mw) == 0;
		free(cv);
		free(bv);
	}
	double *rest = an_calloc(c->n ? c->n : 1, sizeof(*rest));
	size_t nr = 0;
	for (size_t i = 0; i < c->n; i++) {
		if (c->rounds[i] == 1)
			c->round1 = c->values[i];
		else
			rest[nr++] = c->values[i];
	}
	struct fc_summary rs;
	summarize(rest, nr, never_last, &rs);
	c->rest_n = rs.n;
	c->rest_median = rs.median;
	c->round1_change_pct = an_pct_change(c->round1, bmed);
	c->rest_change_pct = an_pct_change(c->rest_median, bmed);
	free(rest);
}

struct run_ref {
	size_t run;
	size_t pos; /* display position of its state */
	int round;
};

static int cmp_run_ref(const void *x, const void *y)
{
	const struct run_ref *a = x, *b = y;
	if (a->pos != b->pos)
		return a->pos < b->pos ? -1 : 1;
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

/* One series over the runs of a test (refs, in display order). */
static void add_series(struct an_analysis *a, const struct run_ref *refs, size_t n, size_t t,
		       size_t j, enum fc_ddir d, enum an_metric m, enum fc_log_type type)
{
	const char *job_name = NULL;
	bool any_value = false;
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (!dv)
			continue;
		if (!job_name)
			job_name = r->jobs[j].name;
		any_value |= !isnan(dv->v[m]);
	}
	/* Recovery may be NaN in every run (never back in the band) and still
	 * says something; other metrics without any value are left out. */
	if (!job_name || (!any_value && m != AN_M_RECOVERY))
		return;

	struct an_series *s = AN_PUSH(a->series, a->n_series, a->cap_series);
	s->test = t;
	s->job_index = j;
	s->job_name = an_strdup(job_name);
	s->dir = d;
	s->metric = m;
	s->log_type = m >= AN_M_FIRST_LOG ? type : FC_LOG_UNKNOWN;
	s->cells = an_calloc(a->n_order, sizeof(*s->cells));
	/* Count, allocate once per cell, fill. */
	for (size_t q = 0; q < n; q++) {
		if (run_dir(&a->runs[refs[q].run], j, d, m, type))
			s->cells[refs[q].pos].n++;
	}
	for (size_t p = 0; p < a->n_order; p++) {
		struct an_cell *c = &s->cells[p];
		c->values = an_calloc(c->n, sizeof(*c->values));
		c->rounds = an_calloc(c->n, sizeof(*c->rounds));
		c->runs = an_calloc(c->n, sizeof(*c->runs));
		c->n = 0;
	}
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (!dv)
			continue;
		struct an_cell *c = &s->cells[refs[q].pos];
		c->values[c->n] = dv->v[m];
		c->rounds[c->n] = r->id.round;
		c->runs[c->n] = refs[q].run;
		c->n++;
	}
	size_t base_pos = display_pos(a, a->baseline);
	if (base_pos >= a->n_order)
		return;
	/* The baseline first: the others compare to it. */
	const struct an_cell *base = &s->cells[base_pos];
	/* Without a band every recovery is NaN for want of one: no values. */
	const struct an_band *band = m == AN_M_RECOVERY ? an_find_band(a, t, j, d, type) : NULL;
	bool never_last = band && band->n > 0;
	cell_stats(&s->cells[base_pos], base, true, never_last);
	for (size_t p = 0; p < a->n_order; p++) {
		if (p != base_pos)
			cell_stats(&s->cells[p], base, false, never_last);
	}
}

static void build_series(struct an_analysis *a)
{
	struct run_ref *refs = an_calloc(a->n_runs ? a->n_runs : 1, sizeof(*refs));
	for (size_t t = 0; t < a->n_tests; t++) {
		size_t n = 0, max_jobs = 0;
		for (size_t i = 0; i < a->n_runs; i++) {
			const struct an_run *r = &a->runs[i];
			if (!r->accepted || r->test != t)
				continue;
			refs[n++] = (struct run_ref){i, display_pos(a, r->state), r->id.round};
			if (r->n_jobs > max_jobs)
				max_jobs = r->n_jobs;
		}
		qsort(refs, n, sizeof(*refs), cmp_run_ref);
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
	}
	free(refs);
}

int an_compute(struct an_analysis *a, const struct an_options *opt)
{
	number_rounds(a);
	bool any = false;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		any = true;
		r->state = an_state_get(a, r->id.state);
		struct an_state *st = &a->states[r->state];
		st->shown = true;
		st->n_runs++;
		if (r->timestamp_ms >= 0 &&
		    (st->first_ts_ms < 0 || r->timestamp_ms < st->first_ts_ms))
			st->first_ts_ms = r->timestamp_ms;
		r->test = test_get(a, r->id.test);
		if (!a->fio_version && r->fio_version)
			a->fio_version = an_strdup(r->fio_version);
	}
	if (!any)
		return -2;
	order_tests(a);
	if (order_states(a, opt) < 0)
		return -1;
	compute_bands(a);
	per_second_metrics(a);
	build_series(a);
	return 0;
}
