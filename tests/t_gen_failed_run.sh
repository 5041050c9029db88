#!/bin/sh
# polc gen flags a recorded run in which the workload failed, end to end
# from polc record (issue #13, "Done when"): tests/progs/trace_fail (a bind
# refused with EADDRINUSE, exit status 3) recorded by each recorder that runs
# here gives a warning naming both, exit 0 and the policy written; with
# --strict, exit 1 and nothing written. A run that worked (trace_net) gives
# no warning. Each run in a network namespace of its own (loopback only).
set -u
P=$SRC/$BUILD/tests/progs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (a network namespace)"; exit 0; }
. "$SRC/tests/recorders.sh"
for tr in $tracers; do
	netns "$POLC" record --tracer $tr --no-status -o "$T/fail.trace" -- "$P/trace_fail" 47402 ||
		fail "$tr: record"
	grep -q '^meta exit "status 3"' "$T/fail.trace" || fail "$tr: trace_fail: $(grep '^meta exit' "$T/fail.trace")"
	"$POLC" gen -o "$T/fail.pol" "$T/fail.trace" 2>"$T/err" ||
		fail "$tr: gen without --strict failed: $(cat "$T/err")"
	[ -s "$T/fail.pol" ] || fail "$tr: gen wrote no policy"
	for want in 'warning: the recorded workload failed' 'ended with status 3' \
		'bind inet tcp 127.0.0.1 port 47402 failed with EADDRINUSE'; do
		grep -qF "$want" "$T/err" || fail "$tr: gen did not say '$want': $(cat "$T/err")"
	done
	rm -f "$T/strict.pol"
	"$POLC" gen --strict -o "$T/strict.pol" "$T/fail.trace" 2>"$T/err"
	rc=$?
	[ $rc = 1 ] || fail "$tr: gen --strict on a failed run: exit $rc, not 1"
	grep -qF 'error: the recorded workload failed' "$T/err" || fail "$tr: --strict: $(cat "$T/err")"
	[ ! -e "$T/strict.pol" ] || fail "$tr: gen --strict wrote a policy for a failed run"
	echo "ok   $tr: a failed run warned about (exit 0), and refused with --strict (exit 1, nothing written)"
	# the control: a run that worked
	netns "$POLC" record --tracer $tr --no-status -o "$T/ok.trace" -- "$P/trace_net" 47403 ||
		fail "$tr: record trace_net"
	"$POLC" gen --strict -o "$T/ok.pol" "$T/ok.trace" 2>"$T/err" || fail "$tr: gen --strict on a run that worked: $(cat "$T/err")"
	grep -q 'workload failed' "$T/err" && fail "$tr: a run that worked was flagged: $(cat "$T/err")"
	echo "ok   $tr: a run that worked is not flagged"
done
echo ok
