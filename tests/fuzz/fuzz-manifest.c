/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fiocamp-analyze's manifest.json reader must never crash,
 * whatever shapes the JSON takes; then the runs it names are grouped (none
 * of the files exist, so every run is rejected on reading).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "read/read.h"
#include "stats/stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct an_analysis a;
	an_analysis_init(&a);
	struct an_error err;
	if (an_read_manifest_buffer(&a, "/nonexistent-fiocamp-fuzz", CM_CAMPAIGN_MANIFEST,
				    (const char *)data, size, &err) == 0) {
		an_name_inputs(&a);
		an_load_reports(&a, 1);
		an_identify(&a);
		an_attach_logs(&a);
		an_load_logs(&a, 1);
		struct an_stats_opts opt;
		memset(&opt, 0, sizeof(opt));
		an_compute(&a, &opt, &err);
		an_read_finish(&a);
	}
	an_analysis_free(&a);
	return 0;
}
