/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the streaming log reader and the profiles over it. */
#include <stddef.h>
#include <stdint.h>

#include "fiocamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	return 0;
}
