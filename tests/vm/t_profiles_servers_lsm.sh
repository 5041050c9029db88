#!/bin/sh
# t_profiles_servers_lsm.sh - the server profiles for nginx, memcached and
# mariadb enforced by AppArmor and by BPF LSM in the kernel lab (one boot),
# with 0 denials counted from the kernel and each load's own checks
# passing (profiles/soak/SERVER.sh, short loads):
#   - a profile generated from load a alone (profiles/traces/SERVER.trace,
#     `polc gen --deny-default file,exec` as `make profiles` does) runs
#     load b, the different legitimate use it never saw;
#   - the shipped profile (profiles/SERVER.pol, from loads a and b) runs
#     load b. Load b does load a's work too (its loop is load a's), so
#     0 denials under load b covers both loads.
# Denials: AppArmor's apparmor="DENIED" audit lines in the guest's kernel
# log (printk rate limit off); BPF LSM's event ring buffer (every deny,
# none dropped: `polc status`). Servers not installed on the host (the
# guest runs the host's userland) are SKIP lines.
# SERVERS (default "nginx memcached mariadb"), TARGETS (default "apparmor
# bpf"), SECS per load (default 1).
# Measured (2026-12-03 21:31, host load ~16 from ten other lab VMs): not
# done in 900 s. AppArmor: nginx from load a FAILS load b (1 denial: open
# "/var/lib/polc-soak/nginx/www/list/" r, the directory listing load a
# never did: 41 s); nginx shipped 0 denials (120 s); memcached from load a
# and shipped 0 denials (18 s, 23 s); mariadb and every BPF LSM run not
# reached. BPF LSM (TARGETS=bpf SERVERS="nginx memcached", 21:51, 124 s
# with the boot): nginx from load a FAILS load b (1 denial: deny file by
# default /var/lib/polc-soak/nginx/www/list), nginx shipped 0 denials
# (23 s), memcached from load a 0 (29 s) and shipped 0 (26 s); 0 records
# dropped. Kept off main until nginx's gap is closed and mariadb measured.
set -u
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
POLC=${POLC:-$SRC/$BUILD/polc}

if [ "${1:-}" != --inside ]; then
	case "$BUILD" in /*) B=$BUILD ;; *) B=$SRC/$BUILD ;; esac
	[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
	qemu-system-x86_64 -version >/dev/null 2>&1 || { echo "SKIP: qemu-system-x86_64 cannot run here"; exit 0; }
	dir=$B/profiles-servers-lsm; rm -rf "$dir"; mkdir -p "$dir"
	. "$SRC/profiles/soak/lib.sh"   # soak_missing
	want=""
	for s in ${SERVERS:-nginx memcached mariadb}; do
		miss=$(soak_missing $s)
		[ -z "$miss" ] || { echo "SKIP $s: $miss not installed (tools/deps.d/profiles)"; continue; }
		cp "$SRC/profiles/$s.pol" "$dir/$s.pol" || exit 1
		"$POLC" gen --name "$s" --deny-default file,exec -o "$dir/$s-a.pol" \
			"$SRC/profiles/traces/$s.trace" 2>"$dir/gen.err" || { echo "FAIL: gen $s: $(cat "$dir/gen.err")"; exit 1; }
		want="$want $s"
	done
	[ -n "$want" ] || { echo "SKIP: none of nginx, memcached, mariadb is installed"; exit 0; }
	start=$(date +%s)
	sh "$SRC/tests/vm/run-in-vm.sh" --timeout "${LAB_TIMEOUT:-900}" --mem 2048 --share "$dir" \
		--env POLC="$POLC" --env SRC="$SRC" --env WANT="$want" --env SECS="${SECS:-1}" --env TARGETS="${TARGETS:-apparmor bpf}" \
		-- sh "$SRC/tests/vm/t_profiles_servers_lsm.sh" --inside "$dir" > "$dir/out" 2>&1
	rc=$?
	cat "$dir/out"
	echo "lab run: exit $rc, $(( $(date +%s) - start ))s"
	[ $rc = 0 ] || { echo "FAIL: lab exit $rc"; exit 1; }
	grep -q '^ALL-OK$' "$dir/out" || { echo "FAIL: no ALL-OK"; exit 1; }
	echo "PASS:$want load b under profiles from load a and shipped ones, AppArmor and BPF LSM, 0 denials"
	exit 0
fi

# ---- inside the lab, as root ----
dir=$2
L=/tmp/psl; mkdir -p $L
bad=0
no() { echo "FAIL: $*"; bad=1; }
for lsm in apparmor bpf; do
	grep -qw $lsm /sys/kernel/security/lsm || { echo "FAIL: no $lsm in $(cat /sys/kernel/security/lsm)"; exit 1; }
done
# the soak scripts keep their data under /var/lib/polc-soak (the guest's
# root is the host's, read-only)
if [ -d /var/lib/polc-soak ]; then mount -t tmpfs -o mode=755 tmpfs /var/lib/polc-soak
else mount -t tmpfs -o mode=755 tmpfs /var/lib && mkdir /var/lib/polc-soak; fi || { echo "FAIL: no tmpfs for the data"; exit 1; }
ip link set lo up 2>/dev/null

. "$SRC/tests/vm/lsm-denials.sh"   # mark, denials, show_denied
lsm_watch polc-servers-keep

for t in $TARGETS; do
	for s in $WANT; do
		for p in $s-a $s; do
			mark $t
			st=$(date +%s)
			TARGET=$t sh "$SRC/profiles/soak/$s.sh" "$POLC" run "$dir/$p.pol" b "$SECS" > $L/out 2>&1
			r=$?
			n=$(denials $t)
			echo "RESULT $s profile=$([ $p = $s ] && echo shipped || echo from-load-a) target=$t load=b exit=$r denials=$n seconds=$(( $(date +%s) - st )) $(grep -o '[0-9]* rounds in.*' $L/out)"
			[ $r = 0 ] || { no "$s load b under $p.pol ($t): exit $r"; grep -v '^ ' $L/out | tail -n 5 | sed 's/^/    /'; }
			[ "$n" = 0 ] || { no "$s load b under $p.pol ($t): $n denials"; show_denied; }
		done
	done
done
lsm_unwatch
[ $bad = 0 ] && echo ALL-OK
exit $bad
