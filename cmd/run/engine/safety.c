/* SPDX-License-Identifier: MIT */
/*
 * The safety layer: a machine that an action took away is never left off.
 * Every provider inherits it; a provider only says how to power on
 * (ensure_powered_on).  Here live the signals that stop a campaign (the
 * first Ctrl-C, SIGTERM or SIGHUP stops it cleanly; a second one cuts even
 * the safety waits short; a third leaves at once), the fatal path's hook,
 * whether the manifest leaves the machine possibly off, and the power-on
 * with its SSH check that runs when the campaign stops after a take-down:
 * after a failure, an interrupt, or a fatal error such as out of memory.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "actions/builtin.h"
#include "engine/session.h"
#include "fleet/link.h"
#include "util/status.h"
#include "machine/probe.h"

/* An int is written atomically on Linux, and the helpers take `volatile int *`. */
static volatile int g_interrupts;
static volatile int g_hard_stop; /* the second one: even copying back stops */

/* A fleet's host: the supervisor's pid, which passes SIGTERM on; 0 otherwise. */
static pid_t g_supervisor;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	/* the supervisor's SIGTERM passed on, when the engine was stopped by
	 * another way already (systemd signals every process of its unit): the
	 * same stop, not a second one that would cut the power-on short */
	if (g_supervisor > 0 && g_interrupts && si && si->si_code == SI_USER &&
	    si->si_pid == g_supervisor)
		return;
	g_interrupts++;
	if (g_interrupts >= 2)
		g_hard_stop = 1;
	if (g_interrupts >= 3)
		_exit(FCR_EXIT_INTERRUPTED); /* something hangs: leave now */
}

/*
 * The session the fatal path speaks of.  Out of memory (or any fatal error
 * that takes cm_die) ends the program from wherever it happens; before the
 * exit, this hook powers a machine that an action took away back on.  The
 * allocator gives back a reserve first, so that it has memory to work with.
 */
static struct fcr_session *g_session;

#define FATAL_RESERVE_BYTES (4u << 20)

static void on_fatal(const char *why)
{
	struct fcr_session *S = g_session;
	if (!S)
		return;
	fcr_progress_clear();
	if (S->journal_ready)
		fcr_session_failure(S, "fatal", why);
	if (S->maybe_down && S->prov_ready)
		fcr_safety_power_on(S, why);
	/* mode = aggregate: no fio server is left on the hosts */
	fcr_aggregate_stop(S);
	/* no ssh master outlives the session */
	fcr_target_mux_end(&S->tgt);
	fcr_target_mux_end_all();
	if (S->journal_ready)
		fprintf(stderr,
			"fiocamp-run: stopped by a fatal error (%s); after fixing the cause: "
			"fiocamp-run --resume %s\n",
			why, S->cdir);
}

void fcr_safety_init(struct fcr_session *S)
{
	S->stop = &g_interrupts;
	S->hard_stop = &g_hard_stop;
	g_session = S;
	cm_on_fatal(on_fatal, FATAL_RESERVE_BYTES);
}

void fcr_safety_end(struct fcr_session *S)
{
	if (g_session == S) {
		g_session = NULL;
		cm_on_fatal(NULL, 0);
	}
}

void fcr_safety_signals(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	g_supervisor = fcr_fleet_linked() ? getppid() : 0;
	/* no SA_RESTART: waits return early and look at the counter */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a lost terminal or ssh session must not leave the machine off; under
	 * nohup a hangup stays ignored */
	if (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* An action that takes the machine away ran (or began), and no wait-ssh
 * saw it back since. */
bool fcr_safety_maybe_down(const struct fcr_session *S)
{
	const struct fcr_campaign *c = S->c;
	json_t *states = json_object_get(S->rec.m, "states");
	bool down = false;
	for (size_t si = 0; si < c->n_states; si++) {
		const struct fcr_state *st = &c->states[si];
		for (size_t k = 1; k <= st->repeat; k++) {
			json_t *before = json_object_get(
			    fcr_manifest_rep(json_array_get(states, si), k), "before");
			for (size_t ai = 0; ai < st->n_actions; ai++) {
				const struct fcr_step *a = &st->actions[ai];
				json_t *obj = json_array_get(before, ai);
				if (a->takes_down && !fcr_has_status(obj, CM_STATUS_PENDING) &&
				    !fcr_has_status(obj, CM_STATUS_SKIPPED))
					down = true;
				if (a->def->ends_downtime && fcr_has_status(obj, CM_STATUS_DONE))
					down = false;
			}
		}
	}
	return down;
}

/* Where to look for the machine's SSH server after powering it on: the
 * campaign's wait-ssh (the current state's first, then any), else the ssh
 * target.  false when there is nothing to probe. */
static bool probe_target(const struct fcr_session *S, const char **host, unsigned *port)
{
	const struct fcr_campaign *c = S->c;
	for (size_t k = 0; k < c->n_states; k++) {
		size_t si = (S->si + k) % c->n_states;
		const struct fcr_state *st = &c->states[si];
		for (size_t ai = 0; ai < st->n_actions; ai++) {
			const struct fcr_step *a = &st->actions[ai];
			if (fcr_wait_ssh_where(a, &S->tgt, host, port))
				return true;
		}
	}
	if (c->target != FCR_TARGET_SSH)
		return false;
	*host = fcr_target_probe_host(&S->tgt);
	*port = c->ssh_port;
	return *host != NULL;
}

int fcr_safety_power_on(struct fcr_session *S, const char *why)
{
	const struct fcr_campaign *c = S->c;
	struct fcr_error pe = {0};
	fcr_progress_line("the machine may be off (%s): asking %s to power it on", why,
			  c->provider_type);
	json_t *res = json_object();
	/* no command over a connection from before: held until SSH answers */
	fcr_target_mux_hold(&S->tgt, true);
	int rc = c->provider->ensure_powered_on(S->prov, res, &pe);
	char state_buf[32] = "";
	snprintf(state_buf, sizeof(state_buf), "%s",
		 fcr_jstr(res, "server_state") ? fcr_jstr(res, "server_state") : "");
	const char *state = state_buf[0] ? state_buf : NULL;
	json_t *ev = json_pack("{s:s, s:s, s:O}", "why", why, "status",
			       rc < 0 ? CM_STATUS_FAILED : CM_STATUS_DONE, "result", res);
	json_object_set_new(ev, "server_state", state ? json_string(state) : json_null());
	if (rc < 0)
		fcr_jset_text(ev, "error", pe.msg);
	const char *host = NULL;
	unsigned port = 0;
	bool ssh_ok = false, ssh_stopped = false;
	/* tasks it stopped waiting for (a second Ctrl-C, its bound): they may
	 * still change the machine after we looked */
	json_t *flight = json_incref(json_object_get(res, "in_flight"));
	char flight_text[700] = "";
	size_t n_flight = rc < 0 ? json_array_size(flight) : 0;
	for (size_t i = 0; i < n_flight && i < 3; i++) {
		json_t *f = json_array_get(flight, i);
		size_t used = strlen(flight_text);
		snprintf(flight_text + used, sizeof(flight_text) - used, "%s%s (%s)", i ? ", " : "",
			 fcr_jstr(f, "name") ? fcr_jstr(f, "name") : "?",
			 fcr_jstr(f, "id") ? fcr_jstr(f, "id") : "?");
	}
	if (rc == 0 && probe_target(S, &host, &port)) {
		struct fcr_probe_result pr;
		struct fcr_error perr;
		fcr_progress_line("waiting for SSH on %s:%u", host, port);
		int prc = fcr_probe_ssh(host, port, c->wait_timeout_ms, S->hard_stop, &pr, &perr);
		json_t *ssh = json_pack("{s:s, s:i, s:i}", "host", host, "port", (int)port,
					"probes", (int)pr.probes);
		if (prc == 0) {
			ssh_ok = true;
			json_object_set_new(ssh, "answered", fcr_jutc(pr.ready_wall));
			json_object_set_new(ssh, "banner", json_string(pr.banner));
		} else {
			ssh_stopped = prc > 0;
			json_object_set_new(ssh, "error",
					    json_string(prc > 0 ? "stopped (Ctrl-C)" : perr.msg));
		}
		json_object_set_new(ev, "ssh", ssh);
	} else if (rc == 0) {
		ssh_ok = true; /* nothing to probe */
	}
	fcr_record_event(&S->rec, "ensure-powered-on", ev);
	json_decref(res);
	json_decref(flight);
	fcr_progress_clear();
	if (rc < 0 && n_flight) {
		/* what it says is what is: why it stopped waiting (a second Ctrl-C
		 * says so, not the provider's words for it), the state now, and what
		 * may still come */
		if (pe.code == FCR_E_STOPPED)
			fprintf(stderr, "fiocamp-run: stopped waiting for the machine's tasks (a "
					"second Ctrl-C)\n");
		else
			fprintf(stderr, "fiocamp-run: stopped waiting: %s\n", pe.msg);
		fprintf(stderr,
			"fiocamp-run: the machine is %s now, but %s still run%s on it and may "
			"still take it down or change it; once %s ended, fiocamp-run --resume %s "
			"waits for what still runs and powers the machine on (or power it on "
			"in the provider's panel)\n",
			state ? state : "in an unknown state", flight_text,
			n_flight == 1 ? "s" : "", n_flight == 1 ? "it has" : "they have", S->cdir);
		return -1;
	}
	if (rc < 0 && pe.code == FCR_E_INVAL) {
		/* left off on purpose: the message says what to do instead */
		fprintf(stderr,
			"fiocamp-run: the machine was not powered on: %s\n"
			"fiocamp-run: it was left %s\n",
			pe.msg, state ? state : "in an unknown state");
		return -1;
	}
	if (rc < 0) {
		fprintf(
		    stderr,
		    "fiocamp-run: could not power the machine on: %s\n"
		    "fiocamp-run: the server was left %s: power it on in the provider's panel\n",
		    pe.msg, state ? state : "in an unknown state");
		return -1;
	}
	if (ssh_stopped) {
		fprintf(stderr,
			"fiocamp-run: the machine is %s; stopped waiting for its SSH server on "
			"%s:%u (a second Ctrl-C): it may still be booting\n",
			state ? state : "on", host, port);
		return -1;
	}
	if (!ssh_ok) {
		fprintf(stderr,
			"fiocamp-run: the server is %s, but SSH on %s:%u did not answer in time\n",
			state ? state : "on", host, port);
		return -1;
	}
	S->maybe_down = false;
	fcr_target_mux_hold(&S->tgt, false);
	if (host)
		fprintf(stderr, "fiocamp-run: the server is %s again and answers SSH on %s:%u\n",
			state ? state : "on", host, port);
	else
		fprintf(stderr, "fiocamp-run: the server is %s again\n", state ? state : "on");
	return 0;
}
