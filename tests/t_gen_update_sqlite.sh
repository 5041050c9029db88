#!/bin/sh
# t_gen_update_sqlite.sh - `polc gen --update` learns what a profile from
# one load lacks with the same generalisation as gen (issue 13, item 4):
# sqlite3's profile from load a (profiles/traces/sqlite3.trace, `polc gen
# --deny-default file,exec` as `make profiles` does) lacks load b's second
# database and its temporary files /var/tmp/etilqs_<16 random hex>, a new
# name each time. Folded in from load b's stored trace and from an audit
# log as `polc run --mode audit` writes it (the AppArmor or BPF LSM form:
# one file record per name and permission), the temporary files become one
# glob, never a literal name of that run; the second database stays its
# own names (no glob over the data directory, no exec). The kernel's side:
# tests/vm/t_profiles_audit_lsm.sh.
set -u
: "${POLC:?}" "${SRC:?}"
T=$(mktemp -d /tmp/t_gen_update_sqlite.XXXXXX) || exit 3
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$POLC" gen --name sqlite3 --deny-default file,exec -o "$T/a.pol" "$SRC/profiles/traces/sqlite3.trace" ||
	fail "gen: exit $?"
grep -q etilqs "$T/a.pol" && fail "load a's profile already names sqlite's temporary files"
# check FILE: the diff of gen --update adds one glob for the temp files and
# the second database by name
check() {
	grep '^+' "$1" | grep -q 'etilqs_[0-9a-f]' && fail "$2: a temporary file kept literal: $(cat "$1")"
	[ "$(grep -c '^+  allow file "/var/tmp/etilqs_\*" read, write;$' "$1")" = 1 ] ||
		fail "$2: no single etilqs_* glob: $(cat "$1")"
	grep -q '^+  allow file "/var/lib/polc-soak/sqlite3/side.db" read, write, lock;$' "$1" ||
		fail "$2: side.db not added: $(cat "$1")"
	grep '^+  allow file' "$1" | grep -q 'sqlite3/\*\|exec' && fail "$2: widened: $(cat "$1")"
	echo "ok   $2: $(grep -c '^+  allow' "$1") rules added, etilqs_* one glob"
}
cp "$T/a.pol" "$T/u.pol"
"$POLC" gen --update "$T/u.pol" "$SRC/profiles/traces/sqlite3-b.trace" > "$T/diff" 2>&1 ||
	fail "gen --update (trace): $(cat "$T/diff")"
check "$T/diff" "load b's trace"
# an audit log: what the LSMs' complain modes log for load b
{
	echo 'polc-trace 1'
	echo 'meta tracer "apparmor-complain" 1'
	for r in 0a1b2c3d4e5f6071 8e10049526e01456 c9224540d4e5c38d; do
		echo "file \"/var/tmp/etilqs_$r\" read ok 1"
		echo "file \"/var/tmp/etilqs_$r\" write ok 3"
	done
	echo 'file "/var/lib/polc-soak/sqlite3/side.db" read ok 1'
	echo 'file "/var/lib/polc-soak/sqlite3/side.db" write ok 12'
	echo 'file "/var/lib/polc-soak/sqlite3/side.db" lock ok 1'
	echo 'file "/var/lib/polc-soak/sqlite3/side.db-journal" write ok 40'
} > "$T/audit.log"
cp "$T/a.pol" "$T/u2.pol"
"$POLC" gen --update "$T/u2.pol" "$T/audit.log" > "$T/diff2" 2>&1 ||
	fail "gen --update (audit log): $(cat "$T/diff2")"
check "$T/diff2" "an audit log"
"$POLC" check "$T/u2.pol" > "$T/chk" 2>&1 || fail "polc check of the updated profile: $(cat "$T/chk")"
# learnt once, nothing more to learn
"$POLC" gen --update "$T/u2.pol" "$T/audit.log" > "$T/diff3" 2>&1 || fail "second update: $(cat "$T/diff3")"
grep -q "already allows everything" "$T/diff3" || fail "second update added more: $(cat "$T/diff3")"
echo ok
