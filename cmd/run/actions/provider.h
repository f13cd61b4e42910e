/* SPDX-License-Identifier: MIT */
/*
 * The provider interface: how fiocamp-run asks a hosting provider (netcup,
 * later Proxmox …) to change the target machine's state between blocks of
 * rounds.
 *
 * A provider is a table of functions (struct fcr_provider) plus the list of
 * actions it understands.  The controller:
 *
 *   1. finds the ops by the [provider] section's `type` (fcr_provider_find),
 *   2. while parsing the campaign file, checks every `before` action against
 *      ops->actions (name and argument count) and ops->check_args, and the
 *      [provider] keys with configure(ctx = NULL), so that mistakes are
 *      reported as file:line before anything runs,
 *   3. for --dry-run: configure(), then describe() for the preflight and for
 *      each provider action in campaign order; nothing else,
 *   4. for a run: configure() with the real context and connect() (the
 *      credentials) before the campaign directory is created,
 *   5. calls preflight() once with every provider action of the campaign and
 *      its status in the manifest (a resumed campaign passes what earlier
 *      sessions did), before the first fio run,
 *   6. calls perform() for each action, in campaign order,
 *   7. calls ensure_powered_on() when the campaign stops (failure, Ctrl-C)
 *      after an action whose `takes_down` flag is set and before a wait-ssh
 *      saw the machine back, then waits for its SSH server,
 *   8. calls free().
 *
 * Rules for implementations: no printing and no exiting; errors go into the
 * caller's struct fcr_error (fcr.h): one sentence, file:line: for
 * configuration errors.  configure() appends one "file:line: message" line
 * per problem to its list instead, so that all are shown at once.  Lines meant for the
 * user go through ctx->note.  Secrets never go into error texts, results,
 * notes or journal events.  API calls are reported through ctx->journal
 * (method, path, status, never a token).  Return 0 on success, a negative
 * value on failure.
 */
#ifndef FCR_PROVIDER_H
#define FCR_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "fcr.h"

/* One key of the [provider] section (other than `type`).  Borrowed for the
 * duration of configure(); copy what you keep. */
struct fcr_provider_key {
	const char *key;
	const char *value; /* trimmed, comments removed */
	const char *file;  /* campaign file name, for "file:line: message" */
	unsigned line;
};

/* The [provider] section. */
struct fcr_provider_section {
	const char *file;
	unsigned line; /* of `type` (or of the section header); 1 when there is none */
	const struct fcr_provider_key *keys;
	size_t n_keys;
};

/* An action the provider understands. */
struct fcr_provider_action {
	const char *name; /* "power-off", "snapshot" … */
	int min_args;
	int max_args;	   /* -1 = no limit */
	bool takes_down;   /* the machine goes away: downtime counts from here */
	bool brings_up;	   /* the machine is on when it ends (power-on, reboot, revert) */
	const char *usage; /* "snapshot NAME", shown in errors and --help */
};

/* One action of the campaign, for preflight(). */
struct fcr_provider_step {
	const char *state;
	const char *action;
	int argc;
	char *const *argv;
	const char *file;
	unsigned line;
	/* Its status in the manifest: "pending" on a fresh run; a resumed
	 * campaign also passes "done", "running", "interrupted", "failed". */
	const char *status;
	json_t *result; /* what perform() recorded for it then (borrowed), or NULL */
};

/* What the controller offers a provider. */
struct fcr_provider_ctx {
	/* Appends an event to journal.jsonl (the controller adds t and mono);
	 * the event's name is its "event" member.  Steals the reference. */
	void (*journal)(void *opaque, json_t *event);
	/* A line for the user; the controller prints and journals it.  level:
	 * "info", "warning" or "problem". */
	void (*note)(void *opaque, const char *level, const char *text);
	void *opaque;
	/* Set when fiocamp-run was interrupted: long waits should return early
	 * with an error. */
	volatile int *stop;
	/* Set by a second Ctrl-C: even ensure_powered_on() gives up. */
	volatile int *hard_stop;
};

struct fcr_provider {
	const char *type;		       /* the `type` value */
	const char *summary;		       /* one line for --help */
	const struct fcr_provider_action *actions; /* ends with { .name = NULL } */

	/* Reads the [provider] keys: no network, no credentials.  ctx NULL:
	 * only check them (while parsing).  On success *state is the
	 * provider's own handle, passed to every other call. */
	int (*configure)(const struct fcr_provider_section *sec, const struct fcr_provider_ctx *ctx,
			 void **state, struct cm_strv *problems);
	/* Checks one action's arguments beyond their count, while parsing.
	 * err gets the message without file:line.  May be NULL. */
	int (*check_args)(const char *action, int argc, char *const *argv, struct fcr_error *err);
	/* For --dry-run: what an action will do (action NULL: the preflight), as
	 * lines ending in '\n'; called in campaign order.  Caller frees; NULL
	 * when there is nothing to say. */
	char *(*describe)(void *state, const char *action, int argc, char *const *argv);
	/* Reads the credentials (no network yet). */
	int (*connect)(void *state, struct fcr_error *err);
	/* Checks every precondition it can before the first fio run. */
	int (*preflight)(void *state, const struct fcr_provider_step *steps, size_t n_steps,
			 struct fcr_error *err);
	/* Performs one action.  `result` is an empty object to fill with what
	 * the manifest should record; its members "task" (one object: name,
	 * state, started, finished, duration_s by the provider's clock) and
	 * "tasks" (the list, when there were several) are moved up into the
	 * action's object.  The controller adds our timing and the status.
	 * `result` is recorded also when the action fails. */
	int (*perform)(void *state, const char *action, int argc, char *const *argv, json_t *result,
		       struct fcr_error *err);
	/* Powers the machine on if it is off; a no-op if it is on.  `result`
	 * gets what it did and the state the machine was left in. */
	int (*ensure_powered_on)(void *state, json_t *result, struct fcr_error *err);
	void (*free)(void *state);
};

/*
 * The ops for `type`, or NULL.  When NULL, *planned is set when the type is
 * known but not built into this binary yet (so the message can say so).
 */
const struct fcr_provider *fcr_provider_find(const char *type, bool *planned);
/* The built-in type names, comma separated, for messages. */
const char *fcr_provider_known_types(void);
/* The built-in providers, NULL-terminated, for --help. */
const struct fcr_provider *const *fcr_provider_list(void);

#endif
