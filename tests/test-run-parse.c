/* SPDX-License-Identifier: MIT */
/* Unit tests of fiocamp-run's small parsers: durations, sizes, shell words,
 * targets, the campaign file's structure and the providers' keys. */
#include <string.h>

#include "actions/builtin.h"
#include "campaign/campaign.h"
#include "check.h"
#include "machine/target.h"
#include "fcr.h"
#include "providers.h"

static void test_durations(void)
{
	struct {
		const char *text;
		unsigned long long ms;
	} good[] = {
	    {"10s", 10000}, {"1m30s", 90000}, {"250ms", 250}, {"1h", 3600000},	   {"2.5s", 2500},
	    {"45", 45000},  {"1d", 86400000}, {"0s", 0},      {"1h2m3s", 3723000},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(good); i++) {
		uint64_t ms = 1;
		struct fcr_error err;
		CHECK_INT(cm_parse_duration_ms(good[i].text, &ms, err.msg, sizeof(err.msg)), 0);
		CHECK_U64(ms, good[i].ms);
	}
	const char *bad[] = {"", "s", "10x", "-1s", "1s5", "ten", "1 s", "400d", "1e3s"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bad); i++) {
		uint64_t ms;
		struct fcr_error err = {0};
		CHECK_INT(cm_parse_duration_ms(bad[i], &ms, err.msg, sizeof(err.msg)), -1);
		CHECK(err.msg[0] != '\0');
	}
	char buf[32];
	cm_format_duration(buf, sizeof(buf), 90000);
	CHECK_STR(buf, "1m30s");
	cm_format_duration(buf, sizeof(buf), 250);
	CHECK_STR(buf, "250ms");
	cm_format_duration(buf, sizeof(buf), 3723500);
	CHECK_STR(buf, "1h02m03.500s");
}

static void test_sizes(void)
{
	struct {
		const char *text;
		unsigned long long bytes;
	} good[] = {
	    {"4G", 4ull << 30}, {"64M", 64ull << 20}, {"512k", 512ull << 10}, {"1GiB", 1ull << 30},
	    {"8192", 8192},	{"2T", 2ull << 40},   {"3MB", 3ull << 20},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(good); i++) {
		uint64_t b = 0;
		CHECK_INT(cm_parse_size_bytes(good[i].text, &b, NULL, 0), 0);
		CHECK_U64(b, good[i].bytes);
	}
	const char *bad[] = {"",	  "G",	 "4X", "4G5", "-1M", "0", "99999999999999999999",
			     "16777216T", "1.5G"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(bad); i++) {
		uint64_t b;
		CHECK_INT(cm_parse_size_bytes(bad[i], &b, NULL, 0), -1);
	}
	char buf[32];
	cm_format_size(buf, sizeof(buf), 64ull << 20);
	CHECK_STR(buf, "64M");
	cm_format_size(buf, sizeof(buf), 1000);
	CHECK_STR(buf, "1000");
}

static void test_shell(void)
{
	struct cm_strv w = {0};
	struct fcr_error err;
	CHECK_INT(fcr_shell_split("sh -c 'echo a; b' \"x \\\"y\\\"\" z\\ q", &w, &err), 0);
	CHECK_INT(w.n, 5);
	CHECK_STR(w.v[4], "z q");
	CHECK_STR(w.v[0], "sh");
	CHECK_STR(w.v[1], "-c");
	CHECK_STR(w.v[2], "echo a; b");
	CHECK_STR(w.v[3], "x \"y\"");
	cm_strv_release(&w);
	CHECK_INT(fcr_shell_split("a ''", &w, &err), 0);
	CHECK_INT(w.n, 2);
	CHECK_STR(w.v[1], "");
	cm_strv_release(&w);
	CHECK_INT(fcr_shell_split("'open", &w, &err), -1);
	cm_strv_release(&w);
	CHECK_INT(fcr_shell_split("trail\\", &w, &err), -1);
	cm_strv_release(&w);

	char *argv[] = {"echo", "it's", "a b", "", "plain-1.0", NULL};
	char *j = fcr_shell_join(argv);
	CHECK_STR(j, "echo 'it'\\''s' 'a b' '' plain-1.0");
	/* what was joined splits back into the same words */
	CHECK_INT(fcr_shell_split(j, &w, &err), 0);
	CHECK_INT(w.n, 5);
	CHECK_STR(w.v[1], "it's");
	CHECK_STR(w.v[2], "a b");
	CHECK_STR(w.v[3], "");
	cm_strv_release(&w);
	free(j);
}

static struct fcr_campaign *parse(const char *text, struct cm_strv *errors)
{
	struct fcr_campaign *c = NULL;
	fcr_campaign_parse(text, strlen(text), "t.ini", fcr_catalog(), &c, errors);
	return c;
}

static void test_campaign(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c =
	    parse("\xef\xbb\xbf; comment\r\n"
		  "[campaign]\r\n"
		  "suite = rw4k ./my.fio ; two tests\n"
		  "directory = /srv/fio\n"
		  "size = 4G # comment\n"
		  "target = ssh bench@[::1]:2222\n"
		  "pause=1m30s\n"
		  "[state a]\n"
		  "before = settle 10s; wait-ssh; run sh -c 'x; y' # c\n"
		  "before = hash /etc/passwd\n"
		  "[state b]\n"
		  "before = verify-hash /etc/passwd; wait-ssh host.example:22;\n",
		  &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (!c) {
		for (size_t i = 0; i < errors.n; i++)
			fprintf(stderr, "%s\n", errors.v[i]);
		cm_strv_release(&errors);
		return;
	}
	CHECK_STR(c->name, "t");
	CHECK_INT(c->suite.n, 2);
	CHECK_STR(c->suite.v[1], "./my.fio");
	CHECK_U64(c->size_bytes, 4ull << 30);
	CHECK_U64(c->pause_ms, 90000);
	CHECK_INT(c->target, FCR_TARGET_SSH);
	CHECK_STR(c->ssh_dest, "bench@::1");
	CHECK_STR(c->ssh_host, "::1");
	CHECK_INT(c->ssh_port, 2222);
	CHECK_INT(c->n_states, 2);
	CHECK_INT(c->states[0].n_actions, 4);
	const struct fcr_step *a = c->states[0].actions;
	CHECK_STR(a[0].def->name, "settle");
	CHECK_U64(a[0].def->duration_ms(&a[0]), 10000);
	CHECK_STR(a[1].def->name, "wait-ssh");
	/* without HOST[:PORT], wait-ssh probes the ssh target */
	struct fcr_target t = {.c = c};
	const char *host = NULL;
	unsigned port = 0;
	CHECK(fcr_wait_ssh_where(&a[1], &t, &host, &port));
	CHECK_STR(host, "::1");
	CHECK_INT(port, 2222);
	CHECK_STR(a[2].def->name, "run");
	CHECK_STR(c->states[0].actions[2].words.v[3], "x; y");
	CHECK_INT(c->states[0].actions[3].line, 10);
	CHECK_INT(c->states[1].n_actions, 2);
	CHECK(fcr_wait_ssh_where(&c->states[1].actions[1], &t, &host, &port));
	CHECK_STR(host, "host.example");
	CHECK_INT(port, 22);
	CHECK(!fcr_wait_ssh_where(&a[0], &t, &host, &port));
	char *f = fcr_campaign_test_file(c);
	CHECK_STR(f, "/srv/fio/fiocamp.testfile");
	free(f);
	fcr_campaign_free(c);

	/* the line of each problem */
	c = parse("[campaign]\nsuite = a a\ndirectory = /x\nsize = 1M\nrounds = 1\n"
		  "[state s]\nbefore = ;\n",
		  &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 2);
	if (errors.n == 2) {
		CHECK_STR(errors.v[0], "t.ini:2: test 'a' appears twice in the suite");
		CHECK_STR(errors.v[1], "t.ini:7: empty action in 'before'");
	}
	cm_strv_release(&errors);

	/* a verify-hash after a hash that has no path is an error, not a crash */
	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state s]\n"
		  "before = hash; verify-hash /x\n",
		  &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 2);
	if (errors.n == 2) {
		CHECK_STR(errors.v[0],
			  "t.ini:6: 'hash': wrong number of arguments (usage: hash PATH)");
		CHECK_STR(errors.v[1], "t.ini:6: verify-hash /x: no earlier 'hash /x' or 'payload "
				       "/x SIZE' to compare with");
	}
	cm_strv_release(&errors);

	/* more than 20 problems: 20 lines and a count */
	struct cm_buf b = {0};
	cm_buf_puts(&b, "[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state s]\n");
	for (int i = 0; i < 25; i++)
		cm_buf_puts(&b, "nope = 1\n");
	c = parse(b.s, &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 21);
	if (errors.n == 21)
		CHECK_STR(errors.v[20], "t.ini: 5 more errors");
	cm_strv_release(&errors);
	cm_buf_release(&b);
}

/* Values that would break what comes after the parser: JSON wants UTF-8, ssh
 * takes a word starting with '-' as an option, a file size must fit off_t. */
static void test_campaign_refusals(void)
{
	static const char head[] = "[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n";
	static const struct {
		const char *tail;
		const char *error;
	} cases[] = {
	    {"[state s]\nbefore = run echo caf\xe9\n",
	     "t.ini:6: not UTF-8 text (byte 0xe9 in column 22)"},
	    {"[state s\xc3\xa9]\n", "t.ini:5: bad state name 's\xc3\xa9' (letters, digits, "
				    "'.', '_', '-')"},
	    {"direct = maybe\n[state s]\n", "t.ini:5: bad direct 'maybe' (expected 1 or 0)"},
	    {"target = ssh -oProxyCommand=x@host\n[state s]\n",
	     "t.ini:5: bad ssh destination '-oProxyCommand=x@host' (expected USER@HOST[:PORT])"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		struct cm_strv errors = {0};
		char *text = cm_asprintf("%s%s", head, cases[i].tail);
		struct fcr_campaign *c = parse(text, &errors);
		CHECK(c == NULL);
		CHECK_INT(errors.n, 1);
		if (errors.n == 1)
			CHECK_STR(errors.v[0], cases[i].error);
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(text);
	}
	/* a size beyond what a file offset (off_t) holds */
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 16777215T\n"
				       "[state s]\n",
				       &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 1);
	if (errors.n == 1)
		CHECK_STR(errors.v[0], "t.ini:4: size '16777215T' is larger than a file can be");
	cm_strv_release(&errors);
	/* UTF-8 in a name where names may have it (an action's argument) is fine */
	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state s]\n"
		  "before = run echo 'caf\xc3\xa9 \xf0\x9f\x98\x80'\n",
		  &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c)
		CHECK_STR(c->states[0].actions[0].words.v[2], "caf\xc3\xa9 \xf0\x9f\x98\x80");
	fcr_campaign_free(c);
	cm_strv_release(&errors);

	/* the validator itself: overlong forms, surrogates, truncated sequences */
	CHECK_U64(cm_utf8_valid_len("ab\xc3\xa9", 4), 4);
	CHECK_U64(cm_utf8_valid_len("a\xc0\xafz", 4), 1);
	CHECK_U64(cm_utf8_valid_len("a\xed\xa0\x80", 4), 1);
	CHECK_U64(cm_utf8_valid_len("ab\xe2\x82", 4), 2);
	CHECK_U64(cm_utf8_valid_len("\xf4\x90\x80\x80", 4), 0);
	CHECK_U64(cm_utf8_valid_len("\xf4\x8f\xbf\xbf", 4), 4);
}

/* rounds = until-steady MAX and steady-window, in [campaign] and a state. */
static void test_until_steady(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n"
				       "rounds = until-steady 10\n"
				       "[state basis]\n"
				       "[state fixed]\nrounds = 3\n"
				       "[state own]\nrounds = until-steady 8\nsteady-window = 4\n",
				       &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_INT(c->steady_max, 10);
		CHECK_INT(c->steady_window, 5);
		CHECK_INT(c->states[0].rounds, 10);
		CHECK_INT(c->states[0].steady_max, 10);
		CHECK_INT(c->states[0].steady_window, 5);
		CHECK_INT(c->states[1].rounds, 3);
		CHECK_INT(c->states[1].steady_max, 0);
		CHECK_INT(c->states[2].rounds, 8);
		CHECK_INT(c->states[2].steady_max, 8);
		CHECK_INT(c->states[2].steady_window, 4);
	}
	fcr_campaign_free(c);
	cm_strv_release(&errors);

	static const char head[] = "[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n";
	static const struct {
		const char *tail;
		const char *error;
	} cases[] = {
	    {"rounds = until-steady\n[state s]\n",
	     "t.ini:5: bad rounds 'until-steady' (expected until-steady MAX, the most rounds, "
	     "from 2 to 10000)"},
	    {"rounds = until-steady 1\n[state s]\n",
	     "t.ini:5: bad rounds 'until-steady 1' (expected until-steady MAX, the most rounds, "
	     "from 2 to 10000)"},
	    {"rounds = until-steady 10001\n[state s]\n",
	     "t.ini:5: bad rounds 'until-steady 10001' (expected until-steady MAX, the most "
	     "rounds, from 2 to 10000)"},
	    {"rounds = until-steadyish 4\n[state s]\n",
	     "t.ini:5: bad rounds 'until-steadyish 4' (expected a number from 0 to 10000, or "
	     "until-steady MAX)"},
	    {"rounds = until-steady 4\n[state s]\n[state t]\n",
	     "t.ini:5: rounds = until-steady 4 is fewer rounds than the steady window of 5 "
	     "(steady-window)"},
	    {"rounds = until-steady 8\nsteady-window = 1\n[state s]\n",
	     "t.ini:6: bad steady-window '1' (expected a number of rounds from 2 to 10000)"},
	    {"rounds = until-steady 8\nsteady-window = 9\n[state s]\n",
	     "t.ini:5: rounds = until-steady 8 is fewer rounds than the steady window of 9 "
	     "(steady-window)"},
	    {"steady-window = 3\n[state s]\n",
	     "t.ini:5: steady-window needs rounds = until-steady MAX in [campaign] or a state"},
	    {"[state s]\nrounds = until-steady 6\nsteady-window = 7\n",
	     "t.ini:6: rounds = until-steady 6 in [state s] is fewer rounds than its steady "
	     "window of 7 (steady-window)"},
	    {"[state s]\nrounds = 4\nsteady-window = 3\n",
	     "t.ini:7: steady-window needs rounds = until-steady MAX in [state s] or [campaign]"},
	    {"[state s]\nsteady-window = 3\nsteady-window = 4\nrounds = until-steady 6\n",
	     "t.ini:7: 'steady-window' was already set on line 6"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		char *text = cm_asprintf("%s%s", head, cases[i].tail);
		c = parse(text, &errors);
		CHECK(c == NULL);
		CHECK_INT(errors.n, 1);
		if (errors.n == 1)
			CHECK_STR(errors.v[0], cases[i].error);
		else
			for (size_t k = 0; k < errors.n; k++)
				fprintf(stderr, "  case %zu: %s\n", i, errors.v[k]);
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(text);
	}
}

/* The netcup provider's keys and actions are checked while parsing. */
static void test_netcup(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c =
	    parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n"
		  "[provider]\ntype = netcup\nserver-id = 42\n"
		  "token-file = /t/tok\npoll-interval = 250ms\n"
		  "api-url = http://127.0.0.1:9/scp-core\n"
		  "[state s]\nbefore = power-off hard; snapshot s1 disk vda offline; "
		  "power-on; reboot; revert s1; delete-snapshot all-created\n",
		  &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		CHECK_STR(c->provider_type, "netcup");
		CHECK_INT(c->states[0].n_actions, 6);
		/* power-off, snapshot, power-on, reboot, revert, delete-snapshot */
		const bool down[] = {true, false, false, true, true, false};
		const bool up[] = {false, false, true, true, true, false};
		for (size_t i = 0; i < 6 && i < c->states[0].n_actions; i++) {
			CHECK(c->states[0].actions[i].from_provider);
			CHECK_INT(c->states[0].actions[i].takes_down, down[i]);
			CHECK_INT(c->states[0].actions[i].brings_up, up[i]);
		}
	}
	fcr_campaign_free(c);

	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n"
		  "[provider]\ntype = netcup\nserver-id = 0\nhttp-timeout = 2d\n"
		  "auth-url = ftp://x\n[state s]\nbefore = snapshot a b; delete-snapshot\n",
		  &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 5);
	if (errors.n == 5) {
		CHECK_STR(errors.v[0],
			  "t.ini:7: server-id '0' is not a netcup server id (a number "
			  "from 1 to 2147483647: the one the SCP shows for the server)");
		CHECK_STR(errors.v[1],
			  "t.ini:8: http-timeout: '2d' must be more than 0 and at most "
			  "1d");
		CHECK_STR(errors.v[2], "t.ini:9: auth-url \"ftp://x\": scheme ftp is not supported "
				       "(expected https)");
		CHECK_STR(errors.v[3], "t.ini:11: 'snapshot a b': unexpected 'b' (usage: snapshot "
				       "NAME [online|offline] [disk DISK])");
		CHECK_STR(errors.v[4], "t.ini:11: 'delete-snapshot': wrong number of arguments "
				       "(usage: delete-snapshot NAME|all-created)");
	}
	cm_strv_release(&errors);
}

/* Names become file names: one too long is refused while the file is read,
 * not when its state is reached after earlier states' actions ran. */
static void test_name_lengths(void)
{
	char *longest = cm_calloc(1, FCR_NAME_MAX_BYTES + 2);
	memset(longest, 's', FCR_NAME_MAX_BYTES);
	/* at the limit: fine */
	struct cm_strv errors = {0};
	char *text =
	    cm_asprintf("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state %s]\n", longest);
	struct fcr_campaign *c = parse(text, &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	fcr_campaign_free(c);
	free(text);
	longest[FCR_NAME_MAX_BYTES] = 's';
	static const struct {
		const char *before, *after, *what;
	} forms[] = {
	    {"[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state ", "]\n", "state"},
	    {"[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\nname = ", "\n[state a]\n",
	     "campaign"},
	    {"[campaign]\ndirectory = /x\nsize = 1M\nsuite = b ", "\n[state a]\n", "test"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(forms); i++) {
		char *t = cm_asprintf("%s%s%s", forms[i].before, longest, forms[i].after);
		c = parse(t, &errors);
		CHECK(c == NULL);
		CHECK_INT(errors.n, 1);
		char want[128];
		snprintf(want, sizeof(want), "%s name 'ssss", forms[i].what);
		if (errors.n == 1) {
			CHECK(strstr(errors.v[0], want) != NULL);
			CHECK(strstr(errors.v[0], "is 201 bytes long; names have at most 200") !=
			      NULL);
		}
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(t);
	}
	free(longest);
}

/* A suite of 100,000 tests is read in linear time: once 89 s (a quadratic
 * duplicate check), now well below a second; the bound is generous for a
 * sanitizer build on a loaded machine. */
static void test_big_suite(void)
{
	enum { N_TESTS = 100000 };
	struct cm_buf b = {0};
	cm_buf_puts(&b, "[campaign]\ndirectory = /x\nsize = 1M\nsuite =");
	for (int i = 0; i < N_TESTS; i++)
		cm_buf_printf(&b, " t%06d", i);
	cm_buf_puts(&b, " t000042\n[state a]\n");
	struct cm_strv errors = {0};
	double t0 = cm_mono_s();
	struct fcr_campaign *c = NULL;
	fcr_campaign_parse(b.s, b.len, "big.ini", fcr_catalog(), &c, &errors);
	double took = cm_mono_s() - t0;
	CHECK(c == NULL);
	CHECK_INT(errors.n, 1);
	if (errors.n)
		CHECK_STR(errors.v[0], "big.ini:4: test 't000042' appears twice in the suite");
	printf("a suite of %d tests parsed in %.3f s\n", N_TESTS + 1, took);
	CHECK(took < 10.0);
	fcr_campaign_free(c);
	cm_strv_release(&errors);
	cm_buf_release(&b);
}

/* "did you mean": edit distances and the closest name */
static void test_suggestions(void)
{
	CHECK_INT(fcr_edit_distance("rr4k", "rr4k"), 0);
	CHECK_INT(fcr_edit_distance("rr4kk", "rr4k"), 1);
	CHECK_INT(fcr_edit_distance("wr4k", "rw4k"), 1); /* a swap is one edit */
	CHECK_INT(fcr_edit_distance("", "abc"), 3);
	CHECK_INT(fcr_edit_distance("lat4k", "rr4k"), 3);
	char long_word[400];
	memset(long_word, 'a', sizeof(long_word) - 1);
	long_word[sizeof(long_word) - 1] = '\0';
	CHECK(fcr_edit_distance(long_word, "a") == SIZE_MAX);

	struct cm_strv names = {0};
	cm_strv_add(&names, "rr4k");
	cm_strv_add(&names, "rw4k");
	cm_strv_add(&names, "lat4k");
	cm_strv_add(&names, "randread-qd32-jobs4");
	CHECK_STR(fcr_closest_name("rw4kk", &names), "rw4k");
	CHECK_STR(fcr_closest_name("lta4k", &names), "lat4k");
	CHECK_STR(fcr_closest_name("randread-qd23-job4", &names), "randread-qd32-jobs4");
	CHECK(fcr_closest_name("seqwrite", &names) == NULL);
	CHECK(fcr_closest_name("r4kr", &names) == NULL); /* two edits in a short name */
	CHECK(fcr_closest_name(long_word, &names) == NULL);
	cm_strv_release(&names);
}

/* [variant NAME] sections, sizes as a dimension and the order of the units. */
static void test_variants(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse("[campaign]\n"
				       "suite = rw4k\n"
				       "size = 16G 32G\n"
				       "variants = zvol raw img\n"
				       "[variant zvol]\n"
				       "directory = /mnt/zvol/\n"
				       "before = remote mount /dev/vdb /mnt/zvol; settle 1s\n"
				       "[variant raw]\n"
				       "filename = /dev/vdc\n"
				       "destructive = yes\n"
				       "size = 8G\n"
				       "[variant img]\n"
				       "directory = /mnt/img\n"
				       "[state s]\n",
				       &errors);
	CHECK(c != NULL);
	for (size_t i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	cm_strv_release(&errors);
	if (!c)
		return;
	CHECK_INT(c->n_variants, 3);
	CHECK(c->directory == NULL);
	CHECK(c->by_size);
	CHECK(fcr_campaign_has_units(c));
	CHECK_U64(c->size_bytes, 32ull << 30);
	CHECK_STR(c->variants[0].test_file, "/mnt/zvol/fiocamp.testfile");
	CHECK_INT(c->variants[0].n_actions, 2);
	CHECK_STR(c->variants[1].test_file, "/dev/vdc");
	CHECK_U64(c->variants[1].file_bytes, 8ull << 30);
	CHECK_INT(c->variants[2].n_sizes, 2);
	/* zvol x 2 sizes, raw x 1, img x 2 */
	CHECK_INT(c->n_units, 5);
	const char *dirs[] = {"zvol/16G", "zvol/32G", "raw/8G", "img/16G", "img/32G"};
	for (size_t i = 0; i < CM_ARRAY_SIZE(dirs) && i < c->n_units; i++)
		CHECK_STR(c->units[i].dir, dirs[i]);
	/* round 1 starts with zvol, round 2 with raw, round 3 with img, round 4
	 * with zvol again; each variant's sizes stay together */
	const size_t want[4][5] = {
	    {0, 1, 2, 3, 4}, {2, 3, 4, 0, 1}, {3, 4, 0, 1, 2}, {0, 1, 2, 3, 4}};
	for (unsigned r = 1; r <= 4; r++) {
		for (size_t k = 0; k < 5; k++)
			CHECK_U64(fcr_campaign_unit_at(c, r, k), want[r - 1][k]);
	}
	fcr_campaign_free(c);

	/* sizes alone rotate too; one size and no variants: no units */
	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M 2M 3M\n[state s]\n", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK(fcr_campaign_has_units(c));
		CHECK_STR(c->units[0].dir, "1M");
		CHECK_U64(fcr_campaign_unit_at(c, 2, 0), 1);
		CHECK_U64(fcr_campaign_unit_at(c, 3, 2), 1);
	}
	fcr_campaign_free(c);
	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n[state s]\n", &errors);
	CHECK(c != NULL);
	if (c) {
		CHECK(!fcr_campaign_has_units(c));
		CHECK_INT(c->n_units, 1);
		CHECK_STR(c->units[0].dir, "");
	}
	fcr_campaign_free(c);
	/* sequential: every round the same order */
	c = parse("[campaign]\nsuite = a\nsize = 1M\nvariants = a b\norder = sequential\n"
		  "[variant a]\ndirectory = /a\n[variant b]\ndirectory = /b\n[state s]\n",
		  &errors);
	CHECK(c != NULL);
	if (c)
		CHECK_U64(fcr_campaign_unit_at(c, 2, 0), 0);
	fcr_campaign_free(c);
	CHECK_INT(errors.n, 0);
	cm_strv_release(&errors);
}

static void test_variant_refusals(void)
{
	static const char head[] = "[campaign]\nsuite = a\nsize = 1M\nvariants = v\n";
	static const struct {
		const char *tail;
		const char *error;
	} cases[] = {
	    {"[variant v]\nfilename = /dev/sdb\n[state s]\n",
	     "t.ini:6: [variant v]: filename = /dev/sdb writes over the device; refused unless "
	     "the section says destructive = yes"},
	    {"[variant v]\n[state s]\n",
	     "t.ini:5: [variant v] needs either 'directory' (where its test file lives) or "
	     "'filename' (a block device), not neither"},
	    {"[variant v]\ndirectory = rel\n[state s]\n",
	     "t.ini:6: directory 'rel' must be an absolute path"},
	    {"[variant v]\ndirectory = /a\ndestructive = yes\n[state s]\n",
	     "t.ini:7: [variant v]: 'destructive' is only meaningful with filename ="},
	    {"[variant v]\ndirectory = /a\nsize = 1M 1024k\n[state s]\n",
	     "t.ini:7: size '1024k' is given twice (as '1M' before)"},
	    {"[variant v]\ndirectory = /a\nsize = 1M 1.5M\n[state s]\n",
	     "t.ini:7: size: bad size '1.5M'"},
	    {"[variant v]\ndirectory = /a\nbefore = fresh-file\n[state s]\n",
	     "t.ini:7: 'fresh-file' cannot be in a variant's before (run, remote and settle "
	     "can; what changes the machine belongs to a [state])"},
	    {"[variant v]\ndirectory = /a\ncolour = red\n[state s]\n",
	     "t.ini:7: unknown key 'colour' in [variant v] (expected directory, filename, "
	     "destructive, size, before)"},
	    {"[variant v]\ndirectory = /a\n[state s]\nbefore = prefill\n",
	     "t.ini:8: 'prefill' acts on the test file, and with variants each has its own: use "
	     "prefill = yes in [campaign] (each variant is prefilled at its first use)"},
	    {"[variant v]\ndirectory = /a\n[variant w]\ndirectory = /b\n[state s]\n",
	     "t.ini:7: [variant w] is not listed in 'variants' of [campaign]"},
	    {"[variant v.failed-1]\n[state s]\n",
	     "t.ini:5: variant name 'v.failed-1' looks like a directory moved aside "
	     "(NAME.interrupted-K, NAME.failed-K)"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		struct cm_strv errors = {0};
		char *text = cm_asprintf("%s%s", head, cases[i].tail);
		struct fcr_campaign *c = parse(text, &errors);
		CHECK(c == NULL);
		bool found = false;
		for (size_t k = 0; k < errors.n; k++)
			found |= !strncmp(errors.v[k], cases[i].error, strlen(cases[i].error));
		if (!found) {
			fprintf(stderr, "case %zu: wanted %s\n", i, cases[i].error);
			for (size_t k = 0; k < errors.n; k++)
				fprintf(stderr, "  got %s\n", errors.v[k]);
		}
		CHECK(found);
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(text);
	}
	/* two variants on one place; order without anything to order */
	struct cm_strv errors = {0};
	struct fcr_campaign *c = parse("[campaign]\nsuite = a\nsize = 1M\nvariants = a b\n"
				       "[variant a]\ndirectory = /x\n[variant b]\ndirectory = /x\n"
				       "[state s]\n",
				       &errors);
	CHECK(c == NULL);
	CHECK_INT(errors.n, 1);
	if (errors.n == 1)
		CHECK_STR(errors.v[0], "t.ini:7: variants 'a' and 'b' both use /x");
	cm_strv_release(&errors);
	c = parse("[campaign]\nsuite = a\nsize = 1M\ndirectory = /x\norder = sequential\n"
		  "[state s]\n",
		  &errors);
	CHECK(c == NULL);
	if (errors.n == 1)
		CHECK_STR(errors.v[0], "t.ini:5: 'order' needs variants, several sizes or a sweep");
	cm_strv_release(&errors);
}

/* The device check's decision, from the facts its script prints. */
/* `sweep =`: the points, their order and names, and the values refused. */
static void test_sweep(void)
{
	struct cm_strv errors = {0};
	struct fcr_campaign *c =
	    parse("[campaign]\nsuite = a b\ndirectory = /x\nsize = 1M\nrounds = 2\n"
		  "sweep = iodepth=1,16 numjobs=1,2\n[state s]\n[state t]\nsweep = bs=4k,64KiB "
		  "rw=randread,randrw rwmixread=0,70,100\n[state u]\nsweep = none\n",
		  &errors);
	CHECK(c != NULL);
	CHECK_INT(errors.n, 0);
	if (c) {
		const struct fcr_sweep *sw = c->states[0].sweep;
		CHECK(sw == &c->sweep);
		CHECK_U64(sw->n_points, 4);
		CHECK_U64(fcr_state_runs(&c->states[0]), 8);
		const char *names[] = {"iodepth=1,numjobs=1", "iodepth=1,numjobs=2",
				       "iodepth=16,numjobs=1", "iodepth=16,numjobs=2"};
		for (size_t p = 0; p < 4; p++) {
			char *n = fcr_sweep_point_name(sw, p);
			CHECK_STR(n, names[p]);
			free(n);
		}
		char *run = fcr_sweep_run_name(sw, 3, "a");
		CHECK_STR(run, "a@iodepth=16,numjobs=2");
		free(run);
		CHECK_STR(fcr_sweep_opt_env(sw->axes[1].opt), "FIOCAMP_NUMJOBS");
		/* round 1 starts with the first point, round 2 with the second;
		 * each point runs the whole suite */
		size_t ti, pt;
		fcr_state_run_at(c, &c->states[0], 1, 0, &ti, &pt);
		CHECK_U64(ti, 0);
		CHECK_U64(pt, 0);
		fcr_state_run_at(c, &c->states[0], 1, 3, &ti, &pt);
		CHECK_U64(ti, 1);
		CHECK_U64(pt, 1);
		fcr_state_run_at(c, &c->states[0], 2, 0, &ti, &pt);
		CHECK_U64(pt, 1);
		fcr_state_run_at(c, &c->states[0], 2, 7, &ti, &pt);
		CHECK_U64(ti, 1);
		CHECK_U64(pt, 0);
		/* a state's own sweep, and none */
		CHECK_U64(c->states[1].sweep->n_points, 12);
		char *n = fcr_sweep_point_name(c->states[1].sweep, 11);
		CHECK_STR(n, "bs=64KiB,rw=randrw,rwmixread=100");
		free(n);
		CHECK_U64(c->states[2].sweep->n_points, 1);
		CHECK_U64(c->states[2].sweep->n_axes, 0);
		run = fcr_sweep_run_name(c->states[2].sweep, 0, "a");
		CHECK_STR(run, "a");
		free(run);
	}
	fcr_campaign_free(c);
	cm_strv_release(&errors);

	/* sequential: no rotation */
	c = parse("[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\norder = sequential\n"
		  "sweep = iodepth=1,2,4\n[state s]\n",
		  &errors);
	CHECK(c != NULL);
	if (c) {
		size_t ti, pt;
		fcr_state_run_at(c, &c->states[0], 3, 0, &ti, &pt);
		CHECK_U64(pt, 0);
	}
	fcr_campaign_free(c);
	cm_strv_release(&errors);

	static const char head[] = "[campaign]\nsuite = a\ndirectory = /x\nsize = 1M\n";
	static const struct {
		const char *tail;
		const char *error;
	} cases[] = {
	    {"sweep = qd=1,2\n[state s]\n",
	     "t.ini:5: sweep: unknown option 'qd' (expected iodepth, numjobs, bs, rw or "
	     "rwmixread, as OPTION=V1,V2)"},
	    {"sweep = iodepth=1,0\n[state s]\n",
	     "t.ini:5: sweep: bad iodepth '0' (expected a whole number from 1 to 65536)"},
	    {"sweep = numjobs=two\n[state s]\n",
	     "t.ini:5: sweep: bad numjobs 'two' (expected a whole number from 1 to 65536)"},
	    {"sweep = bs=4x\n[state s]\n",
	     "t.ini:5: sweep: bad bs '4x' (expected a size such as 512, 4k or 1M)"},
	    {"sweep = bs=0k\n[state s]\n",
	     "t.ini:5: sweep: bad bs '0k' (expected a size such as 512, 4k or 1M)"},
	    {"sweep = rw=randomread\n[state s]\n",
	     "t.ini:5: sweep: bad rw 'randomread' (expected read, write, trim, randread, "
	     "randwrite, randtrim, readwrite, rw, randrw, trimwrite or randtrimwrite)"},
	    {"sweep = rwmixread=101\n[state s]\n",
	     "t.ini:5: sweep: bad rwmixread '101' (expected a percentage from 0 to 100)"},
	    {"sweep = iodepth=1,,2\n[state s]\n",
	     "t.ini:5: sweep: bad iodepth '' (expected a whole number from 1 to 65536)"},
	    {"sweep = iodepth=1,1\n[state s]\n", "t.ini:5: sweep: iodepth '1' is listed twice"},
	    {"sweep = iodepth=1 iodepth=2\n[state s]\n",
	     "t.ini:5: sweep: 'iodepth' is swept twice"},
	    {"sweep = iodepth\n[state s]\n", "t.ini:5: sweep: 'iodepth' needs its values: "
					     "iodepth=V1,V2"},
	    {"[state s]\nsweep = bs=4k\nsweep = bs=8k\n",
	     "t.ini:7: 'sweep' was already set on line 6"},
	    {"sweep = iodepth=1,2\n[state s]\nrounds = until-steady 8\n",
	     "t.ini:5: state s: a sweep and rounds = until-steady do not go together "
	     "(steadiness is judged per test, not per point)"},
	    {"[state s]\nsweep = numjobs=1,2,3,4,5,6,7,8,9,10,11 iodepth=1,2,3,4,5,6,7,8,9,10 "
	     "bs=1k,2k,4k,8k,16k,32k,64k,128k,256k,512k\n",
	     "t.ini:6: sweep: more than 1024 points"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		char *text = cm_asprintf("%s%s", head, cases[i].tail);
		c = parse(text, &errors);
		CHECK(c == NULL);
		CHECK_INT(errors.n, 1);
		if (errors.n == 1)
			CHECK_STR(errors.v[0], cases[i].error);
		fcr_campaign_free(c);
		cm_strv_release(&errors);
		free(text);
	}
}

static void test_place_judge(void)
{
	static const struct {
		const char *facts;
		const char *error; /* NULL: accepted */
	} cases[] = {
	    {"dev 8:16\nsize 2097152\nmount 254:0 /\nmount 0:23 /dev/shm\n", NULL},
	    {"missing\n", "/dev/sdb does not exist"},
	    {"notblock\n", "/dev/sdb is not a block device"},
	    {"dev 8:16\nmount 8:16 /mnt/x\n",
	     "/dev/sdb is mounted on /mnt/x: refused, a variant writes over the whole device"},
	    {"dev 8:16\npart 8:17 sdb1\npart 8:18 sdb2\nmount 8:18 /srv/my\\040data\n",
	     "/dev/sdb: its partition sdb2 is mounted on /srv/my data: refused"},
	    {"dev 8:16\npart 8:17 sdb1\nswap 8:17 /dev/sdb1\n",
	     "/dev/sdb: its partition sdb1 is used as swap (/dev/sdb1): refused"},
	    {"dev 8:16\nholder dm-0\n", "/dev/sdb is in use: dm-0 holds it"},
	    {"dev 8:16\nsize 2048\n", "/dev/sdb holds 1 MiB, the variant's size is 1G"},
	    {"", "/dev/sdb: no device number found"},
	};
	for (size_t i = 0; i < CM_ARRAY_SIZE(cases); i++) {
		char *facts = cm_strdup(cases[i].facts);
		struct fcr_error err = {0};
		int rc = fcr_place_judge("/dev/sdb", facts, 1ull << 30, &err);
		if (!cases[i].error) {
			CHECK_INT(rc, 0);
		} else {
			CHECK_INT(rc, -1);
			if (strncmp(err.msg, cases[i].error, strlen(cases[i].error)))
				fprintf(stderr, "case %zu: %s\n", i, err.msg);
			CHECK(!strncmp(err.msg, cases[i].error, strlen(cases[i].error)));
		}
		free(facts);
	}
}

int main(void)
{
	test_durations();
	test_sizes();
	test_shell();
	test_campaign();
	test_campaign_refusals();
	test_until_steady();
	test_netcup();
	test_name_lengths();
	test_big_suite();
	test_suggestions();
	test_variants();
	test_variant_refusals();
	test_sweep();
	test_place_judge();
	return check_exit();
}
