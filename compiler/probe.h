/* probe.h - concrete events derived from a policy's statements, for the
 * verifier: for every statement, events it must decide, and neighbours on
 * the other side of each boundary (argument values around each constant,
 * the sibling of a literal path, the address just outside a prefix, the
 * port just outside a range, a permission or capability not named).
 *
 * Takes: an ir_policy. Gives: a probe list; each probe's expected outcome
 * is ir_decide(policy, &probe.ev), computed by the caller.
 * Promises: deterministic (same policy, same probes in the same order);
 * every string in a probe is owned by the probe_set.
 */
#ifndef POLC_PROBE_H
#define POLC_PROBE_H

#include "ir.h"

typedef struct {
	ir_event ev;
	const ir_stmt *from;       /* the statement it was derived from */
	const char *what;          /* "match", "neighbour: arg0 = c+1", ... */
} probe;

typedef struct {
	probe *v;
	size_t n, cap;
	char **strings;            /* owned */
	size_t nstrings, capstrings;
} probe_set;

/* Append the probes of every statement of p in domain `dom` (or every
 * domain when dom == IR_NDOMAIN). */
void probes_derive(const ir_policy *p, ir_domain dom, probe_set *out);
void probes_free(probe_set *ps);

/* One probe as text ("syscall x86_64 clone(0x10000000, 0, ...)"), into out. */
void probe_describe(const probe *pr, char *out, size_t n);

/* A concrete path the glob matches (wildcards filled in), or NULL if the
 * glob has none that fits PATH_MAX. Caller frees. */
char *glob_example(const char *glob);

#endif
