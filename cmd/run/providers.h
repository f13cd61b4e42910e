/* SPDX-License-Identifier: MIT */
/*
 * The providers built into this binary (providers.c): `none`, netcup and
 * proxmox.
 * A new provider is a folder beside netcup/ that implements
 * provider.h, and one line in providers.c.
 */
#ifndef FCR_PROVIDERS_H
#define FCR_PROVIDERS_H

#include <stdbool.h>

#include "provider.h"

/*
 * The provider of `type`, or NULL.  When NULL, *planned is set when the type is
 * known but not built into this binary yet (so the message can say so).
 */
const struct fcr_provider *fcr_provider_find(const char *type, bool *planned);
/* The built-in type names, comma separated, for messages. */
const char *fcr_provider_known_types(void);
/* The built-in providers, NULL-terminated, for --help. */
const struct fcr_provider *const *fcr_provider_list(void);

#endif
