/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider (provider.h): its [provider] keys, the
 * credentials, and the SCP client's events turned into journal lines and
 * notes.  The preflight is preflight.c, the action table actions.c.
 */
#include "netcup/public.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "netcup/ncp.h"

/* ---- configuration -------------------------------------------------------- */

/* the unsigned fields of struct fcr_netcup_config */
static const struct fcr_provider_duration_key duration_keys[] = {
    {"task-timeout", offsetof(struct fcr_netcup_config, task_timeout_ms)},
    {"poll-interval", offsetof(struct fcr_netcup_config, poll_interval_ms)},
    {"http-timeout", offsetof(struct fcr_netcup_config, http_timeout_ms)},
    {"lock-wait", offsetof(struct fcr_netcup_config, lock_wait_ms)},
    {"retry-wait", offsetof(struct fcr_netcup_config, transport_wait_ms)},
    {"unavailable-wait", offsetof(struct fcr_netcup_config, unavailable_wait_ms)},
};

#define KNOWN_KEYS                                                                                 \
	"server-id, token-file, api-url, auth-url, task-timeout, poll-interval, http-timeout, "    \
	"lock-wait, retry-wait, unavailable-wait"

static void ncp_free(void *state)
{
	struct fcr_ncp *p = state;
	if (!p)
		return;
	fcr_netcup_free(p->nc);
	fcr_provider_base_release(&p->base);
	free(p->token_file);
	free(p->api_url);
	free(p->auth_url);
	fcr_provider_made_release(&p->made);
	cm_strv_release(&p->adopt);
	json_decref(p->earlier);
	free(p);
}

static void read_key(struct fcr_ncp *p, const struct fcr_provider_key *k, struct cm_strv *errs,
		     bool *have_id)
{
	char why[600];
	if (!strcmp(k->key, "server-id")) {
		char *end = NULL;
		long long v = strtoll(k->value, &end, 10);
		if (!k->value[0] || *end || v < 1 || v > INT_MAX) {
			fcr_provider_key_error(
			    errs, k,
			    "server-id '%s' is not a netcup server id (a number from 1 to "
			    "%d: the one the SCP shows for the server)",
			    k->value, INT_MAX);
			return;
		}
		p->cfg.server_id = (long)v;
		*have_id = true;
		return;
	}
	if (!strcmp(k->key, "token-file")) {
		if (!k->value[0]) {
			fcr_provider_key_error(errs, k, "token-file is empty");
			return;
		}
		char *path = fcr_path_expand_home(k->value);
		if (!path) {
			fcr_provider_key_error(errs, k, "token-file '%s': HOME is not set",
					       k->value);
			return;
		}
		free(p->token_file);
		p->token_file = path;
		p->base.key_line = k->line;
		return;
	}
	if (!strcmp(k->key, "api-url") || !strcmp(k->key, "auth-url")) {
		if (fcr_url_check(k->value, k->key, why, sizeof(why)) < 0) {
			fcr_provider_key_error(errs, k, "%s", why);
			return;
		}
		char **dst = !strcmp(k->key, "api-url") ? &p->api_url : &p->auth_url;
		free(*dst);
		*dst = cm_strdup(k->value);
		return;
	}
	if (fcr_provider_read_duration(duration_keys, CM_ARRAY_SIZE(duration_keys), &p->cfg, k,
				       errs))
		return;
	fcr_provider_key_error(
	    errs, k, "unknown key '%s' for provider netcup (known: " KNOWN_KEYS ")", k->key);
}

static int ncp_configure(const struct fcr_provider_section *sec, const struct fcr_provider_ctx *ctx,
			 void **state, struct cm_strv *problems)
{
	struct fcr_ncp *p = cm_calloc(1, sizeof(*p));
	p->earlier = json_object();
	size_t n_before = problems->n;
	bool have_id = false;
	*state = NULL;
	fcr_netcup_config_init(&p->cfg);
	fcr_provider_base_init(&p->base, "netcup", sec, ctx);
	for (size_t i = 0; i < sec->n_keys; i++)
		read_key(p, &sec->keys[i], problems, &have_id);
	if (!have_id && problems->n == n_before)
		cm_strv_addf(problems,
			     "%s:%u: provider netcup needs server-id (the number the SCP shows "
			     "for the server)",
			     sec->file, sec->line);
	if (problems->n > n_before) {
		ncp_free(p);
		return -1;
	}
	if (p->cfg.http_timeout_ms < p->cfg.connect_timeout_ms)
		p->cfg.connect_timeout_ms = p->cfg.http_timeout_ms;
	/* the token: token-file, else the environment, else the default file
	 * (without HOME there is none: connect() says so) */
	const char *env = getenv(FCR_NETCUP_TOKEN_ENV);
	if (!p->token_file && !(env && env[0])) {
		p->token_file = fcr_path_expand_home(FCR_NETCUP_TOKEN_FILE_DEFAULT);
		p->token_default = true;
	}
	p->cfg.api_url = p->api_url;
	p->cfg.auth_url = p->auth_url;
	p->cfg.token_file = p->token_file;
	p->cfg.event = fcr_provider_on_event;
	p->cfg.should_stop = fcr_provider_on_should_stop;
	p->cfg.lock = fcr_provider_on_lock;
	p->cfg.unlock = fcr_provider_on_unlock;
	p->cfg.ctx = &p->base;
	*state = p;
	return 0;
}

static int ncp_connect(void *state, struct fcr_error *err)
{
	struct fcr_ncp *p = state;
	struct fcr_error e = {0};
	if (p->nc)
		return 0;
	if (p->token_default && !p->token_file)
		return fcr_fail(err,
				"%s:%u: no token-file in [provider], no " FCR_NETCUP_TOKEN_ENV
				", and no HOME for the default " FCR_NETCUP_TOKEN_FILE_DEFAULT,
				p->base.file, p->base.line);
	int rc = fcr_netcup_new(&p->cfg, &p->nc, &e);
	if (rc == 0) {
		/*
		 * Read once; children (fio, ssh, `run` commands) never inherit it.
		 * The value is also wiped where it lies: /proc/PID/environ shows the
		 * original block, and a child shows it until it calls exec.
		 */
		char *v = getenv(FCR_NETCUP_TOKEN_ENV);
		if (v)
			explicit_bzero(v, strlen(v));
		unsetenv(FCR_NETCUP_TOKEN_ENV);
		return 0;
	}
	if (rc == FCR_E_TOKEN && p->base.key_line)
		return fcr_fail_as(err, rc, "%s:%u: %s", p->base.file, p->base.key_line, e.msg);
	if (rc == FCR_E_TOKEN && p->token_default)
		return fcr_fail_as(err, rc,
				   "%s:%u: no token-file in [provider] and no " FCR_NETCUP_TOKEN_ENV
				   ", so the default: %s",
				   p->base.file, p->base.line, e.msg);
	return fcr_fail_as(err, rc, "%s:%u: %s", p->base.file, p->base.line, e.msg);
}

const struct fcr_provider fcr_netcup_provider = {
    .type = "netcup",
    .summary = "netcup SCP REST API: power, snapshots, reboot, revert (docs/netcup.md)",
    .actions = fcr_ncp_actions,
    .configure = ncp_configure,
    .connect = ncp_connect,
    .describe_preflight = fcr_ncp_describe_preflight,
    .preflight = fcr_ncp_preflight,
    .ensure_powered_on = fcr_ncp_ensure_powered_on,
    .free = ncp_free,
};
