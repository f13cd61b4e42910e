/* SPDX-License-Identifier: MIT */
/*
 * What the engine's files share about a session (session.h): the context an
 * action runs with, the marks of its events, its job files, and its
 * release.
 */
#include <math.h>

#include "engine/session.h"
#include "util/status.h"

json_t *fcr_session_at(const struct fcr_session *S, json_t *event)
{
	if (S->rep)
		json_object_set_new(event, "repetition", json_integer(S->rep));
	return event;
}

void fcr_session_cut_marks(json_t *obj, json_t *event)
{
	static const char *const marks[] = {"downtime_cut", "data_back_cut"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(marks); i++) {
		if (json_is_true(json_object_get(obj, marks[i])))
			json_object_set_new(event, marks[i], json_true());
	}
}

void fcr_session_failure(struct fcr_session *S, const char *what, const char *msg)
{
	fcr_record_event(&S->rec, "error",
			 json_pack("{s:s, s:o}", "step", what, "message", fcr_jtext(msg)));
}

void fcr_session_ctx(struct fcr_session *S, size_t si, const char *label,
		     struct fcr_action_ctx *ctx)
{
	*ctx = (struct fcr_action_ctx){
	    .c = S->c,
	    .target = &S->tgt,
	    .rec = S->journal_ready ? &S->rec : NULL,
	    .fio = &S->fio,
	    .provider = S->prov,
	    .stop = S->stop,
	    .hard_stop = S->hard_stop,
	    .state = &S->c->states[si],
	    .repetition = S->rep,
	    .label = label,
	    .down_wall = NAN,
	    .back_wall = NAN,
	};
}

int fcr_session_jobs(struct fcr_session *S, struct fcr_error *err)
{
	const struct fcr_campaign *c = S->c;
	S->fio.c = c;
	S->fio.target = &S->tgt;
	S->fio.rec = &S->rec;
	S->fio.stop = S->stop;
	bool need_prefill = c->prefill;
	for (size_t si = 0; si < c->n_states; si++) {
		for (size_t ai = 0; ai < c->states[si].n_actions; ai++)
			need_prefill |= c->states[si].actions[ai].def->prefill_job;
	}
	return fcr_fio_resolve_jobs(&S->fio, S->o->campaign_dir, S->o->jobs_dir, need_prefill, err);
}

void fcr_session_release(struct fcr_session *S)
{
	fcr_safety_end(S);
	fcr_aggregate_release(S);
	fcr_fio_release(&S->fio);
	fcr_target_release(&S->tgt);
	if (S->prov_ready)
		S->c->provider->free(S->prov);
	S->prov_ready = false;
	if (S->rec.dir)
		fcr_record_close(&S->rec);
	free(S->cdir);
}

json_int_t fcr_session_environment(struct fcr_session *S, json_t *obj, const char *where)
{
	/* in mode = aggregate each host's is in the manifest's "hosts" */
	if (S->agg)
		return 0;
	json_t *env = fcr_environment_capture(&S->tgt);
	json_t *list = json_object_get(S->rec.m, "environments");
	if (!json_is_array(list)) {
		list = json_array();
		json_object_set_new(S->rec.m, "environments", list);
	}
	json_t *last = json_array_get(list, json_array_size(list) - 1);
	json_int_t id;
	if (last && fcr_environment_same(last, env)) {
		json_decref(env);
		id = json_integer_value(json_object_get(last, "id"));
	} else {
		id = (json_int_t)json_array_size(list) + 1;
		json_t *e = json_pack("{s:I, s:o, s:s}", "id", id, "captured",
				      fcr_jutc(cm_wall_s()), "where", where);
		json_object_update(e, env);
		json_decref(env);
		json_array_append_new(list, e);
		last = e;
		fcr_record_touch(&S->rec, S->rec.m);
		json_t *ev = json_pack("{s:I, s:s, s:o}", "id", id, "where", where, "environment",
				       json_deep_copy(e));
		json_t *inner = json_object_get(ev, "environment");
		json_object_del(inner, "id");
		json_object_del(inner, "where");
		fcr_record_event(&S->rec, "environment", ev);
		if (id > 1)
			fcr_progress_line("%s: the environment differs from the last one: "
					  "environment %lld",
					  where, (long long)id);
	}
	S->fio.environment = last;
	if (obj) {
		json_object_set_new(obj, "environment", json_integer(id));
		fcr_record_touch(&S->rec, obj);
	}
	fcr_record_save(&S->rec);
	return id;
}

char *fcr_prefill_name(const struct fcr_variant *v)
{
	return v ? cm_asprintf("variant-%s", v->name) : cm_strdup("prefill");
}

void fcr_session_use_place(struct fcr_session *S, const struct fcr_variant *v, char *size,
			   size_t size_len)
{
	S->fio.file = v ? v->test_file : NULL;
	S->fio.size_bytes = v ? v->file_bytes : 0;
	if (v)
		cm_format_size(size, size_len, v->file_bytes);
	S->fio.size_text = v ? size : NULL;
	S->fio.variant = v ? v->name : NULL;
}

enum fcr_outcome fcr_session_prefill(struct fcr_session *S, const struct fcr_variant *v)
{
	const struct fcr_campaign *c = S->c;
	json_t *owner =
	    v ? json_array_get(json_object_get(S->rec.m, "variants"), (size_t)(v - c->variants))
	      : S->rec.m;
	json_t *prefill = json_object_get(owner, "prefill");
	if (!c->prefill || fcr_has_status(prefill, CM_STATUS_DONE))
		return FCR_DONE;
	char size[32], label[300];
	snprintf(label, sizeof(label), "prefill%s%s", v ? " of variant " : "", v ? v->name : "");
	char *name = fcr_prefill_name(v);
	fcr_session_use_place(S, v, size, sizeof(size));
	enum fcr_outcome result = fcr_fio_prefill(&S->fio, name, prefill, label);
	fcr_session_use_place(S, NULL, NULL, 0);
	free(name);
	fcr_record_touch(&S->rec, owner);
	fcr_record_save(&S->rec);
	return S->rec.failed ? FCR_FATAL : result;
}
