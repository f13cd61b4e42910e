/* SPDX-License-Identifier: MIT */
/*
 * The libcurl layer of the netcup client: one HTTP exchange at a time on a
 * reused easy handle, a capped response buffer, and URL checks.  No retries
 * and no policy here; netcup.c decides what a failure means.
 */
#ifndef FIOCAMP_RUN_HTTP_H
#define FIOCAMP_RUN_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct nc_http {
	void *curl; /* CURL *, kept for connection reuse */
	long connect_timeout_ms;
	long timeout_ms;
	size_t max_response_bytes;
};

struct nc_http_req {
	const char *method; /* "GET", "POST", "PATCH", "DELETE" */
	const char *url;
	/* NULL: no body and no Content-Type.  Else both are sent (body may be ""). */
	const char *content_type;
	const char *body;
	const char *bearer; /* access token for Authorization, or NULL */
	/*
	 * On a fresh connection that is closed afterwards.  For writes: libcurl
	 * silently sends a request again when a reused connection dies before
	 * any answer, which for a POST could create a second snapshot.
	 */
	bool fresh_connection;
};

enum nc_transport {
	NC_T_OK = 0,
	NC_T_NOT_SENT, /* could not resolve or connect: the request never left */
	NC_T_TIMEOUT,
	NC_T_DROPPED, /* connection closed or reset, nothing or part of an answer */
	NC_T_TOO_BIG, /* answer larger than max_response_bytes */
	NC_T_OTHER,
};

struct nc_http_resp {
	long status; /* 0 when no answer */
	enum nc_transport transport;
	char *body; /* NUL-terminated, heap; nc_http_resp_clear() */
	size_t len;
	double duration_s;
	char error[320]; /* the transport failure in words ("" when none) */
};

int nc_http_init(struct nc_http *h, long connect_timeout_ms, long timeout_ms,
		 size_t max_response_bytes);
void nc_http_cleanup(struct nc_http *h);

/* One exchange: an answer (of any status) or a transport failure in *resp. */
void nc_http_perform(struct nc_http *h, const struct nc_http_req *req, struct nc_http_resp *resp);
void nc_http_resp_clear(struct nc_http_resp *resp);

/*
 * Checks a base URL: scheme https, or http with a loopback host; no
 * user:password, query or fragment.  Returns 0, or -1 with a sentence naming
 * `what` in why.
 */
int nc_url_check(const char *url, const char *what, char *why, size_t why_len);

/* Percent-encodes one path segment or form value (caller frees). */
char *nc_escape(const char *s);

#endif
