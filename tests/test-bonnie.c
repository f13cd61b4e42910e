/* SPDX-License-Identifier: MIT */
/*
 * bonnie++ CSV rows: the real 2.00a runs in tests/fixtures/bonnie/bonnie-2.00a
 * read with exactly the values bonnie++ printed (the .stderr.txt beside each
 * CSV is its text table), the hand-made rows of 1.00, 1.03e, 1.96, 1.97 and
 * 2.00 in tests/fixtures/bonnie/handmade (made by make-fixtures.py after each
 * release's bon_time.cpp; see the README there), and the inputs of
 * tests/fixtures/bonnie/bad, each refused with a message naming the file, the
 * line, the column and the field.
 */
#include <math.h>
#include <stdint.h>

#include "check.h"
#include "fiocamp.h"

#define FIX  "tests/fixtures/bonnie/"
#define REAL FIX "bonnie-2.00a/"
#define HAND FIX "handmade/"

#define UNKNOWN UINT64_MAX /* a size or count the row does not give */

/* A test's rate and CPU as bonnie++ printed them. */
struct want {
	enum fc_bonnie_status status;
	double rate, cpu;
};

#define M(r, c)                                                                                    \
	{                                                                                          \
		FC_BONNIE_MEASURED, (r), (c)                                                       \
	}
#define PLUS                                                                                       \
	{                                                                                          \
		FC_BONNIE_TOO_FAST, NAN, NAN                                                       \
	}
#define PLUS_CPU(c)                                                                                \
	{                                                                                          \
		FC_BONNIE_TOO_FAST, NAN, (c)                                                       \
	}
#define NONE                                                                                       \
	{                                                                                          \
		FC_BONNIE_NOT_RUN, NAN, NAN                                                        \
	}
#define NONE6  NONE, NONE, NONE, NONE, NONE, NONE
#define PLUS6  PLUS, PLUS, PLUS, PLUS, PLUS, PLUS
#define NOLAT6 NAN, NAN, NAN, NAN, NAN, NAN

static struct fc_bonnie *load(const char *rel, size_t n_rows)
{
	struct fc_bonnie *b = NULL;
	struct fc_error e;
	int rc = fc_bonnie_read_file(check_src(rel), &b, &e);
	if (rc != FC_OK) {
		char msg[1024];
		fc_error_format(&e, msg, sizeof(msg));
		fprintf(stderr, "%s: %s\n", rel, msg);
	}
	CHECK_INT(rc, FC_OK);
	if (b)
		CHECK_U64(b->n_rows, n_rows);
	return b;
}

static const struct fc_bonnie_row *row_at(const struct fc_bonnie *b, size_t i)
{
	static struct fc_bonnie_row empty;
	return b && i < b->n_rows ? &b->rows[i] : &empty;
}

static void check_head(const struct fc_bonnie_row *r, enum fc_bonnie_format format,
		       unsigned long line, const char *fv, const char *bv, const char *name,
		       int concurrency, const char *seed)
{
	CHECK_INT(r->format, format);
	CHECK_U64(r->line, line);
	CHECK_STR(r->format_version, fv);
	CHECK_STR(r->bonnie_version, bv);
	CHECK_STR(r->name, name);
	CHECK_INT(r->concurrency_known, concurrency >= 0);
	if (concurrency >= 0)
		CHECK_U64(r->concurrency, concurrency);
	CHECK_STR(r->seed, seed);
}

static void check_known(bool known, uint64_t value, uint64_t want)
{
	CHECK_INT(known, want != UNKNOWN);
	if (want != UNKNOWN)
		CHECK_U64(value, want);
}

static void check_io(const struct fc_bonnie_row *r, uint64_t size, uint64_t chunk, uint64_t seeks,
		     uint64_t procs)
{
	check_known(r->file_size_known, r->file_size_bytes, size);
	check_known(r->chunk_size_known, r->chunk_size_bytes, chunk);
	check_known(r->seeks_known, r->seeks, seeks);
	check_known(r->seek_procs_known, r->seek_procs, procs);
}

static void check_files(const struct fc_bonnie_row *r, uint64_t files, enum fc_bonnie_links links,
			uint64_t max, uint64_t min, unsigned dirs)
{
	check_known(r->files_known, r->files, files);
	CHECK_INT(r->links, links);
	CHECK_U64(r->max_file_size_bytes, max);
	CHECK_U64(r->min_file_size_bytes, min);
	CHECK_U64(r->directories, dirs);
}

/* The 12 results, and the 12 latencies in us (NaN: not printed). */
static void check_tests(const struct fc_bonnie_row *r, const struct want w[FC_BONNIE_TEST_COUNT],
			const double lat_us[FC_BONNIE_TEST_COUNT])
{
	for (int t = 0; t < FC_BONNIE_TEST_COUNT; t++) {
		const struct fc_bonnie_result *x = &r->tests[t];
		const struct fc_bonnie_test_info *info = fc_bonnie_test_info(t);
		int fails = check_failures;
		CHECK_INT(x->status, w[t].status);
		CHECK_DBL(x->rate, w[t].rate, 0);
		CHECK_DBL(x->bw_bytes, info->unit == FC_BONNIE_UNIT_KIB ? w[t].rate * 1024 : NAN,
			  0);
		CHECK_DBL(x->cpu_pct, w[t].cpu, 0);
		CHECK_DBL(x->latency_ns, lat_us[t] * 1000.0, 1e-15);
		if (check_failures != fails)
			fprintf(stderr, "  ... in test %s of line %lu\n", info->name, r->line);
	}
}

/* ---- the real 2.00a runs --------------------------------------------------- */

static void test_real_s256_n1(void)
{
	/* testhost 256M 3625k  79 +++++ +++ +++++ +++ 6010k  91 +++++ +++ +++++ +++
	 * Latency   9866us 333us 2816us 2876us 4050us 10358us
	 * files 1: +++++ +++ (all six), Latency 127us 30us 212us 128us 32us 65us */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s256_n1.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "testhost", 1, "1796143840");
	check_io(r, 256ull << 20, UNKNOWN, 8192, 5);
	check_files(r, 1024, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w[] = {M(3625, 79), PLUS, PLUS, M(6010, 91), PLUS, PLUS, PLUS6};
	static const double lat[] = {9866, 333, 2816, 2876, 4050, 10358, 127, 30, 212, 128, 32, 65};
	check_tests(r, w, lat);
	CHECK_U64(b ? b->n_diags : 1, 0);
	fc_bonnie_free(b);
}

static void test_real_seeks_options(void)
{
	/* -s 256:4k:2000:3 -f -b: the 4k chunk is not in the CSV */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s256-4k-2000-3_f_b.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "testhost", 1, "1796130250");
	check_io(r, 256ull << 20, UNKNOWN, 2000, 3);
	check_files(r, UNKNOWN, FC_BONNIE_FILES_REGULAR, 0, 0, 0);
	static const struct want w[] = {NONE, M(519965, 25), PLUS, NONE, PLUS, M(1360, 4), NONE6};
	static const double lat[] = {NAN, 400, 21860, NAN, 154, 47202, NOLAT6};
	check_tests(r, w, lat);
	fc_bonnie_free(b);
}

static void test_real_header_x2(void)
{
	/* the header names 48 columns, the rows have 50 */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_x2_header.csv", 2);
	static const struct want w[] = {NONE, PLUS, PLUS, NONE, PLUS, PLUS, NONE6};
	static const double lat1[] = {NAN, 15458, 699, NAN, 167, 6087, NOLAT6};
	static const double lat2[] = {NAN, 250, 230, NAN, 234, 16692, NOLAT6};
	for (size_t i = 0; i < 2; i++) {
		const struct fc_bonnie_row *r = row_at(b, i);
		check_head(r, FC_BONNIE_FORMAT_1_98, i + 2, "1.98", "2.00a", "hostB", 1,
			   "1796129513");
		check_io(r, 128ull << 20, UNKNOWN, 8192, 5);
		check_files(r, UNKNOWN, FC_BONNIE_FILES_REGULAR, 0, 0, 0);
		check_tests(r, w, i ? lat2 : lat1);
	}
	if (b) {
		CHECK_U64(b->n_diags, 1);
		CHECK_INT(b->diags[0].kind, FC_BONNIE_DIAG_HEADER);
		CHECK_U64(b->diags[0].line, 1);
		CHECK(strncmp(b->diags[0].text, "format_version,bonnie_version,name,", 35) == 0);
	}
	fc_bonnie_free(b);
}

static void test_real_stdout_without_q(void)
{
	/* the text table, a blank line, then the row */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_noq_stdout.txt", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 7, "1.98", "2.00a", "nq", 1, "1796136782");
	check_io(r, 64ull << 20, UNKNOWN, 8192, 5);
	static const struct want w[] = {NONE, PLUS, PLUS, NONE, PLUS, PLUS, NONE6};
	static const double lat[] = {NAN, 106, 72, NAN, 67, 6117, NOLAT6};
	check_tests(r, w, lat);
	if (b) {
		CHECK_U64(b->n_diags, 5);
		for (size_t i = 0; i < b->n_diags && i < 5; i++) {
			CHECK_INT(b->diags[i].kind, FC_BONNIE_DIAG_TEXT);
			CHECK_U64(b->diags[i].line, i + 1);
		}
		CHECK_STR(b->diags[4].text, "Latency                         106us      72us       "
					    "         67us    6117us");
	}
	fc_bonnie_free(b);
}

static void test_real_chunk_and_directories(void)
{
	/* -s 1024:16k -n 2:4096:1024:2: "2,4096,1024,,2", the directories one
	 * column late; the text table: gen-big 1G:16k 2507k 94 1.0g 41 1.4g 44
	 * 2919k 85 +++++ +++ +++++ +++, files 2:4096:1024/2 */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s1024-16k_n2-4096-1024-2.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "gen-big", 1, "1796144653");
	check_io(r, 1ull << 30, UNKNOWN, 8192, 5);
	check_files(r, 2048, FC_BONNIE_FILES_REGULAR, 4096, 1024, 2);
	static const struct want w[] = {M(2507, 94), M(1050272, 41), M(1486285, 44), M(2919, 85),
					PLUS,	     PLUS,	     PLUS6};
	static const double lat[] = {13288, 916, 61,  8753, 2482, 5542,
				     60,    229, 587, 1600, 364,  4149};
	check_tests(r, w, lat);
	fc_bonnie_free(b);
}

static void test_real_no_io(void)
{
	/* -s 0 -n 1:0:0:3 */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s0_n1-0-0-3.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "gen-s0", 1, "1796144591");
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 1024, FC_BONNIE_FILES_REGULAR, 0, 0, 3);
	static const struct want w[] = {NONE6, PLUS6};
	static const double lat[] = {NOLAT6, 470, 9, 107, 1300, 7, 36};
	check_tests(r, w, lat);
	fc_bonnie_free(b);
}

static void test_real_links(void)
{
	/* -n 1:-1 -c 2 -f */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s64_n1-link_c2_f.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "gen-link", 2, "1796144575");
	check_io(r, 64ull << 20, UNKNOWN, 8192, 5);
	check_files(r, 1024, FC_BONNIE_FILES_HARD_LINKS, 0, 0, 1);
	static const struct want w[] = {NONE, PLUS, PLUS, NONE, PLUS, PLUS, PLUS6};
	static const double lat[] = {NAN, 614, 644, NAN, 68, 6289, 1039, 55, 334, 954, 12, 25};
	check_tests(r, w, lat);
	fc_bonnie_free(b);
}

static void test_real_measured(void)
{
	/* -s 4096 -n 0 -f; the text table rounds: 1.0g 68 1.3g 56 3.5g 99 4724 34 */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s4096_n0_f.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "gen-4g", 1, "1796144380");
	check_io(r, 4ull << 30, UNKNOWN, 8192, 5);
	static const struct want w[] = {NONE,		M(1083587, 68), M(1320828, 56), NONE,
					M(3624580, 99), M(4724, 34),	NONE6};
	static const double lat[] = {NAN, 12624, 18133, NAN, 2455, 9596, NOLAT6};
	check_tests(r, w, lat);
	CHECK_DBL(r->tests[FC_BONNIE_PUT_BLOCK].bw_bytes, 1109593088.0, 0);
	fc_bonnie_free(b);
}

static void test_real_files(void)
{
	/* -s 0 -n 128: 131072 files; the text table shows 131072/s for every
	 * measured file test (a double printed with %d); the CSV is right */
	struct fc_bonnie *b = load(REAL "bonnie-2.00a_q_s0_n128.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00a", "gen-files", 1, "1796133306");
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 131072, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w[] = {NONE6,	     M(50980, 68), PLUS,	M(60681, 60),
					M(6375, 73), PLUS,	   M(58484, 60)};
	static const double lat[] = {NOLAT6, 8111, 13521, 13100, 25733, 4046, 15753};
	check_tests(r, w, lat);
	fc_bonnie_free(b);
}

static void test_text_table_alone(void)
{
	struct fc_bonnie *b = (struct fc_bonnie *)1;
	struct fc_error e;
	CHECK_INT(fc_bonnie_read_file(check_src(REAL "bonnie-2.00a_q_s256_n1.stderr.txt"), &b, &e),
		  FC_E_NOT_FIO);
	CHECK(b == NULL);
	CHECK(strstr(e.message, "bonnie++'s text table, but no CSV row") != NULL);
}

/* ---- hand-made rows of the older releases ---------------------------------- */

static void test_1_03e(void)
{
	struct fc_bonnie *b = load(HAND "bonnie-1.03e_x3.csv", 3);
	const struct fc_bonnie_row *r = row_at(b, 0);
	/* gen-4g,4G,,,1083587,68,...,4724.0,34,128,50980,68,... */
	check_head(r, FC_BONNIE_FORMAT_1_0X, 2, NULL, NULL, "gen-4g", -1, NULL);
	check_io(r, 4ull << 30, 8192, UNKNOWN, UNKNOWN);
	check_files(r, 131072, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w0[] = {
	    NONE, M(1083587, 68), M(1320828, 56), NONE, M(3624580, 99), M(4724, 34), M(50980, 68),
	    PLUS, M(60681, 60),	  M(6375, 73),	  PLUS, M(58484, 60)};
	static const double nolat[] = {NOLAT6, NOLAT6};
	check_tests(r, w0, nolat);
	/* gen-big,1G:16k,...,2:4096:1024/2 */
	r = row_at(b, 1);
	check_head(r, FC_BONNIE_FORMAT_1_0X, 3, NULL, NULL, "gen-big", -1, NULL);
	check_io(r, 1ull << 30, 16384, UNKNOWN, UNKNOWN);
	check_files(r, 2048, FC_BONNIE_FILES_REGULAR, 4096, 1024, 2);
	static const struct want w1[] = {M(2507, 94), M(1050272, 41), M(1486285, 44), M(2919, 85),
					 PLUS,	      PLUS,	      PLUS6};
	check_tests(r, w1, nolat);
	/* slow-zvol,300M:512,...,456.7,1,16:4096:0 */
	r = row_at(b, 2);
	check_head(r, FC_BONNIE_FORMAT_1_0X, 4, NULL, NULL, "slow-zvol", -1, NULL);
	check_io(r, 300ull << 20, 512, UNKNOWN, UNKNOWN);
	check_files(r, 16384, FC_BONNIE_FILES_REGULAR, 4096, 0, 1);
	static const struct want w2[] = {M(612, 98),	M(6912, 3),  M(3371, 2),  M(1433, 97),
					 M(254833, 21), M(456.7, 1), M(1203, 11), PLUS,
					 M(2841, 9),	M(1187, 10), PLUS,	  M(977, 8)};
	check_tests(r, w2, nolat);
	if (b) {
		CHECK_U64(b->n_diags, 1);
		CHECK_INT(b->diags[0].kind, FC_BONNIE_DIAG_HEADER);
	}
	fc_bonnie_free(b);

	b = load(HAND "bonnie-1.03e_s0_n0.csv", 3);
	/* -s 0: 13 empty I/O fields; 1:symlink/3 */
	r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_0X, 1, NULL, NULL, "gen-links", -1, NULL);
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 1024, FC_BONNIE_FILES_SYMLINKS, 0, 0, 3);
	static const struct want w3[] = {NONE6, PLUS6};
	check_tests(r, w3, nolat);
	/* -n 0: 13 empty file fields */
	r = row_at(b, 1);
	check_io(r, 4ull << 30, 8192, UNKNOWN, UNKNOWN);
	check_files(r, UNKNOWN, FC_BONNIE_FILES_REGULAR, 0, 0, 0);
	static const struct want w4[] = {NONE,		 M(1083587, 68), M(1320828, 56), NONE,
					 M(3624580, 99), M(4724, 34),	 NONE6};
	check_tests(r, w4, nolat);
	r = row_at(b, 2);
	check_files(r, 1024, FC_BONNIE_FILES_HARD_LINKS, 0, 0, 1);
	fc_bonnie_free(b);
}

static void test_1_00(void)
{
	/* gen-4g,4096,...,+++++,97,...: a bare MiB size, CPU beside +++++ */
	struct fc_bonnie *b = load(HAND "bonnie-1.00.csv", 1);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_0X, 1, NULL, NULL, "gen-4g", -1, NULL);
	check_io(r, 4ull << 30, 8192, UNKNOWN, UNKNOWN);
	check_files(r, 16384, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w[] = {NONE,	      M(1083587, 68), M(1320828, 56), NONE,
					PLUS_CPU(97), M(4724, 34),    PLUS_CPU(95),   PLUS_CPU(99),
					PLUS_CPU(96), PLUS_CPU(94),   PLUS_CPU(98),   PLUS_CPU(97)};
	static const double nolat[] = {NOLAT6, NOLAT6};
	check_tests(r, w, nolat);
	fc_bonnie_free(b);
}

static void test_1_96(void)
{
	struct fc_bonnie *b = load(HAND "bonnie-1.96_x2.csv", 2);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_96, 2, "1.96", "1.96", "gen-4g", 1, "1796144380");
	check_io(r, 4ull << 30, 8192, UNKNOWN, UNKNOWN);
	check_files(r, 16384, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w0[] = {NONE,		 M(1083587, 68), M(1320828, 56), NONE,
					 M(3624580, 99), M(4724, 34),	 PLUS6};
	static const double lat0[] = {NAN, 12624, 18133, NAN, 2455, 9596, NOLAT6};
	check_tests(r, w0, lat0);
	/* -s 0: 47 fields */
	r = row_at(b, 1);
	check_head(r, FC_BONNIE_FORMAT_1_96, 3, "1.96", "1.96", "gen-files", 1, "1796133306");
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 131072, FC_BONNIE_FILES_REGULAR, 0, 0, 1);
	static const struct want w1[] = {NONE6,	      M(50980, 68), PLUS,	 M(60681, 60),
					 M(6375, 73), PLUS,	    M(58484, 60)};
	static const double lat1[] = {NOLAT6, 8111, 13521, 13100, 25733, 4046, 15753};
	check_tests(r, w1, lat1);
	/* the 46-name header of 1.96 is a header, not a row */
	if (b) {
		CHECK_U64(b->n_diags, 1);
		CHECK_INT(b->diags[0].kind, FC_BONNIE_DIAG_HEADER);
	}
	fc_bonnie_free(b);
}

static void test_1_97(void)
{
	struct fc_bonnie *b = load(HAND "bonnie-1.97_x3.csv", 3);
	const struct fc_bonnie_row *r = row_at(b, 0);
	/* 1G,16k,...: the chunk printed; 2,4096,1024,,2 */
	check_head(r, FC_BONNIE_FORMAT_1_97, 2, "1.97", "1.97", "gen-big", 1, "1796144653");
	check_io(r, 1ull << 30, 16384, UNKNOWN, UNKNOWN);
	check_files(r, 2048, FC_BONNIE_FILES_REGULAR, 4096, 1024, 2);
	static const struct want w0[] = {M(2507, 94), M(1050272, 41), M(1486285, 44), M(2919, 85),
					 PLUS,	      PLUS,	      PLUS6};
	static const double lat0[] = {13288, 916, 61,  8753, 2482, 5542,
				      60,    229, 587, 1600, 364,  4149};
	check_tests(r, w0, lat0);
	/* 300M,512,...,456.7,1,16,4096,,,,...; 42100us,2317ms,101s,...,99ms */
	r = row_at(b, 1);
	check_head(r, FC_BONNIE_FORMAT_1_97, 3, "1.97", "1.97", "slow-zvol", 1, "12345");
	check_io(r, 300ull << 20, 512, UNKNOWN, UNKNOWN);
	check_files(r, 16384, FC_BONNIE_FILES_REGULAR, 4096, 0, 1);
	static const struct want w1[] = {M(612, 98),	M(6912, 3),  M(3371, 2),  M(1433, 97),
					 M(254833, 21), M(456.7, 1), M(1203, 11), PLUS,
					 M(2841, 9),	M(1187, 10), PLUS,	  M(977, 8)};
	static const double lat1[] = {42100, 2317000, 101000000, 31200,	 412000, 1250000,
				      807,   12,      100000,	 250000, 9,	 99000};
	check_tests(r, w1, lat1);
	/* -s 0 (14 empty fields in 1.97), 1,symlink,,,3 */
	r = row_at(b, 2);
	check_head(r, FC_BONNIE_FORMAT_1_97, 4, "1.97", "1.97", "gen-links", 1, "1796144575");
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 1024, FC_BONNIE_FILES_SYMLINKS, 0, 0, 3);
	static const struct want w2[] = {NONE6, PLUS6};
	static const double lat2[] = {NOLAT6, 1039, 55, 334, 954, 12, 25};
	check_tests(r, w2, lat2);
	fc_bonnie_free(b);
}

static void test_2_00(void)
{
	struct fc_bonnie *b = load(HAND "bonnie-2.00_slow.csv", 2);
	const struct fc_bonnie_row *r = row_at(b, 0);
	check_head(r, FC_BONNIE_FORMAT_1_98, 1, "1.98", "2.00", "slow-zvol", 1, "12345");
	check_io(r, 300ull << 20, UNKNOWN, 2000, 3);
	static const struct want w[] = {M(612, 98),    M(6912, 3),  M(3371, 2),	 M(1433, 97),
					M(254833, 21), M(456.7, 1), M(1203, 11), PLUS,
					M(2841, 9),    M(1187, 10), PLUS,	 M(977, 8)};
	static const double lat[] = {42100, 2317000, 101000000, 31200,	412000, 1250000,
				     807,   12,	     100000,	250000, 9,	99000};
	check_tests(r, w, lat);
	r = row_at(b, 1);
	check_io(r, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN);
	check_files(r, 1024, FC_BONNIE_FILES_SYMLINKS, 0, 0, 3);
	fc_bonnie_free(b);
}

/* ---- what is around the rows ----------------------------------------------- */

static void test_crlf_bom_blank(void)
{
	static const char in[] =
	    "\xef\xbb\xbf"
	    "format_version,bonnie_version,name\r\n"
	    "\r\n"
	    "   \t\r\n"
	    "1.98,2.00a,testhost,1,1796130250,256M,,2000,3,,,519965,25,+++++,+++,,,+++++,+++,"
	    "1360,4,,,,,,,,,,,,,,,,,,,400us,21860us,,154us,47202us,,,,,,\r\n"
	    "Writing intelligently...done\r\n"
	    "1.98,2.00a,other,1,1,256M,,2000,3,,,519966,25,+++++,+++,,,+++++,+++,"
	    "1360,4,,,,,,,,,,,,,,,,,,,400us,21860us,,154us,47202us,,,,,,";
	struct fc_bonnie *b;
	struct fc_error e;
	CHECK_INT(fc_bonnie_read_buffer(in, sizeof(in) - 1, "mem", &b, &e), FC_OK);
	if (!b)
		return;
	CHECK_STR(b->source, "mem");
	CHECK_U64(b->n_rows, 2);
	CHECK_U64(b->rows[0].line, 4);
	CHECK_U64(b->rows[1].line, 6);
	CHECK_STR(b->rows[1].name, "other");
	CHECK_DBL(b->rows[1].tests[FC_BONNIE_PUT_BLOCK].rate, 519966, 0);
	CHECK_DBL(b->rows[1].tests[FC_BONNIE_SEEKS].latency_ns, 47202000, 0);
	CHECK_U64(b->n_diags, 2);
	CHECK_INT(b->diags[0].kind, FC_BONNIE_DIAG_HEADER);
	CHECK_STR(b->diags[0].text, "format_version,bonnie_version,name");
	CHECK_U64(b->diags[1].line, 5);
	CHECK_STR(b->diags[1].text, "Writing intelligently...done");
	fc_bonnie_free(b);
}

static void test_1_0x_named_like_a_version(void)
{
	/* a 27-field row whose machine is called "1.98" is a 1.0x row */
	static const char in[] =
	    "1.98,4G,,,1083587,68,1320828,56,,,3624580,99,4724.0,34,,,,,,,,,,,,,\n";
	struct fc_bonnie *b;
	CHECK_INT(fc_bonnie_read_buffer(in, sizeof(in) - 1, "mem", &b, NULL), FC_OK);
	if (!b)
		return;
	CHECK_INT(b->rows[0].format, FC_BONNIE_FORMAT_1_0X);
	CHECK_STR(b->rows[0].name, "1.98");
	fc_bonnie_free(b);
}

static void test_info(void)
{
	const struct fc_bonnie_test_info *i = fc_bonnie_test_info(FC_BONNIE_PUT_BLOCK);
	CHECK_STR(i->name, "put_block");
	CHECK_STR(i->label, "block write");
	CHECK_INT(i->unit, FC_BONNIE_UNIT_KIB);
	CHECK_INT(fc_bonnie_test_info(FC_BONNIE_SEEKS)->unit, FC_BONNIE_UNIT_SEEKS);
	CHECK_STR(fc_bonnie_test_info(FC_BONNIE_SEQ_STAT)->name, "seq_stat");
	CHECK_INT(fc_bonnie_test_info(FC_BONNIE_RAN_DEL)->unit, FC_BONNIE_UNIT_FILES);
	CHECK(fc_bonnie_test_info(FC_BONNIE_TEST_COUNT) == NULL);
	CHECK(fc_bonnie_test_info((enum fc_bonnie_test) - 1) == NULL);
}

/* ---- refused inputs -------------------------------------------------------- */

struct bad_case {
	const char *file;
	enum fc_status code;
	unsigned long line, column;
	const char *message; /* the start of it */
};

static const struct bad_case bad_cases[] = {
    {"short-row-1.98.csv", FC_E_SYNTAX, 1, 103,
     "bonnie++ 1.98 row cut short: it ends after field 37 (ran_del) of the 50 bonnie++ writes"},
    {"comma-in-name-1.97.csv", FC_E_SYNTAX, 1, 0,
     "bonnie++ 1.97 row has 49 fields, 1 more than bonnie++ writes (a ',' in the machine "
     "name?)"},
    {"short-row-1.0x.csv", FC_E_SYNTAX, 1, 86,
     "bonnie++ 1.0x row cut short: it ends after field 20 (seq_del) of the 27"},
    {"bad-rate.csv", FC_E_SYNTAX, 1, 49,
     "bonnie++ 1.98 row, field 12 (put_block): expected a rate (a number, \"+++++\" or "
     "nothing), found \"519965x\""},
    {"negative-rate.csv", FC_E_SYNTAX, 1, 81,
     "bonnie++ 1.98 row, field 20 (seeks): expected a rate"},
    {"bad-cpu.csv", FC_E_SYNTAX, 1, 56,
     "bonnie++ 1.98 row, field 13 (put_block_cpu): expected a CPU percentage (a number, \"+++\" "
     "or nothing), found \"25%\""},
    {"bad-latency.csv", FC_E_SYNTAX, 1, 106,
     "bonnie++ 1.98 row, field 40 (put_block_latency): expected a latency (a number and us, ms "
     "or s, or nothing), found \"21860 us\""},
    {"bad-latency-unit.csv", FC_E_SYNTAX, 1, 105,
     "bonnie++ 1.98 row, field 39 (putc_latency): expected a latency"},
    {"bad-size.csv", FC_E_SYNTAX, 1, 34,
     "bonnie++ 1.98 row, field 6 (file_size): expected a size in MiB or GiB"},
    {"bad-concurrency.csv", FC_E_SYNTAX, 1, 21,
     "bonnie++ 1.98 row, field 4 (concurrency): expected the concurrency (-c), a number, found "
     "\"one\""},
    {"bad-num-seeks.csv", FC_E_SYNTAX, 1, 40,
     "bonnie++ 1.98 row, field 8 (num_seeks): expected the number of seeks or nothing, found "
     "\"2000.5\""},
    {"bad-max-size.csv", FC_E_SYNTAX, 1, 99, "bonnie++ 1.97 row, field 21 (max_size): expected"},
    {"bad-dirs-in-chunk-column.csv", FC_E_SYNTAX, 1, 110,
     "bonnie++ 1.97 row, field 24 (file_chunk_size): expected the number of directories"},
    {"bad-num-files-1.0x.csv", FC_E_SYNTAX, 1, 58,
     "bonnie++ 1.0x row, field 15 (num_files): expected the number of files in 1024s"},
    {"bad-chunk-1.0x.csv", FC_E_SYNTAX, 1, 8, "bonnie++ 1.0x row, field 2 (file_size): expected"},
    {"s0-1.96-not-empty.csv", FC_E_SYNTAX, 1, 39,
     "bonnie++ 1.96 row, field 11 (put_block_cpu): expected nothing: a 47-field 1.96 row is one "
     "without I/O tests, found \"12\""},
    {"second-row-bad.csv", FC_E_SYNTAX, 4, 59,
     "bonnie++ 1.98 row, field 14 (rewrite): expected a rate (a number, \"+++++\" or nothing), "
     "found \"++++\""},
    {"unknown-version.csv", FC_E_FORMAT, 1, 1,
     "field 1 (format_version): unknown bonnie++ CSV format \"1.99\""},
    {"snapshot-version.csv", FC_E_FORMAT, 1, 1,
     "field 1 (format_version): \"1.92a\" is the format of a bonnie++ 1.90 - 1.92a snapshot"},
    {"text-only.txt", FC_E_NOT_FIO, 0, 0, "not bonnie++ output: no bonnie++ CSV row"},
    {"header-only.csv", FC_E_NOT_FIO, 0, 0,
     "not bonnie++ output: a bonnie++ CSV header, but no row"},
    {"empty.csv", FC_E_NOT_FIO, 0, 0, "not bonnie++ output: the file is empty"},
    {"fio-json.json", FC_E_NOT_FIO, 0, 0, "not bonnie++ output: no bonnie++ CSV row"},
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		char rel[256];
		snprintf(rel, sizeof(rel), FIX "bad/%s", c->file);
		const char *path = check_src(rel);
		struct fc_bonnie *b = (struct fc_bonnie *)1;
		struct fc_error e;
		int fails = check_failures;
		CHECK_INT(fc_bonnie_read_file(path, &b, &e), c->code);
		CHECK(b == NULL);
		CHECK_INT(e.code, c->code);
		CHECK_STR(e.source, path);
		CHECK_U64(e.line, c->line);
		CHECK_U64(e.column, c->column);
		CHECK(strncmp(e.message, c->message, strlen(c->message)) == 0);
		if (check_failures != fails)
			fprintf(stderr, "  ... %s: \"%s\"\n", c->file, e.message);
	}
}

static void test_limits(void)
{
	struct fc_bonnie *b;
	struct fc_error e;
	/* a row that is short enough to repeat */
	static const char row[] = "h,,,,,,,,,,,,,,1,+++++,+++,,,,,,,,,,\n";
	size_t n = (size_t)FC_BONNIE_MAX_ROWS + 1, len = sizeof(row) - 1;
	char *buf = malloc(n * len);
	for (size_t i = 0; i < n; i++)
		memcpy(buf + i * len, row, len);
	CHECK_INT(fc_bonnie_read_buffer(buf, (n - 1) * len, "rows", &b, &e), FC_OK);
	if (b)
		CHECK_U64(b->n_rows, FC_BONNIE_MAX_ROWS);
	fc_bonnie_free(b);
	CHECK_INT(fc_bonnie_read_buffer(buf, n * len, "rows", &b, &e), FC_E_LIMIT);
	CHECK_U64(e.line, FC_BONNIE_MAX_ROWS + 1);
	CHECK(strstr(e.message, "more than 65536 bonnie++ rows") != NULL);
	/* lines that are not rows */
	for (size_t i = 0; i < n; i++)
		memcpy(buf + 2 * i, "x\n", 2);
	memcpy(buf + 2 * n, row, len);
	CHECK_INT(fc_bonnie_read_buffer(buf, 2 * n + len, "text", &b, &e), FC_E_LIMIT);
	CHECK(strstr(e.message, "more than 65536 lines that are not bonnie++ rows") != NULL);
	free(buf);
	/* the input itself */
	CHECK_INT(fc_bonnie_read_buffer(row, (size_t)FC_BONNIE_MAX_BYTES + 1, "big", &b, &e),
		  FC_E_LIMIT);
	CHECK(strstr(e.message, "more than the limit of 16777216") != NULL);
	CHECK_INT(fc_bonnie_read_buffer(NULL, 1, "null", &b, &e), FC_E_INVAL);
	CHECK_INT(fc_bonnie_read_file(check_src(FIX "no-such-file.csv"), &b, &e), FC_E_IO);
	CHECK(b == NULL);
	fc_bonnie_free(NULL);
}

int main(void)
{
	test_real_s256_n1();
	test_real_seeks_options();
	test_real_header_x2();
	test_real_stdout_without_q();
	test_real_chunk_and_directories();
	test_real_no_io();
	test_real_links();
	test_real_measured();
	test_real_files();
	test_text_table_alone();
	test_1_03e();
	test_1_00();
	test_1_96();
	test_1_97();
	test_2_00();
	test_crlf_bom_blank();
	test_1_0x_named_like_a_version();
	test_info();
	test_bad();
	test_limits();
	return check_exit();
}
