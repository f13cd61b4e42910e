#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Variants and sizes in a campaign (issue 13): fiocamp-run end to end with
real fio on small files, and fiocamp-analyze on what it wrote.

usage: test-variants.py AREA FIOCAMP_RUN FIOCAMP_ANALYZE

Each AREA is its own meson test.  Two variants live in two local directories,
one on tmpfs (/dev/shm) when there is one.  Runtimes are 1 s, test files 8 MiB.
The helpers are tests/harness.py's.  Exit 77 = skipped.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import harness as H
from harness import check, check_eq
ANALYZE = None
SHM = '/dev/shm'


def places(tmp):
    """Two directories: one below tmp, one on tmpfs when there is one."""
    disk = os.path.join(tmp, 'disk')
    if os.path.isdir(SHM) and os.access(SHM, os.W_OK):
        other = tempfile.mkdtemp(prefix='fiocamp-variants.', dir=SHM)
    else:
        other = os.path.join(tmp, 'other')
    return disk, other


def variants_ini(tmp, name, disk, other, extra='', rounds=3, suite='rw4k rr4k',
                 size='8M', variant_extra=('', ''), runtime='1s'):
    text = ('[campaign]\n'
            'suite     = %s\n'
            'rounds    = %d\n'
            'runtime   = %s\n'
            'size      = %s\n'
            'ioengine  = psync\n'
            'direct    = 0\n'
            'variants  = disk shm\n'
            '%s\n'
            '[variant disk]\n'
            'directory = %s\n'
            '%s\n'
            '[variant shm]\n'
            'directory = %s\n'
            '%s\n'
            '[state basis]\n') % (suite, rounds, runtime, size, extra, disk, variant_extra[0],
                                  other, variant_extra[1])
    path = os.path.join(tmp, name)
    H.write(path, text)
    return path


def order_of(events):
    """(round, variant) of each fio-start of the suite, in journal order."""
    return [(e['round'], e['variant']) for e in events
            if e['event'] == 'fio-start' and 'round' in e and e.get('test') == 'rw4k']


def analyze(args, cwd):
    p = subprocess.run([ANALYZE] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# ---------------------------------------------------------------------------

def test_e2e(tmp):
    disk, other = places(tmp)
    marker = os.path.join(tmp, 'before-disk.txt')
    ini = variants_ini(tmp, 'two.ini', disk, other, extra='prefill = yes\npause = 0s\nkeep-file = yes\n',
                       variant_extra=('before = run sh -c "echo ran >> %s"' % marker, ''))
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-q', '-o', d, ini], tmp)
    check_eq(rc, 0, 'two variants run: ' + err)
    m = H.load_manifest(d)
    check_eq(m['status'], 'done', 'campaign status')
    check_eq(m['settings'].get('order'), 'interleaved', 'settings.order')
    check(m['settings'].get('directory') is None, 'no campaign directory with variants')
    check_eq([v['name'] for v in m['variants']], ['disk', 'shm'], 'manifest variants')
    check_eq(m['variants'][0]['test_file'], os.path.join(disk, 'fiocamp.testfile'),
             'test file of disk')
    check_eq(m['prefill'], None, 'no campaign-wide prefill with variants')
    for v in m['variants']:
        check_eq(v['prefill']['status'], 'done', 'prefill of %s' % v['name'])
        check(os.path.isfile(os.path.join(d, 'prefill', 'variant-%s.json' % v['name'])),
              'prefill report of %s' % v['name'])
    check(os.path.getsize(os.path.join(other, 'fiocamp.testfile')) == 8 << 20,
          'the tmpfs variant has its own 8 MiB test file')
    st = m['states'][0]
    # the variant's before ran once in the state, not once per round
    with open(marker) as f:
        check_eq(f.read(), 'ran\n', 'before of variant disk ran once')
    check_eq(st['variants'][0]['before'][0]['status'], 'done', 'before recorded')
    expect = [['disk', 'shm'], ['shm', 'disk'], ['disk', 'shm']]
    for r, ro in enumerate(st['rounds']):
        check_eq(ro['status'], 'done', 'round %d' % (r + 1))
        check_eq([e['variant'] for e in ro['order']], expect[r], 'order of round %d' % (r + 1))
        check_eq([(t['variant'], t['test']) for t in ro['tests']],
                 [(v, t) for v in expect[r] for t in ('rw4k', 'rr4k')],
                 'tests of round %d in the order run' % (r + 1))
        for t in ro['tests']:
            check_eq(t['json'], 'basis/r%d/%s/%s.json' % (r + 1, t['variant'], t['test']),
                     'layout <state>/r<N>/<variant>/<test>.json')
            check_eq(t['size'], '8M', 'size of a test')
            check(os.path.isfile(os.path.join(d, t['json'])), t['json'] + ' exists')
            with open(os.path.join(d, t['json'].replace('.json', '.env'))) as f:
                env = f.read()
            want = disk if t['variant'] == 'disk' else other
            check('FIOCAMP_FILE=%s/fiocamp.testfile\n' % want in env,
                  'the run used its variant\'s file: ' + t['json'])
    events = H.load_journal(d)
    check_eq(order_of(events), [(1, 'disk'), (1, 'shm'), (2, 'shm'), (2, 'disk'),
                                (3, 'disk'), (3, 'shm')], 'interleaved order in the journal')
    for e in events:
        if e['event'] in ('fio-start', 'fio-end'):
            check('variant' in e, 'a fio event names its variant: %r' % e)
    # fiocamp-analyze: both variants, side by side
    # (exit 1: per-second logs of 1 s runs may hold no full second; listed)
    rc, out, err = analyze(['--compare', d], tmp)
    check(rc in (0, 1), 'fiocamp-analyze --compare: ' + err)
    check('2 variants: disk (base' in out and 'shm' in out, 'analysis shows both: ' + out)
    rc, out, err = analyze(['--csv', 'summary', d], tmp)
    check(rc in (0, 1), 'fiocamp-analyze --csv summary')
    rows = [l for l in out.splitlines()[1:] if l]
    variants = {l.split(',')[0] for l in rows}
    hdr = out.splitlines()[0].split(',')
    if 'variant' in hdr:
        vi = hdr.index('variant')
        variants = {l.split(',')[vi] for l in rows}
        check_eq(variants, {'disk', 'shm'}, 'CSV rows of both variants')
    # --dry-run shows the order too
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 0, '--dry-run')
    check('round 2/3 -> basis/r2/, order shm disk' in out, 'dry-run order: ' + out)
    shutil.rmtree(other, ignore_errors=True)


def test_sequential(tmp):
    disk, other = places(tmp)
    ini = variants_ini(tmp, 'seq.ini', disk, other, extra='order = sequential\n', rounds=2,
                       suite='rw4k')
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-q', '-o', d, ini], tmp)
    check_eq(rc, 0, 'sequential run: ' + err)
    events = H.load_journal(d)
    check_eq(order_of(events), [(1, 'disk'), (2, 'disk'), (1, 'shm'), (2, 'shm')],
             'sequential order in the journal')
    m = H.load_manifest(d)
    check_eq(m['settings']['order'], 'sequential', 'settings.order')
    # done: each variant's test file is removed (keep-file = no)
    for where in (disk, other):
        check(not os.path.exists(os.path.join(where, 'fiocamp.testfile')),
              'test file removed in ' + where)
    ends = [e for e in H.load_journal(d) if e['event'] == 'test-file']
    check_eq(sorted((e['path'], e['status']) for e in ends),
             sorted([(os.path.join(disk, 'fiocamp.testfile'), 'removed'),
                     (os.path.join(other, 'fiocamp.testfile'), 'removed')]),
             'test-file events of both variants')
    for ro in m['states'][0]['rounds']:
        check_eq(ro['status'], 'done', 'round %d done' % ro['round'])
        check_eq([e['variant'] for e in ro['order']], ['disk', 'shm'], 'order recorded')
    # a repeated state: rep<k>/r<N>/<variant>/, the variant's before once per repetition
    marker = os.path.join(tmp, 'before-rep.txt')
    rini = variants_ini(tmp, 'rep.ini', disk, other, rounds=1, suite='rw4k',
                        variant_extra=('before = run sh -c "echo ran >> %s"' % marker, ''))
    H.write(rini, open(rini).read() + 'repeat = 2\n')
    rd = os.path.join(tmp, 'camp-rep')
    rc, out, err = H.run(['-q', '-o', rd, rini], tmp)
    check_eq(rc, 0, 'repeat with variants: ' + err)
    rm = H.load_manifest(rd)
    reps = rm['states'][0]['repetitions']
    check_eq([[t['json'] for t in r['rounds'][0]['tests']] for r in reps],
             [['basis/rep1/r1/disk/rw4k.json', 'basis/rep1/r1/shm/rw4k.json'],
              ['basis/rep2/r1/disk/rw4k.json', 'basis/rep2/r1/shm/rw4k.json']],
             'layout <state>/rep<k>/r<N>/<variant>/')
    with open(marker) as f:
        check_eq(f.read(), 'ran\nran\n', 'the variant\'s before ran once per repetition')
    for e in H.load_journal(rd):
        if e['event'] == 'fio-start' and 'round' in e:
            check('repetition' in e and 'variant' in e, 'fio event names both: %r' % e)
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check('order sequential' in out, 'dry-run says sequential')
    i1, i2 = out.find('round 2/2, variant disk'), out.find('round 1/2, variant shm')
    check(0 <= i1 < i2, 'dry-run: all rounds of disk before shm')
    shutil.rmtree(other, ignore_errors=True)


def test_resume(tmp):
    disk, other = places(tmp)
    # 2 s runs: the kill lands in the run it waits for on a loaded machine too
    ini = variants_ini(tmp, 'resume.ini', disk, other, extra='pause = 0s\n', rounds=2,
                       runtime='2s')
    d = os.path.join(tmp, 'camp')
    p = subprocess.Popen([H.BIN, '-q', '-o', d, ini], cwd=tmp, env=H.env_for_run(),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # round 2 runs shm, then disk: kill -9 while disk's first test runs
    e = H.wait_for_event(d, lambda e: e['event'] == 'fio-start' and e.get('round') == 2 and
                          e.get('variant') == 'disk' and e.get('test') == 'rw4k', p)
    check(e is not None, 'reached round 2, variant disk')
    check(H.wait_for(lambda: H.fio_at_work(H.fio_below(p.pid)), p), 'its fio runs its job')
    kids = H.children(p.pid)
    os.kill(p.pid, signal.SIGKILL)
    p.communicate()
    H.wait_gone(kids)
    m = H.load_manifest(d)
    ro = m['states'][0]['rounds'][1]
    check_eq(ro['status'], 'running', 'round 2 running at the kill')
    check_eq([(e['variant'], e['status']) for e in ro['order']],
             [('shm', 'done'), ('disk', 'running')], 'shm done, disk running')
    shm_before = {k: v for k, v in H.tree_sums(d).items() if k.startswith('basis/r2/shm/')}
    check(len(shm_before) >= 4, 'files of r2/shm kept: %r' % sorted(shm_before))
    rc, out, err = H.run(['-q', '--resume', d], tmp)
    check_eq(rc, 0, 'resume: ' + err)
    m = H.load_manifest(d)
    check_eq(m['status'], 'done', 'done after resume')
    ro = m['states'][0]['rounds'][1]
    check_eq(ro['status'], 'done', 'round 2 done')
    check_eq([(e['variant'], e['status']) for e in ro['order']],
             [('shm', 'done'), ('disk', 'done')], 'order kept')
    check_eq(ro['order'][1].get('moved_aside'), ['basis/r2/disk.interrupted-1'],
             'the cut-short variant moved aside')
    shm_after = {k: v for k, v in H.tree_sums(d).items() if k.startswith('basis/r2/shm/')}
    check_eq(shm_after, shm_before, 'the done variant of the round was not run again')
    check(os.path.isdir(os.path.join(d, 'basis/r2/disk.interrupted-1')), 'aside directory')
    events = H.load_journal(d)
    resumed = events[[i for i, e in enumerate(events) if e['event'] == 'resume'][0]:]
    check_eq(order_of(resumed), [(2, 'disk')], 'the resumed session ran only r2/disk')
    for t in ro['tests']:
        check_eq(t['status'], 'done', 'test %s/%s' % (t['variant'], t['test']))
    shutil.rmtree(other, ignore_errors=True)


def test_sizes(tmp):
    # sizes alone: no variants, two sizes
    target = os.path.join(tmp, 'target')
    ini = os.path.join(tmp, 'sizes.ini')
    H.write(ini, ('[campaign]\nsuite = rr4k\nrounds = 2\nruntime = 1s\nsize = 8M 16M\n'
                   'directory = %s\nioengine = psync\ndirect = 0\n[state basis]\n') % target)
    d = os.path.join(tmp, 'camp')
    rc, out, err = H.run(['-o', d, ini], tmp)
    check_eq(rc, 0, 'two sizes: ' + err)
    # the end table without fiocamp-analyze: a row per size, each of its
    # own 2 rounds, never the two sizes pooled
    rows = [l.split() for l in out.splitlines() if l.startswith('basis ')]
    check_eq([r[:4] for r in rows], [['basis', '8M', 'rr4k', '2'], ['basis', '16M', 'rr4k', '2']],
             'the built-in end table:\n%s' % out[-1500:])
    check(re.search(r'^state +size +test +rounds', out, re.M), 'its header:\n%s' % out[-1500:])
    m = H.load_manifest(d)
    ro = m['states'][0]['rounds']
    check_eq([e['size'] for e in ro[0]['order']], ['8M', '16M'], 'round 1 order of sizes')
    check_eq([e['size'] for e in ro[1]['order']], ['16M', '8M'], 'round 2 rotates')
    for r in ro:
        for t in r['tests']:
            check_eq(t['json'], 'basis/r%d/%s/rr4k.json' % (r['round'], t['size']),
                     'layout <state>/r<N>/<size>/<test>.json')
            check('variant' not in t, 'no variant without variants')
            with open(os.path.join(d, t['json'])) as f:
                doc = json.load(f)
            want = 8 << 20 if t['size'] == '8M' else 16 << 20
            check_eq(int(doc['global options']['size']), want, 'fio ran the size')
    # the analyzer keeps sizes apart: its workload key has the size
    rc, out, err = analyze(['--csv', 'summary', d], tmp)
    check(rc in (0, 1), 'analyze sizes: ' + err)
    hdr = out.splitlines()[0].split(',')
    rows = [dict(zip(hdr, l.split(','))) for l in out.splitlines()[1:] if l]
    tests = {r['test'] for r in rows}
    check_eq(tests, {'rr4k size=8m', 'rr4k size=16m'}, 'one test per size')
    runs = {r['test']: r['n'] for r in rows if r['metric'] == 'iops'}
    check_eq(runs, {'rr4k size=8m': '2', 'rr4k size=16m': '2'}, 'each size 2 runs, not pooled')
    # variants and sizes combined: <state>/r<N>/<variant>/<size>/
    disk, other = places(tmp)
    ini = variants_ini(tmp, 'vs.ini', disk, other, rounds=1, suite='rr4k',
                       variant_extra=('size = 8M 16M', ''))
    d = os.path.join(tmp, 'camp2')
    rc, out, err = H.run(['-q', '-o', d, ini], tmp)
    check_eq(rc, 0, 'variants with sizes: ' + err)
    m = H.load_manifest(d)
    got = [t['json'] for t in m['states'][0]['rounds'][0]['tests']]
    check_eq(got, ['basis/r1/disk/8M/rr4k.json', 'basis/r1/disk/16M/rr4k.json',
                   'basis/r1/shm/8M/rr4k.json'], 'variant x size layout')
    shutil.rmtree(other, ignore_errors=True)


def mounted_block_device():
    """A block device of a mounted file system, from /proc/self/mountinfo."""
    with open('/proc/self/mountinfo') as f:
        for line in f:
            fields = line.split()
            src = fields[fields.index('-') + 2]
            if src.startswith('/dev/') and os.path.exists(src):
                import stat
                if stat.S_ISBLK(os.stat(src).st_mode):
                    return src, fields[4]
    return None, None


def test_refuse(tmp):
    disk, other = places(tmp)
    # a raw device without destructive = yes: refused while the file is read
    ini = os.path.join(tmp, 'raw.ini')
    H.write(ini, '[campaign]\nsuite = rw4k\nsize = 8M\nvariants = raw\n'
                  '[variant raw]\nfilename = /dev/loop7\n[state s]\n')
    rc, out, err = H.run(['--dry-run', ini], tmp)
    check_eq(rc, 2, 'raw device without destructive refused')
    check('raw.ini:6: [variant raw]: filename = /dev/loop7 writes over the device; refused '
          'unless the section says destructive = yes' in err, 'message: ' + err)
    # a mounted device, with destructive = yes: refused in the preflight
    dev, mnt = mounted_block_device()
    if dev:
        ini = os.path.join(tmp, 'mounted.ini')
        H.write(ini, ('[campaign]\nsuite = rw4k\nsize = 8M\nruntime = 1s\n'
                       'variants = raw\n[variant raw]\nfilename = %s\ndestructive = yes\n'
                       '[state s]\n') % dev)
        d = os.path.join(tmp, 'camp-mounted')
        rc, out, err = H.run(['-q', '-o', d, ini], tmp)
        check(rc != 0, 'a mounted device is refused')
        check('variant raw: %s is mounted on %s: refused' % (dev, mnt) in err,
              'mounted message: ' + err)
        m = H.load_manifest(d)
        check_eq(m['states'][0]['rounds'][0]['status'], 'pending', 'nothing ran')
        check(not any(e['event'] == 'fio-start' for e in H.load_journal(d)), 'no fio')
    else:
        print('no mounted block device here: the mount refusal is not run', file=sys.stderr)
    # a regular file as filename
    plain = os.path.join(tmp, 'plain')
    H.write(plain, '')
    ini = os.path.join(tmp, 'plain.ini')
    H.write(ini, ('[campaign]\nsuite = rw4k\nsize = 8M\nvariants = raw\n[variant raw]\n'
                   'filename = %s\ndestructive = yes\n[state s]\n') % plain)
    rc, out, err = H.run(['-q', '-o', os.path.join(tmp, 'camp-plain'), ini], tmp)
    check(rc != 0 and 'variant raw: %s is not a block device' % plain in err,
          'regular file refused: ' + err)
    # a variant whose before fails: its part of the round fails, its tests are
    # skipped; --keep-going runs the other variant
    ini = variants_ini(tmp, 'fails.ini', disk, other, rounds=1, suite='rw4k',
                       variant_extra=('before = run false', ''))
    d = os.path.join(tmp, 'camp-fails')
    rc, out, err = H.run(['-q', '--keep-going', '-o', d, ini], tmp)
    check_eq(rc, 1, 'a failed variant before fails the campaign: ' + err)
    m = H.load_manifest(d)
    st = m['states'][0]
    check_eq(st['variants'][0]['status'], 'failed', 'the variant\'s preparation failed')
    check_eq(st['variants'][0]['before'][0]['status'], 'failed', 'its action failed')
    ro = st['rounds'][0]
    check_eq([(e['variant'], e['status']) for e in ro['order']],
             [('disk', 'failed'), ('shm', 'done')], 'keep-going ran shm')
    check_eq([t['status'] for t in ro['tests']], ['skipped', 'done'], 'disk\'s test skipped')
    check_eq(ro['status'], 'failed', 'the round failed')
    # without --keep-going the campaign stops there: the other variant's part
    # of the round and its tests are skipped, not left pending
    d = os.path.join(tmp, 'camp-stops')
    rc, out, err = H.run(['-q', '-o', d, ini], tmp)
    check_eq(rc, 1, 'a failed variant before stops the campaign: ' + err)
    ro = H.load_manifest(d)['states'][0]['rounds'][0]
    check_eq([(e['variant'], e['status']) for e in ro['order']],
             [('disk', 'failed'), ('shm', 'skipped')], 'the order after the failure')
    check_eq([t['status'] for t in ro['tests']], ['skipped', 'skipped'],
             'no test left pending')
    # file:line errors of the sections
    bad = os.path.join(tmp, 'bad.ini')
    H.write(bad, ('[campaign]\nsuite = rw4k\nsize = 8M\nvariants = a b a\n'
                   'order = sideways\ndirectory = /tmp/x\n'
                   '[variant a]\ndirectory = %s\nfilename = /dev/null\n'
                   'before = power-off\n'
                   '[variant c]\ndirectory = %s\n'
                   '[variant bad/name]\n[state s]\n') % (disk, other))
    rc, out, err = H.run(['--dry-run', bad], tmp)
    check_eq(rc, 2, 'bad variants refused')
    for want in ("bad.ini:4: variant 'a' is listed twice",
                 "bad.ini:5: bad order 'sideways' (expected interleaved or sequential)",
                 "bad.ini:6: 'directory' is not used with variants",
                 "bad.ini:9: [variant a] needs either 'directory'",
                 "bad.ini:10: 'power-off' cannot be in a variant's before",
                 "bad.ini:11: [variant c] is not listed in 'variants' of [campaign]",
                 "bad.ini:13: bad variant name 'bad/name'",
                 "bad.ini:4: variant 'b' has no [variant b] section"):
        check(want in err, 'message %r in: %s' % (want, err))
    shutil.rmtree(other, ignore_errors=True)


def test_backends(tmp):
    """fio-jobs/backends.ini passes --dry-run with its placeholders filled."""
    src = os.path.join(H.SRCDIR, 'fio-jobs', 'backends.ini')
    with open(src) as f:
        text = f.read()
    disk, other = places(tmp)
    dirs = {'zvol': disk, 'raw': os.path.join(tmp, 'raw'), 'image': other,
            'ccd': os.path.join(tmp, 'ccd'), 'lvm': os.path.join(tmp, 'lvm')}
    filled = text.replace('ssh root@guest.example.net', 'local')
    for name, where in dirs.items():
        filled = filled.replace('/mnt/%s' % name, where)
    ini = os.path.join(tmp, 'backends.ini')
    H.write(ini, filled)
    rc, out, err = H.run(['--dry-run', '--jobs-dir', os.path.join(H.SRCDIR, 'fio-jobs'),
                           ini], tmp)
    check_eq(rc, 0, 'backends.ini --dry-run: ' + err)
    for name, where in dirs.items():
        check('variant %s: test file %s/fiocamp.testfile, size 16G 32G 400G' % (name, where)
              in out, '%s variant: %s' % (name, out[:2000]))
    check('round 2/3 -> basis/r2/, order raw/16G raw/32G' in out, 'rotation over the units')
    check('order interleaved' in out, 'interleaved by default')
    for job in ('bon_write', 'bon_rewrite', 'bon_read', 'bon_seeks'):
        check('  %s ' % job in out, 'job %s in the plan' % job)
    shutil.rmtree(other, ignore_errors=True)


def test_ssh(tmp):
    """Two variants on an ssh target (an sshd on 127.0.0.1); the device check
    runs on the remote side."""
    started = H.start_sshd(tmp)
    if started is None:
        print('sshd or ssh missing: skipped')
        return 77
    proc, port, _, opts = started
    try:
        user = subprocess.run(['id', '-un'], capture_output=True, text=True).stdout.strip()
        disk, other = places(tmp)
        ini = variants_ini(tmp, 'ssh.ini', disk, other, rounds=2, suite='rw4k',
                           extra='prefill = yes\nkeep-file = yes\n'
                           'target = ssh %s@127.0.0.1:%d\n' % (user, port))
        d = os.path.join(tmp, 'camp')
        env = {'FIOCAMP_SSH_OPTS': opts}
        rc, out, err = H.run(['-q', '-o', d, ini], tmp, env)
        check_eq(rc, 0, 'variants over ssh: ' + err[-2000:])
        m = H.load_manifest(d)
        check_eq(m['status'], 'done', 'status')
        check_eq(order_of(H.load_journal(d)), [(1, 'disk'), (1, 'shm'), (2, 'shm'),
                                                (2, 'disk')], 'order over ssh')
        for where in (disk, other):
            check_eq(os.path.getsize(os.path.join(where, 'fiocamp.testfile')), 8 << 20,
                     'remote test file of ' + where)
        for ro in m['states'][0]['rounds']:
            for t in ro['tests']:
                check(os.path.isfile(os.path.join(d, t['json'])), 'copied back: ' + t['json'])
                check_eq(len(t['logs']), 2, 'logs copied back: %r' % t['logs'])
        dev, mnt = mounted_block_device()
        if dev:
            ini = os.path.join(tmp, 'mounted.ini')
            H.write(ini, ('[campaign]\nsuite = rw4k\nsize = 8M\nruntime = 1s\n'
                           'target = ssh %s@127.0.0.1:%d\nvariants = raw\n[variant raw]\n'
                           'filename = %s\ndestructive = yes\n[state s]\n') % (user, port, dev))
            rc, out, err = H.run(['-q', '-o', os.path.join(tmp, 'camp-m'), ini], tmp, env)
            check(rc != 0 and 'variant raw: %s is mounted on %s: refused' % (dev, mnt) in err,
                  'mounted device refused over ssh: ' + err)
        shutil.rmtree(other, ignore_errors=True)
    finally:
        proc.terminate()
        proc.wait()


AREAS = {
    'e2e': test_e2e,
    'sequential': test_sequential,
    'resume': test_resume,
    'sizes': test_sizes,
    'refuse': test_refuse,
    'backends': test_backends,
    'ssh': test_ssh,
}


def main():
    global ANALYZE
    area = sys.argv[1]
    H.BIN, ANALYZE = os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    with H.scratch('fiocamp-variants-%s.' % area) as tmp:
        if AREAS[area](tmp) == H.SKIPPED:
            sys.exit(H.SKIPPED)
    sys.exit(H.summary())


if __name__ == '__main__':
    main()
