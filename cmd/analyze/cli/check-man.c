/* SPDX-License-Identifier: MIT */
/*
 * Checks the OPTIONS section of fiocamp-analyze(1) against the option table
 * (options.c): every option of the table is named in a heading of the
 * section (the line after .TP or .TQ), with its short form beside it when
 * it has one, and every option the headings name is in the table.
 *
 *   check-man PAGE    exits 1, naming each difference, when they differ
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cli/options.h"

#define MAX_NAMED 128

/* An option a heading names; short_name its short form when the heading
 * writes "-x, --name". */
struct named {
	char name[64];
	char short_name;
};

/* The heading's text without troff's escapes: \- is -, \fB \fI \fR \fP go. */
static void plain(const char *line, char *out, size_t len)
{
	size_t n = 0;
	for (const char *p = line; *p && n + 1 < len; p++) {
		if (p[0] == '\\' && p[1] == '-') {
			out[n++] = '-';
			p++;
		} else if (p[0] == '\\' && p[1] == 'f' && p[2]) {
			p += 2;
		} else if (*p != '"') {
			out[n++] = *p;
		}
	}
	out[n] = '\0';
}

/* The options of one heading, appended to v. */
static void scan_heading(const char *text, struct named *v, size_t *n)
{
	char pending = 0; /* a short option waiting for its long form */
	for (const char *p = text; *p;) {
		bool start = p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-');
		if (start && p[0] == '-' && p[1] == '-' && islower((unsigned char)p[2])) {
			size_t k = 2;
			while (isalnum((unsigned char)p[k]) || p[k] == '-')
				k++;
			if (*n < MAX_NAMED) {
				snprintf(v[*n].name, sizeof(v[*n].name), "%.*s", (int)(k - 2),
					 p + 2);
				v[(*n)++].short_name = pending;
			}
			pending = 0;
			p += k;
		} else if (start && p[0] == '-' && isalpha((unsigned char)p[1]) &&
			   !isalnum((unsigned char)p[2])) {
			pending = p[1];
			p += 2;
		} else {
			if (!isspace((unsigned char)*p) && *p != ',')
				pending = 0;
			p++;
		}
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: check-man PAGE\n");
		return 2;
	}
	const char *page = argv[1];
	char *text, why[512];
	if (cm_read_file(page, 1 << 20, &text, NULL, why, sizeof(why)) < 0) {
		fprintf(stderr, "check-man: %s\n", why);
		return 2;
	}
	struct named named[MAX_NAMED];
	size_t n = 0;
	bool in_options = false, heading = false;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (strncmp(line, ".SH", 3) == 0) {
			in_options = strcmp(line, ".SH OPTIONS") == 0;
			continue;
		}
		if (in_options && heading) {
			char buf[1024];
			plain(line, buf, sizeof(buf));
			scan_heading(buf, named, &n);
		}
		heading = in_options && (strcmp(line, ".TP") == 0 || strcmp(line, ".TQ") == 0);
	}
	free(text);
	int problems = 0;
	for (const struct an_option *o = an_options; o->name; o++) {
		size_t i = 0;
		while (i < n && strcmp(named[i].name, o->name) != 0)
			i++;
		if (i == n) {
			fprintf(stderr, "%s: OPTIONS names no --%s (an option of the table)\n",
				page, o->name);
			problems++;
		} else if (named[i].short_name != o->short_name) {
			fprintf(stderr, "%s: OPTIONS writes --%s with %s%c, the table with %s%c\n",
				page, o->name, named[i].short_name ? "-" : "no short form",
				named[i].short_name ? named[i].short_name : ' ',
				o->short_name ? "-" : "no short form",
				o->short_name ? o->short_name : ' ');
			problems++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct an_option *o = an_options;
		while (o->name && strcmp(o->name, named[i].name) != 0)
			o++;
		if (!o->name) {
			fprintf(stderr, "%s: OPTIONS names --%s, which the option table has not\n",
				page, named[i].name);
			problems++;
		}
	}
	if (problems)
		fprintf(stderr,
			"%s: %d difference(s) from the option table (cmd/analyze/cli/options.c)\n",
			page, problems);
	return problems ? 1 : 0;
}
