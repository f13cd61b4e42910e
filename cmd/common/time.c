/* SPDX-License-Identifier: MIT */
/* Durations, sizes, clocks and timestamps. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"

static int fail(char *why, size_t why_len, const char *fmt, ...) CM_PRINTF(3, 4);

static int fail(char *why, size_t why_len, const char *fmt, ...)
{
	if (why) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why, why_len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

#define BAD_DURATION "bad duration '%s' (expected e.g. 10s, 1m30s, 250ms)"
#define BAD_SIZE     "bad size '%s' (expected e.g. 4G, 64M, 512k)"

int cm_parse_duration_ms(const char *text, uint64_t *ms, char *why, size_t why_len)
{
	const char *p = text;
	double total = 0;
	bool any = false;
	if (!*p)
		return fail(why, why_len, "empty duration (expected e.g. 10s, 1m30s, 250ms)");
	while (*p) {
		/* digits with at most one '.'; strtod alone would take 1e3 and hex */
		size_t digits = strspn(p, "0123456789.");
		if (!digits || memchr(p, '.', digits) != memrchr(p, '.', digits))
			return fail(why, why_len, BAD_DURATION, text);
		char num[64];
		if (digits >= sizeof(num))
			return fail(why, why_len, BAD_DURATION, text);
		memcpy(num, p, digits);
		num[digits] = '\0';
		char *end;
		errno = 0;
		double v = strtod(num, &end);
		if (*end || errno || !isfinite(v))
			return fail(why, why_len, BAD_DURATION, text);
		p += digits;
		double unit_ms;
		if (!strncmp(p, "ms", 2)) {
			unit_ms = 1;
			p += 2;
		} else if (*p == 's') {
			unit_ms = 1000;
			p++;
		} else if (*p == 'm') {
			unit_ms = 60000;
			p++;
		} else if (*p == 'h') {
			unit_ms = 3600000;
			p++;
		} else if (*p == 'd') {
			unit_ms = 86400000;
			p++;
		} else if (*p == '\0' && !any) {
			unit_ms = 1000; /* a plain number is seconds, as in fio */
		} else {
			return fail(why, why_len, BAD_DURATION, text);
		}
		total += v * unit_ms;
		any = true;
	}
	if (total > 366.0 * 86400000)
		return fail(why, why_len, "duration '%s' is longer than a year", text);
	*ms = (uint64_t)llround(total);
	return 0;
}

void cm_format_duration(char *buf, size_t len, uint64_t ms)
{
	uint64_t s = ms / 1000, rest_ms = ms % 1000;
	if (s == 0) {
		snprintf(buf, len, "%llums", (unsigned long long)ms);
		return;
	}
	uint64_t h = s / 3600, m = (s / 60) % 60, sec = s % 60;
	char frac[8] = "";
	if (rest_ms)
		snprintf(frac, sizeof(frac), ".%03llu", (unsigned long long)rest_ms);
	if (h)
		snprintf(buf, len, "%lluh%02llum%02llu%ss", (unsigned long long)h,
			 (unsigned long long)m, (unsigned long long)sec, frac);
	else if (m)
		snprintf(buf, len, "%llum%02llu%ss", (unsigned long long)m, (unsigned long long)sec,
			 frac);
	else
		snprintf(buf, len, "%llu%ss", (unsigned long long)sec, frac);
}

int cm_parse_size_bytes(const char *text, uint64_t *bytes, char *why, size_t why_len)
{
	const char *p = text;
	uint64_t v = 0;
	if (!(*p >= '0' && *p <= '9'))
		return fail(why, why_len, BAD_SIZE, text);
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			return fail(why, why_len, BAD_SIZE, text);
		v = v * 10 + (uint64_t)(*p - '0');
		p++;
	}
	unsigned shift = 0;
	switch (*p) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case 't':
	case 'T':
		shift = 40;
		break;
	case '\0':
		break;
	default:
		return fail(why, why_len, BAD_SIZE, text);
	}
	if (shift) {
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B") || !strcmp(p, "ib") || !strcmp(p, "b"))
			p += strlen(p);
	}
	if (*p || (shift && v > (UINT64_MAX >> shift)))
		return fail(why, why_len, BAD_SIZE, text);
	*bytes = v << shift;
	if (*bytes == 0)
		return fail(why, why_len, "size '%s' is zero", text);
	return 0;
}

void cm_format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char units[] = "KMGT";
	int u = -1;
	uint64_t v = bytes;
	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
}

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double cm_mono_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

double cm_wall_s(void)
{
	return clock_s(CLOCK_REALTIME);
}

void cm_format_utc(char *buf, size_t len, double wall)
{
	time_t s = (time_t)floor(wall);
	int ms = (int)floor((wall - (double)s) * 1000.0);
	if (ms > 999)
		ms = 999;
	struct tm tm;
	gmtime_r(&s, &tm);
	char base[32];
	strftime(base, sizeof(base), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", base, ms);
}

static int digits(const char **p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v;
}

double cm_parse_rfc3339(const char *s)
{
	if (!s)
		return NAN;
	const char *p = s;
	struct tm tm = {0};
	int y = digits(&p, 4);
	if (y < 0 || *p++ != '-')
		return NAN;
	int mo = digits(&p, 2);
	if (mo < 1 || mo > 12 || *p++ != '-')
		return NAN;
	int d = digits(&p, 2);
	if (d < 1 || d > 31 || (*p != 'T' && *p != 't' && *p != ' '))
		return NAN;
	p++;
	int h = digits(&p, 2);
	if (h < 0 || h > 23 || *p++ != ':')
		return NAN;
	int mi = digits(&p, 2);
	if (mi < 0 || mi > 59)
		return NAN;
	int sec = 0;
	if (*p == ':') {
		p++;
		sec = digits(&p, 2);
		if (sec < 0 || sec > 60)
			return NAN;
	}
	double frac = 0, scale = 0.1;
	if (*p == '.' || *p == ',') {
		p++;
		if (*p < '0' || *p > '9')
			return NAN;
		while (*p >= '0' && *p <= '9') {
			frac += (*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	long off_s = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p == '-' ? -1 : 1;
		p++;
		int oh = digits(&p, 2);
		if (oh < 0)
			return NAN;
		if (*p == ':')
			p++;
		int om = 0;
		if (*p >= '0' && *p <= '9')
			om = digits(&p, 2);
		if (om < 0)
			return NAN;
		off_s = sign * (oh * 3600L + om * 60L);
	}
	if (*p != '\0')
		return NAN;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	time_t t = timegm(&tm);
	return (double)t - (double)off_s + frac;
}

int cm_sleep_ms(uint64_t ms, volatile int *stop)
{
	double end = cm_mono_s() + (double)ms / 1000.0;
	for (;;) {
		if (stop && *stop)
			return 1;
		double left = end - cm_mono_s();
		if (left <= 0)
			return 0;
		int chunk = left > 0.1 ? 100 : (int)(left * 1000.0) + 1;
		poll(NULL, 0, chunk);
	}
}
