#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark: a 1 s profile of a per-I/O iops log (4,000,000 lines, 84 MB, by
# default) against `cat` and `wc -l` on the same file, measured in the same
# run.  Target (issue 23): at most 2 times the wall time of `cat`; peak
# memory under 20 MB.  Not a test: timings depend on the machine and its
# load, ratios less so (they still move between machines).
#
# Usage: tests/bench/bench-log.sh [BUILD_DIR [LINES [RUNS]]]; BUILD_DIR
# defaults to build-rel, set up as a release build (non-sanitized) if missing.
#
# The log is written to a temporary directory and removed afterwards.  The
# three commands run RUNS times (default 15), alternating, after one warm-up
# run each, with the file in the page cache; the best wall time of each
# counts.  CPU time (user + system) is the mean over RUNS further runs of
# each, from bash's `time`.  Peak RSS comes from GNU time (/usr/bin/time -f
# %M, Debian package `time`).
set -euo pipefail

builddir=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build-rel}
[[ -d $builddir ]] || meson setup "$builddir" "$(dirname "$0")/../.." --buildtype=release >/dev/null
ninja -C "$builddir" >/dev/null
lines=${2:-4000000}
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

# Wall time of one run in microseconds into $us (bash's clock, no extra
# process).
us=0
wall() {
	local start=$EPOCHREALTIME
	"$@" >/dev/null
	local end=$EPOCHREALTIME
	us=$((${end/./} - ${start/./}))
}

# Mean CPU time (user + system) of one run in microseconds over $runs runs.
cpu() {
	local TIMEFORMAT='%3U %3S' u s
	read -r u s < <({ time for ((j = 0; j < runs; j++)); do "$@" >/dev/null; done; } 2>&1)
	awk -v u="$u" -v s="$s" -v n="$runs" 'BEGIN { printf "%d\n", (u + s) * 1e6 / n }'
}

names=(cat wc prof)
cmds=("cat $log" "wc -l $log" "$prof $log")
declare -A best
for k in 0 1 2; do
	# shellcheck disable=SC2086
	wall ${cmds[k]}
	best[${names[k]}]=
done
for ((i = 0; i < runs; i++)); do
	for k in 0 1 2; do
		# shellcheck disable=SC2086
		wall ${cmds[k]}
		n=${names[k]}
		[[ -z ${best[$n]} || $us -lt ${best[$n]} ]] && best[$n]=$us
	done
done
declare -A mcpu
for k in 0 1 2; do
	# shellcheck disable=SC2086
	mcpu[${names[k]}]=$(cpu ${cmds[k]})
done

rss_kb=$(/usr/bin/time -f %M "$prof" "$log" 2>&1 >/dev/null | tail -n 1)

echo "log: $lines lines, $bytes bytes (per-I/O iops, 4 KiB)"
"$prof" "$log" | sed 's/^/profile: /'
awk -v c="${best[cat]}" -v w="${best[wc]}" -v p="${best[prof]}" -v cc="${mcpu[cat]}" \
	-v wc="${mcpu[wc]}" -v pc="${mcpu[prof]}" -v r="$rss_kb" -v runs="$runs" \
	-v b="$bytes" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
	printf "load average: %s\n", load
	printf "               wall (best of %d)   CPU (mean of %d)\n", runs, runs
	printf "cat:           %8.1f ms          %8.1f ms\n", c / 1000, cc / 1000
	printf "wc -l:         %8.1f ms          %8.1f ms\n", w / 1000, wc / 1000
	printf "1 s profile:   %8.1f ms          %8.1f ms   %.0f MB/s, peak RSS %.1f MB\n",
		p / 1000, pc / 1000, b / p, r / 1024
	printf "ratio to cat:  %8.2f x           %8.2f x   (target: wall <= 2)\n", p / c, pc / cc
	printf "ratio to wc:   %8.2f x           %8.2f x\n", p / w, pc / wc
}'
