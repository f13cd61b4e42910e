/* SPDX-License-Identifier: MIT */
/*
 * Private: a pull reader for the JSON fio writes.
 *
 * It reads one value at a time from a buffer without building a tree, so
 * the model is filled in one pass.  It accepts what fio emits beyond JSON:
 * raw control bytes and invalid UTF-8 inside strings (kept as they are),
 * nan/inf/-nan number tokens, and duplicate keys (the reader reports every
 * member; the builder lets the last one win).
 *
 * Usage: fj_peek() tells the type of the next value; every value must then be
 * consumed by exactly one of fj_object_next() loops, fj_array_next() loops,
 * fj_string(), fj_number(), fj_literal() or fj_skip().  After the first error
 * every call returns false / an error and j->status stays set.
 */
#ifndef FC_JSON_H
#define FC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum fj_type {
	FJ_ERROR = 0,
	FJ_OBJECT,
	FJ_ARRAY,
	FJ_STRING,
	FJ_NUMBER,
	FJ_TRUE,
	FJ_FALSE,
	FJ_NULL,
};

#define FJ_MAX_DEPTH 64

struct fj_str {
	const char *p; /* not NUL-terminated; valid until the next string read */
	size_t len;
};

struct fj_num {
	double d;    /* always set */
	bool is_int; /* written without fraction or exponent, and fits */
	int64_t i;   /* when is_int */
};

struct fc_json {
	const char *origin;	   /* where reading started: column 1 of ... */
	unsigned long origin_line; /* ... this line of the input (for positions) */
	const char *p, *end;
	const char *source;
	int depth;
	/* per open container: has a member been read yet */
	bool first[FJ_MAX_DEPTH + 1];
	int status; /* 0 or a negative fc_status */
	bool eof;   /* the error was running out of input */
	const char *err_pos;
	char err_msg[160];
	char *scratch; /* unescaped string values */
	size_t scratch_cap;
	char *keybuf; /* unescaped member names */
	size_t keybuf_cap;
};

/* The reader starts at `start`, the beginning of line `line` of the input,
 * and reads up to `end`.  Errors count lines from there, so that reporting
 * one costs what was read, not the whole input before it. */
void fj_init(struct fc_json *j, const char *start, const char *end, const char *source,
	     unsigned long line);
void fj_release(struct fc_json *j);

enum fj_type fj_peek(struct fc_json *j);

/* Enters the object; false (and an error) if the next value is not one. */
bool fj_object_begin(struct fc_json *j);
/* Next member: true with *key set; false at '}' (consumed) or on error. */
bool fj_object_next(struct fc_json *j, struct fj_str *key);
bool fj_array_begin(struct fc_json *j);
/* true if another element follows (not consumed); false at ']' or error. */
bool fj_array_next(struct fc_json *j);

bool fj_string(struct fc_json *j, struct fj_str *s);
bool fj_number(struct fc_json *j, struct fj_num *n);
/* Any scalar as its raw text (strings unescaped). */
bool fj_scalar_text(struct fc_json *j, struct fj_str *s);
bool fj_skip(struct fc_json *j);

/* Key comparison against a literal. */
#define FJ_KEY(k, lit) ((k).len == sizeof(lit) - 1 && memcmp((k).p, lit, sizeof(lit) - 1) == 0)

/* Fills err from the reader's failure: line and column in the input. */
int fj_error(const struct fc_json *j, struct fc_error *err);

/* Sets a failure at the current position (for semantic errors). */
bool fj_fail(struct fc_json *j, int status, const char *fmt, ...) FC_PRINTF(3, 4);

#endif
