/* verify/ - the proof stage: run probes on a real kernel under a backend's
 * output and compare each outcome with ir_decide(). How a backend is
 * probed (a filter judged per syscall, or an LSM put in force and every
 * event done for real) is its struct backend's; verify/ never names one.
 *
 * Takes: a policy, its probes (compiler/events.h), and an artifact built by
 *        a backend through the backend interface (never its internals).
 * Gives: per probe the observed outcome; per statement a tally.
 * Promises: no probe can affect anything outside a forked child: seccomp
 *        probes never execute the probed syscall (see seccomp_probe.c).
 */
#ifndef POLC_VERIFY_H
#define POLC_VERIFY_H

#include <stdbool.h>
#include "../compiler/events.h"
#include "../backends/backend.h"

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

/* An LSM confinement a probe child enters once its world is built: the
 * backend's probe_open/probe_enter on what its probe_load set up. */
typedef backend_confine lsm_confine;

/* Run one event of the file, exec, capability, network, mount, ptrace or
 * signal domain for real, unconfined and then confined, each in a fresh
 * child with private namespaces and a throwaway overlay root (see
 * lsm_probe.c): allowed when both runs end alike, denied (with the errno)
 * when only the confined one fails, skipped when the unconfined run itself
 * is refused or the world cannot be built. Needs root. */
outcome lsm_probe_run(const lsm_confine *c, const ir_event *ev);

/* Other kernel routes to the same event, each probed as the event itself
 * (tests/vm/t_bypass.sh tries more of them): a file read also from inside
 * a chroot of the file's directory, and through a detached clone of that
 * directory (open_tree(OPEN_TREE_CLONE)); an IPv4 connect also to the
 * IPv4-mapped IPv6 address from an AF_INET6 socket, and as a send with the
 * address (sendto; MSG_FASTOPEN on TCP). The chroot and the clone are made
 * before confinement. */
typedef enum { ROUTE_DIRECT, ROUTE_CHROOT, ROUTE_TREE_CLONE, ROUTE_MAPPED6, ROUTE_SENDTO } lsm_route;
#define LSM_MAX_ROUTES 3
/* The routes of one event, ROUTE_DIRECT first; returns how many. */
size_t lsm_routes(const ir_event *ev, lsm_route out[LSM_MAX_ROUTES]);
const char *lsm_route_name(lsm_route r);
outcome lsm_probe_route(const lsm_confine *c, const ir_event *ev, lsm_route route);
/* Does a route's outcome agree with the event's decision under backend b?
 * A detached clone may fail closed (the BPF enforcer denies what it cannot
 * name): a denial agrees with an allow there, never the reverse. */
bool outcome_matches_route(const outcome *o, const ir_decision *d, const backend *b, lsm_route r);

/* Does an observed outcome agree with the decision? audit counts as
 * allowed (logs are not observed). */
bool outcome_matches(const outcome *o, const ir_decision *d);
/* The same for an LSM: a denial whose errno cannot be observed (err 0)
 * agrees with any deny, another errno only if agrees(want, got) says so
 * (a backend's errno_agrees: AppArmor's EACCES for EPERM; NULL: none). */
bool outcome_matches_lsm(const outcome *o, const ir_decision *d, bool (*agrees)(int, int));

#endif
