#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A fake netcup Server Control Panel (SCP) REST API for tests.

Behaves as netcup's OpenAPI document and the API's recorded answers show
the real one:
the Keycloak token endpoint (refresh_token and device-code grants, access
tokens that expire), 401 on expired or unknown tokens, servers with a
RUNNING/SHUTOFF state machine changed by PATCH (merge-patch, one attribute,
Content-Type enforced), tasks going PENDING -> RUNNING -> FINISHED with the
durations seen in the recorded live traffic (multiplied by --time-scale), the
409 server.lock.error window after power tasks, the UEFI 400 for online
snapshots, the dry-run answering a JSON array, snapshots (create, list, get,
delete, revert; revert powers off and on by itself), executingUser in task
responses, and an "SSH" TCP listener that refuses connections while the
server is off and sends an SSH-2.0 banner once it has booted.

Where the reference marks the real behaviour as unknown, this fake picks
something plausible and says so in a comment ("fake's choice").

Standard library only.  Listens on 127.0.0.1, port 0 by default; the first
line on stdout is JSON: {"http": PORT, "ssh": PORT}.  Stop it with SIGTERM.

Control endpoints (never logged, JSON in and out):
  POST /_fake/reset          {"servers": [...], "refresh_token": ..., ...}
                             a server: {"id", "state", "uefi", "snapshotAllowed",
                             "disks", "liveInfo", "snapshots": [names taken already]}
                             "rotate": true: every refresh hands out a new
                             refresh token and the one sent is refused from
                             then on (invalid_grant), as Keycloak does with
                             "Revoke Refresh Token" on; "token_lifetime": the
                             access tokens' expires_in (s)
  POST /_fake/fault          one fault: {"kind", "method", "path", "prefix",
                             "count" (how many requests it hits, default 1),
                             "skip" (how many matching requests pass first)}
                             kinds: "status" (answer "status" with "body"
                             instead of running the request), "drop" (close
                             the connection; "when": "before" the request runs,
                             or "after" it ran), "delay" (stall "seconds";
                             "when": "after" the request ran, the default, or
                             "before" it runs), "big" (an answer of "bytes"),
                             "task-error", "task-cancel", "task-rollback" (the
                             next task named "task" ends so)
  POST /_fake/expire-tokens  every access token issued so far is now invalid
  POST /_fake/revoke         the refresh token is revoked (as in the account
                             console) and every access token is invalid
  POST /_fake/reset-token    {"refresh_token": ...}: the account's refresh
                             token after a new login
  GET  /_fake/requests?since=N   the request log from sequence number N
                                 (--log FILE keeps every request across resets)
  GET  /_fake/state          servers, snapshots, tasks as the fake sees them

With FAKE_API_RECORD=FILE in its environment the fake appends every API
request to FILE as one JSON line: the request log's entry (method, path,
query, body, content type, the Authorization header redacted) with "api":
"netcup" and "reply" (status, content type, body with tokens redacted),
for tests/api/check-requests.py.  A request with an X-Fake-Probe header
(a test's own, wrong on purpose) is marked "probe": its answer is checked,
not the request.

The request log never holds a token: Authorization is written as
"Bearer <access-N>" (the N-th token issued) and token values in form bodies
as <refresh>, <refresh-old>, <refresh-invalid>, <device-code>.
"""

import argparse
import json
import os
import re
import secrets
import signal
import socket
import sys
import threading
import time
import urllib.parse
import uuid as uuidlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API = "/scp-core/api/v1"
REALM = "/realms/scp"
OIDC = REALM + "/protocol/openid-connect"

# Durations in seconds before --time-scale, from the reference's recorded
# task durations: start 6-7 s, ACPI shutdown up to 12 s, hard power-off
# 0.6 s, snapshot create about 2 s (expectedFinishedAt +2 s).
DUR = {
    "pending": 0.3,
    "acpi_shutdown": 12.0,
    "poweroff": 0.6,
    "start": 6.5,
    "reset": 2.0,
    "snapshot_create": 2.0,
    "snapshot_delete": 2.0,
    "snapshot_revert": 3.0,
    "uefi": 1.0,
}

EXECUTING_USER = {
    "id": 4711,
    "username": "123456",
    "firstname": "Erika",
    "lastname": "Mustermann",
    "email": "erika.mustermann@example.net",
    "company": None,
}

TERMINAL = ("FINISHED", "ERROR", "CANCELED", "ROLLBACK")


def iso_ns(t):
    """Fresh task timestamps: nanosecond fraction and Z, as in live 202s."""
    ns = int(t * 1e9)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + ".%09dZ" % (ns % 10**9)


def iso_us(t):
    """Stored timestamps: microseconds and Z."""
    us = int(t * 1e6)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 10**6)) + ".%06dZ" % (us % 10**6)


def iso_s(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


class Server:
    def __init__(self, spec):
        self.id = int(spec.get("id", 111007))
        self.name = spec.get("name", "v2202%011d" % self.id)
        self.hostname = spec.get("hostname", "vps%d.example.net" % self.id)
        self.state = spec.get("state", "RUNNING")
        self.uefi = bool(spec.get("uefi", False))
        self.snapshot_allowed = bool(spec.get("snapshotAllowed", True))
        self.disks = spec.get("disks", [{"dev": "vda", "capacityInMiB": 4096,
                                         "allocationInMiB": 1024}])
        self.live_info = bool(spec.get("liveInfo", True))
        self.snapshots = {}  # name -> dict, in creation order
        for name in spec.get("snapshots", []):  # taken before the test began
            self.snapshots[name] = {
                "uuid": str(uuidlib.uuid4()), "name": name, "description": "",
                "disks": [d["dev"] for d in self.disks], "creationTime": iso_s(time.time()),
                "state": self.state, "online": False, "exported": False,
                "exportedSizeInKiB": None, "downloadInfos": None}
        self.lock_until = 0.0
        self.ssh_up_at = 0.0 if self.state == "RUNNING" else None

    def set_state(self, state, now, boot_delay):
        self.state = state
        if state == "RUNNING":
            self.ssh_up_at = now + boot_delay
        else:
            self.ssh_up_at = None

    def json(self):
        live = None
        if self.live_info:
            live = {
                "state": self.state,
                "autostart": True,
                "uefi": self.uefi,
                "interfaces": [],
                "disks": [{"dev": d["dev"], "driver": "virtio",
                           "capacityInMiB": d.get("capacityInMiB", 4096),
                           "allocationInMiB": d.get("allocationInMiB", 1024)}
                          for d in self.disks],
                "bootorder": ["HDD"],
                "requiredStorageOptimization": "NO",
                "template": "Debian 12",
                "uptimeInSeconds": 100,
                "currentServerMemoryInMiB": 4096,
                "maxServerMemoryInMiB": 4096,
                "cpuCount": 2,
                "cpuMaxCount": 2,
            }
        return {
            "id": self.id,
            "name": self.name,
            "hostname": self.hostname,
            "nickname": None,
            "disabled": False,
            "template": {"id": 1, "name": "Debian 12"},
            "serverLiveInfo": live,
            "ipv4Addresses": [{"id": 1, "ip": "192.0.2.10", "netmask": "255.255.255.0",
                               "gateway": "192.0.2.1", "broadcast": "192.0.2.255"}],
            "ipv6Addresses": [],
            "site": {"id": 1, "city": "Nuremberg"},
            "snapshotCount": len(self.snapshots),
            "maxCpuCount": 2,
            "disksAvailableSpaceInMiB": 20480,
            "rescueSystemActive": False,
            "snapshotAllowed": self.snapshot_allowed,
            "architecture": "AMD64",
        }


class Task:
    def __init__(self, name, server, steps, now, fail=None, lock_after=0.0):
        self.uuid = str(uuidlib.uuid4())
        self.name = name
        self.server = server
        # steps: [(step name, duration s, effect callable or None)]
        self.steps = [{"uuid": str(uuidlib.uuid4()), "name": n, "duration": d, "effect": e,
                       "state": "PENDING", "startedAt": None, "finishedAt": None}
                      for (n, d, e) in steps]
        self.state = "PENDING"
        self.created = now
        self.started_at = iso_ns(now)
        self.finished = None
        self.finished_at = None
        self.message = {
            "ServerSnapshotCreateTask": "Server snapshot creation is running.",
            "ServerSnapshotDeleteTask": "Snapshot is being deleted.",
            "ServerSnapshotRevertTask": "Snapshot is being restored.",
        }.get(name)
        self.response_error = None
        self.fail = fail  # None or a fault dict (task-error/-cancel/-rollback)
        self.lock_after = lock_after
        self.t_next = now + DUR["pending"] * STATE.scale
        self.step = -1  # -1 = still PENDING
        self.expected_end = now + (DUR["pending"] + sum(s["duration"] for s in self.steps)) \
            * STATE.scale

    def advance(self, now):
        """Runs every transition that is due by `now`."""
        while self.state not in TERMINAL and now >= self.t_next:
            t = self.t_next
            if self.state == "WAITING_FOR_CANCEL":
                self.end(t, "CANCELED")
                return
            if self.step >= 0:
                st = self.steps[self.step]
                st["state"] = "FINISHED"
                st["finishedAt"] = iso_us(t)
                if st["effect"]:
                    st["effect"](t)
            elif self.state == "PENDING":
                self.state = "RUNNING"
            self.step += 1
            if self.fail and self.step == len(self.steps):
                self.end(t, None)
                return
            if self.step >= len(self.steps):
                self.end(t, "FINISHED")
                return
            st = self.steps[self.step]
            st["state"] = "RUNNING"
            st["startedAt"] = iso_ns(t)
            self.t_next = t + st["duration"] * STATE.scale

    def end(self, t, state):
        if state is None:
            kind = self.fail.get("kind")
            if kind == "task-cancel":
                # WAITING_FOR_CANCEL first, CANCELED one pending-delay later
                self.state = "WAITING_FOR_CANCEL"
                self.t_next = t + DUR["pending"] * STATE.scale
                self.message = self.fail.get("message", "Task is being canceled.")
                return
            state = "ROLLBACK" if kind == "task-rollback" else "ERROR"
            msg = self.fail.get("message", "Task failed.")
            if self.fail.get("in") == "message":
                self.message = msg
            else:
                # live ERROR tasks had message null; the reason sits in responseError
                self.message = None
                self.response_error = {"code": self.fail.get("code", "error.task"),
                                       "message": msg}
        if state != "FINISHED" and self.fail and self.fail.get("_on_fail"):
            self.fail["_on_fail"](t)
        self.state = state
        self.finished = t
        self.finished_at = iso_us(t)
        for st in self.steps:
            if st["state"] in ("PENDING", "RUNNING"):
                st["state"] = state if state != "FINISHED" else "FINISHED"
        if state == "FINISHED" and self.lock_after:
            self.server.lock_until = max(self.server.lock_until,
                                         t + self.lock_after * STATE.scale)

    def running(self):
        return self.state not in TERMINAL

    def progress(self, now):
        if self.state == "FINISHED":
            return 100.0
        total = self.expected_end - self.created
        return round(min(99.0, max(0.0, (now - self.created) / total * 100.0)), 1) if total else 0.0

    def json(self, now, minimal=False):
        d = {
            "uuid": self.uuid,
            "name": self.name,
            "state": self.state,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "executingUser": dict(EXECUTING_USER),
            "taskProgress": {"expectedFinishedAt": self.finished_at or iso_ns(self.expected_end),
                             "progressInPercent": self.progress(now)},
            "message": self.message,
        }
        if minimal:
            return d
        d["steps"] = [{k: s[k] for k in ("uuid", "name", "state", "startedAt", "finishedAt")}
                      for s in self.steps]
        d["result"] = {}
        d["responseError"] = self.response_error
        d["serverActionId"] = None
        return d


class State:
    def __init__(self):
        self.lock = threading.RLock()
        self.scale = 1.0
        self.reset({})

    def reset(self, cfg):
        self.scale = float(cfg.get("time_scale", ARGS.time_scale if ARGS else 1.0))
        self.token_lifetime = float(cfg.get("token_lifetime", ARGS.token_lifetime if ARGS else 300))
        self.lock_window = float(cfg.get("lock_window", 5.0))
        self.boot_delay = float(cfg.get("boot_delay", 3.0))
        self.rotate = bool(cfg.get("rotate", False))
        self.state_patch_200 = bool(cfg.get("state_patch_200", False))
        self.refresh_token = cfg.get("refresh_token",
                                     os.environ.get("FAKE_SCP_REFRESH_TOKEN", "fake-refresh"))
        self.old_refresh = set()
        self.access = {}  # token -> (index, expiry monotonic)
        self.n_access = 0
        self.device_script = list(cfg.get("device", ["authorization_pending", "ok"]))
        self.device_codes = {}  # device_code -> {"next_poll": t, "interval": s, "step": i}
        self.device_interval = float(cfg.get("device_interval", 5.0 * self.scale))
        self.servers = {}
        for spec in cfg.get("servers", [{}]):
            s = Server(spec)
            self.servers[s.id] = s
        self.tasks = []  # newest last
        self.faults = []
        self.log = []
        self.seq = 0

    def advance(self):
        now = time.time()
        for t in self.tasks:
            if t.running():
                t.advance(now)
        return now

    def server_locked(self, srv, now):
        if now < srv.lock_until:
            return True
        return any(t.server is srv and t.running() for t in self.tasks)

    def take_fault(self, method, path, kinds):
        for f in self.faults:
            if f["count"] <= 0 or f["kind"] not in kinds:
                continue
            if f.get("method") and f["method"] != method:
                continue
            fp = f.get("path")
            if fp and not (path.startswith(fp) if f.get("prefix") else path == fp):
                continue
            if f.get("skip", 0) > 0:  # let this many pass, then fault
                f["skip"] -= 1
                continue
            f["count"] -= 1
            return f
        return None

    def take_task_fault(self, task_name):
        for f in self.faults:
            if f["count"] > 0 and f["kind"] in ("task-error", "task-cancel", "task-rollback") \
                    and f.get("task", task_name) == task_name:
                f["count"] -= 1
                return dict(f)
        return None


STATE = None
ARGS = None
LOG_LOCK = threading.Lock()
RECORD = os.environ.get("FAKE_API_RECORD") or None


class Reply(Exception):
    def __init__(self, status, body=None, headers=None):
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}


def reply_content_type(reply):
    if isinstance(reply.body, (dict, list)):
        return "application/json"
    if isinstance(reply.body, str):
        return reply.headers.get("Content-Type", "text/plain")
    return None


def redacted(body):
    """An answer as FAKE_API_RECORD keeps it: tokens and codes replaced."""
    if isinstance(body, dict):
        return {k: "<redacted>" if k in ("access_token", "refresh_token", "device_code")
                else v for k, v in body.items()}
    if isinstance(body, str) and len(body) > 65536:
        return body[:65536]
    return body


def err(status, code, message):
    return Reply(status, {"code": code, "message": message})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-scp/1"
    # one write per answer, no Nagle: otherwise delayed ACKs add 40 ms per request
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):
        pass

    # one method for every verb
    def do_GET(self):
        self.handle_any()

    do_POST = do_PATCH = do_DELETE = do_PUT = do_GET

    def handle_any(self):
        raw_path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if raw_path.startswith("/_fake/"):
            self.control(raw_path, query, body)
            return
        entry = {}
        self.last_reply = None
        try:
            self.handle_api(raw_path, query, body, entry)
        finally:
            self.record(entry)

    def handle_api(self, raw_path, query, body, entry):
        with STATE.lock:
            STATE.seq += 1
            entry.update({
                "seq": STATE.seq,
                "method": self.command,
                "path": raw_path,
                "query": query,
                "headers": self.logged_headers(),
                "body": self.logged_body(raw_path, body),
                "status": None,
                "outcome": "response",
            })
            if self.headers.get("X-Fake-Probe"):
                # a test's own request, wrong on purpose, to see the fake refuse it
                entry["probe"] = True
            STATE.log.append(entry)
            fault = STATE.take_fault(self.command, raw_path, ("status", "drop", "delay", "big"))
        if fault and fault["kind"] == "drop" and fault.get("when", "before") == "before":
            entry["outcome"] = "dropped-before"
            self.drop()
            return
        if fault and fault["kind"] == "delay" and fault.get("when") == "before":
            # the request is not run before the stall ends
            entry["outcome"] = "stalled-before"
            time.sleep(float(fault.get("seconds", 2.0)))
        if fault and fault["kind"] == "status":
            self.send(Reply(fault.get("status", 503), fault.get("body",
                      {"code": "error.maintenance", "message": "Node is in maintenance mode."})),
                      entry)
            return
        try:
            with STATE.lock:
                now = STATE.advance()
                reply = self.route(raw_path, query, body, now)
        except Reply as r:
            reply = r
        except Exception as e:  # a bug in the fake: answer 500 and say so
            reply = err(500, "fake.bug", "%s: %s" % (type(e).__name__, e))
        if fault and fault["kind"] == "drop":
            entry["outcome"] = "dropped-after"
            entry["status"] = reply.status
            self.drop()
            return
        if fault and fault["kind"] == "delay" and fault.get("when", "after") == "after":
            entry["outcome"] = "delayed"
            time.sleep(float(fault.get("seconds", 2.0)))
        if fault and fault["kind"] == "big":
            reply = Reply(200, {"padding": "x" * int(fault.get("bytes", 1 << 20))})
        self.send(reply, entry)

    def record(self, entry):
        if ARGS.log:
            with LOG_LOCK, open(ARGS.log, "a") as f:
                f.write(json.dumps(entry) + "\n")
        if RECORD and entry:
            # the request and what it got, for tests/api/check-requests.py
            rec = dict(entry, api="netcup")
            reply = getattr(self, "last_reply", None)
            if reply is not None:
                rec["reply"] = {"status": reply.status, "body": redacted(reply.body),
                                "content_type": reply_content_type(reply)}
            with LOG_LOCK, open(RECORD, "a") as f:
                f.write(json.dumps(rec) + "\n")

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def send(self, reply, entry):
        entry["status"] = reply.status
        self.last_reply = reply
        if isinstance(reply.body, (dict, list)):
            data = json.dumps(reply.body).encode()
            ctype = "application/json"
        elif isinstance(reply.body, str):
            data = reply.body.encode()
            ctype = reply.headers.get("Content-Type", "text/plain")
        else:
            data = b""
            ctype = None
        self.send_response(reply.status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in reply.headers.items():
            if k != "Content-Type":
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data:
            self.wfile.write(data)

    # ---- logging without secrets ------------------------------------------

    def logged_headers(self):
        h = {}
        for k in ("Content-Type", "Accept", "Authorization", "Expect"):
            v = self.headers.get(k)
            if v is None:
                continue
            if k == "Authorization":
                v = self.redact_bearer(v)
            h[k.lower()] = v
        return h

    def redact_bearer(self, v):
        if not v.startswith("Bearer "):
            return "<not bearer>"
        tok = v[7:]
        a = STATE.access.get(tok)
        return "Bearer <access-%d>" % a[0] if a else "Bearer <unknown>"

    def logged_body(self, path, body):
        text = body.decode("utf-8", "replace")
        if not path.startswith(OIDC):
            return text
        fields = urllib.parse.parse_qsl(text, keep_blank_values=True)
        out = []
        for k, v in fields:
            if k == "refresh_token":
                v = ("<refresh>" if v == STATE.refresh_token else
                     "<refresh-old>" if v in STATE.old_refresh else "<refresh-invalid>")
            elif k == "device_code":
                v = "<device-code>"
            out.append("%s=%s" % (k, v))
        return "&".join(out)

    # ---- control ----------------------------------------------------------

    def control(self, path, query, body):
        try:
            data = json.loads(body) if body else {}
        except ValueError:
            data = {}
        with STATE.lock:
            if path == "/_fake/reset":
                STATE.reset(data)
                out = {"ok": True}
            elif path == "/_fake/fault":
                f = dict(data)
                f.setdefault("count", 1)
                STATE.faults.append(f)
                out = {"ok": True}
            elif path == "/_fake/revoke":
                # Keycloak answers a revoked offline token with 400 invalid_grant
                STATE.old_refresh.add(STATE.refresh_token)
                STATE.refresh_token = "revoked-" + secrets.token_hex(12)
                for k, (i, _) in list(STATE.access.items()):
                    STATE.access[k] = (i, 0.0)
                out = {"ok": True}
            elif path == "/_fake/reset-token":
                # a new device login: the account's refresh token is this one now
                STATE.refresh_token = data["refresh_token"]
                out = {"ok": True}
            elif path == "/_fake/expire-tokens":
                for k, (i, _) in list(STATE.access.items()):
                    STATE.access[k] = (i, 0.0)
                out = {"ok": True}
            elif path == "/_fake/requests":
                since = int(urllib.parse.parse_qs(query).get("since", ["0"])[0])
                out = {"requests": [e for e in STATE.log if e["seq"] >= since],
                       "next": STATE.seq + 1}
            elif path == "/_fake/state":
                now = STATE.advance()
                out = {
                    "servers": [dict(s.json(), snapshots=list(s.snapshots.values()),
                                     locked=STATE.server_locked(s, now),
                                     sshUp=ssh_wanted(s, now))
                                for s in STATE.servers.values()],
                    "tasks": [t.json(now) for t in reversed(STATE.tasks)],
                    "access_tokens_issued": STATE.n_access,
                }
            else:
                out = {"error": "unknown control path"}
        self.send(Reply(200, out), {})

    # ---- the API ----------------------------------------------------------

    def route(self, path, query, body, now):
        m = self.command
        q = urllib.parse.parse_qs(query, keep_blank_values=True)
        if path == OIDC + "/token" and m == "POST":
            return self.token(body, now)
        if path == OIDC + "/auth/device" and m == "POST":
            return self.device(body, now)
        if path == "/scp-core/api/ping" and m == "GET":
            if "text/plain" not in (self.headers.get("Accept") or "*/*") and \
                    "*/*" not in (self.headers.get("Accept") or "*/*"):
                return Reply(406)
            return Reply(200, "OK")
        if not path.startswith(API + "/"):
            raise err(404, "error.not.found", "No such path.")
        self.check_accept()
        self.check_auth(now)
        rest = path[len(API):]
        parts = rest.split("/")[1:]
        if parts == ["servers"] and m == "GET":
            return Reply(200, [{"id": s.id, "name": s.name, "hostname": s.hostname,
                                "nickname": None, "disabled": False,
                                "template": {"id": 1, "name": "Debian 12"}}
                               for s in STATE.servers.values()])
        if parts[0] == "tasks":
            return self.tasks(parts, q, now)
        if parts[0] != "servers" or len(parts) < 2:
            raise err(404, "error.not.found", "No such path.")
        srv = self.find_server(parts[1])
        if len(parts) == 2:
            if m == "GET":
                return Reply(200, srv.json())
            if m == "PATCH":
                return self.patch(srv, q, body, now)
        if parts[2:] == ["disks"] and m == "GET":
            return Reply(200, [{"name": d["dev"], "allocationInMiB": d.get("allocationInMiB", 1),
                                "capacityInMiB": d.get("capacityInMiB", 4096),
                                "storageDriver": "VIRTIO", "path": None} for d in srv.disks])
        if parts[2:] == ["snapshots"]:
            if m == "GET":
                return Reply(200, [self.snap_minimal(s) for s in srv.snapshots.values()])
            if m == "POST":
                return self.snapshot_create(srv, body, now)
        if parts[2:] == ["snapshots:dryrun"] and m == "POST":
            return self.dryrun(srv, body)
        if len(parts) >= 4 and parts[2] == "snapshots":
            name = urllib.parse.unquote(parts[3])
            snap = srv.snapshots.get(name)
            if snap is None:
                raise err(404, "error.not.found", "Server or snapshot not found.")
            if len(parts) == 4 and m == "GET":
                return Reply(200, dict(self.snap_minimal(snap), downloadInfos=None))
            if len(parts) == 4 and m == "DELETE":
                return self.snapshot_delete(srv, name, now)
            if parts[4:] == ["revert"] and m == "POST":
                return self.snapshot_revert(srv, name, now)
        raise err(404, "error.not.found", "No such path.")

    def check_accept(self):
        acc = self.headers.get("Accept") or "*/*"
        if not any(a in acc for a in ("application/json", "application/hal+json", "*/*")):
            raise Reply(406)

    def check_auth(self, now):
        h = self.headers.get("Authorization") or ""
        tok = h[7:] if h.startswith("Bearer ") else None
        a = STATE.access.get(tok) if tok else None
        if not a or time.monotonic() >= a[1]:
            # fake's choice: an empty 401 with the usual Bearer challenge
            raise Reply(401, None, {"WWW-Authenticate": 'Bearer realm="scp"'})

    def need_content_type(self, allowed):
        ct = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ct not in allowed:
            raise err(400, "error.content.type.invalid",
                      "Content-Type '%s' is not supported." % ct)

    def find_server(self, sid):
        try:
            srv = STATE.servers.get(int(sid))
        except ValueError:
            srv = None
        if srv is None:
            raise err(404, "error.not.found", "Server not found.")
        return srv

    def json_body(self, body):
        try:
            return json.loads(body) if body else None
        except ValueError:
            raise err(400, "error.json.invalid", "Malformed JSON.")

    def new_task(self, name, srv, steps, now, lock_after=0.0, on_fail=None):
        fail = STATE.take_task_fault(name)
        if fail is not None:
            fail["_on_fail"] = on_fail
        t = Task(name, srv, steps, now, fail, lock_after)
        STATE.tasks.append(t)
        return Reply(202, t.json(now))

    # PATCH /servers/{id}
    def patch(self, srv, q, body, now):
        self.need_content_type(("application/merge-patch+json",))
        doc = self.json_body(body)
        if not isinstance(doc, dict) or len(doc) != 1:
            raise err(400, "error.patch.attributes", "Only one attribute at a time.")
        (key, val), = doc.items()
        if STATE.server_locked(srv, now):
            raise err(409, "server.lock.error", "Write operation for server is currently running.")
        opt = (q.get("stateOption") or [None])[0]
        if key == "state":
            return self.patch_state(srv, val, opt, now)
        if opt is not None:
            raise err(400, "error.state.option", "stateOption applies to state changes only.")
        if key == "uefi":
            def eff(t, v=bool(val)):
                srv.uefi = v
            return self.new_task("ServerUEFITask", srv, [("ServerUEFITaskStep", DUR["uefi"], eff)],
                                 now)
        if key in ("nickname", "hostname", "autostart"):
            return Reply(200)
        raise err(400, "error.patch.attributes", "Attribute %s cannot be patched." % key)

    def patch_state(self, srv, val, opt, now):
        boot = STATE.boot_delay * STATE.scale
        if val not in ("ON", "OFF", "SUSPENDED"):
            raise err(400, "error.state.invalid", "Unknown state %r." % (val,))
        if val == "SUSPENDED":
            raise err(400, "error.state.invalid", "The fake does not suspend.")
        allowed = {"ON": (None, "POWERCYCLE", "RESET"), "OFF": (None, "POWEROFF")}[val]
        if opt not in allowed:
            raise err(400, "error.state.option", "stateOption %s is not valid for %s." % (opt, val))

        def off(t):
            srv.set_state("SHUTOFF", t, boot)

        def on(t):
            srv.set_state("RUNNING", t, boot)

        def ssh_down(t):
            srv.ssh_up_at = None

        if STATE.state_patch_200:
            # fake's choice for the 200-without-task answer the spec allows
            srv.set_state("RUNNING" if val == "ON" else "SHUTOFF", now, boot)
            return Reply(200)
        steps = []
        if val == "OFF" and srv.state != "SHUTOFF":
            d = DUR["poweroff"] if opt == "POWEROFF" else DUR["acpi_shutdown"]
            steps = [("ServerStateChangeShutdownTaskStep", d / 2, None),
                     ("ServerStateChangeShutdownTaskStepWait", d / 2, off)]
        elif val == "ON" and opt == "RESET":
            steps = [("ServerStateChangeResetTaskStep", 0.0, ssh_down),
                     ("ServerStateChangeResetTaskStepWait", DUR["reset"], on)]
        elif val == "ON" and (opt == "POWERCYCLE" or srv.state != "RUNNING"):
            if srv.state != "SHUTOFF":
                steps = [("ServerStateChangeShutdownTaskStep", DUR["poweroff"], off)]
            steps += [("ServerStateChangeStartTaskStep", DUR["start"] / 2, None),
                      ("ServerStateChangeStartTaskStepWait", DUR["start"] / 2, on)]
        # fake's choice: a state that already holds gets a task with only the log step
        steps.append(("ServerStateChangeWriteServerLog", 0.05, None))
        return self.new_task("ServerStateChangeTask", srv, steps, now,
                             lock_after=STATE.lock_window)

    # snapshots
    def snap_minimal(self, s):
        return {k: s[k] for k in ("uuid", "name", "description", "disks", "creationTime",
                                  "state", "online", "exported", "exportedSizeInKiB")}

    def snapshot_create(self, srv, body, now):
        self.need_content_type(("application/json",))
        doc = self.json_body(body)
        if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
            raise err(400, "error.validation", "name is required.")
        name = doc["name"]
        if len(name) > 255:
            raise err(400, "error.validation", "name is longer than 255 characters.")
        online = bool(doc.get("onlineSnapshot", False))
        disk = doc.get("diskName")
        if not srv.snapshot_allowed:
            raise err(400, "server.snapshot.create.error.template",
                      "Snapshots are not allowed for this server.")
        if online and srv.uefi:
            raise err(400, "server.snapshot.create.error.online.uefi",
                      "Online snapshot creation is not possible if UEFI is activated.")
        if online and disk:
            raise err(400, "server.snapshot.create.error.online.diskselected",
                      "Online snapshots are taken of all disks; do not select a disk.")
        if disk and disk not in [d["dev"] for d in srv.disks]:
            raise err(400, "server.snapshot.create.error.disk", "Unknown disk %s." % disk)
        if name in srv.snapshots:
            # fake's choice: the real answer for a taken name is not documented
            raise err(400, "server.snapshot.create.error.name",
                      "A snapshot with this name already exists.")
        if STATE.server_locked(srv, now):
            raise err(409, "server.lock.error", "Write operation for server is currently running.")
        # fake's choice: the snapshot is listed as soon as its task exists
        srv.snapshots[name] = {
            "uuid": str(uuidlib.uuid4()), "name": name,
            "description": doc.get("description") or "",
            "disks": [disk] if disk else [d["dev"] for d in srv.disks],
            "creationTime": iso_s(now), "state": srv.state, "online": online,
            "exported": False, "exportedSizeInKiB": None, "downloadInfos": None,
        }

        def rollback(t):
            srv.snapshots.pop(name, None)

        d = DUR["snapshot_create"]
        return self.new_task("ServerSnapshotCreateTask", srv,
                             [("ServerSnapshotCreateTaskStepCreate", d / 2, None),
                              ("ServerSnapshotCreateTaskStepCreateWait", d / 2, None),
                              ("ServerSnapshotCreateLogTaskStep", 0.0, None)],
                             now, on_fail=rollback)

    def dryrun(self, srv, body):
        self.need_content_type(("application/json",))
        doc = self.json_body(body) or {}
        online = bool(doc.get("onlineSnapshot", False))
        disk = doc.get("diskName")
        errors = []
        if not srv.snapshot_allowed:
            errors.append({"code": "server.snapshot.create.error.template",
                           "message": "Snapshots are not allowed for this server."})
        if online and srv.uefi:
            errors.append({"code": "server.snapshot.create.error.online.uefi",
                           "message": "Online snapshot creation is not possible if UEFI is "
                                      "activated."})
        if online and disk:
            errors.append({"code": "server.snapshot.create.error.online.diskselected",
                           "message": "Online snapshots are taken of all disks; do not select "
                                      "a disk."})
        if not online and not disk:
            errors.append({"code": "server.snapshot.create.error.disk",
                           "message": "diskName must be set for an offline snapshot."})
        if disk and disk not in [d["dev"] for d in srv.disks]:
            errors.append({"code": "server.snapshot.create.error.disk",
                           "message": "Unknown disk %s." % disk})
        return Reply(400 if errors else 200, errors)

    def snapshot_delete(self, srv, name, now):
        if STATE.server_locked(srv, now):
            raise err(409, "server.lock.error", "Write operation for server is currently running.")

        def gone(t):
            srv.snapshots.pop(name, None)

        d = DUR["snapshot_delete"]
        return self.new_task("ServerSnapshotDeleteTask", srv,
                             [("ServerSnapshotDeleteTaskStep", d, gone),
                              ("ServerSnapshotDeleteLogTaskStep", 0.0, None)], now)

    def snapshot_revert(self, srv, name, now):
        self.need_content_type(("application/json",))
        if STATE.server_locked(srv, now):
            raise err(409, "server.lock.error", "Write operation for server is currently running.")
        boot = STATE.boot_delay * STATE.scale

        def off(t):
            srv.set_state("SHUTOFF", t, boot)

        def on(t):
            srv.set_state("RUNNING", t, boot)

        return self.new_task("ServerSnapshotRevertTask", srv, [
            ("ServerSnapshotRevertTaskStepPoweroff", DUR["poweroff"], None),
            ("ServerSnapshotRevertTaskStepPoweroffWait", 0.0, off),
            ("ServerSnapshotRevertTaskStepRevertSnapshot", DUR["snapshot_revert"], None),
            ("ServerSnapshotRevertTaskStepRevertSnapshotWait", 0.0, None),
            ("ServerSnapshotRevertTaskStepStart", DUR["start"], None),
            ("ServerSnapshotRevertTaskStepStartWait", 0.0, on),
            ("ServerSnapshotRevertLogTaskStep", 0.0, None)], now, lock_after=STATE.lock_window)

    # tasks
    def tasks(self, parts, q, now):
        if self.command != "GET":
            raise err(404, "error.not.found", "No such path.")
        if len(parts) == 1:
            out = list(reversed(STATE.tasks))  # newest first, as recorded live
            if "serverId" in q:
                sid = int(q["serverId"][0])
                out = [t for t in out if t.server.id == sid]
            if "state" in q:
                out = [t for t in out if t.state == q["state"][0]]
            off = int(q.get("offset", ["0"])[0])
            lim = int(q.get("limit", ["100"])[0])
            return Reply(200, [t.json(now, minimal=True) for t in out[off:off + lim]])
        for t in STATE.tasks:
            if t.uuid == parts[1]:
                return Reply(200, t.json(now))
        raise err(404, "error.not.found", "Task not found.")

    # OIDC
    def form(self, body):
        ct = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if ct != "application/x-www-form-urlencoded":
            raise Reply(400, {"error": "invalid_request",
                              "error_description": "Content-Type must be form-urlencoded"})
        return dict(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))

    def issue(self, refresh_token):
        STATE.n_access += 1
        tok = "fake-access-%d-%s" % (STATE.n_access, secrets.token_hex(12))
        STATE.access[tok] = (STATE.n_access, time.monotonic() + STATE.token_lifetime)
        return {"access_token": tok, "expires_in": STATE.token_lifetime,
                "refresh_expires_in": 0, "refresh_token": refresh_token,
                "token_type": "Bearer", "not-before-policy": 0,
                "session_state": str(uuidlib.uuid4()), "scope": "profile offline_access email"}

    def token(self, body, now):
        f = self.form(body)
        if f.get("client_id") != "scp":
            raise Reply(401, {"error": "invalid_client", "error_description": "Invalid client"})
        grant = f.get("grant_type")
        if grant == "refresh_token":
            if f.get("refresh_token") != STATE.refresh_token:
                raise Reply(400, {"error": "invalid_grant",
                                  "error_description": "Invalid refresh token"})
            if STATE.rotate:
                STATE.old_refresh.add(STATE.refresh_token)
                STATE.refresh_token = "fiocamp-test-refresh-rotated-" + secrets.token_hex(12)
            return Reply(200, self.issue(STATE.refresh_token))
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            dc = STATE.device_codes.get(f.get("device_code"))
            if dc is None:
                raise Reply(400, {"error": "invalid_grant", "error_description": "Invalid code"})
            t = time.monotonic()
            if t < dc["next_poll"] - 0.1 * dc["interval"]:
                dc["next_poll"] = t + dc["interval"]
                raise Reply(400, {"error": "slow_down", "error_description": "Slow down"})
            dc["next_poll"] = t + dc["interval"]
            script = STATE.device_script
            what = script[min(dc["step"], len(script) - 1)]
            dc["step"] += 1
            if what == "ok":
                del STATE.device_codes[f["device_code"]]
                return Reply(200, self.issue(STATE.refresh_token))
            if what == "slow_down":
                dc["interval"] += 5.0 * STATE.scale
            raise Reply(400, {"error": what, "error_description": what.replace("_", " ")})
        raise Reply(400, {"error": "unsupported_grant_type", "error_description": str(grant)})

    def device(self, body, now):
        f = self.form(body)
        if f.get("client_id") != "scp":
            raise Reply(401, {"error": "invalid_client", "error_description": "Invalid client"})
        if "offline_access" not in f.get("scope", "").split():
            raise Reply(400, {"error": "invalid_scope", "error_description": "offline_access"})
        code = "fake-device-" + secrets.token_hex(16)
        user = "%s-%s" % (secrets.token_hex(2).upper(), secrets.token_hex(2).upper())
        STATE.device_codes[code] = {"next_poll": time.monotonic() + STATE.device_interval,
                                    "interval": STATE.device_interval, "step": 0}
        base = "http://127.0.0.1:%d%s/device" % (self.server.server_address[1], REALM)
        return Reply(200, {"device_code": code, "user_code": user, "verification_uri": base,
                           "verification_uri_complete": base + "?user_code=" + user,
                           "expires_in": 600, "interval": STATE.device_interval})


class Httpd(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # a client that gave up (timeout tests) is expected, not an error
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def ssh_wanted(srv, now):
    return srv.state == "RUNNING" and srv.ssh_up_at is not None and now >= srv.ssh_up_at


class SshListener:
    """Listens only while the first server runs and has booted; sends a banner."""

    def __init__(self):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", ARGS.ssh_port))
        self.port = s.getsockname()[1]
        # the port stays bound (never listening) while the listener is
        # down, so that no other program on the machine is given it then
        self.hold = s
        self.sock = None

    def tick(self, want):
        if want and self.sock is None:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind(("127.0.0.1", self.port))
            except OSError:
                s.close()
                return
            s.listen(16)
            s.setblocking(False)
            self.sock = s
        elif not want and self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.sock is None:
            return
        while True:
            try:
                c, _ = self.sock.accept()
            except (BlockingIOError, OSError):
                return
            try:
                c.sendall(b"SSH-2.0-OpenSSH_9.2p1 fake-scp\r\n")
            except OSError:
                pass
            c.close()


def ticker(ssh):
    while True:
        with STATE.lock:
            now = STATE.advance()
            first = next(iter(STATE.servers.values()), None)
            want = bool(first) and ssh_wanted(first, now)
        ssh.tick(want)
        time.sleep(0.01)


def main():
    global ARGS, STATE
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--ssh-port", type=int, default=0)
    p.add_argument("--time-scale", type=float, default=1.0,
                   help="factor on every task duration, lock window and boot delay")
    p.add_argument("--token-lifetime", type=float, default=300.0,
                   help="access token lifetime in seconds (not scaled)")
    p.add_argument("--log", help="append every request to this file (JSON lines, kept "
                   "across resets; tokens redacted as in /_fake/requests)")
    ARGS = p.parse_args()
    STATE = State()
    httpd = Httpd(("127.0.0.1", ARGS.port), Handler)
    ssh = SshListener()
    threading.Thread(target=ticker, args=(ssh,), daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    print(json.dumps({"http": httpd.server_address[1], "ssh": ssh.port}), flush=True)
    try:
        httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
