/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze: from campaign directories or piles of fio output to
 * per-state and per-variant medians, first-round effects and per-second
 * profiles.
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

#include "read/read.h"
#include "stats/stats.h"
#include "write/write.h"

#ifndef FIOCAMP_VERSION
#define FIOCAMP_VERSION "unknown"
#endif

enum out_format { OUT_DEFAULT, OUT_TABLE, OUT_CSV, OUT_JSON, OUT_MARKDOWN };

static const struct {
	const char *name;
	enum an_csv_kind kind;
} csv_kinds[] = {
    {"summary", AN_CSV_SUMMARY},	 {"rounds", AN_CSV_ROUNDS},   {"profile", AN_CSV_PROFILE},
    {"transitions", AN_CSV_TRANSITIONS}, {"actions", AN_CSV_ACTIONS}, {"wide", AN_CSV_WIDE},
    {"compare", AN_CSV_COMPARE},
};
#define N_CSV_KINDS (sizeof(csv_kinds) / sizeof(csv_kinds[0]))

static void usage(FILE *f)
{
	fputs("Usage: fiocamp-analyze [OPTION]... INPUT...\n"
	      "Summarise fio runs per test, state and variant: medians, spread, change\n"
	      "against a baseline, round 1 against rounds 2..n, per-second recovery.\n"
	      "\n"
	      "INPUT is a campaign directory (with " CM_CAMPAIGN_MANIFEST
	      "), any directory of fio\n"
	      "output and logs (a bench-fio tree too), single files, or a quoted glob.\n"
	      "Several inputs are compared side by side as variants.\n"
	      "\n"
	      "Grouping:\n"
	      "  -p, --pattern PAT      names like PAT: {variant} {state} {round} {test} and *,\n"
	      "                         e.g. '{state}{round}-{test}.json',\n"
	      "                         '{state}/r{round}/{test}.json'\n"
	      "      --layout L         auto (default), names, or bench-fio\n"
	      "  -l, --label NAME=PATH  compare PATH under the name NAME (adds the input)\n"
	      "  -b, --baseline STATE   compare against STATE (default: the manifest's first\n"
	      "                         state, else the state that ran first)\n"
	      "      --baseline-variant NAME\n"
	      "                         compare variants against NAME (default: the first)\n"
	      "      --state-order A,B  show states in this order (default: manifest or time)\n"
	      "      --no-manifest      ignore " CM_CAMPAIGN_MANIFEST ", infer from names\n"
	      "Output (default on a terminal: the table, or --compare with several variants;\n"
	      "otherwise --csv summary):\n"
	      "  -t, --table            table grouped by test, states and variants as columns\n"
	      "      --compare          variants as rows, each test's headline metric as\n"
	      "                         columns\n"
	      "  -c, --csv KIND         ",
	      f);
	/* the kinds from their table, wrapped within 80 columns */
	size_t at = 25;
	for (size_t i = 0; i < N_CSV_KINDS; i++) {
		size_t w = strlen(csv_kinds[i].name) + (i ? 3 : 0);
		if (i && at + w > 80) {
			fputs(" |\n                         ", f);
			at = 25;
			w -= 3;
		} else if (i) {
			fputs(" | ", f);
		}
		fputs(csv_kinds[i].name, f);
		at += w;
	}
	fputs("\n"
	      "      --json             everything, as one JSON document\n"
	      "  -m, --markdown         the table (or --compare) as Markdown\n"
	      "  -o, --output FILE      write there instead of stdout\n"
	      "      --html FILE        also write the report as one self-contained HTML file\n"
	      "                         with its charts (- for stdout)\n"
	      "      --svg DIR          also write every chart as DIR/NAME.svg\n"
	      "      --sep C            CSV separator: , ; tab (default: , or ; with\n"
	      "                         --decimal ,)\n"
	      "      --decimal C        decimal mark: . or , (default .)\n"
	      "      --bom              start CSV with a UTF-8 byte order mark (for Excel)\n"
	      "      --pct FORM         CSV changes as percent (default) or fraction\n"
	      "      --metrics LIST     table rows: all, or some of\n"
	      "                         ",
	      f);
	size_t col = 25;
	for (int m = 0; m < AN_M_FIRST_LOG; m++) {
		const char *name = an_metric_name((enum an_metric)m);
		if (col + strlen(name) + 1 > 79) {
			fputs("\n                         ", f);
			col = 25;
		}
		fprintf(f, "%s%s", name, m + 1 < AN_M_FIRST_LOG ? "," : "\n");
		col += strlen(name) + 1;
	}
	fputs("                         (default iops,bw,clat_mean,clat_p99)\n"
	      "  -w, --width N          table width (default: $COLUMNS, the terminal's, or 100)\n"
	      "  -j, --threads N        parse on N threads (default: online CPUs)\n"
	      "  -v, --verbose          list every file read or skipped, and how\n"
	      "  -h, --help             this text\n"
	      "      --version          version\n"
	      "\n"
	      "Exit status: 0 ok, 1 some inputs were rejected (listed on stderr),\n"
	      "2 usage error or nothing to analyze.  See fiocamp-analyze(1).\n",
	      f);
}

static int usage_error(const char *fmt, ...) CM_PRINTF(1, 2);
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

static int bail(struct an_analysis *a, int rc)
{
	an_analysis_free(a);
	return rc;
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
	char *copy = cm_strdup(list);
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

/* $COLUMNS first (what the user set), then the terminal's width. */
static int terminal_width(void)
{
	const char *cols = getenv("COLUMNS");
	if (cols) {
		char *end;
		long n = strtol(cols, &end, 10);
		if (end != cols && *end == '\0' && n > 0)
			return n < 40 ? 40 : n > 1000 ? 1000 : (int)n;
	}
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col < 40 ? 40 : ws.ws_col;
	return 100;
}

static int cmp_rejected(const void *x, const void *y)
{
	const struct an_rejected *a = x, *b = y;
	return strcmp(a->path, b->path);
}

static int cmp_skipped(const void *x, const void *y)
{
	const struct an_skipped *a = x, *b = y;
	int c = strcmp(a->reason, b->reason);
	return c ? c : strcmp(a->path, b->path);
}

/* What was left out on purpose: every file with --verbose, else a line
 * per reason (the files themselves when there are few). */
static void print_skipped(struct an_analysis *a, bool verbose)
{
	if (!a->n_skipped)
		return;
	qsort(a->skipped, a->n_skipped, sizeof(*a->skipped), cmp_skipped);
	for (size_t i = 0; i < a->n_skipped;) {
		size_t k = i;
		while (k < a->n_skipped && strcmp(a->skipped[k].reason, a->skipped[i].reason) == 0)
			k++;
		if (verbose || k - i <= 3) {
			for (size_t m = i; m < k; m++)
				fprintf(stderr, "fiocamp-analyze: skipped %s: %s\n",
					a->skipped[m].path, a->skipped[m].reason);
		} else {
			fprintf(stderr,
				"fiocamp-analyze: skipped %zu files: %s (%s, ...; --verbose lists "
				"each)\n",
				k - i, a->skipped[i].reason, a->skipped[i].path);
		}
		i = k;
	}
}

static const char *format_text(enum fc_format f)
{
	switch (f) {
	case FC_FORMAT_JSON:
		return "fio JSON";
	case FC_FORMAT_JSON_PLUS:
		return "fio json+";
	case FC_FORMAT_TERSE:
		return "fio terse";
	case FC_FORMAT_NORMAL:
		return "fio normal output";
	default: /* a format libfiocamp learns later */
		return "fio output";
	}
}

static void print_verbose(const struct an_analysis *a)
{
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (!r->accepted)
			continue;
		if (r->bonnie_test >= 0)
			fprintf(stderr,
				"fiocamp-analyze: read %s, line %lu: bonnie++%s%s (-m %s), variant "
				"%s, state %s, round %d, test %s",
				r->path, r->line, r->bonnie_version ? " " : " 1.0x",
				r->bonnie_version ? r->bonnie_version : "", r->bonnie_name,
				a->variants[r->variant].name, a->states[r->state].name, r->id.round,
				a->tests[r->test].name);
		else
			fprintf(stderr,
				"fiocamp-analyze: read %s: %s%s%s, variant %s, state %s, round %d, "
				"test %s",
				r->path, format_text(r->format), r->fio_version ? " " : "",
				r->fio_version ? r->fio_version : "", a->variants[r->variant].name,
				a->states[r->state].name, r->id.round, a->tests[r->test].name);
		for (size_t k = 0; k < r->n_logs; k++) {
			if (!r->logs[k].error)
				fprintf(stderr, "%s%s", k ? ", " : "; logs ", r->logs[k].path);
		}
		fputc('\n', stderr);
	}
}

/* An input that held nothing fio wrote is a bad input. */
static void reject_empty_inputs(struct an_analysis *a)
{
	for (size_t in = 0; in < a->n_inputs; in++) {
		bool any = false;
		for (size_t i = 0; i < a->n_runs && !any; i++)
			any = a->runs[i].input == in && !a->runs[i].skip;
		for (size_t i = 0; i < a->n_plogs && !any; i++)
			any = a->plogs[i].input == in;
		for (size_t i = 0; i < a->n_campaigns && !any; i++)
			any = a->campaigns[i].input == in;
		if (!any)
			an_reject(a, a->inputs[in].arg, "no fio output found");
	}
}

/* The HTML report (a file, or stdout for "-") and the SVG files: 0, or 2
 * after saying which file could not be written. */
static int write_pictures(const struct an_analysis *a, const struct an_report_opts *ro,
			  const char *html, const char *svg_dir)
{
	struct an_charts charts;
	an_charts_make(&charts, a, ro);
	int rc = 0;
	char why[1024];
	if (svg_dir && an_charts_write_dir(&charts, svg_dir, why, sizeof(why)) < 0) {
		fprintf(stderr, "fiocamp-analyze: %s\n", why);
		rc = 2;
	}
	if (html && !rc) {
		bool out = strcmp(html, "-") == 0;
		FILE *f = out ? stdout : fopen(html, "w");
		if (!f) {
			fprintf(stderr, "fiocamp-analyze: %s: %s\n", html, strerror(errno));
			rc = 2;
		} else {
			an_write_html(f, a, ro, &charts, "fiocamp-analyze " FIOCAMP_VERSION);
			int werr = ferror(f);
			werr |= out ? fflush(f) != 0 : fclose(f) != 0;
			if (werr) {
				fprintf(stderr, "fiocamp-analyze: %s: write error\n",
					out ? "stdout" : html);
				rc = 2;
			}
		}
	}
	an_charts_release(&charts);
	return rc;
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
		OPT_VERSION,
		OPT_BASELINE_VARIANT,
		OPT_COMPARE,
		OPT_PCT,
		OPT_LAYOUT,
		OPT_HTML,
		OPT_SVG,
	};
	static const struct option longopts[] = {
	    {"pattern", required_argument, NULL, 'p'},
	    {"layout", required_argument, NULL, OPT_LAYOUT},
	    {"label", required_argument, NULL, 'l'},
	    {"baseline", required_argument, NULL, 'b'},
	    {"baseline-variant", required_argument, NULL, OPT_BASELINE_VARIANT},
	    {"state-order", required_argument, NULL, OPT_STATE_ORDER},
	    {"no-manifest", no_argument, NULL, OPT_NO_MANIFEST},
	    {"table", no_argument, NULL, 't'},
	    {"compare", no_argument, NULL, OPT_COMPARE},
	    {"csv", required_argument, NULL, 'c'},
	    {"json", no_argument, NULL, OPT_JSON},
	    {"markdown", no_argument, NULL, 'm'},
	    {"output", required_argument, NULL, 'o'},
	    {"html", required_argument, NULL, OPT_HTML},
	    {"svg", required_argument, NULL, OPT_SVG},
	    {"sep", required_argument, NULL, OPT_SEP},
	    {"decimal", required_argument, NULL, OPT_DECIMAL},
	    {"bom", no_argument, NULL, OPT_BOM},
	    {"pct", required_argument, NULL, OPT_PCT},
	    {"metrics", required_argument, NULL, OPT_METRICS},
	    {"width", required_argument, NULL, 'w'},
	    {"threads", required_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	struct an_stats_opts opt = {0};
	struct an_read_opts ropt = {0};
	const char *pattern_text = NULL;
	struct an_report_opts ro;
	memset(&ro, 0, sizeof(ro));
	ro.csv.sep = 0;
	ro.csv.decimal = '.';
	ro.metrics[AN_M_IOPS] = ro.metrics[AN_M_BW] = true;
	ro.metrics[AN_M_CLAT_MEAN] = ro.metrics[AN_M_CLAT_P99] = true;
	enum out_format format = OUT_DEFAULT;
	enum an_csv_kind csv_kind = AN_CSV_SUMMARY;
	bool compare = false, verbose = false;
	const char *output = NULL;
	const char *html = NULL, *svg_dir = NULL; /* the pictures, beside or instead of stdout */
	long threads = sysconf(_SC_NPROCESSORS_ONLN);
	struct an_analysis a;
	memset(&a, 0, sizeof(a));
	a.short_fraction = 0.8;
	int c;
	/* out of memory: "fiocamp-analyze: out of memory" and exit status 2 */
	cm_init("fiocamp-analyze", 2);

	while ((c = getopt_long(argc, argv, "p:l:b:tc:mo:w:j:vh", longopts, NULL)) != -1) {
		enum out_format want = OUT_DEFAULT;
		switch (c) {
		case 'p':
			pattern_text = optarg;
			break;
		case OPT_LAYOUT:
			if (strcmp(optarg, "auto") == 0)
				ropt.layout = AN_LAYOUT_AUTO;
			else if (strcmp(optarg, "names") == 0)
				ropt.layout = AN_LAYOUT_NAMES;
			else if (strcmp(optarg, "bench-fio") == 0)
				ropt.layout = AN_LAYOUT_BENCH_FIO;
			else
				return bail(
				    &a,
				    usage_error("--layout: \"%s\" is not auto, names or bench-fio",
						optarg));
			break;
		case 'l': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				return bail(
				    &a, usage_error("--label: \"%s\" is not NAME=PATH", optarg));
			char *name = cm_strndup(optarg, (size_t)(eq - optarg));
			an_add_input(&a, eq + 1, name);
			free(name);
			break;
		}
		case 'b':
			opt.baseline = optarg;
			break;
		case OPT_BASELINE_VARIANT:
			opt.baseline_variant = optarg;
			break;
		case OPT_STATE_ORDER:
			opt.state_order = optarg;
			break;
		case OPT_NO_MANIFEST:
			ropt.no_manifest = true;
			break;
		case 't':
			want = OUT_TABLE;
			break;
		case OPT_COMPARE:
			compare = true;
			break;
		case 'c': {
			want = OUT_CSV;
			size_t k = 0;
			while (k < N_CSV_KINDS && strcmp(optarg, csv_kinds[k].name) != 0)
				k++;
			if (k == N_CSV_KINDS) {
				struct cm_buf names = {NULL, 0, 0};
				for (size_t i = 0; i < N_CSV_KINDS; i++)
					cm_buf_printf(&names, "%s%s", i ? ", " : "",
						      csv_kinds[i].name);
				int rc =
				    usage_error("--csv: \"%s\" is not one of %s", optarg, names.s);
				cm_buf_release(&names);
				return bail(&a, rc);
			}
			csv_kind = csv_kinds[k].kind;
			break;
		}
		case OPT_JSON:
			want = OUT_JSON;
			break;
		case 'm':
			want = OUT_MARKDOWN;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_HTML:
			html = optarg;
			break;
		case OPT_SVG:
			svg_dir = optarg;
			break;
		case OPT_SEP:
			if (parse_char(optarg, &ro.csv.sep) < 0)
				return bail(
				    &a, usage_error("--sep: \"%s\" is not one character (or tab)",
						    optarg));
			break;
		case OPT_DECIMAL:
			if (strcmp(optarg, ".") != 0 && strcmp(optarg, ",") != 0)
				return bail(&a, usage_error("--decimal: \"%s\" is neither . nor ,",
							    optarg));
			ro.csv.decimal = optarg[0];
			break;
		case OPT_BOM:
			ro.bom = true;
			break;
		case OPT_PCT:
			if (strcmp(optarg, "fraction") == 0)
				ro.pct_fraction = true;
			else if (strcmp(optarg, "percent") == 0)
				ro.pct_fraction = false;
			else
				return bail(
				    &a, usage_error("--pct: \"%s\" is neither percent nor fraction",
						    optarg));
			break;
		case OPT_METRICS:
			if (parse_metrics(optarg, ro.metrics) != 0)
				return bail(&a, 2);
			ro.metrics_given = true;
			break;
		case 'w':
			ro.width = atoi(optarg);
			if (ro.width < 40 || ro.width > 1000)
				return bail(
				    &a,
				    usage_error("--width: \"%s\" is not a width from 40 to 1000",
						optarg));
			break;
		case 'j':
			threads = atol(optarg);
			if (threads < 1 || threads > 256)
				return bail(
				    &a,
				    usage_error("--threads: \"%s\" is not a number from 1 to 256",
						optarg));
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(stdout);
			an_analysis_free(&a);
			return 0;
		case OPT_VERSION:
			printf("fiocamp-analyze %s\n", FIOCAMP_VERSION);
			an_analysis_free(&a);
			return 0;
		default:
			fputs("Try 'fiocamp-analyze --help'.\n", stderr);
			an_analysis_free(&a);
			return 2;
		}
		if (want != OUT_DEFAULT) {
			if (format != OUT_DEFAULT && format != want)
				return bail(&a, usage_error("%s", "choose one of --table, --csv, "
								  "--json, --markdown"));
			format = want;
		}
	}
	for (int i = optind; i < argc; i++)
		an_add_input(&a, argv[i], NULL);
	if (a.n_inputs == 0)
		return bail(&a,
			    usage_error("%s", "no input given (a campaign directory, a directory "
					      "or files of fio output)"));
	if (compare && (format == OUT_CSV || format == OUT_JSON || format == OUT_TABLE))
		return bail(&a,
			    usage_error("%s", "--compare goes with the terminal or --markdown, "
					      "not with --table, --csv or --json (--csv compare "
					      "and --json hold the comparison)"));
	if (compare && format == OUT_DEFAULT)
		format = OUT_TABLE;
	/* --html or --svg alone write only the pictures */
	bool pictures_only = (html || svg_dir) && format == OUT_DEFAULT && !output;
	if (html && strcmp(html, "-") == 0 && !pictures_only && !output)
		return bail(&a,
			    usage_error("%s", "--html - and the other output both go to stdout: "
					      "give one of them a file (-o FILE)"));
	if (!ro.csv.sep)
		ro.csv.sep = ro.csv.decimal == ',' ? ';' : ',';
	if (!ro.width)
		ro.width = terminal_width();

	struct an_pattern *pattern = NULL;
	if (pattern_text) {
		char why[512];
		if (an_pattern_compile(pattern_text, &pattern, why, sizeof(why)) < 0)
			return bail(&a, usage_error("--pattern: %s", why));
	}
	an_name_inputs(&a);
	int status = 0;
	for (size_t i = 0; i < a.n_inputs; i++) {
		if (an_discover(&a, i, pattern, &ropt) < 0)
			status = 2;
	}
	an_pattern_free(pattern);
	if (status) {
		an_analysis_free(&a);
		return status;
	}
	an_load_reports(&a, (int)threads);
	an_identify(&a);
	an_attach_logs(&a);
	an_load_logs(&a, (int)threads);
	int rc = an_compute(&a, &opt);
	an_list_rejects(&a);
	reject_empty_inputs(&a);

	if (a.n_rejected)
		qsort(a.rejected, a.n_rejected, sizeof(*a.rejected), cmp_rejected);
	if (verbose && rc == 0)
		print_verbose(&a);
	print_skipped(&a, verbose);
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
	/* Medians of single runs are no medians. */
	bool single = true;
	for (size_t i = 0; i < a.n_series && single; i++) {
		for (size_t k = 0; k < a.n_cols && single; k++)
			single = a.series[i].cells[k].n <= 1;
	}
	if (single && a.n_series)
		an_warn(&a, "every test has a single run in each state and variant (n = 1): the "
			    "medians are single values, and min..max and p need repeated runs");

	bool to_terminal = !output && isatty(STDOUT_FILENO);
	if (format == OUT_DEFAULT && !pictures_only) {
		format = to_terminal ? OUT_TABLE : OUT_CSV;
		if (to_terminal && a.n_variants > 1)
			compare = true;
		if (!to_terminal)
			fprintf(stderr,
				"fiocamp-analyze: %s is not a terminal: writing --csv summary "
				"(--table, --compare, --markdown or --json choose another)\n",
				output ? output : "the output");
	}
	bool human = format == OUT_TABLE || format == OUT_MARKDOWN;
	/* The table's footer holds the notes; a terminal shows it beside stderr. */
	bool footer_shown = human && to_terminal && isatty(STDERR_FILENO);
	if (!footer_shown) {
		for (size_t i = 0; i < a.warnings.n; i++)
			fprintf(stderr, "fiocamp-analyze: warning: %s\n", a.warnings.items[i]);
	}
	if (!human) {
		for (size_t i = 0; i < a.notes.n; i++)
			fprintf(stderr, "fiocamp-analyze: note: %s\n", a.notes.items[i]);
	}
	if (pictures_only) {
		status = write_pictures(&a, &ro, html, svg_dir);
		if (!status)
			status = a.n_rejected ? 1 : 0;
		an_analysis_free(&a);
		return status;
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
	int werr = 0;
	switch (format) {
	case OUT_TABLE:
	case OUT_DEFAULT:
		if (compare)
			an_write_compare(f, &a, &ro, false);
		else
			an_write_table(f, &a, &ro);
		break;
	case OUT_MARKDOWN:
		if (compare)
			an_write_compare(f, &a, &ro, true);
		else
			an_write_markdown(f, &a, &ro);
		break;
	case OUT_CSV:
		an_write_csv(f, &a, csv_kind, &ro);
		break;
	case OUT_JSON:
		werr = an_write_json(f, &a) != 0;
		break;
	}
	werr |= ferror(f);
	if (output)
		werr |= fclose(f) != 0;
	else
		werr |= fflush(f) != 0;
	if (werr) {
		fprintf(stderr, "fiocamp-analyze: %s: write error\n", output ? output : "stdout");
		an_analysis_free(&a);
		return 2;
	}
	status = html || svg_dir ? write_pictures(&a, &ro, html, svg_dir) : 0;
	if (!status)
		status = a.n_rejected ? 1 : 0;
	an_analysis_free(&a);
	return status;
}
