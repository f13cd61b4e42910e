/* SPDX-License-Identifier: MIT */
/*
 * --pattern: {variant}, {state}, {round}, {test} and '*' against the last
 * components of a run's path (without its extension, so that its logs
 * match too).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

/* The placeholders come first: they index the captures. */
enum tok_kind { TOK_VARIANT = 0, TOK_STATE, TOK_ROUND, TOK_TEST, TOK_STAR, TOK_LIT };
#define N_PLACEHOLDERS 4

struct tok {
	enum tok_kind kind;
	char *lit;
	size_t len;
};

struct an_pattern {
	char *text;
	struct tok *toks;
	size_t n, cap;
	size_t components;
};

const char *an_pattern_text(const struct an_pattern *p)
{
	return p->text;
}

void an_pattern_free(struct an_pattern *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->toks[i].lit);
	free(p->toks);
	free(p->text);
	free(p);
}

static void add_lit(struct an_pattern *p, const char *s, size_t len)
{
	if (len == 0)
		return;
	struct tok *t = CM_PUSH(p->toks, p->n, p->cap);
	t->kind = TOK_LIT;
	t->lit = cm_strndup(s, len);
	t->len = len;
}

int an_pattern_compile(const char *text, struct an_pattern **out, struct an_error *err)
{
	*out = NULL;
	struct an_pattern *p = cm_calloc(1, sizeof(*p));
	p->text = cm_strdup(text);
	bool seen[N_PLACEHOLDERS] = {false, false, false, false};
	const char *lit = text;
	const char *s = text;
	while (*s) {
		if (*s == '*') {
			add_lit(p, lit, (size_t)(s - lit));
			struct tok *t = CM_PUSH(p->toks, p->n, p->cap);
			t->kind = TOK_STAR;
			s++;
			lit = s;
			continue;
		}
		if (*s != '{') {
			s++;
			continue;
		}
		const char *close = strchr(s, '}');
		if (!close) {
			an_fail(err, AN_E_USAGE, "pattern \"%s\": '{' without '}'", text);
			an_pattern_free(p);
			return AN_E_USAGE;
		}
		size_t nlen = (size_t)(close - s - 1);
		int kind = -1;
		if (nlen == 7 && strncmp(s + 1, "variant", 7) == 0)
			kind = TOK_VARIANT;
		else if (nlen == 5 && strncmp(s + 1, "state", 5) == 0)
			kind = TOK_STATE;
		else if (nlen == 5 && strncmp(s + 1, "round", 5) == 0)
			kind = TOK_ROUND;
		else if (nlen == 4 && strncmp(s + 1, "test", 4) == 0)
			kind = TOK_TEST;
		if (kind < 0) {
			an_fail(
			    err, AN_E_USAGE,
			    "pattern \"%s\": unknown placeholder {%.*s} (use {variant}, {state}, "
			    "{round}, {test})",
			    text, (int)nlen, s + 1);
			an_pattern_free(p);
			return AN_E_USAGE;
		}
		if (seen[kind]) {
			an_fail(err, AN_E_USAGE, "pattern \"%s\": {%.*s} appears twice", text,
				(int)nlen, s + 1);
			an_pattern_free(p);
			return AN_E_USAGE;
		}
		seen[kind] = true;
		add_lit(p, lit, (size_t)(s - lit));
		struct tok *t = CM_PUSH(p->toks, p->n, p->cap);
		t->kind = (enum tok_kind)kind;
		s = close + 1;
		lit = s;
	}
	/* The extension after the last placeholder is dropped: patterns match
	 * key paths, which have no extension, so that logs match too. */
	const char *tail = lit;
	const char *dot = strrchr(tail, '.');
	const char *slash = strrchr(tail, '/');
	if (dot && (!slash || dot > slash))
		add_lit(p, tail, (size_t)(dot - tail));
	else
		add_lit(p, tail, strlen(tail));

	if (!seen[TOK_VARIANT] && !seen[TOK_STATE] && !seen[TOK_ROUND] && !seen[TOK_TEST]) {
		an_fail(err, AN_E_USAGE,
			"pattern \"%s\": needs at least one of {variant}, {state}, {round}, "
			"{test}",
			text);
		an_pattern_free(p);
		return AN_E_USAGE;
	}
	p->components = 1;
	for (const char *c = text; *c; c++)
		p->components += *c == '/';
	*out = p;
	return 0;
}

/* Longer key paths never match: it keeps the memo below small. */
#define PATTERN_MAX_KEY 4096

struct match {
	const struct an_pattern *p;
	const char *base;
	size_t len;
	unsigned char *failed; /* (token, position) pairs known not to match */
	const char *at[N_PLACEHOLDERS];
	size_t at_len[N_PLACEHOLDERS];
};

/*
 * Backtracking match; placeholders take as few characters as they can.
 * Whether the tokens from ti on match from a position does not depend on
 * the captures before it, so failures are remembered: at most
 * tokens x positions steps, whatever the pattern.
 */
static bool match_from(struct match *m, size_t ti, const char *s)
{
	const struct an_pattern *p = m->p;
	if (ti == p->n)
		return *s == '\0';
	size_t memo = ti * (m->len + 1) + (size_t)(s - m->base);
	if (m->failed[memo])
		return false;
	const struct tok *t = &p->toks[ti];
	if (t->kind == TOK_LIT) {
		if (strncmp(s, t->lit, t->len) == 0 && match_from(m, ti + 1, s + t->len))
			return true;
		m->failed[memo] = 1;
		return false;
	}
	size_t min = t->kind == TOK_STAR ? 0 : 1;
	for (size_t n = min;; n++) {
		if (n > 0) {
			char c = s[n - 1];
			if (c == '\0' || c == '/')
				break;
			if (t->kind == TOK_ROUND && !isdigit((unsigned char)c))
				break;
		}
		if (t->kind != TOK_STAR) {
			m->at[t->kind] = s;
			m->at_len[t->kind] = n;
		}
		if (match_from(m, ti + 1, s + n))
			return true;
	}
	m->failed[memo] = 1;
	return false;
}

int an_pattern_match(const struct an_pattern *p, const char *key_path, struct an_ident *id)
{
	memset(id, 0, sizeof(*id));
	const char *start;
	if (!an_path_last(key_path, p->components, &start))
		return -1;
	struct match m;
	memset(&m, 0, sizeof(m));
	m.p = p;
	m.base = start;
	m.len = strlen(start);
	if (m.len > PATTERN_MAX_KEY)
		return -1;
	m.failed = cm_calloc((p->n + 1) * (m.len + 1), 1);
	bool ok = match_from(&m, 0, start);
	free(m.failed);
	if (!ok)
		return -1;
	if (m.at[TOK_ROUND]) {
		if (m.at_len[TOK_ROUND] > AN_ROUND_MAX_DIGITS)
			return -1;
		char num[AN_ROUND_MAX_DIGITS + 1];
		memcpy(num, m.at[TOK_ROUND], m.at_len[TOK_ROUND]);
		num[m.at_len[TOK_ROUND]] = '\0';
		id->round = atoi(num);
	}
	if (m.at[TOK_VARIANT])
		id->variant = cm_strndup(m.at[TOK_VARIANT], m.at_len[TOK_VARIANT]);
	if (m.at[TOK_STATE])
		id->state = cm_strndup(m.at[TOK_STATE], m.at_len[TOK_STATE]);
	if (m.at[TOK_TEST])
		id->test = cm_strndup(m.at[TOK_TEST], m.at_len[TOK_TEST]);
	return 0;
}

size_t an_pattern_dirs(const struct an_pattern *p)
{
	return p->components - 1;
}
