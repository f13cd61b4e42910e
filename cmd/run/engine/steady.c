/* SPDX-License-Identifier: MIT */
/* rounds = until-steady MAX: the verdict on a repetition's rounds (steady.h). */
#include "engine/steady.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <fiocamp.h>

/* What names a series: a test on one variant, size and sweep point (the
 * members a manifest's test entry has of these). */
static const char *const identity[] = {"test", "variant", "size", "point"};

static bool same_series(json_t *a, json_t *b)
{
	for (size_t i = 0; i < CM_ARRAY_SIZE(identity); i++) {
		json_t *x = json_object_get(a, identity[i]), *y = json_object_get(b, identity[i]);
		if ((x || y) && !(x && y && json_equal(x, y)))
			return false;
	}
	return true;
}

/* The entry of round_obj's tests that is of the series of `like`
 * (borrowed), or NULL. */
static json_t *entry_like(json_t *round_obj, json_t *like)
{
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(round_obj, "tests"), i, t) {
		if (same_series(t, like))
			return t;
	}
	return NULL;
}

/* A share as JSON: null when it is not a number. */
static json_t *jshare(double x)
{
	return isfinite(x) ? json_real(round(x * 10000) / 10000) : json_null();
}

json_t *fcr_steady_verdict(const struct fcr_state *st, json_t *rep_obj, unsigned n)
{
	unsigned window = st->steady_window;
	json_t *rounds = json_object_get(rep_obj, "rounds");
	if (n > json_array_size(rounds))
		n = (unsigned)json_array_size(rounds);
	double *vals = cm_calloc(n + 1, sizeof(*vals));
	json_t *list = json_array();
	/* the series are the runs of the last round, in its order */
	json_t *last_tests = n ? json_object_get(json_array_get(rounds, n - 1), "tests") : NULL;
	bool all = n >= window && json_array_size(last_tests) > 0;
	bool saw_iops = false, saw_bw = false;
	size_t si;
	json_t *like;
	json_array_foreach(last_tests, si, like) {
		const char *metric = NULL;
		for (unsigned r = 0; r < n; r++) {
			json_t *t = entry_like(json_array_get(rounds, r), like);
			vals[r] = NAN;
			if (!t || !fcr_has_status(t, CM_STATUS_DONE))
				continue;
			const char *h = fcr_jstr(t, "headline");
			bool bw = h && !strcmp(h, "bw");
			json_t *v = json_object_get(t, bw ? "bw_bytes" : "iops");
			if (json_is_number(v))
				vals[r] = json_number_value(v);
			metric = bw ? "bw" : "iops";
		}
		if (!metric)
			metric = "iops";
		saw_bw |= !strcmp(metric, "bw");
		saw_iops |= !strcmp(metric, "iops");
		struct fc_steady last = {.range = NAN, .slope = NAN}, first = {0};
		if (n >= window) {
			fc_steady_window(vals + n - window, window, FC_STEADY_RANGE,
					 FC_STEADY_SLOPE, &last);
			fc_steady_first(vals, n, window, FC_STEADY_RANGE, FC_STEADY_SLOPE, &first);
		}
		all &= last.reached;
		json_t *e = json_object();
		for (size_t i = 0; i < CM_ARRAY_SIZE(identity); i++) {
			json_t *x = json_object_get(like, identity[i]);
			if (x)
				json_object_set(e, identity[i], x);
		}
		json_object_set_new(e, "metric", json_string(metric));
		json_object_set_new(e, "reached", json_boolean(last.reached));
		/* the round its first steady window ended with */
		json_object_set_new(e, "round",
				    first.reached ? json_integer((json_int_t)first.last + 1)
						  : json_null());
		json_object_set_new(e, "range", jshare(last.range));
		json_object_set_new(e, "slope", jshare(last.slope));
		json_array_append_new(list, e);
	}
	free(vals);
	const char *metric = saw_bw && saw_iops ? "iops+bw" : saw_bw ? "bw" : "iops";
	json_t *v = json_object();
	json_object_set_new(v, "reached", json_boolean(all));
	json_object_set_new(v, "round", all ? json_integer(n) : json_null());
	json_object_set_new(v, "rounds", json_integer(n));
	json_object_set_new(v, "window", json_integer(window));
	json_object_set_new(v, "max", json_integer(st->steady_max));
	json_object_set_new(v, "metric", json_string(metric));
	json_object_set_new(v, "tests", list);
	return v;
}

char *fcr_steady_describe(json_t *verdict)
{
	json_int_t window = json_integer_value(json_object_get(verdict, "window"));
	if (json_is_true(json_object_get(verdict, "reached")))
		return cm_asprintf("reached at round %lld (window %lld)",
				   (long long)json_integer_value(json_object_get(verdict, "round")),
				   (long long)window);
	struct cm_buf b = {0};
	cm_buf_printf(&b, "not steady after %lld rounds (window %lld)",
		      (long long)json_integer_value(json_object_get(verdict, "rounds")),
		      (long long)window);
	size_t i, shown = 0;
	json_t *t;
	json_array_foreach(json_object_get(verdict, "tests"), i, t) {
		if (json_is_true(json_object_get(t, "reached")))
			continue;
		if (shown == 4) {
			cm_buf_puts(&b, ", ...");
			break;
		}
		cm_buf_puts(&b, shown++ ? ", " : ": ");
		cm_buf_puts(&b, fcr_jstr(t, "test") ? fcr_jstr(t, "test") : "?");
		const char *v = fcr_jstr(t, "variant"), *size = fcr_jstr(t, "size");
		if (v || size)
			cm_buf_printf(&b, " (%s%s%s)", v ? v : "", v && size ? " " : "",
				      size ? size : "");
		json_t *range = json_object_get(t, "range"), *slope = json_object_get(t, "slope");
		if (!json_is_number(range))
			cm_buf_puts(&b, " without a value in every round");
		else if (json_number_value(range) > FC_STEADY_RANGE)
			cm_buf_printf(&b, " range %.0f%%", json_number_value(range) * 100);
		else
			cm_buf_printf(&b, " slope %.0f%%", json_number_value(slope) * 100);
	}
	return cm_buf_take(&b);
}
