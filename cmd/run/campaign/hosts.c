/* SPDX-License-Identifier: MIT */
/*
 * The campaign file's fleet: `hosts =` in [campaign] and the [host NAME]
 * sections, read and checked against each other.  A host's keys are kept
 * as written; campaign.c applies them when the file is read for that host.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "campaign/parser.h"

/* A host's name is a directory of the fleet's (hosts/NAME/) and a prefix
 * of its lines on the terminal. */
static bool host_name_ok(struct parser *p, const char *name)
{
	if (!cm_campaign_name_ok(name)) {
		fcr_cp_error(p, p->line, "bad host name '%s' (letters, digits, '.', '_', '-')",
			     name);
		return false;
	}
	if (strlen(name) > FCR_NAME_MAX_BYTES) {
		fcr_cp_error(p, p->line, "host name '%.40s...' is longer than %d bytes", name,
			     FCR_NAME_MAX_BYTES);
		return false;
	}
	return true;
}

void fcr_cp_hosts_list(struct parser *p, const char *v)
{
	struct fcr_error err;
	cm_strv_release(&p->host_names);
	if (fcr_shell_split(v, &p->host_names, &err) < 0) {
		fcr_cp_error(p, p->line, "hosts: %s", err.msg);
		return;
	}
	const struct cm_strv *names = &p->host_names;
	if (names->n > FCR_HOSTS_MAX)
		fcr_cp_error(p, p->line, "hosts lists %zu hosts; at most %d", names->n,
			     FCR_HOSTS_MAX);
	for (size_t i = 0; i < names->n; i++) {
		host_name_ok(p, names->v[i]);
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(names->v[i], names->v[j])) {
				fcr_cp_error(p, p->line, "host '%s' is listed twice", names->v[i]);
				break;
			}
		}
	}
}

void fcr_cp_host_section(struct parser *p, const char *name)
{
	p->hsec = NULL;
	p->in_bad_host = true;
	if (!host_name_ok(p, name))
		return;
	for (size_t i = 0; i < p->n_hsecs; i++) {
		if (!strcmp(p->hsecs[i].name, name)) {
			fcr_cp_error(p, p->line, "host '%s' was already defined on line %u", name,
				     p->hsecs[i].line);
			return;
		}
	}
	p->hsecs = cm_realloc(p->hsecs, p->n_hsecs + 1, sizeof(*p->hsecs));
	struct fcr_host *h = &p->hsecs[p->n_hsecs++];
	memset(h, 0, sizeof(*h));
	h->name = cm_strdup(name);
	h->line = p->line;
	h->has_section = true;
	p->hsec = h;
	p->in_bad_host = false;
	p->in_applied_host = p->apply && !strcmp(p->apply->name, name);
}

/* What a host may set of [campaign]: where it runs and how its test file
 * is written.  What it measures (the suite, the states, the rounds) is the
 * fleet's, so that the hosts compare. */
static const char *const host_campaign_keys[] = {
    "target", "ssh-port", "ssh-options", "directory", "size", "runtime", "ioengine", "direct",
};

bool fcr_cp_host_campaign_key(const char *key)
{
	for (size_t i = 0; i < CM_ARRAY_SIZE(host_campaign_keys); i++) {
		if (!strcmp(host_campaign_keys[i], key))
			return true;
	}
	return false;
}

const struct fcr_provider_key *fcr_cp_applied_key(const struct parser *p, const char *key)
{
	for (size_t i = 0; p->apply && i < p->apply->n_keys; i++) {
		if (!strcmp(p->apply->keys[i].key, key))
			return &p->apply->keys[i];
	}
	return NULL;
}

#define HOST_KEYS                                                                                  \
	"target, ssh-port, ssh-options, directory, size, runtime, ioengine, direct and the "       \
	"[provider] keys"

void fcr_cp_host_key(struct parser *p, const char *key, char *v)
{
	struct fcr_host *h = p->hsec;
	if (!h)
		return; /* the section is wrong already */
	bool campaign_key = fcr_cp_host_campaign_key(key);
	if (!campaign_key && fcr_cp_campaign_key(key) >= 0) {
		fcr_cp_error(p, p->line,
			     "'%s' is the fleet's, set in [campaign] for every host (a [host %s] "
			     "section takes " HOST_KEYS ")",
			     key, h->name);
		return;
	}
	if (!strcmp(key, "type")) {
		fcr_cp_error(p, p->line,
			     "'type' is the fleet's: every host has the provider of [provider] "
			     "(a [host %s] section takes its other keys)",
			     h->name);
		return;
	}
	for (size_t i = 0; i < h->n_keys; i++) {
		if (!strcmp(h->keys[i].key, key)) {
			fcr_cp_error(p, p->line, "'%s' was already set on line %u", key,
				     h->keys[i].line);
			return;
		}
	}
	h->keys = cm_realloc(h->keys, h->n_keys + 1, sizeof(*h->keys));
	struct fcr_provider_key *k = &h->keys[h->n_keys++];
	k->key = cm_strdup(key);
	k->value = cm_strdup(v);
	k->file = p->c->source;
	k->line = p->line;
	if (!p->in_applied_host)
		return;
	if (campaign_key) {
		fcr_cp_parse_campaign_key(p, key, v);
		return;
	}
	/* checked by the provider with the [provider] keys (fcr_cp_host_provider_keys) */
	fcr_cp_provider_key(p, key, v);
}

void fcr_cp_host_provider_keys(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	if (!p->apply || (c->provider_type && strcmp(c->provider_type, "none")))
		return;
	/* without a provider no key is known: said of the host's keys as of its
	 * section, not as if they were in [provider] */
	size_t kept = 0;
	for (size_t i = 0; i < c->n_provider_keys; i++) {
		struct fcr_provider_key *k = &c->provider_keys[i];
		const struct fcr_provider_key *own = fcr_cp_applied_key(p, k->key);
		if (own && own->line == k->line) {
			fcr_cp_error(p, k->line,
				     "unknown key '%s' in [host %s] (expected " HOST_KEYS
				     "; there is no [provider])",
				     k->key, p->apply->name);
			free((char *)k->key);
			free((char *)k->value);
		} else {
			c->provider_keys[kept++] = *k;
		}
	}
	c->n_provider_keys = kept;
}

/* The hosts in the order of `hosts =`, each with its section if it has
 * one; a section of a host not listed is a mistake. */
void fcr_cp_finish_hosts(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	const struct cm_strv *names = &p->host_names;
	bool *used = cm_calloc(p->n_hsecs + 1, sizeof(*used));
	c->hosts = cm_calloc(names->n + 1, sizeof(*c->hosts));
	for (size_t i = 0; i < names->n; i++) {
		struct fcr_host *h = &c->hosts[c->n_hosts];
		bool twice = false;
		for (size_t j = 0; j < c->n_hosts; j++)
			twice |= !strcmp(c->hosts[j].name, names->v[i]);
		if (twice)
			continue;
		c->n_hosts++;
		for (size_t j = 0; j < p->n_hsecs; j++) {
			if (!used[j] && !strcmp(p->hsecs[j].name, names->v[i])) {
				*h = p->hsecs[j];
				memset(&p->hsecs[j], 0, sizeof(p->hsecs[j]));
				used[j] = true;
				break;
			}
		}
		if (!h->name) {
			h->name = cm_strdup(names->v[i]);
			h->line = p->seen[K_HOSTS];
		}
	}
	for (size_t j = 0; j < p->n_hsecs; j++) {
		if (used[j])
			continue;
		if (!names->n)
			fcr_cp_error(p, p->hsecs[j].line,
				     "[host %s] but no 'hosts =' in [campaign] (a fleet lists its "
				     "hosts there)",
				     p->hsecs[j].name);
		else
			fcr_cp_error(p, p->hsecs[j].line,
				     "[host %s] is not in 'hosts =' of line %u", p->hsecs[j].name,
				     p->seen[K_HOSTS]);
	}
	free(used);
	static const enum ckey fleet_keys[] = {K_SYNC, K_MODE, K_PARALLEL_TRANSITIONS};
	static const char *const fleet_key_names[] = {"sync", "mode", "parallel-transitions"};
	for (size_t i = 0; !names->n && i < CM_ARRAY_SIZE(fleet_keys); i++) {
		if (p->seen[fleet_keys[i]])
			fcr_cp_error(p, p->seen[fleet_keys[i]],
				     "'%s' is for a fleet: it needs 'hosts =' in [campaign]",
				     fleet_key_names[i]);
	}
	if (names->n && c->mode == FCR_MODE_AGGREGATE && c->sync == FCR_SYNC_NONE)
		fcr_cp_error(p, p->seen[K_SYNC],
			     "mode = aggregate runs each test on every host at the same moment: it "
			     "needs sync = states");
	c->hosts_line = p->seen[K_HOSTS];
}

void fcr_cp_host_release(struct fcr_host *h)
{
	free(h->name);
	for (size_t i = 0; i < h->n_keys; i++) {
		free((char *)h->keys[i].key);
		free((char *)h->keys[i].value);
	}
	free(h->keys);
}

const struct fcr_host *fcr_campaign_find_host(const struct fcr_campaign *c, const char *name)
{
	for (size_t i = 0; i < c->n_hosts; i++) {
		if (!strcmp(c->hosts[i].name, name))
			return &c->hosts[i];
	}
	return NULL;
}

/* Where host c writes its test files: the campaign's directory, or each
 * variant's place (NULL-terminated; borrowed from c). */
static size_t places_of(const struct fcr_campaign *c, const char **out, size_t max)
{
	size_t n = 0;
	if (c->n_variants) {
		for (size_t i = 0; i < c->n_variants && n < max; i++)
			out[n++] = c->variants[i].directory ? c->variants[i].directory
							    : c->variants[i].filename;
	} else if (c->uses_test_file && c->directory) {
		out[n++] = c->directory;
	}
	return n;
}

static bool same_machine(const struct fcr_campaign *a, const struct fcr_campaign *b)
{
	if (a->target != b->target)
		return false;
	if (a->target == FCR_TARGET_LOCAL)
		return true;
	return a->ssh_host && b->ssh_host && !strcasecmp(a->ssh_host, b->ssh_host) &&
	       a->ssh_port == b->ssh_port;
}

/* Whether a's provider keys are b's: the same key = value pairs, in any
 * order (keys are not given twice). */
static bool same_provider(const struct fcr_campaign *a, const struct fcr_campaign *b)
{
	if (a->n_provider_keys != b->n_provider_keys)
		return false;
	for (size_t i = 0; i < a->n_provider_keys; i++) {
		bool found = false;
		for (size_t j = 0; j < b->n_provider_keys && !found; j++)
			found = !strcmp(a->provider_keys[i].key, b->provider_keys[j].key) &&
				!strcmp(a->provider_keys[i].value, b->provider_keys[j].value);
		if (!found)
			return false;
	}
	return true;
}

void fcr_cp_check_hosts_apart(const struct fcr_campaign *fleet, struct fcr_campaign *const *hosts,
			      struct cm_strv *errors)
{
	/* one provider instance is one machine: two hosts would power it off,
	 * snapshot and restore it at once */
	for (size_t j = 1; strcmp(fleet->provider_type, "none") && j < fleet->n_hosts; j++) {
		for (size_t i = 0; i < j; i++) {
			if (!same_provider(hosts[i], hosts[j]))
				continue;
			cm_strv_addf(errors,
				     "%s:%u: hosts %s and %s have the same [provider] keys: both "
				     "would act on one %s machine (give each its own, e.g. its "
				     "server's id, in [host NAME])",
				     fleet->source, fleet->hosts[j].line, fleet->hosts[i].name,
				     fleet->hosts[j].name, fleet->provider_type);
			break;
		}
	}

	for (size_t j = 1; j < fleet->n_hosts; j++) {
		const char *pj[FCR_VARIANTS_MAX + 1];
		size_t nj = places_of(hosts[j], pj, FCR_VARIANTS_MAX);
		for (size_t i = 0; i < j; i++) {
			if (!same_machine(hosts[i], hosts[j]))
				continue;
			const char *pi[FCR_VARIANTS_MAX + 1];
			size_t ni = places_of(hosts[i], pi, FCR_VARIANTS_MAX);
			const char *shared = NULL;
			for (size_t a = 0; a < ni && !shared; a++) {
				for (size_t b = 0; b < nj && !shared; b++)
					shared = !strcmp(pi[a], pj[b]) ? pi[a] : NULL;
			}
			if (!shared)
				continue;
			cm_strv_addf(errors,
				     "%s:%u: hosts %s and %s both run on %s in %s: they would "
				     "write one test file at once (give each its own directory)",
				     fleet->source, fleet->hosts[j].line, fleet->hosts[i].name,
				     fleet->hosts[j].name, hosts[j]->target_text, shared);
			break;
		}
	}
}
