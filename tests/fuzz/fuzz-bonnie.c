/* SPDX-License-Identifier: MIT */
/* libFuzzer target: bonnie++ CSV rows of every layout, and text around them. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fiocamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_bonnie *b = NULL;
	struct fc_error err;
	int rc = fc_bonnie_read_buffer(data, size, "fuzz", &b, &err);
	if ((rc == FC_OK) != (b != NULL))
		__builtin_trap();
	if (b) {
		/* touch what a caller would read */
		volatile double sink = 0;
		for (size_t i = 0; i < b->n_rows; i++) {
			const struct fc_bonnie_row *r = &b->rows[i];
			sink +=
			    (double)strlen(r->name) + (double)r->file_size_bytes + (double)r->files;
			if (r->format_version)
				sink += (double)strlen(r->format_version) +
					(double)strlen(r->bonnie_version) + (double)strlen(r->seed);
			for (int t = 0; t < FC_BONNIE_TEST_COUNT; t++)
				sink +=
				    r->tests[t].rate + r->tests[t].cpu_pct + r->tests[t].latency_ns;
		}
		for (size_t i = 0; i < b->n_diags; i++)
			sink += (double)strlen(b->diags[i].text);
		(void)sink;
	}
	char msg[1024];
	fc_error_format(&err, msg, sizeof(msg));
	fc_bonnie_free(b);
	return 0;
}
