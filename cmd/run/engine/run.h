/* SPDX-License-Identifier: MIT */
/* Running a campaign: the plan, the steps, resume, and the end report. */
#ifndef FCR_RUN_H
#define FCR_RUN_H

#include <stdbool.h>

#include "campaign/campaign.h"

enum {
	FCR_EXIT_OK = 0,
	FCR_EXIT_FAILED = 1,
	FCR_EXIT_USAGE = 2,
	FCR_EXIT_INTERRUPTED = 130,
};

struct fcr_options {
	const char *out_dir;	/* -o: the campaign directory to create */
	const char *resume_dir; /* --resume */
	const char *jobs_dir;	/* --jobs-dir */
	char *campaign_dir;	/* where the campaign file lives (job lookup); may be NULL */
	char *campaign_path;	/* its absolute path, recorded in the manifest; may be NULL */
	bool keep_going;
	bool quiet;
};

/* Prints the whole plan on stdout.  Returns an exit status. */
int fcr_run_dry(const struct fcr_campaign *c, const struct fcr_options *o);
/* Runs (or resumes) the campaign.  Returns an exit status. */
int fcr_run_campaign(const struct fcr_campaign *c, const struct fcr_options *o);

#endif
