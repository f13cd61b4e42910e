#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark: the 1 s profile of a 24-hour clat_hist log (fio's
# log_hist_msec=1000 at coarseness 0: 86,400 rows of 1856 buckets, ~0.5 GB)
# against `wc -l` on the same file, with the peak memory of each.  The
# profile keeps the merged buckets of the open intervals only (issue 11):
# its memory is a few hundred bytes per interval, not 1856 doubles.  Not a
# test: timings depend on the machine and its load.
#
# Usage: tests/bench/bench-hist.sh [BUILD_DIR [ROWS]]; BUILD_DIR defaults to
# build-rel, set up as a release build (non-sanitized) if missing.  The log
# is written to a temporary directory and removed afterwards.  Peak RSS and
# wall time come from GNU time (/usr/bin/time, Debian package `time`).
set -euo pipefail

builddir=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build-rel}
[[ -d $builddir ]] || meson setup "$builddir" "$(dirname "$0")/../.." --buildtype=release >/dev/null
ninja -C "$builddir" >/dev/null
rows=${2:-86400}
prof="$builddir/tests/bench/bench-profile"
if [[ ! -x /usr/bin/time ]]; then
	echo "bench-hist: /usr/bin/time missing (apt-get install time)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/day_clat_hist.1.log"

# fio's rows: time (drifting 1 ms a second, as fio's do), ddir, bs, then
# the buckets; completions in 6 to 9 neighbouring buckets around 100 us.
awk -v n="$rows" 'BEGIN {
	srand(1)
	zeros = ""
	for (j = 0; j < 1856; j++)
		zeros = zeros ", 0"
	for (i = 1; i <= n; i++) {
		base = 700 + int(rand() * 80)
		width = 6 + int(rand() * 4)
		mid = ""
		for (j = 0; j < width; j++)
			mid = mid ", " (1 + int(rand() * 5000))
		printf "%d, 0, 4096%s%s%s\n", i * 1000 + i - 1, substr(zeros, 1, 3 * base), mid,
			substr(zeros, 1, 3 * (1856 - base - width))
	}
}' >"$log"
bytes=$(stat -c %s "$log")
cat "$log" >/dev/null # page cache

measure() { # prints "seconds peak_kb"
	/usr/bin/time -f "%e %M" "$@" 2>&1 >/dev/null | tail -n 1
}

read -r wc_s wc_kb < <(measure wc -l "$log")
read -r prof_s prof_kb < <(measure "$prof" "$log")
echo "log: $rows rows of 1856 buckets, $bytes bytes"
"$prof" "$log" | sed 's/^/profile: /'
awk -v ws="$wc_s" -v wk="$wc_kb" -v ps="$prof_s" -v pk="$prof_kb" -v n="$rows" 'BEGIN {
	printf "wc -l:        %6.2f s, peak RSS %7.1f MB\n", ws, wk / 1024
	printf "1 s profile:  %6.2f s, peak RSS %7.1f MB (%.0f bytes per interval)\n", ps,
		pk / 1024, pk * 1024 / n
	printf "ratio:        %6.2f x wc -l\n", ps / (ws > 0 ? ws : 0.01)
}'
