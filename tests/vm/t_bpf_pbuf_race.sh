#!/bin/sh
# The BPF enforcer's path buffers are never shared by two runs at once
# (enforcer.bpf.c, pb_claim): on a fully preemptible kernel (preempt=full)
# with two CPUs, six confined processes open files in tight loops, three an
# allowed file under a long path and three a denied file under a short one,
# for a few seconds each. A run preempted mid-walk whose buffer another
# task's run overwrote would decide the other's path: an allowed open
# refused or a denied one let through. Every open must get its own answer.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	VM_ICOUNT= VM_SMP=2 VM_APPEND="preempt=full" in_lab --timeout 300 --env POLC="$POLC" \
		-- sh "$SRC/tests/vm/t_bpf_pbuf_race.sh" --inside
fi

# ---- inside the VM ----
set -u
T=/tmp/pbrace
long=$T/allow/$(printf 'a%.0s' $(seq 200))/$(printf 'b%.0s' $(seq 200))/$(printf 'c%.0s' $(seq 200))
mkdir -p "$long" $T/deny
echo x >"$long/f"; echo x >$T/deny/f
cat >$T/p.pol <<EOF
policy race { deny file "$T/deny/**" read; }
EOF
$POLC build --target bpf -o $T/p.bundle $T/p.pol 2>/dev/null || { echo "FAIL build"; exit 1; }
cg=/sys/fs/cgroup/unified/pbrace; mkdir $cg
$POLC load $T/p.bundle --cgroup $cg >/dev/null || { echo "FAIL load"; exit 1; }
grep -q 'preempt=full' /proc/cmdline && echo "kernel: preempt=full, $(nproc) CPUs"

cat >$T/w.py <<'EOF'
import os, sys, time
path, want, secs = sys.argv[1], sys.argv[2], float(sys.argv[3])
n = wrong = 0
end = time.monotonic() + secs
while time.monotonic() < end:
    for _ in range(100):
        try:
            os.close(os.open(path, os.O_RDONLY))
            got = "ok"
        except PermissionError:
            got = "denied"
        n += 1
        wrong += got != want
print(n, wrong)
EOF
i=0
for w in allow deny allow deny allow deny; do
	if [ $w = allow ]; then p="$long/f" want=ok; else p=$T/deny/f want=denied; fi
	sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 "$2" "$3" "$4" 4' sh $cg $T/w.py "$p" $want \
		>$T/out.$i &
	i=$((i + 1))
done
wait
opens=0 wrong=0
for f in $T/out.*; do
	read -r n w <"$f" || { echo "FAIL a worker printed nothing"; exit 1; }
	opens=$((opens + n)) wrong=$((wrong + w))
done
$POLC unload --cgroup $cg >/dev/null
echo "opens $opens, wrong answers $wrong"
[ "$opens" -ge 1000 ] || { echo "FAIL too few opens to mean anything"; exit 1; }
[ "$wrong" = 0 ] || { echo "FAIL $wrong opens decided on another task's path"; exit 1; }
echo ALL-OK
