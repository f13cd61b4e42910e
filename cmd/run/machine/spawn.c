/* SPDX-License-Identifier: MIT */
#include "machine/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int open_devnull(int flags)
{
	return open("/dev/null", flags | O_CLOEXEC);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_pairs(int *a, int *b, int *c, int *d)
{
	int *pairs[] = {a, b, c, d};
	for (size_t i = 0; i < 4; i++) {
		close_fd(&pairs[i][0]);
		close_fd(&pairs[i][1]);
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

/* Our environment with `add` (NAME=value) put in, replacing what has the
 * same name.  Built before fork: the child may not allocate.  The strings
 * are borrowed; free the array only. */
static char **build_env(char *const *add)
{
	extern char **environ;
	size_t n_env = 0, n_add = 0;
	while (environ[n_env])
		n_env++;
	while (add && add[n_add])
		n_add++;
	char **env = cm_calloc(n_env + n_add + 1, sizeof(*env));
	size_t n = 0;
	for (size_t i = 0; i < n_env; i++) {
		const char *eq = strchr(environ[i], '=');
		size_t name_len = eq ? (size_t)(eq - environ[i]) + 1 : strlen(environ[i]);
		bool replaced = false;
		for (size_t k = 0; k < n_add && !replaced; k++)
			replaced = !strncmp(add[k], environ[i], name_len);
		if (!replaced)
			env[n++] = environ[i];
	}
	for (size_t k = 0; k < n_add; k++)
		env[n++] = add[k];
	env[n] = NULL;
	return env;
}

/* The signals fiocamp-run catches (engine/safety.c). */
static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* What the child is set up with (fcr_spawn). */
struct child_setup {
	const struct fcr_spawn_opts *o;
	char **env;
	int fd_in, fd_out, fd_err, report_w;
	pid_t parent;
};

/*
 * Starts the child: vfork, so that it borrows our memory until it execs
 * instead of a copy of our page tables, which costs more the more the
 * manifest holds (a campaign of 20,000 runs).  Up to exec the child makes
 * only async-signal-safe calls (glibc's execvp builds the paths it tries on
 * the stack: no allocation, no lock), writes nothing of ours but its own
 * locals (and errno, which we do not read after a vfork that worked), and
 * never returns from here; a failed exec is told through report_w.  Our
 * caller's signals stay blocked meanwhile.
 */
static pid_t __attribute__((noinline)) start_child(const struct child_setup *s)
{
	pid_t pid = vfork();
	if (pid != 0)
		return pid;
	/* the child: only async-signal-safe calls up to exec */
	/*
	 * It must not outlive us: when fiocamp-run dies (kill -9 too) it
	 * gets SIGTERM, which fio takes as "stop now", ssh as "hang up".
	 * Kept across exec; checked against a parent that died already.
	 */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != s->parent)
		_exit(127);
	struct sigaction dfl, cur;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < CM_ARRAY_SIZE(caught_signals); i++) {
		/* one that is ignored (nohup) stays so */
		if (sigaction(caught_signals[i], NULL, &cur) == 0 && cur.sa_handler != SIG_IGN)
			sigaction(caught_signals[i], &dfl, NULL);
	}
	sigaction(SIGPIPE, &dfl, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (s->o->own_pgrp)
		setpgid(0, 0);
	child_dup(s->fd_in, 0);
	child_dup(s->fd_out, 1);
	child_dup(s->fd_err, 2);
	int e = 0;
	if (s->o->cwd && chdir(s->o->cwd) < 0)
		e = errno;
	if (!e) {
		if (s->env)
			execvpe(s->o->argv[0], s->o->argv, s->env);
		else
			execvp(s->o->argv[0], s->o->argv);
		e = errno;
	}
	ssize_t w = write(s->report_w, &e, sizeof(e));
	(void)w;
	_exit(127);
}

int fcr_spawn(const struct fcr_spawn_opts *o, struct fcr_child *c, struct fcr_error *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, report[2] = {-1, -1};
	c->pid = -1;
	c->in_fd = c->out_fd = c->err_fd = -1;
	if ((o->stdin_fd == FCR_SPAWN_PIPE && pipe2(in, O_CLOEXEC) < 0) ||
	    (o->stdout_fd == FCR_SPAWN_PIPE && pipe2(out, O_CLOEXEC) < 0) ||
	    (o->stderr_fd == FCR_SPAWN_PIPE && pipe2(errp, O_CLOEXEC) < 0) ||
	    pipe2(report, O_CLOEXEC) < 0) {
		int e = errno;
		close_pairs(in, out, errp, report);
		return fcr_fail_errno(err, e, "cannot create a pipe");
	}
	int fd_in = o->stdin_fd == FCR_SPAWN_PIPE      ? in[0]
		    : o->stdin_fd == FCR_SPAWN_DEVNULL ? open_devnull(O_RDONLY)
						       : o->stdin_fd;
	int fd_out = o->stdout_fd == FCR_SPAWN_PIPE	 ? out[1]
		     : o->stdout_fd == FCR_SPAWN_DEVNULL ? open_devnull(O_WRONLY)
							 : o->stdout_fd;
	int fd_err = o->stderr_fd == FCR_SPAWN_PIPE	 ? errp[1]
		     : o->stderr_fd == FCR_SPAWN_DEVNULL ? open_devnull(O_WRONLY)
							 : o->stderr_fd;
	char **env = o->env_add ? build_env(o->env_add) : NULL;
	/*
	 * Until it has set their default actions, the child must not run our
	 * handlers for the signals we catch (a Ctrl-C to the process group
	 * would be counted twice in the counter it shares with us until exec,
	 * and a first one taken for a second): they stay blocked across vfork.
	 */
	sigset_t caught, old;
	sigemptyset(&caught);
	for (size_t i = 0; i < CM_ARRAY_SIZE(caught_signals); i++)
		sigaddset(&caught, caught_signals[i]);
	sigprocmask(SIG_BLOCK, &caught, &old);
	struct child_setup setup = {o, env, fd_in, fd_out, fd_err, report[1], getpid()};
	pid_t pid = start_child(&setup);
	int fork_errno = errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(env);
	/* the child's ends, and the /dev/null we opened for it */
	close_fd(&report[1]);
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);
	if (o->stdin_fd == FCR_SPAWN_DEVNULL)
		close_fd(&fd_in);
	if (o->stdout_fd == FCR_SPAWN_DEVNULL)
		close_fd(&fd_out);
	if (o->stderr_fd == FCR_SPAWN_DEVNULL)
		close_fd(&fd_err);
	if (pid < 0) {
		close_pairs(in, out, errp, report);
		return fcr_fail_errno(err, fork_errno, "cannot fork");
	}
	int child_errno = 0;
	ssize_t n;
	do {
		n = read(report[0], &child_errno, sizeof(child_errno));
	} while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(child_errno)) {
		/* exec failed: the child has exited, collect it */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_pairs(in, out, errp, report);
		if (o->cwd && child_errno != ENOENT)
			return fcr_fail_errno(err, child_errno, "cannot run %s in %s", o->argv[0],
					      o->cwd);
		return fcr_fail_errno(err, child_errno, "cannot run %s", o->argv[0]);
	}
	close_fd(&report[0]);
	c->pid = pid;
	c->in_fd = in[1];
	c->out_fd = out[0];
	c->err_fd = errp[0];
	return 0;
}

int fcr_child_wait(struct fcr_child *c, int *status)
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

void fcr_describe_status(char *buf, size_t len, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "wait status %d", status);
}

bool fcr_exited_ok(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

#define CAPTURE_ERR_MAX (64 * 1024)

int fcr_run_capture(char *const *argv, const void *input, size_t input_len, size_t out_max,
		    volatile int *stop, struct fcr_capture *cap, struct fcr_error *err)
{
	memset(cap, 0, sizeof(*cap));
	struct fcr_spawn_opts o = {
	    .argv = argv,
	    .stdin_fd = input ? FCR_SPAWN_PIPE : FCR_SPAWN_DEVNULL,
	    .stdout_fd = FCR_SPAWN_PIPE,
	    .stderr_fd = FCR_SPAWN_PIPE,
	    .own_pgrp = true,
	};
	struct fcr_child c;
	if (fcr_spawn(&o, &c, err) < 0)
		return -1;
	if (c.in_fd >= 0)
		fcntl(c.in_fd, F_SETFL, fcntl(c.in_fd, F_GETFL) | O_NONBLOCK);
	struct cm_buf out = {0}, errb = {0};
	cm_buf_putn(&out, "", 0);
	cm_buf_putn(&errb, "", 0);
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
		/* the whole process group: what the child started holds our pipes too */
		if (stop && *stop && !cap->stopped) {
			cap->stopped = true;
			kill(-c.pid, SIGTERM);
			kill_at = cm_mono_s() + 5;
		}
		if (kill_at > 0 && cm_mono_s() > kill_at) {
			kill(-c.pid, SIGKILL);
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
				cm_buf_putn(&out, buf, (size_t)r);
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
				cm_buf_putn(&errb, buf, (size_t)r);
			} else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
				close(c.err_fd);
				c.err_fd = -1;
			}
		}
	}
	fcr_child_wait(&c, &cap->status);
	cap->out_len = out.len;
	cap->out = cm_buf_take(&out);
	cap->err_len = errb.len;
	cap->err = cm_buf_take(&errb);
	if (too_big) {
		fcr_capture_release(cap);
		return fcr_fail(err, "%s wrote more than %zu bytes", argv[0], out_max);
	}
	return 0;
}

void fcr_capture_release(struct fcr_capture *cap)
{
	free(cap->out);
	free(cap->err);
	cap->out = cap->err = NULL;
}
