/* SPDX-License-Identifier: MIT */
/* Unit tests of fiocamp-run's steady verdict (engine/steady.c) on rounds
 * written as a manifest holds them: IOPS and bandwidth headlines, a run that
 * failed, variants, sweep points, the line the terminal gets. */
#include <math.h>
#include <string.h>

#include "campaign/campaign.h"
#include "check.h"
#include "engine/steady.h"
#include "providers.h"

static struct fcr_campaign *parse(const char *text)
{
	struct fcr_campaign *c = NULL;
	struct cm_strv errors = {0};
	fcr_campaign_parse(text, strlen(text), "t.ini", fcr_catalog(), &c, &errors);
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	cm_strv_release(&errors);
	return c;
}

/* A done run of `test` (on variant v, or none) with its headline value. */
static json_t *run(const char *test, const char *v, bool bw, double value)
{
	json_t *t = json_pack("{s:s, s:s, s:s}", "test", test, "status", "done", "headline",
			      bw ? "bw" : "iops");
	json_object_set_new(t, bw ? "bw_bytes" : "iops", json_real(value));
	json_object_set_new(t, bw ? "iops" : "bw_bytes", json_real(1)); /* not the headline */
	if (v)
		json_object_set_new(t, "variant", json_string(v));
	return t;
}

static json_t *rounds_of(json_t *list)
{
	return json_pack("{s:o}", "rounds", list);
}

static json_t *test_of(json_t *verdict, size_t i)
{
	return json_array_get(json_object_get(verdict, "tests"), i);
}

static void test_two_tests(void)
{
	struct fcr_campaign *c = parse("[campaign]\nsuite = rr4k sw1m\ndirectory = /x\n"
				       "size = 1M\nrounds = until-steady 8\n[state s]\n");
	CHECK(c != NULL);
	if (!c)
		return;
	/* rr4k steady from round 1 on; sw1m warms up and is steady in rounds 3..7 */
	static const double rr[] = {100, 101, 99, 100, 100, 102, 98, 100};
	static const double sw[] = {40, 70, 95, 100, 98, 101, 99, 100};
	json_t *list = json_array();
	for (size_t r = 0; r < 8; r++) {
		json_t *tests = json_array();
		json_array_append_new(tests, run("rr4k", NULL, false, rr[r]));
		json_array_append_new(tests, run("sw1m", NULL, true, sw[r] * 1048576));
		json_array_append_new(list, json_pack("{s:i, s:s, s:o}", "round", (int)r + 1,
						      "status", "done", "tests", tests));
	}
	json_t *rep = rounds_of(list);
	const struct fcr_state *st = &c->states[0];

	/* before a whole window nothing is steady */
	json_t *v = fcr_steady_verdict(st, rep, 4);
	CHECK(json_is_false(json_object_get(v, "reached")));
	CHECK(json_is_null(json_object_get(v, "round")));
	CHECK(json_is_null(json_object_get(test_of(v, 0), "range")));
	json_decref(v);

	/* rounds 1..5: sw1m's range is 60 of 80.6 */
	v = fcr_steady_verdict(st, rep, 5);
	CHECK(json_is_false(json_object_get(v, "reached")));
	CHECK_STR(fcr_jstr(v, "metric"), "iops+bw");
	CHECK_INT(json_integer_value(json_object_get(v, "window")), 5);
	CHECK_INT(json_integer_value(json_object_get(v, "max")), 8);
	CHECK(json_is_true(json_object_get(test_of(v, 0), "reached")));
	CHECK_INT(json_integer_value(json_object_get(test_of(v, 0), "round")), 5);
	CHECK_STR(fcr_jstr(test_of(v, 0), "metric"), "iops");
	CHECK_STR(fcr_jstr(test_of(v, 1), "metric"), "bw");
	CHECK(json_is_false(json_object_get(test_of(v, 1), "reached")));
	CHECK_DBL(json_number_value(json_object_get(test_of(v, 1), "range")), 60 / 80.6, 1e-3);
	char *line = fcr_steady_describe(v);
	CHECK_STR(line, "not steady after 5 rounds (window 5): sw1m range 74%");
	free(line);
	json_decref(v);

	/* rounds 3..7 are steady for both */
	v = fcr_steady_verdict(st, rep, 7);
	CHECK(json_is_true(json_object_get(v, "reached")));
	CHECK_INT(json_integer_value(json_object_get(v, "round")), 7);
	CHECK_INT(json_integer_value(json_object_get(test_of(v, 1), "round")), 7);
	line = fcr_steady_describe(v);
	CHECK_STR(line, "reached at round 7 (window 5)");
	free(line);
	json_decref(v);

	/* a run that failed: no window through it is steady */
	json_t *t = json_array_get(json_object_get(json_array_get(list, 5), "tests"), 0);
	json_object_set_new(t, "status", json_string("failed"));
	v = fcr_steady_verdict(st, rep, 7);
	CHECK(json_is_false(json_object_get(v, "reached")));
	CHECK(json_is_null(json_object_get(test_of(v, 0), "range")));
	line = fcr_steady_describe(v);
	CHECK_STR(line,
		  "not steady after 7 rounds (window 5): rr4k without a value in every round");
	free(line);
	json_decref(v);
	json_decref(rep);
	fcr_campaign_free(c);
}

/* With variants each test on each variant is a series of its own, found by
 * name whatever order the round ran its units in. */
static void test_variants(void)
{
	struct fcr_campaign *c = parse("[campaign]\nsuite = rr4k\nsize = 1M\nvariants = a b\n"
				       "rounds = until-steady 4\nsteady-window = 3\n"
				       "[variant a]\ndirectory = /a\n[variant b]\ndirectory = /b\n"
				       "[state s]\n");
	CHECK(c != NULL);
	if (!c)
		return;
	/* a is steady; b rises by 8 % a round (range 16 %, slope 16 %) */
	static const double a[] = {100, 100, 100}, b[] = {100, 108, 116};
	json_t *list = json_array();
	for (size_t r = 0; r < 3; r++) {
		json_t *tests = json_array();
		/* the units rotate */
		json_array_append_new(tests,
				      run("rr4k", r % 2 ? "b" : "a", false, r % 2 ? b[r] : a[r]));
		json_array_append_new(tests,
				      run("rr4k", r % 2 ? "a" : "b", false, r % 2 ? a[r] : b[r]));
		json_array_append_new(list, json_pack("{s:i, s:s, s:o}", "round", (int)r + 1,
						      "status", "done", "tests", tests));
	}
	json_t *rep = rounds_of(list);
	json_t *v = fcr_steady_verdict(&c->states[0], rep, 3);
	CHECK(json_is_false(json_object_get(v, "reached")));
	CHECK_STR(fcr_jstr(v, "metric"), "iops");
	CHECK_INT(json_array_size(json_object_get(v, "tests")), 2);
	CHECK_STR(fcr_jstr(test_of(v, 0), "variant"), "a");
	CHECK(json_is_true(json_object_get(test_of(v, 0), "reached")));
	CHECK_DBL(json_number_value(json_object_get(test_of(v, 0), "range")), 0, 1e-9);
	CHECK_STR(fcr_jstr(test_of(v, 1), "variant"), "b");
	CHECK(json_is_false(json_object_get(test_of(v, 1), "reached")));
	CHECK_DBL(json_number_value(json_object_get(test_of(v, 1), "slope")), 16 / 108.0, 1e-3);
	char *line = fcr_steady_describe(v);
	CHECK_STR(line, "not steady after 3 rounds (window 3): rr4k (b) slope 15%");
	free(line);
	json_decref(v);
	json_decref(rep);
	fcr_campaign_free(c);
}

/* A sweep's points are series of their own too. */
static void test_points(void)
{
	struct fcr_campaign *c = parse("[campaign]\nsuite = rr4k\ndirectory = /x\nsize = 1M\n"
				       "rounds = until-steady 4\nsteady-window = 2\n[state s]\n");
	CHECK(c != NULL);
	if (!c)
		return;
	json_t *list = json_array();
	static const double qd1[] = {50, 50}, qd16[] = {100, 200};
	for (size_t r = 0; r < 2; r++) {
		json_t *tests = json_array();
		json_t *a = run("rr4k", NULL, false, qd1[r]),
		       *b = run("rr4k", NULL, false, qd16[r]);
		json_object_set_new(a, "point", json_pack("{s:i}", "iodepth", 1));
		json_object_set_new(b, "point", json_pack("{s:i}", "iodepth", 16));
		json_array_append_new(tests, r ? b : a);
		json_array_append_new(tests, r ? a : b);
		json_array_append_new(list, json_pack("{s:i, s:s, s:o}", "round", (int)r + 1,
						      "status", "done", "tests", tests));
	}
	json_t *rep = rounds_of(list);
	json_t *v = fcr_steady_verdict(&c->states[0], rep, 2);
	CHECK(json_is_false(json_object_get(v, "reached")));
	CHECK_INT(json_array_size(json_object_get(v, "tests")), 2);
	/* in the last round's order: iodepth 16 first */
	json_t *p = json_object_get(test_of(v, 0), "point");
	CHECK_INT(json_integer_value(json_object_get(p, "iodepth")), 16);
	CHECK(json_is_false(json_object_get(test_of(v, 0), "reached")));
	CHECK_DBL(json_number_value(json_object_get(test_of(v, 0), "range")), 100 / 150.0, 1e-3);
	CHECK(json_is_true(json_object_get(test_of(v, 1), "reached")));
	json_decref(v);
	json_decref(rep);
	fcr_campaign_free(c);
}

int main(void)
{
	test_two_tests();
	test_variants();
	test_points();
	return check_exit();
}
