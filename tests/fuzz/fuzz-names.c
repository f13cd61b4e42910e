/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fiocamp-analyze's name parsers must never crash nor hang.
 * The first line of the input is a --pattern, every other line a path that
 * goes through the name parsers, the pattern, the log-name parser and the
 * size and time parsers of the workloads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "read/read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_path(const struct an_pattern *p, const char *path)
{
	struct an_ident id;
	if (an_infer_layout(path, &id) == 0)
		an_ident_free(&id);
	if (p && an_pattern_match(p, path, &id) == 0)
		an_ident_free(&id);
	struct an_name nm;
	an_name_parse(path, &nm);
	const char *rest;
	size_t rest_len;
	(void)an_name_affix(nm.stem, "rw4k", &rest, &rest_len);
	/* the words that say a workload, of no report (terse) and of one */
	static const char key[] = "name=x\x1frw=randread\x1f"
				  "bs=4k\x1fiodepth=8\x1f"
				  "numjobs=4";
	for (size_t i = 0; i < nm.n_words; i++) {
		const struct an_word *w = &nm.words[i], *nx = i + 1 < nm.n_words ? w + 1 : NULL;
		enum an_wl_word kind;
		for (int k = 0; k < 2; k++)
			(void)an_wl_word(k ? key : "name=x", nm.base + w->off, w->len,
					 nx ? nm.base + nx->off : NULL, nx ? nx->len : 0, &kind);
	}
	free(an_name_join(&nm, AN_W_STEM));
	an_name_free(&nm);
	char *dev;
	if (an_bench_fio_path(path, &dev))
		free(dev);
	free(an_bench_fio_log_key(path));
	struct an_log_name ln;
	if (an_log_name_parse(path, &ln))
		an_log_name_free(&ln);
	const char *why;
	(void)an_file_kind(path, &why);
	free(an_output_key(path));
	size_t len = strlen(path);
	memset(&id, 0, sizeof(id));
	if (an_split_label(path, len, &id))
		an_ident_free(&id);
	free(cm_utf8_dup(path));
	uint64_t v;
	(void)an_parse_size(path, false, &v);
	(void)an_parse_time_ms(path, &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *line = text;
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	struct an_pattern *p = NULL;
	struct an_error err;
	if (an_pattern_compile(line, &p, &err) < 0)
		p = NULL;
	while (nl) {
		line = nl + 1;
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		one_path(p, line);
	}
	an_pattern_free(p);
	free(text);
	return 0;
}
