/* SPDX-License-Identifier: MIT */
/*
 * Small helpers of the controller: error text, shell-like splitting and
 * quoting, durable file writes and paths, names.  The helpers fiocamp-run
 * shares with the other tools are in common/common.h.
 */
#ifndef FCR_RUTIL_H
#define FCR_RUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/common.h"


/* An error message for the user; every failing function fills one. */
struct rerr {
	char msg[1024];
};

/* Fills err (if not NULL) and returns -1 so callers can `return rerr_set(...)`. */
int rerr_set(struct rerr *err, const char *fmt, ...) CM_PRINTF(2, 3);
/* The same, with ": strerror(errnum)" appended. */
int rerr_errno(struct rerr *err, int errnum, const char *fmt, ...) CM_PRINTF(3, 4);

/*
 * Splits `text` shell-like into words: blanks separate, '...' quotes
 * literally, "..." quotes with \ escaping \ " $ `, a backslash outside quotes
 * escapes the next character.  No expansion of any kind.  Returns 0, or -1
 * with err set (unterminated quote, trailing backslash) and *out released.
 */
int shell_split(const char *text, struct cm_strv *out, struct rerr *err);
/* Appends `word` quoted for a POSIX shell ('...' where needed). */
void shell_quote(struct cm_buf *b, const char *word);
/* All of argv quoted and joined by spaces; caller frees. */
char *shell_join(char *const *argv);

/* Writes a new file (O_EXCL unless `replace`), fsyncs it.  0 or -1. */
int write_file(const char *path, const void *buf, size_t len, bool replace, struct rerr *err);
/* Writes a new file (O_EXCL) without fsync: the caller syncs it later. */
int write_file_nosync(const char *path, const void *buf, size_t len, struct rerr *err);
/* Writes path via "path.tmp", fsync, rename, fsync of the directory. */
int write_file_atomic(const char *path, const void *buf, size_t len, struct rerr *err);
/* fsync of the directory holding `path` (or of `path` if it is one). */
int fsync_dir(const char *dir, struct rerr *err);
/* mkdir -p. */
int mkdir_p(const char *path, struct rerr *err);
bool path_exists(const char *path);
/* Directory part of a path ("." when none); caller frees. */
char *path_dirname(const char *path);
/* Last component without `suffix` if it ends with it; caller frees. */
char *path_stem(const char *path, const char *suffix);
/* Whether every character is one of [A-Za-z0-9._-] and the name is not "."/"..". */
bool name_is_safe(const char *s);

/* The length of the longest prefix of s[0..n) that is valid UTF-8 (no
 * overlong forms, no surrogates, nothing above U+10FFFF): n when all is. */
size_t utf8_valid_len(const char *s, size_t n);

#endif
