#!/bin/sh
# container.sh PROGRAM ARGS... - polc bench --container (the rule-count
# series): run PROGRAM (a static binary: bench/micro) where a container
# runtime puts a workload: in a mount namespace of its own whose root is a
# tmpfs holding the program, /tmp and /proc, made the root by pivot_root
# (which puts the new root where the old one was mounted: on the
# namespace's root mount). Started after `polc run`, so the enforcer
# confines these steps too (each rule policy allows mounts but on its own
# paths). The old root stays attached at /old: the new root has no umount
# to detach it, and the workload touches only the new root's files.
set -eu
[ $# -ge 1 ] || { echo "usage: container.sh PROGRAM ARGS..." >&2; exit 2; }
exec unshare -m --propagation private sh -c '
set -eu
exec 3<"$0"
# over /tmp, in this namespace only: nothing is left behind outside it
mount -t tmpfs -o mode=0755 polc-ct /tmp
mkdir /tmp/tmp /tmp/proc /tmp/old
chmod 1777 /tmp/tmp
cat <&3 >/tmp/prog
exec 3<&-
chmod 755 /tmp/prog
mount -t proc proc /tmp/proc
cd /tmp
pivot_root . old
cd /
unset TMPDIR
exec /prog "$@"' "$@"
