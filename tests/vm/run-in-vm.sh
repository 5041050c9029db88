#!/bin/sh
# run-in-vm.sh [options] -- CMD ARGS...
#   Run CMD as root inside the kernel lab: Debian's own kernel booted in qemu
#   with lsm=landlock,lockdown,yama,apparmor,bpf, the host root mounted
#   read-only over virtio-9p (so this tree is visible at the same path), no
#   network (-nic none), working directory = the caller's cwd.
# Options:
#   --timeout SECONDS  kill the VM after this long (default 300)
#   --mem MB           guest memory (default 1024)
#   --share HOSTDIR    mount HOSTDIR read-write at the same path inside
#                      (repeatable): how files get out of the guest
#   --env NAME=VALUE   set NAME for CMD (repeatable); CMD otherwise starts
#                      with HOME=/root, PATH incl. /usr/sbin, LANG=C.UTF-8
# Environment: BUILD (cache in $BUILD/vm, default build/, relative to the
#   repo root), VM_CACHE (overrides that cache dir), VM_VERBOSE=1 (build
#   steps and boot time on stderr), VM_SMP (guest CPUs, default 2),
#   VM_QEMU_EXTRA (extra qemu arguments, e.g. -plugin: tools/lab-tbprof),
#   VM_APPEND (extra kernel command line), VM_KERNEL (boot this kernel
#   image instead; for the lab's own tests).
# Gives: CMD's stdout on stdout, its stderr on stderr (each complete, after
#   the VM ends), and CMD's exit status.  Exit 125 means the lab failed (no
#   qemu, image build failed, VM did not boot or died while CMD ran), with a
#   "run-in-vm:" message on stderr; 124 means --timeout expired while CMD ran.
# Inside: proc, sysfs, securityfs, cgroup2 at /sys/fs/cgroup and
#   /sys/fs/cgroup/unified, bpffs, tracefs, debugfs, devtmpfs, devpts;
#   tmpfs at /tmp /run /var/tmp /root /dev/shm /var/cache/apparmor; modprobe
#   uses the guest kernel's own modules; lo up; hostname polc-vm.  See
#   docs/lab.md.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
me=run-in-vm

usage() {
	sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" >&2
	exit 125
}
lab_fail() { echo "$me: $*" >&2; exit 125; }

TIMEOUT=300 MEM=1024 SHARES="" NSHARE=0
CTL=""
cleanup() { [ -z "$CTL" ] || rm -rf "$CTL"; }
trap cleanup EXIT
trap 'exit 125' INT TERM HUP

# Shell-quote $1 with single quotes, so any byte survives (the x keeps
# trailing newlines from $(...)).
q() {
	v=$(printf '%sx' "$1" | sed "s/'/'\\\\''/g")
	printf "'%s'" "${v%x}"
}

CTL=$(mktemp -d "${TMPDIR:-/tmp}/polc-vm.XXXXXX") || lab_fail "mktemp failed"
: >"$CTL/env"; : >"$CTL/shares"
add_share() { # HOSTDIR: mount it read-write at the same path inside
	[ -d "$1" ] || lab_fail "--share $1: not a directory"
	d=$(cd "$1" && pwd -P)
	# qemu's option syntax: no commas; SHARES is a word list: no blanks.
	case "$d" in *[,[:space:]]*) lab_fail "--share $d: commas and blanks are not supported" ;; esac
	SHARES="$SHARES -virtfs local,path=$d,mount_tag=share$NSHARE,security_model=none"
	echo "share$NSHARE $d" >>"$CTL/shares"
	NSHARE=$((NSHARE + 1))
}
# A checkout under /tmp (CI may clone anywhere) would be hidden by the
# guest's tmpfs /tmp: share it first, so later --share dirs inside it stay
# visible on top of it.
case "$(cd "$REPO" && pwd -P)" in /tmp/*) add_share "$REPO" ;; esac
while [ $# -gt 0 ]; do
	case "$1" in
	--timeout) [ $# -ge 2 ] || usage; TIMEOUT=$2; shift 2 ;;
	--mem) [ $# -ge 2 ] || usage; MEM=$2; shift 2 ;;
	--share)
		[ $# -ge 2 ] || usage
		add_share "$2"; shift 2 ;;
	--env)
		[ $# -ge 2 ] || usage
		case "$2" in *=*) ;; *) lab_fail "--env $2: want NAME=VALUE" ;; esac
		case "${2%%=*}" in ""|[0-9]*|*[!A-Za-z0-9_]*) lab_fail "--env $2: bad name" ;; esac
		echo "export ${2%%=*}=$(q "${2#*=}")" >>"$CTL/env"; shift 2 ;;
	--) shift; break ;;
	-h|--help) usage ;;
	*) usage ;;
	esac
done
[ $# -gt 0 ] || usage
case "$TIMEOUT$MEM" in *[!0-9]*) lab_fail "--timeout and --mem take whole numbers" ;; esac

command -v qemu-system-x86_64 >/dev/null || lab_fail "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"

BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
VMDIR=${VM_CACHE:-$BUILD/vm}
# Installed (PREFIX/share/polc, read-only for the user): a cache of its own.
if [ -z "${VM_CACHE:-}" ] && ! mkdir -p "$VMDIR" 2>/dev/null; then
	VMDIR=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/polc/vm
fi
sh "$HERE/build-image.sh" "$VMDIR" || lab_fail "could not build the VM image in $VMDIR"
VMDIR=$(cd "$VMDIR" && pwd)
KERNEL=$VMDIR/vmlinuz
[ -f "$VMDIR/vmlinux" ] && KERNEL=$VMDIR/vmlinux
KERNEL=${VM_KERNEL:-$KERNEL}

# What the guest's stage 2 reads (see guest-stage2.sh).
cwd=$(pwd -P)
{ echo "VM_CWD=$(q "$cwd")"; echo "VM_MODDIR=$(q "$VMDIR/modules/lib/modules")"; } >"$CTL/config"
{ printf 'exec'; for a in "$@"; do printf ' %s' "$(q "$a")"; done; echo; } >"$CTL/cmd"
cp "$HERE/guest-stage2.sh" "$CTL/stage2.sh"

# TCG by default: on this kind of host /dev/kvm exists but nested KVM is
# broken (qemu aborts setting MSR 0x10a with -cpu max; with
# -cpu host,-arch-capabilities the guest hangs after decompression).
# VM_ACCEL=kvm opts in where KVM is known to work.
case "${VM_ACCEL:-tcg}" in
kvm) ACCEL="-accel kvm"; CPU="host,-arch-capabilities" ;;
*)   ACCEL="-accel tcg,thread=multi"; CPU=max ;;
esac
# VM_ICOUNT=N: guest time from instructions executed, not the host clock
# (qemu -icount shift=N,sleep=off: one instruction = 2^N ns of guest time,
# idle time skipped), so what the guest measures does not move with the
# host's load.  icount needs single-threaded TCG and so one vCPU.
ICOUNT=""
if [ -n "${VM_ICOUNT:-}" ]; then
	case "$VM_ICOUNT" in *[!0-9]*) lab_fail "VM_ICOUNT takes a shift (0-10)" ;; esac
	ACCEL="-accel tcg"; CPU=max; VM_SMP=1
	ICOUNT="-icount shift=$VM_ICOUNT,sleep=off"
fi
# no_timer_check: on a loaded host the emulated timer can miss the kernel's
# boot-time IO-APIC check window ("IO-APIC + timer doesn't work!" panic, seen
# at load ~20 with six labs at once).
APPEND="console=ttyS0 quiet loglevel=3 panic=-1 no_timer_check lsm=landlock,lockdown,yama,apparmor,bpf ${VM_APPEND:-}"

start=$(date +%s.%N)
# shellcheck disable=SC2086  # ACCEL and SHARES are word lists by design
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -nographic -nic none -no-reboot \
	$ACCEL $ICOUNT ${VM_QEMU_EXTRA:-} -cpu "$CPU" -smp "${VM_SMP:-2}" -m "$MEM" \
	-monitor none -serial "file:$CTL/console.log" \
	-kernel "$KERNEL" -initrd "$VMDIR/initramfs.cpio" -append "$APPEND" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$CTL,mount_tag=vmctl,security_model=none" \
	$SHARES </dev/null >"$CTL/qemu.log" 2>&1 &
qpid=$!
# Killing this script stops the VM too (timeout passes TERM on to qemu).
trap 'kill -TERM $qpid 2>/dev/null; wait $qpid; exit 125' INT TERM HUP
wait $qpid
qrc=$?
trap 'exit 125' INT TERM HUP
end=$(date +%s.%N)

console_tail() {
	echo "$me: --- qemu and console output (last lines) ---" >&2
	tail -n 5 "$CTL/qemu.log" >&2
	tail -n 25 "$CTL/console.log" 2>/dev/null | tr -d '\r' >&2
}
dump_output() {
	[ -f "$CTL/stdout" ] && cat "$CTL/stdout"
	[ -f "$CTL/stderr" ] && cat "$CTL/stderr" >&2
}
if [ "${VM_VERBOSE:-0}" != 0 ] && [ -f "$CTL/booted" ]; then
	b=$(stat -c %.3Y "$CTL/booted")
	r=$(stat -c %.3Y "$CTL/rc" 2>/dev/null || echo "$end")
	awk -v s="$start" -v b="$b" -v r="$r" -v e="$end" -v k="$(cat "$VMDIR/kver")" \
		-v a="${ACCEL#-accel }" -v g="$(cat "$CTL/booted")" 'BEGIN {
		split(g, u, " ")
		printf "run-in-vm: boot %.1fs (guest: kernel+initramfs %.1fs, setup %.1fs), command %.1fs, total %.1fs (kernel %s, %s)\n",
			b - s, u[1], u[2] - u[1], r - b, e - s, k, a }' >&2
fi
if [ -f "$CTL/rc" ]; then
	dump_output
	exit "$(cat "$CTL/rc")"
fi
if [ -f "$CTL/setup-error" ]; then
	lab_fail "guest setup failed: $(cat "$CTL/setup-error")"
fi
if [ -f "$CTL/booted" ]; then
	dump_output
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "$me: timed out after ${TIMEOUT}s while CMD ran (--timeout)" >&2
		exit 124
	fi
	console_tail
	lab_fail "the VM ended while CMD ran (qemu exit $qrc; guest crash or out of memory?)"
fi
console_tail
[ "$qrc" = 124 ] || [ "$qrc" = 137 ] && lab_fail "VM failed to boot: no guest within ${TIMEOUT}s"
lab_fail "VM failed to boot (qemu exit $qrc)"
