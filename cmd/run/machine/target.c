/* SPDX-License-Identifier: MIT */
#include "machine/target.h"

#include "machine/reap.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

/* Outputs copied back from a remote fio run (JSON and logs) stay below this. */
#define FETCH_MAX_BYTES	 (512u * 1024 * 1024)
#define SMALL_OUTPUT_MAX (1024 * 1024)
/* How long a master may take to log in before commands go without it. */
#define MUX_START_MS 30000
#define MUX_STOP_MS  5000

/* The targets whose master runs, for the fatal path; mode = aggregate
 * starts them from a thread per host. */
static struct fcr_target *g_masters[16];
static pthread_mutex_t g_masters_lock = PTHREAD_MUTEX_INITIALIZER;

static void master_register(struct fcr_target *t, struct fcr_target *was)
{
	pthread_mutex_lock(&g_masters_lock);
	for (size_t i = 0; i < CM_ARRAY_SIZE(g_masters); i++) {
		if (g_masters[i] == was) {
			g_masters[i] = t;
			break;
		}
	}
	pthread_mutex_unlock(&g_masters_lock);
}

void fcr_target_mux_end_all(void)
{
	for (size_t i = 0; i < CM_ARRAY_SIZE(g_masters); i++) {
		if (g_masters[i])
			fcr_target_mux_end(g_masters[i]);
	}
}

/* Whether the ssh options (campaign, FIOCAMP_SSH_OPTS) decide about
 * multiplexing already: -M, -S, ControlMaster, ControlPath, ControlPersist. */
static bool user_decides_mux(const struct cm_strv *opts)
{
	static const char takes_arg[] = "BbcDEeFIiJLlmOoPpQRSWw";
	for (size_t i = 0; i < opts->n; i++) {
		const char *w = opts->v[i];
		if (strcasestr(w, "controlmaster") || strcasestr(w, "controlpath") ||
		    strcasestr(w, "controlpersist"))
			return true;
		if (w[0] != '-' || w[1] == '-')
			continue;
		for (const char *p = w + 1; *p; p++) {
			if (*p == 'M' || *p == 'S')
				return true;
			if (strchr(takes_arg, *p)) {
				/* its argument follows: the next word unless it is here */
				if (!p[1])
					i++;
				break;
			}
		}
	}
	return false;
}

int fcr_target_init(struct fcr_target *t, const struct fcr_campaign *c, volatile int *stop,
		    volatile int *hard_stop, struct fcr_error *err)
{
	memset(t, 0, sizeof(*t));
	t->c = c;
	t->stop = stop;
	t->hard_stop = hard_stop;
	t->test_file = fcr_campaign_test_file(c);
	if (c->target != FCR_TARGET_SSH)
		return 0;
	cm_strv_add(&t->ssh_argv, "ssh");
	cm_strv_add(&t->ssh_argv, "-o");
	cm_strv_add(&t->ssh_argv, "BatchMode=yes");
	cm_strv_add(&t->ssh_argv, "-o");
	cm_strv_add(&t->ssh_argv, "ConnectTimeout=15");
	cm_strv_add(&t->ssh_argv, "-o");
	cm_strv_add(&t->ssh_argv, "ServerAliveInterval=15");
	if (c->ssh_port_given) {
		cm_strv_add(&t->ssh_argv, "-p");
		cm_strv_addf(&t->ssh_argv, "%u", c->ssh_port);
	}
	for (size_t i = 0; i < c->ssh_options.n; i++)
		cm_strv_add(&t->ssh_argv, c->ssh_options.v[i]);
	const char *env = getenv("FIOCAMP_SSH_OPTS");
	if (env && *env) {
		struct cm_strv words = {0};
		if (fcr_shell_split(env, &words, err) < 0) {
			cm_strv_release(&words);
			return fcr_fail(err, "FIOCAMP_SSH_OPTS: %s", err->msg);
		}
		for (size_t i = 0; i < words.n; i++)
			cm_strv_add(&t->ssh_argv, words.v[i]);
		cm_strv_release(&words);
	}
	t->mux.on = !user_decides_mux(&t->ssh_argv);
	cm_strv_add(&t->ssh_argv, c->ssh_dest);
	return 0;
}

/* Waits up to ms for the master to end; true when it did. */
static bool master_reaped(pid_t pid, uint64_t ms)
{
	double end = cm_mono_s() + (double)ms / 1000.0;
	for (;;) {
		int st;
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			return true;
		if (cm_mono_s() > end)
			return false;
		cm_sleep_ms(10, NULL);
	}
}

void fcr_target_mux_stop(struct fcr_target *t)
{
	t->mux.failed = false;
	if (t->mux.pid <= 0)
		return;
	pid_t pid = t->mux.pid;
	t->mux.pid = 0;
	/* ssh ends its master on SIGTERM as on `ssh -O exit` */
	kill(pid, SIGTERM);
	if (!master_reaped(pid, MUX_STOP_MS)) {
		kill(pid, SIGKILL);
		master_reaped(pid, MUX_STOP_MS);
	}
	master_register(NULL, t);
	unlink(t->mux.sock);
}

void fcr_target_mux_end(struct fcr_target *t)
{
	fcr_target_mux_stop(t);
	if (t->mux.dir)
		rmdir(t->mux.dir);
}

void fcr_target_mux_hold(struct fcr_target *t, bool held)
{
	if (held)
		fcr_target_mux_stop(t);
	t->mux.held = held;
}

/* The private directory of the master's socket. */
static bool mux_dir(struct fcr_target *t)
{
	if (t->mux.dir)
		return true;
	const char *base = getenv("XDG_RUNTIME_DIR");
	struct stat st;
	if (!base || base[0] != '/' || stat(base, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    access(base, W_OK | X_OK) < 0)
		base = "/tmp";
	char *dir = cm_asprintf("%s/fiocamp-ssh.XXXXXX", base);
	/* mkdtemp makes it 0700; a socket path has room for about 100 bytes */
	if (strlen(dir) > 80 || !mkdtemp(dir)) {
		free(dir);
		return false;
	}
	t->mux.dir = dir;
	t->mux.sock = cm_asprintf("%s/ctl", dir);
	return true;
}

/* Starts the master (ssh -M -N, our child, in its own process group so that
 * Ctrl-C does not end the connection under the commands) and waits for its
 * socket.  On failure the commands connect on their own. */
static void mux_start(struct fcr_target *t)
{
	if (!mux_dir(t)) {
		t->mux.failed = true;
		return;
	}
	unlink(t->mux.sock);
	struct cm_strv argv = {0};
	cm_strv_add(&argv, "ssh");
	cm_strv_add(&argv, "-M");
	cm_strv_add(&argv, "-N");
	cm_strv_add(&argv, "-o");
	cm_strv_addf(&argv, "ControlPath=%s", t->mux.sock);
	cm_strv_add(&argv, "-o");
	cm_strv_add(&argv, "ControlPersist=no");
	for (size_t i = 1; i < t->ssh_argv.n; i++)
		cm_strv_add(&argv, t->ssh_argv.v[i]);
	struct fcr_spawn_opts o = {
	    .argv = argv.v,
	    .stdin_fd = FCR_SPAWN_DEVNULL,
	    .stdout_fd = FCR_SPAWN_DEVNULL,
	    .stderr_fd = FCR_SPAWN_DEVNULL,
	    .own_pgrp = true,
	};
	struct fcr_child child;
	struct fcr_error err = {0};
	int rc = fcr_spawn(&o, &child, &err);
	cm_strv_release(&argv);
	if (rc < 0) {
		t->mux.failed = true;
		return;
	}
	t->mux.pid = child.pid;
	master_register(t, NULL);
	double end = cm_mono_s() + MUX_START_MS / 1000.0;
	for (;;) {
		struct stat st;
		if (stat(t->mux.sock, &st) == 0 && S_ISSOCK(st.st_mode))
			return;
		int status;
		pid_t r = waitpid(child.pid, &status, WNOHANG);
		if (r == child.pid || (r < 0 && errno != EINTR)) {
			master_register(NULL, t);
			t->mux.pid = 0;
			t->mux.failed = true;
			return;
		}
		if (cm_mono_s() > end || (t->stop && *t->stop)) {
			fcr_target_mux_stop(t);
			t->mux.failed = true;
			return;
		}
		cm_sleep_ms(10, NULL);
	}
}

void fcr_target_mux_argv(struct fcr_target *t, bool fresh, struct cm_strv *argv)
{
	if (t->c->target != FCR_TARGET_SSH || !t->mux.on || !argv->n || strcmp(argv->v[0], "ssh"))
		return;
	if (!fresh && !t->mux.held && !t->mux.failed && t->mux.pid <= 0)
		mux_start(t);
	bool shared = !fresh && t->mux.pid > 0;
	struct cm_strv out = {0};
	cm_strv_add(&out, "ssh");
	cm_strv_add(&out, "-o");
	cm_strv_add(&out, "ControlMaster=no");
	cm_strv_add(&out, "-o");
	if (shared)
		cm_strv_addf(&out, "ControlPath=%s", t->mux.sock);
	else
		cm_strv_add(&out, "ControlPath=none");
	for (size_t i = 1; i < argv->n; i++)
		cm_strv_add(&out, argv->v[i]);
	cm_strv_release(argv);
	*argv = out;
}

size_t fcr_target_places(const struct fcr_target *t, struct fcr_place *out)
{
	const struct fcr_campaign *c = t->c;
	if (!c->n_variants) {
		if (!c->uses_test_file)
			return 0;
		out[0] = (struct fcr_place){NULL, c->directory, t->test_file, c->size_bytes};
		return 1;
	}
	for (size_t i = 0; i < c->n_variants; i++) {
		const struct fcr_variant *v = &c->variants[i];
		out[i] = (struct fcr_place){
		    v, v->directory, v->filename ? v->filename : v->test_file, v->file_bytes};
	}
	return c->n_variants;
}

void fcr_target_release(struct fcr_target *t)
{
	fcr_target_mux_end(t);
	free(t->mux.dir);
	free(t->mux.sock);
	t->mux.dir = t->mux.sock = NULL;
	cm_strv_release(&t->ssh_argv);
	free(t->remote_tmp);
	free(t->test_file);
	t->remote_tmp = t->test_file = NULL;
}

const char *fcr_target_probe_host(const struct fcr_target *t)
{
	return t->c->ssh_host;
}

/* ssh argv running `script` through the remote shell. */
static void ssh_script_argv(const struct fcr_target *t, const char *script, struct cm_strv *out)
{
	for (size_t i = 0; i < t->ssh_argv.n; i++)
		cm_strv_add(out, t->ssh_argv.v[i]);
	cm_strv_add(out, script);
}

void fcr_target_argv(const struct fcr_target *t, char *const *argv, struct cm_strv *out)
{
	if (t->c->target == FCR_TARGET_LOCAL) {
		for (size_t i = 0; argv[i]; i++)
			cm_strv_add(out, argv[i]);
		return;
	}
	char *script = fcr_shell_join(argv);
	ssh_script_argv(t, script, out);
	free(script);
}

/* `script` on the target, ended early when *stop becomes nonzero. */
static int run_remote_script(struct fcr_target *t, const char *script, bool fresh,
			     const void *input, size_t input_len, size_t out_max,
			     volatile int *stop, struct fcr_capture *cap, struct fcr_error *err)
{
	struct cm_strv argv = {0};
	ssh_script_argv(t, script, &argv);
	fcr_target_mux_argv(t, fresh, &argv);
	int rc = fcr_run_capture(argv.v, input, input_len, out_max, stop, cap, err);
	cm_strv_release(&argv);
	return rc;
}

int fcr_target_exec(struct fcr_target *t, char *const *argv, const void *input, size_t input_len,
		    struct fcr_capture *cap, struct fcr_error *err)
{
	if (t->c->target == FCR_TARGET_LOCAL)
		return fcr_run_capture(argv, input, input_len, SMALL_OUTPUT_MAX, t->stop, cap, err);
	char *script = fcr_shell_join(argv);
	int rc = run_remote_script(t, script, false, input, input_len, SMALL_OUTPUT_MAX, t->stop,
				   cap, err);
	free(script);
	return rc;
}

int fcr_command_failed(struct fcr_capture *cap, struct fcr_error *err, const char *what_fmt, ...)
{
	if (fcr_exited_ok(cap->status))
		return 0;
	char what[512], st[64];
	va_list ap;
	va_start(ap, what_fmt);
	vsnprintf(what, sizeof(what), what_fmt, ap);
	va_end(ap);
	fcr_describe_status(st, sizeof(st), cap->status);
	int line = (int)strcspn(cap->err, "\n");
	fcr_fail(err, "%s failed (%s): %.*s", what, st, line, cap->err);
	fcr_capture_release(cap);
	return -1;
}

static int local_preflight(struct fcr_target *t, json_t *host, char **fio_version,
			   struct fcr_error *err)
{
	char *const argv[] = {"fio", "--version", NULL};
	struct fcr_capture cap;
	if (fcr_run_capture(argv, NULL, 0, SMALL_OUTPUT_MAX, t->stop, &cap, err) < 0)
		return fcr_fail(err, "fio is not installed here (%s)", err->msg);
	if (!fcr_exited_ok(cap.status)) {
		fcr_capture_release(&cap);
		return fcr_fail(err, "fio --version failed");
	}
	cap.out[strcspn(cap.out, "\r\n")] = '\0';
	*fio_version = cm_strdup(cap.out);
	fcr_capture_release(&cap);

	struct utsname u;
	if (uname(&u) == 0) {
		json_object_set_new(host, "hostname", fcr_jtext(u.nodename));
		json_object_set_new(host, "kernel", fcr_jtext(u.release));
	}
	json_object_set_new(host, "cpus", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	char *mem;
	if (cm_read_file("/proc/meminfo", SMALL_OUTPUT_MAX, &mem, NULL, NULL, 0) == 0) {
		const char *p = strstr(mem, "MemTotal:");
		if (p)
			json_object_set_new(host, "mem_kib",
					    json_integer(strtoll(p + 9, NULL, 10)));
		free(mem);
	}
	return 0;
}

/* What `mktemp -d /tmp/fiocamp.XXXXXX` prints. */
static bool is_work_dir(const char *line)
{
	return !strncmp(line, "/tmp/fiocamp.", 13) && cm_campaign_name_ok(line + 5);
}

static int ssh_preflight(struct fcr_target *t, json_t *host, char **fio_version,
			 struct fcr_error *err)
{
	const struct fcr_campaign *c = t->c;
	struct cm_buf s = {0};
	cm_buf_puts(&s, "command -v fio >/dev/null 2>&1 || { echo 'fio is not installed' >&2; exit "
			"127; }; ");
	cm_buf_puts(&s,
		    "T=$(mktemp -d /tmp/fiocamp.XXXXXX) && echo \"$T\" && fio --version && "
		    "uname -n && uname -r && (nproc 2>/dev/null || getconf _NPROCESSORS_ONLN) && "
		    "(sed -n 's/^MemTotal: *\\([0-9]*\\).*/\\1/p' /proc/meminfo | grep . || echo "
		    "0)");
	struct fcr_capture cap;
	/* a fresh connection: whether the machine answers now, not through a
	 * master from before */
	int rc = run_remote_script(t, s.s, true, NULL, 0, SMALL_OUTPUT_MAX, t->stop, &cap, err);
	cm_buf_release(&s);
	if (rc < 0 || fcr_command_failed(&cap, err, "ssh %s: preflight", c->ssh_dest) < 0)
		return -1;
	/* 6 lines expected; a few more are looked through for the work directory */
	char *lines[16] = {0};
	size_t n = 0;
	char *save = NULL;
	for (char *l = strtok_r(cap.out, "\n", &save); l && n < CM_ARRAY_SIZE(lines);
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	/* the work directory is removed with rm -rf at the end: it must be the
	 * one mktemp made, not a line some shell startup file printed */
	size_t at = 0;
	while (at < n && !is_work_dir(lines[at]))
		at++;
	if (at != 0 || n < 6) {
		fcr_fail(err,
			 "ssh %s: unexpected preflight answer, starting '%.60s' instead of the "
			 "work directory (does a shell startup file on the target print "
			 "something?)",
			 c->ssh_dest, n ? lines[0] : "");
		/* made all the same: fcr_target_cleanup() removes it */
		if (at < n)
			t->remote_tmp = cm_strdup(lines[at]);
		fcr_capture_release(&cap);
		return -1;
	}
	t->remote_tmp = cm_strdup(lines[0]);
	*fio_version = cm_strdup(lines[1]);
	json_object_set_new(host, "hostname", fcr_jtext(lines[2]));
	json_object_set_new(host, "kernel", fcr_jtext(lines[3]));
	json_object_set_new(host, "cpus", json_integer(strtoll(lines[4], NULL, 10)));
	json_object_set_new(host, "mem_kib", json_integer(strtoll(lines[5], NULL, 10)));
	fcr_capture_release(&cap);
	return 0;
}

int fcr_target_preflight(struct fcr_target *t, json_t *host, char **fio_version,
			 struct fcr_error *err)
{
	*fio_version = NULL;
	if (t->c->target == FCR_TARGET_LOCAL)
		return local_preflight(t, host, fio_version, err);
	return ssh_preflight(t, host, fio_version, err);
}

int fcr_target_remove_test_file(struct fcr_target *t, struct fcr_error *err)
{
	return t->test_file ? fcr_target_remove_file(t, t->test_file, err) : 0;
}

int fcr_target_remove_file(struct fcr_target *t, const char *path, struct fcr_error *err)
{
	const struct fcr_campaign *c = t->c;
	if (c->target == FCR_TARGET_LOCAL) {
		if (unlink(path) < 0 && errno != ENOENT)
			return fcr_fail_errno(err, errno, "%s: cannot remove", path);
		return 0;
	}
	char *const argv[] = {"rm", "-f", "--", (char *)path, NULL};
	struct fcr_capture cap;
	if (fcr_target_exec(t, argv, NULL, 0, &cap, err) < 0 ||
	    fcr_command_failed(&cap, err, "rm %s on %s", path, c->ssh_dest) < 0)
		return -1;
	fcr_capture_release(&cap);
	return 0;
}

void fcr_target_cleanup(struct fcr_target *t)
{
	if (t->c->target != FCR_TARGET_SSH || !t->remote_tmp)
		return;
	struct cm_buf s = {0};
	cm_buf_puts(&s, "rm -rf -- ");
	fcr_shell_quote(&s, t->remote_tmp);
	struct fcr_capture cap;
	struct fcr_error err;
	if (run_remote_script(t, s.s, false, NULL, 0, SMALL_OUTPUT_MAX, t->hard_stop, &cap, &err) ==
	    0)
		fcr_capture_release(&cap);
	cm_buf_release(&s);
}

static void fio_args(const char *test, struct cm_strv *out)
{
	cm_strv_add(out, "fio");
	cm_strv_add(out, "--output-format=json");
	cm_strv_addf(out, "--output=%s.json", test);
	/* status lines on stdout, never in the JSON file */
	cm_strv_add(out, "--eta=always");
	cm_strv_addf(out, "%s.fio", test);
}

/*
 * The remote side of a fio run.  The job file comes first on stdin (job_len
 * bytes); stdin then stays open as the lifeline: when the connection ends
 * (the controller died, kill -9 too: its ssh gets SIGTERM), the watcher
 * reads EOF and stops fio's process group (SIGTERM, SIGKILL 5 s later), so
 * no fio outlives its controller.  fio runs in a session of its own
 * (setsid, where there is one), its pid in fio.pid: how Ctrl-C reaches it,
 * and how a later session finds a leftover one (machine/reap.c).
 */
static char *remote_fio_script(const struct fcr_target *t, const char *test, char *const *env,
			       size_t job_len)
{
	struct cm_buf s = {0};
	cm_buf_puts(&s, "cd ");
	fcr_shell_quote(&s, t->remote_tmp ? t->remote_tmp : "/tmp/fiocamp.XXXXXX");
	cm_buf_printf(&s, " && rm -rf run fio.up && mkdir run && cd run && head -c %zu > ",
		      job_len);
	char *job = cm_asprintf("%s.fio", test);
	fcr_shell_quote(&s, job);
	free(job);
	/* fio.up: the target's uptime as fio starts, where the sampler's
	 * seconds count from (machine/sampler.c) */
	cm_buf_puts(&s, " || exit 1; exec 3<&0; S=; command -v setsid >/dev/null 2>&1 && S=setsid; "
			"{ read -r u _ </proc/uptime && echo \"$u\" >../fio.up; } 2>/dev/null; "
			"$S env");
	for (size_t i = 0; env[i]; i++) {
		cm_buf_puts(&s, " ");
		fcr_shell_quote(&s, env[i]);
	}
	struct cm_strv fio = {0};
	fio_args(test, &fio);
	char *joined = fcr_shell_join(fio.v);
	cm_buf_puts(&s, " ");
	cm_buf_puts(&s, joined);
	free(joined);
	cm_strv_release(&fio);
	cm_buf_puts(&s, " </dev/null & p=$!; echo $p > ../fio.pid; "
			"{ while read -r _ <&3; do :; done; kill -TERM -$p || kill -TERM $p; "
			"sleep 5; " FCR_KILL_TREE_SH(
			    "p", "KILL") "; } >/dev/null 2>&1 & w=$!; "
					 "wait $p; s=$?; kill $w 2>/dev/null; exit $s");
	return cm_buf_take(&s);
}

void fcr_target_fio_argv(const struct fcr_target *t, const char *test, char *const *env,
			 size_t job_len, struct cm_strv *out)
{
	if (t->c->target == FCR_TARGET_LOCAL) {
		fio_args(test, out);
		return;
	}
	char *script = remote_fio_script(t, test, env, job_len);
	ssh_script_argv(t, script, out);
	free(script);
}

/* Picks "r=170k IOPS" out of fio's status line. */
static void scan_status(struct fcr_fio_exec *x, char *line)
{
	char *iops = strstr(line, " IOPS]");
	if (!iops || !x->on_status)
		return;
	*iops = '\0';
	char *open = strrchr(line, '[');
	if (!open)
		return;
	char text[96];
	snprintf(text, sizeof(text), "%s IOPS", open + 1);
	x->on_status(x->opaque, text);
}

static void remote_signal(struct fcr_target *t, const char *sig)
{
	struct cm_buf s = {0};
	cm_buf_puts(&s, "p=$(cat ");
	char *pidfile = cm_asprintf("%s/fio.pid", t->remote_tmp);
	fcr_shell_quote(&s, pidfile);
	free(pidfile);
	/* SIGINT to fio, which passes it on and still writes its report; SIGKILL
	 * to its process group (setsid), job processes too */
	if (!strcmp(sig, "KILL"))
		cm_buf_puts(&s, ") && " FCR_KILL_TREE_SH("p", "KILL"));
	else
		cm_buf_printf(&s, ") && kill -%s $p 2>/dev/null", sig);
	struct fcr_capture cap;
	struct fcr_error err;
	/* not stoppable: this is how we stop */
	if (run_remote_script(t, s.s, false, NULL, 0, SMALL_OUTPUT_MAX, NULL, &cap, &err) == 0)
		fcr_capture_release(&cap);
	cm_buf_release(&s);
}

static int fetch_outputs(struct fcr_target *t, const struct fcr_fio_exec *x, struct fcr_error *err)
{
	struct cm_buf s = {0};
	cm_buf_puts(&s, "cd ");
	char *run = cm_asprintf("%s/run", t->remote_tmp);
	fcr_shell_quote(&s, run);
	free(run);
	cm_buf_puts(&s, " && rm -f ");
	char *job = cm_asprintf("%s.fio", x->test);
	fcr_shell_quote(&s, job);
	free(job);
	cm_buf_puts(&s, " && set -- * && if [ -e \"$1\" ]; then exec tar -cf - -- \"$@\"; fi");
	struct fcr_capture cap;
	/* after a first Ctrl-C fio still wrote its report: fetch it anyway */
	int rc =
	    run_remote_script(t, s.s, false, NULL, 0, FETCH_MAX_BYTES, t->hard_stop, &cap, err);
	cm_buf_release(&s);
	if (rc < 0 || fcr_command_failed(&cap, err, "copying fio's outputs back") < 0)
		return -1;
	if (cap.out_len == 0) {
		fcr_capture_release(&cap);
		return 0;
	}
	char *const tar[] = {
	    "tar", "-xf", "-", "-C", (char *)x->dir, "--no-same-owner", "--keep-old-files", NULL};
	struct fcr_capture un;
	rc = fcr_run_capture(tar, cap.out, cap.out_len, SMALL_OUTPUT_MAX, NULL, &un, err);
	fcr_capture_release(&cap);
	if (rc < 0 || fcr_command_failed(&un, err, "unpacking fio's outputs into %s", x->dir) < 0)
		return -1;
	fcr_capture_release(&un);
	return 0;
}

int fcr_target_run_fio(struct fcr_target *t, struct fcr_fio_exec *x, struct fcr_error *err)
{
	bool remote = t->c->target == FCR_TARGET_SSH;
	char *stderr_path = cm_asprintf("%s/%s.stderr", x->dir, x->test);
	char *job_path = cm_asprintf("%s/%s.fio", x->dir, x->test);
	int err_fd = open(stderr_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc = -1;
	x->started = x->interrupted = x->killed = false;
	x->status = 0;
	if (err_fd < 0) {
		fcr_fail_errno(err, errno, "%s: cannot create", stderr_path);
		goto out;
	}
	char *job = NULL;
	size_t job_len = 0;
	char why[512];
	if (remote && cm_read_file(job_path, 64u << 20, &job, &job_len, why, sizeof(why)) < 0) {
		fcr_fail(err, "%s", why);
		goto out;
	}
	struct cm_strv argv = {0};
	fcr_target_fio_argv(t, x->test, x->env, job_len, &argv);
	fcr_target_mux_argv(t, false, &argv);
	struct fcr_spawn_opts o = {
	    .argv = argv.v,
	    .env_add = remote ? NULL : x->env,
	    .cwd = remote ? NULL : x->dir,
	    /* remote: the job file, then the lifeline (remote_fio_script) */
	    .stdin_fd = remote ? FCR_SPAWN_PIPE : FCR_SPAWN_DEVNULL,
	    .stdout_fd = FCR_SPAWN_PIPE,
	    .stderr_fd = err_fd,
	    .own_pgrp = true,
	};
	struct fcr_child c;
	rc = fcr_spawn(&o, &c, err);
	cm_strv_release(&argv);
	if (rc < 0) {
		free(job);
		goto out;
	}
	x->started = true;
	if (remote) {
		/* ssh reads its stdin while it connects: this ends quickly */
		for (size_t done = 0; done < job_len;) {
			ssize_t w = write(c.in_fd, job + done, job_len - done);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				break; /* ssh ended: its status says why */
			done += (size_t)w;
		}
		free(job);
	}
	if (x->on_start) {
		json_t *proc = fcr_proc_identity(c.pid);
		if (remote)
			json_object_set_new(proc, "remote_dir", fcr_jtext(t->remote_tmp));
		x->on_start(x->opaque, proc);
		json_decref(proc);
	}
	char buf[4096];
	size_t used = 0;
	double t_int = 0;
	bool said_slow = false;
	while (c.out_fd >= 0) {
		struct pollfd pfd = {.fd = c.out_fd, .events = POLLIN};
		int pr = poll(&pfd, 1, 200);
		int n_int = x->interrupts ? *x->interrupts : 0;
		if (n_int >= 1 && !x->interrupted) {
			x->interrupted = true;
			t_int = cm_mono_s();
			if (remote)
				remote_signal(t, "INT");
			else
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
			if (remote)
				remote_signal(t, "KILL");
			/* fio's job processes as well (each in a session of its own):
			 * one must not run on to its runtime's end, holding our pipe,
			 * when fio died before it could pass the first signal on */
			fcr_kill_tree(c.pid, SIGKILL);
			kill(-c.pid, SIGKILL);
		}
		if (pr <= 0)
			continue;
		ssize_t r = read(c.out_fd, buf + used, sizeof(buf) - 1 - used);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			close(c.out_fd);
			c.out_fd = -1;
			break;
		}
		used += (size_t)r;
		buf[used] = '\0';
		/* status lines end in \r (terminal style) or \n */
		char *start = buf;
		for (;;) {
			char *end = strpbrk(start, "\r\n");
			if (!end)
				break;
			*end = '\0';
			scan_status(x, start);
			start = end + 1;
		}
		used = (size_t)(buf + used - start);
		memmove(buf, start, used);
		if (used == sizeof(buf) - 1)
			used = 0; /* a line that long is no status line */
	}
	fcr_child_wait(&c, &x->status);
	if (x->on_end)
		x->on_end(x->opaque);
	rc = 0;
	if (remote && !x->killed && fetch_outputs(t, x, err) < 0)
		rc = -1;
out:
	if (err_fd >= 0) {
		struct stat st;
		/* made durable with the run's other outputs (fcr_fio_sync_outputs) */
		if (fstat(err_fd, &st) == 0 && st.st_size == 0)
			unlink(stderr_path);
		close(err_fd);
	}
	free(stderr_path);
	free(job_path);
	return rc;
}

int fcr_target_fresh_file(struct fcr_target *t, struct fcr_error *err)
{
	const struct fcr_campaign *c = t->c;
	if (c->target == FCR_TARGET_LOCAL) {
		if (fcr_mkdir_p(c->directory, 0755, err) < 0)
			return -1;
		if (unlink(t->test_file) < 0 && errno != ENOENT)
			return fcr_fail_errno(err, errno, "%s: cannot remove", t->test_file);
		int fd = open(t->test_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0)
			return fcr_fail_errno(err, errno, "%s: cannot create", t->test_file);
		if (ftruncate(fd, (off_t)c->size_bytes) < 0 || fsync(fd) < 0) {
			int e = errno;
			close(fd);
			return fcr_fail_errno(err, e, "%s: cannot set its size", t->test_file);
		}
		close(fd);
		return 0;
	}
	struct cm_buf s = {0};
	cm_buf_puts(&s, "rm -f -- ");
	fcr_shell_quote(&s, t->test_file);
	cm_buf_printf(&s, " && truncate -s %llu -- ", (unsigned long long)c->size_bytes);
	fcr_shell_quote(&s, t->test_file);
	cm_buf_puts(&s, " && sync");
	struct fcr_capture cap;
	int rc = run_remote_script(t, s.s, false, NULL, 0, SMALL_OUTPUT_MAX, t->stop, &cap, err);
	cm_buf_release(&s);
	if (rc < 0 || fcr_command_failed(&cap, err, "fresh-file on %s", c->ssh_dest) < 0)
		return -1;
	fcr_capture_release(&cap);
	return 0;
}

int fcr_target_sha256(struct fcr_target *t, const char *path, char **hex, struct fcr_error *err)
{
	char *const argv[] = {"sha256sum", "--", (char *)path, NULL};
	struct fcr_capture cap;
	if (fcr_target_exec(t, argv, NULL, 0, &cap, err) < 0)
		return -1;
	if (fcr_command_failed(&cap, err, "sha256sum %s", path) < 0)
		return -1;
	int rc = 0;
	if (cap.out_len < 64 || strspn(cap.out, "0123456789abcdef") != 64) {
		rc = fcr_fail(err, "sha256sum %s: unexpected output", path);
	} else {
		*hex = cm_strndup(cap.out, 64);
	}
	fcr_capture_release(&cap);
	return rc;
}
