/* SPDX-License-Identifier: MIT */
/*
 * The comparison of variants as --compare shows it (stats/compare.c builds
 * it): a row per state of each variant, a column per test's headline
 * metric, the CPU beside it, the stability last; on the terminal, as
 * Markdown, and as a table for the HTML report.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

static char *cell_text(const struct an_cmp_cell *cell, bool change)
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
	/* as in the table: most of its rounds disturbed !!, some ! */
	cm_buf_puts(&b, an_disturbed_mark(c->disturbed_n, c->n));
	if (c->too_fast)
		cm_buf_printf(&b, " +%zu too fast", c->too_fast);
	return cm_buf_take(&b);
}

static char *cpu_text(const struct an_cmp_cell *cell)
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

static char *stability_text(const struct an_analysis *a, const struct an_cmp_row *row)
{
	const struct an_variant *v = &a->variants[row->variant];
	if (!row->first)
		return cm_strdup("");
	if (!v->n_rejected)
		return cm_asprintf("%zu ok", v->n_results);
	return cm_asprintf("%zu ok, %zu rejected", v->n_results, v->n_rejected);
}

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
	bool too_fast = false, disturbed = false;
	for (size_t r = 0; r < m->n_rows; r++) {
		for (size_t i = 0; i < m->n_cols; i++) {
			const struct an_cell *c = m->rows[r].cells[i].cell;
			if (!c)
				continue;
			too_fast |= c->too_fast > 0;
			disturbed |= c->disturbed_n > 0;
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
	if (disturbed)
		cm_buf_puts(b, "\n! = some of the cell's rounds were disturbed (the campaign's "
			       "telemetry), !! = most of them; --exclude-disturbed leaves them "
			       "out.");
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
			t->cells[r][ci++] = cell_text(&row->cells[i], true);
			if (m->cols[i].cpu)
				t->cells[r][ci++] = cpu_text(&row->cells[i]);
		}
		t->cells[r][ci++] = stability_text(a, row);
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

/* The comparison as Markdown: a table, the legend's paragraphs, the footer. */
static void compare_markdown(FILE *f, const struct an_analysis *a, const struct cmp_table *t,
			     const char *head, const char *leg, const char *corner)
{
	size_t nc = t->nc, nr = t->nr;
	char **titles = t->titles, **labels = t->labels, ***cells = t->cells;
	char *nl = strchr(head, '\n');
	fwrite(head, 1, (size_t)(nl - head), f);
	fprintf(f, "  %s\n\n", nl);
	an_md_table(f, corner, nc, titles, nr, (const char *const *)labels, cells);
	/* a paragraph each */
	fputc('\n', f);
	for (const char *p = leg; *p; p++) {
		if (*p == '\n')
			fputc('\n', f);
		fputc(*p, f);
	}
	fputc('\n', f);
	an_footer_text(f, a, 0, true, false, t->marked);
}

/* The comparison on the terminal: the columns within the width, as many
 * groups of them as it takes, the titles wrapped in their columns. */
static void compare_terminal(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
			     const struct cmp_table *t, const char *head, const char *leg,
			     const char *corner)
{
	size_t nc = t->nc, nr = t->nr;
	char **titles = t->titles, **labels = t->labels, ***cells = t->cells;
	int width = o->width > 0 ? o->width : 100;
	size_t W = (size_t)width;
	an_wrap(f, "", 0, head, width);
	fputc('\n', f);
	size_t lw = an_str_width(corner);
	for (size_t r = 0; r < nr; r++) {
		size_t l = an_str_width(labels[r]);
		lw = l > lw ? l : lw;
	}
	if (lw > W / 2)
		lw = W / 2;
	/* each column as wide as its cells and its title's longest word */
	size_t *cw = cm_calloc(nc ? nc : 1, sizeof(*cw));
	for (size_t c = 0; c < nc; c++) {
		size_t w = 8;
		for (size_t r = 0; r < nr; r++) {
			size_t l = an_str_width(cells[r][c]);
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
			an_put_left(&line, h + 1 == hl ? corner : "", lw);
			for (size_t c = c0; c < c1; c++) {
				size_t off = hl - tn[c - c0];
				an_put_right(&line, h >= off ? tl[c - c0][h - off] : "", cw[c]);
			}
			an_end_line(f, &line);
		}
		for (size_t r = 0; r < nr; r++) {
			an_put_left(&line, labels[r], lw);
			for (size_t c = c0; c < c1; c++)
				an_put_right(&line, cells[r][c], cw[c]);
			an_end_line(f, &line);
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
	an_wrap(f, "", 0, leg, width);
	an_footer_text(f, a, width, false, false, t->marked);
}

void an_write_compare(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		      bool markdown)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	struct cmp_table tab;
	cmp_table_build(a, &m, &tab);
	struct cm_buf head = {NULL, 0, 0};
	an_header_text(&head, a);
	struct cm_buf leg = {NULL, 0, 0};
	compare_legend(&leg, a, &m);
	const char *corner = a->n_variants > 1 ? "variant" : "state";
	if (markdown)
		compare_markdown(f, a, &tab, head.s, leg.s, corner);
	else
		compare_terminal(f, a, o, &tab, head.s, leg.s, corner);
	cm_buf_release(&head);
	cm_buf_release(&leg);
	cmp_table_free(&tab);
	an_cmp_free(&m);
}

void an_compare_visit(const struct an_analysis *a, an_tab_fn fn, void *ctx)
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

void an_compare_legend(struct cm_buf *b, const struct an_analysis *a)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	compare_legend(b, a, &m);
	an_cmp_free(&m);
}
