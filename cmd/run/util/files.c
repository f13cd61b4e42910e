/* SPDX-License-Identifier: MIT */
/* Durable file writes and paths: what the campaign directory is made of. */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fcr.h"

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
		     struct fcr_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	if (fd < 0)
		return fcr_fail_errno(err, errno, "%s: cannot create", path);
	if (write_all(fd, buf, len) < 0 || (sync && fsync(fd) < 0)) {
		int e = errno;
		close(fd);
		return fcr_fail_errno(err, e, "%s: cannot write", path);
	}
	if (close(fd) < 0)
		return fcr_fail_errno(err, errno, "%s: cannot write", path);
	return 0;
}

int fcr_write_file(const char *path, const void *buf, size_t len, bool replace,
		   struct fcr_error *err)
{
	return write_new(path, buf, len, replace ? O_TRUNC : O_EXCL, true, err);
}

int fcr_write_file_nosync(const char *path, const void *buf, size_t len, struct fcr_error *err)
{
	return write_new(path, buf, len, O_EXCL, false, err);
}

int fcr_fsync_dir(const char *dir, struct fcr_error *err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fcr_fail_errno(err, errno, "%s: cannot open directory", dir);
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	if (rc < 0 && e != EINVAL)
		return fcr_fail_errno(err, e, "%s: cannot sync directory", dir);
	return 0;
}

int fcr_fsync_fds(const int *fds, size_t n, size_t *failed)
{
	/*
	 * The writeback of all first, then the fsyncs: the blocks of every file
	 * are allocated in the file system's running transaction, so that the
	 * first fsync commits them all and the others find little left to do.
	 * A failure here is no error (the fsync below tells): it only starts
	 * the writeback early.
	 */
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0)
			sync_file_range(fds[i], 0, 0, SYNC_FILE_RANGE_WRITE);
	}
	for (size_t i = 0; i < n; i++) {
		/* a directory that cannot be synced (some file systems) is no error */
		if (fds[i] >= 0 && fsync(fds[i]) < 0 && errno != EINVAL) {
			if (failed)
				*failed = i;
			return -errno;
		}
	}
	return 0;
}

int fcr_write_file_atomic(const char *path, const void *buf, size_t len, int sync_too,
			  const char *sync_too_name, struct fcr_error *err)
{
	char *tmp = cm_asprintf("%s.tmp", path);
	int rc = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		rc = fcr_fail_errno(err, errno, "%s: cannot create", tmp);
	else if (write_all(fd, buf, len) < 0)
		rc = fcr_fail_errno(err, errno, "%s: cannot write", tmp);
	if (rc == 0) {
		int fds[2] = {fd, sync_too};
		size_t failed = 0;
		int e = -fcr_fsync_fds(fds, 2, &failed);
		if (e)
			rc =
			    fcr_fail_errno(err, e, "%s: cannot sync", failed ? sync_too_name : tmp);
	}
	if (fd >= 0 && close(fd) < 0 && rc == 0)
		rc = fcr_fail_errno(err, errno, "%s: cannot write", tmp);
	if (rc == 0 && rename(tmp, path) < 0)
		rc = fcr_fail_errno(err, errno, "%s: cannot rename to %s", tmp, path);
	free(tmp);
	if (rc < 0)
		return rc;
	char *dir = fcr_path_dirname(path);
	rc = fcr_fsync_dir(dir, err);
	free(dir);
	return rc;
}

int fcr_mkdir_p(const char *path, unsigned mode, struct fcr_error *err)
{
	char *p = cm_strdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST) {
			int e = errno;
			fcr_fail_errno(err, e, "%s: cannot create directory", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, (mode_t)mode) < 0 && errno != EEXIST)
		rc = fcr_fail_errno(err, errno, "%s: cannot create directory", p);
	free(p);
	return rc;
}

bool fcr_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

char *fcr_path_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return cm_strdup(".");
	if (slash == path)
		return cm_strdup("/");
	return cm_strndup(path, (size_t)(slash - path));
}

char *fcr_aside_name(const char *base, const char *tag, unsigned *k)
{
	for (*k = 1;; (*k)++) {
		char *p = cm_campaign_aside(base, tag, *k);
		if (!fcr_path_exists(p))
			return p;
		free(p);
	}
}

char *fcr_path_stem(const char *path, const char *suffix)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t n = strlen(base), sl = strlen(suffix);
	if (n > sl && !strcmp(base + n - sl, suffix))
		n -= sl;
	return cm_strndup(base, n);
}

char *fcr_path_expand_home(const char *path)
{
	if (path[0] != '~' || (path[1] != '/' && path[1] != '\0'))
		return cm_strdup(path);
	const char *home = getenv("HOME");
	if (!home || !home[0])
		return NULL;
	return cm_asprintf("%s%s", home, path + 1);
}
