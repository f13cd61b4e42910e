/* SPDX-License-Identifier: MIT */
/* Round 1 per second: each state's first round after its transition over
 * the baseline's per-second p10..p90 band, the second it got back ringed. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

struct line {
	size_t col;
	const struct an_sec_series *sec;
	double recovery; /* seconds; NaN */
	bool never;	 /* a band to reach, and it was never reached */
};

/* 0..span in steps a clock reads well: whole seconds at least (the logs
 * have no finer intervals), minutes by 5, 10, 15, 30, hours by 3, 6, 12. */
static void time_axis(struct an_axis *ax, double span, double scale)
{
	static const double minutes[] = {1, 2, 5, 10, 15, 20, 30, 60, 120};
	static const double hours[] = {1, 2, 3, 6, 12, 24, 48, 96, 168};
	an_axis_make(ax, 0, span, 6);
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
	for (double v = 0; ax->n < AN_MAX_TICKS; v += step) {
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

void an_chart_profile(struct an_charts *out, const struct an_analysis *a,
		      const struct an_series *first, const struct an_series *rec, size_t variant)
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
	const char *unit = an_value_unit(AN_M_SEC_FIRST, first->log_type);
	size_t bcol = an_col_find(a, a->baseline, variant);
	char *band_name =
	    bcol == SIZE_MAX ? cm_strdup(a->states[a->baseline].name) : line_name(a, bcol);
	const char *tunit;
	double tscale = time_scale(tmax, &tunit);
	struct an_axis ay, ax;
	an_axis_make(&ay, 0, vmax > 0 ? vmax : 1, 5);
	time_axis(&ax, tmax > 0 ? tmax / tscale : 1, tscale);
	for (size_t i = 0; i < ax.n; i++)
		ax.t[i] *= tscale;
	ax.lo *= tscale;
	ax.hi *= tscale;
	ax.step *= tscale;

	/* the legend: a line per state, the band, the ring */
	bool vary = a->n_variants > 1;
	struct an_legend leg = {NULL, 0, 0};
	for (size_t i = 0; i < nl; i++) {
		const struct line *l = &lines[i];
		size_t st = an_chart_style(a, l->col);
		struct cm_buf t = {NULL, 0, 0};
		char *name = line_name(a, l->col);
		cm_buf_puts(&t, name);
		free(name);
		if (isfinite(l->recovery))
			cm_buf_printf(&t, ": back in the band at %.0f s", l->recovery);
		else if (l->never)
			cm_buf_puts(&t, ": never back in the band");
		struct an_leg *it = an_leg_add(&leg, AN_LEG_LINE, an_svg_colour(st), t.s);
		cm_buf_release(&t);
		it->shape = an_svg_shape(st);
		it->dash = an_svg_dash(st);
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"", an_svg_colour(st));
	}
	if (band) {
		char *t = cm_asprintf("%s p10..p90 per second", band_name);
		an_leg_add(&leg, AN_LEG_BAND, "#000", t);
		free(t);
		struct an_leg *it = an_leg_add(&leg, AN_LEG_MARKER, "#000", "back in the band");
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"");
	}
	double w = AN_CHART_WIDTH, left = 30 + an_axis_label_px(&ay) + 8, right = 16;
	double py0 = 50, py1 = py0 + 220, px0 = left, px1 = w - right;
	size_t lrows = an_legend_rows(&leg, w - 24);
	double h = ceil(py1 + 38 + (double)lrows * AN_LEG_ROW + 6);

	struct cm_buf title = {NULL, 0, 0};
	an_block_title(&title, a, first);
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
	an_chart_open(&b, w, h, title.s, sub.s);
	cm_buf_release(&sub);
	char *ylabel =
	    cm_asprintf("%s per second", first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS");
	an_y_axis(&b, &ay, px0, px1, py0, py1, ylabel);
	free(ylabel);
	char *xlabel = cm_asprintf("%s since the start of the run", tunit);
	an_x_axis(&b, &ax, px0, px1, py0, py1, xlabel, tscale);
	free(xlabel);
	if (band) {
		double ya = an_axis_map(&ay, band->high, py1, py0),
		       yb = an_axis_map(&ay, band->low, py1, py0);
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
		    AN_BAND_ATTRS, px0, ya, px1, ya, AN_BAND_EDGE, px0, yb, px1, yb, AN_BAND_EDGE);
	}

	size_t columns = (size_t)(px1 - px0);
	size_t *idx = cm_calloc(2 * columns + 2, sizeof(*idx));
	for (size_t i = 0; i < nl; i++) {
		const struct line *l = &lines[i];
		const struct an_sec_series *sec = l->sec;
		size_t st = an_chart_style(a, l->col);
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
			double y = an_axis_map(&ay, sec->values[idx[q]], py1, py0);
			if (stepped) {
				/* each interval's rate held over its interval */
				if (pen)
					an_svg_put(&b, "V%vH%v", y, an_axis_map(&ax, t1, px0, px1));
				else
					an_svg_put(&b, "M%v %vH%v", an_axis_map(&ax, t0, px0, px1),
						   y, an_axis_map(&ax, t1, px0, px1));
			} else {
				an_svg_put(&b, "%s%v %v", pen ? "L" : "M",
					   an_axis_map(&ax, (t0 + t1) / 2, px0, px1), y);
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
			an_svg_marker(&b, an_svg_shape(st),
				      an_axis_map(&ax, (t0 + t1) / 2, px0, px1),
				      an_axis_map(&ay, v, py1, py0), 2.8, "", t);
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
				    &b, AN_SHAPE_CIRCLE, an_axis_map(&ax, (t0 + t1) / 2, px0, px1),
				    an_axis_map(&ay, sec->values[p], py1, py0), 6.5,
				    "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"", t);
				free(t);
			}
		}
		free(name);
	}
	free(idx);
	free(band_name);
	an_legend_draw(&b, &leg, 12, py1 + 38 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	an_block_file(&file, "profile", a, first);
	if (vary) {
		cm_buf_putc(&file, '-');
		an_chart_slug(&file, a->variants[variant].name);
	}
	struct an_chart *ch = an_chart_add(out, AN_CHART_PROFILE, &file, cm_buf_take(&title), &b);
	ch->test = first->test;
	ch->job_index = first->job_index;
	ch->dir = first->dir;
	an_legend_release(&leg);
	free(lines);
}
