#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Numbers you can trust (issue 22), end to end with real fio: what the
target is and what it did while fio ran.

usage: test-trust.py AREA FIOCAMP_RUN

  loop  a campaign on ext4 over a loop device of the test's own: a quiet
        state, a noisy one with a writer of the test's own on the same file
        system, and one with `rounds = until-steady 10` once the writer
        stopped; every noisy run is disturbed by foreign I/O, no other one;
        the manifest names ext4 and the loop device with its backing file;
        the last state stops between rounds 5 and 10 with the round named
        (its job is paced, rate_iops, so that it settles on any machine)
  ssh   the same facts over ssh, from an sshd whose mount namespace hides
        /proc/pressure: the run goes on, its pressure figures are null

CPU steal is left out of the verdict (`disturbed = steal off`): on a shared
virtual machine it is whatever the neighbours do.  Exit 77 = skipped.
"""
import os
import shutil
import subprocess
import sys

import harness as H
from harness import campaign, check, check_eq, load_manifest, run, write


def sh(*argv):
    return subprocess.run(argv, capture_output=True, text=True)


class LoopExt4:
    """ext4 on a loop device over a sparse file of tmp, mounted below tmp;
    its inode tables and journal written at once (lazy init would be a
    writer of its own for minutes)."""

    def __init__(self, tmp, mib=256):
        self.image = os.path.join(tmp, 'disk.img')
        self.mnt = os.path.join(tmp, 'mnt')
        self.dev = None
        self.mounted = False
        with open(self.image, 'wb') as f:
            f.truncate(mib << 20)
        p = sh('losetup', '--find', '--show', self.image)
        if p.returncode:
            return
        self.dev = p.stdout.strip()
        if sh('mkfs.ext4', '-q', '-F', '-E', 'lazy_itable_init=0,lazy_journal_init=0', self.dev).returncode:
            return
        os.mkdir(self.mnt)
        self.mounted = sh('mount', self.dev, self.mnt).returncode == 0

    def close(self):
        if self.mounted:
            sh('umount', self.mnt)
        if self.dev:
            sh('losetup', '-d', self.dev)


def writer_actions(tmp, mnt):
    """`before` lines that start and stop a writer of the test's own: start
    leaves a loop of direct 1 MiB writes running on mnt; stop ends it and
    waits until it is gone."""
    pid, stop = os.path.join(tmp, 'writer.pid'), os.path.join(tmp, 'writer.stop')
    script = os.path.join(tmp, 'writer.sh')
    write(script, ('echo $$ > %s\n'
                   'while [ ! -e %s ]; do\n'
                   '  dd if=/dev/zero of=%s/noise bs=1M count=16 oflag=direct 2>/dev/null\n'
                   'done\n'
                   'rm -f %s\n') % (pid, stop, mnt, pid))
    start = ('run sh -c "setsid sh %s </dev/null >/dev/null 2>&1 & '
             'while [ ! -e %s ]; do sleep 0.05; done"') % (script, pid)
    end = 'run sh -c "touch %s; while [ -e %s ]; do sleep 0.05; done"' % (stop, pid)
    return start, end, stop


def tests_of(m, state):
    s = next(s for s in m['states'] if s['name'] == state)
    return [t for r in s['rounds'] for t in r['tests']]


def test_loop(tmp):
    if os.geteuid() != 0 or not shutil.which('losetup') or not shutil.which('mkfs.ext4'):
        print('needs root, losetup and mkfs.ext4: skipped')
        return H.SKIPPED
    disk = LoopExt4(tmp)
    try:
        if not disk.mounted:
            print('no loop device could be set up: skipped')
            return H.SKIPPED
        start, end, stop = writer_actions(tmp, disk.mnt)
        ini = campaign(tmp, 'trust.ini', (
            '[state quiet]\n'
            '[state noisy]\n'
            'before = %s\n'
            '[state after]\n'
            'before = %s\n'
            'suite = ./paced4k.fio\n'
            'rounds = until-steady 10\n') % (start, end),
            runtime='2s',
            extra='suite = rr4k\nrounds = 2\ndisturbed = steal off foreign-io 5%\n')
        with open(os.path.join(H.SRCDIR, 'fio-jobs', 'rr4k.fio')) as f:
            rr = f.read()
        write(os.path.join(tmp, 'paced4k.fio'),
              rr.replace('[rr4k]', '[paced4k]') + 'iodepth=4\nrate_iops=200\n')
        text = open(ini).read().replace(os.path.join(tmp, 'target'),
                                        os.path.join(disk.mnt, 'target'))
        write(ini, text)
        rc, out, err = run(['-o', 'camp', ini], tmp)
        check_eq(rc, 0, 'campaign exit status (%s)' % err[-3000:])
        check(os.path.exists(stop), 'the writer was stopped')
        d = os.path.join(tmp, 'camp')
        m = load_manifest(d)
        check_eq(m['status'], 'done', 'campaign status')
        check_eq(m['settings'].get('disturbed'), {'steal': None, 'foreign_io': 0.05},
                 'the thresholds in the manifest')

        # the environment: ext4 on the loop device, the image behind it
        envs = m.get('environments') or []
        check(len(envs) >= 1, 'environments recorded: %r' % envs)
        env = envs[0] if envs else {}
        host = env.get('host') or {}
        check_eq(host.get('cpus'), os.cpu_count(), 'the host has its CPU count')
        check(str(host.get('fio_version', '')).startswith('fio-3'), 'fio version %r' % host)
        places = env.get('places') or [{}]
        fs = places[0].get('filesystem') or {}
        check_eq(fs.get('type'), 'ext4', 'the test file is on ext4')
        check_eq(fs.get('mountpoint'), disk.mnt, 'its mount point')
        devs = places[0].get('devices') or [{}]
        check_eq(devs[0].get('name'), os.path.basename(disk.dev), 'the loop device under it')
        check_eq(devs[0].get('kind'), 'loop', 'its kind')
        check_eq(devs[0].get('backing_file'), disk.image, 'its backing file')
        for s in m['states']:
            check(s.get('environment') in [e['id'] for e in envs],
                  '%s names its environment: %r' % (s['name'], s.get('environment')))

        # every noisy run disturbed by foreign I/O, no quiet one
        after = next(s for s in m['states'] if s['name'] == 'after')
        v = after.get('steady') or {}
        check_eq(v.get('reached'), True, 'the last state is steady: %r' % v)
        rounds = v.get('round') or 0
        check(5 <= rounds <= 10, 'steady between rounds 5 and 10: %r' % rounds)
        check_eq(len(after['rounds']), rounds, 'no round run past the steady one')
        check('round %d' % rounds in err + out,
              'the terminal names the round: %s' % (err + out)[-1500:])
        for state, want in (('quiet', False), ('noisy', True), ('after', False)):
            runs = tests_of(m, state)
            check_eq(len(runs), rounds if state == 'after' else 2,
                     '%s: its runs' % state)
            for t in runs:
                tm = t.get('telemetry') or {}
                check(tm.get('samples', 0) >= 2, '%s %s sampled: %r' % (state, t['json'], tm))
                why = tm.get('disturbed')
                if want:
                    check(why is not None and why.startswith('foreign I/O '),
                          'noisy %s disturbed by foreign I/O: %r' % (t['json'], tm))
                else:
                    check(why is None, '%s %s not disturbed: %r' % (state, t['json'], tm))
                if tm.get('file'):
                    check(os.path.isfile(os.path.join(d, tm['file'])),
                          'the telemetry file %s' % tm['file'])
        ends = [e for e in H.load_journal(d) if e['event'] == 'fio-end']
        check_eq(sum(1 for e in ends if e.get('disturbed')), 2,
                 'two fio-end events say disturbed')
        check(err.count('disturbed') >= 2 or out.count('disturbed') >= 2,
              'the terminal says disturbed: %s' % (err + out)[-2000:])
    finally:
        # a campaign that failed before its last state leaves the writer on
        if disk.mounted:
            write(os.path.join(tmp, 'writer.stop'), '')
            H.wait_for(lambda: not os.path.exists(os.path.join(tmp, 'writer.pid')), timeout=30)
        disk.close()


def test_ssh(tmp):
    if os.geteuid() != 0 or not shutil.which('unshare'):
        print('needs root and unshare: skipped')
        return H.SKIPPED
    # sshd in a mount namespace of its own, /proc/pressure hidden under a tmpfs
    wrapper = os.path.join(tmp, 'sshd-nopsi')
    write(wrapper, '#!/bin/sh\nmount -t tmpfs none /proc/pressure 2>/dev/null || exit 3\n'
          'exec /usr/sbin/sshd "$@"\n', mode=0o755)
    started = H.start_sshd(tmp, sshd=['unshare', '-m', '--propagation', 'private', wrapper])
    if started is None:
        print('sshd or ssh missing: skipped')
        return 77
    proc, port, _, opts = started
    try:
        user = sh('id', '-un').stdout.strip()
        remote_dir = os.path.join(tmp, 'remote')
        ini = campaign(tmp, 'ssh.ini', '[state basis]\n',
                       extra='suite = rr4k\ntarget = ssh %s@127.0.0.1:%d\n'
                       'disturbed = steal off\n' % (user, port))
        write(ini, open(ini).read().replace(os.path.join(tmp, 'target'), remote_dir))
        rc, out, err = run(['-o', 'camp', ini], tmp, {'FIOCAMP_SSH_OPTS': opts})
        check_eq(rc, 0, 'ssh campaign exit status (%s)' % err[-3000:])
        m = load_manifest(os.path.join(tmp, 'camp'))
        envs = m.get('environments') or [{}]
        check_eq(envs[0].get('where'), 'preflight', 'captured in the preflight')
        place = (envs[0].get('places') or [{}])[0]
        check_eq(place.get('path'), os.path.join(remote_dir, 'fiocamp.testfile'),
                 'the test file on the target')
        host = envs[0].get('host') or {}
        check_eq(host.get('kernel'), os.uname().release, 'the kernel over ssh')
        check_eq(host.get('cpus'), os.cpu_count(), 'the CPU count over ssh')
        fs = place.get('filesystem') or {}
        check(fs.get('type'), 'the file system over ssh: %r' % fs)
        t = tests_of(m, 'basis')[0]
        tm = t.get('telemetry') or {}
        check(tm.get('samples', 0) >= 1, 'sampled over ssh: %r' % t)
        check('psi_io_some' in tm and tm['psi_io_some'] is None,
              'no /proc/pressure: its figure is null: %r' % tm)
        check(tm.get('steal') is not None, 'steal still read: %r' % tm)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


AREAS = {'loop': test_loop, 'ssh': test_ssh}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    with H.scratch('fiocamp-trust-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
