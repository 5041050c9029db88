#!/bin/sh
# polc build/run --target seccomp --allow-split end to end: a policy over the
# kernel's 4,096 instructions is refused as before without the flag; with it,
# OUT.1 ... OUT.n are written (stale pieces beyond removed, OUT untouched),
# polc run installs them all and each filter's verdicts take effect; formats
# whose filter the container runtime builds are refused (exit 2).
set -eu
cd "$SRC"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1,500 statements each on close, fchdir and fsync: about 3 filters
python3 - "$T/big.pol" <<'PY'
import sys
out = ["policy big {"]
for name, err, base in (("close", "EACCES", 5000), ("fchdir", "EXDEV", 6000), ("fsync", "ENOLINK", 7000)):
    out += ["  deny errno %s syscall %s if arg0 == %d;" % (err, name, base + i) for i in range(1500)]
out.append("}")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY

# without --allow-split: the refusal, nothing written
if "$POLC" build "$T/big.pol" --target seccomp -o "$T/big.bpf" 2>"$T/err"; then fail "built without --allow-split"; fi
grep -q "the kernel loads at most 4096 (BPF_MAXINSNS)" "$T/err" || { cat "$T/err"; fail "no size refusal"; }
[ ! -e "$T/big.bpf" ] && [ ! -e "$T/big.bpf.1" ] || fail "something written on refusal"

# with it: pieces, a stale one removed
: >"$T/big.bpf.9"
"$POLC" build "$T/big.pol" --target seccomp --allow-split -o "$T/big.bpf" 2>"$T/err" || { cat "$T/err"; fail "split build"; }
grep -q "install them all, in this order" "$T/err" || { cat "$T/err"; fail "no install note"; }
n=0
while [ -e "$T/big.bpf.$((n + 1))" ]; do
	n=$((n + 1))
	sz=$(wc -c <"$T/big.bpf.$n")
	[ $((sz % 8)) = 0 ] && [ "$sz" -gt 0 ] && [ "$sz" -le $((4096 * 8)) ] || fail "piece $n: $sz bytes"
done
[ "$n" -ge 2 ] || fail "$n pieces"
[ ! -e "$T/big.bpf" ] || fail "OUT itself written"
[ ! -e "$T/big.bpf.9" ] || fail "stale piece 9 left"
echo "split: $n pieces"

# polc run installs them all: each probe gets its own filter's errno
"$POLC" run --target seccomp --allow-split "$T/big.pol" -- python3 -c '
import errno, os
def err(f, *a):
    try:
        f(*a)
    except OSError as e:
        return e.errno
    return 0
got = (err(os.close, 5003), err(os.fchdir, 6003), err(os.fsync, 7003), err(os.close, 9999))
want = (errno.EACCES, errno.EXDEV, errno.ENOLINK, errno.EBADF)
assert got == want, (got, want)
' 2>"$T/err" || { cat "$T/err"; fail "run --allow-split probes"; }
if "$POLC" run --target seccomp "$T/big.pol" -- true 2>"$T/err"; then fail "run without --allow-split"; fi
grep -q "at most 4096" "$T/err" || { cat "$T/err"; fail "run: no size refusal"; }

# a policy that fits: OUT.1 is the unsplit filter
echo 'policy small { deny syscall dup if arg0 == 7; }' >"$T/small.pol"
"$POLC" build "$T/small.pol" --target seccomp -o "$T/small.bpf" 2>/dev/null
"$POLC" build "$T/small.pol" --target seccomp --allow-split -o "$T/small.bpf" 2>/dev/null
cmp -s "$T/small.bpf" "$T/small.bpf.1" || fail "small: OUT.1 differs from the unsplit build"
[ ! -e "$T/small.bpf.2" ] || fail "small: a second piece"

# usage refusals (exit 2): formats the runtime builds, stdout, audit mode
for f in oci spo k8s pfc; do
	set +e; "$POLC" build "$T/small.pol" --target seccomp --format $f --allow-split -o "$T/x" 2>"$T/err"; rc=$?; set -e
	[ $rc = 2 ] || fail "--format $f --allow-split: exit $rc"
	grep -q "container runtime" "$T/err" || { cat "$T/err"; fail "$f: no reason"; }
	[ ! -e "$T/x" ] && [ ! -e "$T/x.1" ] || fail "$f: written"
done
set +e; "$POLC" build "$T/small.pol" --target seccomp --allow-split >/dev/null 2>"$T/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "give -o OUT" "$T/err" || fail "--allow-split to stdout: exit $rc"
set +e; "$POLC" run --target seccomp --allow-split --mode audit -o "$T/log" "$T/small.pol" -- true 2>"$T/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "mode audit" "$T/err" || { cat "$T/err"; fail "run --allow-split --mode audit: exit $rc"; }
set +e; "$POLC" build "$T/small.pol" --target landlock --allow-split -o "$T/x" 2>"$T/err"; rc=$?; set -e
[ $rc = 2 ] && grep -q "never splits" "$T/err" || { cat "$T/err"; fail "landlock --allow-split: exit $rc"; }
echo "ok"
