/* SPDX-License-Identifier: MIT */
/* Arena, vector, number parsing and error formatting. */
#include <locale.h>

#include "check.h"
#include "util.h"

static void test_parse_double(void)
{
	bool ok;
	CHECK_DBL(fc_parse_double("14767.616192", 12, &ok), 14767.616192, 0);
	CHECK(ok);
	CHECK_DBL(fc_parse_double("0.000000", 8, &ok), 0.0, 0);
	CHECK_DBL(fc_parse_double("-1.5e3", 6, &ok), -1500.0, 0);
	CHECK_DBL(fc_parse_double("99.990000", 9, &ok), 99.99, 0);
	/* beyond the fast path: still correctly rounded */
	CHECK_DBL(fc_parse_double("12345678901234567890123", 23, &ok), 1.2345678901234568e22, 0);
	CHECK(ok);
	CHECK_DBL(fc_parse_double("1e-30", 5, &ok), 1e-30, 0);
	fc_parse_double("12x", 3, &ok);
	CHECK(!ok);
	fc_parse_double("", 0, &ok);
	CHECK(!ok);
	fc_parse_double("1e", 2, &ok);
	CHECK(!ok);
	/* only the given length counts */
	CHECK_DBL(fc_parse_double("42;7", 2, &ok), 42.0, 0);
	CHECK(ok);
	/* a comma locale must not change the decimal mark */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		CHECK_DBL(fc_parse_double("0.1234567890123456789012", 24, &ok), 0.12345678901234568,
			  0);
		CHECK(ok);
		setlocale(LC_NUMERIC, "C");
	}
}

static void test_parse_u64(void)
{
	uint64_t v = 7;
	CHECK(fc_parse_u64("18446744073709551615", 20, &v));
	CHECK_U64(v, UINT64_MAX);
	CHECK(!fc_parse_u64("18446744073709551616", 20, &v));
	CHECK(!fc_parse_u64("", 0, &v));
	CHECK(!fc_parse_u64("-1", 2, &v));
	CHECK(!fc_parse_u64("+1", 2, &v));
	CHECK(!fc_parse_u64(" 1", 2, &v));
	CHECK_U64(v, UINT64_MAX);
	CHECK(fc_parse_u64("0012,", 4, &v));
	CHECK_U64(v, 12);
}

static void test_quote(void)
{
	char q[FC_QUOTE_MAX];
	fc_quote(q, "ab\\c\x01\n", 6);
	CHECK_STR(q, "ab\\x5cc\\x01\\x0a");
	char all[41];
	memset(all, 0xff, 41);
	fc_quote(q, all, 41);
	CHECK_INT(strlen(q), 4 * 40 + 3);
	CHECK(strcmp(q + 4 * 40, "...") == 0);
}

static void test_arena(void)
{
	struct fc_arena a;
	fc_arena_init(&a, 64);
	char *s = fc_arena_strdup(&a, "hello");
	CHECK_STR(s, "hello");
	void *big = fc_arena_alloc(&a, 100000);
	CHECK(big != NULL);
	double *d = fc_arena_alloc(&a, sizeof(double));
	CHECK(((uintptr_t)d % sizeof(double)) == 0);
	CHECK_STR(s, "hello");
	fc_arena_release(&a);
}

static void test_vec(void)
{
	struct fc_vec v;
	fc_vec_init(&v, sizeof(int), 3);
	for (int i = 0; i < 3; i++) {
		int *p = fc_vec_push(&v);
		CHECK(p != NULL);
		*p = i;
	}
	CHECK(fc_vec_push(&v) == NULL); /* past max_elems */
	CHECK_INT(((int *)v.data)[2], 2);
	fc_vec_release(&v);
}

struct kv {
	int key, value;
};

static int cmp_kv(const void *x, const void *y)
{
	const struct kv *a = x, *b = y;
	return (a->key > b->key) - (a->key < b->key);
}

static void test_dedupe(void)
{
	/* equal keys keep their input order: positions, not a stable qsort */
	struct kv v[] = {{3, 0}, {1, 1}, {3, 2}, {2, 3}, {1, 4}, {3, 5}};
	size_t *idx = fc_sort_index(v, 6, sizeof(v[0]), cmp_kv);
	CHECK(idx != NULL);
	if (idx) {
		static const size_t want[] = {1, 4, 3, 0, 2, 5};
		for (size_t i = 0; i < 6; i++)
			CHECK_U64(idx[i], want[i]);
		free(idx);
	}
	/* the first place of each key, with the value of its last occurrence */
	size_t n = 6;
	CHECK_INT(fc_dedupe(v, &n, sizeof(v[0]), cmp_kv), FC_OK);
	CHECK_U64(n, 3);
	CHECK_INT(v[0].key, 3);
	CHECK_INT(v[0].value, 5);
	CHECK_INT(v[1].key, 1);
	CHECK_INT(v[1].value, 4);
	CHECK_INT(v[2].key, 2);
	CHECK_INT(v[2].value, 3);
	n = 0;
	CHECK_INT(fc_dedupe(v, &n, sizeof(v[0]), cmp_kv), FC_OK);
	CHECK_U64(n, 0);

	/* many duplicates: one sort, not a scan per element */
	size_t big = 200000;
	struct kv *w = malloc(big * sizeof(*w));
	for (size_t i = 0; i < big; i++)
		w[i] = (struct kv){(int)(i % 1000), (int)i};
	n = big;
	CHECK_INT(fc_dedupe(w, &n, sizeof(*w), cmp_kv), FC_OK);
	CHECK_U64(n, 1000);
	CHECK_INT(w[999].key, 999);
	CHECK_INT(w[999].value, (int)(big - 1));
	free(w);
}

static void test_error_format(void)
{
	struct fc_error e;
	char buf[256];
	fc_err(&e, FC_E_SYNTAX, "x.json", 3, 7, "expected %s", "':'");
	fc_error_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "x.json:3:7: expected ':'");
	fc_err(&e, FC_E_SYNTAX, "x.log", 0, 0, "bad");
	e.offset = 12;
	e.has_offset = true;
	fc_error_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "x.log: byte 12: bad");
	fc_err(&e, FC_E_NOT_FIO, "y", 0, 0, "not fio output");
	fc_error_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "y: not fio output");
	CHECK_STR(fc_status_text(FC_E_UNFINISHED), "fio did not finish");
}

static void test_read_file(void)
{
	char *buf;
	size_t len;
	struct fc_error e;
	CHECK_INT(fc_read_file("/nonexistent/file", 100, &buf, &len, &e), FC_E_IO);
	CHECK_STR(e.source, "/nonexistent/file");
	CHECK(strstr(e.message, "No such file") != NULL);
	CHECK_INT(fc_read_file(check_src("tests/check.h"), 10, &buf, &len, &e), FC_E_LIMIT);
	CHECK_INT(fc_read_file(check_src("tests"), 1 << 20, &buf, &len, &e), FC_E_IO);
	/* not a regular file: read up to one byte past the limit */
	CHECK_INT(fc_read_file("/dev/zero", 100000, &buf, &len, &e), FC_E_LIMIT);
	CHECK(strstr(e.message, "larger than the limit of 100000 bytes") != NULL);
	CHECK_INT(fc_read_file(check_src("tests/check.h"), 1 << 20, &buf, &len, &e), FC_OK);
	CHECK(len > 100 && buf[len] == '\0');
	free(buf);
}

int main(void)
{
	test_parse_double();
	test_parse_u64();
	test_quote();
	test_arena();
	test_vec();
	test_dedupe();
	test_error_format();
	test_read_file();
	return check_exit();
}
