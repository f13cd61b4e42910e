/* SPDX-License-Identifier: MIT */
/*
 * The writers, the last stage: what the analysis (model/model.h, with the
 * statistics of stats/) looks like to a reader.  Each writes to a FILE
 * the caller opened; none prints anywhere else, and each says what the
 * analysis noted (warnings, notes) in its own form.
 *
 *   table.c        the terminal table         markdown.c    the same as Markdown
 *   grid.c         the grid both show, its header and footer, and the
 *                  tables the HTML report shows
 *   comparison.c   --compare                  transitions.c the actions table
 *   csv.c          --csv KIND                 json.c        --json
 *   html.c         --html, with the charts (charts/)
 *   sweep.c        the sweeps' tables and saturation points
 *   clients.c      the clients' shares of client/server runs
 */
#ifndef AN_WRITE_H
#define AN_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "charts/charts.h"
#include "model/model.h"
#include "render/render.h"
#include "stats/stats.h"

/* ---- what is written, and where ------------------------------------------------- */

enum an_format {
	AN_FORMAT_DEFAULT, /* not chosen: the table on a terminal, else --csv summary */
	AN_FORMAT_TABLE,
	AN_FORMAT_CSV,
	AN_FORMAT_JSON,
	AN_FORMAT_MARKDOWN,
};

enum an_csv_kind {
	AN_CSV_SUMMARY,
	AN_CSV_ROUNDS,
	AN_CSV_PROFILE,
	AN_CSV_TRANSITIONS,
	AN_CSV_ACTIONS,
	AN_CSV_WIDE,
	AN_CSV_COMPARE,
	AN_CSV_SWEEP,
	AN_CSV_CLIENTS,
};

/* The name of a CSV kind ("summary", ...) as --csv takes it (csv.c); NULL
 * past the last.  Static. */
const char *an_csv_kind_name(enum an_csv_kind k);

/* What the command line asked to be written. */
struct an_output {
	enum an_format format;
	bool compare;	       /* --compare: the comparison, on the terminal or as Markdown */
	enum an_csv_kind csv;  /* with AN_FORMAT_CSV */
	const char *file;      /* -o FILE; NULL: standard output */
	const char *html;      /* --html FILE, "-" for standard output; NULL */
	const char *svg_dir;   /* --svg DIR; NULL */
	bool pictures_only;    /* --html or --svg alone: nothing else is written */
	const char *generator; /* the program and its version, in the HTML report */
};

/* Writes what out asks (output.c): 0, or AN_E_WRITE with err naming the
 * file that could not be written. */
int an_write_report(const struct an_analysis *a, const struct an_report_opts *o,
		    const struct an_output *out, struct an_error *err);

/* What became of the files, one line each on f (messages.c): with runs,
 * every run read and how; the files skipped (each with verbose, else a
 * line per reason when there are more than 3), the files rejected. */
void an_write_files(FILE *f, const struct an_analysis *a, bool verbose, bool runs);
/* --explain (explain.c): how every input was read, one line per run, or
 * with json one JSON document, to `file` (NULL: standard output); 0, or
 * AN_E_WRITE with err filled. */
int an_write_explain(const struct an_analysis *a, bool json, const char *file,
		     struct an_error *err);
/* The warnings and the notes, one line each. */
void an_write_notes(FILE *f, const struct an_analysis *a, bool warnings, bool notes);

/* The grid (table.c). */
void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
/* The grid as Markdown (markdown.c). */
void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
/* The compact comparison (comparison.c): variants (and states) as rows, each test's
 * headline metric as columns; as Markdown when `markdown`. */
void an_write_compare(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		      bool markdown);
/* CSV of a kind (csv.c). */
void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *o);
/* The JSON document (json.c): 0, or -1 when jansson could not encode (out of memory). */
int an_write_json(FILE *f, const struct an_analysis *a);

/* The self-contained HTML report (XHTML, so that XML tools read it too):
 * the campaign's facts, the tables, each test with its charts.
 * `generator` names the program and its version. */
void an_write_html(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		   const struct an_charts *c, const char *generator);

/* ---- shared within write/ --------------------------------------------------------- */

/* The grid of --table (grid.c): a block per test, job and direction (the
 * transitions first), a row per metric and its sub-rows. */
struct an_grid_row {
	char *label;
	char **cells; /* one per column of the block */
};

struct an_grid_block {
	char *title;
	size_t test; /* SIZE_MAX for the transitions */
	size_t job;
	enum fc_ddir dir;
	size_t *cols; /* indices into a->cols */
	size_t ncols;
	struct an_grid_row *rows;
	size_t n, cap;
};

struct an_grid {
	struct an_grid_block *blocks;
	size_t n, cap;
};

void an_grid_build(struct an_grid *g, const struct an_analysis *a, const struct an_report_opts *o);
void an_grid_free(struct an_grid *g);
/* A column's header: its name and marks ("(base, failed)"); caller frees. */
char *an_col_header(const struct an_analysis *a, size_t col);
/* The lines above the table or the comparison (two, '\n' between). */
void an_header_text(struct cm_buf *b, const struct an_analysis *a);
/* The legends (those of the grid with `grid`, that of marked columns with
 * `marks`), the warnings and the notes. */
void an_footer_text(FILE *f, const struct an_analysis *a, int width, bool markdown, bool grid,
		    bool marks);

/* The steady verdicts in lines, each a new string: the campaign's of
 * `rounds = until-steady` into `campaign` ("basis: steady from round 6
 * (window 5)", shown as "until-steady: ..."), the analysis's own per test
 * into `own` ("rw4k (window 5): basis steady from round 5, after not steady
 * over 8 rounds", shown as "steady: ..."). */
void an_steady_lines(const struct an_analysis *a, struct cm_strv *campaign, struct cm_strv *own);

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
/* Each block of --table in order, as a table (grid.c). */
void an_grid_visit(const struct an_analysis *a, const struct an_report_opts *o, an_tab_fn fn,
		   void *ctx);
/* The legends under the table (grid) or the comparison, one paragraph each
 * (static); returns how many, at most AN_LEGENDS_MAX. */
#define AN_LEGENDS_MAX 5
size_t an_table_legends(const struct an_analysis *a, bool grid, bool marks, const char **paras);
/* The paragraph under the comparison: what a cell holds. */
void an_compare_legend(struct cm_buf *b, const struct an_analysis *a);

/* The comparison as one table (comparison.c). */
void an_compare_visit(const struct an_analysis *a, an_tab_fn fn, void *ctx);

/* The actions table's columns and one row's cells (malloc'd), the line
 * above a state's rows, and whether a state has anything to show (transitions.c). */
#define AN_ACTION_COLS 7
extern const char *const an_action_heads[AN_ACTION_COLS];
void an_action_cells(const struct an_analysis *a, const struct an_transition *t,
		     const struct an_action_row *ar, char **row);
char *an_action_state_line(const struct an_analysis *a, const struct an_trans_sum *s);
bool an_trans_sum_shown(const struct an_trans_sum *s);
/* The terminal and Markdown tables of the actions (transitions.c). */
void an_write_actions_table(FILE *f, const struct an_analysis *a, int width);
void an_write_actions_markdown(FILE *f, const struct an_analysis *a);

/* The sweeps (sweep.c): each one's tables, per column (t->job_index
 * holds the column) the headline's, then p99's, rows and columns the
 * swept options; borrowed during the callback. */
void an_sweep_visit(const struct an_analysis *a, size_t sweep, an_tab_fn fn, void *ctx);
/* "Sweep rr4k: iodepth x numjobs"; caller frees. */
char *an_sweep_title(const struct an_analysis *a, size_t sweep);
/* "IOPS" or "MiB/s"; static. */
const char *an_sweep_headline(const struct an_sweep *s);
/* The saturation point of a column in words, one sentence; NULL when the
 * sweep has no queue depth or job count.  Caller frees. */
char *an_sweep_saturation_text(const struct an_analysis *a, size_t sweep, size_t col);
/* Every sweep's tables on the terminal, or as Markdown. */
void an_write_sweeps(FILE *f, const struct an_analysis *a, int width, bool markdown);

/* The clients of fio's client/server mode (clients.c): per test a table
 * of each client's IOPS, MiB/s and share of "All clients" per column;
 * borrowed during the callback.  Its title; caller frees.  Every test's
 * table on the terminal, or as Markdown. */
void an_clients_visit(const struct an_analysis *a, an_tab_fn fn, void *ctx);
char *an_clients_title(const struct an_analysis *a, size_t test);
void an_write_clients(FILE *f, const struct an_analysis *a, int width, bool markdown);

/* Accepted runs by column, test and round (csv.c, for CSV and JSON). */
struct an_run_order {
	size_t run, col, test;
	int round;
};
/* *out is malloc'd; returns how many. */
size_t an_runs_in_order(const struct an_analysis *a, struct an_run_order **out);

#endif
