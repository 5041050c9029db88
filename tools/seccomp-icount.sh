#!/bin/sh
# seccomp-icount.sh [REPS] - instruction counts (callgrind) of Docker's
# default seccomp JSON to a filter, per build, warm (the first build of each
# is not counted), side by side in one process as bench/cost.c's
# bench_docker_compile runs them: polc (import, front end, generator) and
# libseccomp optimize 1 and 2 from polc's IR, x86_64 only (its input given,
# not parsed). Run from a built tree (make). Prints the per-build figures
# and polc's phases. The numbers the seccomp-speed commits quote.
set -eu
REPS=${1:-5}
SRC=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cat >"$T/h.c" <<'C'
#include "bench/cost.c"
static bench_opts O = { .srcdir = SRCDIR };
static size_t lsc(const ir_policy *p, int opt)
{
	size_t refused = 0; buf out; buf_init(&out); diag_ctx d; diag_init(&d);
	scmp_filter_ctx ctx = direct(p, &refused, false);
	seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, (uint32_t)opt);
	sc_export(ctx, false, &out, &d);
	seccomp_release(ctx);
	size_t n = out.len / 8; buf_free(&out); diag_free(&d);
	return n;
}
static size_t polc_once(void)
{
	diag_ctx d; diag_init(&d); ir_program prog; bool c; buf out; buf_init(&out);
	const ir_policy *p = compile_one(&O, &policies[0], &prog, &d, &c);
	if (!p || sc_build_bpf(p, true, &d, &out)) { diag_print(&d, stderr, false); exit(1); }
	size_t n = out.len / 8;
	buf_free(&out); ir_program_free(&prog); diag_free(&d);
	return n;
}
__attribute__((noinline)) size_t polc_build(void) { return polc_once(); }
__attribute__((noinline)) size_t libseccomp_o1(const ir_policy *p) { return lsc(p, 1); }
__attribute__((noinline)) size_t libseccomp_o2(const ir_policy *p) { return lsc(p, 2); }
int main(int argc, char **argv)
{
	int reps = atoi(argv[1]);
	diag_ctx d; diag_init(&d); ir_program prog; bool c;
	const ir_policy *p = compile_one(&O, &policies[0], &prog, &d, &c);
	if (!p) return 1;
	size_t a, b, e;
	a = polc_once(); b = lsc(p, 1); e = lsc(p, 2);   /* warm-up, not counted */
	for (int i = 0; i < reps; i++) { a = polc_build(); b = libseccomp_o1(p); e = libseccomp_o2(p); }
	printf("filters: polc %zu instructions (x86_64, i386, x32), libseccomp O1 %zu, O2 %zu (x86_64)\n", a, b, e);
	return 0;
}
C
cd "$SRC"
cc -O2 -g -std=c11 -D_GNU_SOURCE -I. -Ibuild -Ibuild/gen -DSRCDIR="\"$SRC\"" -DPOLC_VERSION='"x"' \
   -o "$T/h" "$T/h.c" build/libpolc.a -lseccomp -lbpf -lelf -lz -lyaml -lapparmor -lcrypto -lm
# only the loop's calls are counted (the warm-up calls bypass these three)
valgrind --tool=callgrind --callgrind-out-file="$T/cg" --toggle-collect=polc_build \
  --toggle-collect=libseccomp_o1 --toggle-collect=libseccomp_o2 "$T/h" "$REPS" 2>/dev/null
callgrind_annotate --inclusive=yes "$T/cg" 2>/dev/null | awk -v R="$REPS" '
  /:(polc_build|libseccomp_o1|libseccomp_o2) / || /(import_oci_file|polc_compile_text|sc_plan_build_for|sc_codegen|sha256_hex_parts) \[/ {
    v = $1; gsub(",", "", v); n = $NF == "" ? $(NF-1) : $(NF-1); sub(/.*:/, "", n)
    if (!seen[n]++) printf "%8.2f M  %s\n", v / R / 1e6, n }'
