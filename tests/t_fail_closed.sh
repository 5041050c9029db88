#!/bin/sh
# t_fail_closed.sh - a statement or default a target cannot enforce is never
# dropped silently (issue 8). For each backend, one statement it cannot
# enforce at all, one it enforces only partially, and a default it cannot
# enforce:
#   - without --allow-partial, build exits 1 naming each one's
#     file:line:col and the reason, and writes nothing (an existing output
#     stays as it was);
#   - with --allow-partial, build exits 0, warns about each at its
#     file:line:col, and lists each in the output's header, in every format
#     that has a header (seccomp's raw bpf is exactly the kernel's filter:
#     the warnings are all it gets).
# Before, seccomp built `default deny file` (or exec, capability) as "allow
# everything" and dropped ptrace/signal defaults, and bpf dropped
# `default deny syscall`, all in silence.
set -u
: "${POLC:?}"
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 3
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
SENT='an earlier output'

# check TARGET FORMATS POLICY-BODY "LINE:COL|level|reason"... (level: what
# the error says after "cannot enforce": "this statement" or
# "this statement exactly" or "`default ...`" or "`default ...` exactly")
check() {
	target=$1 formats=$2 body=$3
	shift 3
	printf 'policy fc {\n%s\n}\n' "$body" >fc.pol
	for fmt in $formats; do
		printf '%s' "$SENT" >out
		"$POLC" build fc.pol --target "$target" --format "$fmt" -o out 2>err
		rc=$?
		[ "$rc" = 1 ] || fail "$target/$fmt: refused build exit $rc, want 1"
		[ "$(cat out)" = "$SENT" ] || fail "$target/$fmt: the refused build touched the output"
		for want in "$@"; do
			at=${want%%|*} rest=${want#*|}
			what=${rest%%|*} why=${rest#*|}
			grep -qF "fc.pol:$at: error: target $target cannot enforce $what: $why" err ||
				fail "$target/$fmt: no refusal 'fc.pol:$at: ... $what: $why' in: $(cat err)"
		done
		"$POLC" build fc.pol --target "$target" --format "$fmt" --allow-partial -o out 2>err
		rc=$?
		[ "$rc" = 0 ] || { fail "$target/$fmt: --allow-partial exit $rc: $(cat err)"; continue; }
		for want in "$@"; do
			at=${want%%|*} rest=${want#*|} why=${want##*|}
			grep -q "^fc.pol:$at: warning: .*: $why" err ||
				fail "$target/$fmt: no warning at fc.pol:$at ($why) in: $(cat err)"
			[ "$target/$fmt" = seccomp/bpf ] && continue
			grep -aqF "not enforced exactly: $T/fc.pol:$at: " out ||
				grep -aqF "not enforced exactly: fc.pol:$at: " out ||
				fail "$target/$fmt: the header does not list fc.pol:$at"
		done
		echo "ok   $target/$fmt: refused, or with --allow-partial warned and listed"
	done
}

check seccomp "pfc oci bpf" '  deny file "/etc/shadow" read;
  deny ptrace;
  default deny capability;
  default deny signal;' \
	"2:3|this statement|seccomp cannot see paths" \
	"3:3|this statement exactly|seccomp sees ptrace(2)" \
	"4:3|\`default deny capability\`|seccomp cannot see capability checks" \
	"5:3|\`default deny signal\` exactly|seccomp sees the kill(2) family"

check bpf "bundle json" '  deny syscall getppid;
  deny signal to "peer";
  default deny syscall;
  deny umount on "/mnt";' \
	"2:3|this statement|BPF LSM does not see syscall arguments" \
	"3:3|this statement exactly|BPF processes carry no label" \
	"4:3|\`default deny syscall\`|BPF LSM does not see syscalls" \
	"5:3|this statement exactly|the BPF enforcer cannot see the umount target"

check apparmor profile '  deny syscall getppid;
  deny file "/srv/x" write;
  audit network bind tcp port 80;' \
	"2:3|this statement|AppArmor does not mediate syscalls" \
	"3:3|this statement exactly|AppArmor's deny w also denies append" \
	"4:3|this statement|AppArmor 3 network rules cannot match addresses or ports"

# AppArmor's syscall default is refused at the default, listed in the header
printf 'policy fc {\n  default deny syscall;\n}\n' >fc.pol
"$POLC" build fc.pol --target apparmor -o out 2>err
[ $? = 1 ] && grep -qF 'fc.pol:2:3: error: target apparmor cannot enforce `default deny syscall`: AppArmor does not mediate syscalls' err ||
	fail "apparmor: default deny syscall not refused: $(cat err)"
"$POLC" build fc.pol --target apparmor --allow-partial -o out 2>err &&
	grep -qF 'fc.pol:2:3: warning: apparmor enforces `default deny syscall` not at all' err &&
	grep -qF 'fc.pol:2:3: unsupported: default deny syscall: AppArmor does not mediate syscalls' out ||
	fail "apparmor: --allow-partial default deny syscall: $(cat err)"
echo "ok   apparmor: default deny syscall refused, or warned and listed"

# a default written in a used rule is refused at the rule's line
printf 'rule closed {\n  default deny exec;\n}\npolicy fc {\n  use closed;\n}\n' >fc.pol
"$POLC" build fc.pol --target seccomp -o out 2>err
[ $? = 1 ] && grep -qF 'fc.pol:2:3: error: target seccomp cannot enforce `default deny exec`' err ||
	fail "seccomp: a rule's default deny exec not refused: $(cat err)"
echo "ok   seccomp: a rule's default is refused at the rule's line"

# exact defaults still build without --allow-partial
printf 'policy fc {\n  default deny syscall, mount, network;\n  allow syscall read;\n}\n' >fc.pol
"$POLC" build fc.pol --target seccomp -o out 2>err || fail "seccomp: exact defaults refused: $(cat err)"
printf 'policy fc {\n  default deny exec, capability, network, mount, ptrace, signal;\n}\n' >fc.pol
"$POLC" build fc.pol --target bpf -o out 2>err || fail "bpf: exact defaults refused: $(cat err)"
echo "ok   exact defaults build"

[ "$nfail" = 0 ] && echo ok
[ "$nfail" = 0 ]
