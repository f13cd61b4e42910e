/* SPDX-License-Identifier: MIT */
/* Running a campaign: the plan, the steps, resume, and the end report. */
#ifndef FCR_RUN_H
#define FCR_RUN_H

#include <stdbool.h>

#include "campaign/campaign.h"

enum {
	EXIT_RUN_OK = 0,
	EXIT_RUN_FAILED = 1,
	EXIT_RUN_USAGE = 2,
	EXIT_RUN_INTERRUPTED = 130,
};

struct run_options {
	const char *out_dir;	/* -o: the campaign directory to create */
	const char *resume_dir; /* --resume */
	const char *jobs_dir;	/* --jobs-dir */
	char *campaign_dir;	/* where the campaign file lives (job lookup); may be NULL */
	char *campaign_path;	/* its absolute path, recorded in the manifest; may be NULL */
	bool keep_going;
	bool quiet;
};

/* Prints the whole plan on stdout.  Returns an exit status. */
int run_dry(const struct campaign *c, const struct run_options *o);
/* Runs (or resumes) the campaign.  Returns an exit status. */
int run_campaign(const struct campaign *c, const struct run_options *o);

#endif
