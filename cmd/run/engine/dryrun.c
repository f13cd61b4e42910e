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

/* The fio runs of round r of state st in <rel> (its tests at each point),
 * with their environment. */
static void describe_suite(struct fcr_session *S, const struct fcr_state *st, unsigned r,
			   const char *rel, double *total_s)
{
	const struct fcr_campaign *c = S->c;
	char runtime[32];
	cm_format_duration(runtime, sizeof(runtime), c->runtime_ms);
	struct cm_strv env = {0}, argv = {0};
	for (size_t j = 0; j < fcr_state_runs(st); j++) {
		size_t ti, pt;
		fcr_state_run_at(c, st, r, j, &ti, &pt);
		const struct fcr_jobfile *job = &S->fio.jobs[st->tests[ti]];
		char *name = fcr_sweep_run_name(st->sweep, pt, job->test);
		S->fio.sweep = st->sweep;
		S->fio.point = pt;
		fcr_fio_env(&S->fio, job, name, &env);
		S->fio.sweep = NULL;
		size_t len;
		char *text = fcr_fio_job_text(job, env.v, &len);
		free(text);
		/* numjobs above 1: the job file with group_reporting put before it */
		const char *grouped = len != job->len ? ", group_reporting" : "";
		fcr_target_fio_argv(&S->tgt, name, env.v, len, &argv);
		char *joined = fcr_shell_join(argv.v);
		char *envj = fcr_shell_join(env.v);
		if (c->target == FCR_TARGET_LOCAL)
			printf("         %s (%s%s): cd %s && env %s %s\n", name, runtime, grouped,
			       rel, envj, joined);
		else
			printf("         %s (%s%s): %s\n", name, runtime, grouped, joined);
		free(envj);
		free(joined);
		free(name);
		cm_strv_release(&env);
		cm_strv_release(&argv);
		*total_s += (double)c->runtime_ms / 1000.0 + FCR_FIO_OVERHEAD_GUESS_S;
	}
}

/* The points of a sweep, one a line. */
static void describe_sweep(const char *whose, const struct fcr_sweep *sw)
{
	printf("%s sweep %s: %zu point%s, each test at each:", whose, sw->text, sw->n_points,
	       sw->n_points == 1 ? "" : "s");
	for (size_t p = 0; p < sw->n_points; p++) {
		char *n = fcr_sweep_point_name(sw, p);
		printf("%s%s", p ? ", " : " ", n);
		free(n);
	}
	printf("\n");
}

/* "4 rounds", "1 round", or until steady "5–8 rounds": the fewest and the most. */
static void rounds_text(char *buf, size_t len, unsigned rounds, unsigned steady_max,
			unsigned window)
{
	if (steady_max)
		snprintf(buf, len, "%u–%u rounds", window, steady_max);
	else
		snprintf(buf, len, "%u round%s", rounds, rounds == 1 ? "" : "s");
}

/* The rounds shown one by one and counted in the expected duration: until
 * steady the fewest. */
static unsigned rounds_shown(const struct fcr_state *st)
{
	return st->steady_max ? st->steady_window : st->rounds;
}

/*
 * Until steady: the rounds after the window, each run only while the state
 * is not steady yet, as one line; their time goes into *extra_s (the most
 * the campaign can take beyond the expected duration).
 */
static void describe_extra_rounds(struct fcr_session *S, const struct fcr_state *st,
				  const char *dir, unsigned *step, double *extra_s)
{
	const struct fcr_campaign *c = S->c;
	unsigned from = st->steady_window + 1;
	if (!st->steady_max || from > st->steady_max)
		return;
	if (from == st->steady_max)
		printf("%3u.   round %u/%u -> %s/r%u/, only when rounds %u-%u were not steady\n",
		       ++*step, from, st->rounds, dir, from, from - st->steady_window,
		       st->steady_window);
	else
		printf("%3u.   rounds %u-%u -> %s/r%u/ ... r%u/, each only while the last %u "
		       "rounds are not steady\n",
		       ++*step, from, st->steady_max, dir, from, st->steady_max, st->steady_window);
	double per_round = (double)c->pause_ms / 1000.0 +
			   (double)fcr_manifest_round_tests(c, st) *
			       ((double)c->runtime_ms / 1000.0 + FCR_FIO_OVERHEAD_GUESS_S);
	*extra_s += per_round * (st->steady_max - st->steady_window);
}

/* Round r of a state (or of one repetition) in dir, its fio command lines. */
static void describe_round(struct fcr_session *S, const struct fcr_state *st, const char *dir,
			   unsigned r, unsigned *step, double *total_s)
{
	const struct fcr_campaign *c = S->c;
	char pause[32];
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	if (r > 1 && c->pause_ms) {
		printf("%3u.   pause %s\n", ++*step, pause);
		*total_s += (double)c->pause_ms / 1000.0;
	}
	printf("%3u.   round %u/%u -> %s/r%u/\n", ++*step, r, st->rounds, dir, r);
	char *rel = cm_asprintf("%s/r%u", dir, r);
	describe_suite(S, st, r, rel, total_s);
	free(rel);
}

/* A place's prefill (the campaign's directory, v NULL, or variant v's), as
 * fcr_session_prefill runs it: what it fills, its report, its fio command. */
static void describe_prefill(struct fcr_session *S, const struct fcr_variant *v, const char *indent,
			     unsigned *step, unsigned *unknown)
{
	char size[32];
	char *name = fcr_prefill_name(v);
	fcr_session_use_place(S, v, size, sizeof(size));
	struct cm_strv env = {0}, argv = {0};
	fcr_fio_env(&S->fio, &S->fio.prefill_job, name, &env);
	fcr_target_fio_argv(&S->tgt, name, env.v, S->fio.prefill_job.len, &argv);
	char *joined = fcr_shell_join(argv.v);
	char *envj = fcr_shell_join(env.v);
	char what[32];
	cm_format_size(what, sizeof(what), v ? v->file_bytes : S->c->size_bytes);
	printf("%3u. %sprefill%s%s: %s of %s -> prefill/%s.json (duration depends on the disk)\n",
	       ++*step, indent, v ? " of variant " : "", v ? v->name : "", what,
	       v ? v->test_file : S->tgt.test_file, name);
	printf("       %scd prefill && env %s %s\n", indent, envj, joined);
	free(envj);
	free(joined);
	cm_strv_release(&env);
	cm_strv_release(&argv);
	fcr_session_use_place(S, NULL, NULL, 0);
	free(name);
	(*unknown)++;
}

/* A unit's part of round r in <dir>/r<N>/: the variant's first use in the
 * state (or repetition) first (its before actions; its prefill the first
 * time of all), then the suite. */
static void describe_unit(struct fcr_session *S, size_t si, const char *dir, unsigned r,
			  const struct fcr_unit *u, bool *used, bool *prefilled, unsigned *step,
			  double *total_s, unsigned *unknown)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	const struct fcr_variant *v = u->variant;
	if (v && !used[u->variant_index]) {
		used[u->variant_index] = true;
		if (v->n_actions)
			printf("%3u.   variant %s, its first use in state %s:\n", ++*step, v->name,
			       st->name);
		for (size_t ai = 0; ai < v->n_actions; ai++)
			describe_step(S, si, &v->actions[ai], step, total_s, unknown);
		if (c->prefill && !prefilled[u->variant_index]) {
			prefilled[u->variant_index] = true;
			describe_prefill(S, v, "  ", step, unknown);
		}
	}
	S->fio.file = v ? v->test_file : NULL;
	S->fio.size_bytes = u->size->bytes;
	char *rel = cm_asprintf("%s/r%u/%s", dir, r, u->dir);
	printf("%3u.   round %u/%u, %s%s -> %s/\n", ++*step, r, st->rounds,
	       v ? "variant " : "size ", u->label, rel);
	describe_suite(S, st, r, rel, total_s);
	free(rel);
}

/* The rounds of state si in <dir> when they run on units (variants, sizes). */
static void describe_units(struct fcr_session *S, size_t si, const char *dir, bool *prefilled,
			   unsigned *step, double *total_s, unsigned *unknown)
{
	const struct fcr_campaign *c = S->c;
	const struct fcr_state *st = &c->states[si];
	char pause[32];
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	bool *used = cm_calloc(c->n_variants + 1, sizeof(*used));
	bool seq = c->order == FCR_ORDER_SEQUENTIAL;
	bool first = true;
	for (size_t only = 0; seq && only < c->n_units; only++) {
		for (unsigned r = 1; r <= st->rounds; r++) {
			if (!first && c->pause_ms) {
				printf("%3u.   pause %s\n", ++*step, pause);
				*total_s += (double)c->pause_ms / 1000.0;
			}
			first = false;
			describe_unit(S, si, dir, r, &c->units[only], used, prefilled, step,
				      total_s, unknown);
		}
	}
	for (unsigned r = 1; !seq && r <= rounds_shown(st); r++) {
		if (r > 1 && c->pause_ms) {
			printf("%3u.   pause %s\n", ++*step, pause);
			*total_s += (double)c->pause_ms / 1000.0;
		}
		printf("%3u.   round %u/%u -> %s/r%u/, order", ++*step, r, st->rounds, dir, r);
		for (size_t k = 0; k < c->n_units; k++)
			printf(" %s", c->units[fcr_campaign_unit_at(c, r, k)].dir);
		printf("\n");
		for (size_t k = 0; k < c->n_units; k++)
			describe_unit(S, si, dir, r, &c->units[fcr_campaign_unit_at(c, r, k)], used,
				      prefilled, step, total_s, unknown);
	}
	free(used);
}

int fcr_engine_dry_run(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct fcr_session S_ = {.c = c, .o = o}, *S = &S_;
	struct fcr_error err;
	if (fcr_aggregate_mode(c)) {
		struct cm_strv problems = {0};
		int rc = fcr_aggregate_check(c, &problems) < 0 ? FCR_EXIT_USAGE
							       : fcr_aggregate_dry_run(c, o);
		for (size_t i = 0; i < problems.n; i++)
			fprintf(stderr, "%s\n", problems.v[i]);
		cm_strv_release(&problems);
		return rc;
	}
	if (fcr_session_jobs(S, &err) < 0 || fcr_target_init(&S->tgt, c, NULL, NULL, &err) < 0) {
		fprintf(stderr, "fiocamp-run: %s\n", err.msg);
		fcr_session_release(S);
		return FCR_EXIT_USAGE;
	}
	char size[32], pause[32], runtime[32];
	cm_format_size(size, sizeof(size), c->size_bytes);
	cm_format_duration(pause, sizeof(pause), c->pause_ms);
	cm_format_duration(runtime, sizeof(runtime), c->runtime_ms);
	char rounds[64];
	rounds_text(rounds, sizeof(rounds), c->rounds, c->steady_max, c->steady_window);
	if (c->host)
		printf("host %s of %zu: target %s\n", c->host, c->n_hosts, c->target_text);
	/* a state's own rounds or suite: the plan below says which */
	bool own = false;
	for (size_t i = 0; i < c->n_states; i++)
		own |= c->states[i].rounds_line || c->states[i].suite_line;
	printf("campaign %s (%s): %zu state%s x %s x %zu test%s, target %s%s\n", c->name, c->source,
	       c->n_states, c->n_states == 1 ? "" : "s", rounds, c->suite.n,
	       c->suite.n == 1 ? "" : "s", c->target_text,
	       own ? "; some states have rounds or tests of their own (plan below)" : "");
	if (c->uses_test_file)
		printf("test file %s, %s (%llu bytes), %s at the end; runtime %s; pause %s; "
		       "ioengine %s, direct=%d\n",
		       S->tgt.test_file, size, (unsigned long long)c->size_bytes,
		       c->keep_file ? "kept" : "removed", runtime, pause, c->ioengine, c->direct);
	else if (c->n_variants)
		printf("runtime %s; pause %s; ioengine %s, direct=%d; each variant's test file "
		       "%s at the end\n",
		       runtime, pause, c->ioengine, c->direct, c->keep_file ? "kept" : "removed");
	else
		printf("no test file: no fio run, prefill or fresh-file uses one\n");
	bool units = fcr_campaign_has_units(c);
	for (size_t i = 0; i < c->n_variants; i++) {
		const struct fcr_variant *v = &c->variants[i];
		printf("variant %s: %s %s%s, size", v->name, v->directory ? "test file" : "device",
		       v->test_file, v->filename ? " (destructive: written over)" : "");
		for (size_t k = 0; k < v->n_sizes; k++)
			printf(" %s", v->sizes[k].text);
		printf("\n");
	}
	if (units)
		printf("%zu unit%s per round (%s), order %s\n", c->n_units,
		       c->n_units == 1 ? "" : "s", c->n_variants ? "variants x sizes" : "sizes",
		       c->order == FCR_ORDER_SEQUENTIAL
			   ? "sequential: all rounds of one, then the next"
			   : "interleaved: each round runs all, the first rotating");
	/* the sweeps and what they multiply: the fio runs of the whole campaign */
	if (c->sweep.n_axes)
		describe_sweep("campaign", &c->sweep);
	size_t fio_runs = 0;
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		if (st->sweep_line && st->sweep->n_axes) {
			char whose[FCR_NAME_MAX_BYTES + 16];
			snprintf(whose, sizeof(whose), "state %s", st->name);
			describe_sweep(whose, st->sweep);
		}
		fio_runs += (size_t)st->repeat * rounds_shown(st) * fcr_manifest_round_tests(c, st);
	}
	if (c->sweep.n_axes || fio_runs)
		printf("%zu fio run%s%s\n", fio_runs, fio_runs == 1 ? "" : "s",
		       c->steady_max ? " with the fewest rounds" : "");
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
		printf("campaign directory %s\n", o->out_dir ? o->out_dir
						  : c->host  ? "NAME-HOST-YYYYmmdd-HHMMSS"
							     : "NAME-YYYYmmdd-HHMMSS");
	printf(c->suite.n ? "jobs:\n" : "jobs: none (no rounds)\n");
	for (size_t i = 0; i < c->suite.n; i++)
		printf("  %-10s %s\n", S->fio.jobs[i].test, S->fio.jobs[i].origin);
	if (S->fio.prefill_job.origin)
		printf("  %-10s %s\n", "prefill", S->fio.prefill_job.origin);

	double total_s = 0, extra_s = 0;
	unsigned unknown = 0;
	unsigned step = 0;
	printf("\nplan:\n");
	if (c->uses_test_file)
		printf("%3u. preflight on %s: fio --version, mkdir -p %s, free space >= %s\n",
		       ++step, c->target_text, c->directory, size);
	else
		printf("%3u. preflight on %s: fio --version\n", ++step, c->target_text);
	for (size_t i = 0; i < c->n_variants; i++) {
		const struct fcr_variant *v = &c->variants[i];
		char vsize[32];
		cm_format_size(vsize, sizeof(vsize), v->file_bytes);
		if (v->directory)
			printf("       variant %s: mkdir -p %s, free space >= %s\n", v->name,
			       v->directory, vsize);
		else
			printf("       variant %s: %s is a block device of at least %s, neither it "
			       "nor a partition mounted, swap or held\n",
			       v->name, v->filename, vsize);
	}
	bool *prefilled = cm_calloc(c->n_variants + 1, sizeof(*prefilled));
	struct cm_buf desc = {0};
	if (c->provider->describe_preflight)
		c->provider->describe_preflight(S->prov, &desc);
	if (desc.len) {
		printf("%3u. %s preflight, nothing changed:\n", ++step, c->provider_type);
		print_indented(desc.s);
	}
	cm_buf_release(&desc);
	/* the campaign's own place in the preflight; a variant's at its first use */
	if (c->prefill && !c->n_variants)
		describe_prefill(S, NULL, "", &step, &unknown);
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		char how[160] = "";
		rounds_text(rounds, sizeof(rounds), st->rounds, st->steady_max, st->steady_window);
		if (!st->rounds)
			snprintf(how, sizeof(how), " (no rounds: only its actions)");
		else if (st->steady_max)
			snprintf(how, sizeof(how),
				 " (%s x %zu test%s: until the last %u rounds are steady)", rounds,
				 st->n_tests, st->n_tests == 1 ? "" : "s", st->steady_window);
		else if (st->sweep_line && st->sweep->n_points > 1)
			snprintf(how, sizeof(how), " (%s x %zu test%s x %zu points)", rounds,
				 st->n_tests, st->n_tests == 1 ? "" : "s", st->sweep->n_points);
		else if (st->rounds != c->rounds || st->n_tests != c->suite.n)
			snprintf(how, sizeof(how), " (%s x %zu test%s)", rounds, st->n_tests,
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
			if (units)
				describe_units(S, si, dir, prefilled, &step, &total_s, &unknown);
			for (unsigned r = 1; !units && r <= rounds_shown(st); r++)
				describe_round(S, st, dir, r, &step, &total_s);
			if (st->rounds)
				describe_extra_rounds(S, st, dir, &step, &extra_s);
			free(dir);
		}
	}
	free(prefilled);
	char d[32];
	/* whole seconds: the plan is an estimate; a timed part under half a
	 * second still counts as one */
	uint64_t secs = (uint64_t)llround(total_s);
	if (!secs && total_s > 0)
		secs = 1;
	cm_format_duration(d, sizeof(d), secs * 1000);
	const char *why = "(prefill, waits, commands, provider actions)";
	if (!secs && unknown)
		/* a campaign of actions only: nothing of it has a known length */
		printf("\nexpected duration: not known beforehand: %u step%s whose duration "
		       "depends on the machine %s\n",
		       unknown, unknown == 1 ? "" : "s", why);
	else if (unknown)
		printf("\nexpected duration: about %s plus %u step%s whose duration depends on "
		       "the machine %s\n",
		       d, unknown, unknown == 1 ? "" : "s", why);
	else
		printf("\nexpected duration: about %s\n", d);
	if (extra_s > 0) {
		/* until steady: the expected duration counts the fewest rounds */
		uint64_t most = (uint64_t)llround(total_s + extra_s);
		cm_format_duration(d, sizeof(d), most * 1000);
		printf(
		    "(with the fewest rounds of the states that run until steady; with the most, "
		    "about %s)\n",
		    d);
	}
	fcr_session_release(S);
	return FCR_EXIT_OK;
}

int fcr_engine_dry_run_fleet(const struct fcr_campaign *c, const struct fcr_catalog *cat,
			     const struct fcr_options *o)
{
	printf("fleet %s (%s): %zu host%s:", c->name, c->source, c->n_hosts,
	       c->n_hosts == 1 ? "" : "s");
	for (size_t i = 0; i < c->n_hosts; i++)
		printf(" %s", c->hosts[i].name);
	printf("\n");
	if (c->mode == FCR_MODE_AGGREGATE)
		printf("mode aggregate: each test runs once per round on every host at the same "
		       "moment; sync states\n");
	else
		printf("mode fleet: each host runs the whole campaign; sync %s%s\n",
		       c->sync == FCR_SYNC_STATES ? "states: every host begins each repetition "
						    "of each state together"
						  : "none: each host at its own pace",
		       !strcmp(c->provider_type, "proxmox") && !c->parallel_transitions
			   ? "; transitions on one Proxmox node one at a time"
			   : "");
	const char *base = o->resume_dir ? o->resume_dir : o->out_dir;
	int worst = FCR_EXIT_OK;
	for (size_t i = 0; i < c->n_hosts; i++) {
		const char *name = c->hosts[i].name;
		struct cm_strv errors = {0};
		struct fcr_campaign *h = NULL;
		printf("\n");
		fflush(stdout);
		if (fcr_campaign_parse_host(c->text, c->text_len, c->source, cat, name, &h,
					    &errors) < 0) {
			/* the fleet's reading checked every host's already */
			for (size_t k = 0; k < errors.n; k++)
				fprintf(stderr, "%s\n", errors.v[k]);
			cm_strv_release(&errors);
			worst = FCR_EXIT_USAGE;
			continue;
		}
		free(h->name);
		h->name = cm_strdup(c->name);
		struct fcr_options ho = *o;
		char *dir = cm_asprintf("%s/hosts/%s", base ? base : "NAME-YYYYmmdd-HHMMSS", name);
		if (o->resume_dir)
			ho.resume_dir = dir;
		else
			ho.out_dir = dir;
		int rc = fcr_engine_dry_run(h, &ho);
		worst = rc > worst ? rc : worst;
		free(dir);
		fcr_campaign_free(h);
		cm_strv_release(&errors);
	}
	return worst;
}
