/* SPDX-License-Identifier: MIT */
/* The terminal table: each block of the grid within the width, its column
 * headers broken over lines, the labels cut when it is narrow. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/* Piece `line` of `n_lines` of a header text broken into `w`-wide pieces,
 * bottom-aligned (the last piece on the last line). */
static void header_piece(const char *h, size_t w, size_t line, size_t n_lines, char *out,
			 size_t len)
{
	size_t hw = an_str_width(h);
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

static void print_block(FILE *f, const struct an_analysis *a, const struct an_grid_block *b,
			int width)
{
	size_t W = (size_t)width;
	size_t lw = 12;
	for (size_t r = 0; r < b->n; r++) {
		size_t l = an_str_width(b->rows[r].label);
		if (l > lw)
			lw = l;
	}
	char **heads = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*heads));
	size_t cw = 8;
	for (size_t c = 0; c < b->ncols; c++) {
		heads[c] = an_col_header(a, b->cols[c]);
		size_t l = an_str_width(heads[c]);
		if (l > cw)
			cw = l;
		for (size_t r = 0; r < b->n; r++) {
			l = an_str_width(b->rows[r].cells[c]);
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
				size_t l = an_str_width(b->rows[r].cells[c]);
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
			size_t hw = an_str_width(heads[c]);
			size_t pieces = (hw + cw - 3) / (cw - 2);
			if (pieces > hlines)
				hlines = pieces;
		}
		for (size_t h = 0; h < hlines; h++) {
			an_put_left(&line, "", lw);
			for (size_t c = c0; c < c1; c++) {
				char piece[512];
				header_piece(heads[c], cw - 2, h, hlines, piece, sizeof(piece));
				an_put_right(&line, piece, cw);
			}
			an_end_line(f, &line);
		}
		for (size_t r = 0; r < b->n; r++) {
			an_put_left(&line, b->rows[r].label, lw);
			for (size_t c = c0; c < c1; c++)
				an_put_right(&line, b->rows[r].cells[c], cw);
			an_end_line(f, &line);
		}
	}
	cm_buf_release(&line);
	for (size_t c = 0; c < b->ncols; c++)
		free(heads[c]);
	free(heads);
}

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct an_grid g;
	memset(&g, 0, sizeof(g));
	an_grid_build(&g, a, o);
	int width = o->width > 0 ? o->width : 100;
	struct cm_buf head = {NULL, 0, 0};
	an_header_text(&head, a);
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
	an_write_sweeps(f, a, width, false);
	an_write_clients(f, a, width, false);
	fputc('\n', f);
	an_footer_text(f, a, width, false, an_used_runs(a) > 0, an_any_marked(a));
	an_grid_free(&g);
}
