/* SPDX-License-Identifier: MIT */
/* fio --server on the hosts, reached through ssh's Unix socket forwarding (fioserver.h). */
#include "machine/fioserver.h"

#include "machine/reap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define SMALL_OUTPUT_MAX (1024 * 1024)
/* The logs of one client run, each. */
#define LOGS_MAX_BYTES (512u * 1024 * 1024)
/* How long the tunnel may take to be there: ssh's ConnectTimeout and its
 * login, with room. */
#define TUNNEL_WAIT_S 40.0

/*
 * The host's side, one script for local and ssh hosts alike (machine/
 * place.c does the same): $1 the server's directory, $2 what to do.
 *  start: refuses when a server of ours runs there (exit 3, "running PID"),
 *         else makes the directory owner-only, starts fio --server and
 *         waits for its socket; prints the pid.
 *  signal: sends SIGTERM to the server the pid file names, if it is a
 *         fio --server on this socket (a pid reused by another program is
 *         left alone; "signalled" when one ran), and returns at once.
 *  stop:  the same, then waits for it to be gone (SIGKILL after 5 s,
 *         "killed"; "stopped" when one ran), and removes socket, pid file,
 *         directory.
 * The directory must be ours and no symbolic link: it is what keeps other
 * users away from a socket fio makes writable for everyone.
 */
#define TERM_Q FCR_KILL_TREE_SH("q", "TERM")
#define KILL_Q FCR_KILL_TREE_SH("q", "KILL")
static const char server_script[] =
    "d=$1; s=$d/fio.sock; p=$d/fio.pid; q=$(cat -- \"$p\" 2>/dev/null); "
    "ours() { [ -n \"$q\" ] && kill -0 \"$q\" 2>/dev/null && "
    "tr '\\0' ' ' </proc/\"$q\"/cmdline 2>/dev/null | grep -qF -- \"--server=sock:$s \"; }; "
    "case $2 in "
    "start) "
    "if ours; then echo \"running $q\"; exit 3; fi; "
    "command -v fio >/dev/null 2>&1 || { echo 'fio is not installed' >&2; exit 127; }; "
    "mkdir -p -m 700 -- \"$d\" || exit 1; "
    "if [ -L \"$d\" ] || [ ! -O \"$d\" ]; then echo \"$d: not a directory of this user's\" >&2; "
    "exit 1; fi; chmod 700 -- \"$d\" || exit 1; rm -f -- \"$s\" \"$p\"; "
    "fio --server=sock:\"$s\" --daemonize=\"$p\" </dev/null >/dev/null || exit 1; i=0; "
    "while [ ! -S \"$s\" ]; do q=$(cat -- \"$p\" 2>/dev/null); "
    "if [ -n \"$q\" ] && ! kill -0 \"$q\" 2>/dev/null; then "
    "echo 'fio --server ended at once' >&2; exit 1; fi; "
    "if [ $i -ge 200 ]; then echo 'fio --server made no socket within 10 s' >&2; exit 1; fi; "
    "sleep 0.05; i=$((i+1)); done; cat -- \"$p\";; "
    "signal) if ours; then echo signalled; " TERM_Q "; fi;; "
    "stop) if ours; then echo stopped; " TERM_Q "; i=0; "
    "while ours && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; "
    "if ours; then echo killed; " KILL_Q "; fi; fi; "
    "rm -f -- \"$s\" \"$p\"; rmdir -- \"$d\" 2>/dev/null; true;; "
    "esac";

static const char probe_job[] = "; fiocamp-run: does the server answer?\n"
				"[fiocamp-probe]\n"
				"ioengine=null\n"
				"size=1m\n";

static int run_script(struct fcr_target *t, const char *dir, const char *what,
		      struct fcr_capture *cap, struct fcr_error *err)
{
	char *const argv[] = {"sh",	    "-c", (char *)server_script, "sh", (char *)dir,
			      (char *)what, NULL};
	/* a stop is not stoppable: it is how a session ends after Ctrl-C */
	volatile int *stop = t->stop;
	if (strcmp(what, "start"))
		t->stop = NULL;
	int rc = fcr_target_exec(t, argv, NULL, 0, cap, err);
	t->stop = stop;
	return rc;
}

/* Where the host is, in messages. */
static const char *where(const struct fcr_target *t)
{
	return t->c->target == FCR_TARGET_SSH ? t->c->ssh_dest : "this machine";
}

static char *server_dir(const struct fcr_campaign *c)
{
	return c->directory ? cm_asprintf("%s%s", c->directory, FCR_FIOSERVER_DIR) : NULL;
}

char *fcr_fioserver_run_dir(struct fcr_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = cm_asprintf("%s/fiocamp-fio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fcr_fail_errno(err, errno, "%s: cannot create", dir);
		free(dir);
		return NULL;
	}
	return dir;
}

void fcr_fioserver_run_dir_remove(const char *run_dir)
{
	if (!run_dir)
		return;
	char *const argv[] = {"rm", "-rf", "--", (char *)run_dir, NULL};
	struct fcr_capture cap;
	if (fcr_run_capture(argv, NULL, 0, SMALL_OUTPUT_MAX, NULL, &cap, NULL) == 0)
		fcr_capture_release(&cap);
}

int fcr_fioserver_init(struct fcr_fioserver *s, const char *host, struct fcr_target *t,
		       const char *run_dir, struct fcr_error *err)
{
	memset(s, 0, sizeof(*s));
	s->host = host;
	s->t = t;
	s->tunnel.pid = 0;
	s->tunnel.in_fd = s->tunnel.out_fd = s->tunnel.err_fd = -1;
	s->dir = server_dir(t->c);
	if (!s->dir)
		return fcr_fail(err, "host %s: mode = aggregate needs its `directory`", host);
	struct sockaddr_un sun;
	size_t max = sizeof(sun.sun_path) - 1;
	/* the client's directory holds nothing but the hosts' ends (and the
	 * logs the client writes): no host name can meet another file there */
	char *clients = cm_asprintf("%s/" FCR_FIOSERVER_CLIENTS, run_dir);
	int made = mkdir(clients, 0700) == 0 || errno == EEXIST ? 0 : errno;
	s->local = cm_asprintf("%s/%s", clients, host);
	s->tunnel_log = cm_asprintf("%s/%s.ssh", run_dir, host);
	s->probe_job = cm_asprintf("%s/probe.fio", run_dir);
	if (made) {
		fcr_fail_errno(err, made, "%s: cannot create", clients);
		free(clients);
		return -1;
	}
	free(clients);
	/* the same for every host: made here, before their starts run at once */
	if (!fcr_path_exists(s->probe_job) &&
	    fcr_write_file_nosync(s->probe_job, probe_job, strlen(probe_job), err) < 0)
		return -1;
	if (strlen(s->dir) + strlen("/fio.sock") > max)
		return fcr_fail(err,
				"host %s: %s/fio.sock is longer than a socket's path may be (%zu "
				"bytes): a shorter `directory`, please",
				host, s->dir, max);
	if (strlen(s->local) > max)
		return fcr_fail(err,
				"host %s: %s is longer than a socket's path may be (%zu bytes): a "
				"shorter host name or TMPDIR, please",
				host, s->local, max);
	return 0;
}

void fcr_fioserver_release(struct fcr_fioserver *s)
{
	free(s->dir);
	free(s->local);
	free(s->tunnel_log);
	free(s->probe_job);
	s->dir = s->local = s->tunnel_log = s->probe_job = NULL;
}

/* The first line of the tunnel's stderr, for a message. */
static void tunnel_error(const struct fcr_fioserver *s, char *buf, size_t len)
{
	char *text = NULL;
	buf[0] = '\0';
	if (cm_read_file(s->tunnel_log, 64 * 1024, &text, NULL, NULL, 0) < 0)
		return;
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\r\n"), text);
	free(text);
}

static bool is_socket(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* ssh -N -L local:remote, the campaign's ssh options before the destination:
 * started, not waited for (tunnel_ready()).  Its forward reaches the remote
 * socket only when a client connects, so it may log in while the server
 * starts. */
static int open_tunnel(struct fcr_fioserver *s, struct fcr_error *err)
{
	const struct cm_strv *ssh = &s->t->ssh_argv;
	struct cm_strv argv = {0};
	for (size_t i = 0; i + 1 < ssh->n; i++)
		cm_strv_add(&argv, ssh->v[i]);
	cm_strv_add(&argv, "-N");
	cm_strv_add(&argv, "-o");
	cm_strv_add(&argv, "ExitOnForwardFailure=yes");
	cm_strv_add(&argv, "-o");
	cm_strv_add(&argv, "StreamLocalBindUnlink=yes");
	cm_strv_add(&argv, "-o");
	cm_strv_add(&argv, "StreamLocalBindMask=0177");
	cm_strv_add(&argv, "-L");
	cm_strv_addf(&argv, "%s:%s/fio.sock", s->local, s->dir);
	cm_strv_add(&argv, ssh->v[ssh->n - 1]);
	int log = open(s->tunnel_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (log < 0) {
		cm_strv_release(&argv);
		return fcr_fail_errno(err, errno, "%s: cannot create", s->tunnel_log);
	}
	struct fcr_spawn_opts o = {
	    .argv = argv.v,
	    .stdin_fd = FCR_SPAWN_DEVNULL,
	    .stdout_fd = FCR_SPAWN_DEVNULL,
	    .stderr_fd = log,
	    /* Ctrl-C stops the client, which still needs the way to its servers
	     * for their reports: the tunnel ends when we end it */
	    .own_pgrp = true,
	};
	int rc = fcr_spawn(&o, &s->tunnel, err);
	close(log);
	cm_strv_release(&argv);
	if (rc < 0)
		s->tunnel.pid = 0;
	return rc;
}

/* Waits for the tunnel open_tunnel() started: its local socket. */
static int tunnel_ready(struct fcr_fioserver *s, volatile int *stop, struct fcr_error *err)
{
	/* ssh makes the local socket once it is logged in and the forward set
	 * up; it exits instead when it cannot (ExitOnForwardFailure) */
	double end = cm_mono_s() + TUNNEL_WAIT_S;
	while (!is_socket(s->local)) {
		int status;
		if (waitpid(s->tunnel.pid, &status, WNOHANG) == s->tunnel.pid) {
			char st[64], why[512];
			fcr_describe_status(st, sizeof(st), status);
			tunnel_error(s, why, sizeof(why));
			s->tunnel.pid = 0;
			return fcr_fail(err, "host %s: the ssh tunnel to %s ended (%s): %s",
					s->host, where(s->t), st, why[0] ? why : "no message");
		}
		if (cm_mono_s() >= end)
			return fcr_fail(err,
					"host %s: the ssh tunnel to %s is not there after %.0f s",
					s->host, where(s->t), TUNNEL_WAIT_S);
		if (cm_sleep_ms(20, stop) < 0 || (stop && *stop))
			return fcr_fail_as(err, FCR_E_STOPPED, "host %s: interrupted", s->host);
	}
	return 0;
}

static void close_tunnel(struct fcr_fioserver *s)
{
	if (s->tunnel.pid > 0) {
		kill(s->tunnel.pid, SIGTERM);
		int status;
		fcr_child_wait(&s->tunnel, &status);
		s->tunnel.pid = 0;
	}
	unlink(s->local);
}

int fcr_fioserver_probe(struct fcr_fioserver *s, struct fcr_error *err)
{
	const char *job = s->probe_job;
	int rc = 0;
	if (!fcr_path_exists(job))
		rc = fcr_write_file_nosync(job, probe_job, strlen(probe_job), err);
	if (rc < 0)
		return -1;
	char *client = cm_asprintf("--client=sock:%s", s->local);
	char *const argv[] = {"fio", "--output-format=json", client, (char *)job, NULL};
	struct fcr_capture cap;
	rc = fcr_run_capture(argv, NULL, 0, SMALL_OUTPUT_MAX, NULL, &cap, err);
	free(client);
	if (rc < 0)
		return fcr_fail(err, "host %s: fio --client: %s", s->host, err->msg);
	/* fio's client says what went wrong on stderr, or relayed on stdout */
	bool ok = fcr_exited_ok(cap.status) && strstr(cap.out, "\"client_stats\"") &&
		  !strstr(cap.out, "version mismatch") && !strstr(cap.err, "version mismatch");
	if (!ok) {
		const char *text = cap.err[0] ? cap.err : cap.out;
		while (*text == '\n')
			text++;
		char st[64];
		fcr_describe_status(st, sizeof(st), cap.status);
		fcr_fail(err, "host %s: fio's server on %s does not answer through %s (%s): %.*s",
			 s->host, where(s->t),
			 s->t->c->target == FCR_TARGET_SSH ? "the tunnel" : "its socket", st,
			 (int)strcspn(text, "\n"), text);
		rc = -1;
	}
	fcr_capture_release(&cap);
	return rc;
}

int fcr_fioserver_start(struct fcr_fioserver *s, volatile int *stop, struct fcr_error *err)
{
	bool ssh = s->t->c->target == FCR_TARGET_SSH;
	/* the tunnel's login beside the server's start: each takes a while */
	if (ssh && open_tunnel(s, err) < 0)
		return -1;
	struct fcr_capture cap;
	int rc = run_script(s->t, s->dir, "start", &cap, err);
	if (rc < 0) {
		fcr_fail(err, "host %s: starting fio --server: %s", s->host, err->msg);
	} else if (WIFEXITED(cap.status) && WEXITSTATUS(cap.status) == 3) {
		long pid = strtol(cap.out + strcspn(cap.out, "0123456789"), NULL, 10);
		fcr_capture_release(&cap);
		rc = fcr_fail(err,
			      "host %s: a fio server runs in %s on %s already (pid %ld): another "
			      "campaign's, or one an earlier session of this one left (--resume "
			      "stops that)",
			      s->host, s->dir, where(s->t), pid);
	} else if (fcr_command_failed(&cap, err, "host %s: fio --server on %s", s->host,
				      where(s->t)) < 0) {
		rc = -1;
	}
	if (rc < 0) {
		/* no server of ours there: the way alone is closed */
		close_tunnel(s);
		return -1;
	}
	s->pid = strtol(cap.out, NULL, 10);
	fcr_capture_release(&cap);
	if (ssh) {
		rc = tunnel_ready(s, stop, err);
	} else {
		char *sock = cm_asprintf("%s/fio.sock", s->dir);
		unlink(s->local);
		rc = symlink(sock, s->local) < 0
			 ? fcr_fail_errno(err, errno, "host %s: %s: cannot link", s->host, s->local)
			 : 0;
		free(sock);
	}
	if (rc == 0)
		rc = fcr_fioserver_probe(s, err);
	if (rc < 0) {
		struct fcr_error ignored;
		fcr_fioserver_stop(s, &ignored);
	}
	return rc;
}

int fcr_fioserver_stop(struct fcr_fioserver *s, struct fcr_error *err)
{
	struct fcr_fioserver_end end;
	fcr_fioserver_stop_all(&s, 1, &end);
	if (end.rc < 0)
		*err = end.err;
	return end.rc;
}

/* One step of the host's script ("signal", "stop") for the server below
 * t's directory; cap->out says what it did. */
static int end_step(struct fcr_target *t, const char *what, struct fcr_fioserver_end *e)
{
	char *dir = server_dir(t->c);
	if (!dir)
		return 0;
	struct fcr_capture cap;
	int rc = run_script(t, dir, what, &cap, &e->err);
	if (rc < 0) {
		rc = fcr_fail(&e->err, "stopping fio --server in %s on %s: %s", dir, where(t),
			      e->err.msg);
	} else if (fcr_command_failed(&cap, &e->err, "stopping fio --server in %s on %s", dir,
				      where(t)) < 0) {
		rc = -1;
	} else {
		if (strstr(cap.out, "signalled") || strstr(cap.out, "stopped"))
			e->stopped = 1;
		if (strstr(cap.out, "killed"))
			e->killed = true;
		fcr_capture_release(&cap);
	}
	free(dir);
	return rc;
}

void fcr_fioserver_signal_all(struct fcr_target *const *t, size_t n, struct fcr_fioserver_end *ends)
{
	for (size_t i = 0; i < n; i++) {
		memset(&ends[i], 0, sizeof(ends[i]));
		ends[i].rc = end_step(t[i], "signal", &ends[i]);
	}
}

void fcr_fioserver_finish(struct fcr_target *t, struct fcr_fioserver_end *e)
{
	/* a host that could not be told is tried once more, from the start */
	if (e->rc < 0)
		e->rc = 0;
	unsigned told = e->stopped;
	e->rc = end_step(t, "stop", e);
	e->stopped |= told;
}

void fcr_fioserver_stop_all(struct fcr_fioserver *const *s, size_t n,
			    struct fcr_fioserver_end *ends)
{
	struct fcr_target **t = cm_calloc(n ? n : 1, sizeof(*t));
	for (size_t i = 0; i < n; i++) {
		close_tunnel(s[i]);
		t[i] = s[i]->t;
	}
	/* fio --server takes about a second to end on SIGTERM: every one is
	 * told first, so that they end together, then each is waited for */
	fcr_fioserver_signal_all(t, n, ends);
	for (size_t i = 0; i < n; i++) {
		fcr_fioserver_finish(t[i], &ends[i]);
		if (ends[i].rc == 0)
			s[i]->pid = 0;
	}
	free(t);
}

int fcr_fioserver_reap(struct fcr_target *t, unsigned *stopped, struct fcr_error *err)
{
	struct fcr_fioserver_end end;
	fcr_fioserver_signal_all(&t, 1, &end);
	fcr_fioserver_finish(t, &end);
	*stopped = end.stopped;
	if (end.rc < 0)
		*err = end.err;
	return end.rc;
}

int fcr_fio_local_version(char **version, struct fcr_error *err)
{
	char *const argv[] = {"fio", "--version", NULL};
	struct fcr_capture cap;
	*version = NULL;
	if (fcr_run_capture(argv, NULL, 0, SMALL_OUTPUT_MAX, NULL, &cap, err) < 0)
		return fcr_fail(err,
				"fio is not installed on this machine (%s), and mode = "
				"aggregate runs its client here",
				err->msg);
	if (fcr_command_failed(&cap, err, "fio --version on this machine") < 0)
		return -1;
	cap.out[strcspn(cap.out, "\r\n")] = '\0';
	*version = cm_strdup(cap.out);
	fcr_capture_release(&cap);
	return 0;
}

int fcr_fioserver_check_versions(const char *controller, const char *const *names,
				 const char *const *versions, size_t n, struct fcr_error *err)
{
	bool differ = false;
	for (size_t i = 0; i < n; i++)
		if (!versions[i] || strcmp(versions[i], controller))
			differ = true;
	if (!differ)
		return 0;
	int width = (int)strlen("controller");
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(names[i]) > width)
			width = (int)strlen(names[i]);
	struct cm_buf b = {0};
	cm_buf_puts(&b, "fio differs between the hosts and this controller, and mode = aggregate "
			"needs the same fio everywhere: the client/server protocol is tied to "
			"fio's release (a client of one release refuses the server of another: "
			"\"client/server version mismatch\"):\n");
	cm_buf_printf(&b, "  %-*s  %s\n", width, "controller", controller);
	for (size_t i = 0; i < n; i++) {
		const char *v = versions[i] ? versions[i] : "?";
		cm_buf_printf(&b, "  %-*s  %s%s\n", width, names[i], v,
			      strcmp(v, controller) ? "   <- differs" : "");
	}
	/* the message without its last newline */
	b.s[--b.len] = '\0';
	fcr_fail(err, "%s", b.s);
	cm_buf_release(&b);
	return -1;
}

void fcr_fioserver_client_argv(const struct fcr_fioserver *servers, size_t n,
			       char *const *job_files, struct cm_strv *out)
{
	cm_strv_add(out, "fio");
	cm_strv_add(out, "--output-format=json");
	for (size_t i = 0; i < n; i++) {
		cm_strv_addf(out, "--client=sock:%s", servers[i].host);
		cm_strv_add(out, job_files[i]);
	}
}

/* The logs the client wrote in the run directory for test `test`
 * (<test>_iops.1.log.<host> ...), copied into dir and removed there: the
 * run directory is on another file system, often enough. */
static int take_logs(const char *run_dir, const char *dir, const char *test, struct fcr_error *err)
{
	DIR *d = opendir(run_dir);
	if (!d)
		return fcr_fail_errno(err, errno, "%s: cannot read", run_dir);
	size_t tl = strlen(test);
	int rc = 0;
	for (struct dirent *e = readdir(d); e && rc == 0; e = readdir(d)) {
		if (strncmp(e->d_name, test, tl) || e->d_name[tl] != '_' ||
		    !strstr(e->d_name + tl, ".log"))
			continue;
		char *from = cm_asprintf("%s/%s", run_dir, e->d_name);
		char *to = cm_asprintf("%s/%s", dir, e->d_name);
		char *text = NULL;
		size_t len = 0;
		char why[512];
		if (cm_read_file(from, LOGS_MAX_BYTES, &text, &len, why, sizeof(why)) < 0)
			rc = fcr_fail(err, "%s", why);
		else if (fcr_write_file_nosync(to, text, len, err) < 0)
			rc = -1;
		else
			unlink(from);
		free(text);
		free(from);
		free(to);
	}
	closedir(d);
	return rc;
}

int fcr_fioserver_run_client(const struct fcr_fioserver *servers, size_t n, const char *run_dir,
			     char *const *job_files, struct fcr_fio_exec *x, struct fcr_error *err)
{
	char *clients = cm_asprintf("%s/" FCR_FIOSERVER_CLIENTS, run_dir);
	char *json_path = cm_asprintf("%s/%s.json", x->dir, x->test);
	char *stderr_path = cm_asprintf("%s/%s.stderr", x->dir, x->test);
	int out_fd = open(json_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc = -1;
	x->started = x->interrupted = x->killed = false;
	x->status = 0;
	if (out_fd < 0 || err_fd < 0) {
		fcr_fail_errno(err, errno, "%s: cannot create",
			       out_fd < 0 ? json_path : stderr_path);
		goto out;
	}
	struct cm_strv argv = {0};
	fcr_fioserver_client_argv(servers, n, job_files, &argv);
	struct fcr_spawn_opts o = {
	    .argv = argv.v,
	    .cwd = clients,
	    .stdin_fd = FCR_SPAWN_DEVNULL,
	    .stdout_fd = out_fd,
	    .stderr_fd = err_fd,
	    .own_pgrp = true,
	};
	struct fcr_child c;
	rc = fcr_spawn(&o, &c, err);
	cm_strv_release(&argv);
	if (rc < 0)
		goto out;
	x->started = true;
	if (x->on_start) {
		json_t *proc = fcr_proc_identity(c.pid);
		x->on_start(x->opaque, proc);
		json_decref(proc);
	}
	double t_int = 0;
	bool said_slow = false;
	for (;;) {
		pid_t r = waitpid(c.pid, &x->status, WNOHANG);
		if (r == c.pid || (r < 0 && errno != EINTR))
			break;
		int n_int = x->interrupts ? *x->interrupts : 0;
		if (n_int >= 1 && !x->interrupted) {
			/* the client stops the servers' jobs and writes their reports */
			x->interrupted = true;
			t_int = cm_mono_s();
			kill(c.pid, SIGINT);
		}
		if (x->interrupted && !x->killed && !said_slow &&
		    cm_mono_s() - t_int >= FCR_FIO_STOP_PATIENCE_S) {
			said_slow = true;
			if (x->on_slow_stop)
				x->on_slow_stop(x->opaque, FCR_FIO_STOP_PATIENCE_S);
		}
		if (n_int >= 2 && !x->killed) {
			x->killed = true;
			kill(-c.pid, SIGKILL);
		}
		cm_sleep_ms(50, NULL);
	}
	c.pid = -1;
	if (x->on_end)
		x->on_end(x->opaque);
	rc = take_logs(clients, x->dir, x->test, err);
out:
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0) {
		struct stat st;
		if (fstat(err_fd, &st) == 0 && st.st_size == 0)
			unlink(stderr_path);
		close(err_fd);
	}
	free(clients);
	free(json_path);
	free(stderr_path);
	return rc;
}
