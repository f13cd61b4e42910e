/* SPDX-License-Identifier: MIT */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* More steps touched than this in one save: it is whole. */
#define FCR_RECORD_PART_MAX 256

static void sync_journal(struct fcr_record *r);

int fcr_record_open(struct fcr_record *r, const char *dir, struct fcr_error *err)
{
	memset(r, 0, sizeof(*r));
	r->journal_fd = -1;
	r->lock_fd = -1;
	/* a session's first save is whole: manifest.json holds what it began with */
	r->need_whole = true;
	const char *check = getenv("FIOCAMP_CHECK_MANIFEST");
	r->check = check && !strcmp(check, "1");
	if (fcr_record_lock(r, dir, err) < 0)
		return -1;
	r->mono0 = cm_mono_s();
	r->dir = cm_strdup(dir);
	r->manifest_path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, dir);
	char *path = cm_asprintf("%s/" CM_CAMPAIGN_JOURNAL, dir);
	r->journal_fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (r->journal_fd < 0) {
		fcr_fail_errno(err, errno, "%s: cannot open", path);
		free(path);
		return -1;
	}
	/* a line cut short by the end of an earlier session (a full disk, a
	 * crash) is ended, so that this session's first event is a line of its own */
	off_t size = lseek(r->journal_fd, 0, SEEK_END);
	char last = '\n';
	if (size > 0 && pread(r->journal_fd, &last, 1, size - 1) == 1 && last != '\n' &&
	    write(r->journal_fd, "\n", 1) != 1) {
		fcr_fail_errno(err, errno, "%s: cannot write", path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

void fcr_record_close(struct fcr_record *r)
{
	sync_journal(r);
	if (r->journal_fd >= 0)
		close(r->journal_fd);
	r->journal_fd = -1;
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	r->lock_fd = -1;
	json_decref(r->m);
	r->m = NULL;
	json_decref(r->index);
	json_decref(r->shadow);
	r->index = r->shadow = NULL;
	r->indexed = NULL;
	free(r->dirty);
	r->dirty = NULL;
	r->n_dirty = r->cap_dirty = 0;
	free(r->dir);
	free(r->manifest_path);
	r->dir = r->manifest_path = NULL;
}

/* One event line, written at once; its length (0 when it failed). */
static size_t write_event(struct fcr_record *r, const char *event, json_t *fields)
{
	json_t *e = json_object();
	json_object_set_new(e, "t", fcr_jutc(cm_wall_s()));
	json_object_set_new(e, "mono", json_real(round((cm_mono_s() - r->mono0) * 1e6) / 1e6));
	json_object_set_new(e, "session", json_integer(r->session));
	json_object_set_new(e, "event", json_string(event));
	if (fields) {
		json_object_update(e, fields);
		json_decref(fields);
	}
	char *line = json_dumps(e, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
				       JSON_REAL_PRECISION(12));
	json_decref(e);
	if (!line) {
		r->failed = true;
		fcr_fail(&r->err, "journal: cannot encode an event");
		return 0;
	}
	size_t n = strlen(line);
	line = cm_realloc(line, n + 2, 1);
	line[n++] = '\n';
	const char *p = line;
	size_t left = n;
	while (left) {
		ssize_t w = write(r->journal_fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			r->failed = true;
			fcr_fail_errno(&r->err, errno, "%s/" CM_CAMPAIGN_JOURNAL ": cannot write",
				       r->dir);
			free(line);
			return 0;
		}
		p += w;
		left -= (size_t)w;
	}
	free(line);
	r->unsynced = true;
	return n;
}

void fcr_record_event_lazy(struct fcr_record *r, const char *event, json_t *fields)
{
	write_event(r, event, fields);
}

/* fdatasync of the journal when lines wait for it. */
static void sync_journal(struct fcr_record *r)
{
	if (!r->unsynced || r->journal_fd < 0)
		return;
	r->unsynced = false;
	if (fdatasync(r->journal_fd) < 0) {
		r->failed = true;
		fcr_fail_errno(&r->err, errno, "%s/" CM_CAMPAIGN_JOURNAL ": cannot sync", r->dir);
	}
}

void fcr_record_event(struct fcr_record *r, const char *event, json_t *fields)
{
	fcr_record_event_lazy(r, event, fields);
	sync_journal(r);
}

/* ---- the manifest, whole or in parts ------------------------------------------------- */

void fcr_record_touch(struct fcr_record *r, const json_t *obj)
{
	/* the last one again is the common case; the rest is sorted out in
	 * save_part */
	if (r->n_dirty && r->dirty[r->n_dirty - 1] == obj)
		return;
	*CM_PUSH(r->dirty, r->n_dirty, r->cap_dirty) = obj;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (const json_t *const *)a;
	uintptr_t y = (uintptr_t) * (const json_t *const *)b;
	return (x > y) - (x < y);
}

void fcr_record_touch_all(struct fcr_record *r, const json_t *obj)
{
	if (json_is_object(obj)) {
		/* the steps of it; a test is its round's */
		if (r->index && fcr_record_index_get(r->index, obj))
			fcr_record_touch(r, obj);
		const char *k;
		json_t *v;
		json_object_foreach((json_t *)obj, k, v) {
			if (json_is_array(v) || json_is_object(v))
				fcr_record_touch_all(r, v);
		}
	} else if (json_is_array(obj)) {
		size_t i;
		json_t *v;
		json_array_foreach((json_t *)obj, i, v) {
			fcr_record_touch_all(r, v);
		}
	}
}

/*
 * The ops of the steps touched since the last save, each once (a new
 * array), and the touched list emptied; NULL when one of them is no step.
 */
static json_t *dirty_ops(struct fcr_record *r)
{
	qsort(r->dirty, r->n_dirty, sizeof(*r->dirty), cmp_ptr);
	json_t *ops = json_array();
	for (size_t i = 0; i < r->n_dirty && ops; i++) {
		if (i && r->dirty[i] == r->dirty[i - 1])
			continue;
		json_t *entry = fcr_record_index_get(r->index, r->dirty[i]);
		if (!entry) {
			json_decref(ops);
			ops = NULL;
		} else {
			json_array_append_new(ops, fcr_record_op(entry, r->dirty[i]));
		}
	}
	r->n_dirty = 0;
	return ops;
}

/*
 * With FIOCAMP_CHECK_MANIFEST: the ops applied to manifest.json as it is on
 * disk with its events (the shadow) give the manifest in memory.  ops NULL:
 * a touched object was no step.
 */
static int check_shadow(struct fcr_record *r, json_t *ops, const char *when)
{
	if (!r->check || !r->shadow)
		return 0;
	const char *why = ops ? NULL : "an object named by a save is no step";
	size_t i;
	json_t *op;
	json_array_foreach(ops, i, op) {
		/* a copy: the op shares its values with the manifest, which changes on */
		json_t *copy = json_deep_copy(op);
		if (!why && fcr_record_apply_op(r->shadow, copy, &r->err) < 0)
			why = r->err.msg;
		json_decref(copy);
	}
	if (!why && !fcr_record_same(r->shadow, r->m))
		why = "a step changed that no save named";
	if (!why)
		return 0;
	r->failed = true;
	return fcr_fail(&r->err,
			"manifest.json and its events in the journal are not the manifest %s: %s "
			"(FIOCAMP_CHECK_MANIFEST)",
			when, why);
}

/* The steps touched since the last save as one manifest event; 1 when the
 * save must be whole instead (one is no step, or too many). */
static int save_part(struct fcr_record *r)
{
	/* many steps at once (a repetition marked skipped): a rewrite is cheaper */
	if (r->n_dirty > FCR_RECORD_PART_MAX && !r->check)
		return 1;
	json_t *ops = dirty_ops(r);
	if (!ops)
		return r->check ? check_shadow(r, NULL, "after a save in parts") : 1;
	if (!json_array_size(ops)) {
		json_decref(ops);
		sync_journal(r);
		return r->failed ? -1 : 0;
	}
	int rc = check_shadow(r, ops, "after a save in parts");
	if (rc < 0) {
		json_decref(ops);
		return rc;
	}
	r->patch_seq++;
	json_t *f = json_pack("{s:I, s:o}", "seq", (json_int_t)r->patch_seq, "ops", ops);
	r->part_bytes += write_event(r, "manifest", f);
	sync_journal(r);
	return r->failed ? -1 : 0;
}

static int save_whole(struct fcr_record *r)
{
	/* steps added or removed: no ops say that; this rewrite records it */
	if (r->check && r->shadow && !r->reshaped) {
		json_t *ops = dirty_ops(r);
		int rc = check_shadow(r, ops, "before a rewrite");
		json_decref(ops);
		if (rc < 0)
			return rc;
	}
	r->n_dirty = 0;
	json_object_set_new(r->m, "updated", fcr_jutc(cm_wall_s()));
	json_object_set_new(r->m, "patch_seq", json_integer((json_int_t)r->patch_seq));
	char *text = json_dumps(r->m, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
					  JSON_REAL_PRECISION(12));
	if (!text) {
		r->failed = true;
		return fcr_fail(&r->err, "manifest: cannot encode");
	}
	size_t n = strlen(text);
	text = cm_realloc(text, n + 2, 1);
	text[n++] = '\n';
	/* the journal first: the manifest never records a step the journal lacks */
	bool journal = r->unsynced && r->journal_fd >= 0;
	char *jpath = cm_asprintf("%s/" CM_CAMPAIGN_JOURNAL, r->dir);
	int rc = fcr_write_file_atomic(r->manifest_path, text, n, journal ? r->journal_fd : -1,
				       jpath, &r->err);
	free(jpath);
	free(text);
	if (rc < 0) {
		r->failed = true;
		return rc;
	}
	if (journal)
		r->unsynced = false;
	r->whole_bytes = n;
	r->part_bytes = 0;
	r->whole_mono = cm_mono_s();
	r->need_whole = false;
	r->reshaped = false;
	if (r->check) {
		json_decref(r->shadow);
		r->shadow = json_deep_copy(r->m);
	}
	return 0;
}

int fcr_record_save(struct fcr_record *r)
{
	if (r->indexed != r->m) {
		json_decref(r->index);
		r->index = fcr_record_index(r->m);
		r->indexed = r->m;
		r->need_whole = true;
	}
	bool whole = r->need_whole ||
		     (!r->check && (r->whole_bytes <= FCR_RECORD_WHOLE_BYTES ||
				    r->part_bytes >= r->whole_bytes ||
				    cm_mono_s() - r->whole_mono >= FCR_RECORD_WHOLE_EVERY_S));
	if (!whole) {
		int rc = save_part(r);
		if (rc <= 0)
			return rc;
	}
	return save_whole(r);
}

void fcr_record_reshaped(struct fcr_record *r)
{
	r->indexed = NULL;
	r->reshaped = true;
}

int fcr_record_save_whole(struct fcr_record *r)
{
	r->need_whole = true;
	return fcr_record_save(r);
}

int fcr_record_replay(const char *dir, json_t *m, long long *seq, struct fcr_error *err)
{
	json_int_t have = json_integer_value(json_object_get(m, "patch_seq"));
	*seq = (long long)have;
	static const char *const kinds[] = {"manifest", NULL};
	json_t *ev = fcr_record_read_events(dir, kinds);
	size_t i;
	json_t *e;
	int rc = 0;
	json_array_foreach(ev, i, e) {
		json_int_t n = json_integer_value(json_object_get(e, "seq"));
		if (n <= have)
			continue;
		size_t k;
		json_t *op;
		json_array_foreach(json_object_get(e, "ops"), k, op) {
			rc = fcr_record_apply_op(m, op, err);
			if (rc < 0)
				break;
		}
		if (rc < 0)
			break;
		have = n;
		*seq = (long long)n;
	}
	json_decref(ev);
	return rc;
}

int fcr_record_commit(struct fcr_record *r, const char *event, json_t *fields)
{
	int rc = fcr_record_save(r);
	if (rc == 0)
		fcr_record_event(r, event, fields);
	else
		json_decref(fields);
	return rc;
}

json_t *fcr_record_read_events(const char *dir, const char *const *kinds)
{
	json_t *out = json_array();
	char *path = cm_asprintf("%s/" CM_CAMPAIGN_JOURNAL, dir);
	FILE *f = fopen(path, "re");
	free(path);
	if (!f)
		return out;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		/* the cheap test first: most lines are API calls */
		bool wanted = false;
		for (const char *const *k = kinds; *k && !wanted; k++) {
			char *quoted = cm_asprintf("\"event\":\"%s\"", *k);
			wanted = strstr(line, quoted) != NULL;
			free(quoted);
		}
		if (!wanted)
			continue;
		json_t *e = json_loadb(line, (size_t)n, 0, NULL);
		const char *name = json_string_value(json_object_get(e, "event"));
		bool match = false;
		for (const char *const *k = kinds; name && *k && !match; k++)
			match = !strcmp(name, *k);
		if (match)
			json_array_append(out, e);
		json_decref(e);
	}
	free(line);
	fclose(f);
	return out;
}

/* ---- a new campaign directory --------------------------------------------- */

static char *default_dir_name(const struct fcr_campaign *c)
{
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (c->host)
		return cm_asprintf("%s-%s-%s", c->name, c->host, stamp);
	return cm_asprintf("%s-%s", c->name, stamp);
}

int fcr_record_create_dir(const char *out_dir, const struct fcr_campaign *c, char **dir,
			  struct fcr_error *err)
{
	char *d = out_dir ? cm_strdup(out_dir) : default_dir_name(c);
	*dir = d;
	size_t n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	char *parent = fcr_path_dirname(d);
	int rc = fcr_mkdir_p(parent, 0755, err);
	free(parent);
	if (rc < 0)
		return -1;
	if (mkdir(d, 0755) < 0) {
		if (errno == EEXIST)
			return fcr_fail(err,
					"%s already exists: a campaign directory is never "
					"overwritten (continue it with --resume %s, or choose "
					"another with -o)",
					d, d);
		return fcr_fail_errno(err, errno, "%s: cannot create", d);
	}
	char *ini = cm_asprintf("%s/" CM_CAMPAIGN_FILE, d);
	rc = fcr_write_file(ini, c->text, c->text_len, false, err);
	free(ini);
	if (rc < 0)
		return -1;
	return fcr_fsync_dir(d, err);
}
