/* SPDX-License-Identifier: MIT */
/*
 * The libcurl layer under every provider's API: one HTTP exchange at a time
 * on a reused easy handle, a capped response buffer, and URL checks.  No
 * retries and no policy here; http/api.h decides what a failure means.
 */
#ifndef FCR_HTTP_H
#define FCR_HTTP_H

#include <stdbool.h>
#include <stddef.h>

struct fcr_http {
	void *curl; /* CURL *, kept for connection reuse */
	long connect_timeout_ms;
	long timeout_ms;
	size_t max_response_bytes;
};

struct fcr_http_req {
	const char *method; /* "GET", "POST", "PATCH", "DELETE" */
	const char *url;
	/* NULL: no body and no Content-Type.  Else both are sent (body may be ""). */
	const char *content_type;
	const char *body;
	const char *authorization; /* the Authorization header's value, or NULL */
	/*
	 * On a fresh connection that is closed afterwards.  For writes: libcurl
	 * silently sends a request again when a reused connection dies before
	 * any answer, which for a POST could create a second snapshot.
	 */
	bool fresh_connection;
};

enum fcr_transport {
	FCR_T_OK = 0,
	FCR_T_NOT_SENT, /* could not resolve or connect: the request never left */
	FCR_T_TIMEOUT,
	FCR_T_DROPPED, /* connection closed or reset, nothing or part of an answer */
	FCR_T_TOO_BIG, /* answer larger than max_response_bytes */
	/* the TLS certificate was refused (not verified, not pinned, unreadable):
	 * the request never left, and asking again cannot help */
	FCR_T_TLS,
	FCR_T_OTHER,
};

struct fcr_http_resp {
	long status; /* 0 when no answer */
	enum fcr_transport transport;
	char *body; /* NUL-terminated, heap; fcr_http_resp_clear() */
	size_t len;
	double duration_s;
	char error[320]; /* the transport failure in words ("" when none) */
};

int fcr_http_init(struct fcr_http *h, long connect_timeout_ms, long timeout_ms,
		  size_t max_response_bytes);
void fcr_http_cleanup(struct fcr_http *h);

/* One exchange: an answer (of any status) or a transport failure in *resp. */
void fcr_http_perform(struct fcr_http *h, const struct fcr_http_req *req,
		      struct fcr_http_resp *resp);
void fcr_http_resp_clear(struct fcr_http_resp *resp);

/*
 * Checks a base URL: scheme https, or http with a loopback host; no
 * user:password, query or fragment.  Returns 0, or -1 with a sentence naming
 * `what` in why.
 */
int fcr_url_check(const char *url, const char *what, char *why, size_t why_len);

/* Percent-encodes one path segment or form value (caller frees). */
char *fcr_url_escape(const char *s);

#endif
