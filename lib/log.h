/* SPDX-License-Identifier: MIT */
/*
 * Private: what the profile builder needs from the log reader beyond the
 * public API.  Not installed.
 */
#ifndef FC_LOG_H
#define FC_LOG_H

#include <stddef.h>

#include "fiocamp.h"

/*
 * Reads up to `cap` samples into `out`.  Returns how many (> 0), 0 at the
 * end of the log, or a negative status with err filled.  An error met after
 * some samples were read is returned by the next call.  Same rules as
 * fc_log_next(), without the per-call overhead.
 */
long fc_log_read_batch(struct fc_log_reader *r, struct fc_log_sample *out, size_t cap,
		       struct fc_error *err);

/* The label errors carry (the path or the buffer's source).  Borrowed. */
const char *fc_log_source(const struct fc_log_reader *r);

#endif
