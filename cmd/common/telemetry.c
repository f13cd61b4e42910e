/* SPDX-License-Identifier: MIT */
/* The kernel's counters sampled while fio runs, their file, and the shares
 * a run is judged by (telemetry.h says the rules). */
#define _GNU_SOURCE
#include "telemetry.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(char *why, size_t why_len, const char *fmt, ...) CM_PRINTF(3, 4);

static int fail(char *why, size_t why_len, const char *fmt, ...)
{
	if (why && why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The text of the line at *pos (without its newline) as [start, end);
 * *pos moves past it.  false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, const char **start, size_t *n)
{
	if (*pos >= len)
		return false;
	const char *s = text + *pos;
	const char *nl = memchr(s, '\n', len - *pos);
	*start = s;
	*n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += *n + (nl ? 1 : 0);
	return true;
}

/* A whole unsigned decimal number, nothing before or after it. */
static bool word_u64(const char *s, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(s, &end, 10);
	if (*end || errno)
		return false;
	*v = x;
	return true;
}

/* Up to `max` unsigned decimal fields of `line` after skipping `skip`
 * whitespace-separated words; returns how many were read, or -1 when a
 * field is not a number. */
static int read_u64s(const char *line, size_t n, size_t skip, uint64_t *v, size_t max)
{
	char buf[512];
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, line, n);
	buf[n] = '\0';
	char *save = NULL;
	size_t got = 0, word = 0;
	for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (word++ < skip)
			continue;
		if (got == max)
			break;
		if (!word_u64(tok, &v[got]))
			return -1;
		got++;
	}
	return (int)got;
}

int cm_tm_read_proc_stat(const char *text, struct cm_tm_cpu *out, char *why, size_t why_len)
{
	*out = (struct cm_tm_cpu){0};
	size_t len = strlen(text), pos = 0, n;
	const char *line;
	bool aggregate = false;
	while (next_line(text, len, &pos, &line, &n)) {
		if (n < 4 || memcmp(line, "cpu", 3) != 0)
			continue;
		if (line[3] >= '0' && line[3] <= '9') {
			out->online++;
			continue;
		}
		if (line[3] != ' ' || aggregate)
			continue;
		uint64_t v[8] = {0};
		int got = read_u64s(line, n, 1, v, 8);
		if (got < 4)
			return fail(why, why_len,
				    "/proc/stat: its cpu line is not a line of counters");
		aggregate = true;
		out->user = v[0];
		out->nice = v[1];
		out->system = v[2];
		out->idle = v[3];
		out->iowait = v[4];
		out->irq = v[5];
		out->softirq = v[6];
		out->steal = v[7];
	}
	if (!aggregate)
		return fail(why, why_len, "/proc/stat: no cpu line");
	out->known = true;
	return 0;
}

int cm_tm_read_diskstats(const char *text, const char *name, struct cm_tm_disk *out, char *why,
			 size_t why_len)
{
	*out = (struct cm_tm_disk){0};
	size_t name_len = strlen(name);
	if (name_len == 0 || name_len >= sizeof(out->name))
		return fail(why, why_len, "/proc/diskstats: device name '%s' is too long", name);
	size_t len = strlen(text), pos = 0, n;
	const char *line;
	while (next_line(text, len, &pos, &line, &n)) {
		/* "   8       0 sda 1 2 3 ...": the third word is the name */
		const char *p = line, *end = line + n;
		for (int w = 0; w < 2; w++) {
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			while (p < end && *p != ' ' && *p != '\t')
				p++;
		}
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(end - p) <= name_len || memcmp(p, name, name_len) != 0 ||
		    (p[name_len] != ' ' && p[name_len] != '\t'))
			continue;
		/* reads: ios merges sectors ticks; writes: the same; in_flight,
		 * io_ticks, time_in_queue; discards: ios merges sectors ticks */
		uint64_t v[15] = {0};
		int got = read_u64s(line, n, 3, v, 15);
		if (got < 11)
			return fail(why, why_len,
				    "/proc/diskstats: the line of %s has %d counters, "
				    "expected at least 11",
				    name, got < 0 ? 0 : got);
		memcpy(out->name, name, name_len + 1);
		out->rd_ios = v[0];
		out->rd_sectors = v[2];
		out->wr_ios = v[4];
		out->wr_sectors = v[6];
		out->io_ms = v[9];
		out->dc_ios = got >= 15 ? v[11] : 0;
		out->dc_sectors = got >= 15 ? v[13] : 0;
		return 0;
	}
	return 1;
}

/* "total=N" in a pressure line */
static bool psi_total(const char *line, size_t n, uint64_t *total)
{
	const char *key = memmem(line, n, "total=", 6);
	if (!key)
		return false;
	const char *p = key + 6, *end = line + n;
	if (p >= end || *p < '0' || *p > '9')
		return false;
	uint64_t x = 0;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*total = x;
	return p == end || *p == ' ';
}

int cm_tm_read_pressure(const char *text, const char *resource, struct cm_tm_psi *out, char *why,
			size_t why_len)
{
	*out = (struct cm_tm_psi){0};
	if (strlen(resource) >= sizeof(out->resource))
		return fail(why, why_len, "pressure: resource name '%s' is too long", resource);
	snprintf(out->resource, sizeof(out->resource), "%s", resource);
	size_t len = strlen(text), pos = 0, n;
	const char *line;
	bool some = false;
	while (next_line(text, len, &pos, &line, &n)) {
		if (n > 5 && memcmp(line, "some ", 5) == 0) {
			if (!psi_total(line, n, &out->some_us))
				return fail(why, why_len,
					    "/proc/pressure/%s: its some line has no total",
					    resource);
			some = true;
		} else if (n > 5 && memcmp(line, "full ", 5) == 0) {
			if (!psi_total(line, n, &out->full_us))
				return fail(why, why_len,
					    "/proc/pressure/%s: its full line has no total",
					    resource);
			out->full_known = true;
		}
	}
	if (!some)
		return fail(why, why_len, "/proc/pressure/%s: no some line", resource);
	return 0;
}

double cm_tm_read_cpuinfo_mhz(const char *text)
{
	size_t len = strlen(text), pos = 0, n;
	const char *line;
	double sum = 0;
	size_t count = 0;
	while (next_line(text, len, &pos, &line, &n)) {
		if (n < 8 || memcmp(line, "cpu MHz", 7) != 0)
			continue;
		const char *colon = memchr(line, ':', n);
		if (!colon)
			continue;
		char buf[64];
		size_t m = (size_t)(line + n - colon - 1);
		if (m == 0 || m >= sizeof(buf))
			continue;
		memcpy(buf, colon + 1, m);
		buf[m] = '\0';
		char *end;
		double mhz = strtod(buf, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == buf || *end || !isfinite(mhz) || mhz <= 0)
			continue;
		sum += mhz;
		count++;
	}
	return count ? sum / (double)count : NAN;
}

void cm_tm_write_header(struct cm_buf *b)
{
	cm_buf_puts(b, CM_TM_MAGIC "\n");
}

void cm_tm_write_sample(struct cm_buf *b, const struct cm_tm_sample *s)
{
	if (isfinite(s->unix_s))
		cm_buf_printf(b, "T %.0f %.3f\n", s->t_ms, s->unix_s);
	else
		cm_buf_printf(b, "T %.0f -\n", s->t_ms);
	const struct cm_tm_cpu *c = &s->cpu;
	if (c->known)
		cm_buf_printf(b,
			      "cpu %u %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			      " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			      c->online, c->user, c->nice, c->system, c->idle, c->iowait, c->irq,
			      c->softirq, c->steal);
	for (size_t i = 0; i < s->n_disks; i++) {
		const struct cm_tm_disk *d = &s->disks[i];
		cm_buf_printf(b,
			      "disk %s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			      " %" PRIu64 " %" PRIu64 "\n",
			      d->name, d->rd_ios, d->rd_sectors, d->wr_ios, d->wr_sectors,
			      d->dc_ios, d->dc_sectors, d->io_ms);
	}
	for (size_t i = 0; i < s->n_psi; i++) {
		const struct cm_tm_psi *p = &s->psi[i];
		if (p->full_known)
			cm_buf_printf(b, "psi %s %" PRIu64 " %" PRIu64 "\n", p->resource,
				      p->some_us, p->full_us);
		else
			cm_buf_printf(b, "psi %s %" PRIu64 " -\n", p->resource, p->some_us);
	}
	if (isfinite(s->mhz))
		cm_buf_printf(b, "mhz %.1f\n", s->mhz);
}

/* The words of a line, split on single spaces, into w[] (pointers into buf). */
static size_t split_words(char *buf, char **w, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, " ", &save); tok && n < max;
	     tok = strtok_r(NULL, " ", &save))
		w[n++] = tok;
	return n;
}

static bool word_double(const char *s, double *v)
{
	char *end;
	errno = 0;
	double x = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(x) || x < 0)
		return false;
	*v = x;
	return true;
}

static bool words_u64(char **w, size_t n, uint64_t *v)
{
	for (size_t i = 0; i < n; i++)
		if (!word_u64(w[i], &v[i]))
			return false;
	return true;
}

/* One line of a sample into s; false when it is malformed. */
static bool parse_sample_line(char **w, size_t nw, struct cm_tm_sample *s, const char **what)
{
	uint64_t v[9];
	if (strcmp(w[0], "cpu") == 0) {
		*what = "a cpu line is ONLINE and 8 counters";
		if (nw != 10 || s->cpu.known || !words_u64(w + 1, 9, v) || v[0] > UINT32_MAX)
			return false;
		s->cpu = (struct cm_tm_cpu){.known = true,
					    .online = (unsigned)v[0],
					    .user = v[1],
					    .nice = v[2],
					    .system = v[3],
					    .idle = v[4],
					    .iowait = v[5],
					    .irq = v[6],
					    .softirq = v[7],
					    .steal = v[8]};
		return true;
	}
	if (strcmp(w[0], "disk") == 0) {
		*what = "a disk line is NAME and 7 counters, at most 16 disks a sample";
		if (nw != 9 || s->n_disks == CM_TM_DISKS_MAX ||
		    strlen(w[1]) >= CM_TM_DISK_NAME_MAX || !words_u64(w + 2, 7, v))
			return false;
		struct cm_tm_disk *d = &s->disks[s->n_disks++];
		snprintf(d->name, sizeof(d->name), "%s", w[1]);
		d->rd_ios = v[0];
		d->rd_sectors = v[1];
		d->wr_ios = v[2];
		d->wr_sectors = v[3];
		d->dc_ios = v[4];
		d->dc_sectors = v[5];
		d->io_ms = v[6];
		return true;
	}
	if (strcmp(w[0], "psi") == 0) {
		*what = "a psi line is RESOURCE SOME_US FULL_US (or -), at most 3 a sample";
		if (nw != 4 || s->n_psi == CM_TM_PSI_MAX || strlen(w[1]) >= CM_TM_RESOURCE_MAX ||
		    !word_u64(w[2], &v[0]))
			return false;
		struct cm_tm_psi *p = &s->psi[s->n_psi];
		*p = (struct cm_tm_psi){.some_us = v[0]};
		snprintf(p->resource, sizeof(p->resource), "%s", w[1]);
		if (strcmp(w[3], "-") != 0) {
			if (!word_u64(w[3], &p->full_us))
				return false;
			p->full_known = true;
		}
		s->n_psi++;
		return true;
	}
	if (strcmp(w[0], "mhz") == 0) {
		*what = "an mhz line is one number";
		return nw == 2 && isnan(s->mhz) && word_double(w[1], &s->mhz);
	}
	return true; /* a kind of a later version */
}

int cm_tm_parse(const char *text, size_t len, struct cm_tm_series *out, char *why, size_t why_len)
{
	*out = (struct cm_tm_series){0};
	if (len > CM_TM_MAX_BYTES)
		return fail(why, why_len, "larger than %u MiB", CM_TM_MAX_BYTES >> 20);
	size_t pos = 0, n, cap = 0, lineno = 0;
	const char *line;
	if (!next_line(text, len, &pos, &line, &n) || n != strlen(CM_TM_MAGIC) ||
	    memcmp(line, CM_TM_MAGIC, n) != 0)
		return fail(why, why_len, "line 1: not \"%s\"", CM_TM_MAGIC);
	lineno = 1;
	while (next_line(text, len, &pos, &line, &n)) {
		lineno++;
		if (n == 0)
			continue;
		char buf[256];
		if (n >= sizeof(buf) || memchr(line, '\0', n)) {
			cm_tm_series_release(out);
			return fail(why, why_len, "line %zu: longer than %zu bytes or holds a NUL",
				    lineno, sizeof(buf) - 1);
		}
		memcpy(buf, line, n);
		buf[n] = '\0';
		char *w[12];
		size_t nw = split_words(buf, w, CM_ARRAY_SIZE(w));
		if (nw == 0)
			continue;
		const char *what = NULL;
		if (strcmp(w[0], "T") == 0) {
			double t, unix_s = NAN;
			if (nw != 3 || !word_double(w[1], &t) ||
			    (strcmp(w[2], "-") != 0 && !word_double(w[2], &unix_s))) {
				cm_tm_series_release(out);
				return fail(why, why_len,
					    "line %zu: a T line is MS and UNIX_S (or -)", lineno);
			}
			if (out->n && t < out->samples[out->n - 1].t_ms) {
				double before = out->samples[out->n - 1].t_ms;
				cm_tm_series_release(out);
				return fail(why, why_len,
					    "line %zu: time goes back (%.0f ms after %.0f)", lineno,
					    t, before);
			}
			if (out->n == CM_TM_MAX_SAMPLES) {
				cm_tm_series_release(out);
				return fail(why, why_len, "line %zu: more than %u samples", lineno,
					    CM_TM_MAX_SAMPLES);
			}
			struct cm_tm_sample *s = CM_PUSH(out->samples, out->n, cap);
			s->t_ms = t;
			s->unix_s = unix_s;
			s->mhz = NAN;
			continue;
		}
		if (out->n == 0) {
			cm_tm_series_release(out);
			return fail(why, why_len,
				    "line %zu: a sample's lines come after its T line", lineno);
		}
		if (!parse_sample_line(w, nw, &out->samples[out->n - 1], &what)) {
			cm_tm_series_release(out);
			return fail(why, why_len, "line %zu: %s", lineno, what);
		}
	}
	return 0;
}

void cm_tm_series_release(struct cm_tm_series *s)
{
	free(s->samples);
	*s = (struct cm_tm_series){0};
}

bool cm_tm_counter_delta(uint64_t before, uint64_t after, bool wraps32, uint64_t *delta)
{
	if (after >= before) {
		*delta = after - before;
		return true;
	}
	if (wraps32 && before <= UINT32_MAX) {
		*delta = (UINT64_C(1) << 32) - before + after;
		return true;
	}
	return false;
}

struct cm_tm_cpu_share cm_tm_cpu_between(const struct cm_tm_cpu *a, const struct cm_tm_cpu *b)
{
	struct cm_tm_cpu_share r = {.steal = NAN, .iowait = NAN, .busy = NAN};
	if (!a->known || !b->known)
		return r;
	r.cpus_changed = a->online != b->online;
	const uint64_t *fa[] = {&a->user,   &a->nice, &a->system,  &a->idle,
				&a->iowait, &a->irq,  &a->softirq, &a->steal};
	const uint64_t *fb[] = {&b->user,   &b->nice, &b->system,  &b->idle,
				&b->iowait, &b->irq,  &b->softirq, &b->steal};
	uint64_t d[8], total = 0;
	for (size_t i = 0; i < 8; i++) {
		/* /proc/stat's counters are 64-bit: backwards is not a wrap */
		if (!cm_tm_counter_delta(*fa[i], *fb[i], false, &d[i]))
			return r;
		total += d[i];
	}
	if (total == 0)
		return r;
	double t = (double)total;
	r.known = true;
	r.busy = (double)(d[0] + d[1] + d[2] + d[5] + d[6]) / t;
	r.iowait = (double)d[4] / t;
	r.steal = (double)d[7] / t;
	return r;
}

double cm_tm_foreign_share(uint64_t device_bytes, uint64_t fio_bytes)
{
	if (device_bytes == 0)
		return NAN;
	if (fio_bytes >= device_bytes)
		return 0;
	return (double)(device_bytes - fio_bytes) / (double)device_bytes;
}

static const struct cm_tm_disk *find_disk(const struct cm_tm_sample *s, const char *name)
{
	for (size_t i = 0; i < s->n_disks; i++)
		if (strcmp(s->disks[i].name, name) == 0)
			return &s->disks[i];
	return NULL;
}

bool cm_tm_disk_bytes_between(const struct cm_tm_sample *a, const struct cm_tm_sample *b,
			      const char *name, uint64_t *bytes)
{
	const struct cm_tm_disk *da = find_disk(a, name), *db = find_disk(b, name);
	if (!da || !db)
		return false;
	uint64_t rd, wr, dc;
	if (!cm_tm_counter_delta(da->rd_sectors, db->rd_sectors, true, &rd) ||
	    !cm_tm_counter_delta(da->wr_sectors, db->wr_sectors, true, &wr) ||
	    !cm_tm_counter_delta(da->dc_sectors, db->dc_sectors, true, &dc))
		return false;
	*bytes = (rd + wr + dc) * 512;
	return true;
}
