/* SPDX-License-Identifier: MIT */
/*
 * manifest.json's shape: the one a new campaign starts with (every state,
 * action, round and test "pending"), and the check that one read back on
 * --resume describes the campaign file beside it.  The keys are
 * docs/campaign-directory.md's.
 */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

static json_t *settings_json(const struct fcr_campaign *c)
{
	return json_pack("{s:i, s:o, s:o, s:s?, s:I, s:s?, s:b, s:b, s:s, s:i}", "rounds",
			 (int)c->rounds, "pause_s", fcr_jseconds((double)c->pause_ms / 1000),
			 "runtime_s", fcr_jseconds((double)c->runtime_ms / 1000), "size",
			 c->size_text, "size_bytes", (json_int_t)c->size_bytes, "directory",
			 c->directory, "prefill", c->prefill, "keep_file", c->keep_file, "ioengine",
			 c->ioengine, "direct", c->direct);
}

/* A state's (or one repetition's) "before" and "rounds", all pending. */
static void steps_new(json_t *obj, const struct fcr_state *st, const struct fcr_jobfile *jobs)
{
	json_t *before = json_array();
	for (size_t ai = 0; ai < st->n_actions; ai++)
		json_array_append_new(before, json_pack("{s:s, s:s, s:s}", "action",
							st->actions[ai].words.v[0], "text",
							st->actions[ai].text, "status", "pending"));
	json_t *rounds = json_array();
	for (unsigned r = 1; r <= st->rounds; r++) {
		json_t *tests_of_round = json_array();
		for (size_t ti = 0; ti < st->n_tests; ti++)
			json_array_append_new(tests_of_round, json_pack("{s:s, s:s}", "test",
									jobs[st->tests[ti]].test,
									"status", "pending"));
		json_array_append_new(rounds,
				      json_pack("{s:i, s:s, s:o}", "round", (int)r, "status",
						"pending", "tests", tests_of_round));
	}
	json_object_set_new(obj, "before", before);
	json_object_set_new(obj, "rounds", rounds);
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
	json_object_set_new(m, "status", json_string("running"));
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
	if (c->prefill)
		json_object_set_new(m, "prefill",
				    json_pack("{s:s, s:n}", "status", "pending", "json"));
	else
		json_object_set_new(m, "prefill", json_null());
	json_t *states = json_array();
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		json_t *so = json_pack("{s:s, s:s, s:n, s:n}", "name", st->name, "status",
				       "pending", "downtime_s", "data_back_s");
		if (st->repeat == 1) {
			steps_new(so, st, jobs);
		} else {
			json_object_set_new(so, "repeat", json_integer(st->repeat));
			json_t *reps = json_array();
			for (unsigned k = 1; k <= st->repeat; k++) {
				json_t *ro =
				    json_pack("{s:i, s:s, s:n, s:n}", "repetition", (int)k,
					      "status", "pending", "downtime_s", "data_back_s");
				steps_new(ro, st, jobs);
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
static int check_steps(json_t *obj, const struct fcr_state *st, size_t k, struct fcr_error *err)
{
	char rep[32] = "";
	if (st->repeat > 1)
		snprintf(rep, sizeof(rep), " repetition %zu", k);
	json_t *before = json_object_get(obj, "before"), *rounds = json_object_get(obj, "rounds");
	if (json_array_size(before) != st->n_actions || json_array_size(rounds) != st->rounds)
		return fcr_fail(err, "state %s%s has other actions or rounds than campaign.ini",
				st->name, rep);
	for (size_t r = 0; r < st->rounds; r++) {
		json_t *ro = json_array_get(rounds, r);
		if (!fcr_jstr(ro, "status") ||
		    json_array_size(json_object_get(ro, "tests")) != st->n_tests)
			return fcr_fail(err, "state %s%s round %zu is malformed", st->name, rep,
					r + 1);
	}
	for (size_t ai = 0; ai < st->n_actions; ai++) {
		if (!fcr_jstr(json_array_get(before, ai), "status"))
			return fcr_fail(err, "state %s%s action %zu is malformed", st->name, rep,
					ai + 1);
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
			if (check_steps(fcr_manifest_rep(s, k), st, k, err) < 0)
				return -1;
		}
	}
	if (c->prefill && !json_is_object(json_object_get(m, "prefill")))
		return fcr_fail(err, "the manifest lacks the prefill step");
	return 0;
}
