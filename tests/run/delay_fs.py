# SPDX-License-Identifier: MIT
"""A FUSE file system of one file, "f", whose reads each take a fixed delay,
all of them at once: a device of fixed latency and unlimited parallelism,
whose IOPS grow with the queue depth as depth / delay.  Spoken to through
/dev/fuse directly (the kernel's protocol, 7.31), so that it needs no
library.  Reads return bytes of 0x5a; everything but lookup, getattr,
open, read and release is refused with ENOSYS (it is read-only).

    fs = DelayFs(mountpoint, size_bytes, delay_s)   # mounted, served
    ...
    fs.stop()                                        # unmounted

Needs root and /dev/fuse; DelayFs raises OSError when either is missing.
"""
import ctypes
import errno
import heapq
import os
import struct
import threading
import time

MS_NOSUID, MS_NODEV = 2, 4
MNT_DETACH = 2
OP_LOOKUP, OP_FORGET, OP_GETATTR, OP_OPEN, OP_READ = 1, 2, 3, 14, 15
OP_RELEASE, OP_FLUSH, OP_INIT, OP_OPENDIR, OP_READDIR = 18, 25, 26, 27, 28
OP_RELEASEDIR, OP_INTERRUPT, OP_DESTROY, OP_BATCH_FORGET = 29, 36, 38, 42
FUSE_ASYNC_READ, FUSE_ASYNC_DIO = 1 << 0, 1 << 15
IN_HEADER = 40  # len, opcode, unique, nodeid, uid, gid, pid, extlen, padding
ROOT, FILE = 1, 2


class DelayFs:
    def __init__(self, mountpoint, size, delay_s):
        self.mountpoint, self.size, self.delay = mountpoint, size, delay_s
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = os.open('/dev/fuse', os.O_RDWR)
        opts = 'fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other' % self.fd
        if self.libc.mount(b'delayfs', mountpoint.encode(), b'fuse',
                           MS_NOSUID | MS_NODEV, opts.encode()) != 0:
            e = ctypes.get_errno()
            os.close(self.fd)
            raise OSError(e, 'mount fuse on %s: %s' % (mountpoint, os.strerror(e)))
        self.lock = threading.Lock()
        self.pending = []  # (due, unique, bytes): the reads waiting out their delay
        self.cv = threading.Condition()
        self.stopping = False
        self.threads = [threading.Thread(target=self._serve, daemon=True),
                        threading.Thread(target=self._answer_reads, daemon=True)]
        for t in self.threads:
            t.start()

    def stop(self):
        """Unmounts (lazily, so that a file still open does not keep it)."""
        self.stopping = True
        with self.cv:
            self.cv.notify()
        self.libc.umount2(self.mountpoint.encode(), MNT_DETACH)
        self.threads[0].join(timeout=10)
        os.close(self.fd)

    def _attr(self, ino):
        mode, size, nlink = (0o40755, 0, 2) if ino == ROOT else (0o100444, self.size, 1)
        return struct.pack('<QQQQQQIIIIIIIIII', ino, size, (size + 511) // 512, 0, 0, 0,
                           0, 0, 0, mode, nlink, 0, 0, 0, 4096, 0)

    def _reply(self, unique, err=0, body=b''):
        with self.lock:
            try:
                os.write(self.fd, struct.pack('<IiQ', 16 + len(body), -err, unique) + body)
            except OSError:
                pass  # the request was interrupted, or the mount is gone

    def _answer_reads(self):
        while True:
            with self.cv:
                while not self.stopping and (not self.pending or
                                             self.pending[0][0] > time.monotonic()):
                    self.cv.wait(self.pending[0][0] - time.monotonic()
                                 if self.pending else None)
                if self.stopping:
                    return
                _, unique, n = heapq.heappop(self.pending)
            self._reply(unique, 0, b'\x5a' * n)

    def _serve(self):
        while True:
            try:
                buf = os.read(self.fd, 1 << 21)
            except OSError as e:
                if e.errno in (errno.EINTR, errno.ENOENT, errno.EAGAIN):
                    continue
                return  # ENODEV: unmounted
            if len(buf) < IN_HEADER:
                continue
            length, op, unique, node = struct.unpack_from('<IIQQ', buf)
            arg = buf[IN_HEADER:length]
            if op == OP_INIT:
                body = struct.pack('<IIIIHHIIHHII', 7, 31, 0, FUSE_ASYNC_READ | FUSE_ASYNC_DIO,
                                   256, 200, 1 << 20, 1, 256, 0, 0, 0)
                self._reply(unique, 0, body + b'\0' * 24)
            elif op == OP_LOOKUP:
                if node == ROOT and arg.split(b'\0')[0] == b'f':
                    self._reply(unique, 0, struct.pack('<QQQQII', FILE, 0, 3600, 3600, 0, 0)
                                + self._attr(FILE))
                else:
                    self._reply(unique, errno.ENOENT)
            elif op == OP_GETATTR:
                self._reply(unique, 0, struct.pack('<QII', 3600, 0, 0) + self._attr(node))
            elif op in (OP_OPEN, OP_OPENDIR):
                self._reply(unique, 0, struct.pack('<QII', 0, 0, 0))
            elif op == OP_READ:
                _, offset, n = struct.unpack_from('<QQI', arg)
                n = max(0, min(n, self.size - offset))
                with self.cv:
                    heapq.heappush(self.pending, (time.monotonic() + self.delay, unique, n))
                    self.cv.notify()
            elif op == OP_READDIR:
                self._reply(unique, 0, b'')
            elif op in (OP_FORGET, OP_BATCH_FORGET, OP_INTERRUPT):
                pass  # no reply is expected
            elif op in (OP_RELEASE, OP_RELEASEDIR, OP_FLUSH):
                self._reply(unique, 0)
            elif op == OP_DESTROY:
                self._reply(unique, 0)
                return
            else:
                self._reply(unique, errno.ENOSYS)
