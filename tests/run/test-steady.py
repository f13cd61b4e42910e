#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of fiocamp-run's rounds = until-steady MAX (issue 22):
a state's rounds end once the last steady-window rounds of every test are
steady by SNIA PTS's rule, or at MAX; the verdict in the manifest, the
journal and the terminal; --dry-run; resume.

usage: test-steady.py AREA FIOCAMP_RUN FIOCAMP_ANALYZE

Real fio, 1 s runtimes, 8 MiB files in a temporary directory; stdlib only.
The jobs are paced (rate_iops, rate): their rates are the same in every
round on any machine, so that the state is steady after its first window.
Exit 77 = skipped.
"""
import os
import signal
import subprocess
import sys

import harness as H
from harness import campaign, check, check_eq, events, load_manifest, wait_for_event

ANALYZE = None


def paced_jobs(tmp):
    """Two job files of the shipped kind, paced: 4 KiB random reads at 200
    IOPS (headline IOPS) and 1 MiB reads at 16 MiB/s (headline bandwidth)."""
    with open(os.path.join(H.SRCDIR, 'fio-jobs', 'rr4k.fio')) as f:
        rr = f.read()
    with open(os.path.join(H.SRCDIR, 'fio-jobs', 'sr1m.fio')) as f:
        sr = f.read()
    H.write(os.path.join(tmp, 'paced4k.fio'),
            rr.replace('[rr4k]', '[paced4k]') + 'iodepth=4\nrate_iops=200\n')
    H.write(os.path.join(tmp, 'paced1m.fio'), sr.replace('[sr1m]', '[paced1m]') + 'rate=16m\n')
    return 'suite = ./paced4k.fio ./paced1m.fio\npause = 0s\ndisturbed = off\n'


def steady_ini(tmp, name, extra_state=''):
    return campaign(tmp, name, (
        '[state basis]\n'
        'rounds = until-steady 8\n'
        '%s'
        '[state after]\n'
        'rounds = 1\n') % extra_state, extra=paced_jobs(tmp))


def check_verdict(v, window, most, what):
    check_eq(v['window'], window, '%s: window' % what)
    check_eq(v['max'], most, '%s: max' % what)
    check_eq(v['reached'], True, '%s: reached (%r)' % (what, v))
    check(window <= v['round'] <= most, '%s: round %r between %d and %d'
          % (what, v['round'], window, most))
    check_eq(v['metric'], 'iops+bw', '%s: metric' % what)
    tests = {t['test']: t for t in v['tests']}
    check_eq(sorted(tests), ['paced1m', 'paced4k'], '%s: its tests' % what)
    check_eq(tests.get('paced4k', {}).get('metric'), 'iops', '%s: 4k by IOPS' % what)
    check_eq(tests.get('paced1m', {}).get('metric'), 'bw', '%s: 1M by bandwidth' % what)
    for t in v['tests']:
        check_eq(t['reached'], True, '%s %s reached' % (what, t['test']))
        check(0 <= t['range'] <= 0.20, '%s %s range %r' % (what, t['test'], t['range']))
        check(0 <= t['slope'] <= 0.10, '%s %s slope %r' % (what, t['test'], t['slope']))
        check(window <= t['round'] <= v['round'], '%s %s round' % (what, t['test']))


def test_e2e(tmp):
    ini = steady_ini(tmp, 'steady.ini')
    d = os.path.join(tmp, 'camp')
    # every save in parts and checked: the rounds a verdict drops must be
    # dropped from what the journal says too
    rc, out, err = H.run(['-o', d, ini], tmp, extra_env={'FIOCAMP_CHECK_MANIFEST': '1',
                                                         'FIOCAMP_ANALYZE': 'builtin'})
    check_eq(rc, 0, 'exit status (%s)' % err[-3000:])
    m = load_manifest(d)
    basis, after = m['states']
    v = basis.get('steady')
    check(isinstance(v, dict), 'basis has a steady verdict')
    if not isinstance(v, dict):
        return
    check_verdict(v, 5, 8, 'basis')
    k = v['round']
    check_eq(len(basis['rounds']), k, 'the rounds after the steady one are dropped')
    check_eq([r['status'] for r in basis['rounds']], ['done'] * k, 'its rounds done')
    for r in range(1, k + 1):
        H.check_round_files(d, 'basis', r, ['paced4k', 'paced1m'])
    check(not os.path.exists(os.path.join(d, 'basis', 'r%d' % (k + 1))), 'no round after it')
    t = basis['rounds'][0]['tests']
    check_eq([x.get('headline') for x in t], ['iops', 'bw'], 'each run names its headline')
    check(all(x.get('bw_bytes', 0) > 0 for x in t), 'each run has its bandwidth')
    check('steady' not in after, 'a state of fixed rounds has no verdict')
    check_eq(len(after['rounds']), 1, 'after: its one round')
    ev = events(d, 'steady')
    check_eq(len(ev), 1, 'one steady event')
    if ev:
        check_eq(ev[0]['state'], 'basis', 'the event names the state')
        check_eq(ev[0]['round'], k, 'the event names the round')
        check_eq(ev[0]['tests'], v['tests'], 'the event has the verdict')
    ends = [e for e in events(d, 'round-end') if e['state'] == 'basis']
    check_eq(len(ends), k, 'round-end events of basis')
    line = 'steady: basis reached at round %d (window 5)' % k
    check(line in err, 'the terminal says %r:\n%s' % (line, err[-3000:]))
    check('basis: 5 to 8 rounds, until the last 5 are steady' in err, 'the plan said')
    # the runs' lines count the rounds the state may have, not the most
    for r in range(1, k + 1):
        want = 'basis r%d/5-8 paced4k: ' % r if r < 8 else 'basis r8/8 paced4k: '
        check(want in err, 'the terminal says %r:\n%s' % (want, err[-3000:]))
    check('basis r1/8 ' not in err, 'not the most as if it were the count')
    check('after r1/1 paced4k: ' in err, 'a state of fixed rounds says its count')
    # the analyzer finds nothing pending
    p = subprocess.run([ANALYZE, '--table', d], capture_output=True, text=True)
    check_eq(p.returncode, 0, 'analyzer exit (%s)' % p.stderr[-2000:])
    check('pending' not in p.stdout + p.stderr, 'nothing pending:\n%s' % p.stderr[-2000:])
    # a finished campaign resumes to nothing
    rc, out, err = H.run(['--resume', d], tmp, extra_env={'FIOCAMP_ANALYZE': 'builtin'})
    check_eq(rc, 0, 'resume of a finished campaign (%s)' % err[-2000:])
    check_eq(len(events(d, 'steady')), 1, 'no second verdict')


def test_resume(tmp):
    ini = steady_ini(tmp, 'steady.ini', 'steady-window = 3\n')
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-q', '-o', d, ini], cwd=tmp, env=H.env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    e = wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('round') == 2 and
                       e.get('test') == 'paced1m', p)
    check(e is not None, 'reached round 2')
    os.kill(p.pid, signal.SIGINT)
    p.communicate()
    check_eq(p.returncode, 130, 'exit status after SIGINT')
    m = load_manifest(d)
    basis = m['states'][0]
    check('steady' not in basis, 'no verdict before the window is full')
    check_eq(len(basis['rounds']), 8, 'the rounds planned up to the most')
    check_eq(basis['rounds'][0]['status'], 'done', 'round 1 done')
    rc, out, err = H.run(['--resume', d], tmp, extra_env={'FIOCAMP_ANALYZE': 'builtin'})
    check_eq(rc, 0, 'resume exit status (%s)' % err[-3000:])
    m = load_manifest(d)
    basis = m['states'][0]
    v = basis.get('steady')
    check(isinstance(v, dict), 'a verdict after the resume')
    if not isinstance(v, dict):
        return
    check_verdict(v, 3, 8, 'basis')
    k = v['round']
    check_eq(len(basis['rounds']), k, 'the rounds after the steady one are dropped')
    # the resumed session counted on from the rounds done before it
    second = [e for e in events(d, 'round-end')
              if e['state'] == 'basis' and e['session'] == 2]
    check(len(second) < k, 'the second session ran %d of the %d rounds' % (len(second), k))
    check_eq(sorted(e['round'] for e in second), list(range(2, k + 1)),
             'it ran round 2 again and the rest')
    check_eq(len(events(d, 'steady')), 1, 'one steady event')


def test_dryrun(tmp):
    ini = steady_ini(tmp, 'steady.ini')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'dry-run exit status (%s)' % err)
    check('state 1/2: basis (5–8 rounds x 2 tests: until the last 5 rounds are steady)' in out,
          'the state line:\n%s' % out)
    check(out.splitlines()[0].endswith(
        '; some states have rounds or tests of their own (plan below)'),
        'the campaign line says a state has its own rounds:\n%s' % out)
    check('round 5/8 -> basis/r5/' in out, 'the window\'s rounds one by one')
    check('round 6/8 -> basis/r6/' not in out, 'not the rounds after it')
    check('rounds 6-8 -> basis/r6/ ... r8/, each only while the last 5 rounds are not steady'
          in out, 'the rounds after the window:\n%s' % out)
    # 6 rounds (5 + 1) of 2 tests of 1 s with the plan's overhead, at the least
    lines = [l for l in out.splitlines() if l.startswith('expected duration')]
    check(len(lines) == 1 and 'plus' not in lines[0], 'one expected duration: %r' % lines)
    check('with the most, about' in out, 'the most said:\n%s' % out)
    # the campaign's own rounds
    ini = campaign(tmp, 'all.ini', '[state a]\n[state b]\n',
                   extra=paced_jobs(tmp) + 'rounds = until-steady 6\nsteady-window = 4\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'dry-run exit status (%s)' % err)
    check('2 states x 4–6 rounds x 2 tests, target local\n' in out,
          'the campaign line:\n%s' % out)
    check('rounds 5-6 -> a/r5/ ... r6/' in out, 'state a\'s extra rounds')
    check('rounds 5-6 -> b/r5/ ... r6/' in out, 'state b\'s extra rounds')
    # a mistake is the file's line
    ini = campaign(tmp, 'bad.ini', '[state a]\nrounds = until-steady 3\n',
                   extra=paced_jobs(tmp))
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, 'bad file exit status')
    msg = ('%s:10: rounds = until-steady 3 in [state a] is fewer rounds than its steady '
           'window of 5 (steady-window)' % ini)
    check(msg in err, 'want %s in %s' % (msg, err))


def test_maxed(tmp):
    """MAX reached without steadiness: a test whose runs all fail has no value
    in any round (--keep-going goes on), so the state stops at MAX."""
    extra = paced_jobs(tmp).replace('./paced1m.fio', './broken.fio')
    with open(os.path.join(tmp, 'paced4k.fio')) as f:
        H.write(os.path.join(tmp, 'broken.fio'),
                f.read().replace('[paced4k]', '[broken]') + 'ioengine=no-such-engine\n')
    ini = campaign(tmp, 'maxed.ini', '[state basis]\nrounds = until-steady 4\n'
                   'steady-window = 2\n', extra=extra)
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-k', '-o', d, ini], tmp, extra_env={'FIOCAMP_ANALYZE': 'builtin'})
    check_eq(rc, 1, 'exit status: runs failed (%s)' % err[-3000:])
    m = load_manifest(d)
    basis = m['states'][0]
    v = basis.get('steady')
    check(isinstance(v, dict), 'a verdict at MAX')
    if not isinstance(v, dict):
        return
    check_eq((v['reached'], v['round'], v['rounds'], v['window'], v['max']),
             (False, None, 4, 2, 4), 'not steady after 4 rounds')
    tests = {t['test']: t for t in v['tests']}
    check_eq(tests['paced4k']['reached'], True, 'the paced test is steady')
    check_eq(tests['paced4k']['round'], 2, 'from round 2')
    check_eq((tests['broken']['reached'], tests['broken']['round'], tests['broken']['range']),
             (False, None, None), 'the broken test has no value')
    check_eq(len(basis['rounds']), 4, 'all 4 rounds')
    line = 'steady: basis not steady after 4 rounds (window 2): broken without a value in ' \
        'every round'
    check(line in err, 'the terminal says %r:\n%s' % (line, err[-3000:]))
    ev = events(d, 'steady')
    check_eq([(e['reached'], e['rounds']) for e in ev], [(False, 4)], 'one steady event')
    # the rounds it may end with: 2 to 4 in the window, then from the round
    # at hand on, and the last alone
    for want in ('basis r1/2-4 paced4k: ', 'basis r2/2-4 paced4k: ', 'basis r3/3-4 paced4k: ',
                 'basis r4/4 paced4k: '):
        check(want in err, 'the terminal says %r:\n%s' % (want, err[-3000:]))


def test_repeat(tmp):
    """Each repetition of a repeated state has its own rounds and verdict."""
    ini = campaign(tmp, 'rep.ini', '[state cycle]\nrepeat = 2\nrounds = until-steady 4\n'
                   'steady-window = 2\nbefore = settle 10ms\n', extra=paced_jobs(tmp))
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-o', d, ini], tmp, extra_env={'FIOCAMP_ANALYZE': 'builtin'})
    check_eq(rc, 0, 'exit status (%s)' % err[-3000:])
    m = load_manifest(d)
    cyc = m['states'][0]
    check('steady' not in cyc, 'the verdicts are the repetitions\'')
    for r in cyc['repetitions']:
        v = r.get('steady')
        check(isinstance(v, dict), 'repetition %d has a verdict' % r['repetition'])
        if isinstance(v, dict):
            check_verdict(v, 2, 4, 'repetition %d' % r['repetition'])
            check_eq(len(r['rounds']), v['round'], 'its rounds end with the verdict')
    ev = events(d, 'steady')
    check_eq([e.get('repetition') for e in ev], [1, 2], 'a steady event per repetition')
    check('steady: cycle rep 2/2 reached at round' in err, 'the terminal names the repetition')
    # the analyzer numbers the rounds on over the repetitions
    p = subprocess.run([ANALYZE, '--csv', 'rounds', d], capture_output=True, text=True)
    check_eq(p.returncode, 0, 'analyzer exit (%s)' % p.stderr[-2000:])
    rows = [l for l in p.stdout.splitlines() if ',cycle,paced4k,' in l and ',iops,' in l]
    want = sum(len(r['rounds']) for r in cyc['repetitions'])
    check_eq(len(rows), want, 'the analyzer reads every round:\n%s' % p.stdout[:3000])


AREAS = {
    'e2e': test_e2e,
    'maxed': test_maxed,
    'repeat': test_repeat,
    'resume': test_resume,
    'dryrun': test_dryrun,
}


def main():
    global ANALYZE
    area, H.BIN, ANALYZE = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    with H.scratch('fiocamp-steady-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
