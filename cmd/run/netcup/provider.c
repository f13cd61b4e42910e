/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider: the actions of a campaign's `before` lists turned into
 * calls of the SCP client (netcup.h), its events turned into journal lines,
 * its results into the manifest's `result` and `task` objects.
 *
 * Which snapshots "this campaign created" is kept here: those made by a
 * finished `snapshot` action, less those deleted since.  A resumed campaign
 * rebuilds the list in preflight() from the manifest's earlier actions; a
 * `snapshot` that was cut short may or may not have been made, so it is
 * adopted when it exists and deleted by `all-created` when it does.
 */
#include "netcup/provider.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "netcup/netcup.h"
#include "fcr.h"

#define MAX_SNAPSHOT_NAME 255

static const struct fcr_provider_action netcup_actions[] = {
    {"power-off", 0, 1, true, false, "power-off [hard]"},
    {"power-on", 0, 0, false, true, "power-on"},
    {"reboot", 0, 0, true, true, "reboot"},
    {"snapshot", 1, 4, false, false, "snapshot NAME [online|offline] [disk DISK]"},
    {"delete-snapshot", 1, 1, false, false, "delete-snapshot NAME|all-created"},
    {"revert", 1, 1, true, true, "revert NAME"},
    {.name = NULL},
};

struct ncp {
	struct fcr_provider_ctx ctx;
	bool have_ctx;
	char *file;	    /* the campaign file, for messages */
	unsigned line;	    /* [provider]'s type line */
	unsigned key_line;  /* token-file's line; 0 when not given */
	char *token_file;   /* expanded; NULL: the environment variable */
	bool token_default; /* token_file is the default path */
	char *api_url, *auth_url;
	struct fcr_netcup_config cfg;
	struct fcr_netcup *nc;
	bool safety;	     /* only a second Ctrl-C stops a wait */
	const char *current; /* the action being performed, for events */

	struct cm_strv created; /* made by this campaign, not deleted since */
	struct cm_strv maybe;   /* started, outcome unknown: adopted or deleted if there */
	struct cm_strv adopt;   /* started by an earlier session: an existing one is ours */
	struct cm_strv dry;     /* --dry-run: what the plan will have created */
};

/* ---- small helpers ------------------------------------------------------ */

char *fcr_netcup_expand_home(const char *path)
{
	if (path[0] != '~' || (path[1] != '/' && path[1] != '\0'))
		return cm_strdup(path);
	const char *home = getenv("HOME");
	if (!home || !home[0])
		return NULL;
	return cm_asprintf("%s%s", home, path + 1);
}

/* Snapshot names: what the API takes in a path without surprises. */
static int check_snapshot_name(const char *name, struct fcr_error *err)
{
	size_t n = strlen(name);
	if (n == 0 || n > MAX_SNAPSHOT_NAME)
		return fcr_fail(err, "a snapshot name has 1 to %d characters", MAX_SNAPSHOT_NAME);
	if (!fcr_name_is_safe(name))
		return fcr_fail(err,
				"snapshot name '%s': use letters, digits, '.', '_' and '-' only",
				name);
	if (!strcmp(name, "all-created"))
		return fcr_fail(err, "'all-created' is no snapshot name: delete-snapshot "
				     "all-created means every snapshot this campaign made");
	return 0;
}

static bool disk_name_ok(const char *disk)
{
	size_t n = strlen(disk);
	if (n == 0 || n > 31)
		return false;
	for (const char *p = disk; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	}
	return true;
}

struct snap_args {
	const char *name;
	bool online;
	const char *disk;
};

/* snapshot NAME [online|offline] [disk DISK], in any order after NAME.
 * Offline by default: it works with UEFI too (see docs/netcup.md). */
static int parse_snapshot_args(int argc, char *const *argv, struct snap_args *out,
			       struct fcr_error *err)
{
	memset(out, 0, sizeof(*out));
	out->name = argv[0];
	if (check_snapshot_name(argv[0], err) < 0)
		return -1;
	bool mode_given = false;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "online") || !strcmp(w, "offline")) {
			if (mode_given)
				return fcr_fail(err, "online or offline, once");
			mode_given = true;
			out->online = !strcmp(w, "online");
		} else if (!strcmp(w, "disk")) {
			if (out->disk || i + 1 >= argc)
				return fcr_fail(err, "'disk' wants one disk name, once (disk vda)");
			out->disk = argv[++i];
			if (!disk_name_ok(out->disk))
				return fcr_fail(err, "bad disk name '%s' (like vda)", out->disk);
		} else {
			return fcr_fail(err,
					"unexpected '%s' (usage: snapshot NAME [online|offline] "
					"[disk DISK])",
					w);
		}
	}
	if (out->online && out->disk)
		return fcr_fail(err,
				"an online snapshot covers all disks (the API refuses diskName "
				"with it): drop 'disk %s' or make it offline",
				out->disk);
	return 0;
}

static char *action_text(const char *action, int argc, char *const *argv)
{
	struct cm_buf b = {0};
	cm_buf_puts(&b, action);
	for (int i = 0; i < argc; i++) {
		cm_buf_puts(&b, " ");
		cm_buf_puts(&b, argv[i]);
	}
	return cm_buf_take(&b);
}

/* ---- callbacks of the SCP client ----------------------------------------- */

static void on_event(void *opaque, const char *type, json_t *fields)
{
	struct ncp *p = opaque;
	if (!p->have_ctx || !p->ctx.journal)
		return;
	/* fields are borrowed: a shallow copy shares (and keeps) the values */
	json_t *e = json_copy(fields);
	if (!e)
		return;
	json_object_set_new(e, "event", json_string(type));
	json_object_set_new(e, "provider", json_string("netcup"));
	/* "action" is taken (token events); "during" names what we were doing */
	if (p->current)
		json_object_set_new(e, "during", json_string(p->current));
	p->ctx.journal(p->ctx.opaque, e);
}

static bool on_should_stop(void *opaque)
{
	struct ncp *p = opaque;
	if (!p->have_ctx)
		return false;
	volatile int *flag = p->safety ? p->ctx.hard_stop : p->ctx.stop;
	return flag && *flag;
}

static void note(struct ncp *p, const char *level, const char *fmt, ...) CM_PRINTF(3, 4);

static void note(struct ncp *p, const char *level, const char *fmt, ...)
{
	if (!p->have_ctx || !p->ctx.note)
		return;
	char msg[1400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->ctx.note(p->ctx.opaque, level, msg);
}

/* ---- configuration -------------------------------------------------------- */

struct duration_key {
	const char *key;
	size_t offset; /* of the unsigned field in struct fcr_netcup_config */
};

static const struct duration_key duration_keys[] = {
    {"task-timeout", offsetof(struct fcr_netcup_config, task_timeout_ms)},
    {"poll-interval", offsetof(struct fcr_netcup_config, poll_interval_ms)},
    {"http-timeout", offsetof(struct fcr_netcup_config, http_timeout_ms)},
    {"lock-wait", offsetof(struct fcr_netcup_config, lock_wait_ms)},
    {"retry-wait", offsetof(struct fcr_netcup_config, transport_wait_ms)},
    {"unavailable-wait", offsetof(struct fcr_netcup_config, unavailable_wait_ms)},
};

#define KNOWN_KEYS                                                                                 \
	"server-id, token-file, api-url, auth-url, task-timeout, poll-interval, http-timeout, "    \
	"lock-wait, retry-wait, unavailable-wait"

static void ncp_free(void *state)
{
	struct ncp *p = state;
	if (!p)
		return;
	fcr_netcup_free(p->nc);
	free(p->file);
	free(p->token_file);
	free(p->api_url);
	free(p->auth_url);
	cm_strv_release(&p->created);
	cm_strv_release(&p->maybe);
	cm_strv_release(&p->adopt);
	cm_strv_release(&p->dry);
	free(p);
}

static void key_error(struct cm_strv *problems, const struct fcr_provider_key *k, const char *fmt,
		      ...) CM_PRINTF(3, 4);

static void key_error(struct cm_strv *problems, const struct fcr_provider_key *k, const char *fmt,
		      ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = cm_vasprintf(fmt, ap);
	va_end(ap);
	cm_strv_addf(problems, "%s:%u: %s", k->file, k->line, msg);
	free(msg);
}

static void read_key(struct ncp *p, const struct fcr_provider_key *k, struct cm_strv *errs,
		     bool *have_id)
{
	char why[600];
	if (!strcmp(k->key, "server-id")) {
		char *end = NULL;
		long long v = strtoll(k->value, &end, 10);
		if (!k->value[0] || *end || v < 1 || v > INT_MAX) {
			key_error(errs, k,
				  "server-id '%s' is not a netcup server id (a number from 1 to "
				  "%d: the one the SCP shows for the server)",
				  k->value, INT_MAX);
			return;
		}
		p->cfg.server_id = (long)v;
		*have_id = true;
		return;
	}
	if (!strcmp(k->key, "token-file")) {
		if (!k->value[0]) {
			key_error(errs, k, "token-file is empty");
			return;
		}
		char *path = fcr_netcup_expand_home(k->value);
		if (!path) {
			key_error(errs, k, "token-file '%s': HOME is not set", k->value);
			return;
		}
		free(p->token_file);
		p->token_file = path;
		p->key_line = k->line;
		return;
	}
	if (!strcmp(k->key, "api-url") || !strcmp(k->key, "auth-url")) {
		if (fcr_url_check(k->value, k->key, why, sizeof(why)) < 0) {
			key_error(errs, k, "%s", why);
			return;
		}
		char **dst = !strcmp(k->key, "api-url") ? &p->api_url : &p->auth_url;
		free(*dst);
		*dst = cm_strdup(k->value);
		return;
	}
	for (size_t i = 0; i < CM_ARRAY_SIZE(duration_keys); i++) {
		if (strcmp(k->key, duration_keys[i].key))
			continue;
		uint64_t ms;
		struct fcr_error err;
		if (cm_parse_duration_ms(k->value, &ms, err.msg, sizeof(err.msg)) < 0) {
			key_error(errs, k, "%s: %s", k->key, err.msg);
			return;
		}
		if (ms == 0 || ms > 24ull * 3600 * 1000) {
			key_error(errs, k, "%s: '%s' must be more than 0 and at most 1d", k->key,
				  k->value);
			return;
		}
		unsigned *field = (unsigned *)((char *)&p->cfg + duration_keys[i].offset);
		*field = (unsigned)ms;
		return;
	}
	key_error(errs, k, "unknown key '%s' for provider netcup (known: " KNOWN_KEYS ")", k->key);
}

static int ncp_configure(const struct fcr_provider_section *sec, const struct fcr_provider_ctx *ctx,
			 void **state, struct cm_strv *problems)
{
	struct ncp *p = cm_calloc(1, sizeof(*p));
	size_t n_before = problems->n;
	bool have_id = false;
	*state = NULL;
	fcr_netcup_config_init(&p->cfg);
	p->file = cm_strdup(sec->file);
	p->line = sec->line;
	for (size_t i = 0; i < sec->n_keys; i++)
		read_key(p, &sec->keys[i], problems, &have_id);
	if (!have_id && problems->n == n_before)
		cm_strv_addf(problems,
			     "%s:%u: provider netcup needs server-id (the number the SCP shows "
			     "for the server)",
			     sec->file, sec->line);
	if (problems->n > n_before) {
		ncp_free(p);
		return -1;
	}
	if (p->cfg.http_timeout_ms < p->cfg.connect_timeout_ms)
		p->cfg.connect_timeout_ms = p->cfg.http_timeout_ms;
	/* the token: token-file, else the environment, else the default file
	 * (without HOME there is none: connect() says so) */
	const char *env = getenv(FCR_NETCUP_TOKEN_ENV);
	if (!p->token_file && !(env && env[0])) {
		p->token_file = fcr_netcup_expand_home(FCR_NETCUP_TOKEN_FILE_DEFAULT);
		p->token_default = true;
	}
	if (ctx) {
		p->ctx = *ctx;
		p->have_ctx = true;
	}
	p->cfg.api_url = p->api_url;
	p->cfg.auth_url = p->auth_url;
	p->cfg.token_file = p->token_file;
	p->cfg.event = on_event;
	p->cfg.should_stop = on_should_stop;
	p->cfg.ctx = p;
	*state = p;
	return 0;
}

static int ncp_check_args(const char *action, int argc, char *const *argv,
			  struct fcr_error *err)
{
	if (!strcmp(action, "power-off")) {
		if (argc == 1 && strcmp(argv[0], "hard"))
			return fcr_fail(err, "unexpected '%s' (usage: power-off [hard])", argv[0]);
		return 0;
	}
	if (!strcmp(action, "snapshot")) {
		struct snap_args a;
		return parse_snapshot_args(argc, argv, &a, err);
	}
	if (!strcmp(action, "delete-snapshot") && !strcmp(argv[0], "all-created"))
		return 0;
	if (!strcmp(action, "delete-snapshot") || !strcmp(action, "revert"))
		return check_snapshot_name(argv[0], err);
	return 0;
}

static int ncp_connect(void *state, struct fcr_error *err)
{
	struct ncp *p = state;
	struct fcr_error e = {0};
	if (p->nc)
		return 0;
	if (p->token_default && !p->token_file)
		return fcr_fail(err,
				"%s:%u: no token-file in [provider], no " FCR_NETCUP_TOKEN_ENV
				", and no HOME for the default " FCR_NETCUP_TOKEN_FILE_DEFAULT,
				p->file, p->line);
	int rc = fcr_netcup_new(&p->cfg, &p->nc, &e);
	if (rc == 0) {
		/*
		 * Read once; children (fio, ssh, `run` commands) never inherit it.
		 * The value is also wiped where it lies: /proc/PID/environ shows the
		 * original block, and a child shows it until it calls exec.
		 */
		char *v = getenv(FCR_NETCUP_TOKEN_ENV);
		if (v)
			explicit_bzero(v, strlen(v));
		unsetenv(FCR_NETCUP_TOKEN_ENV);
		return 0;
	}
	if (rc == FCR_E_TOKEN && p->key_line)
		return fcr_fail_as(err, rc, "%s:%u: %s", p->file, p->key_line, e.msg);
	if (rc == FCR_E_TOKEN && p->token_default)
		return fcr_fail_as(err, rc,
				   "%s:%u: no token-file in [provider] and no " FCR_NETCUP_TOKEN_ENV
				   ", so the default: %s",
				   p->file, p->line, e.msg);
	return fcr_fail_as(err, rc, "%s:%u: %s", p->file, p->line, e.msg);
}

/* ---- results ------------------------------------------------------------- */

static json_t *utc_or_raw(double s, const char *raw)
{
	if (isfinite(s)) {
		char buf[40];
		cm_format_utc(buf, sizeof(buf), s);
		return json_string(buf);
	}
	return raw[0] ? json_string(raw) : json_null();
}

static json_t *task_json(const struct fcr_netcup_task *t)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(t->name[0] ? t->name : "?"));
	json_object_set_new(o, "uuid", json_string(t->uuid));
	json_object_set_new(o, "state", t->state[0] ? json_string(t->state) : json_null());
	json_object_set_new(o, "started", utc_or_raw(t->started_s, t->started_at));
	json_object_set_new(o, "finished", utc_or_raw(t->finished_s, t->finished_at));
	json_object_set_new(o, "duration_s",
			    isfinite(t->duration_s) ? json_real(round(t->duration_s * 1000) / 1000)
						    : json_null());
	json_object_set_new(o, "polls", json_integer(t->polls));
	if (t->message[0] && strcmp(t->state, "FINISHED"))
		json_object_set_new(o, "message", json_string(t->message));
	return o;
}

/* The tasks an action ran, gathered over one or more client calls. */
struct tasks {
	struct fcr_netcup_task *v;
	size_t n;
	unsigned retries;
	bool recovered;
};

static void tasks_add(struct tasks *t, const struct fcr_netcup_result *res)
{
	if (!res->n_tasks && !res->retries && !res->recovered)
		return;
	t->v = cm_realloc(t->v, t->n + res->n_tasks + 1, sizeof(*t->v));
	for (unsigned i = 0; i < res->n_tasks; i++)
		t->v[t->n++] = res->tasks[i];
	t->retries += res->retries;
	t->recovered |= res->recovered;
}

/*
 * "task": the one task, or for several one summary (names joined by " + ",
 * the first start, the last end, the sum of the provider's own durations),
 * so that readers of `task` see every action alike; "tasks": each of them.
 */
static void tasks_put(json_t *result, struct tasks *t)
{
	if (t->retries)
		json_object_set_new(result, "retries", json_integer(t->retries));
	if (t->recovered)
		json_object_set_new(result, "recovered", json_true());
	if (t->n == 1) {
		json_object_set_new(result, "task", task_json(&t->v[0]));
	} else if (t->n > 1) {
		struct cm_buf names = {0};
		double sum = 0;
		bool all = true;
		json_t *list = json_array();
		for (size_t i = 0; i < t->n; i++) {
			cm_buf_printf(&names, "%s%s", i ? " + " : "", t->v[i].name);
			if (isfinite(t->v[i].duration_s))
				sum += t->v[i].duration_s;
			else
				all = false;
			json_array_append_new(list, task_json(&t->v[i]));
		}
		const struct fcr_netcup_task *first = &t->v[0], *last = &t->v[t->n - 1];
		json_t *o = json_object();
		json_object_set_new(o, "name", json_string(names.s));
		json_object_set_new(o, "state",
				    last->state[0] ? json_string(last->state) : json_null());
		json_object_set_new(o, "started", utc_or_raw(first->started_s, first->started_at));
		json_object_set_new(o, "finished", utc_or_raw(last->finished_s, last->finished_at));
		json_object_set_new(o, "duration_s",
				    all ? json_real(round(sum * 1000) / 1000) : json_null());
		json_object_set_new(o, "count", json_integer((json_int_t)t->n));
		json_object_set_new(result, "task", o);
		json_object_set_new(result, "tasks", list);
		cm_buf_release(&names);
	}
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

/* Failures after which a snapshot may exist although the action failed. */
static bool may_have_created(int rc)
{
	return rc == FCR_E_TRANSPORT || rc == FCR_E_TASK || rc == FCR_E_TIMEOUT ||
	       rc == FCR_E_STOPPED || rc == FCR_E_PROTOCOL;
}

/* The client's error as the action's, said for the user. */
static int action_failed(struct fcr_error *err, const struct fcr_error *e, int rc)
{
	if (rc == FCR_E_STOPPED)
		return fcr_fail_as(err, rc, "stopped (Ctrl-C) while waiting for the API: %s",
				   e->msg);
	return fcr_fail_as(err, rc, "%s", e->msg[0] ? e->msg : fcr_status_text(rc));
}

/* ---- actions --------------------------------------------------------------- */

static int do_snapshot(struct ncp *p, int argc, char *const *argv, json_t *result,
		       struct tasks *tasks, struct fcr_error *e)
{
	struct snap_args a;
	if (parse_snapshot_args(argc, argv, &a, e) < 0)
		return e->code = FCR_E_INVAL;
	struct fcr_netcup_snapshot_opts o = {
	    .name = a.name,
	    .online = a.online,
	    .disk = a.disk,
	    .description = "fiocamp",
	    .adopt_existing = cm_strv_has(&p->adopt, a.name),
	};
	json_object_set_new(result, "snapshot", json_string(a.name));
	json_object_set_new(result, "online", json_boolean(a.online));
	json_object_set_new(result, "disk", a.disk ? json_string(a.disk) : json_null());
	struct fcr_netcup_result res;
	int rc = fcr_netcup_snapshot_create(p->nc, &o, &res, e);
	tasks_add(tasks, &res);
	if (rc == 0) {
		cm_strv_del(&p->adopt, a.name);
		cm_strv_del(&p->maybe, a.name);
		cm_strv_add_once(&p->created, a.name);
		json_object_set_new(result, "created", json_true());
		if (res.already)
			json_object_set_new(result, "adopted", json_true());
		return 0;
	}
	if (may_have_created(rc)) {
		cm_strv_add_once(&p->maybe, a.name);
		json_object_set_new(result, "created", json_null());
	} else {
		json_object_set_new(result, "created", json_false());
	}
	return rc;
}

/* Deletes one snapshot; one that is gone already counts as deleted. */
static int delete_one(struct ncp *p, const char *name, json_t *deleted, json_t *gone,
		      struct tasks *tasks, struct fcr_error *e)
{
	struct fcr_netcup_result res;
	int rc = fcr_netcup_snapshot_delete(p->nc, name, &res, e);
	tasks_add(tasks, &res);
	if (rc == FCR_E_NOT_FOUND) {
		json_array_append_new(gone, json_string(name));
		note(p, "info", "snapshot %s was gone already: counted as deleted", name);
		rc = 0;
	} else if (rc == 0) {
		json_array_append_new(deleted, json_string(name));
	}
	if (rc == 0) {
		cm_strv_del(&p->created, name);
		cm_strv_del(&p->maybe, name);
	}
	return rc;
}

static int do_delete(struct ncp *p, const char *what, json_t *result, struct tasks *tasks,
		     struct fcr_error *e)
{
	json_t *deleted = json_array(), *gone = json_array();
	int rc = 0;
	if (strcmp(what, "all-created")) {
		json_object_set_new(result, "snapshot", json_string(what));
		rc = delete_one(p, what, deleted, gone, tasks, e);
	} else {
		struct cm_strv names = {0};
		for (size_t i = 0; i < p->created.n; i++)
			cm_strv_add_once(&names, p->created.v[i]);
		for (size_t i = 0; i < p->maybe.n; i++)
			cm_strv_add_once(&names, p->maybe.v[i]);
		for (size_t i = 0; i < names.n && rc == 0; i++)
			rc = delete_one(p, names.v[i], deleted, gone, tasks, e);
		cm_strv_release(&names);
	}
	json_object_set_new(result, "deleted", deleted);
	json_object_set_new(result, "already_gone", gone);
	return rc;
}

static int ncp_perform(void *state, const char *action, int argc, char *const *argv, json_t *result,
		       struct fcr_error *err)
{
	struct ncp *p = state;
	struct fcr_error e = {0};
	struct fcr_netcup_result res;
	struct tasks tasks = {0};
	int rc;
	if (!p->nc) {
		return fcr_fail(err, "netcup: not connected");
	}
	char *text = action_text(action, argc, argv);
	p->current = text;
	if (!strcmp(action, "power-off")) {
		rc = fcr_netcup_power_off(p->nc, argc == 1, &res, &e);
		tasks_add(&tasks, &res);
		json_object_set_new(result, "already", json_boolean(rc == 0 && res.already));
		if (rc == 0)
			json_object_set_new(result, "server_state", json_string("SHUTOFF"));
	} else if (!strcmp(action, "power-on")) {
		rc = fcr_netcup_power_on(p->nc, &res, &e);
		tasks_add(&tasks, &res);
		json_object_set_new(result, "already", json_boolean(rc == 0 && res.already));
		if (rc == 0)
			json_object_set_new(result, "server_state", json_string("RUNNING"));
	} else if (!strcmp(action, "reboot")) {
		rc = fcr_netcup_reboot(p->nc, FCR_NETCUP_REBOOT_GRACEFUL, &res, &e);
		tasks_add(&tasks, &res);
		if (rc == 0)
			json_object_set_new(result, "server_state", json_string("RUNNING"));
	} else if (!strcmp(action, "snapshot")) {
		rc = do_snapshot(p, argc, argv, result, &tasks, &e);
	} else if (!strcmp(action, "delete-snapshot")) {
		rc = do_delete(p, argv[0], result, &tasks, &e);
	} else if (!strcmp(action, "revert")) {
		json_object_set_new(result, "snapshot", json_string(argv[0]));
		rc = fcr_netcup_snapshot_revert(p->nc, argv[0], &res, &e);
		tasks_add(&tasks, &res);
		if (rc == 0)
			json_object_set_new(result, "server_state", json_string("RUNNING"));
	} else {
		rc = FCR_E_INVAL;
		snprintf(e.msg, sizeof(e.msg), "netcup has no action '%s'", action);
	}
	tasks_put(result, &tasks);
	p->current = NULL;
	free(text);
	if (rc < 0)
		return action_failed(err, &e, rc);
	return 0;
}

static int ncp_ensure_powered_on(void *state, json_t *result, struct fcr_error *err)
{
	struct ncp *p = state;
	struct fcr_error e = {0};
	struct fcr_netcup_result res;
	struct tasks tasks = {0};
	if (!p->nc) {
		return fcr_fail(err, "netcup: not connected");
	}
	p->safety = true;
	p->current = "ensure-powered-on";
	int rc = fcr_netcup_power_on(p->nc, &res, &e);
	tasks_add(&tasks, &res);
	json_object_set_new(result, "already", json_boolean(rc == 0 && res.already));
	tasks_put(result, &tasks);
	if (rc < 0)
		action_failed(err, &e, rc);
	/* what the API says now, whatever happened */
	struct fcr_netcup_server s;
	struct fcr_error e2 = {0};
	if (fcr_netcup_get_server(p->nc, &s, &e2) == 0 && s.live_info)
		json_object_set_new(result, "server_state", json_string(s.state));
	else
		json_object_set_new(result, "server_state", json_null());
	p->current = NULL;
	p->safety = false;
	return rc < 0 ? -1 : 0;
}

/* ---- preflight --------------------------------------------------------------- */

static bool status_is(const char *status, const char *want)
{
	return status && !strcmp(status, want);
}

/*
 * What earlier sessions did (a resumed campaign), and the plan of what is
 * left, in campaign order.  `sim` is the set of our snapshots as the plan
 * goes, for expanding delete-snapshot all-created.
 */
static void build_plan(struct ncp *p, const struct fcr_provider_step *steps, size_t n,
		       struct cm_strv *store, struct fcr_netcup_plan_step **out, size_t *n_out)
{
	struct cm_strv sim = {0};
	struct fcr_netcup_plan_step *plan = NULL;
	size_t np = 0;
	for (size_t i = 0; i < n; i++) {
		const struct fcr_provider_step *st = &steps[i];
		bool done = status_is(st->status, "done");
		bool started = st->status && !done && !status_is(st->status, "pending");
		const char *name = st->argc ? st->argv[0] : NULL;
		if (!strcmp(st->action, "snapshot")) {
			struct snap_args a;
			if (parse_snapshot_args(st->argc, st->argv, &a, NULL) < 0)
				continue;
			json_t *created = json_object_get(st->result, "created");
			cm_strv_add_once(&sim, name);
			if (done) {
				cm_strv_add_once(&p->created, name);
				cm_strv_del(&p->maybe, name);
				continue;
			}
			/* cut short: it runs again, and takes a snapshot that is there
			 * as its own unless the API had refused it */
			if (started && json_is_true(created))
				cm_strv_add_once(&p->created, name);
			else if (started && !json_is_false(created))
				cm_strv_add_once(&p->maybe, name);
			if (started && !json_is_false(created))
				cm_strv_add_once(&p->adopt, name);
			plan = cm_realloc(plan, np + 1, sizeof(*plan));
			plan[np++] = (struct fcr_netcup_plan_step){
			    .kind = FCR_NETCUP_PLAN_SNAPSHOT,
			    .name = name,
			    .online = a.online,
			    .disk = a.disk,
			    .resumed = cm_strv_has(&p->adopt, name),
			};
		} else if (!strcmp(st->action, "delete-snapshot")) {
			bool all = !strcmp(name, "all-created");
			if (done) {
				if (all) {
					cm_strv_release(&p->created);
					cm_strv_release(&p->maybe);
					cm_strv_release(&sim);
				} else {
					cm_strv_del(&p->created, name);
					cm_strv_del(&p->maybe, name);
					cm_strv_del(&sim, name);
				}
				continue;
			}
			for (size_t k = 0; k < (all ? sim.n : 1); k++) {
				const char *nm = all ? sim.v[k] : name;
				/* a copy that lives as long as the plan (sim's do not) */
				cm_strv_add(store, nm);
				plan = cm_realloc(plan, np + 1, sizeof(*plan));
				plan[np++] = (struct fcr_netcup_plan_step){
				    .kind = FCR_NETCUP_PLAN_DELETE,
				    .name = store->v[store->n - 1],
				    /* ours, and gone already: counts as deleted */
				    .resumed = started || cm_strv_has(&p->maybe, nm) ||
					       cm_strv_has(&p->created, nm),
				};
			}
			if (all)
				cm_strv_release(&sim);
			else
				cm_strv_del(&sim, name);
		} else if (!strcmp(st->action, "revert") && !done) {
			plan = cm_realloc(plan, np + 1, sizeof(*plan));
			plan[np++] =
			    (struct fcr_netcup_plan_step){.kind = FCR_NETCUP_PLAN_REVERT, .name = name};
		}
	}
	cm_strv_release(&sim);
	*out = plan;
	*n_out = np;
}

static int ncp_preflight(void *state, const struct fcr_provider_step *steps, size_t n_steps,
			 struct fcr_error *err)
{
	struct ncp *p = state;
	if (!p->nc) {
		return fcr_fail(err, "netcup: not connected");
	}
	struct fcr_netcup_plan_step *ps = NULL;
	size_t nps = 0;
	struct cm_strv store = {0};
	build_plan(p, steps, n_steps, &store, &ps, &nps);
	if (p->created.n || p->maybe.n) {
		struct cm_buf b = {0};
		for (size_t i = 0; i < p->created.n; i++)
			cm_buf_printf(&b, "%s%s", b.len ? ", " : "", p->created.v[i]);
		for (size_t i = 0; i < p->maybe.n; i++)
			cm_buf_printf(&b, "%s%s (maybe)", b.len ? ", " : "", p->maybe.v[i]);
		note(p, "info", "snapshots this campaign made in earlier runs: %s", b.s);
		cm_buf_release(&b);
	}
	struct fcr_netcup_plan plan = {.steps = ps, .n_steps = nps};
	struct fcr_netcup_findings f = {0};
	struct fcr_error e = {0};
	p->current = "preflight";
	int rc = fcr_netcup_preflight(p->nc, &plan, &f, NULL, &e);
	p->current = NULL;
	for (size_t i = 0; i < f.n; i++) {
		const struct fcr_netcup_finding *x = &f.items[i];
		const char *level = x->level == FCR_NETCUP_PROBLEM	 ? "problem"
				    : x->level == FCR_NETCUP_WARNING ? "warning"
								 : "info";
		note(p, level, "%s", x->message);
	}
	if (rc == FCR_E_PREFLIGHT)
		fcr_fail_as(err, rc,
			    "the netcup preflight found %zu problem%s (listed above); nothing was "
			    "changed",
			    f.n_problems, f.n_problems == 1 ? "" : "s");
	else if (rc < 0)
		fcr_fail_as(err, rc, "the netcup preflight could not check: %s", e.msg);
	fcr_netcup_findings_free(&f);
	free(ps);
	cm_strv_release(&store);
	return rc < 0 ? -1 : 0;
}

/* ---- --dry-run --------------------------------------------------------------- */

static void describe_poll(const struct ncp *p, struct cm_buf *b, const char *until)
{
	char poll[32], limit[32];
	cm_format_duration(poll, sizeof(poll), p->cfg.poll_interval_ms);
	cm_format_duration(limit, sizeof(limit), p->cfg.task_timeout_ms);
	cm_buf_printf(b,
		  "GET /api/v1/tasks/{uuid} every %s until FINISHED (ERROR, CANCELED, "
		  "ROLLBACK: the action fails; at most %s)\n",
		  poll, limit);
	if (until)
		cm_buf_printf(b, "GET /api/v1/servers/%ld every %s until %s\n", p->cfg.server_id, poll,
			  until);
}

static void describe_power(const struct ncp *p, struct cm_buf *b, bool on, bool hard)
{
	long id = p->cfg.server_id;
	cm_buf_printf(b, "GET /api/v1/servers/%ld: nothing more when it is %s already\n", id,
		  on ? "RUNNING" : "SHUTOFF");
	if (on)
		cm_buf_printf(b, "PATCH /api/v1/servers/%ld {\"state\":\"ON\"} -> 202 + task\n", id);
	else if (hard)
		cm_buf_printf(b,
			  "PATCH /api/v1/servers/%ld?stateOption=POWEROFF {\"state\":\"OFF\"} "
			  "(hard power-off) -> 202 + task\n",
			  id);
	else
		cm_buf_printf(b,
			  "PATCH /api/v1/servers/%ld {\"state\":\"OFF\"} (ACPI shutdown) -> 202 + "
			  "task\n",
			  id);
	describe_poll(p, b, on ? "RUNNING" : "SHUTOFF");
}

static char *ncp_describe(void *state, const char *action, int argc, char *const *argv)
{
	struct ncp *p = state;
	struct cm_buf b = {0};
	long id = p->cfg.server_id;
	if (!action) {
		if (p->token_file)
			cm_buf_printf(&b, "refresh token from %s%s (refused unless mode 0600)\n",
				  p->token_file, p->token_default ? " (the default)" : "");
		else if (p->token_default)
			cm_buf_printf(&b, "refresh token: none (no token-file, no $" FCR_NETCUP_TOKEN_ENV
				      ", no HOME)\n");
		else
			cm_buf_printf(&b, "refresh token from $" FCR_NETCUP_TOKEN_ENV "\n");
		cm_buf_printf(&b,
			  "POST %s/protocol/openid-connect/token (grant_type=refresh_token): an "
			  "access token\n",
			  p->auth_url ? p->auth_url : FCR_NETCUP_DEFAULT_AUTH_URL);
		cm_buf_printf(&b,
			  "GET /api/v1/servers/%ld: it exists, its state, UEFI, snapshotAllowed, "
			  "disks\n",
			  id);
		cm_buf_printf(&b, "GET /api/v1/servers/%ld/snapshots: names taken, names to delete\n",
			  id);
		cm_buf_printf(&b,
			  "POST /api/v1/servers/%ld/snapshots:dryrun once per kind of snapshot "
			  "planned\n",
			  id);
		cm_buf_printf(&b,
			  "(API base %s; a 409 server.lock.error on a write is retried every "
			  "%.1fs)\n",
			  p->api_url ? p->api_url : FCR_NETCUP_DEFAULT_API_URL,
			  p->cfg.lock_wait_ms / 1000.0);
		return cm_buf_take(&b);
	}
	if (!strcmp(action, "power-off")) {
		describe_power(p, &b, false, argc == 1);
	} else if (!strcmp(action, "power-on")) {
		describe_power(p, &b, true, false);
	} else if (!strcmp(action, "reboot")) {
		cm_buf_printf(&b, "a graceful reboot: the power-off, then the power-on (two tasks)\n");
		describe_power(p, &b, false, false);
		cm_buf_printf(&b, "PATCH /api/v1/servers/%ld {\"state\":\"ON\"} -> 202 + task\n", id);
		describe_poll(p, &b, "RUNNING");
	} else if (!strcmp(action, "snapshot")) {
		struct snap_args a;
		if (parse_snapshot_args(argc, argv, &a, NULL) < 0) {
			cm_buf_release(&b);
			return NULL;
		}
		cm_buf_printf(&b,
			  "POST /api/v1/servers/%ld/snapshots "
			  "{\"name\":\"%s\",\"onlineSnapshot\":%s%s%s%s"
			  ",\"description\":\"fiocamp\"} -> 202 + task\n",
			  id, a.name, a.online ? "true" : "false", a.disk ? ",\"diskName\":\"" : "",
			  a.disk ? a.disk : "", a.disk ? "\"" : "");
		describe_poll(p, &b, NULL);
		if (!a.online)
			cm_buf_printf(&b, "(offline: take it with the server powered off)\n");
		cm_strv_add_once(&p->dry, a.name);
	} else if (!strcmp(action, "delete-snapshot")) {
		struct cm_strv names = {0};
		if (!strcmp(argv[0], "all-created")) {
			for (size_t i = 0; i < p->dry.n; i++)
				cm_strv_add(&names, p->dry.v[i]);
			if (!names.n)
				cm_buf_printf(&b, "no snapshot is made before this: nothing to delete "
					      "(besides any an earlier run made)\n");
			else
				cm_buf_printf(&b,
					  "the snapshots this campaign made (%zu in the plan)\n",
					  names.n);
			cm_strv_release(&p->dry);
		} else {
			cm_strv_add(&names, argv[0]);
			cm_strv_del(&p->dry, argv[0]);
		}
		for (size_t i = 0; i < names.n; i++) {
			cm_buf_printf(
			    &b,
			    "DELETE /api/v1/servers/%ld/snapshots/%s -> 202 + task (404: gone "
			    "already, counts as deleted)\n",
			    id, names.v[i]);
			describe_poll(p, &b, NULL);
		}
		cm_strv_release(&names);
	} else if (!strcmp(action, "revert")) {
		cm_buf_printf(&b,
			  "POST /api/v1/servers/%ld/snapshots/%s/revert (empty body) -> 202 + "
			  "task: netcup powers the server off, reverts the disk and starts it\n",
			  id, argv[0]);
		describe_poll(p, &b, "RUNNING");
	}
	if (!b.len) {
		cm_buf_release(&b);
		return NULL;
	}
	return cm_buf_take(&b);
}

const struct fcr_provider fcr_netcup_provider = {
    .type = "netcup",
    .summary = "netcup SCP REST API: power, snapshots, reboot, revert (docs/netcup.md)",
    .actions = netcup_actions,
    .configure = ncp_configure,
    .check_args = ncp_check_args,
    .describe = ncp_describe,
    .connect = ncp_connect,
    .preflight = ncp_preflight,
    .perform = ncp_perform,
    .ensure_powered_on = ncp_ensure_powered_on,
    .free = ncp_free,
};
