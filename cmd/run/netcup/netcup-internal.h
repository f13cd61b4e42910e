/* SPDX-License-Identifier: MIT */
/*
 * Shared by netcup.c (requests, retries, tasks, actions), netcup-auth.c
 * (tokens and login) and netcup-preflight.c.  Not part of the module's API.
 */
#ifndef FCR_NETCUP_INTERNAL_H
#define FCR_NETCUP_INTERNAL_H

#include <stdarg.h>

#include "common/common.h"
#include "http/http.h"
#include "netcup/netcup.h"

#define CM_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Tasks seen by this context, so a later search never takes them for new ones. */
#define NC_SEEN_TASKS 64

struct fcr_netcup {
	struct fcr_netcup_config cfg; /* its string pointers point to the copies below */
	char *api_base;		  /* no trailing slash */
	char *auth_base;
	char *token_file; /* NULL: the token came from the environment */
	char *refresh_token;
	char *access_token;
	double access_valid_until; /* monotonic seconds */
	struct fcr_http http;
	char seen[NC_SEEN_TASKS][64];
	unsigned n_seen;
};

/* An HTTP answer, parsed. */
struct nc_reply {
	long status; /* 0: no answer (see transport) */
	enum fcr_transport transport;
	json_t *json;	   /* the body as JSON, or NULL (empty or not JSON); owned */
	char snippet[160]; /* the start of a body that is not JSON, for messages */
	char error[320];   /* transport failure */
};

void nc_reply_clear(struct nc_reply *r);

/* One request of the SCP API below api_base. */
struct nc_call {
	const char *method;
	const char *path;	  /* "/api/v1/servers/1?x=y", already escaped */
	const char *content_type; /* NULL for GET and DELETE */
	const char *body;
	bool write; /* not idempotent: never resent blindly, never on a reused connection */
};

/* ---- netcup.c ---- */
int fcr_fail_as(struct fcr_error *err, enum fcr_status code, const char *fmt, ...)
    CM_PRINTF(3, 4);
/* Sends an event; steals `fields`.  Does nothing without cfg.event. */
void nc_emit(const struct fcr_netcup_config *cfg, const char *type, json_t *fields);
/* Sleeps, watching should_stop; 0 or FCR_E_STOPPED. */
int nc_sleep_ms(const struct fcr_netcup_config *cfg, unsigned ms, struct fcr_error *err);
/*
 * An idempotent request with the retry policy (transport errors, 5xx, 503
 * back-off, one refresh on 401).  Returns 0 with any answer below 500 in *r
 * (the caller reads the status and clears *r); < 0 when none came (*r empty).
 */
int nc_request(struct fcr_netcup *nc, const struct nc_call *c, struct nc_reply *r,
	       struct fcr_error *err);
/* nc_request, then anything but 2xx becomes an error (FCR_E_NOT_FOUND for 404). */
int nc_get(struct fcr_netcup *nc, const char *path, struct nc_reply *r, struct fcr_error *err);
/* Fills err from an error answer: "METHOD PATH: HTTP 400 code: message". */
int nc_api_error(struct fcr_error *err, const struct nc_call *c, const struct nc_reply *r);
/* Copies a JSON string member into buf ("" when absent or not a string). */
void nc_copy_str(char *buf, size_t len, json_t *obj, const char *key);
/* Parses one server object. */
int nc_parse_server(json_t *j, struct fcr_netcup_server *out, struct fcr_error *err);
/* Appends a finding (printf-style message). */
void nc_finding(struct fcr_netcup_findings *f, enum fcr_netcup_level level, const char *code,
		const char *fmt, ...) CM_PRINTF(4, 5);

/* ---- netcup-auth.c ---- */
/* Reads the refresh token from cfg.token_file or the environment into nc. */
int nc_token_load(struct fcr_netcup *nc, struct fcr_error *err);
/* A valid access token in nc->access_token; force: fetch a new one anyway. */
int nc_access_token(struct fcr_netcup *nc, bool force, struct fcr_error *err);
/* Writes a secret to path: temp file 0600 in the same directory, fsync, rename. */
int nc_write_secret_file(const char *path, const char *text, struct fcr_error *err);
/* Frees a string after overwriting it. */
void nc_free_secret(char *s);

#endif
