/* arena.h - an allocation arena: many small zeroed objects freed at once.
 * The IR of a policy (ir_free()) and the syntax tree of a source file
 * (ast_file_free()) live in one each.
 *
 * Takes: sizes. Gives: zeroed memory aligned for any type, valid until
 *        arena_free(). Promises: never NULL (aborts when memory runs out,
 *        as xmalloc does); bump allocation from chunks growing to 4 MiB,
 *        the large ones mapped with MADV_HUGEPAGE: a 100,000-statement
 *        policy faults in a few dozen 2 MiB pages instead of thousands of
 *        4 KiB ones (a 4 KiB fault costs ~16 us on this VM host,
 *        the front end's superlinear part). Under AddressSanitizer every
 *        object is its own heap block, so overflows are still caught.
 */
#ifndef POLC_ARENA_H
#define POLC_ARENA_H

#include <stddef.h>

struct ir_arena;
struct ir_arena *arena_new(void);
void *arena_alloc(struct ir_arena *a, size_t n);      /* zeroed */
char *arena_strdup(struct ir_arena *a, const char *s);
void arena_free(struct ir_arena *a);

#endif
