/* SPDX-License-Identifier: MIT */
/*
 * The libcurl layer under every provider's API: one HTTP exchange at a time
 * on a reused easy handle, a capped response buffer, how the server's
 * certificate is trusted, and URL checks.  No retries and no policy here;
 * http/api.h decides what a failure means.
 *
 * Trust (fcr_http_trust): the system's CAs by default; a CA file instead
 * (a Proxmox cluster's pve-root-ca.pem); or the certificate's SHA-256
 * fingerprint, checked inside the TLS handshake by OpenSSL's certificate
 * verification callback, installed on every new connection's SSL_CTX
 * (CURLOPT_SSL_CTX_FUNCTION).  A certificate that does not match ends the
 * handshake: nothing is sent on that connection, no header, no token.  TLS
 * session reuse is off while a fingerprint is pinned, so that every
 * connection shows its certificate (a resumed session would not).
 */
#ifndef FCR_HTTP_H
#define FCR_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define FCR_FINGERPRINT_BYTES 32
/* "AB:CD:..." : 32 pairs and 31 colons, and the NUL */
#define FCR_FINGERPRINT_TEXT 96

struct fcr_http {
	void *curl; /* CURL *, kept for connection reuse */
	long connect_timeout_ms;
	long timeout_ms;
	size_t max_response_bytes;
	/* trust (fcr_http_trust) */
	char *ca_file; /* NULL: the system's CAs */
	bool pinned;
	unsigned char pin[FCR_FINGERPRINT_BYTES];
	/* what the last handshake saw, for the message when it was refused */
	bool pin_mismatch;
	char seen_fingerprint[FCR_FINGERPRINT_TEXT];
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

/*
 * How the server's certificate is trusted from now on: ca_file (copied; NULL:
 * the system's CAs) verifies the chain and the host name; pin (NULL: none)
 * is the certificate's SHA-256, checked in the handshake.  With a pin and no
 * CA file, the chain and the host name are not checked: the pin is the
 * trust (a self-signed node, an IP address the certificate does not name).
 * Returns 0, or -1 with a sentence in why when this libcurl cannot check a
 * pin (its TLS backend is not OpenSSL).
 */
int fcr_http_trust(struct fcr_http *h, const char *ca_file, const unsigned char *pin, char *why,
		   size_t why_len);
/*
 * A SHA-256 fingerprint as Proxmox and openssl show it ("AB:CD:...", 32 hex
 * pairs separated by colons, either case) or as 64 hex digits.  0 or -1.
 */
int fcr_fingerprint_parse(const char *text, unsigned char out[FCR_FINGERPRINT_BYTES]);
/* The colon form, upper case. */
void fcr_fingerprint_format(const unsigned char fp[FCR_FINGERPRINT_BYTES],
			    char out[FCR_FINGERPRINT_TEXT]);

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
