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
};

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

int fcr_aggregate_reap(struct fcr_session *S, struct fcr_error *err)
{
	struct fcr_aggregate *A = S->agg;
	struct fcr_target **t = cm_calloc(A->n, sizeof(*t));
	struct fcr_fioserver_end *ends = cm_calloc(A->n, sizeof(*ends));
	for (size_t i = 0; i < A->n; i++)
		t[i] = &A->tgt[i];
	/* every leftover server told to end first: they end together */
	fcr_fioserver_signal_all(t, A->n, ends);
	int rc = 0;
	for (size_t i = 0; i < A->n && rc == 0; i++) {
		const char *host = S->c->hosts[i].name;
		struct fcr_fioserver_end *e = &ends[i];
		fcr_fioserver_finish(t[i], e);
		if (e->stopped || e->rc < 0) {
			json_t *ev =
			    json_pack("{s:s, s:i, s:s}", "host", host, "stopped", (int)e->stopped,
				      "status", e->rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
			if (e->rc < 0)
				fcr_jset_text(ev, "error", e->err.msg);
			said_killed(host, e, ev);
			fcr_record_event(&S->rec, "leftover-fio-server", ev);
		}
		if (e->rc < 0) {
			rc = fcr_fail(err, "host %s: %s", host, e->err.msg);
			break;
		}
		if (e->stopped)
			fcr_progress_line("host %s: stopped the fio server an earlier session left "
					  "running",
					  host);
		json_t *dirs = earlier_remote_dirs(S, host);
		json_t *procs = json_array();
		unsigned stopped;
		rc = fcr_reap_leftovers(&A->tgt[i], procs, dirs, &stopped, err);
		json_decref(procs);
		json_decref(dirs);
		if (rc < 0)
			rc = fcr_fail(err, "host %s: %s", host, err->msg);
	}
	free(ends);
	free(t);
	return rc;
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
	int rc = 0;
	for (size_t i = 0; i < A->n && rc == 0; i++) {
		const struct fcr_campaign *hc = A->hc[i];
		names[i] = c->hosts[i].name;
		fcr_progress_line("preflight: host %s: %s", names[i], hc->target_text);
		json_t *facts = json_object();
		char *v = NULL;
		if (fcr_target_preflight(&A->tgt[i], facts, &v, err) < 0 ||
		    fcr_target_check_places(&A->tgt[i], err) < 0) {
			rc = fcr_fail(err, "host %s: %s", names[i], err->msg);
			json_decref(facts);
			free(v);
			break;
		}
		versions[i] = v;
		json_t *h = json_pack("{s:s, s:s, s:s, s:o, s:O}", "name", names[i], "target",
				      hc->target_text, "directory", hc->directory, "fio_version",
				      fcr_jtext(v), "host", facts);
		json_array_append_new(hosts, h);
		fcr_record_event(&S->rec, "host-preflight",
				 json_pack("{s:s, s:o, s:o, s:s*}", "host", names[i], "fio_version",
					   fcr_jtext(v), "host_facts", facts, "remote_dir",
					   A->tgt[i].remote_tmp));
		/* what the host is, once: the sampler does not run in aggregate mode */
		json_object_set_new(h, "environment", fcr_environment_capture(&A->tgt[i]));
	}
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
		int rc = fcr_fioserver_start(&A->srv[i], S->stop, err);
		json_t *ev = json_pack("{s:s, s:s, s:s}", "host", host, "socket_dir", A->srv[i].dir,
				       "status", rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE);
		if (rc == 0)
			json_object_set_new(ev, "pid", json_integer(A->srv[i].pid));
		else
			fcr_jset_text(ev, "error", err->msg);
		fcr_record_event(&S->rec, "fio-server-start", ev);
		if (rc < 0)
			return -1;
		A->started[i] = true;
	}
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

char *fcr_aggregate_end(struct fcr_session *S, enum fcr_outcome result)
{
	struct fcr_aggregate *A = S->agg;
	struct cm_buf lines = {0};
	for (size_t i = 0; i < A->n; i++) {
		const char *host = S->c->hosts[i].name;
		const char *path = A->tgt[i].test_file;
		if (path && A->hc[i]->uses_test_file) {
			const char *what = "kept";
			struct fcr_error err = {0};
			if (result == FCR_DONE && !A->hc[i]->keep_file) {
				what = fcr_target_remove_test_file(&A->tgt[i], &err) < 0
					   ? "failed"
					   : "removed";
			}
			json_t *ev = json_pack("{s:s, s:s, s:s}", "host", host, "path", path,
					       "status", what);
			if (err.msg[0])
				fcr_jset_text(ev, "error", err.msg);
			fcr_record_event(&S->rec, "test-file", ev);
			cm_buf_printf(&lines, "%shost %s: the test file %s is %s%s%s",
				      lines.len ? "; " : "", host, path, what,
				      err.msg[0] ? ": " : "", err.msg);
		}
		fcr_target_cleanup(&A->tgt[i]);
	}
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
