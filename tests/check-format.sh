#!/bin/sh
# SPDX-License-Identifier: MIT
#
# Every tracked .c and .h file as the root .clang-format has it: lists each
# file clang-format would change and fails if there is one.  Needs git and
# clang-format (Debian package clang-format); CLANG_FORMAT names another.
#
# Usage: tests/check-format.sh [SRCDIR]   (default: the tree it is in)
set -eu
cd "${1:-$(dirname "$0")/..}"
clang_format=${CLANG_FORMAT:-clang-format}
if ! command -v "$clang_format" >/dev/null; then
	echo "check-format: $clang_format not installed (apt-get install clang-format)" >&2
	exit 2
fi
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check-format: $(pwd) is not a git work tree" >&2
	exit 2
fi
status=0
checked=0
differ=0
list=$(mktemp)
trap 'rm -f "$list"' EXIT
git ls-files -z -- '*.c' '*.h' | tr '\0' '\n' >"$list"
while IFS= read -r f; do
	[ -f "$f" ] || continue
	checked=$((checked + 1))
	# --dry-run --Werror: a warning and a non-zero exit for each change
	if ! "$clang_format" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then
		echo "$f"
		differ=$((differ + 1))
		status=1
	fi
done <"$list"
echo "check-format: $differ of $checked files differ from .clang-format" \
	"($("$clang_format" --version | sed 's/.*version \([0-9.]*\).*/clang-format \1/'))" >&2
exit $status
