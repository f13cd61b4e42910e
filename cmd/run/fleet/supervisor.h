/* SPDX-License-Identifier: MIT */
/*
 * A fleet: one campaign on several hosts at once (`hosts =`), each host's
 * engine a child process of its own (`fiocamp-run --host NAME -o
 * DIR/hosts/NAME FILE`), kept in step by this supervisor: no host begins a
 * state's repetition before every live host has ended the one before
 * (sync = states), hosts on one Proxmox node transition one at a time, one
 * status line for all, and the fleet's manifest.json (docs/campaign-
 * directory.md, "The fleet directory").  The hosts' side of the socket is
 * link.h.
 */
#ifndef FCR_FLEET_SUPERVISOR_H
#define FCR_FLEET_SUPERVISOR_H

#include <stdbool.h>

#include "campaign/campaign.h"

/* The fleet manifest's "format" and "version". */
#define FCR_FLEET_FORMAT  "fiocamp-fleet"
#define FCR_FLEET_VERSION 1
/* The variable that names the host to its engine and everything it runs. */
#define FCR_FLEET_HOST_ENV "FIOCAMP_HOST"
/* The hosts' directories below the fleet's. */
#define FCR_FLEET_HOSTS "hosts"

struct fcr_fleet_options {
	const char *out_dir;	   /* -o: the fleet's directory to create */
	const char *resume_dir;	   /* --resume of a fleet's directory */
	const char *file;	   /* the campaign file as given; NULL on --resume */
	const char *campaign_path; /* its absolute path (recorded); may be NULL */
	const char *jobs_dir;	   /* --jobs-dir, passed on */
	bool keep_going;	   /* -k, passed on */
	bool quiet;		   /* -q, passed on */
};

/*
 * Runs (or, with o->resume_dir, resumes) the fleet of campaign c, which
 * lists its hosts (c->n_hosts > 0, read without --host).  Returns an exit
 * status: FCR_EXIT_OK when every host is done, else the worst of the
 * hosts' (a failure before an interrupt).
 */
int fcr_fleet_run(const struct fcr_campaign *c, const struct fcr_fleet_options *o);

#endif
