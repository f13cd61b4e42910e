/* SPDX-License-Identifier: MIT */
#include "campaign/jobs.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifndef FIOCAMP_JOBS_DIR
#define FIOCAMP_JOBS_DIR "/usr/local/share/fiocamp/fio-jobs"
#endif

/* Job files are small; anything bigger is not one. */
#define JOBFILE_MAX_BYTES (1024 * 1024)

const char *fcr_jobs_installed_dir(void)
{
	return FIOCAMP_JOBS_DIR;
}

const struct fcr_embedded_file *fcr_jobs_embedded(const char *name)
{
	for (const struct fcr_embedded_file *e = fcr_embedded_files; e->name; e++) {
		if (!strcmp(e->name, name))
			return e;
	}
	return NULL;
}

static int try_path(const char *path, struct fcr_jobfile *out, struct fcr_error *err)
{
	if (!fcr_path_exists(path))
		return 1;
	char why[512];
	if (cm_read_file(path, JOBFILE_MAX_BYTES, &out->text, &out->len, why, sizeof(why)) < 0)
		return fcr_fail(err, "%s", why);
	out->origin = cm_strdup(path);
	return 0;
}

/* A suggestion reads no more of a directory than this: it is only a hint. */
#define SUGGEST_DIR_ENTRIES_MAX 10000

static void add_stem(struct cm_strv *names, const char *file)
{
	char *stem = fcr_path_stem(file, ".fio");
	cm_strv_add_once(names, stem);
	free(stem);
}

/* The test names of the job files in dir ("rr4k" for rr4k.fio). */
static void add_job_names(const char *dir, struct cm_strv *names)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	size_t seen = 0;
	for (struct dirent *e = readdir(d); e && seen < SUGGEST_DIR_ENTRIES_MAX;
	     e = readdir(d), seen++) {
		size_t n = strlen(e->d_name);
		if (n > 4 && !strcmp(e->d_name + n - 4, ".fio"))
			add_stem(names, e->d_name);
	}
	closedir(d);
}

/* "; did you mean 'rr4k'?" for a test name that has a job file close to it,
 * in the places looked in or among the built-in ones; "" when none. */
static char *suggest_job(const char *entry, const char *campaign_dir, const char *jobs_dir)
{
	struct cm_strv names = {0};
	if (jobs_dir)
		add_job_names(jobs_dir, &names);
	if (campaign_dir) {
		add_job_names(campaign_dir, &names);
		char *sub = cm_asprintf("%s/fio-jobs", campaign_dir);
		add_job_names(sub, &names);
		free(sub);
	}
	add_job_names(fcr_jobs_installed_dir(), &names);
	for (const struct fcr_embedded_file *e = fcr_embedded_files; e->name; e++)
		add_stem(&names, e->name);
	const char *best = fcr_closest_name(entry, &names);
	char *out = best ? cm_asprintf("; did you mean '%s'?", best) : cm_strdup("");
	cm_strv_release(&names);
	return out;
}

static void read_defaults(struct fcr_jobfile *j);

static int resolve_entry(const char *entry, const char *campaign_dir, const char *jobs_dir,
			 struct fcr_jobfile *out, struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	size_t n = strlen(entry);
	bool is_path = strchr(entry, '/') || (n > 4 && !strcmp(entry + n - 4, ".fio"));
	int rc;
	if (is_path) {
		char *path = entry[0] == '/' || !campaign_dir
				 ? cm_strdup(entry)
				 : cm_asprintf("%s/%s", campaign_dir, entry);
		rc = try_path(path, out, err);
		if (rc > 0)
			fcr_fail(err, "job file %s not found", path);
		free(path);
		if (rc != 0)
			return -1;
		out->test = fcr_path_stem(entry, ".fio");
		return 0;
	}
	struct cm_strv tried = {0};
	if (jobs_dir)
		cm_strv_addf(&tried, "%s/%s.fio", jobs_dir, entry);
	if (campaign_dir) {
		cm_strv_addf(&tried, "%s/%s.fio", campaign_dir, entry);
		cm_strv_addf(&tried, "%s/fio-jobs/%s.fio", campaign_dir, entry);
	}
	cm_strv_addf(&tried, "%s/%s.fio", fcr_jobs_installed_dir(), entry);
	for (size_t i = 0; i < tried.n; i++) {
		rc = try_path(tried.v[i], out, err);
		if (rc < 0) {
			cm_strv_release(&tried);
			return -1;
		}
		if (rc == 0) {
			cm_strv_release(&tried);
			out->test = cm_strdup(entry);
			return 0;
		}
	}
	char *fname = cm_asprintf("%s.fio", entry);
	const struct fcr_embedded_file *e = fcr_jobs_embedded(fname);
	free(fname);
	if (e) {
		cm_strv_release(&tried);
		out->text = cm_strndup(e->data, e->len);
		out->len = e->len;
		out->origin = cm_asprintf("(built in) %s.fio", entry);
		out->test = cm_strdup(entry);
		return 0;
	}
	struct cm_buf b = {0};
	for (size_t i = 0; i < tried.n; i++) {
		cm_buf_puts(&b, i ? ", " : "");
		cm_buf_puts(&b, tried.v[i]);
	}
	char *hint = suggest_job(entry, campaign_dir, jobs_dir);
	/* the hint first: a long list of places may be cut short */
	fcr_fail(err, "no job file for test '%s'%s (looked for %s, and among the built-in ones)",
		 entry, hint, b.s);
	free(hint);
	cm_buf_release(&b);
	cm_strv_release(&tried);
	return -1;
}

int fcr_jobs_resolve(const char *entry, const char *campaign_dir, const char *jobs_dir,
		     struct fcr_jobfile *out, struct fcr_error *err)
{
	if (resolve_entry(entry, campaign_dir, jobs_dir, out, err) < 0)
		return -1;
	read_defaults(out);
	return 0;
}

/* ---- the options a sweep varies --------------------------------------- */

/* fio's names of each option a sweep varies (HOWTO: the aliases too). */
static bool opt_key(enum fcr_sweep_opt o, const char *key, size_t n)
{
	static const char *const names[FCR_SWEEP_OPTS][3] = {
	    [FCR_SWEEP_IODEPTH] = {"iodepth"},	   [FCR_SWEEP_NUMJOBS] = {"numjobs"},
	    [FCR_SWEEP_BS] = {"bs", "blocksize"},  [FCR_SWEEP_RW] = {"rw", "readwrite"},
	    [FCR_SWEEP_RWMIXREAD] = {"rwmixread"},
	};
	for (size_t i = 0; i < 3 && names[o][i]; i++) {
		if (strlen(names[o][i]) == n && !strncmp(key, names[o][i], n))
			return true;
	}
	return false;
}

/* One line of a job file, cut into what the checks look at. */
struct job_line {
	const char *key; /* an option's name (not NUL-terminated) */
	size_t key_len;
	char *value;	 /* its value, trimmed; NULL: a comment, a section, blank */
	char *dflt_name; /* of a `; default FIOCAMP_X=V` comment */
	char *dflt_value;
};

static void job_line_release(struct job_line *l)
{
	free(l->value);
	free(l->dflt_name);
	free(l->dflt_value);
}

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static char *trimmed(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return cm_strndup(s, n);
}

static void cut_line(const char *s, size_t n, struct job_line *l)
{
	memset(l, 0, sizeof(*l));
	char *line = cm_strndup(s, n);
	const char *t = skip_blanks(line);
	if (*t == ';' || *t == '#') {
		t = skip_blanks(t + 1);
		if (!strncmp(t, "default", 7) && (t[7] == ' ' || t[7] == '\t')) {
			t = skip_blanks(t + 7);
			const char *eq = strchr(t, '=');
			const char *end = eq ? eq + 1 + strcspn(eq + 1, " \t\r") : NULL;
			if (eq && eq > t && end > eq + 1) {
				l->dflt_name = cm_strndup(t, (size_t)(eq - t));
				l->dflt_value = cm_strndup(eq + 1, (size_t)(end - eq - 1));
			}
		}
	} else if (*t && *t != '[') {
		size_t k = strcspn(t, " \t=");
		const char *eq = strchr(t, '=');
		l->key = s + (t - line);
		l->key_len = k;
		l->value =
		    eq ? trimmed(skip_blanks(eq + 1), strlen(skip_blanks(eq + 1))) : cm_strdup("");
	}
	free(line);
}

/* Calls fn on every line of j, numbered from 1; stops when it returns false. */
static void each_line(const struct fcr_jobfile *j,
		      bool (*fn)(void *opaque, unsigned line, const struct job_line *l),
		      void *opaque)
{
	const char *pos = j->text, *end = j->text + j->len;
	for (unsigned no = 1; pos < end; no++) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t n = nl ? (size_t)(nl - pos) : (size_t)(end - pos);
		struct job_line l;
		cut_line(pos, n, &l);
		bool go = fn(opaque, no, &l);
		job_line_release(&l);
		if (!go)
			return;
		pos = nl ? nl + 1 : end;
	}
}

struct find_default {
	const char *env;
	const struct fcr_jobfile *j;
	char *value;
};

static bool find_default_line(void *opaque, unsigned line, const struct job_line *l)
{
	(void)line;
	struct find_default *fd = opaque;
	if (l->dflt_name && !strcmp(l->dflt_name, fd->env)) {
		fd->value = cm_strdup(l->dflt_value);
		return false;
	}
	return true;
}

static void read_defaults(struct fcr_jobfile *j)
{
	for (size_t i = 0; i < FCR_SWEEP_OPTS; i++) {
		struct find_default fd = {fcr_sweep_opt_env((enum fcr_sweep_opt)i), j, NULL};
		each_line(j, find_default_line, &fd);
		j->defaults[i] = fd.value;
	}
}

const char *fcr_jobs_default(const struct fcr_jobfile *j, enum fcr_sweep_opt o)
{
	return j->defaults[o];
}

struct find_key {
	const char *key;
	bool found;
};

static bool find_key_line(void *opaque, unsigned line, const struct job_line *l)
{
	(void)line;
	struct find_key *fk = opaque;
	if (l->value && strlen(fk->key) == l->key_len && !strncmp(l->key, fk->key, l->key_len))
		fk->found = true;
	return !fk->found;
}

bool fcr_jobs_sets(const struct fcr_jobfile *j, const char *key)
{
	struct find_key fk = {key, false};
	each_line(j, find_key_line, &fk);
	return fk.found;
}

struct check_sweep {
	const struct fcr_jobfile *j;
	bool swept[FCR_SWEEP_OPTS];
	bool taken[FCR_SWEEP_OPTS];    /* a line opt=${FIOCAMP_OPT} */
	bool set[FCR_SWEEP_OPTS];      /* a line that sets it otherwise */
	unsigned used[FCR_SWEEP_OPTS]; /* the first line naming ${FIOCAMP_OPT} */
	struct cm_strv *problems;
	size_t n;
};

static void problem(struct check_sweep *cs, unsigned line, const char *fmt, ...) CM_PRINTF(3, 4);
static void problem(struct check_sweep *cs, unsigned line, const char *fmt, ...)
{
	char msg[600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	char *full = line ? cm_asprintf("%s:%u: %s", cs->j->origin, line, msg)
			  : cm_asprintf("%s: %s", cs->j->origin, msg);
	size_t before = cs->problems->n;
	cm_strv_add_once(cs->problems, full);
	cs->n += cs->problems->n - before;
	free(full);
}

static bool check_line(void *opaque, unsigned line, const struct job_line *l)
{
	struct check_sweep *cs = opaque;
	if (!l->value)
		return true;
	for (size_t i = 0; i < FCR_SWEEP_OPTS; i++) {
		enum fcr_sweep_opt o = (enum fcr_sweep_opt)i;
		const char *env = fcr_sweep_opt_env(o);
		char *var = cm_asprintf("${%s}", env);
		if (strstr(l->value, var) && !cs->used[i])
			cs->used[i] = line;
		if (opt_key(o, l->key, l->key_len)) {
			bool taken = !strcmp(l->value, var);
			cs->taken[i] |= taken;
			cs->set[i] |= !taken;
			if (!taken && cs->swept[i])
				problem(cs, line,
					"sets %s itself ('%.*s=%s'), which the campaign sweeps: "
					"write %s=%s",
					fcr_sweep_opt_name(o), (int)l->key_len, l->key, l->value,
					fcr_sweep_opt_name(o), var);
		}
		free(var);
	}
	return true;
}

size_t fcr_jobs_check_sweep(const struct fcr_jobfile *j, const struct fcr_sweep *s,
			    struct cm_strv *problems)
{
	struct check_sweep cs = {.j = j, .problems = problems};
	for (size_t a = 0; s && a < s->n_axes; a++)
		cs.swept[s->axes[a].opt] = true;
	each_line(j, check_line, &cs);
	for (size_t i = 0; i < FCR_SWEEP_OPTS; i++) {
		enum fcr_sweep_opt o = (enum fcr_sweep_opt)i;
		const char *name = fcr_sweep_opt_name(o), *env = fcr_sweep_opt_env(o);
		if (cs.swept[i] && !cs.taken[i] && !cs.set[i])
			problem(&cs, 0,
				"does not take %s from the environment, which the campaign "
				"sweeps: it needs a line %s=${%s}",
				name, name, env);
		else if (!cs.swept[i] && cs.used[i] && !fcr_jobs_default(j, o))
			problem(&cs, cs.used[i],
				"reads ${%s} but gives no default for a run without a sweep of "
				"%s: add a line '; default %s=VALUE'",
				env, name, env);
	}
	return cs.n;
}

void fcr_jobfile_release(struct fcr_jobfile *j)
{
	free(j->test);
	free(j->text);
	free(j->origin);
	for (size_t i = 0; i < FCR_SWEEP_OPTS; i++)
		free(j->defaults[i]);
	memset(j, 0, sizeof(*j));
}
