# recorders.sh - sourced by the tests that record a workload with each
# recorder this host runs: netns CMD... runs CMD in a network namespace of
# its own with lo up (loopback only: nothing leaves it), and $tracers lists
# the recorders (ptrace always; ebpf where its programs load). Needs $POLC
# and $T (a scratch directory).
netns() { unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$@"; }
tracers=ptrace
"$POLC" record --tracer ebpf -o "$T/probe.trace" -- true 2>/dev/null && tracers="ptrace ebpf"
