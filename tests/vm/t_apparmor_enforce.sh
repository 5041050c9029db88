#!/bin/sh
# t_apparmor_enforce.sh - `polc run --target apparmor` really confines, in
# the kernel lab (Debian's kernel with AppArmor; tests/vm/run-in-vm.sh).
# One boot runs every case; each case runs the same command unconfined first
# (it must succeed, else the case proves nothing) and then under polc:
#   deny file read    -> cat fails with EACCES, a sibling file stays readable
#   deny capability   -> chown as root fails with EPERM
#   deny exec         -> sh cannot run id (EACCES), but still runs echo
#   deny mount        -> mount -t tmpfs fails with EACCES
#   deny mount/umount on DIR -> only that mount point is refused
#   deny network inet -> an inet socket cannot be created, inet6 can
#   deny ptrace read  -> /proc/1/environ unreadable
#   deny signal       -> kill -CONT 1 (unconfined init) refused, to itself not
#   default deny file -> only the allow-list is readable
#   mode audit        -> the denied read succeeds (complain mode)
set -u
: "${POLC:?}" "${BUILD:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN="sh $SRC/tests/vm/run-in-vm.sh"
[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
# The guest sees the host tree read-only at the same path, but not /tmp.
dir=$SRC/$BUILD/apparmor-lab; rm -rf "$dir"; mkdir -p "$dir"
cat > "$dir/guest.sh" <<'GUEST'
set -u
P=$1; fails=0
ok() { echo "ok: $*"; }
no() { echo "FAIL: $*"; fails=$((fails + 1)); }
L=/tmp/lab; mkdir -p $L/m; echo s > $L/secret; echo o > $L/open; echo f > $L/f
pol() { name=$1; shift; printf 'policy %s {\n%s\n}\n' "$name" "$*" > $L/$name.pol; }
# run NAME CMD...: under the policy; output in $L/out
run() { n=$1; shift; "$P" run --target apparmor --allow-partial $L/$n.pol -- "$@" > $L/out 2>&1; }
expect_fail() { # what errno-text NAME CMD...
	what=$1 msg=$2 n=$3; shift 3
	# unconfined first: the case proves nothing if the command fails anyway
	if ! "$@" > /dev/null 2>&1; then no "$what: fails even unconfined"; return; fi
	if run "$n" "$@"; then no "$what: succeeded under polc: $(cat $L/out)"
	elif grep -q "$msg" $L/out; then ok "$what ($msg)"
	else no "$what: failed without '$msg': $(cat $L/out)"; fi
}
expect_ok() { # what NAME CMD...
	what=$1; shift
	if run "$@"; then ok "$what"; else no "$what: $(cat $L/out)"; fi
}
grep -qw apparmor /sys/kernel/security/lsm || { echo "FAIL: no AppArmor in the lab kernel: $(cat /sys/kernel/security/lsm)"; exit 1; }

pol deny_read "deny file \"$L/secret\" read;"
expect_fail "deny file read" "Permission denied" deny_read cat $L/secret
expect_ok "sibling file readable" deny_read cat $L/open
expect_ok "write to the denied file still allowed" deny_read sh -c "echo x >> $L/secret"

pol deny_cap "deny capability chown;"
expect_fail "deny capability chown" "Operation not permitted" deny_cap sh -c "chown 65534 $L/f && chown 0 $L/f"
cp $L/open $L/g && chown 65534 $L/g
expect_ok "other capabilities still allowed (fowner: chmod of nobody's file)" deny_cap chmod 600 $L/g

pol deny_exec "deny exec \"/usr/bin/id\";"
expect_fail "deny exec" "Permission denied" deny_exec sh -c /usr/bin/id
expect_ok "other programs still run" deny_exec sh -c "/usr/bin/echo hi"

pol deny_mount "deny mount;"
# util-linux retries a refused mount read-only; strace shows the errno
expect_fail "deny mount" "= -1 EACCES" deny_mount sh -c "strace -qq -e trace=mount mount -t tmpfs none $L/m && umount $L/m"

pol deny_mount_on "deny mount on \"$L/m\";
deny umount on \"$L/u\";"
mkdir -p $L/m2 $L/u
expect_fail "deny mount on a directory" "= -1 EACCES" deny_mount_on sh -c "strace -qq -e trace=mount mount -t tmpfs none $L/m && umount $L/m"
expect_ok "mount elsewhere still allowed" deny_mount_on sh -c "mount -t tmpfs none $L/m2 && umount $L/m2"
mount -t tmpfs none $L/u
expect_fail "deny umount on a directory" "= -1 EACCES" deny_mount_on sh -c "strace -qq -e trace=umount2 umount $L/u && mount -t tmpfs none $L/u"
umount $L/u

pol deny_inet "deny network inet;"
expect_fail "deny network inet" "Permission denied" deny_inet perl -e 'use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"'
expect_ok "inet6 still allowed" deny_inet perl -e 'use Socket; socket(my $s, PF_INET6, SOCK_STREAM, 0) or die "socket: $!\n"'

pol deny_ptrace_read "deny ptrace read;"
expect_fail "deny ptrace read (/proc/1/environ)" "Permission denied" deny_ptrace_read cat /proc/1/environ

pol deny_signal "deny signal to \"unconfined\";"
expect_fail "deny signal to unconfined (kill -CONT 1)" "ermission denied" deny_signal sh -c "kill -CONT 1"
expect_ok "signal to itself still allowed" deny_signal sh -c 'kill -CONT $$'

pol allow_list "default deny file;
allow file \"/usr/**\", \"/lib/**\", \"/lib64/**\", \"/etc/ld.so.cache\" read, mmap, exec;
allow file \"$L/open\" read;
allow file \"$L/out\" read, write, append;   # the inherited stdout/stderr (AppArmor grants r with w in an allow-list: exact only with read)"
expect_ok "allow-list: listed file readable" allow_list /usr/bin/cat $L/open
expect_fail "allow-list: unlisted file unreadable" "Permission denied" allow_list /usr/bin/cat $L/secret

pol audit_mode "mode audit;
deny file \"$L/secret\" read;"
expect_ok "mode audit: the deny only logs" audit_mode cat $L/secret

[ $fails = 0 ] && echo "all AppArmor lab cases passed"
exit $fails
GUEST
$RUN --timeout 540 -- sh "$dir/guest.sh" "$POLC" > "$dir/out" 2>&1
rc=$?; cat "$dir/out"
[ $rc = 0 ] || { echo "FAIL: lab run exit $rc"; exit 1; }
grep -q '^all AppArmor lab cases passed$' "$dir/out" || { echo "FAIL: not all cases ran"; exit 1; }
