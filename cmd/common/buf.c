/* SPDX-License-Identifier: MIT */
/* Growable strings and string lists. */
#include <stdio.h>
#include <string.h>

#include "common.h"

static void buf_grow(struct cm_buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->s = cm_realloc(b->s, cap, 1);
	b->cap = cap;
}

void cm_buf_putn(struct cm_buf *b, const char *s, size_t n)
{
	buf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void cm_buf_puts(struct cm_buf *b, const char *s)
{
	cm_buf_putn(b, s, strlen(s));
}

void cm_buf_putc(struct cm_buf *b, char c)
{
	cm_buf_putn(b, &c, 1);
}

void cm_buf_printf(struct cm_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void cm_buf_release(struct cm_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *cm_buf_take(struct cm_buf *b)
{
	char *s = b->s ? b->s : cm_strdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void cm_strv_take(struct cm_strv *l, char *s)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = cm_realloc(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void cm_strv_add(struct cm_strv *l, const char *s)
{
	cm_strv_take(l, cm_strdup(s));
}

void cm_strv_addf(struct cm_strv *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	cm_strv_take(l, cm_vasprintf(fmt, ap));
	va_end(ap);
}

bool cm_strv_has(const struct cm_strv *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i], s))
			return true;
	}
	return false;
}

void cm_strv_add_once(struct cm_strv *l, const char *s)
{
	if (!cm_strv_has(l, s))
		cm_strv_add(l, s);
}

void cm_strv_del(struct cm_strv *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i], s))
			continue;
		free(l->v[i]);
		/* the NULL after the last moves down too */
		memmove(&l->v[i], &l->v[i + 1], (l->n - i) * sizeof(l->v[0]));
		l->n--;
		return;
	}
}

void cm_strv_release(struct cm_strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
