#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every line of --help fits an 80-column terminal, in every program and
subcommand that has one.

usage: test-help-width.py FIOCAMP_RUN FIOCAMP_ANALYZE
"""
import subprocess
import sys
import unicodedata

WIDTH = 80


def columns(line):
    """Terminal columns of `line`: wide characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in 'WF' else 1 for ch in line)


def help_problems(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=30)
    if p.returncode != 0:
        return ['%s: exit status %d: %s' % (' '.join(argv), p.returncode,
                                            p.stderr.decode(errors='replace'))]
    text = p.stdout.decode()
    lines = text.splitlines()
    if len(lines) < 3:
        return ['%s: no help text: %r' % (' '.join(argv), text)]
    return ['%s, line %d: %d columns: %s' % (' '.join(argv), i + 1, columns(l), l)
            for i, l in enumerate(lines) if columns(l) > WIDTH or '\t' in l]


def main():
    run, analyze = sys.argv[1], sys.argv[2]
    problems = []
    for argv in ([run, '--help'], [run, 'netcup-login', '--help'], [analyze, '--help']):
        problems += help_problems(argv)
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print('ok: --help fits %d columns' % WIDTH)


if __name__ == '__main__':
    main()
