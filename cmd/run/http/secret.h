/* SPDX-License-Identifier: MIT */
/*
 * Credentials kept in files or the environment (a provider's refresh token,
 * an API token): read with the checks that keep them private, written so
 * that nobody else can read them even for a moment, wiped when freed.
 * Errors follow fcr.h, with code FCR_E_TOKEN; no message holds the secret.
 */
#ifndef FCR_HTTP_SECRET_H
#define FCR_HTTP_SECRET_H

#include "fcr.h"

#define FCR_SECRET_FILE_MAX_BYTES 65536

/*
 * Reads the one word a token file holds (surrounding white space dropped):
 * a regular file of ours with mode 0600 or stricter, at most
 * FCR_SECRET_FILE_MAX_BYTES, without a NUL byte; anything else (a FIFO, a
 * device, a directory) is refused without waiting on it.  `what` names the
 * secret in messages ("refresh token"); `hint` is added to the message when
 * the file is missing or empty.  *out is freed with fcr_secret_free().
 */
int fcr_secret_read_file(const char *path, const char *what, const char *hint, char **out,
			 struct fcr_error *err);
/* The one word of `text` without surrounding white space, or NULL when it
 * is empty or more than one printable word.  Free with fcr_secret_free(). */
char *fcr_secret_word(const char *text);
/* Whether s is one word of printable ASCII. */
bool fcr_secret_is_word(const char *s);
/* Writes text and a newline to path: a temporary file made 0600 in the same
 * directory (missing directories made 0700), fsync, rename, fsync. */
int fcr_secret_write_file(const char *path, const char *text, struct fcr_error *err);
/*
 * Marks the process non-dumpable (PR_SET_DUMPABLE 0) for the rest of its
 * life: no core dump, and no other user's debugger or /proc/PID/mem, can
 * show a secret it holds.  Every function here that reads, receives or
 * writes a secret calls it first; children are dumpable again after exec.
 */
void fcr_secret_guard_process(void);
/* Overwrites s, then frees it.  NULL is fine. */
void fcr_secret_free(char *s);

#endif
