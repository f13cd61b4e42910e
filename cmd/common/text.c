/* SPDX-License-Identifier: MIT */
/* What text may hold: well-formed UTF-8. */
#include <string.h>

#include "common.h"

size_t cm_utf8_valid_len(const char *s, size_t n)
{
	/* the lead byte's mask, the value of the bits it keeps, the sequence's
	 * length and the smallest code point it may carry */
	static const struct {
		unsigned char mask, lead;
		size_t len;
		unsigned min;
	} forms[] = {{0xe0, 0xc0, 2, 0x80}, {0xf0, 0xe0, 3, 0x800}, {0xf8, 0xf0, 4, 0x10000}};
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		size_t f = 0;
		while (f < CM_ARRAY_SIZE(forms) && (p[i] & forms[f].mask) != forms[f].lead)
			f++;
		if (f == CM_ARRAY_SIZE(forms) || n - i < forms[f].len)
			return i;
		unsigned cp = p[i] & (unsigned char)~forms[f].mask;
		for (size_t k = 1; k < forms[f].len; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				return i;
			cp = (cp << 6) | (p[i + k] & 0x3fu);
		}
		if (cp < forms[f].min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return i;
		i += forms[f].len;
	}
	return n;
}

char *cm_utf8_dup(const char *s)
{
	if (!s)
		return NULL;
	size_t n = strlen(s);
	struct cm_buf b = {0};
	size_t i = 0;
	for (;;) {
		size_t good = cm_utf8_valid_len(s + i, n - i);
		cm_buf_putn(&b, s + i, good);
		i += good;
		if (i == n)
			break;
		cm_buf_puts(&b, "\xef\xbf\xbd"); /* U+FFFD for the byte that is not */
		i++;
	}
	return cm_buf_take(&b);
}
