/* SPDX-License-Identifier: MIT */
/*
 * Linked into a test build of fiocamp-run only (fiocamp-run-fail-alloc):
 * once the file that $FIOCAMP_TEST_FAIL_ALLOC names exists, the next
 * allocation of the common allocator fails, as when memory runs out, and
 * the program takes its fatal path.  Every allocation after that one
 * succeeds, as it would once a large request failed.
 */
#include <stdlib.h>
#include <unistd.h>

#include "common/common.h"

static const char *trigger;
static bool fired;

static bool fail_once(size_t bytes)
{
	(void)bytes;
	if (fired || access(trigger, F_OK) != 0)
		return false;
	fired = true;
	return true;
}

__attribute__((constructor)) static void install(void)
{
	trigger = getenv("FIOCAMP_TEST_FAIL_ALLOC");
	if (trigger && *trigger)
		cm_alloc_fault = fail_once;
}
