/* SPDX-License-Identifier: MIT */
/*
 * CSV for spreadsheets: tidy files, one row per observation (summary,
 * rounds, profile, transitions, actions, compare), and wide, one column per
 * state and variant; in the dialect asked (separator, decimal mark, BOM).
 */
/*
 * Writers for programs: the CSV files (tidy, one row per observation, and
 * wide, one column per state and variant) and the JSON document, written
 * with jansson one element at a time, so that memory stays per element.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

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
 * fraction with --pct fraction.  c_names leaves the row open, c_header
 * ends it. */
static void c_names(struct csv_out *o, const char *const *names)
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
}

static void c_header(struct csv_out *o, const char *const *names)
{
	c_names(o, names);
	c_end(o);
}

/* The workload's columns of one job of a test (an_wl_columns), empty when
 * unknown: what a spreadsheet pivots a sweep by. */
static void c_workload(struct csv_out *o, const char *key, size_t job)
{
	for (size_t i = 0; i < AN_WL_N_COLUMNS; i++) {
		const char *v;
		size_t len;
		if (an_wl_get(key, job, an_wl_columns[i], &v, &len)) {
			char *s = cm_strndup(v, len);
			c_str(o, s);
			free(s);
		} else {
			c_str(o, "");
		}
	}
}

static void csv_summary(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"variant",
					   "state",
					   "baseline",
					   "test",
					   "job",
					   "job_index",
					   "rw",
					   "rwmixread",
					   "bs",
					   "iodepth",
					   "numjobs",
					   "ioengine",
					   "direct",
					   "size",
					   "runtime",
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
					   "disturbed_n",
					   "undisturbed_change_pct",
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
				c_workload(o, a->tests[t].workload, s->job_index);
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
				c_int(o, (long long)c->disturbed_n);
				c_pct(o, c->clean_change_pct);
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

/* A run's repetition and its round within it: 1 and the round in a state
 * that does not repeat. */
static void c_repetition(struct csv_out *o, const struct an_run *r, int round)
{
	c_int(o, r->repetition ? r->repetition : 1);
	c_int(o, r->rep_round ? r->rep_round : round);
}

static void csv_rounds(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {
	    "variant", "state",	    "test",   "round",	    "repetition", "repetition_round",
	    "job",     "job_index", "rw",     "rwmixread",  "bs",	  "iodepth",
	    "numjobs", "ioengine",  "direct", "size",	    "runtime",	  "direction",
	    "metric",  "unit",	    "value",  "change_pct", "note",	  "file",
	    "line",    "disturbed", NULL};
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
					const struct an_run *run = &a->runs[c->runs[v]];
					c_str(o, a->variants[cl->variant].name);
					c_str(o, a->states[cl->state].name);
					c_str(o, a->tests[t].name);
					c_int(o, c->rounds[v]);
					c_repetition(o, run, c->rounds[v]);
					c_str(o, s->job_name);
					c_int(o, (long long)s->job_index + 1);
					c_workload(o, a->tests[t].workload, s->job_index);
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
					c_str(o, run->disturbed ? run->disturbed : "");
					c_end(o);
				}
				/* "+++++": a round without a value, said so */
				for (size_t v = 0; v < c->too_fast; v++) {
					const struct an_run *run = &a->runs[c->too_fast_runs[v]];
					c_str(o, a->variants[cl->variant].name);
					c_str(o, a->states[cl->state].name);
					c_str(o, a->tests[t].name);
					c_int(o, c->too_fast_rounds[v]);
					c_repetition(o, run, c->too_fast_rounds[v]);
					c_str(o, s->job_name);
					c_int(o, (long long)s->job_index + 1);
					c_workload(o, a->tests[t].workload, s->job_index);
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
					c_str(o, run->disturbed ? run->disturbed : "");
					c_end(o);
				}
			}
		}
	}
}

static int cmp_run_order(const void *x, const void *y)
{
	const struct an_run_order *p = x, *q = y;
	if (p->col != q->col)
		return p->col < q->col ? -1 : 1;
	if (p->test != q->test)
		return p->test < q->test ? -1 : 1;
	if (p->round != q->round)
		return p->round < q->round ? -1 : 1;
	return (p->run > q->run) - (p->run < q->run);
}

/* Accepted runs by column, test, round. */
size_t an_runs_in_order(const struct an_analysis *a, struct an_run_order **out)
{
	struct an_run_order *ro = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*ro));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		size_t col = an_col_find(a, r->state, r->variant);
		ro[n++] = (struct an_run_order){i, col, r->test, r->id.round};
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
	struct an_run_order *ro;
	size_t n = an_runs_in_order(a, &ro);
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
	static const char *const head[] = {"test",	"job",	  "job_index", "rw",
					   "rwmixread", "bs",	  "iodepth",   "numjobs",
					   "ioengine",	"direct", "size",      "runtime",
					   "direction", "metric", "unit",      NULL};
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
			c_workload(o, a->tests[t].workload, s->job_index);
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
	/* last: the marks of timings an interrupt cut, shown but no samples */
	static const char *const cut_head[] = {"repetition_cut", "action_cut", NULL};
	c_names(o, head);
	c_header(o, cut_head);
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
				const char *rep_cut =
				    rep->downtime_cut || rep->data_back_cut ? "yes" : "";
				if (!rep->n_actions) {
					for (int e = 0; e < 11; e++)
						c_str(o, "");
					c_str(o, rep_cut);
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
				c_str(o, rep_cut);
				c_str(o, ac->cut ? "yes" : "");
				c_end(o);
			}
		}
	}
	free(order);
}

/* One row per point of a sweep and column: the workload's options, the
 * medians, the changes against the reference column. */
static void csv_sweep(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {
	    "sweep",	   "swept",	     "test",	 "variant",	   "state",
	    "rw",	   "rwmixread",	     "bs",	 "iodepth",	   "numjobs",
	    "ioengine",	   "direct",	     "size",	 "runtime",	   "n",
	    "iops_median", "iops_min",	     "iops_max", "bw_mibs_median", "p99_us_median",
	    "change_pct",  "p99_change_pct", NULL};
	c_header(o, head);
	for (size_t si = 0; si < a->n_sweeps; si++) {
		const struct an_sweep *s = &a->sweeps[si];
		char *swept = s->n_opts == 2 ? cm_asprintf("%s,%s", s->opts[0], s->opts[1])
					     : cm_strdup(s->opts[0]);
		for (size_t c = 0; c < a->n_cols; c++) {
			for (size_t p = 0; p < s->n_points; p++) {
				const struct an_test *t = &a->tests[s->points[p].test];
				const struct an_sweep_cell *x = an_sweep_cell(a, s, p, c);
				c_str(o, s->label);
				c_str(o, swept);
				c_str(o, t->name);
				c_str(o, a->variants[a->cols[c].variant].name);
				c_str(o, a->states[a->cols[c].state].name);
				c_workload(o, t->workload, 0);
				c_int(o, (long long)x->n);
				c_num(o, x->iops_med, DEC_VALUE);
				c_num(o, x->iops_min, DEC_VALUE);
				c_num(o, x->iops_max, DEC_VALUE);
				c_num(o, x->mibs_med, DEC_VALUE);
				c_num(o, x->p99_med, DEC_VALUE);
				c_pct(o, x->change_pct);
				c_pct(o, x->p99_change_pct);
				c_end(o);
			}
		}
		free(swept);
	}
}

/* One row per client (and "All clients") of each test run through fio's
 * client/server mode, per column: its rates over the rounds and its share
 * of the aggregate. */
static void csv_clients(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {
	    "variant",	   "state",	  "test",      "client",   "all_clients",
	    "n",	   "iops_median", "iops_min",  "iops_max", "bw_mibs_median",
	    "bw_mibs_min", "bw_mibs_max", "share_pct", NULL};
	c_header(o, head);
	for (size_t i = 0; i < a->n_shares; i++) {
		const struct an_client_share *s = &a->shares[i];
		const struct an_col *cl = &a->cols[s->col];
		c_str(o, a->variants[cl->variant].name);
		c_str(o, a->states[cl->state].name);
		c_str(o, a->tests[s->test].name);
		c_str(o, s->client);
		c_bool(o, true, s->all);
		c_int(o, (long long)s->n);
		c_num(o, s->iops, DEC_VALUE);
		c_num(o, s->iops_min, DEC_VALUE);
		c_num(o, s->iops_max, DEC_VALUE);
		c_num(o, s->mibs, DEC_VALUE);
		c_num(o, s->mibs_min, DEC_VALUE);
		c_num(o, s->mibs_max, DEC_VALUE);
		c_pct(o, s->share_pct);
		c_end(o);
	}
}

static const char *const kind_names[] = {
    [AN_CSV_SUMMARY] = "summary", [AN_CSV_ROUNDS] = "rounds",
    [AN_CSV_PROFILE] = "profile", [AN_CSV_TRANSITIONS] = "transitions",
    [AN_CSV_ACTIONS] = "actions", [AN_CSV_WIDE] = "wide",
    [AN_CSV_COMPARE] = "compare", [AN_CSV_SWEEP] = "sweep",
    [AN_CSV_CLIENTS] = "clients",
};

const char *an_csv_kind_name(enum an_csv_kind k)
{
	return (unsigned)k < CM_ARRAY_SIZE(kind_names) ? kind_names[k] : NULL;
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
	case AN_CSV_SWEEP:
		csv_sweep(&o, a);
		break;
	case AN_CSV_CLIENTS:
		csv_clients(&o, a);
		break;
	}
	cm_buf_release(&o.line);
}
