/* SPDX-License-Identifier: MIT */
/*
 * fio's bw/iops/lat/clat/slat/clat_hist logs: file names and a streaming
 * reader.
 *
 * The reader keeps one buffer of FC_LOG_LINE_MAX bytes and works on the
 * complete lines in it; the partial line at its end moves to the front
 * before the next read.  Every region handed to the line scanner ends with
 * '\n', so the scanner needs no bounds checks: each loop stops at that byte
 * at the latest.  A final line without a newline gets one appended (in the
 * buffer for files, in a small copy for caller buffers, which stay
 * untouched).
 *
 * Most lines of a large log have the shape of a line before them: the same
 * fields of the same widths ("12, 1, 1, 4096, 0\n").  The reader keeps the
 * shapes of the last two lines it read byte by byte; a line of a known shape
 * is checked 8 bytes at a time (16 with SSE2): every separator byte as in
 * the shape, every other byte a digit; its numbers are read 8 digits at a
 * time from where the shape says they are.  The profile builder takes
 * whole runs of such lines (fc_log_read_run(), log.h) and reads the few
 * numbers it needs from them where they are.  A line of any other shape,
 * or anything unusual (signs, hex, blanks, errors), goes through the byte
 * scanners, which are the reference: every way gives the same results for
 * every line (fc_log_shapes, tests/test-log.c, fuzz-log).  The word reads
 * may look up to 8 bytes before a line and 64 bytes into what follows it,
 * so the file buffer has that much room around it, zeroed, and a caller's
 * buffer is read this way only where its bytes are there.
 */
#define _GNU_SOURCE
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#if defined(__SSE2__)
#define HAVE_SSE2 1
#include <emmintrin.h>
#endif

enum fc_log_shapes fc_log_shapes = FC_LOG_SHAPES_BEST;

const char *fc_log_type_name(enum fc_log_type type)
{
	static const char *const names[] = {NULL, "bw", "iops", "lat", "clat", "slat", "clat_hist"};
	if ((unsigned)type >= FC_ARRAY_SIZE(names))
		return NULL;
	return names[type];
}

/* ---- file names ---------------------------------------------------------- */

static const struct {
	const char *suffix;
	size_t len;
	enum fc_log_type type;
} log_suffixes[] = {
    /* longest first: "_clat_hist" also ends in neither "_lat" nor "_clat" */
    {"_clat_hist", 10, FC_LOG_CLAT_HIST},
    {"_clat", 5, FC_LOG_CLAT},
    {"_slat", 5, FC_LOG_SLAT},
    {"_lat", 4, FC_LOG_LAT},
    {"_iops", 5, FC_LOG_IOPS},
    {"_bw", 3, FC_LOG_BW},
};

static const struct {
	const char *suffix;
	size_t len;
	enum fc_ddir ddir;
} agg_suffixes[] = {
    {"-read", 5, FC_DDIR_READ},
    {"-write", 6, FC_DDIR_WRITE},
    {"-trim", 5, FC_DDIR_TRIM},
};

/* Reads the part of a name before ".log" as <prefix>_<type>[.<N>]. */
static bool parse_stem(const char *s, size_t len, struct fc_log_name *out)
{
	size_t end = len;
	int index = 0;
	size_t i = len;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i < len && i > 0 && s[i - 1] == '.') {
		long long v = 0;
		for (size_t j = i; j < len; j++) {
			v = v * 10 + (s[j] - '0');
			if (v > INT_MAX)
				return false;
		}
		if (v < 1)
			return false;
		index = (int)v;
		end = i - 1;
	}
	for (size_t t = 0; t < FC_ARRAY_SIZE(log_suffixes); t++) {
		size_t tl = log_suffixes[t].len;
		if (end <= tl || memcmp(s + end - tl, log_suffixes[t].suffix, tl) != 0)
			continue;
		out->prefix = s;
		out->prefix_len = end - tl;
		out->type = log_suffixes[t].type;
		out->index = index;
		if (index || out->type != FC_LOG_BW)
			return true;
		for (size_t a = 0; a < FC_ARRAY_SIZE(agg_suffixes); a++) {
			size_t al = agg_suffixes[a].len;
			if (out->prefix_len > al &&
			    memcmp(s + out->prefix_len - al, agg_suffixes[a].suffix, al) == 0) {
				out->aggregate = true;
				out->aggregate_ddir = agg_suffixes[a].ddir;
				out->prefix_len -= al;
				break;
			}
		}
		return true;
	}
	return false;
}

int fc_log_name_parse(const char *path, struct fc_log_name *out)
{
	memset(out, 0, sizeof(*out));
	if (!path)
		return FC_E_FORMAT;
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	size_t len = strlen(name);
	/* Every ".log" is a candidate end of the stem; the last one wins. */
	for (size_t i = len >= 4 ? len - 4 + 1 : 0; i-- > 0;) {
		if (memcmp(name + i, ".log", 4) != 0)
			continue;
		const char *rest = name + i + 4;
		size_t rest_len = len - i - 4;
		struct fc_log_name n = {0};
		if (rest_len >= 3 && memcmp(rest, ".fz", 3) == 0 &&
		    (rest_len == 3 || rest[3] == '.')) {
			n.compressed = true;
			rest += 3;
			rest_len -= 3;
		}
		if (rest_len > 0) {
			if (rest[0] != '.' || rest_len == 1)
				continue;
			n.host = rest + 1;
			n.host_len = rest_len - 1;
		}
		if (!parse_stem(name, i, &n))
			continue;
		*out = n;
		return FC_OK;
	}
	return FC_E_FORMAT;
}

/* ---- the reader ---------------------------------------------------------- */

enum role {
	R_TIME,
	R_VALUE,
	R_VALUE1,
	R_DDIR,
	R_BS,
	R_OFFSET,
	R_PRIO,
	R_ISSUE,
	R_COUNT,
};

static const char *const role_names[R_COUNT] = {
    "time", "value", "value1", "ddir", "bs", "offset", "prio", "issue_time",
};

/* Optional columns, in the order fio prints them after time and value. */
#define L_VALUE1 (1u << R_VALUE1)
#define L_DDIR	 (1u << R_DDIR)
#define L_BS	 (1u << R_BS)
#define L_OFFSET (1u << R_OFFSET)
#define L_PRIO	 (1u << R_PRIO)
#define L_ISSUE	 (1u << R_ISSUE)

#define MAX_FIELDS 8

/* Room the word reads need around a line (see the top). */
#define PAD_BEFORE 8
#define PAD_AFTER  64

/* The shape of a line of up to SHAPE_WORDS * 8 bytes: "D, D, ..., D\n". */
#define SHAPE_WORDS 8

struct shape {
	unsigned len; /* bytes, the '\n' included; 0: no shape yet */
	unsigned words;
	unsigned columns;
	/* per byte of the line, read 8 at a time (fc_log_word()): x: '0' at
	 * digits, the separator at separators; add: 0x76 at digits, 0x7f at
	 * separators; high: 0x80.  Byte b fits when b ^ x is at most 9 (a
	 * digit) or 0 (a separator): ((b ^ x) + add) | (b ^ x) has no high bit
	 * then.  The same 16 bytes at a time: b fits when b ^ x is at most lim,
	 * 9 at digits, 0 at separators.  After the line: 0, and lim 0xff. */
	uint8_t x[SHAPE_WORDS * 8], add[SHAPE_WORDS * 8], high[SHAPE_WORDS * 8];
	uint8_t lim[SHAPE_WORDS * 8];
	/* per field: the offset of the byte after it, its digits (1..19), and
	 * the mask of its last min(digits, 8) digits in the 8 bytes before the
	 * end */
	uint8_t end[MAX_FIELDS], digits[MAX_FIELDS];
	uint64_t mask[MAX_FIELDS];
	/* x and lim for a block of lines that is a whole number of 16-byte
	 * vectors (lcm(16, len) bytes), the ddir and the guessed prio at their
	 * own limits (see shaped_lines()); block_key says for which, 0 until
	 * block_build() */
	uint8_t block_x[16 * SHAPE_WORDS * 8], block_lim[16 * SHAPE_WORDS * 8];
	unsigned block_vectors, block_lines, block_key;
};

struct fields {
	uint64_t v[MAX_FIELDS];
	uint32_t neg; /* bit i: field i had a minus sign */
	uint32_t hex; /* bit i: field i was 0x... */
	unsigned n;
	uint8_t end[MAX_FIELDS]; /* scan_fio_line(): the offset after field i */
};

struct fc_log_reader {
	char *source;
	int fd; /* -1 for a caller's buffer */

	/* Lines [p, end) are complete, end[-1] == '\n'. */
	const char *p, *end;
	const char *line_start;
	unsigned long line; /* lines consumed so far */

	/* file input: buf holds [buf, data_end); bytes before `scanned` that
	 * follow `end` hold no newline.  buf is PAD_BEFORE bytes into `alloc`,
	 * which has PAD_AFTER bytes after the buffer (also for the copy of a
	 * caller's last line) */
	char *alloc;
	char *buf;
	size_t buf_cap;
	char *data_end, *scanned;
	bool eof;
	/* caller's buffer: stage 0 = not started, 1 = tail left, 2 = done */
	const char *in, *in_end, *tail;
	int stage;

	/* lines starting in [fast_lo, fast_hi] may be read a word at a time */
	const char *fast_lo, *fast_hi;
	struct shape shapes[2];
	unsigned shape; /* the one that fitted last */
	/* lines the shapes read since the last was learnt; lines left to read
	 * byte by byte, and how many the next time, when shapes do not pay */
	unsigned long shape_hits;
	unsigned shape_skip, shape_backoff;
	unsigned shape_streak; /* lines in a row read with the same shape */

	/* error offsets: byte `base` is at offset base_offset of the input */
	const char *base;
	unsigned long long base_offset;

	enum fc_log_type type;
	struct fc_log_layout layout;
	bool layout_exact;
	bool prio5_guessed;
	int8_t col[R_COUNT];
	uint32_t allow_neg, allow_hex;
	unsigned long first_line;

	int status;
	struct fc_error status_err;

	bool have_first;
	struct fc_log_sample first;
	struct fc_hist_row hist_row;
	uint64_t *hist;
};

const char *fc_log_source(const struct fc_log_reader *r)
{
	return r->source;
}

const struct fc_log_layout *fc_log_get_layout(const struct fc_log_reader *r)
{
	return r ? &r->layout : NULL;
}

enum fc_log_type fc_log_get_type(const struct fc_log_reader *r)
{
	return r ? r->type : FC_LOG_UNKNOWN;
}

void fc_log_close(struct fc_log_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	free(r->alloc);
	free(r->hist);
	free(r->source);
	free(r);
}

/* An error at byte `at` of the line being read. */
static int err_at(struct fc_log_reader *r, struct fc_error *err, int code, const char *at,
		  const char *fmt, ...) FC_PRINTF(5, 6);
static int err_at(struct fc_log_reader *r, struct fc_error *err, int code, const char *at,
		  const char *fmt, ...)
{
	char msg[FC_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	unsigned long col = at ? (unsigned long)(at - r->line_start) + 1 : 0;
	fc_err(err, code, r->source, r->line, col, "%s", msg);
	if (err && at) {
		err->offset = r->base_offset + (unsigned long long)(at - r->base);
		err->has_offset = true;
	}
	return code;
}

/* What is at `p`, for messages. */
static void describe_byte(const char *p, char *buf, size_t len)
{
	unsigned char c = (unsigned char)*p;
	if (c == '\n' || (c == '\r' && p[1] == '\n'))
		snprintf(buf, len, "the end of the line");
	else if (c > ' ' && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Hex digits after "0x" at p; the prio column with log_prio=1. */
static const char *scan_hex(struct fc_log_reader *r, const char *p, const char *start, unsigned n,
			    uint64_t *out, struct fc_error *err)
{
	const char *digits = p;
	uint64_t x = 0;
	for (;;) {
		unsigned char c = (unsigned char)*p;
		unsigned h;
		if (c >= '0' && c <= '9')
			h = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			h = (c | 0x20) - 'a' + 10;
		else
			break;
		if (x >> 60) {
			err_at(r, err, FC_E_SYNTAX, start, "field %u: number too large", n + 1);
			return NULL;
		}
		x = x << 4 | h;
		p++;
	}
	if (p == digits) {
		err_at(r, err, FC_E_SYNTAX, p, "field %u: expected hex digits after 0x", n + 1);
		return NULL;
	}
	*out = x;
	return p;
}

/* Decimal digits at p, more than 19 of them: with overflow checks. */
static const char *scan_long(struct fc_log_reader *r, const char *p, unsigned n, uint64_t *out,
			     struct fc_error *err)
{
	const char *start = p;
	uint64_t x = 0;
	unsigned d;
	while ((d = (unsigned char)*p - '0') <= 9) {
		if (x > (UINT64_MAX - d) / 10) {
			err_at(r, err, FC_E_SYNTAX, start, "field %u: number too large", n + 1);
			return NULL;
		}
		x = x * 10 + d;
		p++;
	}
	*out = x;
	return p;
}

/*
 * Scans the line at r->p into `fs` (the first MAX_FIELDS fields) and, when
 * `extra` is given, fields 3.. into extra[0..extra_cap).  Returns 1 for a
 * line with fields, 0 for a blank line, < 0 on a syntax error.  r->p moves
 * past the line either way.  Always inlined so that the common case (no
 * extra, plain decimal fields after ", ") compiles to a tight loop; signs and
 * hex digits leave it.
 */
static inline __attribute__((always_inline)) int scan_line(struct fc_log_reader *r,
							   struct fields *fs, uint64_t *extra,
							   unsigned extra_cap, struct fc_error *err)
{
	const char *p = r->p;
	r->line_start = p;
	r->line++;
	while (is_blank(*p))
		p++;
	if (*p == '\r' && p[1] == '\n')
		p++;
	if (UNLIKELY(*p == '\n')) {
		r->p = p + 1;
		return 0;
	}
	unsigned n = 0;
	uint32_t neg = 0, hex = 0;
	for (;;) {
		while (is_blank(*p))
			p++;
		const char *start = p;
		uint64_t x = 0;
		uint32_t flag = 0; /* 1: minus sign, 2: hex */
		unsigned d = (unsigned char)*p - '0';
		if (LIKELY(d <= 9)) {
			/* 19 digits cannot overflow; longer numbers are checked */
			do {
				x = x * 10 + d;
				p++;
				d = (unsigned char)*p - '0';
			} while (d <= 9);
			if (UNLIKELY(p - start > 19)) {
				p = scan_long(r, start, n, &x, err);
				if (!p)
					return FC_E_SYNTAX;
			} else if (UNLIKELY((*p | 0x20) == 'x') && p - start == 1 && x == 0) {
				p = scan_hex(r, p + 1, start, n, &x, err);
				if (!p)
					return FC_E_SYNTAX;
				flag = 2;
			}
		} else if (*p == '-' && (unsigned)((unsigned char)p[1] - '0') <= 9) {
			p = scan_long(r, p + 1, n, &x, err);
			if (!p)
				return FC_E_SYNTAX;
			flag = 1;
		} else {
			char what[32];
			p += *p == '-';
			describe_byte(p, what, sizeof(what));
			return err_at(r, err, FC_E_SYNTAX, p,
				      "field %u: expected a number, found %s", n + 1, what);
		}
		if (LIKELY(n < MAX_FIELDS))
			fs->v[n] = x;
		if (UNLIKELY(flag)) {
			if (n >= MAX_FIELDS)
				return err_at(r, err, FC_E_SYNTAX, start,
					      "field %u: expected an unsigned decimal count",
					      n + 1);
			neg |= (flag & 1) << n;
			hex |= (flag >> 1) << n;
		}
		if (extra && n >= 3 && n - 3 < extra_cap)
			extra[n - 3] = x;
		n++;
		if (LIKELY(*p == ',')) {
			p++;
			continue;
		}
		while (is_blank(*p))
			p++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\r' && p[1] == '\n')
			p++;
		if (LIKELY(*p == '\n'))
			break;
		char what[32];
		describe_byte(p, what, sizeof(what));
		return err_at(r, err, FC_E_SYNTAX, p,
			      "after field %u: expected ',' or the end of the line, found %s", n,
			      what);
	}
	r->p = p + 1;
	fs->n = n;
	fs->neg = neg;
	fs->hex = hex;
	return 1;
}

/*
 * The line exactly as fio prints it: `columns` unsigned decimal fields
 * joined by ", ", then '\n'.  Fills fs and returns the byte after the line,
 * or NULL for anything else (then scan_line() reads it and explains).  This
 * is most of the time spent on a large log.
 */
static inline __attribute__((always_inline)) const char *
scan_fio_line(const char *p, unsigned columns, struct fields *fs)
{
	const char *line = p;
	for (unsigned i = 0;; i++) {
		const char *start = p;
		unsigned d = (unsigned char)*p - '0';
		if (d > 9)
			return NULL;
		uint64_t x = 0;
		do {
			x = x * 10 + d;
			p++;
			d = (unsigned char)*p - '0';
		} while (d <= 9);
		if (p - start > 19)
			return NULL;
		fs->v[i] = x;
		fs->end[i] = (uint8_t)(p - line); /* at most 8 * 21 */
		if (i + 1 == columns)
			break;
		if (p[0] != ',' || p[1] != ' ')
			return NULL;
		p += 2;
	}
	if (*p != '\n')
		return NULL;
	fs->n = columns;
	fs->neg = fs->hex = 0;
	return p + 1;
}

/* ---- lines of a known shape --------------------------------------------- */

#define DIGITS_ALL 0x0f0f0f0f0f0f0f0full

/* The mask of the last n (1..8) of 8 digits: the top n bytes' low nibbles. */
static uint64_t digit_mask(unsigned n)
{
	return DIGITS_ALL << (8 * (8 - n));
}

/* The number the digits kept by `mask` in the 8 bytes before `e` make (the
 * bytes are known to be digits). */
static inline uint64_t digits8(const char *e, uint64_t mask)
{
	return fc_log_digits8(fc_log_word(e - 8) & mask);
}

/* Field i of a line of shape sh at p. */
static inline __attribute__((always_inline)) uint64_t shape_field(const struct shape *sh,
								  const char *p, unsigned i)
{
	const char *e = p + sh->end[i];
	unsigned n = sh->digits[i];
	if (n == 1)
		return (unsigned char)e[-1] & 0x0f;
	if (LIKELY(n <= 8))
		return digits8(e, sh->mask[i]);
	/* 9 to 19 digits: the first ones, then 8 at a time */
	unsigned rest = (n - 1) / 8;
	uint64_t v = digits8(e - 8 * rest, sh->mask[i]);
	for (unsigned k = rest; k > 0; k--)
		v = v * 100000000 + digits8(e - 8 * (k - 1), DIGITS_ALL);
	return v;
}

/* Whether the line at p has shape sh: its separators at their places,
 * digits at every other byte. */
static inline __attribute__((always_inline)) bool shape_fits(const struct shape *sh, const char *p)
{
	uint64_t bad = 0;
	for (unsigned k = 0; k < sh->words; k++) {
		uint64_t x = fc_log_word(p + 8 * k) ^ fc_log_word((const char *)sh->x + 8 * k);
		bad |= ((x + fc_log_word((const char *)sh->add + 8 * k)) | x) &
		       fc_log_word((const char *)sh->high + 8 * k);
	}
	return bad == 0;
}

/* A shape learnt pays when this many lines fit it before the next is
 * learnt; when it did not, lines are read byte by byte for a while, longer
 * each time (a log whose widths change on most lines). */
#define SHAPE_PAYS	  4
#define SHAPE_BACKOFF_MIN 16
#define SHAPE_BACKOFF_MAX 4096

/* The shape of [p, next), a line scan_fio_line() read into fs: `columns`
 * fields of 1 to 19 digits joined by ", ", then '\n'.  Lines longer than
 * the shape can hold get none (len 0). */
static void shape_build(struct shape *sh, const char *p, const char *next, const struct fields *fs)
{
	size_t len = (size_t)(next - p);
	sh->len = 0;
	if (len > SHAPE_WORDS * 8)
		return;
	const size_t after = sizeof(sh->x) - len;
	memset(sh->x, '0', len);
	memset(sh->x + len, 0, after);
	memset(sh->add, 0x76, len);
	memset(sh->add + len, 0, after);
	memset(sh->high, 0x80, len);
	memset(sh->high + len, 0, after);
	memset(sh->lim, 9, len);
	memset(sh->lim + len, 0xff, after);
	unsigned start = 0;
	for (unsigned f = 0; f < fs->n; f++) {
		unsigned end = fs->end[f], n = end - start;
		sh->end[f] = (uint8_t)end;
		sh->digits[f] = (uint8_t)n;
		sh->mask[f] = digit_mask(n % 8 ? n % 8 : 8);
		/* ", " after the field, '\n' after the last */
		unsigned seps = f + 1 < fs->n ? 2 : 1;
		for (unsigned i = end; i < end + seps; i++) {
			sh->x[i] = (uint8_t)p[i];
			sh->add[i] = 0x7f;
			sh->lim[i] = 0;
		}
		start = end + 2;
	}
	sh->words = (unsigned)(len + 7) / 8;
	sh->columns = fs->n;
	sh->len = (unsigned)len;
	sh->block_key = 0;
}

/* What a block is built for: its ddir's and guard's places, guard_max. */
static unsigned block_key_of(unsigned ddir_at, unsigned guard_at, unsigned guard_max)
{
	return 1u << 24 | guard_max << 16 | guard_at << 8 | ddir_at;
}

/* The block of shape sh (see struct shape) whose ddir digit, at ddir_at,
 * is at most 2 and whose byte at guard_at is at most guard_max. */
static void block_build(struct shape *sh, unsigned ddir_at, unsigned guard_at, unsigned guard_max)
{
	unsigned a = sh->len, b = 16;
	while (b) {
		unsigned t = a % b;
		a = b;
		b = t;
	}
	unsigned bytes = sh->len / a * 16; /* lcm(len, 16) */
	sh->block_vectors = bytes / 16;
	sh->block_lines = bytes / sh->len;
	for (unsigned q = 0; q < bytes; q++) {
		sh->block_x[q] = sh->x[q % sh->len];
		sh->block_lim[q] = sh->lim[q % sh->len];
	}
	for (unsigned l = 0; l < sh->block_lines; l++) {
		uint8_t *lim = sh->block_lim + l * sh->len;
		lim[ddir_at] = 2;
		if (lim[guard_at] > guard_max - '0')
			lim[guard_at] = (uint8_t)(guard_max - '0');
	}
	sh->block_key = block_key_of(ddir_at, guard_at, guard_max);
}

/* Start of field `index` (0-based) of the line just scanned, for messages. */
static const char *field_start(const struct fc_log_reader *r, unsigned index)
{
	const char *p = r->line_start;
	while (index > 0 && *p != '\n') {
		if (*p == ',')
			index--;
		p++;
	}
	while (is_blank(*p))
		p++;
	return p;
}

/* Tells which layout the 2.x/3.x hist bucket count K belongs to. */
static unsigned hist_groups_for(unsigned k)
{
	for (unsigned c = 0; c <= 6; c++) {
		if (k == ((unsigned)FC_HIST_BUCKETS >> c))
			return 29;
		if (k == ((unsigned)FC_HIST_BUCKETS_V2 >> c))
			return 19;
	}
	return 0;
}

static void describe_layout(const struct fc_log_layout *l, char *buf, size_t len)
{
	if (l->hist) {
		snprintf(buf, len, "time, ddir, bs and %u buckets", l->hist_buckets);
		return;
	}
	size_t used = (size_t)snprintf(buf, len, "time, value");
	static const struct {
		size_t off;
		const char *name;
	} cols[] = {
	    {offsetof(struct fc_log_layout, has_value1), "value1"},
	    {offsetof(struct fc_log_layout, has_ddir), "ddir"},
	    {offsetof(struct fc_log_layout, has_bs), "bs"},
	    {offsetof(struct fc_log_layout, has_offset), "offset"},
	    {offsetof(struct fc_log_layout, has_prio), "prio"},
	    {offsetof(struct fc_log_layout, has_issue_time), "issue_time"},
	};
	for (size_t i = 0; i < FC_ARRAY_SIZE(cols) && used < len; i++) {
		if (*(const bool *)((const char *)l + cols[i].off))
			used += (size_t)snprintf(buf + used, len - used, ", %s", cols[i].name);
	}
}

static unsigned layout_mask(const struct fc_log_layout *l)
{
	return (l->has_value1 ? L_VALUE1 : 0) | (l->has_ddir ? L_DDIR : 0) |
	       (l->has_bs ? L_BS : 0) | (l->has_offset ? L_OFFSET : 0) |
	       (l->has_prio ? L_PRIO : 0) | (l->has_issue_time ? L_ISSUE : 0);
}

/* Sets the flags, column count and column indexes for the optional columns in `mask`. */
static void apply_mask(struct fc_log_reader *r, unsigned mask)
{
	struct fc_log_layout *l = &r->layout;
	l->has_value1 = mask & L_VALUE1;
	l->has_ddir = mask & L_DDIR;
	l->has_bs = mask & L_BS;
	l->has_offset = mask & L_OFFSET;
	l->has_prio = mask & L_PRIO;
	l->has_issue_time = mask & L_ISSUE;
	l->hist = false;
	l->hist_buckets = 0;
	l->hist_groups = 0;
	r->col[R_TIME] = 0;
	r->col[R_VALUE] = 1;
	int8_t next = 2;
	for (int role = R_VALUE1; role < R_COUNT; role++) {
		if (mask & (1u << role))
			r->col[role] = next++;
		else
			r->col[role] = -1;
	}
	l->columns = (unsigned)next;
	r->allow_neg = 1u << 1;
	if (r->col[R_VALUE1] >= 0)
		r->allow_neg |= 1u << r->col[R_VALUE1];
	r->allow_hex = r->col[R_PRIO] >= 0 ? 1u << r->col[R_PRIO] : 0;
}

static int set_hist(struct fc_log_reader *r, unsigned columns, const char *at, struct fc_error *err)
{
	struct fc_log_layout *l = &r->layout;
	unsigned k = columns >= 3 ? columns - 3 : 0;
	unsigned groups = hist_groups_for(k);
	if (!groups)
		return err_at(r, err, FC_E_FORMAT, at,
			      "%u fields: a clat_hist line has time, ddir, bs and 1856 >> c "
			      "(fio >= 2.99) or 1216 >> c (fio 2.x) buckets, c = 0..6",
			      columns);
	if (l->hist_groups && l->hist_groups != groups)
		return err_at(r, err, FC_E_FORMAT, at,
			      "%u buckets do not fit a histogram of %u groups", k, l->hist_groups);
	memset(r->col, -1, sizeof(r->col));
	l->columns = columns;
	l->hist = true;
	l->hist_buckets = k;
	l->hist_groups = groups;
	l->has_value1 = l->has_offset = l->has_prio = l->prio_hex = l->has_issue_time = false;
	l->has_ddir = l->has_bs = true;
	r->allow_neg = r->allow_hex = 0;
	free(r->hist);
	r->hist = calloc(k, sizeof(*r->hist));
	if (!r->hist)
		return fc_err(err, FC_E_NOMEM, r->source, 0, 0, "out of memory");
	return FC_OK;
}

/* The layouts a line of n fields can have (two at most), as column masks. */
static const unsigned layout_candidates[MAX_FIELDS + 1][2] = {
    [2] = {0, ~0u},
    [3] = {L_DDIR, ~0u},
    [4] = {L_DDIR | L_BS, ~0u},
    [5] = {L_DDIR | L_BS | L_PRIO, L_DDIR | L_BS | L_OFFSET},
    [6] = {L_DDIR | L_BS | L_OFFSET | L_PRIO, L_VALUE1 | L_DDIR | L_BS | L_PRIO},
    [7] = {L_VALUE1 | L_DDIR | L_BS | L_OFFSET | L_PRIO,
	   L_DDIR | L_BS | L_OFFSET | L_PRIO | L_ISSUE},
    [8] = {L_VALUE1 | L_DDIR | L_BS | L_OFFSET | L_PRIO | L_ISSUE, ~0u},
};

/* Settles an ambiguous field count from the first line (see fiocamp.h). */
static unsigned guess_layout(struct fc_log_reader *r, const struct fields *fs)
{
	const uint64_t *v = fs->v;
	switch (fs->n) {
	case 5:
		if (fs->hex & (1u << 4))
			return L_DDIR | L_BS | L_PRIO;
		if (v[4] > 1)
			return L_DDIR | L_BS | L_OFFSET;
		r->prio5_guessed = true;
		return L_DDIR | L_BS | L_PRIO;
	case 6:
		if (v[2] > 2)
			return L_VALUE1 | L_DDIR | L_BS | L_PRIO;
		if (v[3] > 2)
			return L_DDIR | L_BS | L_OFFSET | L_PRIO;
		if (v[4] != 0)
			return L_VALUE1 | L_DDIR | L_BS | L_PRIO;
		return L_DDIR | L_BS | L_OFFSET | L_PRIO;
	default: /* 7 */
		if (fs->hex & (1u << 5))
			return L_DDIR | L_BS | L_OFFSET | L_PRIO | L_ISSUE;
		if ((fs->hex & (1u << 6)) || v[2] > 2)
			return L_VALUE1 | L_DDIR | L_BS | L_OFFSET | L_PRIO;
		return L_DDIR | L_BS | L_OFFSET | L_PRIO | L_ISSUE;
	}
}

/* Works out the layout from the first line, the name and the caller's hints. */
static int detect_layout(struct fc_log_reader *r, const struct fields *fs, struct fc_error *err)
{
	struct fc_log_layout *l = &r->layout;
	const char *at = r->line_start;
	r->first_line = r->line;
	if (r->layout_exact)
		return FC_OK;
	if (fs->n > MAX_FIELDS || l->hist || r->type == FC_LOG_CLAT_HIST) {
		if (r->type != FC_LOG_UNKNOWN && r->type != FC_LOG_CLAT_HIST)
			return err_at(r, err, FC_E_FORMAT, at,
				      "%u fields: %s log lines have 2 to 8 fields", fs->n,
				      fc_log_type_name(r->type));
		return set_hist(r, fs->n, at, err);
	}
	if (fs->n < 2)
		return err_at(r, err, FC_E_SYNTAX, at, "1 field: expected at least time and value");
	unsigned want = layout_mask(l) & (L_VALUE1 | L_OFFSET | L_ISSUE);
	if (l->prio_hex)
		want |= L_PRIO;
	unsigned fits[2], nfits = 0;
	for (int i = 0; i < 2; i++) {
		unsigned m = layout_candidates[fs->n][i];
		if (m != ~0u && (m & want) == want)
			fits[nfits++] = m;
	}
	if (nfits == 0) {
		char hint[128];
		apply_mask(r, want);
		describe_layout(l, hint, sizeof(hint));
		return err_at(r, err, FC_E_FORMAT, at,
			      "%u fields do not fit the columns the caller gave (%s)", fs->n, hint);
	}
	unsigned mask = nfits == 1 ? fits[0] : guess_layout(r, fs);
	bool prio_hex = l->prio_hex;
	apply_mask(r, mask);
	l->prio_hex = prio_hex || (r->col[R_PRIO] >= 0 && (fs->hex & (1u << r->col[R_PRIO])));
	return FC_OK;
}

static int range_error(struct fc_log_reader *r, struct fc_error *err, int role, uint64_t v,
		       const char *limit)
{
	return err_at(r, err, FC_E_SYNTAX, field_start(r, (unsigned)r->col[role]),
		      "field %d (%s): %llu is out of range (%s)", r->col[role] + 1,
		      role_names[role], (unsigned long long)v, limit);
}

static int field_count_error(struct fc_log_reader *r, const struct fields *fs, struct fc_error *err)
{
	char lay[160];
	describe_layout(&r->layout, lay, sizeof(lay));
	if (r->first_line && r->first_line != r->line)
		return err_at(r, err, FC_E_SYNTAX, r->line_start,
			      "%u fields, expected %u like line %lu (%s)", fs->n, r->layout.columns,
			      r->first_line, lay);
	return err_at(r, err, FC_E_SYNTAX, r->line_start, "%u fields, expected %u (%s)", fs->n,
		      r->layout.columns, lay);
}

/* The first field with a sign or hex digits where none may be. */
static int sign_error(struct fc_log_reader *r, const struct fields *fs, struct fc_error *err)
{
	uint32_t bad = (fs->neg & ~r->allow_neg) | (fs->hex & ~r->allow_hex);
	unsigned i = (unsigned)__builtin_ctz(bad);
	const char *name = "bucket";
	for (int role = 0; role < R_COUNT; role++) {
		if (r->col[role] == (int)i)
			name = role_names[role];
	}
	if (r->layout.hist)
		name = i == 0 ? "time" : i == 1 ? "ddir" : i == 2 ? "bs" : "bucket";
	const char *what = (fs->hex >> i) & 1 ? "a decimal number (hex only in the prio column)"
					      : "an unsigned number";
	return err_at(r, err, FC_E_SYNTAX, field_start(r, i), "field %u (%s): expected %s", i + 1,
		      name, what);
}

static int ddir_error(struct fc_log_reader *r, unsigned col, uint64_t v, struct fc_error *err)
{
	return err_at(r, err, FC_E_FORMAT, field_start(r, col),
		      "field %u (ddir): %llu is not a direction (0 read, 1 write, 2 trim)", col + 1,
		      (unsigned long long)v);
}

static inline int to_int64(struct fc_log_reader *r, const struct fields *fs, int role, int64_t *out,
			   struct fc_error *err)
{
	int c = r->col[role];
	uint64_t v = fs->v[c];
	if (LIKELY(!((fs->neg >> c) & 1))) {
		if (UNLIKELY(v > (uint64_t)INT64_MAX))
			return range_error(r, err, role, v, "at most 2^63 - 1");
		*out = (int64_t)v;
		return FC_OK;
	}
	if (v > (uint64_t)INT64_MAX + 1)
		return range_error(r, err, role, v, "at least -2^63");
	*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	return FC_OK;
}

/* A 5-column log guessed to end in prio shows a value only an offset has. */
static void switch_to_offset(struct fc_log_reader *r)
{
	bool prio_hex = r->layout.prio_hex;
	r->prio5_guessed = false;
	apply_mask(r, L_DDIR | L_BS | L_OFFSET);
	r->layout.prio_hex = prio_hex;
}

/*
 * A line's fields checked against the layout, in the order errors are
 * reported, into a sample or (when s is NULL) a point.
 */
static inline __attribute__((always_inline)) int
fields_to_out(struct fc_log_reader *r, const struct fields *fs, struct fc_log_sample *s,
	      struct fc_log_point *pt, struct fc_error *err)
{
	if (UNLIKELY(fs->n != r->layout.columns))
		return field_count_error(r, fs, err);
	if (UNLIKELY((fs->neg & ~r->allow_neg) | (fs->hex & ~r->allow_hex)))
		return sign_error(r, fs, err);
	int64_t value = 0, value1 = 0;
	int rc = to_int64(r, fs, R_VALUE, &value, err);
	if (UNLIKELY(rc))
		return rc;
	if (r->col[R_VALUE1] >= 0) {
		rc = to_int64(r, fs, R_VALUE1, &value1, err);
		if (rc)
			return rc;
	}
	int ddir = 0;
	if (LIKELY(r->col[R_DDIR] >= 0)) {
		uint64_t d = fs->v[r->col[R_DDIR]];
		if (UNLIKELY(d > 2))
			return ddir_error(r, (unsigned)r->col[R_DDIR], d, err);
		ddir = (int)d;
	}
	uint64_t bs = r->col[R_BS] >= 0 ? fs->v[r->col[R_BS]] : 0;
	if (UNLIKELY(r->prio5_guessed) && fs->v[4] > 1 && !(fs->hex & (1u << 4)))
		switch_to_offset(r);
	uint32_t prio = 0;
	if (r->col[R_PRIO] >= 0) {
		uint64_t pr = fs->v[r->col[R_PRIO]];
		if (UNLIKELY(pr > UINT32_MAX))
			return range_error(r, err, R_PRIO, pr, "at most 2^32 - 1");
		prio = (uint32_t)pr;
	}
	if (!s) {
		pt->time_ms = fs->v[0];
		pt->value = value;
		pt->value1 = value1;
		pt->bs = bs;
		pt->line = r->line;
		pt->ddir = ddir;
		return FC_OK;
	}
	s->time_ms = fs->v[0];
	s->value = value;
	s->value1 = value1;
	s->ddir = ddir;
	s->bs = bs;
	s->offset = r->col[R_OFFSET] >= 0 ? fs->v[r->col[R_OFFSET]] : 0;
	s->prio = prio;
	s->issue_time_ns = r->col[R_ISSUE] >= 0 ? fs->v[r->col[R_ISSUE]] : 0;
	s->line = r->line;
	return FC_OK;
}

static int fields_to_sample(struct fc_log_reader *r, const struct fields *fs,
			    struct fc_log_sample *s, struct fc_error *err)
{
	return fields_to_out(r, fs, s, NULL, err);
}

static int fields_to_hist(struct fc_log_reader *r, const struct fields *fs, struct fc_hist_row *h,
			  struct fc_error *err)
{
	if (fs->n != r->layout.columns)
		return field_count_error(r, fs, err);
	if (fs->neg | fs->hex)
		return sign_error(r, fs, err);
	if (fs->v[1] > 2)
		return ddir_error(r, 1, fs->v[1], err);
	h->time_ms = fs->v[0];
	h->ddir = (int)fs->v[1];
	h->bs = fs->v[2];
	h->n_buckets = r->layout.hist_buckets;
	h->buckets = r->hist;
	h->line = r->line;
	return FC_OK;
}

/* ---- input --------------------------------------------------------------- */

/*
 * Where fill() reads to: an address READ_ALIGN bytes aligned.  The kernel's
 * copy from the page cache to an address 1 to 31 bytes past a 64-byte
 * boundary ran 3.3 times slower on the development machine (AMD EPYC,
 * Linux 6.1): 256 KiB reads of a cached 84 MB file took 38-40 ms in all
 * there, 11-12 ms at an aligned address.
 */
#define READ_ALIGN 64
_Static_assert(PAD_BEFORE <= READ_ALIGN, "the padding fits before an aligned buf");

/* buf, READ_ALIGN bytes aligned, with room for `len` bytes that start up to
 * READ_ALIGN - 1 bytes into it and a '\n', zeroed, and the room around it
 * that the word reads need. */
static bool alloc_buffer(struct fc_log_reader *r, size_t len)
{
	size_t size = READ_ALIGN + len + READ_ALIGN + PAD_AFTER;
	void *a;
	if (posix_memalign(&a, READ_ALIGN, size) != 0)
		return false;
	memset(a, 0, size);
	r->alloc = a;
	r->buf = r->alloc + READ_ALIGN;
	r->fast_lo = r->buf;
	r->fast_hi = r->buf + len + READ_ALIGN;
	return true;
}

static int fill_buffer_input(struct fc_log_reader *r, struct fc_error *err)
{
	if (r->stage == 0) {
		r->stage = 1;
		size_t len = (size_t)(r->in_end - r->in);
		const char *nl = len ? memrchr(r->in, '\n', len) : NULL;
		r->tail = nl ? nl + 1 : r->in;
		if (nl) {
			r->p = r->in;
			r->end = nl + 1;
			return 1;
		}
	}
	if (r->stage == 1) {
		r->stage = 2;
		size_t len = (size_t)(r->in_end - r->tail);
		if (len == 0)
			return 0;
		if (len >= FC_LOG_LINE_MAX)
			return fc_err(err, FC_E_LIMIT, r->source, r->line + 1, 0,
				      "line is longer than %u bytes", FC_LOG_LINE_MAX - 1);
		if (!alloc_buffer(r, len))
			return fc_err(err, FC_E_NOMEM, r->source, 0, 0, "out of memory");
		memcpy(r->buf, r->tail, len);
		r->buf[len] = '\n';
		r->base_offset += (unsigned long long)(r->tail - r->base);
		r->base = r->buf;
		r->p = r->buf;
		r->end = r->buf + len + 1;
		return 1;
	}
	return 0;
}

/* Makes complete lines available at r->p.  1, 0 at the end, < 0 on error. */
static int fill(struct fc_log_reader *r, struct fc_error *err)
{
	if (r->fd < 0)
		return fill_buffer_input(r, err);
	/* the bytes kept, of a line not complete yet, end where the next read
	 * starts: at an aligned address (see READ_ALIGN) */
	size_t keep = (size_t)(r->data_end - r->p);
	char *to = r->buf + (READ_ALIGN - keep % READ_ALIGN) % READ_ALIGN;
	if (r->p != to) {
		memmove(to, r->p, keep);
		r->base_offset += (unsigned long long)(r->p - to); /* wraps right */
		r->scanned = to + (r->scanned - r->p);
	}
	r->p = r->end = to;
	r->data_end = to + keep;
	for (;;) {
		size_t unscanned = (size_t)(r->data_end - r->scanned);
		char *nl = unscanned ? memrchr(r->scanned, '\n', unscanned) : NULL;
		r->scanned = r->data_end;
		if (nl) {
			r->end = nl + 1;
			return 1;
		}
		if (r->eof) {
			if (r->data_end == r->p)
				return 0;
			/* the buffer has one spare byte for this */
			*r->data_end++ = '\n';
			r->scanned = r->data_end;
			r->end = r->data_end;
			return 1;
		}
		size_t room = r->buf_cap - (size_t)(r->data_end - r->p);
		if (room == 0)
			return fc_err(err, FC_E_LIMIT, r->source, r->line + 1, 0,
				      "line is longer than %u bytes", FC_LOG_LINE_MAX - 1);
		ssize_t got = read(r->fd, r->data_end, room);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			return fc_err_errno(err, errno, r->source, "cannot read");
		}
		if (got == 0)
			r->eof = true;
		r->data_end += got;
	}
}

/* Compressed content fio's reader cannot take as text. */
static int check_magic(struct fc_log_reader *r, const unsigned char *b, size_t len,
		       struct fc_error *err)
{
	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return fc_err(err, FC_E_FORMAT, r->source, 0, 0,
			      "gzip data, not a text log: gunzip it first");
	/* fio's deflate streams start with 0x78 ('x', 32 KiB window), which no
	 * text log does */
	if (len >= 2 && b[0] == 0x78 && ((b[0] << 8) | b[1]) % 31 == 0)
		return fc_err(err, FC_E_FORMAT, r->source, 0, 0,
			      "zlib data (a log_store_compressed=1 log): turn it into text with "
			      "`fio --inflate-log=FILE`");
	return FC_OK;
}

static bool has_bom(const char *p, size_t len)
{
	return len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0;
}

/* The first line with fields: settles the layout and keeps the sample. */
static int read_first(struct fc_log_reader *r, struct fc_error *err)
{
	struct fields fs = {0};
	for (;;) {
		if (r->p == r->end) {
			int rc = fill(r, err);
			if (rc <= 0)
				return rc;
			continue;
		}
		const char *line = r->p;
		int rc = scan_line(r, &fs, NULL, 0, err);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		rc = detect_layout(r, &fs, err);
		if (rc < 0)
			return rc;
		if (r->layout.hist) {
			/* again, now that there is room for the buckets */
			r->p = line;
			r->line--;
			rc = scan_line(r, &fs, r->hist, r->layout.hist_buckets, err);
			if (rc < 0)
				return rc;
			rc = fields_to_hist(r, &fs, &r->hist_row, err);
		} else {
			rc = fields_to_sample(r, &fs, &r->first, err);
		}
		if (rc < 0)
			return rc;
		r->have_first = true;
		return FC_OK;
	}
}

static int check_given_layout(struct fc_log_reader *r, const struct fc_log_layout *given,
			      struct fc_error *err)
{
	r->layout = *given;
	if (given->columns == 0) {
		r->layout.has_ddir = r->layout.has_bs = r->layout.has_prio = false;
		r->layout.hist_buckets = 0;
		if (given->hist_groups && given->hist_groups != 29 && given->hist_groups != 19)
			return fc_err(err, FC_E_INVAL, r->source, 0, 0,
				      "hist_groups must be 29 or 19, not %u", given->hist_groups);
		return FC_OK;
	}
	r->layout_exact = true;
	if (given->hist) {
		unsigned groups = hist_groups_for(given->hist_buckets);
		if (given->columns != given->hist_buckets + 3 || !groups ||
		    (given->hist_groups && given->hist_groups != groups))
			return fc_err(err, FC_E_INVAL, r->source, 0, 0,
				      "the layout given is not a clat_hist layout: %u columns, %u "
				      "buckets, %u groups",
				      given->columns, given->hist_buckets, given->hist_groups);
		bool value_us = given->value_us;
		int rc = set_hist(r, given->columns, NULL, err);
		r->layout.value_us = value_us;
		return rc;
	}
	unsigned mask = layout_mask(given);
	bool prio_hex = given->prio_hex, value_us = given->value_us;
	apply_mask(r, mask);
	r->layout.prio_hex = prio_hex && r->layout.has_prio;
	r->layout.value_us = value_us;
	if (r->layout.columns != given->columns)
		return fc_err(err, FC_E_INVAL, r->source, 0, 0,
			      "the layout given has %u columns, but its flags make %u",
			      given->columns, r->layout.columns);
	return FC_OK;
}

static struct fc_log_reader *reader_new(const char *source, struct fc_error *err)
{
	struct fc_log_reader *r = calloc(1, sizeof(*r));
	if (!r) {
		fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
		return NULL;
	}
	r->fd = -1;
	r->shape_hits = SHAPE_PAYS;
	r->source = strdup(source ? source : "(buffer)");
	if (!r->source) {
		free(r);
		fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
		return NULL;
	}
	return r;
}

/* What the name says; a compressed log is refused by name. */
static int take_name(struct fc_log_reader *r, const char *name, struct fc_error *err)
{
	struct fc_log_name n;
	if (fc_log_name_parse(name, &n) != FC_OK)
		return FC_OK;
	if (n.compressed)
		return fc_err(err, FC_E_FORMAT, r->source, 0, 0,
			      "a compressed log (.fz, log_store_compressed=1): turn it into text "
			      "with `fio --inflate-log=FILE`");
	r->type = n.type;
	return FC_OK;
}

static int open_common(struct fc_log_reader *r, const char *name,
		       const struct fc_log_layout *layout, struct fc_error *err)
{
	int rc = take_name(r, name, err);
	if (rc < 0)
		return rc;
	if (layout) {
		rc = check_given_layout(r, layout, err);
		if (rc < 0)
			return rc;
		if (r->layout.hist && r->type != FC_LOG_UNKNOWN && r->type != FC_LOG_CLAT_HIST)
			return fc_err(err, FC_E_INVAL, r->source, 0, 0,
				      "a clat_hist layout was given for a %s log",
				      fc_log_type_name(r->type));
		if (r->layout_exact && !r->layout.hist && r->type == FC_LOG_CLAT_HIST)
			return fc_err(err, FC_E_INVAL, r->source, 0, 0,
				      "a bw/iops/lat layout was given for a clat_hist log");
	}
	return read_first(r, err);
}

int fc_log_open(const char *path, const struct fc_log_layout *layout, struct fc_log_reader **out,
		struct fc_error *err)
{
	if (!out)
		return fc_err(err, FC_E_INVAL, path, 0, 0, "no place for the result given");
	*out = NULL;
	if (!path)
		return fc_err(err, FC_E_INVAL, NULL, 0, 0, "no path given");
	struct fc_log_reader *r = reader_new(path, err);
	if (!r)
		return FC_E_NOMEM;
	int rc;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		rc = fc_err_errno(err, errno, path, "cannot open");
		goto fail;
	}
	struct stat st;
	if (fstat(r->fd, &st) < 0) {
		rc = fc_err_errno(err, errno, path, "cannot stat");
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		rc = fc_err_errno(err, EISDIR, path, "cannot read");
		goto fail;
	}
	r->buf_cap = FC_LOG_LINE_MAX;
	if (!alloc_buffer(r, r->buf_cap)) {
		rc = fc_err(err, FC_E_NOMEM, path, 0, 0, "out of memory");
		goto fail;
	}
	r->p = r->end = r->scanned = r->data_end = r->buf;
	r->base = r->buf;
	/* the first bytes tell compressed data and a BOM */
	while (r->data_end - r->buf < 3 && !r->eof) {
		ssize_t got = read(r->fd, r->data_end, r->buf_cap - (size_t)(r->data_end - r->buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			rc = fc_err_errno(err, errno, path, "cannot read");
			goto fail;
		}
		if (got == 0)
			r->eof = true;
		r->data_end += got;
	}
	rc = check_magic(r, (const unsigned char *)r->buf, (size_t)(r->data_end - r->buf), err);
	if (rc < 0)
		goto fail;
	if (has_bom(r->buf, (size_t)(r->data_end - r->buf)))
		r->p = r->end = r->scanned = r->buf + 3;
	rc = open_common(r, path, layout, err);
	if (rc < 0)
		goto fail;
	*out = r;
	return FC_OK;
fail:
	fc_log_close(r);
	return rc;
}

int fc_log_open_buffer(const void *buf, size_t len, const char *source,
		       const struct fc_log_layout *layout, struct fc_log_reader **out,
		       struct fc_error *err)
{
	if (!out)
		return fc_err(err, FC_E_INVAL, source, 0, 0, "no place for the result given");
	*out = NULL;
	if (!buf && len)
		return fc_err(err, FC_E_INVAL, source, 0, 0, "no buffer given");
	struct fc_log_reader *r = reader_new(source, err);
	if (!r)
		return FC_E_NOMEM;
	const char *b = buf ? buf : "";
	r->in = r->base = r->p = r->end = b;
	r->in_end = b + len;
	r->fast_lo = b + 1; /* none */
	r->fast_hi = b;
	if (len >= PAD_BEFORE + PAD_AFTER) {
		r->fast_lo = b + PAD_BEFORE;
		r->fast_hi = b + len - PAD_AFTER;
	}
	int rc = check_magic(r, (const unsigned char *)b, len, err);
	if (rc < 0)
		goto fail;
	if (has_bom(b, len))
		r->in = r->p = r->end = b + 3;
	rc = open_common(r, source, layout, err);
	if (rc < 0)
		goto fail;
	*out = r;
	return FC_OK;
fail:
	fc_log_close(r);
	return rc;
}

/* ---- reading ------------------------------------------------------------- */

static int replay_error(const struct fc_log_reader *r, struct fc_error *err)
{
	if (err)
		*err = r->status_err;
	return r->status;
}

/* After the line [p, next) was read byte by byte: its shape, in place of
 * the older of the two, unless shapes have not paid lately. */
static void shape_learn(struct fc_log_reader *r, const char *p, const char *next,
			const struct fields *fs)
{
	if (r->shape_skip) {
		if (--r->shape_skip == 0)
			r->shape_hits = SHAPE_PAYS; /* the next line learns again */
		return;
	}
	if (r->shape_hits < SHAPE_PAYS) {
		r->shape_backoff = r->shape_backoff ? 2 * r->shape_backoff : SHAPE_BACKOFF_MIN;
		if (r->shape_backoff > SHAPE_BACKOFF_MAX)
			r->shape_backoff = SHAPE_BACKOFF_MAX;
		r->shape_skip = r->shape_backoff;
		return;
	}
	if (r->shape_hits >= SHAPE_PAYS * SHAPE_BACKOFF_MIN)
		r->shape_backoff = 0;
	r->shape_hits = 0;
	r->shape ^= 1;
	shape_build(&r->shapes[r->shape], p, next, fs);
}

/*
 * Reads the line at r->p into fs: 1, 0 for a blank line, < 0 on an error.
 * With try_shapes, a line of a known shape is read a word at a time.
 */
static inline __attribute__((always_inline)) int
read_line(struct fc_log_reader *r, struct fields *fs, bool try_shapes, struct fc_error *err)
{
	const char *p = r->p;
	const bool fast = p >= r->fast_lo && p <= r->fast_hi;
	if (try_shapes && LIKELY(fast) && fc_log_shapes && !r->shape_skip) {
		const struct shape *sh = &r->shapes[r->shape];
		bool fits = sh->len && shape_fits(sh, p);
		if (!fits) {
			sh = &r->shapes[r->shape ^ 1];
			fits = sh->len && shape_fits(sh, p);
			r->shape ^= fits;
			r->shape_streak = 0;
		}
		if (LIKELY(fits)) {
			r->shape_streak++;
			for (unsigned i = 0; i < sh->columns; i++)
				fs->v[i] = shape_field(sh, p, i);
			fs->n = sh->columns;
			fs->neg = fs->hex = 0;
			r->shape_hits++;
			r->line_start = p;
			r->line++;
			r->p = p + sh->len;
			return 1;
		}
	}
	const unsigned columns = r->layout.columns;
	r->shape_streak = 0;
	const char *next =
	    columns >= 2 && columns <= MAX_FIELDS ? scan_fio_line(p, columns, fs) : NULL;
	if (!next)
		return scan_line(r, fs, NULL, 0, err);
	r->line_start = p;
	r->line++;
	r->p = next;
	if (fast && fc_log_shapes)
		shape_learn(r, p, next, fs);
	return 1;
}

/*
 * Whether lines of shape sh can make a run (see log.h): ddir and bs
 * columns, no value1 (a windowed log: few lines), time, value and bs of at
 * most 8 digits (so value is below 2^63), a prio of at most 9 (below 2^32),
 * a ddir of one digit, and while the 5th column is taken for prio, one
 * digit there.  The ddir and the guessed prio are still looked at on each
 * line.  Lines of other shapes are read by read_line().
 */
static bool shape_is_plain(const struct fc_log_reader *r, const struct shape *sh)
{
	const int8_t *col = r->col;
	if (!sh->len || sh->columns != r->layout.columns)
		return false;
	if (col[R_DDIR] < 0 || col[R_BS] < 0 || col[R_VALUE1] >= 0)
		return false;
	if (sh->digits[0] > 8 || sh->digits[col[R_VALUE]] > 8 || sh->digits[col[R_BS]] > 8)
		return false;
	if (sh->digits[col[R_DDIR]] != 1)
		return false;
	if (col[R_PRIO] >= 0 && sh->digits[col[R_PRIO]] > 9)
		return false;
	if (r->prio5_guessed && sh->digits[4] != 1)
		return false;
	return true;
}

/*
 * How many of the lines at r->p, at most cap, have shape sh (plain, see
 * above) while they start at or before `stop`: the loop most of a large log
 * goes through.  Stops at the first line of another shape and before a
 * line whose ddir or guessed prio the checks of fields_to_out() must see.
 * WORDS is sh->words, a constant here so that the check unrolls.
 */
static inline __attribute__((always_inline)) size_t shaped_lines(const struct fc_log_reader *r,
								 struct shape *sh, const char *stop,
								 size_t cap, const unsigned WORDS,
								 const bool SSE2)
{
	const int8_t *col = r->col;
	/* the one-digit ddir, and a second byte that must be at most guard_max:
	 * the guessed prio, else the ddir again */
	const unsigned ddir_at = sh->end[col[R_DDIR]] - 1u;
	const unsigned guard_at = r->prio5_guessed ? sh->end[4] - 1u : ddir_at;
	const unsigned guard_max = r->prio5_guessed ? '1' : '2';
	uint64_t x[SHAPE_WORDS], add[SHAPE_WORDS], high[SHAPE_WORDS];
	for (unsigned k = 0; !SSE2 && k < WORDS; k++) {
		x[k] = fc_log_word((const char *)sh->x + 8 * k);
		add[k] = fc_log_word((const char *)sh->add + 8 * k);
		high[k] = fc_log_word((const char *)sh->high + 8 * k);
	}
#ifdef HAVE_SSE2
	__m128i xv[SHAPE_WORDS / 2], lim[SHAPE_WORDS / 2];
	for (unsigned k = 0; SSE2 && k < (WORDS + 1) / 2; k++) {
		xv[k] = _mm_loadu_si128((const __m128i *)(const void *)(sh->x + 16 * k));
		lim[k] = _mm_loadu_si128((const __m128i *)(const void *)(sh->lim + 16 * k));
	}
#endif
	const unsigned len = sh->len;
	const char *p = r->p;
	if (p > stop)
		return 0;
	size_t max = (size_t)(stop - p) / len + 1;
	if (max > cap)
		max = cap;
	size_t n = 0;
#ifdef HAVE_SSE2
	/* a block of lines at a time (see struct shape), while whole blocks
	 * lie before r->end; the lines after one that does not fit, one by one */
	if (SSE2 && max >= 2 * 16) {
		if (sh->block_key != block_key_of(ddir_at, guard_at, guard_max))
			block_build(sh, ddir_at, guard_at, guard_max);
		const unsigned vectors = sh->block_vectors, lines = sh->block_lines;
		const size_t bytes = 16 * (size_t)vectors;
		while (n + lines <= max && (size_t)(r->end - p) >= bytes) {
			/* b ^ x above lim leaves something after a saturating
			 * subtraction of lim */
			__m128i over = _mm_setzero_si128();
			for (unsigned k = 0; k < vectors; k++) {
				__m128i b = _mm_xor_si128(
				    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)),
				    _mm_loadu_si128(
					(const __m128i *)(const void *)(sh->block_x + 16 * k)));
				over = _mm_or_si128(
				    over, _mm_subs_epu8(
					      b, _mm_loadu_si128(
						     (const __m128i *)(const void *)(sh->block_lim +
										     16 * k))));
			}
			if (_mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128())) != 0xffff)
				break;
			n += lines;
			p += bytes;
		}
	}
#endif
	for (; n < max; n++, p += len) {
		uint64_t bad = 0;
		for (unsigned k = 0; !SSE2 && k < WORDS; k++) {
			uint64_t b = fc_log_word(p + 8 * k) ^ x[k];
			bad |= ((b + add[k]) | b) & high[k];
		}
#ifdef HAVE_SSE2
		for (unsigned k = 0; SSE2 && k < (WORDS + 1) / 2; k++) {
			__m128i b = _mm_xor_si128(
			    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)), xv[k]);
			__m128i fit = _mm_cmpeq_epi8(_mm_max_epu8(b, lim[k]), lim[k]);
			bad |= (unsigned)_mm_movemask_epi8(fit) ^ 0xffffu;
		}
#endif
		if (bad || (unsigned char)p[ddir_at] > '2' ||
		    (unsigned char)p[guard_at] > guard_max)
			break;
	}
	return n;
}

/* shaped_lines() for shape sh if it is plain. */
static size_t shaped_count(const struct fc_log_reader *r, struct shape *sh, const char *stop,
			   size_t cap)
{
	if (!shape_is_plain(r, sh))
		return 0;
#ifdef HAVE_SSE2
	if (fc_log_shapes == FC_LOG_SHAPES_BEST) {
		switch ((sh->words + 1) / 2) {
		case 1:
			return shaped_lines(r, sh, stop, cap, 2, true);
		case 2:
			return shaped_lines(r, sh, stop, cap, 4, true);
		case 3:
			return shaped_lines(r, sh, stop, cap, 6, true);
		default:
			return shaped_lines(r, sh, stop, cap, 8, true);
		}
	}
#endif
	switch (sh->words) {
	case 1:
		return shaped_lines(r, sh, stop, cap, 1, false);
	case 2:
		return shaped_lines(r, sh, stop, cap, 2, false);
	case 3:
		return shaped_lines(r, sh, stop, cap, 3, false);
	case 4:
		return shaped_lines(r, sh, stop, cap, 4, false);
	case 5:
		return shaped_lines(r, sh, stop, cap, 5, false);
	case 6:
		return shaped_lines(r, sh, stop, cap, 6, false);
	case 7:
		return shaped_lines(r, sh, stop, cap, 7, false);
	default:
		return shaped_lines(r, sh, stop, cap, 8, false);
	}
}

/* The last line at or before which a run may start in the lines at r->p. */
static const char *run_stop(const struct fc_log_reader *r)
{
	return r->end - 1 < r->fast_hi ? r->end - 1 : r->fast_hi;
}

/* The lines in a row of one shape after which fc_log_read_points() leaves
 * the next to a run: short runs cost more than they save. */
#define RUN_MIN 8

/* Whether the line at r->p starts a run: one of the two shapes, plain. */
static bool at_run(struct fc_log_reader *r)
{
	if (!fc_log_shapes || r->shape_skip || r->p < r->fast_lo || r->p > r->fast_hi)
		return false;
	const char *stop = run_stop(r);
	if (shaped_count(r, &r->shapes[r->shape], stop, 1))
		return true;
	if (shaped_count(r, &r->shapes[r->shape ^ 1], stop, 1)) {
		r->shape ^= 1;
		return true;
	}
	return false;
}

static void run_field(struct fc_log_field *f, const struct shape *sh, int col)
{
	f->end = sh->end[col];
	f->mask = sh->mask[col];
	f->last_word = ~0ull; /* no digits make it */
	f->last_value = 0;
}

long fc_log_read_run(struct fc_log_reader *r, struct fc_log_run *run)
{
	run->n = 0;
	if (r->status || r->have_first || r->layout.hist)
		return 0;
	if (r->p == r->end) {
		int rc = fill(r, &r->status_err);
		if (rc < 0)
			r->status = rc;
		if (rc <= 0)
			return 0; /* the next fc_log_read_points() tells */
	}
	if (r->shape_streak < RUN_MIN || !at_run(r))
		return 0;
	/* a run short enough to stay in the first-level cache between its
	 * check here and its reading by the caller */
	struct shape *sh = &r->shapes[r->shape];
	const char *stop = run_stop(r);
	size_t n = shaped_count(r, sh, stop, FC_LOG_RUN_MAX);
	/* a run that ends at a line of another shape: the lines after it are
	 * read one by one until they keep a shape again */
	bool misfit = n < FC_LOG_RUN_MAX && r->p + n * sh->len <= stop;
	if (misfit)
		r->shape_streak = 0;
	if (misfit && n < RUN_MIN)
		return 0;
	run->text = r->p;
	run->n = n;
	run->len = sh->len;
	run->first_line = r->line + 1;
	run->ddir_at = sh->end[r->col[R_DDIR]] - 1u;
	run_field(&run->time, sh, 0);
	run_field(&run->value, sh, r->col[R_VALUE]);
	run_field(&run->bs, sh, r->col[R_BS]);
	r->shape_hits += n;
	r->p += n * sh->len;
	r->line += n;
	r->line_start = r->p - sh->len;
	return (long)n;
}

static void sample_to_point(const struct fc_log_sample *s, struct fc_log_point *pt)
{
	pt->time_ms = s->time_ms;
	pt->value = s->value;
	pt->value1 = s->value1;
	pt->bs = s->bs;
	pt->line = s->line;
	pt->ddir = s->ddir;
}

/* Up to cap samples or (when samples is NULL) points. */
static inline __attribute__((always_inline)) long read_lines(struct fc_log_reader *r,
							     struct fc_log_sample *samples,
							     struct fc_log_point *points,
							     size_t cap, struct fc_error *err)
{
	if (r->status)
		return replay_error(r, err);
	if (r->layout.hist)
		return fc_err(err, FC_E_INVAL, r->source, 0, 0,
			      "a clat_hist log: read it with fc_log_next_hist()");
	size_t n = 0;
	if (r->have_first && cap) {
		if (samples)
			samples[n++] = r->first;
		else
			sample_to_point(&r->first, &points[n++]);
		r->have_first = false;
	}
	struct fields fs = {0};
	while (n < cap) {
		int rc;
		if (UNLIKELY(r->p == r->end)) {
			rc = fill(r, &r->status_err);
			if (rc == 0)
				break;
			if (rc < 0) {
				r->status = rc;
				break;
			}
		}
		/* leave a run to fc_log_read_run(), once lines keep their shape */
		if (!samples && n && r->shape_streak >= RUN_MIN && at_run(r))
			break;
		rc = read_line(r, &fs, true, &r->status_err);
		if (UNLIKELY(rc <= 0)) {
			if (rc == 0)
				continue;
			r->status = rc;
			break;
		}
		if (samples)
			rc = fields_to_out(r, &fs, &samples[n], NULL, &r->status_err);
		else
			rc = fields_to_out(r, &fs, NULL, &points[n], &r->status_err);
		if (UNLIKELY(rc < 0)) {
			r->status = rc;
			break;
		}
		n++;
	}
	if (n)
		return (long)n;
	if (r->status)
		return replay_error(r, err);
	return 0;
}

static long read_samples(struct fc_log_reader *r, struct fc_log_sample *out, size_t cap,
			 struct fc_error *err)
{
	return read_lines(r, out, NULL, cap, err);
}

long fc_log_read_points(struct fc_log_reader *r, struct fc_log_point *out, size_t cap,
			struct fc_error *err)
{
	return read_lines(r, NULL, out, cap, err);
}

int fc_log_next(struct fc_log_reader *r, struct fc_log_sample *s, struct fc_error *err)
{
	if (!r || !s)
		return fc_err(err, FC_E_INVAL, NULL, 0, 0, "no reader or sample given");
	return (int)read_samples(r, s, 1, err);
}

int fc_log_next_hist(struct fc_log_reader *r, struct fc_hist_row *row, struct fc_error *err)
{
	if (!r || !row)
		return fc_err(err, FC_E_INVAL, NULL, 0, 0, "no reader or row given");
	if (r->status)
		return replay_error(r, err);
	if (!r->layout.hist) {
		if (r->layout.columns == 0 && !r->have_first)
			return 0; /* empty: no kind to complain about */
		return fc_err(err, FC_E_INVAL, r->source, 0, 0,
			      "not a clat_hist log: read it with fc_log_next()");
	}
	if (r->have_first) {
		*row = r->hist_row;
		r->have_first = false;
		return 1;
	}
	struct fields fs = {0};
	for (;;) {
		int rc;
		if (r->p == r->end) {
			rc = fill(r, &r->status_err);
			if (rc == 0)
				return 0;
		} else {
			rc = scan_line(r, &fs, r->hist, r->layout.hist_buckets, &r->status_err);
			if (rc == 0)
				continue;
			if (rc > 0) {
				rc = fields_to_hist(r, &fs, row, &r->status_err);
				if (rc == 0)
					return 1;
			}
		}
		if (rc < 0) {
			r->status = rc;
			return replay_error(r, err);
		}
	}
}
