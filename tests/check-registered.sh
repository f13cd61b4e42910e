#!/bin/sh
# Every test source and script in tests/ and tests/run/ is registered with
# the build and named test-*.c, test-*.py or test-*.sh; every Python module
# beside them (snake_case, to be importable) is imported by a test.
# Usage: check-registered.sh SRCDIR
set -eu
cd "$1/tests"
status=0
for f in test-*.c test-*.py test-*.sh run/test-*.py run/test-*.c fuzz/fuzz-*.c; do
	[ -e "$f" ] || continue
	base=${f##*/}
	stem=${base%.*}
	stem=${stem#test-}
	stem=${stem#fuzz-}
	if ! grep -rq --include=meson.build -e "$base" -e "'$stem'" .; then
		echo "tests/$f is not registered in a meson.build" >&2
		status=1
	fi
done
for f in test_*.py run/test_*.py; do
	[ -e "$f" ] || continue
	echo "tests/$f: a test file is named test-*.py" >&2
	status=1
done
for f in *.py run/*.py; do
	[ -e "$f" ] || continue
	base=${f##*/}
	case $base in test-* | test_* | check-*) continue ;; esac
	mod=${base%.py}
	if ! grep -rqE --include='*.py' "^(import|from) $mod\b" .; then
		echo "tests/$f is a module no test imports" >&2
		status=1
	fi
done
exit $status
