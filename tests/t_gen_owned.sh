#!/bin/sh
# t_gen_owned.sh - polc gen generalises a tree the recorded run made (a
# data directory where it made a subdirectory and wrote files in it: a
# database's data directory) to DIR/** read, write, and a temp directory it
# made O_TMPFILE files in to DIR/* for named scratch files (issue 13:
# mariadb's profile from load a refused load b's new database "soak" and
# its Aria temporary tables /tmp/#sql-temptable-*, 44 denials under
# AppArmor and BPF LSM). Run A (ptrace, cwd /, so the working-directory
# rule plays no part) reads a table of data/sys, makes the database
# data/db1 with a table, drops it, and makes an O_TMPFILE file in scratch/
# (tests/progs/tmpfile_rw); run B, never recorded into the profile, makes
# another database with a subdirectory and other file names, drops it, and
# makes a named temporary table in scratch/. Judged by
# `polc gen --update` (ir_decide): A's profile must allow all of B, while
# writing the table A only read, writing beside the tree, exec'ing a file in
# it and a file in a subdirectory of scratch/ still need rules; and a
# crafted trace shows the rules never apply to a shared, top-level or
# system directory, nor grant scratch writes where only reads were seen.
# The kernel's side: tests/vm/t_profiles_servers_lsm.sh SERVERS=mariadb.
set -u
: "${POLC:?}"
P=$SRC/$BUILD/tests/progs
T=$(mktemp -d /tmp/t_gen_owned.XXXXXX) || exit 3
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
D=$T/srv/db/data S=$T/scratch
mkdir -p "$D/sys" "$S"
echo cfg > "$D/sys/tables.frm"
cp /bin/true "$D/sys/tool"
"$P/tmpfile_rw" "$S" 2>"$T/err"; r=$?
[ $r = 77 ] && { echo "SKIP: no O_TMPFILE on $S's file system: $(cat "$T/err")"; exit 0; }
[ $r = 0 ] || fail "tmpfile_rw: exit $r: $(cat "$T/err")"
. "$SRC/tests/gen-update.sh"   # rec, upd
rec A "cat $D/sys/tables.frm > /dev/null && mkdir $D/db1 && echo row > $D/db1/t1.ibd &&
	cat $D/db1/t1.ibd > /dev/null && rm -r $D/db1 && $P/tmpfile_rw $S"
Q="$S/#sql-temptable-1d4-5-0.MAD"
rec B "mkdir $D/soak $D/soak/part && echo x > $D/soak/a.MAD && echo y > $D/soak/part/p1 &&
	cat $D/soak/a.MAD $D/soak/part/p1 > /dev/null && echo z > $D/soak/a.TMD &&
	rm -r $D/soak && echo t > '$Q' && cat '$Q' > /dev/null && rm '$Q'"
grep -q "^file \"$D/soak/part/p1\" write ok" "$T/B.trace" || fail "B did not write soak/part/p1"
grep -q "^file \"$D/soak" "$T/A.trace" && fail "A touched soak"
grep -q '#sql' "$T/A.trace" && fail "A made a named temporary table"
a_allows_b "a database and a temporary table A never made"
G='"/tmp/t_gen_owned\.\*/srv/db/data'
grep -q "^  allow file $G/\*\*\" read, write;" "$T/A.pol" ||
	fail "data/ not a tree A made: $(grep file "$T/A.pol")"
grep -q '^  allow file "/tmp/t_gen_owned\.\*/scratch/\*" read, write;' "$T/A.pol" ||
	fail "scratch/ not a scratch directory: $(grep file "$T/A.pol")"
grep -q "^  # Made by the workload: .*data (it made the subdirectory db1 there" "$T/A.pol" ||
	fail "no comment saying why data/**"
grep -q "^  # Scratch directory .*scratch: the run made unnamed files there (O_TMPFILE)" "$T/A.pol" ||
	fail "no comment saying why scratch/*"
# ...but only there, and only files made, read and written
upd C "echo z > $D/sys/tables.frm" "file $G/sys/tables.frm\" write"
upd E "echo z > $T/srv/db/other.log" 'file "/tmp/t_gen_owned\.\*/srv/db/other\.log" write'
upd F "$D/sys/tool" "exec $G/sys/tool\""
upd H "mkdir $S/sub && echo z > $S/sub/f" 'file "/tmp/t_gen_owned\.\*/scratch/'
# never a shared, top-level or system directory; never a write where only
# reads were seen (crafted: a run that made subdirectories there)
cat > "$T/X.trace" <<'EOF'
polc-trace 1
meta runs 1
syscall x86_64 mkdir 3
file "/var/lib/newdb" write ok 1
file "/var/lib/newdb/t1" write ok 1
file "/srv/work" write ok 1
file "/srv/work/f" write ok 1
file "/etc/app.d" write ok 1
file "/etc/app.d/x" write ok 1
file "/var/tmp/#12345" read ok 1
EOF
"$POLC" gen --name x --deny-default file,exec -o "$T/X.pol" "$T/X.trace" || fail "gen X: exit $?"
grep -q '\*\*"' "$T/X.pol" && fail "a tree in a shared, top-level or system directory: $(grep file "$T/X.pol")"
grep -q '^  allow file "/var/tmp/\*" read;' "$T/X.pol" || fail "/var/tmp/#N read: $(grep file "$T/X.pol")"
echo "ok: a database and a temporary table run A never made are allowed by A's profile; reads stay reads, nothing outside"
