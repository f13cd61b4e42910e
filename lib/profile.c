/* SPDX-License-Identifier: MIT */
/*
 * Profiles: a log reduced in one pass to values per interval and direction.
 * The definitions are in fiocamp.h.  Memory grows with the intervals the log
 * spans, never with its lines.
 *
 * clat_hist logs: an interval's merged buckets (1856 doubles at coarseness
 * 0) are kept only while rows may still add to it.  fio writes the rows of
 * a direction in time order, each window starting where the last ended, so
 * once a row ends past an interval no later row of its job block reaches
 * back: the interval is closed, its summary (count, mean, lowest and
 * highest bucket, the percentiles asked for) stays and the buckets are
 * reused.  A window reaching an interval already closed (a second job
 * block, time going backwards) or more open buckets than
 * FC_PROFILE_HIST_MAX_BYTES make the log be read again: once for everything
 * but the buckets, then once per chunk of intervals whose buckets fit
 * (H_SPAN, H_CHUNK).
 */
#include <math.h>
#include <string.h>

#include "log.h"
#include "profile.h"
#include "util.h"

#define EPOCH_MIN_MS	1000000000000ull /* 10^12 ms: Unix time after 2001-09-09 */
#define TIME_MAX_MS	(1ull << 53)	 /* exact in a double */
#define INTERVAL_MAX_MS (1ull << 40)
#define BATCH		256

static const double default_percentiles[] = {50.0, 90.0, 99.0, 99.9};

/* What one interval has gathered. */
struct acc {
	double sum;	/* per-I/O: I/Os, bytes or summed latency; windowed: value x overlap ms */
	double weight;	/* windowed: overlap ms summed over every block */
	double cov;	/* windowed: most overlap ms of one finished block */
	double cov_blk; /* windowed: overlap ms of the current block */
	double min, max;
	uint64_t samples;
	double *hist;	 /* clat_hist: merged counts while open, NULL until a row overlaps */
	double *summary; /* clat_hist, once closed: total, mean, lowest and highest
			    bucket, then the percentiles (in the profile's arena) */
};

/* One direction. */
struct series {
	struct acc *a; /* intervals k0 .. k0 + n - 1 */
	uint64_t k0;
	size_t n, cap;
	/* the current job block */
	bool started, absolute;
	uint64_t prev_t;
	bool blk_any;
	uint64_t blk_lo, blk_hi;
	/* a Unix-time block's first windowed line, until its window is known */
	bool pending;
	uint64_t pend_t;
	double pend_v, pend_vmax;
	uint64_t *pend_hist;
	/* per-I/O: the interval last used, [cur_lo, cur_lo + cur_len); cur_len
	 * 0 when there is none (a lookup then always fails) */
	uint64_t cur_lo, cur_len;
	struct acc *cur;
	/* clat_hist while streaming: intervals below closed_k are closed */
	uint64_t closed_k;
};

enum kind {
	K_IOPS,
	K_BW,
	K_LAT,
	K_HIST,
};

/* How clat_hist buckets are merged in a read of the log (see the top). */
enum hist_mode {
	H_STREAM, /* everything, closing intervals behind the rows */
	H_SPAN,	  /* everything but the buckets */
	H_CHUNK,  /* only the buckets of intervals chunk_lo .. chunk_hi - 1 */
};

#define RESTART 1 /* H_STREAM cannot go on: read again in chunks */

struct builder {
	const char *source;
	enum kind kind;
	bool kind_known;
	bool per_io;
	uint64_t max_t; /* per-I/O: the latest time so far, of any direction */
	uint64_t interval_ms;
	uint64_t window_ms;
	unsigned hist_k;
	double *bucket_ns;     /* hist: value of each merged bucket */
	unsigned *nonzero;     /* hist: the non-zero buckets of the row being spread */
	size_t hist_bytes;     /* bucket arrays allocated, in use or spare */
	size_t hist_max_bytes; /* FC_PROFILE_HIST_MAX_BYTES, less in tests */
	enum hist_mode hist_mode;
	uint64_t chunk_lo, chunk_hi;
	struct fc_vec spare;	/* double *: bucket arrays of closed intervals */
	struct fc_arena *arena; /* the profile's: summaries */
	size_t n_want;
	const double *want;
	uint64_t spread;    /* work spreading windows so far (FC_PROFILE_MAX_SPREAD) */
	unsigned long line; /* of the line being added, for messages */
	struct series s[3];
	struct fc_profile *p;
	struct fc_error *err;
};

struct profile_box {
	struct fc_profile pub;
	struct fc_arena arena;
	struct fc_profile_stats stats;
};

/* ---- intervals ----------------------------------------------------------- */

static void acc_init(struct acc *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].min = INFINITY;
		a[i].max = -INFINITY;
	}
}

/* Makes intervals k_lo .. k_hi part of the series. */
static int ensure(struct builder *b, struct series *se, uint64_t k_lo, uint64_t k_hi)
{
	uint64_t new_k0 = k_lo, new_end = k_hi + 1;
	if (se->n) {
		if (k_lo >= se->k0 && k_hi < se->k0 + se->n)
			return FC_OK;
		if (se->k0 < new_k0)
			new_k0 = se->k0;
		if (se->k0 + se->n > new_end)
			new_end = se->k0 + se->n;
	}
	uint64_t span = new_end - new_k0;
	if (span > FC_PROFILE_MAX_INTERVALS)
		return fc_err(b->err, FC_E_LIMIT, b->source, b->line, 0,
			      "the log spans %llu intervals of %llu ms, more than %u; choose a "
			      "longer interval",
			      (unsigned long long)span, (unsigned long long)b->interval_ms,
			      FC_PROFILE_MAX_INTERVALS);
	if (se->n && new_k0 < se->k0) {
		/* Room below as well, as realloc leaves room above: a log whose
		 * times go down costs a copy each time the series doubles, not
		 * one per line.  The empty intervals are trimmed at the end. */
		uint64_t room = se->k0 > se->n ? se->k0 - se->n : 0;
		if (room < new_k0)
			new_k0 = room;
		if (new_end - new_k0 > FC_PROFILE_MAX_INTERVALS)
			new_k0 = new_end - FC_PROFILE_MAX_INTERVALS;
		span = new_end - new_k0;
	}
	size_t front = se->n ? (size_t)(se->k0 - new_k0) : 0;
	if (span > se->cap || front) {
		size_t cap = se->cap ? se->cap * 2 : 16;
		if (cap < span)
			cap = (size_t)span;
		if (cap > FC_PROFILE_MAX_INTERVALS)
			cap = FC_PROFILE_MAX_INTERVALS;
		struct acc *a;
		if (front) {
			a = malloc(cap * sizeof(*a));
			if (a) {
				acc_init(a, front);
				memcpy(a + front, se->a, se->n * sizeof(*a));
				free(se->a);
			}
		} else {
			a = realloc(se->a, cap * sizeof(*a));
		}
		if (!a)
			return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
		se->a = a;
		se->cap = cap;
	}
	size_t old_end = front + se->n;
	acc_init(se->a + old_end, (size_t)span - old_end);
	se->k0 = new_k0;
	se->n = (size_t)span;
	se->cur_len = 0;
	return FC_OK;
}

static int hist_of(struct builder *b, struct acc *a)
{
	if (a->hist)
		return FC_OK;
	if (b->spare.n) {
		a->hist = ((double **)b->spare.data)[--b->spare.n];
		memset(a->hist, 0, b->hist_k * sizeof(double));
		return FC_OK;
	}
	size_t bytes = b->hist_k * sizeof(double);
	if (b->hist_bytes + bytes > b->hist_max_bytes) {
		if (b->hist_mode == H_STREAM)
			return RESTART;
		return fc_err(b->err, FC_E_LIMIT, b->source, b->line, 0,
			      "the histograms of this log need more than %zu bytes",
			      b->hist_max_bytes);
	}
	a->hist = calloc(b->hist_k, sizeof(double));
	if (!a->hist)
		return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
	b->hist_bytes += bytes;
	return FC_OK;
}

/* The merged buckets' count, mean, extremes and percentiles into out[]. */
static void hist_summary(const struct builder *b, const double *h, double *out)
{
	double total = 0;
	double weighted = 0;
	int lo = -1, hi = -1;
	for (unsigned j = 0; h && j < b->hist_k; j++) {
		if (h[j] <= 0)
			continue;
		total += h[j];
		weighted += h[j] * b->bucket_ns[j];
		if (lo < 0)
			lo = (int)j;
		hi = (int)j;
	}
	out[0] = total;
	if (lo < 0) {
		for (size_t i = 1; i < 4 + b->n_want; i++)
			out[i] = NAN;
		return;
	}
	out[1] = weighted / total;
	out[2] = b->bucket_ns[lo];
	out[3] = b->bucket_ns[hi];
	for (size_t i = 0; i < b->n_want; i++) {
		/* fio's rule (stat.c calc_clat_percentiles), in long double as there */
		long double target = (long double)b->want[i] / 100.0 * total;
		double cum = 0;
		out[4 + i] = b->bucket_ns[hi];
		for (int j = lo; j <= hi; j++) {
			if (h[j] <= 0)
				continue;
			cum += h[j];
			if (cum >= target) {
				out[4 + i] = b->bucket_ns[j];
				break;
			}
		}
	}
}

/* An interval no row adds to any more keeps its summary, not its buckets. */
static int close_interval(struct builder *b, struct acc *a)
{
	if (a->summary || !a->samples)
		return FC_OK;
	a->summary = fc_arena_alloc(b->arena, (4 + b->n_want) * sizeof(double));
	if (!a->summary)
		return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
	hist_summary(b, a->hist, a->summary);
	if (a->hist) {
		double **slot = fc_vec_push(&b->spare);
		if (!slot)
			return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
		*slot = a->hist;
		a->hist = NULL;
	}
	return FC_OK;
}

/* Closes the intervals that end at or before the series' last row. */
static int close_behind(struct builder *b, struct series *se)
{
	if (se->pending || !se->n)
		return FC_OK;
	uint64_t upto = se->prev_t / b->interval_ms; /* intervals below it are done */
	if (upto > se->k0 + se->n)
		upto = se->k0 + se->n;
	for (uint64_t k = se->closed_k > se->k0 ? se->closed_k : se->k0; k < upto; k++) {
		int rc = close_interval(b, &se->a[k - se->k0]);
		if (rc < 0)
			return rc;
	}
	if (upto > se->closed_k)
		se->closed_k = upto;
	return FC_OK;
}

/* H_CHUNK: a window's buckets, shared out over the chunk's intervals only. */
static int add_chunk(struct builder *b, struct series *se, uint64_t from, uint64_t to,
		     const uint64_t *row, unsigned nnz)
{
	uint64_t len_ms = b->interval_ms;
	uint64_t k_lo = from / len_ms, k_hi = (to - 1) / len_ms;
	if (k_lo < b->chunk_lo)
		k_lo = b->chunk_lo;
	if (k_hi >= b->chunk_hi)
		k_hi = b->chunk_hi - 1;
	double window = (double)(to - from);
	for (uint64_t k = k_lo; k <= k_hi && k_lo <= k_hi; k++) {
		uint64_t lo = k * len_ms, hi = lo + len_ms;
		if (lo < from)
			lo = from;
		if (hi > to)
			hi = to;
		struct acc *a = &se->a[k - se->k0];
		int rc = hist_of(b, a);
		if (rc < 0)
			return rc;
		double share = (double)(hi - lo) / window;
		for (unsigned i = 0; i < nnz; i++) {
			unsigned j = b->nonzero[i];
			a->hist[j] += (double)row[j] * share;
		}
	}
	return FC_OK;
}

/* Spreads the window [from, to) over the intervals it overlaps. */
static int add_window(struct builder *b, struct series *se, uint64_t from, uint64_t to, double v,
		      double vmax, const uint64_t *row)
{
	if (from >= to) {
		if (b->hist_mode != H_CHUNK)
			b->p->empty_windows++;
		return FC_OK;
	}
	uint64_t len_ms = b->interval_ms;
	uint64_t k_lo = from / len_ms, k_hi = (to - 1) / len_ms;
	if (row && b->hist_mode == H_STREAM && k_lo < se->closed_k)
		return RESTART; /* it reaches back into what was closed */
	int rc = ensure(b, se, k_lo, k_hi);
	if (rc < 0)
		return rc;
	unsigned nnz = 0;
	for (unsigned j = 0; row && j < b->hist_k; j++) {
		if (row[j])
			b->nonzero[nnz++] = j;
	}
	if (b->hist_mode == H_CHUNK)
		return row ? add_chunk(b, se, from, to, row, nnz) : FC_OK;
	if (b->hist_mode == H_SPAN)
		row = NULL;
	uint64_t work = (k_hi - k_lo + 1) * (1 + (uint64_t)nnz);
	if (work > FC_PROFILE_MAX_SPREAD - b->spread)
		return fc_err(b->err, FC_E_LIMIT, b->source, b->line, 0,
			      "the windows of this log overlap %llu ms intervals more than %llu "
			      "times in all (FC_PROFILE_MAX_SPREAD); choose a longer interval or "
			      "give window_ms",
			      (unsigned long long)len_ms, FC_PROFILE_MAX_SPREAD);
	b->spread += work;
	double window = (double)(to - from);
	for (uint64_t k = k_lo; k <= k_hi; k++) {
		uint64_t lo = k * len_ms, hi = lo + len_ms;
		if (lo < from)
			lo = from;
		if (hi > to)
			hi = to;
		double ov = (double)(hi - lo);
		struct acc *a = &se->a[k - se->k0];
		a->sum += v * ov;
		a->weight += ov;
		a->cov_blk += ov;
		a->samples++;
		a->min = fmin(a->min, v);
		a->max = fmax(a->max, vmax);
		if (row) {
			rc = hist_of(b, a);
			if (rc != 0)
				return rc;
			double *h = a->hist;
			double share = ov / window;
			for (unsigned i = 0; i < nnz; i++) {
				unsigned j = b->nonzero[i];
				h[j] += (double)row[j] * share;
			}
		}
	}
	if (!se->blk_any || k_lo < se->blk_lo)
		se->blk_lo = k_lo;
	if (!se->blk_any || k_hi > se->blk_hi)
		se->blk_hi = k_hi;
	se->blk_any = true;
	return FC_OK;
}

/* The end of a job block: its coverage joins the others'. */
static void fold_block(struct series *se)
{
	if (!se->blk_any)
		return;
	for (uint64_t k = se->blk_lo; k <= se->blk_hi; k++) {
		struct acc *a = &se->a[k - se->k0];
		if (a->cov_blk > a->cov)
			a->cov = a->cov_blk;
		a->cov_blk = 0;
	}
	se->blk_any = false;
}

/* A Unix-time block's first line whose window length never showed. */
static int flush_pending(struct builder *b, struct series *se)
{
	if (!se->pending)
		return FC_OK;
	se->pending = false;
	uint64_t len = b->interval_ms;
	uint64_t from = se->pend_t > len ? se->pend_t - len : 0;
	return add_window(b, se, from, se->pend_t, se->pend_v, se->pend_vmax,
			  b->kind == K_HIST ? se->pend_hist : NULL);
}

/* ---- lines --------------------------------------------------------------- */

static int windowed(struct builder *b, int ddir, uint64_t t, double v, double vmax,
		    const uint64_t *row)
{
	struct series *se = &b->s[ddir];
	int rc;
	if (!se->started || t < se->prev_t) {
		if (se->started) {
			rc = flush_pending(b, se);
			if (rc != 0)
				return rc;
			fold_block(se);
			b->p->time_went_backwards = true;
		}
		se->started = true;
		se->prev_t = t;
		se->absolute = t >= EPOCH_MIN_MS;
		b->p->time_absolute |= se->absolute;
		if (b->window_ms)
			return add_window(b, se, t > b->window_ms ? t - b->window_ms : 0, t, v,
					  vmax, row);
		if (!se->absolute)
			return add_window(b, se, 0, t, v, vmax, row); /* fio's windows start at 0 */
		se->pending = true;
		se->pend_t = t;
		se->pend_v = v;
		se->pend_vmax = vmax;
		if (row) {
			if (!se->pend_hist) {
				se->pend_hist = malloc(b->hist_k * sizeof(*se->pend_hist));
				if (!se->pend_hist)
					return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0,
						      "out of memory");
			}
			memcpy(se->pend_hist, row, b->hist_k * sizeof(*row));
		}
		return FC_OK;
	}
	uint64_t from = se->prev_t;
	if (se->pending && t > from) {
		uint64_t len = t - from;
		se->pending = false;
		rc = add_window(b, se, from > len ? from - len : 0, from, se->pend_v, se->pend_vmax,
				row ? se->pend_hist : NULL);
		if (rc != 0)
			return rc;
	}
	if (b->window_ms && t - from > b->window_ms)
		from = t - b->window_ms;
	se->prev_t = t;
	return add_window(b, se, from, t, v, vmax, row);
}

/* The interval of a per-I/O line at time t (slow path: a new interval). */
static int locate(struct builder *b, struct series *se, uint64_t t, unsigned long line)
{
	uint64_t k = t / b->interval_ms;
	b->line = line;
	b->p->time_absolute |= t >= EPOCH_MIN_MS;
	int rc = ensure(b, se, k, k);
	if (rc < 0)
		return rc;
	se->cur_lo = k * b->interval_ms;
	/* the window ends at TIME_MAX_MS at the latest, so that a time beyond
	 * it is never inside: add_per_io() checks it outside the window */
	se->cur_len = b->interval_ms;
	if (se->cur_len > TIME_MAX_MS + 1 - se->cur_lo)
		se->cur_len = TIME_MAX_MS + 1 - se->cur_lo;
	se->cur = &se->a[k - se->k0];
	return FC_OK;
}

static int kind_error(struct builder *b, uint64_t bs, unsigned long line)
{
	return fc_err(b->err, FC_E_FORMAT, b->source, line, 0,
		      "bs %llu makes this a %s line, but the log began with %s lines; a log "
		      "holds one kind",
		      (unsigned long long)bs, bs ? "per-I/O" : "windowed",
		      b->per_io ? "per-I/O" : "windowed");
}

static int time_error(struct builder *b, unsigned long line, uint64_t t)
{
	return fc_err(b->err, FC_E_FORMAT, b->source, line, 0,
		      "time %llu ms is beyond 2^53 ms, no clock fio uses", (unsigned long long)t);
}

/* Windowed bw/iops/lat lines. */
static int add_windowed(struct builder *b, const struct fc_log_point *s, size_t n)
{
	const bool has_bs = b->p->layout.has_bs;
	const bool has_value1 = b->p->layout.has_value1;
	for (size_t i = 0; i < n; i++, s++) {
		if (UNLIKELY(has_bs && s->bs != 0))
			return kind_error(b, s->bs, s->line);
		if (UNLIKELY(s->time_ms > TIME_MAX_MS))
			return time_error(b, s->line, s->time_ms);
		b->line = s->line;
		double v = (double)s->value;
		double vmax = has_value1 ? (double)s->value1 : v;
		int rc = windowed(b, s->ddir, s->time_ms, v, vmax, NULL);
		if (rc < 0)
			return rc;
	}
	return FC_OK;
}

/*
 * Per-I/O lines of one kind.  Inlined per kind so that each loop is tight:
 * a large per-I/O log is where the time goes.  The iops counts of the
 * intervals in use are kept in one register, 21 bits per direction (an
 * increment in memory per line would wait for the one before), and added
 * when a direction moves to another interval and at the end of the batch.
 */
#define COUNT_BITS 21

/* Direction d's count in a packed word. */
static inline uint64_t count_of(uint64_t packed, int d)
{
	return (packed >> (COUNT_BITS * d)) & ((1u << COUNT_BITS) - 1);
}

/* Adds the counts packed in *packed to the directions' current intervals. */
static void add_counts(struct builder *b, uint64_t *packed)
{
	for (int d = 0; d < 3; d++) {
		uint64_t c = count_of(*packed, d);
		if (c)
			b->s[d].cur->samples += c;
	}
	*packed = 0;
}

/*
 * One per-I/O line of a kind; *packed: the iops counts (see above), *max_t:
 * the latest time so far.  Only a time before that can be before its
 * direction's last one, so the common case stores prev_t and never waits
 * for it to be read back.
 */
static inline __attribute__((always_inline)) int
add_per_io(struct builder *b, bool has_bs, uint64_t t, unsigned ddir, uint64_t bs, int64_t value,
	   unsigned long line, enum kind kind, uint64_t *packed, uint64_t *max_t)
{
	if (UNLIKELY(has_bs && bs == 0))
		return kind_error(b, bs, line);
	struct series *se = &b->s[ddir];
	if (UNLIKELY(t < *max_t)) {
		if (t < se->prev_t)
			b->p->time_went_backwards = true;
	} else {
		*max_t = t;
	}
	se->prev_t = t;
	if (UNLIKELY(t - se->cur_lo >= se->cur_len)) {
		if (t > TIME_MAX_MS)
			return time_error(b, line, t);
		if (kind == K_IOPS)
			add_counts(b, packed);
		int rc = locate(b, se, t, line);
		if (rc < 0)
			return rc;
	}
	if (kind == K_IOPS) {
		*packed += 1ull << (COUNT_BITS * ddir);
		return FC_OK;
	}
	struct acc *a = se->cur;
	a->samples++;
	if (kind == K_BW) {
		a->sum += (double)bs;
	} else {
		double v = (double)value;
		a->sum += v;
		a->min = fmin(a->min, v);
		a->max = fmax(a->max, v);
	}
	return FC_OK;
}

static inline __attribute__((always_inline)) int
add_per_io_kind(struct builder *b, const struct fc_log_point *s, size_t n, enum kind kind)
{
	_Static_assert(BATCH < (1u << COUNT_BITS) && FC_LOG_RUN_MAX < (1u << COUNT_BITS),
		       "the counts of a batch or a run fit their bits");
	const bool has_bs = b->p->layout.has_bs;
	uint64_t packed = 0, max_t = b->max_t;
	int rc = FC_OK;
	for (size_t i = 0; i < n && rc == FC_OK; i++, s++)
		rc = add_per_io(b, has_bs, s->time_ms, (unsigned)s->ddir, s->bs, s->value, s->line,
				kind, &packed, &max_t);
	if (kind == K_IOPS)
		add_counts(b, &packed);
	b->max_t = max_t;
	return rc;
}

/*
 * The lines of a run from `line` on that have the time of the first (the
 * word time caches): at most `max`, stopping before a bs of 0 (an error
 * add_per_io() reports).  Their counts per direction go to *packed as in
 * add_per_io(), and for K_BW their bytes to bytes[].  bs's cache is read
 * and kept here as fc_log_field_value() would, in locals: through bs the
 * loop took 6 % longer.
 */
static inline __attribute__((always_inline)) size_t
same_time(const char *line, size_t max, unsigned len, unsigned ddir_at, struct fc_log_field *bs,
	  const struct fc_log_field *time, enum kind kind, uint64_t *packed, uint64_t bytes[3])
{
	static const uint64_t one[3] = {1, 1ull << COUNT_BITS, 1ull << (2 * COUNT_BITS)};
	/* in locals: the loop keeps them in registers */
	const ptrdiff_t t_at = (ptrdiff_t)time->end - 8, b_at = (ptrdiff_t)bs->end - 8;
	const uint64_t t_mask = time->mask, time_word = time->last_word, b_mask = bs->mask;
	uint64_t b_word = bs->last_word, b_value = bs->last_value, counts = *packed;
	size_t j = 0;
	do {
		unsigned ddir = (unsigned char)line[ddir_at] - (unsigned)'0';
		uint64_t w = fc_log_word(line + b_at) & b_mask;
		if (UNLIKELY(w != b_word)) {
			uint64_t v = fc_log_digits8(w);
			if (UNLIKELY(v == 0))
				break;
			b_word = w;
			b_value = v;
		}
		counts += one[ddir];
		if (kind == K_BW)
			bytes[ddir] += b_value;
		j++;
		line += len;
	} while (j < max && (fc_log_word(line + t_at) & t_mask) == time_word);
	bs->last_word = b_word;
	bs->last_value = b_value;
	*packed = counts;
	return j;
}

/*
 * Adds lines of time t, counted by same_time(), to their directions'
 * current intervals; false, changing nothing, when one of them is not
 * there (add_per_io() then moves it, line by line) or when a sum of bytes
 * reaches 2^53 (where add_per_io()'s sums, line by line, round).
 */
static inline __attribute__((always_inline)) bool add_same_time(struct builder *b, uint64_t t,
								uint64_t packed,
								const uint64_t bytes[3],
								enum kind kind)
{
	for (int d = 0; d < 3; d++) {
		const struct series *se = &b->s[d];
		if (!count_of(packed, d))
			continue;
		if (UNLIKELY(t - se->cur_lo >= se->cur_len))
			return false;
		/* below 2^53 every sum on the way is exact, in any order */
		if (kind == K_BW && UNLIKELY(se->cur->sum + (double)bytes[d] >= 0x1p53))
			return false;
	}
	for (int d = 0; d < 3; d++) {
		uint64_t c = count_of(packed, d);
		if (!c)
			continue;
		struct series *se = &b->s[d];
		if (t < se->prev_t)
			b->p->time_went_backwards = true;
		se->prev_t = t;
		se->cur->samples += c;
		if (kind == K_BW)
			se->cur->sum += (double)bytes[d];
	}
	if (t > b->max_t)
		b->max_t = t;
	return true;
}

/*
 * A run of per-I/O lines (see log.h), read where they are.  For iops and bw
 * the lines of one time (fio writes milliseconds; a busy device does many
 * I/Os in one) are counted together, and the interval, order and time
 * checks of add_per_io() made once for them; where one fails, or for lat,
 * each line goes through add_per_io().
 */
static inline __attribute__((always_inline)) int
add_run_kind(struct builder *b, struct fc_log_run *run, enum kind kind)
{
	int rc = FC_OK;
	/* in locals, where the compiler can keep them in registers */
	struct fc_log_field time = run->time, value = run->value, bs = run->bs;
	const unsigned len = run->len, ddir_at = run->ddir_at;
	const char *line = run->text;
	const size_t n = run->n;
	size_t i = 0;
	while (i < n && rc == FC_OK) {
		while (kind != K_LAT && i < n) {
			uint64_t t = fc_log_field_value(&time, line);
			uint64_t packed = 0, bytes[3] = {0, 0, 0};
			size_t j =
			    same_time(line, n - i, len, ddir_at, &bs, &time, kind, &packed, bytes);
			if (j == 0 || !add_same_time(b, t, packed, bytes, kind))
				break;
			i += j;
			line += j * len;
		}
		/* line by line, for iops and bw until the next time */
		uint64_t packed = 0, max_t = b->max_t;
		while (i < n && rc == FC_OK) {
			uint64_t t = fc_log_field_value(&time, line);
			unsigned ddir = (unsigned char)line[ddir_at] - (unsigned)'0';
			uint64_t size = fc_log_field_value(&bs, line);
			int64_t v = kind == K_LAT ? (int64_t)fc_log_field_value(&value, line) : 0;
			rc = add_per_io(b, true, t, ddir, size, v, run->first_line + i, kind,
					&packed, &max_t);
			i++;
			line += len;
			if (kind != K_LAT && i < n &&
			    (fc_log_word(line + time.end - 8) & time.mask) != time.last_word)
				break;
		}
		if (kind == K_IOPS)
			add_counts(b, &packed);
		b->max_t = max_t;
	}
	return rc;
}

static int add_run(struct builder *b, struct fc_log_run *run)
{
	switch (b->kind) {
	case K_IOPS:
		return add_run_kind(b, run, K_IOPS);
	case K_BW:
		return add_run_kind(b, run, K_BW);
	default:
		return add_run_kind(b, run, K_LAT);
	}
}

static int add_samples(struct builder *b, const struct fc_log_point *s, size_t n)
{
	if (UNLIKELY(!b->kind_known)) {
		b->kind_known = true;
		b->per_io = b->p->layout.has_bs ? s->bs != 0 : b->kind == K_LAT;
		b->p->per_io = b->per_io;
	}
	if (!b->per_io)
		return add_windowed(b, s, n);
	switch (b->kind) {
	case K_IOPS:
		return add_per_io_kind(b, s, n, K_IOPS);
	case K_BW:
		return add_per_io_kind(b, s, n, K_BW);
	default:
		return add_per_io_kind(b, s, n, K_LAT);
	}
}

/* ---- results ------------------------------------------------------------- */

static int build_points(struct builder *b, struct profile_box *box)
{
	struct fc_profile *p = &box->pub;
	double *nan_pcts = NULL;
	if (b->kind == K_HIST) {
		/* the percentiles of every gap */
		nan_pcts = fc_arena_alloc(&box->arena, (p->n_percentiles + 1) * sizeof(double));
		if (!nan_pcts)
			return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
		for (size_t j = 0; j < p->n_percentiles; j++)
			nan_pcts[j] = NAN;
	}
	double lat_scale = p->layout.value_us && b->kind == K_LAT ? 1000.0 : 1.0;
	double len_ms = (double)b->interval_ms;
	for (int d = 0; d < 3; d++) {
		struct series *se = &b->s[d];
		size_t first = SIZE_MAX, last = 0;
		for (size_t i = 0; i < se->n; i++) {
			if (se->a[i].samples) {
				if (first == SIZE_MAX)
					first = i;
				last = i;
			}
		}
		if (first == SIZE_MAX)
			continue;
		size_t n = last - first + 1;
		struct fc_profile_point *pts = fc_arena_calloc(&box->arena, n, sizeof(*pts));
		if (!pts)
			return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
		for (size_t i = 0; i < n; i++) {
			struct acc *a = &se->a[first + i];
			struct fc_profile_point *pt = &pts[i];
			pt->start_ms = (se->k0 + first + i) * b->interval_ms;
			pt->samples = a->samples;
			pt->gap = a->samples == 0;
			pt->covered_ms = b->per_io ? len_ms : a->cov;
			pt->value = pt->min = pt->max = pt->total = NAN;
			if (pt->gap) {
				pt->covered_ms = 0;
				if (b->kind == K_HIST)
					pt->percentiles_ns = nan_pcts;
				continue;
			}
			switch (b->kind) {
			case K_IOPS:
			case K_BW: {
				double unit = b->kind == K_BW && b->per_io ? 1024.0 : 1.0;
				if (b->per_io) {
					pt->total =
					    (b->kind == K_IOPS ? (double)a->samples : a->sum) /
					    unit;
					pt->value = pt->total * 1000.0 / len_ms;
				} else {
					pt->total = a->sum / 1000.0;
					pt->value = a->cov > 0 ? a->sum / a->cov : NAN;
					pt->min = a->min;
					pt->max = a->max;
				}
				break;
			}
			case K_LAT:
				pt->value =
				    (b->per_io ? a->sum / (double)a->samples : a->sum / a->weight) *
				    lat_scale;
				pt->min = a->min * lat_scale;
				pt->max = a->max * lat_scale;
				break;
			case K_HIST: {
				int rc = close_interval(b, a);
				if (rc < 0)
					return rc;
				pt->total = a->summary[0];
				pt->value = a->summary[1];
				pt->min = a->summary[2];
				pt->max = a->summary[3];
				pt->percentiles_ns = a->summary + 4;
				break;
			}
			}
		}
		p->dir[d].n = n;
		p->dir[d].points = pts;
	}
	return FC_OK;
}

/* ---- driver -------------------------------------------------------------- */

static int resolve_type(struct builder *b, struct fc_log_reader *r, const struct fc_profile_opts *o,
			enum fc_log_type *type)
{
	const struct fc_log_layout *l = fc_log_get_layout(r);
	enum fc_log_type t = o->type != FC_LOG_UNKNOWN ? o->type : fc_log_get_type(r);
	if (t == FC_LOG_UNKNOWN && l->hist)
		t = FC_LOG_CLAT_HIST;
	if (t == FC_LOG_UNKNOWN && l->columns == 0) {
		*type = t; /* an empty log of any type: an empty profile */
		b->kind = K_IOPS;
		return FC_OK;
	}
	if (t == FC_LOG_UNKNOWN)
		return fc_err(b->err, FC_E_INVAL, b->source, 0, 0,
			      "the name does not say which log this is; set fc_profile_opts.type");
	if ((unsigned)t > FC_LOG_CLAT_HIST)
		return fc_err(b->err, FC_E_INVAL, b->source, 0, 0, "unknown log type %d", (int)t);
	if (l->columns && (t == FC_LOG_CLAT_HIST) != l->hist)
		return fc_err(b->err, FC_E_FORMAT, b->source, 0, 0,
			      "a %s profile was asked for, but the lines are %s lines",
			      fc_log_type_name(t), l->hist ? "clat_hist" : "bw/iops/lat");
	*type = t;
	switch (t) {
	case FC_LOG_IOPS:
		b->kind = K_IOPS;
		break;
	case FC_LOG_BW:
		b->kind = K_BW;
		break;
	case FC_LOG_CLAT_HIST:
		b->kind = K_HIST;
		break;
	default:
		b->kind = K_LAT;
	}
	return FC_OK;
}

static int setup_hist(struct builder *b, const struct fc_log_layout *l)
{
	b->hist_k = l->hist_buckets;
	b->bucket_ns = malloc(b->hist_k * sizeof(double));
	b->nonzero = malloc(b->hist_k * sizeof(unsigned));
	if (!b->bucket_ns || !b->nonzero)
		return fc_err(b->err, FC_E_NOMEM, b->source, 0, 0, "out of memory");
	unsigned stride = l->hist_groups * 64 / b->hist_k;
	double scale = l->hist_groups == 19 ? 1000.0 : 1.0; /* fio 2.x counted us */
	for (unsigned j = 0; j < b->hist_k; j++) {
		double first = fc_hist_bucket_value(j * stride, l->hist_groups, 0);
		double last = fc_hist_bucket_value(j * stride + stride - 1, l->hist_groups, 0);
		b->bucket_ns[j] = (first + last) / 2 * scale;
	}
	return FC_OK;
}

static int read_all(struct builder *b, struct fc_log_reader *r)
{
	int rc;
	if (b->kind == K_HIST) {
		struct fc_hist_row row;
		b->per_io = false;
		while ((rc = fc_log_next_hist(r, &row, b->err)) > 0) {
			if (b->hist_mode != H_CHUNK)
				b->p->lines++;
			b->line = row.line;
			if (row.time_ms > TIME_MAX_MS)
				return time_error(b, row.line, row.time_ms);
			rc = windowed(b, row.ddir, row.time_ms, 0, 0, row.buckets);
			if (rc == 0 && b->hist_mode == H_STREAM)
				rc = close_behind(b, &b->s[row.ddir]);
			if (rc != 0)
				return rc;
		}
		return rc;
	}
	struct fc_log_point batch[BATCH];
	for (;;) {
		/* most of a large per-I/O log comes in runs, read in place */
		struct fc_log_run run;
		if (b->kind_known && b->per_io && fc_log_read_run(r, &run) > 0) {
			b->p->lines += run.n;
			rc = add_run(b, &run);
			if (rc < 0)
				return rc;
			continue;
		}
		long n = fc_log_read_points(r, batch, BATCH, b->err);
		if (n <= 0)
			return (int)n;
		b->p->lines += (uint64_t)n;
		rc = add_samples(b, batch, (size_t)n);
		if (rc < 0)
			return rc;
	}
}

/* What a read of the log leaves to finish: pending windows, the last block. */
static int read_pass(struct builder *b, struct fc_log_reader *r)
{
	int rc = read_all(b, r);
	for (int d = 0; d < 3 && rc == 0; d++) {
		rc = flush_pending(b, &b->s[d]);
		fold_block(&b->s[d]);
	}
	return rc;
}

static void series_release(struct builder *b)
{
	for (int d = 0; d < 3; d++) {
		struct series *se = &b->s[d];
		for (size_t i = 0; i < se->n; i++)
			free(se->a[i].hist);
		free(se->a);
		free(se->pend_hist);
		memset(se, 0, sizeof(*se));
	}
	double **spare = b->spare.data;
	for (size_t i = 0; i < b->spare.n; i++)
		free(spare[i]);
	fc_vec_clear(&b->spare);
	b->hist_bytes = 0;
}

static void builder_release(struct builder *b)
{
	series_release(b);
	fc_vec_release(&b->spare);
	free(b->bucket_ns);
	free(b->nonzero);
}

/* Where the log comes from, so that it can be read again. */
struct input {
	const char *path; /* NULL: the buffer */
	const void *buf;
	size_t len;
	const char *source;
	const struct fc_log_layout *layout;
};

static int open_input(const struct input *in, struct fc_log_reader **r, struct fc_error *err)
{
	if (in->path)
		return fc_log_open(in->path, in->layout, r, err);
	return fc_log_open_buffer(in->buf, in->len, in->source, in->layout, r, err);
}

static int read_again(struct builder *b, const struct input *in, struct profile_box *box)
{
	struct fc_log_reader *r;
	int rc = open_input(in, &r, b->err);
	if (rc < 0)
		return rc;
	/* the reads after the first know the intervals: back to the start */
	for (int d = 0; d < 3; d++) {
		struct series *se = &b->s[d];
		se->started = se->absolute = se->pending = se->blk_any = false;
		se->cur_len = 0;
		se->prev_t = 0;
	}
	rc = read_pass(b, r);
	fc_log_close(r);
	box->stats.reads++;
	return rc;
}

/*
 * The first read of a clat_hist log could not stream its buckets (a second
 * job block, or windows spanning more open intervals than
 * FC_PROFILE_HIST_MAX_BYTES holds): start over, read everything but the
 * buckets, then the buckets of as many intervals at a time as fit.
 */
static int read_in_chunks(struct builder *b, const struct input *in, struct profile_box *box)
{
	struct fc_profile *p = &box->pub;
	series_release(b);
	p->lines = p->empty_windows = 0;
	p->time_went_backwards = p->time_absolute = false;
	b->spread = 0;
	b->hist_mode = H_SPAN;
	int rc = read_again(b, in, box); /* RESTART comes from H_STREAM only */
	if (rc < 0)
		return rc;
	uint64_t k_min = UINT64_MAX, k_end = 0;
	unsigned dirs = 0;
	for (int d = 0; d < 3; d++) {
		const struct series *se = &b->s[d];
		if (!se->n)
			continue;
		dirs++;
		if (se->k0 < k_min)
			k_min = se->k0;
		if (se->k0 + se->n > k_end)
			k_end = se->k0 + se->n;
	}
	uint64_t chunk = b->hist_max_bytes / (b->hist_k * sizeof(double)) / (dirs ? dirs : 1);
	if (chunk == 0)
		chunk = 1;
	b->hist_mode = H_CHUNK;
	for (uint64_t lo = k_min; lo < k_end; lo += chunk) {
		b->chunk_lo = lo;
		b->chunk_hi = lo + chunk;
		rc = read_again(b, in, box);
		if (rc < 0)
			return rc;
		for (int d = 0; d < 3; d++) {
			struct series *se = &b->s[d];
			for (uint64_t k = lo; k < b->chunk_hi && k < se->k0 + se->n; k++) {
				if (k < se->k0)
					continue;
				rc = close_interval(b, &se->a[k - se->k0]);
				if (rc < 0)
					return rc;
			}
		}
	}
	return FC_OK;
}

static int profile_run(struct fc_log_reader *r, const struct input *in,
		       const struct fc_profile_opts *opts, size_t hist_max_bytes,
		       struct fc_profile **out, struct fc_error *err)
{
	static const struct fc_profile_opts defaults = {0};
	const struct fc_profile_opts *o = opts ? opts : &defaults;
	struct builder b = {0};
	b.source = fc_log_source(r);
	b.err = err;
	b.hist_max_bytes = hist_max_bytes;
	b.interval_ms = o->interval_ms ? o->interval_ms : 1000;
	b.window_ms = o->window_ms;
	if (b.interval_ms > INTERVAL_MAX_MS || b.window_ms > INTERVAL_MAX_MS)
		return fc_err(err, FC_E_INVAL, b.source, 0, 0,
			      "interval_ms and window_ms must be at most 2^40");
	const double *want = o->percentiles ? o->percentiles : default_percentiles;
	size_t n_want = o->percentiles ? o->n_percentiles : FC_ARRAY_SIZE(default_percentiles);
	if (n_want > FC_PROFILE_MAX_PERCENTILES)
		return fc_err(err, FC_E_INVAL, b.source, 0, 0, "more than %d percentiles",
			      FC_PROFILE_MAX_PERCENTILES);
	for (size_t i = 0; i < n_want; i++) {
		if (!(want[i] >= 0 && want[i] <= 100))
			return fc_err(err, FC_E_INVAL, b.source, 0, 0,
				      "percentile %g is not in [0, 100]", want[i]);
	}
	enum fc_log_type type = FC_LOG_UNKNOWN;
	int rc = resolve_type(&b, r, o, &type);
	if (rc < 0)
		return rc;

	struct profile_box *box = calloc(1, sizeof(*box));
	if (!box)
		return fc_err(err, FC_E_NOMEM, b.source, 0, 0, "out of memory");
	fc_arena_init(&box->arena, 4096);
	struct fc_profile *p = &box->pub;
	b.p = p;
	b.arena = &box->arena;
	b.want = want;
	b.n_want = n_want;
	fc_vec_init(&b.spare, sizeof(double *), 0);
	box->stats.reads = 1;
	p->type = type;
	p->interval_ms = b.interval_ms;
	p->layout = *fc_log_get_layout(r);
	if (b.kind == K_HIST) {
		p->n_percentiles = n_want;
		p->percentiles = fc_arena_memdup(&box->arena, want, n_want * sizeof(*want));
		if (!p->percentiles) {
			rc = fc_err(err, FC_E_NOMEM, b.source, 0, 0, "out of memory");
			goto fail;
		}
		if (p->layout.hist) {
			rc = setup_hist(&b, &p->layout);
			if (rc < 0)
				goto fail;
		}
	}
	rc = read_pass(&b, r);
	if (rc == RESTART)
		rc = read_in_chunks(&b, in, box);
	if (rc < 0)
		goto fail;
	/* the layout may have changed on the way (5-column prio to offset) */
	p->layout = *fc_log_get_layout(r);
	for (int d = 0; d < 3; d++)
		box->stats.series_bytes += b.s[d].cap * sizeof(struct acc);
	box->stats.hist_peak_bytes = b.hist_bytes;
	rc = build_points(&b, box);
	if (rc < 0)
		goto fail;
	box->stats.result_bytes = box->arena.charged;
	builder_release(&b);
	*out = p;
	return FC_OK;
fail:
	builder_release(&b);
	fc_profile_free(p);
	return rc;
}

int fc_profile_read_file(const char *path, const struct fc_profile_opts *opts,
			 struct fc_profile **out, struct fc_error *err)
{
	if (!out)
		return fc_err(err, FC_E_INVAL, path, 0, 0, "no place for the result given");
	*out = NULL;
	struct input in = {path, NULL, 0, path, opts ? opts->layout : NULL};
	struct fc_log_reader *r;
	int rc = open_input(&in, &r, err);
	if (rc < 0)
		return rc;
	rc = profile_run(r, &in, opts, FC_PROFILE_HIST_MAX_BYTES, out, err);
	fc_log_close(r);
	return rc;
}

int fc_profile_read_buffer(const void *buf, size_t len, const char *source,
			   const struct fc_profile_opts *opts, struct fc_profile **out,
			   struct fc_error *err)
{
	return fc_profile_read_buffer_capped(buf, len, source, opts, FC_PROFILE_HIST_MAX_BYTES, out,
					     err);
}

int fc_profile_read_buffer_capped(const void *buf, size_t len, const char *source,
				  const struct fc_profile_opts *opts, size_t hist_max_bytes,
				  struct fc_profile **out, struct fc_error *err)
{
	if (!out)
		return fc_err(err, FC_E_INVAL, source, 0, 0, "no place for the result given");
	*out = NULL;
	struct input in = {NULL, buf, len, source, opts ? opts->layout : NULL};
	struct fc_log_reader *r;
	int rc = open_input(&in, &r, err);
	if (rc < 0)
		return rc;
	rc = profile_run(r, &in, opts, hist_max_bytes, out, err);
	fc_log_close(r);
	return rc;
}

void fc_profile_get_stats(const struct fc_profile *p, struct fc_profile_stats *st)
{
	*st = ((const struct profile_box *)p)->stats;
}

void fc_profile_free(struct fc_profile *p)
{
	if (!p)
		return;
	struct profile_box *box = (struct profile_box *)p;
	fc_arena_release(&box->arena);
	free(box);
}
