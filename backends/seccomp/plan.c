/* plan.c - IR -> per-arch, per-syscall disjoint regions (the seccomp plan),
 * and classify(): what seccomp can see of each statement.
 *
 * For one syscall, each domain's statements are ordered by written verdict
 * (kill > deny > audit > allow, source order among equals, as ir_decide);
 * region k = statement k AND NOT every earlier one with another action;
 * the rest goes to the domain's default. The syscall domain and a
 * syscall-level domain (mount, network, ptrace, signal) are combined by
 * taking the more restrictive decision, which is what the tests' oracle
 * does with sysevent_of() (compiler/sysevents.h, the table this reads).
 */
#include "seccomp.h"
#include "../../base/arena.h"
#include "../../compiler/syscalls.h"
#include "../../compiler/sysevents.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* ---- classify ---- */

static support sup(support_level l, const char *why)
{
	support s = { l, why };
	return s;
}

/* Allowing io_uring where the syscall default denies: io_uring then does
 * what the default denies (openat, socket, connect, ...) where seccomp
 * cannot see it. (A deny statement that io_uring could bypass closes
 * io_uring instead: ir_implied.) */
static support classify_syscall(const ir_policy *p, const ir_stmt *s)
{
	ir_implied_action imp;
	if (s->action.verdict < IR_DENY && p->defaults[IR_SYSCALL].verdict >= IR_DENY &&
	    !strncmp(s->u.sys.name, "io_uring_", 9) && !ir_implied(p, s->u.sys.name, &imp))
		return sup(SUPPORT_PARTIAL, "io_uring performs operations this policy's "
			   "syscall default denies (openat, socket, connect, ...), where "
			   "seccomp cannot see them");
	return sup(SUPPORT_EXACT, NULL);
}

static support classify(const ir_policy *p, const ir_stmt *s)
{
	switch (s->domain) {
	case IR_SYSCALL: return classify_syscall(p, s);
	case IR_FILE: return sup(SUPPORT_NONE, "seccomp cannot see paths");
	case IR_EXEC: return sup(SUPPORT_NONE, "seccomp cannot see paths (exec)");
	case IR_CAPABILITY:
		return sup(SUPPORT_NONE, "seccomp cannot see capability checks");
	case IR_MOUNT:
		if (s->u.mount.nfstype || s->u.mount.target)
			return sup(SUPPORT_NONE, "seccomp cannot read the fstype or "
				   "target strings (they sit behind pointers)");
		return sup(SUPPORT_EXACT, NULL);
	case IR_NETWORK:
		if (s->u.net.has_addr || s->u.net.has_port)
			return sup(SUPPORT_NONE, "seccomp cannot see addresses or "
				   "ports (they sit behind pointers)");
		if (s->u.net.op != IR_NET_ANYOP)
			return sup(SUPPORT_NONE, "seccomp sees socket(2) arguments "
				   "only, not the family of the socket a "
				   "connect/bind/listen/accept/send uses");
		if (p->arches & IR_ARCH_BIT(IR_ARCH_I386))
			return sup(SUPPORT_PARTIAL, "on i386, socketcall(2) passes "
				   "socket(2)'s arguments in memory seccomp cannot "
				   "read; only the direct socket(2) is filtered");
		return sup(SUPPORT_EXACT, NULL);
	case IR_PTRACE:
		return sup(SUPPORT_PARTIAL, "seccomp sees ptrace(2), process_vm_"
			   "readv/writev(2), kcmp(2) and pidfd_getfd(2) calls, not "
			   "ptrace access checks through /proc/PID files, and "
			   "cannot tell the target");
	case IR_SIGNAL:
		if (s->u.signal.peer)
			return sup(SUPPORT_NONE, "seccomp cannot see the target's label");
		return sup(SUPPORT_PARTIAL, "seccomp sees the kill(2) family "
			   "(signals to itself included), not signals the kernel "
			   "sends for the process (F_SETOWN, pdeath_signal)");
	case IR_NDOMAIN: break;
	}
	return sup(SUPPORT_NONE, "unknown domain");
}

static bool lowered(const ir_policy *p, const ir_stmt *s, bool allow_partial)
{
	support su = classify(p, s);
	return su.level == SUPPORT_EXACT || (su.level == SUPPORT_PARTIAL && allow_partial);
}

/* ---- sources: one statement as (pos, neg) DNFs for one syscall ---- */

typedef struct {
	ir_verdict written;
	ir_action act;
	sc_dnf pos, neg;
	sc_alt *alt;           /* the own generator's form (no DNF) */
	size_t nalt;
	uint8_t low;
} src;

typedef struct { src *v; size_t n, cap; } srclist;

static bool wide32(ir_arch a, uint8_t arg32, int arg)
{
	return a == IR_ARCH_I386 || ((arg32 >> arg) & 1);
}

/* A set of alternative conjunctions of conditions (the network lowering
 * needs OR; a syscall statement has one conjunction). */
typedef struct { ir_arg_cond *c; size_t n; } cconj;

static int src_from(src *s, const cconj *alt, size_t nalt, ir_arch a, uint8_t arg32, bool neg)
{
	memset(&s->pos, 0, sizeof s->pos);
	sc_dnf_true(&s->neg);
	for (size_t i = 0; i < nalt && !neg; i++) {
		sc_dnf one = { 0 };
		sc_dnf_true(&one);
		for (size_t j = 0; j < alt[i].n; j++)
			if (sc_dnf_and_cond(&one, &alt[i].c[j], wide32(a, arg32, alt[i].c[j].arg), false)) {
				sc_dnf_free(&one);
				return -1;
			}
		sc_dnf_or(&s->pos, &one);
		sc_dnf_free(&one);
	}
	for (size_t i = 0; i < nalt && neg; i++) {
		sc_dnf one = { 0 }, notone = { 0 };
		sc_dnf_true(&one);
		for (size_t j = 0; j < alt[i].n; j++) {
			const ir_arg_cond *c = &alt[i].c[j];
			if (sc_dnf_and_cond(&one, c, wide32(a, arg32, c->arg), false))
				goto big;
			sc_dnf t = { 0 };
			sc_dnf_true(&t);
			if (sc_dnf_and_cond(&t, c, wide32(a, arg32, c->arg), true))
				goto big;
			sc_dnf_or(&notone, &t);
			sc_dnf_free(&t);
		}
		sc_dnf_or(&s->pos, &one);
		int rc = sc_dnf_and(&s->neg, &notone);
		sc_dnf_free(&one);
		sc_dnf_free(&notone);
		if (rc)
			return -1;
		continue;
big:
		sc_dnf_free(&one);
		sc_dnf_free(&notone);
		return -1;
	}
	return 0;
}

static src *src_push(srclist *l, const ir_policy *p, const ir_stmt *st)
{
	xgrow(&l->v, &l->cap, l->n + 1, sizeof *l->v);
	src *s = &l->v[l->n++];
	memset(s, 0, sizeof *s);
	s->written = st->action.verdict;
	s->act = ir_effective(p, st->action);
	return s;
}

/* A network statement means at most 2 families x NET_PROTOS protocols
 * (tcp: 0, IPPROTO_TCP, IPPROTO_MPTCP) of socket(2): NET_ALTS alternatives. */
#define NET_PROTOS 3
#define NET_ALTS (2 * NET_PROTOS)

/* nalt alternatives with n[i] conditions each, in one zeroed block of the
 * plan's arena: the ordered rules are freed with the plan, all at once. */
static sc_alt *alts_new(struct ir_arena *mem, size_t nalt, const size_t *n)
{
	size_t total = 0;
	for (size_t i = 0; i < nalt; i++)
		total += n[i];
	sc_alt *v = arena_alloc(mem, nalt * sizeof *v + total * sizeof(ir_arg_cond) + 1);
	ir_arg_cond *c = (ir_arg_cond *)(v + nalt);
	for (size_t i = 0; i < nalt; i++) {
		v[i].c = c;
		v[i].n = n[i];
		c += n[i];
	}
	return v;
}

/* The conditions as written, copied: the own generator compares them. */
static void src_alts(struct ir_arena *mem, src *s, const cconj *alt, size_t nalt, uint8_t low)
{
	size_t n[NET_ALTS];   /* a statement has at most NET_ALTS alternatives (net_alts) */
	if (nalt > NET_ALTS)
		abort();
	for (size_t i = 0; i < nalt; i++)
		n[i] = alt[i].n;
	s->alt = alts_new(mem, nalt, n);
	s->nalt = nalt;
	s->low = low;
	for (size_t i = 0; i < nalt; i++)
		if (alt[i].n)   /* memcpy from NULL is undefined even for 0 bytes */
			memcpy(s->alt[i].c, alt[i].c, alt[i].n * sizeof *alt[i].c);
}

/* Empty l and keep its room: planning ~1,000 syscalls reuses one list. */
static void srclist_clear(srclist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].pos.v)     /* libseccomp's plans only */
			sc_dnf_free(&l->v[i].pos);
		if (l->v[i].neg.v)
			sc_dnf_free(&l->v[i].neg);
	}
	l->n = 0;
}

static void srclist_free(srclist *l)
{
	srclist_clear(l);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static ir_arg_cond cnd(int arg, ir_cmp op, uint64_t mask, uint64_t v)
{
	ir_arg_cond c = { arg, op, mask, v };
	return c;
}

/* The socket(2) arguments a network statement (family/proto only) means;
 * the same as ir_decide's proto_matches(): at most NET_ALTS alternatives,
 * each at most 3 conditions. */
static size_t net_alts(const ir_network *n, cconj *alt, ir_arg_cond (*store)[3])
{
	int fams[2], nf = 0;
	bool inet_only = n->proto == IR_PROTO_TCP || n->proto == IR_PROTO_UDP ||
			 n->proto == IR_PROTO_ICMP;
	if (n->family) {
		if (inet_only && n->family != AF_INET && n->family != AF_INET6)
			return 0;
		fams[nf++] = n->family;
	} else if (inet_only) {
		fams[nf++] = AF_INET;
		fams[nf++] = AF_INET6;
	}
	int type = -1, protos[NET_PROTOS] = { -1, -1, -1 }, np = 0;
	switch (n->proto) {
	case IR_PROTO_TCP:
		type = SOCK_STREAM;
		protos[np++] = 0;
		protos[np++] = IPPROTO_TCP;
		protos[np++] = IPPROTO_MPTCP;
		break;
	case IR_PROTO_UDP: type = SOCK_DGRAM; protos[np++] = 0; protos[np++] = IPPROTO_UDP; break;
	case IR_PROTO_RAW: type = SOCK_RAW; break;
	case IR_PROTO_ICMP: protos[np++] = IPPROTO_ICMP; protos[np++] = IPPROTO_ICMPV6; break;
	case IR_PROTO_ANY: break;
	}
	size_t na = 0;
	for (int f = 0; f < (nf ? nf : 1); f++) {
		for (int q = 0; q < (np ? np : 1); q++) {
			cconj *c = &alt[na];
			c->c = store[na++];
			c->n = 0;
			if (nf)
				c->c[c->n++] = cnd(0, IR_CMP_EQ, 0, (uint64_t)fams[f]);
			if (type >= 0)
				c->c[c->n++] = cnd(1, IR_CMP_MASKED_EQ, 0xf, (uint64_t)type);
			if (np)
				c->c[c->n++] = cnd(2, IR_CMP_EQ, 0, (uint64_t)protos[q]);
		}
	}
	return na;
}

/* Does statement st (of a syscall-level domain) speak about event map m? */
static bool dom_stmt_applies(const ir_stmt *st, const sysevent *m)
{
	switch (st->domain) {
	case IR_MOUNT: return (int)st->u.mount.op == m->sub;
	case IR_NETWORK: return true;
	case IR_PTRACE: return (st->u.ptrace.modes & (unsigned)m->sub) != 0;
	case IR_SIGNAL: return true;
	default: return false;
	}
}

/* ---- partitions ---- */

typedef struct { sc_region *v; size_t n, cap; } part;

static bool act_eq(ir_action a, ir_action b)
{
	return a.verdict == b.verdict && (a.verdict != IR_DENY || a.err == b.err);
}

static void part_add(part *pt, ir_action act, sc_dnf *dnf)
{
	if (dnf->n == 0) {
		sc_dnf_free(dnf);
		return;
	}
	for (size_t i = 0; i < pt->n; i++) {
		if (act_eq(pt->v[i].act, act)) {
			/* libseccomp merges overlapping rules of one action wrongly
			 * (a range rule and a narrower one inside it lose the
			 * wider): never hand it a rule another one contains */
			sc_dnf_or(&pt->v[i].dnf, dnf);
			sc_dnf_prune(&pt->v[i].dnf);
			sc_dnf_free(dnf);
			return;
		}
	}
	xgrow(&pt->v, &pt->cap, pt->n + 1, sizeof *pt->v);
	pt->v[pt->n].act = act;
	pt->v[pt->n].dnf = *dnf;
	pt->n++;
	memset(dnf, 0, sizeof *dnf);
}

static void part_free(part *pt)
{
	for (size_t i = 0; i < pt->n; i++)
		sc_dnf_free(&pt->v[i].dnf);
	free(pt->v);
	memset(pt, 0, sizeof *pt);
}

/* The domain decides only where condition k holds (its syscall is its
 * event only then); elsewhere it allows, leaving the syscall domain's
 * decision. k is on a 32-bit argument. */
static int part_only_when(part *pt, const ir_arg_cond *k)
{
	for (size_t i = 0; i < pt->n; i++)
		if (sc_dnf_and_cond(&pt->v[i].dnf, k, true, false))
			return -1;
	sc_dnf rest = { 0 };
	sc_dnf_true(&rest);
	if (sc_dnf_and_cond(&rest, k, true, true)) {
		sc_dnf_free(&rest);
		return -1;
	}
	ir_action allow = { IR_ALLOW, 0 };
	part_add(pt, allow, &rest);
	return 0;
}

/* The regions cover every argument value; with one action left, say so
 * plainly (one unconditional rule: no argument loads, and nothing for
 * libseccomp's rule merging to get wrong). */
static void single_true(part *pt)
{
	if (pt->n == 1)
		sc_dnf_true(&pt->v[0].dnf);
}

static int by_written(const void *a, const void *b)
{
	const src *x = a, *y = b;
	return (int)y->written - (int)x->written;
}

/* Stable sort by written verdict (qsort is not stable: insertion sort). */
static void sort_sources(srclist *l)
{
	for (size_t i = 1; i < l->n; i++) {
		src t = l->v[i];
		size_t j = i;
		while (j > 0 && by_written(&l->v[j - 1], &t) > 0) {
			l->v[j] = l->v[j - 1];
			j--;
		}
		l->v[j] = t;
	}
}

static int partition(srclist *l, ir_action def, part *out)
{
	sort_sources(l);
	memset(out, 0, sizeof *out);
	for (size_t k = 0; k < l->n; k++) {
		sc_dnf r;
		sc_dnf_copy(&r, &l->v[k].pos);
		for (size_t j = 0; j < k && r.n; j++)
			if (!act_eq(l->v[j].act, l->v[k].act) && sc_dnf_and(&r, &l->v[j].neg))
				goto big;
		part_add(out, l->v[k].act, &r);
		continue;
big:
		sc_dnf_free(&r);
		return -1;
	}
	sc_dnf rest = { 0 };
	sc_dnf_true(&rest);
	for (size_t j = 0; j < l->n && rest.n; j++)
		if (sc_dnf_and(&rest, &l->v[j].neg)) {
			sc_dnf_free(&rest);
			return -1;
		}
	part_add(out, def, &rest);
	single_true(out);
	return 0;
}

/* Sources -> a first-match list (own generator): sorted as ir_decide
 * decides, rules whose action the default gives anyway dropped from the
 * end (nothing after them could differ). Takes the sources' DNFs. */
static void to_rules(struct ir_arena *mem, srclist *l, ir_action def, sc_rules *out)
{
	sort_sources(l);
	memset(out, 0, sizeof *out);
	out->def = def;
	out->present = true;
	size_t n = l->n;
	while (n > 0 && act_eq(l->v[n - 1].act, def))
		n--;
	out->v = n ? arena_alloc(mem, n * sizeof *out->v) : NULL;   /* most syscalls: none */
	for (size_t i = 0; i < n; i++) {
		sc_rule *r = &out->v[out->n++];
		r->act = l->v[i].act;
		r->alt = l->v[i].alt;
		r->nalt = l->v[i].nalt;
		r->low = l->v[i].low;
		l->v[i].alt = NULL;
		l->v[i].nalt = 0;
	}
}

/* part_only_when() for the ordered form: an allow for "k does not hold"
 * matched first. */
static void rules_only_when(struct ir_arena *mem, sc_rules *r, const ir_arg_cond *k)
{
	sc_rule *v = arena_alloc(mem, (r->n + 1) * sizeof *v);
	if (r->n)
		memcpy(v + 1, r->v, r->n * sizeof *v);
	r->v = v;
	r->n++;
	sc_rule *f = &r->v[0];
	memset(f, 0, sizeof *f);
	f->act.verdict = IR_ALLOW;
	f->nalt = 1;
	size_t one = 1;
	f->alt = alts_new(mem, 1, &one);
	f->alt[0].c[0] = *k;
	f->alt[0].c[0].value = 0;        /* k's flag clear */
	f->low = 0x3f;
}

/* The more restrictive of two decisions; the syscall domain's on a tie. */
static int combine(part *a, const part *b)
{
	part r = { 0 };
	for (size_t i = 0; i < a->n; i++) {
		for (size_t j = 0; j < b->n; j++) {
			sc_dnf x;
			sc_dnf_copy(&x, &a->v[i].dnf);
			if (sc_dnf_and(&x, &b->v[j].dnf)) {
				sc_dnf_free(&x);
				part_free(&r);
				return -1;
			}
			ir_action act = b->v[j].act.verdict > a->v[i].act.verdict ?
					b->v[j].act : a->v[i].act;
			part_add(&r, act, &x);
		}
	}
	part_free(a);
	*a = r;
	single_true(a);
	return 0;
}

/* ---- the plan ---- */

typedef struct {
	const ir_policy *p;
	bool allow_partial;
	diag_ctx *d;
	ir_action sysdef;      /* effective syscall default */
	bool lib;              /* for libseccomp: refuse what it would get wrong */
	uint64_t *by_nr;       /* this arch's syscall statements: nr << 32 | index,
	                          sorted, so each syscall finds its own in log n */
	size_t nby_nr;
	srclist *scratch;      /* sys_part's and dom_part's source lists (emptied
	                          after each use, their room kept) */
	struct ir_arena *mem;  /* the plan's: the ordered rules */
	/* ir_implied's answers, asked once per kind (every ABI's clone3 and
	 * io_uring calls get the same) */
	bool implies[IR_NIMPLIES];
	ir_implied_action implied[IR_NIMPLIES];
} ctx;

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* Index the syscall statements of arch a by number (statement order kept
 * within a number): planning each of ~1,000 syscalls must not scan them all.
 * The entries come in statement order, so a stable counting sort by number
 * (numbers span 1,024 within an arch) is the sort by nr << 32 | index. */
#define BY_NR_SPAN 1024
static void index_by_nr(ctx *c, ir_arch a)
{
	const ir_stmt_list *sl = &c->p->dom[IR_SYSCALL];
	uint64_t *v = xmalloc((sl->n ? sl->n : 1) * sizeof *v);
	size_t n = 0;
	uint32_t lo = UINT32_MAX, hi = 0;
	for (size_t i = 0; i < sl->n; i++)
		if (sl->v[i].u.sys.nr[a] >= 0) {
			uint32_t nr = (uint32_t)sl->v[i].u.sys.nr[a];
			v[n++] = (uint64_t)nr << 32 | i;
			lo = nr < lo ? nr : lo;
			hi = nr > hi ? nr : hi;
		}
	free(c->by_nr);
	c->nby_nr = n;
	if (!n || hi - lo >= BY_NR_SPAN) {
		xqsort(v, n, sizeof *v, cmp_u64);
		c->by_nr = v;
		return;
	}
	size_t at[BY_NR_SPAN + 1] = { 0 };
	for (size_t i = 0; i < n; i++)
		at[(v[i] >> 32) - lo + 1]++;
	for (size_t k = 1; k <= BY_NR_SPAN; k++)
		at[k] += at[k - 1];
	c->by_nr = xmalloc(n * sizeof *c->by_nr);
	for (size_t i = 0; i < n; i++)
		c->by_nr[at[(v[i] >> 32) - lo]++] = v[i];
	free(v);
}

/* The first entry of c->by_nr for syscall nr (c->nby_nr if none). */
static size_t first_of_nr(const ctx *c, uint32_t nr)
{
	size_t lo = 0, hi = c->nby_nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->by_nr[mid] >> 32 < nr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static ir_action dom_default(const ctx *c, ir_domain dom)
{
	ir_action a = ir_effective(c->p, c->p->defaults[dom]);
	/* ptrace/signal are partial: their defaults too only with --allow-partial */
	if ((dom == IR_PTRACE || dom == IR_SIGNAL) && !c->allow_partial)
		a.verdict = IR_ALLOW;
	return a;
}

static int fail_big(const ctx *c, src_loc loc, const char *name)
{
	diag_error(c->d, loc, "seccomp: the argument conditions on %s expand to "
		   "more than %d terms; simplify them", name, SC_MAX_CONJ);
	return -1;
}

static bool ordering(ir_cmp op)
{
	return op == IR_CMP_LT || op == IR_CMP_LE || op == IR_CMP_GT || op == IR_CMP_GE;
}

/* The values of argument `arg` a statement's ==, <, <=, >, >= conditions
 * leave (!= and masked conditions are not narrowed: [0, max]). */
static void arg_interval(const ir_syscall *sy, int arg, uint64_t *lo, uint64_t *hi)
{
	*lo = 0;
	*hi = UINT64_MAX;
	for (size_t i = 0; i < sy->ncond; i++) {
		const ir_arg_cond *k = &sy->conds[i];
		uint64_t v = k->value, l = 0, h = UINT64_MAX;
		if (k->arg != arg)
			continue;
		switch (k->op) {
		case IR_CMP_EQ: l = h = v; break;
		case IR_CMP_LT: if (!v) { *lo = 1; *hi = 0; return; } h = v - 1; break;
		case IR_CMP_LE: h = v; break;
		case IR_CMP_GT: if (v == UINT64_MAX) { *lo = 1; *hi = 0; return; } l = v + 1; break;
		case IR_CMP_GE: l = v; break;
		default: break;
		}
		if (l > *lo)
			*lo = l;
		if (h < *hi)
			*hi = h;
	}
}

/* No call can match both: on some argument their ranges do not meet. */
static bool provably_disjoint(const ir_syscall *x, const ir_syscall *y)
{
	for (int arg = 0; arg < 6; arg++) {
		uint64_t xl, xh, yl, yh;
		arg_interval(x, arg, &xl, &xh);
		arg_interval(y, arg, &yl, &yh);
		if (xl > xh || yl > yh || xh < yl || yh < xl)
			return true;
	}
	return false;
}

/* libseccomp 2.5 merges two overlapping rules of one action on one syscall
 * wrongly when they compare the same argument and one of them with <, <=,
 * > or >= (a value the wider rule covers can fall through to the default;
 * found by the exhaustive test). Refuse such a pair rather than emit a
 * filter that could allow or deny the wrong calls; disjoint ranges (as in
 * Docker's socket rules) are fine. The comparison values are taken as
 * written: 32-bit arguments compare the same lower halves on both sides. */
static int same_action_ranges(const ctx *c, const ir_stmt *x, const ir_stmt *y, const char *name)
{
	const ir_syscall *sx = &x->u.sys, *sy = &y->u.sys;
	if (!sx->ncond || !sy->ncond ||
	    !act_eq(ir_effective(c->p, x->action), ir_effective(c->p, y->action)) ||
	    provably_disjoint(sx, sy))
		return 0;
	for (size_t i = 0; i < sx->ncond; i++)
		for (size_t j = 0; j < sy->ncond; j++)
			if (sx->conds[i].arg == sy->conds[j].arg &&
			    (ordering(sx->conds[i].op) || ordering(sy->conds[j].op))) {
				diag_error(c->d, y->loc, "seccomp: libseccomp 2.5 cannot merge two "
					   "conditions of one action on arg%d of %s when one is a range "
					   "comparison; write them as one statement", sy->conds[j].arg, name);
				diag_note(c->d, x->loc, "the other statement");
				return -1;
			}
	return 0;
}

/* On x32 libseccomp compares only the lower 32 bits of an argument. For a
 * 64-bit argument that is still exact when the condition cannot depend on
 * the upper half: a masked-eq whose mask has no upper bit (the upper half is
 * masked off; a value with bits outside the mask never matches, whatever the
 * half), and comparisons that hold for every value or for none (>= 0,
 * <= 2^64-1, < 0, > 2^64-1), which lower to no comparison at all. Its
 * negation (one single-bit masked-eq per mask bit) stays in the lower half. */
static bool low32_exact(const ir_arg_cond *c)
{
	switch (c->op) {
	case IR_CMP_MASKED_EQ: return (c->mask >> 32) == 0;
	case IR_CMP_GE: case IR_CMP_LT: return c->value == 0;
	case IR_CMP_LE: case IR_CMP_GT: return c->value == UINT64_MAX;
	default: return false;
	}
}

/* Partition of the syscall domain for (a, nr); for the own generator
 * (!c->lib) the first-match list in *rl instead. */
static int sys_part(const ctx *c, ir_arch a, uint32_t nr, const char *name, part *out,
		    sc_rules *rl)
{
	const ir_stmt_list *sl = &c->p->dom[IR_SYSCALL];
	srclist *l = &c->scratch[0];
	int rc = 0;
	for (size_t e = first_of_nr(c, nr); e < c->nby_nr && c->by_nr[e] >> 32 == nr && !rc; e++) {
		size_t i = (uint32_t)c->by_nr[e];
		const ir_stmt *st = &sl->v[i];
		const ir_syscall *sy = &st->u.sys;
		for (size_t j = 0; j < sy->ncond && a == IR_ARCH_X32 && c->lib; j++)
			if (!((sy->arg32 >> sy->conds[j].arg) & 1) &&
			    !low32_exact(&sy->conds[j])) {
				diag_error(c->d, st->loc, "seccomp: on x32, libseccomp "
					   "compares only the lower 32 bits of arguments; "
					   "arg%d of %s is 64 bits wide there (exact: a masked "
					   "test whose mask fits in 32 bits, '& MASK == VALUE')",
					   sy->conds[j].arg, name);
				rc = -1;
			}
		if (rc)
			break;
		for (size_t k = 0; k < i && !rc && c->lib; k++) {
			const ir_stmt *prev = &sl->v[k];
			if (prev->u.sys.nr[a] >= 0 && (uint32_t)prev->u.sys.nr[a] == nr)
				rc = same_action_ranges(c, prev, st, name);
		}
		if (rc)
			break;
		cconj one = { sy->conds, sy->ncond };
		src *s = src_push(l, c->p, st);
		if (!c->lib)
			src_alts(c->mem, s, &one, 1, a == IR_ARCH_I386 ? 0x3f : sy->arg32);
		else if (src_from(s, &one, 1, a, sy->arg32, c->lib))
			rc = fail_big(c, st->loc, name);
	}
	ir_implies kind = ir_implied_kind(name);
	if (!rc && c->implies[kind]) {
		const ir_implied_action imp = c->implied[kind];
		/* a deny after every written statement (stable sort: it loses
		 * ties to them), as ir_decide has it */
		cconj always = { NULL, 0 };
		src *s = src_push(l, c->p, imp.by);
		s->written = imp.act.verdict;
		s->act = ir_effective(c->p, imp.act);
		if (!c->lib)
			src_alts(c->mem, s, &always, 1, 0);
		else
			src_from(s, &always, 1, a, 0, c->lib);
	}
	memset(out, 0, sizeof *out);
	if (!rc && !c->lib)
		to_rules(c->mem, l, c->sysdef, rl);
	else if (!rc && partition(l, c->sysdef, out))
		rc = fail_big(c, c->p->loc, name);
	srclist_clear(l);
	return rc;
}

/* Partition of syscall-level domain m->dom for syscall `name` (args as the
 * socket(2) lowering needs them); empty when that domain says nothing. */
static int dom_part(const ctx *c, ir_arch a, const sysevent *m, part *out, sc_rules *rl)
{
	const ir_stmt_list *sl = &c->p->dom[m->dom];
	ir_action def = dom_default(c, m->dom);
	srclist *l = &c->scratch[1];
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < sl->n; i++) {
		const ir_stmt *st = &sl->v[i];
		if (!lowered(c->p, st, c->allow_partial) || !dom_stmt_applies(st, m))
			continue;
		cconj alt[NET_ALTS];
		ir_arg_cond store[NET_ALTS][3];
		size_t na = 1;
		alt[0].c = store[0];
		alt[0].n = 0;
		if (m->dom == IR_NETWORK)
			na = net_alts(&st->u.net, alt, store);
		src *s = src_push(l, c->p, st);
		if (!c->lib) {
			src_alts(c->mem, s, alt, na, 0x3f);   /* socket(2) takes ints */
		} else if (na == 0) {           /* matches no socket(2) call */
			memset(&s->pos, 0, sizeof s->pos);
			sc_dnf_true(&s->neg);
		} else if (src_from(s, alt, na, a, 0x3f, c->lib)) {
			srclist_clear(l);
			return fail_big(c, st->loc, m->name);
		}
	}
	int rc = 0;
	if ((l->n || def.verdict != IR_ALLOW) && !c->lib)
		to_rules(c->mem, l, def, rl);
	else if (l->n || def.verdict != IR_ALLOW)
		if (partition(l, def, out))
			rc = fail_big(c, c->p->loc, m->name);
	srclist_clear(l);
	ir_arg_cond k;
	if (!rc && sysevent_cond(m, &k)) {
		if (!c->lib && rl->present)
			rules_only_when(c->mem, rl, &k);
		else if (out->n && part_only_when(out, &k))
			rc = fail_big(c, c->p->loc, m->name);
	}
	return rc;
}

static sc_sysplan *arch_push(sc_archplan *ap)
{
	xgrow(&ap->v, &ap->cap, ap->n + 1, sizeof *ap->v);
	sc_sysplan *s = &ap->v[ap->n++];
	memset(s, 0, sizeof *s);
	return s;
}

/* The syscall-level event of each known syscall number, per arch, looked up
 * once per process: planning asks for every known number of every arch. */
static const sysevent *ev_of[IR_NARCH][1024];
static pthread_once_t ev_once = PTHREAD_ONCE_INIT;

static void ev_build(void)
{
	for (int a = 0; a < IR_NARCH; a++)
		for (uint32_t i = 0; i < 1024; i++) {
			char name[64];
			uint32_t nr = a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i;
			if (sys_name((ir_arch)a, nr, name, sizeof name))
				ev_of[a][i] = sysevent_find(name);
		}
}

static const sysevent *event_of(ir_arch a, uint32_t nr, const char *name)
{
	uint32_t i = a == IR_ARCH_X32 ? nr ^ IR_X32_SYSCALL_BIT : nr;
	if (i >= 1024)
		return sysevent_find(name);
	pthread_once(&ev_once, ev_build);
	return ev_of[a][i];
}

/* Plan one syscall of arch a; adds nothing when the filter default covers it. */
static int plan_sys(const ctx *c, const sc_plan *pl, ir_arch a, uint32_t nr, sc_archplan *ap)
{
	char name[64];
	if (!sys_name(a, nr, name, sizeof name))
		return 0;
	part pt;
	sc_rules rs = { 0 }, rd = { 0 };
	if (sys_part(c, a, nr, name, &pt, &rs))
		return -1;
	const sysevent *m = event_of(a, nr, name);
	if (!c->lib) {
		if (m && dom_part(c, a, m, &pt, &rd))
			return -1;
		/* nothing to say beyond the filter's default */
		if (!rs.n && act_eq(rs.def, pl->def) && (!rd.present || (!rd.n &&
		    rd.def.verdict <= rs.def.verdict)))
			return 0;        /* their arrays stay in the arena, unused */
		sc_sysplan *s = arch_push(ap);
		s->nr = nr;
		memcpy(s->name, name, sizeof s->name);   /* sys_name: NUL-terminated in 64 */
		s->ordered = true;
		s->sys = rs;
		s->dom = rd;
		return 0;
	}
	if (m) {
		part q;
		if (dom_part(c, a, m, &q, &rd)) {
			part_free(&pt);
			return -1;
		}
		int rc = q.n ? combine(&pt, &q) : 0;
		part_free(&q);
		if (rc) {
			part_free(&pt);
			return fail_big(c, c->p->loc, name);
		}
	}
	/* Regions with the filter default's action need no rule. */
	size_t k = 0, all = pt.n;
	for (size_t i = 0; i < pt.n; i++) {
		if (act_eq(pt.v[i].act, pl->def))
			sc_dnf_free(&pt.v[i].dnf);
		else
			pt.v[k++] = pt.v[i];
	}
	pt.n = k;
	if (!pt.n) {
		part_free(&pt);
		return 0;
	}
	int mux = c->lib ? sys_multiplexed(a, nr) : -1;
	if (mux >= 0 && !sc_one_uncond_rule(ap, (uint32_t)mux)) {
		const char *via = mux == 117 ? "ipc" : "socketcall";
		src_loc at = c->p->loc;
		const ir_stmt_list *sl = &c->p->dom[IR_SYSCALL];
		for (size_t i = sl->n; i-- > 0;)
			if (sl->v[i].u.sys.nr[a] == (int)nr)
				at = sl->v[i].loc;
		diag_error(c->d, at, "seccomp: on %s, libseccomp also applies the rules "
			   "for %s (%u) to %s(2), which multiplexes it; polc builds them "
			   "only when %s itself is decided without conditions by a rule of "
			   "its own (e.g. 'deny syscall %s;', or 'allow syscall %s;' under "
			   "'default deny syscall')", ir_arch_name(a), name, nr, via, via,
			   via, via);
		part_free(&pt);
		return -1;
	}
	sc_sysplan *s = arch_push(ap);
	s->nr = nr;
	snprintf(s->name, sizeof s->name, "%s", name);
	s->v = pt.v;
	s->n = pt.n;
	s->complete = pt.n == all;
	return 0;
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* The syscall numbers of arch a that need looking at: all known ones under
 * a deny default (their errno differs from the unknown ones' ENOSYS), else
 * those some lowered statement or syscall-level default speaks about. */
static size_t candidates(const ctx *c, ir_arch a, uint32_t **out)
{
	uint32_t base = a == IR_ARCH_X32 ? IR_X32_SYSCALL_BIT : 0;
	size_t n = 0, cap = 0;
	uint32_t *v = NULL;
	if (c->sysdef.verdict == IR_DENY) {
		const uint8_t *known = sys_known_table(a);
		v = xmalloc(1024 * sizeof *v);
		for (uint32_t i = 0; i < 1024; i++)
			if (known[i])
				v[n++] = base + i;
		*out = v;
		return n;
	}
	const ir_stmt_list *sl = &c->p->dom[IR_SYSCALL];
	for (size_t i = 0; i < sl->n; i++)
		if (sl->v[i].u.sys.nr[a] >= 0) {
			xgrow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (uint32_t)sl->v[i].u.sys.nr[a];
		}
	size_t nevmap;
	const sysevent *evmap = sysevent_table(&nevmap);
	for (size_t i = 0; i < nevmap; i++) {
		int nr = sys_resolve(a, evmap[i].name);
		if (nr < 0)
			continue;
		bool any = dom_default(c, evmap[i].dom).verdict != IR_ALLOW;
		const ir_stmt_list *dl = &c->p->dom[evmap[i].dom];
		for (size_t j = 0; j < dl->n && !any; j++)
			any = lowered(c->p, &dl->v[j], c->allow_partial);
		if (any) {
			xgrow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (uint32_t)nr;
		}
	}
	static const char *const implied[] = { "clone3", "io_uring_setup", "io_uring_enter",
					       "io_uring_register" };
	for (size_t i = 0; i < sizeof implied / sizeof *implied; i++) {
		int nr = sys_resolve(a, implied[i]);
		if (nr >= 0 && c->implies[ir_implied_kind(implied[i])]) {
			xgrow(&v, &cap, n + 1, sizeof *v);
			v[n++] = (uint32_t)nr;
		}
	}
	xqsort(v, n, sizeof *v, cmp_u32);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	return k;
}

int sc_plan_build(const ir_policy *p, bool allow_partial, diag_ctx *d, sc_plan *out)
{
	return sc_plan_build_for(p, allow_partial, true, d, out);
}

int sc_plan_build_for(const ir_policy *p, bool allow_partial, bool libseccomp, diag_ctx *d,
		      sc_plan *out)
{
	memset(out, 0, sizeof *out);
	out->mem = arena_new();
	srclist scratch[2] = { { 0 } };
	ctx c = { .p = p, .allow_partial = allow_partial, .d = d,
		  .sysdef = ir_effective(p, p->defaults[IR_SYSCALL]), .lib = libseccomp,
		  .scratch = scratch, .mem = out->mem };
	for (int k = 0; k < IR_NIMPLIES; k++)
		c.implies[k] = ir_implied_of(p, (ir_implies)k, &c.implied[k]);
	out->def = c.sysdef;
	if (c.sysdef.verdict == IR_DENY)
		out->def.err = ENOSYS;  /* unknown syscalls; known ones get rules */
	ir_action bad = { IR_KILL, 0 };   /* ir_decide: unnamed ABIs are killed */
	out->badarch = ir_effective(p, bad);
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(p->arches & IR_ARCH_BIT(a)))
			continue;
		out->arch[a].present = true;
		uint32_t *nrs;
		size_t n = candidates(&c, (ir_arch)a, &nrs);
		/* room for every candidate at once: no copying as it grows */
		xgrow(&out->arch[a].v, &out->arch[a].cap, n + 1, sizeof *out->arch[a].v);
		index_by_nr(&c, (ir_arch)a);
		for (size_t i = 0; i < n; i++)
			if (plan_sys(&c, out, (ir_arch)a, nrs[i], &out->arch[a])) {
				free(nrs);
				free(c.by_nr);
				srclist_free(&scratch[0]);
				srclist_free(&scratch[1]);
				sc_plan_free(out);
				return -1;
			}
		free(nrs);
	}
	free(c.by_nr);
	srclist_free(&scratch[0]);
	srclist_free(&scratch[1]);
	return 0;
}

void sc_plan_free(sc_plan *pl)
{
	for (int a = 0; a < IR_NARCH; a++) {
		for (size_t i = 0; i < pl->arch[a].n; i++) {
			sc_sysplan *s = &pl->arch[a].v[i];
			if (s->ordered)
				continue;  /* its rules are in pl->mem */
			for (size_t j = 0; j < s->n; j++)
				sc_dnf_free(&s->v[j].dnf);
			free(s->v);
		}
		free(pl->arch[a].v);
	}
	arena_free(pl->mem);
	memset(pl, 0, sizeof *pl);
}

support sc_classify(const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	return classify(p, s);
}

/* A default is judged as a statement of its domain that matches every
 * event: what seccomp sees of such a statement, it sees of the default
 * (file, exec and capability defaults were dropped in silence before). */
support sc_classify_default(const ir_policy *p, backend_facts f, ir_domain dom)
{
	ir_stmt all;
	memset(&all, 0, sizeof all);
	all.domain = dom;
	all.action = p->defaults[dom];
	if (dom == IR_NETWORK)
		all.u.net.op = IR_NET_ANYOP;
	return classify(p, &all);
}
