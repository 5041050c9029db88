#!/bin/sh
# t_oci_runtime.sh - polc's OCI seccomp output run by the real consumers:
# runc and crun start a static busybox bundle with
# the profile in config.json, and the probe's syscalls end as under
# `polc run --target seccomp` with the same policy: an allowed getppid, a
# keyctl denied with EPERM, an x32 syscall (as x32 programs make them).
# Where the policy does not name x32, the x32 call is killed (SIGSYS) by
# runc (libseccomp's default bad-architecture action) and by polc's own
# filter alike (docs/language.md); before, polc's filter failed it with
# EPERM. Where the policy names `arch x86_64, x32` both decide alike too.
# An allow-list from `polc gen` runs under runc only with what runc itself
# does after installing the filter: `polc gen --runtime runc` adds it.
set -u
: "${POLC:?}"
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
skip() { echo "SKIP: $*"; exit 0; }
[ "$(id -u)" = 0 ] || skip "runc needs root here"
command -v runc >/dev/null || skip "runc is not installed (make deps installs it)"
[ -x /bin/busybox ] || skip "busybox-static is not installed (make deps installs it)"
B=$T/bundle
mkdir -p "$B/rootfs/bin" && cp /bin/busybox "$B/rootfs/bin/" || exit 3
${CC:-cc} -static -O1 -o "$B/rootfs/bin/probe" "$SRC/tests/progs/oci_probe.c" ||
	skip "no static C library to build the probe"
(cd "$B" && runc spec) || exit 3
id=0
# crun 1.8 refuses a hybrid cgroup layout (v1 controllers beside an empty
# cgroup2, as on this host); it runs, without a cgroup of its own, where its
# mount namespace sees the cgroup2 hierarchy mounted as the unified one.
CRUN_VIEW=
grep -q '^cgroup2 /sys/fs/cgroup cgroup2 ' /proc/self/mounts ||
	CRUN_VIEW='mount --make-rprivate / && umount -l /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && '
# conf ARG [PROFILE]: config.json running the probe with ARG under PROFILE
conf() {
	python3 - "$B/config.json" "$1" "${2:-}" <<'PY'
import json, sys
path, arg, prof = sys.argv[1:4]
c = json.load(open(path))
c['process']['terminal'] = False
c['process']['args'] = ['/bin/probe', arg]
c['root']['readonly'] = True
if prof:
    c['linux']['seccomp'] = json.load(open(prof))
else:
    c['linux'].pop('seccomp', None)
json.dump(c, open(path, 'w'))
PY
}
# under RUNTIME ARG [PROFILE]: the probe's line, or "killed N"
under() {
	conf "$2" "${3:-}"
	id=$((id + 1))
	case $1 in
	runc) out=$(cd "$B" && timeout 60 runc run "polc-t-$$-$id" 2>"$T/rt.err"); rc=$? ;;
	crun) out=$(cd "$B" && timeout 60 unshare -m sh -c "$CRUN_VIEW"'crun --cgroup-manager=disabled run "$1"' \
		sh "polc-t-$$-$id" 2>"$T/rt.err"); rc=$? ;;
	esac
	if [ $rc -ge 128 ] && [ $rc -lt 160 ]; then echo "killed $((rc - 128))"; else echo "$out"; fi
}
# polc's own filter, on the host
polc_run() {
	out=$("$POLC" run --target seccomp "$1" -- "$B/rootfs/bin/probe" "$2" 2>"$T/run.err"); rc=$?
	if [ $rc -ge 128 ] && [ $rc -lt 160 ]; then echo "killed $((rc - 128))"
	elif [ $rc = 0 ]; then echo "$out"
	else echo "polc run failed: $(cat "$T/run.err")"; fi
}
[ "$(under runc getppid)" = "getppid 0 0" ] || skip "runc cannot run a bundle here: $(cat "$T/rt.err")"
runtimes=runc
if command -v crun >/dev/null; then
	if [ "$(under crun getppid)" = "getppid 0 0" ]; then runtimes="runc crun"
	else echo "SKIP crun: it cannot run a bundle here: $(head -1 "$T/rt.err")"; fi
fi

printf 'policy dl {\n  allow syscall execve;\n  deny syscall keyctl;\n}\n' >"$T/dl.pol"
"$POLC" build "$T/dl.pol" --target seccomp --format oci -o "$T/dl.json" 2>/dev/null || bad "build dl.pol"
printf 'policy dx {\n  arch x86_64, x32;\n  deny syscall keyctl;\n}\n' >"$T/dx.pol"
"$POLC" build "$T/dx.pol" --target seccomp --format oci -o "$T/dx.json" 2>/dev/null || bad "build dx.pol"
grep -q '"SCMP_ARCH_X86_64", "SCMP_ARCH_X32"' "$T/dx.json" || bad "arch x32 not listed: $(head -4 "$T/dx.json")"
for rt in $runtimes; do
	for a in getppid keyctl; do
		got=$(under $rt $a "$T/dl.json") want=$(polc_run "$T/dl.pol" $a)
		echo "$rt dl.pol $a: $got (polc run: $want)"
		[ "$got" = "$want" ] || bad "$rt and polc's filter differ on $a: '$got' vs '$want'"
	done
	got=$(under $rt x32 "$T/dl.json") want=$(polc_run "$T/dl.pol" x32)
	echo "$rt dl.pol x32: $got (polc run: $want)"
	[ "$want" = "killed 31" ] || bad "polc's filter on an unnamed x32 call: '$want', not SIGSYS"
	[ "$got" = "$want" ] || bad "$rt and polc's filter differ on an unnamed x32 call: '$got' vs '$want'"
	got=$(under $rt x32 "$T/dx.json") want=$(polc_run "$T/dx.pol" x32)
	echo "$rt dx.pol x32: $got (polc run: $want)"
	[ "$got" = "$want" ] || bad "$rt and polc's filter differ on x32 with arch x32: '$got' vs '$want'"
done

# an allow-list recorded from the probe: runc needs what it does itself
# after installing the filter
if "$POLC" record -o "$T/p.trace" -- "$B/rootfs/bin/probe" getppid >/dev/null 2>"$T/err"; then
	"$POLC" gen "$T/p.trace" --name probe -o "$T/gen.pol" 2>/dev/null || bad "gen"
	"$POLC" build "$T/gen.pol" --target seccomp --format oci -o "$T/gen.json" 2>/dev/null || bad "build gen.pol"
	got=$(under runc getppid "$T/gen.json")
	echo "runc gen.pol (no --runtime): ${got:-failed: $(tail -1 "$T/rt.err")}"
	[ "$got" = "getppid 0 0" ] && bad "runc ran a plain allow-list: --runtime runc is not needed any more?"
	"$POLC" gen "$T/p.trace" --name probe --runtime runc -o "$T/genr.pol" 2>"$T/err" || bad "gen --runtime runc: $(cat "$T/err")"
	"$POLC" build "$T/genr.pol" --target seccomp --format oci -o "$T/genr.json" 2>/dev/null || bad "build genr.pol"
	# several runs: the Go runtime's preemption signals come only sometimes
	for rt in $runtimes; do
		for i in 1 2 3 4 5 6; do
			got=$(under $rt getppid "$T/genr.json")
			[ "$got" = "getppid 0 0" ] ||
				bad "$rt run $i of the --runtime runc allow-list: ${got:-failed: $(tail -1 "$T/rt.err")}"
		done
		echo "$rt gen --runtime runc: $got (6 runs)"
	done
else
	echo "SKIP gen allow-list under runc: polc record cannot trace here: $(head -1 "$T/err")"
fi
[ $fail = 0 ] && echo ok
exit $fail
