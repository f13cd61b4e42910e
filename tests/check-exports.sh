#!/bin/sh
# The shared library exports exactly the functions fiocamp.h declares
# FC_PUBLIC, and the version script lists them all.
# Usage: check-exports.sh SRCDIR LIBFIOCAMP.so
set -eu
src=$1
lib=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# declarations span lines: join each FC_PUBLIC declaration up to its '('
awk '/FC_PUBLIC/ { d = $0; while (d !~ /\(/ && (getline l) > 0) d = d " " l; print d }' \
	"$src/lib/fiocamp.h" | grep -v '#define' |
	sed -E 's/\(.*//; s/.*[ *]//' | sort -u >"$tmp/header"
nm -D --defined-only "$lib" | awk '$2 == "T" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
sed -n -E 's/^[[:space:]]+(fc_[a-z0-9_]+);/\1/p' "$src/lib/libfiocamp.sym" | sort -u >"$tmp/sym"
status=0
if ! diff -u "$tmp/header" "$tmp/exported"; then
	echo "exported symbols differ from the FC_PUBLIC declarations in fiocamp.h" >&2
	status=1
fi
if ! diff -u "$tmp/header" "$tmp/sym"; then
	echo "lib/libfiocamp.sym differs from the FC_PUBLIC declarations in fiocamp.h" >&2
	status=1
fi
echo "$(wc -l <"$tmp/header") public functions"
exit $status
