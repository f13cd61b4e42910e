/* SPDX-License-Identifier: MIT */
/* The controller's one error type (fcr.h). */
#include <stdio.h>
#include <string.h>

#include "fcr.h"

static int vfail(struct fcr_error *err, enum fcr_status code, int errnum, const char *fmt,
		 va_list ap) CM_PRINTF(4, 0);

static int vfail(struct fcr_error *err, enum fcr_status code, int errnum, const char *fmt,
		 va_list ap)
{
	if (!err)
		return code;
	/* formatted apart: an argument may be err->msg itself, the message of
	 * the call that failed, which the caller says where it happened */
	char msg[sizeof(err->msg)];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (errnum) {
		size_t n = strlen(msg);
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(errnum));
	}
	err->code = code;
	memcpy(err->msg, msg, sizeof(err->msg));
	return code;
}

int fcr_fail(struct fcr_error *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(err, FCR_E_FAILED, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int fcr_fail_as(struct fcr_error *err, enum fcr_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(err, code, 0, fmt, ap);
	va_end(ap);
	return rc;
}

int fcr_fail_errno(struct fcr_error *err, int errnum, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int rc = vfail(err, FCR_E_FAILED, errnum, fmt, ap);
	va_end(ap);
	return rc;
}

const char *fcr_status_text(enum fcr_status status)
{
	switch (status) {
	case FCR_OK:
		return "ok";
	case FCR_E_FAILED:
		return "failed";
	case FCR_E_INVAL:
		return "invalid configuration or argument";
	case FCR_E_TOKEN:
		return "credentials unusable";
	case FCR_E_AUTH:
		return "authentication failed";
	case FCR_E_TRANSPORT:
		return "network failure";
	case FCR_E_API:
		return "the API refused the request";
	case FCR_E_NOT_FOUND:
		return "not found";
	case FCR_E_TASK:
		return "the API task failed";
	case FCR_E_TIMEOUT:
		return "timed out";
	case FCR_E_PROTOCOL:
		return "unexpected answer";
	case FCR_E_STOPPED:
		return "stopped";
	case FCR_E_PREFLIGHT:
		return "preflight found problems";
	case FCR_E_TLS:
		return "the server's certificate was refused";
	}
	return "unknown status";
}

const char *fcr_outcome_status(enum fcr_outcome o)
{
	return o == FCR_DONE	      ? CM_STATUS_DONE
	       : o == FCR_INTERRUPTED ? CM_STATUS_INTERRUPTED
				      : CM_STATUS_FAILED;
}
