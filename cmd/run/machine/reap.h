/* SPDX-License-Identifier: MIT */
/*
 * One fio per target: what an earlier session of a campaign left running
 * (kill -9, a lost terminal, a crash) is found by what its fio-start events
 * journaled and stopped before a resumed session starts fio; on an ssh
 * target the dead session's work directory is removed as well.
 */
#ifndef FCR_MACHINE_REAP_H
#define FCR_MACHINE_REAP_H

#include <sys/types.h>

#include <jansson.h>

#include "fcr.h"
#include "machine/target.h"

/* What identifies a child of ours later: {"pid", "start_ticks"} (the
 * kernel's start time of the process, so that a reused pid is not taken for
 * it).  A new object. */
json_t *fcr_proc_identity(pid_t pid);

/*
 * Sends sig to pid and to every process below it, as /proc's parent links
 * show them when it is called.  A process group is not enough for fio: each
 * of its job processes calls setsid(), and once fio is gone they belong to
 * init, found by nothing.  The tree is read before the first signal.
 */
void fcr_kill_tree(pid_t pid, int sig);

/* The same on an ssh target, as shell text: sends SIG (a name, KILL) to
 * the process whose pid is in $VAR, its process group and its children. */
#define FCR_KILL_TREE_SH(var, sig)                                                                 \
	"{ for c in $(cat /proc/$" var "/task/*/children 2>/dev/null); do kill -" sig              \
	" $c; done; "                                                                              \
	"kill -" sig " -$" var " || kill -" sig " $" var "; } 2>/dev/null"

/*
 * Stops what earlier sessions left running.  procs: the "proc" objects of
 * their fio-start events; remote_dirs: their ssh work directories (strings).
 * A local fio whose pid is still that process has its process group ended
 * (SIGTERM, SIGKILL 5 s later); on an ssh target the fio of each work
 * directory (its fio.pid) is ended the same way and the directory removed.
 * *stopped counts the processes found running.  0, or -1 when one could
 * not be stopped or the target not be reached.
 */
int fcr_reap_leftovers(struct fcr_target *t, json_t *procs, json_t *remote_dirs, unsigned *stopped,
		       struct fcr_error *err);

#endif
