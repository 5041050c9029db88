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
