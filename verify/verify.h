/* verify.h - run probes on a real kernel under a backend's output and
 * compare each outcome with ir_decide().
 *
 * Takes: a policy, its probes (compiler/probe.h), and an artifact built by
 *        a backend through the backend interface (never its internals).
 * Gives: per probe the observed outcome; per statement a tally.
 * Promises: no probe can affect anything outside a forked child: seccomp
 *        probes never execute the probed syscall (see seccomp_probe.c).
 */
#ifndef POLC_VERIFY_H
#define POLC_VERIFY_H

#include <stdbool.h>
#include "../compiler/probe.h"

typedef enum { OUT_ALLOWED, OUT_DENIED, OUT_KILLED, OUT_SKIPPED, OUT_ERROR } outcome_kind;

typedef struct {
	outcome_kind kind;
	int err;                /* OUT_DENIED */
	const char *why;        /* OUT_SKIPPED / OUT_ERROR */
} outcome;

/* seccomp: filter = raw struct sock_filter array (format "bpf"). */
outcome seccomp_probe_run(const void *filter, size_t len, const ir_event *ev);

/* Does an observed outcome agree with the decision? audit counts as
 * allowed (logs are not observed). */
bool outcome_matches(const outcome *o, const ir_decision *d);

#endif
