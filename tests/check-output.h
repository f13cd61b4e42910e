/* SPDX-License-Identifier: MIT */
/* Loading a fio output in the tests of the report readers. */
#ifndef FC_CHECK_OUTPUT_H
#define FC_CHECK_OUTPUT_H

#include "check.h"
#include "fiocamp.h"

/* Reads tests' file `rel` (relative to the source tree) and checks that
 * fc_output_read_file() returns `expect`; prints its error otherwise. */
static inline struct fc_output *load(const char *rel, int expect)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	int rc = fc_output_read_file(check_src(rel), &o, &e);
	if (rc != expect) {
		char msg[1024];
		fc_error_format(&e, msg, sizeof(msg));
		fprintf(stderr, "%s: rc %d, expected %d: %s\n", rel, rc, expect, msg);
	}
	CHECK_INT(rc, expect);
	return o;
}

#endif
