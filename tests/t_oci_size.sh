#!/bin/sh
# t_oci_size.sh - an OCI / SPO seccomp profile whose filter, as runc builds
# it with libseccomp (plus its ENOSYS stub), would exceed the kernel's 4,096
# instructions is refused (exit 1, nothing written, the costliest statements
# named); Docker's default still builds, its rules byte-identical to before.
# Without the check polc wrote the profile and runc failed at container start
# (EINVAL loading the filter; the 4,325 one below, written by polc before).
set -u
: "${POLC:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
J=$SRC/../shared/peers/docker-default-seccomp.json
[ -r "$J" ] || J=$SRC/tests/fuzz/corpus/import/docker-default-seccomp.json
"$POLC" import "$J" --kernel 6.1 --name docker --arch x86_64 -o "$T/d.pol" 2>/dev/null || fail "import"
"$POLC" build "$T/d.pol" --target seccomp --format oci -o "$T/d.json" 2>"$T/err" || fail "docker default: $(grep error: "$T/err")"
# everything before the provenance block (which names the temporary path),
# as main wrote it before this check (sha256 of that part)
got=$(sed '/"x-polc"/,$d' "$T/d.json" | sha256sum | cut -d' ' -f1)
[ "$got" = e51ff06b745ea644bb2f73aac4a914f23d930d34f43fba49478ab22fd626a217 ] || fail "docker default OCI changed: $got"
"$POLC" build "$T/d.pol" --target seccomp --format spo -o "$T/d.yaml" 2>"$T/err" || fail "docker default spo"
for r in always-allow runtime-default enhance-protect; do
	echo "policy p { use $r; }" >"$T/r.pol"
	"$POLC" build "$T/r.pol" --target seccomp --format oci -o "$T/r.json" 2>"$T/err" || fail "$r: $(grep error: "$T/err")"
done
# Docker's default (runc: 3,419 instructions) plus 20 conditions on each of
# 40 syscalls: about 6,000
# more (ARG: conditions per syscall): 5 -> 4,325, refused; 4 -> under 4,096
more() {
python3 - "$T/d.pol" "$T/$2.pol" "$1" <<'PY'
import sys
names = ("fchdir fchmod fchown fsync fdatasync ftruncate flock dup dup2 close getpgid getsid setuid "
         "setgid setpgid kill tkill umask alarm personality syncfs setns unshare fcntl lseek read write "
         "pread64 pwrite64 readv writev shutdown listen accept getsockname getpeername sendto recvfrom "
         "sendmsg recvmsg").split()
src = open(sys.argv[1]).read().rstrip()
add = ["  deny errno EACCES syscall %s if arg0 == %d;" % (n, 5000 + 7 * i) for n in names for i in range(int(sys.argv[3]))]
open(sys.argv[2], "w").write(src[:-1] + "\n".join(add) + "\n}\n")
PY
}
more 20 big
for f in oci; do
	if "$POLC" build "$T/big.pol" --target seccomp --format $f -o "$T/big.$f" 2>"$T/err"; then
		fail "$f: a profile runc cannot load was written"
	fi
	grep -q "error: seccomp oci: runc would build a filter of [0-9]* instructions.*at most 4096" "$T/err" ||
		{ cat "$T/err"; fail "$f: no size refusal"; }
	grep -q "big.pol:[0-9]*:[0-9]*: note: .* instructions of argument checks" "$T/err" || fail "$f: no costliest statements"
	[ ! -e "$T/big.$f" ] || fail "$f: written on refusal"
done
# just over and just under: the one polc writes loads in runc
more 5 over
"$POLC" build "$T/over.pol" --target seccomp --format oci -o "$T/over.json" 2>/dev/null && fail "4,325 written"
more 4 under
"$POLC" build "$T/under.pol" --target seccomp --format oci -o "$T/under.json" 2>"$T/err" || fail "just under: $(grep error: "$T/err")"
if [ "$(id -u)" = 0 ] && command -v runc >/dev/null && [ -x /bin/busybox ]; then
	B=$T/bundle
	mkdir -p "$B/rootfs/bin" && cp /bin/busybox "$B/rootfs/bin/" && (cd "$B" && runc spec) || fail "bundle"
	python3 - "$B/config.json" "$T/under.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c['process']['terminal'] = False
c['process']['args'] = ['/bin/busybox', 'echo', 'started']
c['root']['readonly'] = True
c['linux']['seccomp'] = json.load(open(sys.argv[2]))
json.dump(c, open(sys.argv[1], 'w'))
PY
	out=$(cd "$B" && timeout 60 runc run "polc-oci-size-$$" 2>"$T/rt.err")
	[ "$out" = started ] || fail "runc did not start the just-under profile: $(tail -1 "$T/rt.err")"
	echo "runc: the just-under profile loads"
else
	echo "SKIP runc part: needs root, runc and busybox-static"
fi
echo ok
