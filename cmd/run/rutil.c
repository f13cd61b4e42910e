/* SPDX-License-Identifier: MIT */
#include "rutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int rerr_set(struct rerr *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int rerr_errno(struct rerr *err, int errnum, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	size_t n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	return -1;
}

static void out_of_memory(void)
{
	fputs("fiocamp-run: out of memory\n", stderr);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory();
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *xvasprintf(size_t *len, const char *fmt, va_list ap) FCR_PRINTF(2, 0);

static char *xvasprintf(size_t *len, const char *fmt, va_list ap)
{
	char *p = NULL;
	int n = vasprintf(&p, fmt, ap);
	if (n < 0)
		out_of_memory();
	if (len)
		*len = (size_t)n;
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = xvasprintf(NULL, fmt, ap);
	va_end(ap);
	return p;
}

/* ---- sbuf --------------------------------------------------------------- */

static void sbuf_grow(struct sbuf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->s = xrealloc(b->s, cap);
	b->cap = cap;
}

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	sbuf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_add(struct sbuf *b, const char *s)
{
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	va_start(ap, fmt);
	char *p = xvasprintf(&n, fmt, ap);
	va_end(ap);
	sbuf_addn(b, p, n);
	free(p);
}

void sbuf_release(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *sbuf_take(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* ---- strv --------------------------------------------------------------- */

void strv_take(struct strv *l, char *s)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void strv_add(struct strv *l, const char *s)
{
	strv_take(l, xstrdup(s));
}

void strv_addf(struct strv *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strv_take(l, xvasprintf(NULL, fmt, ap));
	va_end(ap);
}

void strv_release(struct strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

/* ---- shell words -------------------------------------------------------- */

int shell_split(const char *text, struct strv *out, struct rerr *err)
{
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		struct sbuf w = {0};
		sbuf_addn(&w, "", 0);
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');
				if (!end) {
					sbuf_release(&w);
					strv_release(out);
					return rerr_set(err, "unterminated ' quote");
				}
				sbuf_addn(&w, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1] && strchr("\\\"$`", p[1]))
						p++;
					sbuf_addn(&w, p, 1);
					p++;
				}
				if (*p != '"') {
					sbuf_release(&w);
					strv_release(out);
					return rerr_set(err, "unterminated \" quote");
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					sbuf_release(&w);
					strv_release(out);
					return rerr_set(err, "backslash at the end");
				}
				sbuf_addn(&w, p + 1, 1);
				p += 2;
			} else {
				sbuf_addn(&w, p, 1);
				p++;
			}
		}
		strv_take(out, sbuf_take(&w));
	}
}

void shell_quote(struct sbuf *b, const char *word)
{
	bool plain = *word != '\0';
	for (const char *p = word; *p; p++) {
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_-./=:,+@%",
			    *p)) {
			plain = false;
			break;
		}
	}
	if (plain) {
		sbuf_add(b, word);
		return;
	}
	sbuf_add(b, "'");
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			sbuf_add(b, "'\\''");
		else
			sbuf_addn(b, p, 1);
	}
	sbuf_add(b, "'");
}

char *shell_join(char *const *argv)
{
	struct sbuf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sbuf_add(&b, " ");
		shell_quote(&b, argv[i]);
	}
	return sbuf_take(&b);
}

/* ---- durations and sizes ------------------------------------------------ */

int parse_duration_ms(const char *text, uint64_t *ms, struct rerr *err)
{
	const char *p = text;
	double total = 0;
	bool any = false;
	if (!*p)
		return rerr_set(err, "empty duration (expected e.g. 10s, 1m30s, 250ms)");
	while (*p) {
		/* digits with at most one '.'; strtod alone would take 1e3 and hex */
		size_t digits = strspn(p, "0123456789.");
		if (!digits || memchr(p, '.', digits) != memrchr(p, '.', digits))
			goto bad;
		char num[64];
		if (digits >= sizeof(num))
			goto bad;
		memcpy(num, p, digits);
		num[digits] = '\0';
		char *end;
		errno = 0;
		double v = strtod(num, &end);
		if (*end || errno || !isfinite(v))
			goto bad;
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
			goto bad;
		}
		total += v * unit_ms;
		any = true;
	}
	if (total > 366.0 * 86400000)
		return rerr_set(err, "duration '%s' is longer than a year", text);
	*ms = (uint64_t)llround(total);
	return 0;
bad:
	return rerr_set(err, "bad duration '%s' (expected e.g. 10s, 1m30s, 250ms)", text);
}

int parse_size_bytes(const char *text, uint64_t *bytes, struct rerr *err)
{
	const char *p = text;
	uint64_t v = 0;
	if (!(*p >= '0' && *p <= '9'))
		goto bad;
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			goto bad;
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
		goto bad;
	}
	if (shift) {
		p++;
		if (!strcmp(p, "iB") || !strcmp(p, "B") || !strcmp(p, "ib") || !strcmp(p, "b"))
			p += strlen(p);
	}
	if (*p)
		goto bad;
	if (shift && v > (UINT64_MAX >> shift))
		goto bad;
	*bytes = v << shift;
	if (*bytes == 0)
		return rerr_set(err, "size '%s' is zero", text);
	return 0;
bad:
	return rerr_set(err, "bad size '%s' (expected e.g. 4G, 64M, 512k)", text);
}

void format_duration(char *buf, size_t len, uint64_t ms)
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

void format_size(char *buf, size_t len, uint64_t bytes)
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

/* ---- clocks ------------------------------------------------------------- */

static double mono_start;

static double mono_raw(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void mono_init(void)
{
	mono_start = mono_raw();
}

double mono_now(void)
{
	return mono_raw() - mono_start;
}

double wall_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void format_utc(char *buf, size_t len, double wall)
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

double parse_utc(const char *text)
{
	struct tm tm = {0};
	int ms = 0;
	if (!text || sscanf(text, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
			    &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
		return NAN;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	time_t t = timegm(&tm);
	return (double)t + ms / 1000.0;
}

int sleep_ms_unless(uint64_t ms, volatile int *stop)
{
	double end = mono_now() + (double)ms / 1000.0;
	for (;;) {
		if (stop && *stop)
			return 1;
		double left = end - mono_now();
		if (left <= 0)
			return 0;
		int chunk = left > 0.1 ? 100 : (int)(left * 1000.0) + 1;
		poll(NULL, 0, chunk);
	}
}

/* ---- files -------------------------------------------------------------- */

int read_file(const char *path, size_t max, char **bufp, size_t *lenp, struct rerr *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rerr_errno(err, errno, "%s: cannot open", path);
	struct sbuf b = {0};
	sbuf_addn(&b, "", 0);
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			sbuf_release(&b);
			return rerr_errno(err, e, "%s: cannot read", path);
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max) {
			close(fd);
			sbuf_release(&b);
			return rerr_set(err, "%s: larger than %zu bytes", path, max);
		}
		sbuf_addn(&b, chunk, (size_t)n);
	}
	close(fd);
	if (lenp)
		*lenp = b.len;
	*bufp = sbuf_take(&b);
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_new(const char *path, const void *buf, size_t len, int flags, bool sync,
		     struct rerr *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return rerr_errno(err, errno, "%s: cannot create", path);
	if (write_all(fd, buf, len) < 0 || (sync && fsync(fd) < 0)) {
		int e = errno;
		close(fd);
		return rerr_errno(err, e, "%s: cannot write", path);
	}
	if (close(fd) < 0)
		return rerr_errno(err, errno, "%s: cannot write", path);
	return 0;
}

int write_file(const char *path, const void *buf, size_t len, bool replace, struct rerr *err)
{
	return write_new(path, buf, len, replace ? O_TRUNC : O_EXCL, true, err);
}

int write_file_nosync(const char *path, const void *buf, size_t len, struct rerr *err)
{
	return write_new(path, buf, len, O_EXCL, false, err);
}

int fsync_dir(const char *dir, struct rerr *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rerr_errno(err, errno, "%s: cannot open directory", dir);
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	if (rc < 0 && e != EINVAL)
		return rerr_errno(err, e, "%s: cannot sync directory", dir);
	return 0;
}

int write_file_atomic(const char *path, const void *buf, size_t len, struct rerr *err)
{
	char *tmp = xasprintf("%s.tmp", path);
	int rc = write_file(tmp, buf, len, true, err);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = rerr_errno(err, errno, "%s: cannot rename to %s", tmp, path);
	free(tmp);
	if (rc < 0)
		return rc;
	char *dir = path_dirname(path);
	rc = fsync_dir(dir, err);
	free(dir);
	return rc;
}

int mkdir_p(const char *path, struct rerr *err)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			rerr_errno(err, e, "%s: cannot create directory", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		rc = rerr_errno(err, errno, "%s: cannot create directory", p);
	free(p);
	return rc;
}

bool path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

char *path_stem(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), sl = strlen(suffix);
	if (n > sl && !strcmp(base + n - sl, suffix))
		n -= sl;
	return xstrndup(base, n);
}

bool name_is_safe(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (const char *p = s; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
	}
	return true;
}

size_t utf8_valid_len(const char *s, size_t n)
{
	/* the lead byte's mask, the value of the bits it keeps, the sequence's
	 * length and the smallest code point it may carry */
	static const struct {
		unsigned char mask, lead;
		size_t len;
		unsigned min;
	} forms[] = {{0xe0, 0xc0, 2, 0x80}, {0xf0, 0xe0, 3, 0x800}, {0xf8, 0xf0, 4, 0x10000}};
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t f = 0;
		while (f < FCR_ARRAY_SIZE(forms) && (p[i] & forms[f].mask) != forms[f].lead)
			f++;
		if (f == FCR_ARRAY_SIZE(forms) || n - i < forms[f].len)
			return i;
		unsigned cp = p[i] & (unsigned char)~forms[f].mask;
		for (size_t k = 1; k < forms[f].len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (p[i + k] & 0x3fu);
		}
		if (cp < forms[f].min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += forms[f].len;
	}
	return n;
}
