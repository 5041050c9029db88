#!/bin/sh
# run-vmtests.sh - run the kernel lab's tests: tests/t_vm_*.sh (the lab's
# own, also part of `make test`) and every tests/vm/t_*.sh (enforcement
# tests that call tests/vm/run-in-vm.sh).  Same contract as
# tests/run-tests.sh: env POLC, BUILD, SRC; TESTS="pattern" picks a subset;
# one line per test; closes with "N passed, N failed"; exit 1 if any failed.
BUILD=${BUILD:-build}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
POLC=$SRC/$BUILD/polc
export BUILD SRC POLC
pass=0; fail=0; failed=""
log=$SRC/$BUILD/test-logs/vm; mkdir -p "$log"
for t in "$SRC"/tests/t_vm_*.sh "$SRC"/tests/vm/t_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case "$name" in *${TESTS:-}*) ;; *) continue ;; esac
	start=$(date +%s)
	if sh "$t" >"$log/$name.log" 2>&1; then
		pass=$((pass + 1)); echo "PASS $name ($(( $(date +%s) - start ))s)"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name"; tail -n 40 "$log/$name.log" | sed 's/^/    /'
	fi
done
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
