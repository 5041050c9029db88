#!/bin/sh
# t_gen_families.sh - polc gen's syscall families (issue 13) never widen a
# profile into another risk class, judged by a list polc did not write:
# every member of every family must be one that Docker's default seccomp
# profile allows unconditionally (no capability or arch condition; the
# profile ships in tests/fuzz/corpus/import), and none may be a mount,
# ptrace, bpf, keyctl, module, namespace, credential or clock-setting call.
# Then, on a recorded trace: a family member recorded adds its siblings,
# each said in a comment; --no-families keeps the list as recorded.
set -u
: "${POLC:?}" "${SRC:?}"
T=$(mktemp -d) || exit 3
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v jq >/dev/null || { echo "SKIP: jq is not installed (make deps)"; exit 0; }
docker=$SRC/tests/fuzz/corpus/import/docker-default-seccomp.json
"$POLC" gen --families >"$T/fam" || fail "polc gen --families: exit $?"
grep -v '^ ' "$T/fam" | sed 's/^[^ ]* *//; s/, /\n/g' | sort -u >"$T/members"
[ "$(wc -l <"$T/members")" -ge 40 ] || fail "too few family members: $(wc -l <"$T/members")"
jq -r '.syscalls[] | select(.action == "SCMP_ACT_ALLOW")
	| select((.includes // {}) == {} and (.excludes // {}) == {}) | .names[]' "$docker" |
	sort -u >"$T/docker"
bad=$(comm -23 "$T/members" "$T/docker" | tr '\n' ' ')
[ -z "$bad" ] || fail "family members Docker's default does not allow unconditionally: $bad"
for s in mount umount2 pivot_root move_mount open_tree fsopen fsmount fsconfig fspick \
	mount_setattr ptrace process_vm_readv process_vm_writev bpf keyctl add_key request_key \
	init_module finit_module delete_module unshare setns clone clone3 setuid setgid setresuid \
	setresgid setgroups capset settimeofday clock_settime adjtimex clock_adjtime chroot \
	perf_event_open userfaultfd kexec_load open_by_handle_at personality; do
	grep -qx "$s" "$T/members" && fail "family member $s widens into another risk class"
done
echo "ok   $(wc -l <"$T/members") family members, all in Docker's unconditional allow-list, none privileged"

# A trace with getdents64, clock_nanosleep, mmap and getpid recorded.
cat >"$T/t.trace" <<'TR'
polc-trace 1
meta runs 1
meta exit "status 0" 1
syscall x86_64 getdents64 3
syscall x86_64 clock_nanosleep 2
syscall x86_64 mmap 9
syscall x86_64 getpid 1
syscall x86_64 execve 1
TR
"$POLC" gen --name f "$T/t.trace" >"$T/f.pol" 2>"$T/err" || fail "gen: $(cat "$T/err")"
"$POLC" check "$T/f.pol" 2>"$T/err" || fail "the generated policy does not check: $(cat "$T/err")"
for want in "getdents, *# family getdents" "nanosleep, *# family wait" "epoll_wait, *# family wait" "clock_gettime, *# family clock" "mremap, *# family memory" \
	"getppid, *# family self" "gettid, *# family self" "getrusage, *# family self" "getdents64, *# 3"; do
	grep -q "^    $want" "$T/f.pol" || fail "no '$want' in: $(cat "$T/f.pol")"
done
grep -q '^  # family clock: .*adds.* gettimeofday' "$T/f.pol" || fail "the clock family is not explained"
# families never open an ABI the trace did not use
grep -q '^  arch' "$T/f.pol" && fail "a family added an ABI: $(grep '^  arch' "$T/f.pol")"
# never a family the trace gave no member of
for no in wait4 getuid read write rt_sigaction; do
	grep -q "^    $no[,;]" "$T/f.pol" && fail "$no added without a recorded family member"
done
"$POLC" gen --no-families --name f "$T/t.trace" >"$T/n.pol" || fail "gen --no-families"
[ "$(grep -c '^    [a-z0-9_]*[,;]' "$T/n.pol")" = 5 ] || fail "--no-families: $(cat "$T/n.pol")"
echo "ok   recorded members bring their families, said in comments; --no-families keeps 5"

# Every option polc gen accepts (its getopt table) is documented in
# `polc gen --help`, `polc help gen` and the man page.
opts=$(sed -n '/static const struct option lo\[\]/,/};/p' "$SRC/cli/cmd_gen.c" |
	sed -n 's/.*{ "\([a-z-]*\)".*/\1/p' | grep -vx -e help -e output)
[ "$(echo "$opts" | wc -w)" -ge 8 ] || fail "could not read polc gen's options: $opts"
"$POLC" gen --help >"$T/h1" && "$POLC" help gen >"$T/h2" || fail "gen help exits non-zero"
man=$(sed 's/\\-/-/g' "$SRC/docs/polc.1")
for o in $opts; do
	grep -q -- "--$o" "$T/h1" || fail "polc gen --help lacks --$o"
	grep -q -- "--$o" "$T/h2" || fail "polc help gen lacks --$o"
	echo "$man" | grep -q -- "--$o" || fail "docs/polc.1 lacks --$o"
done
echo "ok   every polc gen option ($(echo $opts)) in --help, help gen and polc(1)"
