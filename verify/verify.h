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
	int err;                /* OUT_DENIED; 0: denied, errno not observable */
	const char *why;        /* OUT_SKIPPED / OUT_ERROR (static text) */
	bool isdir;             /* LSM probes: the path was a directory */
	char text[128];         /* why, when it had to be composed */
} outcome;

/* seccomp: filter = raw struct sock_filter array (format "bpf"). */
outcome seccomp_probe_run(const void *filter, size_t len, const ir_event *ev);

/* An LSM confinement a probe child enters once its world is built. */
typedef struct {
	const char *aa_profile;     /* AppArmor: change to this loaded profile */
	const char *cgroup;         /* BPF LSM: join this cgroup (policy loaded) */
} lsm_confine;

/* Run one event of the file, exec, capability, network, mount, ptrace or
 * signal domain for real, unconfined and then confined, each in a fresh
 * child with private namespaces and a throwaway overlay root (see
 * lsm_probe.c): allowed when both runs end alike, denied (with the errno)
 * when only the confined one fails, skipped when the unconfined run itself
 * is refused or the world cannot be built. Needs root. */
outcome lsm_probe_run(const lsm_confine *c, const ir_event *ev);

/* Does an observed outcome agree with the decision? audit counts as
 * allowed (logs are not observed). */
bool outcome_matches(const outcome *o, const ir_decision *d);
/* The same for an LSM: a denial whose errno cannot be observed (err 0)
 * agrees with any deny; AppArmor fails denials with EACCES (EPERM for
 * capabilities), which agrees with the language's default errno EPERM. */
bool outcome_matches_lsm(const outcome *o, const ir_decision *d, bool apparmor);

#endif
