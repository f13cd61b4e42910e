/* SPDX-License-Identifier: MIT */
/* Round 1 per second: each state's first round after its transition over
 * the baseline's per-second p10..p90 band, the second it got back ringed.
 * Under it, on the same time axis, what the run's telemetry says of the
 * same seconds (read/telemetry.c): a panel each for foreign I/O, CPU steal
 * and iowait, a line per state in its style, so that a dip can be matched
 * to its cause. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

struct line {
	size_t col;
	const struct an_sec_series *sec;
	const struct an_run *run; /* its telemetry: run->tm */
	double recovery;	  /* seconds; NaN */
	bool never;		  /* a band to reach, and it was never reached */
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

/* One chart being drawn: a variant's round 1 of a test, job and direction. */
struct profile {
	const struct an_analysis *a;
	const struct an_series *first;
	size_t variant;
	struct line *lines;
	size_t nl;
	const struct an_band *band; /* NULL: none to reach */
	const char *unit;
	char *band_name;
	double tscale;
	struct an_axis ay, ax;
	double px0, px1, py0, py1;
	struct cm_buf b;
};

/* The first round after the transition (of the first repetition when the
 * state repeats) of each column of the variant; the longest time and the
 * largest value. */
static void profile_lines(struct profile *p, const struct an_series *rec, double *tmax,
			  double *vmax)
{
	const struct an_analysis *a = p->a;
	const struct an_series *first = p->first;
	p->lines = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*p->lines));
	*tmax = *vmax = 0;
	for (size_t k = 0; k < a->n_cols; k++) {
		if (a->cols[k].variant != p->variant)
			continue;
		const struct an_cell *c = &first->cells[k];
		for (size_t i = 0; i < c->n; i++) {
			if (!c->first[i])
				continue;
			const struct an_run *r = &a->runs[c->runs[i]];
			if (first->job_index >= r->n_jobs)
				break;
			const struct an_sec_series *sec =
			    &r->jobs[first->job_index].dir[first->dir].sec;
			if (!sec->n)
				break;
			struct line *l = &p->lines[p->nl++];
			l->col = k;
			l->sec = sec;
			l->run = r;
			l->recovery = NAN;
			const struct an_cell *rc = rec ? &rec->cells[k] : NULL;
			for (size_t q = 0; rc && q < rc->n; q++) {
				if (rc->runs[q] == c->runs[i]) {
					l->recovery = rc->values[q];
					l->never = !isfinite(rc->values[q]);
				}
			}
			double end = (double)(sec->start_ms + sec->n * sec->interval_ms) / 1000.0;
			if (r->n_tm && r->tm[r->n_tm - 1].t1_s > end)
				end = r->tm[r->n_tm - 1].t1_s;
			*tmax = end > *tmax ? end : *tmax;
			for (size_t q = 0; q < sec->n; q++) {
				if (isfinite(sec->values[q]) && sec->values[q] > *vmax)
					*vmax = sec->values[q];
			}
			break;
		}
	}
}

/* The legend: a line per state, the band, the ring. */
static void profile_legend(const struct profile *p, struct an_legend *leg)
{
	for (size_t i = 0; i < p->nl; i++) {
		const struct line *l = &p->lines[i];
		size_t st = an_chart_style(p->a, l->col);
		struct cm_buf t = {NULL, 0, 0};
		char *name = line_name(p->a, l->col);
		cm_buf_puts(&t, name);
		free(name);
		if (isfinite(l->recovery))
			cm_buf_printf(&t, ": back in the band at %.0f s", l->recovery);
		else if (l->never)
			cm_buf_puts(&t, ": never back in the band");
		struct an_leg *it = an_leg_add(leg, AN_LEG_LINE, an_svg_colour(st), t.s);
		cm_buf_release(&t);
		it->shape = an_svg_shape(st);
		it->dash = an_svg_dash(st);
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"", an_svg_colour(st));
	}
	if (p->band) {
		char *t = cm_asprintf("%s p10..p90 per second", p->band_name);
		an_leg_add(leg, AN_LEG_BAND, "#000", t);
		free(t);
		struct an_leg *it = an_leg_add(leg, AN_LEG_MARKER, "#000", "back in the band");
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"");
	}
}

/* The band behind the lines. */
static void profile_band(struct profile *p)
{
	const struct an_band *band = p->band;
	double ya = an_axis_map(&p->ay, band->high, p->py1, p->py0),
	       yb = an_axis_map(&p->ay, band->low, p->py1, p->py0);
	char lo[32], hi[32];
	an_fmt_short(lo, sizeof(lo), band->low);
	an_fmt_short(hi, sizeof(hi), band->high);
	an_svg_put(&p->b,
		   "<g><title>band: p10..p90 of the per-second values of %e, %e..%e %s</title>"
		   "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\" %s/>\n"
		   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/>\n"
		   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" %s/></g>\n",
		   p->band_name, lo, hi, p->unit, p->px0, ya, p->px1 - p->px0,
		   yb - ya > 1 ? yb - ya : 1, AN_BAND_ATTRS, p->px0, ya, p->px1, ya, AN_BAND_EDGE,
		   p->px0, yb, p->px1, yb, AN_BAND_EDGE);
}

/* A line's path: each interval's rate held over it, or the minimum and
 * maximum of each pixel column of a long log; idx has room for them. */
static void profile_path(struct profile *p, const struct line *l, const char *name, size_t *idx,
			 size_t columns)
{
	const struct an_sec_series *sec = l->sec;
	size_t st = an_chart_style(p->a, l->col);
	const char *colour = an_svg_colour(st);
	const char *dash = an_svg_dash(st);
	double first_v, min_v, max_v, last_v, recovery;
	an_series_stats(sec, p->band, &first_v, &min_v, &max_v, &last_v, &recovery);
	char f1[32], f2[32], f3[32], f4[32];
	an_fmt_short(f1, sizeof(f1), first_v);
	an_fmt_short(f2, sizeof(f2), min_v);
	an_fmt_short(f3, sizeof(f3), max_v);
	an_fmt_short(f4, sizeof(f4), last_v);
	struct cm_buf tip = {NULL, 0, 0};
	cm_buf_printf(&tip, "%s, round 1: 1st second %s, slowest %s, fastest %s, last %s %s", name,
		      f1, f2, f3, f4, p->unit);
	if (isfinite(l->recovery))
		cm_buf_printf(&tip, "; back in the band at %.0f s", l->recovery);
	else if (l->never)
		cm_buf_puts(&tip, "; never back in the band");
	an_svg_put(&p->b,
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
		double y = an_axis_map(&p->ay, sec->values[idx[q]], p->py1, p->py0);
		if (stepped) {
			/* each interval's rate held over its interval */
			if (pen)
				an_svg_put(&p->b, "V%vH%v", y,
					   an_axis_map(&p->ax, t1, p->px0, p->px1));
			else
				an_svg_put(&p->b, "M%v %vH%v",
					   an_axis_map(&p->ax, t0, p->px0, p->px1), y,
					   an_axis_map(&p->ax, t1, p->px0, p->px1));
		} else {
			an_svg_put(&p->b, "%s%v %v", pen ? "L" : "M",
				   an_axis_map(&p->ax, (t0 + t1) / 2, p->px0, p->px1), y);
		}
		pen = true;
	}
	an_svg_put(&p->b, "\"><title>%e</title></path>\n", tip.s);
	cm_buf_release(&tip);
}

/* Markers with each second's value: all of a short log, some of a long
 * one; then the second it was back in the band, ringed. */
static void profile_markers(struct profile *p, const struct line *l, const char *name)
{
	const struct an_sec_series *sec = l->sec;
	size_t st = an_chart_style(p->a, l->col);
	size_t every = sec->n <= 40 ? 1 : (sec->n + 11) / 12;
	an_svg_put(&p->b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.6\">\n",
		   an_svg_colour(st));
	for (size_t q = every / 2; q < sec->n; q += every) {
		double v = sec->values[q];
		if (!isfinite(v))
			continue;
		double t0 = (double)(sec->start_ms + q * sec->interval_ms) / 1000.0;
		double t1 = t0 + (double)sec->interval_ms / 1000.0;
		char num[32];
		an_fmt_short(num, sizeof(num), v);
		char *t = cm_asprintf("%s, %.0f..%.0f s: %s %s", name, t0, t1, num, p->unit);
		an_svg_marker(&p->b, an_svg_shape(st),
			      an_axis_map(&p->ax, (t0 + t1) / 2, p->px0, p->px1),
			      an_axis_map(&p->ay, v, p->py1, p->py0), 2.8, "", t);
		free(t);
	}
	cm_buf_puts(&p->b, "</g>\n");
	if (!isfinite(l->recovery) || !sec->interval_ms)
		return;
	double pos = (l->recovery * 1000.0 - (double)sec->start_ms) / (double)sec->interval_ms;
	size_t q = pos <= 0 ? 0 : (size_t)llround(pos);
	if (q < sec->n && isfinite(sec->values[q])) {
		double t0 = l->recovery, t1 = t0 + (double)sec->interval_ms / 1000.0;
		char *t = cm_asprintf("%s: back in the band at %.0f s", name, l->recovery);
		an_svg_marker(&p->b, AN_SHAPE_CIRCLE,
			      an_axis_map(&p->ax, (t0 + t1) / 2, p->px0, p->px1),
			      an_axis_map(&p->ay, sec->values[q], p->py1, p->py0), 6.5,
			      "fill=\"none\" stroke=\"#000\" stroke-width=\"1.8\"", t);
		free(t);
	}
}

/* The band, the value axis and the time axis, once the lines are known. */
static void profile_axes(struct profile *p, double tmax, double vmax, const char **tunit)
{
	const struct an_analysis *a = p->a;
	const struct an_series *first = p->first;
	p->band =
	    an_find_band(a, p->variant, first->test, first->job_index, first->dir, first->log_type);
	if (p->band && !p->band->n)
		p->band = NULL;
	for (size_t i = 0; i < p->nl && !p->band; i++)
		p->lines[i].never = false; /* nothing to reach */
	if (p->band && p->band->high > vmax)
		vmax = p->band->high;
	p->unit = an_value_unit(AN_M_SEC_FIRST, first->log_type);
	size_t bcol = an_col_find(a, a->baseline, p->variant);
	p->band_name =
	    bcol == SIZE_MAX ? cm_strdup(a->states[a->baseline].name) : line_name(a, bcol);
	p->tscale = time_scale(tmax, tunit);
	an_axis_make(&p->ay, 0, vmax > 0 ? vmax : 1, 5);
	time_axis(&p->ax, tmax > 0 ? tmax / p->tscale : 1, p->tscale);
	for (size_t i = 0; i < p->ax.n; i++)
		p->ax.t[i] *= p->tscale;
	p->ax.lo *= p->tscale;
	p->ax.hi *= p->tscale;
	p->ax.step *= p->tscale;
}

/* The chart's title and the line under it. */
static void profile_open(struct profile *p, struct cm_buf *title, double w, double h)
{
	const struct an_analysis *a = p->a;
	const struct an_series *first = p->first;
	an_block_title(title, a, first);
	cm_buf_printf(title, " %s per second, round 1",
		      first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS");
	if (a->n_variants > 1)
		cm_buf_printf(title, ", %s", a->variants[p->variant].name);
	struct cm_buf sub = {NULL, 0, 0};
	if (p->band) {
		char lo[32], hi[32];
		an_fmt_short(lo, sizeof(lo), p->band->low);
		an_fmt_short(hi, sizeof(hi), p->band->high);
		cm_buf_printf(
		    &sub, "band: p10..p90 of the per-second values of %s, %s..%s %s (%zu values)",
		    p->band_name, lo, hi, p->unit, p->band->n);
	}
	an_chart_open(&p->b, w, h, title->s, sub.s);
	cm_buf_release(&sub);
}

/* ---- the telemetry under the chart ------------------------------------------------ */

/* A panel of the run's telemetry: one share of each interval, per line. */
enum tm_kind { TM_FOREIGN, TM_STEAL, TM_IOWAIT, TM_KINDS };

static const struct {
	const char *name;  /* in the hover text */
	const char *title; /* above the panel */
} tm_kinds[TM_KINDS] = {
    [TM_FOREIGN] = {"foreign I/O",
		    "foreign I/O: % of the bytes the device moved that were not fio's"},
    [TM_STEAL] = {"CPU steal", "CPU steal: % of all CPU time, taken by the hypervisor"},
    [TM_IOWAIT] = {"iowait", "iowait: % of all CPU time idle waiting for I/O"},
};

#define TM_PANEL_PX 56.0
#define TM_GAP_PX   24.0 /* the panel's title above it */

static double tm_value(const struct an_tm_interval *iv, enum tm_kind k)
{
	double v = k == TM_FOREIGN ? iv->foreign : k == TM_STEAL ? iv->steal : iv->iowait;
	return v * 100.0;
}

/* The largest value of kind k over the lines; -1 when none is known. */
static double tm_max(const struct profile *p, enum tm_kind k)
{
	double m = -1;
	for (size_t i = 0; i < p->nl; i++) {
		const struct an_run *r = p->lines[i].run;
		for (size_t q = 0; q < r->n_tm; q++) {
			double v = tm_value(&r->tm[q], k);
			if (isfinite(v) && v > m)
				m = v;
		}
	}
	return m;
}

/* The panels the lines' telemetry fills (foreign I/O only when fio's bytes
 * per second were known); 0 when no line has telemetry. */
static size_t tm_panels(const struct profile *p, enum tm_kind *kinds)
{
	size_t n = 0;
	for (int k = 0; k < TM_KINDS; k++) {
		if (tm_max(p, (enum tm_kind)k) >= 0)
			kinds[n++] = (enum tm_kind)k;
	}
	return n;
}

/* Vertical grid lines of the time axis, without labels. */
static void tm_grid(struct profile *p, double y0, double y1)
{
	for (size_t i = 0; i < p->ax.n; i++) {
		double x = an_axis_map(&p->ax, p->ax.t[i], p->px0, p->px1);
		an_svg_put(&p->b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n",
			   x, y0, x, y1, i ? AN_GRID_COLOUR : AN_AXIS_COLOUR);
	}
	an_svg_put(&p->b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", p->px0,
		   y1, p->px1, y1, AN_AXIS_COLOUR);
}

/* One line of a panel: each interval's share held over it, markers with
 * the values (some of them on a long run). */
static void tm_line(struct profile *p, const struct line *l, enum tm_kind k,
		    const struct an_axis *ay, double y0, double y1)
{
	const struct an_run *r = l->run;
	size_t st = an_chart_style(p->a, l->col);
	const char *colour = an_svg_colour(st), *dash = an_svg_dash(st);
	char *name = line_name(p->a, l->col);
	an_svg_put(&p->b,
		   "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" "
		   "stroke-linejoin=\"round\"%s%s%s d=\"",
		   colour, *dash ? " stroke-dasharray=\"" : "", dash, *dash ? "\"" : "");
	bool pen = false;
	double last_t1 = NAN;
	for (size_t q = 0; q < r->n_tm; q++) {
		const struct an_tm_interval *iv = &r->tm[q];
		double v = tm_value(iv, k);
		if (!isfinite(v)) {
			pen = false;
			continue;
		}
		double y = an_axis_map(ay, v, y1, y0);
		double x0 = an_axis_map(&p->ax, iv->t0_s, p->px0, p->px1),
		       x1 = an_axis_map(&p->ax, iv->t1_s, p->px0, p->px1);
		if (pen && last_t1 == iv->t0_s)
			an_svg_put(&p->b, "V%vH%v", y, x1);
		else
			an_svg_put(&p->b, "M%v %vH%v", x0, y, x1);
		pen = true;
		last_t1 = iv->t1_s;
	}
	an_svg_put(&p->b, "\"><title>%e, round 1: %e per second</title></path>\n", name,
		   tm_kinds[k].name);
	size_t every = r->n_tm <= 40 ? 1 : (r->n_tm + 11) / 12;
	an_svg_put(&p->b, "<g fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.5\">\n", colour);
	for (size_t q = every / 2; q < r->n_tm; q += every) {
		const struct an_tm_interval *iv = &r->tm[q];
		double v = tm_value(iv, k);
		if (!isfinite(v))
			continue;
		char *t = cm_asprintf("%s, %.0f..%.0f s: %s %.1f %%", name, iv->t0_s, iv->t1_s,
				      tm_kinds[k].name, v);
		an_svg_marker(&p->b, an_svg_shape(st),
			      an_axis_map(&p->ax, (iv->t0_s + iv->t1_s) / 2, p->px0, p->px1),
			      an_axis_map(ay, v, y1, y0), 2.2, "", t);
		free(t);
	}
	cm_buf_puts(&p->b, "</g>\n");
	free(name);
}

/* The panels from y downwards, the time axis's labels under the last; the
 * y where they end. */
static double tm_draw(struct profile *p, const enum tm_kind *kinds, size_t nk, double y,
		      const char *xlabel)
{
	for (size_t i = 0; i < nk; i++) {
		enum tm_kind k = kinds[i];
		double y0 = y + TM_GAP_PX, y1 = y0 + TM_PANEL_PX;
		double m = tm_max(p, k);
		struct an_axis ay;
		/* foreign I/O is a share that reaches 100 % often: its axis shows
		 * all of it; steal and iowait get room to show a few percent */
		an_axis_make(&ay, 0, k == TM_FOREIGN ? 100 : m > 5 ? m : 5, 3);
		an_svg_put(&p->b, "<g>\n<text x=\"%v\" y=\"%v\" fill=\"#333\">%e</text>\n", p->px0,
			   y0 - 8, tm_kinds[k].title);
		if (i + 1 == nk)
			an_x_axis(&p->b, &p->ax, p->px0, p->px1, y0, y1, xlabel, p->tscale);
		else
			tm_grid(p, y0, y1);
		an_y_axis(&p->b, &ay, p->px0, p->px1, y0, y1, "%");
		for (size_t l = 0; l < p->nl; l++) {
			if (p->lines[l].run->n_tm)
				tm_line(p, &p->lines[l], k, &ay, y0, y1);
		}
		cm_buf_puts(&p->b, "</g>\n");
		y = y1;
	}
	return y;
}

/* The legend's word for the lines without telemetry, when others have. */
static void tm_legend(const struct profile *p, struct an_legend *leg)
{
	struct cm_buf t = {NULL, 0, 0};
	for (size_t i = 0; i < p->nl; i++) {
		if (p->lines[i].run->n_tm)
			continue;
		char *name = line_name(p->a, p->lines[i].col);
		cm_buf_printf(&t, "%s%s", t.len ? ", " : "no telemetry: ", name);
		free(name);
	}
	if (t.len)
		an_leg_add(leg, AN_LEG_TEXT, "#333", t.s);
	cm_buf_release(&t);
}

void an_chart_profile(struct an_charts *out, const struct an_analysis *a,
		      const struct an_series *first, const struct an_series *rec, size_t variant)
{
	struct profile p = {.a = a, .first = first, .variant = variant};
	double tmax, vmax;
	profile_lines(&p, rec, &tmax, &vmax);
	if (!p.nl) {
		free(p.lines);
		return;
	}
	const char *tunit;
	profile_axes(&p, tmax, vmax, &tunit);
	struct an_legend leg = {NULL, 0, 0};
	profile_legend(&p, &leg);
	enum tm_kind kinds[TM_KINDS];
	size_t nk = tm_panels(&p, kinds);
	if (nk)
		tm_legend(&p, &leg);
	double w = AN_CHART_WIDTH, left = 30 + an_axis_label_px(&p.ay) + 8, right = 16;
	p.py0 = 50, p.py1 = p.py0 + 220, p.px0 = left, p.px1 = w - right;
	size_t lrows = an_legend_rows(&leg, w - 24);
	/* with panels the time axis's label is said under the last one */
	double below = p.py1 + (nk ? 18 : 38);
	if (nk)
		below += (double)nk * (TM_GAP_PX + TM_PANEL_PX) + 38;
	double h = ceil(below + (double)lrows * AN_LEG_ROW + 6);

	struct cm_buf title = {NULL, 0, 0};
	profile_open(&p, &title, w, h);
	char *ylabel =
	    cm_asprintf("%s per second", first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS");
	an_y_axis(&p.b, &p.ay, p.px0, p.px1, p.py0, p.py1, ylabel);
	free(ylabel);
	char *xlabel = cm_asprintf("%s since the start of the run", tunit);
	an_x_axis(&p.b, &p.ax, p.px0, p.px1, p.py0, p.py1, nk ? NULL : xlabel, p.tscale);
	if (p.band)
		profile_band(&p);
	size_t columns = (size_t)(p.px1 - p.px0);
	size_t *idx = cm_calloc(2 * columns + 2, sizeof(*idx));
	for (size_t i = 0; i < p.nl; i++) {
		char *name = line_name(a, p.lines[i].col);
		profile_path(&p, &p.lines[i], name, idx, columns);
		profile_markers(&p, &p.lines[i], name);
		free(name);
	}
	free(idx);
	free(p.band_name);
	if (nk)
		tm_draw(&p, kinds, nk, p.py1 + 18, xlabel);
	free(xlabel);
	an_legend_draw(&p.b, &leg, 12, below + 12, w - 24);
	cm_buf_puts(&p.b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	an_block_file(&file, "profile", a, first);
	if (a->n_variants > 1) {
		cm_buf_putc(&file, '-');
		an_chart_slug(&file, a->variants[variant].name);
	}
	struct an_chart *ch = an_chart_add(out, AN_CHART_PROFILE, &file, cm_buf_take(&title), &p.b);
	ch->test = first->test;
	ch->job_index = first->job_index;
	ch->dir = first->dir;
	an_legend_release(&leg);
	free(p.lines);
}
