#!/bin/sh
# The BPF enforcer's whole-path cache (enforcer.bpf.c, wpc_hit): after a
# confined open has kept a file's plain allow, everything that gives the
# file, or the dentry it was at, another path is seen by the next open,
# which is decided by the path as it is now. One confined process, pinned
# to CPU 0 (that CPU's path buffer and its cache), opens an allowed file
# once to keep the entry, then after the change opens the file, or its
# dentry's new owner, at a path the policy refuses:
#  1. the file renamed into the denied tree (rename_lock's sequence);
#  2. its directory renamed into it, by another process (the same);
#  3. a hard link to it in the denied tree (another dentry);
#  4. its dentry freed (unlinked while open, then closed) and a denied
#     file made next, whose dentry the slab allocator gives the freed one's
#     memory (the same address under another parent and name: the chain's
#     digest), REUSE_TRIES times;
#  5. a file replaced by a directory of the same name (the same dentry and
#     chain; a "path/" statement refuses the directory);
# and an allowed file opened twice is allowed twice (the entry's hit).
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 400 --env POLC="$POLC" --env SRC="$SRC" \
		-- sh "$SRC/tests/vm/t_bpf_wpc.sh" --inside
fi

# ---- inside the VM ----
set -u
L=/tmp/wpc; rm -rf $L; mkdir -p $L/ok/sub $L/deny $L/mix
bad=0
. "$SRC/tests/vm/lab.sh"   # check
REUSE_TRIES=40
for f in ok/f1 ok/sub/f2 ok/f3 ok/g mix/n; do echo x >$L/$f; done
cat >$L/p.pol <<POL
policy wpc {
  default allow file;
  deny file "$L/deny/**" read;
  deny file "$L/mix/n/" read;
}
POL
cat >$L/probe.py <<'PY'
import errno, os, stat, sys, time
L, tries = sys.argv[1], int(sys.argv[2])
def opened(p):
    try:
        os.close(os.open(p, os.O_RDONLY)); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def say(name, *rs): print(name, " ".join(rs), flush=True)
say("rename-file", opened(L + "/ok/f1"),
    os.rename(L + "/ok/f1", L + "/deny/f1") or opened(L + "/deny/f1"))
# the enforcer refuses this process a directory's move between differently
# granted trees: another process makes it (mover in the test)
first = opened(L + "/ok/sub/f2")
with open(L + "/go", "w") as f:
    f.write("go\n")
with open(L + "/moved") as f:
    f.read()
say("rename-dir", first, opened(L + "/deny/sub/f2"))
say("link", opened(L + "/ok/f3"),
    os.link(L + "/ok/f3", L + "/deny/f3") or opened(L + "/deny/f3"), opened(L + "/ok/f3"))
say("twice", opened(L + "/ok/g"), opened(L + "/ok/g"))
os.chdir(L + "/deny")
refused = 0
for i in range(tries):
    a = "%s/ok/a%d" % (L, i)
    os.mknod(a, 0o600 | stat.S_IFREG)   # a fresh dentry, from the CPU's slab
    fd = os.open(a, os.O_RDONLY)        # allowed: kept
    os.unlink(a)                        # unhashed, held by fd
    os.close(fd)                        # freed (after an RCU grace period)
    time.sleep(0.05)
    os.mknod("b%d" % i, 0o600 | stat.S_IFREG)   # the next dentry allocated
    if opened("b%d" % i) != "ok":
        refused += 1
say("reuse", "%d/%d" % (refused, tries))
n = L + "/mix/n"
first = opened(n)
os.unlink(n); os.mkdir(n)
say("file-then-dir", first, opened(n))
PY
mkfifo $L/go $L/moved
(read x <$L/go; mv $L/ok/sub $L/deny/sub; echo done >$L/moved) &
"$POLC" run --target bpf $L/p.pol -- taskset -c 0 python3 $L/probe.py $L $REUSE_TRIES >$L/out 2>$L/err
cat $L/out $L/err
got() { sed -n "s/^$1 //p" $L/out; }
check "file renamed into the denied tree" "ok EPERM" "$(got rename-file)"
check "its directory renamed" "ok EPERM" "$(got rename-dir)"
check "a hard link in the denied tree" "ok EPERM ok" "$(got link)"
check "an allowed file twice" "ok ok" "$(got twice)"
check "a freed dentry's memory under a denied name" "$REUSE_TRIES/$REUSE_TRIES" "$(got reuse)"
check "a file, then a directory of its name" "ok EPERM" "$(got file-then-dir)"
[ $bad = 0 ] && echo ALL-OK
exit $bad
