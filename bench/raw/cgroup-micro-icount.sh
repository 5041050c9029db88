cp /work/wt/lsm-cost/build-run/bench/micro /tmp/micro
T="openat fork execl"
for r in 1 2; do
echo "R$r root $(/tmp/micro -t 0.05 $T | tr '\n' ' ')"
mkdir -p /sys/fs/cgroup/unified/lsmc$r
echo "R$r cgroup $(sh -c 'echo $$ > /sys/fs/cgroup/unified/lsmc'$r'/cgroup.procs && exec /tmp/micro -t 0.05 '"$T" | tr '\n' ' ')"
done
cat /sys/fs/cgroup/unified/cgroup.subtree_control
