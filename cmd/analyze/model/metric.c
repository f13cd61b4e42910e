/* SPDX-License-Identifier: MIT */
/* The metrics: their names, labels and units; the arithmetic every stage
 * shares. */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

static const struct {
	const char *name, *label;
} metric_names[AN_M_COUNT] = {
    [AN_M_IOPS] = {"iops", "IOPS"},
    [AN_M_BW] = {"bw", "bw MiB/s"},
    [AN_M_FILES] = {"files", "files/s"},
    [AN_M_CPU] = {"cpu", "CPU %"},
    [AN_M_CLAT_MEAN] = {"clat_mean", "clat mean us"},
    [AN_M_LAT_MEAN] = {"lat_mean", "lat mean us"},
    [AN_M_CLAT_P50] = {"clat_p50", "clat p50 us"},
    [AN_M_CLAT_P99] = {"clat_p99", "clat p99 us"},
    [AN_M_CLAT_P999] = {"clat_p99.9", "clat p99.9 us"},
    [AN_M_LAT_P50] = {"lat_p50", "lat p50 us"},
    [AN_M_LAT_P99] = {"lat_p99", "lat p99 us"},
    [AN_M_LAT_P999] = {"lat_p99.9", "lat p99.9 us"},
    [AN_M_LAT_MAX] = {"lat_max", "lat max us"},
    [AN_M_SEC_FIRST] = {"sec_first", "1st second"},
    [AN_M_SEC_MIN] = {"sec_min", "slowest second"},
    [AN_M_SEC_MAX] = {"sec_max", "fastest second"},
    [AN_M_SEC_LAST] = {"sec_last", "last second"},
    [AN_M_RECOVERY] = {"recovery_s", "recovery s"},
};

const enum fc_ddir an_report_dirs[AN_N_REPORT_DIRS] = {FC_DDIR_READ, FC_DDIR_WRITE, FC_DDIR_TRIM,
						       FC_DDIR_MIXED};

const char *an_metric_name(enum an_metric m)
{
	return (unsigned)m < AN_M_COUNT ? metric_names[m].name : "?";
}

const char *an_metric_label(enum an_metric m)
{
	return (unsigned)m < AN_M_COUNT ? metric_names[m].label : "?";
}

const char *an_metric_unit(enum an_metric m, enum fc_log_type log_type)
{
	switch (m) {
	case AN_M_IOPS:
		return "IO/s";
	case AN_M_BW:
		return "MiB/s";
	case AN_M_FILES:
		return "files/s";
	case AN_M_CPU:
		return "%";
	case AN_M_SEC_FIRST:
	case AN_M_SEC_MIN:
	case AN_M_SEC_MAX:
	case AN_M_SEC_LAST:
		return log_type == FC_LOG_BW ? "MiB/s" : "IO/s";
	case AN_M_RECOVERY:
		return "s";
	default:
		return "us";
	}
}

int an_metric_parse(const char *name)
{
	for (int m = 0; m < AN_M_COUNT; m++) {
		if (strcmp(metric_names[m].name, name) == 0)
			return m;
	}
	return -1;
}

double an_pct_change(double v, double base)
{
	if (!isfinite(v) || !isfinite(base) || base == 0)
		return NAN;
	return (v - base) / base * 100.0;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

double an_median(const double *v, size_t n)
{
	if (!n)
		return NAN;
	double *c = cm_calloc(n, sizeof(*c));
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return m;
}
