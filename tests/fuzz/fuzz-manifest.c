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
	memset(&a, 0, sizeof(a));
	a.short_fraction = 0.8;
	/* The reader prints its complaints; keep the fuzzer's output readable. */
	FILE *saved = stderr;
	FILE *devnull = fopen("/dev/null", "w");
	if (devnull)
		stderr = devnull;
	if (an_read_manifest_buffer(&a, "/nonexistent-fiocamp-fuzz", "manifest.json",
				    (const char *)data, size) == 0) {
		an_name_inputs(&a);
		an_load_reports(&a, 1);
		an_identify(&a);
		an_attach_logs(&a);
		an_load_logs(&a, 1);
		struct an_stats_opts opt;
		memset(&opt, 0, sizeof(opt));
		an_compute(&a, &opt);
		an_list_rejects(&a);
	}
	stderr = saved;
	if (devnull)
		fclose(devnull);
	an_analysis_free(&a);
	return 0;
}
