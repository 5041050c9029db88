#!/bin/sh
# polc run --target landlock as a non-root user, natively (Landlock needs no
# privilege): real programs (sh, cat, ls, python3) under a file allow-list
# open what it grants and are refused the rest; TCP bind/connect by port in
# a network namespace of the test's own; an abstract unix socket and a
# signal towards a process outside the sandbox are refused by scoping; an
# MPTCP socket (which Landlock does not mediate) and io_uring are refused
# beside TCP rules; the
# artifact is deterministic; what Landlock cannot enforce is refused
# without --allow-partial. Every workload's own exit status is checked.
set -eu
fail() { echo "FAIL: $*"; exit 1; }
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null || echo 0)
[ "$abi" -ge 6 ] 2>/dev/null || { echo "SKIP: Landlock ABI $abi here (6 needed: scoping)"; exit 0; }
command -v setpriv >/dev/null || { echo "SKIP: no setpriv"; exit 0; }
if [ "$(id -u)" = 0 ]; then
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
else
	AS=""
fi
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/data" "$T/other"
echo granted >"$T/data/ok"; echo secret >"$T/other/secret"; echo exact >"$T/file"
chmod -R a+rwX "$T"
$AS sh -c 'cat "$1/other/secret" >/dev/null' sh "$T" || { echo "SKIP: nobody cannot reach $T"; exit 0; }

# ---- files: an allow-list ----
cat >"$T/f.pol" <<POL
policy files {
  default deny file;
  allow file "/usr", "/usr/**" read, exec, mmap;
  allow file "/etc/ld.so.cache" read;
  allow file "/dev/null" read, write;
  allow file "$T/file" read;
  allow file "$T/data", "$T/data/**" read, write;
}
POL
# refused without --allow-partial (Landlock does not mediate chmod/chown:
# the default is partial), and nothing runs
if "$POLC" run --target landlock "$T/f.pol" -- sh -c 'echo ran' >"$T/o" 2>"$T/e"; then
	fail "a partial default was not refused"
fi
[ ! -s "$T/o" ] || fail "the command ran despite the refusal"
grep -q "cannot enforce .default deny file. exactly" "$T/e" || { cat "$T/e"; fail "refusal does not say why"; }
# ... and names the routes Landlock (ABI 7) leaves open that polc calls a
# file write or an exec: connecting to a unix socket by its path, and a
# memfd run with fexecve (kernel-internal files are not checked)
grep -q "default deny file. exactly: .*connecting or sending to a unix socket by its path" "$T/e" ||
	{ cat "$T/e"; fail "the file default's reason omits unix sockets by path"; }
printf 'policy mx {\n  default deny exec;\n  allow exec "/usr/bin/**";\n}\n' >"$T/mx.pol"
"$POLC" build --target landlock "$T/mx.pol" -o /dev/null 2>"$T/e" && fail "an exec allow-list claimed exact"
grep -q "default deny exec. exactly: .*a memfd runs whatever the workload writes into it" "$T/e" ||
	{ cat "$T/e"; fail "the exec default's reason omits memfd"; }

$AS "$POLC" run --target landlock --allow-partial "$T/f.pol" -- sh -c '
	t=$1
	r() { if "$@" >/dev/null 2>&1; then echo "$1 ok"; else echo "$1 denied"; fi; }
	r cat "$t/file"
	r cat "$t/data/ok"
	r cat "$t/other/secret"
	r ls "$t/data"
	r ls "$t/other"
	r cat /etc/hostname
	if echo new >"$t/data/new" 2>/dev/null; then echo "create data/new ok"; else echo "create data/new denied"; fi
	if echo new >"$t/other/new" 2>/dev/null; then echo "create other/new ok"; else echo "create other/new denied"; fi
	r rm "$t/data/new"
	r python3 -c "open(\"$t/data/ok\").read()"
	r python3 -c "open(\"$t/other/secret\").read()"
	exit 7' sh "$T" >"$T/out" 2>"$T/err" && rc=0 || rc=$?
cat "$T/out"
[ "$rc" = 7 ] || { cat "$T/err"; fail "the workload ended with $rc, not its own 7"; }
want="cat ok
cat ok
cat denied
ls ok
ls denied
cat denied
create data/new ok
create other/new denied
rm ok
python3 ok
python3 denied"
[ "$(cat "$T/out")" = "$want" ] || fail "file results differ"
# the same commands unconfined succeed (the denials are Landlock's)
$AS sh -c 'cat "$1/other/secret" && ls "$1/other" && cat /etc/hostname' sh "$T" >/dev/null ||
	fail "unconfined baseline failed"

# ---- grants that reach further than written are refused or partial ----
mkdir -p "$T/d/sub"; echo top >"$T/d/top"; echo sub >"$T/d/sub/s"; ln -s d "$T/ln"
chmod -R a+rwX "$T/d"
base='  default deny file;
  allow file "/usr/**", "/usr/" read, exec, mmap;
  allow file "/etc/ld.so.cache" read;'
# F1: a grant through a symbolic link is a grant of its target (Landlock
# resolves it): it must not defeat a deny on the target
printf 'policy f1 {\n%s\n  allow file "%s/ln", "%s/ln/**" read;\n  deny file "%s/d/top" read;\n}\n' \
	"$base" "$T" "$T" "$T" >"$T/f1.pol"
if $AS "$POLC" run --target landlock --allow-partial "$T/f1.pol" -- cat "$T/ln/top" >"$T/o" 2>"$T/e"; then
	fail "F1: a grant through a symlink defeated a deny: $(cat "$T/o")"
fi
[ ! -s "$T/o" ] || fail "F1: the workload ran"
grep -q "f1.pol:5:3: landlock: the grant of $T/ln goes through a symbolic link: Landlock would grant $T/d, .* where $T/f1.pol:6:3 denies" "$T/e" ||
	{ cat "$T/e"; fail "F1: refusal does not name the statements and the target"; }
# F1 without openat2: a seccomp filter around polc that fails openat2 with
# ENOSYS (as some container runtimes' defaults do for syscalls they do not
# know) must not turn the check off: realpath stands in for it
printf 'policy outer {\n  deny errno ENOSYS syscall openat2;\n}\n' >"$T/outer.pol"
if $AS "$POLC" run --target seccomp "$T/outer.pol" -- "$POLC" run --target landlock --allow-partial \
	"$T/f1.pol" -- cat "$T/d/top" >"$T/o" 2>"$T/e"; then
	fail "F1: with openat2 ENOSYS a grant through a symlink defeated a deny: $(cat "$T/o")"
fi
[ ! -s "$T/o" ] || fail "F1 (ENOSYS): the workload ran"
grep -q "f1.pol:5:3: landlock: the grant of $T/ln goes through a symbolic link: Landlock would grant $T/d, .* where $T/f1.pol:6:3 denies" "$T/e" ||
	{ cat "$T/e"; fail "F1 (ENOSYS): refusal does not name the statements and the target"; }
# F2: the interpreter of an allowed script is granted only if no statement
# denies it
sh_real=$(readlink -f /bin/sh)
printf '#!/bin/sh\n"%s" -c "echo escaped"\n' "$sh_real" >"$T/s.sh"; chmod 755 "$T/s.sh"
printf 'policy f2 {\n  default deny exec;\n  allow exec "%s/s.sh";\n  deny exec "%s";\n}\n' \
	"$T" "$sh_real" >"$T/f2.pol"
if $AS "$POLC" run --target landlock --allow-partial "$T/f2.pol" -- "$T/s.sh" >"$T/o" 2>"$T/e"; then
	fail "F2: an interpreter denied by a statement was granted: $(cat "$T/o")"
fi
[ ! -s "$T/o" ] || fail "F2: the workload ran"
grep -q "f2.pol:3:3: landlock: a program this statement allows needs the interpreter /bin/sh ($sh_real), which $T/f2.pol:4:3 denies" "$T/e" ||
	{ cat "$T/e"; fail "F2: refusal does not name both statements"; }
# F3: read on a directory lets Landlock list every directory below it
printf 'policy f3 {\n%s\n  allow file "%s/d/" read;\n}\n' "$base" "$T" >"$T/f3.pol"
"$POLC" build --target landlock "$T/f3.pol" -o /dev/null 2>"$T/e" && fail "F3: a directory grant was not refused"
grep -q "f3.pol:5:3: error: target landlock cannot enforce this statement exactly: Landlock grants the whole hierarchy of a directory" "$T/e" ||
	{ cat "$T/e"; fail "F3: not partial"; }
printf 'policy f3b {\n%s\n  allow file "%s/d" read;\n  deny file "%s/d/sub/**" read;\n}\n' "$base" "$T" "$T" >"$T/f3b.pol"
if $AS "$POLC" run --target landlock --allow-partial "$T/f3b.pol" -- ls "$T/d/sub" >"$T/o" 2>"$T/e"; then
	fail "F3: a literal directory grant defeated a deny below it: $(cat "$T/o")"
fi
[ ! -s "$T/o" ] || fail "F3: the workload ran"
grep -q "f3b.pol:5:3: landlock: $T/d is a directory: Landlock lets every directory below it be listed too, where $T/f3b.pol:6:3 denies" "$T/e" ||
	{ cat "$T/e"; fail "F3: refusal does not name both statements"; }

# F5: a hierarchy exec grant runs dynamic programs (their loader is granted)
printf 'policy f5 {\n  default deny exec;\n  allow exec "/usr/bin/**";\n}\n' >"$T/f5.pol"
$AS "$POLC" run --target landlock --allow-partial "$T/f5.pol" -- /usr/bin/id -u >"$T/o" 2>"$T/e" ||
	{ cat "$T/e"; fail "F5: a dynamic program under allow exec \"/usr/bin/**\" did not run"; }
[ "$(cat "$T/o")" = "$($AS id -u)" ] || fail "F5: id printed $(cat "$T/o")"
# F6/F7: Landlock's rename and link rules make write and link partial; the
# reason holds: a write grant on a hierarchy allows a hard link without link
mkdir "$T/w"; echo a >"$T/w/a"; chmod -R a+rwX "$T/w"
printf 'policy f6 {\n%s\n  allow file "%s/w/**" write;\n  deny file "%s/d/**" link;\n}\n' "$base" "$T" "$T" >"$T/f6.pol"
"$POLC" build --target landlock "$T/f6.pol" -o /dev/null 2>"$T/e" && fail "F6: write/link grants not refused"
for l in 5 6; do
	grep -q "f6.pol:$l:3: error: target landlock cannot enforce this statement exactly: .*(EXDEV) unless both grant refer" "$T/e" ||
		{ cat "$T/e"; fail "F6: line $l not partial for rename/link"; }
done
$AS "$POLC" run --target landlock --allow-partial "$T/f6.pol" -- ln "$T/w/a" "$T/w/b" 2>/dev/null ||
	fail "F7: the hard link the reason describes was refused"
# audit file/exec statements, and file denies under mode audit: Landlock
# does not log
printf 'policy fa {\n  audit file "%s/file" read;\n  audit exec "/usr/bin/id";\n}\n' "$T" >"$T/fa.pol"
printf 'policy fb {\n  mode audit;\n  deny file "%s/file" read;\n}\n' "$T" >"$T/fb.pol"
"$POLC" build --target landlock "$T/fa.pol" -o /dev/null 2>"$T/e" && fail "audit file/exec claimed exact"
grep -q "fa.pol:2:3: error: .*Landlock does not log" "$T/e" && grep -q "fa.pol:3:3: error: .*Landlock does not log" "$T/e" ||
	{ cat "$T/e"; fail "audit file/exec statements not partial"; }
"$POLC" build --target landlock "$T/fb.pol" -o /dev/null 2>"$T/e" && fail "a deny under mode audit claimed exact"
grep -q "fb.pol:3:3: error: target landlock cannot enforce this statement: under .mode audit." "$T/e" ||
	{ cat "$T/e"; fail "a file deny under mode audit not none"; }

# F4: what the running ABI cannot enforce is partial, statement by
# statement (POLC_LANDLOCK_ABI=3 runs as on a kernel without TCP rules)
printf 'policy f4 {\n  deny network connect tcp port 8080;\n  deny network bind tcp port 9090;\n}\n' >"$T/f4.pol"
"$POLC" build --target landlock "$T/f4.pol" -o /dev/null || fail "F4: exact TCP denies refused on build"
if POLC_LANDLOCK_ABI=3 $AS "$POLC" run --target landlock "$T/f4.pol" -- echo ran >"$T/o" 2>"$T/e"; then
	fail "F4: TCP denies ran unenforced on ABI 3 without --allow-partial"
fi
[ ! -s "$T/o" ] || fail "F4: the workload ran"
for l in 2 3; do
	grep -q "f4.pol:$l:3: polc run: landlock: error: this statement relies on TCP bind and connect, which Landlock ABI 3 lacks" "$T/e" ||
		{ cat "$T/e"; fail "F4: line $l not named"; }
done
POLC_LANDLOCK_ABI=3 $AS "$POLC" run --target landlock --allow-partial "$T/f4.pol" -- echo ran >"$T/o" 2>"$T/e" &&
	[ "$(cat "$T/o")" = ran ] || { cat "$T/e"; fail "F4: --allow-partial did not run"; }

# F8: listen(2) on an unbound socket binds it to an ephemeral port with no
# bind(2), which Landlock does not see: a bind deny meeting Linux's default
# range is partial on build, and one meeting this machine's range (here a
# namespace's, 9000-9100) is refused when run
printf 'policy f8 {\n  deny network bind tcp port 40001;\n}\n' >"$T/f8.pol"
"$POLC" build --target landlock "$T/f8.pol" -o /dev/null 2>"$T/e" && fail "F8: a bind deny in the ephemeral range claimed exact"
grep -q "f8.pol:2:3: error: .*listen(2) on an unbound socket binds it to a port of net.ipv4.ip_local_port_range" "$T/e" ||
	{ cat "$T/e"; fail "F8: reason"; }
if $AS unshare -rn true 2>/dev/null; then
	$AS unshare -rn sh -c 'echo 9000 9100 >/proc/sys/net/ipv4/ip_local_port_range &&
		"$1" run --target landlock "$2/f4.pol" -- echo ran' sh "$POLC" "$T" >"$T/o" 2>"$T/e" &&
		fail "F8: a bind deny in this machine's ephemeral range ran: $(cat "$T/o")"
	[ ! -s "$T/o" ] || fail "F8: the workload ran"
	grep -q "f4.pol:3:3: polc run: landlock: error: here listen(2) on an unbound socket" "$T/e" &&
		grep -q "meets this machine's net.ipv4.ip_local_port_range 9000-9100" "$T/e" ||
		{ cat "$T/e"; fail "F8: run-time refusal does not say why"; }
fi

# ---- network: TCP ports, in a network namespace of the test's own ----
if $AS unshare -rn true 2>/dev/null; then
	cat >"$T/n.pol" <<'POL'
policy net {
  default deny network;
  allow network bind tcp port 8080;
  allow network connect tcp port 8080;
  allow network udp;
}
POL
	cat >"$T/net.py" <<'PY'
import socket, sys
def t(name, f):
    try:
        f(); print(name, "ok")
    except OSError as e:
        print(name, "errno", e.errno)
s = socket.socket(); t("bind 8080", lambda: s.bind(("127.0.0.1", 8080))); s.listen(4)
t("bind 9090", lambda: socket.socket().bind(("127.0.0.1", 9090)))
t("connect 8080", lambda: socket.socket().connect(("127.0.0.1", 8080)))
t("connect6 8080", lambda: socket.socket(socket.AF_INET6).connect(("::ffff:127.0.0.1", 8080)))
t("connect 9091", lambda: socket.socket().connect(("127.0.0.1", 9091)))
# MPTCP reaches TCP ports, and Landlock does not see it: refused when made
t("mptcp connect 9091", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262).connect(("127.0.0.1", 9091)))
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
params = ctypes.create_string_buffer(120)
t("io_uring_setup", lambda: libc.syscall(425, 1, params) >= 0 or (_ for _ in ()).throw(OSError(ctypes.get_errno(), "io_uring_setup")))
t("udp bind 9092", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).bind(("127.0.0.1", 9092)))
a = socket.socket(socket.AF_UNIX); a.bind("\0polc-ll-" + sys.argv[1]); a.listen(1)
sys.exit(5)
PY
	# the abstract socket's listener is outside the sandbox: scoping refuses it
	$AS unshare -rn sh -c '
		ip link set lo up
		python3 -c "import socket,time; a=socket.socket(socket.AF_UNIX); a.bind(\"\0polc-ll-out\"); a.listen(1); time.sleep(30)" &
		sleep 0.5
		"$1" run --target landlock --allow-partial "$2/n.pol" -- sh -c "
			python3 \"$2/net.py\" in; echo net=\$?
			python3 -c \"import socket; socket.socket(socket.AF_UNIX).connect(\\\"\\\\0polc-ll-out\\\")\" 2>/dev/null && echo abstract-out ok || echo abstract-out denied
			sleep 30 & p=\$!; kill \$p && echo signal-in ok || echo signal-in denied"
		kill $!' sh "$POLC" "$T" >"$T/nout" 2>"$T/nerr" || { cat "$T/nerr"; fail "network workload failed"; }
	cat "$T/nout"
	want="bind 8080 ok
bind 9090 errno 13
connect 8080 ok
connect6 8080 ok
connect 9091 errno 13
mptcp connect 9091 errno 93
io_uring_setup errno 1
udp bind 9092 ok
net=5
abstract-out denied
signal-in ok"
	[ "$(cat "$T/nout")" = "$want" ] || fail "network results differ"
else
	echo "note: no user namespaces here; network part not run"
fi

# ---- signals: a process outside the sandbox cannot be signalled ----
cat >"$T/s.pol" <<'POL'
policy sig { default deny signal; }
POL
$AS sh -c 'sleep 30 & p=$!; "$1" run --target landlock --allow-partial "$2/s.pol" -- sh -c "kill $p 2>/dev/null && echo out ok || echo out denied; exit 4"; rc=$?; kill $p; echo rc=$rc' sh "$POLC" "$T" >"$T/sout" 2>/dev/null
[ "$(cat "$T/sout")" = "out denied
rc=4" ] || { cat "$T/sout"; fail "signal scoping"; }

# ---- the artifact: deterministic, and what it grants ----
"$POLC" build --target landlock --allow-partial "$T/f.pol" -o "$T/a.json" 2>/dev/null
"$POLC" build --target landlock --allow-partial "$T/f.pol" -o "$T/b.json" 2>/dev/null
cmp -s "$T/a.json" "$T/b.json" || fail "two builds differ"
python3 - "$T/a.json" "$T" <<'PY' || fail "artifact content"
import json, sys
a = json.load(open(sys.argv[1])); t = sys.argv[2]
rules = {(r["path"], r["beneath"]): set(r["allowed_access"]) for r in a["path_beneath"]}
assert "read_file" in rules[(t + "/file", False)], rules
assert "make_reg" in rules[(t + "/data", True)], rules
assert (t + "/other", True) not in rules and (t + "/other", False) not in rules
assert "truncate" in a["handled_access_fs"] and a["abi_needed"] >= 3
PY
# a deny inside a granted hierarchy cannot be enforced: refused, said why
printf 'policy d {\n  default deny file;\n  allow file "/srv/**" read;\n  deny file "/srv/x" read;\n}\n' >"$T/d.pol"
"$POLC" build --target landlock --domains network "$T/d.pol" -o /dev/null 2>/dev/null ||
	fail "a policy whose file domain is left to others was refused"
"$POLC" build --target landlock --allow-partial "$T/d.pol" -o /dev/null 2>"$T/de" || true
grep -q "d.pol:4:3: warning: landlock enforces this statement not at all: inside what an allow grants" "$T/de" ||
	{ cat "$T/de"; fail "deny inside a grant not reported"; }
# ---- polc rules: a column of its own ----
"$POLC" rules | grep -q "^    landlock  none: Landlock matches TCP ports only, not addresses" ||
	fail "polc rules has no landlock column"

# ---- verify natively, as the non-root user: 0 mismatches, probes ran ----
cp "$SRC/profiles/memcached.pol" "$T/m.pol"; chmod 644 "$T/m.pol"
(cd "$T" && $AS "$POLC" verify --target landlock "$T/m.pol") >"$T/v" 2>&1 || { cat "$T/v"; fail "verify failed"; }
cat "$T/v"
grep -Eq "^policy memcached: [1-9][0-9]* probes, 0 mismatches" "$T/v" || fail "verify: no probes or mismatches"
echo "ok"
