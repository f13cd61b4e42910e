/* SPDX-License-Identifier: MIT */
/*
 * The outputs the command line asked for: the table, Markdown, CSV or JSON
 * on standard output or in a file (-o), then the HTML report (a file, or
 * standard output for "-") and the SVG files.  A file that cannot be
 * written is an error naming it; nothing is printed here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "write/write.h"

/* The HTML report and the SVG files. */
static int write_pictures(const struct an_analysis *a, const struct an_report_opts *ro,
			  const struct an_output *out, struct an_error *err)
{
	struct an_charts charts;
	an_charts_make(&charts, a, ro);
	int rc = 0;
	if (out->svg_dir)
		rc = an_charts_write_dir(&charts, out->svg_dir, err);
	if (out->html && !rc) {
		bool to_stdout = strcmp(out->html, "-") == 0;
		FILE *f = to_stdout ? stdout : fopen(out->html, "w");
		if (!f) {
			rc = an_fail(err, AN_E_WRITE, "%s: %s", out->html, strerror(errno));
		} else {
			an_write_html(f, a, ro, &charts, out->generator);
			int werr = ferror(f);
			werr |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
			if (werr)
				rc = an_fail(err, AN_E_WRITE, "%s: write error",
					     to_stdout ? "stdout" : out->html);
		}
	}
	an_charts_release(&charts);
	return rc;
}

/* The one output of --table, --compare, --markdown, --csv or --json. */
static int write_format(FILE *f, const struct an_analysis *a, const struct an_report_opts *ro,
			const struct an_output *out)
{
	switch (out->format) {
	case AN_FORMAT_TABLE:
	case AN_FORMAT_DEFAULT:
		if (out->compare)
			an_write_compare(f, a, ro, false);
		else
			an_write_table(f, a, ro);
		return 0;
	case AN_FORMAT_MARKDOWN:
		if (out->compare)
			an_write_compare(f, a, ro, true);
		else
			an_write_markdown(f, a, ro);
		return 0;
	case AN_FORMAT_CSV:
		an_write_csv(f, a, out->csv, ro);
		return 0;
	case AN_FORMAT_JSON:
		return an_write_json(f, a);
	}
	return 0;
}

int an_write_report(const struct an_analysis *a, const struct an_report_opts *ro,
		    const struct an_output *out, struct an_error *err)
{
	if (out->pictures_only)
		return write_pictures(a, ro, out, err);
	FILE *f = stdout;
	if (out->file) {
		f = fopen(out->file, "w");
		if (!f)
			return an_fail(err, AN_E_WRITE, "%s: %s", out->file, strerror(errno));
	}
	int werr = write_format(f, a, ro, out) != 0;
	werr |= ferror(f);
	if (out->file)
		werr |= fclose(f) != 0;
	else
		werr |= fflush(f) != 0;
	if (werr)
		return an_fail(err, AN_E_WRITE, "%s: write error",
			       out->file ? out->file : "stdout");
	return out->html || out->svg_dir ? write_pictures(a, ro, out, err) : 0;
}
