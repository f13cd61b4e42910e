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

struct fcr_state {
	char *name;
	unsigned line;
	struct fcr_step *actions;
	size_t n_actions;
};

enum fcr_target_kind { FCR_TARGET_LOCAL, FCR_TARGET_SSH };

struct fcr_campaign {
	char *source; /* the file name used in messages */
	char *text;   /* the file's bytes, for the copy in the campaign directory */
	size_t text_len;

	char *name;
	struct cm_strv suite; /* entries as written: names or paths */
	unsigned rounds;
	uint64_t pause_ms;
	uint64_t runtime_ms;
	uint64_t wait_timeout_ms;
	char *directory;
	uint64_t size_bytes;
	char *size_text;
	bool prefill;
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

/* The test file on the target: <directory>/fiocamp.testfile. */
char *fcr_campaign_test_file(const struct fcr_campaign *c);

#endif
