/* SPDX-License-Identifier: MIT */
/* fio's bw/iops/lat/hist logs: names, streaming reader, profiles.  Not written yet. */
#include <string.h>

#include "util.h"

const char *fc_log_type_name(enum fc_log_type type)
{
	static const char *const names[] = {NULL, "bw", "iops", "lat", "clat", "slat", "clat_hist"};
	if ((unsigned)type >= FC_ARRAY_SIZE(names))
		return NULL;
	return names[type];
}

int fc_log_name_parse(const char *path, struct fc_log_name *out)
{
	(void)path;
	memset(out, 0, sizeof(*out));
	return FC_E_FORMAT;
}

int fc_log_open(const char *path, const struct fc_log_layout *layout,
		struct fc_log_reader **out, struct fc_error *err)
{
	(void)layout;
	*out = NULL;
	return fc_err(err, FC_E_INVAL, path, 0, 0, "log reading is not written yet");
}

int fc_log_open_buffer(const void *buf, size_t len, const char *source,
		       const struct fc_log_layout *layout, struct fc_log_reader **out,
		       struct fc_error *err)
{
	(void)buf;
	(void)len;
	(void)layout;
	*out = NULL;
	return fc_err(err, FC_E_INVAL, source, 0, 0, "log reading is not written yet");
}

const struct fc_log_layout *fc_log_get_layout(const struct fc_log_reader *r)
{
	(void)r;
	return NULL;
}

int fc_log_next(struct fc_log_reader *r, struct fc_log_sample *s, struct fc_error *err)
{
	(void)r;
	(void)s;
	return fc_err(err, FC_E_INVAL, NULL, 0, 0, "log reading is not written yet");
}

int fc_log_next_hist(struct fc_log_reader *r, struct fc_hist_row *row, struct fc_error *err)
{
	(void)r;
	(void)row;
	return fc_err(err, FC_E_INVAL, NULL, 0, 0, "log reading is not written yet");
}

void fc_log_close(struct fc_log_reader *r)
{
	(void)r;
}

int fc_profile_read_file(const char *path, const struct fc_profile_opts *opts,
			 struct fc_profile **out, struct fc_error *err)
{
	(void)opts;
	*out = NULL;
	return fc_err(err, FC_E_INVAL, path, 0, 0, "log profiles are not written yet");
}

int fc_profile_read_buffer(const void *buf, size_t len, const char *source,
			   const struct fc_profile_opts *opts, struct fc_profile **out,
			   struct fc_error *err)
{
	(void)buf;
	(void)len;
	(void)opts;
	*out = NULL;
	return fc_err(err, FC_E_INVAL, source, 0, 0, "log profiles are not written yet");
}

void fc_profile_free(struct fc_profile *p)
{
	(void)p;
}
