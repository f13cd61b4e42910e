/* SPDX-License-Identifier: MIT */
/*
 * A campaign directory through its manifest.json (docs/campaign-directory.md):
 * each run the manifest lists with its identity and its logs, each state's
 * transition with its repetitions and actions; what the manifest marks as not
 * done is rejected or counted as not run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/telemetry.h"
#include "read/read.h"

static double num_or_nan(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Text from a manifest, as valid UTF-8 (jansson checks what it loads, but
 * the manifest is not the only way in). */
static char *str_or_null(const json_t *v)
{
	return json_is_string(v) ? cm_utf8_dup(json_string_value(v)) : NULL;
}

/* Manifest paths are relative and stay inside the campaign directory. */
bool an_safe_rel_path(const char *p)
{
	if (!p[0] || p[0] == '/')
		return false;
	const char *s = p;
	while (*s) {
		const char *slash = strchr(s, '/');
		size_t len = slash ? (size_t)(slash - s) : strlen(s);
		if (len == 2 && s[0] == '.' && s[1] == '.')
			return false;
		if (!slash)
			break;
		s = slash + 1;
	}
	return true;
}

static char *steady_text(const json_t *st);

/* Data back computed from the actions when the manifest has no
 * data_back_s: the downtime plus the actions from the wait-ssh up to the
 * verify-hash that matched.  NaN without them. */
static double data_back_s(const struct an_action *acts, size_t n)
{
	for (size_t w = 0; w < n; w++) {
		if (!isfinite(acts[w].downtime_s))
			continue;
		double s = acts[w].downtime_s;
		for (size_t k = w + 1; k < n; k++) {
			if (!isfinite(acts[k].duration_s))
				break;
			s += acts[k].duration_s;
			if (acts[k].hash_match >= 0)
				return acts[k].hash_match ? s : NAN;
		}
	}
	return NAN;
}

/* The actions of one repetition (of a state without `repeat`: the state's
 * own `before`), appended to the transition's. */
static void manifest_rep(struct an_transition *tr, size_t *cap, size_t *cap_reps, const json_t *obj,
			 int repetition)
{
	struct an_rep *rep = CM_PUSH(tr->reps, tr->n_reps, *cap_reps);
	size_t rep_index = tr->n_reps - 1;
	rep->repetition = repetition;
	rep->status = str_or_null(json_object_get(obj, "status"));
	rep->downtime_s = num_or_nan(json_object_get(obj, "downtime_s"));
	rep->downtime_cut = json_is_true(json_object_get(obj, "downtime_cut"));
	rep->data_back_cut = json_is_true(json_object_get(obj, "data_back_cut"));
	const json_t *steady = json_object_get(obj, "steady");
	if (json_is_object(steady)) {
		char *text = json_dumps(steady, JSON_COMPACT);
		rep->steady_json = text ? cm_strdup(text) : NULL;
		free(text);
		rep->steady_text = steady_text(steady);
	}
	rep->first_action = tr->n_actions;
	const json_t *before = json_object_get(obj, "before");
	size_t i;
	const json_t *act;
	json_array_foreach(before, i, act) {
		if (!json_is_object(act))
			continue;
		struct an_action *ac = CM_PUSH(tr->actions, tr->n_actions, *cap);
		ac->rep = rep_index;
		ac->index = tr->n_actions - rep->first_action;
		ac->action = str_or_null(json_object_get(act, "action"));
		ac->text = str_or_null(json_object_get(act, "text"));
		ac->status = str_or_null(json_object_get(act, "status"));
		ac->error = str_or_null(json_object_get(act, "error"));
		ac->duration_s = num_or_nan(json_object_get(act, "duration_s"));
		ac->downtime_s = num_or_nan(json_object_get(act, "downtime_s"));
		ac->cut = json_is_true(json_object_get(act, "cut"));
		ac->task_duration_s = NAN;
		ac->hash_match = -1;
		/* verify-hash: the data's checksum against the one taken before */
		const json_t *match = json_object_get(json_object_get(act, "result"), "match");
		if (json_is_boolean(match)) {
			ac->hash_match = json_is_true(match) ? 1 : 0;
			rep->hash_checks++;
			rep->hash_matched += ac->hash_match == 1;
		}
		const json_t *task = json_object_get(act, "task");
		if (json_is_object(task)) {
			ac->task_name = str_or_null(json_object_get(task, "name"));
			if (!ac->task_name)
				ac->task_name = cm_strdup("task");
			ac->task_duration_s = num_or_nan(json_object_get(task, "duration_s"));
			ac->clock = str_or_null(json_object_get(task, "clock"));
			/* an action that ran several tasks (reboot) sums them up */
			json_int_t count = json_integer_value(json_object_get(task, "count"));
			ac->n_tasks = count > 0 ? (size_t)count : 1;
		}
	}
	rep->n_actions = tr->n_actions - rep->first_action;
	tr->hash_checks += rep->hash_checks;
	tr->hash_matched += rep->hash_matched;
	/* The controller's data back when it wrote one (null included: nothing
	 * took the machine away, or no verify-hash matched); else the same
	 * measure from the actions, for manifests written before it. */
	const json_t *back = json_object_get(obj, "data_back_s");
	rep->data_back_recorded = back != NULL;
	/* a transition without actions has no array to point into */
	rep->data_back_s = back ? num_or_nan(back)
			   : !rep->n_actions
			       ? NAN
			       : data_back_s(tr->actions + rep->first_action, rep->n_actions);
}

/* ", " after what b holds past start. */
static const char *sep_after(const struct cm_buf *b, size_t start)
{
	return b->len > start ? ", " : "";
}

/* "vm, kernel 6.1.0, 2 CPUs, 3.8 GiB; target ssh root@vps" from an
 * object's host facts and target, appended to b. */
static void host_facts(struct cm_buf *b, const json_t *root, const char *target_sep)
{
	const json_t *host = json_object_get(root, "host");
	const char *name = json_string_value(json_object_get(host, "hostname"));
	const char *kernel = json_string_value(json_object_get(host, "kernel"));
	const json_t *cpus = json_object_get(host, "cpus");
	const json_t *mem = json_object_get(host, "mem_kib");
	const char *target = json_string_value(json_object_get(root, "target"));
	size_t start = b->len;
	if (name)
		cm_buf_puts(b, name);
	if (kernel)
		cm_buf_printf(b, "%skernel %s", sep_after(b, start), kernel);
	if (json_is_integer(cpus))
		cm_buf_printf(b, "%s%lld CPUs", sep_after(b, start),
			      (long long)json_integer_value(cpus));
	if (json_is_integer(mem))
		cm_buf_printf(b, "%s%.1f GiB", sep_after(b, start),
			      (double)json_integer_value(mem) / (1024.0 * 1024.0));
	if (target)
		cm_buf_printf(b, "%starget %s", b->len > start ? target_sep : "", target);
}

/* The manifest's host facts for the report, one line; of each host of a
 * campaign of several at once (mode = aggregate: "hosts"), each named;
 * NULL when it has none. */
static char *manifest_host(const json_t *root)
{
	struct cm_buf b = {NULL, 0, 0};
	const json_t *hosts = json_object_get(root, "hosts");
	if (json_is_array(hosts) && !json_object_get(root, "host")) {
		size_t i;
		const json_t *h;
		json_array_foreach(hosts, i, h) {
			const char *name = json_string_value(json_object_get(h, "name"));
			if (!name)
				continue;
			cm_buf_printf(&b, "%s%s: ", b.len ? "; " : "", name);
			size_t at = b.len;
			host_facts(&b, h, ", ");
			if (b.len == at)
				cm_buf_puts(&b, "?");
		}
	} else {
		host_facts(&b, root, "; ");
	}
	if (!b.len)
		return NULL;
	char *clean = cm_utf8_dup(b.s);
	cm_buf_release(&b);
	return clean;
}

/* "steal above 5 %, foreign I/O off" from the manifest's thresholds
 * (settings.disturbed: shares, null for a criterion that is off); NULL
 * without them.  Caller frees. */
static char *disturbed_rule(const json_t *root)
{
	const json_t *th = json_object_get(json_object_get(root, "settings"), "disturbed");
	if (!json_is_object(th))
		return NULL;
	static const struct {
		const char *key, *name;
	} crit[] = {{"steal", "steal"}, {"foreign_io", "foreign I/O"}};
	struct cm_buf b = {NULL, 0, 0};
	for (size_t i = 0; i < CM_ARRAY_SIZE(crit); i++) {
		const json_t *v = json_object_get(th, crit[i].key);
		if (json_is_number(v))
			cm_buf_printf(&b, "%s%s above %g %%", b.len ? ", " : "", crit[i].name,
				      json_number_value(v) * 100.0);
		else if (json_is_null(v))
			cm_buf_printf(&b, "%s%s off", b.len ? ", " : "", crit[i].name);
	}
	return b.s;
}

static void env_field(struct an_env *e, const char *name, const char *value)
{
	if (!value || !value[0])
		return;
	struct an_env_field *f = CM_PUSH(e->fields, e->n_fields, e->cap_fields);
	f->name = cm_utf8_dup(name);
	f->value = cm_utf8_dup(value);
}

/* A member that is a string, or an integer with a unit after it ("128
 * KiB"); NULL otherwise (null: the capture could not read it).  In buf. */
static const char *env_value(const json_t *o, const char *key, const char *unit, char *buf,
			     size_t len)
{
	const json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		return json_string_value(v);
	if (!json_is_integer(v))
		return NULL;
	snprintf(buf, len, "%lld%s%s", (long long)json_integer_value(v), unit ? " " : "",
		 unit ? unit : "");
	return buf;
}

/* The fields of one capture that the analysis compares: the host's kernel,
 * fio, THP and governor; of each place its file system's type and mount
 * options and each device's scheduler, read-ahead, write cache and
 * nr_requests (a variant's place named after it). */
static void env_fields(struct an_env *e, const json_t *cap)
{
	char buf[64], name[160];
	const json_t *host = json_object_get(cap, "host");
	env_field(e, "kernel", env_value(host, "kernel", NULL, buf, sizeof(buf)));
	env_field(e, "fio", env_value(host, "fio_version", NULL, buf, sizeof(buf)));
	env_field(e, "THP", env_value(host, "thp", NULL, buf, sizeof(buf)));
	env_field(e, "governor", env_value(host, "governor", NULL, buf, sizeof(buf)));
	size_t i;
	const json_t *pl;
	json_array_foreach(json_object_get(cap, "places"), i, pl) {
		const char *variant = json_string_value(json_object_get(pl, "variant"));
		char of[96] = "";
		if (variant && cm_campaign_name_ok(variant))
			snprintf(of, sizeof(of), " (variant %s)", variant);
		const json_t *fs = json_object_get(pl, "filesystem");
		snprintf(name, sizeof(name), "file system%s", of);
		env_field(e, name, env_value(fs, "type", NULL, buf, sizeof(buf)));
		snprintf(name, sizeof(name), "mount options%s", of);
		env_field(e, name, env_value(fs, "options", NULL, buf, sizeof(buf)));
		static const struct {
			const char *key, *name, *unit;
		} dev[] = {{"scheduler", "scheduler", NULL},
			   {"read_ahead_kb", "read-ahead", "KiB"},
			   {"write_cache", "write cache", NULL},
			   {"nr_requests", "nr_requests", NULL}};
		size_t k;
		const json_t *d;
		json_array_foreach(json_object_get(pl, "devices"), k, d) {
			const char *dn = json_string_value(json_object_get(d, "name"));
			if (!dn || !dn[0] || strlen(dn) > 64)
				continue;
			for (size_t f = 0; f < CM_ARRAY_SIZE(dev); f++) {
				snprintf(name, sizeof(name), "%s %s%s", dn, dev[f].name, of);
				env_field(e, name,
					  env_value(d, dev[f].key, dev[f].unit, buf, sizeof(buf)));
			}
		}
	}
	struct cm_buf b = {NULL, 0, 0};
	for (size_t f = 0; f < e->n_fields; f++)
		cm_buf_printf(&b, "%s%s %s", f ? ", " : "", e->fields[f].name, e->fields[f].value);
	e->summary = b.s ? b.s : cm_strdup("nothing known");
}

/* The manifest's `environments`, each with its id (a capture without a
 * positive integer id is left out: nothing can name it). */
static void read_environments(struct an_analysis *a, size_t campaign, const json_t *root)
{
	size_t i;
	const json_t *cap;
	json_array_foreach(json_object_get(root, "environments"), i, cap) {
		const json_t *id = json_object_get(cap, "id");
		if (!json_is_object(cap) || !json_is_integer(id) || json_integer_value(id) < 1)
			continue;
		struct an_env *e = CM_PUSH(a->envs, a->n_envs, a->cap_envs);
		e->campaign = campaign;
		e->id = (long long)json_integer_value(id);
		e->where = str_or_null(json_object_get(cap, "where"));
		char *text = json_dumps(cap, JSON_COMPACT);
		e->json = text ? cm_strdup(text) : cm_strdup("null");
		free(text);
		env_fields(e, cap);
	}
}

/* The environment an object (a state, a repetition) names: its index into
 * a->envs; `fallback` when it names none or one that is not there. */
static size_t env_of(const struct an_analysis *a, size_t campaign, const json_t *obj,
		     size_t fallback)
{
	const json_t *id = json_object_get(obj, "environment");
	if (!json_is_integer(id))
		return fallback;
	for (size_t i = 0; i < a->n_envs; i++)
		if (a->envs[i].campaign == campaign && a->envs[i].id == json_integer_value(id))
			return i;
	return fallback;
}

/* A state's (a repetition's) steady verdict in words: "steady from round 6
 * (window 5)", "not steady over 10 rounds: rr4k range 34 %". */
static char *steady_text(const json_t *st)
{
	const json_t *round = json_object_get(st, "round");
	const json_t *window = json_object_get(st, "window");
	const json_t *rounds = json_object_get(st, "rounds");
	if (json_is_true(json_object_get(st, "reached")) && json_is_integer(round)) {
		if (json_is_integer(window))
			return cm_asprintf("steady from round %lld (window %lld)",
					   (long long)json_integer_value(round),
					   (long long)json_integer_value(window));
		return cm_asprintf("steady from round %lld", (long long)json_integer_value(round));
	}
	struct cm_buf b = {NULL, 0, 0};
	if (json_is_integer(rounds))
		cm_buf_printf(&b, "not steady over %lld rounds",
			      (long long)json_integer_value(rounds));
	else
		cm_buf_puts(&b, "not steady");
	size_t i;
	const json_t *t;
	json_array_foreach(json_object_get(st, "tests"), i, t) {
		const char *test = json_string_value(json_object_get(t, "test"));
		if (!test || json_is_true(json_object_get(t, "reached")))
			continue;
		const char *variant = json_string_value(json_object_get(t, "variant"));
		const json_t *range = json_object_get(t, "range");
		const json_t *slope = json_object_get(t, "slope");
		cm_buf_printf(&b, ": %s%s%s", test, variant ? " on " : "", variant ? variant : "");
		if (json_is_number(range) && json_number_value(range) > FC_STEADY_RANGE)
			cm_buf_printf(&b, " range %.0f %%", json_number_value(range) * 100.0);
		else if (json_is_number(slope))
			cm_buf_printf(&b, " slope %.0f %%", json_number_value(slope) * 100.0);
		else
			cm_buf_puts(&b, ", a round without a value");
		break;
	}
	char *clean = cm_utf8_dup(b.s);
	cm_buf_release(&b);
	return clean;
}

/* What the journal says of one step: the last session in which a state's
 * transition ended an action, or in which a round started. */
struct journal_step {
	char *state;
	int repetition; /* 0 in a state that does not repeat */
	int round;	/* 0: the transition */
	int session;
};

struct manifest_ctx {
	struct an_analysis *a;
	size_t in;
	size_t campaign;
	const char *dir;
	const char *group;
	int rep;    /* the repetition read (0: none) */
	size_t env; /* the environment of the state (repetition) read; SIZE_MAX */
	struct journal_step *steps;
	size_t n_steps, cap_steps;
};

/* The journal is a record for people and programs; one that is too large
 * to read is left unread (its sessions are then not known). */
#define JOURNAL_MAX_BYTES (256u << 20)

static struct journal_step *journal_find(struct manifest_ctx *m, const char *state, int rep,
					 int round)
{
	for (size_t i = 0; i < m->n_steps; i++) {
		struct journal_step *j = &m->steps[i];
		if (j->repetition == rep && j->round == round && strcmp(j->state, state) == 0)
			return j;
	}
	return NULL;
}

/*
 * The sessions of the campaign's transitions and rounds, from its journal
 * (docs/campaign-directory.md): the last action-end of each state's
 * transition, the last round-start of each round.  A campaign without a
 * journal, or a line that is no JSON (a session's cut last line), says
 * nothing.
 */
static void read_journal(struct manifest_ctx *m)
{
	char *path = an_path_join(m->dir, CM_CAMPAIGN_JOURNAL);
	char *buf = NULL, why[256];
	size_t len = 0;
	int rc = cm_read_file(path, JOURNAL_MAX_BYTES, &buf, &len, why, sizeof(why));
	free(path);
	if (rc < 0)
		return;
	for (char *line = buf; line < buf + len;) {
		char *end = memchr(line, '\n', (size_t)(buf + len - line));
		size_t n = end ? (size_t)(end - line) : (size_t)(buf + len - line);
		bool action = memmem(line, n, "\"action-end\"", 12) != NULL;
		bool round = !action && memmem(line, n, "\"round-start\"", 13) != NULL;
		json_t *e = action || round ? json_loadb(line, n, 0, NULL) : NULL;
		line += n + (end != NULL);
		const char *ev = json_string_value(json_object_get(e, "event"));
		const char *state = json_string_value(json_object_get(e, "state"));
		json_int_t session = json_integer_value(json_object_get(e, "session"));
		json_int_t rep = json_integer_value(json_object_get(e, "repetition"));
		json_int_t rn = round ? json_integer_value(json_object_get(e, "round")) : 0;
		bool ok = ev && state && session > 0 && session < INT32_MAX && rep >= 0 &&
			  rep <= CM_CAMPAIGN_REPEAT_MAX && rn >= 0 && rn <= 1000000 &&
			  strcmp(ev, action ? "action-end" : "round-start") == 0 && (action || rn);
		if (ok) {
			struct journal_step *j = journal_find(m, state, (int)rep, (int)rn);
			if (!j) {
				j = CM_PUSH(m->steps, m->n_steps, m->cap_steps);
				*j = (struct journal_step){cm_strdup(state), (int)rep, (int)rn, 0};
			}
			if (session > j->session)
				j->session = (int)session;
		}
		json_decref(e);
	}
	free(buf);
}

/*
 * A first round that ran in a later session than its transition (the
 * round cut by an interrupt, then run again by --resume without the
 * transition) is no first round after the transition: it is marked, and
 * the statistics take it as a later round.
 */
static void mark_resumed_first(struct manifest_ctx *m, struct an_run *r, const char *state,
			       int round, int rep_round)
{
	if ((rep_round ? rep_round : round) != 1)
		return;
	const struct journal_step *t = journal_find(m, state, m->rep, 0);
	const struct journal_step *s = journal_find(m, state, m->rep, 1);
	if (!t || !s || s->session <= t->session)
		return;
	r->resumed_first = true;
	char *rep = m->rep ? cm_asprintf(" repetition %d", m->rep) : cm_strdup("");
	an_note(m->a,
		"%s: state %s%s round 1 ran in session %d (after --resume), its transition in "
		"session %d: it is no first round after the transition and counts with the "
		"later rounds",
		r->path, state, rep, s->session, t->session);
	free(rep);
}

/* A run of the manifest's, at `path`, known by its identity: a rejected one
 * has a reason (and is listed, and counts against its variant's stability). */
static struct an_run *manifest_run(struct manifest_ctx *m, const char *path, const char *state,
				   int round, int rep_round, const char *test, const char *variant)
{
	struct an_run *r = an_run_add(m->a, m->in, path);
	r->source = AN_ID_MANIFEST;
	r->campaign = m->campaign;
	r->group = cm_strdup(m->group);
	r->id.state = cm_strdup(state);
	r->id.round = round;
	r->rep_round = rep_round;
	r->repetition = rep_round ? m->rep : 0;
	r->id.test = cm_strdup(test);
	if (variant)
		r->id.variant = cm_strdup(variant);
	r->env = m->env;
	return r;
}

/* "TEST@OPT=V,OPT=V" of a test entry's "point" (its options in the
 * sweep's order); NULL when the point is not an object of valid names with
 * string values.  Caller frees. */
static char *point_name(const json_t *t, const char *test)
{
	const json_t *point = json_object_get(t, "point");
	if (!json_is_object(point) || json_object_size(point) == 0)
		return NULL;
	struct cm_buf b = {NULL, 0, 0};
	cm_buf_printf(&b, "%s@", test);
	const char *k;
	const json_t *v;
	bool first = true;
	json_object_foreach((json_t *)point, k, v) {
		const char *val = json_string_value(v);
		if (!val || !cm_campaign_name_ok(k) || !cm_campaign_name_ok(val)) {
			cm_buf_release(&b);
			return NULL;
		}
		cm_buf_printf(&b, "%s%s=%s", first ? "" : ",", k, val);
		first = false;
	}
	return b.s;
}

/* What a test entry's telemetry summary says of the run: its steal and
 * foreign I/O shares, and why fiocamp-run called it disturbed (a reason
 * that is empty or no string says nothing). */
static void manifest_telemetry(struct an_run *r, const char *dir, const json_t *tm)
{
	if (!json_is_object(tm))
		return;
	r->steal = num_or_nan(json_object_get(tm, "steal"));
	r->foreign_io = num_or_nan(json_object_get(tm, "foreign_io"));
	const char *why = json_string_value(json_object_get(tm, "disturbed"));
	if (why && why[0])
		r->disturbed = cm_utf8_dup(why);
	const char *file = json_string_value(json_object_get(tm, "file"));
	if (file && an_safe_rel_path(file))
		r->telemetry_path = an_path_join(dir, file);
	const char *dev = json_string_value(json_object_get(tm, "device"));
	if (dev && dev[0] && strlen(dev) < CM_TM_DISK_NAME_MAX)
		r->telemetry_device = cm_strdup(dev);
}

/* The clients of fio's client/server mode the campaign ran the test with
 * (the test's "clients", else its round's): each the host it names and the
 * hostname and port fio reports for it.  An entry without a valid host
 * name or a hostname is left out. */
static void manifest_clients(struct an_run *r, const json_t *t, const json_t *jround)
{
	const json_t *list = json_object_get(t, "clients");
	if (!json_is_array(list))
		list = json_object_get(jround, "clients");
	size_t i, cap = 0;
	const json_t *c;
	json_array_foreach(list, i, c) {
		const char *host = json_string_value(json_object_get(c, "host"));
		const char *hostname = json_string_value(json_object_get(c, "hostname"));
		const json_t *port = json_object_get(c, "port");
		if (!host || !cm_campaign_name_ok(host) || !hostname || !hostname[0])
			continue;
		struct an_client_host *ch = CM_PUSH(r->clients, r->n_clients, cap);
		ch->host = cm_strdup(host);
		ch->hostname = cm_strdup(hostname);
		ch->port = json_is_integer(port) && json_integer_value(port) > 0 &&
				   json_integer_value(port) < 65536
			       ? (int)json_integer_value(port)
			       : 0;
	}
}

static void manifest_test(struct manifest_ctx *m, const char *state, int round, int rep_round,
			  const json_t *t, const json_t *jround)
{
	struct an_analysis *a = m->a;
	const char *dir = m->dir;
	const char *test = json_string_value(json_object_get(t, "test"));
	const char *status = json_string_value(json_object_get(t, "status"));
	const char *json = json_string_value(json_object_get(t, "json"));
	/* Variants within one campaign (backends, devices): the test's, else
	 * its round's "variant". */
	const json_t *jv = json_object_get(t, "variant");
	if (!json_is_string(jv))
		jv = json_object_get(jround, "variant");
	const char *variant = json_string_value(jv);
	if (!test || !cm_campaign_name_ok(test)) {
		an_note(a,
			"%s/" CM_CAMPAIGN_MANIFEST
			": state %s round %d: a test without a valid name, "
			"skipped",
			dir, state, round);
		return;
	}
	if (variant && !cm_campaign_name_ok(variant)) {
		an_note(a,
			"%s/" CM_CAMPAIGN_MANIFEST
			": state %s round %d test %s: a variant without a valid "
			"name, skipped",
			dir, state, round, test);
		return;
	}
	/* A sweep's point is part of the test: TEST@iodepth=16,numjobs=2, as
	 * its files are named. */
	char *pointed = NULL;
	if (json_object_get(t, "point")) {
		pointed = point_name(t, test);
		if (!pointed) {
			an_note(a,
				"%s/" CM_CAMPAIGN_MANIFEST
				": state %s round %d test %s: a point that is not an object of "
				"option names and values, skipped",
				dir, state, round, test);
			return;
		}
		test = pointed;
	}
	/* where its files would be (the round numbered on over a repeated
	 * state's repetitions) */
	char *stem = cm_campaign_run_stem(state, 0, (unsigned)round, NULL, test);
	char *label = cm_asprintf("%s/%s", dir, stem);
	free(stem);
	if (!status)
		status = CM_STATUS_DONE;
	if (cm_status_not_run(status)) {
		a->manifest_unfinished++;
		free(label);
		free(pointed);
		return;
	}
	if (!cm_status_is(status, CM_STATUS_DONE)) {
		char *where =
		    json && an_safe_rel_path(json) ? an_path_join(dir, json) : cm_strdup(label);
		struct an_run *r = manifest_run(m, where, state, round, rep_round, test, variant);
		const json_t *es = json_object_get(t, "exit_status");
		if (json_is_integer(es))
			r->reason =
			    cm_asprintf("the campaign marks this run %s (fio exit status %lld)",
					status, (long long)json_integer_value(es));
		else
			r->reason = cm_asprintf("the campaign marks this run %s", status);
		free(where);
		free(label);
		free(pointed);
		return;
	}
	if (!json) {
		manifest_run(m, label, state, round, rep_round, test, variant)->reason =
		    cm_strdup(CM_CAMPAIGN_MANIFEST " lists the run as done but names no JSON file");
		free(label);
		free(pointed);
		return;
	}
	if (!an_safe_rel_path(json)) {
		an_reject(a, label,
			  CM_CAMPAIGN_MANIFEST
			  " names \"%s\", which is not a path inside the campaign "
			  "directory",
			  json);
		free(label);
		free(pointed);
		return;
	}
	free(label);
	char *path = an_path_join(dir, json);
	struct an_run *r = manifest_run(m, path, state, round, rep_round, test, variant);
	free(path);
	mark_resumed_first(m, r, state, round, rep_round);
	manifest_telemetry(r, dir, json_object_get(t, "telemetry"));
	manifest_clients(r, t, jround);

	size_t i;
	const json_t *lg;
	json_array_foreach(json_object_get(t, "logs"), i, lg) {
		const char *rel = json_string_value(lg);
		if (!rel)
			continue;
		char *lpath = an_path_join(dir, rel);
		if (!an_safe_rel_path(rel)) {
			an_reject(a, lpath, "not a path inside the campaign directory");
			free(lpath);
			continue;
		}
		struct an_log_name ln;
		if (an_log_name_parse(lpath, &ln)) {
			an_run_add_log(r, lpath, &ln);
			an_log_name_free(&ln);
		} else {
			an_reject(a, lpath, "not a fio log name (expected PREFIX_TYPE.N.log)");
		}
		free(lpath);
	}
	free(pointed);
}

/*
 * The rounds of a state, or of one repetition of it (rep not NULL: its
 * files are under STATE/rep<k>/).  Its rounds are numbered from offset + 1
 * in the state; returns the highest number given, for the next repetition.
 */
static int manifest_rounds(struct manifest_ctx *m, const char *path, const char *name,
			   const int *rep, int offset, const json_t *rounds)
{
	int top = offset;
	size_t k;
	const json_t *jr;
	json_array_foreach(rounds, k, jr) {
		const json_t *rn = json_object_get(jr, "round");
		if (!json_is_integer(rn) || json_integer_value(rn) < 1 ||
		    json_integer_value(rn) > 1000000) {
			if (rep)
				an_note(m->a,
					"%s: state %s repetition %d: a round without a valid "
					"number, skipped",
					path, name, *rep);
			else
				an_note(m->a,
					"%s: state %s: a round without a valid number, skipped",
					path, name);
			continue;
		}
		int round = offset + (int)json_integer_value(rn);
		if (round > top)
			top = round;
		size_t t;
		const json_t *jt;
		json_array_foreach(json_object_get(jr, "tests"), t, jt) {
			if (json_is_object(jt))
				manifest_test(m, name, round, rep ? (int)json_integer_value(rn) : 0,
					      jt, jr);
		}
	}
	return top;
}

/* From a file, or from buf when it is not NULL (path then labels it).  A
 * fleet's host (group not NULL: its runs' group) is a campaign; else a
 * fleet manifest is read as the fleet's (fleet.c). */
static int read_manifest_from(struct an_analysis *a, size_t in, const char *dir, const char *path,
			      const char *buf, size_t len, const char *group, struct an_error *err)
{
	json_error_t je;
	json_t *root;
	if (buf) {
		root = json_loadb(buf, len, 0, &je);
	} else {
		FILE *f = fopen(path, "r");
		if (!f) {
			return an_fail(err, AN_E_INPUT, "%s: %s", path, strerror(errno));
		}
		root = json_loadf(f, 0, &je);
		fclose(f);
	}
	if (!root) {
		return an_fail(err, AN_E_INPUT, "%s:%d:%d: %s", path, je.line, je.column, je.text);
	}
	int rc = 0;
	const char *format = json_string_value(json_object_get(root, "format"));
	if (!group && format && strcmp(format, CM_FLEET_FORMAT) == 0) {
		rc = an_read_fleet(a, in, dir, path, root, err);
		goto out;
	}
	if (!json_is_object(root) || !format || strcmp(format, CM_MANIFEST_FORMAT) != 0) {
		rc = an_fail(err, AN_E_INPUT,
			     "%s: not a fiocamp manifest (\"format\" is not \"" CM_MANIFEST_FORMAT
			     "\")",
			     path);
		goto out;
	}
	const json_t *version = json_object_get(root, "version");
	if (!json_is_integer(version) || json_integer_value(version) != CM_MANIFEST_VERSION)
		an_note(a, "%s: manifest version is not %d; read as version %d", path,
			CM_MANIFEST_VERSION, CM_MANIFEST_VERSION);
	const json_t *states = json_object_get(root, "states");
	if (!json_is_array(states)) {
		rc = an_fail(err, AN_E_INPUT, "%s: \"states\" is missing or not an array", path);
		goto out;
	}
	struct an_campaign *c = CM_PUSH(a->campaigns, a->n_campaigns, a->cap_campaigns);
	c->manifest = cm_strdup(path);
	c->name = str_or_null(json_object_get(root, "campaign"));
	c->fio_version = str_or_null(json_object_get(root, "fio_version"));
	c->host = manifest_host(root);
	c->input = in;
	c->group =
	    group ? cm_strdup(group) : an_path_group(an_path_below(a->inputs[in].root, path), 0);
	/* "netcup", or an object with its "type" */
	const json_t *prov = json_object_get(root, "provider");
	if (json_is_object(prov))
		prov = json_object_get(prov, "type");
	c->provider = str_or_null(prov);
	c->disturbed_rule = disturbed_rule(root);
	struct manifest_ctx m = {a, in, a->n_campaigns - 1, dir, c->group, 0, SIZE_MAX, NULL, 0, 0};
	read_environments(a, m.campaign, root);
	if (!buf)
		read_journal(&m);

	size_t unfinished = a->manifest_unfinished;
	size_t i;
	const json_t *js;
	json_array_foreach(states, i, js) {
		const char *name = json_string_value(json_object_get(js, "name"));
		if (!name || !cm_campaign_name_ok(name)) {
			an_note(a, "%s: state %zu has no valid name, skipped", path, i + 1);
			continue;
		}
		size_t si = an_state_get(a, name);
		a->states[si].in_manifest = true;
		struct an_transition *tr = an_transition_get(a, si, m.campaign);
		/* the same state twice in one manifest: its runs are read, its
		 * transition is the first listing's */
		bool dup = tr->n_reps > 0;
		if (dup)
			an_note(a, "%s: state %s is listed twice; its first transition is used",
				path, name);
		else
			tr->status = str_or_null(json_object_get(js, "status"));
		const json_t *reps = json_object_get(js, "repetitions");
		const json_t *jrep = json_object_get(js, "repeat");
		if (!dup && jrep) {
			if (json_is_integer(jrep) && json_integer_value(jrep) >= 1 &&
			    json_integer_value(jrep) <= CM_CAMPAIGN_REPEAT_MAX)
				tr->repeat = (int)json_integer_value(jrep);
			else
				an_note(a,
					"%s: state %s: \"repeat\" is not a number 1..%d, read as 1",
					path, name, CM_CAMPAIGN_REPEAT_MAX);
		}
		size_t cap = 0, cap_reps = 0;
		m.env = env_of(a, m.campaign, js, SIZE_MAX);
		size_t state_env = m.env;
		if (!json_is_array(reps)) {
			if (!dup)
				manifest_rep(tr, &cap, &cap_reps, js, 1);
			manifest_rounds(&m, path, name, NULL, 0, json_object_get(js, "rounds"));
		} else {
			/* a repetition's rounds follow the earlier repetitions' in
			 * the state's round numbers */
			int offset = 0;
			size_t k;
			const json_t *jp;
			json_array_foreach(reps, k, jp) {
				if (k >= CM_CAMPAIGN_REPEAT_MAX) {
					an_note(
					    a,
					    "%s: state %s: more than %d repetitions; the rest are "
					    "not read",
					    path, name, CM_CAMPAIGN_REPEAT_MAX);
					break;
				}
				const json_t *kn = json_object_get(jp, "repetition");
				if (!json_is_object(jp) || !json_is_integer(kn) ||
				    json_integer_value(kn) < 1 ||
				    json_integer_value(kn) > CM_CAMPAIGN_REPEAT_MAX) {
					an_note(a,
						"%s: state %s: a repetition without a valid number "
						"(1..%d), skipped",
						path, name, CM_CAMPAIGN_REPEAT_MAX);
					continue;
				}
				int rk = (int)json_integer_value(kn);
				if (!dup)
					manifest_rep(tr, &cap, &cap_reps, jp, rk);
				m.rep = rk;
				m.env = env_of(a, m.campaign, jp, state_env);
				offset = manifest_rounds(&m, path, name, &rk, offset,
							 json_object_get(jp, "rounds"));
				m.rep = 0;
			}
		}
		m.env = SIZE_MAX;
		double *down = cm_calloc(tr->n_reps + 1, sizeof(*down));
		size_t n_down = 0;
		for (size_t k = 0; k < tr->n_reps; k++) {
			/* one cut by an interrupt is no sample */
			if (isfinite(tr->reps[k].downtime_s) && !tr->reps[k].downtime_cut)
				down[n_down++] = tr->reps[k].downtime_s;
		}
		tr->downtime_s = an_median(down, n_down);
		free(down);
	}
	unfinished = a->manifest_unfinished - unfinished;
	if (unfinished)
		an_note(a, "%s: %zu run(s) pending, running or skipped, not analyzed", path,
			unfinished);
	for (size_t k = 0; k < m.n_steps; k++)
		free(m.steps[k].state);
	free(m.steps);
out:
	json_decref(root);
	return rc;
}

int an_read_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path,
		     struct an_error *err)
{
	return read_manifest_from(a, in, dir, path, NULL, 0, NULL, err);
}

int an_read_campaign_manifest(struct an_analysis *a, size_t in, const char *dir, const char *path,
			      const char *group, struct an_error *err)
{
	return read_manifest_from(a, in, dir, path, NULL, 0, group, err);
}

int an_read_manifest_buffer(struct an_analysis *a, const char *dir, const char *label,
			    const char *buf, size_t len, struct an_error *err)
{
	if (a->n_inputs == 0)
		an_add_input(a, dir, NULL);
	return read_manifest_from(a, 0, dir, label, buf, len, NULL, err);
}
