/* SPDX-License-Identifier: MIT */
/* Allocation, growable arrays and strings, notes and rejects. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static void out_of_memory(void)
{
	fputs("fiocamp-analyze: out of memory\n", stderr);
	exit(2);
}

void *an_malloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *an_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *an_realloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory();
	void *q = realloc(p, (n && size) ? n * size : 1);
	if (!q)
		out_of_memory();
	return q;
}

char *an_strdup(const char *s)
{
	return an_strndup(s, strlen(s));
}

char *an_strndup(const char *s, size_t n)
{
	char *p = an_malloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *vformat(const char *fmt, va_list ap) AN_PRINTF(1, 0);
static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		out_of_memory();
	return s;
}

char *an_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	return s;
}

void *an_push(void *array_ptr, size_t *n, size_t *cap, size_t size)
{
	void **arr = array_ptr;
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 8;
		*arr = an_realloc(*arr, *cap, size);
	}
	void *e = (char *)*arr + *n * size;
	memset(e, 0, size);
	(*n)++;
	return e;
}

static void buf_grow(struct an_buf *b, size_t more)
{
	if (b->len + more + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->s = an_realloc(b->s, cap, 1);
	b->cap = cap;
}

void an_buf_putn(struct an_buf *b, const char *s, size_t n)
{
	buf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void an_buf_putc(struct an_buf *b, char c)
{
	an_buf_putn(b, &c, 1);
}

void an_buf_puts(struct an_buf *b, const char *s)
{
	an_buf_putn(b, s, strlen(s));
}

void an_buf_printf(struct an_buf *b, const char *fmt, ...)
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

void an_buf_free(struct an_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

char *an_error_text(const struct fc_error *err)
{
	char buf[FC_ERROR_SOURCE_MAX + FC_ERROR_MESSAGE_MAX + 64];
	fc_error_format(err, buf, sizeof(buf));
	return an_strdup(buf);
}

void an_note(struct an_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	char **slot = AN_PUSH(a->notes.items, a->notes.n, a->notes.cap);
	*slot = s;
}

void an_reject(struct an_analysis *a, const char *path, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	struct an_rejected *r = AN_PUSH(a->rejected, a->n_rejected, a->cap_rejected);
	r->path = an_strdup(path);
	r->reason = s;
}

void an_ident_free(struct an_ident *id)
{
	free(id->state);
	free(id->test);
	id->state = id->test = NULL;
}

static void run_free(struct an_run *r)
{
	free(r->path);
	free(r->key);
	an_ident_free(&r->id);
	for (size_t i = 0; i < r->n_logs; i++) {
		free(r->logs[i].path);
		free(r->logs[i].error);
	}
	free(r->logs);
	free(r->reason);
	free(r->fio_version);
	for (size_t j = 0; j < r->n_jobs; j++) {
		free(r->jobs[j].name);
		for (int d = 0; d < FC_DDIR_COUNT; d++)
			free(r->jobs[j].dir[d].sec.values);
	}
	free(r->jobs);
}

void an_analysis_free(struct an_analysis *a)
{
	free(a->campaign);
	free(a->manifest);
	free(a->fio_version);
	for (size_t i = 0; i < a->n_runs; i++)
		run_free(&a->runs[i]);
	free(a->runs);
	for (size_t i = 0; i < a->n_rejected; i++) {
		free(a->rejected[i].path);
		free(a->rejected[i].reason);
	}
	free(a->rejected);
	for (size_t i = 0; i < a->notes.n; i++)
		free(a->notes.items[i]);
	free(a->notes.items);
	for (size_t i = 0; i < a->n_states; i++) {
		struct an_state *s = &a->states[i];
		free(s->name);
		free(s->status);
		for (size_t k = 0; k < s->n_actions; k++) {
			free(s->actions[k].action);
			free(s->actions[k].text);
			free(s->actions[k].status);
			free(s->actions[k].task_name);
		}
		free(s->actions);
	}
	free(a->states);
	free(a->order);
	for (size_t i = 0; i < a->n_tests; i++)
		free(a->tests[i]);
	free(a->tests);
	for (size_t i = 0; i < a->n_series; i++) {
		struct an_series *s = &a->series[i];
		for (size_t k = 0; k < a->n_order; k++) {
			free(s->cells[k].values);
			free(s->cells[k].rounds);
			free(s->cells[k].runs);
		}
		free(s->cells);
		free(s->job_name);
	}
	free(a->series);
	free(a->bands);
	for (size_t i = 0; i < a->n_plogs; i++) {
		free(a->plogs[i].path);
		an_log_name_free(&a->plogs[i].name);
	}
	free(a->plogs);
	free(a->walked);
	memset(a, 0, sizeof(*a));
}

size_t an_state_get(struct an_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->n_states; i++) {
		if (strcmp(a->states[i].name, name) == 0)
			return i;
	}
	struct an_state *s = AN_PUSH(a->states, a->n_states, a->cap_states);
	s->name = an_strdup(name);
	s->downtime_s = NAN;
	s->first_ts_ms = -1;
	s->first_seen = a->n_states - 1;
	return a->n_states - 1;
}
