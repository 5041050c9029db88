#!/bin/sh
# Stage 2 of the kernel lab's guest: PID 1 after switch_root into the host
# root (9p, read-only), run by the host's /bin/sh from the control share.
#
# Takes: /run/vmctl (the per-run control share, read-write) with config
#   (shell assignments VM_CWD, VM_MODDIR), shares ("TAG PATH" lines: 9p shares
#   to mount read-write at PATH), env (exports for CMD) and cmd (CMD as a
#   shell script).
# Gives: /run/vmctl/booted when the guest is up (holding two guest uptimes:
#   stage 2 start and setup done), then CMD's output in
#   stdout and stderr and its exit status in rc (written last, atomically);
#   setup-error instead of rc when the guest could not be prepared.
# Then reboots at once; qemu runs with -no-reboot, so that ends the VM.
CTL=/run/vmctl
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

# Setup runs some 25 programs; under TCG a static busybox (if the host has
# one) starts several times faster than the dynamically linked originals.
if [ -x /bin/busybox ]; then
	for c in mount mkdir chmod hostname ip sync; do
		eval "$c() { /bin/busybox $c \"\$@\"; }"
	done
fi

finish() {
	sync
	echo b >/proc/sysrq-trigger
	sleep 10
	exit 1 # no sysrq: PID 1 exits, the kernel panics, panic=-1 reboots
}

setup_error() {
	echo "$*" >"$CTL/setup-error"
	finish
}

# Mount TYPE at DIR; the lab is not usable without it.
need() { # type dir [options]
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" || setup_error "cannot mount $1 at $2"
}

# The same for extras tests may rely on but the lab itself does not.
want() {
	mount -t "$1" ${3:+-o "$3"} "$1" "$2" 2>>"$CTL/stage2.log" ||
		echo "warning: cannot mount $1 at $2" >>"$CTL/stage2.log"
}

mount_kernel_fs() {
	need proc /proc
	read -r T_START _ </proc/uptime
	need sysfs /sys
	need securityfs /sys/kernel/security
	# polc uses /sys/fs/cgroup/unified (the host's layout) and most tools
	# /sys/fs/cgroup: mount the one cgroup2 hierarchy at both.  The second
	# mount hides the child cgroup "unified" the mkdir creates, so a path
	# under either names the same cgroup.
	need cgroup2 /sys/fs/cgroup nsdelegate
	mkdir -p /sys/fs/cgroup/unified
	need cgroup2 /sys/fs/cgroup/unified nsdelegate
	need bpf /sys/fs/bpf mode=0700
	# Controllers for child cgroups, as a systemd host would have them.
	echo "+cpu +memory +pids +io" >/sys/fs/cgroup/cgroup.subtree_control 2>>"$CTL/stage2.log" ||
		echo "warning: cannot enable cgroup controllers" >>"$CTL/stage2.log"
	want tracefs /sys/kernel/tracing
	want debugfs /sys/kernel/debug
	mkdir -p /dev/pts /dev/shm
	need devpts /dev/pts ptmxmode=0666,mode=0620
	want tmpfs /dev/shm mode=1777
}

# Writable scratch: the host root is read-only.
mount_scratch() {
	need tmpfs /tmp mode=1777
	want tmpfs /var/tmp mode=1777
	want tmpfs /root mode=0700
	want tmpfs /var/cache/apparmor mode=0755
}

# The guest kernel's own modules, so modprobe works inside.  The host may
# have no /lib/modules to mount over (its root is read-only here), so
# modprobe is pointed at the tree with -d: MODPROBE_OPTIONS for CMD, and a
# wrapper as kernel.modprobe for the kernel's own module requests.
MODPROBE_OPTIONS=""
mount_modules() {
	[ -n "${VM_MODDIR:-}" ] && [ -d "$VM_MODDIR/$(uname -r)" ] || return 0
	MODPROBE_OPTIONS="-d ${VM_MODDIR%/lib/modules}"
	printf '#!/bin/sh\nexec /sbin/modprobe %s "$@"\n' "$MODPROBE_OPTIONS" >"$CTL/modprobe"
	chmod 0755 "$CTL/modprobe"
	echo "$CTL/modprobe" >/proc/sys/kernel/modprobe
	[ -d /lib/modules ] || return 0
	kver=$(uname -r)
	mount -t tmpfs -o mode=0755 tmpfs /lib/modules && mkdir "/lib/modules/$kver" &&
		mount --bind "$VM_MODDIR/$kver" "/lib/modules/$kver" 2>>"$CTL/stage2.log" ||
		echo "warning: cannot bind $VM_MODDIR/$kver at /lib/modules" >>"$CTL/stage2.log"
}

mount_shares() {
	[ -f "$CTL/shares" ] || return 0
	while read -r tag dir; do
		[ -d "$dir" ] || mkdir -p "$dir" 2>/dev/null ||
			setup_error "share $dir: no such directory in the guest (its parent is read-only)"
		mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none \
			"$tag" "$dir" || setup_error "cannot mount share $dir"
	done <"$CTL/shares"
}

. "$CTL/config"
mount_kernel_fs
mount_scratch
mount_shares      # before the modules: the VM cache may sit in a shared checkout
mount_modules
ip link set lo up 2>>"$CTL/stage2.log"
hostname polc-vm 2>/dev/null
[ -d "$VM_CWD" ] || setup_error "working directory $VM_CWD is not visible in the guest (under the guest's tmpfs /tmp? pass it with --share)"
read -r T_BOOTED _ </proc/uptime
# Guest uptimes (seconds) when stage 2 started and when it was done.
echo "$T_START $T_BOOTED" >"$CTL/booted"

env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/sh TERM=dumb LANG=C.UTF-8 \
	PATH="$PATH" ${MODPROBE_OPTIONS:+MODPROBE_OPTIONS="$MODPROBE_OPTIONS"} /bin/sh -c '. /run/vmctl/env; cd "$0" || exit 125; . /run/vmctl/cmd' \
	"$VM_CWD" </dev/null >"$CTL/stdout" 2>"$CTL/stderr"
echo $? >"$CTL/rc.tmp"
mv "$CTL/rc.tmp" "$CTL/rc"
finish
