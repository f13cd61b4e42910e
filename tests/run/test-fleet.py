#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""End-to-end tests of a fleet (issue 21): one campaign on several ssh hosts
at once, kept in step by fiocamp-run's supervisor.

usage: test-fleet.py AREA FIOCAMP_RUN [FAKE_PVE | FAKE_SCP]

Each host is an sshd of the test's own on 127.0.0.1 (harness.start_sshd),
with a directory of its own.  A host is made slow, or made to fail, by a
`run` action that looks at FIOCAMP_HOST (the supervisor sets it for each
host's engine) and waits for a gate file the test creates once the others
are at the barrier: no fixed sleeps.  Real fio, 1 s runtimes, 8 MiB files.
Exit 77 = skipped.
"""
import json
import os
import re
import signal
import subprocess
import sys
import urllib.parse

import harness as H
from harness import check, check_eq, load_journal, load_manifest


def start_hosts(tmp, names):
    """An sshd per host, each in a directory of its own: {name: (proc, port,
    ssh options)}, or None when sshd or ssh is missing."""
    hosts = {}
    for name in names:
        d = os.path.join(tmp, 'sshd-' + name)
        os.mkdir(d)
        started = H.start_sshd(d)
        if started is None:
            stop_hosts(hosts)
            return None
        proc, port, _, opts = started
        hosts[name] = (proc, port, opts)
    return hosts


def stop_hosts(hosts):
    for proc, _, _ in hosts.values():
        proc.terminate()
        proc.wait()


def user():
    return subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()


# The action that makes a host slow or failing: with FIOCAMP_HOST in `slow`
# it waits for the gate file; in `fail` it fails.
def gate_action(gate, slow=(), fail=()):
    script = ''
    for h in slow:
        script += 'if [ "$FIOCAMP_HOST" = %s ]; then while [ ! -e %s ]; do sleep 0.05; done; fi; ' \
                  % (h, gate)
    for h in fail:
        script += 'if [ "$FIOCAMP_HOST" = %s ]; then echo "%s breaks" >&2; exit 3; fi; ' % (h, h)
    return "run sh -c '%strue'" % script


def fleet_file(tmp, hosts, states, extra='', bad=()):
    """The fleet's campaign file: every host of `hosts` (and those of `bad`,
    with a port nothing listens on), each with its own directory."""
    names = list(hosts) + list(bad)
    text = ('[campaign]\n'
            'hosts = %s\n'
            'suite = rw4k\n'
            'rounds = 1\n'
            'size = 8M\n'
            'runtime = 1s\n'
            'prefill = no\n%s\n') % (' '.join(names), extra)
    for name in names:
        if name in hosts:
            _, port, opts = hosts[name]
        else:
            port, opts = H.free_port(), '-o BatchMode=yes'
        text += ('[host %s]\n'
                 'target = ssh %s@127.0.0.1:%d\n'
                 'ssh-options = %s -o ConnectTimeout=5\n'
                 'directory = %s\n\n') % (name, user(), port, opts,
                                          os.path.join(tmp, 'remote-' + name))
    text += states
    path = os.path.join(tmp, 'fleet.ini')
    H.write(path, text)
    return path


def fleet_manifest(d):
    with open(os.path.join(d, 'manifest.json')) as f:
        return json.load(f)


def host_dir(d, name):
    return os.path.join(d, 'hosts', name)


def first_event(d, pred):
    return next((e for e in load_journal(d) if pred(e)), None)


def state_end(d, state):
    return first_event(d, lambda e: e['event'] == 'state-end' and e['state'] == state)


def state_begins(d, state):
    """When the host began state's work: its first action or round."""
    e = first_event(d, lambda e: e['event'] in ('action-start', 'round-start')
                    and e.get('state') == state)
    return e and e['t']


def check_in_step(d, names, before, after):
    """No host began `after` before every host of names ended `before`."""
    ends = [state_end(host_dir(d, n), before) for n in names]
    if not check(all(ends), 'every host ended %s' % before):
        return
    last_end = max(e['t'] for e in ends)
    for n in names:
        began = state_begins(host_dir(d, n), after)
        check(began and began >= last_end,
              '%s began %s (%s) after every host ended %s (%s)' % (n, after, began, before,
                                                                   last_end))


def barriers(d, name):
    return [e for e in load_journal(host_dir(d, name)) if e['event'] == 'barrier']


def wait_state_end(d, names, state, proc):
    return H.wait_for(lambda: all(os.path.exists(os.path.join(host_dir(d, n), 'journal.jsonl'))
                                  and state_end(host_dir(d, n), state) for n in names),
                      proc, timeout=120, every=0.05)


def wait_action(d, names, state, proc):
    """Every host of names has begun state's first action."""
    def begun(n):
        j = os.path.join(host_dir(d, n), 'journal.jsonl')
        return os.path.exists(j) and first_event(
            host_dir(d, n), lambda e: e['event'] == 'action-start' and e['state'] == state)
    return H.wait_for(lambda: all(begun(n) for n in names), proc, timeout=120, every=0.05)


# ---------------------------------------------------------------------------

def test_step(tmp):
    """Three hosts in step, h2 the slow one: the others wait for it at the
    barrier, and the waits are in the journals and the fleet's manifest."""
    hosts = start_hosts(tmp, ['h1', 'h2', 'h3'])
    if hosts is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        gate = os.path.join(tmp, 'gate')
        # three: a repeated state of actions only (a barrier per repetition)
        states = ('[state one]\nbefore = %s\n\n[state two]\n\n[state three]\nrepeat = 2\n'
                  'rounds = 0\nbefore = run true\n' % gate_action(gate, slow=['h2']))
        ini = fleet_file(tmp, hosts, states)
        d = os.path.join(tmp, 'fleet')
        p, w = H.start_watched(['-o', d, ini], tmp)
        # h1 and h3 are done with state one and wait; then h2 may go on
        check(wait_state_end(d, ['h1', 'h3'], 'one', p), 'h1 and h3 ended state one')
        check(state_end(host_dir(d, 'h2'), 'one') is None, 'h2 is still in state one')
        H.write(gate, '')
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 0, 'the fleet is done (%s)' % err[-3000:])
        m = fleet_manifest(d)
        check_eq(m['format'], 'fiocamp-fleet', 'the fleet manifest\'s format')
        check_eq(m['status'], 'done', 'the fleet\'s status')
        check_eq([h['name'] for h in m['hosts']], ['h1', 'h2', 'h3'], 'its hosts')
        check_eq({h['status'] for h in m['hosts']}, {'done'}, 'every host done')
        check_eq([h['directory'] for h in m['hosts']], ['hosts/h1', 'hosts/h2', 'hosts/h3'],
                 'the hosts\' directories')
        # one, two, three rep 1, three rep 2
        check_eq([(b['seq'], b['state'], b['repetition']) for b in m['barriers']],
                 [(1, 'one', 1), (2, 'two', 1), (3, 'three', 1), (4, 'three', 2)],
                 'a barrier per state repetition')
        two = m['barriers'][1]
        check_eq(sorted(two['waits']), ['h1', 'h2', 'h3'], 'every host waited at barrier 2')
        check(two['waits']['h1'] > two['waits']['h2'] and
              two['waits']['h3'] > two['waits']['h2'],
              'h1 and h3 waited longer for h2 than h2 did: %s' % two['waits'])
        check_eq(two['left'], [], 'no host left')
        for n in ('h1', 'h2', 'h3'):
            hd = host_dir(d, n)
            check_eq(load_manifest(hd)['status'], 'done', '%s\'s own manifest' % n)
            check_eq(load_manifest(hd).get('fleet_host'), n, '%s\'s manifest names it' % n)
            bs = barriers(d, n)
            check_eq([(b['seq'], b['state'], b['repetition']) for b in bs],
                     [(1, 'one', 1), (2, 'two', 1), (3, 'three', 1), (4, 'three', 2)],
                     '%s journaled its barriers' % n)
            check(all(isinstance(b['waited_s'], (int, float)) for b in bs),
                  '%s\'s waits are numbers' % n)
            H.check_round_files(hd, 'one', 1, ['rw4k'])
        check(barriers(d, 'h1')[1]['waited_s'] > barriers(d, 'h2')[1]['waited_s'],
              'h1 journaled a longer wait at barrier 2 than h2')
        check_in_step(d, ['h1', 'h2', 'h3'], 'one', 'two')
        check_in_step(d, ['h1', 'h2', 'h3'], 'two', 'three')
        check(os.path.isfile(os.path.join(d, 'campaign.ini')), 'the fleet\'s campaign.ini')
        with open(os.path.join(d, 'campaign.ini')) as f, open(ini) as g:
            check_eq(f.read(), g.read(), 'campaign.ini is the file given')
        lines = [l for l in err.splitlines() if l.startswith('h2: ')]
        check(lines, 'h2\'s lines are prefixed with its name')
        check('barrier 2' in err, 'the fleet says when a barrier is released: %s' % err[-2000:])
    finally:
        stop_hosts(hosts)


def test_fail(tmp):
    """h3 cannot be reached (its preflight fails), h4 fails in state two: h1
    and h2 run to the end in step; the exit status and the fleet's manifest
    name the failed hosts and why."""
    hosts = start_hosts(tmp, ['h1', 'h2', 'h4'])
    if hosts is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        gate = os.path.join(tmp, 'gate')
        states = ('[state one]\nrounds = 0\nbefore = run true\n\n[state two]\nrounds = 0\n'
                  'before = %s\n\n[state three]\n' % gate_action(gate, fail=['h4']))
        ini = fleet_file(tmp, {k: hosts[k] for k in ('h1', 'h2')}, states,
                         bad=['h3'])
        # h4 after h3 in `hosts =`
        text = open(ini).read()
        _, port, opts = hosts['h4']
        text = text.replace('hosts = h1 h2 h3', 'hosts = h1 h2 h3 h4').replace(
            '[state one]', '[host h4]\ntarget = ssh %s@127.0.0.1:%d\nssh-options = %s\n'
            'directory = %s\n\n[state one]' % (user(), port, opts,
                                                os.path.join(tmp, 'remote-h4')), 1)
        H.write(ini, text)
        d = os.path.join(tmp, 'fleet')
        rc, out, err = H.run(['-o', d, ini], tmp)
        check_eq(rc, 1, 'the fleet failed (%s)' % err[-3000:])
        m = fleet_manifest(d)
        check_eq(m['status'], 'failed', 'the fleet\'s status')
        st = {h['name']: h for h in m['hosts']}
        check_eq(st['h1']['status'], 'done', 'h1 done')
        check_eq(st['h2']['status'], 'done', 'h2 done')
        check_eq(st['h3']['status'], 'failed', 'h3 failed')
        check_eq(st['h4']['status'], 'failed', 'h4 failed')
        check_eq(st['h3']['exit_status'], 1, 'h3\'s exit status')
        check('preflight' in (st['h3']['reason'] or ''), 'h3\'s reason: %s' % st['h3']['reason'])
        check('h4 breaks' in (st['h4']['reason'] or ''), 'h4\'s reason: %s' % st['h4']['reason'])
        check(st['h1']['reason'] is None, 'a host done has no reason')
        check('host h3 failed' in err and 'host h4 failed' in err,
              'the terminal names the failed hosts: %s' % err[-2000:])
        check('2 of 4 hosts (h3, h4)' in err, 'and counts them: %s' % err[-1000:])
        # h3 never came to a barrier, h4 left after barrier 2
        bs = {b['seq']: b for b in m['barriers']}
        check_eq(sorted(bs), [1, 2, 3], 'the barriers')
        check('h3' in bs[1]['left'] and 'h3' not in bs[1]['waits'], 'h3 left before barrier 1')
        check_eq(sorted(bs[2]['waits']), ['h1', 'h2', 'h4'], 'h4 came to barrier 2')
        check_eq(sorted(bs[3]['waits']), ['h1', 'h2'], 'h1 and h2 went on to barrier 3')
        check('h4' in bs[3]['left'], 'h4 left before barrier 3')
        for n in ('h1', 'h2'):
            check_eq(load_manifest(host_dir(d, n))['status'], 'done', '%s\'s own manifest' % n)
            H.check_round_files(host_dir(d, n), 'three', 1, ['rw4k'])
        check_eq(load_manifest(host_dir(d, 'h4'))['status'], 'failed', 'h4\'s own manifest')
        check_in_step(d, ['h1', 'h2'], 'two', 'three')
    finally:
        stop_hosts(hosts)


def test_resume(tmp):
    """kill -9 of the supervisor while h1 waits at barrier 3 and h2 is still
    in state two: the hosts stop as after an interrupt; --resume DIR
    continues every host where it stopped, h2 catching up through barrier 2
    alone while h1 waits at barrier 3."""
    hosts = start_hosts(tmp, ['h1', 'h2'])
    if hosts is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        gate = os.path.join(tmp, 'gate')
        states = ('[state one]\nrounds = 0\nbefore = run true\n\n[state two]\nrounds = 0\n'
                  'before = %s\n\n[state three]\n' % gate_action(gate, slow=['h2']))
        ini = fleet_file(tmp, hosts, states)
        d = os.path.join(tmp, 'fleet')
        p, w = H.start_watched(['-o', d, ini], tmp)
        check(wait_state_end(d, ['h1'], 'two', p), 'h1 ended state two')
        check(wait_action(d, ['h2'], 'two', p), 'h2 waits in state two')
        engines = H.children(p.pid)
        check_eq(len(engines), 2, 'an engine per host')
        p.kill()
        H.finish_watched(p, w)
        H.wait_gone(engines, timeout=60)
        check(not any(H.alive(e) for e in engines), 'the engines stopped without it')
        for n in ('h1', 'h2'):
            hd = host_dir(d, n)
            check_eq(load_manifest(hd)['status'], 'interrupted', '%s was interrupted' % n)
            end = [e for e in load_journal(hd) if e['event'] == 'campaign-end']
            check(end and end[-1].get('supervisor_gone') is True,
                  '%s says its supervisor was gone' % n)
        check_eq(fleet_manifest(d)['status'], 'running', 'the fleet manifest as it was left')
        H.write(gate, '')
        rc, out, err = H.run(['--resume', d], tmp)
        check_eq(rc, 0, 'the resumed fleet is done (%s)' % err[-3000:])
        m = fleet_manifest(d)
        check_eq(m['status'], 'done', 'the fleet\'s status')
        check_eq(m.get('session'), 2, 'its second session')
        check_eq({h['status'] for h in m['hosts']}, {'done'}, 'every host done')
        check_eq([(b['seq'], sorted(b['waits'])) for b in m['barriers']],
                 [(1, ['h1', 'h2']), (2, ['h1', 'h2']), (2, ['h2']), (3, ['h1', 'h2'])],
                 'the barriers of both sessions, h2 alone catching up')
        for n in ('h1', 'h2'):
            hd = host_dir(d, n)
            check_eq(load_manifest(hd)['status'], 'done', '%s\'s own manifest' % n)
            check(any(e['event'] == 'resume' for e in load_journal(hd)), '%s resumed' % n)
            H.check_round_files(hd, 'three', 1, ['rw4k'])
        check_in_step(d, ['h1', 'h2'], 'two', 'three')
    finally:
        stop_hosts(hosts)


def test_sigint(tmp):
    """Ctrl-C (SIGINT to the process group) stops every host; the fleet
    says how to continue.  Resumed, SIGTERM to the supervisor alone stops
    every host, and so does SIGINT to it alone."""
    hosts = start_hosts(tmp, ['h1', 'h2'])
    if hosts is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        gate = os.path.join(tmp, 'gate')
        states = ('[state one]\nbefore = %s\n\n[state two]\n' % gate_action(gate, slow=['h2']))
        ini = fleet_file(tmp, hosts, states)
        d = os.path.join(tmp, 'fleet')
        p, w = H.start_watched(['-o', d, ini], tmp, preexec_fn=os.setpgrp)
        # h1 waits at barrier 2, h2 in its action
        check(wait_state_end(d, ['h1'], 'one', p), 'h1 ended state one')
        check(wait_action(d, ['h2'], 'one', p), 'h2 is in its action')
        os.killpg(p.pid, signal.SIGINT)
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 130, 'the fleet was interrupted (%s)' % err[-3000:])
        m = fleet_manifest(d)
        check_eq(m['status'], 'interrupted', 'the fleet\'s status')
        check_eq({h['status'] for h in m['hosts']}, {'interrupted'}, 'every host interrupted')
        for n in ('h1', 'h2'):
            check_eq(load_manifest(host_dir(d, n))['status'], 'interrupted',
                     '%s\'s own manifest' % n)
        check('continue with: fiocamp-run --resume %s' % d in err, 'says how to go on')
        bs = barriers(d, 'h1')
        check(bs and bs[-1].get('status') == 'interrupted',
              'h1 was interrupted at the barrier: %s' % bs)
        # resumed, then SIGTERM to the supervisor alone: passed on to every host
        p, w = H.start_watched(['--resume', d], tmp)
        check(H.wait_for(lambda: len([e for e in load_journal(host_dir(d, 'h2'))
                                      if e['event'] == 'action-start']) == 2, p),
              'h2 is in its action again')
        p.terminate()
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 130, 'SIGTERM: the fleet was interrupted (%s)' % err[-3000:])
        m = fleet_manifest(d)
        check_eq((m['status'], m['session']), ('interrupted', 2), 'SIGTERM: the fleet\'s status')
        for n in ('h1', 'h2'):
            check_eq(load_manifest(host_dir(d, n))['status'], 'interrupted',
                     'SIGTERM: %s\'s own manifest' % n)
        # and SIGINT sent to the supervisor alone (kill -INT PID) is passed on too
        p, w = H.start_watched(['--resume', d], tmp)
        check(H.wait_for(lambda: len([e for e in load_journal(host_dir(d, 'h2'))
                                      if e['event'] == 'action-start']) == 3, p),
              'h2 is in its action a third time')
        p.send_signal(signal.SIGINT)
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 130, 'SIGINT to it alone: the fleet was interrupted (%s)' % err[-3000:])
        for n in ('h1', 'h2'):
            check_eq(load_manifest(host_dir(d, n))['status'], 'interrupted',
                     'SIGINT to it alone: %s\'s own manifest' % n)
    finally:
        stop_hosts(hosts)


def test_line(tmp):
    """One status line for the fleet on a terminal: every host's part on a
    wide one, the hosts still running, the fleet's ETA and the slowest
    host on a narrow one; never left glued to a host's line.  Two local
    hosts (directories of their own), 2 s runs so that fio reports a rate."""
    gate = os.path.join(tmp, 'gate')
    for cols in (200, 60):
        text = ('[campaign]\nhosts = h1 h2\nsuite = rw4k\nrounds = 1\nsize = 8M\n'
                'runtime = 2s\nprefill = no\ndirectory = %s\n\n[host h2]\ndirectory = %s\n\n'
                '[state one]\nbefore = %s\n\n[state two]\n'
                % (os.path.join(tmp, 'local-h1'), os.path.join(tmp, 'local-h2'),
                   gate_action(gate, slow=[])))
        ini = os.path.join(tmp, 'line-%d.ini' % cols)
        H.write(ini, text)
        d = os.path.join(tmp, 'fleet-%d' % cols)
        rc, out = H.run_in_pty([H.BIN, '-o', d, ini], tmp, cols)
        what = '%d columns' % cols
        check_eq(rc, 0, '%s: the fleet is done (%s)' % (what, out[-2000:]))
        lines, last = H.screen(out)
        draws = H.drawings(out)
        check(draws, '%s: a status line was drawn' % what)
        check(all(len(x) <= cols - 1 for x in draws),
              '%s: every drawing fits: %r' % (what, [x for x in draws if len(x) >= cols]))
        for line in lines + [last]:
            check(' | ETA ' not in line, '%s: a status line was left: %r' % (what, line))
        check(any(l.startswith('h1: ') for l in lines) and
              any(l.startswith('h2: ') for l in lines), '%s: the hosts\' lines' % what)
        if cols == 200:
            check(any(x.startswith('h1 one ') and ' | h2 ' in x and ' | ETA ' in x
                      for x in draws), '%s: both hosts on the line: %r' % (what, draws[:20]))
            check(any(' waits for the fleet' in x for x in draws),
                  '%s: a host waiting at a barrier shows: %r' % (what, draws[:40]))
            check(any(re.search(r'h\d (one|two) r1/1 rw4k [rw]=\S+ IOPS', x) for x in draws),
                  '%s: a host\'s test and fio\'s rate: %r' % (what, draws))
        else:
            check(any(re.match(r'2/2 hosts \| ETA \d+:\d\d \| slowest: h\d ', x)
                      for x in draws), '%s: folded to the slowest host: %r' % (what, draws))


def test_proxmox(tmp):
    """Two hosts, two guests of one Proxmox node (the fake): their
    snapshots run one at a time (the first one held by the fake until the
    test lets it go, the second host waiting meanwhile); with
    parallel-transitions = yes both run at once (both held together).  Then
    h2 fails after its power-off: its own engine powers its guest back on,
    and h1 goes on to the end."""
    import proxmox_fake as PF
    fake = PF.Fake(tmp)
    try:
        guests = [{'vmid': 100 + k, 'name': 'bench%d' % (k + 1), 'status': 'running',
                   'data': 'data-0'} for k in range(2)]
        tok = PF.token_file(tmp)
        keys = [k for k in PF.provider_keys(fake, tok).splitlines()
                if not k.startswith(('vmid', 'vm-name'))]
        for parallel in (False, True):
            what = 'parallel' if parallel else 'one at a time'
            fake.reset(guests=guests)
            # the first snapshot task (both, in parallel) held until released
            fake.fault(kind='task-hold', task='qmsnapshot', count=2 if parallel else 1)
            text = ('[campaign]\nhosts = h1 h2\nsuite = rw4k\nrounds = 0\ntarget = local\n'
                    'size = 8M\nruntime = 1s\nprefill = no\nwait-timeout = 60s\n%s\n'
                    '[provider]\n%s\n\n' % ('parallel-transitions = yes\n' if parallel else '',
                                             '\n'.join(keys)))
            for k in range(2):
                text += ('[host h%d]\ndirectory = %s\nvmid = %d\nvm-name = bench%d\n\n'
                         % (k + 1, os.path.join(tmp, 'local-%d' % k), 100 + k, k + 1))
            text += '[state snap]\nbefore = snapshot s1\n'
            ini = os.path.join(tmp, 'pve-%d.ini' % parallel)
            H.write(ini, text)
            d = os.path.join(tmp, 'fleet-pve-%d' % parallel)
            p, w = H.start_watched(['-o', d, ini], tmp)
            if parallel:
                check(H.wait_for(lambda: len(PF.held(fake, 'qmsnapshot')) == 2, p),
                      '%s: both snapshots run at once' % what)
            else:
                check(H.wait_for(lambda: PF.held(fake, 'qmsnapshot'), p),
                      '%s: the first snapshot runs, held' % what)
                # the other host went on from the barrier: it waits for the node
                check(H.wait_for(lambda: all(barriers(d, n) for n in ('h1', 'h2')), p),
                      '%s: both hosts passed the barrier' % what)
                check_eq(len(fake.tasks('qmsnapshot')), 1, '%s: one snapshot task' % what)
            PF.release(fake, 'qmsnapshot')
            rc, out, err = H.finish_watched(p, w)
            check_eq(rc, 0, '%s: the fleet is done (%s)' % (what, err[-3000:]))
            check_eq(len(fake.tasks('qmsnapshot')), 2, '%s: two snapshots' % what)
            locks = {n: [e for e in load_journal(host_dir(d, n))
                         if e['event'] == 'transition-lock'] for n in ('h1', 'h2')}
            if parallel:
                check_eq(locks, {'h1': [], 'h2': []}, '%s: no lock taken' % what)
                continue
            check(all(len(v) == 1 for v in locks.values()), '%s: each took the lock once: %s'
                  % (what, locks))
            check(all(e['key'] == 'proxmox:https://127.0.0.1:%d:%s'
                      % (fake.api, PF.NODE) for v in locks.values() for e in v),
                  '%s: the node\'s lock: %s' % (what, locks))
            spans = {}
            for n in ('h1', 'h2'):
                ev = load_journal(host_dir(d, n))
                start = [e['t'] for e in ev if e['event'] == 'action-start']
                end = [e['t'] for e in ev if e['event'] == 'action-end']
                spans[n] = (start[0], end[0]) if start and end else None
            check(all(spans.values()), '%s: both snapshots ran' % what)
            if all(spans.values()):
                first, second = sorted(spans.values())
                check(second[0] >= first[1], '%s: one after the other: %s' % (what, spans))
            later = max(spans, key=lambda n: spans[n] or ('', ''))
            check(locks[later] and locks[later][0]['waited_s'] > 0,
                  '%s: %s waited for the node' % (what, later))
            lw = fleet_manifest(d).get('lock_waits', [])
            check(all(x['host'] == later for x in lw), '%s: the fleet\'s lock waits: %s'
                  % (what, lw))

        # h2 fails after its power-off: its own engine powers its guest back
        # on, h1 goes on to the end
        fake.reset(guests=guests)
        gate = os.path.join(tmp, 'gate')
        text = ('[campaign]\nhosts = h1 h2\nsuite = rw4k\nrounds = 0\ntarget = local\n'
                'size = 8M\nruntime = 1s\nprefill = no\nwait-timeout = 60s\n\n'
                '[provider]\n%s\n\n' % '\n'.join(keys))
        for k in range(2):
            text += ('[host h%d]\ndirectory = %s\nvmid = %d\nvm-name = bench%d\n\n'
                     % (k + 1, os.path.join(tmp, 'local-%d' % k), 100 + k, k + 1))
        text += ('[state down]\nbefore = power-off; %s; power-on; wait-ssh 127.0.0.1:%d\n\n'
                 '[state after]\nbefore = snapshot s2\n'
                 % (gate_action(gate, fail=['h2']), fake.ssh))
        ini = os.path.join(tmp, 'pve-fail.ini')
        H.write(ini, text)
        d = os.path.join(tmp, 'fleet-pve-fail')
        rc, out, err = H.run(['-o', d, ini], tmp)
        check_eq(rc, 1, 'a host failed (%s)' % err[-3000:])
        st = {h['name']: h for h in fleet_manifest(d)['hosts']}
        check_eq((st['h1']['status'], st['h2']['status']), ('done', 'failed'), 'h1 done, h2 not')
        check('h2 breaks' in (st['h2']['reason'] or ''), 'h2\'s reason: %s' % st['h2']['reason'])
        check_eq(sorted(g['status'] for g in fake.state()['guests']), ['running', 'running'],
                 'both guests run')
        on = [e for e in load_journal(host_dir(d, 'h2')) if e['event'] == 'ensure-powered-on']
        check(on and on[-1]['status'] == 'done', 'h2\'s engine powered its guest on: %s' % on)
        check(any(e['event'] == 'action-end' and e['state'] == 'after' and e['status'] == 'done'
                  for e in load_journal(host_dir(d, 'h1'))), 'h1 took its snapshot after')

        # SIGTERM to every process at once (as systemd stops a unit) while a
        # host's power-off runs, held: each engine stops once, so its safety
        # power-on waits for the power-off and then powers the guest on (the
        # supervisor's SIGTERM, passed on, would cut that short as a second)
        fake.reset(guests=guests)
        fake.fault(kind='task-hold', task='qmshutdown')
        H.write(ini, text.split('[state down]')[0] +
                '[state down]\nbefore = power-off; power-on; wait-ssh 127.0.0.1:%d\n' % fake.ssh)
        d = os.path.join(tmp, 'fleet-pve-term')
        p, w = H.start_watched(['-o', d, ini], tmp, preexec_fn=os.setpgrp)
        check(H.wait_for(lambda: PF.held(fake, 'qmshutdown'), p), 'term: the power-off is held')
        os.killpg(p.pid, signal.SIGTERM)

        def safety_polls(span=1.5):
            """The host whose safety power-on has polled the held power-off
            for `span` s (1.5: longer than the supervisor takes to pass
            SIGTERM on)."""
            for n in ('h1', 'h2'):
                j = os.path.join(host_dir(d, n), 'journal.jsonl')
                if not os.path.exists(j):
                    continue
                m = [e['mono'] for e in load_journal(host_dir(d, n))
                     if e['event'] == 'api-call' and e.get('during') == 'ensure-powered-on'
                     and ':qmshutdown:' in urllib.parse.unquote(e.get('path', ''))]
                if len(m) > 1 and m[-1] - m[0] > span:
                    return n
            return None
        down = H.wait_for(safety_polls, p, timeout=30)
        check(down, 'term: the safety power-on still waits for the power-off after 1.5 s')
        PF.release(fake, 'qmshutdown')
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 130, 'term: the fleet was interrupted (%s)' % err[-3000:])
        check_eq(sorted(g['status'] for g in fake.state()['guests']), ['running', 'running'],
                 'term: both guests run')
        if down:
            on = [e for e in load_journal(host_dir(d, down)) if e['event'] == 'ensure-powered-on']
            check(on and on[-1]['status'] == 'done',
                  'term: %s\'s engine powered its guest on: %s' % (down, on))

        # kill -9 of the supervisor while a power-off is held: that host's
        # engine stops and waits in its safety power-on; a --resume at once
        # waits for it to end before it starts the hosts again
        fake.reset(guests=guests)
        fake.fault(kind='task-hold', task='qmshutdown')
        d = os.path.join(tmp, 'fleet-pve-kill')
        p, w = H.start_watched(['-o', d, ini], tmp)
        check(H.wait_for(lambda: PF.held(fake, 'qmshutdown'), p), 'kill: the power-off is held')
        engines = H.children(p.pid)
        p.kill()
        H.finish_watched(p, w)
        down = H.wait_for(lambda: safety_polls(0), timeout=60)
        check(down, 'kill: the safety power-on of the engine left alone waits')
        p, w = H.start_watched(['--resume', d], tmp)
        check(H.wait_for(lambda: fleet_manifest(d).get('session') == 2, p),
              'kill: the resume began')
        check(any(H.alive(e) for e in engines) and H.children(p.pid) == [],
              'kill: no new engine while the earlier one runs')
        PF.release(fake, 'qmshutdown')
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 0, 'kill: the resumed fleet is done (%s)' % err[-3000:])
        check('its engine of the earlier session still runs' in err and
              'its earlier engine has ended' in err, 'kill: it said why it waited: %s'
              % err[-3000:])
        check_eq(sorted(g['status'] for g in fake.state()['guests']), ['running', 'running'],
                 'kill: both guests run')
    finally:
        fake.stop()


def token_posts(fake):
    """The fake's refresh-token grants since its reset: their statuses."""
    return [r['status'] for r in fake.requests()
            if r['method'] == 'POST' and r['path'].endswith('/openid-connect/token')]


def test_netcup(tmp):
    """Three hosts, three servers of one netcup account (the fake SCP
    server, which rotates the refresh token at every refresh and refuses
    the old one), one token file.  The fleet makes one refresh while the
    access token is valid, and so do three `--host` engines started at
    once without a supervisor (the lock file beside the token file alone);
    with access tokens that end within the run, the hosts refresh in turns,
    each with the token the one before rotated, and none is refused."""
    import netcup_fake as NF
    fake = NF.Fake(tmp)
    servers = [NF.SERVER, NF.SERVER + 1, NF.SERVER + 2]
    names = ['h1', 'h2', 'h3']
    tok = NF.token_file(tmp)

    def reset(lifetime):
        fake.call('/_fake/reset', {'time_scale': NF.SCALE, 'lock_window': 5.0,
                                   'boot_delay': 3.0, 'rotate': True,
                                   'token_lifetime': lifetime,
                                   'refresh_token': NF.TOKEN,
                                   'servers': [{'id': s} for s in servers]})
        NF.token_file(tmp)
        for extra in ('.access', '.lock'):
            if os.path.exists(tok + extra):
                os.unlink(tok + extra)

    def tokens(dirs):
        return [e for d in dirs for e in load_journal(d) if e['event'] == 'token']

    try:
        keys = [k for k in NF.provider_keys(fake, tok).splitlines()
                if not k.startswith('server-id')]
        text = ('[campaign]\nhosts = %s\nsuite = rw4k\nrounds = 0\ntarget = local\n'
                'size = 8M\nruntime = 1s\nprefill = no\n\n[provider]\n%s\n\n'
                % (' '.join(names), '\n'.join(keys)))
        for k, sid in enumerate(servers):
            text += ('[host %s]\ndirectory = %s\nserver-id = %d\n\n'
                     % (names[k], os.path.join(tmp, 'local-%d' % k), sid))
        text += ('[state snap]\nbefore = snapshot fc-s1\n\n'
                 '[state cleanup]\nbefore = delete-snapshot all-created\n')
        ini = os.path.join(tmp, 'netcup.ini')
        H.write(ini, text)

        # 0. the token in the environment only: refused, before anything
        reset(300)
        env_ini = os.path.join(tmp, 'netcup-env.ini')
        H.write(env_ini, text.replace('token-file = %s\n' % tok, ''))
        d = os.path.join(tmp, 'fleet-env')
        p, w = H.start_watched(['-o', d, env_ini], tmp,
                               {'FIOCAMP_NETCUP_REFRESH_TOKEN': NF.TOKEN})
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 2, 'env: refused (%s)' % err[-3000:])
        check('hosts h1, h2, h3 would refresh one netcup refresh token' in err and
              'set token-file in [provider]' in err, 'env: it says why and what to do: %s'
              % err[-3000:])
        check(not os.path.exists(d), 'env: no fleet directory')
        check_eq(token_posts(fake), [], 'env: no refresh')

        # 1. the fleet, access tokens of 300 s: one refresh for three hosts
        reset(300)
        d = os.path.join(tmp, 'fleet-netcup')
        p, w = H.start_watched(['-o', d, ini], tmp)
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 0, 'fleet: done (%s)' % err[-3000:])
        check_eq(token_posts(fake), [200], 'fleet: one refresh for the three hosts')
        ev = tokens([host_dir(d, n) for n in names])
        check_eq(sorted(e['action'] for e in ev if e['action'] in ('rotated', 'shared')),
                 ['rotated', 'shared', 'shared'],
                 'fleet: one host rotated, the others took its access token')
        check_eq(len([e for e in ev if e['action'] == 'reread']), 2,
                 'fleet: the others read the rotated token from the file')
        check_eq(os.stat(tok + '.access').st_mode & 0o777 if os.path.exists(tok + '.access')
                 else None, 0o600, 'the shared access token has mode 0600')

        # 2. three engines at once without a supervisor: the lock file alone
        reset(300)
        alone = [os.path.join(tmp, 'alone-%s' % n) for n in names]
        runs = [H.start_watched(['--host', n, '-o', a, ini], tmp)
                for n, a in zip(names, alone)]
        for (p, w), n in zip(runs, names):
            rc, out, err = H.finish_watched(p, w)
            check_eq(rc, 0, 'alone: %s done (%s)' % (n, err[-3000:]))
        check_eq(token_posts(fake), [200], 'alone: one refresh for the three engines')
        check_eq(sorted(e['action'] for e in tokens(alone)
                        if e['action'] in ('rotated', 'shared')),
                 ['rotated', 'shared', 'shared'], 'alone: one rotated, two shared')

        # 3. access tokens of 0.4 s (renewed at half-life): refreshes in turns
        reset(0.4)
        d = os.path.join(tmp, 'fleet-short')
        p, w = H.start_watched(['-o', d, ini], tmp)
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 0, 'short: the fleet is done (%s)' % err[-3000:])
        posts = token_posts(fake)
        check(len(posts) >= 2 and set(posts) == {200},
              'short: several refreshes, each with the token the one before '
              'rotated, none refused: %s' % posts)
        ev = tokens([host_dir(d, n) for n in names])
        check(len({n for n in names for e in load_journal(host_dir(d, n))
                   if e['event'] == 'token' and e['action'] == 'reread'}) >= 2,
              'short: hosts read again what another rotated')
        with open(tok) as f:
            check(f.read().strip().startswith('fiocamp-test-refresh-rotated-'),
                  'the token file holds the last rotated token')
    finally:
        fake.stop()
        leaks = sorted({what for what, text in H.CAPTURED if NF.TOKEN in text})
        check_eq(leaks, [], 'the refresh token appears in')


AREAS = {
    'step': test_step,
    'fail': test_fail,
    'resume': test_resume,
    'sigint': test_sigint,
    'line': test_line,
    'proxmox': test_proxmox,
    'netcup': test_netcup,
}


def main():
    area, H.BIN = sys.argv[1], os.path.abspath(sys.argv[2])
    if area == 'proxmox':
        import proxmox_fake as PF
        PF.FAKE = os.path.abspath(sys.argv[3])  # tests/fake-pve/fake_pve.py
    elif area == 'netcup':
        import netcup_fake as NF
        NF.FAKE = os.path.abspath(sys.argv[3])  # tests/fake-scp/fake_scp.py
    with H.scratch('fiocamp-fleet-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
