/* bundle.c - see bundle.h: lowering, the bundle file, validation. The
 * evaluator is in eval.c, the JSON rendering in bundle_json.c. */
#include "bundle.h"
#include "dfa.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ decisions */

uint32_t bpfb_decision(const ir_policy *p, ir_action a, uint32_t id)
{
	/* The raw verdict: ir_decide ranks statements before the mode is
	 * applied; polc_apply_mode() lowers deny/kill under `mode audit`. */
	(void)p;
	uint32_t v = a.verdict == IR_ALLOW ? POLC_V_ALLOW :
		     a.verdict == IR_AUDIT ? POLC_V_AUDIT :
		     a.verdict == IR_DENY ? POLC_V_DENY : POLC_V_KILL;
	/* the word holds 1..4095 (the language's range); anything else is EPERM,
	 * never a value the mask would turn into 0, an allow */
	int err = v >= POLC_V_DENY ? (a.err > 0 && a.err <= 0xfff ? a.err : EPERM) : 0;
	return POLC_DEC(v, err, id);
}

static uint32_t stmt_base(const ir_policy *p, int dom)
{
	uint32_t n = 0;
	for (int d = 0; d < dom; d++)
		n += (uint32_t)p->dom[d].n;
	return n;
}

const ir_stmt *bpfb_stmt(const ir_policy *p, uint32_t id)
{
	for (int d = 0; d < IR_NDOMAIN; d++) {
		if (id < p->dom[d].n)
			return &p->dom[d].v[id];
		id -= (uint32_t)p->dom[d].n;
	}
	return NULL;
}

static uint32_t dflt(const ir_policy *p, int dom)
{
	return bpfb_decision(p, p->defaults[dom], POLC_STMT_DEFAULT);
}

/* Keep the winner of a and b; `hit` says whether *cur holds a statement. */
static void pick(uint32_t *cur, bool *hit, uint32_t dec)
{
	if (!*hit || polc_dec_wins(dec, *cur))
		*cur = dec;
	*hit = true;
}

/* ---------------------------------------------------------------- words */

typedef struct { uint32_t *v; size_t n, cap; } words;

static uint32_t w_append(words *w, const uint32_t *src, size_t n)
{
	xgrow(&w->v, &w->cap, w->n + n, sizeof *w->v);
	if (src)
		memcpy(w->v + w->n, src, n * 4);
	else
		memset(w->v + w->n, 0, n * 4);
	uint32_t off = (uint32_t)w->n;
	w->n += n;
	return off;
}

static size_t dfa_words(const dfa *d)
{
	return (size_t)d->nstates * d->ncls + d->nstates + (size_t)d->nentries * d->nchan;
}

/* The blob's transitions name the target's row, not its number
 * (bpf_layout.h: polc_row): dfa.c's table, once in the blob, rewritten.
 * Its dead bit goes with it; dead_bits sets them all again. */
static void rows_of_targets(uint32_t *t, size_t n, const struct polc_dfa *h)
{
	for (size_t i = 0; i < n; i++)
		t[i] = polc_row(h, t[i] & ~POLC_TRANS_DEAD) | (t[i] & POLC_TRANS_DEAD);
}

static uint32_t target_of(const uint32_t *w, const struct polc_dfa *d, uint32_t s, uint32_t c)
{
	return polc_row_state(d, w[polc_row(d, s) + c] & POLC_TRANS_ROW);
}

/* Per state of the DFA d in blob w (rows valid), the channels live in it:
 * bit c when some state reachable from it, itself included, decides
 * channel c otherwise than entry 0 (bpf_layout.h: polc_dead_bits). Each
 * state's own, then carried back to its predecessors until nothing grows. */
static uint32_t *live_channels(const uint32_t *w, const struct polc_dfa *d)
{
	uint32_t n = d->nstates, m = d->ncls, nc = d->nchan < 32 ? d->nchan : 32;
	uint32_t *live = xcalloc(n, sizeof *live);
	for (uint32_t s = 0; s < n; s++) {
		const uint32_t *e = w + d->entries +
				    (size_t)POLC_ACC_ENTRY(w[d->accept + s]) * d->nchan;
		for (uint32_t c = 0; c < nc; c++)
			if (e[c] != w[d->entries + c])
				live[s] |= 1u << c;
	}
	/* predecessors, by target (counting sort) */
	size_t *at = xcalloc((size_t)n + 1, sizeof *at);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t c = 0; c < m; c++)
			at[target_of(w, d, s, c) + 1]++;
	for (uint32_t t = 0; t < n; t++)
		at[t + 1] += at[t];
	uint32_t *pred = xmalloc(((size_t)n * m + 1) * sizeof *pred);
	size_t *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
	memcpy(fill, at, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t c = 0; c < m; c++)
			pred[fill[target_of(w, d, s, c)]++] = s;
	uint32_t *stack = xmalloc(((size_t)n + 1) * sizeof *stack);
	bool *queued = xcalloc((size_t)n + 1, sizeof *queued);
	size_t top = 0;
	for (uint32_t s = 0; s < n; s++)
		if (live[s]) {
			stack[top++] = s;
			queued[s] = true;
		}
	while (top) {
		uint32_t t = stack[--top];
		queued[t] = false;
		for (size_t k = at[t]; k < at[t + 1]; k++) {
			uint32_t p = pred[k];
			if ((live[p] | live[t]) == live[p])
				continue;
			live[p] |= live[t];
			if (!queued[p]) {
				stack[top++] = p;
				queued[p] = true;
			}
		}
	}
	free(at);
	free(pred);
	free(fill);
	free(stack);
	free(queued);
	return live;
}

/* The dead bits a transition into a state with live channels `live`
 * carries: the file DFA's per channel group, the mount DFA's bit 31 only. */
static uint32_t dead_bits_of(uint32_t live, bool file)
{
	return file ? polc_dead_bits(live) : live ? 0 : POLC_TRANS_DEAD;
}

/* Set every transition's and accept word's dead bits (rows in place). */
static void mark_dead(uint32_t *w, const struct polc_dfa *d, bool file)
{
	uint32_t *live = live_channels(w, d);
	for (uint32_t s = 0; s < d->nstates; s++) {
		uint32_t *a = &w[d->accept + s];
		*a = POLC_ACC_ENTRY(*a) | dead_bits_of(live[s], file);
		for (uint32_t c = 0; c < d->ncls; c++) {
			uint32_t *t = &w[polc_row(d, s) + c];
			uint32_t to = target_of(w, d, s, c);
			*t = (*t & POLC_TRANS_ROW) | dead_bits_of(live[to], file);
		}
	}
	free(live);
}

/* Whether every transition and accept word carries exactly the dead bits
 * its state's live channels give (rows and entries already checked). */
static bool dead_bits_hold(const uint32_t *w, const struct polc_dfa *d, bool file)
{
	uint32_t *live = live_channels(w, d);
	bool ok = true;
	for (uint32_t s = 0; s < d->nstates && ok; s++) {
		ok = (w[d->accept + s] & POLC_ACC_DEAD_BITS) == dead_bits_of(live[s], file);
		for (uint32_t c = 0; c < d->ncls && ok; c++) {
			uint32_t t = w[polc_row(d, s) + c];
			ok = (t & ~POLC_TRANS_ROW) == dead_bits_of(live[target_of(w, d, s, c)], file);
		}
	}
	free(live);
	return ok;
}

static void put_dfa(words *w, const dfa *d, struct polc_dfa *h, uint8_t *cls, bool file)
{
	h->nstates = d->nstates;
	h->ncls = d->ncls;
	h->nchan = d->nchan;
	h->nentries = d->nentries;
	h->start = d->start;
	h->worst = d->worst;
	size_t nt = (size_t)d->nstates * d->ncls;
	if (d->trans == w->v + w->n) {   /* built in place (place_file) */
		h->trans = (uint32_t)w->n;
		w->n += nt;
	} else {
		h->trans = w_append(w, d->trans, nt);
	}
	rows_of_targets(w->v + h->trans, nt, h);
	h->accept = w_append(w, d->accept, d->nstates);
	h->entries = w_append(w, d->entries, (size_t)d->nentries * d->nchan);
	mark_dead(w->v, h, file);
	memcpy(cls, d->cls, 256);
}

/* ------------------------------------------------------------- lowering */

static int lower_files(const ir_policy *p, dfa_place_fn place, dfa_reserve_fn reserve,
		       void *ctx, dfa *out, diag_ctx *dg)
{
	dfa_patset ps;
	dfa_patset_init(&ps);
	size_t npat = 0, ntok = 0;
	for (int dom = IR_FILE; dom <= IR_EXEC; dom++)
		for (size_t i = 0; i < p->dom[dom].n; i++, npat++)
			ntok += strlen(p->dom[dom].v[i].u.file.glob) + 1;
	dfa_patset_reserve(&ps, npat, ntok);   /* exact without braces */
	for (int dom = IR_FILE; dom <= IR_EXEC; dom++) {
		uint32_t base = stmt_base(p, dom);
		for (size_t i = 0; i < p->dom[dom].n; i++) {
			const ir_stmt *s = &p->dom[dom].v[i];
			uint32_t mask = dom == IR_EXEC ? 1u << POLC_CH_EXEC :
					s->u.file.perms & IR_PERM_ALL;
			const char *e = dfa_add_glob(&ps, NULL, 0, s->u.file.glob, mask,
						     bpfb_decision(p, s->action, base + (uint32_t)i));
			if (e) {
				diag_error(dg, s->loc, "bpf: %s", e);
				dfa_patset_free(&ps);
				return -1;
			}
		}
	}
	uint32_t defs[POLC_NCHAN];
	for (int c = 0; c < POLC_NCHAN; c++)
		defs[c] = dflt(p, c == POLC_CH_EXEC ? IR_EXEC : IR_FILE);
	const char *e = dfa_build_at(&ps, POLC_NCHAN, defs, POLC_MAX_STATES, place, reserve, ctx,
				     out);
	dfa_patset_free(&ps);
	if (e) {
		diag_error(dg, p->loc, "bpf: policy %s: the file and exec %s (%u)",
			   p->name, e, POLC_MAX_STATES);
		return -1;
	}
	return 0;
}

static int lower_mounts(const ir_policy *p, dfa *out, diag_ctx *dg)
{
	dfa_patset ps;
	dfa_patset_init(&ps);
	uint32_t base = stmt_base(p, IR_MOUNT);
	for (size_t i = 0; i < p->dom[IR_MOUNT].n; i++) {
		const ir_stmt *s = &p->dom[IR_MOUNT].v[i];
		uint32_t dec = bpfb_decision(p, s->action, base + (uint32_t)i);
		const ir_mount *m = &s->u.mount;
		uint8_t op = m->op == IR_MOUNT_MOUNT ? POLC_MOUNT_OP_MOUNT :
			     m->op == IR_MOUNT_UMOUNT ? POLC_MOUNT_OP_UMOUNT : POLC_MOUNT_OP_PIVOT;
		size_t nfs = m->op == IR_MOUNT_MOUNT && m->nfstype ? m->nfstype : 1;
		for (size_t f = 0; f < nfs; f++) {
			dfa_tok pre[POLC_FSTYPE_MAX + 2];
			size_t n = 0;
			dfa_tok_lit(&pre[n++], op);
			if (m->op == IR_MOUNT_MOUNT && m->nfstype) {
				const char *fs = m->fstypes[f];
				if (strlen(fs) >= POLC_FSTYPE_MAX) {
					diag_error(dg, s->loc, "bpf: fstype '%s' longer than %u bytes",
						   fs, POLC_FSTYPE_MAX - 1);
					dfa_patset_free(&ps);
					return -1;
				}
				for (; *fs; fs++)
					dfa_tok_lit(&pre[n++], (uint8_t)*fs);
			} else if (m->op == IR_MOUNT_MOUNT) {
				dfa_tok_all(&pre[n], true);   /* any fstype: no '\n' */
				pre[n].set[POLC_MOUNT_SEP >> 3] &= (uint8_t)~(1u << (POLC_MOUNT_SEP & 7));
				n++;
			}
			dfa_tok_lit(&pre[n++], POLC_MOUNT_SEP);
			if (m->target) {
				const char *e = dfa_add_glob(&ps, pre, n, m->target, 1, dec);
				if (e) {
					diag_error(dg, s->loc, "bpf: %s", e);
					dfa_patset_free(&ps);
					return -1;
				}
			} else {
				dfa_tok_all(&pre[n++], true);
				dfa_add_tokens(&ps, pre, n, 1, dec);
			}
		}
	}
	uint32_t def = dflt(p, IR_MOUNT);
	const char *e = dfa_build(&ps, 1, &def, POLC_MAX_STATES, out);
	dfa_patset_free(&ps);
	if (e) {
		diag_error(dg, p->loc, "bpf: policy %s: the mount %s (%u)", p->name, e,
			   POLC_MAX_STATES);
		return -1;
	}
	return 0;
}

static void lower_net(const ir_policy *p, words *w, struct polc_hdr *h)
{
	uint32_t base = stmt_base(p, IR_NETWORK);
	w_append(w, NULL, (POLC_NET_WORDS - w->n % POLC_NET_WORDS) % POLC_NET_WORDS);
	h->net = (uint32_t)w->n;   /* aligned: a rule never crosses a chunk */
	h->nnet = (uint32_t)p->dom[IR_NETWORK].n;
	for (size_t i = 0; i < p->dom[IR_NETWORK].n; i++) {
		const ir_stmt *s = &p->dom[IR_NETWORK].v[i];
		const ir_network *n = &s->u.net;
		uint32_t r[POLC_NET_WORDS] = { 0 };
		uint32_t fl = (n->has_addr ? POLC_NETF_ADDR : 0) | (n->has_port ? POLC_NETF_PORT : 0);
		r[0] = (uint32_t)n->op | (uint32_t)(n->family & 0xff) << 8 |
		       (uint32_t)n->proto << 16 | fl << 24;
		if (n->has_addr) {
			r[1] = (uint32_t)n->addr.prefix | (uint32_t)(n->addr.family & 0xff) << 8;
			memcpy(&r[2], n->addr.addr, 16);
		}
		if (n->has_port)
			r[6] = n->port_lo | (uint32_t)n->port_hi << 16;
		r[7] = bpfb_decision(p, s->action, base + (uint32_t)i);
		w_append(w, r, POLC_NET_WORDS);
	}
}

/* The families whose sends without an address need no deciding: every
 * reply a server writes on a connected socket passes socket_sendmsg, which
 * would otherwise walk every network rule (lab redis: ~1,100 guest
 * instructions a reply under the presets, whose network statements all
 * name an address or another family). */
static void lower_send_open(const ir_policy *p, struct polc_hdr *h)
{
	for (int f = 0; f < 64; f++)
		if (ir_net_unaddressed_allowed(p, IR_NET_SEND, f))
			h->send_open[f / 32] |= 1u << (f % 32);
}

static void lower_simple(const ir_policy *p, struct polc_hdr *h)
{
	uint32_t base = stmt_base(p, IR_CAPABILITY);
	for (int c = 0; c < 64; c++) {
		bool hit = false;
		h->caps[c] = dflt(p, IR_CAPABILITY);
		for (size_t i = 0; i < p->dom[IR_CAPABILITY].n; i++) {
			const ir_stmt *s = &p->dom[IR_CAPABILITY].v[i];
			if (s->u.cap.caps >> c & 1)
				pick(&h->caps[c], &hit, bpfb_decision(p, s->action, base + (uint32_t)i));
		}
	}
	base = stmt_base(p, IR_PTRACE);
	for (int m = 0; m < 2; m++) {
		bool hit = false;
		unsigned bit = m ? IR_PTRACE_TRACE : IR_PTRACE_READ;
		h->ptrace[m] = dflt(p, IR_PTRACE);
		for (size_t i = 0; i < p->dom[IR_PTRACE].n; i++) {
			const ir_stmt *s = &p->dom[IR_PTRACE].v[i];
			if (s->u.ptrace.modes & bit)
				pick(&h->ptrace[m], &hit, bpfb_decision(p, s->action, base + (uint32_t)i));
		}
	}
	base = stmt_base(p, IR_SIGNAL);
	bool hit = false;
	h->signal = dflt(p, IR_SIGNAL);
	for (size_t i = 0; i < p->dom[IR_SIGNAL].n; i++) {
		const ir_stmt *s = &p->dom[IR_SIGNAL].v[i];
		if (!s->u.signal.peer)   /* peer globs: not enforced (classify) */
			pick(&h->signal, &hit, bpfb_decision(p, s->action, base + (uint32_t)i));
	}
	for (int d = 0; d < POLC_ND; d++)
		h->defaults[d] = dflt(p, d);
}

/* An upper bound of put_meta's length (its room is made once: a
 * 100,000-statement policy's metadata is megabytes). */
static size_t meta_bound(const ir_policy *p, const char *header)
{
	size_t n = 128 + (header ? strlen(header) : 0) + strlen(p->name) + IR_SOURCE_HASH_SIZE;
	const char *path = NULL;
	size_t plen = 0;
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			if (s->loc.file && s->loc.file->path != path) {
				path = s->loc.file->path;
				plen = strlen(path);
			}
			n += 3 * 11 + 16 + strlen(ir_domain_name(s->domain)) +
			     strlen(ir_verdict_name(s->action.verdict)) + (s->loc.file ? plen : 1) +
			     (s->rule ? strlen(s->rule) : 1);
		}
	return n;
}

static void put_meta(const ir_policy *p, const char *header, buf *m)
{
	buf_printf(m, "polc-bpf-bundle %u\n", BPFB_FILE_VERSION);
	if (header)
		buf_puts(m, header);
	char hash[IR_SOURCE_HASH_SIZE];
	buf_printf(m, "policy %s\nmode %s\nsource-hash %s\n", p->name,
		   p->mode == IR_MODE_AUDIT ? "audit" : "enforce", ir_source_hash(p, hash));
	/* "stmt ID DOMAIN VERDICT FILE:LINE:COL RULE" (or "-" for a missing
	 * location or rule): puts, no formatter, a line per statement */
	uint32_t id = 0;
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++, id++) {
			const ir_stmt *s = &p->dom[d].v[i];
			buf_puts(m, "stmt ");
			buf_put_dec(m, id);
			buf_puts(m, " ");
			buf_puts(m, ir_domain_name(s->domain));
			buf_puts(m, " ");
			buf_puts(m, ir_verdict_name(s->action.verdict));
			buf_puts(m, " ");
			if (s->loc.file) {
				buf_puts(m, s->loc.file->path);
				buf_puts(m, ":");
				buf_put_dec(m, s->loc.line);
				buf_puts(m, ":");
				buf_put_dec(m, s->loc.col);
			} else {
				buf_puts(m, "-");
			}
			buf_puts(m, " ");
			buf_puts(m, s->rule ? s->rule : "-");
			buf_puts(m, "\n");
		}
}

/* Where the blob's words go: room for at least n words. */
typedef uint32_t *(*blob_alloc_fn)(void *ctx, size_t n);

typedef struct {
	const ir_policy *p;
	const dfa *md;
	words *w;
	blob_alloc_fn alloc;
	void *actx;
	bool grows;             /* alloc grows one room, keeping its contents
	                           (the file's buffer), so it can reserve */
} place_ctx;

/* The blob's words after the file DFA's table: its accept and entries
 * words, the mount DFA, the network rules. */
static size_t words_after_trans(const place_ctx *c, const dfa *fd, size_t nentries)
{
	return (size_t)fd->nstates + nentries * fd->nchan + dfa_words(c->md) + POLC_NET_WORDS +
	       (size_t)c->p->dom[IR_NETWORK].n * POLC_NET_WORDS;
}

/* The whole blob is allocated once the file DFA's size is known (the
 * mount DFA is built first), and the file DFA's table, the blob's first
 * after the header, is written straight into it. */
static uint32_t *place_file(void *vctx, const dfa *fd)
{
	place_ctx *c = vctx;
	size_t n = POLC_HDR_WORDS + (size_t)fd->nstates * fd->ncls +
		   words_after_trans(c, fd, fd->nentries);
	c->w->v = c->alloc(c->actx, n);
	c->w->cap = n;
	c->w->n = 0;
	w_append(c->w, NULL, POLC_HDR_WORDS);
	return c->w->v + POLC_HDR_WORDS;
}

/* Room for a file DFA of up to rows states, where place_file will put it
 * (the blob reserved, not written: untouched room costs no memory). A DFA
 * has at most one entry per state, plus the defaults and the worst. */
static uint32_t *reserve_file(void *vctx, const dfa *fd, size_t rows)
{
	place_ctx *c = vctx;
	dfa bound = *fd;
	bound.nstates = (uint32_t)rows;
	size_t n = POLC_HDR_WORDS + rows * fd->ncls + words_after_trans(c, &bound, rows + 2);
	return c->alloc(c->actx, n) + POLC_HDR_WORDS;
}

/* The mount DFA is built before the file DFA, but a file error is the one
 * reported when both fail (as when files came first). */
static int lower_dfas(const ir_policy *p, place_ctx *pc, dfa *fd, dfa *md, diag_ctx *dg)
{
	diag_ctx mdg;
	diag_init(&mdg);
	int rc = 0;
	if (lower_mounts(p, md, &mdg) < 0) {
		rc = -1;
		if (lower_files(p, NULL, NULL, NULL, fd, dg) == 0) {
			dfa_free(fd);
			for (size_t i = 0; i < mdg.n; i++)
				diag_add(dg, mdg.v[i].sev, mdg.v[i].loc, "%s", mdg.v[i].msg);
		}
	} else {
		pc->md = md;
		if (lower_files(p, place_file, pc->grows ? reserve_file : NULL, pc, fd, dg) < 0) {
			dfa_free(md);
			rc = -1;
		}
	}
	diag_free(&mdg);
	return rc;
}

/* A decision word other than a plain allow (deny, audit, kill). */
static bool decides(uint32_t dec)
{
	return POLC_DEC_VERDICT(dec) != POLC_V_ALLOW;
}

/* The file channels every path is allowed on: those the worst entry (the
 * most restrictive decision reachable, defaults included) allows. */
static uint32_t chans_open(const uint32_t *w, const struct polc_dfa *d)
{
	uint32_t m = 0;
	for (uint32_t c = 0; c < d->nchan && c < 32; c++)
		if (!decides(w[d->entries + d->worst * d->nchan + c]))
			m |= 1u << c;
	return m;
}

/* Beyond this many states, or (state, length, class) steps, exec_name_lens
 * keeps every bit: the enforcer then builds every exec group path. */
#define EXEC_LENS_STATES 65536u
#define EXEC_LENS_STEPS (64u << 20)

static bool group_decides(const uint32_t *w, const struct polc_dfa *d, uint32_t s)
{
	const uint32_t *dec = w + d->entries + POLC_ACC_ENTRY(w[d->accept + s]) * d->nchan;
	for (uint32_t c = 0; c < d->nchan; c++)
		if ((POLC_EXEC_GROUP >> c & 1) && decides(dec[c]))
			return true;
	return false;
}

/* Queue state s at last-name length k (q: state << 6 | k) unless seen. */
static void lens_visit(uint64_t *seen, uint32_t *q, uint32_t *qn, uint32_t s, uint32_t k)
{
	if (seen[s] >> k & 1)
		return;
	seen[s] |= 1ull << k;
	q[(*qn)++] = s << 6 | k;
}

/* The header's exec_lens (bpf_layout.h): the lengths, capped at 63, of the
 * last names of paths the exec group's channels may decide. A last name is
 * what follows the path's last '/' (or the start, for a path with none):
 * its walk starts in the start state or in one a '/' leads to from any
 * reachable state, and goes on bytes other than '/' and NUL; the walk's
 * end, or one '/' more (a directory's "name/"), decides. A superset of the
 * paths the enforcer meets, so a clear bit is sound. */
static void exec_name_lens(const uint32_t *w, const struct polc_dfa *d, const uint8_t *cls,
			   uint32_t out[2])
{
	uint32_t n = d->nstates;
	if (n > EXEC_LENS_STATES || (uint64_t)n * 64 * d->ncls > EXEC_LENS_STEPS) {
		out[0] = out[1] = ~0u;
		return;
	}
	bool name_cls[256] = { false };
	for (int b = 1; b < 256; b++)
		if (b != '/')
			name_cls[cls[b]] = true;
	uint32_t slash = cls['/'], qn = 0;
	uint64_t *seen = xcalloc(n, sizeof *seen);   /* bit k: (state, length k) queued */
	uint32_t *q = xmalloc((size_t)n * 64 * sizeof *q);
	/* the reachable states, in q as (state, 0) */
	lens_visit(seen, q, &qn, d->start, 0);
	for (uint32_t i = 0; i < qn; i++)
		for (uint32_t c = 0; c < d->ncls; c++)
			lens_visit(seen, q, &qn, target_of(w, d, q[i] >> 6, c), 0);
	uint32_t nreach = qn;
	uint8_t *starts = xcalloc(n, 1);
	starts[d->start] = 1;
	for (uint32_t i = 0; i < nreach; i++)
		starts[target_of(w, d, q[i] >> 6, slash)] = 1;
	memset(seen, 0, (size_t)n * sizeof *seen);
	qn = 0;
	for (uint32_t s = 0; s < n; s++)
		if (starts[s])
			lens_visit(seen, q, &qn, s, 0);
	uint64_t m = 0;
	for (uint32_t i = 0; i < qn; i++) {
		uint32_t s = q[i] >> 6, k = q[i] & 63, k1 = k < 63 ? k + 1 : 63;
		if (group_decides(w, d, s) || group_decides(w, d, target_of(w, d, s, slash)))
			m |= 1ull << k;
		for (uint32_t c = 0; c < d->ncls; c++)
			if (name_cls[c])
				lens_visit(seen, q, &qn, target_of(w, d, s, c), k1);
	}
	free(starts);
	free(q);
	free(seen);
	out[0] = (uint32_t)m;
	out[1] = (uint32_t)(m >> 32);
}

/* The blob of p, header included, into words from alloc. */
static int lower_blob(const ir_policy *p, blob_alloc_fn alloc, bool grows, void *actx,
		      words *w, diag_ctx *dg)
{
	uint32_t nstmts = stmt_base(p, IR_NDOMAIN);
	if (nstmts > POLC_MAX_STMTS) {
		/* at the first statement the decision words cannot name */
		diag_error(dg, bpfb_stmt(p, POLC_MAX_STMTS)->loc, "bpf: policy %s has %u "
			   "statements, more than the limit of %u (the enforcer's decision "
			   "words name their statement in 18 bits)",
			   p->name, nstmts, POLC_MAX_STMTS);
		return -1;
	}
	dfa fd, md;
	place_ctx pc = { .p = p, .w = w, .alloc = alloc, .actx = actx, .grows = grows };
	if (lower_dfas(p, &pc, &fd, &md, dg) < 0)
		return -1;
	struct polc_hdr h;
	memset(&h, 0, sizeof h);
	uint8_t fcls[256], mcls[256];
	put_dfa(w, &fd, &h.file, fcls, true);
	put_dfa(w, &md, &h.mount, mcls, false);
	h.chan_open = chans_open(w->v, &h.file);
	exec_name_lens(w->v, &h.file, fcls, h.exec_lens);
	dfa_free(&fd);
	dfa_free(&md);
	lower_net(p, w, &h);
	lower_simple(p, &h);
	lower_send_open(p, &h);
	h.magic = POLC_BLOB_MAGIC;
	h.version = POLC_BLOB_VERSION;
	h.mode = p->mode == IR_MODE_AUDIT;
	h.nstmts = nstmts;
	h.blob_words = (uint32_t)w->n;
	if (w->n > POLC_MAX_BLOB_WORDS) {
		diag_error(dg, p->loc, "bpf: policy %s needs %zu map words, more than the "
			   "limit of %u (file DFA %u states x %u byte classes)",
			   p->name, w->n, POLC_MAX_BLOB_WORDS, h.file.nstates, h.file.ncls);
		return -1;
	}
	memcpy(w->v, &h, sizeof h);
	memcpy((uint8_t *)(w->v + POLC_CLS_FILE_OFF), fcls, 256);
	memcpy((uint8_t *)(w->v + POLC_CLS_MOUNT_OFF), mcls, 256);
	return 0;
}

static uint32_t *alloc_words(void *ctx, size_t n)
{
	(void)ctx;
	return xmalloc(n * sizeof(uint32_t));
}

int bpfb_lower(const ir_policy *p, const char *header, bpf_bundle *out,
	       bpfb_stats *st, diag_ctx *dg)
{
	memset(out, 0, sizeof *out);
	words w = { 0 };
	if (lower_blob(p, alloc_words, false, NULL, &w, dg) < 0) {
		free(w.v);
		return -1;
	}
	out->w = w.v;
	out->nwords = w.n;
	buf m;
	buf_init(&m);
	xgrow(&m.data, &m.cap, meta_bound(p, header), 1);
	put_meta(p, header, &m);
	out->metalen = m.len;
	out->meta = buf_cstr(&m);
	if (st)
		bpfb_get_stats(out, st);
	return 0;
}

void bpfb_free(bpf_bundle *b)
{
	free(b->w);
	free(b->meta);
	memset(b, 0, sizeof *b);
}

void bpfb_get_stats(const bpf_bundle *b, bpfb_stats *st)
{
	const struct polc_hdr *h = (const void *)b->w;
	st->file_states = h->file.nstates;
	st->file_cls = h->file.ncls;
	st->file_entries = h->file.nentries;
	st->mount_states = h->mount.nstates;
	st->mount_cls = h->mount.ncls;
	st->mount_entries = h->mount.nentries;
	st->nnet = h->nnet;
	st->nstmts = h->nstmts;
	st->blob_bytes = (b->nwords + POLC_CHUNK_WORDS - 1) / POLC_CHUNK_WORDS * 4096;
}

/* ------------------------------------------------------------ the file */

static void put_u32(buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	buf_put(b, x, 4);
}

static uint32_t get_u32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The file header in front of a body already at out->data + out->len +
 * BPFB_FILE_HDR: nwords blob words (little endian) then metalen bytes of
 * metadata, checksummed in place (a 100,000-statement bundle is tens of
 * megabytes: no second copy). */
static void seal(buf *out, size_t nwords, size_t metalen)
{
	size_t nbody = nwords * 4 + metalen, at = out->len;
	buf_put(out, BPFB_FILE_MAGIC, 8);
	put_u32(out, BPFB_FILE_VERSION);
	put_u32(out, (uint32_t)nwords);
	put_u32(out, (uint32_t)metalen);
	put_u32(out, 0);
	char hex[65];
	sha256_hex(out->data + at + BPFB_FILE_HDR, nbody, hex);
	memcpy(out->data + out->len, hex, 64);
	out->len = at + BPFB_FILE_HDR + nbody;
	out->data[out->len] = 0;
}

/* Room for a file of nwords words and metalen bytes at the end of out. */
static uint8_t *file_room(buf *out, size_t nwords, size_t metalen)
{
	xgrow(&out->data, &out->cap, out->len + BPFB_FILE_HDR + nwords * 4 + metalen + 1, 1);
	return (uint8_t *)out->data + out->len + BPFB_FILE_HDR;
}

/* Host-order words to little endian, in place. */
static void words_le(uint32_t *w, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (size_t i = 0; i < n; i++)
		w[i] = __builtin_bswap32(w[i]);
#else
	(void)w;
	(void)n;
#endif
}

void bpfb_serialize(const bpf_bundle *b, buf *out)
{
	uint8_t *body = file_room(out, b->nwords, b->metalen);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	for (size_t i = 0; i < b->nwords; i++)
		for (int k = 0; k < 4; k++)
			body[4 * i + k] = (uint8_t)(b->w[i] >> 8 * k);
#else
	memcpy(body, b->w, b->nwords * 4);
#endif
	memcpy(body + b->nwords * 4, b->meta, b->metalen);
	seal(out, b->nwords, b->metalen);
}

typedef struct {
	buf *out;
	size_t metalen;
} file_ctx;

static uint32_t *alloc_in_file(void *ctx, size_t n)
{
	file_ctx *c = ctx;
	return (uint32_t *)(void *)file_room(c->out, n, c->metalen);
}

int bpfb_emit_file(const ir_policy *p, const char *header, buf *out, diag_ctx *dg)
{
	/* the words are built where the file holds them: 4-byte aligned when
	 * out's length is (malloc's blocks are) */
	if (out->len % 4) {
		bpf_bundle b;
		if (bpfb_lower(p, header, &b, NULL, dg) < 0)
			return -1;
		bpfb_serialize(&b, out);
		bpfb_free(&b);
		return 0;
	}
	size_t at = out->len;
	file_ctx fc = { out, meta_bound(p, header) };
	words w = { 0 };
	if (lower_blob(p, alloc_in_file, true, &fc, &w, dg) < 0)
		return -1;
	words_le(w.v, w.n);
	/* the metadata is written after the words, in the file itself */
	size_t meta_at = at + BPFB_FILE_HDR + w.n * 4;
	out->len = meta_at;
	put_meta(p, header, out);
	size_t metalen = out->len - meta_at;
	out->len = at;
	seal(out, w.n, metalen);
	return 0;
}

const char *bpfb_parse(const void *data, size_t len, bpf_bundle *out)
{
	const uint8_t *p = data;
	memset(out, 0, sizeof *out);
	/* a bundle cut inside its header is "truncated", not "bad magic" */
	if (!len || memcmp(p, BPFB_FILE_MAGIC, len < 8 ? len : 8))
		return "not a polc BPF bundle (bad magic)";
	if (len < BPFB_FILE_HDR)
		return "bundle truncated inside its header";
	if (get_u32(p + 8) != BPFB_FILE_VERSION)
		return "unsupported bundle version";
	uint64_t nw = get_u32(p + 12), ml = get_u32(p + 16);
	if (BPFB_FILE_HDR + nw * 4 + ml != len)
		return "bundle size does not match its header (truncated?)";
	char hex[65];
	sha256_hex(p + BPFB_FILE_HDR, len - BPFB_FILE_HDR, hex);
	if (memcmp(hex, p + 24, 64))
		return "bundle checksum mismatch (corrupted)";
	out->nwords = nw;
	out->w = xmalloc(nw * 4 + 4);
	for (size_t i = 0; i < nw; i++)
		out->w[i] = get_u32(p + BPFB_FILE_HDR + 4 * i);
	out->metalen = ml;
	out->meta = xstrndup((const char *)p + BPFB_FILE_HDR + nw * 4, ml);
	const char *e = bpfb_validate(out->w, out->nwords);
	if (e)
		bpfb_free(out);
	return e;
}

static const char *check_dfa(const uint32_t *w, size_t nw, const struct polc_dfa *d,
			     const uint8_t *cls, uint32_t nchan, bool file)
{
	if (!d->nstates || !d->ncls || d->ncls > 256 || d->nchan != nchan ||
	    !d->nentries || d->nentries > POLC_MAX_ENTRIES || d->start >= d->nstates ||
	    d->worst >= d->nentries)
		return "bad DFA header";
	if ((uint64_t)d->nstates * d->ncls > nw || d->trans > nw - (uint64_t)d->nstates * d->ncls ||
	    d->accept > nw - d->nstates ||
	    (uint64_t)d->nentries * nchan > nw || d->entries > nw - (uint64_t)d->nentries * nchan)
		return "DFA table outside the blob";
	for (int b = 0; b < 256; b++)
		if (cls[b] >= d->ncls)
			return "byte class out of range";
	for (uint64_t i = 0; i < (uint64_t)d->nstates * d->ncls; i++) {
		uint32_t row = w[d->trans + i] & POLC_TRANS_ROW;
		if (row < d->trans || (row - d->trans) % d->ncls ||
		    polc_row_state(d, row) >= d->nstates)
			return "DFA transition out of range";
	}
	for (uint32_t s = 0; s < d->nstates; s++) {
		uint32_t a = w[d->accept + s];
		if (POLC_ACC_ENTRY(a) >= d->nentries)
			return "DFA accept entry out of range";
	}
	/* a dead bit set wrongly would stop a walk before a deny */
	if (!dead_bits_hold(w, d, file))
		return "DFA dead bits do not match its entries";
	return NULL;
}

const char *bpfb_validate(const uint32_t *w, size_t nw)
{
	if (nw < POLC_HDR_WORDS)
		return "blob too small";
	const struct polc_hdr *h = (const void *)w;
	if (h->magic != POLC_BLOB_MAGIC || h->version != POLC_BLOB_VERSION)
		return "blob magic or version mismatch";
	if (h->blob_words != nw || nw > POLC_MAX_BLOB_WORDS)
		return "blob size mismatch";
	if (h->nstmts > POLC_MAX_STMTS || h->nnet > POLC_MAX_NET ||
	    h->net > nw || h->net % POLC_NET_WORDS ||
	    (uint64_t)h->nnet * POLC_NET_WORDS > nw - h->net)
		return "network rules outside the blob";
	const char *e = check_dfa(w, nw, &h->file, (const uint8_t *)(w + POLC_CLS_FILE_OFF),
				  POLC_NCHAN, true);
	if (!e)
		e = check_dfa(w, nw, &h->mount, (const uint8_t *)(w + POLC_CLS_MOUNT_OFF), 1, false);
	/* a bit set wrongly would allow every path on a channel a statement
	 * decides */
	if (!e && h->chan_open != chans_open(w, &h->file))
		e = "channels open to every path do not match the file DFA";
	if (!e) {
		uint32_t lens[2];
		exec_name_lens(w, &h->file, (const uint8_t *)(w + POLC_CLS_FILE_OFF), lens);
		if (lens[0] != h->exec_lens[0] || lens[1] != h->exec_lens[1])
			e = "exec name lengths do not match the file DFA";
	}
	return e;
}

/* Channels any accept entry of d decides: every entry, reachable or not
 * (an unreachable one only costs an attached program). */
static uint32_t dfa_needs(const uint32_t *w, const struct polc_dfa *d)
{
	uint32_t m = 0;
	for (uint64_t i = 0; i < (uint64_t)d->nentries * d->nchan; i++)
		if (decides(w[d->entries + i]))
			m |= 1u << (i % d->nchan);
	return m;
}

static bool refuses(uint32_t dec)
{
	return POLC_DEC_VERDICT(dec) >= POLC_V_DENY;
}

/* Is every mapping the file DFA d refuses one of a file the task cannot
 * open to map? mmap needs a descriptor opened for reading, and the exec
 * of a program opens it too: where mmap is refused, the read must be, and
 * the exec open by a statement's deny (the one file_open counts for it).
 * Then mmap_file and file_mprotect would refuse only descriptors passed in
 * or inherited, which the policy decides nothing of (docs/language.md), as
 * AppArmor does not for a file an unconfined task opened. Enforce mode
 * only: under `mode audit` the opens are allowed. */
static bool mmap_refused_by_open(const uint32_t *w, const struct polc_dfa *d, uint32_t mode)
{
	if (mode)
		return false;
	for (uint64_t e = 0; e < d->nentries; e++) {
		const uint32_t *dec = w + d->entries + e * d->nchan;
		if (!decides(dec[POLC_CH_MMAP]))
			continue;
		if (!refuses(dec[POLC_CH_MMAP]) || !refuses(dec[POLC_CH_READ]) ||
		    !refuses(dec[POLC_CH_EXECP]) || POLC_DEC_STMT(dec[POLC_CH_EXECP]) == POLC_STMT_DEFAULT)
			return false;
	}
	return true;
}

/* Does the file DFA d decide an exec other than by a statement's deny in
 * enforce mode, the one decision the exec open makes for it (enforcer.bpf.c,
 * polc_file_open)? Then bprm_check must decide it (POLC_NEEDS_BPRM). */
static bool exec_beyond_open(const uint32_t *w, const struct polc_dfa *d, uint32_t mode)
{
	for (uint64_t e = 0; e < d->nentries; e++) {
		uint32_t dec = w[d->entries + e * d->nchan + POLC_CH_EXEC];
		if (decides(dec) && (mode || !refuses(dec) || POLC_DEC_STMT(dec) == POLC_STMT_DEFAULT))
			return true;
	}
	return false;
}

/* A kind of socket in one family: for rules of protocol proto (POLC_PROTO_*). */
struct kind_of { const uint32_t *w; size_t nw; int family; uint32_t proto; };

/* Does the blob let its tasks create a socket of this kind? */
static bool kind_made(const struct kind_of *c, int type, int protocol)
{
	ir_event ev = ir_net_kind_event(IR_NET_CREATE, c->family, type, protocol);
	return !refuses(bpfb_eval(c->w, c->nw, &ev));
}

/* A socket of this kind the blob lets its tasks create, whose sends
 * without an address it decides. */
static bool made_and_send_decided(int type, int protocol, void *vc)
{
	const struct kind_of *c = vc;
	ir_event ev = ir_net_kind_event(IR_NET_SEND, c->family, type, protocol);
	return kind_made(c, type, protocol) && decides(bpfb_eval(c->w, c->nw, &ev));
}

/* Does the blob decide a send without an address on a socket its tasks can
 * make (POLC_NEEDS_SPLICE)? A kind of socket the blob refuses to create has
 * none to send on but one passed in, as mmap_refused_by_open reasons for a
 * file: Docker's default refuses AF_ALG, whose cleared send_open bit alone
 * would attach file_permission for every read and write on the machine. */
static bool sends_need_file_permission(const uint32_t *w, size_t nw)
{
	const struct polc_hdr *h = (const void *)w;
	for (int f = 0; f < 64; f++) {
		struct kind_of c = { w, nw, f, POLC_PROTO_ANY };
		if (!(h->send_open[f / 32] >> (f % 32) & 1) &&
		    ir_any_socket_kind(made_and_send_decided, &c))
			return true;
	}
	return false;
}

/* A socket of this kind, of protocol c->proto, that the blob lets its
 * tasks create. */
static bool made_of_proto(int type, int protocol, void *vc)
{
	const struct kind_of *c = vc;
	struct polc_net_ev pe = { .family = (uint32_t)c->family, .type = (uint32_t)type,
				  .protocol = (uint32_t)protocol };
	return polc_proto_is(c->proto, &pe) && kind_made(c, type, protocol);
}

/* Can the blob's tasks make a socket that network rule r can match, of its
 * family and protocol? IPv4 and IPv6 count as one: an IPv6 socket's
 * traffic to a v4-mapped address is IPv4's (LANGUAGE.md). */
static bool rule_socket_made(const uint32_t *w, size_t nw, const uint32_t *r)
{
	uint32_t fam = r[0] >> 8 & 0xff;
	bool inet_rule = fam == POLC_AF_INET || fam == POLC_AF_INET6;
	for (int f = 0; f < 64; f++) {
		bool inet = f == POLC_AF_INET || f == POLC_AF_INET6;
		struct kind_of c = { w, nw, f, r[0] >> 16 & 0xff };
		if ((!fam || fam == (uint32_t)f || (inet && inet_rule)) &&
		    ir_any_socket_kind(made_of_proto, &c))
			return true;
	}
	return false;
}

/* The needs bit of each network operation on a socket (IR_NET_*). */
static uint32_t net_op_needs(uint32_t op)
{
	switch (op) {
	case POLC_NET_CONNECT: return BPFB_NEEDS_NET_CONNECT;
	case POLC_NET_BIND: return BPFB_NEEDS_NET_BIND;
	case POLC_NET_LISTEN: return BPFB_NEEDS_NET_LISTEN;
	case POLC_NET_ACCEPT: return BPFB_NEEDS_NET_ACCEPT;
	case POLC_NET_SEND: return BPFB_NEEDS_NET_SEND;
	case POLC_NET_CREATE: return 0;
	}
	return BPFB_NEEDS_NET & ~BPFB_NEEDS_NET_CREATE;   /* any operation */
}

/* The network operations the blob can decide other than allow: those of
 * each statement that does (every one for the default), an operation on a
 * socket left out where the blob refuses to create every kind the
 * statement can match (one could only be passed in: sends_need_file_
 * permission's reasoning). */
static uint32_t net_needs(const uint32_t *w, size_t nw)
{
	const struct polc_hdr *h = (const void *)w;
	uint32_t m = decides(h->defaults[POLC_D_NET]) ? BPFB_NEEDS_NET : 0;
	for (uint32_t i = 0; i < h->nnet; i++) {
		const uint32_t *r = &w[h->net + i * POLC_NET_WORDS];
		uint32_t op = r[0] & 0xff;
		if (!decides(r[7]))
			continue;
		if (op == POLC_NET_ANYOP || op == POLC_NET_CREATE)
			m |= BPFB_NEEDS_NET_CREATE;
		if (op != POLC_NET_CREATE && rule_socket_made(w, nw, r))
			m |= net_op_needs(op);
	}
	if (sends_need_file_permission(w, nw))
		m |= BPFB_NEEDS_NET_SEND | BPFB_NEEDS_SPLICE;
	return m;
}

uint32_t bpfb_needs(const uint32_t *w, size_t nw)
{
	const struct polc_hdr *h = (const void *)w;
	uint32_t m = dfa_needs(w, &h->file) & BPFB_NEEDS_CHANS;
	if (!decides(h->defaults[POLC_D_FILE]) && mmap_refused_by_open(w, &h->file, h->mode))
		m &= ~(1u << POLC_CH_MMAP);
	if (decides(h->defaults[POLC_D_FILE]))
		m |= BPFB_NEEDS_CHANS & ~(1u << POLC_CH_EXEC);
	if (decides(h->defaults[POLC_D_EXEC]))
		m |= 1u << POLC_CH_EXEC | BPFB_NEEDS_BPRM;
	else if ((m >> POLC_CH_EXEC & 1) && exec_beyond_open(w, &h->file, h->mode))
		m |= BPFB_NEEDS_BPRM;
	if (dfa_needs(w, &h->mount) || decides(h->defaults[POLC_D_MOUNT]))
		m |= BPFB_NEEDS_MOUNT;
	for (int c = 0; c < 64; c++)
		if (decides(h->caps[c]))
			m |= BPFB_NEEDS_CAP;
	if (decides(h->defaults[POLC_D_CAP]))
		m |= BPFB_NEEDS_CAP;
	if (decides(h->ptrace[0]) || decides(h->ptrace[1]) || decides(h->defaults[POLC_D_PTRACE]))
		m |= BPFB_NEEDS_PTRACE;
	if (decides(h->signal) || decides(h->defaults[POLC_D_SIGNAL]))
		m |= BPFB_NEEDS_SIGNAL;
	return m | net_needs(w, nw);
}
