/* SPDX-License-Identifier: MIT */
/* Unit tests of the campaign file's fleet: `hosts =`, sync, mode,
 * parallel-transitions and the [host NAME] sections, read for the fleet and
 * for one host. */
#include <string.h>

#include "campaign/campaign.h"
#include "check.h"
#include "fcr.h"
#include "providers.h"

/* The campaign read for `host` (NULL: the fleet's view); NULL on errors. */
static struct fcr_campaign *parse_for(const char *text, const char *host, struct cm_strv *errors)
{
	struct fcr_campaign *c = NULL;
	cm_strv_release(errors);
	fcr_campaign_parse_host(text, strlen(text), "f.ini", fcr_catalog(), host, &c, errors);
	return c;
}

static void test_fleet_keys(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse_for("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n"
					   "hosts = h1 h2 h3\n"
					   "[host h1]\ntarget = ssh root@vps1\n"
					   "[state s]\n",
					   NULL, &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_INT(c->n_hosts, 3);
		CHECK_STR(c->hosts[0].name, "h1");
		CHECK_INT(c->hosts[0].line, 6);
		CHECK(c->hosts[0].has_section);
		CHECK_STR(c->hosts[2].name, "h3");
		CHECK_INT(c->hosts[2].line, 5);
		CHECK(!c->hosts[2].has_section);
		CHECK_INT(c->sync, FCR_SYNC_STATES);
		CHECK_INT(c->mode, FCR_MODE_FLEET);
		CHECK(!c->parallel_transitions);
		CHECK(c->host == NULL);
	}
	fcr_campaign_free(c);
	cm_strv_release(&errors);
}

int main(void)
{
	test_fleet_keys();
	return check_exit();
}
