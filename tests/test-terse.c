/* SPDX-License-Identifier: MIT */
/*
 * Terse output, versions 2 to 5: the fio 3.33 samples in
 * tests/fixtures/fio-3.33 and tests/fixtures/fio-3.33/terse (see the READMEs
 * for the command lines).  Most terse/ files hold the terse line(s) and the
 * JSON of the same run (--output-format=terse,json), so every terse value is
 * checked against the JSON value, up to what terse loses: latencies are
 * truncated to whole microseconds (min, max, percentiles) or printed with
 * 6 decimals of us (mean, stddev), IOPS and KiB/s are whole numbers, sizes
 * are KiB, and the distributions have 1 or 2 decimals.
 */
#include <math.h>

#include "check-output.h"
#include "fiocamp.h"
#include "model.h"

#define FIX  "tests/fixtures/fio-3.33/"
#define TFIX FIX "terse/"

/* ---- terse against JSON ------------------------------------------------ */

static char ctx[512]; /* what is being compared, for failure messages */

/* |a - b| <= tol, with the context printed on failure */
#define NEAR(a, b, tol)                                                                            \
	do {                                                                                       \
		double near_a_ = (double)(a), near_b_ = (double)(b);                               \
		check_count++;                                                                     \
		if (!(fabs(near_a_ - near_b_) <= (tol))) {                                         \
			check_failures++;                                                          \
			fprintf(stderr, "%s:%d: %s: %s == %.17g, expected %.17g (+-%g)\n",         \
				__FILE__, __LINE__, ctx, #a, near_a_, near_b_, (double)(tol));     \
		}                                                                                  \
	} while (0)
#define SAME(a, b) NEAR(a, b, 0)

/* The whole microseconds fio 3.x prints for a nanosecond value (ns/1000). */
static double trunc_us_ns(double ns)
{
	return floor(ns / 1000.0) * 1000.0;
}

/* mean and stddev: "%f" of ns/1000 in terse, "%f" of ns in JSON */
#define MEAN_TOL_NS 0.00051

static void same_lat(const struct fc_lat *t, const struct fc_lat *j, const char *name)
{
	size_t base = strlen(ctx);
	snprintf(ctx + base, sizeof(ctx) - base, " %s", name);
	/* without samples neither reader has the latency (zeros in terse, N 0
	 * in the JSON) */
	SAME(t->present, j->present);
	if (!t->present || !j->present) {
		CHECK(isnan(t->mean_ns) && t->n_percentiles == 0);
		ctx[base] = '\0';
		return;
	}
	SAME(t->min_ns, trunc_us_ns(j->min_ns));
	SAME(t->max_ns, trunc_us_ns(j->max_ns));
	NEAR(t->mean_ns, j->mean_ns, MEAN_TOL_NS);
	NEAR(t->stddev_ns, j->stddev_ns, MEAN_TOL_NS);
	CHECK(!t->n_known);
	ctx[base] = '\0';
}

static void same_percentiles(const struct fc_lat *t, const struct fc_lat *j)
{
	SAME(t->n_percentiles, j->n_percentiles);
	if (t->n_percentiles != j->n_percentiles)
		return;
	for (size_t i = 0; i < t->n_percentiles; i++) {
		SAME(t->percentiles[i].percent, j->percentiles[i].percent);
		SAME(t->percentiles[i].value_ns, trunc_us_ns(j->percentiles[i].value_ns));
	}
}

/*
 * The share of the group's bandwidth differs by design: terse divides the
 * mean by the group's KiB/s truncated to an integer, the JSON divides the
 * mean truncated to an integer by the exact KiB/s (stat.c,
 * show_ddir_status_terse and convert_agg_kbytes_percent).  With
 * M = mean KiB/s and A = floor(group KiB/s) = M * 100 / terse%, the JSON
 * value is floor(M) * 100 / a for some a in [A, A + 1).
 */
static void same_agg_pct(const struct fc_dir *t, const struct fc_dir *j)
{
	double m = t->bw_samples.mean / 1024;
	if (t->bw_agg_pct >= 100 || m < 1) {
		/* capped at 100, or no samples */
		NEAR(t->bw_agg_pct, j->bw_agg_pct, fmax(100 - j->bw_agg_pct, 0) + 1e-6);
		return;
	}
	double a = m * 100 / t->bw_agg_pct;
	double hi = floor(m) * 100 / a, lo = floor(m) * 100 / (a + 1);
	check_count++;
	if (!(j->bw_agg_pct <= hi * (1 + 1e-6) && j->bw_agg_pct > lo * (1 - 1e-6))) {
		check_failures++;
		fprintf(stderr, "%s: JSON bw_agg %.6f not in (%.6f, %.6f] from terse %.6f\n", ctx,
			j->bw_agg_pct, lo, hi, t->bw_agg_pct);
	}
}

static void same_dir(const struct fc_dir *t, const struct fc_dir *j, int version,
		     bool lat_percentiles)
{
	CHECK(t->present && j->present);
	SAME(t->io_bytes, j->io_bytes & ~(uint64_t)1023);
	SAME(t->bw_bytes, floor(j->bw_bytes / 1024) * 1024);
	/* terse truncates; JSON's %f may round x.9999996 up to x+1 */
	CHECK(t->iops <= j->iops + 1e-6 && j->iops < t->iops + 1);
	CHECK(t->iops == floor(t->iops));
	SAME(t->runtime_ms, j->runtime_ms);
	CHECK(!t->ios_known);
	same_lat(&t->slat, &j->slat, "slat");
	same_lat(&t->clat, &j->clat, "clat");
	same_lat(&t->lat, &j->lat, "lat");
	/* with lat_percentiles=1 terse prints the lat percentiles in the
	 * clat slots; the JSON has them under lat_ns */
	same_percentiles(&t->clat, lat_percentiles ? &j->lat : &j->clat);
	/* no samples (no I/O): neither reader has the statistics */
	SAME(t->bw_samples.present, j->bw_samples.present);
	if (version >= 5)
		SAME(t->iops_samples.present, j->iops_samples.present);
	if (!t->bw_samples.present) {
		SAME(t->bw_agg_pct, j->bw_agg_pct);
		return;
	}
	same_agg_pct(t, j);
	SAME(t->bw_samples.min, j->bw_samples.min);
	SAME(t->bw_samples.max, j->bw_samples.max);
	SAME(t->bw_samples.mean, j->bw_samples.mean);
	SAME(t->bw_samples.stddev, j->bw_samples.stddev);
	if (version < 5) {
		CHECK(!t->bw_samples.n_known && !t->iops_samples.present);
		return;
	}
	CHECK(t->bw_samples.n_known && t->iops_samples.present && t->iops_samples.n_known);
	SAME(t->bw_samples.n, j->bw_samples.n);
	SAME(t->iops_samples.min, j->iops_samples.min);
	SAME(t->iops_samples.max, j->iops_samples.max);
	SAME(t->iops_samples.mean, j->iops_samples.mean);
	SAME(t->iops_samples.stddev, j->iops_samples.stddev);
	SAME(t->iops_samples.n, j->iops_samples.n);
}

static double bucket(const struct fc_buckets *b, const char *label)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->items[i].label, label) == 0)
			return b->items[i].percent;
	return NAN;
}

/* %3.1f / %3.2f in terse, %f in JSON */
static void same_buckets(const struct fc_buckets *t, const struct fc_buckets *j, double tol,
			 const struct fc_buckets *ns_into_first)
{
	CHECK(t->n > 0);
	for (size_t i = 0; i < t->n; i++) {
		double want = bucket(j, t->items[i].label);
		double t_tol = tol + 1e-6;
		if (i == 0 && ns_into_first) {
			/* terse's "<= 2 us" also holds every sub-microsecond bucket */
			for (size_t k = 0; k < ns_into_first->n; k++)
				want += ns_into_first->items[k].percent;
			t_tol += 1e-5;
		}
		NEAR(t->items[i].percent, want, t_tol);
	}
}

static void same_job(const struct fc_job *t, const struct fc_job *j, int version,
		     bool lat_percentiles)
{
	CHECK_STR(t->name, j->name);
	SAME(t->groupid, j->groupid);
	SAME(t->error, j->error);
	SAME(t->all_clients, j->all_clients);
	SAME(t->total_err, j->total_err);
	SAME(t->first_error, j->first_error);
	CHECK_STR(t->description, j->description);
	SAME(t->usr_cpu_pct, j->usr_cpu_pct);
	SAME(t->sys_cpu_pct, j->sys_cpu_pct);
	SAME(t->ctx, j->ctx);
	SAME(t->majf, j->majf);
	SAME(t->minf, j->minf);
	CHECK_INT(t->iodepth.n, 7);
	CHECK_INT(t->latency_us.n, 10);
	CHECK_INT(t->latency_ms.n, 12);
	same_buckets(&t->iodepth, &j->iodepth, 0.05, NULL);
	same_buckets(&t->latency_us, &j->latency_us, 0.005, &j->latency_ns);
	same_buckets(&t->latency_ms, &j->latency_ms, 0.005, NULL);
	size_t base = strlen(ctx);
	for (int d = 0; d < FC_DDIR_COUNT; d++) {
		if (!t->dir[d].present)
			continue;
		snprintf(ctx + base, sizeof(ctx) - base, " %s", fc_ddir_name(d));
		same_dir(&t->dir[d], &j->dir[d], version, lat_percentiles);
	}
	ctx[base] = '\0';
	CHECK(!t->dir[FC_DDIR_SYNC].present);
}

/*
 * Loads a --output-format=terse,json file: the terse run first, then the
 * JSON report of the same run.  Checks every job and disk against it and
 * returns the output (or NULL) for the caller's own checks.
 */
static struct fc_output *cross_check(const char *rel, int version, size_t n_jobs,
				     bool lat_percentiles)
{
	struct fc_output *o = load(rel, FC_OK);
	if (!o)
		return NULL;
	CHECK_INT(o->n_runs, 2);
	if (o->n_runs != 2)
		return o;
	const struct fc_run *t = &o->runs[0], *j = &o->runs[1];
	CHECK(o->final == j);
	CHECK_INT(t->format, FC_FORMAT_TERSE);
	CHECK_INT(j->format, FC_FORMAT_JSON);
	CHECK_INT(t->terse_version, version);
	CHECK_INT(t->units, FC_UNITS_LAT_US);
	if (version == 2) {
		CHECK(t->fio_version == NULL);
		CHECK_INT(t->version_major, -1);
	} else {
		CHECK_STR(t->fio_version, "fio-3.33");
		CHECK_INT(t->version_major, 3);
		CHECK_INT(t->version_minor, 33);
	}
	CHECK_INT(t->timestamp_s, -1);
	CHECK(!t->final);
	SAME(t->client_mode, j->client_mode);
	CHECK_INT(t->n_jobs, n_jobs);
	CHECK_INT(j->n_jobs, n_jobs);
	for (size_t i = 0; i < t->n_jobs && i < j->n_jobs; i++) {
		snprintf(ctx, sizeof(ctx), "%s job %zu", rel, i);
		CHECK_INT(t->jobs[i].index, i);
		SAME(t->jobs[i].clone, j->jobs[i].clone);
		same_job(&t->jobs[i], &j->jobs[i], version, lat_percentiles);
	}
	/* v2 prints no disk util */
	CHECK_INT(t->n_disks, version == 2 ? 0 : j->n_disks);
	for (size_t i = 0; i < t->n_disks && i < j->n_disks; i++) {
		const struct fc_disk *a = &t->disks[i], *b = &j->disks[i];
		snprintf(ctx, sizeof(ctx), "%s disk %zu", rel, i);
		CHECK_STR(a->name, b->name);
		SAME(a->read_ios, b->read_ios);
		SAME(a->write_ios, b->write_ios);
		SAME(a->read_merges, b->read_merges);
		SAME(a->write_merges, b->write_merges);
		SAME(a->read_ticks_ms, b->read_ticks_ms);
		SAME(a->write_ticks_ms, b->write_ticks_ms);
		SAME(a->in_queue_ms, b->in_queue_ms);
		NEAR(a->util_pct, b->util_pct, 0.005 + 1e-6);
		CHECK_INT(a->read_sectors, -1);
		CHECK(a->hostname == NULL);
	}
	return o;
}

/* Which direction blocks a terse job line had. */
static unsigned dirs_of(const struct fc_job *j)
{
	unsigned m = 0;
	for (int d = 0; d < FC_DDIR_COUNT; d++)
		if (j->dir[d].present)
			m |= 1u << d;
	return m;
}

#define R (1u << FC_DDIR_READ)
#define W (1u << FC_DDIR_WRITE)
#define T (1u << FC_DDIR_TRIM)
#define M (1u << FC_DDIR_MIXED)

static void test_versions(void)
{
	struct fc_output *o = cross_check(TFIX "v2_randrw.txt", 2, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(dirs_of(j), R | W | T);
		CHECK_INT(o->runs[0].line, 1);
		CHECK_INT(o->runs[1].line, 2);
		CHECK_STR(j->name, "t2");
		/* 2;t2;0;0;6976;6962;1740;1002;0;0;0.000000;0.000000;75;7992;251.744238;... */
		CHECK_U64(j->dir[FC_DDIR_READ].io_bytes, 6976ull * 1024);
		CHECK_DBL(j->dir[FC_DDIR_READ].bw_bytes, 6962.0 * 1024, 0);
		CHECK_DBL(j->dir[FC_DDIR_READ].iops, 1740, 0);
		CHECK_U64(j->dir[FC_DDIR_READ].runtime_ms, 1002);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.min_ns, 75000, 0);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.max_ns, 7992000, 0);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.mean_ns, 251744.238, 1e-15);
		CHECK_INT(j->dir[FC_DDIR_READ].clat.n_percentiles, 17);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.percentiles[0].percent, 1.0, 0);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.percentiles[0].value_ns, 87000, 0);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.percentiles[16].percent, 99.99, 0);
		/* no I/O in the trim block: no percentiles, as in the JSON */
		CHECK_INT(j->dir[FC_DDIR_TRIM].clat.n_percentiles, 0);
		CHECK_U64(j->dir[FC_DDIR_TRIM].io_bytes, 0);
		CHECK_INT(j->total_err, -1);
		CHECK(j->description == NULL);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v3_randrw.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(dirs_of(j), R | W);
		CHECK_U64(j->dir[FC_DDIR_WRITE].io_bytes, 9520ull * 1024);
		CHECK_INT(o->runs[0].n_disks, 1);
		CHECK_STR(o->runs[0].disks[0].name, "vda");
		/* ...;vda;2098;2206;0;0;241;288;528;43.72% */
		CHECK_U64(o->runs[0].disks[0].read_ios, 2098);
		CHECK_U64(o->runs[0].disks[0].in_queue_ms, 528);
		CHECK_DBL(o->runs[0].disks[0].util_pct, 43.72, 0);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v4_randrw.txt", 4, 1, false);
	if (o && o->n_runs == 2) {
		CHECK_INT(dirs_of(&o->runs[0].jobs[0]), R | W | T);
		CHECK_U64(o->runs[0].jobs[0].dir[FC_DDIR_READ].io_bytes, 8336ull * 1024);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v5_randrw.txt", 5, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_dir *rd = &o->runs[0].jobs[0].dir[FC_DDIR_READ];
		CHECK_INT(dirs_of(&o->runs[0].jobs[0]), R | W | T);
		CHECK_U64(rd->io_bytes, 9412ull * 1024);
		CHECK(rd->iops_samples.present && rd->bw_samples.n_known);
		CHECK(rd->iops_samples.n > 0);
		CHECK(rd->iops_samples.min <= rd->iops_samples.mean);
		CHECK(rd->iops_samples.mean <= rd->iops_samples.max);
		fc_output_free(o);
	}
}

static void test_unified(void)
{
	struct fc_output *o = cross_check(TFIX "v3_mixed.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(dirs_of(j), M);
		CHECK_U64(j->dir[FC_DDIR_MIXED].io_bytes, 16408ull * 1024);
		CHECK_INT(o->runs[0].n_disks, 1);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v3_both.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(dirs_of(j), R | W | M);
		/* the mixed block sums read and write */
		CHECK_U64(j->dir[FC_DDIR_MIXED].io_bytes,
			  j->dir[FC_DDIR_READ].io_bytes + j->dir[FC_DDIR_WRITE].io_bytes);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v5_mixed.txt", 5, 1, false);
	if (o && o->n_runs == 2) {
		CHECK_INT(dirs_of(&o->runs[0].jobs[0]), M);
		CHECK_U64(o->runs[0].jobs[0].dir[FC_DDIR_MIXED].io_bytes, 20052ull * 1024);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v5_both.txt", 5, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(dirs_of(j), R | W | T | M);
		CHECK_U64(j->dir[FC_DDIR_MIXED].io_bytes,
			  j->dir[FC_DDIR_READ].io_bytes + j->dir[FC_DDIR_WRITE].io_bytes);
		fc_output_free(o);
	}
}

static void test_jobs_errors_descriptions(void)
{
	/* numjobs=2: two lines with the same name, each with the same disk
	 * record, which the run keeps once */
	struct fc_output *o = cross_check(TFIX "v3_numjobs2.txt", 3, 2, false);
	if (o && o->n_runs == 2) {
		const struct fc_run *r = &o->runs[0];
		CHECK_INT(r->jobs[0].clone, 0);
		CHECK_INT(r->jobs[1].clone, 1);
		CHECK_U64(r->jobs[1].dir[FC_DDIR_READ].io_bytes, 19520ull * 1024);
		CHECK_INT(r->n_disks, 1);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v3_coe.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(j->error, 28);
		CHECK_INT(j->total_err, 3580);
		CHECK_INT(j->first_error, 28);
		CHECK(j->description == NULL);
		CHECK_INT(o->runs[0].n_disks, 1);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v3_description.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		CHECK_STR(o->runs[0].jobs[0].description, "a terse test");
		CHECK_INT(o->runs[0].jobs[0].total_err, -1);
		CHECK_INT(o->runs[0].n_disks, 1);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v5_coe_description.txt", 5, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(j->total_err, 4239);
		CHECK_INT(j->first_error, 28);
		CHECK_STR(j->description, "errors and a description");
		CHECK_STR(o->runs[0].disks[0].name, "vda");
		fc_output_free(o);
	}
	/* v2: the description on a line of its own, after total_err;first_error */
	o = cross_check(TFIX "v2_coe_description.txt", 2, 1, false);
	if (o && o->n_runs == 2) {
		const struct fc_job *j = &o->runs[0].jobs[0];
		CHECK_INT(j->total_err, 5716);
		CHECK_INT(j->first_error, 28);
		CHECK_STR(j->description, "v2 puts me on a line of my own");
		CHECK_INT(o->n_diags, 0);
		fc_output_free(o);
	}
	o = cross_check(TFIX "v3_lat_percentiles.txt", 3, 1, true);
	if (o && o->n_runs == 2) {
		const struct fc_lat *c = &o->runs[0].jobs[0].dir[FC_DDIR_READ].clat;
		CHECK_INT(c->n_percentiles, 17);
		CHECK_DBL(c->percentiles[12].percent, 99.0, 0);
		CHECK_DBL(c->percentiles[12].value_ns, 468000, 0);
		fc_output_free(o);
	}
}

static void test_client(void)
{
	const char *files[] = {TFIX "client_v3.txt", TFIX "client_v5.txt"};
	for (int v = 0; v < 2; v++) {
		struct fc_output *o = cross_check(files[v], v ? 5 : 3, 3, false);
		if (!o || o->n_runs != 2) {
			fc_output_free(o);
			continue;
		}
		const struct fc_run *r = &o->runs[0];
		CHECK(r->client_mode);
		CHECK_STR(r->jobs[0].name, "jobA");
		CHECK_STR(r->jobs[1].name, "jobB");
		CHECK(!r->jobs[0].all_clients && !r->jobs[1].all_clients);
		CHECK(r->jobs[2].all_clients);
		CHECK(r->jobs[0].hostname == NULL); /* terse does not say */
		/* jobA reads, jobB writes */
		CHECK(r->jobs[0].dir[FC_DDIR_READ].io_bytes > 0);
		CHECK_U64(r->jobs[0].dir[FC_DDIR_WRITE].io_bytes, 0);
		CHECK_U64(r->jobs[1].dir[FC_DDIR_READ].io_bytes, 0);
		CHECK(r->jobs[1].dir[FC_DDIR_WRITE].io_bytes > 0);
		/* the "All clients" line prints no percentiles (0%=0 slots) */
		CHECK_INT(r->jobs[2].dir[FC_DDIR_READ].clat.n_percentiles, 0);
		CHECK_INT(r->n_disks, 1);
		fc_output_free(o);
	}

	/* two servers: one ";vda;..." line after each server's job line */
	struct fc_output *o = load(FIX "client_2servers_terse_stdout.txt", FC_OK);
	if (o) {
		CHECK_INT(o->n_runs, 1);
		const struct fc_run *r = o->final;
		CHECK_INT(r->format, FC_FORMAT_TERSE);
		CHECK(r->client_mode);
		CHECK_INT(r->n_jobs, 3);
		CHECK_INT(r->jobs[0].clone, 0);
		CHECK_INT(r->jobs[1].clone, 1); /* same name, and terse names no host */
		CHECK(r->jobs[2].all_clients);
		CHECK_U64(r->jobs[0].dir[FC_DDIR_READ].io_bytes, 43156ull * 1024);
		CHECK_U64(r->jobs[2].dir[FC_DDIR_READ].io_bytes, 86596ull * 1024);
		CHECK_DBL(r->jobs[2].dir[FC_DDIR_READ].bw_agg_pct, 85.574911, 0);
		CHECK_INT(r->n_disks, 2);
		CHECK_STR(r->disks[0].name, "vda");
		CHECK_U64(r->disks[0].read_ios, 8633);
		CHECK_U64(r->disks[0].write_ios, 707);
		CHECK_U64(r->disks[0].write_merges, 1);
		CHECK_DBL(r->disks[0].util_pct, 70.46, 0);
		CHECK_U64(r->disks[1].read_ios, 8529);
		CHECK_DBL(r->disks[1].util_pct, 71.15, 0);
		/* banners, "Starting" and "Jobs:" lines */
		CHECK_INT(o->n_diags, 5);
		fc_output_free(o);
	}
}

static void test_older_fixtures(void)
{
	struct fc_output *o = load(FIX "terse_v3_randrw.txt", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(o->n_runs, 1);
		CHECK_INT(r->format, FC_FORMAT_TERSE);
		CHECK_INT(r->terse_version, 3);
		CHECK(!r->client_mode);
		const struct fc_job *j = &r->jobs[0];
		CHECK_STR(j->name, "randrw_t3");
		const struct fc_dir *rd = &j->dir[FC_DDIR_READ];
		CHECK_U64(rd->io_bytes, 93040ull * 1024);
		CHECK_DBL(rd->bw_bytes, 46496.0 * 1024, 0);
		CHECK_DBL(rd->iops, 11624, 0);
		CHECK_U64(rd->runtime_ms, 2001);
		CHECK(!rd->slat.present && isnan(rd->slat.mean_ns)); /* psync: no slat */
		CHECK_DBL(rd->clat.min_ns, 25000, 0);
		CHECK_DBL(rd->clat.max_ns, 1607000, 0);
		CHECK_DBL(rd->clat.mean_ns, 41534.954, 1e-15);
		CHECK_DBL(rd->clat.stddev_ns, 17757.032, 1e-15);
		CHECK_INT(rd->clat.n_percentiles, 17);
		CHECK_DBL(rd->clat.percentiles[12].percent, 99.0, 0);
		CHECK_DBL(rd->clat.percentiles[12].value_ns, 91000, 0);
		CHECK_DBL(rd->lat.mean_ns, 41651.564, 1e-15);
		CHECK_DBL(rd->bw_samples.min, 44768.0 * 1024, 0);
		CHECK_DBL(rd->bw_samples.max, 49224.0 * 1024, 0);
		CHECK_DBL(rd->bw_agg_pct, 100, 0);
		CHECK_DBL(rd->bw_samples.mean, 47018.666667 * 1024, 1e-15);
		CHECK_DBL(rd->bw_samples.stddev, 2228.345874 * 1024, 1e-15);
		CHECK(!rd->bw_samples.n_known && !rd->iops_samples.present);
		CHECK_U64(j->dir[FC_DDIR_WRITE].io_bytes, 92376ull * 1024);
		CHECK(!j->dir[FC_DDIR_TRIM].present && !j->dir[FC_DDIR_MIXED].present);
		CHECK_DBL(j->usr_cpu_pct, 4.55, 0);
		CHECK_DBL(j->sys_cpu_pct, 42.05, 0);
		CHECK_U64(j->ctx, 45402);
		CHECK_U64(j->majf, 0);
		CHECK_U64(j->minf, 14);
		CHECK_STR(j->iodepth.items[0].label, "1");
		CHECK_DBL(j->iodepth.items[0].percent, 100, 0);
		CHECK_STR(j->iodepth.items[6].label, ">=64");
		CHECK_STR(j->latency_us.items[4].label, "50");
		CHECK_DBL(j->latency_us.items[4].percent, 90.69, 0);
		CHECK_STR(j->latency_ms.items[11].label, ">=2000");
		CHECK_INT(j->total_err, -1);
		CHECK_INT(r->n_disks, 1);
		CHECK_U64(r->disks[0].read_ios, 21849);
		CHECK_DBL(r->disks[0].util_pct, 73.17, 0);
		fc_output_free(o);
	}
	o = load(FIX "terse_v5_randrw.txt", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->terse_version, 5);
		CHECK_INT(dirs_of(&r->jobs[0]), R | W | T);
		CHECK(r->jobs[0].dir[FC_DDIR_READ].iops_samples.n_known);
		CHECK_INT(r->n_disks, 1);
		fc_output_free(o);
	}
	/* normal, terse and JSON of one run in one stream */
	o = cross_check(FIX "stdout_normal_terse_json_combined.txt", 3, 1, false);
	if (o && o->n_runs == 2) {
		CHECK_INT(o->runs[0].line, 4);
		CHECK_U64(o->runs[0].jobs[0].dir[FC_DDIR_READ].io_bytes, 1145268ull * 1024);
		CHECK(o->n_diags > 10); /* banner and normal output */
		fc_output_free(o);
	}
}

/* ---- detection and bad input -------------------------------------------- */

static int detect(const char *s)
{
	return fc_terse_detect(s, strlen(s));
}

static void test_detect(void)
{
	CHECK_INT(detect("3;fio-3.33;x;0;0;1"), 3);
	CHECK_INT(detect("5;fio-3.36-115-gabc;x;0;0"), 5);
	CHECK_INT(detect("7;fio-3.33;x"), 7); /* claimed, refused by the parser */
	CHECK_INT(detect("2;any name;0;0;12"), 2);
	CHECK_INT(detect("2;n;0;-5;12;7"), 2);
	CHECK_INT(detect("2;fio-name;0;0;1"), 2);
	/* what fio prints besides terse */
	CHECK_INT(detect("fio-3.33"), 0);
	CHECK_INT(detect("Jobs: 1 (f=1): [r(1)][50.0%][r=40.2MiB/s][eta 00m:01s]"), 0);
	CHECK_INT(detect("t3: (g=0): rw=randrw, bs=(R) 4096B-4096B, ioengine=psync"), 0);
	CHECK_INT(detect("Starting 1 process"), 0);
	CHECK_INT(detect("  read: IOPS=4114, BW=16.1MiB/s (16.9MB/s)(16.1MiB/1001msec)"), 0);
	CHECK_INT(detect("Run status group 0 (all jobs):"), 0);
	CHECK_INT(
	    detect("  vda: ios=2098/2206, merge=0/0, ticks=241/288, in_queue=528, util=43.72%"), 0);
	CHECK_INT(detect("{"), 0);
	CHECK_INT(detect("  \"jobs\" : ["), 0);
	CHECK_INT(detect("<vm> note: both iodepth >= 1 and synchronous I/O engine"), 0);
	CHECK_INT(detect("fio: terminating on signal 2"), 0);
	CHECK_INT(detect("1000, 5, 0, 4096, 0"), 0);
	CHECK_INT(detect(";vda;1;2;3;4;5;6;7;8.00%"), 0);
	CHECK_INT(detect("0;fio-3.33"), 0);
	CHECK_INT(detect("3;"), 0);
	CHECK_INT(detect("3;fio"), 0);
	CHECK_INT(detect("2;name;0"), 0);
	CHECK_INT(detect("2;name;x;0;1"), 0);
	CHECK_INT(detect("2;name;0;0;1x"), 0);
	CHECK_INT(detect("2;a;b;c"), 0);
	CHECK_INT(detect("123;fio-3.33"), 0);
	CHECK_INT(detect(""), 0);
}

/* Reads `text` and checks the status, error position and message. */
static void bad_line(const char *text, int expect, unsigned long line, unsigned long column,
		     const char *msg)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	memset(&e, 0, sizeof(e));
	int rc = fc_output_read_buffer(text, strlen(text), "bad", &o, &e);
	CHECK_INT(rc, expect);
	CHECK(o == NULL);
	CHECK_STR(e.source, "bad");
	CHECK_INT(e.line, line);
	if (column) /* 0: any column */
		CHECK_INT(e.column, column);
	if (!strstr(e.message, msg)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", e.message, msg);
		CHECK(0);
	}
	fc_output_free(o);
}

/* A v3 line of one read/write job, with `block` as its read block. */
static char *v3_line(char *buf, size_t len, const char *block, const char *tail)
{
	static const char pcts[] = "1.000000%=1;5.000000%=2;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;"
				   "0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0;0%=0";
	char good[2048];
	snprintf(good, sizeof(good),
		 "8;4;1;2000;0;0;0.000000;0.000000;1;9;2.5;1.0;%s;1;9;2.6;1.0;"
		 "4;4;100.000000%%;4.000000;0.000000",
		 pcts);
	snprintf(buf, len,
		 "3;fio-3.33;j;0;0;%s;%s;1.0%%;2.0%%;10;0;5;100.0%%;0.0%%;0.0%%;0.0%%;0.0%%;"
		 "0.0%%;0.0%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;"
		 "0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;0.00%%;"
		 "0.00%%;0.00%%%s\n",
		 block ? block : good, good, tail);
	return buf;
}

static void test_bad_input(void)
{
	char buf[8192];

	/* the hand-made line itself is good */
	v3_line(buf, sizeof(buf), NULL,
		";md0;1;2;3;4;5;6;7;8.00%;slaves;1;2;3;4;5;6;7;9.50%;"
		"sdb;1;1;1;1;1;1;1;1.00%;2;5;x;y");
	struct fc_output *o = NULL;
	struct fc_error e;
	CHECK_INT(fc_output_read_buffer(buf, strlen(buf), "good", &o, &e), FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		const struct fc_job *j = &r->jobs[0];
		CHECK_INT(dirs_of(j), R | W);
		CHECK_U64(j->dir[FC_DDIR_READ].io_bytes, 8192);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.mean_ns, 2500, 0);
		CHECK_INT(j->dir[FC_DDIR_READ].clat.n_percentiles, 2);
		CHECK_DBL(j->dir[FC_DDIR_READ].clat.percentiles[1].value_ns, 2000, 0);
		CHECK_INT(r->n_disks, 2); /* md0 with its slaves' averages, then sdb */
		CHECK_STR(r->disks[0].name, "md0");
		CHECK_U64(r->disks[0].in_queue_ms, 7);
		CHECK_DBL(r->disks[0].util_pct, 8, 0);
		CHECK_STR(r->disks[1].name, "sdb");
		CHECK_INT(j->total_err, 2);
		CHECK_INT(j->first_error, 5);
		CHECK_STR(j->description, "x;y"); /* fio does not escape ';' */
		fc_output_free(o);
	}

	/* too few fields */
	bad_line("3;fio-3.33;j;0;0;8;4\n", FC_E_SYNTAX, 1, 21,
		 "terse field 8: expected the IOPS (a whole number), but the line ends after 7 "
		 "fields");
	bad_line("banner\n2;j;0;0;8\n", FC_E_SYNTAX, 2, 10,
		 "terse field 6: expected the bandwidth in KiB/s, but the line ends after 5");
	/* a non-number where a number belongs */
	bad_line("3;fio-3.33;j;0;0;8;4;x1;2000\n", FC_E_SYNTAX, 1, 22,
		 "terse field 8: expected the IOPS (a whole number), found \"x1\"");
	bad_line("3;fio-3.33;j;0;0;8;4;\x01\xff\\x;2000\n", FC_E_SYNTAX, 1, 22,
		 "found \"\\x01\\xff\\x5cx\""); /* escaped: the message stays one line */
	bad_line("3;fio-3.33;j;zero;0;8\n", FC_E_SYNTAX, 1, 14,
		 "terse field 4: expected the group id, found \"zero\"");
	bad_line(v3_line(buf, sizeof(buf),
			 "8;4;1;2000;0;0;0.000000;0.000000;1;9;2.5;1.0;1.000000%=1;5%=two", ""),
		 FC_E_SYNTAX, 1, 0,
		 "terse field 19: expected a percentile \"P%=V\" (V in us), "
		 "found \"5%=two\"");
	bad_line(v3_line(buf, sizeof(buf), "8;4;1;2000;0;0;0.000000;0.000000;1;9;mean", ""),
		 FC_E_SYNTAX, 1, 0, "terse field 16: expected clat mean (us), found \"mean\"");
	/* an unknown version */
	bad_line("7;fio-3.33;j;0;0;8;4;1\n", FC_E_SYNTAX, 1, 1,
		 "terse field 1: expected terse version 2, 3, 4 or 5, found \"7\"");
	bad_line("1;fio-1.0;j\n", FC_E_SYNTAX, 1, 1, "found \"1\"");
	/* v4 needs a trim block: two blocks are a v3 line */
	v3_line(buf, sizeof(buf), NULL, "");
	buf[0] = '4';
	bad_line(buf, FC_E_SYNTAX, 1, 0,
		 "expected 1, 3 or 4 direction blocks of 41 fields from field 6 for terse "
		 "version 4, found 2");
	/* a cut line ends inside the distributions */
	v3_line(buf, sizeof(buf), NULL, "");
	char *cut = strstr(buf, ";10;0;5;");
	if (cut) {
		strcpy(cut, ";10;0\n");
		bad_line(buf, FC_E_SYNTAX, 1, 0,
			 "terse field 92: expected the minor faults, but the line ends after 91 "
			 "fields");
	}
	/* a disk line that is not one */
	v3_line(buf, sizeof(buf), NULL, "\n;vda;1;2;x\n");
	bad_line(buf, FC_E_SYNTAX, 2, 0, "terse field 5: expected disk read merges, found \"x\"");
	/* v2 (here of fio < 2.1, without a trim block): one description line */
	v3_line(buf, sizeof(buf), NULL, "\n;first\n;second");
	memmove(buf + 2, buf + 11, strlen(buf + 11) + 1); /* "3;fio-3.33;" -> "2;" */
	buf[0] = '2';
	bad_line(buf, FC_E_SYNTAX, 3, 1, "a second description line for terse job \"j\"");
	char *second = strstr(buf, "\n;second");
	if (second) {
		second[1] = '\0';
		CHECK_INT(fc_output_read_buffer(buf, strlen(buf), "v2", &o, &e), FC_OK);
		if (o) {
			CHECK_INT(o->final->terse_version, 2);
			CHECK_INT(dirs_of(&o->final->jobs[0]), R | W);
			CHECK_STR(o->final->jobs[0].description, "first");
			fc_output_free(o);
		}
	}
}

int main(void)
{
	test_detect();
	test_versions();
	test_unified();
	test_jobs_errors_descriptions();
	test_client();
	test_older_fixtures();
	test_bad_input();
	return check_exit();
}
