/* SPDX-License-Identifier: MIT */
/*
 * From accepted runs to statistics: short and repeated runs left out,
 * rounds numbered, tests, states and variants in order, the baselines and
 * the grid's columns; then the series (series.c).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

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

/* The names of the states with usable runs, in time order: "basis, snap1"
 * (caller frees). */
static char *state_names(const struct an_analysis *a, const size_t *order, size_t n)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t k = 0; k < n; k++) {
		if (a->states[order[k]].n_runs)
			cm_buf_printf(&b, "%s\"%s\"", b.len ? ", " : "", a->states[order[k]].name);
	}
	return cm_buf_take(&b);
}

/* The names of the variants with usable runs (caller frees). */
static char *variant_names(const struct an_analysis *a)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t v = 0; v < a->n_variants; v++) {
		if (a->variants[v].n_runs)
			cm_buf_printf(&b, "%s\"%s\"", b.len ? ", " : "", a->variants[v].name);
	}
	return cm_buf_take(&b);
}

static int order_states(struct an_analysis *a, const struct an_stats_opts *opt,
			struct an_error *err)
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
			size_t out = 0;
			for (size_t k = 0; k < a->n_runs; k++)
				out += a->runs[k].state == i && a->runs[k].disturbed &&
				       a->runs[k].skip && !a->runs[k].accepted;
			an_note(a, "state %s: no usable runs%s%s", a->states[i].name,
				failed ? " (its transition failed: see state transitions)" : "",
				out ? " (its disturbed runs left out by --exclude-disturbed)" : "");
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
				char *names = state_names(a, time_order, n);
				an_fail(err, AN_E_USAGE,
					"--state-order: no usable runs of a state called \"%s\" "
					"(the states with runs: %s)",
					tok, names);
				free(names);
				free(list);
				free(time_order);
				free(placed);
				return AN_E_USAGE;
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
			char *names = state_names(a, time_order, n);
			an_fail(err, AN_E_USAGE,
				"--baseline: no usable runs of a state called \"%s\" (the states "
				"with runs: %s)",
				opt->baseline, names);
			free(names);
			free(time_order);
			return AN_E_USAGE;
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
static int order_columns(struct an_analysis *a, const struct an_stats_opts *opt,
			 struct an_error *err)
{
	a->baseline_variant = 0;
	if (opt->baseline_variant) {
		size_t k = 0;
		while (k < a->n_variants && strcmp(a->variants[k].name, opt->baseline_variant) != 0)
			k++;
		if (k == a->n_variants || !a->variants[k].n_runs) {
			char *names = variant_names(a);
			an_fail(err, AN_E_USAGE,
				"--baseline-variant: no usable runs of a variant called \"%s\" "
				"(the variants with runs: %s)",
				opt->baseline_variant, names);
			free(names);
			return AN_E_USAGE;
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

/* A group_reporting entry of different jobs is described by what they
 * share; the user should know why (read/workload.c). */
static void warn_merged_jobs(struct an_analysis *a)
{
	size_t n = 0, first = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		if (a->runs[i].accepted && a->runs[i].merged_jobs && !n++)
			first = i;
	}
	if (!n)
		return;
	const struct an_run *r = &a->runs[first];
	an_warn(a,
		"%s%s%.0zu%s: a group_reporting entry sums jobs of different options (test "
		"\"%s\"); fio's report lists one job's options for it, so its workload is what "
		"the jobs share (the global options) and its figures are their sum; run such "
		"jobs in groups of their own (new_group, or without group_reporting) to tell "
		"them apart",
		r->path, n > 1 ? " and " : "", n - 1, n > 1 ? " other run(s)" : "", r->id.test);
}

/* Medians of single runs are no medians. */
static void warn_single_runs(struct an_analysis *a)
{
	bool single = true;
	for (size_t i = 0; i < a->n_series && single; i++) {
		for (size_t k = 0; k < a->n_cols && single; k++)
			single = a->series[i].cells[k].n <= 1;
	}
	if (single && a->n_series)
		an_warn(a, "every test has a single run in each state and variant (n = 1): the "
			   "medians are single values, and min..max and p need repeated runs");
}

int an_compute(struct an_analysis *a, const struct an_stats_opts *opt, struct an_error *err)
{
	if (opt->exclude_disturbed)
		an_exclude_disturbed(a);
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
		return an_fail(err, AN_E_EMPTY,
			       "nothing to analyze: no usable fio run among the inputs");
	order_tests(a);
	int rc = order_states(a, opt, err);
	if (rc < 0 || (rc = order_columns(a, opt, err)) < 0)
		return rc;
	an_fio_versions(a);
	an_environments(a);
	if (opt->steady_window)
		a->steady_window = opt->steady_window;
	an_series_build(a);
	an_steady_build(a);
	an_disturbed_notes(a, opt->exclude_disturbed);
	an_sweeps_build(a);
	an_client_shares_build(a);
	warn_merged_jobs(a);
	warn_single_runs(a);
	return 0;
}
