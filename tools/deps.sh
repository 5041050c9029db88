#!/bin/sh
# Install the Debian packages polc needs. Idempotent and quiet when all are
# present. --check-or-install: the same (used by make test / make demo).
set -e
PKGS="build-essential flex bison clang llvm pkg-config
libseccomp-dev libbpf-dev libelf-dev zlib1g-dev libyaml-dev libapparmor-dev
libssl-dev libcmocka-dev linux-libc-dev bpftool apparmor
qemu-system-x86 busybox-static cpio kmod strace"
# Extra packages other modules need are listed one per line in tools/deps.d/*.
for f in $(dirname "$0")/deps.d/*; do
	[ -f "$f" ] && PKGS="$PKGS $(grep -v '^#' "$f")"
done
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "polc: missing packages:$missing (run 'make deps' as root)" >&2
	exit 1
fi
echo "polc: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
