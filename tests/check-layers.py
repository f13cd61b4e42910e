#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks that the #include lines of a program's sources go the way its
README says: only downwards through its layers.

usage: check-layers.py README.md

The README, in the folder of the sources, states the layers in a fenced
block whose info string is "layers", top to bottom, one layer a line:

    ```layers
    main.c cli/       the command line
    write/            the writers
    model/            the model
    an.h error.c      the conventions
    ```

A line names folders (with a trailing "/") and files of the top folder,
separated by single blanks; two or more blanks start a comment.  A file may
include the files of its own line and of the lines below it, never of a
line above it.  Every .c and .h file below the README's folder must belong
to a line, and every name of a line must exist.  An include is resolved as
the compiler does with the tool's folder on the include path: next to the
including file first, then from the tool's folder; includes that resolve
to nothing there (system headers, other libraries, common/) are not
checked.

Exit status 0 when the includes follow the layers; 1 with a line
"file:line: ..." for each one that does not (and for each file no layer
holds); 2 for a README without a layers block.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(readme):
    """[(line number, [names])] of the README's layers block, top first."""
    layers, inside = [], False
    with open(readme, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            text = line.rstrip('\n')
            if not inside and re.match(r'^\s*```\s*layers\s*$', text):
                inside = True
                continue
            if inside and re.match(r'^\s*```\s*$', text):
                return layers
            if inside and text.strip():
                names = re.split(r'\s{2,}', text.strip(), maxsplit=1)[0].split()
                layers.append((number, names))
    return None if not inside else layers


def sources(root):
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(('.c', '.h')):
                yield os.path.relpath(os.path.join(folder, name), root)


def entry_of(rel):
    """The name a layer gives the file: its first folder, or itself."""
    parts = rel.split(os.sep)
    return parts[0] + '/' if len(parts) > 1 else parts[0]


def resolve(root, rel, target):
    """The included file as a path below root, or None when it is not one."""
    for base in (os.path.dirname(os.path.join(root, rel)), root):
        path = os.path.normpath(os.path.join(base, target))
        inside = os.path.relpath(path, root)
        if os.path.isfile(path) and not inside.startswith('..'):
            return inside
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.split('\n\n')[1], file=sys.stderr)
        return 2
    readme = sys.argv[1]
    root = os.path.dirname(os.path.abspath(readme))
    layers = read_layers(readme)
    if not layers:
        print('%s: no ```layers block (see tests/check-layers.py)' % readme, file=sys.stderr)
        return 2
    index, problems = {}, []
    for depth, (number, names) in enumerate(layers):
        for name in names:
            where = os.path.join(root, name.rstrip('/'))
            exists = os.path.isdir(where) if name.endswith('/') else os.path.isfile(where)
            if not exists:
                problems.append('%s:%d: %s: no such %s' %
                                (readme, number, name,
                                 'folder' if name.endswith('/') else 'file'))
            index[name] = (depth, number)
    files = list(sources(root))
    for rel in files:
        own = index.get(entry_of(rel))
        if own is None:
            problems.append('%s: in no layer of %s' % (os.path.join(root, rel), readme))
            continue
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(root, rel, m.group(1))
                if target is None:
                    continue
                theirs = index.get(entry_of(target))
                if theirs is None or theirs[0] >= own[0]:
                    continue
                problems.append(
                    '%s:%d: #include "%s": %s is above %s (%s:%d, %s:%d)' %
                    (os.path.join(root, rel), number, m.group(1), entry_of(target),
                     entry_of(rel), readme, theirs[1], readme, own[1]))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        return 1
    print('ok: %d files, %d layers, every #include downwards' % (len(files), len(layers)))
    return 0


if __name__ == '__main__':
    sys.exit(main())
