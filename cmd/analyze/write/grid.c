/* SPDX-License-Identifier: MIT */
/*
 * The grid of --table, shared by the terminal, Markdown and the HTML
 * report: a block per test, job and direction (the transitions first), a
 * row per metric and its sub-rows, a column per state and variant; the
 * header above it and the legends, warnings and notes under it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

static struct an_grid_block *new_block(struct an_grid *g, char *title)
{
	struct an_grid_block *b = CM_PUSH(g->blocks, g->n, g->cap);
	b->title = title;
	return b;
}

/* Returns the row's cells, which stay put while more rows are added. */
static char **new_row(struct an_grid_block *b, const char *label)
{
	struct an_grid_row *r = CM_PUSH(b->rows, b->n, b->cap);
	r->label = cm_strdup(label);
	r->cells = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*r->cells));
	return r->cells;
}

void an_grid_free(struct an_grid *g)
{
	for (size_t i = 0; i < g->n; i++) {
		struct an_grid_block *b = &g->blocks[i];
		for (size_t k = 0; k < b->n; k++) {
			for (size_t c = 0; c < b->ncols; c++)
				free(b->rows[k].cells[c]);
			free(b->rows[k].cells);
			free(b->rows[k].label);
		}
		free(b->rows);
		free(b->title);
		free(b->cols);
	}
	free(g->blocks);
}

static char *value_pct(double v, double pct, bool mark)
{
	char num[32], p[32];
	an_fmt_short(num, sizeof(num), v);
	an_fmt_pct(p, sizeof(p), pct);
	if (!isfinite(v))
		return cm_strdup("-");
	if (!p[0])
		return cm_strdup(num);
	return cm_asprintf("%s %s%s", num, p, mark ? "*" : "");
}

static char *range_text(double lo, double hi)
{
	char a[32], b[32];
	if (!isfinite(lo))
		return cm_strdup("-");
	an_fmt_short(a, sizeof(a), lo);
	an_fmt_short(b, sizeof(b), hi);
	return cm_asprintf("%s..%s", a, b);
}

static char *p_text(const struct fc_mann_whitney *mw, bool have)
{
	if (!have || !isfinite(mw->p))
		return cm_strdup("-");
	if (mw->p < 0.001)
		return cm_strdup("<0.001");
	return cm_asprintf("%.3f", mw->p);
}

/* A cell against the column the table compares it to. */
struct shown {
	double change_pct;
	bool outside, have_mw;
	const struct fc_mann_whitney *mw;
	double ref_median; /* NaN for the base column */
	bool is_base;
};

static struct shown shown_cmp(const struct an_analysis *a, const struct an_series *s, size_t col)
{
	struct shown sh = {NAN, false, false, NULL, NAN, false};
	const struct an_cell *c = &s->cells[col];
	size_t ref = an_ref_col(a, col);
	if (ref == SIZE_MAX) {
		sh.is_base = col == a->base_col;
		return sh;
	}
	sh.ref_median = s->cells[ref].sum.median;
	if (a->cols[col].state != a->baseline) {
		sh.change_pct = c->change_pct;
		sh.outside = c->outside;
		sh.have_mw = c->have_mw;
		sh.mw = &c->mw;
	} else {
		sh.change_pct = c->v_change_pct;
		sh.outside = c->v_outside;
		sh.have_mw = c->v_have_mw;
		sh.mw = &c->v_mw;
	}
	return sh;
}

/* ">512" for a cell only bonnie++'s "+++++" fills, "too fast" without a
 * bound; NULL when it has values (or nothing). */
static char *too_fast_text(const struct an_cell *c)
{
	if (c->sum.n || !c->too_fast)
		return NULL;
	char num[32];
	an_fmt_short(num, sizeof(num), c->too_fast_above);
	return isfinite(c->too_fast_above) ? cm_asprintf(">%s", num) : cm_strdup("too fast");
}

static void metric_rows(struct an_grid_block *b, const struct an_analysis *a,
			const struct an_series *s)
{
	char label[96];
	snprintf(label, sizeof(label), "%s median", an_metric_label(s->metric));
	char **med = new_row(b, label);
	char **rng = new_row(b, "  min..max");
	char **r1 = new_row(b, "  round 1");
	char **rest = new_row(b, "  rounds 2..n");
	char **p = new_row(b, "  p (Mann-Whitney)");
	bool any_too_fast = false;
	for (size_t k = 0; k < b->ncols; k++)
		any_too_fast |= s->cells[b->cols[k]].too_fast > 0;
	char **tf = any_too_fast ? new_row(b, "  too fast (+++++)") : NULL;
	for (size_t k = 0; k < b->ncols; k++) {
		size_t col = b->cols[k];
		const struct an_cell *c = &s->cells[col];
		struct shown sh = shown_cmp(a, s, col);
		/* the base column's own rounds against its median */
		double ref = sh.is_base ? c->sum.median : sh.ref_median;
		med[k] = too_fast_text(c);
		if (!med[k])
			med[k] = value_pct(c->sum.median, sh.change_pct, sh.outside);
		if (c->disturbed_n) {
			/* most of its rounds disturbed: !!, some: ! */
			char *marked =
			    cm_asprintf("%s%s", med[k], an_disturbed_mark(c->disturbed_n, c->n));
			free(med[k]);
			med[k] = marked;
		}
		rng[k] = range_text(c->sum.min, c->sum.max);
		if (c->round1_too_fast)
			r1[k] = cm_strdup("too fast");
		else
			r1[k] = value_pct(c->round1, an_pct_change(c->round1, ref), false);
		if (tf)
			tf[k] = cm_asprintf("%zu", c->too_fast);
		rest[k] = value_pct(c->rest_median, an_pct_change(c->rest_median, ref), false);
		if (!c->sum.n)
			p[k] = cm_strdup("-");
		else if (sh.is_base)
			p[k] = cm_strdup("base");
		else
			p[k] = p_text(sh.mw, sh.have_mw);
	}
}

static char *seconds_text(double s)
{
	if (!isfinite(s))
		return cm_strdup("-");
	return cm_asprintf("%.0f s", s);
}

static void per_second_rows(struct an_grid_block *b, const struct an_analysis *a, size_t test,
			    size_t job, enum fc_ddir dir)
{
	const struct an_series *first = an_find_series(a, test, job, dir, AN_M_SEC_FIRST);
	const struct an_series *last = an_find_series(a, test, job, dir, AN_M_SEC_LAST);
	const struct an_series *min = an_find_series(a, test, job, dir, AN_M_SEC_MIN);
	const struct an_series *rec = an_find_series(a, test, job, dir, AN_M_RECOVERY);
	if (!first || !last || !min || !rec)
		return;
	const char *kind = first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS";
	char label[96];
	snprintf(label, sizeof(label), "per second (%s)", kind);
	char **hb = new_row(b, label);
	char **rb = new_row(b, "  band p10..p90");
	char **rf = new_row(b, "  round 1, 1st second");
	char **rm = new_row(b, "  round 1, slowest");
	char **rl = new_row(b, "  round 1, last second");
	char **rr = new_row(b, "  recovery round 1");
	char **rn = new_row(b, "  recovery 2..n, max");
	for (size_t k = 0; k < b->ncols; k++) {
		size_t col = b->cols[k];
		const struct an_col *cl = &a->cols[col];
		const struct an_band *band =
		    an_find_band(a, cl->variant, test, job, dir, first->log_type);
		hb[k] = cm_strdup("");
		/* each variant's band, in its baseline state's column */
		rb[k] = cl->state == a->baseline && band && band->n
			    ? range_text(band->low, band->high)
			    : cm_strdup("");
		/* Round 1's seconds against the reference's median of the same
		 * second over its rounds, as the round 1 rows above; the base
		 * column's against its own (legend_sec) */
		const struct an_series *ss[3] = {first, min, last};
		char **rows[3] = {rf, rm, rl};
		for (int i = 0; i < 3; i++) {
			const struct an_cell *c = &ss[i]->cells[col];
			struct shown sh = shown_cmp(a, ss[i], col);
			double ref = sh.is_base ? c->sum.median : sh.ref_median;
			rows[i][k] = value_pct(c->round1, an_pct_change(c->round1, ref), false);
		}

		const struct an_cell *cr = &rec->cells[col];
		bool have_r1 = false, r1_never = false;
		double rest_max = NAN;
		size_t rest_n = 0, rest_never = 0;
		for (size_t i = 0; i < cr->n; i++) {
			double v = cr->values[i];
			if (cr->first[i]) {
				/* cr->round1 is their median: never when it is */
				have_r1 = true;
				r1_never = !isfinite(cr->round1);
				continue;
			}
			rest_n++;
			if (!isfinite(v))
				rest_never++;
			else if (isnan(rest_max) || v > rest_max)
				rest_max = v;
		}
		if (!band || !band->n || !have_r1)
			rr[k] = cm_strdup("-");
		else if (r1_never)
			rr[k] = cm_strdup("never");
		else
			rr[k] = seconds_text(cr->round1);
		if (!band || !band->n || rest_n == 0)
			rn[k] = cm_strdup("-");
		else if (rest_never)
			rn[k] = cm_asprintf("never in %zu/%zu", rest_never, rest_n);
		else
			rn[k] = seconds_text(rest_max);
	}
}

static bool has_transitions(const struct an_analysis *a)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_transition *t =
		    an_transition_of(a, a->cols[k].state, a->cols[k].variant);
		if (t && (isfinite(t->downtime_s) || t->n_actions || cm_status_failed(t->status)))
			return true;
	}
	return false;
}

static bool has_hash_checks(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].hash_checks)
			return true;
	}
	return false;
}

static void transition_block(struct an_grid *g, const struct an_analysis *a)
{
	struct an_grid_block *b = new_block(g, cm_strdup("state transitions"));
	b->test = SIZE_MAX;
	b->cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*b->cols));
	for (size_t k = 0; k < a->n_cols; k++)
		b->cols[b->ncols++] = k;
	char **st = an_any_marked(a) ? new_row(b, "status") : NULL;
	char **dt = new_row(b, "downtime s");
	char **ac = new_row(b, "actions s (count)");
	char **tk = new_row(b, "provider tasks s (count)");
	char **hs = has_hash_checks(a) ? new_row(b, "data (verify-hash)") : NULL;
	for (size_t k = 0; k < b->ncols; k++) {
		const struct an_col *c = &a->cols[b->cols[k]];
		const struct an_transition *t = an_transition_of(a, c->state, c->variant);
		double act_s, task_s;
		size_t n_act, n_task;
		an_action_sums(t, &act_s, &n_act, &task_s, &n_task);
		if (st)
			st[k] = cm_strdup(t && t->status ? t->status : "-");
		dt[k] = t && isfinite(t->downtime_s) ? cm_asprintf("%.1f", t->downtime_s)
						     : cm_strdup("-");
		ac[k] = n_act ? cm_asprintf("%.1f (%zu)", act_s, n_act) : cm_strdup("-");
		tk[k] = n_task ? cm_asprintf("%.1f (%zu)", task_s, n_task) : cm_strdup("-");
		if (hs)
			hs[k] = an_integrity_text(t);
	}
}

void an_grid_build(struct an_grid *g, const struct an_analysis *a, const struct an_report_opts *o)
{
	if (has_transitions(a))
		transition_block(g, a);
	for (size_t t = 0; t < a->n_tests; t++) {
		/* the columns that ran this test */
		size_t *cols = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*cols));
		size_t *runs = cm_calloc(a->n_cols ? a->n_cols : 1, sizeof(*runs));
		size_t ncols = 0;
		for (size_t k = 0; k < a->n_cols; k++) {
			size_t n = an_runs_of(a, k, t);
			if (n) {
				runs[ncols] = n;
				cols[ncols++] = k;
			}
		}
		const struct an_test *ts = &a->tests[t];
		bool several_jobs = false;
		for (size_t k = ts->series_start; k < ts->series_end; k++)
			several_jobs |= a->series[k].job_index > 0;
		/* (job, direction) pairs of this test, in series order. */
		for (size_t i = ts->series_start; i < ts->series_end && ncols; i++) {
			const struct an_series *s = &a->series[i];
			bool seen = false;
			for (size_t k = ts->series_start; k < i && !seen; k++) {
				const struct an_series *q = &a->series[k];
				seen = q->test == t && q->job_index == s->job_index &&
				       q->dir == s->dir;
			}
			if (seen)
				continue;
			char *title;
			if (several_jobs)
				title = cm_asprintf("%s: job %zu \"%s\"%s%s, %s", a->tests[t].name,
						    s->job_index + 1, s->job_name,
						    s->client && !s->client_all ? " on " : "",
						    s->client && !s->client_all ? s->client : "",
						    fc_ddir_name(s->dir));
			else
				title =
				    cm_asprintf("%s: %s", a->tests[t].name, fc_ddir_name(s->dir));
			struct an_grid_block *b = new_block(g, title);
			b->test = t;
			b->job = s->job_index;
			b->dir = s->dir;
			b->cols = cm_calloc(ncols, sizeof(*b->cols));
			memcpy(b->cols, cols, ncols * sizeof(*cols));
			b->ncols = ncols;
			char **rr = new_row(b, "runs");
			for (size_t k = 0; k < ncols; k++)
				rr[k] = cm_asprintf("%zu", runs[k]);
			for (int m = 0; m < AN_M_FIRST_LOG; m++) {
				bool shown = o->metrics[m];
				/* bonnie++'s test has no clat: its rate, CPU and slowest operation
				 */
				if (ts->bonnie_test >= 0 && !o->metrics_given)
					shown = m == AN_M_IOPS || m == AN_M_BW || m == AN_M_FILES ||
						m == AN_M_CPU || m == AN_M_LAT_MAX;
				if (!shown)
					continue;
				const struct an_series *ms =
				    an_find_series(a, t, s->job_index, s->dir, (enum an_metric)m);
				if (ms)
					metric_rows(b, a, ms);
			}
			per_second_rows(b, a, t, s->job_index, s->dir);
		}
		free(cols);
		free(runs);
	}
}

/* The header of a column: its name and marks, cut into pieces of at most
 * `w` columns (one line each). */
char *an_col_header(const struct an_analysis *a, size_t col)
{
	char *name = an_col_name(a, &a->cols[col]);
	const char *mark = an_col_mark(a, &a->cols[col]);
	char *h;
	if (col == a->base_col && mark)
		h = cm_asprintf("%s (base, %s)", name, mark);
	else if (col == a->base_col)
		h = cm_asprintf("%s (base)", name);
	else if (mark)
		h = cm_asprintf("%s (%s)", name, mark);
	else
		h = cm_strdup(name);
	free(name);
	return h;
}

/* ---- header, legend, notes ------------------------------------------------- */

/* Accepted runs of bonnie++ rows, and the rows: a row is a run per test. */
static size_t bonnie_runs(const struct an_analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++)
		n += a->runs[i].accepted && a->runs[i].bonnie_test >= 0;
	return n;
}

static size_t bonnie_rows(const struct an_analysis *a)
{
	size_t n = 0;
	const struct an_run *prev = NULL;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->bonnie_test < 0)
			continue;
		n += !prev || prev->line != r->line || strcmp(prev->path, r->path) != 0;
		prev = r;
	}
	return n;
}

void an_header_text(struct cm_buf *b, const struct an_analysis *a)
{
	size_t used = an_used_runs(a);
	const struct an_fleet *fl = an_fleet_alone(a);
	if (fl) {
		/* the variants are the fleet's hosts: named once, as its hosts,
		 * with the baseline and how a host ended when not well */
		cm_buf_printf(b, "fleet %s (%s): %zu host%s", fl->name ? fl->name : "?",
			      fl->manifest, fl->n_hosts, fl->n_hosts == 1 ? "" : "s");
		for (size_t k = 0; k < fl->n_hosts; k++) {
			const struct an_fleet_host *h = &fl->hosts[k];
			size_t v = an_host_variant(a, fl, k);
			bool base = a->n_variants > 1 && v == a->baseline_variant;
			const char *ended = cm_status_failed(h->status) ? h->status : NULL;
			cm_buf_printf(b, "%s%s",
				      k == 0		     ? ", "
				      : k + 1 == fl->n_hosts ? " and "
							     : ", ",
				      h->name);
			if (base || ended)
				cm_buf_printf(b, " (%s%s%s%s)", base ? "base" : "",
					      base && ended ? ", " : "", ended ? "host " : "",
					      ended ? ended : "");
		}
	} else if (a->n_variants == 1 && a->variants[0].campaign != SIZE_MAX) {
		const struct an_campaign *c = &a->campaigns[a->variants[0].campaign];
		cm_buf_printf(b, "campaign %s (%s)", c->name ? c->name : "?", c->manifest);
	} else if (a->n_variants > 1) {
		for (size_t i = 0; i < a->n_fleets; i++) {
			const struct an_fleet *f = &a->fleets[i];
			cm_buf_printf(b, "fleet %s (%s, %zu hosts), ", f->name ? f->name : "?",
				      f->manifest, f->n_hosts);
		}
		cm_buf_printf(b, "%zu variants:", a->n_variants);
		for (size_t v = 0; v < a->n_variants; v++) {
			const struct an_variant *var = &a->variants[v];
			cm_buf_printf(b, "%s %s", v ? "," : "", var->name);
			bool base = v == a->baseline_variant;
			const struct an_campaign *c =
			    var->campaign != SIZE_MAX ? &a->campaigns[var->campaign] : NULL;
			/* the campaign's name when it says more than the variant's
			 * (a fleet's hosts all share theirs: how the host ended
			 * instead, when not well) */
			const struct an_fleet_host *h = an_variant_host(a, v, NULL);
			const char *ended = h && cm_status_failed(h->status) ? h->status : NULL;
			if (c && ((c->name && strcmp(c->name, var->name) == 0) || h))
				c = NULL;
			if (base || c || ended)
				cm_buf_printf(b, " (%s%s%s%s%s%s)", base ? "base" : "",
					      base && (c || ended) ? ", " : "",
					      c ? "campaign " : "",
					      c ? (c->name ? c->name : c->manifest) : "",
					      ended ? "host " : "", ended ? ended : "");
		}
	} else {
		size_t rows = bonnie_rows(a), fio = used - bonnie_runs(a);
		if (rows == 0)
			cm_buf_printf(b, "%zu fio run(s)", used);
		else if (fio)
			cm_buf_printf(b, "%zu fio run(s) and %zu bonnie++ row(s)", fio, rows);
		else
			cm_buf_printf(b, "%zu bonnie++ row(s)", rows);
	}
	if (a->fio_version)
		cm_buf_printf(b, ", %s", a->fio_version);
	else if (a->fio_versions_said)
		cm_buf_printf(b, "; fio versions %s", a->fio_versions_said);
	if (a->envs_said)
		cm_buf_printf(b, "; environments %s", a->envs_said);
	cm_buf_putc(b, '\n');
	if (a->n_variants > 1)
		cm_buf_printf(b, "baseline %s %s", fl ? "host" : "variant",
			      a->variants[a->baseline_variant].name);
	if (a->n_variants < 2 || a->n_order > 1)
		cm_buf_printf(b, "%sbaseline %s%s", a->n_variants > 1 ? ", " : "",
			      a->n_variants > 1 ? "state " : "", a->states[a->baseline].name);
	cm_buf_printf(b, "; states %zu, tests %zu, runs used %zu, inputs rejected %zu%s",
		      a->n_order, a->n_tests, used, a->n_rejected,
		      a->n_rejected ? " (listed on stderr)" : "");
}

static const char legend[] =
    "median: change vs the baseline median; * = outside the baseline's min..max. "
    "round 1, rounds 2..n: round 1's value (in a repeated state the median of each "
    "repetition's round 1) and the median of the other rounds, each against the baseline "
    "median.  p: exact two-sided Mann-Whitney U against the "
    "baseline; with n rounds against n it cannot go below 2/C(2n,n): 0.100 for 3, "
    "0.029 for 4, 0.008 for 5.";
static const char legend_variants[] =
    "variants: the columns of the baseline state compare with the baseline variant, the "
    "other states with the baseline state of their own variant.";
static const char legend_sec[] =
    "per second: band = the baseline's per-second p10..p90; round 1, 1st second, slowest "
    "and last second: round 1's, each against the baseline's median of that second over "
    "all its rounds; recovery = seconds from the start of the run until the rate first "
    "reaches the band's lower edge.";
static const char legend_failed[] =
    "(failed), (interrupted), (data differs): what the campaign recorded of the state's "
    "transition; see state transitions.";

static const char legend_disturbed[] =
    "! = some of the median's rounds were disturbed (the campaign's telemetry: steal or "
    "foreign I/O above its threshold), !! = most of them; the notes name them, and "
    "--exclude-disturbed leaves them out.";

static bool has_disturbed(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		if (a->runs[i].accepted && a->runs[i].disturbed)
			return true;
	}
	return false;
}

static bool has_per_second(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_series; i++) {
		if (a->series[i].metric >= AN_M_FIRST_LOG)
			return true;
	}
	return false;
}

size_t an_table_legends(const struct an_analysis *a, bool grid, bool marks, const char **paras)
{
	size_t n = 0;
	if (grid)
		paras[n++] = legend;
	if (grid && a->n_variants > 1 && a->n_order > 1)
		paras[n++] = legend_variants;
	if (grid && has_per_second(a))
		paras[n++] = legend_sec;
	if (grid && has_disturbed(a))
		paras[n++] = legend_disturbed;
	if (marks)
		paras[n++] = legend_failed;
	return n;
}

void an_steady_lines(const struct an_analysis *a, struct cm_strv *campaign, struct cm_strv *own)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_transition *t =
		    an_transition_of(a, a->cols[k].state, a->cols[k].variant);
		/* the variants of one campaign share its states' verdicts */
		bool seen = false;
		for (size_t j = 0; j < k && !seen; j++)
			seen = an_transition_of(a, a->cols[j].state, a->cols[j].variant) == t;
		if (!t || seen)
			continue;
		for (size_t r = 0; r < t->n_reps; r++) {
			const struct an_rep *rep = &t->reps[r];
			if (!rep->steady_text)
				continue;
			if (t->n_reps > 1)
				cm_strv_addf(campaign, "%s repetition %d: %s",
					     a->states[t->state].name, rep->repetition,
					     rep->steady_text);
			else
				cm_strv_addf(campaign, "%s: %s", a->states[t->state].name,
					     rep->steady_text);
		}
	}
	bool variants = a->n_variants > 1;
	for (size_t t = 0; t < a->n_tests; t++) {
		struct cm_buf b = {NULL, 0, 0};
		for (size_t i = 0; i < a->n_steady; i++) {
			const struct an_steady *s = &a->steady[i];
			if (s->test != t)
				continue;
			const struct an_col *c = &a->cols[s->col];
			if (!b.len)
				cm_buf_printf(&b, "%s (window %zu):", a->tests[t].name, s->window);
			else
				cm_buf_putc(&b, ',');
			if (variants)
				cm_buf_printf(&b, " %s", a->variants[c->variant].name);
			cm_buf_printf(&b, " %s", a->states[c->state].name);
			if (s->reached)
				cm_buf_printf(&b, " steady from round %d", s->round);
			else
				cm_buf_printf(&b, " not steady over %zu rounds", s->n);
		}
		if (b.len)
			cm_strv_add(own, b.s);
		cm_buf_release(&b);
	}
}

/* The legends (those of the grid with `grid`; that of marked columns with
 * `marks`), the warnings and the notes. */
void an_footer_text(FILE *f, const struct an_analysis *a, int width, bool markdown, bool grid,
		    bool marks)
{
	const char *paras[AN_LEGENDS_MAX];
	size_t n = an_table_legends(a, grid, marks, paras);
	for (size_t i = 0; i < n; i++) {
		if (markdown) {
			fprintf(f, "%s%s\n", i ? "\n" : "", paras[i]);
		} else {
			an_wrap(f, "", 0, paras[i], width);
		}
	}
	struct cm_strv until = {NULL, 0, 0}, steady = {NULL, 0, 0};
	an_steady_lines(a, &until, &steady);
	for (size_t i = 0; i < until.n; i++) {
		if (markdown)
			fprintf(f, "\n- until-steady: %s", until.v[i]);
		else
			an_wrap(f, "until-steady: ", 14, until.v[i], width);
	}
	for (size_t i = 0; i < steady.n; i++) {
		if (markdown)
			fprintf(f, "\n- steady: %s", steady.v[i]);
		else
			an_wrap(f, "steady: ", 8, steady.v[i], width);
	}
	cm_strv_release(&until);
	for (size_t i = 0; i < a->warnings.n; i++) {
		if (markdown)
			fprintf(f, "\n- warning: %s", a->warnings.items[i]);
		else
			an_wrap(f, "warning: ", 9, a->warnings.items[i], width);
	}
	for (size_t i = 0; i < a->notes.n; i++) {
		if (markdown)
			fprintf(f, "\n- note: %s", a->notes.items[i]);
		else
			an_wrap(f, "note: ", 6, a->notes.items[i], width);
	}
	if (markdown && (a->notes.n || a->warnings.n || steady.n))
		fputc('\n', f);
	cm_strv_release(&steady);
}

/* ---- the tables for other writers (html.c) ------------------------------------ */

void an_grid_visit(const struct an_analysis *a, const struct an_report_opts *o, an_tab_fn fn,
		   void *ctx)
{
	struct an_grid g;
	memset(&g, 0, sizeof(g));
	an_grid_build(&g, a, o);
	for (size_t bi = 0; bi < g.n; bi++) {
		const struct an_grid_block *b = &g.blocks[bi];
		struct an_tab t = {.title = b->title,
				   .test = b->test,
				   .job_index = b->job,
				   .dir = b->dir,
				   .ncols = b->ncols,
				   .cols = b->cols,
				   .nrows = b->n};
		t.heads = cm_calloc(b->ncols ? b->ncols : 1, sizeof(*t.heads));
		t.labels = cm_calloc(b->n ? b->n : 1, sizeof(*t.labels));
		t.cells = cm_calloc(b->n ? b->n : 1, sizeof(*t.cells));
		for (size_t c = 0; c < b->ncols; c++)
			t.heads[c] = an_col_header(a, b->cols[c]);
		for (size_t r = 0; r < b->n; r++) {
			t.labels[r] = b->rows[r].label;
			t.cells[r] = b->rows[r].cells;
		}
		fn(ctx, &t);
		for (size_t c = 0; c < b->ncols; c++)
			free(t.heads[c]);
		free(t.heads);
		free(t.labels);
		free(t.cells);
	}
	an_grid_free(&g);
}
