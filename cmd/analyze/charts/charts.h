/* SPDX-License-Identifier: MIT */
/*
 * The charts, as the writers see them: every chart of an analysis, each a
 * standalone <svg> element with its file name and title, made in the order
 * of the report (the HTML report embeds them, --svg writes them as files).
 * Nothing in them depends on time, locale or memory addresses.
 */
#ifndef AN_CHARTS_H
#define AN_CHARTS_H

#include <stddef.h>

#include "model/model.h"
#include "render/render.h"

enum an_chart_kind {
	AN_CHART_ROUNDS,	/* per test, job, direction, metric: every round */
	AN_CHART_PROFILE,	/* per test, job, direction (and variant): round 1 per second */
	AN_CHART_TRANSITIONS,	/* per campaign: actions, tasks, downtime, data back */
	AN_CHART_COMPARE,	/* the variants' headline metrics */
	AN_CHART_SWEEP,		/* per sweep: the headline against the swept option */
	AN_CHART_SWEEP_LATENCY, /* per sweep with a load: p99 against the headline */
	AN_CHART_KINDS,
};

struct an_chart {
	enum an_chart_kind kind;
	char *file;  /* its --svg file name, unique */
	char *title; /* one line, for a caption */
	size_t test; /* SIZE_MAX for a chart of no one test */
	size_t job_index;
	enum fc_ddir dir;
	size_t sweep; /* index into an_analysis.sweeps; SIZE_MAX for no sweep's */
	char *svg;    /* the <svg> element (no XML declaration) */
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
 * missing.  0, or AN_E_WRITE with err naming the file. */
int an_charts_write_dir(const struct an_charts *c, const char *dir, struct an_error *err);

#endif
