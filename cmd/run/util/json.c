/* SPDX-License-Identifier: MIT */
/* JSON values the controller writes and reads (fcr.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fcr.h"

json_t *fcr_jutc(double wall)
{
	char buf[40];
	cm_format_utc(buf, sizeof(buf), wall);
	return json_string(buf);
}

json_t *fcr_jseconds(double s)
{
	return json_real(round(s * 1000.0) / 1000.0);
}

json_t *fcr_jtext(const char *s)
{
	size_t n = strlen(s);
	size_t good = cm_utf8_valid_len(s, n);
	if (good == n)
		return json_stringn(s, n);
	struct cm_buf b = {0};
	for (;;) {
		cm_buf_putn(&b, s, good);
		if (good == n)
			break;
		cm_buf_puts(&b, "\xef\xbf\xbd");
		s += good + 1;
		n -= good + 1;
		good = cm_utf8_valid_len(s, n);
	}
	json_t *j = json_stringn(b.s, b.len);
	cm_buf_release(&b);
	return j;
}

const char *fcr_jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

void fcr_jcopy_str(char *buf, size_t len, json_t *o, const char *key)
{
	const char *s = fcr_jstr(o, key);
	snprintf(buf, len, "%s", s ? s : "");
}

void fcr_jset_text(json_t *o, const char *key, const char *v)
{
	json_object_set_new(o, key, v ? fcr_jtext(v) : json_null());
}

bool fcr_has_status(json_t *o, const char *s)
{
	const char *st = fcr_jstr(o, "status");
	return st && !strcmp(st, s);
}
