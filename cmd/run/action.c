/* SPDX-License-Identifier: MIT */
/* What the rows' functions share (action.h). */
#include "action.h"

#include <stdio.h>

int fcr_step_check_failed(const struct fcr_step *step, struct fcr_error *err)
{
	char msg[sizeof(err->msg)];
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return fcr_fail(err, "'%s': %s", step->text, msg);
}
