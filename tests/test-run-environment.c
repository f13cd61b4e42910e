/* SPDX-License-Identifier: MIT */
/* Unit tests of fiocamp-run's environment capture (the parser of its
 * script's lines) and of the telemetry summary of a run, on recorded
 * samples. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/environment.h"
#include "machine/sampler.h"

static const char *jstr(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A VM's answer: a dm device on a partition, a loop device's backing file
 * on another file system, a device listed twice, unreadable values. */
static void test_parse(void)
{
	char text[] =
	    "hostname\tvps1\n"
	    "kernel\t6.1.0-18-amd64\n"
	    "os\t\"Debian GNU/Linux 12 (bookworm)\"\n"
	    "cpu_model\tAMD EPYC 7702P 64-Core Processor\n"
	    "cpus\t2\n"
	    "mem_kib\t4015936\n"
	    "dmi_vendor\tQEMU\n"
	    "dmi_product\tStandard PC (i440FX + PIIX, 1996)\n"
	    "hypervisor\t1\n"
	    "fio\tfio-3.33\n"
	    "thp\talways [madvise] never\n"
	    "governor\t\n"
	    "place\t0\n"
	    "fs\t254:0\text4\trw,relatime\trw,errors=remount-ro\t/dev/mapper/vg-root\t/srv\\040x\n"
	    "top\tdm-0\n"
	    "dev\tdm-0\tdm\t\t41943040\t0\tnone\t128\t128\t\t\tvg-root\tvda2\n"
	    "dev\tvda2\tpartition\t\t41940992\t\t\t\t\t\t\t\tvda\n"
	    "dev\tvda\tdisk\t\t41943040\t1\tnone [mq-deadline]\t256\t128\twrite back\t\t\t\n"
	    "dev\tvda\tdisk\t\t41943040\t1\tnone [mq-deadline]\t256\t128\twrite back\t\t\t\n"
	    "place\t1\n"
	    "fs\t7:0\text4\trw,relatime\trw\t/dev/loop0\t/mnt/x\n"
	    "top\tloop0\n"
	    "backing\tloop0\t254:0\text4\trw,relatime\trw\t/dev/mapper/vg-root\t/srv\n"
	    "dev\tloop0\tloop\t\t2097152\t0\tnone\t128\t128\twrite back\t/srv/x.img\t\tdm-0\n"
	    "place\t2\n";
	const char *variants[] = {NULL, "loop", "tmp"};
	const char *paths[] = {"/srv x/fiocamp.testfile", "/mnt/x/fiocamp.testfile",
			       "/tmp/fiocamp.testfile"};
	json_t *env = fcr_environment_parse(text, variants, paths, 3);
	json_t *host = json_object_get(env, "host");
	CHECK(!strcmp(jstr(host, "os"), "Debian GNU/Linux 12 (bookworm)"));
	CHECK(!strcmp(jstr(host, "virtualization"), "qemu"));
	CHECK(!strcmp(jstr(host, "thp"), "madvise"));
	CHECK(!strcmp(jstr(host, "fio_version"), "fio-3.33"));
	CHECK_INT(json_integer_value(json_object_get(host, "cpus")), 2);
	CHECK_INT(json_integer_value(json_object_get(host, "mem_kib")), 4015936);
	CHECK(json_is_null(json_object_get(host, "governor")));
	json_t *places = json_object_get(env, "places");
	CHECK_INT(json_array_size(places), 3);
	json_t *p0 = json_array_get(places, 0);
	json_t *fs = json_object_get(p0, "filesystem");
	CHECK(!strcmp(jstr(fs, "type"), "ext4"));
	CHECK(!strcmp(jstr(fs, "options"), "rw,relatime,errors=remount-ro"));
	CHECK(!strcmp(jstr(fs, "mountpoint"), "/srv x"));
	CHECK(json_is_null(json_object_get(p0, "variant")));
	json_t *devs = json_object_get(p0, "devices");
	CHECK_INT(json_array_size(devs), 3); /* vda once */
	json_t *dm = json_array_get(devs, 0);
	CHECK(!strcmp(jstr(dm, "kind"), "dm"));
	CHECK(!strcmp(jstr(dm, "dm_name"), "vg-root"));
	CHECK_INT(json_integer_value(json_object_get(dm, "size_bytes")), 41943040LL * 512);
	CHECK(json_is_false(json_object_get(dm, "rotational")));
	CHECK(json_is_null(json_object_get(dm, "write_cache")));
	json_t *part = json_array_get(devs, 1);
	CHECK(json_is_null(json_object_get(part, "rotational")));
	CHECK(json_is_null(json_object_get(part, "scheduler")));
	json_t *vda = json_array_get(devs, 2);
	CHECK(!strcmp(jstr(vda, "scheduler"), "mq-deadline"));
	CHECK(!strcmp(jstr(vda, "write_cache"), "write back"));
	struct cm_strv names = {0};
	fcr_environment_devices(env, NULL, &names);
	CHECK_INT(names.n, 2);
	CHECK(names.n == 2 && !strcmp(names.v[0], "dm-0") && !strcmp(names.v[1], "vda"));
	cm_strv_release(&names);

	json_t *p1 = json_array_get(places, 1);
	CHECK(!strcmp(jstr(p1, "variant"), "loop"));
	json_t *loop = json_array_get(json_object_get(p1, "devices"), 0);
	CHECK(!strcmp(jstr(loop, "kind"), "loop"));
	CHECK(!strcmp(jstr(loop, "backing_file"), "/srv/x.img"));
	CHECK(!strcmp(jstr(json_object_get(loop, "backing_filesystem"), "source"),
		      "/dev/mapper/vg-root"));
	CHECK(!json_object_get(p1, "backing"));
	fcr_environment_devices(env, "loop", &names);
	CHECK(names.n == 1 && !strcmp(names.v[0], "loop0"));
	cm_strv_release(&names);

	json_t *p2 = json_array_get(places, 2);
	CHECK(json_is_null(json_object_get(p2, "filesystem")));
	CHECK_INT(json_array_size(json_object_get(p2, "devices")), 0);
	fcr_environment_devices(env, "tmp", &names);
	CHECK_INT(names.n, 0);

	/* the same facts are the same environment, whenever taken */
	json_t *again = json_deep_copy(env);
	json_object_set_new(again, "captured", json_string("later"));
	json_object_set_new(env, "id", json_integer(1));
	CHECK(fcr_environment_same(env, again));
	json_object_set_new(json_object_get(again, "host"), "kernel", json_string("6.2"));
	CHECK(!fcr_environment_same(env, again));
	json_decref(again);
	json_decref(env);
}

/* Nothing readable: every fact null, the places there all the same. */
static void test_parse_nothing(void)
{
	char text[] = "hostname\t\nkernel\t\ncpus\t\nthp\t\nplace\t0\n";
	const char *variants[] = {NULL};
	const char *paths[] = {"/x/fiocamp.testfile"};
	json_t *env = fcr_environment_parse(text, variants, paths, 1);
	json_t *host = json_object_get(env, "host");
	const char *key;
	json_t *v;
	json_object_foreach(host, key, v)
		CHECK(json_is_null(v));
	CHECK_INT(json_object_size(host), 10);
	CHECK_INT(json_array_size(json_object_get(env, "places")), 1);
	json_decref(env);
}

/* The loop's raw lines: a sample cut short by the stop, a line of a file
 * we do not read, a stale fio.up of the run before, diskstats of another
 * device, /proc/pressure missing. */
static void test_sampler_parse(void)
{
	const char raw[] =
	    "@ 100.00\n"
	    "F 50.00\n" /* the run before's */
	    "/proc/stat:cpu  100 0 50 800 10 0 5 35\n"
	    "/proc/stat:cpu0 50 0 25 400 5 0 2 18\n"
	    "/proc/stat:cpu1 50 0 25 400 5 0 3 17\n"
	    "/proc/diskstats:   7       0 loop0 10 0 80 5 20 0 160 9 0 30 14 0 0 0 0\n"
	    "/proc/diskstats:   8       0 sda 1 0 8 1 2 0 16 1 0 3 2 0 0 0 0\n"
	    "/proc/cpuinfo:cpu MHz\t\t: 2000.000\n"
	    "/proc/cpuinfo:cpu MHz\t\t: 3000.000\n"
	    "/proc/cpuinfo:cpu family\t: 23\n"
	    ".\n"
	    "@ 101.02\n"
	    "F 100.25\n"
	    "/proc/stat:cpu  200 0 100 1600 20 0 10 70\n"
	    "/proc/diskstats:   7       0 loop0 20 0 160 9 40 0 2208 9 0 40 19 0 0 0 0\n"
	    ".\n"
	    "@ 102.03\n"
	    "/proc/stat:cpu  300 0 150 2400 30 0 15 105\n"
	    "@ 102.05\n" /* the TERM's sample; the one above was cut short */
	    "F 100.25\n"
	    "/proc/stat:cpu  300 0 150 2400 30 0 15 105\n"
	    "/proc/diskstats:   7       0 loop0 20 0 160 9 40 0 2208 9 0 40 19 0 0 0 0\n"
	    ".\n"
	    "@ 103.00\n"
	    "/proc/stat:cpu  1 2 3"; /* cut short mid-line */
	struct cm_strv devs = {0};
	cm_strv_add(&devs, "loop0");
	struct cm_tm_series s;
	char why[256];
	CHECK_INT(fcr_sampler_parse(raw, sizeof(raw) - 1, &devs, NAN, 1000.0, &s, why, sizeof(why)),
		  0);
	CHECK_INT(s.n, 3);
	if (s.n == 3) {
		/* fio started at uptime 100.25: the first sample counts as 0 */
		CHECK_DBL(s.samples[0].t_ms, 0, 1e-9);
		CHECK_DBL(s.samples[1].t_ms, 770, 1e-9);
		CHECK_DBL(s.samples[2].t_ms, 1800, 1e-9);
		CHECK_DBL(s.samples[1].unix_s, 1000.77, 1e-9);
		CHECK_INT(s.samples[0].cpu.online, 2);
		CHECK_INT(s.samples[0].n_disks, 1);
		CHECK_INT(s.samples[0].n_psi, 0);
		CHECK_DBL(s.samples[0].mhz, 2500, 1e-9);
		CHECK(isnan(s.samples[1].mhz));
		CHECK_U64(s.samples[1].disks[0].wr_sectors, 2208);
	}
	cm_tm_series_release(&s);
	/* a local run: fio's start is the controller's CLOCK_BOOTTIME */
	CHECK_INT(fcr_sampler_parse(raw, sizeof(raw) - 1, &devs, 100.5, NAN, &s, why, sizeof(why)),
		  0);
	CHECK(s.n == 3 && s.samples[1].t_ms == 520 && isnan(s.samples[1].unix_s));
	cm_tm_series_release(&s);
	CHECK_INT(
	    fcr_sampler_parse("@ 1\n/proc/stat:cpu 1\n", 19, &devs, NAN, NAN, &s, why, sizeof(why)),
	    -1);
	CHECK(strstr(why, "no complete sample") != NULL);
	cm_strv_release(&devs);
}

static struct cm_tm_sample sample_at(double t_ms, unsigned online, uint64_t user, uint64_t idle,
				     uint64_t iowait, uint64_t steal)
{
	struct cm_tm_sample s = {.t_ms = t_ms, .unix_s = NAN, .mhz = NAN};
	s.cpu = (struct cm_tm_cpu){.known = true,
				   .online = online,
				   .user = user,
				   .idle = idle,
				   .iowait = iowait,
				   .steal = steal};
	return s;
}

static void add_disk(struct cm_tm_sample *s, const char *name, uint64_t rd_sectors,
		     uint64_t wr_sectors)
{
	struct cm_tm_disk *d = &s->disks[s->n_disks++];
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->rd_sectors = rd_sectors;
	d->wr_sectors = wr_sectors;
}

static void add_psi(struct cm_tm_sample *s, const char *resource, uint64_t some_us)
{
	struct cm_tm_psi *p = &s->psi[s->n_psi++];
	snprintf(p->resource, sizeof(p->resource), "%s", resource);
	p->some_us = some_us;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Steal and foreign I/O over a run: a 32-bit diskstats counter that wraps,
 * and a CPU that goes offline (the aggregate line drops: that interval is
 * left out). */
static void test_summary(void)
{
	struct cm_tm_sample v[4];
	/* 4 CPUs, 100 ticks each a second: 400 ticks per interval */
	v[0] = sample_at(0, 4, 1000, 5000, 100, 200);
	v[1] = sample_at(1000, 4, 1200, 5120, 120, 260); /* steal 60/400 */
	/* cpu3 went offline: its ticks leave the sum, counters drop */
	v[2] = sample_at(2000, 3, 1100, 4900, 110, 250);
	v[3] = sample_at(3000, 3, 1250, 5020, 125, 265); /* steal 15/300 */
	/* the device's write sectors wrap at 2^32 between samples 1 and 2 */
	add_disk(&v[0], "loop0", 0, 4294967296ULL - 4096);
	add_disk(&v[1], "loop0", 0, 4294967296ULL - 2048);
	add_disk(&v[2], "loop0", 0, 2048);
	add_disk(&v[3], "loop0", 0, 4096);
	for (int i = 0; i < 4; i++)
		add_psi(&v[i], "io", 250000ULL * (unsigned)i); /* 25 % of each second */
	v[0].mhz = 2000;
	v[3].mhz = 3000;
	struct cm_tm_series s = {.n = 4, .samples = v};
	/* the device moved 8192 sectors = 4 MiB; fio 1 MiB of them */
	json_t *o = fcr_telemetry_summary(&s, "loop0", 1048576, 0.05, 0.05);
	CHECK_DBL(num(o, "steal"), (60.0 + 15.0) / 700.0, 1e-5);
	CHECK_DBL(num(o, "iowait"), (20.0 + 15.0) / 700.0, 1e-5);
	CHECK_DBL(num(o, "busy"), (200.0 + 150.0) / 700.0, 1e-5);
	CHECK(json_is_true(json_object_get(o, "cpus_changed")));
	CHECK_DBL(num(o, "device_bytes"), 8192.0 * 512, 1e-12);
	CHECK_DBL(num(o, "foreign_io"), 0.75, 1e-9);
	CHECK_DBL(num(o, "psi_io_some"), 0.25, 1e-9);
	CHECK(json_is_null(json_object_get(o, "psi_cpu_some")));
	CHECK_DBL(num(o, "mhz"), 2500, 1e-9);
	CHECK_DBL(num(o, "seconds"), 3, 1e-9);
	CHECK_INT(json_integer_value(json_object_get(o, "samples")), 4);
	CHECK_STR(json_string_value(json_object_get(o, "disturbed")),
		  "steal 10.7% > 5%; foreign I/O 75.0% > 5%");
	json_decref(o);

	/* criteria off: never disturbed; fio moved more than the device
	 * (a cache): no foreign I/O */
	o = fcr_telemetry_summary(&s, "loop0", 1e9, NAN, NAN);
	CHECK(json_is_null(json_object_get(o, "disturbed")));
	CHECK_DBL(num(o, "foreign_io"), 0, 1e-12);
	json_decref(o);

	/* a device counter that went back (removed and added again): the
	 * device's bytes are unknown, and so is the foreign share */
	v[2].disks[0].wr_sectors = 8ULL << 32;
	v[3].disks[0].wr_sectors = 1;
	o = fcr_telemetry_summary(&s, "loop0", 1048576, 0.05, 0.05);
	CHECK(json_is_null(json_object_get(o, "device_bytes")));
	CHECK(json_is_null(json_object_get(o, "foreign_io")));
	CHECK_STR(json_string_value(json_object_get(o, "disturbed")), "steal 10.7% > 5%");
	json_decref(o);

	/* no device (tmpfs), fio's bytes unknown, one sample only */
	s.n = 1;
	o = fcr_telemetry_summary(&s, NULL, NAN, 0.05, 0.05);
	CHECK(json_is_null(json_object_get(o, "steal")));
	CHECK(json_is_null(json_object_get(o, "device")));
	CHECK(json_is_null(json_object_get(o, "foreign_io")));
	CHECK(json_is_null(json_object_get(o, "fio_bytes")));
	CHECK(json_is_null(json_object_get(o, "disturbed")));
	CHECK(json_is_false(json_object_get(o, "cpus_changed")));
	json_decref(o);
}

int main(void)
{
	test_parse();
	test_parse_nothing();
	test_sampler_parse();
	test_summary();
	return check_exit();
}
