#!/bin/sh
# The BPF enforcer's mount-prefix cache (enforcer.bpf.c, cache_lookup) in the
# kernel lab: after a confined open has stored the DFA state of a mount's
# root's path, everything an attacker can do to that path is seen by the
# next open, which is decided by the path as it is now. A policy denies read
# under $T/a/sec and $T/b (and one file under the mount "live", so that the
# path of "live" leaves the DFA alive while that of "dead" leaves it dead).
# Each probe opens a file (cat, confined in a cgroup, pinned to CPU 0 so it
# uses that CPU's path buffer and its cache) once to store the entry, then
# after the change:
#  1. a directory above the mountpoints renamed into the denied tree (and
#     back): rename_lock's sequence;
#  2. the mount moved (mount --move) under the denied tree: mount_lock's
#     sequence and the namespace's event;
#  3. the mount unmounted and another tmpfs mounted at a denied path (the
#     freed mount may be reused at the same address): the same;
#  4. a new mount namespace (unshare -m, made before the entry is stored)
#     opening the old namespace's mount through /proc/1/root (not a path of
#     its namespace: fail closed), and moving its copy of the mount under
#     the denied tree: the namespace's address, seq and event;
#  5. the policy replaced twice, the second time under the first one's id,
#     by one that denies the mount's own prefix: the policy's serial;
#  6. the mount's parent mount lazily unmounted (umount -l), the mount then
#     reached through a cwd in it: detached, so fail closed (mount_lock's
#     sequence and the namespace's event; 2 and 3 also change rename_lock's,
#     as every new mountpoint does).
#  7. an entry stored dead for read must not decide a read-write open;
#  8. the per-CPU confinement memo after a load, a replacement and an
#     unload (polc_gen);
#  9. a load and an unload the loader cannot count (polc_gen frozen): the
#     load backs out, the unload keeps the policy.
# Each probe failed with its token left out of cache_lookup's test (see the
# commit that added this test). Also: the cached paths decide as before
# (the allowed file, the denied one below "live", a dead prefix), and a file
# on the root filesystem (a mount on "/", empty prefix) after "/" itself was
# opened (its path "/" once became that mount's prefix: every file on it was
# then decided as "//file").
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 480 --env POLC="$POLC" --env SRC="$SRC" \
		-- sh "$SRC/tests/vm/t_bpf_cache.sh" --inside
fi

# ---- inside the VM ----
set -u
T=/tmp/bpfcache
CG=/sys/fs/cgroup/polc-cache
bad=0
. "$SRC/tests/vm/lab.sh"   # check
# open FILE for read, confined, on CPU 0: ok, EPERM or what cat said
probe() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec taskset -c 0 "$@"' _ "$CG" ${PRE:-} cat "$1" \
		>/dev/null 2>$T.err && { echo ok; return; }
	if grep -q "not permitted" $T.err; then echo EPERM; else cat $T.err | head -1; fi
}
mnt() { # DIR: a fresh tmpfs there with a file f
	mkdir -p "$1" && mount -t tmpfs polc-cache "$1" && echo x >"$1/f" && echo x >"$1/nope"
}
policy() { # NAME DENY...: build $T.NAME.bpfpol denying read of each
	{
		echo "policy $1 {"
		shift
		for d in "$@"; do echo "  deny file \"$d\" read;"; done
		echo "}"
	} >$T.pol
	"$POLC" build --target bpf -o $T.bpfpol $T.pol >/dev/null || { echo "FAIL build"; bad=1; }
	"$POLC" load $T.bpfpol --cgroup $CG || { echo "FAIL load"; bad=1; }
}

mkdir -p $T/a/pub $T/b/mnt $T/b/mnt2 $CG
mnt $T/a/pub/live
mnt $T/a/pub/dead
policy cache "$T/a/sec/**" "$T/b/**" "$T/a/pub/live/nope" /etc/hostname /

# the cached paths decide as the whole path does
check "dead prefix: allowed" ok "$(probe $T/a/pub/dead/f)"
check "dead prefix, again (from the cache)" ok "$(probe $T/a/pub/dead/f)"
check "live prefix: allowed" ok "$(probe $T/a/pub/live/f)"
check "live prefix, again (from the cache)" ok "$(probe $T/a/pub/live/f)"
check "live prefix: the denied file (from the cache)" EPERM "$(probe $T/a/pub/live/nope)"

# 0. the root filesystem is a mount on "/" (its prefix is empty): listing
# "/" (whose path is "/", not the empty prefix plus a name) stores nothing
# that lets a file on it be decided as "//file" (matched by no statement)
# (the root mount's entry, stored when the shell started, is made stale by
# a rename first, so that "/" itself is a miss)
rm -f $T.fifo0 $T.ready0; mkfifo $T.fifo0
sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 sh -c \
	"echo >$2.ready0; read x <$2.fifo0; cd /; set -- *; read -r l </etc/hostname && echo BYPASS"' \
	_ $CG $T >$T.out0 2>&1 &
i=0; while [ ! -e $T.ready0 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
echo x >$T.r0 && mv $T.r0 $T.r0b
echo go >$T.fifo0; wait
out=$(cat $T.out0); case "$out" in *BYPASS*) out=BYPASS ;; *"not permitted"*) out=EPERM ;; esac
check "0 a file on the root mount after listing /" EPERM "$out"

# 0b. "/" itself (the root mount's root: no name below its prefix, which is
# empty) is decided as "/", not as "": listing it is denied
out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 sh -c "cd /; for f in *; do :; done; echo \"\$f\""' \
	_ $CG 2>&1)
case "$out" in "*") out=EPERM ;; *) out="listed ($out)" ;; esac
check "0b listing / (denied) after the root mount's entry is stored" EPERM "$out"

# 1. rename a directory above the mountpoints into the denied tree
probe $T/a/pub/dead/f >/dev/null; probe $T/a/pub/live/f >/dev/null
mv $T/a/pub $T/a/sec
check "1 rename above the mount: dead prefix now denied" EPERM "$(probe $T/a/sec/dead/f)"
check "1 rename above the mount: live prefix now denied" EPERM "$(probe $T/a/sec/live/f)"
mv $T/a/sec $T/a/pub
check "1 renamed back: allowed" ok "$(probe $T/a/pub/dead/f)"
check "1 renamed back: allowed (live)" ok "$(probe $T/a/pub/live/f)"

# 2. move the mount under the denied tree
probe $T/a/pub/dead/f >/dev/null
mount --move $T/a/pub/dead $T/b/mnt
check "2 mount --move under the denied tree" EPERM "$(probe $T/b/mnt/f)"
mount --move $T/b/mnt $T/a/pub/dead
check "2 moved back: allowed" ok "$(probe $T/a/pub/dead/f)"

# 3. unmount it; another tmpfs at a denied path (the mount may reuse its address)
probe $T/a/pub/dead/f >/dev/null
umount $T/a/pub/dead
mnt $T/b/mnt2
check "3 umount, another mount at a denied path" EPERM "$(probe $T/b/mnt2/f)"
umount $T/b/mnt2
mnt $T/a/pub/dead

# 4. a new mount namespace, made before the entry is stored (making it
# changes mount_lock's sequence), opens the old one's mount: its path does
# not reach the new namespace's root (fail closed)
rm -f $T.fifo $T.ready; mkfifo $T.fifo
sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 unshare -m sh -c \
	"echo >$2.ready; read x <$2.fifo; cat /proc/1/root$2/a/pub/dead/f >/dev/null 2>$2.err4 && echo ok || head -1 $2.err4"' \
	_ $CG $T >$T.out4 2>&1 &
i=0; while [ ! -e $T.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
probe $T/a/pub/dead/f >/dev/null
echo go >$T.fifo; wait
out=$(cat $T.out4); case "$out" in *"not permitted"*) out=EPERM ;; esac
check "4 new namespace: the old namespace's mount (fail closed)" EPERM "$out"
check "4 new namespace: its own copy, allowed" ok "$(PRE="unshare -m" probe $T/a/pub/dead/f)"
out=$(sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 unshare -m sh -c "cat $2/a/pub/dead/f >/dev/null && mount --move $2/a/pub/dead $2/b/mnt && cat $2/b/mnt/f"' \
	_ $CG $T 2>&1 >/dev/null)
case "$out" in *"not permitted"*) out=EPERM ;; "") out=ok ;; esac
check "4 new namespace: its copy moved under the denied tree" EPERM "$out"

# 6. the parent mount lazily unmounted: the mount is detached (fail closed),
# reached through a cwd in it (no mountpoint made: rename_lock unchanged)
mkdir -p $T/c && mount -t tmpfs polc-cache $T/c && mnt $T/c/m
rm -f $T.fifo6 $T.ready6; mkfifo $T.fifo6
sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 sh -c \
	"cd $2/c/m && echo >$2.ready6 && read x <$2.fifo6 && cat f >/dev/null 2>$2.err6 && echo ok || head -1 $2.err6"' \
	_ $CG $T >$T.out6 2>&1 &
i=0; while [ ! -e $T.ready6 ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
probe $T/c/m/f >/dev/null
umount -l $T/c
echo go >$T.fifo6; wait
out=$(cat $T.out6); case "$out" in *"not permitted"*) out=EPERM ;; esac
check "6 the parent mount lazily unmounted: detached (fail closed)" EPERM "$out"

# 5. replace the policy, twice: the second one takes the first one's id
probe $T/a/pub/dead/f >/dev/null
policy other "$T/b/**"
policy deny_prefix "$T/a/pub/**"
check "5 replaced policy denies the cached prefix" EPERM "$(probe $T/a/pub/dead/f)"
check "5 replaced policy denies the cached prefix (live)" EPERM "$(probe $T/a/pub/live/f)"

# 7. dead for some channels only: a walk asking only read stops where no
# read statement can match any more (the dead bit for read) and its entry
# says so; an open for writing on that mount must not take it as dead for
# writes too ("/**/w" denies the write). Stored by the read, then used by
# the write; and the other way round.
cat >$T.pol <<EOF
policy chans {
  deny file "$T/a/sec/**" read;
  deny file "/**/w" write;
}
EOF
"$POLC" build --target bpf -o $T.bpfpol $T.pol >/dev/null && "$POLC" load $T.bpfpol --cgroup $CG ||
	{ echo "FAIL build or load"; bad=1; }
wprobe() { # FILE: open it for reading and writing (no O_TRUNC, which
	   # path_truncate would decide first), confined, on CPU 0
	sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c 0 sh -c "exec 3<>\"\$0\"" "$2"' \
		_ "$CG" "$1" 2>$T.err && { echo ok; return; }
	if grep -q "not permitted" $T.err; then echo EPERM; else head -1 $T.err; fi
}
echo x >$T/a/pub/dead/w
mkdir -p $T/a/sec && echo x >$T/a/sec/x
check "7 read of w (read-dead prefix stored)" ok "$(probe $T/a/pub/dead/w)"
check "7 read-write open of w after it: denied by /**/w" EPERM "$(wprobe $T/a/pub/dead/w)"
check "7 read-write open of f: allowed" ok "$(wprobe $T/a/pub/dead/f)"
check "7 read of w after the writes (their entry)" ok "$(probe $T/a/pub/dead/w)"
check "7 read under the read deny" EPERM "$(probe $T/a/sec/x)"

# 8. the per-CPU memo of what confines a cgroup (confinement): it holds
# only until the loader writes or removes a cgroup entry (polc_gen). The
# probes run in a cgroup below $CG whose id falls in another memo slot than
# this script's cgroup (the loader's own hooks run there between probes).
# A policy on another cgroup keeps the enforcer in place throughout (the
# last unload removes it, and the memo with it).
mkdir -p $CG-other
printf 'policy other {\n  deny file "/nonexistent/**" read;\n}\n' >$T.other.pol
"$POLC" build --target bpf -o $T.other.bpfpol $T.other.pol >/dev/null &&
	"$POLC" load $T.other.bpfpol --cgroup $CG-other || { echo "FAIL load other"; bad=1; }
"$POLC" unload --cgroup $CG
own=$(stat -c %i "$(dirname $CG)$(sed -n 's/^0:://p' /proc/self/cgroup)")
i=0
while :; do
	KID=$CG/kid$i; mkdir -p $KID
	[ $(( $(stat -c %i $KID) % 4 )) != $(( own % 4 )) ] && break
	i=$((i + 1))
done
kprobe() { # FILE [CPU]: open for read in $KID on CPU 0 (or CPU)
	sh -c 'echo $$ >"$1/cgroup.procs" && exec taskset -c "$3" cat "$2"' _ "$KID" "$1" "${2:-0}" \
		>/dev/null 2>$T.err && { echo ok; return; }
	if grep -q "not permitted" $T.err; then echo EPERM; else head -1 $T.err; fi
}
echo x >$T/m1; echo x >$T/m2
check "8 no policy: read" ok "$(kprobe $T/m1)"
check "8 no policy, again (the memo: none)" ok "$(kprobe $T/m1)"
policy memo1 $T/m1
check "8 a policy loaded on the parent: denied" EPERM "$(kprobe $T/m1)"
policy memo2 $T/m2
check "8 the policy replaced: the old deny gone" ok "$(kprobe $T/m1)"
check "8 the policy replaced: the new deny" EPERM "$(kprobe $T/m2)"
"$POLC" unload --cgroup $CG
check "8 the policy unloaded: allowed" ok "$(kprobe $T/m2)"
"$POLC" build --target bpf -o $T.bpfpol $T.pol >/dev/null && "$POLC" load $T.bpfpol --cgroup $KID ||
	{ echo "FAIL load"; bad=1; }
check "8 the policy loaded on the cgroup itself: denied" EPERM "$(kprobe $T/m2)"

# 9. a change the loader cannot count: polc_gen frozen (BPF_MAP_FREEZE, so
# the loader's update fails; the enforcer only reads it). From a fresh
# install: "other" on $CG-other (id 1), m2 denied on $KID (id 2), whose
# memo entry on CPU 0 then names id 2. A load on $KID must fail and back
# out, so id 2 still decides; an unload must fail and keep id 2, and a
# later load (on another cgroup) must not be given it: its words would
# then decide $KID's tasks through the stale entry (m1 denied, m2
# allowed). The last unload removes the maps and the freeze.
"$POLC" unload
"$POLC" load $T.other.bpfpol --cgroup $CG-other || { echo "FAIL load other"; bad=1; }
for f in m1 m2; do
	printf 'policy %s {\n  deny file "%s" read;\n}\n' $f $T/$f >$T.$f.pol
	"$POLC" build --target bpf -o $T.$f.bpfpol $T.$f.pol >/dev/null || { echo "FAIL build $f"; bad=1; }
done
"$POLC" load $T.m2.bpfpol --cgroup $KID || { echo "FAIL load m2"; bad=1; }
check "9 before: the policy on the cgroup denies m2" EPERM "$(kprobe $T/m2)"
python3 - <<'PY9' || { echo "FAIL freeze polc_gen"; bad=1; }
import ctypes, os, struct
libc = ctypes.CDLL(None, use_errno=True)
def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    r = libc.syscall(321, cmd, buf, 128)   # __NR_bpf, x86_64
    if r < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return r
path = ctypes.create_string_buffer(b"/sys/fs/bpf/polc/polc_gen")
fd = bpf(7, struct.pack("QII", ctypes.addressof(path), 0, 0))   # BPF_OBJ_GET
bpf(22, struct.pack("I", fd))                                     # BPF_MAP_FREEZE
PY9
"$POLC" load $T.m1.bpfpol --cgroup $KID 2>$T.err9; rc=$?
check "9 a load that cannot be counted fails (exit 3)" 3 "$rc"
grep -q "cannot count the change" $T.err9 && echo "ok   9 it says why" ||
	{ echo "FAIL 9 load message: $(cat $T.err9)"; bad=1; }
check "9 backed out: the old policy still denies m2" EPERM "$(kprobe $T/m2)"
check "9 backed out: m1 (the new policy's deny) allowed" ok "$(kprobe $T/m1)"
# CPU 1's memo has no entry for $KID (every probe so far ran on CPU 0)
check "9 backed out, CPU 1 (a lookup): m1 allowed" ok "$(kprobe $T/m1 1)"
check "9 backed out, CPU 1 (a lookup): m2 denied" EPERM "$(kprobe $T/m2 1)"
"$POLC" unload --cgroup $KID 2>$T.err9; rc=$?
check "9 an unload that cannot be counted fails (exit 3)" 3 "$rc"
grep -q "policy 2 kept: a task may still be under it" $T.err9 && echo "ok   9 it keeps policy 2" ||
	{ echo "FAIL 9 unload message: $(cat $T.err9)"; bad=1; }
KID0=$KID; KID=$KID0/sub; mkdir -p $KID   # no memo entry: a lookup
check "9 unloaded, a new cgroup below it: m2 allowed" ok "$(kprobe $T/m2)"
KID=$KID0
mkdir -p $CG-third
"$POLC" load $T.m1.bpfpol --cgroup $CG-third 2>/dev/null
check "9 unloaded, CPU 0 (the stale entry): m2 still denied" EPERM "$(kprobe $T/m2)"
check "9 unloaded, CPU 0 (the stale entry): m1 allowed, id 2 not given again" ok "$(kprobe $T/m1)"
"$POLC" unload 2>/dev/null   # uncounted (9): every policy kept, then the pins removed
[ -e /sys/fs/bpf/polc ] && { echo "FAIL the last unload left the enforcer pinned"; bad=1; }
umount $T/a/pub/live $T/a/pub/dead 2>/dev/null
[ $bad = 0 ] && echo ALL-OK
exit $bad
