#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mode = aggregate (issue 21): fio's client/server mode over ssh's Unix
socket forwarding, on sshd servers of the test's own on 127.0.0.1.

  server  machine/fioserver.c through tests/run/fioserver-drive: a server
          started on a host (owner-only, on a Unix socket, no TCP port), a
          client through the tunnel, the stop; a server a killed session
          left, found by its pid file and stopped; a fio of another version
          on a host (a wrapper named fio) refused with the table of versions.

Usage: test-aggregate.py AREA FIOCAMP-RUN FIOSERVER-DRIVE
"""
import os
import signal
import stat
import subprocess
import sys

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


def fio_tcp_listeners():
    """The lines of `ss -ltnp` that name a fio process."""
    out = subprocess.run(['ss', '-ltnp'], capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if '"fio"' in l]


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


def drive(args, **kw):
    return subprocess.run([DRIVE] + args, capture_output=True, text=True, timeout=120, **kw)


def start_drive(args):
    p = subprocess.Popen([DRIVE] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    return p, line


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
    try:
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
        local = os.path.join(run_dir, 'h1')
        check(stat.S_ISSOCK(os.lstat(local).st_mode), "the tunnel's socket here")
        check_eq(stat.S_IMODE(os.lstat(local).st_mode), 0o600, 'owner-only too')
        check_eq(fio_tcp_listeners(), [], 'no fio listens on TCP')
        job = os.path.join(tmp, 'job.fio')
        write(job, '[one]\nioengine=null\nsize=4m\n')
        c = subprocess.run(['fio', '--output-format=json', '--client=sock:h1', job],
                           cwd=run_dir, capture_output=True, text=True, timeout=60)
        check_eq(c.returncode, 0, 'a client through the tunnel: %s' % c.stderr)
        check('"hostname" : "h1"' in c.stdout, 'the client is called by the host name')

        # a second start finds the server running and leaves it alone
        r = drive(['start', 'h1', ini, os.path.join(tmp, 'run')], input='')
        check_eq(r.returncode, 1, 'a second server refused')
        check('a fio server runs in %s on %s@127.0.0.1 already (pid %d)' % (
            os.path.dirname(sock), user(), server) in r.stderr,
            'the message names its pid: %s' % r.stderr)
        check(H.alive(server), 'the running one untouched')

        # stopped: server, socket, pid file, tunnel
        p.stdin.close()
        check_eq(p.stdout.read().strip(), 'stopped', 'the stop said so')
        check_eq(p.wait(timeout=60), 0, 'the drive ended well: %s' % p.stderr.read())
        H.wait_gone(pids)
        check(not any(H.alive(q) for q in pids), 'the server is gone')
        check(not os.path.exists(os.path.dirname(sock)), 'its directory removed')
        check(not os.path.lexists(local), "the tunnel's socket removed")

        # a session killed: its tunnel ends with it, the server is left; found
        # by its pid file and stopped
        p, line = start_drive(['start', 'h1', ini, run_dir])
        check(line.startswith('ready '), 'started again: %r' % line)
        left = fio_server_pids(sock)
        p.send_signal(signal.SIGKILL)
        p.wait()
        H.wait_gone([p.pid])
        check(any(H.alive(q) for q in left), 'the server outlives a killed controller')
        r = drive(['reap', ini])
        check_eq((r.returncode, r.stdout.strip()), (0, 'reaped 1'), 'reaped: %s' % r.stderr)
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

        # versions: the same, then a host whose fio says it is 3.36
        ini_b = host_ini(tmp, 'h2', port_b, opts_b)
        r = drive(['versions', 'h1=' + ini])
        check_eq(r.returncode, 0, 'the same fio: %s' % r.stderr)
        r = drive(['versions', 'h1=' + ini, 'h2=' + ini_b])
        check_eq(r.returncode, 1, 'another fio refused')
        mine = subprocess.run(['fio', '--version'], capture_output=True,
                              text=True).stdout.strip()
        check('mode = aggregate needs the same fio everywhere' in r.stderr and
              'client/server version mismatch' in r.stderr, 'why: %s' % r.stderr)
        check('  controller  %s\n' % mine in r.stderr, 'the table: the controller')
        check('  h1          %s\n' % mine in r.stderr, 'the table: h1')
        check('  h2          fio-3.36   <- differs' in r.stderr, 'the table: h2 differs')
    finally:
        for pr in (proc, proc_b):
            pr.terminate()
            pr.wait(timeout=10)


AREAS = {
    'server': test_server,
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
