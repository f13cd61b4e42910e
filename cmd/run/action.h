/* SPDX-License-Identifier: MIT */
/*
 * The action table.  Every action of a state's `before` list, built in
 * (settle, wait-ssh, run, hash ...) or a provider's (power-off, snapshot
 * ...), is one row of this kind: its name and argument counts, its usage and
 * documentation, what it does to the machine, and the functions that check
 * it while the campaign file is read, describe it for --dry-run and perform
 * it.  Parsing, --dry-run, --help and the man page's lists all come from the
 * rows; a new action is one row and its functions, in one file.
 *
 * An action sees the campaign through a narrow context (struct
 * fcr_action_ctx), never the engine's session: the settings, the target,
 * the record, the fio unit, the provider's handle, the stop flags.
 *
 * Rules for the functions: no printing but through the status line
 * (util/status.h) for built-in actions, and through the provider context's
 * note() (provider.h) for a provider's; no exiting; errors in the caller's
 * struct fcr_error (fcr.h); a wait that the first Ctrl-C cuts short returns
 * FCR_E_STOPPED.
 */
#ifndef FCR_ACTION_H
#define FCR_ACTION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "fcr.h"

struct fcr_campaign;
struct fcr_state;
struct fcr_target;
struct fcr_record;
struct fcr_fio;
struct fcr_provider;

/* One action of a state's `before` list, as the file has it. */
struct fcr_step {
	const struct fcr_action *def; /* its row of the action table */
	bool from_provider;	      /* the row is the provider's */
	char *text;		      /* as written, trimmed */
	struct cm_strv words;	      /* name and arguments, shell-split */
	unsigned line;
	bool takes_down; /* from the row; a check may set it */
	bool brings_up;
	void *args; /* what the row's check parsed; owned (def->release) */
};

/* What an action is given while the campaign file is checked. */
struct fcr_check_ctx {
	const struct fcr_campaign *c; /* parsed so far: every state, the target */
	const struct fcr_state *state;
	size_t index; /* of the step in its state */
};

/* What an action is given when it runs, or is described for --dry-run. */
struct fcr_action_ctx {
	const struct fcr_campaign *c; /* the settings */
	struct fcr_target *target;    /* where commands run */
	struct fcr_record *rec;	      /* the journal and what earlier steps recorded; NULL
				       * for --dry-run */
	struct fcr_fio *fio;	      /* runs fio jobs (the prefill) */
	void *provider;		      /* the provider's handle, for its own actions */
	volatile int *stop;	      /* the first Ctrl-C (NULL for --dry-run) */
	volatile int *hard_stop;      /* the second */
	/* the step at hand */
	const struct fcr_state *state;
	unsigned repetition; /* of a repeated state; 0: it does not repeat */
	const char *label;   /* "STATE: TEXT", for messages */
	/* when this state's first take-down action began (NaN: none, or not
	 * known), for what measures from there */
	double down_wall;
	/* set by an ends_downtime action: when it saw the machine back */
	double back_wall;
};

struct fcr_action {
	const char *name;
	int min_args;
	int max_args;	   /* -1: no limit */
	const char *usage; /* "settle DURATION": in errors, --help and the man page */
	/* The man page's paragraph: plain sentences; `word` is set in bold. */
	const char *doc;
	bool takes_down;    /* the machine goes away: downtime counts from its start */
	bool brings_up;	    /* the machine is on when it ends (power-on, reboot, revert) */
	bool ends_downtime; /* it sees the machine back: the downtime ends with it */
	bool prefill_job;   /* it runs the prefill job file */
	bool test_file;	    /* it needs the test file (directory and size) */
	bool checks_data;   /* it checks the data (verify-hash): data back ends with it */
	/*
	 * Checks the arguments beyond their count while the file is read; may
	 * keep what it parsed in step->args (and set step->takes_down).  The
	 * message is the whole of it; "file:line: " is put in front.  May be NULL.
	 */
	int (*check)(const struct fcr_check_ctx *cx, struct fcr_step *step, struct fcr_error *err);
	/* Frees step->args; NULL: free(). */
	void (*release)(void *args);
	/* How long it takes when that is known in advance (settle: its
	 * duration, for the ETA and the plan); NULL: it depends on the machine. */
	uint64_t (*duration_ms)(const struct fcr_step *step);
	/*
	 * For --dry-run: what it will do, lines ending in '\n'.  A built-in
	 * action writes its line of the plan first ("settle 45s"), details after
	 * it; a provider's action writes only the details (API calls), below the
	 * line the engine writes.  May be NULL.
	 */
	void (*describe)(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			 struct cm_buf *out);
	/*
	 * Performs it.  `result` is an empty object to fill with what the
	 * manifest should record, also when it fails; a provider's members
	 * "task" (one object: name, state, started, finished, duration_s by the
	 * provider's clock) and "tasks" (all, when there were several) are moved
	 * up beside our timing.  The engine adds the timing and the status.
	 */
	int (*perform)(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
		       struct fcr_error *err);
};

/* A row's check failed: err's message gets the step in front ("'snapshot a
 * b': unexpected 'b'"); returns the failure, for `return` in a check. */
int fcr_step_check_failed(const struct fcr_step *step, struct fcr_error *err);
#endif
