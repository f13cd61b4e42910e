/* SPDX-License-Identifier: MIT */
/* The target's environment: one script gathers it, a parser reads it
 * (environment.h says what is captured). */
#include "machine/environment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ENV_OUTPUT_MAX (1024 * 1024)

/*
 * Arguments: pairs of "dir DIRECTORY" or "dev DEVICE", one per place.
 * Prints one fact a line, its fields separated by tabs, an empty field for
 * what could not be read:
 *   KEY VALUE                 host facts (hostname, kernel, os, cpu_model,
 *                             cpus, mem_kib, virt, dmi_vendor, dmi_product,
 *                             hypervisor 0|1, fio, thp, governor)
 *   place K                   the facts of place K follow
 *   fs MAJ:MIN TYPE OPTIONS SUPER_OPTIONS SOURCE MOUNTPOINT
 *   top NAME                  the device the place is on
 *   dev NAME KIND MODEL SECTORS ROTATIONAL SCHEDULER NR_REQUESTS
 *       READ_AHEAD_KB WRITE_CACHE BACKING_FILE DM_NAME UNDER...
 *   backing NAME <an fs line's fields>   a loop device's backing file's
 *                             file system
 * Functions in parentheses run in a subshell: their variables are their
 * own (POSIX sh has no `local`), which walk()'s recursion needs.
 */
static const char env_script[] =
    "r() { v=; { read -r v < \"$1\"; } 2>/dev/null; printf '%s' \"$v\"; }\n"
    "T=$(printf '\\t')\n"
    "echo \"hostname$T$(uname -n 2>/dev/null)\"\n"
    "echo \"kernel$T$(uname -r 2>/dev/null)\"\n"
    "sed -n \"s/^PRETTY_NAME=/os$T/p\" /etc/os-release 2>/dev/null | head -n 1\n"
    "sed -n \"s/^model name[[:space:]]*: */cpu_model$T/p\" /proc/cpuinfo 2>/dev/null | head -n "
    "1\n"
    "echo \"cpus$T$(getconf _NPROCESSORS_ONLN 2>/dev/null)\"\n"
    "sed -n \"s/^MemTotal: *\\([0-9]*\\).*/mem_kib$T\\1/p\" /proc/meminfo 2>/dev/null\n"
    "command -v systemd-detect-virt >/dev/null 2>&1 && "
    "echo \"virt$T$(systemd-detect-virt 2>/dev/null)\"\n"
    "echo \"dmi_vendor$T$(r /sys/class/dmi/id/sys_vendor)\"\n"
    "echo \"dmi_product$T$(r /sys/class/dmi/id/product_name)\"\n"
    "if grep -q '^flags' /proc/cpuinfo 2>/dev/null; then\n"
    "  if grep -q '^flags.* hypervisor' /proc/cpuinfo; then echo \"hypervisor${T}1\"; "
    "else echo \"hypervisor${T}0\"; fi\n"
    "fi\n"
    "echo \"fio$T$(fio --version 2>/dev/null | head -n 1)\"\n"
    "echo \"thp$T$(r /sys/kernel/mm/transparent_hugepage/enabled)\"\n"
    "echo \"governor$T$(r /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)\"\n"
    /* the mount holding $1, from mountinfo (findmnt is not everywhere) */
    "fsline() (\n"
    "  m=$(stat -c %m -- \"$1\" 2>/dev/null)\n"
    "  [ -n \"$m\" ] || m=$(df -P -- \"$1\" 2>/dev/null | awk 'NR==2 {print $NF}')\n"
    "  [ -n \"$m\" ] || exit 0\n"
    "  awk -v m=\"$m\" '{ mp = $5; gsub(/\\\\040/, \" \", mp); if (mp != m) next;"
    " for (i = 7; i < NF && $i != \"-\"; i++) ;"
    " l = $3 \"\\t\" $(i+1) \"\\t\" $6 \"\\t\" $(i+3) \"\\t\" $(i+2) \"\\t\" $5 }"
    " END { if (l != \"\") print l }' /proc/self/mountinfo 2>/dev/null\n"
    ")\n"
    "mm() { set -- $(stat -L -c '%t %T' -- \"$1\" 2>/dev/null) && [ $# = 2 ] && "
    "printf '%d:%d' \"0x$1\" \"0x$2\"; }\n"
    /* the name in /sys/class/block of a device number, or of a device node */
    "byname() { n=$(readlink -f \"/sys/dev/block/$1\" 2>/dev/null) && [ -e \"$n\" ] && "
    "printf '%s' \"${n##*/}\"; }\n"
    "nameof() { byname \"$1\" || { [ -b \"$2\" ] && byname \"$(mm \"$2\")\"; }; }\n"
    "walk() (\n"
    "  [ \"$2\" -lt 12 ] || exit 0\n"
    "  b=/sys/class/block/$1; [ -e \"$b\" ] || exit 0\n"
    "  kind=disk; under=; bf=\n"
    "  if [ -e \"$b/partition\" ]; then kind=partition; p=$(readlink -f \"$b\"); p=${p%/*}; "
    "under=${p##*/}\n"
    "  elif [ -d \"$b/dm\" ]; then kind=dm\n"
    "  elif [ -d \"$b/md\" ]; then kind=md\n"
    "  elif [ -d \"$b/loop\" ]; then kind=loop; bf=$(r \"$b/loop/backing_file\")\n"
    "  elif [ ! -e \"$b/device\" ]; then kind=other\n"
    "  fi\n"
    "  for s in \"$b\"/slaves/*; do [ -e \"$s\" ] && under=\"$under ${s##*/}\"; done\n"
    "  if [ -n \"$bf\" ]; then l=$(fsline \"$bf\"); if [ -n \"$l\" ]; then "
    "echo \"backing$T$1$T$l\"; n=$(nameof \"${l%%\"$T\"*}\" \"$(echo \"$l\" | cut -f5)\") && "
    "under=\"$under $n\"; fi; fi\n"
    "  q=$b/queue; model=$(r \"$b/device/model\")\n"
    "  printf 'dev\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\t%s\\n' \"$1\" $kind "
    "\"$model\" \"$(r \"$b/size\")\" \"$(r \"$q/rotational\")\" \"$(r \"$q/scheduler\")\" "
    "\"$(r \"$q/nr_requests\")\" \"$(r \"$q/read_ahead_kb\")\" \"$(r \"$q/write_cache\")\" "
    "\"$bf\" \"$(r \"$b/dm/name\")\" \"${under# }\"\n"
    "  for u in $under; do walk \"$u\" $(($2 + 1)); done\n"
    ")\n"
    "k=0\n"
    "while [ $# -ge 2 ]; do\n"
    "  echo \"place$T$k\"\n"
    "  if [ \"$1\" = dev ]; then t=$(byname \"$(mm \"$2\")\")\n"
    "  else l=$(fsline \"$2\"); t=\n"
    "    if [ -n \"$l\" ]; then echo \"fs$T$l\"; t=$(nameof \"${l%%\"$T\"*}\" \"$(echo \"$l\" | "
    "cut -f5)\"); fi\n"
    "  fi\n"
    "  if [ -n \"$t\" ]; then echo \"top$T$t\"; walk \"$t\" 0; fi\n"
    "  k=$((k + 1)); shift 2\n"
    "done\n"
    "exit 0\n";

/* The fields of a line split on tabs, empty ones kept. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	for (char *p = line; n < max;) {
		f[n++] = p;
		char *tab = strchr(p, '\t');
		if (!tab)
			break;
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

/* The text with its blanks trimmed, or null when nothing is left. */
static json_t *text_or_null(char *s)
{
	if (!s)
		return json_null();
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return n ? fcr_jtext(s) : json_null();
}

/* A whole decimal number, else null. */
static json_t *int_or_null(const char *s)
{
	if (!s || *s < '0' || *s > '9')
		return json_null();
	char *end;
	long long v = strtoll(s, &end, 10);
	while (*end == ' ')
		end++;
	return *end ? json_null() : json_integer(v);
}

/* "always [madvise] never" -> "madvise"; a word alone (a scheduler "none")
 * is itself. */
static json_t *bracketed(char *s)
{
	char *open = s ? strchr(s, '[') : NULL;
	char *close = open ? strchr(open, ']') : NULL;
	if (open && close) {
		*close = '\0';
		return text_or_null(open + 1);
	}
	if (s && *s && !strchr(s, ' '))
		return text_or_null(s);
	return json_null();
}

/* An fs line's fields (MAJ:MIN TYPE OPTIONS SUPER SOURCE MOUNTPOINT): the
 * manifest's filesystem object.  The options are the mount's and then the
 * file system's own, as findmnt's OPTIONS has them. */
static json_t *filesystem(char **f, size_t n)
{
	if (n < 6)
		return json_null();
	for (size_t i = 0; i < 6; i++)
		fcr_unescape_octal(f[i]);
	struct cm_buf opts = {0};
	cm_buf_puts(&opts, f[2]);
	char *save = NULL;
	for (char *o = strtok_r(f[3], ",", &save); o; o = strtok_r(NULL, ",", &save)) {
		if (!strcmp(o, "rw") || !strcmp(o, "ro"))
			continue;
		cm_buf_printf(&opts, "%s%s", opts.len ? "," : "", o);
	}
	json_t *fs = json_object();
	json_object_set_new(fs, "type", text_or_null(f[1]));
	json_object_set_new(fs, "options", opts.len ? fcr_jtext(opts.s) : json_null());
	json_object_set_new(fs, "source", text_or_null(f[4]));
	json_object_set_new(fs, "mountpoint", text_or_null(f[5]));
	cm_buf_release(&opts);
	return fs;
}

static json_t *device(char **f, size_t n)
{
	/* dev NAME KIND MODEL SECTORS ROT SCHED NR RA WC BACKING DM_NAME UNDER */
	char *empty = "";
	char *v[13];
	for (size_t i = 0; i < 13; i++)
		v[i] = i < n ? f[i] : empty;
	json_t *d = json_object();
	json_object_set_new(d, "name", text_or_null(v[1]));
	json_object_set_new(d, "kind", text_or_null(v[2]));
	json_object_set_new(d, "model", text_or_null(v[3]));
	json_t *sectors = int_or_null(v[4]);
	json_object_set_new(d, "size_bytes",
			    json_is_integer(sectors)
				? json_integer(json_integer_value(sectors) * 512)
				: json_null());
	json_decref(sectors);
	json_object_set_new(d, "rotational",
			    !strcmp(v[5], "1")	 ? json_true()
			    : !strcmp(v[5], "0") ? json_false()
						 : json_null());
	json_object_set_new(d, "scheduler", bracketed(v[6]));
	json_object_set_new(d, "nr_requests", int_or_null(v[7]));
	json_object_set_new(d, "read_ahead_kb", int_or_null(v[8]));
	json_object_set_new(d, "write_cache", text_or_null(v[9]));
	json_object_set_new(d, "backing_file", text_or_null(v[10]));
	if (*v[11])
		json_object_set_new(d, "dm_name", text_or_null(v[11]));
	json_t *under = json_array();
	char *save = NULL;
	for (char *u = strtok_r(v[12], " ", &save); u; u = strtok_r(NULL, " ", &save))
		json_array_append_new(under, fcr_jtext(u));
	json_object_set_new(d, "under", under);
	return d;
}

/* systemd-detect-virt's word; else what the DMI vendor and product name
 * tell, else the CPU's hypervisor flag: "none" without it, "other" with it
 * and a vendor we do not know; null when nothing was readable. */
static json_t *virtualization(const char *virt, const char *vendor, const char *product,
			      const char *flag)
{
	if (virt && *virt)
		return fcr_jtext(virt);
	static const struct {
		const char *in, *name;
	} known[] = {
	    {"QEMU", "qemu"},		{"KVM", "kvm"},
	    {"VMware", "vmware"},	{"VirtualBox", "oracle"},
	    {"innotek", "oracle"},	{"Xen", "xen"},
	    {"Microsoft", "microsoft"}, {"Amazon EC2", "amazon"},
	    {"Google", "google"},	{"Bochs", "bochs"},
	    {"Parallels", "parallels"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(known); i++) {
		if ((product && strstr(product, known[i].in)) ||
		    (vendor && strstr(vendor, known[i].in)))
			return json_string(known[i].name);
	}
	if (flag && !strcmp(flag, "1"))
		return json_string("other");
	if (flag && !strcmp(flag, "0"))
		return json_string("none");
	return json_null();
}

json_t *fcr_environment_parse(char *text, const char *const *variants, const char *const *paths,
			      size_t n_places)
{
	json_t *host = json_object();
	static const char *const host_keys[] = {
	    "hostname", "kernel",	  "os",		 "cpu_model", "cpus",
	    "mem_kib",	"virtualization", "fio_version", "thp",	      "governor"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(host_keys); i++)
		json_object_set_new(host, host_keys[i], json_null());
	json_t *places = json_array();
	for (size_t k = 0; k < n_places; k++) {
		json_t *p = json_object();
		json_object_set_new(p, "variant",
				    variants[k] ? fcr_jtext(variants[k]) : json_null());
		json_object_set_new(p, "path", fcr_jtext(paths[k]));
		json_object_set_new(p, "filesystem", json_null());
		json_object_set_new(p, "devices", json_array());
		json_array_append_new(places, p);
	}
	char *virt = NULL, *vendor = NULL, *product = NULL, *flag = NULL;
	json_t *place = NULL;
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[16];
		size_t n = split_tabs(line, f, CM_ARRAY_SIZE(f));
		if (n < 2)
			continue;
		const char *key = f[0];
		if (!strcmp(key, "place")) {
			char *end;
			unsigned long k = strtoul(f[1], &end, 10);
			place = *end || k >= n_places ? NULL : json_array_get(places, k);
		} else if (!strcmp(key, "fs") && place) {
			json_object_set_new(place, "filesystem", filesystem(f + 1, n - 1));
		} else if (!strcmp(key, "dev") && place) {
			json_t *devs = json_object_get(place, "devices");
			json_t *d = device(f, n);
			bool seen = false;
			for (size_t i = 0; i < json_array_size(devs); i++)
				seen |= json_equal(json_object_get(json_array_get(devs, i), "name"),
						   json_object_get(d, "name"));
			if (seen || json_array_size(devs) >= FCR_ENV_DEVICES_MAX)
				json_decref(d);
			else
				json_array_append_new(devs, d);
		} else if (!strcmp(key, "backing") && place) {
			/* attached to its loop device, printed after this line */
			json_t *pending = json_object_get(place, "backing");
			if (!pending) {
				pending = json_object();
				json_object_set_new(place, "backing", pending);
			}
			json_object_set_new(pending, f[1], filesystem(f + 2, n - 2));
		} else if (!strcmp(key, "top") || !strcmp(key, "place")) {
			continue;
		} else if (!strcmp(key, "virt")) {
			virt = f[1];
		} else if (!strcmp(key, "dmi_vendor")) {
			vendor = f[1];
		} else if (!strcmp(key, "dmi_product")) {
			product = f[1];
		} else if (!strcmp(key, "hypervisor")) {
			flag = f[1];
		} else if (!strcmp(key, "cpus") || !strcmp(key, "mem_kib")) {
			json_object_set_new(host, key, int_or_null(f[1]));
		} else if (!strcmp(key, "thp")) {
			json_object_set_new(host, "thp", bracketed(f[1]));
		} else if (!strcmp(key, "fio")) {
			json_object_set_new(host, "fio_version", text_or_null(f[1]));
		} else if (!strcmp(key, "os")) {
			char *s = f[1];
			size_t len = strlen(s);
			if (len >= 2 && (s[0] == '"' || s[0] == '\'') && s[len - 1] == s[0]) {
				s[len - 1] = '\0';
				s++;
			}
			json_object_set_new(host, "os", text_or_null(s));
		} else if (!strcmp(key, "hostname") || !strcmp(key, "kernel") ||
			   !strcmp(key, "cpu_model") || !strcmp(key, "governor")) {
			json_object_set_new(host, key, text_or_null(f[1]));
		}
	}
	json_object_set_new(host, "virtualization", virtualization(virt, vendor, product, flag));
	/* a loop device's backing file's file system goes to the device */
	for (size_t k = 0; k < n_places; k++) {
		json_t *p = json_array_get(places, k);
		json_t *backing = json_object_get(p, "backing");
		json_t *devs = json_object_get(p, "devices");
		for (size_t i = 0; backing && i < json_array_size(devs); i++) {
			json_t *d = json_array_get(devs, i);
			json_t *fs = json_object_get(backing, fcr_jstr(d, "name"));
			if (fs)
				json_object_set(d, "backing_filesystem", fs);
		}
		json_object_del(p, "backing");
	}
	return json_pack("{s:o, s:o}", "host", host, "places", places);
}

json_t *fcr_environment_capture(struct fcr_target *t)
{
	struct cm_strv argv = {0}, paths = {0};
	cm_strv_add(&argv, "sh");
	cm_strv_add(&argv, "-c");
	cm_strv_add(&argv, env_script);
	cm_strv_add(&argv, "sh");
	/* NULL entries: cm_strv keeps them as given */
	const char *names[FCR_ENV_DEVICES_MAX * 4];
	size_t n = 0;
	struct fcr_place places[FCR_VARIANTS_MAX];
	size_t np = fcr_target_places(t, places);
	for (size_t i = 0; i < np && n < CM_ARRAY_SIZE(names); i++) {
		const struct fcr_place *p = &places[i];
		cm_strv_add(&argv, p->directory ? "dir" : "dev");
		cm_strv_add(&argv, p->directory ? p->directory : p->test_file);
		names[n++] = p->variant ? p->variant->name : NULL;
		cm_strv_add(&paths, p->test_file);
	}
	struct fcr_capture cap;
	struct fcr_error err = {0};
	json_t *env;
	if (fcr_target_exec(t, argv.v, NULL, 0, &cap, &err) < 0) {
		env = fcr_environment_parse((char[]){""}, names, (const char *const *)paths.v, n);
		fcr_jset_text(env, "error", err.msg);
	} else {
		if (cap.out_len >= ENV_OUTPUT_MAX)
			cap.out[0] = '\0';
		env = fcr_environment_parse(cap.out, names, (const char *const *)paths.v, n);
		if (!fcr_exited_ok(cap.status)) {
			char st[64];
			fcr_describe_status(st, sizeof(st), cap.status);
			char *msg =
			    cm_asprintf("the capture's script ended with %s: %.200s", st, cap.err);
			fcr_jset_text(env, "error", msg);
			free(msg);
		}
		fcr_capture_release(&cap);
	}
	cm_strv_release(&argv);
	cm_strv_release(&paths);
	return env;
}

void fcr_environment_devices(json_t *env, const char *variant, struct cm_strv *out)
{
	json_t *places = json_object_get(env, "places");
	for (size_t k = 0; k < json_array_size(places); k++) {
		json_t *p = json_array_get(places, k);
		const char *v = fcr_jstr(p, "variant");
		if (variant ? !v || strcmp(v, variant) : v != NULL)
			continue;
		json_t *devs = json_object_get(p, "devices");
		for (size_t i = 0; i < json_array_size(devs) && out->n < FCR_ENV_DEVICES_MAX; i++) {
			json_t *d = json_array_get(devs, i);
			const char *name = fcr_jstr(d, "name");
			/* the top device, then the bottom of its chain */
			if (name && (i == 0 || json_array_size(json_object_get(d, "under")) == 0))
				cm_strv_add(out, name);
		}
		return;
	}
}

/* json_equal() says two absent values differ */
static bool same_value(json_t *a, json_t *b)
{
	return (!a && !b) || (a && b && json_equal(a, b));
}

bool fcr_environment_same(json_t *a, json_t *b)
{
	static const char *const keys[] = {"host", "places", "error"};
	if (!a || !b)
		return false;
	for (size_t i = 0; i < CM_ARRAY_SIZE(keys); i++)
		if (!same_value(json_object_get(a, keys[i]), json_object_get(b, keys[i])))
			return false;
	return true;
}
