/* SPDX-License-Identifier: MIT */
/*
 * What the machine does while fio runs: a sampler on the target reads
 * /proc/stat, the /proc/diskstats lines of the test file's devices,
 * /proc/pressure/io and cpu (where the kernel has them) and /proc/cpuinfo's
 * MHz once a second, from just before fio starts until it ended.  One
 * shell loop does it on a local and an ssh target alike (locally a child
 * process, remotely a second ssh session: fio's own process is never
 * touched); it prints the files' lines as they are, with /proc/uptime,
 * into a file the controller reads when fio ended and turns into
 * <test>.telemetry (cmd/common/telemetry.h, version 1) and the summary of
 * the manifest's test entry.
 *
 * Nothing of this fails a run: a sampler that cannot start, or a target
 * whose files cannot be read, leaves its telemetry null with the reason.
 */
#ifndef FCR_SAMPLER_H
#define FCR_SAMPLER_H

#include <stdio.h>

#include <jansson.h>

#include "machine/spawn.h"
#include "machine/target.h"
#include "common/telemetry.h"

struct fcr_sampler {
	struct fcr_target *t;
	struct cm_strv devices; /* the top device first, then its disks */
	struct fcr_child child;
	bool running;
	FILE *raw;	   /* what the loop printed (an unlinked temporary file) */
	double fio_boot_s; /* local: CLOCK_BOOTTIME as fio starts, else NaN */
	double fio_wall_s; /* the controller's wall clock then */
	char why[256];	   /* why it did not run, when it did not */
};

/* Starts sampling on t for the devices named (may be none).  Never fails:
 * s->why says when it could not start. */
void fcr_sampler_start(struct fcr_sampler *s, struct fcr_target *t, const struct cm_strv *devices);
/* fio starts now: where the file's seconds count from (ssh: the target's
 * own clock, as fio's script records it). */
void fcr_sampler_fio_starts(struct fcr_sampler *s);
/* fio ended: one last sample, then the loop ends. */
void fcr_sampler_stop(struct fcr_sampler *s);
/*
 * The samples read back into *out (the caller releases it); 0, or -1 with
 * `why` when there is nothing to keep.  Releases what s holds.
 */
int fcr_sampler_finish(struct fcr_sampler *s, struct cm_tm_series *out, char *why, size_t len);

/* The raw lines of the loop as a series (exposed for the tests): `boot0`
 * is the uptime fio started at (NaN: the target's fio.up line, else the
 * first sample), `wall0` the wall clock then (NaN: unknown). */
int fcr_sampler_parse(const char *raw, size_t len, const struct cm_strv *devices, double boot0,
		      double wall0, struct cm_tm_series *out, char *why, size_t why_len);

/*
 * The manifest's summary of a run's samples (docs/campaign-directory.md,
 * "telemetry"), without its "file": shares of the CPU time over the run
 * (intervals whose counters went back are left out), the foreign I/O of
 * `device` (NULL: none) against fio_bytes (what fio's report says it
 * moved; NaN when unknown), pressure, MHz, and "disturbed": null or the
 * reasons, against the thresholds (NaN: that criterion is off).
 */
json_t *fcr_telemetry_summary(const struct cm_tm_series *s, const char *device, double fio_bytes,
			      double steal_max, double foreign_max);

#endif
