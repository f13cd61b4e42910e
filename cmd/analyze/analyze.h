/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze internals: inputs (runs and their logs), the statistics
 * computed over them, and the writers.  Built only against the public
 * libfiocamp header.
 *
 * Ownership: every string and array hanging off struct an_analysis is owned
 * by it and released with an_analysis_free(); nothing else frees them.
 */
#ifndef AN_ANALYZE_H
#define AN_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/campaign.h"
#include "common/common.h"
#include "fiocamp.h"

/* ---- workloads (workload.c) --------------------------------------------------- */

/* The fields of a workload key, in key order.  time_based is not one: fio
 * before 3.39 does not list valueless options, so it is unknown for most
 * reports (see docs/fiocamp-analyze.1, WORKLOADS). */
enum an_wl_field {
	AN_WL_NAME = 0,
	AN_WL_RW,
	AN_WL_RWMIXREAD, /* mixed modes only */
	AN_WL_BS,	 /* the directions the job does */
	AN_WL_BSRANGE,
	AN_WL_BSSPLIT,
	AN_WL_IODEPTH,
	AN_WL_NUMJOBS,
	AN_WL_IOENGINE,
	AN_WL_DIRECT,
	AN_WL_SIZE,
	AN_WL_RUNTIME,
	/* bonnie++ rows only (bonnie.c) */
	AN_WL_CONCURRENCY, /* -c */
	AN_WL_SEEKS,	   /* seeks of the seek test */
	AN_WL_SEEKERS,	   /* its processes */
	AN_WL_FILES,	   /* files of the file-creation tests */
	AN_WL_FILE_SIZE,   /* their max:min size, or link / symlink */
	AN_WL_DIRS,	   /* their directories */
	AN_WL_COUNT,
};
#define AN_WL_ALL ((1u << AN_WL_COUNT) - 1)
extern const char *const an_wl_fields[AN_WL_COUNT];

/* fio's sizes and times as fio reads them; false when not that shape. */
bool an_parse_size(const char *text, bool kb_base_1000, uint64_t *bytes);
bool an_parse_time_ms(const char *text, uint64_t *ms);
/* 4096 -> "4k", 1048576 -> "1m", 4000 -> "4000". */
void an_fmt_size(char *buf, size_t len, uint64_t bytes);
/* Whether `mode` (len bytes) is one of fio's rw values. */
bool an_rw_known(const char *mode, size_t len);

/* The workload key of a report (see workload.c); caller frees. */
char *an_workload_key(const struct fc_run *run);
/* Appends field f with `value` to a key being built (one job). */
void an_wl_put(struct cm_buf *b, enum an_wl_field f, const char *value);
size_t an_wl_jobs(const char *key);
/* Field f of job `job`: true and its value (not NUL-terminated). */
bool an_wl_get(const char *key, size_t job, enum an_wl_field f, const char **value, size_t *len);
bool an_wl_same(const char *a, const char *b, size_t job, enum an_wl_field f);
/* False when the report listed no options (terse output). */
bool an_wl_options_listed(const char *key);
/* "f=v f=v ..." of the fields in the mask, jobs joined by " | "; with
 * lead_rw the rw value comes bare ("randread bs=4k"). */
void an_wl_describe(struct cm_buf *b, const char *key, unsigned fields_mask, bool lead_rw);
/* The first job's largest block size is 64 KiB or more: its headline is
 * bandwidth, not IOPS. */
bool an_wl_large_blocks(const char *key);

/* ---- names (names.c) -------------------------------------------------------- */

/* What a run's source says about it; NULL / 0 where it says nothing. */
struct an_ident {
	char *variant;
	char *state;
	int round; /* 0 = no number (numbered by time later) */
	char *test;
};
void an_ident_free(struct an_ident *id);

/*
 * Splits a label such as "basis1", "snap1-1" or "snap3-4" into state and
 * round: the trailing digits (at most 6) are the round, one '-' or '_'
 * before them is dropped.  A label without trailing digits is all state,
 * round 0.  False when nothing would be left of the state.
 */
bool an_split_label(const char *label, size_t len, struct an_ident *id);

/* The campaign directory layout .../STATE/rN/TEST (r, run or round before
 * N): 0 with state, round and test set, or -1. */
int an_infer_layout(const char *key_path, struct an_ident *id);

/*
 * A file name (without directory and extension) taken apart for the
 * default inference: a date or date and time anywhere in it is removed
 * (2024-05-01, 20240501, 2024-05-01T12:00:00, 20240501-1200), and a
 * trailing round token (3, run3, r3, round-3, rep3, iter3, loop3, pass3).
 */
struct an_name {
	char *stem; /* what is left, without separators at its ends */
	char *date; /* the first date removed; NULL if none */
	int round;  /* 0 if no trailing round token */
};
void an_name_parse(const char *base, struct an_name *out);
void an_name_free(struct an_name *n);
/* Separators between the words of a name. */
bool an_name_sep(char c);
/* The last component of a path; borrowed. */
const char *an_base_name(const char *path);
/*
 * Whether `word` is all of `stem`, or its first or last words (case does
 * not matter).  On true, [*rest, *rest + *rest_len) is what is left of the
 * stem without the word and its separator.
 */
bool an_name_affix(const char *stem, const char *word, const char **rest, size_t *rest_len);
/* The bench-fio tree .../DEVICE/[MODEMIX/]BS/MODE-IODEPTH-NUMJOBS (a key
 * path relative to its input): true, and the device path (everything
 * before BS and MODEMIX; may be empty), malloc'd. */
bool an_bench_fio_path(const char *rel_key, char **device);
/* A bench-fio log prefix MODE-iodepth-N-numjobs-M as the key of its
 * report, MODE-N-M; NULL if it is not one. */
char *an_bench_fio_log_key(const char *key);

/* A --pattern with {variant}, {state}, {round}, {test} and '*'. */
struct an_pattern;
int an_pattern_compile(const char *text, struct an_pattern **out, char *why, size_t why_len);
/* Matches the last components of `key_path`: 0 and *id filled (fields
 * the pattern lacks stay NULL), or -1. */
int an_pattern_match(const struct an_pattern *p, const char *key_path, struct an_ident *id);
void an_pattern_free(struct an_pattern *p);
const char *an_pattern_text(const struct an_pattern *p); /* as given */
/* The directories the pattern covers (its '/' count). */
size_t an_pattern_dirs(const struct an_pattern *p);

/* What a log's file name says (own parser, tolerant of the "log-" prefix). */
struct an_log_name {
	enum fc_log_type type;
	int index;     /* fio's N; 0 for a shared per_job_logs=0 file */
	char *key;     /* dir/prefix, with a leading "log-" of the prefix removed */
	char *key_raw; /* dir/prefix as it is */
};
/* True when the last component of `path` is a fio log name. */
bool an_log_name_parse(const char *path, struct an_log_name *out);
void an_log_name_free(struct an_log_name *n);

/* Kinds of files met while scanning a directory. */
enum an_file_kind {
	AN_FILE_SKIP = 0, /* job files, env, stderr, images, archives, our files */
	AN_FILE_OUTPUT,	  /* .json .terse: fio's own output names */
	AN_FILE_MAYBE,	  /* .txt .out .log or none: read if its content is fio's (or bonnie++'s) */
	AN_FILE_CSV,	  /* .csv: read if its content is bonnie++'s (or fio's) */
	AN_FILE_LOG,	  /* a fio log name */
};
/* The kind, and for AN_FILE_SKIP why ("a fio job file", ...; static). */
enum an_file_kind an_file_kind(const char *path, const char **why);

/* The path without the extension of an output file (".json" ...). */
char *an_output_key(const char *path);

/* ---- the model of the analysis ---------------------------------------------- */

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

struct an_log {
	char *path;
	enum fc_log_type type;
	int index;
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
	char *name;	/* valid UTF-8 */
	unsigned procs; /* fio processes summed into this entry (numjobs with
			   group_reporting), 1 otherwise */
	struct an_dirvals dir[FC_DDIR_COUNT];
};

/* How a run's identity was found. */
enum an_id_source {
	AN_ID_MANIFEST = 0, /* a campaign's manifest.json */
	AN_ID_PATTERN,	    /* --pattern */
	AN_ID_LAYOUT,	    /* the names of the campaign layout, STATE/rN/TEST */
	AN_ID_BENCH_FIO,    /* a bench-fio tree */
	AN_ID_NAME,	    /* the default inference from its file name */
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
	/* Its round within its repetition of a repeated state (the manifest's;
	 * id.round numbers on over the repetitions); 0: not repeated. */
	int rep_round;
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
	char *workload;	 /* an_workload_key() */
	char *job_label; /* the job names, different ones joined by '+' */
	struct an_job *jobs;
	size_t n_jobs;

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
};

/* The first round after its state's transition: round 1, or round 1 of a
 * repetition. */
static inline bool an_run_first(const struct an_run *r)
{
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
	double *down_s, *back_s; /* per repetition that had one */
	size_t n_down, n_back;
	char *failed; /* "repetition 2 failed: ERROR; ..."; NULL */
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
	size_t *runs; /* index into an_analysis.runs of each value */
	struct fc_summary sum;
	/* Against the baseline state in the same variant. */
	double change_pct; /* NaN for the baseline itself */
	bool outside;	   /* median outside the baseline's min-max */
	bool have_mw;
	struct fc_mann_whitney mw;
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

/* How an input directory is read. */
enum an_layout {
	AN_LAYOUT_AUTO = 0, /* by names, or as a bench-fio tree if it is one */
	AN_LAYOUT_NAMES,
	AN_LAYOUT_BENCH_FIO,
};

/* One command-line input (or --label NAME=PATH). */
struct an_input {
	char *arg;   /* as given */
	char *label; /* NAME of --label, or NULL */
	char *root;  /* the directory relative paths start from */
	char *name;  /* its name as a variant (label, else a unique basename) */
	bool bench_fio;
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
	char *fio_version; /* the first variant's */

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
	double short_fraction; /* runs below this share of their test's median runtime are short */
};

void an_note(struct an_analysis *a, const char *fmt, ...) CM_PRINTF(2, 3);
void an_warn(struct an_analysis *a, const char *fmt, ...) CM_PRINTF(2, 3);
void an_reject(struct an_analysis *a, const char *path, const char *fmt, ...) CM_PRINTF(3, 4);
void an_skip(struct an_analysis *a, const char *path, const char *reason);
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
/* Column of (state, variant); SIZE_MAX if none. */
size_t an_col_find(const struct an_analysis *a, size_t state, size_t variant);

/* ---- discovery (discover.c) ------------------------------------------------ */

struct an_options {
	const char *pattern;
	const char *baseline;
	const char *baseline_variant;
	const char *state_order; /* comma-separated */
	bool no_manifest;
	enum an_layout layout;
};

/* Adds an input (a command-line argument, or PATH of --label NAME=PATH;
 * label NULL otherwise); the same path twice is one input. */
void an_add_input(struct an_analysis *a, const char *arg, const char *label);
/* Names the inputs as variants: labels, else basenames made unique. */
void an_name_inputs(struct an_analysis *a);

/* Finds the runs and logs of input `in`.  Returns 0, or -1 after printing
 * why (usage-level problems: missing path, bad manifest). */
int an_discover(struct an_analysis *a, size_t in, const struct an_pattern *pattern,
		const struct an_options *opt);

/* Reads a manifest held in memory, as if it were `label` in `dir` (for the
 * fuzzer).  0, or -1 after printing why. */
int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len);

/* ---- identity (identify.c) -------------------------------------------------- */

/*
 * After the reports are read: state, round and test of every run from its
 * name where its source did not say (the default inference, with the job
 * names), variants from inputs and groups, tests split by workload.
 */
void an_identify(struct an_analysis *a);

/* Matches logs found apart from their runs to runs; unmatched logs are
 * rejected with the reason. */
void an_attach_logs(struct an_analysis *a);

/* ---- loading (load.c) --------------------------------------------------------- */

/* Reads every run's report on `threads` threads; marks rejects. */
void an_load_reports(struct an_analysis *a, int threads);
/* Reads the per-second logs of the accepted runs; lists unusable logs. */
void an_load_logs(struct an_analysis *a, int threads);
/* Lists the rejected runs (after an_identify and an_compute have added
 * theirs). */
void an_list_rejects(struct an_analysis *a);

/* ---- bonnie++ rows (bonnie.c) ----------------------------------------------- */

enum an_bonnie_read {
	AN_BONNIE_ROWS = 0, /* r->bonnie set */
	AN_BONNIE_NONE,	    /* no bonnie++ output */
	AN_BONNIE_NO_ROWS,  /* bonnie++'s text table, or a header, without a row */
	AN_BONNIE_BAD,	    /* a row bonnie++ does not write */
};
/* Reads run r's file as bonnie++ CSV; r->reason says why for the last two. */
int an_bonnie_load(struct an_run *r);
/* Replaces each run holding r->bonnie by one accepted run per row and
 * test that ran, where the file was in the list. */
void an_bonnie_expand(struct an_analysis *a);
/* Where bonnie++'s test `test` (enum fc_bonnie_test) puts its rate. */
void an_bonnie_test_place(int test, enum fc_ddir *dir, enum an_metric *metric);
/* The bonnie++ test a test stands for: its own, or that of the fio suite's
 * job it runs (bon_write: put_block, bon_rewrite: rewrite, bon_read:
 * get_block, bon_seeks: seeks); -1 for none. */
int an_bonnie_role(const struct an_analysis *a, size_t test);

/* ---- statistics (compute.c) ------------------------------------------------- */

/*
 * Numbers rounds, leaves out short runs and repeated ones, orders states
 * and variants, picks the baselines, computes every series.  Returns 0;
 * -1 with a message printed (unknown --baseline, --baseline-variant or
 * --state-order name); -2 when no run is usable.
 */
int an_compute(struct an_analysis *a, const struct an_options *opt);

const struct an_band *an_find_band(const struct an_analysis *a, size_t variant, size_t test,
				   size_t job, enum fc_ddir dir, enum fc_log_type type);

/* (v - base) / base in percent; NaN when either is not finite or base is 0. */
double an_pct_change(double v, double base);

/* Per-second statistics of one series against a band.  recovery: seconds
 * from the log's start until the first interval at or above band->low;
 * NaN when it never got there (or no band). */
void an_series_stats(const struct an_sec_series *s, const struct an_band *band, double *first,
		     double *min, double *max, double *last, double *recovery);

/* ---- output (format.c, report.c) ------------------------------------------ */

struct an_csv {
	char sep;
	char decimal;
};

/* Writes one CSV field with RFC 4180 quoting when it holds the separator, a
 * quote, CR or LF. */
void an_csv_field(struct cm_buf *b, const struct an_csv *c, const char *text);
/* A number with `decimals` places and the dialect's decimal mark; empty for
 * NaN. */
void an_csv_number(struct cm_buf *b, const struct an_csv *c, double v, int decimals);
/* Formats a value for the terminal: 29094, 113.6, 4.25, 1.23M. */
void an_fmt_short(char *buf, size_t len, double v);
/* "+6.6%", "-87.0%", "" for NaN. */
void an_fmt_pct(char *buf, size_t len, double pct);
/* Display width of n bytes of UTF-8 text: code points, not bytes (what we
 * print has no wide glyphs but those job names bring). */
size_t an_text_width(const char *s, size_t n);
/* Writes `text` word-wrapped to `width` columns: the first line starts with
 * `first`, the others with `indent` spaces.  Line breaks in text are kept;
 * a word longer than a line is broken. */
void an_wrap(FILE *f, const char *first, size_t indent, const char *text, int width);

enum an_csv_kind {
	AN_CSV_SUMMARY,
	AN_CSV_ROUNDS,
	AN_CSV_PROFILE,
	AN_CSV_TRANSITIONS,
	AN_CSV_ACTIONS,
	AN_CSV_WIDE,
	AN_CSV_COMPARE,
};

struct an_report_opts {
	struct an_csv csv;
	bool bom;
	bool pct_fraction;	  /* CSV changes as fractions, columns named change* */
	bool metrics[AN_M_COUNT]; /* rows in the table and markdown */
	bool metrics_given;	  /* by --metrics; else bonnie++ tests show theirs */
	int width;		  /* terminal columns */
};

/* Shared by the writers (report.c). */
const struct an_series *an_find_series(const struct an_analysis *a, size_t test, size_t job,
				       enum fc_ddir dir, enum an_metric m);
/* What marks a column: its transition's failed status, "data differs"
 * when a verify-hash did not match; NULL.  Static or borrowed. */
const char *an_col_mark(const struct an_analysis *a, const struct an_col *c);
/* "state", "variant" or "variant / state", as the analysis needs; caller frees. */
char *an_col_name(const struct an_analysis *a, const struct an_col *c);
size_t an_runs_of(const struct an_analysis *a, size_t col, size_t test);
size_t an_used_runs(const struct an_analysis *a);
void an_action_sums(const struct an_transition *t, double *act_s, size_t *n_act, double *task_s,
		    size_t *n_task);
/* The column the table compares a column with; SIZE_MAX for none. */
size_t an_ref_col(const struct an_analysis *a, size_t col);
/* "matched", "DIFFERS", "matched (2 of 2)", "-"; caller frees. */
char *an_integrity_text(const struct an_transition *t);

/* actions.c: each action of a state over its repetitions. */
void an_trans_sum(const struct an_transition *t, struct an_trans_sum *out);
void an_trans_sum_free(struct an_trans_sum *s);
double an_median(const double *v, size_t n); /* NaN for none */
/* Data back computed from the actions when the manifest has no
 * data_back_s: the downtime plus the actions from the wait-ssh up to the
 * verify-hash that matched.  NaN without them. */
double an_data_back_s(const struct an_action *acts, size_t n);
/* "2, 2, 3" (at most 3 decimals, as few as the values need); caller frees. */
char *an_secs_list(const double *v, size_t n);
/* "the node's clock", "netcup's clock", "the provider's clock"; static or
 * borrowed from the campaign. */
const char *an_clock_name(const struct an_analysis *a, const struct an_transition *t,
			  const char *clock);
/* The transitions in the order of the columns, each once (the variants of
 * a campaign share them); *out is malloc'd. */
size_t an_trans_order(const struct an_analysis *a, const struct an_transition ***out);
/* Any transition with actions, a downtime or a failure. */
bool an_has_actions(const struct an_analysis *a);
/* The actions table's columns and one row's cells (malloc'd), the line
 * above a state's rows, and whether a state has anything to show (report.c). */
#define AN_ACTION_COLS 7
extern const char *const an_action_heads[AN_ACTION_COLS];
void an_action_cells(const struct an_analysis *a, const struct an_transition *t,
		     const struct an_action_row *ar, char **row);
char *an_action_state_line(const struct an_analysis *a, const struct an_trans_sum *s);
bool an_trans_sum_shown(const struct an_trans_sum *s);
/* The terminal and Markdown tables of the actions (report.c). */
void an_write_actions_table(FILE *f, const struct an_analysis *a, int width);
void an_write_actions_markdown(FILE *f, const struct an_analysis *a);

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
/* "29094 (22900..49674) -12.0%* +1 too fast", ">512 (3 too fast)", "-";
 * the change only with `change`.  Caller frees. */
char *an_cmp_cell_text(const struct an_cmp_cell *cell, bool change);
char *an_cmp_cpu_text(const struct an_cmp_cell *cell);
/* "12 ok", "11 ok, 1 rejected" on a variant's first row, else "". */
char *an_cmp_stability_text(const struct an_analysis *a, const struct an_cmp_row *row);

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
/* The compact comparison: variants (and states) as rows, each test's
 * headline metric as columns; as Markdown when `markdown`. */
void an_write_compare(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		      bool markdown);
void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *o);
/* 0, or -1 when jansson could not encode (out of memory). */
int an_write_json(FILE *f, const struct an_analysis *a);

/* ---- the tables for other writers (report.c) ---------------------------------- */

/* One table as the terminal shows it.  Borrowed: valid during the callback. */
struct an_tab {
	const char *title;
	size_t test;	  /* the test of a block of the grid; SIZE_MAX for the
			     transitions and the comparison */
	size_t job_index; /* with test */
	enum fc_ddir dir; /* with test */
	size_t ncols;
	const size_t *cols; /* indices into a->cols; NULL for the comparison */
	char **heads;	    /* ncols column headers */
	size_t nrows;
	const char **labels; /* nrows row labels; sub-rows start with spaces */
	char ***cells;	     /* nrows x ncols */
};
typedef void (*an_tab_fn)(void *ctx, const struct an_tab *t);
/* The blocks of --table (compare false) or the rows of --compare, in order. */
void an_tables(const struct an_analysis *a, const struct an_report_opts *o, bool compare,
	       an_tab_fn fn, void *ctx);
/* The legends under the table (grid) or the comparison, one paragraph each
 * (static); returns how many, at most 4. */
size_t an_table_legends(const struct an_analysis *a, bool grid, bool marks, const char **paras);
/* The paragraph under the comparison: what a cell holds. */
void an_compare_legend(struct cm_buf *b, const struct an_analysis *a);
/* Whether a column carries a mark (see an_col_mark). */
bool an_any_marked(const struct an_analysis *a);
/* The comparison's columns, each test's headline series and its title:
 * returns their number; *series and *titles (and each title) are the
 * caller's to free. */
size_t an_compare_series(const struct an_analysis *a, const struct an_series ***series,
			 char ***titles);

/* ---- pictures: SVG primitives (svg.c) ----------------------------------------- */

/*
 * Text into XML: & < > " ' as entities, bytes that are not well-formed
 * UTF-8 and characters XML does not allow (control characters, U+FFFE,
 * U+FFFF) as U+FFFD, so that any name from any file gives well-formed XML.
 * C1 controls and DEL become U+FFFD too: they have no glyph.  Tab, CR
 * and LF become spaces: every text we write is one line.
 */
void an_xml_escape(struct cm_buf *b, const char *s, size_t n);
void an_xml_puts(struct cm_buf *b, const char *s);
/*
 * A small formatter for SVG and HTML: %v a double rounded to 0.1 with '.'
 * whatever the locale ("12", "12.5", "-3.1"; 0 for NaN), %s a trusted
 * string as it is, %e a string escaped with an_xml_escape, %z a size_t,
 * %% a percent sign.  Nothing else.
 */
void an_svg_put(struct cm_buf *b, const char *fmt, ...);
/* Up to `max_cols` code points of s; one more would not fit: the text is
 * cut and ends in "…".  Returns whether it was cut. */
bool an_svg_clip(struct cm_buf *out, const char *s, size_t max_cols);
/* The width of text in px at font size `px`, estimated wide enough for
 * DejaVu Sans (the widest of the usual sans-serif fonts). */
double an_svg_text_px(const char *s, double px);

/* The font family every chart names (no web fonts). */
extern const char an_svg_fonts[];
/* Okabe-Ito colours, a marker shape and a dash pattern per series index
 * (cycling): told apart in greyscale and with any colour vision. */
const char *an_svg_colour(size_t i);
enum an_shape {
	AN_SHAPE_CIRCLE,
	AN_SHAPE_SQUARE,
	AN_SHAPE_TRIANGLE,
	AN_SHAPE_DIAMOND,
	AN_SHAPE_TRIANGLE_DOWN,
	AN_SHAPE_CROSS,
	AN_SHAPE_COUNT
};
enum an_shape an_svg_shape(size_t i);
const char *an_svg_dash(size_t i); /* "" for a solid line */
/* A marker of radius r at (x, y) as a path or circle element, with `attrs`
 * (fill, stroke ...) inside the tag; `title` (may be NULL) as its hover text. */
void an_svg_marker(struct cm_buf *b, enum an_shape shape, double x, double y, double r,
		   const char *attrs, const char *title);

/* "Nice" axis ticks over [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of
 * ten, about `want` of them.  *step gets the step; ticks[] the values from
 * the first multiple of step at or below lo to the first at or above hi;
 * returns how many (at most cap). */
size_t an_nice_ticks(double lo, double hi, size_t want, double *step, double *ticks, size_t cap);
/* A tick value in few characters: 0, 250, 1k, 1.5k, 10k, 1.5M, 0.25. */
void an_fmt_tick(char *buf, size_t len, double v, double step);
/*
 * Min/max decimation of n values into `columns` pixel columns: the indices
 * of the minimum and the maximum of each column, in order (one when they
 * coincide; SIZE_MAX where a column holds no finite value, a gap), so that
 * spikes stay visible.  out must hold 2 * columns entries; returns how
 * many were written.  With n <= 2 * columns every index is kept.
 */
size_t an_decimate_minmax(const double *v, size_t n, size_t columns, size_t *out);

/* ---- pictures: the charts (charts.c) and the report (html.c) ------------------ */

enum an_chart_kind {
	AN_CHART_ROUNDS,      /* per test, job, direction, metric: every round */
	AN_CHART_PROFILE,     /* per test, job, direction (and variant): round 1 per second */
	AN_CHART_TRANSITIONS, /* per campaign: actions, tasks, downtime, data back */
	AN_CHART_COMPARE,     /* the variants' headline metrics */
	AN_CHART_KINDS,
};

struct an_chart {
	enum an_chart_kind kind;
	char *file;  /* its --svg file name, unique */
	char *title; /* one line, for a caption */
	size_t test; /* SIZE_MAX for a chart of no one test */
	size_t job_index;
	enum fc_ddir dir;
	char *svg; /* the <svg> element (no XML declaration) */
	size_t svg_len;
};

struct an_charts {
	struct an_chart *v;
	size_t n, cap;
};

/* The kind's file name pattern and what it shows (static), as the man page
 * lists them. */
const char *an_chart_kind_file(enum an_chart_kind k);
const char *an_chart_kind_text(enum an_chart_kind k);

/* Every chart of the analysis, in the order of the report. */
void an_charts_make(struct an_charts *out, const struct an_analysis *a,
		    const struct an_report_opts *o);
void an_charts_release(struct an_charts *c);
/* Writes each chart as DIR/FILE, a standalone SVG file; DIR is made when
 * missing.  0, or -1 with why (naming the file) filled. */
int an_charts_write_dir(const struct an_charts *c, const char *dir, char *why, size_t why_len);

/* The self-contained HTML report (XHTML, so that XML tools read it too):
 * the campaign's facts, the tables, each test with its charts.
 * `generator` names the program and its version. */
void an_write_html(FILE *f, const struct an_analysis *a, const struct an_report_opts *o,
		   const struct an_charts *c, const char *generator);

#endif
