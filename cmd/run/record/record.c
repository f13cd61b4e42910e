/* SPDX-License-Identifier: MIT */
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void sync_journal(struct fcr_record *r);

int fcr_record_open(struct fcr_record *r, const char *dir, struct fcr_error *err)
{
	memset(r, 0, sizeof(*r));
	r->journal_fd = -1;
	r->lock_fd = -1;
	if (fcr_record_lock(r, dir, err) < 0)
		return -1;
	r->mono0 = cm_mono_s();
	r->dir = cm_strdup(dir);
	r->manifest_path = cm_asprintf("%s/manifest.json", dir);
	char *path = cm_asprintf("%s/journal.jsonl", dir);
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
	free(r->dir);
	free(r->manifest_path);
	r->dir = r->manifest_path = NULL;
}

void fcr_record_event_lazy(struct fcr_record *r, const char *event, json_t *fields)
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
		return;
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
			fcr_fail_errno(&r->err, errno, "%s/journal.jsonl: cannot write", r->dir);
			free(line);
			return;
		}
		p += w;
		left -= (size_t)w;
	}
	free(line);
	r->unsynced = true;
}

/* fdatasync of the journal when lines wait for it. */
static void sync_journal(struct fcr_record *r)
{
	if (!r->unsynced || r->journal_fd < 0)
		return;
	r->unsynced = false;
	if (fdatasync(r->journal_fd) < 0) {
		r->failed = true;
		fcr_fail_errno(&r->err, errno, "%s/journal.jsonl: cannot sync", r->dir);
	}
}

void fcr_record_event(struct fcr_record *r, const char *event, json_t *fields)
{
	fcr_record_event_lazy(r, event, fields);
	sync_journal(r);
}

int fcr_record_save(struct fcr_record *r)
{
	json_object_set_new(r->m, "updated", fcr_jutc(cm_wall_s()));
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
	char *jpath = cm_asprintf("%s/journal.jsonl", r->dir);
	int rc = fcr_write_file_atomic(r->manifest_path, text, n, journal ? r->journal_fd : -1,
				       jpath, &r->err);
	free(jpath);
	free(text);
	if (rc < 0)
		r->failed = true;
	else if (journal)
		r->unsynced = false;
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
	char *path = cm_asprintf("%s/journal.jsonl", dir);
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
