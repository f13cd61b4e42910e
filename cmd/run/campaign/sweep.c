/* SPDX-License-Identifier: MIT */
/* `sweep =`: the options a campaign varies on purpose, and its points
 * (campaign.h). */
#include "campaign/campaign.h"
#include "campaign/parser.h"

#include <string.h>

static const struct {
	const char *name, *env;
} sweep_opts[FCR_SWEEP_OPTS] = {
    [FCR_SWEEP_IODEPTH] = {"iodepth", "FIOCAMP_IODEPTH"},
    [FCR_SWEEP_NUMJOBS] = {"numjobs", "FIOCAMP_NUMJOBS"},
    [FCR_SWEEP_BS] = {"bs", "FIOCAMP_BS"},
    [FCR_SWEEP_RW] = {"rw", "FIOCAMP_RW"},
    [FCR_SWEEP_RWMIXREAD] = {"rwmixread", "FIOCAMP_RWMIXREAD"},
};

/* fio's values of rw (HOWTO, "rw=str"). */
static const char *const rw_values[] = {
    "read",	 "write", "trim",   "randread",	 "randwrite",	  "randtrim",
    "readwrite", "rw",	  "randrw", "trimwrite", "randtrimwrite",
};

/* The largest iodepth and numjobs taken: beyond them a value is a typo. */
#define SWEEP_INT_MAX 65536

const char *fcr_sweep_opt_name(enum fcr_sweep_opt o)
{
	return sweep_opts[o].name;
}

const char *fcr_sweep_opt_env(enum fcr_sweep_opt o)
{
	return sweep_opts[o].env;
}

const char *fcr_sweep_value(const struct fcr_sweep *s, size_t p, size_t a)
{
	size_t stride = 1;
	for (size_t b = a + 1; b < s->n_axes; b++)
		stride *= s->axes[b].values.n;
	const struct cm_strv *v = &s->axes[a].values;
	return v->v[(p / stride) % v->n];
}

char *fcr_sweep_point_name(const struct fcr_sweep *s, size_t p)
{
	struct cm_buf b = {0};
	for (size_t a = 0; a < s->n_axes; a++)
		cm_buf_printf(&b, "%s%s=%s", a ? "," : "", sweep_opts[s->axes[a].opt].name,
			      fcr_sweep_value(s, p, a));
	return b.s ? b.s : cm_strdup("");
}

char *fcr_sweep_run_name(const struct fcr_sweep *s, size_t p, const char *test)
{
	if (!s || !s->n_axes)
		return cm_strdup(test);
	char *point = fcr_sweep_point_name(s, p);
	char *name = cm_asprintf("%s@%s", test, point);
	free(point);
	return name;
}

/* fio's sizes as bs takes them: 512, 4k, 4K, 4KiB, 1m, 1MB; not 0. */
static bool fio_size_ok(const char *v)
{
	const char *s = v;
	bool nonzero = false;
	while (*s >= '0' && *s <= '9')
		nonzero |= *s++ != '0';
	if (s == v || !nonzero)
		return false;
	if (*s && strchr("kKmMgG", *s)) {
		s++;
		if (*s == 'i')
			s++;
	}
	if (*s == 'b' || *s == 'B')
		s++;
	return *s == '\0';
}

/* Whether v is a value option o takes; why says what it takes. */
static bool value_ok(enum fcr_sweep_opt o, const char *v, const char **why)
{
	unsigned long n;
	switch (o) {
	case FCR_SWEEP_IODEPTH:
	case FCR_SWEEP_NUMJOBS:
		*why = "a whole number from 1 to 65536";
		return fcr_parse_uint(v, SWEEP_INT_MAX, &n) == 0 && n > 0;
	case FCR_SWEEP_BS:
		*why = "a size such as 512, 4k or 1M";
		return fio_size_ok(v);
	case FCR_SWEEP_RW:
		*why = "read, write, trim, randread, randwrite, randtrim, readwrite, rw, randrw, "
		       "trimwrite or randtrimwrite";
		for (size_t i = 0; i < CM_ARRAY_SIZE(rw_values); i++) {
			if (!strcmp(v, rw_values[i]))
				return true;
		}
		return false;
	case FCR_SWEEP_RWMIXREAD:
		*why = "a percentage from 0 to 100";
		return fcr_parse_uint(v, 100, &n) == 0;
	case FCR_SWEEP_OPTS:
		break;
	}
	return false;
}

/* One word OPTION=V1,V2 into axis a; false after an error. */
static bool parse_axis(struct parser *p, const char *w, struct fcr_sweep *s)
{
	const char *eq = strchr(w, '=');
	size_t klen = eq ? (size_t)(eq - w) : strlen(w);
	size_t o;
	for (o = 0; o < FCR_SWEEP_OPTS; o++) {
		if (strlen(sweep_opts[o].name) == klen && !strncmp(w, sweep_opts[o].name, klen))
			break;
	}
	if (o == FCR_SWEEP_OPTS) {
		fcr_cp_error(p, p->line,
			     "sweep: unknown option '%.*s' (expected iodepth, numjobs, bs, rw or "
			     "rwmixread, as OPTION=V1,V2)",
			     (int)klen, w);
		return false;
	}
	if (!eq || !eq[1]) {
		fcr_cp_error(p, p->line, "sweep: '%s' needs its values: %s=V1,V2", w,
			     sweep_opts[o].name);
		return false;
	}
	for (size_t a = 0; a < s->n_axes; a++) {
		if (s->axes[a].opt == (enum fcr_sweep_opt)o) {
			fcr_cp_error(p, p->line, "sweep: '%s' is swept twice", sweep_opts[o].name);
			return false;
		}
	}
	struct fcr_sweep_axis *ax = &s->axes[s->n_axes++];
	ax->opt = (enum fcr_sweep_opt)o;
	const char *v = eq + 1;
	for (;;) {
		const char *comma = strchr(v, ',');
		char *val = comma ? cm_strndup(v, (size_t)(comma - v)) : cm_strdup(v);
		const char *why;
		if (!value_ok(ax->opt, val, &why)) {
			fcr_cp_error(p, p->line, "sweep: bad %s '%s' (expected %s)",
				     sweep_opts[o].name, val, why);
			free(val);
			return false;
		}
		for (size_t i = 0; i < ax->values.n; i++) {
			if (!strcmp(ax->values.v[i], val)) {
				fcr_cp_error(p, p->line, "sweep: %s '%s' is listed twice",
					     sweep_opts[o].name, val);
				free(val);
				return false;
			}
		}
		cm_strv_take(&ax->values, val);
		if (!comma)
			break;
		v = comma + 1;
	}
	return true;
}

/* `sweep = iodepth=1,16 numjobs=1,2`, or `none` (a state without the
 * campaign's sweep). */
void fcr_cp_sweep(struct parser *p, const char *v, struct fcr_sweep *out)
{
	fcr_cp_sweep_release(out);
	out->line = p->line;
	out->text = cm_strdup(v);
	if (!strcmp(v, "none"))
		return;
	char *copy = cm_strdup(v);
	char *save = NULL;
	bool ok = true;
	for (char *w = strtok_r(copy, " \t", &save); ok && w; w = strtok_r(NULL, " \t", &save))
		ok = parse_axis(p, w, out);
	free(copy);
	if (!ok)
		return;
	size_t n = 1;
	for (size_t a = 0; a < out->n_axes; a++) {
		n *= out->axes[a].values.n;
		if (n > FCR_SWEEP_POINTS_MAX) {
			fcr_cp_error(p, p->line, "sweep: more than %d points",
				     FCR_SWEEP_POINTS_MAX);
			return;
		}
	}
	out->n_points = n;
}

void fcr_cp_sweep_release(struct fcr_sweep *s)
{
	for (size_t a = 0; a < s->n_axes; a++)
		cm_strv_release(&s->axes[a].values);
	free(s->text);
	memset(s, 0, sizeof(*s));
	s->n_points = 1;
}

size_t fcr_state_runs(const struct fcr_state *st)
{
	return st->n_tests * (st->sweep ? st->sweep->n_points : 1);
}

void fcr_state_run_at(const struct fcr_campaign *c, const struct fcr_state *st, unsigned r,
		      size_t j, size_t *ti, size_t *point)
{
	size_t n = st->sweep ? st->sweep->n_points : 1;
	size_t k = st->n_tests ? j / st->n_tests : 0;
	*ti = st->n_tests ? j % st->n_tests : 0;
	if (c->order == FCR_ORDER_SEQUENTIAL || r == 0)
		*point = k % n;
	else
		*point = (k + r - 1) % n;
}
