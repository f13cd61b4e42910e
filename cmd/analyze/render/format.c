/* SPDX-License-Identifier: MIT */
/* Numbers and CSV fields (spreadsheet dialects, RFC 4180 quoting), wrapped
 * and aligned text for the terminal, Markdown cells. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render/render.h"

void an_csv_field(struct cm_buf *b, const struct an_csv *c, const char *text)
{
	bool quote = false;
	for (const char *p = text; *p; p++) {
		if (*p == c->sep || *p == '"' || *p == '\r' || *p == '\n') {
			quote = true;
			break;
		}
	}
	if (!quote) {
		cm_buf_puts(b, text);
		return;
	}
	cm_buf_putc(b, '"');
	for (const char *p = text; *p; p++) {
		if (*p == '"')
			cm_buf_putc(b, '"');
		cm_buf_putc(b, *p);
	}
	cm_buf_putc(b, '"');
}

/* Room for "%.*f" of any double: 309 digits before the point. */
#define FIXED_MAX 400

/* "%.*f" in the C locale with the decimal mark swapped; "-0" made "0". */
static void fixed(char *buf, size_t len, double v, int decimals, char decimal)
{
	snprintf(buf, len, "%.*f", decimals, v);
	bool zero = true;
	for (const char *p = buf; *p; p++) {
		if (*p >= '1' && *p <= '9')
			zero = false;
	}
	if (zero && buf[0] == '-')
		memmove(buf, buf + 1, strlen(buf));
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = decimal;
}

void an_csv_number(struct cm_buf *b, const struct an_csv *c, double v, int decimals)
{
	if (!isfinite(v))
		return;
	char buf[FIXED_MAX];
	fixed(buf, sizeof(buf), v, decimals, c->decimal);
	an_csv_field(b, c, buf);
}

void an_fmt_short(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	double a = fabs(v);
	if (a >= 1e7)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else if (a >= 1e6)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else if (a >= 100)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.2f", v);
}

void an_fmt_pct(char *buf, size_t len, double pct)
{
	if (!isfinite(pct)) {
		buf[0] = '\0';
		return;
	}
	char num[FIXED_MAX];
	fixed(num, sizeof(num), pct, 1, '.');
	if (strcmp(num, "0.0") == 0)
		snprintf(buf, len, "0.0%%");
	else
		snprintf(buf, len, "%s%s%%", num[0] == '-' ? "" : "+", num);
}

size_t an_text_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

void an_wrap(FILE *f, const char *first, size_t indent, const char *text, int width)
{
	size_t max = width > 0 ? (size_t)width : 100;
	size_t col = strlen(first);
	fputs(first, f);
	const char *p = text;
	bool line_empty = true;
	while (*p) {
		if (*p == '\n') {
			fputc('\n', f);
			fprintf(f, "%*s", (int)indent, "");
			col = indent;
			line_empty = true;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		size_t n = strcspn(p, " \n");
		size_t w = an_text_width(p, n);
		if (!line_empty && col + 1 + w > max) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', f);
			col++;
		}
		/* a word longer than a line is broken */
		while (col + w > max && max > indent + 1) {
			size_t room = max - col, k = 0, cw = 0;
			while (k < n && cw < room) {
				k++;
				while (k < n && ((unsigned char)p[k] & 0xc0) == 0x80)
					k++;
				cw++;
			}
			fwrite(p, 1, k, f);
			fprintf(f, "\n%*s", (int)indent, "");
			p += k;
			n -= k;
			w = an_text_width(p, n);
			col = indent;
		}
		fwrite(p, 1, n, f);
		col += w;
		line_empty = false;
		p += n;
	}
	fputc('\n', f);
}

size_t an_str_width(const char *s)
{
	return an_text_width(s, strlen(s));
}

/* Right-aligns `s` in `w` columns (UTF-8 aware). */
void an_put_right(struct cm_buf *b, const char *s, size_t w)
{
	size_t sw = an_str_width(s);
	for (size_t i = sw; i < w; i++)
		cm_buf_putc(b, ' ');
	cm_buf_puts(b, s);
}

/* Left-aligns, cut to `w` columns with '~' when longer. */
void an_put_left(struct cm_buf *b, const char *s, size_t w)
{
	size_t sw = an_str_width(s);
	if (sw <= w) {
		cm_buf_puts(b, s);
		for (size_t i = sw; i < w; i++)
			cm_buf_putc(b, ' ');
		return;
	}
	size_t cw = 0;
	const char *p = s;
	while (*p && cw + 1 < w) {
		p++;
		while (((unsigned char)*p & 0xc0) == 0x80)
			p++;
		cw++;
	}
	cm_buf_putn(b, s, (size_t)(p - s));
	cm_buf_putc(b, '~');
}

void an_end_line(FILE *f, struct cm_buf *line)
{
	while (line->len && line->s[line->len - 1] == ' ')
		line->len--;
	fprintf(f, "%.*s\n", (int)line->len, line->s);
	line->len = 0;
}

/* Text in a cell or heading: a line break would end the table row. */
void an_md_cell(FILE *f, const char *s)
{
	for (const char *p = s; *p; p++) {
		if (*p == '\n' || *p == '\r') {
			fputc(' ', f);
			continue;
		}
		if (*p == '|' || *p == '*' || *p == '\\')
			fputc('\\', f);
		fputc(*p, f);
	}
}

void an_md_table(FILE *f, const char *corner, size_t ncols, char *const *heads, size_t nrows,
		 const char *const *labels, char **const *cells)
{
	fputs("| ", f);
	an_md_cell(f, corner);
	fputs(" |", f);
	for (size_t c = 0; c < ncols; c++) {
		fputc(' ', f);
		an_md_cell(f, heads[c]);
		fputs(" |", f);
	}
	fputs("\n|---|", f);
	for (size_t c = 0; c < ncols; c++)
		fputs("---:|", f);
	fputc('\n', f);
	for (size_t r = 0; r < nrows; r++) {
		fputs("| ", f);
		an_md_cell(f, labels[r]);
		fputs(" |", f);
		for (size_t c = 0; c < ncols; c++) {
			fputc(' ', f);
			an_md_cell(f, cells[r][c]);
			fputs(" |", f);
		}
		fputc('\n', f);
	}
}

void an_text_table(FILE *f, int width, const char *title, const char *corner, size_t ncols,
		   char *const *heads, size_t nrows, const char *const *labels, char **const *cells)
{
	size_t lw = 4, cw = 6;
	for (size_t r = 0; r < nrows; r++) {
		size_t l = an_str_width(labels[r]);
		lw = l > lw ? l : lw;
		for (size_t c = 0; c < ncols; c++) {
			l = an_str_width(cells[r][c]);
			cw = l > cw ? l : cw;
		}
	}
	for (size_t c = 0; c < ncols; c++) {
		size_t l = an_str_width(heads[c]);
		cw = l > cw ? l : cw;
	}
	cw += 2;
	fputc('\n', f);
	an_wrap(f, "", 0, title, width);
	struct cm_buf line = {NULL, 0, 0};
	an_put_left(&line, corner, lw);
	for (size_t c = 0; c < ncols; c++)
		an_put_right(&line, heads[c], cw);
	an_end_line(f, &line);
	for (size_t r = 0; r < nrows; r++) {
		an_put_left(&line, labels[r], lw);
		for (size_t c = 0; c < ncols; c++)
			an_put_right(&line, cells[r][c], cw);
		an_end_line(f, &line);
	}
	cm_buf_release(&line);
}

const char *an_disturbed_mark(size_t disturbed_n, size_t n)
{
	return !disturbed_n ? "" : disturbed_n * 2 > n ? "!!" : "!";
}
