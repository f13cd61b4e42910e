/* SPDX-License-Identifier: MIT */
/* Statistics helpers.  Not written yet. */
#include <math.h>
#include <string.h>

#include "util.h"

int fc_summarize(const double *values, size_t n, struct fc_summary *out)
{
	(void)values;
	(void)n;
	memset(out, 0, sizeof(*out));
	return FC_E_INVAL;
}

double fc_quantile_sorted(const double *sorted, size_t n, double q)
{
	(void)sorted;
	(void)n;
	(void)q;
	return NAN;
}

int fc_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		    struct fc_mann_whitney *out)
{
	(void)a;
	(void)na;
	(void)b;
	(void)nb;
	memset(out, 0, sizeof(*out));
	return FC_E_INVAL;
}
