/* SPDX-License-Identifier: MIT */
/*
 * --dry-run: the whole plan on stdout, every fio command line with its
 * environment, each action as it will run (a provider's API calls as the
 * provider describes them), each pause, and the expected duration.
 * Nothing is created, nothing is sent.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine/session.h"
#include "util/status.h"
#include "machine/probe.h"

/* A provider's description, one line each, below the step it belongs to. */
static void print_indented(const char *text)
{
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		printf("           %.*s\n", (int)n, l);
		l += n + (nl ? 1 : 0);
	}
}

/*
 * One action of the plan: a built-in action's line is its own description;
 * a provider's gets the engine's line, its description indented below.
 */
static void describe_step(struct fcr_session *S, size_t si, const struct fcr_step *a,
			  unsigned *step, double *total_s, unsigned *unknown)
{
	const struct fcr_campaign *c = S->c;
	struct fcr_action_ctx ctx;
	fcr_session_ctx(S, si, a->text, &ctx);
	struct cm_buf out = {0};
	if (a->def->describe)
		a->def->describe(&ctx, a, &out);
	const char *details = out.s ? out.s : "";
	if (a->from_provider) {
		printf("%3u.   provider %s: %s%s\n", ++*step, c->provider_type, a->text,
		       a->takes_down ? " (the machine goes away: downtime starts)" : "");
	} else {
		/* the first line is the plan's; a row without one shows its text */
		const char *nl = strchr(details, '\n');
		size_t n = nl ? (size_t)(nl - details) : strlen(details);
		if (n)
			printf("%3u.   %.*s\n", ++*step, (int)n, details);
		else
			printf("%3u.   %s\n", ++*step, a->text);
		details += n + (nl ? 1 : 0);
	}
	if (*details)
		print_indented(details);
	cm_buf_release(&out);
	if (a->def->duration_ms)
		*total_s += (double)a->def->duration_ms(a) / 1000.0;
	else
		(*unknown)++;
}

/* Round r of a state (or of one repetition) in dir, its fio command lines. */
static void describe_round(struct fcr_session *S, const struct fcr_state *st, const char *dir,
			   unsigned r, unsigned *step, double *total_s)
{
	const struct fcr_campaign *c = S->c;
	char pause[32], runtime[32];
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	cm_format_duration(runtime, sizeof(runtime), c->runtime_ms);
	if (r > 1 && c->pause_ms) {
		printf("%3u.   pause %s\n", ++*step, pause);
		*total_s += (double)c->pause_ms / 1000.0;
	}
	printf("%3u.   round %u/%u -> %s/r%u/\n", ++*step, r, st->rounds, dir, r);
	struct cm_strv env = {0}, argv = {0};
	for (size_t ti = 0; ti < st->n_tests; ti++) {
		const struct fcr_jobfile *job = &S->fio.jobs[st->tests[ti]];
		fcr_fio_env(&S->fio, job->test, &env);
		fcr_target_fio_argv(&S->tgt, job->test, env.v, job->len, &argv);
		char *joined = fcr_shell_join(argv.v);
		char *envj = fcr_shell_join(env.v);
		if (c->target == FCR_TARGET_LOCAL)
			printf("         %s (%s): cd %s/r%u && env %s %s\n", job->test, runtime,
			       dir, r, envj, joined);
		else
			printf("         %s (%s): %s\n", job->test, runtime, joined);
		free(envj);
		free(joined);
		cm_strv_release(&env);
		cm_strv_release(&argv);
		*total_s += (double)c->runtime_ms / 1000.0 + FCR_FIO_OVERHEAD_GUESS_S;
	}
}

int fcr_engine_dry_run(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct fcr_session S_ = {.c = c, .o = o}, *S = &S_;
	struct fcr_error err;
	if (fcr_session_jobs(S, &err) < 0 || fcr_target_init(&S->tgt, c, NULL, NULL, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	char size[32], pause[32], runtime[32];
	cm_format_size(size, sizeof(size), c->size_bytes);
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	cm_format_duration(runtime, sizeof(runtime), c->runtime_ms);
	printf("campaign %s (%s): %zu state%s x %u round%s x %zu test%s, target %s\n", c->name,
	       c->source, c->n_states, c->n_states == 1 ? "" : "s", c->rounds,
	       c->rounds == 1 ? "" : "s", c->suite.n, c->suite.n == 1 ? "" : "s", c->target_text);
	if (c->uses_test_file)
		printf("test file %s, %s (%llu bytes), %s at the end; runtime %s; pause %s; "
		       "ioengine %s, direct=%d\n",
		       S->tgt.test_file, size, (unsigned long long)c->size_bytes,
		       c->keep_file ? "kept" : "removed", runtime, pause, c->ioengine, c->direct);
	else
		printf("no test file: no fio run, prefill or fresh-file uses one\n");
	printf("provider %s\n", c->provider_type);
	struct fcr_provider_section sec = fcr_campaign_provider_section(c);
	struct cm_strv problems = {0};
	if (c->provider->configure(&sec, NULL, &S->prov, &problems) < 0) {
		for (size_t i = 0; i < problems.n; i++)
			fprintf(stderr, "%s\n", problems.v[i]);
		cm_strv_release(&problems);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	S->prov_ready = true;
	if (o->resume_dir)
		printf("resuming %s: steps marked done there are skipped\n", o->resume_dir);
	else
		printf("campaign directory %s\n", o->out_dir ? o->out_dir : "NAME-YYYYmmdd-HHMMSS");
	printf(c->suite.n ? "jobs:\n" : "jobs: none (no rounds)\n");
	for (size_t i = 0; i < c->suite.n; i++)
		printf("  %-10s %s\n", S->fio.jobs[i].test, S->fio.jobs[i].origin);
	if (S->fio.prefill_job.origin)
		printf("  %-10s %s\n", "prefill", S->fio.prefill_job.origin);

	double total_s = 0;
	unsigned unknown = 0;
	unsigned step = 0;
	struct cm_strv env = {0}, argv = {0};
	char *joined;
	printf("\nplan:\n");
	if (c->uses_test_file)
		printf("%3u. preflight on %s: fio --version, mkdir -p %s, free space >= %s\n",
		       ++step, c->target_text, c->directory, size);
	else
		printf("%3u. preflight on %s: fio --version\n", ++step, c->target_text);
	struct cm_buf desc = {0};
	if (c->provider->describe_preflight)
		c->provider->describe_preflight(S->prov, &desc);
	if (desc.len) {
		printf("%3u. %s preflight, nothing changed:\n", ++step, c->provider_type);
		print_indented(desc.s);
	}
	cm_buf_release(&desc);
	if (c->prefill) {
		fcr_fio_env(&S->fio, "prefill", &env);
		fcr_target_fio_argv(&S->tgt, "prefill", env.v, S->fio.prefill_job.len, &argv);
		joined = fcr_shell_join(argv.v);
		char *envj = fcr_shell_join(env.v);
		printf("%3u. prefill -> prefill/prefill.json (duration depends on the disk)\n"
		       "       env %s %s\n",
		       ++step, envj, joined);
		free(envj);
		free(joined);
		cm_strv_release(&env);
		cm_strv_release(&argv);
		unknown++;
	}
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		char how[96] = "";
		if (!st->rounds)
			snprintf(how, sizeof(how), " (no rounds: only its actions)");
		else if (st->rounds != c->rounds || st->n_tests != c->suite.n)
			snprintf(how, sizeof(how), " (%u round%s x %zu test%s)", st->rounds,
				 st->rounds == 1 ? "" : "s", st->n_tests,
				 st->n_tests == 1 ? "" : "s");
		printf("%3u. state %zu/%zu: %s%s\n", ++step, si + 1, c->n_states, st->name, how);
		for (unsigned k = 1; k <= st->repeat; k++) {
			char *dir = st->repeat > 1 ? cm_asprintf("%s/rep%u", st->name, k)
						   : cm_strdup(st->name);
			if (st->repeat > 1)
				printf("%3u.   repetition %u/%u -> %s/\n", ++step, k, st->repeat,
				       dir);
			for (size_t ai = 0; ai < st->n_actions; ai++)
				describe_step(S, si, &st->actions[ai], &step, &total_s, &unknown);
			for (unsigned r = 1; r <= st->rounds; r++)
				describe_round(S, st, dir, r, &step, &total_s);
			free(dir);
		}
	}
	char d[32];
	/* whole seconds: the plan is an estimate */
	cm_format_duration(d, sizeof(d), (uint64_t)llround(total_s) * 1000);
	printf("\nexpected duration: about %s", d);
	if (unknown)
		printf(" plus %u step%s whose duration depends on the machine (prefill, waits, "
		       "commands, provider actions)",
		       unknown, unknown == 1 ? "" : "s");
	printf("\n");
	fcr_session_release(S);
	return FCR_EXIT_OK;
}
