/* test_bpf_dfa.c - the DFA compiler against glob_match(), the definition:
 * for random and adversarial paths, walking the DFA must give exactly the
 * set of matching globs (one channel each), the most restrictive winner
 * when globs share a channel, and a fail-closed answer for paths too long
 * to walk. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backends/bpf/dfa.h"
#include "backends/bpf/bpf_layout.h"
#include "compiler/glob.h"

#if defined(__SANITIZE_ADDRESS__)
#define SCALE 100     /* sanitizers: far slower; fewer paths, same kinds */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCALE 100
#endif
#endif
#ifndef SCALE
#define SCALE 1
#endif
/* globs in test_many: 5000 natively (the lab's stress test loads 5000 too) */
#define MANY (SCALE > 1 ? 500 : 5000)

static const char *const globs_a[] = {
	"/etc/passwd", "/etc/**", "/dir/*", "/dir/**", "/a/*/b", "/{,var/}run/secrets/**",
	"/**/.ssh/**", "/proc/[0-9]*/mem", "/x/?y", "/home/*/.*rc", "/a/**/b/**",
	"/dev/{sd,vd,xvd,nvme,hd}*", "/a/{*,x}**", "/t/\\*x", "/q/[^a-c]?", "/m/**{,x}**",
	"/proc/sys/kernel/**", "/proc/**/mountinfo", "/**/release_agent", "/",
	"/é/*", "/{a,b{c,d}}/{,e/}f*", "/s/[a-]z", "/**", "/*", "/u/**/", "/w/*/", "/e/x.{c,h}",
	"/lib/**/*.so*", "/sys/fs/cgroup/**/release_agent", "/r/[!x]", "/k/{,{,}}",
};

static unsigned rnd_state = 12345;
static unsigned rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) & 0xffffff;
}

static const char alpha[] = "/ab.sc09etdpaswrunvxqyfkhl*?[]{}\\-!\xc3\xa9";

static void rand_seg(char *p, size_t *n, size_t cap, unsigned maxlen)
{
	unsigned len = rnd() % (maxlen + 1);
	for (unsigned k = 0; k < len && *n + 1 < cap; k++)
		p[(*n)++] = alpha[rnd() % (sizeof alpha - 1)];
}

/* A path near glob g: its literal text with specials replaced by random
 * runs, then adversarial edits (//, /./, trailing '/', long names). */
static void near_path(const char *g, char *p, size_t cap)
{
	size_t n = 0;
	for (; *g && n + 1 < cap; g++) {
		if (strchr("*?[]{},\\^", *g))
			rand_seg(p, &n, cap, 3);
		else
			p[n++] = *g;
	}
	p[n] = 0;
	switch (rnd() % 8) {
	case 0: if (n + 2 < cap) { p[n++] = '/'; p[n] = 0; } break;
	case 1: if (n + 3 < cap) { memmove(p + 2, p, n + 1); p[0] = '/'; p[1] = '/'; n += 2; } break;
	case 2: if (n + 300 < cap) { p[n++] = '/'; for (int k = 0; k < 250; k++) p[n++] = 'a' + rnd() % 3; p[n] = 0; } break;
	case 3: if (n + 4 < cap) { memcpy(p + n, "/./", 3); n += 3; p[n] = 0; } break;
	default: break;
	}
}

static void rand_path(char *p, size_t cap)
{
	size_t n = 0;
	p[n++] = '/';
	rand_seg(p, &n, cap, 24);
	p[n] = 0;
}

static void build(const char *const *g, size_t n, uint32_t shared_chan, const uint32_t *decs,
		  dfa *d)
{
	dfa_patset ps;
	dfa_patset_init(&ps);
	for (size_t i = 0; i < n; i++) {
		uint32_t mask = shared_chan ? 1u : 1u << i;
		uint32_t dec = decs ? decs[i] : POLC_DEC(POLC_V_DENY, 1, i);
		assert_null(dfa_add_glob(&ps, NULL, 0, g[i], mask, dec));
	}
	uint32_t defs[32];
	for (int c = 0; c < 32; c++)
		defs[c] = POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
	assert_null(dfa_build(&ps, shared_chan ? 1 : (uint32_t)n, defs, POLC_MAX_STATES, d));
	dfa_patset_free(&ps);
}

static void next_path(const char *const *g, size_t ng, char *p, size_t cap)
{
	if (rnd() % 4)
		near_path(g[rnd() % ng], p, cap);
	else
		rand_path(p, cap);
}

/* Every glob its own channel: the DFA's answer is the exact match set. */
static void test_match_sets(void **state)
{
	(void)state;
	size_t ng = sizeof globs_a / sizeof *globs_a;
	assert_true(ng <= 32);
	dfa d;
	build(globs_a, ng, 0, NULL, &d);
	print_message("globs %zu: states %u classes %u entries %u\n", ng, d.nstates, d.ncls, d.nentries);
	char p[1024];
	long checked = 0;
	for (int it = 0; it < 100000 / SCALE; it++) {
		next_path(globs_a, ng, p, sizeof p);
		uint32_t e = dfa_walk(&d, p, strlen(p));
		for (size_t i = 0; i < ng; i++) {
			bool want = glob_match(globs_a[i], p);
			bool got = POLC_DEC_STMT(d.entries[e * d.nchan + i]) == i;
			if (want != got)
				fail_msg("glob %s path '%s': glob_match %d, dfa %d", globs_a[i], p, want, got);
			checked++;
		}
	}
	print_message("%ld (glob, path) pairs agree\n", checked);
	dfa_free(&d);
}

/* Shared channel, random verdicts: the winner is ir_decide's rule. */
static void test_winner(void **state)
{
	(void)state;
	size_t ng = sizeof globs_a / sizeof *globs_a;
	uint32_t decs[64];
	for (int round = 0; round < 5; round++) {
		for (size_t i = 0; i < ng; i++) {
			uint32_t v = rnd() % 4;
			decs[i] = POLC_DEC(v, v >= 2 ? 1 + rnd() % 100 : 0, i);
		}
		dfa d;
		build(globs_a, ng, 1, decs, &d);
		char p[1024];
		for (int it = 0; it < 20000 / SCALE; it++) {
			next_path(globs_a, ng, p, sizeof p);
			uint32_t want = POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
			bool hit = false;
			for (size_t i = 0; i < ng; i++)
				if (glob_match(globs_a[i], p) && (!hit || polc_dec_wins(decs[i], want))) {
					want = decs[i];
					hit = true;
				}
			uint32_t got = d.entries[dfa_walk(&d, p, strlen(p))];
			if (got != want)
				fail_msg("path '%s': want %08x got %08x", p, want, got);
		}
		dfa_free(&d);
	}
}

/* A path of POLC_PATH_MAX bytes or more is decided by the start state's
 * worst entry: never less restrictive than the truth. */
static void test_fail_closed(void **state)
{
	(void)state;
	const char *g[] = { "/etc/**", "/**/x", "/long/*" };
	uint32_t decs[] = { POLC_DEC(POLC_V_ALLOW, 0, 0), POLC_DEC(POLC_V_DENY, 13, 1),
			    POLC_DEC(POLC_V_AUDIT, 0, 2) };
	dfa d;
	build(g, 3, 1, decs, &d);
	size_t n = POLC_PATH_MAX + 10;
	char *p = malloc(n + 1);
	memset(p, 'a', n);
	memcpy(p, "/etc/", 5);
	p[n] = 0;
	uint32_t got = d.entries[dfa_walk(&d, p, n)];
	assert_int_equal(POLC_DEC_VERDICT(got), POLC_V_DENY);
	assert_int_equal(POLC_DEC_ERR(got), 13);
	/* exactly one byte under the limit is walked exactly: /etc/ allow */
	p[POLC_PATH_MAX - 1] = 0;
	got = d.entries[dfa_walk(&d, p, POLC_PATH_MAX - 1)];
	assert_int_equal(got, decs[0]);
	free(p);
	dfa_free(&d);
}

/* Many literal and wildcard globs still build; report the size. */
static void test_many(void **state)
{
	(void)state;
	dfa_patset ps;
	dfa_patset_init(&ps);
	char g[128];
	for (int i = 0; i < MANY; i++) {
		switch (i % 4) {
		case 0: snprintf(g, sizeof g, "/srv/app%d/data/**", i); break;
		case 1: snprintf(g, sizeof g, "/usr/lib/mod%d/*.so", i); break;
		case 2: snprintf(g, sizeof g, "/etc/conf%d.d/{a,b}*", i); break;
		default: snprintf(g, sizeof g, "/home/*/proj%d/[a-z]?", i); break;
		}
		assert_null(dfa_add_glob(&ps, NULL, 0, g, 1, POLC_DEC(i % 3, i % 3 == 2, i)));
	}
	uint32_t def = POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
	dfa d;
	assert_null(dfa_build(&ps, 1, &def, POLC_MAX_STATES, &d));
	print_message("%d globs: states %u classes %u entries %u, %zu KiB of transitions\n",
		      MANY, d.nstates, d.ncls, d.nentries, (size_t)d.nstates * d.ncls * 4 / 1024);
	/* probes: a few concrete paths against glob_match over all patterns */
	const char *probe[] = { "/srv/app4/data/x", "/usr/lib/mod5/a.so", "/etc/conf6.d/bz",
				"/home/u/proj7/q1", "/home/u/proj7/Q1", "/srv/app4/data/" };
	for (size_t k = 0; k < sizeof probe / sizeof *probe; k++) {
		uint32_t want = def;
		bool hit = false;
		for (int i = 0; i < MANY; i++) {
			switch (i % 4) {
			case 0: snprintf(g, sizeof g, "/srv/app%d/data/**", i); break;
			case 1: snprintf(g, sizeof g, "/usr/lib/mod%d/*.so", i); break;
			case 2: snprintf(g, sizeof g, "/etc/conf%d.d/{a,b}*", i); break;
			default: snprintf(g, sizeof g, "/home/*/proj%d/[a-z]?", i); break;
			}
			uint32_t dec = POLC_DEC(i % 3, i % 3 == 2, i);
			if (glob_match(g, probe[k]) && (!hit || polc_dec_wins(dec, want))) {
				want = dec;
				hit = true;
			}
		}
		assert_int_equal(d.entries[dfa_walk(&d, probe[k], strlen(probe[k]))], want);
	}
	dfa_free(&d);
	dfa_patset_free(&ps);
}

/* A DFA over the state limit is refused with a message, not truncated:
 * "*a" then 12 single-byte wildcards needs 2^12 states (the classic
 * blow-up), over a limit of 1,000; the same globs under a limit of
 * 10,000 build. */
static void test_state_limit(void **state)
{
	(void)state;
	dfa_patset ps;
	dfa_patset_init(&ps);
	assert_null(dfa_add_glob(&ps, NULL, 0, "/*a????????????", 1,
				 POLC_DEC(POLC_V_DENY, 1, 0)));
	uint32_t def = POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
	dfa d;
	const char *e = dfa_build(&ps, 1, &def, 1000, &d);
	assert_non_null(e);
	assert_string_equal(e, "DFA has more states than the limit");
	assert_null(dfa_build(&ps, 1, &def, 10000, &d));
	assert_true(d.nstates > 1000);
	dfa_free(&d);
	dfa_patset_free(&ps);
}

/* dfa_build_at with room reserved where the table goes (as a bundle file
 * does) builds the same DFA as dfa_build: a trie with "**" tails (nothing
 * to merge: finished in the room), globs whose tails merge (renumbered,
 * out of the room), and a subset blow-up past the room (spilled). The
 * room is always moved by place, as a growing buffer may move it. */
typedef struct {
	uint32_t *v;
	size_t cap;
	size_t reserved;       /* rows asked for */
} room;

static uint32_t *room_reserve(void *ctx, const dfa *d, size_t rows)
{
	room *r = ctx;
	r->reserved = rows;
	r->cap = rows * d->ncls;
	r->v = realloc(r->v, r->cap * 4);
	assert_non_null(r->v);
	return r->v;
}

static uint32_t *room_place(void *ctx, const dfa *d)
{
	room *r = ctx;
	size_t need = (size_t)d->nstates * d->ncls, cap = need > r->cap ? need : r->cap;
	uint32_t *v = malloc(cap * 4);
	assert_non_null(v);
	if (r->v)
		memcpy(v, r->v, r->cap * 4);
	free(r->v);
	r->v = v;
	r->cap = cap;
	return v;
}

static void same_dfa(const dfa_patset *ps, size_t *spilled)
{
	uint32_t def = POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
	dfa a, b;
	room r = { 0 };
	assert_null(dfa_build(ps, 1, &def, 100000, &a));
	assert_null(dfa_build_at(ps, 1, &def, 100000, room_place, room_reserve, &r, &b));
	assert_true(r.reserved > 0);
	*spilled += a.nstates > r.reserved;
	assert_int_equal(a.nstates, b.nstates);
	assert_int_equal(a.ncls, b.ncls);
	assert_int_equal(a.nentries, b.nentries);
	assert_int_equal(a.start, b.start);
	assert_int_equal(a.worst, b.worst);
	assert_memory_equal(a.cls, b.cls, 256);
	assert_ptr_equal(b.trans, r.v);
	assert_memory_equal(a.trans, b.trans, (size_t)a.nstates * a.ncls * 4);
	assert_memory_equal(a.accept, b.accept, (size_t)a.nstates * 4);
	assert_memory_equal(a.entries, b.entries, (size_t)a.nentries * 4);
	dfa_free(&a);
	dfa_free(&b);
	free(r.v);
}

static void test_in_room(void **state)
{
	(void)state;
	size_t spilled = 0;
	char g[128];
	for (int kind = 0; kind < 4; kind++) {
		dfa_patset ps;
		dfa_patset_init(&ps);
		for (int i = 0; i < (kind == 3 ? 1 : 600); i++) {
			switch (kind) {
			case 0: snprintf(g, sizeof g, i % 8 ? "/srv/gen/d%d/**" : "/opt/gen/bin%d", i); break;
			case 1: snprintf(g, sizeof g, i % 2 ? "/%c/x" : "/%c%c", 'a' + i % 26, 'a' + i % 26); break;
			case 2: snprintf(g, sizeof g, "%s", globs_a[i % (sizeof globs_a / sizeof *globs_a)]); break;
			default: snprintf(g, sizeof g, "/*a????????????"); break;
			}
			/* kind 1: "/c/x" one decision (their tails merge), "/cc"
			 * each its own, so a state after a merged one is
			 * renumbered; kind 2: one decision for all */
			uint32_t one = POLC_DEC(POLC_V_DENY, 1, 7);
			uint32_t dec = (kind == 1 && i % 2) || kind == 2 ? one :
				       POLC_DEC(i % 3, i % 3 == 2, i);
			assert_null(dfa_add_glob(&ps, NULL, 0, g, 1, dec));
		}
		same_dfa(&ps, &spilled);
		dfa_patset_free(&ps);
	}
	assert_int_equal(spilled, 1);   /* the blow-up, past its room */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_sets),
		cmocka_unit_test(test_winner),
		cmocka_unit_test(test_fail_closed),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_state_limit),
		cmocka_unit_test(test_in_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
