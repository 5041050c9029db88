#!/bin/sh
# compile-icount.sh [SIZES] [BACKENDS] - what one backend costs on polc
# bench's generated policies (bench/compile_cost.c's gen_policy): per
# backend and size, the instructions (callgrind) of backend_check plus emit
# with --allow-partial, the front end not counted, as bench_compile_cost
# times them; then, natively, the same build's CPU time and minor page
# faults (the first build in a fresh process, as `polc build` runs it: its
# memory is all fresh). Run from a built tree (make). Defaults: sizes 1000
# 10000 100000, backends apparmor bpf landlock.
# Under valgrind OpenSSL's SHA-256 (the bundle's checksum, the source hash)
# runs without the CPU's SHA extensions: its instructions count several
# times what the native code executes.
set -eu
SIZES=${1:-1000 10000 100000}
BACKENDS=${2:-apparmor bpf landlock}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat >"$T/h.c" <<'C'
#include "bench/compile_cost.c"
#include <sys/resource.h>
#include <time.h>
__attribute__((noinline)) size_t backend_build(const backend *b, const ir_policy *p)
{
	diag_ctx d; diag_init(&d); buf out; buf_init(&out);
	backend_opts o = { .allow_partial = true, .polc_version = POLC_VERSION };
	backend_check(b, p, true, &d);
	int rc = b->emit(p, &o, &out, &d);
	size_t n = rc ? 0 : out.len;
	buf_free(&out); diag_free(&d);
	return n;
}
int main(int argc, char **argv)
{
	size_t n = strtoul(argv[1], NULL, 10);
	char *text = gen_policy(n);
	diag_ctx d; diag_init(&d); ir_program prog; compile_opts co = { 0 };
	if (polc_compile_text("gen.pol", text, &co, &d, &prog)) { diag_print(&d, stderr, false); return 1; }
	const backend *b = backend_find(argv[2]);
	if (!b) return 2;
	struct rusage u0, u1; struct timespec t0, t1;
	getrusage(RUSAGE_SELF, &u0); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	size_t len = backend_build(b, prog.policies[0]);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1); getrusage(RUSAGE_SELF, &u1);
	printf("%zu %.1f %ld\n", len, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6,
	       u1.ru_minflt - u0.ru_minflt);
	return 0;
}
C
cd "$SRC"
cc -O2 -g -std=c11 -D_GNU_SOURCE -I. -Ibuild -Ibuild/gen -DPOLC_VERSION='"x"' \
   -o "$T/h" "$T/h.c" build/libpolc.a -lseccomp -lbpf -lelf -lz -lyaml -lapparmor -lcrypto -lm
printf '%-9s %7s %14s %9s %8s %10s\n' backend size instructions bytes "cpu ms" "minflt"
for b in $BACKENDS; do
	for n in $SIZES; do
		valgrind --tool=callgrind --callgrind-out-file="$T/cg" --toggle-collect=backend_build \
		  "$T/h" "$n" "$b" >/dev/null 2>&1
		ir=$(awk '/^summary:/ { print $2 }' "$T/cg")
		set -- $("$T/h" "$n" "$b")
		printf '%-9s %7s %14s %9s %8s %10s\n' "$b" "$n" "$ir" "$1" "$2" "$3"
	done
done
