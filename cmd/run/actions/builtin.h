/* SPDX-License-Identifier: MIT */
/*
 * The built-in actions, a table per file, each ending with {.name = NULL}:
 * the catalog (providers.c) lists them in this order for parsing, --help
 * and the man page.
 */
#ifndef FCR_ACTIONS_BUILTIN_H
#define FCR_ACTIONS_BUILTIN_H

#include "action.h"

extern const struct fcr_action fcr_wait_actions[];     /* settle, wait-ssh (wait.c) */
extern const struct fcr_action fcr_command_actions[];  /* run, remote (command.c) */
extern const struct fcr_action fcr_hash_actions[];     /* hash, verify-hash (hash.c) */
extern const struct fcr_action fcr_testfile_actions[]; /* prefill, fresh-file (testfile.c) */

/* The rows of a table as man page entries (.TP, the usage, the paragraph),
 * for gen-man (actions.c); caller frees. */
char *fcr_action_man(const struct fcr_action *table);

/*
 * Where a wait-ssh step probes: its HOST[:PORT], else the ssh target's host
 * and port.  false when the step is no wait-ssh, or there is no host.
 */
bool fcr_wait_ssh_where(const struct fcr_step *step, const struct fcr_target *t, const char **host,
			unsigned *port);

#endif
