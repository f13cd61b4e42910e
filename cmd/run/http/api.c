/* SPDX-License-Identifier: MIT */
/* A provider's REST API: retries, writes sent once, events, redaction (api.h). */
#include "http/api.h"

#include "http/secret.h"

#include <stdio.h>
#include <string.h>

void fcr_api_init(struct fcr_api *api, struct fcr_http *http, const char *base,
		  const struct fcr_api_config *cfg)
{
	api->http = http;
	api->base = cm_strdup(base);
	for (size_t n = strlen(api->base); n > 0 && api->base[n - 1] == '/'; n--)
		api->base[n - 1] = '\0';
	api->cfg = *cfg;
}

void fcr_api_release(struct fcr_api *api)
{
	free(api->base);
	api->base = NULL;
}

void fcr_reply_clear(struct fcr_reply *r)
{
	json_decref(r->json);
	memset(r, 0, sizeof(*r));
}

void fcr_api_emit(const struct fcr_api *api, const char *type, json_t *fields)
{
	if (!fields)
		return;
	if (api->cfg.event)
		api->cfg.event(api->cfg.opaque, type, fields);
	json_decref(fields);
}

int fcr_api_sleep_ms(const struct fcr_api *api, unsigned ms, struct fcr_error *err)
{
	const struct fcr_api_config *cfg = &api->cfg;
	double end = cm_mono_s() + ms / 1000.0;
	/* in steps of at most 100 ms, asking should_stop() between them */
	for (;;) {
		if (cfg->should_stop && cfg->should_stop(cfg->opaque))
			return fcr_fail_as(err, FCR_E_STOPPED, "stopped while waiting");
		double left = end - cm_mono_s();
		if (left <= 0)
			return 0;
		cm_sleep_ms(left > 0.1 ? 100 : (uint64_t)(left * 1000.0) + 1, NULL);
	}
}

/* ---- redaction and events ------------------------------------------------------- */

static bool is_secret(const struct fcr_api *api, const char *key)
{
	for (const char *const *k = api->cfg.secret_keys; k && *k; k++) {
		if (!strcmp(*k, key))
			return true;
	}
	return false;
}

/* Removes the secret keys from j, at any depth. */
static void redact(const struct fcr_api *api, json_t *j)
{
	if (json_is_object(j)) {
		const char *k;
		json_t *v;
		void *tmp;
		json_object_foreach_safe(j, tmp, k, v) {
			if (is_secret(api, k))
				json_object_del(j, k);
			else
				redact(api, v);
		}
	} else if (json_is_array(j)) {
		size_t i;
		json_t *v;
		json_array_foreach(j, i, v) {
			redact(api, v);
		}
	}
}

static void emit_call(const struct fcr_api *api, const char *method, const char *path,
		      const struct fcr_http_resp *h, unsigned attempt)
{
	json_t *f = json_pack("{s:s, s:s, s:s, s:i, s:f, s:i}", "api", api->cfg.name, "method",
			      method, "path", path, "status", (int)h->status, "duration_s",
			      h->duration_s, "attempt", (int)attempt);
	if (f && h->transport != FCR_T_OK)
		json_object_set_new(f, "error", json_string(h->error));
	fcr_api_emit(api, "api-call", f);
}

static void emit_answer(const struct fcr_api *api, const struct fcr_api_call *c,
			const struct fcr_reply *r)
{
	if (!r->json || !api->cfg.event || !api->cfg.store_answers)
		return;
	json_t *body = json_deep_copy(r->json);
	if (!body)
		return;
	redact(api, body);
	fcr_api_emit(api, "api-response",
		     json_pack("{s:s, s:s, s:s, s:i, s:o}", "api", api->cfg.name, "method",
			       c->method, "path", c->path, "status", (int)r->status, "body", body));
}

static void emit_retry(const struct fcr_api *api, const char *method, const char *path,
		       const char *reason, unsigned wait_ms, unsigned attempt)
{
	fcr_api_emit(api, "api-retry",
		     json_pack("{s:s, s:s, s:s, s:f, s:i}", "method", method, "path", path,
			       "reason", reason, "wait_s", wait_ms / 1000.0, "attempt",
			       (int)attempt));
}

/* ---- one attempt ------------------------------------------------------------------ */

static void parse_body(struct fcr_reply *r, const struct fcr_http_resp *h)
{
	r->json = NULL;
	r->snippet[0] = '\0';
	if (!h->len)
		return;
	r->json = json_loadb(h->body, h->len, 0, NULL);
	if (r->json)
		return;
	/* Not JSON: keep a printable start of it for the error message. */
	size_t n = 0;
	for (size_t i = 0; i < h->len && n + 1 < sizeof(r->snippet); i++) {
		unsigned char ch = (unsigned char)h->body[i];
		r->snippet[n++] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : ' ';
	}
	r->snippet[n] = '\0';
}

static void exchange(struct fcr_api *api, const struct fcr_api_call *c, const char *authorization,
		     unsigned attempt, struct fcr_reply *r, struct fcr_error *err)
{
	char *url = cm_asprintf("%s%s", api->base, c->path);
	struct fcr_http_req req = {
	    .method = c->method,
	    .url = url,
	    .content_type = c->content_type,
	    .body = c->body,
	    .authorization = authorization,
	    .fresh_connection = c->write,
	};
	struct fcr_http_resp h;
	fcr_http_perform(api->http, &req, &h);
	free(url);
	emit_call(api, c->method, c->path, &h, attempt);
	memset(r, 0, sizeof(*r));
	r->status = h.status;
	r->transport = h.transport;
	snprintf(r->error, sizeof(r->error), "%s", h.error);
	if (h.transport == FCR_T_OK)
		parse_body(r, &h);
	fcr_http_resp_clear(&h);
	if (err)
		err->http_status = (int)r->status;
	emit_answer(api, c, r);
}

/* One logical attempt: an exchange, and on 401 new credentials and one more. */
static int call_once(struct fcr_api *api, const struct fcr_api_call *c, unsigned attempt,
		     struct fcr_reply *r, struct fcr_error *err)
{
	const struct fcr_api_config *cfg = &api->cfg;
	const char *authorization = NULL;
	int rc = cfg->authorize ? cfg->authorize(cfg->opaque, false, &authorization, err) : 0;
	if (rc < 0)
		return rc;
	exchange(api, c, authorization, attempt, r, err);
	if (r->status != 401 || !cfg->authorize)
		return 0;
	emit_retry(api, c->method, c->path, "unauthorized", 0, attempt);
	fcr_reply_clear(r);
	rc = cfg->authorize(cfg->opaque, true, &authorization, err);
	if (rc < 0)
		return rc;
	exchange(api, c, authorization, attempt, r, err);
	if (r->status == 401)
		return fcr_fail_as(
		    err, FCR_E_AUTH,
		    "%s %s: the API refused a freshly issued access token (HTTP 401)", c->method,
		    c->path);
	return 0;
}

/* ---- errors ------------------------------------------------------------------------ */

const char *fcr_api_code(const struct fcr_reply *r)
{
	json_t *j = r->json;
	if (json_is_array(j))
		j = json_array_get(j, 0);
	return json_string_value(json_object_get(j, "code"));
}

int fcr_api_error(struct fcr_error *err, const struct fcr_api_call *c, const struct fcr_reply *r)
{
	enum fcr_status code = r->status == 404 ? FCR_E_NOT_FOUND : FCR_E_API;
	struct cm_buf msg = {0};
	json_t *items = r->json;
	json_t *single = NULL;
	if (json_is_object(items)) {
		single = json_array();
		json_array_append(single, items);
		items = single;
	}
	size_t i;
	json_t *e;
	json_array_foreach(items, i, e) {
		const char *ec = json_string_value(json_object_get(e, "code"));
		const char *em = json_string_value(json_object_get(e, "message"));
		/* Proxmox ends its messages with a newline */
		int em_len = em ? (int)strcspn(em, "\n") : 0;
		if (ec || em_len)
			cm_buf_printf(&msg, "%s%s%s%.*s", msg.len ? "; " : "", ec ? ec : "",
				      ec && em_len ? ": " : "", em_len, em ? em : "");
		/* and lists per-parameter problems as {"errors": {"name": "why"}} */
		const char *pk;
		json_t *pv;
		json_object_foreach(json_object_get(e, "errors"), pk, pv) {
			const char *why = json_string_value(pv);
			if (why)
				cm_buf_printf(&msg, "%s%s: %.*s", msg.len ? "; " : "", pk,
					      (int)strcspn(why, "\n"), why);
		}
	}
	json_decref(single);
	if (!msg.len && r->snippet[0])
		cm_buf_puts(&msg, r->snippet);
	if (err) {
		const char *ac = fcr_api_code(r);
		snprintf(err->api_code, sizeof(err->api_code), "%s", ac ? ac : "");
		err->http_status = (int)r->status;
	}
	int rc = fcr_fail_as(err, code, "%s %s: HTTP %ld%s%s", c->method, c->path, r->status,
			     msg.len ? " " : "", msg.len ? msg.s : "");
	cm_buf_release(&msg);
	return rc;
}

/* A certificate that is refused now is refused again: said at once, not retried. */
static int tls_failed(struct fcr_error *err, const char *method, const char *base, const char *path,
		      const char *why)
{
	return fcr_fail_as(err, FCR_E_TRANSPORT,
			   "%s %s%s: %s (the TLS certificate was refused; not retried: check the "
			   "URL, the system's CA certificates and the clock)",
			   method, base, path, why);
}

/* ---- the retry policy -------------------------------------------------------------- */

bool fcr_api_status_permanent(long status)
{
	/* RFC 9110: the server does not support what was asked (501) or the HTTP
	 * version (505), it is misconfigured for it (506, 510), it loops (508) */
	return status == 501 || status == 505 || status == 506 || status == 508 || status == 510;
}

/* A status after which a request is asked again (after a check, a write). */
static bool status_passing(long status)
{
	return status >= 500 && status != 503 && !fcr_api_status_permanent(status);
}

static unsigned unavailable_wait(const struct fcr_api_config *cfg, unsigned tries)
{
	unsigned shift = tries < 3 ? tries : 3; /* doubles up to 8x */
	unsigned long w = (unsigned long)cfg->unavailable_wait_ms << shift;
	return w > 0xffffffffUL ? 0xffffffffU : (unsigned)w;
}

static const char *busy(const struct fcr_api *api, const struct fcr_reply *r)
{
	return api->cfg.busy ? api->cfg.busy(r) : NULL;
}

int fcr_api_request(struct fcr_api *api, const struct fcr_api_call *c, struct fcr_reply *r,
		    struct fcr_error *err)
{
	const struct fcr_api_config *cfg = &api->cfg;
	unsigned t_transport = 0, t_unavail = 0, t_busy = 0;
	for (unsigned attempt = 1;; attempt++) {
		int rc = call_once(api, c, attempt, r, err);
		if (rc < 0)
			return rc;
		const char *reason = NULL;
		unsigned wait_ms = 0;
		if (busy(api, r) && t_busy < cfg->busy_retries) {
			/* before the 5xx below: a lock timeout is a 500 at Proxmox */
			t_busy++;
			reason = busy(api, r);
			wait_ms = cfg->busy_wait_ms;
		} else if (r->transport == FCR_T_TLS) {
			return fcr_fail_as(err, FCR_E_TLS, "%s %s: %s", c->method, c->path,
					   r->error);
		} else if (r->transport != FCR_T_OK || status_passing(r->status)) {
			if (r->transport == FCR_T_TOO_BIG)
				return fcr_fail_as(err, FCR_E_PROTOCOL, "%s %s: %s", c->method,
						   c->path, r->error);
			if (r->transport == FCR_T_TLS)
				return tls_failed(err, c->method, api->base, c->path, r->error);
			if (t_transport++ < cfg->transport_retries) {
				reason = r->transport != FCR_T_OK ? "transport" : "server-error";
				wait_ms = cfg->transport_wait_ms;
			} else if (r->transport != FCR_T_OK) {
				return fcr_fail_as(err, FCR_E_TRANSPORT, "%s %s: %s (%u attempts)",
						   c->method, c->path, r->error, attempt);
			} else {
				rc = fcr_api_error(err, c, r);
				fcr_reply_clear(r);
				return rc;
			}
		} else if (r->status == 503) {
			if (t_unavail >= cfg->unavailable_retries) {
				rc = fcr_api_error(err, c, r);
				fcr_reply_clear(r);
				return rc;
			}
			reason = "unavailable";
			wait_ms = unavailable_wait(cfg, t_unavail++);
		} else {
			return 0;
		}
		emit_retry(api, c->method, c->path, reason, wait_ms, attempt);
		fcr_reply_clear(r);
		rc = fcr_api_sleep_ms(api, wait_ms, err);
		if (rc < 0)
			return rc;
	}
}

int fcr_api_get(struct fcr_api *api, const char *path, struct fcr_reply *r, struct fcr_error *err)
{
	struct fcr_api_call c = {.method = "GET", .path = path};
	int rc = fcr_api_request(api, &c, r, err);
	if (rc < 0)
		return rc;
	if (r->status < 200 || r->status > 299) {
		rc = fcr_api_error(err, &c, r);
		fcr_reply_clear(r);
		return rc;
	}
	return 0;
}

int fcr_api_post_secret(struct fcr_api *api, const char *path, const char *form, long *status,
			json_t **json, struct fcr_error *err)
{
	const struct fcr_api_config *cfg = &api->cfg;
	/* the form and the answer hold secrets */
	fcr_secret_guard_process();
	*json = NULL;
	*status = 0;
	char *url = cm_asprintf("%s%s", api->base, path);
	struct fcr_http_req req = {
	    .method = "POST",
	    .url = url,
	    .content_type = "application/x-www-form-urlencoded",
	    .body = form,
	};
	int rc = 0;
	for (unsigned attempt = 1;; attempt++) {
		struct fcr_http_resp h;
		fcr_http_perform(api->http, &req, &h);
		emit_call(api, "POST", path, &h, attempt);
		if (err)
			err->http_status = (int)h.status;
		bool retry = (h.transport != FCR_T_OK && h.transport != FCR_T_TLS) ||
			     (h.status >= 500 && !fcr_api_status_permanent(h.status));
		if (!retry || attempt > cfg->transport_retries) {
			if (h.transport == FCR_T_TLS)
				rc = tls_failed(err, "POST", api->base, path, h.error);
			else if (h.transport != FCR_T_OK)
				rc =
				    fcr_fail_as(err, FCR_E_TRANSPORT, "POST %s%s: %s (%u attempts)",
						api->base, path, h.error, attempt);
			*status = h.status;
			if (h.len)
				*json = json_loadb(h.body, h.len, 0, NULL);
			explicit_bzero(h.body, h.len);
			fcr_http_resp_clear(&h);
			break;
		}
		const char *reason = h.transport != FCR_T_OK ? "transport" : "server-error";
		explicit_bzero(h.body, h.len);
		fcr_http_resp_clear(&h);
		emit_retry(api, "POST", path, reason, cfg->transport_wait_ms, attempt);
		rc = fcr_api_sleep_ms(api, cfg->transport_wait_ms, err);
		if (rc < 0)
			break;
	}
	free(url);
	return rc;
}

/* ---- writes -------------------------------------------------------------------------- */

/* The write-intent event: what is about to be sent, and what was seen before. */
static void emit_intent(const struct fcr_api *api, const struct fcr_api_write *w, json_t *before)
{
	json_t *f = json_pack("{s:s, s:s, s:s}", "write", w->what ? w->what : w->call.path,
			      "method", w->call.method, "path", w->call.path);
	if (f && w->intent)
		json_object_update(f, w->intent);
	if (f)
		json_object_set(f, "before", before ? before : json_null());
	fcr_api_emit(api, "write-intent", f);
}

static void emit_outcome(const struct fcr_api *api, const struct fcr_api_write *w, unsigned attempt,
			 long status, const char *outcome, const char *task, bool recovered)
{
	json_t *f =
	    json_pack("{s:s, s:s, s:s, s:i, s:i, s:s}", "write", w->what ? w->what : w->call.path,
		      "method", w->call.method, "path", w->call.path, "attempt", (int)attempt,
		      "status", (int)status, "outcome", outcome);
	if (f && task && task[0])
		json_object_set_new(f, "task", json_string(task));
	if (f && recovered)
		json_object_set_new(f, "recovered", json_true());
	fcr_api_emit(api, "write-outcome", f);
}

static int write_attempts(struct fcr_api *api, const struct fcr_api_write *w, json_t *before,
			  struct fcr_written *out, struct fcr_error *err)
{
	const struct fcr_api_config *cfg = &api->cfg;
	const struct fcr_api_call *c = &w->call;
	unsigned t_transport = 0, t_unavail = 0, t_busy = 0;
	/* maybe_sent: some attempt may have gone through; stays so for every later check */
	bool check = false, maybe_sent = false;
	for (unsigned attempt = 1;; attempt++) {
		int rc;
		if (check && w->check) {
			rc = w->check(w->arg, w, before, maybe_sent, out, err);
			if (rc < 0) {
				out->maybe_sent = maybe_sent;
				return rc;
			}
			if (rc > 0) {
				/*
				 * maybe_sent: an attempt of ours went through.  Else every
				 * attempt was refused (409, 503) and the effect was there
				 * before we sent anything: a resumed run.
				 */
				if (maybe_sent)
					out->recovered = true;
				else
					out->already = true;
				if (maybe_sent)
					emit_outcome(
					    api, w, attempt - 1, 0, "accepted",
					    out->how == FCR_WRITTEN_TASK ? out->task : NULL, true);
				return 0;
			}
		}
		rc = call_once(api, c, attempt, &out->reply, err);
		if (rc < 0) {
			out->maybe_sent = maybe_sent;
			return rc;
		}
		struct fcr_reply *r = &out->reply;
		const char *reason;
		unsigned wait_ms;
		if (r->status >= 200 && r->status <= 299) {
			out->how = FCR_WRITTEN_REPLY;
			char task[256] = "";
			if (cfg->reply_task && !cfg->reply_task(r, task, sizeof(task)))
				task[0] = '\0';
			emit_outcome(api, w, attempt, r->status, "accepted", task, false);
			return 0;
		}
		/*
		 * A lock refusal did nothing (at Proxmox it is a 500, hence before the
		 * 5xx below).  Otherwise only a request that never left is known not to
		 * have gone through.
		 */
		const char *busy_reason = busy(api, r);
		bool lost = !busy_reason && (r->transport != FCR_T_OK || status_passing(r->status));
		bool unknown = lost && r->transport != FCR_T_NOT_SENT && r->transport != FCR_T_TLS;
		emit_outcome(api, w, attempt, r->status, unknown ? "unknown" : "refused", NULL,
			     false);
		if (r->transport == FCR_T_TLS) {
			out->maybe_sent = maybe_sent;
			return tls_failed(err, c->method, api->base, c->path, r->error);
		}
		if (busy_reason && t_busy < cfg->busy_retries) {
			t_busy++;
			reason = busy_reason;
			wait_ms = cfg->busy_wait_ms;
			check = true;
		} else if (lost) {
			maybe_sent = maybe_sent || unknown;
			if (t_transport++ >= cfg->transport_retries) {
				out->maybe_sent = maybe_sent;
				if (r->transport == FCR_T_OK)
					return fcr_api_error(err, c, r);
				return fcr_fail_as(err, FCR_E_TRANSPORT,
						   "%s %s: %s (%u attempts); whether the last one "
						   "went through is unknown: look at %s",
						   c->method, c->path, r->error, attempt,
						   cfg->panel ? cfg->panel
							      : "the provider's panel");
			}
			reason = r->transport != FCR_T_OK ? "transport" : "server-error";
			wait_ms = cfg->transport_wait_ms;
			check = true;
		} else if (r->status == 503 && t_unavail < cfg->unavailable_retries) {
			reason = "unavailable";
			wait_ms = unavailable_wait(cfg, t_unavail++);
			check = true;
		} else {
			out->maybe_sent = maybe_sent;
			return fcr_api_error(err, c, r);
		}
		out->retries++;
		emit_retry(api, c->method, c->path, reason, wait_ms, attempt);
		fcr_reply_clear(r);
		rc = fcr_api_sleep_ms(api, wait_ms, err);
		if (rc < 0) {
			out->maybe_sent = maybe_sent;
			return rc;
		}
	}
}

int fcr_api_write(struct fcr_api *api, const struct fcr_api_write *w, struct fcr_written *out,
		  struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	json_t *before = NULL;
	if (w->baseline) {
		int rc = w->baseline(w->arg, w, &before, err);
		if (rc < 0)
			return rc;
	}
	/* on disk before the request leaves: a session killed now leaves it behind */
	emit_intent(api, w, before);
	int rc = write_attempts(api, w, before, out, err);
	json_decref(before);
	return rc;
}
