#!/bin/sh
# polc verify proves, on this kernel, that the seccomp output of every
# example policy and of every rule-library preset decides each derived
# probe as ir_decide does (0 mismatches), and exits 1 on a mismatch.
set -u
cd "$SRC"
fail=0
for f in examples/*.pol; do
	for p in $(sed -n 's/^policy \([A-Za-z0-9_-]*\).*/\1/p' "$f"); do
		out=$("$POLC" verify "$f" --policy "$p" --target seccomp 2>&1); rc=$?
		line=$(echo "$out" | head -n 1)
		echo "$f $p: $line"
		case "$line" in *" 0 mismatches") ;; *) fail=1 ;; esac
		[ $rc = 0 ] || { echo "$out"; fail=1; }
		# a policy that names syscalls must have been probed
		if grep -q 'syscall' "$f"; then
			echo "$line" | grep -qE ': [1-9][0-9]* probes' || { echo "no probes ran"; fail=1; }
		fi
	done
done
# JSON for CI
"$POLC" verify examples/redis.pol --target seccomp --json | grep -q '"mismatches":0' || fail=1
exit $fail
