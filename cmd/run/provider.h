/* SPDX-License-Identifier: MIT */
/*
 * The provider interface: how fiocamp-run asks a hosting provider (netcup,
 * later Proxmox …) to change the target machine's state between blocks of
 * rounds.
 *
 * A provider is a table of functions (struct fcr_provider) and its own
 * action table, rows of the same kind as the built-in actions
 * (action.h); its rows reach its handle through ctx->provider.
 * The controller:
 *
 *   1. finds the provider by the [provider] section's `type`
 *      (fcr_catalog_provider, catalog.h, in the catalog main.c gives),
 *   2. while parsing the campaign file, checks every `before` action against
 *      the rows (name, argument count, check()), and the [provider] keys with
 *      configure(ctx = NULL), so that mistakes are reported as file:line
 *      before anything runs,
 *   3. for --dry-run: configure(), describe_preflight(), then each provider
 *      action's describe() in campaign order; nothing else,
 *   4. for a run: configure() with the real context and connect() (the
 *      credentials) before the campaign directory is created,
 *   5. calls preflight() once with every provider action of the campaign,
 *      its status in the manifest and its write events in the journal (a
 *      resumed campaign passes what earlier sessions did), before the first
 *      fio run,
 *   6. calls each action's perform(), in campaign order,
 *   7. calls ensure_powered_on() from the safety layer (engine/safety.c)
 *      when the campaign stops (failure, Ctrl-C, a fatal error) after an
 *      action that took the machine away and before one that saw it back,
 *      then waits for its SSH server,
 *   8. calls free().
 *
 * The safety contract.  What the engine's safety layer (engine/safety.c,
 * engine/resume.c) relies on; every provider keeps it, so that no campaign
 * leaves a machine off or records an effect that did not happen:
 *
 *  - Tasks in flight.  ensure_powered_on() first waits until no task of the
 *    provider's API is in flight on the machine: one an action started and
 *    stopped waiting for (Ctrl-C, a task that outlived the task timeout),
 *    one an earlier session or someone else started.  Each is waited for
 *    however long task-timeout was, up to a bound the provider documents
 *    that is at least its own longest task (netcup: 15 minutes; Proxmox:
 *    three hours, vzdump's own lockwait): a timed-out take-down is still a
 *    take-down.  Only then it reads the state the API reports, powers the
 *    machine on when it is not running, and waits until the API says it
 *    runs.  It returns 0 only then; a task still in flight after its wait is
 *    a failure that names the task.  Its result: "waited_for" (the tasks it
 *    waited for: name, id, state), "in_flight" (those it stopped waiting
 *    for, still running: name, id), "already" (nothing was sent),
 *    "server_state" (as the API reported it last).  Only a second Ctrl-C
 *    cuts the wait short, and then the safety layer says what is true: the
 *    state the machine is in now, the tasks that may still change it, and
 *    that a --resume waits for them.
 *
 *  - Journal before sending.  Before a write (a request that changes the
 *    machine or what the provider keeps for it) leaves for the first time,
 *    the provider journals (ctx->journal) a "write-intent" event: "write"
 *    (what it is for: "snapshot NAME", "power-off"), "method", "path", and
 *    "before", what it saw just before: the ids of the machine's tasks it
 *    can list ("tasks") and the effect as it was ("exists": false for a
 *    snapshot to be made); and what the write is to start: "task_type" (the
 *    kind of task) and, for an action of several writes, "role" (the
 *    sub-step: a Proxmox restore's "stop", "main", "start").  The journal
 *    is on disk when the call returns, so a session killed while the
 *    request is on its way leaves the intent behind.  After the write a
 *    "write-outcome" event says "accepted" (the API took it; "task": its
 *    id), "refused" (the API said no: nothing happened; a 4xx, or a 501 Not
 *    Implemented, at once and never sent again) or "unknown" (a timeout, a
 *    dropped connection, a passing 5xx: it may have happened).  Events
 *    journaled during an action carry "at":
 *    {"state", "index"}; the engine adds it.  http/api.h does all of this for an
 *    HTTP provider (struct fcr_api_write: baseline, check).
 *
 *  - A lost write.  Whether a write whose answer was lost went through is
 *    decided by the effect the API shows (the snapshot list, the machine's
 *    state) and by task identity: a task is the write's only when its id
 *    was not among those journaled before the write was sent.  Never by a
 *    task's name and a time window.
 *
 *  - Unknown outcomes.  An action whose write may have happened says so in
 *    its result ("outcome": "unknown", and for what it makes e.g.
 *    "created": null), never that it did not happen.  On resume,
 *    preflight() gets every step with its status, result and `journal` (its
 *    write events of earlier sessions) and reconciles them against the API
 *    before anything runs: what exists now, and what this campaign made.
 *
 *  - Adopted only by its own task.  A resumed step whose earlier attempt
 *    started tasks takes a task over instead of sending its write again only
 *    when the task's type and role match the sub-step it is about to do,
 *    and the task is identified by its id: the one the write-outcome
 *    journaled, else a task of that type by us that was not among the ids
 *    journaled in the write's write-intent.  A task of another role (a
 *    restore's stop, a revert's start) completes its own sub-step and
 *    nothing more; never a task found by its name and a time window.  A
 *    task of ours that still runs when the resume comes is waited for
 *    (preflight(), up to the same bound as the safety power-on) and then
 *    adopted, never sent again; one still running after that bound stops
 *    the preflight, and nothing is sent.  Every earlier task of the step is
 *    kept in its record.
 *
 *  - Timings cut by an interrupt.  A transition an interrupt (or a failure)
 *    cut short and a resume finished has no sample of its own: the engine
 *    marks what it measured through it ("cut" on the action, "downtime_cut"
 *    and "data_back_cut" on the repetition, in the manifest and the end
 *    events of the journal), and fiocamp-analyze keeps such timings out of
 *    its statistics.  A provider's task seconds (its own clock, from the
 *    task's start to its end) stay samples: an interrupt does not change
 *    them.
 *
 *  - Provably created.  A thing (a snapshot) counts as made by this
 *    campaign, so that a resumed action adopts it instead of refusing and
 *    a cleanup ("delete-snapshot all-created") removes it, only when an
 *    action of this campaign made it (status done, or result "created":
 *    true), or the API accepted its write (a "write-outcome" "accepted"), or
 *    a "write-intent" for it was journaled with the thing absent before and
 *    it exists now.  A step that is pending or skipped made nothing, and
 *    a thing of that name is someone else's: preflight() refuses to go on.
 *
 * Rules for implementations: no printing and no exiting; errors go into the
 * caller's struct fcr_error (fcr.h): one sentence, file:line: for
 * configuration errors.  configure() appends one "file:line: message" line
 * per problem to its list instead, so that all are shown at once.  Lines
 * meant for the user go through ctx->note.  Secrets never go into error texts, results,
 * notes or journal events.  API calls are reported through ctx->journal
 * (method, path, status, never a token).  Return 0 on success, a negative
 * value on failure.
 */
#ifndef FCR_PROVIDER_H
#define FCR_PROVIDER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "action.h"
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

/* One action of the campaign, for preflight(). */
struct fcr_provider_step {
	const char *state;
	const char *action;
	int argc;
	char *const *argv;
	/* what the row's check parsed (struct fcr_step's args), borrowed; NULL
	 * for a row without a check */
	const void *args;
	const char *file;
	unsigned line;
	unsigned repetition; /* its repetition in a repeated state; 0: the state does not repeat */
	/* Its status in the manifest: "pending" on a fresh run; a resumed
	 * campaign also passes "done", "running", "interrupted", "failed". */
	const char *status;
	json_t *result; /* what perform() recorded for it then (borrowed), or NULL */
	/* The step as the manifest has it, with the "task" or "tasks" it
	 * recorded beside the result (borrowed), or NULL. */
	json_t *recorded;
	/* Its "write-intent" and "write-outcome" events of earlier sessions, in
	 * journal order (borrowed; an empty array on a fresh run). */
	json_t *journal;
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
	/*
	 * In a fleet, what the hosts share that only one may use at a time (a
	 * token file whose refresh token rotates): lock(KEY) waits until no
	 * other host holds KEY, unlock(KEY) lets the next one go.  lock returns
	 * 0 (held, also when the fleet is gone and the host is alone), or
	 * FCR_E_STOPPED after a second Ctrl-C.  NULL outside a fleet.
	 */
	int (*lock)(void *opaque, const char *key);
	void (*unlock)(void *opaque, const char *key);
};

struct fcr_provider {
	const char *type;		  /* the `type` value */
	const char *summary;		  /* one line for --help */
	const struct fcr_action *actions; /* its action table; ends with {.name = NULL} */

	/* Reads the [provider] keys: no network, no credentials.  ctx NULL:
	 * only check them (while parsing).  On success *state is the
	 * provider's own handle, passed to every other call. */
	int (*configure)(const struct fcr_provider_section *sec, const struct fcr_provider_ctx *ctx,
			 void **state, struct cm_strv *problems);
	/* Reads the credentials (no network yet). */
	int (*connect)(void *state, struct fcr_error *err);
	/* For --dry-run: what the preflight will ask, lines ending in '\n'.
	 * May be NULL. */
	void (*describe_preflight)(void *state, struct cm_buf *out);
	/* Checks every precondition it can before the first fio run. */
	int (*preflight)(void *state, const struct fcr_provider_step *steps, size_t n_steps,
			 struct fcr_error *err);
	/*
	 * The safety layer's one call: leave the machine on.  Waits for every
	 * task in flight on the machine (see "Tasks in flight" above), then
	 * powers it on if it is off, a no-op if it is on; `result` gets what it
	 * did and the state it was left in ("server_state").  It must look at the
	 * machine as it really is (a change still under way counts as not
	 * done), and only ctx->hard_stop may cut it short.  err->code FCR_E_INVAL: it
	 * left the machine off on purpose (a start would harm it or be
	 * refused), and err says why and what to do instead.
	 */
	int (*ensure_powered_on)(void *state, json_t *result, struct fcr_error *err);
	/*
	 * What the machine's transitions contend for with other machines' (a
	 * Proxmox node's disk, which vzdump and restore share): a key that is
	 * the same for every machine of that place ("proxmox:API-URL:NODE").
	 * In a fleet, hosts with the same key run their provider actions one
	 * at a time unless parallel-transitions = yes.  A new string (caller
	 * frees), or NULL: none.  May be NULL.
	 */
	char *(*contention_key)(void *state);
	void (*free)(void *state);
};

/* ---- helpers for implementations (provider.c) ---- */

/*
 * What every provider's handle holds first: the context the controller
 * gave (none while the file is only checked), where its section is, and
 * what it is doing, for the events of its API client.  The client's hooks
 * (fcr_provider_on_event, fcr_provider_on_should_stop) take it as their
 * opaque pointer.
 */
struct fcr_provider_base {
	const char *type; /* the provider's type: the events' "provider" */
	struct fcr_provider_ctx ctx;
	bool have_ctx;
	char *file;	     /* the campaign file, for messages */
	unsigned line;	     /* [provider]'s type line */
	unsigned key_line;   /* token-file's line; 0 when not given */
	bool safety;	     /* only a second Ctrl-C stops a wait */
	const char *current; /* the action being performed, for events */
};

/* Fills b for configure() (ctx NULL: the file is only checked). */
void fcr_provider_base_init(struct fcr_provider_base *b, const char *type,
			    const struct fcr_provider_section *sec,
			    const struct fcr_provider_ctx *ctx);
void fcr_provider_base_release(struct fcr_provider_base *b);
/* The API client's hooks, with the base as their opaque pointer: an event
 * into the journal (fcr_provider_event), whether a wait is to end
 * (fcr_provider_should_stop), the fleet's turns with what hosts share. */
void fcr_provider_on_event(void *base, const char *type, json_t *fields);
bool fcr_provider_on_should_stop(void *base);
/* ctx->lock and ctx->unlock (0 at once without a fleet). */
int fcr_provider_on_lock(void *base, const char *key);
void fcr_provider_on_unlock(void *base, const char *key);
/* A line for the user (ctx->note), when there is a context. */
void fcr_provider_note(const struct fcr_provider_base *b, const char *level, const char *fmt, ...)
    CM_PRINTF(3, 4);

/*
 * What the campaign made at the provider (its snapshots), kept once for
 * every provider, so that `delete-snapshot all-created` removes exactly
 * that ("provably created" above): `created` what an action of ours made,
 * `maybe` what a write that was taken (or may have been) may have made,
 * deleted by all-created if it is there.  A resumed campaign rebuilds both
 * in preflight() from the manifest and the journal.
 */
struct fcr_provider_made {
	struct cm_strv created; /* made by this campaign, not gone since */
	struct cm_strv maybe;	/* started, outcome unknown: deleted by all-created if there */
	struct cm_strv dry;	/* --dry-run: what the plan will have made by then */
};
/* name was made: created, no longer maybe. */
void fcr_provider_made_add(struct fcr_provider_made *m, const char *name);
/* name is gone (deleted, or found gone). */
void fcr_provider_made_gone(struct fcr_provider_made *m, const char *name);
/* Nothing made is left (all of it deleted, or a restore took it). */
void fcr_provider_made_clear(struct fcr_provider_made *m);
void fcr_provider_made_release(struct fcr_provider_made *m);
/*
 * `delete-snapshot NAME|all-created`: NAME, or every name made (created,
 * then maybe), one after the other through delete_one(), which appends the
 * name to `deleted`, or to `gone` when it was gone already, and returns 0;
 * the first failure stops.  A name deleted or gone is no longer made.
 * result gets "snapshot" (NAME), "deleted" and "already_gone".
 */
int fcr_provider_made_delete(struct fcr_provider_made *m, const char *what, json_t *result,
			     int (*delete_one)(void *arg, const char *name, json_t *deleted,
					       json_t *gone),
			     void *arg);

/* A [provider] key that sets a duration field of the provider's
 * configuration struct. */
struct fcr_provider_duration_key {
	const char *key;
	size_t offset; /* of the unsigned field */
};
/* When k is one of the n keys of `table`: reads it into its field of cfg
 * (fcr_provider_key_duration) and returns true. */
bool fcr_provider_read_duration(const struct fcr_provider_duration_key *table, size_t n, void *cfg,
				const struct fcr_provider_key *k, struct cm_strv *problems);

/*
 * A client's event into the journal: a shallow copy of the borrowed fields
 * with "event" (type), "provider" and, when not NULL, "during" (what the
 * provider was doing then).  ctx NULL (the file is only checked): nothing.
 */
void fcr_provider_event(const struct fcr_provider_ctx *ctx, const char *provider,
			const char *during, const char *type, json_t *fields);
/* Whether a wait is to end: at the first Ctrl-C, in the safety layer's
 * power-on (safety) only at the second.  ctx NULL: never. */
bool fcr_provider_should_stop(const struct fcr_provider_ctx *ctx, bool safety);
/* A line for the user through ctx->note; ctx NULL: nothing. */
void fcr_provider_vnote(const struct fcr_provider_ctx *ctx, const char *level, const char *fmt,
			va_list ap) CM_PRINTF(3, 0);
/* Whether a step's manifest status is `want`. */
bool fcr_provider_step_is(const struct fcr_provider_step *st, const char *want);
/* A step's key among a provider's records of earlier sessions: its state,
 * repetition and line ("STATE\nREPETITION\nLINE"); caller frees. */
char *fcr_provider_step_key(const char *state, unsigned repetition, unsigned line);

/* Appends "file:line: message" about key k to problems. */
void fcr_provider_key_error(struct cm_strv *problems, const struct fcr_provider_key *k,
			    const char *fmt, ...) CM_PRINTF(3, 4);
/* A duration key ("500ms", "30s", "15m"): more than 0 and at most 1d, into
 * *ms; false (with the problem appended) when it is not one. */
bool fcr_provider_key_duration(const struct fcr_provider_key *k, unsigned *ms,
			       struct cm_strv *problems);

#endif
