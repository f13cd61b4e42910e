/* SPDX-License-Identifier: MIT */
/*
 * One session of a campaign (a run, or a resume of one) as the files of the
 * engine share it: engine.c runs it from end to end (fcr_engine_run);
 * state.c runs each state, its actions and rounds;
 * resume.c reads an earlier session's record back; safety.c keeps the
 * machine from being left off; report.c prints the table at the end;
 * dryrun.c prints the plan instead.  Not seen outside engine/.
 */
#ifndef FCR_ENGINE_SESSION_H
#define FCR_ENGINE_SESSION_H

#include <stdbool.h>

#include "provider.h"
#include "engine/engine.h"
#include "fio/fio.h"
#include "record/record.h"
#include "machine/environment.h"
#include "machine/target.h"

struct fcr_session {
	const struct fcr_campaign *c;
	const struct fcr_options *o;
	char *cdir; /* the campaign directory */
	struct fcr_record rec;
	bool journal_ready; /* the record is open: events are kept from now on */
	struct fcr_target tgt;
	struct fcr_fio fio;
	void *prov; /* the provider's handle */
	bool prov_ready;
	struct fcr_provider_ctx pctx;
	/* Ctrl-C, SIGTERM and SIGHUP count in *stop; a second one sets *hard_stop
	 * (safety.c) */
	volatile int *stop;
	volatile int *hard_stop;
	size_t si;		   /* the state at hand */
	unsigned rep;		   /* the repetition of state si at hand; 0: it does not repeat */
	int ai;			   /* the action of state si being performed, -1: none */
	bool maybe_down;	   /* an action took the machine away and no wait-ssh saw it back */
	bool resumed;		   /* this session continues an earlier one */
	double session_wall;	   /* when this session began */
	double restored_down_wall; /* the power-off repeated on resume took the machine away */
	struct fcr_aggregate *agg; /* mode = aggregate (aggregate.c); NULL otherwise */
};

/* ---- session.c ---- */
/* Finds the job files of the suite (and the prefill's, when one is planned). */
int fcr_session_jobs(struct fcr_session *S, struct fcr_error *err);
/* The context an action of state si is performed with (label: "STATE: TEXT"). */
void fcr_session_ctx(struct fcr_session *S, size_t si, const char *label,
		     struct fcr_action_ctx *ctx);
/* Frees what the session holds; the provider's handle too. */
void fcr_session_release(struct fcr_session *S);
/* Adds "repetition": k to an event about a step of a repeated state (the
 * one at hand, S->rep); returns it. */
json_t *fcr_session_at(const struct fcr_session *S, json_t *event);
/* Copies a repetition's (or a state's) marks of timings cut by an
 * interrupt ("downtime_cut", "data_back_cut") into its end event. */
void fcr_session_cut_marks(json_t *obj, json_t *event);
/*
 * Captures the target's environment (machine/environment.h) at `where`
 * ("preflight", "state NAME", "state NAME rep K"): a capture that says
 * something new is added to the manifest's "environments" with the next
 * id and journaled ("environment"); one the same as the last reuses its
 * id.  obj (a state or a repetition; may be NULL) gets "environment": ID,
 * and the fio unit the capture, for its sampler's devices.  Never fails.
 */
json_int_t fcr_session_environment(struct fcr_session *S, json_t *obj, const char *where);
/* Records an "error" event for a step that failed. */
void fcr_session_failure(struct fcr_session *S, const char *what, const char *msg);
/*
 * The prefill of a place (prefill = yes), once per campaign: the campaign's
 * directory (v NULL) or variant v's.  The callers say when: the campaign's
 * in the preflight, before any state's actions; a variant's after its first
 * `before` actions, which may be what makes its place.  Its run is
 * prefill/NAME.json (fcr_prefill_name), its record the manifest's "prefill"
 * or its variant's.  FCR_DONE at once when there is none or it is done.
 */
enum fcr_outcome fcr_session_prefill(struct fcr_session *S, const struct fcr_variant *v);
/* A place's prefill run: "prefill" or "variant-NAME" (caller frees) */
char *fcr_prefill_name(const struct fcr_variant *v);
/* Points the fio unit at a place's test file, its largest size, for its
 * prefill (v NULL: the campaign's) */
void fcr_session_use_place(struct fcr_session *S, const struct fcr_variant *v, char *size,
			   size_t size_len);

/* ---- state.c ---- */
/* One state of the campaign: its repetitions, each its actions and rounds.
 * What is done already is skipped. */
enum fcr_outcome fcr_session_run_state(struct fcr_session *S, size_t si);

/* ---- resume.c ---- */
/* Whether dir has a manifest.json at all (before anything is made in it). */
int fcr_resume_check_dir(const char *dir, struct fcr_error *err);
/* Reads manifest.json of S->cdir into S->rec.m and checks it; a new session. */
int fcr_resume_load(struct fcr_session *S, struct fcr_error *err);
/* The job files this session found are the ones earlier sessions ran. */
int fcr_resume_check_jobs(const struct fcr_session *S, struct fcr_error *err);
/*
 * A state cut short in an earlier session whose last power change was a
 * take-down: that action is done again, so that what follows finds the
 * machine as it expects.
 */
enum fcr_outcome fcr_resume_restore_power(struct fcr_session *S, size_t si, json_t *state_obj);
/*
 * The start of the first action of this repetition (state_obj: its object,
 * the state's when it does not repeat) before action `upto` that
 * took the machine away, or NaN.  *cut: the transition spans sessions (an
 * interrupt, or a failure, came between): what is measured from there is
 * no sample, and *note says from where it counts (the take-down's first
 * start in an earlier session, the power-off repeated on resume) or that it
 * is unknown.
 */
double fcr_resume_down_since(const struct fcr_session *S, json_t *state_obj, size_t upto,
			     const struct fcr_state *st, const char **note, bool *cut);

/*
 * The provider's write events (write-intent, write-outcome) that earlier
 * sessions journaled, by the action they belong to: an object whose keys
 * are "STATE/INDEX", or "STATE/REPETITION/INDEX" in a repeated state
 * (empty for a new campaign).  Caller frees.
 */
json_t *fcr_resume_writes(const struct fcr_session *S);
/* The list of one action (an empty array when it has none), borrowed from
 * `writes`; rep is its repetition, 0 for a state that does not repeat. */
json_t *fcr_resume_step_writes(json_t *writes, const char *state, size_t rep, size_t index);

/*
 * Stops a fio that an earlier session left running (its fio-start events:
 * a local process group, an ssh work directory's fio) and removes that
 * session's remote work directories, before this one starts fio.
 */
int fcr_resume_reap(struct fcr_session *S, struct fcr_error *err);

/* ---- safety.c ---- */
/* Points S->stop and S->hard_stop at the counters the signals set, and
 * makes the fatal path (cm_die: out of memory) power the machine back on
 * when S left it off. */
void fcr_safety_init(struct fcr_session *S);
/* The session is over: the fatal path forgets it. */
void fcr_safety_end(struct fcr_session *S);
/* Installs the handlers of SIGINT, SIGTERM and SIGHUP. */
void fcr_safety_signals(void);
/* Whether the machine may be off as the manifest leaves it. */
bool fcr_safety_maybe_down(const struct fcr_session *S);
/*
 * The machine may be off: powers it on through the provider and waits for
 * its SSH server; records and says in which state it was left.  Only a
 * second Ctrl-C cuts it short.  0 when it is on (and answers SSH, where
 * there is something to probe).
 */
int fcr_safety_power_on(struct fcr_session *S, const char *why);

/* ---- aggregate.c: mode = aggregate ---- */
struct fcr_aggregate;
/* Whether c is a fleet in mode = aggregate: one engine for all its hosts. */
bool fcr_aggregate_mode(const struct fcr_campaign *c);
/* What mode = aggregate does not do, one "file:line: message" each: a
 * provider, actions other than settle, variants, the prefill, rounds until
 * steady.  -1 when there is something. */
int fcr_aggregate_check(const struct fcr_campaign *c, struct cm_strv *problems);
/* Each host's campaign (its keys applied) and target, in S->agg; -1 with
 * problems ("file:line: message") when one cannot be read. */
int fcr_aggregate_open(struct fcr_session *S, struct cm_strv *problems);
void fcr_aggregate_release(struct fcr_session *S);
/* On resume: the fio servers and the ssh work directories an earlier
 * session left on the hosts, stopped and removed. */
int fcr_aggregate_reap(struct fcr_session *S, struct fcr_error *err);
/* Each host's preflight (fio, facts, room for the test file) and the same
 * fio everywhere; the manifest gets "mode", "hosts" and the controller's
 * "fio_version". */
int fcr_aggregate_preflight(struct fcr_session *S, struct fcr_error *err);
/* Starts every host's server and the way to it; the fio unit runs its
 * clients from now on. */
int fcr_aggregate_start(struct fcr_session *S, struct fcr_error *err);
/* Stops what fcr_aggregate_start() started; never fails (journaled). */
void fcr_aggregate_stop(struct fcr_session *S);
/* Each host's test file at the end (as one_test_file_end in engine.c) and
 * its ssh work directory removed; the lines that say so (caller frees). */
char *fcr_aggregate_end(struct fcr_session *S, enum fcr_outcome result);
/* A round's "clients": [{host, hostname, port}] in --client order, as fio
 * names them in client_stats. */
json_t *fcr_aggregate_clients(const struct fcr_session *S);
/* --dry-run of an aggregate campaign. */
int fcr_aggregate_dry_run(const struct fcr_campaign *c, const struct fcr_options *o);

/* ---- report.c ---- */
/* The table at the end: fiocamp-analyze's, else a short one of our own. */
void fcr_report_print(const struct fcr_session *S);

#endif
