/* SPDX-License-Identifier: MIT */
/*
 * The charts of the report, each a standalone <svg> element: every round
 * per test and metric (rounds.c), round 1's per-second profile over the
 * baseline band (profile.c), the state transitions (transitions.c), and the
 * comparison of variants (compare.c).  Here: what they share, the list of
 * them in the order of the report, and the --svg files.  Nothing in them
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

#include "charts/chart.h"

/* ---- shared layout ------------------------------------------------------------- */

void an_axis_make(struct an_axis *ax, double lo, double hi, size_t want)
{
	ax->n = an_nice_ticks(lo, hi, want, &ax->step, ax->t, AN_MAX_TICKS);
	ax->lo = ax->t[0];
	ax->hi = ax->t[ax->n - 1];
	if (!(ax->hi > ax->lo))
		ax->hi = ax->lo + 1;
}

/* v on the axis, mapped to [p0, p1]; values beyond it are held at its ends. */
double an_axis_map(const struct an_axis *ax, double v, double p0, double p1)
{
	double f = (v - ax->lo) / (ax->hi - ax->lo);
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return p0 + f * (p1 - p0);
}

double an_axis_label_px(const struct an_axis *ax)
{
	double w = 0;
	for (size_t i = 0; i < ax->n; i++) {
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i], ax->step);
		double tw = an_svg_text_px(buf, AN_FONT_PX);
		w = tw > w ? tw : w;
	}
	return w;
}

/* The index of a column's colour, shape and dash: its state's place when
 * states are compared, else its variant's. */
size_t an_chart_style(const struct an_analysis *a, size_t col)
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

void an_chart_open(struct cm_buf *b, double w, double h, const char *title, const char *subtitle)
{
	an_svg_put(b,
		   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%v\" height=\"%v\" "
		   "viewBox=\"0 0 %v %v\" font-family=\"%s\" font-size=\"11\" role=\"img\">\n"
		   "<title>%e</title>\n<rect width=\"%v\" height=\"%v\" fill=\"#fff\"/>\n",
		   w, h, w, h, an_svg_fonts, title, w, h);
	struct cm_buf t = {NULL, 0, 0};
	an_svg_clip(&t, title, (size_t)((w - 24) / (AN_TITLE_PX * 0.62)));
	an_svg_put(b, "<text x=\"12\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%e</text>\n",
		   t.s);
	if (subtitle && *subtitle) {
		t.len = 0;
		an_svg_clip(&t, subtitle, (size_t)((w - 24) / (AN_FONT_PX * 0.62)));
		an_svg_put(b, "<text x=\"12\" y=\"36\" fill=\"#444\">%e</text>\n", t.s);
	}
	cm_buf_release(&t);
}

/* Horizontal grid lines and tick labels of a value axis on the left. */
void an_y_axis(struct cm_buf *b, const struct an_axis *ax, double x0, double x1, double y0,
	       double y1, const char *label)
{
	for (size_t i = 0; i < ax->n; i++) {
		double y = an_axis_map(ax, ax->t[i], y1, y0);
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i], ax->step);
		an_svg_put(b,
			   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
			   "<text x=\"%v\" y=\"%v\" text-anchor=\"end\" fill=\"#333\">%e</text>\n",
			   x0, y, x1, y, i ? AN_GRID_COLOUR : AN_AXIS_COLOUR, x0 - 5, y + 4, buf);
	}
	an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0, y0, x0,
		   y1, AN_AXIS_COLOUR);
	double ym = (y0 + y1) / 2;
	an_svg_put(b,
		   "<text transform=\"rotate(-90 15 %v)\" x=\"15\" y=\"%v\" "
		   "text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		   ym, ym, label);
}

/* Vertical grid lines and tick labels of a value axis at the bottom. */
void an_x_axis(struct cm_buf *b, const struct an_axis *ax, double x0, double x1, double y0,
	       double y1, const char *label, double scale)
{
	for (size_t i = 0; i < ax->n; i++) {
		double x = an_axis_map(ax, ax->t[i], x0, x1);
		char buf[32];
		an_fmt_tick(buf, sizeof(buf), ax->t[i] / scale, ax->step / scale);
		an_svg_put(
		    b,
		    "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
		    "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    x, y0, x, y1, i ? AN_GRID_COLOUR : AN_AXIS_COLOUR, x, y1 + 14, buf);
	}
	an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0, y1, x1,
		   y1, AN_AXIS_COLOUR);
	if (label)
		an_svg_put(
		    b, "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    (x0 + x1) / 2, y1 + 29, label);
}

/* ---- legends ------------------------------------------------------------------- */

struct an_leg *an_leg_add(struct an_legend *l, enum an_leg_kind kind, const char *colour,
			  const char *text)
{
	struct an_leg *it = CM_PUSH(l->v, l->n, l->cap);
	it->kind = kind;
	it->colour = colour;
	it->dash = "";
	it->text = cm_strdup(text);
	snprintf(it->attrs, sizeof(it->attrs), "fill=\"%s\"", colour);
	return it;
}

void an_legend_release(struct an_legend *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].text);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

#define LEG_MAXC 60

static double leg_width(const struct an_leg *it)
{
	struct cm_buf t = {NULL, 0, 0};
	an_svg_clip(&t, it->text, LEG_MAXC);
	double w = (it->kind == AN_LEG_TEXT ? 0 : 28) + an_svg_text_px(t.s, AN_FONT_PX) + 16;
	cm_buf_release(&t);
	return w;
}

/* Rows the legend takes in `width` px. */
size_t an_legend_rows(const struct an_legend *l, double width)
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

void an_legend_draw(struct cm_buf *b, const struct an_legend *l, double x0, double y0, double width)
{
	double x = 0, y = y0;
	for (size_t i = 0; i < l->n; i++) {
		const struct an_leg *it = &l->v[i];
		double w = leg_width(it);
		if (x > 0 && x + w > width) {
			y += AN_LEG_ROW;
			x = 0;
		}
		double sx = x0 + x, cy = y - 4;
		switch (it->kind) {
		case AN_LEG_MARKER:
			an_svg_marker(b, it->shape, sx + 11, cy, 4, it->attrs, NULL);
			break;
		case AN_LEG_LINE:
			an_svg_put(b,
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" "
				   "stroke-width=\"2\"%s%s%s/>\n",
				   sx, cy, sx + 22, cy, it->colour,
				   *it->dash ? " stroke-dasharray=\"" : "", it->dash,
				   *it->dash ? "\"" : "");
			an_svg_marker(b, it->shape, sx + 11, cy, 3.2, it->attrs, NULL);
			break;
		case AN_LEG_BAND:
			an_svg_put(b,
				   "<rect x=\"%v\" y=\"%v\" width=\"22\" height=\"10\" %s/>\n"
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n"
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n",
				   sx, cy - 5, AN_BAND_ATTRS, sx, cy - 5, sx + 22, cy - 5,
				   AN_BAND_EDGE, sx, cy + 5, sx + 22, cy + 5, AN_BAND_EDGE);
			break;
		case AN_LEG_TEXT:
			break;
		case AN_LEG_SWATCH:
			an_svg_put(
			    b, "<rect x=\"%v\" y=\"%v\" width=\"22\" height=\"10\" fill=\"%s\"/>\n",
			    sx, cy - 5, it->colour);
			break;
		case AN_LEG_WHISKER:
			an_svg_put(b,
				   "<path d=\"M%v %vV%vM%v %vH%vM%v %vV%v\" stroke=\"#000\" "
				   "fill=\"none\"/>\n",
				   sx + 2, cy - 4, cy + 4, sx + 2, cy, sx + 20, sx + 20, cy - 4,
				   cy + 4);
			break;
		case AN_LEG_BAR:
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
			   it->kind == AN_LEG_TEXT ? sx : sx + 28, y, t.s);
		cm_buf_release(&t);
		x += w;
	}
}

/* ---- the list -------------------------------------------------------------------- */

/* Letters, digits, '.', '_' stay; every run of anything else is one '-'. */
void an_chart_slug(struct cm_buf *b, const char *s)
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

struct an_chart *an_chart_add(struct an_charts *out, enum an_chart_kind kind, struct cm_buf *file,
			      char *title, struct cm_buf *svg)
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
	c->sweep = SIZE_MAX;
	c->svg_len = svg->len;
	c->svg = cm_buf_take(svg);
	return c;
}

bool an_several_jobs(const struct an_analysis *a, size_t test)
{
	const struct an_test *t = &a->tests[test];
	for (size_t i = t->series_start; i < t->series_end; i++) {
		if (a->series[i].job_index > 0)
			return true;
	}
	return false;
}

/* "cached4k: read" as the table's block title says it. */
void an_block_title(struct cm_buf *b, const struct an_analysis *a, const struct an_series *s)
{
	if (an_several_jobs(a, s->test))
		cm_buf_printf(b, "%s: job %zu \"%s\"%s%s, %s", a->tests[s->test].name,
			      s->job_index + 1, s->job_name,
			      s->client && !s->client_all ? " on " : "",
			      s->client && !s->client_all ? s->client : "", fc_ddir_name(s->dir));
	else
		cm_buf_printf(b, "%s: %s", a->tests[s->test].name, fc_ddir_name(s->dir));
}

/* "TEST[-jobN]-DIRECTION" of the file names. */
void an_block_file(struct cm_buf *b, const char *kind, const struct an_analysis *a,
		   const struct an_series *s)
{
	cm_buf_printf(b, "%s-", kind);
	an_chart_slug(b, a->tests[s->test].name);
	if (an_several_jobs(a, s->test))
		cm_buf_printf(b, "-job%zu", s->job_index + 1);
	cm_buf_printf(b, "-%s", fc_ddir_name(s->dir));
}

/* "IOPS", "MiB/s", "clat p99 (µs)": the table's label with its unit apart. */
char *an_axis_title(enum an_metric m, enum fc_log_type lt)
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

const char *an_value_unit(enum an_metric m, enum fc_log_type lt)
{
	const char *u = an_metric_unit(m, lt);
	return strcmp(u, "us") == 0 ? "µs" : u;
}

/* A column's change against the column the table compares it with. */
void an_col_change(const struct an_analysis *a, const struct an_series *s, size_t col, double *pct,
		   bool *outside, size_t *ref)
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

/* Whether the columns hold a round 1, and other rounds. */
void an_rounds_seen(const struct an_series *s, const size_t *cols, size_t nc, bool *r1, bool *rest)
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
void an_round_legend(struct an_legend *leg, bool r1, bool rest)
{
	if (r1) {
		struct an_leg *it = an_leg_add(leg, AN_LEG_MARKER, "#000", "round 1");
		it->shape = AN_SHAPE_DIAMOND;
		snprintf(it->attrs, sizeof(it->attrs), AN_ROUND1_ATTRS);
	}
	if (rest) {
		struct an_leg *it = an_leg_add(leg, AN_LEG_MARKER, "#666", "rounds 2..n");
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"#666\" stroke=\"#fff\" stroke-width=\"0.8\"");
	}
	an_leg_add(leg, AN_LEG_BAR, "#666", "median");
}
