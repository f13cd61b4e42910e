/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- arena ------------------------------------------------------------- */

struct fc_arena_chunk {
	struct fc_arena_chunk *next;
	max_align_t data[];
};

#define ARENA_ALIGN (sizeof(max_align_t))

void fc_arena_init(struct fc_arena *a, size_t first_chunk)
{
	a->head = NULL;
	a->used = 0;
	a->cap = 0;
	a->chunk = first_chunk ? first_chunk : 4096;
	a->limit = a->charged = 0;
	a->over_limit = false;
}

bool fc_arena_charge(struct fc_arena *a, size_t bytes)
{
	if (a->limit && bytes > a->limit - a->charged) {
		a->over_limit = true;
		return false;
	}
	a->charged += bytes;
	return true;
}

void *fc_arena_alloc(struct fc_arena *a, size_t size)
{
	size_t need = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	if (need < size)
		return NULL;
	if (!a->head || a->cap - a->used < need) {
		size_t cap = a->chunk;
		while (cap < need) {
			if (cap > SIZE_MAX / 2)
				return NULL;
			cap *= 2;
		}
		if (!fc_arena_charge(a, sizeof(struct fc_arena_chunk) + cap))
			return NULL;
		struct fc_arena_chunk *c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->next = a->head;
		a->head = c;
		a->used = 0;
		a->cap = cap;
		if (a->chunk < (1u << 20))
			a->chunk *= 2;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += need;
	return p;
}

void *fc_arena_calloc(struct fc_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	void *p = fc_arena_alloc(a, n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *fc_arena_memdup(struct fc_arena *a, const void *p, size_t size)
{
	void *q = fc_arena_alloc(a, size ? size : 1);
	if (q && size)
		memcpy(q, p, size);
	return q;
}

char *fc_arena_strndup(struct fc_arena *a, const char *s, size_t len)
{
	if (len == SIZE_MAX)
		return NULL;
	char *q = fc_arena_alloc(a, len + 1);
	if (!q)
		return NULL;
	memcpy(q, s, len);
	q[len] = '\0';
	return q;
}

char *fc_arena_strdup(struct fc_arena *a, const char *s)
{
	return fc_arena_strndup(a, s, strlen(s));
}

void fc_arena_release(struct fc_arena *a)
{
	struct fc_arena_chunk *c = a->head;
	while (c) {
		struct fc_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
	a->used = a->cap = a->charged = 0;
}

/* ---- vector ------------------------------------------------------------ */

void fc_vec_init(struct fc_vec *v, size_t elem_size, size_t max_elems)
{
	v->data = NULL;
	v->n = v->cap = 0;
	v->elem_size = elem_size;
	v->max_elems = max_elems ? max_elems : SIZE_MAX / elem_size;
	v->budget = NULL;
}

void *fc_vec_push(struct fc_vec *v)
{
	if (v->n >= v->max_elems)
		return NULL;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 16;
		if (cap > v->max_elems)
			cap = v->max_elems;
		if (cap > SIZE_MAX / v->elem_size)
			return NULL;
		if (v->budget && !fc_arena_charge(v->budget, (cap - v->cap) * v->elem_size))
			return NULL;
		void *d = realloc(v->data, cap * v->elem_size);
		if (!d)
			return NULL;
		v->data = d;
		v->cap = cap;
	}
	void *p = (char *)v->data + v->n * v->elem_size;
	memset(p, 0, v->elem_size);
	v->n++;
	return p;
}

void fc_vec_clear(struct fc_vec *v)
{
	v->n = 0;
}

void fc_vec_release(struct fc_vec *v)
{
	free(v->data);
	v->data = NULL;
	v->n = v->cap = 0;
}

/* ---- sorting ----------------------------------------------------------- */

struct sort_ctx {
	const char *items;
	size_t size;
	int (*cmp)(const void *, const void *);
};

static int cmp_position(const void *x, const void *y, void *arg)
{
	const struct sort_ctx *c = arg;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int r = c->cmp(c->items + i * c->size, c->items + j * c->size);
	if (r)
		return r;
	return (i > j) - (i < j);
}

size_t *fc_sort_index(const void *items, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx));
	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	struct sort_ctx c = {items, size, cmp};
	qsort_r(idx, n, sizeof(*idx), cmp_position, &c);
	return idx;
}

int fc_dedupe(void *items, size_t *n, size_t size, int (*cmp)(const void *, const void *))
{
	char *base = items;
	size_t count = *n;
	if (count < 2)
		return FC_OK;
	size_t *idx = fc_sort_index(items, count, size, cmp);
	bool *drop = calloc(count, sizeof(*drop));
	if (!idx || !drop) {
		free(idx);
		free(drop);
		return FC_E_NOMEM;
	}
	for (size_t i = 0; i < count;) {
		size_t j = i + 1;
		while (j < count && cmp(base + idx[i] * size, base + idx[j] * size) == 0)
			drop[idx[j++]] = true;
		/* positions ascend within the run: the first keeps its place */
		if (j - i > 1)
			memcpy(base + idx[i] * size, base + idx[j - 1] * size, size);
		i = j;
	}
	size_t m = 0;
	for (size_t i = 0; i < count; i++) {
		if (drop[i])
			continue;
		if (m != i)
			memcpy(base + m * size, base + i * size, size);
		m++;
	}
	free(idx);
	free(drop);
	*n = m;
	return FC_OK;
}

/* ---- errors ------------------------------------------------------------ */

static void err_fill(struct fc_error *err, enum fc_status code, const char *source, const char *fmt,
		     va_list ap) __attribute__((format(printf, 4, 0)));
static void err_fill(struct fc_error *err, enum fc_status code, const char *source, const char *fmt,
		     va_list ap)
{
	memset(err, 0, sizeof(*err));
	err->code = code;
	if (source)
		snprintf(err->source, sizeof(err->source), "%s", source);
	if (fmt)
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
}

int fc_err(struct fc_error *err, enum fc_status code, const char *source, unsigned long line,
	   unsigned long column, const char *fmt, ...)
{
	if (!err)
		return code;
	va_list ap;
	va_start(ap, fmt);
	err_fill(err, code, source, fmt, ap);
	va_end(ap);
	err->line = line;
	err->column = column;
	return code;
}

int fc_err_errno(struct fc_error *err, int errnum, const char *source, const char *what)
{
	if (errnum == ENOMEM)
		return fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
	fc_err(err, FC_E_IO, source, 0, 0, "%s: %s", what, strerror(errnum));
	if (err)
		err->sys_errno = errnum;
	return FC_E_IO;
}

void fc_err_clear(struct fc_error *err)
{
	if (err)
		memset(err, 0, sizeof(*err));
}

const char *fc_status_text(enum fc_status status)
{
	switch (status) {
	case FC_OK:
		return "ok";
	case FC_E_NOMEM:
		return "out of memory";
	case FC_E_IO:
		return "cannot read";
	case FC_E_NOT_FIO:
		return "not fio output";
	case FC_E_UNFINISHED:
		return "fio did not finish";
	case FC_E_SYNTAX:
		return "syntax error";
	case FC_E_FORMAT:
		return "unexpected format";
	case FC_E_LIMIT:
		return "input too large";
	case FC_E_INVAL:
		return "invalid argument";
	}
	return "unknown error";
}

int fc_error_format(const struct fc_error *err, char *buf, size_t len)
{
	const char *src = err->source[0] ? err->source : "(input)";
	const char *msg = err->message[0] ? err->message : fc_status_text(err->code);
	if (err->line && err->column)
		return snprintf(buf, len, "%s:%lu:%lu: %s", src, err->line, err->column, msg);
	if (err->line)
		return snprintf(buf, len, "%s:%lu: %s", src, err->line, msg);
	if (err->has_offset)
		return snprintf(buf, len, "%s: byte %llu: %s", src, err->offset, msg);
	return snprintf(buf, len, "%s: %s", src, msg);
}

/* ---- files ------------------------------------------------------------- */

int fc_read_file(const char *path, size_t max_bytes, char **bufp, size_t *lenp,
		 struct fc_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fc_err_errno(err, errno, path, "cannot open");
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return fc_err_errno(err, e, path, "cannot stat");
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return fc_err_errno(err, EISDIR, path, "cannot read");
	}
	size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
	if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max_bytes) {
		close(fd);
		return fc_err(err, FC_E_LIMIT, path, 0, 0,
			      "file has %lld bytes, more than the limit of %zu",
			      (long long)st.st_size, max_bytes);
	}
	char *buf = malloc(cap + 1);
	if (!buf) {
		close(fd);
		return fc_err(err, FC_E_NOMEM, path, 0, 0, "out of memory");
	}
	size_t len = 0;
	for (;;) {
		if (len == cap) {
			if (cap > max_bytes) {
				free(buf);
				close(fd);
				return fc_err(err, FC_E_LIMIT, path, 0, 0,
					      "input is larger than the limit of %zu bytes",
					      max_bytes);
			}
			/* one byte past the limit is enough to know */
			size_t ncap = cap > max_bytes / 2 ? max_bytes + 1 : cap * 2;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				close(fd);
				return fc_err(err, FC_E_NOMEM, path, 0, 0, "out of memory");
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			close(fd);
			return fc_err_errno(err, e, path, "cannot read");
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len > max_bytes) {
		free(buf);
		return fc_err(err, FC_E_LIMIT, path, 0, 0,
			      "input is larger than the limit of %zu bytes", max_bytes);
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return FC_OK;
}

/* ---- numbers ----------------------------------------------------------- */

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void c_locale_init(void)
{
	c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

static const double pow10_exact[] = {
    1e0,  1e1,	1e2,  1e3,  1e4,  1e5,	1e6,  1e7,  1e8,  1e9,	1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

double fc_parse_double(const char *s, size_t len, bool *ok)
{
	const char *p = s, *end = s + len;
	bool neg = false;
	*ok = false;
	if (p < end && (*p == '-' || *p == '+')) {
		neg = *p == '-';
		p++;
	}
	/*
	 * Fast path (Clinger): up to 19 significant digits whose value fits in
	 * 53 bits, scaled by an exact power of ten, rounds correctly with one
	 * multiplication or division.  Everything else goes to strtod_l.
	 */
	uint64_t mant = 0;
	int digits = 0, scale = 0;
	bool any = false, dropped = false;
	while (p < end && *p >= '0' && *p <= '9') {
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(*p - '0');
			if (mant)
				digits++;
		} else {
			scale++;
			dropped |= *p != '0';
		}
		any = true;
		p++;
	}
	if (p < end && *p == '.') {
		p++;
		while (p < end && *p >= '0' && *p <= '9') {
			if (digits < 19) {
				mant = mant * 10 + (uint64_t)(*p - '0');
				if (mant)
					digits++;
				scale--;
			} else {
				dropped |= *p != '0';
			}
			any = true;
			p++;
		}
	}
	if (!any)
		goto slow;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		bool eneg = false;
		if (p < end && (*p == '-' || *p == '+')) {
			eneg = *p == '-';
			p++;
		}
		int e = 0;
		bool edig = false;
		while (p < end && *p >= '0' && *p <= '9') {
			if (e < 10000)
				e = e * 10 + (*p - '0');
			edig = true;
			p++;
		}
		if (!edig)
			return NAN;
		scale += eneg ? -e : e;
	}
	if (p != end)
		goto slow;
	if (!dropped && mant <= (1ull << 53) && scale >= -22 && scale <= 22) {
		double d = (double)mant;
		d = scale >= 0 ? d * pow10_exact[scale] : d / pow10_exact[-scale];
		*ok = true;
		return neg ? -d : d;
	}
slow:;
	char tmp[128];
	char *heap = NULL, *t = tmp;
	if (len >= sizeof(tmp)) {
		heap = malloc(len + 1);
		if (!heap)
			return NAN;
		t = heap;
	}
	memcpy(t, s, len);
	t[len] = '\0';
	pthread_once(&c_locale_once, c_locale_init);
	char *stop = NULL;
	double d = c_locale ? strtod_l(t, &stop, c_locale) : strtod(t, &stop);
	*ok = stop == t + len && len > 0;
	free(heap);
	return *ok ? d : NAN;
}

bool fc_parse_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	if (len == 0 || len > 20)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

/* ---- messages ---------------------------------------------------------- */

void fc_quote(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;
	for (size_t i = 0; i < len && i < 40; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '\\') {
			dst[n++] = (char)c;
			continue;
		}
		dst[n++] = '\\';
		dst[n++] = 'x';
		dst[n++] = hex[c >> 4];
		dst[n++] = hex[c & 15];
	}
	if (len > 40) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = '\0';
}
