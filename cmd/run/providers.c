/* SPDX-License-Identifier: MIT */
/* The providers built into this binary (providers.h). */
#include "providers.h"

#include <stdio.h>
#include <string.h>

#include "netcup/public.h"
#include "proxmox/public.h"

/* `none` has no actions: a campaign without a [provider] section (or with
 * type = none) may only use the built-in actions. */
static const struct fcr_action none_actions[] = {
    {.name = NULL},
};

static int none_configure(const struct fcr_provider_section *sec,
			  const struct fcr_provider_ctx *ctx, void **state,
			  struct cm_strv *problems)
{
	(void)ctx;
	*state = NULL;
	if (sec->n_keys) {
		cm_strv_addf(problems, "%s:%u: unknown key '%s' for provider type none",
			     sec->keys[0].file, sec->keys[0].line, sec->keys[0].key);
		return -1;
	}
	return 0;
}

static int none_connect(void *state, struct fcr_error *err)
{
	(void)state, (void)err;
	return 0;
}

static int none_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
			  struct fcr_error *err)
{
	(void)state, (void)steps, (void)n_steps, (void)err;
	return 0;
}

static int none_ensure_powered_on(void *state, json_t *result, struct fcr_error *err)
{
	(void)state, (void)result, (void)err;
	return 0;
}

static void none_free(void *state)
{
	(void)state;
}

static const struct fcr_provider none_provider = {
    .type = "none",
    .summary = "no provider: only the built-in actions",
    .actions = none_actions,
    .configure = none_configure,
    .connect = none_connect,
    .preflight = none_preflight,
    .ensure_powered_on = none_ensure_powered_on,
    .free = none_free,
};

static const struct fcr_provider *const builtin[] = {
    &none_provider,
    &fcr_netcup_provider,
    &fcr_proxmox_provider,
    NULL,
};

/* Types that have their own issue but are not in this binary yet. */
static const char *const planned_types[] = {"command"};

const struct fcr_provider *fcr_provider_find(const char *type, bool *planned)
{
	*planned = false;
	for (size_t i = 0; builtin[i]; i++) {
		if (!strcmp(builtin[i]->type, type))
			return builtin[i];
	}
	for (size_t i = 0; i < CM_ARRAY_SIZE(planned_types); i++) {
		if (!strcmp(planned_types[i], type))
			*planned = true;
	}
	return NULL;
}

const char *fcr_provider_known_types(void)
{
	static char types[256];
	if (!types[0]) {
		size_t used = 0;
		for (size_t i = 0; builtin[i] && used < sizeof(types); i++)
			used += (size_t)snprintf(types + used, sizeof(types) - used, "%s%s",
						 i ? ", " : "", builtin[i]->type);
	}
	return types;
}

const struct fcr_provider *const *fcr_provider_list(void)
{
	return builtin;
}
