/* SPDX-License-Identifier: MIT */
/*
 * Finding the fio job files of a suite: a path given in the campaign, the
 * --jobs-dir, beside the campaign file, the installed directory, and last
 * the copies compiled into the binary.
 */
#ifndef FCR_JOBS_H
#define FCR_JOBS_H

#include <stddef.h>

#include "campaign/campaign.h"
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
	char *origin;			/* the path it came from, or "(built in) rw4k.fio" */
	char *defaults[FCR_SWEEP_OPTS]; /* its `; default` values (NULL: none) */
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

/*
 * What a job file says of the options a sweep varies: the value of its
 * `; default FIOCAMP_IODEPTH=32` comment for option o (borrowed from j; NULL
 * when it has none), which fiocamp-run sets when the point does not.
 * fcr_jobs_resolve() reads them.
 */
const char *fcr_jobs_default(const struct fcr_jobfile *j, enum fcr_sweep_opt o);
/*
 * Checks job file j against the sweep s (NULL: none) of a state that runs
 * it: a swept option must come from its variable (iodepth=${FIOCAMP_IODEPTH})
 * and be set nowhere else in the file; a variable of an option not swept
 * needs a `; default` line.  Each problem is appended to problems as
 * "ORIGIN:LINE: message" (once).  Returns the number appended.
 */
size_t fcr_jobs_check_sweep(const struct fcr_jobfile *j, const struct fcr_sweep *s,
			    struct cm_strv *problems);

/* Whether job file j sets option `key` anywhere (key=value or key alone). */
bool fcr_jobs_sets(const struct fcr_jobfile *j, const char *key);

/* The directory the job files are installed in. */
const char *fcr_jobs_installed_dir(void);

#endif
