/* codegen.c - the seccomp plan -> a classic BPF program (struct sock_filter),
 * written here rather than by libseccomp.
 *
 * Layout:
 *     ld arch; jeq X86_64 -> X; jeq I386 -> I; ret badarch
 *     X: ld nr; jeq hot0 -> leaf; ...; decision tree over nr ranges
 *     I: ld nr; ...
 *     the trees' return instructions (one per distinct verdict)
 *     one block per syscall whose verdict depends on its arguments, each
 *     ending in its own shared return instructions
 * The syscall numbers of one ABI block (x86_64 and x32 share an audit arch:
 * x32's numbers carry 0x40000000) are cut into maximal ranges of one leaf
 * (a constant verdict or an argument block): unknown numbers are ranges of
 * the plan's default (ENOSYS under a deny default), so no syscall costs a
 * rule of its own. A balanced binary search (jge) finds the range; before
 * it, a short chain of jeq decides the mix's hottest syscalls, as many as
 * lower the mix's mean. Paths that decide a syscall without conditions read
 * only arch and nr: the kernel's action cache (kernel/seccomp.c,
 * seccomp_cache_prepare) emulates them and skips the filter.
 *
 * An argument block tests the plan's regions (disjoint, each a DNF of
 * comparisons) one conjunction after another; when the regions cover every
 * value (sc_sysplan.complete), the costliest region is not tested at all:
 * it is what is left. 64-bit comparisons test the upper word first, then
 * the lower; i386 has no upper word (the kernel zero-extends, libseccomp
 * compares the lower word only), so its upper-word tests are decided here.
 * Jumps are symbolic until the end; a conditional jump farther than 255
 * goes through a ja trampoline placed right after it.
 */
#include "seccomp.h"
#include "bpf_interp.h"

#include <linux/audit.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEXT_MAX 255

/* Most hot syscalls in a jeq chain. */
#define MAX_HOT 12

typedef struct {
	uint16_t code;
	uint32_t k;
	int jt, jf;            /* labels (conditional), jt alone for ja */
} cg_insn;

typedef struct { uint32_t ret; int label; } cg_ret;

typedef struct {
	cg_insn *v;
	size_t n, cap;
	size_t *lab;           /* label -> insn index it stands before */
	size_t nlab, labcap;
	cg_ret *pool;          /* return instructions not yet placed */
	size_t npool, poolcap;
} cg;

static int label_new(cg *g)
{
	xgrow(&g->lab, &g->labcap, g->nlab + 1, sizeof *g->lab);
	g->lab[g->nlab] = SIZE_MAX;
	return (int)g->nlab++;
}

static void label_bind(cg *g, int l)
{
	g->lab[l] = g->n;
}

static size_t put(cg *g, uint16_t code, uint32_t k, int jt, int jf)
{
	xgrow(&g->v, &g->cap, g->n + 1, sizeof *g->v);
	g->v[g->n] = (cg_insn){ code, k, jt, jf };
	return g->n++;
}

static void ld(cg *g, uint32_t off)
{
	put(g, BPF_LD | BPF_W | BPF_ABS, off, -1, -1);
}

static void ja(cg *g, int l)
{
	put(g, BPF_JMP | BPF_JA, 0, l, -1);
}

static void jmp(cg *g, uint16_t op, uint32_t k, int t, int f)
{
	put(g, BPF_JMP | op | BPF_K, k, t, f);
}

/* The label of a return of ret, placed by the next pool_flush(). */
static int ret_label(cg *g, uint32_t ret)
{
	for (size_t i = 0; i < g->npool; i++)
		if (g->pool[i].ret == ret)
			return g->pool[i].label;
	xgrow(&g->pool, &g->poolcap, g->npool + 1, sizeof *g->pool);
	g->pool[g->npool] = (cg_ret){ ret, label_new(g) };
	return g->pool[g->npool++].label;
}

static void pool_flush(cg *g)
{
	for (size_t i = 0; i < g->npool; i++) {
		label_bind(g, g->pool[i].label);
		put(g, BPF_RET | BPF_K, g->pool[i].ret, -1, -1);
	}
	g->npool = 0;
}

static void cg_free(cg *g)
{
	free(g->v);
	free(g->lab);
	free(g->pool);
	memset(g, 0, sizeof *g);
}

/* ---- segments: code emitted once, replayed by later tries ---- */

/* A stretch of code that is the same in every hot chain length tried (a
 * search tree, the argument blocks): its instructions, the labels it made
 * ([l0, l0 + nl)) and where it bound labels, its own and older ones.
 * Every try numbers its labels alike (nr_block reserves the longest hot
 * chain's), so a replay makes the same labels and copies the code. */
typedef struct {
	cg_insn *v;
	size_t n;
	int l0, nl;
	struct { int l; size_t at; } *bind;
	size_t nbind;
} cg_seg;

/* Record what g emitted since instruction i0 and label l0. */
static void seg_record(const cg *g, cg_seg *s, size_t i0, int l0)
{
	s->n = g->n - i0;
	s->v = xcalloc(s->n + 1, sizeof *s->v);
	memcpy(s->v, g->v + i0, s->n * sizeof *s->v);
	s->l0 = l0;
	s->nl = (int)g->nlab - l0;
	s->bind = xcalloc(g->nlab + 1, sizeof *s->bind);
	s->nbind = 0;
	for (size_t l = 0; l < g->nlab; l++)
		if (g->lab[l] != SIZE_MAX && g->lab[l] >= i0 && g->lab[l] < g->n) {
			s->bind[s->nbind].l = (int)l;
			s->bind[s->nbind++].at = g->lab[l] - i0;
		}
}

/* Emit a recorded segment again; returns where it starts. */
static size_t seg_replay(cg *g, const cg_seg *s)
{
	if ((int)g->nlab != s->l0)
		abort();   /* the labels would differ from the recorded ones */
	xgrow(&g->lab, &g->labcap, g->nlab + (size_t)s->nl + 1, sizeof *g->lab);
	for (int i = 0; i < s->nl; i++)
		g->lab[g->nlab++] = SIZE_MAX;
	size_t base = g->n;
	xgrow(&g->v, &g->cap, g->n + s->n + 1, sizeof *g->v);
	memcpy(g->v + g->n, s->v, s->n * sizeof *s->v);
	g->n += s->n;
	for (size_t i = 0; i < s->nbind; i++)
		g->lab[s->bind[i].l] = base + s->bind[i].at;
	return base;
}

static void seg_free(cg_seg *s)
{
	free(s->v);
	free(s->bind);
	memset(s, 0, sizeof *s);
}

/* ---- symbolic -> real jumps, with trampolines ---- */

static bool is_cond(const cg_insn *i)
{
	return BPF_CLASS(i->code) == BPF_JMP && BPF_OP(i->code) != BPF_JA;
}

/* resolve()'s arrays, kept for the next try: far[i] (bit 0 jt, bit 1 jf
 * goes through a ja) and pos[i] (where symbolic instruction i lands,
 * pos[n] the program's length). */
typedef struct {
	uint8_t *far;
	size_t *pos;
	size_t farcap, poscap;
} cg_layout;

/* The final program (caller frees), its length in *len; laid out in lay. */
static struct sock_filter *resolve(const cg *g, cg_layout *lay, size_t *len)
{
	static const uint8_t jas[4] = { 0, 1, 1, 2 };   /* far[i] -> trampolines */
	size_t n = g->n;
	xgrow(&lay->far, &lay->farcap, n + 1, 1);
	xgrow(&lay->pos, &lay->poscap, n + 1, sizeof *lay->pos);
	uint8_t *far = lay->far;
	size_t *pos = lay->pos;
	const size_t *lab = g->lab;
	memset(far, 0, n + 1);
	for (bool again = true; again;) {
		again = false;
		size_t p = 0;
		for (size_t i = 0; i < n; i++) {
			pos[i] = p;
			p += 1 + jas[far[i]];
		}
		pos[n] = p;
		for (size_t i = 0; i < n; i++) {
			const cg_insn *x = &g->v[i];
			if (!is_cond(x))
				continue;
			size_t base = pos[i] + 1;
			if (lab[x->jt] == SIZE_MAX || lab[x->jf] == SIZE_MAX)
				abort();   /* a jump to a label never placed */
			if (!(far[i] & 1) && pos[lab[x->jt]] - base > NEXT_MAX)
				far[i] |= 1, again = true;
			if (!(far[i] & 2) && pos[lab[x->jf]] - base > NEXT_MAX)
				far[i] |= 2, again = true;
		}
	}
	struct sock_filter *prog = xmalloc((pos[n] + 1) * sizeof *prog), *o = prog;
	for (size_t i = 0; i < n; i++) {
		const cg_insn *x = &g->v[i];
		size_t base = pos[i] + 1;
		o->code = x->code;
		o->jt = o->jf = 0;
		o->k = x->k;
		if (BPF_CLASS(x->code) == BPF_JMP && BPF_OP(x->code) == BPF_JA) {
			o++->k = (uint32_t)(pos[lab[x->jt]] - base);
			continue;
		}
		if (!is_cond(x)) {
			o++;
			continue;
		}
		size_t t = pos[lab[x->jt]], e = pos[lab[x->jf]];
		uint8_t fi = far[i];
		o->jt = (fi & 1) ? 0 : (uint8_t)(t - base);
		o->jf = (fi & 2) ? (uint8_t)(fi & 1) : (uint8_t)(e - base);
		o++;
		size_t at = base;
		if (fi & 1) {
			*o++ = (struct sock_filter){ BPF_JMP | BPF_JA, 0, 0, (uint32_t)(t - (at + 1)) };
			at++;
		}
		if (fi & 2)
			*o++ = (struct sock_filter){ BPF_JMP | BPF_JA, 0, 0, (uint32_t)(e - (at + 1)) };
	}
	*len = (size_t)(o - prog);
	return prog;
}

/* ---- argument comparisons ---- */

#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args[i]))
#define ARG_HI(i) (ARG_LO(i) + 4)

typedef struct {
	cg *g;
	bool hz;               /* upper words are zero (i386) */
	int a;                 /* word in A: offset, or -1 unknown */
	int fail;              /* the conjunction's failure label */
	int fail_a;            /* word in A there (-2: no jump yet) */
	int pass;              /* the current comparison's success label */
	int pass_a;
} argctx;

/* Labels are reached only by jumps (every conditional jump names both
 * targets), so the word in A at a label is known when every jump to it
 * comes with the same one. */
static void note(argctx *c, int l)
{
	if (l == c->fail)
		c->fail_a = c->fail_a == -2 || c->fail_a == c->a ? c->a : -1;
	if (l == c->pass)
		c->pass_a = c->pass_a == -2 || c->pass_a == c->a ? c->a : -1;
}

static void cjmp(argctx *c, uint16_t op, uint32_t k, int t, int f)
{
	note(c, t);
	note(c, f);
	jmp(c->g, op, k, t, f);
}

static void cja(argctx *c, int l)
{
	note(c, l);
	ja(c->g, l);
}

static void load(argctx *c, uint32_t off)
{
	if (c->a != (int)off)
		ld(c->g, off);
	c->a = (int)off;
}

/* (word & mask) == val ? t : f */
static void test_word(argctx *c, uint32_t off, uint32_t mask, uint32_t val, int t, int f)
{
	load(c, off);
	if (mask != 0xffffffffu) {
		put(c->g, BPF_ALU | BPF_AND | BPF_K, mask, -1, -1);
		c->a = -1;
	}
	cjmp(c, BPF_JEQ, val, t, f);
}

/* x op v ? t : f, op JGT or JGE, on the 64-bit argument arg. */
static void order(argctx *c, unsigned arg, uint16_t op, uint64_t v, int t, int f)
{
	uint32_t vh = (uint32_t)(v >> 32), vl = (uint32_t)v;
	if (c->hz) {
		if (vh) {
			cja(c, f);
			return;
		}
	} else {
		int lo = label_new(c->g);
		load(c, ARG_HI(arg));
		if (vh != 0xffffffffu)
			cjmp(c, BPF_JGT, vh, t, lo);
		label_bind(c->g, lo);
		int lo2 = label_new(c->g);
		cjmp(c, BPF_JEQ, vh, lo2, f);
		label_bind(c->g, lo2);
	}
	load(c, ARG_LO(arg));
	cjmp(c, op, vl, t, f);
}

/* (x & m) == v ? t : f */
static void masked(argctx *c, unsigned arg, uint64_t m, uint64_t v, int t, int f)
{
	uint32_t mh = (uint32_t)(m >> 32), ml = (uint32_t)m;
	uint32_t vh = (uint32_t)(v >> 32), vl = (uint32_t)v;
	if ((v & ~m) || (c->hz && vh)) {
		cja(c, f);
		return;
	}
	if (mh && !c->hz) {
		int next = ml ? label_new(c->g) : t;
		test_word(c, ARG_HI(arg), mh, vh, next, f);
		if (!ml)
			return;
		label_bind(c->g, next);
	}
	if (ml)
		test_word(c, ARG_LO(arg), ml, vl, t, f);
	else
		cja(c, t);
}

static void ne(argctx *c, unsigned arg, uint64_t v, int t, int f)
{
	uint32_t vh = (uint32_t)(v >> 32), vl = (uint32_t)v;
	if (c->hz && vh) {
		cja(c, t);
		return;
	}
	if (!c->hz) {
		int lo = label_new(c->g);
		load(c, ARG_HI(arg));
		cjmp(c, BPF_JEQ, vh, lo, t);
		label_bind(c->g, lo);
	}
	load(c, ARG_LO(arg));
	cjmp(c, BPF_JEQ, vl, f, t);
}

static void atom(argctx *c, const struct scmp_arg_cmp *x, int t, int f)
{
	uint64_t v = x->datum_a;
	switch (x->op) {
	case SCMP_CMP_EQ: masked(c, x->arg, UINT64_MAX, v, t, f); break;
	case SCMP_CMP_NE: ne(c, x->arg, v, t, f); break;
	case SCMP_CMP_GT: order(c, x->arg, BPF_JGT, v, t, f); break;
	case SCMP_CMP_GE: order(c, x->arg, BPF_JGE, v, t, f); break;
	case SCMP_CMP_LE: order(c, x->arg, BPF_JGT, v, f, t); break;
	case SCMP_CMP_LT: order(c, x->arg, BPF_JGE, v, f, t); break;
	case SCMP_CMP_MASKED_EQ: masked(c, x->arg, x->datum_a, x->datum_b, t, f); break;
	default: cja(c, f); break;
	}
}

/* Can the conjunction never hold (a masked test whose value has bits
 * outside its mask, or an upper word i386 does not have)? */
static bool conj_dead(const sc_conj *k, bool hz)
{
	for (size_t i = 0; i < k->n; i++) {
		const struct scmp_arg_cmp *x = &k->v[i];
		uint64_t m = x->op == SCMP_CMP_MASKED_EQ ? x->datum_a : UINT64_MAX;
		uint64_t v = x->op == SCMP_CMP_MASKED_EQ ? x->datum_b : x->datum_a;
		if ((x->op == SCMP_CMP_MASKED_EQ || x->op == SCMP_CMP_EQ) &&
		    ((v & ~m) || (hz && (v >> 32))))
			return true;
	}
	return false;
}

static int by_arg(const void *a, const void *b)
{
	const struct scmp_arg_cmp *x = a, *y = b;
	return (int)x->arg - (int)y->arg;
}

/* ok if the conjunction holds, else falls through; *a: the word in A on
 * entry and on the way out (-1 unknown). */
static void test_conj(cg *g, const sc_conj *k, bool hz, int ok, int *a)
{
	struct scmp_arg_cmp *v = xcalloc(k->n ? k->n : 1, sizeof *v);
	memcpy(v, k->v, k->n * sizeof *v);
	xqsort(v, k->n, sizeof *v, by_arg);
	int fail = label_new(g);
	argctx c = { g, hz, *a, fail, -2, -1, -2 };
	for (size_t i = 0; i < k->n; i++) {
		int t = i + 1 == k->n ? ok : label_new(g);
		c.pass = t;
		c.pass_a = -2;
		atom(&c, &v[i], t, fail);
		if (i + 1 < k->n) {
			label_bind(g, t);
			c.a = c.pass_a == -2 ? -1 : c.pass_a;
		}
	}
	if (!k->n)
		ja(g, ok);
	label_bind(g, fail);
	*a = c.fail_a == -2 ? -1 : c.fail_a;
	free(v);
}

/* Rough instruction count of a region (to choose the one left untested). */
static size_t region_cost(const sc_region *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->dnf.n; i++)
		n += 1 + 3 * r->dnf.v[i].n;
	return n;
}

static bool region_true(const sc_region *r)
{
	for (size_t i = 0; i < r->dnf.n; i++)
		if (r->dnf.v[i].n == 0)
			return true;
	return false;
}

/* The argument block of s at label l. */
static void arg_block(cg *g, const sc_sysplan *s, uint32_t def, bool hz, int l)
{
	label_bind(g, l);
	int a = -1;
	size_t rest = SIZE_MAX;
	if (s->complete) {
		rest = 0;
		for (size_t i = 1; i < s->n; i++)
			if (region_cost(&s->v[i]) > region_cost(&s->v[rest]))
				rest = i;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (i == rest)
			continue;
		uint32_t ret = sc_action(s->v[i].act);
		int ok = ret_label(g, ret);
		for (size_t j = 0; j < s->v[i].dnf.n; j++)
			if (!conj_dead(&s->v[i].dnf.v[j], hz))
				test_conj(g, &s->v[i].dnf.v[j], hz, ok, &a);
	}
	put(g, BPF_RET | BPF_K, rest == SIZE_MAX ? def : sc_action(s->v[rest].act), -1, -1);
	pool_flush(g);
}

/* ---- first-match lists (the plan's ordered form) ---- */

static bool act_same(ir_action a, ir_action b)
{
	return sc_action(a) == sc_action(b);
}

/* The more restrictive; the syscall domain's (a) on a tie. */
static ir_action stricter(ir_action a, ir_action b)
{
	return b.verdict > a.verdict ? b : a;
}

static bool rule_true(const sc_rule *r)
{
	for (size_t i = 0; i < r->nalt; i++)
		if (r->alt[i].n == 0)
			return true;
	return false;
}

static int cond_by_arg(const void *a, const void *b)
{
	const ir_arg_cond *x = a, *y = b;
	return x->arg - y->arg;
}

/* Can the alternative never hold? (a masked test with value bits outside
 * its mask; an equality beyond 32 bits on a lower-half argument) */
static bool alt_dead(const sc_alt *k, uint8_t low)
{
	for (size_t i = 0; i < k->n; i++) {
		const ir_arg_cond *x = &k->c[i];
		bool hz = (low >> x->arg) & 1;
		if (x->op == IR_CMP_MASKED_EQ && (x->value & ~x->mask))
			return true;
		if ((x->op == IR_CMP_MASKED_EQ || x->op == IR_CMP_EQ) && hz && (x->value >> 32))
			return true;
	}
	return false;
}

/* ok if every condition of the alternative holds, else falls through; *a:
 * the word in A on entry and on the way out (-1 unknown). */
static void test_alt(cg *g, const sc_alt *k, uint8_t low, int ok, int *a)
{
	ir_arg_cond *v = xcalloc(k->n ? k->n : 1, sizeof *v);
	memcpy(v, k->c, k->n * sizeof *v);
	xqsort(v, k->n, sizeof *v, cond_by_arg);
	int fail = label_new(g);
	argctx c = { g, false, *a, fail, -2, -1, -2 };
	for (size_t i = 0; i < k->n; i++) {
		int t = i + 1 == k->n ? ok : label_new(g);
		c.pass = t;
		c.pass_a = -2;
		static const enum scmp_compare op[] = {
			[IR_CMP_EQ] = SCMP_CMP_EQ, [IR_CMP_NE] = SCMP_CMP_NE,
			[IR_CMP_LT] = SCMP_CMP_LT, [IR_CMP_LE] = SCMP_CMP_LE,
			[IR_CMP_GT] = SCMP_CMP_GT, [IR_CMP_GE] = SCMP_CMP_GE,
			[IR_CMP_MASKED_EQ] = SCMP_CMP_MASKED_EQ,
		};
		struct scmp_arg_cmp x = { (unsigned)v[i].arg, op[v[i].op],
			v[i].op == IR_CMP_MASKED_EQ ? v[i].mask : v[i].value,
			v[i].op == IR_CMP_MASKED_EQ ? v[i].value : 0 };
		c.hz = (low >> v[i].arg) & 1;
		atom(&c, &x, t, fail);
		if (i + 1 < k->n) {
			label_bind(g, t);
			c.a = c.pass_a == -2 ? -1 : c.pass_a;
		}
	}
	if (!k->n)
		ja(g, ok);
	label_bind(g, fail);
	*a = c.fail_a == -2 ? -1 : c.fail_a;
	free(v);
}

/* Is the list's decision one action whatever the arguments? */
static bool rules_const(const sc_rules *r, ir_action *a)
{
	if (!r->n) {
		*a = r->def;
		return true;
	}
	if (rule_true(&r->v[0])) {
		*a = r->v[0].act;
		return true;
	}
	return false;
}

static bool uncond(const sc_sysplan *s);

static bool ordered_const(const sc_sysplan *s, uint32_t *ret)
{
	ir_action x, y;
	if (!rules_const(&s->sys, &x))
		return false;
	if (s->dom.present) {
		if (!rules_const(&s->dom, &y))
			return false;
		x = stricter(x, y);
	}
	*ret = sc_action(x);
	return true;
}

bool sc_sysplan_const(const sc_sysplan *s)
{
	uint32_t ret;
	return s->ordered ? ordered_const(s, &ret) : uncond(s) && s->complete;
}

/* Where an action of the syscall domain's list leads: a return, or (with
 * a syscall-level domain) that domain's list with this action as floor. */
typedef struct {
	cg *g;
	const sc_sysplan *s;
	ir_action floor[8];
	int label[8];
	size_t n;
	bool in_dom;
	ir_action cur;         /* the floor being emitted (in_dom) */
} target;

static int target_of(target *t, ir_action a)
{
	if (t->in_dom)
		return ret_label(t->g, sc_action(stricter(t->cur, a)));
	if (!t->s->dom.present)
		return ret_label(t->g, sc_action(a));
	for (size_t i = 0; i < t->n; i++)
		if (act_same(t->floor[i], a))
			return t->label[i];
	if (t->n == 8)
		abort();   /* four verdicts, errnos of one policy: never this many */
	t->floor[t->n] = a;
	t->label[t->n] = label_new(t->g);
	return t->label[t->n++];
}

static void end_with(target *t, ir_action a)
{
	if (t->in_dom || !t->s->dom.present)
		put(t->g, BPF_RET | BPF_K, sc_action(t->in_dom ? stricter(t->cur, a) : a), -1, -1);
	else
		ja(t->g, target_of(t, a));
}

static void emit_rules(target *t, const sc_rules *r)
{
	int a = -1;
	for (size_t i = 0; i < r->n; i++) {
		if (rule_true(&r->v[i])) {
			end_with(t, r->v[i].act);
			return;
		}
		int ok = target_of(t, r->v[i].act);
		for (size_t j = 0; j < r->v[i].nalt; j++)
			if (!alt_dead(&r->v[i].alt[j], r->v[i].low))
				test_alt(t->g, &r->v[i].alt[j], r->v[i].low, ok, &a);
	}
	end_with(t, r->def);
}

static void ordered_block(cg *g, const sc_sysplan *s, int l)
{
	label_bind(g, l);
	target t = { .g = g, .s = s };
	emit_rules(&t, &s->sys);
	pool_flush(g);
	t.in_dom = true;
	for (size_t i = 0; i < t.n; i++) {
		label_bind(g, t.label[i]);
		t.cur = t.floor[i];
		emit_rules(&t, &s->dom);
		pool_flush(g);
	}
}

/* ---- syscall numbers ---- */

typedef struct {
	uint32_t lo;           /* range [lo, next range's lo) */
	int leaf;              /* label */
} cg_range;

typedef struct { cg_range *v; size_t n, cap; } rangelist;

static void range_add(rangelist *r, uint32_t lo, int leaf)
{
	if (r->n && r->v[r->n - 1].leaf == leaf)
		return;
	xgrow(&r->v, &r->cap, r->n + 1, sizeof *r->v);
	r->v[r->n++] = (cg_range){ lo, leaf };
}

/* A search tree over r[0..n) (w: each range's weight, prefix sums in
 * pw[0..n]): each node splits where the weight on both sides is closest to
 * equal, so the mix's frequent ranges sit near the root; every range
 * carries a uniform share too (ranges_weigh), which bounds the depth. */
static int tree(cg *g, const cg_range *r, const double *pw, size_t n)
{
	if (n == 1)
		return r[0].leaf;
	int l = label_new(g);
	label_bind(g, l);
	double half = (pw[0] + pw[n]) / 2;
	size_t mid = 1;
	for (size_t i = 2; i < n; i++)
		if (fabs(pw[i] - half) < fabs(pw[mid] - half))
			mid = i;
	size_t at = put(g, BPF_JMP | BPF_JGE | BPF_K, r[mid].lo, -1, -1);
	int left = tree(g, r, pw, mid);
	int right = tree(g, r + mid, pw + mid, n - mid);
	g->v[at].jt = right;
	g->v[at].jf = left;
	return l;
}

/* Largest range count given the optimal tree (its tables are n^2). */
#define OPT_TREE_MAX 1536

/* A node of tree_opt_roots marked HOLES is a leaf with exceptions: ranges
 * i, i+2, ..., j-1 share one leaf and the ranges between them are single
 * numbers, each tested by a jeq (heaviest first); whatever none of them
 * matches takes the shared leaf. One jeq per exception instead of up to
 * two jge, and the tree above sees one range where it saw 2h + 1. */
#define HOLES 0x80000000u
#define HOLES_MAX 3

/* Is r[i..j) a leaf with single-number exceptions (at most HOLES_MAX)? */
static bool holes_fit(const cg_range *r, size_t i, size_t j)
{
	if (j - i < 3 || (j - i) % 2 == 0 || (j - i) / 2 > HOLES_MAX)
		return false;
	for (size_t m = i + 1; m < j; m += 2)
		if (r[m + 1].leaf != r[i].leaf || r[m + 1].lo - r[m].lo != 1)
			return false;
	return true;
}

/* The exceptions of r[i..j) into m, heaviest first (prefix sums pw). */
static size_t holes_order(const double *pw, size_t i, size_t j, size_t *m)
{
	size_t h = 0;
	for (size_t k = i + 1; k < j; k += 2) {
		size_t at = h++;
		while (at && pw[m[at - 1] + 1] - pw[m[at - 1]] < pw[k + 1] - pw[k]) {
			m[at] = m[at - 1];
			at--;
		}
		m[at] = k;
	}
	return h;
}

/* Weighted jeq count of the leaf with exceptions r[i..j). */
static double holes_cost(const double *pw, size_t i, size_t j)
{
	size_t m[HOLES_MAX];
	size_t h = holes_order(pw, i, j, m);
	double hw = 0, c = 0;
	for (size_t k = 0; k < h; k++) {
		double w = pw[m[k] + 1] - pw[m[k]];
		c += w * (double)(k + 1);
		hw += w;
	}
	return c + (pw[j] - pw[i] - hw) * (double)h;
}

/* Emit the tree whose splits are in root (see tree_opt_roots) over r[i..j). */
static int tree_emit(cg *g, const cg_range *r, const double *pw, const uint32_t *root,
		     size_t n1, size_t i, size_t j)
{
	if (j - i == 1)
		return r[i].leaf;
	int l = label_new(g);
	label_bind(g, l);
	if (root[i * n1 + j] & HOLES) {
		size_t m[HOLES_MAX];
		size_t h = holes_order(pw, i, j, m);
		for (size_t k = 0; k < h; k++) {
			int next = k + 1 == h ? r[i].leaf : label_new(g);
			jmp(g, BPF_JEQ, r[m[k]].lo, r[m[k]].leaf, next);
			if (k + 1 < h)
				label_bind(g, next);
		}
		return l;
	}
	size_t k = root[i * n1 + j];
	size_t at = put(g, BPF_JMP | BPF_JGE | BPF_K, r[k].lo, -1, -1);
	int left = tree_emit(g, r, pw, root, n1, i, k);
	int right = tree_emit(g, r, pw, root, n1, k, j);
	g->v[at].jt = right;
	g->v[at].jf = left;
	return l;
}

/* The search tree over r[0..n) with the least weighted number of tests
 * (weights: prefix sums pw, as tree() takes them): an optimal alphabetic
 * tree by Knuth's dynamic programme, O(n^2) (the best split of [i, j) lies
 * between those of [i, j-1) and [i+1, j)). The weight-balanced tree above
 * only approximates it; on the PostgreSQL mix the difference is a whole
 * instruction per syscall. A node may instead be a leaf with exceptions
 * (HOLES) where that costs less; the window of splits stays the best
 * split's, so the programme stays O(n^2) and is never worse than the
 * alphabetic optimum (no longer proven optimal over trees with such
 * nodes). Returns the split of every [i, j) at [i * (n + 1) + j]; above
 * OPT_TREE_MAX ranges the caller uses tree().
 *
 * The ranges are done row by row, i from n - 1 down, j up from i + 1:
 * [i, j) needs [i, k) (this row, done) and [k, j) (later rows, done). Only
 * the row being done is kept by rows (row[k]: the cost of [i, k)); every
 * cost is also kept by columns (col[j * (n + 1) + k]: the cost of [k, j)),
 * so both terms of a split's sum are read in order. Each cost is the same
 * sum of the same terms as in any other order, so the splits are too. */
typedef struct {
	const cg_range *r;
	const double *pw;
	size_t n1;
	double *col, *row;
	uint32_t *root;
} opt_tab;

/* [i, j), length 3 or more, whose best split lies in [lo, hi] (Knuth's
 * window: lo the split of [i, j - 1), hi that of [i + 1, j)): its cost and
 * split into the tables; returns the split. */
static size_t opt_cell(const opt_tab *t, size_t i, size_t j, size_t lo)
{
	const double *row = t->row, *cj = t->col + j * t->n1;   /* costs of [i, .), [., j) */
	/* from length 2 on every split of [i, j) lies in [i + 1, j - 1] (the
	 * windows stay in it), so the window needs no clamping but when it is
	 * empty */
	size_t hi = t->root[(i + 1) * t->n1 + j] & ~HOLES;
	if (hi < lo)
		hi = j - 1;
	/* the first least sum wins (costs are never negative) */
	double best = row[lo] + cj[lo];
	size_t bk = lo;
	for (size_t k = lo + 1; k <= hi; k++) {
		double v = row[k] + cj[k];
		if (v < best) {
			best = v;
			bk = k;
		}
	}
	double v = best + (t->pw[j] - t->pw[i]);
	t->row[j] = v;
	t->col[j * t->n1 + i] = v;
	t->root[i * t->n1 + j] = (uint32_t)bk;
	return bk;
}

/* [i, j) as a HOLES node instead, if it is one and costs less. */
static void opt_holes(const opt_tab *t, size_t i, size_t j)
{
	if ((j - i) % 2 == 0 || !holes_fit(t->r, i, j))
		return;
	double h = holes_cost(t->pw, i, j);
	if (h < t->row[j]) {
		t->row[j] = h;
		t->col[j * t->n1 + i] = h;
		t->root[i * t->n1 + j] |= HOLES;
	}
}

static uint32_t *tree_opt_roots(const cg_range *r, const double *pw, size_t n)
{
	size_t n1 = n + 1;
	/* not zeroed: the programme reads only costs and splits it wrote */
	opt_tab t = { r, pw, n1, xmalloc(n1 * n1 * sizeof *t.col), xmalloc(n1 * sizeof *t.row),
		      xmalloc(n1 * n1 * sizeof *t.root) };
	for (size_t i = n; i-- > 0;) {
		/* length 1: a leaf */
		t.row[i + 1] = 0;
		t.col[(i + 1) * n1 + i] = 0;
		t.root[i * n1 + i + 1] = (uint32_t)i + 1;
		size_t j = i + 2;
		if (j > n)
			continue;
		/* length 2: the one split (no HOLES: an even length) */
		double v = (t.row[i + 1] + t.col[j * n1 + i + 1]) + (pw[j] - pw[i]);
		t.row[j] = v;
		t.col[j * n1 + i] = v;
		t.root[i * n1 + j] = (uint32_t)i + 1;
		/* from length 3 on; only odd lengths up to 2 * HOLES_MAX + 1 can be
		 * HOLES (holes_fit) */
		size_t lo = i + 1;   /* the split of [i, j - 1) */
		for (j++; j <= n; j++) {
			lo = opt_cell(&t, i, j, lo);
			if (j - i <= 2 * HOLES_MAX + 1)
				opt_holes(&t, i, j);
		}
	}
	free(t.row);
	free(t.col);
	return t.root;
}

/* Prefix sums of the ranges' weights: MIX_SHARE from the mix (the calls
 * that fall in the range, of this audit arch), the rest uniform: a range
 * of weight at least (1 - MIX_SHARE) / n sits at depth at most
 * log2(n / (1 - MIX_SHARE)) + 2 (weight-balanced trees). */
#define MIX_SHARE 0.85
static double *ranges_weigh(const rangelist *r, bool i386, const sys_freq *mix, size_t nmix)
{
	double *w = xcalloc(r->n + 1, sizeof *w), total = 0;
	for (size_t i = 0; i < nmix; i++) {
		if ((mix[i].arch == IR_ARCH_I386) != i386)
			continue;
		size_t lo = 0, hi = r->n;   /* last range with lo <= nr */
		while (hi - lo > 1) {
			size_t m = (lo + hi) / 2;
			if (r->v[m].lo <= mix[i].nr)
				lo = m;
			else
				hi = m;
		}
		w[lo + 1] += (double)mix[i].count;
		total += (double)mix[i].count;
	}
	for (size_t i = 1; i <= r->n; i++)
		w[i] = (total > 0 ? w[i] / total * MIX_SHARE : 0) +
		       (1 - MIX_SHARE) / (double)r->n + w[i - 1];
	return w;
}

/* An argument block to emit. */
typedef struct {
	int label;
	const sc_sysplan *s;
	ir_arch a;
} cg_pend;

typedef struct {
	const sc_plan *pl;
	const sys_freq *mix;
	size_t nmix;
	size_t nhot;           /* jeq chain length per block */
	/* What the filter does for each syscall of each present ABI: a label,
	 * or -1 (the plan's default); not zeroed, leaves() fills it */
	int (*leaf)[1024];
	cg_pend *pend;            /* argument blocks to emit */
	size_t npend, pendcap;
	size_t *block_len;        /* [arch * 1024 + nr]: instructions */
	size_t *block_emitted;    /* the same with trampolines */
	uint32_t *roots[2];       /* tree_opt's splits per audit arch (x86_64, i386):
	                             the same for every hot chain length tried */
	size_t nroots[2];         /* the range count they were made for */
	/* The ranges of each audit arch and their weights: the same for every
	 * chain length tried, since generate() numbers the leaves' labels the
	 * same way each time (leaves, then the badarch and default returns). */
	rangelist ranges[2];
	double *pw[2];
	bool have_ranges[2];
	/* The leaves' labels likewise: the label count and the return pool
	 * after leaves(), replayed by every later try (leaf, pend stay). */
	bool have_leaves;
	size_t leaf_nlab, leaf_npool;
	cg_ret *leaf_pool;
	/* Each audit arch's search tree and the argument blocks, as the first
	 * try emitted them (the hot chain before them is all that differs),
	 * with each block's start within its segment. */
	cg_seg tree[2], args;
	size_t *args_start;
	cg room;                  /* the last try's arrays, emptied and reused by
	                             the next (their growth once, not per try) */
	cg_layout lay;            /* resolve()'s, likewise */
} gen;

static bool uncond(const sc_sysplan *s)
{
	return s->n == 1 && region_true(&s->v[0]) && s->v[0].dnf.n == 1;
}

/* A new label for s's argument block, emitted later. */
static int pend_add(cg *g, gen *x, const sc_sysplan *s, ir_arch a)
{
	xgrow(&x->pend, &x->pendcap, x->npend + 1, sizeof *x->pend);
	x->pend[x->npend] = (cg_pend){ label_new(g), s, a };
	return x->pend[x->npend++].label;
}

static void leaves(cg *g, gen *x, ir_arch a)
{
	int *leaf = x->leaf[a];
	const sc_archplan *ap = &x->pl->arch[a];
	uint32_t base = a == IR_ARCH_X32 ? IR_X32_SYSCALL_BIT : 0;
	for (size_t i = 0; i < 1024; i++)
		leaf[i] = -1;
	for (size_t i = 0; i < ap->n; i++) {
		uint32_t nr = ap->v[i].nr - base;
		if (nr >= 1024)
			continue;
		const sc_sysplan *s = &ap->v[i];
		uint32_t k;
		if (s->ordered && ordered_const(s, &k))
			leaf[nr] = ret_label(g, k);
		else if (s->ordered)
			leaf[nr] = pend_add(g, x, s, a);
		else if (uncond(s) && s->complete)
			leaf[nr] = ret_label(g, sc_action(s->v[0].act));
		else
			leaf[nr] = pend_add(g, x, s, a);
	}
}

static int leaf_of(cg *g, gen *x, ir_arch a, uint32_t i)
{
	if (!x->pl->arch[a].present)
		return ret_label(g, sc_action(x->pl->badarch));
	if (i < 1024 && x->leaf[a][i] >= 0)
		return x->leaf[a][i];
	return ret_label(g, sc_action(x->pl->def));
}

/* The ranges of ABI a's numbers base + 0..1024 (1024 and above: unknown),
 * each number's leaf as leaf_of() gives it, the returns' labels looked up
 * once (and made, if need be, where leaf_of() would first make them). */
static void abi_ranges(cg *g, gen *x, ir_arch a, uint32_t base, rangelist *r)
{
	if (!x->pl->arch[a].present) {
		range_add(r, base, ret_label(g, sc_action(x->pl->badarch)));
		return;
	}
	const int *leaf = x->leaf[a];
	int def = -1;
	for (uint32_t i = 0; i < 1024; i++) {
		int l = leaf[i];
		if (l < 0) {
			if (def < 0)
				def = ret_label(g, sc_action(x->pl->def));
			l = def;
		}
		range_add(r, base + i, l);
	}
	range_add(r, base + 1024, def < 0 ? ret_label(g, sc_action(x->pl->def)) : def);
}

/* The ranges of one audit arch: x86_64 then x32, or i386. */
static void ranges_of(cg *g, gen *x, bool i386, rangelist *r)
{
	abi_ranges(g, x, i386 ? IR_ARCH_I386 : IR_ARCH_X86_64, 0, r);
	if (!i386)
		abi_ranges(g, x, IR_ARCH_X32, IR_X32_SYSCALL_BIT, r);
}

static int by_count_desc(const void *a, const void *b)
{
	const sys_freq *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* The audit arch's block: ld nr, the hot chain, the tree. */
static int nr_block(cg *g, gen *x, bool i386, const sys_freq *hot, size_t nhot)
{
	int l = label_new(g);
	label_bind(g, l);
	ld(g, (uint32_t)offsetof(struct seccomp_data, nr));
	size_t k = 0;
	for (size_t i = 0; i < nhot && k < x->nhot; i++) {
		if ((hot[i].arch == IR_ARCH_I386) != i386)
			continue;
		uint32_t idx = hot[i].nr & ~(uint32_t)IR_X32_SYSCALL_BIT;
		int leaf = leaf_of(g, x, hot[i].arch, idx);
		int next = label_new(g);
		jmp(g, BPF_JEQ, hot[i].nr, leaf, next);
		label_bind(g, next);
		k++;
	}
	/* the longest chain's labels, so what follows is numbered alike in
	 * every try (seg_replay) */
	while (g->nlab < (size_t)l + 1 + MAX_HOT)
		label_new(g);
	rangelist *r = &x->ranges[i386];
	if (!x->have_ranges[i386]) {
		ranges_of(g, x, i386, r);
		x->pw[i386] = ranges_weigh(r, i386, x->mix, x->nmix);
		x->have_ranges[i386] = true;
	}
	if (x->tree[i386].v) {
		seg_replay(g, &x->tree[i386]);
		return l;
	}
	size_t i0 = g->n;
	int l0 = (int)g->nlab;
	double *pw = x->pw[i386];
	if (r->n == 1) {
		ja(g, r->v[0].leaf);
	} else if (r->n > OPT_TREE_MAX) {
		tree(g, r->v, pw, r->n);
	} else {
		if (!x->roots[i386] || x->nroots[i386] != r->n) {
			free(x->roots[i386]);
			x->roots[i386] = tree_opt_roots(r->v, pw, r->n);
			x->nroots[i386] = r->n;
		}
		tree_emit(g, r->v, pw, x->roots[i386], r->n + 1, 0, r->n);
	}
	seg_record(g, &x->tree[i386], i0, l0);
	return l;
}

/* One try: the program with x->nhot hot syscalls per ABI block (caller
 * frees), its length in *len. */
static struct sock_filter *generate(gen *x, const sys_freq *hot, size_t nhot, size_t *len)
{
	cg g = x->room;
	g.n = g.nlab = g.npool = 0;
	const sc_plan *pl = x->pl;
	bool has86 = pl->arch[IR_ARCH_X86_64].present || pl->arch[IR_ARCH_X32].present;
	bool has32 = pl->arch[IR_ARCH_I386].present;
	if (!x->have_leaves) {
		x->npend = 0;
		for (int a = 0; a < IR_NARCH; a++)
			if (pl->arch[a].present)
				leaves(&g, x, (ir_arch)a);
		ret_label(&g, sc_action(pl->badarch));
		if (has86 || has32)   /* every nr block has numbers it does not know */
			ret_label(&g, sc_action(pl->def));
		x->leaf_nlab = g.nlab;
		x->leaf_npool = g.npool;
		x->leaf_pool = xcalloc(g.npool + 1, sizeof *x->leaf_pool);
		memcpy(x->leaf_pool, g.pool, g.npool * sizeof *g.pool);
		x->have_leaves = true;
	} else {
		while (g.nlab < x->leaf_nlab)
			label_new(&g);
		xgrow(&g.pool, &g.poolcap, x->leaf_npool + 1, sizeof *g.pool);
		memcpy(g.pool, x->leaf_pool, x->leaf_npool * sizeof *g.pool);
		g.npool = x->leaf_npool;
	}
	int bad = ret_label(&g, sc_action(pl->badarch));
	int l86 = has86 ? label_new(&g) : bad, l32 = has32 ? label_new(&g) : bad;
	ld(&g, (uint32_t)offsetof(struct seccomp_data, arch));
	if (has86 && has32) {
		int next = label_new(&g);
		jmp(&g, BPF_JEQ, AUDIT_ARCH_X86_64, l86, next);
		label_bind(&g, next);
		jmp(&g, BPF_JEQ, AUDIT_ARCH_I386, l32, bad);
	} else if (has86) {
		jmp(&g, BPF_JEQ, AUDIT_ARCH_X86_64, l86, bad);
	} else {
		jmp(&g, BPF_JEQ, AUDIT_ARCH_I386, l32, bad);
	}
	if (has86) {
		label_bind(&g, l86);
		nr_block(&g, x, false, hot, nhot);
	}
	if (has32) {
		label_bind(&g, l32);
		nr_block(&g, x, true, hot, nhot);
	}
	pool_flush(&g);
	size_t *start = xcalloc(x->npend + 1, sizeof *start);
	if (x->args.v) {
		size_t base = seg_replay(&g, &x->args);
		for (size_t i = 0; i <= x->npend; i++)
			start[i] = base + x->args_start[i];
	} else {
		size_t i0 = g.n;
		int l0 = (int)g.nlab;
		for (size_t i = 0; i < x->npend; i++) {
			ir_arch a = x->pend[i].a;
			start[i] = g.n;
			if (x->pend[i].s->ordered)
				ordered_block(&g, x->pend[i].s, x->pend[i].label);
			else
				arg_block(&g, x->pend[i].s, sc_action(pl->def), a == IR_ARCH_I386,
					  x->pend[i].label);
		}
		start[x->npend] = g.n;
		seg_record(&g, &x->args, i0, l0);
		x->args_start = xcalloc(x->npend + 1, sizeof *x->args_start);
		for (size_t i = 0; i <= x->npend; i++)
			x->args_start[i] = start[i] - i0;
	}
	struct sock_filter *prog = resolve(&g, &x->lay, len);
	/* a block's length as emitted, its trampolines included */
	const size_t *pos = x->lay.pos;
	for (size_t i = 0; i < x->npend && x->block_len; i++) {
		size_t k = (size_t)x->pend[i].a * 1024 +
			   (x->pend[i].s->nr & ~(uint32_t)IR_X32_SYSCALL_BIT);
		x->block_len[k] = start[i + 1] - start[i];
		x->block_emitted[k] = pos[start[i + 1]] - pos[start[i]];
	}
	free(start);
	x->room = g;
	return prog;
}

/* ---- the mix ---- */

/* A typical server's syscall mix (x86_64), used when no trace is given:
 * event loop, socket and file I/O, memory, time, locks. Weights are
 * relative. */
static const struct { const char *name; unsigned w; } typical[] = {
	{ "read", 300 }, { "write", 300 }, { "epoll_wait", 100 }, { "recvfrom", 100 },
	{ "sendto", 100 }, { "futex", 60 }, { "lseek", 50 }, { "pread64", 40 },
	{ "pwrite64", 40 }, { "close", 30 }, { "epoll_ctl", 30 }, { "openat", 30 },
	{ "newfstatat", 20 }, { "fstat", 20 }, { "mmap", 20 }, { "clock_gettime", 20 },
	{ "poll", 20 }, { "writev", 20 }, { "epoll_pwait", 20 }, { "munmap", 10 },
	{ "mprotect", 10 }, { "accept4", 10 }, { "rt_sigprocmask", 10 }, { "recvmsg", 10 },
	{ "sendmsg", 10 }, { "ioctl", 10 }, { "fcntl", 10 }, { "statx", 5 },
	{ "madvise", 5 }, { "brk", 5 }, { "nanosleep", 5 }, { "getrandom", 5 },
	{ "sched_yield", 5 }, { "readv", 5 }, { "select", 5 }, { "getpid", 5 },
	{ "fsync", 5 }, { "fdatasync", 5 }, { "getdents64", 2 }, { "rt_sigaction", 2 },
	{ "clone", 1 }, { "clone3", 1 }, { "execve", 1 }, { "exit_group", 1 },
};

size_t sc_typical_mix(sys_freq *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < sizeof typical / sizeof typical[0] && n < cap; i++) {
		int nr = sys_resolve(IR_ARCH_X86_64, typical[i].name);
		if (nr >= 0)
			out[n++] = (sys_freq){ IR_ARCH_X86_64, (uint32_t)nr, typical[i].w };
	}
	return n;
}

unsigned sc_longest_path(const struct sock_filter *f, size_t len)
{
	unsigned *l = xcalloc(len + 1, sizeof *l), best = 0;
	for (size_t i = len; i-- > 0;) {
		unsigned cls = BPF_CLASS(f[i].code), m = 0;
		if (cls == BPF_RET) {
			l[i] = 1;
			continue;
		}
		size_t a = i + 1, b = i + 1;
		if (cls == BPF_JMP && BPF_OP(f[i].code) == BPF_JA)
			a = b = i + 1 + f[i].k;
		else if (cls == BPF_JMP)
			a = i + 1 + f[i].jt, b = i + 1 + f[i].jf;
		if (a < len)
			m = l[a];
		if (b < len && l[b] > m)
			m = l[b];
		l[i] = 1 + m;
	}
	best = len ? l[0] : 0;
	free(l);
	return best;
}


int sc_codegen(const sc_plan *pl, const sys_freq *mix, size_t nmix, buf *out,
	       sc_codegen_info *info)
{
	sys_freq tmix[64];
	if (!mix) {
		nmix = sc_typical_mix(tmix, 64);
		mix = tmix;
	}
	gen *x = xcalloc(1, sizeof *x);
	x->leaf = xmalloc(IR_NARCH * sizeof *x->leaf);
	x->pl = pl;
	x->mix = mix;
	x->nmix = nmix;
	sys_freq *hot = xcalloc(nmix ? nmix : 1, sizeof *hot);
	memcpy(hot, mix, nmix * sizeof *hot);
	xqsort(hot, nmix, sizeof *hot, by_count_desc);
	/* How long a chain: the one with the lowest mix mean, the shortest
	 * among those within 1% of it (a chain costs every cold syscall). */
	double best = 0;
	size_t bestk = 0;
	double cost[MAX_HOT + 1];
	struct sock_filter *tries[MAX_HOT + 1];   /* each try's program: the chosen one is the output */
	size_t tlen[MAX_HOT + 1], ntries = 0;
	if (info)     /* the argument blocks' lengths are the same in every try */
		x->block_len = info->block_len, x->block_emitted = info->block_emitted;
	for (size_t k = 0; k <= MAX_HOT && k <= nmix; k++) {
		x->nhot = k;
		tries[ntries] = generate(x, hot, nmix, &tlen[ntries]);
		cost[k] = sc_mix_mean(tries[ntries], tlen[ntries], mix, nmix);
		ntries++;
		if (k == 0 || cost[k] < best) {
			best = cost[k];
			bestk = k;
		}
	}
	for (size_t k = 0; k < bestk; k++)
		if (cost[k] <= best * 1.01) {
			bestk = k;
			break;
		}
	x->nhot = bestk;
	size_t len = tlen[bestk];
	buf_put(out, tries[bestk], len * sizeof *tries[bestk]);
	for (size_t k = 0; k < ntries; k++)
		free(tries[k]);
	if (info) {
		info->len = len;
		info->hot = bestk;
		info->mean = cost[bestk];   /* sc_mix_mean of these very bytes */
	}
	free(hot);
	for (int i = 0; i < 2; i++) {
		free(x->roots[i]);
		free(x->ranges[i].v);
		free(x->pw[i]);
	}
	free(x->leaf_pool);
	free(x->leaf);
	free(x->pend);
	free(x->lay.far);
	free(x->lay.pos);
	seg_free(&x->tree[0]);
	seg_free(&x->tree[1]);
	seg_free(&x->args);
	free(x->args_start);
	cg_free(&x->room);
	free(x);
	return 0;
}
