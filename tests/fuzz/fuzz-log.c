/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the streaming log reader and the profiles over it.  Each
 * input is also read with the reader's shapes off (every line byte by byte)
 * and on: a difference in any sample, row, profile point or error aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../check-log.h"
#include "fiocamp.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The same input every way of reading it; aborts on a difference. */
static void compare_ways(const uint8_t *data, size_t size, unsigned mode)
{
	static const char *const names[] = {"fuzz_iops.1.log", "fuzz_clat.1.log", "fuzz_bw.1.log",
					    "fuzz_clat_hist.1.log"};
	const char *name = names[mode];
	struct fc_profile_opts o = {.interval_ms = 250};
	struct log_digest want[2], got;
	for (int way = 0; way < 3; way++) {
		fc_log_shapes = way == 0   ? FC_LOG_SHAPES_OFF
				: way == 1 ? FC_LOG_SHAPES_WORDS
					   : FC_LOG_SHAPES_BEST;
		for (int k = 0; k < 2; k++) {
			struct log_digest *d = way ? &got : &want[k];
			if (k == 0)
				log_digest_read(data, size, name, NULL, d);
			else
				log_digest_profile(data, size, name, NULL, &o, d);
			if (way && !log_digest_equal(&want[k], &got)) {
				log_digest_print("byte by byte", &want[k]);
				log_digest_print("this way", &got);
				abort();
			}
		}
	}
	fc_log_shapes = FC_LOG_SHAPES_BEST;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_error err;
	struct fc_log_reader *r = NULL;
	/* the first byte picks how the input is read */
	unsigned mode = size ? data[0] % 4 : 0;
	if (size) {
		data++;
		size--;
	}
	if (mode < 2) {
		if (fc_log_open_buffer(data, size, "fuzz_iops.1.log", NULL, &r, &err) == 0) {
			const struct fc_log_layout *l = fc_log_get_layout(r);
			int rc;
			if (mode == 1 || (l && l->hist)) {
				struct fc_hist_row row;
				while ((rc = fc_log_next_hist(r, &row, &err)) > 0)
					;
			} else {
				struct fc_log_sample s;
				while ((rc = fc_log_next(r, &s, &err)) > 0)
					;
			}
			fc_log_close(r);
		}
	} else {
		struct fc_profile *p = NULL;
		struct fc_profile_opts o = {0};
		o.type = mode == 2 ? FC_LOG_IOPS : FC_LOG_CLAT_HIST;
		o.interval_ms = 250;
		if (fc_profile_read_buffer(data, size, "fuzz", &o, &p, &err) == 0)
			fc_profile_free(p);
	}
	compare_ways(data, size, mode);
	return 0;
}
