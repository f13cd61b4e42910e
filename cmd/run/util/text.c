/* SPDX-License-Identifier: MIT */
/* What names and text may hold. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "fcr.h"

int fcr_parse_uint(const char *v, unsigned long max, unsigned long *out)
{
	if (!isdigit((unsigned char)*v))
		return -1;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n > max)
		return -1;
	*out = n;
	return 0;
}

int fcr_parse_host_port(const char *text, char **host, unsigned *port, bool *port_given)
{
	const char *colon;
	*port_given = false;
	if (*text == '[') {
		const char *close = strchr(text, ']');
		if (!close || close == text + 1)
			return -1;
		*host = cm_strndup(text + 1, (size_t)(close - text - 1));
		colon = close[1] == ':' ? close + 1 : NULL;
		if (close[1] && !colon)
			goto bad;
	} else {
		colon = strchr(text, ':');
		if (colon && strchr(colon + 1, ':'))
			return -1; /* a bare IPv6 address needs brackets */
		*host = colon ? cm_strndup(text, (size_t)(colon - text)) : cm_strdup(text);
		if (!**host)
			goto bad;
	}
	if (colon) {
		unsigned long n;
		if (fcr_parse_uint(colon + 1, 65535, &n) < 0 || n == 0)
			goto bad;
		*port = (unsigned)n;
		*port_given = true;
	}
	return 0;
bad:
	free(*host);
	*host = NULL;
	return -1;
}

/* Longer words get no suggestion: a name is at most FCR_NAME_MAX_BYTES. */
#define SUGGEST_MAX_BYTES 256

size_t fcr_edit_distance(const char *a, const char *b)
{
	size_t na = strlen(a), nb = strlen(b);
	if (na > SUGGEST_MAX_BYTES || nb > SUGGEST_MAX_BYTES)
		return SIZE_MAX;
	/* three rows of the optimal-string-alignment table: a swap of two
	 * neighbours ("rw4k" for "wr4k") is one edit, as people make them */
	size_t rows[3][SUGGEST_MAX_BYTES + 1];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= nb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= na; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= nb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = prev[j - 1] + cost;
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[nb];
}

const char *fcr_closest_name(const char *word, const struct cm_strv *names)
{
	size_t n = strlen(word);
	/* one edit in a short name, about one in three in a long one */
	size_t limit = n < 6 ? 1 : n / 3;
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	for (size_t i = 0; i < names->n; i++) {
		size_t d = fcr_edit_distance(word, names->v[i]);
		if (d > 0 && d <= limit && d < best_d) {
			best = names->v[i];
			best_d = d;
		}
	}
	return best;
}

/* mountinfo and /proc/swaps write a blank, a tab, a newline and a backslash
 * as \ooo. */
void fcr_unescape_octal(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}
