/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider's action table: power-off, power-on, reboot,
 * snapshot, delete-snapshot and revert as rows of the kind every action has
 * (action.h), their arguments checked and parsed, their plans described;
 * what they do is perform.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "netcup/ncp.h"

#define MAX_SNAPSHOT_NAME 255

/* Snapshot names: what the API takes in a path without surprises. */
static int check_snapshot_name(const char *name, struct fcr_error *err)
{
	size_t n = strlen(name);
	if (n == 0 || n > MAX_SNAPSHOT_NAME)
		return fcr_fail(err, "a snapshot name has 1 to %d characters", MAX_SNAPSHOT_NAME);
	if (!cm_campaign_name_ok(name))
		return fcr_fail(
		    err, "snapshot name '%s': use letters, digits, '.', '_' and '-' only", name);
	if (!strcmp(name, "all-created"))
		return fcr_fail(err, "'all-created' is no snapshot name: delete-snapshot "
				     "all-created means every snapshot this campaign made");
	return 0;
}

static bool disk_name_ok(const char *disk)
{
	size_t n = strlen(disk);
	if (n == 0 || n > 31)
		return false;
	for (const char *p = disk; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	}
	return true;
}

/* snapshot NAME [online|offline] [disk DISK], in any order after NAME.
 * Offline by default: it works with UEFI too (see docs/netcup.md). */
static int fcr_ncp_snapshot_args(int argc, char *const *argv, struct fcr_ncp_snapshot *out,
				 struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	out->name = argv[0];
	if (check_snapshot_name(argv[0], err) < 0)
		return -1;
	bool mode_given = false;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "online") || !strcmp(w, "offline")) {
			if (mode_given)
				return fcr_fail(err, "online or offline, once");
			mode_given = true;
			out->online = !strcmp(w, "online");
		} else if (!strcmp(w, "disk")) {
			if (out->disk || i + 1 >= argc)
				return fcr_fail(err, "'disk' wants one disk name, once (disk vda)");
			out->disk = argv[++i];
			if (!disk_name_ok(out->disk))
				return fcr_fail(err, "bad disk name '%s' (like vda)", out->disk);
		} else {
			return fcr_fail(err,
					"unexpected '%s' (usage: snapshot NAME [online|offline] "
					"[disk DISK])",
					w);
		}
	}
	if (out->online && out->disk)
		return fcr_fail(err,
				"an online snapshot covers all disks (the API refuses diskName "
				"with it): drop 'disk %s' or make it offline",
				out->disk);
	return 0;
}

static void describe_poll(const struct fcr_ncp *p, struct cm_buf *b, const char *until)
{
	char poll[32], limit[32];
	cm_format_duration(poll, sizeof(poll), p->cfg.poll_interval_ms);
	cm_format_duration(limit, sizeof(limit), p->cfg.task_timeout_ms);
	cm_buf_printf(b,
		      "GET /api/v1/tasks/{uuid} every %s until FINISHED (ERROR, CANCELED, "
		      "ROLLBACK: the action fails; at most %s)\n",
		      poll, limit);
	if (until)
		cm_buf_printf(b, "GET /api/v1/servers/%ld every %s until %s\n", p->cfg.server_id,
			      poll, until);
}

static void describe_power(const struct fcr_ncp *p, struct cm_buf *b, bool on, bool hard)
{
	long id = p->cfg.server_id;
	cm_buf_printf(b, "GET /api/v1/servers/%ld: nothing more when it is %s already\n", id,
		      on ? "RUNNING" : "SHUTOFF");
	if (on)
		cm_buf_printf(b, "PATCH /api/v1/servers/%ld {\"state\":\"ON\"} -> 202 + task\n",
			      id);
	else if (hard)
		cm_buf_printf(b,
			      "PATCH /api/v1/servers/%ld?stateOption=POWEROFF {\"state\":\"OFF\"} "
			      "(hard power-off) -> 202 + task\n",
			      id);
	else
		cm_buf_printf(
		    b,
		    "PATCH /api/v1/servers/%ld {\"state\":\"OFF\"} (ACPI shutdown) -> 202 + "
		    "task\n",
		    id);
	describe_poll(p, b, on ? "RUNNING" : "SHUTOFF");
}

/* ---- the rows ---------------------------------------------------------------- */

/* power-off [hard] */
static int power_off_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			   struct fcr_error *err)
{
	(void)cx;
	if (step->words.n == 2 && strcmp(step->words.v[1], "hard")) {
		fcr_fail(err, "unexpected '%s' (usage: power-off [hard])", step->words.v[1]);
		return fcr_step_check_failed(step, err);
	}
	return 0;
}

static void power_off_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			       struct cm_buf *out)
{
	describe_power(ctx->provider, out, false, step->words.n == 2);
}

/* power-on */
static void power_on_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      struct cm_buf *out)
{
	(void)step;
	describe_power(ctx->provider, out, true, false);
}

/* reboot */
static void reboot_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	(void)step;
	const struct fcr_ncp *p = ctx->provider;
	cm_buf_printf(out, "a graceful reboot: the power-off, then the power-on (two tasks)\n");
	describe_power(p, out, false, false);
	cm_buf_printf(out, "PATCH /api/v1/servers/%ld {\"state\":\"ON\"} -> 202 + task\n",
		      p->cfg.server_id);
	describe_poll(p, out, "RUNNING");
}

/* snapshot NAME [online|offline] [disk DISK] */
static int snapshot_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			  struct fcr_error *err)
{
	(void)cx;
	struct fcr_ncp_snapshot *a = cm_calloc(1, sizeof(*a));
	if (fcr_ncp_snapshot_args((int)step->words.n - 1, step->words.v + 1, a, err) < 0) {
		free(a);
		return fcr_step_check_failed(step, err);
	}
	step->args = a;
	return 0;
}

static void snapshot_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      struct cm_buf *out)
{
	struct fcr_ncp *p = ctx->provider;
	struct fcr_ncp_snapshot a = *(const struct fcr_ncp_snapshot *)step->args;
	cm_buf_printf(out,
		      "POST /api/v1/servers/%ld/snapshots "
		      "{\"name\":\"%s\",\"onlineSnapshot\":%s%s%s%s"
		      ",\"description\":\"fiocamp\"} -> 202 + task\n",
		      p->cfg.server_id, a.name, a.online ? "true" : "false",
		      a.disk ? ",\"diskName\":\"" : "", a.disk ? a.disk : "", a.disk ? "\"" : "");
	describe_poll(p, out, NULL);
	if (!a.online)
		cm_buf_printf(out, "(offline: take it with the server powered off)\n");
	cm_strv_add_once(&p->made.dry, a.name);
}

/* delete-snapshot NAME|all-created */
static int delete_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	(void)cx;
	if (!strcmp(step->words.v[1], "all-created"))
		return 0;
	if (check_snapshot_name(step->words.v[1], err) < 0)
		return fcr_step_check_failed(step, err);
	return 0;
}

static void delete_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	struct fcr_ncp *p = ctx->provider;
	const char *what = step->words.v[1];
	struct cm_strv names = {0};
	if (!strcmp(what, "all-created")) {
		for (size_t i = 0; i < p->made.dry.n; i++)
			cm_strv_add(&names, p->made.dry.v[i]);
		if (!names.n)
			cm_buf_printf(out, "no snapshot is made before this: nothing to delete "
					   "(besides any an earlier run made)\n");
		else
			cm_buf_printf(out, "the snapshots this campaign made (%zu in the plan)\n",
				      names.n);
		cm_strv_release(&p->made.dry);
	} else {
		cm_strv_add(&names, what);
		cm_strv_del(&p->made.dry, what);
	}
	for (size_t i = 0; i < names.n; i++) {
		cm_buf_printf(out,
			      "DELETE /api/v1/servers/%ld/snapshots/%s -> 202 + task (404: gone "
			      "already, counts as deleted)\n",
			      p->cfg.server_id, names.v[i]);
		describe_poll(p, out, NULL);
	}
	cm_strv_release(&names);
}

/* revert NAME */
static int revert_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	(void)cx;
	if (check_snapshot_name(step->words.v[1], err) < 0)
		return fcr_step_check_failed(step, err);
	return 0;
}

static void revert_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	const struct fcr_ncp *p = ctx->provider;
	cm_buf_printf(out,
		      "POST /api/v1/servers/%ld/snapshots/%s/revert (empty body) -> 202 + task: "
		      "netcup powers the server off, reverts the disk and starts it\n",
		      p->cfg.server_id, step->words.v[1]);
	describe_poll(p, out, "RUNNING");
}

const struct fcr_action fcr_ncp_actions[] = {
    {
	.name = "power-off",
	.min_args = 0,
	.max_args = 1,
	.usage = "power-off [hard]",
	.doc = "ACPI shutdown, or with `hard` a hard power-off; waits until the server is "
	       "SHUTOFF.",
	.takes_down = true,
	.check = power_off_check,
	.describe = power_off_describe,
	.perform = fcr_ncp_power_off_perform,
    },
    {
	.name = "power-on",
	.min_args = 0,
	.max_args = 0,
	.usage = "power-on",
	.doc = "Starts the server; waits until it is RUNNING.",
	.brings_up = true,
	.describe = power_on_describe,
	.perform = fcr_ncp_power_on_perform,
    },
    {
	.name = "reboot",
	.min_args = 0,
	.max_args = 0,
	.usage = "reboot",
	.doc = "A graceful reboot: the ACPI shutdown, then the start (two API tasks).",
	.takes_down = true,
	.brings_up = true,
	.describe = reboot_describe,
	.perform = fcr_ncp_reboot_perform,
    },
    {
	.name = "snapshot",
	.min_args = 1,
	.max_args = 4,
	.usage = "snapshot NAME [online|offline] [disk DISK]",
	.doc = "Takes a snapshot, offline unless `online`: an offline one with the server "
	       "powered off (put `power-off` before it), an online one of all disks (not "
	       "possible with UEFI). Names: 1 to 255 of A-Z, a-z, 0-9, '.', '_', '-'.",
	.check = snapshot_check,
	.describe = snapshot_describe,
	.perform = fcr_ncp_snapshot_perform,
    },
    {
	.name = "delete-snapshot",
	.min_args = 1,
	.max_args = 1,
	.usage = "delete-snapshot NAME|all-created",
	.doc = "Deletes one snapshot, or every snapshot this campaign made (also in sessions "
	       "before a `--resume`). A snapshot that is gone already counts as deleted.",
	.check = delete_check,
	.describe = delete_describe,
	.perform = fcr_ncp_delete_snapshot_perform,
    },
    {
	.name = "revert",
	.min_args = 1,
	.max_args = 1,
	.usage = "revert NAME",
	.doc = "Reverts the server to a snapshot; netcup powers it off and on by itself.",
	.takes_down = true,
	.brings_up = true,
	.check = revert_check,
	.describe = revert_describe,
	.perform = fcr_ncp_revert_perform,
    },
    {.name = NULL},
};
