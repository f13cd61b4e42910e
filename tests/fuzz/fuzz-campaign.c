/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the campaign file parser must never crash. */
#include <stddef.h>
#include <stdint.h>

#include "campaign/campaign.h"
#include "providers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c = NULL;
	fcr_campaign_parse((const char *)data, size, "fuzz.ini", fcr_catalog(), &c, &errors);
	fcr_campaign_free(c);
	cm_strv_release(&errors);
	return 0;
}
