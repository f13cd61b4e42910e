/* SPDX-License-Identifier: MIT */
/*
 * mode = aggregate: one engine here for every host of `hosts =`.  Each host
 * runs a fio --server (machine/fioserver.h) for the whole session; each
 * test of each round is one fio --client here over all of them at once, so
 * that the hosts load their shared storage at the same moment and fio
 * reports each client and "All clients".  The servers are stopped at the
 * end, after a failure and after Ctrl-C; one a killed session left is found
 * and stopped on --resume.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "engine/session.h"
#include "machine/environment.h"
#include "machine/reap.h"
#include "providers.h"
#include "util/status.h"

/* The port fio reports for a client on a Unix socket: its default one
 * (FIO_NET_PORT), which nothing listens on. */
#define FIO_SOCKET_CLIENT_PORT 8765

struct fcr_aggregate {
	size_t n;
	struct fcr_campaign **hc; /* each host's campaign: its keys over [campaign] */
	struct fcr_target *tgt;
	struct fcr_fioserver *srv;
	bool *inited;  /* srv[i] filled */
	bool *started; /* srv[i]'s server runs */
	char *run_dir;
	struct fcr_fio_hosts hosts;
	struct workers *w; /* a thread per host, for the session */
};

/*
 * A thread per host for the session: the hosts' preflights, then their
 * servers' starts, run at once, each a few seconds of ssh logins, commands
 * and waits.  The threads last as long as the session, since what one
 * starts (the ssh master, the tunnel) gets SIGTERM when the thread that
 * started it ends (spawn.c's parent-death signal).  Only these jobs run on
 * them; what they find is said and recorded by the session's thread, in
 * the order of the hosts.
 */
struct worker {
	struct workers *all;
	pthread_t th;
	void (*job)(void *); /* to run; NULL when done */
	void *arg;
};

struct workers {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool quit;
	size_t n;
	struct worker *w;
	bool *on_thread; /* w[i] has its thread (else its jobs run here) */
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct workers *all = w->all;
	pthread_mutex_lock(&all->mu);
	for (;;) {
		while (!w->job && !all->quit)
			pthread_cond_wait(&all->cv, &all->mu);
		if (!w->job)
			break;
		pthread_mutex_unlock(&all->mu);
		w->job(w->arg);
		pthread_mutex_lock(&all->mu);
		w->job = NULL;
		pthread_cond_broadcast(&all->cv);
	}
	pthread_mutex_unlock(&all->mu);
	return NULL;
}

static struct workers *workers_start(size_t n)
{
	struct workers *all = cm_calloc(1, sizeof(*all));
	pthread_mutex_init(&all->mu, NULL);
	pthread_cond_init(&all->cv, NULL);
	all->n = n;
	all->w = cm_calloc(n ? n : 1, sizeof(*all->w));
	all->on_thread = cm_calloc(n ? n : 1, sizeof(*all->on_thread));
	for (size_t i = 0; i < n; i++) {
		all->w[i].all = all;
		all->on_thread[i] =
		    pthread_create(&all->w[i].th, NULL, worker_main, &all->w[i]) == 0;
	}
	return all;
}

/* job(arg + i * size) on host i's thread, for every host at once; returns
 * when all are done. */
static void workers_run(struct workers *all, void (*job)(void *), void *arg, size_t size)
{
	pthread_mutex_lock(&all->mu);
	for (size_t i = 0; i < all->n; i++) {
		if (all->on_thread[i]) {
			all->w[i].arg = (char *)arg + i * size;
			all->w[i].job = job;
		}
	}
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	/* a host without a thread of its own: here, beside the others */
	for (size_t i = 0; i < all->n; i++)
		if (!all->on_thread[i])
			job((char *)arg + i * size);
	pthread_mutex_lock(&all->mu);
	for (size_t i = 0; i < all->n; i++)
		while (all->w[i].job)
			pthread_cond_wait(&all->cv, &all->mu);
	pthread_mutex_unlock(&all->mu);
}

static void workers_end(struct workers *all)
{
	if (!all)
		return;
	pthread_mutex_lock(&all->mu);
	all->quit = true;
	pthread_cond_broadcast(&all->cv);
	pthread_mutex_unlock(&all->mu);
	for (size_t i = 0; i < all->n; i++)
		if (all->on_thread[i])
			pthread_join(all->w[i].th, NULL);
	pthread_cond_destroy(&all->cv);
	pthread_mutex_destroy(&all->mu);
	free(all->on_thread);
	free(all->w);
	free(all);
}

/* job(arg + i * size) for every host i at once, on the session's threads
 * (started with the first job: what a thread starts lives as long as it) */
static void on_every_host(struct fcr_aggregate *A, void (*job)(void *), void *arg, size_t size)
{
	if (!A->w)
		A->w = workers_start(A->n);
	workers_run(A->w, job, arg, size);
}

bool fcr_aggregate_mode(const struct fcr_campaign *c)
{
	return c->n_hosts > 0 && c->mode == FCR_MODE_AGGREGATE;
}

int fcr_aggregate_check(const struct fcr_campaign *c, struct cm_strv *problems)
{
	size_t before = problems->n;
	if (c->provider_type && strcmp(c->provider_type, "none"))
		cm_strv_addf(problems,
			     "%s:%u: mode = aggregate runs no provider: its hosts load one storage "
			     "at the same moment, a transition is a fleet's (mode = fleet)",
			     c->source, c->provider_line);
	if (c->n_variants)
		cm_strv_addf(problems,
			     "%s: mode = aggregate has no variants: each host's own directory "
			     "([host NAME] directory =) is where its client runs",
			     c->source);
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		if (st->steady_max)
			cm_strv_addf(problems,
				     "%s:%u: state %s: rounds = until-steady is not for mode = "
				     "aggregate (a fixed number of rounds, please)",
				     c->source, st->rounds_line ? st->rounds_line : st->line,
				     st->name);
		for (size_t ai = 0; ai < st->n_actions; ai++) {
			const struct fcr_step *a = &st->actions[ai];
			if (strcmp(a->words.v[0], "settle"))
				cm_strv_addf(
				    problems,
				    "%s:%u: state %s: `%s` acts on one machine, and mode = "
				    "aggregate drives all its hosts at once: only settle "
				    "runs between its states (a fleet, mode = fleet, runs "
				    "actions on each host)",
				    c->source, a->line, st->name, a->words.v[0]);
		}
	}
	if (!c->n_states && c->steady_max)
		cm_strv_addf(problems, "%s: rounds = until-steady is not for mode = aggregate",
			     c->source);
	return problems->n > before ? -1 : 0;
}

int fcr_aggregate_open(struct fcr_session *S, struct cm_strv *problems)
{
	const struct fcr_campaign *c = S->c;
	struct fcr_aggregate *A = cm_calloc(1, sizeof(*A));
	S->agg = A;
	A->n = c->n_hosts;
	A->hc = cm_calloc(A->n, sizeof(*A->hc));
	A->tgt = cm_calloc(A->n, sizeof(*A->tgt));
	A->srv = cm_calloc(A->n, sizeof(*A->srv));
	A->inited = cm_calloc(A->n, sizeof(*A->inited));
	A->started = cm_calloc(A->n, sizeof(*A->started));
	for (size_t i = 0; i < A->n; i++) {
		const char *name = c->hosts[i].name;
		if (fcr_campaign_parse_host(c->text, c->text_len, c->source, fcr_catalog(), name,
					    &A->hc[i], problems) < 0)
			return -1;
		if (!A->hc[i]->directory) {
			cm_strv_addf(problems,
				     "%s:%u: host %s: mode = aggregate needs its `directory` (in "
				     "[host %s] or [campaign]): its test file and its fio server's "
				     "socket are there",
				     c->source, c->hosts[i].line, name, name);
			return -1;
		}
		struct fcr_error err;
		if (fcr_target_init(&A->tgt[i], A->hc[i], S->stop, S->hard_stop, &err) < 0) {
			cm_strv_addf(problems, "%s: host %s: %s", c->source, name, err.msg);
			return -1;
		}
	}
	return 0;
}

void fcr_aggregate_release(struct fcr_session *S)
{
	struct fcr_aggregate *A = S->agg;
	if (!A)
		return;
	for (size_t i = 0; i < A->n; i++) {
		if (A->inited[i])
			fcr_fioserver_release(&A->srv[i]);
		if (A->hc[i]) {
			fcr_target_release(&A->tgt[i]);
			fcr_campaign_free(A->hc[i]);
		}
	}
	/* the masters and tunnels their threads started have ended: the
	 * threads may */
	workers_end(A->w);
	free(A->hc);
	free(A->tgt);
	free(A->srv);
	free(A->inited);
	free(A->started);
	free(A->run_dir);
	free(A);
	S->agg = NULL;
	S->fio.hosts = NULL;
}

/* The ssh work directories an earlier session's preflight made on host i. */
static json_t *earlier_remote_dirs(struct fcr_session *S, const char *host)
{
	static const char *const kinds[] = {"host-preflight", NULL};
	json_t *ev = fcr_record_read_events(S->cdir, kinds);
	json_t *dirs = json_array();
	size_t i;
	json_t *e;
	json_array_foreach(ev, i, e) {
		const char *dir = fcr_jstr(e, "remote_dir");
		if (dir && !strcmp(fcr_jstr(e, "host") ? fcr_jstr(e, "host") : "", host))
			json_array_append_new(dirs, json_string(dir));
	}
	json_decref(ev);
	return dirs;
}

/* A server that had to be killed, said. */
static void said_killed(const char *host, const struct fcr_fioserver_end *e, json_t *ev)
{
	if (!e->killed)
		return;
	json_object_set_new(ev, "killed", json_true());
	fcr_progress_problem("host %s: its fio server did not end within 5 s of SIGTERM: killed",
			     host);
}

/* Host `host`'s failure `msg` (prefixed with its name when host is not
 * NULL) into err: the first one is the session's, each later one a line of
 * its own after it, in the order of the hosts.  Returns -1. */
static int also_failed(struct fcr_error *err, int rc, const char *host, const char *msg)
{
	char line[FCR_ERROR_MAX];
	/* a message may end with what a command printed, newline and all */
	int len = (int)strlen(msg);
	while (len > 0 && msg[len - 1] == '\n')
		len--;
	if (host)
		snprintf(line, sizeof(line), "host %s: %.*s", host, len, msg);
	else
		snprintf(line, sizeof(line), "%.*s", len, msg);
	if (rc == 0)
		return fcr_fail(err, "%s", line);
	size_t at = strlen(err->msg);
	snprintf(err->msg + at, sizeof(err->msg) - at, "\n%s", line);
	return -1;
}

/* One host's leftovers, on its thread: its server (SIGTERM, waited for,
 * SIGKILL 5 s later), then what fcr_reap_leftovers() finds. */
struct host_reap {
	struct fcr_target *t;
	json_t *dirs; /* the work directories of its earlier preflights */
	struct fcr_fioserver_end end;
	int rc; /* fcr_reap_leftovers()'s, once the server's end went well */
	struct fcr_error err;
};

static void host_reap(void *arg)
{
	struct host_reap *r = arg;
	struct fcr_target *t = r->t;
	fcr_fioserver_signal_all(&t, 1, &r->end);
	fcr_fioserver_finish(t, &r->end);
	if (r->end.rc < 0)
		return;
	json_t *procs = json_array();
	unsigned stopped;
	r->rc = fcr_reap_leftovers(t, procs, r->dirs, &stopped, &r->err);
	json_decref(procs);
}

int fcr_aggregate_reap(struct fcr_session *S, struct fcr_error *err)
{
	struct fcr_aggregate *A = S->agg;
	struct host_reap *r = cm_calloc(A->n, sizeof(*r));
	for (size_t i = 0; i < A->n; i++)
		r[i] = (struct host_reap){.t = &A->tgt[i],
					  .dirs = earlier_remote_dirs(S, S->c->hosts[i].name)};
	/* every host at once: each leftover server takes about a second to end */
	on_every_host(A, host_reap, r, sizeof(*r));
	int rc = 0;
	for (size_t i = 0; i < A->n; i++) {
		const char *host = S->c->hosts[i].name;
		struct fcr_fioserver_end *e = &r[i].end;
		if (e->stopped || e->rc < 0) {
			json_t *ev =
			    json_pack("{s:s, s:i, s:s}", "host", host, "stopped", (int)e->stopped,
				      "status", e->rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
			if (e->rc < 0)
				fcr_jset_text(ev, "error", e->err.msg);
			said_killed(host, e, ev);
			fcr_record_event(&S->rec, "leftover-fio-server", ev);
		}
		if (e->rc < 0)
			rc = also_failed(err, rc, host, e->err.msg);
		else if (e->stopped)
			fcr_progress_line("host %s: stopped the fio server an earlier session left "
					  "running",
					  host);
		if (e->rc == 0 && r[i].rc < 0)
			rc = also_failed(err, rc, host, r[i].err.msg);
		json_decref(r[i].dirs);
	}
	free(r);
	return rc;
}

/* One host's preflight, on a thread of its own: its answers kept for the
 * session's thread, which records them in the order of the hosts. */
struct host_preflight {
	struct fcr_target *t;
	json_t *facts;
	json_t *environment;
	char *version;
	int rc;
	struct fcr_error err;
};

static void host_preflight(void *arg)
{
	struct host_preflight *p = arg;
	if (fcr_target_preflight(p->t, p->facts, &p->version, &p->err) < 0 ||
	    fcr_target_check_places(p->t, &p->err) < 0) {
		p->rc = -1;
		return;
	}
	/* what the host is, once: the sampler does not run in aggregate mode */
	p->environment = fcr_environment_capture(p->t);
}

int fcr_aggregate_preflight(struct fcr_session *S, struct fcr_error *err)
{
	struct fcr_aggregate *A = S->agg;
	const struct fcr_campaign *c = S->c;
	json_t *hosts = json_array();
	json_object_set_new(S->rec.m, "mode", json_string("aggregate"));
	json_object_set_new(S->rec.m, "hosts", hosts);
	const char **names = cm_calloc(A->n, sizeof(*names));
	const char **versions = cm_calloc(A->n, sizeof(*versions));
	struct host_preflight *p = cm_calloc(A->n, sizeof(*p));
	for (size_t i = 0; i < A->n; i++) {
		names[i] = c->hosts[i].name;
		fcr_progress_line("preflight: host %s: %s", names[i], A->hc[i]->target_text);
		p[i] = (struct host_preflight){.t = &A->tgt[i], .facts = json_object()};
	}
	on_every_host(A, host_preflight, p, sizeof(*p));
	/* said and recorded in the order of the hosts */
	int rc = 0;
	for (size_t i = 0; i < A->n; i++) {
		const struct fcr_campaign *hc = A->hc[i];
		if (p[i].rc < 0) {
			rc = also_failed(err, rc, names[i], p[i].err.msg);
			json_decref(p[i].facts);
			free(p[i].version);
			continue;
		}
		const char *v = versions[i] = p[i].version;
		json_t *facts = p[i].facts;
		json_t *h = json_pack("{s:s, s:s, s:s, s:o, s:O}", "name", names[i], "target",
				      hc->target_text, "directory", hc->directory, "fio_version",
				      fcr_jtext(v), "host", facts);
		json_array_append_new(hosts, h);
		fcr_record_event(&S->rec, "host-preflight",
				 json_pack("{s:s, s:o, s:o, s:s*}", "host", names[i], "fio_version",
					   fcr_jtext(v), "host_facts", facts, "remote_dir",
					   A->tgt[i].remote_tmp));
		json_object_set_new(h, "environment", p[i].environment);
	}
	free(p);
	char *mine = NULL;
	if (rc == 0 && fcr_fio_local_version(&mine, err) < 0)
		rc = -1;
	if (rc == 0) {
		json_object_set_new(S->rec.m, "fio_version", fcr_jtext(mine));
		rc = fcr_fioserver_check_versions(mine, names, versions, A->n, err);
	}
	free(mine);
	for (size_t i = 0; i < A->n; i++)
		free((char *)versions[i]);
	free(versions);
	free(names);
	fcr_record_touch(&S->rec, S->rec.m);
	fcr_record_save(&S->rec);
	return rc;
}

/* One host's server start, on its thread. */
struct server_start {
	struct fcr_fioserver *s;
	volatile int *stop;
	bool *started; /* set here: the fatal path, on any thread, stops it */
	int rc;
	struct fcr_error err;
};

static void server_start(void *arg)
{
	struct server_start *st = arg;
	st->rc = fcr_fioserver_start(st->s, st->stop, &st->err);
	*st->started = st->rc == 0;
}

int fcr_aggregate_start(struct fcr_session *S, struct fcr_error *err)
{
	struct fcr_aggregate *A = S->agg;
	A->run_dir = fcr_fioserver_run_dir(err);
	if (!A->run_dir)
		return -1;
	for (size_t i = 0; i < A->n; i++) {
		const char *host = S->c->hosts[i].name;
		if (fcr_fioserver_init(&A->srv[i], host, &A->tgt[i], A->run_dir, err) < 0)
			return -1;
		A->inited[i] = true;
		fcr_progress_line("host %s: starting fio --server on a Unix socket in %s", host,
				  A->srv[i].dir);
	}
	/* all at once: each is an ssh login or two, fio's start and a probe */
	struct server_start *st = cm_calloc(A->n, sizeof(*st));
	for (size_t i = 0; i < A->n; i++)
		st[i] = (struct server_start){
		    .s = &A->srv[i], .stop = S->stop, .started = &A->started[i]};
	on_every_host(A, server_start, st, sizeof(*st));
	int rc = 0;
	for (size_t i = 0; i < A->n; i++) {
		const char *host = S->c->hosts[i].name;
		json_t *ev = json_pack("{s:s, s:s, s:s}", "host", host, "socket_dir", A->srv[i].dir,
				       "status", st[i].rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
		if (st[i].rc == 0)
			json_object_set_new(ev, "pid", json_integer(A->srv[i].pid));
		else
			fcr_jset_text(ev, "error", st[i].err.msg);
		fcr_record_event(&S->rec, "fio-server-start", ev);
		/* one that started (A->started[i]) is stopped with the others,
		 * whatever failed */
		if (st[i].rc < 0)
			rc = also_failed(err, rc, NULL, st[i].err.msg);
	}
	free(st);
	if (rc < 0)
		return -1;
	A->hosts = (struct fcr_fio_hosts){.servers = A->srv, .n = A->n, .run_dir = A->run_dir};
	S->fio.hosts = &A->hosts;
	return 0;
}

void fcr_aggregate_stop(struct fcr_session *S)
{
	struct fcr_aggregate *A = S->agg;
	if (!A)
		return;
	S->fio.hosts = NULL;
	struct fcr_fioserver **srv = cm_calloc(A->n, sizeof(*srv));
	size_t n = 0;
	for (size_t i = 0; i < A->n; i++)
		if (A->started[i])
			srv[n++] = &A->srv[i];
	struct fcr_fioserver_end *ends = cm_calloc(n ? n : 1, sizeof(*ends));
	/* all at once: each takes about a second to end */
	fcr_fioserver_stop_all(srv, n, ends);
	for (size_t i = 0; i < n; i++) {
		const struct fcr_fioserver_end *e = &ends[i];
		json_t *ev = json_pack("{s:s, s:s}", "host", srv[i]->host, "status",
				       e->rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
		if (e->rc < 0) {
			fcr_jset_text(ev, "error", e->err.msg);
			fcr_progress_problem("host %s: %s", srv[i]->host, e->err.msg);
		}
		said_killed(srv[i]->host, e, ev);
		fcr_record_event(&S->rec, "fio-server-stop", ev);
	}
	for (size_t i = 0; i < A->n; i++)
		A->started[i] = false;
	free(ends);
	free(srv);
	fcr_fioserver_run_dir_remove(A->run_dir);
}

/* One host's end, on its thread: its test file removed (when the campaign
 * is done and keeps none), its ssh work directory too. */
struct host_end {
	struct fcr_target *t;
	bool remove;
	const char *what; /* the test file: "kept", "removed", "failed" */
	struct fcr_error err;
};

static void host_end(void *arg)
{
	struct host_end *h = arg;
	if (h->remove)
		h->what = fcr_target_remove_test_file(h->t, &h->err) < 0 ? "failed" : "removed";
	fcr_target_cleanup(h->t);
}

char *fcr_aggregate_end(struct fcr_session *S, enum fcr_outcome result)
{
	struct fcr_aggregate *A = S->agg;
	struct cm_buf lines = {0};
	struct host_end *h = cm_calloc(A->n, sizeof(*h));
	for (size_t i = 0; i < A->n; i++) {
		bool file = A->tgt[i].test_file && A->hc[i]->uses_test_file;
		h[i] =
		    (struct host_end){.t = &A->tgt[i],
				      .remove = file && result == FCR_DONE && !A->hc[i]->keep_file,
				      .what = "kept"};
	}
	/* every host at once: an ssh call or two each */
	on_every_host(A, host_end, h, sizeof(*h));
	for (size_t i = 0; i < A->n; i++) {
		const char *host = S->c->hosts[i].name;
		const char *path = A->tgt[i].test_file;
		if (!path || !A->hc[i]->uses_test_file)
			continue;
		const struct fcr_error *err = &h[i].err;
		json_t *ev =
		    json_pack("{s:s, s:s, s:s}", "host", host, "path", path, "status", h[i].what);
		if (err->msg[0])
			fcr_jset_text(ev, "error", err->msg);
		fcr_record_event(&S->rec, "test-file", ev);
		cm_buf_printf(&lines, "%shost %s: the test file %s is %s%s%s",
			      lines.len ? "; " : "", host, path, h[i].what, err->msg[0] ? ": " : "",
			      err->msg);
	}
	free(h);
	return lines.s;
}

json_t *fcr_aggregate_clients(const struct fcr_session *S)
{
	json_t *list = json_array();
	for (size_t i = 0; i < S->c->n_hosts; i++) {
		const char *host = S->c->hosts[i].name;
		/* fio calls each client by its socket's name here: the host's */
		json_array_append_new(list, json_pack("{s:s, s:s, s:i}", "host", host, "hostname",
						      host, "port", FIO_SOCKET_CLIENT_PORT));
	}
	return list;
}

int fcr_aggregate_dry_run(const struct fcr_campaign *c, const struct fcr_options *o)
{
	(void)o;
	struct cm_strv problems = {0};
	printf("campaign %s (%s): mode = aggregate, every test once per round on all %zu hosts "
	       "at once:\n"
	       "a fio --server on each (a Unix socket in DIRECTORY/.fiocamp-fio/, through ssh "
	       "-L), one fio --client here\n",
	       c->name, c->source, c->n_hosts);
	int rc = FCR_EXIT_OK;
	for (size_t i = 0; i < c->n_hosts; i++) {
		struct fcr_campaign *hc = NULL;
		if (fcr_campaign_parse_host(c->text, c->text_len, c->source, fcr_catalog(),
					    c->hosts[i].name, &hc, &problems) < 0) {
			rc = FCR_EXIT_USAGE;
			continue;
		}
		printf("  host %s: %s, directory %s, size %s, runtime %llus\n", c->hosts[i].name,
		       hc->target_text, hc->directory ? hc->directory : "(none)", hc->size_text,
		       (unsigned long long)(hc->runtime_ms / 1000));
		fcr_campaign_free(hc);
	}
	for (size_t i = 0; i < problems.n; i++)
		fprintf(stderr, "%s\n", problems.v[i]);
	cm_strv_release(&problems);
	if (rc != FCR_EXIT_OK)
		return rc;
	printf("each run: fio --output-format=json");
	for (size_t i = 0; i < c->n_hosts; i++)
		printf(" --client=sock:%s TEST.%s.fio", c->hosts[i].name, c->hosts[i].name);
	printf("\n");
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		printf("state %s:", st->name);
		if (st->repeat > 1)
			printf(" %u times", st->repeat);
		for (size_t ai = 0; ai < st->n_actions; ai++)
			printf("%s%s", ai ? "; " : " ", st->actions[ai].text);
		printf("%s %u round%s of", st->n_actions ? ";" : "", st->rounds,
		       st->rounds == 1 ? "" : "s");
		for (size_t ti = 0; ti < st->n_tests; ti++)
			printf(" %s", c->suite.v[st->tests[ti]]);
		printf("\n");
	}
	return FCR_EXIT_OK;
}
