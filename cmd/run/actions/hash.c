/* SPDX-License-Identifier: MIT */
/*
 * hash, payload and verify-hash: a file's sha256 on the target, recorded and
 * compared; payload writes the file first.
 */
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
				if (fcr_has_status(a, CM_STATUS_DONE) && fcr_jstr(res, "sha256") &&
				    p && !strcmp(p, path))
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

/* Records the sha256 of path in result, as verify-hash finds it. */
static int record_hash(struct fcr_action_ctx *ctx, const char *path, json_t *result,
		       struct fcr_error *err)
{
	char *hex = NULL;
	int rc = fcr_target_sha256(ctx->target, path, &hex, err);
	if (rc < 0)
		return rc;
	json_object_set_new(result, "path", json_string(path));
	json_object_set_new(result, "sha256", json_string(hex));
	fcr_progress_line("%s: sha256 %s", ctx->state->name, hex);
	free(hex);
	return 0;
}

static int hash_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			struct fcr_error *err)
{
	return record_hash(ctx, step->words.v[1], result, err);
}

/* ---- payload PATH SIZE ---------------------------------------------------------- */

/* A payload is data to find again after a restore, not a disk to fill. */
#define PAYLOAD_MIN_BYTES 4096ull
#define PAYLOAD_MAX_BYTES (1ull << 40)

static int payload_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			 struct fcr_error *err)
{
	(void)cx;
	const char *path = step->words.v[1];
	/* fio reads ':' in a file name as a list of files */
	if (path[0] != '/' || strchr(path, ':'))
		return fcr_fail(err, "'%s': the path must be absolute and without ':'", step->text);
	uint64_t *bytes = cm_calloc(1, sizeof(*bytes));
	char why[200];
	if (cm_parse_size_bytes(step->words.v[2], bytes, why, sizeof(why)) < 0) {
		free(bytes);
		return fcr_fail(err, "'%s': %s", step->text, why);
	}
	if (*bytes < PAYLOAD_MIN_BYTES || *bytes > PAYLOAD_MAX_BYTES || *bytes % 4096) {
		free(bytes);
		return fcr_fail(err, "'%s': the size must be a multiple of 4k from 4k to 1T",
				step->text);
	}
	step->args = bytes;
	return 0;
}

/*
 * fio writes it: every buffer refilled with random data (refill_buffers),
 * from seeds of this run (randrepeat=0), so that neither compression nor
 * deduplication in a backup makes it smaller, and flushed before the hash.
 */
static void payload_argv(const struct fcr_step *step, struct cm_strv *argv)
{
	uint64_t bytes = *(const uint64_t *)step->args;
	cm_strv_add(argv, "fio");
	cm_strv_add(argv, "--name=payload");
	cm_strv_addf(argv, "--filename=%s", step->words.v[1]);
	cm_strv_addf(argv, "--size=%llu", (unsigned long long)bytes);
	cm_strv_add(argv, bytes % (1u << 20) ? "--bs=4k" : "--bs=1M");
	cm_strv_add(argv, "--rw=write");
	cm_strv_add(argv, "--ioengine=psync");
	cm_strv_add(argv, "--refill_buffers");
	cm_strv_add(argv, "--randrepeat=0");
	cm_strv_add(argv, "--end_fsync=1");
	cm_strv_add(argv, "--output-format=terse");
}

static void payload_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			     struct cm_buf *out)
{
	struct cm_strv argv = {0};
	payload_argv(step, &argv);
	char *joined = fcr_shell_join(argv.v);
	cm_buf_printf(out, "payload on %s: rm -f %s, then %s\n", ctx->c->target_text,
		      step->words.v[1], joined);
	free(joined);
	cm_strv_release(&argv);
	describe_sha(ctx, step, "recorded", out);
}

static int payload_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			   struct fcr_error *err)
{
	const char *path = step->words.v[1];
	/* fio writes into a longer file without cutting it */
	char *const rm[] = {"rm", "-f", "--", (char *)path, NULL};
	struct fcr_capture cap;
	if (fcr_target_exec(ctx->target, rm, NULL, 0, &cap, err) < 0 ||
	    fcr_command_failed(&cap, err, "payload %s: rm", path) < 0)
		return -1;
	fcr_capture_release(&cap);
	struct cm_strv argv = {0};
	payload_argv(step, &argv);
	int rc = fcr_target_exec(ctx->target, argv.v, NULL, 0, &cap, err);
	cm_strv_release(&argv);
	if (rc < 0)
		return -1;
	if (*ctx->stop) {
		fcr_capture_release(&cap);
		return fcr_fail_as(err, FCR_E_STOPPED, "stopped (Ctrl-C)");
	}
	if (fcr_command_failed(&cap, err, "payload %s: fio", path) < 0)
		return -1;
	fcr_capture_release(&cap);
	uint64_t bytes = *(const uint64_t *)step->args;
	json_object_set_new(result, "size", json_integer((json_int_t)bytes));
	return record_hash(ctx, path, result, err);
}

/* ---- verify-hash PATH ---------------------------------------------------------- */

/* An earlier `hash PATH` (or `payload PATH SIZE`) in the file: in an earlier
 * state, or before it in this one. */
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
			bool records =
			    o->def && ((o->def->perform == hash_perform && o->words.n == 2) ||
				       (o->def->perform == payload_perform && o->words.n == 3));
			if (records && !strcmp(o->words.v[1], path))
				return 0;
		}
		if (os == cx->state)
			break;
	}
	return fcr_fail(err,
			"verify-hash %s: no earlier 'hash %s' or 'payload %s SIZE' to compare "
			"with",
			path, path, path);
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
	.name = "payload",
	.min_args = 2,
	.max_args = 2,
	.usage = "payload PATH SIZE",
	.doc = "Write a file of SIZE (4k to 1T, a multiple of 4k) at the absolute PATH on the "
	       "target with fio, every buffer refilled with random data (`refill_buffers`, "
	       "`randrepeat=0`, flushed at the end), so that no compression or deduplication "
	       "makes it smaller; then record its sha256 as `hash` does, for a later "
	       "`verify-hash PATH`.",
	.check = payload_check,
	.describe = payload_describe,
	.perform = payload_perform,
    },
    {
	.name = "verify-hash",
	.min_args = 1,
	.max_args = 1,
	.usage = "verify-hash PATH",
	.doc = "Compare the sha256 of a file on the target with the one an earlier `hash` or "
	       "`payload` recorded; a difference fails the state (and the repetition).",
	.checks_data = true,
	.check = verify_check,
	.describe = verify_describe,
	.perform = verify_perform,
    },
    {.name = NULL},
};
