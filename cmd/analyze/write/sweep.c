/* SPDX-License-Identifier: MIT */
/*
 * The sweeps (stats/sweep.c) as tables: per sweep, state and variant and
 * metric (the headline, IOPS or MiB/s, and p99 latency), the first swept
 * option as rows and the second as columns, each cell the median over the
 * rounds and its change against the reference column (an_ref_col); under
 * them the saturation point in words.  On the terminal, as Markdown, and
 * as tables for the HTML report.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

const char *an_sweep_headline(const struct an_sweep *s)
{
	return s->bandwidth ? "MiB/s" : "IOPS";
}

char *an_sweep_title(const struct an_analysis *a, size_t si)
{
	const struct an_sweep *s = &a->sweeps[si];
	if (s->n_opts == 2)
		return cm_asprintf("Sweep %s: %s x %s", s->label, s->opts[0], s->opts[1]);
	return cm_asprintf("Sweep %s: %s", s->label, s->opts[0]);
}

char *an_sweep_saturation_text(const struct an_analysis *a, size_t si, size_t col)
{
	const struct an_sweep *s = &a->sweeps[si];
	if (s->load < 0)
		return NULL;
	const char *load = s->opts[s->load];
	size_t other = s->load == 0 ? 1 : 0;
	struct cm_buf b = {NULL, 0, 0};
	cm_buf_puts(&b, "Saturation point: ");
	for (size_t line = 0; line < s->n_lines; line++) {
		int sat = s->saturation[col * s->n_lines + line];
		if (line)
			cm_buf_puts(&b, "; ");
		if (s->n_lines > 1)
			cm_buf_printf(&b, "%s %s: ", s->opts[other], s->values[other][line]);
		if (sat >= 0)
			cm_buf_printf(&b, "%s %s", load, s->values[s->load][sat]);
		else if (sat == -1)
			cm_buf_puts(&b, "not reached");
		else
			cm_buf_puts(&b, "not known (too few points)");
	}
	cm_buf_printf(&b,
		      " (the lowest %s beyond which %s grows by less than 10 %% while p99 "
		      "latency grows by more than 50 %%)",
		      load, an_sweep_headline(s));
	cm_buf_putc(&b, '.');
	return b.s;
}

/* The cell text of a point: the median, and its change against the
 * reference column. */
static char *cell_text(const struct an_sweep_cell *x, bool p99, bool bw, bool changes)
{
	double v = p99 ? x->p99_med : bw ? x->mibs_med : x->iops_med;
	if (!isfinite(v))
		return cm_strdup("-");
	char num[32], pct[32];
	an_fmt_short(num, sizeof(num), v);
	/* marked as the table marks the median: disturbed rounds in it */
	const char *mark = an_disturbed_mark(x->disturbed_n, x->n);
	double ch = p99 ? x->p99_change_pct : x->change_pct;
	if (!changes || !isfinite(ch))
		return cm_asprintf("%s%s", num, mark);
	an_fmt_pct(pct, sizeof(pct), ch);
	return cm_asprintf("%s %s%s", num, pct, mark);
}

void an_sweep_visit(const struct an_analysis *a, size_t si, an_tab_fn fn, void *ctx)
{
	const struct an_sweep *s = &a->sweeps[si];
	size_t nr = s->n_values[0];
	size_t nc = s->n_opts == 2 ? s->n_values[1] : 1;
	char **labels = cm_calloc(nr, sizeof(*labels));
	char **heads = cm_calloc(nc, sizeof(*heads));
	for (size_t r = 0; r < nr; r++)
		labels[r] = cm_asprintf("%s %s", s->opts[0], s->values[0][r]);
	char ***cells = cm_calloc(nr, sizeof(*cells));
	for (size_t r = 0; r < nr; r++)
		cells[r] = cm_calloc(nc, sizeof(**cells));
	for (size_t col = 0; col < a->n_cols; col++) {
		char *name = an_col_header(a, col);
		size_t ref = an_ref_col(a, col);
		bool changes = ref != SIZE_MAX;
		char *ref_name = changes ? an_col_name(a, &a->cols[ref]) : NULL;
		for (int m = 0; m < 2; m++) {
			bool p99 = m == 1;
			const char *metric = p99	    ? "p99 latency (us)"
					     : s->bandwidth ? "MiB/s median"
							    : "IOPS median";
			for (size_t c = 0; c < nc; c++)
				heads[c] = s->n_opts == 2
					       ? cm_asprintf("%s %s", s->opts[1], s->values[1][c])
					       : cm_strdup(metric);
			for (size_t p = 0; p < s->n_points; p++) {
				const struct an_sweep_point *pt = &s->points[p];
				size_t c = s->n_opts == 2 ? pt->at[1] : 0;
				cells[pt->at[0]][c] = cell_text(an_sweep_cell(a, s, p, col), p99,
								s->bandwidth, changes);
			}
			char *title = changes ? cm_asprintf("%s, %s (change against %s)", metric,
							    name, ref_name)
					      : cm_asprintf("%s, %s", metric, name);
			struct an_tab t = {.title = title,
					   .test = SIZE_MAX,
					   .job_index = col, /* the column, for the HTML charts */
					   .dir = FC_DDIR_READ,
					   .ncols = nc,
					   .cols = NULL,
					   .heads = heads,
					   .nrows = nr,
					   .labels = (const char **)labels,
					   .cells = cells};
			fn(ctx, &t);
			free(title);
			for (size_t c = 0; c < nc; c++) {
				free(heads[c]);
				heads[c] = NULL;
			}
			for (size_t r = 0; r < nr; r++)
				for (size_t c = 0; c < nc; c++) {
					free(cells[r][c]);
					cells[r][c] = NULL;
				}
		}
		free(name);
		free(ref_name);
	}
	for (size_t r = 0; r < nr; r++) {
		free(labels[r]);
		free(cells[r]);
	}
	free(labels);
	free(heads);
	free(cells);
}

/* ---- the terminal and Markdown ------------------------------------------------ */

struct text_ctx {
	FILE *f;
	const struct an_analysis *a;
	size_t sweep;
	int width;
	bool markdown;
	size_t tables; /* of the sweep so far */
};

static void saturation_after(struct text_ctx *x, size_t col)
{
	char *sat = an_sweep_saturation_text(x->a, x->sweep, col);
	if (!sat)
		return;
	if (x->markdown)
		fprintf(x->f, "%s\n\n", sat);
	else
		an_wrap(x->f, "", 0, sat, x->width);
	free(sat);
}

static void text_table(void *ctx, const struct an_tab *t)
{
	struct text_ctx *x = ctx;
	FILE *f = x->f;
	const char *corner = "";
	if (x->markdown) {
		fprintf(f, "**%s**\n\n", t->title);
		an_md_table(f, corner, t->ncols, t->heads, t->nrows, t->labels, t->cells);
		fputc('\n', f);
	} else {
		an_text_table(f, x->width, t->title, corner, t->ncols, t->heads, t->nrows,
			      t->labels, t->cells);
	}
	/* the saturation under a column's second table, its p99 */
	if (++x->tables % 2 == 0)
		saturation_after(x, t->job_index);
}

void an_write_sweeps(FILE *f, const struct an_analysis *a, int width, bool markdown)
{
	for (size_t si = 0; si < a->n_sweeps; si++) {
		char *title = an_sweep_title(a, si);
		if (markdown)
			fprintf(f, "\n## %s\n\n", title);
		else {
			fputc('\n', f);
			an_wrap(f, "", 0, title, width);
		}
		free(title);
		struct text_ctx x = {f, a, si, width, markdown, 0};
		an_sweep_visit(a, si, text_table, &x);
	}
}
