/* SPDX-License-Identifier: MIT */
/*
 * The telemetry samples (cmd/common/telemetry.h): the kernel's files as a
 * 2-vCPU VM with steal printed them, kernels of other ages (diskstats of 11,
 * 15 and 17 counters, no full line of cpu pressure, no "cpu MHz"), a CPU
 * taken offline between two samples, a 32-bit diskstats counter that
 * wrapped, and the telemetry file written and read back.  The shares are
 * worked by hand from the counters.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "common/telemetry.h"

/* Read off this kind of VM: two vCPUs with steal. */
static const char proc_stat[] = "cpu  153594 2903 37572 51840 992 0 4192 1613 0 0\n"
				"cpu0 77744 1743 18225 27537 283 0 56 714 0 0\n"
				"cpu1 75850 1160 19346 24302 708 0 4136 899 0 0\n"
				"intr 1234 0 0\n"
				"ctxt 99\n";

static const char diskstats[] =
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    " 254       0 vda 9923355 13924 86000010 3693248 12694911 149291 143331784 3203007 0 "
    "292720 6923155 118223 29 5558064 22399 32965 4499\n"
    " 254       1 vda1 9920000 13900 85990000 3690000 12690000 149000 143300000 3200000 0 "
    "292000 6920000 118000 29 5550000 22000 32900 4400\n"
    /* a kernel before 4.18: 11 counters, no discards */
    "   8      16 sdb 100 0 800 10 200 0 1600 20 0 30 30\n";

static void test_proc_stat(void)
{
	struct cm_tm_cpu c;
	char why[128] = "";
	CHECK_INT(cm_tm_read_proc_stat(proc_stat, &c, why, sizeof(why)), 0);
	CHECK(c.known);
	CHECK_INT(c.online, 2);
	CHECK_INT(c.user, 153594);
	CHECK_INT(c.idle, 51840);
	CHECK_INT(c.iowait, 992);
	CHECK_INT(c.softirq, 4192);
	CHECK_INT(c.steal, 1613);

	/* a kernel before 2.6.11 prints four counters */
	CHECK_INT(cm_tm_read_proc_stat("cpu  10 0 5 85\ncpu0 10 0 5 85\n", &c, why, sizeof(why)),
		  0);
	CHECK_INT(c.idle, 85);
	CHECK_INT(c.steal, 0);
	CHECK_INT(cm_tm_read_proc_stat("intr 1\n", &c, why, sizeof(why)), -1);
	CHECK_STR(why, "/proc/stat: no cpu line");
	CHECK_INT(cm_tm_read_proc_stat("cpu  10 x 5 85\n", &c, why, sizeof(why)), -1);
	CHECK(strstr(why, "not a line of counters") != NULL);
	CHECK(!c.known);
}

static void test_diskstats(void)
{
	struct cm_tm_disk d;
	char why[128] = "";
	CHECK_INT(cm_tm_read_diskstats(diskstats, "vda", &d, why, sizeof(why)), 0);
	CHECK_STR(d.name, "vda");
	CHECK_INT(d.rd_ios, 9923355);
	CHECK_INT(d.rd_sectors, 86000010);
	CHECK_INT(d.wr_ios, 12694911);
	CHECK_INT(d.wr_sectors, 143331784);
	CHECK_INT(d.io_ms, 292720);
	CHECK_INT(d.dc_ios, 118223);
	CHECK_INT(d.dc_sectors, 5558064);
	/* vda1 is its own line, not vda's */
	CHECK_INT(cm_tm_read_diskstats(diskstats, "vda1", &d, why, sizeof(why)), 0);
	CHECK_INT(d.rd_ios, 9920000);
	CHECK_INT(cm_tm_read_diskstats(diskstats, "sdb", &d, why, sizeof(why)), 0);
	CHECK_INT(d.wr_sectors, 1600);
	CHECK_INT(d.io_ms, 30);
	CHECK_INT(d.dc_sectors, 0);
	CHECK_INT(cm_tm_read_diskstats(diskstats, "vd", &d, why, sizeof(why)), 1);
	CHECK_INT(cm_tm_read_diskstats(diskstats, "nvme0n1", &d, why, sizeof(why)), 1);
	CHECK_INT(cm_tm_read_diskstats("   8 0 sda 1 2 3\n", "sda", &d, why, sizeof(why)), -1);
	CHECK(strstr(why, "sda has 3 counters") != NULL);
}

static void test_pressure_and_mhz(void)
{
	struct cm_tm_psi p;
	char why[128] = "";
	CHECK_INT(cm_tm_read_pressure("some avg10=0.62 avg60=2.10 avg300=3.32 total=31829429\n"
				      "full avg10=0.39 avg60=0.92 avg300=0.50 total=6817647\n",
				      "io", &p, why, sizeof(why)),
		  0);
	CHECK_STR(p.resource, "io");
	CHECK_INT(p.some_us, 31829429);
	CHECK(p.full_known);
	CHECK_INT(p.full_us, 6817647);
	/* cpu pressure before 5.13: no full line */
	CHECK_INT(cm_tm_read_pressure("some avg10=36.66 avg60=39.51 avg300=64.38 total=834802706\n",
				      "cpu", &p, why, sizeof(why)),
		  0);
	CHECK(!p.full_known);
	CHECK_INT(cm_tm_read_pressure("", "io", &p, why, sizeof(why)), -1);
	CHECK_STR(why, "/proc/pressure/io: no some line");
	CHECK_INT(cm_tm_read_pressure("some avg10=1 total=x\n", "io", &p, why, sizeof(why)), -1);

	CHECK_DBL(cm_tm_read_cpuinfo_mhz("processor\t: 0\ncpu MHz\t\t: 2299.998\n"
					 "processor\t: 1\ncpu MHz\t\t: 2400.002\n"),
		  2350, 1e-12);
	CHECK(isnan(cm_tm_read_cpuinfo_mhz("processor\t: 0\nBogoMIPS\t: 50.00\n")));
}

static void test_cpu_between(void)
{
	struct cm_tm_cpu a = {.known = true,
			      .online = 2,
			      .user = 1000,
			      .system = 200,
			      .idle = 700,
			      .iowait = 50,
			      .steal = 50};
	/* 1000 ticks pass: 600 user, 100 system, 150 idle, 50 iowait, 100 steal */
	struct cm_tm_cpu b = a;
	b.user += 600;
	b.system += 100;
	b.idle += 150;
	b.iowait += 50;
	b.steal += 100;
	struct cm_tm_cpu_share s = cm_tm_cpu_between(&a, &b);
	CHECK(s.known);
	CHECK_DBL(s.steal, 0.10, 1e-12);
	CHECK_DBL(s.iowait, 0.05, 1e-12);
	CHECK_DBL(s.busy, 0.70, 1e-12);
	CHECK(!s.cpus_changed);

	/* a CPU taken offline: the aggregate idle went back; unknown, not negative */
	struct cm_tm_cpu off = b;
	off.online = 1;
	off.idle = a.idle - 10;
	s = cm_tm_cpu_between(&a, &off);
	CHECK(!s.known);
	CHECK(isnan(s.steal));
	/* a CPU taken offline with every counter still rising: known, and said */
	off.idle = b.idle;
	s = cm_tm_cpu_between(&a, &off);
	CHECK(s.known);
	CHECK(s.cpus_changed);
	/* no time passed, or a sample without the line */
	s = cm_tm_cpu_between(&a, &a);
	CHECK(!s.known);
	struct cm_tm_cpu none = {0};
	CHECK(!cm_tm_cpu_between(&a, &none).known);
}

static void test_counters_and_foreign(void)
{
	uint64_t d = 0;
	CHECK(cm_tm_counter_delta(10, 25, true, &d));
	CHECK_INT(d, 15);
	/* a 32-bit kernel's counter wrapped: 4294967290 -> 4 is 10 */
	CHECK(cm_tm_counter_delta(4294967290u, 4, true, &d));
	CHECK_INT(d, 10);
	/* a 64-bit counter that went back is a reset, not a wrap */
	CHECK(!cm_tm_counter_delta(UINT64_C(5000000000), 4, true, &d));
	CHECK(!cm_tm_counter_delta(4294967290u, 4, false, &d));

	/* 100 MiB on the device, 80 MiB of them fio's: 20 % foreign */
	CHECK_DBL(cm_tm_foreign_share(100u << 20, 80u << 20), 0.20, 1e-12);
	CHECK_DBL(cm_tm_foreign_share(100u << 20, 100u << 20), 0, 0);
	/* the page cache served part of fio's reads */
	CHECK_DBL(cm_tm_foreign_share(10u << 20, 80u << 20), 0, 0);
	CHECK(isnan(cm_tm_foreign_share(0, 4096)));

	struct cm_tm_sample a = {.n_disks = 1}, b = {.n_disks = 1};
	snprintf(a.disks[0].name, sizeof(a.disks[0].name), "loop7");
	b.disks[0] = a.disks[0];
	a.disks[0].rd_sectors = 4294967200u; /* wraps on its way to b */
	b.disks[0].rd_sectors = 104;
	a.disks[0].wr_sectors = 1000;
	b.disks[0].wr_sectors = 3000;
	uint64_t bytes = 0;
	CHECK(cm_tm_disk_bytes_between(&a, &b, "loop7", &bytes));
	CHECK_INT(bytes, (200 + 2000) * 512);
	CHECK(!cm_tm_disk_bytes_between(&a, &b, "loop8", &bytes));
}

static void test_file(void)
{
	struct cm_tm_sample s[2];
	memset(s, 0, sizeof(s));
	s[0].t_ms = 0;
	s[0].unix_s = 1764655200.125;
	s[0].mhz = 2300;
	char why[128] = "";
	CHECK_INT(cm_tm_read_proc_stat(proc_stat, &s[0].cpu, why, sizeof(why)), 0);
	CHECK_INT(cm_tm_read_diskstats(diskstats, "vda", &s[0].disks[0], why, sizeof(why)), 0);
	s[0].n_disks = 1;
	CHECK_INT(cm_tm_read_pressure("some avg10=0 avg60=0 avg300=0 total=7\n", "cpu",
				      &s[0].psi[0], why, sizeof(why)),
		  0);
	s[0].n_psi = 1;
	s[1] = s[0];
	s[1].t_ms = 1000;
	s[1].unix_s = NAN;
	s[1].mhz = NAN;
	s[1].cpu.steal += 40;
	s[1].disks[0].wr_sectors += 2048;

	struct cm_buf b = {0};
	cm_tm_write_header(&b);
	cm_tm_write_sample(&b, &s[0]);
	cm_tm_write_sample(&b, &s[1]);
	CHECK_STR(b.s, "fiocamp-telemetry 1\n"
		       "T 0 1764655200.125\n"
		       "cpu 2 153594 2903 37572 51840 992 0 4192 1613\n"
		       "disk vda 9923355 86000010 12694911 143331784 118223 5558064 292720\n"
		       "psi cpu 7 -\n"
		       "mhz 2300.0\n"
		       "T 1000 -\n"
		       "cpu 2 153594 2903 37572 51840 992 0 4192 1653\n"
		       "disk vda 9923355 86000010 12694911 143333832 118223 5558064 292720\n"
		       "psi cpu 7 -\n");

	/* read back, with a line kind of a later version in between */
	cm_buf_puts(&b, "net eth0 1 2\nT 2000 -\n");
	struct cm_tm_series series;
	CHECK_INT(cm_tm_parse(b.s, b.len, &series, why, sizeof(why)), 0);
	CHECK_INT(series.n, 3);
	CHECK_DBL(series.samples[0].unix_s, 1764655200.125, 1e-15);
	CHECK(isnan(series.samples[1].unix_s));
	CHECK_INT(series.samples[1].cpu.steal, 1653);
	CHECK_INT(series.samples[1].disks[0].wr_sectors, 143333832);
	CHECK_DBL(series.samples[0].mhz, 2300, 0);
	CHECK(isnan(series.samples[1].mhz));
	CHECK(!series.samples[0].psi[0].full_known);
	CHECK(!series.samples[2].cpu.known);
	uint64_t bytes = 0;
	CHECK(cm_tm_disk_bytes_between(&series.samples[0], &series.samples[1], "vda", &bytes));
	CHECK_INT(bytes, 2048 * 512);
	cm_tm_series_release(&series);
	cm_buf_release(&b);

	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"", "line 1: not \"fiocamp-telemetry 1\""},
	    {"fiocamp-telemetry 2\n", "line 1: not \"fiocamp-telemetry 1\""},
	    {"fiocamp-telemetry 1\ncpu 1 1 1 1 1 1 1 1 1\n",
	     "line 2: a sample's lines come after its T line"},
	    {"fiocamp-telemetry 1\nT 5 -\nT 4 -\n", "line 3: time goes back (4 ms after 5)"},
	    {"fiocamp-telemetry 1\nT 5\n", "line 2: a T line is MS and UNIX_S (or -)"},
	    {"fiocamp-telemetry 1\nT 5 -\ncpu 1 1 1\n",
	     "line 3: a cpu line is ONLINE and 8 counters"},
	    {"fiocamp-telemetry 1\nT 5 -\ndisk vda 1 2 3 4 5 6 -7\n",
	     "line 3: a disk line is NAME and 7 counters, at most 16 disks a sample"},
	    {"fiocamp-telemetry 1\nT 5 -\npsi io x -\n",
	     "line 3: a psi line is RESOURCE SOME_US FULL_US (or -), at most 3 a sample"},
	    {"fiocamp-telemetry 1\nT 5 -\nmhz -1\n", "line 3: an mhz line is one number"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		CHECK_INT(cm_tm_parse(bad[i].text, strlen(bad[i].text), &series, why, sizeof(why)),
			  -1);
		CHECK_STR(why, bad[i].why);
		CHECK_INT(series.n, 0);
	}
	/* a NUL inside a line */
	const char nul[] = "fiocamp-telemetry 1\nT 5 -\ncpu\0 1\n";
	CHECK_INT(cm_tm_parse(nul, sizeof(nul) - 1, &series, why, sizeof(why)), -1);
	CHECK(strstr(why, "line 3:") != NULL);
}

int main(void)
{
	test_proc_stat();
	test_diskstats();
	test_pressure_and_mhz();
	test_cpu_between();
	test_counters_and_foreign();
	test_file();
	return check_exit();
}
