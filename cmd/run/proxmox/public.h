/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox VE provider of fiocamp-run (`[provider] type = proxmox`): the
 * provider interface of provider.h on top of the API client of pve.h.  See
 * docs/proxmox.md.
 */
#ifndef FCR_PROXMOX_PUBLIC_H
#define FCR_PROXMOX_PUBLIC_H

#include "provider.h"

extern const struct fcr_provider fcr_proxmox_provider;

#endif
