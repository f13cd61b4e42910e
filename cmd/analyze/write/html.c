/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: one self-contained file (inline CSS and SVG, no script,
 * no font or picture fetched, a Content-Security-Policy that forbids
 * fetching anything) that opens from a mail attachment as well as from a
 * web server.  It is XHTML, well-formed XML, so that XML tools check it.
 * The campaign's facts first, then the comparison, the sweeps and the
 * transitions, then each test: the table the terminal shows and its charts beside it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/* Files listed one by one in the report at most; the rest are counted. */
#define MAX_LISTED 100

static const char css[] =
    "body{font-family:\"DejaVu Sans\",\"Liberation Sans\",Arial,Helvetica,sans-serif;"
    "font-size:14px;line-height:1.4;color:#111;background:#fff;margin:24px;max-width:1500px}\n"
    "h1{font-size:22px;margin:0 0 4px}\n"
    "h2{font-size:18px;border-bottom:1px solid #bbb;padding-bottom:3px;margin:36px 0 10px}\n"
    "h3{font-size:15px;margin:22px 0 8px}\n"
    "p.sub{color:#444;margin:0 0 12px}\n"
    "code{font-family:\"DejaVu Sans Mono\",\"Liberation Mono\",monospace;font-size:12px}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:13px}\n"
    "th,td{padding:2px 8px;text-align:right;white-space:nowrap;vertical-align:top}\n"
    "thead th{border-bottom:1px solid #888;vertical-align:bottom;white-space:normal;"
    "max-width:11em}\n"
    "tbody th{text-align:left;font-weight:normal}\n"
    "tr.top th,tr.top td{border-top:1px solid #ddd}\n"
    "tr.group th{font-weight:bold}\n"
    "tr.sub th{padding-left:22px;color:#333}\n"
    "table.facts th{font-weight:bold;text-align:left}\n"
    "table.facts td{text-align:left;white-space:normal}\n"
    "table.list td,table.list th{text-align:left;white-space:normal}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    ".block{display:flex;flex-wrap:wrap;gap:16px 32px;align-items:flex-start}\n"
    ".block>.scroll{flex:0 1 auto}\n"
    ".block>.actions{flex:1 1 100%}\n"
    ".charts{flex:1 1 640px;max-width:660px;min-width:0;display:flex;flex-direction:column;"
    "gap:14px}\n"
    ".charts.wide{flex-basis:100%;max-width:none}\n"
    ".charts.sweep{flex-basis:540px}\n"
    "figure{margin:0}\n"
    "figcaption{font-size:12px;color:#555}\n"
    "p.sat{max-width:60em;margin:8px 0}\n"
    "p.cap{font-weight:bold;font-size:13px;margin:0 0 4px}\n"
    "svg{max-width:100%;height:auto}\n"
    "nav ul{margin:4px 0;padding-left:20px}\n"
    ".warn{color:#8a2b00}\n"
    "footer p{max-width:60em}\n"
    "@media print{body{margin:0}.block{break-inside:avoid}figure{break-inside:avoid}}\n";

struct html {
	struct cm_buf b;
	const struct an_analysis *a;
	const struct an_charts *c;
	size_t test; /* the section open; SIZE_MAX none */
	bool in_section;
};

static void put_table(struct html *h, const struct an_tab *t, const char *corner)
{
	struct cm_buf *b = &h->b;
	cm_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr><th>");
	an_xml_puts(b, corner);
	cm_buf_puts(b, "</th>");
	for (size_t c = 0; c < t->ncols; c++)
		an_svg_put(b, "<th>%e</th>", t->heads[c]);
	cm_buf_puts(b, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		const char *label = t->labels[r];
		bool sub = label[0] == ' ';
		while (*label == ' ')
			label++;
		/* in the grid, a row without indent followed by indented ones heads them */
		bool heads = !sub && r + 1 < t->nrows && t->labels[r + 1][0] == ' ';
		const char *cls = sub		       ? " class=\"sub\""
				  : !t->cols || r == 0 ? ""
				  : heads	       ? " class=\"top group\""
						       : " class=\"top\"";
		an_svg_put(b, "<tr%s><th scope=\"row\">%e</th>", cls, label);
		for (size_t c = 0; c < t->ncols; c++)
			an_svg_put(b, "<td>%e</td>", t->cells[r][c]);
		cm_buf_puts(b, "</tr>\n");
	}
	cm_buf_puts(b, "</tbody></table></div>\n");
}

/* "rounds-x-read-iops.svg" as an id: the name without ".svg". */
static void put_figure(struct html *h, const struct an_chart *ch)
{
	size_t n = strlen(ch->file);
	char *id = cm_strndup(ch->file, n > 4 ? n - 4 : n);
	an_svg_put(&h->b, "<figure id=\"chart-%e\">\n", id);
	cm_buf_putn(&h->b, ch->svg, ch->svg_len);
	an_svg_put(&h->b, "<figcaption>%e</figcaption>\n</figure>\n", ch->file);
	free(id);
}

/* The charts of a kind; with a block of the grid, those of its test, job
 * and direction. */
static void put_charts(struct html *h, enum an_chart_kind kind, const struct an_tab *block)
{
	bool any = false;
	for (size_t i = 0; i < h->c->n; i++) {
		const struct an_chart *ch = &h->c->v[i];
		bool mine = block ? ch->test == block->test && ch->job_index == block->job_index &&
					ch->dir == block->dir
				  : ch->kind == kind;
		if (!mine)
			continue;
		/* the transitions chart is as wide as its value texts need */
		if (!any)
			cm_buf_puts(&h->b, !block && kind == AN_CHART_TRANSITIONS
					       ? "<div class=\"charts wide\">\n"
					       : "<div class=\"charts\">\n");
		any = true;
		put_figure(h, ch);
	}
	if (any)
		cm_buf_puts(&h->b, "</div>\n");
}

static void close_section(struct html *h)
{
	if (h->in_section)
		cm_buf_puts(&h->b, "</section>\n");
	h->in_section = false;
}

/* Each state's actions over its repetitions, as in the terminal's table. */
static void put_actions(struct html *h)
{
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	for (size_t i = 0; i < n; i++) {
		struct an_trans_sum s;
		an_trans_sum(order[i], &s);
		if (an_trans_sum_shown(&s)) {
			char *line = an_action_state_line(a, &s);
			an_svg_put(b, "<h3>%e</h3>\n", line);
			free(line);
		}
		if (an_trans_sum_shown(&s) && s.n_rows) {
			cm_buf_puts(b, "<div class=\"scroll\"><table>\n<thead><tr>");
			for (size_t c = 0; c < AN_ACTION_COLS; c++)
				an_svg_put(b, "<th>%e</th>", an_action_heads[c]);
			cm_buf_puts(b, "</tr></thead>\n<tbody>\n");
			for (size_t r = 0; r < s.n_rows; r++) {
				char *row[AN_ACTION_COLS];
				an_action_cells(a, order[i], &s.rows[r], row);
				cm_buf_puts(b, "<tr>");
				for (size_t c = 0; c < AN_ACTION_COLS; c++) {
					an_svg_put(
					    b, c == 1 ? "<th scope=\"row\">%e</th>" : "<td>%e</td>",
					    row[c]);
					free(row[c]);
				}
				cm_buf_puts(b, "</tr>\n");
			}
			cm_buf_puts(b, "</tbody></table></div>\n");
		}
		an_trans_sum_free(&s);
	}
	free(order);
}

static void grid_block(void *ctx, const struct an_tab *t)
{
	struct html *h = ctx;
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	if (t->test == SIZE_MAX) {
		close_section(h);
		cm_buf_puts(b, "<section id=\"transitions\">\n<h2>State transitions</h2>\n"
			       "<div class=\"block\">\n");
		put_table(h, t, "");
		/* the actions a row of their own, a state under the other */
		cm_buf_puts(b, "<div class=\"actions\">\n");
		put_actions(h);
		cm_buf_puts(b, "</div>\n");
		put_charts(h, AN_CHART_TRANSITIONS, NULL);
		cm_buf_puts(b, "</div>\n");
		h->in_section = true;
		h->test = SIZE_MAX;
		return;
	}
	if (t->test != h->test || !h->in_section) {
		close_section(h);
		const struct an_test *ts = &a->tests[t->test];
		an_svg_put(b, "<section id=\"test-%z\">\n<h2>%e</h2>\n", t->test + 1, ts->name);
		struct cm_buf d = {NULL, 0, 0};
		an_wl_describe(&d, ts->workload, AN_WL_ALL, false);
		an_svg_put(b, "<p class=\"sub\">%z runs; %e</p>\n", ts->n_runs, d.s ? d.s : "");
		cm_buf_release(&d);
		h->test = t->test;
		h->in_section = true;
	}
	an_svg_put(b, "<h3>%e</h3>\n<div class=\"block\">\n", t->title);
	put_table(h, t, "");
	put_charts(h, AN_CHART_ROUNDS, t);
	cm_buf_puts(b, "</div>\n");
}

static void compare_block(void *ctx, const struct an_tab *t)
{
	struct html *h = ctx;
	cm_buf_puts(&h->b, "<section id=\"compare\">\n<h2>Variants compared</h2>\n"
			   "<div class=\"block\">\n");
	put_table(h, t, h->a->n_variants > 1 ? "variant" : "state");
	put_charts(h, AN_CHART_COMPARE, NULL);
	cm_buf_puts(&h->b, "</div>\n");
	struct cm_buf leg = {NULL, 0, 0};
	an_compare_legend(&leg, h->a);
	/* its paragraphs are lines */
	for (char *p = leg.s, *nl; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		an_svg_put(&h->b, "<p class=\"sub\">%e</p>\n", p);
	}
	cm_buf_release(&leg);
	const char *paras[AN_LEGENDS_MAX];
	size_t n = an_table_legends(h->a, false, an_any_marked(h->a), paras);
	for (size_t i = 0; i < n; i++)
		an_svg_put(&h->b, "<p class=\"sub\">%e</p>\n", paras[i]);
	cm_buf_puts(&h->b, "</section>\n");
}

/* A sweep's tables, each titled, side by side as the page's width allows. */
static void sweep_table(void *ctx, const struct an_tab *t)
{
	struct html *h = ctx;
	an_svg_put(&h->b, "<div class=\"sweep-table\">\n<p class=\"cap\">%e</p>\n", t->title);
	put_table(h, t, "");
	cm_buf_puts(&h->b, "</div>\n");
}

/* Each sweep: its charts, the saturation point in words under them, then
 * its tables. */
static void sweeps(struct html *h)
{
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	cm_buf_puts(b, "<section id=\"sweeps\">\n<h2>Sweep</h2>\n");
	for (size_t si = 0; si < a->n_sweeps; si++) {
		char *title = an_sweep_title(a, si);
		an_svg_put(b, "<h3 id=\"sweep-%z\">%e</h3>\n<div class=\"block\">\n", si + 1,
			   title);
		free(title);
		for (size_t i = 0; i < h->c->n; i++) {
			const struct an_chart *ch = &h->c->v[i];
			if (ch->sweep != si)
				continue;
			cm_buf_puts(b, "<div class=\"charts sweep\">\n");
			put_figure(h, ch);
			cm_buf_puts(b, "</div>\n");
		}
		cm_buf_puts(b, "</div>\n");
		for (size_t col = 0; col < a->n_cols; col++) {
			char *sat = an_sweep_saturation_text(a, si, col);
			if (!sat)
				continue;
			char *name = an_col_name(a, &a->cols[col]);
			if (a->n_cols > 1)
				an_svg_put(b, "<p class=\"sat\"><b>%e</b>: %e</p>\n", name, sat);
			else
				an_svg_put(b, "<p class=\"sat\">%e</p>\n", sat);
			free(name);
			free(sat);
		}
		cm_buf_puts(b, "<div class=\"block\">\n");
		an_sweep_visit(a, si, sweep_table, h);
		cm_buf_puts(b, "</div>\n");
	}
	cm_buf_puts(b, "</section>\n");
}

/* Each test run through fio's client/server mode: each client's share. */
static void clients(struct html *h)
{
	cm_buf_puts(&h->b, "<section id=\"clients\">\n<h2>Clients</h2>\n<div class=\"block\">\n");
	an_clients_visit(h->a, sweep_table, h);
	cm_buf_puts(&h->b, "</div>\n</section>\n");
}

static void fact(struct cm_buf *b, const char *name, const char *value)
{
	an_svg_put(b, "<tr><th scope=\"row\">%e</th><td>%e</td></tr>\n", name, value);
}

static const char *title_of(const struct an_analysis *a, struct cm_buf *t)
{
	const struct an_fleet *f = an_fleet_alone(a);
	if (f) {
		/* "fleet fl: 3 hosts, h1, h2 and h3" */
		cm_buf_printf(t, "fleet %s: %zu host%s", f->name ? f->name : f->manifest,
			      f->n_hosts, f->n_hosts == 1 ? "" : "s");
		for (size_t k = 0; k < f->n_hosts; k++)
			cm_buf_printf(t, "%s%s",
				      k == 0		    ? ", "
				      : k + 1 == f->n_hosts ? " and "
							    : ", ",
				      f->hosts[k].name);
	} else if (a->n_variants == 1 && a->variants[0].campaign != SIZE_MAX) {
		const struct an_campaign *c = &a->campaigns[a->variants[0].campaign];
		cm_buf_printf(t, "campaign %s", c->name ? c->name : a->variants[0].name);
	} else if (a->n_variants > 1) {
		cm_buf_printf(t, "%zu variants:", a->n_variants);
		for (size_t v = 0; v < a->n_variants; v++)
			cm_buf_printf(t, "%s %s", v ? "," : "", a->variants[v].name);
	} else {
		cm_buf_printf(t, "%zu fio runs", an_used_runs(a));
	}
	return t->s;
}

/* A fleet's hosts: how each ended, its waits at the barriers, the
 * variants it is. */
static void fleet_hosts(struct cm_buf *b, const struct an_analysis *a, const struct an_fleet *f)
{
	an_svg_put(b,
		   "<h3>Hosts of fleet %e</h3>\n<div class=\"scroll\"><table class=\"list\">\n"
		   "<thead><tr><th>host</th><th>status</th><th>why</th><th>barrier waits</th>"
		   "<th>variants</th><th>directory</th></tr></thead>\n<tbody>\n",
		   f->name ? f->name : f->manifest);
	for (size_t k = 0; k < f->n_hosts; k++) {
		const struct an_fleet_host *h = &f->hosts[k];
		struct cm_buf vs = {NULL, 0, 0}, w = {NULL, 0, 0};
		for (size_t v = 0; v < a->n_variants; v++) {
			if (h->campaign != SIZE_MAX && a->variants[v].campaign == h->campaign)
				cm_buf_printf(&vs, "%s%s", vs.len ? ", " : "", a->variants[v].name);
		}
		if (h->barriers)
			cm_buf_printf(&w, "%.1f s at %zu (longest %.1f s)", h->waited_s,
				      h->barriers, h->max_wait_s);
		an_svg_put(b,
			   "<tr><th scope=\"row\">%e</th><td>%e</td><td>%e</td><td>%e</td>"
			   "<td>%e</td><td><code>%e</code></td></tr>\n",
			   h->name, h->status ? h->status : "-", h->reason ? h->reason : "",
			   w.s ? w.s : "-",
			   vs.s			     ? vs.s
			   : h->campaign == SIZE_MAX ? "none: no campaign directory"
						     : "none: no runs",
			   h->dir);
		cm_buf_release(&vs);
		cm_buf_release(&w);
	}
	cm_buf_puts(b, "</tbody></table></div>\n");
}

static void facts(struct html *h)
{
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	cm_buf_puts(b, "<section id=\"facts\">\n<h2>What was measured</h2>\n"
		       "<table class=\"facts\">\n<tbody>\n");
	for (size_t i = 0; i < a->n_fleets; i++) {
		const struct an_fleet *f = &a->fleets[i];
		char *v = cm_asprintf("%s (%s): %zu hosts%s%s%s%s%s%s",
				      f->name ? f->name : "unnamed", f->manifest, f->n_hosts,
				      f->mode ? ", mode " : "", f->mode ? f->mode : "",
				      f->sync ? ", sync " : "", f->sync ? f->sync : "",
				      f->status ? ", " : "", f->status ? f->status : "");
		fact(b, "fleet", v);
		free(v);
	}
	for (size_t i = 0; i < a->n_campaigns; i++) {
		const struct an_campaign *c = &a->campaigns[i];
		char *v = cm_asprintf("%s (%s)", c->name ? c->name : "unnamed", c->manifest);
		char *name = c->fleet_host ? cm_asprintf("campaign of host %s", c->fleet_host)
					   : cm_strdup("campaign");
		fact(b, name, v);
		free(name);
		free(v);
		if (c->host)
			fact(b, "host", c->host);
		if (c->disturbed_rule)
			fact(b, "disturbed when", c->disturbed_rule);
	}
	/* fio versions: one, or each where it ran */
	fact(b, a->fio_versions_said ? "fio versions" : "fio",
	     a->fio_versions_said ? a->fio_versions_said
	     : a->fio_version	  ? a->fio_version
				  : "unknown");
	/* what the target was, each capture with the states that ran on it */
	for (size_t e = 0; e < a->n_envs; e++) {
		const struct an_env *env = &a->envs[e];
		struct cm_buf w = {NULL, 0, 0};
		for (size_t k = 0; k < a->n_cols; k++) {
			const struct an_col *c = &a->cols[k];
			bool here = false;
			for (size_t i = 0; i < a->n_runs && !here; i++)
				here = a->runs[i].accepted && a->runs[i].env == e &&
				       a->runs[i].state == c->state &&
				       a->runs[i].variant == c->variant;
			if (!here)
				continue;
			cm_buf_printf(&w, "%s", w.len ? ", " : "; runs of ");
			if (a->n_variants > 1)
				cm_buf_printf(&w, "%s ", a->variants[c->variant].name);
			cm_buf_puts(&w, a->states[c->state].name);
		}
		const struct an_campaign *c = &a->campaigns[env->campaign];
		char *name = a->n_campaigns <= 1 ? cm_asprintf("environment %lld", env->id)
			     : c->fleet_host ? cm_asprintf("environment %lld of host %s", env->id,
							   c->fleet_host)
					     : cm_asprintf("environment %lld of %s", env->id,
							   c->name ? c->name : c->manifest);
		char *v = cm_asprintf("%s%s%s%s", env->where ? env->where : "",
				      env->where ? ": " : "", env->summary, w.s ? w.s : "");
		fact(b, name, v);
		free(v);
		free(name);
		cm_buf_release(&w);
	}
	struct cm_strv until = {NULL, 0, 0}, steady = {NULL, 0, 0};
	an_steady_lines(a, &until, &steady);
	for (size_t i = 0; i < until.n; i++)
		fact(b, "until-steady", until.v[i]);
	for (size_t i = 0; i < steady.n; i++)
		fact(b, "steady", steady.v[i]);
	cm_strv_release(&until);
	cm_strv_release(&steady);
	struct cm_buf t = {NULL, 0, 0};
	for (size_t i = 0; i < a->n_order; i++)
		cm_buf_printf(&t, "%s%s", i ? ", " : "", a->states[a->order[i]].name);
	if (a->n_order > 1)
		cm_buf_printf(&t, " (baseline %s)", a->states[a->baseline].name);
	fact(b, a->n_order > 1 ? "states" : "state", t.s);
	t.len = 0;
	for (size_t v = 0; v < a->n_variants; v++)
		cm_buf_printf(&t, "%s%s", v ? ", " : "", a->variants[v].name);
	if (a->n_variants > 1)
		cm_buf_printf(&t, " (baseline %s)", a->variants[a->baseline_variant].name);
	/* a fleet's variants are its hosts (HOST/VARIANT where a host has its own) */
	const struct an_fleet *fleet = an_fleet_alone(a);
	bool several = a->n_variants > 1, own = false;
	for (size_t v = 0; fleet && v < a->n_variants; v++)
		own |= strchr(a->variants[v].name, '/') != NULL;
	const char *what = !fleet    ? (several ? "variants" : "variant")
			   : own     ? "hosts/variants"
			   : several ? "hosts"
				     : "host";
	fact(b, what, t.s);
	t.len = 0;
	for (size_t i = 0; i < a->n_tests; i++)
		cm_buf_printf(&t, "%s%s", i ? ", " : "", a->tests[i].name);
	fact(b, "tests", a->n_tests ? t.s : "none: no fio runs, the transitions alone");
	cm_buf_release(&t);
	char *n = cm_asprintf("%zu used, %zu rejected, %zu files skipped", an_used_runs(a),
			      a->n_rejected, a->n_skipped);
	fact(b, "inputs", n);
	free(n);
	size_t disturbed = 0;
	for (size_t i = 0; i < a->n_runs; i++)
		disturbed += a->runs[i].accepted && a->runs[i].disturbed;
	if (disturbed || a->disturbed_out) {
		char *d = a->disturbed_out
			      ? cm_asprintf("%zu left out by --exclude-disturbed", a->disturbed_out)
			      : cm_asprintf("%zu of %zu used, marked ! and named in the notes",
					    disturbed, an_used_runs(a));
		fact(b, "disturbed runs", d);
		free(d);
	}
	cm_buf_puts(b, "</tbody></table>\n");

	/* the variants where they came from */
	if (a->n_variants > 1 || a->n_inputs > 1) {
		cm_buf_puts(b, "<h3>Variants</h3>\n<div class=\"scroll\"><table class=\"list\">\n"
			       "<thead><tr><th>variant</th><th>input</th><th>campaign</th>"
			       "<th>fio</th><th>runs</th></tr></thead>\n<tbody>\n");
		for (size_t v = 0; v < a->n_variants; v++) {
			const struct an_variant *var = &a->variants[v];
			const struct an_campaign *c =
			    var->campaign != SIZE_MAX ? &a->campaigns[var->campaign] : NULL;
			an_svg_put(b,
				   "<tr><th scope=\"row\">%e%s</th><td><code>%e</code></td>"
				   "<td>%e</td><td>%e</td><td>%z</td></tr>\n",
				   var->name, v == a->baseline_variant ? " (base)" : "",
				   a->inputs[var->input].arg, c && c->name ? c->name : "-",
				   var->fio_version ? var->fio_version : "-", var->n_runs);
		}
		cm_buf_puts(b, "</tbody></table></div>\n");
	}
	for (size_t i = 0; i < a->n_fleets; i++)
		fleet_hosts(b, a, &a->fleets[i]);
	if (a->n_rejected) {
		an_svg_put(b, "<h3>Inputs rejected (%z)</h3>\n<table class=\"list\">\n<tbody>\n",
			   a->n_rejected);
		for (size_t i = 0; i < a->n_rejected && i < MAX_LISTED; i++)
			an_svg_put(b, "<tr><td><code>%e</code></td><td>%e</td></tr>\n",
				   a->rejected[i].path, a->rejected[i].reason);
		cm_buf_puts(b, "</tbody></table>\n");
		if (a->n_rejected > MAX_LISTED)
			an_svg_put(b,
				   "<p class=\"sub\">and %z more; fiocamp-analyze lists every one "
				   "on standard error.</p>\n",
				   a->n_rejected - MAX_LISTED);
	}
	if (a->n_skipped) {
		/* one line per reason (skipped files are not results) */
		cm_buf_puts(b, "<h3>Files skipped</h3>\n<table class=\"list\">\n<tbody>\n");
		for (size_t i = 0; i < a->n_skipped;) {
			size_t k = i;
			while (k < a->n_skipped &&
			       strcmp(a->skipped[k].reason, a->skipped[i].reason) == 0)
				k++;
			an_svg_put(b, "<tr><td>%e</td><td>%z</td><td><code>%e</code>%s</td></tr>\n",
				   a->skipped[i].reason, k - i, a->skipped[i].path,
				   k - i > 1 ? ", ..." : "");
			i = k;
		}
		cm_buf_puts(b, "</tbody></table>\n");
	}
	cm_buf_puts(b, "</section>\n");
}

static void contents(struct html *h)
{
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	cm_buf_puts(b, "<nav>\n<ul>\n<li><a href=\"#facts\">What was measured</a></li>\n");
	if (a->n_variants > 1)
		cm_buf_puts(b, "<li><a href=\"#compare\">Variants compared</a></li>\n");
	bool trans = false;
	for (size_t i = 0; i < h->c->n; i++)
		trans |= h->c->v[i].kind == AN_CHART_TRANSITIONS;
	if (a->n_sweeps)
		cm_buf_puts(b, "<li><a href=\"#sweeps\">Sweep</a></li>\n");
	if (a->n_shares)
		cm_buf_puts(b, "<li><a href=\"#clients\">Clients</a></li>\n");
	if (trans)
		cm_buf_puts(b, "<li><a href=\"#transitions\">State transitions</a></li>\n");
	for (size_t t = 0; t < a->n_tests; t++)
		an_svg_put(b, "<li><a href=\"#test-%z\">%e</a></li>\n", t + 1, a->tests[t].name);
	cm_buf_puts(b, "<li><a href=\"#notes\">Legends and notes</a></li>\n</ul>\n</nav>\n");
}

static void footer(struct html *h)
{
	const struct an_analysis *a = h->a;
	struct cm_buf *b = &h->b;
	cm_buf_puts(b, "<footer id=\"notes\">\n<h2>Legends and notes</h2>\n");
	const char *paras[AN_LEGENDS_MAX];
	/* the grid's legends only where there is a grid (fio or bonnie++ tests) */
	size_t n = an_table_legends(a, a->n_tests > 0, an_any_marked(a), paras);
	for (size_t i = 0; i < n; i++)
		an_svg_put(b, "<p>%e</p>\n", paras[i]);
	/* the kinds of chart this report has */
	bool any = false;
	for (int k = 0; k < AN_CHART_KINDS; k++) {
		bool has = false;
		for (size_t i = 0; i < h->c->n && !has; i++)
			has = h->c->v[i].kind == (enum an_chart_kind)k;
		if (!has)
			continue;
		if (!any)
			cm_buf_puts(b, "<p>The charts:</p>\n<ul>\n");
		any = true;
		an_svg_put(b, "<li><code>%e</code>: %e.</li>\n",
			   an_chart_kind_file((enum an_chart_kind)k),
			   an_chart_kind_text((enum an_chart_kind)k));
	}
	if (any)
		cm_buf_puts(b, "</ul>\n");
	for (size_t i = 0; i < a->notes.n; i++)
		an_svg_put(b, "<p>note: %e</p>\n", a->notes.items[i]);
	cm_buf_puts(b, "</footer>\n");
}

void an_write_html(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		   const struct an_charts *c, const char *generator)
{
	struct html h = {{NULL, 0, 0}, a, c, SIZE_MAX, false};
	struct cm_buf *b = &h.b;
	struct cm_buf title = {NULL, 0, 0};
	title_of(a, &title);
	an_svg_put(b,
		   "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n"
		   "<head>\n<meta charset=\"utf-8\"/>\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		   "style-src 'unsafe-inline'\"/>\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
		   "<meta name=\"generator\" content=\"%e\"/>\n<title>%e</title>\n"
		   "<style>\n%s</style>\n</head>\n<body>\n<h1>%e</h1>\n",
		   generator, title.s, css, title.s);
	cm_buf_release(&title);
	struct cm_buf line = {NULL, 0, 0};
	if (a->n_order > 1)
		cm_buf_printf(&line, "baseline %s; ", a->states[a->baseline].name);
	if (a->n_variants > 1)
		cm_buf_printf(&line, "baseline %s %s; ", an_fleet_alone(a) ? "host" : "variant",
			      a->variants[a->baseline_variant].name);
	cm_buf_printf(&line, "%zu %s, %zu %s, %zu runs used, %zu inputs rejected. Written by %s.",
		      a->n_order, a->n_order == 1 ? "state" : "states", a->n_tests,
		      a->n_tests == 1 ? "test" : "tests", an_used_runs(a), a->n_rejected,
		      generator);
	an_svg_put(b, "<p class=\"sub\">%e</p>\n", line.s);
	cm_buf_release(&line);
	/* what could mislead a reader, before anything else */
	for (size_t i = 0; i < a->warnings.n; i++)
		an_svg_put(b, "<p class=\"warn\">warning: %e</p>\n", a->warnings.items[i]);
	contents(&h);
	facts(&h);
	if (a->n_variants > 1)
		an_compare_visit(a, compare_block, &h);
	if (a->n_sweeps)
		sweeps(&h);
	if (a->n_shares)
		clients(&h);
	an_grid_visit(a, o, grid_block, &h);
	close_section(&h);
	footer(&h);
	cm_buf_puts(b, "</body>\n</html>\n");
	fwrite(b->s, 1, b->len, f);
	cm_buf_release(b);
}
