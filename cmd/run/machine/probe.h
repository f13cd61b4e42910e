/* SPDX-License-Identifier: MIT */
/* wait-ssh: TCP probes until an SSH server answers with its banner. */
#ifndef FCR_PROBE_H
#define FCR_PROBE_H

#include <stdint.h>

#include "fcr.h"

#define FCR_PROBE_INTERVAL_MS 250

struct fcr_probe_result {
	unsigned probes;	/* connection attempts */
	unsigned answered;	/* attempts that saw "SSH-" */
	double first_seen_wall; /* first banner of the final pair */
	double ready_wall;	/* second banner in a row: the server is back */
	char banner[128];	/* the banner line */
};

struct addrinfo;

/*
 * One probe: tries the addresses of `list` in order (a name may have an IPv6
 * address that does not answer and an IPv4 one that does) until one sends
 * an SSH banner, each attempt bounded by 1 s.  1 with the banner line copied
 * to `banner`, 0 when none did.
 */
int fcr_probe_addresses(const struct addrinfo *list, char *banner, size_t len);

/*
 * Starts a probe every 250 ms (each connect and read bounded by 1 s) until
 * two probes in a row read a line starting "SSH-".  Returns 0, 1 when *stop
 * became nonzero, or -1 on timeout or when the host cannot be resolved.
 */
int fcr_probe_ssh(const char *host, unsigned port, uint64_t timeout_ms, volatile int *stop,
		  struct fcr_probe_result *res, struct fcr_error *err);

#endif
