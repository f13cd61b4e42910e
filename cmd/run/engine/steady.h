/* SPDX-License-Identifier: MIT */
/*
 * rounds = until-steady MAX: whether a repetition's rounds so far are
 * steady, by SNIA PTS's rule on each test's headline metric (lib's
 * fc_steady_window), for every test of the state on every variant and size.
 * The verdict is the manifest's "steady" object (docs/campaign-directory.md).
 */
#ifndef FCR_STEADY_H
#define FCR_STEADY_H

#include <jansson.h>

#include "campaign/campaign.h"

/*
 * The verdict after rounds 1..n of rep_obj's "rounds" (borrowed) of state
 * st: a new object {reached, round, rounds, window, max, metric,
 * tests[{test, variant, size, point, metric, reached, round, range,
 * slope}]}, a series for each run of round n (a test on a variant, size
 * and sweep point, as its manifest entry names them), found in the earlier
 * rounds by those names whatever order a round ran them in.  Runs not done
 * count as not steady; before a whole window has run nothing is steady.
 */
json_t *fcr_steady_verdict(const struct fcr_state *st, json_t *rep_obj, unsigned n);

/* The verdict as a line: "reached at round 6 (window 5)", "not steady after
 * 10 rounds (window 5): rr4k range 34%".  Caller frees. */
char *fcr_steady_describe(json_t *verdict);

#endif
