/* SPDX-License-Identifier: MIT */
/*
 * The comparison of variants, the shape people publish: a row per state of
 * each variant (and per data-set size when runs of several sizes are
 * compared), a column per test's headline metric as median and min..max
 * with the change against the baseline variant, the CPU beside the block
 * and seek tests, and how many results each variant lost.
 *
 * bonnie++'s tests and the fio suite's jobs that measure the same share a
 * column (block write: put_block and bon_write's write bandwidth, ...), so
 * old bonnie++ rows and new fio runs stand side by side.  The same model
 * feeds the terminal, Markdown, CSV and JSON writers.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* Columns of the bonnie++ tests, in this order, before every other test;
 * CPU % beside the first four, as bonnie++'s own table has it. */
static const int role_order[] = {
    FC_BONNIE_PUT_BLOCK, FC_BONNIE_REWRITE,    FC_BONNIE_GET_BLOCK,  FC_BONNIE_SEEKS,
    FC_BONNIE_PUTC,	 FC_BONNIE_GETC,       FC_BONNIE_SEQ_CREATE, FC_BONNIE_SEQ_STAT,
    FC_BONNIE_SEQ_DEL,	 FC_BONNIE_RAN_CREATE, FC_BONNIE_RAN_STAT,   FC_BONNIE_RAN_DEL,
};
#define N_CPU_ROLES 4

static size_t role_rank(int role)
{
	for (size_t i = 0; i < CM_ARRAY_SIZE(role_order); i++) {
		if (role_order[i] == role)
			return i;
	}
	return CM_ARRAY_SIZE(role_order);
}

/* The data-set size of a test ("16g"), borrowed into buf; NULL if none. */
static const char *test_size(const struct an_analysis *a, size_t t, char *buf, size_t len)
{
	const char *v;
	size_t n;
	if (!an_wl_get(a->tests[t].workload, 0, AN_WL_SIZE, &v, &n))
		return NULL;
	snprintf(buf, len, "%.*s", (int)n, v);
	return buf;
}

static int cmp_size(const char *x, const char *y)
{
	uint64_t a = 0, b = 0;
	bool ka = an_parse_size(x, false, &a), kb = an_parse_size(y, false, &b);
	if (ka && kb && a != b)
		return a < b ? -1 : 1;
	if (ka != kb)
		return ka ? -1 : 1;
	return strcmp(x, y);
}

static bool same_str(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* Two workloads alike but for their size. */
static bool same_but_size(const char *x, const char *y)
{
	size_t jobs = an_wl_jobs(x);
	if (jobs != an_wl_jobs(y))
		return false;
	for (size_t j = 0; j < jobs; j++) {
		for (int f = 0; f < AN_WL_COUNT; f++) {
			if (f != AN_WL_SIZE && !an_wl_same(x, y, j, (enum an_wl_field)f))
				return false;
		}
	}
	return true;
}

/* Whether grid column `col` has accepted runs of test t (counted once, in
 * an_cmp_build: asking an_runs_of for every pair would go through every
 * run each time). */
static bool ran(const struct an_analysis *a, const struct an_cmp *c, size_t col, size_t t)
{
	return c->runs_of[col * a->n_tests + t] > 0;
}

static void count_runs(const struct an_analysis *a, struct an_cmp *c)
{
	c->runs_of = cm_calloc(a->n_cols * a->n_tests + 1, sizeof(*c->runs_of));
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		size_t col = an_col_find(a, r->state, r->variant);
		if (col != SIZE_MAX)
			c->runs_of[col * a->n_tests + r->test]++;
	}
}

/* ---- rows ------------------------------------------------------------------ */

static void add_row(struct an_cmp *c, size_t col, size_t variant, size_t state, const char *size)
{
	struct an_cmp_row *r = CM_PUSH(c->rows, c->n_rows, c->cap_rows);
	r->col = col;
	r->variant = variant;
	r->state = state;
	r->size = size ? cm_strdup(size) : NULL;
}

static int cmp_strp_size(const void *x, const void *y)
{
	return cmp_size(*(char *const *)x, *(char *const *)y);
}

static void build_rows(const struct an_analysis *a, struct an_cmp *c)
{
	char buf[64];
	/* several sizes anywhere: a row per size, so that 16g and 32g are
	 * never one cell, nor compared with each other */
	const char *one = NULL;
	char first[64] = "";
	for (size_t t = 0; t < a->n_tests && !c->by_size; t++) {
		const char *s = test_size(a, t, buf, sizeof(buf));
		if (!s)
			continue;
		if (!one) {
			snprintf(first, sizeof(first), "%s", s);
			one = first;
		} else if (strcmp(one, s) != 0) {
			c->by_size = true;
		}
	}
	bool *has_row = cm_calloc(a->n_variants ? a->n_variants : 1, sizeof(*has_row));
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_col *cl = &a->cols[k];
		if (!cl->n_runs && !an_col_mark(a, cl))
			continue;
		has_row[cl->variant] = true;
		if (!c->by_size) {
			add_row(c, k, cl->variant, cl->state, NULL);
			continue;
		}
		/* the sizes of the tests this column ran, ascending */
		char **sizes = NULL;
		size_t n = 0, cap = 0;
		for (size_t t = 0; t < a->n_tests; t++) {
			const char *s = test_size(a, t, buf, sizeof(buf));
			if (!s || !ran(a, c, k, t))
				continue;
			bool seen = false;
			for (size_t i = 0; i < n && !seen; i++)
				seen = strcmp(sizes[i], s) == 0;
			if (!seen) {
				char **slot = CM_PUSH(sizes, n, cap);
				*slot = cm_strdup(s);
			}
		}
		if (n)
			qsort(sizes, n, sizeof(*sizes), cmp_strp_size);
		if (n == 0)
			add_row(c, k, cl->variant, cl->state, "");
		for (size_t i = 0; i < n; i++) {
			add_row(c, k, cl->variant, cl->state, sizes[i]);
			free(sizes[i]);
		}
		free(sizes);
	}
	/* A variant whose every result was rejected is a row too: that is the
	 * least stable of all. */
	for (size_t v = 0; v < a->n_variants; v++) {
		if (!has_row[v] && a->variants[v].n_rejected)
			add_row(c, SIZE_MAX, v, SIZE_MAX, c->by_size ? "" : NULL);
	}
	free(has_row);
	for (size_t r = 0; r < c->n_rows; r++)
		c->rows[r].first = r == 0 || c->rows[r - 1].variant != c->rows[r].variant;
}

/* The row a test's cell in grid column `col` goes to; SIZE_MAX if none.
 * A test without a size goes to the column's first row. */
static size_t row_of(const struct an_analysis *a, const struct an_cmp *c, size_t col, size_t t)
{
	char buf[64];
	const char *s = c->by_size ? test_size(a, t, buf, sizeof(buf)) : NULL;
	for (size_t r = 0; r < c->n_rows; r++) {
		if (c->rows[r].col != col)
			continue;
		if (!s || strcmp(c->rows[r].size, s) == 0)
			return r;
	}
	return SIZE_MAX;
}

/* ---- columns --------------------------------------------------------------- */

/* What a test shows: its headline series, of the role it has. */
struct unit {
	size_t test;
	const struct an_series *s;
	int role;
};

static size_t test_units(const struct an_analysis *a, size_t t, struct unit **out)
{
	struct unit *u = NULL;
	size_t n = 0, cap = 0;
	int role = an_bonnie_role(a, t);
	if (role >= 0) {
		enum fc_ddir d;
		enum an_metric m;
		an_bonnie_test_place(role, &d, &m);
		const struct an_series *s = an_find_series(a, t, 0, d, m);
		if (s) {
			struct unit *slot = CM_PUSH(u, n, cap);
			*slot = (struct unit){t, s, role};
			*out = u;
			return n;
		}
	}
	/* IOPS, or MiB/s for blocks of 64 KiB and more, per job and direction */
	enum an_metric m = an_wl_large_blocks(a->tests[t].workload) ? AN_M_BW : AN_M_IOPS;
	/* fio's client/server mode: the aggregate of the clients ("All
	 * clients"; each client's share is the clients table's) */
	bool aggregate = false;
	for (size_t i = a->tests[t].series_start; i < a->tests[t].series_end; i++)
		aggregate |= a->series[i].client_all;
	for (size_t i = a->tests[t].series_start; i < a->tests[t].series_end; i++) {
		if (a->series[i].metric != m || (aggregate && !a->series[i].client_all))
			continue;
		struct unit *slot = CM_PUSH(u, n, cap);
		*slot = (struct unit){t, &a->series[i], -1};
	}
	*out = u;
	return n;
}

/* Whether unit u can join column cc: the same kind of value, and no row
 * holds one of another of its tests already. */
static bool fits(const struct an_analysis *a, const struct an_cmp *c, const struct an_cmp_col *cc,
		 const struct unit *u)
{
	const struct an_test *t = &a->tests[u->test];
	if (cc->role != u->role || cc->metric != u->s->metric || cc->dir != u->s->dir ||
	    cc->job != u->s->job_index)
		return false;
	if (u->role < 0) {
		/* a test of its own; in rows by size, the same test at another size */
		const struct an_test *t0 = &a->tests[cc->tests[0]];
		if (!c->by_size || strcmp(t0->base, t->base) != 0 ||
		    !same_but_size(t0->workload, t->workload))
			return false;
	}
	for (size_t k = 0; k < a->n_cols; k++) {
		if (!ran(a, c, k, u->test))
			continue;
		size_t r = row_of(a, c, k, u->test);
		for (size_t i = 0; i < cc->n_tests && r != SIZE_MAX; i++) {
			if (ran(a, c, k, cc->tests[i]) && row_of(a, c, k, cc->tests[i]) == r)
				return false;
		}
	}
	return true;
}

static void join(struct an_cmp_col *cc, const struct unit *u)
{
	cc->tests = cm_realloc(cc->tests, cc->n_tests + 1, sizeof(*cc->tests));
	cc->tests[cc->n_tests++] = u->test;
}

static int cmp_col_order(const void *x, const void *y)
{
	const struct an_cmp_col *p = x, *q = y;
	size_t rp = role_rank(p->role), rq = role_rank(q->role);
	if (rp != rq)
		return rp < rq ? -1 : 1;
	return (p->order > q->order) - (p->order < q->order);
}

/* Titles: the role's ("block write MiB/s"), or the test's with its job and
 * direction where it has several; the tests named where a role needed more
 * than one column. */
static void title_cols(const struct an_analysis *a, struct an_cmp *c)
{
	for (size_t i = 0; i < c->n_cols; i++) {
		struct an_cmp_col *cc = &c->cols[i];
		struct cm_buf b = {NULL, 0, 0};
		const char *unit = an_metric_unit(cc->metric, FC_LOG_UNKNOWN);
		if (cc->role >= 0) {
			const char *label = fc_bonnie_test_info(cc->role)->label;
			if (cc->metric == AN_M_IOPS)
				cm_buf_printf(&b, "%s/s", label);
			else
				cm_buf_printf(&b, "%s %s", label, unit);
			size_t same = 0;
			for (size_t k = 0; k < c->n_cols; k++)
				same += c->cols[k].role == cc->role;
			if (same > 1) {
				cm_buf_puts(&b, " (");
				for (size_t k = 0; k < cc->n_tests; k++)
					cm_buf_printf(&b, "%s%s", k ? ", " : "",
						      a->tests[cc->tests[k]].name);
				cm_buf_putc(&b, ')');
			}
		} else {
			const struct an_test *t = &a->tests[cc->tests[0]];
			size_t dirs = 0, jobs = 0;
			bool aggregate = false;
			for (size_t k = t->series_start; k < t->series_end; k++) {
				const struct an_series *s = &a->series[k];
				if (s->metric != cc->metric)
					continue;
				dirs += s->job_index == 0;
				jobs = s->job_index + 1 > jobs ? s->job_index + 1 : jobs;
				aggregate |= s->client_all;
			}
			/* one test at several sizes: the name it had before */
			cm_buf_puts(&b, cc->n_tests > 1 ? t->base : t->name);
			if (aggregate)
				cm_buf_puts(&b, " all clients");
			else if (jobs > 1)
				cm_buf_printf(&b, " job %zu", cc->job + 1);
			if (dirs > 1)
				cm_buf_printf(&b, " %s", fc_ddir_name(cc->dir));
			cm_buf_printf(&b, " %s", cc->metric == AN_M_BW ? "MiB/s" : "IOPS");
		}
		cc->title = cm_buf_take(&b);
	}
}

static void build_cols(const struct an_analysis *a, struct an_cmp *c)
{
	size_t cap = 0;
	for (size_t t = 0; t < a->n_tests; t++) {
		struct unit *u;
		size_t n = test_units(a, t, &u);
		for (size_t i = 0; i < n; i++) {
			size_t k = 0;
			while (k < c->n_cols && !fits(a, c, &c->cols[k], &u[i]))
				k++;
			if (k == c->n_cols) {
				struct an_cmp_col *cc = CM_PUSH(c->cols, c->n_cols, cap);
				cc->role = u[i].role;
				cc->metric = u[i].s->metric;
				cc->dir = u[i].s->dir;
				cc->job = u[i].s->job_index;
				cc->cpu = u[i].role >= 0 && role_rank(u[i].role) < N_CPU_ROLES;
				cc->order = c->n_cols - 1;
				c->bonnie |= u[i].role >= 0;
			}
			join(&c->cols[k], &u[i]);
		}
		free(u);
	}
	if (c->n_cols)
		qsort(c->cols, c->n_cols, sizeof(*c->cols), cmp_col_order);
	title_cols(a, c);
}

/* ---- cells ----------------------------------------------------------------- */

static void fill_cells(const struct an_analysis *a, struct an_cmp *c)
{
	for (size_t r = 0; r < c->n_rows; r++)
		c->rows[r].cells = cm_calloc(c->n_cols ? c->n_cols : 1, sizeof(*c->rows[r].cells));
	for (size_t i = 0; i < c->n_cols; i++) {
		const struct an_cmp_col *cc = &c->cols[i];
		for (size_t k = 0; k < cc->n_tests; k++) {
			size_t t = cc->tests[k];
			const struct an_series *s =
			    an_find_series(a, t, cc->job, cc->dir, cc->metric);
			const struct an_series *cpu =
			    cc->cpu ? an_find_series(a, t, cc->job, cc->dir, AN_M_CPU) : NULL;
			for (size_t col = 0; s && col < a->n_cols; col++) {
				if (!ran(a, c, col, t))
					continue;
				size_t r = row_of(a, c, col, t);
				if (r == SIZE_MAX)
					continue;
				struct an_cmp_cell *cell = &c->rows[r].cells[i];
				cell->cell = &s->cells[col];
				cell->cpu = cpu ? &cpu->cells[col] : NULL;
				cell->test = t;
			}
		}
	}
	/* Against the baseline variant's row of the same state and size; in
	 * the baseline variant, against its baseline state's (as the table). */
	for (size_t r = 0; r < c->n_rows; r++) {
		struct an_cmp_row *row = &c->rows[r];
		size_t ref = SIZE_MAX;
		bool by_variant = row->variant != a->baseline_variant;
		size_t state = by_variant ? row->state : a->baseline;
		for (size_t q = 0; q < c->n_rows && row->col != SIZE_MAX; q++) {
			const struct an_cmp_row *b = &c->rows[q];
			if (q != r && b->variant == a->baseline_variant && b->state == state &&
			    same_str(b->size, row->size))
				ref = q;
		}
		for (size_t i = 0; i < c->n_cols; i++) {
			struct an_cmp_cell *cell = &row->cells[i];
			cell->change_pct = NAN;
			const struct an_cell *x = cell->cell;
			const struct an_cell *base =
			    ref == SIZE_MAX ? NULL : c->rows[ref].cells[i].cell;
			if (!x || !base || !x->sum.n || !base->sum.n)
				continue;
			cell->change_pct = an_pct_change(x->sum.median, base->sum.median);
			/* a range needs two values */
			cell->outside = base->sum.n > 1 && (x->sum.median < base->sum.min ||
							    x->sum.median > base->sum.max);
		}
	}
}

/* fio's CPU of a job of several processes (group_reporting) is their
 * mean, bonnie++'s of its seekers their sum: said where it matters. */
static void cpu_note(const struct an_analysis *a, struct an_cmp *c)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t i = 0; i < c->n_cols; i++) {
		const struct an_cmp_col *cc = &c->cols[i];
		for (size_t k = 0; cc->cpu && k < cc->n_tests; k++) {
			size_t t = cc->tests[k];
			unsigned procs = 1;
			for (size_t r = 0; r < a->n_runs; r++) {
				const struct an_run *run = &a->runs[r];
				if (run->accepted && run->test == t && run->bonnie_test < 0 &&
				    run->n_jobs > cc->job && run->jobs[cc->job].procs > procs)
					procs = run->jobs[cc->job].procs;
			}
			if (procs > 1)
				cm_buf_printf(&b,
					      "%s%s: fio's CPU %% is the mean of its %u processes",
					      b.len ? "; " : "", a->tests[t].name, procs);
		}
	}
	if (b.len)
		cm_buf_puts(&b, " (bonnie++ sums its seekers' CPU: multiply to compare)");
	c->cpu_note = b.len ? cm_buf_take(&b) : NULL;
}

void an_cmp_build(const struct an_analysis *a, struct an_cmp *c)
{
	memset(c, 0, sizeof(*c));
	count_runs(a, c);
	build_rows(a, c);
	build_cols(a, c);
	fill_cells(a, c);
	cpu_note(a, c);
}

void an_cmp_free(struct an_cmp *c)
{
	for (size_t i = 0; i < c->n_cols; i++) {
		free(c->cols[i].title);
		free(c->cols[i].tests);
	}
	free(c->cols);
	for (size_t r = 0; r < c->n_rows; r++) {
		free(c->rows[r].size);
		free(c->rows[r].cells);
	}
	free(c->rows);
	free(c->cpu_note);
	free(c->runs_of);
	memset(c, 0, sizeof(*c));
}

size_t an_compare_series(const struct an_analysis *a, const struct an_series ***series,
			 char ***titles)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	size_t most = 0, n = 0;
	for (size_t c = 0; c < m.n_cols; c++)
		most += m.cols[c].n_tests;
	const struct an_series **sv = cm_calloc(most ? most : 1, sizeof(*sv));
	char **tv = cm_calloc(most ? most : 1, sizeof(*tv));
	/* a column holding several tests (bonnie++'s and the fio suite's) is
	 * drawn as one panel per test */
	for (size_t c = 0; c < m.n_cols; c++) {
		const struct an_cmp_col *cc = &m.cols[c];
		for (size_t k = 0; k < cc->n_tests; k++) {
			const struct an_test *t = &a->tests[cc->tests[k]];
			for (size_t i = t->series_start; i < t->series_end; i++) {
				const struct an_series *s = &a->series[i];
				if (s->metric != cc->metric || s->dir != cc->dir ||
				    s->job_index != cc->job)
					continue;
				sv[n] = s;
				tv[n++] = cc->n_tests > 1
					      ? cm_asprintf("%s (%s)", cc->title, t->name)
					      : cm_strdup(cc->title);
				break;
			}
		}
	}
	an_cmp_free(&m);
	*series = sv;
	*titles = tv;
	return n;
}
