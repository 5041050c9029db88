# lab.sh - sourced by the lab tests (tests/vm/t_*.sh): in_lab by their host
# half, check and lab_need_lsms by their guest half.
# in_lab ARG...: runs tests/vm/run-in-vm.sh ARG... (its options, `--` and the
# command: the calling test with --inside), prints what the lab printed and
# exits the test: 0 when the lab run succeeded and its guest half printed the
# line ALL-OK, 1 otherwise. SRC must be set.
in_lab() {
	out=$(sh "$SRC/tests/vm/run-in-vm.sh" "$@" 2>&1)
	rc=$?
	echo "$out"
	[ $rc = 0 ] || { echo "FAIL: lab run exit $rc"; exit 1; }
	echo "$out" | grep -q '^ALL-OK$' || { echo "FAIL: no ALL-OK"; exit 1; }
	exit 0
}

# Inside the lab, by a test's guest half: check NAME WANT GOT prints "ok"
# or "FAIL" with NAME and sets bad=1 (the test's exit status) when GOT is
# not WANT.
check() {
	if [ "$2" = "$3" ]; then echo "ok   $1: $3"; else echo "FAIL $1: want $2, got $3"; bad=1; fi
}

# Inside the lab, by a test's guest half: lab_need_lsms LSM... exits the test
# (status 1, a FAIL line naming the active ones) unless every LSM named is
# active in the lab kernel.
lab_need_lsms() {
	for lsm in "$@"; do
		grep -qw "$lsm" /sys/kernel/security/lsm ||
			{ echo "FAIL: no $lsm in $(cat /sys/kernel/security/lsm)"; exit 1; }
	done
}

# Inside the lab: lab_keep_enforcer loads an always-allow BPF policy on a
# cgroup of its own (no task ever joins it), so the enforcer stays installed
# (pinned) until lab_release_enforcer: the last policy's unload removes it,
# and each install costs the 6.1 verifier ~40 s under TCG. A test whose steps
# each load and unload a policy (polc run --target bpf, polc verify) then
# pays one install per boot, not one per step; every step's own policy is
# loaded, enforced and unloaded as before. Needs POLC.
LAB_KEEP_CG=/sys/fs/cgroup/unified/polc-lab-keep
lab_keep_enforcer() {
	mkdir -p "$LAB_KEEP_CG" /tmp/lab-keep
	printf 'policy lab_keep {\n  default allow;\n}\n' >/tmp/lab-keep/keep.pol
	"$POLC" build /tmp/lab-keep/keep.pol --target bpf -o /tmp/lab-keep/keep.bpfpol &&
		"$POLC" load /tmp/lab-keep/keep.bpfpol --cgroup "$LAB_KEEP_CG"
}
lab_release_enforcer() {
	"$POLC" unload --cgroup "$LAB_KEEP_CG"
}

# On the host, by the server-profile tests (t_profiles_servers_lsm,
# t_profiles_audit_lsm): lab_servers_prepare NAME SERVERS SHIPPED FROM_A
# empties $B/NAME into dir and keeps in want each server of SERVERS whose
# programs are installed (soak_missing), with its shipped profile copied to
# dir/S.pol when SHIPPED is 1 and its profile from load a generated into
# dir/S-a.pol when FROM_A is 1. Exits the test: SKIP without qemu or
# without any of SERVERS, FAIL when polc is not built or gen fails. Needs
# SRC, BUILD, POLC.
lab_servers_prepare() {
	case "$BUILD" in /*) B=$BUILD ;; *) B=$SRC/$BUILD ;; esac
	[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
	qemu-system-x86_64 -version >/dev/null 2>&1 || { echo "SKIP: qemu-system-x86_64 cannot run here"; exit 0; }
	dir=$B/$1; rm -rf "$dir"; mkdir -p "$dir"
	. "$SRC/profiles/soak/lib.sh"   # soak_missing
	want=""
	for s in $2; do
		miss=$(soak_missing $s)
		[ -z "$miss" ] || { echo "SKIP $s: $miss not installed (tools/deps.d/profiles)"; continue; }
		if [ "$3" = 1 ]; then cp "$SRC/profiles/$s.pol" "$dir/$s.pol" || exit 1; fi
		if [ "$4" = 1 ]; then
			"$POLC" gen --name "$s" --deny-default file,exec -o "$dir/$s-a.pol" \
				"$SRC/profiles/traces/$s.trace" 2>"$dir/gen.err" ||
				{ echo "FAIL: gen $s: $(cat "$dir/gen.err")"; exit 1; }
		fi
		want="$want $s"
	done
	[ -n "$want" ] || { echo "SKIP: none of $2 is installed"; exit 0; }
}

# Inside the lab, by the same tests: lab_soak_guest: AppArmor and BPF LSM
# active (else the test exits), a tmpfs for the soak scripts' data under
# /var/lib/polc-soak (the guest's root is the host's, read-only), lo up.
lab_soak_guest() {
	lab_need_lsms apparmor bpf
	if [ -d /var/lib/polc-soak ]; then mount -t tmpfs -o mode=755 tmpfs /var/lib/polc-soak
	else mount -t tmpfs -o mode=755 tmpfs /var/lib && mkdir /var/lib/polc-soak; fi ||
		{ echo "FAIL: no tmpfs for the data"; exit 1; }
	ip link set lo up 2>/dev/null
}
