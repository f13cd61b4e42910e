/* SPDX-License-Identifier: MIT */
/*
 * The provider interface: how fiocamp-run asks a hosting provider (netcup,
 * later Proxmox …) to change the target machine's state between blocks of
 * rounds.
 *
 * A provider is a table of functions (struct provider_ops) plus the list of
 * actions it understands.  The controller:
 *
 *   1. finds the ops by the [provider] section's `type` (provider_find),
 *   2. checks every `before` action of the campaign against ops->actions
 *      (name and argument count) while parsing, so typos are reported as
 *      file:line before anything runs,
 *   3. calls configure() with the other [provider] keys,
 *   4. calls preflight() once with every provider action the campaign will
 *      perform, before the first fio run (tokens, server, permissions, names
 *      already taken …),
 *   5. calls perform() for each action, in campaign order,
 *   6. calls ensure_powered_on() when the campaign stops (failure, Ctrl-C)
 *      after an action whose `takes_down` flag is set, so that a machine is
 *      never left off,
 *   7. calls free().
 *
 * Rules for implementations: no printing and no exiting; errors go into the
 * caller's buffer as one line of text (file:line: for configuration errors).
 * Secrets never go into error texts, results or journal events.  API calls
 * are reported through ctx->journal (method, path, status, never a token).
 * Return 0 on success, a negative value on failure.
 */
#ifndef FCR_PROVIDER_H
#define FCR_PROVIDER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* One key of the [provider] section (other than `type`).  Borrowed for the
 * duration of configure(); copy what you keep. */
struct provider_key {
	const char *key;
	const char *value; /* trimmed, comments removed */
	const char *file;  /* campaign file name, for "file:line: message" */
	unsigned line;
};

/* An action the provider understands. */
struct provider_action {
	const char *name; /* "power-off", "snapshot" … */
	int min_args;
	int max_args;	   /* -1 = no limit */
	bool takes_down;   /* the machine goes away: downtime counts from here */
	const char *usage; /* "snapshot NAME", shown in errors and --help */
};

/* One action of the campaign, for preflight(). */
struct provider_step {
	const char *state;
	const char *action;
	int argc;
	char *const *argv;
	const char *file;
	unsigned line;
};

/* What the controller offers a provider. */
struct provider_ctx {
	/* Appends an event to journal.jsonl (the controller adds t and mono);
	 * steals the reference to `event`. */
	void (*journal)(void *opaque, json_t *event);
	void *opaque;
	/* Set when fiocamp-run was interrupted: long waits should return early
	 * with an error. */
	volatile int *stop;
};

struct provider_ops {
	const char *type;		       /* the `type` value */
	const char *summary;		       /* one line for --help */
	const struct provider_action *actions; /* ends with { .name = NULL } */

	/* Reads the [provider] keys.  On success *state is the provider's
	 * own handle, passed to every other call. */
	int (*configure)(const struct provider_key *keys, size_t n_keys,
			 const struct provider_ctx *ctx, void **state, char *err, size_t err_len);
	/* Checks every precondition it can before the first fio run. */
	int (*preflight)(void *state, const struct provider_step *steps, size_t n_steps, char *err,
			 size_t err_len);
	/* Performs one action.  `result` is an empty object to fill with what
	 * the manifest should record (e.g. a "task" object with the provider's
	 * own started/finished); the controller adds timing and status. */
	int (*perform)(void *state, const char *action, int argc, char *const *argv, json_t *result,
		       char *err, size_t err_len);
	/* Powers the machine on if it is off; a no-op if it is on. */
	int (*ensure_powered_on)(void *state, char *err, size_t err_len);
	void (*free)(void *state);
};

/*
 * The ops for `type`, or NULL.  When NULL, *planned is set when the type is
 * known but not built into this binary yet (so the message can say so).
 */
const struct provider_ops *provider_find(const char *type, bool *planned);
/* The built-in type names, comma separated, for messages. */
const char *provider_known_types(void);

#endif
