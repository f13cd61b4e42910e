/* SPDX-License-Identifier: MIT */
/* The chart of every round of a series: a dot per round in each column, the
 * median as a bar, the reference's min..max as a band. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

/* The ring around a disturbed round's dot. */
#define DISTURBED_COLOUR "#c00"
#define DISTURBED_ATTRS	 "fill=\"none\" stroke=\"" DISTURBED_COLOUR "\" stroke-width=\"1.5\""

/* One chart being drawn. */
struct rounds {
	const struct an_analysis *a;
	const struct an_series *s;
	size_t *cols; /* the grid columns with a value, in order */
	size_t nc;
	const char *unit;
	struct an_axis ay;
	char *ylabel;
	bool by_state; /* columns named by their state (else by their variant) */
	bool groups;   /* variants and states both vary: variants below the names */
	bool rotate;   /* the names are written at an angle */
	size_t fit;    /* characters of a name that fit under its column */
	double left, right, slot, w, h, label_h, group_h;
	double px0, px1, py0, py1;
	/* the band: the baseline state's min..max in each variant, or with one
	 * state the baseline variant's, across all columns */
	bool by_variant_band;
	struct an_legend leg;
	struct cm_buf b;
};

/* The columns with a value, and the largest value; false if none. */
static bool rounds_columns(struct rounds *r, double *vmax)
{
	const struct an_analysis *a = r->a;
	r->cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*r->cols));
	*vmax = 0;
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_cell *c = &r->s->cells[k];
		bool any = false;
		for (size_t i = 0; i < c->n; i++) {
			if (isfinite(c->values[i])) {
				any = true;
				*vmax = c->values[i] > *vmax ? c->values[i] : *vmax;
			}
		}
		if (any)
			r->cols[r->nc++] = k;
	}
	return r->nc > 0;
}

/* The width of the columns and of the names under them. */
static void rounds_layout(struct rounds *r)
{
	const struct an_analysis *a = r->a;
	size_t nc = r->nc;
	/* columns: names under them, variants below when both vary */
	r->by_state = a->n_order > 1 || a->n_variants < 2;
	r->groups = a->n_variants > 1 && a->n_order > 1;
	r->left = 30 + an_axis_label_px(&r->ay) + 8;
	r->right = 16;
	r->slot = (AN_CHART_WIDTH - r->left - r->right) / (double)nc;
	if (r->slot < 52)
		r->slot = 52;
	r->w = ceil(r->left + r->right + r->slot * (double)nc);
	r->fit = (size_t)((r->slot - 6) / (AN_FONT_PX * 0.62));
	r->rotate = false;
	double longest = 0;
	for (size_t i = 0; i < nc; i++) {
		const struct an_col *c = &a->cols[r->cols[i]];
		const char *name =
		    r->by_state ? a->states[c->state].name : a->variants[c->variant].name;
		size_t cw = an_text_width(name, strlen(name));
		r->rotate |= cw > r->fit;
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, name, 24);
		double px = an_svg_text_px(t.s, AN_FONT_PX);
		longest = px > longest ? px : longest;
		cm_buf_release(&t);
	}
	r->label_h = r->rotate ? longest * 0.574 + 16 : 18; /* sin 35 degrees */
	/* a rotated first label reaches left of its column by cos 35 of its length */
	if (r->rotate && r->slot / 2 + r->left < longest * 0.819 + 10) {
		r->left = longest * 0.819 + 10 - r->slot / 2;
		r->w = ceil(r->left + r->right + r->slot * (double)nc);
	}
	r->group_h = r->groups ? 18 : 0;
}

/* The legend, and with it the height of the chart. */
static void rounds_legend(struct rounds *r)
{
	const struct an_analysis *a = r->a;
	r->by_variant_band = a->n_order < 2;
	const char *band_of = r->by_variant_band ? a->variants[a->baseline_variant].name
						 : a->states[a->baseline].name;
	bool any_band = false;
	for (size_t i = 0; i < r->nc && !any_band; i++) {
		size_t bc = r->by_variant_band
				? a->base_col
				: an_col_find(a, a->baseline, a->cols[r->cols[i]].variant);
		any_band = bc != SIZE_MAX && r->s->cells[bc].sum.n;
	}
	bool any_r1 = false, any_rest = false;
	an_rounds_seen(r->s, r->cols, r->nc, &any_r1, &any_rest);
	an_round_legend(&r->leg, any_r1, any_rest);
	bool any_disturbed = false;
	for (size_t i = 0; i < r->nc; i++)
		any_disturbed |= r->s->cells[r->cols[i]].disturbed_n > 0;
	if (any_disturbed) {
		struct an_leg *it =
		    an_leg_add(&r->leg, AN_LEG_MARKER, DISTURBED_COLOUR, "disturbed (telemetry)");
		snprintf(it->attrs, sizeof(it->attrs), DISTURBED_ATTRS);
	}
	if (any_band) {
		char *band_text = cm_asprintf("%s min..max (* = median outside it)", band_of);
		an_leg_add(&r->leg, AN_LEG_BAND, "#000", band_text);
		free(band_text);
	}
	size_t lrows = an_legend_rows(&r->leg, r->w - 24);
	r->py0 = 58;
	r->py1 = r->py0 + 220;
	r->h = ceil(r->py1 + r->label_h + r->group_h + 8 + (double)lrows * AN_LEG_ROW + 6);
	r->px0 = r->left;
	r->px1 = r->w - r->right;
}

/* The reference's min..max behind the columns [i, j) compared with it. */
static void rounds_band(struct rounds *r, size_t i, size_t j, size_t v)
{
	const struct an_analysis *a = r->a;
	size_t bc = r->by_variant_band ? a->base_col : an_col_find(a, a->baseline, v);
	const struct an_cell *bcell = bc == SIZE_MAX ? NULL : &r->s->cells[bc];
	if (!bcell || !bcell->sum.n || !isfinite(bcell->sum.min))
		return;
	double xa = r->px0 + r->slot * (double)i + 2, xb = r->px0 + r->slot * (double)j - 2;
	double ya = an_axis_map(&r->ay, bcell->sum.max, r->py1, r->py0);
	double yb = an_axis_map(&r->ay, bcell->sum.min, r->py1, r->py0);
	char lo[32], hi[32];
	an_fmt_short(lo, sizeof(lo), bcell->sum.min);
	an_fmt_short(hi, sizeof(hi), bcell->sum.max);
	char *bname = an_col_name(a, &a->cols[bc]);
	char *tip = cm_asprintf("%s: min..max %s..%s %s over %zu rounds", bname, lo, hi, r->unit,
				bcell->sum.n);
	free(bname);
	an_svg_put(&r->b,
		   "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
		   "height=\"%v\" %s/>\n<line x1=\"%v\" y1=\"%v\" x2=\"%v\" "
		   "y2=\"%v\" %s/>\n<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" "
		   "%s/></g>\n",
		   tip, xa, ya, xb - xa, yb - ya > 1 ? yb - ya : 1, AN_BAND_ATTRS, xa, ya, xb, ya,
		   AN_BAND_EDGE, xa, yb, xb, yb, AN_BAND_EDGE);
	free(tip);
}

/* The variant's name under its columns [i, j), a line before it. */
static void rounds_group(struct rounds *r, size_t i, size_t j, size_t v)
{
	if (i > 0)
		an_svg_put(&r->b,
			   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" "
			   "stroke=\"#999\"/>\n",
			   r->px0 + r->slot * (double)i, r->py0, r->px0 + r->slot * (double)i,
			   r->py1 + r->label_h + r->group_h);
	struct cm_buf t = {NULL, 0, 0};
	an_svg_clip(&t, r->a->variants[v].name,
		    (size_t)((r->slot * (double)(j - i) - 6) / (AN_FONT_PX * 0.62)));
	an_svg_put(&r->b,
		   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" "
		   "font-weight=\"bold\">%e</text>\n",
		   r->px0 + r->slot * ((double)i + (double)j) / 2, r->py1 + r->label_h + 14, t.s);
	cm_buf_release(&t);
}

/* The bands and the variants' names, a variant's columns at a time. */
static void rounds_bands(struct rounds *r)
{
	const struct an_analysis *a = r->a;
	for (size_t i = 0; i < r->nc;) {
		size_t v = a->cols[r->cols[i]].variant, j = i;
		while (j < r->nc && (r->by_variant_band || a->cols[r->cols[j]].variant == v))
			j++;
		rounds_band(r, i, j, v);
		if (r->groups)
			rounds_group(r, i, j, v);
		i = j;
	}
}

/* Column k's median as a bar, with its tooltip. */
static void rounds_bar(struct rounds *r, size_t k, double cx, const char *name, const char *pcts,
		       bool outside, size_t ref)
{
	const struct an_analysis *a = r->a;
	const struct an_cell *c = &r->s->cells[k];
	const char *colour = an_svg_colour(an_chart_style(a, k));
	double bw = r->slot * 0.62 > 60 ? 60 : r->slot * 0.62;
	double y = an_axis_map(&r->ay, c->sum.median, r->py1, r->py0);
	char med[32], lo[32], hi[32], r1[32], rest[32];
	an_fmt_short(med, sizeof(med), c->sum.median);
	an_fmt_short(lo, sizeof(lo), c->sum.min);
	an_fmt_short(hi, sizeof(hi), c->sum.max);
	an_fmt_short(r1, sizeof(r1), c->round1);
	an_fmt_short(rest, sizeof(rest), c->rest_median);
	struct cm_buf tip = {NULL, 0, 0};
	cm_buf_printf(&tip, "%s: median %s %s", name, med, r->unit);
	if (pcts[0]) {
		char *rn = an_col_name(a, &a->cols[ref]);
		cm_buf_printf(&tip, ", %s against %s%s", pcts, rn,
			      outside ? " (outside its min..max)" : "");
		free(rn);
	}
	cm_buf_printf(&tip, "; min..max %s..%s over %zu rounds; round 1 %s, rounds 2..n %s", lo, hi,
		      c->sum.n, r1, rest);
	an_svg_put(&r->b,
		   "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
		   "height=\"%v\" fill=\"%s\" fill-opacity=\"0.25\"/>\n<line x1=\"%v\" "
		   "y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" "
		   "stroke-width=\"2.5\"/></g>\n",
		   tip.s, cx - bw / 2, y, bw, r->py1 - y, colour, cx - bw / 2, y, cx + bw / 2, y,
		   colour);
	cm_buf_release(&tip);
}

/* Every round of column k as a dot, in round order from left to right. */
static void rounds_dots(struct rounds *r, size_t k, double cx, size_t ref)
{
	const struct an_cell *c = &r->s->cells[k];
	const char *colour = an_svg_colour(an_chart_style(r->a, k));
	double spread = r->slot * 0.5 < (double)c->n * 7 ? r->slot * 0.5 : (double)c->n * 7;
	double rad = c->n > 30 ? 2.5 : 3.5;
	an_svg_put(&r->b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\">\n", colour);
	for (size_t v = 0; v < c->n; v++) {
		double val = c->values[v];
		if (!isfinite(val))
			continue;
		double x = cx - spread / 2 + spread * ((double)v + 0.5) / (double)c->n;
		double y = an_axis_map(&r->ay, val, r->py1, r->py0);
		char num[32], p[32];
		an_fmt_short(num, sizeof(num), val);
		an_fmt_pct(p, sizeof(p),
			   an_pct_change(val, ref == SIZE_MAX ? c->sum.median
							      : r->s->cells[ref].sum.median));
		/* the column's name is under it: the dot says its round (and
		 * why it was disturbed) */
		const char *why = r->a->runs[c->runs[v]].disturbed;
		char *tip =
		    cm_asprintf("round %d: %s %s%s%s%s%s", c->rounds[v], num, r->unit,
				p[0] ? ", " : "", p, why ? "; disturbed: " : "", why ? why : "");
		if (why)
			an_svg_marker(&r->b, AN_SHAPE_CIRCLE, x, y, rad + 3.2, DISTURBED_ATTRS,
				      NULL);
		if (c->first[v])
			an_svg_marker(&r->b, AN_SHAPE_DIAMOND, x, y, 4.2, AN_ROUND1_ATTRS, tip);
		else
			an_svg_marker(&r->b, AN_SHAPE_CIRCLE, x, y, rad, "", tip);
		free(tip);
	}
	cm_buf_puts(&r->b, "</g>\n");
}

/* Column k's name under it. */
static void rounds_label(struct rounds *r, size_t k, double cx)
{
	const struct an_col *col = &r->a->cols[k];
	const char *label =
	    r->by_state ? r->a->states[col->state].name : r->a->variants[col->variant].name;
	struct cm_buf t = {NULL, 0, 0};
	bool cut = an_svg_clip(&t, label, r->rotate ? 24 : r->fit);
	if (r->rotate)
		an_svg_put(&r->b,
			   "<text transform=\"rotate(-35 %v %v)\" x=\"%v\" y=\"%v\" "
			   "text-anchor=\"end\">",
			   cx + 4, r->py1 + 12, cx + 4, r->py1 + 12);
	else
		an_svg_put(&r->b, "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\">", cx,
			   r->py1 + 15);
	if (cut)
		an_svg_put(&r->b, "<title>%e</title>", label);
	an_svg_put(&r->b, "%e</text>\n", t.s);
	cm_buf_release(&t);
}

/* Column i of the chart: its bar, its change on top, its dots, its name. */
static void rounds_column(struct rounds *r, size_t i)
{
	const struct an_analysis *a = r->a;
	size_t k = r->cols[i];
	const struct an_cell *c = &r->s->cells[k];
	double cx = r->px0 + r->slot * ((double)i + 0.5);
	char *name = an_col_name(a, &a->cols[k]);
	double pct;
	bool outside;
	size_t ref;
	an_col_change(a, r->s, k, &pct, &outside, &ref);
	char pcts[32];
	an_fmt_pct(pcts, sizeof(pcts), pct);
	if (isfinite(c->sum.median))
		rounds_bar(r, k, cx, name, pcts, outside, ref);
	/* the change on top, as in the table */
	const char *top = k == a->base_col ? "base" : pcts;
	if (*top) {
		char *t = cm_asprintf("%s%s", top, outside ? "*" : "");
		an_svg_put(&r->b,
			   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#444\" "
			   "font-size=\"10\">%e</text>\n",
			   cx, r->py0 - 6, t);
		free(t);
	}
	rounds_dots(r, k, cx, ref);
	rounds_label(r, k, cx);
	free(name);
}

void an_chart_rounds(struct an_charts *out, const struct an_analysis *a, const struct an_series *s)
{
	struct rounds r = {.a = a, .s = s};
	double vmax;
	if (!rounds_columns(&r, &vmax)) {
		free(r.cols);
		return;
	}
	r.unit = an_value_unit(s->metric, s->log_type);
	an_axis_make(&r.ay, 0, vmax > 0 ? vmax : 1, 5);
	r.ylabel = an_axis_title(s->metric, s->log_type);
	rounds_layout(&r);
	rounds_legend(&r);

	struct cm_buf title = {NULL, 0, 0};
	an_block_title(&title, a, s);
	cm_buf_printf(&title, " %s, every round", r.ylabel);
	struct cm_buf sub = {NULL, 0, 0};
	an_wl_describe(&sub, a->tests[s->test].workload, AN_WL_ALL & ~(1u << AN_WL_NAME), true);
	an_chart_open(&r.b, r.w, r.h, title.s, sub.s);
	cm_buf_release(&sub);
	an_y_axis(&r.b, &r.ay, r.px0, r.px1, r.py0, r.py1, r.ylabel);
	rounds_bands(&r);
	for (size_t i = 0; i < r.nc; i++)
		rounds_column(&r, i);
	an_legend_draw(&r.b, &r.leg, 12, r.py1 + r.label_h + r.group_h + 8 + 12, r.w - 24);
	cm_buf_puts(&r.b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	an_block_file(&file, "rounds", a, s);
	cm_buf_printf(&file, "-%s", an_metric_name(s->metric));
	struct an_chart *ch = an_chart_add(out, AN_CHART_ROUNDS, &file, cm_buf_take(&title), &r.b);
	ch->test = s->test;
	ch->job_index = s->job_index;
	ch->dir = s->dir;
	an_legend_release(&r.leg);
	free(r.ylabel);
	free(r.cols);
}
