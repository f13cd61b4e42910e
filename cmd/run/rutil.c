/* SPDX-License-Identifier: MIT */
#include "rutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int rerr_set(struct rerr *err, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int rerr_errno(struct rerr *err, int errnum, const char *fmt, ...)
{
	if (!err)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	size_t n = strlen(err->msg);
	snprintf(err->msg + n, sizeof(err->msg) - n, ": %s", strerror(errnum));
	return -1;
}

/* ---- shell words -------------------------------------------------------- */

int shell_split(const char *text, struct cm_strv *out, struct rerr *err)
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
					return rerr_set(err, "unterminated ' quote");
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
					return rerr_set(err, "unterminated \" quote");
				}
				p++;
			} else if (*p == '\\') {
				if (!p[1]) {
					cm_buf_release(&w);
					cm_strv_release(out);
					return rerr_set(err, "backslash at the end");
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

void shell_quote(struct cm_buf *b, const char *word)
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

char *shell_join(char *const *argv)
{
	struct cm_buf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			cm_buf_puts(&b, " ");
		shell_quote(&b, argv[i]);
	}
	return cm_buf_take(&b);
}

/* ---- files -------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int write_new(const char *path, const void *buf, size_t len, int flags, bool sync,
		     struct rerr *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return rerr_errno(err, errno, "%s: cannot create", path);
	if (write_all(fd, buf, len) < 0 || (sync && fsync(fd) < 0)) {
		int e = errno;
		close(fd);
		return rerr_errno(err, e, "%s: cannot write", path);
	}
	if (close(fd) < 0)
		return rerr_errno(err, errno, "%s: cannot write", path);
	return 0;
}

int write_file(const char *path, const void *buf, size_t len, bool replace, struct rerr *err)
{
	return write_new(path, buf, len, replace ? O_TRUNC : O_EXCL, true, err);
}

int write_file_nosync(const char *path, const void *buf, size_t len, struct rerr *err)
{
	return write_new(path, buf, len, O_EXCL, false, err);
}

int fsync_dir(const char *dir, struct rerr *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rerr_errno(err, errno, "%s: cannot open directory", dir);
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	if (rc < 0 && e != EINVAL)
		return rerr_errno(err, e, "%s: cannot sync directory", dir);
	return 0;
}

int write_file_atomic(const char *path, const void *buf, size_t len, struct rerr *err)
{
	char *tmp = cm_asprintf("%s.tmp", path);
	int rc = write_file(tmp, buf, len, true, err);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = rerr_errno(err, errno, "%s: cannot rename to %s", tmp, path);
	free(tmp);
	if (rc < 0)
		return rc;
	char *dir = path_dirname(path);
	rc = fsync_dir(dir, err);
	free(dir);
	return rc;
}

int mkdir_p(const char *path, struct rerr *err)
{
	char *p = cm_strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			rerr_errno(err, e, "%s: cannot create directory", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, 0755) < 0 && errno != EEXIST)
		rc = rerr_errno(err, errno, "%s: cannot create directory", p);
	free(p);
	return rc;
}

bool path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return cm_strdup(".");
	if (slash == path)
		return cm_strdup("/");
	return cm_strndup(path, (size_t)(slash - path));
}

char *path_stem(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), sl = strlen(suffix);
	if (n > sl && !strcmp(base + n - sl, suffix))
		n -= sl;
	return cm_strndup(base, n);
}

bool name_is_safe(const char *s)
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

size_t utf8_valid_len(const char *s, size_t n)
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
