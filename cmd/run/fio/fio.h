/* SPDX-License-Identifier: MIT */
/*
 * The fio unit: one fio run from its job file to its verdict.  It writes
 * <name>.fio and <name>.env into the run's directory, runs fio there through
 * the target, lists what fio wrote, reads the JSON report with libfiocamp
 * and judges it, and records all of it in the manifest object it is given
 * and in the journal (fio-start, fio-end).  It also knows the job files of
 * the suite and of the prefill.
 */
#ifndef FCR_FIO_H
#define FCR_FIO_H

#include <jansson.h>

#include "campaign/jobs.h"
#include "fcr.h"
#include "record/record.h"
#include "machine/fioserver.h"
#include "machine/target.h"

/* mode = aggregate: every run goes to all these servers at once, through
 * one fio --client here (machine/fioserver.h); each host's job file gets
 * that host's values (its test file, size, runtime, ioengine, direct). */
struct fcr_fio_hosts {
	const struct fcr_fioserver *servers; /* each with its target and campaign */
	size_t n;
	const char *run_dir; /* where the client runs, beside the servers' ends */
};

struct fcr_fio {
	const struct fcr_campaign *c;
	const char *cdir;		/* the campaign directory (borrowed) */
	struct fcr_target *target;	/* borrowed */
	struct fcr_record *rec;		/* borrowed */
	volatile int *stop;		/* Ctrl-C: fio gets SIGINT; a second one: SIGKILL */
	struct fcr_jobfile *jobs;	/* one per suite entry; owned */
	struct fcr_jobfile prefill_job; /* when a prefill is planned; owned */
	double last_end_mono;		/* when the last fio run ended */
	/* where the runs to come go: a variant's test file at one of its sizes
	 * (NULL, 0: the campaign's test file and size), and the variant's
	 * name for the prefill's journal events */
	const char *file;
	uint64_t size_bytes;
	const char *size_text;
	const char *variant;
	/* the environment capture in force (borrowed from the manifest): the
	 * devices the sampler reads */
	json_t *environment;
	/* the point of the runs to come: of sweep (borrowed; NULL: none) */
	const struct fcr_sweep *sweep;
	size_t point;
	/* mode = aggregate (borrowed); NULL: fio runs on the target */
	const struct fcr_fio_hosts *hosts;
};

/* Finds the suite's job files (and the prefill's when need_prefill), and
 * checks each against the sweep of every state that runs it
 * (fcr_jobs_check_sweep). */
int fcr_fio_resolve_jobs(struct fcr_fio *f, const char *campaign_dir, const char *jobs_dir,
			 bool need_prefill, struct fcr_error *err);
void fcr_fio_release(struct fcr_fio *f);

/* The FIOCAMP_* variables job file `job` reads, for the run named `test`:
 * the swept options at f's point, else the job file's defaults. */
void fcr_fio_env(const struct fcr_fio *f, const struct fcr_jobfile *job, const char *test,
		 struct cm_strv *env);
/* The job file as fio gets it: with numjobs above 1 (in env) and no
 * group_reporting of its own, one [global] group_reporting put before it,
 * so that a point's IOPS is the sum over its processes.  Caller frees. */
char *fcr_fio_job_text(const struct fcr_jobfile *job, char *const *env, size_t *len);

/*
 * One fio run of `job` as test `name` in <cdir>/<dir_rel>; everything goes
 * into obj (status, job, env, json, logs, stderr, timings, iops, error).
 * `where` (borrowed) names the run in its journal events; `what` labels it
 * in messages ("basis r1/4 rw4k").  The outputs are made durable later, by
 * fcr_fio_sync_outputs(): not between two runs, where it would add to the
 * gap between them.
 */
enum fcr_outcome fcr_fio_run(struct fcr_fio *f, const char *dir_rel, const char *name,
			     const struct fcr_jobfile *job, json_t *obj, json_t *where,
			     const char *what);
/*
 * The prefill job as prefill/<name>.* (an earlier, unfinished attempt moved
 * aside first); obj gets the manifest's {status, json, started, finished,
 * duration_s, error}.
 */
enum fcr_outcome fcr_fio_prefill(struct fcr_fio *f, const char *name, json_t *obj,
				 const char *label);
/* fsyncs every file of a run directory, then the directory. */
void fcr_fio_sync_outputs(const char *dir);

#endif
