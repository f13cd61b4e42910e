#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The saturation point of a real sweep (issue 20): fiocamp-run sweeps
iodepth=1,2,...,64 of 4k random reads on a device whose knee is known, and
fiocamp-analyze must name the queue depth where the knee is.

usage: test-saturation.py FIOCAMP_RUN FIOCAMP_ANALYZE

The device: a loop device (direct I/O) over a file of delay_fs.py, whose
reads each take DELAY_S all at once, so that IOPS grow as depth / DELAY_S;
and a blkio throttle of the loop device at CAP_IOPS reads a second for the
cgroup fio runs in, so that IOPS stop there and latency grows with the queue
beyond (Little's law).  The knee is then at the first depth where
depth x IOPS(depth 1) reaches CAP_IOPS; the test accepts one step either
side, since on a shared machine depth 1 is a little slower than DELAY_S
says.  The rates are low (at most CAP_IOPS), so a busy machine does not
move them.

Skipped (77) without root, /dev/fuse, a free loop device with direct I/O or
the cgroup v1 blkio throttle.
"""
import json
import os
import subprocess
import sys

import harness as H
from harness import check, check_eq
from delay_fs import DelayFs

DELAY_S = 0.02   # IOPS(1) = 50
CAP_IOPS = 300   # the knee: 300 / 50 = 6, so iodepth 8
DEPTHS = [1, 2, 4, 8, 16, 32, 64]
SIZE = 64 << 20
BLKIO = '/sys/fs/cgroup/blkio'


def skip(why):
    print('skipped:', why, file=sys.stderr)
    return H.SKIPPED


def expected_knee(iops1):
    """The first depth at which depth x IOPS(1) reaches the cap."""
    for d in DEPTHS:
        if d * iops1 >= CAP_IOPS:
            return d
    return None


def test(tmp, run, analyze):
    if os.geteuid() != 0:
        return skip('not root')
    if not os.path.exists(os.path.join(BLKIO, 'blkio.throttle.read_iops_device')):
        return skip('no cgroup v1 blkio throttle at ' + BLKIO)
    mnt = os.path.join(tmp, 'fuse')
    os.mkdir(mnt)
    try:
        fs = DelayFs(mnt, SIZE, DELAY_S)
    except OSError as e:
        return skip(str(e))
    loop = cg = None
    try:
        p = subprocess.run(['losetup', '-f', '--show', '--direct-io=on',
                            os.path.join(mnt, 'f')], capture_output=True, text=True)
        if p.returncode != 0:
            return skip('losetup: ' + p.stderr.strip())
        loop = p.stdout.strip()
        with open('/sys/block/%s/loop/dio' % os.path.basename(loop)) as f:
            if f.read().strip() != '1':
                return skip('%s: no direct I/O over a FUSE file' % loop)
        with open('/sys/block/%s/dev' % os.path.basename(loop)) as f:
            devno = f.read().strip()
        cg = os.path.join(BLKIO, 'fiocamp-test-saturation-%d' % os.getpid())
        os.mkdir(cg)
        with open(os.path.join(cg, 'blkio.throttle.read_iops_device'), 'w') as f:
            f.write('%s %d\n' % (devno, CAP_IOPS))

        ini = os.path.join(tmp, 'sat.ini')
        H.write(ini, '[campaign]\nname = saturation\nsuite = rr4k\n'
                'sweep = iodepth=%s\nrounds = 2\npause = 0s\ntarget = local\n'
                'variants = slow\nsize = %d\nruntime = 2s\nprefill = no\n'
                'disturbed = off\n\n'
                '[variant slow]\nfilename = %s\ndestructive = yes\n\n[state basis]\n'
                % (','.join(map(str, DEPTHS)), SIZE, loop))
        procs = os.path.join(cg, 'cgroup.procs')

        def into_cgroup():
            with open(procs, 'w') as f:
                f.write('%d\n' % os.getpid())
        d = os.path.join(tmp, 'camp')
        p = subprocess.run([run, '-q', '-o', d, ini], cwd=tmp, env=H.env_for_run(None),
                           capture_output=True, text=True, timeout=240,
                           preexec_fn=into_cgroup)
        check_eq(p.returncode, 0, 'the campaign: ' + p.stderr[-1500:])
        if p.returncode != 0:
            return None
        p = subprocess.run([analyze, '--json', d], capture_output=True, text=True)
        check(p.returncode in (0, 1), 'fiocamp-analyze --json: ' + p.stderr[-800:])
        doc = json.loads(p.stdout)
        sweeps = doc.get('sweeps') or []
        check_eq([s['options'] for s in sweeps], [['iodepth']], 'one sweep, of iodepth')
        if not sweeps:
            return None
        s = sweeps[0]
        iops = {int(pt['point']['iodepth']): pt['columns'][0]['iops']['median']
                for pt in s['points']}
        p99 = {int(pt['point']['iodepth']): pt['columns'][0]['p99_us']['median']
               for pt in s['points']}
        curve = ', '.join('%d: %.0f IOPS p99 %.0f us' % (k, iops[k], p99[k]) for k in DEPTHS)
        print('the curve:', curve, file=sys.stderr)
        # the device is the one described: linear at first, capped at the end
        check(0.5 / DELAY_S < iops[1] <= 1.05 / DELAY_S, 'IOPS at depth 1: ' + curve)
        check(CAP_IOPS * 0.9 < iops[64] <= CAP_IOPS * 1.1, 'IOPS at depth 64: ' + curve)
        knee = expected_knee(iops[1])
        sat = s['saturation'][0]['lines'][0]
        print('the analysis:', s['saturation'][0]['text'], file=sys.stderr)
        check(sat['reached'] is True, 'a saturation point: %r; %s' % (sat, curve))
        if knee and sat.get('iodepth'):
            i, k = DEPTHS.index(int(sat['iodepth'])), DEPTHS.index(knee)
            check(abs(i - k) <= 1, 'saturation at iodepth %s, the knee at %d: %s'
                  % (sat['iodepth'], knee, curve))
        check('Saturation point: iodepth %s ' % sat.get('iodepth') in
              s['saturation'][0]['text'], 'the sentence: ' + s['saturation'][0]['text'])
    finally:
        if loop:
            subprocess.run(['losetup', '-d', loop])
        fs.stop()
        if cg:
            os.rmdir(cg)
    return None


def main():
    run, analyze = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    H.BIN = run
    with H.scratch('fiocamp-saturation.') as tmp:
        if test(tmp, run, analyze) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
