/* SPDX-License-Identifier: MIT */
#include "http/http.h"

#include "common/common.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

struct sink {
	char *buf;
	size_t len, cap, max;
	bool too_big;
};

static size_t sink_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct sink *s = userdata;
	size_t n = size * nmemb;
	if (n > s->max - s->len) {
		s->too_big = true;
		return 0; /* makes libcurl stop with CURLE_WRITE_ERROR */
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n + 1)
			cap *= 2;
		/* not cm_realloc: its fatal path would call libcurl from inside libcurl */
		char *b = realloc(s->buf, cap);
		if (!b)
			return 0;
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, ptr, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return n;
}

int fcr_http_init(struct fcr_http *h, long connect_timeout_ms, long timeout_ms,
		  size_t max_response_bytes)
{
	memset(h, 0, sizeof(*h));
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	h->curl = curl_easy_init();
	if (!h->curl) {
		curl_global_cleanup();
		return -1;
	}
	h->connect_timeout_ms = connect_timeout_ms;
	h->timeout_ms = timeout_ms;
	h->max_response_bytes = max_response_bytes;
	return 0;
}

void fcr_http_cleanup(struct fcr_http *h)
{
	free(h->ca_file);
	h->ca_file = NULL;
	if (!h->curl)
		return;
	curl_easy_cleanup(h->curl);
	h->curl = NULL;
	curl_global_cleanup();
}

/* ---- trust ------------------------------------------------------------------ */

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int fcr_fingerprint_parse(const char *text, unsigned char out[FCR_FINGERPRINT_BYTES])
{
	size_t n = strlen(text);
	bool colons = n == FCR_FINGERPRINT_BYTES * 3 - 1;
	if (!colons && n != FCR_FINGERPRINT_BYTES * 2)
		return -1;
	const char *p = text;
	for (size_t i = 0; i < FCR_FINGERPRINT_BYTES; i++) {
		int hi = hex_digit(p[0]), lo = hi < 0 ? -1 : hex_digit(p[1]);
		if (lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
		p += 2;
		if (colons && i + 1 < FCR_FINGERPRINT_BYTES && *p++ != ':')
			return -1;
	}
	return 0;
}

void fcr_fingerprint_format(const unsigned char fp[FCR_FINGERPRINT_BYTES],
			    char out[FCR_FINGERPRINT_TEXT])
{
	static const char hex[] = "0123456789ABCDEF";
	size_t k = 0;
	for (size_t i = 0; i < FCR_FINGERPRINT_BYTES; i++) {
		if (i)
			out[k++] = ':';
		out[k++] = hex[fp[i] >> 4];
		out[k++] = hex[fp[i] & 15];
	}
	out[k] = '\0';
}

/*
 * OpenSSL's certificate verification of a connection with a pin: the leaf's
 * SHA-256 over its DER (what Proxmox calls the fingerprint) must be the pin;
 * with a CA file the chain is verified as well.  Returning 0 fails the
 * handshake (the verify mode is SSL_VERIFY_PEER), so the request on it is
 * never sent.  Runs inside libcurl: no allocation of ours, no fatal path.
 */
static int pin_verify(X509_STORE_CTX *store, void *arg)
{
	struct fcr_http *h = arg;
	X509 *leaf = X509_STORE_CTX_get0_cert(store);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	h->seen_fingerprint[0] = '\0';
	if (!leaf || !X509_digest(leaf, EVP_sha256(), md, &n) || n != FCR_FINGERPRINT_BYTES) {
		h->pin_mismatch = true;
		X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
		return 0;
	}
	fcr_fingerprint_format(md, h->seen_fingerprint);
	if (CRYPTO_memcmp(md, h->pin, FCR_FINGERPRINT_BYTES) != 0) {
		h->pin_mismatch = true;
		X509_STORE_CTX_set_error(store, X509_V_ERR_APPLICATION_VERIFICATION);
		return 0;
	}
	if (h->ca_file)
		return X509_verify_cert(store);
	X509_STORE_CTX_set_error(store, X509_V_OK);
	return 1;
}

/* libcurl's hook on every new connection's SSL_CTX, before its handshake. */
static CURLcode pin_ssl_ctx(CURL *curl, void *ssl_ctx, void *arg)
{
	(void)curl;
	SSL_CTX_set_verify(ssl_ctx, SSL_VERIFY_PEER, NULL);
	SSL_CTX_set_cert_verify_callback(ssl_ctx, pin_verify, arg);
	return CURLE_OK;
}

/* Whether libcurl runs on the OpenSSL this program is built with: the
 * SSL_CTX it hands to pin_ssl_ctx must be one our OpenSSL calls work on. */
static bool curl_has_our_openssl(char *why, size_t why_len)
{
	const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
	const char *ssl = v && v->ssl_version ? v->ssl_version : "none";
	char want[32];
	snprintf(want, sizeof(want), "OpenSSL/%d.", OPENSSL_VERSION_MAJOR);
	if (strncmp(ssl, want, strlen(want)) == 0)
		return true;
	snprintf(why, why_len,
		 "this libcurl uses %s for TLS, so a certificate fingerprint cannot be checked "
		 "in the handshake (that needs OpenSSL %d); trust the server by ca-file instead",
		 ssl, OPENSSL_VERSION_MAJOR);
	return false;
}

int fcr_http_trust(struct fcr_http *h, const char *ca_file, const unsigned char *pin, char *why,
		   size_t why_len)
{
	if (pin && !curl_has_our_openssl(why, why_len))
		return -1;
	free(h->ca_file);
	h->ca_file = ca_file ? cm_strdup(ca_file) : NULL;
	h->pinned = pin != NULL;
	if (pin)
		memcpy(h->pin, pin, FCR_FINGERPRINT_BYTES);
	return 0;
}

/* The trust options; curl_easy_reset() drops them, so every exchange sets
 * them again.  false (with resp filled) when the pin cannot be installed:
 * nothing may go out unpinned. */
static bool apply_trust(struct fcr_http *h, struct fcr_http_resp *resp)
{
	CURL *c = h->curl;
	h->pin_mismatch = false;
	h->seen_fingerprint[0] = '\0';
	if (h->ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, h->ca_file);
	if (!h->pinned)
		return true;
	if (!h->ca_file) {
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	curl_easy_setopt(c, CURLOPT_SSL_SESSIONID_CACHE, 0L);
	if (curl_easy_setopt(c, CURLOPT_SSL_CTX_DATA, h) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_SSL_CTX_FUNCTION, pin_ssl_ctx) != CURLE_OK) {
		resp->transport = FCR_T_TLS;
		snprintf(
		    resp->error, sizeof(resp->error),
		    "this libcurl cannot check a certificate fingerprint in the TLS handshake; "
		    "nothing was sent");
		return false;
	}
	return true;
}

void fcr_http_resp_clear(struct fcr_http_resp *resp)
{
	free(resp->body);
	memset(resp, 0, sizeof(*resp));
}

static enum fcr_transport classify(CURLcode rc)
{
	switch (rc) {
	case CURLE_OK:
		return FCR_T_OK;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_CONNECT:
		return FCR_T_NOT_SENT;
	case CURLE_OPERATION_TIMEDOUT:
		return FCR_T_TIMEOUT;
	case CURLE_FILESIZE_EXCEEDED:
		return FCR_T_TOO_BIG;
	case CURLE_GOT_NOTHING:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_PARTIAL_FILE:
		return FCR_T_DROPPED;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		return FCR_T_TLS;
	case CURLE_SSL_CONNECT_ERROR:
		return FCR_T_NOT_SENT; /* the handshake failed: the request never left */
	default:
		return FCR_T_OTHER;
	}
}

/* Adds a header; curl_slist_append copies the text. */
static void add_header(struct curl_slist **list, const char *h)
{
	struct curl_slist *n = curl_slist_append(*list, h);
	if (!n)
		cm_die("out of memory");
	*list = n;
}

/* curl_slist_free_all, but first overwrites every header (one holds the token). */
static void free_headers(struct curl_slist *list)
{
	for (struct curl_slist *l = list; l; l = l->next)
		explicit_bzero(l->data, strlen(l->data));
	curl_slist_free_all(list);
}

void fcr_http_perform(struct fcr_http *h, const struct fcr_http_req *req,
		      struct fcr_http_resp *resp)
{
	CURL *c = h->curl;
	struct curl_slist *hdr = NULL;
	struct sink sink = {.max = h->max_response_bytes};
	char errbuf[CURL_ERROR_SIZE] = "";
	char line[256];
	double t0;
	CURLcode rc;

	memset(resp, 0, sizeof(*resp));
	curl_easy_reset(c); /* keeps the connection cache */

	add_header(&hdr, "Accept: application/json");
	/* libcurl adds "Expect: 100-continue" to larger POSTs; nobody needs the round trip. */
	add_header(&hdr, "Expect:");
	if (req->content_type) {
		snprintf(line, sizeof(line), "Content-Type: %s", req->content_type);
		add_header(&hdr, line);
	}
	if (req->authorization) {
		char *auth = cm_asprintf("Authorization: %s", req->authorization);
		add_header(&hdr, auth);
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}

	curl_easy_setopt(c, CURLOPT_URL, req->url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L); /* never carry the token elsewhere */
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, h->connect_timeout_ms);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, h->timeout_ms);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)h->max_response_bytes);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "fiocamp-run");
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &sink);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	if (!apply_trust(h, resp)) {
		free_headers(hdr);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
		curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
		resp->body = cm_strdup("");
		return;
	}
	if (req->fresh_connection) {
		curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, 1L);
		curl_easy_setopt(c, CURLOPT_FORBID_REUSE, 1L);
	}
	if (req->content_type) {
		const char *body = req->body ? req->body : "";
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	}
	if (strcmp(req->method, "GET") != 0 &&
	    !(strcmp(req->method, "POST") == 0 && req->content_type))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, req->method);

	t0 = cm_mono_s();
	rc = curl_easy_perform(c);
	resp->duration_s = cm_mono_s() - t0;
	resp->transport = classify(rc);
	if (rc == CURLE_WRITE_ERROR && sink.too_big)
		resp->transport = FCR_T_TOO_BIG;
	if (rc != CURLE_OK && h->pin_mismatch)
		resp->transport = FCR_T_TLS;
	if (rc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &resp->status);
	} else if (h->pin_mismatch) {
		snprintf(resp->error, sizeof(resp->error),
			 "the server's certificate has the SHA-256 fingerprint %s, not the pinned "
			 "one: the TLS handshake was ended before anything was sent",
			 h->seen_fingerprint[0] ? h->seen_fingerprint : "(unreadable)");
	} else if (resp->transport == FCR_T_TOO_BIG) {
		snprintf(resp->error, sizeof(resp->error), "the answer is larger than %zu bytes",
			 h->max_response_bytes);
	} else {
		snprintf(resp->error, sizeof(resp->error), "%s",
			 errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, NULL);
	if (rc != CURLE_OK) {
		free(sink.buf);
		sink.buf = NULL;
		sink.len = 0;
	}
	resp->body = sink.buf ? sink.buf : cm_strdup("");
	resp->len = sink.len;
	free_headers(hdr);
	/* The easy handle keeps the option values; drop the header list it points to. */
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, NULL);
}

static bool host_is_loopback(const char *host)
{
	if (strcasecmp(host, "localhost") == 0)
		return true;
	unsigned char a[16];
	if (inet_pton(AF_INET, host, a) == 1)
		return a[0] == 127;
	char v6[64];
	size_t n = strlen(host);
	if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof(v6)) {
		memcpy(v6, host + 1, n - 2);
		v6[n - 2] = '\0';
		if (inet_pton(AF_INET6, v6, a) == 1) {
			static const unsigned char lo[16] = {[15] = 1};
			return memcmp(a, lo, 16) == 0;
		}
	}
	return false;
}

int fcr_url_check(const char *url, const char *what, char *why, size_t why_len)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *user = NULL, *query = NULL, *frag = NULL;
	int ret = -1;
	if (!u) {
		snprintf(why, why_len, "out of memory");
		return -1;
	}
	if (curl_url_set(u, CURLUPART_URL, url, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK) {
		snprintf(why, why_len, "%s \"%s\" is not a URL (expected https://host/path)", what,
			 url);
		goto out;
	}
	curl_url_get(u, CURLUPART_USER, &user, 0);
	curl_url_get(u, CURLUPART_QUERY, &query, 0);
	curl_url_get(u, CURLUPART_FRAGMENT, &frag, 0);
	if (user) {
		snprintf(why, why_len, "%s must not contain a user name or password", what);
		goto out;
	}
	if (query || frag) {
		snprintf(why, why_len, "%s \"%s\" must not have a query or fragment", what, url);
		goto out;
	}
	if (strcasecmp(scheme, "https") == 0) {
		ret = 0;
		goto out;
	}
	if (strcasecmp(scheme, "http") != 0) {
		snprintf(why, why_len, "%s \"%s\": scheme %s is not supported (expected https)",
			 what, url, scheme);
		goto out;
	}
	if (!host_is_loopback(host)) {
		snprintf(why, why_len,
			 "%s \"%s\": plain http is accepted only for loopback hosts (127.0.0.0/8, "
			 "::1, localhost); use https",
			 what, url);
		goto out;
	}
	ret = 0;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(user);
	curl_free(query);
	curl_free(frag);
	curl_url_cleanup(u);
	return ret;
}

char *fcr_url_escape(const char *s)
{
	char *e = curl_easy_escape(NULL, s, (int)strlen(s));
	if (!e)
		cm_die("out of memory");
	char *copy = cm_strdup(e);
	curl_free(e);
	return copy;
}
