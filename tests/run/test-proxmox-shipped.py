#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shipped campaign fio-jobs/proxmox-rollback.ini against the fake Proxmox VE API.

usage: test-proxmox-shipped.py AREA FIOCAMP_RUN FAKE_PVE_PY [FIOCAMP_ANALYZE]

The campaign is the shipped file's text with only what a user fills in
replaced: the target (local), the node's address and fingerprint (the fake's,
over HTTPS), the token file, the payload's path and size (4 MiB instead of
8 GiB), the host of wait-ssh (the fake's SSH port), and poll and retry
intervals that suit the fake's faster clock.  Its states and actions are the
file's own.  The fake's task durations are the published measurement's:
rollback 2 s, vzdump 21 22 21 21 21 s, qmrestore 53 57 69 100 s, in node
seconds at a time scale of 0.005.

Areas: doc (docs/proxmox.md shows the file as it is), e2e (the measurement
end to end; then the plan lists every call the run made, and
fiocamp-analyze's per-action table of the run), faults (a 500, a dropped
connection, a task error, a lock that outlasts its retries), sigint (Ctrl-C
during a restore), interrupts (each restore interrupted and resumed).
Helpers are tests/harness.py's and proxmox_fake.py's.
"""
import hashlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse

import harness as H
import proxmox_fake as R
from harness import check, check_eq
SHIPPED = os.path.join(H.SRCDIR, 'fio-jobs', 'proxmox-rollback.ini')
GUIDE = os.path.join(H.SRCDIR, 'docs', 'proxmox.md')
ANALYZE = None
# real seconds per node second; FC_PVE_TIME_SCALE=1 runs the measurement at
# the node's own speed (about 11 minutes), as docs/proxmox.md section 7 did
SCALE = float(os.environ.get('FC_PVE_TIME_SCALE', '0.005'))
# node seconds: the published measurement's task times; the others the fake's
ROLLBACK_S = [2, 2, 2, 2, 2]
VZDUMP_S = [21, 22, 21, 21, 21]
QMRESTORE_S = [53, 57, 69, 100]
BOOT_S = 22.8
PAYLOAD_BYTES = 4 << 20


def shipped():
    with open(SHIPPED) as f:
        return f.read()


def durations(**kw):
    # the rollback of a running guest stops it inside its task (qmstop, 1 s):
    # the rest of it makes up the measurement's 2 s
    d = {'qmstop': 1, 'qmrollback': [s - 1 for s in ROLLBACK_S], 'vzdump': list(VZDUMP_S),
         'qmrestore': list(QMRESTORE_S)}
    d.update(kw)
    return d


def reset(fake, **kw):
    """The fake's own durations (start 1.5 s, stop 1 s, boot 22.8 s) and the
    measurement's; a running guest named as the campaign says."""
    dur = dict(durations(), **kw.pop('durations', {}))
    cfg = {'time_scale': SCALE, 'node': R.NODE, 'durations': dur, 'boot_delay': BOOT_S,
           'auth_delay': 3,
           'tokens': [{'tokenid': R.TOKENID, 'secret': R.SECRET, 'acl': {'/': R.ALL}}],
           'guests': [{'vmid': R.VMID, 'name': R.NAME, 'status': 'running',
                       'data': 'payload-written'}]}
    cfg.update(kw)
    fake.control('/_fake/reset', cfg)


def sub(text, pattern, repl, count, what, flags=re.M):
    """re.sub that must replace exactly `count` times: a changed shipped file
    fails here, by name, instead of running something else."""
    new, n = re.subn(pattern, repl, text, flags=flags)
    check_eq(n, count, 'the shipped file has %s' % what)
    return new


def fill(tmp, fake, tok, provider_extra=None, name='shipped'):
    """The shipped campaign with what a user fills in filled in for the fake."""
    text = shipped()
    payload = os.path.join(tmp, 'guest', 'fiocamp-payload')
    os.makedirs(os.path.dirname(payload), exist_ok=True)
    text = sub(text, r'^target\s*=.*$', 'target = local\ndirectory = %s\nwait-timeout = 60s'
               % os.path.join(tmp, 'target'), 1, 'one target')
    text = sub(text, r'^api-url\s*=.*$', 'api-url = https://127.0.0.1:%d' % fake.api, 1,
               'one api-url')
    text = sub(text, r'^fingerprint\s*=.*$', 'fingerprint = %s' % fake.fingerprint, 1,
               'one fingerprint')
    text = sub(text, r'^token-file\s*=.*$', 'token-file = %s' % tok, 1, 'one token-file')
    text = sub(text, r'^node\s*=\s*pve1\b', 'node = %s' % R.NODE, 1, 'node pve1')
    text = sub(text, r'^vmid\s*=\s*100\b', 'vmid = %d' % R.VMID, 1, 'vmid 100')
    text = sub(text, r'^vm-name\s*=\s*bench\b', 'vm-name = %s' % R.NAME, 1, 'vm-name bench')
    keys = ['poll-interval = 50ms', 'lock-wait = 100ms', 'retry-wait = 100ms',
            'task-timeout = %ds' % max(60, 150 * SCALE), 'http-timeout = 10s']
    keys += list(provider_extra or [])
    text = sub(text, r'^(allow-destroy\s*=.*)$', r'\1\n' + '\n'.join(keys), 1,
               'one allow-destroy')
    text = sub(text, r'\bpayload /root/fiocamp-payload 8G\b',
               'payload /root/fiocamp-payload %d' % PAYLOAD_BYTES, 1, 'one 8G payload')
    text = sub(text, r'/root/fiocamp-payload\b', payload, 3, 'the payload three times')
    text = sub(text, r'wait-ssh(?=;|\s*$)', 'wait-ssh 127.0.0.1:%d' % fake.ssh, 2,
               'two bare wait-ssh')
    path = os.path.join(tmp, name + '.ini')
    H.write(path, text)
    return path, payload


def sha256(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


# ---- reading the record ---------------------------------------------------------

def state(m, name):
    return R.state_of(m, name)


def reps(m, name):
    return state(m, name).get('repetitions') or []


def act(rep, word):
    """The repetition's action whose text starts with `word`."""
    got = [a for a in rep.get('before', []) if a['text'].split()[0] == word]
    return got[0] if got else {}


def main_seconds(a):
    t = a.get('task') or {}
    return t.get('duration_s')


def upids(x, out=None):
    """Every task UPID anywhere in a JSON value."""
    out = set() if out is None else out
    if isinstance(x, dict):
        for k, v in x.items():
            if k == 'upid' and isinstance(v, str) and v.startswith('UPID:'):
                out.add(v)
            else:
                upids(v, out)
    elif isinstance(x, list):
        for v in x:
            upids(v, out)
    return out


def recorded_tasks(m):
    """UPID -> the task object the manifest records for it (the last one)."""
    found = {}

    def walk(x):
        if isinstance(x, dict):
            if isinstance(x.get('upid'), str) and 'starttime' in x:
                found[x['upid']] = x
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(m)
    return found


def check_honest(fake, d, what):
    """Nothing recorded that did not happen, nothing that happened left out:
    every task the record names ran on the node, with the state, start and end
    the record gives it; every task of the campaign's token the node ran is in
    the manifest or in the safety layer's power-on (after a resume too: the
    attempt that takes over an interrupted one's task keeps what that one
    ran before it); an action recorded done
    after a failed step of its repetition does not exist; a matched hash is
    the file's real sha256."""
    m = H.load_manifest(d)
    ev = H.load_journal(d)
    node_tasks = {t['upid']: t for t in fake.tasks()}
    rec = recorded_tasks(m)
    for upid, t in rec.items():
        n = node_tasks.get(upid)
        if not check(n is not None, '%s: the recorded task %s ran on the node' % (what, upid)):
            continue
        if t.get('state') is not None:
            check_eq(t['state'], n.get('exitstatus'), '%s: the state of %s' % (what, upid))
        check_eq(t.get('starttime'), n.get('starttime'), '%s: starttime of %s' % (what, upid))
        if t.get('endtime') is not None:
            check_eq(t['endtime'], n.get('endtime'), '%s: endtime of %s' % (what, upid))
    safety = set()
    for e in ev:
        if e['event'] == 'ensure-powered-on':
            upids(e, safety)
    ours = {u for u, t in node_tasks.items() if t.get('user') == R.TOKENID or
            R.TOKENID in u}
    check_eq(sorted(ours - set(rec) - safety), [],
             '%s: tasks the node ran that the record leaves out' % what)
    for s in m['states']:
        for rep in s.get('repetitions') or [s]:
            failed = False
            for a in rep.get('before') or []:
                if failed:
                    check(a.get('status') != 'done',
                          '%s: %s rep %s: %r recorded done after a failed step'
                          % (what, s['name'], rep.get('repetition'), a['text']))
                if a.get('status') in ('failed', 'interrupted'):
                    failed = True
                res = a.get('result') or {}
                if a['text'].startswith('verify-hash') and res.get('match') is True:
                    check_eq((res.get('actual'), res.get('expected')),
                             (sha256(res['path']),) * 2,
                             '%s: a matched hash is the file\'s' % what)
            if rep.get('status') == 'skipped':
                done = [x['text'] for x in rep.get('before') or [] if x.get('status') == 'done']
                check_eq(done, [], '%s: %s rep %s skipped, yet done'
                         % (what, s['name'], rep.get('repetition')))
            if failed or rep.get('status') != 'done':
                check(rep.get('data_back_s') is None,
                      '%s: %s rep %s not done: no data back (%r)'
                      % (what, s['name'], rep.get('repetition'), rep.get('data_back_s')))
    return m, ev


# ---- areas ----------------------------------------------------------------------

def test_doc(tmp, fake):
    """docs/proxmox.md shows the shipped file, byte for byte, and has no
    placeholder left."""
    with open(GUIDE) as f:
        guide = f.read()
    head = '### The shipped campaign'
    check(head in guide, 'the guide has its section')
    block = re.search(r'```ini\n(.*?)```', guide[guide.find(head):], re.S)
    check(block is not None, 'an ini block in the section')
    if block:
        text = shipped()
        same = block.group(1) == text
        if not same:
            import difflib
            sys.stderr.write(''.join(difflib.unified_diff(
                text.splitlines(True), block.group(1).splitlines(True),
                'fio-jobs/proxmox-rollback.ini', 'docs/proxmox.md')))
        check(same, 'docs/proxmox.md shows fio-jobs/proxmox-rollback.ini as it is')
    # what the guide left to fill in while it was written
    left = sorted(set(re.findall(r'\b(?:SHIPPED_CAMPAIGN|PREFLIGHT_OUTPUT|COST_MINUTES|'
                                 r'FAKE_WALL|FAKE_TABLE)\b|to be written', guide)))
    check_eq(left, [], 'placeholders left in the guide')


def run_shipped(tmp, fake, name='shipped', provider_extra=None, faults=(), want_rc=0):
    tok = R.token_file(tmp)
    ini, payload = fill(tmp, fake, tok, provider_extra, name)
    for f in faults:
        fake.fault(**f)
    d = os.path.join(tmp, 'camp-' + name)
    t0 = time.time()
    rc, out, err = R.run(['-o', d, ini], tmp, timeout=max(200, 1500 * SCALE))
    wall = time.time() - t0
    check_eq(rc, want_rc, '%s: exit status (stderr: %s)' % (name, err[-3000:]))
    H.capture_dir(d)
    return d, payload, out, err, wall


def test_e2e(tmp, fake):
    """The measurement: task seconds by the node's clock as programmed, every
    hash matched, data back after each rollback and restore, no fio at all."""
    reset(fake)
    d, payload, out, err, wall = run_shipped(tmp, fake)
    m, ev = check_honest(fake, d, 'e2e')
    check_eq(m['status'], 'done', 'campaign status')
    check_eq([(s['name'], s.get('repeat', 1)) for s in m['states']],
             [('setup', 1), ('rollback', 5), ('backup', 5), ('restore', 4)],
             'the states and their repeats')
    setup = state(m, 'setup')
    check_eq([a['status'] for a in setup['before']], ['done'] * 2, 'setup: every action done')
    pl = [a for a in setup['before'] if a['text'].startswith('payload')]
    check(pl and os.path.getsize(payload) == PAYLOAD_BYTES, 'the payload was written')
    want_sha = sha256(payload)
    hashes = [a['result']['sha256'] for a in setup['before']
              if a.get('result', {}).get('sha256')]
    check(hashes and all(h == want_sha for h in hashes), 'setup: the payload\'s sha256 recorded')
    sn = act(setup, 'snapshot')
    check_eq(sn.get('result', {}).get('created'), True, 'setup: the snapshot made')

    for name, n, word, want in (('rollback', 5, 'revert', ROLLBACK_S),
                                ('backup', 5, 'backup', VZDUMP_S),
                                ('restore', 4, 'restore', QMRESTORE_S)):
        s = state(m, name)
        check_eq(s['status'], 'done', '%s: status' % name)
        rr = reps(m, name)
        check_eq([r['repetition'] for r in rr], list(range(1, n + 1)), '%s: repetitions' % name)
        check_eq([main_seconds(act(r, word)) for r in rr], want,
                 '%s: task seconds by the node\'s clock' % name)
        for r in rr:
            k = r['repetition']
            check_eq(r['status'], 'done', '%s rep %d: status' % (name, k))
            check_eq(r.get('rounds'), [], '%s rep %d: no rounds' % (name, k))
            t = act(r, word).get('task') or {}
            check_eq(t.get('clock'), 'node', '%s rep %d: the clock named' % (name, k))
            sw = t.get('stopwatch_s')
            check(isinstance(sw, float) and
                  want[k - 1] * SCALE - 0.01 <= sw <= want[k - 1] * SCALE + 1.5,
                  '%s rep %d: stopwatch %r for %s node seconds' % (name, k, sw, want[k - 1]))
            if name == 'backup':
                check(r.get('data_back_s') is None and r.get('downtime_s') is None,
                      'backup rep %d: the guest was not away' % k)
                continue
            vh = act(r, 'verify-hash').get('result') or {}
            check_eq((vh.get('match'), vh.get('actual')), (True, want_sha),
                     '%s rep %d: the hash matched' % (name, k))
            dt, db = r.get('downtime_s'), r.get('data_back_s')
            # away at least the task, the start and the boot (node seconds, scaled)
            least = (want[k - 1] + 1 + BOOT_S) * SCALE
            check(isinstance(dt, float) and dt >= least, '%s rep %d: downtime %r' % (name, k, dt))
            check(isinstance(db, float) and isinstance(dt, float) and db >= dt,
                  '%s rep %d: data back %r after downtime %r' % (name, k, db, dt))
    # the archives: five, each on the storage, the last one restored four times
    arcs = [act(r, 'backup')['result']['archive']['volid'] for r in reps(m, 'backup')]
    check_eq(len(set(arcs)), 5, 'five distinct archives')
    vols = {v['volid'] for st in fake.state()['storages'] for v in st['volumes']}
    check(set(arcs) <= vols, 'every archive is on the storage')
    check_eq([act(r, 'restore')['result'].get('archive') for r in reps(m, 'restore')],
             [arcs[-1]] * 4, 'each restore restored the last backup')
    # repeated steps' events carry their repetition
    for e in ev:
        if e['event'] in ('action-start', 'action-end') and e.get('state') in (
                'rollback', 'backup', 'restore'):
            check(isinstance(e.get('repetition'), int),
                  'event %s of %s carries its repetition' % (e['event'], e.get('state')))
    for e in ev:
        if e['event'] == 'pve-task' and (e.get('at') or {}).get('state') != 'setup':
            check(isinstance(e['at'].get('repetition'), int),
                  'the task event of %s carries its repetition: %r' % (e['write'], e.get('at')))
    check(not any(e['event'] == 'fio-start' for e in ev), 'no fio ran')
    check(not any(e['event'] == 'ensure-powered-on' for e in ev), 'no safety power-on')
    g = fake.guest()
    check_eq((g['status'], g['lock'], g['snapshots']), ('running', None, []),
             'the guest runs, unlocked, its snapshot gone with the restores')
    check_eq(len(fake.tasks('qmrollback')), 5, 'five rollbacks on the node')
    check_eq(len(fake.tasks('vzdump')), 5, 'five backups on the node')
    check_eq(len(fake.tasks('qmrestore')), 4, 'four restores on the node')
    print('the preflight said:')
    for line in err.splitlines():
        if re.match(r'^\d\d:\d\d:\d\d state 1/', line):
            break
        print('  ' + line)
    print('the shipped campaign against the fake: %.1f s wall at time scale %s' % (wall, SCALE))
    sizes = [act(r, 'backup')['result']['archive']['size_bytes'] for r in reps(m, 'backup')]
    print('  the five archives: %.2f GiB' % (sum(sizes) / 2 ** 30))
    for name, word in (('rollback', 'revert'), ('backup', 'backup'), ('restore', 'restore')):
        for r in reps(m, name):
            a = act(r, word)
            print('  %-8s rep %d  task %3ds (node)  stopwatch %.3fs  downtime %s  data back %s'
                  % (name, r['repetition'], main_seconds(a), a['task']['stopwatch_s'],
                     r.get('downtime_s'), r.get('data_back_s')))
    # the same run's plan, and fiocamp-analyze on it
    check_dryrun(tmp, fake, os.path.join(tmp, 'shipped.ini'))
    check_analyze(d)


def check_guest_running(fake, d, what, safety=True):
    R.check_running_at_end(fake, d, what, safety=safety)


ROLLBACK_PATH = '/nodes/%s/qemu/%d/snapshot/fiocamp-base/rollback' % (R.NODE, R.VMID)


def fault_500(tmp, fake):
    # a 500 on the second rollback, every time it is sent: the rollback never
    # happened, so the guest was never away, and the repetition failed
    reset(fake)
    d, *_ = run_shipped(tmp, fake, 'f500', faults=[dict(
        kind='error', status=500, message='fake: pvedaemon hiccup\n', method='POST',
        path=ROLLBACK_PATH, **{'pass': 1, 'count': 100})], want_rc=1)
    m, ev = check_honest(fake, d, '500')
    rr = reps(m, 'rollback')
    check_eq([r['status'] for r in rr], ['done', 'failed'] + ['skipped'] * 3,
             '500: rep 1 done, rep 2 failed, the others skipped')
    if len(rr) == 5:
        e = act(rr[1], 'revert').get('error', '')
        check('HTTP 500' in e and 'pvedaemon hiccup' in e, '500: the error said: %r' % e)
    check_eq(len(fake.tasks('qmrollback')), 1, '500: one rollback ran')
    check_eq(fake.tasks('vzdump'), [], '500: the campaign stopped there')
    check_guest_running(fake, d, '500')


def fault_drop(tmp, fake):
    # a dropped connection while a restore is polled, twice in a row (libcurl
    # itself sends a request again once when a kept-alive connection turns
    # out closed): asked again, nothing lost
    reset(fake)
    d, *_ = run_shipped(tmp, fake, 'fdrop', faults=[dict(
        kind='drop', when='before', method='GET', count=2,
        path_re=r'/tasks/UPID:[^/]*:qmrestore:[^/]*/status$', **{'pass': 3})])
    m, ev = check_honest(fake, d, 'drop')
    check_eq(m['status'], 'done', 'drop: the campaign done')
    check_eq([main_seconds(act(r, 'restore')) for r in reps(m, 'restore')], QMRESTORE_S,
             'drop: the restores\' task seconds')
    check(any(e['event'] == 'api-retry' and 'qmrestore' in e['path'] for e in ev),
          'drop: the poll was asked again')
    check_eq(len(fake.tasks('qmrestore')), 4, 'drop: four restores, none sent twice')
    check_guest_running(fake, d, 'drop', safety=False)


def fault_start_error(tmp, fake):
    # the start after the third rollback ends in an error: the guest, stopped
    # by the rollback, is started again by the safety layer
    reset(fake)
    d, *_ = run_shipped(tmp, fake, 'fstart', faults=[dict(
        kind='task-error', task='qmstart', message='fake: no bootable disk', **{'pass': 2})],
        want_rc=1)
    m, ev = check_honest(fake, d, 'start error')
    rr = reps(m, 'rollback')
    check_eq([r['status'] for r in rr], ['done', 'done', 'failed', 'skipped', 'skipped'],
             'start error: reps')
    if len(rr) == 5:
        a = act(rr[2], 'revert')
        check('ended: fake: no bootable disk' in a.get('error', ''),
              'start error: said: %r' % a.get('error'))
        check_eq(main_seconds(a), 2, 'start error: the rollback itself timed')
        check(act(rr[2], 'verify-hash').get('status') != 'done', 'start error: no hash after it')
    check_guest_running(fake, d, 'start error')


def fault_rollback_error(tmp, fake):
    # the third rollback's task itself ends in an error: Proxmox leaves the
    # config locked (rollback) over half rolled-back disks.  The guest is not
    # started (a start would be refused anyway), and the message says why and
    # what to do; nothing more is sent after the failed step.
    reset(fake)
    d, p, out, err, wall = run_shipped(tmp, fake, 'frollback', faults=[dict(
        kind='task-error', task='qmrollback', message='fake: lvconvert failed', at=0.5,
        **{'pass': 2})], want_rc=1)
    m, ev = check_honest(fake, d, 'rollback error')
    rr = reps(m, 'rollback')
    check_eq([r['status'] for r in rr], ['done', 'done', 'failed', 'skipped', 'skipped'],
             'rollback error: reps')
    g = fake.guest()
    check_eq((g['status'], g['lock']), ('stopped', 'rollback'),
             'rollback error: as Proxmox left it')
    check('is stopped and locked (rollback), and no task of it runs' in err and
          'qm unlock 100; qm start 100' in err, 'rollback error: said: %s' % err[-1500:])
    check_eq(len(fake.tasks('qmstart')), 2, 'rollback error: no start tried after it')
    pw = [e for e in ev if e['event'] == 'ensure-powered-on']
    check(len(pw) == 1 and pw[0]['status'] == 'failed' and
          pw[0]['result'].get('server_state') == 'stopped',
          'rollback error: the journal says it was left stopped: %r' % pw)


def fault_lock(tmp, fake):
    # a restore refused by the config lock more often than lock-retries allow:
    # the guest was stopped for it, and is started again
    reset(fake)
    d, *_ = run_shipped(tmp, fake, 'flock', provider_extra=['lock-retries = 2'], faults=[
        dict(kind='task-lock-timeout', task='qmrestore', count=3, **{'pass': 1})], want_rc=1)
    m, ev = check_honest(fake, d, 'lock')
    rr = reps(m, 'restore')
    check_eq([r['status'] for r in rr], ['done', 'failed', 'skipped', 'skipped'],
             'lock: restore reps')
    if len(rr) == 4:
        a = act(rr[1], 'restore')
        check('got timeout' in a.get('error', ''), 'lock: said: %r' % a.get('error'))
        check_eq(a.get('result', {}).get('lock_retries'), 2, 'lock: two retries recorded')
    check_eq(len([e for e in ev if e['event'] == 'lock-retry']), 2, 'lock: two lock-retry events')
    check_guest_running(fake, d, 'lock')


def test_faults(tmp, fake):
    """Faults aimed at the shipped campaign's steps: the guest is running at
    the end, and the record holds only what happened.  The cases run on
    three threads, each with a fake node and a directory of its own."""
    cases = [fault_500, fault_drop, fault_start_error, fault_rollback_error, fault_lock]
    H.in_parallel(tmp, fake, cases, lambda wtmp, wfake, case: case(wtmp, wfake), R.Fake)


def test_sigint(tmp, fake):
    """Ctrl-C while the second restore runs: the restore's task is waited for,
    the guest started and answering SSH; the repetition interrupted, no hash
    recorded for it, and --resume finishes the campaign."""
    reset(fake)
    # the second restore's task is held on the node until the power-on waits
    # for it: the Ctrl-C comes while it runs, however loaded the machine
    fake.fault(kind='task-hold', task='qmrestore', after={'type': 'qmrestore', 'count': 1})
    tok = R.token_file(tmp)
    ini, payload = fill(tmp, fake, tok)
    d = os.path.join(tmp, 'camp-sigint')
    p, w = R.start(['-o', d, ini], tmp)

    def second_restore():
        try:
            ev = H.load_journal(d)
        except (OSError, ValueError):  # not there yet, or a line half written
            return None
        return [e['upid'] for e in ev
                if e['event'] == 'pve-task' and e.get('type') == 'qmrestore'][1:]
    upid = H.wait_for(second_restore, p, timeout=120)
    check(upid, 'sigint: the second restore started')

    def polled(**match):
        return H.journal_has(d, lambda e: e['event'] == 'api-call' and
                             upid[0] in urllib.parse.unquote(e.get('path', '')) and
                             all(e.get(x) == v for x, v in match.items()))
    check(H.wait_for(polled, p), 'sigint: the second restore is polled')
    check_eq([t['upid'] for t in R.held(fake, 'qmrestore')], upid[:1],
             'sigint: the second restore runs (held) when Ctrl-C comes')
    p.send_signal(signal.SIGINT)
    check(H.wait_for(lambda: polled(during='ensure-powered-on'), p),
          'sigint: the safety power-on waits for it')
    R.release(fake, 'qmrestore')
    rc, out, err = R.finish(p, w)
    check_eq(rc, 130, 'sigint: exit status (%s)' % err[-1500:])
    H.capture_dir(d)
    m, ev = check_honest(fake, d, 'sigint')
    check_guest_running(fake, d, 'sigint')
    rr = reps(m, 'restore')
    check_eq([r['status'] for r in rr][:2], ['done', 'interrupted'], 'sigint: restore reps')
    if len(rr) >= 2:
        check(act(rr[1], 'verify-hash').get('status') != 'done', 'sigint: no hash after it')
    pw = [e for e in ev if e['event'] == 'ensure-powered-on']
    if pw and upid:
        waited = pw[0]['result'].get('waited_for', [])
        check([x['id'] for x in waited][:1] == [upid[0]],
              'sigint: the power-on waited for the restore first: %r' % waited)
    check('the server is running again and answers SSH' in err, 'sigint: says so')
    rc, out, err = R.run(['--resume', d], tmp)
    check_eq(rc, 0, 'sigint: the resume (%s)' % err[-2000:])
    H.capture_dir(d)
    m, ev = check_honest(fake, d, 'sigint resume')
    check_eq(m['status'], 'done', 'sigint: done after the resume')
    check_eq([r['status'] for r in reps(m, 'restore')], ['done'] * 4, 'sigint: four restores')
    # the resumed repetition took the interrupted restore's task over, and its
    # record keeps the stop that came before it; the guest was started by the
    # safety power-on, so the restore sends no start of its own
    a = act(reps(m, 'restore')[1], 'restore')
    tasks = a.get('tasks') or []
    check_eq([(x['name'], x.get('adopted', False)) for x in tasks],
             [('qmstop', False), ('qmrestore', True)],
             'sigint: the resumed restore\'s tasks')
    check_eq((a.get('task') or {}).get('name'), 'qmrestore', 'sigint: its task is the qmrestore')
    check_eq(a.get('result', {}).get('guest_state'), 'running', 'sigint: the guest runs after it')
    check_eq(len(fake.tasks('qmrestore')), 4, 'sigint: four restores on the node, none again')
    check_guest_running(fake, d, 'sigint resume')


def check_dryrun(tmp, fake, ini):
    """--dry-run of the shipped campaign lists every call its run (just
    made, with `ini`) made."""
    reqs = fake.requests()
    made = {R.normalize(r['method'], r['path'] + ('?' + r['query'] if r['query'] else ''))
            for r in reqs}
    tok = os.path.join(tmp, 'pve.token')
    os.rename(tok, tok + '.gone')
    rc, out, err = R.run(['--dry-run', ini], tmp)
    os.rename(tok + '.gone', tok)
    check_eq(rc, 0, 'the dry run (%s)' % err)
    check_eq(len(fake.requests()), len(reqs), 'the dry run sent nothing')
    listed = set()
    for mm in re.finditer(r'\b(GET|POST|DELETE) (/\S+)', out):
        listed.add(R.normalize(mm.group(1), mm.group(2).rstrip(':,)')))
    check_eq(sorted(c for c in made if c not in listed), [],
             'every call of the run is in the dry run')
    H.CAPTURED.append(('dry run', out + err))
    # and the shipped file as it is, unfilled: valid, its plan complete
    rc, out, err = R.run(['--dry-run', SHIPPED], tmp, {'HOME': tmp})
    check_eq(rc, 0, 'the shipped file\'s own dry run (%s)' % err)
    for want in ('POST /nodes/pve1/qemu/100/snapshot/fiocamp-base/rollback',
                 'POST /nodes/pve1/vzdump', 'POST /nodes/pve1/qemu '):
        check(want in out, 'the shipped plan has %s' % want)
    print('dry run: %d distinct calls of the run, all listed' % len(made))


def check_analyze(d):
    """fiocamp-analyze on the measurement's directory d: a campaign of only
    transitions analyzes cleanly, every hash matched; with the per-action
    table, the article's table with the task seconds."""
    r = subprocess.run([ANALYZE, '--table', d], capture_output=True, text=True)
    check_eq(r.returncode, 0, 'fiocamp-analyze (%s)' % r.stderr[-1500:])
    out = r.stdout
    H.CAPTURED.append(('fiocamp-analyze', out + r.stderr))
    for n in (5, 4):
        check(re.search(r'matched \(%d of %d\)|\b%d of %d matched' % (n, n, n, n), out),
              '%d of %d hashes matched:\n%s' % (n, n, out[-3000:]))
    check('mismatch' not in out and 'differs' not in out, 'no hash differs')
    # each action's task seconds over the repetitions, then their median
    for each, median in (('2 2 2 2 2', 2), ('21 22 21 21 21', 21), ('53 57 69 100', 63)):
        want = r'\b%s\b[^\n]*\b%d\b' % (r',? '.join(each.split()), median)
        check(re.search(want, out), 'the table has %s, median %d:\n%s'
              % (each, median, out[-3000:]))
    # the article's table, as --markdown writes it (shown in the test's log)
    md = subprocess.run([ANALYZE, '--markdown', d], capture_output=True, text=True)
    check_eq(md.returncode, 0, 'fiocamp-analyze --markdown (%s)' % md.stderr[-1500:])
    rows = [l for l in md.stdout.splitlines() if l.startswith('| ')]
    check(any('qmrestore' in l and '53, 57, 69, 100 (median 63' in l for l in rows),
          'the Markdown table has the restores:\n%s' % md.stdout[-3000:])
    print('\n'.join(rows[:8]))


def test_interrupts(tmp, fake):
    """The shipped campaign interrupted in each of its four restores and
    resumed each time: SIGINT, SIGTERM and kill -9, at the restore's stop,
    at its qmrestore and at its start (one campaign per sub-step, the
    signals in turn).  Each interrupted task is held on the node until the
    controller waits for it (the safety power-on; after kill -9 the
    resume).  Every campaign ends with four real restores on the node, each
    hash matched, and the interrupted transitions' timings marked as cut.
    The three campaigns run on three fake nodes at once."""
    plan = {'qmstop': ['SIGINT', 'SIGTERM', 'SIGKILL', 'SIGINT'],
            'qmrestore': ['SIGTERM', 'SIGKILL', 'SIGINT', 'SIGTERM'],
            'qmstart': ['SIGKILL', 'SIGINT', 'SIGTERM', 'SIGKILL']}

    def one(tmp, fake, case):
        sub, sigs = case
        tok = R.token_file(tmp)
        reset(fake)
        # restore k's stop and its qmrestore come after k-1 qmrestores, its
        # start after k (the rollbacks' starts and the safety's come earlier)
        for k in range(1, 5):
            fake.fault(kind='task-hold', task=sub,
                       after={'type': 'qmrestore', 'count': k if sub == 'qmstart' else k - 1})
        ini, payload = fill(tmp, fake, tok, name='int-' + sub)
        d = os.path.join(tmp, 'camp-int-' + sub)
        session = 1
        p, w = R.start(['-o', d, ini], tmp)
        for k, sname in enumerate(sigs, 1):
            what = '%s of restore %d, %s' % (sub, k, sname)

            def held_one():
                h = R.held(fake, sub)
                return h and H.journal_has(d, lambda e: e['event'] == 'pve-task' and
                                           e.get('upid') == h[0]['upid']) and h[0]['upid']
            upid = H.wait_for(held_one, p, timeout=240)
            check(upid, '%s: held' % what)
            if not upid:
                break

            def polled(**match):
                return H.journal_has(d, lambda e: e['event'] == 'api-call' and
                                     upid in urllib.parse.unquote(e.get('path', '')) and
                                     all(e.get(x) == v for x, v in match.items()))
            if sname == 'SIGKILL':
                os.kill(p.pid, signal.SIGKILL)
                R.finish(p, w)
                session += 1
                p, w = R.start(['--resume', d], tmp)
                check(H.wait_for(lambda: polled(session=session), p),
                      '%s: the resume waits for it' % what)
                R.release(fake, sub)
                continue
            p.send_signal(R.SIGNALS[sname])
            check(H.wait_for(lambda: polled(during='ensure-powered-on'), p),
                  '%s: the safety power-on waits for it' % what)
            R.release(fake, sub)
            rc, out, err = R.finish(p, w, timeout=300)
            check_eq(rc, 130, '%s: interrupted (%s)' % (what, err[-1500:]))
            check('the server is running again and answers SSH' in err,
                  '%s: says so: %s' % (what, err[-800:]))
            session += 1
            p, w = R.start(['--resume', d], tmp)
        rc, out, err = R.finish(p, w, timeout=600)
        H.capture_dir(d)
        check_eq(rc, 0, '%s: the last session ends the campaign (%s)' % (sub, err[-2500:]))
        m, ev = check_honest(fake, d, sub)
        check_eq(m['status'], 'done', '%s: campaign done' % sub)
        check_eq(len(fake.tasks('qmrestore')), 4, '%s: four real restores on the node' % sub)
        rr = reps(m, 'restore')
        secs = [main_seconds(act(r, 'restore')) for r in rr]
        if sub == 'qmrestore':
            # held on the node while the signal came: longer by the hold
            check(len(secs) == 4 and all(isinstance(x, int) and x >= w
                                         for x, w in zip(secs, QMRESTORE_S)),
                  '%s: each restore\'s own task, by the node\'s clock: %r' % (sub, secs))
        else:
            check_eq(secs, QMRESTORE_S, '%s: each restore\'s own task, by the node\'s clock'
                     % sub)
        check_eq([(act(r, 'restore').get('task') or {}).get('name') for r in rr],
                 ['qmrestore'] * 4, '%s: each step\'s task is its qmrestore' % sub)
        check_eq([r.get('downtime_cut') for r in rr], [True] * 4,
                 '%s: the interrupted downtimes are marked cut' % sub)
        check_eq([r.get('data_back_cut') for r in rr], [True] * 4,
                 '%s: and so are their data back times' % sub)
        check_eq([act(r, 'verify-hash').get('result', {}).get('match') for r in rr],
                 [True] * 4, '%s: every hash matched' % sub)
        check_eq(fake.guest()['snapshots'], [], '%s: the restores removed the snapshot' % sub)
        check_guest_running(fake, d, sub, safety=False)
        if ANALYZE:
            r = subprocess.run([ANALYZE, '--table', d], capture_output=True, text=True)
            check_eq(r.returncode, 0, '%s: fiocamp-analyze (%s)' % (sub, r.stderr[-1500:]))
            H.CAPTURED.append(('fiocamp-analyze ' + sub, r.stdout + r.stderr))
            check(re.search(r'matched \(4 of 4\)|\b4 of 4 matched', r.stdout),
                  '%s: 4 of 4 matched:\n%s' % (sub, r.stdout[-3000:]))
        print('%s: %d sessions, %d qmrestore tasks on the node' %
              (sub, session, len(fake.tasks('qmrestore'))))

    H.in_parallel(tmp, fake, list(plan.items()), one, R.Fake)


AREAS = {'doc': test_doc, 'e2e': test_e2e, 'faults': test_faults, 'sigint': test_sigint,
         'interrupts': test_interrupts}


def main():
    global ANALYZE
    area = sys.argv[1]
    H.BIN, R.FAKE = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    R.SCALE = SCALE
    ANALYZE = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else None
    if area == 'doc':
        test_doc(None, None)
        sys.exit(H.summary())
    t0 = time.time()
    with H.scratch('fiocamp-shipped-%s.' % area) as tmp:
        fake = R.Fake(tmp)
        try:
            AREAS[area](tmp, fake)
        finally:
            fake.stop()
            leaks = sorted({what for what, text in H.CAPTURED if R.SECRET in text})
            check_eq(leaks, [], 'the token secret appears in')
    sys.exit(H.summary(', %d things searched for the token, %.1f s'
                       % (len(H.CAPTURED), time.time() - t0)))


if __name__ == '__main__':
    main()
