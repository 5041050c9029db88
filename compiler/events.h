/* events.h - concrete events derived from policies: the one place that
 * decides which events to ask ir_decide() about. Two users:
 *   verify (probes_derive): for every statement, events it must decide and
 *     neighbours on the other side of each boundary (argument values around
 *     each constant, the sibling of a literal path, the address just outside
 *     a prefix, the port just outside a range, a permission or capability
 *     not named), and the other kernel paths a statement implies closed
 *     (ir_implied: io_uring, clone3; syscall events whatever the
 *     statement's domain), each run confined in a kernel;
 *   diff (events_between): the events that can tell two policies apart:
 *     every syscall number 0..1023 of every ABI either names, at every
 *     boundary of the values either compares that syscall's arguments with
 *     (v-1, v, v+1; each subset of small masks); all capabilities and
 *     ptrace modes; example paths built from every glob of both (each brace
 *     alternative, wildcards as one and as several segments, the directory
 *     of a trailing wildcard, a sibling one byte longer); every network
 *     op, family and socket type at each CIDR's and port range's edges.
 * Both describe an event with event_text(), and fill globs the same way.
 *
 * Takes: ir_policy, read only. Gives: events (probes with the statement they
 * came from; a callback per event for diff); the expected outcome of each is
 * ir_decide(), computed by the caller.
 * Promises: deterministic (same policies, same events in the same order);
 * every string in a probe is owned by the probe_set; an event passed to an
 * events_fn lives only for the call.
 */
#ifndef POLC_EVENTS_H
#define POLC_EVENTS_H

#include "ir.h"
#include "../base/util.h"

typedef struct {
	ir_event ev;
	const ir_stmt *from;       /* the statement it was derived from */
	const char *what;          /* "match", "neighbour: arg0 = c+1", ... */
} probe;

typedef struct {
	probe *v;
	size_t n, cap;
	char **strings;            /* owned */
	size_t nstrings, capstrings;
} probe_set;

/* Append the probes of every statement of p in domain `dom` (or every
 * domain when dom == IR_NDOMAIN). */
void probes_derive(const ir_policy *p, ir_domain dom, probe_set *out);
void probes_free(probe_set *ps);

/* One probe as text (event_text with every argument), into out. */
void probe_describe(const probe *pr, char *out, size_t n);

/* Called once per event; shown: bit i set when argument i of a syscall
 * event is compared by either policy (the rest are 0). Return true when the
 * event told the policies apart: the other events of the same syscall are
 * then skipped (one finding per syscall). */
typedef bool (*events_fn)(const ir_event *ev, unsigned shown, void *ctx);

/* Every event that can tell a from b (see above), in a fixed order:
 * syscalls by ABI and number, files, execs, capabilities, ptrace, signals,
 * mounts, network. */
void events_between(const ir_policy *a, const ir_policy *b, events_fn fn, void *ctx);

/* An event as text: "syscall clone arg0=0x10000000 (x86_64)" (arguments
 * whose bit is set in shown), "file \"/a/x\" write", "exec \"/bin/sh\"",
 * "capability sys_admin", "mount fstype tmpfs on \"/mnt\"", "network connect
 * inet stream protocol 0 to 10.0.0.1 port 80", "ptrace read", "signal to
 * \"peer\"". */
void event_text(const ir_event *ev, unsigned shown, buf *out);

/* A concrete path the glob matches (its first alternative, each wildcard
 * filled within its segment, '**' spanning one), or NULL if it has none
 * that fits PATH_MAX. Caller frees. */
char *glob_example(const char *glob);

#endif
