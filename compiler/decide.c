/* decide.c - ir_decide(), the definition of what a policy means for one
 * event (LANGUAGE.md "Meaning"). Kept deliberately plain: every backend and
 * the verifier are tested against it. */
#include "ir.h"
#include "glob.h"
#include "syscalls.h"
#include "../base/util.h"

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

bool ir_decides_nothing(const ir_policy *p, unsigned domains)
{
	for (int d = 0; d < IR_NDOMAIN; d++) {
		if (!(domains >> d & 1))
			continue;
		if (ir_effective(p, p->defaults[d]).verdict != IR_ALLOW)
			return false;
		for (size_t i = 0; i < p->dom[d].n; i++)
			if (ir_effective(p, p->dom[d].v[i].action).verdict != IR_ALLOW)
				return false;
	}
	return true;
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

/* What each protocol of the language matches of a socket: its type
 * (SOCK_* without the flags; ANY: every type), its protocol (one of
 * protocols[0..nprotocol); none listed: every protocol), and with inet set
 * only an inet family's. A stream socket with protocol 0 is tcp, a
 * datagram one udp. MPTCP is tcp too: its subflows are TCP connections and
 * it falls back to plain TCP, so it reaches every TCP peer and port a tcp
 * statement speaks of. proto_matches reads this table, and socket_kinds
 * takes from it the kinds of socket proto_matches tells apart. */
enum { ANY = -1, MAX_PROTOCOLS = 3 };
static const struct {
	bool inet;
	int type;
	size_t nprotocol;
	int protocols[MAX_PROTOCOLS];
} protos[] = {
	[IR_PROTO_ANY] = { false, ANY, 0, { 0 } },
	[IR_PROTO_TCP] = { true, SOCK_STREAM, 3, { 0, IPPROTO_TCP, IPPROTO_MPTCP } },
	[IR_PROTO_UDP] = { true, SOCK_DGRAM, 2, { 0, IPPROTO_UDP } },
	[IR_PROTO_RAW] = { false, SOCK_RAW, 0, { 0 } },
	[IR_PROTO_ICMP] = { true, ANY, 2, { IPPROTO_ICMP, IPPROTO_ICMPV6 } },
};
#define NPROTOS (sizeof protos / sizeof *protos)

static bool among(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static bool proto_matches(ir_net_proto p, int family, int type, int protocol)
{
	if ((size_t)p >= NPROTOS)
		return false;
	bool inet = family == AF_INET || family == AF_INET6;
	int t = protos[p].type;
	return (!protos[p].inet || inet) && (t == ANY || t == (type & 0xf)) &&
	       (!protos[p].nprotocol || among(protos[p].protocols, protos[p].nprotocol, protocol));
}

/* The distinct types (or protocols) protos names, then one it does not. */
typedef struct {
	int v[NPROTOS * MAX_PROTOCOLS + 1];
	size_t n;
} kind_set;

static void kind_add(kind_set *s, int x)
{
	if (x != ANY && !among(s->v, s->n, x))
		s->v[s->n++] = x;
}

/* One socket of each kind proto_matches tells apart: every type and every
 * protocol the table names, and one type and one protocol it does not
 * name (the least such value: every unnamed value matches as it does).
 * Every socket of a family matches the statements one of these matches,
 * so deciding these decides them all. */
static void socket_kinds(kind_set *types, kind_set *protocols)
{
	types->n = protocols->n = 0;
	for (size_t i = 0; i < NPROTOS; i++) {
		kind_add(types, protos[i].type);
		for (size_t k = 0; k < protos[i].nprotocol; k++)
			kind_add(protocols, protos[i].protocols[k]);
	}
	kind_set *both[] = { types, protocols };
	for (size_t i = 0; i < 2; i++) {
		int another = 0;
		while (among(both[i]->v, both[i]->n, another))
			another++;
		both[i]->v[both[i]->n++] = another;
	}
}

bool ir_any_socket_kind(bool (*fn)(int type, int protocol, void *ctx), void *ctx)
{
	kind_set types, protocols;
	socket_kinds(&types, &protocols);
	for (size_t t = 0; t < types.n; t++)
		for (size_t k = 0; k < protocols.n; k++)
			if (fn(types.v[t], protocols.v[k], ctx))
				return true;
	return false;
}

ir_event ir_net_kind_event(ir_net_op op, int family, int type, int protocol)
{
	ir_event ev = { .domain = IR_NETWORK };
	ev.u.net.op = op;
	ev.u.net.family = family;
	ev.u.net.type = type;
	ev.u.net.protocol = protocol;
	return ev;
}

struct unaddressed { const ir_policy *p; ir_net_op op; int family; };

static bool decided_unaddressed(int type, int protocol, void *vc)
{
	const struct unaddressed *c = vc;
	ir_event ev = ir_net_kind_event(c->op, c->family, type, protocol);
	return ir_decide(c->p, &ev).verdict != IR_ALLOW;
}

bool ir_net_unaddressed_allowed(const ir_policy *p, ir_net_op op, int family)
{
	struct unaddressed c = { p, op, family };
	return !ir_any_socket_kind(decided_unaddressed, &c);
}

/* An event to ::ffff:a.b.c.d is the IPv4 event to a.b.c.d (LANGUAGE.md):
 * the traffic is IPv4, whatever the socket's family. */
static ir_event unmapped(const ir_event *ev)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	ir_event e = *ev;
	if (e.u.net.has_addr && e.u.net.family == AF_INET6 && !memcmp(e.u.net.addr, prefix, 12)) {
		e.u.net.family = AF_INET;
		memmove(e.u.net.addr, e.u.net.addr + 12, 4);
		memset(e.u.net.addr + 4, 0, 12);
	}
	return e;
}

static bool network_matches(const ir_network *n, const ir_event *event)
{
	ir_event e = unmapped(event);
	const ir_event *ev = &e;
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

bool ir_mount_names_fstype(const ir_mount *m, const char *fstype)
{
	for (size_t i = 0; fstype && i < m->nfstype; i++)
		if (!strcmp(m->fstypes[i], fstype))
			return true;
	return false;
}

static bool mount_matches(const ir_mount *m, const ir_event *ev)
{
	if (m->op != ev->u.mount.op)
		return false;
	if (m->nfstype && !ir_mount_names_fstype(m, ev->u.mount.fstype))
		return false;
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

/* ---- what statements imply for other syscalls (LANGUAGE.md) ---- */

/* Syscalls whose operation an io_uring opcode also performs, without the
 * syscall (Linux 6.1 and 6.18): READV/WRITEV(_FIXED), READ/WRITE(_FIXED,
 * _MULTISHOT), FSYNC, POLL_ADD, SYNC_FILE_RANGE, SENDMSG(_ZC), RECVMSG,
 * ACCEPT, CONNECT, FALLOCATE, OPENAT, OPENAT2, CLOSE, STATX, FADVISE,
 * MADVISE, SEND(_ZC), RECV(_ZC), EPOLL_CTL, EPOLL_WAIT, SPLICE, TEE,
 * SHUTDOWN, RENAMEAT, UNLINKAT, MKDIRAT, SYMLINKAT, LINKAT, (F)SETXATTR,
 * (F)GETXATTR, SOCKET, URING_CMD (socket SIOCINQ/SIOCOUTQ, get/setsockopt;
 * device ioctls), WAITID, FUTEX_WAIT/WAKE/WAITV, FTRUNCATE, BIND, LISTEN,
 * PIPE. */
static const char *const uring_syscalls[] = {
	"accept", "accept4", "bind", "close", "connect", "epoll_ctl", "epoll_pwait",
	"epoll_wait", "fadvise64", "fallocate", "fdatasync", "fgetxattr", "fsetxattr",
	"fsync", "ftruncate", "futex", "futex_waitv", "getsockopt", "getxattr", "ioctl",
	"linkat", "listen", "madvise", "mkdirat", "openat", "openat2", "pipe2", "poll",
	"ppoll", "pread64", "preadv", "preadv2", "pwrite64", "pwritev", "pwritev2",
	"read", "readv", "recvfrom", "recvmsg", "renameat", "renameat2", "sendmsg",
	"sendto", "setsockopt", "setxattr", "shutdown", "socket", "splice", "statx",
	"symlinkat", "sync_file_range", "tee", "unlinkat", "waitid", "write", "writev",
};

bool ir_uring_performs(const char *sysname)
{
	for (size_t i = 0; i < sizeof uring_syscalls / sizeof *uring_syscalls; i++)
		if (!strcmp(uring_syscalls[i], sysname))
			return true;
	return false;
}

/* A condition on clone(2)'s or unshare(2)'s flags (arg0 for both). The
 * conditions are looked at before the name: most statements have none. */
static bool clone_flag_stmt(const ir_stmt *s)
{
	if (s->domain != IR_SYSCALL)
		return false;
	bool arg0 = false;
	for (size_t i = 0; i < s->u.sys.ncond && !arg0; i++)
		arg0 = s->u.sys.conds[i].arg == 0;
	return arg0 && (!strcmp(s->u.sys.name, "clone") || !strcmp(s->u.sys.name, "unshare"));
}

/* A deny of an operation io_uring can perform, at syscall level: a syscall
 * statement, or a network statement on socket(2)'s family/protocol. */
static bool closes_uring(const ir_stmt *s)
{
	if (s->action.verdict < IR_DENY)
		return false;
	if (s->domain == IR_SYSCALL)
		return ir_uring_performs(s->u.sys.name);
	return s->domain == IR_NETWORK && s->u.net.op == IR_NET_ANYOP &&
	       !s->u.net.has_addr && !s->u.net.has_port;
}

ir_implies ir_implied_kind(const char *sysname)
{
	if (*sysname != 'c' && *sysname != 'i')
		return IR_IMPLIES_NONE;      /* most names, at a glance */
	if (!strcmp(sysname, "clone3"))
		return IR_IMPLIES_CLONE3;
	if (!strncmp(sysname, "io_uring_", 9) && (!strcmp(sysname + 9, "setup") ||
	    !strcmp(sysname + 9, "enter") || !strcmp(sysname + 9, "register")))
		return IR_IMPLIES_URING;
	return IR_IMPLIES_NONE;
}

bool ir_implied(const ir_policy *p, const char *sysname, ir_implied_action *out)
{
	return ir_implied_of(p, ir_implied_kind(sysname), out);
}

bool ir_implied_of(const ir_policy *p, ir_implies kind, ir_implied_action *out)
{
	if (kind != IR_IMPLIES_CLONE3 && kind != IR_IMPLIES_URING)
		return false;
	bool clone3 = kind == IR_IMPLIES_CLONE3;
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			if (clone3 ? clone_flag_stmt(s) : closes_uring(s)) {
				out->act.verdict = IR_DENY;
				out->act.err = clone3 ? ENOSYS : EPERM;
				out->by = s;
				return true;
			}
		}
	return false;
}

/* Most restrictive matching statement; the first among equals. */
static const ir_stmt *best_match(const ir_policy *p, const ir_event *ev)
{
	const ir_stmt_list *l = &p->dom[ev->domain];
	const ir_stmt *best = NULL;
	for (size_t i = 0; i < l->n; i++) {
		const ir_stmt *s = &l->v[i];
		if ((!best || s->action.verdict > best->action.verdict) && ir_stmt_matches(s, ev))
			best = s;
	}
	return best;
}

static ir_decision decide_one(const ir_policy *p, const ir_event *ev);

/* A send with a destination address (sendto/sendmsg on an unconnected
 * socket, TCP Fast Open) gives the socket a peer: it is also a connect to
 * that address. The connect decides when it is more restrictive than a
 * send that is not denied. */
ir_decision ir_decide(const ir_policy *p, const ir_event *ev)
{
	ir_decision d = decide_one(p, ev);
	if (ev->domain == IR_NETWORK && ev->u.net.op == IR_NET_SEND && ev->u.net.has_addr &&
	    d.verdict < IR_DENY) {
		ir_event c = *ev;
		c.u.net.op = IR_NET_CONNECT;
		ir_decision k = decide_one(p, &c);
		if (k.verdict > d.verdict)
			d = k;
	}
	return d;
}

static ir_decision decide_one(const ir_policy *p, const ir_event *ev)
{
	ir_decision d = { IR_ALLOW, 0, NULL };
	if (ev->domain == IR_SYSCALL) {
		/* Another ABI than the policy names is killed outright, as
		 * libseccomp's default bad-architecture action does under runc
		 * and crun (docs/language.md "ABIs the policy does not name"). */
		ir_arch a = ir_event_arch(ev);
		if (!(p->arches & IR_ARCH_BIT(a))) {
			d.verdict = p->mode == IR_MODE_AUDIT ? IR_AUDIT : IR_KILL;
			return d;
		}
	}
	const ir_stmt *best = best_match(p, ev);
	ir_action act = best ? best->action : p->defaults[ev->domain];
	/* An implied action beats the default and less restrictive statements;
	 * a written statement of the same verdict wins over it. */
	char name[64];
	ir_implied_action imp;
	if (ev->domain == IR_SYSCALL && sys_name(ir_event_arch(ev), ev->u.sys.nr, name, sizeof name) &&
	    ir_implied(p, name, &imp) && (!best || imp.act.verdict > best->action.verdict)) {
		act = imp.act;
		best = imp.by;
	}
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
