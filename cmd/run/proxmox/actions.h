/* SPDX-License-Identifier: MIT */
/*
 * Between the Proxmox provider's rows (actions.c: arguments, checks,
 * --dry-run) and what they do (perform.c).
 */
#ifndef FCR_PROXMOX_ACTIONS_H
#define FCR_PROXMOX_ACTIONS_H

#include "action.h"
#include "proxmox/pxp.h"

/* One action being performed: its result and every task it saw. */
struct fcr_pxp_op {
	struct fcr_pxp *p;
	struct fcr_action_ctx *ctx;
	const struct fcr_step *step;
	json_t *result;
	json_t *tasks; /* fcr_pve_task_json objects, in the order they ran */
	struct fcr_error *e;
	char *key; /* of the step in p->adopt */
	unsigned retries, lock_retries;
	bool recovered;
	/* an earlier session began the step: its tasks lead `tasks`, each
	 * "earlier": true, and a sub-step takes one over ("adopted": true) only
	 * when it is of its role and type and ended well */
	bool resumed;
	bool adopted; /* one was taken over */
};

/* Begins and ends an action (ctx and step NULL: the safety layer's
 * power-on); the end puts task, tasks, node and vmid into the result. */
void fcr_pxp_op_begin(struct fcr_pxp_op *o, struct fcr_pxp *p, struct fcr_action_ctx *ctx,
		      const struct fcr_step *step, json_t *result, struct fcr_error *e);
void fcr_pxp_op_end(struct fcr_pxp_op *o);

/* A snapshot wanted there (present) or gone. */
struct fcr_pxp_snap_want {
	const char *name;
	bool present;
};

int fcr_pxp_power_off(struct fcr_pxp_op *o, bool hard);
int fcr_pxp_power_on(struct fcr_pxp_op *o);
int fcr_pxp_reboot(struct fcr_pxp_op *o);
/* POST .../status/start, its task in the role given. */
int fcr_pxp_start(struct fcr_pxp_op *o, const char *role);
int fcr_pxp_snapshot(struct fcr_pxp_op *o, const char *name, bool vmstate);
int fcr_pxp_delete_snapshot(struct fcr_pxp_op *o, const char *what);
int fcr_pxp_revert(struct fcr_pxp_op *o, const char *name);
int fcr_pxp_backup(struct fcr_pxp_op *o, const struct fcr_pxp_backup *b);
int fcr_pxp_restore(struct fcr_pxp_op *o, const struct fcr_pxp_restore *r);

#endif
