/* SPDX-License-Identifier: MIT */
/*
 * netcup Server Control Panel (SCP) REST API client for fiocamp-run.
 *
 * Turns provider actions (power-off, power-on, reboot, snapshot, delete,
 * revert) into SCP API calls and waits for the tasks they start.  See
 * docs/netcup.md for which calls each action makes; the API itself is
 * described by netcup's OpenAPI document (GET /scp-core/api/v1/openapi).
 *
 * Invariants and ownership:
 *  - One struct fcr_netcup per server and per thread; nothing global besides
 *    libcurl's own (reference-counted) global init.
 *  - Functions that can fail return 0 or a negative enum fcr_status and fill
 *    the caller's struct fcr_error (fcr.h), which may be NULL.  Its message is
 *    a whole sentence that names the call and what went wrong; it never
 *    contains a token.
 *  - Result structs are filled by the callee even when the call fails, as far
 *    as it got (so a failed task is journaled with its own timestamps).
 *  - The module never prints, and exits only by the common fatal path (out
 *    of memory, common/common.h).  It reports through cfg.event (every API
 *    call, every stored response, every retry) and fcr_netcup_login()'s
 *    prompt callback.  Requests go through the shared API client
 *    (http/api.h), which holds the retry policy.
 *  - Tokens live only inside the struct fcr_netcup (wiped when freed) and in the
 *    token file; they never appear in events, errors or URLs.
 *  - Every wait (a task, a state, a retry pause) is bounded by the config and
 *    checks cfg.should_stop() at least every 100 ms.
 */
#ifndef FCR_NETCUP_H
#define FCR_NETCUP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "fcr.h"

#define FCR_NETCUP_DEFAULT_API_URL  "https://www.servercontrolpanel.de/scp-core"
#define FCR_NETCUP_DEFAULT_AUTH_URL "https://www.servercontrolpanel.de/realms/scp"
#define FCR_NETCUP_TOKEN_ENV	    "FIOCAMP_NETCUP_REFRESH_TOKEN"

/* The client of one server; opaque. */
struct fcr_netcup;

/* ---- configuration ----------------------------------------------------- */

/*
 * Fields of a journal event: borrowed, valid during the call; json_incref()
 * them to keep them.  Event types and their fields:
 *
 *  "api-call"      api ("scp" or "auth"), method, path (below the base URL,
 *                  with the query), status (0 when no answer came), duration_s,
 *                  attempt (1, 2, ...), error (transport failure text, if any)
 *  "api-response"  api, method, path, status, body: the JSON the SCP API
 *                  answered, with executingUser removed (never sent for the
 *                  token endpoint)
 *  "api-retry"     method, path, reason ("server.lock.error", "unavailable",
 *                  "server-error", "transport", "unauthorized"), wait_s, attempt
 *  "write-intent"  write, method, path, before: {tasks: the server's task
 *                  uuids, and "exists" or "state": the effect} before a write
 *                  is first sent
 *  "write-outcome" write, method, path, attempt, status, outcome: "accepted",
 *                  "refused" or "unknown" (recovered: found to have gone
 *                  through), after each attempt
 *  "write-check"   method, path, outcome: "done" (the write had gone through
 *                  and its effect is visible), "task" (its task was found:
 *                  task_uuid), "not-received" (it will be sent again);
 *                  after an answer that left open whether a write went through
 *  "task-state"    uuid, name, state, progress: each change seen while polling
 *  "token"         action: "refreshed" (expires_in_s), "rotated" (stored:
 *                  true when written back to the token file; error when not)
 *                  or "login" (file: the token file written)
 */
struct fcr_netcup_config {
	long server_id;		/* the SCP server id (int32), > 0 */
	const char *token_file; /* the offline refresh token; NULL: use $FCR_NETCUP_TOKEN_ENV */
	const char *api_url;	/* NULL: FCR_NETCUP_DEFAULT_API_URL */
	const char *auth_url;	/* NULL: FCR_NETCUP_DEFAULT_AUTH_URL (the Keycloak realm) */

	unsigned poll_interval_ms;    /* task and state polling, default 2000 */
	unsigned task_timeout_ms;     /* each wait for a task or a state, default 900000 */
	unsigned http_timeout_ms;     /* each HTTP exchange, default 30000 */
	unsigned connect_timeout_ms;  /* default 10000 */
	unsigned lock_wait_ms;	      /* 409 server.lock.error: wait, default 5000 */
	unsigned lock_retries;	      /* ... this many times, default 30 */
	unsigned unavailable_wait_ms; /* 503: first wait, doubled up to 8x, default 15000 */
	unsigned unavailable_retries; /* default 6 */
	unsigned transport_wait_ms;   /* transport errors and other 5xx, default 3000 */
	unsigned transport_retries;   /* default 4 */
	unsigned slow_down_ms;	      /* device login: added on slow_down, default 5000 */
	size_t max_response_bytes;    /* default 4 MiB */

	void (*event)(void *ctx, const char *type, json_t *fields); /* may be NULL */
	bool (*should_stop)(void *ctx);
	/* Turns with the token file, which hosts of a fleet may share: a
	 * refresh (which may rotate the token) happens between lock and
	 * unlock, with the file read again first.  May be NULL. */
	int (*lock)(void *ctx, const char *key);
	void (*unlock)(void *ctx, const char *key);
	void *ctx; /* passed to event, should_stop, lock, unlock and the login prompt */
};

/* Fills cfg with the defaults above (server_id 0, no token file, no callbacks). */
void fcr_netcup_config_init(struct fcr_netcup_config *cfg);

/*
 * Checks the configuration and reads the refresh token, without any network
 * traffic.  The token file must be a regular file owned by the user with mode
 * 0600 or stricter (the error says the mode found and the chmod that fixes
 * it).  URLs must be https, or http to a loopback host (127.0.0.0/8, ::1,
 * localhost).  cfg's strings are copied.  Returns the new context in *out,
 * freed with fcr_netcup_free().
 */
int fcr_netcup_new(const struct fcr_netcup_config *cfg, struct fcr_netcup **out,
		   struct fcr_error *err);
void fcr_netcup_free(struct fcr_netcup *nc);

/* Fetches an access token now (otherwise the first call does). */
int fcr_netcup_authenticate(struct fcr_netcup *nc, struct fcr_error *err);

/* ---- reading ----------------------------------------------------------- */

#define FCR_NETCUP_MAX_DISKS 16

struct fcr_netcup_disk {
	char dev[32]; /* "vda" */
	long long capacity_mib;
	long long allocation_mib;
};

struct fcr_netcup_server {
	long id;
	char name[128]; /* "v2202..." */
	char hostname[256];
	bool disabled;
	bool snapshot_allowed;
	int snapshot_count;
	bool live_info; /* serverLiveInfo was present: state, uefi, disks are valid */
	char state[24]; /* "RUNNING", "SHUTOFF", ... ("" without live info) */
	bool uefi;
	size_t n_disks;
	struct fcr_netcup_disk disks[FCR_NETCUP_MAX_DISKS];
};

/* GET /api/v1/servers/{id}. */
int fcr_netcup_get_server(struct fcr_netcup *nc, struct fcr_netcup_server *out,
			  struct fcr_error *err);

struct fcr_netcup_snapshot {
	char name[1024]; /* up to 255 characters */
	char uuid[64];
	char creation_time[48]; /* as the API wrote it */
	char state[24];		/* the server's state when it was taken */
	bool online;
	char disks[128]; /* comma-separated: "vda" */
};

struct fcr_netcup_snapshot_list {
	struct fcr_netcup_snapshot *items; /* owned; fcr_netcup_snapshot_list_free() */
	size_t n;
};

/* GET /api/v1/servers/{id}/snapshots. */
int fcr_netcup_list_snapshots(struct fcr_netcup *nc, struct fcr_netcup_snapshot_list *out,
			      struct fcr_error *err);
void fcr_netcup_snapshot_list_free(struct fcr_netcup_snapshot_list *list);

/* ---- actions ----------------------------------------------------------- */

#define FCR_NETCUP_MAX_TASKS 2

/* One API task as the API reported it. */
struct fcr_netcup_task {
	char uuid[64];
	char name[96];	     /* "ServerStateChangeTask", ... */
	char state[24];	     /* the last TaskState seen */
	char message[512];   /* responseError.message, else message; "" if neither */
	char started_at[48]; /* startedAt as written by the API; "" if absent */
	char finished_at[48];
	double started_s;  /* startedAt as Unix seconds; NaN if absent or unreadable */
	double finished_s; /* NaN while running or when absent */
	double duration_s; /* finished_s - started_s, or NaN */
	unsigned polls;	   /* GET /tasks/{uuid} calls made */
};

/* What an action did, by the API's clock and by ours. */
struct fcr_netcup_result {
	double started_s;  /* our wall clock when the action began, Unix seconds */
	double finished_s; /* ... when it returned */
	double duration_s; /* our monotonic clock */
	unsigned n_tasks;
	struct fcr_netcup_task tasks[FCR_NETCUP_MAX_TASKS];
	bool already;	 /* nothing was sent: the server was already in that state */
	bool recovered;	 /* a write whose answer was lost was found to have gone through */
	bool accepted;	 /* the API took a write (so a later failure leaves its effect unknown) */
	bool maybe_sent; /* a write failed, and whether it went through is unknown */
	bool adopted;	 /* nothing was sent: an earlier session's task of the write did it */
	unsigned retries;
};

/*
 * The tasks an earlier session started for the action about to be
 * performed, as the resumed session found them ended (the provider's
 * preflight waited for each): an array of {"write", "name", "uuid",
 * "state"} (borrowed until it is set again; NULL: none).  A write whose
 * "write" and task name match a task that FINISHED is not sent again: that
 * task is taken over (result.adopted; "adopted": true in the array).  A task
 * of another write is nothing to it: a write is adopted only by its own.
 */
void fcr_netcup_set_earlier(struct fcr_netcup *nc, json_t *tasks);
/*
 * The tasks an earlier session's writes of one action started, from its
 * write events in the journal (write-intent, write-outcome, in order): each
 * write's task is the one its write-outcome named ("task"), else (an answer
 * lost, a session killed before it came) a task of the write's kind that
 * was not among the ids journaled before it, nor another write's; a write
 * refused every time started none.  Each is waited for until it ended, at
 * least FCR_NETCUP_SAFETY_WAIT_MS however short task-timeout is.  *out
 * gets [{write, name, uuid, state, started, finished, duration_s, polls,
 * earlier: true}] in the shape of fcr_netcup_set_earlier (new reference).
 * FCR_E_TIMEOUT / FCR_E_STOPPED while one still runs.
 */
int fcr_netcup_earlier_tasks(struct fcr_netcup *nc, json_t *journal, json_t **out,
			     struct fcr_error *err);
/* The task name a write of an action starts ("power OFF":
 * ServerStateChangeTask, "snapshot X": ServerSnapshotCreateTask ...), for
 * write-intent events of older versions that did not journal it; NULL when
 * the write is no known one. */
const char *fcr_netcup_write_task_name(const char *write);

/*
 * Power.  Each first reads the server's state; when it already is what the
 * action wants, nothing is sent (result.already).  Otherwise PATCH
 * /api/v1/servers/{id} with {"state":...}, wait for the task, then until GET
 * shows the wanted state.
 *  - power_off: ACPI shutdown ({"state":"OFF"}); hard: ?stateOption=POWEROFF.
 *  - power_on: {"state":"ON"}.
 *  - reboot, FCR_NETCUP_REBOOT_GRACEFUL (the default): power_off (ACPI), wait for
 *    SHUTOFF, power_on: two tasks.  A server that is off is only powered on.
 *    POWERCYCLE / RESET: one PATCH {"state":"ON"} with that stateOption.
 */
int fcr_netcup_power_off(struct fcr_netcup *nc, bool hard, struct fcr_netcup_result *res,
			 struct fcr_error *err);
int fcr_netcup_power_on(struct fcr_netcup *nc, struct fcr_netcup_result *res,
			struct fcr_error *err);

enum fcr_netcup_reboot {
	FCR_NETCUP_REBOOT_GRACEFUL = 0,
	FCR_NETCUP_REBOOT_POWERCYCLE,
	FCR_NETCUP_REBOOT_RESET,
};
int fcr_netcup_reboot(struct fcr_netcup *nc, enum fcr_netcup_reboot how,
		      struct fcr_netcup_result *res, struct fcr_error *err);

struct fcr_netcup_snapshot_opts {
	const char *name;	 /* 1..255 characters */
	bool online;		 /* false: an offline snapshot (power the server off first) */
	const char *disk;	 /* NULL: not sent (the whole server) */
	const char *description; /* NULL: not sent */
	/*
	 * A snapshot of that name exists already: take it as ours instead of
	 * letting the API refuse, with the task of an earlier session's write
	 * of it when one is known (fcr_netcup_set_earlier): never a task found
	 * by its name alone.  For resuming an action that was cut short.
	 */
	bool adopt_existing;
};

/* Whether a task state is one it ends in (FINISHED, ERROR, CANCELED, ROLLBACK). */
bool fcr_netcup_task_over(const char *state);

/* The default task-timeout, and the least that the safety layer waits for a
 * task in flight (fcr_netcup_wait_in_flight). */
#define FCR_NETCUP_SAFETY_WAIT_MS (15u * 60 * 1000)

/*
 * The safety mode, for fiocamp-run's safety layer: every wait for a task or
 * a state lasts at least FCR_NETCUP_SAFETY_WAIT_MS, however short
 * task-timeout is.
 */
void fcr_netcup_set_safety(struct fcr_netcup *nc, bool on);

/*
 * Waits until no task of the server is in flight: GET
 * /api/v1/tasks?serverId={id}, then each task that has not ended is waited
 * for (as long as any task), and the list is read again.  The tasks
 * waited for are put in tasks[0..max) (*n of them; more are counted in *n
 * but not kept).  FCR_E_TIMEOUT names a task that is still in flight.
 * Whether a task ended in FINISHED or not does not matter here.
 */
int fcr_netcup_wait_in_flight(struct fcr_netcup *nc, struct fcr_netcup_task *tasks, size_t max,
			      size_t *n, struct fcr_error *err);

/* POST /api/v1/servers/{id}/snapshots, then wait for the task. */
int fcr_netcup_snapshot_create(struct fcr_netcup *nc, const struct fcr_netcup_snapshot_opts *opts,
			       struct fcr_netcup_result *res, struct fcr_error *err);
/* DELETE /api/v1/servers/{id}/snapshots/{name}.  FCR_E_NOT_FOUND if absent. */
int fcr_netcup_snapshot_delete(struct fcr_netcup *nc, const char *name,
			       struct fcr_netcup_result *res, struct fcr_error *err);
/*
 * POST /api/v1/servers/{id}/snapshots/{name}/revert.  The task powers the
 * server off, reverts and starts it again; we then wait until it is RUNNING.
 */
int fcr_netcup_snapshot_revert(struct fcr_netcup *nc, const char *name,
			       struct fcr_netcup_result *res, struct fcr_error *err);

/* ---- findings: preflight and dry-run ------------------------------------ */

enum fcr_netcup_level {
	FCR_NETCUP_INFO = 0,
	FCR_NETCUP_WARNING,
	FCR_NETCUP_PROBLEM, /* the plan would fail */
};

struct fcr_netcup_finding {
	enum fcr_netcup_level level;
	char code[128]; /* the API's error code when it gave one, else ours ("uefi-online") */
	char message[1024];
};

struct fcr_netcup_findings {
	struct fcr_netcup_finding *items; /* owned; fcr_netcup_findings_free() */
	size_t n, cap;
	size_t n_problems, n_warnings;
};

void fcr_netcup_findings_free(struct fcr_netcup_findings *f);

/*
 * POST /api/v1/servers/{id}/snapshots:dryrun with {"onlineSnapshot":..,
 * "diskName":..}.  Sets *possible and appends one FCR_NETCUP_PROBLEM per error
 * the API listed.  Returns < 0 only when there was no usable answer.
 */
int fcr_netcup_snapshot_dryrun(struct fcr_netcup *nc, bool online, const char *disk, bool *possible,
			       struct fcr_netcup_findings *f, struct fcr_error *err);

enum fcr_netcup_plan_kind {
	FCR_NETCUP_PLAN_SNAPSHOT, /* snapshot NAME [online|offline] [disk DISK] */
	FCR_NETCUP_PLAN_DELETE,	  /* delete-snapshot NAME */
	FCR_NETCUP_PLAN_REVERT,	  /* revert NAME */
};

struct fcr_netcup_plan_step {
	enum fcr_netcup_plan_kind kind;
	const char *name;
	bool online;	  /* SNAPSHOT only */
	const char *disk; /* SNAPSHOT only; NULL: none */
	/*
	 * A resumed campaign: SNAPSHOT whose create may have gone through in an
	 * earlier run (it will be adopted, so a name that exists is no problem);
	 * DELETE of a name that may be gone already (then it counts as done).
	 */
	bool resumed;
};

/* The snapshot actions a campaign will run, in the order it runs them. */
struct fcr_netcup_plan {
	const struct fcr_netcup_plan_step *steps;
	size_t n_steps;
	bool skip_dry_run; /* do not ask the API's snapshot dry-run */
};

/*
 * Checks, before anything is changed: the token works; the server exists and
 * its state; snapshotAllowed; UEFI against an online snapshot (the real API
 * answers 400 "Online snapshot creation is not possible if UEFI is
 * activated."; the finding shows the offline sequence); walking the steps in
 * order: names created that exist by then (on the server or earlier in the
 * plan), names deleted or reverted to that do not (steps marked `resumed`
 * excepted, see there); the API's dry-run once per kind of snapshot planned.
 * Appends findings (INFO lines describe the server).  Fills *server if not
 * NULL and the server was read.  Returns 0 when nothing is a problem,
 * FCR_E_PREFLIGHT when some finding is (err says how many), another
 * negative status only when it could not check at all (out of memory).
 */
int fcr_netcup_preflight(struct fcr_netcup *nc, const struct fcr_netcup_plan *plan,
			 struct fcr_netcup_findings *f, struct fcr_netcup_server *server,
			 struct fcr_error *err);

/* ---- login (device-code flow) ------------------------------------------ */

struct fcr_netcup_login_prompt {
	const char *verification_uri;	       /* where to log in */
	const char *verification_uri_complete; /* the same with the code filled in; may be NULL */
	const char *user_code;		       /* the code to confirm there */
	double expires_in_s;
};

/*
 * Runs the OAuth2 device-code flow against cfg->auth_url once: asks for a
 * device code, calls prompt() so the caller can show the URL and code, polls
 * the token endpoint (authorization_pending: go on; slow_down: +slow_down_ms;
 * access_denied and expired_token: FCR_E_AUTH) and writes the offline
 * refresh token to token_file with mode 0600 (a temporary file created 0600
 * in the same directory, fsync'd, renamed over; missing parent directories are
 * created 0700).  Uses cfg's auth_url, timeouts, event, should_stop and ctx;
 * server_id and token_file of cfg are ignored.
 */
int fcr_netcup_login(const struct fcr_netcup_config *cfg, const char *token_file,
		     void (*prompt)(void *ctx, const struct fcr_netcup_login_prompt *p),
		     struct fcr_error *err);

#endif
