/* sysmix.h - a trace's syscall mix: how often each (ABI, syscall number)
 * ran, for the seccomp backend's profiled layout (`polc build --profile-from`)
 * and polc bench's instructions-per-syscall figures.
 *
 * Takes: a trace (trace.h).
 * Gives: one sys_freq (compiler/syscalls.h) per distinct (ABI, number), in
 *        the trace's record order, counts of equal entries summed.
 * Promises: names the syscall table does not know on that ABI (`nr_N`
 *        records of unknown numbers included) are left out and counted in
 *        *skipped; the result does not depend on anything but the trace.
 */
#ifndef POLC_SYSMIX_H
#define POLC_SYSMIX_H

#include <stddef.h>
#include "trace.h"
#include "../compiler/syscalls.h"

/* *out is allocated (free() it; NULL when empty). Returns the entry count. */
size_t trace_sysmix(const trace *t, sys_freq **out, uint64_t *skipped);

/* Read path and take its mix. Returns 0, or -1 (TRACE_EIO when the file
 * cannot be read) with *err allocated. */
int trace_sysmix_read(const char *path, sys_freq **out, size_t *n, char **err);

#endif
