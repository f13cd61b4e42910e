/* SPDX-License-Identifier: MIT */
/* hash and verify-hash: a file's sha256 on the target, recorded and compared. */
#include <stdio.h>
#include <string.h>

#include "actions/builtin.h"
#include "campaign/campaign.h"
#include "util/status.h"
#include "record/record.h"
#include "machine/target.h"

/* The sha256 of `path` that the latest finished action recorded (its result
 * has "path" and "sha256"), or NULL; borrowed from the manifest. */
static const char *recorded_hash(const struct fcr_record *rec, const char *path)
{
	const char *found = NULL;
	json_t *states = json_object_get(rec->m, "states");
	for (size_t i = 0; i < json_array_size(states); i++) {
		json_t *so = json_array_get(states, i);
		for (size_t k = 1; k <= fcr_manifest_reps(so); k++) {
			json_t *before = json_object_get(fcr_manifest_rep(so, k), "before");
			for (size_t j = 0; j < json_array_size(before); j++) {
				json_t *a = json_array_get(before, j);
				json_t *res = json_object_get(a, "result");
				const char *p = fcr_jstr(res, "path");
				if (fcr_has_status(a, "done") && fcr_jstr(res, "sha256") && p &&
				    !strcmp(p, path))
					found = fcr_jstr(res, "sha256");
			}
		}
	}
	return found;
}

static void describe_sha(struct fcr_action_ctx *ctx, const struct fcr_step *step, const char *what,
			 struct cm_buf *out)
{
	char *const sha[] = {"sha256sum", "--", step->words.v[1], NULL};
	char *joined = fcr_shell_join(sha);
	cm_buf_printf(out, "%s on %s: %s (%s)\n", step->words.v[0], ctx->c->target_text, joined,
		      what);
	free(joined);
}

/* ---- hash PATH ------------------------------------------------------------------ */

static void hash_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			  struct cm_buf *out)
{
	describe_sha(ctx, step, "recorded", out);
}

static int hash_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			struct fcr_error *err)
{
	char *hex = NULL;
	int rc = fcr_target_sha256(ctx->target, step->words.v[1], &hex, err);
	if (rc < 0)
		return rc;
	json_object_set_new(result, "path", json_string(step->words.v[1]));
	json_object_set_new(result, "sha256", json_string(hex));
	fcr_progress_line("%s: sha256 %s", ctx->state->name, hex);
	free(hex);
	return 0;
}

/* ---- verify-hash PATH ---------------------------------------------------------- */

/* An earlier `hash PATH` in the file: in an earlier state, or before it in this one. */
static int verify_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			struct fcr_error *err)
{
	const struct fcr_campaign *c = cx->c;
	const char *path = step->words.v[1];
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *os = &c->states[si];
		size_t end = os == cx->state ? cx->index : os->n_actions;
		for (size_t ai = 0; ai < end; ai++) {
			const struct fcr_step *o = &os->actions[ai];
			/* a `hash` with the wrong number of arguments has its error already */
			if (o->def && o->def->perform == hash_perform && o->words.n == 2 &&
			    !strcmp(o->words.v[1], path))
				return 0;
		}
		if (os == cx->state)
			break;
	}
	return fcr_fail(err, "verify-hash %s: no earlier 'hash %s' to compare with", path, path);
}

static void verify_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	describe_sha(ctx, step, "compared with the recorded hash", out);
}

static int verify_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	const char *path = step->words.v[1];
	const char *expected = recorded_hash(ctx->rec, path);
	if (!expected)
		return fcr_fail(err, "verify-hash %s: no finished 'hash %s' recorded", path, path);
	char *hex = NULL;
	int rc = fcr_target_sha256(ctx->target, path, &hex, err);
	if (rc < 0)
		return rc;
	bool match = !strcmp(hex, expected);
	json_object_set_new(result, "path", json_string(path));
	json_object_set_new(result, "expected", json_string(expected));
	json_object_set_new(result, "actual", json_string(hex));
	json_object_set_new(result, "match", json_boolean(match));
	if (!match)
		rc = fcr_fail(err, "verify-hash %s: sha256 differs: expected %s, got %s", path,
			      expected, hex);
	else
		fcr_progress_line("%s: sha256 of %s matches", ctx->state->name, path);
	free(hex);
	return rc;
}

const struct fcr_action fcr_hash_actions[] = {
    {
	.name = "hash",
	.min_args = 1,
	.max_args = 1,
	.usage = "hash PATH",
	.doc = "Record the sha256 of a file on the target.",
	.describe = hash_describe,
	.perform = hash_perform,
    },
    {
	.name = "verify-hash",
	.min_args = 1,
	.max_args = 1,
	.usage = "verify-hash PATH",
	.doc = "Compare the sha256 of a file on the target with the one an earlier `hash` "
	       "recorded; a difference fails the state.",
	.checks_data = true,
	.check = verify_check,
	.describe = verify_describe,
	.perform = verify_perform,
    },
    {.name = NULL},
};
