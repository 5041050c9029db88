#!/bin/sh
# t_apparmor_audit.sh - complain mode and learning from it with AppArmor, in
# the kernel lab: an allow-list that lacks a file cat reads refuses it when
# enforced; `polc run --target apparmor --mode audit` runs cat to the end
# and logs the read (the kernel's ALLOWED record, from /dev/kmsg); `polc
# gen --update` adds it; enforced again cat reads it, and a second audit
# run logs nothing of the profile. One boot, ~1 minute under TCG.
set -u
: "${POLC:?}" "${BUILD:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN="sh $SRC/tests/vm/run-in-vm.sh"
[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
dir=$SRC/$BUILD/apparmor-audit-lab; rm -rf "$dir"; mkdir -p "$dir"
cat > "$dir/guest.sh" <<'GUEST'
set -u
P=$1 L=/tmp/lab
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p $L && echo s > $L/secret
cat > $L/al.pol <<POL
policy al {
  default deny file;
  allow file "/usr/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache" read, mmap, exec;
  allow file "$L/out" read, write, append;
}
POL
# --allow-partial: the allow-list closes the exec domain, and AppArmor's
# refused execs are partial (a script's #! interpreter is not checked)
run() { "$P" run --target apparmor --allow-partial "$@" > $L/out 2>&1; }
run $L/al.pol -- /usr/bin/cat $L/secret && fail "enforced: the unlisted read succeeded: $(cat $L/out)"
grep -q "Permission denied" $L/out || fail "enforced: $(cat $L/out)"
run --mode audit -o $L/log1.trace $L/al.pol -- /usr/bin/cat $L/secret ||
	fail "audit run: $(cat $L/out)"
grep -qx s $L/out || fail "audit run did not read the file: $(cat $L/out)"
grep -q "^meta tracer \"apparmor-complain\" 1" $L/log1.trace || fail "log: $(cat $L/log1.trace)"
grep -q "^file \"$L/secret\" read ok" $L/log1.trace || fail "log lacks the read: $(cat $L/log1.trace)"
grep -q '^file "/usr/bin/cat"' $L/log1.trace && fail "an allowed access was logged: $(cat $L/log1.trace)"
"$P" gen --update $L/al.pol $L/log1.trace > $L/diff 2>&1 || fail "gen --update: $(cat $L/diff)"
cat $L/diff
grep -q "^+.*$L/secret" $L/diff || fail "the diff lacks the file"
run $L/al.pol -- /usr/bin/cat $L/secret || fail "enforcing the updated profile: $(cat $L/out)"
grep -qx s $L/out || fail "updated profile: $(cat $L/out)"
run --mode audit -o $L/log2.trace $L/al.pol -- /usr/bin/cat $L/secret || fail "second audit run"
n=$(grep -c '^file ' $L/log2.trace)
[ "$n" = 0 ] || fail "the updated profile still refuses: $(cat $L/log2.trace)"
echo "apparmor audit -> update -> enforce: ok"
GUEST
$RUN --timeout 300 -- sh "$dir/guest.sh" "$POLC" > "$dir/out" 2>&1
rc=$?; cat "$dir/out"
[ $rc = 0 ] || { echo "FAIL: lab run exit $rc"; exit 1; }
grep -q '^apparmor audit -> update -> enforce: ok$' "$dir/out" || { echo "FAIL: not all steps ran"; exit 1; }
