/* SPDX-License-Identifier: MIT */
/* Shell-like words: splitting campaign values, quoting for the remote shell. */
#include <string.h>

#include "fcr.h"

int fcr_shell_split(const char *text, struct cm_strv *out, struct fcr_error *err)
{
	const char *p = text;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return 0;
		struct cm_buf w = {0};
		cm_buf_putn(&w, "", 0);
		while (*p && *p != ' ' && *p != '\t') {
			if (*p == '\'') {
				const char *end = strchr(p + 1, '\'');
				if (!end) {
					cm_buf_release(&w);
					cm_strv_release(out);
					return fcr_fail(err, "unterminated ' quote");
				}
				cm_buf_putn(&w, p + 1, (size_t)(end - p - 1));
				p = end + 1;
			} else if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && p[1] && strchr("\\\"$`", p[1]))
						p++;
					cm_buf_putn(&w, p, 1);
					p++;
				}
				if (*p != '"') {
					cm_buf_release(&w);
					cm_strv_release(out);
					return fcr_fail(err, "unterminated \" quote");
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					cm_buf_release(&w);
					cm_strv_release(out);
					return fcr_fail(err, "backslash at the end");
				}
				cm_buf_putn(&w, p + 1, 1);
				p += 2;
			} else {
				cm_buf_putn(&w, p, 1);
				p++;
			}
		}
		cm_strv_take(out, cm_buf_take(&w));
	}
}

void fcr_shell_quote(struct cm_buf *b, const char *word)
{
	bool plain = *word != '\0';
	for (const char *p = word; *p; p++) {
		if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
			    "_-./=:,+@%",
			    *p)) {
			plain = false;
			break;
		}
	}
	if (plain) {
		cm_buf_puts(b, word);
		return;
	}
	cm_buf_puts(b, "'");
	for (const char *p = word; *p; p++) {
		if (*p == '\'')
			cm_buf_puts(b, "'\\''");
		else
			cm_buf_putn(b, p, 1);
	}
	cm_buf_puts(b, "'");
}

char *fcr_shell_join(char *const *argv)
{
	struct cm_buf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			cm_buf_puts(&b, " ");
		fcr_shell_quote(&b, argv[i]);
	}
	return cm_buf_take(&b);
}

/* ---- files -------------------------------------------------------------- */
