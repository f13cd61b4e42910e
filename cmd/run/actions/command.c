/* SPDX-License-Identifier: MIT */
/* run and remote: a command here, or on the target, from an argv (no shell). */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "actions/builtin.h"
#include "campaign/campaign.h"
#include "machine/spawn.h"
#include "machine/target.h"

/* What a command printed is evidence, but the manifest is no log file. */
#define OUTPUT_KEPT_BYTES 4096
#define RUN_OUTPUT_MAX	  (1024 * 1024)

static void put_output(json_t *res, const char *key, const char *text)
{
	size_t n = strlen(text);
	if (!n)
		return;
	/* the last part; the cut may split a character, which fcr_jtext replaces */
	if (n > OUTPUT_KEPT_BYTES) {
		char *tail = cm_asprintf("…%s", text + n - OUTPUT_KEPT_BYTES);
		json_object_set_new(res, key, fcr_jtext(tail));
		free(tail);
	} else {
		json_object_set_new(res, key, fcr_jtext(text));
	}
}

/* `run --takes-down COMMAND...`: the command takes the machine away (a
 * rollback, a reboot), and downtime counts from its start. */
#define TAKES_DOWN "--takes-down"

/* The command of the step: its words after the name and the flag. */
static char *const *command_argv(const struct fcr_step *step)
{
	return step->words.v + (step->takes_down ? 2 : 1);
}

static int command_check(const struct fcr_check_ctx *cx, struct fcr_step *step,
			 struct fcr_error *err)
{
	(void)cx;
	if (strcmp(step->words.v[1], TAKES_DOWN))
		return 0;
	if (step->words.n < 3)
		return fcr_fail(err,
				"'%s': %s needs a command after it (usage: %s %s COMMAND "
				"[ARG...])",
				step->text, TAKES_DOWN, step->words.v[0], TAKES_DOWN);
	step->takes_down = true;
	return 0;
}

/* Runs the step's command here (local) or on the target. */
static int command(struct fcr_action_ctx *ctx, const struct fcr_step *step, bool local, json_t *res,
		   struct fcr_error *err)
{
	char *const *argv = command_argv(step);
	struct fcr_capture cap;
	int rc = local ? fcr_run_capture(argv, NULL, 0, RUN_OUTPUT_MAX, ctx->stop, &cap, err)
		       : fcr_target_exec(ctx->target, argv, NULL, 0, &cap, err);
	if (rc < 0)
		return rc;
	json_object_set_new(res, "exit_status",
			    WIFEXITED(cap.status) ? json_integer(WEXITSTATUS(cap.status))
						  : json_null());
	put_output(res, "stdout", cap.out);
	put_output(res, "stderr", cap.err);
	if (cap.stopped) {
		rc = fcr_fail_as(err, FCR_E_STOPPED, "stopped (Ctrl-C)");
	} else if (!fcr_exited_ok(cap.status)) {
		char st[64];
		fcr_describe_status(st, sizeof(st), cap.status);
		const char *nl = strchr(cap.err, '\n');
		rc = fcr_fail(err, "'%s' ended with %s%s%.*s", step->text, st,
			      cap.err[0] ? ": " : "",
			      (int)(nl ? (size_t)(nl - cap.err) : strlen(cap.err)), cap.err);
	}
	fcr_capture_release(&cap);
	return rc;
}

static int run_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
		       struct fcr_error *err)
{
	return command(ctx, step, true, result, err);
}

static int remote_perform(struct fcr_action_ctx *ctx, const struct fcr_step *step, json_t *result,
			  struct fcr_error *err)
{
	return command(ctx, step, false, result, err);
}

static const char *down_note(const struct fcr_step *step)
{
	return step->takes_down ? " (the machine goes away: downtime starts)" : "";
}

static void run_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			 struct cm_buf *out)
{
	(void)ctx;
	char *joined = fcr_shell_join(command_argv(step));
	cm_buf_printf(out, "run here: %s%s\n", joined, down_note(step));
	free(joined);
}

static void remote_describe(struct fcr_action_ctx *ctx, const struct fcr_step *step,
			    struct cm_buf *out)
{
	char *joined = fcr_shell_join(command_argv(step));
	cm_buf_printf(out, "remote on %s: %s%s\n", ctx->c->target_text, joined, down_note(step));
	free(joined);
}

const struct fcr_action fcr_command_actions[] = {
    {
	.name = "run",
	.min_args = 1,
	.max_args = -1,
	.usage = "run [--takes-down] COMMAND [ARG...]",
	.doc = "Run a command here, without a shell (write `run sh -c '...'` for one). A "
	       "non-zero exit status fails the state. With `--takes-down` the command takes "
	       "the machine away (a rollback or a reboot done by a command): its downtime and "
	       "data back count from its start, and a campaign that stops before a `wait-ssh` "
	       "saw the machine back powers it on.",
	.check = command_check,
	.describe = run_describe,
	.perform = run_perform,
    },
    {
	.name = "remote",
	.min_args = 1,
	.max_args = -1,
	.usage = "remote [--takes-down] COMMAND [ARG...]",
	.doc = "Run a command on the target (here, for a local target); `--takes-down` as "
	       "for `run`.",
	.check = command_check,
	.describe = remote_describe,
	.perform = remote_perform,
    },
    {.name = NULL},
};
