/* SPDX-License-Identifier: MIT */
/*
 * fiocamp-run: runs a campaign of stock fio jobs on a target machine,
 * changing its state between blocks of rounds, and records everything in a
 * campaign directory that fiocamp-analyze reads.  See fiocamp-run(1).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "campaign/campaign.h"
#include "campaign/jobs.h"
#include "netcup/public.h"
#include "engine/engine.h"
#include "fleet/supervisor.h"
#include "providers.h"

#ifndef FIOCAMP_VERSION
#define FIOCAMP_VERSION "unknown"
#endif

/* Puts `word` (n bytes) on the line at *col, or on a new one indented by 2
 * when it would reach column 80. */
static void put_word(FILE *f, size_t *col, const char *word, size_t n)
{
	if (*col && *col + 1 + n > 79) {
		fputs("\n  ", f);
		*col = 2;
	} else if (*col) {
		fputc(' ', f);
		(*col)++;
	}
	fwrite(word, 1, n, f);
	*col += n;
}

/* The words of `text` on the line at *col, wrapped like put_word(). */
static void put_words(FILE *f, size_t *col, const char *text)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");
		if (n)
			put_word(f, col, p, n);
		p += n + (p[n] == ' ');
	}
}

/* "head item, item, ..." wrapped before column 80, continued indented; an
 * item (an action's usage) is never split. */
static void print_list(FILE *f, const char *head, const struct fcr_action *table)
{
	size_t col = 0;
	put_words(f, &col, head);
	for (size_t i = 0;; i++) {
		const struct fcr_action *a =
		    table ? &table[i] : fcr_catalog_builtin(fcr_catalog(), i);
		if (!a || !a->name)
			break;
		bool last = table ? !table[i + 1].name : !fcr_catalog_builtin(fcr_catalog(), i + 1);
		char *item = cm_asprintf("%s%s", a->usage, last ? "" : ",");
		put_word(f, &col, item, strlen(item));
		free(item);
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fiocamp-run [options] CAMPAIGN.ini\n"
		   "       fiocamp-run --host NAME [options] FLEET.ini\n"
		   "       fiocamp-run --demo [options]\n"
		   "       fiocamp-run --resume DIR [options]\n"
		   "       fiocamp-run netcup-login [--token-file PATH]\n"
		   "\n"
		   "Runs the states x rounds x tests of a campaign file with stock fio and\n"
		   "records everything in a campaign directory (see fiocamp-campaign(5)).\n"
		   "\n"
		   "options:\n"
		   "  -o, --output DIR   the campaign directory to create (default:\n"
		   "                     NAME-YYYYmmdd-HHMMSS here); never overwritten\n"
		   "  -n, --dry-run      print the whole plan and the expected duration\n"
		   "      --resume DIR   continue a campaign at the first step not done\n"
		   "      --host NAME    run one host of a fleet (hosts =) alone\n"
		   "  -k, --keep-going   record a failed fio run and go on\n"
		   "  -q, --quiet        no progress output, no analysis at the end\n"
		   "      --jobs-dir DIR look for job files in DIR first\n"
		   "      --demo         run the built-in demo campaign (about two minutes)\n"
		   "  -h, --help         this text\n"
		   "      --version      the version\n"
		   "\n");
	print_list(f, "actions without a provider:", NULL);
	for (const struct fcr_provider *const *p = fcr_catalog()->providers; *p; p++) {
		if (!(*p)->actions[0].name)
			continue;
		char head[256];
		snprintf(head, sizeof(head), "provider %s (%s):", (*p)->type, (*p)->summary);
		print_list(f, head, (*p)->actions);
	}
	size_t col = 0;
	put_words(f, &col, "job files: --jobs-dir, beside the campaign file,");
	char *dir = cm_asprintf("%s,", fcr_jobs_installed_dir());
	put_word(f, &col, dir, strlen(dir));
	free(dir);
	put_words(f, &col, "built in");
	fputs("\nexit status: 0 done, 1 failed, 2 bad usage or campaign file, 130 interrupted\n",
	      f);
}

/* The campaign's name, file and host of a fleet recorded in a manifest: the
 * copy in the campaign directory is named campaign.ini, job files are found
 * again beside the original, and a host's directory is read for its host. */
static void recorded_campaign(const char *dir, char **name, char **file_dir, char **host,
			      bool *fleet)
{
	char *path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, dir);
	json_error_t jerr;
	json_t *m = json_load_file(path, 0, &jerr);
	free(path);
	*name = *file_dir = *host = NULL;
	*fleet = false;
	if (!m)
		return;
	const char *file = json_string_value(json_object_get(m, "campaign_file"));
	const char *n = json_string_value(json_object_get(m, "campaign"));
	const char *h = json_string_value(json_object_get(m, "fleet_host"));
	*file_dir = file ? fcr_path_dirname(file) : NULL;
	*name = n && cm_campaign_name_ok(n) ? cm_strdup(n) : NULL;
	*host = h ? cm_strdup(h) : NULL;
	const char *format = json_string_value(json_object_get(m, "format"));
	*fleet = format && !strcmp(format, "fiocamp-fleet");
	json_decref(m);
}

/*
 * A fleet (a campaign with `hosts =`, given without --host) runs through
 * the fleet supervisor: one fiocamp-run --host NAME per host, in step.
 * The one place where main() hands a fleet over.
 */
static int run_fleet(const struct fcr_campaign *c, const struct fcr_options *o)
{
	struct fcr_fleet_options fo = {
	    .out_dir = o->out_dir,
	    .resume_dir = o->resume_dir,
	    .file = o->resume_dir ? NULL : c->source,
	    .campaign_path = o->campaign_path,
	    .jobs_dir = o->jobs_dir,
	    .keep_going = o->keep_going,
	    .quiet = o->quiet,
	};
	return fcr_fleet_run(c, &fo);
}

/*
 * --demo: the built-in campaign, in a fresh directory of its own (under
 * $TMPDIR, else /var/tmp: a disk, since O_DIRECT needs one): the campaign
 * directory DIR/campaign and the test file in DIR/files, never the current
 * directory or a path another run shares.  The campaign's directory line
 * is rewritten before parsing, so that the copy in the campaign directory
 * (and a --resume) says the same.  A dry run creates nothing.
 */
static int demo_campaign(bool dry_run, char **dir, char **text, size_t *len, struct fcr_error *err)
{
	const char *base = getenv("TMPDIR");
	if (!base || base[0] != '/')
		base = "/var/tmp";
	*dir = cm_asprintf("%s/fiocamp-demo.XXXXXX", base);
	if (!dry_run && !mkdtemp(*dir)) {
		fcr_fail_errno(err, errno, "cannot create a directory like %s", *dir);
		free(*dir);
		*dir = NULL;
		return -1;
	}
	const struct fcr_embedded_file *e = fcr_jobs_embedded("demo.ini");
	struct cm_buf b = {0};
	for (const char *l = e->data, *end = e->data + e->len; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l));
		size_t n = nl ? (size_t)(nl - l) + 1 : (size_t)(end - l);
		if (!strncmp(l, "directory", 9))
			cm_buf_printf(&b, "directory = %s/files   ; the demo's own (--demo)\n",
				      *dir);
		else
			cm_buf_putn(&b, l, n);
		l += n;
	}
	*len = b.len;
	*text = b.s;
	return 0;
}

/* Where the demo left its results; its test file's directory goes when
 * the campaign removed the file. */
static void demo_end(const char *dir, const char *out_dir, int rc)
{
	char *files = cm_asprintf("%s/files", dir);
	rmdir(files);
	free(files);
	if (rc == FCR_EXIT_OK)
		fprintf(stderr,
			"fiocamp-run: the demo's results are in %s (again: fiocamp-analyze %s)\n",
			out_dir, out_dir);
}

int main(int argc, char **argv)
{
	enum { OPT_RESUME = 256, OPT_JOBS_DIR, OPT_DEMO, OPT_VERSION, OPT_HOST };
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"dry-run", no_argument, NULL, 'n'},
	    {"resume", required_argument, NULL, OPT_RESUME},
	    {"host", required_argument, NULL, OPT_HOST},
	    {"keep-going", no_argument, NULL, 'k'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"jobs-dir", required_argument, NULL, OPT_JOBS_DIR},
	    {"demo", no_argument, NULL, OPT_DEMO},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, OPT_VERSION},
	    {NULL, 0, NULL, 0},
	};
	cm_init("fiocamp-run", FCR_EXIT_FAILED);
	if (argc > 1 && !strcmp(argv[1], "netcup-login"))
		return fcr_netcup_login_command(argc - 1, argv + 1);
	struct fcr_options o = {0};
	bool dry_run = false, demo = false, resume_fleet = false;
	const char *host = NULL;
	for (;;) {
		int opt = getopt_long(argc, argv, "o:nkqh", longopts, NULL);
		if (opt == -1)
			break;
		switch (opt) {
		case 'o':
			o.out_dir = optarg;
			break;
		case 'n':
			dry_run = true;
			break;
		case OPT_RESUME:
			o.resume_dir = optarg;
			break;
		case OPT_HOST:
			host = optarg;
			break;
		case 'k':
			o.keep_going = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case OPT_JOBS_DIR:
			o.jobs_dir = optarg;
			break;
		case OPT_DEMO:
			demo = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("fiocamp-run %s\n", FIOCAMP_VERSION);
			return 0;
		default:
			usage(stderr);
			return FCR_EXIT_USAGE;
		}
	}
	int nargs = argc - optind;
	int modes = (demo ? 1 : 0) + (o.resume_dir ? 1 : 0) + (nargs ? 1 : 0);
	if (modes != 1 || nargs > 1) {
		fprintf(stderr, "fiocamp-run: give one of CAMPAIGN.ini, --demo or --resume DIR\n");
		usage(stderr);
		return FCR_EXIT_USAGE;
	}
	if (o.resume_dir && o.out_dir) {
		fprintf(stderr, "fiocamp-run: --resume continues DIR in place; -o makes no sense "
				"with it\n");
		return FCR_EXIT_USAGE;
	}
	if (host && demo) {
		fprintf(stderr,
			"fiocamp-run: the demo is no fleet; --host makes no sense with it\n");
		return FCR_EXIT_USAGE;
	}

	char *text = NULL, *source = NULL, *resume_name = NULL, *resume_host = NULL;
	struct cm_strv errors = {0};
	struct fcr_campaign *c = NULL;
	int rc = FCR_EXIT_USAGE;
	size_t len = 0;
	struct fcr_error err;
	char *demo_dir = NULL, *demo_out = NULL;
	if (demo) {
		if (demo_campaign(dry_run, &demo_dir, &text, &len, &err) < 0) {
			fprintf(stderr, "fiocamp-run: --demo: %s\n", err.msg);
			return FCR_EXIT_FAILED;
		}
		if (!o.out_dir)
			o.out_dir = demo_out = cm_asprintf("%s/campaign", demo_dir);
		source = cm_strdup("demo.ini (built in)");
	} else {
		const char *file = nargs ? argv[optind] : NULL;
		char *ini =
		    file ? cm_strdup(file) : cm_asprintf("%s/" CM_CAMPAIGN_FILE, o.resume_dir);
		struct stat st;
		/* a FIFO or a device would block or never end: a campaign file is a file */
		if (stat(ini, &st) == 0 && !S_ISREG(st.st_mode)) {
			fprintf(stderr, "fiocamp-run: %s: not a regular file\n", ini);
			free(ini);
			return FCR_EXIT_USAGE;
		}
		char why[512];
		if (cm_read_file(ini, 1024 * 1024 + 1, &text, &len, why, sizeof(why)) < 0) {
			fprintf(stderr, "fiocamp-run: %s\n", why);
			free(ini);
			return FCR_EXIT_USAGE;
		}
		source = ini;
		if (file) {
			char *abs = realpath(file, NULL);
			if (abs) {
				o.campaign_path = abs;
				o.campaign_dir = fcr_path_dirname(abs);
			}
		} else {
			recorded_campaign(o.resume_dir, &resume_name, &o.campaign_dir, &resume_host,
					  &resume_fleet);
		}
	}
	/* a host's directory is continued for the host it was made for */
	if (host && resume_host && strcmp(host, resume_host)) {
		fprintf(stderr, "fiocamp-run: %s is host %s's directory, not host %s's\n",
			o.resume_dir, resume_host, host);
	} else if (host && resume_fleet) {
		fprintf(stderr,
			"fiocamp-run: %s is a fleet's directory: continue it whole (--resume %s) "
			"or one host's (--resume %s/hosts/%s)\n",
			o.resume_dir, o.resume_dir, o.resume_dir, host);
	} else if (fcr_campaign_parse_host(text, len, source, fcr_catalog(),
					   host ? host : resume_host, &c, &errors) < 0) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s\n", errors.v[i]);
	} else {
		if (resume_name) {
			/* the copy is named campaign.ini; the manifest knows the real name */
			free(c->name);
			c->name = resume_name;
			resume_name = NULL;
		}
		/* mode = aggregate is one engine for all its hosts, no fleet */
		bool fleet = c->n_hosts && !c->host && c->mode != FCR_MODE_AGGREGATE;
		if (dry_run && fleet)
			rc = fcr_engine_dry_run_fleet(c, fcr_catalog(), &o);
		else if (dry_run)
			rc = fcr_engine_dry_run(c, &o);
		else if (fleet)
			rc = run_fleet(c, &o);
		else
			rc = fcr_engine_run(c, &o);
		if (demo && !dry_run)
			demo_end(demo_dir, o.out_dir, rc);
	}
	free(resume_host);
	free(demo_dir);
	free(demo_out);
	cm_strv_release(&errors);
	fcr_campaign_free(c);
	free(text);
	free(source);
	free(o.campaign_dir);
	free(o.campaign_path);
	free(resume_name);
	return rc;
}
