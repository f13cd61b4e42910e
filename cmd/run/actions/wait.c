/* SPDX-License-Identifier: MIT */
/* settle and wait-ssh: waiting for time to pass, and for the machine. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "actions/builtin.h"
#include "campaign/campaign.h"
#include "util/status.h"
#include "machine/probe.h"
#include "machine/target.h"

/* ---- settle DURATION ------------------------------------------------------- */

static int settle_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	(void)cx;
	uint64_t *ms = cm_malloc(sizeof(*ms));
	step->args = ms;
	char why[256];
	if (cm_parse_duration_ms(step->words.v[1], ms, why, sizeof(why)) < 0)
		return fcr_fail(err, "settle: %s", why);
	return 0;
}

static uint64_t settle_ms(const struct fcr_step *step)
{
	return *(const uint64_t *)step->args;
}

static void settle_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	(void)ctx;
	char d[32];
	cm_format_duration(d, sizeof(d), settle_ms(step));
	cm_buf_printf(out, "settle %s\n", d);
}

static int settle_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	(void)result;
	if (fcr_status_wait(settle_ms(step), "settle", ctx->stop))
		return fcr_fail_as(err, FCR_E_STOPPED, "stopped (Ctrl-C)");
	return 0;
}

/* ---- wait-ssh [HOST[:PORT]] ---------------------------------------------------- */

struct probe_where {
	char *host; /* NULL: the target's */
	unsigned port;
};

static void where_release(void *args)
{
	struct probe_where *w = args;
	if (w)
		free(w->host);
	free(w);
}

static int wait_ssh_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			  struct fcr_error *err)
{
	struct probe_where *w = cm_calloc(1, sizeof(*w));
	step->args = w;
	w->port = 22;
	if (step->words.n == 2) {
		bool given;
		if (fcr_parse_host_port(step->words.v[1], &w->host, &w->port, &given) < 0)
			return fcr_fail(err, "wait-ssh: bad HOST[:PORT] '%s'", step->words.v[1]);
	} else if (cx->c->target != FCR_TARGET_SSH) {
		return fcr_fail(err, "wait-ssh needs HOST[:PORT] when the target is local");
	}
	return 0;
}

static void probe_at(const struct fcr_step *step, const struct fcr_target *t, const char **host,
		     unsigned *port)
{
	const struct probe_where *w = step->args;
	*host = w->host ? w->host : fcr_target_probe_host(t);
	*port = w->host ? w->port : t->c->ssh_port;
}

static void wait_ssh_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			      struct cm_buf *out)
{
	const char *host;
	unsigned port;
	probe_at(step, ctx->target, &host, &port);
	cm_buf_printf(out,
		      "wait-ssh %s:%u: a probe every %d ms until the SSH banner arrives twice in a "
		      "row (at most %llus)\n",
		      host, port, FCR_PROBE_INTERVAL_MS,
		      (unsigned long long)(ctx->c->wait_timeout_ms / 1000));
}

static int wait_ssh_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			    struct fcr_error *err)
{
	const char *host;
	unsigned port;
	probe_at(step, ctx->target, &host, &port);
	struct fcr_probe_result pr;
	int rc = fcr_probe_ssh(host, port, ctx->c->wait_timeout_ms, ctx->stop, &pr, err);
	json_object_set_new(result, "host", json_string(host));
	json_object_set_new(result, "port", json_integer(port));
	json_object_set_new(result, "probes", json_integer(pr.probes));
	json_object_set_new(result, "interval_ms", json_integer(FCR_PROBE_INTERVAL_MS));
	if (rc > 0)
		return fcr_fail_as(err, FCR_E_STOPPED, "stopped (Ctrl-C)");
	if (rc < 0)
		return rc;
	json_object_set_new(result, "banner", json_string(pr.banner));
	json_object_set_new(result, "answered", fcr_jutc(pr.ready_wall));
	ctx->back_wall = pr.ready_wall;
	return 0;
}

bool fcr_wait_ssh_where(const struct fcr_step *step, const struct fcr_target *t, const char **host,
			unsigned *port)
{
	if (step->def->perform != wait_ssh_perform)
		return false;
	probe_at(step, t, host, port);
	return *host != NULL;
}

const struct fcr_action fcr_wait_actions[] = {
    {
	.name = "settle",
	.min_args = 1,
	.max_args = 1,
	.usage = "settle DURATION",
	.doc = "Wait.",
	.check = settle_check,
	.duration_ms = settle_ms,
	.describe = settle_describe,
	.perform = settle_perform,
    },
    {
	.name = "wait-ssh",
	.min_args = 0,
	.max_args = 1,
	.usage = "wait-ssh [HOST[:PORT]]",
	.doc = "Open a TCP connection every 250 ms (each bounded by 1 s) until the SSH banner "
	       "(`SSH-`) arrives on two probes in a row. Default: the target's host and ssh "
	       "port. When an earlier action of the state took the machine away (a provider "
	       "action such as power-off), the time from that action's start until the second "
	       "banner is recorded as the downtime of the action and the state.",
	.ends_downtime = true,
	.check = wait_ssh_check,
	.release = where_release,
	.describe = wait_ssh_describe,
	.perform = wait_ssh_perform,
    },
    {.name = NULL},
};
