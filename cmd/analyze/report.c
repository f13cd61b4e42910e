/* SPDX-License-Identifier: MIT */
/*
 * Writers for people: the terminal table and Markdown (the same grid: one
 * block per test, job and direction, a column per state and variant), and
 * the compact comparison of variants.  CSV and JSON are in export.c.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ---- the grid shared by table and Markdown ------------------------------- */

struct row {
	char *label;
	char **cells; /* one per column of the block */
};

struct block {
	char *title;
	size_t test; /* SIZE_MAX for the transitions */
	size_t job;
	enum fc_ddir dir;
	size_t *cols; /* indices into a->cols */
	size_t ncols;
	struct row *rows;
	size_t n, cap;
};

struct grid {
	struct block *blocks;
	size_t n, cap;
};

static struct block *new_block(struct grid *g, char *title)
{
	struct block *b = CM_PUSH(g->blocks, g->n, g->cap);
	b->title = title;
	return b;
}

/* Returns the row's cells, which stay put while more rows are added. */
static char **new_row(struct block *b, const char *label)
{
	struct row *r = CM_PUSH(b->rows, b->n, b->cap);
	r->label = cm_strdup(label);
	r->cells = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*r->cells));
	return r->cells;
}

static void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++) {
		struct block *b = &g->blocks[i];
		for (size_t k = 0; k < b->n; k++) {
			for (size_t c = 0; c < b->ncols; c++)
				free(b->rows[k].cells[c]);
			free(b->rows[k].cells);
			free(b->rows[k].label);
		}
		free(b->rows);
		free(b->title);
		free(b->cols);
	}
	free(g->blocks);
}

static char *value_pct(double v, double pct, bool mark)
{
	char num[32], p[32];
	an_fmt_short(num, sizeof(num), v);
	an_fmt_pct(p, sizeof(p), pct);
	if (!isfinite(v))
		return cm_strdup("-");
	if (!p[0])
		return cm_strdup(num);
	return cm_asprintf("%s %s%s", num, p, mark ? "*" : "");
}

static char *range_text(double lo, double hi)
{
	char a[32], b[32];
	if (!isfinite(lo))
		return cm_strdup("-");
	an_fmt_short(a, sizeof(a), lo);
	an_fmt_short(b, sizeof(b), hi);
	return cm_asprintf("%s..%s", a, b);
}

static char *p_text(const struct fc_mann_whitney *mw, bool have)
{
	if (!have || !isfinite(mw->p))
		return cm_strdup("-");
	if (mw->p < 0.001)
		return cm_strdup("<0.001");
	return cm_asprintf("%.3f", mw->p);
}

/* A cell against the column the table compares it to. */
struct shown {
	double change_pct;
	bool outside, have_mw;
	const struct fc_mann_whitney *mw;
	double ref_median; /* NaN for the base column */
	bool is_base;
};

static struct shown shown_cmp(const struct an_analysis *a, const struct an_series *s, size_t col)
{
	struct shown sh = {NAN, false, false, NULL, NAN, false};
	const struct an_cell *c = &s->cells[col];
	size_t ref = an_ref_col(a, col);
	if (ref == SIZE_MAX) {
		sh.is_base = col == a->base_col;
		return sh;
	}
	sh.ref_median = s->cells[ref].sum.median;
	if (a->cols[col].state != a->baseline) {
		sh.change_pct = c->change_pct;
		sh.outside = c->outside;
		sh.have_mw = c->have_mw;
		sh.mw = &c->mw;
	} else {
		sh.change_pct = c->v_change_pct;
		sh.outside = c->v_outside;
		sh.have_mw = c->v_have_mw;
		sh.mw = &c->v_mw;
	}
	return sh;
}

/* ">512" for a cell only bonnie++'s "+++++" fills, "too fast" without a
 * bound; NULL when it has values (or nothing). */
static char *too_fast_text(const struct an_cell *c)
{
	if (c->sum.n || !c->too_fast)
		return NULL;
	char num[32];
	an_fmt_short(num, sizeof(num), c->too_fast_above);
	return isfinite(c->too_fast_above) ? cm_asprintf(">%s", num) : cm_strdup("too fast");
}

static void metric_rows(struct block *b, const struct an_analysis *a, const struct an_series *s)
{
	char label[96];
	snprintf(label, sizeof(label), "%s median", an_metric_label(s->metric));
	char **med = new_row(b, label);
	char **rng = new_row(b, "  min..max");
	char **r1 = new_row(b, "  round 1");
	char **rest = new_row(b, "  rounds 2..n");
	char **p = new_row(b, "  p (Mann-Whitney)");
	bool any_too_fast = false;
	for (size_t k = 0; k < b->ncols; k++)
		any_too_fast |= s->cells[b->cols[k]].too_fast > 0;
	char **tf = any_too_fast ? new_row(b, "  too fast (+++++)") : NULL;
	for (size_t k = 0; k < b->ncols; k++) {
		size_t col = b->cols[k];
		const struct an_cell *c = &s->cells[col];
		struct shown sh = shown_cmp(a, s, col);
		/* the base column's own rounds against its median */
		double ref = sh.is_base ? c->sum.median : sh.ref_median;
		med[k] = too_fast_text(c);
		if (!med[k])
			med[k] = value_pct(c->sum.median, sh.change_pct, sh.outside);
		rng[k] = range_text(c->sum.min, c->sum.max);
		if (c->round1_too_fast)
			r1[k] = cm_strdup("too fast");
		else
			r1[k] = value_pct(c->round1, an_pct_change(c->round1, ref), false);
		if (tf)
			tf[k] = cm_asprintf("%zu", c->too_fast);
		rest[k] = value_pct(c->rest_median, an_pct_change(c->rest_median, ref), false);
		if (!c->sum.n)
			p[k] = cm_strdup("-");
		else if (sh.is_base)
			p[k] = cm_strdup("base");
		else
			p[k] = p_text(sh.mw, sh.have_mw);
	}
}

static char *seconds_text(double s)
{
	if (!isfinite(s))
		return cm_strdup("-");
	return cm_asprintf("%.0f s", s);
}

static void per_second_rows(struct block *b, const struct an_analysis *a, size_t test, size_t job,
			    enum fc_ddir dir)
{
	const struct an_series *first = an_find_series(a, test, job, dir, AN_M_SEC_FIRST);
	const struct an_series *last = an_find_series(a, test, job, dir, AN_M_SEC_LAST);
	const struct an_series *min = an_find_series(a, test, job, dir, AN_M_SEC_MIN);
	const struct an_series *rec = an_find_series(a, test, job, dir, AN_M_RECOVERY);
	if (!first || !last || !min || !rec)
		return;
	const char *kind = first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS";
	char label[96];
	snprintf(label, sizeof(label), "per second (%s)", kind);
	char **hb = new_row(b, label);
	char **rb = new_row(b, "  band p10..p90");
	char **rf = new_row(b, "  round 1, 1st second");
	char **rm = new_row(b, "  round 1, slowest");
	char **rl = new_row(b, "  round 1, last second");
	char **rr = new_row(b, "  recovery round 1");
	char **rn = new_row(b, "  recovery 2..n, max");
	for (size_t k = 0; k < b->ncols; k++) {
		size_t col = b->cols[k];
		const struct an_col *cl = &a->cols[col];
		const struct an_band *band =
		    an_find_band(a, cl->variant, test, job, dir, first->log_type);
		hb[k] = cm_strdup("");
		/* each variant's band, in its baseline state's column */
		rb[k] = cl->state == a->baseline && band && band->n
			    ? range_text(band->low, band->high)
			    : cm_strdup("");
		/* Round 1's seconds against the reference's median of the same second. */
		const struct an_series *ss[3] = {first, min, last};
		char **rows[3] = {rf, rm, rl};
		for (int i = 0; i < 3; i++) {
			const struct an_cell *c = &ss[i]->cells[col];
			struct shown sh = shown_cmp(a, ss[i], col);
			rows[i][k] =
			    value_pct(c->round1, an_pct_change(c->round1, sh.ref_median), false);
		}

		const struct an_cell *cr = &rec->cells[col];
		bool have_r1 = false, r1_never = false;
		double rest_max = NAN;
		size_t rest_n = 0, rest_never = 0;
		for (size_t i = 0; i < cr->n; i++) {
			double v = cr->values[i];
			if (cr->first[i]) {
				/* cr->round1 is their median: never when it is */
				have_r1 = true;
				r1_never = !isfinite(cr->round1);
				continue;
			}
			rest_n++;
			if (!isfinite(v))
				rest_never++;
			else if (isnan(rest_max) || v > rest_max)
				rest_max = v;
		}
		if (!band || !band->n || !have_r1)
			rr[k] = cm_strdup("-");
		else if (r1_never)
			rr[k] = cm_strdup("never");
		else
			rr[k] = seconds_text(cr->round1);
		if (!band || !band->n || rest_n == 0)
			rn[k] = cm_strdup("-");
		else if (rest_never)
			rn[k] = cm_asprintf("never in %zu/%zu", rest_never, rest_n);
		else
			rn[k] = seconds_text(rest_max);
	}
}

static bool has_transitions(const struct an_analysis *a)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_transition *t =
		    an_transition_of(a, a->cols[k].state, a->cols[k].variant);
		if (t && (isfinite(t->downtime_s) || t->n_actions || cm_status_failed(t->status)))
			return true;
	}
	return false;
}

static bool has_hash_checks(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].hash_checks)
			return true;
	}
	return false;
}

static void transition_block(struct grid *g, const struct an_analysis *a)
{
	struct block *b = new_block(g, cm_strdup("state transitions"));
	b->test = SIZE_MAX;
	b->cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*b->cols));
	for (size_t k = 0; k < a->n_cols; k++)
		b->cols[b->ncols++] = k;
	char **st = an_any_marked(a) ? new_row(b, "status") : NULL;
	char **dt = new_row(b, "downtime s");
	char **ac = new_row(b, "actions s (count)");
	char **tk = new_row(b, "provider tasks s (count)");
	char **hs = has_hash_checks(a) ? new_row(b, "data (verify-hash)") : NULL;
	for (size_t k = 0; k < b->ncols; k++) {
		const struct an_col *c = &a->cols[b->cols[k]];
		const struct an_transition *t = an_transition_of(a, c->state, c->variant);
		double act_s, task_s;
		size_t n_act, n_task;
		an_action_sums(t, &act_s, &n_act, &task_s, &n_task);
		if (st)
			st[k] = cm_strdup(t && t->status ? t->status : "-");
		dt[k] = t && isfinite(t->downtime_s) ? cm_asprintf("%.1f", t->downtime_s)
						     : cm_strdup("-");
		ac[k] = n_act ? cm_asprintf("%.1f (%zu)", act_s, n_act) : cm_strdup("-");
		tk[k] = n_task ? cm_asprintf("%.1f (%zu)", task_s, n_task) : cm_strdup("-");
		if (hs)
			hs[k] = an_integrity_text(t);
	}
}

static void build_grid(struct grid *g, const struct an_analysis *a, const struct an_report_opts *o)
{
	if (has_transitions(a))
		transition_block(g, a);
	for (size_t t = 0; t < a->n_tests; t++) {
		/* the columns that ran this test */
		size_t *cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*cols));
		size_t *runs = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*runs));
		size_t ncols = 0;
		for (size_t k = 0; k < a->n_cols; k++) {
			size_t n = an_runs_of(a, k, t);
			if (n) {
				runs[ncols] = n;
				cols[ncols++] = k;
			}
		}
		const struct an_test *ts = &a->tests[t];
		bool several_jobs = false;
		for (size_t k = ts->series_start; k < ts->series_end; k++)
			several_jobs |= a->series[k].job_index > 0;
		/* (job, direction) pairs of this test, in series order. */
		for (size_t i = ts->series_start; i < ts->series_end && ncols; i++) {
			const struct an_series *s = &a->series[i];
			bool seen = false;
			for (size_t k = ts->series_start; k < i && !seen; k++) {
				const struct an_series *q = &a->series[k];
				seen = q->test == t && q->job_index == s->job_index &&
				       q->dir == s->dir;
			}
			if (seen)
				continue;
			char *title;
			if (several_jobs)
				title = cm_asprintf("%s: job %zu \"%s\", %s", a->tests[t].name,
						    s->job_index + 1, s->job_name,
						    fc_ddir_name(s->dir));
			else
				title =
				    cm_asprintf("%s: %s", a->tests[t].name, fc_ddir_name(s->dir));
			struct block *b = new_block(g, title);
			b->test = t;
			b->job = s->job_index;
			b->dir = s->dir;
			b->cols = cm_calloc(ncols, sizeof(*b->cols));
			memcpy(b->cols, cols, ncols * sizeof(*cols));
			b->ncols = ncols;
			char **rr = new_row(b, "runs");
			for (size_t k = 0; k < ncols; k++)
				rr[k] = cm_asprintf("%zu", runs[k]);
			for (int m = 0; m < AN_M_FIRST_LOG; m++) {
				bool shown = o->metrics[m];
				/* bonnie++'s test has no clat: its rate, CPU and slowest operation
				 */
				if (ts->bonnie_test >= 0 && !o->metrics_given)
					shown = m == AN_M_IOPS || m == AN_M_BW || m == AN_M_FILES ||
						m == AN_M_CPU || m == AN_M_LAT_MAX;
				if (!shown)
					continue;
				const struct an_series *ms =
				    an_find_series(a, t, s->job_index, s->dir, (enum an_metric)m);
				if (ms)
					metric_rows(b, a, ms);
			}
			per_second_rows(b, a, t, s->job_index, s->dir);
		}
		free(cols);
		free(runs);
	}
}

/* ---- header, legend, notes ------------------------------------------------- */

/* Accepted runs of bonnie++ rows, and the rows: a row is a run per test. */
static size_t bonnie_runs(const struct an_analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++)
		n += a->runs[i].accepted && a->runs[i].bonnie_test >= 0;
	return n;
}

static size_t bonnie_rows(const struct an_analysis *a)
{
	size_t n = 0;
	const struct an_run *prev = NULL;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->bonnie_test < 0)
			continue;
		n += !prev || prev->line != r->line || strcmp(prev->path, r->path) != 0;
		prev = r;
	}
	return n;
}

static void header_text(struct cm_buf *b, const struct an_analysis *a)
{
	size_t used = an_used_runs(a);
	if (a->n_variants == 1 && a->variants[0].campaign != SIZE_MAX) {
		const struct an_campaign *c = &a->campaigns[a->variants[0].campaign];
		cm_buf_printf(b, "campaign %s (%s)", c->name ? c->name : "?", c->manifest);
	} else if (a->n_variants > 1) {
		cm_buf_printf(b, "%zu variants:", a->n_variants);
		for (size_t v = 0; v < a->n_variants; v++) {
			const struct an_variant *var = &a->variants[v];
			cm_buf_printf(b, "%s %s", v ? "," : "", var->name);
			bool base = v == a->baseline_variant;
			const struct an_campaign *c =
			    var->campaign != SIZE_MAX ? &a->campaigns[var->campaign] : NULL;
			/* the campaign's name when it says more than the variant's */
			if (c && c->name && strcmp(c->name, var->name) == 0)
				c = NULL;
			if (base || c)
				cm_buf_printf(b, " (%s%s%s%s)", base ? "base" : "",
					      base && c ? ", " : "", c ? "campaign " : "",
					      c ? (c->name ? c->name : c->manifest) : "");
		}
	} else {
		size_t rows = bonnie_rows(a), fio = used - bonnie_runs(a);
		if (rows == 0)
			cm_buf_printf(b, "%zu fio run(s)", used);
		else if (fio)
			cm_buf_printf(b, "%zu fio run(s) and %zu bonnie++ row(s)", fio, rows);
		else
			cm_buf_printf(b, "%zu bonnie++ row(s)", rows);
	}
	if (a->fio_version)
		cm_buf_printf(b, ", %s", a->fio_version);
	cm_buf_putc(b, '\n');
	if (a->n_variants > 1)
		cm_buf_printf(b, "baseline variant %s", a->variants[a->baseline_variant].name);
	if (a->n_variants < 2 || a->n_order > 1)
		cm_buf_printf(b, "%sbaseline %s%s", a->n_variants > 1 ? ", " : "",
			      a->n_variants > 1 ? "state " : "", a->states[a->baseline].name);
	cm_buf_printf(b, "; states %zu, tests %zu, runs used %zu, inputs rejected %zu%s",
		      a->n_order, a->n_tests, used, a->n_rejected,
		      a->n_rejected ? " (listed on stderr)" : "");
}

static const char legend[] =
    "median: change vs the baseline median; * = outside the baseline's min..max. "
    "round 1, rounds 2..n: round 1's value (in a repeated state the median of each "
    "repetition's round 1) and the median of the other rounds, each against the baseline "
    "median.  p: exact two-sided Mann-Whitney U against the "
    "baseline; with n rounds against n it cannot go below 2/C(2n,n): 0.100 for 3, "
    "0.029 for 4, 0.008 for 5.";
static const char legend_variants[] =
    "variants: the columns of the baseline state compare with the baseline variant, the "
    "other states with the baseline state of their own variant.";
static const char legend_sec[] =
    "per second: band = the baseline's per-second p10..p90; recovery = seconds from the "
    "start of the run until the rate first reaches the band's lower edge.";
static const char legend_failed[] =
    "(failed), (interrupted), (data differs): what the campaign recorded of the state's "
    "transition; see state transitions.";

static bool has_per_second(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_series; i++) {
		if (a->series[i].metric >= AN_M_FIRST_LOG)
			return true;
	}
	return false;
}

size_t an_table_legends(const struct an_analysis *a, bool grid, bool marks, const char **paras)
{
	size_t n = 0;
	if (grid)
		paras[n++] = legend;
	if (grid && a->n_variants > 1 && a->n_order > 1)
		paras[n++] = legend_variants;
	if (grid && has_per_second(a))
		paras[n++] = legend_sec;
	if (marks)
		paras[n++] = legend_failed;
	return n;
}

/* The legends (those of the grid with `grid`; that of marked columns with
 * `marks`), the warnings and the notes. */
static void footer_text(FILE *f, const struct an_analysis *a, int width, bool markdown, bool grid,
			bool marks)
{
	const char *paras[4];
	size_t n = an_table_legends(a, grid, marks, paras);
	for (size_t i = 0; i < n; i++) {
		if (markdown) {
			fprintf(f, "%s%s\n", i ? "\n" : "", paras[i]);
		} else {
			an_wrap(f, "", 0, paras[i], width);
		}
	}
	for (size_t i = 0; i < a->warnings.n; i++) {
		if (markdown)
			fprintf(f, "\n- warning: %s", a->warnings.items[i]);
		else
			an_wrap(f, "warning: ", 9, a->warnings.items[i], width);
	}
	for (size_t i = 0; i < a->notes.n; i++) {
		if (markdown)
			fprintf(f, "\n- note: %s", a->notes.items[i]);
		else
			an_wrap(f, "note: ", 6, a->notes.items[i], width);
	}
	if (markdown && (a->notes.n || a->warnings.n))
		fputc('\n', f);
}

/* ---- the terminal table ---------------------------------------------------- */

static size_t str_width(const char *s)
{
	return an_text_width(s, strlen(s));
}

/* Right-aligns `s` in `w` columns (UTF-8 aware). */
static void put_right(struct cm_buf *b, const char *s, size_t w)
{
	size_t sw = str_width(s);
	for (size_t i = sw; i < w; i++)
		cm_buf_putc(b, ' ');
	cm_buf_puts(b, s);
}

/* Left-aligns, cut to `w` columns with '~' when longer. */
static void put_left(struct cm_buf *b, const char *s, size_t w)
{
	size_t sw = str_width(s);
	if (sw <= w) {
		cm_buf_puts(b, s);
		for (size_t i = sw; i < w; i++)
			cm_buf_putc(b, ' ');
		return;
	}
	size_t cw = 0;
	const char *p = s;
	while (*p && cw + 1 < w) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		cw++;
	}
	cm_buf_putn(b, s, (size_t)(p - s));
	cm_buf_putc(b, '~');
}

static void end_line(FILE *f, struct cm_buf *line)
{
	while (line->len && line->s[line->len - 1] == ' ')
		line->len--;
	fprintf(f, "%.*s\n", (int)line->len, line->s);
	line->len = 0;
}

/* The header of a column: its name and marks, cut into pieces of at most
 * `w` columns (one line each). */
static char *col_header(const struct an_analysis *a, size_t col)
{
	char *name = an_col_name(a, &a->cols[col]);
	const char *mark = an_col_mark(a, &a->cols[col]);
	char *h;
	if (col == a->base_col && mark)
		h = cm_asprintf("%s (base, %s)", name, mark);
	else if (col == a->base_col)
		h = cm_asprintf("%s (base)", name);
	else if (mark)
		h = cm_asprintf("%s (%s)", name, mark);
	else
		h = cm_strdup(name);
	free(name);
	return h;
}

/* Piece `line` of `n_lines` of a header text broken into `w`-wide pieces,
 * bottom-aligned (the last piece on the last line). */
static void header_piece(const char *h, size_t w, size_t line, size_t n_lines, char *out,
			 size_t len)
{
	size_t hw = str_width(h);
	size_t pieces = hw ? (hw + w - 1) / w : 1;
	out[0] = '\0';
	if (line + pieces < n_lines)
		return;
	size_t piece = line + pieces - n_lines;
	/* skip piece * w code points */
	const char *p = h;
	for (size_t i = 0; i < piece * w && *p; i++) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
	}
	const char *q = p;
	for (size_t i = 0; i < w && *q; i++) {
		q++;
		while (((unsigned char)*q & 0xc0) == 0x80)
			q++;
	}
	snprintf(out, len, "%.*s", (int)(q - p), p);
}

static void print_block(FILE *f, const struct an_analysis *a, const struct block *b, int width)
{
	size_t W = (size_t)width;
	size_t lw = 12;
	for (size_t r = 0; r < b->n; r++) {
		size_t l = str_width(b->rows[r].label);
		if (l > lw)
			lw = l;
	}
	char **heads = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*heads));
	size_t cw = 8;
	for (size_t c = 0; c < b->ncols; c++) {
		heads[c] = col_header(a, b->cols[c]);
		size_t l = str_width(heads[c]);
		if (l > cw)
			cw = l;
		for (size_t r = 0; r < b->n; r++) {
			l = str_width(b->rows[r].cells[c]);
			if (l > cw)
				cw = l;
		}
	}
	cw += 2;
	/* Narrow: headers are broken over lines, then labels are cut. */
	if (lw + cw > W) {
		size_t cells = 0;
		for (size_t c = 0; c < b->ncols; c++) {
			for (size_t r = 0; r < b->n; r++) {
				size_t l = str_width(b->rows[r].cells[c]);
				if (l > cells)
					cells = l;
			}
		}
		cw = cells + 2 > 10 ? cells + 2 : 10;
		if (lw + cw > W)
			lw = W > cw + 4 ? W - cw : 4;
	}
	size_t per = W > lw ? (W - lw) / cw : 1;
	if (per < 1)
		per = 1;
	an_wrap(f, "", 0, b->title, width);
	struct cm_buf line = {NULL, 0, 0};
	for (size_t c0 = 0; c0 < b->ncols; c0 += per) {
		size_t c1 = c0 + per < b->ncols ? c0 + per : b->ncols;
		if (c0)
			fputc('\n', f); /* the next group of columns */
		size_t hlines = 1;
		for (size_t c = c0; c < c1; c++) {
			size_t hw = str_width(heads[c]);
			size_t pieces = (hw + cw - 3) / (cw - 2);
			if (pieces > hlines)
				hlines = pieces;
		}
		for (size_t h = 0; h < hlines; h++) {
			put_left(&line, "", lw);
			for (size_t c = c0; c < c1; c++) {
				char piece[512];
				header_piece(heads[c], cw - 2, h, hlines, piece, sizeof(piece));
				put_right(&line, piece, cw);
			}
			end_line(f, &line);
		}
		for (size_t r = 0; r < b->n; r++) {
			put_left(&line, b->rows[r].label, lw);
			for (size_t c = c0; c < c1; c++)
				put_right(&line, b->rows[r].cells[c], cw);
			end_line(f, &line);
		}
	}
	cm_buf_release(&line);
	for (size_t c = 0; c < b->ncols; c++)
		free(heads[c]);
	free(heads);
}

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct grid g;
	memset(&g, 0, sizeof(g));
	build_grid(&g, a, o);
	int width = o->width > 0 ? o->width : 100;
	struct cm_buf head = {NULL, 0, 0};
	header_text(&head, a);
	an_wrap(f, "", 0, head.s, width);
	cm_buf_release(&head);
	if (an_has_actions(a)) {
		fputc('\n', f);
		an_write_actions_table(f, a, width);
	}
	for (size_t bi = 0; bi < g.n; bi++) {
		fputc('\n', f);
		print_block(f, a, &g.blocks[bi], width);
	}
	fputc('\n', f);
	footer_text(f, a, width, false, an_used_runs(a) > 0, an_any_marked(a));
	grid_free(&g);
}

/* ---- Markdown -------------------------------------------------------------- */

/* Text in a cell or heading: a line break would end the table row. */
static void md_cell(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			fputc(' ', f);
			continue;
		}
		if (*p == '|' || *p == '*' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
}

void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct grid g;
	memset(&g, 0, sizeof(g));
	build_grid(&g, a, o);
	struct cm_buf head = {NULL, 0, 0};
	header_text(&head, a);
	/* Two trailing spaces: a line break in Markdown. */
	char *nl = strchr(head.s, '\n');
	fwrite(head.s, 1, (size_t)(nl - head.s), f);
	fprintf(f, "  %s\n", nl);
	cm_buf_release(&head);
	if (an_has_actions(a)) {
		fputc('\n', f);
		an_write_actions_markdown(f, a);
	}
	for (size_t bi = 0; bi < g.n; bi++) {
		const struct block *b = &g.blocks[bi];
		fputs("\n### ", f);
		md_cell(f, b->title);
		fputs("\n\n|", f);
		for (size_t c = 0; c < b->ncols; c++) {
			fputs(" | ", f);
			char *h = col_header(a, b->cols[c]);
			md_cell(f, h);
			free(h);
		}
		fputs(" |\n|---|", f);
		for (size_t c = 0; c < b->ncols; c++)
			fputs("---:|", f);
		fputc('\n', f);
		const char *parent = "";
		size_t parent_len = 0;
		for (size_t r = 0; r < b->n; r++) {
			fputs("| ", f);
			const char *label = b->rows[r].label;
			if (label[0] != ' ') {
				/* Sub-rows repeat their parent's name: Markdown has no indent. */
				parent = label;
				parent_len = strlen(label);
				if (parent_len > 7 &&
				    strcmp(label + parent_len - 7, " median") == 0)
					parent_len -= 7;
			} else {
				while (*label == ' ')
					label++;
				char *pl = cm_strndup(parent, parent_len);
				md_cell(f, pl);
				free(pl);
				fputc(' ', f);
			}
			md_cell(f, label);
			for (size_t c = 0; c < b->ncols; c++) {
				fputs(" | ", f);
				md_cell(f, b->rows[r].cells[c]);
			}
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);
	footer_text(f, a, 0, true, an_used_runs(a) > 0, an_any_marked(a));
	grid_free(&g);
}

/* ---- the comparison of variants ------------------------------------------- */

static char *compare_row_label(const struct an_analysis *a, const struct an_cmp_row *row,
			       bool *marked)
{
	if (row->col == SIZE_MAX)
		return cm_strdup(a->variants[row->variant].name);
	const struct an_col *c = &a->cols[row->col];
	char *name = an_col_name(a, c);
	const char *mark = an_col_mark(a, c);
	bool base = c->variant == a->baseline_variant && a->n_variants > 1;
	char *label;
	if (base && mark)
		label = cm_asprintf("%s (base, %s)", name, mark);
	else if (base || mark)
		label = cm_asprintf("%s (%s)", name, base ? "base" : mark);
	else
		label = cm_strdup(name);
	*marked |= mark != NULL;
	free(name);
	return label;
}

static void compare_legend(struct cm_buf *b, const struct an_analysis *a, const struct an_cmp *m)
{
	size_t lo = SIZE_MAX, hi = 0;
	bool too_fast = false;
	for (size_t r = 0; r < m->n_rows; r++) {
		for (size_t i = 0; i < m->n_cols; i++) {
			const struct an_cell *c = m->rows[r].cells[i].cell;
			if (!c)
				continue;
			too_fast |= c->too_fast > 0;
			size_t n = c->n + c->too_fast;
			if (!n)
				continue;
			lo = n < lo ? n : lo;
			hi = n > hi ? n : hi;
		}
	}
	cm_buf_puts(b, "each cell: the median over the rounds, (min..max) when there are "
		       "several");
	if (a->n_variants > 1 && a->n_order > 1)
		cm_buf_printf(b,
			      ", and the change of the median against the baseline variant %s "
			      "in the same state, in %s against its baseline state %s (* = "
			      "outside its min..max)",
			      a->variants[a->baseline_variant].name,
			      a->variants[a->baseline_variant].name, a->states[a->baseline].name);
	else if (a->n_variants > 1)
		cm_buf_printf(b,
			      ", and the change of the median against the baseline variant %s "
			      "(* = outside its min..max)",
			      a->variants[a->baseline_variant].name);
	else if (a->n_order > 1)
		cm_buf_printf(b,
			      ", and the change of the median against the baseline state %s "
			      "(* = outside its min..max)",
			      a->states[a->baseline].name);
	if (m->by_size)
		cm_buf_puts(b, ", in the row of its data set's size (tests without one in the "
			       "first row)");
	if (lo == hi)
		cm_buf_printf(b, ".  Rounds per cell: %zu.", lo);
	else if (lo != SIZE_MAX)
		cm_buf_printf(b, ".  Rounds per cell: %zu to %zu.", lo, hi);
	else
		cm_buf_putc(b, '.');
	bool own = false;
	for (size_t i = 0; i < m->n_cols; i++)
		own |= m->cols[i].role < 0;
	if (own)
		cm_buf_puts(b, "  A test's column: IOPS, or MiB/s for blocks of 64 KiB and more.");
	cm_buf_puts(b, "  --table shows every metric.");
	if (m->bonnie)
		cm_buf_puts(b, "\nbonnie++'s tests and the fio suite's side by side: block write = "
			       "put_block, or bon_write's write bandwidth; rewrite = rewrite, or "
			       "bon_rewrite's read bandwidth (an approximation); block read = "
			       "get_block, or bon_read's read bandwidth; random seeks = seeks, or "
			       "bon_seeks's read IOPS.  MiB/s are bonnie++'s K/sec / 1024.  CPU %: "
			       "bonnie++'s %CP, fio's usr_cpu + sys_cpu.");
	if (m->cpu_note)
		cm_buf_printf(b, "  %s.", m->cpu_note);
	if (too_fast)
		cm_buf_puts(b, "\n>N (k too fast), +k too fast: rounds bonnie++ printed as "
			       "+++++ (done in less than 0.5 s), faster than N; left out of the "
			       "median, min..max and every comparison.");
	cm_buf_printf(b,
		      "\nstability: results used (%s) and rejected (listed on stderr), per "
		      "variant.",
		      m->bonnie ? "fio runs, bonnie++ rows" : "fio runs");
}

/* The comparison as printed: the size first, each column and its CPU %,
 * the stability last; a row per row of m. */
struct cmp_table {
	size_t nc, nr;
	char **titles;
	char **labels;
	char ***cells;
	bool marked;
};

static void cmp_table_build(const struct an_analysis *a, const struct an_cmp *m,
			    struct cmp_table *t)
{
	size_t nc = m->by_size ? 1 : 0;
	for (size_t i = 0; i < m->n_cols; i++)
		nc += m->cols[i].cpu ? 2 : 1;
	nc++;
	t->nc = nc;
	t->nr = m->n_rows;
	t->marked = false;
	t->titles = cm_calloc(nc, sizeof(*t->titles));
	size_t ci = 0;
	if (m->by_size)
		t->titles[ci++] = cm_strdup("size");
	for (size_t i = 0; i < m->n_cols; i++) {
		t->titles[ci++] = cm_strdup(m->cols[i].title);
		if (m->cols[i].cpu)
			t->titles[ci++] = cm_strdup("CPU %");
	}
	t->titles[ci++] = cm_strdup("stability");
	size_t nr = t->nr;
	t->cells = cm_calloc(nr ? nr : 1, sizeof(*t->cells));
	t->labels = cm_calloc(nr ? nr : 1, sizeof(*t->labels));
	for (size_t r = 0; r < nr; r++) {
		const struct an_cmp_row *row = &m->rows[r];
		t->labels[r] = compare_row_label(a, row, &t->marked);
		t->cells[r] = cm_calloc(nc, sizeof(**t->cells));
		ci = 0;
		if (m->by_size)
			t->cells[r][ci++] = cm_strdup(row->size && row->size[0] ? row->size : "-");
		for (size_t i = 0; i < m->n_cols; i++) {
			t->cells[r][ci++] = an_cmp_cell_text(&row->cells[i], true);
			if (m->cols[i].cpu)
				t->cells[r][ci++] = an_cmp_cpu_text(&row->cells[i]);
		}
		t->cells[r][ci++] = an_cmp_stability_text(a, row);
	}
}

static void cmp_table_free(struct cmp_table *t)
{
	for (size_t r = 0; r < t->nr; r++) {
		for (size_t c = 0; c < t->nc; c++)
			free(t->cells[r][c]);
		free(t->cells[r]);
		free(t->labels[r]);
	}
	for (size_t c = 0; c < t->nc; c++)
		free(t->titles[c]);
	free(t->cells);
	free(t->labels);
	free(t->titles);
}

void an_write_compare(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		      bool markdown)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	struct cmp_table tab;
	cmp_table_build(a, &m, &tab);
	size_t nc = tab.nc, nr = tab.nr;
	char **titles = tab.titles, **labels = tab.labels, ***cells = tab.cells;
	bool marked = tab.marked;
	struct cm_buf head = {NULL, 0, 0};
	header_text(&head, a);
	struct cm_buf leg = {NULL, 0, 0};
	compare_legend(&leg, a, &m);
	const char *corner = a->n_variants > 1 ? "variant" : "state";
	if (markdown) {
		char *nl = strchr(head.s, '\n');
		fwrite(head.s, 1, (size_t)(nl - head.s), f);
		fprintf(f, "  %s\n\n| %s |", nl, corner);
		for (size_t c = 0; c < nc; c++) {
			fputc(' ', f);
			md_cell(f, titles[c]);
			fputs(" |", f);
		}
		fputs("\n|---|", f);
		for (size_t c = 0; c < nc; c++)
			fputs("---:|", f);
		fputc('\n', f);
		for (size_t r = 0; r < nr; r++) {
			fputs("| ", f);
			md_cell(f, labels[r]);
			fputs(" |", f);
			for (size_t c = 0; c < nc; c++) {
				fputc(' ', f);
				md_cell(f, cells[r][c]);
				fputs(" |", f);
			}
			fputc('\n', f);
		}
		/* a paragraph each */
		fputc('\n', f);
		for (const char *p = leg.s; *p; p++) {
			if (*p == '\n')
				fputc('\n', f);
			fputc(*p, f);
		}
		fputc('\n', f);
		footer_text(f, a, 0, true, false, marked);
	} else {
		int width = o->width > 0 ? o->width : 100;
		size_t W = (size_t)width;
		an_wrap(f, "", 0, head.s, width);
		fputc('\n', f);
		size_t lw = str_width(corner);
		for (size_t r = 0; r < nr; r++) {
			size_t l = str_width(labels[r]);
			lw = l > lw ? l : lw;
		}
		if (lw > W / 2)
			lw = W / 2;
		/* each column as wide as its cells and its title's longest word */
		size_t *cw = cm_calloc(nc ? nc : 1, sizeof(*cw));
		for (size_t c = 0; c < nc; c++) {
			size_t w = 8;
			for (size_t r = 0; r < nr; r++) {
				size_t l = str_width(cells[r][c]);
				w = l > w ? l : w;
			}
			const char *p = titles[c];
			while (*p) {
				size_t n = strcspn(p, " ");
				w = n > w ? n : w;
				p += n;
				while (*p == ' ')
					p++;
			}
			if (w + 2 + lw > W)
				w = W > lw + 2 ? W - lw - 2 : 1;
			cw[c] = w + 2;
		}
		struct cm_buf line = {NULL, 0, 0};
		for (size_t c0 = 0; c0 < nc;) {
			size_t used = lw, c1 = c0;
			while (c1 < nc && (c1 == c0 || used + cw[c1] <= W))
				used += cw[c1++];
			if (c0)
				fputc('\n', f);
			/* titles word-wrapped within their columns, bottom-aligned */
			char ***tl = cm_calloc(c1 - c0, sizeof(*tl));
			size_t *tn = cm_calloc(c1 - c0, sizeof(*tn));
			size_t hl = 1;
			for (size_t c = c0; c < c1; c++) {
				size_t cap = 0;
				const char *p = titles[c];
				struct cm_buf cur = {NULL, 0, 0};
				while (*p) {
					size_t n = strcspn(p, " ");
					if (cur.len && cur.len + 1 + n > cw[c] - 2) {
						char **slot = CM_PUSH(tl[c - c0], tn[c - c0], cap);
						*slot = cm_strdup(cur.s);
						cur.len = 0;
					}
					if (cur.len)
						cm_buf_putc(&cur, ' ');
					cm_buf_putn(&cur, p, n);
					p += n;
					while (*p == ' ')
						p++;
				}
				if (cur.len) {
					char **slot = CM_PUSH(tl[c - c0], tn[c - c0], cap);
					*slot = cm_strdup(cur.s);
				}
				cm_buf_release(&cur);
				hl = tn[c - c0] > hl ? tn[c - c0] : hl;
			}
			for (size_t h = 0; h < hl; h++) {
				put_left(&line, h + 1 == hl ? corner : "", lw);
				for (size_t c = c0; c < c1; c++) {
					size_t off = hl - tn[c - c0];
					put_right(&line, h >= off ? tl[c - c0][h - off] : "",
						  cw[c]);
				}
				end_line(f, &line);
			}
			for (size_t r = 0; r < nr; r++) {
				put_left(&line, labels[r], lw);
				for (size_t c = c0; c < c1; c++)
					put_right(&line, cells[r][c], cw[c]);
				end_line(f, &line);
			}
			for (size_t c = c0; c < c1; c++) {
				for (size_t k = 0; k < tn[c - c0]; k++)
					free(tl[c - c0][k]);
				free(tl[c - c0]);
			}
			free(tl);
			free(tn);
			c0 = c1;
		}
		cm_buf_release(&line);
		free(cw);
		fputc('\n', f);
		an_wrap(f, "", 0, leg.s, width);
		footer_text(f, a, width, false, false, marked);
	}
	cm_buf_release(&head);
	cm_buf_release(&leg);
	cmp_table_free(&tab);
	an_cmp_free(&m);
}

/* ---- the tables for other writers (html.c) ------------------------------------ */

static void visit_grid(const struct an_analysis *a, const struct an_report_opts *o, an_tab_fn fn,
		       void *ctx)
{
	struct grid g;
	memset(&g, 0, sizeof(g));
	build_grid(&g, a, o);
	for (size_t bi = 0; bi < g.n; bi++) {
		const struct block *b = &g.blocks[bi];
		struct an_tab t = {.title = b->title,
				   .test = b->test,
				   .job_index = b->job,
				   .dir = b->dir,
				   .ncols = b->ncols,
				   .cols = b->cols,
				   .nrows = b->n};
		t.heads = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*t.heads));
		t.labels = cm_calloc(b->n ? b->n : 1, sizeof(*t.labels));
		t.cells = cm_calloc(b->n ? b->n : 1, sizeof(*t.cells));
		for (size_t c = 0; c < b->ncols; c++)
			t.heads[c] = col_header(a, b->cols[c]);
		for (size_t r = 0; r < b->n; r++) {
			t.labels[r] = b->rows[r].label;
			t.cells[r] = b->rows[r].cells;
		}
		fn(ctx, &t);
		for (size_t c = 0; c < b->ncols; c++)
			free(t.heads[c]);
		free(t.heads);
		free(t.labels);
		free(t.cells);
	}
	grid_free(&g);
}

static void visit_compare(const struct an_analysis *a, an_tab_fn fn, void *ctx)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	struct cmp_table tab;
	cmp_table_build(a, &m, &tab);
	struct an_tab t = {.test = SIZE_MAX,
			   .dir = FC_DDIR_READ,
			   .ncols = tab.nc,
			   .heads = tab.titles,
			   .nrows = tab.nr,
			   .labels = (const char **)tab.labels,
			   .cells = tab.cells};
	fn(ctx, &t);
	cmp_table_free(&tab);
	an_cmp_free(&m);
}

void an_tables(const struct an_analysis *a, const struct an_report_opts *o, bool compare,
	       an_tab_fn fn, void *ctx)
{
	if (compare)
		visit_compare(a, fn, ctx);
	else
		visit_grid(a, o, fn, ctx);
}

void an_compare_legend(struct cm_buf *b, const struct an_analysis *a)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	compare_legend(b, a, &m);
	an_cmp_free(&m);
}

/* ---- the actions over the repetitions ---------------------------------------- */

/* "2.6 s", "2.6 s (2.5..2.8)"; with list, "91.8 s (79.9, 91.8, 122.9)";
 * "-" for no samples.  Caller frees. */
static char *samples_text(const double *v, size_t n, bool list)
{
	if (!n)
		return cm_strdup("-");
	double m = an_median(v, n);
	if (n == 1)
		return cm_asprintf("%.1f s", m);
	if (list) {
		char *l = an_secs_list(v, n);
		char *s = cm_asprintf("%.1f s (%s)", m, l);
		free(l);
		return s;
	}
	double lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return cm_asprintf("%.1f s (%.1f..%.1f)", m, lo, hi);
}

/* "5 of 5 matched", "4 of 5 matched, DIFFERS"; NULL without checks. */
static char *hash_text_of(size_t checks, size_t matched)
{
	if (!checks)
		return NULL;
	return cm_asprintf("%zu of %zu matched%s", matched, checks,
			   matched < checks ? ", DIFFERS" : "");
}

static char *row_result(const struct an_action_row *r)
{
	char *h = hash_text_of(r->hash_checks, r->hash_matched);
	if (r->problems) {
		char *s = h ? cm_asprintf("%s: %s", h, r->problems) : cm_strdup(r->problems);
		free(h);
		return s;
	}
	return h ? h : cm_strdup(r->n_failed ? "failed" : "ok");
}

static const char *row_name(const struct an_action_row *r)
{
	return r->act->text ? r->act->text : r->act->action ? r->act->action : "?";
}

/* The line above a state's actions: its repetitions, downtime, data back
 * and hash result. */
char *an_action_state_line(const struct an_analysis *a, const struct an_trans_sum *s)
{
	const struct an_transition *t = s->t;
	struct cm_buf b = {NULL, 0, 0};
	cm_buf_puts(&b, a->states[t->state].name);
	if (t->repeat > 1 || t->n_reps > 1)
		cm_buf_printf(&b, ": %zu repetition%s, %zu done", s->n_reps,
			      s->n_reps == 1 ? "" : "s", s->n_done);
	else
		cm_buf_printf(&b, ": %s", t->status ? t->status : "status unknown");
	if (t->repeat > (int)s->n_reps)
		cm_buf_printf(&b, " (repeat = %d)", t->repeat);
	if (s->failed)
		cm_buf_printf(&b, "; FAILED: %s", s->failed);
	/* nothing took the machine away: neither is there to show */
	if (s->n_down || s->n_back) {
		char *d = samples_text(s->down_s, s->n_down, true);
		char *k = samples_text(s->back_s, s->n_back, true);
		cm_buf_printf(&b, "; downtime %s; data back %s", d, k);
		free(d);
		free(k);
	}
	char *h = hash_text_of(t->hash_checks, t->hash_matched);
	if (h)
		cm_buf_printf(&b, "; sha256 %s", h);
	free(h);
	return b.s;
}

const char *const an_action_heads[AN_ACTION_COLS] = {
    "#", "action", "n", "task s (clock)", "median", "stopwatch s", "result"};

void an_action_cells(const struct an_analysis *a, const struct an_transition *t,
		     const struct an_action_row *ar, char **row)
{
	row[0] = cm_asprintf("%zu", ar->index);
	row[1] = cm_strdup(row_name(ar));
	row[2] = cm_asprintf("%zu", ar->n);
	if (ar->n_task) {
		char *l = an_secs_list(ar->task_s, ar->n_task);
		row[3] = cm_asprintf("%s (%s)", l, an_clock_name(a, t, ar->clock));
		free(l);
		double m = an_median(ar->task_s, ar->n_task);
		row[4] = an_secs_list(&m, 1);
	} else {
		row[3] = cm_strdup("-");
		row[4] = cm_strdup("-");
	}
	row[5] = samples_text(ar->watch_s, ar->n_watch, false);
	row[6] = row_result(ar);
}

bool an_trans_sum_shown(const struct an_trans_sum *s)
{
	return s->n_rows || s->n_down || s->failed;
}

void an_write_actions_table(FILE *f, const struct an_analysis *a, int width)
{
	const char *const *head = an_action_heads;
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	struct an_trans_sum *sums = cm_calloc(n ? n : 1, sizeof(*sums));
	size_t w[AN_ACTION_COLS];
	for (size_t c = 0; c < AN_ACTION_COLS; c++)
		w[c] = str_width(head[c]);
	/* the cells first, for the widths of every state's rows */
	size_t n_cells = 0;
	for (size_t i = 0; i < n; i++) {
		an_trans_sum(order[i], &sums[i]);
		n_cells += sums[i].n_rows;
	}
	char **cells = cm_calloc(n_cells * AN_ACTION_COLS + 1, sizeof(*cells));
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < sums[i].n_rows; r++, at++) {
			char **row = cells + at * AN_ACTION_COLS;
			an_action_cells(a, order[i], &sums[i].rows[r], row);
			for (size_t c = 0; c < AN_ACTION_COLS; c++) {
				size_t cw = str_width(row[c]);
				w[c] = cw > w[c] ? cw : w[c];
			}
		}
	}
	/* a long action text (a path) is cut, the result never */
	if (w[1] > 36)
		w[1] = 36;
	an_wrap(f, "", 0,
		"actions: task seconds by the provider's clock, as named; stopwatch by "
		"fiocamp's monotonic clock (median, min..max over the repetitions)",
		width);
	struct cm_buf line = {NULL, 0, 0};
	at = 0;
	for (size_t i = 0; i < n; i++) {
		if (!an_trans_sum_shown(&sums[i])) {
			at += sums[i].n_rows;
			continue; /* nothing happened before it (a baseline) */
		}
		char *title = an_action_state_line(a, &sums[i]);
		fputc('\n', f);
		an_wrap(f, "", 2, title, width);
		free(title);
		if (!sums[i].n_rows) {
			fputs("  (no actions)\n", f);
			continue;
		}
		/* not cut at the width: a problem's text is the point of the row */
		for (size_t r = 0; r <= sums[i].n_rows; r++) {
			const char *const *row =
			    r ? (const char *const *)cells + at++ * AN_ACTION_COLS : head;
			line.len = 0;
			cm_buf_puts(&line, "  ");
			for (size_t c = 0; c + 1 < AN_ACTION_COLS; c++) {
				put_left(&line, row[c], w[c]);
				cm_buf_puts(&line, "  ");
			}
			cm_buf_puts(&line, row[AN_ACTION_COLS - 1]);
			while (line.len && line.s[line.len - 1] == ' ')
				line.s[--line.len] = '\0';
			fprintf(f, "%s\n", line.s);
		}
	}
	cm_buf_release(&line);
	for (size_t i = 0; i < n_cells * AN_ACTION_COLS; i++)
		free(cells[i]);
	free(cells);
	for (size_t i = 0; i < n; i++)
		an_trans_sum_free(&sums[i]);
	free(sums);
	free(order);
}

static bool row_has_task(const struct an_action_row *r)
{
	return r->n_task || r->act->task_name;
}

/* The published measurement's table: path | what the task did | task
 * seconds | our stopwatch | data back | sha256.  One row per action that
 * ran a provider task; a state with none, one row of its actions. */
void an_write_actions_markdown(FILE *f, const struct an_analysis *a)
{
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	fputs("### actions\n\n"
	      "| path | what the task did | task seconds (each; median) | our stopwatch | data "
	      "back | sha256 |\n|---|---|---:|---:|---:|---|\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct an_trans_sum s;
		an_trans_sum(order[i], &s);
		const struct an_transition *t = order[i];
		if (!an_trans_sum_shown(&s)) {
			an_trans_sum_free(&s);
			continue; /* nothing happened before it (a baseline) */
		}
		bool first = true;
		size_t tasks = 0;
		/* a task that failed in every repetition still has its row */
		for (size_t r = 0; r < s.n_rows; r++)
			tasks += row_has_task(&s.rows[r]);
		size_t r = 0;
		for (size_t ln = 0; ln < (tasks ? tasks : 1); ln++) {
			const struct an_action_row *ar = NULL;
			if (tasks) {
				while (!row_has_task(&s.rows[r]))
					r++;
				ar = &s.rows[r++];
			}
			struct cm_buf path = {NULL, 0, 0}, what = {NULL, 0, 0}, task = {NULL, 0, 0};
			cm_buf_puts(&path, a->states[t->state].name);
			if (first && (t->repeat > 1 || t->n_reps > 1))
				cm_buf_printf(&path, " (%zu repetitions)", s.n_reps);
			if (first && s.failed)
				cm_buf_printf(&path, " FAILED: %s", s.failed);
			if (ar) {
				cm_buf_puts(&what, row_name(ar));
				if (ar->act->task_name)
					cm_buf_printf(&what, ": %s", ar->act->task_name);
				if (ar->problems)
					cm_buf_printf(&what, " (%s)", ar->problems);
				if (ar->n_task) {
					char *l = an_secs_list(ar->task_s, ar->n_task);
					double m = an_median(ar->task_s, ar->n_task);
					char *ms = an_secs_list(&m, 1);
					cm_buf_printf(&task, "%s (median %s; %s)", l, ms,
						      an_clock_name(a, t, ar->clock));
					free(l);
					free(ms);
				} else {
					cm_buf_puts(&task, "-");
				}
			} else {
				for (size_t k = 0; k < s.n_rows; k++) {
					cm_buf_printf(&what, "%s%s", k ? ", " : "",
						      row_name(&s.rows[k]));
					if (s.rows[k].problems)
						cm_buf_printf(&what, " (%s)", s.rows[k].problems);
				}
				if (!s.n_rows)
					cm_buf_puts(&what, "(no actions)");
				cm_buf_puts(&task, "-");
			}
			char *watch =
			    ar ? samples_text(ar->watch_s, ar->n_watch, false) : cm_strdup("-");
			char *back = first ? samples_text(s.back_s, s.n_back, true) : cm_strdup("");
			char *hash = first ? hash_text_of(t->hash_checks, t->hash_matched) : NULL;
			/* which repetition's data differed */
			for (size_t k = 0; hash && k < s.n_rows; k++) {
				const struct an_action_row *hr = &s.rows[k];
				if (hr->hash_matched < hr->hash_checks && hr->problems) {
					char *more = cm_asprintf("%s (%s)", hash, hr->problems);
					free(hash);
					hash = more;
				}
			}
			fputs("| ", f);
			md_cell(f, path.s ? path.s : "");
			fputs(" | ", f);
			md_cell(f, what.s ? what.s : "");
			fputs(" | ", f);
			md_cell(f, task.s ? task.s : "");
			fputs(" | ", f);
			md_cell(f, watch);
			fputs(" | ", f);
			md_cell(f, back);
			fputs(" | ", f);
			md_cell(f, hash ? hash : first ? "-" : "");
			fputs(" |\n", f);
			cm_buf_release(&path);
			cm_buf_release(&what);
			cm_buf_release(&task);
			free(watch);
			free(back);
			free(hash);
			first = false;
		}
		an_trans_sum_free(&s);
	}
	fputs("\nTask seconds are the provider's own times of its tasks (Proxmox: the node's "
	      "`starttime` to `endtime`, whole seconds); our stopwatch is fiocamp's monotonic "
	      "clock around the whole action (median, min..max); data back runs from the "
	      "action that took the machine away to the verify-hash that matched.\n",
	      f);
	free(order);
}

char *an_cmp_cell_text(const struct an_cmp_cell *cell, bool change)
{
	const struct an_cell *c = cell->cell;
	if (!c || (!c->sum.n && !c->too_fast))
		return cm_strdup("-");
	char med[32], lo[32], hi[32], pct[32];
	struct cm_buf b = {NULL, 0, 0};
	if (!c->sum.n) {
		/* only "+++++": faster than what it did in 0.5 s */
		an_fmt_short(lo, sizeof(lo), c->too_fast_above);
		if (isfinite(c->too_fast_above))
			cm_buf_printf(&b, ">%s (%zu too fast)", lo, c->too_fast);
		else
			cm_buf_printf(&b, "too fast (%zu)", c->too_fast);
		return cm_buf_take(&b);
	}
	an_fmt_short(med, sizeof(med), c->sum.median);
	an_fmt_short(lo, sizeof(lo), c->sum.min);
	an_fmt_short(hi, sizeof(hi), c->sum.max);
	cm_buf_puts(&b, med);
	if (c->sum.n > 1)
		cm_buf_printf(&b, " (%s..%s)", lo, hi);
	an_fmt_pct(pct, sizeof(pct), cell->change_pct);
	if (change && pct[0])
		cm_buf_printf(&b, " %s%s", pct, cell->outside ? "*" : "");
	if (c->too_fast)
		cm_buf_printf(&b, " +%zu too fast", c->too_fast);
	return cm_buf_take(&b);
}

char *an_cmp_cpu_text(const struct an_cmp_cell *cell)
{
	const struct an_cell *c = cell->cpu;
	if (!c || !c->sum.n)
		return cm_strdup("-");
	char med[32], lo[32], hi[32];
	an_fmt_short(med, sizeof(med), c->sum.median);
	if (c->sum.n == 1)
		return cm_strdup(med);
	an_fmt_short(lo, sizeof(lo), c->sum.min);
	an_fmt_short(hi, sizeof(hi), c->sum.max);
	return cm_asprintf("%s (%s..%s)", med, lo, hi);
}

char *an_cmp_stability_text(const struct an_analysis *a, const struct an_cmp_row *row)
{
	const struct an_variant *v = &a->variants[row->variant];
	if (!row->first)
		return cm_strdup("");
	if (!v->n_rejected)
		return cm_asprintf("%zu ok", v->n_results);
	return cm_asprintf("%zu ok, %zu rejected", v->n_results, v->n_rejected);
}
