#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of fiocamp-run's campaign features (issue 10): repeat = N,
per-state suite and rounds, rounds = 0, payload, --takes-down, data back,
the test file's cleanup and the demo's own directory.

usage: test-features.py AREA FIOCAMP_RUN

Real fio, 1 s runtimes, 8 MiB files in a temporary directory; stdlib only.
The helpers are tests/harness.py's.  Exit 77 = skipped.
"""
import glob
import hashlib
import os
import shutil
import signal
import subprocess
import sys

import harness as H
from harness import campaign, check, check_eq, events, load_journal, load_manifest


def analyzer():
    return os.path.join(os.path.dirname(H.BIN), '..', 'analyze', 'fiocamp-analyze')


# ---------------------------------------------------------------------------

# (campaign body, line, message): the new keys' errors name the file and line
BAD = [
    ('[state a]\nrepeat = 0\n', 7, "bad repeat '0' (expected a number from 1 to 1000)"),
    ('[state a]\nrepeat = 1001\n', 7, "bad repeat '1001'"),
    ('[state a]\nrepeat = 2\nrepeat = 3\n', 8, "'repeat' was already set on line 7"),
    ('[state a]\nrounds = -1\n', 7,
     "bad rounds '-1' (expected a number from 0 to 10000, or until-steady MAX)"),
    ('[state a]\nsuite =\n', 7, "'suite' needs a value"),
    ('[state a]\n[state b]\nsuite = ./rw4k.fio\n', 8,
     "test 'rw4k' is './rw4k.fio' here and 'rw4k' elsewhere in the campaign"),
    ('[state a]\ncolour = red\n', 7,
     "unknown key 'colour' in [state a] (expected before, repeat, suite, rounds, "
     "steady-window, sweep)"),
    ('keep-file = maybe\n[state a]\n', 6, "bad keep-file 'maybe' (expected yes or no)"),
]


def test_repeat(tmp):
    for i, (body, line, msg) in enumerate(BAD):
        ini = campaign(tmp, 'bad%d.ini' % i, body, extra='suite = rw4k')
        rc, out, err = H.run(['--dry-run', ini], tmp)
        check_eq(rc, 2, 'bad case %d exit status' % i)
        check(('%s:%d: %s' % (ini, line, msg)) in err, 'bad case %d: want %s:%d: %s in %s'
              % (i, ini, line, msg, err))
    counter = os.path.join(tmp, 'counter.txt')
    ini = campaign(tmp, 'rep.ini', (
        '[state basis]\n'
        '[state cycle]\n'
        'repeat = 3\n'
        'suite  = rr4k\n'
        'rounds = 1\n'
        'before = run sh -c "echo ran >> %s"; settle 100ms\n') % counter,
        extra='name = rep\nsuite = rw4k\nrounds = 2\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'dry-run exit status (%s)' % err)
    for k in (1, 2, 3):
        check('repetition %d/3 -> cycle/rep%d/' % (k, k) in out, 'dry-run rep %d:\n%s' % (k, out))
        check('round 1/1 -> cycle/rep%d/r1/' % k in out, 'dry-run rep %d round' % k)
    check('state 2/2: cycle (1 round x 1 test)' in out, 'dry-run state line:\n%s' % out)
    rc, out, err = H.run(['-o', 'camp', ini], tmp)
    check_eq(rc, 0, 'exit status (%s)' % err[-2000:])
    d = os.path.join(tmp, 'camp')
    m = load_manifest(d)
    check_eq(m['tests'], ['rw4k', 'rr4k'], 'every test of the campaign, its suite first')
    basis, cyc = m['states']
    # repeat = 1: as before, plus data_back_s
    check_eq(len(basis['rounds']), 2, 'basis: the campaign rounds')
    check('repetitions' not in basis and 'repeat' not in basis, 'basis has no repetitions')
    check('data_back_s' in basis and basis['data_back_s'] is None, 'basis data_back_s null')
    H.check_round_files(d, 'basis', 1, ['rw4k'])
    H.check_round_files(d, 'basis', 2, ['rw4k'])
    # repeat = 3
    check_eq(cyc['repeat'], 3, 'repeat')
    check_eq(cyc['status'], 'done', 'cycle status')
    check('before' not in cyc and 'rounds' not in cyc, 'no state-level before/rounds')
    check(cyc['downtime_s'] is None and cyc['data_back_s'] is None, 'state-level timings null')
    reps = cyc['repetitions']
    check_eq([r['repetition'] for r in reps], [1, 2, 3], 'repetition numbers')
    for r in reps:
        check_eq(r['status'], 'done', 'repetition %d status' % r['repetition'])
        check(r['started'] <= r['finished'], 'repetition %d timings' % r['repetition'])
        check_eq([a['status'] for a in r['before']], ['done', 'done'], 'its actions')
        check_eq(len(r['rounds']), 1, 'its own rounds = 1')
        check_eq([t['test'] for t in r['rounds'][0]['tests']], ['rr4k'], 'its own suite')
        check_eq(r['rounds'][0]['tests'][0]['json'],
                 'cycle/rep%d/r1/rr4k.json' % r['repetition'], 'run path')
        check('downtime_s' in r and 'data_back_s' in r, 'repetition timings present')
        H.check_round_files(d, os.path.join('cycle', 'rep%d' % r['repetition']), 1, ['rr4k'])
    check(not os.path.exists(os.path.join(d, 'cycle', 'r1')), 'no cycle/r1')
    with open(counter) as f:
        check_eq(f.read().count('ran'), 3, 'the action ran once per repetition')
    ev = load_journal(d)
    for kind in ('action-start', 'action-end', 'round-start', 'round-end', 'fio-start',
                 'fio-end'):
        mine = [e for e in ev if e['event'] == kind and e.get('state') == 'cycle']
        check(mine and all('repetition' in e for e in mine),
              '%s events of cycle carry the repetition' % kind)
        other = [e for e in ev if e['event'] == kind and e.get('state') == 'basis']
        check(all('repetition' not in e for e in other), '%s of basis carry none' % kind)
    check_eq([(e['repetition'], e['status']) for e in events(d, 'repetition-end')],
             [(1, 'done'), (2, 'done'), (3, 'done')], 'repetition-end events')
    check_eq(len(events(d, 'repetition-start')), 3, 'repetition-start events')
    ends = [e for e in events(d, 'state-end') if e['state'] == 'basis']
    check(ends and 'data_back_s' in ends[0] and 'downtime_s' in ends[0],
          'state-end of a state without repetitions has its timings')
    # the analyzer reads every repetition's runs
    p = subprocess.run([analyzer(), '--csv', 'rounds', d], capture_output=True, text=True)
    check_eq(p.returncode in (0, 1), True, 'analyzer exit (%s)' % p.stderr)
    rows = [l for l in p.stdout.splitlines() if ',cycle,' in l and 'rr4k' in l]
    check(len(rows) >= 3, 'the analyzer has three rounds of cycle:\n%s' % p.stdout[:3000])


def test_rounds0(tmp):
    marker = os.path.join(tmp, 'marker.txt')
    H.write(marker, 'data\n')
    text = ('[campaign]\nname = nofio\nrounds = 0\n'
            '[state before]\nbefore = hash %s\n'
            '[state after]\nbefore = run true; verify-hash %s\n'
            '[state measured]\nrounds = 1\nsuite = rw4k\n' % (marker, marker))
    # rounds = 1 in a state needs the test file: directory and size
    ini = os.path.join(tmp, 'nofile.ini')
    H.write(ini, text)
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, 'a state with rounds needs directory and size')
    check("needs 'directory'" in err and "needs 'size'" in err, 'the message: %s' % err)
    # only transitions and hashes: no suite, no directory, no size
    ini = os.path.join(tmp, 'nofio.ini')
    H.write(ini, text.split('[state measured]')[0])
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'dry-run of a campaign without fio (%s)' % err)
    check('no test file' in out and '(no rounds: only its actions)' in out,
          'the plan says so:\n%s' % out)
    check('expected duration: not known beforehand: 3 steps whose duration' in out
          and '0ms' not in out, 'no "about 0ms" for a plan of actions only:\n%s' % out)
    rc, out, err = H.run(['-o', 'camp', ini], tmp)
    check_eq(rc, 0, 'a campaign without fio runs (%s)' % err[-2000:])
    d = os.path.join(tmp, 'camp')
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'status')
    check_eq(m['tests'], [], 'no tests')
    for s in m['states']:
        check_eq(s['rounds'], [], '%s has no rounds' % s['name'])
        check(all(a['status'] == 'done' for a in s['before']), '%s actions done' % s['name'])
    check(m['states'][1]['before'][1]['result']['match'], 'verify-hash matched')
    check(not os.path.exists(os.path.join(tmp, 'target')), 'no test directory made')
    check(not events(d, 'test-file'), 'no test file to remove')
    check(not glob.glob(os.path.join(d, '*', 'r*')), 'no round directories')
    # the analyzer shows the actions instead of "no fio output found"
    p = subprocess.run([analyzer(), '--table', d], capture_output=True, text=True)
    check_eq(p.returncode, 0, 'analyzer exit status (%s)' % p.stderr)
    check('no fio output' not in p.stderr and 'nothing to analyze' not in p.stderr,
          'no complaint: %s' % p.stderr)
    check('actions: task seconds' in p.stdout, 'analyzer header:\n%s' % p.stdout)
    # the table clips a long action text; the CSV has it whole
    check('verify-hash' in p.stdout and '1 of 1 matched' in p.stdout,
          'analyzer lists the actions:\n%s' % p.stdout)
    p = subprocess.run([analyzer(), '--csv', 'actions', d], capture_output=True, text=True)
    check(p.returncode == 0 and ('verify-hash %s' % marker) in p.stdout,
          'the actions CSV names the action whole:\n%s' % p.stdout)
    # rounds = 0 for one state in a campaign with rounds
    ini = campaign(tmp, 'mixed.ini', (
        '[state basis]\n'
        '[state switch]\nrounds = 0\nbefore = settle 100ms\n'
        '[state after]\n'), extra='suite = rw4k\nrounds = 1\n')
    rc, out, err = H.run(['-o', 'mixed', ini], tmp)
    check_eq(rc, 0, 'mixed campaign (%s)' % err[-2000:])
    m = load_manifest(os.path.join(tmp, 'mixed'))
    check_eq([len(s['rounds']) for s in m['states']], [1, 0, 1], 'rounds per state')
    check(not os.path.exists(os.path.join(tmp, 'mixed', 'switch')), 'no directory for switch')


def fio_logging_its_argv(tmp):
    """A directory holding a `fio` that appends its arguments to argv.log
    there, then runs the real fio: what fiocamp-run ran, not its plan."""
    d = os.path.join(tmp, 'fio-bin')
    os.mkdir(d)
    H.write(os.path.join(d, 'fio'), '#!/bin/sh\nprintf "%%s\\n" "$*" >> %s\nexec %s "$@"\n'
            % (os.path.join(d, 'argv.log'), shutil.which('fio')), 0o755)
    return d


def test_payload(tmp):
    path = os.path.join(tmp, 'payload.bin')
    other = os.path.join(tmp, 'payload2.bin')
    fio_bin = fio_logging_its_argv(tmp)
    b = H.Banner()
    try:
        ini = campaign(tmp, 'pay.ini', (
            '[state write]\nrounds = 0\nbefore = payload %s 4M; payload %s 4M\n'
            '[state cycle]\nrepeat = 2\nrounds = 0\n'
            'before = run --takes-down sleep 0.3; wait-ssh 127.0.0.1:%d; verify-hash %s\n'
            '[state changed]\nrounds = 0\n'
            'before = run --takes-down sh -c "echo x >> %s"; verify-hash %s\n'
            '[state never]\nrounds = 0\nbefore = settle 10ms\n')
            % (path, other, b.port, path, path, path), extra='suite = rw4k\n')
        rc, out, err = H.run(['--dry-run', ini], tmp)
        check_eq(rc, 0, 'dry-run (%s)' % err)
        check('--refill_buffers' in out and '--randrepeat=0' in out and '--size=4194304' in out,
              'payload plan:\n%s' % out)
        check('(the machine goes away: downtime starts)' in out, 'takes-down in the plan')
        rc, out, err = H.run(['-o', 'camp', ini], tmp,
                             {'PATH': fio_bin + os.pathsep + os.environ['PATH']})
        check_eq(rc, 1, 'the changed file fails the campaign (%s)' % err[-2000:])
        d = os.path.join(tmp, 'camp')
        m = load_manifest(d)
        w = m['states'][0]['before'][0]
        check_eq(w['status'], 'done', 'payload done')
        check_eq(w['result']['size'], 4 << 20, 'payload size recorded')
        with open(path, 'rb') as f:
            data = f.read()
        check(len(data) == (4 << 20) + 2, 'the file was written, then changed: %d' % len(data))
        check_eq(hashlib.sha256(data[:4 << 20]).hexdigest(), w['result']['sha256'],
                 'the recorded sha256 is the payload\'s')
        # what makes it incompressible is what fiocamp-run asks of fio: each
        # buffer refilled with random data (refill_buffers: no piece repeats),
        # from seeds of this run (randrepeat=0: two payloads differ), the
        # size, flushed before the hash.  How far a compressor still gets
        # depends on fio's generator: tests/bench/bench-payload.sh measures it.
        with open(os.path.join(fio_bin, 'argv.log')) as f:
            ran = [l.split() for l in f.read().splitlines()]
        pay = [a for a in ran if '--name=payload' in a]
        check_eq(len(pay), 2, 'fio ran once per payload: %r' % ran)
        for a in pay:
            for opt in ('--refill_buffers', '--randrepeat=0', '--size=4194304',
                        '--rw=write', '--end_fsync=1'):
                check(opt in a, 'the payload\'s fio ran with %s: %r' % (opt, a))
        check_eq([x for a in pay for x in a if x.startswith('--filename=')],
                 ['--filename=' + path, '--filename=' + other], 'the payloads\' files')
        # fio without refill_buffers writes one buffer again and again, only
        # scrambled here and there: 28,672 of these 65,536 pieces differ then
        pieces = {data[i:i + 64] for i in range(0, 4 << 20, 64)}
        check_eq(len(pieces), 65536, 'no 64-byte piece of the payload repeats')
        w2 = m['states'][0]['before'][1]
        check_eq(w2['status'], 'done', 'second payload done')
        check(w2['result']['sha256'] != w['result']['sha256'],
              'two payloads of one size differ: %s' % w2['result']['sha256'])
        check_eq(H.sha256(other), w2['result']['sha256'], 'the second payload\'s sha256')
        reps = m['states'][1]['repetitions']
        for r in reps:
            k = r['repetition']
            check_eq(r['status'], 'done', 'rep %d done' % k)
            check(r['before'][2]['result']['match'], 'rep %d verify-hash matched' % k)
            check(r['downtime_s'] is not None and r['downtime_s'] >= 0.3,
                  'rep %d downtime from the take-down command: %r' % (k, r['downtime_s']))
            check(r['data_back_s'] is not None and r['data_back_s'] >= r['downtime_s'],
                  'rep %d data back %r after downtime %r' % (k, r['data_back_s'],
                                                            r['downtime_s']))
        ends = events(d, 'repetition-end')
        check_eq([e['data_back_s'] is not None for e in ends], [True, True],
                 'repetition-end events carry data back')
        ch = m['states'][2]
        check_eq(ch['status'], 'failed', 'changed state failed')
        check_eq(ch['before'][1]['status'], 'failed', 'verify-hash failed')
        check_eq(ch['before'][1]['result']['match'], False, 'no match')
        check(ch['data_back_s'] is None, 'no data back without a match')
        check_eq(m['states'][3]['status'], 'pending', 'the state after it did not run')
        check('sha256 differs' in err, 'the failure says why: %s' % err[-1500:])
        # a failure after a take-down command: the safety layer's power-on
        check(events(d, 'ensure-powered-on'), 'the safety power-on ran')
        check('the machine may be off' in err, 'and said so: %s' % err[-1500:])
        # fio cannot write it (its directory would be below a file): the state
        # fails with fio's first line
        H.write(os.path.join(tmp, 'a-file'), 'x\n')
        nodir = os.path.join(tmp, 'a-file', 'p.bin')
        ini = campaign(tmp, 'nodir.ini', '[state a]\nrounds = 0\nbefore = payload %s 4M\n'
                       % nodir, extra='suite = rw4k\n')
        rc, out, err = H.run(['-o', 'nodir', ini], tmp)
        check_eq(rc, 1, 'a payload fio cannot write fails')
        a = load_manifest(os.path.join(tmp, 'nodir'))['states'][0]['before'][0]
        check_eq(a['status'], 'failed', 'payload failed')
        check(a.get('error', '').startswith('payload %s: fio failed (exit status' % nodir),
              'its error: %r' % a.get('error'))
        # a payload path must be absolute
        bad = campaign(tmp, 'bad.ini', '[state a]\nbefore = payload rel.bin 4M\n',
                       extra='suite = rw4k\n')
        rc, out, err = H.run(['--dry-run', bad], tmp)
        check_eq(rc, 2, 'a relative payload path is refused')
        check('must be absolute' in err, 'message: %s' % err)
        bad = campaign(tmp, 'bad2.ini', '[state a]\nbefore = payload /x/y 5000\n',
                       extra='suite = rw4k\n')
        rc, out, err = H.run(['--dry-run', bad], tmp)
        check_eq(rc, 2, 'a size not a multiple of 4k is refused')
        check('multiple of 4k' in err, 'message: %s' % err)
        bad = campaign(tmp, 'bad3.ini', '[state a]\nbefore = run --takes-down\n',
                       extra='suite = rw4k\n')
        rc, out, err = H.run(['--dry-run', bad], tmp)
        check_eq(rc, 2, '--takes-down without a command is refused')
        check('needs a command' in err, 'message: %s' % err)
    finally:
        b.close()


def test_takes_down(tmp):
    b = H.Banner()
    try:
        ini = campaign(tmp, 'down.ini', (
            '[state basis]\n'
            '[state rollback]\n'
            'before = remote --takes-down sleep 0.5; wait-ssh 127.0.0.1:%d\n') % b.port,
            extra='suite = rw4k\n')
        rc, out, err = H.run(['-o', 'camp', ini], tmp)
        check_eq(rc, 0, 'exit status (%s)' % err[-2000:])
        d = os.path.join(tmp, 'camp')
        st = load_manifest(d)['states'][1]
        check(st['downtime_s'] is not None and 0.5 <= st['downtime_s'] < 30,
              'downtime measured from the command: %r' % st['downtime_s'])
        check(st['data_back_s'] is None, 'no verify-hash: no data back')
        check_eq(st['before'][1]['downtime_s'], st['downtime_s'], 'the wait-ssh ends it')
        # a failure right after it: the machine is powered on (provider none:
        # the SSH check) before the campaign ends
        ini = campaign(tmp, 'fail.ini', (
            '[state basis]\n'
            'before = run --takes-down true; run false; wait-ssh 127.0.0.1:%d\n') % b.port,
            extra='suite = rw4k\n')
        rc, out, err = H.run(['-o', 'fail', ini], tmp)
        check_eq(rc, 1, 'failure exit status')
        ev = events(os.path.join(tmp, 'fail'), 'ensure-powered-on')
        check(len(ev) == 1 and ev[0]['status'] == 'done' and ev[0]['ssh']['port'] == b.port,
              'the safety power-on waited for SSH: %r' % ev)
        check('answers SSH on 127.0.0.1:%d' % b.port in err, 'and said so: %s' % err[-1500:])
    finally:
        b.close()


def test_resume_rep(tmp):
    counter = os.path.join(tmp, 'counter.txt')
    ini = campaign(tmp, 'res.ini', (
        '[state basis]\nrounds = 1\n'
        '[state cycle]\nrepeat = 3\n'
        'before = run sh -c "echo ran >> %s"\n') % counter,
        extra='suite = rw4k rr4k\nrounds = 2\npause = 0s\n')
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-q', '-o', d, ini], cwd=tmp, env=H.env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # repetition 2: its round 1 done, round 2's first test running: kill -9
    # at once (the round runs for two 1 s runs more: a loaded machine that
    # wakes this script late still kills inside it)
    e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('state') == 'cycle'
                         and e.get('repetition') == 2 and e.get('round') == 2, p)
    check(e is not None, 'reached cycle rep 2 round 2')
    kids = H.children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    H.wait_gone(kids)
    m = load_manifest(d)
    reps = m['states'][1]['repetitions']
    check_eq([r['status'] for r in reps], ['done', 'running', 'pending'], 'statuses at kill')
    check_eq([r['status'] for r in reps[1]['rounds']], ['done', 'running'], 'rep 2 rounds')
    rep1 = {k: v for k, v in H.tree_sums(d).items() if k.startswith('cycle/rep1/')}
    rep2r1 = {k: v for k, v in H.tree_sums(d).items() if k.startswith('cycle/rep2/r1/')}
    check_eq(len(rep1), 24, 'files of rep 1: %r' % sorted(rep1))
    rc, out, err = H.run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume exit status (%s)' % err[-2000:])
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'done after resume')
    reps = m['states'][1]['repetitions']
    check_eq([r['status'] for r in reps], ['done', 'done', 'done'], 'every repetition done')
    sums = H.tree_sums(d)
    check_eq({k: v for k, v in sums.items() if k.startswith('cycle/rep1/')}, rep1,
             'repetition 1 untouched')
    check_eq({k: v for k, v in sums.items() if k.startswith('cycle/rep2/r1/')}, rep2r1,
             'round 1 of repetition 2 not run again')
    check(glob.glob(os.path.join(d, 'cycle', 'rep2', 'r2.interrupted-*')),
          'the cut-short round is kept aside inside its repetition')
    check_eq(reps[1]['rounds'][1]['moved_aside'][0][:len('cycle/rep2/r2.interrupted-')],
             'cycle/rep2/r2.interrupted-', 'moved_aside path')
    with open(counter) as f:
        check_eq(f.read().count('ran'), 3, 'the action ran once per repetition, not again')
    ev = load_journal(d)
    resumed = [e for e in ev if e['event'] == 'round-start' and e.get('session') == 2]
    check_eq([(e['state'], e.get('repetition'), e['round']) for e in resumed],
             [('cycle', 2, 2), ('cycle', 3, 1), ('cycle', 3, 2)], 'what the resume ran')
    # the analyzer's round 1 split: round 1 of each of the 3 repetitions
    # against their other rounds (the state's rounds 3 and 5 are rounds 1 too)
    p = subprocess.run([analyzer(), '--csv', 'summary', d], capture_output=True, text=True)
    rows = [dict(zip(p.stdout.splitlines()[0].split(','), l.split(',')))
            for l in p.stdout.splitlines()[1:]]
    cyc = [r for r in rows if r.get('state') == 'cycle' and r.get('metric') == 'iops']
    check(len(cyc) == 2 and all((r['n'], r['round1_n'], r['rest_n']) == ('6', '3', '3')
                                for r in cyc),
          'round 1 of every repetition: %r' % [(r.get('test'), r.get('n'), r.get('round1_n'),
                                                 r.get('rest_n')) for r in cyc])
    p = subprocess.run([analyzer(), '--csv', 'rounds', d], capture_output=True, text=True)
    rows = [dict(zip(p.stdout.splitlines()[0].split(','), l.split(',')))
            for l in p.stdout.splitlines()[1:]]
    r1 = {r['round']: r['value'] for r in rows
          if r.get('state') == 'cycle' and r.get('test') == 'rw4k' and r.get('metric') == 'iops'}
    got = [r for r in cyc if r['test'] == 'rw4k']
    check(got and len(r1) == 6, 'six rounds of rw4k in cycle: %r' % r1)
    if got and len(r1) == 6:
        firsts = sorted(float(r1[k]) for k in ('1', '3', '5'))
        check(abs(float(got[0]['round1']) - firsts[1]) <= 1e-3 * firsts[1],
              'round1 is the median of rounds 1, 3 and 5: %s against %r'
              % (got[0]['round1'], firsts))


def test_cleanup(tmp):
    tf = os.path.join(tmp, 'target', 'fiocamp.testfile')
    body = '[state basis]\n'
    ini = campaign(tmp, 'clean.ini', body, extra='suite = rw4k\n')
    rc, out, err = H.run(['-o', 'c1', ini], tmp)
    check_eq(rc, 0, 'exit status (%s)' % err[-2000:])
    check(not os.path.exists(tf), 'the test file is removed at the end')
    lines = [l for l in err.splitlines() if 'the test file' in l]
    check_eq(len(lines), 1, 'one line says so: %r' % lines)
    check(lines and lines[0].endswith('the test file %s is removed (keep-file = yes keeps it)'
                                      % tf), 'the line: %r' % lines)
    ev = events(os.path.join(tmp, 'c1'), 'test-file')
    check_eq([(e['path'], e['status']) for e in ev], [(tf, 'removed')], 'test-file event')
    ini = campaign(tmp, 'keep.ini', body, extra='suite = rw4k\nkeep-file = yes\n')
    rc, out, err = H.run(['-o', 'c2', ini], tmp)
    check_eq(rc, 0, 'keep-file exit status (%s)' % err[-2000:])
    check(os.path.isfile(tf), 'keep-file = yes keeps it')
    check('the test file %s is kept (keep-file = yes)' % tf in err, 'says so: %s' % err[-500:])
    check_eq(load_manifest(os.path.join(tmp, 'c2'))['settings']['keep_file'], True,
             'settings.keep_file')
    os.unlink(tf)
    ini = campaign(tmp, 'fail.ini', '[state basis]\n[state bad]\nbefore = run false\n',
                   extra='suite = rw4k\n')
    rc, out, err = H.run(['-o', 'c3', ini], tmp)
    check_eq(rc, 1, 'failed campaign')
    check(os.path.isfile(tf), 'a failed campaign keeps the test file')
    check('the test file %s is kept for --resume' % tf in err, 'says so: %s' % err[-500:])
    # the resume that finishes it removes it
    H.write(os.path.join(tmp, 'c3', 'campaign.ini'),
            open(ini).read().replace('run false', 'run true'))
    rc, out, err = H.run(['--resume', 'c3'], tmp)
    check_eq(rc, 0, 'resume (%s)' % err[-2000:])
    check(not os.path.exists(tf), 'removed when the resumed campaign is done')
    # an ssh target
    started = H.start_sshd(tmp)
    if started is None:
        print('sshd or ssh missing: the ssh part skipped')
        return
    proc, port, _, opts = started
    try:
        user = subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()
        remote = os.path.join(tmp, 'remote')
        ini = campaign(tmp, 'ssh.ini', body, extra='suite = rw4k\ntarget = ssh %s@127.0.0.1:%d\n'
                       % (user, port))
        H.write(ini, open(ini).read().replace(os.path.join(tmp, 'target'), remote))
        rc, out, err = H.run(['-o', 'c4', ini], tmp, {'FIOCAMP_SSH_OPTS': opts})
        check_eq(rc, 0, 'ssh exit status (%s)' % err[-2000:])
        check(os.path.isdir(remote), 'the remote directory was made')
        check(not os.path.exists(os.path.join(remote, 'fiocamp.testfile')),
              'the remote test file is removed')
        check('is removed (keep-file = yes keeps it)' in err, 'says so: %s' % err[-500:])
    finally:
        proc.terminate()
        proc.wait()


def test_demo(tmp):
    tmpdir = os.path.join(tmp, 'tmpdir')
    cwd = os.path.join(tmp, 'cwd')
    os.mkdir(tmpdir)
    os.mkdir(cwd)
    env = H.env_for_run({'TMPDIR': tmpdir})
    p = subprocess.run([H.BIN, '--demo', '--dry-run'], cwd=cwd, env=env, capture_output=True,
                       text=True)
    check_eq(p.returncode, 0, 'demo dry-run (%s)' % p.stderr)
    check('%s/fiocamp-demo.XXXXXX/files/fiocamp.testfile' % tmpdir in p.stdout,
          'the plan names the demo\'s own directory:\n%s' % p.stdout[:500])
    check_eq(os.listdir(tmpdir), [], 'a dry run creates nothing')
    proc = subprocess.Popen([H.BIN, '--demo'], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    dirs = H.wait_for(lambda: glob.glob(os.path.join(tmpdir, 'fiocamp-demo.*', 'campaign',
                                                     'journal.jsonl')), proc, timeout=60) or []
    check_eq(len(dirs), 1, 'one fresh directory with the campaign directory')
    if not dirs:
        proc.kill()
        proc.communicate()
        return
    d = os.path.dirname(dirs[0])
    top = os.path.dirname(d)
    check_eq(oct(os.stat(top).st_mode & 0o777), oct(0o700), 'made by mkdtemp')
    e = H.wait_for_event(d, lambda e: e['event'] == 'fio-end', proc, timeout=120)
    check(e is not None, 'the demo ran fio')
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    check_eq(proc.returncode, 130, 'interrupted demo (%s)' % err[-1500:])
    tf = os.path.join(top, 'files', 'fiocamp.testfile')
    check(os.path.isfile(tf), 'the test file is in the demo\'s directory')
    check('the test file %s is kept for --resume' % tf in err, 'says so: %s' % err[-800:])
    check_eq(os.listdir(cwd), [], 'nothing in the current directory')
    check_eq(sorted(os.listdir(top)), ['campaign', 'files'], 'the demo directory holds both')
    with open(os.path.join(d, 'campaign.ini')) as f:
        check('directory = %s/files' % top in f.read(), 'the copy names the demo\'s directory')
    # a second demo gets a directory of its own
    p2 = subprocess.run([H.BIN, '--demo', '--dry-run'], cwd=cwd, env=env, capture_output=True,
                        text=True)
    check_eq(p2.returncode, 0, 'second dry-run')
    shutil.rmtree(top, ignore_errors=True)


AREAS = {
    'repeat': test_repeat,
    'rounds0': test_rounds0,
    'payload': test_payload,
    'takes-down': test_takes_down,
    'resume-rep': test_resume_rep,
    'cleanup': test_cleanup,
    'demo': test_demo,
}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    with H.scratch('fiocamp-feat-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
