/* SPDX-License-Identifier: MIT */
/*
 * From accepted runs to statistics: short and repeated runs left out,
 * rounds numbered, tests, states and variants in order, the baselines, the
 * baseline bands of the per-second logs, and one series per test x job x
 * direction x metric with a cell per column (a state of a variant).
 */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

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

/* ---- short and repeated runs ---------------------------------------------- */

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
	uint64_t *rt = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*rt));
	uint64_t *io = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*io));
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
		size_t n = n_by_test[t];
		/* a bonnie++ row has no runtime to be short of */
		if (n == 0 || a->tests[t].bonnie_test >= 0) {
			free(by_test[t]);
			continue;
		}
		for (size_t k = 0; k < n; k++) {
			rt[k] = a->runs[by_test[t][k]].runtime_ms;
			io[k] = a->runs[by_test[t][k]].io_bytes;
		}
		uint64_t med_rt = median_u64(rt, n);
		uint64_t med_io = median_u64(io, n);
		for (size_t k = 0; k < n; k++) {
			struct an_run *r = &a->runs[by_test[t][k]];
			bool short_time =
			    (double)r->runtime_ms < a->short_fraction * (double)med_rt;
			bool short_io = (double)r->io_bytes < a->short_fraction * (double)med_io;
			if (short_time && (r->timed || short_io)) {
				r->accepted = false;
				r->reason = cm_asprintf(
				    "runtime %.3f s is well short of the %.3f s median of the "
				    "%zu runs of test %s (below %.0f %%)",
				    (double)r->runtime_ms / 1000.0, (double)med_rt / 1000.0, n,
				    a->tests[t].name, a->short_fraction * 100.0);
			}
		}
		free(by_test[t]);
	}
	free(by_test);
	free(n_by_test);
	free(rt);
	free(io);
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
	if (r->variant != s->variant)
		return r->variant < s->variant ? -1 : 1;
	if (r->state != s->state)
		return r->state < s->state ? -1 : 1;
	if (r->test != s->test)
		return r->test < s->test ? -1 : 1;
	if (r->id.round != s->id.round)
		return r->id.round < s->id.round ? -1 : 1;
	if (r->name_round != s->name_round)
		return r->name_round < s->name_round ? -1 : 1;
	int c = cmp_ts(r->timestamp_ms, s->timestamp_ms);
	if (c)
		return c;
	c = strcmp(r->path, s->path);
	if (c)
		return c;
	return (r->line > s->line) - (r->line < s->line);
}

/* Where a run is: its file, and the line of a bonnie++ row; caller frees. */
static char *run_where(const struct an_run *r)
{
	if (r->bonnie_test >= 0)
		return cm_asprintf("%s, line %lu", r->path, r->line);
	return cm_strdup(r->path);
}

/* Two runs whose names differ only in their dates: say that the date is
 * no part of an identity unless a --pattern makes it one. */
static char *dates_hint(const struct an_run *r, const struct an_run *kept)
{
	if (r->source != AN_ID_NAME || kept->source != AN_ID_NAME)
		return cm_strdup("");
	struct an_name n1, n2;
	an_name_parse(an_base_name(r->key), &n1);
	an_name_parse(an_base_name(kept->key), &n2);
	bool dates =
	    n1.date && n2.date && strcmp(n1.date, n2.date) != 0 && strcmp(n1.stem, n2.stem) == 0;
	an_name_free(&n1);
	an_name_free(&n2);
	return cm_strdup(dates ? " (the names differ only in their dates, which are no part of a "
				 "run's identity: --pattern can make a date the state or round)"
			       : "");
}

/* One (variant, state, test) group, sorted: unnumbered runs (round 0) first. */
static void number_group(struct an_analysis *a, const size_t *idx, size_t n, bool *bonnie_numbered)
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
	const char *variant = a->variants[head->variant].name;
	const char *state = a->states[head->state].name;
	const char *test = a->tests[head->test].name;
	if (unnumbered && n > 1 && head->bonnie_test >= 0)
		*bonnie_numbered = true; /* said once, in number_rounds */
	else if (unnumbered && n > 1)
		an_note(a,
			"%s%s%sstate %s, test %s: %zu run(s) without a round number in the "
			"name, numbered by fio's timestamp",
			a->n_variants > 1 ? "variant " : "", a->n_variants > 1 ? variant : "",
			a->n_variants > 1 ? ", " : "", state, test, unnumbered);
	/* Same variant, state, round and test twice: the first (by time, then
	 * path) counts. */
	const struct an_run *kept = head;
	for (size_t k = 1; k < n; k++) {
		struct an_run *r = &a->runs[idx[k]];
		if (r->id.round != kept->id.round) {
			kept = r;
			continue;
		}
		r->accepted = false;
		char *hint = dates_hint(r, kept);
		char *where = run_where(kept);
		if (a->n_variants > 1)
			r->reason = cm_asprintf("variant %s, state %s, round %d, test %s again; %s "
						"is used instead%s",
						variant, state, r->id.round, test, where, hint);
		else
			r->reason = cm_asprintf("state %s, round %d, test %s again; %s is used "
						"instead%s",
						state, r->id.round, test, where, hint);
		free(where);
		free(hint);
	}
}

static void number_rounds(struct an_analysis *a)
{
	size_t *idx = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*idx));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		idx[n++] = i;
		/* The rows of one file (bonnie++ -x, or runs appended) are
		 * rounds of their own, in line order; the file's round orders
		 * the files. */
		if (r->bonnie_test >= 0 && r->file_rows > 1) {
			r->name_round = r->id.round;
			r->id.round = 0;
		}
	}
	sort_ctx = a;
	qsort(idx, n, sizeof(*idx), cmp_run_identity);
	bool bonnie_numbered = false;
	size_t start = 0;
	for (size_t k = 1; k <= n; k++) {
		const struct an_run *h = &a->runs[idx[start]];
		const struct an_run *r = k < n ? &a->runs[idx[k]] : NULL;
		if (r && r->variant == h->variant && r->state == h->state && r->test == h->test)
			continue;
		number_group(a, idx + start, k - start, &bonnie_numbered);
		start = k;
	}
	free(idx);
	if (bonnie_numbered)
		an_note(a, "bonnie++ rows whose file names hold no round, and the rows of a file "
			   "with several, are numbered as rounds in the order of the files' round "
			   "numbers, their paths and the rows' lines");
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

static int cmp_test_order(const void *x, const void *y)
{
	const struct an_test *a = &sort_ctx->tests[*(const size_t *)x];
	const struct an_test *b = &sort_ctx->tests[*(const size_t *)y];
	int c = cmp_ts(a->first_ts, b->first_ts);
	if (c)
		return c;
	return strcmp(a->name, b->name);
}

/* Tests in the order they first ran, so a suite reads in its own order. */
static void order_tests(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->timestamp_ms < 0)
			continue;
		struct an_test *t = &a->tests[r->test];
		if (t->first_ts < 0 || r->timestamp_ms < t->first_ts)
			t->first_ts = r->timestamp_ms;
	}
	size_t *o = cm_calloc(a->n_tests ? a->n_tests : 1, sizeof(*o));
	for (size_t t = 0; t < a->n_tests; t++)
		o[t] = t;
	sort_ctx = a;
	qsort(o, a->n_tests, sizeof(*o), cmp_test_order);
	struct an_test *tests = cm_calloc(a->n_tests ? a->n_tests : 1, sizeof(*tests));
	size_t *map = cm_calloc(a->n_tests ? a->n_tests : 1, sizeof(*map));
	for (size_t t = 0; t < a->n_tests; t++) {
		tests[t] = a->tests[o[t]];
		map[o[t]] = t;
	}
	for (size_t i = 0; i < a->n_runs; i++) {
		if (a->runs[i].accepted)
			a->runs[i].test = map[a->runs[i].test];
	}
	free(a->tests);
	a->tests = tests;
	a->cap_tests = a->n_tests;
	free(map);
	free(o);
}

/* A state without runs still gets a column when its transition matters:
 * it has actions (a state of actions only), or it failed. */
static bool transition_shown(const struct an_transition *t)
{
	if (!t)
		return false;
	return cm_status_failed(t->status) || t->n_actions > 0;
}

static int order_states(struct an_analysis *a, const struct an_options *opt)
{
	size_t *time_order = cm_calloc(a->n_states ? a->n_states : 1, sizeof(*time_order));
	size_t n = 0;
	for (size_t i = 0; i < a->n_states; i++) {
		bool shown = a->states[i].n_runs > 0;
		for (size_t v = 0; v < a->n_variants && !shown; v++)
			shown = transition_shown(an_transition_of(a, i, v));
		if (shown)
			time_order[n++] = i;
		if (a->states[i].in_manifest && !a->states[i].n_runs && an_used_runs(a)) {
			bool failed = false;
			for (size_t t = 0; t < a->n_trans && !failed; t++)
				failed =
				    a->trans[t].state == i && cm_status_failed(a->trans[t].status);
			an_note(a, "state %s: no usable runs%s", a->states[i].name,
				failed ? " (its transition failed: see state transitions)" : "");
		}
	}
	sort_ctx = a;
	qsort(time_order, n, sizeof(*time_order), cmp_state_time);

	a->order = cm_calloc(n ? n : 1, sizeof(*a->order));
	a->n_order = 0;
	bool *placed = cm_calloc(a->n_states ? a->n_states : 1, sizeof(*placed));
	if (opt->state_order) {
		char *list = cm_strdup(opt->state_order);
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
				free(placed);
				return -1;
			}
			if (!placed[time_order[k]])
				a->order[a->n_order++] = time_order[k];
			placed[time_order[k]] = true;
		}
		free(list);
	}
	for (size_t k = 0; k < n; k++) {
		if (!placed[time_order[k]])
			a->order[a->n_order++] = time_order[k];
		placed[time_order[k]] = true;
	}
	free(placed);

	if (opt->baseline) {
		size_t k = 0;
		while (k < a->n_states && strcmp(a->states[k].name, opt->baseline) != 0)
			k++;
		if (k == a->n_states || !a->states[k].n_runs) {
			fprintf(stderr,
				"fiocamp-analyze: --baseline: no usable runs of a state called "
				"\"%s\"\n",
				opt->baseline);
			free(time_order);
			return -1;
		}
		a->baseline = k;
	} else {
		/* The manifest's first state, else the one that ran first; one
		 * with runs. */
		size_t k = 0;
		while (k < n && !a->states[time_order[k]].n_runs)
			k++;
		a->baseline = time_order[k < n ? k : 0];
		if (a->n_states && a->states[0].in_manifest && !a->states[0].n_runs &&
		    an_used_runs(a))
			an_note(a,
				"the manifest's first state %s has no usable runs; baseline is %s",
				a->states[0].name, a->states[a->baseline].name);
	}
	free(time_order);
	return 0;
}

/* Variants keep the order of the inputs; the first is the baseline. */
static int order_columns(struct an_analysis *a, const struct an_options *opt)
{
	a->baseline_variant = 0;
	if (opt->baseline_variant) {
		size_t k = 0;
		while (k < a->n_variants && strcmp(a->variants[k].name, opt->baseline_variant) != 0)
			k++;
		if (k == a->n_variants || !a->variants[k].n_runs) {
			fprintf(stderr,
				"fiocamp-analyze: --baseline-variant: no usable runs of a variant "
				"called \"%s\"\n",
				opt->baseline_variant);
			return -1;
		}
		a->baseline_variant = k;
	} else {
		while (a->baseline_variant + 1 < a->n_variants &&
		       !a->variants[a->baseline_variant].n_runs)
			a->baseline_variant++;
	}
	size_t per = a->n_states ? a->n_states : 1;
	size_t *counts = cm_calloc(a->n_variants * per + 1, sizeof(*counts));
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->accepted)
			counts[r->variant * per + r->state]++;
	}
	a->cols = cm_calloc(a->n_variants * a->n_order + 1, sizeof(*a->cols));
	a->n_cols = 0;
	for (size_t v = 0; v < a->n_variants; v++) {
		for (size_t k = 0; k < a->n_order; k++) {
			size_t s = a->order[k];
			size_t runs = counts[v * per + s];
			if (!runs && !transition_shown(an_transition_of(a, s, v)))
				continue;
			a->cols[a->n_cols++] = (struct an_col){s, v, runs};
		}
	}
	free(counts);
	a->base_col = an_col_find(a, a->baseline, a->baseline_variant);
	return 0;
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
	const char *job_name = NULL;
	bool any_value = false, any_too_fast = false;
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[refs[q].run];
		const struct an_dirvals *dv = run_dir(r, j, d, m, type);
		if (!dv)
			continue;
		if (!job_name)
			job_name = r->jobs[j].name;
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

int an_compute(struct an_analysis *a, const struct an_options *opt)
{
	reject_short_runs(a);
	number_rounds(a);
	bool any = false;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		any = true;
		struct an_state *st = &a->states[r->state];
		st->n_runs++;
		if (r->timestamp_ms >= 0 &&
		    (st->first_ts_ms < 0 || r->timestamp_ms < st->first_ts_ms))
			st->first_ts_ms = r->timestamp_ms;
		struct an_variant *v = &a->variants[r->variant];
		if (!v->fio_version && r->fio_version)
			v->fio_version = cm_strdup(r->fio_version);
	}
	/* variants counted their runs before repeats were left out */
	for (size_t v = 0; v < a->n_variants; v++)
		a->variants[v].n_runs = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->skip)
			continue;
		struct an_variant *v = &a->variants[r->variant];
		v->n_runs += r->accepted;
		/* a bonnie++ row's tests are one result */
		const struct an_run *p = i ? &a->runs[i - 1] : NULL;
		if (r->bonnie_test >= 0 && p && p->bonnie_test >= 0 && p->line == r->line &&
		    strcmp(p->path, r->path) == 0)
			continue;
		if (r->accepted)
			v->n_results++;
		else
			v->n_rejected++;
	}
	for (size_t v = 0; v < a->n_variants; v++) {
		struct an_variant *var = &a->variants[v];
		const char *cv =
		    var->campaign != SIZE_MAX ? a->campaigns[var->campaign].fio_version : NULL;
		if (cv) {
			free(var->fio_version);
			var->fio_version = cm_strdup(cv);
		}
	}
	/* a campaign of transitions only (rounds = 0) is analyzed for them */
	if (!any && !an_has_actions(a))
		return -2;
	if (a->n_variants && a->variants[0].fio_version)
		a->fio_version = cm_strdup(a->variants[0].fio_version);
	order_tests(a);
	if (order_states(a, opt) < 0 || order_columns(a, opt) < 0)
		return -1;
	compute_bands(a);
	per_second_metrics(a);
	build_series(a);
	return 0;
}
