/* irdiff.c - semantic diff of two policies (irdiff.h): probe events built
 * from what either policy mentions, decide each with ir_decide() on both
 * sides, report the ones that differ. */
#include "irdiff.h"
#include "consts.h"
#include "glob.h"
#include "syscalls.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

typedef struct {
	const ir_policy *a, *b;
	irdiff *out;
	bool skip_defaults[IR_NDOMAIN];   /* a default item covers these */
	unsigned skip_arches;             /* an arch item covers these */
	int arch_kind[IR_NARCH];          /* bit 1 widened, 2 narrowed, 4 changed */
} differ;

static bool permits(ir_verdict v) { return v <= IR_AUDIT; }

static irdiff_kind kind_of(ir_verdict o, int oe, ir_verdict n, int ne)
{
	(void)oe; (void)ne;
	if (!permits(o) && permits(n))
		return IRD_WIDENED;
	if (permits(o) && !permits(n))
		return IRD_NARROWED;
	return IRD_CHANGED;
}

static irdiff_side side_of(ir_decision d, const ir_policy *p)
{
	irdiff_side s = { d.verdict, d.err, d.by ? d.by->loc : p->loc, !d.by };
	return s;
}

static bool same_side(const irdiff_side *x, const irdiff_side *y)
{
	return x->verdict == y->verdict && x->err == y->err && x->is_default == y->is_default &&
	       x->at.file == y->at.file && x->at.line == y->at.line && x->at.col == y->at.col;
}

/* "syscall read (i386)" joins "syscall read (x86_64)" when both sides were
 * decided alike: one line "syscall read (x86_64, i386)". */
static bool merge_arch(irdiff *out, const char *subject, const irdiff_side *o, const irdiff_side *n)
{
	const char *open = strrchr(subject, '(');
	if (!open || open == subject)
		return false;
	size_t plen = (size_t)(open - subject);
	for (size_t i = 0; i < out->n; i++) {
		irdiff_item *it = &out->v[i];
		const char *io = strrchr(it->subject, '(');
		if (it->domain != IR_SYSCALL || !io || (size_t)(io - it->subject) != plen ||
		    strncmp(it->subject, subject, plen) || !same_side(&it->old, o) || !same_side(&it->new_, n))
			continue;
		size_t l = strlen(it->subject);
		char *m = xasprintf("%.*s, %s", (int)(l - 1), it->subject, open + 1);
		free(it->subject);
		it->subject = m;
		return true;
	}
	return false;
}

static void add(differ *df, ir_domain dom, char *subject, irdiff_side o, irdiff_side n)
{
	irdiff *out = df->out;
	for (size_t i = 0; i < out->n; i++)   /* one item per event text */
		if (!strcmp(out->v[i].subject, subject)) {
			free(subject);
			return;
		}
	if (dom == IR_SYSCALL && merge_arch(out, subject, &o, &n)) {
		free(subject);
		return;
	}
	xgrow(&out->v, &out->cap, out->n + 1, sizeof *out->v);
	irdiff_item *it = &out->v[out->n++];
	it->kind = kind_of(o.verdict, o.err, n.verdict, n.err);
	it->domain = dom;
	it->subject = subject;
	it->old = o;
	it->new_ = n;
}

/* Decide ev on both sides; record it (text made lazily) if they differ. */
static bool probe(differ *df, const ir_event *ev, char *(*text)(const ir_event *, void *), void *ctx)
{
	ir_decision x = ir_decide(df->a, ev), y = ir_decide(df->b, ev);
	if (x.verdict == y.verdict && x.err == y.err)
		return false;
	if (ev->domain == IR_SYSCALL) {
		ir_arch a = ir_event_arch(ev);
		if (df->skip_arches & IR_ARCH_BIT(a)) {
			df->arch_kind[a] |= 1 << kind_of(x.verdict, x.err, y.verdict, y.err);
			return true;
		}
	}
	if (!x.by && !y.by && df->skip_defaults[ev->domain])
		return true;
	add(df, ev->domain, text(ev, ctx), side_of(x, df->a), side_of(y, df->b));
	return true;
}

/* ---- syscalls ---- */

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

static char *sys_text(const ir_event *ev, void *ctx)
{
	const bool *used = ctx;
	char name[64];
	ir_arch a = ir_event_arch(ev);
	if (!sys_name(a, ev->u.sys.nr, name, sizeof name))
		snprintf(name, sizeof name, "#%u", ev->u.sys.nr & ~IR_X32_SYSCALL_BIT);
	buf b;
	buf_init(&b);
	buf_printf(&b, "syscall %s", name);
	for (int i = 0; i < 6; i++)
		if (used[i])
			buf_printf(&b, " arg%d=0x%llx", i, (unsigned long long)ev->u.sys.args[i]);
	buf_printf(&b, " (%s)", ir_arch_name(a));
	return buf_cstr(&b);
}

static void collect(const ir_policy *p, ir_arch a, uint32_t nr, valset *vals, bool *used)
{
	const ir_stmt_list *l = &p->dom[IR_SYSCALL];
	for (size_t i = 0; i < l->n; i++) {
		const ir_syscall *s = &l->v[i].u.sys;
		if (s->nr[a] < 0 || (uint32_t)s->nr[a] != nr)
			continue;
		for (size_t k = 0; k < s->ncond; k++) {
			used[s->conds[k].arg] = true;
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
static void sys_probe(differ *df, ir_arch a, uint32_t nr)
{
	valset vals[6];
	bool used[6] = { false };
	for (int i = 0; i < 6; i++) {
		vals[i].n = 0;
		vs_add(&vals[i], 0);
	}
	collect(df->a, a, nr, vals, used);
	collect(df->b, a, nr, vals, used);
	for (int i = 0; i < 6; i++)     /* smallest differing sample first */
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
			if (probe(df, &ev, sys_text, used))
				return;    /* one item per syscall */
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
			if (probe(df, &ev, sys_text, used))
				return;
		}
}

static void diff_syscalls(differ *df)
{
	unsigned arches = df->a->arches | df->b->arches;
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(arches & IR_ARCH_BIT(a)))
			continue;
		for (uint32_t i = 0; i < 1024; i++)
			sys_probe(df, (ir_arch)a, a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i);
	}
}

/* ---- paths ---- */

typedef struct { char **v; size_t n, cap; } strset;

static void ss_add(strset *s, char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], x)) {
			free(x);
			return;
		}
	xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = x;
}

static void ss_free(strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* One concrete path for a brace-free glob; deep: wildcards span segments
 * (which only ** may match: this is what tells * from **). */
static char *example(const char *g, bool deep)
{
	buf b;
	buf_init(&b);
	for (const char *p = g; *p; p++) {
		if (p[0] == '*' && p[1] == '*') {
			buf_puts(&b, deep ? "x/y" : "x");
			p++;
		} else if (*p == '*') {
			buf_puts(&b, deep ? "x/y" : "x");
		} else if (*p == '?') {
			buf_puts(&b, "x");
		} else if (*p == '[') {
			const char *e = strchr(p + 1, ']');
			bool neg = p[1] == '^';
			char c = neg ? '~' : p[1];
			buf_put(&b, &c, 1);
			p = e ? e : p + strlen(p) - 1;
		} else if (*p == '\\' && p[1]) {
			buf_put(&b, ++p, 1);
		} else {
			buf_put(&b, p, 1);
		}
	}
	return buf_cstr(&b);
}

static void alt_examples(const char *alt, void *ctx)
{
	strset *s = ctx;
	ss_add(s, example(alt, false));
	ss_add(s, example(alt, true));
	/* the directory a trailing wildcard hangs under, and a sibling */
	size_t n = strlen(alt);
	if (n > 1 && alt[n - 1] == '*') {
		const char *slash = strrchr(alt, '/');
		if (slash && slash > alt)
			ss_add(s, xstrndup(alt, (size_t)(slash - alt)));
	}
	char *e = example(alt, false);
	ss_add(s, xasprintf("%s-polc", e));
	free(e);
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

static const char *perm_name(unsigned perm)
{
	static const char *const n[] = { "read", "write", "append", "exec", "mmap", "link", "lock" };
	return n[__builtin_ctz(perm)];
}

static char *file_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	if (ev->domain == IR_EXEC)
		return xasprintf("exec \"%s\"", ev->u.exec.path);
	return xasprintf("file \"%s\" %s", ev->u.file.path, perm_name(ev->u.file.perm));
}

static void diff_files(differ *df)
{
	strset paths = { 0 };
	globs_of(df->a, IR_FILE, &paths);
	globs_of(df->b, IR_FILE, &paths);
	for (size_t i = 0; i < paths.n; i++)
		for (unsigned perm = 1; perm < IR_PERM_ALL; perm <<= 1) {
			ir_event ev = { .domain = IR_FILE };
			ev.u.file.path = paths.v[i];
			ev.u.file.perm = perm;
			probe(df, &ev, file_text, NULL);
		}
	ss_free(&paths);
	strset ex = { 0 };
	globs_of(df->a, IR_EXEC, &ex);
	globs_of(df->b, IR_EXEC, &ex);
	for (size_t i = 0; i < ex.n; i++) {
		ir_event ev = { .domain = IR_EXEC };
		ev.u.exec.path = ex.v[i];
		probe(df, &ev, file_text, NULL);
	}
	ss_free(&ex);
}

/* ---- capabilities, ptrace, signal, mount ---- */

static char *cap_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	const char *n = cap_name(ev->u.cap.cap);
	return n ? xasprintf("capability %s", n) : xasprintf("capability %d", ev->u.cap.cap);
}

static char *ptrace_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	return xstrdup(ev->u.ptrace.mode == IR_PTRACE_READ ? "ptrace read" : "ptrace trace");
}

static char *signal_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	return ev->u.signal.peer ? xasprintf("signal to \"%s\"", ev->u.signal.peer) : xstrdup("signal");
}

static char *mount_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	static const char *const op[] = { "mount", "umount", "pivot_root" };
	buf b;
	buf_init(&b);
	buf_puts(&b, op[ev->u.mount.op]);
	if (ev->u.mount.fstype)
		buf_printf(&b, " fstype %s", ev->u.mount.fstype);
	if (ev->u.mount.target)
		buf_printf(&b, " on \"%s\"", ev->u.mount.target);
	return buf_cstr(&b);
}

static void diff_misc(differ *df)
{
	for (int c = 0; c < 64; c++) {
		ir_event ev = { .domain = IR_CAPABILITY };
		ev.u.cap.cap = c;
		probe(df, &ev, cap_text, NULL);
	}
	for (unsigned m = IR_PTRACE_READ; m <= IR_PTRACE_TRACE; m++) {
		ir_event ev = { .domain = IR_PTRACE };
		ev.u.ptrace.mode = m;
		probe(df, &ev, ptrace_text, NULL);
	}
	strset peers = { 0 };
	globs_of(df->a, IR_SIGNAL, &peers);
	globs_of(df->b, IR_SIGNAL, &peers);
	for (size_t i = 0; i <= peers.n; i++) {
		ir_event ev = { .domain = IR_SIGNAL };
		ev.u.signal.peer = i < peers.n ? peers.v[i] : NULL;
		probe(df, &ev, signal_text, NULL);
	}
	ss_free(&peers);
	strset targets = { 0 }, fs = { 0 };
	globs_of(df->a, IR_MOUNT, &targets);
	globs_of(df->b, IR_MOUNT, &targets);
	ss_add(&targets, xstrdup("/polc-probe"));
	ss_add(&fs, xstrdup("polc-probe-fs"));
	for (int side = 0; side < 2; side++) {
		const ir_stmt_list *l = &(side ? df->b : df->a)->dom[IR_MOUNT];
		for (size_t i = 0; i < l->n; i++)
			for (size_t k = 0; k < l->v[i].u.mount.nfstype; k++)
				ss_add(&fs, xstrdup(l->v[i].u.mount.fstypes[k]));
	}
	for (int op = IR_MOUNT_MOUNT; op <= IR_MOUNT_PIVOT_ROOT; op++)
		for (size_t f = 0; f <= fs.n; f++)
			for (size_t t = 0; t <= targets.n; t++) {
				ir_event ev = { .domain = IR_MOUNT };
				ev.u.mount.op = (ir_mount_op)op;
				ev.u.mount.fstype = op == IR_MOUNT_MOUNT && f < fs.n ? fs.v[f] : NULL;
				ev.u.mount.target = t < targets.n ? targets.v[t] : NULL;
				probe(df, &ev, mount_text, NULL);
			}
	ss_free(&targets);
	ss_free(&fs);
}

/* ---- network ---- */

typedef struct { int family; uint8_t addr[16]; } addr_probe;

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

static char *net_text(const ir_event *ev, void *ctx)
{
	(void)ctx;
	static const char *const op[] = { "any", "connect", "bind", "listen", "accept", "send", "socket" };
	buf b;
	buf_init(&b);
	int f = ev->u.net.family, t = ev->u.net.type;
	const char *fam = f == AF_INET ? "inet" : f == AF_INET6 ? "inet6" : f == AF_UNIX ? "unix"
			: f == AF_NETLINK ? "netlink" : f == AF_PACKET ? "packet" : "?";
	const char *ty = t == SOCK_STREAM ? "stream" : t == SOCK_DGRAM ? "dgram" : t == SOCK_RAW ? "raw" : "?";
	buf_printf(&b, "network %s %s %s protocol %d", op[ev->u.net.op], fam, ty, ev->u.net.protocol);
	if (ev->u.net.has_addr) {
		char s[INET6_ADDRSTRLEN];
		inet_ntop(ev->u.net.family, ev->u.net.addr, s, sizeof s);
		buf_printf(&b, " to %s port %u", s, ev->u.net.port);
	}
	return buf_cstr(&b);
}

static void diff_network(differ *df)
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
		const ir_stmt_list *l = &(side ? df->b : df->a)->dom[IR_NETWORK];
		for (size_t i = 0; i < l->n && na + 4 <= 512 && np + 4 <= 512; i++) {
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
				ir_event ev = { .domain = IR_NETWORK };
				ev.u.net.op = (ir_net_op)op;
				ev.u.net.family = fams[f];
				ev.u.net.type = types[t][0];
				ev.u.net.protocol = types[t][1];
				probe(df, &ev, net_text, NULL);
				ev.u.net.has_addr = true;
				for (size_t a = 0; a < na; a++) {
					if (addrs[a].family != fams[f])
						continue;
					memcpy(ev.u.net.addr, addrs[a].addr, 16);
					for (size_t p = 0; p < np; p++) {
						ev.u.net.port = ports[p];
						probe(df, &ev, net_text, NULL);
					}
				}
			}
}

/* ---- settings ---- */

static void diff_settings(differ *df)
{
	if (df->a->mode != df->b->mode) {
		irdiff_side o = { IR_DENY, 0, df->a->loc, true }, n = { IR_AUDIT, 0, df->b->loc, true };
		if (df->a->mode == IR_MODE_AUDIT) {
			o.verdict = IR_AUDIT;
			n.verdict = IR_DENY;
		}
		add(df, IR_NDOMAIN, xstrdup("mode (enforce -> audit turns every deny into audit)"), o, n);
	}
	for (int d = 0; d < IR_NDOMAIN; d++) {
		ir_action x = ir_effective(df->a, df->a->defaults[d]);
		ir_action y = ir_effective(df->b, df->b->defaults[d]);
		int xe = x.verdict >= IR_DENY ? x.err : 0, ye = y.verdict >= IR_DENY ? y.err : 0;
		if (x.verdict == y.verdict && xe == ye)
			continue;
		df->skip_defaults[d] = true;
		irdiff_side o = { x.verdict, xe, df->a->loc, true }, n = { y.verdict, ye, df->b->loc, true };
		add(df, (ir_domain)d, xasprintf("default %s", ir_domain_name((ir_domain)d)), o, n);
	}
	df->skip_arches = df->a->arches ^ df->b->arches;
}

static void diff_arch_items(differ *df)
{
	for (int a = 0; a < IR_NARCH; a++) {
		int k = df->arch_kind[a];
		if (!(df->skip_arches & IR_ARCH_BIT(a)) || !k)
			continue;
		bool in_new = df->b->arches & IR_ARCH_BIT(a);
		irdiff_side o = { IR_DENY, 1, df->a->loc, true }, n = { IR_DENY, 1, df->b->loc, true };
		(in_new ? &n : &o)->verdict = IR_ALLOW;
		add(df, IR_SYSCALL, xasprintf("arch %s (%s; syscalls of that ABI decided differently)",
					      ir_arch_name((ir_arch)a), in_new ? "named only by new" : "named only by old"),
		    o, n);
		irdiff_item *it = &df->out->v[df->out->n - 1];
		/* errno-only changes (ENOSYS for unknown numbers) do not hide
		 * which way the permissions moved */
		it->kind = (k & 1) && !(k & 2) ? IRD_WIDENED : (k & 2) && !(k & 1) ? IRD_NARROWED : IRD_CHANGED;
	}
}

size_t ir_diff(const ir_policy *old, const ir_policy *new_, irdiff *out)
{
	differ df;
	memset(&df, 0, sizeof df);
	df.a = old;
	df.b = new_;
	df.out = out;
	diff_settings(&df);
	diff_syscalls(&df);
	diff_arch_items(&df);
	diff_files(&df);
	diff_misc(&df);
	diff_network(&df);
	return out->n;
}

bool irdiff_has(const irdiff *d, irdiff_kind k)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].kind == k)
			return true;
	return false;
}

const char *irdiff_kind_name(irdiff_kind k)
{
	return k == IRD_WIDENED ? "widened" : k == IRD_NARROWED ? "narrowed" : "changed";
}

static void put_decision(buf *out, const irdiff_side *s)
{
	buf_puts(out, ir_verdict_name(s->verdict));
	if (s->verdict == IR_DENY) {
		const char *n = errno_name(s->err);
		if (n)
			buf_printf(out, " %s", n);
		else
			buf_printf(out, " errno %d", s->err);
	}
}

static void put_loc(buf *out, const irdiff_side *s)
{
	if (s->is_default && s->at.file)
		buf_printf(out, "default of %s:%d:%d", s->at.file->path, s->at.line, s->at.col);
	else if (s->is_default || !s->at.file)
		buf_puts(out, "default");
	else
		buf_printf(out, "%s:%d:%d", s->at.file->path, s->at.line, s->at.col);
}


static void json_side(buf *out, const irdiff_side *s)
{
	buf lb;
	buf_init(&lb);
	put_loc(&lb, s);
	buf_printf(out, "{\"decision\":\"%s\",\"errno\":%d,\"at\":", ir_verdict_name(s->verdict),
		   s->verdict == IR_DENY ? s->err : 0);
	buf_json_str(out, buf_cstr(&lb));
	buf_puts(out, "}");
	buf_free(&lb);
}

void irdiff_print(const irdiff *d, bool json, buf *out)
{
	if (json) {
		buf_printf(out, "{\"equal\":%s,\"differences\":[", d->n ? "false" : "true");
		for (size_t i = 0; i < d->n; i++) {
			const irdiff_item *it = &d->v[i];
			buf_printf(out, "%s\n {\"kind\":\"%s\",\"domain\":\"%s\",\"subject\":", i ? "," : "",
				   irdiff_kind_name(it->kind),
				   it->domain == IR_NDOMAIN ? "mode" : ir_domain_name(it->domain));
			buf_json_str(out, it->subject);
			buf_puts(out, ",\"old\":");
			json_side(out, &it->old);
			buf_puts(out, ",\"new\":");
			json_side(out, &it->new_);
			buf_puts(out, "}");
		}
		buf_puts(out, d->n ? "\n]}\n" : "]}\n");
		return;
	}
	for (size_t i = 0; i < d->n; i++) {
		const irdiff_item *it = &d->v[i];
		buf_printf(out, "%-8s %s: old ", irdiff_kind_name(it->kind), it->subject);
		put_decision(out, &it->old);
		buf_puts(out, " (");
		put_loc(out, &it->old);
		buf_puts(out, "), new ");
		put_decision(out, &it->new_);
		buf_puts(out, " (");
		put_loc(out, &it->new_);
		buf_puts(out, ")\n");
	}
}

void irdiff_free(irdiff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].subject);
	free(d->v);
	memset(d, 0, sizeof *d);
}
