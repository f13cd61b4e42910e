/* SPDX-License-Identifier: MIT */
/*
 * A fleet directory (docs/campaign-directory.md): the fleet's manifest.json
 * names its hosts, how each ended and the barrier waits; each host's own
 * campaign directory (DIR/hosts/NAME) is read through its manifest like
 * any campaign, its runs grouped by the host's name so that the hosts are
 * the variants (HOST/VARIANT where a host's campaign has variants of its
 * own).  Members this reader does not need are left alone.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/read.h"

static char *str_or_null(const json_t *v)
{
	return json_is_string(v) ? cm_utf8_dup(json_string_value(v)) : NULL;
}

/* A reason on one line: its line breaks and tabs as spaces, none at its
 * end (a host's last error line comes with its newline). */
static char *one_line(const json_t *v)
{
	char *s = str_or_null(v);
	if (!s)
		return NULL;
	for (char *p = s; *p; p++) {
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	}
	size_t n = strlen(s);
	while (n > 0 && s[n - 1] == ' ')
		s[--n] = '\0';
	if (!n) {
		free(s);
		return NULL;
	}
	return s;
}

static struct an_fleet_host *add_host(struct an_fleet *f, const char *name, const char *dir,
				      const char *group)
{
	struct an_fleet_host *h = CM_PUSH(f->hosts, f->n_hosts, f->cap_hosts);
	h->name = cm_strdup(name);
	h->dir = cm_strdup(dir);
	h->exit_status = -1;
	h->campaign = SIZE_MAX;
	h->group = group[0] ? cm_asprintf("%s/%s", group, name) : cm_strdup(name);
	h->waited_s = NAN;
	h->max_wait_s = NAN;
	return h;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* A fleet manifest without a list of hosts: the directories below
 * DIR/hosts, by name. */
static void hosts_from_dir(struct an_analysis *a, struct an_fleet *f, const char *dir,
			   const char *group)
{
	char *hosts = an_path_join(dir, CM_FLEET_HOSTS_DIR);
	DIR *d = opendir(hosts);
	if (!d) {
		free(hosts);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!cm_campaign_name_ok(e->d_name) || e->d_name[0] == '.')
			continue;
		*CM_PUSH(names, n, cap) = cm_strdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *rel = an_path_join(CM_FLEET_HOSTS_DIR, names[i]);
		char *path = an_path_join(dir, rel);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			add_host(f, names[i], path, group);
		free(path);
		free(rel);
		free(names[i]);
	}
	free(names);
	if (f->n_hosts)
		an_note(a, "%s: lists no hosts; read the %zu directories below %s", f->manifest,
			f->n_hosts, hosts);
	free(hosts);
}

/* The hosts the manifest lists, each with its directory (hosts/NAME
 * unless it names another inside the fleet's). */
static void hosts_listed(struct an_analysis *a, struct an_fleet *f, const char *dir,
			 const char *group, const json_t *list)
{
	size_t i;
	const json_t *jh;
	json_array_foreach(list, i, jh) {
		const char *name = json_string_value(json_object_get(jh, "name"));
		if (!name || !cm_campaign_name_ok(name)) {
			an_note(a, "%s: host %zu has no valid name, skipped", f->manifest, i + 1);
			continue;
		}
		bool dup = false;
		for (size_t k = 0; k < f->n_hosts && !dup; k++)
			dup = strcmp(f->hosts[k].name, name) == 0;
		if (dup) {
			an_note(a, "%s: host %s is listed twice; its first entry is used",
				f->manifest, name);
			continue;
		}
		const char *rel = json_string_value(json_object_get(jh, "directory"));
		char *own = NULL;
		if (rel && !an_safe_rel_path(rel)) {
			an_note(a,
				"%s: host %s: \"%s\" is not a directory inside the fleet's; "
				"read " CM_FLEET_HOSTS_DIR "/%s",
				f->manifest, name, rel, name);
			rel = NULL;
		}
		if (!rel)
			rel = own = an_path_join(CM_FLEET_HOSTS_DIR, name);
		char *path = an_path_join(dir, rel);
		struct an_fleet_host *h = add_host(f, name, path, group);
		free(path);
		free(own);
		h->status = str_or_null(json_object_get(jh, "status"));
		h->reason = one_line(json_object_get(jh, "reason"));
		const json_t *es = json_object_get(jh, "exit_status");
		if (json_is_integer(es) && json_integer_value(es) >= 0 &&
		    json_integer_value(es) < 256)
			h->exit_status = (int)json_integer_value(es);
	}
}

/* Each host's waits at the barriers, summed; a wait that is no number or
 * of a host not listed says nothing. */
static void read_barriers(struct an_fleet *f, const json_t *list)
{
	size_t i;
	const json_t *b;
	json_array_foreach(list, i, b) {
		const json_t *waits = json_object_get(b, "waits");
		if (!json_is_object(b))
			continue;
		f->n_barriers++;
		for (size_t k = 0; k < f->n_hosts; k++) {
			struct an_fleet_host *h = &f->hosts[k];
			const json_t *w = json_object_get(waits, h->name);
			if (!json_is_number(w) || !isfinite(json_number_value(w)) ||
			    json_number_value(w) < 0)
				continue;
			double s = json_number_value(w);
			h->barriers++;
			h->waited_s = isnan(h->waited_s) ? s : h->waited_s + s;
			if (isnan(h->max_wait_s) || s > h->max_wait_s)
				h->max_wait_s = s;
		}
	}
}

/* What the analysis says of the fleet: its hosts as variants, their waits
 * at the barriers, and every host that did not end well. */
static void fleet_notes(struct an_analysis *a, const struct an_fleet *f)
{
	struct cm_buf b = {NULL, 0, 0};
	for (size_t k = 0; k < f->n_hosts; k++)
		cm_buf_printf(&b, "%s%s", k ? ", " : "", f->hosts[k].name);
	an_note(a,
		"%s: a fleet of %zu host%s (%s)%s%s: the hosts are compared as variants "
		"(HOST/VARIANT where a host's campaign has variants)",
		f->manifest, f->n_hosts, f->n_hosts == 1 ? "" : "s", b.s ? b.s : "none",
		f->sync ? ", sync " : "", f->sync ? f->sync : "");
	cm_buf_release(&b);
	if (f->n_barriers) {
		for (size_t k = 0; k < f->n_hosts; k++) {
			const struct an_fleet_host *h = &f->hosts[k];
			if (!h->barriers)
				continue;
			cm_buf_printf(&b, "%s%s %.1f s", b.len ? ", " : "", h->name, h->waited_s);
			if (h->barriers > 1)
				cm_buf_printf(&b, " (longest %.1f s)", h->max_wait_s);
		}
		an_note(a, "%s: waits at the %zu barrier%s, each host's in all: %s", f->manifest,
			f->n_barriers, f->n_barriers == 1 ? "" : "s", b.s ? b.s : "none recorded");
		cm_buf_release(&b);
	}
	for (size_t k = 0; k < f->n_hosts; k++) {
		const struct an_fleet_host *h = &f->hosts[k];
		if (!cm_status_failed(h->status) && !cm_status_is(h->status, CM_STATUS_RUNNING))
			continue;
		char es[40] = "";
		if (h->exit_status >= 0)
			snprintf(es, sizeof(es), " (exit status %d)", h->exit_status);
		if (cm_status_is(h->status, CM_STATUS_RUNNING))
			an_note(a, "%s: host %s is still running: what it completed is analyzed",
				f->manifest, h->name);
		else if (h->campaign == SIZE_MAX)
			an_warn(a, "%s: host %s %s%s%s%s, before it wrote its campaign directory",
				f->manifest, h->name, h->status, es, h->reason ? ": " : "",
				h->reason ? h->reason : "");
		else {
			/* the runs its manifest lists as done */
			size_t runs = 0;
			for (size_t i = 0; i < a->n_runs; i++)
				runs += a->runs[i].campaign == h->campaign && !a->runs[i].reason;
			char *done =
			    runs ? cm_asprintf("the %zu run%s it completed %s analyzed", runs,
					       runs == 1 ? "" : "s", runs == 1 ? "is" : "are")
				 : cm_strdup("it completed no run");
			an_warn(a, "%s: host %s %s%s%s%s; %s", f->manifest, h->name, h->status, es,
				h->reason ? ": " : "", h->reason ? h->reason : "", done);
			free(done);
		}
	}
}

int an_read_fleet(struct an_analysis *a, size_t in, const char *dir, const char *path,
		  const struct json_t *root, struct an_error *err)
{
	const json_t *version = json_object_get(root, "version");
	if (!json_is_integer(version) || json_integer_value(version) != CM_FLEET_VERSION)
		an_note(a, "%s: fleet manifest version is not %d; read as version %d", path,
			CM_FLEET_VERSION, CM_FLEET_VERSION);
	char *group = an_path_group(an_path_below(a->inputs[in].root, path), 0);
	if (!group[0])
		a->inputs[in].fleet = true;
	struct an_fleet *f = CM_PUSH(a->fleets, a->n_fleets, a->cap_fleets);
	size_t fi = a->n_fleets - 1;
	f->manifest = cm_strdup(path);
	f->name = str_or_null(json_object_get(root, "campaign"));
	f->mode = str_or_null(json_object_get(root, "mode"));
	f->sync = str_or_null(json_object_get(root, "sync"));
	f->status = str_or_null(json_object_get(root, "status"));
	f->input = in;
	const json_t *list = json_object_get(root, "hosts");
	if (json_is_array(list))
		hosts_listed(a, f, dir, group, list);
	else
		hosts_from_dir(a, f, dir, group);
	read_barriers(f, json_object_get(root, "barriers"));
	int rc = 0;
	for (size_t k = 0; k < a->fleets[fi].n_hosts; k++) {
		/* reading a host adds to the analysis' arrays: no pointer kept */
		const struct an_fleet_host *h = &a->fleets[fi].hosts[k];
		char *manifest = an_path_join(h->dir, CM_CAMPAIGN_MANIFEST);
		struct stat st;
		if (stat(manifest, &st) != 0) {
			/* said with the host's status below when it failed */
			if (!cm_status_failed(h->status))
				an_warn(a, "%s: host %s has no campaign directory (%s: %s)", path,
					h->name, manifest, strerror(errno));
			free(manifest);
			continue;
		}
		char *hdir = cm_strdup(h->dir), *hgroup = cm_strdup(h->group);
		size_t campaign = a->n_campaigns;
		struct an_error herr;
		int hrc = an_read_campaign_manifest(a, in, hdir, manifest, hgroup, &herr);
		if (hrc < 0 && rc == 0) {
			rc = hrc;
			*err = herr;
		} else if (hrc == 0) {
			a->fleets[fi].hosts[k].campaign = campaign;
			a->campaigns[campaign].fleet_host = cm_strdup(a->fleets[fi].hosts[k].name);
		}
		free(hdir);
		free(hgroup);
		free(manifest);
	}
	fleet_notes(a, &a->fleets[fi]);
	free(group);
	return rc;
}
