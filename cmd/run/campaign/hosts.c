/* SPDX-License-Identifier: MIT */
/*
 * The campaign file's fleet: `hosts =` in [campaign] and the [host NAME]
 * sections, read and checked against each other.  A host's keys are kept
 * as written; campaign.c applies them when the file is read for that host.
 */
#include <stdio.h>
#include <string.h>

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
}

void fcr_cp_host_key(struct parser *p, const char *key, const char *v)
{
	struct fcr_host *h = p->hsec;
	if (!h)
		return; /* the section is wrong already */
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
	if (p->for_host && !fcr_campaign_find_host(c, p->for_host))
		fcr_cp_error(p, p->seen[K_HOSTS] ? p->seen[K_HOSTS] : 1,
			     c->n_hosts ? "no host '%s' in 'hosts ='"
					: "no host '%s': the campaign has no 'hosts =' (it is not "
					  "a fleet)",
			     p->for_host);
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
