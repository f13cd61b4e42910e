/* SPDX-License-Identifier: MIT */
/*
 * fio's normal output (--output-format=normal, the default), fio 2.0 to
 * 3.42, read into the same model as JSON and terse.
 *
 * What fio prints is in stat.c (show_thread_status_normal, show_ddir_status,
 * display_lat, show_clat_percentiles, show_lat, show_group_stats), diskutil.c
 * before 3.18 (print_disk_util), init.c (the job banner) and lib/num2str.c.
 * A report is
 *
 *   jobs     one block per reported thread_stat, from a header line
 *            "NAME: (groupid=G, jobs=M): err=E: pid=P: DATE" to the next
 *            line that is not indented (and has not the shape of a job's
 *            line: a report pasted where leading blanks were lost)
 *   groups   "Run status group G (all jobs):" and one line per direction,
 *            for every group 0..max
 *   disks    "Disk stats (read/write):" and one line per disk (optional)
 *
 * fio prints a whole report at once, so its lines are not mixed with other
 * text; a fio client prints each server's jobs, groups and disks as they
 * come, then "All clients".  The shapes that changed:
 *
 *   2.0-2.16  "read : io=93040KB, bw=46496KB/s, iops=11624, runt=  2001msec",
 *             K/M of bytes are 1024, "bw (KB  /s):", "lat (usec) : 2=...",
 *             "issued    : total=r=1/w=2/d=3, short=..., drop=...",
 *             "   READ: io=..., aggrb=..., minb=..., maxb=..., mint=..., maxt=..."
 *   2.17-2.21 "read: IOPS=11.6k, BW=45.4MiB/s (47.6MB/s)(90.9MiB/2001msec)",
 *             prefixes with an i are 1024, without one 1000;
 *             "issued rwt: total=1,2,3, short=..., dropped=...";
 *             "   READ: bw=... (...), ...-... (...-...), io=... (...), run=...-...msec"
 *   2.99      latencies may be nsec; "iops        :" lines; samples=N
 *   3.0       "  lat (usec)   : 250=0.06%" (was "    lat (usec) : ")
 *   3.1       "slat/clat/lat percentiles" (was always "clat percentiles")
 *   3.4       "issued rwts: total=1,2,3,4 short=... dropped=...", the
 *             fsync/fdatasync/sync_file_range block
 *   3.9       "; Cachehit=12.34%" after the direction line
 *   3.18      "high prio_clat"/"low prio_clat" lines (3.18-3.29)
 *   3.27      "mixed:"/"MIXED:" after the directions (unified_rw_reporting=both)
 *   3.30      "clat prio 1/0 (usec): ..." lines
 *   3.36      "sectors=r/w" in the disk lines
 *
 * Numbers carry the precision fio printed: num2str() keeps 4 significant
 * characters (6 for latency min/max and fio < 2.17), "%5.02f" keeps two
 * decimals of the unit shown, percentiles are whole units rounded up.  Where
 * fio prints one value twice the more precise one is taken (BW in MiB/s and
 * MB/s, unless they disagree: then the one that agrees with the line's
 * amount and runtime; and a group's io for its only job); IOPS are worked out from the
 * issued total and the runtime, fio's own formula, when both are printed.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

enum block {
	B_NONE,
	B_JOB,
	B_GROUP,
	B_DISK,
};

/* What a job banner ("NAME: (g=0): rw=..., bs=...") says about a job. */
struct banner {
	const char *name;
	int groupid;
	size_t n_opts;
	const struct fc_option *opts;
};

static const char *const lat_labels[] = {"2",	"4",   "10",  "20",   "50",   "100",
					 "250", "500", "750", "1000", "2000", ">=2000"};
#define LAT_NS 10
#define LAT_US 10
#define LAT_MS 12

/* What only the parser needs about a job. */
struct job_extra {
	double io_ulp[FC_DDIR_COUNT]; /* the precision io_bytes was printed with */
	bool issued;
	uint64_t total[4], shorts[4], drops[4];
	bool lat_seen[3];
	double lat[3][LAT_MS]; /* nsec, usec, msec buckets */
	const char *date;
};

struct group_extra {
	double io_ulp[FC_DDIR_COUNT];
};

struct nscan {
	struct fc_arena *a;
	const char *source;
	struct fc_error *err;
	int fatal; /* FC_E_NOMEM or FC_E_LIMIT: stop */
	struct fc_vec *reports, *spans;
	struct fc_vec banners;	 /* struct banner */
	const char *version;	 /* the last "fio-x.y" seen */
	unsigned long prev_line; /* the last non-blank line */

	/* the report being read */
	bool open;
	int phase;    /* 0 jobs, 1 groups, 2 disks */
	bool client;  /* a fio client's: servers were announced */
	bool ns_hint; /* a shape only fio >= 2.99 prints */
	int status;   /* first error in the report */
	struct fc_error error;
	struct fc_run run;
	struct fc_vec jobs, extras;    /* struct fc_job, struct job_extra */
	struct fc_vec disks;	       /* struct fc_disk */
	struct fc_vec groups, gextras; /* struct fc_group, struct group_extra */
	enum block block;

	/* within a job */
	int dir;		/* direction the latency lines belong to; -1 none */
	struct fc_vec prios;	/* struct fc_prio of that direction */
	struct fc_lat *pct_lat; /* percentile lines being read go here; NULL skips */
	bool in_pcts;
	double pct_scale;
	struct fc_vec pcts;    /* struct fc_percentile */
	struct fc_vec buckets; /* struct fc_bucket */
};

/* ---- errors ------------------------------------------------------------ */

static bool nomem(struct nscan *s)
{
	if (s->fatal)
		return false;
	if (s->a->over_limit)
		s->fatal = fc_err(s->err, FC_E_LIMIT, s->source, s->run.line, 0, FC_MEM_LIMIT_FMT,
				  s->a->limit >> 20);
	else
		s->fatal = fc_err(s->err, FC_E_NOMEM, s->source, s->run.line, 0, "out of memory");
	return false;
}

/* A walk over one line. */
struct cur {
	struct nscan *s;
	const char *line, *p, *end;
	unsigned long no;
	bool quiet; /* trying a shape: a mismatch is no error */
};

/* The report cannot be read: `what` was expected at c->p.  The text found
 * is quoted with bytes other than printable ASCII escaped. */
static bool bad(struct cur *c, const char *what)
{
	static const char hex[] = "0123456789abcdef";
	struct nscan *s = c->s;
	if (s->status || c->quiet)
		return false;
	char shown[4 * 24 + 4];
	size_t n = 0, len = (size_t)(c->end - c->p);
	for (size_t i = 0; i < len && i < 24; i++) {
		unsigned char ch = (unsigned char)c->p[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"') {
			shown[n++] = (char)ch;
			continue;
		}
		shown[n++] = '\\';
		shown[n++] = 'x';
		shown[n++] = hex[ch >> 4];
		shown[n++] = hex[ch & 15];
	}
	if (len > 24) {
		memcpy(shown + n, "...", 3);
		n += 3;
	}
	shown[n] = '\0';
	s->status = FC_E_SYNTAX;
	if (len)
		fc_err(&s->error, FC_E_SYNTAX, s->source, c->no,
		       (unsigned long)(c->p - c->line) + 1,
		       "normal output: expected %s, found \"%s\"", what, shown);
	else
		fc_err(&s->error, FC_E_SYNTAX, s->source, c->no,
		       (unsigned long)(c->p - c->line) + 1,
		       "normal output: expected %s, but the line ends", what);
	return false;
}

/* ---- reading a line ------------------------------------------------------ */

static bool starts(const char *p, size_t len, const char *s)
{
	size_t n = strlen(s);
	return len >= n && memcmp(p, s, n) == 0;
}

static void spaces(struct cur *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

static bool at_end(const struct cur *c)
{
	return c->p >= c->end;
}

/* Takes the literal if it comes next. */
static bool lit(struct cur *c, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, s, n) != 0)
		return false;
	c->p += n;
	return true;
}

static bool expect(struct cur *c, const char *s)
{
	if (lit(c, s))
		return true;
	char what[64];
	snprintf(what, sizeof(what), "\"%s\"", s);
	return bad(c, what);
}

/* Where `s` next occurs in the rest of the line, or NULL. */
static const char *find(const struct cur *c, const char *s)
{
	return memmem(c->p, (size_t)(c->end - c->p), s, strlen(s));
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool u64(struct cur *c, uint64_t *out, const char *what)
{
	uint64_t v = 0;
	spaces(c);
	if (at_end(c) || !is_digit(*c->p))
		return bad(c, what);
	while (c->p < c->end && is_digit(*c->p)) {
		unsigned d = (unsigned)(*c->p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return bad(c, what);
		v = v * 10 + d;
		c->p++;
	}
	*out = v;
	return true;
}

static bool int32(struct cur *c, int *out, const char *what)
{
	uint64_t v;
	spaces(c);
	bool neg = lit(c, "-");
	if (!u64(c, &v, what))
		return false;
	if (v > INT32_MAX)
		return bad(c, what);
	*out = neg ? -(int)v : (int)v;
	return true;
}

/* A number as printf's %f, %5.02f or %3.2f print it: digits with a point,
 * a sign, or nan/inf.  *decimals (if not NULL) gets the digits after the
 * point. */
static bool dbl(struct cur *c, double *out, int *decimals, const char *what)
{
	spaces(c);
	const char *start = c->p, *q = c->p;
	if (q < c->end && *q == '-')
		q++;
	if (q + 3 <= c->end && (memcmp(q, "nan", 3) == 0 || memcmp(q, "inf", 3) == 0)) {
		q += 3;
	} else {
		const char *digits = q;
		while (q < c->end && is_digit(*q))
			q++;
		if (q == digits)
			return bad(c, what);
		if (q < c->end && *q == '.') {
			const char *frac = ++q;
			while (q < c->end && is_digit(*q))
				q++;
			if (decimals)
				*decimals = (int)(q - frac);
		} else if (decimals) {
			*decimals = 0;
		}
	}
	bool ok;
	*out = fc_parse_double(start, (size_t)(q - start), &ok);
	if (!ok)
		return bad(c, what);
	c->p = q;
	return true;
}

static bool pct(struct cur *c, double *out, const char *what)
{
	return dbl(c, out, NULL, what) && (lit(c, "%") || bad(c, "\"%\""));
}

/* A number num2str() printed: "56.0k", "1117MiB/s", "4096B", "10694k",
 * "1.5Mibit/s".  Prefixes with an i are powers of 1024; those without are
 * powers of 1000, or of 1024 where `pow2` says fio used them so (bytes
 * before fio 2.17, and fio_uint_to_kmg's block sizes).  Bits become bytes.
 * *ulp gets the value of one unit in the last digit printed. */
struct num {
	double v, ulp;
};

static bool scaled(struct cur *c, bool pow2, struct num *out, const char *what)
{
	static const char prefixes[] = "kMGTPE";
	int decimals;
	double v;
	spaces(c);
	if (at_end(c) || !is_digit(*c->p))
		return bad(c, what);
	if (!dbl(c, &v, &decimals, what))
		return false;
	double ulp = pow(10.0, -decimals);
	double mult = 1;
	if (!at_end(c)) {
		char ch = *c->p == 'K' ? 'k' : *c->p;
		const char *where = ch ? strchr(prefixes, ch) : NULL;
		if (where) {
			c->p++;
			double base = pow2 ? 1024 : 1000;
			if (lit(c, "i"))
				base = 1024;
			mult = pow(base, (double)(where - prefixes + 1));
		}
	}
	/* fio 2.0 prints a space where there is no prefix: "iops=11624 , " */
	if (c->end - c->p >= 2 && c->p[0] == ' ' && (c->p[1] == ',' || c->p[1] == 'B'))
		c->p++;
	else if (c->end - c->p == 1 && c->p[0] == ' ')
		c->p++;
	if (lit(c, "bit"))
		mult /= 8;
	else
		lit(c, "B");
	lit(c, "/s");
	out->v = v * mult;
	out->ulp = ulp * mult;
	return true;
}

/* Of two numbers fio printed for one value, the more precise. */
static struct num finer(struct num a, struct num b)
{
	return b.ulp < a.ulp ? b : a;
}

/*
 * The bandwidth of "BW=27.6MiB/s (28.0MB/s)(2336MiB/84578msec)": the finer
 * of the two figures when they agree within what each keeps; when they do
 * not (fio's num2str lost a carry: 2336 MiB in 84.578 s is 27.6 MiB/s, not
 * 28.0 MB/s), the one nearer the amount over the runtime on the same line.
 */
static struct num line_bw(struct num iec, struct num si, struct num io, uint64_t runtime_ms)
{
	/* num2str keeps each within one unit of its last digit */
	bool agree = fabs(iec.v - si.v) <= (iec.ulp + si.ulp) * (1 + 1e-9);
	if (agree || runtime_ms == 0 || !(io.v > 0))
		return finer(iec, si);
	double rate = io.v / ((double)runtime_ms / 1000);
	return fabs(iec.v - rate) <= fabs(si.v - rate) ? iec : si;
}

static uint64_t to_u64(double v)
{
	if (!(v >= 0))
		return 0;
	if (v >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)llround(v);
}

static char *text(struct nscan *s, const char *p, size_t len)
{
	char *t = fc_arena_strndup(s->a, p, len);
	if (!t)
		nomem(s);
	return t;
}

/* ---- the parts of a job ------------------------------------------------ */

static struct fc_job *cur_job(struct nscan *s)
{
	return (struct fc_job *)s->jobs.data + s->jobs.n - 1;
}

static struct job_extra *cur_extra(struct nscan *s)
{
	return (struct job_extra *)s->extras.data + s->extras.n - 1;
}

static int cmp_pct(const void *x, const void *y)
{
	const struct fc_percentile *a = x, *b = y;
	return (a->percent > b->percent) - (a->percent < b->percent);
}

/* The percentile lines that were being read go to their latency. */
static void finish_pcts(struct nscan *s)
{
	if (!s->in_pcts)
		return;
	s->in_pcts = false;
	struct fc_lat *l = s->pct_lat;
	s->pct_lat = NULL;
	size_t n = s->pcts.n;
	if (!l || n == 0 || s->status)
		return;
	struct fc_percentile *v = s->pcts.data;
	/* fio sorts percentile_list; a repeated percent: the last one wins */
	for (size_t i = 1; i < n; i++) {
		struct fc_percentile x = v[i];
		size_t k = i;
		while (k > 0 && cmp_pct(&v[k - 1], &x) > 0) {
			v[k] = v[k - 1];
			k--;
		}
		v[k] = x;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && v[i + 1].percent == v[i].percent)
			continue;
		v[m++] = v[i];
	}
	struct fc_percentile *keep = fc_arena_memdup(s->a, v, m * sizeof(*v));
	if (!keep) {
		nomem(s);
		return;
	}
	l->percentiles = keep;
	l->n_percentiles = m;
}

/* The per-priority latencies read for the current direction go to it. */
static void finish_dir(struct nscan *s)
{
	finish_pcts(s);
	if (s->dir >= 0 && s->prios.n && !s->status) {
		struct fc_dir *d = &cur_job(s)->dir[s->dir];
		d->prios =
		    fc_arena_memdup(s->a, s->prios.data, s->prios.n * sizeof(struct fc_prio));
		if (!d->prios)
			nomem(s);
		d->n_prios = s->prios.n;
	}
	fc_vec_clear(&s->prios);
	s->dir = -1;
}

static double unit_ns(const char *p)
{
	if (memcmp(p, "nsec", 4) == 0)
		return 1;
	if (memcmp(p, "usec", 4) == 0)
		return 1e3;
	if (memcmp(p, "msec", 4) == 0)
		return 1e6;
	return 0;
}

/*
 * The priority a label names: "clat prio 1/0" or "lat prio 1/0 (25.00% of
 * IOs)" (fio >= 3.30: class and level of the ioprio), "high prio_clat",
 * "low prio (75.00%) lat" (3.18-3.29).  Found among those already read for
 * the direction, else added.  NULL if the label names none.
 */
static struct fc_prio *prio_of(struct nscan *s, const char *p, size_t len)
{
	struct cur c = {s, p, p, p + len, 0, true};
	int klass = -1, level = -1, high = -1;
	bool total_lat = false;
	if (lit(&c, "clat prio ")) {
		total_lat = false;
	} else if (lit(&c, "lat prio ")) {
		total_lat = true;
	} else if (lit(&c, "high prio")) {
		high = 1;
	} else if (lit(&c, "low prio")) {
		high = 0;
	} else {
		return NULL;
	}
	if (high < 0) {
		uint64_t k, l;
		if (!u64(&c, &k, "") || !lit(&c, "/") || !u64(&c, &l, "") || k > 7 || l > 8191)
			return NULL;
		klass = (int)k;
		level = (int)l;
	} else {
		total_lat = find(&c, "lat") && !find(&c, "clat");
	}
	if (s->dir < 0)
		return NULL;
	struct fc_prio *v = s->prios.data;
	for (size_t i = 0; i < s->prios.n; i++) {
		if (high < 0 ? v[i].prioclass == klass && v[i].prio == level
			     : v[i].high == (high == 1) && v[i].prioclass < 0)
			return &v[i];
	}
	struct fc_prio *e = fc_vec_push(&s->prios);
	if (!e) {
		nomem(s);
		return NULL;
	}
	e->prioclass = klass;
	e->prio = level;
	e->priohint = -1;
	e->high = high == 1;
	e->total_lat = total_lat;
	fc_lat_init(&e->lat);
	return e;
}

/* The latency a label names in the current direction, or NULL. */
static struct fc_lat *lat_of(struct nscan *s, const char *p, size_t len)
{
	if (s->dir < 0)
		return NULL;
	struct fc_dir *d = &cur_job(s)->dir[s->dir];
	if (len == 4 && memcmp(p, "slat", 4) == 0)
		return &d->slat;
	if (len == 4 && memcmp(p, "clat", 4) == 0)
		return &d->clat;
	if ((len == 3 && memcmp(p, "lat", 3) == 0) || (len == 4 && memcmp(p, "sync", 4) == 0))
		return &d->lat;
	struct fc_prio *pr = prio_of(s, p, len);
	return pr ? &pr->lat : NULL;
}

/* "clat (usec): min=120, max=6168, avg=566.53, stdev=214.70";  `q` is
 * where "): min=" starts. */
static bool lat_line(struct cur *c, const char *q)
{
	struct nscan *s = c->s;
	if (q - c->p < 6 || memcmp(q - 6, " (", 2) != 0 || !unit_ns(q - 4))
		return true; /* some other "(...): min=" line */
	double scale = unit_ns(q - 4);
	struct fc_lat *l = lat_of(s, c->p, (size_t)(q - 6 - c->p));
	if (!l) {
		if (s->dir < 0)
			return bad(c, "a read, write, trim or mixed line before the latencies");
		return true;
	}
	struct num min, max;
	double avg, dev;
	c->p = q;
	if (!expect(c, "): min=") || !scaled(c, false, &min, "the minimum latency") ||
	    !expect(c, ", max=") || !scaled(c, false, &max, "the maximum latency") ||
	    !expect(c, ", avg=") || !dbl(c, &avg, NULL, "the mean latency") ||
	    !expect(c, ", stdev=") || !dbl(c, &dev, NULL, "the latency's standard deviation"))
		return false;
	const struct fc_percentile *pcts = l->percentiles;
	size_t n_pcts = l->n_percentiles;
	fc_lat_init(l);
	l->present = true;
	l->min_ns = min.v * scale;
	l->max_ns = max.v * scale;
	l->mean_ns = avg * scale;
	l->stddev_ns = dev * scale;
	l->percentiles = pcts;
	l->n_percentiles = n_pcts;
	if (scale == 1)
		s->ns_hint = true;
	return true;
}

/* "clat percentiles (usec):" and the like; `q` is where " percentiles ("
 * starts.  The "|" lines that follow are the values. */
static bool pcts_header(struct cur *c, const char *q)
{
	struct nscan *s = c->s;
	const char *u = q + strlen(" percentiles (");
	if (c->end - u < 6 || !unit_ns(u) || memcmp(u + 4, "):", 2) != 0)
		return true;
	s->pct_lat = lat_of(s, c->p, (size_t)(q - c->p));
	if (!s->pct_lat && s->dir < 0)
		return bad(c, "a read, write, trim or mixed line before the percentiles");
	s->in_pcts = true;
	s->pct_scale = unit_ns(u);
	if (s->pct_scale == 1)
		s->ns_hint = true;
	fc_vec_clear(&s->pcts);
	return true;
}

/* "|  1.00th=[  289],  5.00th=[  343], 10.00th=[  367],"  */
static bool pcts_line(struct cur *c)
{
	struct nscan *s = c->s;
	c->p++; /* '|' */
	for (;;) {
		spaces(c);
		if (at_end(c))
			return true;
		double p;
		uint64_t v;
		if (!dbl(c, &p, NULL, "a percentile \"P th=[V]\"") || !expect(c, "th=[") ||
		    !u64(c, &v, "the percentile's value") || !expect(c, "]"))
			return false;
		if (!(p >= 0 && p <= 100)) {
			c->p = c->line;
			return bad(c, "a percentile between 0 and 100");
		}
		struct fc_percentile *e = fc_vec_push(&s->pcts);
		if (!e)
			return nomem(s);
		e->percent = p;
		e->value_ns = (double)v * s->pct_scale;
		spaces(c);
		lit(c, ",");
	}
}

static int ddir_of_label(const char *p, size_t len, bool upper)
{
	static const char *const lower_names[] = {"read", "write", "trim", "mixed"};
	static const char *const upper_names[] = {"READ", "WRITE", "TRIM", "MIXED"};
	static const int ddirs[] = {FC_DDIR_READ, FC_DDIR_WRITE, FC_DDIR_TRIM, FC_DDIR_MIXED};
	const char *const *names = upper ? upper_names : lower_names;
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && memcmp(names[i], p, len) == 0)
			return ddirs[i];
	return -1;
}

/* The start of a direction line: "read:", "read :", "mixed:"; -1 if not. */
static int dir_label(struct cur *c)
{
	const char *q = c->p;
	while (q < c->end && *q >= 'a' && *q <= 'z')
		q++;
	int ddir = ddir_of_label(c->p, (size_t)(q - c->p), false);
	if (ddir < 0)
		return -1;
	const char *r = q;
	while (r < c->end && *r == ' ')
		r++;
	if (r + 1 >= c->end || *r != ':' || r[1] != ' ')
		return -1;
	r += 2;
	struct cur rest = {c->s, c->line, r, c->end, c->no, true};
	if (!lit(&rest, "IOPS=") && !lit(&rest, "io="))
		return -1;
	c->p = r;
	return ddir;
}

/*
 * "read: IOPS=56.0k, BW=219MiB/s (229MB/s)(219MiB/1001msec); Cachehit=1.00%"
 * (fio >= 2.17), or "read : io=93040KB, bw=46496KB/s, iops=11624, runt=  2001msec".
 */
static bool dir_line(struct cur *c, int ddir)
{
	struct nscan *s = c->s;
	finish_dir(s);
	struct fc_job *j = cur_job(s);
	struct job_extra *x = cur_extra(s);
	struct fc_dir *d = &j->dir[ddir];
	struct num iops, bw, bw2, io;
	uint64_t runtime;
	fc_dir_init(d);
	d->present = true;
	s->dir = ddir;
	if (lit(c, "IOPS=")) {
		if (!scaled(c, false, &iops, "the IOPS") || !expect(c, ", BW=") ||
		    !scaled(c, false, &bw, "the bandwidth") || !expect(c, " (") ||
		    !scaled(c, false, &bw2, "the bandwidth") || !expect(c, ")(") ||
		    !scaled(c, false, &io, "the I/O size") || !expect(c, "/") ||
		    !u64(c, &runtime, "the runtime in msec") || !expect(c, "msec"))
			return false;
		bw = line_bw(bw, bw2, io, runtime);
		const char *hit = find(c, "; Cachehit=");
		if (hit) {
			c->p = hit + strlen("; Cachehit=");
			if (!pct(c, &d->cachehit_pct, "the cache hit share \"P%\""))
				return false;
		}
	} else {
		if (!expect(c, "io=") || !scaled(c, true, &io, "the I/O size") ||
		    !expect(c, ", bw=") || !scaled(c, true, &bw, "the bandwidth") ||
		    !expect(c, ", iops=") || !scaled(c, false, &iops, "the IOPS") ||
		    !expect(c, ", runt=") || !u64(c, &runtime, "the runtime in msec") ||
		    !expect(c, "msec"))
			return false;
	}
	d->io_bytes = to_u64(io.v);
	x->io_ulp[ddir] = io.ulp;
	d->bw_bytes = bw.v;
	d->iops = iops.v;
	d->runtime_ms = runtime;
	return true;
}

/* "bw (  KiB/s): min=210752, max=210752, per=94.11%, avg=210752.00,
 *  stdev= 0.00, samples=1" (no samples before 2.99, "(KB  /s)" before 2.17) */
static bool bw_line(struct cur *c)
{
	struct nscan *s = c->s;
	if (s->dir < 0)
		return bad(c, "a read, write, trim or mixed line before the bandwidth samples");
	struct fc_dir *d = &cur_job(s)->dir[s->dir];
	spaces(c);
	const char *u = c->p;
	const char *close = find(c, "/s)");
	if (!close)
		return bad(c, "a unit \"(KiB/s)\"");
	size_t ulen = (size_t)(close - u);
	while (ulen && u[ulen - 1] == ' ')
		ulen--;
	/* fio's samples are KiB/s whatever kb_base says (stat.c __add_samples):
	 * kb_base=1000 changes only the label to kB; KB, MB, Kbit, Mbit are
	 * the labels before 2.17.  Above 1 GiB/s they are shown in MiB/s. */
	static const struct {
		const char *name;
		double scale;
	} units[] = {
	    {"KiB", 1024},
	    {"KB", 1024},
	    {"kB", 1024},
	    {"MiB", 1024.0 * 1024},
	    {"MB", 1024.0 * 1024},
	    {"Kibit", 1024.0 / 8},
	    {"Kbit", 1024.0 / 8},
	    {"kbit", 1024.0 / 8},
	    {"Mibit", 1024.0 * 1024 / 8},
	    {"Mbit", 1024.0 * 1024 / 8},
	};
	double scale = 0;
	for (size_t i = 0; i < FC_ARRAY_SIZE(units); i++)
		if (strlen(units[i].name) == ulen && memcmp(units[i].name, u, ulen) == 0)
			scale = units[i].scale;
	/* fio 2.0 ("bw (MB/s)  :", not padded as "MB  /s" since 2.1) went to
	 * MB above 999999.9 KB/s by dividing by 1000 */
	if (ulen == 2 && memcmp(u, "MB", 2) == 0 && close == u + 2)
		scale = 1000.0 * 1024;
	if (scale == 0)
		return bad(c, "a unit KiB, kB, MiB, Kibit, kbit or Mibit");
	c->p = close + 3;
	spaces(c);
	uint64_t min, max, n;
	double agg, mean, dev;
	if (!expect(c, ":") || !expect(c, " min=") || !u64(c, &min, "bw min") ||
	    !expect(c, ", max=") || !u64(c, &max, "bw max") || !expect(c, ", per=") ||
	    !pct(c, &agg, "the share of the group's bandwidth \"P%\"") || !expect(c, ", avg=") ||
	    !dbl(c, &mean, NULL, "bw avg") || !expect(c, ", stdev=") ||
	    !dbl(c, &dev, NULL, "bw stdev"))
		return false;
	fc_samples_init(&d->bw_samples);
	d->bw_samples.present = true;
	if (lit(c, ", samples=")) {
		if (!u64(c, &n, "the number of bw samples"))
			return false;
		d->bw_samples.n = n;
		d->bw_samples.n_known = true;
		s->ns_hint = true;
	}
	d->bw_samples.min = (double)min * scale;
	d->bw_samples.max = (double)max * scale;
	d->bw_samples.mean = mean * scale;
	d->bw_samples.stddev = dev * scale;
	d->bw_agg_pct = agg;
	return true;
}

/* "iops        : min=52688, max=52688, avg=52688.00, stdev= 0.00, samples=1" */
static bool iops_line(struct cur *c)
{
	struct nscan *s = c->s;
	if (s->dir < 0)
		return bad(c, "a read, write, trim or mixed line before the iops samples");
	struct fc_samples *smp = &cur_job(s)->dir[s->dir].iops_samples;
	uint64_t min, max, n;
	double mean, dev;
	if (!expect(c, " min=") || !u64(c, &min, "iops min") || !expect(c, ", max=") ||
	    !u64(c, &max, "iops max") || !expect(c, ", avg=") || !dbl(c, &mean, NULL, "iops avg") ||
	    !expect(c, ", stdev=") || !dbl(c, &dev, NULL, "iops stdev") ||
	    !expect(c, ", samples=") || !u64(c, &n, "the number of iops samples"))
		return false;
	fc_samples_init(smp);
	smp->present = smp->n_known = true;
	smp->min = (double)min;
	smp->max = (double)max;
	smp->mean = mean;
	smp->stddev = dev;
	smp->n = n;
	s->ns_hint = true;
	return true;
}

/* "1=0.1%, 2=0.1%, ..., >=64=0.0%" into s->buckets. */
static bool bucket_list(struct cur *c, const char *what)
{
	struct nscan *s = c->s;
	fc_vec_clear(&s->buckets);
	for (;;) {
		spaces(c);
		if (at_end(c))
			return true;
		/* ">=64" holds a '=' of its own */
		const char *label = c->p;
		const char *from =
		    starts(label, (size_t)(c->end - label), ">=") ? label + 2 : label;
		const char *eq = memchr(from, '=', (size_t)(c->end - from));
		if (!eq || eq == from)
			return bad(c, what);
		struct fc_bucket *b = fc_vec_push(&s->buckets);
		if (!b)
			return nomem(s);
		b->label = text(s, label, (size_t)(eq - label));
		if (!b->label)
			return false;
		c->p = eq + 1;
		if (!pct(c, &b->percent, what))
			return false;
		spaces(c);
		if (!lit(c, ",") && !at_end(c))
			return bad(c, "\",\" between the shares");
	}
}

static bool keep_buckets(struct nscan *s, struct fc_buckets *out)
{
	out->items =
	    fc_arena_memdup(s->a, s->buckets.data, s->buckets.n * sizeof(struct fc_bucket));
	if (!out->items)
		return nomem(s);
	out->n = s->buckets.n;
	return true;
}

/* "lat (usec)   : 250=0.06%, 500=35.07%" ("    lat (usec) : " before 3.0) */
static bool lat_buckets_line(struct cur *c, int which)
{
	struct nscan *s = c->s;
	struct job_extra *x = cur_extra(s);
	if (!bucket_list(c, "a latency share \"V=P%\""))
		return false;
	const struct fc_bucket *b = s->buckets.data;
	size_t n_labels = which == 2 ? LAT_MS : LAT_NS;
	for (size_t i = 0; i < s->buckets.n; i++) {
		for (size_t k = 0; k < n_labels; k++)
			if (strcmp(b[i].label, lat_labels[k]) == 0)
				x->lat[which][k] = b[i].percent;
	}
	x->lat_seen[which] = true;
	if (which == 0)
		s->ns_hint = true;
	return true;
}

/* "cpu          : usr=6.20%, sys=22.30%, ctx=1774, majf=0, minf=42" */
static bool cpu_line(struct cur *c)
{
	struct fc_job *j = cur_job(c->s);
	return expect(c, " usr=") && pct(c, &j->usr_cpu_pct, "the usr CPU \"P%\"") &&
	       expect(c, ", sys=") && pct(c, &j->sys_cpu_pct, "the sys CPU \"P%\"") &&
	       expect(c, ", ctx=") && u64(c, &j->ctx, "the context switches") &&
	       expect(c, ", majf=") && u64(c, &j->majf, "the major faults") &&
	       expect(c, ", minf=") && u64(c, &j->minf, "the minor faults");
}

/* A list of counts "1,2,3,4" or "r=1/w=2/d=3" after "`name`=" (or
 * "`name`ped=": "dropped=" of "drop="); up to 4. */
static bool count_list(struct cur *c, const char *name, uint64_t *v, bool required)
{
	const char *at = find(c, name);
	if (!at) {
		if (!required)
			return true;
		char what[48];
		snprintf(what, sizeof(what), "\"%s=\"", name);
		return bad(c, what);
	}
	c->p = at + strlen(name);
	lit(c, "ped");
	if (!expect(c, "="))
		return false;
	for (int i = 0; i < 4; i++) {
		if (c->p + 1 < c->end && c->p[0] >= 'a' && c->p[0] <= 'z' && c->p[1] == '=')
			c->p += 2;
		if (!u64(c, &v[i], "a count"))
			return false;
		if (!lit(c, ",") && !lit(c, "/"))
			break;
		if (at_end(c) || *c->p == ' ')
			break; /* "total=1,2,3, short=" (2.17-3.3) */
	}
	return true;
}

/* "issued rwts: total=56043,0,0,0 short=0,0,0,0 dropped=0,0,0,0" and the
 * older shapes (see the top of the file). */
static bool issued_line(struct cur *c)
{
	struct job_extra *x = cur_extra(c->s);
	const char *start = c->p;
	if (lit(c, " rwts:"))
		c->s->ns_hint = true; /* fio >= 3.4 */
	c->p = start;
	memset(x->total, 0, sizeof(x->total));
	memset(x->shorts, 0, sizeof(x->shorts));
	memset(x->drops, 0, sizeof(x->drops));
	if (!count_list(c, "total", x->total, true))
		return false;
	c->p = start;
	if (!count_list(c, "short", x->shorts, false))
		return false;
	c->p = start;
	if (!count_list(c, "drop", x->drops, false))
		return false;
	x->issued = true;
	return true;
}

/* "errors    : total=3, first_error=28/<No space left on device>" */
static bool errors_line(struct cur *c)
{
	struct fc_job *j = cur_job(c->s);
	uint64_t total;
	int first;
	if (!expect(c, " total=") || !u64(c, &total, "the error count") ||
	    !expect(c, ", first_error=") || !int32(c, &first, "the first error number"))
		return false;
	j->total_err = total > INT64_MAX ? INT64_MAX : (int64_t)total;
	j->first_error = first;
	return true;
}

/* "name     :" : the key of a job line, padded to its colon. */
static bool key(struct cur *c, const char *name)
{
	const char *save = c->p;
	if (!lit(c, name))
		return false;
	spaces(c);
	if (lit(c, ":"))
		return true;
	c->p = save;
	return false;
}

/* One indented line of a job block, leading blanks skipped. */
static bool job_line(struct cur *c)
{
	struct nscan *s = c->s;
	if (*c->p == '|') {
		if (s->in_pcts)
			return pcts_line(c);
		return true; /* block lifetime percentiles */
	}
	finish_pcts(s);
	struct fc_job *j = cur_job(s);
	if (lit(c, "Description  : [")) {
		const char *close = c->end;
		while (close > c->p && close[-1] != ']')
			close--;
		if (close == c->p)
			return bad(c, "the description's closing \"]\"");
		j->description = text(s, c->p, (size_t)(close - 1 - c->p));
		return j->description != NULL;
	}
	int ddir = dir_label(c);
	if (ddir >= 0)
		return dir_line(c, ddir);
	if (lit(c, "fsync/fdatasync/sync_file_range:")) {
		finish_dir(s);
		fc_dir_init(&j->dir[FC_DDIR_SYNC]);
		j->dir[FC_DDIR_SYNC].present = true;
		s->dir = FC_DDIR_SYNC;
		return true;
	}
	if (lit(c, "bw ("))
		return bw_line(c);
	const char *stats = find(c, "): min=");
	if (stats)
		return lat_line(c, stats);
	const char *pcts = find(c, " percentiles (");
	if (pcts && c->end[-1] == ':')
		return pcts_header(c, pcts);
	if (key(c, "iops"))
		return iops_line(c);
	if (lit(c, "lat (")) {
		double scale = (size_t)(c->end - c->p) >= 5 && c->p[4] == ')' ? unit_ns(c->p) : 0;
		if (scale == 0)
			return true;
		c->p += 5;
		const char *colon = c->p;
		spaces(c);
		if (!lit(c, ":"))
			return true;
		if (c->p - colon == 4)
			s->ns_hint = true; /* "  lat (usec)   : " since fio 3.0 */
		return lat_buckets_line(c, scale == 1 ? 0 : scale == 1e3 ? 1 : 2);
	}
	if (key(c, "cpu"))
		return cpu_line(c);
	if (key(c, "IO depths"))
		return bucket_list(c, "an iodepth share \"N=P%\"") && keep_buckets(s, &j->iodepth);
	if (key(c, "submit"))
		return bucket_list(c, "a submit share \"N=P%\"") &&
		       keep_buckets(s, &j->iodepth_submit);
	if (key(c, "complete"))
		return bucket_list(c, "a complete share \"N=P%\"") &&
		       keep_buckets(s, &j->iodepth_complete);
	if (lit(c, "issued"))
		return issued_line(c);
	if (key(c, "errors"))
		return errors_line(c);
	return true; /* latency target, block states, steadystate, ... */
}

/* ---- group and disk lines ---------------------------------------------- */

static struct fc_group *cur_group(struct nscan *s)
{
	return (struct fc_group *)s->groups.data + s->groups.n - 1;
}

/*
 * "   READ: bw=219MiB/s (229MB/s), 219MiB/s-219MiB/s (229MB/s-229MB/s),
 *  io=219MiB (230MB), run=1001-1001msec" (fio >= 2.17), or
 * "   READ: io=93040KB, aggrb=46496KB/s, minb=46496KB/s, maxb=46496KB/s,
 *  mint=2001msec, maxt=2001msec".
 */
static bool group_line(struct cur *c)
{
	struct nscan *s = c->s;
	const char *q = c->p;
	while (q < c->end && *q >= 'A' && *q <= 'Z')
		q++;
	int ddir = ddir_of_label(c->p, (size_t)(q - c->p), true);
	if (ddir < 0)
		return true;
	c->p = q;
	if (!expect(c, ": "))
		return false;
	struct fc_group_dir *g = &cur_group(s)->dir[ddir];
	struct group_extra *gx = (struct group_extra *)s->gextras.data + s->gextras.n - 1;
	struct num agg, agg2, min, max, min2, max2, io, io2;
	uint64_t tmin, tmax;
	if (lit(c, "bw=")) {
		if (!scaled(c, false, &agg, "the group's bandwidth") || !expect(c, " (") ||
		    !scaled(c, false, &agg2, "the group's bandwidth") || !expect(c, "), ") ||
		    !scaled(c, false, &min, "the lowest bandwidth") || !expect(c, "-") ||
		    !scaled(c, false, &max, "the highest bandwidth") || !expect(c, " (") ||
		    !scaled(c, false, &min2, "the lowest bandwidth") || !expect(c, "-") ||
		    !scaled(c, false, &max2, "the highest bandwidth") || !expect(c, "), io=") ||
		    !scaled(c, false, &io, "the group's I/O size") || !expect(c, " (") ||
		    !scaled(c, false, &io2, "the group's I/O size") || !expect(c, "), run=") ||
		    !u64(c, &tmin, "the shortest runtime") || !expect(c, "-") ||
		    !u64(c, &tmax, "the longest runtime") || !expect(c, "msec"))
			return false;
		io = finer(io, io2);
		agg = line_bw(agg, agg2, io, tmax); /* the group's bytes / its longest runtime */
		min = finer(min, min2);
		max = finer(max, max2);
	} else if (!expect(c, "io=") || !scaled(c, true, &io, "the group's I/O size") ||
		   !expect(c, ", aggrb=") || !scaled(c, true, &agg, "the group's bandwidth") ||
		   !expect(c, ", minb=") || !scaled(c, true, &min, "the lowest bandwidth") ||
		   !expect(c, ", maxb=") || !scaled(c, true, &max, "the highest bandwidth") ||
		   !expect(c, ", mint=") || !u64(c, &tmin, "the shortest runtime") ||
		   !expect(c, "msec, maxt=") || !u64(c, &tmax, "the longest runtime") ||
		   !expect(c, "msec")) {
		return false;
	}
	g->present = true;
	g->bw_bytes = agg.v;
	g->min_bw_bytes = min.v;
	g->max_bw_bytes = max.v;
	g->io_bytes = to_u64(io.v);
	g->min_runtime_ms = tmin;
	g->max_runtime_ms = tmax;
	gx->io_ulp[ddir] = io.ulp;
	return true;
}

/* Two counts "a/b". */
static bool pair(struct cur *c, const char *k, uint64_t *a, uint64_t *b)
{
	return expect(c, k) && u64(c, a, "a count") && expect(c, "/") && u64(c, b, "a count");
}

/* "vda: ios=46261/56330, merge=0/0, ticks=21571/21796, in_queue=43368,
 *  util=95.00%", "sectors=r/w" after ios since 3.36, ", aggrios=..." for
 * md/dm devices. */
static bool disk_line(struct cur *c)
{
	struct nscan *s = c->s;
	const char *colon = find(c, ": ios=");
	if (!colon)
		return true;
	struct fc_disk *dk = fc_vec_push(&s->disks);
	if (!dk)
		return nomem(s);
	fc_disk_init(dk);
	dk->name = text(s, c->p, (size_t)(colon - c->p));
	if (!dk->name)
		return false;
	c->p = colon + 2;
	if (!pair(c, "ios=", &dk->read_ios, &dk->write_ios))
		return false;
	uint64_t rs, ws;
	if (find(c, ", sectors=") == c->p) {
		if (!pair(c, ", sectors=", &rs, &ws))
			return false;
		dk->read_sectors = rs > INT64_MAX ? INT64_MAX : (int64_t)rs;
		dk->write_sectors = ws > INT64_MAX ? INT64_MAX : (int64_t)ws;
	}
	return pair(c, ", merge=", &dk->read_merges, &dk->write_merges) &&
	       pair(c, ", ticks=", &dk->read_ticks_ms, &dk->write_ticks_ms) &&
	       expect(c, ", in_queue=") && u64(c, &dk->in_queue_ms, "the time in queue") &&
	       expect(c, ", util=") && pct(c, &dk->util_pct, "the utilisation \"P%\"");
}

/* ---- banners ------------------------------------------------------------- */

/* A block size as the banner prints it: "4096B", "64.0KiB" (fio >= 2.17)
 * or "4K", "512" (fio_uint_to_kmg, powers of 1024 that divide it). */
static bool banner_size(struct cur *c, bool pow2, uint64_t *out)
{
	struct num n;
	if (!scaled(c, pow2, &n, "a block size"))
		return false;
	*out = to_u64(n.v);
	return true;
}

/* "4096", "4096-65536": fio's syntax for one direction's sizes. */
static int size_text(char *buf, size_t len, uint64_t min, uint64_t max)
{
	if (min == max)
		return snprintf(buf, len, "%llu", (unsigned long long)min);
	return snprintf(buf, len, "%llu-%llu", (unsigned long long)min, (unsigned long long)max);
}

/*
 * "NAME: (g=0): rw=randread, bs=(R) 4096B-4096B, (W) 4096B-4096B,
 *  (T) 4096B-4096B, ioengine=libaio, iodepth=32", "bs=(R) 4096B-4096B,
 * (W) 65536B-65536B, bs_is_seq_rand, " (fio >= 2.17), "bs=4K-4K/4K-4K/4K-4K"
 * or "bs(seq/rand)=4K-4K/64K-64K" (2.1-2.16), "bs=4K-4K/4K-4K" (2.0).
 * A client prefixes it with "<host> ".  Returns false if it is none.
 */
static bool banner(struct nscan *s, const char *p, size_t len)
{
	/* a line that does not parse is not a banner */
	struct cur c = {s, p, p, p + len, 0, true};
	if (len && *p == '<') {
		const char *gt = memchr(p, '>', len);
		if (!gt || gt + 1 >= c.end || gt[1] != ' ')
			return false;
		c.p = gt + 2;
	}
	const char *name = c.p, *g = find(&c, ": (g=");
	if (!g || g == name)
		return false;
	c.p = g + strlen(": (g=");
	int groupid;
	if (!int32(&c, &groupid, "") || !lit(&c, "): rw="))
		return false;
	const char *rw = c.p, *comma = find(&c, ", ");
	if (!comma || comma == rw)
		return false;
	c.p = comma + 2;
	uint64_t mins[3], maxs[3];
	int n = 0;
	bool seq_rand = false;
	if (lit(&c, "bs=(R) ")) {
		static const char *const next[] = {", (W) ", ", (T) "};
		for (;;) {
			if (!banner_size(&c, false, &mins[n]) || !lit(&c, "-") ||
			    !banner_size(&c, false, &maxs[n]))
				return false;
			n++;
			if (n < 3 && lit(&c, next[n - 1]))
				continue;
			break;
		}
		if (lit(&c, ", bs_is_seq_rand"))
			seq_rand = true;
	} else {
		if (lit(&c, "bs(seq/rand)="))
			seq_rand = true;
		else if (!lit(&c, "bs="))
			return false;
		for (;;) {
			if (!banner_size(&c, true, &mins[n]) || !lit(&c, "-") ||
			    !banner_size(&c, true, &maxs[n]))
				return false;
			n++;
			if (n < 3 && lit(&c, "/"))
				continue;
			break;
		}
	}
	if (!lit(&c, ", ioengine="))
		return false;
	const char *engine = c.p, *depth = find(&c, ", iodepth=");
	if (!depth || depth == engine)
		return false;
	c.p = depth + strlen(", iodepth=");
	uint64_t iodepth;
	if (!u64(&c, &iodepth, "") || !at_end(&c))
		return false;

	/* bs in fio's syntax: one value (or range) for all directions when
	 * they agree, else one per direction */
	char bs[3 * 48];
	size_t used = 0;
	bool same = true;
	for (int i = 1; i < n; i++)
		same &= mins[i] == mins[0] && maxs[i] == maxs[0];
	for (int i = 0; i < (same ? 1 : n); i++) {
		if (i)
			bs[used++] = ',';
		used += (size_t)size_text(bs + used, sizeof(bs) - used, mins[i], maxs[i]);
	}
	char depth_text[24];
	snprintf(depth_text, sizeof(depth_text), "%llu", (unsigned long long)iodepth);

	struct fc_option *opts = fc_arena_alloc(s->a, 5 * sizeof(*opts));
	struct banner *b = opts ? fc_vec_push(&s->banners) : NULL;
	if (!b)
		return nomem(s);
	size_t k = 0;
	opts[k++] = (struct fc_option){"rw", text(s, rw, (size_t)(comma - rw))};
	opts[k++] = (struct fc_option){"bs", text(s, bs, used)};
	if (seq_rand)
		opts[k++] = (struct fc_option){"bs_is_seq_rand", "1"};
	opts[k++] = (struct fc_option){"ioengine", text(s, engine, (size_t)(depth - engine))};
	opts[k++] = (struct fc_option){"iodepth", text(s, depth_text, strlen(depth_text))};
	b->name = text(s, name, (size_t)(g - name));
	b->groupid = groupid;
	b->opts = opts;
	b->n_opts = k;
	for (size_t i = 0; i < k; i++)
		if (!opts[i].value)
			return false;
	return b->name != NULL;
}

/* The options the latest banner gave a job of that name and group. */
static const struct banner *banner_of(const struct nscan *s, const struct fc_job *j)
{
	const struct banner *b = s->banners.data;
	for (size_t i = s->banners.n; i-- > 0;)
		if (b[i].groupid == j->groupid && strcmp(b[i].name, j->name) == 0)
			return &b[i];
	return NULL;
}

/*
 * The other jobs of a group_reporting entry: fio prints a banner for each
 * job of its group ("writer: (g=0): rw=randwrite, ...") but one entry for
 * their sum, under the first job's name.  The latest banner of each other
 * name in the group, in the order of the banners.
 */
static bool merged_banners(struct nscan *s, struct fc_job *j)
{
	const struct banner *b = s->banners.data;
	size_t n = 0;
	for (size_t i = 0; i < s->banners.n; i++)
		n += b[i].groupid == j->groupid && strcmp(b[i].name, j->name) != 0;
	if (!n)
		return true;
	struct fc_merged_job *m = fc_arena_alloc(s->a, n * sizeof(*m));
	if (!m)
		return nomem(s);
	size_t k = 0;
	for (size_t i = 0; i < s->banners.n; i++) {
		if (b[i].groupid != j->groupid || strcmp(b[i].name, j->name) == 0)
			continue;
		size_t e = 0;
		while (e < k && strcmp(m[e].name, b[i].name) != 0)
			e++;
		m[e] = (struct fc_merged_job){b[i].name, b[i].n_opts, b[i].opts};
		if (e == k)
			k++;
	}
	j->merged = m;
	j->n_merged = k;
	return true;
}

/* ---- reports --------------------------------------------------------------- */

/* Line `no` belongs to the report. */
static void take_line(struct nscan *s, unsigned long no)
{
	struct fc_line_span *last =
	    s->spans->n ? (struct fc_line_span *)s->spans->data + s->spans->n - 1 : NULL;
	if (last && last->last == s->prev_line) {
		last->last = no;
		return;
	}
	struct fc_line_span *sp = fc_vec_push(s->spans);
	if (!sp) {
		nomem(s);
		return;
	}
	sp->first = sp->last = no;
}

static void reset_report(struct nscan *s)
{
	s->open = false;
	s->phase = 0;
	s->status = 0;
	s->ns_hint = false;
	s->block = B_NONE;
	s->dir = -1;
	s->in_pcts = false;
	s->pct_lat = NULL;
	fc_vec_clear(&s->jobs);
	fc_vec_clear(&s->extras);
	fc_vec_clear(&s->disks);
	fc_vec_clear(&s->groups);
	fc_vec_clear(&s->gextras);
	fc_vec_clear(&s->prios);
}

static void open_report(struct nscan *s, unsigned long no, unsigned long long offset)
{
	reset_report(s);
	s->open = true;
	fc_run_init(&s->run);
	s->run.format = FC_FORMAT_NORMAL;
	s->run.line = no;
	s->run.offset = offset;
	s->run.fio_version = s->version;
	if (s->version) {
		const char *v = s->version + 3;
		if (*v == '-' || *v == ' ')
			v++;
		fc_version_parse(v, &s->run.version_major, &s->run.version_minor,
				 &s->run.version_patch);
	}
}

static bool has_group(const struct nscan *s, int groupid)
{
	const struct fc_group *g = s->groups.data;
	for (size_t i = 0; i < s->groups.n; i++)
		if (g[i].groupid == groupid)
			return true;
	return false;
}

/* What the report lacks to be complete, or NULL. */
static const char *missing(const struct nscan *s, char *buf, size_t len)
{
	const struct fc_job *j = s->jobs.data;
	if (s->phase == 0) {
		snprintf(buf, len, "no \"Run status group\" lines after the job%s",
			 s->jobs.n == 1 ? "" : "s");
		return buf;
	}
	for (size_t i = 0; i < s->jobs.n; i++) {
		if (!has_group(s, j[i].groupid)) {
			snprintf(buf, len, "no \"Run status group %d\" for job \"%s\"",
				 j[i].groupid, j[i].name);
			return buf;
		}
	}
	return NULL;
}

static bool fill_lat_buckets(struct nscan *s, struct fc_buckets *out, const double *v, size_t n)
{
	struct fc_bucket *b = fc_arena_alloc(s->a, n * sizeof(*b));
	if (!b)
		return nomem(s);
	for (size_t i = 0; i < n; i++) {
		b[i].label = lat_labels[i];
		b[i].percent = v[i];
	}
	out->items = b;
	out->n = n;
	return true;
}

/* What the job lines give once all of them are read. */
static bool finish_job(struct nscan *s, struct fc_job *j, struct job_extra *x, bool ns_era)
{
	for (int d = 0; d < FC_DDIR_COUNT; d++) {
		struct fc_dir *dir = &j->dir[d];
		if (!dir->present || !x->issued)
			continue;
		if (d == FC_DDIR_SYNC) {
			dir->total_ios = x->total[3];
			dir->ios_known = true;
			continue;
		}
		if (d == FC_DDIR_MIXED) {
			/* unified_rw_reporting: the issued line keeps the directions
			 * apart (both) or holds everything in the first (mixed) */
			for (int k = 0; k < 3; k++) {
				dir->total_ios += x->total[k];
				dir->short_ios += x->shorts[k];
				dir->drop_ios += x->drops[k];
			}
		} else {
			dir->total_ios = x->total[d];
			dir->short_ios = x->shorts[d];
			dir->drop_ios = x->drops[d];
		}
		dir->ios_known = true;
		/* fio's IOPS: 1000 * total / runtime, exact where the text is not */
		if (dir->runtime_ms)
			dir->iops = 1000.0 * (double)dir->total_ios / (double)dir->runtime_ms;
		/* fio 3.27-3.38 print "mixed: IOPS=0, BW=0 (0)(0B/...)" with
		 * unified_rw_reporting=both (fio issue #1844: no sig_figs for the
		 * mixed numbers); they are the sums of the directions' */
		if (d == FC_DDIR_MIXED && dir->io_bytes == 0 && dir->total_ios && dir->runtime_ms) {
			x->io_ulp[d] = 0;
			for (int k = 0; k < 3; k++) {
				if (!j->dir[k].present)
					continue;
				dir->io_bytes += j->dir[k].io_bytes;
				x->io_ulp[d] += x->io_ulp[k];
			}
			dir->bw_bytes =
			    floor((double)dir->io_bytes * 1000 / (double)dir->runtime_ms);
		}
	}
	if (ns_era && !fill_lat_buckets(s, &j->latency_ns, x->lat[0], LAT_NS))
		return false;
	if (!fill_lat_buckets(s, &j->latency_us, x->lat[1], LAT_US) ||
	    !fill_lat_buckets(s, &j->latency_ms, x->lat[2], LAT_MS))
		return false;
	const struct banner *b = banner_of(s, j);
	if (b) {
		j->options = b->opts;
		j->n_options = b->n_opts;
	}
	if (j->members > 1 && !merged_banners(s, j))
		return false;
	j->all_clients = s->client && strcmp(j->name, "All clients") == 0;
	return true;
}

/*
 * A group's io is the sum of its jobs' io, and its line prints it in both
 * units: for a group of one job that is the more precise io of the job.
 */
static void refine_io(struct nscan *s)
{
	struct fc_job *jobs = s->jobs.data;
	const struct job_extra *x = s->extras.data;
	const struct fc_group *g = s->groups.data;
	const struct group_extra *gx = s->gextras.data;
	for (size_t i = 0; i < s->groups.n; i++) {
		for (int d = 0; d < FC_DDIR_COUNT; d++) {
			if (!g[i].dir[d].present)
				continue;
			size_t only = SIZE_MAX, count = 0;
			for (size_t k = 0; k < s->jobs.n; k++) {
				if (jobs[k].groupid == g[i].groupid && jobs[k].dir[d].present) {
					only = k;
					count++;
				}
			}
			if (count == 1 && gx[i].io_ulp[d] < x[only].io_ulp[d])
				jobs[only].dir[d].io_bytes = g[i].dir[d].io_bytes;
		}
	}
}

static void close_report(struct nscan *s, bool input_ended)
{
	if (!s->open)
		return;
	finish_dir(s);
	if (s->fatal)
		return;
	struct fc_normal_report *r = fc_vec_push(s->reports);
	if (!r) {
		nomem(s);
		return;
	}
	memset(r, 0, sizeof(*r));
	r->run = s->run;
	char why[160];
	const char *lack = s->status ? NULL : missing(s, why, sizeof(why));
	if (s->status) {
		r->status = s->status;
		r->error = s->error;
	} else if (lack) {
		r->status = input_ended ? FC_E_UNFINISHED : FC_E_SYNTAX;
		fc_err(&r->error, r->status, s->source, s->run.line, 0,
		       "the report from line %lu has %s", s->run.line, lack);
	} else {
		struct fc_run *run = &r->run;
		bool ns_era = run->version_major >= 0
				  ? run->version_major > 2 ||
					(run->version_major == 2 && run->version_minor >= 99)
				  : s->ns_hint;
		run->units = FC_UNITS_ROUNDED | (ns_era ? 0 : FC_UNITS_LAT_US);
		run->client_mode = s->client;
		struct fc_job *jobs = s->jobs.data;
		struct job_extra *x = s->extras.data;
		for (size_t i = 0; i < s->jobs.n; i++)
			if (!finish_job(s, &jobs[i], &x[i], ns_era))
				return;
		if (s->jobs.n)
			run->time_text = x[0].date;
		if (!s->client)
			refine_io(s);
		if (fc_number_clones(jobs, s->jobs.n) < 0) {
			nomem(s);
			return;
		}
		run->jobs = fc_arena_memdup(s->a, jobs, s->jobs.n * sizeof(*jobs));
		run->n_jobs = s->jobs.n;
		run->disks =
		    fc_arena_memdup(s->a, s->disks.data, s->disks.n * sizeof(struct fc_disk));
		run->n_disks = s->disks.n;
		run->groups =
		    fc_arena_memdup(s->a, s->groups.data, s->groups.n * sizeof(struct fc_group));
		run->n_groups = s->groups.n;
		if (!run->jobs || !run->disks || !run->groups) {
			nomem(s);
			return;
		}
	}
	reset_report(s);
}

/* "NAME: (groupid=0, jobs=1): err= 0: pid=17942: Tue Dec  1 12:22:06 2026",
 * "err=22 (file:io_u.c:1876, func=io_u error, error=Invalid argument)"; no
 * date before fio 2.0.9.  Returns false if the line is no job header. */
static bool job_header(struct nscan *s, const char *p, size_t len, unsigned long no,
		       unsigned long long offset)
{
	struct cur c = {s, p, p, p + len, no};
	const char *at = find(&c, ": (groupid=");
	if (!at || at == p)
		return false;
	if (s->open && s->phase > 0 && !s->client)
		close_report(s, false); /* the next --status-interval report */
	if (!s->open)
		open_report(s, no, offset);
	finish_dir(s);
	s->block = B_JOB;
	take_line(s, no);
	if (s->status || s->fatal)
		return true;
	struct fc_job *j = fc_vec_push(&s->jobs);
	struct job_extra *x = j ? fc_vec_push(&s->extras) : NULL;
	if (!x) {
		nomem(s);
		return true;
	}
	fc_job_init(j);
	memset(x, 0, sizeof(*x));
	j->index = s->jobs.n - 1;
	j->name = text(s, p, (size_t)(at - p));
	if (!j->name)
		return true;
	c.p = at + strlen(": (groupid=");
	uint64_t members;
	if (!int32(&c, &j->groupid, "the group id") || !expect(&c, ", jobs=") ||
	    !u64(&c, &members, "the number of jobs") || !expect(&c, "): err=") ||
	    !int32(&c, &j->error, "the error number"))
		return true;
	j->members = members > UINT32_MAX ? UINT32_MAX : (unsigned)members;
	/* the error text may hold anything; the pid comes after the last ": pid=" */
	const char *pid = NULL, *q = find(&c, ": pid=");
	while (q) {
		pid = q;
		q = memmem(q + 6, (size_t)(c.end - q - 6), ": pid=", 6);
	}
	if (!pid) {
		bad(&c, "\": pid=\"");
		return true;
	}
	c.p = pid + 6;
	uint64_t v;
	if (!u64(&c, &v, "the pid"))
		return true;
	if (lit(&c, ": ") && !at_end(&c))
		x->date = text(s, c.p, (size_t)(c.end - c.p));
	return true;
}

/* "fio-3.33", or "fio 2.0.8" before fio 2.1: the version line. */
static bool version_line(const char *p, size_t len)
{
	if (len < 5 || memcmp(p, "fio", 3) != 0 || (p[3] != '-' && p[3] != ' ') || !is_digit(p[4]))
		return false;
	for (size_t i = 4; i < len; i++)
		if (p[i] == ' ' || p[i] == '\t')
			return false;
	return true;
}

/*
 * Whether a line that is not indented has the shape of a line of the block
 * it is in: a report pasted where leading blanks are lost (a blog, a forum)
 * is read as the indented one.  A job's header, "Run status group" and
 * "Disk stats" still end the block.
 */
static bool block_shape(struct nscan *s, const char *p, size_t len)
{
	static const char *const job_starts[] = {
	    "slat",   "clat",	   "lat (",  "lat percentiles",	 "bw (",      "iops",
	    "cpu",    "IO depths", "submit", "complete",	 "issued",    "latency",
	    "|",      "fsync/",	   "sync (", "Description  : [", "high prio", "low prio",
	    "errors", "lat prio",
	};
	static const char *const group_starts[] = {"READ: ", "WRITE: ", "TRIM: ", "MIXED: "};
	struct cur c = {s, p, p, p + len, 0};
	if (find(&c, ": (groupid=") || starts(p, len, "Run status group ") ||
	    starts(p, len, "Disk stats ("))
		return false;
	switch (s->block) {
	case B_JOB:
		for (size_t i = 0; i < FC_ARRAY_SIZE(job_starts); i++)
			if (starts(p, len, job_starts[i]))
				return true;
		return dir_label(&c) >= 0;
	case B_GROUP:
		for (size_t i = 0; i < FC_ARRAY_SIZE(group_starts); i++)
			if (starts(p, len, group_starts[i]))
				return true;
		return false;
	case B_DISK:
		return find(&c, ": ios=") != NULL;
	default:
		return false;
	}
}

/* A line that is not indented: a header, or text outside the blocks. */
static void outer_line(struct nscan *s, const char *p, size_t len, unsigned long no,
		       unsigned long long offset)
{
	finish_pcts(s);
	if (job_header(s, p, len, no, offset))
		return;
	struct cur c = {s, p, p, p + len, no};
	if (lit(&c, "Run status group ")) {
		if (s->open && s->phase == 2 && !s->client)
			close_report(s, false);
		if (!s->open)
			open_report(s, no, offset);
		finish_dir(s);
		s->phase = s->phase < 1 ? 1 : s->phase;
		s->block = B_GROUP;
		take_line(s, no);
		if (s->status || s->fatal)
			return;
		struct fc_group *g = fc_vec_push(&s->groups);
		struct group_extra *gx = g ? fc_vec_push(&s->gextras) : NULL;
		if (!gx) {
			nomem(s);
			return;
		}
		memset(g, 0, sizeof(*g));
		memset(gx, 0, sizeof(*gx));
		if (int32(&c, &g->groupid, "the group id"))
			expect(&c, " (all jobs):");
		return;
	}
	if (s->open && starts(p, len, "Disk stats (read/write):")) {
		finish_dir(s);
		s->phase = 2;
		s->block = B_DISK;
		take_line(s, no);
		return;
	}
	s->block = B_NONE;
	/* a fio client announces each server before its report */
	if (starts(p, len, "hostname=")) {
		const char *v = memmem(p, len, ", fio=", 6);
		if (s->open && s->phase > 0)
			close_report(s, false);
		if (v) {
			v += 6;
			const char *e = memchr(v, ',', (size_t)(p + len - v));
			s->version = text(s, v, (size_t)((e ? e : p + len) - v));
			if (!s->open)
				s->client = true;
		}
		return;
	}
	if (version_line(p, len)) {
		s->version = text(s, p, len);
		if (!s->open)
			s->client = false;
		return;
	}
	banner(s, p, len);
}

int fc_normal_scan(struct fc_arena *a, const char *buf, size_t len, const char *source,
		   struct fc_vec *reports, struct fc_vec *spans, struct fc_error *err)
{
	struct nscan s;
	memset(&s, 0, sizeof(s));
	s.a = a;
	s.source = source;
	s.err = err;
	s.reports = reports;
	s.spans = spans;
	s.dir = -1;
	struct {
		struct fc_vec *v;
		size_t size;
	} vecs[] = {
	    {&s.banners, sizeof(struct banner)},    {&s.jobs, sizeof(struct fc_job)},
	    {&s.extras, sizeof(struct job_extra)},  {&s.disks, sizeof(struct fc_disk)},
	    {&s.groups, sizeof(struct fc_group)},   {&s.gextras, sizeof(struct group_extra)},
	    {&s.prios, sizeof(struct fc_prio)},	    {&s.pcts, sizeof(struct fc_percentile)},
	    {&s.buckets, sizeof(struct fc_bucket)},
	};
	for (size_t i = 0; i < FC_ARRAY_SIZE(vecs); i++) {
		fc_vec_init(vecs[i].v, vecs[i].size, 0);
		vecs[i].v->budget = a;
	}

	const char *p = buf, *end = buf + len;
	unsigned long no = 1;
	if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		p += 3;
	while (p < end && !s.fatal) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le > p && le[-1] == '\r')
			le--;
		const char *t = p;
		while (t < le && (*t == ' ' || *t == '\t'))
			t++;
		if (t < le) {
			if (t == p && !block_shape(&s, p, (size_t)(le - p))) {
				outer_line(&s, p, (size_t)(le - p), no,
					   (unsigned long long)(p - buf));
			} else if (s.block != B_NONE) {
				take_line(&s, no);
				if (!s.status && !s.fatal) {
					struct cur c = {&s, p, t, le, no};
					if (s.block == B_JOB)
						job_line(&c);
					else if (s.block == B_GROUP)
						group_line(&c);
					else
						disk_line(&c);
				}
			}
			s.prev_line = no;
		}
		if (!nl)
			break;
		p = nl + 1;
		no++;
	}
	close_report(&s, true);
	for (size_t i = 0; i < FC_ARRAY_SIZE(vecs); i++)
		fc_vec_release(vecs[i].v);
	return s.fatal;
}
