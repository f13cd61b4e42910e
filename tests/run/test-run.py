#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of fiocamp-run with real fio on small files.

usage: test-run.py AREA FIOCAMP_RUN

Each AREA is its own meson test.  Campaigns use 1 s runtimes and 8 MiB test
files in a temporary directory; stdlib only.  Exit 77 = skipped.
"""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import harness as H
from harness import (campaign, check, check_eq, check_round_files, env_for_run, load_manifest,
                     run, sha256, tree_sums, wait_for_event, wait_gone, write)

SRCDIR = H.SRCDIR


def fio_events(events, kind, state=None, rnd=None):
    return [e for e in events if e['event'] == kind and
            (state is None or e.get('state') == state) and
            (rnd is None or e.get('round') == rnd)]


# ---------------------------------------------------------------------------

def test_e2e(tmp):
    marker = os.path.join(tmp, 'marker.txt')
    write(marker, 'fiocamp\n')
    counter = os.path.join(tmp, 'counter.txt')
    ini = campaign(tmp, 'e2e.ini', (
        '[state basis]\n'
        'before = hash %s; run sh -c "echo ran >> %s"\n'
        '\n'
        '[state fresh]\n'
        '# comments, inline ones too\n'
        'before = fresh-file; settle 250ms   # a comment on a before line\n'
        'before = verify-hash %s\n') % (marker, counter, marker),
        extra='name = e2e\nsuite = rw4k rr4k\nrounds = 2\npause = 1s\nprefill = yes\n')
    # a FIOCAMP_* variable of the caller's environment does not reach fio
    rc, out, err = run(['-o', 'camp', ini], tmp, {'FIOCAMP_SIZE': '1M'})
    check_eq(rc, 0, 'exit status of a good campaign (stderr: %s)' % err[-2000:])
    d = os.path.join(tmp, 'camp')
    with open(os.path.join(d, 'basis', 'r1', 'rw4k.json')) as fh:
        check_eq(json.load(fh)['global options']['size'], '8388608',
                 "fio ran with the campaign's size, not the environment's")
    m = load_manifest(d)
    check_eq(m['format'], 'fiocamp-manifest', 'format')
    check_eq(m['version'], 1, 'version')
    check_eq(m['campaign'], 'e2e', 'campaign name')
    check_eq(m['status'], 'done', 'campaign status')
    check_eq(m['tests'], ['rw4k', 'rr4k'], 'tests')
    check(m['fio_version'].startswith('fio-3'), 'fio_version %r' % m['fio_version'])
    check_eq(m['target'], 'local', 'target')
    check_eq(m['settings']['rounds'], 2, 'settings.rounds')
    check_eq(m['settings']['pause_s'], 1, 'settings.pause_s')
    check_eq(m['settings']['runtime_s'], 1, 'settings.runtime_s')
    check_eq(m['settings']['size'], '8M', 'settings.size')
    check_eq(m['settings']['prefill'], True, 'settings.prefill')
    check_eq(m['host']['cpus'], os.cpu_count(), 'host.cpus')
    check_eq(m['prefill']['status'], 'done', 'prefill status')
    check_eq(m['prefill']['json'], 'prefill/prefill.json', 'prefill json path')
    check(os.path.isfile(os.path.join(d, 'prefill', 'prefill.json')), 'prefill.json exists')
    check_eq([s['name'] for s in m['states']], ['basis', 'fresh'], 'state names in file order')
    with open(ini, 'rb') as a, open(os.path.join(d, 'campaign.ini'), 'rb') as b:
        check(a.read() == b.read(), 'campaign.ini is an exact copy')
    for s in m['states']:
        check_eq(s['status'], 'done', 'state %s status' % s['name'])
        check_eq(len(s['rounds']), 2, 'rounds of %s' % s['name'])
        for r in s['rounds']:
            check_eq(r['status'], 'done', '%s r%d status' % (s['name'], r['round']))
            check_eq([t['test'] for t in r['tests']], ['rw4k', 'rr4k'], 'tests of a round')
            for t in r['tests']:
                pre = '%s/r%d/%s' % (s['name'], r['round'], t['test'])
                check_eq(t['status'], 'done', pre + ' status')
                check_eq(t['exit_status'], 0, pre + ' exit_status')
                check_eq(t['json'], pre + '.json', pre + ' json')
                check_eq(t['job'], pre + '.fio', pre + ' job')
                check_eq(t['logs'], [pre + '_bw.1.log', pre + '_iops.1.log'], pre + ' logs')
                check_eq(t['stderr'], None, pre + ' stderr')
                check(t['duration_s'] >= 1.0, pre + ' duration >= runtime')
                check(t['iops'] > 0, pre + ' iops > 0')
            check_round_files(d, s['name'], r['round'], ['rw4k', 'rr4k'])
    # actions
    b = m['states'][0]['before']
    check_eq([a['action'] for a in b], ['hash', 'run'], 'basis actions')
    check_eq(b[0]['result']['sha256'], sha256(marker), 'hash result')
    check_eq(b[0]['result']['path'], marker, 'hash path')
    f = m['states'][1]['before']
    check_eq([a['action'] for a in f], ['fresh-file', 'settle', 'verify-hash'], 'fresh actions')
    check(f[1]['duration_s'] >= 0.25, 'settle took its time')
    check_eq(f[2]['result']['match'], True, 'verify-hash match')
    check_eq(f[2]['result']['expected'], sha256(marker), 'verify-hash expected')
    with open(counter) as fh:
        check_eq(fh.read(), 'ran\n', 'run action ran once')
    # the job file is the shipped one, the env file what fio ran with
    with open(os.path.join(SRCDIR, 'fio-jobs', 'rw4k.fio')) as a, \
            open(os.path.join(d, 'basis', 'r1', 'rw4k.fio')) as b2:
        check(a.read() == b2.read(), 'rw4k.fio copied exactly')
    with open(os.path.join(d, 'basis', 'r1', 'rr4k.env')) as fh:
        env = dict(l.split('=', 1) for l in fh.read().splitlines())
    check_eq(env['FIOCAMP_SIZE'], '8388608', 'FIOCAMP_SIZE')
    check_eq(env['FIOCAMP_RUNTIME'], '1', 'FIOCAMP_RUNTIME')
    check_eq(env['FIOCAMP_TEST'], 'rr4k', 'FIOCAMP_TEST')
    check_eq(env['FIOCAMP_FILE'], os.path.join(tmp, 'target', 'fiocamp.testfile'), 'FILE')
    # the journal
    ev = H.load_journal(d)
    check_eq(ev[0]['event'], 'campaign-start', 'first event')
    check_eq(ev[-1]['event'], 'campaign-end', 'last event')
    check_eq(ev[-1]['status'], 'done', 'last event status')
    for e in ev:
        check('t' in e and 'mono' in e and 'event' in e, 'event fields %r' % e)
    monos = [e['mono'] for e in ev]
    check(monos == sorted(monos), 'mono increases')
    check_eq(len(fio_events(ev, 'fio-start')), 9, 'fio-start events (prefill + 8)')
    check_eq(len(fio_events(ev, 'fio-end')), 9, 'fio-end events')
    pauses = fio_events(ev, 'pause')
    check_eq(len(pauses), 2, 'one pause per state between its two rounds')
    # the end table
    for s in ('basis', 'fresh'):
        for t in ('rw4k', 'rr4k'):
            check(any(l.split()[:3] == [s, t, '2'] for l in out.splitlines()),
                  'table row %s %s with 2 rounds in:\n%s' % (s, t, out))
    # an existing directory is never overwritten
    before = tree_sums(d)
    rc, out, err = run(['-o', 'camp', ini], tmp)
    check_eq(rc, 2, 'exit status for an existing -o')
    check('never overwritten' in err, 'message for an existing -o: %s' % err)
    check_eq(tree_sums(d), before, 'existing directory untouched')
    # the default directory name (a campaign of the same name, one 1 s run)
    quiet = campaign(tmp, 'quiet.ini', '[state one]\n',
                     extra='name = e2e\nsuite = rr4k\nrounds = 1\n')
    rc, out, err = run(['-q', quiet], tmp)
    check_eq(rc, 0, 'second run with the default directory name')
    dirs = glob.glob(os.path.join(tmp, 'e2e-2*-*'))
    check(len(dirs) == 1 and len(os.path.basename(dirs[0])) == len('e2e-20260101-101010'),
          'default directory NAME-YYYYmmdd-HHMMSS: %r' % dirs)
    check_eq(out, '', '--quiet prints nothing on stdout')
    # the end report comes from fiocamp-analyze when it is there, as a table
    # even though stdout is a pipe
    analyzer = os.path.join(os.path.dirname(H.BIN), '..', 'analyze', 'fiocamp-analyze')
    if os.access(analyzer, os.X_OK):
        small = campaign(tmp, 'small.ini', '[state one]\n\n[state two]\n',
                         extra='name = small\nsuite = rr4k\nrounds = 1\n')
        rc, out, err = run(['-o', 'small', small], tmp, {'FIOCAMP_ANALYZE': analyzer})
        check_eq(rc, 0, 'exit status with the analyzer (stderr: %s)' % err[-2000:])
        check('baseline one' in out and 'IOPS median' in out,
              "fiocamp-analyze's table at the end:\n%s" % out)
        check('did not finish' not in err, 'no fallback table: %s' % err[-2000:])


def test_resume(tmp):
    counter = os.path.join(tmp, 'counter.txt')
    ini = campaign(tmp, 'resume.ini', (
        '[state basis]\n'
        'before = run sh -c "echo ran >> %s"\n') % counter,
        extra='suite = rw4k rr4k\nrounds = 3\npause = 0s\n', runtime='2s')
    d = os.path.join(tmp, 'camp')
    # 2 s runs: the kill below lands in the run it waits for even when a
    # loaded machine wakes this script late
    p = subprocess.Popen([H.BIN, '-q', '-o', d, ini], cwd=tmp, env=env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # round 1 done, round 2's first test finished, its second running: kill -9 then
    e = wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('round') == 2 and
                       e.get('test') == 'rr4k', p)
    check(e is not None, 'reached round 2 rr4k')
    check(H.wait_for(lambda: H.fio_at_work(H.fio_below(p.pid)), p), 'round 2\'s rr4k runs')
    kids = H.children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    wait_gone(kids)
    m = load_manifest(d)
    check_eq(m['status'], 'running', 'status after kill -9')
    check_eq(m['states'][0]['rounds'][0]['status'], 'done', 'round 1 done before kill')
    check_eq(m['states'][0]['rounds'][1]['status'], 'running', 'round 2 running at kill')
    r1 = {k: v for k, v in tree_sums(d).items() if k.startswith('basis/r1/')}
    check_eq(len(r1), 12, 'files of round 1: %r' % sorted(r1))
    r2_before = {k: v for k, v in tree_sums(d).items() if k.startswith('basis/r2/')}
    # as if the disk had been full in the middle of an event
    with open(os.path.join(d, 'journal.jsonl'), 'a') as fh:
        fh.write('{"t":"2026-')

    rc, out, err = run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume exit status (%s)' % err[-2000:])
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'status after resume')
    check_eq(m['sessions'], 2, 'sessions')
    rounds = m['states'][0]['rounds']
    check_eq([r['status'] for r in rounds], ['done'] * 3, 'all rounds done')
    check_eq(rounds[1].get('moved_aside'), ['basis/r2.interrupted-1'], 'round 2 moved aside')
    check('moved_aside' not in rounds[0], 'round 1 not moved')
    after = tree_sums(d)
    for k, v in r1.items():
        check_eq(after.get(k), v, 'finished file %s byte-identical' % k)
    for k, v in r2_before.items():
        moved = k.replace('basis/r2/', 'basis/r2.interrupted-1/')
        check_eq(after.get(moved), v, 'interrupted file %s kept' % moved)
    for r in (1, 2, 3):
        check_round_files(d, 'basis', r, ['rw4k', 'rr4k'])
    with open(counter) as fh:
        check_eq(fh.read(), 'ran\n', 'the finished action did not run again')
    with open(os.path.join(d, 'journal.jsonl')) as fh:
        lines = fh.read().splitlines()
    check_eq([l for l in lines if not l.endswith('}')], ['{"t":"2026-'],
             'the cut line stays alone on its line')
    ev = H.load_journal(d, skip=('{"t":"2026-',))
    for r in (1, 3):
        ends = fio_events(ev, 'fio-end', 'basis', r)
        check_eq(len(ends), 2, 'fio-end events of round %d' % r)
    check_eq(len([e for e in ev if e['event'] == 'resume']), 1, 'one resume event')
    check_eq(len([e for e in ev if e['event'] == 'action-start']), 1, 'one action-start')
    # a finished campaign resumes to nothing
    before = tree_sums(d)
    rc, out, err = run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume of a finished campaign')
    check('nothing left to do' in err, 'message: %s' % err)
    after = tree_sums(d)
    for k, v in before.items():
        if k not in ('journal.jsonl', 'manifest.json'):
            check_eq(after.get(k), v, 'unchanged %s' % k)
    # a directory whose manifest does not fit its campaign.ini is not resumed
    bad = os.path.join(tmp, 'bad')
    os.mkdir(bad)
    with open(os.path.join(d, 'campaign.ini')) as fh:
        write(os.path.join(bad, 'campaign.ini'), fh.read() + '[state extra]\n')
    shutil.copy(os.path.join(d, 'manifest.json'), os.path.join(bad, 'manifest.json'))
    rc, out, err = run(['--resume', bad], tmp)
    check_eq(rc, 2, 'resume with another campaign.ini')
    check_eq(err, 'fiocamp-run: cannot resume: %s/manifest.json: the manifest has 1 states, '
             'campaign.ini 2\n' % bad, 'message for another campaign.ini')
    write(os.path.join(bad, 'manifest.json'), '{"format": "fiocamp-manifest",\n')
    rc, out, err = run(['--resume', bad], tmp)
    check_eq(rc, 2, 'resume with a manifest cut short')
    check(err.startswith('fiocamp-run: cannot resume: %s/manifest.json:2: ' % bad),
          'the message names the file and the line: %s' % err)
    check(set(os.listdir(bad)) <= {'campaign.ini', 'journal.jsonl', 'manifest.json'},
          'no round was started: %r' % os.listdir(bad))


def test_sigint(tmp):
    ini = campaign(tmp, 'int.ini', '[state basis]\n[state later]\n',
                   extra='suite = rw4k\nrounds = 2\npause = 0s\n', runtime='3s')
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-o', d, ini], cwd=tmp, env=env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e = wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('round') == 1, p)
    check(e is not None, 'fio started')
    # 1.5 s into the run: a Ctrl-C as fio's job starts left the ASan build's
    # fiocamp-run waiting for more than 60 s once (not understood yet)
    time.sleep(1.5)
    kids = H.children(p.pid)
    fios = [k for k in kids if open('/proc/%d/comm' % k).read().strip() == 'fio']
    check(len(fios) == 1, 'one fio child (beside the sampler): %r' % kids)
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check_eq(p.returncode, 130, 'exit status after SIGINT')
    check('--resume' in err, 'tells how to resume: %s' % err)
    wait_gone(kids)
    m = load_manifest(d)
    check_eq(m['status'], 'interrupted', 'campaign status')
    s = m['states'][0]
    check_eq(s['status'], 'interrupted', 'state status')
    check_eq(s['rounds'][0]['status'], 'interrupted', 'round status')
    t = s['rounds'][0]['tests'][0]
    check_eq(t['status'], 'interrupted', 'test status')
    # fio got SIGINT and still wrote its report
    check_eq(t['json'], 'basis/r1/rw4k.json', 'json of the interrupted run')
    with open(os.path.join(d, 'basis', 'r1', 'rw4k.json')) as f:
        text = f.read()
    # fio puts its "terminating on signal" note in front of the report
    check('fio: terminating on signal 2' in text, 'signal note in the output')
    doc = json.loads(text[text.index('\n{') + 1:])
    check(doc['jobs'][0]['write']['runtime'] < 3000,
          'the interrupted run is shorter than its runtime: %r' % doc['jobs'][0]['write']['runtime'])
    check_eq(m['states'][1]['status'], 'pending', 'later state untouched')
    ev = H.load_journal(d)
    check_eq(ev[-1]['event'], 'campaign-end', 'last event')
    check_eq(ev[-1]['status'], 'interrupted', 'last event status')
    rc, out, err = run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume after SIGINT (%s)' % err[-2000:])
    m = load_manifest(d)
    check_eq(m['states'][0]['rounds'][0].get('moved_aside'), ['basis/r1.interrupted-1'],
             'the interrupted round was moved aside')
    check(os.path.isfile(os.path.join(d, 'basis', 'r1.interrupted-1', 'rw4k.json')),
          'the interrupted round kept its report')
    check_eq(m['status'], 'done', 'done after resume')
    check_round_files(d, 'basis', 1, ['rw4k'])
    check_round_files(d, 'later', 2, ['rw4k'])

    # a second Ctrl-C ends at once, even when the first one cannot end fio:
    # its job process (in a session of its own, as fio makes it) is stopped,
    # so fio waits for it; the second Ctrl-C kills fio and the job process
    ini = campaign(tmp, 'int2.ini', '[state basis]\n', extra='suite = rr4k\n',
                   runtime='30s')
    d = os.path.join(tmp, 'camp2')
    p = subprocess.Popen([H.BIN, '-o', d, ini], cwd=tmp, env=env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e = wait_for_event(d, lambda e: e['event'] == 'fio-start', p)
    check(e is not None, 'fio started (2)')

    def fio_and_job():
        tree = [k for k in H.proc_tree(p.pid)[1:] if H.alive(k) and H.read_proc(k, 'comm').strip() == 'fio']
        return tree if len(tree) == 2 else None
    tree = H.wait_for(fio_and_job, p, timeout=30) or []
    check_eq(len(tree), 2, 'fio and its job process run')
    if len(tree) == 2:
        os.kill(tree[1], signal.SIGSTOP)
    report = os.path.join(d, 'basis', 'r1', 'rr4k.json')

    def took_first():
        try:
            with open(report) as f:
                return 'terminating on signal 2' in f.read()
        except OSError:
            return False
    # stderr as it comes: fio that outlives the first Ctrl-C is said
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(iter(p.stderr.readline, '')),
                              daemon=True)
    reader.start()
    os.kill(p.pid, signal.SIGINT)
    check(H.wait_for(took_first, p, timeout=30), 'fio was passed the first Ctrl-C')
    said = 'fio (rr4k) has not ended 5 s after the interrupt; Ctrl-C again kills it'
    check(H.wait_for(lambda: any(said in ln for ln in list(lines)), p, timeout=30),
          'the first Ctrl-C that fio outlives is said: %r' % lines)
    t0 = time.time()
    os.kill(p.pid, signal.SIGINT)
    out = p.stdout.read()
    p.wait(timeout=60)
    reader.join(timeout=10)
    err = ''.join(lines)
    check_eq(p.returncode, 130, 'exit status after two SIGINTs')
    check(time.time() - t0 < 5, 'ended at once: %.1fs' % (time.time() - t0))
    H.wait_for(lambda: not any(H.alive(k) for k in tree), timeout=5)
    check(not any(H.alive(k) for k in tree), 'fio and its job process are gone: %r' % tree)
    m = load_manifest(d)
    check_eq(m['status'], 'interrupted', 'status after two SIGINTs')
    check_eq(m['states'][0]['rounds'][0]['status'], 'interrupted', 'round after two SIGINTs')

    # Ctrl-C in a `run` command also ends what the command started
    ini = campaign(tmp, 'int3.ini', '[state basis]\nbefore = run sh -c "sleep 30; true"\n',
                   extra='suite = rr4k\n')
    d = os.path.join(tmp, 'camp3')
    p = subprocess.Popen([H.BIN, '-o', d, ini], cwd=tmp, env=env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    e = wait_for_event(d, lambda e: e['event'] == 'action-start', p)
    check(e is not None, 'the run action started')
    kids = H.wait_for(lambda: (lambda k: k if len(k) >= 2 else None)(H.proc_tree(p.pid)[1:]),
                    p, timeout=10) or []
    check_eq(len(kids), 2, 'sh and its sleep run')
    t0 = time.time()
    os.kill(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    check_eq(p.returncode, 130, 'exit status after SIGINT in a command')
    check(time.time() - t0 < 5, 'the command ended at once: %.1fs' % (time.time() - t0))
    wait_gone(kids, timeout=5)
    check(not any(os.path.exists('/proc/%d' % k) for k in kids), 'sh and sleep are gone')
    m = load_manifest(d)
    check_eq(m['states'][0]['before'][0]['status'], 'interrupted', 'the command is interrupted')


def test_failure(tmp):
    write(os.path.join(tmp, 'bad.fio'),
          '[bad]\nfilename=${FIOCAMP_FILE}\nsize=${FIOCAMP_SIZE}\nrw=bogus\n')
    body = '[state basis]\n[state later]\n'
    extra = 'suite = bad.fio rr4k\nrounds = 2\npause = 0s\n'
    ini = campaign(tmp, 'fail.ini', body, extra=extra)
    rc, out, err = run(['-o', 'stop', ini], tmp)
    check_eq(rc, 1, 'exit status of a failing fio job')
    check('failed' in err and 'fiocamp-run --resume' in err, 'message: %s' % err)
    d = os.path.join(tmp, 'stop')
    m = load_manifest(d)
    check_eq(m['status'], 'failed', 'campaign status')
    s = m['states'][0]
    check_eq(s['status'], 'failed', 'state status')
    t = s['rounds'][0]['tests'][0]
    check_eq(t['test'], 'bad', 'failing test name')
    check_eq(t['status'], 'failed', 'failing test status')
    check_eq(t['exit_status'], 1, 'fio exit status recorded')
    check('bogus' in t.get('error', '') or 'rw' in t.get('error', ''),
          'error names the problem: %r' % t.get('error'))
    check_eq(t['stderr'], 'basis/r1/bad.stderr', 'stderr kept')
    check_eq(s['rounds'][0]['tests'][1]['status'], 'skipped', 'rest of the round skipped')
    check_eq(s['rounds'][1]['status'], 'skipped', 'later round skipped')
    check_eq(m['states'][1]['status'], 'pending', 'later state not run')
    check('bad' in err, 'stderr names the test: %s' % err)

    rc, out, err = run(['-k', '-o', 'keep', ini], tmp)
    check_eq(rc, 1, 'exit status with --keep-going')
    m = load_manifest(os.path.join(tmp, 'keep'))
    check_eq(m['status'], 'failed', 'campaign status with --keep-going')
    for s in m['states']:
        for r in s['rounds']:
            check_eq(r['tests'][0]['status'], 'failed', 'bad fails every time')
            check_eq(r['tests'][1]['status'], 'done', 'rr4k runs anyway')
    check(any(l.split()[:3] == ['later', 'rr4k', '2'] for l in out.splitlines()),
          'table with the good test:\n%s' % out)

    # an error fio reports in its JSON (ENOSPC on /dev/full) fails the run
    write(os.path.join(tmp, 'full.fio'), '[full]\nfilename=/dev/full\nrw=write\nbs=4k\n'
          'size=1M\n')
    ini = campaign(tmp, 'full.ini', '[state basis]\n', extra='suite = full.fio\n')
    rc, out, err = run(['-o', 'full', ini], tmp)
    check_eq(rc, 1, 'exit status of a run with an I/O error')
    m = load_manifest(os.path.join(tmp, 'full'))
    t = m['states'][0]['rounds'][0]['tests'][0]
    check_eq(t['status'], 'failed', 'status of a run with an I/O error')
    check_eq(t['json'], 'basis/r1/full.json', 'its report is kept')
    check(t.get('error', '').startswith('fio reported error 28 (No space left on device) in '
                                        'job full (fio ended with exit status 1)'),
          'error from the JSON: %r' % t.get('error'))

    # a program that cannot be started (the exec in the child fails): the
    # action fails at once, naming the program and why
    noexec = os.path.join(tmp, 'noexec.sh')
    write(noexec, '#!/bin/sh\necho hi\n')
    os.chmod(noexec, 0o644)
    for i, (prog, why) in enumerate((('/no/such/program', 'No such file or directory'),
                                     ('no-such-program-in-path', 'No such file or directory'),
                                     (noexec, 'Permission denied'))):
        ini = campaign(tmp, 'exec.ini', '[state basis]\nrounds = 0\nbefore = run %s arg\n'
                       % prog)
        rc, out, err = run(['-o', 'exec%d' % i, ini], tmp)
        check_eq(rc, 1, 'exit status of a run of %s' % prog)
        a = load_manifest(os.path.join(tmp, 'exec%d' % i))['states'][0]['before'][0]
        check_eq((a['status'], a.get('error')), ('failed', 'cannot run %s: %s' % (prog, why)),
                 'a program that cannot be started')

    # a mismatching hash fails its state
    f = os.path.join(tmp, 'data.bin')
    write(f, 'one\n')
    # the command also writes 2000 euro signs and a byte that is not UTF-8
    script = os.path.join(tmp, 'change.sh')
    write(script, 'echo two >> "$1"\ni=0\nwhile [ $i -lt 2000 ]; do printf "\\342\\202\\254"; '
          'i=$((i+1)); done\nprintf " caf\\351"\n')
    ini = campaign(tmp, 'hash.ini', (
        '[state basis]\nbefore = hash %s; run sh %s %s; verify-hash %s\n'
        '[state later]\n') % (f, script, f, f), extra='suite = rr4k\n')
    rc, out, err = run(['-o', 'hash', ini], tmp)
    check_eq(rc, 1, 'exit status of a hash mismatch')
    check('sha256 differs' in err, 'message: %s' % err)
    m = load_manifest(os.path.join(tmp, 'hash'))
    # its last 4 KiB, cut inside a character, with U+FFFD for what is not UTF-8
    check_eq(m['states'][0]['before'][1]['result'].get('stdout'),
             '\u2026' + '\ufffd' * 2 + '\u20ac' * 1363 + ' caf\ufffd', 'stdout kept as text')
    v = m['states'][0]['before'][2]
    check_eq(v['status'], 'failed', 'verify-hash status')
    check_eq(v['result']['match'], False, 'verify-hash match')
    check_eq(v['result']['actual'], sha256(f), 'verify-hash actual')
    check_eq(m['states'][0]['rounds'][0]['status'], 'skipped', 'no round after a mismatch')
    check_eq(m['states'][1]['status'], 'pending', 'no later state')
    # a hash of a file that is not there: the command, its status and its stderr
    missing = os.path.join(tmp, 'no-such-file')
    ini = campaign(tmp, 'nohash.ini', '[state basis]\nbefore = hash %s\n' % missing,
                   extra='suite = rr4k\n')
    rc, out, err = run(['-o', 'nohash', ini], tmp)
    check_eq(rc, 1, 'exit status of a failed hash')
    want = ('sha256sum %s failed (exit status 1): sha256sum: %s: No such file or directory'
            % (missing, missing))
    check_eq(load_manifest(os.path.join(tmp, 'nohash'))['states'][0]['before'][0].get('error'),
             want, 'error of a failed hash')


MALFORMED = [
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\nrounds = zero\n[state a]\n',
     5, "bad rounds 'zero'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8Q\n[state a]\n',
     4, "bad size '8Q'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\npause = 10x\n[state a]\n',
     5, "bad duration '10x'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\ncolour = red\n[state a]\n',
     5, "unknown key 'colour' in [campaign]"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n\n[stat a]\n',
     6, 'unknown section [stat a]'),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = settle 1s; dance\n', 6, "unknown action 'dance'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = settle\n', 6, "'settle': wrong number of arguments (usage: settle DURATION)"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = settle 1y\n', 6, "settle: bad duration '1y'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = verify-hash /etc/hostname\n', 6, "no earlier 'hash /etc/hostname'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = wait-ssh\n', 6, 'wait-ssh needs HOST[:PORT] when the target is local'),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\ntarget = telnet box\n'
     '[state a]\n', 5, "bad target 'telnet box'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\ntarget = ssh root@h:99999\n'
     '[state a]\n', 5, "bad ssh destination 'root@h:99999'"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[provider]\ntype = command\n'
     '[state a]\nbefore = power-off\n', 6, "provider type 'command' is not built in yet"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[provider]\ntype = proxmox\n'
     '[state a]\nbefore = power-off\n', 6, "provider proxmox needs api-url"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[provider]\ntype = netcup\n'
     '[state a]\nbefore = power-off\n', 6, "provider netcup needs server-id"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[provider]\ntype = netcup\n'
     'server-id = 1\n[state a]\nbefore = snapshot\n', 9,
     "'snapshot': wrong number of arguments (usage: snapshot NAME [online|offline] [disk DISK])"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n[state a]\n',
     6, "state 'a' was already defined on line 5"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\nsize = 9M\n[state a]\n',
     5, "'size' was already set on line 4"),
    ('suite = rw4k\n[campaign]\n', 1, "'suite' outside any section"),
    ('[campaign]\nsuite = rw4k\nsize = 8M\n[state a]\n', 4, "needs 'directory'"),
    ('[campaign]\nsuite = rw4k\ndirectory = tmp\nsize = 8M\n[state a]\n', 3,
     "directory 'tmp' must be an absolute path"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\nafter = x\n', 6,
     "unknown key 'after' in [state a]"),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = run "unclosed\n', 6, 'unterminated " quote'),
    ('[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\n[state a]\n'
     'before = power-off ; comment\n', 6, "unknown action 'power-off'"),
]


def test_malformed(tmp):
    for i, (text, line, msg) in enumerate(MALFORMED):
        path = os.path.join(tmp, 'bad%d.ini' % i)
        write(path, text)
        rc, out, err = run(['-o', os.path.join(tmp, 'never%d' % i), path], tmp)
        check_eq(rc, 2, 'exit status for case %d' % i)
        want = '%s:%d: ' % (path, line)
        hit = [l for l in err.splitlines() if l.startswith(want) and msg in l]
        check(hit, 'case %d: expected "%s...%s" in:\n%s' % (i, want, msg, err))
        check(not os.path.exists(os.path.join(tmp, 'never%d' % i)),
              'case %d: nothing created' % i)
    # several errors in one file are all reported
    path = os.path.join(tmp, 'many.ini')
    write(path, '[campaign]\nsuite = rw4k\ndirectory = /tmp/x\nsize = 8M\nrounds = 10001\n'
          'pause = soon\n[state a]\nbefore = jump\n')
    rc, out, err = run([path], tmp)
    check_eq(rc, 2, 'exit status with several errors')
    lines = err.splitlines()
    check_eq([l.split(': ')[0] for l in lines], ['%s:5' % path, '%s:6' % path, '%s:8' % path],
             'one line per error')
    # a job file that is not there
    path = os.path.join(tmp, 'nojob.ini')
    write(path, '[campaign]\nsuite = nosuchtest\ndirectory = /tmp/x\nsize = 8M\n[state a]\n')
    rc, out, err = run(['--dry-run', path], tmp)
    check_eq(rc, 2, 'exit status for a missing job file')
    check("no job file for test 'nosuchtest'" in err, 'message: %s' % err)
    check("did you mean" not in err, 'a suggestion for a name close to none: %s' % err)
    # a typo in a job's name gets a suggestion, and the message names the file
    write(path, '[campaign]\nsuite = rr4k rw4kk\ndirectory = /tmp/x\nsize = 8M\n[state a]\n')
    rc, out, err = run(['--dry-run', path], tmp)
    check_eq(rc, 2, 'exit status for a misspelt job')
    check(err.startswith("fiocamp-run: %s: suite: no job file for test 'rw4kk'; "
                         "did you mean 'rw4k'?" % path), 'message: %s' % err)


def test_dryrun(tmp):
    ini = campaign(tmp, 'dry.ini', (
        '[state basis]\n[state after]\nbefore = hash /etc/hostname; settle 1m30s; '
        'run echo "two words"; fresh-file\n'),
        extra='name = dry\nsuite = rw4k rr4k\nrounds = 3\npause = 10s\nprefill = yes\n'
        'target = local\n', runtime='30s', size='4G')
    rc, out, err = run(['--dry-run', '-o', 'x', ini], tmp)
    check_eq(rc, 0, 'dry-run exit status (%s)' % err)
    check(not os.path.exists(os.path.join(tmp, 'x')), 'dry-run creates nothing')
    check(out.startswith('campaign dry (%s): 2 states x 3 rounds x 2 tests, target local'
                         % ini), 'header: %s' % out[:200])
    tf = os.path.join(tmp, 'target', 'fiocamp.testfile')
    for st in ('basis', 'after'):
        for r in (1, 2, 3):
            for t, rw in (('rw4k', 'randwrite'), ('rr4k', 'randread')):
                # the swept options' variables from the job file's defaults
                want = ('%s (30s): cd %s/r%d && env FIOCAMP_FILE=%s FIOCAMP_SIZE=4294967296 '
                        'FIOCAMP_RUNTIME=30 FIOCAMP_IOENGINE=libaio FIOCAMP_DIRECT=1 '
                        'FIOCAMP_TEST=%s FIOCAMP_IODEPTH=32 FIOCAMP_NUMJOBS=1 FIOCAMP_BS=4k '
                        'FIOCAMP_RW=%s FIOCAMP_RWMIXREAD=50 fio --output-format=json '
                        '--output=%s.json --eta=always %s.fio') % (t, st, r, tf, t, rw, t, t)
                check(want in out, 'fio line %s r%d %s in plan' % (st, r, t))
    check_eq(out.count('.   pause 10s\n'), 4, 'pauses in the plan')
    check('settle 1m30s' in out, 'settle in the plan')
    check("run here: echo 'two words'" in out, 'run in the plan')
    check('hash on local: sha256sum -- /etc/hostname (recorded)' in out, 'hash in the plan')
    check('fresh-file: remove %s' % tf in out, 'fresh-file in the plan')
    check(re.search(r'prefill: 4G of \S+/fiocamp\.testfile -> prefill/prefill\.json', out),
          'prefill in the plan: ' + out)
    check('cd prefill && env FIOCAMP_FILE=' in out, 'the prefill run in the plan')
    # 12 runs x (30 s + 0.3 s) + 4 x 10 s + 90 s = 493.6 s, rounded to seconds
    check('expected duration: about 8m14s plus 3 steps' in out,
          'expected duration line in:\n%s' % out[-400:])
    # the netcup example is valid and its plan names the API calls (no token needed;
    # tests/run/test-netcup-run.py looks at it closely)
    rc, out, err = run(['--dry-run', os.path.join(SRCDIR, 'fio-jobs', 'netcup-snapshot.ini')],
                       tmp, {'HOME': tmp, 'FIOCAMP_NETCUP_REFRESH_TOKEN': ''})
    check_eq(rc, 0, 'dry-run of the netcup example (%s)' % err)
    check('campaign netcup-snapshot' in out and
          'provider netcup: snapshot grenzlast-1' in out and
          'PATCH /api/v1/servers/123456 {"state":"OFF"} (ACPI shutdown)' in out,
          'the netcup example\'s plan: %s' % out[-2000:])
    # the demo's plan, from the copy built into the binary
    rc, out, err = run(['--dry-run', '--demo'], tmp)
    check_eq(rc, 0, 'demo dry-run')
    check('campaign demo (demo.ini (built in)): 2 states x 3 rounds x 2 tests' in out,
          'demo header: %s' % out[:200])
    check('fresh-file' in out and 'prefill -> prefill/before-prefilled.json' in out,
          'demo states')


def test_jobs(tmp):
    env = dict(os.environ)
    env.update(FIOCAMP_FILE=os.path.join(tmp, 'f'), FIOCAMP_SIZE='8M', FIOCAMP_RUNTIME='1',
               FIOCAMP_IOENGINE='libaio', FIOCAMP_DIRECT='1')
    expect = {
        'rw4k': '--rw=randwrite --rwmixread=50 --bs=4k --iodepth=32 --numjobs=1',
        'rr4k': '--rw=randread --rwmixread=50 --bs=4k --iodepth=32 --numjobs=1',
        'lat4k': '--rw=randwrite --rwmixread=50 --bs=4k --iodepth=1 --numjobs=1',
        'sw1m': '--rw=write --rwmixread=50 --bs=1M --iodepth=8 --numjobs=1',
        'sr1m': '--rw=read --rwmixread=50 --bs=1M --iodepth=8 --numjobs=1',
        'prefill': '--rw=write --bs=1M --iodepth=8',
    }
    for name, opts in expect.items():
        env['FIOCAMP_TEST'] = name
        path = os.path.join(SRCDIR, 'fio-jobs', name + '.fio')
        # by hand, the swept options' variables come from the file's defaults
        with open(path) as fh:
            for line in fh:
                if line.startswith('; default '):
                    k, v = line[len('; default '):].strip().split('=', 1)
                    env[k] = v
        p = subprocess.run(['fio', '--parse-only', path], env=env, capture_output=True,
                           text=True)
        check_eq(p.returncode, 0, 'fio --parse-only %s (%s)' % (name, p.stderr))
        p = subprocess.run(['fio', '--showcmd', path], env=env, capture_output=True, text=True)
        cmd = p.stdout
        check(opts in cmd, '%s: %s in %s' % (name, opts, cmd))
        check('--filename=%s' % env['FIOCAMP_FILE'] in cmd, '%s: file in %s' % (name, cmd))
        check('--size=8M' in cmd and '--ioengine=libaio' in cmd and '--direct=1' in cmd,
              '%s: variables expanded in %s' % (name, cmd))
        if name != 'prefill':
            check('--time_based=1 --runtime=1' in cmd, '%s: time_based in %s' % (name, cmd))
            check('--write_iops_log=%s --write_bw_log=%s --log_avg_msec=1000' % (name, name)
                  in cmd, '%s: logs in %s' % (name, cmd))
    # the binary finds job files in --jobs-dir first
    jd = os.path.join(tmp, 'jobs')
    os.mkdir(jd)
    shutil.copy(os.path.join(SRCDIR, 'fio-jobs', 'rr4k.fio'), os.path.join(jd, 'rr4k.fio'))
    ini = campaign(tmp, 'j.ini', '[state a]\n', extra='suite = rr4k rw4k\n')
    rc, out, err = run(['--dry-run', '--jobs-dir', jd, ini], tmp)
    check_eq(rc, 0, 'dry-run with --jobs-dir')
    check('rr4k       %s/rr4k.fio' % jd in out, '--jobs-dir used: %s' % out)
    check('rw4k       (built in) rw4k.fio' in out, 'built-in copy used: %s' % out)
    # beside the campaign file comes before the installed and built-in copies
    shutil.copy(os.path.join(SRCDIR, 'fio-jobs', 'rw4k.fio'), os.path.join(tmp, 'rw4k.fio'))
    rc, out, err = run(['--dry-run', ini], tmp)
    check('rw4k       %s/rw4k.fio' % tmp in out, 'campaign-relative job file: %s' % out)
    # a test's logs are its own, also when another test's name starts with its name
    shutil.copy(os.path.join(SRCDIR, 'fio-jobs', 'rr4k.fio'), os.path.join(tmp, 'rr4k_b.fio'))
    ini = campaign(tmp, 'logs.ini', '[state a]\n', extra='suite = rr4k_b.fio rr4k\n')
    rc, out, err = run(['-q', '-o', 'logs', ini], tmp)
    check_eq(rc, 0, 'two tests with a common prefix (%s)' % err[-1000:])
    tests = load_manifest(os.path.join(tmp, 'logs'))['states'][0]['rounds'][0]['tests']
    check_eq([t['logs'] for t in tests],
             [['a/r1/rr4k_b_bw.1.log', 'a/r1/rr4k_b_iops.1.log'],
              ['a/r1/rr4k_bw.1.log', 'a/r1/rr4k_iops.1.log']], 'the logs of each test')
    # a resumed campaign runs the job files it ran before: a forgotten
    # --jobs-dir is refused, not replaced by another copy
    ini = campaign(tmp, 'jd.ini', '[state a]\n[state b]\nbefore = run false\n',
                   extra='suite = rr4k\n')
    rc, out, err = run(['-q', '--jobs-dir', jd, '-o', 'jd', ini], tmp)
    check_eq(rc, 1, 'a campaign that fails in its second state')
    rc, out, err = run(['-q', '--resume', 'jd'], tmp)
    check_eq(rc, 2, 'resume without the --jobs-dir (%s)' % err)
    check('cannot resume: test rr4k ran with the job file %s/rr4k.fio, and this session '
          'would use (built in) rr4k.fio (give the same --jobs-dir as then)' % jd in err,
          'message: %s' % err)
    rc, out, err = run(['-q', '--jobs-dir', jd, '--resume', 'jd'], tmp)
    check_eq(rc, 1, 'resume with the --jobs-dir runs (and fails in b again)')
    check_eq(load_manifest(os.path.join(tmp, 'jd'))['sessions'], 2,
             'the refused resume left no trace')


# ---- ssh -------------------------------------------------------------------

def test_ssh(tmp):
    started = H.start_sshd(tmp)
    if started is None:
        print('sshd or ssh missing: skipped')
        return 77
    proc, port, noisy_port, opts = started
    try:
        user = subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()
        marker = os.path.join(tmp, 'remote-marker')
        write(marker, 'integrity\n')
        remote_dir = os.path.join(tmp, 'remote')
        ini = campaign(tmp, 'ssh.ini', (
            '[state basis]\n'
            'before = hash %s; remote touch %s/touched; wait-ssh; verify-hash %s\n'
            '[state second]\n'
            'before = wait-ssh 127.0.0.1:%d\n') % (marker, tmp, marker, port),
            extra='suite = rw4k\nrounds = 1\nprefill = yes\nkeep-file = yes\n'
            'target = ssh %s@127.0.0.1:%d\n'
            % (user, port))
        ini_text = open(ini).read().replace(os.path.join(tmp, 'target'), remote_dir)
        write(ini, ini_text)
        # the ssh master's socket lives in a private directory below this one
        runtime_dir = os.path.join(tmp, 'xdg')
        os.mkdir(runtime_dir, 0o700)
        mux_env = {'FIOCAMP_SSH_OPTS': opts, 'XDG_RUNTIME_DIR': runtime_dir}
        rc, out, err = run(['-o', 'camp', ini], tmp, mux_env)
        check_eq(rc, 0, 'ssh campaign exit status (%s)' % err[-3000:])
        check_eq(H.ssh_with(runtime_dir), [], 'no ssh master left after the campaign')
        check_eq(os.listdir(runtime_dir), [], 'the master\'s directory removed')
        d = os.path.join(tmp, 'camp')
        m = load_manifest(d)
        check_eq(m['status'], 'done', 'ssh campaign status')
        check_eq(m['target'], 'ssh %s@127.0.0.1:%d' % (user, port), 'target')
        check(m['fio_version'].startswith('fio-3'), 'remote fio version')
        check(m['host'].get('cpus') == os.cpu_count(), 'remote host facts %r' % m['host'])
        check(os.path.isfile(os.path.join(remote_dir, 'fiocamp.testfile')), 'remote test file')
        check_eq(os.path.getsize(os.path.join(remote_dir, 'fiocamp.testfile')), 8 << 20,
                 'remote test file size')
        check(os.path.isfile(os.path.join(tmp, 'touched')), 'remote command ran')
        check_eq(m['prefill']['status'], 'done', 'remote prefill')
        for st in ('basis', 'second'):
            check_round_files(d, st, 1, ['rw4k'])
            t = m['states'][0 if st == 'basis' else 1]['rounds'][0]['tests'][0]
            check_eq(t['logs'], ['%s/r1/rw4k_bw.1.log' % st, '%s/r1/rw4k_iops.1.log' % st],
                     'logs copied back')
        with open(os.path.join(SRCDIR, 'fio-jobs', 'rw4k.fio')) as a, \
                open(os.path.join(d, 'basis', 'r1', 'rw4k.fio')) as b:
            check(a.read() == b.read(), 'job file kept beside the output')
        b = m['states'][0]['before']
        check_eq(b[0]['result']['sha256'], sha256(marker), 'remote hash')
        w = b[2]['result']
        check(w['banner'].startswith('SSH-2.0-'), 'banner %r' % w['banner'])
        check_eq(w['port'], port, 'wait-ssh port')
        check(w['probes'] >= 2, 'two probes at least')
        check(b[2]['duration_s'] < 5, 'wait-ssh on a running server is quick')
        check_eq(b[3]['result']['match'], True, 'remote verify-hash')
        check_eq(m['states'][1]['before'][0]['result']['host'], '127.0.0.1', 'explicit host')
        ev = H.load_journal(d)
        pre = [e for e in ev if e['event'] == 'preflight']
        check(len(pre) == 1 and pre[0].get('remote_dir', '').startswith('/tmp/fiocamp.'),
              'remote work dir in the journal')
        if pre:
            check(not os.path.exists(pre[0]['remote_dir']), 'remote work dir removed')
        starts = fio_events(ev, 'fio-start')
        check(all(e['argv'].startswith('ssh -o BatchMode=yes') for e in starts),
              'fio through ssh in BatchMode')
        # Ctrl-C stops the remote fio, whose report is still copied back
        ini3 = campaign(tmp, 'sshint.ini', '[state basis]\n',
                        extra='suite = rr4k\ntarget = ssh %s@127.0.0.1:%d\n' % (user, port),
                        runtime='20s')
        d3 = os.path.join(tmp, 'camp3')
        p = subprocess.Popen([H.BIN, '-o', d3, ini3], cwd=tmp,
                             env=env_for_run(mux_env),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        e = wait_for_event(d3, lambda e: e['event'] == 'fio-start', p)
        check(e is not None, 'remote fio started')
        masters = [q for q in H.proc_tree(p.pid)[1:] if q in H.ssh_with(runtime_dir)
                   and ' -M ' in H.read_proc(q, 'cmdline')]
        check_eq(len(masters), 1, 'one ssh master while fio runs')
        pre = [e for e in H.load_journal(d3) if e['event'] == 'preflight']
        fio_pid = None
        end = time.time() + 20
        while pre and fio_pid is None and time.time() < end and p.poll() is None:
            try:
                with open(os.path.join(pre[0]['remote_dir'], 'fio.pid')) as fh:
                    fio_pid = int(fh.read())
            except (OSError, ValueError):
                time.sleep(0.1)
        check(fio_pid and H.wait_for(lambda: H.fio_below(fio_pid), p, timeout=20),
              'remote fio runs its job')
        t0 = time.time()
        os.kill(p.pid, signal.SIGINT)
        out3, err3 = p.communicate(timeout=60)
        check_eq(p.returncode, 130, 'exit status after SIGINT with ssh (%s)' % err3[-1000:])
        check(time.time() - t0 < 15, 'remote fio stopped soon: %.1fs' % (time.time() - t0))
        if fio_pid:
            wait_gone([fio_pid], timeout=5)
            check(not os.path.exists('/proc/%d' % fio_pid), 'remote fio ended')
        m3 = load_manifest(d3)
        t3 = m3['states'][0]['rounds'][0]['tests'][0]
        check_eq(t3['status'], 'interrupted', 'remote test interrupted')
        check_eq(t3['json'], 'basis/r1/rr4k.json', 'report of the stopped remote run copied')
        if t3['json']:
            with open(os.path.join(d3, t3['json'])) as fh:
                check('"jobname" : "rr4k"' in fh.read(), 'the copied report is a report')
        if pre:
            check(not os.path.exists(pre[0]['remote_dir']), 'remote work dir removed')
        check_eq(H.ssh_with(runtime_dir), [], 'no ssh master left after Ctrl-C')
        check_eq(os.listdir(runtime_dir), [], 'the master\'s directory removed after Ctrl-C')

        # a target whose shell prints a greeting: the preflight says so, and the
        # greeting is never taken for the work directory (which is removed with rm -rf)
        shell = subprocess.run(['getent', 'passwd', user], capture_output=True,
                               text=True).stdout.strip().split(':')[-1]
        if shell.endswith('/bash'):
            ini4 = campaign(tmp, 'noisy.ini', '[state basis]\n',
                            extra='suite = rr4k\ntarget = ssh %s@127.0.0.1:%d\n'
                            % (user, noisy_port))
            rc, out, err = run(['-o', 'noisy', ini4], tmp, {'FIOCAMP_SSH_OPTS': opts})
            check_eq(rc, 1, 'preflight on a target with a noisy shell')
            check("unexpected preflight answer, starting 'Welcome to the bench' instead of the "
                  "work directory" in err, 'message: %s' % err[-1000:])

        # a port with nothing listening: wait-ssh times out with a clear message
        ini2 = campaign(tmp, 'closed.ini', '[state a]\nbefore = wait-ssh 127.0.0.1:%d\n' %
                        H.free_port(), extra='suite = rr4k\nwait-timeout = 1s\n')
        rc, out, err = run(['-o', 'closed', ini2], tmp)
        check_eq(rc, 1, 'wait-ssh timeout fails the campaign')
        check('no SSH banner within 1s' in err, 'timeout message: %s' % err)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


AREAS = {
    'e2e': test_e2e,
    'resume': test_resume,
    'sigint': test_sigint,
    'failure': test_failure,
    'malformed': test_malformed,
    'dryrun': test_dryrun,
    'jobs': test_jobs,
    'ssh': test_ssh,
}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    with H.scratch('fiocamp-run-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
