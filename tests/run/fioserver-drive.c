/* SPDX-License-Identifier: MIT */
/*
 * machine/fioserver.c driven from a test (tests/run/test-aggregate.py):
 *
 *   fioserver-drive start HOST CAMPAIGN RUN_DIR
 *       starts HOST's server (the campaign file says where), prints
 *       "ready PID" once it answered, probes it again for each line
 *       "probe" on stdin, stops it when stdin ends ("stopped")
 *   fioserver-drive reap CAMPAIGN      a leftover stopped: "reaped N"
 *   fioserver-drive versions HOST=CAMPAIGN ...
 *       the fio of each host (its preflight) against this machine's
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "campaign/campaign.h"
#include "machine/fioserver.h"
#include "machine/target.h"
#include "providers.h"

static struct fcr_campaign *load(const char *path)
{
	char *text;
	size_t len;
	char why[512];
	if (cm_read_file(path, 1 << 20, &text, &len, why, sizeof(why)) < 0) {
		fprintf(stderr, "%s\n", why);
		exit(2);
	}
	struct fcr_campaign *c;
	struct cm_strv errors = {0};
	if (fcr_campaign_parse(text, len, path, fcr_catalog(), &c, &errors) < 0) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s\n", errors.v[i]);
		exit(2);
	}
	free(text);
	cm_strv_release(&errors);
	return c;
}

static void target(struct fcr_target *t, const struct fcr_campaign *c)
{
	static volatile int stop, hard_stop;
	struct fcr_error err;
	if (fcr_target_init(t, c, &stop, &hard_stop, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
}

static int start(const char *host, const char *path, const char *run_dir)
{
	struct fcr_campaign *c = load(path);
	struct fcr_target t;
	struct fcr_fioserver s;
	struct fcr_error err;
	target(&t, c);
	if (fcr_fioserver_init(&s, host, &t, run_dir, &err) < 0 ||
	    fcr_fioserver_start(&s, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	printf("ready %ld\n", s.pid);
	fflush(stdout);
	/* each line "probe" probes the server again; the end of stdin stops it */
	char line[256];
	while (fgets(line, sizeof(line), stdin)) {
		if (strcmp(line, "probe\n"))
			continue;
		if (fcr_fioserver_probe(&s, &err) < 0)
			printf("probe failed: %s\n", err.msg);
		else
			printf("probe answered\n");
		fflush(stdout);
	}
	int rc = fcr_fioserver_stop(&s, &err);
	if (rc < 0)
		fprintf(stderr, "%s\n", err.msg);
	else
		printf("stopped\n");
	fcr_fioserver_release(&s);
	fcr_target_release(&t);
	fcr_campaign_free(c);
	return rc < 0;
}

static int reap(const char *path)
{
	struct fcr_campaign *c = load(path);
	struct fcr_target t;
	target(&t, c);
	struct fcr_target *all[] = {&t};
	struct fcr_fioserver_end e;
	fcr_fioserver_signal_all(all, 1, &e);
	fcr_fioserver_finish(&t, &e);
	if (e.rc < 0) {
		fprintf(stderr, "%s\n", e.err.msg);
		return 1;
	}
	printf("reaped %u%s\n", e.stopped, e.killed ? " (killed)" : "");
	fcr_target_release(&t);
	fcr_campaign_free(c);
	return 0;
}

static int versions(int n, char **args)
{
	const char *names[16], *vers[16];
	struct fcr_error err;
	if (n > 16)
		n = 16;
	for (int i = 0; i < n; i++) {
		char *eq = strchr(args[i], '=');
		if (!eq)
			return 2;
		*eq = '\0';
		names[i] = args[i];
		struct fcr_campaign *c = load(eq + 1);
		struct fcr_target t;
		target(&t, c);
		json_t *host = json_object();
		char *v;
		int rc = fcr_target_preflight(&t, host, &v, &err);
		fcr_target_cleanup(&t);
		fcr_target_release(&t);
		json_decref(host);
		fcr_campaign_free(c);
		if (rc < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		vers[i] = v;
	}
	char *mine = NULL;
	int rc = 0;
	if (fcr_fio_local_version(&mine, &err) < 0 ||
	    fcr_fioserver_check_versions(mine, names, vers, (size_t)n, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		rc = 1;
	} else {
		printf("same %s\n", mine);
	}
	free(mine);
	for (int i = 0; i < n; i++)
		free((char *)vers[i]);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "start"))
		return start(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "reap"))
		return reap(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "versions"))
		return versions(argc - 2, argv + 2);
	fprintf(stderr, "usage: fioserver-drive start HOST CAMPAIGN RUN_DIR | reap CAMPAIGN | "
			"versions HOST=CAMPAIGN...\n");
	return 2;
}
