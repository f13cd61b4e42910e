/* SPDX-License-Identifier: MIT */
/*
 * Digests of what the log reader and the profiles make of a log: every
 * sample or row, the layout, the status that ended the read and its error,
 * every profile point.  Two ways of reading a log (the shapes of log.c on
 * or off) must give equal digests; tests/test-log.c and the fuzz target
 * fuzz-log compare them.
 */
#ifndef FC_CHECK_LOG_H
#define FC_CHECK_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fiocamp.h"

struct log_digest {
	uint64_t hash; /* FNV-1a over every number read, in order */
	unsigned long n;
	int rc;
	char error[FC_ERROR_MESSAGE_MAX + 64];
	uint64_t error_at; /* line, column, offset, code, errno hashed */
};

static inline void log_digest_add(struct log_digest *d, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		d->hash ^= (v >> (8 * i)) & 0xff;
		d->hash *= 0x100000001b3ull;
	}
}

static inline void log_digest_double(struct log_digest *d, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	log_digest_add(d, u);
}

static inline void log_digest_init(struct log_digest *d)
{
	memset(d, 0, sizeof(*d));
	d->hash = 0xcbf29ce484222325ull;
}

static inline void log_digest_end(struct log_digest *d, int rc, const struct fc_error *e)
{
	d->rc = rc;
	if (rc >= 0)
		return;
	fc_error_format(e, d->error, sizeof(d->error));
	struct log_digest at;
	log_digest_init(&at);
	log_digest_add(&at, e->line);
	log_digest_add(&at, e->column);
	log_digest_add(&at, e->has_offset ? e->offset : ~0ull);
	log_digest_add(&at, (uint64_t)e->code);
	log_digest_add(&at, (uint64_t)e->sys_errno);
	d->error_at = at.hash;
}

static inline void log_digest_layout(struct log_digest *d, const struct fc_log_layout *l)
{
	uint64_t flags =
	    (uint64_t)l->has_value1 | (uint64_t)l->has_ddir << 1 | (uint64_t)l->has_bs << 2 |
	    (uint64_t)l->has_offset << 3 | (uint64_t)l->has_prio << 4 | (uint64_t)l->prio_hex << 5 |
	    (uint64_t)l->has_issue_time << 6 | (uint64_t)l->hist << 7 | (uint64_t)l->value_us << 8;
	log_digest_add(d, flags);
	log_digest_add(d, l->columns);
	log_digest_add(d, l->hist_buckets);
	log_digest_add(d, l->hist_groups);
}

/* Reads r to its end: samples, or rows for a clat_hist log. */
static inline void log_digest_reader(struct fc_log_reader *r, struct log_digest *d)
{
	struct fc_error e;
	int rc;
	log_digest_layout(d, fc_log_get_layout(r));
	log_digest_add(d, (uint64_t)fc_log_get_type(r));
	if (fc_log_get_layout(r)->hist) {
		struct fc_hist_row h;
		while ((rc = fc_log_next_hist(r, &h, &e)) == 1) {
			d->n++;
			log_digest_add(d, h.time_ms);
			log_digest_add(d, (uint64_t)h.ddir);
			log_digest_add(d, h.bs);
			log_digest_add(d, h.line);
			for (unsigned j = 0; j < h.n_buckets; j++)
				log_digest_add(d, h.buckets[j]);
		}
	} else {
		struct fc_log_sample s;
		while ((rc = fc_log_next(r, &s, &e)) == 1) {
			d->n++;
			log_digest_add(d, s.time_ms);
			log_digest_add(d, (uint64_t)s.value);
			log_digest_add(d, (uint64_t)s.value1);
			log_digest_add(d, (uint64_t)s.ddir);
			log_digest_add(d, s.bs);
			log_digest_add(d, s.offset);
			log_digest_add(d, s.prio);
			log_digest_add(d, s.issue_time_ns);
			log_digest_add(d, s.line);
		}
	}
	/* the layout may change on the way (a guessed prio turns into offset) */
	log_digest_layout(d, fc_log_get_layout(r));
	log_digest_end(d, rc, &e);
}

/* A log given as a buffer (path NULL) or a file, read to its end. */
static inline void log_digest_read(const void *buf, size_t len, const char *name, const char *path,
				   struct log_digest *d)
{
	log_digest_init(d);
	struct fc_log_reader *r;
	struct fc_error e;
	int rc = path ? fc_log_open(path, NULL, &r, &e)
		      : fc_log_open_buffer(buf, len, name, NULL, &r, &e);
	if (rc < 0) {
		log_digest_end(d, rc, &e);
		return;
	}
	log_digest_reader(r, d);
	fc_log_close(r);
}

/* A profile of a log given as a buffer (path NULL) or a file. */
static inline void log_digest_profile(const void *buf, size_t len, const char *name,
				      const char *path, const struct fc_profile_opts *o,
				      struct log_digest *d)
{
	log_digest_init(d);
	struct fc_profile *p;
	struct fc_error e;
	int rc = path ? fc_profile_read_file(path, o, &p, &e)
		      : fc_profile_read_buffer(buf, len, name, o, &p, &e);
	if (rc < 0) {
		log_digest_end(d, rc, &e);
		return;
	}
	log_digest_add(d, (uint64_t)p->type);
	log_digest_add(d, p->lines);
	log_digest_add(d, p->interval_ms);
	log_digest_add(d, (uint64_t)p->per_io | (uint64_t)p->time_went_backwards << 1 |
			      (uint64_t)p->time_absolute << 2);
	log_digest_add(d, p->empty_windows);
	log_digest_layout(d, &p->layout);
	for (int dir = 0; dir < 3; dir++) {
		for (size_t i = 0; i < p->dir[dir].n; i++) {
			const struct fc_profile_point *pt = &p->dir[dir].points[i];
			d->n++;
			log_digest_add(d, pt->start_ms);
			log_digest_add(d, pt->gap);
			log_digest_add(d, pt->samples);
			log_digest_double(d, pt->value);
			log_digest_double(d, pt->min);
			log_digest_double(d, pt->max);
			log_digest_double(d, pt->total);
			log_digest_double(d, pt->covered_ms);
			for (size_t j = 0; pt->percentiles_ns && j < p->n_percentiles; j++)
				log_digest_double(d, pt->percentiles_ns[j]);
		}
	}
	fc_profile_free(p);
	log_digest_end(d, FC_OK, &e);
}

static inline bool log_digest_equal(const struct log_digest *a, const struct log_digest *b)
{
	return a->hash == b->hash && a->n == b->n && a->rc == b->rc && a->error_at == b->error_at &&
	       strcmp(a->error, b->error) == 0;
}

/* For a failed comparison: what each way made of it. */
static inline void log_digest_print(const char *what, const struct log_digest *d)
{
	fprintf(stderr, "  %s: %lu read, rc %d, hash %016llx, error %s\n", what, d->n, d->rc,
		(unsigned long long)d->hash, d->error[0] ? d->error : "none");
}

#endif
