/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the normal-output reader on the whole input, also where
 * fc_output_read_buffer() would not use it (inputs holding JSON or terse
 * reports), so that every seed reaches it.
 */
#include <stddef.h>
#include <stdint.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fc_arena a;
	struct fc_vec reports, spans;
	struct fc_error err;
	fc_arena_init(&a, 0);
	a.limit = FC_OUTPUT_MEM_BASE_BYTES + FC_OUTPUT_MEM_PER_BYTE * size;
	fc_vec_init(&reports, sizeof(struct fc_normal_report), 0);
	fc_vec_init(&spans, sizeof(struct fc_line_span), 0);
	reports.budget = spans.budget = &a;
	fc_normal_scan(&a, (const char *)data, size, "fuzz", &reports, &spans, &err);
	/* touch what a caller would read */
	volatile double sink = 0;
	const struct fc_normal_report *r = reports.data;
	for (size_t i = 0; i < reports.n; i++) {
		if (r[i].status != FC_OK)
			continue;
		const struct fc_run *run = &r[i].run;
		for (size_t j = 0; j < run->n_jobs; j++) {
			const struct fc_job *job = &run->jobs[j];
			for (size_t o = 0; o < job->n_options; o++)
				sink += (double)job->options[o].value[0];
			for (int d = 0; d < FC_DDIR_COUNT; d++) {
				const struct fc_dir *dir = &job->dir[d];
				sink += dir->iops + dir->clat.mean_ns;
				for (size_t p = 0; p < dir->clat.n_percentiles; p++)
					sink += dir->clat.percentiles[p].value_ns;
				for (size_t p = 0; p < dir->n_prios; p++)
					sink += dir->prios[p].lat.mean_ns;
			}
			sink += job->latency_us.n ? job->latency_us.items[0].percent : 0;
		}
		for (size_t g = 0; g < run->n_groups; g++)
			sink += run->groups[g].dir[0].bw_bytes;
	}
	const struct fc_line_span *sp = spans.data;
	for (size_t i = 1; i < spans.n; i++)
		if (sp[i].first <= sp[i - 1].last || sp[i].first > sp[i].last)
			__builtin_trap(); /* the spans must ascend */
	(void)sink;
	fc_vec_release(&reports);
	fc_vec_release(&spans);
	fc_arena_release(&a);
	return 0;
}
