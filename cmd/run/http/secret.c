/* SPDX-License-Identifier: MIT */
/* Credentials in files and the environment (secret.h). */
#include "http/secret.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

void fcr_secret_guard_process(void)
{
	prctl(PR_SET_DUMPABLE, 0);
}

void fcr_secret_free(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}

bool fcr_secret_is_word(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p <= 0x20 || *p >= 0x7f)
			return false;
	}
	return true;
}

/* A copy of [s, s+len) without surrounding white space; NULL when empty. */
static char *trimmed(const char *s, size_t len)
{
	while (len && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r' ||
		       s[len - 1] == '\n'))
		len--;
	return len ? cm_strndup(s, len) : NULL;
}

char *fcr_secret_word(const char *text)
{
	fcr_secret_guard_process();
	char *w = trimmed(text, strlen(text));
	if (w && !fcr_secret_is_word(w)) {
		fcr_secret_free(w);
		w = NULL;
	}
	return w;
}

int fcr_secret_read_file(const char *path, const char *what, const char *hint, char **out,
			 struct fcr_error *err)
{
	*out = NULL;
	fcr_secret_guard_process();
	/* O_NONBLOCK: a FIFO (or a device) opens at once instead of waiting for a
	 * writer, and is refused below as no regular file */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fcr_fail_as(err, FCR_E_TOKEN, "cannot open token file %s: %s%s%s%s", path,
				   strerror(errno), errno == ENOENT ? " (" : "",
				   errno == ENOENT ? hint : "", errno == ENOENT ? ")" : "");
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN, "cannot stat token file %s: %s", path,
				   strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN, "token file %s is not a regular file", path);
	}
	if (st.st_uid != geteuid()) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "token file %s belongs to uid %u, not to you (uid %u)", path,
				   (unsigned)st.st_uid, (unsigned)geteuid());
	}
	if (st.st_mode & 077) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "token file %s has mode %04o; others can read it.  It must be "
				   "0600 or stricter: run chmod 600 %s",
				   path, (unsigned)(st.st_mode & 07777), path);
	}
	if (st.st_size > FCR_SECRET_FILE_MAX_BYTES) {
		close(fd);
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "token file %s is %lld bytes; a %s is at most %d", path,
				   (long long)st.st_size, what, FCR_SECRET_FILE_MAX_BYTES);
	}
	char *buf = cm_malloc(FCR_SECRET_FILE_MAX_BYTES + 1);
	size_t len = 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, FCR_SECRET_FILE_MAX_BYTES - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			explicit_bzero(buf, len);
			free(buf);
			return fcr_fail_as(err, FCR_E_TOKEN, "cannot read token file %s: %s", path,
					   strerror(e));
		}
		if (n == 0 || len + (size_t)n == FCR_SECRET_FILE_MAX_BYTES) {
			len += (size_t)n;
			break;
		}
		len += (size_t)n;
	}
	close(fd);
	const char *nul = memchr(buf, '\0', len);
	if (nul) {
		size_t at = (size_t)(nul - buf);
		explicit_bzero(buf, len);
		free(buf);
		/* the text would end there: a truncated secret sent, refused as wrong */
		return fcr_fail_as(
		    err, FCR_E_TOKEN,
		    "token file %s holds a NUL byte (at byte %zu); it must hold only the "
		    "%s, as text",
		    path, at + 1, what);
	}
	char *word = trimmed(buf, len);
	explicit_bzero(buf, len);
	free(buf);
	if (!word)
		return fcr_fail_as(err, FCR_E_TOKEN, "token file %s is empty (%s)", path, hint);
	if (!fcr_secret_is_word(word)) {
		fcr_secret_free(word);
		return fcr_fail_as(err, FCR_E_TOKEN,
				   "token file %s holds more than one word; it must hold only the "
				   "%s",
				   path, what);
	}
	*out = word;
	return 0;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fcr_secret_write_file(const char *path, const char *text, struct fcr_error *err)
{
	fcr_secret_guard_process();
	char *copy = cm_strdup(path);
	char *copy2 = cm_strdup(path);
	char *dir = dirname(copy);
	const char *base = basename(copy2);
	char *tmp = NULL;
	int rc = fcr_mkdir_p(dir, 0700, err);
	if (rc < 0) {
		if (err)
			err->code = FCR_E_TOKEN;
		goto out;
	}
	tmp = cm_asprintf("%s/.%s.XXXXXX", dir, base);
	/* mkstemp creates the file with mode 0600: never readable by others, not even briefly */
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = fcr_fail_as(err, FCR_E_TOKEN, "cannot create a file in %s: %s", dir,
				 strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	bool ok = fchmod(fd, 0600) == 0 && write_all(fd, text, strlen(text)) == 0 &&
		  write_all(fd, "\n", 1) == 0 && fsync(fd) == 0;
	int e = errno;
	if (close(fd) < 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok || rename(tmp, path) < 0) {
		if (ok)
			e = errno;
		rc = fcr_fail_as(err, FCR_E_TOKEN, "cannot write token file %s: %s", path,
				 strerror(e));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	/* the rename itself must survive a crash */
	fcr_fsync_dir(dir, NULL);
out:
	if (tmp) {
		unlink(tmp);
		free(tmp);
	}
	free(copy);
	free(copy2);
	return rc;
}
