/* SPDX-License-Identifier: MIT */
/*
 * The netcup provider against the fake SCP server (tests/fake-scp), started
 * by test-netcup.py, which passes in the environment:
 *   FAKE_SCP_URL            http://127.0.0.1:PORT
 *   FAKE_SCP_SSH_PORT       the fake's "SSH" port
 *   FAKE_SCP_REFRESH_TOKEN  the refresh token the fake accepts
 *   NETCUP_TEST_DIR         a scratch directory (token files, events.jsonl)
 * Each test resets the fake, runs the client, and checks the exact requests
 * the fake logged (method, path, query, headers, body), as curl's test suite
 * pairs replies with expected requests.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "common/common.h"
#include "netcup/netcup.h"

#define SERVER_ID 111007

static const char *base_url;
static const char *refresh_token;
static const char *test_dir;
static int ssh_port;
static char api_url[256], auth_url[256], token_path[512];
static FILE *events_file;

/* What the event callback saw. */
struct seen {
	int retries_lock, retries_unavailable, retries_transport, retries_unauthorized;
	int checks_task, checks_done, checks_not_received;
	int responses;
	int token_rotated, token_shared;
};
static struct seen seen;
/* Over the whole run, never reset. */
static int user_leaks, task_bodies;

/* ---- helpers --------------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void on_event(void *ctx, const char *type, json_t *fields)
{
	struct seen *s = ctx;
	char *text = json_dumps(fields, JSON_COMPACT | JSON_SORT_KEYS);
	if (events_file && text)
		fprintf(events_file, "{\"event\":\"%s\",\"fields\":%s}\n", type, text);
	if (strcmp(type, "api-retry") == 0) {
		const char *r = json_string_value(json_object_get(fields, "reason"));
		if (r && strcmp(r, "server.lock.error") == 0)
			s->retries_lock++;
		else if (r && strcmp(r, "unavailable") == 0)
			s->retries_unavailable++;
		else if (r && strcmp(r, "transport") == 0)
			s->retries_transport++;
		else if (r && strcmp(r, "unauthorized") == 0)
			s->retries_unauthorized++;
	} else if (strcmp(type, "write-check") == 0) {
		const char *o = json_string_value(json_object_get(fields, "outcome"));
		if (o && strcmp(o, "task") == 0)
			s->checks_task++;
		else if (o && strcmp(o, "done") == 0)
			s->checks_done++;
		else if (o && strcmp(o, "not-received") == 0)
			s->checks_not_received++;
	} else if (strcmp(type, "api-response") == 0) {
		s->responses++;
		if (text && strstr(text, "\"startedAt\""))
			task_bodies++;
		if (text && (strstr(text, "executingUser") || strstr(text, "@example.net")))
			user_leaks++;
	} else if (strcmp(type, "token") == 0) {
		const char *a = json_string_value(json_object_get(fields, "action"));
		if (a && strcmp(a, "rotated") == 0)
			s->token_rotated++;
		if (a && strcmp(a, "shared") == 0)
			s->token_shared++;
	}
	free(text);
}

static size_t sink(char *p, size_t size, size_t n, void *ud)
{
	struct {
		char *b;
		size_t len;
	} *s = ud;
	char *b = realloc(s->b, s->len + size * n + 1);
	if (!b)
		return 0;
	memcpy(b + s->len, p, size * n);
	s->b = b;
	s->len += size * n;
	s->b[s->len] = '\0';
	return size * n;
}

/* A control request to the fake; returns its JSON answer (new reference). */
static json_t *fake(const char *method, const char *path, const char *body)
{
	char url[512];
	struct {
		char *b;
		size_t len;
	} s = {0};
	snprintf(url, sizeof(url), "%s%s", base_url, path);
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	if (strcmp(method, "POST") == 0)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
	CURLcode rc = curl_easy_perform(c);
	curl_easy_cleanup(c);
	json_t *j = rc == CURLE_OK && s.b ? json_loads(s.b, 0, NULL) : NULL;
	free(s.b);
	if (!j) {
		fprintf(stderr, "control request %s %s failed\n", method, path);
		exit(99);
	}
	return j;
}

static void fake_post(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fake_post(const char *path, const char *fmt, ...)
{
	char *body = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		exit(99);
	va_end(ap);
	json_decref(fake("POST", path, body));
	free(body);
}

/* Resets the fake: one server, the test's refresh token, fast time, plus `extra` keys. */
/* Forgets the access token shared beside a token file (auth.c): the
 * next refresh goes to the token endpoint, as in a later run. */
static void forget_shared(const char *token_file)
{
	char p[600];
	snprintf(p, sizeof(p), "%s.access", token_file);
	unlink(p);
}

/* Whether dir holds exactly the file `name` and what auth.c keeps beside it
 * (name.lock; name.access unless `shared` is false). */
static bool only_beside(const char *dir, const char *name, bool shared)
{
	DIR *d = opendir(dir);
	int entries = 0, known = 0;
	char lock[300], access[300];
	snprintf(lock, sizeof(lock), "%s.lock", name);
	snprintf(access, sizeof(access), "%s.access", name);
	for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		entries++;
		known += !strcmp(e->d_name, name) || !strcmp(e->d_name, lock) ||
			 (shared && !strcmp(e->d_name, access));
	}
	if (d)
		closedir(d);
	return entries == known && known >= 1;
}

static void reset(const char *extra)
{
	forget_shared(token_path);
	fake_post("/_fake/reset",
		  "{\"refresh_token\":\"%s\",\"time_scale\":0.02,\"lock_window\":10,"
		  "\"boot_delay\":3%s%s}",
		  refresh_token, extra && extra[0] ? "," : "", extra ? extra : "");
	memset(&seen, 0, sizeof(seen));
}

static long log_mark(void)
{
	json_t *j = fake("GET", "/_fake/requests?since=1000000000", NULL);
	long next = (long)json_integer_value(json_object_get(j, "next"));
	json_decref(j);
	return next;
}

/* The requests logged since `mark` (new reference). */
static json_t *log_since(long mark)
{
	char path[64];
	snprintf(path, sizeof(path), "/_fake/requests?since=%ld", mark);
	json_t *j = fake("GET", path, NULL);
	json_t *r = json_incref(json_object_get(j, "requests"));
	json_decref(j);
	return r;
}

static const char *str(json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static const char *hdr(json_t *req, const char *name)
{
	return json_string_value(json_object_get(json_object_get(req, "headers"), name));
}

static bool req_is(json_t *req, const char *method, const char *path)
{
	return strcmp(str(req, "method"), method) == 0 && strcmp(str(req, "path"), path) == 0;
}

static size_t count_reqs(json_t *log, const char *method, const char *path)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(log, i, r) {
		if (req_is(r, method, path))
			n++;
	}
	return n;
}

/* The nth (0-based) request with that method and path, borrowed; NULL if none. */
static json_t *find_req(json_t *log, const char *method, const char *path, size_t nth)
{
	size_t i;
	json_t *r;
	json_array_foreach(log, i, r) {
		if (req_is(r, method, path) && nth-- == 0)
			return r;
	}
	return NULL;
}

static size_t count_prefix(json_t *log, const char *method, const char *prefix)
{
	size_t i, n = 0;
	json_t *r;
	json_array_foreach(log, i, r) {
		if (strcmp(str(r, "method"), method) == 0 &&
		    strncmp(str(r, "path"), prefix, strlen(prefix)) == 0)
			n++;
	}
	return n;
}

/* The body of a logged request equals `expected` as JSON. */
static bool body_is(json_t *req, const char *expected)
{
	json_t *a = json_loads(str(req, "body"), 0, NULL);
	json_t *b = json_loads(expected, 0, NULL);
	bool eq = a && b && json_equal(a, b);
	if (!eq)
		fprintf(stderr, "  body %s, expected %s\n", str(req, "body"), expected);
	json_decref(a);
	json_decref(b);
	return eq;
}

/* The fake's view of server SERVER_ID (new reference). */
static json_t *fake_server(void)
{
	json_t *j = fake("GET", "/_fake/state", NULL);
	json_t *s = json_incref(json_array_get(json_object_get(j, "servers"), 0));
	json_decref(j);
	return s;
}

static size_t fake_snapshots_named(const char *name)
{
	json_t *s = fake_server();
	size_t i, n = 0;
	json_t *snap;
	json_array_foreach(json_object_get(s, "snapshots"), i, snap) {
		if (strcmp(str(snap, "name"), name) == 0)
			n++;
	}
	json_decref(s);
	return n;
}

static char *fake_state(char *buf, size_t len)
{
	json_t *s = fake_server();
	snprintf(buf, len, "%s", str(json_object_get(s, "serverLiveInfo"), "state"));
	json_decref(s);
	return buf;
}

/* Connects to the fake's SSH port: 1 with an SSH-2.0 banner, 0 refused or silent. */
static int ssh_banner(void)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ssh_port)};
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	int ok = 0;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		char buf[64] = "";
		if (poll(&p, 1, 500) == 1 && read(fd, buf, sizeof(buf) - 1) > 0)
			ok = strncmp(buf, "SSH-2.0-", 8) == 0;
	}
	close(fd);
	return ok;
}

static int ssh_wait_banner(unsigned timeout_ms)
{
	double end = now_s() + timeout_ms / 1000.0;
	while (now_s() < end) {
		if (ssh_banner())
			return 1;
		sleep_ms(20);
	}
	return 0;
}

static void put_file(const char *path, const char *text, mode_t mode)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		perror(path);
		exit(99);
	}
	chmod(path, mode);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	char *buf = calloc(1, 65536);
	size_t n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void config(struct fcr_netcup_config *cfg)
{
	fcr_netcup_config_init(cfg);
	cfg->server_id = SERVER_ID;
	cfg->api_url = api_url;
	cfg->auth_url = auth_url;
	cfg->token_file = token_path;
	cfg->poll_interval_ms = 20;
	cfg->task_timeout_ms = 10000;
	cfg->http_timeout_ms = 3000;
	cfg->connect_timeout_ms = 1000;
	cfg->lock_wait_ms = 20;
	cfg->lock_retries = 100;
	cfg->unavailable_wait_ms = 50;
	cfg->unavailable_retries = 3;
	cfg->transport_wait_ms = 20;
	cfg->transport_retries = 3;
	cfg->slow_down_ms = 100;
	cfg->event = on_event;
	cfg->ctx = &seen;
}

static struct fcr_netcup *open_nc(const struct fcr_netcup_config *cfg)
{
	struct fcr_netcup *nc = NULL;
	struct fcr_error err = {0};
	if (fcr_netcup_new(cfg, &nc, &err) < 0) {
		fprintf(stderr, "fcr_netcup_new: %s\n", err.msg);
		exit(99);
	}
	return nc;
}

/* A process that holds a token is not dumpable: no core dump shows it
 * (issue 9, item 8).  Runs first, before anything has read a secret. */
static void test_not_dumpable(void)
{
	CHECK_INT(prctl(PR_GET_DUMPABLE), 1);
	struct fcr_netcup_config cfg;
	config(&cfg);
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(prctl(PR_GET_DUMPABLE), 0);
	fcr_netcup_free(nc);
	/* and stays so: the token was in memory, and may be again */
	CHECK_INT(prctl(PR_GET_DUMPABLE), 0);
}

/* Every error message is shown to users: never a token in it. */
static void check_clean(const struct fcr_error *err)
{
	CHECK(strstr(err->msg, refresh_token) == NULL);
	CHECK(strstr(err->msg, "fake-access-") == NULL);
	CHECK(strstr(err->msg, "fake-device-") == NULL);
}

/* ---- configuration -------------------------------------------------------- */

static void test_urls(void)
{
	static const struct {
		const char *url;
		bool ok;
	} cases[] = {
	    {"https://www.servercontrolpanel.de/scp-core", true},
	    {"http://127.0.0.1:9/scp-core", true},
	    {"http://127.8.9.10:9/", true},
	    {"http://[::1]:9/scp-core", true},
	    {"http://localhost:9", true},
	    {"http://LOCALHOST:9", true},
	    {"http://example.com/scp-core", false},
	    {"http://127.0.0.1.example.com/", false},
	    {"http://128.0.0.1/", false},
	    {"http://[::2]/", false},
	    {"http://10.0.0.1/", false},
	    {"ftp://127.0.0.1/", false},
	    {"https://user:secret@www.servercontrolpanel.de/scp-core", false},
	    {"https://www.servercontrolpanel.de/scp-core?x=1", false},
	    {"not a url", false},
	};
	struct fcr_netcup_config cfg;
	setenv(FCR_NETCUP_TOKEN_ENV, refresh_token, 1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int which = 0; which < 2; which++) {
			config(&cfg);
			cfg.token_file = NULL;
			if (which)
				cfg.auth_url = cases[i].url;
			else
				cfg.api_url = cases[i].url;
			struct fcr_netcup *nc = NULL;
			struct fcr_error err = {0};
			int rc = fcr_netcup_new(&cfg, &nc, &err);
			if (cases[i].ok != (rc == 0))
				fprintf(stderr, "  url %s (%s): rc %d %s\n", cases[i].url,
					which ? "auth" : "api", rc, err.msg);
			CHECK_INT(rc, cases[i].ok ? 0 : FCR_E_INVAL);
			if (!cases[i].ok)
				CHECK(strstr(err.msg, which ? "auth-url" : "api-url") != NULL);
			fcr_netcup_free(nc);
		}
	}
	/* the message names the rule and the fix */
	config(&cfg);
	cfg.api_url = "http://example.com/scp-core";
	struct fcr_netcup *nc = NULL;
	struct fcr_error err = {0};
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_INVAL);
	CHECK(strstr(err.msg, "loopback") && strstr(err.msg, "https"));
	CHECK(nc == NULL);
	/* and the defaults are the real API */
	config(&cfg);
	cfg.api_url = cfg.auth_url = NULL;
	cfg.token_file = NULL;
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), 0);
	fcr_netcup_free(nc);
	config(&cfg);
	cfg.server_id = 0;
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_INVAL);
	unsetenv(FCR_NETCUP_TOKEN_ENV);
}

static void test_token_file(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_netcup *nc = NULL;
	struct fcr_error err = {0};
	char path[600];
	snprintf(path, sizeof(path), "%s/mode.token", test_dir);
	config(&cfg);
	cfg.token_file = path;

	static const struct {
		mode_t mode;
		bool ok;
		const char *shown;
	} modes[] = {
	    {0644, false, "0644"}, {0640, false, "0640"}, {0604, false, "0604"},
	    {0660, false, "0660"}, {0600, true, NULL},	  {0400, true, NULL},
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char text[512];
		snprintf(text, sizeof(text), "%s\n", refresh_token);
		put_file(path, text, modes[i].mode);
		memset(&err, 0, sizeof(err));
		int rc = fcr_netcup_new(&cfg, &nc, &err);
		CHECK_INT(rc, modes[i].ok ? 0 : FCR_E_TOKEN);
		if (!modes[i].ok) {
			CHECK(strstr(err.msg, modes[i].shown) != NULL);
			char fix[700];
			snprintf(fix, sizeof(fix), "chmod 600 %s", path);
			CHECK(strstr(err.msg, fix) != NULL);
			check_clean(&err);
		}
		fcr_netcup_free(nc);
		nc = NULL;
	}
	/* missing, empty, two words */
	unlink(path);
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, "netcup-login") != NULL);
	put_file(path, "\n", 0600);
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, "empty") != NULL);
	put_file(path, "one two\n", 0600);
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_TOKEN);
	unlink(path);
	/* the environment when there is no file */
	cfg.token_file = NULL;
	unsetenv(FCR_NETCUP_TOKEN_ENV);
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), FCR_E_TOKEN);
	CHECK(strstr(err.msg, FCR_NETCUP_TOKEN_ENV) != NULL);
	setenv(FCR_NETCUP_TOKEN_ENV, refresh_token, 1);
	reset(NULL);
	CHECK_INT(fcr_netcup_new(&cfg, &nc, &err), 0);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	fcr_netcup_free(nc);
	unsetenv(FCR_NETCUP_TOKEN_ENV);
}

/* ---- auth ------------------------------------------------------------------ */

static void test_auth_cache(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_server s;
	config(&cfg);
	reset(NULL);
	long m = log_mark();
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	json_t *log = log_since(m);
	CHECK_INT(json_array_size(log), 3);
	json_t *tok = find_req(log, "POST", "/realms/scp/protocol/openid-connect/token", 0);
	CHECK(tok != NULL);
	if (tok) {
		CHECK_STR(hdr(tok, "content-type"), "application/x-www-form-urlencoded");
		CHECK_STR(str(tok, "body"),
			  "grant_type=refresh_token&client_id=scp&refresh_token=<refresh>");
		CHECK(hdr(tok, "authorization") == NULL);
	}
	for (size_t i = 0; i < 2; i++) {
		json_t *g = find_req(log, "GET", "/scp-core/api/v1/servers/111007", i);
		CHECK(g != NULL);
		if (!g)
			continue;
		CHECK_STR(hdr(g, "authorization"), "Bearer <access-1>");
		CHECK_STR(hdr(g, "accept"), "application/json");
		CHECK(hdr(g, "content-type") == NULL);
		CHECK_INT(json_integer_value(json_object_get(g, "status")), 200);
	}
	json_decref(log);
	fcr_netcup_free(nc);

	/* a short-lived token is renewed before it runs out: no 401 */
	reset("\"token_lifetime\":0.4");
	m = log_mark();
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	sleep_ms(300);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/realms/scp/protocol/openid-connect/token"), 2);
	json_t *g2 = find_req(log, "GET", "/scp-core/api/v1/servers/111007", 1);
	CHECK(g2 && strcmp(hdr(g2, "authorization"), "Bearer <access-2>") == 0);
	CHECK(g2 && json_integer_value(json_object_get(g2, "status")) == 200);
	CHECK_INT(seen.retries_unauthorized, 0);
	json_decref(log);
	fcr_netcup_free(nc);
}

static void test_401_retry(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_server s;
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	fake_post("/_fake/expire-tokens", "{}");
	long m = log_mark();
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	CHECK_STR(s.state, "RUNNING");
	json_t *log = log_since(m);
	CHECK_INT(json_array_size(log), 3);
	json_t *a = json_array_get(log, 0), *b = json_array_get(log, 1),
	       *c = json_array_get(log, 2);
	CHECK(req_is(a, "GET", "/scp-core/api/v1/servers/111007"));
	CHECK_INT(json_integer_value(json_object_get(a, "status")), 401);
	CHECK(req_is(b, "POST", "/realms/scp/protocol/openid-connect/token"));
	CHECK(req_is(c, "GET", "/scp-core/api/v1/servers/111007"));
	CHECK_INT(json_integer_value(json_object_get(c, "status")), 200);
	CHECK_STR(hdr(c, "authorization"), "Bearer <access-2>");
	CHECK_INT(seen.retries_unauthorized, 1);
	json_decref(log);

	/* a write after the token expired is sent again with the new token, once */
	fake_post("/_fake/expire-tokens", "{}");
	struct fcr_netcup_result res;
	m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, true, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007"), 1);
	json_decref(log);
	fcr_netcup_free(nc);

	/* a refresh token the endpoint refuses */
	reset("\"refresh_token\":\"some-other-token\"");
	nc = open_nc(&cfg);
	memset(&err, 0, sizeof(err));
	CHECK_INT(fcr_netcup_authenticate(nc, &err), FCR_E_AUTH);
	CHECK_STR(err.api_code, "invalid_grant");
	CHECK_INT(err.http_status, 400);
	CHECK(strstr(err.msg, "netcup-login") != NULL);
	check_clean(&err);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), FCR_E_AUTH);
	fcr_netcup_free(nc);

	/* a token endpoint that keeps failing is no reason to log in again */
	reset(NULL);
	fake_post("/_fake/fault",
		  "{\"kind\":\"status\",\"status\":503,\"method\":\"POST\","
		  "\"path\":\"/realms/scp/protocol/openid-connect/token\",\"count\":4}");
	nc = open_nc(&cfg);
	memset(&err, 0, sizeof(err));
	CHECK_INT(fcr_netcup_authenticate(nc, &err), FCR_E_API);
	CHECK_INT(err.http_status, 503);
	CHECK(strstr(err.msg, "answered HTTP 503") != NULL);
	CHECK(strstr(err.msg, "after 4 attempts; try again later") != NULL);
	CHECK(strstr(err.msg, "netcup-login") == NULL);
	check_clean(&err);
	fcr_netcup_free(nc);
}

static void test_rotation(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	char path[600], text[512];
	snprintf(path, sizeof(path), "%s/rot/rotating.token", test_dir);
	char dir[600];
	snprintf(dir, sizeof(dir), "%s/rot", test_dir);
	mkdir(dir, 0700);
	snprintf(text, sizeof(text), "%s\n", refresh_token);
	put_file(path, text, 0600);
	config(&cfg);
	cfg.token_file = path;
	reset("\"rotate\":true");
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	CHECK_INT(seen.token_rotated, 1);
	char *stored = read_text(path);
	CHECK(stored && strncmp(stored, "fiocamp-test-refresh-rotated-", 29) == 0);
	struct stat st;
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	/* nothing left beside it but the lock and the shared access token */
	CHECK(only_beside(dir, "rotating.token", true));
	char shared[700];
	snprintf(shared, sizeof(shared), "%s.access", path);
	CHECK_INT(stat(shared, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	char *cached = read_text(shared);
	CHECK(cached && !strstr(cached, stored ? stored : "-") && !strstr(cached, refresh_token));
	free(cached);
	fcr_netcup_free(nc);
	/* another process meanwhile takes that access token: no refresh */
	long m = log_mark();
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	CHECK_INT(seen.token_shared, 1);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/realms/scp/protocol/openid-connect/token"), 0);
	json_decref(log);
	fcr_netcup_free(nc);
	/* a later run starts from the stored one; the old one is refused now */
	forget_shared(path);
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	CHECK_INT(seen.token_rotated, 2);
	fcr_netcup_free(nc);
	char *again = read_text(path);
	CHECK(again && stored && strcmp(again, stored) != 0);
	free(again);
	free(stored);
	unlink(path);
	forget_shared(path);
	snprintf(shared, sizeof(shared), "%s.lock", path);
	unlink(shared);
	rmdir(dir);
}

/* ---- reading ----------------------------------------------------------------- */

static void test_get_server(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_server s;
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	CHECK_INT(s.id, SERVER_ID);
	CHECK_STR(s.name, "v220200000111007");
	CHECK(s.live_info);
	CHECK_STR(s.state, "RUNNING");
	CHECK(!s.uefi);
	CHECK(s.snapshot_allowed);
	CHECK_INT(s.snapshot_count, 0);
	CHECK_INT(s.n_disks, 1);
	CHECK_STR(s.disks[0].dev, "vda");
	CHECK_INT(s.disks[0].capacity_mib, 4096);
	fcr_netcup_free(nc);

	cfg.server_id = 999;
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), FCR_E_NOT_FOUND);
	CHECK_INT(err.http_status, 404);
	CHECK(strstr(err.msg, "GET /api/v1/servers/999: HTTP 404") != NULL);
	fcr_netcup_free(nc);

	/* answers are capped */
	cfg.server_id = SERVER_ID;
	cfg.max_response_bytes = 4096;
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	fake_post("/_fake/fault", "{\"kind\":\"big\",\"method\":\"GET\",\"path\":"
				  "\"/scp-core/api/v1/servers/111007\",\"bytes\":100000}");
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), FCR_E_PROTOCOL);
	CHECK(strstr(err.msg, "larger than 4096 bytes") != NULL);
	fcr_netcup_free(nc);
}

/* ---- power -------------------------------------------------------------------- */

static void check_task(const struct fcr_netcup_task *t, const char *name)
{
	CHECK_STR(t->name, name);
	CHECK_STR(t->state, "FINISHED");
	CHECK(strlen(t->uuid) == 36);
	CHECK(!isnan(t->started_s) && !isnan(t->finished_s));
	CHECK(t->finished_s >= t->started_s);
	CHECK(t->duration_s >= 0 && t->duration_s < 60);
	CHECK(t->polls >= 1);
	CHECK(t->started_at[strlen(t->started_at) - 1] == 'Z');
}

static void test_power(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	char state[32];
	config(&cfg);
	/* a lock window of 1 s, so the power-on below meets it even on a busy machine */
	reset("\"lock_window\":50");
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK(ssh_wait_banner(2000));

	/* ACPI power-off */
	long m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), 0);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007"), 1);
	json_t *p = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", 0);
	if (p) {
		CHECK_STR(str(p, "query"), "");
		CHECK_STR(hdr(p, "content-type"), "application/merge-patch+json");
		CHECK_STR(hdr(p, "accept"), "application/json");
		CHECK(body_is(p, "{\"state\":\"OFF\"}"));
		CHECK_INT(json_integer_value(json_object_get(p, "status")), 202);
	}
	CHECK(count_prefix(log, "GET", "/scp-core/api/v1/tasks/") >= 1);
	json_decref(log);
	CHECK_INT(res.n_tasks, 1);
	check_task(&res.tasks[0], "ServerStateChangeTask");
	/* ACPI shutdown takes 12 s x 0.02 in the fake */
	CHECK(res.tasks[0].duration_s > 0.2);
	CHECK(res.duration_s >= res.tasks[0].duration_s - 0.05);
	CHECK(res.finished_s > res.started_s);
	CHECK(!res.already && !res.recovered);
	CHECK_STR(fake_state(state, sizeof(state)), "SHUTOFF");
	CHECK_INT(ssh_banner(), 0);
	/* the task answers carried executingUser, like the real ones */
	json_t *st = fake("GET", "/_fake/state", NULL);
	json_t *t0 = json_array_get(json_object_get(st, "tasks"), 0);
	CHECK(json_is_string(json_object_get(json_object_get(t0, "executingUser"), "email")));
	json_decref(st);

	/* again: nothing to do, nothing sent but the GET */
	m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), 0);
	CHECK(res.already);
	CHECK_INT(res.n_tasks, 0);
	log = log_since(m);
	CHECK_INT(json_array_size(log), 1);
	json_decref(log);

	/* power-on right after: the lock window answers 409 first */
	m = log_mark();
	CHECK_INT(fcr_netcup_power_on(nc, &res, &err), 0);
	log = log_since(m);
	size_t patches = count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007");
	CHECK(patches >= 2);
	json_t *first = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", 0);
	json_t *last = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", patches - 1);
	CHECK(first && json_integer_value(json_object_get(first, "status")) == 409);
	CHECK(last && json_integer_value(json_object_get(last, "status")) == 202);
	CHECK(last && body_is(last, "{\"state\":\"ON\"}"));
	json_decref(log);
	CHECK(seen.retries_lock >= 1);
	CHECK_INT(res.retries, patches - 1);
	check_task(&res.tasks[0], "ServerStateChangeTask");
	CHECK_STR(fake_state(state, sizeof(state)), "RUNNING");
	CHECK(ssh_wait_banner(2000));

	/* hard power-off */
	m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, true, &res, &err), 0);
	log = log_since(m);
	p = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", 0);
	CHECK(p && strcmp(str(p, "query"), "stateOption=POWEROFF") == 0);
	CHECK(p && body_is(p, "{\"state\":\"OFF\"}"));
	CHECK(p && strcmp(hdr(p, "content-type"), "application/merge-patch+json") == 0);
	json_decref(log);
	/* 0.6 s x 0.02: much shorter than ACPI */
	CHECK(res.tasks[0].duration_s < 0.2);
	fcr_netcup_free(nc);
}

static void test_reboot(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	char state[32];
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);

	long m = log_mark();
	CHECK_INT(fcr_netcup_reboot(nc, FCR_NETCUP_REBOOT_GRACEFUL, &res, &err), 0);
	json_t *log = log_since(m);
	size_t patches = count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007");
	CHECK(patches >= 2);
	json_t *off = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", 0);
	json_t *on = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", patches - 1);
	CHECK(off && body_is(off, "{\"state\":\"OFF\"}") && strcmp(str(off, "query"), "") == 0);
	CHECK(on && body_is(on, "{\"state\":\"ON\"}") && strcmp(str(on, "query"), "") == 0);
	json_decref(log);
	CHECK_INT(res.n_tasks, 2);
	check_task(&res.tasks[0], "ServerStateChangeTask");
	check_task(&res.tasks[1], "ServerStateChangeTask");
	CHECK(res.tasks[1].started_s >= res.tasks[0].finished_s);
	CHECK_STR(fake_state(state, sizeof(state)), "RUNNING");
	CHECK(ssh_wait_banner(2000));

	sleep_ms(250); /* past the lock window */
	m = log_mark();
	CHECK_INT(fcr_netcup_reboot(nc, FCR_NETCUP_REBOOT_POWERCYCLE, &res, &err), 0);
	log = log_since(m);
	json_t *pc = find_req(log, "PATCH", "/scp-core/api/v1/servers/111007", 0);
	CHECK(pc && strcmp(str(pc, "query"), "stateOption=POWERCYCLE") == 0);
	CHECK(pc && body_is(pc, "{\"state\":\"ON\"}"));
	json_decref(log);
	CHECK_INT(res.n_tasks, 1);
	CHECK_STR(fake_state(state, sizeof(state)), "RUNNING");

	/* 200 without a task: the state is then confirmed by GET */
	reset("\"state_patch_200\":true");
	fcr_netcup_free(nc);
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), 0);
	CHECK_INT(res.n_tasks, 0);
	CHECK(!res.already);
	CHECK_STR(fake_state(state, sizeof(state)), "SHUTOFF");
	fcr_netcup_free(nc);
}

/* ---- snapshots --------------------------------------------------------------- */

static void test_snapshots(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	char state[32];
	config(&cfg);
	reset("\"lock_window\":0");
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_power_off(nc, true, &res, &err), 0);

	/* offline, one disk */
	struct fcr_netcup_snapshot_opts o = {.name = "grenzlast-1", .online = false, .disk = "vda"};
	long m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 1);
	json_t *p = find_req(log, "POST", "/scp-core/api/v1/servers/111007/snapshots", 0);
	if (p) {
		CHECK_STR(hdr(p, "content-type"), "application/json");
		CHECK_STR(hdr(p, "accept"), "application/json");
		CHECK(body_is(p, "{\"name\":\"grenzlast-1\",\"onlineSnapshot\":false,"
				 "\"diskName\":\"vda\"}"));
	}
	json_decref(log);
	CHECK_INT(res.n_tasks, 1);
	check_task(&res.tasks[0], "ServerSnapshotCreateTask");
	struct fcr_netcup_snapshot_list l;
	CHECK_INT(fcr_netcup_list_snapshots(nc, &l, &err), 0);
	CHECK_INT(l.n, 1);
	if (l.n == 1) {
		CHECK_STR(l.items[0].name, "grenzlast-1");
		CHECK(!l.items[0].online);
		CHECK_STR(l.items[0].state, "SHUTOFF");
		CHECK_STR(l.items[0].disks, "vda");
		CHECK(!isnan(cm_parse_rfc3339(l.items[0].creation_time)));
	}
	fcr_netcup_snapshot_list_free(&l);

	/* a name that needs escaping, with a description, no disk */
	struct fcr_netcup_snapshot_opts o2 = {.name = "snap #2/x", .description = "fiocamp"};
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o2, &res, &err), 0);
	/* taken names are refused by the API ... */
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_API);
	CHECK_INT(err.http_status, 400);
	/* ... unless a resumed run adopts it */
	o.adopt_existing = true;
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	CHECK(res.already);
	o.adopt_existing = false;

	/* delete: escaped name, no body, no Content-Type */
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_delete(nc, "snap #2/x", &res, &err), 0);
	log = log_since(m);
	json_t *d =
	    find_req(log, "DELETE", "/scp-core/api/v1/servers/111007/snapshots/snap%20%232%2Fx", 0);
	CHECK(d != NULL);
	CHECK(d && hdr(d, "content-type") == NULL);
	CHECK(d && strcmp(str(d, "body"), "") == 0);
	json_decref(log);
	check_task(&res.tasks[0], "ServerSnapshotDeleteTask");
	CHECK_INT(fake_snapshots_named("snap #2/x"), 0);
	CHECK_INT(fcr_netcup_snapshot_delete(nc, "snap #2/x", &res, &err), FCR_E_NOT_FOUND);
	CHECK_INT(err.http_status, 404);

	/* revert: bodiless POST with a Content-Type; the task powers off and on */
	CHECK_INT(fcr_netcup_power_on(nc, &res, &err), 0);
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_revert(nc, "grenzlast-1", &res, &err), 0);
	log = log_since(m);
	json_t *r = find_req(log, "POST",
			     "/scp-core/api/v1/servers/111007/snapshots/grenzlast-1/revert", 0);
	CHECK(r != NULL);
	CHECK(r && strcmp(hdr(r, "content-type"), "application/json") == 0);
	CHECK(r && strcmp(str(r, "body"), "") == 0);
	json_decref(log);
	check_task(&res.tasks[0], "ServerSnapshotRevertTask");
	CHECK_STR(fake_state(state, sizeof(state)), "RUNNING");
	CHECK(ssh_wait_banner(2000));

	/* bad names never reach the API */
	struct fcr_netcup_snapshot_opts bad = {.name = ""};
	CHECK_INT(fcr_netcup_snapshot_create(nc, &bad, &res, &err), FCR_E_INVAL);
	char longname[300];
	memset(longname, 'a', 256);
	longname[256] = '\0';
	bad.name = longname;
	CHECK_INT(fcr_netcup_snapshot_create(nc, &bad, &res, &err), FCR_E_INVAL);
	fcr_netcup_free(nc);
}

static void test_dryrun_uefi(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	struct fcr_netcup_findings f = {0};
	bool possible;
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	long m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_dryrun(nc, false, "vda", &possible, &f, &err), 0);
	CHECK(possible);
	CHECK_INT(f.n, 0);
	json_t *log = log_since(m);
	/* the colon stays literal */
	json_t *p = find_req(log, "POST", "/scp-core/api/v1/servers/111007/snapshots:dryrun", 0);
	CHECK(p && body_is(p, "{\"onlineSnapshot\":false,\"diskName\":\"vda\"}"));
	CHECK(p && strcmp(hdr(p, "content-type"), "application/json") == 0);
	json_decref(log);
	fcr_netcup_free(nc);

	reset("\"servers\":[{\"uefi\":true}]");
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_snapshot_dryrun(nc, true, NULL, &possible, &f, &err), 0);
	CHECK(!possible);
	CHECK_INT(f.n_problems, 1);
	if (f.n) {
		CHECK_STR(f.items[0].code, "server.snapshot.create.error.online.uefi");
		CHECK(strstr(f.items[0].message, "Online snapshot creation is not possible if "
						 "UEFI is activated.") != NULL);
	}
	fcr_netcup_findings_free(&f);

	struct fcr_netcup_snapshot_opts o = {.name = "online-1", .online = true};
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_API);
	CHECK_INT(err.http_status, 400);
	CHECK_STR(err.api_code, "server.snapshot.create.error.online.uefi");
	CHECK(strstr(err.msg, "Online snapshot creation is not possible if UEFI is "
			      "activated.") != NULL);
	CHECK_INT(fake_snapshots_named("online-1"), 0);
	fcr_netcup_free(nc);
}

/* ---- failures ------------------------------------------------------------------ */

static void test_task_failures(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	struct fcr_netcup_snapshot_opts o = {.name = "fails", .disk = "vda"};

	/* ERROR with the reason in responseError (message null, as seen live) */
	fake_post("/_fake/fault", "{\"kind\":\"task-error\",\"task\":\"ServerSnapshotCreateTask\","
				  "\"code\":\"server.snapshot.create.error.storagelimit\","
				  "\"message\":\"No storage left for snapshots.\"}");
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_TASK);
	CHECK(strstr(err.msg, "ended in ERROR: No storage left for snapshots.") != NULL);
	CHECK_STR(err.api_code, "ERROR");
	CHECK_INT(res.n_tasks, 1);
	CHECK_STR(res.tasks[0].state, "ERROR");
	CHECK_STR(res.tasks[0].message, "No storage left for snapshots.");
	CHECK(!isnan(res.tasks[0].finished_s));
	CHECK_INT(fake_snapshots_named("fails"), 0);

	/* the reason in message */
	fake_post("/_fake/fault", "{\"kind\":\"task-error\",\"in\":\"message\","
				  "\"message\":\"Creation failed.\"}");
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_TASK);
	CHECK(strstr(err.msg, "ended in ERROR: Creation failed.") != NULL);

	/* WAITING_FOR_CANCEL is polled on until CANCELED */
	fake_post("/_fake/fault", "{\"kind\":\"task-cancel\",\"in\":\"message\","
				  "\"message\":\"Canceled by the user.\"}");
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_TASK);
	CHECK_STR(res.tasks[0].state, "CANCELED");
	CHECK(strstr(err.msg, "ended in CANCELED: Canceled by the user.") != NULL);

	fake_post("/_fake/fault", "{\"kind\":\"task-rollback\",\"in\":\"message\","
				  "\"message\":\"Rolled back.\"}");
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), FCR_E_TASK);
	CHECK_STR(res.tasks[0].state, "ROLLBACK");

	/* the overall timeout: ACPI shutdown takes 0.24 s here */
	cfg.task_timeout_ms = 100;
	fcr_netcup_free(nc);
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), FCR_E_TIMEOUT);
	CHECK(strstr(err.msg, "ServerStateChangeTask") && strstr(err.msg, "still"));
	CHECK_INT(res.n_tasks, 1);
	CHECK(isnan(res.tasks[0].finished_s));
	check_clean(&err);
	fcr_netcup_free(nc);
}

static bool stop_now(void *ctx)
{
	(void)ctx;
	return true;
}

static void test_retries(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_server s;
	struct fcr_netcup_result res;
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);

	/* 503 twice: backed off 50 ms, then 100 ms */
	fake_post("/_fake/fault",
		  "{\"kind\":\"status\",\"status\":503,\"count\":2,"
		  "\"method\":\"GET\",\"path\":\"/scp-core/api/v1/servers/111007\"}");
	long m = log_mark();
	double t0 = now_s();
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	double took = now_s() - t0;
	CHECK(took >= 0.15);
	CHECK_INT(seen.retries_unavailable, 2);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "GET", "/scp-core/api/v1/servers/111007"), 3);
	json_decref(log);

	/* 503 for longer than the retries: an error that says so */
	fake_post("/_fake/fault",
		  "{\"kind\":\"status\",\"status\":503,\"count\":10,"
		  "\"method\":\"GET\",\"path\":\"/scp-core/api/v1/servers/111007\"}");
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), FCR_E_API);
	CHECK(strstr(err.msg, "HTTP 503") && strstr(err.msg, "maintenance"));
	reset(NULL);
	fcr_netcup_free(nc);
	nc = open_nc(&cfg);

	/* a GET whose connection drops is sent again */
	/* (twice: libcurl itself resends once when a reused connection dies) */
	fake_post("/_fake/fault", "{\"kind\":\"drop\",\"method\":\"GET\",\"count\":2,"
				  "\"path\":\"/scp-core/api/v1/servers/111007\"}");
	m = log_mark();
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "GET", "/scp-core/api/v1/servers/111007"), 3);
	CHECK_STR(str(find_req(log, "GET", "/scp-core/api/v1/servers/111007", 0), "outcome"),
		  "dropped-before");
	json_decref(log);
	CHECK(seen.retries_transport >= 1);

	/* a 503 on a write: not processed, sent again after the pause */
	fake_post("/_fake/fault", "{\"kind\":\"status\",\"status\":503,\"method\":\"PATCH\"}");
	m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, true, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007"), 2);
	json_decref(log);
	fcr_netcup_free(nc);

	/* should_stop ends a wait */
	reset(NULL);
	cfg.should_stop = stop_now;
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), FCR_E_STOPPED);
	fcr_netcup_free(nc);
}

/* The token file's lock held by another process: the refresh waits for
 * it, a stop ends the wait before any refresh, and once it is free the
 * refresh goes on. */
static void test_shared_lock(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	char lock[600];
	config(&cfg);
	reset(NULL);
	snprintf(lock, sizeof(lock), "%s.lock", token_path);
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	CHECK(fd >= 0 && flock(fd, LOCK_EX) == 0);
	long m = log_mark();
	cfg.should_stop = stop_now;
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), FCR_E_STOPPED);
	CHECK(strstr(err.msg, "another process refreshed the token") != NULL);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/realms/scp/protocol/openid-connect/token"), 0);
	json_decref(log);
	fcr_netcup_free(nc);
	if (fd >= 0)
		close(fd);
	cfg.should_stop = NULL;
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	fcr_netcup_free(nc);
}

/* A POST whose answer is lost: checked, never sent twice. */
static void test_no_duplicate(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	struct fcr_netcup_server s;
	char state[32];
	config(&cfg);
	reset(NULL);
	struct fcr_netcup *nc = open_nc(&cfg);
	/* a warm connection, which libcurl would otherwise silently reuse and resend on */
	CHECK_INT(fcr_netcup_get_server(nc, &s, &err), 0);

	/* processed, then the connection dropped */
	fake_post("/_fake/fault", "{\"kind\":\"drop\",\"when\":\"after\",\"method\":\"POST\","
				  "\"path\":\"/scp-core/api/v1/servers/111007/snapshots\"}");
	struct fcr_netcup_snapshot_opts o = {.name = "once", .disk = "vda"};
	long m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	json_t *log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 1);
	CHECK_STR(
	    str(find_req(log, "POST", "/scp-core/api/v1/servers/111007/snapshots", 0), "outcome"),
	    "dropped-after");
	/* it looked at the snapshot list and the task list before sending (the
	 * baseline) and again before anything else */
	CHECK_INT(count_reqs(log, "GET", "/scp-core/api/v1/servers/111007/snapshots"), 2);
	json_t *tl = find_req(log, "GET", "/scp-core/api/v1/tasks", 0);
	CHECK(tl && strcmp(str(tl, "query"), "serverId=111007&limit=20") == 0);
	json_decref(log);
	CHECK(res.recovered);
	CHECK_INT(res.n_tasks, 1);
	check_task(&res.tasks[0], "ServerSnapshotCreateTask");
	CHECK_INT(seen.checks_task, 1);
	CHECK_INT(fake_snapshots_named("once"), 1);

	/* dropped before it was processed: checked, then sent again */
	fake_post("/_fake/fault", "{\"kind\":\"drop\",\"when\":\"before\",\"method\":\"POST\","
				  "\"path\":\"/scp-core/api/v1/servers/111007/snapshots\"}");
	o.name = "twice-sent";
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 2);
	json_decref(log);
	CHECK(!res.recovered);
	CHECK_INT(seen.checks_not_received, 1);
	CHECK_INT(fake_snapshots_named("twice-sent"), 1);

	/* a 502 from a proxy: unknown whether it went through, so checked first */
	fake_post("/_fake/fault",
		  "{\"kind\":\"status\",\"status\":502,\"method\":\"POST\","
		  "\"path\":\"/scp-core/api/v1/servers/111007/snapshots\","
		  "\"body\":{\"code\":\"bad.gateway\",\"message\":\"Bad Gateway\"}}");
	o.name = "after-502";
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 2);
	CHECK_INT(count_reqs(log, "GET", "/scp-core/api/v1/servers/111007/snapshots"), 2);
	json_decref(log);
	CHECK_INT(seen.checks_not_received, 2);
	CHECK_INT(fake_snapshots_named("after-502"), 1);

	/* processed, but the answer came after our timeout */
	fcr_netcup_free(nc);
	cfg.http_timeout_ms = 300;
	nc = open_nc(&cfg);
	fake_post("/_fake/fault", "{\"kind\":\"delay\",\"seconds\":1.0,\"method\":\"POST\","
				  "\"path\":\"/scp-core/api/v1/servers/111007/snapshots\"}");
	o.name = "slow";
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 1);
	json_decref(log);
	CHECK(res.recovered);
	CHECK_INT(fake_snapshots_named("slow"), 1);

	/* the same for a power change and for a delete */
	sleep_ms(250);
	fake_post("/_fake/fault", "{\"kind\":\"drop\",\"when\":\"after\",\"method\":\"PATCH\"}");
	m = log_mark();
	CHECK_INT(fcr_netcup_power_off(nc, false, &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007"), 1);
	json_decref(log);
	CHECK(res.recovered);
	CHECK_INT(res.n_tasks, 1);
	CHECK_STR(fake_state(state, sizeof(state)), "SHUTOFF");

	sleep_ms(250); /* past the lock window after the power-off */
	fake_post("/_fake/fault", "{\"kind\":\"drop\",\"when\":\"after\",\"method\":\"DELETE\"}");
	m = log_mark();
	CHECK_INT(fcr_netcup_snapshot_delete(nc, "once", &res, &err), 0);
	log = log_since(m);
	CHECK_INT(count_reqs(log, "DELETE", "/scp-core/api/v1/servers/111007/snapshots/once"), 1);
	json_decref(log);
	CHECK(res.recovered);
	CHECK_INT(fake_snapshots_named("once"), 0);
	fcr_netcup_free(nc);
}

/* ---- preflight ---------------------------------------------------------------- */

static const struct fcr_netcup_finding *finding(const struct fcr_netcup_findings *f,
						const char *code)
{
	for (size_t i = 0; i < f->n; i++) {
		if (strcmp(f->items[i].code, code) == 0)
			return &f->items[i];
	}
	return NULL;
}

static void test_preflight(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	struct fcr_netcup_result res;
	struct fcr_netcup_findings f = {0};
	struct fcr_netcup_server s;
	config(&cfg);
	reset("\"servers\":[{\"uefi\":true}]");
	struct fcr_netcup *nc = open_nc(&cfg);
	struct fcr_netcup_snapshot_opts o = {.name = "grenzlast-1", .disk = "vda"};
	CHECK_INT(fcr_netcup_snapshot_create(nc, &o, &res, &err), 0);

	/* the worked example with an online first snapshot, on a UEFI server */
	const struct fcr_netcup_plan_step steps[] = {
	    {FCR_NETCUP_PLAN_SNAPSHOT, "grenzlast-1", true, NULL},
	    {FCR_NETCUP_PLAN_SNAPSHOT, "grenzlast-2", false, NULL},
	    {FCR_NETCUP_PLAN_SNAPSHOT, "grenzlast-3", false, NULL},
	    {FCR_NETCUP_PLAN_DELETE, "grenzlast-2", false, NULL},
	    {FCR_NETCUP_PLAN_DELETE, "grenzlast-2", false, NULL},
	    {FCR_NETCUP_PLAN_REVERT, "grenzlast-9", false, NULL},
	};
	struct fcr_netcup_plan plan = {steps, sizeof(steps) / sizeof(steps[0]), false};
	long m = log_mark();
	CHECK_INT(fcr_netcup_preflight(nc, &plan, &f, &s, &err), FCR_E_PREFLIGHT);
	CHECK(strstr(err.msg, "4 problems") != NULL);
	CHECK_INT(f.n_problems, 4);
	CHECK(s.uefi);
	const struct fcr_netcup_finding *x =
	    finding(&f, "server.snapshot.create.error.online.uefi");
	CHECK(x && x->level == FCR_NETCUP_PROBLEM);
	CHECK(x && strstr(x->message, "400 \"Online snapshot creation is not possible if UEFI "
				      "is activated.\""));
	CHECK(x && strstr(x->message, "power-off; snapshot grenzlast-1 offline; power-on; "
				      "wait-ssh"));
	x = finding(&f, "name-taken");
	CHECK(x && strstr(x->message, "\"grenzlast-1\""));
	size_t missing = 0;
	for (size_t i = 0; i < f.n; i++)
		missing += strcmp(f.items[i].code, "name-missing") == 0;
	CHECK_INT(missing, 2); /* the second delete of grenzlast-2, the revert to grenzlast-9 */
	x = finding(&f, "server");
	CHECK(x && x->level == FCR_NETCUP_INFO &&
	      strstr(x->message, "RUNNING, UEFI on, 1 snapshot"));
	x = finding(&f, "dry-run");
	CHECK(x && x->level == FCR_NETCUP_INFO &&
	      strstr(x->message, "offline snapshot of disk vda"));
	json_t *log = log_since(m);
	/* one dry-run for the two offline snapshots, none for the online one */
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots:dryrun"), 1);
	/* and nothing changed */
	CHECK_INT(count_reqs(log, "PATCH", "/scp-core/api/v1/servers/111007"), 0);
	CHECK_INT(count_reqs(log, "POST", "/scp-core/api/v1/servers/111007/snapshots"), 0);
	json_decref(log);
	fcr_netcup_findings_free(&f);
	fcr_netcup_free(nc);

	/* a clean plan on a BIOS server */
	reset(NULL);
	nc = open_nc(&cfg);
	const struct fcr_netcup_plan_step ok_steps[] = {
	    {FCR_NETCUP_PLAN_SNAPSHOT, "grenzlast-1", false, NULL},
	    {FCR_NETCUP_PLAN_SNAPSHOT, "online-1", true, NULL},
	    {FCR_NETCUP_PLAN_DELETE, "grenzlast-1", false, NULL},
	    {FCR_NETCUP_PLAN_REVERT, "online-1", false, NULL},
	};
	struct fcr_netcup_plan ok_plan = {ok_steps, 4, false};
	CHECK_INT(fcr_netcup_preflight(nc, &ok_plan, &f, NULL, &err), 0);
	CHECK_INT(f.n_problems, 0);
	CHECK_INT(f.n_warnings, 0);
	fcr_netcup_findings_free(&f);
	fcr_netcup_free(nc);

	/* snapshots not allowed, server off */
	reset("\"servers\":[{\"snapshotAllowed\":false,\"state\":\"SHUTOFF\"}]");
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_preflight(nc, &ok_plan, &f, NULL, &err), FCR_E_PREFLIGHT);
	CHECK(finding(&f, "snapshot-not-allowed") != NULL);
	x = finding(&f, "state");
	CHECK(x && x->level == FCR_NETCUP_WARNING && strstr(x->message, "SHUTOFF"));
	fcr_netcup_findings_free(&f);
	fcr_netcup_free(nc);

	/* a server that is not there */
	cfg.server_id = 4242;
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_preflight(nc, &ok_plan, &f, NULL, &err), FCR_E_PREFLIGHT);
	x = finding(&f, "server");
	CHECK(x && x->level == FCR_NETCUP_PROBLEM && strstr(x->message, "4242 is not found"));
	fcr_netcup_findings_free(&f);
	fcr_netcup_free(nc);

	/* a token that does not work */
	cfg.server_id = SERVER_ID;
	reset("\"refresh_token\":\"another\"");
	nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_preflight(nc, &ok_plan, &f, NULL, &err), FCR_E_PREFLIGHT);
	x = finding(&f, "token");
	CHECK(x && x->level == FCR_NETCUP_PROBLEM && strstr(x->message, "netcup-login"));
	CHECK(x && !strstr(x->message, refresh_token));
	CHECK_INT(f.n, 1);
	fcr_netcup_findings_free(&f);
	fcr_netcup_free(nc);
}

/* ---- login --------------------------------------------------------------------- */

struct prompt_seen {
	char uri[256], uri_complete[300], code[64];
	int calls;
};

static struct prompt_seen prompt_seen;

static void on_prompt_record(void *ctx, const struct fcr_netcup_login_prompt *p)
{
	(void)ctx;
	snprintf(prompt_seen.uri, sizeof(prompt_seen.uri), "%s", p->verification_uri);
	snprintf(prompt_seen.uri_complete, sizeof(prompt_seen.uri_complete), "%s",
		 p->verification_uri_complete ? p->verification_uri_complete : "");
	snprintf(prompt_seen.code, sizeof(prompt_seen.code), "%s", p->user_code);
	prompt_seen.calls++;
}

static void test_login(void)
{
	struct fcr_netcup_config cfg;
	struct fcr_error err = {0};
	char path[700], dir[600];
	struct stat st;
	snprintf(dir, sizeof(dir), "%s/login/config/fiocamp", test_dir);
	snprintf(path, sizeof(path), "%s/netcup.token", dir);
	config(&cfg);

	reset("\"device\":[\"authorization_pending\",\"slow_down\",\"ok\"],"
	      "\"device_interval\":0.05");
	long m = log_mark();
	memset(&prompt_seen, 0, sizeof(prompt_seen));
	CHECK_INT(fcr_netcup_login(&cfg, path, on_prompt_record, &err), 0);
	CHECK_INT(prompt_seen.calls, 1);
	CHECK(strstr(prompt_seen.uri, "/realms/scp/device") != NULL);
	CHECK(strstr(prompt_seen.uri_complete, prompt_seen.code) != NULL);
	CHECK_INT(strlen(prompt_seen.code), 9);
	char *text = read_text(path);
	char expected[512];
	snprintf(expected, sizeof(expected), "%s\n", refresh_token);
	CHECK(text && strcmp(text, expected) == 0);
	free(text);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	CHECK_INT(stat(dir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	json_t *log = log_since(m);
	json_t *dev = find_req(log, "POST", "/realms/scp/protocol/openid-connect/auth/device", 0);
	CHECK(dev && strcmp(str(dev, "body"), "client_id=scp&scope=offline_access openid") == 0);
	CHECK(dev && strcmp(hdr(dev, "content-type"), "application/x-www-form-urlencoded") == 0);
	json_t *poll = find_req(log, "POST", "/realms/scp/protocol/openid-connect/token", 0);
	CHECK(poll &&
	      strcmp(str(poll, "body"), "grant_type=urn:ietf:params:oauth:grant-type:device_code"
					"&client_id=scp&device_code=<device-code>") == 0);
	CHECK_INT(count_reqs(log, "POST", "/realms/scp/protocol/openid-connect/token"), 3);
	/* three polls: pending, slow_down, ok.  A poll sooner than the slowed-down
	 * interval would have been answered slow_down again, making more. */
	json_decref(log);
	/* the token file works */
	cfg.token_file = path;
	struct fcr_netcup *nc = open_nc(&cfg);
	CHECK_INT(fcr_netcup_authenticate(nc, &err), 0);
	fcr_netcup_free(nc);

	/* a second login replaces the file, still 0600, nothing left beside it */
	chmod(path, 0600);
	reset("\"device\":[\"ok\"],\"device_interval\":0.05");
	CHECK_INT(fcr_netcup_login(&cfg, path, on_prompt_record, &err), 0);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0600);
	/* (the access token the first file gave is no longer shared) */
	CHECK(only_beside(dir, strrchr(path, '/') + 1, false));

	/* denied, expired */
	reset("\"device\":[\"authorization_pending\",\"access_denied\"],\"device_interval\":0.05");
	CHECK_INT(fcr_netcup_login(&cfg, path, on_prompt_record, &err), FCR_E_AUTH);
	CHECK(strstr(err.msg, "denied") != NULL);
	CHECK_STR(err.api_code, "access_denied");
	reset("\"device\":[\"expired_token\"],\"device_interval\":0.05");
	CHECK_INT(fcr_netcup_login(&cfg, path, on_prompt_record, &err), FCR_E_AUTH);
	CHECK(strstr(err.msg, "expired") != NULL);
	check_clean(&err);
	/* the file from before is untouched by a failed login */
	CHECK_INT(stat(path, &st), 0);
	unlink(path);
}

/* ---- the fake itself: the rules the real API enforces ----------------------- */

/* One raw request to the fake; returns the status, *json the answer (or NULL). */
static long raw(const char *method, const char *path, const char *ctype, const char *body,
		const char *bearer, json_t **json)
{
	char url[512], auth[512], ct[128];
	struct {
		char *b;
		size_t len;
	} s = {0};
	struct curl_slist *h = NULL;
	long status = 0;
	snprintf(url, sizeof(url), "%s%s", base_url, path);
	/* "Content-Type:" with nothing removes the header libcurl would add */
	snprintf(ct, sizeof(ct), "Content-Type:%s%s", ctype ? " " : "", ctype ? ctype : "");
	h = curl_slist_append(h, ct);
	/* wrong on purpose: tests/api/check-requests.py checks only the answer */
	h = curl_slist_append(h, "X-Fake-Probe: 1");
	if (bearer) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", bearer);
		h = curl_slist_append(h, auth);
	}
	CURL *c = curl_easy_init();
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 5000L);
	if (body)
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	if (strcmp(method, "GET") != 0 && !(strcmp(method, "POST") == 0 && body))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	curl_slist_free_all(h);
	*json = s.b ? json_loads(s.b, 0, NULL) : NULL;
	free(s.b);
	return status;
}

static const char *code_of(json_t *j)
{
	return json_string_value(
	    json_object_get(json_is_array(j) ? json_array_get(j, 0) : j, "code"));
}

static void test_fake_rules(void)
{
	char form[512], access[256];
	json_t *j;
	reset(NULL);
	snprintf(form, sizeof(form), "grant_type=refresh_token&client_id=scp&refresh_token=%s",
		 refresh_token);
	CHECK_INT(raw("POST", "/realms/scp/protocol/openid-connect/token",
		      "application/x-www-form-urlencoded", form, NULL, &j),
		  200);
	snprintf(access, sizeof(access), "%s", str(j, "access_token"));
	CHECK(json_integer_value(json_object_get(j, "expires_in")) == 300 ||
	      json_real_value(json_object_get(j, "expires_in")) == 300.0);
	json_decref(j);
	const char *srv = "/scp-core/api/v1/servers/111007";

	CHECK_INT(raw("GET", srv, NULL, NULL, "not-a-token", &j), 401);
	json_decref(j);
	/* PATCH: merge-patch only, one attribute only */
	CHECK_INT(raw("PATCH", srv, NULL, "{\"state\":\"OFF\"}", access, &j), 400);
	CHECK_STR(code_of(j), "error.content.type.invalid");
	json_decref(j);
	CHECK_INT(raw("PATCH", srv, "application/json", "{\"state\":\"OFF\"}", access, &j), 400);
	CHECK_STR(code_of(j), "error.content.type.invalid");
	json_decref(j);
	CHECK_INT(raw("PATCH", srv, "application/merge-patch+json",
		      "{\"state\":\"OFF\",\"nickname\":\"x\"}", access, &j),
		  400);
	CHECK(strstr(json_string_value(json_object_get(j, "message")), "one attribute"));
	json_decref(j);
	/* a bodiless POST with libcurl's default form Content-Type is refused */
	CHECK_INT(raw("POST", "/scp-core/api/v1/servers/111007/snapshots:dryrun",
		      "application/x-www-form-urlencoded", "", access, &j),
		  400);
	CHECK_STR(code_of(j), "error.content.type.invalid");
	json_decref(j);
	/* the dry-run answers an array */
	CHECK_INT(raw("POST", "/scp-core/api/v1/servers/111007/snapshots:dryrun",
		      "application/json", "{\"onlineSnapshot\":true}", access, &j),
		  200);
	CHECK(json_is_array(j) && json_array_size(j) == 0);
	json_decref(j);
	CHECK_INT(raw("GET", "/scp-core/api/v1/tasks/no-such-task", NULL, NULL, access, &j), 404);
	json_decref(j);
	/* a state change answers 202 with a PENDING task */
	CHECK_INT(
	    raw("PATCH", srv, "application/merge-patch+json", "{\"state\":\"OFF\"}", access, &j),
	    202);
	CHECK_STR(str(j, "state"), "PENDING");
	CHECK_STR(str(j, "name"), "ServerStateChangeTask");
	CHECK(json_is_null(json_object_get(j, "finishedAt")));
	json_decref(j);
	/* and the server is locked while it runs */
	CHECK_INT(
	    raw("PATCH", srv, "application/merge-patch+json", "{\"state\":\"ON\"}", access, &j),
	    409);
	CHECK_STR(code_of(j), "server.lock.error");
	json_decref(j);
	explicit_bzero(access, sizeof(access));
	explicit_bzero(form, sizeof(form));
}

/* ---- helpers ------------------------------------------------------------------- */

static void test_parse_time(void)
{
	/* 2026-08-27T16:48:28Z = 1787849308 */
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T16:48:28Z"), 1787849308.0, 0);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T16:48:28.703780033Z"), 1787849308.703780033, 1e-12);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T16:48:28.001190Z"), 1787849308.00119, 1e-12);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T18:48:28+02:00"), 1787849308.0, 0);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T15:48:28-0100"), 1787849308.0, 0);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27 16:48:28"), 1787849308.0, 0);
	CHECK_DBL(cm_parse_rfc3339("2026-08-27T16:48Z"), 1787849280.0, 0);
	CHECK(isnan(cm_parse_rfc3339("")));
	CHECK(isnan(cm_parse_rfc3339(NULL)));
	CHECK(isnan(cm_parse_rfc3339("2026-13-01T00:00:00Z")));
	CHECK(isnan(cm_parse_rfc3339("2026-08-27T16:48:28Zjunk")));
	CHECK(isnan(cm_parse_rfc3339("2026-08-27T16:48:28.Z")));
	CHECK_STR(fcr_status_text(FCR_E_TASK), "the API task failed");
}

int main(void)
{
	base_url = getenv("FAKE_SCP_URL");
	refresh_token = getenv("FAKE_SCP_REFRESH_TOKEN");
	test_dir = getenv("NETCUP_TEST_DIR");
	const char *sp = getenv("FAKE_SCP_SSH_PORT");
	if (!base_url || !refresh_token || !test_dir || !sp) {
		fprintf(stderr, "run me through test-netcup.py\n");
		return 77;
	}
	ssh_port = atoi(sp);
	snprintf(api_url, sizeof(api_url), "%s/scp-core", base_url);
	snprintf(auth_url, sizeof(auth_url), "%s/realms/scp/", base_url);
	snprintf(token_path, sizeof(token_path), "%s/netcup.token", test_dir);
	char text[512], events[600];
	snprintf(text, sizeof(text), "%s\n", refresh_token);
	put_file(token_path, text, 0600);
	snprintf(events, sizeof(events), "%s/events.jsonl", test_dir);
	events_file = fopen(events, "we");
	unsetenv(FCR_NETCUP_TOKEN_ENV);

	test_not_dumpable();
	test_parse_time();
	test_fake_rules();
	test_urls();
	test_token_file();
	test_auth_cache();
	test_401_retry();
	test_rotation();
	test_shared_lock();
	test_get_server();
	test_power();
	test_reboot();
	test_snapshots();
	test_dryrun_uefi();
	test_task_failures();
	test_retries();
	test_no_duplicate();
	test_preflight();
	test_login();

	/* personal fields never reach the journal (the fake sends them: test_power) */
	CHECK_INT(user_leaks, 0);
	CHECK(task_bodies > 10);
	if (events_file)
		fclose(events_file);
	return check_exit();
}
