# lsm-denials.sh - sourced inside the lab by tests that count the denials
# of AppArmor and BPF LSM while a workload runs (t_profiles_lsm,
# t_profiles_servers_lsm). Needs POLC, SRC, L (a scratch directory) and
# no() (records a failure).
#   lsm_watch           AppArmor: every denial reaches the log (printk rate
#                       limit off); BPF: the enforcer stays pinned for the
#                       whole run (lab_keep_enforcer, lab.sh), so one
#                       follower reads every event into $L/events
#   mark T / denials T  denials of target T since the mark: the count on
#                       stdout, the records in $L/denied
#   show_denied         the records, most frequent first
#   lsm_unwatch         fails (no) if the ring buffer dropped a record
# And on the host, by the same tests:
#   lab_inside SCRIPT DIR PASS [--env N=V]...  runs `sh SCRIPT --inside DIR`
#                       in the lab (2 GB, DIR shared, LAB_TIMEOUT or 900 s),
#                       prints its output and time, and exits: 0 with
#                       "PASS: PASS" if it ended ALL-OK, else 1
lsm_watch() {
	echo 0 > /proc/sys/kernel/printk_ratelimit
	. "$SRC/tests/vm/lab.sh"
	lab_keep_enforcer >/dev/null 2>&1 || { echo "FAIL: keep policy"; exit 1; }
	"$POLC" status --follow=0 > $L/events 2>&1 &
	follower=$!
}
mark() {
	case $1 in
	apparmor) dmesg -C ;;
	bpf) sleep 0.3; ev0=$(wc -l < $L/events) ;;
	esac
}
denials() {
	case $1 in
	apparmor) dmesg | grep 'apparmor="DENIED"' > $L/denied ;;
	bpf) sleep 0.5; tail -n +$((ev0 + 1)) $L/events > $L/denied ;;
	esac
	wc -l < $L/denied
}
show_denied() { sort $L/denied | sed -e 's/^\[[ 0-9.]*\] //' -e 's/ pid=[0-9]*//' -e 's/pid [0-9]* //' | sort | uniq -c | sort -rn | head -n 20 | sed 's/^/    /'; }
lsm_unwatch() {
	"$POLC" status > $L/status; tail -n 1 $L/status
	grep -q ' 0 log records dropped' $L/status || no "BPF log records dropped: $(tail -n 1 $L/status)"
	kill $follower 2>/dev/null
	lab_release_enforcer
}

lab_inside() {
	script=$1 dir=$2 msg=$3; shift 3
	start=$(date +%s)
	sh "$SRC/tests/vm/run-in-vm.sh" --timeout "${LAB_TIMEOUT:-900}" --mem 2048 --share "$dir" "$@" \
		-- sh "$script" --inside "$dir" > "$dir/out" 2>&1
	rc=$?
	cat "$dir/out"
	echo "lab run: exit $rc, $(( $(date +%s) - start ))s"
	[ $rc = 0 ] || { echo "FAIL: lab exit $rc"; exit 1; }
	grep -q '^ALL-OK$' "$dir/out" || { echo "FAIL: no ALL-OK"; exit 1; }
	echo "PASS: $msg"
	exit 0
}
