/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze: from a campaign directory or a pile of fio output to
 * per-state medians, first-round effects and per-second profiles.
 *
 * Exit status: 0 all inputs used, 1 some inputs were rejected (listed on
 * stderr), 2 usage error, unreadable manifest, or nothing to analyze.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyze.h"

#ifndef FIOCAMP_VERSION
#define FIOCAMP_VERSION "unknown"
#endif

enum out_format { OUT_DEFAULT, OUT_TABLE, OUT_CSV, OUT_JSON, OUT_MARKDOWN };

static void usage(FILE *f)
{
	fputs("Usage: fiocamp-analyze [OPTION]... INPUT...\n"
	      "Summarise fio runs per state and test: medians, spread, change against a\n"
	      "baseline, round 1 against rounds 2..n, per-second recovery.\n"
	      "\n"
	      "INPUT is a campaign directory (with manifest.json), any directory of fio\n"
	      "output and logs, single files, or a quoted glob.\n"
	      "\n"
	      "Grouping:\n"
	      "  -p, --pattern PAT      names like PAT: {state} {round} {test} and *, e.g.\n"
	      "                         '{state}{round}-{test}.json', "
	      "'{state}/r{round}/{test}.json'\n"
	      "  -b, --baseline STATE   compare against STATE (default: the manifest's first\n"
	      "                         state, else the state that ran first)\n"
	      "      --state-order A,B  show states in this order (default: manifest or time)\n"
	      "      --no-manifest      ignore manifest.json, infer from names\n"
	      "Output (default: the table on a terminal, else --csv summary):\n"
	      "  -t, --table            table grouped by test, states as columns\n"
	      "  -c, --csv KIND         summary | rounds | profile | transitions\n"
	      "      --json             everything, as one JSON document\n"
	      "  -m, --markdown         the table as Markdown\n"
	      "  -o, --output FILE      write there instead of stdout\n"
	      "      --sep C            CSV separator: , ; tab (default , or ; with --decimal ,)\n"
	      "      --decimal C        decimal mark: . or , (default .)\n"
	      "      --bom              start CSV with a UTF-8 byte order mark (for Excel)\n"
	      "      --metrics LIST     table rows: iops,bw,clat_mean,lat_mean,clat_p50,\n"
	      "                         clat_p99,clat_p99.9,lat_p50,lat_p99,lat_p99.9 or all\n"
	      "                         (default iops,bw,clat_mean,clat_p99)\n"
	      "  -w, --width N          table width (default: the terminal's, else 100)\n"
	      "  -j, --threads N        parse on N threads (default: online CPUs)\n"
	      "  -h, --help             this text\n"
	      "      --version          version\n"
	      "\n"
	      "Exit status: 0 ok, 1 some inputs were rejected (listed on stderr),\n"
	      "2 usage error or nothing to analyze.  See fiocamp-analyze(1).\n",
	      f);
}

static int usage_error(const char *fmt, ...) AN_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fiocamp-analyze: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'fiocamp-analyze --help'.\n", stderr);
	return 2;
}

static int parse_char(const char *arg, char *out)
{
	if (strcmp(arg, "tab") == 0 || strcmp(arg, "\\t") == 0) {
		*out = '\t';
		return 0;
	}
	if (strlen(arg) != 1 || arg[0] == '"' || arg[0] == '\r' || arg[0] == '\n')
		return -1;
	*out = arg[0];
	return 0;
}

static int parse_metrics(const char *list, bool *metrics)
{
	memset(metrics, 0, sizeof(bool) * AN_M_COUNT);
	if (strcmp(list, "all") == 0) {
		for (int m = 0; m < AN_M_FIRST_LOG; m++)
			metrics[m] = true;
		return 0;
	}
	char *copy = an_strdup(list);
	char *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m = an_metric_parse(tok);
		if (m < 0 || m >= AN_M_FIRST_LOG) {
			rc = usage_error("--metrics: unknown metric \"%s\"", tok);
			break;
		}
		metrics[m] = true;
	}
	free(copy);
	return rc;
}

static int terminal_width(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	const char *cols = getenv("COLUMNS");
	if (cols && atoi(cols) > 0)
		return atoi(cols);
	return 100;
}

static int cmp_rejected(const void *x, const void *y)
{
	const struct an_rejected *a = x, *b = y;
	return strcmp(a->path, b->path);
}

int main(int argc, char **argv)
{
	enum {
		OPT_STATE_ORDER = 256,
		OPT_NO_MANIFEST,
		OPT_JSON,
		OPT_SEP,
		OPT_DECIMAL,
		OPT_BOM,
		OPT_METRICS,
		OPT_VERSION
	};
	static const struct option longopts[] = {
	    {"pattern", required_argument, NULL, 'p'},
	    {"baseline", required_argument, NULL, 'b'},
	    {"state-order", required_argument, NULL, OPT_STATE_ORDER},
	    {"no-manifest", no_argument, NULL, OPT_NO_MANIFEST},
	    {"table", no_argument, NULL, 't'},
	    {"csv", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"markdown", no_argument, NULL, 'm'},
	    {"output", required_argument, NULL, 'o'},
	    {"sep", required_argument, NULL, OPT_SEP},
	    {"decimal", required_argument, NULL, OPT_DECIMAL},
	    {"bom", no_argument, NULL, OPT_BOM},
	    {"metrics", required_argument, NULL, OPT_METRICS},
	    {"width", required_argument, NULL, 'w'},
	    {"threads", required_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	struct an_options opt = {0};
	struct an_report_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.csv.sep = 0;
	ro.csv.decimal = '.';
	ro.metrics[AN_M_IOPS] = ro.metrics[AN_M_BW] = true;
	ro.metrics[AN_M_CLAT_MEAN] = ro.metrics[AN_M_CLAT_P99] = true;
	enum out_format format = OUT_DEFAULT;
	enum an_csv_kind csv_kind = AN_CSV_SUMMARY;
	const char *output = NULL;
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	int c;

	while ((c = getopt_long(argc, argv, "p:b:tc:mo:w:j:h", longopts, NULL)) != -1) {
		enum out_format want = OUT_DEFAULT;
		switch (c) {
		case 'p':
			opt.pattern = optarg;
			break;
		case 'b':
			opt.baseline = optarg;
			break;
		case OPT_STATE_ORDER:
			opt.state_order = optarg;
			break;
		case OPT_NO_MANIFEST:
			opt.no_manifest = true;
			break;
		case 't':
			want = OUT_TABLE;
			break;
		case 'c':
			want = OUT_CSV;
			if (strcmp(optarg, "summary") == 0)
				csv_kind = AN_CSV_SUMMARY;
			else if (strcmp(optarg, "rounds") == 0)
				csv_kind = AN_CSV_ROUNDS;
			else if (strcmp(optarg, "profile") == 0)
				csv_kind = AN_CSV_PROFILE;
			else if (strcmp(optarg, "transitions") == 0)
				csv_kind = AN_CSV_TRANSITIONS;
			else
				return usage_error("--csv: \"%s\" is not summary, rounds, profile "
						   "or transitions",
						   optarg);
			break;
		case OPT_JSON:
			want = OUT_JSON;
			break;
		case 'm':
			want = OUT_MARKDOWN;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_SEP:
			if (parse_char(optarg, &ro.csv.sep) < 0)
				return usage_error("--sep: \"%s\" is not one character (or tab)",
						   optarg);
			break;
		case OPT_DECIMAL:
			if (strcmp(optarg, ".") != 0 && strcmp(optarg, ",") != 0)
				return usage_error("--decimal: \"%s\" is neither . nor ,", optarg);
			ro.csv.decimal = optarg[0];
			break;
		case OPT_BOM:
			ro.bom = true;
			break;
		case OPT_METRICS:
			if (parse_metrics(optarg, ro.metrics) != 0)
				return 2;
			break;
		case 'w':
			ro.width = atoi(optarg);
			if (ro.width < 40 || ro.width > 1000)
				return usage_error("--width: \"%s\" is not a width from 40 to 1000",
						   optarg);
			break;
		case 'j':
			threads = atol(optarg);
			if (threads < 1 || threads > 256)
				return usage_error(
				    "--threads: \"%s\" is not a number from 1 to 256", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("fiocamp-analyze %s\n", FIOCAMP_VERSION);
			return 0;
		default:
			fputs("Try 'fiocamp-analyze --help'.\n", stderr);
			return 2;
		}
		if (want != OUT_DEFAULT) {
			if (format != OUT_DEFAULT && format != want)
				return usage_error("%s", "choose one of --table, --csv, --json, "
							 "--markdown");
			format = want;
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no input given (a campaign directory, a directory "
					 "or files of fio output)");
	if (!ro.csv.sep)
		ro.csv.sep = ro.csv.decimal == ',' ? ';' : ',';
	if (format == OUT_DEFAULT)
		format = !output && isatty(STDOUT_FILENO) ? OUT_TABLE : OUT_CSV;
	if (!ro.width)
		ro.width = isatty(STDOUT_FILENO) && !output ? terminal_width() : 100;

	struct an_pattern *pattern = NULL;
	if (opt.pattern) {
		char why[512];
		if (an_pattern_compile(opt.pattern, &pattern, why, sizeof(why)) < 0)
			return usage_error("--pattern: %s", why);
	}

	struct an_analysis a;
	memset(&a, 0, sizeof(a));
	a.short_fraction = 0.8;
	int status = 0;
	for (int i = optind; i < argc; i++) {
		if (an_discover(&a, argv[i], pattern, opt.no_manifest) < 0)
			status = 2;
	}
	if (status) {
		an_pattern_free(pattern);
		an_analysis_free(&a);
		return status;
	}
	an_attach_logs(&a, pattern);
	an_load(&a, (int)threads);
	int rc = an_compute(&a, &opt);
	an_pattern_free(pattern);

	if (a.n_rejected)
		qsort(a.rejected, a.n_rejected, sizeof(*a.rejected), cmp_rejected);
	for (size_t i = 0; i < a.n_rejected; i++)
		fprintf(stderr, "fiocamp-analyze: rejected %s: %s\n", a.rejected[i].path,
			a.rejected[i].reason);
	if (rc == -2)
		fputs("fiocamp-analyze: nothing to analyze: no usable fio run among the inputs\n",
		      stderr);
	if (rc < 0) {
		an_analysis_free(&a);
		return 2;
	}
	if (format != OUT_TABLE && format != OUT_MARKDOWN) {
		for (size_t i = 0; i < a.notes.n; i++)
			fprintf(stderr, "fiocamp-analyze: note: %s\n", a.notes.items[i]);
	}

	FILE *f = stdout;
	if (output) {
		f = fopen(output, "w");
		if (!f) {
			fprintf(stderr, "fiocamp-analyze: %s: %s\n", output, strerror(errno));
			an_analysis_free(&a);
			return 2;
		}
	}
	switch (format) {
	case OUT_TABLE:
	case OUT_DEFAULT:
		an_write_table(f, &a, &ro);
		break;
	case OUT_MARKDOWN:
		an_write_markdown(f, &a, &ro);
		break;
	case OUT_CSV:
		an_write_csv(f, &a, csv_kind, &ro);
		break;
	case OUT_JSON:
		an_write_json(f, &a);
		break;
	}
	int werr = ferror(f);
	if (output)
		werr |= fclose(f) != 0;
	else
		werr |= fflush(f) != 0;
	if (werr) {
		fprintf(stderr, "fiocamp-analyze: %s: write error\n", output ? output : "stdout");
		an_analysis_free(&a);
		return 2;
	}
	status = a.n_rejected ? 1 : 0;
	an_analysis_free(&a);
	return status;
}
