/* SPDX-License-Identifier: MIT */
/* libFuzzer target: fio reports (JSON, json+, terse, text around them). */
#include <stddef.h>
#include <stdint.h>

#include "fiocamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_output *out = NULL;
	struct fc_error err;
	int rc = fc_output_read_buffer(data, size, "fuzz", &out, &err);
	if ((rc == FC_OK || rc == FC_E_UNFINISHED) != (out != NULL))
		__builtin_trap();
	if (out) {
		/* touch what a caller would read */
		volatile double sink = 0;
		for (size_t r = 0; r < out->n_runs; r++)
			for (size_t j = 0; j < out->runs[r].n_jobs; j++)
				for (int d = 0; d < FC_DDIR_COUNT; d++) {
					const struct fc_dir *dir = &out->runs[r].jobs[j].dir[d];
					sink += dir->iops + (double)dir->clat.n_percentiles;
					for (size_t b = 0; b < dir->clat.n_bins; b++)
						sink += dir->clat.bins[b].value_ns;
				}
		(void)sink;
	}
	char msg[1024];
	fc_error_format(&err, msg, sizeof(msg));
	fc_output_free(out);
	return 0;
}
