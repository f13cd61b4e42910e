/* SPDX-License-Identifier: MIT */
/*
 * fio's client/server mode: one run is every client's entries at once and
 * "All clients", their sum.  Each client's share of a test in each column,
 * over the column's rounds: the client's IOPS and MiB/s (its entries, each
 * summed over its directions) and their part of the clients' sum.  fio's
 * "All clients" is shown as fio reports it: its rate is the bytes of all
 * over the longest runtime, a little less than the clients' sum when they
 * did not end at once, so the shares are of the sum (they add up to 100).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"

/* A job's IOPS and MiB/s over its directions (mixed counted only where
 * it stands alone: unified_rw_reporting=both repeats the others in it). */
static void job_rates(const struct an_job *j, double *iops, double *mibs)
{
	*iops = *mibs = 0;
	for (size_t k = 0; k < AN_N_REPORT_DIRS; k++) {
		enum fc_ddir d = an_report_dirs[k];
		const struct an_dirvals *dv = &j->dir[d];
		if (!dv->present || (d == FC_DDIR_MIXED && j->dir[FC_DDIR_READ].present))
			continue;
		if (isfinite(dv->v[AN_M_IOPS]))
			*iops += dv->v[AN_M_IOPS];
		if (isfinite(dv->v[AN_M_BW]))
			*mibs += dv->v[AN_M_BW];
	}
}

/* A client's rates in run r: the sum of its entries (client NULL: of
 * every client's); the aggregate's with `all` ("All clients", else every
 * client's sum).  False when the run has none of its entries. */
static bool client_rates(const struct an_run *r, const char *client, bool all, double *iops,
			 double *mibs)
{
	bool any = false, has_all = false;
	for (size_t j = 0; j < r->n_jobs && all; j++)
		has_all |= r->jobs[j].all_clients;
	*iops = *mibs = 0;
	for (size_t j = 0; j < r->n_jobs; j++) {
		const struct an_job *jb = &r->jobs[j];
		if (!jb->client)
			continue;
		bool mine = all ? (has_all ? jb->all_clients : true)
				: !jb->all_clients && (!client || strcmp(jb->client, client) == 0);
		if (!mine)
			continue;
		double i, m;
		job_rates(jb, &i, &m);
		*iops += i;
		*mibs += m;
		any = true;
	}
	return any;
}

static void med_min_max(double *v, size_t n, double *med, double *min, double *max)
{
	*med = an_median(v, n);
	*min = *max = NAN;
	for (size_t i = 0; i < n; i++) {
		if (isnan(*min) || v[i] < *min)
			*min = v[i];
		if (isnan(*max) || v[i] > *max)
			*max = v[i];
	}
}

/* The clients of a column's runs of a test in the order of their jobs
 * (each run's are in the campaign's order), the aggregate last. */
static size_t clients_of(const struct an_analysis *a, const size_t *runs, size_t n,
			 const char ***out)
{
	const char **names = NULL;
	size_t k = 0, cap = 0;
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[runs[q]];
		for (size_t j = 0; j < r->n_jobs; j++) {
			const struct an_job *jb = &r->jobs[j];
			if (!jb->client || jb->all_clients)
				continue;
			bool seen = false;
			for (size_t i = 0; i < k && !seen; i++)
				seen = strcmp(names[i], jb->client) == 0;
			if (!seen)
				*CM_PUSH(names, k, cap) = jb->client;
		}
	}
	*out = names;
	return k;
}

static void add_share(struct an_analysis *a, size_t t, size_t col, const size_t *runs, size_t n,
		      const char *client, bool all, bool by_bw)
{
	double *iops = cm_calloc(n, sizeof(*iops)), *mibs = cm_calloc(n, sizeof(*mibs));
	double *share = cm_calloc(n, sizeof(*share));
	size_t k = 0, ks = 0;
	for (size_t q = 0; q < n; q++) {
		const struct an_run *r = &a->runs[runs[q]];
		double i, m, ai, am;
		if (!client_rates(r, client, all, &i, &m))
			continue;
		iops[k] = i;
		mibs[k] = m;
		k++;
		if (client_rates(r, NULL, false, &ai, &am)) {
			double whole = by_bw ? am : ai, part = by_bw ? m : i;
			if (whole > 0)
				share[ks++] = 100.0 * part / whole;
		}
	}
	struct an_client_share *s = CM_PUSH(a->shares, a->n_shares, a->cap_shares);
	s->test = t;
	s->col = col;
	s->client = cm_strdup(all ? "All clients" : client);
	s->all = all;
	s->n = k;
	med_min_max(iops, k, &s->iops, &s->iops_min, &s->iops_max);
	med_min_max(mibs, k, &s->mibs, &s->mibs_min, &s->mibs_max);
	s->share_pct = all ? (k ? 100.0 : NAN) : an_median(share, ks);
	free(iops);
	free(mibs);
	free(share);
}

void an_client_shares_build(struct an_analysis *a)
{
	size_t *runs = cm_calloc(a->n_runs ? a->n_runs : 1, sizeof(*runs));
	for (size_t t = 0; t < a->n_tests; t++) {
		bool by_bw = an_wl_large_blocks(a->tests[t].workload);
		for (size_t col = 0; col < a->n_cols; col++) {
			const struct an_col *c = &a->cols[col];
			size_t n = 0;
			for (size_t i = 0; i < a->n_runs; i++) {
				const struct an_run *r = &a->runs[i];
				if (r->accepted && r->client_mode && r->test == t &&
				    r->state == c->state && r->variant == c->variant)
					runs[n++] = i;
			}
			if (!n)
				continue;
			const char **names;
			size_t k = clients_of(a, runs, n, &names);
			for (size_t i = 0; i < k; i++)
				add_share(a, t, col, runs, n, names[i], false, by_bw);
			add_share(a, t, col, runs, n, NULL, true, by_bw);
			free(names);
		}
	}
	free(runs);
}
