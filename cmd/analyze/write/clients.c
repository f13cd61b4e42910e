/* SPDX-License-Identifier: MIT */
/*
 * The clients of tests run through fio's client/server mode (their shares,
 * stats/clients.c) as tables: per test, a column per state of each
 * variant, per client its IOPS, MiB/s and share of "All clients", the
 * aggregate last; on the terminal, as Markdown, and for the HTML report.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/* "7007 (6862..7151)"; "-" without a value. */
static char *rate_text(double med, double min, double max, size_t n)
{
	if (!n || isnan(med))
		return cm_strdup("-");
	char m[32], lo[32], hi[32];
	an_fmt_short(m, sizeof(m), med);
	if (n == 1 || min == max)
		return cm_strdup(m);
	an_fmt_short(lo, sizeof(lo), min);
	an_fmt_short(hi, sizeof(hi), max);
	return cm_asprintf("%s (%s..%s)", m, lo, hi);
}

static char *share_text(double pct)
{
	return isnan(pct) ? cm_strdup("-") : cm_asprintf("%.1f %%", pct);
}

/* The share of (test, col, client); NULL. */
static const struct an_client_share *share_of(const struct an_analysis *a, size_t test, size_t col,
					      const char *client)
{
	for (size_t i = 0; i < a->n_shares; i++) {
		const struct an_client_share *s = &a->shares[i];
		if (s->test == test && s->col == col && strcmp(s->client, client) == 0)
			return s;
	}
	return NULL;
}

char *an_clients_title(const struct an_analysis *a, size_t test)
{
	return cm_asprintf("%s: each client's share (fio client/server mode)", a->tests[test].name);
}

void an_clients_visit(const struct an_analysis *a, an_tab_fn fn, void *ctx)
{
	for (size_t t = 0; t < a->n_tests; t++) {
		/* its columns, and its clients in order (the aggregate last) */
		size_t *cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*cols));
		size_t ncols = 0;
		const char **clients = NULL;
		size_t nc = 0, cap = 0;
		for (size_t i = 0; i < a->n_shares; i++) {
			const struct an_client_share *s = &a->shares[i];
			if (s->test != t)
				continue;
			if (!ncols || cols[ncols - 1] != s->col)
				cols[ncols++] = s->col;
			bool seen = false;
			for (size_t k = 0; k < nc && !seen; k++)
				seen = strcmp(clients[k], s->client) == 0;
			if (!seen && !s->all)
				*CM_PUSH(clients, nc, cap) = s->client;
		}
		if (!ncols) {
			free(cols);
			continue;
		}
		*CM_PUSH(clients, nc, cap) = "All clients";
		size_t nrows = nc * 3 - 1; /* IOPS, MiB/s, share; the aggregate's share is 100 % */
		const char **labels = cm_calloc(nrows, sizeof(*labels));
		char **own = cm_calloc(nrows, sizeof(*own));
		char ***cells = cm_calloc(nrows, sizeof(*cells));
		char **heads = cm_calloc(ncols, sizeof(*heads));
		for (size_t c = 0; c < ncols; c++)
			heads[c] = an_col_header(a, cols[c]);
		size_t r = 0;
		for (size_t k = 0; k < nc; k++) {
			bool all = k == nc - 1;
			size_t rows = all ? 2 : 3;
			for (size_t q = 0; q < rows; q++, r++) {
				own[r] = q == 0	  ? cm_asprintf("%s IOPS", clients[k])
					 : q == 1 ? cm_strdup("  MiB/s")
						  : cm_strdup("  share");
				labels[r] = own[r];
				cells[r] = cm_calloc(ncols, sizeof(**cells));
				for (size_t c = 0; c < ncols; c++) {
					const struct an_client_share *s =
					    share_of(a, t, cols[c], clients[k]);
					cells[r][c] =
					    !s ? cm_strdup("-")
					    : q == 0
						? rate_text(s->iops, s->iops_min, s->iops_max, s->n)
					    : q == 1
						? rate_text(s->mibs, s->mibs_min, s->mibs_max, s->n)
						: share_text(s->share_pct);
				}
			}
		}
		char *title = an_clients_title(a, t);
		struct an_tab tab = {title, t,	   0,	  FC_DDIR_READ, ncols,
				     cols,  heads, nrows, labels,	cells};
		fn(ctx, &tab);
		free(title);
		for (size_t i = 0; i < nrows; i++) {
			for (size_t c = 0; c < ncols; c++)
				free(cells[i][c]);
			free(cells[i]);
			free(own[i]);
		}
		for (size_t c = 0; c < ncols; c++)
			free(heads[c]);
		free(heads);
		free(cells);
		free(own);
		free(labels);
		free(clients);
		free(cols);
	}
}

struct text_ctx {
	FILE *f;
	int width;
	bool markdown;
};

static void text_table(void *ctx, const struct an_tab *t)
{
	struct text_ctx *x = ctx;
	FILE *f = x->f;
	if (x->markdown) {
		fputs("\n**", f);
		an_md_cell(f, t->title);
		fputs("**\n\n", f);
		an_md_table(f, "", t->ncols, t->heads, t->nrows, t->labels, t->cells);
		return;
	}
	an_text_table(f, x->width, t->title, "", t->ncols, t->heads, t->nrows, t->labels, t->cells);
}

void an_write_clients(FILE *f, const struct an_analysis *a, int width, bool markdown)
{
	struct text_ctx x = {f, width, markdown};
	an_clients_visit(a, text_table, &x);
}
