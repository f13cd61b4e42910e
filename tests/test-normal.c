/* SPDX-License-Identifier: MIT */
/*
 * fio's normal output.  Every file in tests/fixtures/fio-3.33/normal is what
 * one fio 3.33 run wrote with --output-format=normal,json (see its README):
 * the test splits it into the JSON document(s) and the rest, reads both,
 * and checks that the normal report gives the JSON's numbers within what
 * the text keeps.  fio prints them with num2str() (4 significant
 * characters), "%5.02f" of the unit it chose, "%3.2f%%" and "%3.1f%%";
 * percentiles are whole units rounded up.
 */
#include <math.h>

#include "check-output.h"
#include "fiocamp.h"

#define NFIX "tests/fixtures/fio-3.33/normal/"

static char ctx[512]; /* what is being compared, for failure messages */

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
/* the same, or both NaN (not reported) */
#define SAME_OR_NAN(a, b)                                                                          \
	do {                                                                                       \
		double same_a_ = (double)(a), same_b_ = (double)(b);                               \
		if (isnan(same_a_) && isnan(same_b_))                                              \
			check_count++;                                                             \
		else                                                                               \
			SAME(same_a_, same_b_);                                                    \
	} while (0)

/* ---- what the text keeps ------------------------------------------------- */

/*
 * One unit in the last digit num2str(v, maxlen, ...) prints: it divides by
 * `thousand` until the integer part has at most maxlen digits, then shows
 * decimals only if two or more characters are left.  What it prints is
 * within one such unit of v.
 */
static double n2s_ulp(double v, int maxlen, double thousand)
{
	double unit = 1;
	while (floor(v) >= pow(10, maxlen)) {
		v /= thousand;
		unit *= thousand;
	}
	int digits = v < 1 ? 1 : (int)floor(log10(floor(v))) + 1;
	if (unit > 1 && maxlen - digits > 1)
		unit *= pow(10, -(maxlen - digits - 1));
	return unit;
}

/*
 * What a report of the fio version being compared keeps: fio >= 2.17 prints
 * sizes and rates in IEC and SI units with 4 characters (the finer counts);
 * before, once with 6 digits, K and M of 1024, and decimals that are no
 * fraction (num2str rounded the remainder up a digit at a time), good to one
 * unit of the prefix.  fio < 2.99 measured latencies in whole microseconds
 * and had no nanosecond shares (they were in the first microsecond one).
 */
struct precision {
	bool old_sizes; /* fio < 2.17 */
	bool us;	/* fio < 2.99 */
};
static const struct precision fio_3_33 = {false, false};
static const struct precision *prec = &fio_3_33;

static double n2s_tol(double v)
{
	if (!prec->old_sizes)
		return fmin(n2s_ulp(v, 4, 1024), n2s_ulp(v, 4, 1000));
	double unit = 1;
	while (floor(v) >= 1e6) {
		v /= 1024;
		unit *= 1024;
	}
	return unit;
}

/* The unit display_lat() picks for a latency (stat.h nsec_to_usec/_msec;
 * usec_to_msec before 2.99). */
static double lat_unit(const struct fc_lat *l)
{
	if (prec->us) {
		double mn = floor(l->min_ns / 1000), mx = floor(l->max_ns / 1000);
		bool ms = mn > 1000 && mx > 1000 && l->mean_ns > 1e6 && l->stddev_ns > 1e6;
		return ms ? 1e6 : 1e3;
	}
	if (l->min_ns > 2000000 && l->max_ns > 99999999 && l->stddev_ns > 1000000)
		return 1e6;
	if (l->min_ns > 2000 && l->max_ns > 99999 && l->stddev_ns > 1000)
		return 1e3;
	return 1;
}

/* The unit show_clat_percentiles() picks for a set of percentiles. */
static double pct_unit(const struct fc_lat *l)
{
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < l->n_percentiles; i++) {
		lo = fmin(lo, l->percentiles[i].value_ns);
		hi = fmax(hi, l->percentiles[i].value_ns);
	}
	if (lo > 2000000 && hi > 99999999)
		return 1e6;
	if (lo > 2000 && hi > 99999)
		return 1e3;
	return 1;
}

static void same_lat(const struct fc_lat *n, const struct fc_lat *j, const char *name)
{
	size_t base = strlen(ctx);
	snprintf(ctx + base, sizeof(ctx) - base, " %s", name);
	SAME(n->present, j->present);
	if (!n->present || !j->present) {
		ctx[base] = '\0';
		return;
	}
	double u = lat_unit(j);
	/* min and max: whole units, 6 characters */
	NEAR(n->min_ns, j->min_ns, fmax(u, n2s_ulp(floor(j->min_ns / u), 6, 1000) * u));
	NEAR(n->max_ns, j->max_ns, fmax(u, n2s_ulp(floor(j->max_ns / u), 6, 1000) * u));
	NEAR(n->mean_ns, j->mean_ns, 0.005 * u + 1e-6 * u);
	NEAR(n->stddev_ns, j->stddev_ns, 0.005 * u + 1e-6 * u);
	CHECK(!n->n_known);
	SAME(n->n_percentiles, j->n_percentiles);
	if (n->n_percentiles == j->n_percentiles) {
		double d = pct_unit(j);
		for (size_t i = 0; i < n->n_percentiles; i++) {
			NEAR(n->percentiles[i].percent, j->percentiles[i].percent, 0.005 + 1e-9);
			/* whole units, rounded up (+999 / 1000 once or twice); fio
			 * < 2.99 measured whole microseconds */
			double v = j->percentiles[i].value_ns;
			double lo = prec->us ? v - 1000 : v;
			if (prec->us && d < 1e3)
				d = 1e3;
			check_count++;
			if (!(n->percentiles[i].value_ns >= lo &&
			      n->percentiles[i].value_ns < v + d)) {
				check_failures++;
				fprintf(stderr, "%s: percentile %g: %g not in [%g, %g)\n", ctx,
					j->percentiles[i].percent, n->percentiles[i].value_ns, v,
					v + d);
			}
		}
	}
	ctx[base] = '\0';
}

/* bw samples are KiB/s; above 1 GiB/s fio shows whole MiB/s (min, max
 * truncated) */
static void same_bw_samples(const struct fc_samples *n, const struct fc_samples *j)
{
	SAME(n->present, j->present);
	if (!n->present || !j->present)
		return;
	double unit = j->mean > 1024.0 * 1024 * 1024 ? 1024.0 * 1024 : 1024;
	NEAR(n->min, j->min, unit - 1);
	NEAR(n->max, j->max, unit - 1);
	NEAR(n->mean, j->mean, 0.005 * unit + 1e-6);
	NEAR(n->stddev, j->stddev, 0.005 * unit + 1e-6);
	if (prec->us) {
		CHECK(!n->n_known); /* samples=N since 2.99 */
		return;
	}
	SAME(n->n_known, j->n_known);
	SAME(n->n, j->n);
}

static void same_iops_samples(const struct fc_samples *n, const struct fc_samples *j)
{
	if (prec->us) {
		CHECK(!n->present); /* the iops line came with 2.99 */
		return;
	}
	SAME(n->present, j->present);
	if (!n->present || !j->present)
		return;
	SAME(n->min, j->min);
	SAME(n->max, j->max);
	NEAR(n->mean, j->mean, 0.005 + 1e-6);
	NEAR(n->stddev, j->stddev, 0.005 + 1e-6);
	SAME(n->n, j->n);
}

/* Did the JSON's direction do anything?  Normal output leaves out the
 * directions that did not. */
static bool did_io(const struct fc_dir *d)
{
	return d->present && (d->io_bytes || d->total_ios || d->lat.present);
}

static void same_dir(const struct fc_dir *n, const struct fc_dir *j, int ddir)
{
	SAME(n->present, did_io(j));
	if (!n->present || !did_io(j))
		return;
	same_lat(&n->slat, &j->slat, "slat");
	same_lat(&n->clat, &j->clat, "clat");
	same_lat(&n->lat, &j->lat, "lat");
	SAME(n->total_ios, j->total_ios);
	CHECK(n->ios_known);
	if (ddir == FC_DDIR_SYNC)
		return;
	NEAR(n->io_bytes, j->io_bytes, n2s_tol((double)j->io_bytes));
	NEAR(n->bw_bytes, j->bw_bytes, n2s_tol(j->bw_bytes));
	/* 1000 * total / runtime, as fio works it out; the JSON has %f */
	NEAR(n->iops, j->iops, 5e-7 * fmax(1, j->iops) + 1e-6);
	SAME(n->runtime_ms, j->runtime_ms);
	SAME(n->short_ios, j->short_ios);
	SAME(n->drop_ios, j->drop_ios);
	same_bw_samples(&n->bw_samples, &j->bw_samples);
	same_iops_samples(&n->iops_samples, &j->iops_samples);
	if (n->bw_samples.present)
		NEAR(n->bw_agg_pct, j->bw_agg_pct, 0.005 + 1e-6);
	SAME(n->n_prios, j->n_prios);
	for (size_t i = 0; i < n->n_prios && n->n_prios == j->n_prios; i++) {
		if (n->prios[i].prioclass < 0) {
			/* 3.18-3.29: high (the RT class) or low */
			SAME(n->prios[i].high, j->prios[i].prioclass == 1);
		} else {
			SAME(n->prios[i].prioclass, j->prios[i].prioclass);
			SAME(n->prios[i].prio, j->prios[i].prio);
		}
		SAME(n->prios[i].total_lat, j->prios[i].total_lat);
		same_lat(&n->prios[i].lat, &j->prios[i].lat, "prio");
	}
}

static double bucket(const struct fc_buckets *b, const char *label)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->items[i].label, label) == 0)
			return b->items[i].percent;
	return NAN;
}

/* Every share of the JSON, printed "%3.1f%%" or "%3.2f%%"; the latency
 * lines leave out the zero ones.  `first_plus` is added to the first. */
static void same_buckets(const struct fc_buckets *n, const struct fc_buckets *j, double tol,
			 double first_plus)
{
	SAME(n->n, j->n);
	for (size_t i = 0; i < j->n; i++)
		NEAR(bucket(n, j->items[i].label), j->items[i].percent + (i ? 0 : first_plus),
		     tol + 1e-6);
}

static double sum_buckets(const struct fc_buckets *b)
{
	double sum = 0;
	for (size_t i = 0; i < b->n; i++)
		sum += b->items[i].percent;
	return sum;
}

static void same_job(const struct fc_job *n, const struct fc_job *j)
{
	CHECK_STR(n->name, j->name);
	SAME(n->groupid, j->groupid);
	SAME(n->clone, j->clone);
	SAME(n->error, j->error);
	SAME(n->all_clients, j->all_clients);
	CHECK_STR(n->description, j->description);
	SAME(n->total_err, j->total_err);
	SAME(n->first_error, j->first_error);
	NEAR(n->usr_cpu_pct, j->usr_cpu_pct, 0.005 + 1e-6);
	NEAR(n->sys_cpu_pct, j->sys_cpu_pct, 0.005 + 1e-6);
	SAME(n->ctx, j->ctx);
	SAME(n->majf, j->majf);
	SAME(n->minf, j->minf);
	CHECK(n->members >= 1);
	same_buckets(&n->iodepth, &j->iodepth, 0.05, 0);
	same_buckets(&n->iodepth_submit, &j->iodepth_submit, 0.05, 0);
	same_buckets(&n->iodepth_complete, &j->iodepth_complete, 0.05, 0);
	if (prec->us) {
		CHECK_INT(n->latency_ns.n, 0);
		same_buckets(&n->latency_us, &j->latency_us, 0.005, sum_buckets(&j->latency_ns));
	} else {
		same_buckets(&n->latency_ns, &j->latency_ns, 0.005, 0);
		same_buckets(&n->latency_us, &j->latency_us, 0.005, 0);
	}
	same_buckets(&n->latency_ms, &j->latency_ms, 0.005, 0);
	size_t base = strlen(ctx);
	for (int d = 0; d < FC_DDIR_COUNT; d++) {
		snprintf(ctx + base, sizeof(ctx) - base, " %s", fc_ddir_name(d));
		same_dir(&n->dir[d], &j->dir[d], d);
	}
	ctx[base] = '\0';
	/* the banner's options against those the JSON lists */
	static const char *const keys[] = {"rw", "ioengine", "iodepth"};
	for (size_t k = 0; k < 3; k++) {
		const char *want = fc_job_option(NULL, j, keys[k]);
		if (want && strcmp(j->name, "All clients") != 0)
			CHECK_STR(fc_job_option(NULL, n, keys[k]), want);
	}
}

/* A group's totals are its jobs' (without "All clients"). */
static void same_group(const struct fc_group *g, const struct fc_run *j)
{
	for (int d = 0; d < FC_DDIR_COUNT; d++) {
		double io = 0;
		uint64_t tmin = UINT64_MAX, tmax = 0;
		bool any = false;
		for (size_t i = 0; i < j->n_jobs; i++) {
			const struct fc_job *job = &j->jobs[i];
			if (job->groupid != g->groupid || job->all_clients || !did_io(&job->dir[d]))
				continue;
			any = true;
			io += (double)job->dir[d].io_bytes;
			if (job->dir[d].runtime_ms < tmin)
				tmin = job->dir[d].runtime_ms;
			if (job->dir[d].runtime_ms > tmax)
				tmax = job->dir[d].runtime_ms;
		}
		if (d == FC_DDIR_SYNC)
			continue;
		snprintf(ctx + strlen(ctx), 32, " group %d %s", g->groupid, fc_ddir_name(d));
		SAME(g->dir[d].present, any);
		if (any && g->dir[d].present) {
			NEAR(g->dir[d].io_bytes, io, n2s_tol(io));
			double agg = floor(io * 1000 / (double)tmax);
			NEAR(g->dir[d].bw_bytes, agg, n2s_tol(agg));
			SAME(g->dir[d].min_runtime_ms, tmin);
			SAME(g->dir[d].max_runtime_ms, tmax);
		}
		*strstr(ctx, " group ") = '\0';
	}
}

static void same_disks(const struct fc_run *n, const struct fc_run *j)
{
	SAME(n->n_disks, j->n_disks);
	for (size_t i = 0; i < n->n_disks && i < j->n_disks; i++) {
		const struct fc_disk *a = &n->disks[i], *b = &j->disks[i];
		CHECK_STR(a->name, b->name);
		SAME(a->read_ios, b->read_ios);
		SAME(a->write_ios, b->write_ios);
		SAME(a->read_merges, b->read_merges);
		SAME(a->write_merges, b->write_merges);
		SAME(a->read_ticks_ms, b->read_ticks_ms);
		SAME(a->write_ticks_ms, b->write_ticks_ms);
		SAME(a->in_queue_ms, b->in_queue_ms);
		NEAR(a->util_pct, b->util_pct, 0.005 + 1e-6);
	}
}

/* The normal reports of `n` against the JSON ones of `j`. */
static void same_runs(const char *name, const struct fc_output *n, const struct fc_output *j)
{
	SAME(n->n_runs, j->n_runs);
	for (size_t r = 0; r < n->n_runs && r < j->n_runs; r++) {
		const struct fc_run *nr = &n->runs[r], *jr = &j->runs[r];
		snprintf(ctx, sizeof(ctx), "%s run %zu", name, r);
		SAME(nr->format, FC_FORMAT_NORMAL);
		SAME(nr->final, jr->final);
		SAME(nr->units, FC_UNITS_ROUNDED | (prec->us ? FC_UNITS_LAT_US : 0));
		SAME(nr->client_mode, jr->client_mode);
		size_t nj = 0;
		for (size_t i = 0; i < jr->n_jobs; i++) {
			const struct fc_job *jj = &jr->jobs[i];
			bool any = false;
			for (int d = 0; d < FC_DDIR_COUNT; d++)
				any |= did_io(&jj->dir[d]);
			if (!any)
				continue; /* normal output leaves such jobs out */
			if (nj >= nr->n_jobs) {
				nj++;
				continue;
			}
			snprintf(ctx, sizeof(ctx), "%s run %zu job %zu", name, r, i);
			same_job(&nr->jobs[nj++], jj);
		}
		snprintf(ctx, sizeof(ctx), "%s run %zu", name, r);
		SAME(nr->n_jobs, nj);
		for (size_t g = 0; g < nr->n_groups && !jr->client_mode; g++)
			same_group(&nr->groups[g], jr);
		same_disks(nr, jr);
	}
}

/* ---- the twins ------------------------------------------------------------ */

/* A --output-format=normal,json file split into its JSON documents and the
 * rest; the JSON lines leave blank lines behind, so that line numbers
 * stay. */
struct split {
	char *json, *normal;
	size_t json_len, normal_len;
};

static bool split_file(const char *rel, struct split *sp)
{
	enum { CAP = 1 << 20 };
	FILE *f = fopen(check_src(rel), "rb");
	if (!f)
		return false;
	memset(sp, 0, sizeof(*sp));
	sp->json = malloc(CAP);
	sp->normal = malloc(CAP);
	char line[65536];
	bool in_json = false, ok = sp->json && sp->normal;
	while (ok && fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);
		if (strcmp(line, "{\n") == 0)
			in_json = true;
		char *to = in_json ? sp->json : sp->normal,
		     *other = in_json ? sp->normal : sp->json;
		size_t *len = in_json ? &sp->json_len : &sp->normal_len;
		size_t *other_len = in_json ? &sp->normal_len : &sp->json_len;
		ok = *len + n < CAP && *other_len + 1 < CAP;
		if (ok) {
			memcpy(to + *len, line, n);
			*len += n;
			other[(*other_len)++] = '\n';
		}
		if (strcmp(line, "}\n") == 0)
			in_json = false;
	}
	fclose(f);
	return ok;
}

static struct fc_output *read_part(const char *buf, size_t len, const char *label, int expect)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	int rc = fc_output_read_buffer(buf, len, label, &o, &e);
	if (rc != expect) {
		char msg[1024];
		fc_error_format(&e, msg, sizeof(msg));
		fprintf(stderr, "%s: rc %d, expected %d: %s\n", label, rc, expect, msg);
	}
	CHECK_INT(rc, expect);
	return o;
}

/*
 * Reads twin `name`: the whole file (which must give the JSON reports and
 * keep the normal text as diagnostics), its JSON part and its normal part,
 * and compares every normal report with the JSON one of the same moment.
 * Returns the normal part's output for more checks (caller frees).
 */
static struct fc_output *twin(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof(rel), NFIX "%s.txt", name);
	struct split sp;
	if (!split_file(rel, &sp)) {
		fprintf(stderr, "%s: cannot read\n", rel);
		CHECK(0);
		return NULL;
	}
	struct fc_output *whole = load(rel, FC_OK);
	struct fc_output *j = read_part(sp.json, sp.json_len, "json part", FC_OK);
	struct fc_output *n = read_part(sp.normal, sp.normal_len, "normal part", FC_OK);
	if (whole && j) {
		/* a combined file yields its JSON reports; the normal text stays
		 * diagnostics */
		SAME(whole->n_runs, j->n_runs);
		for (size_t i = 0; i < whole->n_runs; i++)
			CHECK(whole->runs[i].format == FC_FORMAT_JSON);
		CHECK(whole->n_diags > 10);
	}
	if (j && n) {
		same_runs(name, n, j);
		if (whole)
			SAME(n->signal, whole->signal);
		for (size_t r = 0; r < n->n_runs && r < j->n_runs; r++) {
			const struct fc_run *nr = &n->runs[r], *jr = &j->runs[r];
			snprintf(ctx, sizeof(ctx), "%s run %zu", name, r);
			CHECK_STR(nr->fio_version, jr->fio_version);
			SAME(nr->version_minor, jr->version_minor);
			/* the normal report's date is its first job's ctime() */
			if (jr->time_text && nr->time_text && !jr->client_mode)
				CHECK(strncmp(nr->time_text, jr->time_text, 10) == 0);
		}
	}
	fc_output_free(j);
	fc_output_free(whole);
	free(sp.json);
	free(sp.normal);
	return n;
}

static const char *const twins[] = {
    "randread_qd32_libaio",
    "randrw_mix70",
    "seqwrite_1m",
    "numjobs2",
    "numjobs2_group_reporting",
    "two_groups",
    "status_interval",
    "unified_mixed",
    "unified_both",
    "fsync",
    "all_percentiles",
    "cmdprio",
    "bs_per_direction",
    "bsrange",
    "kb_base_1000",
    "msec_latencies",
    "errors_description",
    "sigint",
    "client",
};

static void test_twins(void)
{
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++)
		fc_output_free(twin(twins[i]));
}

/* The normal part of twin `name`, for the checks below (caller frees). */
static char *normal_part(const char *name, size_t *len)
{
	char rel[256];
	struct split sp;
	snprintf(rel, sizeof(rel), NFIX "%s.txt", name);
	if (!split_file(rel, &sp)) {
		CHECK(0);
		return NULL;
	}
	free(sp.json);
	*len = sp.normal_len;
	return sp.normal;
}

static struct fc_output *normal_of(const char *name, int expect)
{
	size_t len;
	char *text = normal_part(name, &len);
	struct fc_output *o = text ? read_part(text, len, name, expect) : NULL;
	free(text);
	return o;
}

/* What the job banner gives fc_job_option(): rw, bs in fio's syntax (bytes;
 * one value when the directions agree, else one per direction; min-max
 * for a range), ioengine, iodepth. */
static void test_banner_options(void)
{
	static const struct {
		const char *name, *rw, *bs, *engine, *depth;
	} want[] = {
	    {"randread_qd32_libaio", "randread", "4096", "libaio", "32"},
	    {"randrw_mix70", "randrw", "4096", "libaio", "8"},
	    {"seqwrite_1m", "write", "1048576", "libaio", "8"},
	    {"bs_per_direction", "randrw", "4096,65536,65536", "libaio", "4"},
	    {"bsrange", "randread", "4096-65536", "libaio", "4"},
	    {"msec_latencies", "write", "4194304", "libaio", "64"},
	    {"kb_base_1000", "read", "4096", "psync", "1"},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct fc_output *o = normal_of(want[i].name, FC_OK);
		if (!o)
			continue;
		const struct fc_run *r = o->final;
		const struct fc_job *j = &r->jobs[0];
		CHECK_STR(fc_job_option(r, j, "rw"), want[i].rw);
		CHECK_STR(fc_job_option(r, j, "bs"), want[i].bs);
		CHECK_STR(fc_job_option(r, j, "ioengine"), want[i].engine);
		CHECK_STR(fc_job_option(r, j, "iodepth"), want[i].depth);
		CHECK_STR(fc_job_option(r, j, "bs_is_seq_rand"), NULL);
		CHECK_INT(r->n_global_options, 0);
		fc_output_free(o);
	}
	/* the second group's banner, found by name and group */
	struct fc_output *o = normal_of("two_groups", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_jobs, 2);
		CHECK_STR(r->jobs[1].name, "second");
		CHECK_INT(r->jobs[1].groupid, 1);
		CHECK_STR(fc_job_option(r, &r->jobs[1], "bs"), "65536");
		CHECK_STR(fc_job_option(r, &r->jobs[1], "rw"), "read");
		CHECK_INT(r->n_groups, 2);
		CHECK_INT(r->groups[1].groupid, 1);
		CHECK(r->groups[1].dir[FC_DDIR_READ].present &&
		      !r->groups[1].dir[FC_DDIR_WRITE].present);
		/* "io=432MiB (453MB)", the finer of the two */
		CHECK_U64(r->groups[1].dir[FC_DDIR_READ].io_bytes, 453000000);
		CHECK_U64(r->groups[1].dir[FC_DDIR_READ].max_runtime_ms, 1001);
		fc_output_free(o);
	}
}

static void test_jobs_and_groups(void)
{
	/* numjobs=2: two entries of one name, told apart by clone */
	struct fc_output *o = normal_of("numjobs2", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_jobs, 2);
		CHECK_STR(r->jobs[0].name, "nj");
		CHECK_STR(r->jobs[1].name, "nj");
		CHECK_INT(r->jobs[0].clone, 0);
		CHECK_INT(r->jobs[1].clone, 1);
		CHECK_INT(r->jobs[1].index, 1);
		CHECK_INT(r->jobs[0].members, 1);
		/* both clones have the banner's options */
		CHECK_STR(fc_job_option(r, &r->jobs[1], "ioengine"), "psync");
		fc_output_free(o);
	}
	/* group_reporting: one entry for both, "jobs=2" */
	o = normal_of("numjobs2_group_reporting", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->n_jobs, 1);
		CHECK_INT(r->jobs[0].members, 2);
		CHECK_INT(r->jobs[0].job_runtime_ms, -1); /* not printed */
		fc_output_free(o);
	}
	/* psync has no slat; randread no write, trim or sync: not present */
	o = normal_of("numjobs2", FC_OK);
	if (o) {
		const struct fc_job *j = &o->final->jobs[0];
		CHECK(j->dir[FC_DDIR_READ].present && !j->dir[FC_DDIR_READ].slat.present);
		CHECK(!j->dir[FC_DDIR_WRITE].present && !j->dir[FC_DDIR_TRIM].present);
		CHECK(!j->dir[FC_DDIR_SYNC].present && !j->dir[FC_DDIR_MIXED].present);
		CHECK(isnan(j->dir[FC_DDIR_WRITE].clat.mean_ns));
		fc_output_free(o);
	}
	/* what one line says, exactly */
	o = normal_of("randread_qd32_libaio", FC_OK);
	if (o) {
		const struct fc_run *r = o->final;
		CHECK_INT(r->format, FC_FORMAT_NORMAL);
		CHECK_INT(r->units, FC_UNITS_ROUNDED);
		CHECK_STR(r->fio_version, "fio-3.33");
		CHECK_INT(r->timestamp_s, -1);
		CHECK_STR(r->time_text, "Tue Dec  1 12:34:31 2026");
		CHECK_INT(r->line, 278);
		const struct fc_dir *d = &r->jobs[0].dir[FC_DDIR_READ];
		CHECK_U64(d->runtime_ms, 2003);
		CHECK(d->ios_known);
		CHECK_U64(d->total_ios, 72315); /* issued rwts: total=72315,0,0,0 */
		CHECK_DBL(d->iops, 1000.0 * 72315 / 2003, 1e-15); /* "IOPS=36.1k" */
		CHECK(d->clat.present && !d->clat.n_known);
		CHECK_INT(d->clat.n_percentiles, 17);
		CHECK_DBL(d->clat.percentiles[16].percent, 99.99, 0);
		CHECK_INT(r->n_disks, 1);
		CHECK_STR(r->disks[0].name, "vda");
		CHECK_INT(r->disks[0].read_sectors, -1);
		fc_output_free(o);
	}
}

static void test_status_interval_and_signals(void)
{
	/* --status-interval: a report every second; the last one is final */
	struct fc_output *o = normal_of("status_interval", FC_OK);
	if (o) {
		CHECK_INT(o->n_runs, 4);
		CHECK(o->final == &o->runs[3]);
		for (size_t i = 0; i + 1 < o->n_runs; i++) {
			CHECK(!o->runs[i].final);
			/* cumulative: every report has done more */
			CHECK(o->runs[i].jobs[0].dir[FC_DDIR_READ].total_ios <
			      o->runs[i + 1].jobs[0].dir[FC_DDIR_READ].total_ios);
		}
		CHECK_INT(o->n_diags, 3); /* banner, version, "Starting 1 process" */
		fc_output_free(o);
	}
	/* Ctrl-C: fio's text and then a complete report */
	o = normal_of("sigint", FC_OK);
	if (o) {
		CHECK_INT(o->signal, 2);
		CHECK_INT(o->n_runs, 1);
		CHECK(o->final != NULL);
		fc_output_free(o);
	}
	/* SIGKILL: fio's own text and no report */
	o = load(NFIX "sigkill.txt", FC_E_UNFINISHED);
	if (o) {
		CHECK_INT(o->n_runs, 0);
		CHECK(o->final == NULL);
		CHECK_INT(o->n_diags, 3);
		fc_output_free(o);
	}
}

/* Reads `text` as an input and checks status, error position and message. */
static struct fc_output *bad_text(const char *text, size_t len, int expect, unsigned long line,
				  unsigned long column, const char *msg)
{
	struct fc_output *o = NULL;
	struct fc_error e;
	memset(&e, 0, sizeof(e));
	int rc = fc_output_read_buffer(text, len, "bad.txt", &o, &e);
	CHECK_INT(rc, expect);
	if (expect != FC_OK)
		CHECK_STR(e.source, "bad.txt");
	if (line)
		CHECK_INT(e.line, line);
	if (column)
		CHECK_INT(e.column, column);
	if (!strstr(e.message, msg)) {
		fprintf(stderr, "message \"%s\" lacks \"%s\"\n", e.message, msg);
		CHECK(0);
	}
	return o;
}

/* `text` with line `no` (1-based) replaced by `repl`; caller frees. */
static char *with_line(const char *text, size_t len, unsigned long no, const char *repl,
		       size_t *out_len)
{
	const char *p = text, *end = text + len;
	for (unsigned long i = 1; i < no && p < end; i++)
		p = (const char *)memchr(p, '\n', (size_t)(end - p)) + 1;
	const char *q = memchr(p, '\n', (size_t)(end - p));
	size_t head = (size_t)(p - text), tail = (size_t)(end - q);
	char *out = malloc(head + strlen(repl) + tail + 1);
	memcpy(out, text, head);
	memcpy(out + head, repl, strlen(repl));
	memcpy(out + head + strlen(repl), q, tail);
	*out_len = head + strlen(repl) + tail;
	out[*out_len] = '\0';
	return out;
}

/* Without its version line (banner and report to different outputs) a
 * report still tells fio >= 2.99 by its shapes: nanosecond shares kept. */
static void test_no_version_line(void)
{
	size_t len, n;
	char *text = normal_part("randread_qd32_libaio", &len);
	if (!text)
		return;
	char *b = with_line(text, len, 2, "", &n);
	struct fc_output *o = read_part(b, n, "no version", FC_OK);
	if (o) {
		CHECK(o->final->fio_version == NULL);
		CHECK_INT(o->final->version_major, -1);
		CHECK_INT(o->final->units, FC_UNITS_ROUNDED);
		CHECK_INT(o->final->jobs[0].latency_ns.n, 10);
		fc_output_free(o);
	}
	free(b);
	free(text);
}

static void test_bad_input(void)
{
	size_t len, n;
	char *text = normal_part("status_interval", &len);
	if (!text)
		return;
	/* cut inside the third report's job: the first two stay, fio did not
	 * finish */
	const char *third =
	    strstr(strstr(strstr(text, ": (groupid=") + 1, ": (groupid=") + 1, ": (groupid=");
	const char *cut = strstr(third, "    clat percentiles");
	struct fc_output *o = bad_text(text, (size_t)(cut - text), FC_E_UNFINISHED, 874, 0,
				       "its report is cut short");
	if (o) {
		CHECK_INT(o->n_runs, 2);
		CHECK(o->final == NULL);
		CHECK_INT(o->diags[o->n_diags - 1].kind, FC_DIAG_BROKEN);
		CHECK_INT(o->diags[o->n_diags - 1].line, 874);
		CHECK(strstr(o->diags[o->n_diags - 1].text,
			     "report from line 874 is cut short: the report from line 874 has no "
			     "\"Run status group\" lines after the job") != NULL);
		fc_output_free(o);
	}
	/* cut after a job's last line: still no group lines */
	cut = strstr(third, "Run status group");
	o = bad_text(text, (size_t)(cut - text), FC_E_UNFINISHED, 874, 0, "cut short");
	fc_output_free(o);

	/* a number that is none: the last report cannot be read */
	char *b = with_line(text, len, 1174, "  read: IOPS=x1, BW=1MiB/s (1MB/s)(1MiB/1msec)", &n);
	o = bad_text(b, n, FC_E_SYNTAX, 1174, 14,
		     "normal output: expected the IOPS, found \"x1, BW");
	CHECK(o == NULL);
	fc_output_free(o);
	free(b);
	/* an earlier report that cannot be read is a diagnostic; the last is final */
	b = with_line(text, len, 577, "    clat (usec): min=1, max=2, avg=three, stdev=4", &n);
	o = bad_text(b, n, FC_OK, 0, 0, "");
	if (o) {
		CHECK_INT(o->n_runs, 3);
		CHECK(o->final && o->final->line == 1173);
		CHECK_INT(o->diags[3].kind, FC_DIAG_BROKEN);
		CHECK(strstr(o->diags[3].text,
			     "report from line 575 is not readable: line 577, column 36: "
			     "normal output: expected the mean latency, found \"three") != NULL);
		fc_output_free(o);
	}
	free(b);
	b = with_line(text, len, 1178, "     |  1.00th=[  289],  5.00th=[  343, 10.00th=[  367],",
		      &n);
	o = bad_text(b, n, FC_E_SYNTAX, 1178, 39, "expected \"]\", found \", 10.00th");
	fc_output_free(o);
	free(b);
	b = with_line(text, len, 1173, "si: (groupid=zero, jobs=1): err= 0: pid=1: x", &n);
	o = bad_text(b, n, FC_E_SYNTAX, 1173, 14, "expected the group id, found \"zero");
	fc_output_free(o);
	free(b);
	free(text);

	/* job headers and nothing else take far more memory than their bytes:
	 * refused at FC_OUTPUT_MEM_*, not read until memory runs out */
	static const char header[] = "a: (groupid=0, jobs=1): err= 0: pid=1\n";
	size_t hl = strlen(header), count = 80000;
	char *many = malloc(hl * count);
	for (size_t i = 0; i < count; i++)
		memcpy(many + i * hl, header, hl);
	o = bad_text(many, hl * count, FC_E_LIMIT, 0, 0, "(FC_OUTPUT_MEM_*)");
	CHECK(o == NULL);
	free(many);

	/* not fio at all, and fio text without a report */
	o = bad_text("hello\nworld\n", 12, FC_E_NOT_FIO, 0, 0, "not fio output");
	CHECK(o == NULL);
	const char *started =
	    "x: (g=0): rw=read, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) "
	    "4096B-4096B, ioengine=psync, iodepth=1\nfio-3.33\nStarting 1 process\n";
	o = bad_text(started, strlen(started), FC_E_UNFINISHED, 0, 0, "its text holds no report");
	CHECK(o && o->n_runs == 0);
	fc_output_free(o);
}

/* ---- older shapes ---------------------------------------------------------- */

/*
 * tests/fixtures/handmade/normal: the JSON of a fio 3.33 twin printed the way
 * an older fio prints its normal report (make-normal.py, README.md there),
 * read and checked against that JSON within the older precision.
 */
static void test_handmade(void)
{
	static const struct precision us_old = {true, true}, us_new = {false, true};
	static const struct {
		const char *file, *twin, *version;
		const struct precision *prec;
		int minor;
	} shapes[] = {
	    {"fio-2.0.10-randrw.txt", "randrw_mix70", "fio 2.0.10", &us_old, 0},
	    {"fio-2.2.10-randrw.txt", "randrw_mix70", "fio-2.2.10", &us_old, 2},
	    {"fio-2.12-mixed.txt", "unified_mixed", "fio-2.12", &us_old, 12},
	    {"fio-2.21-randrw.txt", "randrw_mix70", "fio-2.21", &us_new, 21},
	    {"fio-3.0-two-groups.txt", "two_groups", "fio-3.0", &fio_3_33, 0},
	    {"fio-3.20-prios.txt", "cmdprio", "fio-3.20", &fio_3_33, 20},
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		char rel[256];
		struct split sp;
		snprintf(rel, sizeof(rel), NFIX "%s.txt", shapes[i].twin);
		if (!split_file(rel, &sp)) {
			CHECK(0);
			continue;
		}
		snprintf(rel, sizeof(rel), "tests/fixtures/handmade/normal/%s", shapes[i].file);
		struct fc_output *n = load(rel, FC_OK);
		struct fc_output *j = read_part(sp.json, sp.json_len, "json part", FC_OK);
		if (n && j) {
			/* the last JSON report is the one printed */
			struct fc_output last = *j;
			last.runs = j->final;
			last.n_runs = 1;
			prec = shapes[i].prec;
			same_runs(shapes[i].file, n, &last);
			prec = &fio_3_33;
			const struct fc_run *r = n->final;
			CHECK_STR(r->fio_version, shapes[i].version);
			CHECK_INT(r->version_minor, shapes[i].minor);
			const struct fc_job *job = &r->jobs[0];
			CHECK_STR(fc_job_option(r, job, "bs"), "4096");
			CHECK_STR(fc_job_option(r, job, "rw"),
				  fc_job_option(NULL, &j->final->jobs[0], "rw"));
		}
		fc_output_free(n);
		fc_output_free(j);
		free(sp.json);
		free(sp.normal);
	}
	/* the second job of two groups: 64 KiB */
	struct fc_output *o = load("tests/fixtures/handmade/normal/fio-3.0-two-groups.txt", FC_OK);
	if (o) {
		CHECK_STR(fc_job_option(o->final, &o->final->jobs[1], "bs"), "65536");
		CHECK_INT(o->final->n_groups, 2);
		fc_output_free(o);
	}
	/* fio 2.0 showed bw samples above 999999.9 KB/s in MB of 1000 KB */
	size_t len;
	char *text = NULL;
	FILE *f = fopen(check_src("tests/fixtures/handmade/normal/fio-2.0.10-randrw.txt"), "rb");
	if (f) {
		text = calloc(1, 1 << 16);
		len = fread(text, 1, (1 << 16) - 1, f);
		fclose(f);
		size_t n;
		char *b =
		    with_line(text, len, 16,
			      "    bw (MB/s)  : min= 1076, max= 1085, per=100.00%, avg=1080.42, "
			      "stdev= 4.18",
			      &n);
		o = read_part(b, n, "2.0 MB", FC_OK);
		if (o) {
			const struct fc_samples *bw =
			    &o->final->jobs[0].dir[FC_DDIR_READ].bw_samples;
			CHECK_DBL(bw->mean, 1080.42 * 1000 * 1024, 1e-12);
			CHECK_DBL(bw->min, 1076.0 * 1000 * 1024, 1e-12);
			fc_output_free(o);
		}
		free(b);
		free(text);
	}
	CHECK(text != NULL);
	/* 3.18-3.29 call the priorities high and low */
	o = load("tests/fixtures/handmade/normal/fio-3.20-prios.txt", FC_OK);
	if (o) {
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		CHECK_INT(d->n_prios, 2);
		CHECK(d->n_prios == 2 && !d->prios[0].high && d->prios[1].high);
		CHECK(d->n_prios == 2 && d->prios[1].prioclass == -1 &&
		      d->prios[1].lat.n_percentiles == 17);
		fc_output_free(o);
	}
}

/*
 * One run in all three formats (fio-3.33/stdout_normal_terse_json_combined.txt,
 * --output-format=normal,terse,json, psync, rw=read): what had no samples is
 * not present in any of them, not a zero latency in one and NaN in another.
 */
static void test_no_samples_agree(void)
{
	const char *rel = "tests/fixtures/fio-3.33/stdout_normal_terse_json_combined.txt";
	struct fc_output *whole = load(rel, FC_OK);
	struct split sp;
	if (!whole || !split_file(rel, &sp)) {
		fc_output_free(whole);
		CHECK(0);
		return;
	}
	/* the normal part still holds the terse line: drop it */
	char *terse = strstr(sp.normal, "\n3;fio-3.33;");
	if (terse)
		memset(terse + 1, ' ', (size_t)(strchr(terse + 1, '\n') - terse - 1));
	struct fc_output *n = read_part(sp.normal, sp.normal_len, "normal part", FC_OK);
	if (n && whole->n_runs == 2) {
		const struct fc_job *t = &whole->runs[0].jobs[0], *j = &whole->runs[1].jobs[0];
		const struct fc_job *nj = &n->final->jobs[0];
		CHECK_INT(whole->runs[0].format, FC_FORMAT_TERSE);
		CHECK_INT(whole->runs[1].format, FC_FORMAT_JSON);
		CHECK_INT(n->final->format, FC_FORMAT_NORMAL);
		const struct fc_job *all[] = {t, j, nj};
		for (int i = 0; i < 3; i++) {
			const struct fc_dir *rd = &all[i]->dir[FC_DDIR_READ];
			const struct fc_dir *wr = &all[i]->dir[FC_DDIR_WRITE];
			/* read: clat and lat measured, slat not (psync) */
			CHECK(rd->present && rd->clat.present && rd->lat.present);
			CHECK(!rd->slat.present && isnan(rd->slat.mean_ns));
			/* write: no I/O, so no latency, no percentiles, no samples */
			CHECK(!wr->clat.present && isnan(wr->clat.mean_ns) &&
			      wr->clat.n_percentiles == 0);
			CHECK(!wr->lat.present && !wr->bw_samples.present &&
			      !wr->iops_samples.present);
			CHECK_U64(wr->io_bytes, 0);
		}
		/* the JSON and terse have the empty direction (zero counts); normal
		 * output leaves it out */
		CHECK(t->dir[FC_DDIR_WRITE].present && j->dir[FC_DDIR_WRITE].present);
		CHECK(!nj->dir[FC_DDIR_WRITE].present);
		CHECK_DBL(j->dir[FC_DDIR_WRITE].iops, 0, 0);
	}
	fc_output_free(n);
	fc_output_free(whole);
	free(sp.json);
	free(sp.normal);
}

/* The line of text that starts with `start`, replaced by `repl` (caller
 * frees); NULL when there is none. */
static char *replace_line(const char *text, size_t len, const char *start, const char *repl,
			  size_t *out_len)
{
	const char *p = text;
	unsigned long no = 1;
	while (p < text + len && strncmp(p, start, strlen(start)) != 0) {
		const char *nl = memchr(p, '\n', (size_t)(text + len - p));
		if (!nl)
			return NULL;
		p = nl + 1;
		no++;
	}
	return p < text + len ? with_line(text, len, no, repl, out_len) : NULL;
}

/*
 * A line whose two bandwidths disagree beyond what each keeps, as fio
 * printed it once: "BW=27.6MiB/s (28.0MB/s)(2336MiB/84578msec)", where
 * 2336 MiB in 84.578 s is 27.6 MiB/s (the decimal figure lost a carry).
 * The one that agrees with the amount and the runtime is taken, in the job
 * and in the group line; two that agree give the finer, as before.
 */
static void test_bw_disagree(void)
{
	size_t len, n1, n2;
	char *text = normal_part("all_percentiles", &len);
	if (!text)
		return;
	char *a = replace_line(
	    text, len,
	    "  read: IOPS=", "  read: IOPS=7072, BW=27.6MiB/s (28.0MB/s)(2336MiB/84578msec)", &n1);
	char *b = a ? replace_line(a, n1, "   READ: bw=",
				   "   READ: bw=27.6MiB/s (28.0MB/s), 27.6MiB/s-27.6MiB/s "
				   "(28.0MB/s-28.0MB/s), io=2336MiB (2449MB), run=84578-84578msec",
				   &n2)
		    : NULL;
	CHECK(b != NULL);
	struct fc_output *o = b ? read_part(b, n2, "BW lost a carry", FC_OK) : NULL;
	if (o) {
		snprintf(ctx, sizeof(ctx), "BW=27.6MiB/s (28.0MB/s)");
		const struct fc_dir *d = &o->final->jobs[0].dir[FC_DDIR_READ];
		NEAR(d->bw_bytes, 27.6 * 1024 * 1024, 1);
		CHECK(o->final->n_groups == 1);
		if (o->final->n_groups == 1)
			NEAR(o->final->groups[0].dir[FC_DDIR_READ].bw_bytes, 27.6 * 1024 * 1024, 1);
	}
	fc_output_free(o);
	/* figures that agree: the finer, 85.0 MB/s of 81.1 MiB/s */
	o = read_part(text, len, "all_percentiles", FC_OK);
	if (o)
		NEAR(o->final->jobs[0].dir[FC_DDIR_READ].bw_bytes, 85.0e6, 1);
	fc_output_free(o);
	free(a);
	free(b);
	free(text);
}

/*
 * A report whose lines lost their indentation (pasted into a blog or a
 * forum that strips leading blanks) is read as the indented one: the lines
 * of a job, group or disk block are known by their shape.
 */
static void test_unindented(void)
{
	static const char *const names[] = {"randrw_mix70", "two_groups", "all_percentiles",
					    "numjobs2_group_reporting"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t len;
		char *text = normal_part(names[i], &len);
		if (!text)
			continue;
		char *flat = malloc(len + 1);
		size_t n = 0;
		bool bol = true;
		for (size_t k = 0; k < len; k++) {
			if (bol && (text[k] == ' ' || text[k] == '\t'))
				continue;
			bol = text[k] == '\n';
			flat[n++] = text[k];
		}
		flat[n] = '\0';
		struct fc_output *want = read_part(text, len, names[i], FC_OK);
		struct fc_output *got = read_part(flat, n, "unindented", FC_OK);
		snprintf(ctx, sizeof(ctx), "%s without indentation", names[i]);
		if (want && got) {
			const struct fc_run *w = want->final, *g = got->final;
			SAME(g->n_jobs, w->n_jobs);
			SAME(g->n_groups, w->n_groups);
			SAME(g->n_disks, w->n_disks);
			for (size_t j = 0; j < w->n_jobs && j < g->n_jobs; j++) {
				for (int d = 0; d < FC_DDIR_COUNT; d++) {
					const struct fc_dir *x = &w->jobs[j].dir[d],
							    *y = &g->jobs[j].dir[d];
					SAME(y->present, x->present);
					SAME(y->io_bytes, x->io_bytes);
					SAME_OR_NAN(y->bw_bytes, x->bw_bytes);
					SAME(y->clat.n_percentiles, x->clat.n_percentiles);
					SAME_OR_NAN(y->clat.mean_ns, x->clat.mean_ns);
				}
				SAME_OR_NAN(g->jobs[j].usr_cpu_pct, w->jobs[j].usr_cpu_pct);
				SAME(g->jobs[j].iodepth.n, w->jobs[j].iodepth.n);
			}
		}
		fc_output_free(want);
		fc_output_free(got);
		free(flat);
		free(text);
	}
}

/* A group_reporting entry of two jobs: the other job's banner is kept with
 * the entry (fc_job.merged); numjobs clones of one job are no other job. */
static void test_merged_banners(void)
{
	size_t len, n;
	char *text = normal_part("numjobs2_group_reporting", &len);
	if (!text)
		return;
	struct fc_output *o = read_part(text, len, "numjobs2_group_reporting", FC_OK);
	if (o) {
		CHECK_INT(o->final->jobs[0].members, 2);
		CHECK_U64(o->final->jobs[0].n_merged, 0);
	}
	fc_output_free(o);
	char *two =
	    with_line(text, len, 1,
		      "nj: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) "
		      "4096B-4096B, ioengine=psync, iodepth=1\n"
		      "other: (g=0): rw=randwrite, bs=(R) 4096B-4096B, (W) 4096B-4096B, (T) "
		      "4096B-4096B, ioengine=psync, iodepth=4",
		      &n);
	o = read_part(two, n, "two banners, one entry", FC_OK);
	if (o) {
		const struct fc_job *j = &o->final->jobs[0];
		CHECK_U64(j->n_merged, 1);
		if (j->n_merged == 1) {
			CHECK_STR(j->merged[0].name, "other");
			const struct fc_job peer = {.options = j->merged[0].options,
						    .n_options = j->merged[0].n_options};
			CHECK_STR(fc_job_option(NULL, &peer, "rw"), "randwrite");
			CHECK_STR(fc_job_option(NULL, &peer, "iodepth"), "4");
		}
		CHECK_STR(fc_job_option(NULL, j, "rw"), "randread");
	}
	fc_output_free(o);
	free(two);
	free(text);
}

int main(void)
{
	test_twins();
	test_no_samples_agree();
	test_handmade();
	test_banner_options();
	test_jobs_and_groups();
	test_status_interval_and_signals();
	test_no_version_line();
	test_bad_input();
	test_bw_disagree();
	test_unindented();
	test_merged_banners();
	return check_exit();
}
