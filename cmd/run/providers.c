/* SPDX-License-Identifier: MIT */
/* The providers built into this binary (providers.h). */
#include "providers.h"

#include <stdarg.h>
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

/* ---- helpers for implementations ------------------------------------------- */

void fcr_provider_event(const struct fcr_provider_ctx *ctx, const char *provider,
			const char *during, const char *type, json_t *fields)
{
	if (!ctx || !ctx->journal)
		return;
	/* fields are borrowed: a shallow copy shares (and keeps) the values */
	json_t *e = json_copy(fields);
	if (!e)
		return;
	json_object_set_new(e, "event", json_string(type));
	json_object_set_new(e, "provider", json_string(provider));
	/* "action" is taken (netcup's token events); "during" names what we were doing */
	if (during)
		json_object_set_new(e, "during", json_string(during));
	ctx->journal(ctx->opaque, e);
}

bool fcr_provider_should_stop(const struct fcr_provider_ctx *ctx, bool safety)
{
	if (!ctx)
		return false;
	volatile int *flag = safety ? ctx->hard_stop : ctx->stop;
	return flag && *flag;
}

void fcr_provider_vnote(const struct fcr_provider_ctx *ctx, const char *level, const char *fmt,
			va_list ap)
{
	if (!ctx || !ctx->note)
		return;
	char msg[1400];
	vsnprintf(msg, sizeof(msg), fmt, ap);
	ctx->note(ctx->opaque, level, msg);
}

bool fcr_provider_step_is(const struct fcr_provider_step *st, const char *want)
{
	return st->status && !strcmp(st->status, want);
}

void fcr_provider_key_error(struct cm_strv *problems, const struct fcr_provider_key *k,
			    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_strv_addf(problems, "%s:%u: %s", k->file, k->line, msg);
	free(msg);
}

bool fcr_provider_key_duration(const struct fcr_provider_key *k, unsigned *ms,
			       struct cm_strv *problems)
{
	uint64_t v;
	char why[256];
	if (cm_parse_duration_ms(k->value, &v, why, sizeof(why)) < 0) {
		fcr_provider_key_error(problems, k, "%s: %s", k->key, why);
		return false;
	}
	if (v == 0 || v > 24ull * 3600 * 1000) {
		fcr_provider_key_error(problems, k, "%s: '%s' must be more than 0 and at most 1d",
				       k->key, k->value);
		return false;
	}
	*ms = (unsigned)v;
	return true;
}
