/* test_bpf_tripwire.c - backends/bpf/tripwire.c's counting and compare on
 * synthetic programs, each written once and laid out twice: as libbpf
 * loads it (a call's target in imm) and as 6.1's translated image shows it
 * (a call's target in off, imm the subprogram's index or 0; bpf_loop
 * inlined: the helper call replaced by a loop around a call of the
 * callback, the ld_imm64 of the callback kept). An image of the same
 * program passes; one without a bpf_loop site (558451b's fault: the walk
 * of "path/" removed as dead code), without a call, or without a whole
 * subprogram reports what is gone; malformed references are refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>

#include "backends/bpf/tripwire.h"

enum op { MOV, LDF, CALL, LOOP, EXIT, LABEL };
typedef struct {
	enum op op;
	int label;   /* LDF, CALL: the target; LABEL: its name */
} ins;

#define L_SUB 1
#define L_CB 2
#define L_CB2 3
#define BPF_FUNC_LOOP 181

/* Lay p out in form f into out (room for 64): an image inlines each LOOP
 * (four instructions and a call of the callback the last LDF named). */
static size_t lay(const ins *p, size_t n, enum bpft_form f, struct bpf_insn *out)
{
	int at[8] = { 0 }, pass, last_cb = 0;
	size_t k = 0;
	for (pass = 0; pass < 2; pass++) {
		k = 0;
		for (size_t i = 0; i < n; i++) {
			struct bpf_insn *o = &out[k];
			switch (p[i].op) {
			case LABEL:
				at[p[i].label] = (int)k;
				break;
			case MOV:
				out[k++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .imm = 7 };
				break;
			case EXIT:
				out[k++] = (struct bpf_insn){ .code = BPF_JMP | BPF_EXIT };
				break;
			case LDF:
				last_cb = p[i].label;
				*o = (struct bpf_insn){ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = 2,
							.src_reg = BPF_PSEUDO_FUNC,
							.imm = at[p[i].label] - (int)k - 1 };
				/* the second half: junk that must not be read as a call */
				o[1] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
							  .src_reg = BPF_PSEUDO_CALL, .imm = 1 };
				k += 2;
				break;
			case CALL:
				*o = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL };
				if (f == BPFT_LOADED)
					o->imm = at[p[i].label] - (int)k - 1;
				else
					o->off = (short)(at[p[i].label] - (int)k - 1);   /* imm 0: hidden */
				k++;
				break;
			case LOOP:
				if (f == BPFT_LOADED) {
					out[k++] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
								      .imm = BPF_FUNC_LOOP };
					break;
				}
				for (int j = 0; j < 4; j++)
					out[k++] = (struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X };
				out[k] = (struct bpf_insn){ .code = BPF_JMP | BPF_CALL,
							    .src_reg = BPF_PSEUDO_CALL, .imm = 3,
							    .off = (short)(at[last_cb] - (int)k - 1) };
				k++;
				break;
			}
		}
	}
	assert_true(k <= 64);
	return k;
}

/* main: two bpf_loops over cb (the walks of "path" and "path/"), a call of
 * sub, a bpf_loop over cb2; sub; cb; cb2. */
static const ins prog[] = {
	{ MOV, 0 }, { LDF, L_CB }, { MOV, 0 }, { LOOP, 0 },
	{ CALL, L_SUB },
	{ LDF, L_CB }, { LOOP, 0 },
	{ LDF, L_CB2 }, { LOOP, 0 }, { EXIT, 0 },
	{ LABEL, L_SUB }, { MOV, 0 }, { EXIT, 0 },
	{ LABEL, L_CB }, { MOV, 0 }, { EXIT, 0 },
	{ LABEL, L_CB2 }, { MOV, 0 }, { EXIT, 0 },
};
#define N(a) (sizeof(a) / sizeof *(a))

/* prog without its element `skip` (SIZE_MAX: none) and, with drop_sub,
 * without sub's body */
static size_t variant(size_t skip, int drop_sub, ins *out)
{
	size_t k = 0;
	for (size_t i = 0; i < N(prog); i++) {
		if (i == skip || (drop_sub && i >= 10 && i <= 12))
			continue;
		out[k++] = prog[i];
	}
	return k;
}

static void count(const ins *p, size_t n, enum bpft_form f, bpft_refs **r, size_t *nr)
{
	struct bpf_insn insns[64];
	size_t ni = lay(p, n, f, insns);
	assert_int_equal(bpft_count(insns, ni, f, r, nr), 0);
}

static void counts_each_target(void **state)
{
	(void)state;
	bpft_refs *r;
	size_t nr;
	count(prog, N(prog), BPFT_LOADED, &r, &nr);
	assert_int_equal(nr, 3);   /* sub, cb, cb2 in their order */
	assert_int_equal(r[0].funcs, 0);
	assert_int_equal(r[0].calls, 1);
	assert_int_equal(r[1].funcs, 2);
	assert_int_equal(r[1].calls, 0);
	assert_int_equal(r[2].funcs, 1);
	assert_int_equal(r[2].calls, 0);
	assert_true(r[0].target < r[1].target && r[1].target < r[2].target);
	free(r);
	count(prog, N(prog), BPFT_IMAGE, &r, &nr);   /* inlined: a call of each callback more */
	assert_int_equal(nr, 3);
	assert_int_equal(r[0].calls, 1);
	assert_int_equal(r[1].funcs, 2);
	assert_int_equal(r[1].calls, 2);
	assert_int_equal(r[2].funcs, 1);
	assert_int_equal(r[2].calls, 1);
	free(r);
}

static size_t losses(const ins *img, size_t ni, bpft_loss *out, size_t cap)
{
	bpft_refs *l, *x;
	size_t nl, nx;
	count(prog, N(prog), BPFT_LOADED, &l, &nl);
	count(img, ni, BPFT_IMAGE, &x, &nx);
	size_t k = bpft_compare(l, nl, x, nx, out, cap);
	free(l);
	free(x);
	return k;
}

static void same_program_passes(void **state)
{
	(void)state;
	bpft_loss out[4];
	assert_int_equal(losses(prog, N(prog), out, 4), 0);
}

/* 558451b: the second walk (ld_imm64 of cb and its inlined loop) removed */
static void removed_loop_is_found(void **state)
{
	(void)state;
	ins v[N(prog)];
	size_t n = variant(5, 0, v);   /* the second LDF of cb */
	for (size_t i = 0; i < n; i++)
		if (i == 5)
			v[i].op = MOV;   /* and its loop: left as plain code */
	bpft_loss out[4];
	assert_int_equal(losses(v, n, out, 4), 1);
	assert_int_equal(out[0].li, 1);   /* cb */
	assert_int_equal(out[0].xi, 1);
	assert_int_equal(out[0].funcs_lost, 1);
	assert_int_equal(out[0].calls_lost, 0);
}

/* the loaded program calls sub twice, the image once */
static void removed_call_is_found(void **state)
{
	(void)state;
	ins w[N(prog) + 1];
	size_t m = 0;
	for (size_t i = 0; i < N(prog); i++) {
		w[m++] = prog[i];
		if (i == 4)
			w[m++] = (ins){ CALL, L_SUB };
	}
	bpft_refs *l, *x;
	size_t nl, nx;
	count(w, m, BPFT_LOADED, &l, &nl);
	count(prog, N(prog), BPFT_IMAGE, &x, &nx);
	bpft_loss out[4];
	assert_int_equal(bpft_compare(l, nl, x, nx, out, 4), 1);
	assert_int_equal(out[0].li, 0);   /* sub */
	assert_int_equal(out[0].calls_lost, 1);
	assert_int_equal(out[0].funcs_lost, 0);
	free(l);
	free(x);
}

static void removed_subprogram_is_found(void **state)
{
	(void)state;
	ins v[N(prog)];
	size_t n = variant(4, 1, v);   /* sub's only call and its body */
	bpft_loss out[4];
	assert_int_equal(losses(v, n, out, 4), 1);
	assert_int_equal(out[0].xi, SIZE_MAX);
	assert_int_equal(out[0].li, SIZE_MAX);
	assert_int_equal(out[0].funcs_lost, 0);   /* sub was no callback */
	/* ...and a callback gone with its every reference (cb2) */
	n = variant(7, 0, v);   /* cb2's ld_imm64 */
	v[7].op = MOV;          /* its loop */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!(i >= 15 && i <= 17))   /* cb2's body (one element earlier now) */
			v[m++] = v[i];
	assert_int_equal(losses(v, m, out, 4), 1);
	assert_int_equal(out[0].xi, SIZE_MAX);
	assert_int_equal(out[0].funcs_lost, 1);
	/* an image with more subprograms than the loaded program cannot be matched */
	bpft_refs *l, *x;
	size_t nl, nx;
	count(v, n, BPFT_LOADED, &l, &nl);
	count(prog, N(prog), BPFT_IMAGE, &x, &nx);
	assert_int_equal(bpft_compare(l, nl, x, nx, out, 4), SIZE_MAX);
	free(l);
	free(x);
}

static void malformed_is_refused(void **state)
{
	(void)state;
	struct bpf_insn insns[64];
	size_t n = lay(prog, N(prog), BPFT_LOADED, insns);
	bpft_refs *r = (bpft_refs *)1;
	size_t nr = 1;
	struct bpf_insn bad[64];
	memcpy(bad, insns, sizeof bad);
	size_t c = 0;   /* the call of sub (main's only direct call) */
	while (c < n && !(insns[c].code == (BPF_JMP | BPF_CALL) &&
			  insns[c].src_reg == BPF_PSEUDO_CALL && insns[c - 1].code != (BPF_LD | BPF_IMM | BPF_DW)))
		c++;
	assert_true(c < n);
	bad[c].imm = 1000;   /* past the end */
	assert_int_equal(bpft_count(bad, n, BPFT_LOADED, &r, &nr), -1);
	assert_null(r);
	assert_int_equal(nr, 0);
	memcpy(bad, insns, sizeof bad);
	bad[c].imm = -(int)c - 1;   /* the program's own start */
	assert_int_equal(bpft_count(bad, n, BPFT_LOADED, &r, &nr), -1);
	/* an ld_imm64 cut off at the end */
	assert_int_equal(bpft_count(insns, 2, BPFT_LOADED, &r, &nr), -1);
	/* none at all: no targets */
	assert_int_equal(bpft_count(insns, 1, BPFT_LOADED, &r, &nr), 0);
	assert_int_equal(nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_each_target),
		cmocka_unit_test(same_program_passes),
		cmocka_unit_test(removed_loop_is_found),
		cmocka_unit_test(removed_call_is_found),
		cmocka_unit_test(removed_subprogram_is_found),
		cmocka_unit_test(malformed_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
