#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mode = aggregate (issue 21): fio's client/server mode over ssh's Unix
socket forwarding, on sshd servers of the test's own on 127.0.0.1.

  server  machine/fioserver.c through tests/run/fioserver-drive: a server
          started on a host (owner-only, on a Unix socket, no TCP port), a
          client through the tunnel, the stop; a server a killed session
          left, found by its pid file and stopped; a fio of another version
          on a host (a wrapper named fio) refused with the table of versions,
          by fioserver-drive and by fiocamp-run's preflight.
  run     fiocamp-run on a campaign of mode = aggregate over three ssh hosts
          (three sshd): the prefill and each test a client run with three
          clients and "All clients", each host's own file and size, no fio
          listening on TCP while it runs (ss -ltnp), the servers stopped at
          the end.
  resume  two hosts; Ctrl-C while a client runs: the servers stopped; then the
          controller killed (kill -9) while a client runs: the servers are
          left; --resume finds and stops them, then finishes.
  refuse  what mode = aggregate does not do, refused before anything runs.
  local   two hosts on this machine: the servers' sockets linked, no tunnel.
  fatal   out of memory (FIOCAMP-RUN: the fail-alloc build): the fatal path
          stops the servers.

Usage: test-aggregate.py AREA FIOCAMP-RUN FIOSERVER-DRIVE
"""
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import traceback

import harness as H
from harness import check, check_eq, write

DRIVE = None


def user():
    return subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()


def host_ini(tmp, name, port, opts):
    """A campaign file for one ssh host on 127.0.0.1:port, its directory
    tmp/NAME."""
    path = os.path.join(tmp, name + '.ini')
    write(path, '[campaign]\n'
          'suite = rr4k\nrounds = 1\nsize = 8M\nruntime = 1s\n'
          'target = ssh %s@127.0.0.1:%d\n'
          'ssh-options = %s\n'
          'directory = %s\n'
          '[state basis]\n' % (user(), port, opts, os.path.join(tmp, name)))
    return path


def fio_tcp_listeners(pids):
    """The lines of `ss -ltnp` that name one of the fio processes pids (other
    tests on this machine may run fio servers of their own)."""
    out = subprocess.run(['ss', '-ltnp'], capture_output=True, text=True).stdout
    return [l for l in out.splitlines()
            if any('"fio",pid=%d,' % q in l for q in pids)]


def fio_server_pids(sock):
    """The fio --server processes on socket sock."""
    pids = []
    for p in os.listdir('/proc'):
        if p.isdigit():
            try:
                with open('/proc/%s/cmdline' % p, 'rb') as f:
                    args = f.read().split(b'\0')
            except OSError:
                continue
            if ('--server=sock:' + sock).encode() in args:
                pids.append(int(p))
    return pids


def parent(pid):
    """The parent of pid, 0 when it is gone."""
    text = H.read_proc(pid, 'stat')
    return int(text.rsplit(')', 1)[1].split()[1]) if text else 0


def stop_servers(tmp):
    """Whatever fio --server a failed check left below tmp, ended: a test
    leaves no process behind."""
    for h in os.listdir(tmp):
        for q in fio_server_pids(os.path.join(tmp, h, '.fiocamp-fio', 'fio.sock')):
            try:
                os.kill(q, signal.SIGKILL)
            except OSError:
                pass


def drive(args, **kw):
    return subprocess.run([DRIVE] + args, capture_output=True, text=True, timeout=120, **kw)


def start_drive(args):
    p = subprocess.Popen([DRIVE] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    return p, line


def guarded(fn):
    """fn, with what it raises a failed check (it runs on a thread)."""
    def run(*args):
        try:
            fn(*args)
        except Exception:
            check(False, '%s raised:\n%s' % (fn.__name__, traceback.format_exc()))
    return run


def killed_session(tmp, port, opts):
    """A session killed: its tunnel ends with it, the server is left; found
    by its pid file and stopped (host k1 of its own: this runs beside the
    server's checks on h1, since its SIGTERM-proof server takes 5 s)."""
    ini = host_ini(tmp, 'k1', port, opts)
    run_dir = os.path.join(tmp, 'run-k1')
    os.mkdir(run_dir, 0o700)
    sock = os.path.join(tmp, 'k1', '.fiocamp-fio', 'fio.sock')
    p, line = start_drive(['start', 'k1', ini, run_dir])
    check(line.startswith('ready '), 'started on k1: %r' % line)
    left = fio_server_pids(sock)
    p.send_signal(signal.SIGKILL)
    p.wait()
    H.wait_gone([p.pid])
    check(any(H.alive(q) for q in left), 'the server outlives a killed controller')
    # one that does not end on SIGTERM (stopped: the signal waits) is killed
    for q in left:
        os.kill(q, signal.SIGSTOP)
    r = drive(['reap', ini])
    check_eq((r.returncode, r.stdout.strip()), (0, 'reaped 1 (killed)'),
             'reaped: %s' % r.stderr)
    H.wait_gone(left)
    check(not any(H.alive(q) for q in left), 'the leftover is gone')
    r = drive(['reap', ini])
    check_eq(r.stdout.strip(), 'reaped 0', 'nothing left the second time')

    # a pid file naming another process is no server of ours
    os.makedirs(os.path.dirname(sock), mode=0o700)
    sleeper = subprocess.Popen(['sleep', '60'])
    write(os.path.join(os.path.dirname(sock), 'fio.pid'), '%d\n' % sleeper.pid)
    r = drive(['reap', ini])
    check_eq(r.stdout.strip(), 'reaped 0', 'a reused pid is no server')
    check(sleeper.poll() is None, 'and is left alone')
    sleeper.kill()
    sleeper.wait()


def check_versions(tmp, port, opts, port_b, opts_b):
    """The versions: the same, then a host (port_b) whose fio says it is
    3.36, refused by fioserver-drive and by fiocamp-run's preflight (hosts
    of their own, v1 and v2, m1 and m2: this runs beside the server's
    checks on h1)."""
    ini_v = host_ini(tmp, 'v1', port, opts)
    ini_b = host_ini(tmp, 'v2', port_b, opts_b)
    r = drive(['versions', 'h1=' + ini_v])
    check_eq(r.returncode, 0, 'the same fio: %s' % r.stderr)
    r = drive(['versions', 'h1=' + ini_v, 'h2=' + ini_b])
    check_eq(r.returncode, 1, 'another fio refused')
    mine = subprocess.run(['fio', '--version'], capture_output=True,
                          text=True).stdout.strip()
    check('mode = aggregate needs the same fio everywhere' in r.stderr and
          'client/server version mismatch' in r.stderr, 'why: %s' % r.stderr)
    check('  controller  %s\n' % mine in r.stderr, 'the table: the controller')
    check('  h1          %s\n' % mine in r.stderr, 'the table: h1')
    check('  h2          fio-3.36   <- differs' in r.stderr, 'the table: h2 differs')

    # the same refusal from fiocamp-run, before any server starts
    agg = os.path.join(tmp, 'mixed.ini')
    write(agg, '[campaign]\nhosts = h1 h2\nmode = aggregate\nsuite = rr4k\n'
          'size = 8M\nruntime = 1s\n'
          '[host h1]\ntarget = ssh %s@127.0.0.1:%d\nssh-options = %s\ndirectory = %s\n'
          '[host h2]\ntarget = ssh %s@127.0.0.1:%d\nssh-options = %s\ndirectory = %s\n'
          '[state basis]\n' % (user(), port, opts, os.path.join(tmp, 'm1'),
                                user(), port_b, opts_b, os.path.join(tmp, 'm2')))
    d = os.path.join(tmp, 'mixed')
    rc, out, err = H.run(['-o', d, agg], tmp)
    check_eq(rc, 1, 'fiocamp-run refuses the mixed fio')
    check('preflight failed: fio differs between the hosts and this controller' in err and
          '  h2          fio-3.36   <- differs' in err, 'with the table: %s' % err)
    j = H.load_journal(d)
    check_eq([e for e in j if e['event'] == 'fio-server-start'], [], 'no server started')
    check_eq(sorted(e['host'] for e in j if e['event'] == 'host-preflight'), ['h1', 'h2'],
             'both preflights journaled')


def test_server(tmp):
    os.mkdir(os.path.join(tmp, 'sshd-a'))
    started = H.start_sshd(os.path.join(tmp, 'sshd-a'))
    if started is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    # the second host's fio is a wrapper that says it is another release
    wrap = os.path.join(tmp, 'wrap')
    os.mkdir(wrap)
    write(os.path.join(wrap, 'fio'), '#!/bin/sh\n'
          'if [ "$1" = --version ]; then echo fio-3.36; exit 0; fi\n'
          'exec /usr/bin/fio "$@"\n', mode=0o755)
    os.mkdir(os.path.join(tmp, 'sshd-b'))
    started_b = H.start_sshd(os.path.join(tmp, 'sshd-b'), config=[
        'SetEnv PATH=%s:/usr/local/bin:/usr/bin:/bin' % wrap])
    proc, port, _, opts = started
    proc_b, port_b, _, opts_b = started_b
    # the versions' checks meet no server: beside the rest, on a thread
    versions = threading.Thread(target=guarded(check_versions),
                                args=(tmp, port, opts, port_b, opts_b))
    killed = threading.Thread(target=guarded(killed_session), args=(tmp, port, opts))
    try:
        versions.start()
        killed.start()
        ini = host_ini(tmp, 'h1', port, opts)
        run_dir = os.path.join(tmp, 'run')
        os.mkdir(run_dir, 0o700)
        sock = os.path.join(tmp, 'h1', '.fiocamp-fio', 'fio.sock')

        # started, answered, owner-only, no TCP port, a client through the tunnel
        p, line = start_drive(['start', 'h1', ini, run_dir])
        check(line.startswith('ready '), 'the server answered: %r %s' % (
            line, '' if line else p.stderr.read()))
        # the server, and maybe the child that served the probe's connection
        pids = fio_server_pids(sock)
        server = int(line.split()[1]) if line.startswith('ready ') else 0
        check(server in pids, 'the pid said is a fio --server on the socket')
        check_eq([q for q in pids if q != server and parent(q) != server], [],
                 'one server')
        mode = stat.S_IMODE(os.stat(os.path.dirname(sock)).st_mode)
        check_eq(mode, 0o700, "the server's directory is owner-only")
        check(stat.S_ISSOCK(os.stat(sock).st_mode), 'a Unix socket')
        local = os.path.join(run_dir, 'clients', 'h1')
        check(stat.S_ISSOCK(os.lstat(local).st_mode), "the tunnel's socket here")
        check_eq(stat.S_IMODE(os.lstat(local).st_mode), 0o600, 'owner-only too')
        check(pids, 'fio processes on the socket')
        check_eq(fio_tcp_listeners(pids), [], 'none of them listens on TCP')
        job = os.path.join(tmp, 'job.fio')
        write(job, '[one]\nioengine=null\nsize=4m\n')
        c = subprocess.run(['fio', '--output-format=json', '--client=sock:h1', job],
                           cwd=os.path.dirname(local), capture_output=True, text=True, timeout=60)
        check_eq(c.returncode, 0, 'a client through the tunnel: %s' % c.stderr)
        check('"hostname" : "h1"' in c.stdout, 'the client is called by the host name')

        # a second start (another session's: a run directory of its own)
        # finds the server running and leaves it alone
        run2 = os.path.join(tmp, 'run2')
        os.mkdir(run2, 0o700)
        r = drive(['start', 'h1', ini, run2], input='')
        check_eq(r.returncode, 1, 'a second server refused')
        check('a fio server runs in %s on %s@127.0.0.1 already (pid %d)' % (
            os.path.dirname(sock), user(), server) in r.stderr,
            'the message names its pid: %s' % r.stderr)
        check(H.alive(server), 'the running one untouched')
        check(not os.path.lexists(os.path.join(run2, 'clients', 'h1')),
              "the refused start's tunnel closed")

        # probed again: it answers; with its server gone the host is named
        p.stdin.write('probe\n')
        p.stdin.flush()
        check_eq(p.stdout.readline(), 'probe answered\n', 'the server answers again')
        os.kill(server, signal.SIGKILL)
        H.wait_gone([server])
        p.stdin.write('probe\n')
        p.stdin.flush()
        said = p.stdout.readline()
        check(said.startswith("probe failed: host h1: fio's server on %s@127.0.0.1 does not "
                              "answer through the tunnel" % user()), 'the host named: %r' % said)

        # stopped: server (its connection's child), socket, pid file, tunnel
        p.stdin.close()
        check_eq(p.stdout.read().strip(), 'stopped', 'the stop said so')
        check_eq(p.wait(timeout=60), 0, 'the drive ended well: %s' % p.stderr.read())
        H.wait_gone(pids)
        check(not any(H.alive(q) for q in pids), 'the server is gone')
        check(not os.path.exists(os.path.dirname(sock)), 'its directory removed')
        check(not os.path.lexists(local), "the tunnel's socket removed")

    finally:
        for t in (versions, killed):
            if t.ident:
                t.join()
        stop_servers(tmp)
        for pr in (proc, proc_b):
            pr.terminate()
            pr.wait(timeout=10)


def three_hosts(tmp, n=3, suite='rr4k rw4k', states=2):
    """Three sshd on 127.0.0.1 (None when sshd is missing) and a campaign of
    mode = aggregate over them: host hN's directory tmp/hN, its size N*8M;
    with n, that many hosts; two rounds of `suite` in each of `states`
    states (basis, then second)."""
    started = []
    for k in range(1, n + 1):
        d = os.path.join(tmp, 'sshd-%d' % k)
        os.mkdir(d)
        one = H.start_sshd(d)
        if one is None:
            return None, None
        started.append(one)
    ini = os.path.join(tmp, 'agg.ini')
    text = ('[campaign]\n'
            'hosts = %s\n' % ' '.join('h%d' % k for k in range(1, n + 1)) +
            'mode = aggregate\n'
            'suite = %s\n' % suite +
            'rounds = 2\n'
            'pause = 0s\n'
            'runtime = 1s\n'
            'size = 8M\n'
            'ioengine = psync\n'
            'direct = 0\n'
            'prefill = yes\n')
    for k, (_, port, _, opts) in enumerate(started, 1):
        text += ('\n[host h%d]\n'
                 'target = ssh %s@127.0.0.1:%d\n'
                 'ssh-options = %s\n'
                 'directory = %s\n'
                 'size = %dM\n') % (k, user(), port, opts, os.path.join(tmp, 'h%d' % k), 8 * k)
    text += '\n[state basis]\n'
    if states > 1:
        text += '\n[state second]\nbefore = settle 0s\n'
    write(ini, text)
    return [s[0] for s in started], ini


def client_report(path):
    """fio's client JSON (the server's lines relayed before it skipped)."""
    with open(path) as f:
        text = f.read()
    return json.loads(text[text.index('\n{') + 1:] if not text.startswith('{') else text)


def check_aggregate_result(tmp, d, rounds=2, n=3):
    names = ['h%d' % k for k in range(1, n + 1)]
    m = H.load_manifest(d)
    check_eq(m['status'], 'done', 'campaign status')
    # the prefill: one client run writing every host's whole test file
    check_eq(m['prefill']['status'], 'done', 'the prefill')
    if m['prefill'].get('json'):
        rep = client_report(os.path.join(d, m['prefill']['json']))
        w = {c['hostname']: c['write']['io_bytes'] for c in rep.get('client_stats', [])
             if c['jobname'] != 'All clients'}
        check_eq(w, {h: (8 * k) << 20 for k, h in enumerate(names, 1)},
                 'each host wrote its whole file')
    check_eq(m.get('mode'), 'aggregate', 'the manifest says aggregate')
    check_eq([h['name'] for h in m.get('hosts', [])], names, 'its hosts')
    mine = subprocess.run(['fio', '--version'], capture_output=True, text=True).stdout.strip()
    check_eq(m.get('fio_version'), mine, "the controller's fio")
    check_eq([h['fio_version'] for h in m.get('hosts', [])], [mine] * n, "the hosts' fio")
    for st in m['states']:
        check_eq(len(st['rounds']), rounds, '%s: rounds' % st['name'])
        for r, rnd in enumerate(st['rounds'], 1):
            check_eq(rnd.get('clients'), [{'host': h, 'hostname': h, 'port': 8765}
                                          for h in names],
                     '%s r%d: its clients in --client order' % (st['name'], r))
            for t in rnd['tests']:
                where = '%s r%d %s' % (st['name'], r, t['test'])
                check_eq(t['status'], 'done', where + ': status (%s)' % t.get('error'))
                check_eq(sorted(t.get('jobs', {})), names, where + ': job files')
                check_eq(sorted(t.get('client_iops', {})), names,
                         where + ': each client\'s IOPS')
                check_eq(len(t.get('logs', [])), 2 * n, where + ': a bw and an iops log per host')
                if not t.get('json'):
                    continue
                rep = client_report(os.path.join(d, t['json']))
                cs = rep.get('client_stats', [])
                jobnames = sorted(c['jobname'] for c in cs)
                check_eq(jobnames, ['All clients'] + [t['test']] * n, where + ': client_stats')
                hosts = {c['hostname']: c for c in cs if c['jobname'] != 'All clients'}
                check_eq(sorted(hosts), names, where + ': by host')
                check(all(c['port'] == 8765 for c in cs), where + ': the port fio reports')
                # the job files set them in [global]: "global options", one object
                # with a key per server repeated (fio before 3.39)
                with open(os.path.join(d, t['json'])) as f:
                    raw = f.read()
                for k in range(1, n + 1):
                    check_eq(hosts.get('h%d' % k, {}).get('error'), 0,
                             where + ': h%d without an error' % k)
                    test_file = os.path.join(tmp, 'h%d' % k, 'fiocamp.testfile')
                    check('"filename" : "%s"' % test_file in raw and
                          '"size" : "%d"' % ((8 * k) << 20) in raw,
                          where + ': h%d ran on its own file and size' % k)
                    with open(os.path.join(d, t['jobs']['h%d' % k])) as f:
                        job = f.read()
                    check('filename=%s\n' % test_file in job and
                          'size=%d\n' % ((8 * k) << 20) in job and
                          '${FIOCAMP_' not in job.split('[global]', 1)[-1],
                          where + ": h%d's job file carries its values" % k)


def no_servers_left(tmp, n=3):
    for k in range(1, n + 1):
        sock = os.path.join(tmp, 'h%d' % k, '.fiocamp-fio', 'fio.sock')
        check_eq(fio_server_pids(sock), [], 'no server left on h%d' % k)
        check(not os.path.exists(os.path.dirname(sock)), "h%d's socket directory removed" % k)


def test_run(tmp):
    procs, ini = three_hosts(tmp, states=1)
    if procs is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        os.mkdir(os.path.join(tmp, 't'))
        d = os.path.join(tmp, 'camp')
        p, w = H.start_watched(['-o', d, ini], tmp, {'TMPDIR': os.path.join(tmp, 't')})
        e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start', p)
        check(e is not None, 'a client run began')
        # while it runs: three servers on Unix sockets, none on TCP
        servers = [fio_server_pids(os.path.join(tmp, 'h%d' % k, '.fiocamp-fio', 'fio.sock'))
                   for k in (1, 2, 3)]
        check(all(servers), 'a server on each host: %r' % servers)
        check_eq(fio_tcp_listeners(sum(servers, [])), [],
                 'no fio of theirs listens on TCP (ss -ltnp)')
        unix = subprocess.run(['ss', '-lxp'], capture_output=True, text=True).stdout
        check(all(os.path.join(tmp, 'h%d' % k, '.fiocamp-fio', 'fio.sock') in unix
                  for k in (1, 2, 3)), 'each listens on its Unix socket (ss -lxp)')
        if e:
            check('--client=sock:h1' in e.get('argv', '') and
                  '--client=sock:h3' in e.get('argv', ''), 'one client over all: %s' %
                  e.get('argv'))
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 0, 'exit status (%s)' % err[-3000:])
        check_aggregate_result(tmp, d)
        no_servers_left(tmp)
        check_eq(os.listdir(os.path.join(tmp, 't')), [], 'the run directory removed')
        # the table at the end: All clients is not counted again
        m = H.load_manifest(d)
        iops = sorted(t['iops'] for r in m['states'][0]['rounds'] for t in r['tests']
                      if t['test'] == 'rr4k')
        row = [l.split() for l in out.splitlines() if l.split()[:2] == ['basis', 'rr4k']]
        check(row and len(iops) == 2 and abs(float(row[0][3]) - sum(iops) / 2) <= 1,
              'the median of the sums over the clients: %r %r' % (row, iops))
        j = H.load_journal(d)
        check_eq(sorted(e['host'] for e in j if e['event'] == 'fio-server-start'),
                 ['h1', 'h2', 'h3'], 'three servers started')
        check_eq(sorted(e['host'] for e in j if e['event'] == 'fio-server-stop' and
                        e['status'] == 'done'), ['h1', 'h2', 'h3'], 'three stopped')
        for k in (1, 2, 3):
            check(not os.path.exists(os.path.join(tmp, 'h%d' % k, 'fiocamp.testfile')),
                  "h%d's test file removed at the end" % k)
    finally:
        stop_servers(tmp)
        for pr in procs:
            pr.terminate()
            pr.wait(timeout=10)


def test_resume(tmp):
    """Two hosts (three sessions, each with its preflights and server starts,
    over two rounds of one test): what is checked is the way the servers end
    and are found again, not how many clients run."""
    procs, ini = three_hosts(tmp, n=2, suite='rr4k', states=1)
    if procs is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        d = os.path.join(tmp, 'camp')
        socks = [os.path.join(tmp, 'h%d' % k, '.fiocamp-fio', 'fio.sock') for k in (1, 2)]
        # Ctrl-C while a client runs: it stops the servers' jobs, the
        # session stops the servers on its way out
        p, w = H.start_watched(['-o', d, ini], tmp)
        e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and
                             e.get('state') == 'basis', p)
        check(e is not None, 'a client run began')
        running = [fio_server_pids(s) for s in socks]
        os.kill(p.pid, signal.SIGINT)
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 130, 'interrupted (%s)' % err[-2000:])
        for pids in running:
            H.wait_gone(pids)
            check(not any(H.alive(q) for q in pids), 'the server stopped after Ctrl-C')
        no_servers_left(tmp, n=2)
        j = H.load_journal(d)
        check_eq(sorted(e['host'] for e in j if e['event'] == 'fio-server-stop' and
                        e['status'] == 'done'), ['h1', 'h2'], 'each stopped')
        check_eq(H.load_manifest(d)['states'][0]['rounds'][0]['tests'][0]['status'],
                 'interrupted', 'the run cut short is recorded so')

        # kill -9 while a client runs: the servers are left
        p, w = H.start_watched(['--resume', d], tmp)
        e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and
                             e.get('state') == 'basis' and e.get('round') == 2, p)
        check(e is not None, 'round 2 began')
        os.kill(p.pid, signal.SIGKILL)
        H.finish_watched(p, w)
        left = [fio_server_pids(s) for s in socks]
        check(all(left), 'the servers outlive the killed controller: %r' % left)
        rc, out, err = H.run(['--resume', d], tmp)
        check_eq(rc, 0, 'the resume ends well (%s)' % err[-3000:])
        for pids in left:
            H.wait_gone(pids)
            check(not any(H.alive(q) for q in pids), 'the leftover server is gone')
        j = H.load_journal(d)
        check_eq(sorted(e['host'] for e in j if e['event'] == 'leftover-fio-server' and
                        e['stopped'] == 1), ['h1', 'h2'], 'each found and stopped')
        check('stopped the fio server an earlier session left running' in err,
              'and said so: %s' % err[-2000:])
        check_aggregate_result(tmp, d, n=2)
        no_servers_left(tmp, n=2)
    finally:
        stop_servers(tmp)
        for pr in procs:
            pr.terminate()
            pr.wait(timeout=10)


def test_fatal(tmp):
    """Out of memory between two client runs (H.BIN: the test build whose next
    allocation fails once the trigger file exists): the fatal path stops the
    servers too."""
    procs, ini = three_hosts(tmp, n=2, suite='rr4k', states=1)
    if procs is None:
        print('sshd or ssh missing: skipped')
        return H.SKIPPED
    try:
        d = os.path.join(tmp, 'camp')
        trigger = os.path.join(tmp, 'fail-alloc-now')
        p, w = H.start_watched(['-o', d, ini], tmp, {'FIOCAMP_TEST_FAIL_ALLOC': trigger})
        e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and
                             e.get('state') == 'basis', p)
        check(e is not None, 'a client run began')
        socks = [os.path.join(tmp, 'h%d' % k, '.fiocamp-fio', 'fio.sock') for k in (1, 2)]
        running = [fio_server_pids(s) for s in socks]
        check(all(running), 'the servers run')
        write(trigger, '')
        rc, out, err = H.finish_watched(p, w)
        check_eq(rc, 1, 'the fatal exit status (%s)' % err[-1500:])
        check('fiocamp-run: out of memory' in err, 'says why: %s' % err[-1500:])
        for pids in running:
            H.wait_gone(pids)
            check(not any(H.alive(q) for q in pids), 'the server stopped on the fatal path')
        j = H.load_journal(d)
        check_eq(sorted(e['host'] for e in j if e['event'] == 'fio-server-stop' and
                        e['status'] == 'done'), ['h1', 'h2'], 'each stopped')
        check(any(e['event'] == 'error' and e.get('step') == 'fatal' for e in j),
              'the journal has the fatal error')
    finally:
        stop_servers(tmp)
        for pr in procs:
            pr.terminate()
            pr.wait(timeout=10)


def test_local(tmp):
    """Two hosts on this machine (target = local): the client reaches each
    server's socket through a link in the run directory, no tunnel."""
    ini = os.path.join(tmp, 'local.ini')
    write(ini, '[campaign]\nhosts = a b\nmode = aggregate\nsuite = rr4k\nrounds = 1\n'
          'size = 8M\nruntime = 1s\nioengine = psync\ndirect = 0\n'
          '[host a]\ndirectory = %s\n[host b]\ndirectory = %s\nsize = 16M\n'
          '[state basis]\n' % (os.path.join(tmp, 'a'), os.path.join(tmp, 'b')))
    os.mkdir(os.path.join(tmp, 't'))
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-o', d, ini], tmp, {'TMPDIR': os.path.join(tmp, 't')})
    check_eq(rc, 0, 'exit status (%s)' % err[-2000:])
    m = H.load_manifest(d)
    rnd = m['states'][0]['rounds'][0]
    check_eq([c['host'] for c in rnd.get('clients', [])], ['a', 'b'], 'its clients')
    t = rnd['tests'][0]
    check_eq((t['status'], sorted(t.get('client_iops', {}))), ('done', ['a', 'b']),
             'one run over both (%s)' % t.get('error'))
    if t.get('json'):
        rep = client_report(os.path.join(d, t['json']))
        cs = rep['client_stats']
        check_eq(sorted(c['hostname'] for c in cs if c['jobname'] != 'All clients'),
                 ['a', 'b'], 'both clients')
        check_eq([c['jobname'] for c in cs].count('All clients'), 1, 'and All clients')
    for h in ('a', 'b'):
        check(not os.path.exists(os.path.join(tmp, h, '.fiocamp-fio')),
              "%s's server directory removed" % h)
    check_eq(os.listdir(os.path.join(tmp, 't')), [], 'the run directory removed')
    stop_servers(tmp)
    local_failures(tmp)


def local_failures(tmp):
    """The hosts' preflights, then their servers' starts, run at once: each
    failure is said with its host's name, in the order of the hosts, and
    the servers that did start are stopped again."""
    # b and c cannot make their directories (below a file); a can
    write(os.path.join(tmp, 'file'), '')
    ini = os.path.join(tmp, 'bad-dirs.ini')
    write(ini, '[campaign]\nhosts = a c b\nmode = aggregate\nsuite = rr4k\nrounds = 1\n'
          'size = 8M\nruntime = 1s\nioengine = psync\ndirect = 0\n'
          '[host a]\ndirectory = %s\n[host b]\ndirectory = %s\n[host c]\ndirectory = %s\n'
          '[state basis]\n' % (os.path.join(tmp, 'a'), os.path.join(tmp, 'file', 'b'),
                                os.path.join(tmp, 'file', 'c')))
    d = os.path.join(tmp, 'camp-dirs')
    rc, out, err = H.run(['-o', d, ini], tmp, {'TMPDIR': os.path.join(tmp, 't')})
    check_eq(rc, 1, 'the preflight fails (%s)' % err[-2000:])
    at_c = err.find('preflight failed: host c: cannot create')
    at_b = err.find('\nhost b: cannot create')
    check(0 <= at_c < at_b, 'both said, c first as in hosts =: %s' % err[-2000:])
    j = H.load_journal(d)
    check_eq([e['host'] for e in j if e['event'] == 'host-preflight'], ['a'],
             'the preflight that passed is journaled')
    check_eq([e for e in j if e['event'] == 'fio-server-start'], [], 'no server started')

    # b's directory has a server running already (not ours to stop): a's
    # server starts beside b's refusal, and is stopped again
    sdir = os.path.join(tmp, 'b', '.fiocamp-fio')
    os.makedirs(sdir, mode=0o700)
    sock, pidf = os.path.join(sdir, 'fio.sock'), os.path.join(sdir, 'fio.pid')
    subprocess.run(['fio', '--server=sock:' + sock, '--daemonize=' + pidf], check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=60)
    H.wait_for(lambda: os.path.exists(pidf) and stat.S_ISSOCK(os.stat(sock).st_mode)
               if os.path.exists(sock) else False)
    other = int(open(pidf).read())
    try:
        ini = os.path.join(tmp, 'busy.ini')
        write(ini, '[campaign]\nhosts = a b\nmode = aggregate\nsuite = rr4k\nrounds = 1\n'
              'size = 8M\nruntime = 1s\nioengine = psync\ndirect = 0\n'
              '[host a]\ndirectory = %s\n[host b]\ndirectory = %s\n[state basis]\n' % (
                  os.path.join(tmp, 'a'), os.path.join(tmp, 'b')))
        d = os.path.join(tmp, 'camp-busy')
        rc, out, err = H.run(['-o', d, ini], tmp, {'TMPDIR': os.path.join(tmp, 't')})
        check_eq(rc, 1, 'the start fails (%s)' % err[-2000:])
        check('host b: a fio server runs in %s on this machine already (pid %d)' % (
            sdir, other) in err, 'the host and the pid named: %s' % err[-2000:])
        j = H.load_journal(d)
        check_eq([(e['host'], e['status']) for e in j if e['event'] == 'fio-server-start'],
                 [('a', 'done'), ('b', 'failed')], 'both starts journaled, in order')
        check_eq([(e['host'], e['status']) for e in j if e['event'] == 'fio-server-stop'],
                 [('a', 'done')], "a's server stopped again")
        check_eq(fio_server_pids(os.path.join(tmp, 'a', '.fiocamp-fio', 'fio.sock')), [],
                 "no server left on a")
        check(not os.path.exists(os.path.join(tmp, 'a', '.fiocamp-fio')),
              "a's server directory removed")
        check(H.alive(other), "b's server untouched")
        check_eq(os.listdir(os.path.join(tmp, 't')), [], 'the run directory removed')
    finally:
        stop_servers(tmp)


def test_refuse(tmp):
    ini = os.path.join(tmp, 'bad.ini')
    write(ini, '[campaign]\nhosts = h1 h2\nmode = aggregate\nsuite = rr4k\n'
          'size = 8M\nruntime = 1s\n'
          '[host h1]\ndirectory = %s\n[host h2]\ndirectory = %s\n'
          '[state basis]\nbefore = remote true; settle 0s\n' % (
              os.path.join(tmp, 'x1'), os.path.join(tmp, 'x2')))
    rc, out, err = H.run(['-o', os.path.join(tmp, 'camp'), ini], tmp)
    check_eq(rc, 2, 'refused as a usage error')
    check('%s:12: state basis: `remote` acts on one machine' % ini in err, 'why: %s' % err)
    check(not os.path.exists(os.path.join(tmp, 'camp')), 'nothing made')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, '--dry-run refuses it too')
    write(ini, open(ini).read().replace('before = remote true; settle 0s', 'before = settle 1s'))
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, 'the plan (%s)' % err)
    check('each run: fio --output-format=json --client=sock:h1 TEST.h1.fio '
          '--client=sock:h2 TEST.h2.fio\n' in out, 'one client over both: %s' % out)
    check('state basis: settle 1s; 1 round of rr4k\n' in out, 'the state: %s' % out)


AREAS = {
    'server': test_server,
    'run': test_run,
    'resume': test_resume,
    'refuse': test_refuse,
    'fatal': test_fatal,
    'local': test_local,
}


def main():
    global DRIVE
    area, H.BIN, DRIVE = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    with H.scratch('aggregate-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
