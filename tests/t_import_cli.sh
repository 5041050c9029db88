#!/bin/sh
# polc import: action mapping, conditions, runc's same-index fallback,
# includes/excludes for the target, YAML input, determinism, and errors with
# the profile's file:line:col.
set -u
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; cat "$T/out.pol" "$T/err" 2>/dev/null; exit 1; }
imp() { "$POLC" import "$@" -o "$T/out.pol" 2>"$T/err"; }
has() { grep -qF -- "$1" "$T/out.pol" || fail "output lacks: $1"; }

cat >"$T/p.json" <<'J'
{
	"defaultAction": "SCMP_ACT_ERRNO",
	"defaultErrnoRet": 38,
	"architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86"],
	"syscalls": [
		{ "names": ["read", "write"], "action": "SCMP_ACT_ALLOW" },
		{ "name": "ptrace", "action": "SCMP_ACT_KILL_PROCESS" },
		{ "names": ["kill"], "action": "SCMP_ACT_KILL_THREAD" },
		{ "names": ["mkdir"], "action": "SCMP_ACT_LOG" },
		{ "names": ["unlink"], "action": "SCMP_ACT_ERRNO", "errnoRet": 13 },
		{ "names": ["openat"], "action": "SCMP_ACT_ALLOW",
		  "args": [ { "index": 2, "value": 64, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ" },
			    { "index": 1, "value": 4096, "op": "SCMP_CMP_LE" } ] },
		{ "names": ["socket"], "action": "SCMP_ACT_ALLOW",
		  "args": [ { "index": 0, "value": 1, "op": "SCMP_CMP_EQ" },
			    { "index": 0, "value": 2, "op": "SCMP_CMP_EQ" } ] },
		{ "names": ["nosuchsyscall_xyz"], "action": "SCMP_ACT_ALLOW" },
		{ "names": ["chroot"], "action": "SCMP_ACT_ALLOW", "includes": { "caps": ["CAP_SYS_CHROOT"] } },
		{ "names": ["mount"], "action": "SCMP_ACT_ALLOW", "includes": { "caps": ["CAP_SYS_ADMIN"] } },
		{ "names": ["bpf"], "action": "SCMP_ACT_ALLOW", "includes": { "minKernel": "5.8" } },
		{ "names": ["iopl"], "action": "SCMP_ACT_ALLOW", "excludes": { "arches": ["amd64"] } }
	]
}
J
imp "$T/p.json" --kernel 6.1 || fail "import failed"
has "policy p {"
has "arch x86_64, i386;"
has "default deny errno ENOSYS syscall;"
has "allow syscall read, write;"
has "kill syscall ptrace;"
has "kill syscall kill;"
has "KILL_THREAD kills only the calling thread"
has "audit syscall mkdir;"
has "deny errno EACCES syscall unlink;"
has "allow syscall openat if arg2 & 64 == 0 && arg1 <= 0x1000;"
has "one statement each (an OR), as runc does"
has "allow syscall socket if arg0 == 1;"
has "allow syscall socket if arg0 == 2;"
has "libseccomp skips these too): nosuchsyscall_xyz"
has "allow syscall chroot;"          # CAP_SYS_CHROOT is in Docker's default set
has "skipped: includes.caps: CAP_SYS_ADMIN is not held"
has "allow syscall bpf;"
has "skipped: excludes.arches names this arch"
"$POLC" check "$T/out.pol" 2>"$T/err" || fail "the import does not compile"

# determinism
cp "$T/out.pol" "$T/first.pol"
imp "$T/p.json" --kernel 6.1 && cmp -s "$T/out.pol" "$T/first.pol" || fail "two imports differ"

# the target: caps, kernel, arch
imp "$T/p.json" --kernel 5.4 --caps SYS_ADMIN --arch x86_64 --name other || fail "import 2"
has "policy other {"
has "arch x86_64;"
has "allow syscall mount;"
has "skipped: includes.minKernel 5.8"
has "skipped: includes.caps: CAP_SYS_CHROOT is not held"
grep -q "does not name" "$T/err" && fail "warned about an arch"
imp "$T/p.json" --caps '' || fail "import without caps"
has "skipped: includes.caps: CAP_SYS_CHROOT is not held"
has "Evaluated for: arch x86_64, kernel"
has "caps (none)."
imp "$T/p.json" --arch x86_64,x32 || fail "import 3"
grep -q "does not name SCMP_ARCH_X32" "$T/err" || fail "no warning for an arch the profile lacks"
has "arch x86_64;"

# YAML input means the same
cat >"$T/p.yaml" <<'Y'
defaultAction: SCMP_ACT_ERRNO
defaultErrnoRet: 38
architectures: [SCMP_ARCH_X86_64, SCMP_ARCH_X86]
syscalls:
  - names: [read, write]
    action: SCMP_ACT_ALLOW
  - name: ptrace
    action: SCMP_ACT_KILL_PROCESS
Y
imp "$T/p.yaml" --name p || fail "yaml import"
has "allow syscall read, write;"
has "kill syscall ptrace;"
"$POLC" check "$T/out.pol" 2>"$T/err" || fail "the yaml import does not compile"

# errors: exit 1 with file:line:col
err() { # want-substring json-text
	printf '%s\n' "$2" >"$T/e.json"
	"$POLC" import "$T/e.json" -o "$T/e.pol" 2>"$T/err"; rc=$?
	[ "$rc" = 1 ] || fail "exit $rc for: $2"
	grep -qF -- "$1" "$T/err" || fail "no '$1' in: $(cat "$T/err")"
	[ -e "$T/e.pol" ] && fail "output written despite an error"
	return 0
}
err "e.json:1:71: error: SCMP_ACT_TRAP raises SIGSYS" '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["a"],"action":"SCMP_ACT_TRAP"}]}'
err "SCMP_ACT_TRACE hands the syscall" '{"defaultAction":"SCMP_ACT_TRACE"}'
err "SCMP_ACT_NOTIFY defers" '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["a"],"action":"SCMP_ACT_NOTIFY"}]}'
err "did you mean 'SCMP_ACT_ALLOW'" '{"defaultAction":"SCMP_ACT_ALOW"}'
err "e.json:2:1: error: cannot read the profile" '{"defaultAction": "SCMP_ACT_ALLOW", '
err "index must be an integer 0..5" '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ALLOW","args":[{"index":6,"value":1,"op":"SCMP_CMP_EQ"}]}]}'
err "unknown comparison 'SCMP_CMP_XX'" '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ALLOW","args":[{"index":0,"value":1,"op":"SCMP_CMP_XX"}]}]}'
err "duplicate key 'defaultAction'" '{"defaultAction":"SCMP_ACT_ALLOW","defaultAction":"SCMP_ACT_LOG"}'
err "profile without \"defaultAction\"" '{"syscalls":[]}'
err "errnoRet 0" '{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["read"],"action":"SCMP_ACT_ERRNO","errnoRet":0}]}'
# a typo in a key warns, naming the key
printf '{"defaultAction":"SCMP_ACT_ALLOW","sycalls":[]}\n' >"$T/w.json"
"$POLC" import "$T/w.json" -o "$T/w.pol" 2>"$T/err" || fail "warning made it fail"
grep -q "w.json:1:35: warning: unknown key 'sycalls' in profile ignored; did you mean 'syscalls'" "$T/err" || fail "no warning: $(cat "$T/err")"
# overlapping entries with different actions: a warning at the later one
printf '{"defaultAction":"SCMP_ACT_ERRNO","syscalls":[\n{"names":["read","write"],"action":"SCMP_ACT_ALLOW"},\n{"names":["write"],"action":"SCMP_ACT_ERRNO","errnoRet":5}]}\n' >"$T/ov.json"
"$POLC" import "$T/ov.json" -o "$T/ov.pol" 2>"$T/err" || fail "overlap import"
grep -q "ov.json:3:1: warning: syscall 'write' is also in syscalls\[0\] (line 2) with another action" "$T/err" || fail "no overlap warning: $(cat "$T/err")"
"$POLC" import "$T/p.json" -o "$T/np.pol" 2>"$T/err"
grep -q "another action" "$T/err" && fail "overlap warning without an overlap"
"$POLC" import "$T/nope.json" 2>"$T/err"; [ $? = 3 ] || fail "missing file is not exit 3"
"$POLC" import 2>"$T/err"; [ $? = 2 ] || fail "no file is not exit 2"

# A file name is text inside a comment of the output (import/source.c): a
# newline in it cannot end the comment and inject a statement.
inj="$T/$(printf 'x\nallow syscall ptrace;\n.json')"
printf '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}' >"$inj"
"$POLC" import "$inj" --name inj -o "$T/inj.pol" 2>"$T/err" || fail "import of a file with a newline in its name failed"
grep -q "^allow syscall ptrace" "$T/inj.pol" && fail "the file name injected a statement"
"$POLC" check "$T/inj.pol" 2>"$T/err" || fail "the import of a hostile file name does not check"
grep -q "ptrace" "$T/inj.pol" && ! grep -q "^# Imported by polc import from x?allow syscall ptrace;?.json" "$T/inj.pol" &&
	fail "the file name is not in the header as x?allow...: $(head -1 "$T/inj.pol")"
echo ok
