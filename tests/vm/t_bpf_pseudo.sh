#!/bin/sh
# The BPF enforcer names a file on a kernel-internal mount from that mount's
# root (docs/bpf-bundle.md): a nameless pipe "/", a memfd "/memfd:name". An
# nsfs file, what opening /proc/PID/ns/* gives (setns by path: nsenter,
# ip netns, runc exec), has d_alloc_anon's dentry, whose name the kernel
# sets to "/": it is named "/" too, not refused as a caller's name holding
# a '/' (0c8b36e's enforcer refused it under any policy with a file deny,
# so nsenter failed). Under a policy that allows every file but one tree,
# a confined process opens its own and pid 1's namespace files, enters pid
# 1's mount namespace with nsenter, and reopens a pipe; under one that
# denies reading "/" itself, the same namespace files and pipe are refused
# (they are decided as "/", not left undecided) while /proc/self/status
# still opens.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 400 --env POLC="$POLC" --env SRC="$SRC" \
		-- sh "$SRC/tests/vm/t_bpf_pseudo.sh" --inside
fi

# ---- inside the VM ----
set -u
L=/tmp/pseudo; rm -rf $L; mkdir -p $L/deny
bad=0
. "$SRC/tests/vm/lab.sh"   # check
cat >$L/open.pol <<POL
policy open_tree {
  default allow file;
  deny file "$L/deny/**" read;
}
POL
cat >$L/root.pol <<'POL'
policy deny_root {
  default allow file;
  deny file "/" read;
}
POL
cat >$L/probe.py <<'PY'
import errno, os
def opened(p):
    try:
        os.close(os.open(p, os.O_RDONLY)); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
r, w = os.pipe()
print(" ".join(opened(p) for p in ("/proc/self/ns/mnt", "/proc/self/ns/net",
                                    "/proc/1/ns/mnt", "/proc/self/fd/%d" % r,
                                    "/proc/self/status")), flush=True)
PY
run() { "$POLC" run --target bpf "$1" -- python3 $L/probe.py 2>&1 | tail -1; }

check "unconfined" "ok ok ok ok ok" "$(python3 $L/probe.py)"
check "all but one tree allowed: ns files, pipe reopen" "ok ok ok ok ok" "$(run $L/open.pol)"
got=$("$POLC" run --target bpf $L/open.pol -- nsenter -t 1 -m true 2>&1 && echo entered)
check "all but one tree allowed: nsenter -t 1 -m" "entered" "$(echo "$got" | tail -1)"
check "\"/\" denied: ns files and pipe refused, a proc file not" "EPERM EPERM EPERM EPERM ok" \
	"$(run $L/root.pol)"
[ $bad = 0 ] && echo ALL-OK
