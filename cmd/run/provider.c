/* SPDX-License-Identifier: MIT */
/* What every provider calls: journal events, stop flags, notes and the
 * checks of its [provider] keys (provider.h). */
#include "provider.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

char *fcr_provider_step_key(const char *state, unsigned repetition, unsigned line)
{
	return cm_asprintf("%s\n%u\n%u", state, repetition, line);
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

void fcr_provider_base_init(struct fcr_provider_base *b, const char *type,
			    const struct fcr_provider_section *sec,
			    const struct fcr_provider_ctx *ctx)
{
	*b = (struct fcr_provider_base){
	    .type = type,
	    .file = cm_strdup(sec->file),
	    .line = sec->line,
	};
	if (ctx) {
		b->ctx = *ctx;
		b->have_ctx = true;
	}
}

void fcr_provider_base_release(struct fcr_provider_base *b)
{
	free(b->file);
	b->file = NULL;
}

void fcr_provider_on_event(void *base, const char *type, json_t *fields)
{
	struct fcr_provider_base *b = base;
	fcr_provider_event(b->have_ctx ? &b->ctx : NULL, b->type, b->current, type, fields);
}

bool fcr_provider_on_should_stop(void *base)
{
	struct fcr_provider_base *b = base;
	return fcr_provider_should_stop(b->have_ctx ? &b->ctx : NULL, b->safety);
}

void fcr_provider_note(const struct fcr_provider_base *b, const char *level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fcr_provider_vnote(b->have_ctx ? &b->ctx : NULL, level, fmt, ap);
	va_end(ap);
}

bool fcr_provider_read_duration(const struct fcr_provider_duration_key *table, size_t n, void *cfg,
				const struct fcr_provider_key *k, struct cm_strv *problems)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(k->key, table[i].key))
			continue;
		fcr_provider_key_duration(k, (unsigned *)((char *)cfg + table[i].offset), problems);
		return true;
	}
	return false;
}
