/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the telemetry file reader and the readers of the
 * kernel's files on the target (cmd/common/telemetry.h) must never crash
 * nor hang, whatever a target prints.  The input is read as a telemetry
 * file, then as /proc/stat, /proc/diskstats, a pressure file and
 * /proc/cpuinfo; two samples read from it go through the shares.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/telemetry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	struct cm_tm_series series;
	if (cm_tm_parse((const char *)data, size, &series, why, sizeof(why)) == 0) {
		for (size_t i = 1; i < series.n; i++) {
			const struct cm_tm_sample *a = &series.samples[i - 1],
						  *b = &series.samples[i];
			(void)cm_tm_cpu_between(&a->cpu, &b->cpu);
			uint64_t bytes;
			if (a->n_disks && cm_tm_disk_bytes_between(a, b, a->disks[0].name, &bytes))
				(void)cm_tm_foreign_share(bytes, bytes / 2);
		}
		struct cm_buf out = {0};
		cm_tm_write_header(&out);
		for (size_t i = 0; i < series.n; i++)
			cm_tm_write_sample(&out, &series.samples[i]);
		cm_buf_release(&out);
		cm_tm_series_release(&series);
	}

	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	struct cm_tm_cpu cpu;
	(void)cm_tm_read_proc_stat(text, &cpu, why, sizeof(why));
	struct cm_tm_disk disk;
	(void)cm_tm_read_diskstats(text, "vda", &disk, why, sizeof(why));
	(void)cm_tm_read_diskstats(text, "loop0", &disk, why, sizeof(why));
	struct cm_tm_psi psi;
	(void)cm_tm_read_pressure(text, "io", &psi, why, sizeof(why));
	(void)cm_tm_read_cpuinfo_mhz(text);
	free(text);
	return 0;
}
