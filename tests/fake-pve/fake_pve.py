#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A fake Proxmox VE API server for tests: one node's pveproxy and pvedaemon.

Behaves as Proxmox's own source says the real one does (files named below
are in the public repositories proxmox/pve-http-server, pve-manager,
pve-common, pve-access-control, qemu-server, pve-guest-common, pve-storage,
pve-cluster and pve-ha-manager; each function names the one it follows):

- the /api2/json envelope {"data": ...} with "total" on lists, errors as
  {"data": null, "message": "...\\n"} plus "errors" for parameter errors, the
  message's first line as the HTTP reason phrase, Connection: close after
  every error, gzip above 1 KiB when asked (APIServer/AnyEvent.pm,
  Formatter/Standard.pm);
- API tokens (Authorization: PVEAPIToken=USER@REALM!TOKENID=SECRET), the
  3 s delay and the body-less "401 Authentication failed!" / "401 No
  ticket", 403 "Permission check failed (/vms/100, VM.PowerMgmt)" from
  per-token ACLs (more specific paths override, as AccessControl.pm roles()),
  501 for unknown paths and bodies on GET/DELETE, 595/596 as pveproxy answers
  when pvedaemon does not (faults);
- tasks with real UPIDs, status without endtime, the task list with endtime,
  logs with start/limit/total and "TASK OK" / "TASK WARNINGS: n" / "TASK
  ERROR: ..." as last line (pve-common UPID.pm, RESTEnvironment.pm
  fork_worker, pve-manager API2/Tasks.pm);
- QEMU guests: start, stop, shutdown, reboot (qmeventd starts the guest
  again in a task of its own), reset, suspend, resume, status/current with
  qmpstatus and lock, the config flock (10 s, "can't lock file
  '/var/lock/qemu-server/lock-VMID.conf' - got timeout") and config locks
  ("VM is locked (snapshot)"), snapshots with parents and vmstate, rollback
  that leaves the guest stopped unless the snapshot has RAM, vzdump (one per
  node, archive names by compressor, its log), backup listing, restore over
  an existing guest (stopped, snapshots gone), HA resources, cluster
  resources, versions, certificate info.

Where Proxmox's text is not in its source (LVM's own output, vma's progress
lines) the fake writes what those tools print and says "fake's choice".

Time: every duration is in seconds of the node's clock and is multiplied by
--time-scale in real time.  The node's clock runs 1/time_scale as fast as
the real one (and clock_offset seconds off), so a 21 s vzdump at scale 0.01
takes 0.21 s and still shows starttime and endtime 21 s apart, as the real
node would; our stopwatch and the node's task seconds are two clocks.

Standard library only (plus Debian's openssl binary for --https).  Listens
on 127.0.0.1, port 0 by default; the first line on stdout (and --port-file)
is JSON: {"api": P, "scheme": "http"|"https", "control": P, "ssh": P,
"node": ..., "fingerprint": ..., "pin": ..., "ca_file": ..., "cert_file": ...}.
Stop it with SIGTERM.

The control interface is a second plain-HTTP port (never logged, JSON in and
out), so that the API port sees only the client's connections:
  POST /_fake/reset   a whole configuration (see State.reset)
  POST /_fake/set     {"durations", "boot_delay", "auth_delay", "tokens",
                      "backups", "faults", "clear_faults"} for the running node
  POST /_fake/guest   {"vmid": N, ...fields}: status ("running" answers SSH at
                      once unless "booted": false), qmpstatus, lock (null:
                      qm unlock), name, ha, acpi, data, template: an
                      operator's changes, no task
  POST /_fake/fault   one fault (see Faults)
  POST /_fake/release {"upid" or "task": a type, or neither: all}: tasks
                      stopped by a task-hold fault go on
  GET  /_fake/state   guests, snapshots, tasks, backups, locks, clocks
  GET  /_fake/requests?since=N   the API request log from sequence N
  GET  /_fake/connections        every API connection: TLS, requests, and
                                 whether an Authorization header arrived

With FAKE_API_RECORD=FILE in its environment the fake appends every API
request to FILE as one JSON line: the request log's entry (method, path,
query, body, content type, whether an Authorization header came) with
"api": "pve" and "reply" (status, reason, content type, body), for
tests/api/check-requests.py.  A request with an X-Fake-Probe header (a
test's own, wrong on purpose) is marked "probe": its answer is checked,
not the request.

The request log never holds a token secret: an Authorization header is
written as "PVEAPIToken=<tokenid>=<secret>" and the check's outcome beside it.
"""

import argparse
import base64
import collections
import gzip
import hashlib
import heapq
import itertools
import json
import os
import random
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid as uuidlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

API = "/api2/json"

# Task durations in node seconds, before --time-scale.  rollback, vzdump
# and qmrestore are the published measurement issue 12 repeats (PVE 8.1,
# 20 GiB LVM-thin guest): rollback tasks 2 s, vzdump 21-22 s, qmrestore
# 53, 57, 69, 100 s.  A list is used in order, its last value repeating.
# The others are the fake's choice.
DURATIONS = {
    "qmstart": 1.5,
    "qmstop": 1.0,
    "qmshutdown": 6.0,
    "qmreboot": 6.0,  # the shutdown half; qmeventd's restart is a qmstart task
    "qmreset": 0.5,
    "qmsuspend": 0.5,
    "qmresume": 0.5,
    "qmsnapshot": 1.0,
    "vmstate": 4.0,  # saving the RAM of a running guest, within qmsnapshot
    "qmrollback": 2.0,
    "qmdelsnapshot": 1.0,
    "vzdump": 21.0,
    "qmrestore": [53.0, 57.0, 69.0, 100.0],
    "imgdel": 0.5,
    "hastart": 0.5,
    "hastop": 0.5,
    "ha_apply": 2.0,  # the HA manager acting on a request (outside any task)
    "qmeventd": 0.5,  # from a rebooting guest's stop to qmeventd's start
}
# issue 12: "about 22.8 s of that is the boot" (SSH answers 22.8 s after
# the start task ends); a guest resumed from RAM answers at once.
BOOT_DELAY = 22.8
RESUME_DELAY = 0.3
LOCK_TIMEOUT = 10.0  # AbstractConfig.pm lock_config
CREATE_LOCK_TIMEOUT = 5.0  # AbstractConfig.pm create_and_lock_config
AUTH_DELAY = 3.0  # AnyEvent.pm: "always delay unauthorized calls by 3 seconds"
PROXY_TIMEOUT = 30.0  # AnyEvent.pm proxy_request: timeout => 30
MAX_POST = 512 * 1024  # AnyEvent.pm $limit_max_post
USER_HZ = 100

DEFAULT_TOKEN = "fiocamp@pve!bench=11111111-2222-3333-4444-555555555555"

GIB = 1024 ** 3


# ---- errors ----------------------------------------------------------------

class ApiError(Exception):
    """An error the API handler raises; formatted like Formatter/Standard.pm."""

    def __init__(self, status, message, errors=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


class Raw(Exception):
    """An answer that is not an API envelope (401, 501 without formatter, 59x)."""

    def __init__(self, status, reason, body=b"", ctype=None):
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.body = body
        self.ctype = ctype


def die(msg):
    """A plain Perl die in a handler: HTTP 500 with the text as message."""
    return ApiError(500, msg if msg.endswith("\n") else msg + "\n")


def param_exc(errors):
    # pve-common Exception.pm raise_param_exc
    return ApiError(400, "Parameter verification failed.\n", errors)


def perm_exc(what=None):
    # pve-common Exception.pm raise_perm_exc
    return ApiError(403, "Permission check failed%s\n" % (" (%s)" % what if what else ""))


class TaskError(Exception):
    """die inside a worker: the task ends with TASK ERROR: <msg>."""

    def __init__(self, msg):
        super().__init__(msg)
        self.msg = msg


class TaskInterrupt(Exception):
    """SIGTERM of DELETE /tasks/{upid}: RESTEnvironment.pm's handler dies."""


class NoStatusLine(Exception):
    """The worker exits without a TASK line (vzdump's getlock failure calls
    exit(-1)); read_status then says "unexpected status"."""


# ---- parameters (pve-common JSONSchema.pm check_prop / check_type) -----------

CONFIGID_RE = re.compile(r"^[a-z][a-z0-9_-]+$", re.I)
NODE_RE = re.compile(r"^[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?$")
VMID_RE = re.compile(r"^[1-9][0-9]{2,8}$")
INT_RE = re.compile(r"^[+-]?\d+$")
STORAGE_ID_RE = re.compile(r"^[a-z][a-z0-9\-\_\.]*[a-z0-9]$", re.I)
UPID_RE = re.compile(r"^UPID:([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?):([0-9A-Fa-f]{8}):"
                     r"([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s/]+):([^:\s/]*):([^:\s/]+):$")
TOKENID_RE = re.compile(r"^(([^\s:/]+)@([A-Za-z][A-Za-z0-9.\-_]+))!([A-Za-z][A-Za-z0-9.\-_]+)$")


def fmt_node(v):
    if not NODE_RE.match(v):
        raise ValueError("value does not look like a valid node name\n")


def fmt_vmid(v):
    if not VMID_RE.match(v):
        raise ValueError("value does not look like a valid VM ID\n")


def fmt_vmid_list(v):
    for item in re.split(r"[,;\s\0]+", v.strip()):
        if item:
            fmt_vmid(item)


def fmt_configid(v):
    if not CONFIGID_RE.match(v):
        raise ValueError("invalid configuration ID '%s'\n" % v)


def fmt_storage(v):
    # JSONSchema.pm parse_id
    if len(v) < 2:
        raise ValueError("storage ID '%s' cannot be shorter than 2 characters\n" % v)
    if not STORAGE_ID_RE.match(v):
        raise ValueError("storage ID '%s' contains illegal characters\n" % v)


def S(type_="string", optional=True, **kw):
    d = {"type": type_, "optional": optional}
    d.update(kw)
    return d


NODE = S(optional=False, format=fmt_node)
VMID = S("integer", optional=False, format=fmt_vmid, minimum=100, maximum=999999999)
SNAPNAME = S(optional=False, format=fmt_configid, maxLength=40)
STORAGE = S(format=fmt_storage)
BOOL = S("boolean")
TIMEOUT = S("integer", minimum=0)


def check_params(params, schema, json_body):
    """Validates the merged parameters as JSONSchema.pm validate() does;
    raises the 400 with one message per parameter."""
    errors = {}
    out = {}
    for k in params:
        if k not in schema:
            errors[k] = ("property is not defined in schema and the schema does not allow "
                         "additional properties")
    params = {k: v for k, v in params.items() if v is not None and k in schema}  # undef: absent
    for k, v in params.items():
        spec = schema[k]
        msg, val = check_value(v, spec, json_body)
        if msg:
            errors[k] = msg
        else:
            out[k] = val
    for k, spec in schema.items():
        if not spec.get("optional") and k not in params:
            errors[k] = "property is missing and it is not optional"
    if errors:
        raise param_exc(errors)
    return out


def check_value(v, spec, json_body):
    t = spec["type"]
    if isinstance(v, list):
        return "type check ('%s') failed - got ARRAY" % t, None
    if isinstance(v, bool):
        if t == "boolean":
            return None, 1 if v else 0
        return "type check ('%s') failed - got %s" % (t, "JSON::PP::Boolean"), None
    if isinstance(v, (int, float)) and json_body:
        v = str(v) if not isinstance(v, float) or v != int(v) else str(int(v))
    v = "" if v is None else str(v)
    if t == "boolean":
        if v not in ("0", "1"):
            return "type check ('boolean') failed - got '%s'" % v, None
        return None, int(v)
    if t == "integer" and not INT_RE.match(v):
        return "type check ('integer') failed - got '%s'" % v, None
    fmt = spec.get("format")
    if fmt:
        try:
            fmt(v)
        except ValueError as e:
            return "invalid format - %s" % e, None
    if "maxLength" in spec and len(v) > spec["maxLength"]:
        return "value may only be %d characters long" % spec["maxLength"], None
    if t == "integer":
        n = int(v)
        if "maximum" in spec and n > spec["maximum"]:
            return "value must have a maximum value of %d" % spec["maximum"], None
        if "minimum" in spec and n < spec["minimum"]:
            return "value must have a minimum value of %d" % spec["minimum"], None
    if "enum" in spec and v not in spec["enum"]:
        return ("value '%s' does not have a value in the enumeration '%s'"
                % (v, ", ".join(spec["enum"]))), None
    return None, int(v) if t == "integer" else v


# ---- the node's clock and the task scheduler -----------------------------------

class Sleep:
    """A worker waits this many node seconds."""

    def __init__(self, secs):
        self.secs = secs


class Hold:
    """A worker stops here until the test releases it (the task-hold fault,
    POST /_fake/release): a task that runs as long as a test needs it to,
    whatever the load of the machine."""


class Flock:
    """A worker takes the guest's config flock (lock_config), waiting up to
    timeout node seconds (pve-common Tools.pm lock_file_full)."""

    def __init__(self, vmid, timeout=LOCK_TIMEOUT):
        self.vmid = vmid
        self.timeout = timeout


class GlobalLock:
    """vzdump's node-wide lock /var/run/vzdump.lock (pve-manager VZDump.pm
    getlock), waited for up to timeout node seconds."""

    def __init__(self, timeout):
        self.timeout = timeout


class FileLock:
    """One flock: a holder (a task, with nesting depth) and its waiters."""

    def __init__(self, path):
        self.path = path
        self.holder = None
        self.depth = 0
        self.waiters = collections.deque()  # [task, active]

    def release(self, task, t):
        if self.holder is not task:
            return
        self.depth -= 1
        if self.depth > 0:
            return
        self.holder = None
        while self.waiters:
            w = self.waiters.popleft()
            if not w[1]:
                continue
            w[1] = False
            self.holder, self.depth = w[0], 1
            w[0].holds.add(self)
            w[0].resume_at(t, got_lock=self)
            return


class Scheduler:
    """Events at exact real times, run in order when a request or the
    ticker catches up; the times they carry are the scheduled ones, so that
    task timestamps do not depend on when the fake looked."""

    def __init__(self):
        self.heap = []
        self.seq = itertools.count()

    def at(self, t, fn):
        heapq.heappush(self.heap, (t, next(self.seq), fn))

    def advance(self, now):
        while self.heap and self.heap[0][0] <= now:
            t, _, fn = heapq.heappop(self.heap)
            fn(t)


class Task:
    """One worker: a UPID, a log, and a generator that yields Sleep, Flock
    and GlobalLock to the scheduler (RESTEnvironment.pm fork_worker)."""

    def __init__(self, type_, id_, user, t, body, vmid=None):
        st = STATE
        self.type = type_
        self.id = "" if id_ is None else str(id_)
        self.user = user
        self.vmid = vmid
        self.node = st.node
        st.next_pid += random.randint(3, 40)
        self.pid = st.next_pid
        self.t_fork = t
        self.starttime = int(st.node_time(t))
        # pstart: the worker's start in clock ticks since the node booted
        # (/proc/PID/stat field 22, ProcFSTools.pm read_proc_starttime)
        self.pstart = int((st.node_time(t) - st.boot_epoch) * USER_HZ)
        # UPID.pm encode: %08X fields, pstart may grow to 9 digits
        self.upid = "UPID:%s:%08X:%08X:%08X:%s:%s:%s:" % (
            self.node, self.pid, self.pstart, self.starttime, self.type, self.id, self.user)
        self.lines = []
        self.warnings = 0
        self.t_end = None
        self.endtime = None
        self.exitstatus = None
        self.holds = set()
        self.waiting = None
        self.held = False  # stopped at a Hold until released
        self.wake = 0  # a resume scheduled before an interrupt is stale
        self.faults = st.faults.take_task_faults(self.type, vmid)
        self.gen = body(self)
        self.t = t
        st.tasks.append(self)
        self.resume_at(t)

    # for the worker bodies
    def log(self, text):
        for line in str(text).split("\n"):
            self.lines.append(line)

    def warn(self, text):
        # RESTEnvironment.pm warn / log_warn: counted, "WARN: " in the log
        self.warnings += 1
        self.log("WARN: " + text)

    def duration(self, key=None):
        return STATE.duration(key or self.type)

    def unflock(self, vmid):
        lk = STATE.flock(vmid)
        lk.release(self, self.t)
        if lk.holder is not self:
            self.holds.discard(lk)

    def unglobal(self):
        lk = STATE.global_lock
        lk.release(self, self.t)
        if lk.holder is not self:
            self.holds.discard(lk)

    def running(self):
        return self.t_end is None

    def resume_at(self, t, got_lock=None):
        self.wake += 1
        w = self.wake
        STATE.sched.at(t, lambda t2: self.step(t2, got_lock=got_lock) if self.wake == w
                       else None)

    def step(self, t, exc=None, got_lock=None):
        if self.t_end is not None:
            return
        self.t = t
        self.waiting = None
        self.held = False
        if got_lock is not None and got_lock is not STATE.global_lock:
            self.log(" OK")  # lock_file_full prints " OK" once it has the lock
        while True:
            try:
                cmd = self.gen.throw(exc) if exc is not None else next(self.gen)
            except StopIteration:
                self.finish(t, None)
                return
            except TaskError as e:
                self.finish(t, e.msg)
                return
            except TaskInterrupt:
                self.finish(t, "received interrupt")
                return
            except NoStatusLine:
                self.finish(t, None, status_line=False)
                return
            except ApiError as e:  # e.g. a permission check inside the worker
                self.finish(t, e.message)
                return
            except Exception as e:  # a bug in the fake: say so in the task
                self.finish(t, "fake bug: %s: %s" % (type(e).__name__, e))
                return
            exc = None
            if isinstance(cmd, Hold):
                self.held = True
                self.wake += 1  # nothing resumes it but a release or an interrupt
                return
            if isinstance(cmd, Sleep):
                self.resume_at(t + cmd.secs * STATE.scale)
                return
            if isinstance(cmd, (Flock, GlobalLock)):
                if isinstance(cmd, Flock):
                    lk = STATE.flock(cmd.vmid)
                    forced = self.faults.get("task-lock-timeout")
                else:
                    lk = STATE.global_lock
                    forced = None
                if forced is None and (lk.holder is None or lk.holder is self):
                    lk.holder = self
                    lk.depth += 1
                    self.holds.add(lk)
                    continue
                if isinstance(cmd, Flock):
                    self.log("trying to acquire lock...")
                    self.faults.pop("task-lock-timeout", None)
                    msg = "can't lock file '%s' - got timeout" % lk.path
                else:
                    msg = None  # w_vzdump logs its own wait
                w = [self, True]
                if forced is None:
                    lk.waiters.append(w)
                self.waiting = (lk, w)
                STATE.sched.at(t + cmd.timeout * STATE.scale,
                               lambda t2, w=w, msg=msg: self.lock_timeout(t2, w, msg))
                return
            raise RuntimeError("unknown worker command %r" % (cmd,))

    def lock_timeout(self, t, w, msg):
        if not w[1]:
            return
        w[1] = False
        self.step(t, exc=TaskError(msg) if msg else LockWaitTimeout())

    def release(self, t):
        """POST /_fake/release: a held worker goes on."""
        if self.held and self.t_end is None:
            self.held = False
            self.resume_at(t)
            return True
        return False

    def interrupt(self, t):
        """DELETE /tasks/{upid}: the worker's process group gets SIGTERM."""
        if self.t_end is not None:
            return
        if self.waiting:
            self.waiting[1][1] = False
        self.wake += 1
        self.step(t, exc=TaskInterrupt())

    def finish(self, t, err, status_line=True):
        self.t = t
        for lk in list(self.holds):
            lk.depth = 1
            lk.release(self, t)  # the process exits: its flocks go
        self.holds.clear()
        try:
            self.gen.close()
        except Exception:
            pass
        if status_line:
            if err is not None:
                # fork_worker: chomp, newlines become spaces
                self.log("TASK ERROR: " + err.rstrip("\n").replace("\n", " "))
            elif self.warnings:
                self.log("TASK WARNINGS: %d" % self.warnings)
            else:
                self.log("TASK OK")
        self.t_end = t
        # endtime: time() when the daemon reaps the worker (active_workers)
        self.endtime = int(STATE.node_time(t))
        self.exitstatus = read_status(self.lines)
        STATE.finished.append(self)
        on_end = getattr(self, "on_end", None)
        if on_end:
            on_end(t)

    # the API's views
    def decoded(self):
        d = {"upid": self.upid, "node": self.node, "pid": self.pid, "pstart": self.pstart,
             "starttime": self.starttime, "type": self.type, "id": self.id, "user": self.user}
        m = TOKENID_RE.match(self.user)
        if m:  # Tasks.pm $convert_token_task
            d["user"], d["tokenid"] = m.group(1), m.group(4)
        return d

    def status_json(self):
        d = self.decoded()
        d["status"] = "running" if self.running() else "stopped"
        if not self.running():
            d["exitstatus"] = self.exitstatus
        return d


class LockWaitTimeout(Exception):
    """vzdump's global lock was not had within lockwait."""


def read_status(lines):
    # pve-common UPID.pm read_status, from the last line of the task log
    if not lines:
        return "unable to get last line from task log - no content"
    line = lines[-1]
    if line == "TASK OK":
        return "OK"
    m = re.match(r"^TASK ERROR: (.+)$", line)
    if m:
        return m.group(1)
    m = re.match(r"^TASK (WARNINGS: \d+)$", line)
    if m:
        return m.group(1)
    return "unexpected status"


# ---- the node's objects -----------------------------------------------------------

class Guest:
    def __init__(self, spec, node, now):
        self.vmid = int(spec.get("vmid", 100))
        self.node = node
        self.conf = {
            "name": spec.get("name", "fiocamp-bench"),
            "memory": int(spec.get("memory", 4096)),
            "cores": int(spec.get("cores", 2)),
            "sockets": 1,
            "ostype": "l26",
            "scsihw": "virtio-scsi-single",
            "scsi0": "%s:vm-%d-disk-0,iothread=1,size=%dG" % (
                spec.get("disk_storage", "local-lvm"), self.vmid,
                int(spec.get("disk_gib", 20))),
            "net0": "virtio=BC:24:11:%02X:%02X:%02X,bridge=%s,firewall=1" % (
                self.vmid // 65536 % 256, self.vmid // 256 % 256, self.vmid % 256,
                spec.get("bridge", "vmbr0")),
            "boot": "order=scsi0",
            "agent": "1" if spec.get("agent", True) else "0",
        }
        if spec.get("template"):
            self.conf["template"] = 1
        self.disk_storage = spec.get("disk_storage", "local-lvm")
        self.disk_bytes = int(spec.get("disk_gib", 20)) * GIB
        self.used_bytes = int(spec.get("used_bytes", int(8.6 * GIB)))
        self.status = spec.get("status", "running")
        self.qmpstatus = spec.get("qmpstatus", self.status)
        self.lock = spec.get("lock")
        self.parent = None
        self.ha = spec.get("ha")  # None, or the HA request state ("started", ...)
        self.acpi = bool(spec.get("acpi", True))  # the guest reacts to ACPI shutdown
        self.data = spec.get("data", "data-0")  # what the disks hold, for the tests
        self.started = STATE.node_time(now) - 3600 if self.status == "running" else None
        self.ssh_up_at = now if self.status == "running" else None
        self.shutting_down = False
        self.pid = random.randint(2000, 400000) if self.status == "running" else None
        self.snapshots = collections.OrderedDict()
        for s in spec.get("snapshots", []):
            s = {"name": s} if isinstance(s, str) else dict(s)
            snap = {"name": s["name"], "snaptime": int(s.get("snaptime", STATE.node_time(now) -
                                                                      86400)),
                    "vmstate": 1 if s.get("vmstate") else 0,
                    "description": s.get("description", ""),
                    "conf": dict(self.conf), "data": s.get("data", self.data),
                    "parent": self.parent}
            if s.get("snapstate"):
                snap["snapstate"] = s["snapstate"]
            if not snap["parent"]:
                del snap["parent"]
            self.snapshots[snap["name"]] = snap
            self.parent = snap["name"]
        if "parent" in spec:
            self.parent = spec["parent"]

    def name(self):
        return self.conf.get("name") or "VM %d" % self.vmid

    def running(self):
        return self.status == "running"

    def template(self):
        return bool(self.conf.get("template"))

    def set_running(self, t, resumed=False):
        self.status = "running"
        self.qmpstatus = "running"
        self.pid = random.randint(2000, 400000)
        self.started = STATE.node_time(t)
        self.shutting_down = False
        delay = RESUME_DELAY if resumed else STATE.boot_delay
        self.ssh_up_at = t + delay * STATE.scale

    def set_stopped(self, t):
        self.status = "stopped"
        self.qmpstatus = "stopped"
        self.pid = None
        self.started = None
        self.shutting_down = False
        self.ssh_up_at = None

    def ssh_state(self, now):
        if not self.running():
            return "down"
        if self.qmpstatus != "running":
            return "frozen"  # a paused guest: the port may answer, sshd does not
        if self.shutting_down or self.ssh_up_at is None or now < self.ssh_up_at:
            return "down"
        return "up"

    def volid(self):
        return "%s:vm-%d-disk-0" % (self.disk_storage, self.vmid)

    def lvname(self):
        return "vm-%d-disk-0" % self.vmid

    def status_json(self, now):
        # qemu-server QemuServer.pm vmstatus + API2/Qemu.pm vm_status
        d = {"vmid": self.vmid, "status": self.status, "name": self.name(),
             "qmpstatus": self.qmpstatus if self.running() else "stopped",
             "cpus": self.conf.get("cores", 1), "maxmem": self.conf.get("memory", 0) * 1024 * 1024,
             "maxdisk": self.disk_bytes, "disk": 0, "uptime": 0, "cpu": 0, "mem": 0,
             "memhost": 0, "netin": 0, "netout": 0, "diskread": 0, "diskwrite": 0,
             "ha": self.ha_json()}
        if self.running():
            d["pid"] = self.pid
            d["uptime"] = max(0, int(STATE.node_time(now) - self.started))
            d["cpu"] = 0.0123
            d["mem"] = d["memhost"] = int(d["maxmem"] * 0.4)
            d["running-machine"] = "pc-i440fx-9.0+pve0"
            d["running-qemu"] = "9.0.2"
        if self.lock:
            d["lock"] = self.lock
        if self.template():
            d["template"] = 1
        if self.conf.get("agent") == "1":
            d["agent"] = 1
        return d

    def ha_json(self):
        # pve-ha-manager HA/Config.pm get_service_status
        if self.ha and self.ha != "ignored":
            return {"managed": 1, "state": self.ha}
        return {"managed": 0}

    def config_json(self):
        d = dict(self.conf)
        d["digest"] = hashlib.sha1(json.dumps(self.conf, sort_keys=True).encode()).hexdigest()
        if self.parent:
            d["parent"] = self.parent
        if self.lock:
            d["lock"] = self.lock
        return d

    def json(self, now):
        return {"vmid": self.vmid, "status": self.status, "qmpstatus": self.qmpstatus,
                "lock": self.lock, "name": self.name(), "parent": self.parent, "ha": self.ha,
                "acpi": self.acpi, "data": self.data, "conf": self.config_json(),
                "snapshots": [dict((k, v) for k, v in s.items() if k != "conf")
                              for s in self.snapshots.values()],
                "ssh": self.ssh_state(now)}


class Storage:
    def __init__(self, spec):
        self.id = spec["id"]
        self.type = spec.get("type", "dir")
        self.content = list(spec.get("content", ["backup", "iso", "vztmpl"]))
        self.path = spec.get("path", "/var/lib/vz" if self.type == "dir" else None)
        self.prune = spec.get("prune_backups")  # e.g. "keep-last=3"; None: keep-all
        self.snapshots = bool(spec.get("snapshots", self.type in ("lvmthin", "zfspool", "rbd")))
        # ZFS rolls back to the newest snapshot only (ZFSPoolPlugin.pm)
        self.rollback_latest_only = bool(spec.get("rollback_latest_only",
                                                  self.type == "zfspool"))
        self.total = int(spec.get("total", 100 * GIB))
        self.volumes = []  # backups: dicts

    def used(self):
        return sum(v["size"] for v in self.volumes)

    def status_json(self):
        return {"storage": self.id, "type": self.type, "content": ",".join(sorted(self.content)),
                "active": 1, "enabled": 1, "shared": 0, "total": self.total,
                "used": self.used(), "avail": self.total - self.used(),
                "used_fraction": round(self.used() / self.total, 6) if self.total else 0}

    def dumpdir(self):
        return (self.path or "/mnt/%s" % self.id) + "/dump"


# ---- faults ---------------------------------------------------------------------

class Faults:
    """Programmed faults.  Request faults match method, path (the path under
    /api2/json; "prefix": true for a prefix, or "path_re"), let "pass"
    matching requests through first, then fire "count" times (default 1):

      {"kind": "error", "status": 500, "message": "...", "errors": {...}}
          a Proxmox-shaped error (the handler is not run)
      {"kind": "lock-timeout"}  the handler waits the 10 s flock timeout and
          answers 500 can't lock file '/var/lock/qemu-server/lock-VMID.conf'
          - got timeout (the synchronous form, Telmate#173)
      {"kind": "daemon", "status": 595, "reason": "Connection refused"}
          pveproxy could not reach pvedaemon: no body; "status": 596 and
          "reason": "Connection timed out" waits PROXY_TIMEOUT (or "seconds")
          first, and with "executed": true the request was carried out all
          the same.  Only endpoints pvedaemon serves ("protected" ones) are
          hit unless "protected_only": false
      {"kind": "raw", "status": N, "reason": "...", "body": "..."}  exact bytes
      {"kind": "drop", "when": "before"|"after"}  the connection is closed
          without an answer, before or after the request was carried out
      {"kind": "stall", "seconds": S, "when": "before"|"after",
          "then": "answer"|"drop"}  S real seconds of silence

    Task faults match "task" (a type such as "vzdump"), optionally "vmid", and
    with "after": {"type": T, "count": N} only once the node has forked N
    tasks of type T (the start that follows the second restore):
      {"kind": "task-error", "message": "...", "at": 0.5}  the worker dies
          after that fraction of its main phase (vzdump: that guest's backup
          fails and the job ends with "job errors")
      {"kind": "task-warnings", "warnings": ["..."] or N}  WARN lines, then
          TASK WARNINGS: n
      {"kind": "task-lock-timeout"}  the worker's first flock waits 10 s and
          fails: can't lock file ... - got timeout (bpg#935)
      {"kind": "task-hold"}  the worker stops at the start of its main phase
          (a restore once the old disks are gone, a backup before its data)
          and stays there, holding what it holds (the config flock of a
          start or a stop), until POST /_fake/release; DELETE of the task
          still ends it.  The fake's choice, for tests: a task that runs as
          long as the test needs, on a loaded machine too
    """

    REQUEST_KINDS = ("error", "lock-timeout", "daemon", "raw", "drop", "stall")
    TASK_KINDS = ("task-error", "task-warnings", "task-lock-timeout", "task-hold")

    def __init__(self):
        self.list = []

    def add(self, f):
        f = dict(f)
        if f.get("kind") not in self.REQUEST_KINDS + self.TASK_KINDS:
            raise ValueError("unknown fault kind %r" % f.get("kind"))
        f.setdefault("count", 1)
        f.setdefault("pass", 0)
        f["fired"] = 0
        self.list.append(f)

    def take_request_fault(self, method, path, protected):
        for f in self.list:
            if f["kind"] not in self.REQUEST_KINDS or f["count"] <= 0:
                continue
            if f.get("method") and f["method"] != method:
                continue
            fp = f.get("path")
            if fp and not (path.startswith(fp) if f.get("prefix") else path == fp):
                continue
            if f.get("path_re") and not re.search(f["path_re"], path):
                continue
            if f.get("protected_only", f["kind"] == "daemon") and not protected:
                continue
            if f["pass"] > 0:
                f["pass"] -= 1
                continue
            f["count"] -= 1
            f["fired"] += 1
            return f
        return None

    def take_task_faults(self, type_, vmid):
        got = {}
        for f in self.list:
            if f["kind"] not in self.TASK_KINDS or f["count"] <= 0 or f["kind"] in got:
                continue
            if f.get("task") and f["task"] != type_:
                continue
            if f.get("vmid") and vmid is not None and int(f["vmid"]) != vmid:
                continue
            after = f.get("after")
            if after and sum(1 for t in STATE.tasks if t.type == after["type"]) < int(
                    after.get("count", 1)):
                continue
            if f["pass"] > 0:
                f["pass"] -= 1
                continue
            f["count"] -= 1
            f["fired"] += 1
            got[f["kind"]] = f
        return got

    def json(self):
        return [dict(f) for f in self.list]


# ---- the node ---------------------------------------------------------------------

class State:
    def __init__(self):
        self.lock = threading.RLock()
        self.seq = 0
        self.log = []
        self.connections = []
        self.reset({})

    def reset(self, cfg):
        """A new node from a configuration; every key is optional:

        time_scale     real seconds per node second (default --time-scale)
        clock_offset   seconds the node's clock is ahead of ours
        node           the node's name ("pve1"); node_uptime (s, for pstart)
        version        {"version", "release", "repoid"} of GET /version
        durations      {task type: node seconds or a list used in order};
                       the keys are in DURATIONS (vmstate, ha_apply and
                       qmeventd are phases, not tasks)
        boot_delay     node seconds from a guest's start to its SSH banner
        auth_delay     node seconds before a 401 (3)
        tokens         [{"tokenid": "u@realm!name", "secret": ..., "acl":
                       {path: [privileges] or ["*"]}, "expire": epoch,
                       "enabled": bool}]; default: FAKE_PVE_TOKEN with "*"
        storages       [{"id", "type": dir|lvmthin|zfspool|..., "content":
                       [...], "path", "prune_backups": "keep-last=N",
                       "snapshots": bool, "rollback_latest_only": bool,
                       "total": bytes}]; default local (dir) and local-lvm
        guests         [{"vmid", "name", "status": running|stopped,
                       "qmpstatus", "lock", "ha": null|"started"|...,
                       "acpi": bool (reacts to shutdown), "data": a label
                       of what the disks hold (snapshots and backups keep
                       it, rollback and restore bring it back), "snapshots":
                       [name or {"name", "vmstate", "snaptime", "data",
                       "snapstate"}] (each the parent of the next),
                       "memory", "cores", "disk_gib", "disk_storage",
                       "used_bytes", "bridge", "agent", "template"}]
        backups        [{"vmid", "storage", "ctime", "compress", "size",
                       "notes", "protected", "data"}] present already
        remote_guests  [{"vmid", "node", "name"}] on other cluster nodes
        faults         [fault, ...] as POST /_fake/fault takes them
        ssh_vmid       the guest behind the SSH port (the first guest)
        """
        global STATE
        STATE = self
        self.scale = float(cfg.get("time_scale", ARGS.time_scale if ARGS else 1.0))
        if self.scale <= 0:
            raise ValueError("time_scale must be more than 0")
        self.real0 = time.time()
        self.node0 = self.real0 + float(cfg.get("clock_offset", 0.0))
        self.node = cfg.get("node", "pve1")
        self.uptime = float(cfg.get("node_uptime", 12 * 86400))
        self.boot_epoch = self.node0 - self.uptime
        self.version = dict({"version": "8.1.4", "release": "8.1", "repoid": "ec5affc9e41f1d79"},
                            **cfg.get("version", {}))
        self.kversion = cfg.get("kversion", "Linux 6.5.11-8-pve #1 SMP PREEMPT_DYNAMIC "
                                            "PMX 6.5.11-8 (2024-01-30T12:27Z)")
        self.cluster = cfg.get("cluster")  # None: a single node without a cluster
        self.durations = dict(DURATIONS)
        self.duration_used = collections.Counter()
        self.durations.update(cfg.get("durations", {}))
        self.boot_delay = float(cfg.get("boot_delay", BOOT_DELAY))
        self.auth_delay = float(cfg.get("auth_delay", AUTH_DELAY))
        self.set_tokens(cfg.get("tokens"))
        self.sched = Scheduler()
        self.tasks = []
        self.finished = []  # in the order they ended: the task index
        self.flocks = {}
        self.global_lock = FileLock("/var/run/vzdump.lock")
        self.faults = Faults()
        for f in cfg.get("faults", []):
            self.faults.add(f)
        self.next_pid = random.randint(0x1000, 0x7FFF) * 16
        self.storages = collections.OrderedDict()
        for spec in cfg.get("storages", [
                {"id": "local", "type": "dir", "content": ["backup", "iso", "vztmpl"]},
                {"id": "local-lvm", "type": "lvmthin", "content": ["images", "rootdir"]}]):
            s = Storage(spec)
            self.storages[s.id] = s
        now = time.time()
        self.guests = collections.OrderedDict()
        for spec in cfg.get("guests", [{}]):
            g = Guest(spec, self.node, now)
            self.guests[g.vmid] = g
        # guests of other cluster nodes: listed, skipped by vzdump, not reachable
        self.remote = {int(r["vmid"]): dict(r) for r in cfg.get("remote_guests", [])}
        for b in cfg.get("backups", []):
            self.add_backup(b, now)
        self.ssh_vmid = int(cfg.get("ssh_vmid", next(iter(self.guests), 0) or 0))
        self.log = []
        self.seq = 0

    def set_tokens(self, tokens):
        if tokens is None:
            env = os.environ.get("FAKE_PVE_TOKEN", DEFAULT_TOKEN)
            tid, _, secret = env.rpartition("=")
            tokens = [{"tokenid": tid, "secret": secret, "acl": {"/": ["*"]}}]
        self.tokens = {}
        for t in tokens:
            self.tokens[t["tokenid"]] = {
                "secret": t["secret"], "acl": t.get("acl", {"/": ["*"]}),
                "expire": int(t.get("expire", 0)), "enabled": t.get("enabled", True),
                "secrets_seen": 0}
        self.auth_seen = 0

    def node_time(self, t):
        return self.node0 + (t - self.real0) / self.scale

    def duration(self, key):
        v = self.durations.get(key, 1.0)
        if isinstance(v, list):
            i = self.duration_used[key]
            self.duration_used[key] += 1
            return float(v[min(i, len(v) - 1)])
        return float(v)

    def flock(self, vmid):
        lk = self.flocks.get(vmid)
        if lk is None:
            lk = self.flocks[vmid] = FileLock("/var/lock/qemu-server/lock-%d.conf" % vmid)
        return lk

    def advance(self):
        now = time.time()
        self.sched.advance(now)
        return now

    def add_backup(self, b, now):
        st = self.storages[b.get("storage", "local")]
        vmid = int(b.get("vmid", 100))
        ctime = int(b.get("ctime", self.node_time(now) - 86400))
        ext = {"zstd": ".zst", "gzip": ".gz", "lzo": ".lzo", "none": "", "0": ""}[
            b.get("compress", "zstd")]
        fn = "vzdump-qemu-%d-%s.vma%s" % (vmid, time.strftime("%Y_%m_%d-%H_%M_%S",
                                                                time.localtime(ctime)), ext)
        g = self.guests.get(vmid)
        vol = {"volid": "%s:backup/%s" % (st.id, fn), "filename": fn, "format": "vma" + ext,
               "size": int(b.get("size", 8 * GIB)), "ctime": ctime, "vmid": vmid,
               "subtype": "qemu", "content": "backup",
               "conf": dict(g.conf) if g else {"name": "restored-%d" % vmid, "memory": 2048},
               "data": b.get("data", g.data if g else "data-0")}
        if b.get("notes"):
            vol["notes"] = b["notes"]
        if b.get("protected"):
            vol["protected"] = 1
        st.volumes = [v for v in st.volumes if v["volid"] != vol["volid"]] + [vol]
        return vol

    def find_volume(self, volid):
        sid, _, _ = volid.partition(":")
        st = self.storages.get(sid)
        if st:
            for v in st.volumes:
                if v["volid"] == volid:
                    return st, v
        return st, None

    def json(self, now):
        return {
            "node": self.node, "time_scale": self.scale,
            "node_time": self.node_time(now), "real_time": now,
            "guests": [g.json(now) for g in self.guests.values()],
            "storages": [dict(s.status_json(), volumes=[
                dict((k, v) for k, v in vol.items() if k != "conf") for vol in s.volumes])
                for s in self.storages.values()],
            "tasks": [dict(t.status_json(), endtime=t.endtime, log=t.lines,
                           real_start=t.t_fork, real_end=t.t_end, held=t.held)
                      for t in self.tasks],
            "locks": {str(v): (lk.holder.upid if lk.holder else None)
                      for v, lk in self.flocks.items()},
            "vzdump_lock": self.global_lock.holder.upid if self.global_lock.holder else None,
            "faults": self.faults.json(),
            "auth_headers_seen": self.auth_seen,
            "durations": self.durations,
        }


STATE = None
ARGS = None
LOG_LOCK = threading.Lock()
RECORD = os.environ.get("FAKE_API_RECORD") or None


# ---- authentication and privileges ------------------------------------------------

ALL_PRIVS = "*"


class Ctx:
    """One request: who asks, and the result attributes (total)."""

    def __init__(self, tokenid, token):
        self.tokenid = tokenid
        self.token = token
        self.total = None
        self.upid = None
        self.flock_waited = False

    def privs(self, path):
        # AccessControl.pm roles(): walk from / to the path; an ACL on a more
        # specific path replaces what was inherited (propagate assumed)
        acl = self.token["acl"]
        best = None
        parts = [p for p in path.split("/") if p]
        for i in range(len(parts), -1, -1):
            p = "/" + "/".join(parts[:i])
            if p in acl:
                best = acl[p]
                break
        return set(best or [])

    def has(self, path, priv):
        pv = self.privs(path)
        return ALL_PRIVS in pv or priv in pv

    def check(self, path, privs, any_=False, noerr=False):
        # RPCEnvironment.pm check / check_any
        if any_:
            if any(self.has(path, p) for p in privs):
                return True
            if noerr:
                return False
            raise perm_exc("%s, %s" % (path, "|".join(privs)))
        for p in privs:
            if not self.has(path, p):
                if noerr:
                    return False
                raise perm_exc("%s, %s" % (path, p))
        return True

    def owns(self, task):
        # Tasks.pm $check_task_user: a token sees its own tasks
        return task.user == self.tokenid


def extract_auth_value(header, key):
    # Formatter.pm extract_auth_value
    if not header:
        return None
    m = re.search(r"(?:^|\s)" + re.escape(key) + r"(?:=| )([^;]*)", header)
    if not m or not m.group(1):
        return None
    return urllib.parse.unquote(m.group(1))


def verify_token(value):
    """AccessControl.pm verify_token; returns (tokenid, token, None) or
    (tokenid or None, None, reason)."""
    m = re.match(r"^(.*)=(.*)$", value, re.S)  # greedy: splits at the last '='
    if not m:
        return None, None, "no tokenid specified"
    tokenid, secret = m.group(1), m.group(2)
    tm = TOKENID_RE.match(tokenid)
    if not tm:
        return None, None, "'%s' is not a valid token ID" % "<redacted>"
    tok = STATE.tokens.get(tokenid)
    if tok is None:
        return tokenid, None, "no such token '%s' for user '%s'" % (tm.group(4), tm.group(1))
    if not tok["enabled"]:
        return tokenid, None, "user '%s' is disabled" % tm.group(1)
    if tok["expire"] and tok["expire"] < STATE.node_time(time.time()):
        return tokenid, None, "token '%s' access expired" % tm.group(4)
    if secret != tok["secret"]:
        return tokenid, None, "invalid token value!"
    return tokenid, tok, None


# ---- the API's handlers -----------------------------------------------------------

def no_conf(vmid):
    # AbstractConfig.pm load_config
    return "Configuration file 'nodes/%s/qemu-server/%d.conf' does not exist" % (STATE.node, vmid)


def no_conf_on_node(vmid):
    # QemuConfig.pm assert_config_exists_on_node, from check_running
    return "unable to find configuration file for VM %d on node '%s'" % (vmid, STATE.node)


def guest_of(ctx, p, msg=no_conf):
    """The guest, or the 500 a handler that reads its config synchronously
    gives for a vmid that does not exist."""
    g = STATE.guests.get(p["vmid"])
    if g is None:
        raise die(msg(p["vmid"]))
    return g


def missing_task(ctx, type_, vmid, msg):
    """Handlers that read the config only in their worker answer with a
    UPID for a vmid that does not exist; the task fails."""
    def body(task):
        yield Flock(vmid)
        raise TaskError(msg(vmid))
    return fork(ctx, type_, vmid, body)


def task_user(ctx):
    return ctx.tokenid


def fork(ctx, type_, vmid, body, id_=None):
    t = STATE.advance()
    task = Task(type_, vmid if id_ is None else id_, task_user(ctx), t, body, vmid=vmid)
    ctx.upid = task.upid
    return task.upid


def hold_point(task):
    """A programmed task-hold stops the worker here, at the start of its
    main phase, until the test releases it."""
    if task.faults.pop("task-hold", None):
        yield Hold()


def main_phase(task, secs):
    """Sleeps through a worker's main phase; a programmed task-error fires
    at its fraction of it, warnings are written at its end."""
    yield from hold_point(task)
    f = task.faults.get("task-error")
    if f:
        at = float(f.get("at", 0.5))
        yield Sleep(secs * at)
        raise TaskError(f.get("message", "fake: programmed task error"))
    yield Sleep(secs)
    emit_warnings(task)


def emit_warnings(task, prefix=""):
    f = task.faults.get("task-warnings")
    if f:
        task.faults.pop("task-warnings")
        ws = f.get("warnings") or 1
        if isinstance(ws, int):  # a count: that many programmed warnings
            ws = ["fake: programmed warning %d" % (i + 1) for i in range(ws)]
        for w in ws:
            task.warn(prefix + w)


# -- versions, nodes, cluster

def h_version(ctx, p):
    return dict(STATE.version)


def h_node_version(ctx, p):
    return dict(STATE.version)


def h_nodes(ctx, p):
    now = time.time()
    return [{"node": STATE.node, "status": "online", "type": "node",
             "id": "node/" + STATE.node, "level": "", "cpu": 0.02, "maxcpu": 8,
             "mem": 6 * GIB, "maxmem": 32 * GIB, "disk": 10 * GIB, "maxdisk": 100 * GIB,
             "uptime": int(STATE.node_time(now) - STATE.boot_epoch),
             "ssl_fingerprint": TLS.fingerprint or ""}]


def h_node_status(ctx, p):
    now = time.time()
    return {"pveversion": "pve-manager/%s/%s" % (STATE.version["version"],
                                                 STATE.version["repoid"]),
            "kversion": STATE.kversion, "uptime": int(STATE.node_time(now) - STATE.boot_epoch),
            "cpu": 0.02, "wait": 0.0, "loadavg": ["0.10", "0.12", "0.09"],
            "cpuinfo": {"cpus": 8, "sockets": 1, "cores": 8, "model": "fake CPU", "mhz": "3000"},
            # pve-docs apidata.js: available beside free (not optional)
            "memory": {"total": 32 * GIB, "used": 6 * GIB, "free": 26 * GIB,
                       "available": 25 * GIB},
            "rootfs": {"total": 100 * GIB, "used": 10 * GIB, "avail": 90 * GIB,
                       "free": 90 * GIB},
            "current-kernel": {"sysname": "Linux", "release": "6.5.11-8-pve",
                               "machine": "x86_64", "version": "#1 SMP PREEMPT_DYNAMIC"},
            "boot-info": {"mode": "efi", "secureboot": 0}}


def h_cert_info(ctx, p):
    # pve-manager API2/Certificates.pm info: root CA, then the node's cert
    return [dict(c) for c in TLS.infos]


def h_cluster_resources(ctx, p):
    # pve-manager API2/Cluster.pm resources: guests need VM.Audit
    now = time.time()
    out = []
    if p.get("type") in (None, "vm"):
        for g in STATE.guests.values():
            if not ctx.check("/vms/%d" % g.vmid, ["VM.Audit"], noerr=True):
                continue
            s = g.status_json(now)
            e = {"id": "qemu/%d" % g.vmid, "type": "qemu", "vmid": g.vmid, "node": g.node,
                 "name": g.name(), "status": g.status, "template": 1 if g.template() else 0,
                 "maxmem": s["maxmem"], "mem": s["mem"], "maxdisk": s["maxdisk"], "disk": 0,
                 "cpu": s["cpu"], "maxcpu": s["cpus"], "uptime": s["uptime"],
                 "netin": 0, "netout": 0, "diskread": 0, "diskwrite": 0}
            if g.lock:
                e["lock"] = g.lock
            if g.ha:
                e["hastate"] = g.ha
            out.append(e)
        for vmid, r in sorted(STATE.remote.items()):
            if ctx.check("/vms/%d" % vmid, ["VM.Audit"], noerr=True):
                out.append({"id": "qemu/%d" % vmid, "type": "qemu", "vmid": vmid,
                            "node": r.get("node", "pve2"), "name": r.get("name", "VM %d" % vmid),
                            "status": r.get("status", "running"), "template": 0})
    if p.get("type") in (None, "node"):
        out.append({"id": "node/" + STATE.node, "type": "node", "node": STATE.node,
                    "status": "online", "uptime": int(STATE.node_time(now) - STATE.boot_epoch)})
    if p.get("type") in (None, "storage"):
        for s in STATE.storages.values():
            if ctx.check("/storage/" + s.id, ["Datastore.Audit", "Datastore.AllocateSpace"],
                         any_=True, noerr=True):
                out.append({"id": "storage/%s/%s" % (STATE.node, s.id), "type": "storage",
                            "storage": s.id, "node": STATE.node, "status": "available",
                            "content": ",".join(sorted(s.content)), "plugintype": s.type,
                            "disk": s.used(), "maxdisk": s.total, "shared": 0})
    return out


def h_ha_resources(ctx, p):
    # pve-ha-manager API2/HA/Resources.pm index
    out = []
    for g in STATE.guests.values():
        if g.ha:
            out.append({"sid": "vm:%d" % g.vmid, "type": "vm", "state": g.ha,
                        "max_restart": 1, "max_relocate": 1,
                        "digest": hashlib.sha1(b"ha").hexdigest()})
    return out


def h_permissions(ctx, p):
    # pve-access-control API2/AccessControl.pm permissions
    userid = p.get("userid", ctx.tokenid)
    if userid != ctx.tokenid:
        ctx.check("/access", ["Sys.Audit"])
    tok = STATE.tokens.get(userid)
    if tok is None:
        return {}
    other = Ctx(userid, tok)
    paths = [p["path"]] if p.get("path") else list(tok["acl"].keys())
    out = {}
    for path in paths:
        pv = other.privs(path)
        if ALL_PRIVS in pv:
            pv = set(ALL_PRIV_NAMES)
        if pv:
            out[path] = {k: 1 for k in sorted(pv)}
    return out


ALL_PRIV_NAMES = [
    "Datastore.Allocate", "Datastore.AllocateSpace", "Datastore.AllocateTemplate",
    "Datastore.Audit", "Permissions.Modify", "Pool.Allocate", "Pool.Audit", "SDN.Allocate",
    "SDN.Audit", "SDN.Use", "Sys.Audit", "Sys.Console", "Sys.Incoming", "Sys.Modify",
    "Sys.PowerMgmt", "Sys.Syslog", "VM.Allocate", "VM.Audit", "VM.Backup", "VM.Clone",
    "VM.Config.CDROM", "VM.Config.CPU", "VM.Config.Cloudinit", "VM.Config.Disk",
    "VM.Config.HWType", "VM.Config.Memory", "VM.Config.Network", "VM.Config.Options",
    "VM.Console", "VM.GuestAgent.Audit", "VM.GuestAgent.FileRead",
    "VM.GuestAgent.FileSystemMgmt", "VM.GuestAgent.FileWrite", "VM.GuestAgent.Unrestricted",
    "VM.Migrate", "VM.PowerMgmt", "VM.Replicate", "VM.Snapshot", "VM.Snapshot.Rollback"]


# -- guests

def h_vmlist(ctx, p):
    # qemu-server API2/Qemu.pm vmlist: only guests with VM.Audit
    now = time.time()
    out = []
    for g in STATE.guests.values():
        if ctx.check("/vms/%d" % g.vmid, ["VM.Audit"], noerr=True):
            s = g.status_json(now)
            s.pop("ha", None)
            s.pop("running-machine", None)
            s.pop("running-qemu", None)
            out.append(s)
    return out


def h_status(ctx, p):
    g = guest_of(ctx, p)
    return g.status_json(time.time())


def h_config(ctx, p):
    return guest_of(ctx, p).config_json()


def check_lock(g):
    # AbstractConfig.pm check_lock
    if g.lock:
        raise TaskError("VM is locked (%s)" % g.lock)


def ha_task(ctx, g, kind):
    """HA-managed guests: start/stop only ask the HA manager
    (API2/Qemu.pm: hastart/hastop tasks running ha-manager); the guest
    changes later."""
    def body(task):
        task.log("Requesting HA %s for VM %d" % ("start" if kind == "start" else "stop", g.vmid))
        yield Sleep(task.duration())
        g.ha = "started" if kind == "start" else "stopped"
        STATE.sched.at(task.t + STATE.duration("ha_apply") * STATE.scale,
                       lambda t: (g.set_running(t) if kind == "start" and not g.running() else
                                  g.set_stopped(t) if kind == "stop" else None))
    return fork(ctx, "hastart" if kind == "start" else "hastop", g.vmid, body)


def w_start(task, g, skiplock=False, resume_statefile=False):
    """QemuServer.pm vm_start: inside lock_config."""
    yield Flock(g.vmid)
    try:
        if g.template():
            raise TaskError("you can't start a vm if it's a template")
        if g.lock == "backup" and g.running():
            g.qmpstatus = "running"  # RunState vm_resume of the backup's QEMU
            return
        if not skiplock and g.lock != "suspended":
            check_lock(g)
        if g.running():
            raise TaskError("VM %d already running" % g.vmid)
        yield from main_phase(task, task.duration("qmstart"))
        g.set_running(task.t, resumed=resume_statefile)
    finally:
        task.unflock(g.vmid)


def h_start(ctx, p):
    if p.get("skiplock") and ctx.tokenid != "root@pam":
        raise param_exc({"skiplock": "Only root may use this option."})
    g = STATE.guests.get(p["vmid"])
    if g is None:
        return missing_task(ctx, "qmstart", p["vmid"], no_conf)
    if g.ha:
        return ha_task(ctx, g, "start")
    return fork(ctx, "qmstart", g.vmid, lambda task: w_start(task, g))


def w_stop(task, g, shutdown, timeout, force, skiplock=False):
    """QemuServer.pm vm_stop / _do_vm_stop inside lock_config."""
    yield Flock(g.vmid)
    try:
        if not g.running():
            return  # "return if !$pid": stopping a stopped guest is OK
        if not skiplock:
            check_lock(g)
        if shutdown:
            d = task.duration("qmreboot" if task.type == "qmreboot" else "qmshutdown")
            timeout = 60 if timeout is None else timeout
            if g.acpi and d <= timeout:
                g.shutting_down = True  # sshd goes first
                yield from guest_goes_down(task, g, d)
                return
            yield Sleep(timeout)
            if not force:
                raise TaskError("VM quit/powerdown failed - got timeout")
            task.log("VM still running - terminating now with SIGTERM")
            yield Sleep(1.0)
            g.set_stopped(task.t)
            return
        g.shutting_down = True
        yield from guest_goes_down(task, g, task.duration("qmstop"))
    finally:
        task.unflock(g.vmid)


def guest_goes_down(task, g, secs):
    """The guest powers off after secs.  Once the ACPI event or QMP quit
    has been sent, stopping the task does not stop the guest from going."""
    t_off = task.t + secs * STATE.scale
    try:
        yield from main_phase(task, secs)
    except TaskInterrupt:
        STATE.sched.at(t_off, lambda t: g.set_stopped(t) if g.running() else None)
        raise
    except TaskError:
        g.shutting_down = False  # a programmed failure: the guest stays up
        raise
    g.set_stopped(task.t)


def h_stop(ctx, p):
    for k in ("skiplock", "keepActive", "migratedfrom"):
        if p.get(k) and ctx.tokenid != "root@pam":
            raise param_exc({k: "Only root may use this option."})
    g = STATE.guests.get(p["vmid"])
    if g is None:
        return missing_task(ctx, "qmstop", p["vmid"], no_conf_on_node)
    if g.ha:
        if p.get("overrule-shutdown"):
            raise param_exc({"overrule-shutdown": "Not applicable for HA resources."})
        return ha_task(ctx, g, "stop")

    def body(task):
        if p.get("overrule-shutdown"):
            hit = [t for t in STATE.tasks if t.running() and t.type == "qmshutdown" and
                   t.id == str(g.vmid)]
            for t in hit:
                t.interrupt(task.t)
            if hit:
                task.log("overruled qmshutdown tasks: " + ", ".join(t.upid for t in hit))
        yield from w_stop(task, g, False, p.get("timeout"), True)
    return fork(ctx, "qmstop", g.vmid, body)


def h_shutdown(ctx, p):
    for k in ("skiplock", "keepActive"):
        if p.get(k) and ctx.tokenid != "root@pam":
            raise param_exc({k: "Only root may use this option."})
    g = STATE.guests.get(p["vmid"])
    if g is None:
        return missing_task(ctx, "qmshutdown", p["vmid"], no_conf_on_node)
    shutdown = True
    if g.running() and g.qmpstatus in ("paused", "prelaunch"):
        if p.get("forceStop"):
            shutdown = False  # "VM is paused - stop instead of shutdown" (daemon log)
        else:
            raise die("VM is paused - cannot shutdown")
    if g.ha:
        return ha_task(ctx, g, "stop")
    return fork(ctx, "qmshutdown", g.vmid,
                lambda task: w_stop(task, g, shutdown, p.get("timeout"), p.get("forceStop")))


def h_reboot(ctx, p):
    g = guest_of(ctx, p, no_conf_on_node)
    if g.running() and g.qmpstatus in ("paused", "prelaunch"):
        raise die("VM is paused - cannot shutdown")
    if not g.running():
        raise die("VM %d not running" % g.vmid)

    def body(task):
        yield Flock(g.vmid)
        try:
            if not g.running():
                return
            check_lock(g)
            d = task.duration("qmreboot")
            timeout = 60 if p.get("timeout") is None else p["timeout"]
            if not (g.acpi and d <= timeout):
                yield Sleep(timeout)
                raise TaskError("VM quit/powerdown failed - got timeout")
            g.shutting_down = True
            yield from guest_goes_down(task, g, d)
        finally:
            task.unflock(g.vmid)

        # qmeventd sees the stop and runs "qm cleanup", which starts the guest
        # again (qemu-server CLI/qm.pm cleanup: a qmstart task of root@pam)
        def restart(t):
            Task("qmstart", g.vmid, "root@pam", t, lambda tk: w_start(tk, g), vmid=g.vmid)
        task.on_end = lambda t: STATE.sched.at(t + STATE.duration("qmeventd") * STATE.scale,
                                               restart)
    return fork(ctx, "qmreboot", g.vmid, body)


def h_reset(ctx, p):
    g = guest_of(ctx, p, no_conf_on_node)
    if not g.running():
        raise die("VM %d not running" % g.vmid)

    def body(task):
        yield Flock(g.vmid)
        try:
            check_lock(g)
            g.set_running(task.t)  # system_reset: the guest boots again
            g.ssh_up_at = task.t + STATE.boot_delay * STATE.scale
            yield from main_phase(task, task.duration())
        finally:
            task.unflock(g.vmid)
    return fork(ctx, "qmreset", g.vmid, body)


def h_suspend(ctx, p):
    g = guest_of(ctx, p, no_conf_on_node)
    if not g.running():
        raise die("VM %d not running" % g.vmid)

    def body(task):
        yield Flock(g.vmid)
        try:
            if g.lock != "backup":
                check_lock(g)
            yield from main_phase(task, task.duration())
            g.qmpstatus = "paused"
        finally:
            task.unflock(g.vmid)
    return fork(ctx, "qmsuspend", g.vmid, body)


def h_resume(ctx, p):
    g = guest_of(ctx, p, no_conf_on_node)
    if not g.running():
        raise die("VM %d not running" % g.vmid)

    def body(task):
        yield Flock(g.vmid)
        try:
            if g.lock not in ("backup", "suspending", "suspended"):
                check_lock(g)
            yield from main_phase(task, task.duration())
            g.qmpstatus = "running"
        finally:
            task.unflock(g.vmid)
    return fork(ctx, "qmresume", g.vmid, body)


# -- snapshots (pve-guest-common AbstractConfig.pm, qemu-server QemuConfig.pm)

def snap_list_item(s):
    d = {"name": s["name"], "snaptime": s.get("snaptime") or 0,
         "vmstate": 1 if s.get("vmstate") else 0, "description": s.get("description") or ""}
    if s.get("parent"):
        d["parent"] = s["parent"]
    if s.get("snapstate"):
        d["snapstate"] = s["snapstate"]
    return d


def h_snapshot_list(ctx, p):
    g = guest_of(ctx, p)
    out = [snap_list_item(s) for s in g.snapshots.values()]
    cur = {"name": "current", "digest": g.config_json()["digest"],
           "running": 1 if g.running() else 0, "description": "You are here!"}
    if g.parent:
        cur["parent"] = g.parent
    out.append(cur)
    return out


def storage_can_snapshot(g):
    st = STATE.storages.get(g.disk_storage)
    return st is None or st.snapshots


def h_snapshot_create(ctx, p):
    name = p["snapname"]
    if name == "current":
        raise die("unable to use snapshot name 'current' (reserved name)")
    if name.lower() == "pending":
        raise die("unable to use snapshot name 'pending' (reserved name)")
    g = guest_of(ctx, p)

    def body(task):
        # __snapshot_prepare, under lock_config
        yield Flock(g.vmid)
        try:
            if g.template():
                raise TaskError("you can't take a snapshot if it's a template")
            check_lock(g)
            if name in g.snapshots:
                raise TaskError("snapshot name '%s' already used" % name)
            if not storage_can_snapshot(g):
                raise TaskError("snapshot feature is not available")
            for s in g.snapshots.values():
                if s.get("parent") == name:
                    task.log("deleting parent '%s' reference from '%s' to avoid bogus "
                             "snapshot cycle." % (name, s["name"]))
                    del s["parent"]
            g.lock = "snapshot"
            snap = {"name": name, "snaptime": int(STATE.node_time(task.t)),
                    "vmstate": 1 if (p.get("vmstate") and g.running()) else 0,
                    "description": p.get("description") or "", "conf": dict(g.conf),
                    "data": g.data, "snapstate": "prepare"}
            if g.parent:
                snap["parent"] = g.parent
            g.snapshots[name] = snap
        finally:
            task.unflock(g.vmid)
        try:
            if snap["vmstate"]:
                # QemuConfig.pm __snapshot_create_vol_snapshots_hook
                task.log("saving VM state and RAM using storage '%s'" % g.disk_storage)
                d = task.duration("vmstate")
                yield Sleep(d)
                task.log("completed saving the VM state in %ds, saved %.2f GiB" %
                         (round(d), g.conf["memory"] * 0.4 / 1024))
            task.log("snapshotting 'drive-scsi0' (%s)" % g.volid())
            # fake's choice: what lvcreate prints for a thin snapshot
            task.log('  Logical volume "snap_%s_%s" created.' % (g.lvname(), name))
            yield from main_phase(task, task.duration())
        except (TaskError, TaskInterrupt) as e:
            # snapshot_create: "snapshot create failed: starting cleanup",
            # then snapshot_delete(force) takes the entry and the lock away
            task.log("snapshot create failed: starting cleanup")
            g.snapshots.pop(name, None)
            if g.lock == "snapshot":
                g.lock = None
            if isinstance(e, TaskInterrupt):
                raise TaskError("received interrupt")
            raise
        # __snapshot_commit, under lock_config
        yield Flock(g.vmid)
        try:
            snap.pop("snapstate", None)
            g.lock = None
            g.parent = name
        finally:
            task.unflock(g.vmid)
    return fork(ctx, "qmsnapshot", g.vmid, body)


def h_snapshot_idx(ctx, p):
    return [{"cmd": "rollback"}, {"cmd": "config"}]


def h_snapshot_config(ctx, p):
    g = guest_of(ctx, p)
    s = g.snapshots.get(p["snapname"])
    if s is None:
        raise die("snapshot '%s' does not exist" % p["snapname"])
    d = dict(s["conf"])
    d.update({"snaptime": s["snaptime"], "description": s.get("description", "")})
    if s.get("vmstate"):
        d["vmstate"] = "%s:vm-%d-state-%s" % (g.disk_storage, g.vmid, s["name"])
    if s.get("parent"):
        d["parent"] = s["parent"]
    if s.get("snapstate"):
        d["snapstate"] = s["snapstate"]
    return d


def h_rollback(ctx, p):
    name = p["snapname"]
    if p.get("start"):
        # API2/Qemu.pm rollback: VM.PowerMgmt checked up front
        ctx.check("/vms/%d" % p["vmid"], ["VM.PowerMgmt"])
    g = STATE.guests.get(p["vmid"])
    if g is None:
        return missing_task(ctx, "qmrollback", p["vmid"], no_conf)
    user = task_user(ctx)

    def body(task):
        yield Flock(g.vmid)
        try:
            if g.template():
                raise TaskError("you can't rollback if vm is a template")
            snap = g.snapshots.get(name)
            if snap is None:
                raise TaskError("snapshot '%s' does not exist" % name)
            st = STATE.storages.get(g.disk_storage)
            if st and st.rollback_latest_only and list(g.snapshots)[-1] != name:
                raise TaskError("can't rollback, '%s' is not most recent snapshot on '%s'"
                                % (name, g.volid()))
            if snap.get("snapstate"):
                raise TaskError("unable to rollback to incomplete snapshot (snapstate = %s)"
                                % snap["snapstate"])
            check_lock(g)
            if g.running():
                # __snapshot_rollback_vm_stop: a hard stop, inside the flock
                g.shutting_down = True
                yield Sleep(STATE.duration("qmstop"))
                g.set_stopped(task.t)
            g.lock = "rollback"
        finally:
            task.unflock(g.vmid)
        # the disks; fake's choice: what lvremove and lvcreate print
        task.log('  Logical volume "%s" successfully removed.' % g.lvname())
        task.log('  Logical volume "%s" created.' % g.lvname())
        yield from main_phase(task, task.duration())
        yield Flock(g.vmid)
        try:
            if g.lock != "rollback":
                raise TaskError("got wrong lock")
            g.lock = None
            g.conf = dict(snap["conf"])
            g.data = snap["data"]
            g.parent = name
            if snap.get("vmstate"):
                # __snapshot_rollback_vm_start: started from the RAM state,
                # in this task
                yield Sleep(STATE.duration("qmstart"))
                g.set_running(task.t, resumed=True)
        finally:
            task.unflock(g.vmid)
        if p.get("start") and not g.running():
            # PVE::API2::Qemu->vm_start from the worker forks a task of its own
            Task("qmstart", g.vmid, user, task.t, lambda tk: w_start(tk, g), vmid=g.vmid)
    return fork(ctx, "qmrollback", g.vmid, body)


def h_snapshot_delete(ctx, p):
    name = p["snapname"]
    g = STATE.guests.get(p["vmid"])
    if g is None:
        return missing_task(ctx, "qmdelsnapshot", p["vmid"], no_conf)

    def body(task):
        snap = g.snapshots.get(name)
        if snap is None:
            raise TaskError("snapshot '%s' does not exist" % name)
        # set_lock 'snapshot-delete' (lock_config + check_lock)
        yield Flock(g.vmid)
        try:
            check_lock(g)
            g.lock = "snapshot-delete"
            snap["snapstate"] = "delete"
        finally:
            task.unflock(g.vmid)
        task.log('  Logical volume "snap_%s_%s" successfully removed.' % (g.lvname(), name))
        try:
            yield from main_phase(task, task.duration())
        except TaskError as e:
            if not p.get("force"):
                raise  # the lock stays: "VM is locked (snapshot-delete)"
            task.log(e.msg)  # with force: warn, and the entry goes all the same
        yield Flock(g.vmid)
        try:
            # unlink parent references, then drop the entry and the lock
            if g.parent == name:
                g.parent = snap.get("parent")
            for s in g.snapshots.values():
                if s.get("parent") == name:
                    if snap.get("parent"):
                        s["parent"] = snap["parent"]
                    else:
                        del s["parent"]
            del g.snapshots[name]
            g.lock = None
        finally:
            task.unflock(g.vmid)
    return fork(ctx, "qmdelsnapshot", g.vmid, body)


# -- vzdump (pve-manager API2/VZDump.pm, VZDump.pm; qemu-server VZDump/QemuServer.pm)

def render_bytes(v, precision=2):
    # pve-common Format.pm render_bytes
    units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    i = 0
    if v > 1023:
        import math
        i = int(math.log(v) / math.log(1024))
        v = v / 1024 ** i
    return ("%." + str(precision) + "f %s") % (v, units[i])


def format_size(size):
    # pve-manager VZDump.pm format_size
    kb = size / 1024
    if kb < 1024:
        return "%dKB" % int(kb)
    mb = size / (1024 * 1024)
    if mb < 1024:
        return "%dMB" % int(mb)
    gb = mb / 1024
    if gb < 1024:
        return "%.2fGB" % gb
    return "%.2fTB" % (gb / 1024)


def format_time(secs):
    secs = int(secs)
    return "%02d:%02d:%02d" % (secs // 3600, secs % 3600 // 60, secs % 60)


def node_strftime(fmt, t):
    return time.strftime(fmt, time.localtime(STATE.node_time(t)))


COMPRESS = {"0": None, "1": ("lzop", "lzo"), "lzo": ("lzop", "lzo"),
            "gzip": ("gzip --rsyncable", "gz"), "zstd": ("zstd --threads=1", "zst")}
RATIO = {None: 1.0, "lzo": 0.97, "gz": 0.95, "zst": 0.94}


def h_vzdump(ctx, p):
    if p.get("stdout"):
        raise param_exc({"stdout": "option is only allowed on the command line interface."})
    for k in ("dumpdir", "tmpdir", "script", "job-id"):
        if p.get(k) and ctx.tokenid != "root@pam":
            raise param_exc({k: "Only root may set this option."})  # API2/Backup.pm
    if not p.get("vmid") and not p.get("all"):
        raise param_exc({"vmid": "property is missing and it is not optional"})
    if any(p.get(k) is not None for k in ("bwlimit", "ionice", "performance")) and \
            ctx.tokenid != "root@pam":
        ctx.check("/", ["Sys.Modify"])
    if p.get("prune-backups") and p.get("storage"):
        ctx.check("/storage/" + p["storage"], ["Datastore.Allocate"])
    vmids = sorted(int(v) for v in re.split(r"[,;\s\0]+", str(p.get("vmid", "")).strip()) if v)
    if p.get("all"):
        vmids = sorted(set(STATE.guests) | set(STATE.remote))
    # VZDump.pm get_included_guests: guests of other nodes are skipped, an
    # unknown vmid is "orphaned" and fails visibly later
    local = [v for v in vmids if v not in STATE.remote]
    skip = [v for v in vmids if v in STATE.remote]
    if not local and not p.get("all"):
        return "OK"  # "silent exit if specified VMs run on other nodes"
    storage = p.get("storage", "local")
    ctx.check("/storage/" + storage, ["Datastore.AllocateSpace"])
    user = task_user(ctx)
    taskid = local[0] if len(local) == 1 else None
    opts = dict(p)

    def body(task):
        yield from w_vzdump(task, ctx, local, storage, opts, user, skip)
    t = STATE.advance()
    task = Task("vzdump", taskid, user, t, body, vmid=taskid)
    ctx.upid = task.upid
    return task.upid


def vzdump_cmdline(p):
    # VZDump/Common.pm command_line; Perl's key order is random, the fake sorts
    cmd = "vzdump"
    if p.get("vmid"):
        cmd += " " + " ".join(x for x in re.split(r"[,;\s\0]+", str(p["vmid"])) if x)
    for k in sorted(p):
        if k in ("vmid", "node"):
            continue
        cmd += " --%s %s" % (k, p[k])
    return cmd + " --node " + STATE.node


def w_vzdump(task, ctx, vmids, storage, p, user, skip=()):
    st = STATE.storages.get(storage)
    # PVE::VZDump->new: storage errors end the task before anything else
    if st is None:
        raise TaskError("could not get storage information for '%s': storage '%s' does not "
                        "exist" % (storage, storage))
    if "backup" not in st.content:
        raise TaskError("could not get storage information for '%s': can't use storage '%s' "
                        "for backups - wrong content type" % (storage, storage))
    # getlock: one vzdump per node
    lock = STATE.global_lock
    if lock.holder is not None and lock.holder is not task:
        lockwait = int(p.get("lockwait", 180))
        if lockwait == 0:
            task.log("ERROR: can't acquire lock '/var/run/vzdump.lock' (wait = 0)")
            raise NoStatusLine()
        task.log("INFO: trying to get global lock - waiting...")
        try:
            yield GlobalLock(lockwait * 60)
        except (LockWaitTimeout, TaskInterrupt) as e:
            why = "got timeout" if isinstance(e, LockWaitTimeout) else "interrupted by signal"
            task.log("ERROR: can't acquire lock '/var/run/vzdump.lock' - " + why)
            raise NoStatusLine()  # API2/VZDump.pm: exit(-1) after getlock fails
        task.log("INFO: got global lock")
    else:
        yield GlobalLock(0)
    task.log("INFO: starting new backup job: " + vzdump_cmdline(p))
    if skip:
        task.log("INFO: skip external VMs: " + ", ".join(str(v) for v in skip))
    # exec_backup: VM.Backup is checked while the list is built, outside the
    # per-guest eval, so a missing privilege ends the whole job (with all=1
    # such guests are skipped)
    tasklist = []
    for vmid in vmids:
        if vmid in STATE.guests and not ctx.check("/vms/%d" % vmid, ["VM.Backup"],
                                                  noerr=bool(p.get("all"))):
            continue
        tasklist.append(vmid)
    errcount = 0
    for vmid in tasklist:
        ok = yield from w_vzdump_guest(task, vmid, st, p)
        if ok == "interrupted":
            task.log("ERROR: Backup job failed - interrupted by signal")
            raise TaskError("interrupted by signal")
        if not ok:
            errcount += 1
    task.log("INFO: Backup job finished %s" % ("with errors" if errcount else "successfully"))
    task.unglobal()
    if errcount:
        raise TaskError("job errors")


def w_vzdump_guest(task, vmid, st, p):
    """exec_backup_task for one guest; returns whether it went well."""
    g = STATE.guests.get(vmid)
    t_begin = task.t
    locked = False
    restart = resume = prelaunch = False
    err = None
    interrupted = False
    try:
        if g is None:
            raise TaskError("unable to find VM '%d'" % vmid)
        if p.get("mode") == "stop" and g.ha == "started":
            raise TaskError("Cannot execute a backup with stop mode on a HA managed and "
                            "enabled Service. Use snapshot mode or disable the Service.")
        comp = COMPRESS[p.get("compress", "0")]
        ext = ".vma" + ("." + comp[1] if comp else "")
        basename = "vzdump-qemu-%d-%s" % (vmid, node_strftime("%Y_%m_%d-%H_%M_%S", task.t))
        target = "%s/%s%s" % (st.dumpdir(), basename, ext)
        # prune/limit rules (exec_backup_task)
        keep = prune_keep(p, st)
        mine = [v for v in st.volumes if v["vmid"] == vmid and v["subtype"] == "qemu"]
        if p.get("protected"):
            pass
        elif keep is not None and not p.get("remove", 1):
            if len([v for v in mine if not v.get("protected")]) >= keep:
                raise TaskError("There is a max backup limit of %d enforced by the target "
                                "storage or the vzdump parameters. Either increase the limit "
                                "or delete old backups." % keep)
        task.log("INFO: Starting Backup of VM %d (qemu)" % vmid)
        task.log("INFO: Backup started at %s" % node_strftime("%Y-%m-%d %H:%M:%S", task.t))
        running = g.running()
        task.log("INFO: status = %s" % ("running" if running else "stopped"))
        # lock_vm: set_lock 'backup'
        yield Flock(vmid)
        try:
            check_lock(g)
            g.lock = "backup"
            locked = True
        finally:
            task.unflock(vmid)
        mode = p.get("mode", "snapshot") if running else "stop"
        task.log("INFO: VM Name: %s" % g.name())
        task.log("INFO: include disk 'scsi0' '%s' %dG" % (g.volid(), g.disk_bytes // GIB))
        task.log("INFO: backup mode: %s" % mode)
        if p.get("bwlimit"):
            task.log("INFO: bandwidth limit: %s KiB/s" % p["bwlimit"])
        task.log("INFO: ionice priority: %s" % p.get("ionice", 7))
        total = task.duration("vzdump")
        if mode == "stop" and running:
            task.log("INFO: stopping virtual guest")
            g.shutting_down = True
            restart = True
            yield Sleep(STATE.duration("qmshutdown"))
            g.set_stopped(task.t)
        elif mode == "suspend":
            task.log("INFO: suspending guest")
            g.qmpstatus = "paused"
            resume = True
        if g.snapshots:
            task.log("INFO: snapshots found (not included into backup)")
        task.log("INFO: creating vzdump archive '%s'" % target)
        if not g.running():
            # enforce_vm_running_for_backup: a paused QEMU holds the disks
            task.log("INFO: starting kvm to execute backup task")
            g.status, g.qmpstatus, g.pid = "running", "prelaunch", random.randint(2000, 400000)
            g.started = STATE.node_time(task.t)
            prelaunch = not restart
        elif g.conf.get("agent") == "1" and mode == "snapshot":
            task.log("INFO: issuing guest-agent 'fs-freeze' command")
            task.log("INFO: issuing guest-agent 'fs-thaw' command")
        task.log("INFO: started backup task '%s'" % uuidlib.uuid4())
        yield Sleep(total * 0.05)
        if restart or resume:
            # resume_vm_after_job_start: the stopped guest boots in its new QEMU
            secs = int(STATE.node_time(task.t)) - int(STATE.node_time(t_begin))
            task.log("INFO: resuming VM again after %d seconds" % secs)
            if restart:
                g.set_running(task.t)
            else:
                g.qmpstatus = "running"
            restart = resume = False
        elif running:
            task.log("INFO: resuming VM again")
        data_secs = total * 0.9
        yield from hold_point(task)
        f = task.faults.get("task-error")
        steps = 5
        for i in range(1, steps + 1):
            if f and i / steps > float(f.get("at", 0.5)):
                raise TaskError(f.get("message", "fake: programmed task error"))
            yield Sleep(data_secs / steps)
            done = g.disk_bytes * i // steps
            el = int(data_secs * i / steps)
            task.log("INFO: %3d%% (%s of %s) in %ds, read: %s/s, write: %s/s" % (
                100 * i // steps, render_bytes(done, 1), render_bytes(g.disk_bytes, 1), el,
                render_bytes(int(g.disk_bytes / data_secs), 1),
                render_bytes(int(g.used_bytes / data_secs), 1)))
        zero = g.disk_bytes - g.used_bytes
        task.log("INFO: backup is sparse: %s (%d%%) total zero data" % (
            render_bytes(zero), zero * 100 // g.disk_bytes))
        task.log("INFO: transferred %s in %d seconds (%s/s)" % (
            render_bytes(g.disk_bytes), int(data_secs),
            render_bytes(int(g.disk_bytes / max(int(data_secs), 1)), 1)))
        if prelaunch:
            task.log("INFO: stopping kvm after backup task")
            g.set_stopped(task.t)
            prelaunch = False
        size = int(g.used_bytes * RATIO[comp[1] if comp else None])
        task.log("INFO: archive file size: %s" % format_size(size))
        vol = {"volid": "%s:backup/%s%s" % (st.id, basename, ext),
               "filename": basename + ext, "format": ext[1:], "size": size,
               "ctime": int(STATE.node_time(t_begin)), "vmid": vmid, "subtype": "qemu",
               "content": "backup", "conf": dict(g.conf), "data": g.data}
        if p.get("notes-template"):
            task.log("INFO: adding notes to backup")
            vol["notes"] = (p["notes-template"].replace("{{guestname}}", g.name())
                            .replace("{{vmid}}", str(vmid)).replace("{{node}}", STATE.node)
                            .replace("{{cluster}}", STATE.cluster or ""))
        if p.get("protected"):
            task.log("INFO: marking backup as protected")
            vol["protected"] = 1
        st.volumes = [v for v in st.volumes if v["volid"] != vol["volid"]] + [vol]
        if p.get("remove", 1):
            keepstr = p.get("prune-backups") or st.prune or "keep-all=1"
            task.log("INFO: prune older backups with retention: %s" % keepstr)
            pruned = 0
            if keep is not None:
                mine = sorted([v for v in st.volumes if v["vmid"] == vmid and
                               not v.get("protected")], key=lambda v: -v["ctime"])
                for v in mine[keep:]:
                    task.log("INFO: removing backup '%s'" % v["volid"])
                    st.volumes.remove(v)
                    pruned += 1
            task.log("INFO: pruned %d backup(s)%s" % (
                pruned, " not covered by keep-retention policy" if pruned else ""))
        emit_warnings(task)
        yield Sleep(total * 0.05)
    except TaskError as e:
        err = e.msg
    except TaskInterrupt:
        err = "interrupted by signal"  # VZDump.pm's signal handlers
        interrupted = True
    finally:
        if g is not None:
            if prelaunch:
                g.set_stopped(task.t)
            if locked and g.lock == "backup":
                g.lock = None
            if resume:
                task.log("INFO: resume vm")
                g.qmpstatus = "running"
            if restart and (not g.running() or g.shutting_down):
                task.log("INFO: restarting vm")
                g.set_running(task.t)
    secs = int(STATE.node_time(task.t)) - int(STATE.node_time(t_begin))
    if err is not None:
        task.log("ERROR: Backup of VM %d failed - %s" % (vmid, err))
        task.log("INFO: Failed at %s" % node_strftime("%Y-%m-%d %H:%M:%S", task.t))
        return "interrupted" if interrupted else False
    task.log("INFO: Finished Backup of VM %d (%s)" % (vmid, format_time(secs)))
    task.log("INFO: Backup finished at %s" % node_strftime("%Y-%m-%d %H:%M:%S", task.t))
    return True


def prune_keep(p, st):
    """keep-last N from the parameter or the storage; None for keep-all
    (the fake knows keep-last and keep-all only)."""
    spec = p.get("prune-backups") or st.prune or "keep-all=1"
    m = re.search(r"keep-last=(\d+)", spec)
    if "keep-all=1" in spec or not m:
        return None
    return int(m.group(1))


# -- storage (pve-storage API2/Storage/Status.pm, Content.pm)

def volume_visible(ctx, st, vol):
    # Storage.pm check_volume_access with vmid undef, for a backup volume
    if ctx.check("/storage/" + st.id, ["Datastore.Allocate"], noerr=True):
        return True
    return (ctx.check("/storage/" + st.id, ["Datastore.AllocateSpace"], noerr=True) and
            ctx.check("/vms/%d" % vol["vmid"], ["VM.Backup"], noerr=True))


def h_storage_list(ctx, p):
    out = []
    for s in STATE.storages.values():
        if not ctx.check("/storage/" + s.id, ["Datastore.Audit", "Datastore.AllocateSpace"],
                         any_=True, noerr=True):
            continue
        if p.get("content") and p["content"] not in s.content:
            continue
        if p.get("storage") and p["storage"] != s.id:
            continue
        out.append(s.status_json())
    return out


def storage_of(p):
    st = STATE.storages.get(p["storage"])
    if st is None:
        raise die("storage '%s' does not exist" % p["storage"])
    return st


def h_content(ctx, p):
    st = storage_of(p)
    out = []
    if p.get("content") and p["content"] != "backup":
        return out
    if "backup" not in st.content:
        return out
    for v in sorted(st.volumes, key=lambda v: v["volid"].lower()):
        if p.get("vmid") and v["vmid"] != p["vmid"]:
            continue
        if not volume_visible(ctx, st, v):
            continue
        item = {k: v[k] for k in ("volid", "format", "size", "ctime", "vmid", "subtype",
                                  "content")}
        for k in ("notes", "protected"):
            if k in v:
                item[k] = v[k]
        out.append(item)
    return out


def h_content_delete(ctx, p):
    st = storage_of(p)
    volid = p["volume"]
    if ":" not in volid:
        volid = st.id + ":" + volid
    sid, _, volname = volid.partition(":")
    if sid != st.id:
        raise die("volume storage '%s' does not match storage '%s'" % (sid, st.id))
    _, vol = STATE.find_volume(volid)
    m = re.match(r"^backup/vzdump-(qemu|lxc)-(\d+)-", volname)
    if m:
        ctx.check("/storage/" + st.id, ["Datastore.AllocateSpace"])
        ctx.check("/vms/" + m.group(2), ["VM.Backup"])
    else:
        ctx.check("/storage/" + st.id, ["Datastore.Allocate"])
    owner = int(m.group(2)) if m else None

    def body(task):
        yield Sleep(task.duration())
        if vol is None or vol not in st.volumes:
            raise TaskError("unable to delete '%s' - no such file" % volid)  # fake's choice
        if vol.get("protected"):
            raise TaskError("cannot remove protected archive '%s/%s'" % (
                st.dumpdir(), vol["filename"]))
        st.volumes.remove(vol)
        task.log("Removed volume '%s'" % volid)
    id_ = ("%d@" % owner if owner else "") + st.id
    return fork(ctx, "imgdel", owner, body, id_=id_)


# -- restore (qemu-server API2/Qemu.pm create_vm, QemuServer.pm restore_vma_archive)

def h_create(ctx, p):
    archive = p.get("archive")
    if not archive:
        raise Raw(501, "fake: creating a VM without 'archive' is not implemented",
                  b"fake: creating a VM without 'archive' is not implemented")
    vmid = p["vmid"]
    g = STATE.guests.get(vmid)
    exists = g is not None
    if p.get("storage"):
        ctx.check("/storage/" + p["storage"], ["Datastore.AllocateSpace"])
    if p.get("start"):
        ctx.check("/vms/%d" % vmid, ["VM.PowerMgmt"])
    if ctx.check("/vms/%d" % vmid, ["VM.Allocate"], noerr=True):
        pass
    elif archive and p.get("force") and exists and \
            ctx.check("/vms/%d" % vmid, ["VM.Backup"], noerr=True):
        pass  # VM.Backup suffices to restore over an existing guest
    else:
        raise perm_exc()
    # Storage.pm check_volume_access for the archive
    sid, _, volname = archive.partition(":")
    if not volname:
        if ctx.tokenid != "root@pam":
            raise die("Only root can pass arbitrary filesystem paths.")
    st = STATE.storages.get(sid)
    if st is None:
        raise die("storage '%s' does not exist" % sid)
    m = re.match(r"^backup/(vzdump-(qemu|lxc|openvz)-([1-9][0-9]{2,8})-.+)$", volname)
    if not m:
        raise die("unable to parse directory volume name '%s'" % volname)
    owner = int(m.group(3))
    if not ctx.check("/storage/" + sid, ["Datastore.Allocate"], noerr=True) and owner != vmid:
        ctx.check("/storage/" + sid, ["Datastore.AllocateSpace"])
        ctx.check("/vms/%d" % owner, ["VM.Backup"])
    _, vol = STATE.find_volume(archive)
    if vol is None:
        # Storage.pm abs_filesystem_path
        raise die("can't find file '%s'" % archive)
    target_storage = p.get("storage") or (g.disk_storage if g else "local-lvm")
    if target_storage not in STATE.storages:
        raise die("storage '%s' does not exist" % target_storage)
    emsg = "unable to restore VM %d -" % vmid
    # create_and_lock_config: 5 s flock, the vmid free unless force, no lock
    lk = STATE.flock(vmid)
    if lk.holder is not None:
        if not ctx.flock_waited:
            raise WaitFlock(vmid, CREATE_LOCK_TIMEOUT)
        raise die("%s can't lock file '%s' - got timeout" % (emsg, lk.path))
    if vmid in STATE.remote and not p.get("force"):
        raise die("%s VM %d already exists on node '%s'" % (
            emsg, vmid, STATE.remote[vmid].get("node", "pve2")))
    if exists and not p.get("force"):
        # pve-cluster Cluster.pm check_vmid_unused
        raise die("%s VM %d already exists on node '%s'" % (emsg, vmid, STATE.node))
    if exists and g.lock:
        raise die("%s VM is locked (%s)" % (emsg, g.lock))
    if not exists:
        g = Guest({"vmid": vmid, "status": "stopped", "name": vol["conf"].get("name"),
                   "disk_storage": target_storage, "snapshots": []}, STATE.node, time.time())
        g.conf = {"memory": 128}
        g.data = None
        STATE.guests[vmid] = g
    g.lock = "create"
    user = task_user(ctx)

    def body(task):
        restored = False
        try:
            if g.conf.get("protection"):
                raise TaskError("%s protection mode enabled" % emsg)
            if g.running():
                raise TaskError("%s vm is running" % emsg)
            yield Flock(vmid, 1)  # lock_config_full($vmid, 1, $realcmd)
            try:
                # check_restore_permissions on the backed-up config
                bridge = re.search(r"bridge=([^,]+)", vol["conf"].get("net0", ""))
                if bridge and not ctx.check("/sdn/zones/localnetwork/" + bridge.group(1),
                                            ["SDN.Use"], noerr=True):
                    raise TaskError("Permission check failed (/sdn/zones/localnetwork/%s, "
                                    "SDN.Use)" % bridge.group(1))
                total = task.duration("qmrestore")
                tmp = "/var/tmp/vzdumptmp%d" % task.pid
                path = "%s/%s" % (st.dumpdir(), vol["filename"])
                dec = {"vma.zst": "zstd -q -d -c %s" % path, "vma.gz": "zcat %s" % path,
                       "vma.lzo": "lzop -d -c %s" % path}.get(vol["format"])
                cmd = "vma extract -v -r %s.fifo %s %s" % (tmp, "-" if dec else path, tmp)
                task.log("restore vma archive: %s" % (dec + " | " + cmd if dec else cmd))
                task.log("CFG: size: %d name: qemu-server.conf" % (len(json.dumps(vol["conf"]))))
                task.log("DEV: dev_id=1 size: %d devname: drive-scsi0" % g.disk_bytes)
                task.log("CTIME: %s" % time.strftime("%a %b %d %H:%M:%S %Y",
                                                     time.localtime(vol["ctime"])))
                yield Sleep(total * 0.02)
                # parse_backup_hints: the disks' storage, once the header is read
                if not ctx.check("/storage/" + target_storage, ["Datastore.AllocateSpace"],
                                 noerr=True):
                    raise TaskError("Permission check failed (/storage/%s, "
                                    "Datastore.AllocateSpace)" % target_storage)
                # the old disks and every snapshot go (restore_cleanup_oldconf);
                # the config is a placeholder until the restore has finished
                g.conf = {"memory": 128}
                g.snapshots.clear()
                g.parent = None
                g.data = None
                g.disk_storage = target_storage
                # fake's choice: what lvremove and lvcreate print
                task.log('  Logical volume "%s" successfully removed.' % g.lvname())
                task.log('  Logical volume "%s" created.' % g.lvname())
                task.log("new volume ID is '%s'" % g.volid())
                task.log("map 'drive-scsi0' to '/dev/pve/%s' (write zeros = 0)" % g.lvname())
                yield from hold_point(task)
                f = task.faults.get("task-error")
                for pct in range(1, 101):
                    if f and pct / 100 > float(f.get("at", 0.5)):
                        raise TaskError(f.get("message", "fake: programmed task error"))
                    yield Sleep(total * 0.95 / 100)
                    task.log("progress %d%% (read %d bytes, duration %d sec)" % (
                        pct, g.disk_bytes * pct // 100, int(total * 0.95 * pct / 100)))
                zero = g.disk_bytes - g.used_bytes
                task.log("total bytes read %d, sparse bytes %d (%.3g%%)" % (
                    g.disk_bytes, zero, 100.0 * zero / g.disk_bytes))
                task.log("space reduction due to 4K zero blocks 0.41%")
                task.log("rescan volumes...")
                emit_warnings(task)
                yield Sleep(total * 0.03)
                g.conf = dict(vol["conf"])
                g.data = vol["data"]
                g.lock = None
                restored = True
            finally:
                task.unflock(vmid)
        except (TaskError, TaskInterrupt) as e:
            if g.lock == "create":
                g.lock = None
            if restored:
                task.log("error after data was restored, VM disks should be OK but config "
                         "may require adaptions. VM %d state is NOT cleaned up." % vmid)
            else:
                task.log("error before or during data restore, some or all disks were not "
                         "completely restored. VM %d state is NOT cleaned up." % vmid)
            if isinstance(e, TaskInterrupt):
                raise TaskError("interrupted by signal")
            raise
        if p.get("start") and not p.get("live-restore"):
            task.log("Execute autostart")
            Task("qmstart", vmid, user, task.t, lambda tk: w_start(tk, g), vmid=vmid)
    return fork(ctx, "qmrestore", vmid, body)


class WaitFlock(Exception):
    """A handler would block on the config flock: the request waits outside
    the fake's lock, then runs again."""

    def __init__(self, vmid, timeout):
        super().__init__(vmid)
        self.vmid = vmid
        self.timeout = timeout


# -- tasks (pve-manager API2/Tasks.pm)

def find_task(p):
    m = UPID_RE.match(p["upid"])
    if not m:
        raise param_exc({"upid": "unable to parse worker upid"})
    for t in STATE.tasks:
        if t.upid == p["upid"] and t.node == p["node"]:
            return t
    raise param_exc({"upid": "no such task"})


def task_access(ctx, task, p, priv="Sys.Audit"):
    if not ctx.owns(task):
        ctx.check("/nodes/" + p["node"], [priv])


def h_task_status(ctx, p):
    task = find_task(p)
    task_access(ctx, task, p)
    return task.status_json()


def h_task_log(ctx, p):
    m = UPID_RE.match(p["upid"])
    if not m:
        raise param_exc({"upid": "unable to parse worker upid"})
    task = next((t for t in STATE.tasks if t.upid == p["upid"]), None)
    if task is not None:
        task_access(ctx, task, p)
    elif m.group(8) != ctx.tokenid:
        ctx.check("/nodes/" + p["node"], ["Sys.Audit"])
    if p.get("download"):
        if "start" in p or "limit" in p:
            raise die("'download' cannot be used together with 'start' or 'limit' parameters")
        if task is None:
            raise die("Could not open file '/var/log/pve/tasks/%s/%s' - No such file or "
                      "directory" % (m.group(5)[7], p["upid"]))
        return DownloadLog(task)
    if task is None:
        # Tools.pm dump_logfile on a missing file
        ctx.total = 1
        return [{"n": 1, "t": "unable to open file - No such file or directory"}]
    start = p.get("start", 0)
    limit = p.get("limit", 50)
    lines = task.lines
    out = []
    for i, text in enumerate(lines):
        if i < start:
            continue
        if limit != 0 and len(out) >= limit:
            continue
        out.append({"n": i + 1, "t": text})
    count = len(lines)
    if not count:  # "ExtJS store.guaranteeRange() does not like empty array"
        count = 1
        out = [{"n": 1, "t": "no content"}]
    ctx.total = count
    return out


class DownloadLog:
    def __init__(self, task):
        self.task = task


def h_task_stop(ctx, p):
    task = find_task(p)
    task_access(ctx, task, p, "Sys.Modify")
    task.interrupt(STATE.advance())
    return None


def status_type(s):
    # UPID.pm normalize_status_type
    if not s:
        return "unknown"
    if s == "OK":
        return "ok"
    if re.match(r"^WARNINGS: \d+$", s):
        return "warning"
    if s == "unexpected status":
        return "unknown"
    return "error"


def h_tasks(ctx, p):
    auditor = ctx.check("/nodes/" + p["node"], ["Sys.Audit"], noerr=True)
    start = p.get("start", 0)
    limit = p.get("limit", 50)
    source = p.get("source", "archive")
    statusfilter = {"ok", "warning", "error", "unknown"}
    if p.get("statusfilter") and not p.get("errors"):
        statusfilter = {x.lower() for x in re.split(r"[,;\s]+", p["statusfilter"]) if x}
    elif p.get("errors"):
        statusfilter.discard("ok")
    res = []
    count = 0
    state = {"count": 0, "limit": limit}

    def want(task, status):
        d = task.decoded()
        if p.get("userfilter") and p["userfilter"].lower() not in task.user.lower():
            return False
        if not (auditor or ctx.owns(task)):
            return False
        if p.get("typefilter") and task.type != p["typefilter"]:
            return False
        if p.get("vmid") and (not task.id or task.id != str(p["vmid"])):
            return False
        if "since" in p and d["starttime"] < p["since"]:
            return False
        if "until" in p and d["starttime"] > p["until"]:
            return False
        if status_type(status) not in statusfilter:
            return False
        state["count"] += 1
        if state["count"] <= start:
            return False
        if state["limit"] <= 0:
            return False
        state["limit"] -= 1
        return True

    if source in ("active", "all"):
        for task in sorted((t for t in STATE.tasks if t.running()), key=lambda t: -t.t_fork):
            if want(task, None):
                d = task.decoded()
                d["status"] = "RUNNING"
                res.append(d)
    if source != "active":
        for task in reversed(STATE.finished):  # the index, read backwards
            if want(task, task.exitstatus):
                d = task.decoded()
                d["endtime"] = task.endtime
                d["status"] = task.exitstatus
                res.append(d)
    count = state["count"]
    ctx.total = count
    return res


# ---- routes ------------------------------------------------------------------

R = []


def route(method, pattern, handler, params=None, perm=None, protected=False, node=True):
    """perm: None (the handler checks), or (path template, privs, any)."""
    rx = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")
    schema = dict(params or {})
    if node and "{node}" in pattern:
        schema["node"] = NODE
    for name in re.findall(r"\{(\w+)\}", pattern):
        schema.setdefault(name, S(optional=False))
    R.append({"method": method, "rx": rx, "handler": handler, "schema": schema, "perm": perm,
              "protected": protected, "proxyto": "{node}" in pattern, "pattern": pattern})


Q = "/nodes/{node}/qemu/{vmid}"
route("GET", "/version", h_version)
route("GET", "/nodes", h_nodes)
route("GET", "/nodes/{node}/version", h_node_version)
route("GET", "/nodes/{node}/status", h_node_status, perm=("/nodes/{node}", ["Sys.Audit"], False))
route("GET", "/nodes/{node}/certificates/info", h_cert_info)
route("GET", "/cluster/resources", h_cluster_resources,
      {"type": S(enum=["vm", "storage", "node", "sdn"])})
route("GET", "/cluster/ha/resources", h_ha_resources, {"type": S(enum=["ct", "vm"])},
      perm=("/", ["Sys.Audit"], False))
route("GET", "/access/permissions", h_permissions, {"userid": S(), "path": S()})
route("GET", "/nodes/{node}/qemu", h_vmlist, {"full": BOOL}, protected=True)
route("POST", "/nodes/{node}/qemu", h_create,
      {"vmid": VMID, "archive": S(maxLength=255), "storage": STORAGE, "force": BOOL,
       "unique": BOOL, "live-restore": BOOL, "pool": S(), "bwlimit": S("integer", minimum=0),
       "start": BOOL, "ha-managed": BOOL}, protected=True)
route("GET", Q + "/status/current", h_status, {"vmid": VMID},
      perm=("/vms/{vmid}", ["VM.Audit"], False), protected=True)
route("GET", Q + "/config", h_config,
      {"vmid": VMID, "current": BOOL, "snapshot": dict(SNAPNAME, optional=True)},
      perm=("/vms/{vmid}", ["VM.Audit"], False))
POWER = ("/vms/{vmid}", ["VM.PowerMgmt"], False)
route("POST", Q + "/status/start", h_start,
      {"vmid": VMID, "skiplock": BOOL, "timeout": TIMEOUT, "machine": S(),
       "stateuri": S(maxLength=128), "migratedfrom": S(format=fmt_node)}, perm=POWER,
      protected=True)
route("POST", Q + "/status/stop", h_stop,
      {"vmid": VMID, "skiplock": BOOL, "timeout": TIMEOUT, "keepActive": BOOL,
       "overrule-shutdown": BOOL, "migratedfrom": S(format=fmt_node)}, perm=POWER,
      protected=True)
route("POST", Q + "/status/shutdown", h_shutdown,
      {"vmid": VMID, "skiplock": BOOL, "timeout": TIMEOUT, "forceStop": BOOL,
       "keepActive": BOOL}, perm=POWER, protected=True)
route("POST", Q + "/status/reboot", h_reboot, {"vmid": VMID, "timeout": TIMEOUT}, perm=POWER,
      protected=True)
route("POST", Q + "/status/reset", h_reset, {"vmid": VMID, "skiplock": BOOL}, perm=POWER,
      protected=True)
route("POST", Q + "/status/suspend", h_suspend,
      {"vmid": VMID, "skiplock": BOOL, "todisk": BOOL, "statestorage": STORAGE},
      perm=POWER, protected=True)
route("POST", Q + "/status/resume", h_resume,
      {"vmid": VMID, "skiplock": BOOL, "nocheck": BOOL}, perm=POWER, protected=True)
route("GET", Q + "/snapshot", h_snapshot_list, {"vmid": VMID},
      perm=("/vms/{vmid}", ["VM.Audit"], False), protected=True)
route("POST", Q + "/snapshot", h_snapshot_create,
      {"vmid": VMID, "snapname": SNAPNAME, "vmstate": BOOL, "description": S()},
      perm=("/vms/{vmid}", ["VM.Snapshot"], False), protected=True)
route("GET", Q + "/snapshot/{snapname}", h_snapshot_idx, {"vmid": VMID, "snapname": SNAPNAME})
route("GET", Q + "/snapshot/{snapname}/config", h_snapshot_config,
      {"vmid": VMID, "snapname": SNAPNAME},
      perm=("/vms/{vmid}", ["VM.Snapshot", "VM.Snapshot.Rollback", "VM.Audit"], True))
route("POST", Q + "/snapshot/{snapname}/rollback", h_rollback,
      {"vmid": VMID, "snapname": SNAPNAME, "start": BOOL},
      perm=("/vms/{vmid}", ["VM.Snapshot", "VM.Snapshot.Rollback"], True), protected=True)
route("DELETE", Q + "/snapshot/{snapname}", h_snapshot_delete,
      {"vmid": VMID, "snapname": SNAPNAME, "force": BOOL},
      perm=("/vms/{vmid}", ["VM.Snapshot"], False), protected=True)
route("POST", "/nodes/{node}/vzdump", h_vzdump, {
    "vmid": S(format=fmt_vmid_list), "all": BOOL, "mode": S(enum=["snapshot", "suspend", "stop"]),
    "storage": STORAGE, "compress": S(enum=["0", "1", "gzip", "lzo", "zstd"]),
    "remove": BOOL, "prune-backups": S(), "notes-template": S(maxLength=1024),
    "protected": BOOL, "bwlimit": S("integer", minimum=0), "lockwait": S("integer", minimum=0),
    "stopwait": S("integer", minimum=0), "zstd": S("integer"),
    "pigz": S("integer"), "ionice": S("integer", minimum=0, maximum=8), "quiet": BOOL,
    "mailto": S(), "mailnotification": S(enum=["always", "failure"]),
    "notification-mode": S(enum=["auto", "legacy-sendmail", "notification-system"]),
    "exclude": S(format=fmt_vmid_list), "pool": S(), "dumpdir": S(), "tmpdir": S(),
    "script": S(), "stdexcludes": BOOL, "stop": BOOL, "stdout": BOOL, "job-id": S(maxLength=50),
    "fleecing": S(), "performance": S()}, protected=True)
route("GET", "/nodes/{node}/storage", h_storage_list,
      {"content": S(), "storage": STORAGE, "enabled": BOOL, "format": BOOL, "target": S()},
      protected=True)
route("GET", "/nodes/{node}/storage/{storage}/content", h_content,
      {"storage": S(optional=False, format=fmt_storage), "content": S(),
       "vmid": dict(VMID, optional=True)},
      perm=("/storage/{storage}", ["Datastore.Audit", "Datastore.AllocateSpace"], True),
      protected=True)
route("DELETE", "/nodes/{node}/storage/{storage}/content/{volume}", h_content_delete,
      {"storage": S(optional=False, format=fmt_storage), "volume": S(optional=False),
       "delay": S("integer", minimum=1, maximum=30)}, protected=True)
route("GET", "/nodes/{node}/tasks", h_tasks, {
    "start": S("integer", minimum=0), "limit": S("integer", minimum=0), "userfilter": S(),
    "typefilter": S(), "vmid": dict(VMID, optional=True), "errors": BOOL,
    "source": S(enum=["archive", "active", "all"]), "since": S("integer"),
    "until": S("integer"), "statusfilter": S()})
route("GET", "/nodes/{node}/tasks/{upid}/status", h_task_status, {"upid": S(optional=False)},
      protected=True)
route("GET", "/nodes/{node}/tasks/{upid}/log", h_task_log, {
    "upid": S(optional=False), "start": S("integer", minimum=0),
    "limit": S("integer", minimum=0), "download": BOOL}, protected=True)
route("DELETE", "/nodes/{node}/tasks/{upid}", h_task_stop, {"upid": S(optional=False)},
      protected=True)


def find_route(method, path):
    # RESTHandler.pm: the rest of a content path is the volume, '/'s and all
    m = re.match(r"^(/nodes/[^/]+/storage/[^/]+/content/)(.+)$", path)
    if m and "/" in m.group(2):
        path = m.group(1) + m.group(2).replace("/", "\0")
    for r in R:
        mm = r["rx"].match(path)
        if mm and r["method"] == method:
            return r, {k: v.replace("\0", "/") for k, v in mm.groupdict().items()}
    return None, None


# ---- HTTP ----------------------------------------------------------------------

class Reply:
    def __init__(self, status, reason, body=b"", ctype=None, close=False, delay=0.0,
                 headers=None):
        self.status = status
        self.reason = reason
        self.body = body
        self.ctype = ctype
        self.close = close
        self.delay = delay
        self.headers = headers or []


def envelope(status, data=None, message=None, errors=None, total=None):
    # Formatter/Standard.pm prepare_response_data for the json format
    d = {"data": data}
    if errors:
        d["errors"] = errors
    if status >= 400:
        d["message"] = message if message else ""
    if status < 400 and total:
        d["total"] = total
    return json.dumps(d, separators=(",", ":")).encode()


def reason_of(message):
    # AnyEvent.pm response: only the message's first line is the reason
    return (message or "").split("\n")[0]


TLS_LOCAL = threading.local()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 1 << 16
    disable_nagle_algorithm = True

    def version_string(self):
        return "pve-api-daemon/3.0"

    def log_message(self, fmt, *args):
        pass

    def setup(self):
        super().setup()
        self.conn = getattr(TLS_LOCAL, "conn", None)

    def handle_expect_100(self):
        # pveproxy sends no "100 Continue"; a client that asked waits, then
        # sends its body anyway
        return True

    def do_GET(self):
        self.handle_any()

    do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_GET

    def handle_any(self):
        if self.conn is not None:
            self.conn["requests"] += 1
        t0 = time.time()
        raw_path, _, query = self.path.partition("?")
        upath = urllib.parse.unquote(raw_path)
        length = self.headers.get("Content-Length")
        try:
            length = int(length) if length else 0
        except ValueError:
            length = 0
        body = self.rfile.read(min(length, MAX_POST + 1)) if length else b""
        with STATE.lock:
            STATE.seq += 1
            entry = {"seq": STATE.seq, "conn": self.conn["id"] if self.conn else None,
                     "method": self.command, "path": raw_path, "query": query,
                     "headers": self.logged_headers(), "body": body.decode("utf-8", "replace"),
                     "status": None, "reason": None, "outcome": "response", "t": t0,
                     "node_time": STATE.node_time(t0)}
            if self.headers.get("X-Fake-Probe"):
                # a test's own request, wrong on purpose, to see the fake refuse it
                entry["probe"] = True
            STATE.log.append(entry)
        try:
            reply = self.api(upath, query, body, length, entry)
        except Exception as e:  # a bug in the fake: say so
            reply = Reply(500, "fake bug", envelope(500, message="fake bug: %s: %s\n"
                                                    % (type(e).__name__, e)),
                          "application/json;charset=UTF-8")
        if reply is None:
            self.record(entry)
            return
        if reply.delay > 0:
            time.sleep(reply.delay)
        entry["status"] = reply.status
        entry["reason"] = reply.reason
        self.record(entry, reply)
        self.send(reply)

    def record(self, entry, reply=None):
        if ARGS.log:
            with LOG_LOCK, open(ARGS.log, "a") as f:
                f.write(json.dumps(entry) + "\n")
        if RECORD:
            # the request and what it got, for tests/api/check-requests.py
            rec = dict(entry, api="pve")
            if reply is not None:
                rec["reply"] = {"status": reply.status, "reason": reply.reason,
                                "content_type": reply.ctype,
                                "body": reply.body[:65536].decode("utf-8", "replace")
                                if isinstance(reply.body, bytes) else None}
            with LOG_LOCK, open(RECORD, "a") as f:
                f.write(json.dumps(rec) + "\n")

    def logged_headers(self):
        h = {}
        for k in ("Content-Type", "Content-Length", "Accept", "Accept-Encoding", "Expect",
                  "Connection"):
            v = self.headers.get(k)
            if v is not None:
                h[k.lower()] = v
        auth = self.headers.get("Authorization")
        if auth is not None:
            if self.conn is not None:
                self.conn["authorization"] = True
            STATE.auth_seen += 1
            tok = extract_auth_value(auth, "PVEAPIToken")
            if tok and "=" in tok:
                tid = tok.rpartition("=")[0]
                h["authorization"] = "PVEAPIToken=%s=<secret>" % (
                    tid if TOKENID_RE.match(tid) else "<not a token id>")
            else:
                h["authorization"] = "<%d characters, no token>" % len(auth)
        if self.headers.get("Cookie") is not None:
            h["cookie"] = "<%d characters>" % len(self.headers.get("Cookie"))
        if self.headers.get("CSRFPreventionToken") is not None:
            h["csrfpreventiontoken"] = "<present>"
        return h

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def send(self, reply):
        body = reply.body or b""
        headers = list(reply.headers)
        if reply.ctype:
            headers.append(("Content-Type", reply.ctype))
        ae = self.headers.get("Accept-Encoding") or ""
        if len(body) > 1024 and "gzip" in ae and reply.ctype and \
                not any(k == "Content-Encoding" for k, _ in headers):
            body = gzip.compress(body)
            headers.append(("Content-Encoding", "gzip"))
        close = reply.close or reply.status >= 400
        self.send_response(reply.status, reply.reason)
        date = self.date_time_string()
        self.send_header("Expires", date)
        self.send_header("Cache-Control", "max-age=0")
        self.send_header("Pragma", "no-cache")
        for k, v in headers:
            self.send_header(k, v)
        if body or not close:
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close" if close else "Keep-Alive")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)
        if close:
            self.close_connection = True

    # ---- one API request (AnyEvent.pm handle_request, HTTPServer.pm) ----------

    def api(self, upath, query, body, length, entry):
        if not (upath == API or upath.startswith(API + "/")):
            if upath.startswith("/api2/"):
                return Reply(501, "no such uri", b"no such uri")
            return Reply(501, "Not Implemented", b"")
        rel = upath[len(API):] or "/"
        rel = "/" + "/".join(x for x in rel.split("/") if x)
        method = self.command
        with STATE.lock:
            STATE.advance()
            r, uri_params = find_route(method, rel)
            fault = STATE.faults.take_request_fault(method, rel, bool(r and r["protected"]))
        if fault:
            entry["fault"] = fault["kind"]
        if fault and fault["kind"] in ("drop", "stall") and fault.get("when", "before") == "before":
            if fault["kind"] == "stall":
                time.sleep(float(fault.get("seconds", 5.0)))
                if fault.get("then", "answer") == "answer":
                    fault = None
            if fault:
                entry["outcome"] = "dropped-before"
                self.drop()
                return None
        # authentication, before anything else
        auth = self.headers.get("Authorization")
        cookie = self.headers.get("Cookie")
        ticket = extract_auth_value(cookie, "PVEAuthCookie") or \
            extract_auth_value(auth, "PVEAuthCookie")
        delay = STATE.auth_delay * STATE.scale
        if ticket:
            entry["auth"] = "failed: the fake issues no tickets"
            return Reply(401, "Authentication failed!", close=True, delay=delay)
        token_value = extract_auth_value(auth, "PVEAPIToken")
        if not token_value:
            entry["auth"] = "failed: no ticket"
            return Reply(401, "No ticket", close=True, delay=delay)
        with STATE.lock:
            tokenid, tok, why = verify_token(token_value)
        if tok is None:
            entry["auth"] = "failed: " + why
            return Reply(401, "Authentication failed!", close=True, delay=delay)
        entry["auth"] = "ok"
        entry["tokenid"] = tokenid
        if length and method not in ("PUT", "POST"):
            msg = "Unexpected content for method '%s'" % method
            return Reply(501, msg, msg.encode())
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if length:
            if length > MAX_POST:
                return Reply(501, "for data too large", b"for data too large")
            if ctype and ctype not in ("application/x-www-form-urlencoded",
                                       "application/json"):
                msg = "upload 'Content-Type '%s' not implemented" % self.headers.get(
                    "Content-Type")
                return Reply(506, msg, msg.encode())
        try:
            params = extract_params(body if method in ("PUT", "POST") else b"", query,
                                    ctype == "application/json")
        except ValueError as e:
            return self.error(ApiError(400, "malformed JSON string: %s\n" % e))
        params.pop("_dc", None)
        if fault and fault["kind"] == "daemon" and not fault.get("executed"):
            return self.daemon_fault(fault)
        if fault and fault["kind"] == "error":
            return self.error(ApiError(int(fault.get("status", 500)),
                                       fault.get("message", "fake: programmed error\n"),
                                       fault.get("errors")))
        if fault and fault["kind"] == "raw":
            b = fault.get("body", "")
            return Reply(int(fault.get("status", 500)), fault.get("reason", "fake"),
                         b.encode() if isinstance(b, str) else b, fault.get("content_type"))
        if fault and fault["kind"] == "lock-timeout":
            time.sleep(LOCK_TIMEOUT * STATE.scale)
            vmid = (uri_params or {}).get("vmid", "100")
            return self.error(die("can't lock file '/var/lock/qemu-server/lock-%s.conf' - "
                                  "got timeout" % vmid))
        ctx = Ctx(tokenid, tok)
        while True:
            try:
                with STATE.lock:
                    STATE.advance()
                    data = self.run_handler(ctx, method, rel, r, uri_params, params,
                                            ctype == "application/json")
                break
            except WaitFlock as w:
                deadline = time.time() + w.timeout * STATE.scale
                while time.time() < deadline:
                    with STATE.lock:
                        STATE.advance()
                        if STATE.flock(w.vmid).holder is None:
                            break
                    time.sleep(0.002)
                ctx.flock_waited = True
            except ApiError as e:
                reply = self.error(e)
                return self.after(fault, reply, entry)
            except Raw as e:
                return Reply(e.status, e.reason, e.body, e.ctype)
        if ctx.upid:
            entry["upid"] = ctx.upid
        if isinstance(data, DownloadLog):
            text = ("\n".join(data.task.lines) + "\n").encode()
            hdrs = [("Content-Disposition", 'attachment; filename="task-%s-%s-%s.log"' % (
                data.task.node, data.task.type,
                time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(data.task.starttime))))]
            if len(text) > 1024:
                text = gzip.compress(text)
                hdrs.append(("Content-Encoding", "gzip"))
            return self.after(fault, Reply(200, "OK", text, "text/plain", headers=hdrs), entry)
        reply = Reply(200, "OK", envelope(200, data, total=ctx.total),
                      "application/json;charset=UTF-8")
        return self.after(fault, reply, entry)

    def after(self, fault, reply, entry):
        if not fault:
            return reply
        if fault["kind"] == "daemon":
            return self.daemon_fault(fault)
        if fault["kind"] in ("drop", "stall") and fault.get("when") == "after":
            entry["status"] = reply.status
            if fault["kind"] == "stall":
                time.sleep(float(fault.get("seconds", 5.0)))
                if fault.get("then", "answer") == "answer":
                    return reply
            entry["outcome"] = "dropped-after"
            self.drop()
            return None
        return reply

    def daemon_fault(self, fault):
        # pveproxy's proxy_request callback: AnyEvent::HTTP's pseudo-status
        # (595 connection, 596 sending/headers) and its reason, no body
        status = int(fault.get("status", 595))
        reason = fault.get("reason", "Connection refused" if status == 595 else
                           "Connection timed out")
        if status == 596 and reason == "Connection timed out":
            time.sleep(float(fault.get("seconds", PROXY_TIMEOUT)) * STATE.scale)
        return Reply(status, reason, b"", None, close=True)

    def error(self, e):
        return Reply(e.status, reason_of(e.message),
                     envelope(e.status, message=e.message, errors=e.errors),
                     "application/json;charset=UTF-8", close=True)

    def run_handler(self, ctx, method, rel, r, uri_params, params, json_body):
        # HTTPServer.pm rest_handler
        if r is None:
            raise Raw(501, "Method '%s %s' not implemented" % (method, rel),
                      envelope(501, message="Method '%s %s' not implemented" % (method, rel)),
                      "application/json;charset=UTF-8")
        merged = dict(uri_params)
        for k in sorted(params):
            if k in uri_params and str(uri_params[k]) != str(params[k]):
                raise param_exc({k: "duplicate parameter (already defined in URI) with "
                                    "conflicting values!"})
            merged[k] = params[k]
        if r["perm"]:
            path, privs, any_ = r["perm"]
            path = re.sub(r"\{(\w+)\}", lambda m: str(merged.get(m.group(1), "")), path)
            ctx.check(path, privs, any_)
        if r["proxyto"]:
            node = merged.get("node", "")
            if node != STATE.node and node != "localhost":
                # PVE::Cluster::remote_node_ip -> getaddrinfo
                raise die("hostname lookup '%s' failed - failed to get address info for: "
                          "%s: Name or service not known" % (node, node))
        p = check_params(merged, r["schema"], json_body)
        return r["handler"](ctx, p)


def extract_params(body, query, is_json):
    # AnyEvent.pm extract_params: the body (JSON or form), then the query
    # string over it; decode_urlencoded splits on & and ;
    params = {}
    if body:
        if is_json:
            doc = json.loads(body)
            if not isinstance(doc, dict):
                raise ValueError("not an object")
            params.update(doc)
        else:
            params.update(decode_urlencoded(body.decode("utf-8", "replace")))
    params.update(decode_urlencoded(query))
    return params


def decode_urlencoded(data):
    res = {}
    if not data:
        return res
    for kv in re.split(r"[&;]", data):
        parts = kv.split("=")
        k = urllib.parse.unquote_plus(parts[0])
        if len(parts) > 1:
            v = urllib.parse.unquote_plus(parts[1])  # "keeping only the first two pieces"
            if k in res and res[k] is not None:
                old = res[k]
                v = (old if isinstance(old, list) else [old]) + [v]
        else:
            v = None
        res[k] = v
    return {k: v for k, v in res.items() if k != ""}


class ApiServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, addr, ssl_ctx):
        self.ssl_ctx = ssl_ctx
        self.conn_ids = itertools.count(1)
        super().__init__(addr, Handler)

    def get_request(self):
        sock, addr = super().get_request()
        if self.ssl_ctx:
            sock = self.ssl_ctx.wrap_socket(sock, server_side=True,
                                            do_handshake_on_connect=False)
        return sock, addr

    def finish_request(self, request, client_address):
        rec = {"id": next(self.conn_ids), "t": time.time(), "tls": bool(self.ssl_ctx),
               "handshake": None, "requests": 0, "authorization": False, "closed": False}
        with STATE.lock:
            STATE.connections.append(rec)
        if self.ssl_ctx:
            request.settimeout(10)
            try:
                request.do_handshake()
                rec["handshake"] = "ok"
                rec["tls_version"] = request.version()
            except (ssl.SSLError, OSError) as e:
                rec["handshake"] = "failed: %s" % e
                rec["closed"] = True
                return
            request.settimeout(None)
        TLS_LOCAL.conn = rec
        try:
            super().finish_request(request, client_address)
        finally:
            TLS_LOCAL.conn = None
            rec["closed"] = True

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError, ssl.SSLError)):
            return
        super().handle_error(request, client_address)


# ---- the control port ------------------------------------------------------------

class ControlHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self.handle_any()

    do_POST = do_GET

    def handle_any(self):
        raw_path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            data = json.loads(body) if body else {}
            with STATE.lock:
                now = STATE.advance()
                out = self.control(raw_path, query, data, now)
            status = 200
        except (ValueError, KeyError, TypeError) as e:
            out = {"error": "%s: %s" % (type(e).__name__, e)}
            status = 400
        raw = json.dumps(out).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def control(self, path, query, data, now):
        q = urllib.parse.parse_qs(query)
        if path == "/_fake/reset":
            conns = STATE.connections
            STATE.reset(data)
            STATE.connections = conns if data.get("keep_connections") else []
            return {"ok": True}
        if path == "/_fake/set":
            if "durations" in data:
                STATE.durations.update(data["durations"])
                for k in data["durations"]:
                    STATE.duration_used[k] = 0
            for k in ("boot_delay", "auth_delay"):
                if k in data:
                    setattr(STATE, k, float(data[k]))
            if "tokens" in data:
                STATE.set_tokens(data["tokens"])
            for b in data.get("backups", []):
                STATE.add_backup(b, now)
            for f in data.get("faults", []):
                STATE.faults.add(f)
            if data.get("clear_faults"):
                STATE.faults.list = []
            return {"ok": True}
        if path == "/_fake/fault":
            STATE.faults.add(data)
            return {"ok": True}
        if path == "/_fake/guest":
            g = STATE.guests[int(data["vmid"])]
            if "status" in data:
                if data["status"] == "running":
                    g.set_running(now, resumed=bool(data.get("booted", True)))
                else:
                    g.set_stopped(now)
            for k in ("qmpstatus", "lock", "ha", "acpi", "data"):
                if k in data:
                    setattr(g, k, data[k])
            if "name" in data:
                g.conf["name"] = data["name"]
            if "template" in data:
                if data["template"]:
                    g.conf["template"] = 1
                else:
                    g.conf.pop("template", None)
            return g.json(now)
        if path == "/_fake/release":
            released = [t.upid for t in STATE.tasks
                        if (not data.get("upid") or t.upid == data["upid"]) and
                        (not data.get("task") or t.type == data["task"]) and t.release(now)]
            STATE.advance()
            return {"released": released}
        if path == "/_fake/state":
            return STATE.json(now)
        if path == "/_fake/requests":
            since = int(q.get("since", ["0"])[0])
            return {"requests": [e for e in STATE.log if e["seq"] >= since],
                    "next": STATE.seq + 1}
        if path == "/_fake/connections":
            return {"connections": list(STATE.connections), "auth_headers_seen": STATE.auth_seen}
        raise KeyError("unknown control path %s" % path)


# ---- TLS: a node certificate signed by a cluster CA, made with openssl -----------

class TlsInfo:
    def __init__(self):
        self.fingerprint = None
        self.pin = None
        self.ca_file = None
        self.cert_file = None
        self.key_file = None
        self.infos = []


TLS = TlsInfo()


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def make_certs(d, node):
    """As pve-cluster Cluster/Setup.pm does: a self-signed cluster CA
    (pve-root-ca.pem) and the node's certificate signed by it, with SANs
    IP:127.0.0.1, IP:::1, DNS:localhost, DNS:<node>."""
    ca_key, ca = os.path.join(d, "pve-root-ca.key"), os.path.join(d, "pve-root-ca.pem")
    key, csr, crt = (os.path.join(d, n) for n in ("pve-ssl.key", "pve-ssl.csr", "pve-ssl.pem"))
    ext = os.path.join(d, "san.ext")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
            "-days", "3650", "-subj", "/CN=Proxmox Virtual Environment/OU=%s/O=PVE Cluster "
            "Manager CA" % uuidlib.uuid4())
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj",
            "/OU=PVE Cluster Node/O=Proxmox Virtual Environment/CN=%s.localdomain" % node)
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,nonRepudiation,"
                "keyEncipherment\nextendedKeyUsage=serverAuth\n"
                "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost,DNS:%s,DNS:%s.localdomain\n"
                % (node, node))
    openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
            "-out", crt, "-days", "730", "-sha256", "-extfile", ext)
    return ca, crt, key


def fingerprint_of(pem_path):
    # pve-common Certificate.pm: SHA-256 over the DER, upper case, colons
    with open(pem_path) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    h = hashlib.sha256(der).hexdigest().upper()
    return ":".join(h[i:i + 2] for i in range(0, len(h), 2))


def spki_pin(pem_path):
    # curl's CURLOPT_PINNEDPUBLICKEY form: sha256// + base64 of the SPKI hash
    pub = subprocess.run(["openssl", "x509", "-in", pem_path, "-pubkey", "-noout"],
                         check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub,
                         check=True, capture_output=True).stdout
    return "sha256//" + base64.b64encode(hashlib.sha256(der).digest()).decode()


def cert_info(pem_path, filename):
    out = subprocess.run(["openssl", "x509", "-in", pem_path, "-noout", "-subject", "-issuer",
                          "-startdate", "-enddate", "-ext", "subjectAltName",
                          "-nameopt", "compat"],
                         check=True, capture_output=True, text=True).stdout
    info = {"filename": filename, "fingerprint": fingerprint_of(pem_path),
            "public-key-type": "rsaEncryption", "public-key-bits": 2048}
    for line in out.splitlines():
        if line.startswith("subject="):
            info["subject"] = line[8:].strip()
        elif line.startswith("issuer="):
            info["issuer"] = line[7:].strip()
        elif line.startswith("notBefore="):
            info["notbefore"] = int(ssl.cert_time_to_seconds(line[10:].strip()))
        elif line.startswith("notAfter="):
            info["notafter"] = int(ssl.cert_time_to_seconds(line[9:].strip()))
        elif "DNS:" in line or "IP Address:" in line:
            info["san"] = [x.split(":", 1)[1] for x in line.strip().split(", ")]
    with open(pem_path) as f:
        info["pem"] = f.read()
    return info


# ---- the guest's SSH port ----------------------------------------------------------

class SshListener:
    """Answers with an SSH banner only while the guest runs and has booted;
    refuses while it is off or booting; accepts but stays silent while the
    guest is paused (its sshd is frozen)."""

    def __init__(self, port):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        self.port = s.getsockname()[1]
        # the port stays bound (never listening) while the listener is
        # down, so that no other program on the machine is given it then
        self.hold = s
        self.sock = None
        self.held = []

    def tick(self, state):
        want = state != "down"
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
            for c in self.held:
                c.close()
            self.held = []
        if self.sock is None:
            return
        while True:
            try:
                c, _ = self.sock.accept()
            except (BlockingIOError, OSError):
                break
            if state == "frozen":
                self.held.append(c)
                continue
            try:
                c.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3 fake-pve\r\n")
            except OSError:
                pass
            c.close()
        if state == "up" and self.held:
            for c in self.held:
                try:
                    c.sendall(b"SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3 fake-pve\r\n")
                except OSError:
                    pass
                c.close()
            self.held = []


def ticker(ssh):
    while True:
        with STATE.lock:
            now = STATE.advance()
            g = STATE.guests.get(STATE.ssh_vmid)
            state = g.ssh_state(now) if g else "down"
        ssh.tick(state)
        time.sleep(0.005)


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--control-port", type=int, default=0)
    p.add_argument("--ssh-port", type=int, default=0)
    p.add_argument("--time-scale", type=float, default=1.0,
                   help="real seconds per node second (every duration, delay and timeout)")
    p.add_argument("--https", action="store_true",
                   help="serve TLS with a node certificate made now (needs openssl)")
    p.add_argument("--tls-dir", help="where to write the certificates (default: a new "
                   "temporary directory, removed at exit)")
    p.add_argument("--config", help="a JSON file with the first reset's configuration")
    p.add_argument("--port-file", help="write the startup JSON line to this file too")
    p.add_argument("--log", help="append every API request to this file (JSON lines, kept "
                   "across resets; no token secret)")
    ARGS = p.parse_args()
    cfg = {}
    if ARGS.config:
        with open(ARGS.config) as f:
            cfg = json.load(f)
    State()
    STATE.reset(cfg)
    ssl_ctx = None
    tmpdir = None
    if ARGS.https:
        d = ARGS.tls_dir
        if not d:
            d = tmpdir = tempfile.mkdtemp(prefix="fake-pve-tls.")
        os.makedirs(d, exist_ok=True)
        ca, crt, key = make_certs(d, STATE.node)
        TLS.ca_file, TLS.cert_file, TLS.key_file = ca, crt, key
        TLS.fingerprint = fingerprint_of(crt)
        TLS.pin = spki_pin(crt)
        TLS.infos = [cert_info(ca, "pve-root-ca.pem"), cert_info(crt, "pve-ssl.pem")]
        ssl_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ssl_ctx.load_cert_chain(crt, key)
    httpd = ApiServer(("127.0.0.1", ARGS.port), ssl_ctx)
    ctl = ThreadingHTTPServer(("127.0.0.1", ARGS.control_port), ControlHandler)
    ctl.daemon_threads = True
    ssh = SshListener(ARGS.ssh_port)
    threading.Thread(target=ticker, args=(ssh,), daemon=True).start()
    threading.Thread(target=ctl.serve_forever, kwargs={"poll_interval": 0.05},
                     daemon=True).start()

    def stop(*a):
        if tmpdir:
            shutil.rmtree(tmpdir, ignore_errors=True)
        os._exit(0)
    signal.signal(signal.SIGTERM, stop)
    hello = {"api": httpd.server_address[1], "scheme": "https" if ssl_ctx else "http",
             "control": ctl.server_address[1], "ssh": ssh.port, "node": STATE.node,
             "fingerprint": TLS.fingerprint, "pin": TLS.pin, "ca_file": TLS.ca_file,
             "cert_file": TLS.cert_file}
    line = json.dumps(hello)
    if ARGS.port_file:
        tmp = ARGS.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(line + "\n")
        os.rename(tmp, ARGS.port_file)
    print(line, flush=True)
    try:
        httpd.serve_forever(poll_interval=0.05)
    except KeyboardInterrupt:
        stop()


if __name__ == "__main__":
    main()
