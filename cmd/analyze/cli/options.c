/* SPDX-License-Identifier: MIT */
/*
 * The option table and what reads it: the parser, --help, and the choices
 * left to the analyzer (the output on a terminal or not, the width).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/options.h"

/* Where --help's texts start. */
#define HELP_COLUMN 25

/* ---- values -------------------------------------------------------------------- */

/* A decimal number from lo to hi, all of text. */
static bool parse_int(const char *text, long lo, long hi, long *out)
{
	size_t n = strspn(text, "0123456789");
	if (n == 0 || n > 9 || text[n] != '\0')
		return false;
	long v = strtol(text, NULL, 10);
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static int want_format(struct an_cli *c, enum an_format want, struct an_error *err)
{
	if (c->out.format != AN_FORMAT_DEFAULT && c->out.format != want)
		return an_fail(err, AN_E_USAGE, "choose one of --table, --csv, --json, --markdown");
	c->out.format = want;
	return 0;
}

static int set_pattern(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err; /* compiled once every option is read */
	c->pattern_text = arg;
	return 0;
}

static int set_layout(struct an_cli *c, const char *arg, struct an_error *err)
{
	if (strcmp(arg, "auto") == 0)
		c->read.layout = AN_LAYOUT_AUTO;
	else if (strcmp(arg, "names") == 0)
		c->read.layout = AN_LAYOUT_NAMES;
	else if (strcmp(arg, "bench-fio") == 0)
		c->read.layout = AN_LAYOUT_BENCH_FIO;
	else
		return an_fail(err, AN_E_USAGE, "--layout: \"%s\" is not auto, names or bench-fio",
			       arg);
	return 0;
}

static void add_input(struct an_cli *c, const char *path, char *label)
{
	struct an_cli_input *in = CM_PUSH(c->inputs, c->n_inputs, c->cap_inputs);
	in->path = path;
	in->label = label;
}

static int set_label(struct an_cli *c, const char *arg, struct an_error *err)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return an_fail(err, AN_E_USAGE, "--label: \"%s\" is not NAME=PATH", arg);
	add_input(c, eq + 1, cm_strndup(arg, (size_t)(eq - arg)));
	return 0;
}

static int set_baseline(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->stats.baseline = arg;
	return 0;
}

static int set_baseline_variant(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->stats.baseline_variant = arg;
	return 0;
}

static int set_state_order(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->stats.state_order = arg;
	return 0;
}

static int set_exclude_disturbed(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->stats.exclude_disturbed = true;
	return 0;
}

static int set_no_manifest(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->read.no_manifest = true;
	return 0;
}

static int set_table(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg;
	return want_format(c, AN_FORMAT_TABLE, err);
}

static int set_compare(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->out.compare = true;
	return 0;
}

static int set_csv(struct an_cli *c, const char *arg, struct an_error *err)
{
	size_t k = 0;
	while (an_csv_kind_name((enum an_csv_kind)k) &&
	       strcmp(arg, an_csv_kind_name((enum an_csv_kind)k)) != 0)
		k++;
	if (!an_csv_kind_name((enum an_csv_kind)k)) {
		struct cm_buf names = {0};
		for (size_t i = 0; an_csv_kind_name((enum an_csv_kind)i); i++)
			cm_buf_printf(&names, "%s%s", i ? ", " : "",
				      an_csv_kind_name((enum an_csv_kind)i));
		an_fail(err, AN_E_USAGE, "--csv: \"%s\" is not one of %s", arg, names.s);
		cm_buf_release(&names);
		return AN_E_USAGE;
	}
	c->out.csv = (enum an_csv_kind)k;
	return want_format(c, AN_FORMAT_CSV, err);
}

static int set_json(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg;
	return want_format(c, AN_FORMAT_JSON, err);
}

static int set_markdown(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg;
	return want_format(c, AN_FORMAT_MARKDOWN, err);
}

static int set_output(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->out.file = arg;
	return 0;
}

static int set_html(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->out.html = arg;
	return 0;
}

static int set_svg(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)err;
	c->out.svg_dir = arg;
	return 0;
}

static int set_sep(struct an_cli *c, const char *arg, struct an_error *err)
{
	if (strcmp(arg, "tab") == 0 || strcmp(arg, "\\t") == 0) {
		c->report.csv.sep = '\t';
		return 0;
	}
	if (strlen(arg) != 1 || arg[0] == '"' || arg[0] == '\r' || arg[0] == '\n')
		return an_fail(err, AN_E_USAGE, "--sep: \"%s\" is not one character (or tab)", arg);
	c->report.csv.sep = arg[0];
	return 0;
}

static int set_decimal(struct an_cli *c, const char *arg, struct an_error *err)
{
	if (strcmp(arg, ".") != 0 && strcmp(arg, ",") != 0)
		return an_fail(err, AN_E_USAGE, "--decimal: \"%s\" is neither . nor ,", arg);
	c->report.csv.decimal = arg[0];
	return 0;
}

static int set_bom(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->report.bom = true;
	return 0;
}

static int set_pct(struct an_cli *c, const char *arg, struct an_error *err)
{
	if (strcmp(arg, "fraction") == 0)
		c->report.pct_fraction = true;
	else if (strcmp(arg, "percent") == 0)
		c->report.pct_fraction = false;
	else
		return an_fail(err, AN_E_USAGE, "--pct: \"%s\" is neither percent nor fraction",
			       arg);
	return 0;
}

static int set_metrics(struct an_cli *c, const char *arg, struct an_error *err)
{
	bool *metrics = c->report.metrics;
	memset(metrics, 0, sizeof(c->report.metrics));
	c->report.metrics_given = true;
	if (strcmp(arg, "all") == 0) {
		for (int m = 0; m < AN_M_FIRST_LOG; m++)
			metrics[m] = true;
		return 0;
	}
	char *copy = cm_strdup(arg);
	char *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int m = an_metric_parse(tok);
		if (m < 0 || m >= AN_M_FIRST_LOG) {
			rc = an_fail(err, AN_E_USAGE, "--metrics: unknown metric \"%s\"", tok);
			break;
		}
		metrics[m] = true;
	}
	free(copy);
	return rc;
}

static int set_width(struct an_cli *c, const char *arg, struct an_error *err)
{
	long v;
	if (!parse_int(arg, 40, 1000, &v))
		return an_fail(err, AN_E_USAGE, "--width: \"%s\" is not a width from 40 to 1000",
			       arg);
	c->report.width = (int)v;
	return 0;
}

static int set_threads(struct an_cli *c, const char *arg, struct an_error *err)
{
	long v;
	if (!parse_int(arg, 1, 256, &v))
		return an_fail(err, AN_E_USAGE, "--threads: \"%s\" is not a number from 1 to 256",
			       arg);
	c->threads = (int)v;
	return 0;
}

static int set_steady_window(struct an_cli *c, const char *arg, struct an_error *err)
{
	long v;
	if (!parse_int(arg, 2, 1000, &v))
		return an_fail(err, AN_E_USAGE,
			       "--steady-window: \"%s\" is not a number of rounds from 2 to 1000",
			       arg);
	c->stats.steady_window = (size_t)v;
	return 0;
}

static int set_explain(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->explain = true;
	return 0;
}

static int set_verbose(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->verbose = true;
	return 0;
}

/* The rest of the command line is not read: its text is all there is. */
#define AN_CLI_STOP 1

static int set_help(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->action = AN_CLI_HELP;
	return AN_CLI_STOP;
}

static int set_version(struct an_cli *c, const char *arg, struct an_error *err)
{
	(void)arg, (void)err;
	c->action = AN_CLI_VERSION;
	return AN_CLI_STOP;
}

/* ---- the table ------------------------------------------------------------------- */

/* "summary | rounds | ...", wrapped within 80 columns. */
static void csv_kinds_help(struct cm_buf *b)
{
	size_t at = HELP_COLUMN;
	for (size_t i = 0; an_csv_kind_name((enum an_csv_kind)i); i++) {
		const char *name = an_csv_kind_name((enum an_csv_kind)i);
		size_t w = strlen(name) + (i ? 3 : 0);
		if (i && at + w > 80) {
			cm_buf_puts(b, " |\n");
			at = HELP_COLUMN;
			w -= 3;
		} else if (i) {
			cm_buf_puts(b, " | ");
		}
		cm_buf_puts(b, name);
		at += w;
	}
}

/* The metrics of the table, wrapped within 80 columns. */
static void metrics_help(struct cm_buf *b)
{
	cm_buf_puts(b, "table rows: all, or some of\n");
	size_t col = HELP_COLUMN;
	for (int m = 0; m < AN_M_FIRST_LOG; m++) {
		const char *name = an_metric_name((enum an_metric)m);
		if (col + strlen(name) + 1 > 79) {
			cm_buf_putc(b, '\n');
			col = HELP_COLUMN;
		}
		cm_buf_printf(b, "%s%s", name, m + 1 < AN_M_FIRST_LOG ? "," : "\n");
		col += strlen(name) + 1;
	}
	cm_buf_puts(b, "(default iops,bw,clat_mean,clat_p99)");
}

const struct an_option an_options[] = {
    {"pattern", 'p', "PAT", "Grouping:",
     "names like PAT: {variant} {state} {round} {test} and *,\n"
     "e.g. '{state}{round}-{test}.json',\n'{state}/r{round}/{test}.json'",
     NULL, set_pattern},
    {"layout", 0, "L", NULL, "auto (default), names, or bench-fio", NULL, set_layout},
    {"label", 'l', "NAME=PATH", NULL, "compare PATH under the name NAME (adds the input)", NULL,
     set_label},
    {"baseline", 'b', "STATE", NULL,
     "compare against STATE (default: the manifest's first\n"
     "state, else the state that ran first)",
     NULL, set_baseline},
    {"baseline-variant", 0, "NAME", NULL, "compare variants against NAME (default: the first)",
     NULL, set_baseline_variant},
    {"state-order", 0, "A,B", NULL, "show states in this order (default: manifest or time)", NULL,
     set_state_order},
    {"exclude-disturbed", 0, NULL, NULL,
     "leave the runs the campaign's telemetry calls\ndisturbed out of medians and tests", NULL,
     set_exclude_disturbed},
    {"steady-window", 0, "N", NULL,
     "rounds of the window the steady rule judges\n(default: 5, as SNIA PTS)", NULL,
     set_steady_window},
    {"explain", 0, NULL, NULL,
     "say how each input was read (variant, state, round,\n"
     "test, workload, format, fio version) and stop;\nwith --json as JSON",
     NULL, set_explain},
    {"no-manifest", 0, NULL, NULL, "ignore " CM_CAMPAIGN_MANIFEST ", infer from names", NULL,
     set_no_manifest},
    {"table", 't', NULL,
     "Output (default on a terminal: the table, or --compare with several variants;\n"
     "otherwise --csv summary):",
     "table grouped by test, states and variants as columns", NULL, set_table},
    {"compare", 0, NULL, NULL, "variants as rows, each test's headline metric as\ncolumns", NULL,
     set_compare},
    {"csv", 'c', "KIND", NULL, NULL, csv_kinds_help, set_csv},
    {"json", 0, NULL, NULL, "everything, as one JSON document", NULL, set_json},
    {"markdown", 'm', NULL, NULL, "the table (or --compare) as Markdown", NULL, set_markdown},
    {"output", 'o', "FILE", NULL, "write there instead of stdout", NULL, set_output},
    {"html", 0, "FILE", NULL,
     "also write the report as one self-contained HTML file\nwith its charts (- for stdout)", NULL,
     set_html},
    {"svg", 0, "DIR", NULL, "also write every chart as DIR/NAME.svg", NULL, set_svg},
    {"sep", 0, "C", NULL, "CSV separator: , ; tab (default: , or ; with\n--decimal ,)", NULL,
     set_sep},
    {"decimal", 0, "C", NULL, "decimal mark: . or , (default .)", NULL, set_decimal},
    {"bom", 0, NULL, NULL, "start CSV with a UTF-8 byte order mark (for Excel)", NULL, set_bom},
    {"pct", 0, "FORM", NULL, "CSV changes as percent (default) or fraction", NULL, set_pct},
    {"metrics", 0, "LIST", NULL, NULL, metrics_help, set_metrics},
    {"width", 'w', "N", NULL, "table width (default: $COLUMNS, the terminal's, or 100)", NULL,
     set_width},
    {"threads", 'j', "N", NULL, "parse on N threads (default: online CPUs)", NULL, set_threads},
    {"verbose", 'v', NULL, NULL, "list every file read or skipped, and how", NULL, set_verbose},
    {"help", 'h', NULL, NULL, "this text", NULL, set_help},
    {"version", 0, NULL, NULL, "version", NULL, set_version},
    {NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

/* ---- --help ---------------------------------------------------------------------- */

void an_cli_help(FILE *f)
{
	fputs("Usage: " AN_PROGRAM " [OPTION]... INPUT...\n"
	      "Summarise fio runs per test, state and variant: medians, spread, change\n"
	      "against a baseline, round 1 against rounds 2..n, per-second recovery.\n"
	      "\n"
	      "INPUT is a campaign directory (with " CM_CAMPAIGN_MANIFEST
	      "), any directory of fio\n"
	      "output and logs (a bench-fio tree too), single files, or a quoted glob.\n"
	      "Several inputs are compared side by side as variants.\n"
	      "\n",
	      f);
	struct cm_buf line = {0}, text = {0};
	for (const struct an_option *o = an_options; o->name; o++) {
		if (o->group)
			fprintf(f, "%s\n", o->group);
		line.len = 0;
		cm_buf_printf(&line, "  %c%c%s--%s%s%s", o->short_name ? '-' : ' ',
			      o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ",
			      o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		text.len = 0;
		if (o->help_list)
			o->help_list(&text);
		else
			cm_buf_puts(&text, o->help);
		if (line.len + 2 > HELP_COLUMN)
			fprintf(f, "%s\n%*s", line.s, HELP_COLUMN, "");
		else
			fprintf(f, "%-*s", HELP_COLUMN, line.s);
		for (const char *p = text.s; *p; p++) {
			fputc(*p, f);
			if (*p == '\n')
				fprintf(f, "%*s", HELP_COLUMN, "");
		}
		fputc('\n', f);
	}
	cm_buf_release(&line);
	cm_buf_release(&text);
	fputs("\n"
	      "Exit status: 0 ok, 1 some inputs were rejected (listed on stderr),\n"
	      "2 usage error or nothing to analyze.  See " AN_PROGRAM "(1).\n",
	      f);
}

/* ---- the parser ------------------------------------------------------------------ */

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

static void cli_init(struct an_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->report.csv.decimal = '.';
	c->report.metrics[AN_M_IOPS] = c->report.metrics[AN_M_BW] = true;
	c->report.metrics[AN_M_CLAT_MEAN] = c->report.metrics[AN_M_CLAT_P99] = true;
	c->out.csv = AN_CSV_SUMMARY;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	c->threads = cpus < 1 ? 1 : (int)cpus;
}

/* What the options say together, once all are read. */
static int check_combination(struct an_cli *c, struct an_error *err)
{
	struct an_output *out = &c->out;
	if (c->n_inputs == 0)
		return an_fail(err, AN_E_USAGE,
			       "no input given (a campaign directory, a directory or files of fio "
			       "output)");
	if (out->compare && (out->format == AN_FORMAT_CSV || out->format == AN_FORMAT_JSON ||
			     out->format == AN_FORMAT_TABLE))
		return an_fail(err, AN_E_USAGE,
			       "--compare goes with the terminal or --markdown, not with --table, "
			       "--csv or --json (--csv compare and --json hold the comparison)");
	if (c->explain && ((out->format != AN_FORMAT_DEFAULT && out->format != AN_FORMAT_JSON) ||
			   out->compare || out->html || out->svg_dir))
		return an_fail(err, AN_E_USAGE,
			       "--explain writes lines, or JSON with --json: no other output goes "
			       "with it");
	if (out->compare && out->format == AN_FORMAT_DEFAULT)
		out->format = AN_FORMAT_TABLE;
	/* --html or --svg alone write only the pictures */
	out->pictures_only =
	    (out->html || out->svg_dir) && out->format == AN_FORMAT_DEFAULT && !out->file;
	if (out->html && strcmp(out->html, "-") == 0 && !out->pictures_only && !out->file)
		return an_fail(err, AN_E_USAGE,
			       "--html - and the other output both go to stdout: give one of them "
			       "a file (-o FILE)");
	if (!c->report.csv.sep)
		c->report.csv.sep = c->report.csv.decimal == ',' ? ';' : ',';
	if (!c->report.width)
		c->report.width = terminal_width();
	if (c->pattern_text) {
		struct an_error perr;
		if (an_pattern_compile(c->pattern_text, &c->pattern, &perr) < 0)
			return an_fail(err, AN_E_USAGE, "--pattern: %s", perr.msg);
	}
	return 0;
}

int an_cli_parse(struct an_cli *c, int argc, char **argv, struct an_error *err)
{
	cli_init(c);
	size_t n = 0;
	while (an_options[n].name)
		n++;
	struct option *longopts = cm_calloc(n + 1, sizeof(*longopts));
	struct cm_buf shorts = {0};
	cm_buf_puts(&shorts, "");
	for (size_t i = 0; i < n; i++) {
		const struct an_option *o = &an_options[i];
		longopts[i] = (struct option){o->name, o->arg ? required_argument : no_argument,
					      NULL, o->short_name ? o->short_name : 256 + (int)i};
		if (o->short_name)
			cm_buf_printf(&shorts, "%c%s", o->short_name, o->arg ? ":" : "");
	}
	int rc = 0, ch;
	while (rc == 0 && (ch = getopt_long(argc, argv, shorts.s, longopts, NULL)) != -1) {
		size_t i = ch >= 256 ? (size_t)(ch - 256) : 0;
		while (ch < 256 && i < n && an_options[i].short_name != ch)
			i++;
		if (i >= n) /* getopt said what is wrong */
			rc = an_fail(err, AN_E_USAGE, "%s", "");
		else
			rc = an_options[i].set(c, an_options[i].arg ? optarg : NULL, err);
	}
	free(longopts);
	cm_buf_release(&shorts);
	if (rc == AN_CLI_STOP)
		return 0;
	if (rc < 0)
		return rc;
	for (int i = optind; i < argc; i++)
		add_input(c, argv[i], NULL);
	return check_combination(c, err);
}

bool an_cli_settle_output(struct an_cli *c, size_t n_variants, bool to_terminal)
{
	if (c->out.format != AN_FORMAT_DEFAULT || c->out.pictures_only)
		return false;
	c->out.format = to_terminal ? AN_FORMAT_TABLE : AN_FORMAT_CSV;
	if (to_terminal && n_variants > 1)
		c->out.compare = true;
	return !to_terminal;
}

void an_cli_release(struct an_cli *c)
{
	for (size_t i = 0; i < c->n_inputs; i++)
		free(c->inputs[i].label);
	free(c->inputs);
	an_pattern_free(c->pattern);
	memset(c, 0, sizeof(*c));
}
