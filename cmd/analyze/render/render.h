/* SPDX-License-Identifier: MIT */
/*
 * What the writers and the charts render alike: numbers and CSV fields
 * (format.c), the names of columns and results (labels.c), the SVG
 * primitives the charts draw with (svg.c), and what the command line asks
 * of every writer (struct an_report_opts).
 */
#ifndef AN_RENDER_H
#define AN_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "model/model.h"

/* ---- what the writers are asked ------------------------------------------------ */

struct an_csv {
	char sep;
	char decimal;
};

struct an_report_opts {
	struct an_csv csv;
	bool bom;
	bool pct_fraction;	  /* CSV changes as fractions, columns named change* */
	bool metrics[AN_M_COUNT]; /* rows in the table and markdown */
	bool metrics_given;	  /* by --metrics; else bonnie++ tests show theirs */
	int width;		  /* terminal columns */
};

/* ---- numbers, CSV fields, wrapped text (format.c) ------------------------------ */

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
/* The mark of a median some of whose n rounds were disturbed: "!" for
 * some, "!!" for most, "" for none (the table, --compare, the sweeps). */
const char *an_disturbed_mark(size_t disturbed_n, size_t n);
/* Display width of n bytes of UTF-8 text: code points, not bytes (what we
 * print has no wide glyphs but those job names bring). */
size_t an_text_width(const char *s, size_t n);
/* Writes `text` word-wrapped to `width` columns: the first line starts with
 * `first`, the others with `indent` spaces.  Line breaks in text are kept;
 * a word longer than a line is broken. */
void an_wrap(FILE *f, const char *first, size_t indent, const char *text, int width);

/* Terminal text: the display width of s; s right- or left-aligned in w
 * columns (cut with '~' when longer); a line written without its trailing
 * blanks, and emptied. */
size_t an_str_width(const char *s);
void an_put_right(struct cm_buf *b, const char *s, size_t w);
void an_put_left(struct cm_buf *b, const char *s, size_t w);
void an_end_line(FILE *f, struct cm_buf *line);
/* Text in a Markdown cell or heading: no line break; |, * and backslash escaped. */
void an_md_cell(FILE *f, const char *s);
/* A Markdown table: `corner` above the row labels, ncols right-aligned
 * columns under heads, nrows rows of a label and ncols cells. */
void an_md_table(FILE *f, const char *corner, size_t ncols, char *const *heads, size_t nrows,
		 const char *const *labels, char **const *cells);
/* The same as the terminal shows it: the title wrapped to `width`, the
 * labels left, the columns right-aligned, all of one width. */
void an_text_table(FILE *f, int width, const char *title, const char *corner, size_t ncols,
		   char *const *heads, size_t nrows, const char *const *labels,
		   char **const *cells);

/* ---- names and results (labels.c) ------------------------------------------------- */

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
/* "matched", "differs" for a verify-hash's result (1, 0); "" for none (-1).
 * Static. */
const char *an_hash_text(int match);
/* A report format as the outputs name it: "json", "json+", "terse",
 * "normal" ("other" for one libfiocamp learns later). */
const char *an_format_name(enum fc_format f);

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

#endif
