/* SPDX-License-Identifier: MIT */
/*
 * What the files of the Proxmox client share (client.c: the context, the
 * token, reading the guest; task.c: tasks, writes, logs).  Not part of the
 * client's API (pve.h).
 */
#ifndef FCR_PVE_INTERNAL_H
#define FCR_PVE_INTERNAL_H

#include "http/api.h"
#include "proxmox/pve.h"

struct fcr_pve {
	struct fcr_pve_config cfg; /* first: the API's hooks find it there; its
				    * strings point to the copies below */
	char *api_url, *node, *vm_name, *token_file, *ca_file;
	char *token;	     /* USER@REALM!TOKENID=SECRET */
	char *authorization; /* "PVEAPIToken=" and the token */
	char token_id[200];
	struct fcr_http http;
	struct fcr_api api;	  /* below https://HOST:8006/api2/json */
	struct cm_strv in_flight; /* UPIDs not seen stopped */
	bool long_wait;		  /* fcr_pve_set_long_wait() */
};

/* An event for the journal (steals fields). */
void fcr_pve_emit(struct fcr_pve *pve, const char *type, json_t *fields);

#endif
