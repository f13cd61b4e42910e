/* SPDX-License-Identifier: MIT */
/*
 * Words of file names that say the workload: qd8 is iodepth=8 when the
 * report says so, randread is rw=randread, 4k is bs=4k.  Such words belong
 * to the test, never to a state, a variant or a round (identify.c).  A word
 * is checked against the run's own report: qd8 beside iodepth=4 says
 * nothing of it; where the report does not give the option (terse output,
 * normal output's banner) the word's shape is enough.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/read.h"

/* Option names a number follows, glued (qd8) or as the next word
 * (iodepth-8). */
static const struct {
	const char *word;
	enum an_wl_word kind;
} option_words[] = {
    {"qd", AN_WW_IODEPTH},   {"iodepth", AN_WW_IODEPTH}, {"depth", AN_WW_IODEPTH},
    {"iod", AN_WW_IODEPTH},  {"nj", AN_WW_NUMJOBS},	 {"numjobs", AN_WW_NUMJOBS},
    {"jobs", AN_WW_NUMJOBS}, {"job", AN_WW_NUMJOBS},	 {"j", AN_WW_NUMJOBS},
    {"t", AN_WW_NUMJOBS},    {"threads", AN_WW_NUMJOBS}, {"thread", AN_WW_NUMJOBS},
    {"bs", AN_WW_BS},	     {"blocksize", AN_WW_BS},	 {"size", AN_WW_SIZE},
};
#define N_OPTION_WORDS (sizeof(option_words) / sizeof(option_words[0]))

/* rw words as people write them, and fio's value they stand for. */
static const struct {
	const char *word, *rw;
} rw_words[] = {
    {"read", "read"},
    {"seqread", "read"},
    {"write", "write"},
    {"seqwrite", "write"},
    {"randread", "randread"},
    {"randwrite", "randwrite"},
    {"rw", "rw"},
    {"readwrite", "rw"},
    {"seqrw", "rw"},
    {"randrw", "randrw"},
    {"trim", "trim"},
    {"randtrim", "randtrim"},
    {"trimwrite", "trimwrite"},
    {"randtrimwrite", "randtrimwrite"},
};

const char *an_wl_word_option(enum an_wl_word kind)
{
	switch (kind) {
	case AN_WW_RW:
		return "rw";
	case AN_WW_BS:
		return "bs";
	case AN_WW_SIZE:
		return "size";
	case AN_WW_IODEPTH:
		return "iodepth";
	case AN_WW_NUMJOBS:
		return "numjobs";
	case AN_WW_NONE:
		break;
	}
	return "";
}

static enum an_wl_word option_kind(const char *w, size_t n)
{
	for (size_t i = 0; i < N_OPTION_WORDS; i++) {
		if (strlen(option_words[i].word) == n &&
		    strncasecmp(option_words[i].word, w, n) == 0)
			return option_words[i].kind;
	}
	return AN_WW_NONE;
}

bool an_wl_option_word(const char *w, size_t n)
{
	return option_kind(w, n) != AN_WW_NONE;
}

static enum an_wl_field field_of(enum an_wl_word kind)
{
	switch (kind) {
	case AN_WW_RW:
		return AN_WL_RW;
	case AN_WW_BS:
		return AN_WL_BS;
	case AN_WW_SIZE:
		return AN_WL_SIZE;
	case AN_WW_IODEPTH:
		return AN_WL_IODEPTH;
	case AN_WW_NUMJOBS:
		return AN_WL_NUMJOBS;
	case AN_WW_NONE:
		break;
	}
	return AN_WL_NAME;
}

/* -1 when no job of the report gives the option (unknown: the shape is
 * enough), else whether one gives it the value `text` (len bytes). */
static int key_agrees(const char *key, enum an_wl_word kind, const char *text, size_t len)
{
	if (!an_wl_options_listed(key))
		return -1;
	bool listed = false;
	for (size_t j = 0; j < an_wl_jobs(key); j++) {
		const char *v;
		size_t vl;
		if (!an_wl_get(key, j, field_of(kind), &v, &vl))
			continue;
		listed = true;
		if (kind == AN_WW_RW) {
			size_t m = 0;
			while (m < vl && v[m] != ':')
				m++;
			if (m == len && strncmp(v, text, m) == 0)
				return 1;
			continue;
		}
		if (kind == AN_WW_IODEPTH || kind == AN_WW_NUMJOBS) {
			if (vl == len && strncmp(v, text, len) == 0)
				return 1;
			continue;
		}
		/* sizes: the key holds fio's form (4k, 1m); bs may be a list */
		char want[32], got[32];
		snprintf(want, sizeof(want), "%.*s", (int)len, text);
		for (const char *p = v; p < v + vl;) {
			const char *comma = memchr(p, ',', (size_t)(v + vl - p));
			size_t pl = comma ? (size_t)(comma - p) : (size_t)(v + vl - p);
			snprintf(got, sizeof(got), "%.*s", (int)pl, p);
			if (strcmp(got, want) == 0)
				return 1;
			p += pl + 1;
		}
	}
	return listed ? 0 : -1;
}

/* A size as people write it (4k, 128K, 1G, 4KiB, 1m): digits and a unit;
 * fio's form of it in `out`.  False for bare numbers. */
static bool size_word(const char *w, size_t n, bool unit_needed, char *out, size_t out_len)
{
	if (n == 0 || n > 16 || !isdigit((unsigned char)w[0]))
		return false;
	size_t d = 0;
	while (d < n && isdigit((unsigned char)w[d]))
		d++;
	if (unit_needed && d == n)
		return false;
	for (size_t i = d; i < n; i++) {
		if (!isalpha((unsigned char)w[i]))
			return false;
	}
	char buf[17];
	snprintf(buf, sizeof(buf), "%.*s", (int)n, w);
	/* 4KiB means 4096 bytes to the one who wrote it */
	char *i = strpbrk(buf, "iI");
	if (i && i > buf + d)
		memmove(i, i + 1, strlen(i));
	uint64_t bytes;
	if (!an_parse_size(buf, false, &bytes) || bytes == 0)
		return false;
	an_fmt_size(out, out_len, bytes);
	return true;
}

/* A size word: the block size, else the data set's size, as the report
 * says (or of that shape when it does not). */
static enum an_wl_word size_kind(const char *key, const char *w, size_t n, bool unit_needed,
				 enum an_wl_word only)
{
	char fmt[32];
	if (!size_word(w, n, unit_needed, fmt, sizeof(fmt)))
		return AN_WW_NONE;
	int bs = only == AN_WW_SIZE ? 0 : key_agrees(key, AN_WW_BS, fmt, strlen(fmt));
	if (bs == 1)
		return AN_WW_BS;
	int size = only == AN_WW_BS ? 0 : key_agrees(key, AN_WW_SIZE, fmt, strlen(fmt));
	if (size == 1)
		return AN_WW_SIZE;
	if (bs < 0)
		return only == AN_WW_SIZE ? AN_WW_SIZE : AN_WW_BS;
	if (size < 0 && only != AN_WW_NONE)
		return only;
	return AN_WW_NONE;
}

/* A number of an option: "8" of qd8 or iodepth-8. */
static enum an_wl_word number_kind(const char *key, enum an_wl_word kind, const char *d, size_t n)
{
	if (kind == AN_WW_BS || kind == AN_WW_SIZE)
		return size_kind(key, d, n, false, kind);
	if (n == 0 || n > 6)
		return AN_WW_NONE;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)d[i]))
			return AN_WW_NONE;
	}
	/* qd08 is iodepth=8 */
	while (n > 1 && d[0] == '0') {
		d++;
		n--;
	}
	return key_agrees(key, kind, d, n) != 0 ? kind : AN_WW_NONE;
}

size_t an_wl_word(const char *key, const char *w, size_t n, const char *next, size_t next_n,
		  enum an_wl_word *kind)
{
	*kind = AN_WW_NONE;
	if (n == 0)
		return 0;
	for (size_t i = 0; i < sizeof(rw_words) / sizeof(rw_words[0]); i++) {
		if (strlen(rw_words[i].word) != n || strncasecmp(rw_words[i].word, w, n) != 0)
			continue;
		if (key_agrees(key, AN_WW_RW, rw_words[i].rw, strlen(rw_words[i].rw)) == 0)
			return 0;
		*kind = AN_WW_RW;
		return 1;
	}
	/* iodepth-8: the option's name, its value the next word */
	enum an_wl_word opt = option_kind(w, n);
	if (opt != AN_WW_NONE) {
		if (!next || next_n == 0)
			return 0;
		*kind = number_kind(key, opt, next, next_n);
		return *kind != AN_WW_NONE ? 2 : 0;
	}
	/* qd8, bs4k: glued */
	size_t letters = 0;
	while (letters < n && isalpha((unsigned char)w[letters]))
		letters++;
	if (letters > 0 && letters < n) {
		opt = option_kind(w, letters);
		if (opt != AN_WW_NONE)
			*kind = number_kind(key, opt, w + letters, n - letters);
		return *kind != AN_WW_NONE ? 1 : 0;
	}
	/* 4jobs, 8qd: the number first */
	size_t digits = 0;
	while (digits < n && isdigit((unsigned char)w[digits]))
		digits++;
	if (digits > 0 && digits < n) {
		opt = option_kind(w + digits, n - digits);
		if (opt == AN_WW_IODEPTH || (opt == AN_WW_NUMJOBS && n - digits > 1))
			*kind = number_kind(key, opt, w, digits);
		else
			*kind = size_kind(key, w, n, true, AN_WW_NONE);
		return *kind != AN_WW_NONE ? 1 : 0;
	}
	return 0;
}
