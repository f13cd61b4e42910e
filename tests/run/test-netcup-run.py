#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-run with the netcup provider, end to end against the fake SCP server.

usage: test-netcup-run.py AREA FIOCAMP_RUN FAKE_SCP_PY

Real fio on an 8 MiB local file with 1 s runtimes (target local); the fake
SCP server (tests/fake-scp) on 127.0.0.1 with a small --time-scale, and
`wait-ssh 127.0.0.1:PORT` pointed at its SSH listener, which answers only
while the fake server runs.  Each AREA is its own meson test; stdlib only.

Every run uses a fresh random refresh token, and every area ends by searching
everything it captured for it: stdout, stderr, every file of the campaign
directories, the fake's request log, and the command lines (and the
environments of the children) of the processes it saw while they ran.
"""
import json
import os
import re
import signal
import sys
import time

import harness as H
import netcup_fake as NF
from harness import (capture_dir, check, check_eq, journal_has, load_journal, load_manifest,
                     wait_for, write)
from netcup_fake import (SCALE, SERVER, SNAPSHOTS, TOKEN, Fake, campaign_head, check_powered_back,
                         finish, provider_keys, run, short_campaign, snapshot_posts, start,
                         state_of, token_file, worked_example, writes)


# ---- areas --------------------------------------------------------------------

def test_e2e(tmp, fake):
    """The worked example's five states, every action against the fake."""
    fake.reset()
    ini = worked_example(tmp, fake, None)
    d = os.path.join(tmp, 'camp')
    t0 = time.time()
    # the token from the environment this time: children must not inherit it
    rc, out, err = run(['-o', d, ini], tmp, {'FIOCAMP_NETCUP_REFRESH_TOKEN': TOKEN})
    wall = time.time() - t0
    check_eq(rc, 0, 'exit status of the worked example (stderr: %s)' % err[-3000:])
    capture_dir(d)
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'campaign status')
    check_eq(m['provider'], 'netcup', 'provider in the manifest')
    check_eq([s['name'] for s in m['states']], ['basis', 'snap1', 'snap3', 'deleted', 'control'],
             'the five states')
    for s in m['states']:
        check_eq(s['status'], 'done', 'state %s' % s['name'])
        check_eq([r['status'] for r in s['rounds']], ['done'], 'rounds of %s' % s['name'])
        for a in s['before']:
            check_eq(a['status'], 'done', '%s: %s' % (s['name'], a['text']))
    # downtime: only where something took the machine away
    downtimes = {s['name']: s['downtime_s'] for s in m['states']}
    check_eq(downtimes['basis'], None, 'no downtime in basis')
    check_eq(downtimes['deleted'], None, 'no downtime in deleted')
    for name in ('snap1', 'snap3', 'control'):
        s = state_of(m, name)
        dt = s['downtime_s']
        acts = s['before']
        ws = [a for a in acts if a['action'] == 'wait-ssh'][0]
        check(isinstance(dt, float) and dt > 0, '%s downtime %r' % (name, dt))
        check_eq(ws['downtime_s'], dt, '%s: the wait-ssh carries the same downtime' % name)
        # from the first action that took the machine away to the second banner
        first = acts[0]
        if isinstance(dt, float):
            start = parse_utc(first['started'])
            answered = parse_utc(ws['result']['answered'])
            check(abs((answered - start) - dt) < 0.002,
                  '%s downtime = banner - start of %s' % (name, first['text']))
            spent = sum(a['duration_s'] for a in acts[:acts.index(ws)])
            check(dt >= spent, '%s downtime %.3f >= the actions before wait-ssh %.3f'
                  % (name, dt, spent))
            # the fake's SSH comes back 3 s x scale after RUNNING; probed every 250 ms
            check(dt < spent + ws['duration_s'] + 0.5, '%s downtime within the wait' % name)
        check(ws['result']['probes'] >= 2, '%s: two probes at least' % name)
    # tasks by the provider's clock
    snap1 = state_of(m, 'snap1')['before']
    po = snap1[0]
    check_eq(po['task']['name'], 'ServerStateChangeTask', 'power-off task name')
    check_eq(po['task']['state'], 'FINISHED', 'power-off task state')
    # ACPI shutdown: 12 s x scale, in two steps
    check(abs(po['task']['duration_s'] - 12 * SCALE) < 0.05,
          'power-off task duration %r' % po['task']['duration_s'])
    check(po['duration_s'] >= po['task']['duration_s'], 'our duration >= the task\'s')
    check_eq(snap1[1]['task']['name'], 'ServerSnapshotCreateTask', 'snapshot task')
    check_eq(snap1[1]['result']['snapshot'], 'grenzlast-1', 'snapshot name in the result')
    check_eq(snap1[1]['result']['online'], False, 'offline by default')
    check_eq(snap1[2]['task']['name'], 'ServerStateChangeTask', 'power-on task')
    check(abs(snap1[2]['task']['duration_s'] - 6.5 * SCALE) < 0.05,
          'power-on task duration %r' % snap1[2]['task']['duration_s'])
    reboot = state_of(m, 'control')['before'][0]
    check_eq(len(reboot.get('tasks', [])), 2, 'reboot ran two tasks')
    check_eq(reboot['task']['count'], 2, 'reboot task summary count')
    if len(reboot.get('tasks', [])) == 2:
        check(abs(reboot['task']['duration_s'] - sum(t['duration_s'] for t in reboot['tasks']))
              < 0.002, 'reboot task duration is the sum')
        check_eq(reboot['task']['started'], reboot['tasks'][0]['started'], 'summary start')
        check_eq(reboot['task']['finished'], reboot['tasks'][1]['finished'], 'summary end')
    for a in state_of(m, 'deleted')['before']:
        check_eq(a['task']['name'], 'ServerSnapshotDeleteTask', 'delete task')
    # the fake's view: every snapshot made once and deleted once, server running
    reqs = fake.requests()
    for n in ('grenzlast-1', 'grenzlast-2', 'grenzlast-3'):
        posts = snapshot_posts(reqs, n)
        # a POST refused for the lock after a power task is sent again; never one taken
        check_eq([r['status'] for r in posts if r['status'] != 409], [202],
                 'POST of %s taken once' % n)
        dels = [r for r in reqs if r['method'] == 'DELETE' and r['path'] == SNAPSHOTS + '/' + n]
        check_eq([r['status'] for r in dels if r['status'] != 409], [202],
                 'DELETE of %s taken once' % n)
    for r in writes(reqs):
        want = 'application/merge-patch+json' if r['method'] == 'PATCH' else \
            None if r['method'] == 'DELETE' else 'application/json'
        check_eq(r['headers'].get('content-type'), want,
                 'Content-Type of %s %s' % (r['method'], r['path']))
    patches = [json.loads(r['body']) for r in reqs if r['method'] == 'PATCH' and
               r['status'] == 202]
    check_eq(patches, [{'state': 'OFF'}, {'state': 'ON'}] * 3, 'power changes in order')
    srv = fake.server()
    check_eq(srv['serverLiveInfo']['state'], 'RUNNING', 'the server runs at the end')
    check_eq(srv['snapshots'], [], 'no snapshot left')
    # every API request is in the journal, none twice
    ev = load_journal(d)
    calls = [e for e in ev if e['event'] == 'api-call']
    check_eq(len(calls), len(reqs), 'one api-call event per request the fake saw')
    check(not any('executingUser' in json.dumps(e) for e in ev), 'no executingUser stored')
    check(any(e['event'] == 'api-response' and e['path'].startswith('/api/v1/tasks/')
              for e in ev), 'task responses are journaled')
    check(not any(e['event'] == 'ensure-powered-on' for e in ev), 'no safety power-on')
    print('worked example against the fake: %.1f s wall, %d API requests, downtime '
          'snap1 %.3f s, snap3 %.3f s, control %.3f s'
          % (wall, len(reqs), downtimes['snap1'] or -1, downtimes['snap3'] or -1,
             downtimes['control'] or -1))


def parse_utc(text):
    import calendar
    base, frac = text.rstrip('Z').split('.')
    return calendar.timegm(time.strptime(base, '%Y-%m-%dT%H:%M:%S')) + float('0.' + frac)


POST_SNAP = dict(method='POST', path=SNAPSHOTS)


def fault_5xx(tmp, fake, tok, ini):
    # 5xx on every attempt of the snapshot: it fails, the server comes back on
    fake.reset()
    fake.fault(kind='status', status=502, count=5, **POST_SNAP)  # 1 + 4 retries
    d = os.path.join(tmp, 'f5xx')
    rc, out, err = run(['-o', d, ini], tmp)
    capture_dir(d)
    check_eq(rc, 1, '5xx: exit status')
    check('HTTP 502' in err, '5xx: the message names the status: %s' % err[-1500:])
    check('is RUNNING again and answers SSH' in err, '5xx: says the server is back')
    check_powered_back(fake, d, '5xx')
    check_eq(fake.server()['snapshots'], [], '5xx: no snapshot made')
    m = load_manifest(d)
    check_eq(state_of(m, 'basis')['status'], 'done', '5xx: basis kept')
    check_eq(state_of(m, 'snap1')['before'][1]['status'], 'failed', '5xx: snapshot failed')
    basis_json = os.path.join(d, 'basis', 'r1', 'rw4k.json')
    before = H.sha256(basis_json)
    # the cause is gone: the resume finishes, nothing done is done again
    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, '5xx: resume (%s)' % err[-2000:])
    check_eq(H.sha256(basis_json), before, '5xx: the finished round is byte-identical')
    m = load_manifest(d)
    check_eq(m['status'], 'done', '5xx: done after the resume')
    reqs = fake.requests()
    check_eq(len(snapshot_posts(reqs, taken=True)), 1,
             '5xx: one snapshot accepted in all')
    check_eq(fake.server()['snapshots'], [], '5xx: all-created deleted it')
    check_eq(state_of(m, 'cleanup')['before'][0]['result']['deleted'], ['fc-s1'],
             '5xx: all-created knew the snapshot')
    ev = load_journal(d)
    restore = [e for e in ev if e['event'] == 'resume-restore-end']
    check(len(restore) == 1 and restore[0]['result']['already'] is False,
          '5xx: the power-off was repeated on resume (the server had been powered on)')
    check(isinstance(state_of(m, 'snap1')['downtime_s'], float),
          '5xx: downtime counted from the repeated power-off')


def fault_drop(tmp, fake, tok, ini):
    # dropped connections: one answer lost after the power-off went through,
    # then the snapshot's connection dropped every time
    fake.reset()
    fake.fault(kind='drop', when='after', method='PATCH',
               path='/scp-core/api/v1/servers/%d' % SERVER, count=1)
    fake.fault(kind='drop', when='before', count=5, **POST_SNAP)
    d = os.path.join(tmp, 'fdrop')
    rc, out, err = run(['-o', d, ini], tmp)
    capture_dir(d)
    check_eq(rc, 1, 'drop: exit status')
    check('whether the last one went through is unknown' in err, 'drop: message: %s'
          % err[-1500:])
    check_powered_back(fake, d, 'drop')
    m = load_manifest(d)
    po = state_of(m, 'snap1')['before'][0]
    check_eq(po['status'], 'done', 'drop: the power-off whose answer was lost is done')
    check_eq(po['result'].get('recovered'), True, 'drop: found to have gone through')
    reqs = fake.requests()
    check_eq(len([r for r in reqs if r['method'] == 'PATCH' and
                  json.loads(r['body']) == {'state': 'OFF'}]), 1, 'drop: power-off sent once')
    check_eq(fake.server()['snapshots'], [], 'drop: no snapshot')
    ev = load_journal(d)
    check(any(e['event'] == 'write-check' and e['outcome'] == 'task' for e in ev),
          'drop: the write check found the task')
    check_eq(state_of(m, 'basis')['rounds'][0]['status'], 'done', 'drop: basis kept')


def fault_task_error(tmp, fake, tok, ini):
    # a task ending in ERROR, with --keep-going: back on before the next state
    fake.reset()
    fake.fault(kind='task-error', task='ServerSnapshotCreateTask',
               message='No more snapshots left.')
    d = os.path.join(tmp, 'ferror')
    rc, out, err = run(['-k', '-o', d, ini], tmp)
    capture_dir(d)
    check_eq(rc, 1, 'task error: exit status')
    check('ended in ERROR: No more snapshots left.' in err, 'task error: message: %s'
          % err[-1500:])
    check_powered_back(fake, d, 'task error')
    m = load_manifest(d)
    snap = state_of(m, 'snap1')['before'][1]
    check_eq(snap['task']['state'], 'ERROR', 'task error: the failed task is recorded')
    check_eq(snap['task']['message'], 'No more snapshots left.', 'task error: its message')
    check(snap['task']['finished'] is not None, 'task error: with its own end time')
    check_eq(state_of(m, 'basis')['rounds'][0]['status'], 'done', 'task error: basis kept')
    cleanup = state_of(m, 'cleanup')
    check_eq(cleanup['status'], 'done', 'task error: --keep-going ran the next state')
    check_eq(cleanup['before'][0]['result'], {'deleted': [], 'already_gone': ['fc-s1']},
             'task error: the snapshot that may have been made was looked for')
    ev = load_journal(d)
    on = [e['mono'] for e in ev if e['event'] == 'ensure-powered-on']
    nxt = [e['mono'] for e in ev if e['event'] == 'state-start' and e['state'] == 'cleanup']
    check(on and nxt and on[0] < nxt[0], 'task error: powered on before the next state')


def fault_fio_failure(tmp, fake, tok, ini):
    # a fio run that fails while the server is off (its directory became a file)
    fake.reset()
    path = os.path.join(tmp, 'fiofail.ini')
    target = os.path.join(tmp, 'target')
    write(path, campaign_head(tmp, 'fiofail') + '[provider]\n' + provider_keys(fake, tok) +
          '\n[state basis]\n\n[state down]\nbefore = power-off; '
          'run sh -c "rm -rf %s && touch %s"\n'
          '[state back]\nbefore = power-on; wait-ssh 127.0.0.1:%d\n'
          % (target, target, fake.ssh))
    d = os.path.join(tmp, 'ffio')
    rc, out, err = run(['-o', d, path], tmp)
    capture_dir(d)
    check_eq(rc, 1, 'fio failure: exit status')
    m = load_manifest(d)
    check_eq(state_of(m, 'down')['rounds'][0]['tests'][0]['status'], 'failed',
             'fio failure: the run failed')
    check_powered_back(fake, d, 'fio failure')
    os.unlink(target)


def fault_token(tmp, fake, tok, ini):
    # access tokens expire in the middle of the transition: renewed, nothing lost
    fake.reset()
    d = os.path.join(tmp, 'ftoken')
    p, w = start(['-o', d, ini], tmp)
    hit = wait_for(lambda: journal_has(d, lambda e: e['event'] == 'action-end' and
                                       e.get('action') == 'power-off'), p)
    check(hit, 'token: the power-off ended')
    fake.call('/_fake/expire-tokens', {})
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 0, 'token: the campaign finishes (%s)' % err[-1500:])
    ev = load_journal(d)
    check(any(e['event'] == 'api-retry' and e['reason'] == 'unauthorized' for e in ev),
          'token: a 401 was answered by a new access token')
    check(len([e for e in ev if e['event'] == 'token' and e['action'] == 'refreshed']) >= 2,
          'token: refreshed again')
    check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', 'token: server running')
    check_eq(len(snapshot_posts(fake.requests(), taken=True)), 1, 'token: one snapshot taken')


def fault_long_error(tmp, fake, tok, ini):
    # a long refusal of the API reaches the manifest and the user whole
    fake.reset()
    long = 'Snapshot refused: ' + 'the storage of this node is full; ' * 20
    fake.fault(kind='status', status=400, count=1,
               body={'code': 'server.snapshot.create.error', 'message': long}, **POST_SNAP)
    path = os.path.join(tmp, 'long.ini')
    write(path, campaign_head(tmp, 'long') + '[provider]\n' + provider_keys(fake, tok) +
          '\n[state s]\nbefore = snapshot fc-long online\n')
    d = os.path.join(tmp, 'flong')
    rc, out, err = run(['-o', d, path], tmp)
    capture_dir(d)
    check_eq(rc, 1, 'long error: exit status')
    want = ('POST /api/v1/servers/%d/snapshots: HTTP 400 server.snapshot.create.error: %s'
            % (SERVER, long))
    check_eq(load_manifest(d)['states'][0]['before'][0].get('error'), want,
             'long error: the whole message in the manifest')
    check(want in err, 'long error: the whole message on stderr: %s' % err[-2000:])


def ignores(pid, sig):
    """Whether process pid ignores signal sig (/proc/PID/status, SigIgn)."""
    for line in H.read_proc(pid, 'status').split('\n'):
        if line.startswith('SigIgn:'):
            return bool(int(line.split()[1], 16) >> (sig - 1) & 1)
    return False


def fault_sighup(tmp, fake, tok, ini):
    # the terminal goes away (SIGHUP) while the server is off: back on before the exit.
    # A settle keeps the server off while the signal comes.  fiocamp-run
    # starts with SIGHUP as a terminal gives it: a test suite run under nohup
    # hands it on ignored, and fiocamp-run keeps an ignored SIGHUP ignored
    # (the case after this one).
    text = open(ini).read()
    check('before = power-off; ' in text, 'sighup: the campaign has its power-off')
    hup = os.path.join(tmp, 'hup.ini')
    write(hup, text.replace('before = power-off; ', 'before = power-off; settle 30s; '))

    def off_then(d, sighup):
        p, w = start(['-o', d, hup], tmp, sighup=sighup)
        hit = wait_for(lambda: journal_has(d, lambda e: e['event'] == 'action-start' and
                                           e.get('action') == 'settle 30s'), p)
        check(hit, 'sighup: the settle after the power-off began')
        os.kill(p.pid, signal.SIGHUP)
        return p, w

    fake.reset()
    d = os.path.join(tmp, 'fhup')
    p, w = off_then(d, signal.SIG_DFL)
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 130, 'sighup: exit status (%s)' % err[-1500:])
    check_powered_back(fake, d, 'sighup')
    check_eq(load_manifest(d)['status'], 'interrupted', 'sighup: the campaign is interrupted')

    # under nohup the hangup stays ignored: the campaign goes on (a Ctrl-C then
    # stops it, and the server is powered back on)
    fake.reset()
    d = os.path.join(tmp, 'fnohup')
    p, w = off_then(d, signal.SIG_IGN)
    # an ignored signal is dropped as it is sent: SIGHUP ignored now is the
    # hangup that went nowhere
    check(ignores(p.pid, signal.SIGHUP), 'nohup: fiocamp-run keeps SIGHUP ignored')
    check(p.poll() is None, 'nohup: a hangup does not stop the campaign')
    os.kill(p.pid, signal.SIGINT)
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 130, 'nohup: Ctrl-C after the ignored hangup (%s)' % err[-1500:])
    check_powered_back(fake, d, 'nohup')


def fault_sigint(tmp, fake, tok, ini):
    # Ctrl-C while the snapshot's answer is on its way: back on, then resumed
    # (no lock window, so that the delayed POST is the one the API takes)
    fake.reset(lock_window=0)
    fake.fault(kind='delay', seconds=1.5, count=1, **POST_SNAP)
    d = os.path.join(tmp, 'fsigint')
    p, w = start(['-o', d, ini], tmp)
    hit = wait_for(lambda: snapshot_posts(fake.requests()), p)
    check(hit, 'sigint: the snapshot was sent')
    os.kill(p.pid, signal.SIGINT)
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 130, 'sigint: exit status (%s)' % err[-1500:])
    check_powered_back(fake, d, 'sigint')
    check_eq([s['name'] for s in fake.server()['snapshots']], ['fc-s1'],
             'sigint: the snapshot was made by the API')
    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, 'sigint: resume (%s)' % err[-1500:])
    check_eq(len(snapshot_posts(fake.requests())), 1, 'sigint: never a second POST')
    m = load_manifest(d)
    check_eq(state_of(m, 'snap1')['before'][1]['result'].get('adopted'), True,
             'sigint: the snapshot was adopted')
    check_eq(fake.server()['snapshots'], [], 'sigint: and deleted at the end')
    check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', 'sigint: running at the end')


def test_faults(tmp, fake):
    """Faults aimed at single requests of the short campaign, each case with
    the server RUNNING again at the end; the cases run on three threads,
    each with a fake server and a directory of its own (harness.in_parallel),
    since they wait for the fake more than they work."""
    def one(wtmp, wfake, case):
        tok = token_file(wtmp)
        case(wtmp, wfake, tok, short_campaign(wtmp, wfake, tok))
    H.in_parallel(tmp, fake, [fault_5xx, fault_drop, fault_task_error, fault_fio_failure,
                              fault_token, fault_long_error, fault_sighup, fault_sigint],
                  one, Fake)


def test_fatal(tmp, fake):
    """Out of memory after the power-off: the fatal path powers the server on.
    BIN is the test build whose next allocation fails once the trigger file
    exists."""
    tok = token_file(tmp)
    ini = short_campaign(tmp, fake, tok)
    trigger = os.path.join(tmp, 'fail-alloc-now')
    fake.reset()
    d = os.path.join(tmp, 'foom')
    p, w = start(['-o', d, ini], tmp, {'FIOCAMP_TEST_FAIL_ALLOC': trigger})
    hit = wait_for(lambda: journal_has(d, lambda e: e['event'] == 'action-end' and
                                       e.get('action') == 'power-off'), p)
    check(hit, 'oom: the power-off ended')
    check_eq(fake.server()['serverLiveInfo']['state'], 'SHUTOFF', 'oom: the server is off')
    write(trigger, '')
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 1, 'oom: exit status (%s)' % err[-1500:])
    check('fiocamp-run: out of memory' in err, 'oom: says why: %s' % err[-1500:])
    check('is RUNNING again and answers SSH' in err, 'oom: says the server is back: %s'
          % err[-1500:])
    check('--resume %s' % d in err, 'oom: says how to go on: %s' % err[-1500:])
    check_powered_back(fake, d, 'oom')
    ev = load_journal(d)
    fatal = [e for e in ev if e['event'] == 'error' and e.get('step') == 'fatal']
    check(len(fatal) == 1 and fatal[0]['message'] == 'out of memory',
          'oom: the journal has the fatal error: %r' % fatal)
    check_eq(load_manifest(d)['status'], 'running', 'oom: the manifest was left as it was')
    # the cause is gone: the resume finishes the campaign
    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, 'oom: resume (%s)' % err[-1500:])
    check_eq(load_manifest(d)['status'], 'done', 'oom: done after the resume')
    check_eq(fake.server()['snapshots'], [], 'oom: the snapshot was made and deleted')


def test_resume(tmp, fake):
    """kill -9 in the middle of the snapshot, then --resume."""
    tok = token_file(tmp)
    fake.reset(lock_window=0)
    # the API takes the snapshot, its answer comes 1 s later: the kill lands in between
    fake.fault(kind='delay', seconds=1.0, count=1, method='POST', path=SNAPSHOTS)
    ini = worked_example(tmp, fake, tok, rounds=1)
    d = os.path.join(tmp, 'camp')
    p, w = start(['-o', d, ini], tmp)
    hit = wait_for(lambda: snapshot_posts(fake.requests(), 'grenzlast-1'), p)
    check(hit, 'the snapshot POST was sent')
    os.kill(p.pid, signal.SIGKILL)
    finish(p, w)
    srv = fake.server()
    check_eq(srv['serverLiveInfo']['state'], 'SHUTOFF', 'killed with the server off')
    m = load_manifest(d)
    check_eq(m['status'], 'running', 'manifest after kill -9')
    check_eq(state_of(m, 'snap1')['before'][1]['status'], 'running', 'snapshot cut short')
    basis = os.path.join(d, 'basis', 'r1', 'rw4k.json')
    before = H.sha256(basis)
    # the delayed answer goes nowhere
    check(wait_for(lambda: snapshot_posts(fake.requests(), 'grenzlast-1', taken=True)),
          'the fake answers the snapshot POST after its delay')

    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, 'resume exit status (%s)' % err[-3000:])
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'done after the resume')
    check_eq(m['sessions'], 2, 'two sessions')
    check_eq(H.sha256(basis), before, 'basis round byte-identical')
    for s in m['states']:
        check_eq(s['status'], 'done', 'state %s' % s['name'])
    reqs = fake.requests()
    for n in ('grenzlast-1', 'grenzlast-2', 'grenzlast-3'):
        check_eq(len(snapshot_posts(reqs, n, taken=True)), 1, 'POST of %s taken once' % n)
    snap = state_of(m, 'snap1')['before'][1]
    check_eq(snap['result'].get('adopted'), True, 'the snapshot of the killed run was adopted')
    check_eq(snap['result'].get('created'), True, 'and counted as made')
    ev = load_journal(d)
    restore = [e for e in ev if e['event'] == 'resume-restore-end']
    check(len(restore) == 1 and restore[0]['result']['already'] is True,
          'the repeated power-off found the server off and sent nothing')
    s1 = state_of(m, 'snap1')
    check_eq(s1['downtime_s'], None, 'no downtime for a transition cut by a kill')
    check('cut short' in s1.get('downtime_note', ''), 'the note says why')
    check(isinstance(state_of(m, 'snap3')['downtime_s'], float), 'snap3 downtime measured')
    srv = fake.server()
    check_eq(srv['serverLiveInfo']['state'], 'RUNNING', 'running at the end')
    check_eq(srv['snapshots'], [], 'every snapshot deleted once')
    dels = [r for r in reqs if r['method'] == 'DELETE']
    check_eq(len(dels), 3, 'three DELETEs')


def test_preflight(tmp, fake):
    tok = token_file(tmp)

    def refused(name, body, server=None, want=(), rc_want=1):
        fake.reset(server)
        path = os.path.join(tmp, name + '.ini')
        write(path, campaign_head(tmp, name) + '[provider]\n' + provider_keys(fake, tok) +
              '\n' + body)
        d = os.path.join(tmp, name)
        rc, out, err = run(['-o', d, path], tmp)
        check_eq(rc, rc_want, '%s: exit status (%s)' % (name, err[-1500:]))
        for w in want:
            check(w in err, '%s: %r in:\n%s' % (name, w, err))
        check_eq(writes(fake.requests()), [], '%s: nothing was changed' % name)
        if os.path.isdir(d):
            capture_dir(d)
            check(not journal_has(d, lambda e: e['event'] == 'fio-start'),
                  '%s: no fio run' % name)
        return err

    err = refused('uefi', '[state a]\nbefore = snapshot s1 online\n', {'uefi': True},
                  ['PROBLEM', 'boots with UEFI',
                   'Online snapshot creation is not possible if UEFI is activated.',
                   'before = power-off; snapshot s1 offline; power-on; wait-ssh',
                   'the netcup preflight found 1 problem'])
    refused('taken', '[state a]\nbefore = power-off; snapshot grenzlast-1; power-on\n',
            {'snapshots': ['grenzlast-1']},
            ['snapshot "grenzlast-1" will exist already'])
    refused('notallowed', '[state a]\nbefore = snapshot s1\n', {'snapshotAllowed': False},
            ['does not allow snapshots'])
    refused('missing', '[state a]\nbefore = delete-snapshot nope\n', None,
            ['deletes snapshot "nope", which will not exist'])
    # the server id of another account
    fake.reset()
    path = os.path.join(tmp, 'other.ini')
    write(path, campaign_head(tmp, 'other') + '[provider]\n' +
          provider_keys(fake, tok).replace('server-id = %d' % SERVER, 'server-id = 4242') +
          '\n[state a]\nbefore = power-off\n')
    rc, out, err = run(['-o', os.path.join(tmp, 'other'), path], tmp)
    check_eq(rc, 1, 'unknown server: exit status')
    check('server 4242 is not found in this account' in err, 'unknown server: %s' % err)
    # a refresh token the token endpoint refuses
    bad = os.path.join(tmp, 'bad.token')
    write(bad, 'not-the-token\n', 0o600)
    path = os.path.join(tmp, 'badtoken.ini')
    write(path, campaign_head(tmp, 'badtoken') + '[provider]\n' + provider_keys(fake, bad) +
          '\n[state a]\n')
    rc, out, err = run(['-o', os.path.join(tmp, 'badtoken'), path], tmp)
    check_eq(rc, 1, 'refused token: exit status')
    check('refused the refresh token' in err and "fiocamp-run netcup-login" in err,
          'refused token: message and hint: %s' % err)
    # a token file others can read: a usage error before anything exists
    loose = os.path.join(tmp, 'loose.token')
    write(loose, TOKEN + '\n', 0o644)
    path = os.path.join(tmp, 'loose.ini')
    write(path, campaign_head(tmp, 'loose') + '[provider]\n' + provider_keys(fake, loose) +
          '\n[state a]\n')
    rc, out, err = run(['-o', os.path.join(tmp, 'loose'), path], tmp)
    check_eq(rc, 2, 'loose token file: exit status')
    line = provider_keys(fake, loose).splitlines().index('token-file = %s' % loose) + 13
    check(err.startswith('fiocamp-run: %s:%d: token file %s has mode 0644' % (path, line, loose))
          and 'chmod 600' in err, 'loose token file: message: %s' % err)
    check(not os.path.exists(os.path.join(tmp, 'loose')), 'loose token file: nothing created')
    # no token at all: the default file is named
    path = os.path.join(tmp, 'notoken.ini')
    write(path, campaign_head(tmp, 'notoken') + '[provider]\n' + provider_keys(fake) +
          '\n[state a]\n')
    rc, out, err = run(['-o', os.path.join(tmp, 'notoken'), path], tmp,
                       {'HOME': os.path.join(tmp, 'home')})
    check_eq(rc, 2, 'no token: exit status')
    check('netcup.token' in err and 'netcup-login' in err, 'no token: message: %s' % err)
    # bad [provider] values: file:line each, exit 2, nothing contacted
    path = os.path.join(tmp, 'badkeys.ini')
    write(path, campaign_head(tmp, 'badkeys') +
          '[provider]\ntype = netcup\nserver-id = twelve\napi-url = http://example.net/x\n'
          'poll-interval = 0s\ntask-timeout = soon\ncolour = red\n'
          '[state a]\nbefore = snapshot bad/name; snapshot s2 online disk vda; power-off soft;'
          ' revert all-created; snapshot s3 offline online\n')
    n = len(fake.requests())
    rc, out, err = run(['--dry-run', path], tmp)
    check_eq(rc, 2, 'bad keys: exit status')
    want = [(14, "server-id 'twelve' is not a netcup server id"),
            (15, 'plain http is accepted only for loopback hosts'),
            (16, "poll-interval: '0s' must be more than 0"),
            (17, "task-timeout: bad duration 'soon'"),
            (18, "unknown key 'colour' for provider netcup"),
            (20, "'snapshot bad/name': snapshot name 'bad/name': use letters"),
            (20, "'snapshot s2 online disk vda': an online snapshot covers all disks"),
            (20, "'power-off soft': unexpected 'soft'"),
            (20, "'revert all-created': 'all-created' is no snapshot name"),
            (20, "'snapshot s3 offline online': online or offline, once")]
    lines = err.splitlines()
    for ln, msg in want:
        check(any(l.startswith('%s:%d: ' % (path, ln)) and msg in l for l in lines),
              'bad keys: %d %r in:\n%s' % (ln, msg, err))
    check_eq(len(lines), len(want), 'bad keys: one line per problem')
    check_eq(len(fake.requests()), n, 'bad keys: no request')


def test_login(tmp, fake):
    fake.reset(device_interval=0.1, device=['authorization_pending', 'ok'])
    path = os.path.join(tmp, 'home', 'cfg', 'fiocamp', 'netcup.token')
    rc, out, err = run(['netcup-login', '--token-file', path,
                        '--auth-url', fake.url + '/realms/scp'], tmp, timeout=60)
    check_eq(rc, 0, 'login exit status (%s)' % err)
    check(re.search(r'http://127\.0\.0\.1:%d/realms/scp/device\?user_code=[0-9A-F]{4}-[0-9A-F]{4}'
                    % fake.http, out), 'the verification address: %s' % out)
    code = re.search(r'shows the code +([0-9A-F]{4}-[0-9A-F]{4})', out)
    check(code, 'the user code: %s' % out)
    check('The refresh token is in %s (mode 0600)' % path in out, 'where it went: %s' % out)
    with open(path) as f:
        check_eq(f.read(), TOKEN + '\n', 'the token file holds the refresh token')
    check_eq(os.stat(path).st_mode & 0o777, 0o600, 'token file mode')
    for dname in (os.path.dirname(path), os.path.dirname(os.path.dirname(path))):
        check_eq(os.stat(dname).st_mode & 0o777, 0o700, 'mode of %s' % dname)
    reqs = fake.requests()
    check_eq([r['path'] for r in reqs][:1], ['/realms/scp/protocol/openid-connect/auth/device'],
             'the device authorization first')
    check(len(reqs) >= 3, 'polled the token endpoint: %d requests' % len(reqs))
    # the token it wrote works for a campaign (the dry-run needs none; a real run does)
    ini = short_campaign(tmp, fake, path)
    fake.reset()
    rc, out, err = run(['-o', os.path.join(tmp, 'camp'), ini], tmp)
    check_eq(rc, 0, 'a campaign with the new token file (%s)' % err[-1500:])
    capture_dir(os.path.join(tmp, 'camp'))
    rc, out, err = run(['netcup-login', 'extra'], tmp)
    check_eq(rc, 2, 'login usage error')


def test_dryrun(tmp, fake):
    """The shipped example: valid, and the plan names the API calls; no token, no network."""
    n = len(fake.requests())
    home = os.path.join(tmp, 'home')
    os.mkdir(home)
    ini = os.path.join(H.SRCDIR, 'fio-jobs', 'netcup-snapshot.ini')
    rc, out, err = run(['--dry-run', ini], tmp, {'HOME': home})
    check_eq(rc, 0, 'dry-run of the shipped example (%s)' % err)
    for want in ('provider netcup',
                 'netcup preflight, nothing changed:',
                 'refresh token from %s/.config/fiocamp/netcup.token' % home,
                 'GET /api/v1/servers/123456: it exists',
                 'provider netcup: power-off (the machine goes away: downtime starts)',
                 'PATCH /api/v1/servers/123456 {"state":"OFF"} (ACPI shutdown) -> 202 + task',
                 'POST /api/v1/servers/123456/snapshots {"name":"grenzlast-1",'
                 '"onlineSnapshot":false,"description":"fiocamp"} -> 202 + task',
                 'DELETE /api/v1/servers/123456/snapshots/grenzlast-3 -> 202 + task',
                 'a graceful reboot: the power-off, then the power-on (two tasks)',
                 'GET /api/v1/tasks/{uuid} every 2s until FINISHED'):
        check(want in out, 'dry-run shows %r' % want)
    check(not os.listdir(home), 'the dry-run wrote nothing')
    # all-created lists what the plan made before it
    path = os.path.join(tmp, 'all.ini')
    write(path, campaign_head(tmp, 'all') + '[provider]\n' + provider_keys(fake) +
          '\n[state a]\nbefore = power-off; snapshot one; snapshot two disk vda; power-on\n'
          '[state b]\nbefore = delete-snapshot all-created; revert one\n')
    rc, out, err = run(['--dry-run', path], tmp, {'HOME': home})
    check_eq(rc, 0, 'dry-run with all-created (%s)' % err)
    check('the snapshots this campaign made (2 in the plan)' in out, 'all-created: %s' % out)
    check('DELETE /api/v1/servers/%d/snapshots/one' % SERVER in out and
          'DELETE /api/v1/servers/%d/snapshots/two' % SERVER in out, 'both deletes')
    check('"diskName":"vda"' in out, 'the disk is sent')
    check('POST /api/v1/servers/%d/snapshots/one/revert' % SERVER in out, 'revert call')
    check_eq(len(fake.requests()), n, 'no request to the fake')


AREAS = {
    'e2e': test_e2e,
    'faults': test_faults,
    'resume': test_resume,
    'preflight': test_preflight,
    'login': test_login,
    'dryrun': test_dryrun,
    'fatal': test_fatal,
}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    NF.FAKE = os.path.abspath(sys.argv[3])
    t0 = time.time()
    with H.scratch('fiocamp-netcup-%s.' % area) as tmp:
        fake = Fake(tmp)
        try:
            AREAS[area](tmp, fake)
        finally:
            fake.stop()
            leaks = [what for what, text in H.CAPTURED if TOKEN in text]
            check_eq(leaks, [], 'the refresh token appears in')
            for what, text in H.CAPTURED:
                if re.search(r'fake-access-\d+-[0-9a-f]{24}', text):
                    check(False, 'an access token appears in %s' % what)
    sys.exit(H.summary(', %d things searched for the token, %.1f s'
                       % (len(H.CAPTURED), time.time() - t0)))


if __name__ == '__main__':
    main()
