/* SPDX-License-Identifier: MIT */
/*
 * The statistics, the second stage: from the runs that were read (read/)
 * to the grid of the model (model/model.h), and what the writers show of
 * the transitions and the variants.  Nothing here writes (the writers in
 * write/ do, from what these compute) or calls a writer; the texts made
 * here are the analysis's own: notes, the reasons a run is left out, the
 * comparison's column titles, an action's problems.
 *
 *   compute.c    short and repeated runs left out, rounds numbered, tests,
 *                states and variants in order, baselines, the columns
 *   series.c     the per-second bands, the series and their cells
 *   disturbed.c  the runs the campaign's telemetry calls disturbed: left
 *                out, named, and the changes that come from them
 *   compare.c    the comparison of variants (--compare)
 *   actions.c    each state's actions over its repetitions
 *   versions.c   the fio versions of each state and variant
 *   environments.c  the environments of each state and variant, and
 *                the warnings when what is compared ran in different ones
 *   steady.c     whether each test's rounds in each column are steady
 *   sweep.c      the sweeps: tests that differ only in iodepth, numjobs,
 *                bs, rwmixread or rw, their grids and saturation points
 */
#ifndef AN_STATS_H
#define AN_STATS_H

#include <stdbool.h>
#include <stddef.h>

#include "model/model.h"
#include "read/read.h"

/* ---- the grid and its series (compute.c, series.c) ------------------------------- */

/* What the command line says of the baselines and the order. */
struct an_stats_opts {
	const char *baseline;
	const char *baseline_variant;
	const char *state_order; /* comma-separated */
	bool exclude_disturbed;	 /* leave the disturbed runs out */
	size_t steady_window;	 /* rounds of the steady rule's window; 0: FC_STEADY_WINDOW */
};

/*
 * Numbers rounds, leaves out short runs and repeated ones, orders states
 * and variants, picks the baselines, computes every series; warns when
 * every cell holds a single run.  Returns 0; AN_E_USAGE (a --baseline,
 * --baseline-variant or --state-order name with no usable runs) or
 * AN_E_EMPTY (no usable run, and no transition to show) with err filled.
 */
int an_compute(struct an_analysis *a, const struct an_stats_opts *opt, struct an_error *err);

/* Per-second statistics of one series against a band.  recovery: seconds
 * from the log's start until the first interval at or above band->low;
 * NaN when it never got there (or no band). */
void an_series_stats(const struct an_sec_series *s, const struct an_band *band, double *first,
		     double *min, double *max, double *last, double *recovery);

/* The bands, each round's per-second statistics and the series of every
 * test, once the columns are known (series.c). */
void an_series_build(struct an_analysis *a);

/* --exclude-disturbed: the disturbed runs left out (not accepted, listed
 * as skipped, counted in an_analysis.disturbed_out), before anything is
 * counted (disturbed.c). */
void an_exclude_disturbed(struct an_analysis *a);
/* Once the series are built: a note naming each disturbed run used, and
 * one for each state whose headline change against the baseline comes
 * mainly from disturbed rounds (disturbed.c). */
void an_disturbed_notes(struct an_analysis *a, bool excluded);

/* Each column's fio versions (an_analysis.fio_versions), each variant's,
 * the one version of all, or what they are and where, with a warning,
 * when there are several (versions.c; once the columns are known). */
void an_fio_versions(struct an_analysis *a);

/* A warning for each field of the environments (kernel, fio, file system,
 * a device's scheduler ...) that differs between a column and its
 * reference column, or between the runs of one column, and
 * an_analysis.envs_said when the columns ran in several (environments.c;
 * once the columns are known). */
void an_environments(struct an_analysis *a);

/* The steady rule of SNIA PTS over each test's rounds in each column with
 * at least an_analysis.steady_window of them (an_analysis.steady;
 * steady.c; once the series are built). */
void an_steady_build(struct an_analysis *a);

/* ---- fio's client/server mode (clients.c) --------------------------------------- */

/* Each client's share of each test run in client/server mode, per column
 * (an_analysis.shares; once the columns are known). */
void an_client_shares_build(struct an_analysis *a);

/* ---- sweeps (sweep.c) ------------------------------------------------------------ */

/* The sweeps among the tests (an_analysis.sweeps), once the series are
 * built. */
void an_sweeps_build(struct an_analysis *a);

/*
 * The saturation point of a line of n points in ascending load (queue
 * depth): the index of the lowest point beyond which IOPS (or MiB/s)
 * never grows by 10 % or more while p99 latency grows by more than 50 %
 * to the next point; -1 when there is none (not reached), AN_SAT_UNKNOWN
 * with fewer than two points.  NaN marks a point not measured.
 */
int an_saturation(const double *iops, const double *p99_us, size_t n);

/* ---- the actions over the repetitions (actions.c) ------------------------------- */

/*
 * An action over the repetitions of its state: the actions at the same
 * place in each repetition's list (actions.c).  Samples are in the order
 * of the repetitions; NaN-free, and without the failed actions' (their
 * seconds are not the action's; the failure is in problems).
 */
struct an_action_row {
	size_t index;		     /* 1-based place in the list */
	const struct an_action *act; /* the first repetition's, for its names */
	const char *clock;	     /* of its task seconds: "node", or NULL */
	size_t n;		     /* repetitions that ran it */
	size_t n_failed;
	double *task_s, *watch_s;
	size_t n_task, n_watch;
	size_t hash_checks, hash_matched;
	char *problems; /* "repetition 3: data differs; ..." ; NULL */
};

/* A state's transition over its repetitions. */
struct an_trans_sum {
	const struct an_transition *t;
	struct an_action_row *rows;
	size_t n_rows;
	size_t n_reps, n_done;
	double *down_s, *back_s; /* per repetition that had one, not cut */
	size_t n_down, n_back;
	char *failed; /* "repetition 2 failed: ERROR; ..."; NULL */
	/* "repetition 2: downtime 812.3 s, data back 815.0 s": the timings cut
	 * by an interrupt, left out of the samples; NULL */
	char *cut;
};

/* actions.c: each action of a state over its repetitions. */
void an_trans_sum(const struct an_transition *t, struct an_trans_sum *out);
void an_trans_sum_free(struct an_trans_sum *s);
/* The transitions in the order of the columns, each once (the variants of
 * a campaign share them); *out is malloc'd. */
size_t an_trans_order(const struct an_analysis *a, const struct an_transition ***out);
/* Any transition with actions, a downtime or a failure. */
bool an_has_actions(const struct an_analysis *a);
/* The seconds of a state's actions and of its provider tasks (sums over
 * its list; with repetitions, the median of the repetitions' sums) and how
 * many there are in one repetition. */
void an_action_sums(const struct an_transition *t, double *act_s, size_t *n_act, double *task_s,
		    size_t *n_task);

/* ---- the comparison of variants (compare.c) -------------------------------------- */

/* The comparison of variants (compare.c): rows of a state of a variant (and
 * a data-set size when several are compared), columns of each test's
 * headline metric, bonnie++'s tests and the fio suite's jobs that measure
 * the same in one column.  Borrows from the analysis. */
struct an_cmp_col {
	char *title; /* "block write MiB/s", "rw4k IOPS" */
	int role;    /* enum fc_bonnie_test of its column; -1 for a test's own */
	enum an_metric metric;
	enum fc_ddir dir;
	size_t job;
	bool cpu;      /* CPU % beside it */
	size_t *tests; /* the tests shown in it, no two in one row */
	size_t n_tests;
	size_t order;
};

struct an_cmp_cell {
	const struct an_cell *cell; /* NULL: nothing in this row */
	const struct an_cell *cpu;  /* NULL */
	size_t test;
	double change_pct; /* against the baseline variant's row of the same state
			      and size; NaN */
	bool outside;	   /* outside that row's min..max */
};

struct an_cmp_row {
	size_t col; /* into a->cols; SIZE_MAX: a variant without usable results */
	size_t variant;
	size_t state;		   /* SIZE_MAX with col */
	char *size;		   /* the data set ("16g", "" for none) when by_size; else NULL */
	bool first;		   /* its variant's first row */
	struct an_cmp_cell *cells; /* one per column */
};

struct an_cmp {
	struct an_cmp_col *cols;
	size_t n_cols;
	struct an_cmp_row *rows;
	size_t n_rows, cap_rows;
	bool by_size;	 /* tests of several sizes: a row per size */
	bool bonnie;	 /* a column of bonnie++'s tests (or the fio suite's) */
	char *cpu_note;	 /* NULL, or how fio's CPU % of a group compares */
	size_t *runs_of; /* private: accepted runs by grid column and test */
};

void an_cmp_build(const struct an_analysis *a, struct an_cmp *c);
void an_cmp_free(struct an_cmp *c);
/* The comparison's columns, each test's headline series and its title:
 * returns their number; *series and *titles (and each title) are the
 * caller's to free. */
size_t an_compare_series(const struct an_analysis *a, const struct an_series ***series,
			 char ***titles);

#endif
