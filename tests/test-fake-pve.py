#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Conformance of the fake Proxmox VE API (tests/fake-pve) with Proxmox.

usage: test-fake-pve.py FAKE_PVE_PY

Drives the fake with http.client the way a client talks to Proxmox (form
bodies, API token header, UPIDs polled until stopped, logs read from their
end) and checks that it answers as Proxmox's source says the real server
does.  Each check's message names what it follows: "ref §N" and "A§N" are
the sections of the project's notes on the Proxmox API and their addendum,
and beside them the Proxmox source file the notes were read from.

The fake runs with --time-scale 0.01 (a 21 s vzdump takes 0.21 s), on
127.0.0.1, once over plain HTTP and once over HTTPS with a certificate made
at start.  The token secret is fresh for every run and handed over through
the environment and the control port, never argv; the end of the run
searches the fake's output, its request log and this test's own output for
it.  Stdlib only.
"""

import base64
import glob
import gzip
import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
import uuid

import harness as H
from harness import check, check_eq

FAKE = None
SCALE = 0.01
NODE = "pve1"
TOKENID = "fiocamp@pve!conformance"
SECRET = str(uuid.uuid4())
TOKEN = TOKENID + "=" + SECRET
OTHER_ID = "other@pve!reader"
OTHER_SECRET = str(uuid.uuid4())
OUTPUT = []  # what this test printed, searched for the secret at the end
UPID_RE = re.compile(r"^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):"
                     r"([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$")
# a backup present before the test: a fixed time, so that its name is the
# same after every reset
BACKUP_CTIME = 1757362753
# the node's local time, for vzdump's archive names (POSIX rules need no tzdata)
TZ = "CET-1CEST,M3.5.0,M10.5.0/3"

DURATIONS = {"qmstart": 2, "qmstop": 1, "qmshutdown": 5, "qmreboot": 5, "qmsnapshot": 1,
             "vmstate": 3, "qmrollback": 2, "qmdelsnapshot": 1, "vzdump": 21,
             "qmrestore": [53, 57, 69, 100], "qmeventd": 1, "ha_apply": 2}


def say(*a):
    text = " ".join(str(x) for x in a)
    OUTPUT.append(text)
    print(text, file=sys.stderr)


# ---- the fake ------------------------------------------------------------------

class Fake:
    def __init__(self, tmp, name, https=False):
        self.tmp = tmp
        self.log_path = os.path.join(tmp, name + "-requests.jsonl")
        self.port_file = os.path.join(tmp, name + ".port")
        self.err = open(os.path.join(tmp, name + ".stderr"), "w+")
        args = [sys.executable, FAKE, "--time-scale", str(SCALE), "--log", self.log_path,
                "--port-file", self.port_file]
        if https:
            args += ["--https", "--tls-dir", os.path.join(tmp, name + "-tls")]
        # its answers, held against pve-docs' schema at the end (main)
        env = dict(os.environ, FAKE_PVE_TOKEN=TOKEN, TZ=TZ,
                   FAKE_API_RECORD=os.path.join(tmp, name + "-api-record.jsonl"))
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.err, env=env,
                                     text=True)
        self.hello = json.loads(self.proc.stdout.readline())
        with open(self.port_file) as f:
            check_eq(json.loads(f.read()), self.hello, "the port file holds the startup line")
        self.api, self.ctl, self.ssh = self.hello["api"], self.hello["control"], self.hello["ssh"]
        self.scheme = self.hello["scheme"]

    def control(self, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request("http://127.0.0.1:%d%s" % (self.ctl, path), data=data,
                                     method="POST" if data is not None else "GET")
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())

    def reset(self, **kw):
        cfg = {"time_scale": SCALE, "node": NODE, "durations": dict(DURATIONS),
               "boot_delay": 20, "auth_delay": 3,
               "tokens": [{"tokenid": TOKENID, "secret": SECRET, "acl": {"/": ["*"]}},
                          {"tokenid": OTHER_ID, "secret": OTHER_SECRET,
                           "acl": {"/vms": ["VM.Audit"]}}],
               "guests": [{"vmid": 100, "name": "bench", "status": "running",
                           "data": "data-0"}]}
        for k, v in kw.items():
            if k == "durations":
                cfg["durations"].update(v)
            else:
                cfg[k] = v
        self.control("/_fake/reset", cfg)

    def state(self):
        return self.control("/_fake/state")

    def guest(self, vmid=100):
        return [g for g in self.state()["guests"] if g["vmid"] == vmid][0]

    def requests(self):
        return self.control("/_fake/requests?since=1")["requests"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.err.seek(0)
        text = self.err.read()
        self.err.close()
        return text


class PinMismatch(Exception):
    pass


class Resp:
    def __init__(self, status, reason, headers, raw, elapsed):
        self.status = status
        self.reason = reason
        self.headers = headers
        self.raw = raw
        self.elapsed = elapsed
        self.doc = None
        body = raw
        if headers.get("content-encoding") == "gzip":
            body = gzip.decompress(raw)
        self.body = body
        if headers.get("content-type", "").startswith("application/json"):
            self.doc = json.loads(body)

    @property
    def data(self):
        return self.doc.get("data") if self.doc else None


def fingerprint(der):
    h = hashlib.sha256(der).hexdigest().upper()
    return ":".join(h[i:i + 2] for i in range(0, len(h), 2))


class Client:
    """One request per connection, as a careful client after an error would;
    with a pin, the certificate is checked before anything is sent."""

    def __init__(self, fake, token=TOKEN, pin=None, ca=None, host="127.0.0.1"):
        self.fake = fake
        self.token = token
        self.pin = pin
        self.ca = ca
        self.host = host

    def connect(self):
        if self.fake.scheme == "http":
            conn = http.client.HTTPConnection(self.host, self.fake.api, timeout=20)
            conn.connect()
            return conn
        if self.ca:
            ctx = ssl.create_default_context(cafile=self.ca)
        else:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(self.host, self.fake.api, context=ctx, timeout=20)
        conn.connect()
        if self.pin is not None:
            got = fingerprint(conn.sock.getpeercert(binary_form=True))
            if got != self.pin:
                conn.close()
                raise PinMismatch(got)
        return conn

    def req(self, method, path, params=None, query=None, body=None, headers=None,
            json_body=None, auth=True):
        # wrong on purpose as often as not: tests/api/check-requests.py
        # holds only the fake's answers to these
        h = {"Accept": "application/json", "X-Fake-Probe": "1"}
        if auth and self.token is not None:
            h["Authorization"] = "PVEAPIToken=" + self.token
        h.update(headers or {})
        url = "/api2/json" + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = body
        if params is not None:
            if method in ("GET", "DELETE"):
                url += ("&" if "?" in url else "?") + urllib.parse.urlencode(params)
            else:
                data = urllib.parse.urlencode(params).encode()
                h["Content-Type"] = "application/x-www-form-urlencoded"
        if json_body is not None:
            data = json.dumps(json_body).encode()
            h["Content-Type"] = "application/json"
        if data is None and method in ("POST", "PUT"):
            data = b""
        t0 = time.time()
        conn = self.connect()
        try:
            conn.request(method, url, body=data, headers=h)
            r = conn.getresponse()
            raw = r.read()
            return Resp(r.status, r.reason, {k.lower(): v for k, v in r.getheaders()}, raw,
                        time.time() - t0)
        finally:
            conn.close()

    def get(self, path, **kw):
        return self.req("GET", path, **kw)

    def post(self, path, params=None, **kw):
        if params is None and "body" not in kw and "json_body" not in kw:
            params = {}
        return self.req("POST", path, params=params, **kw)

    def delete(self, path, params=None, **kw):
        return self.req("DELETE", path, params=params, **kw)

    # tasks (ref §6: poll status on the UPID's node until stopped)
    def wait(self, upid, timeout=30):
        node = upid.split(":")[1]
        end = time.time() + timeout
        while time.time() < end:
            r = self.get("/nodes/%s/tasks/%s/status" % (node, urllib.parse.quote(upid, safe="")))
            if r.status == 200 and r.data["status"] == "stopped":
                return r.data
            time.sleep(0.01)
        raise AssertionError("task %s still running after %d s" % (upid, timeout))

    def log(self, upid, **q):
        r = self.get("/nodes/%s/tasks/%s/log" % (NODE, urllib.parse.quote(upid, safe="")),
                     query=q or None)
        return r

    def log_text(self, upid):
        r = self.log(upid, limit=0)
        return [x["t"] for x in r.data]

    def tasks(self, **q):
        return self.get("/nodes/%s/tasks" % NODE, query=q)

    def task_in_list(self, upid, **q):
        q.setdefault("source", "all")
        for t in self.tasks(**q).data:
            if t["upid"] == upid:
                return t
        return None

    def run(self, method, path, params=None, **kw):
        """A mutation that answers with a UPID, waited for."""
        r = self.req(method, path, params=params if params is not None or method != "POST"
                     else {}, **kw)
        if r.status != 200 or not isinstance(r.data, str) or not r.data.startswith("UPID:"):
            raise AssertionError("%s %s: %d %s %r" % (method, path, r.status, r.reason, r.raw))
        return r.data, self.wait(r.data)


def Q(vmid=100):
    return "/nodes/%s/qemu/%d" % (NODE, vmid)


def upid_fields(upid):
    m = UPID_RE.match(upid)
    return {"node": m.group(1), "pid": int(m.group(3), 16), "pstart": int(m.group(4), 16),
            "starttime": int(m.group(5), 16), "type": m.group(6), "id": m.group(7),
            "user": m.group(8), "hex": (m.group(3), m.group(4), m.group(5))}


def task_seconds(c, upid):
    t = c.task_in_list(upid)
    return t["endtime"] - t["starttime"] if t and "endtime" in t else None


def wait_for(pred, timeout=20):
    end = time.time() + timeout
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.01)
    return None


# ---- the areas ------------------------------------------------------------------

def test_envelope(fake, c):
    fake.reset()
    r = c.get("/version")
    check_eq(r.status, 200, "GET /version answers 200 [A§4, pve-manager API2.pm version]")
    check_eq(r.headers.get("content-type"), "application/json;charset=UTF-8",
             "the JSON formatter's content type [ref §4, Formatter/Standard.pm]")
    check(set(r.doc) == {"data"} and set(r.data) >= {"version", "release", "repoid"},
          "success is {\"data\": ...} with version, release, repoid: %r [ref §4, A§4]" % r.doc)
    check_eq(r.headers.get("server"), "pve-api-daemon/3.0", "Server header [AnyEvent.pm]")
    check_eq(r.headers.get("connection"), "Keep-Alive", "keep-alive after a success [AnyEvent.pm]")
    nv = c.get("/nodes/%s/version" % NODE)
    check_eq(nv.data, r.data, "the node version endpoint says the same [A§4, Nodes.pm version]")
    ns = c.get("/nodes/%s/status" % NODE)
    check(ns.data["pveversion"].startswith("pve-manager/%s/" % r.data["version"]),
          "node status pveversion pve-manager/X.Y.Z/... [A§4, Nodes.pm status]")
    nodes = c.get("/nodes")
    check_eq([n["node"] for n in nodes.data], [NODE], "GET /nodes lists the node [ref §1]")

    r = c.get(Q() + "/status/current")
    d = r.data
    check(d["status"] in ("running", "stopped") and d["vmid"] == 100 and
          isinstance(d["maxmem"], int) and d["qmpstatus"] == "running" and
          d["ha"] == {"managed": 0}, "status/current fields %r [ref §5.1, QemuServer.pm vmstatus]"
          % d)
    check("lock" not in d, "no lock key without a lock [ref §5.1]")

    # 501 for a path no handler has (HTTPServer.pm rest_handler)
    r = c.get("/nodes/%s/nonsense" % NODE)
    msg = "Method 'GET /nodes/%s/nonsense' not implemented" % NODE
    check_eq((r.status, r.reason), (501, msg), "unknown path: 501 and the message as reason "
             "[ref §4, HTTPServer.pm rest_handler]")
    check_eq(r.doc, {"data": None, "message": msg}, "501 envelope [ref §4, Formatter/Standard.pm]")
    check_eq(r.headers.get("connection"), "close", "an error closes the connection [AnyEvent.pm "
             "response: keep_alive = 0 if code >= 400]")

    # 400 with one message per parameter (JSONSchema.pm)
    r = c.post(Q() + "/snapshot", {"snapname": "1bad", "vmstate": "true"})
    check_eq((r.status, r.reason), (400, "Parameter verification failed."),
             "parameter error status line [ref §4, Exception.pm raise_param_exc]")
    check_eq(r.doc, {"data": None, "message": "Parameter verification failed.\n", "errors": {
        "snapname": "invalid format - invalid configuration ID '1bad'\n",
        "vmstate": "type check ('boolean') failed - got 'true'"}},
        "errors per parameter: configid format, boolean '1'/'0' only [ref §3, §5.3, "
        "JSONSchema.pm check_type/pve_verify_configid]")
    r = c.post(Q() + "/snapshot", {"snapname": "a" * 41})
    check_eq(r.doc.get("errors"), {"snapname": "value may only be 40 characters long"},
             "snapshot names are at most 40 characters [ref §5.3, pve-snapshot-name]")
    r = c.post(Q() + "/snapshot", {})
    check_eq(r.doc.get("errors"), {"snapname": "property is missing and it is not optional"},
             "a required parameter missing [JSONSchema.pm check_prop]")
    r = c.post(Q() + "/snapshot", {"snapname": "ok1", "colour": "red"})
    check_eq(r.doc.get("errors"), {"colour": "property is not defined in schema and the schema "
                                             "does not allow additional properties"},
             "an unknown parameter [JSONSchema.pm check_object]")
    r = c.post(Q() + "/snapshot", {"snapname": "ok1", "vmid": "101"})
    check_eq(r.doc.get("errors"), {"vmid": "duplicate parameter (already defined in URI) with "
                                           "conflicting values!"},
             "a path parameter repeated with another value [ref §3, HTTPServer.pm]")
    r = c.get("/nodes/%s/qemu/99/status/current" % NODE)
    check_eq(r.doc.get("errors"), {"vmid": "invalid format - value does not look like a valid "
                                           "VM ID\n"}, "vmid format [JSONSchema.pm pve-vmid]")

    # 500: a plain die in the synchronous part (ref §4)
    r = c.post(Q() + "/snapshot", {"snapname": "current"})
    check_eq((r.status, r.doc), (500, {"data": None, "message": "unable to use snapshot name "
                                        "'current' (reserved name)\n"}),
             "reserved snapshot name is a 500 [ref §4, §5.3, API2/Qemu.pm snapshot]")
    check_eq(r.reason, "unable to use snapshot name 'current' (reserved name)",
             "the reason phrase is the message's first line [ref §4, AnyEvent.pm response]")
    r = c.post(Q() + "/snapshot", {"snapname": "Pending"})
    check_eq(r.status, 500, "'pending' is reserved in any case [ref §5.3]")
    r = c.get(Q(999) + "/status/current")
    check_eq((r.status, r.doc.get("message")),
             (500, "Configuration file 'nodes/%s/qemu-server/999.conf' does not exist\n" % NODE),
             "a guest that does not exist [ref §4, AbstractConfig.pm load_config]")
    r = c.get("/nodes/elsewhere/qemu/100/status/current")
    check(r.status == 500 and r.doc["message"].startswith("hostname lookup 'elsewhere' failed"),
          "an unknown node cannot be proxied to: %r [ref §1 proxyto, Cluster.pm "
          "remote_node_ip]" % (r.doc,))

    # request encoding (ref §3, A§6)
    r = c.req("DELETE", Q() + "/snapshot/x", body=b"force=1",
              headers={"Content-Type": "application/x-www-form-urlencoded"})
    check_eq((r.status, r.body), (501, b"Unexpected content for method 'DELETE'"),
             "a DELETE with a body [ref §3, AnyEvent.pm]")
    r = c.req("POST", Q() + "/snapshot", body=b"snapname=x1", headers={"Content-Type":
                                                                        "text/plain"})
    check_eq(r.status, 506, "only form and JSON bodies [AnyEvent.pm]")
    r = c.post(Q() + "/snapshot", json_body={"snapname": "viajson", "vmstate": True})
    check(r.status == 200 and r.data.startswith("UPID:"),
          "a JSON body may use JSON true [ref §3, AnyEvent.pm extract_params]")
    c.wait(r.data)
    r = c.post(Q() + "/snapshot", {"snapname": "frombody"}, query={"snapname": "fromquery"})
    c.wait(r.data)
    names = [s["name"] for s in c.get(Q() + "/snapshot").data]
    check("fromquery" in names and "frombody" not in names,
          "query parameters override the body [ref §3, A§6]: %r" % names)
    r = c.post(Q() + "/snapshot", body=b"snapname=semi;colon")
    check_eq(r.doc.get("errors"), {"colon": "property is not defined in schema and the schema "
                                            "does not allow additional properties"},
             "an unescaped ';' splits a form value [A§6, AnyEvent.pm decode_urlencoded]")
    r = c.req("POST", Q() + "/snapshot", body=b"x" * (512 * 1024 + 1),
              headers={"Content-Type": "application/x-www-form-urlencoded"})
    check_eq(r.status, 501, "bodies above 512 KiB [ref §3, AnyEvent.pm $limit_max_post]")


def test_auth(fake, c):
    fake.reset()
    delay = 3 * SCALE
    r = c.get("/version", auth=False)
    check_eq((r.status, r.reason, r.raw), (401, "No ticket", b""),
             "no Authorization: 401 No ticket, no body [ref §2, HTTPServer.pm auth_handler]")
    check(r.elapsed >= delay, "401 after the 3 s delay (scaled): %.3f s [ref §1, AnyEvent.pm]"
          % r.elapsed)
    check(r.headers.get("connection") == "close" and "content-type" not in r.headers,
          "the 401 has no content type and closes [AnyEvent.pm]")
    bad = Client(fake, token=TOKENID + "=" + str(uuid.uuid4()))
    r = bad.get("/version")
    check_eq((r.status, r.reason, r.raw), (401, "Authentication failed!", b""),
             "a wrong secret [ref §2, AccessControl.pm verify_token]")
    check(r.elapsed >= delay, "the wrong secret waited too [ref §1]")
    for what, tok in (("the tutorials' form without TOKENID", "fiocamp@pve=conformance"),
                      ("no '=' at all", "fiocamp@pve!conformance"),
                      ("an unknown token", "fiocamp@pve!nosuch=" + SECRET),
                      ("a user without realm", "fiocamp!conformance=" + SECRET)):
        r = Client(fake, token=tok).get("/version")
        check_eq(r.status, 401, "%s is refused [ref §2]" % what)
    r = c.get("/version", auth=False, headers={"Authorization": "PVEAPIToken " + TOKEN})
    check_eq(r.status, 200, "'PVEAPIToken ' with a space works [ref §2, Formatter.pm "
             "extract_auth_value]")
    r = c.get("/version", auth=False, headers={"Authorization": "PVEAPIToken=" +
                                                urllib.parse.quote(TOKEN, safe="")})
    check_eq(r.status, 200, "the value is URI-unescaped [ref §2]")
    r = c.get("/version", headers={"Cookie": "PVEAuthCookie=PVE:x:y"})
    check_eq(r.status, 401, "a cookie ticket wins over the token [ref §2, AnyEvent.pm 'prefer "
             "actual cookie']")
    r = c.post(Q() + "/snapshot", {"snapname": "nocsrf"})
    check_eq(r.status, 200, "no CSRF token needed with an API token [ref §2, HTTPServer.pm]")
    c.wait(r.data)
    fake.reset(tokens=[{"tokenid": TOKENID, "secret": SECRET, "expire": 1}])
    r = c.get("/version")
    check_eq(r.status, 401, "an expired token [ref §2, AccessControl.pm 'access expired']")
    reqs = fake.requests()
    check(any(e.get("auth", "").startswith("failed: token") for e in reqs),
          "the request log says why: %r" % [e.get("auth") for e in reqs])
    check(all(SECRET not in json.dumps(e) for e in reqs), "no secret in the request log")
    check(any(e["headers"].get("authorization") == "PVEAPIToken=%s=<secret>" % TOKENID
              for e in reqs), "the log shows the token id only")


def test_privileges(fake, c):
    def with_acl(acl):
        fake.reset(tokens=[{"tokenid": TOKENID, "secret": SECRET, "acl": acl}],
                   guests=[{"vmid": 100, "status": "stopped", "snapshots": ["s1"]}],
                   backups=[{"vmid": 100, "storage": "local", "ctime": BACKUP_CTIME}])

    def msg(r):
        return (r.status, r.doc.get("message") if r.doc else r.raw)

    with_acl({"/vms/100": ["VM.Audit"]})
    r = c.post(Q() + "/status/start")
    check_eq(msg(r), (403, "Permission check failed (/vms/100, VM.PowerMgmt)\n"),
             "start needs VM.Power Mgmt, named in the 403 [ref §2, RPCEnvironment.pm check]")
    check_eq(r.reason, "Permission check failed (/vms/100, VM.PowerMgmt)", "403 reason phrase")
    r = c.post(Q() + "/snapshot", {"snapname": "x1"})
    check_eq(msg(r), (403, "Permission check failed (/vms/100, VM.Snapshot)\n"),
             "snapshot needs VM.Snapshot [ref §2]")
    r = c.post(Q() + "/snapshot/s1/rollback")
    check_eq(msg(r), (403, "Permission check failed (/vms/100, "
                           "VM.Snapshot|VM.Snapshot.Rollback)\n"),
             "rollback needs one of VM.Snapshot, VM.Snapshot.Rollback [ref §2, check_any]")
    r = c.post(Q() + "/snapshot", {"snapname": "1bad"})
    check_eq(r.status, 403, "permissions are checked before parameters [HTTPServer.pm "
             "rest_handler]")
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    check_eq(msg(r), (403, "Permission check failed (/storage/local, Datastore.AllocateSpace)\n"),
             "vzdump needs Datastore.AllocateSpace on the storage [ref §2, API2/VZDump.pm]")
    r = c.get("/nodes/%s/storage/local/content" % NODE, query={"content": "backup"})
    check_eq(r.status, 403, "listing needs Datastore.Audit or AllocateSpace [Content.pm index]")
    r = c.get("/cluster/ha/resources")
    check_eq(msg(r), (403, "Permission check failed (/, Sys.Audit)\n"),
             "the HA list needs Sys.Audit on / [pve-ha-manager API2/HA/Resources.pm]")
    r = c.get("/access/permissions", query={"path": "/vms/100"})
    check_eq(r.data, {"/vms/100": {"VM.Audit": 1}}, "a token reads its own privileges "
             "[API2/AccessControl.pm permissions]")

    with_acl({"/vms/100": ["VM.Audit", "VM.Snapshot.Rollback"]})
    r = c.post(Q() + "/snapshot/s1/rollback")
    check(r.status == 200 and r.data.startswith("UPID:"),
          "VM.Snapshot.Rollback alone may roll back [ref §2]")
    c.wait(r.data)
    r = c.post(Q() + "/snapshot/s1/rollback", {"start": 1})
    check_eq(msg(r), (403, "Permission check failed (/vms/100, VM.PowerMgmt)\n"),
             "rollback with start=1 also needs VM.PowerMgmt [ref §2, API2/Qemu.pm rollback]")

    with_acl({"/": ["*"], "/vms/100": ["VM.Audit"]})
    r = c.post(Q() + "/status/start")
    check_eq(r.status, 403, "an ACL on a more specific path replaces the inherited one "
             "[AccessControl.pm roles]")

    with_acl({"/vms/100": ["VM.Audit", "VM.PowerMgmt"], "/storage/local":
              ["Datastore.AllocateSpace"]})
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    check(r.status == 200, "without VM.Backup vzdump still answers a UPID [VZDump.pm "
          "exec_backup checks it in the worker]")
    st = c.wait(r.data)
    check_eq(st["exitstatus"], "Permission check failed (/vms/100, VM.Backup)",
             "... and the task fails naming VM.Backup [ref §2]")
    vol = fake.state()["storages"][0]["volumes"][0]["volid"]
    r = c.get("/nodes/%s/storage/local/content" % NODE, query={"content": "backup"})
    check_eq(r.data, [], "backups are listed only with VM.Backup on their guest (or "
             "Datastore.Allocate) [Storage.pm check_volume_access]")
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    check_eq(msg(r), (403, "Permission check failed\n"),
             "restore without VM.Allocate or VM.Backup [ref §2, API2/Qemu.pm create_vm]")

    with_acl({"/vms/100": ["VM.Audit", "VM.Backup"], "/storage/local":
              ["Datastore.AllocateSpace"], "/storage/local-lvm": ["Datastore.AllocateSpace"]})
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1,
                                         "storage": "local-lvm"})
    check(r.status == 200, "VM.Backup is enough to restore over an existing guest with "
          "force=1 [ref §2, API2/Qemu.pm create_vm]: %r" % (r.doc,))
    st = c.wait(r.data)
    check_eq(st["exitstatus"], "Permission check failed (/sdn/zones/localnetwork/vmbr0, SDN.Use)",
             "the restored config's bridge needs SDN.Use, checked in the worker "
             "[QemuServer.pm check_bridge_access]")
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 101, "archive": vol})
    check_eq(r.status, 403, "a new vmid needs VM.Allocate [ref §2]")
    with_acl({"/vms/100": ["VM.Audit", "VM.Backup"], "/storage/local":
              ["Datastore.AllocateSpace"], "/sdn": ["SDN.Use"]})
    upid, st = c.run("POST", "/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    check_eq(st["exitstatus"], "Permission check failed (/storage/local-lvm, "
             "Datastore.AllocateSpace)", "without storage= the disks' storage is checked in "
             "the task [QemuServer.pm parse_backup_hints]")
    check_eq([s["name"] for s in fake.guest()["snapshots"]], ["s1"],
             "... before the old disks and snapshots are removed")
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local", "bwlimit": 1000})
    check_eq(r.doc.get("message"), "Permission check failed (/, Sys.Modify)\n",
             "bwlimit needs Sys.Modify on / [API2/Backup.pm assert_param_permission_common]")

    fake.reset()
    other = Client(fake, token=OTHER_ID + "=" + OTHER_SECRET)
    upid, _ = c.run("POST", Q() + "/snapshot", {"snapname": "mine"})
    r = other.get("/nodes/%s/tasks/%s/status" % (NODE, urllib.parse.quote(upid, safe="")))
    check_eq(msg(r), (403, "Permission check failed (/nodes/%s, Sys.Audit)\n" % NODE),
             "another token reads a task only with Sys.Audit [ref §2, Tasks.pm "
             "$check_task_user]")
    check(all(t["upid"] != upid for t in other.tasks(source="all").data),
          "... nor sees it in the task list [A§1, Tasks.pm node_tasks]")


def test_tasks(fake, c):
    fake.reset()
    t0 = time.time()
    upid, st = c.run("POST", Q() + "/status/stop")
    f = upid_fields(upid)
    check(UPID_RE.match(upid) is not None, "UPID matches the server's own regex: %s [ref §6, "
          "UPID.pm decode]" % upid)
    check(all(len(x) == 8 and x == x.upper() for x in f["hex"]),
          "pid, pstart, starttime are %%08X [ref §6, UPID.pm encode]: %r" % (f["hex"],))
    check_eq((f["node"], f["type"], f["id"], f["user"]), (NODE, "qmstop", "100", TOKENID),
             "UPID node, type, id, user (the token) [ref §6]")
    check(upid.endswith(":"), "the UPID ends with ':' [ref §6]")
    s = fake.state()
    forked = [t for t in s["tasks"] if t["upid"] == upid][0]["real_start"]
    node_at_fork = s["node_time"] + (forked - s["real_time"]) / SCALE
    check(f["starttime"] == int(node_at_fork) and abs(forked - t0) < 10,
          "starttime is the node's epoch seconds at the fork [ref §6, A§1, RESTEnvironment.pm "
          "fork_worker]")
    check_eq(st, {"upid": upid, "node": NODE, "pid": f["pid"], "pstart": f["pstart"],
                  "starttime": f["starttime"], "type": "qmstop", "id": "100",
                  "user": "fiocamp@pve", "tokenid": "conformance", "status": "stopped",
                  "exitstatus": "OK"},
             "task status: decoded UPID, user split from tokenid, exitstatus when stopped, no "
             "endtime [ref §6, A§1, Tasks.pm read_task_status]")
    t = c.task_in_list(upid)
    check(t is not None and t.get("endtime") is not None and t.get("status") == "OK" and
          t["endtime"] - t["starttime"] == 1,
          "the task list has endtime; endtime - starttime = the stop's 1 s [A§1]: %r" % (t,))

    # while running: no exitstatus, lock-free status, RUNNING in the list
    fake.control("/_fake/set", {"durations": {"qmstart": 300}})
    r = c.post(Q() + "/status/start")
    upid = r.data
    st = c.get("/nodes/%s/tasks/%s/status" % (NODE, urllib.parse.quote(upid, safe=""))).data
    check(st["status"] == "running" and "exitstatus" not in st and "endtime" not in st,
          "a running task: status running, no exitstatus, no endtime [ref §6, A§1]: %r" % st)
    lt = c.tasks(source="active").data
    check(any(x["upid"] == upid and x["status"] == "RUNNING" and "endtime" not in x
              for x in lt), "source=active lists it as RUNNING without endtime [A§1]")
    check(all(x["upid"] != upid for x in c.tasks().data),
          "the default source (archive) lists finished tasks only [A§1]")
    r = c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(upid, safe="")))
    check_eq((r.status, r.doc), (200, {"data": None}), "DELETE a task [ref §6 Cancel]")
    st = c.wait(upid)
    check_eq(st["exitstatus"], "received interrupt", "a stopped task's status "
             "[RESTEnvironment.pm fork_worker SIGTERM handler]")
    check_eq(c.get(Q() + "/status/current").data["status"], "stopped",
             "the interrupted start left the guest stopped")
    fake.control("/_fake/set", {"durations": {"qmstart": 2}})

    # exact task seconds over repetitions (the published rollback: 2, 2, 2, 2, 2)
    c.run("POST", Q() + "/snapshot", {"snapname": "golden"})
    secs = []
    for _ in range(5):
        upid, st = c.run("POST", Q() + "/snapshot/golden/rollback")
        secs.append(task_seconds(c, upid))
    check_eq(secs, [2] * 5, "task seconds = endtime - starttime from the node's clock, the "
             "programmed 2 s each time [A§1]")

    # the list: filters and total
    r = c.tasks(typefilter="qmrollback", vmid=100)
    check(r.doc.get("total") == 5 and all(x["type"] == "qmrollback" for x in r.data),
          "typefilter and vmid; total beside data [A§1]: %r" % r.doc.get("total"))
    r = c.tasks(typefilter="qmrollback", limit=2)
    check(len(r.data) == 2 and r.doc["total"] == 5, "limit pages, total counts all [A§1]")
    first = r.data[0]
    r = c.tasks(typefilter="qmrollback", since=first["starttime"])
    check(any(x["upid"] == first["upid"] for x in r.data), "since compares starttime [A§1]")
    check(c.tasks().data[0]["upid"] == first["upid"], "newest first [Tasks.pm reads the index "
          "backwards]")

    # logs: paging, total, the end
    fake.reset(durations={"qmrestore": 30}, guests=[{"vmid": 100, "status": "stopped"}],
               backups=[{"vmid": 100}])
    vol = fake.state()["storages"][0]["volumes"][0]["volid"]
    upid, st = c.run("POST", "/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    r = c.log(upid)
    total = r.doc["total"]
    check(total > 100 and len(r.data) == 50 and r.data[0]["n"] == 1 and r.data[-1]["n"] == 50,
          "the default page is lines 1..50 of %d, numbered from 1 [A§1, Tools.pm "
          "dump_logfile]" % total)
    r = c.log(upid, start=total - 3)
    check_eq([x["n"] for x in r.data], [total - 2, total - 1, total],
             "start = total - k reads the end [A§1]")
    check_eq(r.data[-1]["t"], "TASK OK", "the last line is TASK OK [ref §6, UPID.pm "
             "read_status]")
    r = c.log(upid, start=10, limit=5)
    check_eq([x["n"] for x in r.data], [11, 12, 13, 14, 15], "start/limit [A§1]")
    r = c.log(upid, limit=0)
    check_eq(len(r.data), total, "limit=0 reads everything [Tools.pm dump_logfile]")
    r = c.get("/nodes/%s/tasks/%s/log" % (NODE, urllib.parse.quote(upid, safe="")),
              query={"limit": 0}, headers={"Accept-Encoding": "gzip"})
    check(r.headers.get("content-encoding") == "gzip" and len(r.data) == total,
          "answers above 1 KiB are gzipped when asked [AnyEvent.pm response]")
    r = c.log(upid, start=total + 10)
    check_eq((r.data, r.doc.get("total")), ([], total), "past the end: no lines, total [A§1]")
    r = c.get("/nodes/%s/tasks/%s/log" % (NODE, urllib.parse.quote(upid, safe="")),
              query={"download": 1}, headers={"Accept-Encoding": "gzip"})
    check(r.status == 200 and r.headers.get("content-type") == "text/plain" and
          r.headers.get("content-encoding") == "gzip" and
          r.body.decode().rstrip("\n").split("\n")[-1] == "TASK OK",
          "download=1: the plain log, gzipped above 1 KiB [A§1, Tasks.pm read_task_log]")

    bad = "UPID:%s:0000ABCD:0000ABCD:6553F00D:qmstart:100:%s:" % (NODE, TOKENID)
    r = c.get("/nodes/%s/tasks/%s/status" % (NODE, urllib.parse.quote(bad, safe="")))
    check_eq(r.doc.get("errors"), {"upid": "no such task"}, "an unknown UPID [ref §6]")
    r = c.get("/nodes/%s/tasks/%s/status" % (NODE, "UPID:nonsense"))
    check_eq(r.doc.get("errors"), {"upid": "unable to parse worker upid"},
             "a malformed UPID [ref §6]")

    # pstart has 9 digits after ~497 days of uptime (UPID.pm, upid-test.pl)
    fake.reset(node_uptime=600 * 86400)
    upid, st = c.run("POST", Q() + "/status/stop")
    f = upid_fields(upid)
    check(len(f["hex"][1]) == 9 and st["pstart"] == f["pstart"],
          "pstart grows to 9 hex digits after 497 days: %s [ref §6]" % upid)


def test_guest(fake, c):
    fake.reset(guests=[{"vmid": 100, "status": "running"}])
    st = c.get(Q() + "/status/current").data
    check_eq((st["status"], st["qmpstatus"]), ("running", "running"), "running guest [ref §5.1]")
    upid, t = c.run("POST", Q() + "/status/shutdown")
    st = c.get(Q() + "/status/current").data
    check(t["exitstatus"] == "OK" and st["status"] == "stopped" and st["qmpstatus"] == "stopped"
          and "pid" not in st and st["uptime"] == 0, "shutdown stops it [ref §5.2]: %r" % st)
    check_eq(task_seconds(c, upid), 5, "the shutdown took the programmed 5 s [A§1]")
    upid, t = c.run("POST", Q() + "/status/stop")
    check_eq((t["exitstatus"], task_seconds(c, upid)), ("OK", 0),
             "stop of a stopped guest: a no-op, task OK [ref §5.2, _do_vm_stop 'return if "
             "!$pid']")
    upid, t = c.run("POST", Q() + "/status/shutdown")
    check_eq(t["exitstatus"], "OK", "shutdown of a stopped guest: OK too [ref §5.2]")
    r = c.post(Q() + "/status/reboot")
    check_eq((r.status, r.doc.get("message")), (500, "VM 100 not running\n"),
             "reboot of a stopped guest: synchronous 500 [ref §5.2, API2/Qemu.pm vm_reboot]")
    upid, t = c.run("POST", Q() + "/status/start")
    st = c.get(Q() + "/status/current").data
    check(t["exitstatus"] == "OK" and st["status"] == "running" and st["pid"] > 0,
          "start runs it [ref §5.2]: %r" % st)
    upid, t = c.run("POST", Q() + "/status/start")
    check_eq(t["exitstatus"], "VM 100 already running", "start of a running guest fails in "
             "the task [ref §5.2, QemuServer.pm vm_start]")

    # reboot: the task ends with the stop; qmeventd starts the guest again
    upid, t = c.run("POST", Q() + "/status/reboot")
    check_eq((t["exitstatus"], task_seconds(c, upid)), ("OK", 5), "qmreboot is the shutdown half "
             "[ref §5.2 'implemented as shutdown + restart by qmeventd']")
    st = wait_for(lambda: [x for x in fake.state()["tasks"] if x["type"] == "qmstart"
                           and x["user"] == "root@pam" and x["status"] == "stopped"])
    check(st and st[0]["exitstatus"] == "OK", "qmeventd starts the guest again in a qmstart "
          "task of root@pam [qemu-server CLI/qm.pm cleanup]")
    other = Client(fake, token=OTHER_ID + "=" + OTHER_SECRET)
    check(any(x["user"] == "root@pam" for x in c.tasks(source="all").data) and
          all(x["user"] != "root@pam" for x in other.tasks(source="all").data),
          "... which a token sees only with Sys.Audit on the node [Tasks.pm $check_task_user]")
    check_eq(c.get(Q() + "/status/current").data["status"], "running",
             "after a reboot the guest runs again")

    # a guest that ignores ACPI (QemuServer.pm _do_vm_stop)
    fake.reset(guests=[{"vmid": 100, "status": "running", "acpi": False}])
    upid, t = c.run("POST", Q() + "/status/shutdown", {"timeout": 3})
    check_eq(t["exitstatus"], "VM quit/powerdown failed - got timeout",
             "shutdown timeout without forceStop [ref §5.2]")
    check_eq(task_seconds(c, upid), 3, "... after the timeout [ref §5.2]")
    check_eq(c.get(Q() + "/status/current").data["status"], "running", "... the guest still runs")
    upid, t = c.run("POST", Q() + "/status/shutdown", {"timeout": 3, "forceStop": 1})
    check(t["exitstatus"] == "OK" and "VM still running - terminating now with SIGTERM" in
          c.log_text(upid), "forceStop=1 terminates it [ref §5.2]")
    check_eq(c.get(Q() + "/status/current").data["status"], "stopped", "... and it is stopped")

    # paused (ref §5.1 qmpstatus, §5.2)
    fake.reset(guests=[{"vmid": 100, "status": "running", "qmpstatus": "paused"}])
    st = c.get(Q() + "/status/current").data
    check_eq((st["status"], st["qmpstatus"]), ("running", "paused"), "a paused guest is "
             "'running' with qmpstatus paused [ref §5.1]")
    r = c.post(Q() + "/status/shutdown")
    check_eq((r.status, r.doc.get("message")), (500, "VM is paused - cannot shutdown\n"),
             "shutdown of a paused guest [ref §5.2]")
    r = c.post(Q() + "/status/reboot")
    check_eq(r.status, 500, "reboot of a paused guest [ref §5.2]")
    upid, t = c.run("POST", Q() + "/status/shutdown", {"forceStop": 1})
    check_eq((t["exitstatus"], c.get(Q() + "/status/current").data["status"]), ("OK", "stopped"),
             "forceStop stops a paused guest instead [ref §5.2]")

    # missing guests: where the handler reads the config decides 500 or task
    r = c.post(Q(999) + "/status/start")
    st = c.wait(r.data)
    check_eq(st["exitstatus"], "Configuration file 'nodes/%s/qemu-server/999.conf' does not "
             "exist" % NODE, "start of a missing guest fails in its task [API2/Qemu.pm "
             "vm_start reads the config in the worker]")
    r = c.post(Q(999) + "/status/reboot")
    check_eq(r.doc.get("message"), "unable to find configuration file for VM 999 on node '%s'\n"
             % NODE, "reboot of a missing guest: 500 [QemuConfig.pm "
             "assert_config_exists_on_node]")

    # HA-managed (ref §5.2): start only asks the HA manager
    fake.reset(guests=[{"vmid": 100, "status": "stopped", "ha": "stopped"}],
               durations={"ha_apply": 200})
    st = c.get(Q() + "/status/current").data
    check_eq(st["ha"], {"managed": 1, "state": "stopped"}, "status/current ha [ref §5.1, "
             "HA/Config.pm get_service_status]")
    r = c.get("/cluster/ha/resources")
    check_eq([(x["sid"], x["type"], x["state"]) for x in r.data], [("vm:100", "vm", "stopped")],
             "HA resources list [pve-ha-manager API2/HA/Resources.pm]")
    upid, t = c.run("POST", Q() + "/status/start")
    check(upid_fields(upid)["type"] == "hastart" and
          "Requesting HA start for VM 100" in c.log_text(upid),
          "an HA-managed guest starts through a hastart task [ref §5 table, §5.2]")
    check_eq(c.get(Q() + "/status/current").data["status"], "stopped",
             "the task finishing does not mean the guest is up [ref §5.2]")
    check(wait_for(lambda: c.get(Q() + "/status/current").data["status"] == "running"),
          "the HA manager starts it a little later [ref §5.2]")
    r = c.get("/cluster/resources", query={"type": "vm"})
    check(any(x["id"] == "qemu/100" and x["node"] == NODE and x["hastate"] == "started"
              for x in r.data), "cluster/resources shows the guest with its node and HA state "
          "[pve-manager API2/Cluster.pm resources]")


def test_locks(fake, c):
    # a config lock ('lock' in status/current) while a long operation runs
    fake.reset(durations={"vzdump": 500})
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local", "mode": "snapshot"})
    vz = r.data
    st = wait_for(lambda: c.get(Q() + "/status/current").data.get("lock") == "backup")
    check(st, "status/current shows lock: backup while vzdump runs [ref §5.1, §7]")
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "during"})
    check_eq(t["exitstatus"], "VM is locked (backup)", "a snapshot during a backup fails in its "
             "task [ref §7, A§2, AbstractConfig.pm check_lock]")
    upid, t = c.run("POST", Q() + "/status/start")
    check_eq(t["exitstatus"], "OK", "start of a running guest under a backup lock resumes it "
             "[ref §5.2]")
    c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(vz, safe="")))
    t = c.wait(vz)
    lines = c.log_text(vz)
    check(t["exitstatus"] == "interrupted by signal" and
          "ERROR: Backup of VM 100 failed - interrupted by signal" in lines,
          "a stopped vzdump [VZDump.pm signal handlers]: %r" % t["exitstatus"])
    check("lock" not in c.get(Q() + "/status/current").data, "vzdump's cleanup unlocked")

    # the config flock: 10 s, then "can't lock file" (A§2)
    fake.reset(durations={"qmshutdown": 3000})
    r = c.post(Q() + "/status/shutdown", {"timeout": 5000})
    sd = r.data
    upid, t = c.run("POST", Q() + "/status/start")
    check_eq(t["exitstatus"], "can't lock file '/var/lock/qemu-server/lock-100.conf' - got "
             "timeout", "a start while a shutdown holds the flock [A§2, Tools.pm "
             "lock_file_full]")
    check_eq(task_seconds(c, upid), 10, "... after the 10 s flock timeout [A§2]")
    check_eq(c.log_text(upid)[0], "trying to acquire lock...", "... logging its wait [Tools.pm]")
    c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(sd, safe="")))
    check_eq(c.wait(sd)["exitstatus"], "received interrupt", "the shutdown task stopped")
    check(c.get(Q() + "/status/current").data["status"] == "running" and
          not probe(fake.ssh).startswith("SSH-"), "... the guest keeps shutting down: the ACPI "
          "event was delivered")
    # a wait that ends within the timeout; the node clock runs slower here so
    # that the start surely arrives while the shutdown holds the flock
    fake.reset(time_scale=0.1, durations={"qmshutdown": 8})
    r = c.post(Q() + "/status/shutdown")
    sd = r.data
    upid, t = c.run("POST", Q() + "/status/start")
    lines = c.log_text(upid)
    check(t["exitstatus"] == "OK" and lines[:2] == ["trying to acquire lock...", " OK"],
          "a start that gets the flock within 10 s: logs ' OK' and runs [Tools.pm]: %r" % lines)
    check_eq(c.get(Q() + "/status/current").data["status"], "running", "... after the shutdown")
    # the synchronous form: restore's create lock waits 5 s in the request
    fake.reset(durations={"qmstop": 100}, backups=[{"vmid": 100}])
    vol = fake.state()["storages"][0]["volumes"][0]["volid"]
    r = c.post(Q() + "/status/stop")
    t0 = time.time()
    r2 = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    check_eq((r2.status, r2.doc.get("message")), (500, "unable to restore VM 100 - can't lock "
             "file '/var/lock/qemu-server/lock-100.conf' - got timeout\n"),
             "the lock timeout as a synchronous HTTP 500 [A§2, AbstractConfig.pm "
             "create_and_lock_config]")
    check(time.time() - t0 >= 5 * SCALE, "... after 5 s (scaled) [A§2 'create uses 5 s']")
    c.wait(r.data)
    # a left-over lock (A§2: "A crashed operation can leave it set")
    fake.control("/_fake/guest", {"vmid": 100, "lock": "snapshot-delete"})
    upid, t = c.run("POST", Q() + "/status/start")
    check_eq(t["exitstatus"], "VM is locked (snapshot-delete)", "a stale lock blocks start "
             "[A§2]")


def test_snapshots(fake, c):
    fake.reset(guests=[{"vmid": 100, "status": "stopped", "data": "A"}])
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "s1", "vmstate": 1,
                                                "description": "first"})
    check_eq(upid_fields(upid)["type"], "qmsnapshot", "snapshot task type [ref §5 table]")
    lst = {s["name"]: s for s in c.get(Q() + "/snapshot").data}
    check_eq(lst["s1"]["vmstate"], 0, "vmstate=1 on a stopped guest: a disk-only snapshot "
             "[ref §5.3, §12.7]")
    check(isinstance(lst["s1"]["snaptime"], int) and lst["s1"]["description"] == "first" and
          "parent" not in lst["s1"], "list item fields [ref §5.3]: %r" % lst["s1"])
    check_eq(lst["current"], {"name": "current", "digest": lst["current"]["digest"],
                              "running": 0, "description": "You are here!", "parent": "s1"},
             "the 'current' pseudo-entry with running and parent [ref §5.3]")
    fake.control("/_fake/guest", {"vmid": 100, "data": "B"})
    c.run("POST", Q() + "/status/start")
    # while a snapshot is taken: snapstate prepare and lock snapshot
    fake.control("/_fake/set", {"durations": {"qmsnapshot": 300}})
    r = c.post(Q() + "/snapshot", {"snapname": "s2", "vmstate": 1})
    s2 = r.data
    seen = wait_for(lambda: [s for s in c.get(Q() + "/snapshot").data
                             if s["name"] == "s2" and s.get("snapstate") == "prepare"])
    check(seen, "an incomplete snapshot shows snapstate prepare [ref §5.3]")
    check_eq(c.get(Q() + "/status/current").data.get("lock"), "snapshot",
             "... and the guest has lock: snapshot [ref §5.1]")
    upid, t = c.run("POST", Q() + "/status/stop")
    check_eq(t["exitstatus"], "VM is locked (snapshot)", "a stop during a snapshot [ref §5.2, "
             "A§2, QemuServer.pm _do_vm_stop check_lock]")
    upid, t = c.run("POST", Q() + "/snapshot/s2/rollback")
    check_eq(t["exitstatus"], "unable to rollback to incomplete snapshot (snapstate = prepare)",
             "rollback to an incomplete snapshot [ref §5.3]")
    fake.control("/_fake/set", {"durations": {"qmsnapshot": 1}})
    c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(s2, safe="")))
    t = c.wait(s2)
    check(t["exitstatus"] == "received interrupt" and
          "s2" not in [s["name"] for s in c.get(Q() + "/snapshot").data] and
          "lock" not in c.get(Q() + "/status/current").data,
          "an interrupted snapshot is cleaned up [AbstractConfig.pm snapshot_create]")
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "s2", "vmstate": 1})
    check("saving VM state and RAM using storage 'local-lvm'" in c.log_text(upid),
          "vmstate=1 on a running guest saves RAM [ref §5.3, QemuConfig.pm]")
    lst = {s["name"]: s for s in c.get(Q() + "/snapshot").data}
    check(lst["s2"]["vmstate"] == 1 and lst["s2"]["parent"] == "s1" and
          lst["current"]["parent"] == "s2" and lst["current"]["running"] == 1,
          "parent chain s1 <- s2 <- current [ref §5.3]: %r" % lst)
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "s2"})
    check_eq(t["exitstatus"], "snapshot name 's2' already used", "a name in use [ref §5.3]")
    cfg = c.get(Q() + "/snapshot/s2/config").data
    check(cfg.get("vmstate", "").startswith("local-lvm:vm-100-state-s2") and
          cfg.get("parent") == "s1", "snapshot config [ref §5 table]: %r" % cfg)

    # rollback to a disk-only snapshot of a running guest: stopped afterwards
    fake.control("/_fake/guest", {"vmid": 100, "data": "C"})
    upid, t = c.run("POST", Q() + "/snapshot/s1/rollback")
    st = c.get(Q() + "/status/current").data
    check(t["exitstatus"] == "OK" and st["status"] == "stopped",
          "rollback stops a running guest hard and leaves it stopped [ref §5.3]: %r" % st)
    check_eq(task_seconds(c, upid), 1 + 2, "... the task holds the stop (1 s) and the rollback "
             "(2 s) [AbstractConfig.pm snapshot_rollback]")
    check_eq(fake.guest()["data"], "A", "... the disks hold the snapshot's data")
    check_eq({s["name"]: s.get("parent") for s in c.get(Q() + "/snapshot").data}["current"],
             "s1", "current's parent is the rolled-back-to snapshot [ref §5.3]")
    # to a RAM snapshot: started in the same task
    upid, t = c.run("POST", Q() + "/snapshot/s2/rollback")
    st = c.get(Q() + "/status/current").data
    check(t["exitstatus"] == "OK" and st["status"] == "running",
          "rollback to a snapshot with RAM starts the guest [ref §5.3, §12.7]")
    check_eq(task_seconds(c, upid), 2 + 2, "... within the rollback task (2 s rollback + 2 s "
             "start) [QemuConfig.pm __snapshot_rollback_vm_start]")
    check_eq(fake.guest()["data"], "B", "... with s2's data")
    # start=1 forks a start task of its own (API2/Qemu.pm rollback)
    upid, t = c.run("POST", Q() + "/snapshot/s1/rollback", {"start": 1})
    check_eq(task_seconds(c, upid), 1 + 2, "rollback start=1: the rollback task holds no start")
    starts = wait_for(lambda: [x for x in c.tasks(source="all", typefilter="qmstart").data
                               if x["starttime"] >= t["starttime"] and x.get("endtime")])
    check(starts and starts[0]["status"] == "OK" and starts[0]["user"] == "fiocamp@pve",
          "... the start is a qmstart task of the same token, found in the task list "
          "[API2/Qemu.pm rollback calls vm_start, which forks; differs from A§4]")
    check_eq(c.get(Q() + "/status/current").data["status"], "running", "... which runs the guest")
    upid, t = c.run("POST", Q() + "/snapshot/nosuch/rollback")
    check_eq(t["exitstatus"], "snapshot 'nosuch' does not exist", "rollback to a missing "
             "snapshot [AbstractConfig.pm]")

    # delete relinks parents (AbstractConfig.pm snapshot_delete)
    upid, t = c.run("DELETE", Q() + "/snapshot/s1")
    check_eq(upid_fields(upid)["type"], "qmdelsnapshot", "delete task type [ref §5 table]")
    lst = {s["name"]: s for s in c.get(Q() + "/snapshot").data}
    check(set(lst) == {"s2", "current"} and "parent" not in lst["s2"] and
          "parent" not in lst["current"], "deleting s1 drops the references to it [ref §5.3]: %r"
          % lst)
    upid, t = c.run("DELETE", Q() + "/snapshot/s1")
    check_eq(t["exitstatus"], "snapshot 's1' does not exist", "delete of a missing snapshot")
    fake.control("/_fake/fault", {"kind": "task-error", "task": "qmdelsnapshot",
                                  "message": "lvremove failed"})
    upid, t = c.run("DELETE", Q() + "/snapshot/s2")
    st = c.get(Q() + "/status/current").data
    lst = {s["name"]: s for s in c.get(Q() + "/snapshot").data}
    check(t["exitstatus"] == "lvremove failed" and st.get("lock") == "snapshot-delete" and
          lst["s2"].get("snapstate") == "delete",
          "a failed delete leaves lock snapshot-delete and snapstate delete [A§2, "
          "cv4pve-autosnap#46]: %r %r" % (st.get("lock"), lst["s2"]))
    fake.control("/_fake/guest", {"vmid": 100, "lock": None})  # qm unlock
    upid, t = c.run("DELETE", Q() + "/snapshot/s2", params={"force": 1})
    check(t["exitstatus"] == "OK" and [s["name"] for s in c.get(Q() + "/snapshot").data] ==
          ["current"], "qm unlock, then delete with force=1 in the query [ref §5.3, A§2]")

    # ZFS: only the newest snapshot (ZFSPoolPlugin.pm)
    fake.reset(storages=[{"id": "local", "type": "dir"},
                         {"id": "local-zfs", "type": "zfspool", "content": ["images"]}],
               guests=[{"vmid": 100, "status": "stopped", "disk_storage": "local-zfs",
                        "snapshots": ["old", "new"]}])
    upid, t = c.run("POST", Q() + "/snapshot/old/rollback")
    check_eq(t["exitstatus"], "can't rollback, 'old' is not most recent snapshot on "
             "'local-zfs:vm-100-disk-0'", "ZFS rolls back to the newest snapshot only [ref §5.3]")
    fake.reset(storages=[{"id": "local", "type": "dir", "content": ["backup", "images"]}],
               guests=[{"vmid": 100, "status": "stopped", "disk_storage": "local"}])
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "raw1"})
    check_eq(t["exitstatus"], "snapshot feature is not available", "raw on a dir storage "
             "cannot snapshot [ref §5.3]")


def local_name(epoch):
    return time.strftime("%Y_%m_%d-%H_%M_%S", time.localtime(epoch))


def test_vzdump(fake, c):
    fake.reset(guests=[{"vmid": 100, "status": "running", "snapshots": ["s1"]}])
    for comp, ext in (("zstd", ".vma.zst"), ("lzo", ".vma.lzo"), ("gzip", ".vma.gz"),
                      ("0", ".vma")):
        upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local",
                                                              "mode": "snapshot",
                                                              "compress": comp})
        f = upid_fields(upid)
        want = "vzdump-qemu-100-%s%s" % (local_name(f["starttime"]), ext)
        lines = c.log_text(upid)
        check("INFO: creating vzdump archive '/var/lib/vz/dump/%s'" % want in lines,
              "compress=%s: archive %s named by the node's local time [ref §7]" % (comp, want))
        if comp == "zstd":
            check_eq((f["type"], f["id"], t["exitstatus"]), ("vzdump", "100", "OK"),
                     "vzdump task [ref §5 table, §7]")
            check_eq(task_seconds(c, upid), 21, "the programmed 21 s [A§1]")
            for want_line in ("INFO: Starting Backup of VM 100 (qemu)", "INFO: backup mode: "
                              "snapshot", "INFO: snapshots found (not included into backup)",
                              "INFO: Backup job finished successfully"):
                check(want_line in lines, "log has %r [A§5]" % want_line)
            check(any(re.match(r"^INFO: transferred 20\.00 GiB in \d+ seconds \(", x)
                      for x in lines), "the transferred line [A§5]")
            check(any(re.match(r"^INFO: Backup started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", x)
                      for x in lines), "Backup started at, node local time [A§5]")
            check_eq(lines[-1], "TASK OK", "ends TASK OK [ref §6]")
            zst_start = f["starttime"]
    r = c.get("/nodes/%s/storage/local/content" % NODE, query={"content": "backup",
                                                               "vmid": 100})
    vols = r.data
    check_eq([v["volid"] for v in vols], sorted((v["volid"] for v in vols), key=str.lower),
             "sorted by volid [Storage.pm volume_list]")
    z = [v for v in vols if v["format"] == "vma.zst"][0]
    check_eq(set(z), {"volid", "format", "size", "ctime", "vmid", "subtype", "content"},
             "listing fields [ref §5 table, Content.pm index]")
    check(z["volid"] == "local:backup/vzdump-qemu-100-%s.vma.zst" % local_name(zst_start) and
          z["ctime"] == zst_start and z["subtype"] == "qemu" and z["vmid"] == 100 and
          isinstance(z["size"], int) and z["size"] > 0 and z["content"] == "backup",
          "volid storage:backup/FILE, ctime from the name, subtype qemu [ref §7, Plugin.pm "
          "get_subdir_files]: %r" % z)
    check_eq(sorted(v["format"] for v in vols), ["vma", "vma.gz", "vma.lzo", "vma.zst"],
             "formats by compressor [ref §7]")
    vol = [v for v in vols if v["format"] == "vma"][0]["volid"]
    upid, t = c.run("DELETE", "/nodes/%s/storage/local/content/%s" % (NODE, vol))
    f = upid_fields(upid)
    check(t["exitstatus"] == "OK" and (f["type"], f["id"]) == ("imgdel", "100@local") and
          vol not in [v["volid"] for v in c.get("/nodes/%s/storage/local/content"
                                                 % NODE).data],
          "deleting a backup: an imgdel task with id VMID@STORAGE [Content.pm delete]")
    r = c.get("/nodes/%s/storage/local-lvm/content" % NODE, query={"content": "backup"})
    check_eq(r.data, [], "a storage without backup content lists none [Storage.pm "
             "volume_list]")
    r = c.get("/nodes/%s/storage" % NODE, query={"content": "backup"})
    check_eq([s["storage"] for s in r.data], ["local"], "the storages that hold backups "
             "[API2/Storage/Status.pm]")

    # one vzdump per node: the second waits for the global lock
    fake.reset(durations={"vzdump": [150, 21]})
    r1 = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"}).data
    r2 = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"}).data
    c.wait(r1)
    t2 = c.wait(r2)
    l2 = c.log_text(r2)
    end1 = c.task_in_list(r1)["endtime"]
    started = [x for x in l2 if x.startswith("INFO: Backup started at ")]
    check(l2[0] == "INFO: trying to get global lock - waiting..." and
          l2[1] == "INFO: got global lock" and t2["exitstatus"] == "OK",
          "the second vzdump waits for the node's lock [ref §7, VZDump.pm getlock]: %r" % l2[:3])
    check(started and started[0][24:] >= time.strftime("%Y-%m-%d %H:%M:%S",
                                                         time.localtime(end1)),
          "... and backs up after the first has ended [ref §7]")
    fake.reset(durations={"vzdump": 600})
    r1 = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"}).data
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local",
                                                         "lockwait": 1})
    check(t["exitstatus"] == "unexpected status" and c.log_text(upid)[-1] ==
          "ERROR: can't acquire lock '/var/run/vzdump.lock' - got timeout",
          "lockwait over: no TASK line, so 'unexpected status' [ref §6, API2/VZDump.pm exit(-1)]: "
          "%r" % t["exitstatus"])
    check_eq(task_seconds(c, upid), 60, "... after lockwait=1 minute [ref §7]")
    c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(r1, safe="")))
    c.wait(r1)

    # failures and warnings
    fake.reset()
    fake.control("/_fake/fault", {"kind": "task-error", "task": "vzdump",
                                  "message": "zstd: error 70 : Write error : cannot write block"})
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    r = c.log(upid)
    end = c.log(upid, start=r.doc["total"] - 4).data
    check_eq(t["exitstatus"], "job errors", "a guest's failure ends the job with 'job errors' "
             "[ref §7, VZDump.pm]")
    check(any(x["t"] == "ERROR: Backup of VM 100 failed - zstd: error 70 : Write error : "
              "cannot write block" for x in end),
          "the reason is in the log's last lines [ref §6 polling recipe, A§1]: %r" % end)
    check_eq(fake.state()["storages"][0]["volumes"], [], "no archive from a failed backup")
    fake.control("/_fake/fault", {"kind": "task-warnings", "task": "vzdump",
                                  "warnings": ["unable to add notes - no such template"]})
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    lines = c.log_text(upid)
    check(t["exitstatus"] == "WARNINGS: 1" and "WARN: unable to add notes - no such template"
          in lines and lines[-1] == "TASK WARNINGS: 1",
          "warnings: WARN lines and WARNINGS: n, which is success [ref §6, §12.1]")
    t2 = c.task_in_list(upid)
    check_eq(t2["status"], "WARNINGS: 1", "the task list shows the same status [A§1]")
    fake.control("/_fake/fault", {"kind": "task-warnings", "task": "qmsnapshot", "warnings": 3})
    upid, t = c.run("POST", Q() + "/snapshot", {"snapname": "warned"})
    check_eq((t["exitstatus"], len([x for x in c.log_text(upid) if x.startswith("WARN: ")])),
             ("WARNINGS: 3", 3), "a count of warnings on another task type [ref §6]")
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local-lvm"})
    check_eq(t["exitstatus"], "could not get storage information for 'local-lvm': can't use "
             "storage 'local-lvm' for backups - wrong content type", "a storage without "
             "backup content [ref §7, VZDump.pm storage_info]")
    fake.reset(remote_guests=[{"vmid": 101, "node": "pve2"}])
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 101, "storage": "local"})
    check_eq((r.status, r.data), (200, "OK"), "vzdump of a guest on another node answers 'OK', "
             "not a UPID [ref §7, §12.2]")
    fake.reset(storages=[{"id": "local", "type": "dir", "prune_backups": "keep-last=2"},
                         {"id": "local-lvm", "type": "lvmthin", "content": ["images"]}])
    for _ in range(3):
        upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    check_eq(len(c.get("/nodes/%s/storage/local/content" % NODE).data), 2,
             "the storage's prune-backups keep-last=2 [ref §7 remove, VZDump.pm]")
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local",
                                                         "remove": 0})
    check(t["exitstatus"] == "job errors" and any("There is a max backup limit of 2 enforced"
                                                  in x for x in c.log_text(upid)),
          "remove=0 at the limit [ref §7]")

    # stop mode: downtime, and the guest runs again afterwards
    fake.reset(durations={"qmshutdown": 200})
    r = c.post("/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local", "mode": "stop"})
    # Proxmox shows an ACPI shutdown as "running" until QEMU exits: the
    # guest's own state (its sshd) tells
    down = wait_for(lambda: fake.guest()["ssh"] == "down", timeout=10)
    t = c.wait(r.data)
    lines = c.log_text(r.data)
    check(down and t["exitstatus"] == "OK" and "INFO: stopping virtual guest" in lines and
          any(x.startswith("INFO: resuming VM again after ") for x in lines),
          "stop mode stops and restarts the guest [ref §7 mode stop]")
    check_eq(c.get(Q() + "/status/current").data["status"], "running", "... running after")
    fake.reset(guests=[{"vmid": 100, "status": "stopped"}])
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local"})
    lines = c.log_text(upid)
    check("INFO: backup mode: stop" in lines and "INFO: stopping kvm after backup task" in lines
          and c.get(Q() + "/status/current").data["status"] == "stopped",
          "a stopped guest is backed up in stop mode and stays stopped [VZDump.pm]")


def test_restore(fake, c):
    fake.reset(guests=[{"vmid": 100, "status": "running", "name": "bench", "data": "A"}])
    upid, t = c.run("POST", "/nodes/%s/vzdump" % NODE, {"vmid": 100, "storage": "local",
                                                         "compress": "zstd"})
    vol = c.get("/nodes/%s/storage/local/content" % NODE, query={"content": "backup"}).data
    vol = max(vol, key=lambda v: v["ctime"])["volid"]
    c.run("POST", Q() + "/snapshot", {"snapname": "s1"})
    fake.control("/_fake/guest", {"vmid": 100, "data": "B", "name": "renamed"})
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol})
    check_eq((r.status, r.doc.get("message")), (500, "unable to restore VM 100 - VM 100 already "
             "exists on node '%s'\n" % NODE), "without force an existing vmid [ref §8, "
             "Cluster.pm check_vmid_unused]")
    upid, t = c.run("POST", "/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    check_eq(t["exitstatus"], "unable to restore VM 100 - vm is running",
             "force=1 over a running guest fails in the task [ref §8]")
    g = fake.guest()
    check(g["status"] == "running" and [s["name"] for s in g["snapshots"]] == ["s1"] and
          g["lock"] is None and g["data"] == "B",
          "... the guest is untouched and unlocked [API2/Qemu.pm create_vm]")
    c.run("POST", Q() + "/status/stop")
    fake.control("/_fake/set", {"durations": {"qmrestore": 300}})
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    check_eq(upid_fields(r.data)["type"], "qmrestore", "restore task type [ref §8]")
    check_eq(c.get(Q() + "/status/current").data.get("lock"), "create",
             "the guest has lock: create during the restore [ref §5.1, create_and_lock_config]")
    c.delete("/nodes/%s/tasks/%s" % (NODE, urllib.parse.quote(r.data, safe="")))
    t = c.wait(r.data)
    check(t["exitstatus"] == "interrupted by signal" and
          "lock" not in c.get(Q() + "/status/current").data,
          "a stopped restore removes its lock [API2/Qemu.pm create_vm]: %r" % t["exitstatus"])
    fake.control("/_fake/set", {"durations": {"qmrestore": [53, 57, 69, 100]}})
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1,
                                         "storage": "local-lvm"})
    upid = r.data
    t = c.wait(upid)
    st = c.get(Q() + "/status/current").data
    lst = c.get(Q() + "/snapshot").data
    check(t["exitstatus"] == "OK" and st["status"] == "stopped" and "lock" not in st,
          "restored, stopped, unlocked [ref §8]: %r" % st)
    check_eq(lst, [{"name": "current", "digest": lst[0]["digest"], "running": 0,
                    "description": "You are here!"}],
             "the snapshots are gone after a restore [ref §8, A§5]")
    check_eq((st["name"], fake.guest()["data"]), ("bench", "A"),
             "name and data come from the backup [ref §8]")
    check_eq(task_seconds(c, upid), 53, "the programmed 53 s [A§1]")
    lines = c.log_text(upid)
    check("restore vma archive: zstd -q -d -c /var/lib/vz/dump/%s | vma extract -v -r "
          "/var/tmp/vzdumptmp%d.fifo - /var/tmp/vzdumptmp%d" % (
              vol.split("/", 1)[1], upid_fields(upid)["pid"], upid_fields(upid)["pid"]) in lines
          and "new volume ID is 'local-lvm:vm-100-disk-0'" in lines and "rescan volumes..." in
          lines, "restore log lines [A§5, QemuServer.pm restore_vma_archive]")
    secs = [task_seconds(c, c.run("POST", "/nodes/%s/qemu" % NODE, {
        "vmid": 100, "archive": vol, "force": 1})[0]) for _ in range(3)]
    check_eq(secs, [57, 69, 100], "durations given as a list are used in order")
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": "local:backup/vzdump-qemu-100-"
                                         "2020_01_01-00_00_00.vma.zst", "force": 1})
    check_eq(r.doc.get("message"), "can't find file 'local:backup/vzdump-qemu-100-2020_01_01-"
             "00_00_00.vma.zst'\n", "a missing archive [Storage.pm abs_filesystem_path]")
    r = c.post("/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1,
                                         "scsi0": "local-lvm:1"})
    check_eq(r.status, 400, "disk options conflict with archive [ref §8]")
    upid, t = c.run("POST", "/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1,
                                                       "start": 1})
    lines = c.log_text(upid)
    check(t["exitstatus"] == "OK" and lines[-2] == "Execute autostart",
          "start=1 [ref §8]: %r" % lines[-3:])
    check(wait_for(lambda: c.get(Q() + "/status/current").data["status"] == "running"),
          "... a qmstart task of its own starts the guest [API2/Qemu.pm create_vm]")
    # a failure in the data phase leaves an empty shell
    c.run("POST", Q() + "/status/stop")
    fake.control("/_fake/fault", {"kind": "task-error", "task": "qmrestore",
                                  "message": "vma: restore failed - short read", "at": 0.5})
    upid, t = c.run("POST", "/nodes/%s/qemu" % NODE, {"vmid": 100, "archive": vol, "force": 1})
    st = c.get(Q() + "/status/current").data
    lines = c.log_text(upid)
    check(t["exitstatus"] == "vma: restore failed - short read" and
          lines[-2].startswith("error before or during data restore") and
          st["name"] == "VM 100" and "lock" not in st and st["maxmem"] == 128 * 1024 * 1024,
          "a restore that fails mid-way leaves the guest without its config and data "
          "[QemuServer.pm restore_vma_archive 'memory: 128']: %r" % st)


def test_faults(fake, c):
    fake.reset()
    fake.control("/_fake/fault", {"kind": "error", "status": 500, "method": "POST",
                                  "path": "/nodes/%s/qemu/100/status/start" % NODE, "pass": 2,
                                  "message": "can't lock file '/var/lock/qemu-server/lock-100"
                                             ".conf' - got timeout\n"})
    got = []
    for _ in range(4):
        r = c.post(Q() + "/status/start")
        got.append(r.status)
        if r.status == 200:
            c.wait(r.data)
    check_eq(got, [200, 200, 500, 200], "pass=2: the third matching request gets the fault")
    fake.control("/_fake/fault", {"kind": "lock-timeout", "method": "POST",
                                  "path": "/nodes/%s/qemu/100/status/stop" % NODE})
    r = c.post(Q() + "/status/stop")
    check(r.status == 500 and r.doc["message"] == "can't lock file '/var/lock/qemu-server/"
          "lock-100.conf' - got timeout\n" and r.elapsed >= 10 * SCALE,
          "the synchronous lock timeout: 500 after 10 s [A§2, Telmate#173]")
    check_eq(c.get(Q() + "/status/current").data["status"], "running", "... nothing done")
    fake.control("/_fake/fault", {"kind": "task-lock-timeout", "task": "qmstop"})
    upid, t = c.run("POST", Q() + "/status/stop")
    check(t["exitstatus"] == "can't lock file '/var/lock/qemu-server/lock-100.conf' - got "
          "timeout" and task_seconds(c, upid) == 10,
          "the lock timeout as a task's exitstatus [A§2, bpg#935]")

    # pveproxy without pvedaemon: 595 on protected endpoints only
    fake.control("/_fake/fault", {"kind": "daemon", "status": 595})
    r = c.get("/version")
    check_eq(r.status, 200, "/version is answered by pveproxy itself [API2.pm, not protected]")
    r = c.get(Q() + "/status/current")
    check_eq((r.status, r.reason, r.raw), (595, "Connection refused", b""),
             "595 Connection refused, no body [A§6, AnyEvent.pm proxy_request]")
    fake.control("/_fake/fault", {"kind": "daemon", "status": 596, "executed": True,
                                  "seconds": 5, "method": "POST"})
    n = len([t for t in fake.state()["tasks"] if t["type"] == "qmstop"])
    r = c.post(Q() + "/status/stop")
    check(r.status == 596 and r.reason == "Connection timed out" and r.elapsed >= 5 * SCALE,
          "596 Connection timed out [A§6]")
    check_eq(len([t for t in fake.state()["tasks"] if t["type"] == "qmstop"]), n + 1,
             "... and the stop was carried out all the same (executed)")
    fake.reset()
    fake.control("/_fake/fault", {"kind": "drop", "when": "before", "method": "POST"})
    try:
        c.post(Q() + "/snapshot", {"snapname": "d1"})
        dropped = False
    except (http.client.HTTPException, ConnectionError):
        dropped = True
    check(dropped and not fake.state()["tasks"], "a connection dropped before the request ran")
    fake.control("/_fake/fault", {"kind": "drop", "when": "after", "method": "POST"})
    try:
        c.post(Q() + "/snapshot", {"snapname": "d2"})
        dropped = False
    except (http.client.HTTPException, ConnectionError):
        dropped = True
    tasks = fake.state()["tasks"]
    check(dropped and len(tasks) == 1 and tasks[0]["type"] == "qmsnapshot",
          "a connection dropped after the task was forked: the task exists")
    check(wait_for(lambda: [t for t in c.tasks(typefilter="qmsnapshot").data]),
          "... and the task list finds it [A§1 'lookup for one task']")
    fake.control("/_fake/fault", {"kind": "stall", "seconds": 0.5, "path": "/version"})
    r = c.get("/version")
    check(r.status == 200 and r.elapsed >= 0.5, "a stall delays the answer: %.2f s" % r.elapsed)
    log = fake.requests()
    check(any(e.get("outcome") == "dropped-after" and e.get("upid") for e in log),
          "the request log tells dropped answers from others")

    # task-hold: the task stops at its main phase until released, holding its
    # flock; "after" arms a task fault only once N tasks of a type were forked
    fake.reset()
    fake.control("/_fake/fault", {"kind": "task-hold", "task": "qmstop",
                                  "after": {"type": "qmshutdown", "count": 1}})
    upid, t = c.run("POST", Q() + "/status/shutdown")
    check_eq(t["exitstatus"], "OK", "after: a shutdown first, not held")
    c.run("POST", Q() + "/status/start")
    r = c.post(Q() + "/status/stop")
    held = r.data
    check(wait_for(lambda: [x for x in fake.state()["tasks"] if x["upid"] == held and
                            x["held"]]), "task-hold: the stop after one shutdown is held")
    st = c.get("/nodes/%s/tasks/%s/status" % (NODE, urllib.parse.quote(held, safe=""))).data
    check_eq(st["status"], "running", "task-hold: it runs, as the API says")
    r2 = c.post(Q() + "/status/start")
    t2 = c.wait(r2.data)
    check(t2["exitstatus"].startswith("can't lock file") or "running" in t2["exitstatus"],
          "task-hold: a start meanwhile waits for the held stop's flock: %r" % t2["exitstatus"])
    rel = fake.control("/_fake/release", {"task": "qmstop"})
    check_eq(rel["released"], [held], "release: the held task named")
    t = c.wait(held)
    check_eq(t["exitstatus"], "OK", "release: it goes on and ends")
    check_eq(c.get(Q() + "/status/current").data["status"], "stopped", "... having stopped it")


def probe(port, timeout=0.5):
    s = socket.socket()
    s.settimeout(timeout)
    try:
        s.connect(("127.0.0.1", port))
        return s.recv(100).decode() or "closed"
    except ConnectionRefusedError:
        return "refused"
    except socket.timeout:
        return "silent"
    finally:
        s.close()


def test_ssh(fake, c):
    fake.reset(boot_delay=200)
    # the listener follows the guest within the fake's ticker (5 ms)
    check(wait_for(lambda: probe(fake.ssh).startswith("SSH-2.0-"), timeout=5),
          "a running guest's SSH port sends a banner")
    c.run("POST", Q() + "/status/stop")
    check_eq(probe(fake.ssh), "refused", "off: refused")
    t0 = time.time()
    c.run("POST", Q() + "/status/start")
    early = probe(fake.ssh)
    check(early == "refused" or time.time() - t0 > 1.5,
          "right after the start the guest boots: %r" % early)
    up = wait_for(lambda: probe(fake.ssh).startswith("SSH-2.0-"), timeout=20)
    check(up and time.time() - t0 >= 200 * SCALE, "the banner comes after the boot delay")
    fake.control("/_fake/guest", {"vmid": 100, "qmpstatus": "paused"})
    check_eq(probe(fake.ssh), "silent", "a paused guest takes the connection but sends nothing")


def test_https(tmp):
    fake = Fake(tmp, "https", https=True)
    try:
        fake.reset()
        fp = fake.hello["fingerprint"]
        check(re.match(r"^([A-F0-9]{2}:){31}[A-F0-9]{2}$", fp),
              "the fingerprint in Proxmox's form [ref §9, fingerprint-sha256]: %s" % fp)
        plain = Client(fake)
        conn = plain.connect()
        served = fingerprint(conn.sock.getpeercert(binary_form=True))
        conn.close()
        check_eq(served, fp, "the fingerprint is the SHA-256 of the served certificate's DER "
                 "[ref §9, Certificate.pm]")
        info = Client(fake, pin=fp).get("/nodes/%s/certificates/info" % NODE).data
        check_eq([(i["filename"], i["fingerprint"] == fp) for i in info],
                 [("pve-root-ca.pem", False), ("pve-ssl.pem", True)],
                 "certificates/info lists the CA and the node certificate [ref §9]")
        ssl_info = info[1]
        check(set(ssl_info["san"]) >= {"127.0.0.1", "localhost", NODE},
              "the node certificate's SANs [ref §9, Cluster/Setup.pm]: %r" % ssl_info["san"])
        for host in ("127.0.0.1", "localhost"):
            r = Client(fake, ca=fake.hello["ca_file"], host=host).get("/version")
            check_eq(r.status, 200, "full verification with the cluster CA via %s [ref §9 "
                     "option 1]" % host)
        before = fake.control("/_fake/connections")
        wrong = ":".join(["00"] * 32)
        try:
            Client(fake, pin=wrong).get("/version")
            refused = False
        except PinMismatch:
            refused = True
        n_before = len(before["connections"])
        after = wait_for(lambda: (lambda a: a if len(a["connections"]) > n_before and all(
            x["closed"] for x in a["connections"][n_before:]) else None)(
            fake.control("/_fake/connections")))
        new = after["connections"][n_before:]
        check(refused and len(new) == 1 and new[0]["handshake"] == "ok" and
              new[0]["requests"] == 0 and new[0]["authorization"] is False,
              "a wrong pin fails after the handshake and before the token is sent [ref §9]: %r"
              % new)
        check_eq(after["auth_headers_seen"], before["auth_headers_seen"],
                 "no Authorization header arrived for the wrong pin")
        r = Client(fake, pin=fp).get("/version")
        check_eq(r.status, 200, "the right pin works")
        curl = shutil.which("curl")
        if curl:
            url = "https://127.0.0.1:%d/api2/json/version" % fake.api
            hdr = os.path.join(tmp, "curl-header")
            with open(hdr, "w") as f:
                f.write("Authorization: PVEAPIToken=%s\n" % TOKEN)
            os.chmod(hdr, 0o600)
            ok = subprocess.run([curl, "-sS", "-k", "--pinnedpubkey", fake.hello["pin"],
                                 "-H", "@" + hdr, url], capture_output=True, text=True)
            check(ok.returncode == 0 and '"data"' in ok.stdout,
                  "curl --pinnedpubkey with the SPKI pin [ref §9 option 2]: %s" % ok.stderr)
            n = fake.control("/_fake/connections")["auth_headers_seen"]
            bad = subprocess.run([curl, "-sS", "-k", "--pinnedpubkey",
                                  "sha256//" + base64.b64encode(b"\0" * 32).decode(), "-H",
                                  "@" + hdr, url], capture_output=True, text=True)
            check(bad.returncode == 90 and
                  fake.control("/_fake/connections")["auth_headers_seen"] == n,
                  "curl with a wrong pin fails (exit 90) before sending the token [ref §9]: %d"
                  % bad.returncode)
        else:
            say("curl not installed: the curl pinning checks were skipped")
    finally:
        err = fake.stop()
        check(SECRET not in err, "no secret on the HTTPS fake's stderr")
        with open(fake.log_path) as f:
            check(SECRET not in f.read(), "no secret in the HTTPS fake's request log")


AREAS = [test_envelope, test_auth, test_privileges, test_tasks, test_guest, test_locks,
         test_snapshots, test_vzdump, test_restore, test_faults, test_ssh]


def main():
    global FAKE
    FAKE = os.path.abspath(sys.argv[1])
    os.environ["TZ"] = TZ
    time.tzset()
    base = os.environ.get("FC_BUILDDIR") or None
    tmp = tempfile.mkdtemp(prefix="fake-pve-test.", dir=base)
    t0 = time.time()
    fake = Fake(tmp, "http")
    c = Client(fake)
    try:
        for area in AREAS:
            t = time.time()
            try:
                area(fake, c)
            except Exception as e:  # one broken area must not hide the others
                import traceback
                check(False, "%s raised %s: %s\n%s" % (area.__name__, type(e).__name__, e,
                                                       traceback.format_exc()))
            say("%-16s %5.1f s" % (area.__name__, time.time() - t))
        t = time.time()
        try:
            test_https(tmp)
        except Exception as e:
            import traceback
            check(False, "test_https raised %s: %s\n%s" % (type(e).__name__, e,
                                                             traceback.format_exc()))
        say("%-16s %5.1f s" % ("test_https", time.time() - t))
    finally:
        err = fake.stop()
        check(SECRET not in err, "no secret on the fake's stderr")
        with open(fake.log_path) as f:
            log = f.read()
        check(SECRET not in log, "no secret in the fake's request log")
        check(log.count("\n") > 300, "the request log kept every request across resets")
        check(all(SECRET not in x for x in OUTPUT + H.FAILURES),
              "no secret in this test's output")
        records = sorted(glob.glob(os.path.join(tmp, "*-api-record.jsonl")))
        checker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "api",
                               "check-requests.py")
        r = subprocess.run([sys.executable, checker] + records, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        lines = r.stdout.strip().split("\n")
        say(lines[-1])
        check(r.returncode == 0, "the fake's answers hold against the schema and "
              "proxmox-api.md §4:\n" + "\n".join(lines[:40]))
        for rec in records:
            with open(rec) as f:
                check(SECRET not in f.read(), "no secret in " + os.path.basename(rec))
        if not H.FAILURES:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            say("kept", tmp)
    return H.summary(", %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
