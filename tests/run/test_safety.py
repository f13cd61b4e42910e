#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-run's safety layer: never a server left off, never an effect
recorded that did not happen, one session and one fio per target.

usage: test_safety.py AREA FIOCAMP_RUN FAKE_SCP_PY

Real fio on 8 MiB files with 1 s runtimes; the fake SCP server
(tests/fake-scp) on 127.0.0.1 with faults aimed at single requests, and for
the ssh area an sshd on 127.0.0.1 (as test_run.py starts it).  The helpers
are test_netcup_run.py's and test_run.py's; each AREA is its own meson test.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_netcup_run as N  # noqa: E402
import test_run as R  # noqa: E402

check, check_eq = N.check, N.check_eq
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
    N.write(path, text)
    return path


def tasks_over(fake, timeout=60):
    """Waits until the fake runs no task; True when it got there."""
    end = time.time() + timeout
    while time.time() < end:
        st = fake.call('/_fake/state')
        if not any(t['state'] not in ('FINISHED', 'ERROR', 'CANCELED', 'ROLLBACK')
                   for t in st['tasks']):
            return True
        time.sleep(0.1)
    return False


def events(d, name):
    return [e for e in N.load_journal(d) if e['event'] == name]


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


def test_power(tmp, fake):
    tok = N.token_file(tmp)
    # 1. Ctrl-C while the ACPI shutdown runs (3.6 s at this scale)
    fake.reset(time_scale=0.3)
    ini = power_campaign(tmp, fake, tok, 'ctrlc')
    d = os.path.join(tmp, 'ctrlc')
    p, w = N.start(['-o', d, ini], tmp)
    hit = N.wait_for(lambda: [r for r in fake.requests() if r['method'] == 'PATCH' and
                              r['status'] == 202], p)
    check(hit, 'ctrl-c: the power-off was sent')
    time.sleep(0.3)
    os.kill(p.pid, signal.SIGINT)
    rc, out, err = N.finish(p, w)
    check_eq(rc, 130, 'ctrl-c: exit status (%s)' % err[-1500:])
    check_left_on(fake, d, err, 'ctrl-c')

    # 2. the power-off task outlives task-timeout: the action fails, the
    # shutdown goes on, and the safety layer waits for it before powering on
    fake.reset(time_scale=0.3)
    ini = power_campaign(tmp, fake, tok, 'slow', task_timeout='1s')
    d = os.path.join(tmp, 'slow')
    rc, out, err = N.run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'task-timeout: exit status (%s)' % err[-1500:])
    check('may still finish' in err, 'task-timeout: the action says so: %s' % err[-800:])
    check_left_on(fake, d, err, 'task-timeout')
    N.capture_dir(d)


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


def test_writes(tmp, fake):
    tok = N.token_file(tmp)
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
    N.write(flag, '')
    fake.fault(kind='status', status=500, body=ERR500, method='DELETE', path=SNAPSHOTS + '/fc-b')
    fake.fault(kind='status', status=500, body=ERR500, method='POST', path=SNAPSHOTS)
    n0 = len(fake.requests())
    rc, out, err = N.run(['--resume', d], tmp)
    N.capture_dir(d)
    check_eq(rc, 0, 'lost: the resume ends well (%s)' % err[-2000:])
    reqs = fake.requests()[n0:]
    check_eq(len([r for r in reqs if r['method'] == 'DELETE' and
                  r['path'] == SNAPSHOTS + '/fc-b' and r['status'] == 202]), 1,
             'lost: fc-b was really deleted (the DELETE sent again after the 500)')
    check_eq(len(N.snapshot_posts(reqs, 'fc-c', taken=True)), 1,
             'lost: fc-c was really made (the POST sent again after the 500)')
    check_eq(snapshot_names(fake), [], 'lost: nothing is left on the server')
    m = N.load_manifest(d)
    check(not step(m, 's2', 1).get('result', {}).get('recovered'),
          'lost: the delete is not "recovered" with an old task: %r' % step(m, 's2', 1))
    intents = events(d, 'write-intent')
    check(any(e.get('write') == 'snapshot fc-c' and e.get('at') == {'state': 's2', 'index': 2}
              and e['before'].get('exists') is False
              for e in intents), 'lost: the create was journaled before it was sent')
    outcomes = [e['outcome'] for e in events(d, 'write-outcome')
                if e.get('write') == 'snapshot fc-c']
    check_eq(outcomes, ['unknown', 'accepted'], 'lost: the outcomes of the create')

    # 4. the API accepts the snapshot, then polling its task fails: it is
    # recorded as maybe made, and the resume adopts it
    for how in ('500', 'revoked'):
        fake.reset(lock_window=0)
        name = 'fc-d' + how
        ini = campaign(tmp, fake, tok, 'unknown' + how, (
            '[state s]\nbefore = snapshot %s online\n\n'
            '[state cleanup]\nbefore = delete-snapshot all-created\n') % name)
        d = os.path.join(tmp, 'unknown' + how)
        if how == '500':
            fake.fault(kind='status', status=500, body=ERR500, method='GET', prefix=True,
                       path='/scp-core/api/v1/tasks/', count=5)
            rc, out, err = N.run(['-o', d, ini], tmp)
        else:
            # the first poll waits until the token is revoked
            fake.fault(kind='delay', when='before', seconds=1.5, method='GET', prefix=True,
                       path='/scp-core/api/v1/tasks/')
            p, w = N.start(['-o', d, ini], tmp)
            hit = N.wait_for(lambda: N.snapshot_posts(fake.requests(), name, taken=True), p)
            check(hit, 'revoked: the snapshot was accepted')
            fake.call('/_fake/revoke', {})
            rc, out, err = N.finish(p, w)
        check_eq(rc, 1, '%s: the action fails (%s)' % (how, err[-1000:]))
        m = N.load_manifest(d)
        res = step(m, 's', 0).get('result', {})
        check_eq(res.get('created', 'absent'), None, '%s: created is unknown: %r' % (how, res))
        check_eq(res.get('outcome'), 'unknown', '%s: outcome unknown' % how)
        check_eq(snapshot_names(fake), [name], '%s: the snapshot exists' % how)
        if how == 'revoked':
            # a new login gives the account a new refresh token
            fake.call('/_fake/reset-token', {'refresh_token': N.TOKEN})
        rc, out, err = N.run(['--resume', d], tmp)
        N.capture_dir(d)
        check_eq(rc, 0, '%s: the resume adopts it (%s)' % (how, err[-2000:]))
        m = N.load_manifest(d)
        check_eq(step(m, 's', 0).get('result', {}).get('adopted'), True,
                 '%s: adopted on resume' % how)
        check_eq(snapshot_names(fake), [], '%s: and deleted by all-created' % how)
        check_eq(len(N.snapshot_posts(fake.requests(), name)), 1, '%s: one POST only' % how)

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
    check_eq(step(N.load_manifest(d), 's', 1)['status'], 'skipped', 'skipped: the snapshot')
    someone_else_snapshot(fake, 'fc-f')
    N.write(flag6, '')
    rc, out, err = N.run(['--resume', d], tmp)
    N.capture_dir(d)
    check_eq(rc, 1, 'skipped: the resume refuses (%s)' % err[-2000:])
    check('snapshot "fc-f" will exist already' in err, 'skipped: says why: %s' % err[-1500:])
    check_eq(snapshot_names(fake), ['fc-f'], 'skipped: the other snapshot is left alone')


AREAS = {
    'power': test_power,
    'writes': test_writes,
}


def main():
    area, N.BIN, N.FAKE = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    R.BIN = N.BIN
    base = os.environ.get('FC_BUILDDIR')
    tmp = tempfile.mkdtemp(prefix='fiocamp-safety-%s.' % area, dir=base)
    fake = N.Fake(tmp)
    t0 = time.time()
    rc = 0
    try:
        rc = AREAS[area](tmp, fake)
    finally:
        fake.stop()
        leaks = [what for what, text in N.CAPTURED if N.TOKEN in text]
        check_eq(leaks, [], 'the refresh token appears in')
        failed = N.FAILURES + R.FAILURES
        if not failed:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print('kept', tmp, file=sys.stderr)
    if rc == 77:
        sys.exit(77)
    print('%d checks, %d failed, %.1f s' % (N.CHECKS[0] + R.CHECKS[0], len(failed),
                                           time.time() - t0))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
