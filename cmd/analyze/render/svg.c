/* SPDX-License-Identifier: MIT */
/*
 * Drawing primitives of the charts: escaped text, numbers that do not
 * depend on the locale, markers, colours that survive greyscale and
 * colour-blindness, nice axis ticks, min/max decimation.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"

/* ---- text --------------------------------------------------------------------- */

#define REPLACEMENT "\xef\xbf\xbd" /* U+FFFD */

/* The code point of the well-formed UTF-8 sequence at s (len bytes). */
static unsigned decode(const unsigned char *s, size_t len)
{
	if (len == 1)
		return s[0];
	if (len == 2)
		return (s[0] & 0x1fu) << 6 | (s[1] & 0x3fu);
	if (len == 3)
		return (s[0] & 0x0fu) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
	return (s[0] & 0x07u) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 | (s[3] & 0x3fu);
}

static size_t seq_len(unsigned char c)
{
	return c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
}

void an_xml_escape(struct cm_buf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t ok = cm_utf8_valid_len(s + i, n - i);
		size_t end = i + ok;
		while (i < end) {
			const unsigned char *p = (const unsigned char *)s + i;
			size_t len = seq_len(*p);
			unsigned cp = decode(p, len);
			switch (cp) {
			case '&':
				cm_buf_puts(b, "&amp;");
				break;
			case '<':
				cm_buf_puts(b, "&lt;");
				break;
			case '>':
				cm_buf_puts(b, "&gt;");
				break;
			case '"':
				cm_buf_puts(b, "&quot;");
				break;
			case '\'':
				cm_buf_puts(b, "&#39;");
				break;
			case '\t':
			case '\n':
			case '\r':
				cm_buf_putc(b, ' '); /* labels are one line */
				break;
			default:
				if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0xfffe ||
				    cp == 0xffff)
					cm_buf_puts(b, REPLACEMENT);
				else
					cm_buf_putn(b, (const char *)p, len);
			}
			i += len;
		}
		if (i < n) { /* a byte that starts no well-formed sequence */
			cm_buf_puts(b, REPLACEMENT);
			i++;
		}
	}
}

void an_xml_puts(struct cm_buf *b, const char *s)
{
	an_xml_escape(b, s, strlen(s));
}

/* v rounded to tenths, written with digits only: no locale can change it. */
static void put_tenths(struct cm_buf *b, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v > 1e12)
		v = 1e12;
	if (v < -1e12)
		v = -1e12;
	long long t = llround(v * 10);
	if (t < 0) {
		cm_buf_putc(b, '-');
		t = -t;
	}
	cm_buf_printf(b, "%lld", t / 10);
	if (t % 10)
		cm_buf_printf(b, ".%lld", t % 10);
}

void an_svg_put(struct cm_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			size_t n = strcspn(p, "%");
			cm_buf_putn(b, p, n);
			p += n - 1;
			continue;
		}
		switch (*++p) {
		case 'v':
			put_tenths(b, va_arg(ap, double));
			break;
		case 's':
			cm_buf_puts(b, va_arg(ap, const char *));
			break;
		case 'e':
			an_xml_puts(b, va_arg(ap, const char *));
			break;
		case 'z':
			cm_buf_printf(b, "%zu", va_arg(ap, size_t));
			break;
		case '%':
			cm_buf_putc(b, '%');
			break;
		default: /* a mistake in our own format string */
			cm_die("an_svg_put: unknown conversion %%%c", *p ? *p : '0');
		}
		if (!*p)
			break;
	}
	va_end(ap);
}

bool an_svg_clip(struct cm_buf *out, const char *s, size_t max_cols)
{
	size_t n = strlen(s);
	if (an_text_width(s, n) <= max_cols || max_cols < 2) {
		cm_buf_puts(out, s);
		return false;
	}
	const char *p = s;
	for (size_t cols = 0; *p && cols + 1 < max_cols; cols++) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
	}
	cm_buf_putn(out, s, (size_t)(p - s));
	cm_buf_puts(out, "\xe2\x80\xa6"); /* … */
	return true;
}

double an_svg_text_px(const char *s, double px)
{
	/* DejaVu Sans: digits and most lower-case letters are 0.55-0.64 em */
	return (double)an_text_width(s, strlen(s)) * px * 0.62;
}

/* ---- colours, shapes, dashes --------------------------------------------------- */

const char an_svg_fonts[] = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";

/* Okabe & Ito (2008), yellow last: it is faint on white. */
static const char *const colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
				      "#E69F00", "#56B4E9", "#000000", "#F0E442"};

const char *an_svg_colour(size_t i)
{
	return colours[i % CM_ARRAY_SIZE(colours)];
}

enum an_shape an_svg_shape(size_t i)
{
	return (enum an_shape)(i % AN_SHAPE_COUNT);
}

static const char *const dashes[] = {"", "7 3", "2 2.5", "9 3 2 3", "4 4", "1.5 4"};

const char *an_svg_dash(size_t i)
{
	return dashes[i % CM_ARRAY_SIZE(dashes)];
}

void an_svg_marker(struct cm_buf *b, enum an_shape shape, double x, double y, double r,
		   const char *attrs, const char *title)
{
	double h = r * 0.886; /* squares and triangles as heavy as the circle */
	const char *sp = *attrs ? " " : "";
	switch (shape) {
	case AN_SHAPE_CIRCLE:
		an_svg_put(b, "<circle cx=\"%v\" cy=\"%v\" r=\"%v\"%s%s", x, y, r, sp, attrs);
		break;
	case AN_SHAPE_SQUARE:
		an_svg_put(b, "<rect x=\"%v\" y=\"%v\" width=\"%v\" height=\"%v\"%s%s", x - h,
			   y - h, 2 * h, 2 * h, sp, attrs);
		break;
	case AN_SHAPE_TRIANGLE:
		an_svg_put(b, "<path d=\"M%v %vL%v %vL%v %vZ\"%s%s", x, y - 1.15 * r, x + r,
			   y + 0.7 * r, x - r, y + 0.7 * r, sp, attrs);
		break;
	case AN_SHAPE_TRIANGLE_DOWN:
		an_svg_put(b, "<path d=\"M%v %vL%v %vL%v %vZ\"%s%s", x, y + 1.15 * r, x + r,
			   y - 0.7 * r, x - r, y - 0.7 * r, sp, attrs);
		break;
	case AN_SHAPE_DIAMOND:
		an_svg_put(b, "<path d=\"M%v %vL%v %vL%v %vL%v %vZ\"%s%s", x, y - 1.25 * r,
			   x + 1.25 * r, y, x, y + 1.25 * r, x - 1.25 * r, y, sp, attrs);
		break;
	default: { /* a plus sign, drawn as a filled outline */
		double t = r * 0.38;
		an_svg_put(b, "<path d=\"M%v %vH%vV%vH%vV%vH%vV%vH%vV%vH%vV%vZ\"%s%s", x - t, y - r,
			   x + t, y - t, x + r, y + t, x + t, y + r, x - t, y + t, x - r, y - t, sp,
			   attrs);
		break;
	}
	}
	if (title)
		an_svg_put(b, "><title>%e</title></%s>\n", title,
			   shape == AN_SHAPE_CIRCLE   ? "circle"
			   : shape == AN_SHAPE_SQUARE ? "rect"
						      : "path");
	else
		cm_buf_puts(b, "/>\n");
}

/* ---- axes ---------------------------------------------------------------------- */

size_t an_nice_ticks(double lo, double hi, size_t want, double *step, double *ticks, size_t cap)
{
	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		lo = hi = 0;
	if (hi == lo)
		hi = lo + (lo == 0 ? 1 : fabs(lo) * 0.1);
	if (want < 2)
		want = 2;
	double raw = (hi - lo) / (double)want;
	double mag = pow(10, floor(log10(raw)));
	static const double steps[] = {1, 2, 2.5, 5, 10};
	double s = 10 * mag;
	for (size_t i = 0; i < CM_ARRAY_SIZE(steps); i++) {
		if (steps[i] * mag >= raw * 0.999) {
			s = steps[i] * mag;
			break;
		}
	}
	*step = s;
	double first = floor(lo / s + 1e-9) * s;
	size_t n = 0;
	for (double k = 0; n < cap; k++) {
		double v = first + k * s;
		if (fabs(v) < s * 1e-9)
			v = 0; /* not -0 or 1e-17 */
		ticks[n++] = v;
		if (v >= hi - s * 1e-9)
			break;
	}
	return n;
}

void an_fmt_tick(char *buf, size_t len, double v, double step)
{
	double a = fabs(v);
	double scale = 1;
	const char *suffix = "";
	if (a >= 1e9) {
		scale = 1e9;
		suffix = "G";
	} else if (a >= 1e6) {
		scale = 1e6;
		suffix = "M";
	} else if (a >= 1e3) {
		scale = 1e3;
		suffix = "k";
	}
	/* as many decimals as a multiple of the step needs: 0.25 two, 2.5 one */
	double s = fabs(step / scale);
	int decimals = 0;
	while (decimals < 6 && s > 0 && fabs(s - round(s)) > 1e-9 * (s > 1 ? s : 1)) {
		s *= 10;
		decimals++;
	}
	snprintf(buf, len, "%.*f", decimals, v / scale);
	/* 1.50k -> 1.5k, 2.00k -> 2k */
	char *dot = strchr(buf, '.');
	if (dot) {
		char *end = buf + strlen(buf);
		while (end > dot + 1 && end[-1] == '0')
			*--end = '\0';
		if (end == dot + 1)
			*dot = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, len, "0");
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, "%s", suffix);
}

size_t an_decimate_minmax(const double *v, size_t n, size_t columns, size_t *out)
{
	if (columns == 0)
		return 0;
	if (n <= 2 * columns) {
		for (size_t i = 0; i < n; i++)
			out[i] = isfinite(v[i]) ? i : SIZE_MAX;
		return n;
	}
	size_t k = 0;
	for (size_t c = 0; c < columns; c++) {
		size_t from = c * n / columns, to = (c + 1) * n / columns;
		size_t lo = SIZE_MAX, hi = SIZE_MAX;
		for (size_t i = from; i < to; i++) {
			if (!isfinite(v[i]))
				continue;
			if (lo == SIZE_MAX || v[i] < v[lo])
				lo = i;
			if (hi == SIZE_MAX || v[i] > v[hi])
				hi = i;
		}
		if (lo == SIZE_MAX) {
			out[k++] = SIZE_MAX;
		} else if (lo == hi) {
			out[k++] = lo;
		} else {
			out[k++] = lo < hi ? lo : hi;
			out[k++] = lo < hi ? hi : lo;
		}
	}
	return k;
}
