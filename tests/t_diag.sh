#!/bin/sh
# Diagnostics suite: every tests/diag/NAME.expected is one case. Its first
# line is "exit N" (polc's exit code), the rest the exact stderr. polc runs
# from tests/diag with "check NAME.pol", or with the arguments in NAME.args;
# when NAME.setup exists, it runs in a fresh temp dir first (sh, with $DIAG
# set to tests/diag) and polc runs there. stdout must stay empty.
# REGEN=1 rewrites the .expected files from the current compiler (then read
# every one before committing). Prints one line per case and a count.
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
POLC=${POLC:-$SRC/$BUILD/polc}
DIAG=$SRC/tests/diag
export DIAG
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; failed=""
ncase=0
for exp in "$DIAG"/*.expected; do
	name=$(basename "$exp" .expected)
	ncase=$((ncase + 1))
	dir=$DIAG
	if [ -f "$DIAG/$name.setup" ]; then
		dir=$tmp/$name; mkdir -p "$dir"
		(cd "$dir" && sh "$DIAG/$name.setup") || { echo "FAIL $name (setup)"; fail=$((fail + 1)); continue; }
	fi
	if [ -f "$DIAG/$name.args" ]; then
		args=$(cat "$DIAG/$name.args")
	else
		args="check $name.pol"
	fi
	# shellcheck disable=SC2086 # args are words on purpose
	(cd "$dir" && "$POLC" $args >"$tmp/out" 2>"$tmp/err"; echo "exit $?" >"$tmp/rc")
	{ cat "$tmp/rc"; cat "$tmp/err"; } >"$tmp/got"
	if [ -n "${REGEN:-}" ]; then
		cp "$tmp/got" "$exp"
	fi
	if cmp -s "$tmp/got" "$exp" && [ ! -s "$tmp/out" ]; then
		pass=$((pass + 1)); echo "ok   $name"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name (polc $args, in ${dir#"$SRC"/})"
		diff -u "$exp" "$tmp/got" | sed 's/^/    /'
		[ -s "$tmp/out" ] && { echo "    unexpected stdout:"; sed 's/^/    /' "$tmp/out"; }
	fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "diag: $pass passed, $fail failed, $ncase cases"
[ "$ncase" -ge 60 ] || { echo "diag: expected at least 60 cases"; exit 1; }
[ "$fail" = 0 ]
