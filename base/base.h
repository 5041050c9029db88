/* base/ - the shared basics every stage builds on, below grammar/ and
 * compiler/: it includes nothing of polc outside this folder.
 *
 * Gives: util.h (allocation that cannot fail silently, the growable byte
 *        buffer, atomic file output, hashing), diag.h (source files,
 *        file:line:col locations, the diagnostics list), arena.h (the
 *        allocation arena an ir_policy owns), and here the process exit
 *        codes every command and backend returns.
 * Promises: the exit codes are the contract of the whole program:
 *        0 ok, 1 policy errors (or a difference/mismatch found), 2 usage,
 *        3 I/O or system errors.
 */
#ifndef POLC_BASE_H
#define POLC_BASE_H

#include "util.h"
#include "diag.h"
#include "arena.h"

enum { EXIT_OK = 0, EXIT_POLICY = 1, EXIT_USAGE = 2, EXIT_SYSTEM = 3 };

#endif
