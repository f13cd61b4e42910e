/* SPDX-License-Identifier: MIT */
/* The pull reader for fio's JSON: what it accepts beyond JSON, and where it
 * says an error is. */
#include "check.h"
#include "json.h"

static void init(struct fc_json *j, const char *text)
{
	fj_init(j, text, text + strlen(text), "t.json", 1);
}

static void test_strings(void)
{
	struct fc_json j;
	struct fj_str key, s;
	/* raw newline and tab inside a string (fio's description=) */
	init(&j, "{\"desc\" : \"line1\nline2 \\\"quoted\\\" tab\there\"}");
	CHECK(fj_object_begin(&j));
	CHECK(fj_object_next(&j, &key));
	CHECK(FJ_KEY(key, "desc"));
	CHECK(fj_string(&j, &s));
	CHECK(s.len == strlen("line1\nline2 \"quoted\" tab\there"));
	CHECK(memcmp(s.p, "line1\nline2 \"quoted\" tab\there", s.len) == 0);
	CHECK(!fj_object_next(&j, &key));
	CHECK_INT(j.status, 0);
	fj_release(&j);

	/* \u escapes, surrogate pairs, a lone surrogate */
	init(&j, "[\"\\u00e9\\ud83d\\ude00\\ud800x\\/\"]");
	CHECK(fj_array_begin(&j));
	CHECK(fj_array_next(&j));
	CHECK(fj_string(&j, &s));
	CHECK(s.len == 2 + 4 + 3 + 2);
	CHECK(memcmp(s.p, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx/", s.len) == 0);
	CHECK(!fj_array_next(&j));
	fj_release(&j);

	/* an escaped key stays valid while an escaped value is read */
	init(&j, "{\"a\\tb\" : \"c\\nd\"}");
	CHECK(fj_object_begin(&j));
	CHECK(fj_object_next(&j, &key));
	CHECK(fj_string(&j, &s));
	CHECK(key.len == 3 && memcmp(key.p, "a\tb", 3) == 0);
	CHECK(s.len == 3 && memcmp(s.p, "c\nd", 3) == 0);
	fj_release(&j);
}

static void test_numbers(void)
{
	struct fc_json j;
	struct fj_num n;
	init(&j, "[14767.616192, -3, 1e3, nan, -nan, inf, -inf, 9223372036854775807, "
		 "18446744073709551615, 0.000000]");
	CHECK(fj_array_begin(&j));
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK_DBL(n.d, 14767.616192, 0);
	CHECK(!n.is_int);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(n.is_int && n.i == -3);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK_DBL(n.d, 1000, 0);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(isnan(n.d));
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(isnan(n.d));
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(isinf(n.d) && n.d > 0);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(isinf(n.d) && n.d < 0);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(n.is_int && n.i == INT64_MAX);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK(!n.is_int);
	CHECK_DBL(n.d, 18446744073709551615.0, 0);
	CHECK(fj_array_next(&j) && fj_number(&j, &n));
	CHECK_DBL(n.d, 0, 0);
	CHECK(!fj_array_next(&j));
	CHECK_INT(j.status, 0);
	fj_release(&j);
}

static void test_skip_and_literals(void)
{
	struct fc_json j;
	struct fj_str key;
	init(&j, "{\"a\":[1,{\"b\":null},true,false,\"x\"],\"c\":2}");
	CHECK(fj_object_begin(&j));
	CHECK(fj_object_next(&j, &key) && FJ_KEY(key, "a"));
	CHECK(fj_skip(&j));
	CHECK(fj_object_next(&j, &key) && FJ_KEY(key, "c"));
	CHECK(fj_skip(&j));
	CHECK(!fj_object_next(&j, &key));
	CHECK_INT(j.status, 0);
	CHECK(j.p == j.end);
	fj_release(&j);
}

static void test_errors(void)
{
	struct fc_json j;
	struct fc_error e;
	/* truncated: eof is set so the caller can say "fio did not finish" */
	init(&j, "{\n  \"a\" : [1, 2");
	CHECK(!fj_skip(&j));
	CHECK(j.eof);
	fj_error(&j, &e);
	CHECK_INT(e.code, FC_E_SYNTAX);
	CHECK_INT(e.line, 2);
	fj_release(&j);

	init(&j, "{\n  \"a\" : 1\n  \"b\" : 2\n}");
	CHECK(!fj_skip(&j));
	CHECK(!j.eof);
	fj_error(&j, &e);
	CHECK_INT(e.line, 3);
	CHECK_INT(e.column, 3);
	CHECK_STR(e.message, "expected ',' or '}' in an object, found '\"'");
	fj_release(&j);

	init(&j, "{\"a\" : 12x}");
	CHECK(!fj_skip(&j));
	fj_error(&j, &e);
	CHECK_STR(e.message, "invalid character in a number");
	CHECK_INT(e.column, 10);
	fj_release(&j);

	init(&j, "{\"a\" : \"\\q\"}");
	CHECK(!fj_skip(&j));
	fj_error(&j, &e);
	CHECK_STR(e.message, "invalid escape '\\q' in a string");
	fj_release(&j);

	char deep[200];
	memset(deep, '[', 100);
	deep[100] = '\0';
	init(&j, deep);
	CHECK(!fj_skip(&j));
	CHECK_INT(j.status, FC_E_LIMIT);
	fj_release(&j);

	init(&j, "{\"a\" : tru}");
	CHECK(!fj_skip(&j));
	fj_release(&j);
	init(&j, "{\"a\" : tr");
	CHECK(!fj_skip(&j));
	CHECK(j.eof);
	fj_release(&j);
}

int main(void)
{
	test_strings();
	test_numbers();
	test_skip_and_literals();
	test_errors();
	return check_exit();
}
