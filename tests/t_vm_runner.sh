#!/bin/sh
# run-in-vm.sh's contract: exit status, stdout/stderr kept apart, arguments
# and --env values survive quoting, cwd is the caller's, --share is writable
# and comes back, the guest has its mounts and no network, and a VM that
# cannot boot is exit 125 with a message.  Skips only when qemu cannot run.
SRC=${SRC:-$(cd "$(dirname "$0")/.." && pwd)}
RUN="sh $SRC/tests/vm/run-in-vm.sh"
if ! qemu-system-x86_64 -version >/dev/null 2>&1; then
	echo "SKIP: qemu-system-x86_64 cannot run here"
	exit 0
fi
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. One boot checks the transport and the guest's setup.
mkdir "$t/out"
cat >"$t/out/guest.sh" <<'G'
pwd
echo "FOO=$FOO"
printf '[%s]' "$@"; echo
echo "HOME=$HOME"
case ":$PATH:" in *:/usr/sbin:*) echo path-sbin ;; esac
echo to-stderr >&2
echo data >"$OUT/file"
touch /tmp/x && echo tmp-writable
touch /polc-vm-probe 2>/dev/null || echo root-readonly
for m in /proc /sys /sys/kernel/security /sys/fs/cgroup /sys/fs/cgroup/unified \
	/sys/fs/bpf /sys/kernel/tracing /dev /dev/pts /tmp /run; do
	awk -v m="$m" '$2 == m { f = 1 } END { exit !f }' /proc/mounts || echo "not mounted: $m"
done
echo "net=$(ls /sys/class/net | tr '\n' ' ')"
echo "controllers=$(cat /sys/fs/cgroup/unified/cgroup.subtree_control)"
id -u
exit 7
G
cd "$SRC/tests" || fail "cd"
nl='
'
$RUN --share "$t/out" --env "OUT=$t/out" --env "FOO=a b'c\$d" -- \
	sh "$t/out/guest.sh" "x y" "it's" '$HOME' '' "t$nl" >"$t/stdout" 2>"$t/stderr"
rc=$?
cat "$t/stdout" "$t/stderr"
[ $rc = 7 ] || fail "exit status $rc, want 7"
cat >"$t/want" <<W
$SRC/tests
FOO=a b'c\$d
[x y][it's][\$HOME][][t
]
HOME=/root
path-sbin
tmp-writable
root-readonly
net=lo 
controllers=cpu io memory pids
0
W
diff "$t/want" "$t/stdout" || fail "stdout differs from the above"
grep -qx to-stderr "$t/stderr" || fail "stderr lost"
[ "$(cat "$t/out/file" 2>/dev/null)" = data ] || fail "file written to --share did not come back"

# 2. A kernel that cannot boot: 125 and a message, quickly.
head -c 4096 /dev/urandom >"$t/bogus"
VM_KERNEL=$t/bogus $RUN --timeout 60 -- true >"$t/stdout" 2>"$t/stderr"
rc=$?
cat "$t/stderr"
[ $rc = 125 ] || fail "bogus kernel: exit $rc, want 125"
grep -q 'VM failed to boot' "$t/stderr" || fail "bogus kernel: no 'VM failed to boot' message"

# 3. No command is a usage error, not a boot.
$RUN -- >/dev/null 2>&1; rc=$?
[ $rc = 125 ] || fail "no command: exit $rc, want 125"
echo "PASS: run-in-vm.sh transports status, output, args, env, cwd and files"
