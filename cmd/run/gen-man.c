/* SPDX-License-Identifier: MIT */
/*
 * The action lists of fiocamp-campaign(5), made from the action tables.
 * The page keeps them between marker comments,
 *
 *   .\" BEGIN ACTIONS built-in
 *   ...
 *   .\" END ACTIONS
 *
 * one pair for the built-in actions and one per provider (its type), so
 * that the page reads complete in the source tree (man -l docs/...).
 *
 *   gen-man PAGE           rewrites PAGE with the lists as the tables have them
 *   gen-man --check PAGE   exits 1, naming what differs, when PAGE is not so
 */
#include <stdio.h>
#include <string.h>

#include "actions/builtin.h"
#include "providers.h"

#define BEGIN_MARK ".\\\" BEGIN ACTIONS "
#define END_MARK   ".\\\" END ACTIONS"

/* The tables a marker names: the built-in ones or a provider's
 * (NULL-terminated). */
static int tables_of(const char *name, size_t n, const struct fcr_action *const **tables)
{
	static const struct fcr_action *one[2];
	if (n == strlen("built-in") && !strncmp(name, "built-in", n)) {
		*tables = fcr_catalog()->builtin;
		return 0;
	}
	for (const struct fcr_provider *const *p = fcr_catalog()->providers; *p; p++) {
		if (strlen((*p)->type) == n && !strncmp((*p)->type, name, n)) {
			one[0] = (*p)->actions;
			*tables = one;
			return 0;
		}
	}
	return -1;
}

int main(int argc, char **argv)
{
	bool check = argc == 3 && !strcmp(argv[1], "--check");
	if (argc != 2 && !check) {
		fprintf(stderr, "usage: gen-man [--check] PAGE\n");
		return 2;
	}
	const char *page = argv[argc - 1];
	char *text, why[512];
	size_t len;
	if (cm_read_file(page, 1 << 20, &text, &len, why, sizeof(why)) < 0) {
		fprintf(stderr, "gen-man: %s\n", why);
		return 2;
	}
	struct cm_buf out = {0};
	unsigned lists = 0;
	const char *p = text;
	for (;;) {
		const char *begin = strstr(p, BEGIN_MARK);
		if (!begin)
			break;
		const char *name = begin + strlen(BEGIN_MARK);
		size_t n = strcspn(name, "\n");
		const char *body = name + n + (name[n] ? 1 : 0);
		const char *end = strstr(body, END_MARK);
		const struct fcr_action *const *tables;
		if (!end || tables_of(name, n, &tables) < 0) {
			fprintf(stderr, "%s: a list '%.*s' without its end, or of no table\n", page,
				(int)n, name);
			return 2;
		}
		cm_buf_putn(&out, p, (size_t)(body - p));
		for (; *tables; tables++) {
			char *list = fcr_action_man(*tables);
			cm_buf_puts(&out, list);
			free(list);
		}
		p = end;
		lists++;
	}
	cm_buf_puts(&out, p);
	int rc = 0;
	if (!lists) {
		fprintf(stderr, "%s: no '" BEGIN_MARK "' marker\n", page);
		rc = 2;
	} else if (check) {
		if (out.len != len || memcmp(out.s, text, len)) {
			fprintf(stderr,
				"%s: its action lists differ from the action tables; "
				"rewrite them with: ninja -C BUILDDIR update-man\n",
				page);
			rc = 1;
		}
	} else {
		FILE *f = fopen(page, "w");
		if (!f || fwrite(out.s, 1, out.len, f) != out.len || fclose(f) != 0) {
			fprintf(stderr, "gen-man: cannot write %s\n", page);
			rc = 2;
		}
	}
	cm_buf_release(&out);
	free(text);
	return rc;
}
