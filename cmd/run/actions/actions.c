/* SPDX-License-Identifier: MIT */
/* The action table as one: the built-in groups, then the provider's (action.h). */
#include <ctype.h>
#include <string.h>

#include "actions/builtin.h"
#include "provider.h"

static const struct fcr_action *const builtin_groups[] = {
    fcr_wait_actions,
    fcr_command_actions,
    fcr_hash_actions,
    fcr_testfile_actions,
};

const struct fcr_action *fcr_builtin_action(size_t i)
{
	for (size_t g = 0; g < CM_ARRAY_SIZE(builtin_groups); g++) {
		for (const struct fcr_action *a = builtin_groups[g]; a->name; a++) {
			if (i-- == 0)
				return a;
		}
	}
	return NULL;
}

/* The i-th row of table, or of the built-in ones when table is NULL. */
static const struct fcr_action *row(const struct fcr_action *table, size_t i)
{
	if (!table)
		return fcr_builtin_action(i);
	for (size_t k = 0; k < i; k++) {
		if (!table[k].name)
			return NULL;
	}
	return table[i].name ? &table[i] : NULL;
}

const struct fcr_action *fcr_action_find(const struct fcr_provider *p, const char *name,
					 bool *from_provider)
{
	*from_provider = false;
	for (size_t i = 0; fcr_builtin_action(i); i++) {
		if (!strcmp(fcr_builtin_action(i)->name, name))
			return fcr_builtin_action(i);
	}
	for (const struct fcr_action *a = p ? p->actions : NULL; a && a->name; a++) {
		if (!strcmp(a->name, name)) {
			*from_provider = true;
			return a;
		}
	}
	return NULL;
}

char *fcr_action_usages(const struct fcr_action *table)
{
	struct cm_buf b = {0};
	for (size_t i = 0; row(table, i); i++)
		cm_buf_printf(&b, "%s%s", i ? ", " : "", row(table, i)->usage);
	return cm_buf_take(&b);
}

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
	for (size_t i = 0; row(table, i); i++) {
		const struct fcr_action *a = row(table, i);
		cm_buf_puts(&b, ".TP\n");
		roff_usage(&b, a->usage);
		cm_buf_putc(&b, '\n');
		roff_doc(&b, a->doc ? a->doc : "");
		if (a->takes_down)
			cm_buf_puts(&b, "Takes the machine away.\n");
	}
	return cm_buf_take(&b);
}

int fcr_step_check_failed(const struct fcr_step *step, struct fcr_error *err)
{
	char msg[sizeof(err->msg)];
	snprintf(msg, sizeof(msg), "%s", err->msg);
	return fcr_fail(err, "'%s': %s", step->text, msg);
}
