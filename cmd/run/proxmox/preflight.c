/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox preflight: everything that can be checked before the campaign
 * changes anything, said at once (each finding a note: info, warning or
 * problem; one problem stops the campaign), and what earlier sessions of a
 * resumed campaign left: the snapshots and the archive they made, and their
 * writes whose outcome was unknown, decided by task identity.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxmox/pxp.h"

struct findings {
	struct fcr_pxp *p;
	unsigned problems, warnings;
};

static void finding(struct findings *f, const char *level, const char *fmt, ...) CM_PRINTF(3, 4);

static void finding(struct findings *f, const char *level, const char *fmt, ...)
{
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!strcmp(level, "problem"))
		f->problems++;
	else if (!strcmp(level, "warning"))
		f->warnings++;
	fcr_provider_note(&f->p->base, level, "%s", msg);
}

/* ---- what earlier sessions did ------------------------------------------------------ */

/*
 * The role a write-intent was for: its "role" (the sub-step: "main", a
 * restore's "stop", a revert's "start"), else, in journals of older versions,
 * the end of its "write" ("restore last-backup: stop"), else "main".
 */
static void intent_role(json_t *intent, const struct fcr_provider_step *st, char *buf, size_t len)
{
	const char *role = fcr_jstr(intent, "role");
	const char *write = fcr_jstr(intent, "write");
	const char *colon = write ? strrchr(write, ':') : NULL;
	if (!role && colon && colon[1] == ' ' &&
	    strncmp(write, st->action, strlen(st->action)) == 0)
		role = colon + 2;
	snprintf(buf, len, "%s", role ? role : "main");
}

static bool claimed(json_t *subs, const char *upid)
{
	size_t i;
	json_t *s;
	json_array_foreach(subs, i, s) {
		const char *u = fcr_jstr(s, "upid");
		if (u && !strcmp(u, upid))
			return true;
	}
	return false;
}

/* The task an earlier attempt recorded for a write of this role and type
 * that no other write claims yet (a result written before the outcome
 * events named their task), or NULL. */
static const char *recorded_upid(const struct fcr_provider_step *st, json_t *subs, const char *role,
				 const char *type)
{
	json_t *tasks = json_object_get(st->recorded, "tasks");
	json_t *one = json_object_get(st->recorded, "task");
	json_t *uw = json_object_get(st->result, "unknown_write");
	json_t *list = json_array();
	if (json_is_array(tasks))
		json_array_extend(list, tasks);
	else if (one)
		json_array_append(list, one);
	if (fcr_jstr(uw, "upid"))
		json_array_append_new(list, json_pack("{s:O, s:O?, s:O?}", "upid",
						      json_object_get(uw, "upid"), "role",
						      json_object_get(uw, "role"), "name",
						      json_object_get(uw, "task_type")));
	const char *found = NULL;
	size_t i;
	json_t *t;
	json_array_foreach(list, i, t) {
		const char *u = fcr_jstr(t, "upid"), *r = fcr_jstr(t, "role");
		const char *n = fcr_jstr(t, "name");
		if (u && !claimed(subs, u) && (!r || !strcmp(r, role)) && n && type &&
		    !strcmp(n, type)) {
			/* borrowed from st: the list holds references, st holds them too */
			found = u;
			break;
		}
	}
	json_decref(list);
	return found;
}

/*
 * The writes an earlier session's attempts of a step sent, in order: one
 * entry per write-intent, {role, type, before, outcome, upid}.  The task's
 * UPID is the one its write-outcome journaled ("task"), else the one the
 * attempt recorded for that sub-step, else (an answer lost, a session
 * killed before it came) a task of the write's type by our token that is
 * not among the UPIDs journaled before the write was sent, nor another
 * write's.  A write every attempt of which was refused has no task.
 */
static int earlier_writes(struct fcr_pxp *p, const struct fcr_provider_step *st, json_t **out,
			  struct fcr_error *err)
{
	json_t *subs = json_array();
	json_t *cur = NULL;
	size_t i;
	json_t *e;
	json_array_foreach(st->journal, i, e) {
		const char *ev = fcr_jstr(e, "event");
		if (ev && !strcmp(ev, "write-intent")) {
			char role[32];
			intent_role(e, st, role, sizeof(role));
			json_t *before = json_object_get(e, "before");
			const char *type = fcr_jstr(e, "task_type");
			if (!type)
				type = fcr_jstr(before, "task_type");
			cur = json_pack("{s:s, s:s?, s:O?, s:n}", "role", role, "type", type,
					"before", json_object_get(before, "tasks"), "outcome");
			json_array_append_new(subs, cur);
		} else if (ev && !strcmp(ev, "write-outcome") && cur) {
			json_object_set(cur, "outcome", json_object_get(e, "outcome"));
			if (fcr_jstr(e, "task"))
				json_object_set(cur, "upid", json_object_get(e, "task"));
		}
	}
	json_array_foreach(subs, i, cur) {
		const char *outcome = fcr_jstr(cur, "outcome");
		const char *type = fcr_jstr(cur, "type");
		if (fcr_jstr(cur, "upid") || (outcome && !strcmp(outcome, "refused")))
			continue;
		const char *u = recorded_upid(st, subs, fcr_jstr(cur, "role"), type);
		if (u) {
			json_object_set_new(cur, "upid", json_string(u));
			continue;
		}
		json_t *before = json_object_get(cur, "before");
		if (!type || !json_is_array(before))
			continue;
		/* the UPIDs of the other writes are theirs, not this one's */
		json_t *known = json_copy(before);
		size_t k;
		json_t *o;
		json_array_foreach(subs, k, o) {
			if (fcr_jstr(o, "upid"))
				json_array_append(known, json_object_get(o, "upid"));
		}
		bool found = false;
		char upid[256];
		int rc =
		    fcr_pve_find_new_task(p->pve, type, known, &found, upid, sizeof(upid), err);
		json_decref(known);
		if (rc < 0) {
			json_decref(subs);
			return rc;
		}
		if (found)
			json_object_set_new(cur, "upid", json_string(upid));
	}
	*out = subs;
	return 0;
}

/*
 * A step an earlier session began (running, interrupted or failed in the
 * manifest): the tasks its writes started, each waited for until it ended,
 * however long task-timeout was (fcr_pve_wait_limit_ms with the long wait):
 * a task of ours that still runs is never sent again.  They are kept in
 * p->adopt under the step's key, each with its role: perform() takes a task
 * over for the sub-step of the same role and type only when it ended well,
 * and records the others.  < 0 when a task cannot be decided (it still runs
 * after the wait, a Ctrl-C, the node cannot be asked): then nothing may be
 * sent, and err says why.
 */
static int reconcile(struct fcr_pxp *p, const struct fcr_provider_step *st, struct fcr_error *err)
{
	json_t *subs = NULL;
	int rc = earlier_writes(p, st, &subs, err);
	if (rc < 0)
		return fcr_fail_as(err, rc,
				   "%s:%u: '%s' of an earlier session: its tasks cannot be "
				   "read: %s",
				   st->file, st->line, st->action, err->msg);
	json_t *tasks = json_array();
	size_t i;
	json_t *sub;
	json_array_foreach(subs, i, sub) {
		const char *upid = fcr_jstr(sub, "upid");
		const char *role = fcr_jstr(sub, "role");
		if (!upid) {
			fcr_provider_note(
			    &p->base, "info",
			    "%s:%u: '%s' of an earlier session: its %s write (%s) did not "
			    "reach the node (no task of ours that was not there before it)",
			    st->file, st->line, st->action, role,
			    fcr_jstr(sub, "type") ? fcr_jstr(sub, "type") : "?");
			continue;
		}
		struct fcr_pve_task t = {.t0_mono = cm_mono_s()};
		snprintf(t.upid, sizeof(t.upid), "%s", upid);
		snprintf(t.role, sizeof(t.role), "%s", role);
		if (fcr_pve_upid_parse(upid, &t.u) < 0)
			continue;
		fcr_pve_set_long_wait(p->pve, true);
		rc = fcr_pve_task_wait(p->pve, &t, false, err);
		fcr_pve_set_long_wait(p->pve, false);
		if (rc < 0 && rc != FCR_E_TASK) {
			fcr_pve_task_release(&t);
			json_decref(tasks);
			json_decref(subs);
			if (rc == FCR_E_STOPPED)
				return fcr_fail_as(
				    err, rc,
				    "%s:%u: stopped (Ctrl-C) while waiting for task %s "
				    "of an earlier session; nothing was sent",
				    st->file, st->line, upid);
			return fcr_fail_as(
			    err, rc,
			    "%s:%u: '%s' of an earlier session: %s.  Nothing is sent "
			    "while its task may run; resume again once it has ended",
			    st->file, st->line, st->action, err->msg);
		}
		t.stopwatch_s = NAN; /* it began in another session */
		json_t *tj = fcr_pve_task_json(&t);
		json_object_set_new(tj, "earlier", json_true());
		json_array_append_new(tasks, tj);
		fcr_provider_note(&p->base, "info",
				  "%s:%u: '%s' of an earlier session: its %s task %s ended %s",
				  st->file, st->line, st->action, role, t.upid, t.exitstatus);
		fcr_pve_task_release(&t);
	}
	json_decref(subs);
	if (json_array_size(tasks)) {
		char *key = fcr_provider_step_key(st->state, st->repetition, st->line);
		json_t *entry = json_object_get(p->adopt, key);
		if (!entry) {
			entry = json_object();
			json_object_set_new(p->adopt, key, entry);
		}
		json_object_set_new(entry, "tasks", tasks);
		free(key);
	} else {
		json_decref(tasks);
	}
	return 0;
}

json_t *fcr_pxp_earlier_ok(struct fcr_pxp *p, const char *key, const char *role, const char *type)
{
	json_t *found = NULL;
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(json_object_get(p->adopt, key), "tasks"), i, t) {
		const char *r = fcr_jstr(t, "role"), *n = fcr_jstr(t, "name");
		const char *state = fcr_jstr(t, "state");
		if (r && n && state && !strcmp(r, role) && !strcmp(n, type) &&
		    fcr_pve_exit_ok(state, NULL))
			found = t;
	}
	return found;
}

/* ---- the plan ------------------------------------------------------------------------ */

/* What the plan needs of the node, gathered while walking it. */
struct needs {
	bool power, snapshot, rollback, backup, restore;
	struct cm_strv backup_storages; /* vzdump targets */
	struct cm_strv disk_storages;	/* restore targets */
	struct cm_strv archives;	/* volids restored */
	unsigned n_backups;
};

static void needs_release(struct needs *n)
{
	cm_strv_release(&n->backup_storages);
	cm_strv_release(&n->disk_storages);
	cm_strv_release(&n->archives);
}

/*
 * Walks the campaign's provider steps in order over the guest's snapshots
 * as they are (`names`): what earlier sessions made, what is left to do,
 * and whether each snapshot name is free or there when the step comes.
 */
static void walk_plan(struct fcr_pxp *p, const struct fcr_provider_step *steps, size_t n,
		      struct cm_strv *names, struct needs *nd, struct findings *f)
{
	struct cm_strv ours = {0}; /* the campaign's snapshots as the plan goes */
	bool backup_made = p->last_backup != NULL;
	char *key = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct fcr_provider_step *st = &steps[i];
		bool done = fcr_provider_step_is(st, CM_STATUS_DONE);
		bool started = !done && !fcr_provider_step_is(st, CM_STATUS_PENDING) &&
			       !fcr_provider_step_is(st, CM_STATUS_SKIPPED);
		const char *a = st->action;
		const char *name = st->argc ? st->argv[0] : NULL;
		free(key);
		key = fcr_provider_step_key(st->state, st->repetition, st->line);
		/* its snapshot task of an earlier session ended well */
		bool adopted = fcr_pxp_earlier_ok(p, key, "main", "qmsnapshot") != NULL;
		if (!strcmp(a, "power-off") || !strcmp(a, "power-on") || !strcmp(a, "reboot")) {
			nd->power |= !done;
		} else if (!strcmp(a, "snapshot")) {
			json_t *created = json_object_get(st->result, "created");
			if (done || (started && (json_is_true(created) || adopted))) {
				/* made by this campaign, provably */
				cm_strv_add_once(&p->made.created, name);
				cm_strv_add_once(&ours, name);
				if (!done && json_is_true(created)) {
					json_t *entry = json_object_get(p->adopt, key);
					if (!entry) {
						entry = json_object();
						json_object_set_new(p->adopt, key, entry);
					}
					json_object_set_new(entry, "made", json_true());
				}
				if (!done && !cm_strv_has(names, name))
					cm_strv_add(names, name);
				continue;
			}
			nd->snapshot = true;
			if (cm_strv_has(names, name))
				finding(
				    f, "problem",
				    "%s:%u: snapshot %s will exist already when the plan takes it "
				    "(on the guest now, or made earlier in the plan): delete it or "
				    "choose another name",
				    st->file, st->line, name);
			else
				cm_strv_add(names, name);
			cm_strv_add_once(&ours, name);
		} else if (!strcmp(a, "delete-snapshot")) {
			bool all = !strcmp(name, "all-created");
			if (done) {
				if (all)
					cm_strv_release(&p->made.created);
				else
					cm_strv_del(&p->made.created, name);
				continue;
			}
			nd->snapshot = true;
			struct cm_strv list = {0};
			if (all) {
				for (size_t k = 0; k < ours.n; k++)
					cm_strv_add(&list, ours.v[k]);
			} else {
				cm_strv_add(&list, name);
			}
			for (size_t k = 0; k < list.n; k++) {
				const char *nm = list.v[k];
				if (!cm_strv_has(names, nm) && !started && !cm_strv_has(&ours, nm))
					finding(
					    f, "problem",
					    "%s:%u: the plan deletes snapshot %s, which will not "
					    "exist then",
					    st->file, st->line, nm);
				cm_strv_del(names, nm);
				cm_strv_del(&ours, nm);
			}
			cm_strv_release(&list);
		} else if (!strcmp(a, "revert")) {
			if (done)
				continue;
			nd->rollback = nd->power = true;
			if (!cm_strv_has(names, name))
				finding(
				    f, "problem",
				    "%s:%u: the plan rolls back to snapshot %s, which will not "
				    "exist then (not on the guest, not made earlier in the plan, "
				    "or removed by a restore)",
				    st->file, st->line, name);
		} else if (!strcmp(a, "backup")) {
			if (!st->args)
				continue;
			const struct fcr_pxp_backup b = *(const struct fcr_pxp_backup *)st->args;
			if (done) {
				const char *v =
				    fcr_jstr(json_object_get(st->result, "archive"), "volid");
				if (v) {
					free(p->last_backup);
					p->last_backup = cm_strdup(v);
				}
				backup_made = true;
				continue;
			}
			nd->backup = true;
			nd->n_backups++;
			nd->power |= strcmp(b.mode, "snapshot") != 0;
			cm_strv_add_once(&nd->backup_storages, b.storage);
			backup_made = true;
		} else if (!strcmp(a, "restore")) {
			if (!st->args)
				continue;
			const struct fcr_pxp_restore r = *(const struct fcr_pxp_restore *)st->args;
			if (done) {
				fcr_provider_made_clear(&p->made);
				continue;
			}
			nd->restore = nd->power = true;
			if (!p->allow_destroy)
				finding(
				    f, "problem",
				    "%s:%u: a restore replaces guest %ld's disks and removes its "
				    "snapshots: it needs allow-destroy = yes in [provider]",
				    st->file, st->line, p->cfg.vmid);
			if (!strcmp(r.archive, "last-backup") && !backup_made)
				finding(f, "problem",
					"%s:%u: restore last-backup: no backup before it", st->file,
					st->line);
			if (strcmp(r.archive, "last-backup"))
				cm_strv_add_once(&nd->archives, r.archive);
			if (r.storage)
				cm_strv_add_once(&nd->disk_storages, r.storage);
			/* restore_cleanup_oldconf: no snapshot survives it */
			cm_strv_release(names);
			cm_strv_release(&ours);
		}
	}
	free(key);
	cm_strv_release(&ours);
}

/* ---- the token's privileges ----------------------------------------------------------- */

/* The token's privileges on `path`, as GET /access/permissions?path= says. */
static int privileges(struct fcr_pxp *p, const char *path, json_t **out, struct fcr_error *e)
{
	char *esc = fcr_url_escape(path);
	char *q = cm_asprintf("/access/permissions?path=%s", esc);
	free(esc);
	json_t *d;
	int rc = fcr_pve_get(p->pve, q, &d, NULL, e);
	free(q);
	if (rc < 0)
		return rc;
	*out = json_incref(json_object_get(d, path));
	json_decref(d);
	return 0;
}

static bool has_priv(json_t *privs, const char *priv)
{
	json_t *v = json_object_get(privs, priv);
	return json_is_true(v) || json_integer_value(v) == 1;
}

/* One requirement: any of `privs` ('|'-separated) on path, for `why`. */
static void require(struct fcr_pxp *p, struct findings *f, json_t *cache, const char *path,
		    const char *privs, const char *why)
{
	json_t *have = json_object_get(cache, path);
	if (!have) {
		struct fcr_error e = {0};
		json_t *got = NULL;
		if (privileges(p, path, &got, &e) < 0) {
			finding(f, "warning", "the token's privileges on %s could not be read: %s",
				path, e.msg);
			json_object_set_new(cache, path, json_false());
			return;
		}
		have = got ? got : json_object();
		json_object_set_new(cache, path, have);
	}
	if (!json_is_object(have))
		return;
	char *list = cm_strdup(privs);
	bool ok = false;
	for (char *save = NULL, *tok = strtok_r(list, "|", &save); tok;
	     tok = strtok_r(NULL, "|", &save))
		ok |= has_priv(have, tok);
	free(list);
	if (!ok)
		finding(f, "problem",
			"the token %s lacks %s on %s, which %s needs (Permission check failed "
			"(%s, %s)); grant it: pveum acl modify %s --tokens '%s' --roles ROLE",
			fcr_pve_token_id(p->pve), privs, path, why, path, privs, path,
			fcr_pve_token_id(p->pve));
}

static void check_privileges(struct fcr_pxp *p, const struct needs *nd, struct findings *f)
{
	json_t *cache = json_object();
	char vm[32];
	snprintf(vm, sizeof(vm), "/vms/%ld", p->cfg.vmid);
	require(p, f, cache, vm, "VM.Audit", "reading the guest");
	if (nd->power)
		require(p, f, cache, vm, "VM.PowerMgmt",
			"powering the guest off and on (and the safety power-on)");
	if (nd->snapshot)
		require(p, f, cache, vm, "VM.Snapshot", "taking and deleting snapshots");
	if (nd->rollback)
		require(p, f, cache, vm, "VM.Snapshot|VM.Snapshot.Rollback", "a rollback");
	if (nd->backup)
		require(p, f, cache, vm, "VM.Backup", "vzdump (checked in its task)");
	if (nd->restore)
		require(p, f, cache, vm, "VM.Allocate|VM.Backup", "a restore over the guest");
	for (size_t i = 0; i < nd->backup_storages.n; i++) {
		char *path = cm_asprintf("/storage/%s", nd->backup_storages.v[i]);
		require(p, f, cache, path, "Datastore.AllocateSpace", "writing a backup there");
		free(path);
	}
	for (size_t i = 0; i < nd->disk_storages.n; i++) {
		char *path = cm_asprintf("/storage/%s", nd->disk_storages.v[i]);
		require(p, f, cache, path, "Datastore.AllocateSpace",
			"restoring the guest's disks there");
		free(path);
	}
	json_decref(cache);
}

/* ---- the node, the guest, its storages --------------------------------------------------- */

static json_t *find_row(json_t *rows, const char *key, const char *value, long number)
{
	size_t i;
	json_t *r;
	json_array_foreach(rows, i, r) {
		json_t *v = json_object_get(r, key);
		if ((value && json_is_string(v) && !strcmp(json_string_value(v), value)) ||
		    (!value && json_integer_value(v) == number))
			return r;
	}
	return NULL;
}

/* The node is there, and the guest on it; false when nothing further can be asked. */
static bool check_node_and_guest(struct fcr_pxp *p, struct findings *f)
{
	struct fcr_error e = {0};
	json_t *d = NULL;
	if (fcr_pve_get(p->pve, "/version", &d, NULL, &e) < 0) {
		finding(f, "problem", "%s", e.msg);
		return false;
	}
	const char *version = fcr_jstr(d, "version");
	finding(f, "info", "Proxmox VE %s (release %s) at %s, API token %s",
		version ? version : "?", fcr_jstr(d, "release") ? fcr_jstr(d, "release") : "?",
		p->api_url, fcr_pve_token_id(p->pve));
	if (version && atoi(version) < 7)
		finding(f, "warning",
			"Proxmox VE %s is older than 7: fiocamp follows the API of 7 and later",
			version);
	json_decref(d);
	if (fcr_pve_get(p->pve, "/nodes", &d, NULL, &e) < 0) {
		finding(f, "problem", "%s", e.msg);
		return false;
	}
	json_t *node = find_row(d, "node", p->node, 0);
	if (!node) {
		struct cm_buf b = {0};
		size_t i;
		json_t *r;
		json_array_foreach(d, i, r) {
			cm_buf_printf(&b, "%s%s", b.len ? ", " : "", fcr_jstr(r, "node"));
		}
		finding(f, "problem", "node %s is not in the cluster (its nodes: %s)", p->node,
			b.len ? b.s : "none");
		cm_buf_release(&b);
		json_decref(d);
		return false;
	}
	const char *node_status = fcr_jstr(node, "status");
	if (!node_status || strcmp(node_status, "online"))
		finding(f, "problem", "node %s is %s, not online", p->node,
			fcr_jstr(node, "status") ? fcr_jstr(node, "status") : "in no known state");
	json_decref(d);
	/* the guest list first: status/current of a missing guest is a 500 */
	char *path = cm_asprintf("/nodes/%s/qemu", p->node);
	int rc = fcr_pve_get(p->pve, path, &d, NULL, &e);
	free(path);
	if (rc < 0) {
		finding(f, "problem", "%s", e.msg);
		return false;
	}
	bool there = find_row(d, "vmid", NULL, p->cfg.vmid) != NULL;
	json_decref(d);
	if (!there) {
		const char *elsewhere = NULL;
		json_t *res = NULL;
		if (fcr_pve_get(p->pve, "/cluster/resources?type=vm", &res, NULL, &e) == 0)
			elsewhere = fcr_jstr(find_row(res, "vmid", NULL, p->cfg.vmid), "node");
		if (elsewhere)
			finding(f, "problem",
				"guest %ld is on node %s, not %s: set node = %s (tasks run on the "
				"node that owns the guest)",
				p->cfg.vmid, elsewhere, p->node, elsewhere);
		else
			finding(f, "problem",
				"guest %ld is not on node %s (or the token may not see it: it "
				"needs VM.Audit on /vms/%ld)",
				p->cfg.vmid, p->node, p->cfg.vmid);
		json_decref(res);
		return false;
	}
	struct fcr_pve_guest g;
	if (fcr_pve_guest_status(p->pve, &g, &e) < 0) {
		finding(f, "problem", "%s", e.msg);
		return false;
	}
	if (strcmp(g.name, p->vm_name)) {
		finding(f, "problem",
			"guest %ld on node %s is named '%s', not '%s' as vm-name says: nothing "
			"will be changed on it (is vmid right?)",
			p->cfg.vmid, p->node, g.name, p->vm_name);
		return false;
	}
	finding(f, "info", "guest %ld '%s' on node %s: %s%s%s", p->cfg.vmid, g.name, p->node,
		g.status, strcmp(g.qmpstatus, g.status) && g.qmpstatus[0] ? ", qmp " : "",
		strcmp(g.qmpstatus, g.status) ? g.qmpstatus : "");
	if (g.lock[0])
		finding(f, "problem",
			"guest %ld is locked (%s): another operation holds it, or a crashed one "
			"left the lock; once no task of the guest runs, `qm unlock %ld` on the "
			"node removes it",
			p->cfg.vmid, g.lock, p->cfg.vmid);
	if (g.ha_managed)
		finding(f, "problem",
			"guest %ld is HA-managed (state %s): its starts and stops only ask the HA "
			"manager, and their tasks end before the guest changes; remove it from HA "
			"for the campaign (ha-manager remove vm:%ld)",
			p->cfg.vmid, g.ha_state[0] ? g.ha_state : "?", p->cfg.vmid);
	if (g.template_)
		finding(f, "problem", "guest %ld is a template", p->cfg.vmid);
	if (strcmp(g.status, "running"))
		finding(f, "warning", "guest %ld is %s: fio cannot run on it until it is started",
			p->cfg.vmid, g.status);
	return true;
}

static void check_storages(struct fcr_pxp *p, const struct needs *nd, struct findings *f)
{
	if (!nd->backup_storages.n && !nd->disk_storages.n && !nd->archives.n)
		return;
	struct fcr_error e = {0};
	json_t *list = NULL;
	char *path = cm_asprintf("/nodes/%s/storage", p->node);
	int rc = fcr_pve_get(p->pve, path, &list, NULL, &e);
	free(path);
	if (rc < 0) {
		finding(f, "problem", "%s", e.msg);
		return;
	}
	for (size_t i = 0; i < nd->backup_storages.n; i++) {
		const char *id = nd->backup_storages.v[i];
		json_t *s = find_row(list, "storage", id, 0);
		const char *content = fcr_jstr(s, "content");
		if (!s) {
			finding(f, "problem",
				"storage %s is not on node %s (or the token may not see "
				"it)",
				id, p->node);
			continue;
		}
		if (!content || !strstr(content, "backup")) {
			finding(f, "problem",
				"storage %s holds no backups (content: %s): choose "
				"one whose content includes backup",
				id, content ? content : "none");
			continue;
		}
		json_int_t avail = json_integer_value(json_object_get(s, "avail"));
		char av[32];
		cm_format_size(av, sizeof(av), (uint64_t)(avail > 0 ? avail : 0));
		finding(f, "info",
			"storage %s: %s free for the %u backup%s of the plan (an archive is about "
			"the guest's used space, compressed; fiocamp never prunes)",
			id, av, nd->n_backups, nd->n_backups == 1 ? "" : "s");
	}
	for (size_t i = 0; i < nd->disk_storages.n; i++) {
		const char *id = nd->disk_storages.v[i];
		json_t *s = find_row(list, "storage", id, 0);
		const char *content = fcr_jstr(s, "content");
		if (!s || !content || !strstr(content, "images"))
			finding(f, "problem", "storage %s %s: a restore puts disk images there", id,
				s ? "holds no disk images" : "is not on the node");
	}
	json_decref(list);
	for (size_t i = 0; i < nd->archives.n; i++) {
		const char *volid = nd->archives.v[i];
		char *st = cm_strndup(volid, strcspn(volid, ":"));
		json_t *b = NULL;
		if (fcr_pve_backups(p->pve, st, &b, &e) < 0)
			finding(f, "problem", "%s", e.msg);
		else if (!find_row(b, "volid", volid, 0))
			finding(f, "problem", "archive %s is not among guest %ld's backups on %s",
				volid, p->cfg.vmid, st);
		json_decref(b);
		free(st);
	}
}

static void check_tasks(struct fcr_pxp *p, const struct needs *nd, struct findings *f)
{
	struct fcr_error e = {0};
	json_t *d = NULL;
	char *path =
	    cm_asprintf("/nodes/%s/tasks?vmid=%ld&source=active&limit=50", p->node, p->cfg.vmid);
	if (fcr_pve_get(p->pve, path, &d, NULL, &e) == 0) {
		size_t i;
		json_t *r;
		json_array_foreach(d, i, r) {
			finding(f, "warning",
				"task %s of guest %ld still runs: the campaign's first change will "
				"wait for the guest's lock",
				fcr_jstr(r, "upid") ? fcr_jstr(r, "upid") : "?", p->cfg.vmid);
		}
	}
	json_decref(d);
	free(path);
	if (!nd->backup)
		return;
	/* one vzdump per node (VZDump.pm getlock): a backup of any guest delays ours */
	path = cm_asprintf("/nodes/%s/tasks?typefilter=vzdump&source=active&limit=50", p->node);
	d = NULL;
	if (fcr_pve_get(p->pve, path, &d, NULL, &e) == 0 && json_array_size(d))
		finding(
		    f, "info",
		    "a backup runs on node %s (%s): only one vzdump runs per node, so the "
		    "campaign's first backup waits for it, and its task seconds include the wait",
		    p->node, fcr_jstr(json_array_get(d, 0), "upid"));
	json_decref(d);
	free(path);
}

int fcr_pxp_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
		      struct fcr_error *err)
{
	struct fcr_pxp *p = state;
	if (!p->pve)
		return fcr_fail(err, "proxmox: not connected");
	struct findings f = {.p = p};
	struct needs nd = {0};
	struct cm_strv names = {0};
	p->base.current = "preflight";
	/* before anything else: a task of an earlier session still running holds
	 * the guest's lock, and would undo what the campaign does next */
	for (size_t i = 0; i < n_steps; i++) {
		const struct fcr_provider_step *st = &steps[i];
		if (!st->status || !strcmp(st->status, "done") || !strcmp(st->status, "pending") ||
		    !strcmp(st->status, "skipped"))
			continue;
		struct fcr_error e = {0};
		int rc = reconcile(p, st, &e);
		if (rc < 0) {
			p->base.current = NULL;
			fcr_provider_note(&p->base, "problem", "%s", e.msg);
			return fcr_fail_as(err, rc == FCR_E_STOPPED ? rc : FCR_E_PREFLIGHT,
					   "the Proxmox preflight stopped at a task of an earlier "
					   "session (said above); nothing was changed");
		}
	}
	if (check_node_and_guest(p, &f)) {
		struct fcr_error e = {0};
		struct fcr_pve_snapshots s;
		if (fcr_pve_snapshots(p->pve, &s, &e) < 0) {
			finding(&f, "problem", "%s", e.msg);
		} else {
			for (size_t i = 0; i < s.n; i++)
				cm_strv_add(&names, s.v[i].name);
			fcr_pve_snapshots_release(&s);
			walk_plan(p, steps, n_steps, &names, &nd, &f);
		}
		check_privileges(p, &nd, &f);
		check_storages(p, &nd, &f);
		check_tasks(p, &nd, &f);
		if (p->made.created.n || p->last_backup) {
			struct cm_buf b = {0};
			for (size_t i = 0; i < p->made.created.n; i++)
				cm_buf_printf(&b, "%s%s", b.len ? ", " : "", p->made.created.v[i]);
			finding(&f, "info",
				"made by this campaign before: snapshots %s; archive %s",
				b.len ? b.s : "none", p->last_backup ? p->last_backup : "none");
			cm_buf_release(&b);
		}
	}
	p->base.current = NULL;
	cm_strv_release(&names);
	needs_release(&nd);
	if (f.problems)
		return fcr_fail_as(
		    err, FCR_E_PREFLIGHT,
		    "the Proxmox preflight found %u problem%s (listed above); nothing "
		    "was changed",
		    f.problems, f.problems == 1 ? "" : "s");
	return 0;
}

/* ---- --dry-run ---------------------------------------------------------------------- */

void fcr_pxp_describe_preflight(void *state, struct cm_buf *b)
{
	struct fcr_pxp *p = state;
	const char *n = p->node;
	long v = p->cfg.vmid;
	if (p->token_file)
		cm_buf_printf(b, "API token from %s (refused unless mode 0600 or stricter)\n",
			      p->token_file);
	else
		cm_buf_printf(b, "API token from $" FCR_PVE_TOKEN_ENV "\n");
	if (p->cfg.pinned)
		cm_buf_printf(b,
			      "TLS: the node's certificate must have the SHA-256 fingerprint %s "
			      "(checked in the handshake, before the token is sent)%s%s\n",
			      p->fingerprint_text, p->ca_file ? "; and the CA " : "",
			      p->ca_file ? p->ca_file : "");
	else if (p->ca_file)
		cm_buf_printf(b, "TLS: the node's certificate must be signed by %s\n", p->ca_file);
	else if (!strncmp(p->api_url, "https:", 6))
		cm_buf_printf(b, "TLS: the system's CAs (a node's own certificate needs "
				 "fingerprint or ca-file)\n");
	cm_buf_printf(b, "GET /version: Proxmox's version\n");
	cm_buf_printf(b, "GET /nodes: node %s is there and online\n", n);
	cm_buf_printf(b,
		      "GET /nodes/%s/qemu: guest %ld is on it (else GET "
		      "/cluster/resources?type=vm: where it is)\n",
		      n, v);
	cm_buf_printf(b,
		      "GET /nodes/%s/qemu/%ld/status/current: named '%s', no lock, not "
		      "HA-managed, not a template\n",
		      n, v, p->vm_name);
	cm_buf_printf(b,
		      "GET /nodes/%s/qemu/%ld/snapshot: names free or there as the plan needs "
		      "them\n",
		      n, v);
	cm_buf_printf(b,
		      "(--resume: GET /nodes/%s/tasks/{upid}/status, or GET "
		      "/nodes/%s/tasks?vmid=%ld&typefilter=TYPE&source=all&limit=50, for a "
		      "write of an earlier session whose outcome was unknown)\n",
		      n, n, v);
	cm_buf_printf(b,
		      "GET /access/permissions?path=/vms/%ld (and ?path=/storage/S for each "
		      "storage the plan writes to): the privileges the plan needs\n",
		      v);
	cm_buf_printf(b,
		      "GET /nodes/%s/storage: a backup storage holds backups, its free space "
		      "(when the plan backs up or restores)\n",
		      n);
	cm_buf_printf(b,
		      "GET /nodes/%s/storage/S/content?content=backup&vmid=%ld: an archive the "
		      "plan restores is there\n",
		      n, v);
	cm_buf_printf(b,
		      "GET /nodes/%s/tasks?vmid=%ld&source=active&limit=50: tasks still "
		      "running on the guest\n",
		      n, v);
	cm_buf_printf(b,
		      "GET /nodes/%s/tasks?typefilter=vzdump&source=active&limit=50: a backup "
		      "running on the node (when the plan backs up)\n",
		      n);
	char lock[32];
	cm_format_duration(lock, sizeof(lock), p->cfg.lock_wait_ms);
	cm_buf_printf(b,
		      "(API %s/api2/json.  Each task below: after WARNINGS or an error its log, "
		      "GET /nodes/{node}/tasks/{upid}/log?start=0&limit=1 for its length, then "
		      "its last %d lines; refused by a lock (\"can't lock file ... got timeout\", "
		      "\"VM is locked\") it is sent again after %s, at most %u times)\n",
		      p->api_url, FCR_PVE_LOG_TAIL, lock, p->cfg.lock_retries);
}
