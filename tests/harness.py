# SPDX-License-Identifier: MIT
"""What the Python tests share: checks that count and go on, the scratch
directory of a test, waiting for an event, watching processes, a banner
server for wait-ssh, an sshd on 127.0.0.1, running fiocamp-run on a
campaign directory, and a pseudo-terminal with what it shows.  Standard library only; tests/meson.build puts this
folder on PYTHONPATH.

A check never raises: it counts, prints what failed and goes on, so that
one run of a test shows every failure.  Checks may come from several
threads.  A test ends with sys.exit(summary()).

Everything a test waits for it waits for as an event (a journal line, a
port, a pid gone, a file), polled; never for a fixed time.
"""
import contextlib
import fcntl
import hashlib
import json
import os
import pty
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import traceback

SKIPPED = 77  # the exit status meson counts as a skipped test
SRCDIR = os.environ.get('FC_SRCDIR',
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))

# ---- checks ------------------------------------------------------------------

FAILURES = []
CHECKS = [0]
CAPTURED = []  # (what, text): what a test looks through at the end (secrets)
_LOCK = threading.Lock()


def check(cond, what):
    """Counts a check; a false cond is a failure, printed with `what`.
    Returns bool(cond)."""
    with _LOCK:
        CHECKS[0] += 1
        if not cond:
            FAILURES.append(what)
            print('FAIL:', what, file=sys.stderr)
    return bool(cond)


def check_eq(a, b, what):
    return check(a == b, '%s: %r != %r' % (what, a, b))


def summary(extra=''):
    """Prints 'N checks, N failed' (and extra) on stderr; returns the exit
    status: 1 if a check failed, else 0."""
    print('%d checks, %d failed%s' % (CHECKS[0], len(FAILURES), extra), file=sys.stderr)
    return 1 if FAILURES else 0


@contextlib.contextmanager
def scratch(prefix):
    """A new directory of the test's own below the build directory (mode
    0700), removed at the end unless a check failed (then its path is
    printed)."""
    tmp = tempfile.mkdtemp(prefix=prefix, dir=os.environ.get('FC_BUILDDIR'))
    try:
        yield tmp
    finally:
        if FAILURES:
            print('kept', tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def in_parallel(tmp, fake, cases, one, new_fake, workers=3):
    """Runs one(wtmp, wfake, case) for every case, on `workers` threads:
    each with a fake server (new_fake(wtmp)) and a directory of its own
    (the first thread with `fake` and `tmp`), so that the cases, which wait
    for the fake more than they work, overlap.  A case that raises is a
    failure.  No more workers than cases."""
    todo = list(cases)
    workers = max(1, min(workers, len(todo)))
    lock = threading.Lock()

    def worker(k):
        wtmp = tmp if k == 0 else os.path.join(tmp, 'worker%d' % k)
        os.makedirs(wtmp, exist_ok=True)
        wfake = fake if k == 0 else new_fake(wtmp)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    case = todo.pop(0)
                try:
                    one(wtmp, wfake, case)
                except Exception:
                    check(False, 'case %r raised:\n%s' % (case, traceback.format_exc()))
        finally:
            if wfake is not fake:
                wfake.stop()
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# ---- files -------------------------------------------------------------------

def write(path, text, mode=None):
    with open(path, 'w') as f:
        f.write(text)
    if mode is not None:
        os.chmod(path, mode)


def sha256(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def tree_sums(d):
    """{path relative to d: sha256} of every file below d."""
    out = {}
    for root, _, files in os.walk(d):
        for name in files:
            p = os.path.join(root, name)
            out[os.path.relpath(p, d)] = sha256(p)
    return out


# ---- the campaign directory ------------------------------------------------------

def load_manifest(d):
    with open(os.path.join(d, 'manifest.json')) as f:
        return json.load(f)


def load_journal(d, skip=()):
    """The journal's events.  Read while fiocamp-run writes it, its last line
    may not be ended yet: that part is left out (docs/campaign-directory.md:
    a reader skips it); any other line that is no JSON is an error, but for
    the lines in `skip` (a line a test cut on purpose)."""
    with open(os.path.join(d, 'journal.jsonl')) as f:
        lines = f.read().split('\n')
    return [json.loads(line) for line in lines[:-1] if line not in skip]


def journal_has(d, pred):
    try:
        return any(pred(e) for e in load_journal(d))
    except (OSError, ValueError):
        return False


def events(d, name):
    return [e for e in load_journal(d) if e['event'] == name]


# ---- waiting -----------------------------------------------------------------

def wait_for(pred, proc=None, timeout=60, every=0.02):
    """pred()'s first true value, polled every `every` s; None once `proc`
    (if given) has ended or after `timeout` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc is not None and proc.poll() is not None:
            return None
        v = pred()
        if v:
            return v
        time.sleep(every)
    return None


def wait_for_event(d, pred, proc, timeout=120):
    """The first journal event of d that pred accepts, while proc runs."""
    def found():
        try:
            return next((e for e in load_journal(d) if pred(e)), None)
        except (OSError, ValueError):
            return None
    return wait_for(found, proc, timeout, every=0.05)


def alive(pid):
    """pid exists and is no zombie."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def wait_gone(pids, timeout=30):
    """Waits until no pid of pids exists (reaped), at most timeout s."""
    wait_for(lambda: not any(os.path.exists('/proc/%d' % p) for p in pids),
             timeout=timeout, every=0.05)


# ---- processes -----------------------------------------------------------------

def children(pid):
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def proc_tree(pid):
    """pid and all its descendants, parents first."""
    out = [pid]
    for p in out:
        out.extend(children(p))
    return out


def read_proc(pid, what):
    try:
        with open('/proc/%d/%s' % (pid, what), 'rb') as f:
            return f.read().replace(b'\0', b' ').decode('utf-8', 'replace')
    except OSError:
        return ''


def ssh_with(text):
    """The ssh processes (anywhere) whose command line holds text."""
    out = []
    for name in os.listdir('/proc'):
        if name.isdigit() and read_proc(int(name), 'comm').strip() == 'ssh' \
                and text in read_proc(int(name), 'cmdline'):
            out.append(int(name))
    return out


def fio_below(pid):
    """The fio processes below pid."""
    return [p for p in proc_tree(pid)[1:] if read_proc(p, 'comm').strip() == 'fio']


def fio_at_work(pids):
    """pids once fio runs its job among them (a fio with the process of its
    job below it), else []."""
    return pids if any(fio_below(p) for p in pids) else []


class Watch:
    """Reads the command lines of the controller and its children, and the
    environments of the children, into CAPTURED every 50 ms while the run
    lasts (a secret must never show up there)."""

    def __init__(self, proc):
        self.proc = proc
        self.seen = 0
        self.stop = False
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stop and self.proc.poll() is None:
            for pid in proc_tree(self.proc.pid):
                self.seen += 1
                CAPTURED.append(('cmdline of pid %d' % pid, read_proc(pid, 'cmdline')))
                # fiocamp-run's own too, once it has read the token (wiped then)
                if pid != self.proc.pid or self.seen > 40:
                    CAPTURED.append(('environ of pid %d' % pid, read_proc(pid, 'environ')))
            time.sleep(0.05)

    def done(self):
        self.stop = True
        self.thread.join()


def capture_dir(d):
    for root, _, files in os.walk(d):
        for name in files:
            path = os.path.join(root, name)
            with open(path, 'rb') as f:
                CAPTURED.append((path, f.read().decode('utf-8', 'replace')))


API_CHECKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'api',
                           'check-requests.py')


def check_api_record(path):
    """tests/api/check-requests.py over a fake's FAKE_API_RECORD: every
    request fiocamp-run (or the test) sent is as the vendor's published
    schema has it, every answer as the reference documents it.  The record
    goes into CAPTURED; FC_API_RECORDS=DIR keeps a copy of it there."""
    if not os.path.exists(path):
        return  # the fake got no API request
    with open(path) as f:
        CAPTURED.append(('API record', f.read()))
    keep = os.environ.get('FC_API_RECORDS')  # a directory that keeps every record
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(path, tempfile.mkstemp(prefix=os.path.basename(os.path.dirname(path)) + '.',
                                           suffix='.jsonl', dir=keep)[1])
    r = subprocess.run([sys.executable, API_CHECKER, path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    lines = r.stdout.strip().split('\n')
    print(lines[-1])
    check(r.returncode == 0, 'the API requests hold against the schema:\n' +
          '\n'.join(lines[:40]))


# ---- servers on 127.0.0.1 ----------------------------------------------------------

def free_port():
    """A port free now (another program may take it before it is used:
    start_sshd tries again then)."""
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Banner:
    """An SSH server as wait-ssh sees one: a banner on 127.0.0.1, a port of
    its own."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                c.sendall(b'SSH-2.0-OpenSSH_9.2 test\r\n')
                c.close()
            except OSError:
                pass

    def close(self):
        self.sock.close()


def start_sshd(tmp, sshd=None, config=()):
    """An sshd on two ports of 127.0.0.1 that lets this user in with a key of
    its own; on the second port a shell startup file prints a greeting
    first.  sshd: the command that runs sshd with the arguments that follow
    (by default /usr/sbin/sshd itself); config: more lines of its
    sshd_config (SetEnv PATH=... gives its sessions other programs).
    Returns (process, port, noisy port, ssh options), or None when sshd or
    ssh is missing."""
    keygen = shutil.which('ssh-keygen')
    if not os.path.exists('/usr/sbin/sshd') or not keygen or not shutil.which('ssh'):
        return None
    hostkey = os.path.join(tmp, 'hostkey')
    userkey = os.path.join(tmp, 'userkey')
    for k in (hostkey, userkey):
        subprocess.run([keygen, '-q', '-t', 'ed25519', '-N', '', '-f', k], check=True)
    shutil.copy(userkey + '.pub', os.path.join(tmp, 'authorized_keys'))
    # bash run by sshd reads ~/.bashrc, and HOME is another directory there
    noisy_home = os.path.join(tmp, 'noisy-home')
    os.mkdir(noisy_home)
    write(os.path.join(noisy_home, '.bashrc'), 'echo "Welcome to the bench"\n')
    if os.geteuid() == 0:
        os.makedirs('/run/sshd', exist_ok=True)
    opts = ('-i %s -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null '
            '-o LogLevel=ERROR' % userkey)
    for _ in range(5):  # a port taken meanwhile by another program: two others
        port, noisy_port = free_port(), free_port()
        conf = os.path.join(tmp, 'sshd_config')
        write(conf, '\n'.join([
            'Port %d' % port, 'Port %d' % noisy_port, 'ListenAddress 127.0.0.1',
            'HostKey %s' % hostkey,
            'AuthorizedKeysFile %s' % os.path.join(tmp, 'authorized_keys'),
            'PidFile %s' % os.path.join(tmp, 'sshd.pid'), 'StrictModes no', 'UsePAM no',
            'PasswordAuthentication no', 'KbdInteractiveAuthentication no',
            'PermitRootLogin prohibit-password', 'LogLevel ERROR'] + list(config) + [
            'Match LocalPort %d' % noisy_port, 'SetEnv HOME=%s' % noisy_home, '']))
        with open(os.path.join(tmp, 'sshd.log'), 'w') as log:
            proc = subprocess.Popen((sshd or ['/usr/sbin/sshd']) + ['-D', '-e', '-f', conf],
                                    stdout=subprocess.DEVNULL, stderr=log)

        def listens():
            for p in (port, noisy_port):
                try:
                    socket.create_connection(('127.0.0.1', p), timeout=0.5).close()
                except OSError:
                    return False
            return True
        if wait_for(listens, proc, timeout=20, every=0.05):
            return proc, port, noisy_port, opts
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return proc, port, noisy_port, opts


# ---- fiocamp-run ---------------------------------------------------------------

BIN = None  # fiocamp-run, set by the test from its arguments


def env_for_run(extra=None):
    """This environment for fiocamp-run, with the built-in table at the end
    and without any token or ssh options of the caller's."""
    env = dict(os.environ)
    env['FIOCAMP_ANALYZE'] = 'builtin'
    for k in ('FIOCAMP_SSH_OPTS', 'FIOCAMP_NETCUP_REFRESH_TOKEN', 'FIOCAMP_PROXMOX_TOKEN'):
        env.pop(k, None)
    if extra:
        env.update(extra)
    return env


def run(args, cwd, extra_env=None, timeout=300):
    """fiocamp-run with args: (exit status, stdout, stderr)."""
    p = subprocess.run([BIN] + args, cwd=cwd, env=env_for_run(extra_env),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def start_watched(args, cwd, extra_env=None, preexec_fn=None):
    """fiocamp-run started, its processes watched: (Popen, Watch)."""
    p = subprocess.Popen([BIN] + args, cwd=cwd, env=env_for_run(extra_env),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=preexec_fn)
    return p, Watch(p)


def finish_watched(p, w, timeout=200):
    """Waits for a start_watched() run: (exit status, stdout, stderr), the
    output kept in CAPTURED."""
    out, err = p.communicate(timeout=timeout)
    w.done()
    CAPTURED.append(('stdout', out))
    CAPTURED.append(('stderr', err))
    return p.returncode, out, err


def campaign(tmp, name, body, size='8M', runtime='1s', extra=''):
    """A local campaign file tmp/name: its test file below tmp/target, the
    [campaign] keys size, runtime and extra, then body (the states)."""
    target = os.path.join(tmp, 'target')
    text = ('[campaign]\n'
            'directory = %s\n'
            'size      = %s\n'
            'runtime   = %s   ; short\n'
            '%s\n%s') % (target, size, runtime, extra, body)
    path = os.path.join(tmp, name)
    write(path, text)
    return path


def check_round_files(d, state, rnd, tests):
    """The files fiocamp-run writes for each test of a round, and fio's
    report for that test without an error."""
    for t in tests:
        base = os.path.join(d, state, 'r%d' % rnd, t)
        check(os.path.isfile(base + '.json'), '%s.json exists' % base)
        check(os.path.isfile(base + '.fio'), '%s.fio exists' % base)
        check(os.path.isfile(base + '.env'), '%s.env exists' % base)
        check(os.path.isfile(base + '_iops.1.log'), '%s_iops.1.log exists' % base)
        check(os.path.isfile(base + '_bw.1.log'), '%s_bw.1.log exists' % base)
        if os.path.isfile(base + '.json'):
            with open(base + '.json') as f:
                doc = json.load(f)
            check_eq(doc['jobs'][0]['jobname'], t, 'jobname in %s.json' % base)
            check_eq(doc['jobs'][0]['error'], 0, 'error in %s.json' % base)


# ---- a terminal ------------------------------------------------------------------

def run_in_pty(argv, cwd, cols, timeout=240):
    """Runs argv with stdin, stdout and stderr on a new pseudo-terminal of
    `cols` columns; returns (exit status, everything the terminal got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', 24, cols, 0, 0))
    env = dict(os.environ, FIOCAMP_ANALYZE='builtin', TERM='xterm')
    p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                         start_new_session=True)
    os.close(slave)
    out = bytearray()
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer is gone
                break
            if not chunk:
                break
            out += chunk
        elif p.poll() is not None:
            break
    else:
        p.kill()
    rc = p.wait()
    os.close(master)
    return rc, out.decode('utf-8', errors='replace')


def screen(text):
    """The lines a terminal shows after `text`, for what the program writes:
    text, '\\r', '\\n' and ESC [ K (erase to the end of the line).  Returns
    (the lines ended by a newline, the line the cursor is on)."""
    lines, line, col = [], [], 0
    i = 0
    while i < len(text):
        if text.startswith('\033[K', i):
            del line[col:]
            i += 3
            continue
        ch = text[i]
        i += 1
        if ch == '\r':
            col = 0
        elif ch == '\n':
            lines.append(''.join(line))
            line, col = [], 0
        else:
            if col < len(line):
                line[col] = ch
            else:
                line.append(ch)
            col += 1
    return lines, ''.join(line)


def drawings(text):
    """Every status line drawn: what follows '\\r ESC [ K' up to the next
    erase (an event line ends with a newline instead)."""
    return [m for m in re.findall(r'\r\033\[K([^\r\n\033]*)(?=\r\033|\033|\Z)', text) if m]
