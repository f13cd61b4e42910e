/* SPDX-License-Identifier: MIT */
/* Unit tests of fiocamp-run's wait-ssh probe against a banner server on
 * 127.0.0.1 (a forked child). */
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "machine/probe.h"

/* A socket bound to a free port of 127.0.0.1; *port gets the port. */
static int bound_socket(unsigned *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(a);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
		perror("socket");
		exit(1);
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* A child that greets every connection with `banner`. */
static pid_t banner_server(unsigned *port, const char *banner)
{
	int fd = bound_socket(port);
	if (listen(fd, 16) < 0) {
		perror("listen");
		exit(1);
	}
	pid_t pid = fork();
	if (pid == 0) {
		alarm(30); /* never outlives a test that went wrong */
		for (;;) {
			int c = accept(fd, NULL, NULL);
			if (c < 0)
				continue;
			ssize_t w = write(c, banner, strlen(banner));
			(void)w;
			close(c);
		}
	}
	close(fd);
	return pid;
}

static struct addrinfo *resolve(unsigned port)
{
	char service[16];
	snprintf(service, sizeof(service), "%u", port);
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
	if (getaddrinfo("127.0.0.1", service, &hints, &ai) != 0) {
		fprintf(stderr, "getaddrinfo failed\n");
		exit(1);
	}
	return ai;
}

/* A name with two addresses, the first of which refuses: the second answers. */
static void test_second_address(unsigned open_port)
{
	unsigned closed_port;
	close(bound_socket(&closed_port)); /* nothing listens there now */
	struct addrinfo *refusing = resolve(closed_port), *answering = resolve(open_port);
	char banner[128] = "";
	CHECK_INT(fcr_probe_addresses(refusing, banner, sizeof(banner)), 0);
	struct addrinfo *last = refusing;
	while (last->ai_next)
		last = last->ai_next;
	last->ai_next = answering;
	CHECK_INT(fcr_probe_addresses(refusing, banner, sizeof(banner)), 1);
	CHECK_STR(banner, "SSH-2.0-fake ?");
	last->ai_next = NULL;
	freeaddrinfo(refusing);
	freeaddrinfo(answering);
}

static void test_probe_ssh(unsigned open_port)
{
	struct fcr_probe_result res;
	struct fcr_error err;
	CHECK_INT(fcr_probe_ssh("127.0.0.1", open_port, 5000, NULL, &res, &err), 0);
	CHECK_INT(res.probes, 2);
	CHECK_INT(res.answered, 2);
	CHECK_STR(res.banner, "SSH-2.0-fake ?");
	CHECK(res.ready_wall >= res.first_seen_wall);
}

int main(void)
{
	unsigned port;
	/* a byte that is not ASCII: the banner is kept as ASCII for the JSON */
	pid_t server = banner_server(&port, "SSH-2.0-fake \xe9\r\n");
	test_second_address(port);
	test_probe_ssh(port);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	return check_exit();
}
