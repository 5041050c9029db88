#!/bin/sh
# t_apparmor_run.sh - `polc run --target apparmor` on this host. Where the
# kernel has no AppArmor (this build host) it must say so in one line naming
# the active LSMs, exit 3, and never run the command. Where AppArmor is
# active and we are root, the command must run confined: a denied read
# fails, a sibling file is readable. (The lab test tests/vm/t_apparmor_enforce.sh
# covers more in a kernel with AppArmor.)
set -u
: "${POLC:?}"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf 'secret\n' > "$tmp/secret"; printf 'open\n' > "$tmp/open"
cat > "$tmp/p.pol" <<EOF2
policy polc_t_apparmor_run {
  deny file "$tmp/secret" read;
  deny capability sys_admin;   # else the file deny is partial (detached mounts)
}
EOF2
if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" != Y ]; then
	"$POLC" run --target apparmor "$tmp/p.pol" -- touch "$tmp/ran" > "$tmp/out" 2>&1
	rc=$?; cat "$tmp/out"
	[ $rc = 3 ] || fail "exit $rc without AppArmor, want 3"
	[ -e "$tmp/ran" ] && fail "the command ran unconfined"
	[ "$(wc -l < "$tmp/out")" = 1 ] || fail "want one line of explanation"
	grep -q '^polc: this kernel has no AppArmor (active LSMs: [a-z]' "$tmp/out" ||
		fail "message does not name the active LSMs"
	echo "PASS: no AppArmor here, refused in one line"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "AppArmor active but not root: cannot load profiles"; exit 1; }
"$POLC" run --target apparmor --allow-partial "$tmp/p.pol" -- cat "$tmp/secret" > "$tmp/out" 2>&1 &&
	fail "denied read succeeded: $(cat "$tmp/out")"
grep -q 'Permission denied' "$tmp/out" || fail "want EACCES: $(cat "$tmp/out")"
"$POLC" run --target apparmor --allow-partial "$tmp/p.pol" -- cat "$tmp/open" > "$tmp/out" 2>&1 ||
	fail "sibling read failed: $(cat "$tmp/out")"
echo "PASS: confined under AppArmor"
