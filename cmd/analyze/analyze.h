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

/* ---- output (format.c, report.c) ------------------------------------------ */

struct an_csv {
	char sep;
	char decimal;
};

/* Writes one CSV field with RFC 4180 quoting when it holds the separator, a
 * quote, CR or LF. */
void an_csv_field(struct cm_buf *b, const struct an_csv *c, const char *text);
/* A number with `decimals` places and the dialect's decimal mark; empty for
 * NaN. */
void an_csv_number(struct cm_buf *b, const struct an_csv *c, double v, int decimals);
/* Formats a value for the terminal: 29094, 113.6, 4.25, 1.23M. */
void an_fmt_short(char *buf, size_t len, double v);
/* "+6.6%", "-87.0%", "" for NaN. */
void an_fmt_pct(char *buf, size_t len, double pct);
/* Display width of n bytes of UTF-8 text: code points, not bytes (what we
 * print has no wide glyphs but those job names bring). */
size_t an_text_width(const char *s, size_t n);
/* Writes `text` word-wrapped to `width` columns: the first line starts with
 * `first`, the others with `indent` spaces.  Line breaks in text are kept;
 * a word longer than a line is broken. */
void an_wrap(FILE *f, const char *first, size_t indent, const char *text, int width);

enum an_csv_kind {
	AN_CSV_SUMMARY,
	AN_CSV_ROUNDS,
	AN_CSV_PROFILE,
	AN_CSV_TRANSITIONS,
	AN_CSV_ACTIONS,
	AN_CSV_WIDE,
	AN_CSV_COMPARE,
};

struct an_report_opts {
	struct an_csv csv;
	bool bom;
	bool pct_fraction;	  /* CSV changes as fractions, columns named change* */
	bool metrics[AN_M_COUNT]; /* rows in the table and markdown */
	bool metrics_given;	  /* by --metrics; else bonnie++ tests show theirs */
	int width;		  /* terminal columns */
};

/* Shared by the writers (report.c). */
/* "state", "variant" or "variant / state", as the analysis needs; caller frees. */
char *an_col_name(const struct an_analysis *a, const struct an_col *c);
/* "matched", "DIFFERS", "matched (2 of 2)", "-"; caller frees. */
char *an_integrity_text(const struct an_transition *t);

/* "2, 2, 3" (at most 3 decimals, as few as the values need); caller frees. */
char *an_secs_list(const double *v, size_t n);
/* "the node's clock", "netcup's clock", "the provider's clock"; static or
 * borrowed from the campaign. */
const char *an_clock_name(const struct an_analysis *a, const struct an_transition *t,
			  const char *clock);
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

/* ---- pictures: SVG primitives (svg.c) ----------------------------------------- */

/*
 * Text into XML: & < > " ' as entities, bytes that are not well-formed
 * UTF-8 and characters XML does not allow (control characters, U+FFFE,
 * U+FFFF) as U+FFFD, so that any name from any file gives well-formed XML.
 * C1 controls and DEL become U+FFFD too: they have no glyph.  Tab, CR
 * and LF become spaces: every text we write is one line.
 */
void an_xml_escape(struct cm_buf *b, const char *s, size_t n);
void an_xml_puts(struct cm_buf *b, const char *s);
/*
 * A small formatter for SVG and HTML: %v a double rounded to 0.1 with '.'
 * whatever the locale ("12", "12.5", "-3.1"; 0 for NaN), %s a trusted
 * string as it is, %e a string escaped with an_xml_escape, %z a size_t,
 * %% a percent sign.  Nothing else.
 */
void an_svg_put(struct cm_buf *b, const char *fmt, ...);
/* Up to `max_cols` code points of s; one more would not fit: the text is
 * cut and ends in "…".  Returns whether it was cut. */
bool an_svg_clip(struct cm_buf *out, const char *s, size_t max_cols);
/* The width of text in px at font size `px`, estimated wide enough for
 * DejaVu Sans (the widest of the usual sans-serif fonts). */
double an_svg_text_px(const char *s, double px);

/* The font family every chart names (no web fonts). */
extern const char an_svg_fonts[];
/* Okabe-Ito colours, a marker shape and a dash pattern per series index
 * (cycling): told apart in greyscale and with any colour vision. */
const char *an_svg_colour(size_t i);
enum an_shape {
	AN_SHAPE_CIRCLE,
	AN_SHAPE_SQUARE,
	AN_SHAPE_TRIANGLE,
	AN_SHAPE_DIAMOND,
	AN_SHAPE_TRIANGLE_DOWN,
	AN_SHAPE_CROSS,
	AN_SHAPE_COUNT
};
enum an_shape an_svg_shape(size_t i);
const char *an_svg_dash(size_t i); /* "" for a solid line */
/* A marker of radius r at (x, y) as a path or circle element, with `attrs`
 * (fill, stroke ...) inside the tag; `title` (may be NULL) as its hover text. */
void an_svg_marker(struct cm_buf *b, enum an_shape shape, double x, double y, double r,
		   const char *attrs, const char *title);

/* "Nice" axis ticks over [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of
 * ten, about `want` of them.  *step gets the step; ticks[] the values from
 * the first multiple of step at or below lo to the first at or above hi;
 * returns how many (at most cap). */
size_t an_nice_ticks(double lo, double hi, size_t want, double *step, double *ticks, size_t cap);
/* A tick value in few characters: 0, 250, 1k, 1.5k, 10k, 1.5M, 0.25. */
void an_fmt_tick(char *buf, size_t len, double v, double step);
/*
 * Min/max decimation of n values into `columns` pixel columns: the indices
 * of the minimum and the maximum of each column, in order (one when they
 * coincide; SIZE_MAX where a column holds no finite value, a gap), so that
 * spikes stay visible.  out must hold 2 * columns entries; returns how
 * many were written.  With n <= 2 * columns every index is kept.
 */
size_t an_decimate_minmax(const double *v, size_t n, size_t columns, size_t *out);

/* ---- pictures: the charts (charts.c) and the report (html.c) ------------------ */

enum an_chart_kind {
	AN_CHART_ROUNDS,      /* per test, job, direction, metric: every round */
	AN_CHART_PROFILE,     /* per test, job, direction (and variant): round 1 per second */
	AN_CHART_TRANSITIONS, /* per campaign: actions, tasks, downtime, data back */
	AN_CHART_COMPARE,     /* the variants' headline metrics */
	AN_CHART_KINDS,
};

struct an_chart {
	enum an_chart_kind kind;
	char *file;  /* its --svg file name, unique */
	char *title; /* one line, for a caption */
	size_t test; /* SIZE_MAX for a chart of no one test */
	size_t job_index;
	enum fc_ddir dir;
	char *svg; /* the <svg> element (no XML declaration) */
	size_t svg_len;
};

struct an_charts {
	struct an_chart *v;
	size_t n, cap;
};

/* The kind's file name pattern and what it shows (static), as the man page
 * lists them. */
const char *an_chart_kind_file(enum an_chart_kind k);
const char *an_chart_kind_text(enum an_chart_kind k);

/* Every chart of the analysis, in the order of the report. */
void an_charts_make(struct an_charts *out, const struct an_analysis *a,
		    const struct an_report_opts *o);
void an_charts_release(struct an_charts *c);
/* Writes each chart as DIR/FILE, a standalone SVG file; DIR is made when
 * missing.  0, or -1 with why (naming the file) filled. */
int an_charts_write_dir(const struct an_charts *c, const char *dir, char *why, size_t why_len);

/* The self-contained HTML report (XHTML, so that XML tools read it too):
 * the campaign's facts, the tables, each test with its charts.
 * `generator` names the program and its version. */
void an_write_html(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		   const struct an_charts *c, const char *generator);

#endif
