/* SPDX-License-Identifier: MIT */
/*
 * Finding the fio job files of a suite: a path given in the campaign, the
 * --jobs-dir, beside the campaign file, the installed directory, and last
 * the copies compiled into the binary.
 */
#ifndef FCR_JOBS_H
#define FCR_JOBS_H

#include <stddef.h>

#include "fcr.h"

struct fcr_embedded_file {
	const char *name; /* "rw4k.fio", "demo.ini" */
	const char *data; /* NUL-terminated */
	size_t len;
};

/* The files of fio-jobs/ compiled in; ends with a NULL name. */
extern const struct fcr_embedded_file fcr_embedded_files[];

/* The embedded file `name`, or NULL. */
const struct fcr_embedded_file *fcr_jobs_embedded(const char *name);

struct fcr_jobfile {
	char *test; /* the test's name: the file name without .fio */
	char *text; /* the job file's bytes, NUL-terminated */
	size_t len;
	char *origin; /* the path it came from, or "(built in) rw4k.fio" */
};

/*
 * Finds the job file for a suite entry (a name like "rw4k", or a path with
 * '/' or ending in ".fio", relative to campaign_dir).  campaign_dir and
 * jobs_dir may be NULL.  Returns 0 with *out filled (fcr_jobfile_release), or -1
 * with err naming every place that was searched.
 */
int fcr_jobs_resolve(const char *entry, const char *campaign_dir, const char *jobs_dir,
		     struct fcr_jobfile *out, struct fcr_error *err);
void fcr_jobfile_release(struct fcr_jobfile *j);

/* The directory the job files are installed in. */
const char *fcr_jobs_installed_dir(void);

#endif
