/* SPDX-License-Identifier: MIT */
/*
 * The client's checks of a plan (fcr_netcup_preflight, netcup.h): everything
 * that can be checked before a campaign changes the server, gathered as
 * findings so the user sees all problems at once.  The provider's
 * preflight, which builds the plan, is preflight.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcup/internal.h"

#define UEFI_CODE "server.snapshot.create.error.online.uefi"

static bool server_has_disk(const struct fcr_netcup_server *s, const char *disk)
{
	for (size_t i = 0; i < s->n_disks; i++) {
		if (strcmp(s->disks[i].dev, disk) == 0)
			return true;
	}
	return false;
}

static void describe_server(const struct fcr_netcup_server *s, char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "server %ld (%s%s%s): ", s->id, s->name,
				       s->hostname[0] ? ", " : "", s->hostname);
	if (used >= len)
		return;
	if (!s->live_info) {
		snprintf(buf + used, len - used, "%d snapshot(s), no live info", s->snapshot_count);
		return;
	}
	used += (size_t)snprintf(buf + used, len - used, "%s, UEFI %s, %d snapshot(s), disks",
				 s->state, s->uefi ? "on" : "off", s->snapshot_count);
	for (size_t i = 0; i < s->n_disks && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s %s %lld MiB", i ? "," : "",
					 s->disks[i].dev, s->disks[i].capacity_mib);
	if (!s->n_disks && used < len)
		snprintf(buf + used, len - used, " unknown");
}

/* The checks that need nothing but the server object and the plan. */
static void check_plan(struct fcr_netcup *nc, const struct fcr_netcup_plan *plan,
		       const struct fcr_netcup_server *s, struct cm_strv *names,
		       struct fcr_netcup_findings *f)
{
	long id = nc->cfg.server_id;
	bool creates = false;
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct fcr_netcup_plan_step *st = &plan->steps[i];
		const char *name = st->name ? st->name : "";
		if (!name[0] || strlen(name) > 255) {
			fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "name",
					   "snapshot name \"%.40s\" must be 1 to 255 characters",
					   name);
			continue;
		}
		switch (st->kind) {
		case FCR_NETCUP_PLAN_SNAPSHOT:
			creates = true;
			if (cm_strv_has(names, name) && st->resumed) {
				fcr_netcup_finding(
				    f, FCR_NETCUP_INFO, "name-adopted",
				    "snapshot \"%s\" exists already; an earlier run of "
				    "this campaign started it, so it is taken as made",
				    name);
			} else if (cm_strv_has(names, name)) {
				fcr_netcup_finding(
				    f, FCR_NETCUP_PROBLEM, "name-taken",
				    "snapshot \"%s\" will exist already when the plan "
				    "creates it (on the server now or made earlier in "
				    "the plan): delete it in the SCP or choose another "
				    "name",
				    name);
			} else {
				cm_strv_add(names, name);
			}
			if (st->online && s->live_info && s->uefi)
				fcr_netcup_finding(
				    f, FCR_NETCUP_PROBLEM, UEFI_CODE,
				    "server %ld boots with UEFI, so the online snapshot \"%s\" "
				    "would be refused: the API answers 400 \"Online snapshot "
				    "creation is not possible if UEFI is activated.\"  Take it "
				    "offline instead: before = power-off; snapshot %s offline; "
				    "power-on; wait-ssh",
				    id, name, name);
			if (st->online && st->disk)
				fcr_netcup_finding(
				    f, FCR_NETCUP_PROBLEM,
				    "server.snapshot.create.error.online.diskselected",
				    "snapshot \"%s\": an online snapshot covers all disks; "
				    "drop \"disk %s\" or make it offline",
				    name, st->disk);
			if (st->disk && s->live_info && !server_has_disk(s, st->disk))
				fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "disk",
						   "snapshot \"%s\": server %ld has no disk \"%s\"",
						   name, id, st->disk);
			break;
		case FCR_NETCUP_PLAN_DELETE:
		case FCR_NETCUP_PLAN_REVERT:
			if (!cm_strv_has(names, name) && st->resumed &&
			    st->kind == FCR_NETCUP_PLAN_DELETE)
				continue; /* deleted before the run was cut short */
			if (!cm_strv_has(names, name))
				fcr_netcup_finding(
				    f, FCR_NETCUP_PROBLEM, "name-missing",
				    "the plan %s snapshot \"%s\", which will not exist "
				    "then (not on the server, not created earlier in the "
				    "plan)",
				    st->kind == FCR_NETCUP_PLAN_DELETE ? "deletes" : "reverts to",
				    name);
			else if (st->kind == FCR_NETCUP_PLAN_DELETE)
				cm_strv_del(names, name);
			break;
		}
	}
	if (creates && !s->snapshot_allowed)
		fcr_netcup_finding(
		    f, FCR_NETCUP_PROBLEM, "snapshot-not-allowed",
		    "server %ld does not allow snapshots (snapshotAllowed is false), "
		    "but the plan creates some",
		    id);
}

/* The API's dry-run, once per distinct (online, disk) the plan creates. */
static void dry_runs(struct fcr_netcup *nc, const struct fcr_netcup_plan *plan,
		     const struct fcr_netcup_server *s, struct fcr_netcup_findings *f)
{
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct fcr_netcup_plan_step *st = &plan->steps[i];
		if (st->kind != FCR_NETCUP_PLAN_SNAPSHOT)
			continue;
		/* Known already, and said with the offline sequence above. */
		if (st->online && s->live_info && s->uefi)
			continue;
		/* The spec: diskName "must be set if attribute onlineSnapshot is false". */
		const char *disk = st->disk;
		if (!st->online && !disk && s->n_disks)
			disk = s->disks[0].dev;
		bool asked = false;
		for (size_t k = 0; k < i; k++) {
			const struct fcr_netcup_plan_step *o = &plan->steps[k];
			const char *od = o->disk;
			if (!o->online && !od && s->n_disks)
				od = s->disks[0].dev;
			if (o->kind == FCR_NETCUP_PLAN_SNAPSHOT && o->online == st->online &&
			    !(o->online && s->live_info && s->uefi) &&
			    ((!od && !disk) || (od && disk && strcmp(od, disk) == 0)))
				asked = true;
		}
		if (asked)
			continue;
		bool possible;
		struct fcr_error e = {0};
		int rc = fcr_netcup_snapshot_dryrun(nc, st->online, disk, &possible, f, &e);
		if (rc < 0)
			fcr_netcup_finding(f, FCR_NETCUP_WARNING, "dry-run",
					   "the snapshot dry-run could not be asked: %s", e.msg);
		else if (possible)
			fcr_netcup_finding(f, FCR_NETCUP_INFO, "dry-run",
					   "the API's dry-run accepts an %s snapshot%s%s",
					   st->online ? "online" : "offline",
					   disk ? " of disk " : "", disk ? disk : "");
	}
}

int fcr_netcup_preflight(struct fcr_netcup *nc, const struct fcr_netcup_plan *plan,
			 struct fcr_netcup_findings *f, struct fcr_netcup_server *server,
			 struct fcr_error *err)
{
	struct fcr_error e = {0};
	struct fcr_netcup_server s;
	char desc[768];
	long id = nc->cfg.server_id;

	if (fcr_netcup_access_token(nc, false, &e) < 0) {
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "token", "%s", e.msg);
		goto done;
	}
	fcr_netcup_finding(f, FCR_NETCUP_INFO, "token", "the refresh token works");
	int rc = fcr_netcup_get_server(nc, &s, &e);
	if (rc == FCR_E_NOT_FOUND) {
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "server",
				   "server %ld is not found in this account (%s): check server-id, "
				   "the number the SCP shows for the server",
				   id, e.msg);
		goto done;
	}
	if (rc < 0) {
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "server", "%s", e.msg);
		goto done;
	}
	if (server)
		*server = s;
	describe_server(&s, desc, sizeof(desc));
	fcr_netcup_finding(f, FCR_NETCUP_INFO, "server", "%s", desc);
	if (s.disabled)
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "server-disabled",
				   "server %ld is disabled", id);
	if (!s.live_info)
		fcr_netcup_finding(f, FCR_NETCUP_WARNING, "live-info",
				   "the API gave no live info for server %ld: its state, UEFI and "
				   "disks are unknown",
				   id);
	if (s.live_info && strcmp(s.state, "RUNNING") != 0)
		fcr_netcup_finding(
		    f, FCR_NETCUP_WARNING, "state",
		    "server %ld is %s, not RUNNING: fio cannot run on it until it is "
		    "powered on",
		    id, s.state);
	if (plan->n_steps == 0)
		goto done;

	struct fcr_netcup_snapshot_list list;
	if (fcr_netcup_list_snapshots(nc, &list, &e) < 0) {
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, "snapshots", "%s", e.msg);
		goto done;
	}
	/* the snapshot names as the plan would leave them, step by step */
	struct cm_strv names = {0};
	for (size_t i = 0; i < list.n; i++)
		cm_strv_add(&names, list.items[i].name);
	check_plan(nc, plan, &s, &names, f);
	if (!plan->skip_dry_run)
		dry_runs(nc, plan, &s, f);
	cm_strv_release(&names);
	fcr_netcup_snapshot_list_free(&list);
done:
	if (f->n_problems)
		return fcr_fail_as(err, FCR_E_PREFLIGHT, "the netcup preflight found %zu problem%s",
				   f->n_problems, f->n_problems == 1 ? "" : "s");
	return 0;
}
