/* SPDX-License-Identifier: MIT */
/*
 * libfiocamp: read everything fio writes.
 *
 * The library turns fio's JSON, json+, terse and normal reports and its
 * bw/iops/lat/hist logs into plain C structs, and offers the statistics the
 * tools need.
 * It reads only what it is given, never prints and never exits.
 *
 * Conventions that hold for the whole header:
 *
 *  - Functions that can fail return 0 (FC_OK) or a negative enum fc_status and
 *    fill a caller-supplied struct fc_error (which may be NULL).  The error
 *    names the input (file name, or the label given for a buffer), the line
 *    and column or byte offset, and what was expected.
 *  - Units are normalised where the data is read and live in field names:
 *    latencies are always nanoseconds (_ns) even when fio 2.x wrote
 *    microseconds, byte counts are bytes, rates are per second.
 *  - A value fio did not report is NaN for doubles, and for integers the
 *    matching `_known`/`present` flag is false.  Nothing is invented.
 *  - Values carry the precision fio printed: JSON's %f, terse's whole
 *    microseconds and KiB, and normal output's rounding for people (4
 *    significant digits, "IOPS=25.6k", see "fio's normal output" below).
 *    Where fio prints one value twice, the more precise one is kept (of
 *    two that disagree, the one that agrees with the amount and runtime).
 *  - A latency or sample statistic without samples is not present (NaN,
 *    no percentiles), whichever format it came from, though fio prints
 *    zeros for it: a direction that did no I/O has no latency, and a sync
 *    engine has no slat.  Its counts (io_bytes, iops, total_ios) are 0.
 *  - Objects returned by a *_read / *_open function are owned by the caller
 *    and released with the matching *_free / *_close.  Every pointer reachable
 *    from them (strings, arrays) is borrowed: valid until that release, never
 *    to be freed on its own.
 *  - No global state; distinct objects may be used from distinct threads.
 */
#ifndef FIOCAMP_H
#define FIOCAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FC_PUBLIC __attribute__((visibility("default")))

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

enum fc_status {
	FC_OK = 0,
	FC_E_NOMEM = -1,      /* out of memory */
	FC_E_IO = -2,	      /* open/read failed; sys_errno says why */
	FC_E_NOT_FIO = -3,    /* the input holds nothing fio writes */
	FC_E_UNFINISHED = -4, /* fio started but its report is missing or cut short */
	FC_E_SYNTAX = -5,     /* malformed JSON, terse line or log line */
	FC_E_FORMAT = -6,     /* well-formed, but not a shape fio produces */
	FC_E_LIMIT = -7,      /* input larger than a documented limit */
	FC_E_INVAL = -8,      /* bad argument from the caller */
};

#define FC_ERROR_SOURCE_MAX  512
#define FC_ERROR_MESSAGE_MAX 256

struct fc_error {
	enum fc_status code;
	int sys_errno;			  /* errno for FC_E_IO, else 0 */
	char source[FC_ERROR_SOURCE_MAX]; /* file name or buffer label */
	unsigned long line;		  /* 1-based; 0 = not applicable */
	unsigned long column;		  /* 1-based; 0 = not applicable */
	unsigned long long offset;	  /* byte offset into the input */
	bool has_offset;
	char message[FC_ERROR_MESSAGE_MAX];
};

/* Short English text for a status ("fio did not finish", ...).  Static. */
FC_PUBLIC const char *fc_status_text(enum fc_status status);

/*
 * Writes "source:line:column: message" (or "source: byte N: message", or
 * "source: message") into buf, always NUL-terminated when len > 0.
 * Returns the length the full text needs, like snprintf.
 */
FC_PUBLIC int fc_error_format(const struct fc_error *err, char *buf, size_t len);

/* ------------------------------------------------------------------------ */
/* The normalised model: output -> runs -> jobs -> directions               */
/* ------------------------------------------------------------------------ */

enum fc_ddir {
	FC_DDIR_READ = 0,
	FC_DDIR_WRITE = 1,
	FC_DDIR_TRIM = 2,
	FC_DDIR_MIXED = 3, /* unified_rw_reporting=mixed|both */
	FC_DDIR_SYNC = 4,  /* fsync/fdatasync latencies (fio >= 3.4) */
	FC_DDIR_COUNT = 5,
};

/* "read", "write", "trim", "mixed", "sync"; NULL if out of range. */
FC_PUBLIC const char *fc_ddir_name(enum fc_ddir ddir);

struct fc_percentile {
	double percent;	 /* 99.9 for "99.900000" */
	double value_ns; /* fio's bucket midpoint */
};

struct fc_bin {
	double value_ns; /* bucket midpoint latency */
	uint64_t count;
};

/* A slat/clat/lat object.  All values in ns. */
struct fc_lat {
	bool present; /* fio measured this latency: it had samples */
	bool n_known; /* N given (>= 3.18) or derived from bins */
	uint64_t n;   /* samples */
	double min_ns, max_ns, mean_ns, stddev_ns;
	size_t n_percentiles; /* ascending by percent, duplicates merged */
	const struct fc_percentile *percentiles;
	size_t n_bins; /* json+ only; ascending by value */
	const struct fc_bin *bins;
};

/* One element of a direction's per-priority breakdown (fio >= 3.18). */
struct fc_prio {
	int prioclass;	/* -1 if fio did not say (3.18-3.29 high/low split) */
	int prio;	/* -1 if unknown */
	int priohint;	/* -1 if unknown (< 3.36) */
	bool high;	/* from clat_high_prio in 3.18-3.29 */
	bool total_lat; /* lat is lat_ns (lat_percentiles=1), else clat_ns */
	struct fc_lat lat;
};

/* fio's statistics over its own periodic bw/iops samples (not throughput). */
struct fc_samples {
	bool present;		       /* there were samples */
	double min, max, mean, stddev; /* bw: bytes/s; iops: I/O per second */
	uint64_t n;		       /* number of samples (>= 2.99) */
	bool n_known;
};

struct fc_dir {
	bool present;	   /* the direction object/block was in the output */
	uint64_t io_bytes; /* bytes (KiB in fio < 2.21 converted) */
	double bw_bytes;   /* throughput, bytes/s */
	double iops;	   /* I/O per second over runtime */
	uint64_t runtime_ms;
	uint64_t total_ios, short_ios, drop_ios;
	bool ios_known; /* total/short/drop given (>= 2.1.14) */
	struct fc_lat slat, clat, lat;
	struct fc_samples bw_samples;	/* bytes/s */
	struct fc_samples iops_samples; /* I/O per second */
	double bw_agg_pct;		/* share of the group's bandwidth; NaN if absent */
	double cachehit_pct;		/* NaN if absent */
	size_t n_prios;
	const struct fc_prio *prios;
};

/* A percent distribution such as iodepth_level or latency_us. */
struct fc_bucket {
	const char *label; /* fio's key: "1", "32", ">=64", "250" ... */
	double percent;
};

struct fc_buckets {
	size_t n;
	const struct fc_bucket *items; /* in fio's order */
};

struct fc_option {
	const char *key;
	const char *value; /* "" for valueless options (fio >= 3.39) */
};

/* Another job of a group_reporting entry, as its banner shows it (normal
 * output). */
struct fc_merged_job {
	const char *name;
	size_t n_options; /* rw, bs, ioengine, iodepth, as fc_job's */
	const struct fc_option *options;
};

struct fc_job {
	size_t index;	  /* position in jobs[] / client_stats[] / terse lines */
	unsigned clone;	  /* n-th entry with the same name, group and host */
	const char *name; /* jobname; not unique (numjobs clones) */
	int groupid;
	int error;		 /* errno of the first fatal error, 0 = ok */
	const char *description; /* NULL if none; may hold control characters */
	const char *hostname;	 /* client/server mode; NULL otherwise */
	int port;		 /* client/server mode; 0 otherwise */
	bool all_clients;	 /* the client-mode "All clients" aggregate */
	int64_t job_start_ms;	 /* Unix ms (>= 3.36); -1 unknown */
	int64_t eta_s;		 /* -1 unknown (fio's INT_MAX sentinel too) */
	int64_t elapsed_s;	 /* -1 unknown */
	int64_t job_runtime_ms;	 /* summed over a reporting group; -1 unknown */
	double usr_cpu_pct, sys_cpu_pct;
	uint64_t ctx, majf, minf;
	int64_t total_err, first_error; /* continue_on_error only; -1 unknown */
	struct fc_dir dir[FC_DDIR_COUNT];
	struct fc_buckets iodepth, iodepth_submit, iodepth_complete;
	struct fc_buckets latency_ns, latency_us, latency_ms;
	size_t n_options; /* "job options", in fio's order, last wins */
	const struct fc_option *options;
	unsigned members; /* threads summed into this entry: "jobs=N" of
			     normal output; 0 where fio does not say */
	/* Normal output, an entry of several jobs (group_reporting): the
	 * other jobs of its group whose banners name them, in fio's order;
	 * its options are its own banner's.  0 and NULL otherwise. */
	size_t n_merged;
	const struct fc_merged_job *merged;
};

struct fc_disk {
	const char *name;     /* "vda" */
	const char *hostname; /* client mode; NULL otherwise */
	uint64_t read_ios, write_ios, read_merges, write_merges;
	uint64_t read_ticks_ms, write_ticks_ms, in_queue_ms;
	int64_t read_sectors, write_sectors; /* -1 unknown (< 3.36) */
	double util_pct;
};

enum fc_format {
	FC_FORMAT_JSON = 0,
	FC_FORMAT_JSON_PLUS = 1, /* some latency carried bins */
	FC_FORMAT_TERSE = 2,
	FC_FORMAT_NORMAL = 3, /* the human-readable report (--output-format=normal) */
};

/* Units fio used in the source, before normalisation. */
#define FC_UNITS_LAT_US	    0x1 /* latencies were microseconds (2.x JSON, terse) */
#define FC_UNITS_IO_KIB	    0x2 /* io_bytes was KiB (fio < 2.21) */
#define FC_UNITS_BINS_INDEX 0x4 /* json+ bins keyed by bucket index (2.2.12-2.19) */
#define FC_UNITS_ROUNDED                                                                           \
	0x8 /* numbers as fio rounded them for people (normal                                      \
	       output): see "fio's normal output" below */

/* One direction of a "Run status group" line of normal output. */
struct fc_group_dir {
	bool present;
	double bw_bytes;		   /* the group's bytes / its longest runtime, B/s */
	double min_bw_bytes, max_bw_bytes; /* of the slowest and fastest job, B/s */
	uint64_t io_bytes;
	uint64_t min_runtime_ms, max_runtime_ms;
};

/* A reporting group's totals, as normal output prints them. */
struct fc_group {
	int groupid;
	struct fc_group_dir dir[FC_DDIR_COUNT]; /* read, write, trim, mixed */
};

/* One report: a JSON document, the terse lines of one fio invocation, or a
 * normal report. */
struct fc_run {
	enum fc_format format;
	int terse_version;	 /* 2..5 for terse, 0 otherwise */
	const char *fio_version; /* as printed, "fio-3.36-115-gf53eaac"; NULL if unknown */
	int version_major, version_minor, version_patch; /* -1 unknown */
	int64_t timestamp_s;				 /* Unix s, end of run; -1 unknown */
	int64_t timestamp_ms;				 /* -1 unknown (client mode, fio < 2.12) */
	const char *time_text;				 /* fio's ctime() string; NULL if absent */
	bool client_mode;				 /* client_stats[] instead of jobs[] */
	bool final;	    /* the last complete report of its output */
	unsigned units;	    /* FC_UNITS_* */
	unsigned long line; /* where it starts in the input (1-based) */
	unsigned long long offset;
	size_t n_global_options; /* merged over servers in client mode, last wins */
	const struct fc_option *global_options;
	size_t n_jobs;
	const struct fc_job *jobs;
	size_t n_disks;
	const struct fc_disk *disks;
	size_t n_groups; /* normal output only, in fio's order (client
			    mode: once per server) */
	const struct fc_group *groups;
};

/* A line of text fio printed around its reports. */
enum fc_diag_kind {
	FC_DIAG_TEXT = 0,   /* anything else (normal output, banners) */
	FC_DIAG_NOTE = 1,   /* "note: ..." */
	FC_DIAG_FIO = 2,    /* "fio: ..." warnings and errors */
	FC_DIAG_SIGNAL = 3, /* "fio: terminating on signal N" */
	FC_DIAG_HOST = 4,   /* "<host> ..." relayed by a fio client */
	FC_DIAG_BROKEN = 5, /* a report that could not be read; text = reason */
};

struct fc_diag {
	enum fc_diag_kind kind;
	unsigned long line; /* 1-based line in the input */
	const char *text;   /* without the line end */
};

struct fc_output {
	const char *source;    /* file name or buffer label */
	enum fc_status status; /* FC_OK, or FC_E_UNFINISHED */
	size_t n_runs;	       /* every report found, in input order */
	const struct fc_run *runs;
	const struct fc_run *final; /* the final report; NULL if fio did not finish */
	size_t n_diags;
	const struct fc_diag *diags; /* every non-blank line outside the
					reports, and one FC_DIAG_BROKEN for
					each report that could not be read */
	int signal;		     /* N of "terminating on signal N", else 0 */
};

/* Inputs larger than this are refused with FC_E_LIMIT. */
#define FC_OUTPUT_MAX_BYTES (1024ull * 1024 * 1024)
/*
 * Reading takes at most FC_OUTPUT_MEM_BASE_BYTES plus FC_OUTPUT_MEM_PER_BYTE
 * bytes for each byte of input (the result and the scratch space together);
 * an input that needs more is refused with FC_E_LIMIT.  fio's reports need
 * about 1 byte per byte of JSON and 5 to 9 per byte of terse, but the three
 * bytes "{}," make a job of some 2.5 KiB.
 */
#define FC_OUTPUT_MEM_BASE_BYTES (64ull << 20)
#define FC_OUTPUT_MEM_PER_BYTE	 16

/*
 * Reads every fio report in a file or buffer: JSON and json+ documents
 * (several of them, with any text around them, raw control characters in
 * strings, duplicate keys, nan/inf, BOM, CRLF) and terse lines of any
 * version; an input with neither is read as fio's normal output (below).
 * The last complete report is marked final.
 *
 * Returns FC_OK with *out set when a final report was found.
 * Returns FC_E_UNFINISHED with *out set (holding the diagnostics and any
 * earlier status reports) when fio's output stops short of its report:
 * a truncated document, or fio's own text without a report.
 * Any other status leaves *out NULL: FC_E_NOT_FIO when nothing fio writes
 * was found, FC_E_SYNTAX for a last report broken before its end (the
 * error is that report's; FC_E_LIMIT if it nests deeper than 64 levels),
 * FC_E_LIMIT past FC_OUTPUT_MAX_BYTES or FC_OUTPUT_MEM_*, FC_E_IO,
 * FC_E_NOMEM.
 * The caller frees *out with fc_output_free().  `source` labels a buffer in
 * errors and is copied.
 */
FC_PUBLIC int fc_output_read_file(const char *path, struct fc_output **out, struct fc_error *err);
FC_PUBLIC int fc_output_read_buffer(const void *buf, size_t len, const char *source,
				    struct fc_output **out, struct fc_error *err);
FC_PUBLIC void fc_output_free(struct fc_output *out);

/*
 * fio's normal output (--output-format=normal, the default), fio 2.0 to
 * 3.42: a report is fio's job blocks ("NAME: (groupid=G, jobs=N): err=E:
 * ..."), its "Run status group" lines and its disk stats; the job banners
 * printed before it ("NAME: (g=G): rw=..., bs=..., ioengine=..., iodepth=N")
 * give each job its options.  Read into the same model:
 *
 *  - per job: name, group, error, description, members (jobs=N), CPU, IO
 *    depths, submit/complete, the latency distributions (the shares fio
 *    leaves out are 0; latency_ns only for fio >= 2.99), total_err and
 *    first_error; per direction (those that did I/O, and sync): io_bytes,
 *    bw_bytes, iops, runtime_ms, total/short/drop ios, slat/clat/lat with
 *    their percentiles (in the unit fio printed them, nsec/usec/msec, made
 *    ns), bw and iops sample statistics with the share of the group,
 *    cache hits, per-priority latencies (prioclass/prio, or high/low for
 *    3.18-3.29; priohint -1); groups[] from the "Run status group" lines;
 *    disks[]; fio_version from the "fio-3.33" line (or the client's
 *    "hostname=..., fio=" line) before the report; time_text from the
 *    first job's date.
 *  - Options: "rw" as the banner prints it, "ioengine", "iodepth", and "bs"
 *    in fio's option syntax in bytes: one value when every direction has the
 *    same fixed size ("4096"), min-max for a range ("4096-65536"), one of
 *    those per direction, comma-separated R,W,T, when the directions differ
 *    ("4096,65536,65536"); "bs_is_seq_rand" = "1" with the sizes as seq,rand.
 *  - Precision (run->units has FC_UNITS_ROUNDED): sizes and rates keep 4
 *    significant characters (6 before fio 2.17), latency min/max 6, means,
 *    deviations and shares two decimals of the unit shown, percentiles whole
 *    units rounded up, bw sample min/max whole KiB/s (whole MiB/s above 1
 *    GiB/s).  Where a value is printed twice the finer one is kept: BW in
 *    MiB/s or MB/s, and a job's io from its group's line when the job is the
 *    group's only one.  iops is 1000 * total_ios / runtime_ms, fio's own
 *    formula over two exact numbers, when the "issued" line is there.  Of
 *    fio < 2.17, "KB" sizes and rates are taken as 1024 (the default
 *    kb_base).
 *  - Not in the text, so unknown: N of latencies (n_known false), JSON-only
 *    fields (timestamps, eta, elapsed, job_runtime, job_start), per-job
 *    hostname and port in client mode, and directions without I/O (not
 *    present; the JSON has them with zeros).
 *  - --status-interval prints a whole report each time: each is a run, the
 *    last complete one final.  A fio client's report takes every server's
 *    jobs, groups and disks and "All clients" (client_mode, all_clients);
 *    a new "hostname=" announcement after them starts the next report.
 *  - A report without its "Run status group" lines (fio killed while
 *    printing, a file cut short) is FC_E_UNFINISHED as for JSON; fio's text
 *    without any report (banner, "Starting 1 process", killed) is
 *    FC_E_UNFINISHED too, and text that is not fio's FC_E_NOT_FIO.  A line
 *    of a known shape that does not read is FC_E_SYNTAX naming line, column
 *    and what was expected.
 *  - Formats are not mixed: an input with JSON or terse reports yields
 *    those, and normal text in it stays diagnostics.  A file of
 *    --output-format=normal,json (or normal,terse,json, or a client's
 *    normal,json, where the normal text comes first) gives the JSON report
 *    (and the terse one) and keeps the normal report's lines as
 *    FC_DIAG_TEXT; read the normal text alone to get it as a report.
 */

/* The value of option `key` for a job: its own "job options" first, then the
 * run's "global options".  NULL if fio did not list it.  Borrowed. */
FC_PUBLIC const char *fc_job_option(const struct fc_run *run, const struct fc_job *job,
				    const char *key);

/* Parses "fio-3.36-115-gabc" into numbers.  Returns 0, or FC_E_FORMAT. */
FC_PUBLIC int fc_version_parse(const char *text, int *major, int *minor, int *patch);

/* ------------------------------------------------------------------------ */
/* fio's latency histogram (json+ bins, clat_hist logs)                      */
/* ------------------------------------------------------------------------ */

/* fio >= 2.99 has 29 groups of 64 buckets (1856), 2.x has 19 (1216). */
#define FC_HIST_BUCKETS	   1856
#define FC_HIST_BUCKETS_V2 1216

/*
 * Latency of bucket `index` of a histogram with `groups` groups (29 or 19):
 * `edge` < 0 gives the lower edge, 0 the midpoint fio reports, > 0 the upper
 * edge (exclusive).  In the histogram's own unit (ns for 29 groups, us for
 * 19).  NaN if the index is out of range.
 */
FC_PUBLIC double fc_hist_bucket_value(unsigned index, unsigned groups, int edge);

/* ------------------------------------------------------------------------ */
/* Logs: bw, iops, lat, clat, slat, clat_hist                               */
/* ------------------------------------------------------------------------ */

enum fc_log_type {
	FC_LOG_UNKNOWN = 0,
	FC_LOG_BW,
	FC_LOG_IOPS,
	FC_LOG_LAT,
	FC_LOG_CLAT,
	FC_LOG_SLAT,
	FC_LOG_CLAT_HIST,
};

/* "bw", "iops", "lat", "clat", "slat", "clat_hist"; NULL for unknown. */
FC_PUBLIC const char *fc_log_type_name(enum fc_log_type type);

/*
 * What a log file's name says.  fio names logs
 *
 *   <prefix>_<type>.<N>.log          per_job_logs=1 (the default)
 *   <prefix>_<type>.log              per_job_logs=0: one file shared by jobs
 *   ... .log.fz                      log_store_compressed=1
 *   ... .log.<host>, .log.fz.<host>  written by a fio client for a server
 *   <stub>-<read|write|trim>_bw.log  --bandwidth-log (stub "agg" before 3.42)
 *
 * The prefix may itself hold '_', '.' and even ".log" (fio doubles a prefix
 * given as a file name: foo_bw.log_bw.1.log).  When a name reads both with
 * and without a host suffix, the reading without one (longest prefix) wins;
 * a shared bw log whose prefix ends in -read/-write/-trim reads as a
 * --bandwidth-log file.  Pointers borrow from the path that was parsed.
 */
struct fc_log_name {
	const char *prefix;
	size_t prefix_len; /* >= 1 */
	enum fc_log_type type;
	int index;	  /* fio's global thread number N (>= 1); 0 if none */
	bool compressed;  /* .fz */
	const char *host; /* client mode suffix; NULL if none */
	size_t host_len;
	bool aggregate;		     /* --bandwidth-log's <stub>-<ddir>_bw.log */
	enum fc_ddir aggregate_ddir; /* read, write or trim when aggregate */
};

/* Parses the last path component of `path`.  0, or FC_E_FORMAT (and *out
 * zeroed) if the name is not a fio log name. */
FC_PUBLIC int fc_log_name_parse(const char *path, struct fc_log_name *out);

/*
 * The column layout of a log.  A line is
 *
 *   time, value[, value1], ddir, bs[, offset], prio[, issue_time]
 *
 * with fields separated by a comma and any spaces or tabs; a clat_hist line
 * is `time, ddir, bs, c0, ..., c(K-1)`.  Which columns a file has depends on
 * fio's version and options and must be worked out from the first line:
 *
 *   2  time, value                         (no fio writes this; accepted)
 *   3  + ddir                              fio < 1.26.3
 *   4  + bs                                1.26.3 - 3.17
 *   5  + prio                              >= 3.18, or + offset (log_offset)
 *                                          in 2.1.11 - 3.17
 *   6  + offset + prio                     >= 3.18 with log_offset, or
 *      value1 + prio                       >= 3.37 log_window_value=both
 *   7  value1 + offset + prio              >= 3.37, or offset + prio +
 *                                          issue_time (>= 3.38 log_issue_time)
 *   8  value1 + offset + prio + issue_time
 *   3 + K  clat_hist, K = 1856 >> c (fio >= 2.99, ns) or 1216 >> c (2.x,
 *          microseconds), c = log_hist_coarseness 0..6
 *
 * Ambiguous counts are settled by the first line (field numbers 1-based):
 *   5: a hex 5th field is a prio (log_prio=1); a decimal one above 1 is an
 *      offset, since fio writes prio 0 or 1 there; otherwise prio.  While
 *      guessed, a later decimal value above 1 switches the layout to offset
 *      (a 3.17 log_offset log whose first I/O was at offset 0).
 *   6: value1 if field 3 exceeds 2 (it cannot be a ddir), else offset if
 *      field 4 exceeds 2 (it would be the ddir of a value1 line), else value1
 *      if field 5 is not 0 (a windowed offset line has bs 0 and offset 0),
 *      else offset.
 *   7: issue_time if field 6 is hex; else value1 if field 7 is hex or
 *      field 3 exceeds 2; else issue_time.
 *
 * Callers that know the job's options pass a layout to fc_log_open().  With
 * `columns` != 0 it is used exactly as given (the flags must add up to
 * `columns`).  With `columns` == 0 the flags that are true are hints the
 * detection obeys: has_value1 (log_window_value=both), has_offset
 * (log_offset=1), has_issue_time, prio_hex (log_prio=1), hist, and
 * value_us, which no line can reveal.
 */
struct fc_log_layout {
	unsigned columns; /* fields per line, 2..8 (hist: 3 + hist_buckets) */
	bool has_value1;  /* log_window_value=both: value is the avg, value1 the max */
	bool has_ddir;
	bool has_bs;
	bool has_offset;       /* log_offset=1 */
	bool has_prio;	       /* fio >= 3.18 */
	bool prio_hex;	       /* log_prio=1: 0x%04x, class in the top 3 bits */
	bool has_issue_time;   /* log_issue_time=1 */
	bool hist;	       /* clat_hist: time, ddir, bs, buckets... */
	unsigned hist_buckets; /* buckets per hist line, K */
	unsigned hist_groups;  /* 29 (fio >= 2.99, ns) or 19 (2.x, us) */
	bool value_us;	       /* lat/clat/slat values are us (fio < 2.99); a
				  hint only the caller can give (the JSON has
				  clat, not clat_ns); profiles then report ns */
};

/*
 * One line of a bw/iops/lat/clat/slat log, as fio wrote it (no unit
 * conversion).  Units: time ms since the job's start (after ramp_time), or
 * Unix ms with log_alternate_epoch/log_unix_epoch; lat ns (us in fio 2.x);
 * per-I/O bw: bytes / clat ms of that one I/O (not throughput); windowed bw
 * KiB/s; per-I/O iops 1, windowed iops I/O per second (fio's HOWTO, "Log
 * File Formats", and iolog.c flush_samples()).
 */
struct fc_log_sample {
	uint64_t time_ms;
	int64_t value;		/* the avg with log_window_value=both */
	int64_t value1;		/* the max with log_window_value=both; else 0 */
	int ddir;		/* 0 read, 1 write, 2 trim; 0 if no column */
	uint64_t bs;		/* bytes of the I/O; 0 for a windowed sample */
	uint64_t offset;	/* bytes; 0 if no column */
	uint32_t prio;		/* 0/1 (RT class) or, with log_prio, the ioprio;
				   0 if no column */
	uint64_t issue_time_ns; /* 0 if no column */
	unsigned long line;	/* 1-based line in the file */
};

/* A clat_hist row.  `buckets` is borrowed until the next read or close.
 * Bucket j counts the completion latencies of the row's window that fell
 * into fio's buckets j*2^c .. (j+1)*2^c - 1 (c = coarseness). */
struct fc_hist_row {
	uint64_t time_ms;
	int ddir;
	uint64_t bs;
	unsigned n_buckets;
	const uint64_t *buckets;
	unsigned long line;
};

struct fc_log_reader;

/* The reader's buffer: a line of this many bytes or more (without its
 * newline) is refused with FC_E_LIMIT.  A clat_hist line of 1856 buckets is
 * at most about 40 KiB.  A caller's buffer is read in place, and only a
 * last line without a newline is copied, and so limited. */
#define FC_LOG_LINE_MAX (256u * 1024)

/*
 * Opens a log for streaming and reads its first line to settle the layout.
 * `layout` may be NULL (detect) or describe what the caller knows (see
 * struct fc_log_layout); it is copied.  The reader holds one fixed buffer of
 * FC_LOG_LINE_MAX bytes, never the whole file.  A name ending in .fz (also
 * before a client host suffix) or zlib/gzip contents are refused with
 * FC_E_FORMAT: inflate them with `fio --inflate-log=FILE`.  Empty files and
 * files of blank lines are fine (no samples; the layout has 0 columns).
 * Blank lines, spaces or tabs around fields, CRLF line ends, a missing final
 * newline and a UTF-8 BOM are accepted; anything else that is not a number
 * in the right place is FC_E_SYNTAX naming the file, line and column, the
 * field and what was expected.  A line whose field count differs from the
 * first line's is FC_E_SYNTAX; a ddir other than 0, 1, 2 is FC_E_FORMAT.
 * The caller closes *out with fc_log_close().
 */
FC_PUBLIC int fc_log_open(const char *path, const struct fc_log_layout *layout,
			  struct fc_log_reader **out, struct fc_error *err);
/* The same over a caller's buffer, which must outlive the reader.  `source`
 * (copied) labels errors and, if it is a fio log name, gives the type. */
FC_PUBLIC int fc_log_open_buffer(const void *buf, size_t len, const char *source,
				 const struct fc_log_layout *layout, struct fc_log_reader **out,
				 struct fc_error *err);
/* The layout in use; borrowed, valid until close.  It may change once: a
 * guessed 5-column prio layout that turns out to hold offsets. */
FC_PUBLIC const struct fc_log_layout *fc_log_get_layout(const struct fc_log_reader *r);
/* The type the file name gave (FC_LOG_UNKNOWN if it gave none). */
FC_PUBLIC enum fc_log_type fc_log_get_type(const struct fc_log_reader *r);
/*
 * 1 = a sample was read, 0 = end of log, < 0 = error (err filled).  After an
 * error every further call returns the same status.  FC_E_INVAL on a
 * clat_hist log.
 */
FC_PUBLIC int fc_log_next(struct fc_log_reader *r, struct fc_log_sample *s, struct fc_error *err);
/* For clat_hist logs.  Same return convention; FC_E_INVAL on other logs. */
FC_PUBLIC int fc_log_next_hist(struct fc_log_reader *r, struct fc_hist_row *row,
			       struct fc_error *err);
FC_PUBLIC void fc_log_close(struct fc_log_reader *r);

/*
 * Profiles: a log reduced to values per interval and direction.
 *
 * Intervals are [k * interval_ms, (k + 1) * interval_ms) in the log's own
 * time base.  A log line is one of two kinds, told apart by its bs column:
 *
 *  - per-I/O (bs != 0, fio without log_avg_msec): an event at `time`.  The
 *    interval holding `time` gets it.  iops: value = I/Os / interval_s;
 *    bw: value = sum of bs / 1024 / interval_s (KiB/s; fio's per-I/O bw
 *    value column is the speed of one I/O, not throughput, and is not used);
 *    lat/clat/slat: mean, min and max of the values.  The last interval of a
 *    log may be partial; fio does not say when the job stopped.
 *
 *  - windowed (bs == 0, log_avg_msec; clat_hist rows always): a summary of
 *    the window (start, time] where start is the previous line's time of the
 *    same direction and job block, clipped to time - window_ms if the caller
 *    gave window_ms.  The first window of a block starts at 0 (fio's windows
 *    start at the job's start) or, for Unix-epoch times (>= 10^12 ms), is as
 *    long as window_ms, or the block's next window, or interval_ms for a lone
 *    line.  A window is spread over the intervals it overlaps, weighted by
 *    the overlap: rates (iops, bw) add rate x overlap ("mass") and report
 *    mass / covered time, so unequal and sub-second windows add up; lat
 *    values report the overlap-weighted mean; clat_hist counts are shared
 *    out in proportion to the overlap.  A window of zero length (the same
 *    time twice in a direction, e.g. fio's log_compression bug #1746) adds
 *    nothing and is counted in empty_windows.  fio's window ends drift
 *    (1000, 2001, 3002), so the last interval may hold only a few ms of the
 *    last window; covered_ms says how much.
 *
 * Logs without a bs column (fio < 1.26.3): lat/clat/slat lines count as
 * per-I/O, bw and iops lines as windowed.
 *
 * Job blocks: time going backwards within a direction starts a new block
 * (jobs appended to one per_job_logs=0 file, or files concatenated).  Blocks
 * add up: masses and counts add, and an interval's covered time is the most
 * any one block covered, so several jobs give their summed rate.
 *
 * A log holds per-I/O or windowed lines, not both; a line of the other kind
 * is FC_E_FORMAT.  Latencies are reported in ns (us logs converted, see
 * value_us and 19-group histograms).
 */

#define FC_PROFILE_MAX_INTERVALS   (1u << 20) /* per direction; FC_E_LIMIT above */
#define FC_PROFILE_MAX_PERCENTILES 64
#define FC_PROFILE_HIST_MAX_BYTES  (256u << 20) /* clat_hist buckets held at once */
/* The work of spreading windows: the intervals each window overlaps,
 * summed over the log (for a clat_hist row, times 1 + its non-zero
 * buckets); FC_E_LIMIT above.  Windows of one job block do not overlap, so
 * only very many blocks that each span a long time come near it. */
#define FC_PROFILE_MAX_SPREAD (1ull << 28)

/*
 * One interval.  For a clat_hist log, bucket j of the merged rows stands for
 * the centre of the latencies it spans: the mean of fio's reported values
 * (fc_hist_bucket_value with edge 0) of its first and last fine bucket,
 * which is fio's own value at coarseness 0.  Percentile p is the value of the
 * first non-empty bucket at which the cumulative count reaches p/100 of the
 * total, the rule fio's JSON percentiles follow (so p = 0 gives the lowest
 * non-empty bucket, p = 100 the highest).  The mean is the count-weighted
 * mean of the bucket values.  An interval whose rows counted no latencies is
 * not a gap: total 0, NaN values and percentiles.
 */
struct fc_profile_point {
	uint64_t start_ms;	      /* k * interval_ms */
	bool gap;		      /* nothing measured here: samples == 0 */
	double value;		      /* iops: I/O/s; bw: KiB/s; lat, hist: mean ns */
	double min, max;	      /* lat: of the values (windowed: of the windows
					 overlapping, max from value1 if present);
					 windowed iops/bw: of the window rates; hist:
					 the lowest and highest non-empty bucket; NaN
					 for per-I/O iops/bw */
	double total;		      /* iops: I/Os; bw: KiB; hist: latencies counted
					 (fractions from shared windows); NaN for lat */
	double covered_ms;	      /* windowed: time covered by windows (at most
					 interval_ms); per-I/O: interval_ms */
	uint64_t samples;	      /* lines counted: per-I/O lines in the interval,
					 or windowed lines whose window overlaps it */
	const double *percentiles_ns; /* hist only: one per requested percentile;
					 NULL otherwise */
};

struct fc_profile_series {
	size_t n;
	const struct fc_profile_point *points; /* consecutive intervals from the
						  first to the last with data,
						  gaps included (NaN values) */
};

struct fc_profile_opts {
	uint64_t interval_ms;		    /* 0 = 1000; at most 2^40 */
	enum fc_log_type type;		    /* FC_LOG_UNKNOWN = from the file name
					       (or the layout for clat_hist) */
	const struct fc_log_layout *layout; /* NULL = detect, see fc_log_open */
	uint64_t window_ms;		    /* log_avg_msec / log_hist_msec if known,
					       else 0 (see above) */
	const double *percentiles;	    /* hist only, each in [0, 100];
					       NULL = 50, 90, 99, 99.9 */
	size_t n_percentiles;		    /* at most FC_PROFILE_MAX_PERCENTILES */
};

struct fc_profile {
	enum fc_log_type type;
	bool per_io; /* per-I/O log, else windowed */
	uint64_t interval_ms;
	uint64_t lines;		     /* samples (or hist rows) read */
	uint64_t empty_windows;	     /* windowed lines with a zero-length window */
	bool time_went_backwards;    /* several job blocks in one file */
	bool time_absolute;	     /* Unix-epoch times (log_alternate_epoch) */
	struct fc_log_layout layout; /* as the reader ended up with it */
	size_t n_percentiles;
	const double *percentiles;	 /* hist only: the percents requested */
	struct fc_profile_series dir[3]; /* read, write, trim */
};

/*
 * Reads a log in one pass into per-interval values per direction, with
 * memory per interval, never per line: a few hundred bytes per interval for
 * any log (a 24-hour 1 s clat_hist log is 86,400 intervals).  A clat_hist
 * interval keeps its merged buckets only while rows can still add to it:
 * a job block's rows come in time order, so once a row ends past an
 * interval it is closed and keeps what its point reports (count, mean,
 * extremes, the percentiles asked for).  A clat_hist log whose windows reach
 * back into closed intervals (several job blocks: time going backwards,
 * per_job_logs=0) or hold more open buckets than FC_PROFILE_HIST_MAX_BYTES
 * is read again, the same result at the same memory: once for all but the
 * buckets, then once for each chunk of FC_PROFILE_HIST_MAX_BYTES / (8 x
 * buckets x directions) intervals (18,078 at coarseness 0 and one
 * direction).  Returns 0 with
 * *out set (free with fc_profile_free), or an error: those of fc_log_open /
 * fc_log_next, FC_E_INVAL for bad options or a type that cannot be told,
 * FC_E_FORMAT for mixed per-I/O and windowed lines or times beyond 2^53 ms,
 * FC_E_LIMIT past the limits above.  An empty log gives a profile without
 * points (its type FC_LOG_UNKNOWN if neither name nor caller gave one).
 * Everything reachable from *out is borrowed from it.
 */
FC_PUBLIC int fc_profile_read_file(const char *path, const struct fc_profile_opts *opts,
				   struct fc_profile **out, struct fc_error *err);
FC_PUBLIC int fc_profile_read_buffer(const void *buf, size_t len, const char *source,
				     const struct fc_profile_opts *opts, struct fc_profile **out,
				     struct fc_error *err);
FC_PUBLIC void fc_profile_free(struct fc_profile *p);

/* ------------------------------------------------------------------------ */
/* bonnie++ CSV results                                                     */
/* ------------------------------------------------------------------------ */

/*
 * bonnie++ writes one CSV row per run: with -q the rows are all it prints on
 * stdout, without it each follows the text table, and -x N prints a header
 * line first.  The first field tells the layout, never a header line (the
 * header of 1.98 names 48 columns for rows of 50):
 *
 *   1.0x  bonnie++ 1.00 - 1.03e: 27 fields, no version, no latencies
 *   1.96  "1.96" (and the 1.92b - 1.93c snapshots): 48 fields; 47 when -s 0
 *         skipped the I/O tests, a bug 1.97 fixed
 *   1.97  "1.97" (1.97 - 1.97.3): 48 fields
 *   1.98  "1.98" (bonnie++ 1.98, 2.00, 2.00a): 50 fields, the seek count
 *         and seeker processes after the chunk size
 *
 * (bon_time.cpp of each release.)  Values that are not numbers: an empty
 * field is a test that was not run (-s 0, -n 0, -f); "+++++" (rate) and
 * "+++" (CPU) a test that took less than 0.5 s, which bonnie++ finds too
 * fast to report.  Neither is ever read as 0.
 */

enum fc_bonnie_format {
	FC_BONNIE_FORMAT_1_0X = 0,
	FC_BONNIE_FORMAT_1_96 = 1,
	FC_BONNIE_FORMAT_1_97 = 2,
	FC_BONNIE_FORMAT_1_98 = 3,
};

/* The tests, in bonnie++'s column order. */
enum fc_bonnie_test {
	FC_BONNIE_PUTC = 0,	  /* per-char write */
	FC_BONNIE_PUT_BLOCK = 1,  /* block write, fsync at close inside the time */
	FC_BONNIE_REWRITE = 2,	  /* read, change, write back each block */
	FC_BONNIE_GETC = 3,	  /* per-char read */
	FC_BONNIE_GET_BLOCK = 4,  /* block read */
	FC_BONNIE_SEEKS = 5,	  /* random seeks (read, every tenth written back) */
	FC_BONNIE_SEQ_CREATE = 6, /* file creation tests: sequential ... */
	FC_BONNIE_SEQ_STAT = 7,	  /* ("Read" in bonnie++'s text table) */
	FC_BONNIE_SEQ_DEL = 8,
	FC_BONNIE_RAN_CREATE = 9, /* ... and random order */
	FC_BONNIE_RAN_STAT = 10,
	FC_BONNIE_RAN_DEL = 11,
	FC_BONNIE_TEST_COUNT = 12,
};

enum fc_bonnie_unit {
	FC_BONNIE_UNIT_KIB = 0,	  /* KiB/s: bonnie++'s "K/sec" (putc .. get_block) */
	FC_BONNIE_UNIT_SEEKS = 1, /* seeks/s */
	FC_BONNIE_UNIT_FILES = 2, /* files/s */
};

struct fc_bonnie_test_info {
	const char *name;  /* bonnie++'s column name: "put_block", "seq_del" */
	const char *label; /* "block write", "sequential delete" */
	enum fc_bonnie_unit unit;
};

/* What a test is; static.  NULL if `test` is out of range. */
FC_PUBLIC const struct fc_bonnie_test_info *fc_bonnie_test_info(enum fc_bonnie_test test);

enum fc_bonnie_status {
	FC_BONNIE_NOT_RUN = 0,	/* empty field */
	FC_BONNIE_TOO_FAST = 1, /* "+++++": done in less than 0.5 s */
	FC_BONNIE_MEASURED = 2,
};

struct fc_bonnie_result {
	enum fc_bonnie_status status; /* of the rate */
	double rate;		      /* per second, in the test's unit (fc_bonnie_test_info);
					 NaN unless measured */
	double bw_bytes;	      /* KiB tests: rate * 1024, bytes/s; NaN otherwise */
	double cpu_pct;		      /* user + system CPU of bonnie++ over the test's time
					 (summed over the seeker processes); NaN unless a
					 number was printed */
	double latency_ns;	      /* the slowest single operation of the test (not a
					 mean); NaN if not printed (1.0x, test not run) */
};

enum fc_bonnie_links {
	FC_BONNIE_FILES_REGULAR = 0,
	FC_BONNIE_FILES_HARD_LINKS = 1, /* -n N:-1, printed "link" */
	FC_BONNIE_FILES_SYMLINKS = 2,	/* -n N:-2, printed "symlink" */
};

/* One row.  Options bonnie++ prints only when they differ from its default
 * read as that default; an option a format never prints is not known. */
struct fc_bonnie_row {
	enum fc_bonnie_format format;
	unsigned long line;	    /* 1-based line in the input */
	const char *format_version; /* as printed, "1.98"; NULL for 1.0x */
	const char *bonnie_version; /* "2.00a"; NULL for 1.0x */
	const char *name;	    /* -m, the machine name; may be "" */
	bool concurrency_known;	    /* not in 1.0x rows */
	unsigned concurrency;	    /* -c */
	const char *seed;	    /* -z, as printed; NULL in 1.0x rows */
	/* the I/O tests, putc .. seeks */
	bool file_size_known;	   /* false when -s 0 skipped them */
	uint64_t file_size_bytes;  /* -s, printed in MiB or GiB ("256M", "16G") */
	bool chunk_size_known;	   /* never printed by 1.98 */
	uint64_t chunk_size_bytes; /* -s size:chunk; 8192 when not printed by
				      1.0x, 1.96, 1.97 (the default) */
	bool seeks_known;	   /* 1.98 only */
	uint64_t seeks;		   /* -s size:chunk:seeks, default 8192 */
	bool seek_procs_known;	   /* 1.98 only */
	unsigned seek_procs;	   /* -s size:chunk:seeks:procs, default 5 */
	/* the file tests, seq_create .. ran_del */
	bool files_known; /* false when -n 0 skipped them */
	uint64_t files;	  /* files per test: -n N is N * 1024 files */
	enum fc_bonnie_links links;
	uint64_t max_file_size_bytes; /* -n N:max:min; 0 when not printed (empty */
	uint64_t min_file_size_bytes; /* files, the default) */
	unsigned directories;	      /* -n N:max:min:dirs; 1 when the file tests
					 ran and it was not printed */
	struct fc_bonnie_result tests[FC_BONNIE_TEST_COUNT];
};

enum fc_bonnie_diag_kind {
	FC_BONNIE_DIAG_TEXT = 0,   /* any other line: the text table, progress */
	FC_BONNIE_DIAG_HEADER = 1, /* a CSV header line ("format_version,...",
				      "name,file_size,..." in 1.0x) */
};

struct fc_bonnie_diag {
	enum fc_bonnie_diag_kind kind;
	unsigned long line;
	const char *text; /* without the line end */
};

struct fc_bonnie {
	const char *source; /* file name or buffer label */
	size_t n_rows;	    /* in input order */
	const struct fc_bonnie_row *rows;
	size_t n_diags; /* every non-blank line that is
			   not a row */
	const struct fc_bonnie_diag *diags;
};

/* Inputs, rows and other lines past these are refused with FC_E_LIMIT. */
#define FC_BONNIE_MAX_BYTES (16u << 20)
#define FC_BONNIE_MAX_ROWS  65536
#define FC_BONNIE_MAX_DIAGS 65536

/*
 * Reads every bonnie++ CSV row of a file or buffer, with any text around
 * them (CRLF, a BOM, blank lines accepted).  Returns FC_OK with *out set
 * when at least one row was read; the caller frees it with
 * fc_bonnie_free().  Otherwise *out is NULL and the error says why:
 * FC_E_NOT_FIO when no line is a bonnie++ row (also for bonnie++'s text
 * table alone, and for a header without rows); FC_E_SYNTAX for a row whose
 * field count or a field is wrong, naming the line, the column and the
 * field; FC_E_FORMAT for a version field no bonnie++ release wrote (or one
 * of the 1.90 - 1.92a snapshots' formats, which are not read); FC_E_LIMIT,
 * FC_E_IO, FC_E_NOMEM.  `source` labels a buffer in errors and is copied.
 */
FC_PUBLIC int fc_bonnie_read_file(const char *path, struct fc_bonnie **out, struct fc_error *err);
FC_PUBLIC int fc_bonnie_read_buffer(const void *buf, size_t len, const char *source,
				    struct fc_bonnie **out, struct fc_error *err);
FC_PUBLIC void fc_bonnie_free(struct fc_bonnie *b);

/* ------------------------------------------------------------------------ */
/* Statistics                                                               */
/* ------------------------------------------------------------------------ */

struct fc_summary {
	size_t n; /* finite values used; NaNs are skipped */
	double min, max, mean;
	double median;
	double q1, q3, iqr; /* quartiles by linear interpolation (type 7) */
	double mad;	    /* median absolute deviation, unscaled */
};

/* Summarises `values` (unchanged); non-finite values are skipped.  NaN
 * fields when no value is left.  0 or FC_E_NOMEM. */
FC_PUBLIC int fc_summarize(const double *values, size_t n, struct fc_summary *out);

/* Quantile q in [0,1] of ascending `sorted` values, linear interpolation
 * (type 7).  NaN when n == 0 or q is outside [0,1]. */
FC_PUBLIC double fc_quantile_sorted(const double *sorted, size_t n, double q);

struct fc_mann_whitney {
	double u;   /* U statistic of the first sample */
	double p;   /* two-sided p-value */
	bool exact; /* exact permutation distribution (small n), else normal */
	bool ties;
};

/*
 * Two-sided Mann-Whitney U test of a against b.  Exact (ties handled by the
 * permutation distribution of mid-ranks) when na + nb <= 50: p is the share
 * of all C(na+nb, na) splits whose rank sum lies at least as far from its
 * mean as the observed one.  Above 50 the normal approximation with tie and
 * continuity correction.  Non-finite values are skipped.
 * FC_E_INVAL if either sample is empty, FC_E_NOMEM.
 */
FC_PUBLIC int fc_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
			      struct fc_mann_whitney *out);

/*
 * Steady state, by the rule of SNIA's Solid State Storage Performance Test
 * Specification (PTS): a window of consecutive rounds of one metric is
 * steady when its range (max - min) is within `range_limit` of the
 * window's average, and the least-squares line through it rises or falls
 * across the window (|slope| x (n - 1) rounds) by at most `slope_limit` of
 * the average.  The PTS's own values are a window of 5 rounds, 20 % and
 * 10 % (FC_STEADY_*).  A window holding a non-finite value, or whose
 * average is not positive, is not steady; its figures are NaN.
 */
#define FC_STEADY_WINDOW 5
#define FC_STEADY_RANGE	 0.20
#define FC_STEADY_SLOPE	 0.10

struct fc_steady {
	bool reached;
	size_t first, last; /* 0-based indexes of the window (inclusive) */
	double average;	    /* of the window */
	double range;	    /* (max - min) / average */
	double slope;	    /* |least-squares slope| x (n - 1) / average */
};

/* Tests the window values[0..n-1], n >= 2.  FC_E_INVAL when n < 2 or a
 * limit is not a positive finite number. */
FC_PUBLIC int fc_steady_window(const double *values, size_t n, double range_limit,
			       double slope_limit, struct fc_steady *out);

/*
 * The first steady window of `window` (>= 2) consecutive values among
 * values[0..n-1], in order: out->reached with its first and last index.
 * When no window is steady, out->reached is false and out describes the
 * last window (the one a run adding rounds would test next), or has NaN
 * figures when n < window.  FC_E_INVAL as for fc_steady_window().
 */
FC_PUBLIC int fc_steady_first(const double *values, size_t n, size_t window, double range_limit,
			      double slope_limit, struct fc_steady *out);

#ifdef __cplusplus
}
#endif

#endif /* FIOCAMP_H */
