/* profile_from.h - `polc build --target T --profile-from TRACE` for a target with
 * emit_profiled (seccomp, format bpf): the raw filter laid out for the trace's syscall mix (hot syscalls
 * decided first, same decisions: backends/seccomp/layout.c).
 *
 * Returns 0 with the filter appended to out and a one-line summary on
 * stderr, or -1 with a diagnostic: another target or format (the layout is
 * of raw BPF; PFC and OCI JSON are laid out by libseccomp and runc), an
 * unreadable trace, or a layout that would change a decision.
 */
#ifndef POLC_PROFILE_FROM_H
#define POLC_PROFILE_FROM_H

#include <stdbool.h>
#include "../backends/backend.h"

int build_profiled(const ir_policy *p, const backend *b, const backend_opts *o,
		   buf *out, diag_ctx *d);

#endif
