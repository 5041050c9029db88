/* gen.h - traces in, a policy in the polc language out (`polc gen`).
 *
 * Takes: a (merged) trace and options.
 * Gives: policy source text: `default deny syscall;`, the syscalls seen as
 *        one sorted `allow syscall` list with counts in comments, file rules
 *        generalised (/proc/<pid> and /proc/self -> /proc/\*, pid numbers and
 *        mkstemp-like names in written files -> *, directories with many
 *        entries -> dir/\* and dir/\**, read kept apart from write), execs,
 *        network binds/connects/listens/accepts, mounts, capabilities.
 * Promises: deterministic (same trace, same bytes); only successful events
 *        unless include_failed; with base, a `use BASE;` line and only what
 *        that rule (under default deny syscall) does not already allow, as
 *        decided by the compiler's ir_decide. The text is meant to pass
 *        `polc check` unchanged.
 */
#ifndef POLC_GEN_H
#define POLC_GEN_H

#include <stdbool.h>
#include "trace.h"

typedef struct {
	const char *name;          /* policy name */
	const char *base;          /* rule to `use`, or NULL */
	bool include_failed;       /* also events that failed */
	unsigned dir_threshold;    /* entries before dir/\* (0: 8) */
	const char *deny_defaults; /* extra "default deny" domains, e.g.
	                              "file, exec" (NULL: syscall only) */
} gen_opts;

/* Append the policy to out. -1 with *err allocated on failure (base rule
 * unknown or not compilable). */
int gen_policy(const trace *t, const gen_opts *o, buf *out, char **err);

/* Exposed for tests: the path after pid/self/temp generalisation. */
char *gen_generalize_path(const char *path, bool written);

#endif
