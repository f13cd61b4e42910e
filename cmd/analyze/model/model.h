/* SPDX-License-Identifier: MIT */
/*
 * The model: what every stage shares.  The reading stage (read/) fills
 * the inputs, the runs with their values and logs, the campaigns and their
 * transitions; it names the states, variants and tests.  The statistics
 * (stats/) number the rounds, order the states and variants into the grid
 * of columns (a state of a variant) and fill a series per test x job x
 * direction x metric with a cell per column.  The writers only read it.
 *
 * Ownership: every string and array hanging off struct an_analysis is
 * owned by it and released with an_analysis_free() (analysis.c); the
 * lookups below borrow from it.  Metrics, their names and units, and the
 * arithmetic every stage shares are in metric.c.
 */
#ifndef AN_MODEL_H
#define AN_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "an.h"
#include "fiocamp.h"

/* ---- metrics (metric.c) ------------------------------------------------------- */

enum an_metric {
	AN_M_IOPS = 0,
	AN_M_BW,
	AN_M_FILES, /* bonnie++'s file-creation tests: files per second */
	AN_M_CPU,   /* user + system CPU of the job (of bonnie++ in a test), % */
	AN_M_CLAT_MEAN,
	AN_M_LAT_MEAN,
	AN_M_CLAT_P50,
	AN_M_CLAT_P99,
	AN_M_CLAT_P999,
	AN_M_LAT_P50,
	AN_M_LAT_P99,
	AN_M_LAT_P999,
	AN_M_LAT_MAX, /* the slowest I/O (bonnie++'s latency: its slowest operation) */
	/* From the per-second log of each round. */
	AN_M_SEC_FIRST,
	AN_M_SEC_MIN,
	AN_M_SEC_MAX,
	AN_M_SEC_LAST,
	AN_M_RECOVERY,
	AN_M_COUNT,
};
#define AN_M_FIRST_LOG AN_M_SEC_FIRST

/* Directions the analysis reports (sync has latencies only). */
#define AN_N_REPORT_DIRS 4
extern const enum fc_ddir an_report_dirs[AN_N_REPORT_DIRS];

const char *an_metric_name(enum an_metric m);  /* "iops", "clat_p99.9", ... */
const char *an_metric_label(enum an_metric m); /* "IOPS", "clat p99.9", ... */
/* Unit of a metric; for per-second metrics it depends on the log type. */
const char *an_metric_unit(enum an_metric m, enum fc_log_type log_type);
/* Parses a name from an_metric_name(); -1 if unknown. */
int an_metric_parse(const char *name);

/* ---- runs ------------------------------------------------------------------------ */

/* What a run's source says about it; NULL / 0 where it says nothing. */
struct an_ident {
	char *variant;
	char *state;
	int round; /* 0 = no number (numbered by time later) */
	char *test;
};
void an_ident_free(struct an_ident *id);

/* What a log's file name says (read/names.c reads it, tolerant of the
 * "log-" prefix). */
struct an_log_name {
	enum fc_log_type type;
	int index;     /* fio's N; 0 for a shared per_job_logs=0 file */
	char *key;     /* dir/prefix, with a leading "log-" of the prefix removed */
	char *key_raw; /* dir/prefix as it is */
	char *host;    /* fio's client/server mode: the client whose log it is
			  (the name's suffix, PREFIX_TYPE.N.log.HOST); NULL */
};
void an_log_name_free(struct an_log_name *n);

struct an_log {
	char *path;
	enum fc_log_type type;
	int index;   /* the process on its client's server in client mode */
	char *host;  /* the client, in client/server mode (an_log_name.host); NULL */
	char *error; /* why it was not used; NULL if fine */
};

/* A per-second series copied out of a log's profile (the profile itself is
 * freed at once): consecutive intervals, NaN for a gap. */
struct an_sec_series {
	uint64_t start_ms; /* start of the first interval, in the log's time */
	uint64_t interval_ms;
	size_t n;
	double *values; /* IO/s for iops logs, MiB/s for bw logs */
};

/* Values of one direction of one job in one run. */
struct an_dirvals {
	bool present; /* the direction did I/O */
	double v[AN_M_COUNT];
	/* bonnie++'s "+++++": done in less than 0.5 s, so its rate (and CPU)
	 * are not known, only that the rate was above too_fast_above (in the
	 * rate's unit; NaN when the row does not say how much was done). */
	bool too_fast;
	double too_fast_above;
	enum fc_log_type log_type; /* of the per-second metrics; FC_LOG_UNKNOWN if none */
	struct an_sec_series sec;  /* sec.n == 0: no per-second log */
	size_t log;		   /* index into run->logs when sec.n */
};

struct an_job {
	char *name; /* valid UTF-8 */
	/* fio's client/server mode: the client the entry is of, named as the
	 * campaign names its host (the manifest's "clients"), else as fio
	 * reports it (HOSTNAME:PORT, a socket's path); "All clients" for the
	 * aggregate entry; NULL outside client mode. */
	char *client;
	char *client_hostname; /* as fio reports it; NULL */
	bool all_clients;
	unsigned procs; /* fio processes summed into this entry (numjobs with
			   group_reporting), 1 otherwise */
	struct an_dirvals dir[FC_DDIR_COUNT];
};

/* A client of fio's client/server mode as the campaign records it: the
 * host it names, and where fio reached it (what fio reports as the
 * entries' hostname and port). */
struct an_client_host {
	char *host;
	char *hostname;
	int port; /* 0: any */
};

/* How a run's identity was found. */
enum an_id_source {
	AN_ID_MANIFEST = 0, /* a campaign's manifest.json */
	AN_ID_PATTERN,	    /* --pattern */
	AN_ID_LAYOUT,	    /* the names of the campaign layout, STATE/rN/TEST */
	AN_ID_BENCH_FIO,    /* a bench-fio tree */
	AN_ID_NAME,	    /* the default inference from its file name */
};

/* What the machine did between two samples of a run's telemetry: seconds
 * since fio started, shares 0..1 of all CPU time (steal, iowait) and of
 * the bytes the device moved (foreign: not fio's); NaN unknown. */
struct an_tm_interval {
	double t0_s, t1_s;
	double steal, iowait, foreign;
};

struct an_run {
	char *path;
	size_t campaign; /* index into campaigns, SIZE_MAX if none */
	char *key;	 /* path without extension, to match logs */
	size_t input;	 /* index into an_analysis.inputs */
	char *group;	 /* the directory, relative to the input, that is not
			    part of the identity ("" for the input itself): runs of
			    one input in several groups are variants */
	enum an_id_source source;
	struct an_ident id;
	char *reading; /* read by its name or --pattern: the --pattern that reads it
			  so; NULL for other sources */
	/* Its round within its repetition of a repeated state (the manifest's;
	 * id.round numbers on over the repetitions); 0: not repeated. */
	int rep_round;
	int repetition; /* which repetition, from 1; 0: not repeated */
	size_t state;	/* index into an_analysis.states, once known */
	size_t variant; /* index into an_analysis.variants */
	size_t test;	/* index into an_analysis.tests */

	struct an_log *logs;
	size_t n_logs, cap_logs;

	bool maybe;	  /* named like no fio output (.txt, .log, none): skipped,
			     not rejected, when its content is not fio's */
	bool csv;	  /* named .csv: skipped when its content is not bonnie++'s */
	const char *skip; /* static: why it is left out unread, listed as
			     skipped; NULL */

	/* Filled by the loader. */
	bool accepted;
	char *reason; /* why it was rejected */
	enum fc_format format;
	int64_t timestamp_ms; /* fio's end-of-run time; -1 unknown */
	uint64_t runtime_ms;  /* longest direction runtime of any job */
	uint64_t io_bytes;    /* summed over jobs and directions */
	bool timed;	      /* a job has a runtime (or time_based) option */
	int time_based;	      /* the first job's: 1, 0, -1 not listed */
	uint64_t log_avg_ms;  /* the first job's log_avg_msec; 0 unknown */
	char *fio_version;
	char *workload;	    /* an_workload_key() */
	char *job_label;    /* the job names, different ones joined by '+' */
	bool merged_jobs;   /* an entry sums jobs of different options (AN_WL_MERGED) */
	bool resumed_first; /* a first round run in a later session than its transition
			       (read/manifest.c): taken as a later round */
	struct an_job *jobs;
	size_t n_jobs;
	/* fio's client/server mode: its jobs are the clients' entries, in the
	 * order of `clients` (else of hostname and port), the "All clients"
	 * entry last. */
	bool client_mode;
	struct an_client_host *clients; /* the manifest's; NULL */
	size_t n_clients;

	/* A bonnie++ row is one run per test it ran (bonnie.c). */
	int bonnie_test;	  /* enum fc_bonnie_test; -1 for fio runs */
	struct fc_bonnie *bonnie; /* the file's rows, between loading and
				     an_bonnie_expand(); NULL otherwise */
	unsigned long line;	  /* of the row in its file; 0 for fio runs */
	size_t file_rows;	  /* rows in the file */
	enum fc_bonnie_format bonnie_format;
	char *bonnie_version; /* "2.00a"; NULL (1.0x, fio) */
	char *bonnie_name;    /* -m; NULL for fio runs */
	char *bonnie_seed;    /* NULL (1.0x, fio) */
	int name_round;	      /* the round the file's name gave, which
				 orders rows numbered as rounds */

	/* What the campaign's telemetry says of the run (read/manifest.c):
	 * why it was disturbed ("steal 7.1% > 5%"), NULL when it was not or
	 * nothing says; the shares of steal and foreign I/O, 0..1, NaN
	 * unknown. */
	char *disturbed;
	double steal, foreign_io;
	/* Its .telemetry file (the manifest's telemetry.file, inside the
	 * campaign directory) and the device its summary was taken of; NULL
	 * when none.  Read for the runs a profile is drawn of (read/telemetry.c):
	 * tm is then the interval between each two samples, NULL before or
	 * when the file could not be read (a note says why). */
	char *telemetry_path;
	char *telemetry_device;
	struct an_tm_interval *tm;
	size_t n_tm;
	/* The environment its state (its repetition) ran in: an index into
	 * an_analysis.envs, SIZE_MAX when the manifest names none. */
	size_t env;
};

/* The first round after its state's transition: round 1, or round 1 of a
 * repetition; not one that ran in a later session than the transition. */
static inline bool an_run_first(const struct an_run *r)
{
	if (r->resumed_first)
		return false;
	return r->rep_round ? r->rep_round == 1 : r->id.round == 1;
}

struct an_action {
	char *action, *text, *status;
	double duration_s;	/* NaN unknown */
	double downtime_s;	/* NaN unless this action waited for SSH */
	char *task_name;	/* NULL without a provider task */
	double task_duration_s; /* NaN unknown; the sum when several tasks ran */
	size_t n_tasks;		/* provider tasks the action ran (task.count, else 1) */
	int hash_match;		/* verify-hash: 1 matched, 0 differs; -1 not a check */
	char *error;		/* why it failed; NULL */
	char *clock;		/* task.clock ("node"); NULL: the provider's */
	size_t rep;		/* index into its transition's reps */
	size_t index;		/* 1-based place in its repetition's list */
	bool cut;		/* begun in an earlier session: duration_s is the last
				 * attempt's part only, no sample */
};

/* One repetition of a state's transition; a state without `repeat` has
 * one, made of the state's own fields. */
struct an_rep {
	int repetition; /* k, from 1 */
	char *status;
	double downtime_s;		/* NaN: nothing took the machine away, or unknown */
	double data_back_s;		/* NaN: none */
	bool data_back_recorded;	/* the manifest had data_back_s (else computed) */
	size_t first_action, n_actions; /* its actions in the transition's */
	size_t hash_checks, hash_matched;
	/* measured across an interrupt that cut the transition short (the
	 * manifest's downtime_cut, data_back_cut): shown, no sample */
	bool downtime_cut, data_back_cut;
	/* The manifest's steady verdict of `rounds = until-steady` (compact
	 * JSON as it is there) and it in words ("steady from round 6 (window
	 * 5)", "not steady over 10 rounds: rr4k range 34 %"); NULL without. */
	char *steady_json;
	char *steady_text;
};

/* A state is a name shared by every variant. */
struct an_state {
	char *name;
	bool in_manifest;
	int64_t first_ts_ms; /* earliest fio timestamp of its accepted runs */
	size_t first_seen;   /* order of first appearance */
	size_t n_runs;	     /* accepted */
};

/* A campaign directory read through its manifest. */
struct an_campaign {
	char *name;	   /* manifest's campaign name, or NULL */
	char *manifest;	   /* path of its manifest.json */
	char *fio_version; /* the manifest's, or NULL */
	char *host;	   /* the manifest's host and target, one line, or NULL */
	size_t input;
	char *group;	/* its directory relative to the input */
	char *provider; /* the manifest's provider type; NULL */
	/* when fiocamp-run called a run disturbed (settings.disturbed):
	 * "steal above 5 %, foreign I/O above 5 %"; NULL when it does not say */
	char *disturbed_rule;
	char *fleet_host; /* the fleet host it is the campaign of; NULL */
};

/* A host of a fleet (read/fleet.c): its campaign directory, what the
 * fleet manifest says of how it ended, and its waits at the barriers. */
struct an_fleet_host {
	char *name;
	char *dir;	 /* its campaign directory */
	char *status;	 /* the fleet manifest's; NULL when it says none */
	char *reason;	 /* why it failed; NULL */
	int exit_status; /* -1 unknown */
	size_t campaign; /* index into campaigns; SIZE_MAX when its directory
			    could not be read (a host that failed before it wrote one) */
	char *group;	 /* the group its runs carry: the host's name, below the
			    fleet's own group */
	size_t barriers; /* the barriers the fleet manifest records it at */
	double waited_s; /* its waits there, summed; NaN when at none */
	double max_wait_s;
};

/* A fleet directory: several hosts' campaigns run in step, each host a
 * variant of the analysis. */
struct an_fleet {
	char *manifest; /* the fleet's manifest.json */
	char *name;	/* the campaign's name; NULL */
	char *mode;	/* "fleet", "aggregate"; NULL */
	char *sync;	/* "states", "none"; NULL */
	char *status;	/* of the whole fleet; NULL */
	size_t input;
	size_t n_barriers;
	struct an_fleet_host *hosts;
	size_t n_hosts, cap_hosts;
};

/* What a campaign's manifest says of one of its states.  The variants of
 * one campaign share its transitions: actions change the machine. */
struct an_transition {
	size_t state, campaign;
	char *status;		   /* manifest's, or NULL */
	double downtime_s;	   /* NaN unknown or nothing took the machine away; the
				      median of the repetitions' */
	struct an_action *actions; /* of every repetition, in order */
	size_t n_actions;
	size_t hash_checks, hash_matched; /* verify-hash actions and those that matched */
	int repeat;			  /* the manifest's, 1 without */
	struct an_rep *reps;
	size_t n_reps;
};

/* A result set compared side by side with others. */
struct an_variant {
	char *name;
	size_t input;
	size_t campaign;   /* index into campaigns, SIZE_MAX if none */
	char *fio_version; /* the campaign's, else its first run's */
	size_t n_runs;
	/* For its stability: results used and rejected (a fio run or a
	 * bonnie++ row each; a rejected bonnie++ file counts once). */
	size_t n_results, n_rejected;
};

/* One capture of a campaign's `environments` (read/manifest.c): what the
 * target was.  fields are what the analysis compares between states and
 * variants (stats/environments.c), each a name ("kernel", "scheduler of
 * loop0") and its value; what the capture could not read is left out. */
struct an_env_field {
	char *name, *value;
};
struct an_env {
	size_t campaign;
	long long id;  /* the manifest's */
	char *where;   /* "preflight", "state after"; NULL */
	char *json;    /* the capture as the manifest has it, compact JSON */
	char *summary; /* its fields in one line */
	struct an_env_field *fields;
	size_t n_fields, cap_fields;
};

/* What the analysis finds of a test's rounds in one column by the steady
 * rule of SNIA PTS (fc_steady_first) on its headline metric
 * (stats/steady.c): only where the column has at least `window` rounds. */
struct an_steady {
	size_t col, test;
	const char *metric; /* static: "iops", "bw" */
	size_t n;	    /* the rounds with a value */
	size_t window;
	bool reached;
	int round;	     /* the last round of the first steady window; 0 */
	double range, slope; /* of that window, else of the last; NaN */
};

/* A client's share of a test run through fio's client/server mode, in one
 * column (stats/clients.c): over the column's rounds, the client's IOPS
 * and MiB/s (its entries summed over the directions) and its share of the
 * clients' sum (of the IOPS, of the MiB/s for blocks of 64 KiB and more);
 * for the aggregate, fio's "All clients". */
struct an_client_share {
	size_t test, col;
	char *client; /* as the jobs name it; "All clients" for the aggregate */
	bool all;     /* the aggregate: fio's "All clients", else the clients' sum */
	size_t n;     /* rounds with a value */
	double iops, iops_min, iops_max; /* median, min, max over the rounds */
	double mibs, mibs_min, mibs_max;
	double share_pct; /* the median of its rounds' shares; 100 for the
			     aggregate; NaN */
};

/* The runs of one fio version in one column (stats/versions.c). */
struct an_fio_version {
	size_t variant, state;
	size_t col;    /* index into an_analysis.cols */
	char *version; /* as fio names itself: "fio-3.33" */
	size_t n_runs; /* accepted */
};

/* A test: one workload, named. */
struct an_test {
	char *name;
	char *base;	/* the name the runs' sources gave, before a split */
	char *workload; /* the key, borrowed from a run */
	size_t n_runs;
	int64_t first_ts;
	size_t series_start, series_end; /* its series: a->series[start, end) */
	int bonnie_test;		 /* enum fc_bonnie_test of a bonnie++ test; -1 for fio's */
};

/* A column of the grid: one state in one variant. */
struct an_col {
	size_t state, variant;
	size_t n_runs; /* accepted runs */
};

/* One column's values of a series, by round. */
struct an_cell {
	size_t n;
	double *values; /* n values, ordered by round */
	int *rounds;
	/* the first round after the state's transition: round 1, or round 1 of
	 * each repetition of a repeated state (an_run_first) */
	bool *first;
	size_t *runs;	    /* index into an_analysis.runs of each value */
	bool *disturbed;    /* the value's run was disturbed (an_run.disturbed) */
	size_t disturbed_n; /* how many were */
	struct fc_summary sum;
	/* Against the baseline state in the same variant. */
	double change_pct; /* NaN for the baseline itself */
	bool outside;	   /* median outside the baseline's min-max */
	bool have_mw;
	struct fc_mann_whitney mw;
	/* The same without the disturbed rounds of both cells, when either has
	 * some: NaN, false otherwise (or when one has no other round). */
	double clean_median, clean_change_pct;
	size_t clean_n;
	bool clean_have_mw;
	struct fc_mann_whitney clean_mw;
	double round1;	 /* value of round 1 (the median of each repetition's round
			    1 when the state repeats); NaN if round 1 is missing */
	size_t round1_n; /* the values round1 is of: 1, or the repetitions' */
	double round1_change_pct;
	size_t rest_n;
	double rest_median; /* median of rounds 2..n */
	/* bonnie++ rounds too fast to measure, left out of every statistic */
	size_t too_fast;
	double too_fast_above; /* the least of their lower bounds; NaN unknown */
	int *too_fast_rounds;
	size_t *too_fast_runs;
	bool round1_too_fast;
	double rest_change_pct;
	/* Against the baseline variant in the same state. */
	double v_change_pct;
	bool v_outside;
	bool v_have_mw;
	struct fc_mann_whitney v_mw;
};

/* (test, job, direction, metric) across columns. */
struct an_series {
	size_t test;
	size_t job_index;
	char *job_name;
	char *client;	 /* the job's client in client/server mode; NULL */
	bool client_all; /* the "All clients" aggregate */
	enum fc_ddir dir;
	enum an_metric metric;
	enum fc_log_type log_type;
	struct an_cell *cells; /* one per column */
};

/* The baseline band of per-second values: p10..p90 of every per-second
 * value of the baseline state's runs of that variant, test, job and
 * direction. */
struct an_band {
	size_t variant;
	size_t test;
	size_t job_index;
	enum fc_ddir dir;
	enum fc_log_type log_type;
	size_t n;
	double low, high;
};

/* ---- sweeps (stats/sweep.c) ------------------------------------------------- */

/* Tests that differ from each other only in one or two of iodepth,
 * numjobs, bs, rwmixread and rw: the swept options are the grid's rows
 * and (with two) its columns. */
#define AN_SWEEP_OPTS 2

/* One test of a sweep, at its place in the grid. */
struct an_sweep_point {
	size_t test;
	size_t at[AN_SWEEP_OPTS]; /* index into each option's values */
};

/* A point in one column (a state of a variant): each round's values,
 * summed over the test's jobs and directions (IOPS, MiB/s) or the largest
 * of them (p99, completion latency if the report has it, else total). */
struct an_sweep_cell {
	size_t n;
	int *rounds;
	double *iops, *mibs, *p99_us; /* n each, in the order of the rounds */
	double iops_med, iops_min, iops_max;
	double mibs_med, mibs_min, mibs_max;
	double p99_med, p99_min, p99_max; /* NaN: no latency */
	/* the headline's and p99's median against the reference column's
	 * (an_ref_col) at the same point; NaN */
	double change_pct, p99_change_pct;
	/* of its rounds, how many the campaign's telemetry called disturbed
	 * (the most of any of its jobs' headline cells) */
	size_t disturbed_n;
};

/* Saturation says -1: not reached; AN_SAT_UNKNOWN: fewer than two points. */
#define AN_SAT_UNKNOWN (-2)

struct an_sweep {
	char *label;			 /* "rr4k", "randread bs=4k" */
	size_t n_opts;			 /* 1 or 2 */
	const char *opts[AN_SWEEP_OPTS]; /* static: "iodepth" (rows), "numjobs" (columns) */
	char **values[AN_SWEEP_OPTS];	 /* each option's values, numbers ascending */
	size_t n_values[AN_SWEEP_OPTS];
	struct an_sweep_point *points; /* rows first */
	size_t n_points;
	bool bandwidth;		     /* MiB/s is the headline (large blocks, bs swept) */
	struct an_sweep_cell *cells; /* [point * n_cols + col] */
	/* The option the saturation runs along: iodepth, else numjobs; -1. */
	int load;
	/* per column and line (a value of the other option, or one line):
	 * the index into values[load] of the saturation point, -1 not
	 * reached, AN_SAT_UNKNOWN; [col * n_lines + line] */
	size_t n_lines;
	int *saturation;
};

struct an_notes {
	char **items;
	size_t n, cap;
};

struct an_rejected {
	char *path;
	char *reason;
};

/* A file left out on purpose (not fio output); reason is static. */
struct an_skipped {
	char *path;
	const char *reason;
};

/* A directory read while walking a tree, to read each one once. */
struct an_dir_id {
	uint64_t dev, ino;
};

/* A log found apart from a manifest, waiting to be matched to its run. */
struct an_pending_log {
	char *path;
	size_t input;
	struct an_log_name name;
};

/* One command-line input (or --label NAME=PATH). */
struct an_input {
	char *arg;   /* as given */
	char *label; /* NAME of --label, or NULL */
	char *root;  /* the directory relative paths start from */
	char *name;  /* its name as a variant (label, else a unique basename) */
	bool bench_fio;
	bool fleet;	 /* a fleet directory: its hosts are its groups, even one */
	size_t n_groups; /* distinct run groups */
};

struct an_analysis {
	/* Inputs. */
	struct an_input *inputs;
	size_t n_inputs, cap_inputs;
	struct an_run *runs;
	size_t n_runs, cap_runs;
	struct an_rejected *rejected; /* files and logs left out */
	size_t n_rejected, cap_rejected;
	struct an_skipped *skipped;
	size_t n_skipped, cap_skipped;
	struct an_notes notes;	  /* in the table's footer, or on stderr */
	struct an_notes warnings; /* always on stderr, and in the footer */
	struct an_pending_log *plogs;
	size_t n_plogs, cap_plogs;
	struct an_dir_id *walked;
	size_t n_walked, cap_walked;
	size_t manifest_unfinished; /* runs the manifest lists as pending/running/skipped */
	struct an_campaign *campaigns;
	size_t n_campaigns, cap_campaigns;
	struct an_fleet *fleets;
	size_t n_fleets, cap_fleets;
	char *fio_version; /* the one version of every run; NULL when several or none */
	/* each column's versions, in the order of the columns */
	struct an_fio_version *fio_versions;
	size_t n_fio_versions, cap_fio_versions;
	char *fio_versions_said; /* "fio-3.28 (state before), fio-3.33 (state after)"
				    when several; NULL */

	/* Groups. */
	struct an_state *states;
	size_t n_states, cap_states;
	size_t *order; /* display order of states: those with columns */
	size_t n_order;
	size_t baseline; /* index into states */
	struct an_variant *variants;
	size_t n_variants, cap_variants;
	size_t baseline_variant;
	struct an_transition *trans;
	size_t n_trans, cap_trans;
	struct an_test *tests;
	size_t n_tests, cap_tests;
	struct an_col *cols; /* variants in order, each with its states in order */
	size_t n_cols;
	size_t base_col; /* baseline state in the baseline variant */

	struct an_series *series;
	size_t n_series, cap_series;
	struct an_band *bands;
	size_t n_bands, cap_bands;
	struct an_sweep *sweeps;
	size_t n_sweeps;
	double short_fraction; /* runs below this share of their test's median runtime are short */
	size_t disturbed_out;  /* disturbed runs --exclude-disturbed left out */
	struct an_env *envs;   /* the campaigns' environments, as read */
	size_t n_envs, cap_envs;
	char *envs_said;		/* "1 (state basis), 2 (states after, control)" when the
					   columns ran in several environments; NULL */
	struct an_client_share *shares; /* per test, column and client, in order */
	size_t n_shares, cap_shares;
	size_t steady_window;	  /* rounds of the steady rule's window */
	struct an_steady *steady; /* per column and test with enough rounds */
	size_t n_steady, cap_steady;
};

void an_note(struct an_analysis *a, const char *fmt, ...) CM_PRINTF(2, 3);
void an_warn(struct an_analysis *a, const char *fmt, ...) CM_PRINTF(2, 3);
void an_reject(struct an_analysis *a, const char *path, const char *fmt, ...) CM_PRINTF(3, 4);
void an_skip(struct an_analysis *a, const char *path, const char *reason);
/* An empty analysis: runs below 0.8 of their test's median runtime are short. */
void an_analysis_init(struct an_analysis *a);
void an_analysis_free(struct an_analysis *a);
/* Frees what hangs off a run (not the run itself). */
void an_run_free(struct an_run *r);
/* Index of the state called `name`, added when new. */
size_t an_state_get(struct an_analysis *a, const char *name);
/* Index of the variant called `name`, added when new. */
size_t an_variant_get(struct an_analysis *a, const char *name, size_t input);
/* The transition of (state, campaign), added when new. */
struct an_transition *an_transition_get(struct an_analysis *a, size_t state, size_t campaign);
/* The transition of the state in the variant's campaign; NULL if none. */
const struct an_transition *an_transition_of(const struct an_analysis *a, size_t state,
					     size_t variant);
/* The fleet host a variant ran on (*fleet set to its fleet's index);
 * NULL when it is no host of a fleet. */
const struct an_fleet_host *an_variant_host(const struct an_analysis *a, size_t variant,
					    size_t *fleet);
/* The one fleet whose hosts are all the variants, each variant a host
 * named as it (no host campaign has variants of its own, no other input):
 * the report is then of the fleet and its hosts.  NULL otherwise. */
const struct an_fleet *an_fleet_alone(const struct an_analysis *a);
/* The variant that is the fleet's host k; SIZE_MAX when it has none (a
 * host that failed before it wrote its campaign directory). */
size_t an_host_variant(const struct an_analysis *a, const struct an_fleet *f, size_t k);
/* Column of (state, variant); SIZE_MAX if none. */
size_t an_col_find(const struct an_analysis *a, size_t state, size_t variant);

/* ---- lookups (analysis.c) --------------------------------------------------------- */

/* The series of (test, job, direction, metric); NULL if none. */
const struct an_series *an_find_series(const struct an_analysis *a, size_t test, size_t job,
				       enum fc_ddir dir, enum an_metric m);
/* The baseline band of (variant, test, job, direction, log type); NULL. */
const struct an_band *an_find_band(const struct an_analysis *a, size_t variant, size_t test,
				   size_t job, enum fc_ddir dir, enum fc_log_type type);
/* What marks a column: its transition's failed status, "data differs"
 * when a verify-hash did not match; NULL.  Static or borrowed. */
const char *an_col_mark(const struct an_analysis *a, const struct an_col *c);
/* Whether a column carries a mark (see an_col_mark). */
bool an_any_marked(const struct an_analysis *a);
/* The column a column's changes are shown against: the baseline state of
 * its variant; in the baseline state, the baseline variant; SIZE_MAX for
 * the base column itself, or when the reference has no column. */
size_t an_ref_col(const struct an_analysis *a, size_t col);
/* Accepted runs of column `col` and test `test`; of the whole analysis. */
size_t an_runs_of(const struct an_analysis *a, size_t col, size_t test);
size_t an_used_runs(const struct an_analysis *a);

/* The cell of a sweep's point in a column; the line (a value of the
 * option other than the load, 0 with one option) a point is on. */
const struct an_sweep_cell *an_sweep_cell(const struct an_analysis *a, const struct an_sweep *s,
					  size_t point, size_t col);
size_t an_sweep_line(const struct an_sweep *s, size_t point);

/* ---- arithmetic (metric.c) ----------------------------------------------------- */

/* The median of n values (NaN for none); v is not changed. */
double an_median(const double *v, size_t n);
/* (v - base) / base in percent; NaN when either is not finite or base is 0. */
double an_pct_change(double v, double base);

#endif
