/* SPDX-License-Identifier: MIT */
/*
 * Terse output (--output-format=terse, --minimal), versions 2 to 5.
 *
 * The layout follows fio's stat.c (show_thread_status_terse_all and
 * show_ddir_status_terse, unchanged from fio 2.99 to 3.42; v2 and v3 as in
 * fio 2.0.x-2.21):
 *
 *   header   v2: 2;name;groupid;error   v3+: V;fio-x.y;name;groupid;error
 *   blocks   41 fields per direction (47 in v5): read, write, then trim in
 *            v2/v4/v5; unified_rw_reporting=mixed prints one (mixed) block,
 *            =both appends a mixed block after the others
 *   cpu      usr%;sys%;ctx;majf;minf
 *   dists    7 iodepth, 10 latency us, 12 latency ms percentages
 *   disks    v3+: name + 8 fields per disk, ";slaves" + 8 more for md/dm
 *   tail     total_err;first_error with continue_on_error, then the
 *            description (v2 prints it on a line of its own)
 *
 * Nothing tells how many direction blocks there are but the fields
 * themselves: a block starts with an integer, the cpu part with "usr%".
 * Latencies are microseconds (fio 3.x divides ns by 1000, truncating min,
 * max and percentiles), bandwidths KiB/s, sizes KiB, IOPS whole numbers.
 */
#include <math.h>
#include <string.h>

#include "model.h"

#define TERSE_PERCENTILES 20 /* FIO_IO_U_LIST_MAX_LEN: unused slots print 0%=0 */
#define TERSE_BLOCK	  41
#define TERSE_BLOCK_V5	  47
#define TERSE_MAX_BLOCKS  4

static const char *const iodepth_labels[] = {"1", "2", "4", "8", "16", "32", ">=64"};
/* clang-format off */
static const char *const lat_us_labels[] = {"2", "4", "10", "20", "50", "100", "250", "500",
					    "750", "1000"};
static const char *const lat_ms_labels[] = {"2", "4", "10", "20", "50", "100", "250", "500",
					    "750", "1000", "2000", ">=2000"};
/* clang-format on */

/* A walk over the ';'-separated fields of one line. */
struct fields {
	struct fc_arena *a;
	const char *line, *end;
	const char *p; /* start of the next field */
	bool done;     /* no field left */
	size_t index;  /* 1-based number of the field last taken */
	const char *source;
	unsigned long lineno;
	struct fc_error *err;
	int status; /* first error, FC_OK until then */
};

struct field {
	const char *p;
	size_t len;
	size_t index; /* 1-based */
};

static void fields_init(struct fields *t, struct fc_arena *a, const char *line, size_t len,
			const char *source, unsigned long lineno, struct fc_error *err)
{
	memset(t, 0, sizeof(*t));
	t->a = a;
	t->line = t->p = line;
	t->end = line + len;
	t->source = source;
	t->lineno = lineno;
	t->err = err;
}

/* Out of memory, or past the arena's limit (see FC_OUTPUT_MEM_*). */
static bool nomem(struct fields *t)
{
	if (t->status)
		return false;
	if (t->a->over_limit)
		t->status = fc_err(t->err, FC_E_LIMIT, t->source, t->lineno, 0, FC_MEM_LIMIT_FMT,
				   t->a->limit >> 20);
	else
		t->status = fc_err(t->err, FC_E_NOMEM, t->source, t->lineno, 0, "out of memory");
	return false;
}

/* Reports that field `f` is not `what`, quoting its start (fc_quote). */
static bool bad(struct fields *t, const struct field *f, const char *what)
{
	char shown[FC_QUOTE_MAX];
	if (t->status)
		return false;
	fc_quote(shown, f->p, f->len);
	t->status =
	    fc_err(t->err, FC_E_SYNTAX, t->source, t->lineno, (unsigned long)(f->p - t->line) + 1,
		   "terse field %zu: expected %s, found \"%s\"", f->index, what, shown);
	return false;
}

static bool missing(struct fields *t, const char *what)
{
	if (t->status)
		return false;
	t->status =
	    fc_err(t->err, FC_E_SYNTAX, t->source, t->lineno, (unsigned long)(t->end - t->line) + 1,
		   "terse field %zu: expected %s, but the line ends after %zu fields", t->index + 1,
		   what, t->index);
	return false;
}

/* Looks at the field k places ahead (0 = the next one) without taking it. */
static bool peek(const struct fields *t, size_t k, struct field *f)
{
	const char *p = t->p;
	if (t->done)
		return false;
	for (;;) {
		const char *q = memchr(p, ';', (size_t)(t->end - p));
		if (k == 0) {
			f->p = p;
			f->len = (size_t)((q ? q : t->end) - p);
			f->index = t->index + 1;
			return true;
		}
		if (!q)
			return false;
		p = q + 1;
		k--;
	}
}

static bool take(struct fields *t, struct field *f, const char *what)
{
	if (t->status)
		return false;
	if (t->done)
		return missing(t, what);
	const char *q = memchr(t->p, ';', (size_t)(t->end - t->p));
	f->p = t->p;
	f->len = (size_t)((q ? q : t->end) - t->p);
	f->index = ++t->index;
	if (q)
		t->p = q + 1;
	else
		t->done = true;
	return true;
}

/* fio prints doubles with %f: digits, maybe a sign, "nan" or "inf". */
static bool is_double(const char *p, size_t len, double *out)
{
	bool ok;
	if (len == 0 || !(p[0] == '-' || p[0] == '.' || (p[0] >= '0' && p[0] <= '9') ||
			  p[0] == 'n' || p[0] == 'i'))
		return false;
	*out = fc_parse_double(p, len, &ok);
	return ok;
}

static bool is_pct(const char *p, size_t len, double *out)
{
	return len >= 2 && p[len - 1] == '%' && is_double(p, len - 1, out);
}

static bool u64(struct fields *t, uint64_t *out, const char *what)
{
	struct field f;
	if (!take(t, &f, what))
		return false;
	return fc_parse_u64(f.p, f.len, out) || bad(t, &f, what);
}

static bool is_i64(const char *p, size_t len, int64_t *out)
{
	uint64_t v;
	bool neg = len > 0 && p[0] == '-';
	if (!fc_parse_u64(p + neg, len - neg, &v) || v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

static bool int32(struct fields *t, int *out, const char *what)
{
	struct field f;
	int64_t v;
	if (!take(t, &f, what))
		return false;
	if (!is_i64(f.p, f.len, &v) || v < INT32_MIN || v > INT32_MAX)
		return bad(t, &f, what);
	*out = (int)v;
	return true;
}

static bool dbl(struct fields *t, double *out, const char *what)
{
	struct field f;
	if (!take(t, &f, what))
		return false;
	return is_double(f.p, f.len, out) || bad(t, &f, what);
}

static bool pct(struct fields *t, double *out, const char *what)
{
	struct field f;
	if (!take(t, &f, what))
		return false;
	return is_pct(f.p, f.len, out) || bad(t, &f, what);
}

static char *text(struct fields *t, const char *p, size_t len)
{
	char *s = fc_arena_strndup(t->a, p, len);
	if (!s)
		nomem(t);
	return s;
}

/* min;max;mean;stddev in us, min and max whole. */
static bool lat(struct fields *t, struct fc_lat *l, const char *what_min, const char *what_max,
		const char *what_mean, const char *what_dev)
{
	uint64_t min_us, max_us;
	double mean_us, dev_us;
	if (!u64(t, &min_us, what_min) || !u64(t, &max_us, what_max) ||
	    !dbl(t, &mean_us, what_mean) || !dbl(t, &dev_us, what_dev))
		return false;
	fc_lat_init(l);
	l->present = true;
	l->min_ns = (double)min_us * 1000.0;
	l->max_ns = (double)max_us * 1000.0;
	l->mean_ns = mean_us * 1000.0;
	l->stddev_ns = dev_us * 1000.0;
	return true;
}

/* "99.000000%=91": the percentile and its value in us. */
static bool percentile(struct fields *t, double *pct_out, uint64_t *us_out)
{
	static const char what[] = "a percentile \"P%=V\" (V in us)";
	struct field f;
	if (!take(t, &f, what))
		return false;
	const char *eq = memchr(f.p, '=', f.len);
	if (!eq || eq == f.p || eq[-1] != '%')
		return bad(t, &f, what);
	size_t plen = (size_t)(eq - 1 - f.p);
	if (!is_double(f.p, plen, pct_out) || !(*pct_out >= 0 && *pct_out <= 100) ||
	    !fc_parse_u64(eq + 1, (size_t)(f.p + f.len - eq - 1), us_out))
		return bad(t, &f, what);
	return true;
}

static int cmp_pct(const void *x, const void *y)
{
	const struct fc_percentile *a = x, *b = y;
	return (a->percent > b->percent) - (a->percent < b->percent);
}

/*
 * The 20 percentile fields.  They describe clat, or lat with
 * lat_percentiles=1; either way they go on clat.  fio computes them even
 * over no samples (a direction without I/O prints "1.000000%=0" ...);
 * the JSON leaves them out then, and so do we (see parse_block).
 */
static bool percentiles(struct fields *t, struct fc_percentile *out, size_t *n)
{
	size_t m = 0;
	for (int i = 0; i < TERSE_PERCENTILES; i++) {
		double p;
		uint64_t us;
		if (!percentile(t, &p, &us))
			return false;
		if (p == 0 && us == 0)
			continue; /* unused slot */
		out[m].percent = p;
		out[m].value_ns = (double)us * 1000.0;
		m++;
	}
	/* percentile_list may be given in any order; insertion sort is
	 * stable, and for a repeated percent the last one wins */
	for (size_t i = 1; i < m; i++) {
		struct fc_percentile v = out[i];
		size_t k = i;
		while (k > 0 && cmp_pct(&out[k - 1], &v) > 0) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = v;
	}
	size_t w = 0;
	for (size_t i = 0; i < m; i++) {
		if (i + 1 < m && out[i + 1].percent == out[i].percent)
			continue;
		out[w++] = out[i];
	}
	*n = w;
	return true;
}

/* terse prints zeros for what had no samples (a direction without I/O,
 * slat of a sync engine): not present, as in the JSON */
static void settle(struct fc_dir *d)
{
	fc_lat_settle(&d->slat);
	fc_lat_settle(&d->clat);
	fc_lat_settle(&d->lat);
	fc_samples_settle(&d->bw_samples);
	fc_samples_settle(&d->iops_samples);
}

static bool parse_block(struct fields *t, struct fc_dir *d, int version)
{
	uint64_t io_kib, bw_kib, iops, min, max, n;
	double mean, dev, agg;
	struct fc_percentile pcts[TERSE_PERCENTILES];
	size_t n_pcts;
	struct field f;

	fc_dir_init(d);
	d->present = true;
	if (!take(t, &f, "the I/O size in KiB"))
		return false;
	if (!fc_parse_u64(f.p, f.len, &io_kib) || io_kib > UINT64_MAX / 1024)
		return bad(t, &f, "the I/O size in KiB");
	if (!u64(t, &bw_kib, "the bandwidth in KiB/s") ||
	    !u64(t, &iops, "the IOPS (a whole number)") ||
	    !u64(t, &d->runtime_ms, "the runtime in ms"))
		return false;
	d->io_bytes = io_kib * 1024;
	d->bw_bytes = (double)bw_kib * 1024.0;
	d->iops = (double)iops;
	if (!lat(t, &d->slat, "slat min (us)", "slat max (us)", "slat mean (us)",
		 "slat stddev (us)") ||
	    !lat(t, &d->clat, "clat min (us)", "clat max (us)", "clat mean (us)",
		 "clat stddev (us)") ||
	    !percentiles(t, pcts, &n_pcts) ||
	    !lat(t, &d->lat, "lat min (us)", "lat max (us)", "lat mean (us)", "lat stddev (us)"))
		return false;

	/* zero min, max and mean: fio had no sample (a sub-microsecond one
	 * would still show in the mean) */
	bool no_samples = d->clat.max_ns == 0 && d->clat.mean_ns == 0 && d->lat.max_ns == 0 &&
			  d->lat.mean_ns == 0;
	bool all_zero = true;
	for (size_t i = 0; i < n_pcts; i++)
		all_zero &= pcts[i].value_ns == 0;
	if (n_pcts && !(no_samples && all_zero)) {
		d->clat.percentiles = fc_arena_memdup(t->a, pcts, n_pcts * sizeof(pcts[0]));
		if (!d->clat.percentiles)
			return nomem(t);
		d->clat.n_percentiles = n_pcts;
	}

	if (!u64(t, &min, "bw min (KiB/s)") || !u64(t, &max, "bw max (KiB/s)") ||
	    !pct(t, &agg, "the share of the group's bandwidth \"P%\"") ||
	    !dbl(t, &mean, "bw mean (KiB/s)") || !dbl(t, &dev, "bw stddev (KiB/s)"))
		return false;
	d->bw_samples.present = true;
	d->bw_samples.min = (double)min * 1024.0;
	d->bw_samples.max = (double)max * 1024.0;
	d->bw_samples.mean = mean * 1024.0;
	d->bw_samples.stddev = dev * 1024.0;
	d->bw_agg_pct = agg;
	if (version < 5) {
		settle(d);
		return true;
	}

	if (!u64(t, &n, "the number of bw samples") || !u64(t, &min, "iops min") ||
	    !u64(t, &max, "iops max") || !dbl(t, &mean, "iops mean") ||
	    !dbl(t, &dev, "iops stddev") ||
	    !u64(t, &d->iops_samples.n, "the number of iops samples"))
		return false;
	d->bw_samples.n = n;
	d->bw_samples.n_known = true;
	d->iops_samples.present = d->iops_samples.n_known = true;
	d->iops_samples.min = (double)min;
	d->iops_samples.max = (double)max;
	d->iops_samples.mean = mean;
	d->iops_samples.stddev = dev;
	settle(d);
	return true;
}

static bool buckets(struct fields *t, struct fc_buckets *out, const char *const *labels, size_t n,
		    const char *what)
{
	struct fc_bucket *items = fc_arena_alloc(t->a, n * sizeof(*items));
	if (!items)
		return nomem(t);
	for (size_t i = 0; i < n; i++) {
		items[i].label = labels[i];
		if (!pct(t, &items[i].percent, what))
			return false;
	}
	out->items = items;
	out->n = n;
	return true;
}

/* Does a disk record (name + 7 counters + "util%") start k fields ahead? */
static bool disk_ahead(const struct fields *t, size_t k)
{
	struct field f;
	uint64_t v;
	double d;
	if (!peek(t, k, &f) || f.len == 0)
		return false;
	for (size_t i = 1; i <= 7; i++)
		if (!peek(t, k + i, &f) || !fc_parse_u64(f.p, f.len, &v))
			return false;
	return peek(t, k + 8, &f) && is_pct(f.p, f.len, &d);
}

/* One disk record, and the averaged stats of its slaves (md/dm) if any,
 * which have no place in the model and are checked and skipped. */
static bool parse_disk(struct fields *t, struct fc_disk *dk)
{
	struct field f;
	fc_disk_init(dk);
	if (!take(t, &f, "a disk name"))
		return false;
	if (f.len == 0)
		return bad(t, &f, "a disk name");
	dk->name = text(t, f.p, f.len);
	if (!dk->name)
		return false;
	if (!u64(t, &dk->read_ios, "disk read ios") || !u64(t, &dk->write_ios, "disk write ios") ||
	    !u64(t, &dk->read_merges, "disk read merges") ||
	    !u64(t, &dk->write_merges, "disk write merges") ||
	    !u64(t, &dk->read_ticks_ms, "disk read ticks (ms)") ||
	    !u64(t, &dk->write_ticks_ms, "disk write ticks (ms)") ||
	    !u64(t, &dk->in_queue_ms, "disk time in queue (ms)") ||
	    !pct(t, &dk->util_pct, "disk util \"P%\""))
		return false;
	if (!peek(t, 0, &f) || f.len != 6 || memcmp(f.p, "slaves", 6) != 0 || !disk_ahead(t, 0))
		return true;
	take(t, &f, "\"slaves\"");
	for (int i = 0; i < 7; i++) {
		uint64_t v;
		if (!u64(t, &v, "an averaged slave counter"))
			return false;
	}
	double util;
	return pct(t, &util, "the slaves' max util \"P%\"");
}

/* Which directions the blocks are, by version and count. */
static bool block_ddirs(int version, size_t n, enum fc_ddir *out)
{
	static const enum fc_ddir rwt_m[] = {FC_DDIR_READ, FC_DDIR_WRITE, FC_DDIR_TRIM,
					     FC_DDIR_MIXED};
	static const enum fc_ddir rw_m[] = {FC_DDIR_READ, FC_DDIR_WRITE, FC_DDIR_MIXED};
	if (n == 1) {
		out[0] = FC_DDIR_MIXED;
		return true;
	}
	/* v3 has no trim block; v2 before fio 2.1 had none either */
	if (version == 3 || (version == 2 && n == 2)) {
		if (n > 3)
			return false;
		memcpy(out, rw_m, n * sizeof(*out));
		return true;
	}
	if (n < 3)
		return false;
	memcpy(out, rwt_m, n * sizeof(*out));
	return true;
}

int fc_terse_detect(const char *line, size_t len)
{
	size_t i = 0;
	int version = 0;
	while (i < len && i < 2 && line[i] >= '0' && line[i] <= '9')
		version = version * 10 + (line[i++] - '0');
	if (i == 0 || i >= len || line[i] != ';' || version == 0)
		return 0;
	i++;
	/* v3 and later: the fio version, always "fio-..." */
	if (len - i >= 4 && memcmp(line + i, "fio-", 4) == 0)
		return version;
	if (version != 2)
		return 0;
	/* v2: name;groupid;error;read KiB -- the name may hold anything but ';' */
	const char *p = memchr(line + i, ';', len - i);
	if (!p)
		return 0;
	const char *end = line + len;
	for (int k = 0; k < 3; k++) {
		const char *q = ++p;
		if (k == 1 && q < end && *q == '-')
			q++; /* error may be negative */
		const char *digits = q;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q == digits || (q < end && *q != ';') || (q == end && k < 2))
			return 0;
		p = q;
	}
	return 2;
}

static bool parse_header(struct fields *t, struct fc_terse_line *out)
{
	struct field f;
	uint64_t version;
	struct fc_job *j = &out->job;
	if (!take(t, &f, "the terse version"))
		return false;
	if (!fc_parse_u64(f.p, f.len, &version) || version < 2 || version > 5)
		return bad(t, &f, "terse version 2, 3, 4 or 5");
	out->version = (int)version;
	if (version > 2) {
		if (!take(t, &f, "the fio version \"fio-...\""))
			return false;
		if (f.len < 4 || memcmp(f.p, "fio-", 4) != 0)
			return bad(t, &f, "the fio version \"fio-...\"");
		out->fio_version = text(t, f.p, f.len);
		if (!out->fio_version)
			return false;
	}
	if (!take(t, &f, "the job name"))
		return false;
	j->name = text(t, f.p, f.len);
	return j->name && int32(t, &j->groupid, "the group id") &&
	       int32(t, &j->error, "the error number");
}

/* Direction blocks until the cpu part, which starts with "usr%". */
static bool parse_blocks(struct fields *t, int version, struct fc_job *j)
{
	struct fc_dir blocks[TERSE_MAX_BLOCKS];
	enum fc_ddir ddirs[TERSE_MAX_BLOCKS];
	size_t n = 0;
	size_t first = t->index + 1;
	struct field f;
	for (;;) {
		if (!peek(t, 0, &f))
			return missing(t, n ? "the usr CPU \"P%\"" : "a direction block");
		if (n && f.len && f.p[f.len - 1] == '%')
			break;
		if (n == TERSE_MAX_BLOCKS)
			return bad(t, &f, "the usr CPU \"P%\" after 4 direction blocks");
		if (!parse_block(t, &blocks[n], version))
			return false;
		n++;
	}
	if (!block_ddirs(version, n, ddirs)) {
		const char *counts = version == 3   ? "1, 2 or 3"
				     : version == 2 ? "1 to 4"
						    : "1, 3 or 4";
		t->status = fc_err(
		    t->err, FC_E_SYNTAX, t->source, t->lineno, (unsigned long)(f.p - t->line) + 1,
		    "terse field %zu: expected %s direction blocks of %d fields from "
		    "field %zu for terse version %d, found %zu",
		    f.index, counts, version == 5 ? TERSE_BLOCK_V5 : TERSE_BLOCK, first, version,
		    n);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		j->dir[ddirs[i]] = blocks[i];
	return true;
}

static bool parse_usage(struct fields *t, struct fc_job *j)
{
	return pct(t, &j->usr_cpu_pct, "the usr CPU \"P%\"") &&
	       pct(t, &j->sys_cpu_pct, "the sys CPU \"P%\"") &&
	       u64(t, &j->ctx, "the context switches") && u64(t, &j->majf, "the major faults") &&
	       u64(t, &j->minf, "the minor faults") &&
	       buckets(t, &j->iodepth, iodepth_labels, FC_ARRAY_SIZE(iodepth_labels),
		       "an iodepth share \"P%\"") &&
	       buckets(t, &j->latency_us, lat_us_labels, FC_ARRAY_SIZE(lat_us_labels),
		       "a latency (us) share \"P%\"") &&
	       buckets(t, &j->latency_ms, lat_ms_labels, FC_ARRAY_SIZE(lat_ms_labels),
		       "a latency (ms) share \"P%\"");
}

/*
 * What follows the distributions: disks (v3+, on a line of their own in
 * client mode), then total_err;first_error, then the description.  Only
 * their shape tells them apart.
 */
static bool parse_tail(struct fields *t, int version, struct fc_job *j, struct fc_vec *disks)
{
	struct field f, f2;
	uint64_t total;
	int64_t first;
	while (version > 2 && disk_ahead(t, 0)) {
		struct fc_disk dk;
		if (!parse_disk(t, &dk))
			return false;
		struct fc_disk *d = fc_vec_push(disks);
		if (!d)
			return nomem(t);
		*d = dk;
	}
	if (peek(t, 0, &f) && peek(t, 1, &f2) && fc_parse_u64(f.p, f.len, &total) &&
	    total <= (uint64_t)INT64_MAX && is_i64(f2.p, f2.len, &first)) {
		take(t, &f, "total_err");
		take(t, &f2, "first_error");
		j->total_err = (int64_t)total;
		j->first_error = first;
	}
	/* the description is the rest of the line, ';' and all */
	if (!t->done) {
		j->description = text(t, t->p, (size_t)(t->end - t->p));
		if (!j->description)
			return false;
	}
	return true;
}

int fc_terse_parse(struct fc_arena *a, const char *line, size_t len, const char *source,
		   unsigned long lineno, struct fc_terse_line *out, struct fc_vec *disks,
		   struct fc_error *err)
{
	struct fields t;
	memset(out, 0, sizeof(*out));
	fc_job_init(&out->job);
	fields_init(&t, a, line, len, source, lineno, err);
	if (!parse_header(&t, out) || !parse_blocks(&t, out->version, &out->job) ||
	    !parse_usage(&t, &out->job) || !parse_tail(&t, out->version, &out->job, disks))
		return t.status;
	return FC_OK;
}

int fc_terse_parse_disk_line(struct fc_arena *a, const char *line, size_t len, const char *source,
			     unsigned long lineno, struct fc_vec *disks, struct fc_error *err)
{
	struct fields t;
	struct field f;
	fields_init(&t, a, line, len, source, lineno, err);
	/* the scanner only calls this for a line starting with ';' */
	if (!take(&t, &f, "a disk line starting with ';'"))
		return t.status;
	if (f.len != 0) {
		bad(&t, &f, "a disk line starting with ';'");
		return t.status;
	}
	do {
		struct fc_disk dk;
		if (!parse_disk(&t, &dk))
			return t.status;
		struct fc_disk *d = fc_vec_push(disks);
		if (!d) {
			nomem(&t);
			return t.status;
		}
		*d = dk;
	} while (!t.done);
	return FC_OK;
}
