# SPDX-License-Identifier: MIT
"""The fake Proxmox VE node (tests/fake-pve) as the tests of fiocamp-run
drive it: started on 127.0.0.1 over HTTPS with its control port and SSH
listener, reset, given faults, its tasks held and released; campaigns made
for it, and fiocamp-run run and watched beside it (harness.Watch: the
token's secret must show up nowhere).  Used by test-proxmox-run.py and
test-proxmox-shipped.py.
"""
import json
import os
import re
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
import uuid

import harness as H
from harness import check, check_eq, load_journal, write

FAKE = None  # tests/fake-pve/fake_pve.py, set by the test from its arguments
TOKENID = 'fiocamp@pve!bench'
SECRET = str(uuid.uuid4())
TOKEN = TOKENID + '=' + SECRET
NODE = 'pve1'
VMID = 100
NAME = 'bench'
SCALE = 0.02
# node seconds, as in the published measurement where it gave them (rollback
# 2 s, vzdump 21 s, qmrestore 53, 57, 69, 100 s); the others are the fake's
DURATIONS = {'qmstart': 2, 'qmstop': 1, 'qmshutdown': 6, 'qmreboot': 5, 'qmsnapshot': 1,
             'vmstate': 4, 'qmrollback': 2, 'qmdelsnapshot': 1, 'vzdump': 21,
             'qmrestore': [53, 57, 69, 100], 'qmeventd': 1}
BOOT = 10  # node seconds from a start to the SSH banner
ALL = ['*']


# ---- the fake node ---------------------------------------------------------

class Fake:
    def __init__(self, tmp):
        self.log_path = os.path.join(tmp, 'fake-requests.jsonl')
        self.err = open(os.path.join(tmp, 'fake.stderr'), 'w+')
        # every request the fake gets, held against the vendor's schema at stop()
        self.record_path = os.path.join(tmp, 'api-record.jsonl')
        env = dict(os.environ, FAKE_PVE_TOKEN=TOKEN, FAKE_API_RECORD=self.record_path)
        self.proc = subprocess.Popen(
            [sys.executable, FAKE, '--time-scale', str(SCALE), '--https', '--tls-dir',
             os.path.join(tmp, 'tls'), '--log', self.log_path],
            stdout=subprocess.PIPE, stderr=self.err, env=env, text=True)
        self.hello = json.loads(self.proc.stdout.readline())
        self.api, self.ctl, self.ssh = self.hello['api'], self.hello['control'], self.hello['ssh']
        self.fingerprint = self.hello['fingerprint']
        self.ca_file = self.hello['ca_file']

    def control(self, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request('http://127.0.0.1:%d%s' % (self.ctl, path), data=data,
                                     method='POST' if data is not None else 'GET')
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def reset(self, guest=None, acl=None, **kw):
        g = {'vmid': VMID, 'name': NAME, 'status': 'running', 'data': 'data-0'}
        g.update(guest or {})
        cfg = {'time_scale': SCALE, 'node': NODE, 'durations': dict(DURATIONS),
               'boot_delay': BOOT, 'auth_delay': 3,
               'tokens': [{'tokenid': TOKENID, 'secret': SECRET,
                           'acl': acl if acl is not None else {'/': ALL}}],
               'guests': [g]}
        cfg.update(kw)
        self.control('/_fake/reset', cfg)

    def fault(self, **f):
        self.control('/_fake/fault', f)

    def state(self):
        return self.control('/_fake/state')

    def guest(self):
        return [g for g in self.state()['guests'] if g['vmid'] == VMID][0]

    def tasks(self, type_=None):
        return [t for t in self.state()['tasks'] if type_ is None or t['type'] == type_]

    def requests(self):
        return self.control('/_fake/requests?since=1')['requests']

    def connections(self):
        return self.control('/_fake/connections')

    def api_post(self, path, form):
        """A request of someone else's on the node (the test's own, with the token)."""
        import ssl
        ctx = ssl.create_default_context(cafile=self.ca_file)
        req = urllib.request.Request(
            'https://127.0.0.1:%d/api2/json%s' % (self.api, path),
            data=urllib.parse.urlencode(form).encode(), method='POST',
            headers={'Authorization': 'PVEAPIToken=' + TOKEN})
        with urllib.request.urlopen(req, timeout=10, context=ctx) as r:
            return json.loads(r.read())['data']

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.err.seek(0)
        H.CAPTURED.append(('fake stderr', self.err.read()))
        self.err.close()
        try:
            with open(self.log_path) as f:
                H.CAPTURED.append(('fake request log', f.read()))
        except OSError:
            pass
        H.check_api_record(self.record_path)



# ---- campaigns ----------------------------------------------------------------

def token_file(tmp, text=TOKEN, mode=0o600):
    path = os.path.join(tmp, 'pve.token')
    write(path, text + '\n', mode)
    return path


def provider_keys(fake, tok, trust='pin', extra=''):
    keys = ['type = proxmox', 'api-url = https://127.0.0.1:%d' % fake.api, 'node = %s' % NODE,
            'vmid = %d' % VMID, 'vm-name = %s' % NAME, 'allow-destroy = yes',
            'poll-interval = 50ms', 'lock-wait = 100ms', 'retry-wait = 100ms',
            'task-timeout = 60s', 'http-timeout = 10s']
    if tok:
        keys.append('token-file = %s' % tok)
    if trust == 'pin':
        keys.append('fingerprint = %s' % fake.fingerprint)
    elif trust == 'ca':
        keys.append('ca-file = %s' % fake.ca_file)
    elif trust:
        keys.append('fingerprint = %s' % trust)
    return '\n'.join(keys) + '\n' + extra


def campaign(tmp, fake, name, states, tok=None, trust='pin', extra='', rounds=1):
    """states: [(name, before)] or [(name, before, rounds)] (the state's own
    rounds); 'WAIT' in before is the fake's wait-ssh."""
    text = ('[campaign]\nname = %s\nsuite = rw4k\nrounds = %d\npause = 0s\ntarget = local\n'
            'directory = %s\nsize = 8M\nruntime = 1s\nprefill = no\nwait-timeout = 60s\n\n'
            '[provider]\n%s\n' % (name, rounds, os.path.join(tmp, 'target'),
                                  provider_keys(fake, tok, trust, extra)))
    for sname, before, *own in states:
        text += '[state %s]\n' % sname
        if own:
            text += 'rounds = %d\n' % own[0]
        if before:
            text += 'before = %s\n' % before.replace('WAIT', 'wait-ssh 127.0.0.1:%d' % fake.ssh)
        text += '\n'
    path = os.path.join(tmp, name + '.ini')
    write(path, text)
    return path


# ---- running fiocamp-run ------------------------------------------------------

def start(args, cwd, extra_env=None):
    """fiocamp-run started, its processes watched (harness.Watch)."""
    return H.start_watched(args, cwd, extra_env)


finish = H.finish_watched


def run(args, cwd, extra_env=None, timeout=200):
    p, w = start(args, cwd, extra_env)
    return finish(p, w, timeout)


def state_of(m, name):
    return [s for s in m['states'] if s['name'] == name][0]


def action(m, state, text):
    return [a for a in state_of(m, state)['before'] if a['text'] == text][0]


def writes(reqs):
    return [r for r in reqs if r['method'] in ('POST', 'DELETE', 'PUT')]


def posts(reqs, suffix):
    return [r for r in reqs if r['method'] == 'POST' and r['path'].endswith(suffix)]


def check_running_at_end(fake, d, what, safety=True):
    g = fake.guest()
    check_eq(g['status'], 'running', '%s: the guest runs' % what)
    check_eq(g['lock'], None, '%s: no lock left' % what)
    check_eq([t['upid'] for t in fake.tasks() if t['status'] == 'running'], [],
             '%s: no task runs' % what)
    if not safety:
        return
    ev = [e for e in load_journal(d) if e['event'] == 'ensure-powered-on']
    check_eq(len(ev), 1, '%s: one ensure-powered-on event' % what)
    if ev:
        check_eq(ev[0]['status'], 'done', '%s: ensure-powered-on status' % what)
        check_eq(ev[0]['server_state'], 'running', '%s: the journal says running' % what)
        check(ev[0].get('ssh', {}).get('banner', '').startswith('SSH-2.0-'),
              '%s: SSH answered after the power-on: %r' % (what, ev[0].get('ssh')))


def task_seconds(a):
    return a['task']['duration_s'] if a.get('task') else None


SIGNALS = {'SIGINT': signal.SIGINT, 'SIGTERM': signal.SIGTERM, 'SIGKILL': signal.SIGKILL}


def normalize(method, path):
    """(method, path with placeholders, sorted query keys)."""
    path, _, query = urllib.parse.unquote(path).partition('?')
    path = re.sub(r'/tasks/UPID:[^/]+:/', '/tasks/{upid}/', path)
    path = re.sub(r'^/nodes/%s/tasks/\{upid\}' % NODE, '/nodes/{node}/tasks/{upid}', path)
    path = path.replace('/api2/json', '').replace('{node}', NODE)
    keys = tuple(sorted(k.split('=')[0] for k in query.split('&') if k))
    return method, path, keys


def held(fake, type_):
    return [t for t in fake.tasks(type_) if t.get('held')]


def release(fake, type_=None):
    return fake.control('/_fake/release', {'task': type_} if type_ else {})['released']
