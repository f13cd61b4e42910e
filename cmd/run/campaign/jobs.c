/* SPDX-License-Identifier: MIT */
#include "campaign/jobs.h"

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
	if (cm_read_file(path, JOBFILE_MAX_BYTES, &out->text, &out->len, err->msg,
			 sizeof(err->msg)) < 0)
		return -1;
	out->origin = cm_strdup(path);
	return 0;
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
	fcr_fail(err, "no job file for test '%s' (looked for %s, and among the built-in ones)",
		 entry, b.s);
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
