/* SPDX-License-Identifier: MIT */
/*
 * manifest.json's shape: the one a new campaign starts with (every state,
 * action, round and test "pending"), and the check that one read back on
 * --resume describes the campaign file beside it.  The keys are
 * docs/campaign-directory.md's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "record/record.h"

static json_t *sweep_json(const struct fcr_sweep *s);

static json_t *settings_json(const struct fcr_campaign *c)
{
	json_t *s = json_pack("{s:i, s:o, s:o, s:s?, s:I, s:s?, s:b, s:b, s:s, s:i}", "rounds",
			      (int)c->rounds, "pause_s", fcr_jseconds((double)c->pause_ms / 1000),
			      "runtime_s", fcr_jseconds((double)c->runtime_ms / 1000), "size",
			      c->size_text, "size_bytes", (json_int_t)c->size_bytes, "directory",
			      c->directory, "prefill", c->prefill, "keep_file", c->keep_file,
			      "ioengine", c->ioengine, "direct", c->direct);
	json_t *d = json_object();
	json_object_set_new(
	    d, "steal", isnan(c->disturbed_steal) ? json_null() : json_real(c->disturbed_steal));
	json_object_set_new(d, "foreign_io",
			    isnan(c->disturbed_foreign_io) ? json_null()
							   : json_real(c->disturbed_foreign_io));
	json_object_set_new(s, "disturbed", d);
	if (fcr_campaign_has_units(c) || c->sweep.n_points > 1)
		json_object_set_new(
		    s, "order",
		    json_string(c->order == FCR_ORDER_SEQUENTIAL ? "sequential" : "interleaved"));
	if (c->sweep.n_axes)
		json_object_set_new(s, "sweep", sweep_json(&c->sweep));
	return s;
}

static json_t *sizes_json(const struct fcr_size *sizes, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:I}", "size", sizes[i].text,
						   "size_bytes", (json_int_t)sizes[i].bytes));
	return a;
}

/* The variants and where each one's test file is; each has its own prefill. */
static json_t *variants_json(const struct fcr_campaign *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n_variants; i++) {
		const struct fcr_variant *v = &c->variants[i];
		json_t *o = json_pack("{s:s, s:s*, s:s*, s:s, s:o}", "name", v->name, "directory",
				      v->directory, "filename", v->filename, "test_file",
				      v->test_file, "sizes", sizes_json(v->sizes, v->n_sizes));
		if (c->prefill)
			json_object_set_new(
			    o, "prefill",
			    json_pack("{s:s, s:n}", "status", CM_STATUS_PENDING, "json"));
		else
			json_object_set_new(o, "prefill", json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *actions_json(const struct fcr_step *steps, size_t n)
{
	json_t *before = json_array();
	for (size_t ai = 0; ai < n; ai++)
		json_array_append_new(
		    before, json_pack("{s:s, s:s, s:s}", "action", steps[ai].words.v[0], "text",
				      steps[ai].text, "status", CM_STATUS_PENDING));
	return before;
}

json_t *fcr_manifest_test(const struct fcr_campaign *c, const struct fcr_unit *u, const char *test)
{
	json_t *t = json_pack("{s:s, s:s}", "test", test, "status", CM_STATUS_PENDING);
	if (u && u->variant)
		json_object_set_new(t, "variant", json_string(u->variant->name));
	if (u && (c->by_size || c->n_variants)) {
		json_object_set_new(t, "size", json_string(u->size->text));
		json_object_set_new(t, "size_bytes", json_integer((json_int_t)u->size->bytes));
	}
	return t;
}

json_t *fcr_manifest_point(const struct fcr_sweep *s, size_t p)
{
	json_t *o = json_object();
	for (size_t a = 0; a < s->n_axes; a++)
		json_object_set_new(o, fcr_sweep_opt_name(s->axes[a].opt),
				    json_string(fcr_sweep_value(s, p, a)));
	return o;
}

/* The sweep as settings and a state's own: {"iodepth": ["1", "16"], ...}. */
static json_t *sweep_json(const struct fcr_sweep *s)
{
	json_t *o = json_object();
	for (size_t a = 0; a < s->n_axes; a++) {
		json_t *v = json_array();
		for (size_t i = 0; i < s->axes[a].values.n; i++)
			json_array_append_new(v, json_string(s->axes[a].values.v[i]));
		json_object_set_new(o, fcr_sweep_opt_name(s->axes[a].opt), v);
	}
	return o;
}

json_t *fcr_manifest_run(const struct fcr_campaign *c, const struct fcr_unit *u,
			 const struct fcr_state *st, const struct fcr_jobfile *jobs, unsigned r,
			 size_t j)
{
	size_t ti, pt;
	fcr_state_run_at(c, st, r, j, &ti, &pt);
	json_t *t = fcr_manifest_test(c, u, jobs[st->tests[ti]].test);
	if (st->sweep && st->sweep->n_axes)
		json_object_set_new(t, "point", fcr_manifest_point(st->sweep, pt));
	return t;
}

size_t fcr_manifest_round_tests(const struct fcr_campaign *c, const struct fcr_state *st)
{
	return fcr_state_runs(st) * (fcr_campaign_has_units(c) ? c->n_units : 1);
}

/* A state's (or one repetition's) "before" and "rounds", all pending; with
 * variants also each variant's own "before" there. */
static void steps_new(json_t *obj, const struct fcr_campaign *c, const struct fcr_state *st,
		      const struct fcr_jobfile *jobs)
{
	bool units = fcr_campaign_has_units(c);
	json_t *rounds = json_array();
	for (unsigned r = 1; r <= st->rounds; r++) {
		/* in the order the round will run them */
		json_t *tests_of_round = json_array();
		for (size_t k = 0; k < (units ? c->n_units : 1); k++) {
			const struct fcr_unit *u =
			    units ? &c->units[fcr_campaign_unit_at(c, r, k)] : NULL;
			for (size_t j = 0; j < fcr_state_runs(st); j++)
				json_array_append_new(tests_of_round,
						      fcr_manifest_run(c, u, st, jobs, r, j));
		}
		json_array_append_new(rounds,
				      json_pack("{s:i, s:s, s:o}", "round", (int)r, "status",
						CM_STATUS_PENDING, "tests", tests_of_round));
	}
	json_object_set_new(obj, "before", actions_json(st->actions, st->n_actions));
	json_object_set_new(obj, "rounds", rounds);
	if (c->n_variants) {
		/* each variant's own before, done at its first use here */
		json_t *vs = json_array();
		for (size_t i = 0; i < c->n_variants; i++) {
			const struct fcr_variant *v = &c->variants[i];
			json_array_append_new(vs,
					      json_pack("{s:s, s:s, s:o}", "variant", v->name,
							"status", CM_STATUS_PENDING, "before",
							actions_json(v->actions, v->n_actions)));
		}
		json_object_set_new(obj, "variants", vs);
	}
}

size_t fcr_manifest_reps(json_t *state_obj)
{
	json_t *reps = json_object_get(state_obj, "repetitions");
	return json_is_array(reps) ? json_array_size(reps) : 1;
}

json_t *fcr_manifest_rep(json_t *state_obj, size_t k)
{
	json_t *reps = json_object_get(state_obj, "repetitions");
	if (json_is_array(reps))
		return json_array_get(reps, k - 1);
	return k == 1 ? state_obj : NULL;
}

json_t *fcr_manifest_new(const struct fcr_campaign *c, const struct fcr_jobfile *jobs,
			 const char *campaign_path)
{
	json_t *m = json_object();
	json_object_set_new(m, "format", json_string("fiocamp-manifest"));
	json_object_set_new(m, "version", json_integer(1));
	json_object_set_new(m, "campaign", json_string(c->name));
	/* one host of a fleet, run alone or by the fleet's supervisor */
	if (c->host)
		json_object_set_new(m, "fleet_host", json_string(c->host));
	json_object_set_new(m, "status", json_string(CM_STATUS_RUNNING));
	json_object_set_new(m, "created", fcr_jutc(cm_wall_s()));
	json_object_set_new(m, "updated", fcr_jutc(cm_wall_s()));
	json_object_set_new(m, "fio_version", json_null());
	json_object_set_new(m, "target", json_string(c->target_text));
	json_object_set_new(m, "host", json_object());
	json_object_set_new(m, "settings", settings_json(c));
	json_t *tests = json_array();
	json_t *sources = json_object();
	for (size_t i = 0; i < c->suite.n; i++) {
		json_array_append_new(tests, json_string(jobs[i].test));
		json_object_set_new(sources, jobs[i].test, fcr_jtext(jobs[i].origin));
	}
	json_object_set_new(m, "tests", tests);
	json_object_set_new(m, "job_sources", sources);
	json_object_set_new(m, "campaign_file",
			    campaign_path ? fcr_jtext(campaign_path) : json_null());
	json_object_set_new(m, "provider", json_string(c->provider_type));
	json_object_set_new(m, "sessions", json_integer(1));
	/* with variants each variant's test file has its own prefill */
	if (c->prefill && !c->n_variants)
		json_object_set_new(m, "prefill",
				    json_pack("{s:s, s:n}", "status", CM_STATUS_PENDING, "json"));
	else
		json_object_set_new(m, "prefill", json_null());
	if (c->n_variants)
		json_object_set_new(m, "variants", variants_json(c));
	json_t *states = json_array();
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *so = json_pack("{s:s, s:s, s:n, s:n}", "name", st->name, "status",
				       CM_STATUS_PENDING, "downtime_s", "data_back_s");
		if (st->sweep_line)
			json_object_set_new(so, "sweep", sweep_json(st->sweep));
		if (st->repeat == 1) {
			steps_new(so, c, st, jobs);
		} else {
			json_object_set_new(so, "repeat", json_integer(st->repeat));
			json_t *reps = json_array();
			for (unsigned k = 1; k <= st->repeat; k++) {
				json_t *ro = json_pack("{s:i, s:s, s:n, s:n}", "repetition", (int)k,
						       "status", CM_STATUS_PENDING, "downtime_s",
						       "data_back_s");
				steps_new(ro, c, st, jobs);
				json_array_append_new(reps, ro);
			}
			json_object_set_new(so, "repetitions", reps);
		}
		json_array_append_new(states, so);
	}
	json_object_set_new(m, "states", states);
	return m;
}

/* One repetition's (or the state's) steps against the campaign file. */
static int check_steps(json_t *obj, const struct fcr_campaign *c, const struct fcr_state *st,
		       size_t k, struct fcr_error *err)
{
	char rep[32] = "";
	if (st->repeat > 1)
		snprintf(rep, sizeof(rep), " repetition %zu", k);
	json_t *before = json_object_get(obj, "before"), *rounds = json_object_get(obj, "rounds");
	/* until steady: the rounds after the steady one are dropped */
	size_t n_rounds = json_array_size(rounds);
	bool rounds_ok = n_rounds == st->rounds ||
			 (st->steady_max && n_rounds >= st->steady_window &&
			  n_rounds <= st->rounds && json_is_object(json_object_get(obj, "steady")));
	if (json_array_size(before) != st->n_actions || !rounds_ok)
		return fcr_fail(err, "state %s%s has other actions or rounds than campaign.ini",
				st->name, rep);
	for (size_t r = 0; r < n_rounds; r++) {
		json_t *ro = json_array_get(rounds, r);
		if (!fcr_jstr(ro, "status") || json_array_size(json_object_get(ro, "tests")) !=
						   fcr_manifest_round_tests(c, st))
			return fcr_fail(err, "state %s%s round %zu is malformed", st->name, rep,
					r + 1);
		/* a sweep's points as campaign.ini makes them, in the order of the round */
		json_t *tests = json_object_get(ro, "tests");
		size_t runs = fcr_state_runs(st);
		for (size_t i = 0; runs && i < json_array_size(tests); i++) {
			size_t ti, pt;
			fcr_state_run_at(c, st, (unsigned)r + 1, i % runs, &ti, &pt);
			json_t *want = st->sweep && st->sweep->n_axes
					   ? fcr_manifest_point(st->sweep, pt)
					   : NULL;
			json_t *have = json_object_get(json_array_get(tests, i), "point");
			bool same = want ? have && json_equal(want, have) : !have;
			json_decref(want);
			if (!same)
				return fcr_fail(
				    err,
				    "state %s%s round %zu: its runs are at other points "
				    "than campaign.ini's sweep",
				    st->name, rep, r + 1);
		}
	}
	for (size_t ai = 0; ai < st->n_actions; ai++) {
		if (!fcr_jstr(json_array_get(before, ai), "status"))
			return fcr_fail(err, "state %s%s action %zu is malformed", st->name, rep,
					ai + 1);
	}
	json_t *vs = json_object_get(obj, "variants");
	for (size_t i = 0; i < c->n_variants; i++) {
		json_t *o = json_array_get(vs, i);
		if (!fcr_jstr(o, "status") ||
		    json_array_size(json_object_get(o, "before")) != c->variants[i].n_actions)
			return fcr_fail(err,
					"state %s%s: variant %s has other actions than "
					"campaign.ini",
					st->name, rep, c->variants[i].name);
	}
	return 0;
}

int fcr_manifest_check(json_t *m, const struct fcr_campaign *c, const struct fcr_jobfile *jobs,
		       struct fcr_error *err)
{
	if (!json_is_object(m) || !fcr_jstr(m, "format") ||
	    strcmp(fcr_jstr(m, "format"), "fiocamp-manifest"))
		return fcr_fail(err, "not a fiocamp manifest");
	if (json_integer_value(json_object_get(m, "version")) != 1)
		return fcr_fail(err, "manifest version %lld is not 1",
				(long long)json_integer_value(json_object_get(m, "version")));
	json_t *states = json_object_get(m, "states");
	if (json_array_size(states) != c->n_states)
		return fcr_fail(err, "the manifest has %zu states, campaign.ini %zu",
				json_array_size(states), c->n_states);
	json_t *tests = json_object_get(m, "tests");
	if (json_array_size(tests) != c->suite.n)
		return fcr_fail(err, "the manifest has %zu tests, campaign.ini %zu",
				json_array_size(tests), c->suite.n);
	for (size_t i = 0; i < c->suite.n; i++) {
		const char *t = json_string_value(json_array_get(tests, i));
		if (!t || strcmp(t, jobs[i].test))
			return fcr_fail(err, "test %zu is %s in the manifest, %s in campaign.ini",
					i + 1, t ? t : "?", jobs[i].test);
	}
	for (size_t si = 0; si < c->n_states; si++) {
		json_t *s = json_array_get(states, si);
		const struct fcr_state *st = &c->states[si];
		if (!fcr_jstr(s, "name") || strcmp(fcr_jstr(s, "name"), st->name))
			return fcr_fail(err, "state %zu is %s in the manifest, %s in campaign.ini",
					si + 1, fcr_jstr(s, "name") ? fcr_jstr(s, "name") : "?",
					st->name);
		json_int_t repeat = json_is_integer(json_object_get(s, "repeat"))
					? json_integer_value(json_object_get(s, "repeat"))
					: 1;
		if (repeat != (json_int_t)st->repeat || fcr_manifest_reps(s) != st->repeat)
			return fcr_fail(err,
					"state %s repeats %lld times in the manifest, %u in "
					"campaign.ini",
					st->name, (long long)repeat, st->repeat);
		for (size_t k = 1; k <= st->repeat; k++) {
			if (check_steps(fcr_manifest_rep(s, k), c, st, k, err) < 0)
				return -1;
		}
	}
	if (c->prefill && !c->n_variants && !json_is_object(json_object_get(m, "prefill")))
		return fcr_fail(err, "the manifest lacks the prefill step");
	json_t *variants = json_object_get(m, "variants");
	if (json_array_size(variants) != c->n_variants)
		return fcr_fail(err, "the manifest has %zu variants, campaign.ini %zu",
				json_array_size(variants), c->n_variants);
	for (size_t i = 0; i < c->n_variants; i++) {
		const char *name = fcr_jstr(json_array_get(variants, i), "name");
		if (!name || strcmp(name, c->variants[i].name))
			return fcr_fail(err,
					"variant %zu is %s in the manifest, %s in campaign.ini",
					i + 1, name ? name : "?", c->variants[i].name);
		if (c->prefill &&
		    !json_is_object(json_object_get(json_array_get(variants, i), "prefill")))
			return fcr_fail(err, "the manifest lacks the prefill of variant %s", name);
	}
	return 0;
}
