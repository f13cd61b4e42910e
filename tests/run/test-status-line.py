#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""fiocamp-run's status line on a terminal: a real campaign (real fio, 2 s
runs, since fio reports its rate once a second and a 1 s run shows none;
an 8 MiB file) under a pseudo-terminal of 60 and of 120 columns, the two at
the same time (each in a directory of its own).

What is checked, from the bytes the terminal got:
- no status line is left on the screen: each one is erased before any other
  output (an event line, the table at the end) and at the end, so nothing
  is glued to it ("... r=113k IOPScampaign local ...");
- every drawing fits the terminal; on the narrow one the state's name is
  shortened, and the test, the ETA and fio's rate are still there;
- the ETA counts what is left of a pause and of a settle;
- the round counts are the state's own, with its repetition when it repeats,
  and the range of rounds a state of rounds = until-steady may end with.

usage: test-status-line.py FIOCAMP_RUN
"""
import os
import re
import sys
import threading
import traceback

import harness as H
from harness import check

STATE = 'snapshot-after-a-long-while'  # long, so that 60 columns must shorten it
TEST = 'rr4k'


def clock_s(text):
    parts = [int(x) for x in text.split(':')]
    s = 0
    for x in parts:
        s = s * 60 + x
    return s


def campaign(tmp):
    ini = os.path.join(tmp, 'tty.ini')
    with open(ini, 'w') as f:
        f.write('''[campaign]
name      = tty
suite     = %s
rounds    = 1
pause     = 4s
target    = local
directory = %s
size      = 8M
runtime   = 2s

[state basis]
before = settle 4s

[state steady]
rounds = until-steady 3
steady-window = 2

[state %s]
rounds = 2
repeat = 2
''' % (TEST, os.path.join(tmp, 'target'), STATE))
    return ini


def check_run(binary, tmp, cols):
    ini = campaign(tmp)
    out_dir = os.path.join(tmp, 'camp-%d' % cols)
    rc, text = H.run_in_pty([binary, '-o', out_dir, ini], tmp, cols)
    what = '%d columns' % cols
    check(rc == 0, '%s: exit status %d:\n%s' % (what, rc, text[-2000:]))
    lines, last = H.screen(text)
    draws = H.drawings(text)
    check(len(draws) >= 5, '%s: only %d status lines drawn' % (what, len(draws)))

    # nothing glued: no line on the screen still holds a status line
    for line in lines + [last]:
        check(' | ETA ' not in line and 'ETA 0:' not in line,
              '%s: a status line was left on the screen: %r' % (what, line))
    check(last == '', '%s: the cursor ends on a line that is not empty: %r' % (what, last))
    check(any(l.startswith('campaign tty done in ') for l in lines),
          '%s: no "campaign tty done" line of its own' % what)
    check(any(l.startswith('state ') and 'median IOPS' in l for l in lines),
          '%s: the table at the end does not start on a line of its own' % what)

    # every drawing fits; inside a round the test and the ETA are there
    for d in draws:
        check(len(d) <= cols - 1, '%s: %d columns drawn: %r' % (what, len(d), d))
    in_round = [d for d in draws if re.search(r'\| ' + TEST + r' \|', d)]
    check(in_round, '%s: no status line of a fio run' % what)
    for d in in_round:
        check(re.search(r'ETA \d+:\d\d', d), '%s: no ETA in %r' % (what, d))
    rated = [d for d in in_round if 'IOPS' in d]
    check(rated, '%s: fio\'s rate never shown: %r' % (what, in_round[:5]))
    for d in rated:
        check(d.endswith('IOPS'), '%s: the rate is cut: %r' % (what, d))
    named = [d for d in draws if STATE[:3] in d]
    if cols >= 120:
        check(named and all(STATE in d for d in named),
              '%s: the state name was shortened: %r' % (what, named[:3]))
    else:
        check(named and all(STATE not in d and '…' in d for d in named),
              '%s: the state name was not shortened: %r' % (what, named[:3]))

    # a state's own rounds, and its repetition when it repeats
    wide = cols >= 120
    check(any(re.search(r'basis \| round 1/1 \|' if wide else r'basis r1/1 ', d) for d in draws),
          '%s: basis has its own 1 round: %r' % (what, draws[:4]))
    # until steady: the rounds it may end with, not the most
    want = 'steady | round 1/2-3 |' if wide else 'steady r1/2-3 '
    check(any(want in d for d in draws), '%s: no %r in %r' % (what, want, draws[:12]))
    for k in (1, 2):
        want = ('repetition %d/2, round 2/2 |' if wide else 'rep%d/2 r2/2 ') % k
        check(any(want in d for d in named), '%s: no %r in %r' % (what, want, named[-6:]))

    # the ETA counts what is left of a pause or a settle: while one runs, the
    # ETA goes down with it (what comes after it stays the same)
    waits = {}
    for d in draws:
        m = re.search(r'(pause \S+|settle) \((\d+)s left\)', d)
        e = re.search(r'ETA (\d+(?::\d\d)+)', d)
        if not m or not e:
            continue
        left, eta = int(m[2]), clock_s(e[1])
        check(eta >= left, '%s: ETA %ds while %ds of a wait are left: %r'
              % (what, eta, left, d))
        waits.setdefault(m[1], {})[left] = eta - left
    check(len(waits) >= 2, '%s: no pause and settle seen on the status line: %r'
          % (what, waits))
    for label, after in waits.items():
        check(len(after) >= 3 and max(after.values()) - min(after.values()) <= 1,
              '%s: during %s the ETA does not go down with it (left: ETA - left): %r'
              % (what, label, after))


def check_run_caught(binary, tmp, cols):
    try:
        check_run(binary, tmp, cols)
    except Exception:
        check(False, '%d columns raised:\n%s' % (cols, traceback.format_exc()))


def main():
    binary = os.path.abspath(sys.argv[1])
    with H.scratch('fc-tty-') as tmp:
        runs = []
        for cols in (60, 120):
            own = os.path.join(tmp, str(cols))
            os.mkdir(own)
            runs.append(threading.Thread(target=check_run_caught, args=(binary, own, cols)))
        for t in runs:
            t.start()
        for t in runs:
            t.join()
    sys.exit(H.summary(': the status line on terminals of 60 and 120 columns'))


if __name__ == '__main__':
    main()
