/* SPDX-License-Identifier: MIT */
/* The grid as Markdown: a table per block, sub-rows named with their parent. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct an_grid g;
	memset(&g, 0, sizeof(g));
	an_grid_build(&g, a, o);
	struct cm_buf head = {NULL, 0, 0};
	an_header_text(&head, a);
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
		const struct an_grid_block *b = &g.blocks[bi];
		fputs("\n### ", f);
		an_md_cell(f, b->title);
		fputs("\n\n|", f);
		for (size_t c = 0; c < b->ncols; c++) {
			fputs(" | ", f);
			char *h = an_col_header(a, b->cols[c]);
			an_md_cell(f, h);
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
				an_md_cell(f, pl);
				free(pl);
				fputc(' ', f);
			}
			an_md_cell(f, label);
			for (size_t c = 0; c < b->ncols; c++) {
				fputs(" | ", f);
				an_md_cell(f, b->rows[r].cells[c]);
			}
			fputs(" |\n", f);
		}
	}
	an_write_sweeps(f, a, 0, true);
	an_write_clients(f, a, 0, true);
	fputc('\n', f);
	an_footer_text(f, a, 0, true, an_used_runs(a) > 0, an_any_marked(a));
	an_grid_free(&g);
}
