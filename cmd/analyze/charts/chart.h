/* SPDX-License-Identifier: MIT */
/*
 * What the charts share (chart.c): their sizes and styles, value axes,
 * legends, the list they are added to, and the titles and file names of
 * a block of the grid.  Each kind of chart is a file of its own (rounds.c,
 * profile.c, transitions.c, compare.c, sweep.c); charts.h is what the writers see.
 */
#ifndef AN_CHART_H
#define AN_CHART_H

#include "charts/charts.h"
#include "render/render.h"
#include "stats/stats.h"

#define AN_FONT_PX	11.0
#define AN_TITLE_PX	14.0
#define AN_CHART_WIDTH	640.0
#define AN_MAX_TICKS	40
#define AN_GRID_COLOUR	"#d9d9d9"
#define AN_AXIS_COLOUR	"#333"
#define AN_BAND_ATTRS	"fill=\"#000\" fill-opacity=\"0.08\""
#define AN_BAND_EDGE	"stroke=\"#555\" stroke-width=\"1\" stroke-dasharray=\"4 3\""
#define AN_ROUND1_ATTRS "fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.6\""

struct an_axis {
	double lo, hi, step;
	size_t n;
	double t[AN_MAX_TICKS];
};

enum an_leg_kind {
	AN_LEG_MARKER,
	AN_LEG_LINE,
	AN_LEG_BAND,
	AN_LEG_BAR,
	AN_LEG_SWATCH,
	AN_LEG_WHISKER,
	AN_LEG_TEXT
};

struct an_leg {
	enum an_leg_kind kind;
	enum an_shape shape;
	const char *colour;
	const char *dash;
	char attrs[128]; /* of the marker */
	char *text;
};

struct an_legend {
	struct an_leg *v;
	size_t n, cap;
};

#define AN_LEG_ROW 17.0

void an_axis_make(struct an_axis *ax, double lo, double hi, size_t want);

/* v on the axis, mapped to [p0, p1]; values beyond it are held at its ends. */
double an_axis_map(const struct an_axis *ax, double v, double p0, double p1);

double an_axis_label_px(const struct an_axis *ax);

/* The index of a column's colour, shape and dash: its state's place when
 * states are compared, else its variant's. */
size_t an_chart_style(const struct an_analysis *a, size_t col);

void an_chart_open(struct cm_buf *b, double w, double h, const char *title, const char *subtitle);

/* Horizontal grid lines and tick labels of a value axis on the left. */
void an_y_axis(struct cm_buf *b, const struct an_axis *ax, double x0, double x1, double y0,
	       double y1, const char *label);

/* Vertical grid lines and tick labels of a value axis at the bottom. */
void an_x_axis(struct cm_buf *b, const struct an_axis *ax, double x0, double x1, double y0,
	       double y1, const char *label, double scale);

struct an_leg *an_leg_add(struct an_legend *l, enum an_leg_kind kind, const char *colour,
			  const char *text);

void an_legend_release(struct an_legend *l);

/* Rows the legend takes in `width` px. */
size_t an_legend_rows(const struct an_legend *l, double width);

void an_legend_draw(struct cm_buf *b, const struct an_legend *l, double x0, double y0,
		    double width);

/* Letters, digits, '.', '_' stay; every run of anything else is one '-'. */
void an_chart_slug(struct cm_buf *b, const char *s);

struct an_chart *an_chart_add(struct an_charts *out, enum an_chart_kind kind, struct cm_buf *file,
			      char *title, struct cm_buf *svg);

bool an_several_jobs(const struct an_analysis *a, size_t test);

/* "cached4k: read" as the table's block title says it. */
void an_block_title(struct cm_buf *b, const struct an_analysis *a, const struct an_series *s);

/* "TEST[-jobN]-DIRECTION" of the file names. */
void an_block_file(struct cm_buf *b, const char *kind, const struct an_analysis *a,
		   const struct an_series *s);

/* "IOPS", "MiB/s", "clat p99 (µs)": the table's label with its unit apart. */
char *an_axis_title(enum an_metric m, enum fc_log_type lt);

const char *an_value_unit(enum an_metric m, enum fc_log_type lt);

/* A column's change against the column the table compares it with. */
void an_col_change(const struct an_analysis *a, const struct an_series *s, size_t col, double *pct,
		   bool *outside, size_t *ref);

/* Whether the columns hold a round 1, and other rounds. */
void an_rounds_seen(const struct an_series *s, const size_t *cols, size_t nc, bool *r1, bool *rest);

/* "round 1", "rounds 2..n" as far as there are such, and "median". */
void an_round_legend(struct an_legend *leg, bool r1, bool rest);

/* ---- the kinds ------------------------------------------------------------------- */

/* Every round of series s (rounds.c). */
void an_chart_rounds(struct an_charts *out, const struct an_analysis *a, const struct an_series *s);
/* Round 1 per second of a test, job and direction in one variant (profile.c). */
void an_chart_profile(struct an_charts *out, const struct an_analysis *a,
		      const struct an_series *first, const struct an_series *rec, size_t variant);
/* The transitions of a campaign (transitions.c). */
void an_chart_transitions(struct an_charts *out, const struct an_analysis *a, size_t campaign);
/* The variants compared (compare.c). */
void an_chart_compare(struct an_charts *out, const struct an_analysis *a);
/* A sweep's headline against its swept option, and p99 against the headline
 * (sweep.c). */
void an_chart_sweep(struct an_charts *out, const struct an_analysis *a, size_t sweep);

#endif
