/* SPDX-License-Identifier: MIT */
/*
 * fio's client/server mode for `mode = aggregate`: a `fio --server` on each
 * host, driven by one `fio --client=...` here.
 *
 * fio's protocol has no authentication and no encryption, and a job file
 * can run programs (ioengine=exec), so no server listens on a TCP port.
 * Each one listens on a Unix socket in a directory of its own below the
 * host's directory, DIR/.fiocamp-fio/ (mode 0700: fio makes its socket
 * world-writable, the directory keeps everyone else out), with its pid in
 * DIR/.fiocamp-fio/fio.pid.  On an ssh host the controller reaches it
 * through `ssh -N -L LOCAL:REMOTE` (OpenSSH forwards Unix sockets; ssh
 * does the authentication); on a local host LOCAL is a symbolic link to
 * the socket.  The LOCAL sockets are in a private directory of the
 * controller's (RUN/clients/ of the run directory, 0700), each named as its
 * host, and the client runs there, so that fio calls each client by the
 * host's name (its "hostname" in the JSON, the suffix of the logs it writes
 * for that client).
 *
 * The protocol is locked to fio's release (3.33's protocol 97 cannot talk
 * to 3.36's 101), so every host and the controller must run the same fio:
 * fcr_fioserver_check_versions().
 */
#ifndef FCR_MACHINE_FIOSERVER_H
#define FCR_MACHINE_FIOSERVER_H

#include <stdbool.h>
#include <sys/types.h>

#include "fcr.h"
#include "machine/spawn.h"
#include "machine/target.h"

/* The socket and the pid file, in this directory below the host's. */
#define FCR_FIOSERVER_DIR "/.fiocamp-fio"
/* The hosts' ends and the client's cwd, below the run directory. */
#define FCR_FIOSERVER_CLIENTS "clients"

/* One host's server, and the way to it from here. */
struct fcr_fioserver {
	const char *host;	 /* its name in the campaign (borrowed) */
	struct fcr_target *t;	 /* where it runs (borrowed) */
	char *dir;		 /* DIR/.fiocamp-fio on the host */
	char *local;		 /* RUN/clients/<host>: what the client connects to */
	char *tunnel_log;	 /* RUN/<host>.ssh: the tunnel's stderr */
	char *probe_job;	 /* RUN/probe.fio */
	struct fcr_child tunnel; /* ssh -N -L; pid 0 when there is none */
	long pid;		 /* fio --server's pid on the host; 0: not started by us */
};

/* A new run directory for the controller's ends (mkdtemp below $TMPDIR or
 * /tmp, mode 0700); caller frees, and removes it with
 * fcr_fioserver_run_dir_remove() (its sockets, links and logs too). */
char *fcr_fioserver_run_dir(struct fcr_error *err);
void fcr_fioserver_run_dir_remove(const char *run_dir);

/* Fills s for `host` on t (both borrowed), its ends in run_dir (the probe's
 * job file written there, once).  Fails when the host has no directory or
 * a path would be too long for a socket. */
int fcr_fioserver_init(struct fcr_fioserver *s, const char *host, struct fcr_target *t,
		       const char *run_dir, struct fcr_error *err);
void fcr_fioserver_release(struct fcr_fioserver *s);

/*
 * Starts the server on the host (its directory made owner-only), waits for
 * its socket, opens the way to it (the tunnel, or the link) and waits until
 * it answers: a probe job (ioengine=null) through it, which also proves
 * that the versions of client and server agree.  A server that already runs
 * there is not touched: the failure names its pid (another campaign's, or
 * one an earlier session left: fcr_fioserver_reap()).  On failure whatever
 * was started is stopped again.  *stop (may be NULL) cuts the waits short.
 * The servers of several hosts may start at once, each on a thread of its
 * own (fcr_fioserver_init() has made what they share); the tunnel, a child
 * of that thread, ends when the thread does (spawn.c's parent-death
 * signal), so the thread must last as long as the server is used.
 */
int fcr_fioserver_start(struct fcr_fioserver *s, volatile int *stop, struct fcr_error *err);
/* The probe alone: fio --client through the way to the server. */
int fcr_fioserver_probe(struct fcr_fioserver *s, struct fcr_error *err);
/* Closes the way and stops the server (SIGTERM, SIGKILL 5 s later), its
 * socket and pid file removed.  Not stoppable: this is how sessions end. */
int fcr_fioserver_stop(struct fcr_fioserver *s, struct fcr_error *err);

/*
 * A server an earlier session left on the host (the controller was
 * killed): found by its pid file and stopped, only when that pid is a
 * `fio --server` on this socket.  *stopped is 1 when one ran, else 0.  A
 * stale pid file and socket are removed.
 */
int fcr_fioserver_reap(struct fcr_target *t, unsigned *stopped, struct fcr_error *err);

/* How the end of one host's server went. */
struct fcr_fioserver_end {
	int rc;		  /* 0, or -1 with err */
	unsigned stopped; /* 1 when a server of ours ran there */
	bool killed;	  /* it did not end within 5 s of SIGTERM: SIGKILL */
	struct fcr_error err;
};

/*
 * Many servers at once (fio --server takes about a second to end on
 * SIGTERM): fcr_fioserver_signal_all() sends SIGTERM to the server of each
 * host, when it is ours (as fcr_fioserver_reap() decides), without waiting;
 * fcr_fioserver_finish() then waits for that host's server to be gone
 * (SIGKILL 5 s after the SIGTERM when it is not) and removes its socket,
 * pid file and directory.  fcr_fioserver_stop_all() is both over servers
 * (their ways closed first).  Not stoppable.
 */
void fcr_fioserver_signal_all(struct fcr_target *const *t, size_t n,
			      struct fcr_fioserver_end *ends);
void fcr_fioserver_finish(struct fcr_target *t, struct fcr_fioserver_end *e);
void fcr_fioserver_stop_all(struct fcr_fioserver *const *s, size_t n,
			    struct fcr_fioserver_end *ends);

/* `fio --version` here, on the controller ("fio-3.33"; caller frees). */
int fcr_fio_local_version(char **version, struct fcr_error *err);

/*
 * The same fio everywhere: versions[i] is what host names[i] runs,
 * controller the controller's.  When one differs err gets the table of
 * them all and why they must match, and -1 is returned.
 */
int fcr_fioserver_check_versions(const char *controller, const char *const *names,
				 const char *const *versions, size_t n, struct fcr_error *err);

/* The client's argv: `fio --output-format=json`, then for each server
 * `--client=sock:HOST JOBFILE` (job_files[i], as the child in the run
 * directory finds it).  Owned copies into out. */
void fcr_fioserver_client_argv(const struct fcr_fioserver *servers, size_t n,
			       char *const *job_files, struct cm_strv *out);

/*
 * One run of the client over every server (x as for fcr_target_run_fio:
 * x->dir gets <test>.json, fio's stdout, whose JSON has a client_stats
 * entry per job of each host and "All clients"; <test>.stderr when it said
 * something; and the logs the client wrote for each host, as fio names
 * them: <prefix>_iops.1.log.<host>).  job_files[i] (absolute) is server
 * i's job file.  The client runs in RUN/clients; Ctrl-C (*x->interrupts)
 * reaches it as SIGINT, which it passes on to the servers, whose reports
 * it still writes.  0 when it ran.
 */
int fcr_fioserver_run_client(const struct fcr_fioserver *servers, size_t n, const char *run_dir,
			     char *const *job_files, struct fcr_fio_exec *x, struct fcr_error *err);

#endif
