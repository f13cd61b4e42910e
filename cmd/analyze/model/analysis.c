/* SPDX-License-Identifier: MIT */
/* The analysis: its lists, notes and rejects, what frees it, and the lookups
 * every stage shares (model.h). */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static void notes_add(struct an_notes *n, char *s)
{
	char **slot = CM_PUSH(n->items, n->n, n->cap);
	*slot = s;
}

void an_note(struct an_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = cm_vasprintf(fmt, ap);
	va_end(ap);
	notes_add(&a->notes, s);
}

void an_warn(struct an_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = cm_vasprintf(fmt, ap);
	va_end(ap);
	notes_add(&a->warnings, s);
}

void an_reject(struct an_analysis *a, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = cm_vasprintf(fmt, ap);
	va_end(ap);
	struct an_rejected *r = CM_PUSH(a->rejected, a->n_rejected, a->cap_rejected);
	r->path = cm_strdup(path);
	r->reason = s;
}

void an_skip(struct an_analysis *a, const char *path, const char *reason)
{
	struct an_skipped *s = CM_PUSH(a->skipped, a->n_skipped, a->cap_skipped);
	s->path = cm_strdup(path);
	s->reason = reason;
}

void an_ident_free(struct an_ident *id)
{
	free(id->variant);
	free(id->state);
	free(id->test);
	id->variant = id->state = id->test = NULL;
}

void an_run_free(struct an_run *r)
{
	free(r->path);
	free(r->key);
	free(r->group);
	free(r->reading);
	an_ident_free(&r->id);
	for (size_t i = 0; i < r->n_logs; i++) {
		free(r->logs[i].path);
		free(r->logs[i].host);
		free(r->logs[i].error);
	}
	free(r->logs);
	free(r->reason);
	free(r->fio_version);
	free(r->workload);
	free(r->job_label);
	for (size_t j = 0; j < r->n_jobs; j++) {
		free(r->jobs[j].name);
		free(r->jobs[j].client);
		free(r->jobs[j].client_hostname);
		for (int d = 0; d < FC_DDIR_COUNT; d++)
			free(r->jobs[j].dir[d].sec.values);
	}
	free(r->jobs);
	for (size_t i = 0; i < r->n_clients; i++) {
		free(r->clients[i].host);
		free(r->clients[i].hostname);
	}
	free(r->clients);
	fc_bonnie_free(r->bonnie);
	free(r->bonnie_version);
	free(r->bonnie_name);
	free(r->bonnie_seed);
	free(r->disturbed);
	free(r->telemetry_path);
	free(r->telemetry_device);
	free(r->tm);
}

static void env_free(struct an_env *e)
{
	free(e->where);
	free(e->json);
	free(e->summary);
	for (size_t i = 0; i < e->n_fields; i++) {
		free(e->fields[i].name);
		free(e->fields[i].value);
	}
	free(e->fields);
}

static void notes_free(struct an_notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->items[i]);
	free(n->items);
}

void an_analysis_init(struct an_analysis *a)
{
	memset(a, 0, sizeof(*a));
	a->short_fraction = 0.8;
	a->steady_window = FC_STEADY_WINDOW;
}

void an_analysis_free(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_inputs; i++) {
		free(a->inputs[i].arg);
		free(a->inputs[i].label);
		free(a->inputs[i].root);
		free(a->inputs[i].name);
	}
	free(a->inputs);
	free(a->fio_version);
	for (size_t i = 0; i < a->n_fio_versions; i++)
		free(a->fio_versions[i].version);
	free(a->fio_versions);
	free(a->fio_versions_said);
	for (size_t i = 0; i < a->n_runs; i++)
		an_run_free(&a->runs[i]);
	free(a->runs);
	for (size_t i = 0; i < a->n_rejected; i++) {
		free(a->rejected[i].path);
		free(a->rejected[i].reason);
	}
	free(a->rejected);
	for (size_t i = 0; i < a->n_skipped; i++)
		free(a->skipped[i].path);
	free(a->skipped);
	notes_free(&a->notes);
	notes_free(&a->warnings);
	for (size_t i = 0; i < a->n_states; i++)
		free(a->states[i].name);
	free(a->states);
	free(a->order);
	for (size_t i = 0; i < a->n_variants; i++) {
		free(a->variants[i].name);
		free(a->variants[i].fio_version);
	}
	free(a->variants);
	for (size_t i = 0; i < a->n_campaigns; i++) {
		free(a->campaigns[i].name);
		free(a->campaigns[i].manifest);
		free(a->campaigns[i].fio_version);
		free(a->campaigns[i].host);
		free(a->campaigns[i].group);
		free(a->campaigns[i].provider);
		free(a->campaigns[i].disturbed_rule);
		free(a->campaigns[i].fleet_host);
	}
	free(a->campaigns);
	for (size_t i = 0; i < a->n_fleets; i++) {
		struct an_fleet *f = &a->fleets[i];
		free(f->manifest);
		free(f->name);
		free(f->mode);
		free(f->sync);
		free(f->status);
		for (size_t k = 0; k < f->n_hosts; k++) {
			free(f->hosts[k].name);
			free(f->hosts[k].dir);
			free(f->hosts[k].status);
			free(f->hosts[k].reason);
			free(f->hosts[k].group);
		}
		free(f->hosts);
	}
	free(a->fleets);
	for (size_t i = 0; i < a->n_trans; i++) {
		struct an_transition *t = &a->trans[i];
		free(t->status);
		for (size_t k = 0; k < t->n_actions; k++) {
			free(t->actions[k].action);
			free(t->actions[k].text);
			free(t->actions[k].status);
			free(t->actions[k].task_name);
			free(t->actions[k].error);
			free(t->actions[k].clock);
		}
		free(t->actions);
		for (size_t k = 0; k < t->n_reps; k++) {
			free(t->reps[k].status);
			free(t->reps[k].steady_json);
			free(t->reps[k].steady_text);
		}
		free(t->reps);
	}
	free(a->trans);
	for (size_t i = 0; i < a->n_envs; i++)
		env_free(&a->envs[i]);
	free(a->envs);
	free(a->envs_said);
	free(a->steady);
	for (size_t i = 0; i < a->n_shares; i++)
		free(a->shares[i].client);
	free(a->shares);
	for (size_t i = 0; i < a->n_tests; i++) {
		free(a->tests[i].name);
		free(a->tests[i].base);
	}
	free(a->tests);
	free(a->cols);
	for (size_t i = 0; i < a->n_series; i++) {
		struct an_series *s = &a->series[i];
		for (size_t k = 0; k < a->n_cols; k++) {
			free(s->cells[k].values);
			free(s->cells[k].rounds);
			free(s->cells[k].first);
			free(s->cells[k].disturbed);
			free(s->cells[k].runs);
			free(s->cells[k].too_fast_rounds);
			free(s->cells[k].too_fast_runs);
		}
		free(s->cells);
		free(s->job_name);
		free(s->client);
	}
	free(a->series);
	free(a->bands);
	for (size_t i = 0; i < a->n_sweeps; i++) {
		struct an_sweep *sw = &a->sweeps[i];
		for (size_t k = 0; k < sw->n_points * a->n_cols; k++) {
			struct an_sweep_cell *c = &sw->cells[k];
			free(c->rounds);
			free(c->iops);
			free(c->mibs);
			free(c->p99_us);
		}
		for (size_t o = 0; o < sw->n_opts; o++) {
			for (size_t v = 0; v < sw->n_values[o]; v++)
				free(sw->values[o][v]);
			free(sw->values[o]);
		}
		free(sw->label);
		free(sw->points);
		free(sw->cells);
		free(sw->saturation);
	}
	free(a->sweeps);
	for (size_t i = 0; i < a->n_plogs; i++) {
		free(a->plogs[i].path);
		an_log_name_free(&a->plogs[i].name);
	}
	free(a->plogs);
	free(a->walked);
	memset(a, 0, sizeof(*a));
}

size_t an_state_get(struct an_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_states; i++) {
		if (strcmp(a->states[i].name, name) == 0)
			return i;
	}
	struct an_state *s = CM_PUSH(a->states, a->n_states, a->cap_states);
	s->name = cm_strdup(name);
	s->first_ts_ms = -1;
	s->first_seen = a->n_states - 1;
	return a->n_states - 1;
}

size_t an_variant_get(struct an_analysis *a, const char *name, size_t input)
{
	for (size_t i = 0; i < a->n_variants; i++) {
		if (strcmp(a->variants[i].name, name) == 0)
			return i;
	}
	struct an_variant *v = CM_PUSH(a->variants, a->n_variants, a->cap_variants);
	v->name = cm_strdup(name);
	v->input = input;
	v->campaign = SIZE_MAX;
	return a->n_variants - 1;
}

struct an_transition *an_transition_get(struct an_analysis *a, size_t state, size_t campaign)
{
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].state == state && a->trans[i].campaign == campaign)
			return &a->trans[i];
	}
	struct an_transition *t = CM_PUSH(a->trans, a->n_trans, a->cap_trans);
	t->state = state;
	t->campaign = campaign;
	t->downtime_s = NAN;
	t->repeat = 1;
	return t;
}

const struct an_transition *an_transition_of(const struct an_analysis *a, size_t state,
					     size_t variant)
{
	size_t c = a->variants[variant].campaign;
	if (c == SIZE_MAX)
		return NULL;
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].state == state && a->trans[i].campaign == c)
			return &a->trans[i];
	}
	return NULL;
}

const struct an_fleet_host *an_variant_host(const struct an_analysis *a, size_t variant,
					    size_t *fleet)
{
	size_t c = a->variants[variant].campaign;
	if (c == SIZE_MAX)
		return NULL;
	for (size_t i = 0; i < a->n_fleets; i++) {
		for (size_t k = 0; k < a->fleets[i].n_hosts; k++) {
			if (a->fleets[i].hosts[k].campaign != c)
				continue;
			if (fleet)
				*fleet = i;
			return &a->fleets[i].hosts[k];
		}
	}
	return NULL;
}

const struct an_fleet *an_fleet_alone(const struct an_analysis *a)
{
	if (a->n_fleets != 1 || a->n_variants == 0)
		return NULL;
	for (size_t v = 0; v < a->n_variants; v++) {
		const struct an_fleet_host *h = an_variant_host(a, v, NULL);
		if (!h || strcmp(h->name, a->variants[v].name) != 0)
			return NULL;
	}
	return &a->fleets[0];
}

size_t an_host_variant(const struct an_analysis *a, const struct an_fleet *f, size_t k)
{
	for (size_t v = 0; v < a->n_variants; v++) {
		if (an_variant_host(a, v, NULL) == &f->hosts[k])
			return v;
	}
	return SIZE_MAX;
}

size_t an_col_find(const struct an_analysis *a, size_t state, size_t variant)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		if (a->cols[k].state == state && a->cols[k].variant == variant)
			return k;
	}
	return SIZE_MAX;
}

const struct an_series *an_find_series(const struct an_analysis *a, size_t test, size_t job,
				       enum fc_ddir dir, enum an_metric m)
{
	const struct an_test *t = &a->tests[test];
	for (size_t i = t->series_start; i < t->series_end; i++) {
		const struct an_series *s = &a->series[i];
		if (s->test == test && s->job_index == job && s->dir == dir && s->metric == m)
			return s;
	}
	return NULL;
}

bool an_any_marked(const struct an_analysis *a)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		if (an_col_mark(a, &a->cols[k]))
			return true;
	}
	return false;
}

const char *an_col_mark(const struct an_analysis *a, const struct an_col *c)
{
	const struct an_transition *t = an_transition_of(a, c->state, c->variant);
	if (!t)
		return NULL;
	if (cm_status_failed(t->status))
		return t->status;
	if (t->hash_checks > t->hash_matched)
		return "data differs";
	return NULL;
}

size_t an_runs_of(const struct an_analysis *a, size_t col, size_t test)
{
	size_t n = 0;
	const struct an_col *c = &a->cols[col];
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		n += r->accepted && r->state == c->state && r->variant == c->variant &&
		     r->test == test;
	}
	return n;
}

size_t an_used_runs(const struct an_analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++)
		n += a->runs[i].accepted;
	return n;
}

/*
 * The column a column's changes are shown against in the table: the
 * baseline state of its variant; in the baseline state, the baseline
 * variant; SIZE_MAX for the base column itself, or when the reference has
 * no column.
 */
size_t an_ref_col(const struct an_analysis *a, size_t col)
{
	const struct an_col *c = &a->cols[col];
	if (c->state != a->baseline)
		return an_col_find(a, a->baseline, c->variant);
	if (c->variant != a->baseline_variant)
		return an_col_find(a, c->state, a->baseline_variant);
	return SIZE_MAX;
}

const struct an_band *an_find_band(const struct an_analysis *a, size_t variant, size_t test,
				   size_t job, enum fc_ddir dir, enum fc_log_type type)
{
	for (size_t i = 0; i < a->n_bands; i++) {
		const struct an_band *b = &a->bands[i];
		if (b->variant == variant && b->test == test && b->job_index == job &&
		    b->dir == dir && b->log_type == type)
			return b;
	}
	return NULL;
}

void an_log_name_free(struct an_log_name *n)
{
	free(n->key);
	free(n->key_raw);
	free(n->host);
	n->key = n->key_raw = n->host = NULL;
}

const struct an_sweep_cell *an_sweep_cell(const struct an_analysis *a, const struct an_sweep *s,
					  size_t point, size_t col)
{
	return &s->cells[point * a->n_cols + col];
}

size_t an_sweep_line(const struct an_sweep *s, size_t point)
{
	if (s->n_opts < 2 || s->load < 0)
		return 0;
	return s->points[point].at[s->load == 0 ? 1 : 0];
}
