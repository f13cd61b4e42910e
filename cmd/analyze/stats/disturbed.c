/* SPDX-License-Identifier: MIT */
/*
 * The runs a campaign's telemetry calls disturbed (steal or foreign I/O
 * above the thresholds fiocamp-run was given; docs/campaign-directory.md):
 * left out with --exclude-disturbed, otherwise named in a note each, and
 * a state whose headline change against the baseline comes mainly from
 * disturbed rounds said to be so.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

void an_exclude_disturbed(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted || !r->disturbed)
			continue;
		r->accepted = false;
		r->skip = "disturbed (its telemetry in " CM_CAMPAIGN_MANIFEST
			  "), left out by --exclude-disturbed";
		a->disturbed_out++;
	}
}

/* "variant V, " when there are several, else "". */
static const char *variant_of(const struct an_analysis *a, size_t variant, char *buf, size_t len)
{
	if (a->n_variants < 2)
		return "";
	snprintf(buf, len, "variant %s, ", a->variants[variant].name);
	return buf;
}

/* A note per disturbed run used, in the order of the columns, tests and
 * rounds. */
static void name_runs(struct an_analysis *a)
{
	char vb[160];
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_col *c = &a->cols[k];
		for (size_t t = 0; t < a->n_tests; t++) {
			int last = 0;
			for (;;) {
				/* the next round above `last` */
				const struct an_run *next = NULL;
				for (size_t i = 0; i < a->n_runs; i++) {
					const struct an_run *r = &a->runs[i];
					if (!r->accepted || !r->disturbed || r->state != c->state ||
					    r->variant != c->variant || r->test != t ||
					    r->id.round <= last)
						continue;
					if (!next || r->id.round < next->id.round)
						next = r;
				}
				if (!next)
					break;
				last = next->id.round;
				an_note(a, "disturbed: %sstate %s, round %d, test %s: %s",
					variant_of(a, c->variant, vb, sizeof(vb)),
					a->states[c->state].name, next->id.round, a->tests[t].name,
					next->disturbed);
			}
		}
	}
}

/* The headline series of a test: IOPS, else bandwidth (bonnie++'s block
 * tests), of every job and direction. */
static bool headline(const struct an_analysis *a, const struct an_series *s)
{
	if (s->metric == AN_M_IOPS)
		return true;
	if (s->metric != AN_M_BW)
		return false;
	const struct an_test *t = &a->tests[s->test];
	for (size_t i = t->series_start; i < t->series_end; i++) {
		if (a->series[i].metric == AN_M_IOPS)
			return false;
	}
	return true;
}

/*
 * A change against the baseline that is significant (Mann-Whitney p below
 * 0.05) or large (10 % or more) comes mainly from disturbed rounds when,
 * without the disturbed rounds of either cell, less than half of it is
 * left; when every round of either is disturbed, nothing tells it from the
 * disturbance.
 */
#define SIGNIFICANT_P 0.05
#define LARGE_PCT     10.0

/* A change in percent as the notes print it: no "-0.0". */
static double shown_pct(double pct)
{
	return fabs(pct) < 0.05 ? 0.0 : pct;
}

/* " job 2 \"name\"" when the test has several jobs, else "". */
static const char *job_of(const struct an_analysis *a, const struct an_series *s, char *buf,
			  size_t len)
{
	const struct an_test *t = &a->tests[s->test];
	bool several = false;
	for (size_t i = t->series_start; i < t->series_end && !several; i++)
		several = a->series[i].job_index > 0;
	if (!several)
		return "";
	snprintf(buf, len, " job %zu \"%s\"", s->job_index + 1, s->job_name);
	return buf;
}

static void mainly_disturbed(struct an_analysis *a, const struct an_series *s)
{
	char vb[160], jb[192];
	for (size_t k = 0; k < a->n_cols; k++) {
		const struct an_col *col = &a->cols[k];
		size_t bs = an_col_find(a, a->baseline, col->variant);
		if (col->state == a->baseline || bs == SIZE_MAX)
			continue;
		const struct an_cell *c = &s->cells[k], *base = &s->cells[bs];
		if (!c->disturbed_n && !base->disturbed_n)
			continue;
		if (!isfinite(c->change_pct))
			continue;
		bool significant = c->have_mw && c->mw.p < SIGNIFICANT_P;
		if (!significant && fabs(c->change_pct) < LARGE_PCT)
			continue;
		const char *bname = a->states[a->baseline].name;
		/* nothing left to compare: every round of one of them disturbed */
		if (!c->clean_n) {
			bool own = c->disturbed_n == c->n;
			an_note(a,
				"%s%s %s%s: the change against %s (%+.1f %% %s %s) cannot be told "
				"from the disturbance: every round of %s is disturbed",
				variant_of(a, col->variant, vb, sizeof(vb)),
				a->states[col->state].name, a->tests[s->test].name,
				job_of(a, s, jb, sizeof(jb)), bname, shown_pct(c->change_pct),
				fc_ddir_name(s->dir), an_metric_label(s->metric),
				own ? a->states[col->state].name : bname);
			continue;
		}
		if (fabs(c->clean_change_pct) > fabs(c->change_pct) / 2)
			continue;
		/* whose rounds: this state's, the baseline's or both */
		char *whose =
		    !c->disturbed_n
			? cm_asprintf("%zu disturbed round(s) of %s", base->disturbed_n, bname)
		    : base->disturbed_n ? cm_asprintf("%zu disturbed round(s) and %zu of %s's",
						      c->disturbed_n, base->disturbed_n, bname)
					: cm_asprintf("%zu disturbed round(s)", c->disturbed_n);
		an_note(a,
			"%s%s %s%s: the change against %s (%+.1f %% %s %s) comes mainly from %s "
			"(without them: %+.1f %%)",
			variant_of(a, col->variant, vb, sizeof(vb)), a->states[col->state].name,
			a->tests[s->test].name, job_of(a, s, jb, sizeof(jb)), bname,
			shown_pct(c->change_pct), fc_ddir_name(s->dir), an_metric_label(s->metric),
			whose, shown_pct(c->clean_change_pct));
		free(whose);
	}
}

void an_disturbed_notes(struct an_analysis *a, bool excluded)
{
	if (excluded) {
		an_note(a,
			"--exclude-disturbed: %zu disturbed run(s) left out of the medians and "
			"tests",
			a->disturbed_out);
		return;
	}
	name_runs(a);
	for (size_t i = 0; i < a->n_series; i++) {
		if (headline(a, &a->series[i]))
			mainly_disturbed(a, &a->series[i]);
	}
}
