/* SPDX-License-Identifier: MIT */
/*
 * The charts of a sweep (stats/sweep.c): its headline (IOPS, or MiB/s) against
 * the swept option, a line per value of the other option and per state and
 * variant, every round a dot, min..max a whisker; and p99 latency against the
 * headline through the queue depths (numjobs when iodepth is not swept), the
 * saturation point ringed.  Queue depths, job counts and block sizes are
 * placed on a log axis (1, 2, 4 ... 64 evenly apart); a value axis is a log
 * axis when its values span more than 20 times.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"
#include "read/read.h"

/* Values spanning more than this many times get a log axis. */
#define LOG_SPAN 20.0

/* A value axis, linear from 0 or logarithmic. */
struct vaxis {
	bool log;
	struct an_axis ax; /* the ticks; lo and hi as values */
};

/* Ticks at 1, 2 and 5 times the powers of ten (the powers alone over more
 * than four decades), from the last at or below lo to the first at or
 * above hi. */
static void log_axis(struct an_axis *ax, double lo, double hi)
{
	double e0 = floor(log10(lo)), e1 = ceil(log10(hi));
	bool decades = e1 - e0 > 4;
	static const double mant[] = {1, 2, 5};
	size_t nm = decades ? 1 : 3;
	double cand[AN_MAX_TICKS * 2];
	size_t n = 0;
	for (double e = e0 - 1; e <= e1 + 1 && n + nm <= CM_ARRAY_SIZE(cand); e++)
		for (size_t m = 0; m < nm; m++)
			cand[n++] = mant[m] * pow(10, e);
	size_t first = 0, last = n - 1;
	for (size_t i = 0; i < n; i++)
		if (cand[i] <= lo * (1 + 1e-9))
			first = i;
	for (size_t i = n; i-- > 0;)
		if (cand[i] >= hi * (1 - 1e-9))
			last = i;
	ax->n = 0;
	for (size_t i = first; i <= last && ax->n < AN_MAX_TICKS; i++)
		ax->t[ax->n++] = cand[i];
	ax->lo = ax->t[0];
	ax->hi = ax->t[ax->n - 1];
	ax->step = 0;
	if (!(ax->hi > ax->lo))
		ax->hi = ax->lo * 10;
}

static void vaxis_make(struct vaxis *v, double vmin, double vmax)
{
	v->log = vmin > 0 && isfinite(vmin) && vmax > LOG_SPAN * vmin;
	if (v->log)
		log_axis(&v->ax, vmin, vmax);
	else
		an_axis_make(&v->ax, 0, vmax > 0 ? vmax : 1, 6);
}

static double vaxis_map(const struct vaxis *v, double x, double p0, double p1)
{
	if (!v->log)
		return an_axis_map(&v->ax, x, p0, p1);
	double f = x > 0 ? (log10(x) - log10(v->ax.lo)) / (log10(v->ax.hi) - log10(v->ax.lo)) : 0;
	f = f < 0 ? 0 : f > 1 ? 1 : f;
	return p0 + f * (p1 - p0);
}

static void tick_text(char *buf, size_t len, const struct vaxis *v, double t)
{
	an_fmt_tick(buf, len, t, v->log ? t : v->ax.step);
}

static double vaxis_label_px(const struct vaxis *v)
{
	double w = 0;
	for (size_t i = 0; i < v->ax.n; i++) {
		char buf[32];
		tick_text(buf, sizeof(buf), v, v->ax.t[i]);
		double tw = an_svg_text_px(buf, AN_FONT_PX);
		w = tw > w ? tw : w;
	}
	return w;
}

/* Grid lines and tick labels of a value axis on the left (vertical) or at
 * the bottom. */
static void vaxis_draw(struct cm_buf *b, const struct vaxis *v, bool vertical, double x0, double x1,
		       double y0, double y1, const char *label)
{
	for (size_t i = 0; i < v->ax.n; i++) {
		char buf[32];
		tick_text(buf, sizeof(buf), v, v->ax.t[i]);
		const char *stroke = i ? AN_GRID_COLOUR : AN_AXIS_COLOUR;
		if (vertical) {
			double y = vaxis_map(v, v->ax.t[i], y1, y0);
			an_svg_put(b,
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
				   "<text x=\"%v\" y=\"%v\" text-anchor=\"end\" "
				   "fill=\"#333\">%e</text>\n",
				   x0, y, x1, y, stroke, x0 - 5, y + 4, buf);
		} else {
			double x = vaxis_map(v, v->ax.t[i], x0, x1);
			an_svg_put(b,
				   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
				   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" "
				   "fill=\"#333\">%e</text>\n",
				   x, y0, x, y1, stroke, x, y1 + 14, buf);
		}
	}
	if (vertical) {
		an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0,
			   y0, x0, y1, AN_AXIS_COLOUR);
		double ym = (y0 + y1) / 2;
		an_svg_put(b,
			   "<text transform=\"rotate(-90 15 %v)\" x=\"15\" y=\"%v\" "
			   "text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
			   ym, ym, label);
	} else {
		an_svg_put(b, "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n", x0,
			   y1, x1, y1, AN_AXIS_COLOUR);
		an_svg_put(
		    b, "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    (x0 + x1) / 2, y1 + 29, label);
	}
}

/* ---- the sweep's lines ----------------------------------------------------------- */

/* One sweep being drawn: the option along x, the other one's values as
 * lines, the columns with values. */
struct sweep_chart {
	const struct an_analysis *a;
	const struct an_sweep *s;
	size_t xo;	  /* the option along x: the load, else the first */
	size_t other;	  /* the other option; SIZE_MAX with one */
	size_t n_lines;	  /* values of the other option, or 1 */
	size_t *cols, nc; /* the columns with a value */
	bool x_log;	  /* x placed by the logarithm of its values */
	double *x_at;	  /* each value of xo as a number (or its index) */
	const char *unit; /* "IOPS", "MiB/s" */
	struct an_legend leg;
};

static const char *headline_unit(const struct an_sweep *s)
{
	return s->bandwidth ? "MiB/s" : "IOPS";
}

static double headline(const struct an_sweep *s, const struct an_sweep_cell *x, size_t i)
{
	return s->bandwidth ? x->mibs[i] : x->iops[i];
}

static void med_range(const struct an_sweep *s, const struct an_sweep_cell *x, double *med,
		      double *min, double *max)
{
	*med = s->bandwidth ? x->mibs_med : x->iops_med;
	*min = s->bandwidth ? x->mibs_min : x->iops_min;
	*max = s->bandwidth ? x->mibs_max : x->iops_max;
}

/* The point at value v of the x option on line l; SIZE_MAX when none. */
static size_t point_at(const struct sweep_chart *c, size_t v, size_t l)
{
	const struct an_sweep *s = c->s;
	for (size_t p = 0; p < s->n_points; p++)
		if (s->points[p].at[c->xo] == v &&
		    (c->other == SIZE_MAX || s->points[p].at[c->other] == l))
			return p;
	return SIZE_MAX;
}

/* The cell at value v of the x option on line l in column k, with its
 * headline's median, min and max; NULL when there is no point or no median. */
static const struct an_sweep_cell *cell_at(const struct an_analysis *a, const struct sweep_chart *c,
					   size_t v, size_t l, size_t k, double *med, double *min,
					   double *max)
{
	size_t p = point_at(c, v, l);
	if (p == SIZE_MAX)
		return NULL;
	const struct an_sweep_cell *x = an_sweep_cell(a, c->s, p, c->cols[k]);
	med_range(c->s, x, med, min, max);
	return isfinite(*med) ? x : NULL;
}

/* A line through the medians: path's points in the line's style; path is
 * released. */
static void put_line(struct cm_buf *b, struct cm_buf *path, const char *colour, const char *dash)
{
	if (path->len)
		an_svg_put(b,
			   "<path class=\"line\" d=\"%s\" stroke=\"%s\" "
			   "stroke-width=\"1.8\" fill=\"none\"%s%s%s/>\n",
			   path->s, colour, *dash ? " stroke-dasharray=\"" : "", dash,
			   *dash ? "\"" : "");
	cm_buf_release(path);
}

static bool chart_setup(struct sweep_chart *c, const struct an_analysis *a,
			const struct an_sweep *s)
{
	memset(c, 0, sizeof(*c));
	c->a = a;
	c->s = s;
	c->xo = s->load >= 0 ? (size_t)s->load : 0;
	c->other = s->n_opts == 2 ? 1 - c->xo : SIZE_MAX;
	c->n_lines = c->other == SIZE_MAX ? 1 : s->n_values[c->other];
	c->unit = headline_unit(s);
	c->cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*c->cols));
	for (size_t k = 0; k < a->n_cols; k++) {
		bool any = false;
		for (size_t p = 0; p < s->n_points && !any; p++) {
			double med, min, max;
			med_range(s, an_sweep_cell(a, s, p, k), &med, &min, &max);
			any = isfinite(med);
		}
		if (any)
			c->cols[c->nc++] = k;
	}
	size_t nv = s->n_values[c->xo];
	c->x_at = cm_calloc(nv ? nv : 1, sizeof(double));
	const char *opt = s->opts[c->xo];
	bool numbers = true;
	for (size_t v = 0; v < nv; v++) {
		uint64_t x;
		numbers &= an_parse_size(s->values[c->xo][v], false, &x);
		c->x_at[v] = numbers ? (double)x : (double)v;
	}
	c->x_log =
	    numbers && c->x_at[0] > 0 &&
	    (strcmp(opt, "iodepth") == 0 || strcmp(opt, "numjobs") == 0 || strcmp(opt, "bs") == 0);
	for (size_t v = 0; v < nv; v++) {
		if (!numbers)
			c->x_at[v] = (double)v;
		else if (c->x_log)
			c->x_at[v] = log2(c->x_at[v]);
	}
	return c->nc > 0;
}

static void chart_release(struct sweep_chart *c)
{
	free(c->cols);
	free(c->x_at);
	an_legend_release(&c->leg);
}

/* The colour, dash and shape of the line of column k (index into cols) and
 * line l: the column's colour, the line's dash and shape; with a single
 * column the line has all three, with a single line the column. */
static void line_style(const struct sweep_chart *c, size_t k, size_t l, const char **colour,
		       const char **dash, enum an_shape *shape)
{
	size_t col_style = an_chart_style(c->a, c->cols[k]);
	size_t ci = c->nc == 1 ? l : col_style;
	size_t li = c->n_lines == 1 ? col_style : l;
	*colour = an_svg_colour(ci);
	*dash = an_svg_dash(li);
	*shape = an_svg_shape(li);
}

/* "host-a, numjobs 4": the column and the line as the legend names them
 * ("median" for a single line); caller frees. */
static char *line_name(const struct sweep_chart *c, size_t k, size_t l)
{
	const struct an_sweep *s = c->s;
	char *col = an_col_name(c->a, &c->a->cols[c->cols[k]]);
	char *name;
	if (c->other == SIZE_MAX && c->nc == 1)
		name = cm_strdup("median"); /* the subtitle says of what */
	else if (c->other == SIZE_MAX)
		name = cm_strdup(col);
	else if (c->nc == 1)
		name = cm_asprintf("%s %s", s->opts[c->other], s->values[c->other][l]);
	else
		name = cm_asprintf("%s, %s %s", col, s->opts[c->other], s->values[c->other][l]);
	free(col);
	return name;
}

static void legend_line(struct sweep_chart *c, size_t k, size_t l)
{
	const char *colour, *dash;
	enum an_shape shape;
	line_style(c, k, l, &colour, &dash, &shape);
	char *name = line_name(c, k, l);
	struct an_leg *it = an_leg_add(&c->leg, AN_LEG_LINE, colour, name);
	free(name);
	it->shape = shape;
	it->dash = dash;
	snprintf(it->attrs, sizeof(it->attrs), "fill=\"%s\" stroke=\"#fff\" stroke-width=\"0.8\"",
		 colour);
}

/* What the columns are: "state", "variant", "variant and state". */
static const char *cols_word(const struct an_analysis *a)
{
	return a->n_variants > 1 && a->n_order > 1 ? "variant and state"
	       : a->n_variants > 1		   ? "variant"
						   : "state";
}

static void file_name(struct cm_buf *file, const struct an_sweep *s, const char *what)
{
	cm_buf_puts(file, "sweep-");
	an_chart_slug(file, s->label);
	cm_buf_printf(file, "-%s", what);
}

/* The x positions of the values of the x option. */
static double x_of(const struct sweep_chart *c, size_t v, double px0, double px1)
{
	size_t nv = c->s->n_values[c->xo];
	double lo = c->x_at[0], hi = c->x_at[nv - 1];
	double pad = 24;
	if (!(hi > lo))
		return (px0 + px1) / 2;
	return px0 + pad + (c->x_at[v] - lo) / (hi - lo) * (px1 - px0 - 2 * pad);
}

/* ---- the headline against the swept option -------------------------------------- */

static void chart_scaling(struct an_charts *out, const struct an_analysis *a, size_t si)
{
	const struct an_sweep *s = &a->sweeps[si];
	struct sweep_chart c;
	if (!chart_setup(&c, a, s)) {
		chart_release(&c);
		return;
	}
	size_t nv = s->n_values[c.xo];
	double vmin = INFINITY, vmax = 0;
	for (size_t p = 0; p < s->n_points; p++) {
		for (size_t k = 0; k < c.nc; k++) {
			const struct an_sweep_cell *x = an_sweep_cell(a, s, p, c.cols[k]);
			for (size_t i = 0; i < x->n; i++) {
				double v = headline(s, x, i);
				if (!isfinite(v) || v <= 0)
					continue;
				vmin = v < vmin ? v : vmin;
				vmax = v > vmax ? v : vmax;
			}
		}
	}
	struct vaxis ay;
	vaxis_make(&ay, vmin, vmax);

	size_t ns = c.nc * c.n_lines;
	for (size_t k = 0; k < c.nc; k++)
		for (size_t l = 0; l < c.n_lines; l++)
			legend_line(&c, k, l);
	struct an_leg *dot = an_leg_add(&c.leg, AN_LEG_MARKER, "#666", "a round");
	dot->shape = AN_SHAPE_CIRCLE;
	snprintf(dot->attrs, sizeof(dot->attrs), "fill=\"#666\" fill-opacity=\"0.6\"");
	an_leg_add(&c.leg, AN_LEG_WHISKER, "#000", "min..max");
	/* the saturation point ringed here too, where the bend shows first */
	bool any_sat = false;
	for (size_t k = 0; k < c.nc && s->load >= 0; k++)
		for (size_t l = 0; l < c.n_lines; l++)
			any_sat |= s->saturation[c.cols[k] * s->n_lines + l] >= 0;
	if (any_sat) {
		struct an_leg *it =
		    an_leg_add(&c.leg, AN_LEG_MARKER, "#000", "ringed: the saturation point");
		it->shape = AN_SHAPE_CIRCLE;
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"");
	}

	double w = AN_CHART_WIDTH, top = 50, plot_h = 300;
	double px0 = 30 + vaxis_label_px(&ay) + 8, px1 = w - 16;
	double py0 = top + 8, py1 = py0 + plot_h;
	size_t lrows = an_legend_rows(&c.leg, w - 24);
	double h = ceil(py1 + 44 + (double)lrows * AN_LEG_ROW + 6);

	char *title = cm_asprintf("Sweep %s: %s by %s", s->label, c.unit, s->opts[c.xo]);
	struct cm_buf sub = {NULL, 0, 0};
	if (c.other != SIZE_MAX)
		cm_buf_printf(&sub, "a line per %s%s%s; ", s->opts[c.other],
			      c.nc > 1 ? " and " : "", c.nc > 1 ? cols_word(a) : "");
	else if (c.nc > 1)
		cm_buf_printf(&sub, "a line per %s; ", cols_word(a));
	cm_buf_printf(&sub, "the median of the rounds%s", ay.log ? "; log scale" : "");
	struct cm_buf b = {NULL, 0, 0};
	an_chart_open(&b, w, h, title, sub.s);
	cm_buf_release(&sub);

	char *ylabel = cm_asprintf("%s%s", c.unit, ay.log ? " (log)" : "");
	vaxis_draw(&b, &ay, true, px0, px1, py0, py1, ylabel);
	free(ylabel);
	/* the x option's values as its ticks */
	for (size_t v = 0; v < nv; v++) {
		double x = x_of(&c, v, px0, px1);
		an_svg_put(
		    &b,
		    "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
		    "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		    x, py0, x, py1, AN_GRID_COLOUR, x, py1 + 14, s->values[c.xo][v]);
	}
	char *xlabel = cm_asprintf("%s%s", s->opts[c.xo], c.x_log ? " (log)" : "");
	an_svg_put(&b,
		   "<line x1=\"%v\" y1=\"%v\" x2=\"%v\" y2=\"%v\" stroke=\"%s\"/>\n"
		   "<text x=\"%v\" y=\"%v\" text-anchor=\"middle\" fill=\"#333\">%e</text>\n",
		   px0, py1, px1, py1, AN_AXIS_COLOUR, (px0 + px1) / 2, py1 + 29, xlabel);
	free(xlabel);

	/* the series side by side at each value, so that whiskers do not hide
	 * each other */
	double gap = ns > 1 ? fmin(6, 36 / (double)ns) : 0;
	size_t si_ = 0;
	for (size_t k = 0; k < c.nc; k++) {
		for (size_t l = 0; l < c.n_lines; l++, si_++) {
			const char *colour, *dash;
			enum an_shape shape;
			line_style(&c, k, l, &colour, &dash, &shape);
			char *name = line_name(&c, k, l);
			double off = ((double)si_ - (double)(ns - 1) / 2) * gap;
			an_svg_put(&b, "<g class=\"series\"><title>%e</title>\n", name);
			struct cm_buf path = {NULL, 0, 0};
			for (size_t v = 0; v < nv; v++) {
				double med, min, max;
				const struct an_sweep_cell *x =
				    cell_at(a, &c, v, l, k, &med, &min, &max);
				if (!x)
					continue;
				double xx = x_of(&c, v, px0, px1) + off;
				if (x->n > 1 && max > min) {
					double ya = vaxis_map(&ay, min, py1, py0),
					       yb = vaxis_map(&ay, max, py1, py0);
					an_svg_put(
					    &b,
					    "<path class=\"whisker\" d=\"M%v %vH%vM%v %vV%vM%v "
					    "%vH%v\" stroke=\"%s\" fill=\"none\"/>\n",
					    xx - 3, ya, xx + 3, xx, ya, yb, xx - 3, yb, xx + 3,
					    colour);
				}
				for (size_t i = 0; i < x->n; i++) {
					double val = headline(s, x, i);
					if (!isfinite(val))
						continue;
					char num[32];
					an_fmt_short(num, sizeof(num), val);
					char *tip = cm_asprintf("%s, %s %s, round %d: %s %s", name,
								s->opts[c.xo], s->values[c.xo][v],
								x->rounds[i], num, c.unit);
					char attrs[96];
					snprintf(attrs, sizeof(attrs),
						 "class=\"round\" fill=\"%s\" fill-opacity=\"0.6\"",
						 colour);
					an_svg_marker(&b, AN_SHAPE_CIRCLE, xx,
						      vaxis_map(&ay, val, py1, py0), 2, attrs, tip);
					free(tip);
				}
				an_svg_put(&path, "%s%v %v", path.len ? "L" : "M", xx,
					   vaxis_map(&ay, med, py1, py0));
			}
			put_line(&b, &path, colour, dash);
			for (size_t v = 0; v < nv; v++) {
				double med, min, max;
				const struct an_sweep_cell *x =
				    cell_at(a, &c, v, l, k, &med, &min, &max);
				if (!x)
					continue;
				char m0[32], m1[32], m2[32];
				an_fmt_short(m0, sizeof(m0), med);
				an_fmt_short(m1, sizeof(m1), min);
				an_fmt_short(m2, sizeof(m2), max);
				char *tip =
				    cm_asprintf("%s, %s %s: median %s %s, min..max %s..%s over "
						"%zu rounds",
						name, s->opts[c.xo], s->values[c.xo][v], m0, c.unit,
						m1, m2, x->n);
				char attrs[96];
				snprintf(attrs, sizeof(attrs),
					 "class=\"median\" fill=\"%s\" stroke=\"#fff\" "
					 "stroke-width=\"0.8\"",
					 colour);
				an_svg_marker(&b, shape, x_of(&c, v, px0, px1) + off,
					      vaxis_map(&ay, med, py1, py0), 4, attrs, tip);
				free(tip);
				if (any_sat &&
				    (int)v == s->saturation[c.cols[k] * s->n_lines + l]) {
					char *st =
					    cm_asprintf("%s: saturation point at %s %s", name,
							s->opts[c.xo], s->values[c.xo][v]);
					an_svg_marker(&b, AN_SHAPE_CIRCLE,
						      x_of(&c, v, px0, px1) + off,
						      vaxis_map(&ay, med, py1, py0), 9,
						      "class=\"saturation\" fill=\"none\" "
						      "stroke=\"#000\" stroke-width=\"1.5\"",
						      st);
					free(st);
				}
			}
			cm_buf_puts(&b, "</g>\n");
			free(name);
		}
	}
	an_legend_draw(&b, &c.leg, 12, py1 + 50, w - 24);
	cm_buf_puts(&b, "</svg>\n");
	struct cm_buf file = {NULL, 0, 0};
	file_name(&file, s, s->bandwidth ? "mibs" : "iops");
	struct an_chart *ch = an_chart_add(out, AN_CHART_SWEEP, &file, title, &b);
	ch->sweep = si;
	chart_release(&c);
}

/* ---- p99 latency against the headline through the load ---------------------------- */

/* The latency axis in ms when the largest value is 10,000 µs or more (a
 * tick "100k" µs reads as 100 ms), in µs otherwise: what to divide the
 * µs by. */
static double latency_scale(double max_us, const char **unit)
{
	if (max_us >= 10000) {
		*unit = "ms";
		return 1000;
	}
	*unit = "µs";
	return 1;
}

static void chart_latency(struct an_charts *out, const struct an_analysis *a, size_t si)
{
	const struct an_sweep *s = &a->sweeps[si];
	if (s->load < 0)
		return;
	struct sweep_chart c;
	if (!chart_setup(&c, a, s)) {
		chart_release(&c);
		return;
	}
	size_t nv = s->n_values[c.xo];
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	for (size_t p = 0; p < s->n_points; p++) {
		for (size_t k = 0; k < c.nc; k++) {
			const struct an_sweep_cell *x = an_sweep_cell(a, s, p, c.cols[k]);
			double med, min, max;
			med_range(s, x, &med, &min, &max);
			if (!isfinite(med) || !isfinite(x->p99_med) || med <= 0 || x->p99_med <= 0)
				continue;
			xmin = med < xmin ? med : xmin;
			xmax = med > xmax ? med : xmax;
			ymin = x->p99_med < ymin ? x->p99_med : ymin;
			ymax = x->p99_med > ymax ? x->p99_med : ymax;
		}
	}
	if (!(xmax > 0) || !(ymax > 0)) {
		chart_release(&c);
		return;
	}
	const char *yunit;
	double yscale = latency_scale(ymax, &yunit);
	struct vaxis ax, ay;
	vaxis_make(&ax, xmin, xmax);
	vaxis_make(&ay, ymin / yscale, ymax / yscale);
	for (size_t k = 0; k < c.nc; k++)
		for (size_t l = 0; l < c.n_lines; l++)
			legend_line(&c, k, l);
	bool any_sat = false;
	for (size_t k = 0; k < c.nc; k++)
		for (size_t l = 0; l < c.n_lines; l++)
			any_sat |= s->saturation[c.cols[k] * s->n_lines + l] >= 0;
	const char *load = s->opts[c.xo];
	if (any_sat) {
		struct an_leg *it =
		    an_leg_add(&c.leg, AN_LEG_MARKER, "#000", "ringed: the saturation point");
		it->shape = AN_SHAPE_CIRCLE;
		snprintf(it->attrs, sizeof(it->attrs),
			 "fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"");
	}

	double w = AN_CHART_WIDTH, top = 50, plot_h = 300;
	double px0 = 30 + vaxis_label_px(&ay) + 8, px1 = w - 24;
	double py0 = top + 8, py1 = py0 + plot_h;
	size_t lrows = an_legend_rows(&c.leg, w - 24);
	double h = ceil(py1 + 44 + (double)lrows * AN_LEG_ROW + 6);

	char *title = cm_asprintf("Sweep %s: p99 latency against %s", s->label, c.unit);
	struct cm_buf sub = {NULL, 0, 0};
	cm_buf_printf(&sub,
		      "through %s %s..%s, points labelled with their %s; the medians of "
		      "the rounds",
		      load, s->values[c.xo][0], s->values[c.xo][nv - 1], load);
	struct cm_buf b = {NULL, 0, 0};
	an_chart_open(&b, w, h, title, sub.s);
	cm_buf_release(&sub);
	char *ylabel = cm_asprintf("p99 latency (%s%s)", yunit, ay.log ? ", log" : "");
	char *xlabel = cm_asprintf("%s%s", c.unit, ax.log ? " (log)" : "");
	vaxis_draw(&b, &ay, true, px0, px1, py0, py1, ylabel);
	vaxis_draw(&b, &ax, false, px0, px1, py0, py1, xlabel);
	free(ylabel);
	free(xlabel);

	for (size_t k = 0; k < c.nc; k++) {
		for (size_t l = 0; l < c.n_lines; l++) {
			const char *colour, *dash;
			enum an_shape shape;
			line_style(&c, k, l, &colour, &dash, &shape);
			char *name = line_name(&c, k, l);
			int sat = s->saturation[c.cols[k] * s->n_lines + l];
			double lx = -100, ly = -100; /* the last point labelled */
			an_svg_put(&b, "<g class=\"series\"><title>%e</title>\n", name);
			struct cm_buf path = {NULL, 0, 0};
			for (size_t v = 0; v < nv; v++) {
				double med, min, max;
				const struct an_sweep_cell *x =
				    cell_at(a, &c, v, l, k, &med, &min, &max);
				if (!x || !isfinite(x->p99_med))
					continue;
				an_svg_put(&path, "%s%v %v", path.len ? "L" : "M",
					   vaxis_map(&ax, med, px0, px1),
					   vaxis_map(&ay, x->p99_med / yscale, py1, py0));
			}
			put_line(&b, &path, colour, dash);
			for (size_t v = 0; v < nv; v++) {
				double med, min, max;
				const struct an_sweep_cell *x =
				    cell_at(a, &c, v, l, k, &med, &min, &max);
				if (!x || !isfinite(x->p99_med))
					continue;
				double xx = vaxis_map(&ax, med, px0, px1),
				       yy = vaxis_map(&ay, x->p99_med / yscale, py1, py0);
				char m0[32], m1[32];
				an_fmt_short(m0, sizeof(m0), med);
				an_fmt_short(m1, sizeof(m1), x->p99_med / yscale);
				char *tip = cm_asprintf("%s, %s %s: %s %s, p99 %s %s", name, load,
							s->values[c.xo][v], m0, c.unit, m1, yunit);
				char attrs[96];
				snprintf(attrs, sizeof(attrs),
					 "class=\"median\" fill=\"%s\" stroke=\"#fff\" "
					 "stroke-width=\"0.8\"",
					 colour);
				an_svg_marker(&b, shape, xx, yy, 4, attrs, tip);
				free(tip);
				/* a label on top of the last one is left out: the
				 * hover text has it */
				if (hypot(xx - lx, yy - ly) >= 16) {
					/* the ring (radius 9) would cross the label */
					double off = (int)v == sat ? 11 : 6;
					an_svg_put(&b,
						   "<text x=\"%v\" y=\"%v\" font-size=\"9\" "
						   "fill=\"%s\">%e</text>\n",
						   xx + off, yy - off + 1, colour,
						   s->values[c.xo][v]);
					lx = xx;
					ly = yy;
				}
				if ((int)v == sat) {
					char *st = cm_asprintf("%s: saturation point at %s %s",
							       name, load, s->values[c.xo][v]);
					an_svg_marker(&b, AN_SHAPE_CIRCLE, xx, yy, 9,
						      "class=\"saturation\" fill=\"none\" "
						      "stroke=\"#000\" stroke-width=\"1.5\"",
						      st);
					free(st);
				}
			}
			cm_buf_puts(&b, "</g>\n");
			free(name);
		}
	}
	an_legend_draw(&b, &c.leg, 12, py1 + 50, w - 24);
	cm_buf_puts(&b, "</svg>\n");
	struct cm_buf file = {NULL, 0, 0};
	file_name(&file, s, "latency");
	struct an_chart *ch = an_chart_add(out, AN_CHART_SWEEP_LATENCY, &file, title, &b);
	ch->sweep = si;
	chart_release(&c);
}

void an_chart_sweep(struct an_charts *out, const struct an_analysis *a, size_t sweep)
{
	chart_scaling(out, a, sweep);
	chart_latency(out, a, sweep);
}
