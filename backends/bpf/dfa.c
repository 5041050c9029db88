/* dfa.c - see dfa.h. Globs are brace-expanded, tokenized (glob_tokenize) into "one byte of
 * a set" / "zero or more bytes of a set" tokens, then the position sets of
 * all patterns are determinized (subset construction over byte classes),
 * minimized (Moore refinement) and annotated with the dead states and the
 * fail-closed "worst" entry. */
#include "dfa.h"
#include "bpf_layout.h"
#include "../../base/util.h"
#include "../../compiler/glob.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- tokens */

static void set_add(uint8_t *set, unsigned c) { set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static bool set_has(const uint8_t *set, unsigned c) { return set[c >> 3] >> (c & 7) & 1; }

void dfa_tok_lit(dfa_tok *t, uint8_t c)
{
	memset(t, 0, sizeof *t);
	set_add(t->set, c);
}

void dfa_tok_all(dfa_tok *t, bool many)
{
	memset(t->set, 0xff, sizeof t->set);
	t->many = many;
}

void dfa_patset_init(dfa_patset *ps)
{
	memset(ps, 0, sizeof *ps);
}

void dfa_patset_free(dfa_patset *ps)
{
	free(ps->v);
	free(ps->tid);
	free(ps->tok);
	free(ps->tab);
	free(ps->scratch);
	dfa_patset_init(ps);
}

/* The one byte a token takes, or -1 (a set of several bytes, or "many"). */
static int tok_lit(const dfa_tok *tk)
{
	if (tk->many)
		return -1;
	int one = -1, count = 0;
	for (unsigned i = 0; i < 32; i += 8) {
		uint64_t w;
		memcpy(&w, tk->set + i, 8);
		if (w) {
			count += __builtin_popcountll(w);
			one = (int)(i * 8 + (unsigned)__builtin_ctzll(w));
		}
	}
	return count == 1 ? one : -1;
}

static size_t tok_hash(const dfa_tok *t, size_t mask)
{
	uint64_t h = 1469598103934665603ull ^ t->many;
	for (size_t i = 0; i < sizeof t->set; i++)
		h = (h ^ t->set[i]) * 1099511628211ull;
	return (size_t)(h ^ h >> 29) & mask;
}

static void tok_rehash(dfa_patset *ps)
{
	free(ps->tab);
	ps->tabcap = ps->tabcap ? ps->tabcap * 2 : 64;
	ps->tab = xcalloc(ps->tabcap, sizeof *ps->tab);
	for (size_t id = 256; id < ps->ntok; id++) {
		size_t h = tok_hash(&ps->tok[id], ps->tabcap - 1);
		while (ps->tab[h])
			h = (h + 1) & (ps->tabcap - 1);
		ps->tab[h] = (uint32_t)id + 1;
	}
}

/* The id of token t (added to the table when new). */
static uint32_t tok_id(dfa_patset *ps, const dfa_tok *t)
{
	if (!ps->ntok) {       /* the literal bytes first: their id is the byte */
		xgrow(&ps->tok, &ps->tokcap, 256, sizeof *ps->tok);
		for (unsigned b = 0; b < 256; b++)
			dfa_tok_lit(&ps->tok[b], (uint8_t)b);
		ps->ntok = 256;
	}
	int lit = tok_lit(t);
	if (lit >= 0)
		return (uint32_t)lit;
	if ((ps->ntok - 256 + 1) * 2 > ps->tabcap)
		tok_rehash(ps);
	size_t h = tok_hash(t, ps->tabcap - 1);
	for (; ps->tab[h]; h = (h + 1) & (ps->tabcap - 1)) {
		const dfa_tok *o = &ps->tok[ps->tab[h] - 1];
		if (o->many == t->many && !memcmp(o->set, t->set, sizeof o->set))
			return ps->tab[h] - 1;
	}
	xgrow(&ps->tok, &ps->tokcap, ps->ntok + 1, sizeof *ps->tok);
	ps->tok[ps->ntok] = *t;
	ps->tab[h] = (uint32_t)ps->ntok + 1;
	return (uint32_t)ps->ntok++;
}

void dfa_add_tokens(dfa_patset *ps, const dfa_tok *tok, size_t ntok,
		    uint32_t chanmask, uint32_t dec)
{
	xgrow(&ps->v, &ps->cap, ps->n + 1, sizeof *ps->v);
	xgrow(&ps->tid, &ps->tidcap, ps->ntid + ntok, sizeof *ps->tid);
	dfa_pat *p = &ps->v[ps->n++];
	p->first = ps->ntid;
	for (size_t i = 0; i < ntok; i++)
		ps->tid[ps->ntid++] = tok_id(ps, &tok[i]);
	p->ntok = ntok;
	p->chanmask = chanmask;
	p->dec = dec;
}

typedef struct {
	dfa_patset *ps;
	const dfa_tok *prefix;
	size_t nprefix;
	uint32_t chanmask, dec;
} add_ctx;

static void add_alt(const char *alt, void *vctx)
{
	add_ctx *c = vctx;
	dfa_patset *ps = c->ps;
	xgrow(&ps->scratch, &ps->scratchcap, c->nprefix + strlen(alt) + 1, sizeof *ps->scratch);
	dfa_tok *t = ps->scratch;
	if (c->nprefix)
		memcpy(t, c->prefix, c->nprefix * sizeof *t);
	size_t n = c->nprefix + glob_tokenize(alt, t + c->nprefix);
	dfa_add_tokens(ps, t, n, c->chanmask, c->dec);
}

const char *dfa_add_glob(dfa_patset *ps, const dfa_tok *prefix, size_t nprefix,
			 const char *glob, uint32_t chanmask, uint32_t dec)
{
	size_t pos;
	const char *err = glob_validate(glob, &pos);
	if (err)
		return err;
	add_ctx c = { ps, prefix, nprefix, chanmask, dec };
	if (glob_expand(glob, add_alt, &c) < 0)
		return "glob expands to too many alternatives";
	return NULL;
}

/* -------------------------------------------------- interning of vectors */

/* Distinct u32 vectors get dense ids in order of first appearance. */
typedef struct {
	uint32_t *pool;
	size_t plen, pcap;
	uint32_t *off, *len;
	size_t n, cap;
	uint64_t *tab;          /* open addressing: hash << 32 | id + 1, 0 empty
	                           (the hash kept: a probe or a rehash reads
	                           no vector but the one that matches) */
	size_t tcap;
} interner;

static uint64_t hash_words(const uint32_t *w, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ n;
	for (size_t i = 0; i < n; i++) {
		h ^= w[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static void in_free(interner *in)
{
	free(in->pool);
	free(in->off);
	free(in->len);
	free(in->tab);
	memset(in, 0, sizeof *in);
}

static const uint32_t *in_get(const interner *in, uint32_t id, size_t *n)
{
	if (n)
		*n = in->len[id];
	return in->pool + in->off[id];
}

static void in_rehash(interner *in)
{
	size_t tcap = in->tcap ? in->tcap * 2 : 1024;
	uint64_t *tab = xcalloc(tcap, sizeof *tab);
	for (size_t i = 0; i < in->tcap; i++) {
		if (!in->tab[i])
			continue;
		size_t h = (size_t)(in->tab[i] >> 32) & (tcap - 1);
		while (tab[h])
			h = (h + 1) & (tcap - 1);
		tab[h] = in->tab[i];
	}
	free(in->tab);
	in->tab = tab;
	in->tcap = tcap;
}

/* Returns the id of w; *added tells whether it is new. */
static uint32_t in_put(interner *in, const uint32_t *w, size_t n, bool *added)
{
	/* a pool that exists even for empty sets: no arithmetic on NULL */
	if (!in->pool)
		xgrow(&in->pool, &in->pcap, 1, sizeof *in->pool);
	if ((in->n + 1) * 2 > in->tcap)
		in_rehash(in);
	uint32_t hw = (uint32_t)hash_words(w, n);
	size_t h = hw & (in->tcap - 1);
	for (; in->tab[h]; h = (h + 1) & (in->tcap - 1)) {
		if ((uint32_t)(in->tab[h] >> 32) != hw)
			continue;
		uint32_t id = (uint32_t)in->tab[h] - 1;
		if (in->len[id] == n && (!n || !memcmp(in->pool + in->off[id], w, n * 4))) {
			if (added)
				*added = false;
			return id;
		}
	}
	xgrow(&in->pool, &in->pcap, in->plen + n, sizeof *in->pool);
	if (n)
		memcpy(in->pool + in->plen, w, n * 4);
	size_t cap = in->cap;
	xgrow(&in->off, &in->cap, in->n + 1, sizeof *in->off);
	if (in->cap != cap || !in->len)
		in->len = xrealloc(in->len, in->cap * sizeof *in->len);
	in->off[in->n] = (uint32_t)in->plen;
	in->len[in->n] = (uint32_t)n;
	in->plen += n;
	in->tab[h] = (uint64_t)hw << 32 | ((uint32_t)in->n + 1);
	if (added)
		*added = true;
	return (uint32_t)in->n++;
}

/* ------------------------------------------------------------ positions */

/* Positions: pattern 0's tokens and then its end (accept), pattern 1's,
 * and so on. A position holds its token's id (< 256: a literal byte)
 * or, at an end, POS_END | k: a step reads one word, and only a set or
 * "many" token's table entry. */
#define POS_END 0x80000000u

typedef struct {
	const dfa_patset *ps;
	uint32_t *tok;          /* per position: token id, or POS_END | pattern */
	uint32_t npos;
	uint32_t *stamp, gen;   /* dedup while building one set */
	uint32_t *set;
	size_t nset, capset;
} nfa;

static void nfa_add(nfa *a, uint32_t pos)
{
	if (a->stamp[pos] == a->gen)
		return;
	a->stamp[pos] = a->gen;
	xgrow(&a->set, &a->capset, a->nset + 1, sizeof *a->set);
	a->set[a->nset++] = pos;
}

/* Is the token at a (non-end) position "many"? */
static bool pos_many(const nfa *a, uint32_t id)
{
	return id >= 256 && a->ps->tok[id].many;
}

/* Enter the token at pos with the previous path byte being '/' or not:
 * a "many" token may be skipped (match empty) only when it does not start
 * right after a '/' (glob.h). */
static void nfa_enter(nfa *a, uint32_t pos, bool slash)
{
	for (;; pos++) {
		nfa_add(a, pos);
		uint32_t id = a->tok[pos];
		if (id & POS_END || slash || !pos_many(a, id))
			return;
	}
}

static void nfa_step(nfa *a, uint32_t pos, unsigned b)
{
	uint32_t id = a->tok[pos];
	if (id & POS_END)
		return;
	if (id < 256) {
		if (id != b)
			return;
	} else {
		const dfa_tok *tk = &a->ps->tok[id];
		if (!set_has(tk->set, b))
			return;
		/* A "many" token that consumed a byte stays (it met its
		 * minimum) and may also end here; either way the next token
		 * starts after b. */
		if (tk->many)
			nfa_add(a, pos);
	}
	nfa_enter(a, pos + 1, b == '/');
}

static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

/* Sort a position set. Sets are built from sorted sets, so each is nearly
 * in order (disorder only inside one pattern's positions): an insertion
 * sort is linear on them; a long run of disorder falls back to qsort. */
static void sort_set(uint32_t *v, size_t n)
{
	size_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		uint32_t x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
		moves += i - j;
		if (moves > 4 * n + 64) {
			xqsort(v, n, 4, cmp_u32);
			return;
		}
	}
}

/* -------------------------------------------------------- byte classes */

/* Refine the classes by one byte set: bytes in a class stay together only
 * if the set holds all or none of them. Classes are numbered by their
 * smallest byte, so the result does not depend on the order of the sets. */
static void refine(uint8_t cls[256], const uint8_t *set, uint32_t *n)
{
	int remap[512];
	memset(remap, -1, sizeof remap);
	uint32_t m = 0;
	uint8_t next[256];
	for (unsigned b = 0; b < 256; b++) {
		int key = cls[b] * 2 + set_has(set, b);
		if (remap[key] < 0)
			remap[key] = (int)m++;
		next[b] = (uint8_t)remap[key];
	}
	memcpy(cls, next, 256);
	*n = m;
}

/* The coarsest classes that no token's set (nor '/', which "*" and the
 * empty-match rule single out) splits: each distinct token used once. */
static void byte_classes(const dfa_patset *ps, uint8_t cls[256], uint32_t *ncls)
{
	memset(cls, 0, 256);
	uint32_t n = 1;
	bool *used = xcalloc(ps->ntok + 1, sizeof *used);
	for (size_t i = 0; i < ps->ntid; i++)
		used[ps->tid[i]] = true;
	for (size_t id = 0; id < ps->ntok && n < 256; id++)
		if (used[id])
			refine(cls, ps->tok[id].set, &n);
	free(used);
	dfa_tok slash;
	dfa_tok_lit(&slash, '/');
	if (n < 256)
		refine(cls, slash.set, &n);
	*ncls = n;
}

/* ------------------------------------------------------------- building */

typedef struct {
	uint32_t nstates, ncls;
	uint32_t *trans;
	uint32_t *entry;        /* per state: entry id */
} raw_dfa;

/* The entry of one position set: per channel the winning decision. */
static uint32_t set_entry(const nfa *a, const uint32_t *set, size_t n,
			  uint32_t nchan, const uint32_t *defaults, interner *ent)
{
	uint32_t w[32];
	bool hit[32] = { false };
	memcpy(w, defaults, nchan * 4);
	for (size_t i = 0; i < n; i++) {
		uint32_t id = a->tok[set[i]];
		if (!(id & POS_END))
			continue;
		const dfa_pat *p = &a->ps->v[id & ~POS_END];
		for (uint32_t c = 0; c < nchan; c++) {
			if (!(p->chanmask >> c & 1))
				continue;
			if (!hit[c] || polc_dec_wins(p->dec, w[c]))
				w[c] = p->dec;
			hit[c] = true;
		}
	}
	return in_put(ent, w, nchan, NULL);
}

static const char *determinize(nfa *a, const uint8_t cls[256], uint32_t ncls,
			       uint32_t nchan, const uint32_t *defaults,
			       uint32_t max_states, interner *ent, raw_dfa *r)
{
	unsigned rep[256];
	for (int b = 255; b >= 0; b--)
		rep[cls[b]] = (unsigned)b;
	interner sets = { 0 };
	size_t tcap = 0;
	r->trans = NULL;
	r->entry = NULL;
	a->gen++;
	a->nset = 0;
	for (uint32_t pos = 0; pos < a->npos; pos++)
		if (pos == 0 || a->tok[pos - 1] & POS_END)   /* a pattern's first */
			nfa_enter(a, pos, false);
	sort_set(a->set, a->nset);
	in_put(&sets, a->set, a->nset, NULL);
	const char *err = NULL;
	/* A state's positions whose token takes one byte go to that byte's
	 * class only; the rest are tried for every class. Stepping every
	 * position on every class cost (positions x classes) per state. */
	uint32_t *start = xmalloc((ncls + 1) * sizeof *start);
	uint32_t *bucket = NULL, *wild = NULL, empty = UINT32_MAX, memo_to[256];
	uint64_t memo_key[256];
	size_t bcap = 0, wcap = 0;
	for (uint32_t s = 0; s < sets.n; s++) {
		if (sets.n > max_states) {
			err = "DFA has more states than the limit";
			break;
		}
		xgrow(&r->trans, &tcap, (size_t)(s + 1) * ncls, sizeof *r->trans);
		size_t n, nwild = 0;
		const uint32_t *cur = in_get(&sets, s, &n);
		xgrow(&bucket, &bcap, n, sizeof *bucket);
		xgrow(&wild, &wcap, n, sizeof *wild);
		memset(start, 0, (ncls + 1) * sizeof *start);
		for (size_t i = 0; i < n; i++)
			if (a->tok[cur[i]] < 256)
				start[cls[a->tok[cur[i]]] + 1]++;
		for (uint32_t c = 0; c < ncls; c++)
			start[c + 1] += start[c];
		for (size_t i = 0; i < n; i++) {
			uint32_t id = a->tok[cur[i]];
			if (id < 256)
				bucket[start[cls[id]]++] = cur[i];
			else if (!(id & POS_END))
				wild[nwild++] = cur[i];
		}
		size_t nmemo = 0;
		for (uint32_t c = 0; c < ncls; c++) {
			cur = in_get(&sets, s, &n);   /* in_put may move the pool */
			uint32_t lo = c ? start[c - 1] : 0, hi = start[c];
			if (lo == hi && !nwild) {
				/* nothing steps on c: the empty set (most of a large
				 * policy's transitions) */
				if (empty == UINT32_MAX)
					empty = in_put(&sets, NULL, 0, NULL);
				r->trans[(size_t)s * ncls + c] = empty;
				continue;
			}
			/* Only sets ("**" and the like) step on c: the result
			 * depends on which of them take rep[c] and on whether it
			 * is '/'; classes alike in that share the target. */
			uint64_t key = rep[c] == '/';
			bool memo = lo == hi && nwild < 64;
			for (size_t i = 0; memo && i < nwild; i++) {
				key |= (uint64_t)glob_tok_has(&a->ps->tok[a->tok[wild[i]]],
							      (unsigned char)rep[c]) << (i + 1);
			}
			size_t mi = 0;
			while (memo && mi < nmemo && memo_key[mi] != key)
				mi++;
			if (memo && mi < nmemo) {
				r->trans[(size_t)s * ncls + c] = memo_to[mi];
				continue;
			}
			a->gen++;
			a->nset = 0;
			for (uint32_t i = lo; i < hi; i++)
				nfa_step(a, bucket[i], rep[c]);
			for (size_t i = 0; i < nwild; i++)
				nfa_step(a, wild[i], rep[c]);
			sort_set(a->set, a->nset);
			uint32_t to = in_put(&sets, a->set, a->nset, NULL);
			r->trans[(size_t)s * ncls + c] = to;
			if (memo) {
				memo_key[nmemo] = key;
				memo_to[nmemo++] = to;
			}
		}
	}
	free(start);
	free(bucket);
	free(wild);
	r->nstates = (uint32_t)sets.n;
	r->ncls = ncls;
	if (!err) {
		r->entry = xmalloc(sets.n * sizeof *r->entry);
		for (uint32_t s = 0; s < sets.n; s++) {
			size_t n;
			const uint32_t *cur = in_get(&sets, s, &n);
			r->entry[s] = set_entry(a, cur, n, nchan, defaults, ent);
		}
	}
	in_free(&sets);
	return err;
}

/* Predecessors of every state (CSR: pred[pcount[s] .. pcount[s + 1]]). */
static void predecessors(const uint32_t *trans, uint32_t n, uint32_t m, uint32_t **pcount_out,
			 uint32_t **pred_out)
{
	uint32_t *pcount = xcalloc((size_t)n + 2, sizeof *pcount);
	for (size_t i = 0; i < (size_t)n * m; i++)
		pcount[trans[i] + 1]++;
	for (uint32_t s = 0; s < n; s++)
		pcount[s + 1] += pcount[s];
	uint32_t *pred = xmalloc(((size_t)n * m + 1) * sizeof *pred);
	uint32_t *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
	memcpy(fill, pcount, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t s = 0; s < n; s++)
		for (uint32_t c = 0; c < m; c++)
			pred[fill[trans[(size_t)s * m + c]]++] = s;
	free(fill);
	*pcount_out = pcount;
	*pred_out = pred;
}

/* Partition refinement: the block of each state, the members of each
 * block as a linked list, and the blocks to split again. */
typedef struct {
	const raw_dfa *r;
	uint32_t *part, nblocks;
	uint32_t *head, *next;        /* per block: first state; per state: next */
	uint32_t *dirty, ndirty;      /* blocks to split (stack); flags in isdirty */
	bool *isdirty;
	uint32_t *mem, *grp;          /* one block's states and their groups */
	uint32_t *tab, *tgrp, *tgen, gen;   /* grouping table, stamped by gen */
	size_t tcap;
	uint32_t *pcount, *pred;
} refiner;

static uint64_t row_hash(const refiner *f, uint32_t s)
{
	uint32_t m = f->r->ncls;
	const uint32_t *ts = &f->r->trans[(size_t)s * m];
	uint64_t h = 1469598103934665603ull;
	for (uint32_t c = 0; c < m; c++) {
		h ^= f->part[ts[c]];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ h >> 33;
}

static bool same_row(const refiner *f, uint32_t a, uint32_t b)
{
	uint32_t m = f->r->ncls;
	const uint32_t *ta = &f->r->trans[(size_t)a * m], *tb = &f->r->trans[(size_t)b * m];
	for (uint32_t c = 0; c < m; c++)
		if (f->part[ta[c]] != f->part[tb[c]])
			return false;
	return true;
}

static void mark_dirty(refiner *f, uint32_t b)
{
	if (!f->isdirty[b]) {
		f->isdirty[b] = true;
		f->dirty[f->ndirty++] = b;
	}
}

/* Split block b by the blocks of its states' successors (all grouped
 * under the blocks as they were): the first group keeps b, each other
 * becomes a new block, and the blocks of the moved states' predecessors
 * must be split again. */
static void split_block(refiner *f, uint32_t b)
{
	uint32_t n = 0, ngroups = 0;
	for (uint32_t s = f->head[b]; s != UINT32_MAX; s = f->next[s])
		f->mem[n++] = s;
	if (n < 2)
		return;
	f->gen++;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = f->mem[i];
		for (size_t k = row_hash(f, s) & (f->tcap - 1);; k = (k + 1) & (f->tcap - 1)) {
			if (f->tgen[k] != f->gen) {
				f->tgen[k] = f->gen;
				f->tab[k] = s;
				f->tgrp[k] = f->grp[i] = ngroups++;
				break;
			}
			if (same_row(f, f->tab[k], s)) {
				f->grp[i] = f->tgrp[k];
				break;
			}
		}
	}
	if (ngroups == 1)
		return;
	uint32_t base = f->nblocks - 1;   /* group g > 0 becomes block base + g */
	f->nblocks += ngroups - 1;
	f->head[b] = UINT32_MAX;
	for (uint32_t g = 1; g < ngroups; g++)
		f->head[base + g] = UINT32_MAX;
	for (uint32_t i = n; i-- > 0;) {
		uint32_t s = f->mem[i], nb = f->grp[i] ? base + f->grp[i] : b;
		f->part[s] = nb;
		f->next[s] = f->head[nb];
		f->head[nb] = s;
	}
	for (uint32_t i = 0; i < n; i++)
		if (f->grp[i])
			for (uint32_t k = f->pcount[f->mem[i]]; k < f->pcount[f->mem[i] + 1]; k++)
				mark_dirty(f, f->part[f->pred[k]]);
}

/* live[s]: a state other than the all-default entry's is reachable from s
 * (backward search from those states; q: room for every state). Equivalent
 * states agree, so the minimized DFA takes it from any of its states. */
static bool *live_states(const raw_dfa *r, const uint32_t *pcount, const uint32_t *pred,
			 uint32_t *q)
{
	bool *live = xcalloc((size_t)r->nstates + 1, sizeof *live);
	size_t qt = 0;
	for (uint32_t s = 0; s < r->nstates; s++)
		if (r->entry[s] != 0) {
			live[s] = true;
			q[qt++] = s;
		}
	for (size_t qh = 0; qh < qt; qh++)
		for (uint32_t i = pcount[q[qh]]; i < pcount[q[qh] + 1]; i++)
			if (!live[pred[i]]) {
				live[pred[i]] = true;
				q[qt++] = pred[i];
			}
	return live;
}

/* The coarsest partition that separates states of different entries and
 * is stable under every byte class (Moore's, refining only the blocks a
 * split can affect: a long chain of splits costs its blocks, not a pass
 * over every state per split). Returns the block of every state. */
static uint32_t *minimize(const raw_dfa *r, uint32_t *nparts, bool **live)
{
	uint32_t n = r->nstates;
	refiner f = { .r = r };
	f.part = xmalloc(((size_t)n + 1) * sizeof *f.part);
	interner first = { 0 };
	for (uint32_t s = 0; s < n; s++)
		f.part[s] = in_put(&first, &r->entry[s], 1, NULL);
	f.nblocks = (uint32_t)first.n;
	in_free(&first);
	f.head = xmalloc(((size_t)n + 1) * sizeof *f.head);
	f.next = xmalloc(((size_t)n + 1) * sizeof *f.next);
	memset(f.head, 0xff, ((size_t)n + 1) * sizeof *f.head);
	for (uint32_t s = n; s-- > 0;) {
		f.next[s] = f.head[f.part[s]];
		f.head[f.part[s]] = s;
	}
	f.dirty = xmalloc(((size_t)n + 1) * sizeof *f.dirty);
	f.isdirty = xcalloc((size_t)n + 1, sizeof *f.isdirty);
	for (uint32_t b = f.nblocks; b-- > 0;)
		mark_dirty(&f, b);
	f.mem = xmalloc(((size_t)n + 1) * sizeof *f.mem);
	f.grp = xmalloc(((size_t)n + 1) * sizeof *f.grp);
	f.tcap = 1024;
	while (f.tcap < 2 * ((size_t)n + 1))
		f.tcap *= 2;
	f.tab = xmalloc(f.tcap * sizeof *f.tab);
	f.tgrp = xmalloc(f.tcap * sizeof *f.tgrp);
	f.tgen = xcalloc(f.tcap, sizeof *f.tgen);
	predecessors(r->trans, n, r->ncls, &f.pcount, &f.pred);
	while (f.ndirty) {
		uint32_t b = f.dirty[--f.ndirty];
		f.isdirty[b] = false;
		split_block(&f, b);
	}
	*live = live_states(r, f.pcount, f.pred, f.mem);
	free(f.head);
	free(f.next);
	free(f.dirty);
	free(f.isdirty);
	free(f.mem);
	free(f.grp);
	free(f.tab);
	free(f.tgrp);
	free(f.tgen);
	free(f.pcount);
	free(f.pred);
	*nparts = f.nblocks;
	return f.part;
}

static void combine(uint32_t *into, const uint32_t *from, uint32_t nchan, bool *changed)
{
	for (uint32_t c = 0; c < nchan; c++)
		if (polc_dec_wins(from[c], into[c])) {
			into[c] = from[c];
			*changed = true;
		}
}

/* The fail-closed entry: per channel the most restrictive decision of any
 * state, defaults included (every state is reachable from the start,
 * which is all the enforcer needs it for). */
static void annotate(dfa *d, interner *ent, const uint32_t *defaults)
{
	uint32_t worst[32];
	bool ch = false;
	memcpy(worst, defaults, d->nchan * 4);
	for (uint32_t s = 0; s < d->nstates; s++)
		combine(worst, in_get(ent, POLC_ACC_ENTRY(d->accept[s]), NULL), d->nchan, &ch);
	d->worst = in_put(ent, worst, d->nchan, NULL);
}

const char *dfa_build(const dfa_patset *ps, uint32_t nchan, const uint32_t *defaults,
		      uint32_t max_states, dfa *d)
{
	memset(d, 0, sizeof *d);
	if (nchan == 0 || nchan > 32)
		return "bad channel count";
	nfa a = { .ps = ps };
	for (size_t k = 0; k < ps->n; k++)
		a.npos += (uint32_t)ps->v[k].ntok + 1;
	a.tok = xmalloc((a.npos + 1) * sizeof *a.tok);
	for (size_t k = 0, pos = 0; k < ps->n; k++) {
		memcpy(&a.tok[pos], &ps->tid[ps->v[k].first], ps->v[k].ntok * sizeof *a.tok);
		pos += ps->v[k].ntok;
		a.tok[pos++] = POS_END | (uint32_t)k;
	}
	a.stamp = xcalloc(a.npos + 1, sizeof *a.stamp);

	byte_classes(ps, d->cls, &d->ncls);
	interner ent = { 0 };
	in_put(&ent, defaults, nchan, NULL);       /* entry 0: all defaults */
	raw_dfa r;
	const char *err = determinize(&a, d->cls, d->ncls, nchan, defaults,
				      max_states, &ent, &r);
	free(a.tok);
	free(a.stamp);
	free(a.set);
	if (err) {
		free(r.trans);
		free(r.entry);
		in_free(&ent);
		return err;
	}
	uint32_t np;
	bool *live;
	uint32_t *part = minimize(&r, &np, &live);
	/* Number the classes in BFS order from the start: a canonical DFA. */
	uint32_t *id = xmalloc(np * sizeof *id), *repr = xmalloc(np * sizeof *repr);
	memset(id, 0xff, np * sizeof *id);
	uint32_t *order = xmalloc(np * sizeof *order), n = 0;
	id[part[0]] = n;
	order[n++] = 0;
	d->trans = xmalloc((size_t)np * d->ncls * sizeof *d->trans);
	d->accept = xmalloc(np * sizeof *d->accept);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = order[i];
		d->accept[i] = r.entry[s] | (live[s] ? 0 : POLC_ACC_DEAD);
		for (uint32_t c = 0; c < d->ncls; c++) {
			uint32_t t = r.trans[(size_t)s * d->ncls + c], pt = part[t];
			if (id[pt] == UINT32_MAX) {
				id[pt] = n;
				order[n++] = t;
			}
			d->trans[(size_t)i * d->ncls + c] = id[pt];
		}
	}
	d->nstates = n;
	d->nchan = nchan;
	d->start = 0;
	free(id);
	free(repr);
	free(order);
	free(part);
	free(r.trans);
	free(r.entry);
	free(live);
	annotate(d, &ent, defaults);
	d->nentries = (uint32_t)ent.n;
	d->entries = xmalloc(ent.n * nchan * sizeof *d->entries);
	for (uint32_t e = 0; e < ent.n; e++)
		memcpy(&d->entries[(size_t)e * nchan], in_get(&ent, e, NULL), nchan * 4);
	in_free(&ent);
	return NULL;
}

void dfa_free(dfa *d)
{
	free(d->trans);
	free(d->accept);
	free(d->entries);
	memset(d, 0, sizeof *d);
}

uint32_t dfa_walk(const dfa *d, const char *s, size_t len)
{
	uint32_t st = d->start;
	if (len >= POLC_PATH_MAX)
		return d->worst;
	for (size_t i = 0; i < len; i++) {
		st = d->trans[(size_t)st * d->ncls + d->cls[(unsigned char)s[i]]];
		if (d->accept[st] & POLC_ACC_DEAD)
			return 0;
	}
	return POLC_ACC_ENTRY(d->accept[st]);
}
