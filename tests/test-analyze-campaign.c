/* SPDX-License-Identifier: MIT */
/*
 * The campaign directory as cmd/common/campaign.h spells it for both tools
 * (docs/campaign-directory.md): the status words and what an unknown one
 * means, the name rule, and the layout STATE[/repK]/rN[/VARIANT][/SIZE]/TEST.
 */
#include "check.h"
#include "common/campaign.h"
#include "common/common.h"

static void check_dir(const char *state, unsigned rep, unsigned round, const char *unit,
		      const char *want)
{
	char *d = cm_campaign_round_dir(state, rep, round, unit);
	CHECK_STR(d, want);
	free(d);
}

static void check_unit(const char *variant, const char *size, const char *want)
{
	char *u = cm_campaign_unit(variant, size);
	CHECK_STR(u, want);
	free(u);
}

static void test_statuses(void)
{
	CHECK(cm_status_is("done", CM_STATUS_DONE));
	CHECK(!cm_status_is(NULL, CM_STATUS_DONE));
	CHECK(!cm_status_is("done ", CM_STATUS_DONE));
	/* not run: no data, no failure */
	CHECK(cm_status_not_run("pending"));
	CHECK(cm_status_not_run("running"));
	CHECK(cm_status_not_run("skipped"));
	CHECK(!cm_status_not_run("done"));
	CHECK(!cm_status_not_run(NULL));
	/* failed: what is neither done nor not run, a later version's word too */
	CHECK(cm_status_failed("failed"));
	CHECK(cm_status_failed("interrupted"));
	CHECK(cm_status_failed("exploded"));
	CHECK(!cm_status_failed("done"));
	CHECK(!cm_status_failed("pending"));
	CHECK(!cm_status_failed("running"));
	CHECK(!cm_status_failed("skipped"));
	CHECK(!cm_status_failed(NULL));
}

static void test_names(void)
{
	CHECK(cm_campaign_name_ok("basis"));
	CHECK(cm_campaign_name_ok("snap-1_a.b"));
	CHECK(cm_campaign_name_ok("...")); /* a name, not a path step */
	CHECK(!cm_campaign_name_ok(""));
	CHECK(!cm_campaign_name_ok("."));
	CHECK(!cm_campaign_name_ok(".."));
	CHECK(!cm_campaign_name_ok("a/b"));
	CHECK(!cm_campaign_name_ok("a b"));
	CHECK(!cm_campaign_name_ok("caf\xc3\xa9"));
	CHECK(!cm_campaign_name_ok(CM_CAMPAIGN_MANIFEST "\n"));
}

static void test_layout(void)
{
	check_dir("basis", 0, 1, NULL, "basis/r1");
	check_dir("basis", 0, 12, "", "basis/r12");
	check_dir("rollback", 3, 2, NULL, "rollback/rep3/r2");
	check_dir("basis", 0, 1, "zvol", "basis/r1/zvol");
	check_dir("basis", 2, 4, "zvol/16G", "basis/rep2/r4/zvol/16G");
	check_unit("zvol", "16G", "zvol/16G");
	check_unit("zvol", NULL, "zvol");
	check_unit(NULL, "16G", "16G");
	check_unit(NULL, NULL, "");
	char *stem = cm_campaign_run_stem("snap1", 0, 3, "raw", "rw4k");
	CHECK_STR(stem, "snap1/r3/raw/rw4k");
	free(stem);
	char *aside = cm_campaign_aside("r2", CM_ASIDE_INTERRUPTED, 1);
	CHECK_STR(aside, "r2.interrupted-1");
	CHECK_STR(cm_campaign_aside_tag(aside), CM_ASIDE_INTERRUPTED);
	free(aside);
	CHECK_STR(cm_campaign_aside_tag("zvol.failed-3"), CM_ASIDE_FAILED);
	CHECK(cm_campaign_aside_tag("r2") == NULL);
	CHECK(cm_campaign_aside_tag("failed") == NULL);
}

int main(void)
{
	test_statuses();
	test_names();
	test_layout();
	return check_exit();
}
