/* SPDX-License-Identifier: MIT */
/*
 * A host's engine in a fleet: its end of the socket to the fleet's
 * supervisor (supervisor.h), which hands it over as FIOCAMP_FLEET_FD=N.
 * Without that variable nothing here does anything and the engine runs as
 * it always did.  The protocol, one line each (docs/campaign-directory.md,
 * "The fleet directory"):
 *
 *   barrier SEQ STATE REP   before a state repetition's actions; then the
 *                           engine waits for "go"
 *   lock KEY / unlock KEY   around a provider transition that must not run
 *                           at once with another host's; after lock the
 *                           engine waits for "go"
 *   status TEXT             the status line, instead of drawing it: the
 *                           fields ETA_S, STATE, ROUND, WHAT, RATE between
 *                           tabs (fcr_status_sink, util/status.h)
 *
 * The supervisor answers "go".  When its end closes (the supervisor is
 * gone, even by kill -9), the engine stops as after an interrupt: the link
 * sends the process one SIGTERM, and the safety layer does the rest.  One
 * link per process; only the engine's thread calls these.
 */
#ifndef FCR_FLEET_LINK_H
#define FCR_FLEET_LINK_H

#include <stdbool.h>

/* The variable that names the socket's descriptor. */
#define FCR_FLEET_FD_ENV "FIOCAMP_FLEET_FD"

/*
 * Takes the socket FIOCAMP_FLEET_FD names (and removes the variable, so
 * that fio, ssh and `run` commands see neither it nor the descriptor):
 * 1 in a fleet, 0 without the variable, -1 when it names no socket (a
 * message on stderr; the engine runs alone).
 */
int fcr_fleet_link_open(void);
/* Whether the engine runs in a fleet. */
bool fcr_fleet_linked(void);
/* The supervisor's end closed: the engine was stopped by the link. */
bool fcr_fleet_lost(void);

/*
 * Sends "barrier SEQ STATE REP" and waits for "go": 0 with *waited_s when
 * the fleet goes on, 1 when *stop became nonzero meanwhile (Ctrl-C), 2
 * when the supervisor is gone (the engine is being stopped).  Not in a
 * fleet: 0 at once.
 */
int fcr_fleet_barrier(unsigned seq, const char *state, unsigned rep, volatile int *stop,
		      double *waited_s);
/* "lock KEY", then waits for "go" like fcr_fleet_barrier(). */
int fcr_fleet_lock(const char *key, volatile int *stop, double *waited_s);
/* "unlock KEY". */
void fcr_fleet_unlock(const char *key);
/* "status TEXT" (a newline in it becomes a blank). */
void fcr_fleet_status(const char *text);

#endif
