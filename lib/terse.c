/* SPDX-License-Identifier: MIT */
/* Terse output (--output-format=terse), versions 2 to 5.  Not written yet. */
#include "model.h"

int fc_terse_detect(const char *line, size_t len)
{
	(void)line;
	(void)len;
	return 0;
}

int fc_terse_parse(struct fc_arena *a, const char *line, size_t len, const char *source,
		   unsigned long lineno, struct fc_terse_line *out, struct fc_error *err)
{
	(void)a;
	(void)line;
	(void)len;
	(void)out;
	return fc_err(err, FC_E_FORMAT, source, lineno, 0, "terse output is not supported yet");
}

int fc_terse_parse_disk_line(struct fc_arena *a, const char *line, size_t len,
			     const char *source, unsigned long lineno, struct fc_vec *disks,
			     struct fc_error *err)
{
	(void)a;
	(void)line;
	(void)len;
	(void)disks;
	return fc_err(err, FC_E_FORMAT, source, lineno, 0, "terse output is not supported yet");
}
