#!/bin/sh
# polc build --target bpf: the bundle and its JSON are deterministic, the
# JSON names every statement, syscall statements are refused with their
# location (BPF LSM cannot see syscall arguments), a corrupted bundle is
# refused by polc load, and on a kernel that refuses BPF LSM programs
# every command says so in one line, exits 3 and leaves nothing pinned.
set -u
t=$(mktemp -d); trap 'rm -rf "$t"; rmdir /sys/fs/cgroup/unified/polc-t-bpf 2>/dev/null' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat >"$t/p.pol" <<'P'
policy web {
  default allow;
  use mitigate-sa-leak;
  deny errno EACCES file "/proc/sys/kernel/**" read;
  allow file "/var/lib/web/**" read;
  deny exec "/**/{curl,wget}";
  deny capability sys_admin;
  deny network connect to 169.254.169.254/32;
  deny mount fstype proc;
  deny network raw;
  deny network packet;
}
P
$POLC build --target bpf -o "$t/a.bpfpol" "$t/p.pol" || fail "build"
$POLC build --target bpf -o "$t/b.bpfpol" "$t/p.pol" || fail "build 2"
cmp -s "$t/a.bpfpol" "$t/b.bpfpol" || fail "bundle not deterministic"
head -c 8 "$t/a.bpfpol" | grep -q POLCBPF || fail "bundle magic"
$POLC build --target bpf --format json -o "$t/a.json" "$t/p.pol" || fail "json"
$POLC build --target bpf --format json -o "$t/b.json" "$t/p.pol" || fail "json 2"
cmp -s "$t/a.json" "$t/b.json" || fail "json not deterministic"
grep -q '"format": "polc-bpf-bundle"' "$t/a.json" || fail "json format"
grep -q 'stmt 0 file deny .*mitigate-sa-leak' "$t/a.json" || fail "json names the rule statement"
grep -q '"capabilities": {"21": "deny errno=1 stmt=' "$t/a.json" || fail "json capability table"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$t/a.json" || fail "json does not parse"

# syscall statements: refused with the location
printf 'policy s {\n  deny syscall bpf;\n}\n' >"$t/s.pol"
$POLC build --target bpf -o "$t/s.bpfpol" "$t/s.pol" 2>"$t/err"; rc=$?
[ $rc = 1 ] || fail "syscall statement: exit $rc, want 1"
grep -q 's.pol:2:3: error: .*BPF LSM does not see syscall arguments; use seccomp' "$t/err" ||
	{ cat "$t/err"; fail "syscall refusal message"; }

# A connect deny holds only where no packet carries its own destination
# (raw and packet sockets, CAP_NET_RAW): refused as partial until the
# policy closes that route, by the capability or by the sockets
printf 'policy r {\n  deny network connect to 169.254.169.254/32;\n}\n' >"$t/r.pol"
$POLC build --target bpf -o "$t/r.bpfpol" "$t/r.pol" 2>"$t/err"; rc=$?
[ $rc = 1 ] || fail "connect deny with raw packets left: exit $rc, want 1"
grep -q 'r.pol:2:3: error: target bpf cannot enforce this statement exactly: a process with CAP_NET_RAW sends packets that carry their own destination' "$t/err" ||
	{ cat "$t/err"; fail "raw-packet refusal message"; }
[ -e "$t/r.bpfpol" ] && fail "a refused build wrote its output"
printf 'policy r {\n  deny network connect to 169.254.169.254/32;\n  deny capability net_raw;\n}\n' >"$t/r.pol"
$POLC build --target bpf -o "$t/r.bpfpol" "$t/r.pol" 2>"$t/err" || { cat "$t/err"; fail "net_raw denied: still refused"; }
printf 'policy r {\n  deny network connect to 169.254.169.254/32;\n  deny network raw;\n}\n' >"$t/r.pol"
$POLC build --target bpf -o "$t/r2.bpfpol" "$t/r.pol" 2>"$t/err" && fail "packet sockets left: built"
printf 'policy r {\n  default deny network;\n  allow network tcp;\n}\n' >"$t/r.pol"
$POLC build --target bpf -o "$t/r3.bpfpol" "$t/r.pol" 2>"$t/err" || { cat "$t/err"; fail "default deny leaving no raw socket: refused"; }

# a corrupted bundle is refused before anything is loaded
cp "$t/a.bpfpol" "$t/c.bpfpol"
printf 'X' | dd of="$t/c.bpfpol" bs=1 seek=200 conv=notrunc 2>/dev/null
$POLC load "$t/c.bpfpol" --cgroup /sys/fs/cgroup 2>"$t/err"; rc=$?
[ $rc = 1 ] && grep -q 'checksum mismatch' "$t/err" || { cat "$t/err"; fail "corrupt bundle: exit $rc"; }

# No BPF LSM on this kernel (the lab has one: tests/vm/t_bpf_enforce.sh).
if grep -qw bpf /sys/kernel/security/lsm 2>/dev/null; then
	echo "BPF LSM active here: refusal checks skipped"; exit 0
fi
cg=/sys/fs/cgroup/unified/polc-t-bpf
[ -d /sys/fs/cgroup/unified ] || cg=/sys/fs/cgroup/polc-t-bpf
mkdir -p "$cg" 2>/dev/null || { echo "no cgroup v2 to test with: skipped"; exit 0; }
$POLC load "$t/a.bpfpol" --cgroup "$cg" 2>"$t/err"; rc=$?
[ $rc = 3 ] || fail "load on a kernel without BPF LSM: exit $rc, want 3"
[ "$(wc -l <"$t/err")" = 1 ] || { cat "$t/err"; fail "not one line"; }
grep -q 'refuses BPF LSM programs' "$t/err" || { cat "$t/err"; fail "message"; }
[ -e /sys/fs/bpf/polc ] && fail "something pinned after a refused load"
$POLC run --target bpf "$t/p.pol" -- true 2>"$t/err"; rc=$?
[ $rc = 3 ] && [ "$(wc -l <"$t/err")" = 1 ] || { cat "$t/err"; fail "run: exit $rc"; }
ls -d /sys/fs/cgroup/unified/polc-run-* /sys/fs/cgroup/polc-run-* 2>/dev/null && fail "run left a cgroup"
$POLC status >"$t/out"; rc=$?
[ $rc = 0 ] && grep -q 'no BPF policy is loaded' "$t/out" || fail "status: exit $rc"
echo ok
