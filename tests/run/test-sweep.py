#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sweeps in a campaign (issue 20): `sweep = iodepth=1,16 numjobs=1,2` run by
fiocamp-run with real fio, and fiocamp-analyze on what it wrote.

usage: test-sweep.py AREA FIOCAMP_RUN FIOCAMP_ANALYZE

Each AREA is its own meson test.  Runtimes are 1 s, test files 8 MiB.  The
campaigns turn the disturbed criteria off: a shared VM always has steal.
The helpers are tests/harness.py's.
"""
import json
import os
import signal
import subprocess
import sys

import harness as H
from harness import check, check_eq
ANALYZE = None

POINTS = [{'iodepth': '1', 'numjobs': '1'}, {'iodepth': '1', 'numjobs': '2'},
          {'iodepth': '16', 'numjobs': '1'}, {'iodepth': '16', 'numjobs': '2'}]


def name_of(test, point):
    return test + '@' + ','.join('%s=%s' % kv for kv in point.items())


def sweep_ini(tmp, name, rounds=2, extra=''):
    return H.campaign(tmp, name, '[state basis]\n',
                      extra='suite = rr4k\nrounds = %d\npause = 0s\ndisturbed = off\n'
                      'ioengine = psync\ndirect = 0\nsweep = iodepth=1,16 numjobs=1,2\n%s'
                      % (rounds, extra))


def test_e2e(tmp):
    ini = sweep_ini(tmp, 's.ini')
    # the plan: the points, the run count, each run's name and variables
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'dry-run: ' + err)
    check('campaign sweep iodepth=1,16 numjobs=1,2: 4 points, each test at each: '
          'iodepth=1,numjobs=1, iodepth=1,numjobs=2, iodepth=16,numjobs=1, '
          'iodepth=16,numjobs=2\n' in out, 'the points in the plan:\n%s' % out[:800])
    check('\n8 fio runs\n' in out, 'the run count in the plan:\n%s' % out[:800])
    check('rr4k@iodepth=16,numjobs=2 (1s, group_reporting): cd basis/r1 && env ' in out,
          'a run in the plan')
    check('rr4k@iodepth=16,numjobs=1 (1s): cd basis/r1 && env ' in out, 'one without')
    check('FIOCAMP_TEST=rr4k@iodepth=16,numjobs=2 FIOCAMP_IODEPTH=16 FIOCAMP_NUMJOBS=2 '
          'FIOCAMP_BS=4k FIOCAMP_RW=randread FIOCAMP_RWMIXREAD=50 fio ' in out,
          'its variables in the plan')
    # round 2 starts with the second point
    r2 = out[out.index('round 2/2'):]
    check(r2.index('rr4k@iodepth=1,numjobs=2 ') < r2.index('rr4k@iodepth=1,numjobs=1 '),
          'round 2 rotated in the plan:\n%s' % r2[:600])

    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-q', '-o', d, ini], tmp)
    check_eq(rc, 0, 'the campaign: ' + err[-1500:])
    m = H.load_manifest(d)
    check_eq(m['settings'].get('sweep'), {'iodepth': ['1', '16'], 'numjobs': ['1', '2']},
             'settings.sweep')
    rounds = m['states'][0]['rounds']
    check_eq(len(rounds), 2, 'two rounds')
    want = {1: POINTS, 2: POINTS[1:] + POINTS[:1]}
    for ro in rounds:
        tests = ro['tests']
        check_eq([t.get('point') for t in tests], want[ro['round']],
                 'round %d: the points in the order run' % ro['round'])
        for t in tests:
            name = name_of('rr4k', t['point'])
            check_eq(t['test'], 'rr4k', 'test name kept')
            check_eq(t['status'], 'done', '%s done' % name)
            check_eq(t['json'], 'basis/r%d/%s.json' % (ro['round'], name), 'json of ' + name)
            base = os.path.join(d, 'basis', 'r%d' % ro['round'], name)
            for ext in ('.json', '.fio', '.env', '_iops.1.log', '_bw.1.log'):
                check(os.path.isfile(base + ext), '%s%s exists' % (base, ext))
            with open(base + '.json') as fh:
                doc = json.load(fh)
            nj = int(t['point']['numjobs'])
            # numjobs 2 is reported as one group: one job, both processes' IOPS
            check_eq(len(doc['jobs']), 1, '%s: one job in the report' % name)
            opts = doc['jobs'][0]['job options']
            check_eq((opts.get('iodepth'), opts.get('numjobs')),
                     (t['point']['iodepth'], t['point']['numjobs']), name + ': the point ran')
            with open(base + '.fio') as fh:
                job = fh.read()
            check_eq('group_reporting' in job, nj > 1, name + ': group_reporting')
            with open(base + '.env') as fh:
                env = dict(l.split('=', 1) for l in fh.read().splitlines())
            check_eq((env['FIOCAMP_IODEPTH'], env['FIOCAMP_NUMJOBS'], env['FIOCAMP_TEST']),
                     (t['point']['iodepth'], t['point']['numjobs'], name), name + ': env')
    # the journal: 8 runs, each fio event with its point
    starts, ends = H.events(d, 'fio-start'), H.events(d, 'fio-end')
    check_eq(len(starts), 8, 'eight fio runs')
    check_eq(len(ends), 8, 'eight fio ends')
    check_eq([(e['round'], e['test'], e.get('point')) for e in starts],
             [(r, 'rr4k', p) for r in (1, 2) for p in want[r]], 'fio-start points')
    check(all(e.get('point') and e['status'] == 'done' for e in ends), 'fio-end points')
    # fiocamp-analyze: the sweep table with the 4 points
    # (exit 1: a 1 s run's per-second log of one of its two processes may
    # be empty, and the analyzer leaves such logs out; never a run)
    p = subprocess.run([ANALYZE, '--table', d], capture_output=True, text=True)
    check(p.returncode in (0, 1), 'fiocamp-analyze: ' + p.stderr[-800:])
    out = p.stdout
    check('tests 4, runs used 8' in out, 'all 8 runs used, as 4 tests:\n%s' % out[:600])
    check('IOPS median, basis' in out, 'the sweep table:\n%s' % out[-3000:])
    table = out[out.find('IOPS median, basis'):]
    lines = table.splitlines()[:4]
    check(len(lines) == 4 and lines[1].split() == ['numjobs', '1', 'numjobs', '2'] and
          lines[2].split()[:2] == ['iodepth', '1'] and len(lines[2].split()) == 4 and
          lines[3].split()[:2] == ['iodepth', '16'] and len(lines[3].split()) == 4,
          'iodepth x numjobs with 4 values: %r' % lines)


def test_refuse(tmp):
    # the shipped example passes --dry-run: 3 rounds x 2 tests x 8 points
    rc, out, err = H.run(['--dry-run', os.path.join(H.SRCDIR, 'fio-jobs', 'sweep.ini')], tmp)
    check_eq(rc, 0, 'fio-jobs/sweep.ini --dry-run: ' + err)
    check('\n48 fio runs\n' in out, 'its run count:\n%s' % out[:800])

    # a value fio does not take: file and line
    ini = H.campaign(tmp, 'bad.ini', '[state basis]\n',
                     extra='suite = rr4k\nsweep = iodepth=1,0\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, 'a bad sweep value is refused')
    check("bad.ini:6: sweep: bad iodepth '0' (expected a whole number from 1 to 65536)" in err,
          'its message: ' + err)
    # a state's own sweep
    ini = H.campaign(tmp, 'state.ini', '[state basis]\nsweep = rw=randomread\n',
                     extra='suite = rr4k\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, "a state's bad sweep is refused")
    check("state.ini:8: sweep: bad rw 'randomread'" in err, 'its message: ' + err)
    # a job file of the user's that sets a swept option itself: the option and the line
    H.write(os.path.join(tmp, 'mine.fio'),
            '[global]\nfilename=${FIOCAMP_FILE}\nsize=${FIOCAMP_SIZE}\n\n[mine]\n'
            'rw=randread\niodepth=4\nnumjobs=${FIOCAMP_NUMJOBS}\n; default FIOCAMP_NUMJOBS=1\n')
    ini = H.campaign(tmp, 'mine.ini', '[state basis]\n',
                     extra='suite = mine.fio\nsweep = iodepth=1,2\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, 'a hard-coded swept option is refused')
    check("%s:7: sets iodepth itself ('iodepth=4'), which the campaign sweeps: write "
          "iodepth=${FIOCAMP_IODEPTH}" % os.path.join(tmp, 'mine.fio') in err,
          'its message: ' + err)
    # the same job file is fine with a sweep of what it takes from the environment
    ini = H.campaign(tmp, 'nj.ini', '[state basis]\n',
                     extra='suite = mine.fio\nsweep = numjobs=1,2\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'a sweep of numjobs with that job file: ' + err)
    check('mine@numjobs=2 (1s, group_reporting)' in out, 'its runs in the plan')


def test_resume(tmp):
    ini = sweep_ini(tmp, 'r.ini', rounds=1)
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-q', '-o', d, ini], cwd=tmp, env=H.env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # kill -9 while the second point runs: the first is saved as done
    e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and
                         e.get('point') == POINTS[1], p)
    check(e is not None, 'reached the second point')
    kids = H.children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    H.wait_gone(kids)
    first = name_of('rr4k', POINTS[0])
    before = {k: v for k, v in H.tree_sums(d).items() if k.startswith('basis/r1/%s' % first)}
    check(len(before) >= 4, 'the first point\'s files: %r' % sorted(before))
    # the campaign.ini of the directory is what resumes; one whose points
    # differ from the manifest's is refused
    copy = os.path.join(d, 'campaign.ini')
    with open(copy) as fh:
        text = fh.read()
    H.write(copy, text.replace('iodepth=1,16', 'iodepth=1,32'))
    rc, out, err = H.run(['-q', '--resume', d], tmp)
    check(rc != 0 and 'other points than campaign.ini' in err, 'other points refused: ' + err)
    H.write(copy, text)
    rc, out, err = H.run(['-q', '--resume', d], tmp)
    check_eq(rc, 0, 'resume: ' + err[-1500:])
    m = H.load_manifest(d)
    check_eq(m['status'], 'done', 'done after resume')
    tests = m['states'][0]['rounds'][0]['tests']
    check_eq([(t['point'], t['status']) for t in tests], [(p, 'done') for p in POINTS],
             'all four points done')
    after = {k: v for k, v in H.tree_sums(d).items() if k.startswith('basis/r1/%s' % first)}
    check_eq(after, before, 'the point done before was not run again')
    second = name_of('rr4k', POINTS[1])
    aside = 'basis/r1/%s.interrupted-1' % second
    check_eq(tests[1].get('moved_aside'), [aside], 'the point cut short moved aside')
    check(os.path.isfile(os.path.join(d, aside, second + '.fio')), 'its files in ' + aside)
    check(not os.path.isdir(os.path.join(d, 'basis', 'r1.interrupted-1')),
          'the round itself was not moved aside')
    events = H.load_journal(d)
    resumed = events[[i for i, e in enumerate(events) if e['event'] == 'resume'][0]:]
    check_eq([e.get('point') for e in resumed if e['event'] == 'fio-start'], POINTS[1:],
             'the resumed session continued at the point cut short')
    p = subprocess.run([ANALYZE, '--table', d], capture_output=True, text=True)
    check(p.returncode in (0, 1) and 'IOPS median, basis' in p.stdout and
          'tests 4, runs used 4' in p.stdout,
          'fiocamp-analyze on the resumed campaign: %s' % (p.stderr[-800:]))


AREAS = {
    'e2e': test_e2e,
    'refuse': test_refuse,
    'resume': test_resume,
}


def main():
    global ANALYZE
    area = sys.argv[1]
    H.BIN, ANALYZE = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    with H.scratch('fiocamp-sweep-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
