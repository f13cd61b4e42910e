/* SPDX-License-Identifier: MIT */
/*
 * Finding the runs: a campaign directory through its manifest.json
 * (docs/campaign-directory.md), or any tree, list or glob of fio output and
 * logs, recognised by content where the name does not say; a bench-fio
 * tree.  Each command-line input is kept apart: it becomes a variant when
 * several are compared.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/read.h"

/* An output file outside a manifest: what its path says of it.  `maybe`:
 * a name that is not fio's own (.txt, .log, none ...), read if its content
 * is fio's, else skipped. */
static struct an_run *add_named_output(struct an_analysis *a, size_t in, const char *path,
				       const struct an_pattern *pattern, bool maybe)
{
	const struct an_input *inp = &a->inputs[in];
	struct an_ident id;
	char *key = an_output_key(path);
	const char *rel = an_path_below(inp->root, key);
	if (pattern) {
		if (an_pattern_match(pattern, key, &id) < 0) {
			if (maybe)
				an_skip(a, path, "its name does not match --pattern");
			else
				an_reject(a, path, "the name does not match --pattern '%s'",
					  an_pattern_text(pattern));
			free(key);
			return NULL;
		}
		struct an_run *r = an_run_add(a, in, path);
		r->source = AN_ID_PATTERN;
		r->reading = cm_strdup(an_pattern_text(pattern));
		r->id = id;
		r->group = an_path_group(rel, an_pattern_dirs(pattern));
		r->maybe = maybe;
		free(key);
		return r;
	}
	struct an_run *r = an_run_add(a, in, path);
	r->maybe = maybe;
	if (an_infer_layout(key, &id) == 0) {
		r->source = AN_ID_LAYOUT;
		r->id = id;
		r->group = an_path_group(rel, 2);
	} else {
		r->source = AN_ID_NAME;
		r->group = an_path_group(rel, 0);
	}
	free(key);
	return r;
}

/* A .csv file: read when it holds bonnie++'s rows (or fio's output). */
static void add_csv(struct an_analysis *a, size_t in, const char *path,
		    const struct an_pattern *pattern, bool maybe)
{
	struct an_run *r = add_named_output(a, in, path, pattern, maybe);
	if (r)
		r->csv = true;
}

static void add_pending_log(struct an_analysis *a, size_t in, const char *path)
{
	struct an_pending_log *pl = CM_PUSH(a->plogs, a->n_plogs, a->cap_plogs);
	pl->path = cm_strdup(path);
	pl->input = in;
	an_log_name_parse(path, &pl->name);
}

struct entry {
	char *name;
	unsigned char type; /* DT_* */
};

static int cmp_entry(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->name, ((const struct entry *)y)->name);
}

/* Records a directory as read; false when it was read before (a symbolic
 * link back up the tree, or a second link to it). */
static bool first_visit(struct an_analysis *a, DIR *d)
{
	struct stat st;
	if (fstat(dirfd(d), &st) != 0)
		return true;
	for (size_t i = 0; i < a->n_walked; i++) {
		if (a->walked[i].dev == (uint64_t)st.st_dev &&
		    a->walked[i].ino == (uint64_t)st.st_ino)
			return false;
	}
	struct an_dir_id *id = CM_PUSH(a->walked, a->n_walked, a->cap_walked);
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	return true;
}

struct walk_ctx {
	struct an_analysis *a;
	size_t in;
	const struct an_pattern *pattern;
	bool no_manifest;
	struct an_errors *errs; /* a campaign directory whose manifest cannot be read */
};

static int walk(struct walk_ctx *w, const char *dir, int depth);

/* A regular file met while walking: a run, a log, or skipped. */
static void walk_file(struct walk_ctx *w, const char *path)
{
	const char *why;
	switch (an_file_kind(path, &why)) {
	case AN_FILE_OUTPUT:
		add_named_output(w->a, w->in, path, w->pattern, false);
		break;
	case AN_FILE_MAYBE:
		add_named_output(w->a, w->in, path, w->pattern, true);
		break;
	case AN_FILE_CSV:
		add_csv(w->a, w->in, path, w->pattern, true);
		break;
	case AN_FILE_LOG:
		add_pending_log(w->a, w->in, path);
		break;
	case AN_FILE_SKIP:
		an_skip(w->a, path, why);
		break;
	}
}

/* One entry of a directory: descends, or adds a run or a log.  `campaign`:
 * the directory holds a manifest.json (read by names: --no-manifest). */
static int walk_entry(struct walk_ctx *w, const char *dir, const struct entry *e, bool campaign,
		      int depth)
{
	struct an_analysis *a = w->a;
	char *path = an_path_join(dir, e->name);
	/* d_type saves a stat per file; links and unknown types need one. */
	unsigned char type = e->type;
	struct stat st;
	if (type == DT_UNKNOWN || type == DT_LNK) {
		if (stat(path, &st) != 0) {
			an_reject(a, path, "cannot stat: %s", strerror(errno));
			type = DT_UNKNOWN;
		} else {
			type = S_ISDIR(st.st_mode)   ? DT_DIR
			       : S_ISREG(st.st_mode) ? DT_REG
						     : DT_UNKNOWN;
			if (type == DT_UNKNOWN)
				an_skip(a, path, "not a regular file");
		}
	}
	int rc = 0;
	if (type == DT_DIR) {
		/* What fiocamp-run moves aside or runs apart from the states. */
		const char *aside = cm_campaign_aside_tag(e->name);
		if (aside && strcmp(aside, CM_ASIDE_INTERRUPTED) == 0)
			an_note(a, "%s: a round cut short and moved aside, not analyzed", path);
		else if (aside)
			an_note(a, "%s: a failed round moved aside, not analyzed", path);
		else if (campaign && strcmp(e->name, CM_CAMPAIGN_PREFILL) == 0)
			an_note(a, "%s: the campaign's prefill runs, not analyzed", path);
		else
			rc = walk(w, path, depth + 1);
	} else if (type == DT_REG) {
		walk_file(w, path);
	}
	free(path);
	return rc;
}

/* 0, or AN_E_INPUT when a campaign directory in the tree has a manifest
 * that cannot be read (in w->errs; the walk goes on). */
static int walk(struct walk_ctx *w, const char *dir, int depth)
{
	struct an_analysis *a = w->a;
	if (depth > 64) {
		an_note(a, "%s: directories nested too deep, not descended", dir);
		return 0;
	}
	DIR *d = opendir(dir);
	if (!d) {
		an_reject(a, dir, "cannot open the directory: %s", strerror(errno));
		return 0;
	}
	if (!first_visit(a, d)) {
		an_note(a,
			"%s: the same directory as one read already (a symbolic link?), "
			"not read again",
			dir);
		closedir(d);
		return 0;
	}
	struct entry *names = NULL;
	size_t n = 0, cap = 0;
	bool campaign = false;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.') {
			char *path = an_path_join(dir, e->d_name);
			an_skip(a, path, "a hidden file");
			free(path);
			continue;
		}
		struct entry *slot = CM_PUSH(names, n, cap);
		slot->name = cm_strdup(e->d_name);
		slot->type = e->d_type;
		campaign |= strcmp(e->d_name, CM_CAMPAIGN_MANIFEST) == 0;
	}
	closedir(d);
	int status = 0;
	/* A campaign directory inside the tree is read through its manifest,
	 * like one given on the command line. */
	bool by_manifest = campaign && !w->no_manifest;
	if (by_manifest) {
		char *manifest = an_path_join(dir, CM_CAMPAIGN_MANIFEST);
		struct an_error err;
		status = an_read_manifest(a, w->in, dir, manifest, &err);
		if (status < 0)
			an_errors_add(w->errs, &err);
		free(manifest);
	}
	/* Sorted, so that the order of runs does not depend on the file system. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		if (!by_manifest && walk_entry(w, dir, &names[i], campaign, depth) < 0)
			status = AN_E_INPUT;
		free(names[i].name);
	}
	free(names);
	return status;
}

/* ---- bench-fio trees ----------------------------------------------------------- */

/* DEVICE/BS/run-N/FILE: bench-fio's preconditioning runs. */
static bool bench_fio_precondition(const char *rel_key)
{
	const char *slash = strrchr(rel_key, '/');
	if (!slash)
		return false;
	const char *p = slash;
	while (p > rel_key && p[-1] != '/')
		p--;
	size_t n = (size_t)(slash - p);
	if (n < 5 || strncmp(p, "run-", 4) != 0)
		return false;
	for (size_t i = 4; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
	}
	return true;
}

/*
 * An input is a bench-fio tree when every fio JSON found by name in it
 * (preconditioning runs aside) lies at .../DEVICE/[MODEMIX/]BS/MODE-QD-NJ:
 * the devices are variants, each file one test of its own workload.
 */
static void detect_bench_fio(struct an_analysis *a, size_t in, enum an_layout layout)
{
	struct an_input *inp = &a->inputs[in];
	size_t named = 0, bench = 0;
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->input != in || r->maybe ||
		    (r->source != AN_ID_NAME && r->source != AN_ID_LAYOUT))
			continue;
		const char *rel = an_path_below(inp->root, r->key);
		if (bench_fio_precondition(rel))
			continue;
		named++;
		char *dev;
		if (an_bench_fio_path(rel, &dev)) {
			bench++;
			free(dev);
		}
	}
	inp->bench_fio =
	    layout == AN_LAYOUT_BENCH_FIO || (layout == AN_LAYOUT_AUTO && named && bench == named);
	if (!inp->bench_fio)
		return;
	if (layout == AN_LAYOUT_AUTO)
		an_note(
		    a,
		    "%s: read as a bench-fio tree (DEVICE/BLOCKSIZE/MODE-IODEPTH-NUMJOBS.json): "
		    "devices side by side, tests by workload",
		    inp->arg);
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (r->input != in || r->source == AN_ID_MANIFEST || r->source == AN_ID_PATTERN)
			continue;
		const char *rel = an_path_below(inp->root, r->key);
		char *dev;
		if (bench_fio_precondition(rel)) {
			r->source = AN_ID_BENCH_FIO;
			r->skip = "bench-fio's preconditioning run";
			continue;
		}
		if (!an_bench_fio_path(rel, &dev)) {
			if (!r->maybe) {
				r->reason =
				    cm_strdup("not where a bench-fio tree keeps its runs "
					      "(DEVICE/BLOCKSIZE/MODE-IODEPTH-NUMJOBS.json)");
				r->source = AN_ID_BENCH_FIO;
			}
			continue;
		}
		an_ident_free(&r->id);
		r->source = AN_ID_BENCH_FIO;
		r->id.variant = dev[0] ? dev : an_dir_name(inp->root, 1);
		if (!dev[0])
			free(dev);
		free(r->group);
		r->group = cm_strdup("");
	}
}

/* ---- arguments --------------------------------------------------------------- */

/* A path given (or a glob's): 0, or AN_E_INPUT with the problem added to
 * w->errs. */
static int add_path(struct walk_ctx *w, const char *path, bool explicit_file)
{
	struct an_analysis *a = w->a;
	size_t in = w->in;
	const struct an_pattern *pattern = w->pattern;
	struct an_error err;
	struct stat st;
	if (stat(path, &st) != 0) {
		an_fail(&err, AN_E_INPUT, "%s: %s", path, strerror(errno));
		an_errors_add(w->errs, &err);
		return AN_E_INPUT;
	}
	int rc = 0;
	if (S_ISDIR(st.st_mode)) {
		char *manifest = an_path_join(path, CM_CAMPAIGN_MANIFEST);
		struct stat ms;
		if (!w->no_manifest && stat(manifest, &ms) == 0) {
			rc = an_read_manifest(a, in, path, manifest, &err);
			if (rc < 0)
				an_errors_add(w->errs, &err);
		} else {
			rc = walk(w, path, 0);
		}
		free(manifest);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		an_fail(&err, AN_E_INPUT, "%s: not a regular file or directory", path);
		an_errors_add(w->errs, &err);
		return AN_E_INPUT;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!w->no_manifest && strcmp(base, CM_CAMPAIGN_MANIFEST) == 0) {
		char *dir = cm_strndup(path, (size_t)(base - path));
		if (!dir[0]) {
			free(dir);
			dir = cm_strdup(".");
		}
		rc = an_read_manifest(a, in, dir, path, &err);
		if (rc < 0)
			an_errors_add(w->errs, &err);
		free(dir);
		return rc;
	}
	const char *why;
	enum an_file_kind kind = an_file_kind(path, &why);
	if (kind == AN_FILE_LOG) {
		add_pending_log(a, in, path);
	} else if (kind == AN_FILE_CSV) {
		add_csv(a, in, path, pattern, !explicit_file);
	} else if (kind == AN_FILE_OUTPUT || explicit_file) {
		/* A file named on the command line is meant to be fio output. */
		add_named_output(a, in, path, pattern, false);
	} else if (kind == AN_FILE_MAYBE) {
		add_named_output(a, in, path, pattern, true);
	} else {
		an_skip(a, path, why);
	}
	return 0;
}

int an_discover(struct an_analysis *a, size_t in, const struct an_pattern *pattern,
		const struct an_read_opts *opt, struct an_errors *errs)
{
	const char *arg = a->inputs[in].arg;
	struct walk_ctx w = {a, in, pattern, opt->no_manifest, errs};
	struct an_error err;
	struct stat st;
	int status = 0;
	if (stat(arg, &st) == 0 || !strpbrk(arg, "*?[")) {
		status = add_path(&w, arg, true);
	} else {
		glob_t g;
		int rc = glob(arg, 0, NULL, &g);
		if (rc != 0) {
			an_fail(&err, AN_E_INPUT, "%s: %s", arg,
				rc == GLOB_NOMATCH ? "no file matches"
						   : "cannot expand the pattern");
			an_errors_add(errs, &err);
			return AN_E_INPUT;
		}
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (add_path(&w, g.gl_pathv[i], false) < 0)
				status = AN_E_INPUT;
		}
		globfree(&g);
	}
	if (status == 0 && !pattern && opt->layout != AN_LAYOUT_NAMES)
		detect_bench_fio(a, in, opt->layout);
	return status;
}
