/* SPDX-License-Identifier: MIT */
/*
 * The campaign file parser's own state and helpers, shared by campaign.c
 * (the sections and keys) and variants.c (the [variant NAME] sections, the
 * sizes and the units they make).  Not for the rest of fiocamp-run.
 */
#ifndef FCR_CAMPAIGN_PARSER_H
#define FCR_CAMPAIGN_PARSER_H

#include <jansson.h>

#include "campaign/campaign.h"

/* The [campaign] keys: p->seen[] holds the line each was set on. */
enum ckey {
	K_NAME,
	K_SUITE,
	K_ROUNDS,
	K_PAUSE,
	K_TARGET,
	K_DIRECTORY,
	K_SIZE,
	K_RUNTIME,
	K_PREFILL,
	K_IOENGINE,
	K_DIRECT,
	K_SSH_PORT,
	K_SSH_OPTIONS,
	K_WAIT_TIMEOUT,
	K_KEEP_FILE,
	K_VARIANTS,
	K_ORDER,
	K_DISTURBED,
	K_STEADY_WINDOW,
	K_SWEEP,
	K_HOSTS,
	K_SYNC,
	K_MODE,
	K_PARALLEL_TRANSITIONS,
};

/* The keys of a [variant NAME] section. */
enum vkey { VK_DIRECTORY, VK_FILENAME, VK_DESTRUCTIVE, VK_SIZE, VK_BEFORE, VK_COUNT };

/* A [variant NAME] section as it is read; ordered by `variants =` at the end. */
struct variant_section {
	struct fcr_variant v;
	unsigned seen[VK_COUNT];
	bool listed;
};

struct parser {
	struct fcr_campaign *c;
	const struct fcr_catalog *cat; /* what names are looked up in (borrowed) */
	struct cm_strv *errors;
	const char *source;
	unsigned line;
	int n_errors;
	/* where each [campaign] key was set, 0 = not set */
	unsigned seen[32];
	bool in_campaign, in_provider;
	bool had_campaign, had_provider;
	bool any_section;
	struct fcr_state *state;
	struct variant_section *vsecs;
	size_t n_vsecs;
	struct variant_section *vsec; /* the section at hand */
	struct cm_strv variant_names; /* from `variants =` */
	/* the states so far: name -> its line, and c->states' capacity, so that
	 * a campaign of many states is read in linear time */
	json_t *state_lines;
	size_t cap_states;
	/* the [host NAME] sections in the order of the file (hosts.c), the
	 * one at hand, and the names of `hosts =` */
	struct fcr_host *hsecs;
	size_t n_hsecs;
	struct fcr_host *hsec;
	bool in_bad_host; /* in a [host NAME] section already reported wrong */
	struct cm_strv host_names;
	/* the host the campaign is read for (NULL: the fleet's own view) as an
	 * earlier reading of the file found it: its keys replace the same keys
	 * of [campaign] and [provider], and are read at their own lines in
	 * [host NAME] */
	const struct fcr_host *apply;
	bool in_applied_host; /* in the [host NAME] of `apply` */
};

/* "file:line: message" into the errors (at most CAMPAIGN_MAX_ERRORS). */
void fcr_cp_error(struct parser *p, unsigned line, const char *fmt, ...) CM_PRINTF(3, 4);
/* yes/true/1/on, no/false/0/off: 0, or -1 when it is none of them. */
int fcr_cp_bool(const char *v, bool *out);
/* A `before = a; b; c` list of actions into *actions. */
void fcr_cp_before(struct parser *p, const char *value, struct fcr_step **actions, size_t *n);
void fcr_cp_steps_release(struct fcr_step *steps, size_t n);

/* sweep.c */
void fcr_cp_sweep(struct parser *p, const char *v, struct fcr_sweep *out);
void fcr_cp_sweep_release(struct fcr_sweep *s);

/* variants.c */
void fcr_cp_sizes(struct parser *p, const char *v, struct fcr_size **out, size_t *n_out);
uint64_t fcr_cp_largest_size(const struct fcr_size *sizes, size_t n);
void fcr_cp_variant_name(struct parser *p, const char *name);
void fcr_cp_variant_key(struct parser *p, const char *key, char *v);
void fcr_cp_variant_action(struct parser *p, struct fcr_variant *v, size_t idx);
void fcr_cp_finish_variants(struct parser *p);
void fcr_cp_variant_release(struct fcr_variant *v);

/* The index of a [campaign] key in enum ckey, or -1. */
int fcr_cp_campaign_key(const char *key);
void fcr_cp_parse_campaign_key(struct parser *p, const char *key, char *v);
/* A [provider] key into c->provider_keys (a duplicate is an error). */
void fcr_cp_provider_key(struct parser *p, const char *key, const char *v);

/* hosts.c */
/* Whether a [host NAME] section may set this [campaign] key. */
bool fcr_cp_host_campaign_key(const char *key);
/* The key of `apply` (the host read for) named so, or NULL. */
const struct fcr_provider_key *fcr_cp_applied_key(const struct parser *p, const char *key);
void fcr_cp_hosts_list(struct parser *p, const char *v);
void fcr_cp_host_section(struct parser *p, const char *name);
void fcr_cp_host_key(struct parser *p, const char *key, char *v);
void fcr_cp_finish_hosts(struct parser *p);
/* Before the provider checks its keys: a host's keys without a provider. */
void fcr_cp_host_provider_keys(struct parser *p);
void fcr_cp_host_release(struct fcr_host *h);
/* The fleet's hosts as each reads the file (hosts[i] for fleet->hosts[i]):
 * two must not drive one provider instance, nor share a test file's place
 * on one machine. */
void fcr_cp_check_hosts_apart(const struct fcr_campaign *fleet, struct fcr_campaign *const *hosts,
			      struct cm_strv *errors);

#endif
