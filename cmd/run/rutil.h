/* SPDX-License-Identifier: MIT */
/*
 * Small helpers of the controller: error text, growable strings, string
 * lists, shell-like splitting and quoting, durations and sizes, clocks and
 * durable file writes.
 */
#ifndef FCR_RUTIL_H
#define FCR_RUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define FCR_PRINTF(f, a)  __attribute__((format(printf, f, a)))
#define FCR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* An error message for the user; every failing function fills one. */
struct rerr {
	char msg[1024];
};

/* Fills err (if not NULL) and returns -1 so callers can `return rerr_set(...)`. */
int rerr_set(struct rerr *err, const char *fmt, ...) FCR_PRINTF(2, 3);
/* The same, with ": strerror(errnum)" appended. */
int rerr_errno(struct rerr *err, int errnum, const char *fmt, ...) FCR_PRINTF(3, 4);

/* Allocation that ends the program on failure: the controller cannot go on
 * without memory, and a half-written manifest is worse than an exit. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) FCR_PRINTF(1, 2);

/* Growable NUL-terminated string. */
struct sbuf {
	char *s;
	size_t len, cap;
};
void sbuf_add(struct sbuf *b, const char *s);
void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) FCR_PRINTF(2, 3);
void sbuf_release(struct sbuf *b);
/* Returns the string (caller frees) and resets the buffer. */
char *sbuf_take(struct sbuf *b);

/* NULL-terminated list of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
};
void strv_add(struct strv *l, const char *s);
void strv_addf(struct strv *l, const char *fmt, ...) FCR_PRINTF(2, 3);
void strv_take(struct strv *l, char *s); /* steals s */
void strv_release(struct strv *l);

/*
 * Splits `text` shell-like into words: blanks separate, '...' quotes
 * literally, "..." quotes with \ escaping \ " $ `, a backslash outside quotes
 * escapes the next character.  No expansion of any kind.  Returns 0, or -1
 * with err set (unterminated quote, trailing backslash) and *out released.
 */
int shell_split(const char *text, struct strv *out, struct rerr *err);
/* Appends `word` quoted for a POSIX shell ('...' where needed). */
void shell_quote(struct sbuf *b, const char *word);
/* All of argv quoted and joined by spaces; caller frees. */
char *shell_join(char *const *argv);

/*
 * "10s", "1m30s", "250ms", "1h", "2.5s" or a plain number of seconds into
 * milliseconds.  Returns 0, or -1 with a message in err naming the text.
 */
int parse_duration_ms(const char *text, uint64_t *ms, struct rerr *err);
/* "4G", "64M", "512k", "1GiB", "8192" (bytes, binary multiples) into bytes. */
int parse_size_bytes(const char *text, uint64_t *bytes, struct rerr *err);
/* "1m30s", "250ms", "2h03m" for display. */
void format_duration(char *buf, size_t len, uint64_t ms);
/* "64M", "4G", or bytes for display. */
void format_size(char *buf, size_t len, uint64_t bytes);

/* Seconds on CLOCK_MONOTONIC since mono_init(). */
void mono_init(void);
double mono_now(void);
/* Wall clock: seconds since the epoch with fractions. */
double wall_now(void);
/* "2026-11-30T15:26:19.123Z" for a wall time. */
void format_utc(char *buf, size_t len, double wall);
/* Parses what format_utc writes; NAN if it cannot. */
double parse_utc(const char *text);

/* Sleeps `ms`, returning early (1) when *stop becomes nonzero; 0 otherwise. */
int sleep_ms_unless(uint64_t ms, volatile int *stop);

/* Whole file into a NUL-terminated heap buffer of at most max bytes. */
int read_file(const char *path, size_t max, char **buf, size_t *len, struct rerr *err);
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
