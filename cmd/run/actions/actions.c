/* SPDX-License-Identifier: MIT */
/* A table's rows as the man page's entries (builtin.h). */
#include <ctype.h>
#include <string.h>

#include "actions/builtin.h"

/* ---- the man page ----------------------------------------------------------------- */

/* Text for troff: '-' as \-, a backslash as \e, a '.' or '\'' that would
 * start a line protected. */
static void roff_text(struct cm_buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if ((s[i] == '.' || s[i] == '\'') && (b->len == 0 || b->s[b->len - 1] == '\n'))
			cm_buf_puts(b, "\\&");
		if (s[i] == '-')
			cm_buf_puts(b, "\\-");
		else if (s[i] == '\\')
			cm_buf_puts(b, "\\e");
		else
			cm_buf_putc(b, s[i]);
	}
}

/* "wait-ssh [HOST[:PORT]]": the action's name and literal words bold, the
 * upper-case placeholders italic, the brackets and bars roman. */
static void roff_usage(struct cm_buf *b, const char *usage)
{
	for (const char *p = usage; *p;) {
		size_t n = 0;
		bool upper = false, word = false;
		while (p[n] && (isalnum((unsigned char)p[n]) || p[n] == '-' || p[n] == '_')) {
			upper |= isupper((unsigned char)p[n]);
			word = true;
			n++;
		}
		if (!word) {
			roff_text(b, p, 1);
			p++;
			continue;
		}
		cm_buf_puts(b, upper ? "\\fI" : "\\fB");
		roff_text(b, p, n);
		cm_buf_puts(b, "\\fR");
		p += n;
	}
}

/* A paragraph: one sentence a line, as troff sources have it; `word` bold. */
static void roff_doc(struct cm_buf *b, const char *doc)
{
	bool bold = false;
	for (const char *p = doc; *p; p++) {
		if (*p == '`') {
			cm_buf_puts(b, bold ? "\\fR" : "\\fB");
			bold = !bold;
		} else if (*p == ' ' && p > doc && p[-1] == '.' && p[1] &&
			   isupper((unsigned char)p[1]) && !bold) {
			cm_buf_putc(b, '\n');
		} else {
			roff_text(b, p, 1);
		}
	}
	cm_buf_putc(b, '\n');
}

char *fcr_action_man(const struct fcr_action *table)
{
	struct cm_buf b = {0};
	for (const struct fcr_action *a = table; a->name; a++) {
		cm_buf_puts(&b, ".TP\n");
		roff_usage(&b, a->usage);
		cm_buf_putc(&b, '\n');
		roff_doc(&b, a->doc ? a->doc : "");
		if (a->takes_down)
			cm_buf_puts(&b, "Takes the machine away.\n");
	}
	return cm_buf_take(&b);
}
