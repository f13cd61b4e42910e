/* SPDX-License-Identifier: MIT */
/*
 * The manifest written in parts (record.h): which objects of it are steps
 * ("units": the manifest itself, each state, repetition, action, round and
 * variant), their places, the "manifest" events that carry the ones that
 * changed, and those events applied again on resume.
 *
 * A unit's own members are those that are not its child units' lists
 * ("states", "repetitions", "before", "rounds", "variants"); an event's op
 * {"at": PATH, "keep": [those lists], "members": {...}} replaces them.
 * PATH is the unit's place: member names and array indices from the
 * manifest's top.
 */
#include <stdio.h>
#include <string.h>

#include "record/record.h"

/* The lists of child units an object of each kind has. */
static const char *const top_kids[] = {"states", "variants", NULL};
static const char *const state_kids[] = {"repetitions", "before", "rounds", "variants", NULL};
static const char *const variant_kids[] = {"before", NULL};
static const char *const no_kids[] = {NULL};

static void index_key(const json_t *obj, char *buf, size_t len)
{
	snprintf(buf, len, "%p", (const void *)obj);
}

static json_t *kids_json(const char *const *kids)
{
	json_t *a = json_array();
	for (; *kids; kids++)
		json_array_append_new(a, json_string(*kids));
	return a;
}

static void add_unit(json_t *index, const json_t *obj, json_t *path, const char *const *kids)
{
	char key[32];
	index_key(obj, key, sizeof(key));
	json_object_set_new(index, key,
			    json_pack("{s:o, s:o}", "path", path, "keep", kids_json(kids)));
}

/* path + [member, i] (a new reference). */
static json_t *below(const json_t *path, const char *member, size_t i)
{
	json_t *p = json_copy((json_t *)path);
	json_array_append_new(p, json_string(member));
	json_array_append_new(p, json_integer((json_int_t)i));
	return p;
}

static void add_list(json_t *index, json_t *parent, const json_t *path, const char *member,
		     const char *const *kids)
{
	json_t *list = json_object_get(parent, member);
	size_t i;
	json_t *o;
	json_array_foreach(list, i, o) {
		if (json_is_object(o))
			add_unit(index, o, below(path, member, i), kids);
	}
}

/* A state or one of its repetitions, and what it holds. */
static void add_steps(json_t *index, json_t *obj, const json_t *path)
{
	add_list(index, obj, path, "before", no_kids);
	add_list(index, obj, path, "rounds", no_kids);
	json_t *vs = json_object_get(obj, "variants");
	size_t i;
	json_t *v;
	json_array_foreach(vs, i, v) {
		json_t *vp = below(path, "variants", i);
		add_unit(index, v, json_incref(vp), variant_kids);
		add_list(index, v, vp, "before", no_kids);
		json_decref(vp);
	}
}

json_t *fcr_record_index(json_t *m)
{
	json_t *index = json_object();
	json_t *top = json_array();
	add_unit(index, m, json_incref(top), top_kids);
	/* the campaign's variants: small, each with its prefill */
	add_list(index, m, top, "variants", no_kids);
	json_t *states = json_object_get(m, "states");
	size_t i;
	json_t *s;
	json_array_foreach(states, i, s) {
		json_t *sp = below(top, "states", i);
		add_unit(index, s, json_incref(sp), state_kids);
		add_steps(index, s, sp);
		json_t *reps = json_object_get(s, "repetitions");
		size_t k;
		json_t *r;
		json_array_foreach(reps, k, r) {
			json_t *rp = below(sp, "repetitions", k);
			add_unit(index, r, json_incref(rp), state_kids);
			add_steps(index, r, rp);
			json_decref(rp);
		}
		json_decref(sp);
	}
	json_decref(top);
	return index;
}

json_t *fcr_record_index_get(json_t *index, const json_t *obj)
{
	char key[32];
	index_key(obj, key, sizeof(key));
	return json_object_get(index, key);
}

/* Members a whole rewrite sets: never in an op, never removed by one. */
static bool rewrite_stamp(const char *key)
{
	return !strcmp(key, "updated") || !strcmp(key, "patch_seq");
}

static bool kept(json_t *keep, const char *key)
{
	size_t i;
	json_t *k;
	json_array_foreach(keep, i, k) {
		if (!strcmp(json_string_value(k), key))
			return true;
	}
	return false;
}

json_t *fcr_record_op(json_t *entry, const json_t *obj)
{
	json_t *keep = json_object_get(entry, "keep");
	json_t *members = json_object();
	const char *k;
	json_t *v;
	json_object_foreach((json_t *)obj, k, v) {
		if (!kept(keep, k) && !rewrite_stamp(k))
			json_object_set(members, k, v);
	}
	return json_pack("{s:O, s:O, s:o}", "at", json_object_get(entry, "path"), "keep", keep,
			 "members", members);
}

/* The object at path from m (borrowed), or NULL. */
static json_t *resolve(json_t *m, json_t *path)
{
	json_t *o = m;
	size_t i;
	json_t *step;
	json_array_foreach(path, i, step) {
		if (json_is_string(step))
			o = json_object_get(o, json_string_value(step));
		else if (json_is_integer(step))
			o = json_array_get(o, (size_t)json_integer_value(step));
		else
			return NULL;
		if (!o)
			return NULL;
	}
	return json_is_object(o) ? o : NULL;
}

int fcr_record_apply_op(json_t *m, json_t *op, struct fcr_error *err)
{
	json_t *target = resolve(m, json_object_get(op, "at"));
	json_t *keep = json_object_get(op, "keep"), *members = json_object_get(op, "members");
	if (!target || !json_is_array(keep) || !json_is_object(members)) {
		char *at = json_dumps(json_object_get(op, "at"), JSON_COMPACT);
		int rc = fcr_fail(err,
				  "a manifest event of the journal names %s, which is no step of "
				  "the manifest",
				  at ? at : "nothing");
		free(at);
		return rc;
	}
	const char *k;
	json_t *v;
	void *tmp;
	json_object_foreach_safe(target, tmp, k, v) {
		if (!kept(keep, k) && !json_object_get(members, k) && !rewrite_stamp(k))
			json_object_del(target, k);
	}
	json_object_update(target, members);
	return 0;
}

bool fcr_record_same(json_t *a, json_t *b)
{
	/* the rewrite's stamps aside */
	json_t *x = json_copy(a), *y = json_copy(b);
	json_object_del(x, "updated");
	json_object_del(x, "patch_seq");
	json_object_del(y, "updated");
	json_object_del(y, "patch_seq");
	bool same = json_equal(x, y);
	json_decref(x);
	json_decref(y);
	return same;
}
