#!/bin/sh
# Run every test: the cmocka unit binaries in $BUILD/tests/, then each
# tests/t_*.sh script, then the kernel lab's tests/vm/t_*.sh where qemu runs
# (given POLC, BUILD and SRC in the environment).
# TESTS="pattern" runs only matching tests; SKIP_TESTS="p1 p2" skips. Prints one line per test and
# closes with "N passed, N failed".
BUILD=${BUILD:-build}
SRC=$(cd "$(dirname "$0")/.." && pwd)
POLC=$SRC/$BUILD/polc
export BUILD SRC POLC
pass=0; fail=0; failed=""
log=$SRC/$BUILD/test-logs; mkdir -p "$log"
run() { # name cmd...
	name=$1; shift
	case "$name" in *${TESTS:-}*) ;; *) return ;; esac
	for skip in ${SKIP_TESTS:-}; do
		case "$name" in *$skip*) echo "SKIP $name (SKIP_TESTS)"; return ;; esac
	done
	start=$(date +%s)
	if "$@" >"$log/$name.log" 2>&1; then
		pass=$((pass + 1)); echo "PASS $name ($(( $(date +%s) - start ))s)"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name"; tail -n 40 "$log/$name.log" | sed 's/^/    /'
	fi
}
for t in "$SRC/$BUILD"/tests/test_*; do
	[ -x "$t" ] && run "$(basename "$t")" "$t"
done
for t in "$SRC"/tests/t_*.sh; do
	[ -f "$t" ] && run "$(basename "$t" .sh)" sh "$t"
done
# Real enforcement in the kernel lab (AppArmor, BPF LSM): part of every run
# where qemu can start; t_vm_smoke above says SKIP where it cannot.
if qemu-system-x86_64 -version >/dev/null 2>&1; then
	mkdir -p "$log/vm"
	for t in "$SRC"/tests/vm/t_*.sh; do
		[ -f "$t" ] && run "vm/$(basename "$t" .sh)" sh "$t"
	done
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
