/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-analyze internals that are easy to get subtly wrong: telling
 * state, round and test from names (the published example's
 * basis1-rw4k.json, snap1-1-rw4k.json, snap3-4-lat4k.json and its
 * log-basis1-rw4k_iops.1.log), --pattern, and CSV fields and numbers.
 */
#include <float.h>

#include "read/read.h"
#include "render/render.h"
#include "check.h"

static void check_name(const char *base, const char *stem, int round, const char *date)
{
	struct an_name n;
	an_name_parse(base, &n);
	CHECK_STR(n.stem, stem);
	CHECK_INT(n.round, round);
	if (date)
		CHECK_STR(n.date, date);
	else
		CHECK(n.date == NULL);
	an_name_free(&n);
}

/* The words of a name that say the workload `key`: how many a word takes
 * and the kind. */
static void check_word(const char *key, const char *w, const char *next, size_t took,
		       enum an_wl_word kind)
{
	enum an_wl_word k;
	size_t got = an_wl_word(key, w, strlen(w), next, next ? strlen(next) : 0, &k);
	CHECK_INT((int)got, (int)took);
	if (took)
		CHECK_INT((int)k, (int)kind);
}

static void test_sweep_names(void)
{
	/* A round stands alone, or after a round word; digits inside a word
	 * are none. */
	check_name("randread_qd8_nj4_rep2", "randread_qd8_nj4", 2, NULL);
	check_name("run1_randread_qd32", "randread_qd32", 1, NULL);
	check_name("1_randread_iodepth32_jobs1", "randread_iodepth32_jobs1", 1, NULL);
	check_name("run-1", "", 1, NULL);
	check_name("fio-randread-4k-qd1-nj1-1", "fio-randread-4k-qd1-nj1", 1, NULL);
	check_name("randread.2", "randread", 2, NULL);
	check_name("randread_qd32", "randread_qd32", 0, NULL);
	check_name("randread-qd-8", "randread-qd-8", 0, NULL);
	check_name("v2_randread", "v2_randread", 0, NULL);
	check_name("randread_128k_1G", "randread_128k_1G", 0, NULL);
	check_name("2026-11-30_randread_qd1", "randread_qd1", 0, "2026-11-30");
	check_name("pass_3_seqwrite", "seqwrite", 3, NULL);

	/* Words checked against the report: iodepth=8 numjobs=4 bs=4k size=1g. */
	const char *key = "name=x\x1frw=randread\x1f"
			  "bs=4k\x1fiodepth=8\x1fnumjobs=4\x1fioengine=libaio\x1f"
			  "direct=1\x1fsize=1g";
	check_word(key, "qd8", NULL, 1, AN_WW_IODEPTH);
	check_word(key, "QD08", NULL, 1, AN_WW_IODEPTH);
	check_word(key, "qd4", NULL, 0, AN_WW_NONE);
	check_word(key, "iodepth8", NULL, 1, AN_WW_IODEPTH);
	check_word(key, "iodepth", "8", 2, AN_WW_IODEPTH);
	check_word(key, "iodepth", "x", 0, AN_WW_NONE);
	check_word(key, "8qd", NULL, 1, AN_WW_IODEPTH);
	check_word(key, "nj4", NULL, 1, AN_WW_NUMJOBS);
	check_word(key, "T4", NULL, 1, AN_WW_NUMJOBS);
	check_word(key, "jobs4", NULL, 1, AN_WW_NUMJOBS);
	check_word(key, "numjobs", "4", 2, AN_WW_NUMJOBS);
	check_word(key, "4jobs", NULL, 1, AN_WW_NUMJOBS);
	check_word(key, "4k", NULL, 1, AN_WW_BS);
	check_word(key, "4KiB", NULL, 1, AN_WW_BS);
	check_word(key, "bs4k", NULL, 1, AN_WW_BS);
	check_word(key, "128k", NULL, 0, AN_WW_NONE);
	check_word(key, "1G", NULL, 1, AN_WW_SIZE);
	check_word(key, "randread", NULL, 1, AN_WW_RW);
	check_word(key, "RandRead", NULL, 1, AN_WW_RW);
	check_word(key, "randwrite", NULL, 0, AN_WW_NONE);
	check_word(key, "v2", NULL, 0, AN_WW_NONE);
	check_word(key, "4096", NULL, 0, AN_WW_NONE);
	check_word(key, "host", NULL, 0, AN_WW_NONE);
	/* Terse output gives no option: the shape is enough. */
	check_word("name=x", "qd4", NULL, 1, AN_WW_IODEPTH);
	check_word("name=x", "randwrite", NULL, 1, AN_WW_RW);
	check_word("name=x", "128k", NULL, 1, AN_WW_BS);
	check_word("name=x", "ssd", NULL, 0, AN_WW_NONE);
	CHECK(an_wl_option_word("qd", 2));
	CHECK(!an_wl_option_word("rep", 3));
}

static void check_affix(const char *stem, const char *word, const char *rest)
{
	const char *r;
	size_t len;
	bool ok = an_name_affix(stem, word, &r, &len);
	if (!rest) {
		CHECK(!ok);
		return;
	}
	CHECK(ok);
	if (ok) {
		char buf[256];
		snprintf(buf, sizeof(buf), "%.*s", (int)len, r);
		CHECK_STR(buf, rest);
	}
}

static void check_layout(const char *key, const char *state, int round, const char *test)
{
	struct an_ident id;
	int rc = an_infer_layout(key, &id);
	if (!state) {
		CHECK_INT(rc, -1);
		return;
	}
	CHECK_INT(rc, 0);
	if (rc == 0) {
		CHECK_STR(id.state, state);
		CHECK_INT(id.round, round);
		CHECK_STR(id.test, test);
		an_ident_free(&id);
	}
}

static void test_default_inference(void)
{
	/* Trailing rounds, bare or with a word. */
	check_name("before-1", "before", 1, NULL);
	check_name("after_snapshot-2", "after_snapshot", 2, NULL);
	check_name("ssd_randwrite_run3", "ssd_randwrite", 3, NULL);
	check_name("rw4k.basis.r1", "rw4k.basis", 1, NULL);
	check_name("basis-round-12", "basis", 12, NULL);
	check_name("7", "", 7, NULL);
	/* A glued number is the label's (basis1), not a round token. */
	check_name("basis1-rw4k", "basis1-rw4k", 0, NULL);
	check_name("basis1", "basis1", 0, NULL);
	/* More than 6 digits is no round. */
	check_name("x-1234567", "x-1234567", 0, NULL);
	/* Dates anywhere, with or without a time, are no state or round. */
	check_name("2024-05-01_ssd_randwrite_run3", "ssd_randwrite", 3, "2024-05-01");
	check_name("ssd_2024-05-01", "ssd", 0, "2024-05-01");
	check_name("20240501-1230_randread", "randread", 0, "20240501-1230");
	check_name("fio_2024-05-01T12:00:00Z_randread-2", "fio_randread", 2,
		   "2024-05-01T12:00:00Z");
	check_name("2024.05.01-seq", "seq", 0, "2024.05.01");
	/* Not dates: month 13, glued to a word, mixed separators. */
	check_name("2024-13-01_x", "2024-13-01_x", 0, NULL);
	check_name("run20241130-rw4k", "run20241130-rw4k", 0, NULL);
	check_name("2024-05_01-x", "2024-05_01-x", 0, NULL);

	check_affix("ssd_randwrite", "randwrite", "ssd");
	check_affix("rw4k.basis", "rw4k", "basis");
	check_affix("randread", "RandRead", "");
	check_affix("basis1-rw4k", "rw4k", "basis1");
	check_affix("basis1-xrw4k", "rw4k", NULL);
	check_affix("rw", "rw4k", NULL);

	/* The campaign directory layout. */
	check_layout("camp/basis/r3/rw4k", "basis", 3, "rw4k");
	check_layout("basis/r1/rand-write", "basis", 1, "rand-write");
	check_layout("x/before/run2/seq", "before", 2, "seq");
	check_layout("x/before/q2/seq", NULL, 0, NULL);
	check_layout("r1/rw4k", NULL, 0, NULL);

	struct an_ident id;
	memset(&id, 0, sizeof(id));
	CHECK(an_split_label("snap1", 5, &id));
	CHECK_STR(id.state, "snap");
	CHECK_INT(id.round, 1);
	an_ident_free(&id);
	CHECK(an_split_label("snap1-1", 7, &id));
	CHECK_STR(id.state, "snap1");
	CHECK_INT(id.round, 1);
	an_ident_free(&id);
	CHECK(!an_split_label("12", 2, &id));
	CHECK(!an_split_label("-1", 2, &id));
}

static void check_bench(const char *rel, const char *device)
{
	char *dev = NULL;
	bool ok = an_bench_fio_path(rel, &dev);
	if (!device) {
		CHECK(!ok);
		return;
	}
	CHECK(ok);
	if (ok)
		CHECK_STR(dev, device);
	free(dev);
}

static void test_bench_fio(void)
{
	check_bench("md0/4k/randread-1-1", "md0");
	check_bench("out/md0/64k/randwrite-16-4", "out/md0");
	check_bench("md0/randrw75/4k/randrw-8-8", "md0");
	check_bench("4k/read-1-1", "");
	check_bench("md0/4k/bogus-1-1", NULL);
	check_bench("md0/fast/randread-1-1", NULL);
	check_bench("md0/4k/randread-1", NULL);
	char *k = an_bench_fio_log_key("d/4k/randread-iodepth-16-numjobs-2");
	CHECK_STR(k, "d/4k/randread-16-2");
	free(k);
	CHECK(an_bench_fio_log_key("d/4k/randread-16-2") == NULL);
	CHECK(an_bench_fio_log_key("d/x-iodepth-16-numjobs-") == NULL);
}

static void check_pattern(const char *pat, const char *key, const char *state, int round,
			  const char *test)
{
	struct an_pattern *p;
	struct an_error err;
	CHECK_INT(an_pattern_compile(pat, &p, &err), 0);
	struct an_ident id;
	int rc = an_pattern_match(p, key, &id);
	if (state) {
		CHECK_INT(rc, 0);
		if (rc == 0) {
			CHECK_STR(id.state, state);
			CHECK_INT(id.round, round);
			if (test)
				CHECK_STR(id.test, test);
			else
				CHECK(id.test == NULL);
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
	struct an_error lerr;
	CHECK_INT(an_pattern_compile("*a*a*a*a*a*a*a*a{state}-{test}", &lp, &lerr), 0);
	struct an_ident lid;
	CHECK_INT(an_pattern_match(lp, longname, &lid), 0);
	CHECK_INT(strlen(lid.state), 2000 - 8); /* the stars take nothing */
	CHECK_INT(strlen(lid.test), 999);
	an_ident_free(&lid);
	an_pattern_free(lp);

	struct an_pattern *p;
	struct an_error err;
	CHECK_INT(an_pattern_compile("{state}-{tset}", &p, &err), -1);
	CHECK(strstr(err.msg, "unknown placeholder {tset}") != NULL);
	CHECK_INT(an_pattern_compile("results/*.json", &p, &err), -1);
	CHECK(strstr(err.msg, "needs at least one of {variant}, {state}, {round}, {test}") != NULL);
	/* No {test}: the test is fio's job name, later. */
	check_pattern("{state}-{round}.json", "x/before-3", "before", 3, NULL);
	/* {variant} */
	CHECK_INT(an_pattern_compile("{variant}/{state}{round}-{test}.json", &p, &err), 0);
	struct an_ident vid;
	CHECK_INT(an_pattern_match(p, "top/zvol/basis2-rw4k", &vid), 0);
	CHECK_STR(vid.variant, "zvol");
	CHECK_STR(vid.state, "basis");
	CHECK_INT(vid.round, 2);
	CHECK_INT(an_pattern_dirs(p), 1);
	an_ident_free(&vid);
	an_pattern_free(p);
	CHECK_INT(an_pattern_compile("{state}-{test", &p, &err), -1);
	CHECK_INT(an_pattern_compile("{state}-{test}-{state}", &p, &err), -1);
	CHECK(strstr(err.msg, "appears twice") != NULL);
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

	const char *why;
	CHECK_INT(an_file_kind("a/basis1-rw4k.json", &why), AN_FILE_OUTPUT);
	CHECK_INT(an_file_kind("a/basis1-rw4k.TERSE", &why), AN_FILE_OUTPUT);
	/* Names that say nothing: read if the content is fio's. */
	CHECK_INT(an_file_kind("a/basis1-rw4k.TXT", &why), AN_FILE_MAYBE);
	CHECK_INT(an_file_kind("a/results-before-1.log", &why), AN_FILE_MAYBE);
	CHECK_INT(an_file_kind("a/run.out", &why), AN_FILE_MAYBE);
	CHECK_INT(an_file_kind("a/output", &why), AN_FILE_MAYBE);
	CHECK_INT(an_file_kind("a/log-basis1-rw4k_iops.1.log", &why), AN_FILE_LOG);
	CHECK_INT(an_file_kind("a/rw4k.fio", &why), AN_FILE_SKIP);
	CHECK_STR(why, "a fio job file");
	CHECK_INT(an_file_kind("a/rw4k.stderr", &why), AN_FILE_SKIP);
	CHECK_INT(an_file_kind("a/chart.PNG", &why), AN_FILE_SKIP);
	CHECK_STR(why, "a picture");
	CHECK_INT(an_file_kind("a/manifest.json", &why), AN_FILE_SKIP);
	CHECK_INT(an_file_kind("a/.hidden.json", &why), AN_FILE_SKIP);

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
	static struct cm_buf b;
	b.len = 0;
	cm_buf_puts(&b, "");
	for (size_t i = 0; fields[i]; i++) {
		if (i)
			cm_buf_putc(&b, c->sep);
		an_csv_field(&b, c, fields[i]);
	}
	for (size_t i = 0; i < n_nums; i++) {
		cm_buf_putc(&b, c->sep);
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

/* A report of one job with the given options (a JSON fragment). */
static struct fc_output *report(const char *job_options, const char *global_options)
{
	char doc[4096];
	snprintf(doc, sizeof(doc),
		 "{\"fio version\" : \"fio-3.33\", %s%s%s \"jobs\" : [{\"jobname\" : "
		 "\"j1\", \"groupid\" : 0, \"error\" : 0, \"job options\" : {%s}, "
		 "\"read\" : {\"io_bytes\" : 0, \"iops\" : 0.0}}]}",
		 global_options ? "\"global options\" : {" : "",
		 global_options ? global_options : "", global_options ? "}," : "", job_options);
	struct fc_output *out = NULL;
	struct fc_error err;
	int rc = fc_output_read_buffer(doc, strlen(doc), "test", &out, &err);
	if (rc != 0)
		fprintf(stderr, "report: %s\n", err.message);
	return out;
}

/* The workload key of a report, in a readable form ("|" for fields). */
static void check_workload(const char *opts, const char *global, const char *want)
{
	struct fc_output *out = report(opts, global);
	CHECK(out != NULL);
	if (!out)
		return;
	char *key = an_workload_key(out->final);
	for (char *p = key; *p; p++) {
		if (*p == '\x1f')
			*p = '|';
	}
	CHECK_STR(key, want);
	free(key);
	fc_output_free(out);
}

/* A group_reporting entry of a reader and a writer as fio 3.33 writes it:
 * the writer's options, the reads and writes of both, job_runtime their
 * sum.  Its key is the global options and what is merged. */
static void test_workload_merged(void)
{
	static const char doc[] =
	    "{\"fio version\" : \"fio-3.33\", \"global options\" : {\"bs\" : \"4k\", "
	    "\"ioengine\" : \"libaio\"}, \"jobs\" : [{\"jobname\" : \"reader\", "
	    "\"groupid\" : 0, \"error\" : 0, \"job_runtime\" : 2000, \"job options\" : "
	    "{\"rw\" : \"randwrite\", \"iodepth\" : \"4\"}, \"read\" : {\"io_bytes\" : "
	    "4096, \"runtime\" : 1001}, \"write\" : {\"io_bytes\" : 4096, \"runtime\" : "
	    "1001}}]}";
	struct fc_output *out = NULL;
	struct fc_error err;
	CHECK(fc_output_read_buffer(doc, strlen(doc), "test", &out, &err) == 0);
	if (!out)
		return;
	char *key = an_workload_key(out->final);
	for (char *p = key; *p; p++) {
		if (*p == '\x1f')
			*p = '|';
	}
	CHECK_STR(key, "name=reader|merged=2 jobs of different rw|bs=4k|ioengine=libaio");
	free(key);
	fc_output_free(out);
}

static void test_workload(void)
{
	uint64_t b = 0;
	/* fio's sizes: 4k, 4K, 4kb and 4096 are one size; with the default
	 * kb_base=1024 4KiB is 4000 bytes (fio's compatibility rule). */
	const char *four_k[] = {"4k", "4K", "4kb", "4KB", "4096", "4096b", "0x1000"};
	for (size_t i = 0; i < sizeof(four_k) / sizeof(four_k[0]); i++) {
		CHECK(an_parse_size(four_k[i], false, &b));
		CHECK_U64(b, 4096);
	}
	CHECK(an_parse_size("4KiB", false, &b));
	CHECK_U64(b, 4000);
	CHECK(an_parse_size("4KiB", true, &b));
	CHECK_U64(b, 4096);
	CHECK(an_parse_size("4k", true, &b));
	CHECK_U64(b, 4000);
	CHECK(an_parse_size("1m", false, &b));
	CHECK_U64(b, 1048576);
	CHECK(an_parse_size(" 2g ", false, &b));
	CHECK_U64(b, 2ull << 30);
	CHECK(!an_parse_size("50%", false, &b));
	CHECK(!an_parse_size("${SIZE}", false, &b));
	CHECK(!an_parse_size("4x", false, &b));
	CHECK(!an_parse_size("99999999999999999999k", false, &b));
	char buf[32];
	an_fmt_size(buf, sizeof(buf), 4096);
	CHECK_STR(buf, "4k");
	an_fmt_size(buf, sizeof(buf), 65536);
	CHECK_STR(buf, "64k");
	an_fmt_size(buf, sizeof(buf), 1 << 20);
	CHECK_STR(buf, "1m");
	an_fmt_size(buf, sizeof(buf), 4000);
	CHECK_STR(buf, "4000");
	uint64_t ms = 0;
	CHECK(an_parse_time_ms("30", &ms));
	CHECK_U64(ms, 30000);
	CHECK(an_parse_time_ms("30s", &ms));
	CHECK_U64(ms, 30000);
	CHECK(an_parse_time_ms("1m", &ms));
	CHECK_U64(ms, 60000);
	CHECK(an_parse_time_ms("1500ms", &ms));
	CHECK_U64(ms, 1500);
	CHECK(an_parse_time_ms("2h", &ms));
	CHECK_U64(ms, 7200000);
	CHECK(!an_parse_time_ms("soon", &ms));

	/* Defaults fio applies when an option is absent: rw=read, bs=4096,
	 * iodepth=1, numjobs=1, ioengine=psync, direct=0. */
	check_workload("\"size\" : \"8M\"", NULL,
		       "name=j1|rw=read|bs=4k|iodepth=1|numjobs=1|ioengine=psync|direct=0|size=8m");
	/* readwrite is rw; rwmixwrite=30 is rwmixread=70; bs per direction. */
	check_workload("\"rw\" : \"readwrite\", \"rwmixwrite\" : \"30\", \"bs\" : \"4k,64k\"", NULL,
		       "name=j1|rw=rw|rwmixread=70|bs=4k,64k|iodepth=1|numjobs=1|ioengine=psync|"
		       "direct=0");
	/* Only the directions the job does: a randread's write bs is no part. */
	check_workload("\"rw\" : \"randread\", \"bs\" : \"4096,64k\", \"iodepth\" : \"32\", "
		       "\"buffered\" : \"0\", \"runtime\" : \"30\"",
		       NULL,
		       "name=j1|rw=randread|bs=4k|iodepth=32|numjobs=1|ioengine=psync|direct=1|"
		       "runtime=30s");
	/* Global options count; the job's own win; runtime 0 is none. */
	check_workload("\"iodepth\" : \"8\"",
		       "\"rw\" : \"randwrite\", \"iodepth\" : \"2\", \"ioengine\" : \"libaio\", "
		       "\"runtime\" : \"0\", \"direct\" : \"1\"",
		       "name=j1|rw=randwrite|bs=4k|iodepth=8|numjobs=1|ioengine=libaio|direct=1");
	/* ",8k": fio's default for reads, 8k for writes (and trims). */
	check_workload("\"rw\" : \"randrw\", \"bs\" : \",8k\"", NULL,
		       "name=j1|rw=randrw|rwmixread=50|bs=4k,8k|iodepth=1|numjobs=1|"
		       "ioengine=psync|direct=0");
	/* Values the analyzer cannot read are compared as written. */
	check_workload("\"rw\" : \"sideways\", \"bs\" : \"${BS}\", \"size\" : \"50%\"", NULL,
		       "name=j1|rw=sideways|bs=${BS}|iodepth=1|numjobs=1|ioengine=psync|direct=0|"
		       "size=50%");
	/* kb_base=1000: 4k is 4000 bytes. */
	check_workload("\"kb_base\" : \"1000\", \"bs\" : \"4k\"", NULL,
		       "name=j1|rw=read|bs=4000|iodepth=1|numjobs=1|ioengine=psync|direct=0");

	struct fc_output *out = report("\"rw\" : \"randread\", \"bs\" : \"64k\"", NULL);
	char *key = an_workload_key(out->final);
	CHECK(an_wl_large_blocks(key));
	CHECK(!an_wl_get(key, 0, AN_WL_MERGED, &(const char *){NULL}, &(size_t){0}));
	CHECK(an_wl_options_listed(key));
	struct cm_buf d = {NULL, 0, 0};
	an_wl_describe(&d, key, (1u << AN_WL_RW) | (1u << AN_WL_BS) | (1u << AN_WL_IODEPTH), true);
	CHECK_STR(d.s, "randread bs=64k iodepth=1");
	cm_buf_release(&d);
	free(key);
	fc_output_free(out);
}

static void test_utf8(void)
{
	char *s = cm_utf8_dup("ok \xc3\xa4 \xff x \xe2\x82 y \xed\xa0\x80 z \xc0\xaf");
	CHECK_STR(s, "ok \xc3\xa4 \xef\xbf\xbd x \xef\xbf\xbd\xef\xbf\xbd y "
		     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd z \xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = cm_utf8_dup("\xf0\x9f\x98\x80 plain");
	CHECK_STR(s, "\xf0\x9f\x98\x80 plain");
	free(s);
	CHECK(cm_utf8_dup(NULL) == NULL);
}

static void test_wrap(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	an_wrap(f, "note: ", 6,
		"one two three four five six seven eight nine ten eleven twelve "
		"averyveryveryverylongwordthatdoesnotfit end",
		30);
	fclose(f);
	CHECK_STR(text, "note: one two three four five\n"
			"      six seven eight nine ten\n"
			"      eleven twelve\n"
			"      averyveryveryverylongwor\n"
			"      dthatdoesnotfit end\n");
	free(text);
}

int main(void)
{
	test_default_inference();
	test_sweep_names();
	test_bench_fio();
	test_workload();
	test_workload_merged();
	test_utf8();
	test_wrap();
	test_pattern();
	test_log_names();
	test_csv();
	return check_exit();
}
