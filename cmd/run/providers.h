/* SPDX-License-Identifier: MIT */
/*
 * The tables built into this binary (providers.c): the built-in actions and
 * the providers `none`, netcup and proxmox.
 * A new provider is a folder beside netcup/ that implements
 * provider.h, and one line in providers.c.
 */
#ifndef FCR_PROVIDERS_H
#define FCR_PROVIDERS_H

#include "catalog.h"

/* The catalog of this binary, for the parser, --help and gen-man. */
const struct fcr_catalog *fcr_catalog(void);

#endif
