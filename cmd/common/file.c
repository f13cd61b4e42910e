/* SPDX-License-Identifier: MIT */
/* Reading a whole file, capped. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static int fail(char *why, size_t why_len, const char *path, const char *what, int errnum)
{
	if (why)
		snprintf(why, why_len, "%s: %s%s%s", path, what, errnum ? ": " : "",
			 errnum ? strerror(errnum) : "");
	return -1;
}

int cm_read_file(const char *path, size_t max_bytes, char **bufp, size_t *lenp, char *why,
		 size_t why_len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(why, why_len, path, "cannot open", errno);
	struct cm_buf b = {0};
	cm_buf_putn(&b, "", 0);
	char chunk[65536];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			cm_buf_release(&b);
			return fail(why, why_len, path, "cannot read", e);
		}
		if (n == 0)
			break;
		if (b.len + (size_t)n > max_bytes) {
			close(fd);
			cm_buf_release(&b);
			char what[64];
			snprintf(what, sizeof(what), "larger than %zu bytes", max_bytes);
			return fail(why, why_len, path, what, 0);
		}
		cm_buf_putn(&b, chunk, (size_t)n);
	}
	close(fd);
	if (lenp)
		*lenp = b.len;
	*bufp = cm_buf_take(&b);
	return 0;
}
