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

#include "fiocamp.h"

#define AN_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- small helpers (common.c) -------------------------------------------- */

/* Allocation that ends the program with a message when memory runs out:
 * the analyzer has nothing sensible to do without memory. */
void *an_malloc(size_t size);
void *an_calloc(size_t n, size_t size);
void *an_realloc(void *p, size_t n, size_t size);
char *an_strdup(const char *s);
char *an_strndup(const char *s, size_t n);
char *an_asprintf(const char *fmt, ...) AN_PRINTF(1, 2);

/* Appends one element of `size` bytes to a growable array; returns it zeroed. */
void *an_push(void *array_ptr, size_t *n, size_t *cap, size_t size);
#define AN_PUSH(arr, n, cap) ((__typeof__(&(arr)[0]))an_push(&(arr), &(n), &(cap), sizeof(*(arr))))

/* Growable string. */
struct an_buf {
	char *s;
	size_t len, cap;
};
void an_buf_putc(struct an_buf *b, char c);
void an_buf_puts(struct an_buf *b, const char *s);
void an_buf_putn(struct an_buf *b, const char *s, size_t n);
void an_buf_printf(struct an_buf *b, const char *fmt, ...) AN_PRINTF(2, 3);
void an_buf_free(struct an_buf *b);

/* The text of a library error, "file:line:col: message". */
char *an_error_text(const struct fc_error *err);

/* ---- names (names.c) -------------------------------------------------------- */

/* Where a run's state, round and test came from. */
struct an_ident {
	char *state; /* owned by the caller after a successful call */
	int round;   /* 0 = no number in the name (numbered by time later) */
	char *test;
};
void an_ident_free(struct an_ident *id);

/*
 * Splits a label such as "basis1", "snap1-1" or "snap3-4" into state and
 * round: the trailing digits are the round, one '-' before them is dropped.
 * A label without trailing digits is all state, round 0.  False when
 * nothing would be left of the state.
 */
bool an_split_label(const char *label, size_t len, struct an_ident *id);

/*
 * Default inference from a "key path" (the path without its extension, and
 * for logs without "_iops.1.log" and a leading "log-"):
 *   .../STATE/rN/TEST          (the campaign directory layout)
 *   .../LABEL-TEST             (the published example: basis1-rw4k)
 * 0, or -1 with `why` filled.
 */
int an_infer_default(const char *key_path, struct an_ident *id, char *why, size_t why_len);

/* A --pattern with {state}, {round}, {test} and '*'. */
struct an_pattern;
int an_pattern_compile(const char *text, struct an_pattern **out, char *why, size_t why_len);
/* Matches the last components of `key_path`: 0 and *id filled, or -1. */
int an_pattern_match(const struct an_pattern *p, const char *key_path, struct an_ident *id);
void an_pattern_free(struct an_pattern *p);
const char *an_pattern_text(const struct an_pattern *p); /* as given */

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
	AN_FILE_SKIP = 0, /* job files, env, stderr, our own files, ... */
	AN_FILE_OUTPUT,	  /* .json .txt .out .terse: maybe fio output */
	AN_FILE_LOG,	  /* a fio log name */
};
enum an_file_kind an_file_kind(const char *path);

/* The path without the extension of an output file (".json" ...). */
char *an_output_key(const char *path);

/* ---- the model of the analysis ---------------------------------------------- */

enum an_metric {
	AN_M_IOPS = 0,
	AN_M_BW,
	AN_M_CLAT_MEAN,
	AN_M_LAT_MEAN,
	AN_M_CLAT_P50,
	AN_M_CLAT_P99,
	AN_M_CLAT_P999,
	AN_M_LAT_P50,
	AN_M_LAT_P99,
	AN_M_LAT_P999,
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
	enum fc_log_type log_type; /* of the per-second metrics; FC_LOG_UNKNOWN if none */
	struct an_sec_series sec;  /* sec.n == 0: no per-second log */
	size_t log;		   /* index into run->logs when sec.n */
};

struct an_job {
	char *name;
	struct an_dirvals dir[FC_DDIR_COUNT];
};

struct an_run {
	char *path;
	char *key; /* path without extension, to match logs */
	struct an_ident id;
	size_t state; /* index into an_analysis.states, once known */
	size_t test;  /* index into an_analysis.tests */

	struct an_log *logs;
	size_t n_logs, cap_logs;

	/* Filled by the loader. */
	bool accepted;
	char *reason;	      /* why it was rejected */
	int64_t timestamp_ms; /* fio's end-of-run time; -1 unknown */
	uint64_t runtime_ms;  /* longest direction runtime of any job */
	uint64_t io_bytes;    /* summed over jobs and directions */
	bool timed;	      /* a job has a runtime (or time_based) option */
	uint64_t log_avg_ms;  /* the first job's log_avg_msec; 0 unknown */
	char *fio_version;
	struct an_job *jobs;
	size_t n_jobs;
};

struct an_action {
	char *action, *text, *status;
	double duration_s;	/* NaN unknown */
	double downtime_s;	/* NaN unless this action waited for SSH */
	char *task_name;	/* NULL without a provider task */
	double task_duration_s; /* NaN unknown; the sum when several tasks ran */
	size_t n_tasks;		/* provider tasks the action ran (task.count, else 1) */
};

struct an_state {
	char *name;
	bool in_manifest;
	char *status;	   /* manifest's, or NULL */
	double downtime_s; /* NaN unknown or nothing took the machine away */
	struct an_action *actions;
	size_t n_actions;
	int64_t first_ts_ms; /* earliest fio timestamp of its accepted runs */
	size_t first_seen;   /* order of first appearance */
	size_t n_runs;	     /* accepted */
	bool shown;	     /* has accepted runs */
};

/* One state's values of a series, by round. */
struct an_cell {
	size_t n;
	double *values; /* n values, ordered by round */
	int *rounds;
	size_t *runs; /* index into an_analysis.runs of each value */
	struct fc_summary sum;
	double change_pct; /* median vs baseline median; NaN for the baseline itself */
	bool outside;	   /* median outside the baseline's min-max */
	bool have_mw;
	struct fc_mann_whitney mw;
	double round1; /* value of round 1; NaN if round 1 is missing */
	double round1_change_pct;
	size_t rest_n;
	double rest_median; /* median of rounds 2..n */
	double rest_change_pct;
};

/* (test, job, direction, metric) across states. */
struct an_series {
	size_t test;
	size_t job_index;
	char *job_name;
	enum fc_ddir dir;
	enum an_metric metric;
	enum fc_log_type log_type;
	struct an_cell *cells; /* one per state, in display order */
};

/* The baseline band of per-second values: p10..p90 of every per-second
 * value of the baseline's runs of that test, job and direction. */
struct an_band {
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

/* A directory read while walking a tree, to read each one once. */
struct an_dir_id {
	uint64_t dev, ino;
};

/* A log found apart from a manifest, waiting to be matched to its run. */
struct an_pending_log {
	char *path;
	struct an_log_name name;
};

struct an_analysis {
	/* Inputs. */
	char *campaign;	   /* manifest's campaign name */
	char *manifest;	   /* path of manifest.json; NULL without */
	char *fio_version; /* the manifest's, else the first run's */
	struct an_run *runs;
	size_t n_runs, cap_runs;
	struct an_rejected *rejected; /* files and logs left out */
	size_t n_rejected, cap_rejected;
	struct an_notes notes;
	struct an_pending_log *plogs;
	size_t n_plogs, cap_plogs;
	struct an_dir_id *walked;
	size_t n_walked, cap_walked;
	size_t manifest_unfinished; /* runs the manifest lists as pending/running/skipped */

	/* Groups. */
	struct an_state *states;
	size_t n_states, cap_states;
	size_t *order; /* display order: indices into states, shown ones only */
	size_t n_order;
	size_t baseline; /* index into states */
	char **tests;
	size_t n_tests, cap_tests;

	struct an_series *series;
	size_t n_series, cap_series;
	struct an_band *bands;
	size_t n_bands, cap_bands;
	double short_fraction; /* runs below this share of their test's median runtime are short */
};

void an_note(struct an_analysis *a, const char *fmt, ...) AN_PRINTF(2, 3);
void an_reject(struct an_analysis *a, const char *path, const char *fmt, ...) AN_PRINTF(3, 4);
void an_analysis_free(struct an_analysis *a);
/* Index of the state called `name`, added when new. */
size_t an_state_get(struct an_analysis *a, const char *name);

/* ---- discovery (discover.c) ------------------------------------------------ */

struct an_options {
	const char *pattern;
	const char *baseline;
	const char *state_order; /* comma-separated */
	bool no_manifest;
};

/* Adds the runs and logs named by one command-line argument.  Returns 0, or
 * -1 after printing why (usage-level problems: missing path, bad manifest). */
int an_discover(struct an_analysis *a, const char *arg, const struct an_pattern *pattern,
		bool no_manifest);

/* Reads a manifest held in memory, as if it were `label` in `dir` (for the
 * fuzzer).  0, or -1 after printing why. */
int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len);

/* Matches logs found apart from their runs to runs; unmatched logs are
 * rejected with the reason. */
void an_attach_logs(struct an_analysis *a, const struct an_pattern *pattern);

/* ---- loading (load.c) --------------------------------------------------------- */

/* Reads every run and its logs on `threads` threads; marks rejects. */
void an_load(struct an_analysis *a, int threads);

/* ---- statistics (compute.c) ------------------------------------------------- */

/*
 * Groups accepted runs by state and test, orders states, picks the
 * baseline, computes every series.  Returns 0; -1 with a message printed
 * (unknown --baseline or --state-order state); -2 when no run is usable.
 */
int an_compute(struct an_analysis *a, const struct an_options *opt);

const struct an_band *an_find_band(const struct an_analysis *a, size_t test, size_t job,
				   enum fc_ddir dir, enum fc_log_type type);

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
void an_csv_field(struct an_buf *b, const struct an_csv *c, const char *text);
/* A number with `decimals` places and the dialect's decimal mark; empty for
 * NaN. */
void an_csv_number(struct an_buf *b, const struct an_csv *c, double v, int decimals);
/* Formats a value for the terminal: 29094, 113.6, 4.25, 1.23M. */
void an_fmt_short(char *buf, size_t len, double v);
/* "+6.6%", "-87.0%", "" for NaN. */
void an_fmt_pct(char *buf, size_t len, double pct);

enum an_csv_kind { AN_CSV_SUMMARY, AN_CSV_ROUNDS, AN_CSV_PROFILE, AN_CSV_TRANSITIONS };

struct an_report_opts {
	struct an_csv csv;
	bool bom;
	bool metrics[AN_M_COUNT]; /* rows in the table and markdown */
	int width;		  /* terminal columns */
};

void an_write_table(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
void an_write_markdown(FILE *f, const struct an_analysis *a, const struct an_report_opts *o);
void an_write_csv(FILE *f, const struct an_analysis *a, enum an_csv_kind kind,
		  const struct an_report_opts *o);
void an_write_json(FILE *f, const struct an_analysis *a);

#endif
