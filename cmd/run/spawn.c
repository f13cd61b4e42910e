/* SPDX-License-Identifier: MIT */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_devnull(int flags)
{
	return open("/dev/null", flags | O_CLOEXEC);
}

static void close_pairs(int *a, int *b, int *c, int *d)
{
	int *pairs[] = {a, b, c, d};
	for (size_t i = 0; i < 4; i++) {
		for (int j = 0; j < 2; j++) {
			if (pairs[i][j] >= 0)
				close(pairs[i][j]);
			pairs[i][j] = -1;
		}
	}
}

/* In the child: make `fd` the child's `target` fd. */
static void child_dup(int fd, int target)
{
	if (fd == target) {
		int flags = fcntl(fd, F_GETFD);
		fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
		return;
	}
	dup2(fd, target);
}

int spawn(const struct spawn_opts *o, struct child *c, struct rerr *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, report[2] = {-1, -1};
	c->pid = -1;
	c->in_fd = c->out_fd = c->err_fd = -1;
	if ((o->stdin_fd == SPAWN_PIPE && pipe2(in, O_CLOEXEC) < 0) ||
	    (o->stdout_fd == SPAWN_PIPE && pipe2(out, O_CLOEXEC) < 0) ||
	    (o->stderr_fd == SPAWN_PIPE && pipe2(errp, O_CLOEXEC) < 0) ||
	    pipe2(report, O_CLOEXEC) < 0) {
		int e = errno;
		close_pairs(in, out, errp, report);
		return rerr_errno(err, e, "cannot create a pipe");
	}
	int fd_in = o->stdin_fd == SPAWN_PIPE	   ? in[0]
		    : o->stdin_fd == SPAWN_DEVNULL ? open_devnull(O_RDONLY)
						   : o->stdin_fd;
	int fd_out = o->stdout_fd == SPAWN_PIPE	     ? out[1]
		     : o->stdout_fd == SPAWN_DEVNULL ? open_devnull(O_WRONLY)
						     : o->stdout_fd;
	int fd_err = o->stderr_fd == SPAWN_PIPE	     ? errp[1]
		     : o->stderr_fd == SPAWN_DEVNULL ? open_devnull(O_WRONLY)
						     : o->stderr_fd;
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		rerr_errno(err, e, "cannot fork");
		goto fail;
	}
	if (pid == 0) {
		/* the child: only async-signal-safe work up to exec */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (o->own_pgrp)
			setpgid(0, 0);
		child_dup(fd_in, 0);
		child_dup(fd_out, 1);
		child_dup(fd_err, 2);
		int e = 0;
		if (o->cwd && chdir(o->cwd) < 0)
			e = errno;
		if (!e) {
			for (size_t i = 0; o->env_add && o->env_add[i]; i++)
				putenv(o->env_add[i]);
			execvp(o->argv[0], o->argv);
			e = errno;
		}
		ssize_t w = write(report[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	close(report[1]);
	report[1] = -1;
	int child_errno = 0;
	ssize_t n;
	do {
		n = read(report[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	close(report[0]);
	report[0] = -1;
	if (o->stdin_fd == SPAWN_DEVNULL && fd_in >= 0)
		close(fd_in);
	if (o->stdout_fd == SPAWN_DEVNULL && fd_out >= 0)
		close(fd_out);
	if (o->stderr_fd == SPAWN_DEVNULL && fd_err >= 0)
		close(fd_err);
	if (in[0] >= 0)
		close(in[0]);
	if (out[1] >= 0)
		close(out[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (n == (ssize_t)sizeof(child_errno)) {
		int st;
		waitpid(pid, &st, 0);
		if (in[1] >= 0)
			close(in[1]);
		if (out[0] >= 0)
			close(out[0]);
		if (errp[0] >= 0)
			close(errp[0]);
		if (o->cwd && child_errno != ENOENT)
			return rerr_errno(err, child_errno, "cannot run %s in %s", o->argv[0],
					  o->cwd);
		return rerr_errno(err, child_errno, "cannot run %s", o->argv[0]);
	}
	c->pid = pid;
	c->in_fd = in[1];
	c->out_fd = out[0];
	c->err_fd = errp[0];
	return 0;
fail:
	close_pairs(in, out, errp, report);
	if (o->stdin_fd == SPAWN_DEVNULL && fd_in >= 0)
		close(fd_in);
	if (o->stdout_fd == SPAWN_DEVNULL && fd_out >= 0)
		close(fd_out);
	if (o->stderr_fd == SPAWN_DEVNULL && fd_err >= 0)
		close(fd_err);
	return -1;
}

int child_wait(struct child *c, int *status)
{
	if (c->in_fd >= 0)
		close(c->in_fd);
	if (c->out_fd >= 0)
		close(c->out_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->in_fd = c->out_fd = c->err_fd = -1;
	if (c->pid <= 0)
		return -1;
	pid_t r;
	do {
		r = waitpid(c->pid, status, 0);
	} while (r < 0 && errno == EINTR);
	c->pid = -1;
	return r < 0 ? -1 : 0;
}

void describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "wait status %d", status);
}

bool status_ok(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define CAPTURE_ERR_MAX (64 * 1024)

int run_capture(char *const *argv, char *const *env_add, const void *input, size_t input_len,
		size_t out_max, volatile int *stop, struct capture *cap, struct rerr *err)
{
	memset(cap, 0, sizeof(*cap));
	struct spawn_opts o = {
	    .argv = argv,
	    .env_add = env_add,
	    .stdin_fd = input ? SPAWN_PIPE : SPAWN_DEVNULL,
	    .stdout_fd = SPAWN_PIPE,
	    .stderr_fd = SPAWN_PIPE,
	    .own_pgrp = true,
	};
	struct child c;
	if (spawn(&o, &c, err) < 0)
		return -1;
	if (c.in_fd >= 0)
		fcntl(c.in_fd, F_SETFL, fcntl(c.in_fd, F_GETFL) | O_NONBLOCK);
	struct sbuf out = {0}, errb = {0};
	sbuf_addn(&out, "", 0);
	sbuf_addn(&errb, "", 0);
	size_t written = 0;
	bool too_big = false;
	double kill_at = 0;
	if (c.in_fd >= 0 && input_len == 0) {
		close(c.in_fd);
		c.in_fd = -1;
	}
	while (c.out_fd >= 0 || c.err_fd >= 0) {
		struct pollfd pfd[3];
		int n = 0;
		int i_out = -1, i_err = -1, i_in = -1;
		if (c.out_fd >= 0) {
			i_out = n;
			pfd[n++] = (struct pollfd){.fd = c.out_fd, .events = POLLIN};
		}
		if (c.err_fd >= 0) {
			i_err = n;
			pfd[n++] = (struct pollfd){.fd = c.err_fd, .events = POLLIN};
		}
		if (c.in_fd >= 0) {
			i_in = n;
			pfd[n++] = (struct pollfd){.fd = c.in_fd, .events = POLLOUT};
		}
		int pr = poll(pfd, (nfds_t)n, 100);
		if (stop && *stop && !cap->stopped) {
			cap->stopped = true;
			kill(c.pid, SIGTERM);
			kill_at = mono_now() + 5;
		}
		if (kill_at > 0 && mono_now() > kill_at) {
			kill(c.pid, SIGKILL);
			kill_at = 0;
		}
		if (pr <= 0)
			continue;
		char buf[65536];
		if (i_in >= 0 && pfd[i_in].revents) {
			ssize_t w =
			    write(c.in_fd, (const char *)input + written, input_len - written);
			if (w > 0)
				written += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || written == input_len) {
				close(c.in_fd);
				c.in_fd = -1;
			}
		}
		if (i_out >= 0 && pfd[i_out].revents) {
			ssize_t r = read(c.out_fd, buf, sizeof(buf));
			if (r > 0 && out.len + (size_t)r <= out_max) {
				sbuf_addn(&out, buf, (size_t)r);
			} else if (r > 0) {
				too_big = true;
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				close(c.out_fd);
				c.out_fd = -1;
			}
		}
		if (i_err >= 0 && pfd[i_err].revents) {
			ssize_t r = read(c.err_fd, buf, sizeof(buf));
			if (r > 0 && errb.len + (size_t)r <= CAPTURE_ERR_MAX) {
				sbuf_addn(&errb, buf, (size_t)r);
			} else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
				close(c.err_fd);
				c.err_fd = -1;
			}
		}
	}
	child_wait(&c, &cap->status);
	cap->out_len = out.len;
	cap->out = sbuf_take(&out);
	cap->err_len = errb.len;
	cap->err = sbuf_take(&errb);
	if (too_big) {
		capture_release(cap);
		return rerr_set(err, "%s wrote more than %zu bytes", argv[0], out_max);
	}
	return 0;
}

void capture_release(struct capture *cap)
{
	free(cap->out);
	free(cap->err);
	cap->out = cap->err = NULL;
}
