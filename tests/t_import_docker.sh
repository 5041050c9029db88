#!/bin/sh
# polc import on Docker's default profile, end to end through the CLI: the
# import compiles, builds for seccomp when the backend is linked, and polc
# diff sees exactly what granting CAP_SYS_ADMIN or an old kernel changes.
# (The exhaustive equivalence with libseccomp is test_import_docker.)
set -u
J=$SRC/../shared/peers/docker-default-seccomp.json
[ -r "$J" ] || J=/work/shared/peers/docker-default-seccomp.json
if [ ! -r "$J" ]; then echo "SKIP: docker-default-seccomp.json not found under \$SRC/../shared/peers"; exit 0; fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; cat "$T/err" 2>/dev/null; exit 1; }

"$POLC" import "$J" --kernel 6.1 --name docker -o "$T/d.pol" 2>"$T/err" || fail "import"
"$POLC" check "$T/d.pol" 2>"$T/err" || fail "check"
grep -q "arch x86_64, i386, x32;" "$T/d.pol" || fail "archMap not applied"
grep -q "default deny errno EPERM syscall;" "$T/d.pol" || fail "default"
grep -q "allow syscall clone if arg0 & 0x7e020000 == 0;" "$T/d.pol" || fail "clone condition"
grep -q "deny errno ENOSYS syscall clone3;" "$T/d.pol" || fail "clone3 ENOSYS"
"$POLC" import "$J" --kernel 6.1 --name docker -o "$T/again.pol" 2>/dev/null
cmp -s "$T/d.pol" "$T/again.pol" || fail "not deterministic"

# Granting CAP_SYS_ADMIN: clone loses its condition, clone3 is allowed, mount etc. appear.
"$POLC" import "$J" --kernel 6.1 --name docker --caps default,CAP_SYS_ADMIN -o "$T/admin.pol" 2>/dev/null || fail "import admin"
# polc builds it for seccomp (the default-caps import: see test_import_docker
# for what the backend refuses there).
"$POLC" build "$T/admin.pol" --target seccomp --format bpf -o "$T/admin.bpf" 2>"$T/err" ||
	fail "seccomp build: $(grep error: "$T/err")"
[ -s "$T/admin.bpf" ] || fail "empty BPF"
echo "seccomp build: $(($(wc -c <"$T/admin.bpf") / 8)) BPF instructions"
if ! "$POLC" build "$T/d.pol" --target seccomp --format bpf -o "$T/d.bpf" 2>"$T/err"; then
	grep -q "error: seccomp:" "$T/err" || fail "seccomp build failed without a diagnosis"
	echo "note: the seccomp backend refuses the default-caps import: $(grep error: "$T/err" | head -1)"
fi
"$POLC" diff "$T/d.pol" "$T/admin.pol" >"$T/out" 2>"$T/err"; [ $? = 1 ] || fail "diff admin: not 1"
for s in "syscall mount (x86_64, i386, x32)" "syscall clone arg0=0x20000 (x86_64, i386, x32)" "syscall clone3 (x86_64" "syscall bpf (x86_64"; do
	grep -q "^widened  $s" "$T/out" || fail "diff lacks $s"
done
grep -q "^changed  syscall clone3 (x86_64" "$T/out" && fail "clone3 deny->allow is widened, not changed"
grep -q "narrowed" "$T/out" && fail "adding a cap narrowed something"
"$POLC" diff --against "$T/admin.pol" "$T/d.pol" >/dev/null 2>&1 || fail "dropping a cap failed the gate"

# An old kernel drops the minKernel 4.8 entry (ptrace, process_vm_*).
"$POLC" import "$J" --kernel 4.4 --name docker -o "$T/old.pol" 2>/dev/null || fail "import 4.4"
"$POLC" diff "$T/d.pol" "$T/old.pol" >"$T/out" 2>"$T/err"
grep -q "^narrowed syscall ptrace (x86_64, i386, x32): old allow" "$T/out" || fail "no ptrace narrowing: $(cat "$T/out")"
[ "$(grep -c '(x86_64' "$T/out")" = 3 ] || fail "expected 3 changes (ptrace, process_vm_readv/writev): $(cat "$T/out")"
grep -q "^narrowed" "$T/out" || fail "kernel downgrade did not narrow"
grep -qv "^narrowed" "$T/out" && fail "kernel downgrade did more than narrow: $(cat "$T/out")"
echo ok
