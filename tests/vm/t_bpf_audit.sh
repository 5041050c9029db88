#!/bin/sh
# t_bpf_audit.sh - complain mode and learning from it with BPF LSM, in the
# kernel lab: an allow-list that lacks what a shell command does (read a
# file of mode 000, which root reads by capability, and create another)
# refuses it when enforced; `polc run --target bpf --mode audit` runs it to
# the end and logs each refusal with the permission it asked for (the
# enforcer's ring-buffer records of the command's cgroup): the read as
# read only, the created file as write, the capability by name; `polc gen
# --update` adds them; enforced again the command succeeds, and a second
# audit run logs nothing. One boot, ~40 s under TCG.
set -u
: "${POLC:?}" "${BUILD:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RUN="sh $SRC/tests/vm/run-in-vm.sh"
[ -x "$POLC" ] || { echo "FAIL: $POLC not built"; exit 1; }
qemu-system-x86_64 -version >/dev/null 2>&1 || { echo "SKIP: qemu-system-x86_64 cannot run here"; exit 0; }
dir=$SRC/$BUILD/bpf-audit-lab; rm -rf "$dir"; mkdir -p "$dir"
cat > "$dir/guest.sh" <<'GUEST'
set -u
P=$1 L=/tmp/lab
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p $L && echo s > $L/secret && chmod 000 $L/secret
cat > $L/al.pol <<POL
policy al {
  default deny file;
  default deny capability;
  allow file "/usr/**", "/lib/**", "/lib64/**", "/etc/ld.so.cache" read, mmap, exec;
  allow file "$L/out" read, write, append;
}
POL
cmd="cat $L/secret && echo w > $L/new"
# the four runs below each load and unload their policy; the enforcer is
# installed once for them (lab.sh)
. "$SRC/tests/vm/lab.sh"
lab_keep_enforcer >/dev/null 2>&1 || fail "cannot keep the enforcer installed"
run() { rm -f $L/new; "$P" run --target bpf "$@" -- /usr/bin/sh -c "$cmd" > $L/out 2>&1; }
run $L/al.pol && fail "enforced: the command succeeded: $(cat $L/out)"
grep -q "Permission denied" $L/out || fail "enforced: $(cat $L/out)"
run --mode audit -o $L/log1.trace $L/al.pol || fail "audit run: $(cat $L/out)"
grep -qx s $L/out && [ "$(cat $L/new)" = w ] || fail "audit run did not run to the end: $(cat $L/out)"
cat $L/log1.trace
grep -q '^meta tracer "bpf-audit" 1' $L/log1.trace || fail "log: no tracer"
grep -q "^file \"$L/secret\" read ok" $L/log1.trace || fail "log lacks the read"
grep -q "^file \"$L/secret\" write" $L/log1.trace && fail "the read was logged as a write"
grep -q "^file \"$L/new\" write ok" $L/log1.trace || fail "log lacks the created file"
grep -q "^cap dac_\(override\|read_search\) ok" $L/log1.trace || fail "log lacks the capability"
grep -q '^file "/usr/bin/cat"' $L/log1.trace && fail "an allowed access was logged"
"$P" gen --update $L/al.pol $L/log1.trace > $L/diff 2>&1 || fail "gen --update: $(cat $L/diff)"
cat $L/diff
grep -q "^+.*$L/secret" $L/diff || fail "the diff lacks the file"
grep -q "^+.*capability" $L/diff || fail "the diff lacks the capability"
run $L/al.pol || fail "enforcing the updated profile: $(cat $L/out)"
grep -qx s $L/out || fail "updated profile: $(cat $L/out)"
run --mode audit -o $L/log2.trace $L/al.pol || fail "second audit run"
n=$(grep -c '^\(file\|cap\|net\|exec\) ' $L/log2.trace)
[ "$n" = 0 ] || fail "the updated profile still refuses: $(cat $L/log2.trace)"
lab_release_enforcer >/dev/null 2>&1
echo "bpf audit -> update -> enforce: ok"
GUEST
start=$(date +%s)
$RUN --timeout 300 --env POLC="$POLC" --env SRC="$SRC" -- sh "$dir/guest.sh" "$POLC" > "$dir/out" 2>&1
rc=$?; cat "$dir/out"
echo "lab run: exit $rc, $(( $(date +%s) - start ))s"
[ $rc = 0 ] || { echo "FAIL: lab run exit $rc"; exit 1; }
grep -q '^bpf audit -> update -> enforce: ok$' "$dir/out" || { echo "FAIL: not all steps ran"; exit 1; }
