/* SPDX-License-Identifier: MIT */
/*
 * The fleet's supervisor (supervisor.h): the fleet's directory and
 * manifest, one child per host, their output prefixed with the host's name,
 * the barriers and the transition locks of the protocol (link.h), the
 * signals, and one status line for the fleet.  One thread: a poll() over
 * every child's socket and pipes and a signalfd.
 */
#include "fleet/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fleet/link.h"
#include "netcup/netcup.h"
#include "record/record.h"
#include "util/status.h"

/* A signal to the supervisor is passed on to the hosts' engines this much later. */
#define PASS_DELAY_S 0.5

/* A line of a child's output longer than this is passed on in pieces. */
#define LINE_MAX_BYTES 8192

/* A byte stream from a child, cut into lines. */
struct stream {
	int fd; /* -1: closed */
	char buf[LINE_MAX_BYTES];
	size_t len;
};

enum waiting { FREE, AT_BARRIER, AT_LOCK };

struct host {
	const char *name; /* borrowed from the campaign */
	char *dir;	  /* DIR/hosts/NAME */
	char *rel;	  /* hosts/NAME */
	pid_t pid;
	struct stream out, err, msg; /* stdout, stderr, the socket */
	bool started, ended, reaped; /* ended: its socket closed, it left the barriers */
	int exit_status;
	enum waiting wait;
	unsigned seq, rep; /* the barrier it waits at */
	char *state;
	double since;	      /* when it began to wait (barrier or lock) */
	char *wants;	      /* the lock it waits for */
	struct cm_strv holds; /* the locks it holds */
	char *fields;	      /* its last status line's fields (link.h) */
	double fields_mono;   /* when they came */
	char *last_err;	      /* its last line on stderr */
	json_t *obj;	      /* its entry in the fleet's manifest (borrowed) */
};

struct fleet {
	const struct fcr_campaign *c;
	const struct fcr_fleet_options *o;
	char *dir;
	char *manifest_path;
	json_t *m;
	struct host *hosts;
	size_t n;
	int sigfd;
	int lock_fd;
	unsigned interrupts;
	double pass_at; /* pass_sig is passed on then; 0: none to pass on */
	int pass_sig;
	bool tty;
};

/* ---- the manifest --------------------------------------------------------- */

/* strcmp() that takes NULL (before every string). */
static int strcmp0(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

static int save(struct fleet *F)
{
	json_object_set_new(F->m, "updated", fcr_jutc(cm_wall_s()));
	char *text = json_dumps(F->m, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENSURE_ASCII |
					  JSON_REAL_PRECISION(12));
	struct fcr_error err;
	int rc = fcr_write_file_atomic(F->manifest_path, text, strlen(text), -1, NULL, &err);
	free(text);
	if (rc < 0)
		fcr_progress_problem("fleet: %s", err.msg);
	return rc;
}

static json_t *new_manifest(const struct fleet *F)
{
	const struct fcr_campaign *c = F->c;
	json_t *hosts = json_array();
	for (size_t i = 0; i < c->n_hosts; i++) {
		char *rel = cm_asprintf(FCR_FLEET_HOSTS "/%s", c->hosts[i].name);
		json_array_append_new(hosts, json_pack("{s:s, s:s, s:s, s:n, s:n}", "name",
						       c->hosts[i].name, "directory", rel, "status",
						       CM_STATUS_PENDING, "reason", "exit_status"));
		free(rel);
	}
	json_t *m =
	    json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o, s:o}", "format", FCR_FLEET_FORMAT,
		      "version", FCR_FLEET_VERSION, "campaign", c->name, "mode",
		      c->mode == FCR_MODE_AGGREGATE ? "aggregate" : "fleet", "sync",
		      c->sync == FCR_SYNC_NONE ? "none" : "states", "status", CM_STATUS_RUNNING,
		      "created", fcr_jutc(cm_wall_s()), "updated", fcr_jutc(cm_wall_s()));
	json_object_set_new(m, "campaign_file", fcr_jtext(F->o->campaign_path));
	json_object_set_new(m, "session", json_integer(1));
	json_object_set_new(m, "hosts", hosts);
	json_object_set_new(m, "barriers", json_array());
	return m;
}

/* ---- the directory --------------------------------------------------------- */

static int lock_dir(struct fleet *F, struct fcr_error *err)
{
	struct fcr_record r = {.lock_fd = -1};
	if (fcr_record_lock(&r, F->dir, err) < 0)
		return -1;
	F->lock_fd = r.lock_fd;
	return 0;
}

/* DIR, its campaign.ini, DIR/hosts/ and the manifest; never over anything. */
static int create_dir(struct fleet *F, struct fcr_error *err)
{
	if (fcr_record_create_dir(F->o->out_dir, F->c, &F->dir, err) < 0)
		return -1;
	if (lock_dir(F, err) < 0)
		return -1;
	int rc = 0;
	char *hosts = cm_asprintf("%s/" FCR_FLEET_HOSTS, F->dir);
	if (mkdir(hosts, 0755) < 0)
		rc = fcr_fail_errno(err, errno, "%s: cannot create", hosts);
	free(hosts);
	if (rc == 0)
		rc = fcr_fsync_dir(F->dir, err);
	if (rc < 0)
		return -1;
	F->manifest_path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, F->dir);
	F->m = new_manifest(F);
	return save(F);
}

/* --resume DIR: the fleet's manifest read back, the hosts it names the
 * campaign's. */
static int reopen_dir(struct fleet *F, struct fcr_error *err)
{
	F->dir = cm_strdup(F->o->resume_dir);
	if (lock_dir(F, err) < 0)
		return -1;
	F->manifest_path = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, F->dir);
	json_error_t jerr;
	F->m = json_load_file(F->manifest_path, 0, &jerr);
	if (!F->m)
		return fcr_fail(err, "%s: %s", F->manifest_path, jerr.text);
	json_t *hosts = json_object_get(F->m, "hosts");
	if (strcmp0(fcr_jstr(F->m, "format"), FCR_FLEET_FORMAT) || !json_is_array(hosts) ||
	    json_array_size(hosts) != F->c->n_hosts)
		return fcr_fail(err, "%s is not the manifest of this fleet's %zu hosts",
				F->manifest_path, F->c->n_hosts);
	for (size_t i = 0; i < F->c->n_hosts; i++) {
		if (strcmp0(fcr_jstr(json_array_get(hosts, i), "name"), F->c->hosts[i].name))
			return fcr_fail(err, "%s: host %zu is not %s as in campaign.ini",
					F->manifest_path, i + 1, F->c->hosts[i].name);
	}
	if (!json_is_array(json_object_get(F->m, "barriers")))
		json_object_set_new(F->m, "barriers", json_array());
	json_t *session = json_object_get(F->m, "session");
	json_object_set_new(
	    F->m, "session",
	    json_integer(json_is_integer(session) ? json_integer_value(session) + 1 : 2));
	json_object_set_new(F->m, "status", json_string(CM_STATUS_RUNNING));
	return save(F);
}

/* ---- output ---------------------------------------------------------------- */

static void say(struct fleet *F, const char *fmt, ...) CM_PRINTF(2, 3);
static void say(struct fleet *F, const char *fmt, ...)
{
	(void)F;
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fcr_progress_line("fleet: %s", text);
}

/* A problem of the fleet's: shown with -q too. */
static void problem(const char *fmt, ...) CM_PRINTF(1, 2);
static void problem(const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fcr_progress_clear();
	fprintf(stderr, "fiocamp-run: %s\n", text);
}

static void host_line(struct fleet *F, struct host *h, struct stream *s, const char *line)
{
	(void)F;
	char *text = cm_asprintf("%s: %s", h->name, line);
	fcr_progress_text(s == &h->out ? stdout : stderr, text);
	free(text);
	if (s == &h->err && line[0]) {
		free(h->last_err);
		/* its reason: without the program's name */
		h->last_err = cm_strdup(strncmp(line, "fiocamp-run: ", 13) ? line : line + 13);
	}
}

static void on_message(struct fleet *F, struct host *h, char *line);

/* The complete lines of s; with `all` the rest too (its end). */
static void cut_lines(struct fleet *F, struct host *h, struct stream *s, bool all)
{
	size_t start = 0;
	for (size_t i = 0; i < s->len; i++) {
		if (s->buf[i] != '\n')
			continue;
		s->buf[i] = '\0';
		if (s == &h->msg)
			on_message(F, h, s->buf + start);
		else
			host_line(F, h, s, s->buf + start);
		start = i + 1;
	}
	memmove(s->buf, s->buf + start, s->len - start);
	s->len -= start;
	if (s->len && (all || s->len == sizeof(s->buf) - 1)) {
		s->buf[s->len] = '\0';
		if (s != &h->msg)
			host_line(F, h, s, s->buf);
		s->len = 0;
	}
}

/* Reads what s has; 1 at its end (then it is closed). */
static int read_stream(struct fleet *F, struct host *h, struct stream *s)
{
	ssize_t r = read(s->fd, s->buf + s->len, sizeof(s->buf) - 1 - s->len);
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r <= 0) {
		cut_lines(F, h, s, true);
		close(s->fd);
		s->fd = -1;
		return 1;
	}
	s->len += (size_t)r;
	cut_lines(F, h, s, false);
	return 0;
}

/* ---- the fleet's status line ------------------------------------------------ */

/* Field k (0: ETA ... 4: rate) of a host's status line, into buf. */
static void field(const struct host *h, int k, char *buf, size_t len)
{
	buf[0] = '\0';
	const char *p = h->fields;
	for (int i = 0; p && i < k; i++) {
		p = strchr(p, '\t');
		if (p)
			p++;
	}
	if (!p)
		return;
	size_t n = strcspn(p, "\t");
	snprintf(buf, len, "%.*s", (int)n, p);
}

static const char *host_word(const struct host *h)
{
	if (!h->started)
		return "pending";
	if (h->ended && !h->reaped)
		return "ending";
	if (h->reaped)
		return h->exit_status == 0			? "done"
		       : h->exit_status == FCR_EXIT_INTERRUPTED ? "interrupted"
								: "failed";
	return NULL;
}

/* One host's part of the line: "h1 basis r2/4 rw4k r=170k IOPS". */
static void host_part(const struct host *h, char *buf, size_t len)
{
	const char *word = host_word(h);
	if (word) {
		snprintf(buf, len, "%s %s", h->name, word);
		return;
	}
	char state[256], round[64], what[256], rate[64];
	field(h, 1, state, sizeof(state));
	field(h, 2, round, sizeof(round));
	field(h, 3, what, sizeof(what));
	field(h, 4, rate, sizeof(rate));
	if (h->wait == AT_BARRIER) {
		/* at the state it is about to begin */
		snprintf(buf, len, "%s %s waits for the fleet", h->name, h->state);
		return;
	}
	if (h->wait == AT_LOCK)
		snprintf(what, sizeof(what), "waits for another host's transition");
	else if (strlen(what) > 28) {
		/* a long command's text, cut between characters */
		size_t k = 24;
		while (k && ((unsigned char)what[k] & 0xc0) == 0x80)
			k--;
		snprintf(what + k, sizeof(what) - k, "…");
	}
	if (!state[0] && h->state)
		snprintf(buf, len, "%s %s", h->name, h->state); /* just went on from a barrier */
	else if (!state[0])
		snprintf(buf, len, "%s preflight", h->name);
	else
		snprintf(buf, len, "%s %s %s %s%s%s", h->name, state, round, what,
			 rate[0] ? " " : "", rate);
}

static void draw_line(struct fleet *F, bool force)
{
	if (!F->tty)
		return;
	double slowest = -1;
	size_t slow = SIZE_MAX;
	struct cm_buf b = {0};
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		char part[700], eta[32];
		host_part(h, part, sizeof(part));
		cm_buf_printf(&b, "%s%s", i ? " | " : "", part);
		field(h, 0, eta, sizeof(eta));
		/* what is left of it since it came */
		double left = eta[0] ? atof(eta) - (cm_mono_s() - h->fields_mono) : -1;
		if (!host_word(h) && eta[0] && left > slowest) {
			slowest = left < 0 ? 0 : left;
			slow = i;
		}
	}
	char eta[32] = "";
	if (slow != SIZE_MAX)
		fcr_format_clock(eta, sizeof(eta), slowest);
	if (eta[0])
		cm_buf_printf(&b, " | ETA %s", eta);
	unsigned width = fcr_status_width() - 1;
	if (strlen(b.s) > width) {
		/* too narrow for every host: the slowest one and the fleet's ETA */
		b.len = 0;
		size_t live = 0;
		for (size_t i = 0; i < F->n; i++)
			live += !host_word(&F->hosts[i]);
		cm_buf_printf(&b, "%zu/%zu hosts", live, F->n);
		if (slow != SIZE_MAX) {
			char part[700];
			host_part(&F->hosts[slow], part, sizeof(part));
			cm_buf_printf(&b, " | ETA %s | slowest: %s", eta, part);
		}
	}
	fcr_status_show_text(b.s, force);
	free(b.s);
}

/* ---- barriers and locks ----------------------------------------------------- */

static void go(struct host *h)
{
	h->wait = FREE;
	/* what it said is of the step before: its next line says more */
	free(h->fields);
	h->fields = NULL;
	if (h->msg.fd >= 0 && send(h->msg.fd, "go\n", 3, MSG_NOSIGNAL) < 0) {
		/* it is gone: its socket's end comes next */
	}
}

/* When every live host waits at a barrier: those at the smallest SEQ go on
 * (a resumed host that lags catches up while the others wait). */
static void release_barrier(struct fleet *F)
{
	unsigned least = 0;
	size_t live = 0;
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (!h->started || h->ended)
			continue;
		live++;
		if (h->wait != AT_BARRIER)
			return;
		if (!least || h->seq < least)
			least = h->seq;
	}
	if (!live)
		return;
	double now = cm_mono_s();
	json_t *waits = json_object(), *left = json_array();
	const char *state = NULL;
	unsigned rep = 0;
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (h->started && !h->ended && h->seq == least) {
			json_object_set_new(waits, h->name, fcr_jseconds(now - h->since));
			state = state ? state : h->state;
			rep = h->rep;
		} else if (h->ended || !h->started) {
			json_array_append_new(left, json_string(h->name));
		}
	}
	json_t *b = json_pack("{s:i, s:s, s:i, s:o, s:o, s:o}", "seq", (int)least, "state",
			      state ? state : "", "repetition", (int)rep, "released",
			      fcr_jutc(cm_wall_s()), "waits", waits, "left", left);
	json_array_append_new(json_object_get(F->m, "barriers"), b);
	save(F);
	/* the longest wait is the one worth a line */
	double longest = 0;
	const char *who = NULL;
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (h->started && !h->ended && h->seq == least && now - h->since > longest) {
			longest = now - h->since;
			who = h->name;
		}
	}
	if (who)
		say(F, "barrier %u (%s, repetition %u): the hosts go on; %s waited longest, %.2fs",
		    least, state ? state : "?", rep, who, longest);
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (h->started && !h->ended && h->seq == least)
			go(h);
	}
}

/* Gives the lock `key` to the host that has waited for it longest, unless
 * a live host holds it. */
static void grant(struct fleet *F, const char *key)
{
	struct host *next = NULL;
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (cm_strv_has(&h->holds, key) && !h->ended)
			return;
		if (h->wait == AT_LOCK && !h->ended && !strcmp(h->wants, key) &&
		    (!next || h->since < next->since))
			next = h;
	}
	if (!next)
		return;
	double waited = cm_mono_s() - next->since;
	cm_strv_take(&next->holds, next->wants);
	next->wants = NULL;
	if (waited >= 0.05) {
		json_t *list = json_object_get(F->m, "lock_waits");
		if (!json_is_array(list)) {
			list = json_array();
			json_object_set_new(F->m, "lock_waits", list);
		}
		json_array_append_new(list, json_pack("{s:s, s:s, s:o}", "host", next->name, "key",
						      key, "waited_s", fcr_jseconds(waited)));
		save(F);
		say(F, "%s: its turn with %s after %.1fs (one host at a time)", next->name, key,
		    waited);
	}
	go(next);
}

static void unlock(struct fleet *F, struct host *h, const char *key)
{
	if (!cm_strv_has(&h->holds, key))
		return;
	char *copy = cm_strdup(key);
	cm_strv_del(&h->holds, copy);
	grant(F, copy);
	free(copy);
}

static void on_message(struct fleet *F, struct host *h, char *line)
{
	if (!strncmp(line, "status ", 7)) {
		free(h->fields);
		h->fields = cm_strdup(line + 7);
		h->fields_mono = cm_mono_s();
		draw_line(F, false);
		return;
	}
	if (!strncmp(line, "barrier ", 8)) {
		unsigned seq, rep;
		int at = 0;
		char *rest = line + 8;
		if (sscanf(rest, "%u %n", &seq, &at) != 1 || !seq)
			goto bad;
		char *state = rest + at, *sp = strrchr(state, ' ');
		if (!sp || sscanf(sp + 1, "%u", &rep) != 1)
			goto bad;
		*sp = '\0';
		free(h->state);
		h->state = cm_strdup(state);
		h->seq = seq;
		h->rep = rep;
		h->since = cm_mono_s();
		h->wait = AT_BARRIER;
		draw_line(F, true);
		release_barrier(F);
		return;
	}
	if (!strncmp(line, "lock ", 5) && line[5] && h->wait == FREE) {
		free(h->wants);
		h->wants = cm_strdup(line + 5);
		h->since = cm_mono_s();
		h->wait = AT_LOCK;
		grant(F, h->wants);
		return;
	}
	if (!strncmp(line, "unlock ", 7)) {
		unlock(F, h, line + 7);
		return;
	}
bad:
	problem("host %s said what the fleet does not know: %.200s", h->name, line);
}

/* The host's socket closed: it leaves the barriers and its locks. */
static void host_ended(struct fleet *F, struct host *h)
{
	h->ended = true;
	h->wait = FREE;
	free(h->wants);
	h->wants = NULL;
	while (h->holds.n)
		unlock(F, h, h->holds.v[h->holds.n - 1]);
	/* what the others wait for may need it no longer */
	for (size_t i = 0; i < F->n; i++) {
		struct host *o = &F->hosts[i];
		if (o->wait == AT_LOCK && !o->ended)
			grant(F, o->wants);
	}
	release_barrier(F);
}

/* ---- the children ------------------------------------------------------------ */

/*
 * Why a host did not end well, in one line: the last error its journal
 * holds (an "error" event's message, a failed step's error), else its last
 * line on stderr.  Caller frees.
 */
static char *host_reason(const struct host *h)
{
	static const char *const kinds[] = {"error", "action-end", "fio-end", NULL};
	json_t *evs = fcr_record_read_events(h->dir, kinds);
	char *why = NULL;
	for (size_t i = json_array_size(evs); i-- > 0 && !why;) {
		json_t *e = json_array_get(evs, i);
		const char *msg =
		    fcr_jstr(e, "message") ? fcr_jstr(e, "message") : fcr_jstr(e, "error");
		if (!msg)
			continue;
		const char *step = fcr_jstr(e, "step"), *state = fcr_jstr(e, "state");
		const char *action = fcr_jstr(e, "action"), *test = fcr_jstr(e, "test");
		if (step)
			why = cm_asprintf("%s: %s", step, msg);
		else if (state && action && strstr(msg, action))
			why = cm_asprintf("%s: %s", state, msg); /* it names the action */
		else if (state && (action || test))
			why = cm_asprintf("%s: %s: %s", state, action ? action : test, msg);
		else
			why = cm_strdup(msg);
	}
	json_decref(evs);
	if (!why && h->last_err)
		why = cm_strdup(h->last_err);
	return why;
}

static void host_reaped(struct fleet *F, struct host *h, int status)
{
	h->reaped = true;
	if (WIFEXITED(status))
		h->exit_status = WEXITSTATUS(status);
	else
		h->exit_status = FCR_EXIT_FAILED;
	/* what it wrote last, then its pipes go (a leftover grandchild may keep
	 * them open) */
	struct stream *ss[] = {&h->out, &h->err, &h->msg};
	for (size_t k = 0; k < CM_ARRAY_SIZE(ss); k++) {
		struct stream *s = ss[k];
		if (s->fd < 0)
			continue;
		int fl = fcntl(s->fd, F_GETFL);
		fcntl(s->fd, F_SETFL, fl | O_NONBLOCK);
		while (s->fd >= 0) {
			ssize_t before = (ssize_t)s->len;
			int end = read_stream(F, h, s);
			if (!end && (ssize_t)s->len == before)
				break;
		}
		if (s->fd >= 0) {
			cut_lines(F, h, s, true);
			close(s->fd);
			s->fd = -1;
		}
	}
	if (!h->ended)
		host_ended(F, h);
	const char *word = h->exit_status == 0			    ? CM_STATUS_DONE
			   : h->exit_status == FCR_EXIT_INTERRUPTED ? CM_STATUS_INTERRUPTED
								    : CM_STATUS_FAILED;
	json_object_set_new(h->obj, "status", json_string(word));
	json_object_set_new(h->obj, "exit_status", json_integer(h->exit_status));
	char *why =
	    h->exit_status && h->exit_status != FCR_EXIT_INTERRUPTED ? host_reason(h) : NULL;
	if (!WIFEXITED(status) && WIFSIGNALED(status)) {
		free(why);
		why = cm_asprintf("killed by signal %d (%s)", WTERMSIG(status),
				  strsignal(WTERMSIG(status)));
	}
	fcr_jset_text(h->obj, "reason", why);
	save(F);
	if (why)
		problem("host %s failed: %s", h->name, why);
	else if (h->exit_status == FCR_EXIT_INTERRUPTED)
		say(F, "host %s was interrupted", h->name);
	else
		say(F, "host %s is done", h->name);
	free(why);
	draw_line(F, true);
}

/* The argv of host h's engine (caller frees the vector, not its words). */
static char **host_argv(struct fleet *F, struct host *h, bool resume, const char *file)
{
	const struct fcr_fleet_options *o = F->o;
	char **argv = cm_calloc(16, sizeof(*argv));
	size_t n = 0;
	argv[n++] = "fiocamp-run";
	if (o->keep_going)
		argv[n++] = "--keep-going";
	if (o->quiet)
		argv[n++] = "--quiet";
	if (o->jobs_dir) {
		argv[n++] = "--jobs-dir";
		argv[n++] = (char *)o->jobs_dir;
	}
	if (resume) {
		argv[n++] = "--resume";
		argv[n++] = h->dir;
	} else {
		argv[n++] = "--host";
		argv[n++] = (char *)h->name;
		argv[n++] = "-o";
		argv[n++] = h->dir;
		argv[n++] = (char *)file;
	}
	return argv;
}

static int start_host(struct fleet *F, struct host *h, bool resume, const char *file,
		      const sigset_t *mask)
{
	int sv[2], out[2], err[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return -errno;
	char **argv = host_argv(F, h, resume, file);
	char fdtext[16];
	snprintf(fdtext, sizeof(fdtext), "%d", sv[1]);
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		free(argv);
		return -errno;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(err[1], 2) < 0)
			_exit(127);
		/* the one descriptor it inherits besides 0, 1 and 2 */
		fcntl(sv[1], F_SETFD, 0);
		setenv(FCR_FLEET_FD_ENV, fdtext, 1);
		/* for `run` commands, and what fio's job files may read */
		setenv(FCR_FLEET_HOST_ENV, h->name, 1);
		sigprocmask(SIG_SETMASK, mask, NULL);
		execv("/proc/self/exe", argv);
		dprintf(2, "cannot run /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	free(argv);
	close(sv[1]);
	close(out[1]);
	close(err[1]);
	h->pid = pid;
	h->msg.fd = sv[0];
	h->out.fd = out[0];
	h->err.fd = err[0];
	h->started = true;
	json_object_set_new(h->obj, "status", json_string(CM_STATUS_RUNNING));
	json_object_set_new(h->obj, "reason", json_null());
	json_object_set_new(h->obj, "exit_status", json_null());
	return 0;
}

/* How bad an exit status is: done, interrupted, failed, a usage error. */
static int severity(int status)
{
	switch (status) {
	case FCR_EXIT_OK:
		return 0;
	case FCR_EXIT_INTERRUPTED:
		return 1;
	case FCR_EXIT_FAILED:
		return 2;
	default:
		return 3;
	}
}

/*
 * A signal to the supervisor: Ctrl-C and a hangup of the terminal reached
 * every host through the terminal's process group already; SIGTERM, and
 * SIGINT or SIGHUP sent by kill(2) (perhaps to the supervisor alone), are
 * passed on.
 */
static void on_signal(struct fleet *F, const struct signalfd_siginfo *si)
{
	if (si->ssi_signo == SIGCHLD)
		return;
	F->interrupts++;
	bool sent = si->ssi_code == SI_USER || si->ssi_code == SI_QUEUE;
	/* a little later: when every process was signalled at once (kill -INT
	 * -PGID, systemd stopping a unit), an engine tells the one passed on
	 * from the first only if that came first (engine/safety.c) */
	if ((si->ssi_signo == SIGTERM || sent) && !F->pass_at) {
		F->pass_at = cm_mono_s() + PASS_DELAY_S;
		F->pass_sig = (int)si->ssi_signo;
	}
	if (F->interrupts == 1)
		say(F, "stopping: every host stops safely, then the fleet ends");
}

/*
 * --resume after the supervisor was killed: a host's engine of that session
 * may still be stopping (its safety power-on waits for a power-off, however
 * long).  Waits until no host's directory is locked by one (record/lock.c),
 * so that the new engines find them free.  0, or -1 when SIGINT, SIGTERM or
 * SIGHUP came first.
 */
static int wait_earlier_engines(struct fleet *F)
{
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		bool said = false;
		for (;;) {
			int fd = open(h->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				break; /* none: the host begins */
			int rc = flock(fd, LOCK_EX | LOCK_NB);
			int e = errno;
			close(fd);
			if (rc == 0 || e != EWOULDBLOCK)
				break;
			if (!said)
				say(F,
				    "host %s: its engine of the earlier session still runs (it may "
				    "be bringing its machine back): waiting for it to end",
				    h->name);
			said = true;
			struct pollfd p = {.fd = F->sigfd, .events = POLLIN};
			if (poll(&p, 1, 200) > 0) {
				struct signalfd_siginfo si;
				while (read(F->sigfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo != SIGCHLD)
						return -1;
				}
			}
		}
		if (said)
			say(F, "host %s: its earlier engine has ended", h->name);
	}
	return 0;
}

/* Whether the file at `a` has the bytes of `text`. */
static bool same_file(const char *a, const char *text, size_t len)
{
	char *got = NULL;
	size_t n = 0;
	bool same =
	    cm_read_file(a, len + 2, &got, &n, NULL, 0) == 0 && n == len && !memcmp(got, text, len);
	free(got);
	return same;
}

/*
 * Hosts of one netcup account refresh its token in turns through the token
 * file (netcup/auth.c: a lock file and the shared access token beside it);
 * a token that only the environment holds cannot be passed on once a
 * refresh rotates it, and the other hosts' copies are then refused.  The
 * names of the hosts that would refresh it from the environment, when
 * there are two or more; NULL otherwise (caller frees).
 */
static char *netcup_env_hosts(const struct fcr_campaign *c)
{
	const char *env = getenv(FCR_NETCUP_TOKEN_ENV);
	if (!c->provider_type || strcmp(c->provider_type, "netcup") || !env || !env[0])
		return NULL;
	struct fcr_provider_section sec = fcr_campaign_provider_section(c);
	bool fleet_file = false;
	for (size_t i = 0; i < sec.n_keys; i++)
		fleet_file |= !strcmp(sec.keys[i].key, "token-file") && sec.keys[i].value[0];
	struct cm_buf names = {0};
	size_t n = 0;
	for (size_t i = 0; i < c->n_hosts; i++) {
		const struct fcr_host *h = &c->hosts[i];
		bool file = fleet_file;
		for (size_t k = 0; k < h->n_keys; k++)
			if (!strcmp(h->keys[k].key, "token-file"))
				file = h->keys[k].value[0] != '\0';
		if (file)
			continue;
		cm_buf_printf(&names, "%s%s", n++ ? ", " : "", h->name);
	}
	if (n < 2) {
		cm_buf_release(&names);
		return NULL;
	}
	return cm_buf_take(&names);
}

int fcr_fleet_run(const struct fcr_campaign *c, const struct fcr_fleet_options *o)
{
	struct fleet F_ = {.c = c, .o = o, .sigfd = -1, .lock_fd = -1}, *F = &F_;
	struct fcr_error err;
	if (getenv(FCR_FLEET_FD_ENV)) {
		/* a host's engine given a fleet: its campaign was not read for it */
		fprintf(stderr, "fiocamp-run: %s is a fleet; a host of a fleet runs one host\n",
			c->source);
		return FCR_EXIT_USAGE;
	}
	if (c->mode != FCR_MODE_FLEET) {
		/* one load from all hosts at once is one engine's, not one per host */
		fprintf(stderr,
			"fiocamp-run: %s: mode = aggregate does not run through the fleet's "
			"supervisor\n",
			c->source);
		return FCR_EXIT_USAGE;
	}
	char *env_hosts = netcup_env_hosts(c);
	if (env_hosts) {
		fprintf(stderr,
			"fiocamp-run: %s: hosts %s would refresh one netcup refresh token from "
			"$" FCR_NETCUP_TOKEN_ENV " at once; a refresh may rotate it and end the "
			"others' copy.  Hosts of a fleet share a token through a file: set "
			"token-file in [provider] (fiocamp-run netcup-login writes one)\n",
			c->source, env_hosts);
		free(env_hosts);
		return FCR_EXIT_USAGE;
	}
	F->tty = !o->quiet && isatty(STDERR_FILENO);
	fcr_progress_init(o->quiet ? FCR_PROGRESS_QUIET
			  : F->tty ? FCR_PROGRESS_TTY
				   : FCR_PROGRESS_PLAIN);
	bool resume = o->resume_dir != NULL;
	if ((resume ? reopen_dir(F, &err) : create_dir(F, &err)) < 0) {
		fprintf(stderr, "fiocamp-run: %s%s\n", resume ? "cannot resume: " : "", err.msg);
		if (F->lock_fd >= 0)
			close(F->lock_fd);
		json_decref(F->m);
		free(F->dir);
		free(F->manifest_path);
		return FCR_EXIT_USAGE;
	}
	/* the file the hosts read: the one given, else the fleet's copy (the
	 * recorded original when it is still the same, for its job files) */
	char *copy = cm_asprintf("%s/" CM_CAMPAIGN_FILE, F->dir);
	const char *recorded = fcr_jstr(F->m, "campaign_file");
	const char *file = o->campaign_path ? o->campaign_path : o->file;
	if (resume)
		file = recorded && same_file(recorded, c->text, c->text_len) ? recorded : copy;

	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGCHLD);
	struct sigaction hup;
	/* under nohup a hangup stays ignored, for the hosts too */
	if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN)
		sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	F->sigfd = signalfd(-1, &block, SFD_CLOEXEC | SFD_NONBLOCK);
	signal(SIGPIPE, SIG_IGN);

	F->n = c->n_hosts;
	F->hosts = cm_calloc(F->n, sizeof(*F->hosts));
	json_t *hosts = json_object_get(F->m, "hosts");
	fcr_progress_line("fleet %s: %s, %zu hosts%s", c->name, F->dir, F->n,
			  resume ? " (resumed)" : "");
	double t0 = cm_mono_s();
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		h->name = c->hosts[i].name;
		h->rel = cm_asprintf(FCR_FLEET_HOSTS "/%s", h->name);
		h->dir = cm_asprintf("%s/%s", F->dir, h->rel);
		h->out.fd = h->err.fd = h->msg.fd = -1;
		h->obj = json_array_get(hosts, i);
	}
	bool stopped = resume && wait_earlier_engines(F) < 0;
	for (size_t i = 0; i < F->n && !stopped; i++) {
		struct host *h = &F->hosts[i];
		/* a host begun before continues; one that never made its
		 * directory (or left it empty) begins */
		char *hm = cm_asprintf("%s/" CM_CAMPAIGN_MANIFEST, h->dir);
		bool again = resume && fcr_path_exists(hm);
		free(hm);
		if (resume && !again)
			rmdir(h->dir);
		int rc = start_host(F, h, again, file, &old);
		if (rc < 0) {
			problem("host %s: cannot start its engine: %s", h->name, strerror(-rc));
			h->started = true;
			h->ended = h->reaped = true;
			h->exit_status = FCR_EXIT_FAILED;
			json_object_set_new(h->obj, "status", json_string(CM_STATUS_FAILED));
			json_object_set_new(h->obj, "reason",
					    json_string("cannot start its engine"));
		}
	}
	save(F);

	for (;;) {
		size_t live = 0;
		struct pollfd *p = cm_calloc(1 + 3 * F->n, sizeof(*p));
		struct host **who = cm_calloc(1 + 3 * F->n, sizeof(*who));
		struct stream **what = cm_calloc(1 + 3 * F->n, sizeof(*what));
		size_t np = 0;
		p[np++] = (struct pollfd){.fd = F->sigfd, .events = POLLIN};
		for (size_t i = 0; i < F->n; i++) {
			struct host *h = &F->hosts[i];
			if (h->reaped || !h->started)
				continue;
			live++;
			struct stream *ss[] = {&h->out, &h->err, &h->msg};
			for (size_t k = 0; k < 3; k++) {
				if (ss[k]->fd < 0)
					continue;
				who[np] = h;
				what[np] = ss[k];
				p[np++] = (struct pollfd){.fd = ss[k]->fd, .events = POLLIN};
			}
		}
		if (!live) {
			free(p);
			free(who);
			free(what);
			break;
		}
		int n = poll(p, np, 200);
		for (size_t k = 1; n > 0 && k < np; k++) {
			if (!p[k].revents || what[k]->fd < 0)
				continue;
			if (read_stream(F, who[k], what[k]) && what[k] == &who[k]->msg &&
			    !who[k]->ended)
				host_ended(F, who[k]);
		}
		if (n > 0 && p[0].revents) {
			struct signalfd_siginfo si;
			while (read(F->sigfd, &si, sizeof(si)) == sizeof(si))
				on_signal(F, &si);
		}
		free(p);
		free(who);
		free(what);
		for (;;) {
			int status;
			pid_t pid = waitpid(-1, &status, WNOHANG);
			if (pid <= 0)
				break;
			for (size_t i = 0; i < F->n; i++) {
				if (F->hosts[i].started && F->hosts[i].pid == pid &&
				    !F->hosts[i].reaped)
					host_reaped(F, &F->hosts[i], status);
			}
		}
		if (F->pass_at && cm_mono_s() >= F->pass_at) {
			F->pass_at = 0;
			for (size_t i = 0; i < F->n; i++) {
				struct host *h = &F->hosts[i];
				if (h->started && !h->reaped)
					kill(h->pid, F->pass_sig);
			}
		}
		draw_line(F, false);
	}
	fcr_progress_end();

	/* the worst host says how the fleet ended */
	int worst = FCR_EXIT_OK;
	struct cm_buf failed = {0};
	size_t n_failed = 0;
	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		if (severity(h->exit_status) > severity(worst))
			worst = h->exit_status;
		if (severity(h->exit_status) >= 2) {
			cm_buf_printf(&failed, "%s%s", n_failed ? ", " : "", h->name);
			n_failed++;
		}
	}
	if (stopped)
		worst = FCR_EXIT_INTERRUPTED; /* before any host began */
	const char *final = worst == FCR_EXIT_OK	    ? CM_STATUS_DONE
			    : worst == FCR_EXIT_INTERRUPTED ? CM_STATUS_INTERRUPTED
							    : CM_STATUS_FAILED;
	json_object_set_new(F->m, "status", json_string(final));
	int saved = save(F);
	char el[32];
	fcr_format_clock(el, sizeof(el), cm_mono_s() - t0);
	if (worst == FCR_EXIT_OK) {
		fcr_progress_line(
		    "fleet %s done in %s: %s (the hosts side by side: fiocamp-analyze %s)", c->name,
		    el, F->dir, F->dir);
	} else if (worst == FCR_EXIT_INTERRUPTED) {
		fprintf(stderr,
			"fiocamp-run: the fleet was interrupted after %s; continue with: "
			"fiocamp-run --resume %s\n",
			el, F->dir);
	} else {
		for (size_t i = 0; i < F->n; i++) {
			struct host *h = &F->hosts[i];
			if (severity(h->exit_status) >= 2)
				fprintf(stderr,
					"fiocamp-run: host %s failed (exit status %d): %s\n",
					h->name, h->exit_status,
					fcr_jstr(h->obj, "reason") ? fcr_jstr(h->obj, "reason")
								   : "no reason recorded");
		}
		fprintf(stderr,
			"fiocamp-run: the fleet failed after %s: %zu of %zu hosts (%s); details in "
			"%s/manifest.json; after fixing the cause: fiocamp-run --resume %s\n",
			el, n_failed, F->n, failed.s, F->dir, F->dir);
	}
	free(failed.s);
	if (saved < 0 && worst == FCR_EXIT_OK)
		worst = FCR_EXIT_FAILED;

	for (size_t i = 0; i < F->n; i++) {
		struct host *h = &F->hosts[i];
		free(h->dir);
		free(h->rel);
		free(h->state);
		free(h->wants);
		cm_strv_release(&h->holds);
		free(h->fields);
		free(h->last_err);
	}
	free(F->hosts);
	free(copy);
	close(F->sigfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (F->lock_fd >= 0)
		close(F->lock_fd);
	json_decref(F->m);
	free(F->dir);
	free(F->manifest_path);
	return worst;
}
