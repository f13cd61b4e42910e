/* SPDX-License-Identifier: MIT */
/*
 * The charts of the report, each a standalone <svg> element: every round
 * per test and metric, round 1's per-second profile over the baseline band,
 * the state transitions, and the comparison of variants.  Nothing in them
 * depends on time, locale or memory addresses, so that the same analysis
 * gives the same bytes (the tests compare them with golden files).
 *
 * Colours follow a column's state (or its variant when there is one state)
 * in every chart; shapes and dashes tell them apart without colour.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze.h"

static const struct {
	const char *file, *text;
} kinds[AN_CHART_KINDS] = {
    [AN_CHART_ROUNDS] = {"rounds-TEST[-jobN]-DIRECTION-METRIC.svg",
			 "every round of a test as a dot per state and variant (round 1 a "
			 "hollow diamond), the median as a bar, the baseline's min..max as a "
			 "shaded band; one chart per metric of the table (--metrics)"},
    [AN_CHART_PROFILE] = {"profile-TEST[-jobN]-DIRECTION[-VARIANT].svg",
			  "the per-second log of each state's round 1 over the baseline's "
			  "per-second p10..p90 band, the second it got back into the band "
			  "ringed; long logs drawn as the minimum and maximum of each pixel "
			  "column"},
    [AN_CHART_TRANSITIONS] = {"transitions[-CAMPAIGN].svg",
			      "per state: each action's seconds by fiocamp's stopwatch and "
			      "by the provider's task, the downtime and the data back time"},
    [AN_CHART_COMPARE] = {"compare.svg",
			  "with several variants: each test's headline metric (IOPS, or "
			  "MiB/s for blocks of 64 KiB and more) per variant and state, the "
			  "median as a bar, min..max as a whisker, every round as a dot"},
};

const char *an_chart_kind_file(enum an_chart_kind k)
{
	return (unsigned)k < AN_CHART_KINDS ? kinds[k].file : "?";
}

const char *an_chart_kind_text(enum an_chart_kind k)
{
	return (unsigned)k < AN_CHART_KINDS ? kinds[k].text : "?";
}

/* ---- shared layout ------------------------------------------------------------- */

#define FONT_PX	     11.0
#define TITLE_PX     14.0
#define WIDTH	     640.0
#define MAX_TICKS    40
#define GRID_COLOUR  "#d9d9d9"
#define AXIS_COLOUR  "#333"
#define BAND_ATTRS   "fill=\"#000\" fill-opacity=\"0.08\""
#define BAND_EDGE    "stroke=\"#555\" stroke-width=\"1\" stroke-dasharray=\"4 3\""
#define ROUND1_ATTRS "fill=\"#fff\" stroke=\"#000\" stroke-width=\"1.6\""

struct axis {
	double lo, hi, step;
	size_t n;
	double t[MAX_TICKS];
};

static void axis_make(struct axis *ax, double lo, double hi, size_t want)
{
	ax->n = an_nice_ticks(lo, hi, want, &ax->step, ax->t, MAX_TICKS);
	ax->lo = ax->t[0];
	ax->hi = ax->t[ax->n - 1];
	if (!(ax->hi > ax->lo))
		ax->hi = ax->lo + 1;
}

/* v on the axis, mapped to [p0, p1]; values beyond it are held at its ends. */
static double amap(const struct axis *ax, double v, double p0, double p1)
{
	double f = (v - ax->lo) / (ax->hi - ax->lo);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return p0 + f * (p1 - p0);
}

static double axis_label_px(const struct axis *ax)
{
	double w = 0;
	for (size_t i = 0; i < ax->n; i++) {
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i], ax->step);
		double tw = an_svg_text_px(buf, FONT_PX);
		w = tw > w ? tw : w;
	}
	return w;
}

/* The index of a column's colour, shape and dash: its state's place when
 * states are compared, else its variant's. */
static size_t style_of(const struct an_analysis *a, size_t col)
{
	const struct an_col *c = &a->cols[col];
	if (a->n_order < 2)
		return c->variant;
	for (size_t i = 0; i < a->n_order; i++) {
		if (a->order[i] == c->state)
			return i;
	}
	return a->n_order;
}

static void chart_open(struct cm_buf *b, double w, double h, const char *title,
		       const char *subtitle)
{
	an_svg_put(b,
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%v\" height=\"%v\" "
		   "viewBox=\"0 0 %v %v\" font-family=\"%s\" font-size=\"11\" role=\"img\">\n"
		   "<title>%e</title>\n<rect width=\"%v\" height=\"%v\" fill=\"#fff\"/>\n",
		   w, h, w, h, an_svg_fonts, title, w, h);
	struct cm_buf t = {NULL, 0, 0};
	an_svg_clip(&t, title, (size_t)((w - 24) / (TITLE_PX * 0.62)));
	an_svg_put(b, "<text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%e</text>\n",
		   t.s);
	if (subtitle && *subtitle) {
		t.len = 0;
		an_svg_clip(&t, subtitle, (size_t)((w - 24) / (FONT_PX * 0.62)));
		an_svg_put(b, "<text x=\"12\" y=\"36\" fill=\"#444\">%e</text>\n", t.s);
	}
	cm_buf_release(&t);
}

/* Horizontal grid lines and tick labels of a value axis on the left. */
static void y_axis(struct cm_buf *b, const struct axis *ax, double x0, double x1, double y0,
		   double y1, const char *label)
{
	for (size_t i = 0; i < ax->n; i++) {
		double y = amap(ax, ax->t[i], y1, y0);
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i], ax->step);
		an_svg_put(b,
			   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
			   "<text x=\"%v\" y=\"%v\" text-anchor=\"end\" fill=\"#333\">%e</text>\n",
			   x0, y, x1, y, i ? GRID_COLOUR : AXIS_COLOUR, x0 - 5, y + 4, buf);
	}
	an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0, y0, x0,
		   y1, AXIS_COLOUR);
	double ym = (y0 + y1) / 2;
	an_svg_put(b,
		   "<text transform=\"rotate(-90 15 %v)\" x=\"15\" y=\"%v\" "
		   "text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		   ym, ym, label);
}

/* Vertical grid lines and tick labels of a value axis at the bottom. */
static void x_axis(struct cm_buf *b, const struct axis *ax, double x0, double x1, double y0,
		   double y1, const char *label, double scale)
{
	for (size_t i = 0; i < ax->n; i++) {
		double x = amap(ax, ax->t[i], x0, x1);
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i] / scale, ax->step / scale);
		an_svg_put(
		    b,
		    "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
		    "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    x, y0, x, y1, i ? GRID_COLOUR : AXIS_COLOUR, x, y1 + 14, buf);
	}
	an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0, y1, x1,
		   y1, AXIS_COLOUR);
	if (label)
		an_svg_put(
		    b, "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    (x0 + x1) / 2, y1 + 29, label);
}

/* ---- legends ------------------------------------------------------------------- */

enum leg_kind { LEG_MARKER, LEG_LINE, LEG_BAND, LEG_BAR, LEG_SWATCH, LEG_WHISKER, LEG_TEXT };

struct leg {
	enum leg_kind kind;
	enum an_shape shape;
	const char *colour;
	const char *dash;
	char attrs[128]; /* of the marker */
	char *text;
};

struct legend {
	struct leg *v;
	size_t n, cap;
};

static struct leg *leg_add(struct legend *l, enum leg_kind kind, const char *colour,
			   const char *text)
{
	struct leg *it = CM_PUSH(l->v, l->n, l->cap);
	it->kind = kind;
	it->colour = colour;
	it->dash = "";
	it->text = cm_strdup(text);
	snprintf(it->attrs, sizeof(it->attrs), "fill=\"%s\"", colour);
	return it;
}

static void legend_release(struct legend *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

#define LEG_ROW	 17.0
#define LEG_MAXC 60

static double leg_width(const struct leg *it)
{
	struct cm_buf t = {NULL, 0, 0};
	an_svg_clip(&t, it->text, LEG_MAXC);
	double w = (it->kind == LEG_TEXT ? 0 : 28) + an_svg_text_px(t.s, FONT_PX) + 16;
	cm_buf_release(&t);
	return w;
}

/* Rows the legend takes in `width` px. */
static size_t legend_rows(const struct legend *l, double width)
{
	size_t rows = l->n ? 1 : 0;
	double x = 0;
	for (size_t i = 0; i < l->n; i++) {
		double w = leg_width(&l->v[i]);
		if (x > 0 && x + w > width) {
			rows++;
			x = 0;
		}
		x += w;
	}
	return rows;
}

static void legend_draw(struct cm_buf *b, const struct legend *l, double x0, double y0,
			double width)
{
	double x = 0, y = y0;
	for (size_t i = 0; i < l->n; i++) {
		const struct leg *it = &l->v[i];
		double w = leg_width(it);
		if (x > 0 && x + w > width) {
			y += LEG_ROW;
			x = 0;
		}
		double sx = x0 + x, cy = y - 4;
		switch (it->kind) {
		case LEG_MARKER:
			an_svg_marker(b, it->shape, sx + 11, cy, 4, it->attrs, NULL);
			break;
		case LEG_LINE:
			an_svg_put(b,
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" "
				   "stroke-width=\"2\"%s%s%s/>\n",
				   sx, cy, sx + 22, cy, it->colour,
				   *it->dash ? " stroke-dasharray=\"" : "", it->dash,
				   *it->dash ? "\"" : "");
			an_svg_marker(b, it->shape, sx + 11, cy, 3.2, it->attrs, NULL);
			break;
		case LEG_BAND:
			an_svg_put(b,
				   "<rect x=\"%v\" y=\"%v\" width=\"22\" height=\"10\" %s/>\n"
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n"
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n",
				   sx, cy - 5, BAND_ATTRS, sx, cy - 5, sx + 22, cy - 5, BAND_EDGE,
				   sx, cy + 5, sx + 22, cy + 5, BAND_EDGE);
			break;
		case LEG_TEXT:
			break;
		case LEG_SWATCH:
			an_svg_put(
			    b, "<rect x=\"%v\" y=\"%v\" width=\"22\" height=\"10\" fill=\"%s\"/>\n",
			    sx, cy - 5, it->colour);
			break;
		case LEG_WHISKER:
			an_svg_put(b,
				   "<path d=\"M%v %vV%vM%v %vH%vM%v %vV%v\" stroke=\"#000\" "
				   "fill=\"none\"/>\n",
				   sx + 2, cy - 4, cy + 4, sx + 2, cy, sx + 20, sx + 20, cy - 4,
				   cy + 4);
			break;
		case LEG_BAR:
			an_svg_put(b,
				   "<rect x=\"%v\" y=\"%v\" width=\"22\" height=\"10\" fill=\"%s\" "
				   "fill-opacity=\"0.25\"/>\n<line x1=\"%v\" y1=\"%v\" x2=\"%v\" "
				   "y2=\"%v\" stroke=\"%s\" stroke-width=\"2.5\"/>\n",
				   sx, cy - 5, it->colour, sx, cy - 5, sx + 22, cy - 5, it->colour);
			break;
		}
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, it->text, LEG_MAXC);
		an_svg_put(b, "<text x=\"%v\" y=\"%v\">%e</text>\n",
			   it->kind == LEG_TEXT ? sx : sx + 28, y, t.s);
		cm_buf_release(&t);
		x += w;
	}
}

/* ---- the list -------------------------------------------------------------------- */

/* Letters, digits, '.', '_' stay; every run of anything else is one '-'. */
static void slug(struct cm_buf *b, const char *s)
{
	size_t start = b->len, n = 0;
	bool dash = false;
	for (const unsigned char *p = (const unsigned char *)s; *p && n < 60; p++) {
		bool keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_';
		if (!keep) {
			dash = b->len > start;
			continue;
		}
		if (dash)
			cm_buf_putc(b, '-');
		dash = false;
		cm_buf_putc(b, (char)*p);
		n++;
	}
	/* a name of nothing but dots would be "." or ".." */
	bool dots = true;
	for (size_t i = start; i < b->len; i++)
		dots &= b->s[i] == '.';
	if (dots) {
		b->len = start;
		cm_buf_puts(b, "x");
	}
}

static struct an_chart *chart_add(struct an_charts *out, enum an_chart_kind kind,
				  struct cm_buf *file, char *title, struct cm_buf *svg)
{
	/* names are unique: a second "a-b" (from "a b" and "a/b") is "a-b-2" */
	char *name = cm_asprintf("%s.svg", file->s);
	for (unsigned k = 2;; k++) {
		bool taken = false;
		for (size_t i = 0; i < out->n && !taken; i++)
			taken = strcmp(out->v[i].file, name) == 0;
		if (!taken)
			break;
		free(name);
		name = cm_asprintf("%s-%u.svg", file->s, k);
	}
	cm_buf_release(file);
	struct an_chart *c = CM_PUSH(out->v, out->n, out->cap);
	c->kind = kind;
	c->file = name;
	c->title = title;
	c->test = SIZE_MAX;
	c->svg_len = svg->len;
	c->svg = cm_buf_take(svg);
	return c;
}

void an_charts_release(struct an_charts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].file);
		free(c->v[i].title);
		free(c->v[i].svg);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static bool several_jobs(const struct an_analysis *a, size_t test)
{
	const struct an_test *t = &a->tests[test];
	for (size_t i = t->series_start; i < t->series_end; i++) {
		if (a->series[i].job_index > 0)
			return true;
	}
	return false;
}

/* "cached4k: read" as the table's block title says it. */
static void block_title(struct cm_buf *b, const struct an_analysis *a, const struct an_series *s)
{
	if (several_jobs(a, s->test))
		cm_buf_printf(b, "%s: job %zu \"%s\", %s", a->tests[s->test].name, s->job_index + 1,
			      s->job_name, fc_ddir_name(s->dir));
	else
		cm_buf_printf(b, "%s: %s", a->tests[s->test].name, fc_ddir_name(s->dir));
}

/* "TEST[-jobN]-DIRECTION" of the file names. */
static void block_file(struct cm_buf *b, const char *kind, const struct an_analysis *a,
		       const struct an_series *s)
{
	cm_buf_printf(b, "%s-", kind);
	slug(b, a->tests[s->test].name);
	if (several_jobs(a, s->test))
		cm_buf_printf(b, "-job%zu", s->job_index + 1);
	cm_buf_printf(b, "-%s", fc_ddir_name(s->dir));
}

/* "IOPS", "MiB/s", "clat p99 (µs)": the table's label with its unit apart. */
static char *axis_label(enum an_metric m, enum fc_log_type lt)
{
	const char *label = an_metric_label(m);
	const char *unit = an_metric_unit(m, lt);
	if (m == AN_M_IOPS)
		return cm_strdup("IOPS");
	size_t n = strlen(label), u = strlen(unit);
	if (n > u + 1 && strcmp(label + n - u, unit) == 0 && label[n - u - 1] == ' ')
		n -= u + 1;
	return cm_asprintf("%.*s (%s)", (int)n, label, strcmp(unit, "us") == 0 ? "µs" : unit);
}

static const char *value_unit(enum an_metric m, enum fc_log_type lt)
{
	const char *u = an_metric_unit(m, lt);
	return strcmp(u, "us") == 0 ? "µs" : u;
}

/* A column's change against the column the table compares it with. */
static void col_change(const struct an_analysis *a, const struct an_series *s, size_t col,
		       double *pct, bool *outside, size_t *ref)
{
	*ref = an_ref_col(a, col);
	*pct = NAN;
	*outside = false;
	if (*ref == SIZE_MAX)
		return;
	const struct an_cell *c = &s->cells[col];
	*pct = an_pct_change(c->sum.median, s->cells[*ref].sum.median);
	*outside = a->cols[col].state != a->baseline ? c->outside : c->v_outside;
}

/* ---- 1: every round ------------------------------------------------------------ */

/* Whether the columns hold a round 1, and other rounds. */
static void rounds_seen(const struct an_series *s, const size_t *cols, size_t nc, bool *r1,
			bool *rest)
{
	for (size_t i = 0; i < nc; i++) {
		const struct an_cell *c = &s->cells[cols[i]];
		for (size_t v = 0; v < c->n; v++) {
			*r1 |= c->first[v];
			*rest |= !c->first[v];
		}
	}
}

/* "round 1", "rounds 2..n" as far as there are such, and "median". */
static void round_legend(struct legend *leg, bool r1, bool rest)
{
	if (r1) {
		struct leg *it = leg_add(leg, LEG_MARKER, "#000", "round 1");
		it->shape = AN_SHAPE_DIAMOND;
		snprintf(it->attrs, sizeof(it->attrs), ROUND1_ATTRS);
	}
	if (rest) {
		struct leg *it = leg_add(leg, LEG_MARKER, "#666", "rounds 2..n");
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"#666\" stroke=\"#fff\" stroke-width=\"0.8\"");
	}
	leg_add(leg, LEG_BAR, "#666", "median");
}

static void chart_rounds(struct an_charts *out, const struct an_analysis *a,
			 const struct an_series *s)
{
	size_t *cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*cols));
	size_t nc = 0;
	double vmax = 0;
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_cell *c = &s->cells[k];
		bool any = false;
		for (size_t i = 0; i < c->n; i++) {
			if (isfinite(c->values[i])) {
				any = true;
				vmax = c->values[i] > vmax ? c->values[i] : vmax;
			}
		}
		if (any)
			cols[nc++] = k;
	}
	if (!nc) {
		free(cols);
		return;
	}
	const char *unit = value_unit(s->metric, s->log_type);
	struct axis ay;
	axis_make(&ay, 0, vmax > 0 ? vmax : 1, 5);
	char *ylabel = axis_label(s->metric, s->log_type);

	/* columns: names under them, variants below when both vary */
	bool by_state = a->n_order > 1 || a->n_variants < 2;
	bool groups = a->n_variants > 1 && a->n_order > 1;
	double left = 30 + axis_label_px(&ay) + 8, right = 16;
	double slot = (WIDTH - left - right) / (double)nc;
	if (slot < 52)
		slot = 52;
	double w = ceil(left + right + slot * (double)nc);
	size_t fit = (size_t)((slot - 6) / (FONT_PX * 0.62));
	bool rotate = false;
	double longest = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct an_col *c = &a->cols[cols[i]];
		const char *name =
		    by_state ? a->states[c->state].name : a->variants[c->variant].name;
		size_t cw = an_text_width(name, strlen(name));
		rotate |= cw > fit;
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, name, 24);
		double px = an_svg_text_px(t.s, FONT_PX);
		longest = px > longest ? px : longest;
		cm_buf_release(&t);
	}
	double label_h = rotate ? longest * 0.574 + 16 : 18; /* sin 35 degrees */
	/* a rotated first label reaches left of its column by cos 35 of its length */
	if (rotate && slot / 2 + left < longest * 0.819 + 10) {
		left = longest * 0.819 + 10 - slot / 2;
		w = ceil(left + right + slot * (double)nc);
	}
	double group_h = groups ? 18 : 0;

	/* the band: the baseline state's min..max in each variant, or with one
	 * state the baseline variant's, across all columns */
	bool by_variant_band = a->n_order < 2;
	const char *band_of =
	    by_variant_band ? a->variants[a->baseline_variant].name : a->states[a->baseline].name;
	bool any_band = false;
	for (size_t i = 0; i < nc && !any_band; i++) {
		size_t bc = by_variant_band ? a->base_col
					    : an_col_find(a, a->baseline, a->cols[cols[i]].variant);
		any_band = bc != SIZE_MAX && s->cells[bc].sum.n;
	}
	struct legend leg = {NULL, 0, 0};
	bool any_r1 = false, any_rest = false;
	rounds_seen(s, cols, nc, &any_r1, &any_rest);
	round_legend(&leg, any_r1, any_rest);
	if (any_band) {
		char *band_text = cm_asprintf("%s min..max (* = median outside it)", band_of);
		leg_add(&leg, LEG_BAND, "#000", band_text);
		free(band_text);
	}
	size_t lrows = legend_rows(&leg, w - 24);

	double py0 = 58, ph = 220;
	double py1 = py0 + ph;
	double h = ceil(py1 + label_h + group_h + 8 + (double)lrows * LEG_ROW + 6);
	double px0 = left, px1 = w - right;

	struct cm_buf title = {NULL, 0, 0};
	block_title(&title, a, s);
	cm_buf_printf(&title, " %s, every round", ylabel);
	struct cm_buf sub = {NULL, 0, 0};
	an_wl_describe(&sub, a->tests[s->test].workload, AN_WL_ALL & ~(1u << AN_WL_NAME), true);
	struct cm_buf b = {NULL, 0, 0};
	chart_open(&b, w, h, title.s, sub.s);
	cm_buf_release(&sub);
	y_axis(&b, &ay, px0, px1, py0, py1, ylabel);

	/* the reference's min..max behind the columns compared with it */
	for (size_t i = 0; i < nc;) {
		size_t v = a->cols[cols[i]].variant, j = i;
		while (j < nc && (by_variant_band || a->cols[cols[j]].variant == v))
			j++;
		size_t bc = by_variant_band ? a->base_col : an_col_find(a, a->baseline, v);
		const struct an_cell *bcell = bc == SIZE_MAX ? NULL : &s->cells[bc];
		if (bcell && bcell->sum.n && isfinite(bcell->sum.min)) {
			double xa = px0 + slot * (double)i + 2, xb = px0 + slot * (double)j - 2;
			double ya = amap(&ay, bcell->sum.max, py1, py0);
			double yb = amap(&ay, bcell->sum.min, py1, py0);
			char lo[32], hi[32];
			an_fmt_short(lo, sizeof(lo), bcell->sum.min);
			an_fmt_short(hi, sizeof(hi), bcell->sum.max);
			char *bname = an_col_name(a, &a->cols[bc]);
			char *tip = cm_asprintf("%s: min..max %s..%s %s over %zu rounds", bname, lo,
						hi, unit, bcell->sum.n);
			free(bname);
			an_svg_put(&b,
				   "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
				   "height=\"%v\" %s/>\n<line x1=\"%v\" y1=\"%v\" x2=\"%v\" "
				   "y2=\"%v\" %s/>\n<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" "
				   "%s/></g>\n",
				   tip, xa, ya, xb - xa, yb - ya > 1 ? yb - ya : 1, BAND_ATTRS, xa,
				   ya, xb, ya, BAND_EDGE, xa, yb, xb, yb, BAND_EDGE);
			free(tip);
		}
		if (groups) {
			if (i > 0)
				an_svg_put(&b,
					   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" "
					   "stroke=\"#999\"/>\n",
					   px0 + slot * (double)i, py0, px0 + slot * (double)i,
					   py1 + label_h + group_h);
			struct cm_buf t = {NULL, 0, 0};
			an_svg_clip(&t, a->variants[v].name,
				    (size_t)((slot * (double)(j - i) - 6) / (FONT_PX * 0.62)));
			an_svg_put(&b,
				   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" "
				   "font-weight=\"bold\">%e</text>\n",
				   px0 + slot * ((double)i + (double)j) / 2, py1 + label_h + 14,
				   t.s);
			cm_buf_release(&t);
		}
		i = j;
	}

	for (size_t i = 0; i < nc; i++) {
		size_t k = cols[i];
		const struct an_col *col = &a->cols[k];
		const struct an_cell *c = &s->cells[k];
		size_t style = style_of(a, k);
		const char *colour = an_svg_colour(style);
		double cx = px0 + slot * ((double)i + 0.5);
		char *name = an_col_name(a, col);
		double pct;
		bool outside;
		size_t ref;
		col_change(a, s, k, &pct, &outside, &ref);
		char pcts[32];
		an_fmt_pct(pcts, sizeof(pcts), pct);

		/* the median as a bar */
		if (isfinite(c->sum.median)) {
			double bw = slot * 0.62 > 60 ? 60 : slot * 0.62;
			double y = amap(&ay, c->sum.median, py1, py0);
			char med[32], lo[32], hi[32], r1[32], rest[32];
			an_fmt_short(med, sizeof(med), c->sum.median);
			an_fmt_short(lo, sizeof(lo), c->sum.min);
			an_fmt_short(hi, sizeof(hi), c->sum.max);
			an_fmt_short(r1, sizeof(r1), c->round1);
			an_fmt_short(rest, sizeof(rest), c->rest_median);
			struct cm_buf tip = {NULL, 0, 0};
			cm_buf_printf(&tip, "%s: median %s %s", name, med, unit);
			if (pcts[0]) {
				char *rn = an_col_name(a, &a->cols[ref]);
				cm_buf_printf(&tip, ", %s against %s%s", pcts, rn,
					      outside ? " (outside its min..max)" : "");
				free(rn);
			}
			cm_buf_printf(
			    &tip, "; min..max %s..%s over %zu rounds; round 1 %s, rounds 2..n %s",
			    lo, hi, c->sum.n, r1, rest);
			an_svg_put(
			    &b,
			    "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
			    "height=\"%v\" fill=\"%s\" fill-opacity=\"0.25\"/>\n<line x1=\"%v\" "
			    "y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" "
			    "stroke-width=\"2.5\"/></g>\n",
			    tip.s, cx - bw / 2, y, bw, py1 - y, colour, cx - bw / 2, y, cx + bw / 2,
			    y, colour);
			cm_buf_release(&tip);
		}
		/* the change on top, as in the table */
		const char *top = k == a->base_col ? "base" : pcts;
		if (*top) {
			char *t = cm_asprintf("%s%s", top, outside ? "*" : "");
			an_svg_put(&b,
				   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#444\" "
				   "font-size=\"10\">%e</text>\n",
				   cx, py0 - 6, t);
			free(t);
		}
		/* every round as a dot, in round order from left to right */
		double spread = slot * 0.5 < (double)c->n * 7 ? slot * 0.5 : (double)c->n * 7;
		double r = c->n > 30 ? 2.5 : 3.5;
		an_svg_put(&b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\">\n", colour);
		for (size_t v = 0; v < c->n; v++) {
			double val = c->values[v];
			if (!isfinite(val))
				continue;
			double x = cx - spread / 2 + spread * ((double)v + 0.5) / (double)c->n;
			double y = amap(&ay, val, py1, py0);
			char num[32], p[32];
			an_fmt_short(num, sizeof(num), val);
			an_fmt_pct(p, sizeof(p),
				   an_pct_change(val, ref == SIZE_MAX ? c->sum.median
								      : s->cells[ref].sum.median));
			/* the column's name is under it: the dot says its round */
			char *tip = cm_asprintf("round %d: %s %s%s%s", c->rounds[v], num, unit,
						p[0] ? ", " : "", p);
			if (c->first[v])
				an_svg_marker(&b, AN_SHAPE_DIAMOND, x, y, 4.2, ROUND1_ATTRS, tip);
			else
				an_svg_marker(&b, AN_SHAPE_CIRCLE, x, y, r, "", tip);
			free(tip);
		}
		cm_buf_puts(&b, "</g>\n");

		/* its name */
		const char *label =
		    by_state ? a->states[col->state].name : a->variants[col->variant].name;
		struct cm_buf t = {NULL, 0, 0};
		bool cut = an_svg_clip(&t, label, rotate ? 24 : fit);
		if (rotate)
			an_svg_put(&b,
				   "<text transform=\"rotate(-35 %v %v)\" x=\"%v\" y=\"%v\" "
				   "text-anchor=\"end\">",
				   cx + 4, py1 + 12, cx + 4, py1 + 12);
		else
			an_svg_put(&b, "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\">", cx,
				   py1 + 15);
		if (cut)
			an_svg_put(&b, "<title>%e</title>", label);
		an_svg_put(&b, "%e</text>\n", t.s);
		cm_buf_release(&t);
		free(name);
	}
	legend_draw(&b, &leg, 12, py1 + label_h + group_h + 8 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	block_file(&file, "rounds", a, s);
	cm_buf_printf(&file, "-%s", an_metric_name(s->metric));
	struct an_chart *ch = chart_add(out, AN_CHART_ROUNDS, &file, cm_buf_take(&title), &b);
	ch->test = s->test;
	ch->job_index = s->job_index;
	ch->dir = s->dir;
	legend_release(&leg);
	free(ylabel);
	free(cols);
}

/* ---- 2: round 1 per second ----------------------------------------------------- */

struct line {
	size_t col;
	const struct an_sec_series *sec;
	double recovery; /* seconds; NaN */
	bool never;	 /* a band to reach, and it was never reached */
};

/* 0..span in steps a clock reads well: whole seconds at least (the logs
 * have no finer intervals), minutes by 5, 10, 15, 30, hours by 3, 6, 12. */
static void time_axis(struct axis *ax, double span, double scale)
{
	static const double minutes[] = {1, 2, 5, 10, 15, 20, 30, 60, 120};
	static const double hours[] = {1, 2, 3, 6, 12, 24, 48, 96, 168};
	axis_make(ax, 0, span, 6);
	if (scale == 1 && ax->step >= 1)
		return;
	double step = ax->step < 1 ? 1 : ax->step;
	if (scale > 1) {
		const double *steps = scale == 60 ? minutes : hours;
		double raw = span / 6;
		step = steps[8];
		for (size_t i = 0; i < 9; i++) {
			if (steps[i] >= raw) {
				step = steps[i];
				break;
			}
		}
	}
	ax->step = step;
	ax->n = 0;
	for (double v = 0; ax->n < MAX_TICKS; v += step) {
		ax->t[ax->n++] = v;
		if (v >= span - step * 1e-9)
			break;
	}
	ax->lo = 0;
	ax->hi = ax->t[ax->n - 1] > 0 ? ax->t[ax->n - 1] : 1;
}

/* A line's name: its state, or its variant when the states are one. */
static char *line_name(const struct an_analysis *a, size_t col)
{
	const struct an_col *c = &a->cols[col];
	if (a->n_order < 2 && a->n_variants > 1)
		return cm_strdup(a->variants[c->variant].name);
	return cm_strdup(a->states[c->state].name);
}

/* The time axis in seconds, minutes or hours, by the length of the logs. */
static double time_scale(double span_s, const char **unit)
{
	if (span_s > 3 * 3600) {
		*unit = "hours";
		return 3600;
	}
	if (span_s > 600) {
		*unit = "minutes";
		return 60;
	}
	*unit = "seconds";
	return 1;
}

static void chart_profile(struct an_charts *out, const struct an_analysis *a,
			  const struct an_series *first, const struct an_series *rec,
			  size_t variant)
{
	struct line *lines = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*lines));
	size_t nl = 0;
	double tmax = 0, vmax = 0;
	for (size_t k = 0; k < a->n_cols; k++) {
		if (a->cols[k].variant != variant)
			continue;
		const struct an_cell *c = &first->cells[k];
		for (size_t i = 0; i < c->n; i++) {
			/* the first round after the transition (of the first
			 * repetition when the state repeats) */
			if (!c->first[i])
				continue;
			const struct an_run *r = &a->runs[c->runs[i]];
			if (first->job_index >= r->n_jobs)
				break;
			const struct an_sec_series *sec =
			    &r->jobs[first->job_index].dir[first->dir].sec;
			if (!sec->n)
				break;
			struct line *l = &lines[nl++];
			l->col = k;
			l->sec = sec;
			l->recovery = NAN;
			const struct an_cell *rc = rec ? &rec->cells[k] : NULL;
			for (size_t q = 0; rc && q < rc->n; q++) {
				if (rc->runs[q] == c->runs[i]) {
					l->recovery = rc->values[q];
					l->never = !isfinite(rc->values[q]);
				}
			}
			double end = (double)(sec->start_ms + sec->n * sec->interval_ms) / 1000.0;
			tmax = end > tmax ? end : tmax;
			for (size_t p = 0; p < sec->n; p++) {
				if (isfinite(sec->values[p]) && sec->values[p] > vmax)
					vmax = sec->values[p];
			}
			break;
		}
	}
	if (!nl) {
		free(lines);
		return;
	}
	const struct an_band *band =
	    an_find_band(a, variant, first->test, first->job_index, first->dir, first->log_type);
	if (band && !band->n)
		band = NULL;
	for (size_t i = 0; i < nl && !band; i++)
		lines[i].never = false; /* nothing to reach */
	if (band && band->high > vmax)
		vmax = band->high;
	const char *unit = value_unit(AN_M_SEC_FIRST, first->log_type);
	size_t bcol = an_col_find(a, a->baseline, variant);
	char *band_name =
	    bcol == SIZE_MAX ? cm_strdup(a->states[a->baseline].name) : line_name(a, bcol);
	const char *tunit;
	double tscale = time_scale(tmax, &tunit);
	struct axis ay, ax;
	axis_make(&ay, 0, vmax > 0 ? vmax : 1, 5);
	time_axis(&ax, tmax > 0 ? tmax / tscale : 1, tscale);
	for (size_t i = 0; i < ax.n; i++)
		ax.t[i] *= tscale;
	ax.lo *= tscale;
	ax.hi *= tscale;
	ax.step *= tscale;

	/* the legend: a line per state, the band, the ring */
	bool vary = a->n_variants > 1;
	struct legend leg = {NULL, 0, 0};
	for (size_t i = 0; i < nl; i++) {
		const struct line *l = &lines[i];
		size_t st = style_of(a, l->col);
		struct cm_buf t = {NULL, 0, 0};
		char *name = line_name(a, l->col);
		cm_buf_puts(&t, name);
		free(name);
		if (isfinite(l->recovery))
			cm_buf_printf(&t, ": back in the band at %.0f s", l->recovery);
		else if (l->never)
			cm_buf_puts(&t, ": never back in the band");
		struct leg *it = leg_add(&leg, LEG_LINE, an_svg_colour(st), t.s);
		cm_buf_release(&t);
		it->shape = an_svg_shape(st);
		it->dash = an_svg_dash(st);
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"", an_svg_colour(st));
	}
	if (band) {
		char *t = cm_asprintf("%s p10..p90 per second", band_name);
		leg_add(&leg, LEG_BAND, "#000", t);
		free(t);
		struct leg *it = leg_add(&leg, LEG_MARKER, "#000", "back in the band");
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"");
	}
	double w = WIDTH, left = 30 + axis_label_px(&ay) + 8, right = 16;
	double py0 = 50, py1 = py0 + 220, px0 = left, px1 = w - right;
	size_t lrows = legend_rows(&leg, w - 24);
	double h = ceil(py1 + 38 + (double)lrows * LEG_ROW + 6);

	struct cm_buf title = {NULL, 0, 0};
	block_title(&title, a, first);
	cm_buf_printf(&title, " %s per second, round 1",
		      first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS");
	if (vary)
		cm_buf_printf(&title, ", %s", a->variants[variant].name);
	struct cm_buf sub = {NULL, 0, 0};
	if (band) {
		char lo[32], hi[32];
		an_fmt_short(lo, sizeof(lo), band->low);
		an_fmt_short(hi, sizeof(hi), band->high);
		cm_buf_printf(
		    &sub, "band: p10..p90 of the per-second values of %s, %s..%s %s (%zu values)",
		    band_name, lo, hi, unit, band->n);
	}
	struct cm_buf b = {NULL, 0, 0};
	chart_open(&b, w, h, title.s, sub.s);
	cm_buf_release(&sub);
	char *ylabel =
	    cm_asprintf("%s per second", first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS");
	y_axis(&b, &ay, px0, px1, py0, py1, ylabel);
	free(ylabel);
	char *xlabel = cm_asprintf("%s since the start of the run", tunit);
	x_axis(&b, &ax, px0, px1, py0, py1, xlabel, tscale);
	free(xlabel);
	if (band) {
		double ya = amap(&ay, band->high, py1, py0), yb = amap(&ay, band->low, py1, py0);
		char lo[32], hi[32];
		an_fmt_short(lo, sizeof(lo), band->low);
		an_fmt_short(hi, sizeof(hi), band->high);
		an_svg_put(
		    &b,
		    "<g><title>band: p10..p90 of the per-second values of %e, %e..%e %s</title>"
		    "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\" %s/>\n"
		    "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n"
		    "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/></g>\n",
		    band_name, lo, hi, unit, px0, ya, px1 - px0, yb - ya > 1 ? yb - ya : 1,
		    BAND_ATTRS, px0, ya, px1, ya, BAND_EDGE, px0, yb, px1, yb, BAND_EDGE);
	}

	size_t columns = (size_t)(px1 - px0);
	size_t *idx = cm_calloc(2 * columns + 2, sizeof(*idx));
	for (size_t i = 0; i < nl; i++) {
		const struct line *l = &lines[i];
		const struct an_sec_series *sec = l->sec;
		size_t st = style_of(a, l->col);
		const char *colour = an_svg_colour(st);
		const char *dash = an_svg_dash(st);
		char *name = line_name(a, l->col);
		double first_v, min_v, max_v, last_v, recovery;
		an_series_stats(sec, band, &first_v, &min_v, &max_v, &last_v, &recovery);
		char f1[32], f2[32], f3[32], f4[32];
		an_fmt_short(f1, sizeof(f1), first_v);
		an_fmt_short(f2, sizeof(f2), min_v);
		an_fmt_short(f3, sizeof(f3), max_v);
		an_fmt_short(f4, sizeof(f4), last_v);
		struct cm_buf tip = {NULL, 0, 0};
		cm_buf_printf(&tip,
			      "%s, round 1: 1st second %s, slowest %s, fastest %s, last %s %s",
			      name, f1, f2, f3, f4, unit);
		if (isfinite(l->recovery))
			cm_buf_printf(&tip, "; back in the band at %.0f s", l->recovery);
		else if (l->never)
			cm_buf_puts(&tip, "; never back in the band");
		an_svg_put(&b,
			   "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" "
			   "stroke-linejoin=\"round\"%s%s%s d=\"",
			   colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
		size_t n = an_decimate_minmax(sec->values, sec->n, columns, idx);
		bool stepped = sec->n <= 2 * columns, pen = false;
		for (size_t q = 0; q < n; q++) {
			if (idx[q] == SIZE_MAX) {
				pen = false;
				continue;
			}
			double t0 = (double)(sec->start_ms + idx[q] * sec->interval_ms) / 1000.0;
			double t1 = t0 + (double)sec->interval_ms / 1000.0;
			double y = amap(&ay, sec->values[idx[q]], py1, py0);
			if (stepped) {
				/* each interval's rate held over its interval */
				if (pen)
					an_svg_put(&b, "V%vH%v", y, amap(&ax, t1, px0, px1));
				else
					an_svg_put(&b, "M%v %vH%v", amap(&ax, t0, px0, px1), y,
						   amap(&ax, t1, px0, px1));
			} else {
				an_svg_put(&b, "%s%v %v", pen ? "L" : "M",
					   amap(&ax, (t0 + t1) / 2, px0, px1), y);
			}
			pen = true;
		}
		an_svg_put(&b, "\"><title>%e</title></path>\n", tip.s);
		cm_buf_release(&tip);

		/* markers with each second's value: all of a short log, some of a long one */
		size_t every = sec->n <= 40 ? 1 : (sec->n + 11) / 12;
		an_svg_put(&b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.6\">\n", colour);
		for (size_t p = every / 2; p < sec->n; p += every) {
			double v = sec->values[p];
			if (!isfinite(v))
				continue;
			double t0 = (double)(sec->start_ms + p * sec->interval_ms) / 1000.0;
			double t1 = t0 + (double)sec->interval_ms / 1000.0;
			char num[32];
			an_fmt_short(num, sizeof(num), v);
			char *t = cm_asprintf("%s, %.0f..%.0f s: %s %s", name, t0, t1, num, unit);
			an_svg_marker(&b, an_svg_shape(st), amap(&ax, (t0 + t1) / 2, px0, px1),
				      amap(&ay, v, py1, py0), 2.8, "", t);
			free(t);
		}
		cm_buf_puts(&b, "</g>\n");

		/* the second it was back in the band, ringed */
		if (isfinite(l->recovery) && sec->interval_ms) {
			double pos = (l->recovery * 1000.0 - (double)sec->start_ms) /
				     (double)sec->interval_ms;
			size_t p = pos <= 0 ? 0 : (size_t)llround(pos);
			if (p < sec->n && isfinite(sec->values[p])) {
				double t0 = l->recovery,
				       t1 = t0 + (double)sec->interval_ms / 1000.0;
				char *t = cm_asprintf("%s: back in the band at %.0f s", name,
						      l->recovery);
				an_svg_marker(
				    &b, AN_SHAPE_CIRCLE, amap(&ax, (t0 + t1) / 2, px0, px1),
				    amap(&ay, sec->values[p], py1, py0), 6.5,
				    "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"", t);
				free(t);
			}
		}
		free(name);
	}
	free(idx);
	free(band_name);
	legend_draw(&b, &leg, 12, py1 + 38 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	block_file(&file, "profile", a, first);
	if (vary) {
		cm_buf_putc(&file, '-');
		slug(&file, a->variants[variant].name);
	}
	struct an_chart *ch = chart_add(out, AN_CHART_PROFILE, &file, cm_buf_take(&title), &b);
	ch->test = first->test;
	ch->job_index = first->job_index;
	ch->dir = first->dir;
	legend_release(&leg);
	free(lines);
}

/* ---- 3: state transitions ------------------------------------------------------ */

/*
 * A row of the transitions chart: samples of one quantity (an action's
 * seconds, its provider task's, the downtime).  Repetitions of a state are
 * more samples of the same row: the median is the bar, every sample a dot.
 */
#define TR_LABEL     28	   /* characters of an action's text shown */
#define TR_RIGHT_MAX 480.0 /* px right of the plot for the value texts, at most */
#define C_OWN	     "#0072B2"
#define C_TASK	     "#E69F00"
#define C_DOWN	     "#D55E00"
#define C_DATABACK   "#009E73"

enum tr_kind { TR_STATE, TR_ACTION, TR_DOWNTIME, TR_DATA_BACK };

struct tr_row {
	enum tr_kind kind;
	char *label;
	const char *state;  /* borrowed */
	bool header;	    /* a state's name */
	const char *colour; /* of the bar */
	double *own, *task; /* the samples: fiocamp's seconds, the provider's */
	size_t n_own, n_task;
	char *note; /* status, error or hash result; NULL */
	bool bad;
};

struct tr_rows {
	struct tr_row *v;
	size_t n, cap;
};

static struct tr_row *tr_add(struct tr_rows *rs, const char *state, const char *label,
			     enum tr_kind kind, size_t samples)
{
	static const char *const colours[] = {[TR_STATE] = "#000",
					      [TR_ACTION] = C_OWN,
					      [TR_DOWNTIME] = C_DOWN,
					      [TR_DATA_BACK] = C_DATABACK};
	struct tr_row *r = CM_PUSH(rs->v, rs->n, rs->cap);
	r->kind = kind;
	r->header = kind == TR_STATE;
	r->label = cm_strdup(label);
	r->state = state;
	r->colour = colours[kind];
	/* one sample per repetition of the state */
	r->own = cm_calloc(samples ? samples : 1, sizeof(*r->own));
	r->task = cm_calloc(samples ? samples : 1, sizeof(*r->task));
	return r;
}

/* The rows of one state: each action with its samples over the
 * repetitions, then the downtime and the data back (actions.c). */
static void tr_rows_of(struct tr_rows *rs, const struct an_analysis *a,
		       const struct an_transition *t)
{
	const char *state = a->states[t->state].name;
	struct an_trans_sum sum;
	an_trans_sum(t, &sum);
	struct tr_row *h = tr_add(rs, state, state, TR_STATE, 0);
	if (sum.failed) {
		h->note = cm_strdup(sum.failed);
		h->bad = true;
	} else if (t->hash_checks) {
		h->note = an_integrity_text(t);
		h->bad = t->hash_matched < t->hash_checks;
	}
	for (size_t i = 0; i < sum.n_rows; i++) {
		const struct an_action_row *ar = &sum.rows[i];
		const struct an_action *ac = ar->act;
		struct tr_row *r = tr_add(rs, state,
					  ac->text     ? ac->text
					  : ac->action ? ac->action
						       : "?",
					  TR_ACTION, ar->n);
		memcpy(r->own, ar->watch_s, ar->n_watch * sizeof(*r->own));
		r->n_own = ar->n_watch;
		memcpy(r->task, ar->task_s, ar->n_task * sizeof(*r->task));
		r->n_task = ar->n_task;
		if (ar->problems) {
			r->note = cm_strdup(ar->problems);
			r->bad = true;
		} else if (ar->hash_checks) {
			r->note = ar->hash_checks == 1
				      ? cm_strdup("data matched")
				      : cm_asprintf("data matched (%zu of %zu)", ar->hash_matched,
						    ar->hash_checks);
		}
	}
	if (sum.n_down) {
		struct tr_row *r = tr_add(rs, state, "downtime", TR_DOWNTIME, sum.n_down);
		memcpy(r->own, sum.down_s, sum.n_down * sizeof(*r->own));
		r->n_own = sum.n_down;
	}
	if (sum.n_back) {
		struct tr_row *r = tr_add(rs, state, "data back", TR_DATA_BACK, sum.n_back);
		memcpy(r->own, sum.back_s, sum.n_back * sizeof(*r->own));
		r->n_own = sum.n_back;
	}
	an_trans_sum_free(&sum);
}

static void secs_text(struct cm_buf *b, const double *v, size_t n)
{
	double m = an_median(v, n);
	cm_buf_printf(b, "%.1f s", m);
	if (n > 1) {
		double lo = v[0], hi = v[0];
		for (size_t i = 1; i < n; i++) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
		cm_buf_printf(b, " (%.1f..%.1f, n = %zu)", lo, hi, n);
	}
}

static void tr_bar(struct cm_buf *b, const struct axis *ax, double px0, double px1, double y,
		   double hgt, const double *v, size_t n, const char *colour, const char *tip)
{
	double m = an_median(v, n);
	double x = amap(ax, m, px0, px1);
	an_svg_put(
	    b,
	    "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\" fill=\"%s\"><title>%e</title>"
	    "</rect>\n",
	    px0, y, x - px0 > 0.5 ? x - px0 : 0.5, hgt, colour, tip);
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		an_svg_marker(b, AN_SHAPE_CIRCLE, amap(ax, v[i], px0, px1), y + hgt / 2, 2.4,
			      "fill=\"#fff\" stroke=\"#000\" stroke-width=\"1\"", NULL);
}

/* What is written right of a row's bars: its seconds, the task's, a note. */
static void tr_value_text(struct cm_buf *val, const struct tr_row *r)
{
	if (r->n_own)
		secs_text(val, r->own, r->n_own);
	if (r->n_task) {
		cm_buf_puts(val, val->len ? ", task " : "task ");
		secs_text(val, r->task, r->n_task);
	}
	if (r->note)
		cm_buf_printf(val, "%s%s", val->len ? "; " : "", r->note);
}

static void chart_transitions(struct an_charts *out, const struct an_analysis *a, size_t campaign)
{
	struct tr_rows rs = {NULL, 0, 0};
	/* in the order of the states, then those without runs */
	bool *seen = cm_calloc(a->n_trans ? a->n_trans : 1, sizeof(*seen));
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t o = 0; o < (pass ? a->n_trans : a->n_order); o++) {
			for (size_t i = 0; i < a->n_trans; i++) {
				const struct an_transition *t = &a->trans[i];
				if (seen[i] || t->campaign != campaign ||
				    (pass == 0 && t->state != a->order[o]) || (pass == 1 && i != o))
					continue;
				seen[i] = true;
				if (t->n_actions || isfinite(t->downtime_s) ||
				    cm_status_failed(t->status))
					tr_rows_of(&rs, a, t);
			}
		}
	}
	free(seen);
	if (!rs.n)
		return;
	double vmax = 0;
	for (size_t i = 0; i < rs.n; i++) {
		for (size_t k = 0; k < rs.v[i].n_own; k++)
			vmax = rs.v[i].own[k] > vmax ? rs.v[i].own[k] : vmax;
		for (size_t k = 0; k < rs.v[i].n_task; k++)
			vmax = rs.v[i].task[k] > vmax ? rs.v[i].task[k] : vmax;
	}
	struct axis ax;
	axis_make(&ax, 0, vmax > 0 ? vmax : 1, 6);
	double label_w = 0;
	for (size_t i = 0; i < rs.n; i++) {
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, rs.v[i].label, TR_LABEL);
		double px = an_svg_text_px(t.s, FONT_PX) + (rs.v[i].header ? 0 : 10);
		label_w = px > label_w ? px : label_w;
		cm_buf_release(&t);
	}
	/* room right of the plot for the longest value text, so that even the
	 * longest bar's text is whole (up to a limit; beyond it the text is cut
	 * and the whole of it is the tooltip) */
	double right = 140;
	for (size_t i = 0; i < rs.n; i++) {
		struct cm_buf val = {NULL, 0, 0};
		tr_value_text(&val, &rs.v[i]);
		double px = val.len ? an_svg_text_px(val.s, FONT_PX) + 14 : 0;
		right = px > right ? px : right;
		cm_buf_release(&val);
	}
	right = ceil(right < TR_RIGHT_MAX ? right : TR_RIGHT_MAX);
	double px0 = 12 + label_w + 10, w = WIDTH + (right - 140), px1 = w - right;
	if (px1 - px0 < 200) {
		px1 = px0 + 200;
		w = px1 + right;
	}
	struct legend leg = {NULL, 0, 0};
	bool task = false, down = false, back = false;
	for (size_t i = 0; i < rs.n; i++) {
		task |= rs.v[i].n_task > 0;
		down |= rs.v[i].kind == TR_DOWNTIME;
		back |= rs.v[i].kind == TR_DATA_BACK;
	}
	leg_add(&leg, LEG_SWATCH, C_OWN, "fiocamp's stopwatch");
	if (task)
		leg_add(&leg, LEG_SWATCH, C_TASK, "provider task");
	if (down)
		leg_add(&leg, LEG_SWATCH, C_DOWN, "downtime (until SSH answered)");
	if (back)
		leg_add(&leg, LEG_SWATCH, C_DATABACK, "data back (until verify-hash)");
	size_t lrows = legend_rows(&leg, w - 24);
	double row_h = 20, py0 = 50;
	double py1 = py0 + row_h * (double)rs.n + 4;
	double h = ceil(py1 + 38 + (double)lrows * LEG_ROW + 6);

	char *title;
	const struct an_campaign *c = &a->campaigns[campaign];
	if (a->n_campaigns > 1)
		title = cm_asprintf("State transitions of %s: seconds per action",
				    c->name ? c->name : c->manifest);
	else
		title = cm_strdup("State transitions: seconds per action");
	struct cm_buf b = {NULL, 0, 0};
	chart_open(&b, w, h, title,
		   "each action's seconds; downtime from the action that took the machine away");
	x_axis(&b, &ax, px0, px1, py0, py1, "seconds", 1);
	for (size_t i = 0; i < rs.n; i++) {
		const struct tr_row *r = &rs.v[i];
		double y = py0 + row_h * (double)i + 2;
		struct cm_buf t = {NULL, 0, 0};
		bool cut = an_svg_clip(&t, r->label, TR_LABEL);
		an_svg_put(&b, "<text x=\"%v\" y=\"%v\"%s>", r->header ? 12.0 : 22.0, y + 12,
			   r->header ? " font-weight=\"bold\"" : "");
		if (cut)
			an_svg_put(&b, "<title>%e</title>", r->label);
		an_svg_put(&b, "%e</text>\n", t.s);
		cm_buf_release(&t);
		if (r->n_own) {
			struct cm_buf tip = {NULL, 0, 0};
			cm_buf_printf(&tip, "%s, %s: ", r->state, r->label);
			secs_text(&tip, r->own, r->n_own);
			tr_bar(&b, &ax, px0, px1, y + 1, r->n_task ? 9 : 14, r->own, r->n_own,
			       r->colour, tip.s);
			cm_buf_release(&tip);
		}
		if (r->n_task) {
			struct cm_buf tip = {NULL, 0, 0};
			cm_buf_printf(&tip, "%s, %s, provider task: ", r->state, r->label);
			secs_text(&tip, r->task, r->n_task);
			tr_bar(&b, &ax, px0, px1, y + 10, 5, r->task, r->n_task, C_TASK, tip.s);
			cm_buf_release(&tip);
		}
		struct cm_buf val = {NULL, 0, 0};
		tr_value_text(&val, r);
		if (val.len) {
			/* right of the longest bar, inside the picture */
			double end = px0;
			for (size_t k = 0; k < r->n_own; k++)
				end = amap(&ax, r->own[k], px0, px1) > end
					  ? amap(&ax, r->own[k], px0, px1)
					  : end;
			for (size_t k = 0; k < r->n_task; k++)
				end = amap(&ax, r->task[k], px0, px1) > end
					  ? amap(&ax, r->task[k], px0, px1)
					  : end;
			double room = w - 8 - (end + 6);
			struct cm_buf vt = {NULL, 0, 0};
			bool vcut = false;
			if (an_svg_text_px(val.s, FONT_PX) <= room)
				cm_buf_puts(&vt, val.s);
			else
				vcut = an_svg_clip(
				    &vt, val.s, room > 0 ? (size_t)(room / (FONT_PX * 0.62)) : 2);
			an_svg_put(&b, "<text x=\"%v\" y=\"%v\" fill=\"%s\">", end + 6, y + 12,
				   r->bad ? "#b03000" : "#222");
			if (vcut)
				an_svg_put(&b, "<title>%e</title>", val.s);
			an_svg_put(&b, "%e</text>\n", vt.s);
			cm_buf_release(&vt);
		}
		cm_buf_release(&val);
	}
	legend_draw(&b, &leg, 12, py1 + 38 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	cm_buf_puts(&file, "transitions");
	if (a->n_campaigns > 1) {
		cm_buf_putc(&file, '-');
		slug(&file, c->name ? c->name : a->variants[0].name);
	}
	chart_add(out, AN_CHART_TRANSITIONS, &file, title, &b);
	legend_release(&leg);
	for (size_t i = 0; i < rs.n; i++) {
		free(rs.v[i].label);
		free(rs.v[i].note);
		free(rs.v[i].own);
		free(rs.v[i].task);
	}
	free(rs.v);
}

/* ---- 4: the variants compared -------------------------------------------------- */

static void chart_compare(struct an_charts *out, const struct an_analysis *a)
{
	const struct an_series **series;
	char **titles;
	size_t ns = an_compare_series(a, &series, &titles);
	size_t *rows = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*rows));
	size_t nr = 0;
	double label_w = 0;
	for (size_t k = 0; k < a->n_cols; k++) {
		if (!a->cols[k].n_runs)
			continue;
		rows[nr++] = k;
		char *name = an_col_name(a, &a->cols[k]);
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, name, 28);
		double px = an_svg_text_px(t.s, FONT_PX);
		label_w = px > label_w ? px : label_w;
		cm_buf_release(&t);
		free(name);
	}
	if (!ns || !nr) {
		for (size_t i = 0; i < ns; i++)
			free(titles[i]);
		free(titles);
		free(series);
		free(rows);
		return;
	}
	double w = WIDTH, px0 = 12 + label_w + 10, right = 110, px1 = w - right;
	if (px1 - px0 < 200) {
		px1 = px0 + 200;
		w = px1 + right;
	}
	double row_h = 20, panel_top = 22, panel_axis = 24;
	double panel_h = panel_top + row_h * (double)nr + panel_axis + 10;
	struct legend leg = {NULL, 0, 0};
	bool r1 = false, rest = false;
	for (size_t p = 0; p < ns; p++)
		rounds_seen(series[p], rows, nr, &r1, &rest);
	round_legend(&leg, r1, rest);
	leg_add(&leg, LEG_WHISKER, "#000", "min..max");
	leg_add(&leg, LEG_TEXT, "#000", "* = median outside the baseline variant's min..max");
	bool too_fast = false;
	for (size_t p = 0; p < ns; p++)
		for (size_t r = 0; r < nr; r++)
			too_fast |= series[p]->cells[rows[r]].too_fast > 0;
	if (too_fast)
		leg_add(&leg, LEG_TEXT, "#000",
			"dashed: >rate = bonnie++'s +++++ (too fast to time)");
	size_t lrows = legend_rows(&leg, w - 24);
	double top = 50;
	double h = ceil(top + panel_h * (double)ns + (double)lrows * LEG_ROW + 10);
	char *title = cm_asprintf("Variants compared: each test's headline metric");
	struct cm_buf sub = {NULL, 0, 0};
	cm_buf_printf(&sub, "against %s; IOPS, or MiB/s for blocks of 64 KiB and more",
		      a->variants[a->baseline_variant].name);
	struct cm_buf b = {NULL, 0, 0};
	chart_open(&b, w, h, title, sub.s);
	cm_buf_release(&sub);
	for (size_t p = 0; p < ns; p++) {
		const struct an_series *s = series[p];
		double y0 = top + panel_h * (double)p;
		double py0 = y0 + panel_top, py1 = py0 + row_h * (double)nr;
		double vmax = 0;
		for (size_t r = 0; r < nr; r++) {
			const struct an_cell *c = &s->cells[rows[r]];
			for (size_t i = 0; i < c->n; i++)
				vmax = isfinite(c->values[i]) && c->values[i] > vmax ? c->values[i]
										     : vmax;
			/* bonnie++'s +++++: the rate it was above is drawn too */
			if (c->too_fast && isfinite(c->too_fast_above) && c->too_fast_above > vmax)
				vmax = c->too_fast_above;
		}
		struct axis ax;
		axis_make(&ax, 0, vmax > 0 ? vmax : 1, 6);
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, titles[p], (size_t)((w - 24) / (12 * 0.62)));
		an_svg_put(
		    &b, "<text x=\"12\" y=\"%v\" font-size=\"12\" font-weight=\"bold\">%e</text>\n",
		    y0 + 15, t.s);
		cm_buf_release(&t);
		x_axis(&b, &ax, px0, px1, py0, py1, NULL, 1);
		const char *unit = value_unit(s->metric, s->log_type);
		for (size_t r = 0; r < nr; r++) {
			size_t k = rows[r];
			const struct an_cell *c = &s->cells[k];
			double y = py0 + row_h * (double)r;
			char *name = an_col_name(a, &a->cols[k]);
			struct cm_buf nt = {NULL, 0, 0};
			bool cut = an_svg_clip(&nt, name, 28);
			an_svg_put(&b, "<text x=\"12\" y=\"%v\"%s>", y + 14,
				   a->cols[k].variant == a->baseline_variant
				       ? " font-weight=\"bold\""
				       : "");
			if (cut)
				an_svg_put(&b, "<title>%e</title>", name);
			an_svg_put(&b, "%e</text>\n", nt.s);
			cm_buf_release(&nt);
			if ((!c->sum.n || !isfinite(c->sum.median)) && c->too_fast) {
				/* every round too fast for bonnie++ to time: only a bound */
				double x = px0 + 4;
				char above[32] = "";
				if (isfinite(c->too_fast_above)) {
					double xb = amap(&ax, c->too_fast_above, px0, px1);
					an_svg_put(
					    &b,
					    "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"14\" "
					    "fill=\"#888\" fill-opacity=\"0.12\" stroke=\"#888\" "
					    "stroke-dasharray=\"3 2\"/>\n",
					    px0, y + 3, xb - px0);
					an_fmt_short(above, sizeof(above), c->too_fast_above);
					x = xb + 4;
				}
				an_svg_put(&b,
					   "<text x=\"%v\" y=\"%v\" fill=\"#444\">%s%s%s(%z too "
					   "fast)</text>\n",
					   x, y + 14, above[0] ? "&gt;" : "", above[0] ? above : "",
					   above[0] ? " " : "", c->too_fast);
				free(name);
				continue;
			}
			if (!c->sum.n || !isfinite(c->sum.median)) {
				an_svg_put(&b,
					   "<text x=\"%v\" y=\"%v\" fill=\"#666\">no runs</text>\n",
					   px0 + 4, y + 14);
				free(name);
				continue;
			}
			const char *colour = an_svg_colour(style_of(a, k));
			double xm = amap(&ax, c->sum.median, px0, px1);
			char med[32], lo[32], hi[32], pct[32];
			an_fmt_short(med, sizeof(med), c->sum.median);
			an_fmt_short(lo, sizeof(lo), c->sum.min);
			an_fmt_short(hi, sizeof(hi), c->sum.max);
			pct[0] = '\0';
			if (a->cols[k].variant != a->baseline_variant)
				an_fmt_pct(pct, sizeof(pct), c->v_change_pct);
			struct cm_buf tip = {NULL, 0, 0};
			cm_buf_printf(&tip, "%s: median %s %s", name, med, unit);
			if (pct[0])
				cm_buf_printf(&tip, ", %s against %s%s", pct,
					      a->variants[a->baseline_variant].name,
					      c->v_outside ? " (outside its min..max)" : "");
			cm_buf_printf(&tip, "; min..max %s..%s over %zu rounds", lo, hi, c->sum.n);
			an_svg_put(
			    &b,
			    "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
			    "height=\"14\" fill=\"%s\" fill-opacity=\"0.25\"/>\n<line x1=\"%v\" "
			    "y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" stroke-width=\"2.5\"/>"
			    "</g>\n",
			    tip.s, px0, y + 3, xm - px0, colour, xm, y + 3, xm, y + 17, colour);
			cm_buf_release(&tip);
			double xa = amap(&ax, c->sum.min, px0, px1),
			       xb = amap(&ax, c->sum.max, px0, px1);
			if (c->sum.n > 1)
				an_svg_put(
				    &b,
				    "<path d=\"M%v %vV%vM%v %vH%vM%v %vV%v\" stroke=\"#000\" "
				    "fill=\"none\"/>\n",
				    xa, y + 6, y + 14, xa, y + 10, xb, xb, y + 6, y + 14);
			an_svg_put(&b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\">\n",
				   colour);
			for (size_t i = 0; i < c->n; i++) {
				double v = c->values[i];
				if (!isfinite(v))
					continue;
				char num[32];
				an_fmt_short(num, sizeof(num), v);
				char *tp = cm_asprintf("%s, round %d: %s %s", name, c->rounds[i],
						       num, unit);
				double yy =
				    y + 10 +
				    (c->n > 1 ? ((double)i / (double)(c->n - 1) - 0.5) * 6 : 0);
				if (c->first[i])
					an_svg_marker(&b, AN_SHAPE_DIAMOND, amap(&ax, v, px0, px1),
						      yy, 3.6, ROUND1_ATTRS, tp);
				else
					an_svg_marker(&b, AN_SHAPE_CIRCLE, amap(&ax, v, px0, px1),
						      yy, 3, "", tp);
				free(tp);
			}
			cm_buf_puts(&b, "</g>\n");
			char *vt = cm_asprintf("%s%s%s%s", med, pct[0] ? " " : "", pct,
					       pct[0] && c->v_outside ? "*" : "");
			double xt = (xb > xm ? xb : xm) + 6;
			an_svg_put(&b, "<text x=\"%v\" y=\"%v\">%e</text>\n", xt, y + 14, vt);
			free(vt);
			free(name);
		}
	}
	legend_draw(&b, &leg, 12, top + panel_h * (double)ns + 8, w - 24);
	cm_buf_puts(&b, "</svg>\n");
	struct cm_buf file = {NULL, 0, 0};
	cm_buf_puts(&file, "compare");
	chart_add(out, AN_CHART_COMPARE, &file, title, &b);
	legend_release(&leg);
	for (size_t i = 0; i < ns; i++)
		free(titles[i]);
	free(titles);
	free(series);
	free(rows);
}

/* ---- all of them ---------------------------------------------------------------- */

void an_charts_make(struct an_charts *out, const struct an_analysis *a,
		    const struct an_report_opts *o)
{
	memset(out, 0, sizeof(*out));
	if (a->n_variants > 1)
		chart_compare(out, a);
	for (size_t c = 0; c < a->n_campaigns; c++)
		chart_transitions(out, a, c);
	for (size_t t = 0; t < a->n_tests; t++) {
		const struct an_test *ts = &a->tests[t];
		for (size_t i = ts->series_start; i < ts->series_end; i++) {
			const struct an_series *s = &a->series[i];
			/* once per job and direction: its metrics, then its profile */
			bool seen = false;
			for (size_t k = ts->series_start; k < i && !seen; k++)
				seen = a->series[k].job_index == s->job_index &&
				       a->series[k].dir == s->dir;
			if (seen)
				continue;
			for (int m = 0; m < AN_M_FIRST_LOG; m++) {
				if (!o->metrics[m])
					continue;
				const struct an_series *ms =
				    an_find_series(a, t, s->job_index, s->dir, (enum an_metric)m);
				if (ms)
					chart_rounds(out, a, ms);
			}
			const struct an_series *first =
			    an_find_series(a, t, s->job_index, s->dir, AN_M_SEC_FIRST);
			const struct an_series *rec =
			    an_find_series(a, t, s->job_index, s->dir, AN_M_RECOVERY);
			for (size_t v = 0; first && v < a->n_variants; v++)
				chart_profile(out, a, first, rec, v);
		}
	}
}

int an_charts_write_dir(const struct an_charts *c, const char *dir, char *why, size_t why_len)
{
	struct stat st;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		snprintf(why, why_len, "%s: cannot make the directory: %s", dir, strerror(errno));
		return -1;
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, why_len, "%s: not a directory", dir);
		return -1;
	}
	static const char head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	for (size_t i = 0; i < c->n; i++) {
		char *path = cm_asprintf("%s/%s", dir, c->v[i].file);
		FILE *f = fopen(path, "w");
		if (!f) {
			snprintf(why, why_len, "%s: %s", path, strerror(errno));
			free(path);
			return -1;
		}
		fputs(head, f);
		fwrite(c->v[i].svg, 1, c->v[i].svg_len, f);
		int bad = ferror(f);
		bad |= fclose(f) != 0;
		if (bad) {
			snprintf(why, why_len, "%s: write error", path);
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}
