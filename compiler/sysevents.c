/* sysevents.c - the syscall -> event table of sysevents.def; see sysevents.h. */
#include "sysevents.h"

#include <string.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif

static const sysevent table[] = {
#define SE_DOMAIN(n, d, s) { #n, IR_##d, s },
#include "sysevents.def"
};
#define NTABLE (sizeof table / sizeof *table)

const sysevent *sysevent_table(size_t *n)
{
	*n = NTABLE;
	return table;
}

const sysevent *sysevent_find(const char *name)
{
	for (size_t i = 0; i < NTABLE; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

bool sysevent_cond(const sysevent *m, ir_arg_cond *c)
{
	if (strcmp(m->name, "open_tree"))
		return false;
	ir_arg_cond k = { 2, IR_CMP_MASKED_EQ, OPEN_TREE_CLONE, OPEN_TREE_CLONE };
	*c = k;
	return true;
}

bool sysevent_of(const char *name, const uint64_t args[6], ir_event *ev)
{
	const sysevent *m = sysevent_find(name);
	ir_arg_cond k;
	if (!m || (sysevent_cond(m, &k) && (args[k.arg] & 0xffffffffu & k.mask) != k.value))
		return false;
	memset(ev, 0, sizeof *ev);
	ev->domain = m->dom;
	switch (m->dom) {
	case IR_MOUNT: ev->u.mount.op = (ir_mount_op)m->sub; break;
	case IR_NETWORK:
		ev->u.net.op = IR_NET_CREATE;
		ev->u.net.family = (int)(uint32_t)args[0];
		ev->u.net.type = (int)(uint32_t)args[1];
		ev->u.net.protocol = (int)(uint32_t)args[2];
		break;
	case IR_PTRACE: ev->u.ptrace.mode = (unsigned)m->sub; break;
	default: break;
	}
	return true;
}

const char *sysevent_syscall(const ir_event *ev)
{
	int sub = ev->domain == IR_MOUNT ? (int)ev->u.mount.op
		: ev->domain == IR_PTRACE ? IR_PTRACE_TRACE : 0;
	for (size_t i = 0; i < NTABLE; i++)
		if (table[i].dom == ev->domain && table[i].sub == sub)
			return table[i].name;
	return NULL;
}
