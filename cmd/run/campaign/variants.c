/* SPDX-License-Identifier: MIT */
/*
 * The campaign file's [variant NAME] sections and data-set sizes: read,
 * checked against each other and the states, and turned into the units a
 * round runs (each variant at each size), in the order a round runs them.
 */
#include <stdio.h>
#include <string.h>

#include "action.h"
#include "campaign/parser.h"
#include "catalog.h"

static const char *const variant_keys[VK_COUNT] = {
    [VK_DIRECTORY] = "directory", [VK_FILENAME] = "filename", [VK_DESTRUCTIVE] = "destructive",
    [VK_SIZE] = "size",		  [VK_BEFORE] = "before",
};

/* `size = 16G 32G`: each size once, in the order written, each of them a
 * directory name when there are several. */
void fcr_cp_sizes(struct parser *p, const char *v, struct fcr_size **out, size_t *n_out)
{
	struct cm_strv words = {0};
	struct fcr_error err;
	if (fcr_shell_split(v, &words, &err) < 0) {
		fcr_cp_error(p, p->line, "size: %s", err.msg);
		return;
	}
	if (words.n > FCR_SIZES_MAX) {
		fcr_cp_error(p, p->line, "size lists %zu sizes; at most %d", words.n,
			     FCR_SIZES_MAX);
		cm_strv_release(&words);
		return;
	}
	struct fcr_size *sizes = cm_calloc(words.n + 1, sizeof(*sizes));
	size_t n = 0;
	bool bad = false;
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		uint64_t b;
		char why[256];
		if (cm_parse_size_bytes(w, &b, why, sizeof(why)) < 0) {
			fcr_cp_error(p, p->line, "size: %s", why);
			bad = true;
			continue;
		}
		if (b < 1024 * 1024) {
			fcr_cp_error(p, p->line, "size '%s' is smaller than 1M", w);
			bad = true;
			continue;
		}
		if (b > INT64_MAX) {
			fcr_cp_error(p, p->line, "size '%s' is larger than a file can be", w);
			bad = true;
			continue;
		}
		if (words.n > 1 && !cm_campaign_name_ok(w)) {
			fcr_cp_error(p, p->line,
				     "size '%s' names a directory when several are given: letters, "
				     "digits, '.', '_', '-' (e.g. 16G)",
				     w);
			bad = true;
			continue;
		}
		for (size_t j = 0; j < n; j++) {
			if (sizes[j].bytes == b) {
				fcr_cp_error(p, p->line,
					     "size '%s' is given twice (as '%s' before)", w,
					     sizes[j].text);
				bad = true;
				break;
			}
		}
		sizes[n].bytes = b;
		sizes[n++].text = cm_strdup(w);
	}
	cm_strv_release(&words);
	if (bad || n == 0) {
		for (size_t i = 0; i < n; i++)
			free(sizes[i].text);
		free(sizes);
		return;
	}
	for (size_t i = 0; i < *n_out; i++)
		free((*out)[i].text);
	free(*out);
	*out = sizes;
	*n_out = n;
}

uint64_t fcr_cp_largest_size(const struct fcr_size *sizes, size_t n)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++)
		m = sizes[i].bytes > m ? sizes[i].bytes : m;
	return m;
}

/* A variant's name becomes a directory of every round; an earlier attempt
 * of it is moved aside as NAME.interrupted-K or NAME.failed-K. */
void fcr_cp_variant_name(struct parser *p, const char *name)
{
	if (!cm_campaign_name_ok(name)) {
		fcr_cp_error(p, p->line, "bad variant name '%s' (letters, digits, '.', '_', '-')",
			     name);
		return;
	}
	if (strlen(name) > FCR_NAME_MAX_BYTES)
		fcr_cp_error(p, p->line, "variant name '%.40s...' is longer than %d bytes", name,
			     FCR_NAME_MAX_BYTES);
	else if (strstr(name, ".interrupted-") || strstr(name, ".failed-"))
		fcr_cp_error(p, p->line,
			     "variant name '%s' looks like a directory moved aside "
			     "(NAME.interrupted-K, NAME.failed-K)",
			     name);
}

void fcr_cp_variant_key(struct parser *p, const char *key, char *v)
{
	struct variant_section *vs = p->vsec;
	struct fcr_variant *var = &vs->v;
	size_t k;
	for (k = 0; k < VK_COUNT; k++) {
		if (!strcmp(variant_keys[k], key))
			break;
	}
	if (k == VK_COUNT) {
		fcr_cp_error(p, p->line,
			     "unknown key '%s' in [variant %s] (expected directory, filename, "
			     "destructive, size, before)",
			     key, var->name);
		return;
	}
	if (k == VK_BEFORE) {
		fcr_cp_before(p, v, &var->actions, &var->n_actions);
		vs->seen[k] = vs->seen[k] ? vs->seen[k] : p->line;
		return;
	}
	if (vs->seen[k]) {
		fcr_cp_error(p, p->line, "'%s' was already set on line %u", key, vs->seen[k]);
		return;
	}
	vs->seen[k] = p->line;
	if (!*v) {
		fcr_cp_error(p, p->line, "'%s' needs a value", key);
		return;
	}
	switch ((enum vkey)k) {
	case VK_DIRECTORY:
	case VK_FILENAME:
		if (v[0] != '/')
			fcr_cp_error(p, p->line, "%s '%s' must be an absolute path", key, v);
		else if (strpbrk(v, ":\n\\"))
			fcr_cp_error(p, p->line, "%s '%s' must not contain ':' or '\\'", key, v);
		if (k == VK_DIRECTORY)
			var->directory = cm_strdup(v);
		else
			var->filename = cm_strdup(v);
		break;
	case VK_DESTRUCTIVE:
		if (fcr_cp_bool(v, &var->destructive) < 0)
			fcr_cp_error(p, p->line, "bad destructive '%s' (expected yes or no)", v);
		break;
	case VK_SIZE:
		fcr_cp_sizes(p, v, &var->sizes, &var->n_sizes);
		break;
	case VK_BEFORE:
	case VK_COUNT:
		break;
	}
}

/*
 * A variant's `before` prepares its place (mount it, make a volume): the
 * machine's state changes belong to the states, and the test file's
 * actions (prefill, fresh-file) to the campaign's `prefill`.
 */
void fcr_cp_variant_action(struct parser *p, struct fcr_variant *v, size_t idx)
{
	struct fcr_campaign *c = p->c;
	struct fcr_step *a = &v->actions[idx];
	if (a->words.n == 0)
		return;
	static const char *const allowed[] = {"run", "remote", "settle"};
	const char *name = a->words.v[0];
	bool ok = false;
	for (size_t i = 0; i < CM_ARRAY_SIZE(allowed); i++)
		ok |= !strcmp(allowed[i], name);
	if (!ok) {
		fcr_cp_error(p, a->line,
			     "'%s' cannot be in a variant's before (run, remote and settle can; "
			     "what changes the machine belongs to a [state])",
			     name);
		return;
	}
	bool from_provider;
	const struct fcr_action *def = fcr_catalog_action(p->cat, NULL, name, &from_provider);
	a->def = def;
	int nargs = (int)a->words.n - 1;
	if (nargs < def->min_args || (def->max_args >= 0 && nargs > def->max_args)) {
		fcr_cp_error(p, a->line, "'%s': wrong number of arguments (usage: %s)", a->text,
			     def->usage);
		return;
	}
	struct fcr_check_ctx cx = {.c = c, .state = NULL, .index = idx};
	struct fcr_error err;
	if (def->check && def->check(&cx, a, &err) < 0)
		fcr_cp_error(p, a->line, "%s", err.msg);
}

static void copy_sizes(struct fcr_variant *v, const struct fcr_size *sizes, size_t n)
{
	v->sizes = cm_calloc(n + 1, sizeof(*v->sizes));
	for (size_t i = 0; i < n; i++)
		v->sizes[i] = (struct fcr_size){sizes[i].bytes, cm_strdup(sizes[i].text)};
	v->n_sizes = n;
}

/* The variants in the order of `variants =`, each checked; then the units
 * the rounds run on. */
void fcr_cp_finish_variants(struct parser *p)
{
	struct fcr_campaign *c = p->c;
	struct cm_strv *names = &p->variant_names;
	unsigned list_line = p->seen[K_VARIANTS];
	if (list_line && names->n == 0)
		fcr_cp_error(p, list_line, "'variants' lists no variants");
	if (names->n && p->seen[K_DIRECTORY])
		fcr_cp_error(
		    p, p->seen[K_DIRECTORY],
		    "'directory' is not used with variants: each [variant NAME] says where "
		    "its test file lives (directory = or filename =)");
	c->variants = cm_calloc(names->n + 1, sizeof(*c->variants));
	for (size_t i = 0; i < names->n; i++) {
		bool again = false; /* reported where the list is read */
		for (size_t j = 0; j < i; j++)
			again |= !strcmp(names->v[i], names->v[j]);
		if (again)
			continue;
		struct variant_section *vs = NULL;
		for (size_t j = 0; j < p->n_vsecs && !vs; j++) {
			if (!p->vsecs[j].listed && !strcmp(p->vsecs[j].v.name, names->v[i]))
				vs = &p->vsecs[j];
		}
		if (!vs) {
			fcr_cp_error(p, list_line, "variant '%s' has no [variant %s] section",
				     names->v[i], names->v[i]);
			continue;
		}
		vs->listed = true;
		struct fcr_variant *v = &vs->v;
		const unsigned *seen = vs->seen;
		if (!v->directory == !v->filename)
			fcr_cp_error(p, seen[VK_FILENAME] ? seen[VK_FILENAME] : v->line,
				     "[variant %s] needs either 'directory' (where its test file "
				     "lives) or 'filename' (a block device), not %s",
				     v->name, v->directory ? "both" : "neither");
		if (v->filename && !v->destructive)
			fcr_cp_error(p, seen[VK_FILENAME],
				     "[variant %s]: filename = %s writes over the device; refused "
				     "unless the section says destructive = yes",
				     v->name, v->filename);
		if (seen[VK_DESTRUCTIVE] && !v->filename)
			fcr_cp_error(
			    p, seen[VK_DESTRUCTIVE],
			    "[variant %s]: 'destructive' is only meaningful with filename =",
			    v->name);
		if (!v->n_sizes) {
			if (!c->n_sizes && !seen[VK_SIZE])
				fcr_cp_error(p, v->line,
					     "[variant %s] has no size, and [campaign] none either "
					     "(e.g. size = 4G)",
					     v->name);
			copy_sizes(v, c->sizes, c->n_sizes);
		}
		for (size_t j = 0; j < v->n_actions; j++)
			fcr_cp_variant_action(p, v, j);
		for (size_t j = 0; j < i; j++) {
			const struct fcr_variant *o = &c->variants[j];
			const char *here = v->directory ? v->directory : v->filename;
			const char *there = o->directory ? o->directory : o->filename;
			if (here && there && !strcmp(here, there))
				fcr_cp_error(p, v->line, "variants '%s' and '%s' both use %s",
					     o->name, v->name, here);
		}
		v->file_bytes = fcr_cp_largest_size(v->sizes, v->n_sizes);
		if (v->directory) {
			v->test_file = fcr_campaign_test_file_in(v->directory);
		} else if (v->filename) {
			v->test_file = cm_strdup(v->filename);
		}
		c->variants[c->n_variants++] = *v;
		memset(v, 0, sizeof(*v));
	}
	for (size_t j = 0; j < p->n_vsecs; j++) {
		struct variant_section *vs = &p->vsecs[j];
		if (!vs->listed)
			fcr_cp_error(p, vs->v.line,
				     "[variant %s] is not listed in 'variants' of [campaign]%s",
				     vs->v.name, list_line ? "" : " (add variants = NAME ...)");
	}
	bool swept = false;
	for (size_t i = 0; i < c->n_states; i++)
		swept |= c->states[i].sweep && c->states[i].sweep->n_points > 1;
	if (p->seen[K_ORDER] && !c->n_variants && c->n_sizes < 2 && !swept)
		fcr_cp_error(p, p->seen[K_ORDER],
			     "'order' needs variants, several sizes or a sweep");

	c->by_size = c->n_sizes > 1;
	for (size_t i = 0; i < c->n_variants; i++)
		c->by_size |= c->variants[i].n_sizes > 1;
	/* the units: each variant (or the campaign's one place) at each size */
	size_t nv = c->n_variants ? c->n_variants : 1;
	for (size_t i = 0; i < nv; i++) {
		const struct fcr_variant *v = c->n_variants ? &c->variants[i] : NULL;
		const struct fcr_size *sizes = v ? v->sizes : c->sizes;
		size_t ns = v ? v->n_sizes : c->n_sizes;
		for (size_t k = 0; k < ns; k++) {
			c->units = cm_realloc(c->units, c->n_units + 1, sizeof(*c->units));
			struct fcr_unit *u = &c->units[c->n_units++];
			*u = (struct fcr_unit){.variant = v, .variant_index = i, .size = &sizes[k]};
			if (v && c->by_size) {
				u->dir = cm_asprintf("%s/%s", v->name, sizes[k].text);
				u->label = cm_asprintf("%s %s", v->name, sizes[k].text);
			} else if (v) {
				u->dir = cm_strdup(v->name);
				u->label = cm_strdup(v->name);
			} else {
				u->dir = cm_strdup(c->by_size ? sizes[k].text : "");
				u->label = cm_strdup(sizes[k].text);
			}
		}
	}
}

void fcr_cp_variant_release(struct fcr_variant *v)
{
	free(v->name);
	free(v->directory);
	free(v->filename);
	for (size_t i = 0; i < v->n_sizes; i++)
		free(v->sizes[i].text);
	free(v->sizes);
	fcr_cp_steps_release(v->actions, v->n_actions);
	free(v->test_file);
}

bool fcr_campaign_has_units(const struct fcr_campaign *c)
{
	return c->n_variants > 0 || c->by_size;
}

size_t fcr_campaign_unit_at(const struct fcr_campaign *c, unsigned r, size_t k)
{
	if (c->order == FCR_ORDER_SEQUENTIAL || c->n_units == 0)
		return k;
	if (!c->n_variants)
		return ((size_t)(r - 1) + k) % c->n_units;
	/* the variants rotate; each one's sizes stay together, in their order */
	size_t first = (size_t)(r - 1) % c->n_variants;
	for (size_t i = 0; i < c->n_variants; i++) {
		size_t vi = (first + i) % c->n_variants;
		if (k < c->variants[vi].n_sizes) {
			size_t at = 0;
			for (size_t j = 0; j < vi; j++)
				at += c->variants[j].n_sizes;
			return at + k;
		}
		k -= c->variants[vi].n_sizes;
	}
	return 0;
}
