#!/bin/sh
# tools/lsm-floor's runner reads the floor's hooks off the enforcer's own
# object: every LSM program of it resolves to a hook the running kernel's
# BTF has (bpf_lsm_HOOK), sleepable exactly where enforcer.bpf.c's section
# says lsm.s/; a name the object lacks, or a bad list, is refused with
# 125 before anything is loaded or CMD runs; usage errors exit 2. Loading
# and attaching are checked in the lab (vm/t_bpf_enforce section 7): this
# kernel refuses BPF LSM programs, and floor-run then exits 125 without
# running CMD.
set -u
F=$SRC/$BUILD/tools/lsm-floor/floor-run
O=$SRC/$BUILD/backends/bpf/enforcer.bpf.o
E=$SRC/backends/bpf/enforcer.bpf.c
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "SKIP: no kernel BTF"; exit 0; }

# The programs in the source, "NAME sleepable|-", from SEC("lsm[.s]/HOOK")
# and the BPF_PROG(polc_NAME, ...) line after it.
awk '/^SEC\("lsm(\.s)?\// { s = ($0 ~ /lsm\.s\//) ? "sleepable" : "-"; next }
     s != "" && /BPF_PROG\(polc_/ { sub(/.*BPF_PROG\(polc_/, ""); sub(/,.*/, ""); print $0, s; s = "" }' \
	"$E" | sort >"$t/src"
[ "$(wc -l <"$t/src")" -ge 30 ] || fail "read $(wc -l <"$t/src") programs from enforcer.bpf.c"

$F "$O" --list >"$t/list" || fail "--list"
cut -d' ' -f1 "$t/src" | cmp -s - "$(sort "$t/list" >"$t/list.s"; echo "$t/list.s")" ||
	{ diff "$t/list.s" "$t/src"; fail "--list is not the source's programs"; }
$F "$O" "$(paste -sd, "$t/list")" --check >"$t/check" || fail "--check of every program"
awk '{ print $1, ($3 == "sleepable") ? "sleepable" : "-" }' "$t/check" | sort | cmp -s - "$t/src" ||
	{ cat "$t/check"; fail "--check's sleepability is not the source's"; }
grep -q '^bprm_check bprm_check_security sleepable$' "$t/check" || fail "bprm_check's hook"
grep -q '^ptrace ptrace_access_check$' "$t/check" || fail "ptrace's hook"

# refusals: nothing loaded, CMD not run
$F "$O" file_open,nosuch -- touch "$t/ran" 2>"$t/err"; rc=$?
[ $rc = 125 ] && [ ! -e "$t/ran" ] || fail "unknown name: exit $rc, ran: $([ -e "$t/ran" ] && echo yes)"
grep -q 'has no LSM program polc_nosuch' "$t/err" || fail "unknown name's message: $(cat "$t/err")"
$F "$O" file_open,,task_alloc --check 2>"$t/err"; rc=$?
[ $rc = 125 ] && grep -q 'bad name list' "$t/err" || fail "empty name: exit $rc"
$F "$O" file_open 2>/dev/null; rc=$?
[ $rc = 2 ] || fail "no --: exit $rc, want 2"
$F /nonexistent.o --list 2>/dev/null; rc=$?
[ $rc = 125 ] || fail "missing object: exit $rc, want 125"

# where the kernel refuses BPF LSM programs (this host): 125, CMD not run
if $F "$O" file_open -- touch "$t/ran" 2>"$t/err"; then
	[ -e "$t/ran" ] || fail "exit 0 without running CMD"
else
	rc=$?
	[ $rc = 125 ] && [ ! -e "$t/ran" ] || fail "refused: exit $rc, ran: $([ -e "$t/ran" ] && echo yes)"
	grep -q 'cannot load a program for file_open' "$t/err" || fail "refusal's message: $(cat "$t/err")"
fi
echo ok
