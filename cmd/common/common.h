/* SPDX-License-Identifier: MIT */
/*
 * The small helpers the fiocamp tools share (prefix cm_): allocation,
 * growable strings and string lists, well-formed UTF-8, reading a file,
 * durations, sizes and clocks.  libfiocamp has its own; these are for the programs of cmd/.
 *
 * Conventions:
 *  - Allocation never returns NULL.  Out of memory is fatal: cm_die() prints
 *    "PROGRAM: out of memory", runs the program's fatal hook once (fiocamp-run
 *    powers a machine it took away back on there) and exits with the
 *    program's fatal status.  cm_init() names both.
 *  - A struct owns what hangs off it: *_release() frees it and leaves the
 *    struct empty and reusable; *_take() hands the string to the caller.
 *    A zeroed struct is an empty one.
 *  - A function that can fail returns 0, or -1 with one sentence in `why`
 *    (naming the file or the text and what is wrong); `why` may be NULL.
 *  - Units are in the names: _ms, _s, _bytes.  Clocks are seconds as doubles.
 */
#ifndef CM_COMMON_H
#define CM_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define CM_PRINTF(f, a)	 __attribute__((format(printf, f, a)))
#define CM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the program and its fatal path (alloc.c) --------------------------- */

/* `program` prefixes fatal messages; a fatal path exits with `fatal_status`. */
void cm_init(const char *program, int fatal_status);
/*
 * Runs `hook` once on the fatal path, before the exit, with the reason
 * ("out of memory").  `reserve_bytes` are set aside now and given back to
 * the allocator just before the hook runs, so that the hook has memory to
 * work with after an allocation failed.  A second fatal error while the hook
 * runs exits at once.
 */
void cm_on_fatal(void (*hook)(const char *why), size_t reserve_bytes);
/* Prints "PROGRAM: message", runs the hook, exits. */
_Noreturn void cm_die(const char *fmt, ...) CM_PRINTF(1, 2);
/* For tests only: when set and it returns true, that allocation fails. */
extern bool (*cm_alloc_fault)(size_t bytes);

/* ---- allocation (alloc.c) ------------------------------------------------ */

void *cm_malloc(size_t bytes);
void *cm_calloc(size_t n, size_t size);
/* n elements of `size` bytes; the product is checked for overflow. */
void *cm_realloc(void *p, size_t n, size_t size);
char *cm_strdup(const char *s);
char *cm_strndup(const char *s, size_t n);
char *cm_asprintf(const char *fmt, ...) CM_PRINTF(1, 2);
char *cm_vasprintf(const char *fmt, va_list ap) CM_PRINTF(1, 0);

/* Appends one zeroed element of `size` bytes to a growable array (doubling). */
void *cm_push(void *array_ptr, size_t *n, size_t *cap, size_t size);
#define CM_PUSH(arr, n, cap) ((__typeof__(&(arr)[0]))cm_push(&(arr), &(n), &(cap), sizeof(*(arr))))

/* ---- strings and lists (buf.c) -------------------------------------------- */

/* A growable string; s is NUL-terminated once anything was put in (or NULL). */
struct cm_buf {
	char *s;
	size_t len, cap;
};
void cm_buf_putn(struct cm_buf *b, const char *s, size_t n);
void cm_buf_puts(struct cm_buf *b, const char *s);
void cm_buf_putc(struct cm_buf *b, char c);
void cm_buf_printf(struct cm_buf *b, const char *fmt, ...) CM_PRINTF(2, 3);
void cm_buf_release(struct cm_buf *b);
/* The string ("" when nothing was put in), owned by the caller; b is empty again. */
char *cm_buf_take(struct cm_buf *b);

/* A list of owned strings, v[n] == NULL (usable as an argv). */
struct cm_strv {
	char **v;
	size_t n, cap;
};
void cm_strv_add(struct cm_strv *l, const char *s);
void cm_strv_addf(struct cm_strv *l, const char *fmt, ...) CM_PRINTF(2, 3);
/* Appends s itself; the list owns it from now on. */
void cm_strv_take(struct cm_strv *l, char *s);
bool cm_strv_has(const struct cm_strv *l, const char *s);
/* Appends s unless it is in the list already. */
void cm_strv_add_once(struct cm_strv *l, const char *s);
/* Removes the first entry equal to s, if any. */
void cm_strv_del(struct cm_strv *l, const char *s);
void cm_strv_release(struct cm_strv *l);

/* ---- text (text.c) ---------------------------------------------------------- */

/* The length of the longest prefix of s[0..n) that is valid UTF-8 (no
 * overlong forms, no surrogates, nothing above U+10FFFF): n when all is. */
size_t cm_utf8_valid_len(const char *s, size_t n);
/* A copy of s with every byte that is not part of well-formed UTF-8
 * replaced by U+FFFD; NULL for NULL.  Caller frees. */
char *cm_utf8_dup(const char *s);

/* ---- files (file.c) ------------------------------------------------------- */

/* The whole file as a NUL-terminated heap string (caller frees), at most
 * max_bytes long; *len gets its length (len may be NULL). */
int cm_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, char *why,
		 size_t why_len);

/* ---- durations, sizes, clocks (time.c) ------------------------------------- */

/*
 * "10s", "1m30s", "250ms", "1h", "2.5s", "1d" or a plain number of seconds
 * (as in fio), at most a year, into milliseconds.
 */
int cm_parse_duration_ms(const char *text, uint64_t *ms, char *why, size_t why_len);
/* "1m30s", "250ms", "2h03m00s" for display. */
void cm_format_duration(char *buf, size_t len, uint64_t ms);
/* "4G", "64M", "512k", "1GiB", "8192" (bytes, binary multiples), not zero. */
int cm_parse_size_bytes(const char *text, uint64_t *bytes, char *why, size_t why_len);
/* "64M", "4G", or the bytes for display. */
void cm_format_size(char *buf, size_t len, uint64_t bytes);

/* CLOCK_MONOTONIC and the wall clock, in seconds. */
double cm_mono_s(void);
double cm_wall_s(void);
/* "2026-11-30T15:26:19.123Z" (UTC, milliseconds) for a wall time. */
void cm_format_utc(char *buf, size_t len, double wall_s);
/*
 * An RFC 3339 time as APIs and our own records write them
 * ("2026-08-27T16:48:28.703780033Z", "...44Z", "+02:00" offsets, none = UTC)
 * as seconds since the epoch; NaN if it is not one.
 */
double cm_parse_rfc3339(const char *text);
/* Sleeps ms, returning early (1) as soon as *stop is nonzero; 0 otherwise.
 * stop may be NULL. */
int cm_sleep_ms(uint64_t ms, volatile int *stop);

#endif
