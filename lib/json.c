/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fj_init(struct fc_json *j, const char *start, const char *end, const char *source,
	     unsigned long line)
{
	memset(j, 0, sizeof(*j));
	j->origin = start;
	j->origin_line = line;
	j->p = start;
	j->end = end;
	j->source = source;
}

void fj_release(struct fc_json *j)
{
	free(j->scratch);
	free(j->keybuf);
	j->scratch = j->keybuf = NULL;
	j->scratch_cap = j->keybuf_cap = 0;
}

static bool vfail(struct fc_json *j, int status, bool eof, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static bool vfail(struct fc_json *j, int status, bool eof, const char *fmt, va_list ap)
{
	if (j->status)
		return false;
	j->status = status;
	j->eof = eof;
	j->err_pos = j->p;
	vsnprintf(j->err_msg, sizeof(j->err_msg), fmt, ap);
	return false;
}

bool fj_fail(struct fc_json *j, int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(j, status, false, fmt, ap);
	va_end(ap);
	return false;
}

static bool fail_eof(struct fc_json *j, const char *fmt, ...) FC_PRINTF(2, 3);
static bool fail_eof(struct fc_json *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(j, FC_E_SYNTAX, true, fmt, ap);
	va_end(ap);
	return false;
}

static bool fail_syntax(struct fc_json *j, const char *fmt, ...) FC_PRINTF(2, 3);
static bool fail_syntax(struct fc_json *j, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(j, FC_E_SYNTAX, false, fmt, ap);
	va_end(ap);
	return false;
}

int fj_error(const struct fc_json *j, struct fc_error *err)
{
	const char *pos = j->err_pos ? j->err_pos : j->p;
	unsigned long line = j->origin_line;
	const char *ls = j->origin;
	for (const char *q = j->origin; q < pos;) {
		const char *nl = memchr(q, '\n', (size_t)(pos - q));
		if (!nl)
			break;
		line++;
		ls = nl + 1;
		q = nl + 1;
	}
	return fc_err(err, j->status ? j->status : FC_E_SYNTAX, j->source, line,
		      (unsigned long)(pos - ls) + 1, "%s", j->err_msg);
}

static inline void skip_ws(struct fc_json *j)
{
	const char *p = j->p, *end = j->end;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	j->p = p;
}

/* Describes the byte at p for messages. */
static const char *found(const struct fc_json *j, char *buf, size_t len)
{
	unsigned char c = (unsigned char)*j->p;
	if (c >= 0x21 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static bool is_delim(const struct fc_json *j, const char *q)
{
	if (q >= j->end)
		return true;
	switch (*q) {
	case ' ':
	case '\t':
	case '\n':
	case '\r':
	case ',':
	case '}':
	case ']':
		return true;
	default:
		return false;
	}
}

static bool word_at(const struct fc_json *j, const char *q, const char *w, size_t n, bool nocase)
{
	if ((size_t)(j->end - q) < n)
		return false;
	return nocase ? strncasecmp(q, w, n) == 0 : memcmp(q, w, n) == 0;
}

enum fj_type fj_peek(struct fc_json *j)
{
	if (j->status)
		return FJ_ERROR;
	skip_ws(j);
	if (j->p >= j->end) {
		fail_eof(j, "input ends where a value was expected");
		return FJ_ERROR;
	}
	const char *p = j->p;
	switch (*p) {
	case '{':
		return FJ_OBJECT;
	case '[':
		return FJ_ARRAY;
	case '"':
		return FJ_STRING;
	case 't':
		return FJ_TRUE;
	case 'f':
		return FJ_FALSE;
	case 'n':
		return word_at(j, p, "null", 4, false) ? FJ_NULL : FJ_NUMBER;
	case '-':
	case 'i':
	case 'I':
	case 'N':
		return FJ_NUMBER;
	default:
		if (*p >= '0' && *p <= '9')
			return FJ_NUMBER;
	}
	char b[16];
	fail_syntax(j, "expected a value, found %s", found(j, b, sizeof(b)));
	return FJ_ERROR;
}

static bool enter(struct fc_json *j)
{
	if (j->depth >= FJ_MAX_DEPTH)
		return fj_fail(j, FC_E_LIMIT, "nesting deeper than %d levels", FJ_MAX_DEPTH);
	j->p++;
	j->depth++;
	j->first[j->depth] = true;
	return true;
}

bool fj_object_begin(struct fc_json *j)
{
	enum fj_type t = fj_peek(j);
	if (t == FJ_ERROR)
		return false;
	if (t != FJ_OBJECT) {
		char b[16];
		return fail_syntax(j, "expected an object, found %s", found(j, b, sizeof(b)));
	}
	return enter(j);
}

bool fj_array_begin(struct fc_json *j)
{
	enum fj_type t = fj_peek(j);
	if (t == FJ_ERROR)
		return false;
	if (t != FJ_ARRAY) {
		char b[16];
		return fail_syntax(j, "expected an array, found %s", found(j, b, sizeof(b)));
	}
	return enter(j);
}

static bool read_string(struct fc_json *j, struct fj_str *s);

bool fj_object_next(struct fc_json *j, struct fj_str *key)
{
	if (j->status)
		return false;
	skip_ws(j);
	if (j->p >= j->end)
		return fail_eof(j, "input ends inside an object");
	char b[16];
	if (*j->p == '}') {
		j->p++;
		j->depth--;
		return false;
	}
	if (!j->first[j->depth]) {
		if (*j->p != ',')
			return fail_syntax(j, "expected ',' or '}' in an object, found %s",
					   found(j, b, sizeof(b)));
		j->p++;
		skip_ws(j);
		if (j->p >= j->end)
			return fail_eof(j, "input ends inside an object");
	}
	j->first[j->depth] = false;
	if (*j->p != '"')
		return fail_syntax(j, "expected a member name in quotes, found %s",
				   found(j, b, sizeof(b)));
	if (!read_string(j, key))
		return false;
	if (key->len && key->p == j->scratch) {
		/* keep the name valid while a string value is unescaped */
		if (key->len > j->keybuf_cap) {
			char *n = realloc(j->keybuf, key->len);
			if (!n)
				return fj_fail(j, FC_E_NOMEM, "out of memory");
			j->keybuf = n;
			j->keybuf_cap = key->len;
		}
		memcpy(j->keybuf, key->p, key->len);
		key->p = j->keybuf;
	}
	skip_ws(j);
	if (j->p >= j->end)
		return fail_eof(j, "input ends after a member name");
	if (*j->p != ':')
		return fail_syntax(j, "expected ':' after a member name, found %s",
				   found(j, b, sizeof(b)));
	j->p++;
	return true;
}

bool fj_array_next(struct fc_json *j)
{
	if (j->status)
		return false;
	skip_ws(j);
	if (j->p >= j->end)
		return fail_eof(j, "input ends inside an array");
	if (*j->p == ']') {
		j->p++;
		j->depth--;
		return false;
	}
	if (!j->first[j->depth]) {
		if (*j->p != ',') {
			char b[16];
			return fail_syntax(j, "expected ',' or ']' in an array, found %s",
					   found(j, b, sizeof(b)));
		}
		j->p++;
	}
	j->first[j->depth] = false;
	return true;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool scratch_reserve(struct fc_json *j, size_t need)
{
	if (need <= j->scratch_cap)
		return true;
	size_t cap = j->scratch_cap ? j->scratch_cap : 256;
	while (cap < need)
		cap *= 2;
	char *n = realloc(j->scratch, cap);
	if (!n)
		return fj_fail(j, FC_E_NOMEM, "out of memory");
	j->scratch = n;
	j->scratch_cap = cap;
	return true;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | (cp >> 18));
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static bool read_hex4(struct fc_json *j, const char *q, unsigned *out)
{
	if (j->end - q < 4)
		return fail_eof(j, "input ends inside a \\u escape");
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int h = hexval(q[i]);
		if (h < 0) {
			j->p = q + i;
			return fail_syntax(j, "expected 4 hex digits after \\u");
		}
		v = v * 16 + (unsigned)h;
	}
	*out = v;
	return true;
}

/* At '"'.  Raw control bytes are kept: fio escapes only '\' and '"'. */
static bool read_string(struct fc_json *j, struct fj_str *s)
{
	const char *start = j->p + 1, *end = j->end;
	const char *q = start;
	while (q < end && *q != '"' && *q != '\\')
		q++;
	if (q >= end) {
		j->p = end;
		return fail_eof(j, "input ends inside a string");
	}
	if (*q == '"') {
		s->p = start;
		s->len = (size_t)(q - start);
		j->p = q + 1;
		return true;
	}
	/* Escapes: unescaped text is never longer than the source. */
	size_t o = 0;
	q = start;
	for (;;) {
		const char *r = q;
		while (r < end && *r != '"' && *r != '\\')
			r++;
		if (r >= end) {
			j->p = end;
			return fail_eof(j, "input ends inside a string");
		}
		if (!scratch_reserve(j, o + (size_t)(r - q) + 8))
			return false;
		memcpy(j->scratch + o, q, (size_t)(r - q));
		o += (size_t)(r - q);
		if (*r == '"') {
			j->p = r + 1;
			break;
		}
		if (r + 1 >= end) {
			j->p = end;
			return fail_eof(j, "input ends inside a string");
		}
		char c = r[1];
		q = r + 2;
		switch (c) {
		case '"':
		case '\\':
		case '/':
			j->scratch[o++] = c;
			break;
		case 'b':
			j->scratch[o++] = '\b';
			break;
		case 'f':
			j->scratch[o++] = '\f';
			break;
		case 'n':
			j->scratch[o++] = '\n';
			break;
		case 'r':
			j->scratch[o++] = '\r';
			break;
		case 't':
			j->scratch[o++] = '\t';
			break;
		case 'u': {
			unsigned cp = 0;
			if (!read_hex4(j, q, &cp))
				return false;
			q += 4;
			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned lo = 0;
				if (end - q >= 6 && q[0] == '\\' && q[1] == 'u' &&
				    read_hex4(j, q + 2, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					q += 6;
				} else {
					if (j->status)
						return false;
					cp = 0xfffd;
				}
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				cp = 0xfffd;
			}
			o += put_utf8(j->scratch + o, cp);
			break;
		}
		default:
			j->p = r;
			return fail_syntax(j, "invalid escape '\\%c' in a string",
					   (unsigned char)c >= 0x20 && c != 0x7f ? c : '?');
		}
	}
	s->p = j->scratch;
	s->len = o;
	return true;
}

bool fj_string(struct fc_json *j, struct fj_str *s)
{
	enum fj_type t = fj_peek(j);
	if (t == FJ_ERROR)
		return false;
	if (t != FJ_STRING) {
		char b[16];
		return fail_syntax(j, "expected a string, found %s", found(j, b, sizeof(b)));
	}
	return read_string(j, s);
}

/* Scans a number token; sets *tok_end.  Accepts nan, inf, infinity. */
static bool scan_number(struct fc_json *j, const char **tok_end, struct fj_num *n)
{
	const char *p = j->p, *end = j->end, *q = p;
	bool neg = false;
	if (q < end && *q == '-') {
		neg = true;
		q++;
	}
	if (q < end && (*q == 'n' || *q == 'N' || *q == 'i' || *q == 'I')) {
		if (word_at(j, q, "nan", 3, true)) {
			q += 3;
			n->d = NAN;
		} else if (word_at(j, q, "infinity", 8, true)) {
			q += 8;
			n->d = neg ? -INFINITY : INFINITY;
		} else if (word_at(j, q, "inf", 3, true)) {
			q += 3;
			n->d = neg ? -INFINITY : INFINITY;
		} else {
			return fail_syntax(j, "invalid number");
		}
		if (!is_delim(j, q))
			return fail_syntax(j, "invalid number");
		n->is_int = false;
		n->i = 0;
		*tok_end = q;
		return true;
	}
	const char *digits = q;
	uint64_t v = 0;
	int nd = 0;
	while (q < end && *q >= '0' && *q <= '9') {
		if (nd < 19)
			v = v * 10 + (uint64_t)(*q - '0');
		nd++;
		q++;
	}
	if (q == digits) {
		if (q >= end)
			return fail_eof(j, "input ends inside a number");
		return fail_syntax(j, "invalid number");
	}
	bool integral = true;
	if (q < end && *q == '.') {
		integral = false;
		q++;
		const char *f = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == f)
			return q >= end ? fail_eof(j, "input ends inside a number")
					: fail_syntax(j, "expected digits after '.'");
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		integral = false;
		q++;
		if (q < end && (*q == '+' || *q == '-'))
			q++;
		const char *e = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == e)
			return q >= end ? fail_eof(j, "input ends inside a number")
					: fail_syntax(j, "expected digits in an exponent");
	}
	if (!is_delim(j, q)) {
		j->p = q;
		return fail_syntax(j, "invalid character in a number");
	}
	*tok_end = q;
	if (integral && nd <= 18) {
		n->is_int = true;
		n->i = neg ? -(int64_t)v : (int64_t)v;
		n->d = (double)n->i;
		return true;
	}
	bool ok;
	n->d = fc_parse_double(p, (size_t)(q - p), &ok);
	if (!ok)
		return fail_syntax(j, "invalid number");
	n->is_int = integral && nd == 19 && v <= (uint64_t)INT64_MAX;
	n->i = n->is_int ? (neg ? -(int64_t)v : (int64_t)v) : 0;
	return true;
}

bool fj_number(struct fc_json *j, struct fj_num *n)
{
	enum fj_type t = fj_peek(j);
	if (t == FJ_ERROR)
		return false;
	if (t != FJ_NUMBER) {
		char b[16];
		return fail_syntax(j, "expected a number, found %s", found(j, b, sizeof(b)));
	}
	const char *e = NULL;
	if (!scan_number(j, &e, n))
		return false;
	j->p = e;
	return true;
}

static bool literal(struct fc_json *j, const char *w, size_t len)
{
	if (!word_at(j, j->p, w, len, false)) {
		if ((size_t)(j->end - j->p) < len && memcmp(j->p, w, (size_t)(j->end - j->p)) == 0)
			return fail_eof(j, "input ends inside '%s'", w);
		return fail_syntax(j, "expected '%s'", w);
	}
	if (!is_delim(j, j->p + len))
		return fail_syntax(j, "expected '%s'", w);
	j->p += len;
	return true;
}

bool fj_scalar_text(struct fc_json *j, struct fj_str *s)
{
	const char *start;
	switch (fj_peek(j)) {
	case FJ_STRING:
		return read_string(j, s);
	case FJ_NUMBER: {
		struct fj_num n;
		start = j->p;
		if (!fj_number(j, &n))
			return false;
		break;
	}
	case FJ_TRUE:
		start = j->p;
		if (!literal(j, "true", 4))
			return false;
		break;
	case FJ_FALSE:
		start = j->p;
		if (!literal(j, "false", 5))
			return false;
		break;
	case FJ_NULL:
		start = j->p;
		if (!literal(j, "null", 4))
			return false;
		break;
	case FJ_ERROR:
		return false;
	default:
		return fail_syntax(j, "expected a string or number, found an %s",
				   *j->p == '{' ? "object" : "array");
	}
	s->p = start;
	s->len = (size_t)(j->p - start);
	return true;
}

bool fj_skip(struct fc_json *j)
{
	struct fj_str s;
	struct fj_num n;
	switch (fj_peek(j)) {
	case FJ_OBJECT:
		if (!fj_object_begin(j))
			return false;
		while (fj_object_next(j, &s))
			if (!fj_skip(j))
				return false;
		return j->status == 0;
	case FJ_ARRAY:
		if (!fj_array_begin(j))
			return false;
		while (fj_array_next(j))
			if (!fj_skip(j))
				return false;
		return j->status == 0;
	case FJ_STRING:
		return read_string(j, &s);
	case FJ_NUMBER:
		return fj_number(j, &n);
	case FJ_TRUE:
		return literal(j, "true", 4);
	case FJ_FALSE:
		return literal(j, "false", 5);
	case FJ_NULL:
		return literal(j, "null", 4);
	case FJ_ERROR:
	default:
		return false;
	}
}
