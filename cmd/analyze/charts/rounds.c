/* SPDX-License-Identifier: MIT */
/* The chart of every round of a series: a dot per round in each column, the
 * median as a bar, the reference's min..max as a band. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

void an_chart_rounds(struct an_charts *out, const struct an_analysis *a, const struct an_series *s)
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
	const char *unit = an_value_unit(s->metric, s->log_type);
	struct an_axis ay;
	an_axis_make(&ay, 0, vmax > 0 ? vmax : 1, 5);
	char *ylabel = an_axis_title(s->metric, s->log_type);

	/* columns: names under them, variants below when both vary */
	bool by_state = a->n_order > 1 || a->n_variants < 2;
	bool groups = a->n_variants > 1 && a->n_order > 1;
	double left = 30 + an_axis_label_px(&ay) + 8, right = 16;
	double slot = (AN_CHART_WIDTH - left - right) / (double)nc;
	if (slot < 52)
		slot = 52;
	double w = ceil(left + right + slot * (double)nc);
	size_t fit = (size_t)((slot - 6) / (AN_FONT_PX * 0.62));
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
		double px = an_svg_text_px(t.s, AN_FONT_PX);
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
	struct an_legend leg = {NULL, 0, 0};
	bool any_r1 = false, any_rest = false;
	an_rounds_seen(s, cols, nc, &any_r1, &any_rest);
	an_round_legend(&leg, any_r1, any_rest);
	if (any_band) {
		char *band_text = cm_asprintf("%s min..max (* = median outside it)", band_of);
		an_leg_add(&leg, AN_LEG_BAND, "#000", band_text);
		free(band_text);
	}
	size_t lrows = an_legend_rows(&leg, w - 24);

	double py0 = 58, ph = 220;
	double py1 = py0 + ph;
	double h = ceil(py1 + label_h + group_h + 8 + (double)lrows * AN_LEG_ROW + 6);
	double px0 = left, px1 = w - right;

	struct cm_buf title = {NULL, 0, 0};
	an_block_title(&title, a, s);
	cm_buf_printf(&title, " %s, every round", ylabel);
	struct cm_buf sub = {NULL, 0, 0};
	an_wl_describe(&sub, a->tests[s->test].workload, AN_WL_ALL & ~(1u << AN_WL_NAME), true);
	struct cm_buf b = {NULL, 0, 0};
	an_chart_open(&b, w, h, title.s, sub.s);
	cm_buf_release(&sub);
	an_y_axis(&b, &ay, px0, px1, py0, py1, ylabel);

	/* the reference's min..max behind the columns compared with it */
	for (size_t i = 0; i < nc;) {
		size_t v = a->cols[cols[i]].variant, j = i;
		while (j < nc && (by_variant_band || a->cols[cols[j]].variant == v))
			j++;
		size_t bc = by_variant_band ? a->base_col : an_col_find(a, a->baseline, v);
		const struct an_cell *bcell = bc == SIZE_MAX ? NULL : &s->cells[bc];
		if (bcell && bcell->sum.n && isfinite(bcell->sum.min)) {
			double xa = px0 + slot * (double)i + 2, xb = px0 + slot * (double)j - 2;
			double ya = an_axis_map(&ay, bcell->sum.max, py1, py0);
			double yb = an_axis_map(&ay, bcell->sum.min, py1, py0);
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
				   tip, xa, ya, xb - xa, yb - ya > 1 ? yb - ya : 1, AN_BAND_ATTRS,
				   xa, ya, xb, ya, AN_BAND_EDGE, xa, yb, xb, yb, AN_BAND_EDGE);
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
				    (size_t)((slot * (double)(j - i) - 6) / (AN_FONT_PX * 0.62)));
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
		size_t style = an_chart_style(a, k);
		const char *colour = an_svg_colour(style);
		double cx = px0 + slot * ((double)i + 0.5);
		char *name = an_col_name(a, col);
		double pct;
		bool outside;
		size_t ref;
		an_col_change(a, s, k, &pct, &outside, &ref);
		char pcts[32];
		an_fmt_pct(pcts, sizeof(pcts), pct);

		/* the median as a bar */
		if (isfinite(c->sum.median)) {
			double bw = slot * 0.62 > 60 ? 60 : slot * 0.62;
			double y = an_axis_map(&ay, c->sum.median, py1, py0);
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
			double y = an_axis_map(&ay, val, py1, py0);
			char num[32], p[32];
			an_fmt_short(num, sizeof(num), val);
			an_fmt_pct(p, sizeof(p),
				   an_pct_change(val, ref == SIZE_MAX ? c->sum.median
								      : s->cells[ref].sum.median));
			/* the column's name is under it: the dot says its round */
			char *tip = cm_asprintf("round %d: %s %s%s%s", c->rounds[v], num, unit,
						p[0] ? ", " : "", p);
			if (c->first[v])
				an_svg_marker(&b, AN_SHAPE_DIAMOND, x, y, 4.2, AN_ROUND1_ATTRS,
					      tip);
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
	an_legend_draw(&b, &leg, 12, py1 + label_h + group_h + 8 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	an_block_file(&file, "rounds", a, s);
	cm_buf_printf(&file, "-%s", an_metric_name(s->metric));
	struct an_chart *ch = an_chart_add(out, AN_CHART_ROUNDS, &file, cm_buf_take(&title), &b);
	ch->test = s->test;
	ch->job_index = s->job_index;
	ch->dir = s->dir;
	an_legend_release(&leg);
	free(ylabel);
	free(cols);
}
