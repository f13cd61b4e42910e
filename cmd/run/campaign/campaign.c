/* SPDX-License-Identifier: MIT */
#include "campaign/campaign.h"
#include "campaign/parser.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fiocamp.h>

#include "action.h"
#include "provider.h"
#include "catalog.h"

/* Campaign files are small; a bigger one is a mistake. */
#define CAMPAIGN_MAX_BYTES  (1024 * 1024)
#define CAMPAIGN_MAX_ERRORS 20

void fcr_cp_error(struct parser *p, unsigned line, const char *fmt, ...)
{
	p->n_errors++;
	if (p->n_errors > CAMPAIGN_MAX_ERRORS)
		return;
	char msg[900];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cm_strv_addf(p->errors, "%s:%u: %s", p->source, line, msg);
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Cuts an inline comment: ';' or '#' at the start of the value or after a
 * blank.  In `before` values ';' separates actions, so only '#' starts a
 * comment there; quotes protect both. */
static void cut_comment(char *v, bool semicolon_is_comment)
{
	char quote = 0;
	for (char *s = v; *s; s++) {
		if (quote) {
			if (*s == quote)
				quote = 0;
			continue;
		}
		if (!semicolon_is_comment && (*s == '\'' || *s == '"')) {
			quote = *s;
			continue;
		}
		bool starts = *s == '#' || (semicolon_is_comment && *s == ';');
		if (starts && (s == v || s[-1] == ' ' || s[-1] == '\t')) {
			*s = '\0';
			return;
		}
	}
}

static const char *const campaign_keys[] = {
    [K_NAME] = "name",
    [K_SUITE] = "suite",
    [K_ROUNDS] = "rounds",
    [K_PAUSE] = "pause",
    [K_TARGET] = "target",
    [K_DIRECTORY] = "directory",
    [K_SIZE] = "size",
    [K_RUNTIME] = "runtime",
    [K_PREFILL] = "prefill",
    [K_IOENGINE] = "ioengine",
    [K_DIRECT] = "direct",
    [K_SSH_PORT] = "ssh-port",
    [K_SSH_OPTIONS] = "ssh-options",
    [K_WAIT_TIMEOUT] = "wait-timeout",
    [K_KEEP_FILE] = "keep-file",
    [K_VARIANTS] = "variants",
    [K_ORDER] = "order",
    [K_DISTURBED] = "disturbed",
    [K_STEADY_WINDOW] = "steady-window",
    [K_SWEEP] = "sweep",
    [K_HOSTS] = "hosts",
    [K_SYNC] = "sync",
    [K_MODE] = "mode",
    [K_PARALLEL_TRANSITIONS] = "parallel-transitions",
};

int fcr_cp_bool(const char *v, bool *out)
{
	if (!strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "on")) {
		*out = true;
		return 0;
	}
	if (!strcmp(v, "no") || !strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "off")) {
		*out = false;
		return 0;
	}
	return -1;
}

static void parse_target(struct parser *p, const char *v)
{
	struct fcr_campaign *c = p->c;
	free(c->target_text);
	c->target_text = cm_strdup(v);
	if (!strcmp(v, "local")) {
		c->target = FCR_TARGET_LOCAL;
		return;
	}
	if (strncmp(v, "ssh", 3) || (v[3] != ' ' && v[3] != '\t')) {
		fcr_cp_error(p, p->line,
			     "bad target '%s' (expected local, ssh HOST or ssh USER@HOST[:PORT])",
			     v);
		return;
	}
	const char *dest = v + 3;
	while (*dest == ' ' || *dest == '\t')
		dest++;
	if (!*dest || strpbrk(dest, " \t")) {
		fcr_cp_error(p, p->line, "bad target '%s' (expected ssh USER@HOST[:PORT])", v);
		return;
	}
	const char *at = strrchr(dest, '@');
	const char *hostpart = at ? at + 1 : dest;
	char *host = NULL;
	unsigned port = 22;
	bool given;
	/* a destination starting with '-' would be an option to ssh */
	if ((at && at == dest) || dest[0] == '-' ||
	    fcr_parse_host_port(hostpart, &host, &port, &given) < 0 || host[0] == '-') {
		fcr_cp_error(p, p->line, "bad ssh destination '%s' (expected USER@HOST[:PORT])",
			     dest);
		free(host);
		return;
	}
	c->target = FCR_TARGET_SSH;
	c->ssh_host = host;
	if (given) {
		c->ssh_port = port;
		c->ssh_port_given = true;
	}
	c->ssh_dest = at ? cm_asprintf("%.*s@%s", (int)(at - dest), dest, host) : cm_strdup(host);
}

/* Names become file and directory names (<state>/, <test>.json, the
 * campaign directory <name>-<date>): within what a file system takes, with
 * room for what is added to them.  Checked while the file is read, not when
 * the state is reached after earlier states' actions ran. */
static void check_name_length(struct parser *p, const char *what, const char *name)
{
	size_t n = strlen(name);
	if (n > FCR_NAME_MAX_BYTES)
		fcr_cp_error(p, p->line,
			     "%s name '%.40s...' is %zu bytes long; names have at most %d (they "
			     "become file and directory names)",
			     what, name, n, FCR_NAME_MAX_BYTES);
}

struct named {
	const char *name;
	size_t index;
};

static int by_name_then_index(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int d = strcmp(x->name, y->name);
	if (d)
		return d;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Every test named a second time, in the order of the suite: sorted once,
 * so that a suite of 100,000 tests is read in a moment, not in minutes. */
static void report_twice(struct parser *p, const struct cm_strv *names)
{
	struct named *v = cm_calloc(names->n + 1, sizeof(*v));
	bool *twice = cm_calloc(names->n + 1, sizeof(*twice));
	for (size_t i = 0; i < names->n; i++)
		v[i] = (struct named){names->v[i], i};
	qsort(v, names->n, sizeof(*v), by_name_then_index);
	for (size_t i = 1; i < names->n; i++) {
		if (!strcmp(v[i].name, v[i - 1].name))
			twice[v[i].index] = true;
	}
	for (size_t i = 0; i < names->n; i++) {
		if (twice[i])
			fcr_cp_error(p, p->line, "test '%s' appears twice in the suite",
				     names->v[i]);
	}
	free(twice);
	free(v);
}

/* A `suite` value, of [campaign] or of a state: test names or job files. */
static void parse_suite(struct parser *p, const char *v, struct cm_strv *out)
{
	struct fcr_error err;
	struct cm_strv words = {0};
	if (fcr_shell_split(v, &words, &err) < 0) {
		fcr_cp_error(p, p->line, "suite: %s", err.msg);
		return;
	}
	struct cm_strv stems = {0};
	for (size_t i = 0; i < words.n; i++) {
		char *stem = fcr_path_stem(words.v[i], ".fio");
		if (!cm_campaign_name_ok(stem))
			fcr_cp_error(p, p->line,
				     "bad test name '%s' (letters, digits, '.', '_', '-')", stem);
		else
			check_name_length(p, "test", stem);
		if (!strcmp(stem, "prefill"))
			fcr_cp_error(p, p->line, "'prefill' is the prefill job, not a test");
		cm_strv_take(&stems, stem);
	}
	report_twice(p, &stems);
	cm_strv_release(&stems);
	cm_strv_release(out);
	*out = words;
}

/* 0 is a state (or every state) that only runs its actions; "until-steady
 * MAX" sets *steady_max to MAX too (the window is checked in finish()). */
static void parse_rounds(struct parser *p, const char *v, unsigned *out, unsigned *steady_max)
{
	unsigned long n;
	static const char until[] = "until-steady";
	size_t len = sizeof(until) - 1;
	if (!strncmp(v, until, len) && (!v[len] || v[len] == ' ' || v[len] == '\t')) {
		const char *max = v + len;
		while (*max == ' ' || *max == '\t')
			max++;
		if (fcr_parse_uint(max, FCR_ROUNDS_MAX, &n) < 0 || n < 2) {
			fcr_cp_error(p, p->line,
				     "bad rounds '%s' (expected until-steady MAX, the most rounds, "
				     "from 2 to %d)",
				     v, FCR_ROUNDS_MAX);
			return;
		}
		*out = *steady_max = (unsigned)n;
		return;
	}
	if (fcr_parse_uint(v, FCR_ROUNDS_MAX, &n) < 0)
		fcr_cp_error(
		    p, p->line,
		    "bad rounds '%s' (expected a number from 0 to %d, or until-steady MAX)", v,
		    FCR_ROUNDS_MAX);
	else
		*out = (unsigned)n;
}

/* steady-window = N: the rounds whose spread decides (2 or more). */
static void parse_window(struct parser *p, const char *v, unsigned *out)
{
	unsigned long n;
	if (fcr_parse_uint(v, FCR_ROUNDS_MAX, &n) < 0 || n < 2)
		fcr_cp_error(p, p->line,
			     "bad steady-window '%s' (expected a number of rounds from 2 to %d)", v,
			     FCR_ROUNDS_MAX);
	else
		*out = (unsigned)n;
}

/* "5%" as 0.05 into *share; "off" or "none" as NaN (the criterion off). */
static bool disturbed_share(const char *w, double *share)
{
	if (!strcmp(w, "off") || !strcmp(w, "none")) {
		*share = NAN;
		return true;
	}
	char *end;
	double pct = strtod(w, &end);
	if (end == w || strcmp(end, "%") || !isfinite(pct) || pct < 0 || pct > 100)
		return false;
	*share = pct / 100;
	return true;
}

/* disturbed = steal 5% foreign-io 5%: the criteria named are set, the
 * others keep their defaults; "none" or "off" alone turns both off. */
static void parse_disturbed(struct parser *p, char *v)
{
	struct fcr_campaign *c = p->c;
	struct cm_strv w = {0};
	char *save = NULL;
	for (char *t = strtok_r(v, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
		cm_strv_add(&w, t);
	if (w.n == 1 && (!strcmp(w.v[0], "none") || !strcmp(w.v[0], "off"))) {
		c->disturbed_steal = c->disturbed_foreign_io = NAN;
		cm_strv_release(&w);
		return;
	}
	bool seen_steal = false, seen_foreign = false;
	for (size_t i = 0; i < w.n; i += 2) {
		bool steal = !strcmp(w.v[i], "steal"), foreign = !strcmp(w.v[i], "foreign-io");
		if (!steal && !foreign) {
			fcr_cp_error(p, p->line,
				     "bad disturbed '%s' (expected steal or foreign-io, each with "
				     "a share such as 5%% or off)",
				     w.v[i]);
			break;
		}
		if ((steal && seen_steal) || (foreign && seen_foreign)) {
			fcr_cp_error(p, p->line, "disturbed names %s twice", w.v[i]);
			break;
		}
		double share;
		if (i + 1 >= w.n || !disturbed_share(w.v[i + 1], &share)) {
			fcr_cp_error(p, p->line,
				     "bad disturbed %s '%s' (expected a share from 0%% to 100%%, "
				     "or off)",
				     w.v[i], i + 1 < w.n ? w.v[i + 1] : "");
			break;
		}
		seen_steal |= steal;
		seen_foreign |= foreign;
		*(steal ? &c->disturbed_steal : &c->disturbed_foreign_io) = share;
	}
	cm_strv_release(&w);
}

int fcr_cp_campaign_key(const char *key)
{
	for (size_t k = 0; k < CM_ARRAY_SIZE(campaign_keys); k++) {
		if (!strcmp(campaign_keys[k], key))
			return (int)k;
	}
	return -1;
}

void fcr_cp_parse_campaign_key(struct parser *p, const char *key, char *v)
{
	struct fcr_campaign *c = p->c;
	int found = fcr_cp_campaign_key(key);
	size_t k = found < 0 ? CM_ARRAY_SIZE(campaign_keys) : (size_t)found;
	if (k == CM_ARRAY_SIZE(campaign_keys)) {
		fcr_cp_error(
		    p, p->line,
		    "unknown key '%s' in [campaign] (expected name, suite, rounds, pause, "
		    "target, directory, size, runtime, prefill, ioengine, direct, ssh-port, "
		    "ssh-options, wait-timeout, keep-file, variants, order, disturbed, "
		    "steady-window, sweep, hosts, sync, mode, parallel-transitions)",
		    key);
		return;
	}
	if (p->seen[k]) {
		fcr_cp_error(p, p->line, "'%s' was already set on line %u", key, p->seen[k]);
		return;
	}
	p->seen[k] = p->line;
	if (!*v && k != K_SSH_OPTIONS) {
		fcr_cp_error(p, p->line, "'%s' needs a value", key);
		return;
	}
	struct fcr_error err;
	char why[256];
	unsigned long n;
	switch ((enum ckey)k) {
	case K_NAME:
		if (!cm_campaign_name_ok(v)) {
			fcr_cp_error(p, p->line, "bad name '%s' (letters, digits, '.', '_', '-')",
				     v);
			return;
		}
		check_name_length(p, "campaign", v);
		free(c->name);
		c->name = cm_strdup(v);
		break;
	case K_SUITE:
		parse_suite(p, v, &c->suite);
		break;
	case K_ROUNDS:
		parse_rounds(p, v, &c->rounds, &c->steady_max);
		break;
	case K_STEADY_WINDOW:
		parse_window(p, v, &c->steady_window);
		break;
	case K_PAUSE:
		if (cm_parse_duration_ms(v, &c->pause_ms, why, sizeof(why)) < 0)
			fcr_cp_error(p, p->line, "pause: %s", why);
		break;
	case K_RUNTIME:
		if (cm_parse_duration_ms(v, &c->runtime_ms, why, sizeof(why)) < 0)
			fcr_cp_error(p, p->line, "runtime: %s", why);
		else if (c->runtime_ms < 1000 || c->runtime_ms % 1000)
			fcr_cp_error(p, p->line, "runtime '%s' must be whole seconds, at least 1s",
				     v);
		break;
	case K_WAIT_TIMEOUT:
		if (cm_parse_duration_ms(v, &c->wait_timeout_ms, why, sizeof(why)) < 0)
			fcr_cp_error(p, p->line, "wait-timeout: %s", why);
		break;
	case K_TARGET:
		free(c->ssh_dest);
		free(c->ssh_host);
		c->ssh_dest = c->ssh_host = NULL;
		parse_target(p, v);
		break;
	case K_DIRECTORY:
		if (v[0] != '/')
			fcr_cp_error(p, p->line, "directory '%s' must be an absolute path", v);
		else if (strpbrk(v, ":\n\\"))
			fcr_cp_error(p, p->line, "directory '%s' must not contain ':' or '\\'", v);
		free(c->directory);
		c->directory = cm_strdup(v);
		break;
	case K_SIZE:
		fcr_cp_sizes(p, v, &c->sizes, &c->n_sizes);
		c->size_bytes = fcr_cp_largest_size(c->sizes, c->n_sizes);
		free(c->size_text);
		c->size_text = cm_strdup(v);
		break;
	case K_VARIANTS: {
		cm_strv_release(&p->variant_names);
		if (fcr_shell_split(v, &p->variant_names, &err) < 0) {
			fcr_cp_error(p, p->line, "variants: %s", err.msg);
			return;
		}
		struct cm_strv *names = &p->variant_names;
		if (names->n > FCR_VARIANTS_MAX)
			fcr_cp_error(p, p->line, "variants lists %zu variants; at most %d",
				     names->n, FCR_VARIANTS_MAX);
		for (size_t i = 0; names->v && i < names->n; i++) {
			fcr_cp_variant_name(p, names->v[i]);
			for (size_t j = 0; j < i; j++) {
				if (!strcmp(names->v[i], names->v[j])) {
					fcr_cp_error(p, p->line, "variant '%s' is listed twice",
						     names->v[i]);
					break;
				}
			}
		}
		break;
	}
	case K_ORDER:
		if (!strcmp(v, "interleaved"))
			c->order = FCR_ORDER_INTERLEAVED;
		else if (!strcmp(v, "sequential"))
			c->order = FCR_ORDER_SEQUENTIAL;
		else
			fcr_cp_error(p, p->line,
				     "bad order '%s' (expected interleaved or sequential)", v);
		break;
	case K_PREFILL:
		if (fcr_cp_bool(v, &c->prefill) < 0)
			fcr_cp_error(p, p->line, "bad prefill '%s' (expected yes or no)", v);
		break;
	case K_DISTURBED:
		parse_disturbed(p, v);
		break;
	case K_SWEEP:
		fcr_cp_sweep(p, v, &c->sweep);
		break;
	case K_HOSTS:
		fcr_cp_hosts_list(p, v);
		break;
	case K_SYNC:
		if (!strcmp(v, "states"))
			c->sync = FCR_SYNC_STATES;
		else if (!strcmp(v, "none"))
			c->sync = FCR_SYNC_NONE;
		else
			fcr_cp_error(p, p->line, "bad sync '%s' (expected states or none)", v);
		break;
	case K_MODE:
		if (!strcmp(v, "fleet"))
			c->mode = FCR_MODE_FLEET;
		else if (!strcmp(v, "aggregate"))
			c->mode = FCR_MODE_AGGREGATE;
		else
			fcr_cp_error(p, p->line, "bad mode '%s' (expected fleet or aggregate)", v);
		break;
	case K_PARALLEL_TRANSITIONS:
		if (fcr_cp_bool(v, &c->parallel_transitions) < 0)
			fcr_cp_error(p, p->line,
				     "bad parallel-transitions '%s' (expected yes or no)", v);
		break;
	case K_KEEP_FILE:
		if (fcr_cp_bool(v, &c->keep_file) < 0)
			fcr_cp_error(p, p->line, "bad keep-file '%s' (expected yes or no)", v);
		break;
	case K_IOENGINE:
		if (!cm_campaign_name_ok(v))
			fcr_cp_error(p, p->line, "bad ioengine '%s'", v);
		free(c->ioengine);
		c->ioengine = cm_strdup(v);
		break;
	case K_DIRECT: {
		bool b;
		if (fcr_cp_bool(v, &b) < 0)
			fcr_cp_error(p, p->line, "bad direct '%s' (expected 1 or 0)", v);
		else
			c->direct = b;
		break;
	}
	case K_SSH_PORT:
		if (fcr_parse_uint(v, 65535, &n) < 0 || n == 0) {
			fcr_cp_error(p, p->line, "bad ssh-port '%s' (expected 1 to 65535)", v);
		} else {
			c->ssh_port = (unsigned)n;
			c->ssh_port_given = true;
		}
		break;
	case K_SSH_OPTIONS:
		cm_strv_release(&c->ssh_options);
		if (fcr_shell_split(v, &c->ssh_options, &err) < 0)
			fcr_cp_error(p, p->line, "ssh-options: %s", err.msg);
		break;
	}
}

/* Splits a `before` value on ';' outside quotes into trimmed actions,
 * appended to *actions. */
void fcr_cp_before(struct parser *p, const char *value, struct fcr_step **actions,
		   size_t *n_actions)
{
	const char *start = value;
	char quote = 0;
	bool reported = false;
	for (const char *q = value;; q++) {
		if (*q && quote) {
			if (*q == quote)
				quote = 0;
			continue;
		}
		if (*q == '\'' || *q == '"') {
			quote = *q;
			continue;
		}
		if (*q && *q != ';')
			continue;
		char *piece = cm_strndup(start, (size_t)(q - start));
		char *t = trim(piece);
		if (!*t) {
			/* "a; b;" is fine; "a;; b", "; a" and "before =" are not */
			bool trailing = !*q && start != value;
			if (!trailing && !reported)
				fcr_cp_error(p, p->line, "empty action in 'before'");
			reported = true;
		} else {
			*actions = cm_realloc(*actions, *n_actions + 1, sizeof(**actions));
			struct fcr_step *a = &(*actions)[(*n_actions)++];
			memset(a, 0, sizeof(*a));
			a->text = cm_strdup(t);
			a->line = p->line;
			struct fcr_error err;
			if (fcr_shell_split(t, &a->words, &err) < 0)
				fcr_cp_error(p, p->line, "'%s': %s", t, err.msg);
		}
		free(piece);
		if (!*q)
			break;
		start = q + 1;
	}
}

static void parse_section(struct parser *p, char *inner)
{
	struct fcr_campaign *c = p->c;
	char *name = trim(inner);
	p->any_section = true;
	p->in_campaign = p->in_provider = false;
	p->state = NULL;
	p->vsec = NULL;
	p->hsec = NULL;
	p->in_bad_host = p->in_applied_host = false;
	if (!strncmp(name, "host", 4) && (name[4] == ' ' || name[4] == '\t')) {
		fcr_cp_host_section(p, trim(name + 4));
		return;
	}
	if (!strcmp(name, "host")) {
		fcr_cp_error(p, p->line, "[host] needs a name: [host NAME]");
		p->in_bad_host = true;
		return;
	}
	if (!strncmp(name, "variant", 7) && (name[7] == ' ' || name[7] == '\t')) {
		char *vn = trim(name + 7);
		fcr_cp_variant_name(p, vn);
		for (size_t i = 0; i < p->n_vsecs; i++) {
			if (!strcmp(p->vsecs[i].v.name, vn))
				fcr_cp_error(p, p->line,
					     "variant '%s' was already defined on line %u", vn,
					     p->vsecs[i].v.line);
		}
		p->vsecs = cm_realloc(p->vsecs, p->n_vsecs + 1, sizeof(*p->vsecs));
		struct variant_section *vs = &p->vsecs[p->n_vsecs++];
		memset(vs, 0, sizeof(*vs));
		vs->v.name = cm_strdup(vn);
		vs->v.line = p->line;
		p->vsec = vs;
		return;
	}
	if (!strcmp(name, "variant")) {
		fcr_cp_error(p, p->line, "[variant] needs a name: [variant NAME]");
		p->state = NULL;
		return;
	}
	if (!strcmp(name, "campaign")) {
		if (p->had_campaign)
			fcr_cp_error(p, p->line, "a second [campaign] section");
		p->had_campaign = true;
		p->in_campaign = true;
		return;
	}
	if (!strcmp(name, "provider")) {
		if (p->had_provider)
			fcr_cp_error(p, p->line, "a second [provider] section");
		p->had_provider = true;
		p->in_provider = true;
		return;
	}
	if (!strncmp(name, "state", 5) && (name[5] == ' ' || name[5] == '\t')) {
		char *sn = trim(name + 5);
		if (!cm_campaign_name_ok(sn)) {
			fcr_cp_error(p, p->line,
				     "bad state name '%s' (letters, digits, '.', '_', '-')", sn);
		} else if (!strcmp(sn, "prefill")) {
			fcr_cp_error(p, p->line, "'prefill' is reserved for the prefill run");
		} else {
			check_name_length(p, "state", sn);
			if (!p->state_lines)
				p->state_lines = json_object();
			json_t *seen = json_object_get(p->state_lines, sn);
			if (seen)
				fcr_cp_error(p, p->line,
					     "state '%s' was already defined on line %u", sn,
					     (unsigned)json_integer_value(seen));
			else
				json_object_set_new(p->state_lines, sn, json_integer(p->line));
		}
		struct fcr_state *s = CM_PUSH(c->states, c->n_states, p->cap_states);
		memset(s, 0, sizeof(*s));
		s->name = cm_strdup(sn);
		s->line = p->line;
		s->repeat = 1;
		s->own_sweep.n_points = 1;
		p->state = s;
		return;
	}
	if (!strcmp(name, "state"))
		fcr_cp_error(p, p->line, "[state] needs a name: [state NAME]");
	else
		fcr_cp_error(p, p->line,
			     "unknown section [%s] (expected [campaign], [provider], [state NAME], "
			     "[variant NAME] or [host NAME])",
			     name);
	/* keys up to the next section are ignored: the section is wrong already */
	p->state = NULL;
}

/* A key of [state NAME]: before (any number of lines), repeat, suite, rounds,
 * steady-window, sweep. */
static void parse_state_key(struct parser *p, const char *key, char *v)
{
	struct fcr_state *s = p->state;
	if (!strcmp(key, "before")) {
		fcr_cp_before(p, v, &s->actions, &s->n_actions);
		return;
	}
	unsigned *seen = !strcmp(key, "repeat")		 ? &s->repeat_line
			 : !strcmp(key, "suite")	 ? &s->suite_line
			 : !strcmp(key, "rounds")	 ? &s->rounds_line
			 : !strcmp(key, "steady-window") ? &s->window_line
			 : !strcmp(key, "sweep")	 ? &s->sweep_line
							 : NULL;
	if (!seen) {
		fcr_cp_error(
		    p, p->line,
		    "unknown key '%s' in [state %s] (expected before, repeat, suite, rounds, "
		    "steady-window, sweep)",
		    key, s->name);
		return;
	}
	if (*seen) {
		fcr_cp_error(p, p->line, "'%s' was already set on line %u", key, *seen);
		return;
	}
	*seen = p->line;
	if (!*v) {
		fcr_cp_error(p, p->line, "'%s' needs a value", key);
		return;
	}
	unsigned long n;
	if (seen == &s->repeat_line) {
		if (fcr_parse_uint(v, FCR_REPEAT_MAX, &n) < 0 || n == 0)
			fcr_cp_error(p, p->line, "bad repeat '%s' (expected a number from 1 to %d)",
				     v, FCR_REPEAT_MAX);
		else
			s->repeat = (unsigned)n;
	} else if (seen == &s->sweep_line) {
		fcr_cp_sweep(p, v, &s->own_sweep);
	} else if (seen == &s->suite_line) {
		parse_suite(p, v, &s->own_suite);
		if (!s->own_suite.n)
			fcr_cp_error(p, p->line, "'suite' lists no tests");
	} else if (seen == &s->window_line) {
		parse_window(p, v, &s->steady_window);
	} else {
		parse_rounds(p, v, &s->rounds, &s->steady_max);
	}
}

void fcr_cp_provider_key(struct parser *p, const char *key, const char *value)
{
	struct fcr_campaign *c = p->c;
	for (size_t i = 0; i < c->n_provider_keys; i++) {
		if (!strcmp(c->provider_keys[i].key, key)) {
			fcr_cp_error(p, p->line, "'%s' was already set on line %u", key,
				     c->provider_keys[i].line);
			return;
		}
	}
	c->provider_keys =
	    cm_realloc(c->provider_keys, c->n_provider_keys + 1, sizeof(*c->provider_keys));
	struct fcr_provider_key *k = &c->provider_keys[c->n_provider_keys++];
	k->key = cm_strdup(key);
	k->value = cm_strdup(value);
	k->file = c->source;
	k->line = p->line;
}

static void parse_line(struct parser *p, char *line)
{
	struct fcr_campaign *c = p->c;
	char *s = trim(line);
	if (!*s || *s == ';' || *s == '#')
		return;
	if (*s == '[') {
		char *close = strchr(s, ']');
		if (!close) {
			fcr_cp_error(p, p->line, "section header without ']'");
			return;
		}
		char *after = trim(close + 1);
		if (*after && *after != ';' && *after != '#') {
			fcr_cp_error(p, p->line, "text after the section header: '%s'", after);
			return;
		}
		*close = '\0';
		parse_section(p, s + 1);
		return;
	}
	char *eq = strchr(s, '=');
	if (!eq) {
		fcr_cp_error(p, p->line, "expected 'key = value' or '[section]', found '%s'", s);
		return;
	}
	*eq = '\0';
	char *key = trim(s);
	char *value = eq + 1;
	bool before = !strcmp(key, "before");
	cut_comment(value, !before);
	value = trim(value);
	if (!*key) {
		fcr_cp_error(p, p->line, "a value without a key");
		return;
	}
	if (p->in_campaign) {
		/* the host read for sets its own */
		if (!fcr_cp_host_campaign_key(key) || !fcr_cp_applied_key(p, key))
			fcr_cp_parse_campaign_key(p, key, value);
	} else if (p->in_provider) {
		if (!strcmp(key, "type")) {
			if (c->provider_line)
				fcr_cp_error(p, p->line, "'type' was already set on line %u",
					     c->provider_line);
			free(c->provider_type);
			c->provider_type = cm_strdup(value);
			c->provider_line = p->line;
			return;
		}
		if (!fcr_cp_applied_key(p, key))
			fcr_cp_provider_key(p, key, value);
	} else if (p->state) {
		parse_state_key(p, key, value);
	} else if (p->vsec) {
		fcr_cp_variant_key(p, key, value);
	} else if (p->hsec) {
		fcr_cp_host_key(p, key, value);
	} else if (p->in_bad_host) {
		return;
	} else if (!p->any_section) {
		fcr_cp_error(p, p->line, "'%s' outside any section (start with [campaign])", key);
	}
}

static void check_action(struct parser *p, struct fcr_state *s, size_t idx)
{
	struct fcr_campaign *c = p->c;
	struct fcr_step *a = &s->actions[idx];
	if (a->words.n == 0)
		return;
	const char *name = a->words.v[0];
	int nargs = (int)a->words.n - 1;
	const struct fcr_action *def =
	    fcr_catalog_action(p->cat, c->provider, name, &a->from_provider);
	if (!def) {
		if (!c->provider && c->provider_type && strcmp(c->provider_type, "none"))
			return; /* the provider is missing; reported on its type line */
		char *builtin = fcr_catalog_usages(p->cat);
		fcr_cp_error(p, a->line, "unknown action '%s' (built in: %s; provider %s: %s)",
			     name, builtin, c->provider_type ? c->provider_type : "none",
			     c->provider && c->provider->actions[0].name ? "see fiocamp-run --help"
									 : "no actions");
		free(builtin);
		return;
	}
	a->def = def;
	if (c->n_variants && def->test_file) {
		fcr_cp_error(
		    p, a->line,
		    "'%s' acts on the test file, and with variants each has its own: use "
		    "prefill = yes in [campaign] (each variant is prefilled at its first use)",
		    name);
		return;
	}
	a->takes_down = def->takes_down;
	a->brings_up = def->brings_up;
	if (nargs < def->min_args || (def->max_args >= 0 && nargs > def->max_args)) {
		fcr_cp_error(p, a->line, "'%s': wrong number of arguments (usage: %s)", a->text,
			     def->usage);
		return;
	}
	struct fcr_check_ctx cx = {.c = c, .state = s, .index = idx};
	struct fcr_error err;
	if (def->check && def->check(&cx, a, &err) < 0)
		fcr_cp_error(p, a->line, "%s", err.msg);
}

/* The provider checks its keys now, so that a bad value is a file:line
 * error like any other. */
static void check_provider_keys(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	struct fcr_provider_section sec = fcr_campaign_provider_section(c);
	struct cm_strv problems = {0};
	void *state = NULL;
	if (c->provider->configure(&sec, NULL, &state, &problems) == 0)
		c->provider->free(state);
	for (size_t i = 0; i < problems.n; i++) {
		p->n_errors++;
		if (p->n_errors <= CAMPAIGN_MAX_ERRORS)
			cm_strv_add(p->errors, problems.v[i]);
	}
	cm_strv_release(&problems);
}

/* One entry of a suite while the suites are merged. */
struct suite_item {
	char *stem;
	const char *entry;
	size_t seq;    /* in the order of the file: the campaign's suite first */
	size_t *slot;  /* where its index goes: a state's tests[] (NULL: none) */
	unsigned line; /* of the suite that named it */
	size_t first;  /* the seq of the first entry of its name */
};

static int by_stem_then_seq(const void *a, const void *b)
{
	const struct suite_item *x = a, *y = b;
	int d = strcmp(x->stem, y->stem);
	if (d)
		return d;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void add_items(struct suite_item **v, size_t *n, const struct cm_strv *suite, size_t *slots,
		      unsigned line)
{
	*v = cm_realloc(*v, *n + suite->n + 1, sizeof(**v));
	for (size_t j = 0; j < suite->n; j++, (*n)++)
		(*v)[*n] = (struct suite_item){fcr_path_stem(suite->v[j], ".fio"), suite->v[j], *n,
					       slots ? &slots[j] : NULL,	   line,	0};
}

/*
 * Every state's tests as indices into one list, c->suite: the campaign's
 * suite first (as today), then each test only a state's own suite names.
 * One name is one job file: two entries of the same name must be the same.
 * A state without rounds runs no test, and its tests are not looked for.
 * Sorted once, so that a suite of 100,000 tests stays quick.
 */
static void merge_suites(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	bool campaign_used = false;
	for (size_t i = 0; i < c->n_states; i++)
		campaign_used |= c->states[i].rounds && !c->states[i].suite_line;
	struct suite_item *v = NULL;
	size_t n = 0;
	if (campaign_used)
		add_items(&v, &n, &c->suite, NULL, p->seen[K_SUITE]);
	for (size_t i = 0; i < c->n_states; i++) {
		struct fcr_state *st = &c->states[i];
		if (!st->rounds)
			continue;
		const struct cm_strv *own = st->suite_line ? &st->own_suite : &c->suite;
		st->tests = cm_calloc(own->n + 1, sizeof(*st->tests));
		st->n_tests = own->n;
		add_items(&v, &n, own, st->tests,
			  st->suite_line ? st->suite_line : p->seen[K_SUITE]);
	}
	if (n)
		qsort(v, n, sizeof(*v), by_stem_then_seq);
	size_t *first_of = cm_calloc(n + 1, sizeof(*first_of)); /* by seq */
	bool *is_first = cm_calloc(n + 1, sizeof(*is_first));
	const char **entry_of = cm_calloc(n + 1, sizeof(*entry_of));
	for (size_t i = 0; i < n; i++) {
		bool starts = i == 0 || strcmp(v[i].stem, v[i - 1].stem);
		v[i].first = starts ? v[i].seq : v[i - 1].first;
		if (starts) {
			is_first[v[i].seq] = true;
			entry_of[v[i].seq] = v[i].entry;
		} else if (strcmp(v[i].entry, entry_of[v[i].first])) {
			fcr_cp_error(
			    p, v[i].line,
			    "test '%s' is '%s' here and '%s' elsewhere in the campaign (one "
			    "name, one job file)",
			    v[i].stem, v[i].entry, entry_of[v[i].first]);
		}
	}
	/* the list in the order of first appearance */
	struct cm_strv all = {0};
	for (size_t seq = 0; seq < n; seq++) {
		if (is_first[seq]) {
			first_of[seq] = all.n;
			cm_strv_add(&all, entry_of[seq]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].slot)
			*v[i].slot = first_of[v[i].first];
		free(v[i].stem);
	}
	free(v);
	free(first_of);
	free(is_first);
	free(entry_of);
	cm_strv_release(&c->suite);
	c->suite = all;
}

/* rounds = until-steady MAX against its window: MAX holds at least one
 * window; a steady-window where no rounds end early is a mistake. */
static void finish_steady(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	bool any = false, campaign_short = false;
	unsigned seq_line = 0;
	for (size_t i = 0; i < c->n_states; i++) {
		struct fcr_state *st = &c->states[i];
		if (!st->window_line)
			st->steady_window = c->steady_window;
		if (!st->steady_max) {
			if (st->window_line)
				fcr_cp_error(p, st->window_line,
					     "steady-window needs rounds = until-steady MAX in "
					     "[state %s] or [campaign]",
					     st->name);
			continue;
		}
		any = true;
		unsigned own = st->rounds_line ? st->rounds_line : st->window_line;
		if (!seq_line)
			seq_line = st->rounds_line ? st->rounds_line : p->seen[K_ROUNDS];
		if (st->steady_max >= st->steady_window)
			continue;
		if (own)
			fcr_cp_error(p, own,
				     "rounds = until-steady %u in [state %s] is fewer rounds than "
				     "its steady window of %u (steady-window)",
				     st->steady_max, st->name, st->steady_window);
		else
			campaign_short = true;
	}
	if (campaign_short)
		fcr_cp_error(p, p->seen[K_ROUNDS],
			     "rounds = until-steady %u is fewer rounds than the steady window of "
			     "%u (steady-window)",
			     c->steady_max, c->steady_window);
	if (any && c->order == FCR_ORDER_SEQUENTIAL && fcr_campaign_has_units(c))
		fcr_cp_error(p, seq_line,
			     "rounds = until-steady needs order = interleaved: with order = "
			     "sequential the variants' rounds are not in step");
	if (p->seen[K_STEADY_WINDOW] && !any)
		fcr_cp_error(p, p->seen[K_STEADY_WINDOW],
			     "steady-window needs rounds = until-steady MAX in [campaign] or a "
			     "state");
}

static void finish(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	if (!p->had_campaign)
		fcr_cp_error(p, 1, "no [campaign] section");
	/* the campaign's suite is needed by a state with rounds and none of its own */
	bool needs_suite = c->n_states == 0;
	for (size_t i = 0; i < c->n_states; i++) {
		struct fcr_state *st = &c->states[i];
		if (!st->rounds_line) {
			st->rounds = c->rounds;
			st->steady_max = c->steady_max;
		}
		st->sweep = st->sweep_line ? &st->own_sweep : &c->sweep;
		needs_suite |= st->rounds && !st->suite_line;
		if (st->steady_max && st->sweep->n_points > 1)
			fcr_cp_error(
			    p, st->sweep_line ? st->sweep_line : c->sweep.line,
			    "state %s: a sweep and rounds = until-steady do not go together "
			    "(steadiness is judged per test, not per point)",
			    st->name);
	}
	if (p->had_campaign && !p->seen[K_SUITE] && needs_suite)
		fcr_cp_error(p, p->line, "[campaign] needs 'suite' (e.g. suite = rw4k rr4k)");
	else if (p->seen[K_SUITE] && c->suite.n == 0)
		fcr_cp_error(p, p->seen[K_SUITE], "'suite' lists no tests");
	else
		merge_suites(p);
	bool variants = p->variant_names.n > 0;
	fcr_cp_finish_variants(p);
	fcr_cp_finish_hosts(p);
	finish_steady(p);
	if (variants && !c->size_bytes) {
		for (size_t i = 0; i < c->n_variants; i++) {
			uint64_t b = c->variants[i].file_bytes;
			c->size_bytes = b > c->size_bytes ? b : c->size_bytes;
		}
	}
	if (p->had_campaign && c->n_states == 0)
		fcr_cp_error(p, p->line,
			     "no [state NAME] section: a campaign needs at least one state");
	if (c->ssh_port_given && c->target != FCR_TARGET_SSH)
		fcr_cp_error(p, p->seen[K_SSH_PORT] ? p->seen[K_SSH_PORT] : p->seen[K_TARGET],
			     "a port is only meaningful with an ssh target");
	if (p->seen[K_SSH_OPTIONS] && c->target != FCR_TARGET_SSH)
		fcr_cp_error(p, p->seen[K_SSH_OPTIONS], "ssh-options needs an ssh target");

	if (!c->provider_type)
		c->provider_type = cm_strdup("none");
	fcr_cp_host_provider_keys(p);
	bool planned = false;
	c->provider = fcr_catalog_provider(p->cat, c->provider_type, &planned);
	if (!c->provider) {
		char *types = fcr_catalog_types(p->cat);
		if (planned)
			fcr_cp_error(p, c->provider_line,
				     "provider type '%s' is not built in yet (built in: %s)",
				     c->provider_type, types);
		else
			fcr_cp_error(p, c->provider_line ? c->provider_line : 1,
				     "unknown provider type '%s' (built in: %s)", c->provider_type,
				     types);
		free(types);
	}
	if (c->provider)
		check_provider_keys(p);
	for (size_t i = 0; i < c->n_states; i++) {
		for (size_t j = 0; j < c->states[i].n_actions; j++)
			check_action(p, &c->states[i], j);
	}
	/* a campaign of transitions and hashes alone has no test file */
	c->uses_test_file = c->prefill;
	for (size_t i = 0; i < c->n_states; i++) {
		const struct fcr_state *st = &c->states[i];
		c->uses_test_file |= st->rounds && st->n_tests;
		for (size_t j = 0; j < st->n_actions; j++)
			c->uses_test_file |= st->actions[j].def && st->actions[j].def->test_file;
	}
	/* with variants each has its own test file, checked in fcr_cp_finish_variants() */
	if (variants)
		c->uses_test_file = false;
	if (p->had_campaign && c->uses_test_file && !p->seen[K_DIRECTORY])
		fcr_cp_error(p, p->line,
			     "[campaign] needs 'directory' (where the test file lives)");
	if (p->had_campaign && c->uses_test_file && !p->seen[K_SIZE])
		fcr_cp_error(p, p->line, "[campaign] needs 'size' (of the test file, e.g. 4G)");
}

int fcr_campaign_parse(const char *text, size_t len, const char *source,
		       const struct fcr_catalog *cat, struct fcr_campaign **out,
		       struct cm_strv *errors)
{
	return fcr_campaign_parse_host(text, len, source, cat, NULL, out, errors);
}

/*
 * The file read once: for the host `apply` when it is given (the keys of its
 * section as an earlier reading found them), else as it is written.
 * Returns the campaign, also when it has problems: their number is in
 * *n_errors, the first CAMPAIGN_MAX_ERRORS of them in errors.
 */
static struct fcr_campaign *read_campaign(const char *text, size_t len, const char *source,
					  const struct fcr_catalog *cat,
					  const struct fcr_host *apply, struct cm_strv *errors,
					  int *n_errors)
{
	struct fcr_campaign *c = cm_calloc(1, sizeof(*c));
	c->source = cm_strdup(source);
	c->text = cm_strndup(text, len);
	c->text_len = len;
	c->rounds = 1;
	c->steady_window = FC_STEADY_WINDOW;
	c->runtime_ms = 30000;
	c->wait_timeout_ms = 600000;
	c->ioengine = cm_strdup("libaio");
	c->direct = 1;
	c->disturbed_steal = FCR_DISTURBED_STEAL;
	c->disturbed_foreign_io = FCR_DISTURBED_FOREIGN_IO;
	c->sweep.n_points = 1;
	c->ssh_port = 22;
	c->target = FCR_TARGET_LOCAL;
	c->target_text = cm_strdup("local");
	c->name = fcr_path_stem(source, ".ini");
	if (!cm_campaign_name_ok(c->name) || strlen(c->name) > FCR_NAME_MAX_BYTES) {
		free(c->name);
		c->name = cm_strdup("campaign");
	}

	struct parser p = {.c = c, .cat = cat, .errors = errors, .source = source, .apply = apply};
	if (apply)
		c->host = cm_strdup(apply->name);
	*n_errors = 0;
	if (len > CAMPAIGN_MAX_BYTES) {
		fcr_cp_error(&p, 1, "larger than %d bytes: not a campaign file",
			     CAMPAIGN_MAX_BYTES);
		*n_errors = p.n_errors;
		return c;
	}
	if (memchr(text, '\0', len)) {
		fcr_cp_error(&p, 1, "holds a NUL byte: not a text file");
		*n_errors = p.n_errors;
		return c;
	}
	const char *pos = c->text;
	const char *end = c->text + len;
	/* a UTF-8 byte order mark is harmless */
	if (len >= 3 && !memcmp(pos, "\xef\xbb\xbf", 3))
		pos += 3;
	while (pos < end) {
		const char *nl = memchr(pos, '\n', (size_t)(end - pos));
		size_t n = nl ? (size_t)(nl - pos) : (size_t)(end - pos);
		char *line = cm_strndup(pos, n);
		if (n && line[n - 1] == '\r')
			line[n - 1] = '\0';
		p.line++;
		/* the manifest and the journal are JSON, which holds only UTF-8 */
		size_t good = cm_utf8_valid_len(line, strlen(line));
		if (line[good])
			fcr_cp_error(&p, p.line, "not UTF-8 text (byte 0x%02x in column %zu)",
				     (unsigned char)line[good], good + 1);
		else
			parse_line(&p, line);
		free(line);
		pos = nl ? nl + 1 : end;
	}
	finish(&p);
	for (size_t i = 0; i < p.n_vsecs; i++)
		fcr_cp_variant_release(&p.vsecs[i].v);
	free(p.vsecs);
	cm_strv_release(&p.variant_names);
	for (size_t i = 0; i < p.n_hsecs; i++)
		fcr_cp_host_release(&p.hsecs[i]);
	free(p.hsecs);
	cm_strv_release(&p.host_names);
	json_decref(p.state_lines);
	*n_errors = p.n_errors;
	return c;
}

static bool has_string(const struct cm_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++) {
		if (!strcmp(v->v[i], s))
			return true;
	}
	return false;
}

/* "source:line: message" as "source:line: host NAME: message", unless the
 * line is in the host's section already. */
static void add_for_host(struct cm_strv *out, const char *e, const char *source,
			 const struct fcr_host *h)
{
	size_t n = strlen(source);
	const char *at = e + n;
	if (!strncmp(e, source, n) && *at == ':') {
		char *d;
		unsigned long line = strtoul(at + 1, &d, 10);
		if (d > at + 1 && d[0] == ':' && d[1] == ' ') {
			bool own = h->has_section && line == h->line;
			for (size_t i = 0; i < h->n_keys; i++)
				own |= line == h->keys[i].line;
			if (own)
				cm_strv_add(out, e);
			else
				cm_strv_addf(out, "%.*s host %s: %s", (int)(d + 1 - e), e, h->name,
					     d + 2);
			return;
		}
	}
	cm_strv_addf(out, "%s (host %s)", e, h->name);
}

/*
 * The fleet's own view: what [campaign] and [provider] say, checked as each
 * host reads them (a key every host sets is not needed in [campaign]).  A
 * problem of every host is said once; one of some hosts for each of them,
 * naming it.
 */
static struct fcr_campaign *read_fleet(struct fcr_campaign *fleet, const char *text, size_t len,
				       const struct fcr_catalog *cat, struct cm_strv *errors,
				       int *n_errors)
{
	size_t n = fleet->n_hosts;
	struct cm_strv *each = cm_calloc(n, sizeof(*each));
	struct fcr_campaign **hosts = cm_calloc(n, sizeof(*hosts));
	int more = 0;
	for (size_t i = 0; i < n; i++) {
		int count;
		hosts[i] = read_campaign(text, len, fleet->source, cat, &fleet->hosts[i], &each[i],
					 &count);
		more = count - (int)each[i].n > more ? count - (int)each[i].n : more;
	}
	struct cm_strv out = {0};
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < each[i].n; j++) {
			const char *e = each[i].v[j];
			bool everyone = true;
			for (size_t k = 0; k < n && everyone; k++)
				everyone = has_string(&each[k], e);
			if (!everyone)
				add_for_host(&out, e, fleet->source, &fleet->hosts[i]);
			else if (!has_string(&out, e))
				cm_strv_add(&out, e);
		}
	}
	if (!out.n)
		fcr_cp_check_hosts_apart(fleet, hosts, &out);
	for (size_t i = 0; i < out.n; i++) {
		if (i < CAMPAIGN_MAX_ERRORS)
			cm_strv_add(errors, out.v[i]);
	}
	*n_errors = (int)out.n + more;
	cm_strv_release(&out);
	for (size_t i = 0; i < n; i++) {
		cm_strv_release(&each[i]);
		fcr_campaign_free(hosts[i]);
	}
	free(each);
	free(hosts);
	return fleet;
}

int fcr_campaign_parse_host(const char *text, size_t len, const char *source,
			    const struct fcr_catalog *cat, const char *host,
			    struct fcr_campaign **out, struct cm_strv *errors)
{
	*out = NULL;
	struct cm_strv mine = {0};
	int n_errors;
	/* read once as written, for the hosts and their sections */
	struct fcr_campaign *c = read_campaign(text, len, source, cat, NULL, &mine, &n_errors);
	const struct fcr_host *h = host ? fcr_campaign_find_host(c, host) : NULL;
	if (host && !h) {
		if (c->n_hosts) {
			/* the rest of the file as the fleet reads it is not the point */
			cm_strv_release(&mine);
			char *names = cm_strdup("");
			for (size_t i = 0; i < c->n_hosts; i++) {
				char *more =
				    cm_asprintf("%s%s%s", names, i ? ", " : "", c->hosts[i].name);
				free(names);
				names = more;
			}
			cm_strv_addf(&mine, "%s:%u: no host '%s' in 'hosts =' (%s)", source,
				     c->hosts_line, host, names);
			free(names);
			n_errors = 1;
		} else {
			cm_strv_addf(&mine,
				     "%s:1: no host '%s': the campaign has no 'hosts =' (it is not "
				     "a fleet)",
				     source, host);
			n_errors++;
		}
	} else if (h) {
		struct fcr_campaign *fleet = c;
		cm_strv_release(&mine);
		c = read_campaign(text, len, source, cat, h, &mine, &n_errors);
		fcr_campaign_free(fleet);
	} else if (c->n_hosts && !host) {
		cm_strv_release(&mine);
		c = read_fleet(c, text, len, cat, &mine, &n_errors);
	}
	for (size_t i = 0; i < mine.n; i++)
		cm_strv_add(errors, mine.v[i]);
	cm_strv_release(&mine);
	if (n_errors > CAMPAIGN_MAX_ERRORS)
		cm_strv_addf(errors, "%s: %d more errors", source, n_errors - CAMPAIGN_MAX_ERRORS);
	if (n_errors) {
		fcr_campaign_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void fcr_cp_steps_release(struct fcr_step *steps, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		struct fcr_step *a = &steps[j];
		free(a->text);
		cm_strv_release(&a->words);
		if (a->def && a->def->release)
			a->def->release(a->args);
		else
			free(a->args);
	}
	free(steps);
}

void fcr_campaign_free(struct fcr_campaign *c)
{
	if (!c)
		return;
	free(c->source);
	free(c->text);
	free(c->name);
	cm_strv_release(&c->suite);
	free(c->directory);
	free(c->size_text);
	free(c->ioengine);
	free(c->target_text);
	free(c->ssh_dest);
	free(c->ssh_host);
	cm_strv_release(&c->ssh_options);
	free(c->provider_type);
	for (size_t i = 0; i < c->n_provider_keys; i++) {
		free((char *)c->provider_keys[i].key);
		free((char *)c->provider_keys[i].value);
	}
	free(c->provider_keys);
	for (size_t i = 0; i < c->n_states; i++) {
		struct fcr_state *s = &c->states[i];
		fcr_cp_steps_release(s->actions, s->n_actions);
		free(s->name);
		free(s->tests);
		cm_strv_release(&s->own_suite);
		fcr_cp_sweep_release(&s->own_sweep);
	}
	free(c->states);
	for (size_t i = 0; i < c->n_sizes; i++)
		free(c->sizes[i].text);
	free(c->sizes);
	for (size_t i = 0; i < c->n_variants; i++)
		fcr_cp_variant_release(&c->variants[i]);
	free(c->variants);
	for (size_t i = 0; i < c->n_units; i++) {
		free(c->units[i].dir);
		free(c->units[i].label);
	}
	free(c->units);
	fcr_cp_sweep_release(&c->sweep);
	for (size_t i = 0; i < c->n_hosts; i++)
		fcr_cp_host_release(&c->hosts[i]);
	free(c->hosts);
	free(c->host);
	free(c);
}

struct fcr_provider_section fcr_campaign_provider_section(const struct fcr_campaign *c)
{
	return (struct fcr_provider_section){
	    .file = c->source,
	    .line = c->provider_line ? c->provider_line : 1,
	    .keys = c->provider_keys,
	    .n_keys = c->n_provider_keys,
	};
}

char *fcr_campaign_test_file(const struct fcr_campaign *c)
{
	return c->directory ? fcr_campaign_test_file_in(c->directory) : NULL;
}

char *fcr_campaign_test_file_in(const char *directory)
{
	size_t n = strlen(directory);
	return cm_asprintf("%s%sfiocamp.testfile", directory,
			   n && directory[n - 1] == '/' ? "" : "/");
}
