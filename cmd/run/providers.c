/* SPDX-License-Identifier: MIT */
/* The tables built into this binary: its actions and providers (providers.h). */
#include "providers.h"

#include "actions/builtin.h"
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

static const struct fcr_action *const builtin_actions[] = {
    fcr_wait_actions, fcr_command_actions, fcr_hash_actions, fcr_testfile_actions, NULL,
};

static const struct fcr_provider *const builtin_providers[] = {
    &none_provider,
    &fcr_netcup_provider,
    &fcr_proxmox_provider,
    NULL,
};

/* Types that have their own issue but are not in this binary yet. */
static const char *const planned_types[] = {"command", NULL};

static const struct fcr_catalog catalog = {
    .builtin = builtin_actions,
    .providers = builtin_providers,
    .planned = planned_types,
};

const struct fcr_catalog *fcr_catalog(void)
{
	return &catalog;
}
