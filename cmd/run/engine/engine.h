/* SPDX-License-Identifier: MIT */
/*
 * The engine: runs a campaign that the campaign file describes, state by
 * state (each state's actions, then its rounds of the suite), resumes one
 * at its first step not done, keeps the machine from being left off
 * (safety.c), and prints the plan for --dry-run.
 */
#ifndef FCR_ENGINE_H
#define FCR_ENGINE_H

#include <stdbool.h>

#include "campaign/campaign.h"

struct fcr_options {
	const char *out_dir;	/* -o: the campaign directory to create */
	const char *resume_dir; /* --resume */
	const char *jobs_dir;	/* --jobs-dir */
	char *campaign_dir;	/* where the campaign file lives (job lookup); may be NULL */
	char *campaign_path;	/* its absolute path, recorded in the manifest; may be NULL */
	bool keep_going;
	bool quiet;
};

/* Runs (or resumes) the campaign.  Returns an exit status (FCR_EXIT_*). */
int fcr_engine_run(const struct fcr_campaign *c, const struct fcr_options *o);
/* Prints the whole plan on stdout.  Returns an exit status. */
int fcr_engine_dry_run(const struct fcr_campaign *c, const struct fcr_options *o);
/* The plan of a fleet (c read for no host): each host's plan as
 * fcr_engine_dry_run() prints it, under a heading naming the host and its
 * target, the file read again for each host with the names in `cat`
 * (borrowed).  Returns the worst exit status. */
struct fcr_catalog;
int fcr_engine_dry_run_fleet(const struct fcr_campaign *c, const struct fcr_catalog *cat,
			     const struct fcr_options *o);

#endif
