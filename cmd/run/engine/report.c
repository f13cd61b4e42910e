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
	if (!fcr_has_status(t, "done") || !fcr_jstr(t, "json"))
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
		for (int d = FC_DDIR_READ; d <= FC_DDIR_TRIM; d++) {
			const struct fc_dir *dd = &out->final->jobs[j].dir[d];
			if (dd->present && isfinite(dd->iops))
				*iops += dd->iops;
		}
	}
	fc_output_free(out);
	return 0;
}

/* A short per-state table of median IOPS through libfiocamp. */
static void builtin_table(const struct fcr_session *S)
{
	const struct fcr_campaign *c = S->c;
	json_t *states = json_object_get(S->rec.m, "states");
	if (!c->suite.n) {
		printf("\nno fio runs (rounds = 0): the actions' timings and results are in "
		       "%s/manifest.json\n",
		       S->cdir);
		fflush(stdout);
		return;
	}
	printf("\n%-16s %-10s %6s %12s %12s %12s %9s\n", "state", "test", "rounds", "median IOPS",
	       "min", "max", "vs first");
	double *base = cm_calloc(c->suite.n, sizeof(double));
	for (size_t ti = 0; ti < c->suite.n; ti++)
		base[ti] = NAN;
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *s = json_array_get(states, si);
		for (size_t sti = 0; sti < st->n_tests; sti++) {
			size_t ti = st->tests[sti];
			/* every round of every repetition is a sample */
			double *vals =
			    cm_calloc((size_t)st->rounds * st->repeat + 1, sizeof(double));
			size_t n = 0;
			for (size_t k = 1; k <= st->repeat; k++) {
				json_t *rounds = json_object_get(fcr_manifest_rep(s, k), "rounds");
				for (unsigned r = 0; r < st->rounds; r++) {
					json_t *t = json_array_get(
					    json_object_get(json_array_get(rounds, r), "tests"),
					    sti);
					double iops;
					if (run_iops(S, t, &iops) == 0)
						vals[n++] = iops;
				}
			}
			struct fc_summary sum;
			if (n == 0 || fc_summarize(vals, n, &sum) < 0) {
				printf("%-16s %-10s %6zu %12s\n", c->states[si].name,
				       S->fio.jobs[ti].test, n, "-");
				free(vals);
				continue;
			}
			char change[16] = "";
			if (isnan(base[ti]))
				base[ti] = sum.median;
			else if (base[ti] > 0)
				snprintf(change, sizeof(change), "%+.1f%%",
					 (sum.median / base[ti] - 1) * 100);
			printf("%-16s %-10s %6zu %12.0f %12.0f %12.0f %9s\n", c->states[si].name,
			       S->fio.jobs[ti].test, n, sum.median, sum.min, sum.max, change);
			free(vals);
		}
	}
	free(base);
	printf("(IOPS: read + write of each run, median over the rounds; the last column is the\n"
	       " change of the median against the first state, %s)\n",
	       c->n_states ? c->states[0].name : "");
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
