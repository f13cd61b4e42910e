/* SPDX-License-Identifier: MIT */
/* What an earlier session left running, stopped (reap.h). */
#include "machine/reap.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Numeric field `field` (>= 4, numbered as in proc(5)) of /proc/PID/stat, or 0. */
static unsigned long long stat_field(pid_t pid, int field)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (cm_read_file(path, 4096, &text, NULL, NULL, 0) < 0)
		return 0;
	unsigned long long value = 0;
	/* after the command in parentheses: the state, field 3 */
	const char *p = strrchr(text, ')');
	for (int f = 2; p && f < field; f++) {
		p = strchr(p + 1, ' ');
		if (p && f == field - 1)
			value = strtoull(p + 1, NULL, 10);
	}
	free(text);
	return value;
}

static unsigned long long start_ticks(pid_t pid)
{
	return stat_field(pid, 22);
}

static pid_t parent_of(pid_t pid)
{
	return (pid_t)stat_field(pid, 4);
}

void fcr_kill_tree(pid_t pid, int sig)
{
	if (pid <= 1)
		return;
	struct {
		pid_t pid, parent;
	} *all = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *end;
		long p = strtol(e->d_name, &end, 10);
		if (*end || p <= 1)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			all = cm_realloc(all, cap, sizeof(*all));
		}
		all[n].pid = (pid_t)p;
		all[n++].parent = parent_of((pid_t)p);
	}
	if (d)
		closedir(d);
	/* the tree: pid, then whoever has a parent in it, until nothing is added */
	pid_t *tree = cm_calloc(n + 1, sizeof(*tree));
	size_t t = 0;
	tree[t++] = pid;
	for (size_t done = 0; done < t; done++)
		for (size_t i = 0; i < n; i++)
			if (all[i].parent == tree[done] && t <= n)
				tree[t++] = all[i].pid;
	for (size_t i = 0; i < t; i++)
		kill(tree[i], sig);
	free(tree);
	free(all);
}

json_t *fcr_proc_identity(pid_t pid)
{
	return json_pack("{s:I, s:I}", "pid", (json_int_t)pid, "start_ticks",
			 (json_int_t)start_ticks(pid));
}

/* Whether a process of the group pgid is left. */
static bool group_alive(pid_t pgid)
{
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

static bool wait_group_gone(pid_t pgid, double seconds)
{
	double end = cm_mono_s() + seconds;
	while (group_alive(pgid)) {
		if (cm_mono_s() >= end)
			return false;
		cm_sleep_ms(50, NULL);
	}
	return true;
}

/* A local fio (in its own process group: spawn.h's own_pgrp). */
static int reap_local(json_t *proc, unsigned *stopped, struct fcr_error *err)
{
	json_int_t pid = json_integer_value(json_object_get(proc, "pid"));
	json_int_t ticks = json_integer_value(json_object_get(proc, "start_ticks"));
	if (pid <= 1)
		return 0;
	/* the leader alive but another process: the pid was reused, nothing of ours */
	unsigned long long now = start_ticks((pid_t)pid);
	if (now && ticks && now != (unsigned long long)ticks)
		return 0;
	if (!group_alive((pid_t)pid))
		return 0;
	(*stopped)++;
	kill(-(pid_t)pid, SIGTERM);
	if (wait_group_gone((pid_t)pid, 5.0))
		return 0;
	fcr_kill_tree((pid_t)pid, SIGKILL);
	kill(-(pid_t)pid, SIGKILL);
	if (wait_group_gone((pid_t)pid, 5.0))
		return 0;
	return fcr_fail(err, "fio of an earlier session (process group %lld) does not end",
			(long long)pid);
}

/* What `mktemp -d /tmp/fiocamp.XXXXXX` made, and nothing else: it is removed. */
static bool is_work_dir(const char *d)
{
	return d && !strncmp(d, "/tmp/fiocamp.", 13) && cm_campaign_name_ok(d + 5);
}

static int reap_remote(struct fcr_target *t, json_t *dirs, unsigned *stopped, struct fcr_error *err)
{
	struct cm_buf s = {0};
	cm_buf_puts(&s, "for d in");
	size_t i, n = 0;
	json_t *d;
	json_array_foreach(dirs, i, d) {
		if (!is_work_dir(json_string_value(d)))
			continue;
		cm_buf_puts(&s, " ");
		fcr_shell_quote(&s, json_string_value(d));
		n++;
	}
	if (!n) {
		cm_buf_release(&s);
		return 0;
	}
	/* fio.pid names fio's process group (setsid); only a fio is stopped */
	cm_buf_puts(&s, "; do p=$(cat \"$d/fio.pid\" 2>/dev/null); "
			"if [ -n \"$p\" ] && kill -0 \"$p\" 2>/dev/null && "
			"[ \"$(cat /proc/$p/comm 2>/dev/null || echo fio)\" = fio ]; then "
			"echo stopped; kill -TERM -\"$p\" 2>/dev/null || kill -TERM \"$p\"; i=0; "
			"while kill -0 \"$p\" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; "
			"i=$((i+1)); done; " FCR_KILL_TREE_SH(
			    "p", "KILL") "; fi; rm -rf -- \"$d\"; done; true");
	char *const argv[] = {"sh", "-c", s.s, NULL};
	struct fcr_capture cap;
	int rc = fcr_target_exec(t, argv, NULL, 0, &cap, err);
	cm_buf_release(&s);
	if (rc < 0)
		return -1;
	for (const char *p = cap.out; (p = strstr(p, "stopped")); p++)
		(*stopped)++;
	if (!fcr_exited_ok(cap.status)) {
		char st[64];
		fcr_describe_status(st, sizeof(st), cap.status);
		rc = fcr_fail(err, "stopping an earlier session's fio on the target failed (%s)",
			      st);
	}
	fcr_capture_release(&cap);
	return rc;
}

int fcr_reap_leftovers(struct fcr_target *t, json_t *procs, json_t *remote_dirs, unsigned *stopped,
		       struct fcr_error *err)
{
	*stopped = 0;
	if (t->c->target == FCR_TARGET_SSH)
		return reap_remote(t, remote_dirs, stopped, err);
	size_t i;
	json_t *proc;
	json_array_foreach(procs, i, proc) {
		if (reap_local(proc, stopped, err) < 0)
			return -1;
	}
	return 0;
}
