/* SPDX-License-Identifier: MIT */
/*
 * Reading the inputs, the first stage: from the command line's paths to
 * runs in the model (model/model.h), each with its identity, its values
 * and its per-second logs.
 *
 *   inputs.c     the command-line inputs, their names as variants, paths
 *   discover.c   trees, lists and globs of fio output; bench-fio trees
 *   manifest.c   a campaign directory through its manifest.json
 *   fleet.c      a fleet directory: its hosts' campaign directories
 *   names.c      what file names say: dates, rounds, layout, bench-fio,
 *                fio's log names, which files may be fio output
 *   pattern.c    --pattern
 *   workload.c   a report's workload key
 *   load.c       the reports and logs, read on several threads
 *   bonnie.c     bonnie++'s CSV rows as runs
 *   words.c      the words of names that say the workload
 *   infer.c      state, round and test from names, read with the reports
 *   identify.c   variants; tests split by workload; logs matched to runs
 *   telemetry.c  the .telemetry files of the runs a profile is drawn of
 *
 * The order: an_add_input (each), an_name_inputs, an_discover (each input),
 * an_load_reports, an_identify, an_attach_logs, an_load_logs,
 * an_read_telemetry.  What these find wrong with a file is a note, a
 * warning, a rejected or skipped file in the analysis, never printed here.
 */
#ifndef AN_READ_H
#define AN_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* ---- workloads (workload.c) --------------------------------------------------- */

/* The fields of a workload key, in key order.  time_based is not one: fio
 * before 3.39 does not list valueless options, so it is unknown for most
 * reports (see docs/fiocamp-analyze.1, WORKLOADS). */
enum an_wl_field {
	AN_WL_NAME = 0,
	AN_WL_MERGED, /* a group_reporting entry of different jobs: "2 jobs of different rw" */
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

/* The fields the spreadsheets and the JSON's series carry as columns, so
 * that a sweep pivots by one: rw, rwmixread, bs, iodepth, numjobs,
 * ioengine, direct, size, runtime. */
#define AN_WL_N_COLUMNS 9
extern const enum an_wl_field an_wl_columns[AN_WL_N_COLUMNS];

/* fio's sizes and times as fio reads them; false when not that shape. */
/* A path a manifest names: relative, and no ".." leaves its directory. */
bool an_safe_rel_path(const char *p);
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
 * A file name (without directory and extension) taken apart into words
 * (separated by - _ . or a space) for the default inference: a date or
 * date and time anywhere in it is no part of the identity (2024-05-01,
 * 20240501, 2024-05-01T12:00:00, 20240501-1200), and a round is a number
 * standing alone as the last or the first word, or after a round word
 * (rep2, run-1, round_3; see find_round in names.c).  Digits inside a
 * word (qd32, 4k, v2) are never a round.
 */
enum an_word_role {
	AN_W_STEM = 0,	  /* not read yet: part of the stem */
	AN_W_TEST,	  /* says the workload, or is the job name */
	AN_W_STATE,	  /* the rest: the state */
	AN_W_COMMON,	  /* at the start of every name of the input */
	AN_W_DATE,	  /* (part of) a date */
	AN_W_ROUND_WORD,  /* rep, run ... before the round's number */
	AN_W_ROUND,	  /* the round's number */
	AN_W_ROUND_GLUED, /* rep2, run1: the word and the number */
};
struct an_word {
	size_t off, len; /* in base; the separator after it is base[off + len] */
	enum an_word_role role;
};
struct an_name {
	char *stem; /* the words of no date or round, with their separators */
	char *date; /* the first date removed; NULL if none */
	int round;  /* 0 if no round */
	char *base; /* the name as given */
	struct an_word *words;
	size_t n_words;
};
void an_name_parse(const char *base, struct an_name *out);
void an_name_free(struct an_name *n);
/* The words of one role joined by the separators that follow them; caller
 * frees ("" when none). */
char *an_name_join(const struct an_name *n, enum an_word_role role);
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

/* ---- words of names that say the workload (words.c) ------------------------ */

/* What a word of a name says of the workload. */
enum an_wl_word {
	AN_WW_NONE = 0,
	AN_WW_RW,      /* randread, seqwrite, rw ... */
	AN_WW_BS,      /* 4k, 128k, bs4k */
	AN_WW_SIZE,    /* 1G (the size option) */
	AN_WW_IODEPTH, /* qd8, iodepth32, iodepth-8 */
	AN_WW_NUMJOBS, /* nj4, T4, jobs4, numjobs-2, 4jobs */
};
/*
 * Whether the word [w, w + n) of a name (and the word after it, next, when
 * the word is an option's name: iodepth-8) says an option of workload
 * `key` with the value the report gives it, or of that shape when the
 * report does not give it (terse and normal output).  Returns how many
 * words it takes (0, 1 or 2) and the kind.
 */
size_t an_wl_word(const char *key, const char *w, size_t n, const char *next, size_t next_n,
		  enum an_wl_word *kind);
/* Whether a word is the name of an option a number follows (qd, iodepth,
 * nj, numjobs, jobs, bs): that number is no round. */
bool an_wl_option_word(const char *w, size_t n);
/* The kind's option ("iodepth"); static. */
const char *an_wl_word_option(enum an_wl_word kind);

/* ---- --pattern (pattern.c) ------------------------------------------------------ */

/* A --pattern with {variant}, {state}, {round}, {test} and '*'. */
struct an_pattern;
/* 0, or AN_E_USAGE with err saying what is wrong with it. */
int an_pattern_compile(const char *text, struct an_pattern **out, struct an_error *err);
/* Matches the last components of `key_path`: 0 and *id filled (fields
 * the pattern lacks stay NULL), or -1. */
int an_pattern_match(const struct an_pattern *p, const char *key_path, struct an_ident *id);
void an_pattern_free(struct an_pattern *p);
const char *an_pattern_text(const struct an_pattern *p); /* as given */
/* The directories the pattern covers (its '/' count). */
size_t an_pattern_dirs(const struct an_pattern *p);

/* ---- file names (names.c) ------------------------------------------------------ */

/* True when the last component of `path` is a fio log name. */
bool an_log_name_parse(const char *path, struct an_log_name *out);

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

/* How an input directory is read. */
enum an_layout {
	AN_LAYOUT_AUTO = 0, /* by names, or as a bench-fio tree if it is one */
	AN_LAYOUT_NAMES,
	AN_LAYOUT_BENCH_FIO,
};

/* ---- inputs (inputs.c), discovery (discover.c, manifest.c) ----------------------- */

/* How the inputs are read. */
struct an_read_opts {
	bool no_manifest;      /* --no-manifest: campaign directories by names too */
	enum an_layout layout; /* --layout */
};

/* Adds an input (a command-line argument, or PATH of --label NAME=PATH;
 * label NULL otherwise); the same path twice is one input. */
void an_add_input(struct an_analysis *a, const char *arg, const char *label);
/* Names the inputs as variants: labels, else basenames made unique. */
void an_name_inputs(struct an_analysis *a);

/* Finds the runs and logs of input `in`.  Returns 0, or AN_E_INPUT with
 * one error in errs for each path that does not exist and each manifest
 * that cannot be read (the search goes on, to name every one). */
int an_discover(struct an_analysis *a, size_t in, const struct an_pattern *pattern,
		const struct an_read_opts *opt, struct an_errors *errs);

/* Reads a manifest held in memory, as if it were `label` in `dir` (for the
 * fuzzer).  0, or AN_E_INPUT with err filled. */
int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len, struct an_error *err);

/* ---- the default inference (infer.c) ---------------------------------------- */

/* State, round and test of the runs read by their names (source
 * AN_ID_NAME), their groups without the directories that say the
 * workload, each run's reading shape; a note per shape. */
void an_infer_names(struct an_analysis *a);

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

/* ---- telemetry (telemetry.c) ---------------------------------------------------- */

/* The .telemetry file of each run a profile is drawn of (a first round with
 * a per-second log), after an_load_logs: its intervals into run->tm; a file
 * that cannot be read is a note. */
void an_read_telemetry(struct an_analysis *a);
/* Lists the rejected runs (after an_identify and an_compute have added
 * theirs). */
void an_list_rejects(struct an_analysis *a);
/* After the statistics (inputs.c): every run left out listed as rejected
 * or skipped (an_list_rejects), an input that held nothing fio wrote
 * rejected, both lists sorted (rejected by path, skipped by reason and
 * path) as every writer shows them. */
void an_read_finish(struct an_analysis *a);

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

/* ---- shared within read/ ------------------------------------------------------ */

/* A round number longer than this is more likely a date than a round. */
#define AN_ROUND_MAX_DIGITS 6
/* The start of key_path's last `want` components; false if it has fewer
 * (names.c). */
bool an_path_last(const char *key_path, size_t want, const char **start);

/* dir/name; just name when dir is "" or "."; caller frees (inputs.c). */
char *an_path_join(const char *dir, const char *name);
/* The path below the input's root ("" for the root itself); borrowed. */
const char *an_path_below(const char *root, const char *path);
/* The directory part of a relative path without its last `drop`
 * directories (those an identity took); "" when nothing is left; caller
 * frees. */
char *an_path_group(const char *rel, size_t drop);
/* The last `k` components of a directory's real path (its name when the
 * path as given has none: ".", "..", "/"), as valid UTF-8; caller frees. */
char *an_dir_name(const char *dir, size_t k);

/* A new run of input `in` at `path`, its fields unknown (discover.c). */
struct an_run *an_run_add(struct an_analysis *a, size_t in, const char *path);
/* A log of run r, with what its name says (ln may be NULL). */
void an_run_add_log(struct an_run *r, const char *path, const struct an_log_name *ln);

/* Reads the campaign directory `dir` of input `in` through its manifest
 * at `path` (manifest.c); a fleet's manifest there reads the fleet
 * (an_read_fleet).  0, or AN_E_INPUT with err filled. */
int an_read_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path,
		     struct an_error *err);
/* The same for a fleet's host: a campaign manifest only, its runs in
 * `group` (the host's). */
int an_read_campaign_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path,
			      const char *group, struct an_error *err);

/* ---- fleets (fleet.c) ---------------------------------------------------------- */

struct json_t;
/* The fleet directory `dir` of input `in` whose manifest at `path` is
 * `root` (loaded by manifest.c): the fleet and its hosts in the model,
 * each host's campaign through an_read_campaign_manifest.  0, or
 * AN_E_INPUT with err filled (a host's manifest that cannot be read; the
 * other hosts are read). */
int an_read_fleet(struct an_analysis *a, size_t in, const char *dir, const char *path,
		  const struct json_t *root, struct an_error *err);

#endif
