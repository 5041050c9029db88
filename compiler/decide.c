/* decide.c - ir_decide(), the definition of what a policy means for one
 * event (LANGUAGE.md "Meaning"). Kept deliberately plain: every backend and
 * the verifier are tested against it. */
#include "ir.h"
#include "glob.h"
#include "syscalls.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <sys/socket.h>

ir_action ir_effective(const ir_policy *p, ir_action a)
{
	if (p->mode == IR_MODE_AUDIT && a.verdict >= IR_DENY)
		a.verdict = IR_AUDIT;
	return a;
}

uint32_t ir_arch_audit(ir_arch a)
{
	return a == IR_ARCH_I386 ? AUDIT_ARCH_I386 : AUDIT_ARCH_X86_64;
}

ir_arch ir_event_arch(const ir_event *ev)
{
	if (ev->u.sys.audit_arch == AUDIT_ARCH_I386)
		return IR_ARCH_I386;
	return (ev->u.sys.nr & IR_X32_SYSCALL_BIT) ? IR_ARCH_X32 : IR_ARCH_X86_64;
}

static bool cond_holds(const ir_arg_cond *c, uint64_t v)
{
	switch (c->op) {
	case IR_CMP_EQ: return v == c->value;
	case IR_CMP_NE: return v != c->value;
	case IR_CMP_LT: return v < c->value;
	case IR_CMP_LE: return v <= c->value;
	case IR_CMP_GT: return v > c->value;
	case IR_CMP_GE: return v >= c->value;
	case IR_CMP_MASKED_EQ: return (v & c->mask) == c->value;
	}
	return false;
}

static bool syscall_matches(const ir_syscall *s, const ir_event *ev)
{
	ir_arch a = ir_event_arch(ev);
	if (s->nr[a] < 0 || (uint32_t)s->nr[a] != ev->u.sys.nr)
		return false;
	for (size_t i = 0; i < s->ncond; i++) {
		const ir_arg_cond *c = &s->conds[i];
		uint64_t v = ev->u.sys.args[c->arg];
		/* What the kernel sees: 32-bit ABIs and 32-bit C types use only
		 * the lower half of the register. */
		if (a == IR_ARCH_I386 || (s->arg32 & (1u << c->arg)))
			v &= 0xffffffffu;
		if (!cond_holds(c, v))
			return false;
	}
	return true;
}

static bool cidr_contains(const ir_cidr *c, int family, const uint8_t *addr)
{
	if (c->family != family)
		return false;
	int bits = c->prefix;
	for (int i = 0; bits > 0; i++, bits -= 8) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));
		if ((c->addr[i] & mask) != (addr[i] & mask))
			return false;
	}
	return true;
}

/* A socket's protocol as the language names it. A stream socket with
 * protocol 0 is tcp, a datagram one udp (for inet families). */
static bool proto_matches(ir_net_proto p, int family, int type, int protocol)
{
	bool inet = family == AF_INET || family == AF_INET6;
	type &= 0xf;    /* drop SOCK_NONBLOCK / SOCK_CLOEXEC */
	switch (p) {
	case IR_PROTO_ANY: return true;
	case IR_PROTO_TCP: return inet && type == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP);
	case IR_PROTO_UDP: return inet && type == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP);
	case IR_PROTO_RAW: return type == SOCK_RAW;
	case IR_PROTO_ICMP: return inet && (protocol == IPPROTO_ICMP || protocol == IPPROTO_ICMPV6);
	}
	return false;
}

static bool network_matches(const ir_network *n, const ir_event *ev)
{
	if (n->op != IR_NET_ANYOP && n->op != ev->u.net.op)
		return false;
	if (n->family && n->family != ev->u.net.family)
		return false;
	if (!proto_matches(n->proto, ev->u.net.family, ev->u.net.type, ev->u.net.protocol))
		return false;
	if (n->has_addr && (!ev->u.net.has_addr ||
			    !cidr_contains(&n->addr, ev->u.net.family, ev->u.net.addr)))
		return false;
	if (n->has_port && (!ev->u.net.has_addr || ev->u.net.port < n->port_lo ||
			    ev->u.net.port > n->port_hi))
		return false;
	return true;
}

static bool mount_matches(const ir_mount *m, const ir_event *ev)
{
	if (m->op != ev->u.mount.op)
		return false;
	if (m->nfstype) {
		bool any = false;
		for (size_t i = 0; i < m->nfstype && !any; i++)
			any = ev->u.mount.fstype && !strcmp(m->fstypes[i], ev->u.mount.fstype);
		if (!any)
			return false;
	}
	if (m->target && (!ev->u.mount.target || !glob_match(m->target, ev->u.mount.target)))
		return false;
	return true;
}

/* A directory matches the glob in either form, "d" or "d/". */
static bool file_matches(const char *glob, const ir_event *ev)
{
	const char *path = ev->u.file.path;
	if (glob_match(glob, path))
		return true;
	size_t n = strlen(path);
	if (!ev->u.file.dir || (n && path[n - 1] == '/'))
		return false;
	char *slashed = xasprintf("%s/", path);
	bool m = glob_match(glob, slashed);
	free(slashed);
	return m;
}

bool ir_stmt_matches(const ir_stmt *s, const ir_event *ev)
{
	if (s->domain != ev->domain)
		return false;
	switch (s->domain) {
	case IR_SYSCALL:
		return syscall_matches(&s->u.sys, ev);
	case IR_FILE:
		return (s->u.file.perms & ev->u.file.perm) && file_matches(s->u.file.glob, ev);
	case IR_EXEC:
		return glob_match(s->u.file.glob, ev->u.exec.path);
	case IR_CAPABILITY:
		return ev->u.cap.cap >= 0 && ev->u.cap.cap < 64 &&
		       (s->u.cap.caps >> ev->u.cap.cap) & 1;
	case IR_MOUNT:
		return mount_matches(&s->u.mount, ev);
	case IR_NETWORK:
		return network_matches(&s->u.net, ev);
	case IR_PTRACE:
		return (s->u.ptrace.modes & ev->u.ptrace.mode) != 0;
	case IR_SIGNAL:
		return !s->u.signal.peer ||
		       (ev->u.signal.peer && glob_match(s->u.signal.peer, ev->u.signal.peer));
	case IR_NDOMAIN:
		break;
	}
	return false;
}

ir_decision ir_decide(const ir_policy *p, const ir_event *ev)
{
	ir_decision d = { IR_ALLOW, 0, NULL };
	if (ev->domain == IR_SYSCALL) {
		/* Another ABI than the policy names is denied outright. */
		ir_arch a = ir_event_arch(ev);
		if (!(p->arches & IR_ARCH_BIT(a))) {
			d.verdict = p->mode == IR_MODE_AUDIT ? IR_AUDIT : IR_DENY;
			d.err = d.verdict == IR_DENY ? EPERM : 0;
			return d;
		}
	}
	/* Most restrictive matching statement; the first among equals. */
	const ir_stmt_list *l = &p->dom[ev->domain];
	const ir_stmt *best = NULL;
	for (size_t i = 0; i < l->n; i++) {
		const ir_stmt *s = &l->v[i];
		if ((!best || s->action.verdict > best->action.verdict) && ir_stmt_matches(s, ev))
			best = s;
	}
	ir_action act = best ? best->action : p->defaults[ev->domain];
	if (!best && ev->domain == IR_SYSCALL && act.verdict >= IR_DENY &&
	    !sys_known(ir_event_arch(ev), ev->u.sys.nr))
		act.err = ENOSYS;     /* unknown syscalls: let libc fall back */
	act = ir_effective(p, act);
	d.verdict = act.verdict;
	d.err = act.verdict >= IR_DENY ? act.err : 0;
	d.by = best;
	return d;
}

const char *ir_domain_name(ir_domain d)
{
	static const char *const n[] = { "syscall", "file", "exec", "capability", "mount",
					 "network", "ptrace", "signal" };
	return d < IR_NDOMAIN ? n[d] : "?";
}

const char *ir_verdict_name(ir_verdict v)
{
	static const char *const n[] = { "allow", "audit", "deny", "kill" };
	return v <= IR_KILL ? n[v] : "?";
}

const char *ir_arch_name(ir_arch a)
{
	static const char *const n[] = { "x86_64", "i386", "x32" };
	return a < IR_NARCH ? n[a] : "?";
}
