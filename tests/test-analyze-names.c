/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze internals that are easy to get subtly wrong: telling
 * state, round and test from names (the published example's
 * basis1-rw4k.json, snap1-1-rw4k.json, snap3-4-lat4k.json and its
 * log-basis1-rw4k_iops.1.log), --pattern, and CSV fields and numbers.
 */
#include <float.h>

#include "analyze.h"
#include "check.h"

static void check_ident(const char *key, const char *state, int round, const char *test)
{
	struct an_ident id;
	char why[512] = "";
	int rc = an_infer_default(key, &id, why, sizeof(why));
	if (rc != 0)
		fprintf(stderr, "%s: %s\n", key, why);
	CHECK_INT(rc, 0);
	if (rc != 0)
		return;
	CHECK_STR(id.state, state);
	CHECK_INT(id.round, round);
	CHECK_STR(id.test, test);
	an_ident_free(&id);
}

static void check_no_ident(const char *key, const char *why_part)
{
	struct an_ident id;
	char why[512] = "";
	CHECK_INT(an_infer_default(key, &id, why, sizeof(why)), -1);
	CHECK(strstr(why, why_part) != NULL);
}

static void test_default_inference(void)
{
	check_ident("basis1-rw4k", "basis", 1, "rw4k");
	check_ident("dir/sub/basis4-sr1m", "basis", 4, "sr1m");
	check_ident("snap1-1-rw4k", "snap1", 1, "rw4k");
	check_ident("snap3-4-lat4k", "snap3", 4, "lat4k");
	check_ident("deleted2-rr4k", "deleted", 2, "rr4k");
	check_ident("basis-12-rw4k", "basis", 12, "rw4k");
	/* No round number: numbered by time later. */
	check_ident("fresh-rw4k", "fresh", 0, "rw4k");
	/* A date is no round number. */
	check_ident("run20241130-rw4k", "run20241130", 0, "rw4k");
	/* The campaign directory layout. */
	check_ident("camp/basis/r3/rw4k", "basis", 3, "rw4k");
	check_ident("basis/r1/rand-write", "basis", 1, "rand-write");
	check_no_ident("rw4k", "cannot tell state, round and test");
	check_no_ident("dir/1-rw4k", "only a number");
	check_no_ident("basis1-", "cannot tell");

	struct an_ident id;
	CHECK(an_split_label("snap1", 5, &id));
	CHECK_STR(id.state, "snap");
	CHECK_INT(id.round, 1);
	an_ident_free(&id);
	CHECK(!an_split_label("12", 2, &id));
	CHECK(!an_split_label("-1", 2, &id));
}

static void check_pattern(const char *pat, const char *key, const char *state, int round,
			  const char *test)
{
	struct an_pattern *p;
	char why[512];
	CHECK_INT(an_pattern_compile(pat, &p, why, sizeof(why)), 0);
	struct an_ident id;
	int rc = an_pattern_match(p, key, &id);
	if (state) {
		CHECK_INT(rc, 0);
		if (rc == 0) {
			CHECK_STR(id.state, state);
			CHECK_INT(id.round, round);
			CHECK_STR(id.test, test);
			an_ident_free(&id);
		}
	} else {
		CHECK_INT(rc, -1);
	}
	an_pattern_free(p);
}

static void test_pattern(void)
{
	/* Patterns match key paths: the file's extension is dropped from both. */
	check_pattern("{state}{round}-{test}.json", "x/basis1-rw4k", "basis", 1, "rw4k");
	/* Placeholders take as few characters as they can. */
	check_pattern("{state}{round}-{test}.json", "snap31-rw4k", "snap", 31, "rw4k");
	check_pattern("{state}-{round}-{test}.json", "snap3-4-lat4k", "snap3", 4, "lat4k");
	check_pattern("{state}/r{round}/{test}.json", "c/basis/r2/rw4k", "basis", 2, "rw4k");
	check_pattern("{state}/r{round}/{test}.json", "basis/r2/rw4k", "basis", 2, "rw4k");
	check_pattern("{state}/r{round}/{test}.json", "r2/rw4k", NULL, 0, NULL);
	check_pattern("run-{test}_{state}_{round}.out", "results/run-sw1m_zvol_3", "zvol", 3,
		      "sw1m");
	check_pattern("*_{state}_{test}.json", "2024-11-30_lvm_rr4k", "lvm", 0, "rr4k");
	check_pattern("{state}{round}-{test}.json", "basis-rw4k", NULL, 0, NULL);

	/* Many wildcards over a long name that almost matches: failures are
	 * remembered, so this takes tokens x positions steps, not forever. */
	char longname[3001];
	memset(longname, 'a', 3000);
	longname[3000] = '\0';
	check_pattern("*a*a*a*a*a*a*a*a{state}-{test}", longname, NULL, 0, NULL);
	longname[2000] = '-';
	struct an_pattern *lp;
	char lwhy[512];
	CHECK_INT(an_pattern_compile("*a*a*a*a*a*a*a*a{state}-{test}", &lp, lwhy, sizeof(lwhy)), 0);
	struct an_ident lid;
	CHECK_INT(an_pattern_match(lp, longname, &lid), 0);
	CHECK_INT(strlen(lid.state), 2000 - 8); /* the stars take nothing */
	CHECK_INT(strlen(lid.test), 999);
	an_ident_free(&lid);
	an_pattern_free(lp);

	struct an_pattern *p;
	char why[512];
	CHECK_INT(an_pattern_compile("{state}-{tset}", &p, why, sizeof(why)), -1);
	CHECK(strstr(why, "unknown placeholder {tset}") != NULL);
	CHECK_INT(an_pattern_compile("{state}-{round}", &p, why, sizeof(why)), -1);
	CHECK(strstr(why, "needs {state} and {test}") != NULL);
	CHECK_INT(an_pattern_compile("{state}-{test", &p, why, sizeof(why)), -1);
	CHECK_INT(an_pattern_compile("{state}-{test}-{state}", &p, why, sizeof(why)), -1);
	CHECK(strstr(why, "appears twice") != NULL);
}

static void test_log_names(void)
{
	struct an_log_name n;
	CHECK(an_log_name_parse("d/log-basis1-rw4k_iops.1.log", &n));
	CHECK_INT(n.type, FC_LOG_IOPS);
	CHECK_INT(n.index, 1);
	CHECK_STR(n.key, "d/basis1-rw4k");
	CHECK_STR(n.key_raw, "d/log-basis1-rw4k");
	an_log_name_free(&n);

	CHECK(an_log_name_parse("basis/r1/rw4k_bw.2.log", &n));
	CHECK_INT(n.type, FC_LOG_BW);
	CHECK_INT(n.index, 2);
	CHECK_STR(n.key, "basis/r1/rw4k");
	an_log_name_free(&n);

	CHECK(an_log_name_parse("x_clat_hist.3.log", &n));
	CHECK_INT(n.type, FC_LOG_CLAT_HIST);
	CHECK_STR(n.key, "x");
	an_log_name_free(&n);

	CHECK(an_log_name_parse("shared_iops.log", &n));
	CHECK_INT(n.index, 0);
	an_log_name_free(&n);

	CHECK(an_log_name_parse("cs_iops.1.log.127.0.0.1", &n));
	CHECK_STR(n.key, "cs");
	an_log_name_free(&n);

	CHECK(an_log_name_parse("a_b_lat.1.log", &n));
	CHECK_INT(n.type, FC_LOG_LAT);
	CHECK_STR(n.key, "a_b");
	an_log_name_free(&n);

	CHECK(!an_log_name_parse("basis1-rw4k.json", &n));
	CHECK(!an_log_name_parse("notes_iops.txt", &n));
	CHECK(!an_log_name_parse("_iops.1.log", &n));

	CHECK_INT(an_file_kind("a/basis1-rw4k.json"), AN_FILE_OUTPUT);
	CHECK_INT(an_file_kind("a/basis1-rw4k.TXT"), AN_FILE_OUTPUT);
	CHECK_INT(an_file_kind("a/log-basis1-rw4k_iops.1.log"), AN_FILE_LOG);
	CHECK_INT(an_file_kind("a/rw4k.fio"), AN_FILE_SKIP);
	CHECK_INT(an_file_kind("a/rw4k.stderr"), AN_FILE_SKIP);
	CHECK_INT(an_file_kind("a/manifest.json"), AN_FILE_SKIP);
	CHECK_INT(an_file_kind("a/.hidden.json"), AN_FILE_SKIP);

	char *k = an_output_key("d.x/basis1-rw4k.json");
	CHECK_STR(k, "d.x/basis1-rw4k");
	free(k);
	k = an_output_key("d.x/noext");
	CHECK_STR(k, "d.x/noext");
	free(k);
}

static const char *csv_line(const struct an_csv *c, const char *const *fields, const double *nums,
			    size_t n_nums)
{
	static struct an_buf b;
	b.len = 0;
	an_buf_puts(&b, "");
	for (size_t i = 0; fields[i]; i++) {
		if (i)
			an_buf_putc(&b, c->sep);
		an_csv_field(&b, c, fields[i]);
	}
	for (size_t i = 0; i < n_nums; i++) {
		an_buf_putc(&b, c->sep);
		an_csv_number(&b, c, nums[i], 3);
	}
	return b.s;
}

static void test_csv(void)
{
	struct an_csv en = {',', '.'}, de = {';', ','};
	const char *const f1[] = {"plain",    "with,comma", "with;semi",
				  "quote\"d", "two\nlines", NULL};
	const double nums[] = {29094.5, -0.0001, NAN, 1234567.25};
	CHECK_STR(csv_line(&en, f1, nums, 4),
		  "plain,\"with,comma\",with;semi,\"quote\"\"d\",\"two\nlines\","
		  "29094.500,0.000,,1234567.250");
	CHECK_STR(csv_line(&de, f1, nums, 4),
		  "plain;with,comma;\"with;semi\";\"quote\"\"d\";\"two\nlines\";"
		  "29094,500;0,000;;1234567,250");
	/* A decimal comma with a comma separator still parses: the field is quoted. */
	struct an_csv odd = {',', ','};
	const char *const none[] = {"x", NULL};
	const double one[] = {1.5};
	CHECK_STR(csv_line(&odd, none, one, 1), "x,\"1,500\"");
	/* Every digit of the largest values, not the first 63. */
	char want[400];
	snprintf(want, sizeof(want), "x,%.3f", -DBL_MAX);
	const double huge[] = {-DBL_MAX};
	CHECK_STR(csv_line(&en, none, huge, 1), want);
	CHECK_INT(strlen(want), 2 + 1 + 309 + 4);

	char buf[64];
	an_fmt_short(buf, sizeof(buf), 29094.4);
	CHECK_STR(buf, "29094");
	an_fmt_short(buf, sizeof(buf), 113.64);
	CHECK_STR(buf, "114");
	an_fmt_short(buf, sizeof(buf), 45.46);
	CHECK_STR(buf, "45.5");
	an_fmt_short(buf, sizeof(buf), 4.254);
	CHECK_STR(buf, "4.25");
	an_fmt_short(buf, sizeof(buf), 1234567);
	CHECK_STR(buf, "1.23M");
	an_fmt_short(buf, sizeof(buf), NAN);
	CHECK_STR(buf, "-");
	an_fmt_pct(buf, sizeof(buf), -86.95);
	CHECK_STR(buf, "-87.0%");
	an_fmt_pct(buf, sizeof(buf), 6.64);
	CHECK_STR(buf, "+6.6%");
	an_fmt_pct(buf, sizeof(buf), -0.04);
	CHECK_STR(buf, "0.0%");
	an_fmt_pct(buf, sizeof(buf), NAN);
	CHECK_STR(buf, "");
}

int main(void)
{
	test_default_inference();
	test_pattern();
	test_log_names();
	test_csv();
	return check_exit();
}
