/* tripwire.c - see tripwire.h. */
#include "tripwire.h"
#include "../../base/util.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reference site at insns[i] (an ld_imm64 of a subprogram, or a call
 * of one): 1 with its target's distance from i + 1 in *rel, else 0. */
static int ref_site(const struct bpf_insn *in, enum bpft_form form, int64_t *rel, int *func)
{
	if (in->code == (BPF_LD | BPF_IMM | BPF_DW) && in->src_reg == BPF_PSEUDO_FUNC) {
		*rel = in->imm;
		*func = 1;
		return 1;
	}
	if (in->code == (BPF_JMP | BPF_CALL) && in->src_reg == BPF_PSEUDO_CALL) {
		*rel = form == BPFT_LOADED ? in->imm : in->off;
		*func = 0;
		return 1;
	}
	return 0;
}

static int by_target(const void *a, const void *b)
{
	uint32_t x = ((const bpft_refs *)a)->target, y = ((const bpft_refs *)b)->target;
	return (x > y) - (x < y);
}

int bpft_count(const struct bpf_insn *insns, size_t n, enum bpft_form form, bpft_refs **out,
	       size_t *nout)
{
	bpft_refs *r = NULL;
	size_t nr = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t rel;
		int func;
		int site = ref_site(&insns[i], form, &rel, &func);
		size_t at = i;
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW) && ++i >= n)
			goto bad;   /* its second half is missing */
		if (!site)
			continue;
		int64_t t = (int64_t)at + rel + 1;
		if (t <= 0 || t >= (int64_t)n)
			goto bad;   /* the program's own start is never a subprogram */
		size_t k = 0;
		while (k < nr && r[k].target != (uint32_t)t)
			k++;
		if (k == nr) {
			if (nr == cap) {
				cap = cap ? 2 * cap : 8;
				r = xrealloc(r, cap * sizeof *r);
			}
			r[nr++] = (bpft_refs){ .target = (uint32_t)t };
		}
		if (func)
			r[k].funcs++;
		else
			r[k].calls++;
	}
	if (nr)
		qsort(r, nr, sizeof *r, by_target);
	*out = r;
	*nout = nr;
	return 0;
bad:
	free(r);
	*out = NULL;
	*nout = 0;
	return -1;
}

static uint32_t lost(uint64_t had, uint64_t kept)
{
	return had > kept ? (uint32_t)(had - kept) : 0;
}

size_t bpft_compare(const bpft_refs *loaded, size_t nl, const bpft_refs *image, size_t ni,
		    bpft_loss *out, size_t cap)
{
	if (nl < ni)
		return SIZE_MAX;
	if (nl > ni) {
		uint64_t lf = 0, xf = 0;
		for (size_t i = 0; i < nl; i++)
			lf += loaded[i].funcs;
		for (size_t i = 0; i < ni; i++)
			xf += image[i].funcs;
		if (cap)
			out[0] = (bpft_loss){ .li = SIZE_MAX, .xi = SIZE_MAX, .funcs_lost = lost(lf, xf) };
		return 1;
	}
	size_t k = 0;
	for (size_t i = 0; i < nl; i++) {
		/* calls may only grow: 6.1 turns an inlined bpf_loop into a call of
		 * its callback and keeps the ld_imm64 */
		bpft_loss l = { .li = i, .xi = i, .funcs_lost = lost(loaded[i].funcs, image[i].funcs),
				.calls_lost = lost(loaded[i].calls, image[i].calls) };
		if (!l.funcs_lost && !l.calls_lost)
			continue;
		if (k < cap)
			out[k] = l;
		k++;
	}
	return k;
}

/* ------------------------------------------------- the kernel's image */

typedef struct {
	struct bpf_insn *insns;
	size_t n;
	struct bpf_func_info *fi;   /* each subprogram's start and BTF type */
	size_t nfi;
} prog_image;

static void image_free(prog_image *im)
{
	free(im->insns);
	free(im->fi);
	memset(im, 0, sizeof *im);
}

/* The translated image of the program fd: 0, or -1 with why set. */
static int read_image(int fd, prog_image *im, char *why, size_t wn)
{
	struct bpf_prog_info info;
	__u32 len = sizeof info;
	memset(im, 0, sizeof *im);
	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0) {
		snprintf(why, wn, "bpf_obj_get_info_by_fd: %s", strerror(errno));
		return -1;
	}
	__u32 xlen = info.xlated_prog_len, nfi = info.nr_func_info;
	if (!xlen) {
		snprintf(why, wn, "the kernel gives no translated image (needs CAP_BPF)");
		return -1;
	}
	im->insns = xmalloc(xlen);
	im->n = xlen / sizeof *im->insns;
	im->fi = xcalloc(nfi ? nfi : 1, sizeof *im->fi);
	im->nfi = nfi;
	memset(&info, 0, sizeof info);
	info.xlated_prog_len = xlen;
	info.xlated_prog_insns = (__u64)(uintptr_t)im->insns;
	info.nr_func_info = nfi;
	info.func_info_rec_size = sizeof *im->fi;
	info.func_info = (__u64)(uintptr_t)im->fi;
	len = sizeof info;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0) {
		snprintf(why, wn, "bpf_obj_get_info_by_fd: %s", strerror(errno));
		image_free(im);
		return -1;
	}
	if (!info.xlated_prog_insns) {
		/* a blinded program's image is hidden unless raw addresses may be shown */
		snprintf(why, wn, "a blinded program, bpf_jit_harden, under kptr_restrict");
		image_free(im);
		return -1;
	}
	if (info.xlated_prog_len != xlen || info.nr_func_info != nfi) {
		snprintf(why, wn, "its size changed between two reads");
		image_free(im);
		return -1;
	}
	return 0;
}

/* Whether every target in the image starts a subprogram (func_info): the
 * encoding this check reads is the kernel's. */
static int targets_are_subprogs(const prog_image *im, const bpft_refs *x, size_t nx)
{
	for (size_t i = 0; i < nx; i++) {
		size_t k = 0;
		while (k < im->nfi && im->fi[k].insn_off != x[i].target)
			k++;
		if (k == im->nfi)
			return 0;
	}
	return 1;
}

/* The name of the subprogram starting at image instruction target. */
static const char *subprog_name(const struct btf *btf, const prog_image *im, uint32_t target)
{
	for (size_t k = 0; btf && k < im->nfi; k++) {
		if (im->fi[k].insn_off != target)
			continue;
		const struct btf_type *t = btf__type_by_id(btf, im->fi[k].type_id);
		const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;
		return name && *name ? name : "?";
	}
	return "?";
}

/* What is gone from one program, in out: "PROG (...)". */
static void say_loss(char *out, size_t n, const char *prog, const struct btf *btf,
		     const prog_image *im, const bpft_refs *l, size_t nl, const bpft_refs *x,
		     size_t nx, const bpft_loss *loss)
{
	if (loss->xi == SIZE_MAX) {
		snprintf(out, n, "%s (%zu of the %zu callbacks and subprograms it references have no "
			 "reference left in the program the kernel runs)", prog, nl - nx, nl);
		return;
	}
	const bpft_refs *r = &l[loss->li], *k = &x[loss->xi];
	const char *name = subprog_name(btf, im, k->target);
	if (loss->funcs_lost)
		snprintf(out, n, "%s (%u bpf_loop callback references to %s loaded, %u in the program "
			 "the kernel runs)", prog, r->funcs, name, k->funcs);
	else
		snprintf(out, n, "%s (%u calls of %s loaded, %u in the program the kernel runs)", prog,
			 r->calls, name, k->calls);
}

/* One program: 0 kept, 1 image unreadable (why set), -1 code removed (what
 * set). */
static int check_program(const struct bpf_program *prog, const struct btf *btf, char *why,
			 size_t wn, char *what, size_t whatlen)
{
	prog_image im;
	if (read_image(bpf_program__fd(prog), &im, why, wn) < 0)
		return 1;
	bpft_refs *l = NULL, *x = NULL;
	size_t nl = 0, nx = 0;
	int r = 0;
	if (bpft_count(bpf_program__insns(prog), bpf_program__insn_cnt(prog), BPFT_LOADED, &l,
		       &nl) < 0 ||
	    bpft_count(im.insns, im.n, BPFT_IMAGE, &x, &nx) < 0 ||
	    !targets_are_subprogs(&im, x, nx)) {
		snprintf(why, wn, "its references are not where this polc reads them");
		r = 1;
		goto out;
	}
	if (getenv("POLC_DEBUG") && nl == nx)
		for (size_t i = 0; i < nl; i++)
			fprintf(stderr, "polc: tripwire: %s: %s: %u callback references and %u calls "
				"loaded, %u and %u in the kernel's image\n", bpf_program__name(prog),
				subprog_name(btf, &im, x[i].target), l[i].funcs, l[i].calls, x[i].funcs,
				x[i].calls);
	bpft_loss loss;
	size_t nloss = bpft_compare(l, nl, x, nx, &loss, 1);
	if (nloss == SIZE_MAX) {
		snprintf(why, wn, "it references %zu subprograms, %zu more than were loaded", nx,
			 nx - nl);
		r = 1;
	} else if (nloss) {
		say_loss(what, whatlen, bpf_program__name(prog), btf, &im, l, nl, x, nx, &loss);
		r = -1;
	}
out:
	free(l);
	free(x);
	image_free(&im);
	return r;
}

int bpft_check_object(struct bpf_object *obj, char *err, size_t errlen)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_program *prog;
	char first[320] = "", also[320] = "";
	size_t nlost = 0, alen = 0;
	int warned = 0;
	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__fd(prog) < 0)
			continue;   /* not loaded */
		char why[160], what[320];
		int r = check_program(prog, btf, why, sizeof why, what, sizeof what);
		if (r > 0 && !warned++)
			fprintf(stderr, "polc: warning: the kernel's image of %s cannot be read (%s): "
				"not checked that the verifier kept its every callback and subprogram "
				"reference (nor any other program's whose image cannot be read)\n",
				bpf_program__name(prog), why);
		if (r >= 0)
			continue;
		if (!nlost++)
			snprintf(first, sizeof first, "%s", what);
		else if (alen < sizeof also)
			alen += (size_t)snprintf(also + alen, sizeof also - alen, "%s%s",
						 alen ? ", " : "", bpf_program__name(prog));
	}
	if (!nlost)
		return 0;
	snprintf(err, errlen, "the kernel's verifier removed live code from %s%s%s: Debian 6.1's "
		 "verifier can prune a live branch after a bpf_loop callback and remove it as dead "
		 "code; nothing is attached", first, nlost > 1 ? "; also from " : "", also);
	return -1;
}
