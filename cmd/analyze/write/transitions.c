/* SPDX-License-Identifier: MIT */
/*
 * The actions of each state over its repetitions (stats/actions.c): the
 * terminal's table, the Markdown table in the shape of the published
 * measurement, and the cells the HTML report shows.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write/write.h"

/* "2.6 s", "2.6 s (2.5..2.8)"; with list, "91.8 s (79.9, 91.8, 122.9)";
 * "-" for no samples.  Caller frees. */
static char *samples_text(const double *v, size_t n, bool list)
{
	if (!n)
		return cm_strdup("-");
	double m = an_median(v, n);
	if (n == 1)
		return cm_asprintf("%.1f s", m);
	if (list) {
		char *l = an_secs_list(v, n);
		char *s = cm_asprintf("%.1f s (%s)", m, l);
		free(l);
		return s;
	}
	double lo = v[0], hi = v[0];
	for (size_t i = 1; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return cm_asprintf("%.1f s (%.1f..%.1f)", m, lo, hi);
}

/* "5 of 5 matched", "4 of 5 matched, DIFFERS"; NULL without checks. */
static char *hash_text_of(size_t checks, size_t matched)
{
	if (!checks)
		return NULL;
	return cm_asprintf("%zu of %zu matched%s", matched, checks,
			   matched < checks ? ", DIFFERS" : "");
}

static char *row_result(const struct an_action_row *r)
{
	char *h = hash_text_of(r->hash_checks, r->hash_matched);
	if (r->problems) {
		char *s = h ? cm_asprintf("%s: %s", h, r->problems) : cm_strdup(r->problems);
		free(h);
		return s;
	}
	return h ? h : cm_strdup(r->n_failed ? "failed" : "ok");
}

static const char *row_name(const struct an_action_row *r)
{
	return r->act->text ? r->act->text : r->act->action ? r->act->action : "?";
}

/* The line above a state's actions: its repetitions, downtime, data back
 * and hash result. */
char *an_action_state_line(const struct an_analysis *a, const struct an_trans_sum *s)
{
	const struct an_transition *t = s->t;
	struct cm_buf b = {NULL, 0, 0};
	/* a fleet's hosts each have the state's transition: whose */
	const char *host = a->campaigns[t->campaign].fleet_host;
	if (host && a->n_campaigns > 1)
		cm_buf_printf(&b, "%s / ", host);
	cm_buf_puts(&b, a->states[t->state].name);
	if (t->repeat > 1 || t->n_reps > 1)
		cm_buf_printf(&b, ": %zu repetition%s, %zu done", s->n_reps,
			      s->n_reps == 1 ? "" : "s", s->n_done);
	else
		cm_buf_printf(&b, ": %s", t->status ? t->status : "status unknown");
	if (t->repeat > (int)s->n_reps)
		cm_buf_printf(&b, " (repeat = %d)", t->repeat);
	if (s->failed)
		cm_buf_printf(&b, "; FAILED: %s", s->failed);
	if (s->cut)
		cm_buf_printf(&b, "; cut by an interrupt, not in the samples: %s", s->cut);
	/* nothing took the machine away: neither is there to show */
	if (s->n_down || s->n_back) {
		char *d = samples_text(s->down_s, s->n_down, true);
		char *k = samples_text(s->back_s, s->n_back, true);
		cm_buf_printf(&b, "; downtime %s; data back %s", d, k);
		free(d);
		free(k);
	}
	char *h = hash_text_of(t->hash_checks, t->hash_matched);
	if (h)
		cm_buf_printf(&b, "; sha256 %s", h);
	free(h);
	return b.s;
}

const char *const an_action_heads[AN_ACTION_COLS] = {
    "#", "action", "n", "task s (clock)", "median", "stopwatch s", "result"};

void an_action_cells(const struct an_analysis *a, const struct an_transition *t,
		     const struct an_action_row *ar, char **row)
{
	row[0] = cm_asprintf("%zu", ar->index);
	row[1] = cm_strdup(row_name(ar));
	row[2] = cm_asprintf("%zu", ar->n);
	if (ar->n_task) {
		char *l = an_secs_list(ar->task_s, ar->n_task);
		row[3] = cm_asprintf("%s (%s)", l, an_clock_name(a, t, ar->clock));
		free(l);
		double m = an_median(ar->task_s, ar->n_task);
		row[4] = an_secs_list(&m, 1);
	} else {
		row[3] = cm_strdup("-");
		row[4] = cm_strdup("-");
	}
	row[5] = samples_text(ar->watch_s, ar->n_watch, false);
	row[6] = row_result(ar);
}

bool an_trans_sum_shown(const struct an_trans_sum *s)
{
	return s->n_rows || s->n_down || s->failed || s->cut;
}

void an_write_actions_table(FILE *f, const struct an_analysis *a, int width)
{
	const char *const *head = an_action_heads;
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	struct an_trans_sum *sums = cm_calloc(n ? n : 1, sizeof(*sums));
	size_t w[AN_ACTION_COLS];
	for (size_t c = 0; c < AN_ACTION_COLS; c++)
		w[c] = an_str_width(head[c]);
	/* the cells first, for the widths of every state's rows */
	size_t n_cells = 0;
	for (size_t i = 0; i < n; i++) {
		an_trans_sum(order[i], &sums[i]);
		n_cells += sums[i].n_rows;
	}
	char **cells = cm_calloc(n_cells * AN_ACTION_COLS + 1, sizeof(*cells));
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t r = 0; r < sums[i].n_rows; r++, at++) {
			char **row = cells + at * AN_ACTION_COLS;
			an_action_cells(a, order[i], &sums[i].rows[r], row);
			for (size_t c = 0; c < AN_ACTION_COLS; c++) {
				size_t cw = an_str_width(row[c]);
				w[c] = cw > w[c] ? cw : w[c];
			}
		}
	}
	/* a long action text (a path) is cut, the result never */
	if (w[1] > 36)
		w[1] = 36;
	an_wrap(f, "", 0,
		"actions: task seconds by the provider's clock, as named; stopwatch by "
		"fiocamp's monotonic clock (median, min..max over the repetitions)",
		width);
	struct cm_buf line = {NULL, 0, 0};
	at = 0;
	for (size_t i = 0; i < n; i++) {
		if (!an_trans_sum_shown(&sums[i])) {
			at += sums[i].n_rows;
			continue; /* nothing happened before it (a baseline) */
		}
		char *title = an_action_state_line(a, &sums[i]);
		fputc('\n', f);
		an_wrap(f, "", 2, title, width);
		free(title);
		if (!sums[i].n_rows) {
			fputs("  (no actions)\n", f);
			continue;
		}
		/* not cut at the width: a problem's text is the point of the row */
		for (size_t r = 0; r <= sums[i].n_rows; r++) {
			const char *const *row =
			    r ? (const char *const *)cells + at++ * AN_ACTION_COLS : head;
			line.len = 0;
			cm_buf_puts(&line, "  ");
			for (size_t c = 0; c + 1 < AN_ACTION_COLS; c++) {
				an_put_left(&line, row[c], w[c]);
				cm_buf_puts(&line, "  ");
			}
			cm_buf_puts(&line, row[AN_ACTION_COLS - 1]);
			while (line.len && line.s[line.len - 1] == ' ')
				line.s[--line.len] = '\0';
			fprintf(f, "%s\n", line.s);
		}
	}
	cm_buf_release(&line);
	for (size_t i = 0; i < n_cells * AN_ACTION_COLS; i++)
		free(cells[i]);
	free(cells);
	for (size_t i = 0; i < n; i++)
		an_trans_sum_free(&sums[i]);
	free(sums);
	free(order);
}

static bool row_has_task(const struct an_action_row *r)
{
	return r->n_task || r->act->task_name;
}

/* The published measurement's table: path | what the task did | task
 * seconds | our stopwatch | data back | sha256.  One row per action that
 * ran a provider task; a state with none, one row of its actions. */
void an_write_actions_markdown(FILE *f, const struct an_analysis *a)
{
	const struct an_transition **order;
	size_t n = an_trans_order(a, &order);
	fputs("### actions\n\n"
	      "| path | what the task did | task seconds (each; median) | our stopwatch | data "
	      "back | sha256 |\n|---|---|---:|---:|---:|---|\n",
	      f);
	for (size_t i = 0; i < n; i++) {
		struct an_trans_sum s;
		an_trans_sum(order[i], &s);
		const struct an_transition *t = order[i];
		if (!an_trans_sum_shown(&s)) {
			an_trans_sum_free(&s);
			continue; /* nothing happened before it (a baseline) */
		}
		bool first = true;
		size_t tasks = 0;
		/* a task that failed in every repetition still has its row */
		for (size_t r = 0; r < s.n_rows; r++)
			tasks += row_has_task(&s.rows[r]);
		size_t r = 0;
		for (size_t ln = 0; ln < (tasks ? tasks : 1); ln++) {
			const struct an_action_row *ar = NULL;
			if (tasks) {
				while (!row_has_task(&s.rows[r]))
					r++;
				ar = &s.rows[r++];
			}
			struct cm_buf path = {NULL, 0, 0}, what = {NULL, 0, 0}, task = {NULL, 0, 0};
			cm_buf_puts(&path, a->states[t->state].name);
			if (first && (t->repeat > 1 || t->n_reps > 1))
				cm_buf_printf(&path, " (%zu repetitions)", s.n_reps);
			if (first && s.failed)
				cm_buf_printf(&path, " FAILED: %s", s.failed);
			if (first && s.cut)
				cm_buf_printf(
				    &path, " (cut by an interrupt, not in the samples: %s)", s.cut);
			if (ar) {
				cm_buf_puts(&what, row_name(ar));
				if (ar->act->task_name)
					cm_buf_printf(&what, ": %s", ar->act->task_name);
				if (ar->problems)
					cm_buf_printf(&what, " (%s)", ar->problems);
				if (ar->n_task) {
					char *l = an_secs_list(ar->task_s, ar->n_task);
					double m = an_median(ar->task_s, ar->n_task);
					char *ms = an_secs_list(&m, 1);
					cm_buf_printf(&task, "%s (median %s; %s)", l, ms,
						      an_clock_name(a, t, ar->clock));
					free(l);
					free(ms);
				} else {
					cm_buf_puts(&task, "-");
				}
			} else {
				for (size_t k = 0; k < s.n_rows; k++) {
					cm_buf_printf(&what, "%s%s", k ? ", " : "",
						      row_name(&s.rows[k]));
					if (s.rows[k].problems)
						cm_buf_printf(&what, " (%s)", s.rows[k].problems);
				}
				if (!s.n_rows)
					cm_buf_puts(&what, "(no actions)");
				cm_buf_puts(&task, "-");
			}
			char *watch =
			    ar ? samples_text(ar->watch_s, ar->n_watch, false) : cm_strdup("-");
			char *back = first ? samples_text(s.back_s, s.n_back, true) : cm_strdup("");
			char *hash = first ? hash_text_of(t->hash_checks, t->hash_matched) : NULL;
			/* which repetition's data differed */
			for (size_t k = 0; hash && k < s.n_rows; k++) {
				const struct an_action_row *hr = &s.rows[k];
				if (hr->hash_matched < hr->hash_checks && hr->problems) {
					char *more = cm_asprintf("%s (%s)", hash, hr->problems);
					free(hash);
					hash = more;
				}
			}
			fputs("| ", f);
			an_md_cell(f, path.s ? path.s : "");
			fputs(" | ", f);
			an_md_cell(f, what.s ? what.s : "");
			fputs(" | ", f);
			an_md_cell(f, task.s ? task.s : "");
			fputs(" | ", f);
			an_md_cell(f, watch);
			fputs(" | ", f);
			an_md_cell(f, back);
			fputs(" | ", f);
			an_md_cell(f, hash ? hash : first ? "-" : "");
			fputs(" |\n", f);
			cm_buf_release(&path);
			cm_buf_release(&what);
			cm_buf_release(&task);
			free(watch);
			free(back);
			free(hash);
			first = false;
		}
		an_trans_sum_free(&s);
	}
	fputs("\nTask seconds are the provider's own times of its tasks (Proxmox: the node's "
	      "`starttime` to `endtime`, whole seconds); our stopwatch is fiocamp's monotonic "
	      "clock around the whole action (median, min..max); data back runs from the "
	      "action that took the machine away to the verify-hash that matched.\n",
	      f);
	free(order);
}
