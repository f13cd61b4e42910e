#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The gap between two fio runs of fiocamp-run as the target sees it: from
# the moment one fio process calls exit_group until the next fio process has
# finished its execve.  Observed by the kernel's tracepoints (perf record:
# syscalls:sys_enter_exit_group, sched:sched_process_exec), which stop no
# process, so the gap holds everything between two runs and nothing more:
# fio's exit, reaping it, reading and judging its report, the journal and
# the manifest, fork and exec.  The journal's own stamps (fio-end -> the
# next fio-start) are shown beside it; they leave fio's exit out.  Also
# counted: the fsync and fdatasync calls of fiocamp-run, in all and within
# each gap.
#
# Tiny runs (1 s, 8 MiB file) so that the controller's work shows.  Three
# kinds of gap: within a round (between two tests), across a pause (beyond
# the pause of 1 s), and at a state change (the last run of one state to the
# first of the next, with no action in between).
#
# usage: tests/bench/bench-run.sh [BUILD_DIR]
#        tests/bench/bench-run.sh --long N [BUILD_DIR]
#        tests/bench/bench-run.sh --parse N [BUILD_DIR]
#   BUILD_DIR defaults to build-rel, configured with --buildtype=release if
#   missing.
#
#   --long N: the controller's cost per run as the campaign grows: N rounds
#   of one test (in states of at most 10000 rounds), run by a stub fio (a script that copies a
#   recorded report, so that nothing but the controller costs time); from
#   the journal's stamps, the time from one run's end to the next one's
#   start, at the start and after N runs (the median of 200 each), and the
#   manifest's size at the end.  Needs no perf.
#   --parse N: how long --dry-run takes for a campaign of N states (of one
#   round each, the campaign file within its 1 MiB), its plan to /dev/null:
#   the campaign file's parser and the plan, without a run.
#
#   The default (the gaps between two fio runs, seen by the kernel):  Needs perf (Debian: linux-perf) with the right to trace (root,
#   or kernel.perf_event_paranoid = -1) and python3.  Targets: within a
#   round <= 5 ms, at a state change <= 50 ms.  FIOCAMP_BENCH_VERBOSE=1
#   prints every gap.  The figures depend on the machine, its disk and its
#   load (the fsyncs above all); the load average is printed with them.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
mode=gaps
count=0
case ${1:-} in
--long | --parse)
	mode=${1#--}
	count=${2:?"bench-run: $1 needs a number"}
	shift 2
	;;
esac
build=${1:-$src/build-rel}
if [ "$mode" != gaps ]; then
	command -v python3 >/dev/null || { echo "bench-run: python3 is missing" >&2; exit 2; }
	[ -d "$build" ] || meson setup "$build" "$src" --buildtype=release >/dev/null
	ninja -C "$build" >/dev/null
	bin=$build/cmd/run/fiocamp-run
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiocamp-bench.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
fi
if [ "$mode" = parse ]; then
	python3 - "$tmp/parse.ini" "$count" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, 'w') as f:
    f.write('[campaign]\nname = parse\nsuite = rw4k\nrounds = 1\ntarget = local\n'
            'directory = /tmp\nsize = 8M\nruntime = 1s\n\n')
    for i in range(n):
        f.write('[state s%d]\n' % i)
PY
	t0=$(date +%s.%N)
	"$bin" --dry-run "$tmp/parse.ini" >/dev/null
	t1=$(date +%s.%N)
	python3 -c "import sys; print('--dry-run of %s states: %.2f s' % (sys.argv[3], float(sys.argv[2]) - float(sys.argv[1])))" "$t0" "$t1" "$count"
	exit 0
fi
if [ "$mode" = long ]; then
	mkdir -p "$tmp/bin"
	cp "$src/tests/fixtures/fio-3.33/json_idle_prof.json" "$tmp/report.json"
	# a stub fio: its version, and a run that writes a recorded report
	cat >"$tmp/bin/fio" <<SH
#!/bin/sh
out=
for a; do
	case \$a in
	--version) echo fio-3.33; exit 0 ;;
	--output=*) out=\${a#--output=} ;;
	esac
done
exec cp "$tmp/report.json" "\$out"
SH
	chmod +x "$tmp/bin/fio"
	# at most 10000 rounds a state: as many states as that takes
	states=$(((count + 9999) / 10000))
	cat >"$tmp/long.ini" <<INI
[campaign]
name      = long
suite     = rw4k
rounds    = $(((count + states - 1) / states))
pause     = 0s
target    = local
directory = $tmp/target
size      = 8M
runtime   = 1s
prefill   = no
INI
	for i in $(seq 1 "$states"); do printf '\n[state s%d]\n' "$i" >>"$tmp/long.ini"; done
	t0=$(date +%s)
	PATH="$tmp/bin:$PATH" FIOCAMP_ANALYZE=builtin "$bin" -q -o "$tmp/camp" "$tmp/long.ini"
	t1=$(date +%s)
	python3 - "$tmp/camp" "$count" $((t1 - t0)) <<'PY'
import json, os, statistics, sys
camp, n, wall = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
starts, ends = [], []
for line in open(os.path.join(camp, 'journal.jsonl')):
    if '"fio-start"' in line or '"fio-end"' in line:
        e = json.loads(line)
        (starts if e['event'] == 'fio-start' else ends).append(e['mono'])
gaps = [(starts[i + 1] - ends[i]) * 1000 for i in range(len(starts) - 1)]
k = min(200, len(gaps) // 2)
size = os.path.getsize(os.path.join(camp, 'manifest.json'))
jsize = os.path.getsize(os.path.join(camp, 'journal.jsonl'))
print('%d runs of a stub fio in %d s; from one run\'s end to the next one\'s start: '
      'median %.2f ms over runs 1-%d, %.2f ms over runs %d-%d'
      % (len(starts), wall, statistics.median(gaps[:k]), k,
         statistics.median(gaps[-k:]), len(gaps) - k + 1, len(gaps)))
print('manifest.json %.1f MB, journal.jsonl %.1f MB at the end' % (size / 1e6, jsize / 1e6))
print('load average when it ended (1, 5, 15 min): %s (on %d CPUs)'
      % (' '.join(open('/proc/loadavg').read().split()[:3]), os.cpu_count()))
PY
	exit 0
fi
for tool in perf python3; do
	command -v "$tool" >/dev/null || { echo "bench-run: $tool is missing" >&2; exit 2; }
done
[ -d "$build" ] || meson setup "$build" "$src" --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
bin=$build/cmd/run/fiocamp-run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiocamp-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/bench.ini" <<INI
[campaign]
name      = bench
suite     = rr4k rw4k lat4k
rounds    = 3
pause     = 1s
target    = local
directory = $tmp/target
size      = 8M
runtime   = 1s
prefill   = yes

[state a]

[state b]

[state c]

[state d]
INI

events=(-e syscalls:sys_enter_exit_group -e sched:sched_process_exec
	-e syscalls:sys_exit_wait4 -e syscalls:sys_enter_fsync -e syscalls:sys_enter_fdatasync)
if ! perf record -q -o "$tmp/perf.data" "${events[@]}" -- true 2>"$tmp/perf.err"; then
	echo "bench-run: perf cannot record the tracepoints it needs:" >&2
	cat "$tmp/perf.err" >&2
	exit 2
fi
perf record -q -o "$tmp/perf.data" "${events[@]}" -- \
	env FIOCAMP_ANALYZE=builtin "$bin" -q -o "$tmp/camp" "$tmp/bench.ini"
perf script -i "$tmp/perf.data" -F pid,tid,time,event,trace >"$tmp/trace" 2>/dev/null

python3 - "$tmp/camp" "$tmp/trace" <<'PY'
import json, os, re, statistics, sys
camp, trace = sys.argv[1], sys.argv[2]
VERBOSE = bool(os.environ.get('FIOCAMP_BENCH_VERBOSE'))

# perf script -F pid,tid,time,event,trace: "PID/TID SECONDS: EVENT: ARGS"
line_re = re.compile(r'^\s*(\d+)/(\d+)\s+(\d+\.\d+):\s+(\S+):\s*(.*)$')
execs, exits, reaped, syncs = {}, {}, {}, []
controller = None
for raw in open(trace):
    m = line_re.match(raw)
    if not m:
        continue
    pid, tid, t, ev, args = int(m[1]), int(m[2]), float(m[3]), m[4], m[5]
    if ev == 'sched:sched_process_exec':
        execs.setdefault(pid, t)   # the first exec of env is fiocamp-run's pid
        if controller is None:
            controller = pid
    elif ev == 'syscalls:sys_enter_exit_group':
        exits[pid] = t
    elif ev == 'syscalls:sys_exit_wait4':
        if pid == controller and re.match(r'0x[0-9a-f]+$', args.strip()):
            reaped.setdefault(int(args.strip(), 16), t)
    elif pid == controller:
        syncs.append(t)

ev = [json.loads(l) for l in open(os.path.join(camp, 'journal.jsonl'))]
fio_starts = [e for e in ev if e['event'] == 'fio-start']
fio_ends = [e for e in ev if e['event'] == 'fio-end']
pids = [e['proc']['pid'] for e in fio_starts]
missing = [p for p in pids if p not in execs or p not in exits]
if missing:
    sys.exit('bench-run: fio processes %s are not in the trace' % missing)
pause = json.load(open(os.path.join(camp, 'manifest.json')))['settings']['pause_s']

kinds = {'within a round': [], 'across a pause': [], 'at a state change': []}
journal_gaps = {k: [] for k in kinds}
own_gaps = {k: [] for k in kinds}   # from fio reaped to the next exec: ours alone
sync_counts = {k: [] for k in kinds}
for i in range(1, len(fio_starts)):
    a, b = fio_starts[i - 1], fio_starts[i]
    if 'state' not in a:
        continue   # after the prefill: not a gap between two tests
    if a['state'] != b['state']:
        kind, minus = 'at a state change', 0
    elif a['round'] != b['round']:
        kind, minus = 'across a pause', pause
    else:
        kind, minus = 'within a round', 0
    end, start = exits[pids[i - 1]], execs[pids[i]]
    gap = (start - end - minus) * 1000
    jgap = (b['mono'] - fio_ends[i - 1]['mono'] - minus) * 1000
    own = (start - reaped.get(pids[i - 1], end) - minus) * 1000
    n_sync = sum(1 for t in syncs if end <= t <= start)
    kinds[kind].append(gap)
    own_gaps[kind].append(own)
    journal_gaps[kind].append(jgap)
    sync_counts[kind].append(n_sync)
    if VERBOSE:
        print('%-2s r%d %-6s -> %-2s r%d %-6s %7.2f ms (after fio was reaped %6.2f, '
              'journal %6.2f), %2d fsyncs%s'
              % (a['state'], a['round'], a['test'], b['state'], b['round'], b['test'],
                 gap, own, jgap, n_sync, ' beyond the pause' if minus else ''))

print('fio runs: %d (the prefill and 4 states x 3 rounds x 3 tests); fsync + fdatasync '
      'calls of fiocamp-run: %d' % (len(fio_starts), len(syncs)))
print('gap: from fio\'s exit_group to the next fio\'s exec; "after reaping": from the '
      'controller\'s wait4 for it on, fio\'s own exit left out')
for kind, gaps in kinds.items():
    j, o = journal_gaps[kind], own_gaps[kind]
    print('%-18s %2d gaps: median %6.2f ms, max %6.2f ms; after reaping: median %5.2f, '
          'max %5.2f; journal stamps: median %5.2f, max %5.2f; fsyncs per gap: %s'
          % (kind, len(gaps), statistics.median(gaps), max(gaps), statistics.median(o),
             max(o), statistics.median(j), max(j),
             '-'.join(str(x) for x in sorted({min(sync_counts[kind]),
                                              max(sync_counts[kind])}))))
def verdict(gaps, limit):
    return 'median %s, max %s' % ('met' if statistics.median(gaps) <= limit else 'NOT met',
                                  'met' if max(gaps) <= limit else 'NOT met')
print('targets: within a round <= 5 ms: %s; at a state change <= 50 ms: %s'
      % (verdict(kinds['within a round'], 5), verdict(kinds['at a state change'], 50)))
print('load average when it ended (1, 5, 15 min): %s (on %d CPUs)'
      % (' '.join(open('/proc/loadavg').read().split()[:3]), os.cpu_count()))
PY
