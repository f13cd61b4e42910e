/* SPDX-License-Identifier: MIT */
/*
 * The environments the columns ran in (the campaign's `environments`, each
 * state's `environment`): a kernel, a fio, a file system's mount options or
 * a device's scheduler that changed between what is compared can change the
 * results by itself, so each change is a warning naming the field, its
 * values and the columns.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* The distinct environments of a column's accepted runs, in the order of
 * the runs, each with the repetition of its first run (0: the state does
 * not repeat); returns how many (at most max). */
static size_t col_envs(const struct an_analysis *a, size_t col, size_t *out, int *rep, size_t max)
{
	const struct an_col *c = &a->cols[col];
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->env == SIZE_MAX || r->state != c->state ||
		    r->variant != c->variant)
			continue;
		size_t k = 0;
		while (k < n && out[k] != r->env)
			k++;
		if (k == n && n < max) {
			rep[n] = r->repetition;
			out[n++] = r->env;
		}
	}
	return n;
}

static const char *field_of(const struct an_env *e, const char *name)
{
	for (size_t i = 0; i < e->n_fields; i++)
		if (strcmp(e->fields[i].name, name) == 0)
			return e->fields[i].value;
	return NULL;
}

/* "state after", "variant b state after", or as the other side of a
 * comparison within one variant just "basis". */
static void col_name(const struct an_analysis *a, size_t col, bool variant, char *buf, size_t len)
{
	const struct an_col *c = &a->cols[col];
	if (variant)
		snprintf(buf, len, "variant %s state %s", a->variants[c->variant].name,
			 a->states[c->state].name);
	else
		snprintf(buf, len, "state %s", a->states[c->state].name);
}

/* A warning for each field both environments know and that differs. */
static void compare(struct an_analysis *a, const struct an_env *e, const struct an_env *ref,
		    const char *who, const char *whom)
{
	for (size_t i = 0; i < e->n_fields; i++) {
		const char *theirs = field_of(ref, e->fields[i].name);
		if (!theirs || strcmp(theirs, e->fields[i].value) == 0)
			continue;
		an_warn(a, "%s ran on %s %s where %s ran on %s", who, e->fields[i].name,
			e->fields[i].value, whom, theirs);
	}
}

#define ENVS_PER_COL 16

void an_environments(struct an_analysis *a)
{
	if (!a->n_envs)
		return;
	bool variants = a->n_variants > 1;
	size_t *first = cm_calloc(a->n_cols + 1, sizeof(*first));
	size_t envs[ENVS_PER_COL];
	int reps[ENVS_PER_COL];
	for (size_t k = 0; k < a->n_cols; k++) {
		size_t n = col_envs(a, k, envs, reps, ENVS_PER_COL);
		first[k] = n ? envs[0] : SIZE_MAX;
		char who[256];
		col_name(a, k, variants, who, sizeof(who));
		/* a repetition that ran elsewhere than the state's first */
		for (size_t i = 1; i < n; i++) {
			char part[300], other[64];
			if (reps[i] && reps[0]) {
				snprintf(part, sizeof(part), "%s repetition %d", who, reps[i]);
				snprintf(other, sizeof(other), "repetition %d", reps[0]);
			} else {
				snprintf(part, sizeof(part), "%s (runs in environment %lld)", who,
					 a->envs[envs[i]].id);
				snprintf(other, sizeof(other), "its runs in environment %lld",
					 a->envs[envs[0]].id);
			}
			compare(a, &a->envs[envs[i]], &a->envs[envs[0]], part, other);
		}
	}
	for (size_t k = 0; k < a->n_cols; k++) {
		size_t ref = an_ref_col(a, k);
		if (ref == SIZE_MAX || first[k] == SIZE_MAX || first[ref] == SIZE_MAX ||
		    first[k] == first[ref])
			continue;
		char who[256], whom[256];
		col_name(a, k, variants, who, sizeof(who));
		if (a->cols[ref].variant == a->cols[k].variant)
			snprintf(whom, sizeof(whom), "%s", a->states[a->cols[ref].state].name);
		else
			col_name(a, ref, variants, whom, sizeof(whom));
		compare(a, &a->envs[first[k]], &a->envs[first[ref]], who, whom);
	}
	/* which columns ran where, when they ran in more than one */
	size_t used = 0;
	struct cm_buf b = {NULL, 0, 0};
	for (size_t e = 0; e < a->n_envs; e++) {
		size_t in = 0;
		struct cm_buf t = {NULL, 0, 0};
		for (size_t k = 0; k < a->n_cols; k++) {
			size_t n = col_envs(a, k, envs, reps, ENVS_PER_COL);
			bool here = false;
			for (size_t i = 0; i < n; i++)
				here |= envs[i] == e;
			if (!here)
				continue;
			const struct an_col *c = &a->cols[k];
			if (variants)
				cm_buf_printf(&t, "%s%s %s", in ? ", " : "",
					      a->variants[c->variant].name,
					      a->states[c->state].name);
			else
				cm_buf_printf(&t, "%s%s", in ? ", " : "", a->states[c->state].name);
			in++;
		}
		if (in) {
			const struct an_campaign *c = &a->campaigns[a->envs[e].campaign];
			cm_buf_printf(&b, "%s%lld", used ? ", " : "", a->envs[e].id);
			/* ids are a campaign's own */
			if (a->n_campaigns > 1)
				cm_buf_printf(&b, " of %s%s", c->fleet_host ? "host " : "",
					      c->fleet_host ? c->fleet_host
					      : c->name	    ? c->name
							    : c->manifest);
			cm_buf_printf(&b, " (%s)", t.s);
			used++;
		}
		cm_buf_release(&t);
	}
	free(a->envs_said);
	a->envs_said = used > 1 ? cm_buf_take(&b) : NULL;
	cm_buf_release(&b);
	free(first);
}
