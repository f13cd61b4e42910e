/* SPDX-License-Identifier: MIT */
/*
 * Private: what the profile builder needs from the log reader beyond the
 * public API.  Not installed.
 */
#ifndef FC_LOG_H
#define FC_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fiocamp.h"

/* What a profile needs of a bw/iops/lat line: a sample without offset,
 * prio and issue time. */
struct fc_log_point {
	uint64_t time_ms;
	int64_t value;
	int64_t value1;
	uint64_t bs;
	unsigned long line;
	int ddir;
};

/*
 * Reads up to `cap` points into `out`.  Returns how many (> 0), 0 at the end
 * of the log, or a negative status with err filled.  An error met after
 * some points were read is returned by the next call.  The same lines, the
 * same checks and errors as fc_log_next(), without the per-call overhead
 * and without reading the columns a point does not hold.
 */
long fc_log_read_points(struct fc_log_reader *r, struct fc_log_point *out, size_t cap,
			struct fc_error *err);

/* 8 bytes at p, the first in the low byte. */
static inline uint64_t fc_log_word(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof(w));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* A field of at most 8 digits at the same place in the lines of a run, and
 * its value in the line read before (a time or a block size is most often
 * the one before). */
struct fc_log_field {
	unsigned end;	    /* offset of the byte after it in its line */
	uint64_t mask;	    /* its digits' low nibbles in the 8 bytes before `end` */
	uint64_t last_word; /* the cache: those 8 bytes masked, and their value */
	uint64_t last_value;
};

/*
 * The number 8 digits make, given as their values (0..9) in the bytes of w,
 * the first digit in the low byte; leading zero bytes are leading zeros.
 * Pairs, then groups of four, then eight, each with one multiplication.
 */
static inline uint64_t fc_log_digits8(uint64_t w)
{
	w = (w * (10 * 256 + 1)) >> 8 & 0x00ff00ff00ff00ffull;
	w = (w * (100 * 65536 + 1)) >> 16 & 0x0000ffff0000ffffull;
	return (w * (10000 * (1ull << 32) + 1)) >> 32;
}

/* The field's value in the line at `line`. */
static inline __attribute__((always_inline)) uint64_t fc_log_field_value(struct fc_log_field *f,
									 const char *line)
{
	uint64_t w = fc_log_word(line + f->end - 8) & f->mask;
	if (w != f->last_word) {
		f->last_word = w;
		f->last_value = fc_log_digits8(w);
	}
	return f->last_value;
}

/*
 * A run: lines of one shape that the reader has checked and consumed, each
 * of which reads as fc_log_next() would read it, without an error: time,
 * value and bs of at most 8 digits (time below 2^53, value below 2^63), a
 * ddir of 0, 1 or 2, no value1, a prio in range.  Line i is at
 * text + i * len; its number is first_line + i.
 */
#define FC_LOG_RUN_MAX 1024 /* lines */

struct fc_log_run {
	const char *text; /* borrowed until the next read */
	size_t n;
	unsigned len; /* bytes a line, the '\n' included */
	unsigned long first_line;
	unsigned ddir_at; /* offset of the ddir digit */
	struct fc_log_field time, value, bs;
};

/*
 * The run of lines at the reader's position, if there is one: returns its
 * lines (> 0), or 0 when the next line is not of a run (read it with
 * fc_log_read_points(), which also reports any error and the end).
 * fc_log_read_points() stops before a run.
 */
long fc_log_read_run(struct fc_log_reader *r, struct fc_log_run *run);

/*
 * How lines of a known shape are read (see log.c): not at all (every line
 * byte by byte), 8 bytes at a time, or as fast as the machine allows (16
 * bytes at a time with SSE2).  Every way gives the same results; tests set
 * this to compare them.  Not for anything else: it is global.
 */
enum fc_log_shapes {
	FC_LOG_SHAPES_OFF,
	FC_LOG_SHAPES_WORDS,
	FC_LOG_SHAPES_BEST,
};
extern enum fc_log_shapes fc_log_shapes;

/* The label errors carry (the path or the buffer's source).  Borrowed. */
const char *fc_log_source(const struct fc_log_reader *r);

#endif
