#!/bin/sh
# `meson install` puts the library, header and pkg-config file in place, and
# a program outside the tree builds against them with pkg-config alone.
# Usage: check-install.sh BUILDDIR CC SANITIZE(b_sanitize value)
set -eu
build=$1
cc=$2
sanitize=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" >/dev/null
pc=$(find "$tmp/root" -name libfiocamp.pc)
[ -n "$pc" ] || { echo "no libfiocamp.pc installed" >&2; exit 1; }
test -n "$(find "$tmp/root" -name fiocamp.h)" || { echo "no fiocamp.h installed" >&2; exit 1; }
cat >"$tmp/use.c" <<'C'
#include <fiocamp.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	static const char doc[] = "{\n\"fio version\":\"fio-3.33\",\"jobs\":[{\"jobname\":\"a\","
		"\"read\":{\"io_bytes\":4096,\"io_kbytes\":4,\"iops\":2.5}}]\n}\n";
	struct fc_output *o;
	struct fc_error e;
	if (fc_output_read_buffer(doc, strlen(doc), "doc", &o, &e) != FC_OK)
		return 1;
	printf("%s %g\n", o->final->jobs[0].name, o->final->jobs[0].dir[FC_DDIR_READ].iops);
	fc_output_free(o);
	return 0;
}
C
flags=
[ "$sanitize" = none ] || flags="-fsanitize=$sanitize"
export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$tmp/root"
# shellcheck disable=SC2046
"$cc" $flags -o "$tmp/use" "$tmp/use.c" $(pkg-config --cflags --libs libfiocamp)
libdir=$(dirname "$(find "$tmp/root" -name 'libfiocamp.so.0' | head -1)")
out=$(LD_LIBRARY_PATH="$libdir" "$tmp/use")
[ "$out" = "a 2.5" ] || { echo "unexpected output: $out" >&2; exit 1; }
echo "installed library used through pkg-config: $out"
