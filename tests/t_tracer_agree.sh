#!/bin/sh
# Both recorders describe the same run identically: tests/progs/trace_agree
# (files through every decoded call kind, symlinks followed or not, utime*,
# a record lock, an O_TMPFILE file (DIR/#INODE, the inode left out),
# capabilities implied by calls and by socket operations, a thread, a forked
# exec) recorded with ptrace and with eBPF gives the same trace, line for
# line, except what docs/trace-format.md lists as the recorders' documented
# differences: meta duration_ms and meta tracer; and the syscall counts
# equal strace -c's.
set -u
P=$SRC/$BUILD/tests/progs
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (raw socket, chown, eBPF)"; exit 0; }
if ! "$POLC" record --tracer ebpf -o "$T/probe.trace" -- true 2>"$T/probe.err"; then
	echo "SKIP: the eBPF recorder cannot run here: $(cat "$T/probe.err")"
	exit 0
fi
for tr in ptrace ebpf; do
	mkdir "$T/d"
	"$POLC" record --tracer $tr -o "$T/$tr.trace" -- "$P/trace_agree" "$T/d" ||
		fail "$tr: record"
	rm -rf "$T/d"
	# an O_TMPFILE file's inode differs between the runs
	grep -v -e '^meta duration_ms ' -e '^meta tracer ' "$T/$tr.trace" |
		sed 's|/#[0-9]*" |/#INODE" |' > "$T/$tr.cmp"
done
diff -u "$T/ptrace.cmp" "$T/ebpf.cmp" || fail "the recorders disagree (- ptrace, + ebpf)"
# What the comparison stands on: a test that compares two empty traces
# would pass too.
for want in 'meta processes 2' 'cap chown ok 1' 'cap setuid ok 1' 'cap net_raw ok 1' \
	'cap net_bind_service ok 1' "file \"$T/d/a.txt\" write ok 7" \
	"file \"$T/d/l\" read ELOOP 1" "file \"$T/d/thread.log\" append ok 1" \
	"file \"$T/d/thread.log\" write ok 1" "file \"$T/d/a.txt\" lock ok 2" \
	"file \"$T/d/#INODE\" read ok 1" "file \"$T/d/#INODE\" write ok 1" \
	'exec "/usr/bin/true" ok 1' "net bind unix stream \"$T/d/sock\" - ok 1" \
	'syscall x86_64 utime 1' 'syscall x86_64 utimes 1' 'syscall x86_64 open 1' \
	'syscall x86_64 clone 2'; do
	grep -qxF -- "$want" "$T/ebpf.cmp" || fail "both traces lack: $want"
done
# And against a counter we did not write: strace -c's per-syscall counts
# for the same program (strace leaves out exit and exit_group, which never
# return, and adds a total).
if command -v strace >/dev/null 2>&1; then
	mkdir "$T/d"
	strace -f -qq -c -U name,calls -o "$T/strace.txt" "$P/trace_agree" "$T/d" ||
		fail "strace run"
	rm -rf "$T/d"
	awk 'NF == 2 && $2 ~ /^[0-9]+$/ && $1 != "total" { print "syscall x86_64", $1, $2 }' \
		"$T/strace.txt" | LC_ALL=C sort > "$T/strace.cmp"
	grep '^syscall ' "$T/ebpf.cmp" | grep -v -e ' exit ' -e ' exit_group ' |
		LC_ALL=C sort > "$T/ours.cmp"
	diff -u "$T/strace.cmp" "$T/ours.cmp" || fail "syscall counts differ from strace -c (- strace)"
else
	echo "note: strace not installed: counts not compared with it"
fi
echo "ok: ptrace and eBPF traces agree ($(wc -l < "$T/ebpf.cmp") lines)"
