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


AREAS = {
    'power': test_power,
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
