/* SPDX-License-Identifier: MIT */
/*
 * Child processes from argv arrays (fork/exec, never a shell), and a
 * capture helper for short commands.
 */
#ifndef FCR_SPAWN_H
#define FCR_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "fcr.h"

#define FCR_SPAWN_PIPE	  (-1) /* a pipe to the parent */
#define FCR_SPAWN_DEVNULL (-2) /* /dev/null */

struct fcr_spawn_opts {
	char *const *argv;
	char *const *env_add; /* NAME=value added to the environment; may be NULL */
	const char *cwd;      /* NULL = ours */
	int stdin_fd;	      /* an fd, FCR_SPAWN_PIPE or FCR_SPAWN_DEVNULL */
	int stdout_fd;
	int stderr_fd;
	bool own_pgrp; /* its own process group: a terminal's Ctrl-C does not reach it */
};

struct fcr_child {
	pid_t pid;
	int in_fd;  /* write end when stdin_fd was FCR_SPAWN_PIPE, else -1 */
	int out_fd; /* read ends when FCR_SPAWN_PIPE, else -1 */
	int err_fd;
};

/* Starts the child, which gets SIGTERM when fiocamp-run dies, however it
 * dies (PR_SET_PDEATHSIG).  An exec failure ("fio: not found") is reported
 * here, not as an exit status.  0 or -1. */
int fcr_spawn(const struct fcr_spawn_opts *o, struct fcr_child *c, struct fcr_error *err);
/* Waits for the child; *status is the raw wait status.  Closes its fds. */
int fcr_child_wait(struct fcr_child *c, int *status);
/* "exit status 1", "killed by signal 9" */
void fcr_describe_status(char *buf, size_t len, int status);

struct fcr_capture {
	char *out; /* stdout, NUL-terminated */
	size_t out_len;
	char *err; /* stderr, NUL-terminated */
	size_t err_len;
	int status;   /* raw wait status */
	bool stopped; /* *stop became nonzero and the child was told to end */
};

/*
 * Runs argv in its own process group with `input` on stdin, collecting
 * stdout (up to out_max bytes) and stderr (up to 64 KiB).  When *stop becomes
 * nonzero the group gets SIGTERM (and SIGKILL 5 s later).  0 when it ran
 * (whatever its exit status), -1 when it could not be started or its output
 * was too large.
 */
int fcr_run_capture(char *const *argv, const void *input, size_t input_len, size_t out_max,
		    volatile int *stop, struct fcr_capture *cap, struct fcr_error *err);
void fcr_capture_release(struct fcr_capture *cap);

/* True when the wait status says: exited with 0. */
bool fcr_exited_ok(int status);

#endif
