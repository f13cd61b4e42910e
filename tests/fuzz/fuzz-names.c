/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: fiocamp-analyze's name parsers must never crash nor hang.
 * The first line of the input is a --pattern, every other line a path that
 * goes through the default inference, the pattern and the log-name parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_path(const struct an_pattern *p, const char *path)
{
	struct an_ident id;
	char why[512];
	if (an_infer_default(path, &id, why, sizeof(why)) == 0)
		an_ident_free(&id);
	if (p && an_pattern_match(p, path, &id) == 0)
		an_ident_free(&id);
	struct an_log_name ln;
	if (an_log_name_parse(path, &ln))
		an_log_name_free(&ln);
	(void)an_file_kind(path);
	free(an_output_key(path));
	size_t len = strlen(path);
	if (an_split_label(path, len, &id))
		an_ident_free(&id);
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
	char why[512];
	if (an_pattern_compile(line, &p, why, sizeof(why)) < 0)
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
