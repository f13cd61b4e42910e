/* SPDX-License-Identifier: MIT */
/*
 * --explain: how every input was read, without the statistics: each run's
 * variant, state, round, test, workload, format and fio version, and how
 * its identity was read (the --pattern that reads its name so, the
 * manifest ...); the files rejected.  As lines, or with --json as one
 * document for programs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"
#include "write/write.h"

static const char *format_word(const struct an_run *r)
{
	return r->bonnie_test >= 0 ? "bonnie++" : an_format_name(r->format);
}

static const char *source_word(enum an_id_source s)
{
	switch (s) {
	case AN_ID_MANIFEST:
		return "manifest";
	case AN_ID_PATTERN:
		return "pattern";
	case AN_ID_LAYOUT:
		return "campaign layout";
	case AN_ID_BENCH_FIO:
		return "bench-fio tree";
	case AN_ID_NAME:
		break;
	}
	return "names";
}

/* How the run's identity was read, in words; caller frees. */
static char *how_read(const struct an_run *r)
{
	if (r->source == AN_ID_NAME && r->reading)
		return cm_asprintf("its name, as --pattern '%s'", r->reading);
	if (r->source == AN_ID_PATTERN && r->reading)
		return cm_asprintf("--pattern '%s'", r->reading);
	if (r->source == AN_ID_LAYOUT && r->reading)
		return cm_asprintf("the campaign layout, as --pattern '%s'", r->reading);
	return cm_asprintf("the %s", source_word(r->source));
}

static void describe(struct cm_buf *b, const struct an_run *r)
{
	if (!an_wl_options_listed(r->workload)) {
		cm_buf_puts(b, "options unknown (terse output)");
		return;
	}
	an_wl_describe(b, r->workload, AN_WL_ALL & ~(1u << AN_WL_NAME), true);
}

static void explain_text(FILE *f, const struct an_analysis *a)
{
	for (size_t in = 0; in < a->n_inputs; in++) {
		fprintf(f, "%s\n", a->inputs[in].arg);
		for (size_t i = 0; i < a->n_runs; i++) {
			const struct an_run *r = &a->runs[i];
			if (r->input != in || r->skip || !r->accepted)
				continue;
			struct cm_buf wl = {NULL, 0, 0};
			describe(&wl, r);
			char *how = how_read(r);
			fprintf(f, "  %s: variant %s, state %s, ",
				an_path_below(a->inputs[in].root, r->path),
				a->variants[r->variant].name, a->states[r->state].name);
			if (r->id.round)
				fprintf(f, "round %d", r->id.round);
			else
				fputs("round by fio's timestamp", f);
			fprintf(f, ", test %s; workload %s; %s%s%s; read by %s%s%s\n",
				a->tests[r->test].name, wl.s ? wl.s : "", format_word(r),
				r->fio_version ? " " : "", r->fio_version ? r->fio_version : "",
				how, r->disturbed ? "; disturbed: " : "",
				r->disturbed ? r->disturbed : "");
			free(how);
			cm_buf_release(&wl);
		}
	}
}

static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	char *clean = cm_utf8_dup(s);
	json_t *v = json_string(clean);
	free(clean);
	return v;
}

/* The workload, one object per job, the fields the report gives. */
static json_t *workload_json(const char *key)
{
	json_t *jobs = json_array();
	for (size_t j = 0; j < an_wl_jobs(key); j++) {
		json_t *o = json_object();
		for (int f = 0; f < AN_WL_COUNT; f++) {
			const char *v;
			size_t len;
			if (!an_wl_get(key, j, (enum an_wl_field)f, &v, &len))
				continue;
			char *s = cm_strndup(v, len);
			json_object_set_new(o, an_wl_fields[f], jstr(s));
			free(s);
		}
		json_array_append_new(jobs, o);
	}
	return jobs;
}

static json_t *explain_json(const struct an_analysis *a)
{
	json_t *doc = json_object();
	json_t *runs = json_array();
	for (size_t i = 0; i < a->n_runs; i++) {
		const struct an_run *r = &a->runs[i];
		if (r->skip || !r->accepted)
			continue;
		json_t *o = json_object();
		json_object_set_new(o, "file", jstr(r->path));
		json_object_set_new(o, "input", jstr(a->inputs[r->input].arg));
		json_object_set_new(o, "variant", jstr(a->variants[r->variant].name));
		json_object_set_new(o, "state", jstr(a->states[r->state].name));
		json_object_set_new(o, "round",
				    r->id.round ? json_integer(r->id.round) : json_null());
		json_object_set_new(o, "test", jstr(a->tests[r->test].name));
		json_object_set_new(o, "workload", workload_json(r->workload));
		json_object_set_new(o, "options_known",
				    json_boolean(an_wl_options_listed(r->workload)));
		json_object_set_new(o, "format", json_string(format_word(r)));
		json_object_set_new(o, "fio_version", jstr(r->fio_version));
		json_object_set_new(o, "read_by", json_string(source_word(r->source)));
		json_object_set_new(o, "pattern", jstr(r->reading));
		json_object_set_new(o, "disturbed", jstr(r->disturbed));
		json_array_append_new(runs, o);
	}
	json_object_set_new(doc, "runs", runs);
	json_t *rej = json_array();
	for (size_t i = 0; i < a->n_rejected; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "file", jstr(a->rejected[i].path));
		json_object_set_new(o, "reason", jstr(a->rejected[i].reason));
		json_array_append_new(rej, o);
	}
	json_object_set_new(doc, "rejected", rej);
	json_t *notes = json_array();
	for (size_t i = 0; i < a->notes.n; i++)
		json_array_append_new(notes, jstr(a->notes.items[i]));
	json_object_set_new(doc, "notes", notes);
	json_t *warnings = json_array();
	for (size_t i = 0; i < a->warnings.n; i++)
		json_array_append_new(warnings, jstr(a->warnings.items[i]));
	json_object_set_new(doc, "warnings", warnings);
	return doc;
}

int an_write_explain(const struct an_analysis *a, bool json, const char *file, struct an_error *err)
{
	FILE *f = file ? fopen(file, "w") : stdout;
	if (!f)
		return an_fail(err, AN_E_WRITE, "%s: cannot write: %s", file, strerror(errno));
	if (json) {
		json_t *doc = explain_json(a);
		json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		json_decref(doc);
	} else {
		explain_text(f, a);
	}
	bool bad = ferror(f) != 0;
	if (file)
		bad |= fclose(f) != 0;
	else
		bad |= fflush(f) != 0;
	if (bad)
		return an_fail(err, AN_E_WRITE, "%s: cannot write",
			       file ? file : "standard output");
	return 0;
}
