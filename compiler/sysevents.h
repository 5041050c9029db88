/* sysevents.h - which event of a syscall-level domain (mount, network,
 * ptrace, signal) a syscall is, as seccomp sees it: the SE_DOMAIN entries of
 * compiler/sysevents.def, the table the recorders also decode by.
 *
 * Takes: syscall names (libseccomp's) and their arguments; events.
 * Gives: the event a call is (sysevent_of), the syscall an event is seen
 *        through (sysevent_syscall), and the table itself for the seccomp plan.
 * Promises: one table for the seccomp plan, verify and the tests' oracle;
 *        names only (numbers come from compiler/syscalls.h).
 */
#ifndef POLC_SYSEVENTS_H
#define POLC_SYSEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

typedef struct {
	const char *name;
	ir_domain dom;
	int sub;               /* IR_MOUNT: the op; IR_PTRACE: the mode; else 0 */
} sysevent;

/* Every SE_DOMAIN entry, in table order. */
const sysevent *sysevent_table(size_t *n);
const sysevent *sysevent_find(const char *name);     /* NULL: no such entry */
/* The argument condition under which syscall m is its domain's event at
 * all (open_tree: arg2 & OPEN_TREE_CLONE); false when it always is. */
bool sysevent_cond(const sysevent *m, ir_arg_cond *c);
/* The event syscall `name` called with args is; false if it is none. */
bool sysevent_of(const char *name, const uint64_t args[6], ir_event *ev);
/* The syscall through which seccomp sees an event of ev's domain (the first
 * entry of its domain and op/mode); NULL for other domains. */
const char *sysevent_syscall(const ir_event *ev);

#endif
