/* SPDX-License-Identifier: MIT */
/*
 * The table at the end of a campaign: fiocamp-analyze's (beside us, next to
 * the build tree's copy, or on PATH; $FIOCAMP_ANALYZE names another, or
 * "builtin"), else a short per-state table of median IOPS through
 * libfiocamp.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fiocamp.h>

#include "engine/session.h"
#include "machine/spawn.h"

static char *find_analyzer(void)
{
	const char *env = getenv("FIOCAMP_ANALYZE");
	if (env && *env)
		return strcmp(env, "builtin") ? cm_strdup(env) : NULL;
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *dir = fcr_path_dirname(self);
		const char *rel[] = {"../analyze/fiocamp-analyze", "fiocamp-analyze"};
		for (size_t i = 0; i < CM_ARRAY_SIZE(rel); i++) {
			char *p = cm_asprintf("%s/%s", dir, rel[i]);
			if (access(p, X_OK) == 0) {
				free(dir);
				return p;
			}
			free(p);
		}
		free(dir);
	}
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = cm_strdup(path), *save = NULL;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = cm_asprintf("%s/fiocamp-analyze", *d ? d : ".");
		if (access(p, X_OK) == 0) {
			free(copy);
			return p;
		}
		free(p);
	}
	free(copy);
	return NULL;
}

/* The IOPS (read + write) of one done test of the manifest; -1 without. */
static int run_iops(const struct fcr_session *S, json_t *t, double *iops)
{
	if (!fcr_has_status(t, CM_STATUS_DONE) || !fcr_jstr(t, "json"))
		return -1;
	char *path = cm_asprintf("%s/%s", S->cdir, fcr_jstr(t, "json"));
	struct fc_output *out = NULL;
	struct fc_error ferr;
	fc_output_read_file(path, &out, &ferr);
	free(path);
	if (!out || !out->final) {
		fc_output_free(out);
		return -1;
	}
	*iops = 0;
	for (size_t j = 0; j < out->final->n_jobs; j++) {
		/* a client report's "All clients" is the sum of the others */
		if (out->final->jobs[j].all_clients)
			continue;
		for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
			const struct fc_dir *dd = &out->final->jobs[j].dir[d];
			if (dd->present && isfinite(dd->iops))
				*iops += dd->iops;
		}
	}
	fc_output_free(out);
	return 0;
}

static int widest(int w, const char *s)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

/* Does manifest test entry t belong to unit u (NULL: a campaign without
 * variants or sizes)? */
static bool of_unit(json_t *t, const struct fcr_campaign *c, const struct fcr_unit *u)
{
	if (!u)
		return true;
	const char *v = fcr_jstr(t, "variant"), *size = fcr_jstr(t, "size");
	if (u->variant && (!v || strcmp(v, u->variant->name)))
		return false;
	return !c->by_size || (size && !strcmp(size, u->size->text));
}

/* Whether manifest entry t is of run `run`: its test at its point
 * ("rr4k@iodepth=16,numjobs=2"), or its test alone without a point. */
static bool of_run(json_t *t, const char *run)
{
	const char *name = fcr_jstr(t, "test");
	size_t n = name ? strlen(name) : 0;
	if (!name || strncmp(run, name, n))
		return false;
	json_t *point = json_object_get(t, "point");
	if (!json_object_size(point))
		return run[n] == '\0';
	const char *at = run + n;
	const char *k;
	json_t *v;
	char sep = '@';
	json_object_foreach(point, k, v) {
		const char *val = json_string_value(v);
		size_t kl = strlen(k), vl = val ? strlen(val) : 0;
		if (!val || *at != sep || strncmp(at + 1, k, kl) || at[1 + kl] != '=' ||
		    strncmp(at + 2 + kl, val, vl))
			return false;
		at += 2 + kl + vl;
		sep = ',';
	}
	return *at == '\0';
}

/* Every done run `test` (TEST or TEST@POINT) in unit u of state si, over
 * its repetitions and rounds: their IOPS into vals (room for all). */
static size_t state_values(const struct fcr_session *S, size_t si, const struct fcr_unit *u,
			   const char *test, double *vals)
{
	const struct fcr_state *st = &S->c->states[si];
	json_t *s = json_array_get(json_object_get(S->rec.m, "states"), si);
	size_t n = 0;
	for (size_t k = 1; k <= st->repeat; k++) {
		json_t *rounds = json_object_get(fcr_manifest_rep(s, k), "rounds");
		size_t ri;
		json_t *round;
		json_array_foreach(rounds, ri, round) {
			size_t ti;
			json_t *t;
			json_array_foreach(json_object_get(round, "tests"), ti, t) {
				double iops;
				if (of_run(t, test) && of_unit(t, S->c, u) &&
				    run_iops(S, t, &iops) == 0)
					vals[n++] = iops;
			}
		}
	}
	return n;
}

/* A short per-state table of median IOPS through libfiocamp: a row per
 * state, variant or size, and test. */
static void builtin_table(const struct fcr_session *S)
{
	const struct fcr_campaign *c = S->c;
	if (!c->suite.n) {
		printf("\nno fio runs (rounds = 0): the actions' timings and results are in "
		       "%s/manifest.json\n",
		       S->cdir);
		fflush(stdout);
		return;
	}
	bool units = fcr_campaign_has_units(c);
	size_t n_units = units ? c->n_units : 1;
	/* columns as wide as their longest name */
	int ws = 5, wu = 7, wt = 4;
	for (size_t si = 0; si < c->n_states; si++)
		ws = widest(ws, c->states[si].name);
	for (size_t k = 0; units && k < c->n_units; k++)
		wu = widest(wu, c->units[k].label);
	/* a row per test at each point of its state's sweep */
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		for (size_t j = 0; j < fcr_state_runs(st); j++) {
			size_t ti, pt;
			fcr_state_run_at(c, st, 0, j, &ti, &pt);
			char *run =
			    fcr_sweep_run_name(st->sweep, pt, S->fio.jobs[st->tests[ti]].test);
			wt = widest(wt, run);
			free(run);
		}
	}
	printf("\n%-*s ", ws, "state");
	if (units)
		printf("%-*s ", wu, c->n_variants ? "variant" : "size");
	printf("%-*s %6s %12s %12s %12s %9s\n", wt, "test", "rounds", "median IOPS", "min", "max",
	       "vs first");
	/* the first state's median of each unit and test */
	/* unit index/run name -> the first state's median of it */
	json_t *base = json_object();
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *s = json_array_get(json_object_get(S->rec.m, "states"), si);
		size_t room = 1;
		for (size_t k = 1; k <= st->repeat; k++)
			room += json_array_size(json_object_get(fcr_manifest_rep(s, k), "rounds")) *
				fcr_manifest_round_tests(c, st);
		double *vals = cm_calloc(room, sizeof(double));
		for (size_t k = 0; k < n_units; k++) {
			const struct fcr_unit *u = units ? &c->units[k] : NULL;
			for (size_t j = 0; j < fcr_state_runs(st); j++) {
				size_t sti, pt;
				fcr_state_run_at(c, st, 0, j, &sti, &pt);
				size_t ti = st->tests[sti];
				char *test =
				    fcr_sweep_run_name(st->sweep, pt, S->fio.jobs[ti].test);
				size_t n = state_values(S, si, u, test, vals);
				printf("%-*s ", ws, st->name);
				if (units)
					printf("%-*s ", wu, u->label);
				struct fc_summary sum;
				if (n == 0 || fc_summarize(vals, n, &sum) < 0) {
					printf("%-*s %6zu %12s\n", wt, test, n, "-");
					free(test);
					continue;
				}
				char change[16] = "";
				char *key = cm_asprintf("%zu/%s", k, test);
				json_t *b = json_object_get(base, key);
				if (!b)
					json_object_set_new(base, key, json_real(sum.median));
				else if (json_real_value(b) > 0)
					snprintf(change, sizeof(change), "%+.1f%%",
						 (sum.median / json_real_value(b) - 1) * 100);
				free(key);
				printf("%-*s %6zu %12.0f %12.0f %12.0f %9s\n", wt, test, n,
				       sum.median, sum.min, sum.max, change);
				free(test);
			}
		}
		free(vals);
	}
	json_decref(base);
	printf("(IOPS: read + write of each run, median over the rounds; the last column is the\n"
	       " change of the median against the first state that ran the test%s)\n",
	       units ? (c->n_variants ? " in that variant" : " at that size") : "");
	fflush(stdout);
}

void fcr_report_print(const struct fcr_session *S)
{
	char *analyzer = find_analyzer();
	fflush(stdout);
	if (analyzer) {
		/* the table even when stdout is a pipe or a file */
		char *const argv[] = {analyzer, "--table", S->cdir, NULL};
		struct fcr_spawn_opts o = {
		    .argv = argv,
		    .stdin_fd = FCR_SPAWN_DEVNULL,
		    .stdout_fd = STDOUT_FILENO,
		    .stderr_fd = STDERR_FILENO,
		};
		struct fcr_child ch;
		struct fcr_error err;
		int status = 0;
		/* exit 1: the report is out, some inputs were left out of it */
		if (fcr_spawn(&o, &ch, &err) == 0 && fcr_child_wait(&ch, &status) == 0 &&
		    WIFEXITED(status) && WEXITSTATUS(status) <= 1) {
			free(analyzer);
			return;
		}
		fprintf(stderr, "fiocamp-run: %s did not finish; the short table instead:\n",
			analyzer);
		free(analyzer);
	}
	builtin_table(S);
}
