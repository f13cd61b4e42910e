/* SPDX-License-Identifier: MIT */
/* prefill and fresh-file: what the test file holds. */
#include <stdio.h>
#include <string.h>

#include "actions/builtin.h"
#include "campaign/campaign.h"
#include "fio/fio.h"
#include "machine/target.h"

/* ---- prefill ------------------------------------------------------------------ */

static void prefill_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     struct cm_buf *out)
{
	(void)step;
	cm_buf_printf(out, "prefill -> prefill/before-%s.json (write the whole test file)\n",
		      ctx->state->name);
}

static int prefill_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err)
{
	(void)step;
	char *name = cm_asprintf("before-%s", ctx->state->name);
	json_t *pobj = json_object();
	enum fcr_outcome s = fcr_fio_prefill(ctx->fio, name, pobj, ctx->label);
	json_object_set(result, "json", json_object_get(pobj, "json"));
	int rc = 0;
	if (s == FCR_INTERRUPTED)
		rc = fcr_fail_as(err, FCR_E_STOPPED, "stopped (Ctrl-C)");
	else if (s != FCR_DONE)
		rc = fcr_fail(err, "%s",
			      fcr_jstr(pobj, "error") ? fcr_jstr(pobj, "error") : "prefill failed");
	json_decref(pobj);
	free(name);
	return rc;
}

/* ---- fresh-file ------------------------------------------------------------------ */

static uint64_t no_time(const struct fcr_step *step)
{
	(void)step;
	return 0;
}

static void fresh_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			   struct cm_buf *out)
{
	(void)step;
	char size[32];
	cm_format_size(size, sizeof(size), ctx->c->size_bytes);
	cm_buf_printf(out,
		      "fresh-file: remove %s and create it again, %s, never written (sparse)\n",
		      ctx->target->test_file, size);
}

static int fresh_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			 struct fcr_error *err)
{
	(void)step;
	int rc = fcr_target_fresh_file(ctx->target, err);
	if (rc < 0)
		return rc;
	json_object_set_new(result, "path", json_string(ctx->target->test_file));
	json_object_set_new(result, "size", json_integer((json_int_t)ctx->c->size_bytes));
	return 0;
}

const struct fcr_action fcr_testfile_actions[] = {
    {
	.name = "prefill",
	.min_args = 0,
	.max_args = 0,
	.usage = "prefill",
	.doc = "Write the whole test file now (the prefill job); its report goes to "
	       "prefill/before-STATE.json.",
	.prefill_job = true,
	.test_file = true,
	.describe = prefill_describe,
	.perform = prefill_perform,
    },
    {
	.name = "fresh-file",
	.min_args = 0,
	.max_args = 0,
	.usage = "fresh-file",
	.doc = "Remove the test file and create it again at its size without writing it: a "
	       "sparse file whose reads hit holes.",
	.test_file = true,
	.duration_ms = no_time,
	.describe = fresh_describe,
	.perform = fresh_perform,
    },
    {.name = NULL},
};
