/* dnf.c - argument conditions as disjunctions of libseccomp comparisons.
 *
 * Why this exists: libseccomp compares 64-bit values, allows one comparison
 * per argument in a rule, and merges overlapping rules by its own rules.
 * polc needs exact regions, so every region is kept here as a DNF whose
 * conjunctions hold at most one comparison per argument; several
 * constraints on one argument are merged into one masked-eq, or split into
 * prefix blocks (x & ~(2^k-1)) == lo. 32-bit arguments only ever get
 * masked-eq terms with masks inside 0xffffffff, so the upper half of the
 * register never matters.
 */
#include "seccomp.h"

#include <stdlib.h>
#include <string.h>

#define U32 0xffffffffull

static struct scmp_arg_cmp atom(unsigned arg, enum scmp_compare op, uint64_t a, uint64_t b)
{
	struct scmp_arg_cmp c = { arg, op, a, b };
	return c;
}

static struct scmp_arg_cmp meq(unsigned arg, uint64_t mask, uint64_t val)
{
	return atom(arg, SCMP_CMP_MASKED_EQ, mask, val);
}

static void conj_push(sc_conj *c, struct scmp_arg_cmp a)
{
	xgrow(&c->v, &c->cap, c->n + 1, sizeof *c->v);
	c->v[c->n++] = a;
}

static void conj_free(sc_conj *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}

static sc_conj *dnf_new_conj(sc_dnf *f)
{
	xgrow(&f->v, &f->cap, f->n + 1, sizeof *f->v);
	sc_conj *c = &f->v[f->n++];
	memset(c, 0, sizeof *c);
	return c;
}

void sc_dnf_free(sc_dnf *f)
{
	for (size_t i = 0; i < f->n; i++)
		conj_free(&f->v[i]);
	free(f->v);
	memset(f, 0, sizeof *f);
}

void sc_dnf_true(sc_dnf *f)
{
	sc_dnf_free(f);
	dnf_new_conj(f);
}

void sc_dnf_copy(sc_dnf *dst, const sc_dnf *src)
{
	memset(dst, 0, sizeof *dst);
	sc_dnf_or(dst, src);
}

void sc_dnf_or(sc_dnf *f, const sc_dnf *g)
{
	for (size_t i = 0; i < g->n; i++) {
		sc_conj *c = dnf_new_conj(f);
		for (size_t j = 0; j < g->v[i].n; j++)
			conj_push(c, g->v[i].v[j]);
	}
}

static bool atom_holds(const struct scmp_arg_cmp *a, uint64_t x)
{
	switch (a->op) {
	case SCMP_CMP_EQ: return x == a->datum_a;
	case SCMP_CMP_NE: return x != a->datum_a;
	case SCMP_CMP_LT: return x < a->datum_a;
	case SCMP_CMP_LE: return x <= a->datum_a;
	case SCMP_CMP_GT: return x > a->datum_a;
	case SCMP_CMP_GE: return x >= a->datum_a;
	case SCMP_CMP_MASKED_EQ: return (x & a->datum_a) == a->datum_b;
	default: return false;
	}
}

bool sc_conj_holds(const sc_conj *c, const uint64_t args[6])
{
	for (size_t i = 0; i < c->n; i++)
		if (!atom_holds(&c->v[i], args[c->v[i].arg]))
			return false;
	return true;
}

/* ---- one argument's constraints -> alternatives of <= 1 comparison ---- */

typedef struct { struct scmp_arg_cmp *v; size_t n, cap; bool has_true; } alts;

static void alts_push(alts *l, struct scmp_arg_cmp a)
{
	if (a.op == SCMP_CMP_MASKED_EQ && a.datum_a == 0) {
		if (a.datum_b == 0)
			l->has_true = true;   /* x & 0 == 0: no constraint */
		return;
	}
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	l->v[l->n++] = a;
}

/* Merge masked-eq b into a; false if they contradict. */
static bool meq_merge(struct scmp_arg_cmp *a, const struct scmp_arg_cmp *b)
{
	if ((a->datum_b ^ b->datum_b) & a->datum_a & b->datum_a)
		return false;
	a->datum_a |= b->datum_a;
	a->datum_b |= b->datum_b;
	return true;
}

/* [lo, hi] as aligned blocks: (x & ~(2^k-1) & keep) == lo. */
static void range_blocks(unsigned arg, uint64_t lo, uint64_t hi, uint64_t keep,
			 const struct scmp_arg_cmp *with, alts *out)
{
	for (;;) {
		int k = lo ? __builtin_ctzll(lo) : 64;
		while (k > 0 && (k == 64 ? hi != UINT64_MAX : lo + ((1ull << k) - 1) > hi))
			k--;
		uint64_t span = k == 64 ? UINT64_MAX : (1ull << k) - 1;
		struct scmp_arg_cmp b = meq(arg, ~span & keep, lo & ~span & keep);
		if (!with || meq_merge(&b, with))
			alts_push(out, b);
		if (k == 64 || lo + span >= hi)
			break;
		lo += span + 1;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* One interval of a 64-bit argument, as one comparison where possible. */
static void interval(unsigned arg, uint64_t a, uint64_t b, const struct scmp_arg_cmp *m, alts *out)
{
	if (!m && a == 0 && b == UINT64_MAX)
		out->has_true = true;
	else if (!m && a == b)
		alts_push(out, atom(arg, SCMP_CMP_EQ, a, 0));
	else if (!m && a == 0)
		alts_push(out, atom(arg, SCMP_CMP_LE, b, 0));
	else if (!m && b == UINT64_MAX)
		alts_push(out, atom(arg, SCMP_CMP_GE, a, 0));
	else
		range_blocks(arg, a, b, UINT64_MAX, m, out);
}

/* Several comparisons on one 64-bit argument (the general case). */
static void reduce_general(unsigned arg, const struct scmp_arg_cmp *const *l, size_t n, alts *out)
{
	uint64_t lo = 0, hi = UINT64_MAX;
	uint64_t *ne = xcalloc(n, sizeof *ne);
	size_t nne = 0;
	bool have_m = false;
	struct scmp_arg_cmp m = meq(arg, 0, 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t v = l[i]->datum_a;
		switch (l[i]->op) {
		case SCMP_CMP_LT: if (v == 0) goto empty; if (v - 1 < hi) hi = v - 1; break;
		case SCMP_CMP_LE: if (v < hi) hi = v; break;
		case SCMP_CMP_GT: if (v == UINT64_MAX) goto empty; if (v + 1 > lo) lo = v + 1; break;
		case SCMP_CMP_GE: if (v > lo) lo = v; break;
		case SCMP_CMP_NE: ne[nne++] = v; break;
		case SCMP_CMP_MASKED_EQ:
			if (!meq_merge(&m, l[i]))
				goto empty;
			have_m = true;
			break;
		default: break;
		}
	}
	if (lo > hi)
		goto empty;
	xqsort(ne, nne, sizeof *ne, cmp_u64);
	/* [lo, hi] minus the NE points, interval by interval. */
	uint64_t cur = lo;
	for (size_t i = 0; i < nne; i++) {
		if (ne[i] < cur || ne[i] > hi)
			continue;
		if (ne[i] > cur)
			interval(arg, cur, ne[i] - 1, have_m ? &m : NULL, out);
		if (ne[i] == hi)
			goto empty;
		cur = ne[i] + 1;
	}
	interval(arg, cur, hi, have_m ? &m : NULL, out);
empty:
	free(ne);
}

static void reduce_arg(unsigned arg, const struct scmp_arg_cmp *const *l, size_t n, alts *out)
{
	if (n == 0) {
		out->has_true = true;
		return;
	}
	if (n == 1) {
		alts_push(out, *l[0]);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (l[i]->op != SCMP_CMP_EQ)
			continue;
		for (size_t j = 0; j < n; j++)
			if (!atom_holds(l[j], l[i]->datum_a))
				return;
		alts_push(out, *l[i]);
		return;
	}
	bool all_meq = true;
	for (size_t i = 0; i < n; i++)
		all_meq &= l[i]->op == SCMP_CMP_MASKED_EQ;
	if (all_meq) {
		struct scmp_arg_cmp m = *l[0];
		for (size_t i = 1; i < n; i++)
			if (!meq_merge(&m, l[i]))
				return;
		alts_push(out, m);
		return;
	}
	reduce_general(arg, l, n, out);
}

/* Append the normal form of conjunction c (any number of comparisons per
 * argument) to out: the product over arguments of their alternatives. */
static void normalize(const sc_conj *c, sc_dnf *out)
{
	alts per[6];
	memset(per, 0, sizeof per);
	for (unsigned a = 0; a < 6; a++) {
		const struct scmp_arg_cmp *l[c->n ? c->n : 1];
		size_t n = 0;
		for (size_t i = 0; i < c->n; i++)
			if (c->v[i].arg == a)
				l[n++] = &c->v[i];
		reduce_arg(a, l, n, &per[a]);
		if (per[a].has_true) {
			per[a].n = 0;        /* TRUE absorbs the others */
		} else if (per[a].n == 0) {
			goto out;            /* this argument cannot match */
		}
	}
	size_t idx[6] = { 0 };
	for (;;) {
		sc_conj *nc = dnf_new_conj(out);
		for (unsigned a = 0; a < 6; a++)
			if (per[a].n)
				conj_push(nc, per[a].v[idx[a]]);
		unsigned a = 0;
		while (a < 6 && (per[a].n == 0 || ++idx[a] == per[a].n)) {
			idx[a] = 0;
			a++;
		}
		if (a == 6)
			break;
	}
out:
	for (unsigned a = 0; a < 6; a++)
		free(per[a].v);
}

/* Does atom a (on the same argument) imply atom b? */
static bool atom_implies(const struct scmp_arg_cmp *a, const struct scmp_arg_cmp *b)
{
	if (a->arg != b->arg)
		return false;
	if (a->op == b->op && a->datum_a == b->datum_a && a->datum_b == b->datum_b)
		return true;
	if (a->op == SCMP_CMP_EQ)
		return atom_holds(b, a->datum_a);
	if (a->op == SCMP_CMP_MASKED_EQ && b->op == SCMP_CMP_MASKED_EQ)
		return (a->datum_a & b->datum_a) == b->datum_a &&
		       (a->datum_b & b->datum_a) == b->datum_b;
	return false;
}

/* Every constraint of b is implied by one of a: a's region lies in b's. */
static bool conj_within(const sc_conj *a, const sc_conj *b)
{
	for (size_t i = 0; i < b->n; i++) {
		bool found = false;
		for (size_t j = 0; j < a->n && !found; j++)
			found = atom_implies(&a->v[j], &b->v[i]);
		if (!found)
			return false;
	}
	return true;
}

/* Drop conjunctions contained in another one (duplicates included): the
 * union stays the same, the rule count shrinks. */
void sc_dnf_prune(sc_dnf *f)
{
	bool *dead = xcalloc(f->n, sizeof *dead);
	for (size_t i = 0; i < f->n; i++)
		for (size_t j = 0; j < f->n && !dead[i]; j++)
			if (i != j && !dead[j] && conj_within(&f->v[i], &f->v[j]) &&
			    (!conj_within(&f->v[j], &f->v[i]) || j < i))
				dead[i] = true;
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++) {
		if (dead[i])
			conj_free(&f->v[i]);
		else
			f->v[k++] = f->v[i];
	}
	f->n = k;
	free(dead);
}

int sc_dnf_and(sc_dnf *f, const sc_dnf *g)
{
	sc_dnf r = { 0 };
	int rc = 0;
	for (size_t i = 0; i < f->n && !rc; i++) {
		for (size_t j = 0; j < g->n; j++) {
			sc_conj tmp = { 0 };
			for (size_t k = 0; k < f->v[i].n; k++)
				conj_push(&tmp, f->v[i].v[k]);
			for (size_t k = 0; k < g->v[j].n; k++)
				conj_push(&tmp, g->v[j].v[k]);
			normalize(&tmp, &r);
			conj_free(&tmp);
		}
		if (r.n > 64)
			sc_dnf_prune(&r);
		if (r.n > SC_MAX_CONJ)
			rc = -1;
	}
	sc_dnf_prune(&r);
	sc_dnf_free(f);
	*f = r;
	return rc;
}

/* ---- lowering one ir_arg_cond ---- */

static void one(sc_dnf *g, struct scmp_arg_cmp a)
{
	conj_push(dnf_new_conj(g), a);
}

/* OR over the bits b of m: (x & b) == (~v & b), i.e. NOT ((x & m) == v). */
static void not_meq(sc_dnf *g, unsigned arg, uint64_t m, uint64_t v)
{
	for (int b = 0; b < 64; b++)
		if ((m >> b) & 1)
			one(g, meq(arg, 1ull << b, ~v & (1ull << b)));
}

static void blocks(sc_dnf *g, unsigned arg, uint64_t lo, uint64_t hi, uint64_t keep)
{
	if (lo > hi)
		return;
	alts l = { 0 };
	range_blocks(arg, lo, hi, keep, NULL, &l);
	if (l.has_true)
		dnf_new_conj(g);
	else
		for (size_t i = 0; i < l.n; i++)
			one(g, l.v[i]);
	free(l.v);
}

static ir_cmp negate(ir_cmp op)
{
	switch (op) {
	case IR_CMP_EQ: return IR_CMP_NE;
	case IR_CMP_NE: return IR_CMP_EQ;
	case IR_CMP_LT: return IR_CMP_GE;
	case IR_CMP_GE: return IR_CMP_LT;
	case IR_CMP_LE: return IR_CMP_GT;
	case IR_CMP_GT: return IR_CMP_LE;
	default: return op;
	}
}

/* x is the lower half of the register: 0 <= x <= 2^32-1. */
static void lower32(sc_dnf *g, unsigned arg, ir_cmp op, uint64_t m, uint64_t v, bool neg)
{
	switch (op) {
	case IR_CMP_EQ: if (v <= U32) one(g, meq(arg, U32, v)); break;
	case IR_CMP_NE: if (v > U32) dnf_new_conj(g); else not_meq(g, arg, U32, v); break;
	case IR_CMP_LT: if (v) blocks(g, arg, 0, v - 1 > U32 ? U32 : v - 1, U32); break;
	case IR_CMP_LE: blocks(g, arg, 0, v > U32 ? U32 : v, U32); break;
	case IR_CMP_GT: if (v < U32) blocks(g, arg, v + 1, U32, U32); break;
	case IR_CMP_GE: if (v <= U32) blocks(g, arg, v, U32, U32); break;
	case IR_CMP_MASKED_EQ:
		m &= U32;
		if (v & ~m) {           /* never matches */
			if (neg)
				dnf_new_conj(g);
		} else if (!neg) {
			one(g, meq(arg, m, v));  /* m == 0: pushes TRUE */
		} else {
			not_meq(g, arg, m, v);
		}
		break;
	}
}

static void lower64(sc_dnf *g, unsigned arg, ir_cmp op, uint64_t m, uint64_t v, bool neg)
{
	switch (op) {
	case IR_CMP_EQ: one(g, atom(arg, SCMP_CMP_EQ, v, 0)); break;
	case IR_CMP_NE: one(g, atom(arg, SCMP_CMP_NE, v, 0)); break;
	case IR_CMP_LT: if (v) one(g, atom(arg, SCMP_CMP_LT, v, 0)); break;
	case IR_CMP_LE: if (v == UINT64_MAX) dnf_new_conj(g); else one(g, atom(arg, SCMP_CMP_LE, v, 0)); break;
	case IR_CMP_GT: if (v != UINT64_MAX) one(g, atom(arg, SCMP_CMP_GT, v, 0)); break;
	case IR_CMP_GE: if (v == 0) dnf_new_conj(g); else one(g, atom(arg, SCMP_CMP_GE, v, 0)); break;
	case IR_CMP_MASKED_EQ:
		if (v & ~m) {
			if (neg)
				dnf_new_conj(g);
		} else if (!neg) {
			one(g, meq(arg, m, v));
		} else {
			not_meq(g, arg, m, v);
		}
		break;
	}
}

int sc_dnf_and_cond(sc_dnf *f, const ir_arg_cond *c, bool wide32, bool neg)
{
	sc_dnf g = { 0 };
	ir_cmp op = neg ? negate(c->op) : c->op;
	if (wide32)
		lower32(&g, (unsigned)c->arg, op, c->mask, c->value, neg);
	else
		lower64(&g, (unsigned)c->arg, op, c->mask, c->value, neg);
	/* A masked-eq with mask 0 lowers to an empty conjunction (TRUE). */
	for (size_t i = 0; i < g.n; i++)
		if (g.v[i].n == 1 && g.v[i].v[0].op == SCMP_CMP_MASKED_EQ &&
		    g.v[i].v[0].datum_a == 0)
			g.v[i].n = 0;
	int rc = sc_dnf_and(f, &g);
	sc_dnf_free(&g);
	return rc;
}
