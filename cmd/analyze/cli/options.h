/* SPDX-License-Identifier: MIT */
/*
 * The command line.  Every option is one row of the option table
 * (options.c): its names, its argument, its --help text and the function
 * that takes its value.  The parser (getopt_long's arguments are made from
 * the rows), --help and the check of fiocamp-analyze(1) (check-man.c, the
 * test man-options) read nothing but the rows; a new option is one row and
 * its function, then its paragraph in the page's OPTIONS.
 */
#ifndef AN_OPTIONS_H
#define AN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "read/read.h"
#include "stats/stats.h"
#include "write/write.h"

/* An input as given: an argument, or --label NAME=PATH. */
struct an_cli_input {
	const char *path;
	char *label; /* NULL for an argument */
};

/* What the command line asks. */
struct an_cli {
	enum { AN_CLI_RUN, AN_CLI_HELP, AN_CLI_VERSION } action;
	struct an_cli_input *inputs; /* --label's first, then the arguments */
	size_t n_inputs, cap_inputs;
	const char *pattern_text;   /* --pattern as given; NULL */
	struct an_pattern *pattern; /* compiled */
	struct an_read_opts read;
	struct an_stats_opts stats;
	struct an_report_opts report;
	struct an_output out;
	bool verbose;
	bool explain; /* --explain: the reading only, no statistics */
	int threads;  /* --threads (1..256), else the online CPUs */
};

/* One row of the option table. */
struct an_option {
	const char *name;  /* the long name, without "--" */
	char short_name;   /* 0: none */
	const char *arg;   /* its argument in --help ("PAT"); NULL: it takes none */
	const char *group; /* --help's heading above it, or NULL */
	/* --help's text: one line, or lines joined by '\n' that --help starts at
	 * column 25; help_list, when set, writes it instead (a list generated
	 * from its own table: the CSV kinds, the metrics). */
	const char *help;
	void (*help_list)(struct cm_buf *b);
	/* Takes the value (arg NULL for an option without one): 0, or AN_E_USAGE
	 * with err saying what is wrong ("--width: ..."). */
	int (*set)(struct an_cli *c, const char *arg, struct an_error *err);
};

/* The rows, ending with a row whose name is NULL. */
extern const struct an_option an_options[];

/*
 * Parses argv into c (which it initialises) and checks the combination.
 * 0 (c->action says whether to run); AN_E_USAGE with err filled, or with
 * an empty message when getopt has said what is wrong already.
 */
int an_cli_parse(struct an_cli *c, int argc, char **argv, struct an_error *err);
/*
 * Settles the output that was left to the analyzer, once the analysis
 * knows its variants: on a terminal the table (the comparison with several
 * variants), else --csv summary.  True when it chose CSV because standard
 * output is no terminal (the caller says so).
 */
bool an_cli_settle_output(struct an_cli *c, size_t n_variants, bool to_terminal);
void an_cli_release(struct an_cli *c);

/* --help, from the rows. */
void an_cli_help(FILE *f);

#endif
