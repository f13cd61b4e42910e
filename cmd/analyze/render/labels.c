/* SPDX-License-Identifier: MIT */
/*
 * What every writer calls a thing, so that the table, Markdown, CSV, JSON,
 * the charts and the HTML report name it alike: a column, a verify-hash
 * result, a list of seconds, whose clock timed a task.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/render.h"

char *an_col_name(const struct an_analysis *a, const struct an_col *c)
{
	const char *state = a->states[c->state].name;
	const char *variant = a->variants[c->variant].name;
	if (a->n_variants < 2)
		return cm_strdup(state);
	if (a->n_order < 2)
		return cm_strdup(variant);
	return cm_asprintf("%s / %s", variant, state);
}

char *an_integrity_text(const struct an_transition *t)
{
	if (!t || !t->hash_checks)
		return cm_strdup("-");
	if (t->hash_checks == 1)
		return cm_strdup(t->hash_matched ? "matched" : "DIFFERS");
	if (t->hash_matched == t->hash_checks)
		return cm_asprintf("matched (%zu of %zu)", t->hash_matched, t->hash_checks);
	return cm_asprintf("DIFFERS (%zu of %zu matched)", t->hash_matched, t->hash_checks);
}

char *an_secs_list(const double *v, size_t n)
{
	/* whole seconds (a node's task seconds) stay whole; else one decimal
	 * for every value, so that a list reads evenly */
	bool whole = true;
	for (size_t i = 0; i < n && whole; i++)
		whole = fabs(v[i] - round(v[i])) < 1e-9;
	struct cm_buf b = {NULL, 0, 0};
	for (size_t i = 0; i < n; i++)
		cm_buf_printf(&b, whole ? "%s%.0f" : "%s%.1f", i ? ", " : "", v[i]);
	if (!b.len)
		return cm_strdup("");
	return b.s;
}

const char *an_clock_name(const struct an_analysis *a, const struct an_transition *t,
			  const char *clock)
{
	if (clock && strcmp(clock, "node") == 0)
		return "the node's clock";
	if (clock)
		return clock;
	const char *p =
	    t && t->campaign < a->n_campaigns ? a->campaigns[t->campaign].provider : NULL;
	if (p && strcmp(p, "netcup") == 0)
		return "netcup's clock";
	return "the provider's clock";
}

const char *an_hash_text(int match)
{
	return match < 0 ? "" : match ? "matched" : "differs";
}

const char *an_format_name(enum fc_format f)
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
