/* SPDX-License-Identifier: MIT */
/* Unit tests of the campaign file's fleet: `hosts =`, sync, mode,
 * parallel-transitions and the [host NAME] sections, read for the fleet and
 * for one host. */
#include <string.h>

#include "campaign/campaign.h"
#include "check.h"
#include "fcr.h"
#include "providers.h"

/* The campaign read for `host` (NULL: the fleet's view); NULL on errors. */
static struct fcr_campaign *parse_for(const char *text, const char *host, struct cm_strv *errors)
{
	struct fcr_campaign *c = NULL;
	cm_strv_release(errors);
	fcr_campaign_parse_host(text, strlen(text), "f.ini", fcr_catalog(), host, &c, errors);
	return c;
}

static bool starts_with(const char *s, const char *head)
{
	return !strncmp(s, head, strlen(head));
}

static const char fleet[] = "[campaign]\n"			   /* 1 */
			    "suite = a\n"			   /* 2 */
			    "directory = /x\n"			   /* 3 */
			    "size = 1M\n"			   /* 4 */
			    "runtime = 5s\n"			   /* 5 */
			    "hosts = h1 h2 h3\n"		   /* 6 */
			    "[host h1]\n"			   /* 7 */
			    "target = ssh root@vps1:2200\n"	   /* 8 */
			    "size = 2M\n"			   /* 9 */
			    "[host h2]\n"			   /* 10 */
			    "directory = /srv/bench   ; its own\n" /* 11 */
			    "runtime = 7s\n"			   /* 12 */
			    "ioengine = psync\n"		   /* 13 */
			    "direct = 0\n"			   /* 14 */
			    "[state s]\n";			   /* 15 */

static void test_fleet_view(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse_for(fleet, NULL, &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_INT(c->n_hosts, 3);
		CHECK_STR(c->hosts[0].name, "h1");
		CHECK_INT(c->hosts[0].line, 7);
		CHECK(c->hosts[0].has_section);
		CHECK_INT(c->hosts[0].n_keys, 2);
		CHECK_STR(c->hosts[0].keys[0].key, "target");
		CHECK_STR(c->hosts[0].keys[0].value, "ssh root@vps1:2200");
		CHECK_INT(c->hosts[0].keys[0].line, 8);
		CHECK_STR(c->hosts[1].keys[0].value, "/srv/bench");
		CHECK_STR(c->hosts[2].name, "h3");
		CHECK_INT(c->hosts[2].line, 6);
		CHECK(!c->hosts[2].has_section);
		CHECK_INT(c->sync, FCR_SYNC_STATES);
		CHECK_INT(c->mode, FCR_MODE_FLEET);
		CHECK(!c->parallel_transitions);
		CHECK(c->host == NULL);
		/* the fleet's own values: [campaign] as written */
		CHECK_INT(c->target, FCR_TARGET_LOCAL);
		CHECK_STR(c->directory, "/x");
		CHECK_U64(c->size_bytes, 1024 * 1024);
		CHECK_U64(c->runtime_ms, 5000);
		CHECK_STR(c->ioengine, "libaio");
	}
	fcr_campaign_free(c);

	/* one host: its keys over [campaign], the rest from [campaign] */
	c = parse_for(fleet, "h1", &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_STR(c->host, "h1");
		CHECK_INT(c->n_hosts, 3);
		CHECK_INT(c->target, FCR_TARGET_SSH);
		CHECK_STR(c->target_text, "ssh root@vps1:2200");
		CHECK_STR(c->ssh_dest, "root@vps1");
		CHECK_INT(c->ssh_port, 2200);
		CHECK_STR(c->directory, "/x");
		CHECK_U64(c->size_bytes, 2 * 1024 * 1024);
		CHECK_STR(c->size_text, "2M");
		CHECK_U64(c->runtime_ms, 5000);
	}
	fcr_campaign_free(c);
	c = parse_for(fleet, "h2", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(c->host, "h2");
		CHECK_INT(c->target, FCR_TARGET_LOCAL);
		CHECK_STR(c->directory, "/srv/bench");
		CHECK_U64(c->size_bytes, 1024 * 1024);
		CHECK_U64(c->runtime_ms, 7000);
		CHECK_STR(c->ioengine, "psync");
		CHECK_INT(c->direct, 0);
	}
	fcr_campaign_free(c);
	/* a host without a section is [campaign] itself */
	c = parse_for(fleet, "h3", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(c->host, "h3");
		CHECK_STR(c->directory, "/x");
		CHECK_U64(c->runtime_ms, 5000);
		CHECK_INT(c->direct, 1);
	}
	fcr_campaign_free(c);

	/* a [host NAME] before [campaign] is applied all the same; a key every
	 * host sets is not needed in [campaign] */
	c = parse_for("[host b]\ndirectory = /b\n[host a]\ndirectory = /a\n"
		      "[campaign]\nsuite = t\nsize = 1M\nhosts = a b\n"
		      "sync = none\nmode = fleet\nparallel-transitions = yes\n[state s]\n",
		      NULL, &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_STR(c->hosts[0].name, "a");
		CHECK_INT(c->hosts[0].line, 3);
		CHECK(c->directory == NULL);
		CHECK_INT(c->sync, FCR_SYNC_NONE);
		CHECK(c->parallel_transitions);
	}
	fcr_campaign_free(c);
	c = parse_for(
	    "[host b]\ndirectory = /b\n[host a]\ndirectory = /a\n"
	    "[campaign]\nsuite = t\nsize = 1M\nhosts = a b\nmode = aggregate\n[state s]\n",
	    "b", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK_STR(c->directory, "/b");
		CHECK_INT(c->mode, FCR_MODE_AGGREGATE);
		CHECK_INT(c->sync, FCR_SYNC_STATES);
	}
	fcr_campaign_free(c);

	/* an ordinary campaign read for no host is what it always was */
	c = parse_for("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state s]\n", NULL,
		      &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->n_hosts, 0);
		CHECK(c->host == NULL);
	}
	fcr_campaign_free(c);
	cm_strv_release(&errors);
}

/* Each host its own provider instance: [provider] keys replaced by the
 * host's, checked by the provider as [provider]'s are. */
static void test_provider_keys(void)
{
	static const char text[] = "[campaign]\n"			     /* 1 */
				   "suite = a\n"			     /* 2 */
				   "size = 1M\n"			     /* 3 */
				   "hosts = v1 v2\n"			     /* 4 */
				   "[provider]\n"			     /* 5 */
				   "type = netcup\n"			     /* 6 */
				   "token-file = /t/tok\n"		     /* 7 */
				   "api-url = http://127.0.0.1:9/scp-core\n" /* 8 */
				   "[host v1]\n"			     /* 9 */
				   "directory = /v1\n"			     /* 10 */
				   "server-id = 11\n"			     /* 11 */
				   "[host v2]\n"			     /* 12 */
				   "directory = /v2\n"			     /* 13 */
				   "server-id = 22\n"			     /* 14 */
				   "token-file = /t/other\n"		     /* 15 */
				   "[state s]\nbefore = power-off; power-on\n";
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse_for(text, NULL, &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	if (c) {
		CHECK_STR(c->provider_type, "netcup");
		CHECK_INT(c->n_provider_keys, 2);
	}
	fcr_campaign_free(c);
	c = parse_for(text, "v2", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->n_provider_keys, 3);
		for (size_t i = 0; i < c->n_provider_keys; i++) {
			const struct fcr_provider_key *k = &c->provider_keys[i];
			if (!strcmp(k->key, "server-id")) {
				CHECK_STR(k->value, "22");
				CHECK_INT(k->line, 14);
			} else if (!strcmp(k->key, "token-file")) {
				CHECK_STR(k->value, "/t/other");
				CHECK_INT(k->line, 15);
			} else {
				CHECK_STR(k->key, "api-url");
			}
		}
		CHECK(c->states[0].actions[0].from_provider);
	}
	fcr_campaign_free(c);

	/* a host's bad value and unknown key are the provider's file:line errors;
	 * one host without a server-id is named */
	char *bad = cm_asprintf("%s", text);
	char *at = strstr(bad, "server-id = 22\ntoken-file");
	memcpy(at, "server-id = 0 ", 14);
	at = strstr(bad, "server-id = 11\n");
	memcpy(at, "vmid      = 11", 14);
	c = parse_for(bad, NULL, &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 2);
	if (errors.n == 2) {
		CHECK(starts_with(errors.v[0], "f.ini:11: unknown key 'vmid' for provider netcup"));
		CHECK(
		    starts_with(errors.v[1], "f.ini:14: server-id '0' is not a netcup server id"));
	}
	at = strstr(bad, "vmid      = 11");
	memcpy(at, "; nothing    ", 13);
	c = parse_for(bad, NULL, &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 2);
	if (errors.n == 2)
		CHECK_STR(errors.v[0], "f.ini:6: host v1: provider netcup needs server-id (the "
				       "number the SCP shows for the server)");
	fcr_campaign_free(c);
	free(bad);

	/* two hosts of one provider instance would act on one machine at once */
	c = parse_for("[campaign]\nsuite = a\nsize = 1M\nhosts = v1 v2\n"
		      "[provider]\ntype = netcup\ntoken-file = /t/tok\n"
		      "[host v1]\ndirectory = /v1\nserver-id = 11\n"
		      "[host v2]\ndirectory = /v2\nserver-id = 11\n[state s]\n",
		      NULL, &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 1);
	if (errors.n == 1)
		CHECK_STR(errors.v[0], "f.ini:11: hosts v1 and v2 have the same [provider] keys: "
				       "both would act on one netcup machine (give each its own, "
				       "e.g. its server's id, in [host NAME])");
	cm_strv_release(&errors);
}

static void test_refusals(void)
{
	static const char head[] = "[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n"; /* 1-4 */
	static const struct {
		const char *tail;
		const char *host; /* read for this host, else the fleet */
		const char *error;
	} cases[] = {
	    {"hosts = a b\n[host c]\n[state s]\n", NULL,
	     "f.ini:6: [host c] is not in 'hosts =' of line 5"},
	    {"[host c]\ndirectory = /c\n[state s]\n", NULL,
	     "f.ini:5: [host c] but no 'hosts =' in [campaign] (a fleet lists its hosts there)"},
	    {"hosts = a\n[host a]\ndirectory = /a\n[host a]\n[state s]\n", NULL,
	     "f.ini:8: host 'a' was already defined on line 6"},
	    {"hosts = a b a\n[state s]\n", NULL, "f.ini:5: host 'a' is listed twice"},
	    {"hosts = a b/c\n[state s]\n", NULL,
	     "f.ini:5: bad host name 'b/c' (letters, digits, '.', '_', '-')"},
	    {"hosts = a\n[host]\n[state s]\n", NULL, "f.ini:6: [host] needs a name: [host NAME]"},
	    {"hosts = a\n[host a]\nsuite = b\n[state s]\n", NULL,
	     "f.ini:7: 'suite' is the fleet's, set in [campaign] for every host (a [host a] "
	     "section takes target, ssh-port, ssh-options, directory, size, runtime, ioengine, "
	     "direct and the [provider] keys)"},
	    {"hosts = a\n[host a]\ntype = netcup\n[state s]\n", NULL,
	     "f.ini:7: 'type' is the fleet's: every host has the provider of [provider] (a [host "
	     "a] section takes its other keys)"},
	    {"hosts = a\n[host a]\nrumtime = 5s\n[state s]\n", NULL,
	     "f.ini:7: unknown key 'rumtime' in [host a] (expected target, ssh-port, ssh-options, "
	     "directory, size, runtime, ioengine, direct and the [provider] keys; there is no "
	     "[provider])"},
	    {"hosts = a\n[host a]\nruntime = 5s\nruntime = 6s\n[state s]\n", NULL,
	     "f.ini:8: 'runtime' was already set on line 7"},
	    {"hosts = a b\n[host a]\ndirectory = /a\nssh-port = x\n[state s]\n", NULL,
	     "f.ini:8: bad ssh-port 'x' (expected 1 to 65535)"},
	    {"hosts = a b\n[host a]\ndirectory = /a\nssh-port = 2222\n[state s]\n", NULL,
	     "f.ini:8: a port is only meaningful with an ssh target"},
	    {"hosts = a b\n[host a]\ntarget = ssh h\nssh-options = 'x\n[state s]\n", "a",
	     "f.ini:8: ssh-options: unterminated ' quote"},
	    {"sync = none\n[state s]\n", NULL,
	     "f.ini:5: 'sync' is for a fleet: it needs 'hosts =' in [campaign]"},
	    {"parallel-transitions = yes\n[state s]\n", NULL,
	     "f.ini:5: 'parallel-transitions' is for a fleet: it needs 'hosts =' in [campaign]"},
	    {"hosts = a\nsync = barrier\n[state s]\n", NULL,
	     "f.ini:6: bad sync 'barrier' (expected states or none)"},
	    {"hosts = a\nmode = cluster\n[state s]\n", NULL,
	     "f.ini:6: bad mode 'cluster' (expected fleet or aggregate)"},
	    {"hosts = a\nparallel-transitions = maybe\n[state s]\n", NULL,
	     "f.ini:6: bad parallel-transitions 'maybe' (expected yes or no)"},
	    {"hosts = a\nsync = none\nmode = aggregate\n[state s]\n", NULL,
	     "f.ini:6: mode = aggregate runs each test on every host at the same moment: it needs "
	     "sync = states"},
	    {"hosts = a c\n[state s]\n", "b", "f.ini:5: no host 'b' in 'hosts =' (a, c)"},
	    {"[state s]\n", "b",
	     "f.ini:1: no host 'b': the campaign has no 'hosts =' (it is not a fleet)"},
	    /* two hosts on one machine in one place */
	    {"hosts = a b\n[host a]\ntarget = ssh x\n[host b]\ntarget = ssh x:22\n[state s]\n",
	     NULL,
	     "f.ini:8: hosts a and b both run on ssh x:22 in /x: they would write one test file "
	     "at once (give each its own directory)"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		struct cm_strv errors = {0};
		char *text = cm_asprintf("%s%s", head, cases[i].tail);
		struct fcr_campaign *c = parse_for(text, cases[i].host, &errors);
		CHECK(c == NULL);
		CHECK_INT(errors.n, 1);
		if (errors.n == 1)
			CHECK_STR(errors.v[0], cases[i].error);
		for (size_t j = 0; errors.n != 1 && j < errors.n; j++)
			fprintf(stderr, "case %zu: %s\n", i, errors.v[j]);
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(text);
	}

	/* what some hosts lack is said for each of them; what all lack once */
	struct cm_strv errors = {0};
	struct fcr_campaign *c =
	    parse_for("[campaign]\nsuite = a\nhosts = a b c\n[host a]\ndirectory = /a\n"
		      "[state s]\nbefore = nonesuch\n",
		      NULL, &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 4);
	if (errors.n == 4) {
		CHECK(starts_with(errors.v[0], "f.ini:7: unknown action 'nonesuch'"));
		CHECK_STR(errors.v[1],
			  "f.ini:7: [campaign] needs 'size' (of the test file, e.g. 4G)");
		CHECK_STR(errors.v[2], "f.ini:7: host b: [campaign] needs 'directory' (where the "
				       "test file lives)");
		CHECK_STR(errors.v[3], "f.ini:7: host c: [campaign] needs 'directory' (where the "
				       "test file lives)");
	}
	for (size_t j = 0; errors.n != 4 && j < errors.n; j++)
		fprintf(stderr, "%s\n", errors.v[j]);
	cm_strv_release(&errors);
}

int main(void)
{
	test_fleet_view();
	test_provider_keys();
	test_refusals();
	return check_exit();
}
