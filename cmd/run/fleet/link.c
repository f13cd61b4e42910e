/* SPDX-License-Identifier: MIT */
/* A host's engine in a fleet: its end of the supervisor's socket (link.h). */
#include "fleet/link.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fcr.h"

static int g_fd = -1;
static int g_lost; /* set once, by whichever thread sees the end first */

/* The supervisor is gone: the engine stops as after one interrupt.  Once
 * only, so that the safety layer never counts a second one (which would
 * cut its power-on short). */
static void lost(void)
{
	if (!__atomic_exchange_n(&g_lost, 1, __ATOMIC_SEQ_CST))
		kill(getpid(), SIGTERM);
}

/* Waits for the other end to close while the engine does its work (fio,
 * actions, anything): only a hangup wakes it, not the "go" lines the
 * engine reads itself. */
static void *watch(void *arg)
{
	(void)arg;
	struct pollfd p = {.fd = g_fd, .events = POLLRDHUP};
	for (;;) {
		int n = poll(&p, 1, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))) {
			lost();
			return NULL;
		}
	}
}

int fcr_fleet_link_open(void)
{
	const char *v = getenv(FCR_FLEET_FD_ENV);
	if (!v)
		return 0;
	char *end;
	long fd = strtol(v, &end, 10);
	struct stat st;
	bool ok =
	    *v && !*end && fd > 2 && fd < 65536 && fstat((int)fd, &st) == 0 && S_ISSOCK(st.st_mode);
	unsetenv(FCR_FLEET_FD_ENV);
	if (!ok) {
		fprintf(stderr, "fiocamp-run: %s=%s names no socket: running alone\n",
			FCR_FLEET_FD_ENV, v);
		return -1;
	}
	g_fd = (int)fd;
	/* fio, ssh and `run` commands must not keep the supervisor's socket open */
	fcntl(g_fd, F_SETFD, FD_CLOEXEC);
	/* a write after the supervisor died must not kill the engine */
	signal(SIGPIPE, SIG_IGN);
	pthread_attr_t attr;
	pthread_t t;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* the watcher must not take the signals meant for the engine */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&t, &attr, watch, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		cm_die("cannot start a thread");
	return 1;
}

bool fcr_fleet_linked(void)
{
	return g_fd >= 0;
}

bool fcr_fleet_lost(void)
{
	return __atomic_load_n(&g_lost, __ATOMIC_SEQ_CST) != 0;
}

/* One line to the supervisor; a newline or tab inside `text` of a status
 * was dealt with by the caller. */
static void send_line(const char *line)
{
	size_t n = strlen(line), off = 0;
	while (off < n) {
		ssize_t w = send(g_fd, line + off, n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			lost();
			return;
		}
		off += (size_t)w;
	}
}

/* Waits for the supervisor's "go": 0, 1 once *stop is set, 2 when the
 * supervisor is gone (the signal lost() sends stops the engine). */
static int wait_go(volatile int *stop)
{
	char buf[64];
	size_t len = 0;
	for (;;) {
		if (*stop)
			return 1;
		if (fcr_fleet_lost())
			return 2;
		struct pollfd p = {.fd = g_fd, .events = POLLIN};
		int n = poll(&p, 1, 200);
		if (n <= 0)
			continue;
		ssize_t r = recv(g_fd, buf + len, 1, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			lost();
			continue;
		}
		if (buf[len] == '\n') {
			buf[len] = '\0';
			if (!strcmp(buf, "go"))
				return 0;
			len = 0; /* nothing else is said to an engine: passed over */
			continue;
		}
		if (++len >= sizeof(buf))
			len = 0;
	}
}

int fcr_fleet_barrier(unsigned seq, const char *state, unsigned rep, volatile int *stop,
		      double *waited_s)
{
	*waited_s = 0;
	if (g_fd < 0)
		return 0;
	char *line = cm_asprintf("barrier %u %s %u\n", seq, state, rep);
	double t0 = cm_mono_s();
	send_line(line);
	free(line);
	int rc = wait_go(stop);
	*waited_s = cm_mono_s() - t0;
	return rc;
}

int fcr_fleet_lock(const char *key, volatile int *stop, double *waited_s)
{
	*waited_s = 0;
	if (g_fd < 0)
		return 0;
	char *line = cm_asprintf("lock %s\n", key);
	double t0 = cm_mono_s();
	send_line(line);
	free(line);
	int rc = wait_go(stop);
	*waited_s = cm_mono_s() - t0;
	return rc;
}

void fcr_fleet_unlock(const char *key)
{
	if (g_fd < 0)
		return;
	char *line = cm_asprintf("unlock %s\n", key);
	send_line(line);
	free(line);
}

void fcr_fleet_status(const char *text)
{
	if (g_fd < 0 || fcr_fleet_lost())
		return;
	char *line = cm_asprintf("status %s\n", text);
	for (char *p = line + 7; p[1]; p++) {
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	}
	send_line(line);
	free(line);
}
