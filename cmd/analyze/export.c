/* SPDX-License-Identifier: MIT */
/*
 * Writers for programs: the CSV files (tidy, one row per observation, and
 * wide, one column per state and variant) and the JSON document, written
 * with jansson one element at a time, so that memory stays per element.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ---- CSV ------------------------------------------------------------------- */

struct csv_out {
	FILE *f;
	const struct an_csv *c;
	struct cm_buf line;
	bool first;
	bool fraction; /* changes as fractions */
};

static void col(struct csv_out *o)
{
	if (!o->first)
		cm_buf_putc(&o->line, o->c->sep);
	o->first = false;
}

/* Text from outside (names, paths) is made valid UTF-8 first. */
static void c_str(struct csv_out *o, const char *s)
{
	col(o);
	if (!s)
		return;
	char *clean = cm_utf8_dup(s);
	an_csv_field(&o->line, o->c, clean);
	free(clean);
}

static void c_num(struct csv_out *o, double v, int decimals)
{
	col(o);
	an_csv_number(&o->line, o->c, v, decimals);
}

/* Per-second values keep 3 decimals, like the other values. */
#define DEC_VALUE 3
#define DEC_PCT	  1
#define DEC_P	  6

/* A change in percent, or as a fraction (--pct fraction): the same
 * precision either way. */
static void c_pct(struct csv_out *o, double pct)
{
	if (o->fraction)
		c_num(o, pct / 100.0, DEC_PCT + 2);
	else
		c_num(o, pct, DEC_PCT);
}

static void c_int(struct csv_out *o, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	c_str(o, buf);
}

static void c_bool(struct csv_out *o, bool known, bool v)
{
	c_str(o, known ? (v ? "yes" : "no") : "");
}

static void c_end(struct csv_out *o)
{
	cm_buf_puts(&o->line, "\r\n");
	fwrite(o->line.s, 1, o->line.len, o->f);
	o->line.len = 0;
	o->first = true;
}

/* Column names; those ending in "_pct" lose it and say "change" as a
 * fraction with --pct fraction. */
static void c_header(struct csv_out *o, const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		size_t n = strlen(names[i]);
		if (o->fraction && n > 4 && strcmp(names[i] + n - 4, "_pct") == 0) {
			char *cut = cm_strndup(names[i], n - 4);
			c_str(o, cut);
			free(cut);
		} else {
			c_str(o, names[i]);
		}
	}
	c_end(o);
}

static void csv_summary(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"variant",
					   "state",
					   "baseline",
					   "test",
					   "job",
					   "job_index",
					   "direction",
					   "metric",
					   "unit",
					   "n",
					   "median",
					   "min",
					   "max",
					   "q1",
					   "q3",
					   "iqr",
					   "mad",
					   "mean",
					   "baseline_median",
					   "change_pct",
					   "outside_baseline_range",
					   "mw_u",
					   "mw_p",
					   "mw_exact",
					   "round1",
					   "round1_n",
					   "round1_change_pct",
					   "rest_n",
					   "rest_median",
					   "rest_change_pct",
					   "downtime_s",
					   "transition_s",
					   "baseline_variant",
					   "variant_baseline_median",
					   "variant_change_pct",
					   "outside_variant_range",
					   "variant_mw_p",
					   "too_fast",
					   "too_fast_above",
					   NULL};
	c_header(o, head);
	for (size_t t = 0; t < a->n_tests; t++) {
		for (size_t i = a->tests[t].series_start; i < a->tests[t].series_end; i++) {
			const struct an_series *s = &a->series[i];
			for (size_t k = 0; k < a->n_cols; k++) {
				const struct an_col *cl = &a->cols[k];
				const struct an_cell *c = &s->cells[k];
				if (!c->n && !c->too_fast)
					continue;
				size_t bs = an_col_find(a, a->baseline, cl->variant);
				size_t bv = an_col_find(a, cl->state, a->baseline_variant);
				const struct an_cell *base = bs == SIZE_MAX ? NULL : &s->cells[bs];
				const struct an_cell *vbase = bv == SIZE_MAX ? NULL : &s->cells[bv];
				bool is_base = cl->state == a->baseline;
				bool is_vbase = cl->variant == a->baseline_variant;
				c_str(o, a->variants[cl->variant].name);
				c_str(o, a->states[cl->state].name);
				c_bool(o, true, is_base);
				c_str(o, a->tests[t].name);
				c_str(o, s->job_name);
				c_int(o, (long long)s->job_index + 1);
				c_str(o, fc_ddir_name(s->dir));
				c_str(o, an_metric_name(s->metric));
				c_str(o, an_metric_unit(s->metric, s->log_type));
				c_int(o, (long long)c->sum.n);
				c_num(o, c->sum.median, DEC_VALUE);
				c_num(o, c->sum.min, DEC_VALUE);
				c_num(o, c->sum.max, DEC_VALUE);
				c_num(o, c->sum.q1, DEC_VALUE);
				c_num(o, c->sum.q3, DEC_VALUE);
				c_num(o, c->sum.iqr, DEC_VALUE);
				c_num(o, c->sum.mad, DEC_VALUE);
				c_num(o, c->sum.mean, DEC_VALUE);
				c_num(o, base ? base->sum.median : NAN, DEC_VALUE);
				c_pct(o, c->change_pct);
				c_bool(o, !is_base && base && base->sum.n, c->outside);
				c_num(o, c->have_mw ? c->mw.u : NAN, 1);
				c_num(o, c->have_mw ? c->mw.p : NAN, DEC_P);
				c_bool(o, c->have_mw, c->mw.exact);
				c_num(o, c->round1, DEC_VALUE);
				c_int(o, (long long)c->round1_n);
				c_pct(o, c->round1_change_pct);
				c_int(o, (long long)c->rest_n);
				c_num(o, c->rest_median, DEC_VALUE);
				c_pct(o, c->rest_change_pct);
				const struct an_transition *tr =
				    an_transition_of(a, cl->state, cl->variant);
				double act_s, task_s;
				size_t n_act, n_task;
				an_action_sums(tr, &act_s, &n_act, &task_s, &n_task);
				c_num(o, tr ? tr->downtime_s : NAN, DEC_VALUE);
				c_num(o, act_s, DEC_VALUE);
				c_bool(o, true, is_vbase);
				c_num(o, vbase ? vbase->sum.median : NAN, DEC_VALUE);
				c_pct(o, c->v_change_pct);
				c_bool(o, !is_vbase && vbase && vbase->sum.n, c->v_outside);
				c_num(o, c->v_have_mw ? c->v_mw.p : NAN, DEC_P);
				c_int(o, (long long)c->too_fast);
				c_num(o, c->too_fast_above, DEC_VALUE);
				c_end(o);
			}
		}
	}
}

/* The line of a bonnie++ row; empty for a fio run. */
static void c_line(struct csv_out *o, const struct an_run *r)
{
	if (r->bonnie_test >= 0)
		c_int(o, (long long)r->line);
	else
		c_str(o, "");
}

/* What a "+++++" round says, its number in the dialect; caller frees. */
static char *too_fast_note(const struct csv_out *o, const struct an_run *r,
			   const struct an_series *s)
{
	const struct an_dirvals *dv = &r->jobs[s->job_index].dir[s->dir];
	if (s->metric == AN_M_CPU || !isfinite(dv->too_fast_above))
		return cm_strdup("too fast to measure (bonnie++ +++++)");
	char *n = cm_asprintf("%.*f", DEC_VALUE, dv->too_fast_above);
	char *dot = strchr(n, '.');
	if (dot)
		*dot = o->c->decimal;
	char *note = cm_asprintf("too fast to measure (bonnie++ +++++): above %s %s", n,
				 an_metric_unit(s->metric, s->log_type));
	free(n);
	return note;
}

static void csv_rounds(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"variant",	 "state",     "test",	"round", "job",
					   "job_index",	 "direction", "metric", "unit",	 "value",
					   "change_pct", "note",      "file",	"line",	 NULL};
	c_header(o, head);
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_col *cl = &a->cols[k];
		size_t bs = an_col_find(a, a->baseline, cl->variant);
		for (size_t t = 0; t < a->n_tests; t++) {
			for (size_t i = a->tests[t].series_start; i < a->tests[t].series_end; i++) {
				const struct an_series *s = &a->series[i];
				const struct an_cell *c = &s->cells[k];
				double bmed = bs == SIZE_MAX ? NAN : s->cells[bs].sum.median;
				const struct an_band *band =
				    s->metric == AN_M_RECOVERY
					? an_find_band(a, cl->variant, t, s->job_index, s->dir,
						       s->log_type)
					: NULL;
				for (size_t v = 0; v < c->n; v++) {
					double val = c->values[v];
					c_str(o, a->variants[cl->variant].name);
					c_str(o, a->states[cl->state].name);
					c_str(o, a->tests[t].name);
					c_int(o, c->rounds[v]);
					c_str(o, s->job_name);
					c_int(o, (long long)s->job_index + 1);
					c_str(o, fc_ddir_name(s->dir));
					c_str(o, an_metric_name(s->metric));
					c_str(o, an_metric_unit(s->metric, s->log_type));
					c_num(o, val, DEC_VALUE);
					c_pct(o, an_pct_change(val, bmed));
					if (s->metric == AN_M_RECOVERY && !isfinite(val))
						c_str(o, band && band->n ? "never back in the band"
									 : "no baseline band");
					else
						c_str(o, "");
					/* Per-second values come from the log. */
					const struct an_run *run = &a->runs[c->runs[v]];
					const char *file = run->path;
					if (s->metric >= AN_M_FIRST_LOG &&
					    s->job_index < run->n_jobs) {
						const struct an_dirvals *dv =
						    &run->jobs[s->job_index].dir[s->dir];
						if (dv->sec.n)
							file = run->logs[dv->log].path;
					}
					c_str(o, file);
					c_line(o, run);
					c_end(o);
				}
				/* "+++++": a round without a value, said so */
				for (size_t v = 0; v < c->too_fast; v++) {
					const struct an_run *run = &a->runs[c->too_fast_runs[v]];
					c_str(o, a->variants[cl->variant].name);
					c_str(o, a->states[cl->state].name);
					c_str(o, a->tests[t].name);
					c_int(o, c->too_fast_rounds[v]);
					c_str(o, s->job_name);
					c_int(o, (long long)s->job_index + 1);
					c_str(o, fc_ddir_name(s->dir));
					c_str(o, an_metric_name(s->metric));
					c_str(o, an_metric_unit(s->metric, s->log_type));
					c_str(o, "");
					c_str(o, "");
					char *note = too_fast_note(o, run, s);
					c_str(o, note);
					free(note);
					c_str(o, run->path);
					c_line(o, run);
					c_end(o);
				}
			}
		}
	}
}

struct run_order {
	size_t run, col, test;
	int round;
};

static int cmp_run_order(const void *x, const void *y)
{
	const struct run_order *p = x, *q = y;
	if (p->col != q->col)
		return p->col < q->col ? -1 : 1;
	if (p->test != q->test)
		return p->test < q->test ? -1 : 1;
	if (p->round != q->round)
		return p->round < q->round ? -1 : 1;
	return (p->run > q->run) - (p->run < q->run);
}

/* Accepted runs by column, test, round. */
static size_t runs_in_order(const struct an_analysis *a, struct run_order **out)
{
	struct run_order *ro = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*ro));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		size_t col = an_col_find(a, r->state, r->variant);
		ro[n++] = (struct run_order){i, col, r->test, r->id.round};
	}
	qsort(ro, n, sizeof(*ro), cmp_run_order);
	*out = ro;
	return n;
}

static void csv_profile(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"variant",	"state",     "test", "round", "job",
					   "job_index", "direction", "log",  "unit",  "time_s",
					   "value",	"file",	     NULL};
	c_header(o, head);
	struct run_order *ro;
	size_t n = runs_in_order(a, &ro);
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[ro[q].run];
		for (size_t j = 0; j < r->n_jobs; j++) {
			for (int d = 0; d < 3; d++) {
				const struct an_dirvals *dv = &r->jobs[j].dir[d];
				if (!dv->sec.n)
					continue;
				const char *unit = an_metric_unit(AN_M_SEC_FIRST, dv->log_type);
				for (size_t p = 0; p < dv->sec.n; p++) {
					double v = dv->sec.values[p];
					uint64_t start_ms =
					    dv->sec.start_ms + p * dv->sec.interval_ms;
					c_str(o, a->variants[r->variant].name);
					c_str(o, a->states[r->state].name);
					c_str(o, a->tests[r->test].name);
					c_int(o, r->id.round);
					c_str(o, r->jobs[j].name);
					c_int(o, (long long)j + 1);
					c_str(o, fc_ddir_name((enum fc_ddir)d));
					c_str(o, fc_log_type_name(dv->log_type));
					c_str(o, unit);
					c_num(o, (double)start_ms / 1000.0, DEC_VALUE);
					c_num(o, v, DEC_VALUE);
					c_str(o, r->logs[dv->log].path);
					c_end(o);
				}
			}
		}
	}
	free(ro);
}

static void csv_transitions(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"variant",
					   "state",
					   "baseline",
					   "state_status",
					   "downtime_s",
					   "data",
					   "repetition",
					   "action_index",
					   "action",
					   "text",
					   "status",
					   "duration_s",
					   "action_downtime_s",
					   "task",
					   "task_duration_s",
					   "hash",
					   "error",
					   NULL};
	c_header(o, head);
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_col *cl = &a->cols[k];
		const struct an_transition *t = an_transition_of(a, cl->state, cl->variant);
		size_t n = t && t->n_actions ? t->n_actions : 1;
		char *integrity = t && t->hash_checks ? an_integrity_text(t) : cm_strdup("");
		for (size_t i = 0; i < n; i++) {
			c_str(o, a->variants[cl->variant].name);
			c_str(o, a->states[cl->state].name);
			c_bool(o, true, cl->state == a->baseline);
			c_str(o, t ? t->status : NULL);
			c_num(o, t ? t->downtime_s : NAN, DEC_VALUE);
			c_str(o, integrity);
			if (!t || !t->n_actions) {
				for (int e = 0; e < 11; e++)
					c_str(o, "");
				c_end(o);
				continue;
			}
			const struct an_action *ac = &t->actions[i];
			c_int(o, ac->rep < t->n_reps ? t->reps[ac->rep].repetition : 1);
			c_int(o, (long long)ac->index);
			c_str(o, ac->action);
			c_str(o, ac->text);
			c_str(o, ac->status);
			c_num(o, ac->duration_s, DEC_VALUE);
			c_num(o, ac->downtime_s, DEC_VALUE);
			c_str(o, ac->task_name);
			c_num(o, ac->task_duration_s, DEC_VALUE);
			c_str(o, an_hash_text(ac->hash_match));
			c_str(o, ac->error);
			c_end(o);
		}
		free(integrity);
	}
}

/* One row per test, job, direction and metric; one column of medians per
 * state and variant: what a spreadsheet charts as it is. */
static void csv_wide(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"test",   "job",  "job_index", "direction",
					   "metric", "unit", NULL};
	for (size_t i = 0; head[i]; i++)
		c_str(o, head[i]);
	for (size_t k = 0; k < a->n_cols; k++) {
		char *name = an_col_name(a, &a->cols[k]);
		c_str(o, name);
		free(name);
	}
	c_end(o);
	for (size_t t = 0; t < a->n_tests; t++) {
		for (size_t i = a->tests[t].series_start; i < a->tests[t].series_end; i++) {
			const struct an_series *s = &a->series[i];
			c_str(o, a->tests[t].name);
			c_str(o, s->job_name);
			c_int(o, (long long)s->job_index + 1);
			c_str(o, fc_ddir_name(s->dir));
			c_str(o, an_metric_name(s->metric));
			c_str(o, an_metric_unit(s->metric, s->log_type));
			for (size_t k = 0; k < a->n_cols; k++)
				c_num(o, s->cells[k].sum.median, DEC_VALUE);
			c_end(o);
		}
	}
}

/* The comparison of variants, a row per row of --compare: what a
 * spreadsheet charts as the published table. */
static void csv_compare(struct csv_out *o, const struct an_analysis *a)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	static const char *const lead[] = {"variant", "state",	 "size",    "baseline_variant",
					   "status",  "results", "rejected"};
	static const char *const per[] = {"median", "min", "max", "n", "change_pct"};
	/* bonnie++'s "+++++", in the columns its tests share */
	static const char *const per_bonnie[] = {"too_fast", "too_fast_above"};
	static const char *const per_cpu[] = {"cpu_median", "cpu_min", "cpu_max"};
	struct cm_strv names = {0};
	for (size_t i = 0; i < CM_ARRAY_SIZE(lead); i++)
		cm_strv_add(&names, lead[i]);
	for (size_t i = 0; i < m.n_cols; i++) {
		for (size_t k = 0; k < CM_ARRAY_SIZE(per); k++)
			cm_strv_addf(&names, "%s %s", m.cols[i].title, per[k]);
		for (size_t k = 0; m.cols[i].role >= 0 && k < CM_ARRAY_SIZE(per_bonnie); k++)
			cm_strv_addf(&names, "%s %s", m.cols[i].title, per_bonnie[k]);
		for (size_t k = 0; m.cols[i].cpu && k < CM_ARRAY_SIZE(per_cpu); k++)
			cm_strv_addf(&names, "%s %s", m.cols[i].title, per_cpu[k]);
	}
	c_header(o, (const char *const *)names.v);
	cm_strv_release(&names);
	for (size_t r = 0; r < m.n_rows; r++) {
		const struct an_cmp_row *row = &m.rows[r];
		const struct an_variant *v = &a->variants[row->variant];
		c_str(o, v->name);
		c_str(o, row->state == SIZE_MAX ? "" : a->states[row->state].name);
		c_str(o, row->size ? row->size : "");
		c_bool(o, true, row->variant == a->baseline_variant);
		c_str(o, row->col == SIZE_MAX ? "" : an_col_mark(a, &a->cols[row->col]));
		c_int(o, (long long)v->n_results);
		c_int(o, (long long)v->n_rejected);
		for (size_t i = 0; i < m.n_cols; i++) {
			const struct an_cmp_cell *cell = &row->cells[i];
			const struct an_cell *c = cell->cell;
			c_num(o, c ? c->sum.median : NAN, DEC_VALUE);
			c_num(o, c ? c->sum.min : NAN, DEC_VALUE);
			c_num(o, c ? c->sum.max : NAN, DEC_VALUE);
			if (c)
				c_int(o, (long long)c->sum.n);
			else
				c_str(o, "");
			c_pct(o, cell->change_pct);
			if (m.cols[i].role >= 0) {
				if (c)
					c_int(o, (long long)c->too_fast);
				else
					c_str(o, "");
				c_num(o, c ? c->too_fast_above : NAN, DEC_VALUE);
			}
			if (!m.cols[i].cpu)
				continue;
			const struct an_cell *cpu = cell->cpu;
			c_num(o, cpu ? cpu->sum.median : NAN, DEC_VALUE);
			c_num(o, cpu ? cpu->sum.min : NAN, DEC_VALUE);
			c_num(o, cpu ? cpu->sum.max : NAN, DEC_VALUE);
		}
		c_end(o);
	}
	an_cmp_free(&m);
}

/* One row per action and repetition; a repetition without actions (one
 * that failed before its first) has one row of its own. */
static void csv_actions(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"campaign",	   "state",	   "repeat",
					   "repetition",   "state_status", "repetition_status",
					   "downtime_s",   "data_back_s",  "data_back_from",
					   "action_index", "action",	   "text",
					   "status",	   "task",	   "task_s",
					   "task_clock",   "stopwatch_s",  "action_downtime_s",
					   "hash",	   "error",	   NULL};
	c_header(o, head);
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	for (size_t i = 0; i < n; i++) {
		const struct an_transition *t = order[i];
		const struct an_campaign *c = &a->campaigns[t->campaign];
		for (size_t k = 0; k < t->n_reps; k++) {
			const struct an_rep *rep = &t->reps[k];
			size_t rows = rep->n_actions ? rep->n_actions : 1;
			for (size_t x = 0; x < rows; x++) {
				c_str(o, c->name);
				c_str(o, a->states[t->state].name);
				c_int(o, t->repeat);
				c_int(o, rep->repetition);
				c_str(o, t->status);
				c_str(o, rep->status ? rep->status : t->status);
				c_num(o, rep->downtime_s, DEC_VALUE);
				c_num(o, rep->data_back_s, DEC_VALUE);
				c_str(o, !isfinite(rep->data_back_s) ? ""
					 : rep->data_back_recorded   ? "manifest"
								     : "computed");
				if (!rep->n_actions) {
					for (int e = 0; e < 11; e++)
						c_str(o, "");
					c_end(o);
					continue;
				}
				const struct an_action *ac = &t->actions[rep->first_action + x];
				c_int(o, (long long)ac->index);
				c_str(o, ac->action);
				c_str(o, ac->text);
				c_str(o, ac->status);
				c_str(o, ac->task_name);
				c_num(o, ac->task_duration_s, DEC_VALUE);
				c_str(o, isfinite(ac->task_duration_s)
					     ? ac->clock ? ac->clock : "provider"
					     : "");
				c_num(o, ac->duration_s, DEC_VALUE);
				c_num(o, ac->downtime_s, DEC_VALUE);
				c_str(o, an_hash_text(ac->hash_match));
				c_str(o, ac->error);
				c_end(o);
			}
		}
	}
	free(order);
}

void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *opts)
{
	struct csv_out o = {f, &opts->csv, {NULL, 0, 0}, true, opts->pct_fraction};
	if (opts->bom)
		fputs("\xef\xbb\xbf", f);
	switch (kind) {
	case AN_CSV_SUMMARY:
		csv_summary(&o, a);
		break;
	case AN_CSV_ROUNDS:
		csv_rounds(&o, a);
		break;
	case AN_CSV_PROFILE:
		csv_profile(&o, a);
		break;
	case AN_CSV_TRANSITIONS:
		csv_transitions(&o, a);
		break;
	case AN_CSV_ACTIONS:
		csv_actions(&o, a);
		break;
	case AN_CSV_WIDE:
		csv_wide(&o, a);
		break;
	case AN_CSV_COMPARE:
		csv_compare(&o, a);
		break;
	}
	cm_buf_release(&o.line);
}

/* ---- JSON ------------------------------------------------------------------ */

/*
 * The document is one object whose members are written one by one: each
 * array element is built as a jansson value, dumped and released.  jansson
 * does the encoding; strings are made valid UTF-8 before it sees them
 * (json_string refuses anything else).
 */
struct json_out {
	FILE *f;
	bool comma; /* an element was written in the current array / object */
	int err;
};

#define J_FLAGS (JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15))

static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	char *clean = cm_utf8_dup(s);
	json_t *v = json_string(clean);
	free(clean);
	return v ? v : json_null();
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void jset(json_t *o, const char *k, json_t *v)
{
	json_object_set_new(o, k, v ? v : json_null());
}

/* Writes v (stolen) as the next element or member value. */
static void j_dump(struct json_out *j, json_t *v)
{
	if (!v || json_dumpf(v, j->f, J_FLAGS) != 0)
		j->err = -1;
	json_decref(v);
}

static void j_key(struct json_out *j, const char *k)
{
	if (j->comma)
		fputc(',', j->f);
	j_dump(j, json_string(k));
	fputc(':', j->f);
	j->comma = true;
}

static void j_member(struct json_out *j, const char *k, json_t *v)
{
	j_key(j, k);
	j_dump(j, v);
}

static void j_begin_array(struct json_out *j, const char *k)
{
	j_key(j, k);
	fputc('[', j->f);
	j->comma = false;
}

static void j_element(struct json_out *j, json_t *v)
{
	if (j->comma)
		fputc(',', j->f);
	j_dump(j, v);
	j->comma = true;
}

static void j_end_array(struct json_out *j)
{
	fputc(']', j->f);
	j->comma = true;
}

static json_t *j_mw(bool have, const struct fc_mann_whitney *mw)
{
	if (!have)
		return json_null();
	json_t *o = json_object();
	jset(o, "u", jnum(mw->u));
	jset(o, "p", jnum(mw->p));
	jset(o, "exact", json_boolean(mw->exact));
	jset(o, "ties", json_boolean(mw->ties));
	return o;
}

static json_t *json_cell(const struct an_analysis *a, const struct an_series *s, size_t k)
{
	const struct an_cell *c = &s->cells[k];
	const struct an_col *cl = &a->cols[k];
	json_t *o = json_object();
	jset(o, "variant", jstr(a->variants[cl->variant].name));
	jset(o, "state", jstr(a->states[cl->state].name));
	jset(o, "n", json_integer((json_int_t)c->sum.n));
	jset(o, "median", jnum(c->sum.median));
	jset(o, "min", jnum(c->sum.min));
	jset(o, "max", jnum(c->sum.max));
	jset(o, "q1", jnum(c->sum.q1));
	jset(o, "q3", jnum(c->sum.q3));
	jset(o, "iqr", jnum(c->sum.iqr));
	jset(o, "mad", jnum(c->sum.mad));
	jset(o, "mean", jnum(c->sum.mean));
	if (cl->state != a->baseline) {
		jset(o, "change_pct", jnum(c->change_pct));
		jset(o, "outside_baseline_range", json_boolean(c->outside));
		jset(o, "mann_whitney", j_mw(c->have_mw, &c->mw));
	}
	if (cl->variant != a->baseline_variant) {
		jset(o, "variant_change_pct", jnum(c->v_change_pct));
		jset(o, "outside_variant_range", json_boolean(c->v_outside));
		jset(o, "variant_mann_whitney", j_mw(c->v_have_mw, &c->v_mw));
	}
	jset(o, "round1", jnum(c->round1));
	jset(o, "round1_n", json_integer((json_int_t)c->round1_n));
	jset(o, "round1_change_pct", jnum(c->round1_change_pct));
	jset(o, "rest_n", json_integer((json_int_t)c->rest_n));
	jset(o, "rest_median", jnum(c->rest_median));
	jset(o, "rest_change_pct", jnum(c->rest_change_pct));
	jset(o, "too_fast", json_integer((json_int_t)c->too_fast));
	jset(o, "too_fast_above", jnum(c->too_fast_above));
	json_t *rounds = json_array();
	for (size_t v = 0; v < c->n; v++) {
		json_t *r = json_object();
		jset(r, "round", json_integer(c->rounds[v]));
		jset(r, "value", jnum(c->values[v]));
		jset(r, "file", jstr(a->runs[c->runs[v]].path));
		if (a->runs[c->runs[v]].bonnie_test >= 0)
			jset(r, "line", json_integer((json_int_t)a->runs[c->runs[v]].line));
		json_array_append_new(rounds, r);
	}
	/* "+++++": rounds without a value */
	for (size_t v = 0; v < c->too_fast; v++) {
		const struct an_run *run = &a->runs[c->too_fast_runs[v]];
		json_t *r = json_object();
		jset(r, "round", json_integer(c->too_fast_rounds[v]));
		jset(r, "value", json_null());
		jset(r, "too_fast", json_true());
		jset(r, "file", jstr(run->path));
		jset(r, "line", json_integer((json_int_t)run->line));
		json_array_append_new(rounds, r);
	}
	jset(o, "rounds", rounds);
	return o;
}

static json_t *json_workload(const char *key)
{
	json_t *jobs = json_array();
	size_t n = an_wl_jobs(key);
	for (size_t j = 0; j < n; j++) {
		json_t *o = json_object();
		for (int f = 0; f < AN_WL_COUNT; f++) {
			const char *v;
			size_t len;
			if (!an_wl_get(key, j, (enum an_wl_field)f, &v, &len))
				continue;
			char *s = cm_strndup(v, len);
			jset(o, an_wl_fields[f], jstr(s));
			free(s);
		}
		json_array_append_new(jobs, o);
	}
	return jobs;
}

static const char *format_name(enum fc_format f)
{
	switch (f) {
	case FC_FORMAT_JSON:
		return "json";
	case FC_FORMAT_JSON_PLUS:
		return "json+";
	case FC_FORMAT_TERSE:
		return "terse";
	case FC_FORMAT_NORMAL:
		return "normal";
	default: /* a format libfiocamp learns later */
		return "other";
	}
}

static const char *bonnie_format_name(enum fc_bonnie_format f)
{
	switch (f) {
	case FC_BONNIE_FORMAT_1_0X:
		return "bonnie++ 1.0x";
	case FC_BONNIE_FORMAT_1_96:
		return "bonnie++ 1.96";
	case FC_BONNIE_FORMAT_1_97:
		return "bonnie++ 1.97";
	case FC_BONNIE_FORMAT_1_98:
		return "bonnie++ 1.98";
	}
	return "bonnie++";
}

static json_t *json_summary_of(const struct an_cell *c)
{
	if (!c)
		return json_null();
	json_t *o = json_object();
	jset(o, "n", json_integer((json_int_t)c->sum.n));
	jset(o, "median", jnum(c->sum.median));
	jset(o, "min", jnum(c->sum.min));
	jset(o, "max", jnum(c->sum.max));
	jset(o, "too_fast", json_integer((json_int_t)c->too_fast));
	jset(o, "too_fast_above", jnum(c->too_fast_above));
	return o;
}

/* The comparison of variants, as --compare shows it. */
static json_t *json_comparison(const struct an_analysis *a)
{
	struct an_cmp m;
	an_cmp_build(a, &m);
	json_t *o = json_object();
	jset(o, "by_size", json_boolean(m.by_size));
	json_t *cols = json_array();
	for (size_t i = 0; i < m.n_cols; i++) {
		const struct an_cmp_col *cc = &m.cols[i];
		json_t *c = json_object();
		jset(c, "title", jstr(cc->title));
		jset(c, "bonnie_test",
		     cc->role >= 0 ? json_string(fc_bonnie_test_info(cc->role)->name)
				   : json_null());
		jset(c, "metric", json_string(an_metric_name(cc->metric)));
		jset(c, "unit", json_string(an_metric_unit(cc->metric, FC_LOG_UNKNOWN)));
		jset(c, "direction", json_string(fc_ddir_name(cc->dir)));
		jset(c, "job_index", json_integer((json_int_t)cc->job + 1));
		jset(c, "cpu", json_boolean(cc->cpu));
		json_t *tests = json_array();
		for (size_t k = 0; k < cc->n_tests; k++)
			json_array_append_new(tests, jstr(a->tests[cc->tests[k]].name));
		jset(c, "tests", tests);
		json_array_append_new(cols, c);
	}
	jset(o, "columns", cols);
	json_t *rows = json_array();
	for (size_t r = 0; r < m.n_rows; r++) {
		const struct an_cmp_row *row = &m.rows[r];
		const struct an_variant *v = &a->variants[row->variant];
		json_t *x = json_object();
		jset(x, "variant", jstr(v->name));
		jset(x, "state",
		     row->state == SIZE_MAX ? json_null() : jstr(a->states[row->state].name));
		jset(x, "size", row->size && row->size[0] ? jstr(row->size) : json_null());
		jset(x, "baseline_variant", json_boolean(row->variant == a->baseline_variant));
		jset(x, "status",
		     row->col == SIZE_MAX ? json_null() : jstr(an_col_mark(a, &a->cols[row->col])));
		jset(x, "results", json_integer((json_int_t)v->n_results));
		jset(x, "rejected", json_integer((json_int_t)v->n_rejected));
		json_t *cells = json_array();
		for (size_t i = 0; i < m.n_cols; i++) {
			const struct an_cmp_cell *cell = &row->cells[i];
			if (!cell->cell) {
				json_array_append_new(cells, json_null());
				continue;
			}
			json_t *c = json_summary_of(cell->cell);
			jset(c, "test", jstr(a->tests[cell->test].name));
			jset(c, "variant_change_pct", jnum(cell->change_pct));
			jset(c, "outside_variant_range", json_boolean(cell->outside));
			if (m.cols[i].cpu) {
				json_t *cpu = json_summary_of(cell->cpu);
				if (json_is_object(cpu)) {
					json_object_del(cpu, "too_fast");
					json_object_del(cpu, "too_fast_above");
				}
				jset(c, "cpu", cpu);
			}
			json_array_append_new(cells, c);
		}
		jset(x, "cells", cells);
		json_array_append_new(rows, x);
	}
	jset(o, "rows", rows);
	jset(o, "cpu_note", jstr(m.cpu_note));
	an_cmp_free(&m);
	return o;
}

static json_t *j_secs(const double *v, size_t n)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_real(v[i]));
	return arr;
}

/* {n, values, median, min, max} of samples; null for none */
static json_t *j_samples(const double *v, size_t n)
{
	if (!n)
		return json_null();
	double lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	json_t *o = json_object();
	jset(o, "n", json_integer((json_int_t)n));
	jset(o, "values", j_secs(v, n));
	jset(o, "median", jnum(an_median(v, n)));
	jset(o, "min", jnum(lo));
	jset(o, "max", jnum(hi));
	return o;
}

/* The repetitions and each action over them (actions.c), into o. */
static void json_trans_sum(const struct an_analysis *a, const struct an_transition *t, json_t *o)
{
	struct an_trans_sum sum;
	an_trans_sum(t, &sum);
	jset(o, "repeat", json_integer(t->repeat));
	json_t *reps = json_array();
	for (size_t k = 0; k < t->n_reps; k++) {
		const struct an_rep *rep = &t->reps[k];
		json_t *x = json_object();
		jset(x, "repetition", json_integer(rep->repetition));
		jset(x, "status", jstr(rep->status ? rep->status : t->status));
		jset(x, "downtime_s", jnum(rep->downtime_s));
		jset(x, "data_back_s", jnum(rep->data_back_s));
		jset(x, "data_back_from",
		     jstr(!isfinite(rep->data_back_s) ? NULL
			  : rep->data_back_recorded   ? "manifest"
						      : "computed"));
		jset(x, "hash_checked", json_integer((json_int_t)rep->hash_checks));
		jset(x, "hash_matched", json_integer((json_int_t)rep->hash_matched));
		json_array_append_new(reps, x);
	}
	jset(o, "repetitions", reps);
	jset(o, "done", json_integer((json_int_t)sum.n_done));
	jset(o, "failed_repetitions", jstr(sum.failed));
	jset(o, "downtime", j_samples(sum.down_s, sum.n_down));
	jset(o, "data_back", j_samples(sum.back_s, sum.n_back));
	json_t *rows = json_array();
	for (size_t i = 0; i < sum.n_rows; i++) {
		const struct an_action_row *r = &sum.rows[i];
		json_t *x = json_object();
		jset(x, "index", json_integer((json_int_t)r->index));
		jset(x, "action", jstr(r->act->action));
		jset(x, "text", jstr(r->act->text));
		jset(x, "task", jstr(r->act->task_name));
		jset(x, "task_clock", jstr(r->n_task ? r->clock ? r->clock : "provider" : NULL));
		jset(x, "task_clock_name", jstr(r->n_task ? an_clock_name(a, t, r->clock) : NULL));
		jset(x, "n", json_integer((json_int_t)r->n));
		jset(x, "failed", json_integer((json_int_t)r->n_failed));
		jset(x, "task_s", j_samples(r->task_s, r->n_task));
		jset(x, "stopwatch_s", j_samples(r->watch_s, r->n_watch));
		json_t *h = json_null();
		if (r->hash_checks) {
			h = json_object();
			jset(h, "checked", json_integer((json_int_t)r->hash_checks));
			jset(h, "matched", json_integer((json_int_t)r->hash_matched));
		}
		jset(x, "hash", h);
		jset(x, "problems", jstr(r->problems));
		json_array_append_new(rows, x);
	}
	jset(o, "per_action", rows);
	an_trans_sum_free(&sum);
}

static json_t *json_transition(const struct an_analysis *a, const struct an_col *cl)
{
	const struct an_transition *t = an_transition_of(a, cl->state, cl->variant);
	json_t *o = json_object();
	jset(o, "variant", jstr(a->variants[cl->variant].name));
	jset(o, "state", jstr(a->states[cl->state].name));
	jset(o, "status", jstr(t ? t->status : NULL));
	jset(o, "failed", json_boolean(t && cm_status_failed(t->status)));
	jset(o, "downtime_s", jnum(t ? t->downtime_s : NAN));
	json_t *integ = json_null();
	if (t && t->hash_checks) {
		integ = json_object();
		jset(integ, "checked", json_integer((json_int_t)t->hash_checks));
		jset(integ, "matched", json_integer((json_int_t)t->hash_matched));
		jset(integ, "result",
		     json_string(t->hash_matched == t->hash_checks ? "matched" : "differs"));
	}
	jset(o, "integrity", integ);
	json_t *acts = json_array();
	for (size_t i = 0; t && i < t->n_actions; i++) {
		const struct an_action *ac = &t->actions[i];
		json_t *x = json_object();
		jset(x, "action", jstr(ac->action));
		jset(x, "text", jstr(ac->text));
		jset(x, "status", jstr(ac->status));
		jset(x, "duration_s", jnum(ac->duration_s));
		jset(x, "downtime_s", jnum(ac->downtime_s));
		jset(x, "task", jstr(ac->task_name));
		jset(x, "task_duration_s", jnum(ac->task_duration_s));
		jset(x, "hash",
		     ac->hash_match < 0 ? json_null() : json_string(an_hash_text(ac->hash_match)));
		jset(x, "error", jstr(ac->error));
		jset(x, "repetition", json_integer(t->reps[ac->rep].repetition));
		jset(x, "index", json_integer((json_int_t)ac->index));
		jset(x, "task_clock",
		     jstr(isfinite(ac->task_duration_s) ? ac->clock ? ac->clock : "provider"
							: NULL));
		json_array_append_new(acts, x);
	}
	jset(o, "actions", acts);
	if (t)
		json_trans_sum(a, t, o);
	return o;
}

static void json_notes(struct json_out *j, const char *key, const struct an_notes *n)
{
	j_begin_array(j, key);
	for (size_t i = 0; i < n->n; i++)
		j_element(j, jstr(n->items[i]));
	j_end_array(j);
}

int an_write_json(FILE *f, const struct an_analysis *a)
{
	struct json_out jo = {f, false, 0};
	struct json_out *j = &jo;
	fputc('{', f);
	j_member(j, "format", json_string("fiocamp-analysis"));
	j_member(j, "version", json_integer(2));
	const struct an_campaign *c0 = a->n_variants && a->variants[0].campaign != SIZE_MAX
					   ? &a->campaigns[a->variants[0].campaign]
					   : NULL;
	j_member(j, "campaign", jstr(c0 ? c0->name : NULL));
	j_member(j, "manifest", jstr(c0 ? c0->manifest : NULL));
	j_member(j, "fio_version", jstr(a->fio_version));
	j_member(j, "baseline", jstr(a->states[a->baseline].name));
	j_member(j, "baseline_variant", jstr(a->variants[a->baseline_variant].name));

	j_begin_array(j, "variants");
	for (size_t v = 0; v < a->n_variants; v++) {
		const struct an_variant *var = &a->variants[v];
		const struct an_campaign *c =
		    var->campaign != SIZE_MAX ? &a->campaigns[var->campaign] : NULL;
		json_t *o = json_object();
		jset(o, "name", jstr(var->name));
		jset(o, "baseline", json_boolean(v == a->baseline_variant));
		jset(o, "input", jstr(a->inputs[var->input].arg));
		jset(o, "campaign", jstr(c ? c->name : NULL));
		jset(o, "manifest", jstr(c ? c->manifest : NULL));
		jset(o, "fio_version", jstr(var->fio_version));
		jset(o, "runs", json_integer((json_int_t)var->n_runs));
		j_element(j, o);
	}
	j_end_array(j);

	j_begin_array(j, "states");
	for (size_t k = 0; k < a->n_order; k++) {
		const struct an_state *s = &a->states[a->order[k]];
		json_t *o = json_object();
		jset(o, "name", jstr(s->name));
		jset(o, "baseline", json_boolean(a->order[k] == a->baseline));
		jset(o, "runs", json_integer((json_int_t)s->n_runs));
		j_element(j, o);
	}
	j_end_array(j);

	j_begin_array(j, "transitions");
	for (size_t k = 0; k < a->n_cols; k++) {
		if (an_transition_of(a, a->cols[k].state, a->cols[k].variant))
			j_element(j, json_transition(a, &a->cols[k]));
	}
	j_end_array(j);

	j_begin_array(j, "tests");
	for (size_t t = 0; t < a->n_tests; t++) {
		const struct an_test *ts = &a->tests[t];
		json_t *o = json_object();
		jset(o, "name", jstr(ts->name));
		jset(o, "base", jstr(ts->base));
		struct cm_buf d = {NULL, 0, 0};
		an_wl_describe(&d, ts->workload, AN_WL_ALL, false);
		jset(o, "workload", json_workload(ts->workload));
		jset(o, "description", jstr(d.s ? d.s : ""));
		cm_buf_release(&d);
		jset(o, "options_listed", json_boolean(an_wl_options_listed(ts->workload)));
		jset(o, "runs", json_integer((json_int_t)ts->n_runs));
		j_element(j, o);
	}
	j_end_array(j);

	j_begin_array(j, "runs");
	struct run_order *runs;
	size_t n_runs = runs_in_order(a, &runs);
	for (size_t q = 0; q < n_runs; q++) {
		const struct an_run *r = &a->runs[runs[q].run];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[r->variant].name));
		jset(o, "state", jstr(a->states[r->state].name));
		jset(o, "round", json_integer(r->id.round));
		jset(o, "test", jstr(a->tests[r->test].name));
		jset(o, "file", jstr(r->path));
		if (r->bonnie_test >= 0) {
			jset(o, "format", json_string(bonnie_format_name(r->bonnie_format)));
			jset(o, "line", json_integer((json_int_t)r->line));
			jset(o, "bonnie_version", jstr(r->bonnie_version));
			jset(o, "name", jstr(r->bonnie_name));
			jset(o, "seed", jstr(r->bonnie_seed));
		} else {
			jset(o, "format", json_string(format_name(r->format)));
		}
		jset(o, "fio_version", jstr(r->fio_version));
		jset(o, "timestamp_ms",
		     r->timestamp_ms >= 0 ? json_integer((json_int_t)r->timestamp_ms)
					  : json_null());
		jset(o, "runtime_s", jnum((double)r->runtime_ms / 1000.0));
		jset(o, "time_based",
		     r->time_based < 0 ? json_null() : json_boolean(r->time_based));
		json_t *logs = json_array();
		for (size_t k = 0; k < r->n_logs; k++)
			json_array_append_new(logs, jstr(r->logs[k].path));
		jset(o, "logs", logs);
		j_element(j, o);
	}
	free(runs);
	j_end_array(j);

	j_begin_array(j, "series");
	for (size_t i = 0; i < a->n_series; i++) {
		const struct an_series *s = &a->series[i];
		json_t *o = json_object();
		jset(o, "test", jstr(a->tests[s->test].name));
		jset(o, "job", jstr(s->job_name));
		jset(o, "job_index", json_integer((json_int_t)s->job_index + 1));
		jset(o, "direction", json_string(fc_ddir_name(s->dir)));
		jset(o, "metric", json_string(an_metric_name(s->metric)));
		jset(o, "unit", json_string(an_metric_unit(s->metric, s->log_type)));
		if (s->metric >= AN_M_FIRST_LOG)
			jset(o, "log", json_string(fc_log_type_name(s->log_type)));
		json_t *cells = json_array();
		for (size_t k = 0; k < a->n_cols; k++) {
			if (s->cells[k].n || a->cols[k].n_runs)
				json_array_append_new(cells, json_cell(a, s, k));
		}
		jset(o, "cells", cells);
		j_element(j, o);
	}
	j_end_array(j);

	j_begin_array(j, "bands");
	for (size_t i = 0; i < a->n_bands; i++) {
		const struct an_band *b = &a->bands[i];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[b->variant].name));
		jset(o, "test", jstr(a->tests[b->test].name));
		jset(o, "job_index", json_integer((json_int_t)b->job_index + 1));
		jset(o, "direction", json_string(fc_ddir_name(b->dir)));
		jset(o, "log", json_string(fc_log_type_name(b->log_type)));
		jset(o, "unit", json_string(an_metric_unit(AN_M_SEC_FIRST, b->log_type)));
		jset(o, "n", json_integer((json_int_t)b->n));
		jset(o, "p10", jnum(b->low));
		jset(o, "p90", jnum(b->high));
		j_element(j, o);
	}
	j_end_array(j);

	j_begin_array(j, "profiles");
	struct run_order *ro;
	size_t n = runs_in_order(a, &ro);
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[ro[q].run];
		for (size_t jb = 0; jb < r->n_jobs; jb++) {
			for (int d = 0; d < 3; d++) {
				const struct an_dirvals *dv = &r->jobs[jb].dir[d];
				if (!dv->sec.n)
					continue;
				json_t *o = json_object();
				jset(o, "variant", jstr(a->variants[r->variant].name));
				jset(o, "state", jstr(a->states[r->state].name));
				jset(o, "test", jstr(a->tests[r->test].name));
				jset(o, "round", json_integer(r->id.round));
				jset(o, "job", jstr(r->jobs[jb].name));
				jset(o, "job_index", json_integer((json_int_t)jb + 1));
				jset(o, "direction", json_string(fc_ddir_name((enum fc_ddir)d)));
				jset(o, "log", json_string(fc_log_type_name(dv->log_type)));
				jset(o, "unit",
				     json_string(an_metric_unit(AN_M_SEC_FIRST, dv->log_type)));
				jset(o, "file", jstr(r->logs[dv->log].path));
				jset(o, "first", jnum(dv->v[AN_M_SEC_FIRST]));
				jset(o, "min", jnum(dv->v[AN_M_SEC_MIN]));
				jset(o, "max", jnum(dv->v[AN_M_SEC_MAX]));
				jset(o, "last", jnum(dv->v[AN_M_SEC_LAST]));
				jset(o, "recovery_s", jnum(dv->v[AN_M_RECOVERY]));
				jset(o, "interval_s", jnum((double)dv->sec.interval_ms / 1000.0));
				jset(o, "start_s", jnum((double)dv->sec.start_ms / 1000.0));
				json_t *vals = json_array();
				for (size_t p = 0; p < dv->sec.n; p++)
					json_array_append_new(vals, jnum(dv->sec.values[p]));
				jset(o, "values", vals);
				j_element(j, o);
			}
		}
	}
	free(ro);
	j_end_array(j);

	j_member(j, "comparison", json_comparison(a));

	j_begin_array(j, "rejected");
	for (size_t i = 0; i < a->n_rejected; i++) {
		json_t *o = json_object();
		jset(o, "file", jstr(a->rejected[i].path));
		jset(o, "reason", jstr(a->rejected[i].reason));
		j_element(j, o);
	}
	j_end_array(j);
	j_begin_array(j, "skipped");
	for (size_t i = 0; i < a->n_skipped; i++) {
		json_t *o = json_object();
		jset(o, "file", jstr(a->skipped[i].path));
		jset(o, "reason", jstr(a->skipped[i].reason));
		j_element(j, o);
	}
	j_end_array(j);
	json_notes(j, "warnings", &a->warnings);
	json_notes(j, "notes", &a->notes);
	fputs("}\n", f);
	return j->err;
}
