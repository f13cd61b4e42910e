/* SPDX-License-Identifier: MIT */
/*
 * The machine the tests run on: `local` (fio forked here) or `ssh` (fio
 * through the system ssh in BatchMode, job file sent on stdin, outputs
 * copied back with tar).  Every child is started from an argv array; on the
 * remote side the one command string ssh needs is built with shell quoting.
 */
#ifndef FCR_TARGET_H
#define FCR_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "campaign/campaign.h"
#include "machine/spawn.h"

struct fcr_target {
	const struct fcr_campaign *c;
	struct cm_strv ssh_argv; /* "ssh", options, destination */
	/* ssh: the commands share one connection (OpenSSH multiplexing), a
	 * master that is our child, its socket in a private 0700 directory */
	struct {
		bool on;     /* ours to do: the ssh options set no Control* */
		bool held;   /* the machine may be away: no master until it is back */
		bool failed; /* the master did not come up: plain connections */
		pid_t pid;   /* the master; 0 when none runs */
		char *dir;   /* $XDG_RUNTIME_DIR or /tmp: fiocamp-ssh.XXXXXX */
		char *sock;  /* dir/ctl */
	} mux;
	char *remote_tmp;	 /* ssh: this run's work directory on the target */
	char *test_file;	 /* <directory>/fiocamp.testfile */
	volatile int *stop;	 /* set by Ctrl-C: long commands end early */
	volatile int *hard_stop; /* set by a second Ctrl-C: even copying back ends */
};

/*
 * A place the tests run in, one list whether the campaign has variants or
 * not: each variant's, or else the campaign's own directory (none when no
 * round, prefill or action needs a test file).
 */
struct fcr_place {
	const struct fcr_variant *variant; /* NULL: the campaign's directory */
	const char *directory;		   /* NULL: a block device */
	const char *test_file;		   /* <directory>/fiocamp.testfile, or the device */
	uint64_t bytes;			   /* what the test file must hold */
};
/* Fills out (room for FCR_VARIANTS_MAX) and returns how many. */
size_t fcr_target_places(const struct fcr_target *t, struct fcr_place *out);

/* Builds the ssh command line (options from the campaign and from the
 * FIOCAMP_SSH_OPTS environment variable). */
int fcr_target_init(struct fcr_target *t, const struct fcr_campaign *c, volatile int *stop,
		    volatile int *hard_stop, struct fcr_error *err);
void fcr_target_release(struct fcr_target *t);

/* Checks fio, creates the test directory and (ssh) the remote work
 * directory, fills host facts ({hostname, kernel, cpus, mem_kib}) and fio's
 * version (caller frees).  Fails when fio is missing or the space for the
 * test file is not there. */
int fcr_target_preflight(struct fcr_target *t, json_t *host, char **fio_version,
			 struct fcr_error *err);
/* Removes the test file (there or not); 0, or err says why not. */
int fcr_target_remove_test_file(struct fcr_target *t, struct fcr_error *err);
/* Removes one file on the target (a variant's test file); gone already is fine. */
int fcr_target_remove_file(struct fcr_target *t, const char *path, struct fcr_error *err);
/* Removes the remote work directory. */
void fcr_target_cleanup(struct fcr_target *t);

/*
 * Whether a command that ran (fcr_target_exec, fcr_run_capture) failed: if
 * it did not exit with 0, err says "WHAT failed (exit status N): the first
 * line of its stderr", cap is released and -1 returned.  Else 0, and cap is
 * the caller's.
 */
int fcr_command_failed(struct fcr_capture *cap, struct fcr_error *err, const char *what_fmt, ...)
    CM_PRINTF(3, 4);

/* The places of the test files: the campaign's directory (the one place
 * when there are no variants), else each variant's: a directory made, with
 * room for its test file; a block device large enough, not mounted (nor a
 * partition of it), not swap, not held by the device mapper or a RAID.
 * Checked on the target, local or ssh alike (machine/place.c). */
int fcr_target_check_places(struct fcr_target *t, struct fcr_error *err);
/* The decision of that check for a device, from the facts its script
 * printed (facts is modified); exposed for the tests. */
int fcr_place_judge(const char *device, char *facts, uint64_t need_bytes, struct fcr_error *err);

/* The argv that runs argv on the target: a copy for a local one; ssh with
 * the words joined as one shell command for an ssh one.  Owned copies into
 * out. */
void fcr_target_argv(const struct fcr_target *t, char *const *argv, struct cm_strv *out);
/* Runs argv on the target (local: directly).  0 when it ran. */
int fcr_target_exec(struct fcr_target *t, char *const *argv, const void *input, size_t input_len,
		    struct fcr_capture *cap, struct fcr_error *err);

/* Seconds fio may take to end after the first interrupt before that is said */
#define FCR_FIO_STOP_PATIENCE_S 5

/* One fio run. */
struct fcr_fio_exec {
	const char *test; /* the test name: <test>.fio, <test>.json, log prefix */
	const char *dir;  /* local directory holding <test>.fio; outputs land here */
	char *const *env; /* FIOCAMP_*=value */
	/* fio's status lines ("r=170k IOPS"), for the progress display */
	void (*on_status)(void *opaque, const char *iops_text);
	/* Called once fio runs, with what identifies it for a later session
	 * (machine/reap.h): the child started here (fio, or ssh) and on an ssh
	 * target "remote_dir".  Borrowed. */
	void (*on_start)(void *opaque, json_t *proc);
	/* Called once fio (or ssh) ended, before its outputs are copied back */
	void (*on_end)(void *opaque);
	/* Called once when fio is still running FCR_FIO_STOP_PATIENCE_S after
	 * the first interrupt was passed on (fio 3.33 can hang in its own
	 * SIGINT handler): the user learns that a second one kills it */
	void (*on_slow_stop)(void *opaque, unsigned waited_s);
	void *opaque;
	volatile int *interrupts; /* 1 = stop fio with SIGINT, 2 = kill it */

	int status;	  /* wait status of fio (or of ssh) */
	bool interrupted; /* SIGINT was sent */
	bool killed;	  /* SIGKILL was sent */
	bool started;	  /* fio was started */
};

/* The argv that runs fio (what --dry-run shows); `out` gets owned copies.
 * For a local target the child runs in x->dir with x->env added; for an ssh
 * target the job file of job_len bytes is sent on its stdin. */
void fcr_target_fio_argv(const struct fcr_target *t, const char *test, char *const *env,
			 size_t job_len, struct cm_strv *out);
int fcr_target_run_fio(struct fcr_target *t, struct fcr_fio_exec *x, struct fcr_error *err);

/* Makes the test file a never-written file of the campaign's size. */
int fcr_target_fresh_file(struct fcr_target *t, struct fcr_error *err);
/* sha256 of `path` on the target, as 64 hex digits (caller frees). */
int fcr_target_sha256(struct fcr_target *t, const char *path, char **hex, struct fcr_error *err);

/*
 * The shared connection.  A master starts with the first command that
 * wants one; commands after a stop open a new one.  Held, no master runs
 * and each command opens a fresh connection of its own: from an action
 * that takes the machine away until something saw it back, so that no
 * command goes over a connection from before the transition.
 */
void fcr_target_mux_hold(struct fcr_target *t, bool held);
void fcr_target_mux_stop(struct fcr_target *t);
/* Stops the master and removes its directory (at the end; the fatal path). */
void fcr_target_mux_end(struct fcr_target *t);
/* fcr_target_mux_end() for every target whose master runs (the fatal path). */
void fcr_target_mux_end_all(void);
/* The argv of an ssh command with the multiplexing options after "ssh"
 * (starting the master if there is none); a fresh connection when there is
 * no master or `fresh`. */
void fcr_target_mux_argv(struct fcr_target *t, bool fresh, struct cm_strv *argv);

/* Host and port that wait-ssh probes by default. */
const char *fcr_target_probe_host(const struct fcr_target *t);

#endif
