#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Benchmark of fiocamp-analyze (issues 3 and 11): fio JSON files with their
# 1 s IOPS logs, end to end (every report read, its workload known, every
# statistic computed), against `jq '.jobs[0].read.iops'` over the same
# files.  Target: fiocamp-analyze <= 0.3 x jq's wall time at 1,000 files;
# time and peak memory linear in the number of runs at 10,000 and 50,000.
#
# Usage: tests/bench/bench-analyze.sh [BUILDDIR]
#   BUILDDIR defaults to build-rel (set up with --buildtype=release
#   when missing).  Needs fio, jq, python3 and GNU time (/usr/bin/time).
#   BENCH_SIZES="1000 10000 50000" (the default) sets the pile sizes,
#   BENCH_RUNS (default 5; 3 above 1,000 files) the timed runs of each.
#
# The inputs are real fio 3.33 output: one 2 s run for each of the five
# tests of the published example (rw4k, rr4k, lat4k, sw1m, sr1m), copied
# to 5 states x 5 tests x N/25 rounds with the IOPS varied by +-30 %, each
# with a 30-line 1 s IOPS log made from the real log's value the same way.
# jq gets the files through xargs (50,000 names exceed one command line).
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$src/build-rel}

for tool in fio jq python3 meson ninja /usr/bin/time; do
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
mkdir "$work/real"

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

make_pile() { # DIR FILES
	python3 - "$work/real" "$1" "$2" <<'EOF'
import os, random, re, sys
real, out, files = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out)
random.seed(42)
states = ["basis", "snap1", "snap3", "deleted", "control"]
tests = ["rw4k", "rr4k", "lat4k", "sw1m", "sr1m"]
rounds = files // (len(states) * len(tests))
num = re.compile(r'("(?:iops|iops_mean|bw|bw_bytes|bw_mean)" : )([0-9.]+)')
for t in tests:
    text = open(f"{real}/{t}.json").read()
    line = open(f"{real}/{t}_iops.1.log").readline().split(", ")
    for s in states:
        for r in range(1, rounds + 1):
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
}

# Median wall time of RUNS runs, after one warm-up run, in microseconds.
time_it() { # RUNS COMMAND...
	local runs=$1
	shift
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

jq_files() { # DIR
	find "$1" -name '*.json' -print0 | xargs -0 jq '.jobs[0].read.iops'
}

for files in ${BENCH_SIZES:-1000 10000 50000}; do
	data=$work/data-$files
	make_pile "$data" "$files"
	n_json=$(find "$data" -name '*.json' | wc -l)
	n_log=$(find "$data" -name '*.log' | wc -l)
	bytes=$(find "$data" -name '*.json' -print0 | xargs -0 cat | wc -c)
	log_bytes=$(find "$data" -name '*.log' -print0 | xargs -0 cat | wc -c)
	runs=${BENCH_RUNS:-$([ "$files" -le 1000 ] && echo 5 || echo 3)}
	echo "== $n_json JSON files ($bytes bytes), $n_log logs ($log_bytes bytes)"
	"$analyze" --csv summary "$data" >/dev/null 2>&1 || {
		echo "bench-analyze: fiocamp-analyze failed on the inputs" >&2
		exit 1
	}
	jq_us=$(time_it "$runs" jq_files "$data")
	an_us=$(time_it "$runs" "$analyze" --csv summary "$data")
	an1_us=$(time_it "$runs" "$analyze" --threads 1 --csv summary "$data")
	rss_kb=$(/usr/bin/time -f %M "$analyze" --csv summary "$data" 2>&1 >/dev/null | tail -1)
	echo "jq '.jobs[0].read.iops' over the JSON files: $((jq_us / 1000)) ms"
	echo "fiocamp-analyze --csv summary (all threads):  $((an_us / 1000)) ms"
	echo "fiocamp-analyze --threads 1:                  $((an1_us / 1000)) ms"
	python3 -c "print(f'ratio fiocamp-analyze / jq: {$an_us / $jq_us:.2f} (target <= 0.3 at 1,000 files); one thread: {$an1_us / $jq_us:.2f}')"
	python3 -c "print(f'peak RSS {$rss_kb / 1024:.1f} MiB = {$rss_kb * 1024 / $n_json:.0f} bytes per run; {$an_us / $n_json:.1f} us per run')"
	[ -n "${BENCH_KEEP:-}" ] || rm -rf "$data"
done
