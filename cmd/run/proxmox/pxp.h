/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox provider's handle, shared by provider.c (its keys, the
 * credentials, the safety layer's power-on), preflight.c (the checks before
 * anything changes, and what earlier sessions left) and actions.c (its
 * action table).
 *
 * What the campaign made is kept here, so that `delete-snapshot
 * all-created` removes exactly that and `restore last-backup` finds its
 * archive: the snapshots made by a finished `snapshot` action, less those
 * deleted since and all of them after a `restore` (a restored guest has no
 * snapshots); the archive of the latest `backup`.  A resumed campaign
 * rebuilds both in preflight() from the manifest.  A write of an earlier
 * session whose outcome was unknown is decided there by task identity (its
 * UPID, or a task of our token that was not among the UPIDs seen before it
 * was sent) and the task's exit status; only then is what it made adopted.
 */
#ifndef FCR_PROXMOX_PXP_H
#define FCR_PROXMOX_PXP_H

#include "provider.h"
#include "proxmox/pve.h"

/* vzdump's own default storage when none is given (PVE/VZDump.pm). */
#define FCR_PXP_DEFAULT_BACKUP_STORAGE "local"
/* Names the API reserves, or that mean something else here. */
#define FCR_PXP_SNAPSHOT_NAME_MAX 40

struct fcr_pxp {
	struct fcr_provider_base base; /* first: the client's hooks get it */
	char *api_url, *node, *vm_name, *token_file, *ca_file;
	char fingerprint_text[FCR_FINGERPRINT_TEXT];
	bool allow_destroy;
	struct fcr_pve_config cfg;
	struct fcr_pve *pve;

	struct fcr_provider_made made; /* what the campaign made */
	char *last_backup;	       /* the volid of the latest backup this campaign made */
	bool restore_failed;	       /* a restore of this session failed: the guest may be
					* left with Proxmox's placeholder configuration */
	/* steps of earlier sessions, by their key ("STATE\nREPETITION\nLINE"): {"tasks": the
	 * tasks their writes started, each with its role and how it ended;
	 * "made": true for a snapshot an earlier attempt recorded as made} */
	json_t *adopt;
	bool dry_backup; /* --dry-run: the plan will have made a backup by then */
};

/* What the rows' checks parse (actions.c) into step->args, which the
 * preflight reads too (struct fcr_provider_step's args). */
struct fcr_pxp_backup {
	const char *storage;  /* FCR_PXP_DEFAULT_BACKUP_STORAGE when not given */
	const char *mode;     /* snapshot, suspend, stop */
	const char *compress; /* zstd, lzo, gzip, none */
};
struct fcr_pxp_restore {
	const char *archive; /* a volid, or "last-backup" */
	const char *storage; /* NULL: where the disks were */
};

/* ---- actions.c ---- */
extern const struct fcr_action fcr_pxp_actions[];
int fcr_pxp_ensure_powered_on(void *state, json_t *result, struct fcr_error *err);

/* ---- preflight.c ---- */
/* The last task of an earlier session of step `key` in that role and of
 * that type that ended well (borrowed from p->adopt), or NULL. */
json_t *fcr_pxp_earlier_ok(struct fcr_pxp *p, const char *key, const char *role, const char *type);
int fcr_pxp_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
		      struct fcr_error *err);
void fcr_pxp_describe_preflight(void *state, struct cm_buf *out);

#endif
