/* SPDX-License-Identifier: MIT */
/*
 * Writers: the terminal table and Markdown (the same grid: one block per
 * test, job and direction, states as columns), the tidy CSV files and JSON.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ---- lookups ------------------------------------------------------------- */

static const struct an_series *find_series(const struct an_analysis *a, size_t test, size_t job,
					   enum fc_ddir dir, enum an_metric m)
{
	for (size_t i = 0; i < a->n_series; i++) {
		const struct an_series *s = &a->series[i];
		if (s->test == test && s->job_index == job && s->dir == dir && s->metric == m)
			return s;
	}
	return NULL;
}

static size_t base_pos(const struct an_analysis *a)
{
	for (size_t k = 0; k < a->n_order; k++) {
		if (a->order[k] == a->baseline)
			return k;
	}
	return 0;
}

static size_t runs_of(const struct an_analysis *a, size_t state, size_t test)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		n += r->accepted && r->state == state && r->test == test;
	}
	return n;
}

static size_t n_used_runs(const struct an_analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++)
		n += a->runs[i].accepted;
	return n;
}

static bool has_transitions(const struct an_analysis *a)
{
	for (size_t k = 0; k < a->n_order; k++) {
		const struct an_state *s = &a->states[a->order[k]];
		if (isfinite(s->downtime_s) || s->n_actions)
			return true;
	}
	return false;
}

static void action_sums(const struct an_state *s, double *act_s, size_t *n_act, double *task_s,
			size_t *n_task)
{
	*act_s = 0;
	*task_s = 0;
	*n_act = *n_task = 0;
	for (size_t i = 0; i < s->n_actions; i++) {
		if (isfinite(s->actions[i].duration_s)) {
			*act_s += s->actions[i].duration_s;
			(*n_act)++;
		}
		if (isfinite(s->actions[i].task_duration_s)) {
			*task_s += s->actions[i].task_duration_s;
			*n_task += s->actions[i].n_tasks;
		}
	}
	if (*n_act == 0)
		*act_s = NAN;
	if (*n_task == 0)
		*task_s = NAN;
}

/* ---- the grid shared by table and Markdown ------------------------------- */

struct row {
	char *label;
	char **cells;
};

struct block {
	char *title;
	struct row *rows;
	size_t n, cap;
};

struct grid {
	size_t ncols;
	struct block *blocks;
	size_t n, cap;
};

static struct block *new_block(struct grid *g, char *title)
{
	struct block *b = AN_PUSH(g->blocks, g->n, g->cap);
	b->title = title;
	return b;
}

/* Returns the row's cells, which stay put while more rows are added. */
static char **new_row(struct grid *g, struct block *b, const char *label)
{
	struct row *r = AN_PUSH(b->rows, b->n, b->cap);
	r->label = an_strdup(label);
	r->cells = an_calloc(g->ncols, sizeof(*r->cells));
	return r->cells;
}

static void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->n; i++) {
		struct block *b = &g->blocks[i];
		for (size_t k = 0; k < b->n; k++) {
			for (size_t c = 0; c < g->ncols; c++)
				free(b->rows[k].cells[c]);
			free(b->rows[k].cells);
			free(b->rows[k].label);
		}
		free(b->rows);
		free(b->title);
	}
	free(g->blocks);
}

static char *value_pct(double v, double pct, bool mark)
{
	char num[32], p[32];
	an_fmt_short(num, sizeof(num), v);
	an_fmt_pct(p, sizeof(p), pct);
	if (!isfinite(v))
		return an_strdup("-");
	if (!p[0])
		return an_strdup(num);
	return an_asprintf("%s %s%s", num, p, mark ? "*" : "");
}

static char *range_text(double lo, double hi)
{
	char a[32], b[32];
	if (!isfinite(lo))
		return an_strdup("-");
	an_fmt_short(a, sizeof(a), lo);
	an_fmt_short(b, sizeof(b), hi);
	return an_asprintf("%s..%s", a, b);
}

static char *p_text(const struct an_cell *c, bool is_base)
{
	if (is_base)
		return an_strdup("base");
	if (!c->have_mw || !isfinite(c->mw.p))
		return an_strdup("-");
	if (c->mw.p < 0.001)
		return an_strdup("<0.001");
	return an_asprintf("%.3f", c->mw.p);
}

static void metric_rows(struct grid *g, struct block *b, const struct an_analysis *a,
			const struct an_series *s)
{
	size_t bp = base_pos(a);
	char label[96];
	snprintf(label, sizeof(label), "%s median", an_metric_label(s->metric));
	char **med = new_row(g, b, label);
	char **rng = new_row(g, b, "  min..max");
	char **r1 = new_row(g, b, "  round 1");
	char **rest = new_row(g, b, "  rounds 2..n");
	char **p = new_row(g, b, "  p (Mann-Whitney)");
	for (size_t k = 0; k < g->ncols; k++) {
		const struct an_cell *c = &s->cells[k];
		bool is_base = k == bp;
		med[k] =
		    value_pct(c->sum.median, is_base ? NAN : c->change_pct, !is_base && c->outside);
		rng[k] = range_text(c->sum.min, c->sum.max);
		r1[k] = value_pct(c->round1, c->round1_change_pct, false);
		rest[k] = value_pct(c->rest_median, c->rest_change_pct, false);
		p[k] = c->sum.n ? p_text(c, is_base) : an_strdup("-");
	}
}

static char *seconds_text(double s)
{
	if (!isfinite(s))
		return an_strdup("-");
	return an_asprintf("%.0f s", s);
}

static void per_second_rows(struct grid *g, struct block *b, const struct an_analysis *a,
			    size_t test, size_t job, enum fc_ddir dir)
{
	const struct an_series *first = find_series(a, test, job, dir, AN_M_SEC_FIRST);
	const struct an_series *last = find_series(a, test, job, dir, AN_M_SEC_LAST);
	const struct an_series *min = find_series(a, test, job, dir, AN_M_SEC_MIN);
	const struct an_series *rec = find_series(a, test, job, dir, AN_M_RECOVERY);
	if (!first || !last || !min || !rec)
		return;
	const struct an_band *band = an_find_band(a, test, job, dir, first->log_type);
	size_t bp = base_pos(a);
	const char *kind = first->log_type == FC_LOG_BW ? "MiB/s" : "IOPS";
	char label[96];
	snprintf(label, sizeof(label), "per second (%s)", kind);
	char **hb = new_row(g, b, label);
	char **rb = new_row(g, b, "  band p10..p90");
	char **rf = new_row(g, b, "  round 1, 1st second");
	char **rm = new_row(g, b, "  round 1, slowest");
	char **rl = new_row(g, b, "  round 1, last second");
	char **rr = new_row(g, b, "  recovery round 1");
	char **rn = new_row(g, b, "  recovery 2..n, max");
	for (size_t k = 0; k < g->ncols; k++) {
		hb[k] = an_strdup("");
		rb[k] =
		    k == bp && band && band->n ? range_text(band->low, band->high) : an_strdup("");
		/* Round 1's seconds against the baseline's median of the same second. */
		const struct an_cell *cf = &first->cells[k], *cm = &min->cells[k];
		const struct an_cell *cl = &last->cells[k];
		rf[k] = value_pct(cf->round1, k == bp ? NAN : cf->round1_change_pct, false);
		rm[k] = value_pct(cm->round1, k == bp ? NAN : cm->round1_change_pct, false);
		rl[k] = value_pct(cl->round1, k == bp ? NAN : cl->round1_change_pct, false);

		const struct an_cell *cr = &rec->cells[k];
		bool have_r1 = false, r1_never = false;
		double rest_max = NAN;
		size_t rest_n = 0, rest_never = 0;
		for (size_t i = 0; i < cr->n; i++) {
			double v = cr->values[i];
			if (cr->rounds[i] == 1) {
				have_r1 = true;
				r1_never = !isfinite(v);
				continue;
			}
			rest_n++;
			if (!isfinite(v))
				rest_never++;
			else if (isnan(rest_max) || v > rest_max)
				rest_max = v;
		}
		if (!band || !band->n)
			rr[k] = an_strdup("-");
		else if (!have_r1)
			rr[k] = an_strdup("-");
		else if (r1_never)
			rr[k] = an_strdup("never");
		else
			rr[k] = seconds_text(cr->round1);
		if (!band || !band->n || rest_n == 0)
			rn[k] = an_strdup("-");
		else if (rest_never)
			rn[k] = an_asprintf("never in %zu/%zu", rest_never, rest_n);
		else
			rn[k] = seconds_text(rest_max);
	}
}

static void build_grid(struct grid *g, const struct an_analysis *a, const struct an_report_opts *o)
{
	g->ncols = a->n_order;
	if (has_transitions(a)) {
		struct block *b = new_block(g, an_strdup("state transitions"));
		char **dt = new_row(g, b, "downtime s");
		char **ac = new_row(g, b, "actions s (count)");
		char **tk = new_row(g, b, "provider tasks s (count)");
		for (size_t k = 0; k < g->ncols; k++) {
			const struct an_state *s = &a->states[a->order[k]];
			double act_s, task_s;
			size_t n_act, n_task;
			action_sums(s, &act_s, &n_act, &task_s, &n_task);
			dt[k] = isfinite(s->downtime_s) ? an_asprintf("%.1f", s->downtime_s)
							: an_strdup("-");
			ac[k] = n_act ? an_asprintf("%.1f (%zu)", act_s, n_act) : an_strdup("-");
			tk[k] = n_task ? an_asprintf("%.1f (%zu)", task_s, n_task) : an_strdup("-");
		}
	}
	for (size_t t = 0; t < a->n_tests; t++) {
		/* (job, direction) pairs of this test, in series order. */
		for (size_t i = 0; i < a->n_series; i++) {
			const struct an_series *s = &a->series[i];
			if (s->test != t)
				continue;
			bool seen = false;
			for (size_t k = 0; k < i; k++) {
				const struct an_series *q = &a->series[k];
				seen |= q->test == t && q->job_index == s->job_index &&
					q->dir == s->dir;
			}
			if (seen)
				continue;
			bool several_jobs = false;
			for (size_t k = 0; k < a->n_series; k++)
				several_jobs |=
				    a->series[k].test == t && a->series[k].job_index > 0;
			char *title;
			if (several_jobs)
				title = an_asprintf("%s: job %zu \"%s\", %s", a->tests[t],
						    s->job_index + 1, s->job_name,
						    fc_ddir_name(s->dir));
			else
				title = an_asprintf("%s: %s", a->tests[t], fc_ddir_name(s->dir));
			struct block *b = new_block(g, title);
			char **runs = new_row(g, b, "runs");
			for (size_t k = 0; k < g->ncols; k++)
				runs[k] = an_asprintf("%zu", runs_of(a, a->order[k], t));
			for (int m = 0; m < AN_M_FIRST_LOG; m++) {
				if (!o->metrics[m])
					continue;
				const struct an_series *ms =
				    find_series(a, t, s->job_index, s->dir, (enum an_metric)m);
				if (ms)
					metric_rows(g, b, a, ms);
			}
			per_second_rows(g, b, a, t, s->job_index, s->dir);
		}
	}
}

static void print_header(FILE *f, const struct an_analysis *a, bool markdown)
{
	size_t used = n_used_runs(a);
	if (a->campaign)
		fprintf(f, "campaign %s (%s)", a->campaign, a->manifest);
	else
		fprintf(f, "%zu fio run(s)", used);
	if (a->fio_version)
		fprintf(f, ", %s", a->fio_version);
	/* Two trailing spaces: a line break in Markdown. */
	fprintf(f, "%s\n", markdown ? "  " : "");
	fprintf(f, "baseline %s; states %zu, tests %zu, runs used %zu, inputs rejected %zu%s\n",
		a->states[a->baseline].name, a->n_order, a->n_tests, used, a->n_rejected,
		a->n_rejected ? " (listed on stderr)" : "");
}

static const char legend[] =
    "median: change vs the baseline median; * = outside the baseline's min..max.\n"
    "round 1, rounds 2..n: round 1's value and the median of the other rounds, each\n"
    "against the baseline median.  p: exact two-sided Mann-Whitney U against the\n"
    "baseline; with n rounds against n it cannot go below 2/C(2n,n): 0.100 for 3,\n"
    "0.029 for 4, 0.008 for 5.\n";
static const char legend_sec[] =
    "per second: band = the baseline's per-second p10..p90; recovery = seconds from the\n"
    "start of the run until the rate first reaches the band's lower edge.\n";

static bool has_per_second(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_series; i++) {
		if (a->series[i].metric >= AN_M_FIRST_LOG)
			return true;
	}
	return false;
}

/* Prints a legend as one paragraph (Markdown). */
static void paragraph(FILE *f, const char *text)
{
	for (const char *p = text; *p; p++)
		fputc(*p == '\n' && p[1] ? ' ' : *p, f);
}

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct grid g;
	memset(&g, 0, sizeof(g));
	build_grid(&g, a, o);
	print_header(f, a, false);
	int width = o->width > 0 ? o->width : 100;
	size_t bp = base_pos(a);
	for (size_t bi = 0; bi < g.n; bi++) {
		const struct block *b = &g.blocks[bi];
		size_t lw = 12;
		for (size_t r = 0; r < b->n; r++) {
			size_t l = strlen(b->rows[r].label);
			if (l > lw)
				lw = l;
		}
		size_t cw = 8;
		for (size_t c = 0; c < g.ncols; c++) {
			size_t l = strlen(a->states[a->order[c]].name) + (c == bp ? 7 : 0);
			if (l > cw)
				cw = l;
			for (size_t r = 0; r < b->n; r++) {
				l = strlen(b->rows[r].cells[c]);
				if (l > cw)
					cw = l;
			}
		}
		cw += 2;
		size_t per = width > (int)lw ? ((size_t)width - lw) / cw : 1;
		if (per < 1)
			per = 1;
		fprintf(f, "\n%s\n", b->title);
		for (size_t c0 = 0; c0 < g.ncols; c0 += per) {
			size_t c1 = c0 + per < g.ncols ? c0 + per : g.ncols;
			if (c0)
				fputc('\n', f); /* the next group of states */
			fprintf(f, "%-*s", (int)lw, "");
			for (size_t c = c0; c < c1; c++) {
				const char *name = a->states[a->order[c]].name;
				if (c == bp) {
					char h[256];
					snprintf(h, sizeof(h), "%s (base)", name);
					fprintf(f, "%*s", (int)cw, h);
				} else {
					fprintf(f, "%*s", (int)cw, name);
				}
			}
			fputc('\n', f);
			for (size_t r = 0; r < b->n; r++) {
				struct an_buf line = {NULL, 0, 0};
				an_buf_printf(&line, "%-*s", (int)lw, b->rows[r].label);
				for (size_t c = c0; c < c1; c++)
					an_buf_printf(&line, "%*s", (int)cw, b->rows[r].cells[c]);
				while (line.len && line.s[line.len - 1] == ' ')
					line.len--;
				fprintf(f, "%.*s\n", (int)line.len, line.s);
				an_buf_free(&line);
			}
		}
	}
	fputc('\n', f);
	fputs(legend, f);
	if (has_per_second(a))
		fputs(legend_sec, f);
	for (size_t i = 0; i < a->notes.n; i++)
		fprintf(f, "note: %s\n", a->notes.items[i]);
	grid_free(&g);
}

/* Text in a cell or heading: a line break would end the table row. */
static void md_cell(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			fputc(' ', f);
			continue;
		}
		if (*p == '|' || *p == '*' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
}

void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o)
{
	struct grid g;
	memset(&g, 0, sizeof(g));
	build_grid(&g, a, o);
	print_header(f, a, true);
	size_t bp = base_pos(a);
	for (size_t bi = 0; bi < g.n; bi++) {
		const struct block *b = &g.blocks[bi];
		fputs("\n### ", f);
		md_cell(f, b->title);
		fputs("\n\n|", f);
		for (size_t c = 0; c < g.ncols; c++) {
			fputs(" | ", f);
			md_cell(f, a->states[a->order[c]].name);
			if (c == bp)
				fputs(" (base)", f);
		}
		fputs(" |\n|---|", f);
		for (size_t c = 0; c < g.ncols; c++)
			fputs("---:|", f);
		fputc('\n', f);
		const char *parent = "";
		size_t parent_len = 0;
		for (size_t r = 0; r < b->n; r++) {
			fputs("| ", f);
			const char *label = b->rows[r].label;
			if (label[0] != ' ') {
				/* Sub-rows repeat their parent's name: Markdown has no indent. */
				parent = label;
				parent_len = strlen(label);
				if (parent_len > 7 &&
				    strcmp(label + parent_len - 7, " median") == 0)
					parent_len -= 7;
			} else {
				while (*label == ' ')
					label++;
				char *pl = an_strndup(parent, parent_len);
				md_cell(f, pl);
				free(pl);
				fputc(' ', f);
			}
			md_cell(f, label);
			for (size_t c = 0; c < g.ncols; c++) {
				fputs(" | ", f);
				md_cell(f, b->rows[r].cells[c]);
			}
			fputs(" |\n", f);
		}
	}
	fputc('\n', f);
	paragraph(f, legend);
	if (has_per_second(a)) {
		fputc('\n', f);
		paragraph(f, legend_sec);
	}
	for (size_t i = 0; i < a->notes.n; i++)
		fprintf(f, "\n- note: %s", a->notes.items[i]);
	if (a->notes.n)
		fputc('\n', f);
	grid_free(&g);
}

/* ---- CSV ------------------------------------------------------------------- */

struct csv_out {
	FILE *f;
	const struct an_csv *c;
	struct an_buf line;
	bool first;
};

static void col(struct csv_out *o)
{
	if (!o->first)
		an_buf_putc(&o->line, o->c->sep);
	o->first = false;
}

static void c_str(struct csv_out *o, const char *s)
{
	col(o);
	if (s)
		an_csv_field(&o->line, o->c, s);
}

static void c_num(struct csv_out *o, double v, int decimals)
{
	col(o);
	an_csv_number(&o->line, o->c, v, decimals);
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
	an_buf_puts(&o->line, "\r\n");
	fwrite(o->line.s, 1, o->line.len, o->f);
	o->line.len = 0;
	o->first = true;
}

static void c_header(struct csv_out *o, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		c_str(o, names[i]);
	c_end(o);
}

/* Per-second values keep 3 decimals, like the other values. */
#define DEC_VALUE 3
#define DEC_PCT	  1
#define DEC_P	  6

static void csv_summary(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"state",
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
					   "round1_change_pct",
					   "rest_n",
					   "rest_median",
					   "rest_change_pct",
					   "downtime_s",
					   "transition_s",
					   NULL};
	c_header(o, head);
	size_t bp = base_pos(a);
	for (size_t t = 0; t < a->n_tests; t++) {
		for (size_t i = 0; i < a->n_series; i++) {
			const struct an_series *s = &a->series[i];
			if (s->test != t)
				continue;
			for (size_t k = 0; k < a->n_order; k++) {
				const struct an_cell *c = &s->cells[k];
				const struct an_state *st = &a->states[a->order[k]];
				bool is_base = k == bp;
				c_str(o, st->name);
				c_bool(o, true, is_base);
				c_str(o, a->tests[t]);
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
				c_num(o, s->cells[bp].sum.median, DEC_VALUE);
				c_num(o, c->change_pct, DEC_PCT);
				c_bool(o, !is_base && c->sum.n && s->cells[bp].sum.n, c->outside);
				c_num(o, c->have_mw ? c->mw.u : NAN, 1);
				c_num(o, c->have_mw ? c->mw.p : NAN, DEC_P);
				c_bool(o, c->have_mw, c->mw.exact);
				c_num(o, c->round1, DEC_VALUE);
				c_num(o, c->round1_change_pct, DEC_PCT);
				c_int(o, (long long)c->rest_n);
				c_num(o, c->rest_median, DEC_VALUE);
				c_num(o, c->rest_change_pct, DEC_PCT);
				double act_s, task_s;
				size_t n_act, n_task;
				action_sums(st, &act_s, &n_act, &task_s, &n_task);
				c_num(o, st->downtime_s, DEC_VALUE);
				c_num(o, act_s, DEC_VALUE);
				c_end(o);
			}
		}
	}
}

static void csv_rounds(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"state",	"test",	  "round", "job",   "job_index",
					   "direction", "metric", "unit",  "value", "change_pct",
					   "note",	"file",	  NULL};
	c_header(o, head);
	size_t bp = base_pos(a);
	for (size_t k = 0; k < a->n_order; k++) {
		for (size_t t = 0; t < a->n_tests; t++) {
			for (size_t i = 0; i < a->n_series; i++) {
				const struct an_series *s = &a->series[i];
				if (s->test != t)
					continue;
				const struct an_cell *c = &s->cells[k];
				double bmed = s->cells[bp].sum.median;
				const struct an_band *band =
				    s->metric == AN_M_RECOVERY
					? an_find_band(a, t, s->job_index, s->dir, s->log_type)
					: NULL;
				for (size_t v = 0; v < c->n; v++) {
					double val = c->values[v];
					c_str(o, a->states[a->order[k]].name);
					c_str(o, a->tests[t]);
					c_int(o, c->rounds[v]);
					c_str(o, s->job_name);
					c_int(o, (long long)s->job_index + 1);
					c_str(o, fc_ddir_name(s->dir));
					c_str(o, an_metric_name(s->metric));
					c_str(o, an_metric_unit(s->metric, s->log_type));
					c_num(o, val, DEC_VALUE);
					c_num(o, an_pct_change(val, bmed), DEC_PCT);
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
					c_end(o);
				}
			}
		}
	}
}

struct run_order {
	size_t run, pos, test;
	int round;
};

static int cmp_run_order(const void *x, const void *y)
{
	const struct run_order *p = x, *q = y;
	if (p->pos != q->pos)
		return p->pos < q->pos ? -1 : 1;
	if (p->test != q->test)
		return p->test < q->test ? -1 : 1;
	if (p->round != q->round)
		return p->round < q->round ? -1 : 1;
	return (p->run > q->run) - (p->run < q->run);
}

/* Accepted runs by display state, test, round. */
static size_t runs_in_order(const struct an_analysis *a, struct run_order **out)
{
	struct run_order *ro = an_calloc(a->n_runs ? a->n_runs : 1, sizeof(*ro));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		size_t pos = 0;
		for (size_t k = 0; k < a->n_order; k++) {
			if (a->order[k] == r->state)
				pos = k;
		}
		ro[n++] = (struct run_order){i, pos, r->test, r->id.round};
	}
	qsort(ro, n, sizeof(*ro), cmp_run_order);
	*out = ro;
	return n;
}

static void csv_profile(struct csv_out *o, const struct an_analysis *a)
{
	static const char *const head[] = {"state",	"test",	     "round", "job",
					   "job_index", "direction", "log",   "unit",
					   "time_s",	"value",     "file",  NULL};
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
					c_str(o, a->states[r->state].name);
					c_str(o, a->tests[r->test]);
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
	static const char *const head[] = {
	    "state",  "baseline",   "downtime_s",	 "action_index", "action",	    "text",
	    "status", "duration_s", "action_downtime_s", "task",	 "task_duration_s", NULL};
	c_header(o, head);
	size_t bp = base_pos(a);
	for (size_t k = 0; k < a->n_order; k++) {
		const struct an_state *s = &a->states[a->order[k]];
		size_t rows = s->n_actions ? s->n_actions : 1;
		for (size_t i = 0; i < rows; i++) {
			c_str(o, s->name);
			c_bool(o, true, k == bp);
			c_num(o, s->downtime_s, DEC_VALUE);
			if (!s->n_actions) {
				for (int e = 0; e < 8; e++)
					c_str(o, "");
				c_end(o);
				continue;
			}
			const struct an_action *ac = &s->actions[i];
			c_int(o, (long long)i + 1);
			c_str(o, ac->action);
			c_str(o, ac->text);
			c_str(o, ac->status);
			c_num(o, ac->duration_s, DEC_VALUE);
			c_num(o, ac->downtime_s, DEC_VALUE);
			c_str(o, ac->task_name);
			c_num(o, ac->task_duration_s, DEC_VALUE);
			c_end(o);
		}
	}
}

void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *opts)
{
	struct csv_out o = {f, &opts->csv, {NULL, 0, 0}, true};
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
	}
	an_buf_free(&o.line);
}

/* ---- JSON ------------------------------------------------------------------ */

struct json_out {
	FILE *f;
	struct an_buf b;
	bool comma;
};

static void j_raw(struct json_out *j, const char *s)
{
	an_buf_puts(&j->b, s);
	if (j->b.len > 65536) {
		fwrite(j->b.s, 1, j->b.len, j->f);
		j->b.len = 0;
	}
}

static void j_sep(struct json_out *j)
{
	if (j->comma)
		an_buf_putc(&j->b, ',');
	j->comma = true;
}

static void j_string(struct json_out *j, const char *s)
{
	if (!s) {
		j_raw(j, "null");
		return;
	}
	an_buf_putc(&j->b, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			an_buf_putc(&j->b, '\\');
			an_buf_putc(&j->b, (char)*p);
		} else if (*p < 0x20) {
			an_buf_printf(&j->b, "\\u%04x", *p);
		} else {
			an_buf_putc(&j->b, (char)*p);
		}
	}
	an_buf_putc(&j->b, '"');
}

static void j_key(struct json_out *j, const char *k)
{
	j_sep(j);
	j_string(j, k);
	an_buf_putc(&j->b, ':');
	j->comma = false;
}

static void j_open(struct json_out *j, char c)
{
	an_buf_putc(&j->b, c);
	j->comma = false;
}

static void j_close(struct json_out *j, char c)
{
	an_buf_putc(&j->b, c);
	j->comma = true;
}

static void j_num(struct json_out *j, double v)
{
	if (!isfinite(v)) {
		j_raw(j, "null");
	} else {
		char buf[64];
		snprintf(buf, sizeof(buf), "%.15g", v);
		j_raw(j, buf);
	}
	j->comma = true;
}

static void jk_str(struct json_out *j, const char *k, const char *v)
{
	j_key(j, k);
	j_string(j, v);
	j->comma = true;
}

static void jk_num(struct json_out *j, const char *k, double v)
{
	j_key(j, k);
	j_num(j, v);
}

static void jk_int(struct json_out *j, const char *k, long long v)
{
	j_key(j, k);
	an_buf_printf(&j->b, "%lld", v);
	j->comma = true;
}

static void jk_bool(struct json_out *j, const char *k, bool v)
{
	j_key(j, k);
	j_raw(j, v ? "true" : "false");
	j->comma = true;
}

static void json_cell(struct json_out *j, const struct an_analysis *a, const struct an_series *s,
		      size_t k, bool is_base)
{
	const struct an_cell *c = &s->cells[k];
	j_sep(j);
	j_open(j, '{');
	jk_str(j, "state", a->states[a->order[k]].name);
	jk_int(j, "n", (long long)c->sum.n);
	jk_num(j, "median", c->sum.median);
	jk_num(j, "min", c->sum.min);
	jk_num(j, "max", c->sum.max);
	jk_num(j, "q1", c->sum.q1);
	jk_num(j, "q3", c->sum.q3);
	jk_num(j, "iqr", c->sum.iqr);
	jk_num(j, "mad", c->sum.mad);
	jk_num(j, "mean", c->sum.mean);
	if (!is_base) {
		jk_num(j, "change_pct", c->change_pct);
		jk_bool(j, "outside_baseline_range", c->outside);
		j_key(j, "mann_whitney");
		if (c->have_mw) {
			j_open(j, '{');
			jk_num(j, "u", c->mw.u);
			jk_num(j, "p", c->mw.p);
			jk_bool(j, "exact", c->mw.exact);
			jk_bool(j, "ties", c->mw.ties);
			j_close(j, '}');
		} else {
			j_raw(j, "null");
			j->comma = true;
		}
	}
	jk_num(j, "round1", c->round1);
	jk_num(j, "round1_change_pct", c->round1_change_pct);
	jk_int(j, "rest_n", (long long)c->rest_n);
	jk_num(j, "rest_median", c->rest_median);
	jk_num(j, "rest_change_pct", c->rest_change_pct);
	j_key(j, "rounds");
	j_open(j, '[');
	for (size_t v = 0; v < c->n; v++) {
		j_sep(j);
		j_open(j, '{');
		jk_int(j, "round", c->rounds[v]);
		jk_num(j, "value", c->values[v]);
		jk_str(j, "file", a->runs[c->runs[v]].path);
		j_close(j, '}');
	}
	j_close(j, ']');
	j_close(j, '}');
}

void an_write_json(FILE *f, const struct an_analysis *a)
{
	struct json_out jo = {f, {NULL, 0, 0}, false};
	struct json_out *j = &jo;
	size_t bp = base_pos(a);
	j_open(j, '{');
	jk_str(j, "format", "fiocamp-analysis");
	jk_int(j, "version", 1);
	jk_str(j, "campaign", a->campaign);
	jk_str(j, "manifest", a->manifest);
	jk_str(j, "fio_version", a->fio_version);
	jk_str(j, "baseline", a->states[a->baseline].name);

	j_key(j, "states");
	j_open(j, '[');
	for (size_t k = 0; k < a->n_order; k++) {
		const struct an_state *s = &a->states[a->order[k]];
		j_sep(j);
		j_open(j, '{');
		jk_str(j, "name", s->name);
		jk_bool(j, "baseline", k == bp);
		jk_int(j, "runs", (long long)s->n_runs);
		jk_str(j, "status", s->status);
		jk_num(j, "downtime_s", s->downtime_s);
		j_key(j, "actions");
		j_open(j, '[');
		for (size_t i = 0; i < s->n_actions; i++) {
			const struct an_action *ac = &s->actions[i];
			j_sep(j);
			j_open(j, '{');
			jk_str(j, "action", ac->action);
			jk_str(j, "text", ac->text);
			jk_str(j, "status", ac->status);
			jk_num(j, "duration_s", ac->duration_s);
			jk_num(j, "downtime_s", ac->downtime_s);
			jk_str(j, "task", ac->task_name);
			jk_num(j, "task_duration_s", ac->task_duration_s);
			j_close(j, '}');
		}
		j_close(j, ']');
		j_close(j, '}');
	}
	j_close(j, ']');

	j_key(j, "tests");
	j_open(j, '[');
	for (size_t t = 0; t < a->n_tests; t++) {
		j_sep(j);
		j_string(j, a->tests[t]);
	}
	j_close(j, ']');

	j_key(j, "runs");
	j_open(j, '[');
	struct run_order *runs;
	size_t n_runs = runs_in_order(a, &runs);
	for (size_t q = 0; q < n_runs; q++) {
		const struct an_run *r = &a->runs[runs[q].run];
		j_sep(j);
		j_open(j, '{');
		jk_str(j, "state", a->states[r->state].name);
		jk_int(j, "round", r->id.round);
		jk_str(j, "test", a->tests[r->test]);
		jk_str(j, "file", r->path);
		jk_str(j, "fio_version", r->fio_version);
		jk_num(j, "timestamp_ms", r->timestamp_ms >= 0 ? (double)r->timestamp_ms : NAN);
		jk_num(j, "runtime_s", (double)r->runtime_ms / 1000.0);
		j_key(j, "logs");
		j_open(j, '[');
		for (size_t k = 0; k < r->n_logs; k++) {
			j_sep(j);
			j_string(j, r->logs[k].path);
		}
		j_close(j, ']');
		j_close(j, '}');
	}
	free(runs);
	j_close(j, ']');

	j_key(j, "series");
	j_open(j, '[');
	for (size_t i = 0; i < a->n_series; i++) {
		const struct an_series *s = &a->series[i];
		j_sep(j);
		j_open(j, '{');
		jk_str(j, "test", a->tests[s->test]);
		jk_str(j, "job", s->job_name);
		jk_int(j, "job_index", (long long)s->job_index + 1);
		jk_str(j, "direction", fc_ddir_name(s->dir));
		jk_str(j, "metric", an_metric_name(s->metric));
		jk_str(j, "unit", an_metric_unit(s->metric, s->log_type));
		if (s->metric >= AN_M_FIRST_LOG)
			jk_str(j, "log", fc_log_type_name(s->log_type));
		j_key(j, "states");
		j_open(j, '[');
		for (size_t k = 0; k < a->n_order; k++)
			json_cell(j, a, s, k, k == bp);
		j_close(j, ']');
		j_close(j, '}');
	}
	j_close(j, ']');

	j_key(j, "bands");
	j_open(j, '[');
	for (size_t i = 0; i < a->n_bands; i++) {
		const struct an_band *b = &a->bands[i];
		j_sep(j);
		j_open(j, '{');
		jk_str(j, "test", a->tests[b->test]);
		jk_int(j, "job_index", (long long)b->job_index + 1);
		jk_str(j, "direction", fc_ddir_name(b->dir));
		jk_str(j, "log", fc_log_type_name(b->log_type));
		jk_str(j, "unit", an_metric_unit(AN_M_SEC_FIRST, b->log_type));
		jk_int(j, "n", (long long)b->n);
		jk_num(j, "p10", b->low);
		jk_num(j, "p90", b->high);
		j_close(j, '}');
	}
	j_close(j, ']');

	j_key(j, "profiles");
	j_open(j, '[');
	struct run_order *ro;
	size_t n = runs_in_order(a, &ro);
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[ro[q].run];
		for (size_t jb = 0; jb < r->n_jobs; jb++) {
			for (int d = 0; d < 3; d++) {
				const struct an_dirvals *dv = &r->jobs[jb].dir[d];
				if (!dv->sec.n)
					continue;
				j_sep(j);
				j_open(j, '{');
				jk_str(j, "state", a->states[r->state].name);
				jk_str(j, "test", a->tests[r->test]);
				jk_int(j, "round", r->id.round);
				jk_str(j, "job", r->jobs[jb].name);
				jk_int(j, "job_index", (long long)jb + 1);
				jk_str(j, "direction", fc_ddir_name((enum fc_ddir)d));
				jk_str(j, "log", fc_log_type_name(dv->log_type));
				jk_str(j, "unit", an_metric_unit(AN_M_SEC_FIRST, dv->log_type));
				jk_str(j, "file", r->logs[dv->log].path);
				jk_num(j, "first", dv->v[AN_M_SEC_FIRST]);
				jk_num(j, "min", dv->v[AN_M_SEC_MIN]);
				jk_num(j, "max", dv->v[AN_M_SEC_MAX]);
				jk_num(j, "last", dv->v[AN_M_SEC_LAST]);
				jk_num(j, "recovery_s", dv->v[AN_M_RECOVERY]);
				jk_num(j, "interval_s", (double)dv->sec.interval_ms / 1000.0);
				jk_num(j, "start_s", (double)dv->sec.start_ms / 1000.0);
				j_key(j, "values");
				j_open(j, '[');
				for (size_t p = 0; p < dv->sec.n; p++) {
					j_sep(j);
					j_num(j, dv->sec.values[p]);
				}
				j_close(j, ']');
				j_close(j, '}');
			}
		}
	}
	free(ro);
	j_close(j, ']');

	j_key(j, "rejected");
	j_open(j, '[');
	for (size_t i = 0; i < a->n_rejected; i++) {
		j_sep(j);
		j_open(j, '{');
		jk_str(j, "file", a->rejected[i].path);
		jk_str(j, "reason", a->rejected[i].reason);
		j_close(j, '}');
	}
	j_close(j, ']');

	j_key(j, "notes");
	j_open(j, '[');
	for (size_t i = 0; i < a->notes.n; i++) {
		j_sep(j);
		j_string(j, a->notes.items[i]);
	}
	j_close(j, ']');
	j_close(j, '}');
	an_buf_putc(&j->b, '\n');
	fwrite(j->b.s, 1, j->b.len, f);
	an_buf_free(&j->b);
}
