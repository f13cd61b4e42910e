/* SPDX-License-Identifier: MIT */
/*
 * The command-line inputs: each argument (or --label NAME=PATH) once, the
 * directory its relative paths start from, its name as a variant; and the
 * paths below an input.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/read.h"

char *an_path_join(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	if (dl == 0 || (dl == 1 && dir[0] == '.'))
		return cm_strdup(name);
	if (dir[dl - 1] == '/')
		return cm_asprintf("%s%s", dir, name);
	return cm_asprintf("%s/%s", dir, name);
}

/* The path below the input's root ("" for the root itself); borrowed. */
const char *an_path_below(const char *root, const char *path)
{
	size_t rl = strlen(root);
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1 && root[0] == '.') {
		while (path[0] == '.' && path[1] == '/')
			path += 2;
		return path;
	}
	if (strncmp(path, root, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
		return path[rl] == '/' ? path + rl + 1 : path + rl;
	return path;
}

/* The directory part of a relative path without its last `drop`
 * directories (those an identity took); "" when nothing is left. */
char *an_path_group(const char *rel, size_t drop)
{
	const char *slash = strrchr(rel, '/');
	size_t len = slash ? (size_t)(slash - rel) : 0;
	for (size_t i = 0; i < drop && len > 0; i++) {
		while (len > 0 && rel[len - 1] != '/')
			len--;
		if (len > 0)
			len--;
	}
	return cm_strndup(rel, len);
}

/* The same path written with or without slashes at its end. */
static bool same_arg(const char *x, const char *y)
{
	size_t lx = strlen(x), ly = strlen(y);
	while (lx > 1 && x[lx - 1] == '/')
		lx--;
	while (ly > 1 && y[ly - 1] == '/')
		ly--;
	return lx == ly && strncmp(x, y, lx) == 0;
}

void an_add_input(struct an_analysis *a, const char *arg, const char *label)
{
	for (size_t i = 0; i < a->n_inputs; i++) {
		if (same_arg(a->inputs[i].arg, arg)) {
			if (label) {
				free(a->inputs[i].label);
				a->inputs[i].label = cm_strdup(label);
			}
			return;
		}
	}
	struct an_input *in = CM_PUSH(a->inputs, a->n_inputs, a->cap_inputs);
	in->arg = cm_strdup(arg);
	in->label = label ? cm_strdup(label) : NULL;
	struct stat st;
	if (stat(arg, &st) == 0 && S_ISDIR(st.st_mode)) {
		in->root = cm_strdup(arg);
	} else {
		/* a file or a glob: relative to its directory */
		const char *slash = strrchr(arg, '/');
		in->root = slash ? cm_strndup(arg, slash > arg ? (size_t)(slash - arg) : 1)
				 : cm_strdup(".");
	}
}

/* The last `k` components of a directory's real path (its name when the
 * path as given has none: ".", "..", "/"). */
char *an_dir_name(const char *dir, size_t k)
{
	char *real = realpath(dir, NULL);
	const char *p = real ? real : dir;
	size_t len = strlen(p);
	while (len > 1 && p[len - 1] == '/')
		len--;
	size_t start = len;
	for (size_t i = 0; i < k && start > 0; i++) {
		if (i)
			start--; /* the slash between */
		while (start > 0 && p[start - 1] != '/')
			start--;
	}
	char *name = start < len ? cm_strndup(p + start, len - start) : cm_strdup(p);
	free(real);
	char *clean = cm_utf8_dup(name);
	free(name);
	return clean;
}

void an_name_inputs(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_inputs; i++) {
		struct an_input *in = &a->inputs[i];
		free(in->name);
		in->name = in->label ? cm_utf8_dup(in->label) : an_dir_name(in->root, 1);
	}
	/* Different directories of the same name: more of their paths, until
	 * the names differ.  Files of one directory share its name. */
	for (size_t k = 2; k < 64; k++) {
		bool clash = false;
		for (size_t i = 0; i < a->n_inputs; i++) {
			for (size_t j = i + 1; j < a->n_inputs; j++) {
				struct an_input *x = &a->inputs[i], *y = &a->inputs[j];
				if (x->label || y->label || strcmp(x->name, y->name) != 0)
					continue;
				char *rx = realpath(x->root, NULL), *ry = realpath(y->root, NULL);
				bool same = rx && ry && strcmp(rx, ry) == 0;
				free(rx);
				free(ry);
				if (same)
					continue;
				clash = true;
				free(x->name);
				free(y->name);
				x->name = an_dir_name(x->root, k);
				y->name = an_dir_name(y->root, k);
			}
		}
		if (!clash)
			break;
	}
}

struct an_run *an_run_add(struct an_analysis *a, size_t in, const char *path)
{
	struct an_run *r = CM_PUSH(a->runs, a->n_runs, a->cap_runs);
	r->path = cm_strdup(path);
	r->key = an_output_key(path);
	r->input = in;
	r->campaign = SIZE_MAX;
	r->timestamp_ms = -1;
	r->time_based = -1;
	r->bonnie_test = -1;
	r->steal = r->foreign_io = NAN;
	r->env = SIZE_MAX;
	return r;
}

void an_run_add_log(struct an_run *r, const char *path, const struct an_log_name *ln)
{
	struct an_log *l = CM_PUSH(r->logs, r->n_logs, r->cap_logs);
	l->path = cm_strdup(path);
	l->type = ln ? ln->type : FC_LOG_UNKNOWN;
	l->index = ln ? ln->index : 0;
	l->host = ln && ln->host ? cm_strdup(ln->host) : NULL;
}

/* An input that held nothing fio wrote is a bad input. */
static void reject_empty_inputs(struct an_analysis *a)
{
	for (size_t in = 0; in < a->n_inputs; in++) {
		bool any = false;
		for (size_t i = 0; i < a->n_runs && !any; i++)
			any = a->runs[i].input == in && !a->runs[i].skip;
		for (size_t i = 0; i < a->n_plogs && !any; i++)
			any = a->plogs[i].input == in;
		for (size_t i = 0; i < a->n_campaigns && !any; i++)
			any = a->campaigns[i].input == in;
		if (!any)
			an_reject(a, a->inputs[in].arg, "no fio output found");
	}
}

static int cmp_rejected(const void *x, const void *y)
{
	const struct an_rejected *a = x, *b = y;
	return strcmp(a->path, b->path);
}

static int cmp_skipped(const void *x, const void *y)
{
	const struct an_skipped *a = x, *b = y;
	int c = strcmp(a->reason, b->reason);
	return c ? c : strcmp(a->path, b->path);
}

void an_read_finish(struct an_analysis *a)
{
	an_list_rejects(a);
	reject_empty_inputs(a);
	if (a->n_rejected)
		qsort(a->rejected, a->n_rejected, sizeof(*a->rejected), cmp_rejected);
	if (a->n_skipped)
		qsort(a->skipped, a->n_skipped, sizeof(*a->skipped), cmp_skipped);
}
