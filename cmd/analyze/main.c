/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze: from campaign directories or piles of fio output to
 * per-state and per-variant medians, first-round effects and per-second
 * profiles.  The command line (cli/), then the stages in order: reading
 * the inputs (read/), the statistics (stats/), the writers (write/).  The
 * one place that prints an error.
 *
 * Exit status: 0 all inputs used, 1 some inputs were rejected (listed on
 * stderr), 2 usage error, unreadable manifest, nothing to analyze, or an
 * output that cannot be written.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <unistd.h>

#include "cli/options.h"

#ifndef FIOCAMP_VERSION
#define FIOCAMP_VERSION "unknown"
#endif

static void print_error(const struct an_error *err, bool usage)
{
	if (err->msg[0])
		fprintf(stderr, AN_PROGRAM ": %s\n", err->msg);
	if (usage)
		fputs("Try '" AN_PROGRAM " --help'.\n", stderr);
}

/* Finds every input's runs and reads them: 0, or AN_E_INPUT after saying
 * what is wrong with each input that could not be read. */
static int read_inputs(struct an_analysis *a, const struct an_cli *c)
{
	for (size_t i = 0; i < c->n_inputs; i++)
		an_add_input(a, c->inputs[i].path, c->inputs[i].label);
	an_name_inputs(a);
	struct an_errors errs = {0};
	for (size_t i = 0; i < a->n_inputs; i++)
		an_discover(a, i, c->pattern, &c->read, &errs);
	for (size_t i = 0; i < errs.n; i++)
		print_error(&errs.v[i], false);
	int rc = errs.n ? AN_E_INPUT : 0;
	an_errors_release(&errs);
	if (rc)
		return rc;
	an_load_reports(a, c->threads);
	an_identify(a);
	an_attach_logs(a);
	an_load_logs(a, c->threads);
	an_read_telemetry(a);
	return 0;
}

/* The statistics, and what became of every file said on stderr: 0, or
 * what stops the analysis (said). */
static int compute(struct an_analysis *a, const struct an_cli *c)
{
	struct an_error err;
	int rc = an_compute(a, &c->stats, &err);
	an_read_finish(a);
	/* a name that names nothing comes first; "nothing to analyze" sums up
	 * the rejects above it */
	if (rc < 0 && err.code != AN_E_EMPTY)
		print_error(&err, false);
	an_write_files(stderr, a, c->verbose, c->verbose && rc == 0);
	if (rc < 0 && err.code == AN_E_EMPTY)
		print_error(&err, false);
	return rc;
}

/* --explain: the reading, what became of the files, the notes; no
 * statistics. */
static int explain(struct an_analysis *a, const struct an_cli *c)
{
	an_read_finish(a);
	an_write_files(stderr, a, c->verbose, false);
	an_write_notes(stderr, a, true, true);
	struct an_error err;
	if (an_write_explain(a, c->out.format == AN_FORMAT_JSON, c->out.file, &err) < 0) {
		print_error(&err, false);
		return AN_EXIT_FAILED;
	}
	return a->n_rejected ? AN_EXIT_REJECTED : AN_EXIT_OK;
}

static int finish(struct an_cli *c, struct an_analysis *a, int status)
{
	an_cli_release(c);
	an_analysis_free(a);
	return status;
}

int main(int argc, char **argv)
{
	cm_init(AN_PROGRAM, AN_EXIT_FAILED); /* out of memory: said, exit status 2 */
	struct an_cli c;
	struct an_analysis a;
	an_analysis_init(&a);
	struct an_error err = {AN_OK, ""};
	if (an_cli_parse(&c, argc, argv, &err) < 0) {
		print_error(&err, true);
		return finish(&c, &a, AN_EXIT_FAILED);
	}
	if (c.action == AN_CLI_HELP)
		an_cli_help(stdout);
	else if (c.action == AN_CLI_VERSION)
		printf(AN_PROGRAM " %s\n", FIOCAMP_VERSION);
	if (c.action != AN_CLI_RUN)
		return finish(&c, &a, AN_EXIT_OK);
	c.out.generator = AN_PROGRAM " " FIOCAMP_VERSION;
	if (c.explain)
		return finish(&c, &a, read_inputs(&a, &c) < 0 ? AN_EXIT_FAILED : explain(&a, &c));
	if (read_inputs(&a, &c) < 0 || compute(&a, &c) < 0)
		return finish(&c, &a, AN_EXIT_FAILED);

	bool to_terminal = !c.out.file && isatty(STDOUT_FILENO);
	if (an_cli_settle_output(&c, a.n_variants, to_terminal))
		fprintf(stderr,
			AN_PROGRAM ": %s is not a terminal: writing --csv summary (--table, "
				   "--compare, --markdown or --json choose another)\n",
			c.out.file ? c.out.file : "the output");
	/* The table's footer holds the notes; a terminal shows it beside stderr. */
	bool human = c.out.format == AN_FORMAT_TABLE || c.out.format == AN_FORMAT_MARKDOWN;
	bool footer_shown = human && to_terminal && isatty(STDERR_FILENO);
	an_write_notes(stderr, &a, !footer_shown, !human);
	if (an_write_report(&a, &c.report, &c.out, &err) < 0) {
		print_error(&err, false);
		return finish(&c, &a, AN_EXIT_FAILED);
	}
	return finish(&c, &a, a.n_rejected ? AN_EXIT_REJECTED : AN_EXIT_OK);
}
