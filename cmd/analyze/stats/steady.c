/* SPDX-License-Identifier: MIT */
/*
 * Whether a test's rounds in a column have settled: SNIA PTS's steady rule
 * (fc_steady_first: a window of rounds whose range is within 20 % of their
 * average and whose least-squares line rises or falls across it by at most
 * 10 %) on the test's headline metric, the rounds' IOPS (of every job and
 * direction together), else their MiB/s.  The same rule fiocamp-run's
 * `rounds = until-steady` applies, for any pile with rounds.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* The metric a test is steady by: IOPS when it has them, else bandwidth. */
static enum an_metric headline_of(const struct an_analysis *a, const struct an_test *t)
{
	for (size_t i = t->series_start; i < t->series_end; i++)
		if (a->series[i].metric == AN_M_IOPS)
			return AN_M_IOPS;
	return AN_M_BW;
}

struct round_value {
	int round;
	double v;
};

static int cmp_round(const void *x, const void *y)
{
	const struct round_value *p = x, *q = y;
	return (p->round > q->round) - (p->round < q->round);
}

void an_steady_build(struct an_analysis *a)
{
	size_t window = a->steady_window;
	for (size_t t = 0; t < a->n_tests; t++) {
		const struct an_test *test = &a->tests[t];
		enum an_metric m = headline_of(a, test);
		for (size_t k = 0; k < a->n_cols; k++) {
			size_t n = 0;
			for (size_t i = test->series_start; i < test->series_end; i++)
				if (a->series[i].metric == m)
					n += a->series[i].cells[k].n;
			if (n < window)
				continue;
			struct round_value *rv = cm_calloc(n, sizeof(*rv));
			n = 0;
			for (size_t i = test->series_start; i < test->series_end; i++) {
				const struct an_series *s = &a->series[i];
				if (s->metric != m)
					continue;
				for (size_t j = 0; j < s->cells[k].n; j++)
					rv[n++] = (struct round_value){s->cells[k].rounds[j],
								       s->cells[k].values[j]};
			}
			qsort(rv, n, sizeof(*rv), cmp_round);
			/* a round's value: the sum over the test's jobs and directions */
			size_t w = 0;
			for (size_t i = 0; i < n; i++) {
				if (w && rv[w - 1].round == rv[i].round)
					rv[w - 1].v += rv[i].v;
				else
					rv[w++] = rv[i];
			}
			if (w >= window) {
				double *v = cm_calloc(w, sizeof(*v));
				for (size_t i = 0; i < w; i++)
					v[i] = rv[i].v;
				struct fc_steady st;
				if (fc_steady_first(v, w, window, FC_STEADY_RANGE, FC_STEADY_SLOPE,
						    &st) == 0) {
					struct an_steady *e =
					    CM_PUSH(a->steady, a->n_steady, a->cap_steady);
					*e = (struct an_steady){k,
								t,
								an_metric_name(m),
								w,
								window,
								st.reached,
								st.reached ? rv[st.last].round : 0,
								st.range,
								st.slope};
				}
				free(v);
			}
			free(rv);
		}
	}
}
