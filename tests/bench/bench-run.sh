#!/usr/bin/env bash
# Inter-run overhead of fiocamp-run: the time between the end of one fio run
# and the start of the next, beyond the configured pause, measured from the
# monotonic timestamps of journal.jsonl (fio-end -> next fio-start).  Tiny
# runs (1 s, 8 MiB file) so that the controller's own work dominates.
#
# usage: tests/bench/bench-run.sh [BUILD_DIR]
#   BUILD_DIR defaults to build-rel, configured with --buildtype=release
#   if missing.  Target: <= 50 ms per gap.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-rel}
[ -d "$build" ] || meson setup "$build" "$src" --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
bin=$build/cmd/run/fiocamp-run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiocamp-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/bench.ini" <<INI
[campaign]
name      = bench
suite     = rr4k rw4k lat4k
rounds    = 4
pause     = 1s
target    = local
directory = $tmp/target
size      = 8M
runtime   = 1s
prefill   = yes

[state a]

[state b]
INI

FIOCAMP_ANALYZE=builtin "$bin" -q -o "$tmp/camp" "$tmp/bench.ini"

python3 - "$tmp/camp" <<'PY'
import json, os, statistics, sys
d = sys.argv[1]
VERBOSE = 'FIOCAMP_BENCH_VERBOSE' in os.environ  # one line per gap
ev = [json.loads(l) for l in open(d + '/journal.jsonl')]
m = json.load(open(d + '/manifest.json'))
pause = m['settings']['pause_s']
gaps = []
last_end = None
paused = False
for e in ev:
    if e['event'] == 'fio-end':
        last_end = e
        paused = False
    elif e['event'] == 'pause':
        paused = True
    elif e['event'] in ('state-start', 'action-start'):
        last_end = None   # between states other work may run; not counted
    elif e['event'] == 'fio-start' and last_end is not None:
        gap = e['mono'] - last_end['mono'] - (pause if paused else 0)
        gaps.append(gap * 1000)
        if VERBOSE:
            print('%-4s r%d %-6s %6.1f ms%s' % (e['state'], e['round'], e['test'], gap * 1000,
                                                ' after a pause' if paused else ''))
gaps.sort()
print('fio runs: %d, gaps measured: %d (within rounds and across pauses of %gs)'
      % (sum(1 for e in ev if e['event'] == 'fio-end'), len(gaps), pause))
print('inter-run overhead beyond the pause: median %.1f ms, mean %.1f ms, max %.1f ms'
      % (statistics.median(gaps), statistics.mean(gaps), max(gaps)))
print('target <= 50 ms: %s' % ('met' if max(gaps) <= 50 else 'NOT met'))
PY
