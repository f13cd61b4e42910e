/* SPDX-License-Identifier: MIT */
/*
 * fio's log-linear latency histogram (fio's stat.h explains the layout):
 * buckets come in groups of 64; the first two groups are 1 unit wide, and
 * each further group covers twice the range of the previous one with 64
 * equal buckets.  fio reports a bucket by its midpoint.
 */
#include <math.h>

#include "fiocamp.h"

#define PLAT_BITS 6
#define PLAT_VAL  (1u << PLAT_BITS)

double fc_hist_bucket_value(unsigned index, unsigned groups, int edge)
{
	if (groups == 0 || groups > 40 || index >= groups * PLAT_VAL)
		return NAN;
	if (index < 2 * PLAT_VAL) {
		/* exact buckets: fio reports the index itself */
		return edge > 0 ? (double)index + 1 : (double)index;
	}
	unsigned error_bits = (index >> PLAT_BITS) - 1;
	double width = ldexp(1.0, (int)error_bits);
	double base = ldexp(1.0, (int)(error_bits + PLAT_BITS));
	double lower = base + (double)(index % PLAT_VAL) * width;
	if (edge < 0)
		return lower;
	if (edge > 0)
		return lower + width;
	return lower + width / 2;
}
