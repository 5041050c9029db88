#!/bin/sh
# An exec, exec open or executable mapping of a file whose name's length no
# decided path ends in is allowed without its path (the header's
# exec_lens). Here only names of 2, 3, 9 and 40 bytes can be decided: a
# refused program or library is still refused by its path when its dentry
# is named otherwise, with a length that cannot be decided (a file
# bind-mounted there: a mount's root, named by its mountpoint), when it is
# reached through a symlink, or when its name is 32 bytes or more (not kept
# in the dentry); a program of another length, and one of the same length
# at an allowed path, run. A program of another length on a detached
# mount has no trustworthy path and is refused (LANGUAGE.md), as a walk
# refuses it, and so has one on a tmpfs mounted below a directory that was
# then renamed out of the bind mount it was reached through (its mountpoint
# no longer reaches that mount's root). Only a mount on the namespace's
# root (here "/", and a root of its own made by pivot_root, as a
# container's) lets the name decide: the files under /tmp (a mount on "/")
# are walked, and the enforcer before that test ran the escaped program
# (tried); the root of its own's programs are decided by name.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 400 --env POLC="$POLC" --env SRC="$SRC" \
		-- sh "$SRC/tests/vm/t_bpf_exec_names.sh" --inside
fi

# ---- inside the VM ----
set -u
L=/tmp/xnames; mkdir -p $L/d $L/x $L/s $L/lib $L/lib2 $L/m
bad=0
. "$SRC/tests/vm/lab.sh"   # check
LONG=forty-bytes-long-program-name-0123456789
for b in nc ok true-7 bnd $LONG; do cp /usr/bin/true $L/d/$b; done
cp /usr/bin/true $L/x/other
mount --bind $L/x/other $L/d/bnd   # its dentry is "other" (5 bytes)
ln -s $L/d/nc $L/s/abcdef
libc=$(ldd /usr/bin/true | sed -n 's|.*=> \(/[^ ]*libc\.so\.6\).*|\1|p')
cp "$libc" $L/lib/libc.so.6
cp "$libc" $L/lib2/libc.so.6
cp "$libc" $L/x/lib-six
mkdir -p $L/lib3; cp "$libc" $L/lib3/libc.so.6
mount --bind $L/x/lib-six $L/lib3/libc.so.6   # its dentry is "lib-six" (7 bytes)
cat >$L/p.pol <<POL
policy xnames {
  deny exec "$L/d/nc", "$L/d/bnd", "$L/d/$LONG", "/xn-c/nc";
  deny file "$L/lib/libc.so.6", "$L/lib3/libc.so.6" mmap;
}
POL
cat >$L/probe.sh <<SH
try() { n=\$1; shift; if "\$@" 2>/dev/null; then echo "\$n ok"; else echo "\$n refused"; fi; }
try nc $L/d/nc
try ok $L/d/ok
try true7 $L/d/true-7
try bound $L/d/bnd
try symlink $L/s/abcdef
try long $L/d/$LONG
try lib env LD_LIBRARY_PATH=$L/lib /usr/bin/true
try lib2 env LD_LIBRARY_PATH=$L/lib2 /usr/bin/true
try lib3 env LD_LIBRARY_PATH=$L/lib3 /usr/bin/true
mount -t tmpfs none $L/m && cp /usr/bin/true $L/m/prog5 && exec 3<$L/m && umount -l $L/m
try detached /proc/self/fd/3/prog5
mkdir -p $L/e $L/b && mount -t tmpfs none $L/e && mkdir -p $L/e/d/y/x &&
  mount --bind $L/e/d $L/b && mount -t tmpfs none $L/b/y/x &&
  cp /usr/bin/true $L/b/y/x/prog5 && cp /usr/bin/true $L/b/y/x/zz && exec 4<$L/b/y/x && mv $L/e/d/y $L/e/y
try escaped /proc/self/fd/4/prog5
try escaped2 /proc/self/fd/4/zz
unshare -m sh $L/croot.sh $L/croot
SH
# A container's layout: a root of its own (pivot_root puts it where "/"
# was, on the namespace's root mount), the one layout where a program's
# name alone may decide (reaches_ns_root); everything above runs from /tmp, a
# mount on "/", and is walked.
cat >$L/croot.sh <<'SH'
try() { n=$1; shift; if "$@" 2>/dev/null; then echo "$n ok"; else echo "$n refused"; fi; }
R=$1
mkdir -p $R && mount -t tmpfs none $R && mkdir -p $R/old $R/xn-c &&
  for b in nc ok true-7; do cp /usr/bin/true $R/xn-c/$b || exit 1; done &&
  ln -s old/usr $R/usr && ln -s usr/lib $R/lib && ln -s usr/lib64 $R/lib64 && ln -s old/dev $R/dev &&
  cd $R && pivot_root . old && cd / || { echo "croot setup failed"; exit 1; }
try cnc /xn-c/nc
try cok /xn-c/ok
try ctrue7 /xn-c/true-7
SH
got() { sed -n "s|^$1 ||p" $L/out; }
"$POLC" run --target bpf $L/p.pol -- /usr/bin/sh $L/probe.sh >$L/out 2>$L/err
cat $L/out $L/err
check "refused program (2 bytes)" refused "$(got nc)"
check "allowed program of the same length" ok "$(got ok)"
check "program of another length" ok "$(got true7)"
check "refused path, a file named 'other' bind-mounted there" refused "$(got bound)"
check "refused program through a 6-byte symlink" refused "$(got symlink)"
check "refused program of a 40-byte name" refused "$(got long)"
check "refused library mapping (libc.so.6)" refused "$(got lib)"
check "allowed library of the same name elsewhere" ok "$(got lib2)"
check "refused library path, a file named 'lib-six' bind-mounted there" refused "$(got lib3)"
check "a program on a lazily unmounted tmpfs (no trustworthy path)" refused "$(got detached)"
check "a program on a tmpfs mounted on a directory moved out of its bind mount (no trustworthy path)" refused "$(got escaped)"
check "the same, a name of a length the policy decides (walked)" refused "$(got escaped2)"
check "in a root of its own: refused program (2 bytes)" refused "$(got cnc)"
check "in a root of its own: allowed program of the same length" ok "$(got cok)"
check "in a root of its own: program of another length" ok "$(got ctrue7)"
umount $L/d/bnd $L/lib3/libc.so.6
[ $bad = 0 ] && echo ALL-OK
exit $bad
