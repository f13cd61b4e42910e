/* SPDX-License-Identifier: MIT */
/*
 * Telling state, round and test from file names: the default rules for the
 * published example and the campaign layout, --pattern, and fio's log names.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze.h"

/* A round number longer than this is more likely a date than a round. */
#define ROUND_MAX_DIGITS 6

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

bool an_split_label(const char *label, size_t len, struct an_ident *id)
{
	size_t i = len;
	while (i > 0 && isdigit((unsigned char)label[i - 1]))
		i--;
	int round = 0;
	size_t digits = len - i;
	if (digits > 0 && digits <= ROUND_MAX_DIGITS) {
		round = atoi(label + i);
		if (i > 0 && label[i - 1] == '-')
			i--;
	} else {
		i = len;
	}
	if (i == 0)
		return false;
	id->state = an_strndup(label, i);
	id->round = round;
	return true;
}

/* Splits key_path into its last `want` components; false if it has fewer. */
static bool last_components(const char *key_path, size_t want, const char **start)
{
	const char *end = key_path + strlen(key_path);
	const char *p = end;
	size_t seen = 0;
	while (p > key_path) {
		p--;
		if (*p == '/') {
			seen++;
			if (seen == want) {
				*start = p + 1;
				return true;
			}
		}
	}
	if (seen + 1 == want) {
		*start = key_path;
		return true;
	}
	return false;
}

/* "r12" -> 12; -1 if not that shape. */
static int round_dir(const char *s, size_t len)
{
	if (len < 2 || s[0] != 'r' || len - 1 > ROUND_MAX_DIGITS)
		return -1;
	for (size_t i = 1; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
	}
	return atoi(s + 1);
}

int an_infer_default(const char *key_path, struct an_ident *id, char *why, size_t why_len)
{
	memset(id, 0, sizeof(*id));
	const char *three;
	if (last_components(key_path, 3, &three)) {
		const char *s1 = strchr(three, '/');
		const char *s2 = strchr(s1 + 1, '/');
		int round = round_dir(s1 + 1, (size_t)(s2 - s1 - 1));
		if (round > 0 && s1 > three && s2[1]) {
			id->state = an_strndup(three, (size_t)(s1 - three));
			id->round = round;
			id->test = an_strdup(s2 + 1);
			return 0;
		}
	}

	const char *base = base_name(key_path);
	const char *dash = strrchr(base, '-');
	if (!dash || dash == base || !dash[1]) {
		snprintf(why, why_len,
			 "cannot tell state, round and test from the name \"%s\" (expected "
			 "STATE[-]ROUND-TEST like basis1-rw4k, or STATE/rN/TEST; see --pattern)",
			 base);
		return -1;
	}
	if (!an_split_label(base, (size_t)(dash - base), id)) {
		snprintf(why, why_len,
			 "cannot tell the state from the name \"%s\": \"%.*s\" is only a number "
			 "(see --pattern)",
			 base, (int)(dash - base), base);
		return -1;
	}
	id->test = an_strdup(dash + 1);
	return 0;
}

/* ---- --pattern ------------------------------------------------------------ */

enum tok_kind { TOK_LIT, TOK_STATE, TOK_ROUND, TOK_TEST, TOK_STAR };

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
	struct tok *t = AN_PUSH(p->toks, p->n, p->cap);
	t->kind = TOK_LIT;
	t->lit = an_strndup(s, len);
	t->len = len;
}

int an_pattern_compile(const char *text, struct an_pattern **out, char *why, size_t why_len)
{
	*out = NULL;
	struct an_pattern *p = an_calloc(1, sizeof(*p));
	p->text = an_strdup(text);
	bool seen[3] = {false, false, false};
	const char *lit = text;
	const char *s = text;
	while (*s) {
		if (*s == '*') {
			add_lit(p, lit, (size_t)(s - lit));
			struct tok *t = AN_PUSH(p->toks, p->n, p->cap);
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
			snprintf(why, why_len, "pattern \"%s\": '{' without '}'", text);
			an_pattern_free(p);
			return -1;
		}
		size_t nlen = (size_t)(close - s - 1);
		int kind = -1;
		if (nlen == 5 && strncmp(s + 1, "state", 5) == 0)
			kind = TOK_STATE;
		else if (nlen == 5 && strncmp(s + 1, "round", 5) == 0)
			kind = TOK_ROUND;
		else if (nlen == 4 && strncmp(s + 1, "test", 4) == 0)
			kind = TOK_TEST;
		if (kind < 0) {
			snprintf(
			    why, why_len,
			    "pattern \"%s\": unknown placeholder {%.*s} (use {state}, {round}, "
			    "{test})",
			    text, (int)nlen, s + 1);
			an_pattern_free(p);
			return -1;
		}
		if (seen[kind - TOK_STATE]) {
			snprintf(why, why_len, "pattern \"%s\": {%.*s} appears twice", text,
				 (int)nlen, s + 1);
			an_pattern_free(p);
			return -1;
		}
		seen[kind - TOK_STATE] = true;
		add_lit(p, lit, (size_t)(s - lit));
		struct tok *t = AN_PUSH(p->toks, p->n, p->cap);
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

	if (!seen[TOK_STATE - TOK_STATE] || !seen[TOK_TEST - TOK_STATE]) {
		snprintf(why, why_len, "pattern \"%s\": needs {state} and {test}", text);
		an_pattern_free(p);
		return -1;
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
	const char *at[5];
	size_t at_len[5];
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
		m->at[t->kind] = s;
		m->at_len[t->kind] = n;
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
	if (!last_components(key_path, p->components, &start))
		return -1;
	struct match m;
	memset(&m, 0, sizeof(m));
	m.p = p;
	m.base = start;
	m.len = strlen(start);
	if (m.len > PATTERN_MAX_KEY)
		return -1;
	m.failed = an_calloc((p->n + 1) * (m.len + 1), 1);
	bool ok = match_from(&m, 0, start);
	free(m.failed);
	if (!ok)
		return -1;
	if (m.at[TOK_ROUND]) {
		if (m.at_len[TOK_ROUND] > ROUND_MAX_DIGITS)
			return -1;
		char num[ROUND_MAX_DIGITS + 1];
		memcpy(num, m.at[TOK_ROUND], m.at_len[TOK_ROUND]);
		num[m.at_len[TOK_ROUND]] = '\0';
		id->round = atoi(num);
	}
	id->state = an_strndup(m.at[TOK_STATE], m.at_len[TOK_STATE]);
	id->test = an_strndup(m.at[TOK_TEST], m.at_len[TOK_TEST]);
	return 0;
}

/* ---- file names ----------------------------------------------------------- */

bool an_log_name_parse(const char *path, struct an_log_name *out)
{
	struct fc_log_name ln;
	memset(out, 0, sizeof(*out));
	if (fc_log_name_parse(path, &ln) < 0)
		return false;
	/* the prefix starts the last path component */
	const char *base = ln.prefix;
	size_t dir_len = (size_t)(base - path);
	out->type = ln.type;
	out->index = ln.index;
	out->key_raw = an_strndup(path, dir_len + ln.prefix_len);
	/* the published example's logs are named log-<run>_<type>.N.log */
	const char *prefix = base;
	size_t plen = ln.prefix_len;
	if (plen > 4 && (strncmp(prefix, "log-", 4) == 0 || strncmp(prefix, "log_", 4) == 0)) {
		prefix += 4;
		plen -= 4;
	}
	out->key = an_malloc(dir_len + plen + 1);
	memcpy(out->key, path, dir_len);
	memcpy(out->key + dir_len, prefix, plen);
	out->key[dir_len + plen] = '\0';
	return true;
}

void an_log_name_free(struct an_log_name *n)
{
	free(n->key);
	free(n->key_raw);
	n->key = n->key_raw = NULL;
}

enum an_file_kind an_file_kind(const char *path)
{
	const char *base = base_name(path);
	if (base[0] == '.' || base[0] == '\0')
		return AN_FILE_SKIP;
	struct an_log_name ln;
	if (an_log_name_parse(path, &ln)) {
		an_log_name_free(&ln);
		return AN_FILE_LOG;
	}
	if (strcmp(base, "manifest.json") == 0)
		return AN_FILE_SKIP;
	const char *dot = strrchr(base, '.');
	if (!dot)
		return AN_FILE_SKIP;
	static const char *const exts[] = {".json", ".txt", ".out", ".terse"};
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		if (strcasecmp(dot, exts[i]) == 0)
			return AN_FILE_OUTPUT;
	}
	return AN_FILE_SKIP;
}

char *an_output_key(const char *path)
{
	const char *base = base_name(path);
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return an_strdup(path);
	return an_strndup(path, (size_t)(dot - path));
}
