/* SPDX-License-Identifier: MIT */
/*
 * Finding the runs: a campaign directory through its manifest.json
 * (docs/campaign-directory.md), or any tree, list or glob of fio output and
 * logs named by some convention.
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

#include "analyze.h"

static char *join_path(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	if (dl == 0 || (dl == 1 && dir[0] == '.'))
		return an_strdup(name);
	if (dir[dl - 1] == '/')
		return an_asprintf("%s%s", dir, name);
	return an_asprintf("%s/%s", dir, name);
}

static struct an_run *add_run(struct an_analysis *a, const char *path)
{
	struct an_run *r = AN_PUSH(a->runs, a->n_runs, a->cap_runs);
	r->path = an_strdup(path);
	r->key = an_output_key(path);
	r->timestamp_ms = -1;
	return r;
}

static void add_log(struct an_run *r, const char *path, const struct an_log_name *ln)
{
	struct an_log *l = AN_PUSH(r->logs, r->n_logs, r->cap_logs);
	l->path = an_strdup(path);
	l->type = ln ? ln->type : FC_LOG_UNKNOWN;
	l->index = ln ? ln->index : 0;
}

/* An output file outside a manifest: its identity from its name. */
static void add_named_output(struct an_analysis *a, const char *path,
			     const struct an_pattern *pattern)
{
	char *key = an_output_key(path);
	struct an_ident id;
	char why[512];
	int rc;
	if (pattern) {
		rc = an_pattern_match(pattern, key, &id);
		if (rc < 0)
			snprintf(why, sizeof(why), "the name does not match --pattern '%s'",
				 an_pattern_text(pattern));
	} else {
		rc = an_infer_default(key, &id, why, sizeof(why));
	}
	free(key);
	if (rc < 0) {
		an_reject(a, path, "%s", why);
		return;
	}
	struct an_run *r = add_run(a, path);
	r->id = id;
}

static void add_pending_log(struct an_analysis *a, const char *path)
{
	struct an_pending_log *pl = AN_PUSH(a->plogs, a->n_plogs, a->cap_plogs);
	pl->path = an_strdup(path);
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
	struct an_dir_id *id = AN_PUSH(a->walked, a->n_walked, a->cap_walked);
	id->dev = (uint64_t)st.st_dev;
	id->ino = (uint64_t)st.st_ino;
	return true;
}

static int read_manifest(struct an_analysis *a, const char *dir, const char *path);

static int walk(struct an_analysis *a, const char *dir, const struct an_pattern *pattern,
		bool no_manifest, int depth);

/* One entry of a directory: descends, or adds a run or a log.  `campaign`:
 * the directory holds a manifest.json (read by names: --no-manifest). */
static int walk_entry(struct an_analysis *a, const char *dir, const struct entry *e,
		      const struct an_pattern *pattern, bool no_manifest, bool campaign, int depth)
{
	char *path = join_path(dir, e->name);
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
		}
	}
	int rc = 0;
	if (type == DT_DIR) {
		/* What fiocamp-run moves aside or runs apart from the states. */
		if (strstr(e->name, ".interrupted-"))
			an_note(a, "%s: a round cut short and moved aside, not analyzed", path);
		else if (strstr(e->name, ".failed-"))
			an_note(a, "%s: a failed round moved aside, not analyzed", path);
		else if (campaign && strcmp(e->name, "prefill") == 0)
			an_note(a, "%s: the campaign's prefill runs, not analyzed", path);
		else
			rc = walk(a, path, pattern, no_manifest, depth + 1);
	} else if (type == DT_REG) {
		switch (an_file_kind(path)) {
		case AN_FILE_OUTPUT:
			add_named_output(a, path, pattern);
			break;
		case AN_FILE_LOG:
			add_pending_log(a, path);
			break;
		case AN_FILE_SKIP:
			break;
		}
	}
	free(path);
	return rc;
}

/* 0, or -1 when a campaign directory in the tree has a manifest that
 * cannot be read (printed). */
static int walk(struct an_analysis *a, const char *dir, const struct an_pattern *pattern,
		bool no_manifest, int depth)
{
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
		if (e->d_name[0] == '.')
			continue;
		struct entry *slot = AN_PUSH(names, n, cap);
		slot->name = an_strdup(e->d_name);
		slot->type = e->d_type;
		campaign |= strcmp(e->d_name, "manifest.json") == 0;
	}
	closedir(d);
	int status = 0;
	/* A campaign directory inside the tree is read through its manifest,
	 * like one given on the command line. */
	bool by_manifest = campaign && !no_manifest;
	if (by_manifest) {
		char *manifest = join_path(dir, "manifest.json");
		status = read_manifest(a, dir, manifest);
		free(manifest);
	}
	/* Sorted, so that the order of runs does not depend on the file system. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		if (!by_manifest &&
		    walk_entry(a, dir, &names[i], pattern, no_manifest, campaign, depth) < 0)
			status = -1;
		free(names[i].name);
	}
	free(names);
	return status;
}

/* ---- manifest.json --------------------------------------------------------- */

static double num_or_nan(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static char *str_or_null(const json_t *v)
{
	return json_is_string(v) ? an_strdup(json_string_value(v)) : NULL;
}

/* Manifest paths are relative and stay inside the campaign directory. */
static bool safe_rel_path(const char *p)
{
	if (!p[0] || p[0] == '/')
		return false;
	const char *s = p;
	while (*s) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		if (len == 2 && s[0] == '.' && s[1] == '.')
			return false;
		if (!slash)
			break;
		s = slash + 1;
	}
	return true;
}

static bool safe_name(const char *n)
{
	if (!n[0] || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return false;
	for (const char *c = n; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		if (!ok)
			return false;
	}
	return true;
}

static int manifest_fail(const char *path, const char *what)
{
	fprintf(stderr, "fiocamp-analyze: %s: %s\n", path, what);
	return -1;
}

static void manifest_state_actions(struct an_state *st, const json_t *before)
{
	if (st->n_actions)
		return; /* a second manifest with the same state: keep the first */
	size_t cap = 0;
	size_t i;
	const json_t *act;
	json_array_foreach(before, i, act) {
		if (!json_is_object(act))
			continue;
		struct an_action *ac = AN_PUSH(st->actions, st->n_actions, cap);
		ac->action = str_or_null(json_object_get(act, "action"));
		ac->text = str_or_null(json_object_get(act, "text"));
		ac->status = str_or_null(json_object_get(act, "status"));
		ac->duration_s = num_or_nan(json_object_get(act, "duration_s"));
		ac->downtime_s = num_or_nan(json_object_get(act, "downtime_s"));
		ac->task_duration_s = NAN;
		const json_t *task = json_object_get(act, "task");
		if (json_is_object(task)) {
			ac->task_name = str_or_null(json_object_get(task, "name"));
			if (!ac->task_name)
				ac->task_name = an_strdup("task");
			ac->task_duration_s = num_or_nan(json_object_get(task, "duration_s"));
			/* an action that ran several tasks (reboot) sums them up */
			json_int_t count = json_integer_value(json_object_get(task, "count"));
			ac->n_tasks = count > 0 ? (size_t)count : 1;
		}
	}
}

static void manifest_test(struct an_analysis *a, const char *dir, const char *state, int round,
			  const json_t *t)
{
	const char *test = json_string_value(json_object_get(t, "test"));
	const char *status = json_string_value(json_object_get(t, "status"));
	const char *json = json_string_value(json_object_get(t, "json"));
	if (!test || !safe_name(test)) {
		an_note(a,
			"%s/manifest.json: state %s round %d: a test without a valid name, "
			"skipped",
			dir, state, round);
		return;
	}
	char *label = an_asprintf("%s/%s/r%d/%s", dir, state, round, test);
	if (!status)
		status = "done";
	if (strcmp(status, "pending") == 0 || strcmp(status, "running") == 0 ||
	    strcmp(status, "skipped") == 0) {
		a->manifest_unfinished++;
		free(label);
		return;
	}
	if (strcmp(status, "done") != 0) {
		char *where = json && safe_rel_path(json) ? join_path(dir, json) : an_strdup(label);
		const json_t *es = json_object_get(t, "exit_status");
		if (json_is_integer(es))
			an_reject(a, where, "the campaign marks this run %s (fio exit status %lld)",
				  status, (long long)json_integer_value(es));
		else
			an_reject(a, where, "the campaign marks this run %s", status);
		free(where);
		free(label);
		return;
	}
	if (!json) {
		an_reject(a, label, "manifest.json lists the run as done but names no JSON file");
		free(label);
		return;
	}
	if (!safe_rel_path(json)) {
		an_reject(a, label,
			  "manifest.json names \"%s\", which is not a path inside the campaign "
			  "directory",
			  json);
		free(label);
		return;
	}
	free(label);
	char *path = join_path(dir, json);
	struct an_run *r = add_run(a, path);
	free(path);
	r->id.state = an_strdup(state);
	r->id.round = round;
	r->id.test = an_strdup(test);

	size_t i;
	const json_t *lg;
	json_array_foreach(json_object_get(t, "logs"), i, lg) {
		const char *rel = json_string_value(lg);
		if (!rel)
			continue;
		char *lpath = join_path(dir, rel);
		if (!safe_rel_path(rel)) {
			an_reject(a, lpath, "not a path inside the campaign directory");
			free(lpath);
			continue;
		}
		struct an_log_name ln;
		if (an_log_name_parse(lpath, &ln)) {
			add_log(r, lpath, &ln);
			an_log_name_free(&ln);
		} else {
			an_reject(a, lpath, "not a fio log name (expected PREFIX_TYPE.N.log)");
		}
		free(lpath);
	}
}

/* From a file, or from buf when it is not NULL (path then labels it). */
static int read_manifest_from(struct an_analysis *a, const char *dir, const char *path,
			      const char *buf, size_t len)
{
	json_error_t je;
	json_t *root;
	if (buf) {
		root = json_loadb(buf, len, 0, &je);
	} else {
		FILE *f = fopen(path, "r");
		if (!f) {
			fprintf(stderr, "fiocamp-analyze: %s: %s\n", path, strerror(errno));
			return -1;
		}
		root = json_loadf(f, 0, &je);
		fclose(f);
	}
	if (!root) {
		fprintf(stderr, "fiocamp-analyze: %s:%d:%d: %s\n", path, je.line, je.column,
			je.text);
		return -1;
	}
	int rc = 0;
	const char *format = json_string_value(json_object_get(root, "format"));
	if (!json_is_object(root) || !format || strcmp(format, "fiocamp-manifest") != 0) {
		rc = manifest_fail(path, "not a fiocamp manifest (\"format\" is not "
					 "\"fiocamp-manifest\")");
		goto out;
	}
	const json_t *version = json_object_get(root, "version");
	if (!json_is_integer(version) || json_integer_value(version) != 1)
		an_note(a, "%s: manifest version is not 1; read as version 1", path);
	const json_t *states = json_object_get(root, "states");
	if (!json_is_array(states)) {
		rc = manifest_fail(path, "\"states\" is missing or not an array");
		goto out;
	}
	if (a->manifest) {
		an_note(a, "%s: a second manifest; states of the same name are merged", path);
	} else {
		a->manifest = an_strdup(path);
		a->campaign = str_or_null(json_object_get(root, "campaign"));
		a->fio_version = str_or_null(json_object_get(root, "fio_version"));
	}

	size_t unfinished = a->manifest_unfinished;
	size_t i;
	const json_t *js;
	json_array_foreach(states, i, js) {
		const char *name = json_string_value(json_object_get(js, "name"));
		if (!name || !safe_name(name)) {
			an_note(a, "%s: state %zu has no valid name, skipped", path, i + 1);
			continue;
		}
		size_t si = an_state_get(a, name);
		struct an_state *st = &a->states[si];
		st->in_manifest = true;
		free(st->status);
		st->status = str_or_null(json_object_get(js, "status"));
		st->downtime_s = num_or_nan(json_object_get(js, "downtime_s"));
		manifest_state_actions(st, json_object_get(js, "before"));

		size_t k;
		const json_t *jr;
		json_array_foreach(json_object_get(js, "rounds"), k, jr) {
			const json_t *rn = json_object_get(jr, "round");
			if (!json_is_integer(rn) || json_integer_value(rn) < 1 ||
			    json_integer_value(rn) > 1000000) {
				an_note(a, "%s: state %s: a round without a valid number, skipped",
					path, name);
				continue;
			}
			int round = (int)json_integer_value(rn);
			size_t m;
			const json_t *jt;
			json_array_foreach(json_object_get(jr, "tests"), m, jt) {
				if (json_is_object(jt))
					manifest_test(a, dir, name, round, jt);
			}
		}
	}
	unfinished = a->manifest_unfinished - unfinished;
	if (unfinished)
		an_note(a, "%s: %zu run(s) pending, running or skipped, not analyzed", path,
			unfinished);
out:
	json_decref(root);
	return rc;
}

static int read_manifest(struct an_analysis *a, const char *dir, const char *path)
{
	return read_manifest_from(a, dir, path, NULL, 0);
}

int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len)
{
	return read_manifest_from(a, dir, label, buf, len);
}

/* ---- arguments --------------------------------------------------------------- */

static int add_path(struct an_analysis *a, const char *path, const struct an_pattern *pattern,
		    bool no_manifest, bool explicit_file)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "fiocamp-analyze: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		char *manifest = join_path(path, "manifest.json");
		struct stat ms;
		int rc;
		if (!no_manifest && stat(manifest, &ms) == 0)
			rc = read_manifest(a, path, manifest);
		else
			rc = walk(a, path, pattern, no_manifest, 0);
		free(manifest);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "fiocamp-analyze: %s: not a regular file or directory\n", path);
		return -1;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!no_manifest && strcmp(base, "manifest.json") == 0) {
		char *dir = an_strndup(path, (size_t)(base - path));
		if (!dir[0]) {
			free(dir);
			dir = an_strdup(".");
		}
		int rc = read_manifest(a, dir, path);
		free(dir);
		return rc;
	}
	enum an_file_kind kind = an_file_kind(path);
	if (kind == AN_FILE_LOG)
		add_pending_log(a, path);
	else if (kind == AN_FILE_OUTPUT || explicit_file)
		add_named_output(a, path, pattern);
	return 0;
}

int an_discover(struct an_analysis *a, const char *arg, const struct an_pattern *pattern,
		bool no_manifest)
{
	struct stat st;
	if (stat(arg, &st) == 0 || !strpbrk(arg, "*?["))
		return add_path(a, arg, pattern, no_manifest, true);
	glob_t g;
	int rc = glob(arg, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		fprintf(stderr, "fiocamp-analyze: %s: no file matches\n", arg);
		return -1;
	}
	if (rc != 0) {
		fprintf(stderr, "fiocamp-analyze: %s: cannot expand the pattern\n", arg);
		return -1;
	}
	int status = 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (add_path(a, g.gl_pathv[i], pattern, no_manifest, false) < 0)
			status = -1;
	}
	globfree(&g);
	return status;
}

/* ---- matching logs to runs ---------------------------------------------------- */

struct key_ref {
	const char *key;
	size_t run;
};

static int cmp_key_ref(const void *x, const void *y)
{
	return strcmp(((const struct key_ref *)x)->key, ((const struct key_ref *)y)->key);
}

static const struct key_ref *find_key(const struct key_ref *refs, size_t n, const char *key)
{
	struct key_ref probe = {key, 0};
	return bsearch(&probe, refs, n, sizeof(*refs), cmp_key_ref);
}

void an_attach_logs(struct an_analysis *a, const struct an_pattern *pattern)
{
	if (a->n_plogs == 0)
		return;
	struct key_ref *by_key = an_calloc(a->n_runs, sizeof(*by_key));
	struct key_ref *by_id = an_calloc(a->n_runs, sizeof(*by_id));
	char **id_keys = an_calloc(a->n_runs, sizeof(*id_keys));
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		by_key[i] = (struct key_ref){r->key, i};
		id_keys[i] = an_asprintf("%s\x1f%d\x1f%s", r->id.state, r->id.round, r->id.test);
		by_id[i] = (struct key_ref){id_keys[i], i};
	}
	qsort(by_key, a->n_runs, sizeof(*by_key), cmp_key_ref);
	qsort(by_id, a->n_runs, sizeof(*by_id), cmp_key_ref);

	for (size_t i = 0; i < a->n_plogs; i++) {
		struct an_pending_log *pl = &a->plogs[i];
		const struct key_ref *hit = find_key(by_key, a->n_runs, pl->name.key);
		if (!hit)
			hit = find_key(by_key, a->n_runs, pl->name.key_raw);
		if (!hit) {
			/* Same state, round and test, wherever the log lives. */
			struct an_ident id;
			char why[512];
			int rc = pattern ? an_pattern_match(pattern, pl->name.key, &id)
					 : an_infer_default(pl->name.key, &id, why, sizeof(why));
			if (rc == 0) {
				char *k =
				    an_asprintf("%s\x1f%d\x1f%s", id.state, id.round, id.test);
				hit = find_key(by_id, a->n_runs, k);
				free(k);
				an_ident_free(&id);
			}
		}
		if (!hit) {
			an_reject(a, pl->path, "no fio output of the same run found for this log");
			continue;
		}
		add_log(&a->runs[hit->run], pl->path, &pl->name);
	}
	for (size_t i = 0; i < a->n_runs; i++)
		free(id_keys[i]);
	free(id_keys);
	free(by_key);
	free(by_id);
}
