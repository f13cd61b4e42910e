/* SPDX-License-Identifier: MIT */
/*
 * The campaign file: an INI file like fio's job files with the sections
 * [campaign], [provider] and [state NAME].  fcr_campaign_parse() reads and checks
 * all of it before anything runs, and reports every problem as
 * "file:line: message".  See fiocamp-campaign(5).
 */
#ifndef FCR_CAMPAIGN_H
#define FCR_CAMPAIGN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "action.h"
#include "fcr.h"
#include "provider.h"

/* The longest campaign, state or test name, in bytes: each becomes a file
 * or directory name with more added to it (NAME_MAX is 255). */
#define FCR_NAME_MAX_BYTES 200

/* How often a state may repeat its actions and rounds. */
#define FCR_REPEAT_MAX 1000

struct fcr_state {
	char *name;
	unsigned line;
	struct fcr_step *actions;
	size_t n_actions;
	unsigned repeat; /* its actions and rounds run this often (1..FCR_REPEAT_MAX) */
	unsigned rounds; /* its own `rounds`, else the campaign's; 0: only its actions */
	/* the tests of its rounds (its own `suite`, else the campaign's), as
	 * indices into the campaign's suite */
	size_t *tests;
	size_t n_tests;
	/* while the file is read: its own suite, and where its keys were set */
	struct cm_strv own_suite;
	unsigned repeat_line, rounds_line, suite_line;
};

enum fcr_target_kind { FCR_TARGET_LOCAL, FCR_TARGET_SSH };

struct fcr_campaign {
	char *source; /* the file name used in messages */
	char *text;   /* the file's bytes, for the copy in the campaign directory */
	size_t text_len;

	char *name;
	/* entries as written (names or paths): the campaign's `suite`, then the
	 * tests only a state's own `suite` names; every state's tests index it */
	struct cm_strv suite;
	unsigned rounds; /* the campaign's; each state has its own (fcr_state) */
	uint64_t pause_ms;
	uint64_t runtime_ms;
	uint64_t wait_timeout_ms;
	char *directory;
	uint64_t size_bytes;
	char *size_text;
	bool prefill;
	bool keep_file;	     /* keep the test file when the campaign is done */
	bool uses_test_file; /* a round, the prefill or an action needs it */
	char *ioengine;
	int direct;

	char *target_text;
	enum fcr_target_kind target;
	char *ssh_dest;	   /* "user@host" or "host" */
	char *ssh_host;	   /* host alone, for probes */
	unsigned ssh_port; /* 22 unless given */
	bool ssh_port_given;
	struct cm_strv ssh_options; /* from ssh-options, shell-split */

	char *provider_type; /* "none" when there is no [provider] */
	unsigned provider_line;
	struct fcr_provider_key *provider_keys;
	size_t n_provider_keys;
	const struct fcr_provider *provider; /* NULL when not built in */

	struct fcr_state *states;
	size_t n_states;
};

/*
 * Parses `len` bytes of `text` (copied) named `source` in messages.  On
 * success returns 0 with *out set (free with fcr_campaign_free).  On failure
 * returns -1 and appends one "source:line: message" per problem to errors.
 */
int fcr_campaign_parse(const char *text, size_t len, const char *source, struct fcr_campaign **out,
		       struct cm_strv *errors);
void fcr_campaign_free(struct fcr_campaign *c);

/* The [provider] section as the provider reads it (borrows from c). */
struct fcr_provider_section fcr_campaign_provider_section(const struct fcr_campaign *c);

/* The test file on the target: <directory>/fiocamp.testfile (NULL when the
 * campaign has no directory: it needs no test file). */
char *fcr_campaign_test_file(const struct fcr_campaign *c);

#endif
