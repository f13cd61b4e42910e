/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox provider's action table: power-off, power-on, reboot,
 * snapshot, delete-snapshot, revert, backup and restore as rows of the kind
 * every action has (action.h), with their argument checks and the API calls
 * --dry-run lists.  What they do is perform.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/campaign.h"
#include "proxmox/actions.h"

/* ---- arguments ---------------------------------------------------------------------- */

/* pve-snapshot-name: [A-Za-z][A-Za-z0-9_-]+, at most 40 (JSONSchema.pm). */
static int check_snapshot_name(const char *name, struct fcr_error *err)
{
	size_t n = strlen(name);
	if (n < 2 || n > FCR_PXP_SNAPSHOT_NAME_MAX || !isalpha((unsigned char)name[0]))
		return fcr_fail(err,
				"snapshot name '%s': 2 to %d characters, the first a letter "
				"(Proxmox's rule)",
				name, FCR_PXP_SNAPSHOT_NAME_MAX);
	for (const char *p = name; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			return fcr_fail(err,
					"snapshot name '%s': letters, digits, '_' and '-' only "
					"(no '.': Proxmox's rule)",
					name);
	}
	if (!strcmp(name, "current") || !strcasecmp(name, "pending") || !strcmp(name, "vzdump"))
		return fcr_fail(err, "snapshot name '%s' is reserved by Proxmox", name);
	if (!strcmp(name, "all-created"))
		return fcr_fail(err, "'all-created' is no snapshot name: delete-snapshot "
				     "all-created means every snapshot this campaign made");
	return 0;
}

/* A storage id as pve-storage-id has it. */
static bool storage_ok(const char *s)
{
	size_t n = strlen(s);
	if (n < 2 || n > 64 || !isalpha((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1]))
		return false;
	for (const char *p = s; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("-_.", *p))
			return false;
	}
	return true;
}

static bool one_of(const char *v, const char *const *set)
{
	for (; *set; set++) {
		if (!strcmp(v, *set))
			return true;
	}
	return false;
}

static int fcr_pxp_backup_args(int argc, char *const *argv, struct fcr_pxp_backup *out,
			       struct fcr_error *err)
{
	static const char *const modes[] = {"snapshot", "suspend", "stop", NULL};
	static const char *const compressors[] = {"zstd", "lzo", "gzip", "none", NULL};
	*out = (struct fcr_pxp_backup){FCR_PXP_DEFAULT_BACKUP_STORAGE, "snapshot", "zstd"};
	bool seen[3] = {false, false, false};
	for (int i = 0; i < argc; i += 2) {
		static const char *const keys[] = {"storage", "mode", "compress", NULL};
		int k = -1;
		for (int j = 0; keys[j]; j++) {
			if (!strcmp(argv[i], keys[j]))
				k = j;
		}
		if (k < 0 || i + 1 >= argc || seen[k])
			return fcr_fail(
			    err,
			    "unexpected '%s' (usage: backup [storage S] [mode "
			    "snapshot|suspend|stop] [compress zstd|lzo|gzip|none], each "
			    "once)",
			    argv[i]);
		seen[k] = true;
		const char *v = argv[i + 1];
		if (k == 0 && !storage_ok(v))
			return fcr_fail(err, "'%s' is not a Proxmox storage id", v);
		if (k == 1 && !one_of(v, modes))
			return fcr_fail(err, "mode '%s': snapshot, suspend or stop", v);
		if (k == 2 && !one_of(v, compressors))
			return fcr_fail(err, "compress '%s': zstd, lzo, gzip or none", v);
		if (k == 0)
			out->storage = v;
		else if (k == 1)
			out->mode = v;
		else
			out->compress = v;
	}
	return 0;
}

static int fcr_pxp_restore_args(int argc, char *const *argv, struct fcr_pxp_restore *out,
				struct fcr_error *err)
{
	*out = (struct fcr_pxp_restore){argv[0], NULL};
	const char *colon = strchr(argv[0], ':');
	if (strcmp(argv[0], "last-backup") && (!colon || colon == argv[0] || !colon[1])) {
		return fcr_fail(err,
				"'%s' is neither last-backup nor a backup's volume id "
				"(STORAGE:backup/vzdump-qemu-...)",
				argv[0]);
	}
	if (colon) {
		char *st = cm_strndup(argv[0], (size_t)(colon - argv[0]));
		bool ok = storage_ok(st);
		free(st);
		if (!ok)
			return fcr_fail(err, "'%s': no Proxmox storage id before the ':'", argv[0]);
	}
	if (argc == 1)
		return 0;
	if (argc != 3 || strcmp(argv[1], "storage"))
		return fcr_fail(
		    err, "unexpected '%s' (usage: restore last-backup|VOLID [storage S])", argv[1]);
	if (!storage_ok(argv[2]))
		return fcr_fail(err, "'%s' is not a Proxmox storage id", argv[2]);
	out->storage = argv[2];
	return 0;
}

/* ---- describing the API calls (--dry-run) ----------------------------------------- */

static void describe_guest(const struct fcr_pxp *p, struct cm_buf *b)
{
	cm_buf_printf(b,
		      "GET /nodes/%s/qemu/%ld/status/current: its state and lock; its name must "
		      "be '%s'\n",
		      p->node, p->cfg.vmid, p->vm_name);
}

static void describe_write(const struct fcr_pxp *p, struct cm_buf *b, const char *method,
			   const char *path, const char *form, const char *type, bool whole_log)
{
	char poll[32], limit[32];
	cm_format_duration(poll, sizeof(poll), p->cfg.poll_interval_ms);
	cm_format_duration(limit, sizeof(limit), p->cfg.task_timeout_ms);
	cm_buf_printf(b,
		      "GET /nodes/%s/tasks?vmid=%ld&typefilter=%s&source=all&limit=50: the task "
		      "ids before the write (journaled)\n",
		      p->node, p->cfg.vmid, type);
	cm_buf_printf(b, "%s %s%s%s -> UPID (%s)\n", method, path, form && form[0] ? " " : "",
		      form ? form : "", type);
	cm_buf_printf(b,
		      "GET /nodes/{node}/tasks/{upid}/status every %s until stopped (OK or "
		      "WARNINGS: n; at most %s)\n",
		      poll, limit);
	cm_buf_printf(b,
		      "GET /nodes/{node}/tasks?vmid=%ld&typefilter=%s&source=archive&since="
		      "{starttime}&limit=50: its endtime\n",
		      p->cfg.vmid, type);
	if (whole_log)
		cm_buf_printf(b, "GET /nodes/{node}/tasks/{upid}/log?start=0&limit=500 (and on): "
				 "the whole log\n");
}

static void describe_power(const struct fcr_pxp *p, struct cm_buf *b, const char *what,
			   const char *type, const char *role)
{
	char *path = cm_asprintf("/nodes/%s/qemu/%ld/status/%s", p->node, p->cfg.vmid, what);
	if (role)
		cm_buf_printf(b, "%s:\n", role);
	describe_write(p, b, "POST", path, "", type, false);
	cm_buf_printf(b, "GET /nodes/%s/qemu/%ld/status/current: it is %s\n", p->node, p->cfg.vmid,
		      !strcmp(what, "start") ? "running" : "stopped");
	free(path);
}

/* ---- the rows --------------------------------------------------------------------- */

typedef int (*pxp_perform)(struct fcr_pxp_op *o, const struct fcr_step *step);

static int perform_op(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
		      struct fcr_error *err, pxp_perform fn)
{
	struct fcr_pxp *p = ctx->provider;
	if (!p || !p->pve)
		return fcr_fail(err, "proxmox: not connected");
	struct fcr_error e = {0};
	struct fcr_pxp_op o;
	fcr_pxp_op_begin(&o, p, ctx, step, result, &e);
	p->base.current = step->text;
	int rc = fn(&o, step);
	fcr_pxp_op_end(&o);
	p->base.current = NULL;
	if (rc == 0)
		return 0;
	if (rc == FCR_E_STOPPED)
		return fcr_fail_as(err, rc, "stopped (Ctrl-C) while waiting for the node: %s",
				   e.msg);
	return fcr_fail_as(err, rc, "%s", e.msg[0] ? e.msg : fcr_status_text(rc));
}

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
	const struct fcr_pxp *p = ctx->provider;
	describe_guest(p, out);
	cm_buf_printf(out, "nothing more when it is stopped already\n");
	if (step->words.n == 2)
		describe_power(p, out, "stop", "qmstop", NULL);
	else
		describe_power(p, out, "shutdown", "qmshutdown", NULL);
}

static int do_power_off(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_power_off(o, step->words.n == 2);
}

static int power_off_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     json_t *result, struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_power_off);
}

/* power-on */
static void power_on_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      struct cm_buf *out)
{
	(void)step;
	describe_guest(ctx->provider, out);
	cm_buf_printf(out, "nothing more when it is running already\n");
	describe_power(ctx->provider, out, "start", "qmstart", NULL);
}

static int do_power_on(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	(void)step;
	return fcr_pxp_power_on(o);
}

static int power_on_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			    struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_power_on);
}

/* reboot */
static void reboot_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	(void)step;
	const struct fcr_pxp *p = ctx->provider;
	describe_guest(p, out);
	char *path = cm_asprintf("/nodes/%s/qemu/%ld/status/reboot", p->node, p->cfg.vmid);
	describe_write(p, out, "POST", path, "", "qmreboot", false);
	free(path);
	char poll[32];
	cm_format_duration(poll, sizeof(poll), p->cfg.poll_interval_ms);
	cm_buf_printf(out,
		      "GET /nodes/%s/qemu/%ld/status/current every %s until it runs again "
		      "(qmeventd starts it; after 60s we do)\n",
		      p->node, p->cfg.vmid, poll);
	cm_buf_printf(out, "(a stopped guest is only started)\n");
}

static int do_reboot(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	(void)step;
	return fcr_pxp_reboot(o);
}

static int reboot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_reboot);
}

/* snapshot NAME [vmstate] */
static int snapshot_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			  struct fcr_error *err)
{
	(void)cx;
	if (check_snapshot_name(step->words.v[1], err) < 0)
		return fcr_step_check_failed(step, err);
	if (step->words.n == 3 && strcmp(step->words.v[2], "vmstate")) {
		fcr_fail(err, "unexpected '%s' (usage: snapshot NAME [vmstate])", step->words.v[2]);
		return fcr_step_check_failed(step, err);
	}
	return 0;
}

static void snapshot_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      struct cm_buf *out)
{
	struct fcr_pxp *p = ctx->provider;
	const char *name = step->words.v[1];
	bool vmstate = step->words.n == 3;
	describe_guest(p, out);
	char *path = cm_asprintf("/nodes/%s/qemu/%ld/snapshot", p->node, p->cfg.vmid);
	char *form =
	    cm_asprintf("snapname=%s&description=fiocamp%s", name, vmstate ? "&vmstate=1" : "");
	describe_write(p, out, "POST", path, form, "qmsnapshot", false);
	cm_buf_printf(out, "GET %s: it is there, and whether it holds RAM state\n", path);
	free(path);
	free(form);
	cm_strv_add_once(&p->made.dry, name);
}

static int do_snapshot(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_snapshot(o, step->words.v[1], step->words.n == 3);
}

static int snapshot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			    struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_snapshot);
}

/* delete-snapshot NAME|all-created */
static int delete_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	(void)cx;
	if (strcmp(step->words.v[1], "all-created") &&
	    check_snapshot_name(step->words.v[1], err) < 0)
		return fcr_step_check_failed(step, err);
	return 0;
}

static void delete_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	struct fcr_pxp *p = ctx->provider;
	const char *what = step->words.v[1];
	struct cm_strv names = {0};
	describe_guest(p, out);
	if (!strcmp(what, "all-created")) {
		for (size_t i = 0; i < p->made.dry.n; i++)
			cm_strv_add(&names, p->made.dry.v[i]);
		cm_buf_printf(out,
			      "the snapshots this campaign made: %zu in the plan (and any an "
			      "earlier session made)\n",
			      names.n);
		cm_strv_release(&p->made.dry);
	} else {
		cm_strv_add(&names, what);
		cm_strv_del(&p->made.dry, what);
	}
	cm_buf_printf(out, "GET /nodes/%s/qemu/%ld/snapshot: one that is gone counts as deleted\n",
		      p->node, p->cfg.vmid);
	for (size_t i = 0; i < names.n; i++) {
		char *path =
		    cm_asprintf("/nodes/%s/qemu/%ld/snapshot/%s", p->node, p->cfg.vmid, names.v[i]);
		describe_write(p, out, "DELETE", path, NULL, "qmdelsnapshot", false);
		free(path);
	}
	cm_strv_release(&names);
}

static int do_delete(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_delete_snapshot(o, step->words.v[1]);
}

static int delete_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_delete);
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
	const struct fcr_pxp *p = ctx->provider;
	describe_guest(p, out);
	cm_buf_printf(out,
		      "GET /nodes/%s/qemu/%ld/snapshot: it exists; whether it holds RAM "
		      "state\n",
		      p->node, p->cfg.vmid);
	char *path = cm_asprintf("/nodes/%s/qemu/%ld/snapshot/%s/rollback", p->node, p->cfg.vmid,
				 step->words.v[1]);
	describe_write(p, out, "POST", path, "start=0", "qmrollback", false);
	free(path);
	cm_buf_printf(out,
		      "GET /nodes/%s/qemu/%ld/status/current: running when the snapshot "
		      "held RAM state (started inside the rollback task)\n",
		      p->node, p->cfg.vmid);
	describe_power(p, out, "start", "qmstart",
		       "else Proxmox leaves the guest stopped: the start, timed apart");
}

static int do_revert(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_revert(o, step->words.v[1]);
}

static int revert_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_revert);
}

/* backup [storage S] [mode M] [compress C] */
static int backup_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	(void)cx;
	struct fcr_pxp_backup *b = cm_calloc(1, sizeof(*b));
	if (fcr_pxp_backup_args((int)step->words.n - 1, step->words.v + 1, b, err) < 0) {
		free(b);
		return fcr_step_check_failed(step, err);
	}
	step->args = b;
	/* stop shuts the guest down, suspend pauses it; vzdump brings it back */
	if (strcmp(b->mode, "snapshot")) {
		step->takes_down = true;
		step->brings_up = true;
	}
	return 0;
}

static void backup_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	struct fcr_pxp *p = ctx->provider;
	struct fcr_pxp_backup b = *(const struct fcr_pxp_backup *)step->args;
	describe_guest(p, out);
	char *list = cm_asprintf("GET /nodes/%s/storage/%s/content?content=backup&vmid=%ld",
				 p->node, b.storage, p->cfg.vmid);
	cm_buf_printf(out, "%s: the backups there before\n", list);
	char *path = cm_asprintf("/nodes/%s/vzdump", p->node);
	char *form = cm_asprintf("vmid=%ld&storage=%s&mode=%s&compress=%s&remove=0", p->cfg.vmid,
				 b.storage, b.mode, strcmp(b.compress, "none") ? b.compress : "0");
	describe_write(p, out, "POST", path, form, "vzdump", true);
	cm_buf_printf(out, "%s: the archive the log names (its volid and size)\n", list);
	if (strcmp(b.mode, "snapshot"))
		cm_buf_printf(out, "(mode %s: the guest goes away and vzdump brings it back)\n",
			      b.mode);
	free(list);
	free(path);
	free(form);
	p->dry_backup = true;
}

static int do_backup(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_backup(o, step->args);
}

static int backup_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_backup);
}

/* restore last-backup|VOLID [storage S] */

/* Whether a backup comes before step `index` of state cx->state. */
static bool backup_before(const struct fcr_check_ctx *cx)
{
	const struct fcr_campaign *c = cx->c;
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		size_t end = st == cx->state ? cx->index : st->n_actions;
		for (size_t ai = 0; ai < end; ai++) {
			if (st->actions[ai].def && st->actions[ai].def->perform == backup_perform)
				return true;
		}
		if (st == cx->state)
			break;
	}
	return false;
}

static int restore_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			 struct fcr_error *err)
{
	struct fcr_pxp_restore *args = cm_calloc(1, sizeof(*args));
	if (fcr_pxp_restore_args((int)step->words.n - 1, step->words.v + 1, args, err) < 0) {
		free(args);
		return fcr_step_check_failed(step, err);
	}
	step->args = args;
	const struct fcr_pxp_restore r = *args;
	bool allowed = false;
	for (size_t i = 0; i < cx->c->n_provider_keys; i++) {
		const struct fcr_provider_key *k = &cx->c->provider_keys[i];
		if (!strcmp(k->key, "allow-destroy"))
			allowed = !strcmp(k->value, "yes");
	}
	if (!allowed) {
		fcr_fail(err, "a restore replaces the guest's disks and removes all its snapshots: "
			      "it needs allow-destroy = yes in [provider]");
		return fcr_step_check_failed(step, err);
	}
	if (!strcmp(r.archive, "last-backup") && !backup_before(cx)) {
		fcr_fail(err, "no 'backup' before it in the campaign to restore");
		return fcr_step_check_failed(step, err);
	}
	return 0;
}

static void restore_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     struct cm_buf *out)
{
	struct fcr_pxp *p = ctx->provider;
	struct fcr_pxp_restore r = *(const struct fcr_pxp_restore *)step->args;
	const char *arc = strcmp(r.archive, "last-backup") ? r.archive
			  : p->dry_backup		   ? "{the archive of the last backup}"
							   : "{no backup yet: it fails}";
	describe_guest(p, out);
	cm_buf_printf(out, "GET /nodes/%s/qemu/%ld/snapshot: the snapshots it will remove\n",
		      p->node, p->cfg.vmid);
	describe_power(p, out, "stop", "qmstop", "when it runs, a hard stop");
	char *path = cm_asprintf("/nodes/%s/qemu", p->node);
	char *form = cm_asprintf("vmid=%ld&archive=%s&force=1%s%s", p->cfg.vmid, arc,
				 r.storage ? "&storage=" : "", r.storage ? r.storage : "");
	describe_write(p, out, "POST", path, form, "qmrestore", false);
	free(path);
	free(form);
	cm_buf_printf(out,
		      "GET /nodes/%s/qemu/%ld/snapshot: none left; the campaign's snapshots are "
		      "forgotten\n",
		      p->node, p->cfg.vmid);
	describe_power(p, out, "start", "qmstart", "the start, timed apart");
	cm_strv_release(&p->made.dry);
}

static int do_restore(struct fcr_pxp_op *o, const struct fcr_step *step)
{
	return fcr_pxp_restore(o, step->args);
}

static int restore_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err)
{
	return perform_op(ctx, step, result, err, do_restore);
}

const struct fcr_action fcr_pxp_actions[] = {
    {
	.name = "power-off",
	.min_args = 0,
	.max_args = 1,
	.usage = "power-off [hard]",
	.doc = "An ACPI shutdown (`qmshutdown`, Proxmox's timeout of 60 s), or with `hard` a "
	       "stop (`qmstop`); nothing when the guest is stopped already.",
	.takes_down = true,
	.check = power_off_check,
	.describe = power_off_describe,
	.perform = power_off_perform,
    },
    {
	.name = "power-on",
	.min_args = 0,
	.max_args = 0,
	.usage = "power-on",
	.doc = "Starts the guest (`qmstart`); nothing when it runs already.",
	.brings_up = true,
	.describe = power_on_describe,
	.perform = power_on_perform,
    },
    {
	.name = "reboot",
	.min_args = 0,
	.max_args = 0,
	.usage = "reboot",
	.doc = "A reboot (`qmreboot`, the shutdown half), then until the guest runs again "
	       "(qmeventd starts it). A stopped guest is only started.",
	.takes_down = true,
	.brings_up = true,
	.describe = reboot_describe,
	.perform = reboot_perform,
    },
    {
	.name = "snapshot",
	.min_args = 1,
	.max_args = 2,
	.usage = "snapshot NAME [vmstate]",
	.doc = "Takes a snapshot (`qmsnapshot`); with `vmstate` of the RAM too, which Proxmox "
	       "saves only while the guest runs. Names: 2 to 40 of A-Z, a-z, 0-9, '_', '-', "
	       "the first a letter.",
	.check = snapshot_check,
	.describe = snapshot_describe,
	.perform = snapshot_perform,
    },
    {
	.name = "delete-snapshot",
	.min_args = 1,
	.max_args = 1,
	.usage = "delete-snapshot NAME|all-created",
	.doc = "Deletes one snapshot (`qmdelsnapshot`), or every snapshot this campaign made and "
	       "no restore removed since (also in sessions before a `--resume`). A snapshot "
	       "that is gone already counts as deleted.",
	.check = delete_check,
	.describe = delete_describe,
	.perform = delete_perform,
    },
    {
	.name = "revert",
	.min_args = 1,
	.max_args = 1,
	.usage = "revert NAME",
	.doc = "Rolls the guest back to a snapshot (`qmrollback`; a running guest is stopped "
	       "inside it). Proxmox leaves the guest stopped unless the snapshot holds RAM "
	       "state, which the rollback task resumes; a guest left stopped is started in a "
	       "task of its own (`qmstart`), timed apart from the rollback.",
	.takes_down = true,
	.brings_up = true,
	.check = revert_check,
	.describe = revert_describe,
	.perform = revert_perform,
    },
    {
	.name = "backup",
	.min_args = 0,
	.max_args = 6,
	.usage = "backup [storage S] [mode snapshot|suspend|stop] [compress zstd|lzo|gzip|none]",
	.doc = "A vzdump backup (default: storage local, mode snapshot, zstd), never pruning "
	       "older ones; records the archive's volid and size and, from the log, what was "
	       "transferred in how many seconds. Modes stop and suspend take the guest away; "
	       "vzdump brings it back.",
	.check = backup_check,
	.describe = backup_describe,
	.perform = backup_perform,
    },
    {
	.name = "restore",
	.min_args = 1,
	.max_args = 3,
	.usage = "restore last-backup|VOLID [storage S]",
	.doc = "Restores a backup over the guest (`qmrestore` with force=1): the archive of "
	       "this campaign's latest `backup`, or a volume id; its disks on storage S, else "
	       "where they were. A running guest is stopped first; afterwards it has no "
	       "snapshots; then it is started (`qmstart`), timed apart. Needs `allow-destroy = "
	       "yes`.",
	.takes_down = true,
	.brings_up = true,
	.check = restore_check,
	.describe = restore_describe,
	.perform = restore_perform,
    },
    {.name = NULL},
};
