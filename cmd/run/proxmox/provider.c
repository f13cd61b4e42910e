/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox provider (provider.h): its [provider] keys, the token, and
 * the client's events turned into journal lines and notes.  The preflight
 * is preflight.c, the action table actions.c.
 */
#include "proxmox/public.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "proxmox/pxp.h"

/* ---- configuration -------------------------------------------------------------- */

#define KNOWN_KEYS                                                                                 \
	"api-url, node, vmid, vm-name, token-file, fingerprint, ca-file, allow-destroy, "          \
	"poll-interval, task-timeout, http-timeout, lock-wait, lock-retries, retry-wait"

/* the unsigned fields of struct fcr_pve_config */
static const struct fcr_provider_duration_key duration_keys[] = {
    {"poll-interval", offsetof(struct fcr_pve_config, poll_interval_ms)},
    {"task-timeout", offsetof(struct fcr_pve_config, task_timeout_ms)},
    {"http-timeout", offsetof(struct fcr_pve_config, http_timeout_ms)},
    {"lock-wait", offsetof(struct fcr_pve_config, lock_wait_ms)},
    {"retry-wait", offsetof(struct fcr_pve_config, transport_wait_ms)},
};

static void pxp_free(void *state)
{
	struct fcr_pxp *p = state;
	if (!p)
		return;
	fcr_pve_free(p->pve);
	fcr_provider_base_release(&p->base);
	free(p->api_url);
	free(p->node);
	free(p->vm_name);
	free(p->token_file);
	free(p->ca_file);
	free(p->last_backup);
	json_decref(p->adopt);
	fcr_provider_made_release(&p->made);
	free(p);
}

/* https://HOST[:PORT] with nothing after it but "/" or "/api2/json". */
static char *api_base(const char *url)
{
	const char *host = strstr(url, "://");
	if (!host)
		return NULL;
	const char *path = strchr(host + 3, '/');
	size_t n = path ? (size_t)(path - url) : strlen(url);
	if (path && strcmp(path, "/") && strcmp(path, "/api2/json") && strcmp(path, "/api2/json/"))
		return NULL;
	return cm_strndup(url, n);
}

static bool node_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && s[i] != '-')
			return false;
	}
	return true;
}

static void set_string(char **dst, const char *v)
{
	free(*dst);
	*dst = cm_strdup(v);
}

static void read_key(struct fcr_pxp *p, const struct fcr_provider_key *k, struct cm_strv *errs)
{
	char why[600];
	const char *v = k->value;
	if (!strcmp(k->key, "api-url")) {
		char *base = api_base(v);
		if (!base) {
			fcr_provider_key_error(errs, k,
					       "api-url '%s' is not the node's address: give "
					       "https://HOST:8006 (its API is below /api2/json)",
					       v);
		} else if (fcr_url_check(base, "api-url", why, sizeof(why)) < 0) {
			fcr_provider_key_error(errs, k, "%s", why);
		} else {
			free(p->api_url);
			p->api_url = base;
			return;
		}
		free(base);
	} else if (!strcmp(k->key, "node")) {
		if (!node_name_ok(v))
			fcr_provider_key_error(errs, k,
					       "node '%s' is not a Proxmox node name (letters, "
					       "digits and '-', as `hostname` on the node says)",
					       v);
		else
			set_string(&p->node, v);
	} else if (!strcmp(k->key, "vmid")) {
		unsigned long id;
		if (fcr_parse_uint(v, 999999999, &id) < 0 || id < 100)
			fcr_provider_key_error(errs, k,
					       "vmid '%s' is not a Proxmox guest id (100 to "
					       "999999999)",
					       v);
		else
			p->cfg.vmid = (long)id;
	} else if (!strcmp(k->key, "vm-name")) {
		if (!v[0] || strlen(v) > 127 || cm_utf8_valid_len(v, strlen(v)) != strlen(v))
			fcr_provider_key_error(errs, k,
					       "vm-name must be the guest's name as Proxmox shows "
					       "it (1 to 127 characters)");
		else
			set_string(&p->vm_name, v);
	} else if (!strcmp(k->key, "token-file")) {
		char *path = v[0] ? fcr_path_expand_home(v) : NULL;
		if (!path) {
			fcr_provider_key_error(errs, k, "token-file '%s': %s", v,
					       v[0] ? "HOME is not set" : "empty");
			return;
		}
		free(p->token_file);
		p->token_file = path;
		p->base.key_line = k->line;
	} else if (!strcmp(k->key, "fingerprint")) {
		if (fcr_fingerprint_parse(v, p->cfg.fingerprint) < 0) {
			fcr_provider_key_error(
			    errs, k,
			    "fingerprint '%s' is not a SHA-256 fingerprint (32 hex pairs "
			    "separated by ':', as `pvenode cert info` shows it)",
			    v);
			return;
		}
		p->cfg.pinned = true;
		fcr_fingerprint_format(p->cfg.fingerprint, p->fingerprint_text);
	} else if (!strcmp(k->key, "ca-file")) {
		char *path = v[0] ? fcr_path_expand_home(v) : NULL;
		if (!path || !fcr_path_exists(path))
			fcr_provider_key_error(errs, k, "ca-file '%s': no such file", v);
		else
			set_string(&p->ca_file, path);
		free(path);
	} else if (!strcmp(k->key, "allow-destroy")) {
		if (strcmp(v, "yes") && strcmp(v, "no"))
			fcr_provider_key_error(errs, k, "allow-destroy is yes or no, not '%s'",
					       k->value);
		p->allow_destroy = !strcmp(v, "yes");
	} else if (!strcmp(k->key, "lock-retries")) {
		unsigned long n;
		if (fcr_parse_uint(v, 1000, &n) < 0)
			fcr_provider_key_error(errs, k, "lock-retries is a number from 0 to 1000");
		else
			p->cfg.lock_retries = (unsigned)n;
	} else {
		if (fcr_provider_read_duration(duration_keys, CM_ARRAY_SIZE(duration_keys), &p->cfg,
					       k, errs))
			return;
		fcr_provider_key_error(
		    errs, k, "unknown key '%s' for provider proxmox (known: " KNOWN_KEYS ")",
		    k->key);
	}
}

static int pxp_configure(const struct fcr_provider_section *sec, const struct fcr_provider_ctx *ctx,
			 void **state, struct cm_strv *problems)
{
	struct fcr_pxp *p = cm_calloc(1, sizeof(*p));
	size_t n_before = problems->n;
	*state = NULL;
	fcr_pve_config_init(&p->cfg);
	fcr_provider_base_init(&p->base, "proxmox", sec, ctx);
	for (size_t i = 0; i < sec->n_keys; i++)
		read_key(p, &sec->keys[i], problems);
	if (problems->n == n_before) {
		static const char *const what[] = {
		    "api-url (https://HOST:8006)",
		    "node (the node's name)",
		    "vmid (the guest's id)",
		    ("vm-name (the guest's name: checked before anything is changed, so that "
		     "a wrong vmid cannot touch another guest)"),
		};
		bool have[] = {p->api_url, p->node, p->cfg.vmid, p->vm_name};
		for (size_t i = 0; i < CM_ARRAY_SIZE(what); i++) {
			if (!have[i])
				cm_strv_addf(problems, "%s:%u: provider proxmox needs %s",
					     sec->file, sec->line, what[i]);
		}
	}
	if (problems->n == n_before && p->cfg.pinned && strncmp(p->api_url, "https:", 6))
		cm_strv_addf(problems, "%s:%u: a fingerprint needs an https api-url", sec->file,
			     sec->line);
	if (problems->n > n_before) {
		pxp_free(p);
		return -1;
	}
	if (p->cfg.http_timeout_ms < p->cfg.connect_timeout_ms)
		p->cfg.connect_timeout_ms = p->cfg.http_timeout_ms;
	p->cfg.api_url = p->api_url;
	p->cfg.node = p->node;
	p->cfg.vm_name = p->vm_name;
	p->cfg.token_file = p->token_file;
	p->cfg.ca_file = p->ca_file;
	p->cfg.event = fcr_provider_on_event;
	p->cfg.should_stop = fcr_provider_on_should_stop;
	p->cfg.ctx = &p->base;
	p->adopt = json_object();
	*state = p;
	return 0;
}

static int pxp_connect(void *state, struct fcr_error *err)
{
	struct fcr_pxp *p = state;
	struct fcr_error e = {0};
	if (p->pve)
		return 0;
	int rc = fcr_pve_new(&p->cfg, &p->pve, &e);
	if (rc == 0) {
		/*
		 * Read once; children (fio, ssh, `run` commands) never inherit it.
		 * The value is wiped where it lies too: /proc/PID/environ shows the
		 * original block, and a child shows it until it calls exec.
		 */
		char *v = getenv(FCR_PVE_TOKEN_ENV);
		if (v)
			explicit_bzero(v, strlen(v));
		unsetenv(FCR_PVE_TOKEN_ENV);
		return 0;
	}
	return fcr_fail_as(err, rc, "%s:%u: %s", p->base.file,
			   p->base.key_line ? p->base.key_line : p->base.line, e.msg);
}

/* One node's guests share its disk: their transitions go one at a time. */
static char *pxp_contention_key(void *state)
{
	struct fcr_pxp *p = state;
	return cm_asprintf("proxmox:%s:%s", p->api_url, p->node);
}

const struct fcr_provider fcr_proxmox_provider = {
    .type = "proxmox",
    .summary = "Proxmox VE API: power, snapshots, rollback, vzdump backup and restore "
	       "(docs/proxmox.md)",
    .actions = fcr_pxp_actions,
    .configure = pxp_configure,
    .connect = pxp_connect,
    .describe_preflight = fcr_pxp_describe_preflight,
    .preflight = fcr_pxp_preflight,
    .ensure_powered_on = fcr_pxp_ensure_powered_on,
    .contention_key = pxp_contention_key,
    .free = pxp_free,
};
