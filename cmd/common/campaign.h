/* SPDX-License-Identifier: MIT */
/*
 * The campaign directory: the contract between fiocamp-run, which writes
 * it, and fiocamp-analyze, which reads it (docs/campaign-directory.md).
 * Its file names, the words of its statuses and the rules of its layout
 * are written here once; both tools use these instead of spelling them out.
 *
 *   <campaign>/campaign.ini                 the campaign file that ran
 *   <campaign>/manifest.json                what ran and how it ended
 *   <campaign>/journal.jsonl                the events, one JSON object a line
 *   <campaign>/prefill/...                  the prefill runs
 *   <campaign>/STATE[/repK]/rN[/VARIANT][/SIZE]/TEST.json   (and .fio .env
 *                                           .stderr, fio's TEST_TYPE.I.log)
 *   ...rN.interrupted-K/, ...rN.failed-K/   what was cut short or failed,
 *                                           moved aside (also a VARIANT's
 *                                           or SIZE's directory)
 *
 * STATE, VARIANT and TEST follow the name rule (cm_campaign_name_ok); N
 * (the round), K (the repetition, only in a state with repeat > 1) and the
 * K of a directory moved aside count from 1.
 */
#ifndef CM_CAMPAIGN_H
#define CM_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>

/* ---- files ------------------------------------------------------------------ */

#define CM_CAMPAIGN_FILE     "campaign.ini"
#define CM_CAMPAIGN_MANIFEST "manifest.json"
#define CM_CAMPAIGN_JOURNAL  "journal.jsonl"
/* The directory of the prefill runs (and a test's name it cannot have). */
#define CM_CAMPAIGN_PREFILL "prefill"

/* manifest.json's "format" and the "version" this contract describes. */
#define CM_MANIFEST_FORMAT  "fiocamp-manifest"
#define CM_MANIFEST_VERSION 1

/*
 * A fleet directory (docs/campaign-directory.md): several hosts' campaigns
 * run in step, DIR/manifest.json of this format (its hosts, their status,
 * the barrier waits) and each host's own campaign directory below
 * DIR/hosts/NAME.
 */
#define CM_FLEET_FORMAT	   "fiocamp-fleet"
#define CM_FLEET_VERSION   1
#define CM_FLEET_HOSTS_DIR "hosts"

/* The suffixes of a fio run's files after TEST. */
#define CM_RUN_JSON   ".json"
#define CM_RUN_JOB    ".fio"
#define CM_RUN_ENV    ".env"
#define CM_RUN_STDERR ".stderr"

/* ---- statuses --------------------------------------------------------------- */

/*
 * The "status" of the campaign, a state, a repetition, a round, a test or
 * an action in manifest.json.  A reader meets words of later versions too:
 * the predicates below say what an unknown word means.
 */
#define CM_STATUS_PENDING     "pending"
#define CM_STATUS_RUNNING     "running"
#define CM_STATUS_DONE	      "done"
#define CM_STATUS_FAILED      "failed"
#define CM_STATUS_INTERRUPTED "interrupted"
#define CM_STATUS_SKIPPED     "skipped"

/* Whether status (may be NULL) is the word `word`. */
bool cm_status_is(const char *status, const char *word);
/* Not run, and not a failure: pending, running (a session that died
 * before it ended the step) or skipped.  Such a step holds no data. */
bool cm_status_not_run(const char *status);
/* The step did not succeed: a status that is neither done nor one of not
 * run (failed, interrupted, or a word this version does not know).  False
 * for NULL (no status recorded). */
bool cm_status_failed(const char *status);

/* ---- names and layout --------------------------------------------------------- */

/* Repetitions of a state (repeat = N): 1 to this. */
#define CM_CAMPAIGN_REPEAT_MAX 1000

/* What a directory moved aside is tagged with: NAME.TAG-K. */
#define CM_ASIDE_INTERRUPTED "interrupted"
#define CM_ASIDE_FAILED	     "failed"

/*
 * The name rule of states, variants and tests (and of the campaign): one
 * or more of [A-Za-z0-9._-], not "." or "..", so that a name is a safe
 * path component.
 */
bool cm_campaign_name_ok(const char *name);

/*
 * The directory of a round's files below the campaign: STATE/rN, or
 * STATE/repK/rN in a state that repeats (rep 0: it does not), with
 * "/UNIT" when unit is not NULL or "" (VARIANT, SIZE or VARIANT/SIZE, see
 * cm_campaign_unit).  Caller frees.
 */
char *cm_campaign_round_dir(const char *state, unsigned rep, unsigned round, const char *unit);
/* The unit of a variant and a size (either may be NULL): "VARIANT/SIZE",
 * "VARIANT", "SIZE" or "".  Caller frees. */
char *cm_campaign_unit(const char *variant, const char *size);
/* The stem of a run's files, cm_campaign_round_dir()/TEST, to which the
 * CM_RUN_* suffixes are added.  Caller frees. */
char *cm_campaign_run_stem(const char *state, unsigned rep, unsigned round, const char *unit,
			   const char *test);

/* NAME.TAG-K, where a directory (or file) cut short or failed is moved
 * aside; caller frees. */
char *cm_campaign_aside(const char *name, const char *tag, unsigned k);
/* The tag when `name` is something moved aside (it holds ".interrupted-"
 * or ".failed-"): CM_ASIDE_INTERRUPTED or CM_ASIDE_FAILED; else NULL. */
const char *cm_campaign_aside_tag(const char *name);

#endif
