/* layout.c - profile-guided layout of a seccomp filter (`polc build
 * --target seccomp --profile-from TRACE`): the syscalls a recorded mix runs
 * most are decided by a short prefix before libseccomp's program.
 *
 * The prefix is
 *     ld arch; jeq AUDIT_ARCH_X86_64 else -> P; ld nr;
 *     jeq hot0 -> ret_a; jeq hot1 -> ret_b; ...; ja P;
 *     ret_a; ret_b; ...
 *     P: libseccomp's program, unchanged (its jumps are relative)
 * A syscall may go into the prefix only when libseccomp's program decides
 * it without reading an argument or the instruction pointer (the
 * interpreter says so): its verdict is then one constant, the prefix
 * returns exactly that constant, and every other syscall still reaches the
 * unchanged program. The prefix reads only nr and arch and returns
 * constants, so the kernel's action cache sees through it. The result is
 * checked against the original for every x86_64 and x32 number before it
 * is returned. How many hot syscalls to take is chosen by the mean
 * instruction count over the mix: a prefix costs the cold syscalls its
 * length, so it stays short when the mix is flat.
 */
#include "seccomp.h"
#include "bpf_interp.h"

#include <linux/audit.h>
#include <stdlib.h>
#include <string.h>

/* jt/jf are 8 bits: the prefix stays well inside them. */
#define MAX_HOT 100

typedef struct {
	uint32_t nr;
	uint64_t count;
	uint32_t ret;          /* the constant verdict */
} hot;

static uint32_t audit_arch(ir_arch a)
{
	return a == IR_ARCH_I386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
}

static uint32_t run(const struct sock_filter *f, size_t len, uint32_t arch, uint32_t nr,
		    uint64_t argval, bpf_run_info *info)
{
	struct seccomp_data sd = { .nr = (int)nr, .arch = arch, .instruction_pointer = argval };
	for (int i = 0; i < 6; i++)
		sd.args[i] = argval;
	return bpf_interp(f, len, &sd, info);
}

/* Steps to decide the mix entry on f (arguments 0: a trace has no values). */
static unsigned steps_of(const struct sock_filter *f, size_t len, const sys_freq *e)
{
	bpf_run_info info;
	run(f, len, audit_arch(e->arch), e->nr, 0, &info);
	return info.steps;
}

double sc_mix_mean(const struct sock_filter *f, size_t len, const sys_freq *mix, size_t n)
{
	double sum = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		sum += (double)mix[i].count * steps_of(f, len, &mix[i]);
		w += (double)mix[i].count;
	}
	return w > 0 ? sum / w : 0;
}

static int by_count(const void *a, const void *b)
{
	const hot *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* The mix's x86_64/x32 syscalls whose verdict is a constant, most frequent
 * first. */
static size_t eligible(const struct sock_filter *f, size_t len, const sys_freq *mix,
		       size_t n, hot **out)
{
	hot *v = xcalloc(n ? n : 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (mix[i].arch == IR_ARCH_I386 || !mix[i].count)
			continue;
		bpf_run_info a, b;
		uint32_t r0 = run(f, len, AUDIT_ARCH_X86_64, mix[i].nr, 0, &a);
		uint32_t r1 = run(f, len, AUDIT_ARCH_X86_64, mix[i].nr, UINT64_MAX, &b);
		if (a.loaded_args || b.loaded_args || r0 != r1 || r0 == BPF_INTERP_BAD)
			continue;
		v[k++] = (hot){ mix[i].nr, mix[i].count, r0 };
	}
	xqsort(v, k, sizeof *v, by_count);
	*out = v;
	return k;
}

/* Distinct verdicts of hot[0..k), in first-use order; returns how many. */
static size_t verdicts(const hot *h, size_t k, uint32_t *rets)
{
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		size_t j = 0;
		while (j < m && rets[j] != h[i].ret)
			j++;
		if (j == m)
			rets[m++] = h[i].ret;
	}
	return m;
}

static size_t ret_index(const uint32_t *rets, size_t m, uint32_t r)
{
	size_t j = 0;
	while (j < m && rets[j] != r)
		j++;
	return j;
}

/* Mean steps over the mix with the first k hot syscalls in the prefix,
 * from the original program's per-syscall steps (the prefix's cost is
 * exact: see the layout at the top). */
static double model(const hot *h, size_t k, const sys_freq *mix, size_t n,
		    const unsigned *orig)
{
	double sum = 0, w = 0;
	for (size_t i = 0; i < n; i++) {
		double s;
		size_t j = 0;
		while (j < k && !(mix[i].arch != IR_ARCH_I386 && h[j].nr == mix[i].nr))
			j++;
		if (!k)
			s = orig[i];
		else if (mix[i].arch == IR_ARCH_I386)
			s = 2 + orig[i];
		else if (j < k)
			s = (double)j + 5;
		else
			s = (double)k + 4 + orig[i];
		sum += (double)mix[i].count * s;
		w += (double)mix[i].count;
	}
	return w > 0 ? sum / w : 0;
}

static struct sock_filter stmt(uint16_t code, uint32_t k)
{
	struct sock_filter s = { code, 0, 0, k };
	return s;
}

static struct sock_filter jump(uint16_t code, uint32_t k, size_t jt, size_t jf)
{
	struct sock_filter s = { code, (uint8_t)jt, (uint8_t)jf, k };
	return s;
}

static void emit(const struct sock_filter *f, size_t len, const hot *h, size_t k, buf *out)
{
	uint32_t rets[MAX_HOT];
	size_t m = verdicts(h, k, rets);
	size_t np = 4 + k + m;
	struct sock_filter *p = xcalloc(np, sizeof *p);
	p[0] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	p[1] = jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, k + m + 2);
	p[2] = stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < k; i++)
		p[3 + i] = jump(BPF_JMP | BPF_JEQ | BPF_K, h[i].nr, k - i + ret_index(rets, m, h[i].ret), 0);
	p[3 + k] = stmt(BPF_JMP | BPF_JA, (uint32_t)m);
	for (size_t j = 0; j < m; j++)
		p[4 + k + j] = stmt(BPF_RET | BPF_K, rets[j]);
	buf_put(out, p, np * sizeof *p);
	buf_put(out, f, len * sizeof *f);
	free(p);
}

/* Same verdict as the original for every x86_64 and x32 number (arguments
 * 0 and all ones) and for the i386 numbers. */
static bool same_decisions(const struct sock_filter *a, size_t na,
			   const struct sock_filter *b, size_t nb)
{
	static const uint32_t bases[] = { 0, 0x40000000u };
	for (int arch = 0; arch < 2; arch++)
		for (size_t base = 0; base < 2; base++)
			for (uint32_t i = 0; i < 1024; i++) {
				uint32_t aa = arch ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
				for (int v = 0; v < 2; v++) {
					uint64_t x = v ? UINT64_MAX : 0;
					if (run(a, na, aa, bases[base] | i, x, NULL) !=
					    run(b, nb, aa, bases[base] | i, x, NULL))
						return false;
				}
			}
	return true;
}

int sc_layout_profiled(const struct sock_filter *f, size_t len, const sys_freq *mix,
		       size_t n, buf *out, sc_layout_info *info)
{
	hot *h;
	size_t ne = eligible(f, len, mix, n, &h);
	unsigned *orig = xcalloc(n ? n : 1, sizeof *orig);
	for (size_t i = 0; i < n; i++)
		orig[i] = steps_of(f, len, &mix[i]);
	size_t kmax = 0, best = 0;
	double cost[MAX_HOT + 1];
	cost[0] = model(h, 0, mix, n, orig);
	for (size_t k = 1; k <= ne && k <= MAX_HOT && len + 4 + 2 * k <= BPF_MAXINSNS; k++) {
		cost[k] = model(h, k, mix, n, orig);
		kmax = k;
		if (cost[k] < cost[best])
			best = k;
	}
	/* Syscalls the mix never ran pay for every prefix entry: take the
	 * shortest prefix within 1% of the best mean (a rarely seen syscall
	 * is not worth making all the others slower). */
	for (size_t k = 0; k < best && k <= kmax; k++)
		if (cost[k] <= cost[best] * 1.01) {
			best = k;
			break;
		}
	free(orig);
	size_t start = out->len;
	if (best)
		emit(f, len, h, best, out);
	else
		buf_put(out, f, len * sizeof *f);
	free(h);
	const struct sock_filter *g = (const struct sock_filter *)(out->data + start);
	size_t glen = (out->len - start) / sizeof *g;
	if (!same_decisions(f, len, g, glen)) {
		out->len = start;    /* never hand out a filter that decides otherwise */
		return -1;
	}
	if (info) {
		info->hot = best;
		info->eligible = ne;
		info->len_before = len;
		info->len_after = glen;
		info->mean_before = sc_mix_mean(f, len, mix, n);
		info->mean_after = sc_mix_mean(g, glen, mix, n);
	}
	return 0;
}

int sc_build_bpf_profiled(const ir_policy *p, bool allow_partial, const sys_freq *mix,
			  size_t nmix, diag_ctx *d, buf *out, sc_layout_info *info)
{
	/* polc's generator lays the whole program out for the mix (hot chain
	 * and tree); figures against the same generator's typical layout. */
	sc_codegen_info *ci = xcalloc(1, sizeof *ci);
	buf plain;
	buf_init(&plain);
	int rc = sc_build_bpf_mix(p, allow_partial, NULL, 0, d, &plain, ci);
	if (!rc) {
		size_t len0 = ci->len;
		double mean0 = sc_mix_mean((const struct sock_filter *)plain.data, len0, mix, nmix);
		size_t start = out->len;
		rc = sc_build_bpf_mix(p, allow_partial, mix, nmix, d, out, ci);
		if (!rc && ci->mean > mean0) {
			/* the typical layout serves this mix better: keep it */
			out->len = start;
			buf_put(out, plain.data, plain.len);
			ci->len = len0;
			ci->mean = mean0;
			ci->hot = 0;
		}
		if (!rc && info) {
			info->hot = ci->hot;
			info->eligible = nmix;
			info->len_before = len0;
			info->len_after = ci->len;
			info->mean_before = mean0;
			info->mean_after = ci->mean;
		}
	}
	buf_free(&plain);
	free(ci);
	return rc;
}
