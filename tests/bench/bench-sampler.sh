#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of fiocamp-run's sampler (issue 22): the CPU the once-a-second
# loop on the target costs while fio runs.  Target: under 1 % of one core.
#
# A local campaign runs one test (lat4k: one job, queue depth 1) for
# BENCH_SECONDS (default 30) on a file below a temporary directory.  While
# it runs, the sampler's shell is found among fiocamp-run's children (its
# command line reads /proc/diskstats) and its /proc/PID/stat read every
# 50 ms: its own CPU time and that of the children it waited for (one grep
# and one sleep a second), plus its lifeline reader.  The reference, from
# the same run: fio's own CPU (usr_cpu + sys_cpu of its report).
#
# Usage: tests/bench/bench-sampler.sh [BUILDDIR]
#   BUILDDIR defaults to build.  Needs fio and python3 (and the tests'
#   harness.py, for the process tree).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build}
run=$build/cmd/run/fiocamp-run
seconds=${BENCH_SECONDS:-30}

for tool in fio python3; do
	command -v "$tool" >/dev/null || { echo "bench-sampler: $tool is missing" >&2; exit 2; }
done
[ -x "$run" ] || { echo "bench-sampler: $run is missing (meson compile -C $build)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fiocamp-bench-sampler.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/bench.ini" <<EOF
[campaign]
directory = $tmp/target
size      = 64M
runtime   = ${seconds}s
suite     = lat4k
rounds    = 1
disturbed = off
[state basis]
EOF

PYTHONPATH="$src/tests" python3 - "$run" "$tmp" "$seconds" <<'EOF'
import json, os, subprocess, sys, time

from harness import children

run, tmp, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
tick = os.sysconf('SC_CLK_TCK')


def cmdline(pid):
    try:
        with open('/proc/%d/cmdline' % pid, 'rb') as f:
            return f.read().decode(errors='replace')
    except OSError:
        return ''


def cpu(pid, waited):
    """utime + stime (+ cutime + cstime when waited) in seconds, or None."""
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return None
    ticks = int(fields[11]) + int(fields[12])
    if waited:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / tick


p = subprocess.Popen([run, '-o', os.path.join(tmp, 'camp'), os.path.join(tmp, 'bench.ini')],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
sampler, seen = None, {}
while p.poll() is None:
    if sampler is None:
        sampler = next((k for k in children(p.pid) if '/proc/diskstats' in cmdline(k)), None)
    if sampler is not None:
        for pid, waited in [(sampler, True)] + [(k, False) for k in children(sampler)]:
            c = cpu(pid, waited)
            if c is not None:
                seen[pid] = max(seen.get(pid, 0.0), c)
    time.sleep(0.05)
err = p.stderr.read()
if p.returncode != 0 or sampler is None:
    sys.exit('bench-sampler: the campaign failed or no sampler was seen (%d): %s'
             % (p.returncode, err[-2000:]))
with open(os.path.join(tmp, 'camp', 'manifest.json')) as f:
    m = json.load(f)
test = m['states'][0]['rounds'][0]['tests'][0]
with open(os.path.join(tmp, 'camp', test['json'])) as f:
    text = f.read()
job = json.loads(text[text.index('{'):])['jobs'][0]
fio_s = job['elapsed'] if job.get('elapsed') else seconds
fio_core = (job['usr_cpu'] + job['sys_cpu']) / 100
samples = (test.get('telemetry') or {}).get('samples')
used = sum(seen.values())
share = used / fio_s
print('sampler: %d samples, %.2f s of CPU over %.0f s of fio = %.2f %% of one core '
      '(target < 1 %%)' % (samples or 0, used, fio_s, 100 * share))
print('fio in the same run: %.1f %% of one core; sampler / fio = %.3f'
      % (100 * fio_core, share / fio_core if fio_core else float('nan')))
EOF
