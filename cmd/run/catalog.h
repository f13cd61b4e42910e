/* SPDX-License-Identifier: MIT */
/*
 * What the names of a campaign file are looked up in: the built-in rows and
 * the providers of this binary.  The tables themselves are providers.c's
 * (fcr_catalog(), providers.h); the parser is handed them by its caller,
 * so that it depends on none of the rows it reads the names of.
 */
#ifndef FCR_CATALOG_H
#define FCR_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "provider.h"

struct fcr_catalog {
	/* the built-in rows: tables each ending with {.name = NULL}, in the
	 * order of parsing, --help and the man page; the list ends with NULL */
	const struct fcr_action *const *builtin;
	const struct fcr_provider *const *providers; /* NULL-terminated */
	const char *const *planned; /* types known but not built in yet, NULL-terminated */
};

/* The i-th built-in row, NULL past the last. */
const struct fcr_action *fcr_catalog_builtin(const struct fcr_catalog *cat, size_t i);
/* The row of `name`: a built-in one, else provider p's (p may be NULL);
 * *from_provider says which. */
const struct fcr_action *fcr_catalog_action(const struct fcr_catalog *cat,
					    const struct fcr_provider *p, const char *name,
					    bool *from_provider);
/* The provider of `type`, or NULL; then *planned says whether the type is
 * known but not built into this binary yet (so the message can say so). */
const struct fcr_provider *fcr_catalog_provider(const struct fcr_catalog *cat, const char *type,
						bool *planned);
/* The built-in provider types, comma separated, for messages; caller frees. */
char *fcr_catalog_types(const struct fcr_catalog *cat);
/* The usages of the built-in rows, comma separated; caller frees. */
char *fcr_catalog_usages(const struct fcr_catalog *cat);

#endif
