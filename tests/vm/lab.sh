# lab.sh - sourced by the lab tests (tests/vm/t_*.sh): in_lab by their host
# half, lab_need_lsms by their guest half.
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
