/* SPDX-License-Identifier: MIT */
/*
 * The model's defaults (fiocamp.h, model.h): every field "not reported"
 * (NaN doubles, -1 sentinels, zeros) until a reader fills it, and the
 * statistics fio fills with zeros turned back into "not present".
 */
#include <math.h>
#include <string.h>

#include "model.h"

void fc_lat_init(struct fc_lat *l)
{
	memset(l, 0, sizeof(*l));
	l->min_ns = l->max_ns = l->mean_ns = l->stddev_ns = NAN;
}

void fc_samples_init(struct fc_samples *s)
{
	memset(s, 0, sizeof(*s));
	s->min = s->max = s->mean = s->stddev = NAN;
}

void fc_dir_init(struct fc_dir *d)
{
	memset(d, 0, sizeof(*d));
	d->bw_bytes = d->iops = NAN;
	fc_lat_init(&d->slat);
	fc_lat_init(&d->clat);
	fc_lat_init(&d->lat);
	fc_samples_init(&d->bw_samples);
	fc_samples_init(&d->iops_samples);
	d->bw_agg_pct = d->cachehit_pct = NAN;
}

void fc_job_init(struct fc_job *j)
{
	memset(j, 0, sizeof(*j));
	j->name = "";
	j->job_start_ms = j->eta_s = j->elapsed_s = j->job_runtime_ms = -1;
	j->total_err = j->first_error = -1;
	j->usr_cpu_pct = j->sys_cpu_pct = NAN;
	for (int d = 0; d < FC_DDIR_COUNT; d++)
		fc_dir_init(&j->dir[d]);
}

void fc_disk_init(struct fc_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->name = "";
	d->read_sectors = d->write_sectors = -1;
	d->util_pct = NAN;
}

void fc_run_init(struct fc_run *r)
{
	memset(r, 0, sizeof(*r));
	r->version_major = r->version_minor = r->version_patch = -1;
	r->timestamp_s = r->timestamp_ms = -1;
}

void fc_lat_settle(struct fc_lat *l)
{
	if (!l->present)
		return;
	/* without N (terse, JSON < 3.18, no bins) a zero max and mean mean no
	 * sample: even one of 0.4 us would show in the mean */
	bool none = l->n_known ? l->n == 0 : l->max_ns == 0 && l->mean_ns == 0;
	if (none)
		fc_lat_init(l);
}

void fc_samples_settle(struct fc_samples *s)
{
	if (!s->present)
		return;
	bool none = s->n_known ? s->n == 0 : s->max == 0 && s->mean == 0;
	if (none)
		fc_samples_init(s);
}
