#!/usr/bin/env bash
# Parse 1,000 fio json+ files (about 16 MB): libfiocamp vs jq extracting one
# number from the same files, and jansson's loader alone for reference.
# Usage: tests/bench/bench-json.sh [BUILD_DIR]; BUILD_DIR defaults to
# build-rel, set up as a release build (non-sanitized) if missing.
set -euo pipefail
build=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build-rel}
[ -d "$build" ] || meson setup "$build" "$(dirname "$0")/../.." --buildtype=release >/dev/null
ninja -C "$build" >/dev/null
bench=$build/tests/bench/bench-json
[ -x "$bench" ] || { echo "build $bench first" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 2; }
command -v fio >/dev/null || { echo "fio is needed" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A handful of real json+ reports from this machine's fio ...
i=0
for rw in randread randwrite read write randrw; do
	for depth in 1 8; do
		i=$((i + 1))
		fio --name="bench$i" --filename="$work/t.dat" --size=8M --bs=4k --rw=$rw \
			--ioengine=libaio --iodepth=$depth --direct=1 --runtime=1 --time_based \
			--output-format=json+ --output="$work/seed$i.json" >/dev/null 2>&1
	done
done
# ... copied to 1,000 files.
mkdir "$work/files"
for n in $(seq 1 1000); do
	cp "$work/seed$(((n - 1) % i + 1)).json" "$work/files/run$n.json"
done
ls "$work"/files/*.json >"$work/list"
mb=$(du -cb "$work"/files/*.json | tail -1 | awk '{printf "%.1f", $1 / 1e6}')
cat "$work"/files/*.json >/dev/null # warm the page cache

best() { # best wall time of 5 runs of "$@", in seconds
	local b=999 s e t
	for _ in 1 2 3 4 5; do
		s=$(date +%s.%N)
		"$@" >/dev/null
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc -l)
		b=$(echo "if ($t < $b) $t else $b" | bc -l)
	done
	printf '%.3f' "$b"
}

t_jq=$(best xargs -a "$work/list" jq '.jobs[0].read.iops')
t_ours=$(best sh -c "\"$bench\" fiocamp < \"$work/list\"")
t_jansson=$(best sh -c "\"$bench\" jansson < \"$work/list\"")
echo "1000 json+ files, $mb MB (fio $(fio --version))"
printf 'jq .jobs[0].read.iops : %s s\n' "$t_jq"
printf 'jansson load only     : %s s  (%.2fx jq)\n' "$t_jansson" "$(echo "$t_jansson / $t_jq" | bc -l)"
printf 'libfiocamp, all jobs  : %s s  (%.2fx jq, %.0f MB/s)\n' "$t_ours" \
	"$(echo "$t_ours / $t_jq" | bc -l)" "$(echo "$mb / $t_ours" | bc -l)"
