#!/bin/sh
# t_cli.sh - the command line's promises: `polc help X` and `polc X --help`
# print the same text and exit 0 for every command `polc --help` lists
# (options after "--" are the workload's, not polc's); `polc check --json`
# prints JSON (ok and error cases, with each diagnostic's location);
# NO_COLOR turns the diagnostics' colours off on a terminal; raw BPF is never
# written to a terminal; `make install` installs the bash completion, which
# completes commands and each command's options.
set -u
: "${POLC:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmds=$("$POLC" --help | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')
[ "$(echo "$cmds" | wc -w)" -ge 13 ] || bad "polc --help lists: $cmds"
for c in $cmds; do
	"$POLC" help "$c" >"$T/h1" 2>&1; r1=$?
	"$POLC" "$c" --help >"$T/h2" 2>&1; r2=$?
	"$POLC" "$c" -h >"$T/h3" 2>&1; r3=$?
	[ $r1 = 0 ] && [ $r2 = 0 ] && [ $r3 = 0 ] || bad "$c: help exits $r1, --help $r2, -h $r3"
	cmp -s "$T/h1" "$T/h2" && cmp -s "$T/h1" "$T/h3" || bad "$c: polc help $c and polc $c --help differ"
	grep -q "^usage: polc $c" "$T/h1" || bad "$c: no usage line: $(head -1 "$T/h1")"
done
printf 'policy p {\n  deny syscall keyctl;\n}\n' >"$T/p.pol"
"$POLC" run --target seccomp "$T/p.pol" -- /bin/echo --help >"$T/out" 2>&1
grep -q 'usage: polc' "$T/out" && bad "--help after -- was taken by polc"

# check --json
"$POLC" check --json "$T/p.pol" >"$T/j" 2>"$T/err" || bad "check --json on a good file: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["ok"] is True and d["policies"] == 1 and d["diagnostics"] == []' "$T/j" ||
	bad "check --json (ok): $(cat "$T/j")"
[ -s "$T/err" ] && bad "check --json also wrote text: $(cat "$T/err")"
printf 'policy q {\n  deny sycall keyctl;\n  deny file "/a\\"b" read;\n}\n' >"$T/q.pol"
"$POLC" check --json "$T/q.pol" >"$T/j" 2>/dev/null; rc=$?
[ $rc = 1 ] || bad "check --json on a bad file: exit $rc"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["ok"] is False, d
e = d["diagnostics"][0]
assert e["file"].endswith("q.pol") and e["line"] == 2 and e["col"] == 8 and e["severity"] == "error", e
assert "did you mean" in e["message"], e' "$T/j" || bad "check --json (error): $(cat "$T/j")"

# NO_COLOR and terminals (script(1) gives the command a terminal)
if command -v script >/dev/null; then
	script -qec "'$POLC' check '$T/q.pol'" /dev/null >"$T/tty" 2>&1
	grep -q "$(printf '\033')\[" "$T/tty" || bad "no colours on a terminal (so NO_COLOR proves nothing)"
	script -qec "NO_COLOR=1 '$POLC' check '$T/q.pol'" /dev/null >"$T/tty" 2>&1
	grep -q "$(printf '\033')\[" "$T/tty" && bad "NO_COLOR=1: colours anyway"
	grep -q "error:" "$T/tty" || bad "NO_COLOR=1: no diagnostics: $(cat "$T/tty")"
	for tf in "seccomp" "seccomp --format bpf" "bpf" "bpf --format bundle"; do
		script -qec "'$POLC' build '$T/p.pol' --allow-partial --target $tf; echo rc=\$?" /dev/null >"$T/tty" 2>&1
		grep -q "rc=2" "$T/tty" && grep -q "is binary: not writing it to a terminal" "$T/tty" ||
			bad "raw BPF to a terminal (--target $tf): $(head -3 "$T/tty")"
	done
	script -qec "'$POLC' build '$T/p.pol' --target seccomp --format oci >/dev/null; echo rc=\$?" /dev/null >"$T/tty" 2>&1
	grep -q "rc=0" "$T/tty" || bad "oci on a terminal refused: $(cat "$T/tty")"
else
	echo "SKIP terminal checks: no script(1)"
fi
"$POLC" build "$T/p.pol" --target seccomp >"$T/p.bpf" 2>/dev/null || bad "raw BPF to a file refused"

# make install: the bash completion, and it completes
make -s -C "$SRC" install PREFIX="$T/usr" BUILD="${BUILD:-build}" >/dev/null 2>&1 || bad "make install"
C=$T/usr/share/bash-completion/completions/polc
if [ ! -f "$C" ]; then
	bad "make install did not install $C"
elif command -v bash >/dev/null; then
	got=$(PATH="$T/usr/bin:$PATH" bash -c '. "$1"; COMP_WORDS=(polc bu); COMP_CWORD=1; _polc; echo "${COMPREPLY[*]}";
		COMP_WORDS=(polc build x.pol --spo); COMP_CWORD=3; _polc; echo "${COMPREPLY[*]}";
		COMP_WORDS=(polc build --target a); COMP_CWORD=3; _polc; echo "${COMPREPLY[*]}";
		COMP_WORDS=(polc run --target l); COMP_CWORD=3; _polc; echo "${COMPREPLY[*]}";
		COMP_WORDS=(polc build --format pr); COMP_CWORD=3; _polc; echo "${COMPREPLY[*]}"' _ "$C")
	# targets and formats come from the registry, through polc help build
	[ "$got" = "$(printf 'build\n--spo-version\napparmor\nlandlock\nprofile')" ] || bad "completion: $got"
fi
[ $fail = 0 ] && echo ok
exit $fail
