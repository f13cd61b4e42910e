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

/* The state of runs whose names say none (infer.c says it too). */
#define DEFAULT_STATE "all"

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
		if (distinct > 1 && !a->inputs[in].bench_fio && !a->inputs[in].fleet) {
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
		if ((in->n_groups > 1 || in->fleet) && r->group && r->group[0])
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

/* A run whose report lists some options only, or none: terse output
 * (none), normal output (its banner's). */
static bool options_partial(const struct an_run *r)
{
	return r->bonnie_test < 0 &&
	       (r->format == FC_FORMAT_TERSE || r->format == FC_FORMAT_NORMAL);
}

/* Whether every option the partial key gives, `full` gives alike. */
static bool known_agree(const char *part, const char *full)
{
	if (an_wl_jobs(part) != an_wl_jobs(full))
		return false;
	for (size_t j = 0; j < an_wl_jobs(part); j++) {
		for (int f = 0; f < AN_WL_COUNT; f++) {
			const char *v;
			size_t len;
			if (an_wl_get(part, j, (enum an_wl_field)f, &v, &len) &&
			    !an_wl_same(part, full, j, (enum an_wl_field)f))
				return false;
		}
	}
	return true;
}

/* The workloads of one test name: their first runs, which own the others,
 * and the order their runs go in. */
struct wl_groups {
	size_t n_keys;
	size_t *kstart; /* into idx: the first run of each key */
	size_t *kend;
	size_t *owner; /* the key whose test a key's runs join */
	size_t n_groups;
	size_t *order;	  /* run indices, a group after the other */
	size_t *gstart;	  /* into order, n_groups + 1 */
	size_t *gkey;	  /* the key naming each group */
	size_t joined[2]; /* runs that joined: terse, normal */
};

static void group_keys(const struct an_analysis *a, const size_t *idx, size_t from, size_t to,
		       struct wl_groups *w)
{
	size_t cap = 0;
	const char *prev = NULL;
	for (size_t k = from; k < to; k++) {
		const char *key = a->runs[idx[k]].workload;
		if (prev && strcmp(prev, key) == 0)
			continue;
		size_t *slot = CM_PUSH(w->kstart, w->n_keys, cap);
		*slot = k;
		prev = key;
	}
	w->kend = cm_calloc(w->n_keys, sizeof(*w->kend));
	for (size_t i = 0; i < w->n_keys; i++)
		w->kend[i] = i + 1 < w->n_keys ? w->kstart[i + 1] : to;
	w->owner = cm_calloc(w->n_keys, sizeof(*w->owner));
	/* a partial key joins the one complete key its known options agree with */
	for (size_t i = 0; i < w->n_keys; i++) {
		const struct an_run *r = &a->runs[idx[w->kstart[i]]];
		w->owner[i] = i;
		if (!options_partial(r))
			continue;
		size_t hit = SIZE_MAX, hits = 0;
		for (size_t j = 0; j < w->n_keys; j++) {
			const struct an_run *q = &a->runs[idx[w->kstart[j]]];
			if (!options_partial(q) && known_agree(r->workload, q->workload)) {
				hit = j;
				hits++;
			}
		}
		if (hits == 1) {
			w->owner[i] = hit;
			w->joined[r->format == FC_FORMAT_TERSE ? 0 : 1] +=
			    w->kend[i] - w->kstart[i];
		}
	}
	w->order = cm_calloc(to - from, sizeof(*w->order));
	w->gstart = cm_calloc(w->n_keys + 1, sizeof(*w->gstart));
	w->gkey = cm_calloc(w->n_keys, sizeof(*w->gkey));
	size_t n = 0;
	for (size_t i = 0; i < w->n_keys; i++) {
		if (w->owner[i] != i)
			continue;
		w->gstart[w->n_groups] = n;
		w->gkey[w->n_groups++] = i;
		/* the key first: its run describes the test */
		for (size_t k = w->kstart[i]; k < w->kend[i]; k++)
			w->order[n++] = idx[k];
		for (size_t j = 0; j < w->n_keys; j++) {
			if (w->owner[j] != i || j == i)
				continue;
			for (size_t k = w->kstart[j]; k < w->kend[j]; k++)
				w->order[n++] = idx[k];
		}
	}
	w->gstart[w->n_groups] = n;
}

static void wl_groups_free(struct wl_groups *w)
{
	free(w->kstart);
	free(w->kend);
	free(w->owner);
	free(w->order);
	free(w->gstart);
	free(w->gkey);
}

/* Whether every job of a workload is its first job's like. */
static bool jobs_alike(const char *key)
{
	for (size_t j = 1; j < an_wl_jobs(key); j++) {
		for (int f = 0; f < AN_WL_COUNT; f++) {
			const char *v0, *v;
			size_t l0, l;
			bool h0 = an_wl_get(key, 0, (enum an_wl_field)f, &v0, &l0);
			bool h = an_wl_get(key, j, (enum an_wl_field)f, &v, &l);
			if (h0 != h || (h && (l != l0 || memcmp(v, v0, l) != 0)))
				return false;
		}
	}
	return true;
}

/* The name of a group: the fields in which the complete workloads differ
 * ("randread bs=4k"); a partial one says its options are unknown. */
static void group_name(const struct an_analysis *a, const size_t *idx, const struct wl_groups *w,
		       size_t g, const char *name, struct cm_buf *b)
{
	const struct an_run *r0 = &a->runs[idx[w->kstart[w->gkey[g]]]];
	cm_buf_puts(b, name);
	if (options_partial(r0)) {
		cm_buf_puts(b, r0->format == FC_FORMAT_TERSE
				   ? " (terse: options unknown)"
				   : " (normal output: options partly unknown)");
		return;
	}
	/* the complete keys; when each one's jobs are alike (numjobs=4 without
	 * group_reporting), its first job says them all */
	size_t jobs = 0, first = SIZE_MAX;
	bool clones = true;
	for (size_t i = 0; i < w->n_groups; i++) {
		const struct an_run *r = &a->runs[idx[w->kstart[w->gkey[i]]]];
		if (options_partial(r))
			continue;
		if (first == SIZE_MAX)
			first = i;
		if (an_wl_jobs(r->workload) > jobs)
			jobs = an_wl_jobs(r->workload);
		clones &= jobs_alike(r->workload);
	}
	const char *k0 = a->runs[idx[w->kstart[w->gkey[first]]]].workload;
	const char *ki = r0->workload;
	if (clones)
		jobs = 1;
	else if (an_wl_jobs(ki) != an_wl_jobs(k0))
		cm_buf_printf(b, " jobs=%zu", an_wl_jobs(ki));
	for (size_t j = 0; j < jobs; j++) {
		/* job j compared between the workloads that have it: numjobs=4
		 * beside numjobs=1 is said by the job count, not by each field of
		 * the jobs 2..4 */
		const char *kj = NULL;
		for (size_t m = 0; m < w->n_groups && !kj; m++) {
			const struct an_run *r = &a->runs[idx[w->kstart[w->gkey[m]]]];
			if (!options_partial(r) && an_wl_jobs(r->workload) > j)
				kj = r->workload;
		}
		for (int f = 0; f < AN_WL_COUNT; f++) {
			bool differs = false;
			for (size_t m = 0; m < w->n_groups && !differs; m++) {
				const struct an_run *r = &a->runs[idx[w->kstart[w->gkey[m]]]];
				differs = !options_partial(r) && an_wl_jobs(r->workload) > j &&
					  !an_wl_same(r->workload, kj, j, (enum an_wl_field)f);
			}
			if (!differs || j >= an_wl_jobs(ki))
				continue;
			const char *v;
			size_t len;
			cm_buf_putc(b, ' ');
			if (jobs > 1)
				cm_buf_printf(b, "job%zu:", j + 1);
			if (an_wl_get(ki, j, (enum an_wl_field)f, &v, &len))
				cm_buf_printf(b, "%s=%.*s", an_wl_fields[f], (int)len, v);
			else
				cm_buf_printf(b, "%s=-", an_wl_fields[f]);
		}
	}
}

/* Data sets of several sizes are a dimension (a campaign's size = 16G
 * 32G, bonnie++ -s): said, not warned of. */
static bool sizes_only(const struct an_analysis *a, const size_t *idx, const struct wl_groups *w)
{
	const char *k0 = a->runs[idx[w->kstart[w->gkey[0]]]].workload;
	for (size_t i = 1; i < w->n_groups; i++) {
		const char *ki = a->runs[idx[w->kstart[w->gkey[i]]]].workload;
		if (an_wl_jobs(ki) != an_wl_jobs(k0))
			return false;
		for (size_t j = 0; j < an_wl_jobs(k0); j++) {
			for (int f = 0; f < AN_WL_COUNT; f++) {
				if (f != AN_WL_SIZE && !an_wl_same(ki, k0, j, (enum an_wl_field)f))
					return false;
			}
		}
	}
	return true;
}

static int cmp_place_round(const void *x, const void *y)
{
	const struct an_run *p = &sort_a->runs[*(const size_t *)x];
	const struct an_run *q = &sort_a->runs[*(const size_t *)y];
	if (p->variant != q->variant)
		return p->variant < q->variant ? -1 : 1;
	if (p->state != q->state)
		return p->state < q->state ? -1 : 1;
	if (p->id.round != q->id.round)
		return p->id.round < q->id.round ? -1 : 1;
	return (p > q) - (p < q);
}

/*
 * A test split from others of its name whose rounds, read from names, do
 * not start at 1 (randread-4 .. randread-6 of another workload than
 * randread-1 .. 3): numbered 1..n within it, in their order, for each
 * variant and state, so that its round 1 is its first; with a note.
 */
static void renumber_rounds(struct an_analysis *a, const size_t *order, size_t from, size_t to,
			    const char *test)
{
	int low = 0, high = 0;
	for (size_t k = from; k < to; k++) {
		const struct an_run *r = &a->runs[order[k]];
		if (r->source != AN_ID_NAME && r->source != AN_ID_PATTERN)
			return;
		if (r->id.round > 0 && (low == 0 || r->id.round < low))
			low = r->id.round;
		if (r->id.round > high)
			high = r->id.round;
	}
	if (low <= 1)
		return;
	size_t n = 0;
	size_t *idx = cm_calloc(to - from, sizeof(*idx));
	for (size_t k = from; k < to; k++) {
		if (a->runs[order[k]].id.round > 0)
			idx[n++] = order[k];
	}
	sort_a = a;
	qsort(idx, n, sizeof(*idx), cmp_place_round);
	int top = 0, rank = 0;
	for (size_t k = 0; k < n; k++) {
		struct an_run *r = &a->runs[idx[k]];
		const struct an_run *p = k ? &a->runs[idx[k - 1]] : NULL;
		rank = p && p->variant == r->variant && p->state == r->state ? rank + 1 : 1;
		r->id.round = rank;
		if (rank > top)
			top = rank;
	}
	free(idx);
	an_note(a, "test %s: its rounds %d..%d (from the names) are its rounds 1..%d", test, low,
		high, top);
}

/*
 * Runs of one test name [from, to) of idx, sorted by workload.  One
 * workload: one test.  A run whose report gives some options only, or
 * none (normal, terse output), joins the one workload whose known options
 * agree, with a note.  Several workloads: a test for each, named by the
 * fields in which they differ ("randread bs=4k", "randread bs=64k") or as
 * of unknown options, and a warning.
 */
static void split_tests(struct an_analysis *a, const size_t *idx, size_t from, size_t to)
{
	const char *name = a->runs[idx[from]].id.test;
	struct wl_groups w;
	memset(&w, 0, sizeof(w));
	group_keys(a, idx, from, to, &w);
	if (w.joined[0] || w.joined[1]) {
		struct cm_buf b = {NULL, 0, 0};
		cm_buf_printf(&b, "test %s: ", name);
		if (w.joined[0])
			cm_buf_printf(&b, "%zu run%s of terse output (options unknown)",
				      w.joined[0], w.joined[0] == 1 ? "" : "s");
		if (w.joined[1])
			cm_buf_printf(&b, "%s%zu run%s of normal output (options partly unknown)",
				      w.joined[0] ? " and " : "", w.joined[1],
				      w.joined[1] == 1 ? "" : "s");
		cm_buf_puts(&b, " joined the runs whose known options agree");
		an_note(a, "%s", b.s);
		cm_buf_release(&b);
	}
	if (w.n_groups == 1) {
		add_test(a, w.order, 0, w.gstart[1], name);
		wl_groups_free(&w);
		return;
	}
	bool sizes = sizes_only(a, idx, &w);
	struct cm_buf warn = {NULL, 0, 0};
	if (sizes)
		cm_buf_printf(&warn, "test %s: runs on data sets of %zu sizes, a test each:", name,
			      w.n_groups);
	else
		cm_buf_printf(&warn, "test %s: runs of %zu different workloads, not pooled:", name,
			      w.n_groups);
	for (size_t g = 0; g < w.n_groups; g++) {
		struct cm_buf b = {NULL, 0, 0};
		group_name(a, idx, &w, g, name, &b);
		/* two names alike (a difference in a field of no name): numbered */
		for (size_t t = 0; t < a->n_tests; t++) {
			if (strcmp(a->tests[t].name, b.s) == 0) {
				cm_buf_printf(&b, " #%zu", g + 1);
				break;
			}
		}
		char *clean = cm_utf8_dup(b.s);
		size_t n = w.gstart[g + 1] - w.gstart[g];
		add_test(a, w.order, w.gstart[g], w.gstart[g + 1], clean);
		renumber_rounds(a, w.order, w.gstart[g], w.gstart[g + 1], clean);
		cm_buf_printf(&warn, "%s \"%s\" (%zu run%s)", g ? "," : "", clean, n,
			      n == 1 ? "" : "s");
		free(clean);
		cm_buf_release(&b);
	}
	if (sizes)
		an_note(a, "%s", warn.s);
	else
		an_warn(a, "%s", warn.s);
	cm_buf_release(&warn);
	wl_groups_free(&w);
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
	an_infer_names(a);
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
