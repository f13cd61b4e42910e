/* SPDX-License-Identifier: MIT */
/*
 * The campaign directory's two records (docs/campaign-directory.md):
 * journal.jsonl, appended and fsync'd one event at a time, and
 * manifest.json, kept in memory and rewritten atomically.
 *
 * What a save costs does not grow with the campaign.  A manifest of up to
 * FCR_RECORD_WHOLE_BYTES is rewritten whole at every save.  A bigger one is
 * saved in parts: the steps that changed since the last save (each caller
 * names them with fcr_record_touch) go into one "manifest" event of the
 * journal (fsync'd like every event); the whole file is rewritten only when
 * those events add up to its size (so that the rewrites cost at most as
 * much again as the events), at least every FCR_RECORD_WHOLE_EVERY_S
 * seconds, and when the session ends.  manifest.json says the last event
 * it holds ("patch_seq"); a resume applies the journal's later ones
 * (fcr_record_replay), so that a session killed at any point leaves nothing
 * done that the next one does not know.  FIOCAMP_CHECK_MANIFEST=1 in the
 * environment saves every manifest in parts and checks, at each save, that
 * the file with its events is the manifest in memory (a test's check: a
 * step changed and not named stops the campaign).
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
	/* the manifest in parts (patch.c) */
	json_t *index;	       /* its steps: "%p" -> {path, keep}, of `indexed` */
	const json_t *indexed; /* the manifest the index is of */
	const json_t **dirty;  /* touched since the last save */
	size_t n_dirty, cap_dirty;
	bool need_whole;     /* the next save rewrites it whole */
	bool reshaped;	     /* steps were added or removed since the last save */
	size_t whole_bytes;  /* manifest.json's size at its last rewrite */
	size_t part_bytes;   /* of the manifest events since */
	long long patch_seq; /* the number of the last manifest event */
	double whole_mono;   /* when it was last rewritten */
	bool check;	     /* FIOCAMP_CHECK_MANIFEST */
	json_t *shadow;	     /* with check: manifest.json as it is, with its events */
};

/* Up to this size manifest.json is rewritten at every save. */
#define FCR_RECORD_WHOLE_BYTES (64u << 10)
/* A bigger one at least this often (and when its events add up to it). */
#define FCR_RECORD_WHOLE_EVERY_S 60.0

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
/* Saves the manifest: rewritten whole (sets "updated"; the journal's lines
 * that wait for their fdatasync get it together with the new manifest's
 * fsync, before the rename), or in parts (see above).  A failure sets
 * r->failed. */
int fcr_record_save(struct fcr_record *r);
/* The same, always whole: the session's last save, so that it leaves
 * manifest.json exact. */
int fcr_record_save_whole(struct fcr_record *r);
/* The manifest object obj (a step: the manifest, a state, a repetition, an
 * action, a round, a variant) changed: the next save writes it.  Borrowed;
 * an object that is no step makes the next save whole. */
void fcr_record_touch(struct fcr_record *r, const json_t *obj);
/* obj and every step below it. */
void fcr_record_touch_all(struct fcr_record *r, const json_t *obj);
/* Steps were added to or removed from the manifest (rounds that a steady
 * verdict made unneeded): the next save indexes it anew and is whole. */
void fcr_record_reshaped(struct fcr_record *r);
/*
 * Applies the journal's manifest events after the one m holds ("patch_seq")
 * to m, in order; *seq gets the last one's number.  For --resume, before m
 * is checked against the campaign file.
 */
int fcr_record_replay(const char *dir, json_t *m, long long *seq, struct fcr_error *err);

/* ---- patch.c ---- */
/* The steps of manifest m (a new object: "%p" -> {path, keep}). */
json_t *fcr_record_index(json_t *m);
/* The entry of obj in an index (borrowed), or NULL. */
json_t *fcr_record_index_get(json_t *index, const json_t *obj);
/* The op that writes obj's own members: {at, keep, members} (new reference). */
json_t *fcr_record_op(json_t *entry, const json_t *obj);
/* Applies one op to m. */
int fcr_record_apply_op(json_t *m, json_t *op, struct fcr_error *err);
/* Whether two manifests are the same but for the rewrite's stamps. */
bool fcr_record_same(json_t *a, json_t *b);
/* fcr_record_save(), then the event only when the manifest was written: the
 * journal never says more than the manifest (a step done that the manifest
 * still has running).  Steals `fields`. */
int fcr_record_commit(struct fcr_record *r, const char *event, json_t *fields);

/*
 * A new campaign directory: out_dir, or else NAME-YYYYmmdd-HHMMSS (with a
 * host of a fleet NAME-HOST-YYYYmmdd-HHMMSS) in the current directory, its
 * parents made; never over an existing one.  It holds the campaign file's
 * copy (campaign.ini) and is fsync'd.  *dir is set (caller frees) whenever
 * the name was chosen, also on failure.
 */
int fcr_record_create_dir(const char *out_dir, const struct fcr_campaign *c, char **dir,
			  struct fcr_error *err);

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
/* The pending test object of the j-th run of round r of state st in unit u
 * (fcr_state_run_at), with the run's "point" when the state sweeps:
 * {"iodepth": "16", "numjobs": "2"}, the options in the sweep's order. */
json_t *fcr_manifest_run(const struct fcr_campaign *c, const struct fcr_unit *u,
			 const struct fcr_state *st, const struct fcr_jobfile *jobs, unsigned r,
			 size_t j);
/* Point p of sweep s as such an object (new reference). */
json_t *fcr_manifest_point(const struct fcr_sweep *s, size_t p);
/* How many test objects a round of state st has: its tests at each point,
 * for each unit. */
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
