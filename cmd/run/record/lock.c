/* SPDX-License-Identifier: MIT */
/*
 * One session per campaign directory: the directory itself is locked with
 * flock() for the whole session.  The kernel lets go of the lock when the
 * process ends, however it ends, so it is never stale, and nothing is
 * written into the directory for it.  Who holds it is read from
 * /proc/locks.
 */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The pid holding a flock() on the file of fd, from /proc/locks; 0 if not found. */
static long lock_holder(int fd)
{
	struct stat st;
	char *text;
	if (fstat(fd, &st) < 0 || cm_read_file("/proc/locks", 1u << 20, &text, NULL, NULL, 0) < 0)
		return 0;
	/* "1: FLOCK  ADVISORY  WRITE 4711 fd:01:1234 0 EOF" */
	char want[64];
	snprintf(want, sizeof(want), "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
		 (unsigned long long)st.st_ino);
	long pid = 0;
	char *save = NULL;
	for (char *l = strtok_r(text, "\n", &save); l && !pid; l = strtok_r(NULL, "\n", &save)) {
		char kind[16], mode[16], type[16], where[64];
		long p;
		if (strstr(l, "->"))
			continue; /* a waiter, not the holder */
		if (sscanf(l, "%*s %15s %15s %15s %ld %63s", kind, mode, type, &p, where) == 5 &&
		    !strcmp(kind, "FLOCK") && !strcmp(where, want))
			pid = p;
	}
	free(text);
	return pid;
}

int fcr_record_lock(struct fcr_record *r, const char *dir, struct fcr_error *err)
{
	/* close-on-exec: a child that outlived us must not keep holding it */
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fcr_fail_errno(err, errno, "%s: cannot open", dir);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		long pid = e == EWOULDBLOCK ? lock_holder(fd) : 0;
		close(fd);
		if (e == EWOULDBLOCK && pid > 0)
			return fcr_fail(err,
					"%s is in use by fiocamp-run (pid %ld): one session at a "
					"time (wait for it, or stop it with Ctrl-C or kill %ld)",
					dir, pid, pid);
		if (e == EWOULDBLOCK)
			return fcr_fail(
			    err, "%s is in use by another fiocamp-run: one session at a time", dir);
		return fcr_fail_errno(err, e, "%s: cannot lock", dir);
	}
	r->lock_fd = fd;
	return 0;
}
