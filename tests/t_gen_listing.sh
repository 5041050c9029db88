#!/bin/sh
# t_gen_listing.sh - polc gen lets a data directory the recorded run read
# files from be listed, with the directories beneath it (issue 13: nginx's
# profile from its load a refused load b's autoindex of www/list/, a
# listing load a never made). Run A (ptrace) reads two files of a web root
# from outside it (cwd /, so the working-directory rule plays no part);
# run B, never recorded into the profile, lists subdirectories A never
# listed (ls -l). Judged by `polc gen --update` (ir_decide, directories in
# their "DIR/" form): A's profile must already allow all of B, while
# reading a file beneath (listing grants names, not contents), writing
# there, and listing a system directory A read from (/etc) still need new
# rules. The kernel's side (AppArmor, BPF LSM) is lab
# tests/vm/t_profiles_servers_lsm.sh: nginx load b under the profile from
# load a.
set -u
: "${POLC:?}"
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
W=$T/srv/www
mkdir -p "$W/list/sub"
echo a > "$W/a.html"; echo b > "$W/b.html"
echo e > "$W/list/e1"; echo f > "$W/list/sub/e2"
. "$SRC/tests/gen-update.sh"   # rec, upd
# A runs ls -l too (on files, no directory), so B differs only by its listings
rec A "ls -l $W/a.html /etc/hostname > /dev/null && cat $W/a.html $W/b.html /etc/hostname > /dev/null"
rec B "ls -l $W/list/ $W/list/sub/ > /dev/null"
grep -q "^file \"[^\"]*/www/list\" read ok" "$T/B.trace" || fail "B did not list www/list: $(grep '^file' "$T/B.trace")"
grep -q "^file \"[^\"]*/www/list\"" "$T/A.trace" && fail "A listed www/list"
a_allows_b "a listing A never made"
G='"/tmp/[^"/]*/srv/www'
grep -q "^  allow file $G/\" read;" "$T/A.pol" || fail "www/ not listable: $(grep file "$T/A.pol")"
grep -q "^  allow file $G/\*\*/\" read;" "$T/A.pol" || fail "www/**/ not listable: $(grep file "$T/A.pol")"
grep -q "^  # Directory listings: a data directory files were read from" "$T/A.pol" || fail "no comment saying why"
grep -q '^  # family getdents: .*(the directory listings the file rules allow)' "$T/A.pol" ||
	fail "no getdents family with the listings: $(grep getdents "$T/A.pol")"
grep -E -q '"/etc/(\*\*/)?"' "$T/A.pol" && fail "a system directory made listable: $(grep '/"' "$T/A.pol")"
grep -q '/srv/"' "$T/A.pol" && fail "widened above the directory read from"
# ...but only listings: contents, writes and /etc still need rules
upd C "cat $W/list/e1 > /dev/null" "file $G/list/e1\" read;"
upd D "echo x > $W/list/new" "file $G/list/new\" write"
upd E "ls -l /etc/ssl/ > /dev/null" 'file "/etc/ssl" read;'
echo "ok: a listing run A never made is allowed by A's profile; contents, writes and /etc are not"
