#!/bin/sh
# BPF LSM path hooks in the kernel lab: under a policy that denies write
# (and link) on one tree and allows everything elsewhere, a confined
# process is refused create (open O_CREAT, mkfifo), unlink, rename (as
# source and as target), mkdir, rmdir, truncate, chmod, chown, symlink and
# link there, and allowed each of them in the sibling tree; a tree reached
# through a mount point below the denied glob is still denied (the path is
# built across mounts); a directory-only glob ("dir/*/") denies mkdir but
# not a file of the same name; a path longer than POLC_PATH_MAX is decided
# fail closed; the file's exec permission holds on execve (6.1 marks an
# exec open in f_flags only); a directory opened for read (open
# O_DIRECTORY, listed) is decided in both its forms, "path" and "path/"
# (file_open asks the dentry): under a closed file domain a directory
# granted only by "dir/" and "dir/**/" rules opens and lists, nested ones
# too, and its ungranted sibling and a file inside it are refused, and under
# an open one a directory a "dir/*/" rule denies read is refused (558451b's
# enforcer refused the granted ones: t_verify_lsm's 23 mismatches); and a
# process outside the enforced cgroup is unaffected.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
POLC=${POLC:-$SRC/${BUILD:-build}/polc}
if [ "${1:-}" != --inside ]; then
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 480 --env POLC="$POLC" --env SRC="$SRC" \
		-- sh "$SRC/tests/vm/t_bpf_paths.sh" --inside
fi

# ---- inside the VM ----
set -u
PY=/usr/bin/python3
T=/tmp/bpfpaths
bad=0
. "$SRC/tests/vm/lab.sh"   # check
got() { sed -n "s/^$1 //p" "$2"; }

# A fresh lab: the same files in ro/ (denied), rw/ (allowed) and ro/m/, a
# tmpfs mounted below the denied glob.
setup() {
	umount $T/lab/ro/m 2>/dev/null
	rm -rf $T/lab; mkdir -p $T/lab/ro/m $T/lab/rw/m $T/lab/dirs
	mount -t tmpfs polc-paths $T/lab/ro/m
	mkdir -p $T/lab/noexec; cp /usr/bin/true $T/lab/noexec/true; cp /usr/bin/true $T/lab/true
	mkdir -p $T/lab/nolist/sub; echo x >$T/lab/nolist/file
	for d in ro rw ro/m rw/m; do
		for f in unlink ren ren-out tr ch own src; do echo x >$T/lab/$d/$f; done
		mkdir $T/lab/$d/rmd
	done
}

cat >$T.py <<'EOF'
import errno, os, subprocess, sys
def res(f):
    try:
        f(); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
L = sys.argv[1]
for d in ("ro", "rw", "ro/m", "rw/m"):
    p = L + "/" + d + "/"
    k = d.replace("/", "-")
    print(k + "-create", res(lambda: os.close(os.open(p + "new", os.O_CREAT | os.O_WRONLY, 0o644))))
    print(k + "-mkfifo", res(lambda: os.mkfifo(p + "fifo")))
    print(k + "-unlink", res(lambda: os.unlink(p + "unlink")))
    print(k + "-rename", res(lambda: os.rename(p + "ren", p + "ren2")))
    print(k + "-mkdir", res(lambda: os.mkdir(p + "newdir")))
    print(k + "-rmdir", res(lambda: os.rmdir(p + "rmd")))
    print(k + "-truncate", res(lambda: os.truncate(p + "tr", 0)))
    print(k + "-chmod", res(lambda: os.chmod(p + "ch", 0o600)))
    print(k + "-chown", res(lambda: os.chown(p + "own", 0, 0)))
    print(k + "-symlink", res(lambda: os.symlink("/etc/passwd", p + "sym")))
    print(k + "-link", res(lambda: os.link(p + "src", p + "hl")))
# rename across the two trees: the source, then the target, is denied
print("rename-out", res(lambda: os.rename(L + "/ro/ren-out", L + "/rw/moved")))
print("rename-in", res(lambda: os.rename(L + "/rw/ren-out", L + "/ro/moved")))
# "dirs/*/" names directories only
print("dirglob-mkdir", res(lambda: os.mkdir(L + "/dirs/sub")))
print("dirglob-file", res(lambda: os.close(os.open(L + "/dirs/file", os.O_CREAT | os.O_WRONLY, 0o644))))
# a directory opened for read: "nolist/*/" denies it, not a file there
print("dirread-denied", res(lambda: os.close(os.open(L + "/nolist/sub", os.O_RDONLY | os.O_DIRECTORY))))
print("dirread-file", res(lambda: open(L + "/nolist/file").close()))
# the file's exec permission (an exec open: __FMODE_EXEC in f_flags)
print("file-exec-denied", res(lambda: subprocess.run([L + "/noexec/true"], check=True)))
print("file-exec-sibling", res(lambda: subprocess.run([L + "/true"], check=True)))
# deeper than POLC_PATH_MAX: built relative to a deep cwd, fail closed
os.chdir(L + "/deep")
for i in range(22):
    os.chdir("d" * 200)
print("deep-create", res(lambda: os.close(os.open("x", os.O_CREAT | os.O_WRONLY, 0o644))))
EOF

cat >$T.pol <<EOF
policy paths {
  deny file "$T/lab/ro/**" write, link;
  deny errno EACCES file "$T/lab/dirs/*/" write;
  deny file "$T/lab/noexec/*" exec;
  deny file "$T/lab/nolist/*/" read;
}
EOF

# Directories granted only in their "path/" form, as polc gen grants a
# directory it saw listed (profiles/postgresql.pol's polc-soak/ and
# polc-soak/**/): "g/" and everything beneath by "g/**/" ("**" after a '/'
# matches at least one byte, so "g/**/" alone does not grant "g/"), under
# a closed file domain; its sibling "n" and the file g/sub/f are granted by
# nothing. Each directory is opened O_RDONLY|O_DIRECTORY and listed
# (os.listdir: opendir's open and getdents).
cat >$T.dl.py <<'EOF'
import errno, os, sys
def res(f):
    try:
        f(); return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
L = sys.argv[1]
print("started ok")
for k, d in (("g", "g"), ("g-sub", "g/sub"), ("g-deep", "g/sub/deep"), ("n", "n")):
    print("open-" + k, res(lambda: os.close(os.open(L + "/" + d, os.O_RDONLY | os.O_DIRECTORY))))
    print("list-" + k, res(lambda: os.listdir(L + "/" + d)))
print("file-in-g", res(lambda: open(L + "/g/sub/f").close()))
EOF
cat >$T.dl.pol <<EOF
policy dirlist {
  default deny file;
  allow file "/usr/**", "/lib/**", "/lib64/**", "/etc/**", "/proc/**", "/sys/**", "/dev/**" read, mmap, exec;
  allow file "$T.dl.py" read;
  allow file "$T/dl/g/" read;
  allow file "$T/dl/g/**/" read;
}
EOF

# the deep tree is made unconfined (each mkdir names a short relative path:
# the shell's cd keeps a logical path, which would be too long)
mkdeep() {
	$PY -c 'import os, sys
os.makedirs(sys.argv[1]); os.chdir(sys.argv[1])
for i in range(22): os.mkdir("d" * 200); os.chdir("d" * 200)' $T/lab/deep
}

OPS="create mkfifo unlink rename mkdir rmdir truncate chmod chown symlink link"

# The run (1.) and the load (2.) share one install of the enforcer (lab.sh);
# the final unload removes every policy, and with them the enforcer.
. "$SRC/tests/vm/lab.sh"
lab_keep_enforcer >/dev/null 2>&1 || { echo "FAIL: cannot keep the enforcer installed"; bad=1; }

# 1. confined by polc run
setup; mkdeep
$POLC run --target bpf $T.pol -- $PY $T.py $T/lab >$T.run 2>$T.err
echo "polc run exit $?"; cat $T.err
for op in $OPS; do
	check "ro $op" EPERM "$(got ro-$op $T.run)"
	check "ro/m (a mount below the glob) $op" EPERM "$(got ro-m-$op $T.run)"
	check "rw $op" ok "$(got rw-$op $T.run)"
	check "rw/m $op" ok "$(got rw-m-$op $T.run)"
done
check "rename out of the denied tree" EPERM "$(got rename-out $T.run)"
check "rename into the denied tree" EPERM "$(got rename-in $T.run)"
check "dir glob: mkdir" EACCES "$(got dirglob-mkdir $T.run)"
check "dir glob: a file" ok "$(got dirglob-file $T.run)"
check "deeper than POLC_PATH_MAX: fail closed" EPERM "$(got deep-create $T.run)"
check "file exec permission" EPERM "$(got file-exec-denied $T.run)"
check "file exec permission, sibling" ok "$(got file-exec-sibling $T.run)"
check "a directory opened for read, denied by a dir glob" EPERM "$(got dirread-denied $T.run)"
check "a file beside it" ok "$(got dirread-file $T.run)"
[ -e $T/lab/ro/new ] && { echo "FAIL ro/new was created"; bad=1; }

# 1b. directories granted by their "path/" form alone (closed file domain)
rm -rf $T/dl; mkdir -p $T/dl/g/sub/deep $T/dl/n; echo x >$T/dl/g/sub/f; echo x >$T/dl/n/f
$POLC run --target bpf $T.dl.pol -- $PY $T.dl.py $T/dl >$T.dl.run 2>$T.dl.err
echo "polc run (closed file domain) exit $?"; cat $T.dl.err
check "closed file domain: the probe started" ok "$(got started $T.dl.run)"
for k in g g-sub g-deep; do
	check "directory granted by its path/ form ($k): open for read" ok "$(got open-$k $T.dl.run)"
	check "directory granted by its path/ form ($k): listed" ok "$(got list-$k $T.dl.run)"
done
check "sibling directory granted by nothing: open for read" EPERM "$(got open-n $T.dl.run)"
check "sibling directory granted by nothing: listed" EPERM "$(got list-n $T.dl.run)"
check "a file in a granted directory, granted by nothing" EPERM "$(got file-in-g $T.dl.run)"

# 2. loaded for another cgroup: this process is outside it, unaffected
setup; mkdeep
$POLC build --target bpf -o $T.bpfpol $T.pol 2>/dev/null
mkdir -p /sys/fs/cgroup/polc-other
$POLC load $T.bpfpol --cgroup /sys/fs/cgroup/polc-other
$PY $T.py $T/lab >$T.out 2>&1
for op in $OPS; do
	check "outside ro $op" ok "$(got ro-$op $T.out)"
done
check "outside rename-in" ok "$(got rename-in $T.out)"
check "outside dir glob: mkdir" ok "$(got dirglob-mkdir $T.out)"
check "outside deep-create" ok "$(got deep-create $T.out)"
$POLC unload
umount $T/lab/ro/m 2>/dev/null

[ $bad = 0 ] && echo ALL-OK
exit $bad
