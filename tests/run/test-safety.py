#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-run's safety layer: never a server left off, never an effect
recorded that did not happen, one session and one fio per target.

usage: test-safety.py AREA FIOCAMP_RUN FAKE_SCP_PY

Real fio on 8 MiB files with 1 s runtimes; the fake SCP server
(tests/fake-scp) on 127.0.0.1 with faults aimed at single requests, and for
the ssh area an sshd on 127.0.0.1 (harness.start_sshd).  The helpers are
tests/harness.py's and netcup_fake.py's; each AREA is its own meson test.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
import urllib.request

import harness as H
import netcup_fake as N
from harness import check, check_eq
SERVER = N.SERVER
SNAPSHOTS = N.SNAPSHOTS
SERVER_PATH = '/scp-core/api/v1/servers/%d' % SERVER


def keys(fake, tok, **over):
    text = N.provider_keys(fake, tok)
    for k, v in over.items():
        k = k.replace('_', '-')
        text = re.sub(r'^%s = .*$' % k, '%s = %s' % (k, v), text, flags=re.M)
    return text


def campaign(tmp, fake, tok, name, states, suite='rw4k', rounds=1, **over):
    text = (N.campaign_head(tmp, name, suite=suite, rounds=rounds) + '[provider]\n' +
            keys(fake, tok, **over) + '\n' + states)
    path = os.path.join(tmp, name + '.ini')
    H.write(path, text)
    return path


def tasks_over(fake, timeout=60):
    """Waits until the fake runs no task; True when it got there."""
    return bool(H.wait_for(lambda: not any(
        t['state'] not in ('FINISHED', 'ERROR', 'CANCELED', 'ROLLBACK')
        for t in fake.call('/_fake/state')['tasks']), timeout=timeout, every=0.05))


def events(d, name):
    return [e for e in H.load_journal(d) if e['event'] == name]


# ---- items 1 and 2: a take-down still under way is waited for -------------------

def power_campaign(tmp, fake, tok, name, **over):
    return campaign(tmp, fake, tok, name,
                    '[state basis]\n\n[state off]\nbefore = power-off; power-on; '
                    'wait-ssh 127.0.0.1:%d\n' % fake.ssh, **over)


def check_left_on(fake, d, err, what):
    check(tasks_over(fake), '%s: the fake\'s tasks end' % what)
    srv = fake.server()
    check_eq(srv['serverLiveInfo']['state'], 'RUNNING', '%s: the server is left RUNNING' % what)
    ev = events(d, 'ensure-powered-on')
    check_eq(len(ev), 1, '%s: one ensure-powered-on' % what)
    if ev:
        res = ev[0]['result']
        waited = res.get('waited_for', [])
        check(any(t.get('name') == 'ServerStateChangeTask' for t in waited),
              '%s: the power-off task in flight was waited for: %r' % (what, res))
        check_eq(res.get('already'), False, '%s: the server was powered on' % what)
        check_eq(ev[0]['server_state'], 'RUNNING', '%s: the journal says RUNNING' % what)
    check('is RUNNING again and answers SSH' in err, '%s: says so: %s' % (what, err[-800:]))


def power_ctrlc(tmp, fake, tok):
    """Ctrl-C while the ACPI shutdown runs (3.6 s at this scale)."""
    fake.reset(time_scale=0.3)
    ini = power_campaign(tmp, fake, tok, 'ctrlc')
    d = os.path.join(tmp, 'ctrlc')
    p, w = N.start(['-o', d, ini], tmp)
    hit = H.wait_for(lambda: [r for r in fake.requests() if r['method'] == 'PATCH' and
                              r['status'] == 202], p)
    check(hit, 'ctrl-c: the power-off was sent')
    hit = H.wait_for(lambda: H.journal_has(d, lambda e: e['event'] == 'api-call' and
                                           '/tasks/' in e.get('path', '')), p)
    check(hit, 'ctrl-c: its task is polled')
    os.kill(p.pid, signal.SIGINT)
    rc, out, err = N.finish(p, w)
    check_eq(rc, 130, 'ctrl-c: exit status (%s)' % err[-1500:])
    check_left_on(fake, d, err, 'ctrl-c')


def power_slow(tmp, fake, tok):
    """The power-off task outlives task-timeout: the action fails, the
    shutdown goes on, and the safety layer waits for it before powering on."""
    fake.reset(time_scale=0.3)
    ini = power_campaign(tmp, fake, tok, 'slow', task_timeout='1s')
    d = os.path.join(tmp, 'slow')
    rc, out, err = N.run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'task-timeout: exit status (%s)' % err[-1500:])
    check('may still finish' in err, 'task-timeout: the action says so: %s' % err[-800:])
    check_left_on(fake, d, err, 'task-timeout')
    H.capture_dir(d)


def power_task_ends(kind, end):
    """A power-off task that netcup rolls back (or cancels): the action
    fails, and the server is left on, which it still is."""
    def case(tmp, fake, tok):
        fake.reset()
        fake.fault(kind=kind, task='ServerStateChangeTask')
        ini = power_campaign(tmp, fake, tok, kind)
        d = os.path.join(tmp, kind)
        rc, out, err = N.run(['-o', d, ini], tmp)
        check_eq(rc, 1, '%s: exit status (%s)' % (kind, err[-800:]))
        check('ended in %s' % end in err, '%s: says so: %s' % (kind, err[-800:]))
        check(tasks_over(fake), '%s: the tasks end' % kind)
        check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', '%s: RUNNING' % kind)
        ev = events(d, 'ensure-powered-on')
        check(len(ev) == 1 and ev[0]['status'] == 'done', '%s: powered on: %r' % (kind, ev))
    case.__name__ = 'power_' + kind
    return case


def test_power(tmp, fake):
    """The cases on three threads, each with a fake and a directory of its own."""
    cases = [power_ctrlc, power_slow, power_task_ends('task-rollback', 'ROLLBACK'),
             power_task_ends('task-cancel', 'CANCELED')]
    H.in_parallel(tmp, fake, cases,
                  lambda wtmp, wfake, case: case(wtmp, wfake, N.token_file(wtmp)), N.Fake)


# ---- items 3, 4 and 6: what a write did is decided by what the API shows -----

def someone_else_snapshot(fake, name):
    """Another client of the same account takes a snapshot."""
    form = 'client_id=scp&grant_type=refresh_token&refresh_token=' + N.TOKEN
    req = urllib.request.Request(fake.url + '/realms/scp/protocol/openid-connect/token',
                                 data=form.encode(), method='POST',
                                 headers={'Content-Type': 'application/x-www-form-urlencoded'})
    with urllib.request.urlopen(req, timeout=10) as r:
        access = json.loads(r.read())['access_token']
    req = urllib.request.Request(fake.url + SNAPSHOTS, method='POST',
                                 data=json.dumps({'name': name, 'onlineSnapshot': True}).encode(),
                                 headers={'Content-Type': 'application/json',
                                          'Authorization': 'Bearer ' + access})
    with urllib.request.urlopen(req, timeout=10) as r:
        check_eq(r.status, 202, 'someone else took snapshot %s' % name)
    tasks_over(fake)


def snapshot_names(fake):
    return [s['name'] for s in fake.server()['snapshots']]


def step(m, state, i):
    return N.state_of(m, state)['before'][i]


ERR500 = {'code': 'error.internal', 'message': 'Internal Server Error'}


def writes_lost(tmp, fake, tok):
    flag = os.path.join(tmp, 'flag')
    # 3. a 5xx on a resumed write: the earlier session's task of the same
    # kind is not this write's
    fake.reset(lock_window=0)
    ini = campaign(tmp, fake, tok, 'lost', (
        '[state s1]\nbefore = snapshot fc-a online; snapshot fc-b online; '
        'delete-snapshot fc-a\n\n'
        '[state s2]\nbefore = run test -e %s; delete-snapshot fc-b; snapshot fc-c online\n\n'
        '[state cleanup]\nbefore = delete-snapshot all-created\n') % flag)
    d = os.path.join(tmp, 'lost')
    rc, out, err = N.run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'lost: the first session stops at the run (%s)' % err[-1000:])
    check_eq(snapshot_names(fake), ['fc-b'], 'lost: fc-b is left after the first session')
    H.write(flag, '')
    fake.fault(kind='status', status=500, body=ERR500, method='DELETE', path=SNAPSHOTS + '/fc-b')
    fake.fault(kind='status', status=500, body=ERR500, method='POST', path=SNAPSHOTS)
    n0 = len(fake.requests())
    rc, out, err = N.run(['--resume', d], tmp)
    H.capture_dir(d)
    check_eq(rc, 0, 'lost: the resume ends well (%s)' % err[-2000:])
    reqs = fake.requests()[n0:]
    check_eq(len([r for r in reqs if r['method'] == 'DELETE' and
                  r['path'] == SNAPSHOTS + '/fc-b' and r['status'] == 202]), 1,
             'lost: fc-b was really deleted (the DELETE sent again after the 500)')
    check_eq(len(N.snapshot_posts(reqs, 'fc-c', taken=True)), 1,
             'lost: fc-c was really made (the POST sent again after the 500)')
    check_eq(snapshot_names(fake), [], 'lost: nothing is left on the server')
    m = H.load_manifest(d)
    check(not step(m, 's2', 1).get('result', {}).get('recovered'),
          'lost: the delete is not "recovered" with an old task: %r' % step(m, 's2', 1))
    intents = events(d, 'write-intent')
    check(any(e.get('write') == 'snapshot fc-c' and e.get('at') == {'state': 's2', 'index': 2}
              and e['before'].get('exists') is False
              for e in intents), 'lost: the create was journaled before it was sent')
    outcomes = [e['outcome'] for e in events(d, 'write-outcome')
                if e.get('write') == 'snapshot fc-c']
    check_eq(outcomes, ['unknown', 'accepted'], 'lost: the outcomes of the create')


def writes_repeat(tmp, fake, tok):
    # 3 again: the power-off repeated on resume gets a 500; the power-on task
    # the earlier session's safety step started is not this write's
    fake.reset(lock_window=0)
    flag3 = os.path.join(tmp, 'flag3')
    ini = campaign(tmp, fake, tok, 'repeat', (
        '[state s]\nbefore = power-off; run test -e %s; power-on; wait-ssh 127.0.0.1:%d\n')
        % (flag3, fake.ssh), task_timeout='10s')
    d = os.path.join(tmp, 'repeat')
    rc, out, err = N.run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'repeat: the first session fails at the run (%s)' % err[-800:])
    check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', 'repeat: powered back on')
    H.write(flag3, '')
    fake.fault(kind='status', status=500, body=ERR500, method='PATCH', path=SERVER_PATH)
    n0 = len(fake.requests())
    rc, out, err = N.run(['--resume', d], tmp)
    H.capture_dir(d)
    check_eq(rc, 0, 'repeat: the resume ends well (%s)' % err[-1500:])
    patches = [r for r in fake.requests()[n0:] if r['method'] == 'PATCH']
    check_eq([(json.loads(r['body'])['state'], r['status']) for r in patches],
             [('OFF', 500), ('OFF', 202), ('ON', 202)],
             'repeat: the power-off was sent again, not taken for the old power-on')


def writes_unknown(tmp, fake, tok):
    # 4. the API accepts the snapshot, then polling its task fails: it is
    # recorded as maybe made, and the resume adopts it
    for how in ('500', 'revoked'):
        # the task runs 2.3 s: long enough for one poll to answer and five to fail
        fake.reset(lock_window=0, time_scale=1.0 if how == '500' else N.SCALE)
        name = 'fc-d' + how
        ini = campaign(tmp, fake, tok, 'unknown' + how, (
            '[state s]\nbefore = snapshot %s online\n\n'
            '[state cleanup]\nbefore = delete-snapshot all-created\n') % name)
        d = os.path.join(tmp, 'unknown' + how)
        if how == '500':
            # the first poll answers, the five after it fail
            fake.fault(kind='status', status=500, body=ERR500, method='GET', prefix=True,
                       path='/scp-core/api/v1/tasks/', skip=1, count=5)
            rc, out, err = N.run(['-o', d, ini], tmp)
        else:
            # the first poll waits until the token is revoked
            fake.fault(kind='delay', when='before', seconds=1.5, method='GET', prefix=True,
                       path='/scp-core/api/v1/tasks/')
            p, w = N.start(['-o', d, ini], tmp)
            hit = H.wait_for(lambda: N.snapshot_posts(fake.requests(), name, taken=True), p)
            check(hit, 'revoked: the snapshot was accepted')
            fake.call('/_fake/revoke', {})
            rc, out, err = N.finish(p, w)
        check_eq(rc, 1, '%s: the action fails (%s)' % (how, err[-1000:]))
        m = H.load_manifest(d)
        res = step(m, 's', 0).get('result', {})
        check_eq(res.get('created', 'absent'), None, '%s: created is unknown: %r' % (how, res))
        check_eq(res.get('outcome'), 'unknown', '%s: outcome unknown' % how)
        check_eq(snapshot_names(fake), [name], '%s: the snapshot exists' % how)
        if how == 'revoked':
            # a new login gives the account a new refresh token
            fake.call('/_fake/reset-token', {'refresh_token': N.TOKEN})
        rc, out, err = N.run(['--resume', d], tmp)
        H.capture_dir(d)
        check_eq(rc, 0, '%s: the resume adopts it (%s)' % (how, err[-2000:]))
        m = H.load_manifest(d)
        check_eq(step(m, 's', 0).get('result', {}).get('adopted'), True,
                 '%s: adopted on resume' % how)
        check_eq(snapshot_names(fake), [], '%s: and deleted by all-created' % how)
        check_eq(len(N.snapshot_posts(fake.requests(), name)), 1, '%s: one POST only' % how)


def writes_skipped(tmp, fake, tok):
    # 6. a snapshot action that never ran made nothing: a snapshot of its
    # name is someone else's, and the resume refuses instead of adopting it
    fake.reset(lock_window=0)
    flag6 = os.path.join(tmp, 'flag6')
    ini = campaign(tmp, fake, tok, 'skipped', (
        '[state s]\nbefore = run test -e %s; snapshot fc-f online\n\n'
        '[state cleanup]\nbefore = delete-snapshot all-created\n') % flag6)
    d = os.path.join(tmp, 'skipped')
    rc, out, err = N.run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'skipped: the run fails first')
    check_eq(step(H.load_manifest(d), 's', 1)['status'], 'skipped', 'skipped: the snapshot')
    someone_else_snapshot(fake, 'fc-f')
    H.write(flag6, '')
    rc, out, err = N.run(['--resume', d], tmp)
    H.capture_dir(d)
    check_eq(rc, 1, 'skipped: the resume refuses (%s)' % err[-2000:])
    check('snapshot "fc-f" will exist already' in err, 'skipped: says why: %s' % err[-1500:])
    check_eq(snapshot_names(fake), ['fc-f'], 'skipped: the other snapshot is left alone')


def test_writes(tmp, fake):
    """The cases on three threads, each with a fake and a directory of its own."""
    cases = [writes_lost, writes_repeat, writes_unknown, writes_skipped]
    H.in_parallel(tmp, fake, cases,
                  lambda wtmp, wfake, case: case(wtmp, wfake, N.token_file(wtmp)), N.Fake)


# ---- items 5, 7, 10 and 12: one session and one fio per target ---------------

def plain_campaign(tmp, name, body, runtime='4s', extra='suite = rr4k\n'):
    return H.campaign(tmp, name + '.ini', body, runtime=runtime, extra='name = %s\n%s' %
                      (name, extra))


def wait_event(d, pred, proc, timeout=60):
    return H.wait_for_event(d, pred, proc, timeout=timeout)


def start_plain(args, tmp, extra_env=None):
    return subprocess.Popen([H.BIN] + args, cwd=tmp, env=H.env_for_run(extra_env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill9_and_resume(tmp, d, ini, what, extra_env=None, remote=False):
    """Starts the campaign, kills it with -9 while fio runs, resumes at once:
    no fio of the dead session may run beside the resumed one."""
    p = start_plain(['-o', d, ini], tmp, extra_env)
    e = wait_event(d, lambda e: e['event'] == 'fio-start' and e.get('state') == 'basis', p)
    check(e is not None, '%s: fio started' % what)
    old = H.wait_for(lambda: H.fio_at_work(H.fio_below(p.pid) if not remote
                                                else remote_fio_pids(d)),
                     p, timeout=10) or []
    check(old, '%s: the first session\'s fio runs its job: %r' % (what, old))
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    q = start_plain(['--resume', d], tmp, extra_env)
    e = wait_event(d, lambda e: e['event'] == 'fio-start' and e['session'] == 2, q)
    check(e is not None, '%s: the resumed session starts fio' % what)
    left = [x for x in old if H.alive(x)]
    check_eq(left, [], '%s: no fio of the dead session runs beside the resumed one' % what)
    out, err = q.communicate(timeout=120)
    check_eq(q.returncode, 0, '%s: the resume ends well (%s)' % (what, err[-1500:]))
    m = H.load_manifest(d)
    t = m['states'][0]['rounds'][0]['tests'][0]
    check_eq(t['status'], 'done', '%s: the round is done' % what)
    moved = m['states'][0]['rounds'][0].get('moved_aside', [])
    check_eq(len(moved), 1, '%s: the cut-short round was kept aside' % what)
    return m, err


def test_session(tmp, fake):
    # 5. kill -9, then --resume at once: the old fio is stopped first
    ini = plain_campaign(tmp, 'kill9', '[state basis]\n')
    d = os.path.join(tmp, 'kill9')
    m, err = kill9_and_resume(tmp, d, ini, 'kill -9 local')
    starts = [e for e in H.load_journal(d) if e['event'] == 'fio-start']
    check(all(isinstance(e.get('proc', {}).get('pid'), int) for e in starts),
          'fio-start has the pid')

    # 7. two sessions on one directory: the second is refused, naming the first
    ini = plain_campaign(tmp, 'twice', '[state basis]\n')
    d = os.path.join(tmp, 'twice')
    p = start_plain(['-o', d, ini], tmp)
    wait_event(d, lambda e: e['event'] == 'fio-start', p)
    os.kill(p.pid, signal.SIGINT)
    p.communicate(timeout=60)
    check_eq(p.returncode, 130, 'twice: the first session is interrupted')
    a = start_plain(['--resume', d], tmp)
    e = wait_event(d, lambda e: e['event'] == 'fio-start' and e['session'] == 2, a)
    check(e is not None, 'twice: the first resume runs')
    rc, out, err = H.run(['--resume', d], tmp)
    check_eq(rc, 2, 'twice: the second resume is refused (%s)' % err[-800:])
    check('in use by fiocamp-run (pid %d)' % a.pid in err, 'twice: names the holder: %s' % err)
    out, err = a.communicate(timeout=120)
    check_eq(a.returncode, 0, 'twice: the first resume ends well (%s)' % err[-800:])
    check_eq(H.load_manifest(d)['sessions'], 2, 'twice: the refused one is no session')
    rc, out, err = H.run(['--resume', d], tmp)
    check_eq(rc, 0, 'twice: a later resume finds the lock free (%s)' % err[-800:])

    # 10. -q hides progress, never a failure's reason
    ini = plain_campaign(tmp, 'quiet', '[state basis]\nbefore = run sh -c "exit 3"\n',
                         runtime='1s')
    rc, out, err = H.run(['-q', '-o', os.path.join(tmp, 'quiet'), ini], tmp)
    check_eq(rc, 1, 'quiet: fails')
    check('basis: run sh -c "exit 3": FAILED:' in err and 'exit status 3' in err,
          'quiet: the reason is printed: %r' % err)
    check('state 1/1' not in err, 'quiet: no progress lines: %r' % err)

    # 12. a directory without a manifest
    empty = os.path.join(tmp, 'nomanifest')
    os.makedirs(empty)
    shutil.copy(ini, os.path.join(empty, 'campaign.ini'))
    rc, out, err = H.run(['--resume', empty], tmp)
    check_eq(rc, 2, 'no manifest: usage error')
    check(':-1:' not in err and 'manifest.json' in err and 'no manifest' in err,
          'no manifest: a clear message: %r' % err)
    # a FIFO as the campaign file
    fifo = os.path.join(tmp, 'fifo.ini')
    os.mkfifo(fifo)
    try:
        rc, out, err = H.run([fifo], tmp, timeout=20)
        check_eq(rc, 2, 'fifo: refused')
        check('not a regular file' in err, 'fifo: says why: %r' % err)
    except subprocess.TimeoutExpired:
        check(False, 'fifo: fiocamp-run blocks on a FIFO')
    # the manifest cannot be written at a round's end: the journal does not
    # say more than the manifest
    ini = plain_campaign(tmp, 'full', '[state basis]\n', runtime='2s')
    d = os.path.join(tmp, 'full')
    p = start_plain(['-o', d, ini], tmp)
    e = wait_event(d, lambda e: e['event'] == 'fio-start', p)
    subprocess.run(['chattr', '+i', d], check=True)
    try:
        out, err = p.communicate(timeout=60)
    finally:
        subprocess.run(['chattr', '-i', d], check=True)
    check(p.returncode != 0, 'full: the campaign stops (%s)' % err[-800:])
    m = H.load_manifest(d)
    rounds = [e for e in H.load_journal(d) if e['event'] == 'round-end']
    check_eq([r['status'] for r in rounds], [], 'full: no round-end the manifest lacks')
    check_eq(m['states'][0]['rounds'][0]['status'], 'running', 'full: the manifest')
    rc, out, err = H.run(['--resume', d], tmp)
    check_eq(rc, 0, 'full: the resume runs the round again (%s)' % err[-800:])


# ---- item 5 over ssh: the remote fio ends with the connection ----------------

def remote_dir_of(d):
    pre = [e for e in H.load_journal(d) if e['event'] == 'preflight']
    return pre[-1].get('remote_dir') if pre else None


def remote_fio_pids(d):
    """The fio processes of the last session's remote work directory (the
    target is this machine): fio.pid's process group."""
    rd = remote_dir_of(d)
    try:
        with open(os.path.join(rd, 'fio.pid')) as f:
            pgid = int(f.read())
    except (OSError, ValueError, TypeError):
        return []
    out = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as f:
                fields = f.read().rsplit(')', 1)[1].split()
            if int(fields[2]) == pgid:
                out.append(int(name))
        except (OSError, ValueError, IndexError):
            pass
    return out


def test_ssh(tmp, fake):
    started = H.start_sshd(tmp)
    if started is None:
        print('sshd or ssh missing: skipped')
        return 77
    proc, port, noisy_port, opts = started
    try:
        user = subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()
        ini = plain_campaign(tmp, 'sshkill', '[state basis]\n', extra=(
            'suite = rr4k\ntarget = ssh %s@127.0.0.1:%d\n' % (user, port)))
        H.write(ini, open(ini).read().replace(os.path.join(tmp, 'target'),
                                              os.path.join(tmp, 'remote')))
        d = os.path.join(tmp, 'sshkill')
        env = {'FIOCAMP_SSH_OPTS': opts}
        p = start_plain(['-o', d, ini], tmp, env)
        e = wait_event(d, lambda e: e['event'] == 'fio-start', p)
        check(e is not None, 'ssh: fio started')
        old = H.wait_for(lambda: H.fio_at_work(remote_fio_pids(d)), p, timeout=15) or []
        check(old, 'ssh: the remote fio runs its job: %r' % old)
        old_dir = remote_dir_of(d)
        os.kill(p.pid, signal.SIGKILL)
        p.communicate()
        q = start_plain(['--resume', d], tmp, env)
        e = wait_event(d, lambda e: e['event'] == 'fio-start' and e['session'] == 2, q)
        check(e is not None, 'ssh: the resumed session starts fio')
        left = [x for x in old if H.alive(x)]
        check_eq(left, [], 'ssh: no remote fio of the dead session runs beside the new one')
        check(not os.path.exists(old_dir), 'ssh: the dead session\'s work directory is gone')
        out, err = q.communicate(timeout=120)
        check_eq(q.returncode, 0, 'ssh: the resume ends well (%s)' % err[-1500:])
        m = H.load_manifest(d)
        check_eq(m['states'][0]['rounds'][0]['tests'][0]['status'], 'done', 'ssh: round done')
        check(not os.path.exists(remote_dir_of(d)), 'ssh: the work directory removed at the end')
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def tls_server(tmp):
    """An HTTPS server with a self-signed certificate on 127.0.0.1 that counts
    the connections made to it; None without openssl."""
    import socket
    import ssl
    import threading
    if not shutil.which('openssl'):
        return None
    key, cert = os.path.join(tmp, 'tls.key'), os.path.join(tmp, 'tls.crt')
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key,
                    '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'],
                   check=True, capture_output=True)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(8)
    sock.settimeout(0.2)
    state = {'connections': 0, 'stop': False}

    def serve():
        while not state['stop']:
            try:
                c, _ = sock.accept()
            except OSError:
                continue
            state['connections'] += 1
            try:
                c.settimeout(2)
                ctx.wrap_socket(c, server_side=True).close()
            except (OSError, ssl.SSLError):
                pass
            c.close()
    threading.Thread(target=serve, daemon=True).start()
    return sock.getsockname()[1], state


def test_tls(tmp, fake):
    """12. a TLS certificate that is refused is not asked again"""
    got = tls_server(tmp)
    if got is None:
        print('openssl missing: skipped')
        return 77
    port, state = got
    tok = N.token_file(tmp)
    ini = campaign(tmp, fake, tok, 'tls', '[state a]\nbefore = power-off\n',
                   api_url='https://127.0.0.1:%d/scp-core' % port,
                   auth_url='https://127.0.0.1:%d/realms/scp' % port, retry_wait='1s')
    t0 = time.time()
    rc, out, err = N.run(['-o', os.path.join(tmp, 'tls'), ini], tmp)
    took = time.time() - t0
    state['stop'] = True
    check_eq(rc, 1, 'tls: the preflight fails (%s)' % err[-800:])
    check('the TLS certificate was refused; not retried' in err, 'tls: says why: %s' % err)
    check_eq(state['connections'], 1, 'tls: one connection, no retries')
    check(took < 5, 'tls: at once (%.1f s)' % took)


# ---- the rules every provider keeps (provider.h), for netcup ---------------------

def test_rules(tmp, fake):
    """netcup keeps the rules of provider.h's contract too: a revert whose
    task an earlier session started (killed with kill -9 while it ran) is
    taken over by that task's uuid on --resume, never sent again; a second
    Ctrl-C while the safety power-on waits for a shutdown says that the
    server still runs, which task may still take it down, and what to do;
    a FIFO and a NUL byte as the token file are refused at once."""
    tok = N.token_file(tmp)
    revert_path = SERVER_PATH + '/snapshots/fc-r/revert'
    # 1. kill -9 while the revert runs, --resume at once: one revert in all
    fake.reset(time_scale=0.3)
    ini = campaign(tmp, fake, tok, 'revert9',
                   '[state s]\nbefore = snapshot fc-r; revert fc-r; wait-ssh 127.0.0.1:%d\n'
                   '[state c]\nbefore = delete-snapshot all-created\n' % fake.ssh, rounds=0)
    d = os.path.join(tmp, 'revert9')
    p, w = N.start(['-o', d, ini], tmp)
    hit = H.wait_for(lambda: H.journal_has(d, lambda e: e['event'] == 'task-state' and
                                           e.get('name') == 'ServerSnapshotRevertTask'), p)
    check(hit, 'revert kill -9: the revert task runs')
    os.kill(p.pid, signal.SIGKILL)
    N.finish(p, w)
    rc, out, err = N.run(['--resume', d], tmp)
    H.capture_dir(d)
    check_eq(rc, 0, 'revert kill -9: the resume (%s)' % err[-2000:])
    posts = [r for r in fake.requests() if r['method'] == 'POST' and r['path'] == revert_path]
    check_eq([r['status'] for r in posts], [202], 'revert kill -9: the revert sent once')
    m = H.load_manifest(d)
    a = N.state_of(m, 's')['before'][1]
    check_eq((a['status'], a.get('result', {}).get('adopted')), ('done', True),
             'revert kill -9: the earlier task taken over')
    earlier = a.get('result', {}).get('earlier_tasks') or []
    check_eq([(t['name'], t.get('adopted')) for t in earlier],
             [('ServerSnapshotRevertTask', True)], 'revert kill -9: its task, by its uuid')
    check_eq(N.state_of(m, 's').get('downtime_cut'), True, 'revert kill -9: downtime cut')
    check(tasks_over(fake), 'revert kill -9: the fake\'s tasks end')
    check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', 'revert kill -9: RUNNING')

    # 2. a second Ctrl-C while the safety power-on waits for the shutdown
    # (3.6 s at this time scale: the second Ctrl-C comes well within it)
    fake.reset(time_scale=0.3)
    ini = power_campaign(tmp, fake, tok, 'twice')
    d = os.path.join(tmp, 'twice2')
    p, w = N.start(['-o', d, ini], tmp)
    hit = H.wait_for(lambda: [r for r in fake.requests() if r['method'] == 'PATCH' and
                              r['status'] == 202], p)
    check(hit, 'twice: the power-off was sent')
    os.kill(p.pid, signal.SIGINT)
    H.wait_for(lambda: H.journal_has(d, lambda e: e['event'] == 'api-call' and
                                     e.get('during') == 'ensure-powered-on' and
                                     '/tasks/' in e.get('path', '')), p)
    os.kill(p.pid, signal.SIGINT)
    rc, out, err = N.finish(p, w)
    H.capture_dir(d)
    check_eq(rc, 130, 'twice: exit status (%s)' % err[-1500:])
    ev = events(d, 'ensure-powered-on')
    flight = ev[-1]['result'].get('in_flight', []) if ev else []
    check(len(flight) == 1 and flight[0].get('name') == 'ServerStateChangeTask',
          'twice: the journal names the task in flight: %r' % ev[-1:])
    check(flight and 'is RUNNING now' in err and flight[0]['id'] in err and
          'still runs' in err and 'fiocamp-run --resume %s' % d in err,
          'twice: says the state, the task and what to do: %s' % err[-1500:])
    check('could not power the machine on' not in err, 'twice: no wrong word')
    check("stopped waiting for the machine's tasks (a second Ctrl-C)\n" in err and
          'stopped while waiting' not in err,
          'twice: says why it stopped waiting, once: %s' % err[-1500:])
    check(tasks_over(fake), 'twice: the shutdown ends')
    check_eq(fake.server()['serverLiveInfo']['state'], 'SHUTOFF', 'twice: off, as it said')
    rc, out, err = N.run(['--resume', d], tmp)
    H.capture_dir(d)
    check_eq(rc, 0, 'twice: the resume (%s)' % err[-1500:])
    check_eq(fake.server()['serverLiveInfo']['state'], 'RUNNING', 'twice: RUNNING after it')

    # 3. a FIFO, and a NUL byte, as the token file: refused at once
    fifo = os.path.join(tmp, 'fifo.token')
    os.mkfifo(fifo, 0o600)
    nul = os.path.join(tmp, 'nul.token')
    with open(nul, 'wb') as f:
        f.write((N.TOKEN[:8] + '\0' + N.TOKEN[8:] + '\n').encode())
    os.chmod(nul, 0o600)
    for what, path, want in (('fifo', fifo, 'is not a regular file'),
                             ('nul', nul, 'NUL byte')):
        ini = campaign(tmp, fake, path, 'tok-' + what, '[state basis]\n')
        p, w = N.start(['-o', os.path.join(tmp, 'camp-tok-' + what), ini], tmp)
        try:
            rc, out, err = N.finish(p, w, timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc, out, err = N.finish(p, w)
            check(False, '%s token: fiocamp-run still waited after 20 s' % what)
        check_eq(rc, 2, '%s token: a usage error (%s)' % (what, err[-800:]))
        check(want in err and path in err, '%s token: said: %s' % (what, err[-800:]))


# ---- the manifest of a big campaign, saved in parts --------------------------------

def test_record(tmp, fake):
    """A campaign whose manifest is bigger than the size up to which it is
    rewritten at every save (64 KiB): its steps are saved as manifest events
    of the journal, the file rewritten now and then.  kill -9 in a
    repetition's action and in a fio round, --resume each time: every step
    done is known to the resumed session (nothing done again but the one cut
    short), and the last session leaves manifest.json exact.  Then the same
    campaign with FIOCAMP_CHECK_MANIFEST=1, which checks at every save that
    manifest.json with its events is the manifest in memory.  The two
    campaigns run at once, each in a directory of its own."""
    # each repetition's action carries a long argument (its text is in the
    # manifest), so that the manifest passes 64 KiB before repetition 30;
    # -q: the progress lines, which hold it too, would fill the pipes the
    # test reads only at the end
    reps, kill_at = 48, 36
    pad = 'p' * 1200
    top = tmp

    def one(what, env, kills):
        tmp = os.path.join(top, what)
        os.makedirs(tmp)
        counter = os.path.join(tmp, 'counter-' + what)
        # with kills, rep kill_at's action waits for the kill (only once: on
        # resume the count is past it); without, nothing waits
        wait = ('[ $(wc -l < %s) -eq %d ] && sleep 60; ' % (counter, kill_at)
                if kills else '')
        action = 'run sh -c "echo r >> %s; %strue" sh %s' % (counter, wait, pad)
        ini = plain_campaign(tmp, 'record-' + what, (
            '[state many]\nrounds = 0\nrepeat = %d\nbefore = %s\n\n'
            '[state fio]\nrounds = 3\n' % (reps, action)), runtime='1s',
            extra='suite = rw4k\npause = 0s\n')
        d = os.path.join(tmp, 'record-' + what)
        if not kills:
            rc, out, err = H.run(['-q', '-o', d, ini], tmp, env)
            check_eq(rc, 0, '%s: the campaign (%s)' % (what, err[-1500:]))
        else:
            p = start_plain(['-q', '-o', d, ini], tmp, env)
            e = wait_event(d, lambda e: e['event'] == 'action-start' and
                           e.get('repetition') == kill_at, p)
            check(e is not None, '%s: repetition %d began' % (what, kill_at))
            H.wait_for(lambda: os.path.exists(counter) and
                       len(open(counter).readlines()) == kill_at, p)
            os.kill(p.pid, signal.SIGKILL)
            p.communicate()
            m = H.load_manifest(d)
            ev = H.load_journal(d)
            seqs = [x['seq'] for x in ev if x['event'] == 'manifest']
            check(seqs and m.get('patch_seq', 0) < seqs[-1],
                  '%s: manifest.json lags its events in the journal (%r < %r)'
                  % (what, m.get('patch_seq'), seqs[-1:]))
            check(os.path.getsize(os.path.join(d, 'manifest.json')) > 64 << 10,
                  '%s: a manifest of more than 64 KiB' % what)
            # the second kill: in the fio state's second round
            p = start_plain(['-q', '--resume', d], tmp, env)
            e = wait_event(d, lambda e: e['event'] == 'fio-start' and e.get('state') == 'fio'
                           and e.get('round') == 2, p)
            check(e is not None, '%s: the resume reached round 2 of fio' % what)
            kids = H.children(p.pid)
            os.kill(p.pid, signal.SIGKILL)
            p.communicate()
            H.wait_gone(kids)
            rc, out, err = H.run(['-q', '--resume', d], tmp, env)
            check_eq(rc, 0, '%s: the last resume (%s)' % (what, err[-1500:]))
        m = H.load_manifest(d)
        ev = H.load_journal(d)
        check_eq(m['status'], 'done', '%s: done' % what)
        many = m['states'][0]['repetitions']
        check_eq([r['status'] for r in many], ['done'] * reps, '%s: every repetition done' % what)
        starts = {}
        for x in ev:
            if x['event'] == 'action-start' and x.get('state') == 'many':
                starts[x['repetition']] = starts.get(x['repetition'], 0) + 1
        again = sorted(k for k, n in starts.items() if n > 1)
        check_eq(again, [kill_at] if kills else [], '%s: the actions run twice' % what)
        check_eq(len(open(counter).readlines()), reps + (1 if kills else 0),
                 '%s: the actions that ran' % what)
        rounds = m['states'][1]['rounds']
        check_eq([r['status'] for r in rounds], ['done'] * 3, '%s: the fio rounds' % what)
        if kills:
            check_eq(rounds[1].get('moved_aside'), ['fio/r2.interrupted-1'],
                     '%s: the round cut short kept aside' % what)
            check('moved_aside' not in rounds[0], '%s: round 1 not run again' % what)
        seqs = [x['seq'] for x in ev if x['event'] == 'manifest']
        check(seqs and m.get('patch_seq') == seqs[-1] and seqs == sorted(set(seqs)),
              '%s: the last rewrite holds every event, numbered in order' % what)

    def guarded(*case):
        try:
            one(*case)
        except Exception:
            check(False, 'record %s raised:\n%s' % (case[0], traceback.format_exc()))
    threads = [threading.Thread(target=guarded, args=case) for case in (
        ('kills', None, True), ('check', {'FIOCAMP_CHECK_MANIFEST': '1'}, False))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


AREAS = {
    'power': test_power,
    'writes': test_writes,
    'session': test_session,
    'ssh': test_ssh,
    'tls': test_tls,
    'rules': test_rules,
    'record': test_record,
}


def main():
    area, H.BIN, N.FAKE = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    t0 = time.time()
    with H.scratch('fiocamp-safety-%s.' % area) as tmp:
        fake = N.Fake(tmp)
        rc = 0
        try:
            rc = AREAS[area](tmp, fake)
        finally:
            fake.stop()
            leaks = [what for what, text in H.CAPTURED if N.TOKEN in text]
            check_eq(leaks, [], 'the refresh token appears in')
    if rc == H.SKIPPED:
        sys.exit(H.SKIPPED)
    sys.exit(H.summary(', %.1f s' % (time.time() - t0)))


if __name__ == '__main__':
    main()
