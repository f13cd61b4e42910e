/* SPDX-License-Identifier: MIT */
/* What names and text may hold. */
#include <ctype.h>
#include <string.h>

#include "fcr.h"

bool fcr_name_is_safe(const char *s)
{
	if (!*s || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (const char *p = s; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return false;
	}
	return true;
}

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
