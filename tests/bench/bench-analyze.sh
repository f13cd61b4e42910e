#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of fiocamp-analyze (issue 3): 1,000 fio JSON files with their 1 s
# IOPS logs, end to end, against `jq '.jobs[0].read.iops'` over the same
# files.  Target: fiocamp-analyze <= 0.5 x jq's wall time.
#
# Usage: tests/bench/bench-analyze.sh [BUILDDIR]
#   BUILDDIR defaults to build-rel (set up with --buildtype=release
#   when missing).  Needs fio, jq and python3.
#
# The inputs are real fio 3.33 output: one 2 s run for each of the five
# tests of the published example (rw4k, rr4k, lat4k, sw1m, sr1m), copied
# to 5 states x 5 tests x 40 rounds with the IOPS varied by +-30 %, each
# with a 30-line 1 s IOPS log made from the real log's value the same way.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-rel}
runs=${BENCH_RUNS:-5}

for tool in fio jq python3 meson ninja; do
	command -v "$tool" >/dev/null || { echo "bench-analyze: $tool is missing" >&2; exit 2; }
done
if [ ! -d "$build" ]; then
	meson setup "$build" "$src" --buildtype=release >/dev/null
fi
if [ "$(meson introspect "$build" --buildoptions |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"][0])')" != release ]; then
	echo "bench-analyze: $build is not a release build" >&2
	exit 2
fi
ninja -C "$build" >/dev/null
analyze=$build/cmd/analyze/fiocamp-analyze

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-analyze.XXXXXX")
trap '[ -n "${BENCH_KEEP:-}" ] || rm -rf "$work"' EXIT
mkdir "$work/real" "$work/data"

# One real run per test (2 s each; fio 3.33 logs nothing for a 1 s run).
dd if=/dev/urandom of="$work/test.dat" bs=1M count=16 status=none
common=(--filename="$work/test.dat" --size=16M --runtime=2 --time_based --direct=1
	--ioengine=libaio --output-format=json --log_avg_msec=1000)
fio --name=rw4k --rw=randwrite --bs=4k --iodepth=32 "${common[@]}" \
	--write_iops_log="$work/real/rw4k" --output="$work/real/rw4k.json"
fio --name=rr4k --rw=randread --bs=4k --iodepth=32 "${common[@]}" \
	--write_iops_log="$work/real/rr4k" --output="$work/real/rr4k.json"
fio --name=lat4k --rw=randwrite --bs=4k --iodepth=1 "${common[@]}" \
	--write_iops_log="$work/real/lat4k" --output="$work/real/lat4k.json"
fio --name=sw1m --rw=write --bs=1M --iodepth=8 "${common[@]}" \
	--write_iops_log="$work/real/sw1m" --output="$work/real/sw1m.json"
fio --name=sr1m --rw=read --bs=1M --iodepth=8 "${common[@]}" \
	--write_iops_log="$work/real/sr1m" --output="$work/real/sr1m.json"

python3 - "$work/real" "$work/data" <<'EOF'
import random, re, sys
real, out = sys.argv[1], sys.argv[2]
random.seed(42)
states = ["basis", "snap1", "snap3", "deleted", "control"]
tests = ["rw4k", "rr4k", "lat4k", "sw1m", "sr1m"]
num = re.compile(r'("(?:iops|iops_mean|bw|bw_bytes|bw_mean)" : )([0-9.]+)')
for t in tests:
    text = open(f"{real}/{t}.json").read()
    line = open(f"{real}/{t}_iops.1.log").readline().split(", ")
    for s in states:
        for r in range(1, 41):
            f = random.uniform(0.7, 1.3)
            def scale(m):
                v = float(m.group(2)) * f
                return m.group(1) + (f"{v:.6f}" if "." in m.group(2) else str(int(v)))
            label = f"{s}{r}" if s == "basis" else f"{s}-{r}"
            with open(f"{out}/{label}-{t}.json", "w") as o:
                o.write(num.sub(scale, text))
            with open(f"{out}/log-{label}-{t}_iops.1.log", "w") as o:
                for i in range(1, 31):
                    v = int(int(line[1]) * f * random.uniform(0.8, 1.2))
                    o.write(f"{i * 1000 + i // 3}, {v}, {line[2]}, 0, 0\n")
EOF

files=("$work"/data/*.json)
logs=("$work"/data/*.log)
bytes=$(cat "${files[@]}" | wc -c)
log_bytes=$(cat "${logs[@]}" | wc -c)
echo "inputs: ${#files[@]} JSON files ($bytes bytes), ${#logs[@]} logs ($log_bytes bytes)"

# Median wall time of $runs runs, after one warm-up run.
time_it() {
	"$@" >/dev/null 2>&1 || true
	local t=()
	for _ in $(seq "$runs"); do
		local s e
		s=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		e=$(date +%s%N)
		t+=($(((e - s) / 1000)))
	done
	printf '%s\n' "${t[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p"
}

"$analyze" --csv summary "$work/data" >/dev/null || {
	echo "bench-analyze: fiocamp-analyze failed on the inputs" >&2
	exit 1
}
jq_us=$(time_it jq '.jobs[0].read.iops' "${files[@]}")
an_us=$(time_it "$analyze" --csv summary "$work/data")
an1_us=$(time_it "$analyze" --threads 1 --csv summary "$work/data")
echo "jq '.jobs[0].read.iops' over the JSON files: $((jq_us / 1000)) ms"
echo "fiocamp-analyze --csv summary (all threads):  $((an_us / 1000)) ms"
echo "fiocamp-analyze --threads 1:                  $((an1_us / 1000)) ms"
python3 -c "print(f'ratio fiocamp-analyze / jq: {$an_us / $jq_us:.2f} (target <= 0.5); one thread: {$an1_us / $jq_us:.2f}')"
