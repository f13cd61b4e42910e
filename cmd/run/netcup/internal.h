/* SPDX-License-Identifier: MIT */
/*
 * What the files of the netcup SCP client share (client.c: the context,
 * reads, tasks and writes; power.c; snapshots.c; auth.c: tokens;
 * plan.c: the checks of a plan).  Not part of the client's API (netcup.h).
 */
#ifndef FCR_NETCUP_INTERNAL_H
#define FCR_NETCUP_INTERNAL_H

#include "http/api.h"
#include "netcup/netcup.h"

/* Tasks seen by this context, so that a later search never takes them for new ones. */
#define FCR_NETCUP_SEEN_TASKS 64

struct fcr_netcup {
	struct fcr_netcup_config cfg; /* its string pointers point to the copies below */
	char *token_file;	      /* NULL: the token came from the environment */
	char *refresh_token;
	char *access_token;
	char *authorization;	   /* "Bearer " and the access token */
	double access_valid_until; /* monotonic seconds */
	struct fcr_http http;	   /* one connection for both APIs */
	struct fcr_api scp;	   /* the SCP REST API */
	struct fcr_api auth;	   /* the Keycloak realm: tokens */
	char seen[FCR_NETCUP_SEEN_TASKS][64];
	unsigned n_seen;
	bool safety;	 /* fcr_netcup_set_safety() */
	json_t *earlier; /* fcr_netcup_set_earlier(); borrowed */
};

/* An earlier session's task of this write (fcr_netcup_set_earlier) that
 * FINISHED, taken over: 1 (its task in res), 0 when there is none. */
int fcr_netcup_adopt_earlier(struct fcr_netcup *nc, const char *what, const char *task_name,
			     struct fcr_netcup_result *res, struct fcr_error *err);

/* How long a task or a state is waited for: task-timeout, and in the safety
 * mode at least FCR_NETCUP_SAFETY_WAIT_MS. */
unsigned fcr_netcup_wait_limit_ms(const struct fcr_netcup *nc);

/* The API configuration of the SCP, or (auth) of its token endpoint, for cfg
 * (borrowed: it must outlive the API). */
void fcr_netcup_api_config(const struct fcr_netcup_config *cfg, bool auth,
			   struct fcr_api_config *out);

/* ---- client.c: tasks and writes ---- */

/*
 * Polls GET /tasks/{uuid} every poll interval until the task ends (FINISHED:
 * 0; ERROR, CANCELED, ROLLBACK: FCR_E_TASK).  `first` is the TaskInfo a
 * write answered with (may be NULL).
 */
int fcr_netcup_task_wait(struct fcr_netcup *nc, const char *uuid, json_t *first,
			 struct fcr_netcup_task *t, struct fcr_error *err);
/*
 * The newest task named `name` on our server that this context has not seen
 * and whose uuid is not in the array `known` (may be NULL); found = false
 * when there is none.
 */
int fcr_netcup_task_find(struct fcr_netcup *nc, const char *name, json_t *known, bool *found,
			 char *uuid, size_t uuid_len, char *state, size_t state_len,
			 struct fcr_error *err);

/* A write of the SCP API and how to tell whether it went through. */
struct fcr_netcup_write {
	struct fcr_api_call call;
	const char *what;      /* "snapshot fc-1", for the journal's write events */
	const char *task_name; /* the task this write starts */
	/* Whether the wanted effect is visible (the state reached, the
	 * snapshot there or gone), and (seen, may be NULL) what was looked at
	 * ("exists", "state"); NULL when there is none to look at. */
	int (*observe)(struct fcr_netcup *nc, const void *arg, bool *done, json_t *seen,
		       struct fcr_error *err);
	const void *arg;
};
/* Sends a write once (fcr_api_write) and waits for the task it started. */
int fcr_netcup_write(struct fcr_netcup *nc, const struct fcr_netcup_write *w,
		     struct fcr_netcup_result *res, struct fcr_error *err);

/* An action's result: begin returns the monotonic start; end returns rc. */
double fcr_netcup_result_begin(struct fcr_netcup_result *res);
int fcr_netcup_result_end(struct fcr_netcup_result *res, double t0, int rc);
/* The next task slot of a result (the last one again when all are taken). */
struct fcr_netcup_task *fcr_netcup_result_task(struct fcr_netcup_result *res);

/* Whether a snapshot of that name exists. */
int fcr_netcup_snapshot_exists(struct fcr_netcup *nc, const char *name, bool *exists,
			       struct fcr_error *err);

/* ---- power.c ---- */
/* Polls GET /servers/{id} until its state is `want`, at most task-timeout. */
int fcr_netcup_wait_state(struct fcr_netcup *nc, const char *want, struct fcr_error *err);

/* ---- snapshots.c ---- */
/* Appends a finding (printf-style message). */
void fcr_netcup_finding(struct fcr_netcup_findings *f, enum fcr_netcup_level level,
			const char *code, const char *fmt, ...) CM_PRINTF(4, 5);

/* ---- auth.c ---- */
/* Reads the refresh token from cfg.token_file or the environment into nc. */
int fcr_netcup_token_load(struct fcr_netcup *nc, struct fcr_error *err);
/* A valid access token in nc->access_token; force: fetch a new one anyway. */
int fcr_netcup_access_token(struct fcr_netcup *nc, bool force, struct fcr_error *err);
/* The SCP API's authorize hook (http/api.h): the bearer header. */
int fcr_netcup_authorize(void *opaque, bool renew, const char **header, struct fcr_error *err);

#endif
