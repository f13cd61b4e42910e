/* SPDX-License-Identifier: MIT */
/*
 * The campaign directory's two records (docs/campaign-directory.md):
 * journal.jsonl, appended and fsync'd one event at a time, and
 * manifest.json, kept in memory and rewritten atomically.
 */
#ifndef FCR_RECORD_H
#define FCR_RECORD_H

#include <stdbool.h>

#include <jansson.h>

#include "campaign/campaign.h"
#include "campaign/jobs.h"
#include "fcr.h"

struct fcr_record {
	char *dir;
	char *manifest_path;
	int journal_fd;
	int lock_fd;   /* the directory, flock()ed for the session (lock.c); -1: none */
	json_t *m;     /* the manifest; owned */
	int session;   /* 1 for the first run, +1 per --resume */
	double mono0;  /* the journal's "mono" counts from here (fcr_record_open) */
	bool failed;   /* a write failed: the campaign must stop */
	bool unsynced; /* events were written since the journal's last fdatasync */
	struct fcr_error err;
};

/* Locks the campaign directory (flock on it) and opens (creating
 * if needed) the journal of `dir`.  Another session holding the lock is an
 * error that names its pid.  The manifest is set by the caller (r->m) before
 * the first fcr_record_save(); fcr_record_close() lets the lock go. */
int fcr_record_open(struct fcr_record *r, const char *dir, struct fcr_error *err);
void fcr_record_close(struct fcr_record *r);

/* Appends {"t", "mono", "session", "event", ...fields} and fsyncs.  Steals
 * `fields` (may be NULL).  A failure sets r->failed. */
void fcr_record_event(struct fcr_record *r, const char *event, json_t *fields);
/*
 * The same, written at once (a crash of the controller loses nothing) but
 * made durable by the next fcr_record_save(), fcr_record_event() or
 * fcr_record_close(): for the events of steps that the manifest records
 * only with that save (fio-end inside a round, round-start,
 * state-start, pause), so that a sync between two fio runs does not add to
 * the gap between them.  Never for a provider's events.
 */
void fcr_record_event_lazy(struct fcr_record *r, const char *event, json_t *fields);
/* Rewrites manifest.json (sets "updated"); the journal's lines that wait
 * for their fdatasync get it together with the new manifest's fsync, before
 * the rename.  A failure sets r->failed. */
int fcr_record_save(struct fcr_record *r);
/* fcr_record_save(), then the event only when the manifest was written: the
 * journal never says more than the manifest (a step done that the manifest
 * still has running).  Steals `fields`. */
int fcr_record_commit(struct fcr_record *r, const char *event, json_t *fields);

/* ---- lock.c ---- */
/* Locks DIR for the session (r->lock_fd); another holder is an error that
 * names its pid. */
int fcr_record_lock(struct fcr_record *r, const char *dir, struct fcr_error *err);

/*
 * The events of dir/journal.jsonl whose "event" is one of `kinds`
 * (NULL-terminated), in order, as a new array.  Lines that are no JSON
 * object (one cut short by a crash) are passed over; a journal that cannot
 * be read gives an empty array.
 */
json_t *fcr_record_read_events(const char *dir, const char *const *kinds);

/*
 * The manifest of a new campaign (a new reference): jobs is one per suite
 * entry; campaign_path is the campaign file's absolute path, or NULL.
 */
json_t *fcr_manifest_new(const struct fcr_campaign *c, const struct fcr_jobfile *jobs,
			 const char *campaign_path);
/* A pending test object of unit u (NULL: a campaign without units), with
 * its "variant" and "size" when the campaign has them. */
json_t *fcr_manifest_test(const struct fcr_campaign *c, const struct fcr_unit *u, const char *test);
/* How many test objects a round of state st has: its tests, for each unit. */
size_t fcr_manifest_round_tests(const struct fcr_campaign *c, const struct fcr_state *st);
/* Checks that a manifest read back describes this campaign. */
int fcr_manifest_check(json_t *m, const struct fcr_campaign *c, const struct fcr_jobfile *jobs,
		       struct fcr_error *err);
/*
 * A state's repetitions in the manifest: how many it has (1 for a state
 * without "repetitions"), and the object of repetition k (from 1) that holds
 * its "before" and "rounds": the state object itself when it has no
 * "repetitions" (repeat = 1).  Borrowed; NULL past the last.
 */
size_t fcr_manifest_reps(json_t *state_obj);
json_t *fcr_manifest_rep(json_t *state_obj, size_t k);

#endif
