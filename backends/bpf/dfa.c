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

void dfa_patset_reserve(dfa_patset *ps, size_t npat, size_t ntok)
{
	xgrow(&ps->v, &ps->cap, ps->n + npat, sizeof *ps->v);
	xgrow(&ps->tid, &ps->tidcap, ps->ntid + ntok, sizeof *ps->tid);
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

/* The one byte a token takes, or -1 (a set of several bytes, or "many").
 * One bit set: one non-zero word, and w & (w - 1) clears its only bit (no
 * popcount: without -mpopcnt it is a call into libgcc, per token). */
static int tok_lit(const dfa_tok *tk)
{
	if (tk->many)
		return -1;
	int one = -1;
	for (unsigned i = 0; i < 32; i += 8) {
		uint64_t w;
		memcpy(&w, tk->set + i, 8);
		if (!w)
			continue;
		if (one >= 0 || (w & (w - 1)))
			return -1;
		one = (int)(i * 8 + (unsigned)__builtin_ctzll(w));
	}
	return one;
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

/* Positions of the NFA: pattern 0's tokens and then its end (accept),
 * pattern 1's, and so on; a position holds its token's id (< 256: a
 * literal byte) or, at an end, POS_END | k. They are the pattern set's
 * tid array itself. */
#define POS_END 0x80000000u

void dfa_add_tokens(dfa_patset *ps, const dfa_tok *tok, size_t ntok,
		    uint32_t chanmask, uint32_t dec)
{
	xgrow(&ps->v, &ps->cap, ps->n + 1, sizeof *ps->v);
	xgrow(&ps->tid, &ps->tidcap, ps->ntid + ntok + 1, sizeof *ps->tid);
	dfa_pat *p = &ps->v[ps->n];
	p->first = ps->ntid;
	for (size_t i = 0; i < ntok; i++)
		ps->tid[ps->ntid++] = tok_id(ps, &tok[i]);
	ps->tid[ps->ntid++] = POS_END | (uint32_t)ps->n++;
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

/* Distinct u32 vectors get dense ids in order of first appearance. The
 * vectors are kept in chunks that never move (a large DFA's position sets
 * are megabytes: no doubling copies): global word index i is word
 * i % POOL_WORDS of slot i / POOL_WORDS; a vector never straddles chunks;
 * a chunk spans one slot or, for a longer vector, several; the first
 * grows by doubling up to a slot (small DFAs stay small). */
#define POOL_SHIFT 19
#define POOL_WORDS ((size_t)1 << POOL_SHIFT)     /* 2 MiB */

typedef struct {
	uint32_t **slot;
	size_t nslot;
	uint32_t **chunk;       /* each chunk's memory, to free */
	size_t nchunk;
	size_t top, end;        /* next free word, end of the current chunk */
	struct vec { uint32_t off, len; } *v;   /* per id (side by side: one
	                           cache line for a probe's check) */
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
	for (size_t k = 0; k < in->nchunk; k++)
		free(in->chunk[k]);
	free(in->chunk);
	free(in->slot);
	free(in->v);
	free(in->tab);
	memset(in, 0, sizeof *in);
}

static const uint32_t *in_get(const interner *in, uint32_t id, size_t *n)
{
	if (n)
		*n = in->v[id].len;
	return in->slot[in->v[id].off >> POOL_SHIFT] + (in->v[id].off & (POOL_WORDS - 1));
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

static void pool_chunk(interner *in, size_t nslots, size_t words)
{
	uint32_t *mem = xmalloc(words * 4);
	in->chunk = xrealloc(in->chunk, (in->nchunk + 1) * sizeof *in->chunk);
	in->chunk[in->nchunk++] = mem;
	in->slot = xrealloc(in->slot, (in->nslot + nslots) * sizeof *in->slot);
	for (size_t j = 0; j < nslots; j++)
		in->slot[in->nslot + j] = mem + (j << POOL_SHIFT);
	in->top = in->nslot << POOL_SHIFT;
	in->nslot += nslots;
	in->end = in->top + words;
}

/* The global index of room for n more words. */
static size_t pool_room(interner *in, size_t n)
{
	if (!in->nslot)
		pool_chunk(in, 1, 64);
	if (in->top + n > in->end) {
		if (in->nslot == 1 && in->top + n <= POOL_WORDS) {
			size_t c = in->end;
			while (c < in->top + n)
				c *= 2;
			if (c > POOL_WORDS)
				c = POOL_WORDS;
			in->slot[0] = in->chunk[0] = xrealloc(in->chunk[0], c * 4);
			in->end = c;
		} else {
			size_t nslots = n ? (n + POOL_WORDS - 1) >> POOL_SHIFT : 1;
			pool_chunk(in, nslots, nslots << POOL_SHIFT);
		}
	}
	size_t at = in->top;
	in->top += n;
	return at;
}

/* Returns the id of w; *added tells whether it is new. */
static uint32_t in_put(interner *in, const uint32_t *w, size_t n, bool *added)
{
	if ((in->n + 1) * 2 > in->tcap)
		in_rehash(in);
	uint32_t hw = (uint32_t)hash_words(w, n);
	size_t h = hw & (in->tcap - 1);
	for (; in->tab[h]; h = (h + 1) & (in->tcap - 1)) {
		if ((uint32_t)(in->tab[h] >> 32) != hw)
			continue;
		uint32_t id = (uint32_t)in->tab[h] - 1;
		if (in->v[id].len == n && (!n || !memcmp(in_get(in, id, NULL), w, n * 4))) {
			if (added)
				*added = false;
			return id;
		}
	}
	size_t at = pool_room(in, n);
	if (n)
		memcpy(in->slot[at >> POOL_SHIFT] + (at & (POOL_WORDS - 1)), w, n * 4);
	xgrow(&in->v, &in->cap, in->n + 1, sizeof *in->v);
	in->v[in->n].off = (uint32_t)at;
	in->v[in->n].len = (uint32_t)n;
	in->tab[h] = (uint64_t)hw << 32 | ((uint32_t)in->n + 1);
	if (added)
		*added = true;
	return (uint32_t)in->n++;
}

/* ------------------------------------------------------------ positions */

/* A step reads one position word, and only a set or "many" token's table
 * entry. */
typedef struct {
	const dfa_patset *ps;
	const uint32_t *tok;    /* per position: token id, or POS_END | pattern */
	uint32_t npos;
	uint64_t *in;           /* the set being built, as bits (dedup): a bit
	                           per position, not a stamp word, keeps it in cache */
	uint32_t *set;
	size_t nset, capset;
} nfa;

static void nfa_add(nfa *a, uint32_t pos)
{
	uint64_t bit = 1ull << (pos & 63);
	if (a->in[pos >> 6] & bit)
		return;
	a->in[pos >> 6] |= bit;
	xgrow(&a->set, &a->capset, a->nset + 1, sizeof *a->set);
	a->set[a->nset++] = pos;
}

/* Start a new set (the last one's bits cleared). */
static void nfa_reset(nfa *a)
{
	for (size_t i = 0; i < a->nset; i++)
		a->in[a->set[i] >> 6] = 0;
	a->nset = 0;
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
		if (!(ps->tid[i] & POS_END))
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

/* The subset construction's table, in chunks of whole rows allocated as
 * states appear (a chunk fills one 2 MiB huge page; the first grows by
 * doubling up to that): a table of tens of megabytes is never copied to
 * grow, nor its old copies faulted in. Or, given room where the finished
 * table goes (dfa_build_at's reserve), its first rows are written there
 * (flat) and, when the minimized table is the same, left there: no second
 * table of tens of megabytes. A state past that room spills the rows of
 * its chunk into one of their own, and the table is chunked from then on. */
#define RAW_CHUNK ((size_t)2 << 20)

typedef struct {
	uint32_t nstates, ncls;
	uint32_t rpc;           /* rows per chunk */
	uint32_t **chunk;
	size_t nchunk, cap0;    /* chunks; rows the first one has room for */
	uint32_t *flat;         /* the reserved room, NULL once spilled or none */
	size_t flatrows;        /* rows it holds */
	size_t nflat;           /* chunks 0 .. nflat - 1 point into the room */
	uint32_t empty;         /* the empty set's state, UINT32_MAX if none */
	uint32_t *entry;        /* per state: entry id */
} raw_dfa;

static void raw_init(raw_dfa *r, uint32_t ncls, uint32_t *flat, size_t flatrows)
{
	memset(r, 0, sizeof *r);
	r->ncls = ncls;
	r->rpc = (uint32_t)(RAW_CHUNK / 4 / ncls);
	r->empty = UINT32_MAX;
	r->flat = flatrows ? flat : NULL;
	r->flatrows = r->flat ? flatrows : 0;
}

static void raw_free(raw_dfa *r)
{
	for (size_t k = r->nflat; k < r->nchunk; k++)
		free(r->chunk[k]);
	free(r->chunk);
	free(r->entry);
}

static uint32_t *raw_row(const raw_dfa *r, uint32_t s)
{
	return r->chunk[s / r->rpc] + (size_t)(s % r->rpc) * r->ncls;
}

/* Room for state s's row (states are added in order). */
static uint32_t *raw_add_row(raw_dfa *r, uint32_t s)
{
	size_t k = s / r->rpc, row = s % r->rpc;
	if (r->flat && s >= r->flatrows) {
		/* past the room: chunk k's rows so far go to a chunk of
		 * their own, the rest of the table is chunked */
		if (k < r->nchunk) {
			uint32_t *c = xmalloc(RAW_CHUNK);
			memcpy(c, r->chunk[k], row * r->ncls * 4);
			r->chunk[k] = c;
			r->nflat = k;
		}
		r->flat = NULL;
		r->cap0 = r->rpc;     /* chunk 0 is whole: never regrown */
	}
	if (k >= r->nchunk) {
		r->chunk = xrealloc(r->chunk, (k + 1) * sizeof *r->chunk);
		r->chunk[k] = r->flat ? r->flat + k * r->rpc * r->ncls :
			      k ? xmalloc(RAW_CHUNK) : NULL;
		r->nchunk = k + 1;
		if (r->flat)
			r->nflat = k + 1;
	}
	if (!k && !r->flat && row >= r->cap0) {
		size_t c = r->cap0 ? r->cap0 * 2 : 64;
		if (c >= r->rpc)
			c = r->rpc;
		r->chunk[0] = xrealloc(r->chunk[0], c == r->rpc ? RAW_CHUNK : c * r->ncls * 4);
		r->cap0 = c;
	}
	return r->chunk[k] + row * r->ncls;
}

/* The entry of one position set: per channel the winning decision. */
static uint32_t set_entry(const nfa *a, const uint32_t *set, size_t n,
			  uint32_t nchan, const uint32_t *defaults, interner *ent)
{
	uint32_t w[32];
	bool hit[32] = { false }, any = false;
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
			hit[c] = any = true;
		}
	}
	/* no pattern ends here (most states): the defaults, entry 0 */
	return any ? in_put(ent, w, nchan, NULL) : 0;
}

static const char *determinize(nfa *a, const uint8_t cls[256], uint32_t ncls,
			       uint32_t nchan, const uint32_t *defaults,
			       uint32_t max_states, interner *ent, raw_dfa *r)
{
	unsigned rep[256];
	for (int b = 255; b >= 0; b--)
		rep[cls[b]] = (unsigned)b;
	interner sets = { 0 };
	nfa_reset(a);
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
		uint32_t *row = raw_add_row(r, s);
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
			cur = in_get(&sets, s, &n);   /* in_put may move the first chunk */
			uint32_t lo = c ? start[c - 1] : 0, hi = start[c];
			if (lo == hi && !nwild) {
				/* nothing steps on c: the empty set (most of a large
				 * policy's transitions) */
				if (empty == UINT32_MAX)
					empty = in_put(&sets, NULL, 0, NULL);
				row[c] = empty;
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
				row[c] = memo_to[mi];
				continue;
			}
			nfa_reset(a);
			for (uint32_t i = lo; i < hi; i++)
				nfa_step(a, bucket[i], rep[c]);
			for (size_t i = 0; i < nwild; i++)
				nfa_step(a, wild[i], rep[c]);
			sort_set(a->set, a->nset);
			/* a loop back to s ("**" and the like on most bytes) is
			 * found by comparing with s's own set, in cache, not by a
			 * probe of the table; sets are distinct, so it is s */
			uint32_t to = a->nset == n && !memcmp(a->set, cur, n * 4) ? s :
				      in_put(&sets, a->set, a->nset, NULL);
			row[c] = to;
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
	if (!err) {
		r->entry = xmalloc(sets.n * sizeof *r->entry);
		for (uint32_t s = 0; s < sets.n; s++) {
			size_t n;
			const uint32_t *cur = in_get(&sets, s, &n);
			r->entry[s] = set_entry(a, cur, n, nchan, defaults, ent);
			if (!n)
				r->empty = s;
		}
	}
	in_free(&sets);
	return err;
}

/* Predecessors of the states that can change block (CSR: pred[pcount[s]
 * .. pcount[s + 1]]): split_block reads a state's only when it moves. A
 * state alone in its first block never moves (an accepting state of a
 * large policy usually is: its statement decides it), nor does the empty
 * set (split_block): most transitions lead to one or the other and are
 * never listed. */
static void predecessors(const raw_dfa *r, const uint32_t *part, uint32_t nblocks,
			 uint32_t **pcount_out, uint32_t **pred_out)
{
	uint32_t n = r->nstates, m = r->ncls;
	uint32_t *pcount = xcalloc((size_t)n + 2, sizeof *pcount);
	uint32_t *size = xcalloc((size_t)nblocks + 1, sizeof *size);
	for (uint32_t s = 0; s < n; s++)
		size[part[s]]++;
	for (uint32_t s = 0; s < n; s++) {
		const uint32_t *row = raw_row(r, s);
		for (uint32_t c = 0; c < m; c++)
			pcount[row[c] + 1]++;
	}
	for (uint32_t s = 0; s < n; s++)
		if (s == r->empty || size[part[s]] < 2)
			pcount[s + 1] = 0;
	free(size);
	for (uint32_t s = 0; s < n; s++)
		pcount[s + 1] += pcount[s];
	uint32_t *pred = xmalloc(((size_t)pcount[n] + 1) * sizeof *pred);
	uint32_t *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
	memcpy(fill, pcount, ((size_t)n + 1) * sizeof *fill);
	for (uint32_t s = 0; s < n; s++) {
		const uint32_t *row = raw_row(r, s);
		for (uint32_t c = 0; c < m; c++)
			if (pcount[row[c] + 1] != pcount[row[c]])
				pred[fill[row[c]]++] = s;
	}
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
	struct slot { uint32_t gen, state, grp; } *tab;   /* grouping table, stamped by gen */
	uint32_t gen;
	size_t tcap;
	uint32_t *pcount, *pred;
} refiner;

static uint64_t row_hash(const refiner *f, uint32_t s)
{
	uint32_t m = f->r->ncls;
	const uint32_t *ts = raw_row(f->r, s);
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
	const uint32_t *ta = raw_row(f->r, a), *tb = raw_row(f->r, b);
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
 * must be split again. The empty set's group comes first: it never moves
 * (its predecessors are not listed). */
static void split_block(refiner *f, uint32_t b)
{
	uint32_t n = 0, ngroups = 0, e = f->r->empty;
	if (e != UINT32_MAX && f->part[e] == b)
		f->mem[n++] = e;
	for (uint32_t s = f->head[b]; s != UINT32_MAX; s = f->next[s])
		if (s != e)
			f->mem[n++] = s;
	if (n < 2)
		return;
	f->gen++;
	/* the block's own share of the table: a small block's probes stay in
	 * cache instead of landing anywhere in a table sized for every state */
	size_t mask = 15;
	while (mask < 2 * (size_t)n)
		mask = mask * 2 + 1;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t s = f->mem[i];
		for (size_t k = row_hash(f, s) & mask;; k = (k + 1) & mask) {
			struct slot *t = &f->tab[k];
			if (t->gen != f->gen) {
				t->gen = f->gen;
				t->state = s;
				t->grp = f->grp[i] = ngroups++;
				break;
			}
			if (same_row(f, t->state, s)) {
				f->grp[i] = t->grp;
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

/* live[s]: a state other than the all-default entry's is reachable from
 * s. The states from which none is are all equivalent (entry 0 after any
 * input): one block, the one whose states have entry 0 and every
 * transition back into it. No backward search, so no predecessor lists. */
static bool *live_states(const raw_dfa *r, const uint32_t *part)
{
	uint32_t dead = UINT32_MAX;
	for (uint32_t k = 0; k <= r->nstates && dead == UINT32_MAX; k++) {
		/* the empty set, when there is one, is dead: try it first */
		uint32_t s = k ? k - 1 : r->empty;
		if (s == UINT32_MAX || r->entry[s] != 0)
			continue;
		const uint32_t *row = raw_row(r, s);
		uint32_t c = 0;
		while (c < r->ncls && part[row[c]] == part[s])
			c++;
		if (c == r->ncls)
			dead = part[s];
	}
	bool *live = xmalloc((size_t)r->nstates + 1);
	for (uint32_t s = 0; s < r->nstates; s++)
		live[s] = part[s] != dead;
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
	f.tab = xcalloc(f.tcap, sizeof *f.tab);
	predecessors(r, f.part, f.nblocks, &f.pcount, &f.pred);
	while (f.ndirty) {
		uint32_t b = f.dirty[--f.ndirty];
		f.isdirty[b] = false;
		split_block(&f, b);
	}
	*live = live_states(r, f.part);
	free(f.head);
	free(f.next);
	free(f.dirty);
	free(f.isdirty);
	free(f.mem);
	free(f.grp);
	free(f.tab);
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
 * which is all the enforcer needs it for; equivalent states have one
 * entry, so the raw states give the minimized DFA's). */
static uint32_t worst_entry(const raw_dfa *r, uint32_t nchan, interner *ent,
			    const uint32_t *defaults)
{
	uint32_t worst[32];
	bool ch = false;
	memcpy(worst, defaults, nchan * 4);
	for (uint32_t s = 0; s < r->nstates; s++)
		combine(worst, in_get(ent, r->entry[s], NULL), nchan, &ch);
	return in_put(ent, worst, nchan, NULL);
}

const char *dfa_build(const dfa_patset *ps, uint32_t nchan, const uint32_t *defaults,
		      uint32_t max_states, dfa *d)
{
	return dfa_build_at(ps, nchan, defaults, max_states, NULL, NULL, NULL, d);
}

/* Rows to reserve where the table goes: the states of a set of literal
 * paths and "**" tails (a trie) are a fraction of the positions; a policy
 * with more states spills (raw_add_row). Never more than a blob holds. */
static size_t flat_rows(size_t npos, uint32_t ncls, uint32_t max_states)
{
	size_t rows = npos / 2 + 64, most = POLC_MAX_BLOB_WORDS / ncls;
	if (rows > most)
		rows = most;
	return rows > (size_t)max_states + 1 ? (size_t)max_states + 1 : rows;
}

/* The rows still in the reserved room move to chunks of their own (the
 * minimized table is written over the room). */
static void raw_unflatten(raw_dfa *r)
{
	for (size_t k = 0; k < r->nflat; k++) {
		size_t rows = r->nstates - k * r->rpc;
		uint32_t *c = xmalloc(RAW_CHUNK);
		memcpy(c, r->chunk[k], (rows < r->rpc ? rows : r->rpc) * r->ncls * 4);
		r->chunk[k] = c;
	}
	r->nflat = 0;
	r->flat = NULL;
}

/* The blocks in BFS order from the start (order: a state of each; id: each
 * block's number): the minimized DFA's canonical numbering. Returns
 * whether it is the raw numbering itself (nothing merged, nothing moved). */
static bool bfs_order(const raw_dfa *r, const uint32_t *part, uint32_t np, uint32_t *id,
		      uint32_t *order)
{
	memset(id, 0xff, np * sizeof *id);
	uint32_t n = 0;
	id[part[0]] = n;
	order[n++] = 0;
	bool same = np == r->nstates;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t *row = raw_row(r, order[i]);
		for (uint32_t c = 0; c < r->ncls; c++) {
			uint32_t t = row[c], pt = part[t];
			if (id[pt] == UINT32_MAX) {
				same = same && t == n;
				id[pt] = n;
				order[n++] = t;
			}
		}
	}
	return same;
}

const char *dfa_build_at(const dfa_patset *ps, uint32_t nchan, const uint32_t *defaults,
			 uint32_t max_states, dfa_place_fn place, dfa_reserve_fn reserve,
			 void *ctx, dfa *d)
{
	memset(d, 0, sizeof *d);
	if (nchan == 0 || nchan > 32)
		return "bad channel count";
	nfa a = { .ps = ps, .tok = ps->tid, .npos = (uint32_t)ps->ntid };
	a.in = xcalloc(a.npos / 64 + 1, sizeof *a.in);

	byte_classes(ps, d->cls, &d->ncls);
	d->nchan = nchan;
	size_t flatrows = place && reserve ? flat_rows(a.npos, d->ncls, max_states) : 0;
	raw_dfa r;
	raw_init(&r, d->ncls, flatrows ? reserve(ctx, d, flatrows) : NULL, flatrows);
	interner ent = { 0 };
	in_put(&ent, defaults, nchan, NULL);       /* entry 0: all defaults */
	const char *err = determinize(&a, d->cls, d->ncls, nchan, defaults,
				      max_states, &ent, &r);
	free(a.in);
	free(a.set);
	if (err) {
		raw_free(&r);
		in_free(&ent);
		return err;
	}
	uint32_t np;
	bool *live;
	uint32_t *part = minimize(&r, &np, &live);
	d->worst = worst_entry(&r, nchan, &ent, defaults);
	d->nstates = np;       /* every state is reachable: the BFS meets every block */
	d->nentries = (uint32_t)ent.n;
	d->start = 0;
	d->placed = place != NULL;
	/* Number the classes in BFS order from the start: a canonical DFA. */
	uint32_t *id = xmalloc(np * sizeof *id);
	uint32_t *order = xmalloc(np * sizeof *order);
	/* rows in the room but not finished there (renumbered, or spilled
	 * past it) move out first: the table is written over the room */
	bool in_place = bfs_order(&r, part, np, id, order) && r.flat;
	if (r.nflat && !in_place)
		raw_unflatten(&r);
	d->trans = place ? place(ctx, d) : xmalloc((size_t)np * d->ncls * sizeof *d->trans);
	if (in_place && d->trans != r.flat) {
		/* the room moved (its owner grew it): the rows moved with it */
		for (size_t k = 0; k < r.nflat; k++)
			r.chunk[k] = d->trans + k * r.rpc * r.ncls;
		r.flat = d->trans;
	}
	d->accept = xmalloc(np * sizeof *d->accept);
	/* In place (the raw table is the room and the numbering is the
	 * same), row i is read and written where it is. */
	for (uint32_t i = 0; i < np; i++) {
		uint32_t s = order[i];
		const uint32_t *row = raw_row(&r, s);
		uint32_t *to = d->trans + (size_t)i * d->ncls;
		d->accept[i] = r.entry[s] | (live[s] ? 0 : POLC_ACC_DEAD);
		for (uint32_t c = 0; c < d->ncls; c++) {
			uint32_t t = row[c];
			to[c] = id[part[t]] | (live[t] ? 0 : POLC_TRANS_DEAD);
		}
	}
	free(id);
	free(order);
	free(part);
	raw_free(&r);
	free(live);
	d->entries = xmalloc(ent.n * nchan * sizeof *d->entries);
	for (uint32_t e = 0; e < ent.n; e++)
		memcpy(&d->entries[(size_t)e * nchan], in_get(&ent, e, NULL), nchan * 4);
	in_free(&ent);
	return NULL;
}

void dfa_free(dfa *d)
{
	if (!d->placed)
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
		uint32_t t = d->trans[(size_t)st * d->ncls + d->cls[(unsigned char)s[i]]];
		if (t & POLC_TRANS_DEAD)
			return 0;
		st = t;
	}
	return POLC_ACC_ENTRY(d->accept[st]);
}
