#!/bin/sh
# build-image.sh VMDIR - make sure the kernel lab's boot files are in VMDIR.
#
# Takes: VMDIR (cache directory, created if missing).
# Gives: VMDIR/vmlinuz, VMDIR/vmlinux (the same kernel uncompressed, when
#   it has a PVH entry: qemu boots it seconds faster), VMDIR/kver, VMDIR/modules/lib/modules/KVER (the
#   package's modules, depmod'ed, for modprobe inside the guest) and
#   VMDIR/initramfs.cpio (busybox + the virtio/9p modules + stage-1 init).
# Promises: idempotent and quiet when the cache is current; the kernel is
#   the package linux-image-amd64 depends on now (resolved with apt-cache,
#   downloaded once with apt-get download); each part is rebuilt when its
#   inputs change and replaced atomically, under a lock, so concurrent
#   callers are safe.  If the package cannot be downloaded but an older
#   kernel is cached, that one is used with a warning.  Exit 0 or 1.
set -eu
VMDIR=$1
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$VMDIR"
VMDIR=$(cd "$VMDIR" && pwd)

say() { [ "${VM_VERBOSE:-0}" = 0 ] || echo "vm: $*" >&2; }
die() { echo "vm: $*" >&2; exit 1; }

# The modules the stage-1 init needs; their dependencies are added in order.
ROOT_MODULES="virtio_pci 9pnet_virtio 9p"

# Which kernel package does linux-image-amd64 depend on right now?
resolve_kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1
}

fetch_kernel() { # pkg version
	tmp=$(mktemp -d "$VMDIR/.kernel.XXXXXX")
	say "downloading $1 $2"
	if ! (cd "$tmp" && apt-get download -q "$1=$2" >/dev/null 2>"$tmp/err"); then
		cat "$tmp/err" >&2; rm -rf "$tmp"; return 1
	fi
	dpkg -x "$tmp"/*.deb "$tmp/x"
	kver=$(ls "$tmp/x/lib/modules" | head -n 1)
	[ -f "$tmp/x/boot/vmlinuz-$kver" ] || { rm -rf "$tmp"; die "no vmlinuz in $1"; }
	# Keep only what the lab uses: the kernel and the module tree.
	mv "$tmp/x/boot/vmlinuz-$kver" "$tmp/vmlinuz"
	mkdir -p "$tmp/modules/lib"
	mv "$tmp/x/lib/modules" "$tmp/modules/lib/modules"
	depmod -b "$tmp/modules" "$kver"
	echo "$kver" >"$tmp/kver"
	rm -rf "$tmp/x" "$tmp"/*.deb "$tmp/err"
	# Swap in the new kernel; the stamp goes last so a crash means "refetch".
	rm -rf "$VMDIR/modules" "$VMDIR/kernel.stamp"
	mv "$tmp/modules" "$VMDIR/modules"
	mv "$tmp/vmlinuz" "$VMDIR/vmlinuz"
	mv "$tmp/kver" "$VMDIR/kver"
	rmdir "$tmp"
	echo "$1 $2" >"$VMDIR/kernel.stamp"
}

# apt-cache takes a second; its answer only changes with the package lists.
apt_lists_key() {
	stat -c '%Y %s %n' /var/lib/apt/lists/* /etc/apt/preferences* 2>/dev/null | sha256sum
}

ensure_kernel() {
	key=$(apt_lists_key)
	[ -f "$VMDIR/kernel.stamp" ] && [ "$(cat "$VMDIR/apt.key" 2>/dev/null)" = "$key" ] && return 0
	if ensure_kernel_resolved; then echo "$key" >"$VMDIR/apt.key"; fi
}

ensure_kernel_resolved() {
	pkg=$(resolve_kernel_pkg)
	[ -n "$pkg" ] || {
		[ -f "$VMDIR/kernel.stamp" ] && { say "apt-cache cannot resolve linux-image-amd64; using cached kernel"; return 0; }
		die "cannot resolve linux-image-amd64 with apt-cache (apt-get update?)"
	}
	ver=$(apt-cache policy "$pkg" | sed -n 's/^ *Candidate: //p')
	[ "$(cat "$VMDIR/kernel.stamp" 2>/dev/null)" = "$pkg $ver" ] && return 0
	fetch_kernel "$pkg" "$ver" && return 0
	[ -f "$VMDIR/kernel.stamp" ] || die "cannot download $pkg $ver"
	echo "vm: warning: cannot download $pkg $ver; using cached $(cat "$VMDIR/kernel.stamp")" >&2
	return 1 # so the next run tries again
}

# bzImage decompresses itself, which under TCG takes several seconds.  The
# uncompressed ELF inside has a PVH entry note, so qemu can start it
# directly.  Print the payload of bzImage $1 (xz, zstd or gzip).
unpack_bzimage() {
	for m in 'xz:\xfd\x37\x7a\x58\x5a\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
		off=$(LC_ALL=C grep -obUaP "${m#*:}" "$1" | head -n 1 | cut -d: -f1)
		[ -n "$off" ] || continue
		case ${m%%:*} in
		xz) tail -c +$((off + 1)) "$1" | xz -dc --single-stream 2>/dev/null ;;
		zstd) tail -c +$((off + 1)) "$1" | zstd -qdc 2>/dev/null ;;
		gzip) tail -c +$((off + 1)) "$1" | gzip -dc 2>/dev/null ;;
		esac
		return 0
	done
}

# VMDIR/vmlinux: the PVH-bootable ELF, when the kernel has one (else absent).
ensure_vmlinux() {
	[ "$(cat "$VMDIR/vmlinux.stamp" 2>/dev/null)" = "$(cat "$VMDIR/kernel.stamp")" ] && return 0
	rm -f "$VMDIR/vmlinux" "$VMDIR/vmlinux.stamp"
	unpack_bzimage "$VMDIR/vmlinuz" >"$VMDIR/.vmlinux.tmp" || true
	# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point
	if readelf -n "$VMDIR/.vmlinux.tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
		mv "$VMDIR/.vmlinux.tmp" "$VMDIR/vmlinux"
	else
		say "no PVH entry in the kernel; booting the bzImage"
		rm -f "$VMDIR/.vmlinux.tmp"
	fi
	cat "$VMDIR/kernel.stamp" >"$VMDIR/vmlinux.stamp"
}

# modpath NAME: the module's file, relative to the module tree.
modpath() {
	sed -n "s@^\([^:]*/$1\.ko[^:/]*\):.*@\1@p" "$MODTREE/modules.dep" | head -n 1
}

# Print NAME's dependencies (deepest first), then "NAME FILE", each once.
# sh has no local variables: only $1 is trusted after the recursion.
resolve_module() {
	case " $SEEN " in *" $1 "*) return 0 ;; esac
	f=$(modpath "$1")
	[ -n "$f" ] || die "module $1 not in $MODTREE"
	for d in $(modinfo -F depends "$MODTREE/$f" | tr ',' ' '); do
		resolve_module "$d"
	done
	case " $SEEN " in *" $1 "*) return 0 ;; esac
	SEEN="$SEEN $1"
	echo "$1 $(modpath "$1")"
}

# Copy module FILE to DEST as a plain .ko: busybox insmod cannot decompress.
copy_module() {
	case "$1" in
	*.ko.xz) xz -dc "$1" >"$2" ;;
	*.ko.zst) zstd -qdc "$1" >"$2" ;;
	*.ko.gz) gzip -dc "$1" >"$2" ;;
	*) cp "$1" "$2" ;;
	esac
}

initramfs_inputs() {
	cat "$VMDIR/kernel.stamp" "$HERE/initramfs-init" "$0"
	busybox 2>&1 | head -n 1
	sha256sum "$BUSYBOX"
}

ensure_initramfs() {
	BUSYBOX=$(command -v busybox) || die "busybox not found (apt-get install busybox-static)"
	ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic' ||
		die "$BUSYBOX is not static (apt-get install busybox-static)"
	stamp=$(initramfs_inputs | sha256sum | cut -d' ' -f1)
	[ -f "$VMDIR/initramfs.cpio" ] &&
		[ "$(cat "$VMDIR/initramfs.stamp" 2>/dev/null)" = "$stamp" ] && return 0
	say "building initramfs"
	MODTREE=$VMDIR/modules/lib/modules/$(cat "$VMDIR/kver")
	st=$(mktemp -d "$VMDIR/.initramfs.XXXXXX")
	mkdir -p "$st/bin" "$st/dev" "$st/proc" "$st/sys" "$st/newroot" "$st/modules"
	cp "$BUSYBOX" "$st/bin/busybox"
	for a in sh mount umount insmod mkdir switch_root poweroff cat echo sleep ls dmesg tail; do
		ln -s busybox "$st/bin/$a"
	done
	SEEN=""
	for m in $ROOT_MODULES; do resolve_module "$m"; done >"$st/mods"
	while read -r name file; do
		copy_module "$MODTREE/$file" "$st/modules/$name.ko"
		echo "$name" >>"$st/modules/order"
	done <"$st/mods"
	rm "$st/mods"
	cp "$HERE/initramfs-init" "$st/init"
	chmod 0755 "$st/init"
	(cd "$st" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) >"$st.cpio"
	rm -rf "$st"
	mv "$st.cpio" "$VMDIR/initramfs.cpio"
	echo "$stamp" >"$VMDIR/initramfs.stamp"
}

# One builder at a time per cache; the others wait and then find it current.
exec 9>"$VMDIR/.lock"
flock 9
ensure_kernel
ensure_vmlinux
ensure_initramfs
