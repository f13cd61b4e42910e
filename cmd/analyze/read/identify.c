/* SPDX-License-Identifier: MIT */
/*
 * Who a run is, once its report is read: state, round and test from its
 * file name where nothing else said (with fio's job names to tell the test
 * in the name from the state), its variant (the input, and the directory
 * within it), and its test: runs of different workloads are never one
 * test, whatever their names say.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

/* The state of runs whose names say none. */
#define DEFAULT_STATE "all"

/* ---- the default inference from file names ------------------------------------ */

struct guess {
	struct an_run *r;
	struct an_name nm;
	/* What the name says, in nm.stem: the label (state and maybe round)
	 * and the test when the name holds one. */
	const char *label;
	size_t label_len;
	const char *test;
	size_t test_len;
	bool strong;  /* the test is a job name or the rw mode */
	bool bonnie;  /* a bonnie++ row: the name holds no test */
	size_t split; /* last separator of the stem; 0 if none */
	char *state;
	int round;
};

/* The rw mode of a run's first job, as a word to find in its name. */
static char *rw_word(const struct an_run *r)
{
	const char *v;
	size_t len;
	if (!an_wl_get(r->workload, 0, AN_WL_RW, &v, &len))
		return NULL;
	size_t n = 0;
	while (n < len && v[n] != ':')
		n++;
	return cm_strndup(v, n);
}

/* The test in the name: one of the job names (or all of them joined), or
 * the rw mode, as the whole stem or its first or last words. */
static void find_test(struct guess *g)
{
	const struct an_run *r = g->r;
	const char *stem = g->nm.stem;
	const char *rest;
	size_t rest_len;
	char *rw = rw_word(r);
	const char *cands[3] = {r->job_label, r->n_jobs ? r->jobs[0].name : NULL, rw};
	for (size_t i = 0; i < 3; i++) {
		const char *w = cands[i];
		if (!w || !w[0] || !an_name_affix(stem, w, &rest, &rest_len))
			continue;
		g->strong = true;
		g->label = rest;
		g->label_len = rest_len;
		/* the test as the name spells it */
		size_t wl = strlen(w);
		g->test = rest == stem ? stem + strlen(stem) - wl : stem;
		g->test_len = wl;
		break;
	}
	free(rw);
	if (g->strong)
		return;
	size_t n = strlen(stem);
	for (size_t i = n; i > 1; i--) {
		if (an_name_sep(stem[i - 1]) && i < n) {
			g->split = i - 1;
			break;
		}
	}
	g->label = stem;
	g->label_len = n;
}

static int cmp_str_key(const void *x, const void *y, void *ctx)
{
	const struct guess *const *gs = ctx;
	const struct guess *a = gs[*(const size_t *)x], *b = gs[*(const size_t *)y];
	const char *ta = a->nm.stem + a->split + 1, *tb = b->nm.stem + b->split + 1;
	int c = strcmp(ta, tb);
	return c ? c : strcmp(a->r->workload, b->r->workload);
}

static int cmp_key_str(const void *x, const void *y, void *ctx)
{
	const struct guess *const *gs = ctx;
	const struct guess *a = gs[*(const size_t *)x], *b = gs[*(const size_t *)y];
	int c = strcmp(a->r->workload, b->r->workload);
	if (c)
		return c;
	return strcmp(a->nm.stem + a->split + 1, b->nm.stem + b->split + 1);
}

/*
 * Whether the words after the last separator of the weak names (whose
 * test is no job name) are their test.  Yes when every one has such a
 * split and either every label before it ends in a round number (the
 * STATE[-]ROUND-TEST convention, basis1-rw4k), or those words and the
 * workloads correspond one to one over at least two labels or two
 * workloads (fresh-rw4k, old-rw4k: the same word for the same workload).
 */
static bool weak_split_holds(struct guess **weak, size_t n)
{
	if (n == 0)
		return false;
	bool digits = true;
	for (size_t i = 0; i < n; i++) {
		if (!weak[i]->split)
			return false;
		if (!isdigit((unsigned char)weak[i]->nm.stem[weak[i]->split - 1]))
			digits = false;
	}
	if (digits)
		return true;
	size_t *idx = cm_calloc(n, sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	bool one_to_one = true;
	/* each word one workload */
	qsort_r(idx, n, sizeof(*idx), cmp_str_key, weak);
	for (size_t i = 1; i < n && one_to_one; i++) {
		const struct guess *p = weak[idx[i - 1]], *q = weak[idx[i]];
		if (strcmp(p->nm.stem + p->split + 1, q->nm.stem + q->split + 1) == 0 &&
		    strcmp(p->r->workload, q->r->workload) != 0)
			one_to_one = false;
	}
	/* each workload one word */
	size_t keys = 1;
	qsort_r(idx, n, sizeof(*idx), cmp_key_str, weak);
	for (size_t i = 1; i < n && one_to_one; i++) {
		const struct guess *p = weak[idx[i - 1]], *q = weak[idx[i]];
		if (strcmp(p->r->workload, q->r->workload) != 0) {
			keys++;
			continue;
		}
		if (strcmp(p->nm.stem + p->split + 1, q->nm.stem + q->split + 1) != 0)
			one_to_one = false;
	}
	free(idx);
	if (!one_to_one)
		return false;
	bool two_labels = false;
	for (size_t i = 1; i < n && !two_labels; i++) {
		two_labels = weak[i]->split != weak[0]->split ||
			     strncmp(weak[i]->nm.stem, weak[0]->nm.stem, weak[0]->split) != 0;
	}
	return two_labels || keys >= 2;
}

/*
 * Leading words common to every label (results-before, results-after)
 * carry nothing: dropped when every label keeps a word and at least two
 * different labels remain.  Returns the length dropped (0 if none).
 */
static size_t common_lead(struct guess **gs, size_t n)
{
	if (n < 2)
		return 0;
	size_t common = gs[0]->label_len;
	for (size_t i = 0; i < n; i++) {
		if (gs[i]->label_len == 0)
			return 0;
		size_t k = 0;
		while (k < common && k < gs[i]->label_len && gs[i]->label[k] == gs[0]->label[k])
			k++;
		common = k;
	}
	/* back to a word boundary that holds in every label */
	for (;;) {
		while (common > 0 && !an_name_sep(gs[0]->label[common - 1]))
			common--;
		if (common == 0)
			return 0;
		bool ok = true;
		for (size_t i = 0; i < n && ok; i++)
			ok = gs[i]->label_len > common;
		if (ok)
			break;
		common--;
	}
	bool two = false;
	for (size_t i = 1; i < n && !two; i++) {
		two = gs[i]->label_len != gs[0]->label_len ||
		      memcmp(gs[i]->label, gs[0]->label, gs[0]->label_len) != 0;
	}
	return two ? common : 0;
}

static void label_to_state(struct guess *g)
{
	g->round = g->nm.round;
	if (g->label_len == 0)
		return;
	if (g->round == 0) {
		struct an_ident id;
		memset(&id, 0, sizeof(id));
		if (an_split_label(g->label, g->label_len, &id)) {
			g->state = id.state;
			g->round = id.round;
			return;
		}
		/* all digits: a round, no state */
		if (g->label_len <= 6)
			g->round = atoi(g->label);
		return;
	}
	g->state = cm_strndup(g->label, g->label_len);
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
	struct guess **gp = cm_calloc(n, sizeof(*gp));
	struct guess **weak = cm_calloc(n, sizeof(*weak));
	size_t k = 0, nw = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!(r->accepted && r->input == in && r->source == AN_ID_NAME))
			continue;
		g[k].r = r;
		an_name_parse(an_base_name(r->key), &g[k].nm);
		if (r->bonnie_test >= 0) {
			/* a file of bonnie++ rows holds every test */
			g[k].bonnie = g[k].strong = true;
			g[k].label = g[k].nm.stem;
			g[k].label_len = strlen(g[k].nm.stem);
		} else {
			find_test(&g[k]);
		}
		gp[k] = &g[k];
		if (!g[k].strong)
			weak[nw++] = &g[k];
		k++;
	}
	if (weak_split_holds(weak, nw)) {
		for (size_t i = 0; i < nw; i++) {
			struct guess *w = weak[i];
			w->label = w->nm.stem;
			w->label_len = w->split;
			w->test = w->nm.stem + w->split + 1;
			w->test_len = strlen(w->test);
		}
	}
	size_t lead = common_lead(gp, n);
	size_t dated = 0, from_job = 0;
	const char *date = NULL;
	for (size_t i = 0; i < n; i++) {
		struct guess *q = &g[i];
		if (lead) {
			q->label += lead;
			q->label_len -= lead;
		}
		label_to_state(q);
		struct an_run *r = q->r;
		an_ident_free(&r->id);
		r->id.state = q->state;
		q->state = NULL;
		r->id.round = q->round;
		if (q->test)
			r->id.test = cm_strndup(q->test, q->test_len);
		else if (!q->bonnie)
			from_job++;
		if (q->nm.date && !date)
			date = q->nm.date;
		dated += q->nm.date != NULL;
	}
	/* Say how the names were read when it is not the plain convention. */
	if (dated || from_job || lead) {
		const struct guess *q = &g[0];
		const struct an_run *r = q->r;
		struct cm_buf b = {NULL, 0, 0};
		cm_buf_printf(&b, "%s: names read as state, round and test, e.g. %s: state %s",
			      a->inputs[in].arg, an_base_name(r->path),
			      r->id.state ? r->id.state : DEFAULT_STATE);
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
			cm_buf_printf(&b, ", test %s (fio's job name: the name holds none)",
				      r->job_label);
		if (dated)
			cm_buf_printf(&b, "; the date %s%s is no part of it", date,
				      dated > 1 ? " (and those of the others)" : "");
		if (lead)
			cm_buf_printf(&b, "; \"%.*s\" common to every name is dropped",
				      (int)(lead - 1), q->label - lead);
		cm_buf_puts(&b, "; --pattern reads other conventions");
		an_note(a, "%s", b.s);
		cm_buf_release(&b);
	}
	for (size_t i = 0; i < n; i++) {
		an_name_free(&g[i].nm);
		free(g[i].state);
	}
	free(g);
	free(gp);
	free(weak);
}

/* ---- variants ------------------------------------------------------------------ */

static int cmp_strp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool several_input_names(const struct an_analysis *a)
{
	for (size_t i = 1; i < a->n_inputs; i++) {
		if (strcmp(a->inputs[i].name, a->inputs[0].name) != 0)
			return true;
	}
	return false;
}

/*
 * Whether the bonnie++ rows of input `in` are told apart by their names
 * (-m): when one file holds rows of several names, its name cannot say
 * which row is which; then every row's name is part of its variant.
 * (bonnie++'s own bon_csv2html labels rows by it.)  When each file's rows
 * share a name, that is most often the host's, and the file name says the
 * rest.
 */
static bool bonnie_names_vary(const struct an_analysis *a, size_t in)
{
	const struct an_run *prev = NULL;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted || r->input != in || r->bonnie_test < 0)
			continue;
		if (prev && strcmp(prev->path, r->path) == 0 &&
		    strcmp(prev->bonnie_name, r->bonnie_name) != 0)
			return true;
		prev = r;
	}
	return false;
}

static void assign_variants(struct an_analysis *a)
{
	bool multi = several_input_names(a);
	bool *by_name = cm_calloc(a->n_inputs ? a->n_inputs : 1, sizeof(*by_name));
	for (size_t in = 0; in < a->n_inputs; in++) {
		by_name[in] = bonnie_names_vary(a, in);
		if (by_name[in])
			an_note(
			    a,
			    "%s: a file holds bonnie++ rows of several names (bonnie++ -m): each "
			    "name is a variant",
			    a->inputs[in].arg);
	}
	for (size_t in = 0; in < a->n_inputs; in++) {
		/* the input's distinct groups */
		char **groups = NULL;
		size_t n = 0, cap = 0;
		for (size_t i = 0; i < a->n_runs; i++) {
			const struct an_run *r = &a->runs[i];
			if (!r->accepted || r->input != in)
				continue;
			char **slot = CM_PUSH(groups, n, cap);
			*slot = r->group ? r->group : (char *)"";
		}
		if (n)
			qsort(groups, n, sizeof(*groups), cmp_strp);
		size_t distinct = n ? 1 : 0;
		for (size_t i = 1; i < n; i++)
			distinct += strcmp(groups[i], groups[i - 1]) != 0;
		a->inputs[in].n_groups = distinct;
		if (distinct > 1 && !a->inputs[in].bench_fio) {
			struct cm_buf b = {NULL, 0, 0};
			size_t shown = 0;
			for (size_t i = 0; i < n && shown < 4; i++) {
				if (i && strcmp(groups[i], groups[i - 1]) == 0)
					continue;
				cm_buf_printf(&b, "%s%s", shown ? ", " : "",
					      groups[i][0] ? groups[i] : "(top)");
				shown++;
			}
			an_note(a, "%s: runs in %zu directories (%s%s) are compared as variants",
				a->inputs[in].arg, distinct, b.s, distinct > shown ? ", ..." : "");
			cm_buf_release(&b);
		}
		free(groups);
	}
	/* Runs in path order meet their variants in a stable order.  Rejected
	 * runs have theirs too: they count against its stability. */
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (r->skip)
			continue;
		const struct an_input *in = &a->inputs[r->input];
		struct cm_buf inner = {NULL, 0, 0};
		cm_buf_puts(&inner, "");
		if (in->n_groups > 1 && r->group && r->group[0])
			cm_buf_puts(&inner, r->group);
		if (r->id.variant) {
			if (inner.len)
				cm_buf_putc(&inner, '/');
			cm_buf_puts(&inner, r->id.variant);
		}
		if (by_name[r->input] && r->bonnie_name && r->bonnie_name[0]) {
			if (inner.len)
				cm_buf_putc(&inner, '/');
			cm_buf_puts(&inner, r->bonnie_name);
		}
		char *name;
		if (multi)
			name = inner.len ? cm_asprintf("%s/%s", in->name, inner.s)
					 : cm_strdup(in->name);
		else
			name = cm_strdup(inner.len ? inner.s : in->name);
		cm_buf_release(&inner);
		char *clean = cm_utf8_dup(name); /* directory names are bytes */
		r->variant = an_variant_get(a, clean, r->input);
		free(clean);
		free(name);
		struct an_variant *v = &a->variants[r->variant];
		if (!r->accepted)
			continue;
		v->n_runs++;
		if (v->campaign == SIZE_MAX && r->campaign != SIZE_MAX)
			v->campaign = r->campaign;
	}
	/* A campaign whose runs were all rejected still shows its transitions. */
	for (size_t c = 0; c < a->n_campaigns; c++) {
		bool has = false;
		for (size_t v = 0; v < a->n_variants && !has; v++)
			has = a->variants[v].campaign == c;
		if (has)
			continue;
		const struct an_campaign *cp = &a->campaigns[c];
		const struct an_input *in = &a->inputs[cp->input];
		char *name = multi ? (cp->group[0] ? cm_asprintf("%s/%s", in->name, cp->group)
						   : cm_strdup(in->name))
				   : (cp->group[0] ? cm_strdup(cp->group) : cm_strdup(in->name));
		size_t vi = an_variant_get(a, name, cp->input);
		free(name);
		if (a->variants[vi].campaign == SIZE_MAX)
			a->variants[vi].campaign = c;
	}
	free(by_name);
}

/* ---- tests ----------------------------------------------------------------------- */

static const struct an_analysis *sort_a;

static int cmp_test_workload(const void *x, const void *y)
{
	const struct an_run *p = &sort_a->runs[*(const size_t *)x];
	const struct an_run *q = &sort_a->runs[*(const size_t *)y];
	int c = strcmp(p->id.test, q->id.test);
	if (c)
		return c;
	c = strcmp(p->workload, q->workload);
	if (c)
		return c;
	return (p > q) - (p < q);
}

/* A test for runs [from, to) of idx, which share a name and a workload. */
static size_t add_test(struct an_analysis *a, const size_t *idx, size_t from, size_t to,
		       const char *name)
{
	struct an_test *t = CM_PUSH(a->tests, a->n_tests, a->cap_tests);
	t->name = cm_strdup(name);
	t->base = cm_strdup(a->runs[idx[from]].id.test);
	t->workload = a->runs[idx[from]].workload;
	t->first_ts = -1;
	t->bonnie_test = a->runs[idx[from]].bonnie_test;
	for (size_t k = from; k < to; k++) {
		struct an_run *r = &a->runs[idx[k]];
		r->test = a->n_tests - 1;
		t->n_runs++;
	}
	return a->n_tests - 1;
}

/*
 * Runs of one test name [from, to) of idx, sorted by workload.  One
 * workload: one test.  Several: a test for each, named by the fields in
 * which they differ ("randread bs=4k", "randread bs=64k"), and a warning.
 */
static void split_tests(struct an_analysis *a, const size_t *idx, size_t from, size_t to)
{
	const char *name = a->runs[idx[from]].id.test;
	size_t n_keys = 0;
	const char *prev = NULL;
	size_t *kstart = NULL;
	size_t kcap = 0;
	for (size_t k = from; k < to; k++) {
		const char *w = a->runs[idx[k]].workload;
		if (prev && strcmp(prev, w) == 0)
			continue;
		size_t *slot = CM_PUSH(kstart, n_keys, kcap);
		*slot = k;
		prev = w;
	}
	if (n_keys == 1) {
		add_test(a, idx, from, to, name);
		free(kstart);
		return;
	}
	/* the fields that differ between the workloads */
	size_t jobs = 0;
	for (size_t i = 0; i < n_keys; i++) {
		size_t j = an_wl_jobs(a->runs[idx[kstart[i]]].workload);
		if (j > jobs)
			jobs = j;
	}
	const char *k0 = a->runs[idx[kstart[0]]].workload;
	/* Data sets of several sizes are a dimension (a campaign's size = 16G
	 * 32G, bonnie++ -s): said, not warned of. */
	bool sizes_only = true;
	for (size_t i = 1; i < n_keys && sizes_only; i++) {
		const char *ki = a->runs[idx[kstart[i]]].workload;
		sizes_only = an_wl_jobs(ki) == an_wl_jobs(k0);
		for (size_t j = 0; j < an_wl_jobs(k0) && sizes_only; j++) {
			for (int f = 0; f < AN_WL_COUNT && sizes_only; f++)
				sizes_only =
				    f == AN_WL_SIZE || an_wl_same(ki, k0, j, (enum an_wl_field)f);
		}
	}
	struct cm_buf warn = {NULL, 0, 0};
	if (sizes_only)
		cm_buf_printf(&warn, "test %s: runs on data sets of %zu sizes, a test each:", name,
			      n_keys);
	else
		cm_buf_printf(&warn, "test %s: runs of %zu different workloads, not pooled:", name,
			      n_keys);
	for (size_t i = 0; i < n_keys; i++) {
		size_t end = i + 1 < n_keys ? kstart[i + 1] : to;
		const char *ki = a->runs[idx[kstart[i]]].workload;
		struct cm_buf b = {NULL, 0, 0};
		cm_buf_puts(&b, name);
		if (an_wl_jobs(ki) != an_wl_jobs(k0)) {
			cm_buf_printf(&b, " jobs=%zu", an_wl_jobs(ki));
		}
		for (size_t j = 0; j < jobs; j++) {
			for (int f = 0; f < AN_WL_COUNT; f++) {
				bool differs = false;
				for (size_t m = 1; m < n_keys && !differs; m++)
					differs = !an_wl_same(a->runs[idx[kstart[m]]].workload, k0,
							      j, (enum an_wl_field)f);
				if (!differs)
					continue;
				const char *v;
				size_t len;
				if (j >= an_wl_jobs(ki))
					continue;
				cm_buf_putc(&b, ' ');
				if (jobs > 1)
					cm_buf_printf(&b, "job%zu:", j + 1);
				if (an_wl_get(ki, j, (enum an_wl_field)f, &v, &len))
					cm_buf_printf(&b, "%s=%.*s", an_wl_fields[f], (int)len, v);
				else
					cm_buf_printf(&b, "%s=-", an_wl_fields[f]);
			}
		}
		/* two names alike (a difference in a field of no name): numbered */
		for (size_t t = 0; t < a->n_tests; t++) {
			if (strcmp(a->tests[t].name, b.s) == 0) {
				cm_buf_printf(&b, " #%zu", i + 1);
				break;
			}
		}
		char *clean = cm_utf8_dup(b.s);
		add_test(a, idx, kstart[i], end, clean);
		cm_buf_printf(&warn, "%s \"%s\" (%zu run%s)", i ? "," : "", clean, end - kstart[i],
			      end - kstart[i] == 1 ? "" : "s");
		free(clean);
		cm_buf_release(&b);
	}
	if (sizes_only)
		an_note(a, "%s", warn.s);
	else
		an_warn(a, "%s", warn.s);
	cm_buf_release(&warn);
	free(kstart);
}

/* bench-fio names a file by its workload; so do we. */
static char *bench_test_name(const struct an_run *r)
{
	if (!an_wl_options_listed(r->workload))
		return cm_utf8_dup(an_base_name(r->key));
	struct cm_buf b = {NULL, 0, 0};
	unsigned mask = (1u << AN_WL_RW) | (1u << AN_WL_RWMIXREAD) | (1u << AN_WL_BS) |
			(1u << AN_WL_IODEPTH) | (1u << AN_WL_NUMJOBS);
	an_wl_describe(&b, r->workload, mask, true);
	char *s = cm_utf8_dup(b.s);
	cm_buf_release(&b);
	return s;
}

static void name_tests(struct an_analysis *a)
{
	size_t *idx = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*idx));
	size_t n = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		if (r->bonnie_test >= 0) {
			/* whatever the name or a --pattern said: a row holds them all */
			free(r->id.test);
			r->id.test = cm_strdup(fc_bonnie_test_info(r->bonnie_test)->name);
		} else if (r->source == AN_ID_BENCH_FIO) {
			free(r->id.test);
			r->id.test = bench_test_name(r);
		} else if (!r->id.test) {
			if (r->job_label && r->job_label[0]) {
				r->id.test = cm_strdup(r->job_label);
			} else {
				struct cm_buf b = {NULL, 0, 0};
				an_wl_describe(&b, r->workload, AN_WL_ALL, true);
				r->id.test = cm_utf8_dup(b.s ? b.s : "?");
				cm_buf_release(&b);
			}
		} else {
			char *clean = cm_utf8_dup(r->id.test);
			free(r->id.test);
			r->id.test = clean;
		}
		idx[n++] = i;
	}
	sort_a = a;
	qsort(idx, n, sizeof(*idx), cmp_test_workload);
	size_t start = 0;
	for (size_t k = 1; k <= n; k++) {
		if (k < n && strcmp(a->runs[idx[k]].id.test, a->runs[idx[start]].id.test) == 0)
			continue;
		split_tests(a, idx, start, k);
		start = k;
	}
	free(idx);
}

void an_identify(struct an_analysis *a)
{
	for (size_t in = 0; in < a->n_inputs; in++)
		infer_input(a, in);
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		char *state = cm_utf8_dup(r->id.state ? r->id.state : DEFAULT_STATE);
		r->state = an_state_get(a, state);
		free(state);
	}
	assign_variants(a);
	name_tests(a);
}

/* ---- matching logs to runs ---------------------------------------------------- */

struct key_ref {
	const char *base; /* the key's last component */
	size_t run;
};

static int cmp_key_ref(const void *x, const void *y)
{
	return strcmp(((const struct key_ref *)x)->base, ((const struct key_ref *)y)->base);
}

/* How many trailing directories two paths share before their last parts. */
static size_t common_dirs(const char *x, const char *y)
{
	const char *ex = strrchr(x, '/'), *ey = strrchr(y, '/');
	size_t n = 0;
	while (ex && ey) {
		const char *px = ex, *py = ey;
		while (px > x && px[-1] != '/')
			px--;
		while (py > y && py[-1] != '/')
			py--;
		if (ex - px != ey - py || strncmp(px, py, (size_t)(ex - px)) != 0)
			break;
		n++;
		ex = px > x ? px - 1 : NULL;
		ey = py > y ? py - 1 : NULL;
	}
	return n;
}

/*
 * The run a log key belongs to: the run whose key is the same path, else
 * the one of the same input whose key ends in the same name and shares
 * the most directories with it (a unique best).  SIZE_MAX if none.
 */
static size_t match_key(const struct an_analysis *a, const struct key_ref *refs, size_t n,
			const char *key, size_t input, bool *ambiguous)
{
	struct key_ref probe = {an_base_name(key), 0};
	const struct key_ref *hit = bsearch(&probe, refs, n, sizeof(*refs), cmp_key_ref);
	if (!hit)
		return SIZE_MAX;
	while (hit > refs && strcmp(hit[-1].base, probe.base) == 0)
		hit--;
	size_t best = SIZE_MAX, best_dirs = 0;
	bool tie = false;
	for (const struct key_ref *h = hit; h < refs + n && strcmp(h->base, probe.base) == 0; h++) {
		const struct an_run *r = &a->runs[h->run];
		if (strcmp(r->key, key) == 0)
			return h->run;
		if (r->input != input)
			continue;
		size_t d = common_dirs(r->key, key);
		if (best == SIZE_MAX || d > best_dirs) {
			best = h->run;
			best_dirs = d;
			tie = false;
		} else if (d == best_dirs) {
			tie = true;
		}
	}
	if (tie) {
		*ambiguous = true;
		return SIZE_MAX;
	}
	return best;
}

void an_attach_logs(struct an_analysis *a)
{
	if (a->n_plogs == 0)
		return;
	struct key_ref *refs = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*refs));
	size_t n = 0;
	/* Rejected and skipped runs too: their logs are theirs, not strays. */
	for (size_t i = 0; i < a->n_runs; i++) {
		/* bonnie++ writes no logs */
		if (a->runs[i].source != AN_ID_MANIFEST && a->runs[i].bonnie_test < 0 &&
		    !a->runs[i].bonnie)
			refs[n++] = (struct key_ref){an_base_name(a->runs[i].key), i};
	}
	qsort(refs, n, sizeof(*refs), cmp_key_ref);
	for (size_t i = 0; i < a->n_plogs; i++) {
		struct an_pending_log *pl = &a->plogs[i];
		bool ambiguous = false;
		size_t hit = match_key(a, refs, n, pl->name.key, pl->input, &ambiguous);
		if (hit == SIZE_MAX)
			hit = match_key(a, refs, n, pl->name.key_raw, pl->input, &ambiguous);
		if (hit == SIZE_MAX) {
			char *bench = an_bench_fio_log_key(pl->name.key);
			if (bench)
				hit = match_key(a, refs, n, bench, pl->input, &ambiguous);
			free(bench);
		}
		if (hit == SIZE_MAX) {
			an_reject(a, pl->path, "%s",
				  ambiguous ? "several runs of the same name could own this log"
					    : "no fio output of the same run found for this log");
			continue;
		}
		struct an_run *r = &a->runs[hit];
		if (r->skip) {
			an_skip(a, pl->path, r->skip); /* goes with its run */
			continue;
		}
		struct an_log *l = CM_PUSH(r->logs, r->n_logs, r->cap_logs);
		l->path = cm_strdup(pl->path);
		l->type = pl->name.type;
		l->index = pl->name.index;
	}
	free(refs);
}
