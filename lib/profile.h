/* SPDX-License-Identifier: MIT */
/*
 * Private: how a profile was read, for the tests and benchmarks that check
 * its memory.  Not installed.
 */
#ifndef FC_PROFILE_H
#define FC_PROFILE_H

#include <stddef.h>

#include "fiocamp.h"

struct fc_profile_stats {
	unsigned reads;		/* of the log: 1, or 2 + one per chunk (see profile.c) */
	size_t hist_peak_bytes; /* clat_hist bucket arrays held at once */
	size_t series_bytes;	/* per-interval state while reading, all directions */
	size_t result_bytes;	/* what the profile holds */
};

void fc_profile_get_stats(const struct fc_profile *p, struct fc_profile_stats *st);

/* fc_profile_read_buffer() with `hist_max_bytes` in place of
 * FC_PROFILE_HIST_MAX_BYTES, so that a small log can need chunks. */
int fc_profile_read_buffer_capped(const void *buf, size_t len, const char *source,
				  const struct fc_profile_opts *opts, size_t hist_max_bytes,
				  struct fc_profile **out, struct fc_error *err);

#endif
