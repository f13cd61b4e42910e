/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider's handle, shared by provider.c (its keys, the
 * credentials), preflight.c (the checks before anything changes, and what
 * earlier sessions left) and actions.c (its action table).
 *
 * Which snapshots "this campaign created" is kept here: those made by a
 * finished `snapshot` action, less those deleted since.  A resumed campaign
 * rebuilds the list in preflight() from the manifest's earlier actions and
 * their journaled writes; a `snapshot` that was cut short or failed after
 * the API took it (or may have) may or may not have been made, so it is
 * adopted when it exists and deleted by `all-created` when it does.  One
 * that never ran (pending, skipped) made nothing (provider.h, "provably
 * created").
 */
#ifndef FCR_NETCUP_NCP_H
#define FCR_NETCUP_NCP_H

#include "provider.h"
#include "netcup/netcup.h"

struct fcr_ncp {
	struct fcr_provider_base base; /* first: the client's hooks get it */
	char *token_file;	       /* expanded; NULL: the environment variable */
	bool token_default;	       /* token_file is the default path */
	char *api_url, *auth_url;
	struct fcr_netcup_config cfg;
	struct fcr_netcup *nc;

	struct fcr_provider_made made; /* what the campaign made */
	struct cm_strv adopt;	       /* started by an earlier session: an existing one is ours */
	/* the tasks of steps earlier sessions began, by step key
	 * (fcr_provider_step_key): [{write, name, uuid, state ...}], each ended */
	json_t *earlier;
};

/* A task as the manifest records it. */
json_t *fcr_ncp_task_json(const struct fcr_netcup_task *t);

/* snapshot NAME [online|offline] [disk DISK], as its check parses it into
 * step->args, which the preflight reads too. */
struct fcr_ncp_snapshot {
	const char *name;
	bool online;
	const char *disk; /* NULL: not given */
};

/* ---- actions.c ---- */
extern const struct fcr_action fcr_ncp_actions[];

/* ---- perform.c: what the rows do (struct fcr_action's perform) ---- */
int fcr_ncp_power_off_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      json_t *result, struct fcr_error *err);
int fcr_ncp_power_on_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     json_t *result, struct fcr_error *err);
int fcr_ncp_reboot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err);
int fcr_ncp_snapshot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     json_t *result, struct fcr_error *err);
int fcr_ncp_delete_snapshot_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step,
				    json_t *result, struct fcr_error *err);
int fcr_ncp_revert_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err);
/* The safety layer's power-on (struct fcr_provider). */
int fcr_ncp_ensure_powered_on(void *state, json_t *result, struct fcr_error *err);

/* ---- preflight.c ---- */
int fcr_ncp_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
		      struct fcr_error *err);
void fcr_ncp_describe_preflight(void *state, struct cm_buf *out);

#endif
