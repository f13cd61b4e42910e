/* SPDX-License-Identifier: MIT */
/*
 * The drawing primitives of fiocamp-analyze's charts: nice axis ticks and
 * their labels, text escaped into well-formed XML whatever bytes a name
 * holds, numbers without the locale, min/max decimation that keeps spikes.
 */
#include <locale.h>

#include "render/render.h"
#include "check.h"

static void check_ticks(double lo, double hi, size_t want, double step, double first, double last)
{
	double s, t[64];
	size_t n = an_nice_ticks(lo, hi, want, &s, t, 64);
	CHECK_DBL(s, step, 1e-12);
	CHECK(n >= 2);
	if (n >= 2) {
		CHECK_DBL(t[0], first, 1e-12);
		CHECK_DBL(t[n - 1], last, 1e-12);
	}
}

static void check_tick(double v, double step, const char *want)
{
	char buf[32];
	an_fmt_tick(buf, sizeof(buf), v, step);
	CHECK_STR(buf, want);
}

static void check_escape(const char *in, size_t n, const char *want)
{
	struct cm_buf b = {NULL, 0, 0};
	an_xml_escape(&b, in, n);
	CHECK_STR(b.s ? b.s : "", want);
	cm_buf_release(&b);
}

static void test_ticks(void)
{
	/* steps of 1, 2, 2.5, 5 x 10^k, from a multiple below to one above */
	check_ticks(0, 443670, 5, 100000, 0, 500000);
	check_ticks(0, 9932, 5, 2000, 0, 10000);
	check_ticks(0, 4.25, 5, 1, 0, 5);
	check_ticks(0, 1.8, 5, 0.5, 0, 2);
	check_ticks(0, 86400, 6, 20000, 0, 100000);
	check_ticks(0, 12, 6, 2, 0, 12);
	check_ticks(0, 1480, 6, 250, 0, 1500);
	check_ticks(12, 12, 5, 0.25, 12, 13.25); /* a single value: 10 % around it */
	check_ticks(0, 0, 5, 0.2, 0, 1);	 /* nothing: 0..1 */
	double s, t[4];
	CHECK_INT(an_nice_ticks(0, 1e6, 100, &s, t, 4), 4); /* capped */

	check_tick(0, 100000, "0");
	check_tick(100000, 100000, "100k");
	check_tick(1500, 250, "1.5k");
	check_tick(1250, 250, "1.25k");
	check_tick(1000, 250, "1k");
	check_tick(10000, 2000, "10k");
	check_tick(1500000, 500000, "1.5M");
	check_tick(2e9, 1e9, "2G");
	check_tick(250, 50, "250");
	check_tick(0.25, 0.05, "0.25");
	check_tick(2.5, 0.5, "2.5");
	check_tick(4, 1, "4");
	check_tick(-0.0, 1, "0");
	check_tick(-2000, 1000, "-2k");
}

static void test_escape(void)
{
	check_escape("a<b>&\"c\"'", 9, "a&lt;b&gt;&amp;&quot;c&quot;&#39;");
	check_escape("µs ok", 6, "µs ok");
	/* control characters, DEL, C1 and bytes that are no UTF-8 */
	check_escape("a\x01"
		     "b\x7f"
		     "c",
		     5,
		     "a\xef\xbf\xbd"
		     "b\xef\xbf\xbd"
		     "c");
	check_escape("\xc2\x85", 2, "\xef\xbf\xbd");
	check_escape("x\xff"
		     "y",
		     3,
		     "x\xef\xbf\xbd"
		     "y");
	check_escape("\xe2\x82", 2, "\xef\xbf\xbd\xef\xbf\xbd");		 /* cut short */
	check_escape("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
	check_escape("\xef\xbf\xbe", 3, "\xef\xbf\xbd"); /* U+FFFE is no XML character */
	check_escape("\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80");
	check_escape("a\0b", 3,
		     "a\xef\xbf\xbd"
		     "b");
	check_escape("a\tb\nc\r", 6, "a b c ");
}

static void test_put(void)
{
	struct cm_buf b = {NULL, 0, 0};
	an_svg_put(&b, "<x a=\"%v\" b=\"%v\" c=\"%v\" d=\"%v\">%e %s %z%%</x>", 12.0, 12.46, -3.14,
		   -0.04, "<&>", "raw", (size_t)7);
	CHECK_STR(b.s, "<x a=\"12\" b=\"12.5\" c=\"-3.1\" d=\"0\">&lt;&amp;&gt; raw 7%</x>");
	b.len = 0;
	an_svg_put(&b, "%v %v", NAN, 1e300);
	CHECK_STR(b.s, "0 1000000000000");
	cm_buf_release(&b);
	/* a locale with a decimal comma changes nothing (when it is installed) */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8")) {
		an_svg_put(&b, "%v", 2.5);
		CHECK_STR(b.s, "2.5");
		cm_buf_release(&b);
		setlocale(LC_NUMERIC, "C");
	}

	b.len = 0;
	CHECK(!an_svg_clip(&b, "warm", 4));
	CHECK_STR(b.s, "warm");
	cm_buf_release(&b);
	CHECK(an_svg_clip(&b, "evicted", 4));
	CHECK_STR(b.s, "evi\xe2\x80\xa6");
	cm_buf_release(&b);
	CHECK(an_svg_clip(&b, "äöüß", 3));
	CHECK_STR(b.s, "äö\xe2\x80\xa6");
	cm_buf_release(&b);
}

static void test_decimate(void)
{
	/* 86,400 seconds into 560 columns: the spike and the dip survive */
	size_t n = 86400, cols = 560;
	double *v = cm_calloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		v[i] = 1000 + (double)(i % 7);
	v[40000] = 50000;
	v[60001] = 0;
	for (size_t i = 70000; i < 70500; i++)
		v[i] = NAN; /* a gap of 500 s: most of a column or two */
	size_t *idx = cm_calloc(2 * cols, sizeof(*idx));
	size_t k = an_decimate_minmax(v, n, cols, idx);
	CHECK(k <= 2 * cols);
	CHECK(k >= cols);
	bool spike = false, dip = false;
	size_t prev = 0;
	bool ordered = true;
	for (size_t i = 0; i < k; i++) {
		if (idx[i] == SIZE_MAX)
			continue;
		spike |= idx[i] == 40000;
		dip |= idx[i] == 60001;
		ordered &= i == 0 || idx[i] >= prev;
		prev = idx[i];
	}
	CHECK(spike);
	CHECK(dip);
	CHECK(ordered);
	/* a column of nothing but NaN is a gap */
	for (size_t i = 0; i < n; i++)
		v[i] = i >= 154 * 10 && i < 156 * 10 ? NAN : 1;
	k = an_decimate_minmax(v, 1600, 160, idx);
	size_t gaps = 0;
	for (size_t i = 0; i < k; i++)
		gaps += idx[i] == SIZE_MAX;
	CHECK_INT(gaps, 2);
	/* short series: every point */
	CHECK_INT(an_decimate_minmax(v, 10, 560, idx), 10);
	CHECK_INT(idx[9], 9);
	free(idx);
	free(v);
}

int main(void)
{
	cm_init("test-analyze-svg", 1);
	test_ticks();
	test_escape();
	test_put();
	test_decimate();
	return check_exit();
}
