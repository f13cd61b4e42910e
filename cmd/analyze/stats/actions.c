/* SPDX-License-Identifier: MIT */
/*
 * The actions of a state over its repetitions: the numbers every writer
 * shows (terminal, Markdown, CSV, JSON, the transitions chart), computed
 * once here so that they agree.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

bool an_has_actions(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_trans; i++) {
		const struct an_transition *t = &a->trans[i];
		if (t->n_actions || isfinite(t->downtime_s) || cm_status_failed(t->status))
			return true;
	}
	return false;
}

/* Appends one (taken over) to a "; "-separated list. */
static void add_problem(char **list, char *one)
{
	if (!*list) {
		*list = one;
		return;
	}
	char *all = cm_asprintf("%s; %s", *list, one);
	free(*list);
	free(one);
	*list = all;
}

/* "repetition 2: downtime 812.3 s, data back 815.0 s" of a repetition
 * whose timings an interrupt cut; caller frees. */
static char *cut_text(const struct an_transition *t, const struct an_rep *rep)
{
	struct cm_buf b = {NULL, 0, 0};
	if (t->repeat > 1 || t->n_reps > 1)
		cm_buf_printf(&b, "repetition %d: ", rep->repetition);
	cm_buf_puts(&b, "downtime ");
	if (isfinite(rep->downtime_s))
		cm_buf_printf(&b, "%.1f s", rep->downtime_s);
	else
		cm_buf_puts(&b, "unknown");
	if (rep->data_back_cut || isfinite(rep->data_back_s)) {
		cm_buf_puts(&b, ", data back ");
		if (isfinite(rep->data_back_s))
			cm_buf_printf(&b, "%.1f s", rep->data_back_s);
		else
			cm_buf_puts(&b, "unknown");
	}
	return b.s;
}

void an_trans_sum(const struct an_transition *t, struct an_trans_sum *out)
{
	memset(out, 0, sizeof(*out));
	out->t = t;
	out->n_reps = t->n_reps;
	size_t rows = 0;
	for (size_t k = 0; k < t->n_reps; k++)
		rows = t->reps[k].n_actions > rows ? t->reps[k].n_actions : rows;
	out->rows = cm_calloc(rows ? rows : 1, sizeof(*out->rows));
	out->n_rows = rows;
	for (size_t i = 0; i < rows; i++) {
		struct an_action_row *r = &out->rows[i];
		r->index = i + 1;
		r->task_s = cm_calloc(t->n_reps, sizeof(*r->task_s));
		r->watch_s = cm_calloc(t->n_reps, sizeof(*r->watch_s));
	}
	out->down_s = cm_calloc(t->n_reps ? t->n_reps : 1, sizeof(*out->down_s));
	out->back_s = cm_calloc(t->n_reps ? t->n_reps : 1, sizeof(*out->back_s));
	for (size_t k = 0; k < t->n_reps; k++) {
		const struct an_rep *rep = &t->reps[k];
		/* a state without `repeat` has no status of its own per repetition */
		const char *st = t->n_reps == 1 && !rep->status ? t->status : rep->status;
		if (!st || cm_status_is(st, CM_STATUS_DONE))
			out->n_done++;
		if (cm_status_failed(st)) {
			add_problem(&out->failed,
				    t->repeat > 1 || t->n_reps > 1
					? cm_asprintf("repetition %d %s", rep->repetition, st)
					: cm_strdup(st));
		}
		/* timings an interrupt cut short are shown apart, never samples */
		if (isfinite(rep->downtime_s) && !rep->downtime_cut)
			out->down_s[out->n_down++] = rep->downtime_s;
		if (isfinite(rep->data_back_s) && !rep->data_back_cut)
			out->back_s[out->n_back++] = rep->data_back_s;
		if (rep->downtime_cut || rep->data_back_cut)
			add_problem(&out->cut, cut_text(t, rep));
		for (size_t i = 0; i < rep->n_actions; i++) {
			const struct an_action *ac = &t->actions[rep->first_action + i];
			struct an_action_row *r = &out->rows[i];
			if (!r->act) {
				r->act = ac;
				r->clock = ac->clock;
			}
			r->n++;
			/* a failed action's seconds are not those of the action: they
			 * are left out of the samples, and the failure is named */
			bool failed = cm_status_failed(ac->status) || ac->error;
			if (isfinite(ac->task_duration_s) && !failed)
				r->task_s[r->n_task++] = ac->task_duration_s;
			/* resumed: its stopwatch holds only the last attempt's part */
			if (isfinite(ac->duration_s) && !failed && !ac->cut)
				r->watch_s[r->n_watch++] = ac->duration_s;
			if (ac->hash_match >= 0) {
				r->hash_checks++;
				r->hash_matched += ac->hash_match == 1;
			}
			/* every problem named, with its repetition */
			char *what = NULL;
			if (ac->hash_match == 0)
				what = cm_strdup("data differs");
			else if (cm_status_failed(ac->status) || ac->error)
				what = ac->error
					   ? cm_asprintf("%s: %s",
							 ac->status ? ac->status : CM_STATUS_FAILED,
							 ac->error)
					   : cm_strdup(ac->status);
			if (failed)
				r->n_failed++;
			if (what) {
				if (t->n_reps > 1 || t->repeat > 1) {
					char *one =
					    cm_asprintf("repetition %d: %s", rep->repetition, what);
					free(what);
					what = one;
				}
				add_problem(&r->problems, what);
			}
		}
	}
}

void an_trans_sum_free(struct an_trans_sum *s)
{
	for (size_t i = 0; i < s->n_rows; i++) {
		free(s->rows[i].task_s);
		free(s->rows[i].watch_s);
		free(s->rows[i].problems);
	}
	free(s->rows);
	free(s->down_s);
	free(s->back_s);
	free(s->failed);
	free(s->cut);
	memset(s, 0, sizeof(*s));
}

size_t an_trans_order(const struct an_analysis *a, const struct an_transition ***out)
{
	const struct an_transition **v = cm_calloc(a->n_trans ? a->n_trans : 1, sizeof(*v));
	size_t n = 0;
	/* in the columns' order (a campaign's variants share its transitions),
	 * then any state the columns leave out */
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < (pass ? a->n_trans : a->n_cols); k++) {
			const struct an_transition *t =
			    pass ? &a->trans[k]
				 : an_transition_of(a, a->cols[k].state, a->cols[k].variant);
			if (!t)
				continue;
			bool seen = false;
			for (size_t i = 0; i < n && !seen; i++)
				seen = v[i] == t;
			if (!seen)
				v[n++] = t;
		}
	}
	*out = v;
	return n;
}

/* The seconds of a state's actions and of its provider tasks (sums over
 * its list; with repetitions, the median of the repetitions' sums) and how
 * many there are in one repetition. */
void an_action_sums(const struct an_transition *t, double *act_s, size_t *n_act, double *task_s,
		    size_t *n_task)
{
	*act_s = *task_s = NAN;
	*n_act = *n_task = 0;
	if (!t || !t->n_reps)
		return;
	double *acts = cm_calloc(t->n_reps, sizeof(*acts));
	double *tasks = cm_calloc(t->n_reps, sizeof(*tasks));
	size_t na = 0, nt = 0;
	for (size_t k = 0; k < t->n_reps; k++) {
		const struct an_rep *rep = &t->reps[k];
		double as = 0, ts = 0;
		size_t ca = 0, ct = 0;
		for (size_t i = 0; i < rep->n_actions; i++) {
			const struct an_action *ac = &t->actions[rep->first_action + i];
			if (isfinite(ac->duration_s)) {
				as += ac->duration_s;
				ca++;
			}
			if (isfinite(ac->task_duration_s)) {
				ts += ac->task_duration_s;
				ct += ac->n_tasks;
			}
		}
		if (ca)
			acts[na++] = as;
		if (ct)
			tasks[nt++] = ts;
		*n_act = ca > *n_act ? ca : *n_act;
		*n_task = ct > *n_task ? ct : *n_task;
	}
	*act_s = an_median(acts, na);
	*task_s = an_median(tasks, nt);
	free(acts);
	free(tasks);
}
