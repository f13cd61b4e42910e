/* SPDX-License-Identifier: MIT */
/*
 * Private: building the model (fiocamp.h) from JSON and terse input.
 * Everything a builder allocates comes from the output's arena.
 */
#ifndef FC_MODEL_H
#define FC_MODEL_H

#include "fiocamp.h"
#include "util.h"

/* The error for an input whose reports pass the memory allowed for it. */
#define FC_MEM_LIMIT_FMT                                                                           \
	"the reports need more than the %zu MiB allowed for an input of this size "                \
	"(FC_OUTPUT_MEM_*)"

/* Set every field to "not reported": NaN doubles, -1 sentinels, zeros. */
void fc_lat_init(struct fc_lat *l);
void fc_samples_init(struct fc_samples *s);
void fc_dir_init(struct fc_dir *d);
void fc_job_init(struct fc_job *j);
void fc_disk_init(struct fc_disk *d);
void fc_run_init(struct fc_run *r);

/*
 * A latency or sample statistic without samples has nothing to report:
 * fio fills it with zeros (JSON N 0, terse 0;0;0.000000), and these turn it
 * back into "not present" (NaN values, no percentiles) for every reader.
 */
void fc_lat_settle(struct fc_lat *l);
void fc_samples_settle(struct fc_samples *s);

/* Numbers numjobs clones: the n-th job with the same group, host, port and
 * name gets clone n.  0 or FC_E_NOMEM. */
int fc_number_clones(struct fc_job *jobs, size_t n);

/* One terse job line, parsed. */
struct fc_terse_line {
	int version;		 /* 2..5 */
	const char *fio_version; /* NULL for v2 */
	struct fc_job job;	 /* index and clone are left to the caller */
};

/*
 * Cheap test: if `line` (without its line end) is meant as a terse job line,
 * returns the version it claims, else 0.  Claimed are "N;fio-..." (v3 and
 * later, any N, so that an unknown version reaches fc_terse_parse and is
 * refused there) and "2;name;groupid;error;..." with three integers (v2).
 * No other text fio prints starts with digits and ';'.
 */
int fc_terse_detect(const char *line, size_t len);

/*
 * Parses a terse job line of any version into *out, allocating from `a`,
 * and appends its disk-util records to `disks` (a vec of struct fc_disk).
 * `lineno` is the line's number in `source`, for errors, which name the
 * 1-based field that is wrong.
 */
int fc_terse_parse(struct fc_arena *a, const char *line, size_t len, const char *source,
		   unsigned long lineno, struct fc_terse_line *out, struct fc_vec *disks,
		   struct fc_error *err);

/*
 * A client-mode disk-util line (";vda;8633;707;...").  Appends one struct
 * fc_disk per record to `disks` (a vec of struct fc_disk), names from `a`.
 * Returns 0, or a negative status with err filled.
 */
int fc_terse_parse_disk_line(struct fc_arena *a, const char *line, size_t len, const char *source,
			     unsigned long lineno, struct fc_vec *disks, struct fc_error *err);

/* ---- normal output (normal.c) ------------------------------------------- */

/* One report found in normal output, or why it could not be read. */
struct fc_normal_report {
	int status;	       /* FC_OK, FC_E_UNFINISHED (cut short) or FC_E_SYNTAX */
	struct fc_error error; /* why, when status != FC_OK */
	struct fc_run run;     /* line and offset always set; the rest if FC_OK */
};

/* Lines first..last (1-based) belong to reports, not to the diagnostics. */
struct fc_line_span {
	unsigned long first, last;
};

/*
 * Reads every report of fio's normal output in [buf, buf + len) (after any
 * BOM), in input order, into `reports` (struct fc_normal_report) and the
 * lines they take into `spans` (struct fc_line_span, ascending).  Everything
 * a report holds is allocated from `a`.  Returns 0, or FC_E_NOMEM/FC_E_LIMIT
 * with err filled; a report that cannot be read is a report with an error.
 */
int fc_normal_scan(struct fc_arena *a, const char *buf, size_t len, const char *source,
		   struct fc_vec *reports, struct fc_vec *spans, struct fc_error *err);

#endif
