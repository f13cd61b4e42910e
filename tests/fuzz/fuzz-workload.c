/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fiocamp-analyze's workload keys must never crash nor
 * hang, whatever values a report's options hold.  The input is read as fio
 * output; every report's key is made and read back field by field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_output *out = NULL;
	struct fc_error err;
	int rc = fc_output_read_buffer(data, size, "fuzz", &out, &err);
	if (rc != FC_OK && rc != FC_E_UNFINISHED)
		return 0;
	for (size_t i = 0; i < out->n_runs; i++) {
		char *key = an_workload_key(&out->runs[i]);
		size_t jobs = an_wl_jobs(key);
		for (size_t j = 0; j < jobs && j < 64; j++) {
			for (int f = 0; f < AN_WL_COUNT; f++) {
				const char *v;
				size_t len;
				(void)an_wl_get(key, j, (enum an_wl_field)f, &v, &len);
				(void)an_wl_same(key, key, j, (enum an_wl_field)f);
			}
		}
		struct cm_buf b = {NULL, 0, 0};
		an_wl_describe(&b, key, AN_WL_ALL, true);
		cm_buf_release(&b);
		(void)an_wl_large_blocks(key);
		(void)an_wl_options_listed(key);
		free(key);
	}
	fc_output_free(out);
	return 0;
}
