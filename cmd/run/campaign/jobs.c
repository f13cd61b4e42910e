/* SPDX-License-Identifier: MIT */
#include "campaign/jobs.h"

#include <dirent.h>
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

int fcr_jobs_resolve(const char *entry, const char *campaign_dir, const char *jobs_dir,
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

void fcr_jobfile_release(struct fcr_jobfile *j)
{
	free(j->test);
	free(j->text);
	free(j->origin);
	memset(j, 0, sizeof(*j));
}
