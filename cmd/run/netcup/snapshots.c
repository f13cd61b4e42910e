/* SPDX-License-Identifier: MIT */
/* Snapshots: create, delete, revert, and the API's dry-run; findings. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcup/internal.h"

/* ---- snapshots ----------------------------------------------------------- */

struct snap_want {
	const char *name;
	bool present;
};

static int observe_snapshot(struct fcr_netcup *nc, const void *arg, bool *done, json_t *seen,
			    struct fcr_error *err)
{
	const struct snap_want *sw = arg;
	bool exists;
	int rc = fcr_netcup_snapshot_exists(nc, sw->name, &exists, err);
	if (rc < 0)
		return rc;
	*done = exists == sw->present;
	if (seen)
		json_object_set_new(seen, "exists", json_boolean(exists));
	return 0;
}

static int check_name(const char *name, struct fcr_error *err)
{
	if (!name || !name[0])
		return fcr_fail_as(err, FCR_E_INVAL, "a snapshot needs a name");
	size_t chars = 0;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if ((*p & 0xc0) != 0x80)
			chars++;
		if (*p < 0x20 || *p == 0x7f)
			return fcr_fail_as(err, FCR_E_INVAL,
					   "snapshot name \"%s\" contains a control character",
					   name);
	}
	if (chars > 255)
		return fcr_fail_as(err, FCR_E_INVAL,
				   "snapshot name is %zu characters long; the API allows 255",
				   chars);
	return 0;
}

/* "/api/v1/servers/{id}/snapshots/{escaped name}{suffix}", heap. */
static char *snapshot_path(struct fcr_netcup *nc, const char *name, const char *suffix)
{
	char *esc = fcr_url_escape(name);
	char *p = cm_asprintf("/api/v1/servers/%ld/snapshots/%s%s", nc->cfg.server_id, esc, suffix);
	free(esc);
	return p;
}

static int snapshot_create(struct fcr_netcup *nc, const struct fcr_netcup_snapshot_opts *o,
			   struct fcr_netcup_result *res, struct fcr_error *err)
{
	int rc = check_name(o->name, err);
	if (rc < 0)
		return rc;
	struct snap_want want = {o->name, true};
	if (o->adopt_existing) {
		bool exists;
		rc = fcr_netcup_snapshot_exists(nc, o->name, &exists, err);
		if (rc < 0)
			return rc;
		if (exists) {
			/* its task is the one an earlier session's write of it started,
			 * by its uuid (the preflight waited for it), never one found by
			 * its name */
			res->already = true;
			char *what = cm_asprintf("snapshot %s", o->name);
			rc = fcr_netcup_adopt_earlier(nc, what, "ServerSnapshotCreateTask", res,
						      err);
			free(what);
			return rc < 0 ? rc : 0;
		}
	}
	json_t *body = json_pack("{s:s, s:b}", "name", o->name, "onlineSnapshot", o->online);
	if (body && o->disk)
		json_object_set_new(body, "diskName", json_string(o->disk));
	if (body && o->description)
		json_object_set_new(body, "description", json_string(o->description));
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(body);
	char path[96];
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots", nc->cfg.server_id);
	if (!text)
		cm_die("out of memory");
	char *what = cm_asprintf("snapshot %s", o->name);
	struct fcr_netcup_write w = {
	    .call = {.method = "POST",
		     .path = path,
		     .content_type = "application/json",
		     .body = text,
		     .write = true},
	    .what = what,
	    .task_name = "ServerSnapshotCreateTask",
	    .observe = observe_snapshot,
	    .arg = &want,
	};
	rc = fcr_netcup_write(nc, &w, res, err);
	free(text);
	free(what);
	return rc;
}

int fcr_netcup_snapshot_create(struct fcr_netcup *nc, const struct fcr_netcup_snapshot_opts *opts,
			       struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	return fcr_netcup_result_end(res, t0, snapshot_create(nc, opts, res, err));
}

static int snapshot_delete(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	int rc = check_name(name, err);
	if (rc < 0)
		return rc;
	char *path = snapshot_path(nc, name, "");
	char *what = cm_asprintf("delete-snapshot %s", name);
	struct snap_want want = {name, false};
	struct fcr_netcup_write w = {
	    /* no body, so no Content-Type: the recorded live DELETE had none */
	    .call = {.method = "DELETE", .path = path, .write = true},
	    .what = what,
	    .task_name = "ServerSnapshotDeleteTask",
	    .observe = observe_snapshot,
	    .arg = &want,
	};
	rc = fcr_netcup_write(nc, &w, res, err);
	free(path);
	free(what);
	return rc;
}

int fcr_netcup_snapshot_delete(struct fcr_netcup *nc, const char *name,
			       struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	return fcr_netcup_result_end(res, t0, snapshot_delete(nc, name, res, err));
}

static int snapshot_revert(struct fcr_netcup *nc, const char *name, struct fcr_netcup_result *res,
			   struct fcr_error *err)
{
	int rc = check_name(name, err);
	if (rc < 0)
		return rc;
	char *path = snapshot_path(nc, name, "/revert");
	char *what = cm_asprintf("revert %s", name);
	struct fcr_netcup_write w = {
	    /* bodiless, but the API wants a Content-Type on every POST */
	    .call = {.method = "POST",
		     .path = path,
		     .content_type = "application/json",
		     .body = "",
		     .write = true},
	    .what = what,
	    .task_name = "ServerSnapshotRevertTask",
	};
	rc = fcr_netcup_write(nc, &w, res, err);
	free(path);
	free(what);
	if (rc < 0)
		return rc;
	return fcr_netcup_wait_state(nc, "RUNNING", err);
}

int fcr_netcup_snapshot_revert(struct fcr_netcup *nc, const char *name,
			       struct fcr_netcup_result *res, struct fcr_error *err)
{
	double t0 = fcr_netcup_result_begin(res);
	return fcr_netcup_result_end(res, t0, snapshot_revert(nc, name, res, err));
}

/* ---- dry-run and findings ------------------------------------------------- */

void fcr_netcup_finding(struct fcr_netcup_findings *f, enum fcr_netcup_level level,
			const char *code, const char *fmt, ...)
{
	struct fcr_netcup_finding *x = CM_PUSH(f->items, f->n, f->cap);
	x->level = level;
	snprintf(x->code, sizeof(x->code), "%s", code ? code : "");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->message, sizeof(x->message), fmt, ap);
	va_end(ap);
	if (level == FCR_NETCUP_PROBLEM)
		f->n_problems++;
	else if (level == FCR_NETCUP_WARNING)
		f->n_warnings++;
}

void fcr_netcup_findings_free(struct fcr_netcup_findings *f)
{
	free(f->items);
	memset(f, 0, sizeof(*f));
}

int fcr_netcup_snapshot_dryrun(struct fcr_netcup *nc, bool online, const char *disk, bool *possible,
			       struct fcr_netcup_findings *f, struct fcr_error *err)
{
	char path[96];
	*possible = false;
	snprintf(path, sizeof(path), "/api/v1/servers/%ld/snapshots:dryrun", nc->cfg.server_id);
	json_t *body = json_pack("{s:b}", "onlineSnapshot", online);
	if (body && disk)
		json_object_set_new(body, "diskName", json_string(disk));
	char *text = body ? json_dumps(body, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(body);
	if (!text)
		cm_die("out of memory");
	/* A check without side effects: retried like a GET. */
	struct fcr_api_call c = {
	    .method = "POST", .path = path, .content_type = "application/json", .body = text};
	struct fcr_reply r;
	int rc = fcr_api_request(&nc->scp, &c, &r, err);
	free(text);
	if (rc < 0)
		return rc;
	if ((r.status != 200 && r.status != 400) || !json_is_array(r.json)) {
		rc = fcr_api_error(err, &c, &r);
		fcr_reply_clear(&r);
		return rc;
	}
	size_t i;
	json_t *e;
	json_array_foreach(r.json, i, e) {
		const char *ec = json_string_value(json_object_get(e, "code"));
		const char *em = json_string_value(json_object_get(e, "message"));
		fcr_netcup_finding(f, FCR_NETCUP_PROBLEM, ec,
				   "the API's dry-run of an %s snapshot%s%s says: %s",
				   online ? "online" : "offline", disk ? " of disk " : "",
				   disk ? disk : "", em ? em : (ec ? ec : "?"));
	}
	*possible = r.status == 200 && json_array_size(r.json) == 0;
	fcr_reply_clear(&r);
	return 0;
}
