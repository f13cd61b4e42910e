/* SPDX-License-Identifier: MIT */
/*
 * bench-profile: reads one log into a profile and prints a summary, or with
 * -v every point.  Used by bench-log.sh to time the profile of a large log;
 * handy to look at a log by hand too.
 *
 *   bench-profile [-v] [-i INTERVAL_MS] [-w WINDOW_MS] [-t TYPE] FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiocamp.h"

static enum fc_log_type type_from(const char *s)
{
	for (int t = FC_LOG_BW; t <= FC_LOG_CLAT_HIST; t++) {
		if (strcmp(s, fc_log_type_name((enum fc_log_type)t)) == 0)
			return (enum fc_log_type)t;
	}
	return FC_LOG_UNKNOWN;
}

int main(int argc, char **argv)
{
	struct fc_profile_opts opts = {0};
	bool verbose = false;
	int c;
	while ((c = getopt(argc, argv, "vi:w:t:")) != -1) {
		switch (c) {
		case 'v':
			verbose = true;
			break;
		case 'i':
			opts.interval_ms = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			opts.window_ms = strtoull(optarg, NULL, 10);
			break;
		case 't':
			opts.type = type_from(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-v] [-i MS] [-w MS] [-t TYPE] FILE\n", argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "usage: %s [-v] [-i MS] [-w MS] [-t TYPE] FILE\n", argv[0]);
		return 2;
	}
	struct fc_profile *p;
	struct fc_error err;
	if (fc_profile_read_file(argv[optind], &opts, &p, &err) < 0) {
		char msg[1024];
		fc_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	printf("%s log, %s, %llu lines, %u columns, interval %llu ms%s%s\n",
	       fc_log_type_name(p->type) ? fc_log_type_name(p->type) : "empty",
	       p->per_io ? "per-I/O" : "windowed", (unsigned long long)p->lines, p->layout.columns,
	       (unsigned long long)p->interval_ms,
	       p->time_went_backwards ? ", time went backwards" : "",
	       p->empty_windows ? ", empty windows" : "");
	for (int d = 0; d < 3; d++) {
		const struct fc_profile_series *s = &p->dir[d];
		if (!s->n)
			continue;
		double total = 0;
		size_t gaps = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (s->points[i].gap)
				gaps++;
			else if (s->points[i].total == s->points[i].total)
				total += s->points[i].total;
		}
		printf("%s: %zu intervals from %llu ms, %zu gaps, total %.6g\n",
		       fc_ddir_name((enum fc_ddir)d), s->n,
		       (unsigned long long)s->points[0].start_ms, gaps, total);
		for (size_t i = 0; verbose && i < s->n; i++) {
			const struct fc_profile_point *pt = &s->points[i];
			printf("  %8llu %s value %.10g min %.10g max %.10g total %.10g covered %g "
			       "samples %llu",
			       (unsigned long long)pt->start_ms, pt->gap ? "gap" : "   ", pt->value,
			       pt->min, pt->max, pt->total, pt->covered_ms,
			       (unsigned long long)pt->samples);
			for (size_t j = 0; pt->percentiles_ns && j < p->n_percentiles; j++)
				printf(" p%g %.10g", p->percentiles[j], pt->percentiles_ns[j]);
			printf("\n");
		}
	}
	fc_profile_free(p);
	return 0;
}
