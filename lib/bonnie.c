/* SPDX-License-Identifier: MIT */
/*
 * bonnie++ CSV rows, bonnie++ 1.00 to 2.00a.
 *
 * The layouts follow bon_time.cpp of each release (DoReport in 1.00-1.03e,
 * DoReportIO and DoReportFile from 1.92b on; github.com/ng-alt/bonnie holds
 * one commit per release up to 1.97.3, Debian's bonnie++_2.00a+nmu1 source
 * package 2.00a): 0-based field indexes
 *
 *   1.98  0 format, 1 bonnie version, 2 name, 3 concurrency, 4 seed,
 *         5 file_size, 6 io_chunk_size, 7 seeks, 8 seek processes,
 *         9-20 putc .. seeks (rate, CPU), 21 num_files, 22 max_size,
 *         23 min_size, 24 num_dirs, 25 file_chunk_size,
 *         26-37 seq_create .. ran_del (rate, CPU), 38-49 the 12 latencies
 *   1.96, 1.97  the same without 7 and 8 (48 fields)
 *   1.0x  0 name, 1 file_size, 2-13 putc .. seeks, 14 num_files,
 *         15-26 seq_create .. ran_del (27 fields)
 *
 * and what they print in them:
 *
 *  - file_size: print_size(MiB, "MG"), "256M" or "16G" when divisible by
 *    1024.  1.01-1.03e the same with ":<chunk>k" (or ":<chunk>" in bytes)
 *    appended when the chunk is not 8 KiB; 1.00 a bare MiB count.
 *  - io_chunk_size: print_size(bytes, " km") ("512", "4k", "1m"), only when
 *    not the default 8 KiB, so empty means 8 KiB.  1.98 and later never
 *    print it in CSV (the text table has it), so there empty means unknown.
 *  - rates: "%d" K/sec (KiB/s) and files/s, seeks "%.0f" from 1000 on and
 *    "%.1f" below (1.0x always "%.1f"); CPU "%d".  Empty when the test did
 *    not run, "+++++" and "+++" when it took less than MinTime (0.5 s).
 *    1.00 printed "+++++" below 1 s, and the CPU as a number even then.
 *  - latencies (1.9x): the slowest operation, "%dus" up to 0.1 s, "%dms" up
 *    to 100 s, "%ds" above; empty when the test did not run.
 *  - num_files (1.9x): the -n count in units of 1024 files (DirectoryUnit);
 *    max_size "link" / "symlink" for -n N:-1 / -n N:-2, else a byte count
 *    or empty (0); min_size likewise.  1.0x packs all into one field:
 *    "N[:link|:symlink|:max:min][/dirs]".
 *
 * Quirks of the writers that a reader must undo:
 *
 *  - 1.92b to 1.96, with -s 0 (no I/O tests), write one empty I/O field too
 *    few: 47 fields (1.97's changelog: "Fix a CSV column alignment bug in
 *    the case where -s0 is used").
 *  - 1.92b to 2.00a write the number of directories one column late, into
 *    file_chunk_size, and leave num_dirs empty; the file chunk size itself
 *    lands past the end of the string and never appears (DoReportFile
 *    appends "," and then steps over the terminating NUL).  Checked with
 *    bonnie++ 2.00a: -n 2:4096:1024:2 gives "2,4096,1024,,2".
 *  - 1.98's header line still names the 48 columns of 1.97, so layouts go
 *    by the first field, never by a header.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define DEFAULT_CHUNK_BYTES 8192 /* DefaultChunkSize (1 << 13), every release */
#define FILES_PER_UNIT	    1024 /* DirectoryUnit: -n counts files in 1024s */
#define FIELDS_1_0X	    27
#define IO_FIELDS_1_96_S0   13 /* the short I/O block of 1.96 with -s 0 */

static const struct fc_bonnie_test_info test_info[FC_BONNIE_TEST_COUNT] = {
    [FC_BONNIE_PUTC] = {"putc", "per-char write", FC_BONNIE_UNIT_KIB},
    [FC_BONNIE_PUT_BLOCK] = {"put_block", "block write", FC_BONNIE_UNIT_KIB},
    [FC_BONNIE_REWRITE] = {"rewrite", "rewrite", FC_BONNIE_UNIT_KIB},
    [FC_BONNIE_GETC] = {"getc", "per-char read", FC_BONNIE_UNIT_KIB},
    [FC_BONNIE_GET_BLOCK] = {"get_block", "block read", FC_BONNIE_UNIT_KIB},
    [FC_BONNIE_SEEKS] = {"seeks", "random seeks", FC_BONNIE_UNIT_SEEKS},
    [FC_BONNIE_SEQ_CREATE] = {"seq_create", "sequential create", FC_BONNIE_UNIT_FILES},
    [FC_BONNIE_SEQ_STAT] = {"seq_stat", "sequential stat", FC_BONNIE_UNIT_FILES},
    [FC_BONNIE_SEQ_DEL] = {"seq_del", "sequential delete", FC_BONNIE_UNIT_FILES},
    [FC_BONNIE_RAN_CREATE] = {"ran_create", "random create", FC_BONNIE_UNIT_FILES},
    [FC_BONNIE_RAN_STAT] = {"ran_stat", "random stat", FC_BONNIE_UNIT_FILES},
    [FC_BONNIE_RAN_DEL] = {"ran_del", "random delete", FC_BONNIE_UNIT_FILES},
};

const struct fc_bonnie_test_info *fc_bonnie_test_info(enum fc_bonnie_test test)
{
	if ((unsigned)test >= FC_BONNIE_TEST_COUNT)
		return NULL;
	return &test_info[test];
}

struct layout {
	enum fc_bonnie_format format;
	const char *version; /* field 1; NULL for 1.0x */
	const char *label;   /* for messages */
	size_t fields;
	bool seek_options;	   /* seeks and seek processes after the chunk size */
	bool chunk_if_not_default; /* an empty io_chunk_size means 8 KiB */
};

static const struct layout layout_1_0x = {
    .format = FC_BONNIE_FORMAT_1_0X,
    .label = "bonnie++ 1.0x",
    .fields = FIELDS_1_0X,
    .chunk_if_not_default = true,
};

static const struct layout layouts[] = {
    {FC_BONNIE_FORMAT_1_98, "1.98", "bonnie++ 1.98", 50, true, false},
    {FC_BONNIE_FORMAT_1_97, "1.97", "bonnie++ 1.97", 48, false, true},
    {FC_BONNIE_FORMAT_1_96, "1.96", "bonnie++ 1.96", 48, false, true},
    /* snapshots that wrote the rows of 1.96 (1.93 wrote "1.92b") */
    {FC_BONNIE_FORMAT_1_96, "1.93c", "bonnie++ 1.93c", 48, false, true},
    {FC_BONNIE_FORMAT_1_96, "1.92b", "bonnie++ 1.92b", 48, false, true},
};

/* Formats of the 1.90a - 1.92a snapshots: other layouts, not read. */
static const char *const snapshot_formats[] = {"2", "1.91a", "1.92", "1.92a"};

/* ---- the reader ---------------------------------------------------------- */

struct bonnie_box {
	struct fc_bonnie pub;
	struct fc_arena arena;
};

struct reader {
	struct fc_arena *a;
	const char *source;
	struct fc_error *err;
	struct fc_vec rows;  /* struct fc_bonnie_row */
	struct fc_vec diags; /* struct fc_bonnie_diag */
	bool saw_header, saw_text_table;
};

/* One row's fields, taken one after the other.  The field count has been
 * checked before, so there is always a field to take. */
struct cursor {
	struct reader *r;
	const struct layout *layout;
	const char *line, *end, *p;
	unsigned long lineno;
	size_t index;  /* 1-based number of the field last taken */
	bool short_io; /* a 47-field 1.96 row */
	int status;
};

struct field {
	const char *p;
	size_t len;
	size_t index; /* 1-based */
};

static int nomem(struct reader *r, unsigned long lineno)
{
	return fc_err(r->err, FC_E_NOMEM, r->source, lineno, 0, "out of memory");
}

static void take(struct cursor *c, struct field *f)
{
	const char *q = memchr(c->p, ',', (size_t)(c->end - c->p));
	f->p = c->p;
	f->len = (size_t)((q ? q : c->end) - c->p);
	f->index = ++c->index;
	c->p = q ? q + 1 : c->end;
}

static bool is_empty(const struct field *f)
{
	return f->len == 0;
}

/* "+++++" (a rate) or "+++" (a CPU share): done in less than 0.5 s.  Either
 * is taken in either place. */
static bool is_too_fast(const struct field *f)
{
	if (f->len != 3 && f->len != 5)
		return false;
	for (size_t i = 0; i < f->len; i++) {
		if (f->p[i] != '+')
			return false;
	}
	return true;
}

/* bonnie++'s name of the 0-based column `i` of a layout. */
static void column_name(const struct cursor *c, size_t i, char *buf, size_t len)
{
	static const char *const head[] = {"format_version", "bonnie_version", "name",
					   "concurrency",    "seed",	       "file_size",
					   "io_chunk_size",  "num_seeks",      "seek_proc_count"};
	static const char *const files[] = {"num_files", "max_size", "min_size", "num_dirs",
					    "file_chunk_size"};
	const struct layout *L = c->layout;
	size_t io0, files0, lat0;
	if (L->format == FC_BONNIE_FORMAT_1_0X) {
		if (i < 2) {
			snprintf(buf, len, "%s", i == 0 ? "name" : "file_size");
			return;
		}
		io0 = 2;
		files0 = 14;
		lat0 = SIZE_MAX;
		if (i == files0) {
			snprintf(buf, len, "num_files");
			return;
		}
	} else {
		/* in a 47-field 1.96 row, everything after the short I/O block is
		 * one column further on in the layout */
		if (c->short_io && i >= 5 + IO_FIELDS_1_96_S0)
			i++;
		io0 = L->seek_options ? 9 : 7;
		files0 = io0 + 12;
		lat0 = files0 + 5 + 12;
		if (i < io0) {
			snprintf(buf, len, "%s", head[i]);
			return;
		}
		if (i >= files0 && i < files0 + 5) {
			snprintf(buf, len, "%s", files[i - files0]);
			return;
		}
	}
	if (i >= lat0) {
		size_t t = i - lat0;
		snprintf(buf, len, "%s_latency",
			 t < FC_BONNIE_TEST_COUNT ? test_info[t].name : "?");
		return;
	}
	size_t k =
	    i < files0 ? i - io0 : i - (files0 + (L->format == FC_BONNIE_FORMAT_1_0X ? 1 : 5)) + 12;
	size_t t = k / 2;
	snprintf(buf, len, "%s%s", t < FC_BONNIE_TEST_COUNT ? test_info[t].name : "?",
		 k % 2 ? "_cpu" : "");
}

/* Reports that field `f` is not `what`. */
static bool bad(struct cursor *c, const struct field *f, const char *what)
{
	if (c->status)
		return false;
	char name[40], shown[FC_QUOTE_MAX];
	column_name(c, f->index - 1, name, sizeof(name));
	fc_quote(shown, f->p, f->len);
	c->status = fc_err(
	    c->r->err, FC_E_SYNTAX, c->r->source, c->lineno, (unsigned long)(f->p - c->line) + 1,
	    "%s row, field %zu (%s): expected %s, found %s%s%s", c->layout->label, f->index, name,
	    what, f->len ? "\"" : "", f->len ? shown : "nothing", f->len ? "\"" : "");
	return false;
}

/* Digits with an optional fraction, as %d and %.1f print them. */
static bool parse_decimal(const char *p, size_t len, double *out)
{
	size_t i = 0;
	while (i < len && p[i] >= '0' && p[i] <= '9')
		i++;
	if (i == 0)
		return false;
	if (i < len) {
		if (p[i] != '.' || i + 1 == len)
			return false;
		for (size_t k = i + 1; k < len; k++) {
			if (p[k] < '0' || p[k] > '9')
				return false;
		}
	}
	bool ok;
	*out = fc_parse_double(p, len, &ok);
	return ok && isfinite(*out); /* 400 digits are no rate */
}

/* "9866us", "45ms", "3s" in ns. */
static bool parse_latency(const char *p, size_t len, double *ns)
{
	double scale, v;
	size_t n;
	if (len > 2 && memcmp(p + len - 2, "us", 2) == 0) {
		n = len - 2;
		scale = 1e3;
	} else if (len > 2 && memcmp(p + len - 2, "ms", 2) == 0) {
		n = len - 2;
		scale = 1e6;
	} else if (len > 1 && p[len - 1] == 's') {
		n = len - 1;
		scale = 1e9;
	} else {
		return false;
	}
	if (!parse_decimal(p, n, &v))
		return false;
	*ns = v * scale;
	return true;
}

static bool mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	if (b && a > UINT64_MAX / b)
		return false;
	*out = a * b;
	return true;
}

/*
 * A count with an optional one-letter unit: `units` lists the letters, each
 * 1024 times the one before, the first worth `first` bytes; a bare count is
 * worth `bare` bytes (0: a unit is required).  print_size() in bon_time.cpp
 * writes these ("MG" for file sizes in MiB, " km" for chunks in bytes).
 */
static bool parse_size(const char *p, size_t len, const char *units, uint64_t first, uint64_t bare,
		       uint64_t *bytes)
{
	uint64_t n, mult = bare;
	if (len > 0 && (p[len - 1] < '0' || p[len - 1] > '9')) {
		const char *u = memchr(units, p[len - 1], strlen(units));
		if (!u)
			return false;
		mult = first;
		for (const char *k = units; k < u; k++) {
			if (!mul_u64(mult, 1024, &mult))
				return false;
		}
		len--;
	}
	return mult && fc_parse_u64(p, len, &n) && mul_u64(n, mult, bytes);
}

static bool parse_uint(const char *p, size_t len, unsigned *out)
{
	uint64_t v;
	if (!fc_parse_u64(p, len, &v) || v > UINT_MAX)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool take_string(struct cursor *c, const char **out)
{
	struct field f;
	take(c, &f);
	*out = fc_arena_strndup(c->r->a, f.p, f.len);
	if (*out)
		return true;
	if (!c->status)
		c->status = nomem(c->r, c->lineno);
	return false;
}

static bool take_result(struct cursor *c, struct fc_bonnie_row *row, enum fc_bonnie_test t)
{
	struct fc_bonnie_result *res = &row->tests[t];
	struct field f;
	take(c, &f);
	if (is_too_fast(&f)) {
		res->status = FC_BONNIE_TOO_FAST;
	} else if (!is_empty(&f)) {
		if (!parse_decimal(f.p, f.len, &res->rate))
			return bad(c, &f, "a rate (a number, \"+++++\" or nothing)");
		res->status = FC_BONNIE_MEASURED;
		if (test_info[t].unit == FC_BONNIE_UNIT_KIB)
			res->bw_bytes = res->rate * 1024.0;
	}
	take(c, &f);
	if (!is_empty(&f) && !is_too_fast(&f) && !parse_decimal(f.p, f.len, &res->cpu_pct))
		return bad(c, &f, "a CPU percentage (a number, \"+++\" or nothing)");
	return true;
}

static bool take_latency(struct cursor *c, struct fc_bonnie_result *res)
{
	struct field f;
	take(c, &f);
	if (is_empty(&f) || parse_latency(f.p, f.len, &res->latency_ns))
		return true;
	return bad(c, &f, "a latency (a number and us, ms or s, or nothing)");
}

/* A 1.9x file_size: "256M", "16G", or empty when -s 0 skipped the I/O tests. */
static bool take_file_size(struct cursor *c, struct fc_bonnie_row *row)
{
	struct field f;
	take(c, &f);
	if (is_empty(&f))
		return true;
	if (!parse_size(f.p, f.len, "MG", 1u << 20, 0, &row->file_size_bytes))
		return bad(c, &f, "a size in MiB or GiB (\"256M\", \"16G\") or nothing");
	row->file_size_known = true;
	return true;
}

static bool take_chunk_size(struct cursor *c, struct fc_bonnie_row *row)
{
	struct field f;
	take(c, &f);
	if (is_empty(&f)) {
		/* printed only when not the default; 1.98 never prints it */
		if (row->file_size_known && c->layout->chunk_if_not_default) {
			row->chunk_size_known = true;
			row->chunk_size_bytes = DEFAULT_CHUNK_BYTES;
		}
		return true;
	}
	if (!parse_size(f.p, f.len, "km", 1024, 1, &row->chunk_size_bytes))
		return bad(c, &f, "a chunk size (\"512\", \"4k\", \"1m\") or nothing");
	row->chunk_size_known = true;
	return true;
}

/* A count that may be empty (-s 0): 1.98's seeks and seeker processes. */
static bool take_count(struct cursor *c, bool *known, uint64_t *out, uint64_t max, const char *what)
{
	struct field f;
	take(c, &f);
	if (is_empty(&f))
		return true;
	if (!fc_parse_u64(f.p, f.len, out) || *out > max)
		return bad(c, &f, what);
	*known = true;
	return true;
}

static bool take_num_files(struct cursor *c, struct fc_bonnie_row *row)
{
	struct field f;
	uint64_t n;
	take(c, &f);
	if (is_empty(&f))
		return true;
	if (!fc_parse_u64(f.p, f.len, &n) || !mul_u64(n, FILES_PER_UNIT, &row->files))
		return bad(c, &f, "the number of files in 1024s or nothing");
	row->files_known = true;
	row->directories = 1;
	return true;
}

/* The 1.9x file options: max_size, min_size, num_dirs, file_chunk_size. */
static bool take_file_options(struct cursor *c, struct fc_bonnie_row *row)
{
	struct field max, min, dirs, chunk;
	take(c, &max);
	take(c, &min);
	take(c, &dirs);
	take(c, &chunk);
	if (max.len == 4 && memcmp(max.p, "link", 4) == 0)
		row->links = FC_BONNIE_FILES_HARD_LINKS;
	else if (max.len == 7 && memcmp(max.p, "symlink", 7) == 0)
		row->links = FC_BONNIE_FILES_SYMLINKS;
	else if (!is_empty(&max) && !fc_parse_u64(max.p, max.len, &row->max_file_size_bytes))
		return bad(c, &max, "a file size in bytes, \"link\", \"symlink\" or nothing");
	if (!is_empty(&min) && !fc_parse_u64(min.p, min.len, &row->min_file_size_bytes))
		return bad(c, &min, "a file size in bytes or nothing");
	if (!is_empty(&dirs) && !parse_uint(dirs.p, dirs.len, &row->directories))
		return bad(c, &dirs, "a number of directories or nothing");
	if (is_empty(&chunk))
		return true;
	if (is_empty(&dirs)) {
		/* bonnie++ 1.92b - 2.00a put the directories here (see the top) */
		if (!parse_uint(chunk.p, chunk.len, &row->directories))
			return bad(c, &chunk,
				   "the number of directories bonnie++ writes here, or nothing");
		return true;
	}
	uint64_t ignored;
	if (!parse_size(chunk.p, chunk.len, "km", 1024, 1, &ignored))
		return bad(c, &chunk, "a chunk size (\"512\", \"4k\") or nothing");
	return true;
}

static bool parse_versioned(struct cursor *c, struct fc_bonnie_row *row)
{
	const struct layout *L = c->layout;
	struct field f;
	if (!take_string(c, &row->format_version) || !take_string(c, &row->bonnie_version) ||
	    !take_string(c, &row->name))
		return false;
	take(c, &f);
	if (!parse_uint(f.p, f.len, &row->concurrency))
		return bad(c, &f, "the concurrency (-c), a number");
	row->concurrency_known = true;
	if (!take_string(c, &row->seed))
		return false;
	if (c->short_io) {
		for (size_t i = 0; i < IO_FIELDS_1_96_S0; i++) {
			take(c, &f);
			if (!is_empty(&f))
				return bad(c, &f,
					   "nothing: a 47-field 1.96 row is one without I/O tests");
		}
	} else {
		if (!take_file_size(c, row) || !take_chunk_size(c, row))
			return false;
		uint64_t procs = 0;
		if (L->seek_options && (!take_count(c, &row->seeks_known, &row->seeks, UINT64_MAX,
						    "the number of seeks or nothing") ||
					!take_count(c, &row->seek_procs_known, &procs, UINT_MAX,
						    "the number of seeker processes or nothing")))
			return false;
		row->seek_procs = (unsigned)procs;
		for (int t = FC_BONNIE_PUTC; t <= FC_BONNIE_SEEKS; t++) {
			if (!take_result(c, row, t))
				return false;
		}
	}
	if (!take_num_files(c, row) || !take_file_options(c, row))
		return false;
	for (int t = FC_BONNIE_SEQ_CREATE; t < FC_BONNIE_TEST_COUNT; t++) {
		if (!take_result(c, row, t))
			return false;
	}
	for (int t = 0; t < FC_BONNIE_TEST_COUNT; t++) {
		if (!take_latency(c, &row->tests[t]))
			return false;
	}
	return true;
}

/* 1.0x: "256M", "1G:4k", "300" (1.00, MiB), or empty (-s 0). */
static bool take_file_size_1_0x(struct cursor *c, struct fc_bonnie_row *row)
{
	struct field f;
	take(c, &f);
	if (is_empty(&f))
		return true;
	const char *colon = memchr(f.p, ':', f.len);
	size_t size_len = colon ? (size_t)(colon - f.p) : f.len;
	if (!parse_size(f.p, size_len, "MG", 1u << 20, 1u << 20, &row->file_size_bytes))
		return bad(c, &f, "a size in MiB or GiB (\"256M\", \"1G:4k\") or nothing");
	row->chunk_size_bytes = DEFAULT_CHUNK_BYTES;
	if (colon &&
	    !parse_size(colon + 1, f.len - size_len - 1, "k", 1024, 1, &row->chunk_size_bytes))
		return bad(c, &f, "a size in MiB or GiB and a chunk size (\"1G:4k\")");
	row->file_size_known = true;
	row->chunk_size_known = true;
	return true;
}

/* 1.0x: "16", "16:link", "16:symlink", "16:4096:1024", each maybe "/dirs". */
static bool take_num_files_1_0x(struct cursor *c, struct fc_bonnie_row *row)
{
	static const char what[] =
	    "the number of files in 1024s, maybe \":max:min\" (or \":link\", \":symlink\") and "
	    "\"/dirs\", or nothing";
	struct field f;
	take(c, &f);
	if (is_empty(&f))
		return true;
	const char *p = f.p, *end = f.p + f.len;
	const char *slash = memchr(p, '/', f.len);
	const char *opts_end = slash ? slash : end;
	const char *colon = memchr(p, ':', (size_t)(opts_end - p));
	const char *n_end = colon ? colon : opts_end;
	uint64_t n;
	if (!fc_parse_u64(p, (size_t)(n_end - p), &n) || !mul_u64(n, FILES_PER_UNIT, &row->files))
		return bad(c, &f, what);
	row->files_known = true;
	row->directories = 1;
	if (colon) {
		const char *o = colon + 1;
		size_t olen = (size_t)(opts_end - o);
		const char *colon2 = memchr(o, ':', olen);
		if (olen == 4 && memcmp(o, "link", 4) == 0) {
			row->links = FC_BONNIE_FILES_HARD_LINKS;
		} else if (olen == 7 && memcmp(o, "symlink", 7) == 0) {
			row->links = FC_BONNIE_FILES_SYMLINKS;
		} else if (!colon2 ||
			   !fc_parse_u64(o, (size_t)(colon2 - o), &row->max_file_size_bytes) ||
			   !fc_parse_u64(colon2 + 1, (size_t)(opts_end - colon2 - 1),
					 &row->min_file_size_bytes)) {
			return bad(c, &f, what);
		}
	}
	if (slash && !parse_uint(slash + 1, (size_t)(end - slash - 1), &row->directories))
		return bad(c, &f, what);
	return true;
}

static bool parse_1_0x(struct cursor *c, struct fc_bonnie_row *row)
{
	if (!take_string(c, &row->name) || !take_file_size_1_0x(c, row))
		return false;
	for (int t = FC_BONNIE_PUTC; t <= FC_BONNIE_SEEKS; t++) {
		if (!take_result(c, row, t))
			return false;
	}
	if (!take_num_files_1_0x(c, row))
		return false;
	for (int t = FC_BONNIE_SEQ_CREATE; t < FC_BONNIE_TEST_COUNT; t++) {
		if (!take_result(c, row, t))
			return false;
	}
	return true;
}

/* ---- lines ----------------------------------------------------------------- */

static size_t count_fields(const char *p, size_t len)
{
	size_t n = 1;
	for (const char *q = p; (q = memchr(q, ',', (size_t)(p + len - q))); q++)
		n++;
	return n;
}

static bool equals(const struct field *f, const char *s)
{
	return f->len == strlen(s) && memcmp(f->p, s, f->len) == 0;
}

/* "1.98", "2", "1.92a", "2.00a", "1.97.3": how bonnie++ numbers versions. */
static bool version_like(const struct field *f)
{
	size_t i = 0;
	for (;;) {
		size_t d = i;
		while (i < f->len && f->p[i] >= '0' && f->p[i] <= '9')
			i++;
		if (i == d)
			return false;
		if (i < f->len && f->p[i] == '.') {
			i++;
			continue;
		}
		break;
	}
	return i == f->len || (i + 1 == f->len && f->p[i] >= 'a' && f->p[i] <= 'z');
}

/* A 1.0x row cut short or with a comma too many: a size where 1.0x has one. */
static bool looks_like_1_0x(const char *line, size_t len, size_t fields)
{
	struct cursor c = {.line = line, .end = line + len, .p = line};
	struct field f;
	uint64_t bytes;
	if (fields < 14)
		return false;
	take(&c, &f);
	take(&c, &f);
	const char *colon = memchr(f.p, ':', f.len);
	return f.len > 0 && parse_size(f.p, colon ? (size_t)(colon - f.p) : f.len, "MG", 1u << 20,
				       1u << 20, &bytes);
}

static const struct layout *find_layout(const struct field *f0)
{
	for (size_t i = 0; i < FC_ARRAY_SIZE(layouts); i++) {
		if (equals(f0, layouts[i].version))
			return &layouts[i];
	}
	return NULL;
}

static void init_row(struct fc_bonnie_row *row, const struct layout *L, unsigned long lineno)
{
	memset(row, 0, sizeof(*row));
	row->format = L->format;
	row->line = lineno;
	for (int t = 0; t < FC_BONNIE_TEST_COUNT; t++) {
		struct fc_bonnie_result *res = &row->tests[t];
		res->status = FC_BONNIE_NOT_RUN;
		res->rate = res->bw_bytes = res->cpu_pct = res->latency_ns = NAN;
	}
}

static int parse_row(struct reader *r, const struct layout *L, bool short_io, const char *line,
		     size_t len, unsigned long lineno)
{
	if (r->rows.n >= FC_BONNIE_MAX_ROWS)
		return fc_err(r->err, FC_E_LIMIT, r->source, lineno, 0,
			      "more than %u bonnie++ rows (FC_BONNIE_MAX_ROWS)",
			      FC_BONNIE_MAX_ROWS);
	struct fc_bonnie_row *row = fc_vec_push(&r->rows);
	if (!row)
		return nomem(r, lineno);
	init_row(row, L, lineno);
	struct cursor c = {.r = r,
			   .layout = L,
			   .line = line,
			   .end = line + len,
			   .p = line,
			   .lineno = lineno,
			   .short_io = short_io};
	bool ok =
	    L->format == FC_BONNIE_FORMAT_1_0X ? parse_1_0x(&c, row) : parse_versioned(&c, row);
	return ok ? FC_OK : c.status;
}

static int field_count_error(struct reader *r, const struct layout *L, const char *line, size_t len,
			     size_t fields, unsigned long lineno)
{
	struct cursor c = {.r = r, .layout = L, .line = line, .end = line + len, .p = line};
	char name[40];
	if (fields < L->fields) {
		column_name(&c, fields - 1, name, sizeof(name));
		return fc_err(r->err, FC_E_SYNTAX, r->source, lineno, (unsigned long)len + 1,
			      "%s row cut short: it ends after field %zu (%s) of the %zu bonnie++ "
			      "writes",
			      L->label, fields, name, L->fields);
	}
	return fc_err(r->err, FC_E_SYNTAX, r->source, lineno, 0,
		      "%s row has %zu fields, %zu more than bonnie++ writes (a ',' in the "
		      "machine name?)",
		      L->label, fields, fields - L->fields);
}

static int add_diag(struct reader *r, enum fc_bonnie_diag_kind kind, const char *line, size_t len,
		    unsigned long lineno)
{
	if (r->diags.n >= FC_BONNIE_MAX_DIAGS)
		return fc_err(r->err, FC_E_LIMIT, r->source, lineno, 0,
			      "more than %u lines that are not bonnie++ rows (FC_BONNIE_MAX_DIAGS)",
			      FC_BONNIE_MAX_DIAGS);
	struct fc_bonnie_diag *d = fc_vec_push(&r->diags);
	if (!d)
		return nomem(r, lineno);
	d->kind = kind;
	d->line = lineno;
	d->text = fc_arena_strndup(r->a, line, len);
	return d->text ? FC_OK : nomem(r, lineno);
}

static bool starts_with(const char *p, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(p, prefix, n) == 0;
}

static int read_line(struct reader *r, const char *line, size_t len, unsigned long lineno)
{
	size_t fields = count_fields(line, len);
	if (fields == 1) {
		/* bonnie++'s text table: "Version 2.00a       ------Sequential Output..." */
		if (starts_with(line, len, "Version ") && memmem(line, len, "Sequential", 10))
			r->saw_text_table = true;
		return add_diag(r, FC_BONNIE_DIAG_TEXT, line, len, lineno);
	}
	struct cursor c = {.line = line, .end = line + len, .p = line};
	struct field f0, f1;
	take(&c, &f0);
	take(&c, &f1);
	if (equals(&f0, "format_version") || (equals(&f0, "name") && equals(&f1, "file_size"))) {
		r->saw_header = true;
		return add_diag(r, FC_BONNIE_DIAG_HEADER, line, len, lineno);
	}
	const struct layout *L = find_layout(&f0);
	if (L) {
		if (fields == L->fields)
			return parse_row(r, L, false, line, len, lineno);
		if (L->format == FC_BONNIE_FORMAT_1_96 && fields == L->fields - 1)
			return parse_row(r, L, true, line, len, lineno);
		/* a 1.0x row of a machine named like a version */
		if (fields == FIELDS_1_0X)
			return parse_row(r, &layout_1_0x, false, line, len, lineno);
		return field_count_error(r, L, line, len, fields, lineno);
	}
	if (version_like(&f0) && version_like(&f1)) {
		char shown[FC_QUOTE_MAX];
		fc_quote(shown, f0.p, f0.len);
		for (size_t i = 0; i < FC_ARRAY_SIZE(snapshot_formats); i++) {
			if (equals(&f0, snapshot_formats[i]))
				return fc_err(r->err, FC_E_FORMAT, r->source, lineno, 1,
					      "field 1 (format_version): \"%s\" is the format of a "
					      "bonnie++ 1.90 - 1.92a snapshot, which is not read "
					      "(read are 1.96, 1.97, 1.98 and 1.0x rows)",
					      shown);
		}
		return fc_err(r->err, FC_E_FORMAT, r->source, lineno, 1,
			      "field 1 (format_version): unknown bonnie++ CSV format \"%s\" "
			      "(known: 1.96, 1.97, 1.98, and 1.0x rows without a version)",
			      shown);
	}
	if (fields == FIELDS_1_0X)
		return parse_row(r, &layout_1_0x, false, line, len, lineno);
	if (looks_like_1_0x(line, len, fields))
		return field_count_error(r, &layout_1_0x, line, len, fields, lineno);
	return add_diag(r, FC_BONNIE_DIAG_TEXT, line, len, lineno);
}

static int read_lines(struct reader *r, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	unsigned long lineno = 1;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p && le[-1] == '\r')
			le--;
		const char *q = p;
		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le) {
			int rc = read_line(r, p, (size_t)(le - p), lineno);
			if (rc < 0)
				return rc;
		}
		if (!nl)
			break;
		p = nl + 1;
		lineno++;
	}
	return FC_OK;
}

void fc_bonnie_free(struct fc_bonnie *b)
{
	if (!b)
		return;
	struct bonnie_box *box = (struct bonnie_box *)b;
	fc_arena_release(&box->arena);
	free(box);
}

int fc_bonnie_read_buffer(const void *buf, size_t len, const char *source, struct fc_bonnie **outp,
			  struct fc_error *err)
{
	*outp = NULL;
	if (!source)
		source = "(buffer)";
	if (!buf && len)
		return fc_err(err, FC_E_INVAL, source, 0, 0, "no buffer");
	if (len > FC_BONNIE_MAX_BYTES)
		return fc_err(
		    err, FC_E_LIMIT, source, 0, 0,
		    "input has %zu bytes, more than the limit of %u (FC_BONNIE_MAX_BYTES)", len,
		    FC_BONNIE_MAX_BYTES);
	struct bonnie_box *box = calloc(1, sizeof(*box));
	if (!box)
		return fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
	fc_arena_init(&box->arena, 4096);
	struct fc_bonnie *out = &box->pub;
	struct reader r = {.a = &box->arena, .err = err};
	fc_vec_init(&r.rows, sizeof(struct fc_bonnie_row), 0);
	fc_vec_init(&r.diags, sizeof(struct fc_bonnie_diag), 0);
	int rc;
	out->source = fc_arena_strdup(&box->arena, source);
	if (!out->source) {
		rc = fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
		goto fail;
	}
	r.source = out->source;
	if ((rc = read_lines(&r, buf, len)) < 0)
		goto fail;
	if (r.rows.n == 0) {
		const char *why = len == 0 ? "the file is empty"
				  : r.saw_text_table
				      ? "bonnie++'s text table, but no CSV row (bonnie++ -q "
					"prints only the CSV rows on stdout; without -q "
					"the row is the last line of stdout)"
				  : r.saw_header ? "a bonnie++ CSV header, but no row"
						 : "no bonnie++ CSV row";
		rc = fc_err(err, FC_E_NOT_FIO, out->source, 0, 0, "not bonnie++ output: %s", why);
		goto fail;
	}
	out->rows =
	    fc_arena_memdup(&box->arena, r.rows.data, r.rows.n * sizeof(struct fc_bonnie_row));
	out->diags =
	    fc_arena_memdup(&box->arena, r.diags.data, r.diags.n * sizeof(struct fc_bonnie_diag));
	if (!out->rows || !out->diags) {
		rc = fc_err(err, FC_E_NOMEM, out->source, 0, 0, "out of memory");
		goto fail;
	}
	out->n_rows = r.rows.n;
	out->n_diags = r.diags.n;
	fc_vec_release(&r.rows);
	fc_vec_release(&r.diags);
	fc_err_clear(err);
	*outp = out;
	return FC_OK;
fail:
	fc_vec_release(&r.rows);
	fc_vec_release(&r.diags);
	fc_bonnie_free(out);
	return rc;
}

int fc_bonnie_read_file(const char *path, struct fc_bonnie **out, struct fc_error *err)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = fc_read_file(path, FC_BONNIE_MAX_BYTES, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = fc_bonnie_read_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}
