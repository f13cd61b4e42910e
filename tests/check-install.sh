#!/bin/sh
# `meson install` puts the library, header and pkg-config file in place, and
# a program outside the tree builds against them with pkg-config alone; the
# man pages, citing the guides where they are installed; the README and
# every docs/*.md; the bash completion under both programs' names.
# Usage: check-install.sh BUILDDIR CC SANITIZE(b_sanitize value) SRCDIR
set -eu
build=$1
cc=$2 # the compiler itself, without a launcher such as ccache
sanitize=$3
src=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" >/dev/null
fail() {
	echo "$*" >&2
	exit 1
}
# installed: exactly one file of that name under the install root
installed() {
	found=$(find "$tmp/root" -path "*/$1" -type f)
	[ -n "$found" ] && [ "$(echo "$found" | wc -l)" -eq 1 ] || fail "$1: not installed once"
	echo "$found"
}

# the guides: the README, and every docs/*.md of the source beside it
readme=$(installed share/doc/fiocamp/README.md)
docdir=$(dirname "$readme")
cmp -s "$readme" "$src/README.md" || fail "the installed README.md differs"
for f in "$src"/docs/*.md; do
	cmp -s "$f" "$docdir/docs/${f##*/}" || fail "docs/${f##*/} is not in $docdir/docs"
done
# the man pages, which say where the guides are (the directory as the
# installed system sees it, without the staging root)
for page in man1/fiocamp-run.1 man5/fiocamp-campaign.5 man1/fiocamp-analyze.1; do
	man=$(installed "$page")
	line=$(grep '^\.ds DOC ' "$man") || fail "$page: no .ds DOC line"
	[ "$line" = ".ds DOC ${docdir#"$tmp/root"}" ] || fail "$page: $line, not ${docdir#"$tmp/root"}"
done
# the completion, under each program's name, completing that program
for prog in fiocamp-run fiocamp-analyze; do
	comp=$(installed "bash-completion/completions/$prog")
	cmp -s "$comp" "$src/completion/fiocamp" || fail "completions/$prog differs"
	bash -c '. "$1" && complete -p "$2"' sh "$comp" "$prog" >/dev/null ||
		fail "completions/$prog: no completion for $prog"
done
echo "installed: README.md and $(ls "$src"/docs/*.md | wc -l) guides in ${docdir#"$tmp/root"}," \
	"3 man pages, completions for both programs"
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
