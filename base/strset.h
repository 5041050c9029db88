/* strset.h - a set of strings in the order they were first added.
 *
 * Promises: add and lookup take constant time on average, so a set built
 *        from the 4,096 alternatives a glob may expand to stays linear;
 *        v[0..n) holds each distinct string once, first-added first (so
 *        outputs built from it are deterministic); the set owns its
 *        strings. strset_sort() orders v and keeps the set usable;
 *        strset_remove_if() keeps the order of what stays.
 */
#ifndef POLC_STRSET_H
#define POLC_STRSET_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
	char **v;
	size_t n, cap;
	size_t *slot;      /* open addressing: index + 1 into v, 0 = empty */
	size_t nslot;      /* a power of two, or 0 before the first add */
} strset;

/* Add a copy of x; true if it was not there. */
bool strset_add(strset *s, const char *x);
/* Add x itself (malloc'd), or free it if already there; true if new. */
bool strset_take(strset *s, char *x);
bool strset_has(const strset *s, const char *x);
/* Index of x in v, or -1. */
long strset_find(const strset *s, const char *x);
/* Order v by strcmp. */
void strset_sort(strset *s);
/* Remove (and free) every string drop(x, ctx) says; the others keep their
 * order. Linear in n. Returns how many went. */
size_t strset_remove_if(strset *s, bool (*drop)(const char *x, void *ctx), void *ctx);
void strset_free(strset *s);

#endif
