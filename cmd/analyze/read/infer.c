/* SPDX-License-Identifier: MIT */
/*
 * The default inference: state, round and test of the runs whose source
 * said nothing, from their paths, read together with their reports.
 * Content first, names second: the words of a name (and the directories)
 * that say the run's workload (qd8 beside iodepth=8, randread, 4k,
 * iodepth-8/) or its job name are the test; a round is a number standing
 * alone or after a round word (names.c); the rest is the state, and the
 * directories that say no workload are the variants (identify.c).  One
 * note per reading shape says how, with the --pattern that reads so.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/read.h"

/* The state of runs whose names say none. */
#define DEFAULT_STATE "all"
/* Reading shapes noted one by one; more are counted. */
#define SHAPES_NOTED 6

struct guess {
	struct an_run *r;
	struct an_name nm;
	char *group;	  /* the directories that say no workload */
	char *test_dirs;  /* those that do, joined by '/'; NULL */
	char *dir_kinds;  /* each directory: 'g' group, 't' test */
	size_t n_test;	  /* test words of the base name */
	bool job_in_name; /* the test words hold the job name or the rw mode */
	bool glued;	  /* the round is glued to the state's last word (basis1) */
	char *weak;	  /* no test word: the last word, a test maybe */
	bool weak_digit;  /* the word before it ends in a digit */
	char *state;
	int round;
	char *test;
	char *shape; /* the --pattern of this reading */
	char *said;  /* the workload words and what they say ("qd8 iodepth=8") */
};

static bool all_digits(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
	}
	return true;
}

/* The indices of the words of a role, in order; caller frees. */
static size_t words_of(const struct an_name *n, enum an_word_role role, size_t **out)
{
	size_t *idx = cm_calloc(n->n_words ? n->n_words : 1, sizeof(*idx));
	size_t k = 0;
	for (size_t i = 0; i < n->n_words; i++) {
		if (n->words[i].role == role)
			idx[k++] = i;
	}
	*out = idx;
	return k;
}

static void say(struct cm_buf *b, const char *w, size_t n, enum an_wl_word kind)
{
	if (b->len)
		cm_buf_puts(b, ", ");
	cm_buf_printf(b, "%.*s (%s)", (int)n, w, an_wl_word_option(kind));
}

/* Whether all words of a directory's name say the workload. */
static bool workload_dir(const char *key, const char *s, size_t n, struct cm_buf *said, bool *rw)
{
	struct an_name d;
	char *name = cm_strndup(s, n);
	an_name_parse(name, &d);
	free(name);
	bool all = d.n_words > 0;
	for (size_t i = 0; i < d.n_words && all; i++) {
		const struct an_word *w = &d.words[i];
		const struct an_word *nx = i + 1 < d.n_words ? &d.words[i + 1] : NULL;
		enum an_wl_word kind;
		size_t took = an_wl_word(key, d.base + w->off, w->len, nx ? d.base + nx->off : NULL,
					 nx ? nx->len : 0, &kind);
		if (took == 0) {
			all = false;
			break;
		}
		say(said, d.base + w->off, took == 2 ? nx->off + nx->len - w->off : w->len, kind);
		*rw |= kind == AN_WW_RW;
		i += took - 1;
	}
	an_name_free(&d);
	return all;
}

/* The directories of the run below its input: workload ones to the test,
 * the others to the group. */
static void read_dirs(struct guess *g, const char *rel, struct cm_buf *said)
{
	struct cm_buf group = {NULL, 0, 0}, test = {NULL, 0, 0}, kinds = {NULL, 0, 0};
	cm_buf_puts(&group, "");
	cm_buf_puts(&kinds, "");
	for (const char *p = rel;;) {
		const char *slash = strchr(p, '/');
		if (!slash)
			break;
		size_t n = (size_t)(slash - p);
		struct cm_buf s = {NULL, 0, 0};
		if (n && workload_dir(g->r->workload, p, n, &s, &g->job_in_name)) {
			cm_buf_printf(&test, "%s%.*s", test.len ? "/" : "", (int)n, p);
			cm_buf_putc(&kinds, 't');
			if (s.len)
				cm_buf_printf(said, "%s%s", said->len ? ", " : "", s.s);
		} else {
			cm_buf_printf(&group, "%s%.*s", group.len ? "/" : "", (int)n, p);
			cm_buf_putc(&kinds, 'g');
		}
		cm_buf_release(&s);
		p = slash + 1;
	}
	g->group = cm_strdup(group.s);
	g->test_dirs = test.len ? cm_strdup(test.s) : NULL;
	g->dir_kinds = cm_strdup(kinds.s);
	cm_buf_release(&kinds);
	cm_buf_release(&group);
	cm_buf_release(&test);
}

/* Marks the words spelling `name` (case aside) as the test. */
static bool mark_job_name(struct an_name *nm, const char *name)
{
	size_t len = name ? strlen(name) : 0;
	if (len == 0)
		return false;
	for (size_t i = 0; i < nm->n_words; i++) {
		if (nm->words[i].role != AN_W_STEM)
			continue;
		const char *s = nm->base + nm->words[i].off;
		if (strncasecmp(s, name, len) != 0)
			continue;
		size_t end = nm->words[i].off + len;
		for (size_t k = i; k < nm->n_words && nm->words[k].role == AN_W_STEM; k++) {
			if (nm->words[k].off + nm->words[k].len > end)
				break;
			if (nm->words[k].off + nm->words[k].len == end) {
				for (size_t m = i; m <= k; m++)
					nm->words[m].role = AN_W_TEST;
				return true;
			}
		}
	}
	return false;
}

/* The test words of the base name: the job name, the workload's words. */
static void mark_test(struct guess *g, struct cm_buf *said)
{
	const struct an_run *r = g->r;
	struct an_name *nm = &g->nm;
	/* read_dirs may have found the rw mode already */
	g->job_in_name |=
	    mark_job_name(nm, r->job_label) || (r->n_jobs && mark_job_name(nm, r->jobs[0].name));
	size_t *idx;
	size_t k = words_of(nm, AN_W_STEM, &idx);
	for (size_t j = 0; j < k; j++) {
		struct an_word *w = &nm->words[idx[j]];
		struct an_word *nx = j + 1 < k ? &nm->words[idx[j + 1]] : NULL;
		enum an_wl_word kind;
		size_t took = an_wl_word(r->workload, nm->base + w->off, w->len,
					 nx ? nm->base + nx->off : NULL, nx ? nx->len : 0, &kind);
		if (took == 0)
			continue;
		w->role = AN_W_TEST;
		if (took == 2)
			nx->role = AN_W_TEST;
		say(said, nm->base + w->off, took == 2 ? nx->off + nx->len - w->off : w->len, kind);
		g->job_in_name |= kind == AN_WW_RW;
		j += took - 1;
	}
	free(idx);
	for (size_t i = 0; i < nm->n_words; i++)
		g->n_test += nm->words[i].role == AN_W_TEST;
	if (g->n_test)
		return;
	k = words_of(nm, AN_W_STEM, &idx);
	if (k >= 2) {
		const struct an_word *w = &nm->words[idx[k - 1]], *p = &nm->words[idx[k - 2]];
		g->weak = cm_strndup(nm->base + w->off, w->len);
		g->weak_digit = isdigit((unsigned char)nm->base[p->off + p->len - 1]);
	}
	free(idx);
}

static int cmp_weak_word(const void *x, const void *y, void *ctx)
{
	struct guess *const *gs = ctx;
	const struct guess *a = gs[*(const size_t *)x], *b = gs[*(const size_t *)y];
	int c = strcmp(a->weak, b->weak);
	return c ? c : strcmp(a->r->workload, b->r->workload);
}

static int cmp_weak_key(const void *x, const void *y, void *ctx)
{
	struct guess *const *gs = ctx;
	const struct guess *a = gs[*(const size_t *)x], *b = gs[*(const size_t *)y];
	int c = strcmp(a->r->workload, b->r->workload);
	return c ? c : strcmp(a->weak, b->weak);
}

/*
 * Whether the last words of the names that hold no test word are their
 * test.  Yes when every one has such a word and either every word before
 * it ends in a round number (the STATE[-]ROUND-TEST convention,
 * basis1-rw4k), or those words and the workloads correspond one to one
 * over at least two names or two workloads (fresh-rw4k, old-rw4k).
 */
static bool weak_split_holds(struct guess **weak, size_t n)
{
	if (n == 0)
		return false;
	bool digits = true;
	for (size_t i = 0; i < n; i++) {
		if (!weak[i]->weak)
			return false;
		digits &= weak[i]->weak_digit;
	}
	if (digits)
		return true;
	size_t *idx = cm_calloc(n, sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	bool one_to_one = true;
	qsort_r(idx, n, sizeof(*idx), cmp_weak_word, weak);
	for (size_t i = 1; i < n && one_to_one; i++) {
		const struct guess *p = weak[idx[i - 1]], *q = weak[idx[i]];
		one_to_one =
		    strcmp(p->weak, q->weak) != 0 || strcmp(p->r->workload, q->r->workload) == 0;
	}
	size_t keys = 1;
	qsort_r(idx, n, sizeof(*idx), cmp_weak_key, weak);
	for (size_t i = 1; i < n && one_to_one; i++) {
		const struct guess *p = weak[idx[i - 1]], *q = weak[idx[i]];
		if (strcmp(p->r->workload, q->r->workload) != 0)
			keys++;
		else
			one_to_one = strcmp(p->weak, q->weak) == 0;
	}
	free(idx);
	if (!one_to_one)
		return false;
	bool two_names = false;
	for (size_t i = 1; i < n && !two_names; i++)
		two_names = strcmp(weak[i]->nm.stem, weak[0]->nm.stem) != 0;
	return two_names || keys >= 2;
}

/* The last stem word of a name without test words becomes its test. */
static void take_weak(struct guess *g)
{
	for (size_t i = g->nm.n_words; i-- > 0;) {
		if (g->nm.words[i].role == AN_W_STEM) {
			g->nm.words[i].role = AN_W_TEST;
			g->n_test = 1;
			g->job_in_name = true; /* the word is the test's name */
			return;
		}
	}
}

/*
 * Leading state words common to every name (results-before, results-after)
 * carry nothing: dropped when every name keeps a state word and at least
 * two different states remain.  Returns the words dropped.
 */
static size_t common_lead(struct guess *g, size_t n)
{
	if (n < 2)
		return 0;
	size_t **idx = cm_calloc(n, sizeof(*idx));
	size_t *k = cm_calloc(n, sizeof(*k));
	size_t common = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		k[i] = words_of(&g[i].nm, AN_W_STATE, &idx[i]);
		if (k[i] < common)
			common = k[i];
	}
	size_t lead = 0;
	while (lead + 1 <= common) {
		const struct an_word *w0 = &g[0].nm.words[idx[0][lead]];
		bool same = true;
		for (size_t i = 1; i < n && same; i++) {
			const struct an_word *w = &g[i].nm.words[idx[i][lead]];
			same = w->len == w0->len &&
			       memcmp(g[i].nm.base + w->off, g[0].nm.base + w0->off, w->len) == 0;
		}
		if (!same)
			break;
		lead++;
	}
	bool keeps = true;
	for (size_t i = 0; i < n && keeps; i++)
		keeps = k[i] > lead;
	if (!keeps && lead > 0) {
		lead--;
		keeps = true;
		for (size_t i = 0; i < n && keeps; i++)
			keeps = k[i] > lead;
	}
	bool two = false;
	char *s0 = an_name_join(&g[0].nm, AN_W_STATE);
	for (size_t i = 1; i < n && !two; i++) {
		char *si = an_name_join(&g[i].nm, AN_W_STATE);
		two = strcmp(si, s0) != 0;
		free(si);
	}
	free(s0);
	if (!keeps || !two)
		lead = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < lead; j++)
			g[i].nm.words[idx[i][j]].role = AN_W_COMMON;
		free(idx[i]);
	}
	free(idx);
	free(k);
	return lead;
}

/* State and round from the state words: a number standing alone as the
 * last (snap1-2: state snap1, round 2), else one glued to a state word of
 * two letters or more (basis1, the published convention). */
static void read_state(struct guess *g)
{
	struct an_name *nm = &g->nm;
	g->round = nm->round;
	size_t *idx;
	size_t k = words_of(nm, AN_W_STATE, &idx);
	if (g->round == 0 && k > 0) {
		struct an_word *w = &nm->words[idx[k - 1]];
		const char *s = nm->base + w->off;
		size_t letters = 0;
		while (letters < w->len && isalpha((unsigned char)s[letters]))
			letters++;
		size_t d = w->len - letters;
		if (all_digits(s, w->len) && w->len <= AN_ROUND_MAX_DIGITS) {
			g->round = atoi(s);
			w->role = AN_W_ROUND;
		} else if (letters >= 2 && d > 0 && d <= AN_ROUND_MAX_DIGITS &&
			   all_digits(s + letters, d) && !an_wl_option_word(s, letters) &&
			   atoi(s + letters) > 0) {
			g->round = atoi(s + letters);
			g->glued = true;
		}
	}
	free(idx);
	char *state = an_name_join(nm, AN_W_STATE);
	if (g->glued) {
		/* drop the trailing digits */
		size_t n = strlen(state);
		while (n > 0 && isdigit((unsigned char)state[n - 1]))
			n--;
		state[n] = '\0';
	}
	g->state = state[0] ? state : NULL;
	if (!g->state)
		free(state);
}

/* The test as the name spells it: its directories and words, with the job
 * name before them when they hold neither it nor the rw mode. */
static void read_test(struct guess *g)
{
	char *words = an_name_join(&g->nm, AN_W_TEST);
	if (!words[0] && !g->test_dirs) {
		free(words);
		return;
	}
	struct cm_buf b = {NULL, 0, 0};
	const char *job = g->r->job_label;
	if (!g->job_in_name && job && job[0])
		cm_buf_printf(&b, "%s ", job);
	if (g->test_dirs)
		cm_buf_printf(&b, "%s%s", g->test_dirs, words[0] ? "/" : "");
	cm_buf_puts(&b, words);
	g->test = cm_strdup(b.s);
	cm_buf_release(&b);
	free(words);
}

/* The --pattern that reads the base name so. */
static void base_shape(struct cm_buf *b, const struct guess *g)
{
	const struct an_name *nm = &g->nm;
	bool seen_test = false, seen_state = false;
	enum an_word_role prev = AN_W_STEM;
	for (size_t i = 0; i < nm->n_words; i++) {
		const struct an_word *w = &nm->words[i];
		const char *s = nm->base + w->off;
		enum an_word_role role = w->role;
		bool joins = i > 0 && role == prev &&
			     (role == AN_W_TEST || role == AN_W_STATE || role == AN_W_DATE);
		/* the separators before the word, as they are (_rep1, a__b) */
		size_t gap = i > 0 ? nm->words[i - 1].off + nm->words[i - 1].len : 0;
		if (!joins)
			cm_buf_printf(b, "%.*s", (int)(w->off - gap), nm->base + gap);
		if (joins)
			continue;
		prev = role;
		switch (role) {
		case AN_W_TEST:
			cm_buf_puts(b, seen_test ? "*" : "{test}");
			seen_test = true;
			break;
		case AN_W_STATE:
			cm_buf_puts(b, seen_state ? "*" : "{state}");
			if (g->glued && !seen_state)
				cm_buf_puts(b, "{round}");
			seen_state = true;
			break;
		case AN_W_DATE:
			cm_buf_putc(b, '*');
			break;
		case AN_W_ROUND:
			cm_buf_puts(b, "{round}");
			break;
		case AN_W_ROUND_GLUED: {
			size_t l = 0;
			while (l < w->len && isalpha((unsigned char)s[l]))
				l++;
			cm_buf_printf(b, "%.*s{round}", (int)l, s);
			break;
		}
		case AN_W_COMMON:
		case AN_W_ROUND_WORD:
		case AN_W_STEM:
			cm_buf_printf(b, "%.*s", (int)w->len, s);
			break;
		}
	}
	if (nm->n_words) {
		const struct an_word *last = &nm->words[nm->n_words - 1];
		cm_buf_puts(b, nm->base + last->off + last->len);
	} else {
		cm_buf_puts(b, nm->base);
	}
}

/* The extension of the run's file ("" if none): no part of a pattern's
 * match, so the same shape covers runs saved as .json, .txt or .terse. */
static const char *extension(const struct an_run *r)
{
	const char *base = an_base_name(r->path);
	const char *dot = strrchr(base, '.');
	return dot && strlen(base) > strlen(an_base_name(r->key)) ? dot : "";
}

/* The pattern: the directories from the first that says something (the
 * variant's last, a test's), then the base name's. */
static void make_shape(struct guess *g, bool variants)
{
	struct cm_buf b = {NULL, 0, 0};
	cm_buf_puts(&b, "");
	const char *k = g->dir_kinds ? g->dir_kinds : "";
	const char *last_g = strrchr(k, 'g');
	const char *from = strchr(k, 't');
	if (variants && last_g && (!from || last_g < from))
		from = last_g;
	for (const char *p = from; p && *p; p++)
		cm_buf_puts(&b, p == last_g && variants ? "{variant}/" : "*/");
	base_shape(&b, g);
	g->shape = cm_strdup(b.s);
	cm_buf_release(&b);
}

static int cmp_shape(const void *x, const void *y, void *ctx)
{
	const struct guess *g = ctx;
	const struct guess *a = &g[*(const size_t *)x], *b = &g[*(const size_t *)y];
	int c = strcmp(a->shape, b->shape);
	return c ? c : (a > b) - (a < b);
}

/* One note for the runs [from, to) of idx, which share a reading shape. */
static void note_shape(struct an_analysis *a, size_t in, struct guess *g, const size_t *idx,
		       size_t from, size_t to, bool variants)
{
	const struct guess *q = &g[idx[from]];
	const struct an_run *r = q->r;
	size_t dated = 0, common = 0;
	for (size_t k = from; k < to; k++) {
		dated += g[idx[k]].nm.date != NULL;
		for (size_t i = 0; i < g[idx[k]].nm.n_words; i++)
			common += g[idx[k]].nm.words[i].role == AN_W_COMMON && k == from;
	}
	struct cm_buf b = {NULL, 0, 0};
	/* names, not runs: a file of bonnie++ rows is one name */
	size_t n = 0;
	for (size_t k = from; k < to; k++)
		n += k == from || strcmp(g[idx[k]].r->path, g[idx[k - 1]].r->path) != 0;
	cm_buf_printf(&b, "%s: %zu name%s read as --pattern '%s%s', e.g. %s:", a->inputs[in].arg, n,
		      n == 1 ? "" : "s", q->shape, extension(r),
		      an_path_below(a->inputs[in].root, r->path));
	if (variants)
		cm_buf_printf(&b, " variant %s,", q->group[0] ? q->group : "(top)");
	cm_buf_printf(&b, " state %s", r->id.state ? r->id.state : DEFAULT_STATE);
	if (r->id.round)
		cm_buf_printf(&b, ", round %d", r->id.round);
	else if (r->bonnie_test >= 0)
		cm_buf_puts(&b, ", rounds in the order of the rows");
	else
		cm_buf_puts(&b, ", rounds by fio's timestamp");
	if (r->bonnie_test >= 0)
		cm_buf_puts(&b, ", the tests of its bonnie++ rows");
	else if (r->id.test)
		cm_buf_printf(&b, ", test %s", r->id.test);
	else
		cm_buf_printf(&b, ", test %s (fio's job name: the name holds none)", r->job_label);
	if (q->said && q->said[0])
		cm_buf_printf(&b, "; %s say%s the workload", q->said,
			      strchr(q->said, ',') ? "" : "s");
	if (dated)
		cm_buf_printf(&b, "; the date %s%s is no part of it", q->nm.date,
			      dated > 1 ? " (and those of the others)" : "");
	if (common) {
		char *c = an_name_join(&q->nm, AN_W_COMMON);
		cm_buf_printf(&b, "; \"%s\" common to every name is dropped", c);
		free(c);
	}
	an_note(a, "%s", b.s);
	cm_buf_release(&b);
}

static void note_shapes(struct an_analysis *a, size_t in, struct guess *g, size_t n, bool variants)
{
	size_t *idx = cm_calloc(n, sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_shape, g);
	size_t shapes = 0, more = 0, more_runs = 0;
	for (size_t from = 0; from < n;) {
		size_t to = from + 1;
		while (to < n && strcmp(g[idx[to]].shape, g[idx[from]].shape) == 0)
			to++;
		if (shapes++ < SHAPES_NOTED) {
			note_shape(a, in, g, idx, from, to, variants);
		} else {
			more++;
			more_runs += to - from;
		}
		from = to;
	}
	if (more)
		an_note(a, "%s: %zu more reading shapes (%zu names): --explain lists every name's",
			a->inputs[in].arg, more, more_runs);
	free(idx);
}

static void guess_free(struct guess *g)
{
	an_name_free(&g->nm);
	free(g->group);
	free(g->test_dirs);
	free(g->dir_kinds);
	free(g->weak);
	free(g->state);
	free(g->test);
	free(g->shape);
	free(g->said);
}

static int cmp_group(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Whether the runs lie in several groups (directories of no workload). */
static bool several_groups(struct guess *g, size_t n)
{
	char **gs = cm_calloc(n, sizeof(*gs));
	for (size_t i = 0; i < n; i++)
		gs[i] = g[i].group;
	qsort(gs, n, sizeof(*gs), cmp_group);
	bool several = false;
	for (size_t i = 1; i < n && !several; i++)
		several = strcmp(gs[i], gs[0]) != 0;
	free(gs);
	return several;
}

/*
 * Leading directories common to every run's group (results/ of
 * results/host-a, results/host-b) carry nothing: dropped, so that the
 * variants are host-a and host-b, as {variant}/ reads them.  Only when
 * every run of the input is read by its name (other sources keep their
 * groups, which must stay comparable).
 */
static void drop_common_dirs(const struct an_analysis *a, size_t in, struct guess *g, size_t n)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->accepted && r->input == in &&
		    (r->source != AN_ID_NAME || r->bonnie_test >= 0))
			return;
	}
	size_t common = strlen(g[0].group);
	for (size_t i = 1; i < n && common; i++) {
		size_t k = 0;
		while (k < common && g[i].group[k] == g[0].group[k])
			k++;
		common = k;
	}
	/* back to a whole directory that every group has beyond it */
	for (;;) {
		while (common > 0 && g[0].group[common] != '/')
			common--;
		if (common == 0)
			return;
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++)
			ok = g[i].group[common] == '/';
		if (ok)
			break;
		common--;
	}
	for (size_t i = 0; i < n; i++)
		memmove(g[i].group, g[i].group + common + 1, strlen(g[i].group + common + 1) + 1);
}

/* The names of one input's runs that nothing else identified. */
static void infer_input(struct an_analysis *a, size_t in)
{
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		n += r->accepted && r->input == in && r->source == AN_ID_NAME;
	}
	if (n == 0)
		return;
	struct guess *g = cm_calloc(n, sizeof(*g));
	struct guess **weak = cm_calloc(n, sizeof(*weak));
	size_t k = 0, nw = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!(r->accepted && r->input == in && r->source == AN_ID_NAME))
			continue;
		struct guess *q = &g[k++];
		q->r = r;
		an_name_parse(an_base_name(r->key), &q->nm);
		struct cm_buf said = {NULL, 0, 0};
		cm_buf_puts(&said, "");
		if (r->bonnie_test >= 0) {
			/* a file of bonnie++ rows holds every test */
			q->group = cm_strdup(r->group ? r->group : "");
		} else {
			read_dirs(q, an_path_below(a->inputs[in].root, r->key), &said);
			mark_test(q, &said);
			if (!q->n_test && !q->test_dirs)
				weak[nw++] = q;
		}
		q->said = cm_strdup(said.s);
		cm_buf_release(&said);
	}
	drop_common_dirs(a, in, g, n);
	if (weak_split_holds(weak, nw)) {
		for (size_t i = 0; i < nw; i++)
			take_weak(weak[i]);
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t w = 0; w < g[i].nm.n_words; w++) {
			if (g[i].nm.words[w].role == AN_W_STEM)
				g[i].nm.words[w].role = AN_W_STATE;
		}
	}
	common_lead(g, n);
	bool variants = several_groups(g, n);
	for (size_t i = 0; i < n; i++) {
		struct guess *q = &g[i];
		struct an_run *r = q->r;
		read_state(q);
		if (r->bonnie_test < 0)
			read_test(q);
		an_ident_free(&r->id);
		r->id.state = q->state;
		q->state = NULL;
		r->id.round = q->round;
		r->id.test = q->test;
		q->test = NULL;
		free(r->group);
		r->group = cm_strdup(q->group);
		make_shape(q, variants);
		free(r->reading);
		r->reading = cm_asprintf("%s%s", q->shape, extension(r));
	}
	note_shapes(a, in, g, n, variants);
	for (size_t i = 0; i < n; i++)
		guess_free(&g[i]);
	free(g);
	free(weak);
}

/* The runs read by the campaign layout STATE/rN/TEST: their reading,
 * and a note per shape (r, run, round; .json, .txt). */
static void layout_input(struct an_analysis *a, size_t in)
{
	enum { SHAPES = 4 };
	const struct an_run *example[SHAPES] = {NULL};
	size_t count[SHAPES] = {0}, shapes = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		const char *three;
		if (!r->accepted || r->input != in || r->source != AN_ID_LAYOUT ||
		    !an_path_last(r->key, 3, &three))
			continue;
		const char *rd = strchr(three, '/') + 1;
		size_t letters = 0;
		while (isalpha((unsigned char)rd[letters]))
			letters++;
		free(r->reading);
		r->reading =
		    cm_asprintf("{state}/%.*s{round}/{test}%s", (int)letters, rd, extension(r));
		size_t k = 0;
		while (k < shapes && strcmp(example[k]->reading, r->reading) != 0)
			k++;
		if (k == shapes && shapes < SHAPES)
			example[shapes++] = r;
		if (k < shapes)
			count[k]++;
	}
	for (size_t k = 0; k < shapes; k++) {
		const struct an_run *r = example[k];
		an_note(
		    a,
		    "%s: %zu name%s read as the campaign layout, --pattern '%s', e.g. %s: state "
		    "%s, round %d, test %s",
		    a->inputs[in].arg, count[k], count[k] == 1 ? "" : "s", r->reading,
		    an_path_below(a->inputs[in].root, r->path), r->id.state, r->id.round,
		    r->id.test);
	}
}

void an_infer_names(struct an_analysis *a)
{
	for (size_t in = 0; in < a->n_inputs; in++) {
		infer_input(a, in);
		layout_input(a, in);
	}
}
