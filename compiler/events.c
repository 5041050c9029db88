/* events.c - concrete events derived from policies, for verify and diff;
 * see events.h. */
#include "events.h"
#include "consts.h"
#include "syscalls.h"
#include "glob.h"
#include "../base/strset.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

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
	/* The same number on the other ABIs, named or not. */
	if (sy->nr[IR_ARCH_X86_64] >= 0) {
		ir_event ev;
		syscall_event(&ev, IR_ARCH_X32, sy->nr[IR_ARCH_X86_64] | (int)IR_X32_SYSCALL_BIT, base);
		add(ps, &ev, s, "neighbour: x32 bit");
		syscall_event(&ev, IR_ARCH_I386, sy->nr[IR_ARCH_X86_64], base);
		add(ps, &ev, s, "neighbour: i386 number");
	}
}

/* Other kernel paths to the same operation (ir_implied): io_uring, for a
 * deny of a syscall or a socket family/protocol it can also perform, and
 * clone3 for a condition on clone flags; derived from the statement that
 * implies them (the first one), on every ABI of the policy. */
static void probes_implied(const ir_policy *p, const ir_stmt *s, probe_set *ps)
{
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
}

/* ---- paths ---- */

/* A byte the one-byte token t holds: its literal, else a letter. */
static unsigned char tok_pick(const glob_tok *t)
{
	for (const char *q = "pxqzQZ_~-0"; *q; q++)
		if (glob_tok_has(t, (unsigned char)*q))
			return (unsigned char)*q;
	for (unsigned c = 1; c < 256; c++)
		if (glob_tok_has(t, (unsigned char)c))
			return (unsigned char)c;
	return 'p';
}

/* A path for the brace-free glob alt: each run of '*' becomes star, each
 * '**' dstar, every other token one byte it matches. */
static char *fill(const char *alt, const char *star, const char *dstar)
{
	glob_tok *t = xmalloc((strlen(alt) + 1) * sizeof *t);
	size_t n = glob_tokenize(alt, t);
	buf b;
	buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		if (t[i].many) {
			buf_puts(&b, glob_tok_has(&t[i], '/') ? dstar : star);
		} else {
			unsigned char c = tok_pick(&t[i]);
			buf_put(&b, &c, 1);
		}
	}
	free(t);
	return buf_cstr(&b);
}

typedef struct { char *path; bool done; } first_alt;

static void first_cb(const char *alt, void *ctx)
{
	first_alt *f = ctx;
	if (!f->done)
		f->path = fill(alt, "polc-probe", "polc-probe/deep");
	f->done = true;
}

char *glob_example(const char *glob)
{
	first_alt f = { NULL, false };
	glob_expand(glob, first_cb, &f);
	if (f.path && (strlen(f.path) >= 4096 || !glob_match(glob, f.path))) {
		free(f.path);
		return NULL;
	}
	return f.path;
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
		/* A type the kernel knows (these are always built in): for an
		 * unknown one AppArmor answers ENODEV before deciding, which
		 * proves nothing either way. */
		static const char *const known[] = { "ramfs", "tmpfs", "proc", "sysfs" };
		for (size_t k = 0; k < sizeof known / sizeof *known; k++)
			if (!ir_mount_names_fstype(m, known[k])) {
				ev.u.mount.fstype = known[k];
				add(ps, &ev, s, "neighbour: other fstype");
				break;
			}
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
	if (ev.u.net.type == SOCK_STREAM && (n->proto == IR_PROTO_TCP || n->proto == IR_PROTO_ANY) &&
	    (ev.u.net.family == AF_INET || ev.u.net.family == AF_INET6)) {
		ir_event em = ev;    /* the same TCP peer, reached by MPTCP */
		em.u.net.protocol = IPPROTO_MPTCP;
		add(ps, &em, s, "match: MPTCP");
	}
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
			probes_implied(p, s, out);
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

void probe_describe(const probe *pr, char *out, size_t n)
{
	buf b;
	buf_init(&b);
	event_text(&pr->ev, 0x3f, &b);
	snprintf(out, n, "%s", buf_cstr(&b));
	buf_free(&b);
}

/* ---- the events that tell two policies apart (diff) ---- */

typedef struct {
	const ir_policy *a, *b;
	events_fn fn;
	void *ctx;
} between;

typedef struct { uint64_t v[512]; size_t n; } valset;

static void vs_add(valset *s, uint64_t v)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == v)
			return;
	if (s->n < sizeof s->v / sizeof *s->v)
		s->v[s->n++] = v;
}

static void vs_cond(valset *s, const ir_arg_cond *c)
{
	vs_add(s, c->value - 1);
	vs_add(s, c->value);
	vs_add(s, c->value + 1);
	if (c->op == IR_CMP_MASKED_EQ) {
		if (__builtin_popcountll(c->mask) <= 8)
			for (uint64_t sub = c->mask; sub; sub = (sub - 1) & c->mask)
				vs_add(s, sub | c->value);
		vs_add(s, c->value | ~c->mask);
		vs_add(s, c->mask);
	}
}

static void collect(const ir_policy *p, ir_arch a, uint32_t nr, valset *vals, unsigned *shown)
{
	const ir_stmt_list *l = &p->dom[IR_SYSCALL];
	for (size_t i = 0; i < l->n; i++) {
		const ir_syscall *s = &l->v[i].u.sys;
		if (s->nr[a] < 0 || (uint32_t)s->nr[a] != nr)
			continue;
		for (size_t k = 0; k < s->ncond; k++) {
			*shown |= 1u << s->conds[k].arg;
			vs_cond(&vals[s->conds[k].arg], &s->conds[k]);
		}
	}
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* The cartesian product of the per-argument values (the decision is
 * constant between boundaries), or one argument at a time past a bound. */
static void between_syscall(const between *bt, ir_arch a, uint32_t nr)
{
	valset vals[6];
	unsigned shown = 0;
	for (int i = 0; i < 6; i++) {
		vals[i].n = 0;
		vs_add(&vals[i], 0);
	}
	collect(bt->a, a, nr, vals, &shown);
	collect(bt->b, a, nr, vals, &shown);
	for (int i = 0; i < 6; i++)     /* smallest telling sample first */
		xqsort(vals[i].v, vals[i].n, sizeof *vals[i].v, cmp_u64);
	size_t total = 1;
	for (int i = 0; i < 6; i++)
		total = total > 100000 ? total : total * vals[i].n;
	ir_event ev = { .domain = IR_SYSCALL };
	ev.u.sys.audit_arch = ir_arch_audit(a);
	ev.u.sys.nr = nr;
	if (total <= 100000) {
		size_t idx[6] = { 0 };
		for (;;) {
			for (int i = 0; i < 6; i++)
				ev.u.sys.args[i] = vals[i].v[idx[i]];
			if (bt->fn(&ev, shown, bt->ctx))
				return;
			int i = 0;
			while (i < 6 && ++idx[i] == vals[i].n)
				idx[i++] = 0;
			if (i == 6)
				return;
		}
	}
	for (int i = 0; i < 6; i++)
		for (size_t k = 0; k < vals[i].n; k++) {
			memset(ev.u.sys.args, 0, sizeof ev.u.sys.args);
			ev.u.sys.args[i] = vals[i].v[k];
			if (bt->fn(&ev, shown, bt->ctx))
				return;
		}
}

static void between_syscalls(const between *bt)
{
	unsigned arches = bt->a->arches | bt->b->arches;
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(arches & IR_ARCH_BIT(a)))
			continue;
		for (uint32_t i = 0; i < 1024; i++)
			between_syscall(bt, (ir_arch)a, a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i);
	}
}

/* Paths for one alternative: wildcards as one segment and as several (only
 * '**' may match those: this tells '*' from '**'), the directory a trailing
 * wildcard hangs under, and a sibling one name longer. */
static void alt_examples(const char *alt, void *ctx)
{
	strset *s = ctx;
	char *one = fill(alt, "x", "x"), *sibling = xasprintf("%s-polc", one);
	strset_take(s, one);
	strset_take(s, fill(alt, "x/y", "x/y"));
	size_t n = strlen(alt);
	if (n > 1 && alt[n - 1] == '*') {
		const char *slash = strrchr(alt, '/');
		if (slash && slash > alt)
			strset_take(s, xstrndup(alt, (size_t)(slash - alt)));
	}
	strset_take(s, sibling);
}

static void globs_of(const ir_policy *p, ir_domain d, strset *s)
{
	const ir_stmt_list *l = &p->dom[d];
	for (size_t i = 0; i < l->n; i++) {
		const char *g = d == IR_MOUNT ? l->v[i].u.mount.target
			      : d == IR_SIGNAL ? l->v[i].u.signal.peer : l->v[i].u.file.glob;
		if (g)
			glob_expand(g, alt_examples, s);
	}
}

static void examples_of(const between *bt, ir_domain d, strset *s)
{
	globs_of(bt->a, d, s);
	globs_of(bt->b, d, s);
}

static void between_files(const between *bt)
{
	strset paths = { 0 };
	examples_of(bt, IR_FILE, &paths);
	for (size_t i = 0; i < paths.n; i++)
		for (unsigned perm = 1; perm < IR_PERM_ALL; perm <<= 1) {
			ir_event ev = { .domain = IR_FILE };
			ev.u.file.path = paths.v[i];
			ev.u.file.perm = perm;
			bt->fn(&ev, 0, bt->ctx);
		}
	strset_free(&paths);
	strset ex = { 0 };
	examples_of(bt, IR_EXEC, &ex);
	for (size_t i = 0; i < ex.n; i++) {
		ir_event ev = { .domain = IR_EXEC };
		ev.u.exec.path = ex.v[i];
		bt->fn(&ev, 0, bt->ctx);
	}
	strset_free(&ex);
}

static void between_mounts(const between *bt)
{
	strset targets = { 0 }, fs = { 0 };
	examples_of(bt, IR_MOUNT, &targets);
	strset_take(&targets, xstrdup("/polc-probe"));
	strset_take(&fs, xstrdup("polc-probe-fs"));
	for (int side = 0; side < 2; side++) {
		const ir_stmt_list *l = &(side ? bt->b : bt->a)->dom[IR_MOUNT];
		for (size_t i = 0; i < l->n; i++)
			for (size_t k = 0; k < l->v[i].u.mount.nfstype; k++)
				strset_take(&fs, xstrdup(l->v[i].u.mount.fstypes[k]));
	}
	for (int op = IR_MOUNT_MOUNT; op <= IR_MOUNT_PIVOT_ROOT; op++)
		for (size_t f = 0; f <= fs.n; f++)
			for (size_t t = 0; t <= targets.n; t++) {
				ir_event ev = { .domain = IR_MOUNT };
				ev.u.mount.op = (ir_mount_op)op;
				ev.u.mount.fstype = op == IR_MOUNT_MOUNT && f < fs.n ? fs.v[f] : NULL;
				ev.u.mount.target = t < targets.n ? targets.v[t] : NULL;
				bt->fn(&ev, 0, bt->ctx);
			}
	strset_free(&targets);
	strset_free(&fs);
}

static void between_misc(const between *bt)
{
	for (int c = 0; c < 64; c++) {
		ir_event ev = { .domain = IR_CAPABILITY };
		ev.u.cap.cap = c;
		bt->fn(&ev, 0, bt->ctx);
	}
	for (unsigned m = IR_PTRACE_READ; m <= IR_PTRACE_TRACE; m++) {
		ir_event ev = { .domain = IR_PTRACE };
		ev.u.ptrace.mode = m;
		bt->fn(&ev, 0, bt->ctx);
	}
	strset peers = { 0 };
	examples_of(bt, IR_SIGNAL, &peers);
	for (size_t i = 0; i <= peers.n; i++) {
		ir_event ev = { .domain = IR_SIGNAL };
		ev.u.signal.peer = i < peers.n ? peers.v[i] : NULL;
		bt->fn(&ev, 0, bt->ctx);
	}
	strset_free(&peers);
	between_mounts(bt);
}

typedef struct { int family; uint8_t addr[16]; } addr_probe;

/* A CIDR's first and last address and the addresses just outside it. */
static void addr_edges(const ir_cidr *c, addr_probe *out, size_t *n)
{
	int len = c->family == AF_INET6 ? 16 : 4;
	addr_probe lo = { c->family, { 0 } }, hi;
	memcpy(lo.addr, c->addr, 16);
	for (int bit = c->prefix; bit < len * 8; bit++)
		lo.addr[bit / 8] &= (uint8_t)~(0x80 >> (bit % 8));
	hi = lo;
	for (int bit = c->prefix; bit < len * 8; bit++)
		hi.addr[bit / 8] |= (uint8_t)(0x80 >> (bit % 8));
	addr_probe below = lo, above = hi;
	for (int i = len - 1; i >= 0 && below.addr[i]-- == 0; i--)
		;
	for (int i = len - 1; i >= 0 && ++above.addr[i] == 0; i--)
		;
	out[(*n)++] = lo;
	out[(*n)++] = hi;
	out[(*n)++] = below;
	out[(*n)++] = above;
}

static void between_network(const between *bt)
{
	static const int fams[] = { AF_INET, AF_INET6, AF_UNIX, AF_NETLINK, AF_PACKET };
	static const int types[][2] = { { SOCK_STREAM, 0 }, { SOCK_DGRAM, 0 }, { SOCK_RAW, 0 },
		{ SOCK_RAW, IPPROTO_ICMP }, { SOCK_DGRAM, IPPROTO_ICMP }, { SOCK_STREAM, IPPROTO_TCP },
		{ SOCK_DGRAM, IPPROTO_UDP } };
	addr_probe addrs[512];
	size_t na = 0;
	uint16_t ports[512];
	size_t np = 0;
	ports[np++] = 0;
	for (int side = 0; side < 2; side++) {
		const ir_stmt_list *l = &(side ? bt->b : bt->a)->dom[IR_NETWORK];
		for (size_t i = 0; i < l->n && na + 4 <= 510 && np + 4 <= 512; i++) {
			const ir_network *n = &l->v[i].u.net;
			if (n->has_addr)
				addr_edges(&n->addr, addrs, &na);
			if (n->has_port) {
				ports[np++] = (uint16_t)(n->port_lo - 1);
				ports[np++] = n->port_lo;
				ports[np++] = n->port_hi;
				ports[np++] = (uint16_t)(n->port_hi + 1);
			}
		}
	}
	addrs[na++] = (addr_probe){ AF_INET, { 127, 0, 0, 1 } };
	addrs[na++] = (addr_probe){ AF_INET6, { [15] = 1 } };
	for (int op = IR_NET_CONNECT; op <= IR_NET_CREATE; op++)
		for (size_t f = 0; f < sizeof fams / sizeof *fams; f++)
			for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
				ir_event ev = ir_net_kind_event((ir_net_op)op, fams[f],
								types[t][0], types[t][1]);
				bt->fn(&ev, 0, bt->ctx);
				ev.u.net.has_addr = true;
				for (size_t a = 0; a < na; a++) {
					if (addrs[a].family != fams[f])
						continue;
					memcpy(ev.u.net.addr, addrs[a].addr, 16);
					for (size_t p = 0; p < np; p++) {
						ev.u.net.port = ports[p];
						bt->fn(&ev, 0, bt->ctx);
					}
				}
			}
}

void events_between(const ir_policy *a, const ir_policy *b, events_fn fn, void *ctx)
{
	between bt = { a, b, fn, ctx };
	between_syscalls(&bt);
	between_files(&bt);
	between_misc(&bt);
	between_network(&bt);
}

/* ---- events as text ---- */

static const char *perm_name(unsigned perm)
{
	static const char *const n[] = { "read", "write", "append", "exec", "mmap", "link", "lock" };
	int k = perm ? __builtin_ctz(perm) : 99;
	return k < 7 ? n[k] : "?";
}

static void syscall_text(const ir_event *ev, unsigned shown, buf *b)
{
	char name[64];
	ir_arch a = ir_event_arch(ev);
	if (!sys_name(a, ev->u.sys.nr, name, sizeof name))
		snprintf(name, sizeof name, "#%u", ev->u.sys.nr & ~IR_X32_SYSCALL_BIT);
	buf_printf(b, "syscall %s", name);
	for (int i = 0; i < 6; i++)
		if (shown >> i & 1)
			buf_printf(b, " arg%d=0x%llx", i, (unsigned long long)ev->u.sys.args[i]);
	buf_printf(b, " (%s)", ir_arch_name(a));
}

static void network_text(const ir_event *ev, buf *b)
{
	static const char *const op[] = { "any", "connect", "bind", "listen", "accept", "send", "create" };
	int f = ev->u.net.family, t = ev->u.net.type;
	const char *fam = f == AF_INET ? "inet" : f == AF_INET6 ? "inet6" : f == AF_UNIX ? "unix"
			: f == AF_NETLINK ? "netlink" : f == AF_PACKET ? "packet" : NULL;
	const char *ty = t == SOCK_STREAM ? "stream" : t == SOCK_DGRAM ? "dgram" : t == SOCK_RAW ? "raw" : NULL;
	buf_printf(b, "network %s", ev->u.net.op <= IR_NET_CREATE ? op[ev->u.net.op] : "?");
	fam ? buf_printf(b, " %s", fam) : buf_printf(b, " family %d", f);
	ty ? buf_printf(b, " %s", ty) : buf_printf(b, " type %d", t);
	buf_printf(b, " protocol %d", ev->u.net.protocol);
	if (ev->u.net.has_addr) {
		char s[INET6_ADDRSTRLEN] = "?";
		inet_ntop(f == AF_INET6 ? AF_INET6 : AF_INET, ev->u.net.addr, s, sizeof s);
		buf_printf(b, " to %s port %u", s, ev->u.net.port);
	}
}

void event_text(const ir_event *ev, unsigned shown, buf *b)
{
	static const char *const mop[] = { "mount", "umount", "pivot_root" };
	const char *cap;
	switch (ev->domain) {
	case IR_SYSCALL: syscall_text(ev, shown, b); break;
	case IR_FILE: buf_printf(b, "file \"%s\" %s", ev->u.file.path, perm_name(ev->u.file.perm)); break;
	case IR_EXEC: buf_printf(b, "exec \"%s\"", ev->u.exec.path); break;
	case IR_CAPABILITY:
		cap = cap_name(ev->u.cap.cap);
		cap ? buf_printf(b, "capability %s", cap) : buf_printf(b, "capability %d", ev->u.cap.cap);
		break;
	case IR_MOUNT:
		buf_puts(b, ev->u.mount.op <= IR_MOUNT_PIVOT_ROOT ? mop[ev->u.mount.op] : "?");
		if (ev->u.mount.fstype)
			buf_printf(b, " fstype %s", ev->u.mount.fstype);
		if (ev->u.mount.target)
			buf_printf(b, " on \"%s\"", ev->u.mount.target);
		break;
	case IR_NETWORK: network_text(ev, b); break;
	case IR_PTRACE: buf_puts(b, ev->u.ptrace.mode == IR_PTRACE_READ ? "ptrace read" : "ptrace trace"); break;
	case IR_SIGNAL:
		ev->u.signal.peer ? buf_printf(b, "signal to \"%s\"", ev->u.signal.peer) : buf_puts(b, "signal");
		break;
	case IR_NDOMAIN: buf_puts(b, "?"); break;
	}
}
