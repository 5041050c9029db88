#!/bin/sh
# The i386 (`int 0x80`) and x32 entry points cannot bypass an x86_64
# seccomp policy (issue 8). In the kernel lab (Debian's kernel: IA32
# emulation, and x32 once booted with syscall.x32=y), tests/progs/compat_abi
# tries getpid, getppid, uname and mkdir through all three ABIs:
#   1. unconfined (the control): every call runs, and each mkdir leaves its
#      directory, so a bypass below would be visible as a directory;
#   2. under `polc run --target seccomp` of a policy denying getppid, uname
#      and mkdir with EACCES (x86_64 only): native calls get EACCES (getpid
#      runs), every i386 and x32 call is killed (SIGSYS), the bad-arch
#      action, as libseccomp's default kills it under runc and crun
#      (docs/language.md "ABIs the policy does not name"; before: EPERM),
#      getpid included; no directory appears;
#   3. the same policy with `arch x86_64, i386;`: the i386 calls are decided
#      by the policy (EACCES, getpid runs), x32 is still killed, and no
#      directory appears;
#   4. `kill syscall mkdir` with `arch x86_64, i386`: the i386 mkdir dies of
#      SIGSYS; the x32 one is killed as an unnamed ABI.
SRC=${SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
POLC=${POLC:-$SRC/$BUILD/polc}
PROBE=${PROBE:-$SRC/$BUILD/tests/progs/compat_abi}
if [ "${1:-}" != --inside ]; then
	[ -x "$PROBE" ] || { echo "FAIL: $PROBE not built (make test-bins)"; exit 1; }
	export VM_APPEND="${VM_APPEND:-} syscall.x32=y"
	. "$SRC/tests/vm/lab.sh"
	in_lab --timeout 240 \
		--env POLC="$POLC" --env PROBE="$PROBE" -- sh "$SRC/tests/vm/t_compat_abi.sh" --inside
fi

# ---- inside the VM ----
set -u
T=/tmp/compat; mkdir -p $T
bad=0
# expect RUN-NAME OUTPUT-FILE "ABI CALL RESULT"...
expect() {
	name=$1 file=$2
	shift 2
	for line in "$@"; do
		if grep -qx "$line" "$file"; then
			echo "ok   $name: $line"
		else
			echo "FAIL $name: want '$line', got '$(grep "^${line% * *} " "$file")'"
			bad=1
		fi
	done
}
# no_dirs RUN-NAME DIR: mkdir never ran, through any ABI
no_dirs() {
	left=$(ls "$2")
	if [ -z "$left" ]; then
		echo "ok   $1: no directory was made"
	else
		echo "FAIL $1: mkdir ran: $left"
		bad=1
	fi
}
run() { # name policy-body
	mkdir -p $T/$1
	printf 'policy %s {\n%s\n}\n' "$1" "$2" >$T/$1.pol
	"$POLC" run --target seccomp $T/$1.pol -- "$PROBE" $T/$1 >$T/$1.out 2>$T/$1.err ||
		{ echo "FAIL $1: polc run exit $?: $(cat $T/$1.err)"; bad=1; }
	cat $T/$1.out
}
echo "kernel $(uname -r), cmdline: $(cat /proc/cmdline)"

# 1. control: the three ABIs work here, and mkdir leaves a trace
mkdir -p $T/control
"$PROBE" $T/control >$T/control.out 2>&1; cat $T/control.out
expect control $T/control.out "x86_64 getppid ok" "i386 getppid ok" "i386 uname ok" "i386 mkdir ok" \
	"x32 getppid ok" "x32 uname ok" "x32 mkdir ok"
[ -d $T/control/i386 ] && [ -d $T/control/x32 ] && [ -d $T/control/x86_64 ] &&
	echo "ok   control: each mkdir made its directory" ||
	{ echo "FAIL control: the bypass check is blind (directories: $(ls $T/control))"; bad=1; }

# 2. an x86_64 policy: i386 and x32 killed outright
deny='  deny errno EACCES syscall getppid, uname, mkdir;'
run x86only "$deny"
expect x86only $T/x86only.out "x86_64 getpid ok" "x86_64 getppid errno EACCES" "x86_64 uname errno EACCES" \
	"x86_64 mkdir errno EACCES" "i386 getpid signal SIGSYS" "i386 getppid signal SIGSYS" \
	"i386 uname signal SIGSYS" "i386 mkdir signal SIGSYS" "x32 getpid signal SIGSYS" \
	"x32 getppid signal SIGSYS" "x32 uname signal SIGSYS" "x32 mkdir signal SIGSYS"
no_dirs x86only $T/x86only

# 3. arch i386 named: the policy decides i386 calls; x32 still killed
run withi386 "  arch x86_64, i386;
$deny"
expect withi386 $T/withi386.out "x86_64 getppid errno EACCES" "i386 getpid ok" \
	"i386 getppid errno EACCES" "i386 uname errno EACCES" "i386 mkdir errno EACCES" \
	"x32 getpid signal SIGSYS" "x32 mkdir signal SIGSYS"
no_dirs withi386 $T/withi386

# 4. kill: the i386 call dies, it does not run
run kill386 "  arch x86_64, i386;
  kill syscall mkdir;"
expect kill386 $T/kill386.out "x86_64 mkdir signal SIGSYS" "i386 mkdir signal SIGSYS" \
	"i386 getppid ok" "x32 mkdir signal SIGSYS"
no_dirs kill386 $T/kill386

[ $bad = 0 ] && echo ALL-OK
exit $bad
