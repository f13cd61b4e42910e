/* SPDX-License-Identifier: MIT */
/*
 * What the analysis says about its inputs, as standard error shows it:
 * with --verbose every run read and how, the files skipped (each, or a line
 * per reason when there are many), the files rejected, and the warnings
 * and notes when no table's footer shows them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "write/write.h"

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

static void write_run(FILE *f, const struct an_analysis *a, const struct an_run *r)
{
	if (r->bonnie_test >= 0)
		fprintf(f,
			AN_PROGRAM
			": read %s, line %lu: bonnie++%s%s (-m %s), variant %s, state %s, "
			"round %d, test %s",
			r->path, r->line, r->bonnie_version ? " " : " 1.0x",
			r->bonnie_version ? r->bonnie_version : "", r->bonnie_name,
			a->variants[r->variant].name, a->states[r->state].name, r->id.round,
			a->tests[r->test].name);
	else
		fprintf(f, AN_PROGRAM ": read %s: %s%s%s, variant %s, state %s, round %d, test %s",
			r->path, format_text(r->format), r->fio_version ? " " : "",
			r->fio_version ? r->fio_version : "", a->variants[r->variant].name,
			a->states[r->state].name, r->id.round, a->tests[r->test].name);
	for (size_t k = 0; k < r->n_logs; k++) {
		if (!r->logs[k].error)
			fprintf(f, "%s%s", k ? ", " : "; logs ", r->logs[k].path);
	}
	if (r->disturbed)
		fprintf(f, "; disturbed: %s", r->disturbed);
	fputc('\n', f);
}

/* What was left out on purpose (a->skipped is in the order of its
 * reasons): every file with verbose, else a line per reason (the files
 * themselves when there are few). */
static void write_skipped(FILE *f, const struct an_analysis *a, bool verbose)
{
	for (size_t i = 0; i < a->n_skipped;) {
		size_t k = i;
		while (k < a->n_skipped && strcmp(a->skipped[k].reason, a->skipped[i].reason) == 0)
			k++;
		if (verbose || k - i <= 3) {
			for (size_t m = i; m < k; m++)
				fprintf(f, AN_PROGRAM ": skipped %s: %s\n", a->skipped[m].path,
					a->skipped[m].reason);
		} else {
			fprintf(f,
				AN_PROGRAM
				": skipped %zu files: %s (%s, ...; --verbose lists each)\n",
				k - i, a->skipped[i].reason, a->skipped[i].path);
		}
		i = k;
	}
}

void an_write_files(FILE *f, const struct an_analysis *a, bool verbose, bool runs)
{
	for (size_t i = 0; runs && i < a->n_runs; i++) {
		if (a->runs[i].accepted)
			write_run(f, a, &a->runs[i]);
	}
	write_skipped(f, a, verbose);
	for (size_t i = 0; i < a->n_rejected; i++)
		fprintf(f, AN_PROGRAM ": rejected %s: %s\n", a->rejected[i].path,
			a->rejected[i].reason);
}

void an_write_notes(FILE *f, const struct an_analysis *a, bool warnings, bool notes)
{
	for (size_t i = 0; warnings && i < a->warnings.n; i++)
		fprintf(f, AN_PROGRAM ": warning: %s\n", a->warnings.items[i]);
	for (size_t i = 0; notes && i < a->notes.n; i++)
		fprintf(f, AN_PROGRAM ": note: %s\n", a->notes.items[i]);
}
