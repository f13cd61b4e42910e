/* SPDX-License-Identifier: MIT */
/*
 * The campaign file: an INI file like fio's job files with the sections
 * [campaign], [provider], [state NAME], [variant NAME] and [host NAME].
 * fcr_campaign_parse() reads and checks
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
/* The most rounds of a state, and of a steady window. */
#define FCR_ROUNDS_MAX 10000
/* The defaults of `disturbed =` (docs/fiocamp-campaign.5 says why) */
#define FCR_DISTURBED_STEAL	 0.05
#define FCR_DISTURBED_FOREIGN_IO 0.05

/*
 * A sweep: workload options varied on purpose.  `sweep = iodepth=1,16
 * numjobs=1,2` makes four points, the product of the lists: the option
 * written first varies slowest, each list in the order written.  Every test
 * runs at every point; the job file takes each option from its FIOCAMP_*
 * variable (fiocamp-campaign(5), JOB FILE VARIABLES).
 */
enum fcr_sweep_opt {
	FCR_SWEEP_IODEPTH,
	FCR_SWEEP_NUMJOBS,
	FCR_SWEEP_BS,
	FCR_SWEEP_RW,
	FCR_SWEEP_RWMIXREAD,
	FCR_SWEEP_OPTS
};
/* The most points of one sweep: each multiplies the runs of every round. */
#define FCR_SWEEP_POINTS_MAX 1024

struct fcr_sweep_axis {
	enum fcr_sweep_opt opt;
	struct cm_strv values; /* as written, checked */
};

struct fcr_sweep {
	struct fcr_sweep_axis axes[FCR_SWEEP_OPTS]; /* in the order written */
	size_t n_axes;				    /* 0: no sweep (one point) */
	size_t n_points;			    /* the product; 1 without a sweep */
	char *text;				    /* as written; NULL without */
	unsigned line;
};

/* "iodepth", and the job file's variable "FIOCAMP_IODEPTH". */
const char *fcr_sweep_opt_name(enum fcr_sweep_opt o);
const char *fcr_sweep_opt_env(enum fcr_sweep_opt o);
/* Axis a's value at point p (0 <= p < n_points); borrowed. */
const char *fcr_sweep_value(const struct fcr_sweep *s, size_t p, size_t a);
/* "iodepth=16,numjobs=2" of point p ("" without a sweep); caller frees. */
char *fcr_sweep_point_name(const struct fcr_sweep *s, size_t p);
/* "TEST@iodepth=16,numjobs=2" (TEST without a sweep): the run's file
 * names and its name everywhere; caller frees. */
char *fcr_sweep_run_name(const struct fcr_sweep *s, size_t p, const char *test);

struct fcr_state {
	char *name;
	unsigned line;
	struct fcr_step *actions;
	size_t n_actions;
	unsigned repeat; /* its actions and rounds run this often (1..FCR_REPEAT_MAX) */
	unsigned rounds; /* its own `rounds`, else the campaign's; 0: only its actions */
	/* rounds = until-steady MAX: rounds is MAX, and they end early once the
	 * last steady_window rounds of every test are steady (engine/steady.c);
	 * 0: a fixed number of rounds */
	unsigned steady_max;
	unsigned steady_window; /* its own `steady-window`, else the campaign's */
	/* the tests of its rounds (its own `suite`, else the campaign's), as
	 * indices into the campaign's suite */
	size_t *tests;
	size_t n_tests;
	/* the points its rounds run each test at: its own `sweep`, else the
	 * campaign's (borrowed; n_points 1 without a sweep) */
	const struct fcr_sweep *sweep;
	/* while the file is read: its own suite, and where its keys were set */
	struct cm_strv own_suite;
	struct fcr_sweep own_sweep;
	unsigned repeat_line, rounds_line, suite_line, window_line, sweep_line;
};

enum fcr_target_kind { FCR_TARGET_LOCAL, FCR_TARGET_SSH };

/* The most variants, and sizes in one `size` list: each multiplies the
 * runs of every round. */
#define FCR_VARIANTS_MAX 64
#define FCR_SIZES_MAX	 16

/* One data-set size, as written and in bytes. */
struct fcr_size {
	uint64_t bytes;
	char *text;
};

/*
 * A [variant NAME]: a place on the machine where every test of every round
 * runs too (a storage backend: a directory on it, or its raw block device).
 */
struct fcr_variant {
	char *name;
	unsigned line;
	char *directory; /* the test file is <directory>/fiocamp.testfile, or */
	char *filename;	 /* the block device itself */
	bool destructive;
	struct fcr_size *sizes; /* its own `size`, else a copy of the campaign's */
	size_t n_sizes;
	/* run, remote, settle: done before the variant's first use in a state */
	struct fcr_step *actions;
	size_t n_actions;
	char *test_file;
	uint64_t file_bytes; /* the largest size: what the test file must hold */
};

/*
 * What a round runs its suite on: a variant at one of its sizes (or, in a
 * campaign without variants, the campaign's test file at one of its sizes).
 * A campaign without variants and with one size has one unit whose dir is
 * "": its layout is the one of a campaign before variants existed.
 */
struct fcr_unit {
	const struct fcr_variant *variant; /* NULL: no variants */
	size_t variant_index;
	const struct fcr_size *size;
	char *dir;   /* below <state>/r<N>/: "a", "a/16G", "16G" or "" */
	char *label; /* in messages: "a", "a 16G", "16G" */
};

enum fcr_order { FCR_ORDER_INTERLEAVED, FCR_ORDER_SEQUENTIAL };

/* A fleet: `hosts =` names machines that run the campaign at once, one
 * engine each.  sync = states: every host enters each repetition of each
 * state together (a barrier); none: each host goes its own pace. */
enum fcr_sync { FCR_SYNC_STATES, FCR_SYNC_NONE };
/* mode = fleet: each host runs the whole campaign on itself; aggregate:
 * every test runs once on all hosts at the same moment (one load from many
 * clients, through fio's client/server mode). */
enum fcr_mode { FCR_MODE_FLEET, FCR_MODE_AGGREGATE };

/* The most hosts of a fleet: each is one engine (a process) at once. */
#define FCR_HOSTS_MAX 64

/*
 * A host of `hosts =`, in that order, and its [host NAME] section (none
 * when it only repeats [campaign]).  Its keys are kept as written; the
 * parser applies them when the campaign is read for this host
 * (fcr_campaign_parse_host()).
 */
struct fcr_host {
	char *name;
	unsigned line; /* of its [host NAME] section; of `hosts =` without one */
	bool has_section;
	/* its keys as written (key, value, file, line), campaign keys such as
	 * target and the [provider] keys alike */
	struct fcr_provider_key *keys;
	size_t n_keys;
};

struct fcr_campaign {
	char *source; /* the file name used in messages */
	char *text;   /* the file's bytes, for the copy in the campaign directory */
	size_t text_len;

	char *name;
	/* entries as written (names or paths): the campaign's `suite`, then the
	 * tests only a state's own `suite` names; every state's tests index it */
	struct cm_strv suite;
	unsigned rounds;	/* the campaign's; each state has its own (fcr_state) */
	unsigned steady_max;	/* the campaign's `rounds = until-steady MAX`, or 0 */
	unsigned steady_window; /* `steady-window`, FC_STEADY_WINDOW by default */
	uint64_t pause_ms;
	uint64_t runtime_ms;
	uint64_t wait_timeout_ms;
	char *directory;     /* NULL with variants: each has its own place */
	uint64_t size_bytes; /* the largest of `sizes` */
	char *size_text;     /* as written: "16G" or "16G 32G" */
	struct fcr_size *sizes;
	size_t n_sizes;
	bool prefill;
	bool keep_file;	     /* keep the test file when the campaign is done */
	bool uses_test_file; /* a round, the prefill or an action needs it */
	char *ioengine;
	int direct;
	/* a run is disturbed when its CPU steal or its foreign I/O share
	 * passes these (0..1; NaN: the criterion is off) */
	double disturbed_steal;
	double disturbed_foreign_io;

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

	struct fcr_variant *variants; /* in the order of `variants =` */
	size_t n_variants;
	enum fcr_order order;
	bool by_size;		/* a `size` lists more than one size: a directory level per size */
	struct fcr_unit *units; /* variants x their sizes, in that order */
	size_t n_units;
	struct fcr_sweep sweep; /* the campaign's `sweep` (n_points 1 without) */

	/* the fleet: `hosts =` (0: one machine, as before) */
	struct fcr_host *hosts;
	size_t n_hosts;
	unsigned hosts_line;	   /* of `hosts =` */
	enum fcr_sync sync;	   /* FCR_SYNC_STATES by default */
	enum fcr_mode mode;	   /* FCR_MODE_FLEET by default */
	bool parallel_transitions; /* hosts on one Proxmox node transition at once */
	/* the host this campaign was read for, its keys applied over
	 * [campaign]/[provider] (n_hosts is still the fleet's); NULL otherwise */
	char *host;
};

/*
 * Parses `len` bytes of `text` (copied) named `source` in messages, its
 * actions and provider looked up in `cat` (borrowed; main.c passes
 * fcr_catalog(), providers.h).  On success returns 0 with *out set (free
 * with fcr_campaign_free).  On failure returns -1 and appends one
 * "source:line: message" per problem to errors.
 */
struct fcr_catalog;
int fcr_campaign_parse(const char *text, size_t len, const char *source,
		       const struct fcr_catalog *cat, struct fcr_campaign **out,
		       struct cm_strv *errors);
/*
 * The same for one host of a fleet.  host NULL: fcr_campaign_parse() (the
 * fleet's own view: the [campaign]/[provider] values, the hosts listed,
 * every host's keys checked).  A host's name: that host's [host NAME] keys
 * are applied over [campaign]/[provider], and the result is an ordinary
 * one-machine campaign with c->host set; a name not in `hosts =` is an
 * error.
 */
int fcr_campaign_parse_host(const char *text, size_t len, const char *source,
			    const struct fcr_catalog *cat, const char *host,
			    struct fcr_campaign **out, struct cm_strv *errors);
void fcr_campaign_free(struct fcr_campaign *c);
/* The host named `name` of c's fleet, or NULL (borrowed). */
const struct fcr_host *fcr_campaign_find_host(const struct fcr_campaign *c, const char *name);

/* The [provider] section as the provider reads it (borrows from c). */
struct fcr_provider_section fcr_campaign_provider_section(const struct fcr_campaign *c);

/* The test file on the target: <directory>/fiocamp.testfile (NULL when the
 * campaign has no directory: it needs no test file, or its variants have
 * their own). */
char *fcr_campaign_test_file(const struct fcr_campaign *c);
/* The test file in a directory, the campaign's or a variant's:
 * <directory>/fiocamp.testfile.  Caller frees. */
char *fcr_campaign_test_file_in(const char *directory);

/* Whether rounds run on units (variants, or several sizes) rather than
 * as a campaign before variants existed. */
bool fcr_campaign_has_units(const struct fcr_campaign *c);

/* The position in c->units of the k-th unit that round r (from 1) runs.
 * Interleaved, the variants rotate: round r starts with variant (r - 1)
 * mod n, each variant's sizes together in their order (without variants
 * the sizes rotate); sequential, always unit k. */
size_t fcr_campaign_unit_at(const struct fcr_campaign *c, unsigned r, size_t k);

/* The runs of state st in one round of one unit: its tests at each point. */
size_t fcr_state_runs(const struct fcr_state *st);
/* The j-th run of round r (from 1) of state st in a unit: test *ti (an index
 * into st->tests) at point *point.  The points run in their order, each with
 * the whole suite; interleaved, round r starts with point (r - 1) mod n
 * (like the variants), sequential always with the first. */
void fcr_state_run_at(const struct fcr_campaign *c, const struct fcr_state *st, unsigned r,
		      size_t j, size_t *ti, size_t *point);

#endif
