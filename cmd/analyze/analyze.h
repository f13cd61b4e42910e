/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze internals: inputs (runs and their logs), the statistics
 * computed over them, and the writers.  Built only against the public
 * libfiocamp header.
 *
 * Ownership: every string and array hanging off struct an_analysis is owned
 * by it and released with an_analysis_free(); nothing else frees them.
 */
#ifndef AN_ANALYZE_H
#define AN_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/campaign.h"
#include "common/common.h"
#include "fiocamp.h"
#include "model/model.h"
#include "read/read.h"
#include "stats/stats.h"
#include "render/render.h"
#include "charts/charts.h"

/* ---- output (format.c, report.c) ------------------------------------------ */

enum an_csv_kind {
	AN_CSV_SUMMARY,
	AN_CSV_ROUNDS,
	AN_CSV_PROFILE,
	AN_CSV_TRANSITIONS,
	AN_CSV_ACTIONS,
	AN_CSV_WIDE,
	AN_CSV_COMPARE,
};

/* The actions table's columns and one row's cells (malloc'd), the line
 * above a state's rows, and whether a state has anything to show (report.c). */
#define AN_ACTION_COLS 7
extern const char *const an_action_heads[AN_ACTION_COLS];
void an_action_cells(const struct an_analysis *a, const struct an_transition *t,
		     const struct an_action_row *ar, char **row);
char *an_action_state_line(const struct an_analysis *a, const struct an_trans_sum *s);
bool an_trans_sum_shown(const struct an_trans_sum *s);
/* The terminal and Markdown tables of the actions (report.c). */
void an_write_actions_table(FILE *f, const struct an_analysis *a, int width);
void an_write_actions_markdown(FILE *f, const struct an_analysis *a);

/* "29094 (22900..49674) -12.0%* +1 too fast", ">512 (3 too fast)", "-";
 * the change only with `change`.  Caller frees. */
char *an_cmp_cell_text(const struct an_cmp_cell *cell, bool change);
char *an_cmp_cpu_text(const struct an_cmp_cell *cell);
/* "12 ok", "11 ok, 1 rejected" on a variant's first row, else "". */
char *an_cmp_stability_text(const struct an_analysis *a, const struct an_cmp_row *row);

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
/* The compact comparison: variants (and states) as rows, each test's
 * headline metric as columns; as Markdown when `markdown`. */
void an_write_compare(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		      bool markdown);
void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *o);
/* 0, or -1 when jansson could not encode (out of memory). */
int an_write_json(FILE *f, const struct an_analysis *a);

/* ---- the tables for other writers (report.c) ---------------------------------- */

/* One table as the terminal shows it.  Borrowed: valid during the callback. */
struct an_tab {
	const char *title;
	size_t test;	  /* the test of a block of the grid; SIZE_MAX for the
			     transitions and the comparison */
	size_t job_index; /* with test */
	enum fc_ddir dir; /* with test */
	size_t ncols;
	const size_t *cols; /* indices into a->cols; NULL for the comparison */
	char **heads;	    /* ncols column headers */
	size_t nrows;
	const char **labels; /* nrows row labels; sub-rows start with spaces */
	char ***cells;	     /* nrows x ncols */
};
typedef void (*an_tab_fn)(void *ctx, const struct an_tab *t);
/* The blocks of --table (compare false) or the rows of --compare, in order. */
void an_tables(const struct an_analysis *a, const struct an_report_opts *o, bool compare,
	       an_tab_fn fn, void *ctx);
/* The legends under the table (grid) or the comparison, one paragraph each
 * (static); returns how many, at most 4. */
size_t an_table_legends(const struct an_analysis *a, bool grid, bool marks, const char **paras);
/* The paragraph under the comparison: what a cell holds. */
void an_compare_legend(struct cm_buf *b, const struct an_analysis *a);

/* ---- the report (html.c) --------------------------------------------------------- */

/* The self-contained HTML report (XHTML, so that XML tools read it too):
 * the campaign's facts, the tables, each test with its charts.
 * `generator` names the program and its version. */
void an_write_html(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		   const struct an_charts *c, const char *generator);

#endif
