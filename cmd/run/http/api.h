/* SPDX-License-Identifier: MIT */
/*
 * A JSON REST API below one base URL, as every provider talks to one: the
 * retry and back-off policy, the rule that a write is never sent twice,
 * journal events for every call, and the redaction of what an answer holds
 * that must not be stored.  The provider brings what is its own through
 * struct fcr_api_config: how it authorizes, which refusal means "busy, ask
 * again", which answer fields are secret or personal.  Transport is
 * http/http.h; timestamps are cm_parse_rfc3339() (common/common.h).
 *
 * The policy:
 *  - Idempotent requests (fcr_api_request, fcr_api_get) are sent again after
 *    a busy refusal (busy_retries times, busy_wait_ms apart; asked first,
 *    since Proxmox says "busy" with a 500), a transport error or a passing
 *    5xx (transport_retries times, transport_wait_ms apart), and after a 503
 *    (unavailable_retries times, unavailable_wait_ms doubling up to 8x).  A
 *    certificate refused in the TLS handshake is never retried (FCR_E_TLS):
 *    it cannot succeed, and nothing was sent.  A 401 gets new credentials
 *    once (authorize with renew) and one more try.  A permanent 5xx
 *    (fcr_api_status_permanent: 501 Not Implemented and its kin) is an
 *    answer like a 4xx: never asked again, and a write answered so was
 *    refused.
 *  - Writes (fcr_api_write) go out on a fresh connection that is closed
 *    afterwards (libcurl would otherwise resend a request whose reused
 *    connection died), and before any repetition the provider's check says
 *    whether an earlier attempt went through; only a request that never left
 *    is known not to have.  Before the first attempt a "write-intent" event
 *    (write, method, path, before: what the provider's baseline saw) is
 *    emitted, which the controller has on disk before the request leaves;
 *    after each attempt a "write-outcome" (write, method, path, attempt,
 *    status, outcome: "accepted", "refused" or "unknown"; task: the id of
 *    the task an accepted one started, when known; recovered: true when a
 *    check found that a lost one had gone through).  See provider.h,
 *    "the safety contract".
 *  - Every exchange is an "api-call" event (api, method, path, status,
 *    duration_s, attempt, error); every answer that is JSON an
 *    "api-response" (with the secret keys removed at any depth) when
 *    store_answers is set; every pause an "api-retry" (method, path, reason,
 *    wait_s, attempt).  Credentials never reach an event, an error or a URL.
 *  - Every wait checks should_stop() at least every 100 ms.
 *
 * Errors follow fcr.h; an API error reads "METHOD PATH: HTTP 400 code:
 * message" (with the "errors" map of a Proxmox answer after it) and fills
 * err's http_status and api_code.
 */
#ifndef FCR_HTTP_API_H
#define FCR_HTTP_API_H

#include <jansson.h>
#include <stdbool.h>

#include "fcr.h"
#include "http/http.h"

/* An answer, parsed. */
struct fcr_reply {
	long status; /* 0: no answer (see transport) */
	enum fcr_transport transport;
	json_t *json;	   /* the body as JSON, or NULL (empty or not JSON); owned */
	char snippet[160]; /* the start of a body that is not JSON, for messages */
	char error[320];   /* the transport failure in words */
};
void fcr_reply_clear(struct fcr_reply *r);

/* One request below the base URL. */
struct fcr_api_call {
	const char *method;
	const char *path;	  /* "/api/v1/servers/1?x=y", already escaped */
	const char *content_type; /* NULL for GET and DELETE */
	const char *body;
	bool write; /* not idempotent: never resent blindly, never on a reused connection */
};

struct fcr_api_config {
	const char *name;  /* the "api" member of the events ("scp") */
	const char *panel; /* where a user looks when an outcome is unknown ("the SCP") */
	unsigned transport_wait_ms, transport_retries;
	unsigned unavailable_wait_ms, unavailable_retries;
	unsigned busy_wait_ms, busy_retries;
	/* Keys removed from every stored answer, at any depth; NULL-terminated. */
	const char *const *secret_keys;
	bool store_answers;
	/* The reason ("server.lock.error") when an answer means "busy, ask again
	 * soon", else NULL.  May be NULL. */
	const char *(*busy)(const struct fcr_reply *r);
	/* The Authorization header's value ("Bearer ..."), borrowed until the next
	 * call; renew: the last one was refused.  NULL: no header. */
	int (*authorize)(void *opaque, bool renew, const char **header, struct fcr_error *err);
	void (*event)(void *opaque, const char *type, json_t *fields); /* borrowed fields */
	bool (*should_stop)(void *opaque);
	void *opaque;
	/* The id of the task a write's 2xx answer started (a Proxmox UPID, a
	 * netcup task uuid) into id, for the write-outcome event; false when the
	 * answer names none.  May be NULL. */
	bool (*reply_task)(const struct fcr_reply *r, char *id, size_t len);
};

/* Whether an HTTP status is a 5xx that asking again cannot change: 501 Not
 * Implemented (Proxmox's answer to an unknown path or method, and to a body
 * on GET or DELETE), 505, 506, 508, 510. */
bool fcr_api_status_permanent(long status);

struct fcr_api {
	struct fcr_http *http; /* borrowed: APIs of one provider may share a connection */
	char *base;	       /* without a trailing slash */
	struct fcr_api_config cfg;
};

/* base is copied; http must outlive the api. */
void fcr_api_init(struct fcr_api *api, struct fcr_http *http, const char *base,
		  const struct fcr_api_config *cfg);
void fcr_api_release(struct fcr_api *api);

/* An event; steals `fields` (NULL is ignored).  Nothing without cfg.event. */
void fcr_api_emit(const struct fcr_api *api, const char *type, json_t *fields);
/* Sleeps, watching should_stop(): 0 or FCR_E_STOPPED. */
int fcr_api_sleep_ms(const struct fcr_api *api, unsigned ms, struct fcr_error *err);

/*
 * An idempotent request with the policy above.  Returns 0 with any answer
 * below 500 in *r (the caller reads its status and clears it), or < 0 when
 * none came (*r empty).
 */
int fcr_api_request(struct fcr_api *api, const struct fcr_api_call *c, struct fcr_reply *r,
		    struct fcr_error *err);
/* A GET whose answer must be 2xx; 404 is FCR_E_NOT_FOUND. */
int fcr_api_get(struct fcr_api *api, const char *path, struct fcr_reply *r, struct fcr_error *err);
/* Fills err from an error answer ({code, message} objects or a list of them,
 * else the start of the body); returns FCR_E_NOT_FOUND for 404, else FCR_E_API. */
int fcr_api_error(struct fcr_error *err, const struct fcr_api_call *c, const struct fcr_reply *r);
/* The "code" of an error answer (the first, for a list), or NULL. */
const char *fcr_api_code(const struct fcr_reply *r);

/*
 * A form POST that holds a secret and whose answer does (an OAuth token
 * endpoint): retried after transport errors and any 5xx, never stored,
 * wiped after use.  *status and *json (caller frees, NULL when not JSON)
 * are the last answer's, whatever its status; < 0 only when none came.
 */
int fcr_api_post_secret(struct fcr_api *api, const char *path, const char *form, long *status,
			json_t **json, struct fcr_error *err);

/* ---- writes ------------------------------------------------------------------- */

enum fcr_written_how {
	FCR_WRITTEN_REPLY, /* the API answered 2xx: see reply */
	FCR_WRITTEN_DONE,  /* an earlier attempt went through; its effect is visible */
	FCR_WRITTEN_TASK,  /* an earlier attempt went through; its task is `task` */
};

struct fcr_written {
	enum fcr_written_how how;
	struct fcr_reply reply; /* FCR_WRITTEN_REPLY; the caller clears it */
	char task[256];		/* FCR_WRITTEN_TASK (a Proxmox UPID is up to ~200) */
	unsigned retries;	/* pauses before it went through */
	bool recovered;		/* an attempt whose answer was lost had gone through */
	bool already;		/* every attempt was refused and the effect was there before */
	/* On failure: an attempt may have gone through (its answer was lost, or
	 * a 5xx), so its outcome is unknown; false: every one was refused or
	 * never left. */
	bool maybe_sent;
};

struct fcr_api_write {
	struct fcr_api_call call;
	const char *what; /* what the write is for ("snapshot fc-1"): the events' "write" */
	/* Members added to the write-intent event: what the write is to start
	 * (a Proxmox task's "task_type" and "role"), so that a resumed session
	 * knows which sub-step of its action it was (borrowed; may be NULL). */
	json_t *intent;
	/*
	 * What is seen just before the first attempt: the ids of the tasks that
	 * exist already, the effect as it is.  *before gets a new object (it is
	 * journaled in the write-intent event and passed to check()).  < 0 on
	 * error: then nothing is sent.  May be NULL.
	 */
	int (*baseline)(void *arg, const struct fcr_api_write *w, json_t **before,
			struct fcr_error *err);
	/*
	 * Before the write is sent again: did an earlier attempt go through?
	 * maybe_sent: one may have (a timeout, a dropped connection, a 5xx);
	 * else every one was refused (409, 503) and only an effect that is
	 * there already counts (a resumed run).  `before` is the baseline's
	 * object (NULL without a baseline): a task is the write's only when it
	 * is not among the ones seen there.  Returns 1 with out->how (and
	 * out->task) set when nothing is to be sent, 0 to send again, < 0 on
	 * error.
	 */
	int (*check)(void *arg, const struct fcr_api_write *w, json_t *before, bool maybe_sent,
		     struct fcr_written *out, struct fcr_error *err);
	void *arg;
};

/* Sends a write until the API takes it, never twice (see above). */
int fcr_api_write(struct fcr_api *api, const struct fcr_api_write *w, struct fcr_written *out,
		  struct fcr_error *err);

#endif
