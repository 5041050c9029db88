/* arena.h - the allocation arena an ir_policy owns: everything in the IR
 * is freed at once by ir_free(). */
#ifndef POLC_ARENA_H
#define POLC_ARENA_H

#include <stddef.h>

struct ir_arena;
struct ir_arena *arena_new(void);
void *arena_alloc(struct ir_arena *a, size_t n);      /* zeroed */
char *arena_strdup(struct ir_arena *a, const char *s);
void arena_free(struct ir_arena *a);

#endif
