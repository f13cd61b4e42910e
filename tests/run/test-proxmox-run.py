#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-run with the proxmox provider, end to end against the fake Proxmox VE API.

usage: test-proxmox-run.py AREA FIOCAMP_RUN FAKE_PVE_PY

Real fio on an 8 MiB local file with 1 s runtimes (target local); the fake
node (tests/fake-pve) on 127.0.0.1 over HTTPS with a certificate made at its
start, trusted by its pinned fingerprint, with a small --time-scale; and
`wait-ssh 127.0.0.1:PORT` pointed at its SSH port, which answers only while
the guest runs and has booted.  Each AREA is its own meson test; stdlib only.

Every run uses a fresh random token secret, and every area ends by searching
everything it captured for it: stdout, stderr, every file of the campaign
directories, the fake's request log, and the command lines (and the
environments of the children) of the processes it saw while they ran.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid

import harness as H
import proxmox_fake as PF
from harness import (capture_dir, check, check_eq, journal_has, load_journal, load_manifest,
                     wait_for, write)
from proxmox_fake import (BOOT, DURATIONS, Fake, NAME, NODE, SCALE, SECRET, SIGNALS, TOKEN,
                          TOKENID, VMID, action, campaign, check_running_at_end, finish, held,
                          normalize, posts, release, run, start, state_of, token_file, writes)


# ---- areas --------------------------------------------------------------------

def test_e2e(tmp, fake):
    """Every action, over HTTPS with the pinned fingerprint; the tasks' seconds by
    the node's clock are the fake's programmed durations."""
    fake.reset()
    tok = token_file(tmp)
    ini = campaign(tmp, fake, 'e2e', [
        ('basis', ''),
        ('snap', 'power-off; snapshot s1; power-on; WAIT; snapshot s2 vmstate'),
        ('rollback', 'revert s1; WAIT'),
        ('ram', 'revert s2; WAIT'),
        ('backup', 'backup storage local mode snapshot compress zstd'),
        ('restore', 'restore last-backup; WAIT'),
        ('again', 'snapshot s3; power-off hard; power-on; WAIT'),
        ('cleanup', 'delete-snapshot all-created; reboot; WAIT'),
    ], tok=tok)
    d = os.path.join(tmp, 'camp')
    t0 = time.time()
    rc, out, err = run(['-o', d, ini], tmp)
    wall = time.time() - t0
    check_eq(rc, 0, 'exit status (stderr: %s)' % err[-3000:])
    capture_dir(d)
    m = load_manifest(d)
    check_eq(m['status'], 'done', 'campaign status')
    for s in m['states']:
        check_eq(s['status'], 'done', 'state %s' % s['name'])
        for a in s['before']:
            check_eq(a['status'], 'done', '%s: %s' % (s['name'], a['text']))

    def seconds(state, text, want, what):
        a = action(m, state, text)
        t = a.get('task') or {}
        check_eq(t.get('duration_s'), want, '%s: task seconds by the node\'s clock' % what)
        check_eq(t.get('clock'), 'node', '%s: the clock named' % what)
        check(t.get('endtime', 0) - t.get('starttime', 0) == t.get('duration_s'),
              '%s: endtime - starttime' % what)
        sw = t.get('stopwatch_s')
        # our stopwatch: the real time the fake took, plus at most a poll and the calls
        check(isinstance(sw, float) and want * SCALE - 0.01 <= sw <= want * SCALE + 1.0,
              '%s: stopwatch %r for %s node seconds at scale %s' % (what, sw, want, SCALE))
        check(re.match(r'^UPID:%s:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:%s:%d:%s:$' % (
            NODE, t.get('name'), VMID, re.escape(TOKENID)), t.get('upid', '')) is not None,
            '%s: a real UPID %r' % (what, t.get('upid')))
        return a

    seconds('snap', 'power-off', DURATIONS['qmshutdown'], 'power-off (ACPI)')
    s1 = seconds('snap', 'snapshot s1', DURATIONS['qmsnapshot'], 'snapshot s1')
    check_eq(s1['result'].get('created'), True, 'snapshot s1 created')
    check_eq(s1['result'].get('vmstate'), False, 'snapshot s1 without RAM')
    seconds('snap', 'power-on', DURATIONS['qmstart'], 'power-on')
    s2 = seconds('snap', 'snapshot s2 vmstate', DURATIONS['qmsnapshot'] + DURATIONS['vmstate'],
                 'snapshot s2 with RAM')
    check_eq(s2['result'].get('vmstate'), True, 'snapshot s2 holds RAM')
    # a rollback of a running guest: its hard stop is inside the task
    rb = seconds('rollback', 'revert s1', DURATIONS['qmstop'] + DURATIONS['qmrollback'],
                 'rollback to s1')
    check_eq(rb['result'].get('started_by'), 'start', 'no RAM: started in a task of its own')
    roles = [(t['name'], t['role']) for t in rb.get('tasks', [])]
    check_eq(roles, [('qmrollback', 'main'), ('qmstart', 'start')], 'rollback, then start')
    if len(rb.get('tasks', [])) == 2:
        check_eq(rb['tasks'][1]['duration_s'], DURATIONS['qmstart'], 'the start timed apart')
    ram = seconds('ram', 'revert s2', DURATIONS['qmstop'] + DURATIONS['qmrollback'] +
                  DURATIONS['qmstart'], 'rollback to s2 (RAM: started inside the task)')
    check_eq(ram['result'].get('started_by'), 'rollback', 'RAM state: the rollback starts it')
    check_eq(ram.get('tasks'), None, 'one task for a rollback to RAM state')
    bk = seconds('backup', 'backup storage local mode snapshot compress zstd',
                 DURATIONS['vzdump'], 'vzdump')
    arc = bk['result'].get('archive') or {}
    vols = [v for st in fake.state()['storages'] for v in st['volumes']]
    mine = [v for v in vols if v['volid'] == arc.get('volid')]
    check_eq(len(mine), 1, 'the archive %r is on the storage' % arc.get('volid'))
    if mine:
        check_eq(arc.get('size_bytes'), mine[0]['size'], 'archive size from the listing')
        check(arc['volid'].startswith('local:backup/vzdump-qemu-100-') and
              arc['volid'].endswith('.vma.zst'), 'archive name %r' % arc['volid'])
    log = bk['result'].get('vzdump_log') or {}
    check_eq(log.get('transferred_bytes'), 20 * 1024 ** 3, 'transferred, from the log')
    check_eq(log.get('transfer_s'), float(int(DURATIONS['vzdump'] * 0.9)),
             'transfer seconds, from the log')
    check_eq(log.get('waited_for_global_lock'), False, 'no other backup ran')
    check(bk['task'].get('warnings') == 0, 'vzdump without warnings')
    rs = seconds('restore', 'restore last-backup', DURATIONS['qmrestore'][0], 'qmrestore')
    check_eq(rs['result'].get('archive'), arc.get('volid'), 'restored the campaign\'s archive')
    check_eq(sorted(rs['result'].get('snapshots_before', [])), ['s1', 's2'],
             'the snapshots before the restore')
    check_eq(rs['result'].get('snapshots_after'), [], 'none after it')
    check_eq(sorted(rs['result'].get('campaign_snapshots_removed', [])), ['s1', 's2'],
             'the campaign forgets its snapshots')
    check_eq([(t['name'], t['role']) for t in rs.get('tasks', [])],
             [('qmstop', 'stop'), ('qmrestore', 'main'), ('qmstart', 'start')],
             'stop, restore, start')
    seconds('again', 'power-off hard', DURATIONS['qmstop'], 'power-off hard')
    dl = action(m, 'cleanup', 'delete-snapshot all-created')
    check_eq(dl['result'].get('deleted'), ['s3'], 'all-created: only what is still the campaign\'s')
    seconds('cleanup', 'reboot', DURATIONS['qmreboot'], 'reboot (its shutdown half)')
    # downtime where something took the guest away, measured to the banner
    for st in ('snap', 'rollback', 'restore', 'again', 'cleanup'):
        dt = state_of(m, st).get('downtime_s')
        check(isinstance(dt, float) and dt > BOOT * SCALE, '%s: downtime %r' % (st, dt))
    # the fake's view
    g = fake.guest()
    check_eq(g['status'], 'running', 'the guest runs at the end')
    check_eq(g['snapshots'], [], 'no snapshot left')
    check_eq(g['data'], 'data-0', 'the restored disks hold the backed-up data')
    reqs = fake.requests()
    check(all(r.get('auth') == 'ok' for r in reqs), 'every request had the token')
    check(not any(r['method'] in ('GET', 'DELETE') and r['body'] for r in reqs),
          'no body on GET or DELETE')
    for r in writes(reqs):
        if r['method'] == 'POST':
            check_eq(r['headers'].get('content-type'), 'application/x-www-form-urlencoded',
                     'Content-Type of POST %s' % r['path'])
    check_eq(len(posts(reqs, '/snapshot')), 3, 'three snapshots sent, each once')
    check_eq(len(posts(reqs, '/vzdump')), 1, 'one vzdump sent')
    vz = posts(reqs, '/vzdump')
    if vz:
        form = urllib.parse.parse_qs(vz[0]['body'])
        check_eq(form.get('remove'), ['0'], 'vzdump never prunes')
    conns = fake.connections()['connections']
    check(all(c['tls'] and c['handshake'] == 'ok' for c in conns), 'every connection TLS')
    ev = load_journal(d)
    calls = [e for e in ev if e['event'] == 'api-call']
    check_eq(len(calls), len(reqs), 'one api-call event per request the fake saw')
    pw = [e for e in ev if e['event'] == 'write-intent']
    check_eq(len(pw), len(writes(reqs)), 'the task ids before every write are journaled')
    check(all(isinstance(e.get('before', {}).get('tasks'), list) for e in pw),
          'before.tasks in each write-intent event')
    # the ids were journaled before their write was sent, the outcome after it
    order = [e['event'] for e in ev if e['event'] in ('write-intent', 'write-outcome')]
    check_eq(order, ['write-intent', 'write-outcome'] * len(pw), 'intent, then outcome')
    acc = [e for e in ev if e['event'] == 'write-outcome']
    check(all(e['outcome'] == 'accepted' for e in acc), 'every write accepted')
    started = [e for e in ev if e['event'] == 'pve-task']
    check_eq([e['write'] for e in started], [e['write'] for e in acc],
             'a pve-task event names the task of each accepted write')
    check(all(e['upid'].startswith('UPID:') for e in started), 'each with its UPID')
    check(not any(e['event'] == 'ensure-powered-on' for e in ev), 'no safety power-on')
    print('e2e against the fake: %.1f s wall, %d API requests, %d connections'
          % (wall, len(reqs), len(conns)))
    for s in m['states']:
        for a in s['before']:
            if a.get('task'):
                print('  %-10s %-48s task %3ds (node clock)  stopwatch %.3fs  action %.3fs'
                      % (s['name'], a['text'], a['task']['duration_s'],
                         a['task']['stopwatch_s'], a['duration_s']))


def test_tls(tmp, fake):
    """A wrong pin: the handshake ends before anything is sent, never retried;
    the CA file works; no trust at all fails the same way as a wrong pin."""
    fake.reset()
    tok = token_file(tmp)
    states = [('basis', 'power-on')]
    wrong = ':'.join(['AB'] * 32)
    for what, trust in (('wrong pin', wrong), ('no trust', None)):
        fake.control('/_fake/reset', dict(keep_connections=False, time_scale=SCALE,
                                          node=NODE, guests=[{'vmid': VMID, 'name': NAME}],
                                          tokens=[{'tokenid': TOKENID, 'secret': SECRET}]))
        ini = campaign(tmp, fake, 'tls', states, tok=tok, trust=trust)
        d = os.path.join(tmp, 'camp-%s' % what.replace(' ', '-'))
        rc, out, err = run(['-o', d, ini], tmp)
        check_eq(rc, 1, '%s: exit status' % what)
        if trust:
            check('not the pinned one' in err and fake.fingerprint in err,
                  '%s: the message names what the node showed: %s' % (what, err[-600:]))
        else:
            check('certificate' in err, '%s: the message says certificate: %s'
                  % (what, err[-600:]))
        c = fake.connections()
        check_eq(c['auth_headers_seen'], 0, '%s: no Authorization header arrived' % what)
        check_eq(len(fake.requests()), 0, '%s: no request arrived' % what)
        check_eq(len(c['connections']), 1, '%s: one connection, not retried' % what)
        check(all(x['handshake'] and x['handshake'].startswith('failed')
                  for x in c['connections']), '%s: the handshake failed' % what)
        check_eq(fake.guest()['status'], 'running', '%s: nothing changed' % what)
        capture_dir(d)
    # the cluster's CA file instead of the pin
    fake.reset(guest={'status': 'stopped'})
    ini = campaign(tmp, fake, 'ca', states, tok=tok, trust='ca')
    d = os.path.join(tmp, 'camp-ca')
    rc, out, err = run(['-o', d, ini], tmp)
    check_eq(rc, 0, 'ca-file: exit status (%s)' % err[-2000:])
    check_eq(fake.guest()['status'], 'running', 'ca-file: powered on')
    capture_dir(d)
    # checked while the file is read
    bad = [('api-url = http://192.0.2.1:8006', 'plain http is accepted only for loopback'),
           ('fingerprint = 12:34', 'is not a SHA-256 fingerprint'),
           ('api-url = https://pve:8006/elsewhere', 'is not the node\'s address')]
    for line, want in bad:
        text = open(ini).read()
        key = line.split(' = ')[0]
        text = re.sub(r'^%s = .*$' % key, line, text, flags=re.M) if re.search(
            r'^%s = ' % key, text, re.M) else text.replace('[provider]\n', '[provider]\n%s\n' % line)
        path = os.path.join(tmp, 'bad.ini')
        write(path, text)
        rc, out, err = run(['--dry-run', path], tmp)
        check_eq(rc, 2, '%s: usage error' % line)
        check(want in err and 'bad.ini:' in err, '%s: %s' % (line, err[-400:]))


W = 'WAIT'  # in a state's actions: the fake's wait-ssh (campaign())


def faults_runner(tmp, fake, tok):
    """one(name, faults, states, want_rc, reset): the campaign of states
    run against the fake with faults; (directory, manifest, journal, the
    fake's requests, stderr)."""
    def one(name, faults, states, want_rc=0, reset=None):
        fake.reset(**(reset or {}))
        for f in faults:
            fake.fault(**f)
        ini = campaign(tmp, fake, name, states, tok=tok, extra='')
        d = os.path.join(tmp, 'camp-' + name)
        rc, out, err = run(['-o', d, ini], tmp)
        check_eq(rc, want_rc, '%s: exit status (stderr: %s)' % (name, err[-2500:]))
        capture_dir(d)
        return d, load_manifest(d), load_journal(d), fake.requests(), err
    return one



def faults_warnings(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # task warnings: success, the count and the WARN lines recorded
    d, m, ev, reqs, err = one('warnings', [dict(kind='task-warnings', task='qmsnapshot',
                                               warnings=['disk almost full', 'slow'])],
                              [('s', 'snapshot w1')])
    t = action(m, 's', 'snapshot w1').get('task', {})
    check_eq(t.get('state'), 'WARNINGS: 2', 'warnings: the exit status')
    check_eq(t.get('warnings'), 2, 'warnings: the count')
    check_eq(t.get('warn_lines'), ['WARN: disk almost full', 'WARN: slow'], 'the WARN lines')


def faults_task_error(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # a task error after a take-down: the log's end in the message, the guest
    # started again
    d, m, ev, reqs, err = one('task-error', [dict(kind='task-error', task='qmrestore',
                                                 message='fake: no space left on device')],
                              [('b', 'backup'), ('r', 'restore last-backup; %s' % W)],
                              want_rc=1)
    a = action(m, 'r', 'restore last-backup')
    e = a.get('error', '')
    check_eq(a['status'], 'failed', 'task error: the action failed')
    check('ended: fake: no space left on device' in e, 'task error: the exit status: %r' % e)
    # the last lines of its log, read from its end (the log has over 100)
    check('its log ends:' in e and 'error before or during data restore' in e,
          'task error: the log\'s end: %r' % e)
    check(not any('log?start=0&limit=500' in r['path'] + '?' + r['query'] and
                  'qmrestore' in r['path'] for r in reqs),
          'task error: the log not read from its first page')
    check_eq(a.get('task', {}).get('state'), 'fake: no space left on device',
             'task error: recorded as the task\'s state')
    # a half-restored guest carries Proxmox's placeholder configuration: it is
    # not vm-name any more, so it is not booted, and the message says why
    check('left stopped' in err and 'placeholder configuration' in err,
          'failed restore: not booted, said: %s' % err[-1200:])
    check_eq(fake.guest()['status'], 'stopped', 'failed restore: the guest stays stopped')


def faults_start_error(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # a task error after a take-down: the guest is started again
    d, m, ev, reqs, err = one('start-error', [dict(kind='task-error', task='qmstart',
                                                  message='fake: no bootable disk')],
                              [('s', 'power-off; power-on; %s' % W)], want_rc=1)
    a = action(m, 's', 'power-on')
    check('ended: fake: no bootable disk' in a.get('error', ''), 'start error: %r' % a)
    check_running_at_end(fake, d, 'task error')


def faults_rollback_error(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # a rollback task that fails leaves the config locked (rollback) over half
    # rolled-back disks: the guest is not started, and the message says why
    d, m, ev, reqs, err = one('rollback-error', [dict(kind='task-error', task='qmrollback',
                                                     message='fake: lvconvert failed', at=0.5)],
                              [('s', 'snapshot e1'), ('r', 'revert e1; %s' % W)], want_rc=1)
    check('is stopped and locked (rollback), and no task of it runs' in err and
          'qm unlock 100; qm start 100' in err, 'rollback error: said: %s' % err[-1200:])
    check("in the provider's panel" not in err and 'it was left stopped' in err,
          'rollback error: no advice to power it on beside the advice not to: %s' % err[-1200:])
    check_eq((fake.guest()['status'], fake.guest()['lock']), ('stopped', 'rollback'),
             'rollback error: left as Proxmox left it')
    check_eq(fake.tasks('qmstart'), [], 'rollback error: no start refused by the lock')


def faults_lock_timeouts(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # lock timeouts: the synchronous 500 and the task's, each sent again
    d, m, ev, reqs, err = one('locks', [
        dict(kind='lock-timeout', method='POST', path='/nodes/pve1/qemu/100/snapshot'),
        dict(kind='task-lock-timeout', task='qmstart')],
        [('s', 'snapshot l1; power-off; power-on; %s' % W)])
    retries = [e for e in ev if e['event'] == 'api-retry' and e['reason'] == 'lock-timeout']
    check_eq(len(retries), 1, 'the 500 lock timeout retried once')
    lr = [e for e in ev if e['event'] == 'lock-retry']
    check_eq(len(lr), 1, 'the task lock timeout retried once')
    if lr:
        check('got timeout' in lr[0]['exitstatus'], 'lock-retry: %r' % lr[0])
    po = action(m, 's', 'power-on')
    check_eq(po['result'].get('lock_retries'), 1, 'power-on: one lock retry recorded')
    check_eq([x['state'] for x in po.get('tasks', [])][:1], [
        "can't lock file '/var/lock/qemu-server/lock-100.conf' - got timeout"],
        'the refused task is recorded')
    check_eq(len(fake.tasks('qmsnapshot')), 1, 'one snapshot task')
    check_eq(fake.guest()['status'], 'running', 'locks: the guest runs')


def faults_http(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # 500s and dropped connections aimed at single requests
    d, m, ev, reqs, err = one('drops', [
        dict(kind='error', status=500, message='fake: pvedaemon hiccup\n', method='POST',
             path='/nodes/pve1/qemu/100/status/start'),
        dict(kind='drop', when='after', method='POST', path='/nodes/pve1/qemu/100/snapshot'),
        dict(kind='drop', when='before', method='GET', path_re=r'/tasks/UPID.*/status$',
             **{'pass': 2}),
        dict(kind='daemon', status=596, reason='Connection timed out', seconds=0.5,
             executed=True, method='POST', path='/nodes/pve1/qemu/100/snapshot/d1/rollback'),
    ], [('s', 'power-off; snapshot d1; power-on; %s' % W), ('r', 'revert d1; %s' % W)])
    check_eq(len(fake.tasks('qmsnapshot')), 1, 'drops: the snapshot sent once, its task found')
    check_eq(len(fake.tasks('qmrollback')), 1, 'drops: one rollback (596, executed)')
    sn = action(m, 's', 'snapshot d1')
    check_eq(sn['result'].get('recovered'), True, 'snapshot: recovered by task identity')
    check_eq(sn['result'].get('created'), True, 'snapshot: created')
    checks = [e for e in ev if e['event'] == 'write-check']
    check_eq(sorted(e['outcome'] for e in checks), ['not-received', 'task', 'task'],
             'write-checks: the 500 not received, the drop and the 596 found by task')
    check_eq(len([r for r in posts(reqs, '/status/start') if r['status'] == 200]), 2,
             'drops: two starts taken (power-on, the rollback\'s)')
    check_eq(fake.guest()['status'], 'running', 'drops: the guest runs')
    check_eq([s['name'] for s in fake.guest()['snapshots']], ['d1'], 'drops: one snapshot')


def faults_vzdump_lock(tmp, fake, tok):
    # one vzdump per node: a backup of another guest runs, ours waits for it
    fake.reset(guests=[{'vmid': VMID, 'name': NAME}, {'vmid': 101, 'name': 'other'}],
               durations=dict(DURATIONS, vzdump=[60, 21]))
    other = fake.api_post('/nodes/%s/vzdump' % NODE, {'vmid': 101, 'storage': 'local'})
    ini = campaign(tmp, fake, 'vzlock', [('b', 'backup')], tok=tok)
    d = os.path.join(tmp, 'camp-vzlock')
    rc, out, err = run(['-o', d, ini], tmp)
    check_eq(rc, 0, 'vzdump lock: exit status (%s)' % err[-1500:])
    capture_dir(d)
    check('a backup runs on node pve1 (%s)' % other in err, 'vzdump lock: the preflight said')
    bk = action(load_manifest(d), 'b', 'backup')
    check_eq(bk['result']['vzdump_log']['waited_for_global_lock'], True,
             'vzdump lock: the log said it waited')
    t = [x for x in fake.tasks('vzdump') if x['upid'] == other][0]
    check(bk['task']['duration_s'] >= 21 + (t['endtime'] - bk['task']['starttime']) - 1,
          'vzdump lock: its task seconds %r include the wait' % bk['task']['duration_s'])


def faults_vzdump_ok(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # vzdump answers "OK" instead of a UPID when the guest is on another node
    d, m, ev, reqs, err = one('vzdump-ok', [], [('b', 'backup')], want_rc=1,
                              reset={'remote_guests': [{'vmid': VMID, 'node': 'pve2'}]})
    check('vzdump answered OK without a task' in action(m, 'b', 'backup').get('error', ''),
          'vzdump OK: said: %r' % action(m, 'b', 'backup').get('error'))


def faults_safety_write(tmp, fake, tok):
    one = faults_runner(tmp, fake, tok)
    # a write that keeps failing after a take-down: the safety layer starts it
    d, m, ev, reqs, err = one('start-fails', [
        dict(kind='error', status=500, message='fake: broken\n', method='POST',
             path='/nodes/pve1/qemu/100/status/start', count=5)],
        [('s', 'power-off; power-on; %s' % W)], want_rc=1)
    check('HTTP 500 fake: broken' in action(m, 's', 'power-on').get('error', ''),
          'start-fails: the error: %r' % action(m, 's', 'power-on').get('error'))
    check_running_at_end(fake, d, 'start fails')


def test_faults(tmp, fake):
    """The cases on three threads, each with a fake and a directory of its own."""
    cases = [faults_warnings, faults_task_error, faults_start_error, faults_rollback_error,
             faults_lock_timeouts, faults_http, faults_vzdump_lock, faults_vzdump_ok,
             faults_safety_write]
    H.in_parallel(tmp, fake, cases,
                  lambda wtmp, wfake, case: case(wtmp, wfake, token_file(wtmp)), Fake)


def test_sigint(tmp, fake):
    """Ctrl-C while the shutdown (and, apart, a restore) is still running: the
    guest is started once the task has ended, and answers SSH."""
    tok = token_file(tmp)
    for what, durations, states, when in (
            ('shutdown', {'qmshutdown': 60},
             [('s', 'power-off; power-on; WAIT')], 'qmshutdown'),
            ('restore', {'qmrestore': 100},
             [('b', 'backup'), ('r', 'restore last-backup; WAIT')], 'qmrestore')):
        fake.reset(durations=dict(DURATIONS, **durations))
        ini = campaign(tmp, fake, 'sigint-' + what, states, tok=tok)
        d = os.path.join(tmp, 'camp-' + what)
        p, w = start(['-o', d, ini], tmp)
        upid = wait_for(lambda: [e['upid'] for e in load_journal(d)
                                 if e['event'] == 'pve-task' and e['type'] == when]
                        if os.path.exists(os.path.join(d, 'journal.jsonl')) else None, p)
        check(upid, '%s: its task started' % what)
        check(wait_for(lambda: polled(d, when), p), '%s: its task is polled' % what)
        p.send_signal(signal.SIGINT)
        rc, out, err = finish(p, w)
        check_eq(rc, 130, '%s: exit status after Ctrl-C (%s)' % (what, err[-1500:]))
        capture_dir(d)
        check_running_at_end(fake, d, what)
        ev = [e for e in load_journal(d) if e['event'] == 'ensure-powered-on']
        if ev and upid:
            waited = ev[0]['result'].get('waited_for', [])
            check([(x['name'], x['id']) for x in waited][:1] == [(when, upid[0])] and
                  waited[0]['state'] == 'OK',
                  '%s: the power-on waited for %s first: %r' % (what, upid[0], waited))
        # the start came after the task's end, by the node's clock
        t = [x for x in fake.tasks(when)][0]
        starts = [x for x in fake.tasks('qmstart') if x['starttime'] >= t['starttime']]
        check(starts and all(x['starttime'] >= t['endtime'] for x in starts),
              '%s: the start began after %s ended' % (what, when))
        check('the server is running again and answers SSH' in err,
              '%s: says so: %s' % (what, err[-800:]))

    # a shutdown that outlives task-timeout is still a take-down: the power-on
    # waits for it again (1 s of shutdown, twice 0.7 s of waiting), then starts
    # the guest
    fake.reset(durations=dict(DURATIONS, qmshutdown=50))
    text = open(campaign(tmp, fake, 'timeout', [('s', 'power-off; power-on; WAIT')],
                         tok=tok)).read().replace('task-timeout = 60s', 'task-timeout = 700ms')
    ini = os.path.join(tmp, 'timeout.ini')
    write(ini, text)
    d = os.path.join(tmp, 'camp-timeout')
    rc, out, err = run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'timeout: the power-off failed')
    capture_dir(d)
    a = action(load_manifest(d), 's', 'power-off')
    check('is still running after' in a.get('error', ''), 'timeout: said: %r' % a.get('error'))
    check_running_at_end(fake, d, 'timeout')
    t = fake.tasks('qmshutdown')[0]
    starts = fake.tasks('qmstart')
    check(starts and all(x['starttime'] >= t['endtime'] for x in starts),
          'timeout: the start began after the shutdown ended')


def test_resume(tmp, fake):
    """A write whose outcome was unknown is decided on resume by task identity:
    by its UPID, and by the task ids seen before it was sent."""
    tok = token_file(tmp)
    # 1. Ctrl-C while the snapshot with RAM runs: the UPID is known
    fake.reset(durations=dict(DURATIONS, vmstate=150))
    ini = campaign(tmp, fake, 'resume1', [('s', 'snapshot r1 vmstate'),
                                          ('c', 'delete-snapshot all-created')], tok=tok)
    d = os.path.join(tmp, 'camp1')
    p, w = start(['-o', d, ini], tmp)
    wait_for(lambda: journal_has(d, lambda e: e['event'] == 'pve-task'), p)
    p.send_signal(signal.SIGINT)
    rc, out, err = finish(p, w)
    check_eq(rc, 130, 'resume 1: interrupted')
    a = action(load_manifest(d), 's', 'snapshot r1 vmstate')
    uw = a.get('result', {}).get('unknown_write', {})
    check(uw.get('upid', '').startswith('UPID:'), 'resume 1: the unknown write holds its UPID')
    check_eq(a['result'].get('created'), None, 'resume 1: created is unknown')
    check_eq(a['result'].get('outcome'), 'unknown', 'resume 1: the outcome is unknown')
    rc, out, err = run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume 1: the resume (%s)' % err[-2000:])
    m = load_manifest(d)
    a = action(m, 's', 'snapshot r1 vmstate')
    check_eq((a['status'], a['result'].get('created'), a['result'].get('adopted')),
             ('done', True, True), 'resume 1: adopted what the task made')
    check_eq(len(fake.tasks('qmsnapshot')), 1, 'resume 1: one snapshot task in all')
    check_eq(action(m, 'c', 'delete-snapshot all-created')['result'].get('deleted'), ['r1'],
             'resume 1: all-created deletes it')
    capture_dir(d)

    # 2. the answer lost (a stall beyond http-timeout), Ctrl-C in the pause
    #    before the check: no UPID, only the task ids seen before
    fake.reset()
    fake.fault(kind='stall', when='after', seconds=1.5, method='POST',
               path='/nodes/pve1/qemu/100/snapshot')
    text = open(campaign(tmp, fake, 'resume2', [('s', 'snapshot r2')], tok=tok)).read()
    text = text.replace('http-timeout = 10s', 'http-timeout = 500ms').replace(
        'retry-wait = 100ms', 'retry-wait = 20s')
    ini = os.path.join(tmp, 'resume2.ini')
    write(ini, text)
    d = os.path.join(tmp, 'camp2')
    p, w = start(['-o', d, ini], tmp)
    wait_for(lambda: journal_has(d, lambda e: e['event'] == 'api-retry'), p)
    p.send_signal(signal.SIGINT)
    rc, out, err = finish(p, w)
    check_eq(rc, 130, 'resume 2: interrupted')
    a = action(load_manifest(d), 's', 'snapshot r2')
    uw = a.get('result', {}).get('unknown_write', {})
    check('upid' not in uw and isinstance(uw.get('before', {}).get('tasks'), list),
          'resume 2: no UPID, the ids seen before: %r' % uw)
    # the fake carries the stalled request out: its answer, which no one reads
    check(wait_for(lambda: [r for r in posts(fake.requests(), '/snapshot') if r['reason']],
                   timeout=30), 'resume 2: the fake ends the stalled request')
    rc, out, err = run(['--resume', d], tmp)
    check_eq(rc, 0, 'resume 2: the resume (%s)' % err[-2000:])
    a = action(load_manifest(d), 's', 'snapshot r2')
    check_eq((a['status'], a['result'].get('adopted')), ('done', True),
             'resume 2: the task found by identity, adopted')
    check_eq(len(posts(fake.requests(), '/snapshot')), 1, 'resume 2: the POST sent once')
    check_eq(len(fake.tasks('qmsnapshot')), 1, 'resume 2: one snapshot task')
    capture_dir(d)

    # 3. a same-named snapshot made by someone else is never adopted
    fake.reset(guest={'snapshots': ['r3']})
    ini = campaign(tmp, fake, 'resume3', [('s', 'snapshot r3')], tok=tok)
    d = os.path.join(tmp, 'camp3')
    rc, out, err = run(['-o', d, ini], tmp)
    check_eq(rc, 1, 'resume 3: a name taken is refused')
    check('snapshot r3 will exist already' in err, 'resume 3: said: %s' % err[-800:])
    check_eq(writes(fake.requests()), [], 'resume 3: nothing sent')
    capture_dir(d)


def test_preflight(tmp, fake):
    tok = token_file(tmp)

    def refused(what, states, want, reset=None, rc_want=1, extra_ini=None):
        fake.reset(**(reset or {}))
        ini = campaign(tmp, fake, 'pf', states, tok=tok)
        if extra_ini:
            write(ini, extra_ini(open(ini).read()))
        d = os.path.join(tmp, 'camp-pf-%d' % H.CHECKS[0])
        rc, out, err = run(['-o', d, ini], tmp)
        check_eq(rc, rc_want, '%s: exit status (%s)' % (what, err[-1500:]))
        for w in want:
            check(w in err, '%s: says %r: %s' % (what, w, err[-1500:]))
        check_eq([r['method'] + ' ' + r['path'] for r in writes(fake.requests())], [],
                 '%s: nothing sent that changes anything' % what)
        if os.path.isdir(d):
            capture_dir(d)
        return err

    states = [('s', 'power-off; snapshot p1; revert p1; backup; restore last-backup; WAIT')]
    refused('wrong vm-name', states, ["is named 'bench', not 'other'"],
            extra_ini=lambda t: t.replace('vm-name = bench', 'vm-name = other'))
    refused('HA-managed', states, ['HA-managed'], reset={'guest': {'ha': 'started'}})
    refused('locked', states, ['is locked (backup)', 'qm unlock 100'],
            reset={'guest': {'lock': 'backup'}})
    refused('name taken', states, ['snapshot p1 will exist already'],
            reset={'guest': {'snapshots': ['p1']}})
    refused('no such snapshot', [('s', 'revert nope')], ['rolls back to snapshot nope'])
    refused('other node', states, ['guest 100 is not on node pve1'],
            reset={'guests': [{'vmid': 101, 'name': 'x'}]})
    refused('backup storage', [('s', 'backup storage local-lvm')],
            ['storage local-lvm holds no backups'])
    acl = {'/': ['VM.Audit', 'VM.PowerMgmt', 'Datastore.Audit', 'Datastore.AllocateSpace',
                 'VM.Backup', 'VM.Allocate']}
    refused('privilege', states, ['lacks VM.Snapshot on /vms/100',
                                  'lacks VM.Snapshot|VM.Snapshot.Rollback on /vms/100'],
            reset={'acl': acl})
    refused('no VM.Audit', states, ['needs VM.Audit on /vms/100'],
            reset={'acl': {'/': ['VM.PowerMgmt']}})
    # while the file is read: nothing contacted at all
    err = refused('allow-destroy', [('s', 'backup; restore last-backup')],
                  ['needs allow-destroy = yes'], rc_want=2,
                  extra_ini=lambda t: t.replace('allow-destroy = yes\n', ''))
    check(re.search(r'pf\.ini:\d+:', err), 'allow-destroy: file:line')
    check_eq(len(fake.requests()), 0, 'allow-destroy: no request at all')
    refused('restore without backup', [('s', 'restore last-backup')],
            ['no \'backup\' before it'], rc_want=2)
    refused('snapshot name', [('s', 'snapshot a.b')], ['no \'.\''], rc_want=2)
    refused('vm-name missing', [('s', '')], ['needs vm-name'], rc_want=2,
            extra_ini=lambda t: t.replace('vm-name = bench\n', ''))
    # the token file: mode and form, before anything is created
    bad_tok = token_file(tmp, mode=0o644)
    fake.reset()
    ini = campaign(tmp, fake, 'tok', [('s', '')], tok=bad_tok)
    rc, out, err = run(['-o', os.path.join(tmp, 'camp-tok'), ini], tmp)
    check_eq(rc, 2, 'token mode: usage error')
    check('chmod 600' in err and not os.path.exists(os.path.join(tmp, 'camp-tok')),
          'token mode: said, nothing created: %s' % err)
    token_file(tmp, text=SECRET)
    ini2 = campaign(tmp, fake, 'tok2', [('s', '')], tok=os.path.join(tmp, 'pve.token'))
    rc, out, err = run(['-o', os.path.join(tmp, 'camp-tok2'), ini2], tmp)
    check_eq(rc, 2, 'secret alone: usage error')
    check('USER@REALM!TOKENID=SECRET' in err, 'secret alone: says the form: %s' % err)
    # a token the node does not know: 401, said, not retried in a loop
    token_file(tmp, text=TOKENID + '=' + str(uuid.uuid4()))
    fake.reset()
    rc, out, err = run(['-o', os.path.join(tmp, 'camp-tok3'), ini2], tmp)
    check_eq(rc, 1, 'unknown secret: exit status')
    check('refused the API token fiocamp@pve!bench (HTTP 401)' in err,
          'unknown secret: said: %s' % err[-800:])
    check_eq(len(fake.requests()), 1, 'unknown secret: one request')
    token_file(tmp)
    # the token from the environment, wiped for the children
    ini3 = campaign(tmp, fake, 'env', [('s', 'power-on')], tok=None)
    rc, out, err = run(['-o', os.path.join(tmp, 'camp-env'), ini3], tmp,
                       {'FIOCAMP_PROXMOX_TOKEN': TOKEN})
    check_eq(rc, 0, 'token from the environment (%s)' % err[-800:])
    capture_dir(os.path.join(tmp, 'camp-env'))


def test_dryrun(tmp, fake):
    """--dry-run lists every API call a run makes, sends nothing, reads no token."""
    fake.reset()
    tok = token_file(tmp)
    # the API calls are the point: one fio round, in basis, is enough
    states = [('basis', ''),
              ('snap', 'power-off; snapshot s1; power-on; WAIT', 0),
              ('rollback', 'revert s1; WAIT', 0),
              ('backup', 'backup; restore last-backup; WAIT', 0),
              ('more', 'snapshot s2; delete-snapshot s2; power-off hard; reboot; WAIT', 0),
              ('cleanup', 'delete-snapshot all-created', 0)]
    fake.fault(kind='task-warnings', task='qmsnapshot', warnings=1)
    ini = campaign(tmp, fake, 'dry', states, tok=tok)
    d = os.path.join(tmp, 'camp')
    rc, out, err = run(['-o', d, ini], tmp)
    check_eq(rc, 0, 'the run (%s)' % err[-2000:])
    capture_dir(d)
    made = {normalize(r['method'], r['path'] + ('?' + r['query'] if r['query'] else ''))
            for r in fake.requests()}
    n = len(fake.requests())
    os.rename(tok, tok + '.gone')
    rc, out, err = run(['--dry-run', ini], tmp)
    os.rename(tok + '.gone', tok)
    check_eq(rc, 0, 'the dry run (%s)' % err)
    check_eq(len(fake.requests()), n, 'the dry run sent nothing')
    listed = set()
    for m in re.finditer(r'\b(GET|POST|DELETE) (/\S+)', out):
        listed.add(normalize(m.group(1), m.group(2).rstrip(':,)')))
    # the plan's {starttime} and {the archive ...} are placeholders of a value
    missing = sorted(c for c in made if c not in listed)
    check_eq(missing, [], 'every call of the run is in the dry run')
    # s1 was removed by the restore, s2 deleted by name: none left to delete
    check('the snapshots this campaign made: 0 in the plan' in out, 'all-created counted')
    check(TOKEN not in out and SECRET not in out, 'no secret in the plan')
    H.CAPTURED.append(('dry run', out + err))
    print('dry run: %d distinct calls of the run, all listed' % len(made))


# ---- interrupts at each sub-step, and what a resume makes of them ---------------

def polled(d, type_, **match):
    """Whether the journal has a status poll of a task of type_ with the
    given fields (session, during)."""
    def pred(e):
        if e['event'] != 'api-call' or '/tasks/' not in e.get('path', ''):
            return False
        if ':%s:' % type_ not in urllib.parse.unquote(e['path']):
            return False
        return all(e.get(k) == v for k, v in match.items())
    return journal_has(d, pred)


def poll_span(d, type_, **match):
    """Seconds between the first and the last such poll (the journal's mono)."""
    try:
        ev = load_journal(d)
    except (OSError, ValueError):
        return 0.0
    m = [e['mono'] for e in ev if e['event'] == 'api-call' and '/tasks/' in e.get('path', '')
         and ':%s:' % type_ in urllib.parse.unquote(e['path']) and
         all(e.get(k) == v for k, v in match.items())]
    return m[-1] - m[0] if len(m) > 1 else 0.0


def ours_on_node(fake):
    return {t['upid']: t for t in fake.tasks() if TOKENID in t['upid']}


def check_recorded(fake, d, what):
    """Every task of the campaign's token the node ran is in the manifest
    (or in a safety power-on), and every task the manifest names ran, with
    the exit status the node gives it."""
    text = open(os.path.join(d, 'manifest.json')).read()
    m = json.loads(text)
    node = ours_on_node(fake)
    rec = {}

    def walk(x):
        if isinstance(x, dict):
            if isinstance(x.get('upid'), str) and 'starttime' in x:
                rec[x['upid']] = x
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(m)
    safety = set()
    for e in load_journal(d):
        if e['event'] == 'ensure-powered-on':
            safety |= set(re.findall(r'UPID:[^"]+:', json.dumps(e)))
    check_eq(sorted(set(node) - set(rec) - safety), [],
             '%s: tasks of ours the record leaves out' % what)
    for u, t in rec.items():
        n = node.get(u)
        if check(n is not None, '%s: the recorded task %s ran' % (what, u)) and t.get('state'):
            check_eq(t['state'], n.get('exitstatus'), '%s: the state of %s' % (what, u))
    return m




def interrupt_and_resume(tmp, fake, d, ini, type_, sig, what):
    """Runs the campaign until a task of type_ is held on the node, sends
    sig, lets the task go once the controller waits for it (the safety
    power-on; after kill -9 the resume), and resumes until the campaign is
    done.  Returns the resume's stderr."""
    fake.fault(kind='task-hold', task=type_)
    p, w = start(['-o', d, ini], tmp)
    got = wait_for(lambda: held(fake, type_) and journal_has(
        d, lambda e: e['event'] == 'pve-task' and e.get('type') == type_), p)
    check(got, '%s: the %s task runs, held' % (what, type_))
    if sig == signal.SIGKILL:
        os.kill(p.pid, sig)
        finish(p, w)
        # the resume comes while the earlier task still runs: it waits for it
        q, w2 = start(['--resume', d], tmp)
        check(wait_for(lambda: polled(d, type_, session=2), q),
              '%s: the resume waits for the earlier %s' % (what, type_))
        release(fake, type_)
        rc, out, err = finish(q, w2)
        capture_dir(d)
        check_eq(rc, 0, '%s: the resume (%s)' % (what, err[-2500:]))
        return err
    p.send_signal(sig)
    check(wait_for(lambda: polled(d, type_, during='ensure-powered-on'), p),
          '%s: the safety power-on waits for the %s' % (what, type_))
    release(fake, type_)
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 130, '%s: interrupted (%s)' % (what, err[-1500:]))
    check_running_at_end(fake, d, what)
    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, '%s: the resume (%s)' % (what, err[-2500:]))
    return err


def test_interrupts(tmp, fake):
    """SIGINT, SIGTERM and kill -9 at each sub-step of a restore (its stop,
    the qmrestore, its start) and of a revert (the rollback, and without RAM
    state its start), then --resume: each transition happened once, its
    task is the one the step is about, and its downtime is marked as cut.
    The 18 cases run on six fake nodes at once."""
    subs = [('restore', 'qmstop'), ('restore', 'qmrestore'), ('restore', 'qmstart'),
            ('revert', 'qmrollback'), ('revert', 'qmstart'), ('revert-ram', 'qmrollback')]
    cases = []
    for kind, sub in subs:
        for sname, sig in SIGNALS.items():
            cases.append((len(cases) + 1, kind, sub, sname, sig))

    def one(tmp, fake, case):
        n, kind, sub, sname, sig = case
        tok = token_file(tmp)
        what = '%s at its %s, %s' % (kind, sub, sname)
        fake.reset(guest={'data': 'data-0'})
        # prep only makes what r needs: no round of its own
        if kind == 'restore':
            states = [('prep', 'backup; snapshot held', 0), ('r', 'restore last-backup; WAIT')]
        else:
            ram = ' vmstate' if kind == 'revert-ram' else ''
            states = [('prep', 'snapshot s1%s' % ram, 0), ('r', 'revert s1; WAIT')]
        ini = campaign(tmp, fake, 'int%d' % n, states, tok=tok)
        d = os.path.join(tmp, 'camp-int%d' % n)
        interrupt_and_resume(tmp, fake, d, ini, sub, sig, what)
        m = check_recorded(fake, d, what)
        check_eq(m['status'], 'done', '%s: done after the resume' % what)
        a = action(m, 'r', states[1][1].split(';')[0])
        main = 'qmrestore' if kind == 'restore' else 'qmrollback'
        check_eq(len(fake.tasks(main)), 1, '%s: one %s on the node' % (what, main))
        check_eq((a.get('task') or {}).get('name'), main,
                 '%s: the step\'s task is its %s' % (what, main))
        check_eq((a.get('task') or {}).get('role'), 'main', '%s: in the role main' % what)
        names = [t['name'] for t in a.get('tasks') or [a.get('task') or {}]]
        check_eq(names.count(main), 1, '%s: its tasks %r' % (what, names))
        g = fake.guest()
        if kind == 'restore':
            check_eq(g['snapshots'], [], '%s: the restore removed the snapshot' % what)
            check_eq(a['result'].get('snapshots_after'), [], '%s: none after it' % what)
        else:
            ram = kind == 'revert-ram'
            check_eq(a['result'].get('vmstate'), ram, '%s: vmstate' % what)
            check(a['result'].get('started_by') in (('rollback',) if ram else
                                                    ('start', 'earlier')),
                  '%s: started by %r' % (what, a['result'].get('started_by')))
        s = state_of(m, 'r')
        check_eq(s.get('downtime_cut'), True, '%s: the downtime marked as cut' % what)
        check_eq(a.get('cut'), True, '%s: the action marked as cut' % what)
        ev = [e for e in load_journal(d) if e['event'] == 'state-end' and
              e.get('state') == 'r']
        check(ev and ev[-1].get('downtime_cut') is True,
              '%s: the journal says the downtime was cut: %r' % (what, ev[-1:]))
        check_running_at_end(fake, d, what, safety=False)

    H.in_parallel(tmp, fake, cases, one, Fake, workers=6)


def outlive_case(what, type_, states):
    """One task that outlives task-timeout (test_outlive)."""
    def case(tmp, fake):
        tok = token_file(tmp)
        fake.reset()
        text = open(campaign(tmp, fake, 'out-' + what, states, tok=tok)).read()
        ini = os.path.join(tmp, 'out-%s.ini' % what)
        write(ini, text.replace('task-timeout = 60s', 'task-timeout = 1s'))
        d = os.path.join(tmp, 'camp-out-' + what)
        fake.fault(kind='task-hold', task=type_)
        p, w = start(['-o', d, ini], tmp)
        check(wait_for(lambda: held(fake, type_), p), '%s: held' % what)
        # three times task-timeout of waiting in the safety power-on
        long_enough = wait_for(
            lambda: poll_span(d, type_, during='ensure-powered-on') > 3.0, p, timeout=60)
        check(long_enough, '%s: the safety power-on still waits after 3 s' % what)
        release(fake, type_)
        rc, out, err = finish(p, w)
        capture_dir(d)
        check_eq(rc, 1, '%s: the action failed (%s)' % (what, err[-1500:]))
        check('is still running after 1 s' in err, '%s: said: %s' % (what, err[-1500:]))
        check_running_at_end(fake, d, what)
        t = fake.tasks(type_)[0]
        starts = [x for x in fake.tasks('qmstart') if x['starttime'] >= t['starttime']]
        check(starts and all(x['starttime'] >= t['endtime'] for x in starts),
              '%s: the start began after the %s ended' % (what, type_))
    return case


def outlive_twice(tmp, fake):
    """A second Ctrl-C while the safety power-on waits for the shutdown."""
    tok = token_file(tmp)
    fake.reset()
    ini = campaign(tmp, fake, 'twice', [('s', 'power-off; power-on; WAIT')], tok=tok)
    d = os.path.join(tmp, 'camp-twice')
    fake.fault(kind='task-hold', task='qmshutdown')
    p, w = start(['-o', d, ini], tmp)
    check(wait_for(lambda: held(fake, 'qmshutdown'), p), 'twice: held')
    p.send_signal(signal.SIGINT)
    check(wait_for(lambda: polled(d, 'qmshutdown', during='ensure-powered-on'), p),
          'twice: the safety power-on waits')
    p.send_signal(signal.SIGINT)
    rc, out, err = finish(p, w)
    capture_dir(d)
    check_eq(rc, 130, 'twice: exit status (%s)' % err[-1500:])
    upid = fake.tasks('qmshutdown')[0]['upid']
    check_eq(fake.guest()['status'], 'running', 'twice: the guest still runs')
    check('is running' in err and upid in err and 'still runs' in err and
          'fiocamp-run --resume %s' % d in err,
          'twice: says the guest runs, the task still runs, and what to do: %s' % err[-1500:])
    check('could not power the machine on' not in err and 'again and answers' not in err,
          'twice: no wrong word: %s' % err[-1500:])
    check("stopped waiting for the machine's tasks (a second Ctrl-C)\n" in err and
          'stopped while waiting' not in err,
          'twice: says why it stopped waiting, once: %s' % err[-1500:])
    ev = [e for e in load_journal(d) if e['event'] == 'ensure-powered-on']
    check(ev and [x.get('id') for x in ev[-1]['result'].get('in_flight', [])] == [upid],
          'twice: the journal names the task still in flight: %r' % ev[-1:])
    release(fake, 'qmshutdown')
    check(wait_for(lambda: fake.guest()['status'] == 'stopped'),
          'twice: the shutdown took the guest down, as said')
    rc, out, err = run(['--resume', d], tmp)
    capture_dir(d)
    check_eq(rc, 0, 'twice: the resume (%s)' % err[-2000:])
    check_running_at_end(fake, d, 'twice', safety=False)
    check_eq(len(fake.tasks('qmshutdown')), 1, 'twice: one shutdown, none sent again')


def test_outlive(tmp, fake):
    """A shutdown, a rollback and a restore that outlive task-timeout: the
    action fails, and the safety power-on waits for the task however long it
    runs (released here only once the wait has lasted three task-timeouts),
    then starts the guest.  A second Ctrl-C in that wait says in which state
    the guest is and what to do.  The four cases on four fake nodes at once."""
    cases = [outlive_case('shutdown', 'qmshutdown', [('s', 'power-off; power-on; WAIT')]),
             outlive_case('rollback', 'qmrollback',
                          [('p', 'snapshot s1', 0), ('s', 'revert s1; WAIT')]),
             outlive_case('restore', 'qmrestore',
                          [('p', 'backup', 0), ('s', 'restore last-backup; WAIT')]),
             outlive_twice]
    H.in_parallel(tmp, fake, cases, lambda wtmp, wfake, case: case(wtmp, wfake), Fake,
                  workers=4)


def test_running(tmp, fake):
    """kill -9 while a restore (and, apart, a rollback) runs; the resume
    comes while it still runs and waits for it longer than task-timeout:
    the write is never sent again, the task is taken over.  The two at
    once, each with a fake node of its own."""
    cases = (
        ('restore', 'qmrestore', [('p', 'backup', 0), ('s', 'restore last-backup; WAIT')],
         '/nodes/%s/qemu' % NODE),
        ('rollback', 'qmrollback', [('p', 'snapshot s1', 0), ('s', 'revert s1; WAIT')],
         '/nodes/%s/qemu/%d/snapshot/s1/rollback' % (NODE, VMID)))

    def one(tmp, fake, case):
        what, type_, states, path = case
        tok = token_file(tmp)
        fake.reset()
        text = open(campaign(tmp, fake, 'run-' + what, states, tok=tok)).read()
        ini = os.path.join(tmp, 'run-%s.ini' % what)
        write(ini, text.replace('task-timeout = 60s', 'task-timeout = 1s'))
        d = os.path.join(tmp, 'camp-run-' + what)
        fake.fault(kind='task-hold', task=type_)
        p, w = start(['-o', d, ini], tmp)
        check(wait_for(lambda: held(fake, type_) and journal_has(
            d, lambda e: e['event'] == 'pve-task' and e.get('type') == type_), p),
            '%s: held' % what)
        os.kill(p.pid, signal.SIGKILL)
        finish(p, w)
        q, w2 = start(['--resume', d], tmp)
        long_enough = wait_for(lambda: poll_span(d, type_, session=2) > 3.0, q, timeout=60)
        check(long_enough, '%s: the resume still waits after 3 s' % what)
        release(fake, type_)
        rc, out, err = finish(q, w2)
        capture_dir(d)
        check_eq(rc, 0, '%s: the resume (%s)' % (what, err[-2500:]))
        check_eq(len(posts(fake.requests(), path)), 1, '%s: the write sent once' % what)
        check_eq(len(fake.tasks(type_)), 1, '%s: one %s on the node' % (what, type_))
        m = check_recorded(fake, d, what)
        a = state_of(m, 's')['before'][0]
        check_eq((a['status'], (a.get('task') or {}).get('name'),
                  (a.get('task') or {}).get('adopted')),
                 ('done', type_, True), '%s: the task taken over' % what)
        check_running_at_end(fake, d, what, safety=False)
    H.in_parallel(tmp, fake, cases, one, Fake, workers=2)


def test_http(tmp, fake):
    """501 Not Implemented is no passing trouble: a read answered 501 fails
    at once, and a write answered 501 was refused (not an unknown outcome)."""
    tok = token_file(tmp)
    fake.reset()
    fake.fault(kind='error', status=501, message="Method 'GET /nodes' not implemented\n",
               method='GET', path='/nodes', count=10)
    ini = campaign(tmp, fake, 'h501', [('s', 'power-on')], tok=tok)
    d = os.path.join(tmp, 'camp-h501')
    t0 = time.time()
    rc, out, err = run(['-o', d, ini], tmp)
    capture_dir(d)
    check_eq(rc, 1, '501 read: exit status (%s)' % err[-1500:])
    check('HTTP 501' in err, '501 read: said: %s' % err[-1000:])
    check_eq(len([r for r in fake.requests() if r['path'] == '/api2/json/nodes']), 1,
             '501 read: asked once')
    check(not any(e['event'] == 'api-retry' for e in load_journal(d)), '501 read: no retry')
    print('501 on GET /nodes: failed after %.2f s' % (time.time() - t0))
    # a write: refused, sent once, no unknown outcome
    fake.reset(guest={'status': 'stopped'})
    start_path = '/nodes/%s/qemu/%d/status/start' % (NODE, VMID)
    fake.fault(kind='error', status=501, message='Unexpected content for method\n',
               method='POST', path=start_path, count=10)
    ini = campaign(tmp, fake, 'w501', [('s', 'power-on')], tok=tok)
    d = os.path.join(tmp, 'camp-w501')
    rc, out, err = run(['-o', d, ini], tmp)
    capture_dir(d)
    check_eq(rc, 1, '501 write: exit status (%s)' % err[-1500:])
    check_eq(len(posts(fake.requests(), start_path)), 1, '501 write: sent once')
    a = action(load_manifest(d), 's', 'power-on')
    check('HTTP 501' in a.get('error', ''), '501 write: said: %r' % a.get('error'))
    check('unknown_write' not in (a.get('result') or {}), '501 write: not unknown')
    outs = [e['outcome'] for e in load_journal(d) if e['event'] == 'write-outcome']
    check_eq(outs, ['refused'], '501 write: the outcome journaled')


def test_tokens(tmp, fake):
    """A FIFO as the token file, and a NUL byte in it: refused at once, with
    a message, before anything is sent."""
    fake.reset()
    fifo = os.path.join(tmp, 'fifo.token')
    os.mkfifo(fifo, 0o600)
    nul = os.path.join(tmp, 'nul.token')
    with open(nul, 'wb') as f:
        f.write((TOKEN[:20] + '\0' + TOKEN[20:] + '\n').encode())
    os.chmod(nul, 0o600)
    for what, path, want in (('fifo', fifo, 'is not a regular file'),
                             ('nul', nul, 'NUL byte')):
        ini = campaign(tmp, fake, 'tok-' + what, [('s', 'power-on')], tok=path)
        d = os.path.join(tmp, 'camp-tok-' + what)
        t0 = time.time()
        p, w = start(['-o', d, ini], tmp)
        try:
            rc, out, err = finish(p, w, timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            rc, out, err = finish(p, w)
            check(False, '%s: fiocamp-run still waited after 20 s' % what)
        check_eq(rc, 2, '%s: a usage error (%s)' % (what, err[-800:]))
        check(want in err and path in err, '%s: said: %s' % (what, err[-800:]))
        check(not os.path.exists(d), '%s: nothing created' % what)
        check_eq(len(fake.requests()), 0, '%s: nothing sent' % what)
        print('%s token file: refused after %.2f s' % (what, time.time() - t0))


AREAS = {
    'e2e': test_e2e,
    'tls': test_tls,
    'faults': test_faults,
    'sigint': test_sigint,
    'resume': test_resume,
    'preflight': test_preflight,
    'dryrun': test_dryrun,
    'interrupts': test_interrupts,
    'outlive': test_outlive,
    'running': test_running,
    'http': test_http,
    'tokens': test_tokens,
}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    PF.FAKE = os.path.abspath(sys.argv[3])
    t0 = time.time()
    with H.scratch('fiocamp-proxmox-%s.' % area) as tmp:
        fake = Fake(tmp)
        try:
            AREAS[area](tmp, fake)
        finally:
            fake.stop()
            leaks = sorted({what for what, text in H.CAPTURED if SECRET in text})
            check_eq(leaks, [], 'the token secret appears in')
    sys.exit(H.summary(', %d things searched for the token, %.1f s'
                       % (len(H.CAPTURED), time.time() - t0)))


if __name__ == '__main__':
    main()
