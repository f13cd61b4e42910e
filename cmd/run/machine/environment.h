/* SPDX-License-Identifier: MIT */
/*
 * What the target is (docs/campaign-directory.md, "environments"): its
 * kernel, distribution, CPU, memory, virtualization, fio, THP and CPU
 * frequency governor, and for each place of the test files the file system
 * and the chain of block devices under it, through device-mapper, LVM, md
 * and loop devices (and a loop device's backing file) down to the disks.
 *
 * One shell script gathers the facts on a local and an ssh target alike
 * (one command per capture); fcr_environment_parse() turns its lines into
 * the manifest's object, so that the parsing is tested without the
 * machines.  What cannot be read is null, never a guess, and a capture
 * never fails: a target that lets us read nothing still runs its campaign.
 */
#ifndef FCR_ENVIRONMENT_H
#define FCR_ENVIRONMENT_H

#include <jansson.h>

#include "machine/target.h"

#define FCR_ENV_DEVICES_MAX 16 /* as many disk lines as a telemetry sample holds */

/*
 * Captures the environment of t's places: {"host": {...}, "places": [...]}
 * (a new reference).  When the script could not run at all, "error" says
 * why and the facts are null.
 */
json_t *fcr_environment_capture(struct fcr_target *t);

/* The object the script's output `text` (modified) describes; place k of
 * the output is named by variants[k] (NULL: the campaign's own place) and
 * paths[k].  Exposed for the tests. */
json_t *fcr_environment_parse(char *text, const char *const *variants, const char *const *paths,
			      size_t n_places);

/*
 * The devices the sampler reads for the place of `variant` (NULL: the
 * campaign's) in capture env: the top device (the file system's source, or
 * the variant's device) first, then the disks at the bottom of its chain;
 * at most FCR_ENV_DEVICES_MAX names into out.  0 names when the place has
 * no block device (tmpfs) or the capture could not tell.
 */
void fcr_environment_devices(json_t *env, const char *variant, struct cm_strv *out);

/* Whether two captures say the same, ignoring when and where they were
 * taken ("id", "captured", "where"). */
bool fcr_environment_same(json_t *a, json_t *b);

#endif
