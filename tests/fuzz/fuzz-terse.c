/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the terse line parser on each line of the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	unsigned long lineno = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct fc_arena a;
		struct fc_error err;
		struct fc_vec disks;
		fc_arena_init(&a, 0);
		fc_vec_init(&disks, sizeof(struct fc_disk), 0);
		if (fc_terse_detect(p, len)) {
			struct fc_terse_line t;
			fc_terse_parse(&a, p, len, "fuzz", lineno, &t, &disks, &err);
		} else if (len && *p == ';') {
			fc_terse_parse_disk_line(&a, p, len, "fuzz", lineno, &disks, &err);
		}
		fc_vec_release(&disks);
		fc_arena_release(&a);
		if (!nl)
			break;
		p = nl + 1;
		lineno++;
	}
	return 0;
}
