#!/bin/sh
# t_verify_lsm.sh - `polc verify` under real AppArmor and BPF LSM, in the
# kernel lab (one boot): every rule of the library as a policy of its own,
# the presets (enhance-protect included), the examples and the database
# profiles. Each probe runs for real in a throwaway child (verify/lsm_probe.c)
# and must be decided as ir_decide() says: 0 mismatches, and the two LSMs
# agree wherever both enforce a statement exactly.
# The table rule x backend and every probe's expected and observed result
# are printed (and kept in $BUILD/verify-lab/).
set -u
: "${POLC:?}" "${BUILD:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
case "$BUILD" in /*) B=$BUILD ;; *) B=$SRC/$BUILD ;; esac
[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
dir=$B/verify-lab; rm -rf "$dir"; mkdir -p "$dir"

. "$SRC/tests/vm/policy-list.sh"

cat > "$dir/guest.sh" <<'GUEST'
# In the lab: verify each policy natively (this kernel has both LSMs), one
# after another. The BPF enforcer is installed once (lab_keep_enforcer),
# not per policy.
dir=$1
. "$SRC/tests/vm/lab.sh"
lab_keep_enforcer
while read -r i f p; do
	t0=$(date +%s)
	"$POLC" verify "$f" --policy "$p" --target apparmor,bpf --probes > "$dir/$i.out" 2>&1
	echo "$i exit $? $(( $(date +%s) - t0 ))s" >> "$dir/status"
done < "$dir/list"
lab_release_enforcer
GUEST
start=$(date +%s)
sh "$SRC/tests/vm/run-in-vm.sh" --timeout 2400 --share "$dir" --env POLC="$POLC" --env SRC="$SRC" \
	-- sh "$dir/guest.sh" "$dir"
rc=$?
echo "lab run: exit $rc, $(( $(date +%s) - start ))s"
[ $rc = 0 ] || { echo "FAIL: lab exit $rc"; exit 1; }

fail=0; total=0
while read -r i f p; do
	out=$dir/$i.out
	[ -f "$out" ] || { echo "FAIL $p: no output"; fail=1; continue; }
	st=$(sed -n "s/^$i exit \([0-9]*\) .*/\1/p" "$dir/status")
	head=$(grep -m1 "^policy $p:" "$out")
	echo "$head"
	n=$(echo "$head" | sed -n 's/.*: \([0-9]*\) probes.*/\1/p')
	total=$((total + ${n:-0}))
	case "$head" in *", 0 mismatches") ;; *) fail=1 ;; esac
	[ "$st" = 0 ] || { echo "FAIL $p: verify exited $st"; sed -n '/^rule /,$p' "$out"; fail=1; }
	grep '^MISMATCH\|agree on' "$out"
done < "$dir/list"

# The matrix of the biggest preset, and proof that probes really ran.
ep=$dir/$(awk '$3 == "lib-enhance-protect" { print $1 }' "$dir/list").out
sa=$dir/$(awk '$3 == "lib-mitigate-sa-leak" { print $1 }' "$dir/list").out
sed -n '/^rule /,$p' "$ep"
for r in mitigate-sa-leak disallow-umount disable-cap-privilege runc-override-mitigation; do
	grep -E "^$r +proven" "$ep" >/dev/null ||
		{ echo "FAIL: $r not proven under enhance-protect"; fail=1; }
done
grep -q '^apparmor and bpf agree on [1-9][0-9]* of ' "$sa" ||
	{ echo "FAIL: no cross-backend agreement reported"; fail=1; }
echo "probes run: $total over $(wc -l < "$dir/list") policies"
echo "--- every probe, expected and observed"
grep -h '^probe ' "$dir"/[0-9]*.out
[ "$total" -ge 1000 ] || { echo "FAIL: too few probes ($total)"; fail=1; }
[ $fail = 0 ] && echo "PASS: every policy verified under AppArmor and BPF LSM, 0 mismatches"
exit $fail
