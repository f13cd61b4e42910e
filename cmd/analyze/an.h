/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze's conventions, and the one error type every stage uses.
 * See README.md in this folder for how the analyzer is built.
 *
 *  - One prefix: an_ (AN_ for macros and constants) for every function and
 *    type that leaves its file; nothing of ours in another library's
 *    namespace (no json_* functions).  The helpers shared with fiocamp-run
 *    are cm_ (common/common.h), and so is the campaign directory both read
 *    and write (common/campaign.h): its names, statuses and layout are
 *    spelt there, never here.  Allocation never fails: out of memory
 *    prints "fiocamp-analyze: out of memory" and exits with status 2.
 *  - One error convention: a function that can fail returns 0 or a
 *    negative enum an_status and fills the caller's struct an_error (code
 *    and one sentence that names the file, the option or the name and what
 *    is wrong).  Only main() prints it, once.  Reading the inputs goes on
 *    past a bad one, to name each: it fills a list of errors instead.
 *  - What the analysis has to say about the inputs (notes, warnings, files
 *    rejected or skipped) is not an error: it is collected in the analysis
 *    (model/model.h) and written by the writers, never printed where it is
 *    found.
 *  - Ownership: every string and array hanging off struct an_analysis is
 *    owned by it and released with an_analysis_free(); functions that
 *    return a new string say "caller frees"; "borrowed" is valid as long as
 *    what it was borrowed from.
 *  - Units are in the names (_ms, _s, _bytes, _pct); a value that is not
 *    known is NaN (or a _known flag, or -1 for a time stamp), never zero.
 */
#ifndef AN_H
#define AN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/campaign.h"
#include "common/common.h"

/* The program's name, in front of what it says on standard error. */
#define AN_PROGRAM "fiocamp-analyze"

enum an_status {
	AN_OK = 0,
	AN_E_USAGE = -1, /* the command line: an unknown option, a bad value, a name
			    that names nothing */
	AN_E_INPUT = -2, /* an input that does not exist, an unreadable manifest */
	AN_E_EMPTY = -3, /* nothing to analyze: no usable run among the inputs */
	AN_E_WRITE = -4, /* an output that cannot be written */
};

#define AN_ERROR_MAX 1536

struct an_error {
	enum an_status code;
	char msg[AN_ERROR_MAX]; /* one sentence, no "fiocamp-analyze: " and no newline */
};

/* Fills err (if not NULL) with `code` and the message; returns code, so
 * that callers can `return an_fail(err, AN_E_INPUT, ...)`. */
int an_fail(struct an_error *err, enum an_status code, const char *fmt, ...) CM_PRINTF(3, 4);

/* Errors that do not stop the search for more (one per bad input). */
struct an_errors {
	struct an_error *v;
	size_t n, cap;
};
/* Appends a copy of err. */
void an_errors_add(struct an_errors *l, const struct an_error *err);
void an_errors_release(struct an_errors *l);

/* fiocamp-analyze's exit statuses. */
enum {
	AN_EXIT_OK = 0,
	AN_EXIT_REJECTED = 1, /* some inputs were rejected; the output covers the rest */
	AN_EXIT_FAILED = 2,   /* a usage error, a bad input, nothing to analyze, a write error */
};

#endif
