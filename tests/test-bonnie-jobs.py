#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The bonnie++-equivalent job files (fio-jobs/bon_*.fio) run with real fio.

usage: test-bonnie-jobs.py

Each job runs once, straight from fio-jobs/ with the FIOCAMP_* variables set
as fiocamp-run sets them, on a 16 MiB file in a temporary directory below the
build directory (a disk-backed file system: the _direct jobs need O_DIRECT),
with psync and 3 s for the timed seeks.  The JSON must show what the job file
promises: 8 KiB blocks one at a time, buffered or direct, the whole file once
for the block tests, half of it read and half rewritten for the rewrite, one
write in about eleven I/Os from five grouped processes for the seeks, and the
logs a campaign collects (one shared log for the five seekers).  stdlib only.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import harness as H
from harness import check, check_eq

SRCDIR = os.environ.get('FC_SRCDIR', os.path.join(os.path.dirname(__file__), '..'))
BUILDDIR = os.environ.get('FC_BUILDDIR', SRCDIR)
SIZE = 16 << 20
RUNTIME = 3  # two 1 s log samples per seeker at least

JOBS = ['bon_write', 'bon_rewrite', 'bon_read', 'bon_seeks']


def run_job(tmp, test):
    env = dict(os.environ)
    env.update({
        'FIOCAMP_FILE': os.path.join(tmp, 'fiocamp.testfile'),
        'FIOCAMP_SIZE': str(SIZE),
        'FIOCAMP_RUNTIME': str(RUNTIME),
        'FIOCAMP_IOENGINE': 'psync',
        # a campaign's direct = 1 must not reach the buffered jobs
        'FIOCAMP_DIRECT': '1',
        'FIOCAMP_TEST': test,
    })
    job = os.path.join(SRCDIR, 'fio-jobs', test + '.fio')
    p = subprocess.run(['fio', '--output-format=json', '--output=%s.json' % test, job],
                       cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=120)
    check_eq(p.returncode, 0, '%s: fio exit status (stderr: %s)' % (test, p.stderr.strip()))
    check_eq(p.stderr.strip(), '', '%s: nothing on stderr' % test)
    with open(os.path.join(tmp, test + '.json')) as f:
        return json.load(f)


def ddir_bytes(job, ddir):
    return job[ddir]['io_bytes']


def check_common(test, doc, direct):
    jobs = doc['jobs']
    check_eq(len(jobs), 1, '%s: one job in the report (group_reporting for the seeks)' % test)
    job = jobs[0]
    check_eq(job['jobname'], test, '%s: job name' % test)
    check_eq(job['error'], 0, '%s: fio error' % test)
    opts = dict(doc.get('global options', {}))
    opts.update(job.get('job options', {}))
    for key, want in [('bs', '8k'), ('iodepth', '1'), ('direct', '1' if direct else '0'),
                      ('fadvise_hint', '0'), ('ioengine', 'psync'), ('size', str(SIZE))]:
        check_eq(opts.get(key), want, '%s: option %s' % (test, key))
    for ddir in ('read', 'write'):
        if ddir_bytes(job, ddir):
            check_eq(job[ddir]['total_ios'] * 8192, job[ddir]['io_bytes'],
                     '%s: %s moved 8 KiB per I/O' % (test, ddir))
    check(job['usr_cpu'] + job['sys_cpu'] > 0, '%s: usr + sys CPU reported' % test)
    return job, opts


def count_blocks(log):
    """The job blocks of a shared log: the read samples' time starts again
    from the beginning for each process."""
    blocks, last = 0, None
    with open(log) as f:
        for line in f:
            fields = [x.strip() for x in line.split(',')]
            if len(fields) < 3 or fields[2] != '0':
                continue
            t = int(fields[0])
            if last is None or t < last:
                blocks += 1
            last = t
    return blocks


def main():
    if shutil.which('fio') is None:
        print('fio not installed', file=sys.stderr)
        return 77
    tmp = tempfile.mkdtemp(prefix='bonnie-jobs-', dir=BUILDDIR)
    try:
        for direct in (False, True):
            for base in JOBS:
                test = base + ('_direct' if direct else '')
                doc = run_job(tmp, test)
                job, opts = check_common(test, doc, direct)
                r, w = ddir_bytes(job, 'read'), ddir_bytes(job, 'write')
                if base != 'bon_seeks':
                    # one pass however long it takes: no runtime, which would
                    # also mark the run as meant to last a time
                    check('runtime' not in opts and 'time_based' not in opts,
                          '%s: neither runtime nor time_based' % test)
                if base == 'bon_write':
                    check_eq((r, w), (0, SIZE), '%s: the whole file written once' % test)
                    check_eq(opts.get('end_fsync'), '1', '%s: end_fsync' % test)
                elif base == 'bon_rewrite':
                    check_eq(r + w, SIZE, '%s: reads and writes add up to the size' % test)
                    check(0.4 * SIZE <= r <= 0.6 * SIZE, '%s: about half read: %d' % (test, r))
                    check_eq(opts.get('end_fsync'), '1', '%s: end_fsync' % test)
                elif base == 'bon_read':
                    check_eq((r, w), (SIZE, 0), '%s: the whole file read once' % test)
                elif base == 'bon_seeks':
                    check_eq(opts.get('numjobs'), '5', '%s: five processes' % test)
                    check_eq(opts.get('time_based'), '1', '%s: time based' % test)
                    reads, writes = job['read']['total_ios'], job['write']['total_ios']
                    check(reads >= 1000 and writes > 0,
                          '%s: enough I/O to judge the mix: %d reads, %d writes' %
                          (test, reads, writes))
                    if writes:
                        check(8.0 <= reads / writes <= 12.5,
                              '%s: one write per ten reads: %d / %d' % (test, reads, writes))
                    # fio's runtime covers the time asked for; job_runtime
                    # sums the five processes
                    check(job['read']['runtime'] >= RUNTIME * 1000,
                          '%s: runtime %d ms' % (test, job['read']['runtime']))
                    check(job['job_runtime'] >= 5 * RUNTIME * 1000,
                          '%s: job_runtime %d ms of five processes' % (test, job['job_runtime']))
                if base == 'bon_seeks':
                    # one log for the five processes (per_job_logs=0): each
                    # appends its samples, time starting again from the first
                    check_eq(opts.get('per_job_logs'), '0', '%s: per_job_logs' % test)
                    for kind in ('iops', 'bw'):
                        log = os.path.join(tmp, '%s_%s.log' % (test, kind))
                        check(os.path.isfile(log), '%s: %s written' % (test, log))
                        check(not os.path.exists(os.path.join(tmp, '%s_%s.1.log' % (test, kind))),
                              '%s: no per-process %s log' % (test, kind))
                        if os.path.isfile(log):
                            check_eq(count_blocks(log), 5, '%s: processes in %s' % (test, log))
                else:
                    for kind in ('iops', 'bw'):
                        log = os.path.join(tmp, '%s_%s.1.log' % (test, kind))
                        check(os.path.isfile(log), '%s: %s written' % (test, log))
                print('%s: read %d B, write %d B, %.0f read IOPS, %.0f write IOPS, %.1f MiB/s' %
                      (test, r, w, job['read']['iops'], job['write']['iops'],
                       (job['read']['bw_bytes'] + job['write']['bw_bytes']) / 2**20))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return H.summary()


if __name__ == '__main__':
    sys.exit(main())
