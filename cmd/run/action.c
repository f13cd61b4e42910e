/* SPDX-License-Identifier: MIT */
/* What the rows' functions share (action.h). */
#include "action.h"

int fcr_step_check_failed(const struct fcr_step *step, struct fcr_error *err)
{
	return fcr_fail(err, "'%s': %s", step->text, err->msg);
}
