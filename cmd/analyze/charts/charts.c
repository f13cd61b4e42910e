/* SPDX-License-Identifier: MIT */
/*
 * The charts of an analysis in the order of the report: the variants'
 * comparison, each sweep's two charts, each campaign's transitions, then
 * each test's job and direction
 * with a chart per metric of the table and its per-second profiles; and the
 * --svg files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charts/chart.h"

static const struct {
	const char *file, *text;
} kinds[AN_CHART_KINDS] = {
    [AN_CHART_ROUNDS] = {"rounds-TEST[-jobN]-DIRECTION-METRIC.svg",
			 "every round of a test as a dot per state and variant (round 1 a "
			 "hollow diamond), the median as a bar, the baseline's min..max as a "
			 "shaded band; one chart per metric of the table (--metrics)"},
    [AN_CHART_PROFILE] = {"profile-TEST[-jobN]-DIRECTION[-VARIANT].svg",
			  "the per-second log of each state's round 1 over the baseline's "
			  "per-second p10..p90 band, the second it got back into the band "
			  "ringed; long logs drawn as the minimum and maximum of each pixel "
			  "column"},
    [AN_CHART_TRANSITIONS] = {"transitions[-CAMPAIGN[-HOST]].svg",
			      "per state: each action's seconds by fiocamp's stopwatch and "
			      "by the provider's task, the downtime and the data back time; "
			      "per campaign when there are several, per host of a fleet"},
    [AN_CHART_COMPARE] = {"compare.svg",
			  "with several variants: each test's headline metric (IOPS, or "
			  "MiB/s for blocks of 64 KiB and more) per variant and state, the "
			  "median as a bar, min..max as a whisker, every round as a dot"},
    [AN_CHART_SWEEP] = {"sweep-SWEEP-iops.svg, sweep-SWEEP-mibs.svg",
			"per sweep: the headline (IOPS, or MiB/s) against the swept option, "
			"a line through the medians per value of the other swept option and "
			"per state and variant, every round a dot, min..max a whisker; queue "
			"depths, job counts and block sizes on a log axis, the values on a log "
			"axis when they span more than 20 times"},
    [AN_CHART_SWEEP_LATENCY] = {"sweep-SWEEP-latency.svg",
				"per sweep of iodepth or numjobs: p99 latency against the "
				"headline through the queue depths (the job counts when "
				"iodepth is not swept), a line per value of the other option "
				"and per state and variant, the saturation point ringed"},
};

const char *an_chart_kind_file(enum an_chart_kind k)
{
	return (unsigned)k < AN_CHART_KINDS ? kinds[k].file : "?";
}

const char *an_chart_kind_text(enum an_chart_kind k)
{
	return (unsigned)k < AN_CHART_KINDS ? kinds[k].text : "?";
}

void an_charts_release(struct an_charts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].file);
		free(c->v[i].title);
		free(c->v[i].svg);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

void an_charts_make(struct an_charts *out, const struct an_analysis *a,
		    const struct an_report_opts *o)
{
	memset(out, 0, sizeof(*out));
	if (a->n_variants > 1)
		an_chart_compare(out, a);
	for (size_t s = 0; s < a->n_sweeps; s++)
		an_chart_sweep(out, a, s);
	for (size_t c = 0; c < a->n_campaigns; c++)
		an_chart_transitions(out, a, c);
	for (size_t t = 0; t < a->n_tests; t++) {
		const struct an_test *ts = &a->tests[t];
		for (size_t i = ts->series_start; i < ts->series_end; i++) {
			const struct an_series *s = &a->series[i];
			/* once per job and direction: its metrics, then its profile */
			bool seen = false;
			for (size_t k = ts->series_start; k < i && !seen; k++)
				seen = a->series[k].job_index == s->job_index &&
				       a->series[k].dir == s->dir;
			if (seen)
				continue;
			for (int m = 0; m < AN_M_FIRST_LOG; m++) {
				if (!o->metrics[m])
					continue;
				const struct an_series *ms =
				    an_find_series(a, t, s->job_index, s->dir, (enum an_metric)m);
				if (ms)
					an_chart_rounds(out, a, ms);
			}
			const struct an_series *first =
			    an_find_series(a, t, s->job_index, s->dir, AN_M_SEC_FIRST);
			const struct an_series *rec =
			    an_find_series(a, t, s->job_index, s->dir, AN_M_RECOVERY);
			for (size_t v = 0; first && v < a->n_variants; v++)
				an_chart_profile(out, a, first, rec, v);
		}
	}
}

int an_charts_write_dir(const struct an_charts *c, const char *dir, struct an_error *err)
{
	struct stat st;
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		return an_fail(err, AN_E_WRITE, "%s: cannot make the directory: %s", dir,
			       strerror(errno));
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		return an_fail(err, AN_E_WRITE, "%s: not a directory", dir);
	}
	static const char head[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	for (size_t i = 0; i < c->n; i++) {
		char *path = cm_asprintf("%s/%s", dir, c->v[i].file);
		FILE *f = fopen(path, "w");
		if (!f) {
			an_fail(err, AN_E_WRITE, "%s: %s", path, strerror(errno));
			free(path);
			return AN_E_WRITE;
		}
		fputs(head, f);
		fwrite(c->v[i].svg, 1, c->v[i].svg_len, f);
		int bad = ferror(f);
		bad |= fclose(f) != 0;
		if (bad) {
			an_fail(err, AN_E_WRITE, "%s: write error", path);
			free(path);
			return AN_E_WRITE;
		}
		free(path);
	}
	return 0;
}
