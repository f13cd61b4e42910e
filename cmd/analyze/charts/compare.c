/* SPDX-License-Identifier: MIT */
/* The variants compared: each test's headline metric per variant and state,
 * the median as a bar, min..max as a whisker, every round as a dot. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

/* Column k's row of a panel at y: its name, its median as a bar, min..max
 * as a whisker, every round as a dot, the value and its change. */
static void cmp_row(struct cm_buf *b, const struct an_analysis *a, const struct an_series *s,
		    size_t k, const struct an_axis *ax, double px0, double px1, double y,
		    const char *unit)
{
	const struct an_cell *c = &s->cells[k];
	char *name = an_col_name(a, &a->cols[k]);
	struct cm_buf nt = {NULL, 0, 0};
	bool cut = an_svg_clip(&nt, name, 28);
	an_svg_put(b, "<text x=\"12\" y=\"%v\"%s>", y + 14,
		   a->cols[k].variant == a->baseline_variant ? " font-weight=\"bold\"" : "");
	if (cut)
		an_svg_put(b, "<title>%e</title>", name);
	an_svg_put(b, "%e</text>\n", nt.s);
	cm_buf_release(&nt);
	if ((!c->sum.n || !isfinite(c->sum.median)) && c->too_fast) {
		/* every round too fast for bonnie++ to time: only a bound */
		double x = px0 + 4;
		char above[32] = "";
		if (isfinite(c->too_fast_above)) {
			double xb = an_axis_map(ax, c->too_fast_above, px0, px1);
			an_svg_put(b,
				   "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"14\" "
				   "fill=\"#888\" fill-opacity=\"0.12\" stroke=\"#888\" "
				   "stroke-dasharray=\"3 2\"/>\n",
				   px0, y + 3, xb - px0);
			an_fmt_short(above, sizeof(above), c->too_fast_above);
			x = xb + 4;
		}
		an_svg_put(b,
			   "<text x=\"%v\" y=\"%v\" fill=\"#444\">%s%s%s(%z too "
			   "fast)</text>\n",
			   x, y + 14, above[0] ? "&gt;" : "", above[0] ? above : "",
			   above[0] ? " " : "", c->too_fast);
		free(name);
		return;
	}
	if (!c->sum.n || !isfinite(c->sum.median)) {
		an_svg_put(b, "<text x=\"%v\" y=\"%v\" fill=\"#666\">no runs</text>\n", px0 + 4,
			   y + 14);
		free(name);
		return;
	}
	const char *colour = an_svg_colour(an_chart_style(a, k));
	double xm = an_axis_map(ax, c->sum.median, px0, px1);
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
		cm_buf_printf(&tip, ", %s against %s%s", pct, a->variants[a->baseline_variant].name,
			      c->v_outside ? " (outside its min..max)" : "");
	cm_buf_printf(&tip, "; min..max %s..%s over %zu rounds", lo, hi, c->sum.n);
	an_svg_put(b,
		   "<g><title>%e</title><rect x=\"%v\" y=\"%v\" width=\"%v\" "
		   "height=\"14\" fill=\"%s\" fill-opacity=\"0.25\"/>\n<line x1=\"%v\" "
		   "y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\" stroke-width=\"2.5\"/>"
		   "</g>\n",
		   tip.s, px0, y + 3, xm - px0, colour, xm, y + 3, xm, y + 17, colour);
	cm_buf_release(&tip);
	double xa = an_axis_map(ax, c->sum.min, px0, px1),
	       xb = an_axis_map(ax, c->sum.max, px0, px1);
	if (c->sum.n > 1)
		an_svg_put(b,
			   "<path d=\"M%v %vV%vM%v %vH%vM%v %vV%v\" stroke=\"#000\" "
			   "fill=\"none\"/>\n",
			   xa, y + 6, y + 14, xa, y + 10, xb, xb, y + 6, y + 14);
	an_svg_put(b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\">\n", colour);
	for (size_t i = 0; i < c->n; i++) {
		double v = c->values[i];
		if (!isfinite(v))
			continue;
		char num[32];
		an_fmt_short(num, sizeof(num), v);
		char *tp = cm_asprintf("%s, round %d: %s %s", name, c->rounds[i], num, unit);
		double yy = y + 10 + (c->n > 1 ? ((double)i / (double)(c->n - 1) - 0.5) * 6 : 0);
		if (c->first[i])
			an_svg_marker(b, AN_SHAPE_DIAMOND, an_axis_map(ax, v, px0, px1), yy, 3.6,
				      AN_ROUND1_ATTRS, tp);
		else
			an_svg_marker(b, AN_SHAPE_CIRCLE, an_axis_map(ax, v, px0, px1), yy, 3, "",
				      tp);
		free(tp);
	}
	cm_buf_puts(b, "</g>\n");
	char *vt =
	    cm_asprintf("%s%s%s%s", med, pct[0] ? " " : "", pct, pct[0] && c->v_outside ? "*" : "");
	double xt = (xb > xm ? xb : xm) + 6;
	an_svg_put(b, "<text x=\"%v\" y=\"%v\">%e</text>\n", xt, y + 14, vt);
	free(vt);
	free(name);
}

void an_chart_compare(struct an_charts *out, const struct an_analysis *a)
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
		double px = an_svg_text_px(t.s, AN_FONT_PX);
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
	double w = AN_CHART_WIDTH, px0 = 12 + label_w + 10, right = 110, px1 = w - right;
	if (px1 - px0 < 200) {
		px1 = px0 + 200;
		w = px1 + right;
	}
	double row_h = 20, panel_top = 22, panel_axis = 24;
	double panel_h = panel_top + row_h * (double)nr + panel_axis + 10;
	struct an_legend leg = {NULL, 0, 0};
	bool r1 = false, rest = false;
	for (size_t p = 0; p < ns; p++)
		an_rounds_seen(series[p], rows, nr, &r1, &rest);
	an_round_legend(&leg, r1, rest);
	an_leg_add(&leg, AN_LEG_WHISKER, "#000", "min..max");
	an_leg_add(&leg, AN_LEG_TEXT, "#000", "* = median outside the baseline variant's min..max");
	bool too_fast = false;
	for (size_t p = 0; p < ns; p++)
		for (size_t r = 0; r < nr; r++)
			too_fast |= series[p]->cells[rows[r]].too_fast > 0;
	if (too_fast)
		an_leg_add(&leg, AN_LEG_TEXT, "#000",
			   "dashed: >rate = bonnie++'s +++++ (too fast to time)");
	size_t lrows = an_legend_rows(&leg, w - 24);
	double top = 50;
	double h = ceil(top + panel_h * (double)ns + (double)lrows * AN_LEG_ROW + 10);
	char *title = cm_asprintf("Variants compared: each test's headline metric");
	struct cm_buf sub = {NULL, 0, 0};
	cm_buf_printf(&sub, "against %s; IOPS, or MiB/s for blocks of 64 KiB and more",
		      a->variants[a->baseline_variant].name);
	struct cm_buf b = {NULL, 0, 0};
	an_chart_open(&b, w, h, title, sub.s);
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
		struct an_axis ax;
		an_axis_make(&ax, 0, vmax > 0 ? vmax : 1, 6);
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, titles[p], (size_t)((w - 24) / (12 * 0.62)));
		an_svg_put(
		    &b, "<text x=\"12\" y=\"%v\" font-size=\"12\" font-weight=\"bold\">%e</text>\n",
		    y0 + 15, t.s);
		cm_buf_release(&t);
		an_x_axis(&b, &ax, px0, px1, py0, py1, NULL, 1);
		const char *unit = an_value_unit(s->metric, s->log_type);
		for (size_t r = 0; r < nr; r++)
			cmp_row(&b, a, s, rows[r], &ax, px0, px1, py0 + row_h * (double)r, unit);
	}
	an_legend_draw(&b, &leg, 12, top + panel_h * (double)ns + 8, w - 24);
	cm_buf_puts(&b, "</svg>\n");
	struct cm_buf file = {NULL, 0, 0};
	cm_buf_puts(&file, "compare");
	an_chart_add(out, AN_CHART_COMPARE, &file, title, &b);
	an_legend_release(&leg);
	for (size_t i = 0; i < ns; i++)
		free(titles[i]);
	free(titles);
	free(series);
	free(rows);
}
