/* SPDX-License-Identifier: MIT */
/*
 * A Proxmox VE API client for fiocamp-run: one QEMU guest on one node,
 * reached at https://HOST:8006/api2/json with an API token.  See
 * docs/proxmox.md for the calls each action makes.
 *
 * Invariants and ownership:
 *  - One struct fcr_pve per guest; nothing global besides libcurl's own.
 *  - Functions that can fail return 0 or a negative enum fcr_status and fill
 *    the caller's struct fcr_error (fcr.h), which may be NULL; the message
 *    names the call and never holds the token.
 *  - Every change is a task: its UPID is journaled ("pve-task") as soon as it
 *    is known, it is polled on the node the UPID names until it stopped, and
 *    its times come from Proxmox's own clock: starttime from the UPID,
 *    endtime from the node's task list.  OK and "WARNINGS: n" are success.
 *  - A write is sent once (http/api.h).  Before it, the UPIDs of the guest's
 *    tasks of the kind it starts are read and journaled ("write-intent", the
 *    safety contract of provider.h); when an answer is lost, the write went
 *    through exactly when a task of that kind started by our token is there
 *    that was not before, or its effect is visible.  A task refused by a
 *    lock ("can't lock file ... got timeout", "VM is locked (...)") is sent
 *    again, lock_retries times.
 *  - UPIDs whose task has not been seen stopped are "in flight"
 *    (fcr_pve_wait_in_flight() waits for them).
 *  - Events: "api-call", "api-response", "api-retry" (http/api.h), and
 *    "write-intent" (write, method, path, task_type, before: {"tasks": the
 *    UPIDs seen before the write}), "write-outcome" (write, method, path,
 *    outcome: accepted|refused|unknown, task: the UPID when accepted,
 *    recovered), "write-check" (method, path, outcome: task|done|not-received,
 *    upid), "pve-task" (upid, type, node, starttime, role), "task-state"
 *    (upid, status, exitstatus), "lock-retry" (upid, exitstatus, attempt,
 *    wait_s).
 */
#ifndef FCR_PVE_H
#define FCR_PVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "fcr.h"
#include "http/http.h"

#define FCR_PVE_TOKEN_ENV "FIOCAMP_PROXMOX_TOKEN"

/* The lines of a task log kept at most (a vzdump or restore has ~150). */
#define FCR_PVE_LOG_MAX_LINES 20000
/* The lines of a failed task's log shown in its error (from the end). */
#define FCR_PVE_LOG_TAIL 8
/* The WARN lines kept of a task that ended with WARNINGS. */
#define FCR_PVE_MAX_WARN_LINES 50

struct fcr_pve;

struct fcr_pve_config {
	const char *api_url; /* "https://HOST:8006", without /api2/json */
	const char *node;
	long vmid;
	const char *vm_name;
	const char *token_file; /* NULL: $FCR_PVE_TOKEN_ENV */
	const char *ca_file;	/* NULL: no CA file */
	bool pinned;
	unsigned char fingerprint[FCR_FINGERPRINT_BYTES];

	unsigned poll_interval_ms;   /* task polling, default 500 */
	unsigned task_timeout_ms;    /* each task, default 30 min */
	unsigned http_timeout_ms;    /* each HTTP exchange, default 30000 */
	unsigned connect_timeout_ms; /* default 10000 */
	unsigned lock_wait_ms;	     /* a lock refusal: wait, default 5000 */
	unsigned lock_retries;	     /* ... this many times, default 12 */
	unsigned transport_wait_ms;  /* transport errors and 5xx, default 2000 */
	unsigned transport_retries;  /* default 4 */
	size_t max_response_bytes;   /* default 4 MiB */

	void (*event)(void *ctx, const char *type, json_t *fields); /* borrowed fields */
	bool (*should_stop)(void *ctx);
	void *ctx;
};

void fcr_pve_config_init(struct fcr_pve_config *cfg);

/*
 * Checks the configuration and reads the token (a file of mode 0600 or
 * stricter holding USER@REALM!TOKENID=SECRET, or the environment), with no
 * network traffic.  cfg's strings are copied.
 */
int fcr_pve_new(const struct fcr_pve_config *cfg, struct fcr_pve **out, struct fcr_error *err);
void fcr_pve_free(struct fcr_pve *pve);
/* The token's id (USER@REALM!TOKENID), which is no secret. */
const char *fcr_pve_token_id(const struct fcr_pve *pve);
/* Whether `text` is USER@REALM!TOKENID=SECRET as Proxmox parses it; *id_len
 * is where the id ends. */
bool fcr_pve_token_valid(const char *text, size_t *id_len);

/* "/nodes/{node}/qemu/{vmid}" and what follows; caller frees. */
char *fcr_pve_guest_path(const struct fcr_pve *pve, const char *suffix);
/* Sleeps, asking cfg.should_stop every 100 ms: 0 or FCR_E_STOPPED. */
int fcr_pve_sleep_ms(struct fcr_pve *pve, unsigned ms, struct fcr_error *err);

/* ---- UPIDs ---------------------------------------------------------------- */

struct fcr_pve_upid {
	char node[64];
	unsigned long pid, pstart;
	long long starttime; /* the node's clock, Unix seconds */
	char type[32];	     /* qmstart, qmsnapshot, vzdump ... */
	char id[32];	     /* usually the vmid; may be empty */
	char user[160];	     /* user@realm or user@realm!tokenid */
};

/* "UPID:node:pid:pstart:starttime:type:id:user:" as pve-common UPID.pm
 * decodes it.  0 or -1. */
int fcr_pve_upid_parse(const char *upid, struct fcr_pve_upid *out);

/* ---- reading ---------------------------------------------------------------- */

/* GET below /api2/json: *data is the answer's "data" (new reference; may be
 * JSON null), *total its "total" or -1 (total may be NULL). */
int fcr_pve_get(struct fcr_pve *pve, const char *path, json_t **data, long *total,
		struct fcr_error *err);

struct fcr_pve_guest {
	char status[16];    /* "running" or "stopped" */
	char qmpstatus[24]; /* "running", "paused", "prelaunch" ... */
	char name[128];
	char lock[48]; /* "" when none */
	bool ha_managed;
	char ha_state[32];
	bool template_;
	long long uptime_s;
};

/* GET /nodes/{node}/qemu/{vmid}/status/current. */
int fcr_pve_guest_status(struct fcr_pve *pve, struct fcr_pve_guest *g, struct fcr_error *err);
/*
 * The same, and the guest must be named vm-name: FCR_E_INVAL (with `what`,
 * the action about to run, in the message) when it is not.  Asked before
 * anything that destroys or replaces the guest's state.
 */
int fcr_pve_check_guest(struct fcr_pve *pve, const char *what, struct fcr_pve_guest *g,
			struct fcr_error *err);

struct fcr_pve_snapshot {
	char name[64];
	bool vmstate;
	bool incomplete; /* snapstate present */
	long long snaptime;
};

struct fcr_pve_snapshots {
	struct fcr_pve_snapshot *v; /* without the "current" pseudo entry */
	size_t n;
};

/* GET /nodes/{node}/qemu/{vmid}/snapshot. */
int fcr_pve_snapshots(struct fcr_pve *pve, struct fcr_pve_snapshots *out, struct fcr_error *err);
void fcr_pve_snapshots_release(struct fcr_pve_snapshots *s);
/* The snapshot of that name, or NULL. */
const struct fcr_pve_snapshot *fcr_pve_snapshot_find(const struct fcr_pve_snapshots *s,
						     const char *name);

/* GET /nodes/{node}/storage/{storage}/content?content=backup&vmid={vmid}:
 * the guest's backups there (new reference: an array of volumes). */
int fcr_pve_backups(struct fcr_pve *pve, const char *storage, json_t **list, struct fcr_error *err);

/* ---- tasks ------------------------------------------------------------------ */

/* One task as fiocamp saw it. */
struct fcr_pve_task {
	char upid[256];
	struct fcr_pve_upid u;
	char role[16];	      /* what it was for: "main", "stop", "start" */
	bool stopped;	      /* seen stopped */
	char exitstatus[512]; /* "OK", "WARNINGS: n", or the error; "" until stopped */
	long long endtime;    /* from the task list; -1 unknown */
	unsigned warnings;    /* n of "WARNINGS: n" */
	double t0_mono;	      /* before the POST that started it */
	double stopwatch_s;   /* from t0_mono until seen stopped; NaN until then */
	unsigned polls;	      /* GET .../status calls */
	json_t *warn_lines;   /* "WARN: ..." lines of its log (array), or NULL */
	json_t *log_tail;     /* the last lines of a failed task's log, or NULL */
	json_t *log;	      /* the whole log when it was read (array of strings), or NULL */
};

void fcr_pve_task_release(struct fcr_pve_task *t);
/* Whether an exitstatus is success: "OK" or "WARNINGS: n". */
bool fcr_pve_exit_ok(const char *exitstatus, unsigned *warnings);
/*
 * Whether a failed task was refused by a lock and nothing was done: the
 * exitstatus (or, for vzdump's "job errors", its log's ERROR line) says
 * "can't lock file ... got timeout" or "VM is locked (...)".
 */
bool fcr_pve_lock_refusal(const char *exitstatus, json_t *log_tail);
/* The task as the manifest records it: upid, type, node, role, status (the
 * exitstatus, null while unknown), starttime, endtime, started, finished,
 * duration_s (endtime - starttime: the node's clock, whole seconds), clock,
 * stopwatch_s, polls, warnings, warn_lines, log_tail.  New reference. */
json_t *fcr_pve_task_json(const struct fcr_pve_task *t);

/*
 * Polls the task until it stopped, at most task-timeout; then its endtime,
 * and its log when it matters (read_log: always; else only with warnings or
 * an error, and then from its end).  0 when it ended OK or with warnings,
 * FCR_E_TASK (the exitstatus and the log's last lines in the message) when
 * not, FCR_E_TIMEOUT / FCR_E_STOPPED while it still runs (it stays in
 * flight).
 */
int fcr_pve_task_wait(struct fcr_pve *pve, struct fcr_pve_task *t, bool read_log,
		      struct fcr_error *err);

/*
 * How long a task is waited for when it matters more than the campaign's
 * pace: by the safety layer's power-on before it starts the guest, and by a
 * resumed session for a task an earlier one left running, which is never
 * sent again.  At least task-timeout, and at least this: three hours, the
 * longest bound Proxmox itself puts on a task fiocamp starts (vzdump's
 * lockwait, 180 minutes, waiting for another backup of the node).
 */
#define FCR_PVE_SAFETY_WAIT_MS (3u * 3600 * 1000)
/* The long wait on or off: every task wait lasts at most
 * fcr_pve_wait_limit_ms() (task-timeout, or with the long wait at least
 * FCR_PVE_SAFETY_WAIT_MS). */
void fcr_pve_set_long_wait(struct fcr_pve *pve, bool on);
unsigned fcr_pve_wait_limit_ms(const struct fcr_pve *pve);

/* Waits until no task of ours, and none listed as active on the guest, runs
 * (each at most fcr_pve_wait_limit_ms()).  *waited (may be NULL) gets the tasks waited
 * for, as the safety contract has them: {name, id (the UPID), state}, the
 * state null when it was not seen stopped (new reference). */
int fcr_pve_wait_in_flight(struct fcr_pve *pve, json_t **waited, struct fcr_error *err);
/* Whether a task of ours has not been seen stopped. */
bool fcr_pve_any_in_flight(const struct fcr_pve *pve);
/* Those tasks, as the safety contract names them: [{name, id}] (new
 * reference). */
json_t *fcr_pve_in_flight_json(const struct fcr_pve *pve);

/* ---- writes ------------------------------------------------------------------ */

struct fcr_pve_write {
	const char *what;   /* what it is for ("snapshot s1"): the events' "write" */
	const char *method; /* "POST" or "DELETE" */
	const char *path;   /* below /api2/json */
	const char *form;   /* the POST body, form-encoded ("" for none) */
	const char *task_type;
	const char *role;
	/* Whether its effect is visible (the guest's state, a snapshot there or
	 * gone); NULL when there is nothing to look at (a rollback). */
	int (*observe)(struct fcr_pve *pve, const void *arg, bool *done, struct fcr_error *err);
	const void *arg;
	bool read_log; /* read the whole log of the task (vzdump, restore) */
};

/* What a write did. */
struct fcr_pve_written {
	bool sent_nothing; /* nothing went out: the effect was there already */
	bool recovered;	   /* an answer was lost and its task found by identity */
	unsigned lock_retries;
	unsigned retries;
	/* the write's outcome is unknown: it may have gone through */
	bool unknown;
	json_t *tasks_before; /* the UPIDs read before the last attempt (new ref) */
};

/*
 * Sends a write, waits for its task, and sends it again while a lock
 * refuses it.  Every task it saw is appended to `tasks` (an array of
 * fcr_pve_task_json objects), the last one in *last (caller releases).
 */
int fcr_pve_write_task(struct fcr_pve *pve, const struct fcr_pve_write *w, json_t *tasks,
		       struct fcr_pve_task *last, struct fcr_pve_written *out,
		       struct fcr_error *err);
void fcr_pve_written_release(struct fcr_pve_written *w);

/*
 * A task of type `type` started by our token that is not among `before` (an
 * array of UPIDs), from the guest's task list: found = false when there is
 * none.  How a lost write is told from one that was not received.
 */
int fcr_pve_find_new_task(struct fcr_pve *pve, const char *type, json_t *before, bool *found,
			  char *upid, size_t upid_len, struct fcr_error *err);

/* ---- vzdump's log ---------------------------------------------------------------- */

struct fcr_pve_vzdump_log {
	char archive_path[512];	     /* "creating vzdump archive '...'"; "" */
	char transferred_text[64];   /* "20.00 GiB" */
	double transferred_bytes;    /* NaN when not found */
	double transfer_s;	     /* "in N seconds"; NaN */
	char archive_size_text[64];  /* "archive file size: 8.07GB" */
	char guest_duration[16];     /* "Finished Backup of VM 100 (00:00:21)" */
	bool waited_for_global_lock; /* "trying to get global lock - waiting..." */
};

/* Reads what vzdump wrote into a task log (an array of lines). */
void fcr_pve_vzdump_log_parse(json_t *lines, struct fcr_pve_vzdump_log *out);
/* "20.00 GiB", "512.00 MiB", "8.07GB", "812MB" as bytes; NaN when not a size. */
double fcr_pve_parse_size(const char *text);

#endif
