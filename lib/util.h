/* SPDX-License-Identifier: MIT */
/*
 * Private helpers shared by the library's .c files: an arena that owns every
 * string and array of a parsed result, a growable scratch vector, error
 * filling, cleanup attributes.  Not installed.
 */
#ifndef FC_UTIL_H
#define FC_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fiocamp.h"

#define FC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FC_PRINTF(f, a)	 __attribute__((format(printf, f, a)))
#define LIKELY(x)	 __builtin_expect(!!(x), 1)
#define UNLIKELY(x)	 __builtin_expect(!!(x), 0)

static inline void fc_freep(void *p)
{
	free(*(void **)p);
}
#define _cleanup_free_ __attribute__((cleanup(fc_freep)))

/*
 * Arena: bump allocation in chunks, freed all at once.  Every allocation is
 * aligned for any scalar type.  Returns NULL when out of memory, or when
 * the arena's limit would be passed (then over_limit is set).
 */
struct fc_arena_chunk;
struct fc_arena {
	struct fc_arena_chunk *head;
	size_t used;	 /* bytes used in head */
	size_t cap;	 /* usable bytes in head */
	size_t chunk;	 /* size of the next chunk */
	size_t limit;	 /* bytes it may take (with what is charged to it); 0 = any */
	size_t charged;	 /* chunks and charges so far */
	bool over_limit; /* a request was refused for the limit */
};

void fc_arena_init(struct fc_arena *a, size_t first_chunk);
/* Counts `bytes` held elsewhere (scratch vectors) against the arena's
 * limit.  false, and over_limit set, when they do not fit. */
bool fc_arena_charge(struct fc_arena *a, size_t bytes);
void *fc_arena_alloc(struct fc_arena *a, size_t size);
void *fc_arena_calloc(struct fc_arena *a, size_t n, size_t size);
void *fc_arena_memdup(struct fc_arena *a, const void *p, size_t size);
char *fc_arena_strndup(struct fc_arena *a, const char *s, size_t len);
char *fc_arena_strdup(struct fc_arena *a, const char *s);
void fc_arena_release(struct fc_arena *a);

/*
 * Scratch vector of fixed-size elements on the heap.  push returns a pointer
 * to the new (zeroed) element or NULL when out of memory, past max_elems,
 * or past the limit of the `budget` arena its growth is charged to (if set).
 */
struct fc_vec {
	void *data;
	size_t n, cap, elem_size, max_elems;
	struct fc_arena *budget;
};

void fc_vec_init(struct fc_vec *v, size_t elem_size, size_t max_elems);
void *fc_vec_push(struct fc_vec *v);
void fc_vec_clear(struct fc_vec *v); /* n = 0, memory kept */
void fc_vec_release(struct fc_vec *v);

/*
 * The positions 0..n-1 of `items` ordered by `cmp`, equal elements in their
 * original order: a new array the caller frees, NULL when out of memory.
 * Sorting positions instead of items keeps each run of equal keys in input
 * order, so one O(n log n) pass settles duplicates.
 */
size_t *fc_sort_index(const void *items, size_t n, size_t size,
		      int (*cmp)(const void *, const void *));

/*
 * Drops every element that compares equal to an earlier one, keeping the
 * place of the first and the contents of the last: "last wins" for
 * duplicate keys, in the order the keys first appeared.  0 or FC_E_NOMEM.
 */
int fc_dedupe(void *items, size_t *n, size_t size, int (*cmp)(const void *, const void *));

/* Fills err (if not NULL); returns `code` so callers can `return fc_err(...)`. */
int fc_err(struct fc_error *err, enum fc_status code, const char *source, unsigned long line,
	   unsigned long column, const char *fmt, ...) FC_PRINTF(6, 7);
int fc_err_errno(struct fc_error *err, int errnum, const char *source, const char *what);
/* Clears err to FC_OK. */
void fc_err_clear(struct fc_error *err);

/*
 * Reads a whole file into a NUL-terminated heap buffer (caller frees),
 * refusing files above max_bytes with FC_E_LIMIT.
 */
int fc_read_file(const char *path, size_t max_bytes, char **buf, size_t *len, struct fc_error *err);

/* Locale-independent strtod over [s, s+len).  Sets *ok to false when the
 * text is not a number in full. */
double fc_parse_double(const char *s, size_t len, bool *ok);

/* [s, s+len) as decimal digits only, no sign or space, at most UINT64_MAX.
 * false, *out unchanged, for anything else. */
bool fc_parse_u64(const char *s, size_t len, uint64_t *out);

/* The start of [s, s+len) for an error message: at most 40 bytes, bytes
 * other than printable ASCII (and the backslash) as \xNN, "..." when cut,
 * so the message stays one line of text.  dst holds FC_QUOTE_MAX bytes. */
#define FC_QUOTE_MAX (4 * 40 + 4)
void fc_quote(char *dst, const char *s, size_t len);

#endif
