/* SPDX-License-Identifier: MIT */
#include "machine/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBE_TIMEOUT_MS 1000

static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - cm_mono_s();
		if (left <= 0)
			return 0;
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

/* One attempt: 1 when the banner arrived (copied to banner), 0 otherwise. */
static int probe_once(const struct addrinfo *ai, char *banner, size_t len)
{
	int fd =
	    socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return 0;
	double deadline = cm_mono_s() + PROBE_TIMEOUT_MS / 1000.0;
	int ok = 0;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto out;
		if (wait_fd(fd, POLLOUT, deadline) <= 0)
			goto out;
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr)
			goto out;
	}
	char buf[256];
	size_t used = 0;
	while (used < sizeof(buf) - 1) {
		if (wait_fd(fd, POLLIN, deadline) <= 0)
			goto out;
		ssize_t r = read(fd, buf + used, sizeof(buf) - 1 - used);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			goto out;
		used += (size_t)r;
		buf[used] = '\0';
		if (used >= 4 && strncmp(buf, "SSH-", 4)) {
			/* RFC 4253 allows lines before the banner; look for it */
			char *line = strstr(buf, "\nSSH-");
			if (!line && memchr(buf, '\n', used) && used > 200)
				goto out;
			if (!line)
				continue;
			memmove(buf, line + 1, strlen(line + 1) + 1);
			used = strlen(buf);
		}
		if (used >= 4 && !strncmp(buf, "SSH-", 4)) {
			buf[strcspn(buf, "\r\n")] = '\0';
			/* RFC 4253 wants US-ASCII; anything else would not go into JSON */
			for (char *c = buf; *c; c++) {
				if (*c < 0x20 || *c > 0x7e)
					*c = '?';
			}
			snprintf(banner, len, "%s", buf);
			ok = 1;
			break;
		}
	}
out:
	close(fd);
	return ok;
}

int fcr_probe_addresses(const struct addrinfo *list, char *banner, size_t len)
{
	for (const struct addrinfo *ai = list; ai; ai = ai->ai_next) {
		if (probe_once(ai, banner, len))
			return 1;
	}
	return 0;
}

int fcr_probe_ssh(const char *host, unsigned port, uint64_t timeout_ms, volatile int *stop,
		  struct fcr_probe_result *res, struct fcr_error *err)
{
	memset(res, 0, sizeof(*res));
	char service[16];
	snprintf(service, sizeof(service), "%u", port);
	double start = cm_mono_s();
	double end = start + (double)timeout_ms / 1000.0;
	unsigned in_a_row = 0;
	double next = start;
	while (!stop || !*stop) {
		double now = cm_mono_s();
		if (now > end)
			return fcr_fail(err, "%s:%u: no SSH banner within %llus (%u probes)", host,
					port, (unsigned long long)(timeout_ms / 1000), res->probes);
		if (now < next) {
			cm_sleep_ms((uint64_t)((next - now) * 1000) + 1, stop);
			continue;
		}
		next += FCR_PROBE_INTERVAL_MS / 1000.0;
		if (next < cm_mono_s())
			next = cm_mono_s();
		/* resolve each time: a VM may come back with a new address */
		struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
		int gr = getaddrinfo(host, service, &hints, &ai);
		res->probes++;
		int ok = 0;
		if (gr == 0) {
			ok = fcr_probe_addresses(ai, res->banner, sizeof(res->banner));
			freeaddrinfo(ai);
		}
		if (!ok) {
			in_a_row = 0;
			continue;
		}
		res->answered++;
		in_a_row++;
		if (in_a_row == 1)
			res->first_seen_wall = cm_wall_s();
		if (in_a_row == 2) {
			res->ready_wall = cm_wall_s();
			return 0;
		}
	}
	return 1;
}
