/* SPDX-License-Identifier: MIT */
/*
 * What the machine did while fio ran (prefix cm_tm_): the kernel's counters
 * read on the target once a second, the file that keeps them beside fio's
 * output, and the shares a run is judged by (CPU steal, foreign I/O).
 *
 * Counters are kept as the kernel printed them, cumulative; shares are
 * computed between two samples.  A counter that went backwards makes the
 * interval unknown, never a negative share: a CPU taken offline changes
 * what /proc/stat's aggregate line sums, a device removed and added again
 * starts from zero.  The exception is diskstats on a 32-bit kernel, whose
 * unsigned long counters wrap at 2^32: a smaller value after one that fits
 * in 32 bits is taken as that wrap.
 *
 * The telemetry file, version 1: a first line "fiocamp-telemetry 1", then
 * samples; each starts with a T line and holds the lines read at that
 * moment.  Fields are separated by one space; unknown line kinds are
 * skipped, so later versions may add kinds.
 *
 *   T MS UNIX_S                  ms since fio started; the wall clock
 *   cpu ONLINE USER NICE SYSTEM IDLE IOWAIT IRQ SOFTIRQ STEAL
 *                                /proc/stat's aggregate line (clock ticks)
 *                                and the number of cpuN lines
 *   disk NAME RD_IOS RD_SECTORS WR_IOS WR_SECTORS DC_IOS DC_SECTORS IO_MS
 *                                one /proc/diskstats line (512-byte sectors)
 *   psi RESOURCE SOME_US FULL_US /proc/pressure/RESOURCE's totals ("-" for
 *                                a full line the kernel does not print)
 *   mhz MHZ                      the average "cpu MHz" of /proc/cpuinfo
 *
 * What cannot be read on the target is left out of a sample, never
 * written as zero.
 */
#ifndef CM_TELEMETRY_H
#define CM_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

#define CM_TM_MAGIC	    "fiocamp-telemetry 1"
#define CM_TM_DISK_NAME_MAX 32
#define CM_TM_DISKS_MAX	    16
#define CM_TM_PSI_MAX	    3 /* io, cpu, memory */
#define CM_TM_MAX_BYTES	    (64u << 20)
#define CM_TM_MAX_SAMPLES   (1u << 20)
#define CM_TM_RESOURCE_MAX  8

struct cm_tm_cpu {
	bool known;
	unsigned online; /* cpuN lines; 0 when not counted */
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

struct cm_tm_disk {
	char name[CM_TM_DISK_NAME_MAX];
	uint64_t rd_ios, rd_sectors, wr_ios, wr_sectors, dc_ios, dc_sectors, io_ms;
};

struct cm_tm_psi {
	char resource[CM_TM_RESOURCE_MAX]; /* "io", "cpu", "memory" */
	uint64_t some_us;
	bool full_known;
	uint64_t full_us;
};

struct cm_tm_sample {
	double t_ms;   /* since fio started */
	double unix_s; /* NaN when not known */
	struct cm_tm_cpu cpu;
	size_t n_disks;
	struct cm_tm_disk disks[CM_TM_DISKS_MAX];
	size_t n_psi;
	struct cm_tm_psi psi[CM_TM_PSI_MAX];
	double mhz; /* NaN when not known */
};

/* ---- reading the kernel's files on the target --------------------------- */

/* /proc/stat: the aggregate "cpu" line (kernels before 2.6.11 print no
 * steal: 0 then, as they had none) and the count of cpuN lines.  -1 with
 * `why` when there is no aggregate line. */
int cm_tm_read_proc_stat(const char *text, struct cm_tm_cpu *out, char *why, size_t why_len);
/* The /proc/diskstats line of device `name` into *out; 0 when found, 1
 * when the device has no line, -1 with `why` for a line of the wrong shape.
 * Kernels before 4.18 print no discard fields: 0 then. */
int cm_tm_read_diskstats(const char *text, const char *name, struct cm_tm_disk *out, char *why,
			 size_t why_len);
/* /proc/pressure/RESOURCE's text; -1 with `why` when its "some" line is
 * missing or malformed (the "full" line is optional: cpu before 5.13). */
int cm_tm_read_pressure(const char *text, const char *resource, struct cm_tm_psi *out, char *why,
			size_t why_len);
/* The average of /proc/cpuinfo's "cpu MHz" lines; NaN when there are none
 * (arm64 prints none). */
double cm_tm_read_cpuinfo_mhz(const char *text);

/* ---- the telemetry file -------------------------------------------------- */

/* Appends the magic line. */
void cm_tm_write_header(struct cm_buf *b);
/* Appends one sample's lines. */
void cm_tm_write_sample(struct cm_buf *b, const struct cm_tm_sample *s);

struct cm_tm_series {
	size_t n;
	struct cm_tm_sample *samples; /* owned; in the file's order */
};
/* Reads a telemetry file's text (len bytes, NUL not required); -1 with
 * `why` ("line N: ...") for a wrong magic line, a malformed line, a T line
 * going back in time, or more than CM_TM_MAX_SAMPLES samples. */
int cm_tm_parse(const char *text, size_t len, struct cm_tm_series *out, char *why, size_t why_len);
void cm_tm_series_release(struct cm_tm_series *s);

/* ---- what a run is judged by --------------------------------------------- */

/* after - before of a cumulative counter into *delta; false when the counter
 * went backwards (see above for the 32-bit wrap, taken when `wraps32`). */
bool cm_tm_counter_delta(uint64_t before, uint64_t after, bool wraps32, uint64_t *delta);

struct cm_tm_cpu_share {
	bool known;   /* both samples had the line, no counter went back,
			 and some time passed */
	double steal; /* shares of all CPU time between the samples, 0..1 */
	double iowait;
	double busy;	   /* user + nice + system + irq + softirq */
	bool cpus_changed; /* the number of online CPUs differs */
};
struct cm_tm_cpu_share cm_tm_cpu_between(const struct cm_tm_cpu *a, const struct cm_tm_cpu *b);

/*
 * The share of the bytes a device moved between two samples that were not
 * fio's: (device - fio) / device, 0 when fio moved at least as much as the
 * device saw (a page cache served part of it), NaN when the device moved
 * nothing.  Bytes, not I/O counts, because the block layer merges small
 * requests and splits large ones: a 1 MiB sequential job can complete 8
 * device I/Os per fio I/O.
 */
double cm_tm_foreign_share(uint64_t device_bytes, uint64_t fio_bytes);

/* Bytes device `name` read, wrote and discarded between two samples; false
 * when either sample lacks the device or a counter went back. */
bool cm_tm_disk_bytes_between(const struct cm_tm_sample *a, const struct cm_tm_sample *b,
			      const char *name, uint64_t *bytes);

#endif /* CM_TELEMETRY_H */
