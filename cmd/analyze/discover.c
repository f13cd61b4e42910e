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

#include "analyze.h"

static char *join_path(const char *dir, const char *name)
{
	size_t dl = strlen(dir);
	if (dl == 0 || (dl == 1 && dir[0] == '.'))
		return cm_strdup(name);
	if (dir[dl - 1] == '/')
		return cm_asprintf("%s%s", dir, name);
	return cm_asprintf("%s/%s", dir, name);
}

/* The path below the input's root ("" for the root itself); borrowed. */
static const char *rel_to(const char *root, const char *path)
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
static char *group_of(const char *rel, size_t drop)
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

static struct an_run *add_run(struct an_analysis *a, size_t in, const char *path)
{
	struct an_run *r = CM_PUSH(a->runs, a->n_runs, a->cap_runs);
	r->path = cm_strdup(path);
	r->key = an_output_key(path);
	r->input = in;
	r->campaign = SIZE_MAX;
	r->timestamp_ms = -1;
	r->time_based = -1;
	r->bonnie_test = -1;
	return r;
}

static void add_log(struct an_run *r, const char *path, const struct an_log_name *ln)
{
	struct an_log *l = CM_PUSH(r->logs, r->n_logs, r->cap_logs);
	l->path = cm_strdup(path);
	l->type = ln ? ln->type : FC_LOG_UNKNOWN;
	l->index = ln ? ln->index : 0;
}

/* An output file outside a manifest: what its path says of it.  `maybe`:
 * a name that is not fio's own (.txt, .log, none ...), read if its content
 * is fio's, else skipped. */
static struct an_run *add_named_output(struct an_analysis *a, size_t in, const char *path,
				       const struct an_pattern *pattern, bool maybe)
{
	const struct an_input *inp = &a->inputs[in];
	struct an_ident id;
	char *key = an_output_key(path);
	const char *rel = rel_to(inp->root, key);
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
		struct an_run *r = add_run(a, in, path);
		r->source = AN_ID_PATTERN;
		r->id = id;
		r->group = group_of(rel, an_pattern_dirs(pattern));
		r->maybe = maybe;
		free(key);
		return r;
	}
	struct an_run *r = add_run(a, in, path);
	r->maybe = maybe;
	if (an_infer_layout(key, &id) == 0) {
		r->source = AN_ID_LAYOUT;
		r->id = id;
		r->group = group_of(rel, 2);
	} else {
		r->source = AN_ID_NAME;
		r->group = group_of(rel, 0);
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

static int read_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path);

struct walk_ctx {
	struct an_analysis *a;
	size_t in;
	const struct an_pattern *pattern;
	bool no_manifest;
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

/* 0, or -1 when a campaign directory in the tree has a manifest that
 * cannot be read (printed). */
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
			char *path = join_path(dir, e->d_name);
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
		char *manifest = join_path(dir, CM_CAMPAIGN_MANIFEST);
		status = read_manifest(a, w->in, dir, manifest);
		free(manifest);
	}
	/* Sorted, so that the order of runs does not depend on the file system. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_entry);
	for (size_t i = 0; i < n; i++) {
		if (!by_manifest && walk_entry(w, dir, &names[i], campaign, depth) < 0)
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

/* Text from a manifest, as valid UTF-8 (jansson checks what it loads, but
 * the manifest is not the only way in). */
static char *str_or_null(const json_t *v)
{
	return json_is_string(v) ? cm_utf8_dup(json_string_value(v)) : NULL;
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

static int manifest_fail(const char *path, const char *what)
{
	fprintf(stderr, "fiocamp-analyze: %s: %s\n", path, what);
	return -1;
}

/* The actions of one repetition (of a state without `repeat`: the state's
 * own `before`), appended to the transition's. */
static void manifest_rep(struct an_transition *tr, size_t *cap, size_t *cap_reps, const json_t *obj,
			 int repetition)
{
	struct an_rep *rep = CM_PUSH(tr->reps, tr->n_reps, *cap_reps);
	size_t rep_index = tr->n_reps - 1;
	rep->repetition = repetition;
	rep->status = str_or_null(json_object_get(obj, "status"));
	rep->downtime_s = num_or_nan(json_object_get(obj, "downtime_s"));
	rep->first_action = tr->n_actions;
	const json_t *before = json_object_get(obj, "before");
	size_t i;
	const json_t *act;
	json_array_foreach(before, i, act) {
		if (!json_is_object(act))
			continue;
		struct an_action *ac = CM_PUSH(tr->actions, tr->n_actions, *cap);
		ac->rep = rep_index;
		ac->index = tr->n_actions - rep->first_action;
		ac->action = str_or_null(json_object_get(act, "action"));
		ac->text = str_or_null(json_object_get(act, "text"));
		ac->status = str_or_null(json_object_get(act, "status"));
		ac->error = str_or_null(json_object_get(act, "error"));
		ac->duration_s = num_or_nan(json_object_get(act, "duration_s"));
		ac->downtime_s = num_or_nan(json_object_get(act, "downtime_s"));
		ac->task_duration_s = NAN;
		ac->hash_match = -1;
		/* verify-hash: the data's checksum against the one taken before */
		const json_t *match = json_object_get(json_object_get(act, "result"), "match");
		if (json_is_boolean(match)) {
			ac->hash_match = json_is_true(match) ? 1 : 0;
			rep->hash_checks++;
			rep->hash_matched += ac->hash_match == 1;
		}
		const json_t *task = json_object_get(act, "task");
		if (json_is_object(task)) {
			ac->task_name = str_or_null(json_object_get(task, "name"));
			if (!ac->task_name)
				ac->task_name = cm_strdup("task");
			ac->task_duration_s = num_or_nan(json_object_get(task, "duration_s"));
			ac->clock = str_or_null(json_object_get(task, "clock"));
			/* an action that ran several tasks (reboot) sums them up */
			json_int_t count = json_integer_value(json_object_get(task, "count"));
			ac->n_tasks = count > 0 ? (size_t)count : 1;
		}
	}
	rep->n_actions = tr->n_actions - rep->first_action;
	tr->hash_checks += rep->hash_checks;
	tr->hash_matched += rep->hash_matched;
	/* The controller's data back when it wrote one (null included: nothing
	 * took the machine away, or no verify-hash matched); else the same
	 * measure from the actions, for manifests written before it. */
	const json_t *back = json_object_get(obj, "data_back_s");
	rep->data_back_recorded = back != NULL;
	/* a transition without actions has no array to point into */
	rep->data_back_s = back ? num_or_nan(back)
			   : !rep->n_actions
			       ? NAN
			       : an_data_back_s(tr->actions + rep->first_action, rep->n_actions);
}

/* "vm, kernel 6.1.0, 2 CPUs, 3.8 GiB; target ssh root@vps" from the
 * manifest's host facts, for the report; NULL when it has none. */
static char *manifest_host(const json_t *root)
{
	const json_t *host = json_object_get(root, "host");
	struct cm_buf b = {NULL, 0, 0};
	const char *name = json_string_value(json_object_get(host, "hostname"));
	const char *kernel = json_string_value(json_object_get(host, "kernel"));
	const json_t *cpus = json_object_get(host, "cpus");
	const json_t *mem = json_object_get(host, "mem_kib");
	const char *target = json_string_value(json_object_get(root, "target"));
	if (name)
		cm_buf_puts(&b, name);
	if (kernel)
		cm_buf_printf(&b, "%skernel %s", b.len ? ", " : "", kernel);
	if (json_is_integer(cpus))
		cm_buf_printf(&b, "%s%lld CPUs", b.len ? ", " : "",
			      (long long)json_integer_value(cpus));
	if (json_is_integer(mem))
		cm_buf_printf(&b, "%s%.1f GiB", b.len ? ", " : "",
			      (double)json_integer_value(mem) / (1024.0 * 1024.0));
	if (target)
		cm_buf_printf(&b, "%starget %s", b.len ? "; " : "", target);
	if (!b.len)
		return NULL;
	char *clean = cm_utf8_dup(b.s);
	cm_buf_release(&b);
	return clean;
}

struct manifest_ctx {
	struct an_analysis *a;
	size_t in;
	size_t campaign;
	const char *dir;
	const char *group;
};

/* A run of the manifest's, at `path`, known by its identity: a rejected one
 * has a reason (and is listed, and counts against its variant's stability). */
static struct an_run *manifest_run(struct manifest_ctx *m, const char *path, const char *state,
				   int round, int rep_round, const char *test, const char *variant)
{
	struct an_run *r = add_run(m->a, m->in, path);
	r->source = AN_ID_MANIFEST;
	r->campaign = m->campaign;
	r->group = cm_strdup(m->group);
	r->id.state = cm_strdup(state);
	r->id.round = round;
	r->rep_round = rep_round;
	r->id.test = cm_strdup(test);
	if (variant)
		r->id.variant = cm_strdup(variant);
	return r;
}

static void manifest_test(struct manifest_ctx *m, const char *state, int round, int rep_round,
			  const json_t *t, const json_t *jround)
{
	struct an_analysis *a = m->a;
	const char *dir = m->dir;
	const char *test = json_string_value(json_object_get(t, "test"));
	const char *status = json_string_value(json_object_get(t, "status"));
	const char *json = json_string_value(json_object_get(t, "json"));
	/* Variants within one campaign (backends, devices): the test's, else
	 * its round's "variant". */
	const json_t *jv = json_object_get(t, "variant");
	if (!json_is_string(jv))
		jv = json_object_get(jround, "variant");
	const char *variant = json_string_value(jv);
	if (!test || !cm_campaign_name_ok(test)) {
		an_note(a,
			"%s/" CM_CAMPAIGN_MANIFEST
			": state %s round %d: a test without a valid name, "
			"skipped",
			dir, state, round);
		return;
	}
	if (variant && !cm_campaign_name_ok(variant)) {
		an_note(a,
			"%s/" CM_CAMPAIGN_MANIFEST
			": state %s round %d test %s: a variant without a valid "
			"name, skipped",
			dir, state, round, test);
		return;
	}
	/* where its files would be (the round numbered on over a repeated
	 * state's repetitions) */
	char *stem = cm_campaign_run_stem(state, 0, (unsigned)round, NULL, test);
	char *label = cm_asprintf("%s/%s", dir, stem);
	free(stem);
	if (!status)
		status = CM_STATUS_DONE;
	if (cm_status_not_run(status)) {
		a->manifest_unfinished++;
		free(label);
		return;
	}
	if (!cm_status_is(status, CM_STATUS_DONE)) {
		char *where = json && safe_rel_path(json) ? join_path(dir, json) : cm_strdup(label);
		struct an_run *r = manifest_run(m, where, state, round, rep_round, test, variant);
		const json_t *es = json_object_get(t, "exit_status");
		if (json_is_integer(es))
			r->reason =
			    cm_asprintf("the campaign marks this run %s (fio exit status %lld)",
					status, (long long)json_integer_value(es));
		else
			r->reason = cm_asprintf("the campaign marks this run %s", status);
		free(where);
		free(label);
		return;
	}
	if (!json) {
		manifest_run(m, label, state, round, rep_round, test, variant)->reason =
		    cm_strdup(CM_CAMPAIGN_MANIFEST " lists the run as done but names no JSON file");
		free(label);
		return;
	}
	if (!safe_rel_path(json)) {
		an_reject(a, label,
			  CM_CAMPAIGN_MANIFEST
			  " names \"%s\", which is not a path inside the campaign "
			  "directory",
			  json);
		free(label);
		return;
	}
	free(label);
	char *path = join_path(dir, json);
	struct an_run *r = manifest_run(m, path, state, round, rep_round, test, variant);
	free(path);

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

/*
 * The rounds of a state, or of one repetition of it (rep not NULL: its
 * files are under STATE/rep<k>/).  Its rounds are numbered from offset + 1
 * in the state; returns the highest number given, for the next repetition.
 */
static int manifest_rounds(struct manifest_ctx *m, const char *path, const char *name,
			   const int *rep, int offset, const json_t *rounds)
{
	int top = offset;
	size_t k;
	const json_t *jr;
	json_array_foreach(rounds, k, jr) {
		const json_t *rn = json_object_get(jr, "round");
		if (!json_is_integer(rn) || json_integer_value(rn) < 1 ||
		    json_integer_value(rn) > 1000000) {
			if (rep)
				an_note(m->a,
					"%s: state %s repetition %d: a round without a valid "
					"number, skipped",
					path, name, *rep);
			else
				an_note(m->a,
					"%s: state %s: a round without a valid number, skipped",
					path, name);
			continue;
		}
		int round = offset + (int)json_integer_value(rn);
		if (round > top)
			top = round;
		size_t t;
		const json_t *jt;
		json_array_foreach(json_object_get(jr, "tests"), t, jt) {
			if (json_is_object(jt))
				manifest_test(m, name, round, rep ? (int)json_integer_value(rn) : 0,
					      jt, jr);
		}
	}
	return top;
}

/* From a file, or from buf when it is not NULL (path then labels it). */
static int read_manifest_from(struct an_analysis *a, size_t in, const char *dir, const char *path,
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
	if (!json_is_object(root) || !format || strcmp(format, CM_MANIFEST_FORMAT) != 0) {
		rc = manifest_fail(path, "not a fiocamp manifest (\"format\" is not "
					 "\"" CM_MANIFEST_FORMAT "\")");
		goto out;
	}
	const json_t *version = json_object_get(root, "version");
	if (!json_is_integer(version) || json_integer_value(version) != CM_MANIFEST_VERSION)
		an_note(a, "%s: manifest version is not %d; read as version %d", path,
			CM_MANIFEST_VERSION, CM_MANIFEST_VERSION);
	const json_t *states = json_object_get(root, "states");
	if (!json_is_array(states)) {
		rc = manifest_fail(path, "\"states\" is missing or not an array");
		goto out;
	}
	struct an_campaign *c = CM_PUSH(a->campaigns, a->n_campaigns, a->cap_campaigns);
	c->manifest = cm_strdup(path);
	c->name = str_or_null(json_object_get(root, "campaign"));
	c->fio_version = str_or_null(json_object_get(root, "fio_version"));
	c->host = manifest_host(root);
	c->input = in;
	c->group = group_of(rel_to(a->inputs[in].root, path), 0);
	/* "netcup", or an object with its "type" */
	const json_t *prov = json_object_get(root, "provider");
	if (json_is_object(prov))
		prov = json_object_get(prov, "type");
	c->provider = str_or_null(prov);
	struct manifest_ctx m = {a, in, a->n_campaigns - 1, dir, c->group};

	size_t unfinished = a->manifest_unfinished;
	size_t i;
	const json_t *js;
	json_array_foreach(states, i, js) {
		const char *name = json_string_value(json_object_get(js, "name"));
		if (!name || !cm_campaign_name_ok(name)) {
			an_note(a, "%s: state %zu has no valid name, skipped", path, i + 1);
			continue;
		}
		size_t si = an_state_get(a, name);
		a->states[si].in_manifest = true;
		struct an_transition *tr = an_transition_get(a, si, m.campaign);
		/* the same state twice in one manifest: its runs are read, its
		 * transition is the first listing's */
		bool dup = tr->n_reps > 0;
		if (dup)
			an_note(a, "%s: state %s is listed twice; its first transition is used",
				path, name);
		else
			tr->status = str_or_null(json_object_get(js, "status"));
		const json_t *reps = json_object_get(js, "repetitions");
		const json_t *jrep = json_object_get(js, "repeat");
		if (!dup && jrep) {
			if (json_is_integer(jrep) && json_integer_value(jrep) >= 1 &&
			    json_integer_value(jrep) <= CM_CAMPAIGN_REPEAT_MAX)
				tr->repeat = (int)json_integer_value(jrep);
			else
				an_note(a,
					"%s: state %s: \"repeat\" is not a number 1..%d, read as 1",
					path, name, CM_CAMPAIGN_REPEAT_MAX);
		}
		size_t cap = 0, cap_reps = 0;
		if (!json_is_array(reps)) {
			if (!dup)
				manifest_rep(tr, &cap, &cap_reps, js, 1);
			manifest_rounds(&m, path, name, NULL, 0, json_object_get(js, "rounds"));
		} else {
			/* a repetition's rounds follow the earlier repetitions' in
			 * the state's round numbers */
			int offset = 0;
			size_t k;
			const json_t *jp;
			json_array_foreach(reps, k, jp) {
				if (k >= CM_CAMPAIGN_REPEAT_MAX) {
					an_note(
					    a,
					    "%s: state %s: more than %d repetitions; the rest are "
					    "not read",
					    path, name, CM_CAMPAIGN_REPEAT_MAX);
					break;
				}
				const json_t *kn = json_object_get(jp, "repetition");
				if (!json_is_object(jp) || !json_is_integer(kn) ||
				    json_integer_value(kn) < 1 ||
				    json_integer_value(kn) > CM_CAMPAIGN_REPEAT_MAX) {
					an_note(a,
						"%s: state %s: a repetition without a valid number "
						"(1..%d), skipped",
						path, name, CM_CAMPAIGN_REPEAT_MAX);
					continue;
				}
				int rk = (int)json_integer_value(kn);
				if (!dup)
					manifest_rep(tr, &cap, &cap_reps, jp, rk);
				offset = manifest_rounds(&m, path, name, &rk, offset,
							 json_object_get(jp, "rounds"));
			}
		}
		double *down = cm_calloc(tr->n_reps + 1, sizeof(*down));
		size_t n_down = 0;
		for (size_t k = 0; k < tr->n_reps; k++) {
			if (isfinite(tr->reps[k].downtime_s))
				down[n_down++] = tr->reps[k].downtime_s;
		}
		tr->downtime_s = an_median(down, n_down);
		free(down);
	}
	unfinished = a->manifest_unfinished - unfinished;
	if (unfinished)
		an_note(a, "%s: %zu run(s) pending, running or skipped, not analyzed", path,
			unfinished);
out:
	json_decref(root);
	return rc;
}

static int read_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path)
{
	return read_manifest_from(a, in, dir, path, NULL, 0);
}

int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len)
{
	if (a->n_inputs == 0)
		an_add_input(a, dir, NULL);
	return read_manifest_from(a, 0, dir, label, buf, len);
}

/* ---- inputs ------------------------------------------------------------------- */

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
static char *dir_name(const char *dir, size_t k)
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
		in->name = in->label ? cm_utf8_dup(in->label) : dir_name(in->root, 1);
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
				x->name = dir_name(x->root, k);
				y->name = dir_name(y->root, k);
			}
		}
		if (!clash)
			break;
	}
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
		const char *rel = rel_to(inp->root, r->key);
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
		const char *rel = rel_to(inp->root, r->key);
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
		r->id.variant = dev[0] ? dev : dir_name(inp->root, 1);
		if (!dev[0])
			free(dev);
		free(r->group);
		r->group = cm_strdup("");
	}
}

/* ---- arguments --------------------------------------------------------------- */

static int add_path(struct an_analysis *a, size_t in, const char *path,
		    const struct an_pattern *pattern, bool no_manifest, bool explicit_file)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "fiocamp-analyze: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		char *manifest = join_path(path, CM_CAMPAIGN_MANIFEST);
		struct stat ms;
		int rc;
		if (!no_manifest && stat(manifest, &ms) == 0) {
			rc = read_manifest(a, in, path, manifest);
		} else {
			struct walk_ctx w = {a, in, pattern, no_manifest};
			rc = walk(&w, path, 0);
		}
		free(manifest);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "fiocamp-analyze: %s: not a regular file or directory\n", path);
		return -1;
	}
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!no_manifest && strcmp(base, CM_CAMPAIGN_MANIFEST) == 0) {
		char *dir = cm_strndup(path, (size_t)(base - path));
		if (!dir[0]) {
			free(dir);
			dir = cm_strdup(".");
		}
		int rc = read_manifest(a, in, dir, path);
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
		const struct an_options *opt)
{
	const char *arg = a->inputs[in].arg;
	struct stat st;
	int status = 0;
	if (stat(arg, &st) == 0 || !strpbrk(arg, "*?[")) {
		status = add_path(a, in, arg, pattern, opt->no_manifest, true);
	} else {
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
		for (size_t i = 0; i < g.gl_pathc; i++) {
			if (add_path(a, in, g.gl_pathv[i], pattern, opt->no_manifest, false) < 0)
				status = -1;
		}
		globfree(&g);
	}
	if (status == 0 && !pattern && opt->layout != AN_LAYOUT_NAMES)
		detect_bench_fio(a, in, opt->layout);
	return status;
}
