#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs test-netcup (C) against the fake SCP server.

usage: test-netcup.py FAKE_SCP_PY TEST_NETCUP_BINARY

Starts the fake on 127.0.0.1 with a fresh random refresh token (passed
through the environment, never argv), runs the C program with the fake's
address, then checks that no token appears in anything captured: the
program's stdout and stderr, the journal events it wrote, the fake's output
and the fake's request log.
"""

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def main():
    fake_py, test_bin = sys.argv[1], sys.argv[2]
    token = "fiocamp-test-refresh-" + secrets.token_hex(16)
    base = os.environ.get("FC_BUILDDIR") or None
    tmp = tempfile.mkdtemp(prefix="netcup-test-", dir=base)
    record_path = os.path.join(tmp, "api-record.jsonl")
    env = dict(os.environ, FAKE_SCP_REFRESH_TOKEN=token)
    env.pop("FIOCAMP_NETCUP_REFRESH_TOKEN", None)
    fake_log = open(os.path.join(tmp, "fake.stderr"), "w+")
    request_log_path = os.path.join(tmp, "requests.jsonl")
    # every request the fake gets, held against netcup's OpenAPI document below
    fake = subprocess.Popen([sys.executable, fake_py, "--time-scale", "0.02",
                             "--log", request_log_path],
                            stdout=subprocess.PIPE, stderr=fake_log,
                            env=dict(env, FAKE_API_RECORD=record_path), text=True)
    status = 1
    try:
        ports = json.loads(fake.stdout.readline())
        url = "http://127.0.0.1:%d" % ports["http"]
        env.update(FAKE_SCP_URL=url, FAKE_SCP_SSH_PORT=str(ports["ssh"]), NETCUP_TEST_DIR=tmp)
        try:
            run = subprocess.run([test_bin], env=env, capture_output=True, text=True,
                                 timeout=150)
        except subprocess.TimeoutExpired as e:
            print("test-netcup timed out", file=sys.stderr)
            sys.stderr.write(e.stderr.decode() if isinstance(e.stderr, bytes) else
                             (e.stderr or ""))
            return 1
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        status = run.returncode

        # Everything the tests captured, searched for any token.
        request_log = read(request_log_path)
        events = read(os.path.join(tmp, "events.jsonl"))
        fake_log.seek(0)
        captured = {
            "stdout": run.stdout,
            "stderr": run.stderr,
            "events": events,
            "fake stderr": fake_log.read(),
            "fake request log": request_log,
            "API record": read(record_path),
        }
        secrets_re = re.compile(re.escape(token) + r"|fiocamp-test-refresh-rotated-|"
                                r"fake-access-|fake-device-")
        for name, text in captured.items():
            m = secrets_re.search(text)
            if m:
                print("a token appears in the %s: ...%s..." % (name, text[max(0, m.start() - 60):
                                                                      m.end()]),
                      file=sys.stderr)
                status = 1
        n_events = events.count("\n")
        if n_events < 100 or '"api-call"' not in events or '"api-response"' not in events:
            print("too few journal events captured (%d)" % n_events, file=sys.stderr)
            status = 1
        if "executingUser" in events or "@example.net" in events:
            print("executingUser reached the journal events", file=sys.stderr)
            status = 1
        n_requests = request_log.count("\n")
        if n_requests < 200 or "Bearer <access-" not in request_log:
            print("too few requests logged (%d)" % n_requests, file=sys.stderr)
            status = 1
        checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api",
                               "check-requests.py")
        chk = subprocess.run([sys.executable, checker, record_path], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        lines = chk.stdout.strip().split("\n")
        if chk.returncode != 0:
            print("the requests do not hold against netcup's schema:\n" +
                  "\n".join(lines[:40]), file=sys.stderr)
            status = 1
        print(lines[-1])
        print("token scan: %d events, %d requests, stdout, stderr: no token found"
              % (n_events, n_requests) if status == 0 else "token scan done")
    finally:
        fake.terminate()
        try:
            fake.wait(timeout=5)
        except subprocess.TimeoutExpired:
            fake.kill()
        fake_log.close()
        if status == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("kept %s for inspection" % tmp, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
