/* SPDX-License-Identifier: MIT */
/*
 * The fio versions of each column (a state in a variant): a fio upgrade is
 * itself a change of state, so the analysis names every version where it
 * ran and warns when what it compares ran on more than one.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* A run's fio version: its report's, else its campaign's; NULL unknown. */
static const char *run_version(const struct an_analysis *a, const struct an_run *r)
{
	if (r->fio_version)
		return r->fio_version;
	size_t c = a->variants[r->variant].campaign;
	return c != SIZE_MAX ? a->campaigns[c].fio_version : NULL;
}

static void count_version(struct an_analysis *a, size_t col, const char *version)
{
	const struct an_col *c = &a->cols[col];
	for (size_t i = 0; i < a->n_fio_versions; i++) {
		struct an_fio_version *e = &a->fio_versions[i];
		if (e->variant == c->variant && e->state == c->state &&
		    strcmp(e->version, version) == 0) {
			e->n_runs++;
			return;
		}
	}
	if (a->n_fio_versions == a->cap_fio_versions) {
		a->cap_fio_versions = a->cap_fio_versions ? 2 * a->cap_fio_versions : 8;
		a->fio_versions =
		    cm_realloc(a->fio_versions, a->cap_fio_versions, sizeof(*a->fio_versions));
	}
	a->fio_versions[a->n_fio_versions++] =
	    (struct an_fio_version){c->variant, c->state, col, cm_strdup(version), 1};
}

static int cmp_entry(const void *x, const void *y)
{
	const struct an_fio_version *p = x, *q = y;
	if (p->col != q->col)
		return p->col < q->col ? -1 : 1;
	return strcmp(p->version, q->version);
}

/* Whether `version` ran in column `col`. */
static bool ran_in(const struct an_analysis *a, size_t col, const char *version)
{
	for (size_t i = 0; i < a->n_fio_versions; i++)
		if (a->fio_versions[i].col == col &&
		    strcmp(a->fio_versions[i].version, version) == 0)
			return true;
	return false;
}

/* Where one version ran: "state before", "states a, b", "host-a", "host-a:
 * before; host-b" (one variant: its states; several: a variant it ran in
 * throughout by its name alone). */
static void say_where(const struct an_analysis *a, const char *version, bool variants,
		      struct cm_buf *b)
{
	bool first_part = true;
	for (size_t v = 0; v < a->n_variants; v++) {
		size_t shown = 0, in = 0;
		for (size_t k = 0; k < a->n_cols; k++) {
			if (a->cols[k].variant != v || !a->cols[k].n_runs)
				continue;
			shown++;
			in += ran_in(a, k, version);
		}
		if (!in)
			continue;
		cm_buf_puts(b, first_part ? "" : "; ");
		first_part = false;
		if (variants) {
			cm_buf_puts(b, a->variants[v].name);
			if (in == shown)
				continue;
			cm_buf_puts(b, ": ");
		} else {
			cm_buf_puts(b, in > 1 ? "states " : "state ");
		}
		size_t said = 0;
		for (size_t k = 0; k < a->n_cols; k++) {
			if (a->cols[k].variant == v && a->cols[k].n_runs && ran_in(a, k, version))
				cm_buf_printf(b, "%s%s", said++ ? ", " : "",
					      a->states[a->cols[k].state].name);
		}
	}
}

void an_fio_versions(struct an_analysis *a)
{
	size_t per = a->n_states ? a->n_states : 1;
	size_t *col_of = cm_calloc(a->n_variants * per + 1, sizeof(*col_of));
	for (size_t i = 0; i < a->n_variants * per; i++)
		col_of[i] = SIZE_MAX;
	for (size_t k = 0; k < a->n_cols; k++)
		col_of[a->cols[k].variant * per + a->cols[k].state] = k;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		const char *version = r->accepted ? run_version(a, r) : NULL;
		size_t col = version ? col_of[r->variant * per + r->state] : SIZE_MAX;
		if (col != SIZE_MAX)
			count_version(a, col, version);
	}
	free(col_of);
	if (a->n_fio_versions > 1)
		qsort(a->fio_versions, a->n_fio_versions, sizeof(*a->fio_versions), cmp_entry);

	/* the distinct versions, in the order of the columns */
	const char **distinct = cm_calloc(a->n_fio_versions + 1, sizeof(*distinct));
	size_t n = 0;
	for (size_t i = 0; i < a->n_fio_versions; i++) {
		size_t k = 0;
		while (k < n && strcmp(distinct[k], a->fio_versions[i].version) != 0)
			k++;
		if (k == n)
			distinct[n++] = a->fio_versions[i].version;
	}
	/* each variant's versions, for the list of variants */
	for (size_t v = 0; v < a->n_variants; v++) {
		struct cm_buf t = {NULL, 0, 0};
		for (size_t k = 0; k < n; k++) {
			bool in = false;
			for (size_t i = 0; i < a->n_fio_versions && !in; i++)
				in = a->fio_versions[i].variant == v &&
				     strcmp(a->fio_versions[i].version, distinct[k]) == 0;
			if (in)
				cm_buf_printf(&t, "%s%s", t.len ? ", " : "", distinct[k]);
		}
		if (t.len) {
			free(a->variants[v].fio_version);
			a->variants[v].fio_version = cm_buf_take(&t);
		}
		cm_buf_release(&t);
	}
	free(a->fio_version);
	if (n == 1)
		a->fio_version = cm_strdup(distinct[0]);
	else if (n == 0 && a->n_variants && a->variants[0].fio_version)
		a->fio_version = cm_strdup(a->variants[0].fio_version); /* a campaign's, no runs */
	else
		a->fio_version = NULL;
	if (n > 1) {
		bool variants = false;
		for (size_t k = 1; k < a->n_cols; k++)
			variants |= a->cols[k].n_runs && a->cols[k].variant != a->cols[0].variant;
		struct cm_buf t = {NULL, 0, 0};
		for (size_t k = 0; k < n; k++) {
			cm_buf_printf(&t, "%s%s (", k ? ", " : "", distinct[k]);
			say_where(a, distinct[k], variants, &t);
			cm_buf_putc(&t, ')');
		}
		a->fio_versions_said = cm_buf_take(&t);
		an_warn(a,
			"the runs compared ran on %zu fio versions: %s; a change of fio can "
			"change the results by itself",
			n, a->fio_versions_said);
	}
	free(distinct);
}
