/* SPDX-License-Identifier: MIT */
/* The sampler of a fio run and the summary of its samples (sampler.h). */
#include "machine/sampler.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How long the loop may take for its last sample before it is killed. */
#define STOP_WAIT_MS 3000

/*
 * $1: the file fio's script writes the uptime of fio's start to (ssh; ""
 * locally), $2: the devices as an extended regex ("loop0|vda"; "" for
 * none).  A sample is "@ UPTIME", "F UPTIME" (fio's start, once known),
 * the lines of the files as `grep -H` prints them (FILE:LINE) and ".".
 * One grep per sample reads every file (a missing one is passed over:
 * -s), then the loop sleeps in the background, so that a TERM takes the
 * last sample at once.  stdin is the lifeline: at its end (the controller
 * closed it, or the connection ended) the last sample is taken and the
 * loop ends.
 */
static const char sampler_script[] =
    "U=$1 D=$2\n"
    "sample() {\n"
    "  u=-; { read -r u _ </proc/uptime; } 2>/dev/null; echo \"@ $u\"\n"
    "  [ -n \"$U\" ] && { read -r f _ <\"$U\"; } 2>/dev/null && echo \"F $f\"\n"
    "  if [ -n \"$D\" ]; then grep -sHE -e '^cpu' -e '^(some|full) ' "
    "-e \"^ *[0-9]+ +[0-9]+ ($D) \" /proc/stat /proc/diskstats /proc/pressure/io "
    "/proc/pressure/cpu /proc/cpuinfo\n"
    "  else grep -sHE -e '^cpu' -e '^(some|full) ' /proc/stat /proc/pressure/io "
    "/proc/pressure/cpu /proc/cpuinfo; fi\n"
    "  echo .\n"
    "}\n"
    "s=\n"
    "trap '[ -n \"$s\" ] && kill $s 2>/dev/null; sample; exit 0' TERM\n"
    "exec 3<&0\n"
    "{ while read -r _ <&3; do :; done; kill -TERM $$; } >/dev/null 2>&1 &\n"
    "sample\n"
    "while :; do sleep 1 & s=$!; wait $s; s=; sample; done\n";

static double clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void fcr_sampler_start(struct fcr_sampler *s, struct fcr_target *t, const struct cm_strv *devices)
{
	*s = (struct fcr_sampler){.t = t, .fio_boot_s = NAN, .fio_wall_s = NAN};
	s->child.pid = -1;
	struct cm_buf re = {0};
	for (size_t i = 0; devices && i < devices->n; i++) {
		cm_strv_add(&s->devices, devices->v[i]);
		cm_buf_printf(&re, "%s%s", re.len ? "|" : "", devices->v[i]);
	}
	s->raw = tmpfile();
	if (!s->raw) {
		snprintf(s->why, sizeof(s->why), "no temporary file for the samples: %s",
			 strerror(errno));
		cm_buf_release(&re);
		return;
	}
	char *fio_up = t->c->target == FCR_TARGET_SSH && t->remote_tmp
			   ? cm_asprintf("%s/fio.up", t->remote_tmp)
			   : cm_strdup("");
	char *const argv[] = {"sh", "-c", (char *)sampler_script, "sh", fio_up, re.s ? re.s : "",
			      NULL};
	struct cm_strv full = {0};
	fcr_target_argv(t, argv, &full);
	fcr_target_mux_argv(t, false, &full);
	struct fcr_spawn_opts o = {
	    .argv = full.v,
	    .stdin_fd = FCR_SPAWN_PIPE,
	    .stdout_fd = fileno(s->raw),
	    .stderr_fd = FCR_SPAWN_DEVNULL,
	    .own_pgrp = true,
	};
	struct fcr_error err = {0};
	if (fcr_spawn(&o, &s->child, &err) < 0)
		snprintf(s->why, sizeof(s->why), "the sampler did not start: %.200s", err.msg);
	else
		s->running = true;
	cm_strv_release(&full);
	free(fio_up);
	cm_buf_release(&re);
}

void fcr_sampler_fio_starts(struct fcr_sampler *s)
{
	s->fio_wall_s = cm_wall_s();
	if (s->t->c->target == FCR_TARGET_LOCAL)
		s->fio_boot_s = clock_s(CLOCK_BOOTTIME);
}

void fcr_sampler_stop(struct fcr_sampler *s)
{
	if (!s->running)
		return;
	s->running = false;
	if (s->child.in_fd >= 0) {
		close(s->child.in_fd);
		s->child.in_fd = -1;
	}
	int status;
	for (int waited = 0;; waited += 10) {
		pid_t r = waitpid(s->child.pid, &status, WNOHANG);
		if (r == s->child.pid || (r < 0 && errno != EINTR))
			break;
		if (waited >= STOP_WAIT_MS) {
			kill(-s->child.pid, SIGKILL);
			waitpid(s->child.pid, &status, 0);
			snprintf(s->why, sizeof(s->why),
				 "the sampler did not end within %d ms: killed", STOP_WAIT_MS);
			break;
		}
		usleep(10000);
	}
	/* its sleep, when the loop was killed */
	kill(-s->child.pid, SIGKILL);
	s->child.pid = -1;
}

int fcr_sampler_finish(struct fcr_sampler *s, struct cm_tm_series *out, char *why, size_t len)
{
	*out = (struct cm_tm_series){0};
	fcr_sampler_stop(s);
	int rc = -1;
	if (!s->raw) {
		snprintf(why, len, "%s", s->why);
	} else {
		struct cm_buf b = {0};
		char chunk[65536];
		size_t n;
		rewind(s->raw);
		while ((n = fread(chunk, 1, sizeof(chunk), s->raw)) > 0 && b.len < CM_TM_MAX_BYTES)
			cm_buf_putn(&b, chunk, n);
		fclose(s->raw);
		s->raw = NULL;
		if (b.len == 0)
			snprintf(why, len, "%s",
				 s->why[0] ? s->why : "the sampler printed nothing");
		else
			rc = fcr_sampler_parse(b.s, b.len, &s->devices, s->fio_boot_s,
					       s->fio_wall_s, out, why, len);
		cm_buf_release(&b);
	}
	cm_strv_release(&s->devices);
	return rc;
}

/* ---- the loop's lines ------------------------------------------------------ */

/* The texts of one sample, by file. */
struct raw_sample {
	double up; /* NaN: not known */
	struct cm_buf stat, disk, psi_io, psi_cpu, cpuinfo;
};

static void raw_reset(struct raw_sample *r)
{
	r->up = NAN;
	struct cm_buf *bufs[] = {&r->stat, &r->disk, &r->psi_io, &r->psi_cpu, &r->cpuinfo};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bufs); i++) {
		cm_buf_release(bufs[i]);
		cm_buf_puts(bufs[i], "");
	}
}

static void raw_release(struct raw_sample *r)
{
	struct cm_buf *bufs[] = {&r->stat, &r->disk, &r->psi_io, &r->psi_cpu, &r->cpuinfo};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bufs); i++)
		cm_buf_release(bufs[i]);
}

static bool parse_up(const char *s, double *v)
{
	char *end;
	double x = strtod(s, &end);
	if (end == s || *end || !isfinite(x) || x < 0)
		return false;
	*v = x;
	return true;
}

/* The sample the texts of r say, at uptime r->up. */
static void raw_to_sample(struct raw_sample *r, const struct cm_strv *devices,
			  struct cm_tm_sample *s)
{
	*s = (struct cm_tm_sample){.unix_s = NAN, .mhz = NAN};
	char why[256];
	if (r->stat.len)
		cm_tm_read_proc_stat(r->stat.s, &s->cpu, why, sizeof(why));
	for (size_t i = 0; i < devices->n && s->n_disks < CM_TM_DISKS_MAX; i++) {
		if (r->disk.len &&
		    cm_tm_read_diskstats(r->disk.s, devices->v[i], &s->disks[s->n_disks], why,
					 sizeof(why)) == 0)
			s->n_disks++;
	}
	struct {
		struct cm_buf *b;
		const char *name;
	} psi[] = {{&r->psi_io, "io"}, {&r->psi_cpu, "cpu"}};
	for (size_t i = 0; i < CM_ARRAY_SIZE(psi); i++) {
		if (psi[i].b->len && cm_tm_read_pressure(psi[i].b->s, psi[i].name,
							 &s->psi[s->n_psi], why, sizeof(why)) == 0)
			s->n_psi++;
	}
	if (r->cpuinfo.len)
		s->mhz = cm_tm_read_cpuinfo_mhz(r->cpuinfo.s);
}

int fcr_sampler_parse(const char *raw, size_t len, const struct cm_strv *devices, double boot0,
		      double wall0, struct cm_tm_series *out, char *why, size_t why_len)
{
	*out = (struct cm_tm_series){0};
	struct raw_sample r = {0};
	raw_reset(&r);
	bool in_sample = false;
	double first_up = NAN, fio_up = NAN;
	size_t cap = 0;
	double *ups = NULL;
	struct {
		const char *prefix;
		struct cm_buf *b;
	} files[] = {{"/proc/stat:", &r.stat},
		     {"/proc/diskstats:", &r.disk},
		     {"/proc/pressure/io:", &r.psi_io},
		     {"/proc/pressure/cpu:", &r.psi_cpu},
		     {"/proc/cpuinfo:", &r.cpuinfo}};
	for (size_t pos = 0; pos < len;) {
		const char *line = raw + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos;
		pos += n + 1;
		if (!nl)
			break; /* cut short: the sample it belongs to is incomplete */
		char buf[1024];
		if (n >= sizeof(buf))
			continue;
		memcpy(buf, line, n);
		buf[n] = '\0';
		if (buf[0] == '@' && buf[1] == ' ') {
			/* a sample the TERM interrupted is left out */
			raw_reset(&r);
			in_sample = true;
			double up;
			if (parse_up(buf + 2, &up)) {
				r.up = up;
				if (isnan(first_up))
					first_up = up;
			}
		} else if (!in_sample) {
			continue;
		} else if (buf[0] == 'F' && buf[1] == ' ') {
			double up;
			/* a file fio.up left by the run before this one is older */
			if (parse_up(buf + 2, &up) && isfinite(first_up) && up >= first_up - 0.5)
				fio_up = up;
		} else if (!strcmp(buf, ".")) {
			in_sample = false;
			if (isnan(r.up))
				continue;
			if (out->n == cap) {
				cap = cap ? 2 * cap : 64;
				out->samples = cm_realloc(out->samples, cap, sizeof(*out->samples));
				ups = cm_realloc(ups, cap, sizeof(*ups));
			}
			if (out->n && r.up < ups[out->n - 1])
				continue; /* the clock went back: not this sampler's */
			raw_to_sample(&r, devices, &out->samples[out->n]);
			ups[out->n++] = r.up;
			if (out->n >= CM_TM_MAX_SAMPLES)
				break;
		} else {
			for (size_t i = 0; i < CM_ARRAY_SIZE(files); i++) {
				size_t pl = strlen(files[i].prefix);
				if (n > pl && !strncmp(buf, files[i].prefix, pl)) {
					cm_buf_puts(files[i].b, buf + pl);
					cm_buf_puts(files[i].b, "\n");
					break;
				}
			}
		}
	}
	raw_release(&r);
	if (out->n == 0) {
		free(ups);
		cm_tm_series_release(out);
		snprintf(why, why_len, "the sampler took no complete sample");
		return -1;
	}
	double t0 = isfinite(boot0) ? boot0 : isfinite(fio_up) ? fio_up : ups[0];
	for (size_t i = 0; i < out->n; i++) {
		double ms = (ups[i] - t0) * 1000;
		/* the sample before fio started counts as its start */
		out->samples[i].t_ms = ms > 0 ? round(ms) : 0;
		if (isfinite(wall0))
			out->samples[i].unix_s = wall0 + out->samples[i].t_ms / 1000;
	}
	free(ups);
	return 0;
}

/* ---- the summary ------------------------------------------------------------ */

static json_t *share_or_null(double v)
{
	return isfinite(v) ? json_real(round(v * 1e6) / 1e6) : json_null();
}

/* The ticks between two samples' cpu lines, all kinds summed; false when
 * the interval is unknown (cm_tm_cpu_between). */
static bool cpu_ticks(const struct cm_tm_cpu *a, const struct cm_tm_cpu *b, double *total)
{
	const uint64_t va[] = {a->user,	  a->nice, a->system,  a->idle,
			       a->iowait, a->irq,  a->softirq, a->steal};
	const uint64_t vb[] = {b->user,	  b->nice, b->system,  b->idle,
			       b->iowait, b->irq,  b->softirq, b->steal};
	uint64_t sum = 0, d;
	for (size_t i = 0; i < CM_ARRAY_SIZE(va); i++) {
		if (!cm_tm_counter_delta(va[i], vb[i], false, &d))
			return false;
		sum += d;
	}
	*total = (double)sum;
	return sum > 0;
}

static const struct cm_tm_psi *find_psi(const struct cm_tm_sample *s, const char *resource)
{
	for (size_t i = 0; i < s->n_psi; i++)
		if (!strcmp(s->psi[i].resource, resource))
			return &s->psi[i];
	return NULL;
}

/* The share of the time some task stalled on `resource`: the some total's
 * rise over the intervals both ends of which have it; NaN when none has. */
static double psi_share(const struct cm_tm_series *s, const char *resource)
{
	double stalled_us = 0, span_us = 0;
	for (size_t i = 1; i < s->n; i++) {
		const struct cm_tm_psi *a = find_psi(&s->samples[i - 1], resource);
		const struct cm_tm_psi *b = find_psi(&s->samples[i], resource);
		uint64_t d;
		double dt = s->samples[i].t_ms - s->samples[i - 1].t_ms;
		if (!a || !b || dt <= 0 || !cm_tm_counter_delta(a->some_us, b->some_us, false, &d))
			continue;
		stalled_us += (double)d;
		span_us += dt * 1000;
	}
	return span_us > 0 ? fmin(stalled_us / span_us, 1.0) : NAN;
}

json_t *fcr_telemetry_summary(const struct cm_tm_series *s, const char *device, double fio_bytes,
			      double steal_max, double foreign_max)
{
	double steal = 0, iowait = 0, busy = 0, ticks = 0;
	bool cpus_changed = false;
	unsigned online = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cm_tm_cpu *c = &s->samples[i].cpu;
		if (!c->known)
			continue;
		if (online && c->online != online)
			cpus_changed = true;
		online = c->online;
	}
	for (size_t i = 1; i < s->n; i++) {
		const struct cm_tm_cpu *a = &s->samples[i - 1].cpu, *b = &s->samples[i].cpu;
		struct cm_tm_cpu_share sh = cm_tm_cpu_between(a, b);
		double total;
		if (!sh.known || !cpu_ticks(a, b, &total))
			continue;
		/* weighted by the interval's ticks: shares of the whole run */
		steal += sh.steal * total;
		iowait += sh.iowait * total;
		busy += sh.busy * total;
		ticks += total;
	}
	double steal_share = ticks > 0 ? steal / ticks : NAN;

	/* every interval must be known: a gap would hide device bytes that fio
	 * counted over the whole run */
	double device_bytes = NAN;
	if (device && s->n >= 2) {
		uint64_t sum = 0, b;
		bool all = true;
		for (size_t i = 1; i < s->n && all; i++) {
			all = cm_tm_disk_bytes_between(&s->samples[i - 1], &s->samples[i], device,
						       &b);
			sum += b;
		}
		if (all)
			device_bytes = (double)sum;
	}
	double foreign = NAN;
	if (isfinite(device_bytes) && isfinite(fio_bytes) && fio_bytes >= 0)
		foreign = cm_tm_foreign_share((uint64_t)device_bytes, (uint64_t)fio_bytes);

	double mhz = 0;
	size_t n_mhz = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (isfinite(s->samples[i].mhz)) {
			mhz += s->samples[i].mhz;
			n_mhz++;
		}
	}
	json_t *o = json_object();
	json_object_set_new(o, "samples", json_integer((json_int_t)s->n));
	json_object_set_new(
	    o, "seconds",
	    s->n ? json_real(round(s->samples[s->n - 1].t_ms - s->samples[0].t_ms) / 1000)
		 : json_null());
	json_object_set_new(o, "steal", share_or_null(steal_share));
	json_object_set_new(o, "iowait", share_or_null(ticks > 0 ? iowait / ticks : NAN));
	json_object_set_new(o, "busy", share_or_null(ticks > 0 ? busy / ticks : NAN));
	json_object_set_new(o, "foreign_io", share_or_null(foreign));
	json_object_set_new(o, "device", device ? json_string(device) : json_null());
	json_object_set_new(o, "device_bytes",
			    isfinite(device_bytes) ? json_integer((json_int_t)device_bytes)
						   : json_null());
	json_object_set_new(o, "fio_bytes",
			    isfinite(fio_bytes) ? json_integer((json_int_t)fio_bytes)
						: json_null());
	json_object_set_new(o, "psi_io_some", share_or_null(psi_share(s, "io")));
	json_object_set_new(o, "psi_cpu_some", share_or_null(psi_share(s, "cpu")));
	json_object_set_new(o, "mhz",
			    n_mhz ? json_real(round(mhz / (double)n_mhz * 10) / 10) : json_null());
	json_object_set_new(o, "cpus_changed", json_boolean(cpus_changed));
	struct cm_buf why = {0};
	if (isfinite(steal_max) && isfinite(steal_share) && steal_share > steal_max)
		cm_buf_printf(&why, "steal %.1f%% > %g%%", steal_share * 100, steal_max * 100);
	if (isfinite(foreign_max) && isfinite(foreign) && foreign > foreign_max)
		cm_buf_printf(&why, "%sforeign I/O %.1f%% > %g%%", why.len ? "; " : "",
			      foreign * 100, foreign_max * 100);
	json_object_set_new(o, "disturbed", why.len ? json_string(why.s) : json_null());
	cm_buf_release(&why);
	return o;
}
