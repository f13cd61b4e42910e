#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The bash completion (completion/fiocamp) in bash itself: with
# bash-completion loaded, the completion functions are called as bash calls
# them (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT) and COMPREPLY is
# checked: every option --help lists, the values of the enumerated options
# (each one the program itself accepts), directories where a directory
# goes, campaign files and the subcommand where a campaign goes.  Skipped
# (77) without bash-completion (Debian package bash-completion).
#
# Usage: test-completion.sh SRCDIR FIOCAMP_RUN FIOCAMP_ANALYZE
set -o pipefail
src=$(realpath "$1")
run=$(realpath "$2")
analyze=$(realpath "$3")

main=
dir=$(pkg-config --variable=completionsdir bash-completion 2>/dev/null) &&
	main=${dir%/completions}/bash_completion
[[ -r $main ]] || main=/usr/share/bash-completion/bash_completion
if [[ ! -r $main ]]; then
	echo "bash-completion is not installed: skipped"
	exit 77
fi
# shellcheck disable=SC1090
source "$main"
# shellcheck source=../completion/fiocamp
source "$src/completion/fiocamp"

failures=0
checks=0
check() {
	checks=$((checks + 1))
	if ! eval "$1"; then
		failures=$((failures + 1))
		echo "FAIL: $2" >&2
	fi
}

# complete FUNCTION LINE: completes LINE at its end as bash would, the words
# split at blanks and at '=' (as COMP_WORDBREAKS does); the replies sorted,
# one a line, in $reply.
reply=
complete_line() {
	local fn=$1 line=$2
	COMP_LINE=$line
	COMP_POINT=${#line}
	local spaced=${line//=/ = }
	read -r -a COMP_WORDS <<<"$spaced"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	[[ $line == *"=" ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]:-}"
	reply=$(printf '%s\n' "${COMPREPLY[@]}" | sort -u)
}

has() { grep -qxF -- "$1" <<<"$reply"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir -p runs/warm lab
touch my.ini other.ini notes.txt

# ---- fiocamp-run --------------------------------------------------------

# every option of --help, and --token-file of netcup-login
complete_line _fiocamp_run "$run --"
for o in $("$run" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
	check "has $o" "fiocamp-run --<TAB> offers $o"
done
check "has --token-file" "fiocamp-run --<TAB> offers --token-file (netcup-login)"
check "! has --takes-down" "an action's flag in --help is no option"
complete_line _fiocamp_run "$run -"
check "has -n && has -o" "fiocamp-run -<TAB> offers the short options"
complete_line _fiocamp_run "$run --res"
check '[[ $reply == --resume ]]' "--res<TAB> is --resume: $reply"

# a campaign: *.ini and directories, and the subcommand
complete_line _fiocamp_run "$run "
check "has my.ini && has other.ini && has runs && has lab && has netcup-login" \
	"fiocamp-run <TAB>: campaign files, directories, netcup-login: $reply"
check "! has notes.txt" "fiocamp-run <TAB> offers no other file"
complete_line _fiocamp_run "$run -n m"
check '[[ $reply == my.ini ]]' "fiocamp-run -n m<TAB> is my.ini: $reply"
complete_line _fiocamp_run "$run my.ini n"
check "! has netcup-login" "no subcommand after a campaign file"

# directories where a directory goes
for o in --resume -o --output --jobs-dir; do
	complete_line _fiocamp_run "$run $o "
	check "has runs && has lab && ! has my.ini" "fiocamp-run $o <TAB>: directories: $reply"
done
complete_line _fiocamp_run "$run --resume r"
check '[[ $reply == runs ]]' "--resume r<TAB> is runs: $reply"
complete_line _fiocamp_run "$run --output=l"
check '[[ $reply == lab ]]' "--output=l<TAB> is lab: $reply"
complete_line _fiocamp_run "$run netcup-login --token-file "
check "has notes.txt && has my.ini" "--token-file <TAB>: files: $reply"

# --host: the hosts of the campaign file on the line
printf '[campaign]\nname = f ; a fleet\nhosts = alpha beta  gamma ; three\n\n[host alpha]\nhosts = no\n' >fleet.ini
complete_line _fiocamp_run "$run --host "
check '[[ -z $reply ]]' "--host <TAB> without a campaign file: nothing: $reply"
complete_line _fiocamp_run "$run fleet.ini --host "
check '[[ $(echo $reply) == "alpha beta gamma" ]]' "fleet.ini --host <TAB>: its hosts: $reply"
complete_line _fiocamp_run "$run --host b"
check '[[ -z $reply ]]' "--host b<TAB>, no campaign file on the line: $reply"
complete_line _fiocamp_run "$run -o runs --host g"
check '[[ -z $reply ]]' "--host g<TAB>, no campaign file: $reply"
complete_line _fiocamp_run "$run -n fleet.ini -o runs --host a"
check '[[ $reply == alpha ]]' "fleet.ini -o runs --host a<TAB>: alpha: $reply"
rm fleet.ini

# ---- fiocamp-analyze ----------------------------------------------------

complete_line _fiocamp_analyze "$analyze --"
for o in $("$analyze" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'); do
	check "has $o" "fiocamp-analyze --<TAB> offers $o"
done

# Whether fiocamp-analyze takes VALUE for OPTION: it does when it complains
# of nothing but the missing input.
takes() {
	local err
	err=$("$analyze" "$1" "$2" "$tmp/no-such-input" 2>&1 >/dev/null)
	[[ $err != *"$1"* ]]
}
check '! takes --csv nonsense' "fiocamp-analyze refuses --csv nonsense (the check below can fail)"

# the values of every option --help lists them for, each one taken
enumerated=0
for o in --csv --layout --pct --decimal --sep --metrics; do
	complete_line _fiocamp_analyze "$analyze $o "
	n=$(grep -c . <<<"$reply")
	check "[[ $n -ge 2 ]]" "fiocamp-analyze $o <TAB> offers its values: $reply"
	while read -r v; do
		[[ -n $v ]] || continue
		enumerated=$((enumerated + 1))
		# a value as the shell would give it (;, quoted by the completion)
		eval "value=$v"
		check "takes $o '$value'" "fiocamp-analyze $o $v, offered, is taken"
	done <<<"$reply"
done
check "[[ $enumerated -ge 20 ]]" "values offered for the enumerated options: $enumerated"
complete_line _fiocamp_analyze "$analyze --csv "
for v in summary rounds profile transitions actions wide compare; do
	check "has $v" "--csv <TAB> offers $v"
done
complete_line _fiocamp_analyze "$analyze -c p"
check '[[ $reply == profile ]]' "-c p<TAB> is profile: $reply"
complete_line _fiocamp_analyze "$analyze --csv=tr"
check '[[ $reply == transitions ]]' "--csv=tr<TAB> is transitions: $reply"
complete_line _fiocamp_analyze "$analyze --layout "
check '[[ $(echo $reply) == "auto bench-fio names" ]]' "--layout <TAB>: $reply"
complete_line _fiocamp_analyze "$analyze --sep "
check "has tab && has ," "--sep <TAB>: $reply"

# --metrics: a comma list, the item after the last comma
complete_line _fiocamp_analyze "$analyze --metrics "
check "has all && has iops && has clat_p99.9" "--metrics <TAB>: $reply"
complete_line _fiocamp_analyze "$analyze --metrics iops,clat_p9"
check '[[ $(echo $reply) == "iops,clat_p99 iops,clat_p99.9" ]]' "--metrics iops,clat_p9<TAB>: $reply"
check "takes --metrics iops,clat_p99.9" "and fiocamp-analyze takes the list"

# inputs: files and directories; directories and files where they go
complete_line _fiocamp_analyze "$analyze "
check "has runs && has lab && has notes.txt && has my.ini" "fiocamp-analyze <TAB>: inputs: $reply"
complete_line _fiocamp_analyze "$analyze --svg "
check "has runs && ! has notes.txt" "--svg <TAB>: directories: $reply"
complete_line _fiocamp_analyze "$analyze --html n"
check '[[ $reply == notes.txt ]]' "--html n<TAB> is a file: $reply"
complete_line _fiocamp_analyze "$analyze -l warm=ru"
check '[[ $reply == runs ]]' "-l warm=ru<TAB>: the path after NAME=: $reply"
complete_line _fiocamp_analyze "$analyze --width "
check '[[ -z $reply ]]' "--width <TAB>: a number, nothing offered: $reply"

echo "$checks checks, $failures failed"
[[ $failures -eq 0 ]]
