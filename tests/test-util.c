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

static void test_error_format(void)
{
	struct fc_error e;
	char buf[256];
	fc_err(&e, FC_E_SYNTAX, "x.json", 3, 7, "expected %s", "':'");
	fc_error_format(&e, buf, sizeof(buf));
	CHECK_STR(buf, "x.json:3:7: expected ':'");
	fc_err_at(&e, FC_E_SYNTAX, "x.log", 12, "bad");
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
	CHECK_INT(fc_read_file(check_src("tests/check.h"), 1 << 20, &buf, &len, &e), FC_OK);
	CHECK(len > 100 && buf[len] == '\0');
	free(buf);
}

int main(void)
{
	test_parse_double();
	test_arena();
	test_vec();
	test_error_format();
	test_read_file();
	return check_exit();
}
