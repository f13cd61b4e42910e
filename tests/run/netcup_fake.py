# SPDX-License-Identifier: MIT
"""The fake netcup SCP server (tests/fake-scp) as the tests of fiocamp-run
drive it: started on 127.0.0.1 with its SSH listener, reset, given faults;
campaigns made local for it, and fiocamp-run run and watched beside it
(harness.Watch: the refresh token must show up nowhere).  Used by
test-netcup-run.py and test-safety.py.
"""
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import urllib.request

import harness as H
from harness import check, check_eq, load_journal, write

FAKE = None  # tests/fake-scp/fake_scp.py, set by the test from its arguments
TOKEN = 'fiocamp-test-refresh-' + secrets.token_hex(16)
SERVER = 111007
SCALE = 0.05
SNAPSHOTS = '/scp-core/api/v1/servers/%d/snapshots' % SERVER


# ---- the fake SCP server ---------------------------------------------------

class Fake:
    def __init__(self, tmp):
        self.log_path = os.path.join(tmp, 'fake-requests.jsonl')
        self.err = open(os.path.join(tmp, 'fake.stderr'), 'w+')
        # every request the fake gets, held against the vendor's schema at stop()
        self.record_path = os.path.join(tmp, 'api-record.jsonl')
        env = dict(os.environ, FAKE_SCP_REFRESH_TOKEN=TOKEN, FAKE_API_RECORD=self.record_path)
        self.proc = subprocess.Popen([sys.executable, FAKE, '--time-scale', str(SCALE),
                                      '--log', self.log_path],
                                     stdout=subprocess.PIPE, stderr=self.err, env=env, text=True)
        ports = json.loads(self.proc.stdout.readline())
        self.http, self.ssh = ports['http'], ports['ssh']
        self.url = 'http://127.0.0.1:%d' % self.http
        self.since = 1

    def call(self, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data,
                                     method='POST' if data is not None else 'GET')
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def reset(self, server=None, **cfg):
        spec = dict(id=SERVER)
        spec.update(server or {})
        cfg.setdefault('time_scale', SCALE)
        cfg.setdefault('lock_window', 5.0)
        cfg.setdefault('boot_delay', 3.0)
        cfg['servers'] = [spec]
        cfg['refresh_token'] = TOKEN
        self.call('/_fake/reset', cfg)

    def fault(self, **f):
        self.call('/_fake/fault', f)

    def server(self):
        return self.call('/_fake/state')['servers'][0]

    def requests(self):
        """The API requests since the last reset (the log starts again at 1)."""
        return self.call('/_fake/requests?since=1')['requests']

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

def provider_keys(fake, token_file=None):
    keys = ['type = netcup', 'server-id = %d' % SERVER,
            'api-url = %s/scp-core' % fake.url, 'auth-url = %s/realms/scp' % fake.url,
            'poll-interval = 100ms', 'lock-wait = 200ms', 'retry-wait = 100ms',
            'unavailable-wait = 100ms', 'task-timeout = 30s', 'http-timeout = 10s']
    if token_file:
        keys.append('token-file = %s' % token_file)
    return '\n'.join(keys) + '\n'


def campaign_head(tmp, name, suite='rw4k', rounds=1):
    return ('[campaign]\nname = %s\nsuite = %s\nrounds = %d\npause = 0s\ntarget = local\n'
            'directory = %s\nsize = 8M\nruntime = 1s\nprefill = no\n\n'
            % (name, suite, rounds, os.path.join(tmp, 'target')))


def worked_example(tmp, fake, token_file, rounds=1):
    """fio-jobs/netcup-snapshot.ini with its [campaign] and [provider] made local:
    the states and their actions are the shipped file's."""
    with open(os.path.join(H.SRCDIR, 'fio-jobs', 'netcup-snapshot.ini')) as f:
        shipped = f.read()
    states = shipped[shipped.index('[state basis]'):]
    states = re.sub(r'wait-ssh(?=;|\s*$)', 'wait-ssh 127.0.0.1:%d' % fake.ssh, states,
                    flags=re.M)
    states = states.replace('settle 45s', 'settle 100ms')
    text = (campaign_head(tmp, 'worked', rounds=rounds) + '[provider]\n' +
            provider_keys(fake, token_file) + '\n' + states)
    path = os.path.join(tmp, 'worked.ini')
    write(path, text)
    return path


def short_campaign(tmp, fake, token_file, name='short'):
    """basis, one offline snapshot, and the cleanup."""
    text = (campaign_head(tmp, name) + '[provider]\n' + provider_keys(fake, token_file) +
            '\n[state basis]\n\n[state snap1]\n'
            'before = power-off; snapshot fc-s1; power-on; wait-ssh 127.0.0.1:%d; '
            'settle 100ms\n\n[state cleanup]\nbefore = delete-snapshot all-created\n'
            % fake.ssh)
    path = os.path.join(tmp, name + '.ini')
    write(path, text)
    return path


def token_file(tmp):
    path = os.path.join(tmp, 'netcup.token')
    write(path, TOKEN + '\n', 0o600)
    return path


# ---- running fiocamp-run ------------------------------------------------------

def start(args, cwd, extra_env=None, sighup=None):
    """fiocamp-run started, its processes watched (harness.Watch).  sighup:
    the disposition of SIGHUP fiocamp-run starts with (SIG_DFL as from a
    terminal, SIG_IGN as under nohup); None: this script's own."""
    pre = (lambda: signal.signal(signal.SIGHUP, sighup)) if sighup is not None else None
    return H.start_watched(args, cwd, extra_env, preexec_fn=pre)


finish = H.finish_watched


def run(args, cwd, extra_env=None, timeout=180):
    p, w = start(args, cwd, extra_env)
    return finish(p, w, timeout)


def writes(reqs):
    return [r for r in reqs if r['method'] in ('POST', 'PATCH', 'DELETE', 'PUT') and
            r['path'].startswith('/scp-core/') and not r['path'].endswith(':dryrun')]


def snapshot_posts(reqs, name=None, taken=False):
    """POSTs of snapshots (taken: only those the API accepted)."""
    return [r for r in reqs if r['method'] == 'POST' and r['path'] == SNAPSHOTS and
            (name is None or json.loads(r['body'])['name'] == name) and
            (not taken or r['status'] == 202)]


def state_of(m, name):
    return [s for s in m['states'] if s['name'] == name][0]


def check_powered_back(fake, d, what):
    srv = fake.server()
    check_eq(srv['serverLiveInfo']['state'], 'RUNNING', '%s: the fake server is RUNNING' % what)
    ev = [e for e in load_journal(d) if e['event'] == 'ensure-powered-on']
    check_eq(len(ev), 1, '%s: one ensure-powered-on event' % what)
    if ev:
        check_eq(ev[0]['status'], 'done', '%s: ensure-powered-on status' % what)
        check_eq(ev[0]['server_state'], 'RUNNING', '%s: the journal says RUNNING' % what)
        check(ev[0].get('ssh', {}).get('banner', '').startswith('SSH-2.0-'),
              '%s: SSH answered after the power-on: %r' % (what, ev[0].get('ssh')))


