/* SPDX-License-Identifier: MIT */
/* Looking names up in the tables of this binary (catalog.h). */
#include "catalog.h"

#include <string.h>

const struct fcr_action *fcr_catalog_builtin(const struct fcr_catalog *cat, size_t i)
{
	for (const struct fcr_action *const *t = cat->builtin; *t; t++) {
		for (const struct fcr_action *a = *t; a->name; a++) {
			if (i-- == 0)
				return a;
		}
	}
	return NULL;
}

const struct fcr_action *fcr_catalog_action(const struct fcr_catalog *cat,
					    const struct fcr_provider *p, const char *name,
					    bool *from_provider)
{
	*from_provider = false;
	for (size_t i = 0; fcr_catalog_builtin(cat, i); i++) {
		if (!strcmp(fcr_catalog_builtin(cat, i)->name, name))
			return fcr_catalog_builtin(cat, i);
	}
	for (const struct fcr_action *a = p ? p->actions : NULL; a && a->name; a++) {
		if (!strcmp(a->name, name)) {
			*from_provider = true;
			return a;
		}
	}
	return NULL;
}

const struct fcr_provider *fcr_catalog_provider(const struct fcr_catalog *cat, const char *type,
						bool *planned)
{
	*planned = false;
	for (const struct fcr_provider *const *p = cat->providers; *p; p++) {
		if (!strcmp((*p)->type, type))
			return *p;
	}
	for (const char *const *t = cat->planned; *t; t++) {
		if (!strcmp(*t, type))
			*planned = true;
	}
	return NULL;
}

char *fcr_catalog_types(const struct fcr_catalog *cat)
{
	struct cm_buf b = {0};
	for (const struct fcr_provider *const *p = cat->providers; *p; p++)
		cm_buf_printf(&b, "%s%s", p == cat->providers ? "" : ", ", (*p)->type);
	return cm_buf_take(&b);
}

char *fcr_catalog_usages(const struct fcr_catalog *cat)
{
	struct cm_buf b = {0};
	for (size_t i = 0; fcr_catalog_builtin(cat, i); i++)
		cm_buf_printf(&b, "%s%s", i ? ", " : "", fcr_catalog_builtin(cat, i)->usage);
	return cm_buf_take(&b);
}
