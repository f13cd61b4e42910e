#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark: a 1 s profile of a 1,000,000-line per-I/O iops log against
# `wc -l` on the same file.  Targets (issue 2): at most 3 times the wall time
# of `wc -l`, peak memory under 20 MB.  Not a test: timings depend on the
# machine and its load.
#
# Usage: tests/bench/bench-log.sh [BUILD_DIR [LINES [RUNS]]]; BUILD_DIR
# defaults to build-rel, set up as a release build (non-sanitized) if missing.
#
# The log is written to a temporary directory and removed afterwards.  Both
# commands run RUNS times (default 15), alternating, after one warm-up run
# each, with the file in the page cache; the best wall time of each counts.
# Peak RSS comes from GNU time (/usr/bin/time -f %M, Debian package `time`).
set -euo pipefail

builddir=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build-rel}
[[ -d $builddir ]] || meson setup "$builddir" "$(dirname "$0")/../.." --buildtype=release >/dev/null
ninja -C "$builddir" >/dev/null
lines=${2:-1000000}
runs=${3:-15}
prof="$builddir/tests/bench/bench-profile"

if [[ ! -x $prof ]]; then
	echo "bench-log: $prof not found; build a release tree first:" >&2
	echo "  meson setup $builddir --buildtype=release && ninja -C $builddir" >&2
	exit 2
fi
if [[ ! -x /usr/bin/time ]]; then
	echo "bench-log: /usr/bin/time missing (apt-get install time)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/bench_iops.1.log"

# What fio 3.33 writes for a per-I/O iops log: time (ms), 1, ddir, bs, prio.
# About 29,000 I/O per second, 70 % writes.
awk -v n="$lines" 'BEGIN {
	srand(1)
	for (i = 0; i < n; i++)
		printf "%d, 1, %d, 4096, 0\n", int(i / 29.094), (rand() < 0.3) ? 0 : 1
}' >"$log"
bytes=$(stat -c %s "$log")

cat "$log" >/dev/null # page cache

# Wall time of one run in microseconds (bash's clock, no extra process).
wall_us() {
	local start=$EPOCHREALTIME
	"$@" >/dev/null
	local end=$EPOCHREALTIME
	echo $(((${end/./} - ${start/./})))
}

best_wc=
best_prof=
wall_us wc -l "$log" >/dev/null
wall_us "$prof" "$log" >/dev/null
for ((i = 0; i < runs; i++)); do
	t=$(wall_us wc -l "$log")
	[[ -z $best_wc || $t -lt $best_wc ]] && best_wc=$t
	t=$(wall_us "$prof" "$log")
	[[ -z $best_prof || $t -lt $best_prof ]] && best_prof=$t
done

rss_kb=$(/usr/bin/time -f %M "$prof" "$log" 2>&1 >/dev/null | tail -n 1)
wc_rss_kb=$(/usr/bin/time -f %M wc -l "$log" 2>&1 >/dev/null | tail -n 1)

echo "log: $lines lines, $bytes bytes (per-I/O iops, 4 KiB)"
"$prof" "$log" | sed 's/^/profile: /'
awk -v w="$best_wc" -v p="$best_prof" -v r="$rss_kb" -v wr="$wc_rss_kb" -v runs="$runs" \
	-v b="$bytes" 'BEGIN {
	printf "wc -l:        %8.1f ms (best of %d), peak RSS %.1f MB\n", w / 1000, runs, wr / 1024
	printf "1 s profile:  %8.1f ms (best of %d), peak RSS %.1f MB, %.0f MB/s\n", p / 1000,
		runs, r / 1024, b / p
	printf "ratio:        %8.2f x wc -l (target <= 3; peak RSS target < 20 MB)\n", p / w
}'
