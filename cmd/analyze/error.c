/* SPDX-License-Identifier: MIT */
/* The error convention of an.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "an.h"

int an_fail(struct an_error *err, enum an_status code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->code = code;
	}
	return code;
}

void an_errors_add(struct an_errors *l, const struct an_error *err)
{
	struct an_error *slot = CM_PUSH(l->v, l->n, l->cap);
	*slot = *err;
}

void an_errors_release(struct an_errors *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}
