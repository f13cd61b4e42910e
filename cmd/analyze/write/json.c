/* SPDX-License-Identifier: MIT */
/*
 * The JSON document (--json): everything, written with jansson one element
 * at a time, so that memory stays per element.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

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

/* The change against the baseline without the disturbed rounds; null when
 * neither cell has any. */
static json_t *json_without_disturbed(const struct an_cell *c)
{
	if (!c->clean_n)
		return json_null();
	json_t *o = json_object();
	jset(o, "n", json_integer((json_int_t)c->clean_n));
	jset(o, "median", jnum(c->clean_median));
	jset(o, "change_pct", jnum(c->clean_change_pct));
	jset(o, "mann_whitney", j_mw(c->clean_have_mw, &c->clean_mw));
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
		jset(o, "without_disturbed", json_without_disturbed(c));
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
	jset(o, "disturbed_n", json_integer((json_int_t)c->disturbed_n));
	json_t *rounds = json_array();
	for (size_t v = 0; v < c->n; v++) {
		json_t *r = json_object();
		jset(r, "round", json_integer(c->rounds[v]));
		jset(r, "value", jnum(c->values[v]));
		jset(r, "disturbed", jstr(a->runs[c->runs[v]].disturbed));
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

/* The workload's columns of one job (an_wl_columns) as members of o: an
 * integer as a number, null when unknown. */
static void json_workload_columns(json_t *o, const char *key, size_t job)
{
	for (size_t i = 0; i < AN_WL_N_COLUMNS; i++) {
		enum an_wl_field f = an_wl_columns[i];
		const char *v;
		size_t len;
		if (!an_wl_get(key, job, f, &v, &len)) {
			jset(o, an_wl_fields[f], json_null());
			continue;
		}
		char *s = cm_strndup(v, len), *end;
		long long n = strtoll(s, &end, 10);
		bool integer = len > 0 && len < 19 && *end == '\0' && s[0] != '-' && s[0] != '+' &&
			       !(s[0] == '0' && len > 1);
		jset(o, an_wl_fields[f], integer ? json_integer((json_int_t)n) : jstr(s));
		free(s);
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
		jset(x, "downtime_cut", json_boolean(rep->downtime_cut));
		jset(x, "data_back_cut", json_boolean(rep->data_back_cut));
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
	/* left out of "downtime" and "data_back": measured across an interrupt */
	jset(o, "cut_repetitions", jstr(sum.cut));
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

static json_t *json_col_envs(const struct an_analysis *a, size_t col);

static json_t *json_transition(const struct an_analysis *a, const struct an_col *cl)
{
	const struct an_transition *t = an_transition_of(a, cl->state, cl->variant);
	json_t *o = json_object();
	jset(o, "variant", jstr(a->variants[cl->variant].name));
	jset(o, "state", jstr(a->states[cl->state].name));
	jset(o, "status", jstr(t ? t->status : NULL));
	jset(o, "failed", json_boolean(t && cm_status_failed(t->status)));
	jset(o, "downtime_s", jnum(t ? t->downtime_s : NAN));
	jset(o, "environments", json_col_envs(a, (size_t)(cl - a->cols)));
	/* the campaign's verdicts of rounds = until-steady, per repetition */
	json_t *steady = json_null();
	for (size_t r = 0; t && r < t->n_reps; r++) {
		json_t *v =
		    t->reps[r].steady_json ? json_loads(t->reps[r].steady_json, 0, NULL) : NULL;
		if (!v)
			continue;
		if (t->n_reps == 1) {
			steady = v;
			break;
		}
		if (json_is_null(steady))
			steady = json_array();
		json_object_set_new(v, "repetition", json_integer(t->reps[r].repetition));
		json_array_append_new(steady, v);
	}
	jset(o, "steady", steady);
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

/* The variants: each with its input, campaign and fio version. */
static void json_variants(struct json_out *j, const struct an_analysis *a)
{
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
		jset(o, "disturbed_when", jstr(c ? c->disturbed_rule : NULL));
		jset(o, "fio_version", jstr(var->fio_version));
		jset(o, "runs", json_integer((json_int_t)var->n_runs));
		const struct an_fleet_host *h = an_variant_host(a, v, NULL);
		jset(o, "host", jstr(h ? h->name : NULL));
		jset(o, "host_status", jstr(h ? h->status : NULL));
		j_element(j, o);
	}
	j_end_array(j);
}

/* The fleets: each host with how it ended, its waits at the barriers and
 * the variants it is. */
static void json_fleets(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "fleets");
	for (size_t i = 0; i < a->n_fleets; i++) {
		const struct an_fleet *f = &a->fleets[i];
		json_t *o = json_object();
		jset(o, "campaign", jstr(f->name));
		jset(o, "manifest", jstr(f->manifest));
		jset(o, "input", jstr(a->inputs[f->input].arg));
		jset(o, "mode", jstr(f->mode));
		jset(o, "sync", jstr(f->sync));
		jset(o, "status", jstr(f->status));
		jset(o, "barriers", json_integer((json_int_t)f->n_barriers));
		json_t *hosts = json_array();
		for (size_t k = 0; k < f->n_hosts; k++) {
			const struct an_fleet_host *h = &f->hosts[k];
			json_t *ho = json_object();
			jset(ho, "name", jstr(h->name));
			jset(ho, "directory", jstr(h->dir));
			jset(ho, "status", jstr(h->status));
			jset(ho, "reason", jstr(h->reason));
			jset(ho, "exit_status",
			     h->exit_status >= 0 ? json_integer(h->exit_status) : json_null());
			jset(ho, "manifest",
			     jstr(h->campaign != SIZE_MAX ? a->campaigns[h->campaign].manifest
							  : NULL));
			jset(ho, "barriers", json_integer((json_int_t)h->barriers));
			jset(ho, "waited_s", jnum(h->waited_s));
			jset(ho, "longest_wait_s", jnum(h->max_wait_s));
			json_t *vs = json_array();
			for (size_t v = 0; v < a->n_variants; v++) {
				if (h->campaign != SIZE_MAX &&
				    a->variants[v].campaign == h->campaign)
					json_array_append_new(vs, jstr(a->variants[v].name));
			}
			jset(ho, "variants", vs);
			json_array_append_new(hosts, ho);
		}
		jset(o, "hosts", hosts);
		j_element(j, o);
	}
	j_end_array(j);
}

/* The campaigns' environments as their manifests have them, each with its
 * campaign. */
static void json_environments(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "environments");
	for (size_t i = 0; i < a->n_envs; i++) {
		const struct an_env *e = &a->envs[i];
		json_t *o = json_loads(e->json, 0, NULL);
		if (!json_is_object(o)) {
			json_decref(o);
			o = json_object();
			jset(o, "id", json_integer((json_int_t)e->id));
		}
		jset(o, "campaign", jstr(a->campaigns[e->campaign].name));
		jset(o, "summary", jstr(e->summary));
		j_element(j, o);
	}
	j_end_array(j);
}

/* The ids of the environments a column's runs ran in, in the order of the
 * runs. */
static json_t *json_col_envs(const struct an_analysis *a, size_t col)
{
	const struct an_col *c = &a->cols[col];
	json_t *ids = json_array();
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->env == SIZE_MAX || r->state != c->state ||
		    r->variant != c->variant)
			continue;
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = a->runs[k].accepted && a->runs[k].env == r->env &&
			       a->runs[k].state == c->state && a->runs[k].variant == c->variant;
		if (!seen)
			json_array_append_new(ids, json_integer((json_int_t)a->envs[r->env].id));
	}
	return ids;
}

/* The steady rule over each test's rounds in each column that has enough. */
static void json_steady(struct json_out *j, const struct an_analysis *a)
{
	j_member(j, "steady_window", json_integer((json_int_t)a->steady_window));
	j_begin_array(j, "steady");
	for (size_t i = 0; i < a->n_steady; i++) {
		const struct an_steady *s = &a->steady[i];
		const struct an_col *c = &a->cols[s->col];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[c->variant].name));
		jset(o, "state", jstr(a->states[c->state].name));
		jset(o, "test", jstr(a->tests[s->test].name));
		jset(o, "metric", jstr(s->metric));
		jset(o, "rounds", json_integer((json_int_t)s->n));
		jset(o, "window", json_integer((json_int_t)s->window));
		jset(o, "reached", json_boolean(s->reached));
		jset(o, "round", s->reached ? json_integer(s->round) : json_null());
		jset(o, "range", jnum(s->range));
		jset(o, "slope", jnum(s->slope));
		j_element(j, o);
	}
	j_end_array(j);
}

/* The fio versions of each state and variant, in the order of the columns. */
static void json_fio_versions(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "fio_versions");
	for (size_t i = 0; i < a->n_fio_versions; i++) {
		const struct an_fio_version *e = &a->fio_versions[i];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[e->variant].name));
		jset(o, "state", jstr(a->states[e->state].name));
		jset(o, "fio_version", jstr(e->version));
		jset(o, "runs", json_integer((json_int_t)e->n_runs));
		j_element(j, o);
	}
	j_end_array(j);
}

/* The states in the order shown. */
static void json_states(struct json_out *j, const struct an_analysis *a)
{
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
}

/* Each column's transition, with its actions and repetitions. */
static void json_transitions(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "transitions");
	for (size_t k = 0; k < a->n_cols; k++) {
		if (an_transition_of(a, a->cols[k].state, a->cols[k].variant))
			j_element(j, json_transition(a, &a->cols[k]));
	}
	j_end_array(j);
}

/* The tests with their workloads. */
static void json_tests(struct json_out *j, const struct an_analysis *a)
{
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
}

/* The runs used, by column, test and round. */
static void json_runs(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "runs");
	struct an_run_order *runs;
	size_t n_runs = an_runs_in_order(a, &runs);
	for (size_t q = 0; q < n_runs; q++) {
		const struct an_run *r = &a->runs[runs[q].run];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[r->variant].name));
		jset(o, "state", jstr(a->states[r->state].name));
		jset(o, "round", json_integer(r->id.round));
		jset(o, "repetition", json_integer(r->repetition ? r->repetition : 1));
		jset(o, "repetition_round",
		     json_integer(r->rep_round ? r->rep_round : r->id.round));
		jset(o, "test", jstr(a->tests[r->test].name));
		jset(o, "file", jstr(r->path));
		if (r->bonnie_test >= 0) {
			jset(o, "format", json_string(bonnie_format_name(r->bonnie_format)));
			jset(o, "line", json_integer((json_int_t)r->line));
			jset(o, "bonnie_version", jstr(r->bonnie_version));
			jset(o, "name", jstr(r->bonnie_name));
			jset(o, "seed", jstr(r->bonnie_seed));
		} else {
			jset(o, "format", json_string(an_format_name(r->format)));
		}
		jset(o, "fio_version", jstr(r->fio_version));
		jset(o, "timestamp_ms",
		     r->timestamp_ms >= 0 ? json_integer((json_int_t)r->timestamp_ms)
					  : json_null());
		jset(o, "runtime_s", jnum((double)r->runtime_ms / 1000.0));
		jset(o, "time_based",
		     r->time_based < 0 ? json_null() : json_boolean(r->time_based));
		jset(o, "environment",
		     r->env != SIZE_MAX ? json_integer((json_int_t)a->envs[r->env].id)
					: json_null());
		jset(o, "disturbed", jstr(r->disturbed));
		jset(o, "steal", jnum(r->steal));
		jset(o, "foreign_io", jnum(r->foreign_io));
		json_t *logs = json_array();
		for (size_t k = 0; k < r->n_logs; k++)
			json_array_append_new(logs, jstr(r->logs[k].path));
		jset(o, "logs", logs);
		j_element(j, o);
	}
	free(runs);
	j_end_array(j);
}

/* Every series with one object per column. */
static void json_series(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "series");
	for (size_t i = 0; i < a->n_series; i++) {
		const struct an_series *s = &a->series[i];
		json_t *o = json_object();
		jset(o, "test", jstr(a->tests[s->test].name));
		jset(o, "job", jstr(s->job_name));
		jset(o, "job_index", json_integer((json_int_t)s->job_index + 1));
		jset(o, "client", jstr(s->client));
		json_workload_columns(o, a->tests[s->test].workload, s->job_index);
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
}

/* The baseline bands of the per-second logs. */
static void json_bands(struct json_out *j, const struct an_analysis *a)
{
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
}

/* Every per-second profile with its values. */
static void json_profiles(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "profiles");
	struct an_run_order *ro;
	size_t n = an_runs_in_order(a, &ro);
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
}

/* One metric of a sweep's point: the median, min, max and each round's. */
static json_t *json_sweep_metric(double med, double min, double max, const double *v, size_t n)
{
	json_t *o = json_object();
	jset(o, "median", jnum(med));
	jset(o, "min", jnum(min));
	jset(o, "max", jnum(max));
	json_t *arr = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, jnum(v[i]));
	jset(o, "values", arr);
	return o;
}

/* The sweeps: their options, points, each column's values and the
 * saturation points. */
static void json_sweeps(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "sweeps");
	for (size_t si = 0; si < a->n_sweeps; si++) {
		const struct an_sweep *s = &a->sweeps[si];
		json_t *o = json_object();
		jset(o, "name", jstr(s->label));
		jset(o, "headline", jstr(s->bandwidth ? "bw" : "iops"));
		json_t *opts = json_array(), *vals = json_object();
		for (size_t k = 0; k < s->n_opts; k++) {
			json_array_append_new(opts, jstr(s->opts[k]));
			json_t *vs = json_array();
			for (size_t v = 0; v < s->n_values[k]; v++)
				json_array_append_new(vs, jstr(s->values[k][v]));
			jset(vals, s->opts[k], vs);
		}
		jset(o, "options", opts);
		jset(o, "values", vals);
		jset(o, "load", s->load >= 0 ? jstr(s->opts[s->load]) : json_null());
		json_t *pts = json_array();
		for (size_t p = 0; p < s->n_points; p++) {
			json_t *po = json_object();
			jset(po, "test", jstr(a->tests[s->points[p].test].name));
			json_t *at = json_object();
			for (size_t k = 0; k < s->n_opts; k++)
				jset(at, s->opts[k], jstr(s->values[k][s->points[p].at[k]]));
			jset(po, "point", at);
			json_t *cols = json_array();
			for (size_t c = 0; c < a->n_cols; c++) {
				const struct an_sweep_cell *x = an_sweep_cell(a, s, p, c);
				json_t *co = json_object();
				jset(co, "variant", jstr(a->variants[a->cols[c].variant].name));
				jset(co, "state", jstr(a->states[a->cols[c].state].name));
				jset(co, "n", json_integer((json_int_t)x->n));
				json_t *rounds = json_array();
				for (size_t i = 0; i < x->n; i++)
					json_array_append_new(rounds, json_integer(x->rounds[i]));
				jset(co, "rounds", rounds);
				jset(co, "iops",
				     json_sweep_metric(x->iops_med, x->iops_min, x->iops_max,
						       x->iops, x->n));
				jset(co, "bw_mibs",
				     json_sweep_metric(x->mibs_med, x->mibs_min, x->mibs_max,
						       x->mibs, x->n));
				jset(co, "p99_us",
				     json_sweep_metric(x->p99_med, x->p99_min, x->p99_max,
						       x->p99_us, x->n));
				jset(co, "change_pct", jnum(x->change_pct));
				jset(co, "p99_change_pct", jnum(x->p99_change_pct));
				json_array_append_new(cols, co);
			}
			jset(po, "columns", cols);
			json_array_append_new(pts, po);
		}
		jset(o, "points", pts);
		json_t *sat = json_array();
		for (size_t c = 0; c < a->n_cols && s->load >= 0; c++) {
			size_t other = s->load == 0 ? 1 : 0;
			json_t *so = json_object();
			jset(so, "variant", jstr(a->variants[a->cols[c].variant].name));
			jset(so, "state", jstr(a->states[a->cols[c].state].name));
			char *text = an_sweep_saturation_text(a, si, c);
			jset(so, "text", jstr(text));
			free(text);
			json_t *lines = json_array();
			for (size_t line = 0; line < s->n_lines; line++) {
				int v = s->saturation[c * s->n_lines + line];
				json_t *lo = json_object();
				if (s->n_lines > 1)
					jset(lo, s->opts[other], jstr(s->values[other][line]));
				jset(lo, "reached",
				     v == AN_SAT_UNKNOWN ? json_null() : json_boolean(v >= 0));
				jset(lo, s->opts[s->load],
				     v >= 0 ? jstr(s->values[s->load][v]) : json_null());
				json_array_append_new(lines, lo);
			}
			jset(so, "lines", lines);
			json_array_append_new(sat, so);
		}
		jset(o, "saturation", sat);
		j_element(j, o);
	}
	j_end_array(j);
}

/* Each client's share of each test run through fio's client/server mode,
 * per column. */
static void json_clients(struct json_out *j, const struct an_analysis *a)
{
	j_begin_array(j, "clients");
	for (size_t i = 0; i < a->n_shares; i++) {
		const struct an_client_share *s = &a->shares[i];
		const struct an_col *cl = &a->cols[s->col];
		json_t *o = json_object();
		jset(o, "variant", jstr(a->variants[cl->variant].name));
		jset(o, "state", jstr(a->states[cl->state].name));
		jset(o, "test", jstr(a->tests[s->test].name));
		jset(o, "client", jstr(s->client));
		jset(o, "all_clients", json_boolean(s->all));
		jset(o, "n", json_integer((json_int_t)s->n));
		jset(o, "iops", jnum(s->iops));
		jset(o, "iops_min", jnum(s->iops_min));
		jset(o, "iops_max", jnum(s->iops_max));
		jset(o, "bw_mibs", jnum(s->mibs));
		jset(o, "bw_mibs_min", jnum(s->mibs_min));
		jset(o, "bw_mibs_max", jnum(s->mibs_max));
		jset(o, "share_pct", jnum(s->share_pct));
		j_element(j, o);
	}
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
	j_member(j, "disturbed_excluded", json_integer((json_int_t)a->disturbed_out));

	json_fio_versions(j, a);
	json_environments(j, a);
	json_steady(j, a);
	json_variants(j, a);
	json_fleets(j, a);
	json_states(j, a);
	json_transitions(j, a);
	json_tests(j, a);
	json_runs(j, a);
	json_series(j, a);
	json_bands(j, a);
	json_profiles(j, a);
	json_sweeps(j, a);
	json_clients(j, a);

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
