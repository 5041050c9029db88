/* gen.h - traces in, a policy in the polc language out (`polc gen`).
 *
 * Takes: a (merged) trace and options.
 * Gives: policy source text: `default deny syscall;`, the syscalls seen as
 *        one sorted `allow syscall` list with counts in comments, file rules
 *        generalised (/proc/<pid> and /proc/self -> /proc/\*, pid numbers and
 *        mkstemp-like names in written files -> *, directories with many
 *        entries -> dir/\* and dir/\**, read kept apart from write), execs,
 *        network binds/connects/listens/accepts, mounts, capabilities.
 *        Generalised, each said in a comment: syscall families (gen.c's
 *        table), devices by class, O_TMPFILE names, versioned libraries;
 *        a directory glob only with the permissions every entry in it
 *        was seen with, never dir/\** over a shared root (/usr/lib); the
 *        run's working directory (meta cwd) as WD/\** the same way, unless
 *        it is a system or top-level directory or literal_cwd; a data
 *        directory files were read from (or that was listed) listable with
 *        the directories beneath it, DIR/ and DIR/\**\/ read only, and the
 *        getdents family with it (directory forms: names, never contents);
 *        a data directory the run made a subdirectory in and wrote files
 *        in that as DIR/\** read, write (and lock if seen there); a temp
 *        directory it made O_TMPFILE files in as DIR/\* with their
 *        permissions (gen.c: owned_trees, scratch_dir).
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
	bool no_families;          /* keep syscalls exactly as recorded */
	bool literal_cwd;          /* paths under the working directory as
	                              recorded, not WD/\** */
	const struct ir_policy *known; /* gen --update: leave out, as with base,
	                              what this policy already allows */
} gen_opts;

/* A syscall family: entry points to one operation on one kind of object,
 * never crossing a risk class (tracer/gen.c says why for each). A recorded
 * member implies the others, said in a comment in the policy. */
typedef struct {
	const char *name;
	const char *reason;
	const char *const *members;   /* NULL-terminated, x86_64 names */
	bool always;                  /* implied by any trace (the vDSO's calls) */
} gen_family;

/* The table, and the family of one syscall name (NULL: none). */
const gen_family *gen_families(size_t *n);
const gen_family *gen_family_of(const char *sys);

/* Append the policy to out. -1 with *err allocated on failure (base rule
 * unknown or not compilable). */
int gen_policy(const trace *t, const gen_opts *o, buf *out, char **err);

/* Signs in t that the recorded workload failed: a bind or listen that
 * failed, an exec that failed other than in a PATH search, an exit status
 * other than 0, death by a signal. One line each appended to out; returns
 * how many. (A run ended by `polc record` itself, "killed" or "detached",
 * is not a failure.) */
size_t gen_failures(const trace *t, buf *out);

/* Exposed for tests: the path after pid/self/temp generalisation. */
char *gen_generalize_path(const char *path, bool written);

#endif
