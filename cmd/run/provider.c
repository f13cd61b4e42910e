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

int fcr_provider_on_lock(void *base, const char *key)
{
	struct fcr_provider_base *b = base;
	return b->have_ctx && b->ctx.lock ? b->ctx.lock(b->ctx.opaque, key) : 0;
}

void fcr_provider_on_unlock(void *base, const char *key)
{
	struct fcr_provider_base *b = base;
	if (b->have_ctx && b->ctx.unlock)
		b->ctx.unlock(b->ctx.opaque, key);
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

void fcr_provider_made_add(struct fcr_provider_made *m, const char *name)
{
	cm_strv_del(&m->maybe, name);
	cm_strv_add_once(&m->created, name);
}

void fcr_provider_made_gone(struct fcr_provider_made *m, const char *name)
{
	cm_strv_del(&m->created, name);
	cm_strv_del(&m->maybe, name);
}

void fcr_provider_made_clear(struct fcr_provider_made *m)
{
	cm_strv_release(&m->created);
	cm_strv_release(&m->maybe);
}

void fcr_provider_made_release(struct fcr_provider_made *m)
{
	fcr_provider_made_clear(m);
	cm_strv_release(&m->dry);
}

int fcr_provider_made_delete(struct fcr_provider_made *m, const char *what, json_t *result,
			     int (*delete_one)(void *arg, const char *name, json_t *deleted,
					       json_t *gone),
			     void *arg)
{
	json_t *deleted = json_array(), *gone = json_array();
	struct cm_strv names = {0};
	if (strcmp(what, "all-created")) {
		json_object_set_new(result, "snapshot", json_string(what));
		cm_strv_add(&names, what);
	} else {
		for (size_t i = 0; i < m->created.n; i++)
			cm_strv_add_once(&names, m->created.v[i]);
		for (size_t i = 0; i < m->maybe.n; i++)
			cm_strv_add_once(&names, m->maybe.v[i]);
	}
	int rc = 0;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		rc = delete_one(arg, names.v[i], deleted, gone);
		if (rc == 0)
			fcr_provider_made_gone(m, names.v[i]);
	}
	cm_strv_release(&names);
	json_object_set_new(result, "deleted", deleted);
	json_object_set_new(result, "already_gone", gone);
	return rc;
}
