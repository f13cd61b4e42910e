/* SPDX-License-Identifier: MIT */
/*
 * `fiocamp-run netcup-login`: netcup's device-code flow, once, to get the
 * offline refresh token the netcup provider uses.  The token goes straight
 * into the token file (mode 0600); it is never printed.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netcup/netcup.h"
#include "netcup/public.h"
#include "fcr.h"

static volatile sig_atomic_t login_interrupted;

static void on_login_signal(int sig)
{
	(void)sig;
	login_interrupted = 1;
}

static bool login_should_stop(void *ctx)
{
	(void)ctx;
	return login_interrupted != 0;
}

static void login_prompt(void *ctx, const struct fcr_netcup_login_prompt *p)
{
	(void)ctx;
	printf("Open this address in a browser and log in to the netcup SCP:\n\n  %s\n\n",
	       p->verification_uri_complete ? p->verification_uri_complete : p->verification_uri);
	printf("Check that it shows the code  %s  and grant the access.\n", p->user_code);
	if (!p->verification_uri_complete)
		printf("(If it asks for the code, enter it there.)\n");
	printf("Waiting for that (the code expires in %.0f minutes; Ctrl-C to give up) ...\n",
	       p->expires_in_s / 60.0);
	fflush(stdout);
}

static void login_usage(FILE *f)
{
	fprintf(f, "usage: fiocamp-run netcup-login [--token-file PATH] [--auth-url URL]\n"
		   "\n"
		   "Logs in to the netcup SCP once (OAuth2 device code: open the address it\n"
		   "prints, confirm the code) and writes the offline refresh token to the\n"
		   "token file with mode 0600 (directories created 0700).\n"
		   "\n"
		   "  --token-file PATH  where to write it (default:\n"
		   "                     " FCR_NETCUP_TOKEN_FILE_DEFAULT ")\n"
		   "  --auth-url URL     the Keycloak realm (default:\n"
		   "                     " FCR_NETCUP_DEFAULT_AUTH_URL ")\n");
}

int fcr_netcup_login_command(int argc, char **argv)
{
	enum { OPT_TOKEN_FILE = 256, OPT_AUTH_URL };
	static const struct option longopts[] = {
	    {"token-file", required_argument, NULL, OPT_TOKEN_FILE},
	    {"auth-url", required_argument, NULL, OPT_AUTH_URL},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *token_file = FCR_NETCUP_TOKEN_FILE_DEFAULT;
	const char *auth_url = NULL;
	optind = 1;
	for (;;) {
		int opt = getopt_long(argc, argv, "h", longopts, NULL);
		if (opt == -1)
			break;
		switch (opt) {
		case OPT_TOKEN_FILE:
			token_file = optarg;
			break;
		case OPT_AUTH_URL:
			auth_url = optarg;
			break;
		case 'h':
			login_usage(stdout);
			return FCR_EXIT_OK;
		default:
			login_usage(stderr);
			return FCR_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		login_usage(stderr);
		return FCR_EXIT_USAGE;
	}
	char *path = fcr_path_expand_home(token_file);
	if (!path || !path[0]) {
		fprintf(stderr,
			"fiocamp-run netcup-login: %s: HOME is not set; give --token-file\n",
			token_file);
		free(path);
		return FCR_EXIT_USAGE;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_login_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct fcr_netcup_config cfg;
	fcr_netcup_config_init(&cfg);
	cfg.auth_url = auth_url;
	cfg.should_stop = login_should_stop;
	struct fcr_error err = {0};
	int rc = fcr_netcup_login(&cfg, path, login_prompt, &err);
	if (rc == 0) {
		printf("The refresh token is in %s (mode 0600).  Use it with\n"
		       "  token-file = %s\n"
		       "in the [provider] section of a campaign.\n",
		       path, token_file);
		free(path);
		return FCR_EXIT_OK;
	}
	fprintf(stderr, "fiocamp-run netcup-login: %s\n", err.msg);
	free(path);
	if (rc == FCR_E_STOPPED)
		return FCR_EXIT_INTERRUPTED;
	return rc == FCR_E_INVAL ? FCR_EXIT_USAGE : FCR_EXIT_FAILED;
}
