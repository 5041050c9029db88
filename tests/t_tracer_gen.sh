#!/bin/sh
# polc gen: record -> gen -> polc check; the same traces give the same bytes
# whatever their order; --base runtime-default keeps only what the rule does
# not allow (decided by the compiler); malformed and newer traces are refused
# with file:line and exit 1.
set -u
P=$SRC/$BUILD/tests/progs
T=$(mktemp -d /tmp/polc-gen.XXXXXXXXXX)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$POLC" record --tracer ptrace -o "$T/a.trace" -- "$P/trace_tree" "$T" || fail "record a"
# In a network namespace of its own: on the host's loopback any port may be
# taken (an ephemeral port of some connection), and a failed bind records
# nothing to allow.
unshare -n sh -c 'ip link set lo up && exec "$@"' sh \
	"$POLC" record -o "$T/b.trace" -- "$P/trace_net" 47401 || fail "record b"
grep -q '^meta exit "status 0"' "$T/b.trace" || { cat "$T/b.trace"; fail "trace_net failed"; }
"$POLC" gen --name tree-net -o "$T/ab.pol" "$T/a.trace" "$T/b.trace" || fail "gen"
"$POLC" gen --name tree-net -o "$T/ba.pol" "$T/b.trace" "$T/a.trace" || fail "gen reversed"
cmp "$T/ab.pol" "$T/ba.pol" || fail "gen output depends on trace order"
"$POLC" check "$T/ab.pol" || { cat "$T/ab.pol"; fail "generated policy does not pass polc check"; }
for want in 'policy tree-net {' 'default deny syscall;' '    vfork,' \
	'allow exec "/usr/bin/true";' \
	'allow network bind inet tcp port' 'allow network connect inet tcp to 127.0.0.1 port' \
; do
	grep -qF -- "$want" "$T/ab.pol" || { cat "$T/ab.pol"; fail "missing: $want"; }
done
# The temp directory's random name is generalised (mktemp -> *); trace_tree
# made sub/ there and wrote sub/rel.txt: a tree it made (gen's owned_trees).
grep -qE '^  allow file "/tmp/polc-gen\.\*/\*\*" read, write;$' "$T/ab.pol" ||
	fail "no rule for sub/rel.txt: $(grep file "$T/ab.pol")"
# Every syscall the traces saw is allowed, with its count.
for s in $(awk '$1 == "syscall" { print $3 }' "$T/a.trace" "$T/b.trace" | sort -u); do
	grep -qE "^    $s[,;] +# [0-9]+$" "$T/ab.pol" || fail "syscall $s not in the policy"
done

# --base: keyctl is outside Docker's default allow-list, read is inside.
printf 'polc-trace 1\nmeta runs 1\nsyscall x86_64 read 5\nsyscall x86_64 keyctl 2\n' > "$T/k.trace"
"$POLC" gen --name k --base runtime-default -o "$T/k.pol" "$T/k.trace" || fail "gen --base"
grep -q '^  use runtime-default;' "$T/k.pol" || fail "no use line"
grep -q '^    keyctl; ' "$T/k.pol" || { cat "$T/k.pol"; fail "keyctl missing with --base"; }
grep -q '^    read' "$T/k.pol" && fail "read is already allowed by runtime-default"
"$POLC" check "$T/k.pol" || fail "--base output does not pass polc check"
"$POLC" gen --base no-such-rule "$T/k.trace" >/dev/null 2>&1
[ $? = 1 ] || fail "unknown base rule must exit 1"

# Readers refuse what they cannot read.
printf 'polc-trace 2\n' > "$T/v2.trace"
"$POLC" gen "$T/v2.trace" 2>"$T/err" >/dev/null
[ $? = 1 ] || fail "newer version must exit 1"
grep -q "v2.trace:1: trace version 2 is newer" "$T/err" || fail "version message: $(cat "$T/err")"
printf 'polc-trace 1\nsyscall x86_64 read 1\nfile "/x" read ok\n' > "$T/bad.trace"
"$POLC" gen "$T/bad.trace" 2>"$T/err" >/dev/null
[ $? = 1 ] || fail "malformed trace must exit 1"
grep -q "bad.trace:3: " "$T/err" || fail "malformed message: $(cat "$T/err")"
echo ok
