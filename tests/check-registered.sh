#!/bin/sh
# Every test source and script in tests/ is registered with the build.
# Usage: check-registered.sh SRCDIR
set -eu
cd "$1/tests"
status=0
for f in test-*.c test-*.py test_*.py test-*.sh fuzz/fuzz-*.c; do
	[ -e "$f" ] || continue
	base=${f##*/}
	stem=${base%.*}
	stem=${stem#test-}
	stem=${stem#test_}
	stem=${stem#fuzz-}
	if ! grep -rq --include=meson.build -e "$base" -e "'$stem'" .; then
		echo "tests/$f is not registered in a meson.build" >&2
		status=1
	fi
done
exit $status
