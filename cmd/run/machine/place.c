/* SPDX-License-Identifier: MIT */
/*
 * The variants' places, checked in the preflight on the target itself: a
 * directory is made and must hold the test file; a block device must be
 * one, be large enough, and be in no use by the system: neither it nor a
 * partition of it mounted (/proc/self/mountinfo, by device number), used as
 * swap (/proc/swaps) or held by the device mapper or a RAID (its holders in
 * /sys).  One script gathers the facts on a local and an ssh target alike;
 * fcr_place_judge() decides from them, so the decision is tested without
 * a spare disk.
 */
#include "machine/target.h"

#include <stdio.h>
#include <string.h>

#define FACTS_MAX_BYTES (1024 * 1024)

/*
 * $1: the device.  Prints one fact a line: missing, notblock, "dev M:m",
 * "size SECTORS", "part M:m NAME", "holder NAME", "mount M:m MOUNTPOINT"
 * for every mount, "swap M:m PATH" for every swap device.  stat(1)
 * prints the numbers in hex; printf makes them decimal, as mountinfo has
 * them.
 */
static const char facts_script[] =
    "d=$1\n"
    "[ -e \"$d\" ] || { echo missing; exit 0; }\n"
    "[ -b \"$d\" ] || { echo notblock; exit 0; }\n"
    "mm() { set -- $(stat -L -c '%t %T' -- \"$1\") && printf '%d:%d' \"0x$1\" \"0x$2\"; }\n"
    "dev=$(mm \"$d\") || exit 1\n"
    "echo \"dev $dev\"\n"
    "s=/sys/dev/block/$dev\n"
    "[ -r \"$s/size\" ] && echo \"size $(cat \"$s/size\")\"\n"
    "for p in \"$s\"/*/partition; do [ -e \"$p\" ] || continue; q=${p%/partition}; "
    "echo \"part $(cat \"$q/dev\") ${q##*/}\"; done\n"
    "for h in \"$s\"/holders/* \"$s\"/*/holders/*; do [ -e \"$h\" ] && echo \"holder "
    "${h##*/}\"; done\n"
    "awk '{print \"mount\", $3, $5}' /proc/self/mountinfo\n"
    "if [ -r /proc/swaps ]; then tail -n +2 /proc/swaps | while read -r f rest; do "
    "[ -b \"$f\" ] && echo \"swap $(mm \"$f\") $f\"; done; fi\n"
    "exit 0\n";

int fcr_place_judge(const char *device, char *facts, uint64_t need_bytes, struct fcr_error *err)
{
	/* the device and its partitions, by number, with their names */
	struct cm_strv nums = {0}, names = {0};
	char *save = NULL;
	uint64_t sectors = 0;
	bool have_size = false;
	int rc = 0;
	struct cm_strv lines = {0};
	for (char *l = strtok_r(facts, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		cm_strv_add(&lines, l);
	for (size_t i = 0; rc == 0 && i < lines.n; i++) {
		char *l = lines.v[i];
		if (!strcmp(l, "missing"))
			rc = fcr_fail(err, "%s does not exist", device);
		else if (!strcmp(l, "notblock"))
			rc = fcr_fail(err,
				      "%s is not a block device (a directory on a file system "
				      "goes in directory =)",
				      device);
		else if (!strncmp(l, "dev ", 4)) {
			cm_strv_add(&nums, l + 4);
			cm_strv_add(&names, device);
		} else if (!strncmp(l, "size ", 5)) {
			sectors = strtoull(l + 5, NULL, 10);
			have_size = true;
		} else if (!strncmp(l, "part ", 5)) {
			char *sp = strchr(l + 5, ' ');
			if (sp) {
				*sp = '\0';
				cm_strv_add(&nums, l + 5);
				cm_strv_addf(&names, "its partition %s", sp + 1);
			}
		} else if (!strncmp(l, "holder ", 7)) {
			rc = fcr_fail(err,
				      "%s is in use: %s holds it (device mapper, LVM, RAID or "
				      "an encrypted volume)",
				      device, l + 7);
		}
	}
	if (rc == 0 && nums.n == 0)
		rc = fcr_fail(err, "%s: no device number found (is stat(1) there?)", device);
	for (size_t i = 0; rc == 0 && i < lines.n; i++) {
		char *l = lines.v[i];
		bool mount = !strncmp(l, "mount ", 6), swap = !strncmp(l, "swap ", 5);
		if (!mount && !swap)
			continue;
		char *num = l + (mount ? 6 : 5);
		char *where = strchr(num, ' ');
		if (!where)
			continue;
		*where++ = '\0';
		fcr_unescape_octal(where);
		for (size_t k = 0; k < nums.n; k++) {
			if (strcmp(nums.v[k], num))
				continue;
			const char *who = k == 0 ? "" : names.v[k];
			if (mount)
				rc = fcr_fail(err,
					      "%s%s%s is mounted on %s: refused, a variant writes "
					      "over the whole device",
					      device, *who ? ": " : "", who, where);
			else
				rc = fcr_fail(err, "%s%s%s is used as swap (%s): refused", device,
					      *who ? ": " : "", who, where);
			break;
		}
	}
	if (rc == 0 && have_size && sectors * 512 < need_bytes) {
		char need[32];
		cm_format_size(need, sizeof(need), need_bytes);
		rc = fcr_fail(err, "%s holds %llu MiB, the variant's size is %s", device,
			      (unsigned long long)((sectors * 512) >> 20), need);
	}
	cm_strv_release(&lines);
	cm_strv_release(&nums);
	cm_strv_release(&names);
	return rc;
}

static int check_device(struct fcr_target *t, const struct fcr_variant *v, struct fcr_error *err)
{
	char *const argv[] = {"sh", "-c", (char *)facts_script, "sh", v->filename, NULL};
	struct fcr_capture cap;
	if (fcr_target_exec(t, argv, NULL, 0, &cap, err) < 0)
		return -1;
	int rc = 0;
	if (!fcr_exited_ok(cap.status))
		rc = fcr_fail(err, "variant %s: checking %s failed: %.200s", v->name, v->filename,
			      cap.err[0] ? cap.err : "(no message)");
	else if (cap.out_len >= FACTS_MAX_BYTES)
		rc = fcr_fail(err, "variant %s: more than %d bytes of device facts", v->name,
			      FACTS_MAX_BYTES);
	else if (fcr_place_judge(v->filename, cap.out, v->file_bytes, err) < 0) {
		rc = fcr_fail(err, "variant %s: %s", v->name, err->msg);
	}
	fcr_capture_release(&cap);
	return rc;
}

/*
 * A directory's place: mkdir -p, then the free space (plus what the test
 * file holds already) against `bytes`.  `who` ("variant NAME: ", or "" for
 * the campaign's directory) and `where` (how the directory is named) start
 * the messages.
 */
static int check_directory(struct fcr_target *t, const char *who, const char *where,
			   const char *directory, const char *test_file, uint64_t bytes,
			   struct fcr_error *err)
{
	static const char script[] = "mkdir -p -- \"$1\" && df -Pk -- \"$1\" | awk 'NR==2 "
				     "{print $4}' && (du -k -- \"$2\" 2>/dev/null | cut -f1 | "
				     "grep . || echo 0)";
	char *const argv[] = {
	    "sh", "-c", (char *)script, "sh", (char *)directory, (char *)test_file, NULL};
	struct fcr_capture cap;
	if (fcr_target_exec(t, argv, NULL, 0, &cap, err) < 0)
		return -1;
	int rc = 0;
	unsigned long long avail_k = 0, have_k = 0;
	if (!fcr_exited_ok(cap.status))
		rc = fcr_fail(err, "%scannot create %s: %.200s", who, where,
			      cap.err[0] ? cap.err : "(no message)");
	else if (sscanf(cap.out, "%llu %llu", &avail_k, &have_k) != 2)
		rc = fcr_fail(err, "%sunexpected answer of df on %s", who, where);
	else if ((avail_k + have_k) * 1024 < bytes) {
		char need[32];
		cm_format_size(need, sizeof(need), bytes);
		rc = fcr_fail(err, "%s%s: %llu MiB free, the test file needs %s", who, where,
			      avail_k >> 10, need);
	}
	fcr_capture_release(&cap);
	return rc;
}

int fcr_target_check_places(struct fcr_target *t, struct fcr_error *err)
{
	const struct fcr_campaign *c = t->c;
	struct fcr_place places[FCR_VARIANTS_MAX];
	size_t n = fcr_target_places(t, places);
	for (size_t i = 0; i < n; i++) {
		const struct fcr_place *p = &places[i];
		if (!p->directory) {
			if (check_device(t, p->variant, err) < 0)
				return -1;
			continue;
		}
		/* messages name a variant, or say where the campaign's directory is */
		char *who =
		    p->variant ? cm_asprintf("variant %s: ", p->variant->name) : cm_strdup("");
		char *where = p->variant || c->target != FCR_TARGET_SSH
				  ? cm_strdup(p->directory)
				  : cm_asprintf("%s:%s", c->ssh_dest, p->directory);
		int rc = check_directory(t, who, where, p->directory, p->test_file, p->bytes, err);
		free(who);
		free(where);
		if (rc < 0)
			return -1;
	}
	return 0;
}
