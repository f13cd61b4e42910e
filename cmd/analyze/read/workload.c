/* SPDX-License-Identifier: MIT */
/*
 * A run's workload: what fio was asked to do, read from the report's job
 * and global options, with the values normalised the way fio reads them
 * (options.c, parse.c and HOWTO "Parameter types" of fio 3.x), so that 4k,
 * 4K, 4kb and 4096 are one block size and readwrite is rw.
 *
 * The workload is kept as one string per run, its key: for each job the
 * fields of an_wl_fields[] that apply, "name=value" separated by US (0x1f),
 * jobs separated by RS (0x1e).  Two runs are the same workload exactly when
 * their keys are equal.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "read/read.h"

#define FIELD_SEP '\x1f'
#define JOB_SEP	  '\x1e'

const char *const an_wl_fields[AN_WL_COUNT] = {
    [AN_WL_NAME] = "name",	 [AN_WL_MERGED] = "merged",
    [AN_WL_RW] = "rw",		 [AN_WL_RWMIXREAD] = "rwmixread",
    [AN_WL_BS] = "bs",		 [AN_WL_BSRANGE] = "bsrange",
    [AN_WL_BSSPLIT] = "bssplit", [AN_WL_IODEPTH] = "iodepth",
    [AN_WL_NUMJOBS] = "numjobs", [AN_WL_IOENGINE] = "ioengine",
    [AN_WL_DIRECT] = "direct",	 [AN_WL_SIZE] = "size",
    [AN_WL_RUNTIME] = "runtime", [AN_WL_CONCURRENCY] = "concurrency",
    [AN_WL_SEEKS] = "seeks",	 [AN_WL_SEEKERS] = "seekers",
    [AN_WL_FILES] = "files",	 [AN_WL_FILE_SIZE] = "file_size",
    [AN_WL_DIRS] = "dirs",
};

const enum an_wl_field an_wl_columns[AN_WL_N_COLUMNS] = {
    AN_WL_RW,	    AN_WL_RWMIXREAD, AN_WL_BS,	 AN_WL_IODEPTH, AN_WL_NUMJOBS,
    AN_WL_IOENGINE, AN_WL_DIRECT,    AN_WL_SIZE, AN_WL_RUNTIME,
};

/* ---- values --------------------------------------------------------------- */

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/*
 * fio's integer with a unit suffix (parse.c str_to_decimal and
 * __get_mult_bytes): decimal or 0x hex, then k/m/g/t/p with an optional b,
 * or ki/mi/gi/ti/pi with an optional b, case-insensitive.  With the default
 * kb_base=1024 the plain prefixes are powers of 1024 and the "i" prefixes
 * powers of 1000: fio's compatibility rule, so 4KiB is 4000 bytes there.
 * kb_base=1000 swaps the two.  False for anything else (a percentage, an
 * arithmetic expression, a variable fio did not expand).
 */
bool an_parse_size(const char *text, bool kb_base_1000, uint64_t *bytes)
{
	const char *s = skip_space(text);
	int base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!isxdigit((unsigned char)*s))
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s)
		return false;
	char suf[8];
	size_t n = 0;
	const char *p = end;
	while (*p && *p != ' ' && *p != '\t' && n < sizeof(suf) - 1)
		suf[n++] = (char)tolower((unsigned char)*p++);
	suf[n] = '\0';
	if (*skip_space(p))
		return false;
	if (n && suf[n - 1] == 'b') /* 4kb, 4kib, 4096b */
		suf[--n] = '\0';
	unsigned pow = 0;
	bool iec = false;
	if (n == 2 && suf[1] == 'i') {
		iec = true;
		n = 1;
	}
	if (n == 1) {
		const char *units = "kmgtp";
		const char *u = strchr(units, suf[0]);
		if (!u)
			return false;
		pow = (unsigned)(u - units) + 1;
	} else if (n != 0) {
		return false;
	}
	uint64_t mult = (iec != kb_base_1000) ? 1000 : 1024;
	uint64_t r = v;
	for (unsigned i = 0; i < pow; i++) {
		if (r > UINT64_MAX / mult)
			return false;
		r *= mult;
	}
	*bytes = r;
	return true;
}

/* fio's time: a number with us/usec, ms/msec, s/sec, m, h or d; seconds
 * without a unit (runtime, HOWTO "time").  In ms; false if not that. */
bool an_parse_time_ms(const char *text, uint64_t *ms)
{
	const char *s = skip_space(text);
	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	char unit[8];
	size_t n = 0;
	const char *p = end;
	while (*p && *p != ' ' && *p != '\t' && n < sizeof(unit) - 1)
		unit[n++] = (char)tolower((unsigned char)*p++);
	unit[n] = '\0';
	if (*skip_space(p))
		return false;
	static const struct {
		const char *unit;
		uint64_t num, den; /* ms = v * num / den */
	} units[] = {{"", 1000, 1},	{"s", 1000, 1},	   {"sec", 1000, 1},  {"ms", 1, 1},
		     {"msec", 1, 1},	{"us", 1, 1000},   {"usec", 1, 1000}, {"m", 60000, 1},
		     {"h", 3600000, 1}, {"d", 86400000, 1}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(unit, units[i].unit) != 0)
			continue;
		if (v > UINT64_MAX / units[i].num)
			return false;
		*ms = v * units[i].num / units[i].den;
		return true;
	}
	return false;
}

/* Bytes as fio's own input syntax writes them: 4k, 64k, 1m, 4000. */
void an_fmt_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "kmgtp";
	uint64_t v = bytes;
	int u = -1;
	while (v >= 1024 && v % 1024 == 0 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%" PRIu64, bytes);
	else
		snprintf(buf, len, "%" PRIu64 "%c", v, units[u]);
}

static void fmt_time(char *buf, size_t len, uint64_t ms)
{
	if (ms % 1000 == 0)
		snprintf(buf, len, "%" PRIu64 "s", ms / 1000);
	else
		snprintf(buf, len, "%" PRIu64 "ms", ms);
}

/* A value as written, for the key: trimmed, separators and control
 * characters replaced, so it cannot break the key apart. */
static void put_verbatim(struct cm_buf *b, const char *v)
{
	v = skip_space(v);
	size_t n = strlen(v);
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		cm_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}

/* ---- rw ---------------------------------------------------------------------- */

enum { DIR_R = 1, DIR_W = 2, DIR_T = 4 };

/* fio's values of rw (options.c): the directions each one does. */
static const struct {
	const char *name, *canonical;
	unsigned dirs;
	bool mixed; /* rwmixread applies */
} rw_values[] = {
    {"read", "read", DIR_R, false},
    {"write", "write", DIR_W, false},
    {"trim", "trim", DIR_T, false},
    {"randread", "randread", DIR_R, false},
    {"randwrite", "randwrite", DIR_W, false},
    {"randtrim", "randtrim", DIR_T, false},
    {"rw", "rw", DIR_R | DIR_W, true},
    {"readwrite", "rw", DIR_R | DIR_W, true},
    {"randrw", "randrw", DIR_R | DIR_W, true},
    {"trimwrite", "trimwrite", DIR_T | DIR_W, false},
    {"randtrimwrite", "randtrimwrite", DIR_T | DIR_W, false},
};

/* -1 if `mode` (without a :N postfix) is none of fio's values. */
static int rw_lookup(const char *mode, size_t len)
{
	for (size_t i = 0; i < sizeof(rw_values) / sizeof(rw_values[0]); i++) {
		if (strlen(rw_values[i].name) == len && strncmp(rw_values[i].name, mode, len) == 0)
			return (int)i;
	}
	return -1;
}

bool an_rw_known(const char *mode, size_t len)
{
	return rw_lookup(mode, len) >= 0;
}

/* ---- options ---------------------------------------------------------------- */

/* fio lists options by their canonical names; older reports and hand-made
 * ones may carry an alias.  The job's own options win over global ones. */
static const char *opt(const struct fc_run *run, const struct fc_job *job, const char *name,
		       const char *alias)
{
	const char *v = fc_job_option(run, job, name);
	if (!v && alias)
		v = fc_job_option(run, job, alias);
	return v;
}

/* The later of rwmixread and rwmixwrite wins (HOWTO): globals come first,
 * then the job's options, each in fio's order. */
static int rwmixread_of(const struct fc_run *run, const struct fc_job *job, bool *verbatim,
			const char **text)
{
	int pct = 50;
	*verbatim = false;
	const struct fc_option *lists[2] = {run->global_options, job->options};
	size_t counts[2] = {run->n_global_options, job->n_options};
	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < counts[l]; i++) {
			const struct fc_option *o = &lists[l][i];
			bool rd = strcmp(o->key, "rwmixread") == 0;
			if (!rd && strcmp(o->key, "rwmixwrite") != 0)
				continue;
			char *end;
			long v = strtol(o->value, &end, 10);
			if (end == o->value || *skip_space(end) || v < 0 || v > 100) {
				*verbatim = true;
				*text = o->value;
				continue;
			}
			*verbatim = false;
			pct = rd ? (int)v : 100 - (int)v;
		}
	}
	return pct;
}

static void field(struct cm_buf *b, enum an_wl_field f)
{
	if (b->len && b->s[b->len - 1] != JOB_SEP)
		cm_buf_putc(b, FIELD_SEP);
	cm_buf_puts(b, an_wl_fields[f]);
	cm_buf_putc(b, '=');
}

/* No default: an option the report does not give is left out (unknown). */
#define NO_DEFAULT UINT64_MAX

/* An integer option (iodepth, numjobs) with fio's default. */
static void int_field(struct cm_buf *b, enum an_wl_field f, const char *v, uint64_t def)
{
	if (!v && def == NO_DEFAULT)
		return;
	field(b, f);
	uint64_t n = def;
	if (v && !an_parse_size(v, false, &n)) {
		put_verbatim(b, v);
		return;
	}
	cm_buf_printf(b, "%" PRIu64, n);
}

/*
 * bs=R[,W[,T]] (HOWTO "blocksize"): one value for every direction; an empty
 * value is fio's default 4096; a list not ended by a comma repeats its last
 * value for the directions after it.  Only the directions the job does
 * count; equal ones are written once.
 */
static void bs_field(struct cm_buf *b, const char *v, unsigned dirs, bool kb1000)
{
	char vals[3][32];
	const char *p = v ? v : "";
	size_t n = 0;
	char part[3][128];
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (n < 3) {
			snprintf(part[n], sizeof(part[n]), "%.*s", (int)len, p);
			n++;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	bool verbatim = false;
	for (size_t d = 0; d < 3; d++) {
		const char *s = d < n ? part[d] : part[n - 1];
		uint64_t bytes = 4096;
		if (*skip_space(s) && !an_parse_size(s, kb1000, &bytes))
			verbatim = true;
		an_fmt_size(vals[d], sizeof(vals[d]), bytes);
	}
	field(b, AN_WL_BS);
	if (verbatim) {
		put_verbatim(b, v);
		return;
	}
	const char *first = NULL;
	bool same = true;
	for (size_t d = 0; d < 3; d++) {
		if (!(dirs & (1u << d)))
			continue;
		if (!first)
			first = vals[d];
		else if (strcmp(first, vals[d]) != 0)
			same = false;
	}
	if (!first)
		return;
	if (same) {
		cm_buf_puts(b, first);
		return;
	}
	/* fio's own list syntax, directions the job does not do left empty */
	size_t last = 0;
	for (size_t d = 0; d < 3; d++) {
		if (dirs & (1u << d))
			last = d;
	}
	for (size_t d = 0; d <= last; d++) {
		if (d)
			cm_buf_putc(b, ',');
		if (dirs & (1u << d))
			cm_buf_puts(b, vals[d]);
	}
}

/* direct, size and runtime; given_only: none of fio's defaults. */
static void tail_fields(struct cm_buf *b, const struct fc_run *run, const struct fc_job *job,
			bool kb1000, bool given_only)
{
	const char *v;
	/* direct=1 and buffered=0 say the same */
	const char *direct = opt(run, job, "direct", NULL);
	const char *buffered = opt(run, job, "buffered", NULL);
	char *end;
	if (direct || buffered || !given_only)
		field(b, AN_WL_DIRECT);
	if (direct) {
		long d = strtol(direct, &end, 10);
		if (end == direct || *skip_space(end))
			put_verbatim(b, direct);
		else
			cm_buf_putc(b, d ? '1' : '0');
	} else if (buffered) {
		long d = strtol(buffered, &end, 10);
		if (end == buffered || *skip_space(end))
			put_verbatim(b, buffered);
		else
			cm_buf_putc(b, d ? '0' : '1');
	} else if (!given_only) {
		cm_buf_putc(b, '0');
	}

	v = opt(run, job, "size", NULL);
	if (v) {
		uint64_t bytes;
		field(b, AN_WL_SIZE);
		if (an_parse_size(v, kb1000, &bytes)) {
			char s[32];
			an_fmt_size(s, sizeof(s), bytes);
			cm_buf_puts(b, s);
		} else {
			put_verbatim(b, v);
		}
	}
	v = opt(run, job, "runtime", "timeout");
	if (v) {
		uint64_t ms;
		if (!an_parse_time_ms(v, &ms)) {
			field(b, AN_WL_RUNTIME);
			put_verbatim(b, v);
		} else if (ms > 0) { /* 0 is fio's "no limit", as if absent */
			char s[32];
			fmt_time(s, sizeof(s), ms);
			field(b, AN_WL_RUNTIME);
			cm_buf_puts(b, s);
		}
	}
}

/* The directions a value of rw does; 0 unknown. */
static unsigned rw_dirs(const char *rw)
{
	if (!rw)
		return DIR_R; /* fio's default */
	const char *m = skip_space(rw);
	int i = rw_lookup(m, strcspn(m, ": \t"));
	return i >= 0 ? rw_values[i].dirs : 0;
}

/*
 * A group_reporting entry that sums jobs of different options: fio's report
 * lists one job's options for it (fio 3.33's JSON: the last job's, under the
 * first job's name; normal output: the first job's banner).  Found when the
 * entry did I/O its rw does not do, or when its processes' runtimes
 * (job_runtime, their sum) add up to more processes than its numjobs.
 * False, or true with what is known of them in `what` ("2 jobs of
 * different rw").
 */
static bool merged_jobs(const struct fc_run *run, const struct fc_job *job, char *what, size_t len)
{
	/* client/server mode's aggregate sums the clients' entries by design */
	if (job->all_clients)
		return false;
	unsigned dirs = rw_dirs(opt(run, job, "rw", "readwrite"));
	static const unsigned bit[3] = {DIR_R, DIR_W, DIR_T};
	bool rw_differs = false;
	uint64_t longest_ms = 0;
	for (int d = 0; d < 3; d++) {
		const struct fc_dir *x = &job->dir[d];
		rw_differs |= dirs && x->present && x->io_bytes > 0 && !(dirs & bit[d]);
		if (x->present && x->runtime_ms > longest_ms)
			longest_ms = x->runtime_ms;
	}
	uint64_t numjobs = 1, procs = 0;
	const char *nj = opt(run, job, "numjobs", NULL);
	if (nj && !an_parse_size(nj, false, &numjobs))
		numjobs = 0; /* not a number: not compared */
	if (job->members > 0)
		procs = job->members;
	else if (job->job_runtime_ms > 0 && longest_ms > 0)
		procs = ((uint64_t)job->job_runtime_ms + longest_ms / 2) / longest_ms;
	/* a job that stopped early adds less than its share: 5 % of room */
	bool more = numjobs && procs > numjobs && run->format != FC_FORMAT_NORMAL &&
		    (double)job->job_runtime_ms > 1.05 * (double)numjobs * (double)longest_ms;
	/* normal output has every job's banner: the options that differ */
	static const char *const shown[] = {"rw", "bs", "ioengine", "iodepth"};
	char differ[48] = "";
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		const char *mine = fc_job_option(NULL, job, shown[i]);
		bool other = false;
		for (size_t k = 0; k < job->n_merged && !other; k++) {
			const struct fc_job peer = {.options = job->merged[k].options,
						    .n_options = job->merged[k].n_options};
			const char *theirs = fc_job_option(NULL, &peer, shown[i]);
			other = (mine == NULL) != (theirs == NULL) ||
				(mine && theirs && strcmp(mine, theirs) != 0);
		}
		if (other || (rw_differs && i == 0))
			snprintf(differ + strlen(differ), sizeof(differ) - strlen(differ), "%s%s",
				 differ[0] ? ", " : "", shown[i]);
	}
	if (!differ[0] && !more)
		return false;
	if (procs > 1)
		snprintf(what, len, "%" PRIu64 " jobs%s%s", procs,
			 differ[0] ? " of different " : "", differ);
	else
		snprintf(what, len, "jobs of different %s", differ);
	return true;
}

static void job_key(struct cm_buf *b, const struct fc_run *run, const struct fc_job *job)
{
	field(b, AN_WL_NAME);
	put_verbatim(b, job->name ? job->name : "");
	if (job->n_options == 0 && run->n_global_options == 0)
		return; /* terse output: no options at all */
	/* Normal output's banner shows rw, bs, ioengine and iodepth only: what
	 * it does not show is unknown, not fio's default. */
	bool banner = run->format == FC_FORMAT_NORMAL;
	char what[64];
	bool given_only = merged_jobs(run, job, what, sizeof(what));
	struct fc_job shared;
	if (given_only) {
		/* one job's options are no workload of the entry: only what the
		 * jobs share, the global options, is known */
		field(b, AN_WL_MERGED);
		cm_buf_puts(b, what);
		if (banner)
			return;
		shared = *job;
		shared.n_options = 0;
		shared.options = NULL;
		job = &shared;
	}
	uint64_t one = given_only ? NO_DEFAULT : 1;

	const char *kb = opt(run, job, "kb_base", NULL);
	bool kb1000 = kb && strtol(kb, NULL, 10) == 1000;

	/* rw, with fio's "rw=randread:8" postfix kept */
	const char *rw = opt(run, job, "rw", "readwrite");
	unsigned dirs = DIR_R | DIR_W | DIR_T;
	bool mixed = false;
	if (!rw && given_only) {
		/* unknown */
	} else if (!rw) {
		field(b, AN_WL_RW);
		cm_buf_puts(b, "read"); /* fio's default */
		dirs = DIR_R;
	} else {
		field(b, AN_WL_RW);
		const char *m = skip_space(rw);
		size_t len = strcspn(m, ": \t");
		int i = rw_lookup(m, len);
		if (i >= 0) {
			cm_buf_puts(b, rw_values[i].canonical);
			dirs = rw_values[i].dirs;
			mixed = rw_values[i].mixed;
			if (m[len] == ':')
				put_verbatim(b, m + len);
		} else {
			put_verbatim(b, rw);
		}
	}
	if (mixed && !banner) {
		bool verbatim;
		const char *text = NULL;
		int pct = rwmixread_of(run, job, &verbatim, &text);
		field(b, AN_WL_RWMIXREAD);
		if (verbatim)
			put_verbatim(b, text);
		else
			cm_buf_printf(b, "%d", pct);
	}
	const char *v = opt(run, job, "bs", "blocksize");
	if (v || !given_only)
		bs_field(b, v, dirs, kb1000);
	v = opt(run, job, "bsrange", "blocksize_range");
	if (v) {
		field(b, AN_WL_BSRANGE);
		put_verbatim(b, v);
	}
	v = opt(run, job, "bssplit", NULL);
	if (v) {
		field(b, AN_WL_BSSPLIT);
		put_verbatim(b, v);
	}
	int_field(b, AN_WL_IODEPTH, opt(run, job, "iodepth", NULL), one);
	if (!banner)
		int_field(b, AN_WL_NUMJOBS, opt(run, job, "numjobs", NULL), one);
	v = opt(run, job, "ioengine", NULL);
	if (v || !given_only) {
		field(b, AN_WL_IOENGINE);
		put_verbatim(b, v ? v : "psync"); /* fio's default on Linux (os/os.h) */
	}
	if (banner)
		return;

	tail_fields(b, run, job, kb1000, given_only);
}

void an_wl_put(struct cm_buf *b, enum an_wl_field f, const char *value)
{
	field(b, f);
	put_verbatim(b, value);
}

char *an_workload_key(const struct fc_run *run)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t j = 0; j < run->n_jobs; j++) {
		if (j)
			cm_buf_putc(&b, JOB_SEP);
		job_key(&b, run, &run->jobs[j]);
	}
	if (!b.s)
		cm_buf_puts(&b, "");
	return b.s;
}

/* ---- reading a key back --------------------------------------------------------- */

size_t an_wl_jobs(const char *key)
{
	size_t n = 1;
	for (const char *p = key; *p; p++)
		n += *p == JOB_SEP;
	return n;
}

bool an_wl_get(const char *key, size_t job, enum an_wl_field f, const char **value, size_t *len)
{
	const char *p = key;
	for (size_t j = 0; j < job; j++) {
		p = strchr(p, JOB_SEP);
		if (!p)
			return false;
		p++;
	}
	const char *name = an_wl_fields[f];
	size_t nlen = strlen(name);
	while (*p && *p != JOB_SEP) {
		size_t flen = strcspn(p, "\x1e\x1f");
		if (flen > nlen && strncmp(p, name, nlen) == 0 && p[nlen] == '=') {
			*value = p + nlen + 1;
			*len = flen - nlen - 1;
			return true;
		}
		p += flen;
		if (*p == FIELD_SEP)
			p++;
	}
	return false;
}

bool an_wl_same(const char *a, const char *b, size_t job, enum an_wl_field f)
{
	const char *va, *vb;
	size_t la, lb;
	bool ha = an_wl_get(a, job, f, &va, &la);
	bool hb = an_wl_get(b, job, f, &vb, &lb);
	if (ha != hb)
		return false;
	return !ha || (la == lb && memcmp(va, vb, la) == 0);
}

bool an_wl_options_listed(const char *key)
{
	/* anything beside the name: terse output has nothing else */
	size_t first = strcspn(key, "\x1e");
	return memchr(key, FIELD_SEP, first) != NULL;
}

void an_wl_describe(struct cm_buf *b, const char *key, unsigned fields_mask, bool lead_rw)
{
	size_t jobs = an_wl_jobs(key);
	for (size_t j = 0; j < jobs; j++) {
		if (j)
			cm_buf_puts(b, " | ");
		bool first = true;
		for (int f = 0; f < AN_WL_COUNT; f++) {
			if (!(fields_mask & (1u << f)))
				continue;
			const char *v;
			size_t len;
			if (!an_wl_get(key, j, (enum an_wl_field)f, &v, &len))
				continue;
			if (!first)
				cm_buf_putc(b, ' ');
			first = false;
			if (f == AN_WL_MERGED) {
				cm_buf_puts(b, "(group_reporting: ");
				cm_buf_putn(b, v, len);
				cm_buf_puts(b, " merged)");
				continue;
			}
			if (!(lead_rw && f == AN_WL_RW))
				cm_buf_printf(b, "%s=", an_wl_fields[f]);
			cm_buf_putn(b, v, len);
		}
	}
}

bool an_wl_large_blocks(const char *key)
{
	const char *v;
	size_t len;
	if (!an_wl_get(key, 0, AN_WL_BS, &v, &len))
		return false;
	/* the largest of the list */
	uint64_t max = 0;
	while (len) {
		size_t n = 0;
		while (n < len && v[n] != ',')
			n++;
		char part[32];
		snprintf(part, sizeof(part), "%.*s", (int)n, v);
		uint64_t bytes;
		if (n && an_parse_size(part, false, &bytes) && bytes > max)
			max = bytes;
		v += n;
		len -= n;
		if (len) {
			v++;
			len--;
		}
	}
	return max >= 64 * 1024;
}
