#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One host of a fleet run alone (issue 21): fiocamp-run --host NAME on a
campaign file with `hosts =` and [host NAME] sections, with real fio on
small files; its manifest's fleet_host, --resume of its directory, and the
fleet's --dry-run.

usage: test-hosts.py AREA FIOCAMP_RUN

Each AREA is its own meson test.  The hosts are local directories (and in
AREA ssh an sshd of the test's own on 127.0.0.1).  Runtimes are 1 s, test
files 8 MiB.  The helpers are tests/harness.py's.  Exit 77 = skipped.
"""
import os
import signal
import subprocess
import sys

import harness as H
from harness import check, check_eq


def fleet_ini(tmp, name='fleet.ini', rounds=1, a_extra='', b_extra='', campaign_extra=''):
    """Hosts a and b, each in a directory of its own below tmp; b runs with
    psync, buffered, 2 s runs."""
    text = ('[campaign]\n'
            'suite     = rw4k\n'
            'rounds    = %d\n'
            'runtime   = 1s\n'
            'size      = 8M\n'
            'pause     = 0s\n'
            'hosts     = a b\n'
            '%s\n'
            '[host a]\n'
            'directory = %s\n'
            '%s\n'
            '[host b]\n'
            'directory = %s   ; its own\n'
            'ioengine  = psync\n'
            'direct    = 0\n'
            'runtime   = 2s\n'
            '%s\n'
            '[state basis]\n') % (rounds, campaign_extra, os.path.join(tmp, 'a'), a_extra,
                                  os.path.join(tmp, 'b'), b_extra)
    path = os.path.join(tmp, name)
    H.write(path, text)
    return path


def fio_starts(d):
    return [e for e in H.load_journal(d) if e['event'] == 'fio-start']


# ---------------------------------------------------------------------------

def test_run(tmp):
    ini = fleet_ini(tmp)
    d = os.path.join(tmp, 'camp-b')
    rc, out, err = H.run(['-q', '--host', 'b', '-o', d, ini], tmp)
    check_eq(rc, 0, 'host b alone: ' + err)
    m = H.load_manifest(d)
    check_eq(m.get('fleet_host'), 'b', 'fleet_host')
    check_eq(m['status'], 'done', 'status')
    check_eq(m['campaign'], 'fleet', 'the campaign is the fleet file\'s')
    s = m['settings']
    check_eq((s['directory'], s['ioengine'], s['direct'], s['runtime_s']),
             (os.path.join(tmp, 'b'), 'psync', 0, 2.0), 'host b\'s keys over [campaign]')
    check_eq(s['size_bytes'], 8 << 20, 'size from [campaign]')
    with open(ini) as f, open(os.path.join(d, 'campaign.ini')) as g:
        check_eq(g.read(), f.read(), 'the fleet\'s file copied as it is')
    check(not os.path.exists(os.path.join(tmp, 'a')), 'nothing of host a was touched')
    # host a: [campaign]'s values where it sets none
    d = os.path.join(tmp, 'camp-a')
    rc, out, err = H.run(['-q', '--host', 'a', '-o', d, ini], tmp)
    check_eq(rc, 0, 'host a alone: ' + err)
    s = H.load_manifest(d)['settings']
    check_eq((s['directory'], s['ioengine'], s['direct'], s['runtime_s']),
             (os.path.join(tmp, 'a'), 'libaio', 1, 1.0), 'host a\'s settings')
    # without -o: the host is in the directory's name
    rc, out, err = H.run(['-q', '--host', 'a', ini], tmp)
    check_eq(rc, 0, 'host a in a directory of its own: ' + err)
    made = [n for n in os.listdir(tmp) if n.startswith('fleet-a-')]
    check_eq(len(made), 1, 'NAME-HOST-YYYYmmdd-HHMMSS: %r' % os.listdir(tmp))
    # refusals: no such host, a campaign that is no fleet, --host with --demo
    rc, out, err = H.run(['--host', 'c', ini], tmp)
    check(rc == 2 and "fleet.ini:7: no host 'c' in 'hosts =' (a, b)" in err,
          'unknown host: %d %s' % (rc, err))
    one = os.path.join(tmp, 'one.ini')
    H.write(one, '[campaign]\nsuite = rw4k\nsize = 8M\ndirectory = %s\n[state s]\n'
            % os.path.join(tmp, 'one'))
    rc, out, err = H.run(['--host', 'a', one], tmp)
    check(rc == 2 and "one.ini:1: no host 'a': the campaign has no 'hosts ='" in err,
          'no fleet: %d %s' % (rc, err))
    rc, out, err = H.run(['--host', 'a', '--demo', '--dry-run'], tmp)
    check(rc == 2 and '--host makes no sense' in err, '--demo: %d %s' % (rc, err))
    # a host's key is checked where it is written
    bad = fleet_ini(tmp, 'bad.ini', b_extra='ssh-port = 2222\nsuite = rr4k\n')
    rc, out, err = H.run(['--host', 'a', bad], tmp)
    check(rc == 2 and "bad.ini:18: 'suite' is the fleet's" in err, 'suite in [host]: ' + err)
    rc, out, err = H.run(['--dry-run', bad], tmp)
    check(rc == 2 and 'bad.ini:17: a port is only meaningful with an ssh target' in err,
          'ssh-port of a local host: ' + err)


def test_resume(tmp):
    ini = fleet_ini(tmp, rounds=2)
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-q', '--host', 'b', '-o', d, ini], cwd=tmp,
                         env=H.env_for_run(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('round') == 2, p)
    check(e is not None, 'reached round 2')
    kids = H.children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    H.wait_gone(kids)
    m = H.load_manifest(d)
    check_eq(m['status'], 'running', 'killed while running')
    check_eq(m.get('fleet_host'), 'b', 'fleet_host before the resume')
    # another host's name for this directory is refused
    rc, out, err = H.run(['-q', '--resume', d, '--host', 'a'], tmp)
    check(rc == 2 and "is host b's directory, not host a's" in err, 'other host: ' + err)
    rc, out, err = H.run(['-q', '--resume', d], tmp)
    check_eq(rc, 0, 'resume: ' + err)
    m = H.load_manifest(d)
    check_eq(m['status'], 'done', 'done after the resume')
    check_eq(m.get('fleet_host'), 'b', 'fleet_host after the resume')
    check_eq(m['sessions'], 2, 'two sessions')
    resumed = H.load_journal(d)
    resumed = resumed[[i for i, e in enumerate(resumed) if e['event'] == 'resume'][0]:]
    starts = [e for e in resumed if e['event'] == 'fio-start']
    check_eq(len(starts), 1, 'the resumed session ran round 2 alone')
    # the resumed session read the file for host b: its place, not a's
    check(not os.path.exists(os.path.join(tmp, 'a')), 'host a\'s directory never made')
    check_eq(m['settings']['runtime_s'], 2.0, 'host b\'s runtime kept')
    # a fleet's own directory is continued whole, not as one host's
    fleet = os.path.join(tmp, 'fleet')
    os.mkdir(fleet)
    with open(ini) as f:
        H.write(os.path.join(fleet, 'campaign.ini'), f.read())
    H.write(os.path.join(fleet, 'manifest.json'),
            '{"format": "fiocamp-fleet", "version": 1, "campaign": "fleet"}\n')
    rc, out, err = H.run(['-q', '--resume', fleet, '--host', 'b'], tmp)
    check(rc == 2 and "is a fleet's directory: continue it whole" in err and
          '--resume %s/hosts/b' % fleet in err, 'a fleet directory for one host: ' + err)
    # --host naming the same host is fine
    rc, out, err = H.run(['-q', '--resume', d, '--host', 'b'], tmp)
    check_eq(rc, 0, 'resume --host b of a done host: ' + err)


def test_dryrun(tmp):
    ini = fleet_ini(tmp, campaign_extra='sync = none\n')
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['--dry-run', '-o', d, ini], tmp)
    check_eq(rc, 0, 'fleet dry run: ' + err)
    lines = out.splitlines()
    check_eq(lines[0], 'fleet fleet (%s): 2 hosts: a b' % ini, 'the fleet line')
    check(lines[1].startswith('mode fleet: each host runs the whole campaign; sync none'),
          'sync/mode line: ' + lines[1])
    check('host a of 2: target local' in lines and 'host b of 2: target local' in lines,
          'a heading per host:\n' + out)
    check(out.index('host a of 2') < out.index('host b of 2'), 'in the order of hosts =')
    part_a, part_b = out.split('host b of 2')
    check('campaign directory %s/hosts/a' % d in part_a, 'a\'s directory:\n' + part_a)
    check('campaign directory %s/hosts/b' % d in part_b, 'b\'s directory:\n' + part_b)
    check('FIOCAMP_FILE=%s/a/fiocamp.testfile' % tmp in part_a, 'a\'s test file')
    check('FIOCAMP_FILE=%s/b/fiocamp.testfile' % tmp in part_b and
          'FIOCAMP_IOENGINE=psync' in part_b and 'FIOCAMP_RUNTIME=2' in part_b,
          'b\'s test file and keys:\n' + part_b)
    check_eq(out.count('expected duration:'), 2, 'a plan per host')
    check(not os.path.exists(d) and not os.path.exists(os.path.join(tmp, 'a')),
          'a dry run creates nothing')
    rc, out, err = H.run(['--dry-run', '--host', 'b', ini], tmp)
    check_eq(rc, 0, 'one host\'s dry run: ' + err)
    check(out.startswith('host b of 2: target local\n') and 'host a' not in out and
          'campaign directory NAME-HOST-YYYYmmdd-HHMMSS' in out, 'host b alone:\n' + out)


def test_ssh(tmp):
    """Host a on an ssh target of its own section (an sshd on 127.0.0.1),
    host b local: each host's target, port and ssh-options apply to it
    alone."""
    started = H.start_sshd(tmp)
    if started is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    proc, port, _, opts = started
    try:
        user = subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()
        ini = fleet_ini(tmp, a_extra=('target = ssh %s@127.0.0.1\nssh-port = %d\n'
                                      'ssh-options = %s\n') % (user, port, opts))
        rc, out, err = H.run(['--dry-run', ini], tmp)
        check_eq(rc, 0, 'dry run: ' + err)
        check('host a of 2: target ssh %s@127.0.0.1' % user in out and
              'host b of 2: target local' in out, 'the targets:\n' + out)
        d = os.path.join(tmp, 'camp-a')
        rc, out, err = H.run(['-q', '--host', 'a', '-o', d, ini], tmp)
        check_eq(rc, 0, 'host a over ssh: ' + err[-2000:])
        m = H.load_manifest(d)
        check_eq((m.get('fleet_host'), m['status'], m['target']),
                 ('a', 'done', 'ssh %s@127.0.0.1' % user), 'host a\'s manifest')
        check_eq(len(fio_starts(d)), 1, 'one fio run')
        check(os.path.isfile(os.path.join(d, 'basis', 'r1', 'rw4k.json')), 'report copied back')
    finally:
        proc.terminate()
        proc.wait()


AREAS = {
    'run': test_run,
    'resume': test_resume,
    'dryrun': test_dryrun,
    'ssh': test_ssh,
}


def main():
    area = sys.argv[1]
    H.BIN = os.path.abspath(sys.argv[2])
    with H.scratch('fiocamp-hosts-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
