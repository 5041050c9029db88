/* probe.c - events derived from statements; see probe.h. */
#include "probe.h"
#include "syscalls.h"
#include "glob.h"
#include "../base/util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

static const char *keep(probe_set *ps, char *s)
{
	xgrow(&ps->strings, &ps->capstrings, ps->nstrings + 1, sizeof *ps->strings);
	ps->strings[ps->nstrings++] = s;
	return s;
}

static void add(probe_set *ps, const ir_event *ev, const ir_stmt *from, const char *what)
{
	xgrow(&ps->v, &ps->cap, ps->n + 1, sizeof *ps->v);
	probe *p = &ps->v[ps->n++];
	p->ev = *ev;
	p->from = from;
	p->what = what;
}

/* ---- syscall ---- */

/* A value that satisfies one condition. */
static uint64_t satisfy(const ir_arg_cond *c)
{
	switch (c->op) {
	case IR_CMP_EQ: case IR_CMP_LE: case IR_CMP_GE: return c->value;
	case IR_CMP_NE: case IR_CMP_GT: return c->value + 1;
	case IR_CMP_LT: return c->value ? c->value - 1 : 0;
	case IR_CMP_MASKED_EQ: return c->value;
	}
	return 0;
}

static void syscall_event(ir_event *ev, ir_arch a, int nr, const uint64_t args[6])
{
	memset(ev, 0, sizeof *ev);
	ev->domain = IR_SYSCALL;
	ev->u.sys.audit_arch = ir_arch_audit(a);
	ev->u.sys.nr = (uint32_t)nr;
	memcpy(ev->u.sys.args, args, 6 * sizeof *args);
}

static void probes_syscall(const ir_policy *p, const ir_stmt *s, probe_set *ps)
{
	const ir_syscall *sy = &s->u.sys;
	uint64_t base[6] = { 0 };
	for (size_t i = 0; i < sy->ncond; i++)
		base[sy->conds[i].arg] = satisfy(&sy->conds[i]);
	for (int a = 0; a < IR_NARCH; a++) {
		if (sy->nr[a] < 0 || !(p->arches & IR_ARCH_BIT(a)))
			continue;
		ir_event ev;
		syscall_event(&ev, (ir_arch)a, sy->nr[a], base);
		add(ps, &ev, s, "match");
		for (size_t i = 0; i < sy->ncond; i++) {
			const ir_arg_cond *c = &sy->conds[i];
			uint64_t v = c->value, bit = c->mask & -c->mask;
			uint64_t near[] = { v - 1, v, v + 1, v ^ bit, 0, 1ull << 31, 0xffffffffull,
					    1ull << 63, 0xdeadbeef00000000ull | v };
			for (size_t k = 0; k < sizeof near / sizeof *near; k++) {
				uint64_t args[6];
				memcpy(args, base, sizeof args);
				args[c->arg] = near[k];
				if (a == IR_ARCH_I386)
					for (int j = 0; j < 6; j++)
						args[j] &= 0xffffffffu;
				syscall_event(&ev, (ir_arch)a, sy->nr[a], args);
				add(ps, &ev, s, k == 8 ? "neighbour: garbage upper half" : "neighbour: argument boundary");
			}
		}
	}
	/* Other kernel paths to the same operation (ir_implied): io_uring, and
	 * clone3 for a condition on clone flags; derived from the statement
	 * that implies them (the first one), on every ABI of the policy. */
	static const char *const alt[] = { "io_uring_setup", "io_uring_enter",
					   "io_uring_register", "clone3" };
	for (size_t k = 0; k < sizeof alt / sizeof *alt; k++) {
		ir_implied_action imp;
		if (!ir_implied(p, alt[k], &imp) || imp.by != s)
			continue;
		for (int a = 0; a < IR_NARCH; a++) {
			int nr = (p->arches & IR_ARCH_BIT(a)) ? sys_resolve((ir_arch)a, alt[k]) : -1;
			if (nr < 0)
				continue;
			ir_event ev;
			uint64_t none[6] = { 0 };
			syscall_event(&ev, (ir_arch)a, nr, none);
			add(ps, &ev, s, k == 3 ? "other path: clone3" : "other path: io_uring");
		}
	}
	/* The same number on the other ABIs, named or not. */
	if (sy->nr[IR_ARCH_X86_64] >= 0) {
		ir_event ev;
		syscall_event(&ev, IR_ARCH_X32, sy->nr[IR_ARCH_X86_64] | (int)IR_X32_SYSCALL_BIT, base);
		add(ps, &ev, s, "neighbour: x32 bit");
		syscall_event(&ev, IR_ARCH_I386, sy->nr[IR_ARCH_X86_64], base);
		add(ps, &ev, s, "neighbour: i386 number");
	}
}

/* ---- paths ---- */

/* Fill the wildcards of a brace-free glob. */
static void fill(const char *g, buf *b)
{
	for (size_t i = 0; g[i]; i++) {
		char c = g[i];
		if (c == '\\' && g[i + 1]) {
			buf_put(b, &g[++i], 1);
		} else if (c == '*') {
			bool dbl = g[i + 1] == '*';
			buf_puts(b, dbl ? "polc-probe/deep" : "polc-probe");
			i += dbl;
		} else if (c == '?') {
			buf_puts(b, "p");
		} else if (c == '[') {
			size_t j = i + 1;
			bool neg = g[j] == '^';
			if (neg)
				j++;
			char first = g[j] == '\\' ? g[j + 1] : g[j];
			while (g[j] && g[j] != ']')
				j++;
			/* a negated class: pick a letter the class does not name */
			char pick = first;
			if (neg) {
				const char *cands = "qzQZ_";
				for (const char *q = cands; *q; q++)
					if (!memchr(g + i, *q, j - i)) {
						pick = *q;
						break;
					}
			}
			buf_put(b, &pick, 1);
			i = j;
		} else {
			buf_put(b, &c, 1);
		}
	}
}

typedef struct { buf out; bool done; } first_alt;

static void first_cb(const char *alt, void *ctx)
{
	first_alt *f = ctx;
	if (f->done)
		return;
	f->done = true;
	fill(alt, &f->out);
}

char *glob_example(const char *glob)
{
	first_alt f;
	buf_init(&f.out);
	f.done = false;
	glob_expand(glob, first_cb, &f);
	if (!f.done || f.out.len >= 4096 || !glob_match(glob, buf_cstr(&f.out))) {
		buf_free(&f.out);
		return NULL;
	}
	return buf_cstr(&f.out);
}

static void file_event(ir_event *ev, ir_domain dom, const char *path, unsigned perm)
{
	memset(ev, 0, sizeof *ev);
	ev->domain = dom;
	if (dom == IR_EXEC)
		ev->u.exec.path = path;
	else {
		ev->u.file.path = path;
		ev->u.file.perm = perm;
	}
}

static void probes_file(const ir_stmt *s, probe_set *ps)
{
	char *ex = glob_example(s->u.file.glob);
	if (!ex)
		return;
	const char *path = keep(ps, ex);
	/* neighbours: one byte longer (the /etc/passwd- case), the parent */
	const char *longer = keep(ps, xasprintf("%s-", path));
	char *parent = xstrdup(path);
	char *slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = 0;
	keep(ps, parent);
	ir_event ev;
	for (unsigned perm = 1; perm <= IR_PERM_LOCK; perm <<= 1) {
		if (s->domain == IR_EXEC && perm != IR_PERM_EXEC)
			continue;
		bool named = s->u.file.perms & perm;
		if (!named && s->domain == IR_FILE && perm != IR_PERM_READ && perm != IR_PERM_WRITE)
			continue;
		file_event(&ev, s->domain, path, perm);
		add(ps, &ev, s, named ? "match" : "neighbour: permission not named");
		if (named) {
			file_event(&ev, s->domain, longer, perm);
			add(ps, &ev, s, "neighbour: one byte longer");
			file_event(&ev, s->domain, parent, perm);
			add(ps, &ev, s, "neighbour: parent directory");
		}
	}
}

/* ---- the rest ---- */

static void probes_capability(const ir_stmt *s, probe_set *ps)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_CAPABILITY;
	bool outside = false;
	for (int c = 0; c < 64; c++) {
		bool in = (s->u.cap.caps >> c) & 1;
		if (!in && (outside || c > 40))
			continue;
		outside |= !in;
		ev.u.cap.cap = c;
		add(ps, &ev, s, in ? "match" : "neighbour: capability not named");
	}
}

static void probes_mount(const ir_stmt *s, probe_set *ps)
{
	const ir_mount *m = &s->u.mount;
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_MOUNT;
	ev.u.mount.op = m->op;
	ev.u.mount.fstype = m->nfstype ? m->fstypes[0] : "tmpfs";
	char *t = m->target ? glob_example(m->target) : xstrdup("/mnt");
	ev.u.mount.target = t ? keep(ps, t) : "/mnt";
	add(ps, &ev, s, "match");
	if (m->nfstype) {
		ev.u.mount.fstype = "polc-probe-fs";
		add(ps, &ev, s, "neighbour: other fstype");
	}
}

static void probes_network(const ir_stmt *s, probe_set *ps)
{
	const ir_network *n = &s->u.net;
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_NETWORK;
	ev.u.net.op = n->op ? n->op : IR_NET_CONNECT;
	ev.u.net.family = n->family ? n->family : AF_INET;
	ev.u.net.type = n->proto == IR_PROTO_UDP ? SOCK_DGRAM : n->proto == IR_PROTO_RAW ? SOCK_RAW : SOCK_STREAM;
	/* a raw socket needs a protocol: IPPROTO_RAW stands for any */
	ev.u.net.protocol = n->proto == IR_PROTO_ICMP ? 1 : n->proto == IR_PROTO_RAW ? 255 : 0;
	ev.u.net.has_addr = n->has_addr || n->has_port;
	if (n->has_addr)
		memcpy(ev.u.net.addr, n->addr.addr, 16);
	ev.u.net.port = n->has_port ? n->port_lo : 80;
	add(ps, &ev, s, "match");
	if (n->has_port) {
		ir_event e2 = ev;
		e2.u.net.port = n->port_hi;
		add(ps, &e2, s, "match: last port");
		if (n->port_hi < 65535) {
			e2.u.net.port = (uint16_t)(n->port_hi + 1);
			add(ps, &e2, s, "neighbour: port after range");
		}
		if (n->port_lo > 0) {
			e2.u.net.port = (uint16_t)(n->port_lo - 1);
			add(ps, &e2, s, "neighbour: port before range");
		}
	}
	if (n->has_addr) {
		int bytes = n->addr.family == AF_INET ? 4 : 16;
		if (n->addr.prefix > 0) {
			/* flip the last bit inside the prefix: just outside it */
			ir_event e2 = ev;
			int bit = n->addr.prefix - 1;
			e2.u.net.addr[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
			add(ps, &e2, s, "neighbour: address outside prefix");
		}
		if (n->addr.prefix < bytes * 8) {
			ir_event e2 = ev;
			e2.u.net.addr[bytes - 1] ^= 1;
			add(ps, &e2, s, "match: other address inside prefix");
		}
	}
	if (n->op) {
		ir_event e2 = ev;
		e2.u.net.op = n->op == IR_NET_CONNECT ? IR_NET_BIND : IR_NET_CONNECT;
		add(ps, &e2, s, "neighbour: other operation");
	}
}

static void probes_ptrace(const ir_stmt *s, probe_set *ps)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_PTRACE;
	for (unsigned m = IR_PTRACE_READ; m <= IR_PTRACE_TRACE; m <<= 1) {
		ev.u.ptrace.mode = m;
		add(ps, &ev, s, (s->u.ptrace.modes & m) ? "match" : "neighbour: other mode");
	}
}

static void probes_signal(const ir_stmt *s, probe_set *ps)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_SIGNAL;
	char *peer = s->u.signal.peer ? glob_example(s->u.signal.peer) : NULL;
	ev.u.signal.peer = peer ? keep(ps, peer) : "unconfined";
	add(ps, &ev, s, "match");
}

void probes_derive(const ir_policy *p, ir_domain dom, probe_set *out)
{
	for (int d = 0; d < IR_NDOMAIN; d++) {
		if (dom != IR_NDOMAIN && d != (int)dom)
			continue;
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			switch (s->domain) {
			case IR_SYSCALL: probes_syscall(p, s, out); break;
			case IR_FILE:
			case IR_EXEC: probes_file(s, out); break;
			case IR_CAPABILITY: probes_capability(s, out); break;
			case IR_MOUNT: probes_mount(s, out); break;
			case IR_NETWORK: probes_network(s, out); break;
			case IR_PTRACE: probes_ptrace(s, out); break;
			case IR_SIGNAL: probes_signal(s, out); break;
			case IR_NDOMAIN: break;
			}
		}
	}
}

void probes_free(probe_set *ps)
{
	for (size_t i = 0; i < ps->nstrings; i++)
		free(ps->strings[i]);
	free(ps->strings);
	free(ps->v);
	memset(ps, 0, sizeof *ps);
}

static const char *const perm_names[] = { "read", "write", "append", "exec", "mmap", "link", "lock" };

void probe_describe(const probe *pr, char *out, size_t n)
{
	const ir_event *ev = &pr->ev;
	switch (ev->domain) {
	case IR_SYSCALL: {
		ir_arch a = ir_event_arch(ev);
		snprintf(out, n, "syscall %s nr %u (0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx, 0x%llx)",
			 ir_arch_name(a), ev->u.sys.nr,
			 (unsigned long long)ev->u.sys.args[0], (unsigned long long)ev->u.sys.args[1],
			 (unsigned long long)ev->u.sys.args[2], (unsigned long long)ev->u.sys.args[3],
			 (unsigned long long)ev->u.sys.args[4], (unsigned long long)ev->u.sys.args[5]);
		break;
	}
	case IR_FILE: {
		int k = __builtin_ctz(ev->u.file.perm);
		snprintf(out, n, "file %s %s", ev->u.file.path, k < 7 ? perm_names[k] : "?");
		break;
	}
	case IR_EXEC: snprintf(out, n, "exec %s", ev->u.exec.path); break;
	case IR_CAPABILITY: snprintf(out, n, "capability %d", ev->u.cap.cap); break;
	case IR_MOUNT:
		snprintf(out, n, "%s %s on %s", ev->u.mount.op == IR_MOUNT_MOUNT ? "mount" :
			 ev->u.mount.op == IR_MOUNT_UMOUNT ? "umount" : "pivot_root",
			 ev->u.mount.fstype ? ev->u.mount.fstype : "-", ev->u.mount.target ? ev->u.mount.target : "-");
		break;
	case IR_NETWORK: {
		char a[INET6_ADDRSTRLEN] = "-";
		if (ev->u.net.has_addr)
			inet_ntop(ev->u.net.family == AF_INET6 ? AF_INET6 : AF_INET, ev->u.net.addr, a, sizeof a);
		static const char *const ops[] = { "any", "connect", "bind", "listen", "accept", "send", "create" };
		snprintf(out, n, "network %s family %d type %d %s port %u", ops[ev->u.net.op],
			 ev->u.net.family, ev->u.net.type, a, ev->u.net.port);
		break;
	}
	case IR_PTRACE: snprintf(out, n, "ptrace %s", ev->u.ptrace.mode == IR_PTRACE_READ ? "read" : "trace"); break;
	case IR_SIGNAL: snprintf(out, n, "signal to %s", ev->u.signal.peer ? ev->u.signal.peer : "-"); break;
	case IR_NDOMAIN: snprintf(out, n, "?"); break;
	}
}
