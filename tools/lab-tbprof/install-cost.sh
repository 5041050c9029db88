#!/bin/sh
# install-cost.sh POLC... - inside the lab (VM_ICOUNT=0, so guest seconds
# count instructions): for each polc, the guest seconds its first load takes
# (installing the enforcer: the verifier checks every program) and the
# verifier's work per program (verins). Each polc's enforcer is removed
# (unload of its only policy) before the next.
#   cc -O1 -o tools/lab-tbprof/verins tools/lab-tbprof/verins.c -lbpf
#   VM_ICOUNT=0 sh tests/vm/run-in-vm.sh --timeout 1800 -- \
#     sh tools/lab-tbprof/install-cost.sh $PWD/build/polc OTHER/build/polc
HERE=$(cd "$(dirname "$0")" && pwd)
printf 'policy aa { use always-allow; }\n' > /tmp/aa.pol
cg=/sys/fs/cgroup/install-cost; mkdir -p $cg
trap 'rmdir $cg' EXIT
for P in "$@"; do
	$P build --target bpf /tmp/aa.pol -o /tmp/aa.bundle 2>/dev/null
	t0=$(date +%s.%N)
	$P load /tmp/aa.bundle --cgroup $cg >/dev/null 2>&1 || echo "load failed: $P"
	t1=$(date +%s.%N)
	awk -v a=$t0 -v b=$t1 -v p=$P 'BEGIN { printf "%s install %.2f s\n", p, b - a }'
	"$HERE/verins" | sort -k2 -n -r | head -8
	$P unload --cgroup $cg >/dev/null 2>&1
done
