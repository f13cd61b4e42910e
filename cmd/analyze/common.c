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

/* The length of the well-formed UTF-8 sequence at s (RFC 3629), or 0. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t n;
	unsigned min;
	unsigned cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

char *an_utf8_dup(const char *s)
{
	if (!s)
		return NULL;
	const unsigned char *p = (const unsigned char *)s;
	size_t bad = 0, len = 0;
	while (p[len]) {
		size_t n = utf8_seq(p + len);
		if (!n) {
			bad++;
			n = 1;
		}
		len += n;
	}
	if (!bad)
		return an_strndup(s, len);
	/* U+FFFD is 3 bytes for each bad byte */
	char *out = an_malloc(len + 2 * bad + 1);
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		size_t n = utf8_seq(p + i);
		if (!n) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, p + i, n);
		o += n;
		i += n;
	}
	out[o] = '\0';
	return out;
}

static void notes_add(struct an_notes *n, char *s)
{
	char **slot = AN_PUSH(n->items, n->n, n->cap);
	*slot = s;
}

void an_note(struct an_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	notes_add(&a->notes, s);
}

void an_warn(struct an_analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = vformat(fmt, ap);
	va_end(ap);
	notes_add(&a->warnings, s);
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

void an_skip(struct an_analysis *a, const char *path, const char *reason)
{
	struct an_skipped *s = AN_PUSH(a->skipped, a->n_skipped, a->cap_skipped);
	s->path = an_strdup(path);
	s->reason = reason;
}

void an_ident_free(struct an_ident *id)
{
	free(id->variant);
	free(id->state);
	free(id->test);
	id->variant = id->state = id->test = NULL;
}

static void run_free(struct an_run *r)
{
	free(r->path);
	free(r->key);
	free(r->group);
	an_ident_free(&r->id);
	for (size_t i = 0; i < r->n_logs; i++) {
		free(r->logs[i].path);
		free(r->logs[i].error);
	}
	free(r->logs);
	free(r->reason);
	free(r->fio_version);
	free(r->workload);
	free(r->job_label);
	for (size_t j = 0; j < r->n_jobs; j++) {
		free(r->jobs[j].name);
		for (int d = 0; d < FC_DDIR_COUNT; d++)
			free(r->jobs[j].dir[d].sec.values);
	}
	free(r->jobs);
}

static void notes_free(struct an_notes *n)
{
	for (size_t i = 0; i < n->n; i++)
		free(n->items[i]);
	free(n->items);
}

void an_analysis_free(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_inputs; i++) {
		free(a->inputs[i].arg);
		free(a->inputs[i].label);
		free(a->inputs[i].root);
		free(a->inputs[i].name);
	}
	free(a->inputs);
	free(a->fio_version);
	for (size_t i = 0; i < a->n_runs; i++)
		run_free(&a->runs[i]);
	free(a->runs);
	for (size_t i = 0; i < a->n_rejected; i++) {
		free(a->rejected[i].path);
		free(a->rejected[i].reason);
	}
	free(a->rejected);
	for (size_t i = 0; i < a->n_skipped; i++)
		free(a->skipped[i].path);
	free(a->skipped);
	notes_free(&a->notes);
	notes_free(&a->warnings);
	for (size_t i = 0; i < a->n_states; i++)
		free(a->states[i].name);
	free(a->states);
	free(a->order);
	for (size_t i = 0; i < a->n_variants; i++) {
		free(a->variants[i].name);
		free(a->variants[i].fio_version);
	}
	free(a->variants);
	for (size_t i = 0; i < a->n_campaigns; i++) {
		free(a->campaigns[i].name);
		free(a->campaigns[i].manifest);
		free(a->campaigns[i].fio_version);
		free(a->campaigns[i].group);
	}
	free(a->campaigns);
	for (size_t i = 0; i < a->n_trans; i++) {
		struct an_transition *t = &a->trans[i];
		free(t->status);
		for (size_t k = 0; k < t->n_actions; k++) {
			free(t->actions[k].action);
			free(t->actions[k].text);
			free(t->actions[k].status);
			free(t->actions[k].task_name);
			free(t->actions[k].error);
		}
		free(t->actions);
	}
	free(a->trans);
	for (size_t i = 0; i < a->n_tests; i++) {
		free(a->tests[i].name);
		free(a->tests[i].base);
	}
	free(a->tests);
	free(a->cols);
	for (size_t i = 0; i < a->n_series; i++) {
		struct an_series *s = &a->series[i];
		for (size_t k = 0; k < a->n_cols; k++) {
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
	s->first_ts_ms = -1;
	s->first_seen = a->n_states - 1;
	return a->n_states - 1;
}

size_t an_variant_get(struct an_analysis *a, const char *name, size_t input)
{
	for (size_t i = 0; i < a->n_variants; i++) {
		if (strcmp(a->variants[i].name, name) == 0)
			return i;
	}
	struct an_variant *v = AN_PUSH(a->variants, a->n_variants, a->cap_variants);
	v->name = an_strdup(name);
	v->input = input;
	v->campaign = SIZE_MAX;
	return a->n_variants - 1;
}

struct an_transition *an_transition_get(struct an_analysis *a, size_t state, size_t campaign)
{
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].state == state && a->trans[i].campaign == campaign)
			return &a->trans[i];
	}
	struct an_transition *t = AN_PUSH(a->trans, a->n_trans, a->cap_trans);
	t->state = state;
	t->campaign = campaign;
	t->downtime_s = NAN;
	return t;
}

const struct an_transition *an_transition_of(const struct an_analysis *a, size_t state,
					      size_t variant)
{
	size_t c = a->variants[variant].campaign;
	if (c == SIZE_MAX)
		return NULL;
	for (size_t i = 0; i < a->n_trans; i++) {
		if (a->trans[i].state == state && a->trans[i].campaign == c)
			return &a->trans[i];
	}
	return NULL;
}

size_t an_col_find(const struct an_analysis *a, size_t state, size_t variant)
{
	for (size_t k = 0; k < a->n_cols; k++) {
		if (a->cols[k].state == state && a->cols[k].variant == variant)
			return k;
	}
	return SIZE_MAX;
}
