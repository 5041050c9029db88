/* dfa.h - a set of path globs compiled into one minimized DFA whose accept
 * states carry, per channel, the deciding statement's decision word.
 *
 * Takes: patterns: token sequences (built from globs by dfa_add_glob, or by
 *        hand for the mount DFA), each with a channel mask and a decision
 *        word (bpf_layout.h); per channel a default decision.
 * Gives: byte equivalence classes, a transition table, per state the index
 *        of its accept entry and whether nothing but the default is
 *        reachable (the walk may stop early); the index of the most
 *        restrictive entry reachable from the start (for paths too long to
 *        walk: fail closed).
 * Promises: for every byte string s, walking s from start and reading the
 *        entry gives, per channel, the most restrictive decision among the
 *        patterns that match s (ties: smallest statement index), or the
 *        default. Glob meaning is compiler/glob.h's. Limits (brace
 *        expansions, states, entries) are errors with a message, never a
 *        silent truncation.
 */
#ifndef POLC_BPF_DFA_H
#define POLC_BPF_DFA_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "../../compiler/glob.h"

/* A pattern token is a glob token (compiler/glob.h): one byte of set, or
 * zero or more. Globs are tokenized by glob_tokenize(), the matcher's own. */
typedef glob_tok dfa_tok;

/* A pattern's tokens are ids into its set's table of distinct tokens
 * (4 bytes a token instead of 33: a 100,000-statement policy has millions
 * of tokens, nearly all of them literal bytes). */
typedef struct {
	size_t first;          /* tokens: ps->tid[first .. first + ntok) */
	size_t ntok;
	uint32_t chanmask;     /* channels this pattern decides */
	uint32_t dec;          /* decision word for those channels */
} dfa_pat;

typedef struct {
	dfa_pat *v;
	size_t n, cap;
	uint32_t *tid;         /* every pattern's token ids, in order, each
	                          pattern's followed by an end mark */
	size_t ntid, tidcap;
	dfa_tok *tok;          /* distinct tokens: id b < 256 is the literal
	                          byte b, then the others as first added */
	size_t ntok, tokcap;
	uint32_t *tab;         /* open addressing over ids >= 256: id + 1, 0 empty */
	size_t tabcap;
	dfa_tok *scratch;      /* one alternative's tokens while it is added */
	size_t scratchcap;
} dfa_patset;

typedef struct {
	uint32_t nstates, ncls, nchan, nentries, start;
	uint32_t worst;        /* entry: per channel the most restrictive reachable */
	uint8_t cls[256];
	uint32_t *trans;       /* nstates * ncls: target | POLC_TRANS_DEAD when
	                          the target is dead (bpf_layout.h) */
	uint32_t *accept;      /* nstates: entry | dead << 31 (bpf_layout.h) */
	uint32_t *entries;     /* nentries * nchan */
	bool placed;           /* trans is the caller's (dfa_build_at) */
} dfa;


void dfa_patset_init(dfa_patset *ps);
void dfa_patset_free(dfa_patset *ps);
/* Room for npat more patterns of ntok tokens in all (ends included). */
void dfa_patset_reserve(dfa_patset *ps, size_t npat, size_t ntok);

/* Token helpers for hand-built patterns. */
void dfa_tok_lit(dfa_tok *t, uint8_t c);
void dfa_tok_all(dfa_tok *t, bool many);       /* any byte */

/* Append the expansions of `glob` after the tokens in prefix (may be NULL).
 * Returns NULL or a static error message. */
const char *dfa_add_glob(dfa_patset *ps, const dfa_tok *prefix, size_t nprefix,
			 const char *glob, uint32_t chanmask, uint32_t dec);
/* Append one pattern made of the given tokens (copied). */
void dfa_add_tokens(dfa_patset *ps, const dfa_tok *tok, size_t ntok,
		    uint32_t chanmask, uint32_t dec);

/* Build. defaults: nchan decision words. Returns NULL or an error message
 * (static text). A DFA of more than max_states states is refused. */
const char *dfa_build(const dfa_patset *ps, uint32_t nchan, const uint32_t *defaults,
		      uint32_t max_states, dfa *out);
/* The same with the transition table written where place(ctx, d) says:
 * called once, with d's sizes (nstates, ncls, nchan, nentries) set, it
 * returns room for nstates * ncls words, e.g. inside the bundle's blob (no
 * copy of a table of tens of megabytes). dfa_free leaves that room alone. */
typedef uint32_t *(*dfa_place_fn)(void *ctx, const dfa *d);
/* reserve (may be NULL; used only with place): called first, with d's
 * ncls and nchan set, it returns room for rows * ncls words where place
 * will put the table (place then returns that room, or the room moved
 * with its contents), or NULL. The subset construction writes its table
 * there, and when minimizing merges nothing and renumbers nothing, the
 * table is finished where it is (no copy of tens of megabytes). */
typedef uint32_t *(*dfa_reserve_fn)(void *ctx, const dfa *d, size_t rows);
const char *dfa_build_at(const dfa_patset *ps, uint32_t nchan, const uint32_t *defaults,
			 uint32_t max_states, dfa_place_fn place, dfa_reserve_fn reserve,
			 void *ctx, dfa *out);
void dfa_free(dfa *d);

/* Walk s (len bytes) and return its accept entry index (userspace mirror of
 * the program's walk; len >= POLC_PATH_MAX decides by the start's worst). */
uint32_t dfa_walk(const dfa *d, const char *s, size_t len);

#endif
