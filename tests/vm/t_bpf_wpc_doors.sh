#!/bin/sh
# The BPF enforcer's whole-path cache (enforcer.bpf.c, wpc_hit) against
# doors t_bpf_wpc.sh does not try: an allowed open keeps a file's entry on
# CPU 0's path buffer, then the same file (or dentry) is opened at a path
# the policy refuses, by another way in. tests/progs/wpc_doors runs the
# opens, confined and pinned to CPU 0; a shell loop outside the policy acts
# between two of them when asked ("ask": renames, links, exchanges). A
# broken enforcer would give "ok" where EPERM is wanted:
#  1. io_uring IORING_OP_OPENAT, inline, in an io-wq worker (IOSQE_ASYNC,
#     the worker pinned to CPU 0) and by an SQPOLL thread (on CPU 0): a
#     denied file refused cold, an allowed one allowed; a kept file
#     hard-linked (no rename: only the dentry key tells) into the denied
#     tree, opened there by io_uring; an entry kept by a worker, the file
#     then renamed into the denied tree. A thread of the ring not seen as
#     confined, or keyed apart from the task, gives "ok".
#  2. a tmpfs bind-mounted, and cloned by open_tree + move_mount, onto a
#     path in the denied tree before the run: the same dentry under the same
#     chain of names, only the vfsmount differs (mnt in the key); and a
#     detached open_tree clone made by the confined process before it keeps
#     the file (a clone changes mount_lock), then the file opened through
#     the clone (no path in its namespace: fail closed; again only the
#     vfsmount differs).
#  3. chroot: paths are named from the namespace's root, so a denied file
#     is refused as "/deny/c" and "/c" in a chroot, where an allowed one kept
#     before the chroot is still allowed; the same by openat2's
#     RESOLVE_IN_ROOT. Naming from the task's (or the lookup's) root gives
#     "ok".
#  4. a mount namespace (unshare -m) whose child bind-mounts the allowed
#     directory into the denied tree and opens the kept file there, before
#     and after opening it at its allowed path; a process keeping a
#     directory of its old namespace across unshare(2), whose kept file
#     through it must be decided as a cold open of it is (no path in the new
#     namespace: fail closed); and the same across setns(2) into a
#     namespace made before the run (its descriptor inherited), which
#     changes no mount: only the namespace token tells the old entry from
#     this open.
#  5. renameat2(RENAME_EXCHANGE) of a kept allowed file and a denied one
#     (d_exchange swaps the dentries' names and parents); /proc/self/fd
#     reopen of an O_PATH descriptor (no file_open of its own) of a hard
#     link of a kept file, and of a kept file renamed while held; an
#     overlayfs copy-up (the confined task opens the lower file through
#     overlayfs's private clone of its layer: kept under that mount), then
#     the lower file at its own, denied path.
# Negative controls (an enforcer built with one check of wpc_hit left out,
# not committed): without the vfsmount in the key, the bind mount (all four
# ways in), the moved clone and the detached clone give "ok"; without the
# vfsmount and the chain's digest, also the overlayfs lower file and the
# unshare child's bind mount; without the namespace token, setns; without
# the digest and rename_lock's sequence, the exchange, the worker's entry
# renamed and the /proc/self/fd reopen after a rename.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
POLC=${POLC:-$SRC/$BUILD/polc}
DOORS=${DOORS:-$SRC/$BUILD/tests/progs/wpc_doors}
if [ "${1:-}" != --inside ]; then
	[ -x "$DOORS" ] || { echo "FAIL: $DOORS not built (make test-bins)"; exit 1; }
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 400 --env POLC="$POLC" --env DOORS="$DOORS" \
		-- sh "$SRC/tests/vm/t_bpf_wpc_doors.sh" --inside
fi

# ---- inside the VM ----
set -u
L=/tmp/wpcd; rm -rf $L; mkdir -p $L/ok $L/deny $L/m $L/ovu $L/ovw $L/deny/lower
bad=0
. "$SRC/tests/vm/lab.sh"   # check
for f in ok/u1 ok/u2 ok/u3 ok/x ok/p ok/q ok/c ok/n ok/t ok/s deny/u0 deny/y deny/lower/o; do
	echo x >$L/$f
done
echo y >$L/deny/y
ln $L/ok/p $L/deny/p
ln $L/ok/c $L/deny/c
cat >$L/p.pol <<POL
policy wpcd {
  default allow file;
  deny file "$L/deny/**" read;
}
POL
# A mount of its own, reached at an allowed path and, by a bind mount and
# an open_tree clone (made here, before any entry: mount_lock stays put),
# at two denied ones with the same names below them.
mount -t tmpfs wpcd $L/m && mkdir $L/m/ok && echo x >$L/m/ok/b &&
	mkdir $L/deny/m $L/deny/m2 $L/deny/nb && mount --bind $L/m $L/deny/m &&
	"$DOORS" clone $L/m $L/deny/m2 >/dev/null || echo "FAIL: mounts not made"
ovl=no
mkdir $L/ok/ov && mount -t overlay wpcd -o lowerdir=$L/deny/lower,upperdir=$L/ovu,workdir=$L/ovw \
	$L/ok/ov && ovl=yes
# the acts asked for between two opens, outside the policy
mkfifo $L/go $L/done
(while read -r cmd <$L/go; do eval "$cmd"; echo done >$L/done; done) &
actor=$!
D=$DOORS
cat >$L/confined.sh <<SH
cd $L
$D say uring-cold uring $L/deny/u0 uring-async $L/deny/u0 uring-sqpoll $L/deny/u0 \
   say uring-ok uring $L/ok/u1 uring-async $L/ok/u1 uring-sqpoll $L/ok/u1 \
   say uring-link open $L/ok/u2 ask "ln $L/ok/u2 $L/deny/u2" uring $L/deny/u2 uring-async $L/deny/u2 uring $L/ok/u2 \
   say uring-kept uring-async $L/ok/u3 ask "mv $L/ok/u3 $L/deny/u3" uring $L/deny/u3 open $L/deny/u3 \
   say bind open $L/m/ok/b open $L/deny/m/ok/b uring $L/deny/m/ok/b uring-async $L/deny/m/ok/b uring-sqpoll $L/deny/m/ok/b open $L/m/ok/b \
   say clone open $L/m/ok/b open $L/deny/m2/ok/b \
   say tree tree $L/m open $L/m/ok/b at ok/b \
   say xchg open $L/ok/x ask "$D xchg $L/ok/x $L/deny/y" open $L/deny/y open $L/ok/x \
   say proc-link open $L/ok/p opath $L/deny/p proc \
   say proc-rename opath $L/ok/q open $L/ok/q proc ask "mv $L/ok/q $L/deny/q" proc
[ $ovl = yes ] && $D say ovl open $L/ok/ov/o write $L/ok/ov/o open $L/deny/lower/o
$D say chroot open $L/ok/c open $L/deny/c chroot $L open /ok/c open /deny/c chroot /ok open /c
$D say chroot-deny open $L/ok/c chroot $L/deny open /c
$D say in-root open $L/ok/c in-root $L/deny /c in-root $L /deny/c in-root $L/ok /c
$D say ns-keep open $L/ok/n
unshare -m sh -c "mount --bind $L/ok $L/deny/nb && $D say ns open $L/deny/nb/n open $L/ok/n open $L/deny/nb/n"
$D say ns-fd open $L/ok/t dir $L/ok at t unshare at t open $L/ok/t
$D say ns-fd-cold dir $L/ok unshare at t
$D say setns open $L/ok/s dir $L/ok at s setns 9 at s open $L/ok/s
SH
# a namespace to enter (setns), made before the run, as descriptor 9: the
# enforcer refuses a confined open of /proc/PID/ns/mnt (see wpc_doors.c)
unshare -m sleep 300 &
nsholder=$!
sleep 1
exec 9</proc/$nsholder/ns/mnt
"$POLC" run --target bpf $L/p.pol -- taskset -c 0 sh $L/confined.sh >$L/out 2>$L/err
exec 9<&-
kill $actor $nsholder 2>/dev/null
cat $L/out $L/err
got() { sed -n "s/^$1 //p" $L/out; }
check "io_uring: a denied file, cold (inline, worker, SQPOLL)" "EPERM EPERM EPERM" "$(got uring-cold)"
check "io_uring: an allowed file (inline, worker, SQPOLL)" "ok ok ok" "$(got uring-ok)"
check "io_uring: a kept file's hard link in the denied tree" "ok ok EPERM EPERM ok" "$(got uring-link)"
check "io_uring: kept by a worker, renamed into the denied tree" "ok ok EPERM EPERM" "$(got uring-kept)"
check "a bind mount of the kept file's mount in the denied tree (open, io_uring inline, worker, SQPOLL)" "ok EPERM EPERM EPERM EPERM ok" "$(got bind)"
check "an open_tree clone moved into the denied tree" "ok EPERM" "$(got clone)"
check "a detached open_tree clone (fail closed)" "ok ok EPERM" "$(got tree)"
check "RENAME_EXCHANGE of a kept file and a denied one" "ok ok EPERM ok" "$(got xchg)"
check "/proc/self/fd reopen of a kept file's denied link" "ok ok EPERM" "$(got proc-link)"
check "/proc/self/fd reopen of a kept file renamed" "ok ok ok ok EPERM" "$(got proc-rename)"
if [ $ovl = yes ]; then
	check "overlayfs copy-up, then the lower file" "ok ok EPERM" "$(got ovl)"
else
	echo "SKIP overlayfs: no overlay mount in the lab"
fi
check "chroot: named from the namespace's root" "ok EPERM ok ok EPERM ok ok" "$(got chroot)"
check "chroot into the denied tree" "ok ok EPERM" "$(got chroot-deny)"
check "openat2 RESOLVE_IN_ROOT, the denied tree as root" "ok EPERM EPERM ok" "$(got in-root)"
check "a kept file, for the next namespace's child" "ok" "$(got ns-keep)"
check "unshare -m: the kept file bind-mounted into the denied tree" "EPERM ok EPERM" "$(got ns)"
cold=$(got ns-fd-cold | cut -d' ' -f3)
check "a kept file through the old namespace's directory, as cold" "ok ok ok ok $cold ok" "$(got ns-fd)"
check "the same across setns, no mount made" "ok ok ok ok $cold ok" "$(got setns)"
[ $bad = 0 ] && echo ALL-OK
exit $bad
