#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Benchmark: how far compressors get on what the `payload` action writes.
# fiocamp-run writes N payloads of SIZE (default 3 of 16 MiB) with a local
# campaign, then each is compressed with gzip -9, zstd -19 and xz -6 (those
# installed); printed: the compressed size in percent of the original, per
# payload and compressor.  Not a test: the figure depends on fio's buffer
# generator (its version and build), not on fiocamp-run; the test
# (run-payload) checks what fiocamp-run asks of fio instead.
#
# Usage: tests/bench/bench-payload.sh [BUILD_DIR [SIZE [N]]]; BUILD_DIR
# defaults to build-rel, set up as a release build if missing.  The files
# are written to a temporary directory and removed afterwards.
set -euo pipefail

src=$(cd "$(dirname "$0")/../.." && pwd)
builddir=${1:-$src/build-rel}
[[ -d $builddir ]] || meson setup "$builddir" "$src" --buildtype=release >/dev/null
ninja -C "$builddir" >/dev/null
size=${2:-16M}
n=${3:-3}
run="$builddir/cmd/run/fiocamp-run"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
	printf '[campaign]\nname = payload\nsuite = rw4k\nrounds = 0\ntarget = local\n'
	printf 'directory = %s/target\nsize = 8M\nruntime = 1s\n\n[state write]\nbefore =' "$tmp"
	for ((i = 1; i <= n; i++)); do
		printf ' payload %s/p%d.bin %s;' "$tmp" "$i" "$size"
	done
	printf '\n'
} | sed 's/;$//' >"$tmp/payload.ini"
FIOCAMP_ANALYZE=builtin "$run" -q -o "$tmp/camp" "$tmp/payload.ini"

echo "fio $(fio --version), $n payloads of $size; compressed size in % of the original"
printf '%-8s' payload
tools=()
for t in gzip zstd xz; do
	command -v $t >/dev/null && tools+=("$t") && printf ' %8s' "$t"
done
printf '\n'
for ((i = 1; i <= n; i++)); do
	f="$tmp/p$i.bin"
	bytes=$(stat -c %s "$f")
	printf '%-8s' "p$i"
	for t in "${tools[@]}"; do
		case $t in
		gzip) c=$(gzip -9 -c "$f" | wc -c) ;;
		zstd) c=$(zstd -19 -q -c "$f" | wc -c) ;;
		xz) c=$(xz -6 -c "$f" | wc -c) ;;
		esac
		awk -v c="$c" -v b="$bytes" 'BEGIN { printf " %7.2f%%", 100 * c / b }'
	done
	printf '\n'
done
