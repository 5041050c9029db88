/* tripwire.h - after the enforcer is loaded, check that the kernel runs
 * every callback and subprogram reference that libbpf gave it.
 *
 * Why: Debian 6.1's verifier, by a precision-backtracking fault across
 * bpf_loop callbacks (fixed in 6.4), pruned states it should have explored
 * and then removed a live branch as dead code (558451b: file_open's walk
 * of "path/"), so the enforcer failed open without any error. A removed
 * branch that held a bpf_loop (an ld_imm64 of its callback) or a call of a
 * subprogram leaves fewer such references in the kernel's translated image
 * (xlated) than in the instructions libbpf loaded.
 *
 * Takes: the instructions libbpf loaded (bpf_program__insns) and the
 *        kernel's image of the same program (bpf_prog_info's
 *        xlated_prog_insns and func_info).
 * Gives: per target subprogram, its references in each; the references
 *        the image lacks. Subprograms are matched by order: the verifier
 *        keeps their order and removes one only with its every reference.
 * Cannot see: removed code holding no such reference (an inlined branch:
 *        a test of a value, a helper call, a store), a removed direct call
 *        of a subprogram that is also a bpf_loop callback inlined elsewhere
 *        (6.1's inlining adds a call of it), and code a CO-RE constant makes
 *        dead on the running kernel counts as removed (none such in the
 *        enforcer: its programs pass in the lab).
 */
#ifndef POLC_BPF_TRIPWIRE_H
#define POLC_BPF_TRIPWIRE_H

#include <stddef.h>
#include <stdint.h>

struct bpf_insn;
struct bpf_object;

/* How a call's target is encoded: libbpf's instructions keep it in imm;
 * the kernel's image after JIT in off (imm: the subprogram's index, 0 when
 * raw addresses are hidden). An ld_imm64's is in imm in both. */
enum bpft_form { BPFT_LOADED, BPFT_IMAGE };

typedef struct {
	uint32_t target;   /* the subprogram's first instruction */
	uint32_t funcs;    /* ld_imm64 src_reg BPF_PSEUDO_FUNC of it: a callback passed */
	uint32_t calls;    /* calls src_reg BPF_PSEUDO_CALL of it (6.1 inlines bpf_loop
			      into one, keeping the ld_imm64) */
} bpft_refs;

/* The references in insns[0..n) per target, sorted by target, in *out
 * (xmalloc'd, *nout of them; NULL and 0 when none): 0, or -1 when one
 * points outside the program or an ld_imm64 is cut off (not an image this
 * check can read). */
int bpft_count(const struct bpf_insn *insns, size_t n, enum bpft_form form, bpft_refs **out,
	       size_t *nout);

/* A target's references the image lacks: loaded[li] is image[xi] */
typedef struct {
	size_t li, xi;
	uint32_t funcs_lost, calls_lost;
} bpft_loss;

/* The losses of image (ni targets) against loaded (nl), at most cap in out;
 * returns how many there are. nl > ni: every reference to nl - ni
 * subprograms is gone, which cannot be matched by order: one loss with
 * li = xi = SIZE_MAX, funcs_lost the callback references fewer in all and
 * calls_lost 0 (inlined bpf_loops add calls: not counted). nl < ni (a
 * subprogram the loaded program does not reference) cannot be matched
 * either: returns SIZE_MAX. */
size_t bpft_compare(const bpft_refs *loaded, size_t nl, const bpft_refs *image, size_t ni,
		    bpft_loss *out, size_t cap);

/* Every loaded program of obj checked against its image: 0 (kept, or an
 * image that cannot be read, said on stderr once), or -1 with err naming
 * the program and the callback or subprogram whose references are gone. */
int bpft_check_object(struct bpf_object *obj, char *err, size_t errlen);

#endif
