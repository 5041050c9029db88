#!/bin/sh
# t_verify_seccomp_lab.sh - `polc verify --target seccomp` in the kernel lab
# (Debian's 6.1 kernel, one boot): every rule of the library as a policy of
# its own, the presets, the examples and the database profiles. Each probe
# asks the lab kernel how the filter decides one call (verify/
# seccomp_probe.c), on x86_64, i386 and x32 numbers (int 0x80 and x32 calls
# work there), and must match ir_decide: 0 mismatches. The same list is
# verified natively first, so a kernel-dependent difference shows as one
# side failing; the lab then takes the presets, examples and profiles that
# have seccomp probes (TCG makes each probe's fork slow). Outputs are kept in $BUILD/verify-seccomp-lab/.
set -u
: "${POLC:?}" "${BUILD:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
case "$BUILD" in /*) B=$BUILD ;; *) B=$SRC/$BUILD ;; esac
[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
dir=$B/verify-seccomp-lab; rm -rf "$dir"; mkdir -p "$dir"

. "$SRC/tests/vm/policy-list.sh"

cat > "$dir/guest.sh" <<'GUEST'
dir=$1; tag=$2; list=$3
uname -r > "$dir/$tag.kernel"
while read -r i f p; do
	"$POLC" verify "$f" --policy "$p" --target seccomp > "$dir/$tag.$i.out" 2>&1
	echo "$i exit $?" >> "$dir/$tag.status"
done < "$list"
GUEST

POLC=$POLC sh "$dir/guest.sh" "$dir" host "$dir/list"
# The lab (TCG: a probe is a fork there, ~60 ms) verifies the policies
# that have seccomp probes, library rules only through the presets that use
# them (most rules speak of files, paths or capabilities only).
while read -r i f p; do
	case "$f:$p" in */library.pol:lib-runtime-default|*/library.pol:lib-enhance-protect) ;;
	*/library.pol:*) continue ;; esac
	grep -qE "^policy $p: [1-9][0-9]* probes" "$dir/host.$i.out" && echo "$i $f $p"
done < "$dir/list" > "$dir/list.lab"
start=$(date +%s)
sh "$SRC/tests/vm/run-in-vm.sh" --timeout 600 --share "$dir" --env POLC="$POLC" \
	-- sh "$dir/guest.sh" "$dir" lab "$dir/list.lab"
rc=$?
echo "lab run: exit $rc, $(( $(date +%s) - start ))s"
[ $rc = 0 ] || { echo "FAIL: lab exit $rc"; exit 1; }

fail=0
for tag in host lab; do
	total=0
	list=$dir/list; [ $tag = lab ] && list=$dir/list.lab
	while read -r i f p; do
		out=$dir/$tag.$i.out
		[ -f "$out" ] || { echo "FAIL $tag $p: no output"; fail=1; continue; }
		st=$(sed -n "s/^$i exit \([0-9]*\)$/\1/p" "$dir/$tag.status")
		head=$(grep -m1 "^policy $p:" "$out")
		n=$(echo "$head" | sed -n 's/.*: \([0-9]*\) probes.*/\1/p')
		total=$((total + ${n:-0}))
		case "$head" in *", 0 mismatches") ;; *) echo "FAIL $tag: $head"; fail=1 ;; esac
		[ "$st" = 0 ] || { echo "FAIL $tag $p: verify exited $st"; grep '^MISMATCH' "$out"; fail=1; }
	done < "$list"
	echo "$tag (Linux $(cat "$dir/$tag.kernel")): $total seccomp probes over $(wc -l < "$list") policies"
	[ "$total" -ge 500 ] || { echo "FAIL: too few probes on $tag ($total)"; fail=1; }
done
[ $fail = 0 ] && echo "PASS: the seccomp output of every policy verified on the host and in the lab, 0 mismatches"
exit $fail
