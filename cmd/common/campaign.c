/* SPDX-License-Identifier: MIT */
/* The campaign directory's names, statuses and layout (campaign.h). */
#include <string.h>

#include "campaign.h"
#include "common.h"

bool cm_status_is(const char *status, const char *word)
{
	return status && strcmp(status, word) == 0;
}

bool cm_status_not_run(const char *status)
{
	return cm_status_is(status, CM_STATUS_PENDING) || cm_status_is(status, CM_STATUS_RUNNING) ||
	       cm_status_is(status, CM_STATUS_SKIPPED);
}

bool cm_status_failed(const char *status)
{
	return status && !cm_status_is(status, CM_STATUS_DONE) && !cm_status_not_run(status);
}

bool cm_campaign_name_ok(const char *name)
{
	if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (const char *c = name; *c; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		if (!ok)
			return false;
	}
	return true;
}

char *cm_campaign_round_dir(const char *state, unsigned rep, unsigned round, const char *unit)
{
	struct cm_buf b = {0};
	cm_buf_puts(&b, state);
	if (rep)
		cm_buf_printf(&b, "/rep%u", rep);
	cm_buf_printf(&b, "/r%u", round);
	if (unit && unit[0])
		cm_buf_printf(&b, "/%s", unit);
	return cm_buf_take(&b);
}

char *cm_campaign_unit(const char *variant, const char *size)
{
	if (variant && size)
		return cm_asprintf("%s/%s", variant, size);
	return cm_strdup(variant ? variant : size ? size : "");
}

char *cm_campaign_run_stem(const char *state, unsigned rep, unsigned round, const char *unit,
			   const char *test)
{
	char *dir = cm_campaign_round_dir(state, rep, round, unit);
	char *stem = cm_asprintf("%s/%s", dir, test);
	free(dir);
	return stem;
}

char *cm_campaign_aside(const char *name, const char *tag, unsigned k)
{
	return cm_asprintf("%s.%s-%u", name, tag, k);
}

const char *cm_campaign_aside_tag(const char *name)
{
	if (strstr(name, "." CM_ASIDE_INTERRUPTED "-"))
		return CM_ASIDE_INTERRUPTED;
	if (strstr(name, "." CM_ASIDE_FAILED "-"))
		return CM_ASIDE_FAILED;
	return NULL;
}
