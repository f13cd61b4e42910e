/* SPDX-License-Identifier: MIT */
/*
 * The Proxmox client's parsers, without a server: UPIDs as pve-common's
 * UPID.pm decodes them, API tokens as AccessControl.pm verify_token splits
 * them, the token file's checks, certificate fingerprints, task exit
 * statuses, lock refusals, and what vzdump writes into its task log.  The
 * client against the fake API is tests/run/test_proxmox_run.py.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "common/common.h"
#include "http/http.h"
#include "proxmox/pve.h"

static void test_upid(void)
{
	struct fcr_pve_upid u;
	/* pve-common test/upid-test.pl */
	CHECK_INT(fcr_pve_upid_parse("UPID:example-node:000934AF:0D015579:68BF3A41:vzdump:100:"
				     "91a1da29-a47d-11f0-84e0-fafbfc944d00@pam!some-token:",
				     &u),
		  0);
	CHECK_STR(u.node, "example-node");
	CHECK_U64(u.pid, 603311);
	CHECK_U64(u.pstart, 218191225);
	CHECK_INT(u.starttime, 1757362753);
	CHECK_STR(u.type, "vzdump");
	CHECK_STR(u.id, "100");
	CHECK_STR(u.user, "91a1da29-a47d-11f0-84e0-fafbfc944d00@pam!some-token");
	/* a 9-digit pstart (uptime past ~497 days) and an empty id */
	CHECK_INT(fcr_pve_upid_parse("UPID:pve1:0000AB12:1D0155790:68BF3A41:vzdump::root@pam:", &u),
		  0);
	CHECK_U64(u.pstart, 0x1D0155790ULL);
	CHECK_STR(u.id, "");
	static const char *const bad[] = {
	    "UPID:pve1:000934AF:0D015579:68BF3A41:vzdump:100:root@pam",	  /* no trailing ':' */
	    "UPID:pve1:000934AF:0D015579:68BF3A41:vzdump:100:root@pam:x", /* after it */
	    "UPID:pve1:0934AF:0D015579:68BF3A41:vzdump:100:root@pam:",	  /* 6-digit pid */
	    "UPID:pve1:000934AF:0D015579:68BF3A4G:vzdump:100:root@pam:",  /* not hex */
	    "UPID:-pve1:000934AF:0D015579:68BF3A41:vzdump:100:root@pam:", /* node */
	    "UPID:pve1:000934AF:0D015579:68BF3A41::100:root@pam:",	  /* no type */
	    "UPID:pve1:000934AF:0D015579:68BF3A41:vz dump:100:root@pam:", /* blank */
	    "UPID:pve1:000934AF:0D015579:68BF3A41:vzdump:100::",	  /* no user */
	    "OK", /* vzdump, nothing to do */
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bad); i++)
		CHECK_INT(fcr_pve_upid_parse(bad[i], &u), -1);
}

static void test_token_form(void)
{
	size_t n = 0;
	CHECK(fcr_pve_token_valid("fiocamp@pve!bench=11111111-2222-3333-4444-555555555555", &n));
	CHECK_INT(n, strlen("fiocamp@pve!bench"));
	CHECK(fcr_pve_token_valid("root@pam!a.b_c-d=x", &n));
	/* split at the last '=' like verify_token; the id may not hold one */
	CHECK(!fcr_pve_token_valid("root@pam!bench", NULL));	       /* no secret */
	CHECK(!fcr_pve_token_valid("root@pam!bench=", NULL));	       /* empty secret */
	CHECK(!fcr_pve_token_valid("root@pam=secret", NULL));	       /* no token name */
	CHECK(!fcr_pve_token_valid("root!bench=secret", NULL));	       /* no realm */
	CHECK(!fcr_pve_token_valid("@pam!bench=secret", NULL));	       /* no user */
	CHECK(!fcr_pve_token_valid("root@pam!1bench=secret", NULL));   /* name: letter first */
	CHECK(!fcr_pve_token_valid("root@p!bench=secret", NULL));      /* realm: 2 at least */
	CHECK(!fcr_pve_token_valid("root@pam!bench=se;cret", NULL));   /* ';' ends the header */
	CHECK(!fcr_pve_token_valid("root@pam!bench=se%41cret", NULL)); /* decoded by the server */
	CHECK(!fcr_pve_token_valid("11111111-2222-3333-4444-555555555555", NULL));
}

static char tmpdir[] = "/tmp/fiocamp-test-proxmox.XXXXXX";

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

static int new_client(const char *token_file, struct fcr_pve **pve, struct fcr_error *err)
{
	struct fcr_pve_config cfg;
	fcr_pve_config_init(&cfg);
	cfg.api_url = "https://127.0.0.1:8006";
	cfg.node = "pve1";
	cfg.vmid = 100;
	cfg.vm_name = "bench";
	cfg.token_file = token_file;
	memset(err, 0, sizeof(*err));
	return fcr_pve_new(&cfg, pve, err);
}

static void test_token_file(void)
{
	static const char secret[] = "0b7c1f2e-aaaa-bbbb-cccc-0123456789ab";
	char path[256], line[256];
	struct fcr_pve *pve = NULL;
	struct fcr_error err;
	snprintf(path, sizeof(path), "%s/token", tmpdir);
	snprintf(line, sizeof(line), "fiocamp@pve!bench=%s\n", secret);

	write_file(path, line, 0644);
	CHECK_INT(new_client(path, &pve, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, "chmod 600") != NULL);
	CHECK(strstr(err.msg, secret) == NULL);

	write_file(path, line, 0600);
	CHECK_INT(new_client(path, &pve, &err), 0);
	CHECK_STR(pve ? fcr_pve_token_id(pve) : NULL, "fiocamp@pve!bench");
	fcr_pve_free(pve);
	pve = NULL;

	/* the secret alone: refused without a word of it in the message */
	snprintf(line, sizeof(line), "%s\n", secret);
	write_file(path, line, 0600);
	CHECK_INT(new_client(path, &pve, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, "USER@REALM!TOKENID=SECRET") != NULL);
	CHECK(strstr(err.msg, secret) == NULL);

	/* the environment, when there is no file */
	setenv(FCR_PVE_TOKEN_ENV, "root@pam!env=s3cret", 1);
	CHECK_INT(new_client(NULL, &pve, &err), 0);
	CHECK_STR(pve ? fcr_pve_token_id(pve) : NULL, "root@pam!env");
	fcr_pve_free(pve);
	pve = NULL;
	setenv(FCR_PVE_TOKEN_ENV, "s3cret", 1);
	CHECK_INT(new_client(NULL, &pve, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, "s3cret") == NULL);
	unsetenv(FCR_PVE_TOKEN_ENV);
	CHECK_INT(new_client(NULL, &pve, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, FCR_PVE_TOKEN_ENV) != NULL);
	unlink(path);
}

static void test_fingerprint(void)
{
	static const char text[] = "27:87:FE:64:9E:FA:B2:B3:CE:E2:07:E8:F5:1A:81:45:55:A6:1B:5C:F2:"
				   "3F:16:FB:8A:6D:FB:91:31:F5:7E:17";
	unsigned char fp[FCR_FINGERPRINT_BYTES], fp2[FCR_FINGERPRINT_BYTES];
	char back[FCR_FINGERPRINT_TEXT];
	CHECK_INT(fcr_fingerprint_parse(text, fp), 0);
	CHECK_INT(fp[0], 0x27);
	CHECK_INT(fp[31], 0x17);
	fcr_fingerprint_format(fp, back);
	CHECK_STR(back, text);
	/* lower case, and without the colons */
	CHECK_INT(
	    fcr_fingerprint_parse("2787fe649efab2b3cee207e8f51a814555a61b5cf23f16fb8a6dfb9131f5"
				  "7e17",
				  fp2),
	    0);
	CHECK(memcmp(fp, fp2, sizeof(fp)) == 0);
	CHECK_INT(fcr_fingerprint_parse("27:87:FE", fp2), -1); /* short */
	CHECK_INT(
	    fcr_fingerprint_parse("sha256//jr9gkCF4U8Y9ZPEao5l8z6lXQehFISmqdGNwgRIRWHo=", fp2),
	    -1); /* a key pin */
	char bad[sizeof(text)];
	memcpy(bad, text, sizeof(text));
	bad[2] = '-';
	CHECK_INT(fcr_fingerprint_parse(bad, fp2), -1);
	bad[2] = ':';
	bad[5] = 'G';
	CHECK_INT(fcr_fingerprint_parse(bad, fp2), -1);
}

static void test_exit_status(void)
{
	unsigned w = 99;
	CHECK(fcr_pve_exit_ok("OK", &w));
	CHECK_INT(w, 0);
	CHECK(fcr_pve_exit_ok("WARNINGS: 3", &w));
	CHECK_INT(w, 3);
	CHECK(!fcr_pve_exit_ok("WARNINGS: ", &w));
	CHECK(!fcr_pve_exit_ok("WARNINGS: 3x", &w));
	CHECK(!fcr_pve_exit_ok("job errors", &w));
	CHECK(!fcr_pve_exit_ok("unexpected status", &w));
	CHECK(!fcr_pve_exit_ok("", &w));

	CHECK(fcr_pve_lock_refusal("can't lock file '/var/lock/qemu-server/lock-100.conf' - got "
				   "timeout",
				   NULL));
	CHECK(fcr_pve_lock_refusal("VM is locked (backup)", NULL));
	CHECK(!fcr_pve_lock_refusal("snapshot name 's1' already used", NULL));
	json_t *tail = json_pack("[s, s, s]",
				 "ERROR: Backup of VM 100 failed - VM is locked "
				 "(snapshot)",
				 "INFO: Failed at 2026-12-01 14:00:00",
				 "INFO: Backup job finished with errors");
	CHECK(fcr_pve_lock_refusal("job errors", tail));
	json_decref(tail);
	tail = json_pack("[s]", "ERROR: Backup of VM 100 failed - fake: programmed task error");
	CHECK(!fcr_pve_lock_refusal("job errors", tail));
	json_decref(tail);
}

static void test_vzdump_log(void)
{
	CHECK_DBL(fcr_pve_parse_size("20.00 GiB"), 20.0 * 1073741824.0, 1e-12);
	CHECK_DBL(fcr_pve_parse_size("8.08GB"), 8.08 * 1073741824.0, 1e-12);
	CHECK_DBL(fcr_pve_parse_size("812MB"), 812.0 * 1048576.0, 1e-12);
	CHECK_DBL(fcr_pve_parse_size("17 B"), 17.0, 1e-12);
	CHECK(isnan(fcr_pve_parse_size("many")));
	CHECK(isnan(fcr_pve_parse_size("3 parsecs")));
	/* lines as PVE/VZDump.pm and VZDump/QemuServer.pm write them */
	json_t *log = json_pack(
	    "[s, s, s, s, s, s, s, s, s]",
	    "INFO: starting new backup job: vzdump 100 --compress zstd --mode snapshot",
	    "INFO: trying to get global lock - waiting...", "INFO: got global lock",
	    "INFO: creating vzdump archive "
	    "'/var/lib/vz/dump/vzdump-qemu-100-2026_12_01-14_23_03.vma.zst'",
	    "INFO: backup is sparse: 11.40 GiB (57%) total zero data",
	    "INFO: transferred 20.00 GiB in 18 seconds (1.1 GiB/s)",
	    "INFO: archive file size: 8.08GB", "INFO: Finished Backup of VM 100 (00:00:21)",
	    "INFO: Backup job finished successfully");
	struct fcr_pve_vzdump_log l;
	fcr_pve_vzdump_log_parse(log, &l);
	CHECK_STR(l.archive_path, "/var/lib/vz/dump/vzdump-qemu-100-2026_12_01-14_23_03.vma.zst");
	CHECK_STR(l.transferred_text, "20.00 GiB");
	CHECK_DBL(l.transferred_bytes, 20.0 * 1073741824.0, 1e-12);
	CHECK_DBL(l.transfer_s, 18.0, 1e-12);
	CHECK_STR(l.archive_size_text, "8.08GB");
	CHECK_STR(l.guest_duration, "00:00:21");
	CHECK(l.waited_for_global_lock);
	json_decref(log);
	/* a log without any of it */
	log = json_pack("[s]", "TASK ERROR: job errors");
	fcr_pve_vzdump_log_parse(log, &l);
	CHECK_STR(l.archive_path, "");
	CHECK(isnan(l.transferred_bytes) && isnan(l.transfer_s));
	CHECK(!l.waited_for_global_lock);
	json_decref(log);
}

int main(void)
{
	cm_init("test-proxmox", 1);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_upid();
	test_token_form();
	test_token_file();
	test_fingerprint();
	test_exit_status();
	test_vzdump_log();
	rmdir(tmpdir);
	return check_exit();
}
