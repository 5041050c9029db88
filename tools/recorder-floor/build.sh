#!/bin/sh
# build.sh OUTDIR: floor.bpf.o, recorder-floor and recorder-floor-inproc into OUTDIR
# (vmlinux.h from the running kernel's BTF, as tracer/tracer.mk makes it).
set -eu
D=$(cd "$(dirname "$0")" && pwd) O=${1:-/tmp/recorder-floor}
mkdir -p "$O"
[ -s "$O/vmlinux.h" ] || bpftool btf dump file /sys/kernel/btf/vmlinux format c >"$O/vmlinux.h"
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$O" -c "$D/floor.bpf.c" -o "$O/floor.bpf.o"
cc -O2 -Wall -Wextra -o "$O/recorder-floor" "$D/floor.c" "$D/../../base/util.c" -lbpf -lcrypto
cc -O2 -Wall -Wextra -o "$O/recorder-floor-inproc" "$D/inproc.c" "$D/../../base/util.c" -lbpf -lcrypto
