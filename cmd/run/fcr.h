/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-run's conventions, and the small helpers every part of it uses.
 * See README.md in this folder for how the controller is built.
 *
 *  - One prefix: fcr_ (FCR_ for macros and constants) for every function and
 *    type that leaves its file; nothing of ours in another library's
 *    namespace (no json_* functions).  The helpers shared with the other
 *    tools are cm_ (common/common.h): allocation there never fails (out of
 *    memory takes the fatal path, which powers a machine that an action took
 *    away back on, see engine/safety.c).
 *  - One error convention: a function that can fail returns 0 (or a
 *    documented positive value), or a negative enum fcr_status, and fills
 *    the caller's struct fcr_error (which may be NULL).  Its message is one
 *    sentence that names the file, the command or the API call and what went
 *    wrong; it never holds a secret.  The caller decides whether to print.
 *    Checking a campaign file is the one place that collects every problem
 *    instead: a list of "file:line: message" lines.
 *  - Ownership is said where it is not "caller frees what it got".
 *  - Units are in the names (_ms, _s, _bytes); clocks are seconds.
 */
#ifndef FCR_H
#define FCR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <jansson.h>

#include "common/campaign.h"
#include "common/common.h"

/* ---- errors (util/error.c) ------------------------------------------------ */

enum fcr_status {
	FCR_OK = 0,
	FCR_E_FAILED = -1,     /* something did not work; the message says what */
	FCR_E_INVAL = -2,      /* a bad configuration or argument */
	FCR_E_TOKEN = -3,      /* credentials missing, unreadable, too open, or not written */
	FCR_E_AUTH = -4,       /* the API refused the credentials, or a login failed */
	FCR_E_TRANSPORT = -5,  /* no usable answer from the network after the retries */
	FCR_E_API = -6,	       /* the API answered with an error status */
	FCR_E_NOT_FOUND = -7,  /* 404: the server, snapshot or task does not exist */
	FCR_E_TASK = -8,       /* an API task ended in failure */
	FCR_E_TIMEOUT = -9,    /* a task or a state change did not finish in time */
	FCR_E_PROTOCOL = -10,  /* an answer we cannot use: not JSON, a field missing, too large */
	FCR_E_STOPPED = -11,   /* interrupted (Ctrl-C) while waiting */
	FCR_E_PREFLIGHT = -12, /* a preflight found problems */
	FCR_E_TLS = -13	       /* the server's certificate was refused: nothing was sent */
};

#define FCR_ERROR_MAX 1536

struct fcr_error {
	enum fcr_status code;
	int http_status;    /* the last HTTP status of the call that failed, 0 if none */
	char api_code[128]; /* the API's code ("server.lock.error"), a task's end state, or "" */
	char msg[FCR_ERROR_MAX];
};

/* Fills err (if not NULL) with code FCR_E_FAILED; returns that code, so that
 * callers can `return fcr_fail(err, ...)`.  An argument may be err->msg
 * itself: `return fcr_fail_as(err, rc, "variant %s: %s", name, err->msg)`
 * says where a callee's failure happened. */
int fcr_fail(struct fcr_error *err, const char *fmt, ...) CM_PRINTF(2, 3);
/* The same with another code. */
int fcr_fail_as(struct fcr_error *err, enum fcr_status code, const char *fmt, ...) CM_PRINTF(3, 4);
/* FCR_E_FAILED with ": strerror(errnum)" appended. */
int fcr_fail_errno(struct fcr_error *err, int errnum, const char *fmt, ...) CM_PRINTF(3, 4);
/* Short English text for a status.  Static. */
const char *fcr_status_text(enum fcr_status status);

/* How a step of the campaign ended (a fio run, an action, a round, a state). */
enum fcr_outcome {
	FCR_DONE = 0,
	FCR_FAILED,
	FCR_INTERRUPTED,
	FCR_FATAL /* the campaign cannot go on: its record cannot be written */
};
/* "done", "failed", "interrupted": the status the manifest records. */
const char *fcr_outcome_status(enum fcr_outcome o);

/* fiocamp-run's exit statuses. */
enum {
	FCR_EXIT_OK = 0,
	FCR_EXIT_FAILED = 1,
	FCR_EXIT_USAGE = 2,
	FCR_EXIT_INTERRUPTED = 130,
};

/* ---- shell words (util/shell.c) ------------------------------------------- */

/*
 * Splits `text` shell-like into words: blanks separate, '...' quotes
 * literally, "..." quotes with \ escaping \ " $ `, a backslash outside quotes
 * escapes the next character.  No expansion of any kind.  Returns 0, or -1
 * with err set (unterminated quote, trailing backslash) and *out released.
 */
int fcr_shell_split(const char *text, struct cm_strv *out, struct fcr_error *err);
/* Appends `word` quoted for a POSIX shell ('...' where needed). */
void fcr_shell_quote(struct cm_buf *b, const char *word);
/* All of argv quoted and joined by spaces; caller frees. */
char *fcr_shell_join(char *const *argv);

/* ---- files and paths (util/files.c) --------------------------------------- */

/* Writes a new file (O_EXCL unless `replace`), fsyncs it. */
int fcr_write_file(const char *path, const void *buf, size_t len, bool replace,
		   struct fcr_error *err);
/* Writes a new file (O_EXCL) without fsync: the caller syncs it later. */
int fcr_write_file_nosync(const char *path, const void *buf, size_t len, struct fcr_error *err);
/* Writes path via "path.tmp", fsync (together with the fd sync_too, -1:
 * none, named sync_too_name in messages), rename, fsync of the directory. */
int fcr_write_file_atomic(const char *path, const void *buf, size_t len, int sync_too,
			  const char *sync_too_name, struct fcr_error *err);
/* fsync of every fd of fds (-1: passed over), their writeback started
 * together first.  0, or the negative errno of the first failure, with
 * *failed (may be NULL) its index. */
int fcr_fsync_fds(const int *fds, size_t n, size_t *failed);
/* fsync of the directory holding `path` (or of `path` if it is one). */
int fcr_fsync_dir(const char *dir, struct fcr_error *err);
/* mkdir -p; what it creates gets `mode`. */
int fcr_mkdir_p(const char *path, unsigned mode, struct fcr_error *err);
bool fcr_path_exists(const char *path);
/* Directory part of a path ("." when none); caller frees. */
char *fcr_path_dirname(const char *path);
/* The first "<base>.<tag>-<k>" (k from 1) that does not exist, with *k:
 * where an unfinished attempt is kept, since nothing is overwritten. */
char *fcr_aside_name(const char *base, const char *tag, unsigned *k);
/* Last component without `suffix` if it ends with it; caller frees. */
char *fcr_path_stem(const char *path, const char *suffix);
/* "~/x" with $HOME put in; other paths copied (caller frees).  NULL when
 * the path starts with "~" and HOME is unset. */
char *fcr_path_expand_home(const char *path);

/* ---- names and text (util/text.c) ----------------------------------------- */

/* The name rule of states, variants, tests and the campaign is
 * cm_campaign_name_ok() (common/campaign.h). */

/* Edits (insert, delete, change, swap of neighbours) from a to b; SIZE_MAX
 * for words too long to compare. */
size_t fcr_edit_distance(const char *a, const char *b);
/* The name of `names` closest to `word` when it is close enough to be what
 * was meant ("did you mean"), else NULL (borrowed). */
const char *fcr_closest_name(const char *word, const struct cm_strv *names);
/* Decodes in place the \ooo escapes of mountinfo and /proc/swaps (a blank,
 * a tab, a newline, a backslash). */
void fcr_unescape_octal(char *s);

/* A decimal number from 0 to max, all of v. */
int fcr_parse_uint(const char *v, unsigned long max, unsigned long *out);
/* "HOST", "HOST:PORT", "[V6]" or "[V6]:PORT"; *host is new (caller frees),
 * *port and *port_given are set only when a port is there. */
int fcr_parse_host_port(const char *text, char **host, unsigned *port, bool *port_given);

/* ---- JSON (util/json.c) ----------------------------------------------------- */

/* "2026-11-30T15:26:19.123Z" as a new JSON string. */
json_t *fcr_jutc(double wall);
/* A number rounded to milliseconds. */
json_t *fcr_jseconds(double s);
/* `s` as a new JSON string, bytes that are not UTF-8 replaced by U+FFFD:
 * jansson takes only UTF-8, and a command's output or a path may hold
 * anything.  (json_string() would return NULL, and the value be lost.) */
json_t *fcr_jtext(const char *s);

/* A string member of o, or NULL (borrowed). */
const char *fcr_jstr(json_t *o, const char *key);
/* A string member copied into buf ("" when absent or not a string). */
void fcr_jcopy_str(char *buf, size_t len, json_t *o, const char *key);
/* Sets o[key] to fcr_jtext(v), or to null when v is NULL. */
void fcr_jset_text(json_t *o, const char *key, const char *v);
/* Whether the manifest object o has the status s ("done", "pending" ...). */
bool fcr_has_status(json_t *o, const char *s);

#endif
