/* SPDX-License-Identifier: MIT */
/*
 * Sweeps: tests that differ from each other only in one or two of the
 * options people sweep (iodepth, numjobs, bs, rwmixread, rw) are one
 * sweep, the swept options its grid.  The tests are grouped by the rest of
 * their workload (every field of the key but the job name and the swept
 * options); the pairs of options are tried first, in the order of opts[]
 * (iodepth x numjobs before anything else), then one option alone.  A
 * pair must fill its grid (every value of one with every value of the
 * other); rw is swept only beside a number, so that a suite's randread
 * and randwrite tests are no sweep.
 *
 * Each point of each column holds its rounds' IOPS and MiB/s summed over
 * the test's jobs and directions (numjobs=4 without group_reporting is
 * four jobs) and the largest p99 among them.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

static const enum an_wl_field opts[] = {AN_WL_IODEPTH, AN_WL_NUMJOBS, AN_WL_BS, AN_WL_RWMIXREAD,
					AN_WL_RW};
#define N_OPTS (sizeof(opts) / sizeof(opts[0]))

int an_saturation(const double *iops, const double *p99, size_t n)
{
	size_t have = 0;
	for (size_t i = 0; i < n; i++)
		have += isfinite(iops[i]) && isfinite(p99[i]);
	if (have < 2)
		return AN_SAT_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(iops[i]) || !isfinite(p99[i]) || iops[i] <= 0 || p99[i] <= 0)
			continue;
		size_t next = n;
		for (size_t j = i + 1; j < n && next == n; j++)
			if (isfinite(iops[j]) && isfinite(p99[j]))
				next = j;
		if (next == n)
			break;
		/* beyond it IOPS never gains 10 %, and the next step costs
		 * more than half again of p99 */
		bool flat = true;
		for (size_t j = i + 1; j < n; j++)
			flat &= !isfinite(iops[j]) || iops[j] < 1.10 * iops[i];
		if (flat && p99[next] > 1.50 * p99[i])
			return (int)i;
	}
	return -1;
}

/* ---- the groups -------------------------------------------------------------- */

/* What is left of a test's workload without the swept options: each
 * different job once, so that numjobs=4 without group_reporting (four
 * jobs alike) and numjobs=1 are one group.  Caller frees. */
static char *rest_of(const char *key, unsigned swept)
{
	struct cm_buf b = {NULL, 0, 0};
	size_t jobs = an_wl_jobs(key);
	char **seen = cm_calloc(jobs, sizeof(*seen));
	size_t n_seen = 0;
	for (size_t j = 0; j < jobs; j++) {
		struct cm_buf one = {NULL, 0, 0};
		for (int f = 0; f < AN_WL_COUNT; f++) {
			if (f == AN_WL_NAME || (swept & (1u << f)))
				continue;
			const char *v;
			size_t len;
			if (an_wl_get(key, j, (enum an_wl_field)f, &v, &len))
				cm_buf_printf(&one, "%s=%.*s;", an_wl_fields[f], (int)len, v);
		}
		if (!one.s)
			cm_buf_puts(&one, "");
		bool dup = false;
		for (size_t k = 0; k < n_seen && !dup; k++)
			dup = strcmp(seen[k], one.s) == 0;
		if (dup) {
			cm_buf_release(&one);
			continue;
		}
		cm_buf_printf(&b, "%s|", one.s);
		seen[n_seen++] = one.s;
	}
	for (size_t k = 0; k < n_seen; k++)
		free(seen[k]);
	free(seen);
	if (!b.s)
		cm_buf_puts(&b, "");
	return b.s;
}

/* Field f of a workload's first job; caller frees; NULL when absent. */
static char *value_of(const char *key, enum an_wl_field f)
{
	const char *v;
	size_t len;
	if (!an_wl_get(key, 0, f, &v, &len))
		return NULL;
	return cm_strndup(v, len);
}

/* Every job of the key gives field f the first job's value. */
static bool jobs_alike(const char *key, enum an_wl_field f)
{
	size_t jobs = an_wl_jobs(key);
	const char *v0, *v;
	size_t l0, l;
	bool h0 = an_wl_get(key, 0, f, &v0, &l0);
	for (size_t j = 1; j < jobs; j++) {
		bool h = an_wl_get(key, j, f, &v, &l);
		if (h != h0 || (h && (l != l0 || memcmp(v, v0, l) != 0)))
			return false;
	}
	return true;
}

static bool number_opt(enum an_wl_field f)
{
	return f != AN_WL_RW;
}

/* A value as a number to order by (bs as bytes); NaN if not one. */
static double value_number(enum an_wl_field f, const char *v)
{
	uint64_t x;
	if (f == AN_WL_RW || !an_parse_size(v, false, &x))
		return NAN;
	return (double)x;
}

struct value_sort {
	enum an_wl_field f;
};
static struct value_sort sort_ctx;

static int cmp_values(const void *x, const void *y)
{
	const char *a = *(char *const *)x, *b = *(char *const *)y;
	double na = value_number(sort_ctx.f, a), nb = value_number(sort_ctx.f, b);
	if (isfinite(na) && isfinite(nb) && na != nb)
		return na < nb ? -1 : 1;
	if (isfinite(na) != isfinite(nb))
		return isfinite(na) ? -1 : 1;
	return strcmp(a, b);
}

static size_t value_index(char **values, size_t n, const char *v)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(values[i], v) == 0)
			return i;
	return SIZE_MAX;
}

/* The tests of a candidate group; a sweep when its values make a grid. */
struct group {
	size_t *tests;
	size_t n;
	enum an_wl_field f[AN_SWEEP_OPTS];
	size_t n_opts;
	char **values[AN_SWEEP_OPTS];
	size_t n_values[AN_SWEEP_OPTS];
};

static void group_free(struct group *g)
{
	for (size_t o = 0; o < g->n_opts; o++) {
		for (size_t v = 0; v < g->n_values[o]; v++)
			free(g->values[o][v]);
		free(g->values[o]);
		g->values[o] = NULL;
		g->n_values[o] = 0;
	}
	free(g->tests);
	g->tests = NULL;
}

/* Whether the test has runs in column col. */
static bool ran_in(const struct an_analysis *a, size_t test, size_t col)
{
	const struct an_test *t = &a->tests[test];
	for (size_t s = t->series_start; s < t->series_end; s++)
		if (a->series[s].cells[col].n > 0)
			return true;
	return false;
}

/* Whether some column (a state of a variant) has runs of every test of
 * the group: tests that never ran side by side, such as a paced job of a
 * state of its own beside the suite of the others, are no sweep.  Without
 * columns (the workloads alone) nothing tells: they are taken together. */
static bool measured_together(const struct an_analysis *a, const struct group *g)
{
	if (!a->n_cols)
		return true;
	for (size_t col = 0; col < a->n_cols; col++) {
		size_t i = 0;
		while (i < g->n && ran_in(a, g->tests[i], col))
			i++;
		if (i == g->n)
			return true;
	}
	return false;
}

/* Whether the group's tests are a sweep of its options: each option has
 * a value in every job, two values at least; one test per point; a pair
 * fills its grid; the points measured in one column at least. */
static bool group_is_sweep(const struct an_analysis *a, struct group *g)
{
	if (g->n < 2 || !measured_together(a, g))
		return false;
	for (size_t o = 0; o < g->n_opts; o++) {
		g->values[o] = cm_calloc(g->n, sizeof(char *));
		for (size_t i = 0; i < g->n; i++) {
			const char *key = a->tests[g->tests[i]].workload;
			char *v = value_of(key, g->f[o]);
			if (!v || !jobs_alike(key, g->f[o])) {
				free(v);
				return false;
			}
			if (value_index(g->values[o], g->n_values[o], v) != SIZE_MAX)
				free(v);
			else
				g->values[o][g->n_values[o]++] = v;
		}
		if (g->n_values[o] < 2)
			return false;
		sort_ctx.f = g->f[o];
		qsort(g->values[o], g->n_values[o], sizeof(char *), cmp_values);
	}
	size_t cells = g->n_opts == 2 ? g->n_values[0] * g->n_values[1] : g->n_values[0];
	if (cells != g->n)
		return false; /* a hole in the grid, or two tests at one point */
	/* one test per point */
	for (size_t i = 0; i < g->n; i++) {
		for (size_t k = i + 1; k < g->n; k++) {
			bool same = true;
			for (size_t o = 0; o < g->n_opts; o++)
				same &= an_wl_same(a->tests[g->tests[i]].workload,
						   a->tests[g->tests[k]].workload, 0, g->f[o]);
			if (same)
				return false;
		}
	}
	return true;
}

/* The sweep's name: the tests' common name before '@' (a campaign's
 * points), else its fixed options ("randread bs=4k"). */
static char *sweep_label(const struct an_analysis *a, const struct group *g)
{
	const char *first = a->tests[g->tests[0]].name;
	const char *at = strchr(first, '@');
	bool common = at != NULL;
	for (size_t i = 1; i < g->n && common; i++) {
		const char *n = a->tests[g->tests[i]].name;
		common = strncmp(n, first, (size_t)(at - first) + 1) == 0;
	}
	if (common)
		return cm_strndup(first, (size_t)(at - first));
	const char *key = a->tests[g->tests[0]].workload;
	struct cm_buf b = {NULL, 0, 0};
	static const enum an_wl_field shown[] = {AN_WL_RW, AN_WL_RWMIXREAD, AN_WL_BS, AN_WL_IODEPTH,
						 AN_WL_NUMJOBS};
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		bool swept = false;
		for (size_t o = 0; o < g->n_opts; o++)
			swept |= g->f[o] == shown[i];
		const char *v;
		size_t len;
		if (swept || !an_wl_get(key, 0, shown[i], &v, &len))
			continue;
		if (b.s)
			cm_buf_putc(&b, ' ');
		if (shown[i] == AN_WL_RW)
			cm_buf_printf(&b, "%.*s", (int)len, v);
		else
			cm_buf_printf(&b, "%s=%.*s", an_wl_fields[shown[i]], (int)len, v);
	}
	if (!b.s)
		cm_buf_puts(&b, first);
	return b.s;
}

/* ---- the values of a point ------------------------------------------------------- */

/* Adds a series' cell to the per-run sums of a point: IOPS and MiB/s are
 * summed, p99 is the largest. */
struct acc {
	size_t *runs;
	int *rounds;
	double *iops, *mibs, *p99;
	size_t n, cap;
};

static size_t acc_slot(struct acc *ac, size_t run, int round)
{
	for (size_t i = 0; i < ac->n; i++)
		if (ac->runs[i] == run)
			return i;
	if (ac->n == ac->cap) {
		ac->cap = ac->cap ? ac->cap * 2 : 8;
		ac->runs = cm_realloc(ac->runs, ac->cap, sizeof(*ac->runs));
		ac->rounds = cm_realloc(ac->rounds, ac->cap, sizeof(*ac->rounds));
		ac->iops = cm_realloc(ac->iops, ac->cap, sizeof(*ac->iops));
		ac->mibs = cm_realloc(ac->mibs, ac->cap, sizeof(*ac->mibs));
		ac->p99 = cm_realloc(ac->p99, ac->cap, sizeof(*ac->p99));
	}
	size_t i = ac->n++;
	ac->runs[i] = run;
	ac->rounds[i] = round;
	ac->iops[i] = ac->mibs[i] = ac->p99[i] = NAN;
	return i;
}

static void acc_add(struct acc *ac, const struct an_cell *c, enum an_metric m)
{
	for (size_t k = 0; k < c->n; k++) {
		double v = c->values[k];
		if (!isfinite(v))
			continue;
		size_t i = acc_slot(ac, c->runs[k], c->rounds[k]);
		double *slot = m == AN_M_IOPS ? &ac->iops[i]
			       : m == AN_M_BW ? &ac->mibs[i]
					      : &ac->p99[i];
		if (m == AN_M_IOPS || m == AN_M_BW)
			*slot = isfinite(*slot) ? *slot + v : v;
		else if (!isfinite(*slot) || v > *slot)
			*slot = v;
	}
}

static void med_min_max(const double *v, size_t n, double *med, double *min, double *max)
{
	double *f = cm_calloc(n ? n : 1, sizeof(*f));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			f[k++] = v[i];
	*med = an_median(f, k);
	*min = *max = NAN;
	for (size_t i = 0; i < k; i++) {
		if (!isfinite(*min) || f[i] < *min)
			*min = f[i];
		if (!isfinite(*max) || f[i] > *max)
			*max = f[i];
	}
	free(f);
}

static int cmp_round(const void *x, const void *y, void *ctx)
{
	const int *rounds = ctx;
	int a = rounds[*(const size_t *)x], b = rounds[*(const size_t *)y];
	return (a > b) - (a < b);
}

static void fill_cell(const struct an_analysis *a, size_t test, size_t col,
		      struct an_sweep_cell *out)
{
	const struct an_test *t = &a->tests[test];
	/* completion latency when the report has it, else total latency */
	bool clat = false;
	for (size_t s = t->series_start; s < t->series_end && !clat; s++)
		clat = a->series[s].metric == AN_M_CLAT_P99 && a->series[s].cells[col].n > 0;
	enum an_metric p99 = clat ? AN_M_CLAT_P99 : AN_M_LAT_P99;
	/* fio's client/server mode: the rates of "All clients" (the clients'
	 * sum), the p99 of the clients (the aggregate has none before 3.39) */
	bool aggregate = false;
	for (size_t s = t->series_start; s < t->series_end; s++)
		aggregate |= a->series[s].client_all;
	struct acc ac = {0};
	for (size_t s = t->series_start; s < t->series_end; s++) {
		const struct an_series *se = &a->series[s];
		bool rate = se->metric == AN_M_IOPS || se->metric == AN_M_BW;
		if (aggregate && se->client_all != rate)
			continue;
		if (rate || se->metric == p99)
			acc_add(&ac, &se->cells[col], se->metric);
		if (rate && se->cells[col].disturbed_n > out->disturbed_n)
			out->disturbed_n = se->cells[col].disturbed_n;
	}
	size_t *order = cm_calloc(ac.n ? ac.n : 1, sizeof(*order));
	for (size_t i = 0; i < ac.n; i++)
		order[i] = i;
	qsort_r(order, ac.n, sizeof(*order), cmp_round, ac.rounds);
	out->n = ac.n;
	size_t n = ac.n ? ac.n : 1;
	out->rounds = cm_calloc(n, sizeof(int));
	out->iops = cm_calloc(n, sizeof(double));
	out->mibs = cm_calloc(n, sizeof(double));
	out->p99_us = cm_calloc(n, sizeof(double));
	for (size_t i = 0; i < ac.n; i++) {
		out->rounds[i] = ac.rounds[order[i]];
		out->iops[i] = ac.iops[order[i]];
		out->mibs[i] = ac.mibs[order[i]];
		out->p99_us[i] = ac.p99[order[i]];
	}
	free(order);
	free(ac.runs);
	free(ac.rounds);
	free(ac.iops);
	free(ac.mibs);
	free(ac.p99);
	med_min_max(out->iops, out->n, &out->iops_med, &out->iops_min, &out->iops_max);
	med_min_max(out->mibs, out->n, &out->mibs_med, &out->mibs_min, &out->mibs_max);
	med_min_max(out->p99_us, out->n, &out->p99_med, &out->p99_min, &out->p99_max);
	out->change_pct = out->p99_change_pct = NAN;
}

/* ---- the sweeps ---------------------------------------------------------------- */

static size_t point_of(const struct an_sweep *sw, size_t at0, size_t at1)
{
	for (size_t p = 0; p < sw->n_points; p++)
		if (sw->points[p].at[0] == at0 && (sw->n_opts < 2 || sw->points[p].at[1] == at1))
			return p;
	return SIZE_MAX;
}

static int cmp_point(const void *x, const void *y)
{
	const struct an_sweep_point *a = x, *b = y;
	for (size_t o = 0; o < AN_SWEEP_OPTS; o++)
		if (a->at[o] != b->at[o])
			return a->at[o] < b->at[o] ? -1 : 1;
	return 0;
}

static void add_sweep(struct an_analysis *a, struct group *g)
{
	a->sweeps = cm_realloc(a->sweeps, a->n_sweeps + 1, sizeof(*a->sweeps));
	struct an_sweep *sw = &a->sweeps[a->n_sweeps++];
	memset(sw, 0, sizeof(*sw));
	sw->label = sweep_label(a, g);
	sw->n_opts = g->n_opts;
	sw->load = -1;
	for (size_t o = 0; o < g->n_opts; o++) {
		sw->opts[o] = an_wl_fields[g->f[o]];
		sw->values[o] = g->values[o];
		sw->n_values[o] = g->n_values[o];
		g->values[o] = NULL;
		g->n_values[o] = 0;
		if (g->f[o] == AN_WL_BS)
			sw->bandwidth = true;
	}
	for (size_t o = 0; o < g->n_opts && sw->load < 0; o++)
		if (g->f[o] == AN_WL_IODEPTH)
			sw->load = (int)o;
	for (size_t o = 0; o < g->n_opts && sw->load < 0; o++)
		if (g->f[o] == AN_WL_NUMJOBS)
			sw->load = (int)o;
	sw->points = cm_calloc(g->n, sizeof(*sw->points));
	sw->n_points = g->n;
	for (size_t i = 0; i < g->n; i++) {
		const char *key = a->tests[g->tests[i]].workload;
		sw->points[i].test = g->tests[i];
		for (size_t o = 0; o < g->n_opts; o++) {
			char *v = value_of(key, g->f[o]);
			sw->points[i].at[o] = value_index(sw->values[o], sw->n_values[o], v);
			free(v);
		}
		if (an_wl_large_blocks(key))
			sw->bandwidth = true;
	}
	qsort(sw->points, sw->n_points, sizeof(*sw->points), cmp_point);

	size_t nc = a->n_cols;
	sw->cells = cm_calloc(sw->n_points * nc + 1, sizeof(*sw->cells));
	for (size_t p = 0; p < sw->n_points; p++)
		for (size_t c = 0; c < nc; c++)
			fill_cell(a, sw->points[p].test, c, &sw->cells[p * nc + c]);
	for (size_t p = 0; p < sw->n_points; p++) {
		for (size_t c = 0; c < nc; c++) {
			size_t ref = an_ref_col(a, c);
			if (ref == SIZE_MAX)
				continue;
			struct an_sweep_cell *x = &sw->cells[p * nc + c];
			const struct an_sweep_cell *r = &sw->cells[p * nc + ref];
			x->change_pct = sw->bandwidth ? an_pct_change(x->mibs_med, r->mibs_med)
						      : an_pct_change(x->iops_med, r->iops_med);
			x->p99_change_pct = an_pct_change(x->p99_med, r->p99_med);
		}
	}

	/* the saturation along the load, per column and value of the other option */
	sw->n_lines = sw->load >= 0 && sw->n_opts == 2 ? sw->n_values[sw->load == 0 ? 1 : 0] : 1;
	sw->saturation = cm_calloc(nc * sw->n_lines + 1, sizeof(int));
	for (size_t i = 0; i < nc * sw->n_lines; i++)
		sw->saturation[i] = AN_SAT_UNKNOWN;
	if (sw->load < 0)
		return;
	size_t L = (size_t)sw->load;
	size_t nl = sw->n_values[L];
	double *iops = cm_calloc(nl, sizeof(double)), *p99 = cm_calloc(nl, sizeof(double));
	for (size_t c = 0; c < nc; c++) {
		for (size_t line = 0; line < sw->n_lines; line++) {
			for (size_t v = 0; v < nl; v++) {
				size_t p = L == 0 ? point_of(sw, v, line) : point_of(sw, line, v);
				const struct an_sweep_cell *x =
				    p == SIZE_MAX ? NULL : &sw->cells[p * nc + c];
				/* bandwidth-shaped sweeps saturate the same way */
				iops[v] = !x ? NAN : sw->bandwidth ? x->mibs_med : x->iops_med;
				p99[v] = x ? x->p99_med : NAN;
			}
			sw->saturation[c * sw->n_lines + line] = an_saturation(iops, p99, nl);
		}
	}
	free(iops);
	free(p99);
}

void an_sweeps_build(struct an_analysis *a)
{
	size_t nt = a->n_tests;
	bool *taken = cm_calloc(nt ? nt : 1, sizeof(*taken));
	char **rest = cm_calloc(nt ? nt : 1, sizeof(*rest));
	/* the candidates: pairs in the order of opts[], then one option */
	struct {
		enum an_wl_field f[AN_SWEEP_OPTS];
		size_t n;
	} cand[N_OPTS * N_OPTS];
	size_t n_cand = 0;
	for (size_t i = 0; i < N_OPTS; i++)
		for (size_t k = i + 1; k < N_OPTS; k++) {
			cand[n_cand].f[0] = opts[i];
			cand[n_cand].f[1] = opts[k];
			cand[n_cand++].n = 2;
		}
	for (size_t i = 0; i < N_OPTS; i++) {
		if (!number_opt(opts[i]))
			continue;
		cand[n_cand].f[0] = opts[i];
		cand[n_cand++].n = 1;
	}
	for (size_t ci = 0; ci < n_cand; ci++) {
		unsigned swept = 0;
		for (size_t o = 0; o < cand[ci].n; o++)
			swept |= 1u << cand[ci].f[o];
		for (size_t t = 0; t < nt; t++) {
			free(rest[t]);
			rest[t] = NULL;
			const struct an_test *te = &a->tests[t];
			if (taken[t] || te->bonnie_test >= 0 || !te->workload ||
			    !an_wl_options_listed(te->workload) || te->n_runs == 0)
				continue;
			rest[t] = rest_of(te->workload, swept);
		}
		for (size_t t = 0; t < nt; t++) {
			if (taken[t] || !rest[t])
				continue;
			bool tried = false; /* an earlier test led its group */
			for (size_t u = 0; u < t && !tried; u++)
				tried = !taken[u] && rest[u] && strcmp(rest[u], rest[t]) == 0;
			if (tried)
				continue;
			struct group g = {0};
			g.n_opts = cand[ci].n;
			memcpy(g.f, cand[ci].f, sizeof(g.f));
			g.tests = cm_calloc(nt, sizeof(size_t));
			for (size_t u = t; u < nt; u++)
				if (!taken[u] && rest[u] && strcmp(rest[u], rest[t]) == 0)
					g.tests[g.n++] = u;
			if (group_is_sweep(a, &g)) {
				for (size_t i = 0; i < g.n; i++)
					taken[g.tests[i]] = true;
				add_sweep(a, &g);
			}
			group_free(&g);
		}
	}
	for (size_t t = 0; t < nt; t++)
		free(rest[t]);
	free(rest);
	free(taken);
}
