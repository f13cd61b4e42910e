/* SPDX-License-Identifier: MIT */
/* The state transitions of a campaign: each action's seconds by fiocamp's
 * stopwatch and by the provider's task, the downtime and the data back. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts/chart.h"

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
	if (sum.cut) {
		/* shown in words, not drawn: measured across an interrupt */
		char *n = cm_asprintf("%s%scut by an interrupt, not drawn: %s",
				      h->note ? h->note : "", h->note ? "; " : "", sum.cut);
		free(h->note);
		h->note = n;
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

/* Decimals for a bar's seconds: two below one second, so that a bar of
 * 0.06 s on an axis to 0.06 is not labelled 0.1 s */
static int secs_prec(double s)
{
	return fabs(s) < 0.995 ? 2 : 1;
}

static void secs_text(struct cm_buf *b, const double *v, size_t n)
{
	double m = an_median(v, n);
	cm_buf_printf(b, "%.*f s", secs_prec(m), m);
	if (n > 1) {
		double lo = v[0], hi = v[0];
		for (size_t i = 1; i < n; i++) {
			lo = v[i] < lo ? v[i] : lo;
			hi = v[i] > hi ? v[i] : hi;
		}
		cm_buf_printf(b, " (%.*f..%.*f, n = %zu)", secs_prec(lo), lo, secs_prec(hi), hi, n);
	}
}

static void tr_bar(struct cm_buf *b, const struct an_axis *ax, double px0, double px1, double y,
		   double hgt, const double *v, size_t n, const char *colour, const char *tip)
{
	double m = an_median(v, n);
	double x = an_axis_map(ax, m, px0, px1);
	an_svg_put(
	    b,
	    "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\" fill=\"%s\"><title>%e</title>"
	    "</rect>\n",
	    px0, y, x - px0 > 0.5 ? x - px0 : 0.5, hgt, colour, tip);
	if (n < 2)
		return;
	for (size_t i = 0; i < n; i++)
		an_svg_marker(b, AN_SHAPE_CIRCLE, an_axis_map(ax, v[i], px0, px1), y + hgt / 2, 2.4,
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

/* The rows of a campaign's states: in the order of the states, then those
 * without runs. */
static void tr_collect(struct tr_rows *rs, const struct an_analysis *a, size_t campaign)
{
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
					tr_rows_of(rs, a, t);
			}
		}
	}
	free(seen);
}

/* One row at y: its label, its bars, the text right of them. */
static void tr_draw_row(struct cm_buf *b, const struct tr_row *r, const struct an_axis *ax,
			double px0, double px1, double w, double y)
{
	struct cm_buf t = {NULL, 0, 0};
	bool cut = an_svg_clip(&t, r->label, TR_LABEL);
	an_svg_put(b, "<text x=\"%v\" y=\"%v\"%s>", r->header ? 12.0 : 22.0, y + 12,
		   r->header ? " font-weight=\"bold\"" : "");
	if (cut)
		an_svg_put(b, "<title>%e</title>", r->label);
	an_svg_put(b, "%e</text>\n", t.s);
	cm_buf_release(&t);
	if (r->n_own) {
		struct cm_buf tip = {NULL, 0, 0};
		cm_buf_printf(&tip, "%s, %s: ", r->state, r->label);
		secs_text(&tip, r->own, r->n_own);
		tr_bar(b, ax, px0, px1, y + 1, r->n_task ? 9 : 14, r->own, r->n_own, r->colour,
		       tip.s);
		cm_buf_release(&tip);
	}
	if (r->n_task) {
		struct cm_buf tip = {NULL, 0, 0};
		cm_buf_printf(&tip, "%s, %s, provider task: ", r->state, r->label);
		secs_text(&tip, r->task, r->n_task);
		tr_bar(b, ax, px0, px1, y + 10, 5, r->task, r->n_task, C_TASK, tip.s);
		cm_buf_release(&tip);
	}
	struct cm_buf val = {NULL, 0, 0};
	tr_value_text(&val, r);
	if (val.len) {
		/* right of the longest bar, inside the picture */
		double end = px0;
		for (size_t k = 0; k < r->n_own; k++)
			end = an_axis_map(ax, r->own[k], px0, px1) > end
				  ? an_axis_map(ax, r->own[k], px0, px1)
				  : end;
		for (size_t k = 0; k < r->n_task; k++)
			end = an_axis_map(ax, r->task[k], px0, px1) > end
				  ? an_axis_map(ax, r->task[k], px0, px1)
				  : end;
		double room = w - 8 - (end + 6);
		struct cm_buf vt = {NULL, 0, 0};
		bool vcut = false;
		if (an_svg_text_px(val.s, AN_FONT_PX) <= room)
			cm_buf_puts(&vt, val.s);
		else
			vcut = an_svg_clip(&vt, val.s,
					   room > 0 ? (size_t)(room / (AN_FONT_PX * 0.62)) : 2);
		an_svg_put(b, "<text x=\"%v\" y=\"%v\" fill=\"%s\">", end + 6, y + 12,
			   r->bad ? "#b03000" : "#222");
		if (vcut)
			an_svg_put(b, "<title>%e</title>", val.s);
		an_svg_put(b, "%e</text>\n", vt.s);
		cm_buf_release(&vt);
	}
	cm_buf_release(&val);
}

void an_chart_transitions(struct an_charts *out, const struct an_analysis *a, size_t campaign)
{
	struct tr_rows rs = {NULL, 0, 0};
	tr_collect(&rs, a, campaign);
	if (!rs.n)
		return;
	double vmax = 0;
	for (size_t i = 0; i < rs.n; i++) {
		for (size_t k = 0; k < rs.v[i].n_own; k++)
			vmax = rs.v[i].own[k] > vmax ? rs.v[i].own[k] : vmax;
		for (size_t k = 0; k < rs.v[i].n_task; k++)
			vmax = rs.v[i].task[k] > vmax ? rs.v[i].task[k] : vmax;
	}
	struct an_axis ax;
	an_axis_make(&ax, 0, vmax > 0 ? vmax : 1, 6);
	double label_w = 0;
	for (size_t i = 0; i < rs.n; i++) {
		struct cm_buf t = {NULL, 0, 0};
		an_svg_clip(&t, rs.v[i].label, TR_LABEL);
		double px = an_svg_text_px(t.s, AN_FONT_PX) + (rs.v[i].header ? 0 : 10);
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
		double px = val.len ? an_svg_text_px(val.s, AN_FONT_PX) + 14 : 0;
		right = px > right ? px : right;
		cm_buf_release(&val);
	}
	right = ceil(right < TR_RIGHT_MAX ? right : TR_RIGHT_MAX);
	double px0 = 12 + label_w + 10, w = AN_CHART_WIDTH + (right - 140), px1 = w - right;
	if (px1 - px0 < 200) {
		px1 = px0 + 200;
		w = px1 + right;
	}
	struct an_legend leg = {NULL, 0, 0};
	bool task = false, down = false, back = false;
	for (size_t i = 0; i < rs.n; i++) {
		task |= rs.v[i].n_task > 0;
		down |= rs.v[i].kind == TR_DOWNTIME;
		back |= rs.v[i].kind == TR_DATA_BACK;
	}
	an_leg_add(&leg, AN_LEG_SWATCH, C_OWN, "fiocamp's stopwatch");
	if (task)
		an_leg_add(&leg, AN_LEG_SWATCH, C_TASK, "provider task");
	if (down)
		an_leg_add(&leg, AN_LEG_SWATCH, C_DOWN, "downtime (until SSH answered)");
	if (back)
		an_leg_add(&leg, AN_LEG_SWATCH, C_DATABACK, "data back (until verify-hash)");
	size_t lrows = an_legend_rows(&leg, w - 24);
	double row_h = 20, py0 = 50;
	double py1 = py0 + row_h * (double)rs.n + 4;
	double h = ceil(py1 + 38 + (double)lrows * AN_LEG_ROW + 6);

	char *title;
	const struct an_campaign *c = &a->campaigns[campaign];
	/* a fleet's hosts share the campaign's name: each chart is its host's,
	 * named as the host's variant is when it is one (FLEET/HOST beside
	 * another fleet) */
	const char *host = c->fleet_host;
	size_t n_var = 0, var = SIZE_MAX;
	for (size_t v = 0; v < a->n_variants; v++) {
		if (a->variants[v].campaign == campaign) {
			n_var++;
			var = v;
		}
	}
	bool host_variant = host && n_var == 1;
	if (host_variant)
		host = a->variants[var].name;
	if (host && a->n_fleets > 1 && !host_variant)
		title = cm_asprintf("State transitions of host %s of %s: seconds per action", host,
				    c->name ? c->name : c->manifest);
	else if (host)
		title = cm_asprintf("State transitions of host %s: seconds per action", host);
	else if (a->n_campaigns > 1)
		title = cm_asprintf("State transitions of %s: seconds per action",
				    c->name ? c->name : c->manifest);
	else
		title = cm_strdup("State transitions: seconds per action");
	struct cm_buf b = {NULL, 0, 0};
	an_chart_open(&b, w, h, title,
		      "each action's seconds; downtime from the action that took the machine away");
	an_x_axis(&b, &ax, px0, px1, py0, py1, "seconds", 1);
	for (size_t i = 0; i < rs.n; i++)
		tr_draw_row(&b, &rs.v[i], &ax, px0, px1, w, py0 + row_h * (double)i + 2);
	an_legend_draw(&b, &leg, 12, py1 + 38 + 12, w - 24);
	cm_buf_puts(&b, "</svg>\n");

	struct cm_buf file = {NULL, 0, 0};
	cm_buf_puts(&file, "transitions");
	if (host_variant && a->n_fleets > 1) {
		cm_buf_putc(&file, '-');
		an_chart_slug(&file, host);
	} else if (a->n_campaigns > 1) {
		cm_buf_putc(&file, '-');
		an_chart_slug(&file, c->name ? c->name : a->variants[0].name);
		if (host) {
			cm_buf_putc(&file, '-');
			an_chart_slug(&file, host);
		}
	}
	an_chart_add(out, AN_CHART_TRANSITIONS, &file, title, &b);
	an_legend_release(&leg);
	for (size_t i = 0; i < rs.n; i++) {
		free(rs.v[i].label);
		free(rs.v[i].note);
		free(rs.v[i].own);
		free(rs.v[i].task);
	}
	free(rs.v);
}
