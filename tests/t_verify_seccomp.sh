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
# other kernel paths are probed too: the new mount API for a mount
# statement (open_tree without OPEN_TREE_CLONE is no mount), io_uring for a
# socket family statement (issue 12: 2 probes here before, 13 now)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
printf 'policy m {\n  deny mount;\n  deny network netlink;\n}\n' >"$T/m.pol"
out=$("$POLC" verify "$T/m.pol" --target seccomp --probes 2>&1)
for w in open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr; do
	echo "$out" | grep -q "(match, other path: $w): expected deny errno 1, observed denied errno 1: ok" ||
		{ echo "no $w probe for deny mount"; fail=1; }
done
echo "$out" | grep -q "neighbour: no mount, open_tree): expected allow, observed allowed: ok" ||
	{ echo "no open_tree neighbour probe"; fail=1; }
[ "$(echo "$out" | grep -c '(other path: io_uring): expected deny errno 1, observed denied errno 1: ok')" = 3 ] ||
	{ echo "no io_uring probes for deny network netlink"; fail=1; }
echo "$out" | grep -q '^policy m: 13 probes, 0 mismatches$' || { echo "$out"; fail=1; }
# JSON for CI
"$POLC" verify examples/redis.pol --target seccomp --json | grep -q '"mismatches":0' || fail=1
exit $fail
