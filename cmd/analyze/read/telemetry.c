/* SPDX-License-Identifier: MIT */
/*
 * A run's .telemetry file (cmd/common/telemetry.h), read for the runs a
 * per-second profile is drawn of: the first round of each state, when it
 * has a per-second log.  Each interval between two samples gets its CPU
 * steal and iowait, and its foreign I/O: the bytes the device moved that
 * were not fio's.  fio's bytes of an interval come from its per-second
 * logs, each direction's shape scaled to the bandwidth its report gives, so
 * that an IOPS log counts bytes too.  A file that cannot be read is a
 * note, never a failure: the profile is drawn without it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/telemetry.h"
#include "read/read.h"

/* A direction's per-second log, scaled to bytes per ms. */
struct fio_rate {
	const struct an_sec_series *sec;
	double bytes_per_ms_per_unit;
};

/* Each direction of each job that did I/O, with its log; false when one
 * has none (fio's bytes per second are then not known). */
static bool fio_rates(const struct an_run *r, struct fio_rate **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	for (size_t j = 0; j < r->n_jobs; j++) {
		const struct an_job *job = &r->jobs[j];
		for (size_t k = 0; k < AN_N_REPORT_DIRS; k++) {
			enum fc_ddir d = an_report_dirs[k];
			const struct an_dirvals *dv = &job->dir[d];
			/* mixed repeats read+write+trim under unified_rw_reporting=both */
			if (!dv->present || (d == FC_DDIR_MIXED && job->dir[FC_DDIR_READ].present))
				continue;
			if (!dv->sec.n || !dv->sec.interval_ms || !isfinite(dv->v[AN_M_BW])) {
				free(*out);
				*out = NULL;
				*n = 0;
				return false;
			}
			double sum = 0;
			size_t m = 0;
			for (size_t q = 0; q < dv->sec.n; q++) {
				if (isfinite(dv->sec.values[q])) {
					sum += dv->sec.values[q];
					m++;
				}
			}
			struct fio_rate *fr = CM_PUSH(*out, *n, cap);
			fr->sec = &dv->sec;
			double mean = m ? sum / (double)m : 0;
			fr->bytes_per_ms_per_unit =
			    mean > 0 ? dv->v[AN_M_BW] * 1048576.0 / 1000.0 / mean : 0;
		}
	}
	return *n > 0;
}

/* fio's bytes between t0_ms and t1_ms: each log interval's rate over its
 * overlap with the window; NaN when a log leaves more than a tenth of the
 * window out (fio 3.33 writes no line for a run's last second). */
static double fio_bytes_between(const struct fio_rate *rates, size_t n, double t0_ms, double t1_ms)
{
	double bytes = 0;
	for (size_t i = 0; i < n; i++) {
		const struct an_sec_series *sec = rates[i].sec;
		double iv = (double)sec->interval_ms;
		double c0 = (double)sec->start_ms, c1 = c0 + (double)sec->n * iv;
		double in0 = c0 > t0_ms ? c0 : t0_ms, in1 = c1 < t1_ms ? c1 : t1_ms;
		if (in1 - in0 < 0.9 * (t1_ms - t0_ms))
			return NAN;
		for (size_t q = 0; q < sec->n; q++) {
			double a = (double)sec->start_ms + (double)q * iv, b = a + iv;
			double lo = a > t0_ms ? a : t0_ms, hi = b < t1_ms ? b : t1_ms;
			if (hi <= lo || !isfinite(sec->values[q]))
				continue;
			bytes += sec->values[q] * rates[i].bytes_per_ms_per_unit * (hi - lo);
		}
	}
	return bytes;
}

/* The device the summary was taken of, else the first of the first sample
 * that has one. */
static const char *tm_device(const struct an_run *r, const struct cm_tm_series *s)
{
	if (r->telemetry_device)
		return r->telemetry_device;
	for (size_t i = 0; i < s->n; i++) {
		if (s->samples[i].n_disks)
			return s->samples[i].disks[0].name;
	}
	return NULL;
}

static void tm_intervals(struct an_run *r, const struct cm_tm_series *s)
{
	struct fio_rate *rates;
	size_t nr;
	bool have_fio = fio_rates(r, &rates, &nr);
	const char *dev = tm_device(r, s);
	r->tm = cm_calloc(s->n ? s->n : 1, sizeof(*r->tm));
	r->n_tm = 0;
	for (size_t i = 1; i < s->n; i++) {
		const struct cm_tm_sample *a = &s->samples[i - 1], *b = &s->samples[i];
		if (!(b->t_ms > a->t_ms))
			continue;
		struct an_tm_interval *iv = &r->tm[r->n_tm++];
		iv->t0_s = a->t_ms / 1000.0;
		iv->t1_s = b->t_ms / 1000.0;
		struct cm_tm_cpu_share cpu = cm_tm_cpu_between(&a->cpu, &b->cpu);
		iv->steal = cpu.known ? cpu.steal : NAN;
		iv->iowait = cpu.known ? cpu.iowait : NAN;
		iv->foreign = NAN;
		uint64_t dev_bytes;
		if (have_fio && dev && cm_tm_disk_bytes_between(a, b, dev, &dev_bytes)) {
			double fb = fio_bytes_between(rates, nr, a->t_ms, b->t_ms);
			if (isfinite(fb))
				iv->foreign = cm_tm_foreign_share(dev_bytes, (uint64_t)llround(fb));
		}
	}
	free(rates);
}

/* Whether a profile will want the run's telemetry. */
static bool wants_telemetry(const struct an_run *r)
{
	if (!r->accepted || !r->telemetry_path || !an_run_first(r))
		return false;
	for (size_t j = 0; j < r->n_jobs; j++) {
		for (int d = 0; d < FC_DDIR_COUNT; d++) {
			if (r->jobs[j].dir[d].sec.n)
				return true;
		}
	}
	return false;
}

void an_read_telemetry(struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		struct an_run *r = &a->runs[i];
		if (!wants_telemetry(r))
			continue;
		char why[256] = "";
		char *text = NULL;
		size_t len = 0;
		if (cm_read_file(r->telemetry_path, CM_TM_MAX_BYTES, &text, &len, why,
				 sizeof(why)) < 0) {
			an_note(a, "%s: the run's telemetry is not shown: %s", r->telemetry_path,
				why);
			continue;
		}
		struct cm_tm_series s = {0, NULL};
		int rc = cm_tm_parse(text, len, &s, why, sizeof(why));
		free(text);
		if (rc < 0) {
			an_note(a, "%s: the run's telemetry is not shown: %s", r->telemetry_path,
				why);
			continue;
		}
		if (s.n < 2)
			an_note(a,
				"%s: the run's telemetry is not shown: %zu sample(s), too few for "
				"an interval",
				r->telemetry_path, s.n);
		else
			tm_intervals(r, &s);
		cm_tm_series_release(&s);
	}
}
