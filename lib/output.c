/* SPDX-License-Identifier: MIT */
/*
 * Reading fio's reports: find every JSON document and terse line in the
 * input, keep the text around them as diagnostics, and build the model.
 * An input without either is read again as normal output (normal.c): fio
 * prints its normal report after the terse and JSON ones of the same run
 * (--output-format=normal,json), and there it is only diagnostics.
 *
 * fio starts each JSON document with a '{' alone at column 0 and indents
 * everything inside, so a line beginning with '{' is where a document may
 * start (documents re-written by jq, compact or not, start the same way).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "model.h"
#include "util.h"

const char *fc_ddir_name(enum fc_ddir ddir)
{
	static const char *const names[] = {"read", "write", "trim", "mixed", "sync"};
	if ((unsigned)ddir >= FC_ARRAY_SIZE(names))
		return NULL;
	return names[ddir];
}

int fc_version_parse(const char *text, int *major, int *minor, int *patch)
{
	if (!text)
		return FC_E_FORMAT;
	if (strncmp(text, "fio-", 4) == 0)
		text += 4;
	int v[3] = {0, 0, 0};
	int n = 0;
	const char *p = text;
	while (n < 3) {
		if (*p < '0' || *p > '9')
			break;
		long x = 0;
		while (*p >= '0' && *p <= '9') {
			if (x < 100000)
				x = x * 10 + (*p - '0');
			p++;
		}
		v[n++] = (int)x;
		if (*p != '.')
			break;
		p++;
	}
	if (n < 2)
		return FC_E_FORMAT;
	*major = v[0];
	*minor = v[1];
	*patch = v[2];
	return FC_OK;
}

const char *fc_job_option(const struct fc_run *run, const struct fc_job *job, const char *key)
{
	if (job)
		for (size_t i = 0; i < job->n_options; i++)
			if (strcmp(job->options[i].key, key) == 0)
				return job->options[i].value;
	if (run)
		for (size_t i = 0; i < run->n_global_options; i++)
			if (strcmp(run->global_options[i].key, key) == 0)
				return run->global_options[i].value;
	return NULL;
}

/* ---- the builder ------------------------------------------------------- */

struct seq_pct {
	struct fc_percentile v;
	size_t seq;
};

struct seq_bin {
	struct fc_bin v;
	size_t seq;
};

struct builder {
	struct fc_arena *a;
	struct fc_json j;
	struct fc_vec pcts;    /* struct seq_pct */
	struct fc_vec bins;    /* struct seq_bin */
	struct fc_vec opts;    /* struct fc_option */
	struct fc_vec buckets; /* struct fc_bucket */
	struct fc_vec prios;   /* struct fc_prio */
	struct fc_vec jobs;    /* struct fc_job */
	struct fc_vec disks;   /* struct fc_disk */
	unsigned units;
	bool plus;
	bool has_jobs;
};

static bool nomem(struct builder *b)
{
	if (b->a->over_limit)
		return fj_fail(&b->j, FC_E_LIMIT, FC_MEM_LIMIT_FMT, b->a->limit >> 20);
	return fj_fail(&b->j, FC_E_NOMEM, "out of memory");
}

static bool num(struct builder *b, double *out)
{
	struct fj_num n;
	if (!fj_number(&b->j, &n))
		return false;
	*out = n.d;
	return true;
}

/* Integers fio prints with %lld or %llu; negative or fractional values are
 * clamped to what they can mean rather than rejected. */
static bool u64(struct builder *b, uint64_t *out)
{
	struct fj_num n;
	if (!fj_number(&b->j, &n))
		return false;
	if (n.is_int)
		*out = n.i < 0 ? 0 : (uint64_t)n.i;
	else if (!(n.d >= 0))
		*out = 0;
	else if (n.d >= 18446744073709551615.0)
		*out = UINT64_MAX;
	else
		*out = (uint64_t)n.d;
	return true;
}

static bool i64(struct builder *b, int64_t *out)
{
	struct fj_num n;
	if (!fj_number(&b->j, &n))
		return false;
	if (n.is_int)
		*out = n.i;
	else if (isnan(n.d))
		*out = -1;
	else if (n.d >= 9.2e18)
		*out = INT64_MAX;
	else if (n.d <= -9.2e18)
		*out = INT64_MIN;
	else
		*out = (int64_t)n.d;
	return true;
}

static bool int32(struct builder *b, int *out)
{
	int64_t v;
	if (!i64(b, &v))
		return false;
	*out = v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int)v;
	return true;
}

static bool str(struct builder *b, const char **out)
{
	struct fj_str s;
	if (!fj_scalar_text(&b->j, &s))
		return false;
	char *c = fc_arena_strndup(b->a, s.p, s.len);
	if (!c)
		return nomem(b);
	*out = c;
	return true;
}

/* A copy of a scratch vector's elements in the output's arena. */
static const void *keep(struct builder *b, const struct fc_vec *v)
{
	void *p = fc_arena_memdup(b->a, v->data, v->n * v->elem_size);
	if (!p)
		nomem(b);
	return p;
}

/* fio prints percentiles and bins in ascending order: check before sorting */
static bool sorted(const void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	for (size_t i = 1; i < n; i++)
		if (cmp((const char *)v + (i - 1) * size, (const char *)v + i * size) > 0)
			return false;
	return true;
}

static int cmp_pct(const void *x, const void *y)
{
	const struct seq_pct *a = x, *b = y;
	if (a->v.percent != b->v.percent)
		return a->v.percent < b->v.percent ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int cmp_bin(const void *x, const void *y)
{
	const struct seq_bin *a = x, *b = y;
	if (a->v.value_ns != b->v.value_ns)
		return a->v.value_ns < b->v.value_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool parse_percentiles(struct builder *b, struct fc_lat *l, double scale)
{
	struct fj_str key;
	fc_vec_clear(&b->pcts);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		if (FJ_KEY(key, "0.00")) {
			/* fio < 3.4 padded the object with "0.00" : 0 entries */
			if (!fj_skip(&b->j))
				return false;
			continue;
		}
		bool ok;
		double pct = fc_parse_double(key.p, key.len, &ok);
		double v;
		if (!num(b, &v))
			return false;
		if (!ok || !(pct >= 0 && pct <= 100))
			continue; /* fio writes "%f" of the percent; anything else is not ours */
		struct seq_pct *e = fc_vec_push(&b->pcts);
		if (!e)
			return nomem(b);
		e->v.percent = pct;
		e->v.value_ns = v * scale;
		e->seq = b->pcts.n;
	}
	if (b->j.status)
		return false;
	struct seq_pct *v = b->pcts.data;
	size_t n = b->pcts.n;
	if (n > 1 && !sorted(v, n, sizeof(*v), cmp_pct))
		qsort(v, n, sizeof(*v), cmp_pct);
	struct fc_percentile *out = fc_arena_alloc(b->a, (n ? n : 1) * sizeof(*out));
	if (!out)
		return nomem(b);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		/* duplicate keys (fio < 3.4 padding, repeated percentile_list
		 * entries): the last one wins, as in any JSON reader */
		if (i + 1 < n && v[i + 1].v.percent == v[i].v.percent)
			continue;
		out[m++] = v[i].v;
	}
	l->percentiles = out;
	l->n_percentiles = m;
	return true;
}

/* json+ bins into l; *total is the sum of their counts. */
static bool parse_bins(struct builder *b, struct fc_lat *l, double scale, uint64_t *total)
{
	struct fj_str key;
	int64_t meta_bits = -1, meta_val = -1, meta_nr = -1;
	fc_vec_clear(&b->bins);
	b->plus = true;
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		if (key.len > 14 && memcmp(key.p, "FIO_IO_U_PLAT_", 14) == 0) {
			int64_t v;
			if (!i64(b, &v))
				return false;
			if (FJ_KEY(key, "FIO_IO_U_PLAT_BITS"))
				meta_bits = v;
			else if (FJ_KEY(key, "FIO_IO_U_PLAT_VAL"))
				meta_val = v;
			else if (FJ_KEY(key, "FIO_IO_U_PLAT_NR"))
				meta_nr = v;
			continue;
		}
		bool ok;
		double at = fc_parse_double(key.p, key.len, &ok);
		uint64_t count;
		if (!u64(b, &count))
			return false;
		if (!ok || !(at >= 0))
			continue;
		struct seq_bin *e = fc_vec_push(&b->bins);
		if (!e)
			return nomem(b);
		e->v.value_ns = at;
		e->v.count = count;
		e->seq = b->bins.n;
	}
	if (b->j.status)
		return false;
	struct seq_bin *v = b->bins.data;
	bool indices = meta_bits >= 0 || meta_val >= 0 || meta_nr >= 0;
	/* fio 2.2.12-2.19: keys are bucket indices of a 19-group histogram in
	 * microseconds */
	unsigned groups = 19;
	if (meta_val == 64 && meta_nr > 0 && meta_nr % 64 == 0 && meta_nr / 64 <= 40)
		groups = (unsigned)(meta_nr / 64);
	if (indices)
		b->units |= FC_UNITS_BINS_INDEX;
	size_t n = 0;
	for (size_t i = 0; i < b->bins.n; i++) {
		double at = v[i].v.value_ns;
		if (indices)
			at = at == floor(at) && at < 4096
				 ? fc_hist_bucket_value((unsigned)at, groups, 0) * 1000.0
				 : NAN;
		else
			at *= scale;
		/* a key that is no bucket; NaN would also upset the sort */
		if (!isfinite(at))
			continue;
		v[n] = v[i];
		v[n++].v.value_ns = at;
	}
	if (n > 1 && !sorted(v, n, sizeof(*v), cmp_bin))
		qsort(v, n, sizeof(*v), cmp_bin);
	struct fc_bin *out = fc_arena_alloc(b->a, (n ? n : 1) * sizeof(*out));
	if (!out)
		return nomem(b);
	size_t m = 0;
	*total = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1].v.value_ns == v[i].v.value_ns)
			continue;
		if (v[i].v.count == 0)
			continue;
		out[m++] = v[i].v;
		*total += v[i].v.count;
	}
	l->bins = out;
	l->n_bins = m;
	return true;
}

/* A slat/clat/lat object; `us` for fio 2.x, which wrote microseconds. */
static bool parse_lat(struct builder *b, struct fc_lat *l, bool us)
{
	struct fj_str key;
	double scale = us ? 1000.0 : 1.0;
	bool n_given = false, have_bins = false;
	uint64_t bins_total = 0;
	fc_lat_init(l);
	l->present = true;
	if (us)
		b->units |= FC_UNITS_LAT_US;
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		double *field = NULL;
		if (FJ_KEY(key, "min"))
			field = &l->min_ns;
		else if (FJ_KEY(key, "max"))
			field = &l->max_ns;
		else if (FJ_KEY(key, "mean"))
			field = &l->mean_ns;
		else if (FJ_KEY(key, "stddev"))
			field = &l->stddev_ns;
		if (field) {
			if (!num(b, field))
				return false;
			*field *= scale;
		} else if (FJ_KEY(key, "N")) {
			if (!u64(b, &l->n))
				return false;
			n_given = true;
		} else if (FJ_KEY(key, "percentile")) {
			if (!parse_percentiles(b, l, scale))
				return false;
		} else if (FJ_KEY(key, "bins")) {
			if (!parse_bins(b, l, scale, &bins_total))
				return false;
			have_bins = true;
		} else if (!fj_skip(&b->j)) {
			return false;
		}
	}
	if (b->j.status)
		return false;
	/* N (fio >= 3.18) wherever it stands; else what the bins add up to */
	if (!n_given && have_bins)
		l->n = bins_total;
	l->n_known = n_given || have_bins;
	fc_lat_settle(l);
	return true;
}

static bool parse_prio(struct builder *b, struct fc_prio *p)
{
	struct fj_str key;
	memset(p, 0, sizeof(*p));
	p->prioclass = p->prio = p->priohint = -1;
	fc_lat_init(&p->lat);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		if (FJ_KEY(key, "prioclass")) {
			if (!int32(b, &p->prioclass))
				return false;
		} else if (FJ_KEY(key, "prio")) {
			if (!int32(b, &p->prio))
				return false;
		} else if (FJ_KEY(key, "priohint")) {
			if (!int32(b, &p->priohint))
				return false;
		} else if (FJ_KEY(key, "clat_ns")) {
			if (!parse_lat(b, &p->lat, false))
				return false;
			p->total_lat = false;
		} else if (FJ_KEY(key, "lat_ns")) {
			if (!parse_lat(b, &p->lat, false))
				return false;
			p->total_lat = true;
		} else if (!fj_skip(&b->j)) {
			return false;
		}
	}
	return b->j.status == 0;
}

static bool push_prio(struct builder *b, const struct fc_prio *p)
{
	struct fc_prio *e = fc_vec_push(&b->prios);
	if (!e)
		return nomem(b);
	*e = *p;
	return true;
}

/*
 * bw_min ... bw_samples, iops_min ... iops_samples: fio's statistics over
 * its periodic bw/iops samples.  `suffix` is the key after "bw_"/"iops_";
 * bw values are KiB/s (scale 1024 makes them bytes/s).
 */
static bool parse_samples_key(struct builder *b, const char *suffix, size_t len,
			      struct fc_samples *s, double scale, bool *handled)
{
	double *field = NULL;
	*handled = true;
	if (len == 3 && memcmp(suffix, "min", 3) == 0)
		field = &s->min;
	else if (len == 3 && memcmp(suffix, "max", 3) == 0)
		field = &s->max;
	else if (len == 4 && memcmp(suffix, "mean", 4) == 0)
		field = &s->mean;
	else if ((len == 3 && memcmp(suffix, "dev", 3) == 0) ||
		 (len == 6 && memcmp(suffix, "stddev", 6) == 0))
		field = &s->stddev;
	if (field) {
		if (!num(b, field))
			return false;
		*field *= scale;
		s->present = true;
		return true;
	}
	if (len == 7 && memcmp(suffix, "samples", 7) == 0) {
		if (!u64(b, &s->n))
			return false;
		s->n_known = s->present = true;
		return true;
	}
	*handled = false;
	return true;
}

/* KiB to bytes, saturating: no count fio prints comes near 2^64 bytes */
static uint64_t kib_to_bytes(uint64_t kib)
{
	return kib > UINT64_MAX / 1024 ? UINT64_MAX : kib * 1024;
}

static bool parse_dir(struct builder *b, struct fc_dir *d)
{
	struct fj_str key;
	uint64_t io_bytes = 0, io_kbytes = 0;
	bool have_io_bytes = false, have_io_kbytes = false;
	double bw_kib = NAN;
	fc_dir_init(d);
	d->present = true;
	fc_vec_clear(&b->prios);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		bool handled;
		struct fc_prio prio;
		if (FJ_KEY(key, "io_bytes")) {
			if (!u64(b, &io_bytes))
				return false;
			have_io_bytes = true;
		} else if (FJ_KEY(key, "io_kbytes")) {
			if (!u64(b, &io_kbytes))
				return false;
			have_io_kbytes = true;
		} else if (FJ_KEY(key, "bw_bytes")) {
			if (!num(b, &d->bw_bytes))
				return false;
		} else if (FJ_KEY(key, "bw")) {
			if (!num(b, &bw_kib))
				return false;
		} else if (FJ_KEY(key, "iops")) {
			if (!num(b, &d->iops))
				return false;
		} else if (FJ_KEY(key, "runtime")) {
			if (!u64(b, &d->runtime_ms))
				return false;
		} else if (FJ_KEY(key, "total_ios")) {
			if (!u64(b, &d->total_ios))
				return false;
			d->ios_known = true;
		} else if (FJ_KEY(key, "short_ios")) {
			if (!u64(b, &d->short_ios))
				return false;
		} else if (FJ_KEY(key, "drop_ios")) {
			if (!u64(b, &d->drop_ios))
				return false;
		} else if (FJ_KEY(key, "slat_ns") || FJ_KEY(key, "slat")) {
			if (!parse_lat(b, &d->slat, key.len == 4))
				return false;
		} else if (FJ_KEY(key, "clat_ns") || FJ_KEY(key, "clat")) {
			if (!parse_lat(b, &d->clat, key.len == 4))
				return false;
		} else if (FJ_KEY(key, "lat_ns") || FJ_KEY(key, "lat")) {
			if (!parse_lat(b, &d->lat, key.len == 3))
				return false;
		} else if (FJ_KEY(key, "prios")) {
			if (!fj_array_begin(&b->j))
				return false;
			while (fj_array_next(&b->j)) {
				if (!parse_prio(b, &prio) || !push_prio(b, &prio))
					return false;
			}
			if (b->j.status)
				return false;
		} else if (FJ_KEY(key, "clat_high_prio") || FJ_KEY(key, "clat_low_prio") ||
			   FJ_KEY(key, "lat_high_prio") || FJ_KEY(key, "lat_low_prio")) {
			/* fio 3.18-3.29 */
			memset(&prio, 0, sizeof(prio));
			prio.prioclass = prio.prio = prio.priohint = -1;
			prio.total_lat = key.p[0] == 'l';
			prio.high = memmem(key.p, key.len, "high", 4) != NULL;
			if (!parse_lat(b, &prio.lat, false) || !push_prio(b, &prio))
				return false;
		} else if (FJ_KEY(key, "bw_agg")) {
			if (!num(b, &d->bw_agg_pct))
				return false;
		} else if (FJ_KEY(key, "cachehit")) {
			if (!num(b, &d->cachehit_pct))
				return false;
		} else {
			handled = false;
			if (key.len > 3 && memcmp(key.p, "bw_", 3) == 0 &&
			    !parse_samples_key(b, key.p + 3, key.len - 3, &d->bw_samples, 1024.0,
					       &handled))
				return false;
			if (key.len > 5 && memcmp(key.p, "iops_", 5) == 0 &&
			    !parse_samples_key(b, key.p + 5, key.len - 5, &d->iops_samples, 1.0,
					       &handled))
				return false;
			if (!handled && !fj_skip(&b->j))
				return false;
		}
	}
	if (b->j.status)
		return false;
	if (have_io_bytes && !have_io_kbytes) {
		/* before fio 2.21 io_bytes held KiB */
		d->io_bytes = kib_to_bytes(io_bytes);
		b->units |= FC_UNITS_IO_KIB;
	} else if (have_io_bytes) {
		d->io_bytes = io_bytes;
	} else if (have_io_kbytes) {
		d->io_bytes = kib_to_bytes(io_kbytes);
	}
	if (isnan(d->bw_bytes) && !isnan(bw_kib))
		d->bw_bytes = bw_kib * 1024.0;
	fc_samples_settle(&d->bw_samples);
	fc_samples_settle(&d->iops_samples);
	if (b->prios.n) {
		d->n_prios = b->prios.n;
		d->prios = keep(b, &b->prios);
		return d->prios != NULL;
	}
	return true;
}

static int cmp_option(const void *x, const void *y)
{
	return strcmp(((const struct fc_option *)x)->key, ((const struct fc_option *)y)->key);
}

/* Appends the members of an options object to b->opts, duplicates and all. */
static bool parse_options(struct builder *b)
{
	struct fj_str key, val;
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		enum fj_type t = fj_peek(&b->j);
		if (t == FJ_OBJECT || t == FJ_ARRAY) {
			if (!fj_skip(&b->j))
				return false;
			continue;
		}
		char *k = fc_arena_strndup(b->a, key.p, key.len);
		if (!k)
			return nomem(b);
		if (!fj_scalar_text(&b->j, &val))
			return false;
		char *v = fc_arena_strndup(b->a, val.p, val.len);
		struct fc_option *e = v ? fc_vec_push(&b->opts) : NULL;
		if (!e)
			return nomem(b);
		e->key = k;
		e->value = v;
	}
	return b->j.status == 0;
}

/* b->opts with the last value of each key, in the order keys first came. */
static bool keep_options(struct builder *b, const struct fc_option **out, size_t *n)
{
	if (fc_dedupe(b->opts.data, &b->opts.n, sizeof(struct fc_option), cmp_option) < 0)
		return nomem(b);
	*n = b->opts.n;
	*out = keep(b, &b->opts);
	return *out != NULL;
}

/*
 * A key given more than once with different values: in client mode each
 * server's global options are listed (fio before 3.39 repeats the keys in
 * one object, in the order the servers answered, which changes from run to
 * run; 3.39 an object per server), and a value of one host's (its file,
 * its size) is none of the run's.  Every entry of such a key is left out
 * (unknown), so that the server listed last does not decide the workload.
 */
static bool drop_disagreeing(struct builder *b)
{
	struct fc_option *o = b->opts.data;
	size_t n = b->opts.n, m = 0;
	bool *differs = calloc(n ? n : 1, sizeof(*differs));
	if (!differs)
		return nomem(b);
	for (size_t i = 0; i < n; i++)
		for (size_t k = i + 1; k < n; k++)
			if (!strcmp(o[k].key, o[i].key) && strcmp(o[k].value, o[i].value))
				differs[i] = differs[k] = true;
	/* every entry of such a key goes, however many agree */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < n && !differs[i]; k++)
			differs[i] = differs[k] && !strcmp(o[k].key, o[i].key);
	for (size_t i = 0; i < n; i++)
		if (!differs[i])
			o[m++] = o[i];
	b->opts.n = m;
	free(differs);
	return true;
}

/* "global options" is an object, or an array of per-server objects
 * carrying hostname and port (client mode, fio >= 3.39). */
static bool parse_global_options(struct builder *b, struct fc_run *run)
{
	fc_vec_clear(&b->opts);
	if (fj_peek(&b->j) == FJ_ARRAY) {
		if (!fj_array_begin(&b->j))
			return false;
		while (fj_array_next(&b->j)) {
			if (fj_peek(&b->j) != FJ_OBJECT) {
				if (!fj_skip(&b->j))
					return false;
				continue;
			}
			if (!parse_options(b))
				return false;
		}
		if (b->j.status)
			return false;
		/* hostname/port identify the server, they are not options */
		struct fc_option *o = b->opts.data;
		size_t m = 0;
		for (size_t i = 0; i < b->opts.n; i++)
			if (strcmp(o[i].key, "hostname") && strcmp(o[i].key, "port"))
				o[m++] = o[i];
		b->opts.n = m;
	} else if (fj_peek(&b->j) == FJ_OBJECT) {
		if (!parse_options(b))
			return false;
	} else {
		return fj_skip(&b->j);
	}
	if (!drop_disagreeing(b))
		return false;
	return keep_options(b, &run->global_options, &run->n_global_options);
}

static int cmp_bucket(const void *x, const void *y)
{
	return strcmp(((const struct fc_bucket *)x)->label, ((const struct fc_bucket *)y)->label);
}

static bool parse_buckets(struct builder *b, struct fc_buckets *out)
{
	struct fj_str key;
	fc_vec_clear(&b->buckets);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		char *label = fc_arena_strndup(b->a, key.p, key.len);
		struct fc_bucket *e = label ? fc_vec_push(&b->buckets) : NULL;
		if (!e)
			return nomem(b);
		e->label = label;
		if (!num(b, &e->percent))
			return false;
	}
	if (b->j.status)
		return false;
	if (fc_dedupe(b->buckets.data, &b->buckets.n, sizeof(struct fc_bucket), cmp_bucket) < 0)
		return nomem(b);
	out->n = b->buckets.n;
	out->items = keep(b, &b->buckets);
	return out->items != NULL;
}

static int ddir_of_key(const struct fj_str *k)
{
	if (FJ_KEY(k[0], "read"))
		return FC_DDIR_READ;
	if (FJ_KEY(k[0], "write"))
		return FC_DDIR_WRITE;
	if (FJ_KEY(k[0], "trim"))
		return FC_DDIR_TRIM;
	if (FJ_KEY(k[0], "mixed"))
		return FC_DDIR_MIXED;
	if (FJ_KEY(k[0], "sync"))
		return FC_DDIR_SYNC;
	return -1;
}

static bool parse_job(struct builder *b, struct fc_job *job)
{
	struct fj_str key;
	fc_job_init(job);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		int ddir = ddir_of_key(&key);
		bool ok = true;
		if (ddir >= 0) {
			ok = parse_dir(b, &job->dir[ddir]);
		} else if (FJ_KEY(key, "jobname")) {
			ok = str(b, &job->name);
		} else if (FJ_KEY(key, "groupid")) {
			ok = int32(b, &job->groupid);
		} else if (FJ_KEY(key, "error")) {
			ok = int32(b, &job->error);
		} else if (FJ_KEY(key, "eta")) {
			ok = i64(b, &job->eta_s);
			if (job->eta_s >= 2147483647 || job->eta_s < 0)
				job->eta_s = -1;
		} else if (FJ_KEY(key, "elapsed")) {
			ok = i64(b, &job->elapsed_s);
		} else if (FJ_KEY(key, "job_start")) {
			ok = i64(b, &job->job_start_ms);
		} else if (FJ_KEY(key, "job_runtime")) {
			ok = i64(b, &job->job_runtime_ms);
		} else if (FJ_KEY(key, "usr_cpu")) {
			ok = num(b, &job->usr_cpu_pct);
		} else if (FJ_KEY(key, "sys_cpu")) {
			ok = num(b, &job->sys_cpu_pct);
		} else if (FJ_KEY(key, "ctx")) {
			ok = u64(b, &job->ctx);
		} else if (FJ_KEY(key, "majf")) {
			ok = u64(b, &job->majf);
		} else if (FJ_KEY(key, "minf")) {
			ok = u64(b, &job->minf);
		} else if (FJ_KEY(key, "total_err")) {
			ok = i64(b, &job->total_err);
		} else if (FJ_KEY(key, "first_error")) {
			ok = i64(b, &job->first_error);
		} else if (FJ_KEY(key, "desc")) {
			ok = str(b, &job->description);
		} else if (FJ_KEY(key, "hostname")) {
			ok = str(b, &job->hostname);
		} else if (FJ_KEY(key, "port")) {
			ok = int32(b, &job->port);
		} else if (FJ_KEY(key, "job options")) {
			fc_vec_clear(&b->opts);
			ok = parse_options(b) && keep_options(b, &job->options, &job->n_options);
		} else if (FJ_KEY(key, "iodepth_level")) {
			ok = parse_buckets(b, &job->iodepth);
		} else if (FJ_KEY(key, "iodepth_submit")) {
			ok = parse_buckets(b, &job->iodepth_submit);
		} else if (FJ_KEY(key, "iodepth_complete")) {
			ok = parse_buckets(b, &job->iodepth_complete);
		} else if (FJ_KEY(key, "latency_ns")) {
			ok = parse_buckets(b, &job->latency_ns);
		} else if (FJ_KEY(key, "latency_us")) {
			ok = parse_buckets(b, &job->latency_us);
		} else if (FJ_KEY(key, "latency_ms")) {
			ok = parse_buckets(b, &job->latency_ms);
		} else {
			ok = fj_skip(&b->j);
		}
		if (!ok)
			return false;
	}
	if (b->j.status)
		return false;
	job->all_clients = strcmp(job->name, "All clients") == 0 && job->hostname;
	return true;
}

static bool parse_disk(struct builder *b, struct fc_disk *dk)
{
	struct fj_str key;
	fc_disk_init(dk);
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		bool ok;
		if (FJ_KEY(key, "name"))
			ok = str(b, &dk->name);
		else if (FJ_KEY(key, "hostname"))
			ok = str(b, &dk->hostname);
		else if (FJ_KEY(key, "read_ios"))
			ok = u64(b, &dk->read_ios);
		else if (FJ_KEY(key, "write_ios"))
			ok = u64(b, &dk->write_ios);
		else if (FJ_KEY(key, "read_merges"))
			ok = u64(b, &dk->read_merges);
		else if (FJ_KEY(key, "write_merges"))
			ok = u64(b, &dk->write_merges);
		else if (FJ_KEY(key, "read_ticks"))
			ok = u64(b, &dk->read_ticks_ms);
		else if (FJ_KEY(key, "write_ticks"))
			ok = u64(b, &dk->write_ticks_ms);
		else if (FJ_KEY(key, "in_queue"))
			ok = u64(b, &dk->in_queue_ms);
		else if (FJ_KEY(key, "read_sectors"))
			ok = i64(b, &dk->read_sectors);
		else if (FJ_KEY(key, "write_sectors"))
			ok = i64(b, &dk->write_sectors);
		else if (FJ_KEY(key, "util"))
			ok = num(b, &dk->util_pct);
		else
			ok = fj_skip(&b->j);
		if (!ok)
			return false;
	}
	return b->j.status == 0;
}

/* Orders jobs by identity: group, host, port, name. */
static int cmp_identity(const void *x, const void *y)
{
	const struct fc_job *a = x, *b = y;
	if (a->groupid != b->groupid)
		return a->groupid < b->groupid ? -1 : 1;
	if (a->port != b->port)
		return a->port < b->port ? -1 : 1;
	if (!a->hostname != !b->hostname)
		return a->hostname ? 1 : -1;
	int r = a->hostname ? strcmp(a->hostname, b->hostname) : 0;
	return r ? r : strcmp(a->name, b->name);
}

int fc_number_clones(struct fc_job *jobs, size_t n)
{
	size_t *idx = fc_sort_index(jobs, n, sizeof(*jobs), cmp_identity);
	if (!idx)
		return FC_E_NOMEM;
	for (size_t i = 0; i < n; i++) {
		bool same = i > 0 && cmp_identity(&jobs[idx[i - 1]], &jobs[idx[i]]) == 0;
		jobs[idx[i]].clone = same ? jobs[idx[i - 1]].clone + 1 : 0;
	}
	free(idx);
	return FC_OK;
}

static bool parse_jobs(struct builder *b, struct fc_run *run)
{
	if (!fj_array_begin(&b->j))
		return false;
	fc_vec_clear(&b->jobs);
	while (fj_array_next(&b->j)) {
		struct fc_job *e = fc_vec_push(&b->jobs);
		if (!e)
			return nomem(b);
		if (!parse_job(b, e))
			return false;
		e->index = b->jobs.n - 1;
	}
	if (b->j.status)
		return false;
	if (fc_number_clones(b->jobs.data, b->jobs.n) < 0)
		return nomem(b);
	run->n_jobs = b->jobs.n;
	run->jobs = keep(b, &b->jobs);
	return run->jobs != NULL;
}

static bool parse_disks(struct builder *b, struct fc_run *run)
{
	if (!fj_array_begin(&b->j))
		return false;
	fc_vec_clear(&b->disks);
	while (fj_array_next(&b->j)) {
		struct fc_disk *e = fc_vec_push(&b->disks);
		if (!e)
			return nomem(b);
		if (!parse_disk(b, e))
			return false;
	}
	if (b->j.status)
		return false;
	run->n_disks = b->disks.n;
	run->disks = keep(b, &b->disks);
	return run->disks != NULL;
}

static bool parse_document(struct builder *b, struct fc_run *run)
{
	struct fj_str key;
	fc_run_init(run);
	b->units = 0;
	b->plus = false;
	b->has_jobs = false;
	if (!fj_object_begin(&b->j))
		return false;
	while (fj_object_next(&b->j, &key)) {
		bool ok;
		if (FJ_KEY(key, "fio version")) {
			ok = str(b, &run->fio_version);
		} else if (FJ_KEY(key, "timestamp")) {
			ok = i64(b, &run->timestamp_s);
		} else if (FJ_KEY(key, "timestamp_ms")) {
			ok = i64(b, &run->timestamp_ms);
		} else if (FJ_KEY(key, "time")) {
			ok = str(b, &run->time_text);
		} else if (FJ_KEY(key, "global options")) {
			ok = parse_global_options(b, run);
		} else if (FJ_KEY(key, "jobs") || FJ_KEY(key, "client_stats")) {
			run->client_mode = key.p[0] == 'c';
			b->has_jobs = true;
			ok = parse_jobs(b, run);
		} else if (FJ_KEY(key, "disk_util")) {
			ok = parse_disks(b, run);
		} else {
			ok = fj_skip(&b->j);
		}
		if (!ok)
			return false;
	}
	if (b->j.status)
		return false;
	run->format = b->plus ? FC_FORMAT_JSON_PLUS : FC_FORMAT_JSON;
	run->units = b->units;
	if (run->fio_version)
		fc_version_parse(run->fio_version, &run->version_major, &run->version_minor,
				 &run->version_patch);
	return true;
}

/* ---- scanning the input ------------------------------------------------ */

struct output_box {
	struct fc_output pub;
	struct fc_arena arena;
};

void fc_output_free(struct fc_output *out)
{
	if (!out)
		return;
	struct output_box *box = (struct output_box *)out;
	fc_arena_release(&box->arena);
	free(box);
}

struct scan {
	struct builder b;
	const char *source;
	struct fc_vec runs;  /* struct fc_run */
	struct fc_vec diags; /* struct fc_diag */
	/* the terse run being collected */
	bool terse_open;
	struct fc_run terse;
	struct fc_vec terse_jobs;  /* struct fc_job */
	struct fc_vec terse_disks; /* struct fc_disk */
	bool fio_text;		   /* text that only fio prints */
	bool json_not_fio;	   /* a JSON document without jobs */
	int signal;
	bool truncated;
	bool last_broken;	/* the last report could not be read */
	struct fc_error broken; /* why the latest broken report was not read */
	unsigned long line;	/* the line being read */
};

/* Out of memory, or past the memory allowed for the input (at `line`, or
 * the line being read if 0). */
static int scan_nomem(struct scan *s, unsigned long line, struct fc_error *err)
{
	if (!line)
		line = s->line;
	if (s->b.a->over_limit)
		return fc_err(err, FC_E_LIMIT, s->source, line, 0, FC_MEM_LIMIT_FMT,
			      s->b.a->limit >> 20);
	return fc_err(err, FC_E_NOMEM, s->source, line, 0, "out of memory");
}

static bool starts(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);
	return len >= n && memcmp(p, lit, n) == 0;
}

static enum fc_diag_kind classify(struct scan *s, const char *p, size_t len)
{
	if (len > 2 && p[0] == '<') {
		const char *gt = memchr(p, '>', len);
		if (gt) {
			s->fio_text = true;
			return FC_DIAG_HOST;
		}
	}
	if (starts(p, len, "fio: terminating on signal ")) {
		/* the number ends with the line, which need not end the input */
		int sig = 0;
		for (size_t i = 27; i < len && p[i] >= '0' && p[i] <= '9' && sig < 1000; i++)
			sig = sig * 10 + (p[i] - '0');
		s->fio_text = true;
		s->signal = sig;
		return FC_DIAG_SIGNAL;
	}
	if (starts(p, len, "fio: ")) {
		s->fio_text = true;
		return FC_DIAG_FIO;
	}
	if (starts(p, len, "note: ")) {
		s->fio_text = true;
		return FC_DIAG_NOTE;
	}
	/* the job banner and start lines of fio's normal output */
	if (memmem(p, len, ": (g=", 5) || starts(p, len, "Starting ") || starts(p, len, "Jobs: ") ||
	    starts(p, len, "Run status group"))
		s->fio_text = true;
	return FC_DIAG_TEXT;
}

static int add_diag(struct scan *s, enum fc_diag_kind kind, unsigned long line, const char *p,
		    size_t len, struct fc_error *err)
{
	struct fc_diag *d = fc_vec_push(&s->diags);
	if (!d)
		return scan_nomem(s, line, err);
	d->kind = kind;
	d->line = line;
	d->text = fc_arena_strndup(s->b.a, p, len);
	if (!d->text)
		return scan_nomem(s, line, err);
	return FC_OK;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

/* Orders disk records by every field; NaN utils are equal to each other. */
static int cmp_disk(const void *x, const void *y)
{
	const struct fc_disk *a = x, *b = y;
	int r = strcmp(a->name, b->name);
	if (!r)
		r = cmp_u64(a->read_ios, b->read_ios);
	if (!r)
		r = cmp_u64(a->write_ios, b->write_ios);
	if (!r)
		r = cmp_u64(a->read_merges, b->read_merges);
	if (!r)
		r = cmp_u64(a->write_merges, b->write_merges);
	if (!r)
		r = cmp_u64(a->read_ticks_ms, b->read_ticks_ms);
	if (!r)
		r = cmp_u64(a->write_ticks_ms, b->write_ticks_ms);
	if (!r)
		r = cmp_u64(a->in_queue_ms, b->in_queue_ms);
	if (!r && isnan(a->util_pct) != isnan(b->util_pct))
		r = isnan(a->util_pct) ? 1 : -1;
	if (!r && !isnan(a->util_pct))
		r = (a->util_pct > b->util_pct) - (a->util_pct < b->util_pct);
	return r;
}

static int flush_terse(struct scan *s, struct fc_error *err)
{
	if (!s->terse_open)
		return FC_OK;
	s->terse_open = false;
	struct fc_run *r = fc_vec_push(&s->runs);
	if (!r)
		return scan_nomem(s, s->terse.line, err);
	*r = s->terse;
	/* every job line repeats the same disk records: keep one */
	if (fc_number_clones(s->terse_jobs.data, s->terse_jobs.n) < 0 ||
	    fc_dedupe(s->terse_disks.data, &s->terse_disks.n, sizeof(struct fc_disk), cmp_disk) < 0)
		return scan_nomem(s, s->terse.line, err);
	r->jobs =
	    fc_arena_memdup(s->b.a, s->terse_jobs.data, s->terse_jobs.n * sizeof(struct fc_job));
	r->n_jobs = s->terse_jobs.n;
	r->disks =
	    fc_arena_memdup(s->b.a, s->terse_disks.data, s->terse_disks.n * sizeof(struct fc_disk));
	r->n_disks = s->terse_disks.n;
	if (!r->jobs || !r->disks)
		return scan_nomem(s, s->terse.line, err);
	fc_vec_clear(&s->terse_jobs);
	fc_vec_clear(&s->terse_disks);
	s->last_broken = false;
	return FC_OK;
}

static int terse_line(struct scan *s, const char *p, size_t len, unsigned long lineno,
		      unsigned long long offset, struct fc_error *err)
{
	struct fc_terse_line t;
	int rc = fc_terse_parse(s->b.a, p, len, s->source, lineno, &t, &s->terse_disks, err);
	if (rc < 0)
		return rc;
	if (!s->terse_open) {
		s->terse_open = true;
		fc_run_init(&s->terse);
		s->terse.format = FC_FORMAT_TERSE;
		s->terse.terse_version = t.version;
		s->terse.units = FC_UNITS_LAT_US;
		s->terse.line = lineno;
		s->terse.offset = offset;
		s->terse.fio_version = t.fio_version;
		if (t.fio_version)
			fc_version_parse(t.fio_version, &s->terse.version_major,
					 &s->terse.version_minor, &s->terse.version_patch);
	}
	struct fc_job *j = fc_vec_push(&s->terse_jobs);
	if (!j)
		return scan_nomem(s, lineno, err);
	*j = t.job;
	j->index = s->terse_jobs.n - 1;
	j->all_clients = strcmp(j->name, "All clients") == 0;
	if (j->all_clients)
		s->terse.client_mode = true;
	return FC_OK;
}

/* A line starting with ';' after terse job lines: the description of the
 * last v2 job (v2 prints it on a line of its own), else client-mode disks. */
static int terse_extra_line(struct scan *s, const char *p, size_t len, unsigned long lineno,
			    struct fc_error *err)
{
	if (s->terse.terse_version != 2) {
		s->terse.client_mode = true;
		return fc_terse_parse_disk_line(s->b.a, p, len, s->source, lineno, &s->terse_disks,
						err);
	}
	struct fc_job *j = (struct fc_job *)s->terse_jobs.data + s->terse_jobs.n - 1;
	if (j->description)
		return fc_err(err, FC_E_SYNTAX, s->source, lineno, 1,
			      "a second description line for terse job \"%s\"", j->name);
	j->description = fc_arena_strndup(s->b.a, p + 1, len - 1);
	if (!j->description)
		return scan_nomem(s, lineno, err);
	return FC_OK;
}

/* Parses the document starting at p.  Returns the end of what was read. */
static int json_document(struct scan *s, const char *base, const char *p, const char *end,
			 unsigned long lineno, const char **next, struct fc_error *err)
{
	struct builder *b = &s->b;
	*next = end;
	fj_init(&b->j, p, end, s->source, lineno);
	struct fc_run run;
	bool ok = parse_document(b, &run);
	if (!ok) {
		struct fc_error e;
		fj_error(&b->j, &e);
		if (b->j.status == FC_E_NOMEM || b->a->over_limit) {
			/* not the document's fault: stop reading */
			fj_release(&b->j);
			if (err)
				*err = e;
			return e.code;
		}
		char msg[FC_ERROR_MESSAGE_MAX + 64];
		if (b->j.eof) {
			s->truncated = true;
			snprintf(msg, sizeof(msg), "report from line %lu is cut short: %s", lineno,
				 e.message);
			e.code = FC_E_UNFINISHED;
			*next = end;
		} else {
			snprintf(msg, sizeof(msg),
				 "report from line %lu is not readable: line %lu, column %lu: %s",
				 lineno, e.line, e.column, e.message);
			*next = NULL; /* resume after the opening line */
		}
		fj_release(&b->j);
		s->broken = e;
		s->last_broken = true;
		return add_diag(s, FC_DIAG_BROKEN, lineno, msg, strlen(msg), err);
	}
	*next = b->j.p;
	fj_release(&b->j);
	if (!b->has_jobs) {
		s->json_not_fio = true;
		const char *m =
		    "a JSON document without \"jobs\" or \"client_stats\" (not a fio report)";
		return add_diag(s, FC_DIAG_BROKEN, lineno, m, strlen(m), err);
	}
	run.line = lineno;
	run.offset = (unsigned long long)(p - base);
	struct fc_run *r = fc_vec_push(&s->runs);
	if (!r)
		return scan_nomem(s, lineno, err);
	*r = run;
	s->last_broken = false;
	return FC_OK;
}

static unsigned long count_lines(const char *p, const char *end)
{
	unsigned long n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		n++;
		p = nl + 1;
	}
	return n;
}

static int scan_input(struct scan *s, const char *buf, size_t len, struct fc_error *err)
{
	const char *p = buf, *end = buf + len;
	unsigned long lineno = 1;
	int rc;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		s->line = lineno;
		const char *l = p, *lend = le;
		if (lend > l && lend[-1] == '\r')
			lend--;
		if (l < lend && *l == '{') {
			if ((rc = flush_terse(s, err)) < 0)
				return rc;
			const char *next;
			if ((rc = json_document(s, buf, l, end, lineno, &next, err)) < 0)
				return rc;
			if (!next) {
				/* a broken report: its lines are not diagnostics;
				 * go on at the next line that may start one */
				while (nl && nl + 1 < end && nl[1] != '{') {
					nl = memchr(nl + 1, '\n', (size_t)(end - nl - 1));
					lineno++;
				}
			} else {
				lineno += count_lines(p, next);
				p = next;
				/* the rest of the closing line, if any, is text */
				const char *q = p;
				while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
					q++;
				if (q < end && *q == '\n') {
					p = q + 1;
					lineno++;
				}
				continue;
			}
		} else if (l < lend) {
			size_t n = (size_t)(lend - l);
			if (fc_terse_detect(l, n)) {
				rc =
				    terse_line(s, l, n, lineno, (unsigned long long)(l - buf), err);
				if (rc < 0)
					return rc;
			} else if (s->terse_open && *l == ';') {
				rc = terse_extra_line(s, l, n, lineno, err);
				if (rc < 0)
					return rc;
			} else {
				enum fc_diag_kind k = classify(s, l, n);
				if ((rc = add_diag(s, k, lineno, l, n, err)) < 0)
					return rc;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
		lineno++;
	}
	return flush_terse(s, err);
}

/*
 * The input held no JSON or terse report: read it as normal output.  Its
 * reports join the runs, the lines they take leave the diagnostics, and a
 * report that could not be read becomes a FC_DIAG_BROKEN one in its place.
 */
static int normal_pass(struct scan *s, const char *buf, size_t len, struct fc_error *err)
{
	struct fc_vec reports, spans, diags;
	fc_vec_init(&reports, sizeof(struct fc_normal_report), 0);
	fc_vec_init(&spans, sizeof(struct fc_line_span), 0);
	fc_vec_init(&diags, sizeof(struct fc_diag), 0);
	reports.budget = spans.budget = diags.budget = s->b.a;
	int rc = fc_normal_scan(s->b.a, buf, len, s->source, &reports, &spans, err);
	const struct fc_normal_report *r = reports.data;
	const struct fc_line_span *sp = spans.data;
	const struct fc_diag *old = s->diags.data;
	size_t k = 0, i = 0, n_span = 0;
	while (rc == 0 && (k < reports.n || i < s->diags.n)) {
		if (i < s->diags.n && (k == reports.n || old[i].line < r[k].run.line)) {
			while (n_span < spans.n && sp[n_span].last < old[i].line)
				n_span++;
			bool taken = n_span < spans.n && sp[n_span].first <= old[i].line;
			struct fc_diag *d = taken ? NULL : fc_vec_push(&diags);
			if (!taken && !d)
				rc = scan_nomem(s, old[i].line, err);
			else if (d)
				*d = old[i];
			i++;
			continue;
		}
		const struct fc_normal_report *rep = &r[k++];
		if (rep->status == FC_OK) {
			struct fc_run *run = fc_vec_push(&s->runs);
			if (!run) {
				rc = scan_nomem(s, rep->run.line, err);
				break;
			}
			*run = rep->run;
			s->last_broken = false;
			continue;
		}
		char msg[FC_ERROR_MESSAGE_MAX + 64];
		if (rep->status == FC_E_UNFINISHED) {
			s->truncated = true;
			snprintf(msg, sizeof(msg), "report from line %lu is cut short: %s",
				 rep->run.line, rep->error.message);
		} else {
			snprintf(msg, sizeof(msg),
				 "report from line %lu is not readable: line %lu, column %lu: %s",
				 rep->run.line, rep->error.line, rep->error.column,
				 rep->error.message);
		}
		s->broken = rep->error;
		s->last_broken = true;
		struct fc_diag *d = fc_vec_push(&diags);
		char *text = d ? fc_arena_strdup(s->b.a, msg) : NULL;
		if (!text) {
			rc = scan_nomem(s, rep->run.line, err);
			break;
		}
		d->kind = FC_DIAG_BROKEN;
		d->line = rep->run.line;
		d->text = text;
	}
	if (rc == 0) {
		fc_vec_release(&s->diags);
		s->diags = diags;
	} else {
		fc_vec_release(&diags);
	}
	fc_vec_release(&reports);
	fc_vec_release(&spans);
	return rc;
}

static void scan_release(struct scan *s)
{
	fc_vec_release(&s->b.pcts);
	fc_vec_release(&s->b.bins);
	fc_vec_release(&s->b.opts);
	fc_vec_release(&s->b.buckets);
	fc_vec_release(&s->b.prios);
	fc_vec_release(&s->b.jobs);
	fc_vec_release(&s->b.disks);
	fc_vec_release(&s->runs);
	fc_vec_release(&s->diags);
	fc_vec_release(&s->terse_jobs);
	fc_vec_release(&s->terse_disks);
}

int fc_output_read_buffer(const void *buf, size_t len, const char *source, struct fc_output **outp,
			  struct fc_error *err)
{
	*outp = NULL;
	if (!source)
		source = "(buffer)";
	if (!buf && len)
		return fc_err(err, FC_E_INVAL, source, 0, 0, "no buffer");
	if (len > FC_OUTPUT_MAX_BYTES)
		return fc_err(err, FC_E_LIMIT, source, 0, 0,
			      "input has %zu bytes, more than the limit of %llu", len,
			      FC_OUTPUT_MAX_BYTES);
	struct output_box *box = calloc(1, sizeof(*box));
	if (!box)
		return fc_err(err, FC_E_NOMEM, source, 0, 0, "out of memory");
	fc_arena_init(&box->arena, len / 2 + 4096);
	box->arena.limit = FC_OUTPUT_MEM_BASE_BYTES + FC_OUTPUT_MEM_PER_BYTE * len;
	struct fc_output *out = &box->pub;
	struct scan s;
	memset(&s, 0, sizeof(s));
	s.b.a = &box->arena;
	struct {
		struct fc_vec *v;
		size_t elem_size;
	} vecs[] = {
	    {&s.b.pcts, sizeof(struct seq_pct)},      {&s.b.bins, sizeof(struct seq_bin)},
	    {&s.b.opts, sizeof(struct fc_option)},    {&s.b.buckets, sizeof(struct fc_bucket)},
	    {&s.b.prios, sizeof(struct fc_prio)},     {&s.b.jobs, sizeof(struct fc_job)},
	    {&s.b.disks, sizeof(struct fc_disk)},     {&s.runs, sizeof(struct fc_run)},
	    {&s.diags, sizeof(struct fc_diag)},	      {&s.terse_jobs, sizeof(struct fc_job)},
	    {&s.terse_disks, sizeof(struct fc_disk)},
	};
	for (size_t i = 0; i < FC_ARRAY_SIZE(vecs); i++) {
		fc_vec_init(vecs[i].v, vecs[i].elem_size, 0);
		vecs[i].v->budget = &box->arena;
	}

	int rc;
	s.source = source;
	out->source = fc_arena_strdup(&box->arena, source);
	if (!out->source) {
		rc = scan_nomem(&s, 0, err);
		goto fail;
	}
	s.source = out->source;
	if ((rc = scan_input(&s, buf, len, err)) < 0)
		goto fail;
	if (s.runs.n == 0 && !s.truncated && !s.last_broken &&
	    (rc = normal_pass(&s, buf, len, err)) < 0)
		goto fail;

	out->runs = fc_arena_memdup(&box->arena, s.runs.data, s.runs.n * sizeof(struct fc_run));
	out->diags = fc_arena_memdup(&box->arena, s.diags.data, s.diags.n * sizeof(struct fc_diag));
	if (!out->runs || !out->diags) {
		rc = scan_nomem(&s, 0, err);
		goto fail;
	}
	out->n_runs = s.runs.n;
	out->n_diags = s.diags.n;
	out->signal = s.signal;

	if (s.truncated) {
		out->status = FC_E_UNFINISHED;
		rc = fc_err(err, FC_E_UNFINISHED, source, s.broken.line, 0,
			    "fio did not finish: its report is cut short (%s)", s.broken.message);
		goto partial;
	}
	if (s.last_broken) {
		if (err)
			*err = s.broken;
		rc = s.broken.code ? (int)s.broken.code : FC_E_SYNTAX;
		goto fail;
	}
	if (out->n_runs) {
		struct fc_run *runs = (struct fc_run *)out->runs;
		runs[out->n_runs - 1].final = true;
		out->final = &runs[out->n_runs - 1];
		out->status = FC_OK;
		scan_release(&s);
		fc_err_clear(err);
		*outp = out;
		return FC_OK;
	}
	if (s.fio_text) {
		out->status = FC_E_UNFINISHED;
		if (s.signal)
			rc = fc_err(err, FC_E_UNFINISHED, source, 0, 0,
				    "fio did not finish: it stopped on signal %d without a report",
				    s.signal);
		else
			rc = fc_err(err, FC_E_UNFINISHED, source, 0, 0,
				    "fio did not finish: its text holds no report");
		goto partial;
	}
	if (s.json_not_fio)
		rc = fc_err(err, FC_E_NOT_FIO, source, 0, 0,
			    "not fio output: JSON without \"jobs\" or \"client_stats\"");
	else if (len == 0)
		rc = fc_err(err, FC_E_NOT_FIO, source, 0, 0, "not fio output: the file is empty");
	else
		rc = fc_err(err, FC_E_NOT_FIO, source, 0, 0,
			    "not fio output: no JSON report, terse line, normal report or fio "
			    "message found");
fail:
	scan_release(&s);
	fc_output_free(out);
	return rc;
partial:
	scan_release(&s);
	*outp = out;
	return rc;
}

int fc_output_read_file(const char *path, struct fc_output **out, struct fc_error *err)
{
	char *buf;
	size_t len;
	*out = NULL;
	int rc = fc_read_file(path, FC_OUTPUT_MAX_BYTES, &buf, &len, err);
	if (rc < 0)
		return rc;
	rc = fc_output_read_buffer(buf, len, path, out, err);
	free(buf);
	return rc;
}
