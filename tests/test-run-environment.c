/* SPDX-License-Identifier: MIT */
/* Unit tests of fiocamp-run's environment capture (the parser of its
 * script's lines) and of the telemetry summary of a run, on recorded
 * samples. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/environment.h"

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

int main(void)
{
	test_parse();
	test_parse_nothing();
	return check_exit();
}
