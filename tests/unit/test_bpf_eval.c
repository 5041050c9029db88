/* test_bpf_eval.c - the bundle means what the policy means: for every rule
 * of the library and several hand-written policies, lower to a bundle,
 * write it to bytes and parse it back, then decide random and adversarial
 * events (deep paths, //, /./, trailing '/', directories, long names,
 * UTF-8, long paths, addresses near each CIDR, ports at range edges) with the bundle
 * evaluator and with ir_decide(): verdict, errno and deciding statement
 * must agree; a path too long to walk must be decided at least as
 * restrictively (fail closed). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <netinet/in.h>

#include <bpf/btf.h>

#include "compiler/compile.h"
#include "backends/bpf/bundle.h"
#include "backends/bpf/loader.h"
#include "front_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define SLOW 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLOW 1
#endif
#endif
#ifdef SLOW
#define EVENTS 1000      /* sanitizers: far slower */
#else
#define EVENTS 100000
#endif

static unsigned rs = 777;
static unsigned rnd(void)
{
	rs = rs * 1103515245u + 12345u;
	return (rs >> 8) & 0xffffff;
}

static const char alpha[] = "/ab.sc09etdpaswrunvxqyfkhl-_\xc3\xa9*";

typedef struct {
	const char *g[512];
	size_t ng;
} globs;

/* Up to 512 of the policy's globs, spread over all of them. */
static void collect(const ir_policy *p, globs *gs)
{
	gs->ng = 0;
	for (int d = IR_FILE; d <= IR_EXEC; d++) {
		size_t step = p->dom[d].n / 400 + 1;
		for (size_t i = 0; i < p->dom[d].n && gs->ng < 512; i += step)
			gs->g[gs->ng++] = p->dom[d].v[i].u.file.glob;
		if (step > 1 && gs->ng < 512)   /* and the last: the highest ids */
			gs->g[gs->ng++] = p->dom[d].v[p->dom[d].n - 1].u.file.glob;
	}
	for (size_t i = 0; i < p->dom[IR_MOUNT].n && gs->ng < 512; i++)
		if (p->dom[IR_MOUNT].v[i].u.mount.target)
			gs->g[gs->ng++] = p->dom[IR_MOUNT].v[i].u.mount.target;
}

static void seg(char *p, size_t *n, size_t cap, unsigned max)
{
	unsigned len = rnd() % (max + 1);
	for (unsigned k = 0; k < len && *n + 1 < cap; k++)
		p[(*n)++] = alpha[rnd() % (sizeof alpha - 1)];
}

/* A path near one of the policy's globs, or random, then edited. */
static void gen_path(const globs *gs, char *p, size_t cap)
{
	size_t n = 0;
	if (gs->ng && rnd() % 4) {
		for (const char *g = gs->g[rnd() % gs->ng]; *g && n + 1 < cap; g++) {
			if (strchr("*?[]{},\\^", *g))
				seg(p, &n, cap, 3);
			else
				p[n++] = *g;
		}
	} else {
		p[n++] = '/';
		seg(p, &n, cap, 30);
	}
	p[n] = 0;
	switch (rnd() % 10) {
	case 0: if (n + 1 < cap) { p[n++] = '/'; p[n] = 0; } break;
	case 1: if (n + 2 < cap) { memmove(p + 1, p, n + 1); p[0] = '/'; n++; } break;
	case 2: if (n + 4 < cap) { memcpy(p + n, "/./", 4); n += 3; } break;
	case 3: while (n + 2 < cap && n < 600) { p[n++] = rnd() % 9 ? 'a' + rnd() % 4 : '/'; } p[n] = 0; break;
	case 4: /* very long: beyond what the enforcer walks */
		while (n + 2 < cap) p[n++] = rnd() % 50 ? 'x' : '/';
		p[n] = 0;
		break;
	default: break;
	}
}

static const char *fstypes[] = { "proc", "tmpfs", "cgroup", "cgroup2", "securityfs",
				  "overlay", "sysfs", "ext4", "", NULL };

static void gen_net(const ir_policy *p, ir_event *ev)
{
	static const int fam[] = { AF_INET, AF_INET6, AF_UNIX, AF_NETLINK, AF_PACKET, 38 /* AF_ALG */ };
	static const int type[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW, SOCK_STREAM | SOCK_NONBLOCK, SOCK_SEQPACKET };
	static const int proto[] = { 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP, IPPROTO_ICMPV6, IPPROTO_MPTCP };
	ev->u.net.op = (ir_net_op)(1 + rnd() % 6);
	ev->u.net.family = fam[rnd() % 6];
	ev->u.net.type = type[rnd() % 5];
	ev->u.net.protocol = proto[rnd() % 6];
	ev->u.net.has_addr = rnd() % 4 != 0;
	for (int i = 0; i < 16; i++)
		ev->u.net.addr[i] = (uint8_t)rnd();
	ev->u.net.port = (uint16_t)rnd();
	const ir_stmt_list *l = &p->dom[IR_NETWORK];
	if (l->n && rnd() % 4) {
		const ir_network *n = &l->v[rnd() % l->n].u.net;
		if (n->has_addr) {
			ev->u.net.family = n->addr.family;
			int keep = n->addr.prefix - 1 + (int)(rnd() % 3);   /* around the edge */
			for (int i = 0; i < 16; i++) {
				int bits = keep - 8 * i;
				uint8_t mask = bits >= 8 ? 0xff : bits <= 0 ? 0 : (uint8_t)(0xff << (8 - bits));
				ev->u.net.addr[i] = (uint8_t)((n->addr.addr[i] & mask) | (ev->u.net.addr[i] & ~mask));
			}
		} else if (n->family) {
			ev->u.net.family = n->family;
		}
		if (n->has_port) {
			int pick[] = { n->port_lo - 1, n->port_lo, n->port_hi, n->port_hi + 1 };
			ev->u.net.port = (uint16_t)pick[rnd() % 4];
		}
		if (rnd() % 2 && n->op)
			ev->u.net.op = n->op;
	}
}

static void gen_event(const ir_policy *p, const globs *gs, ir_event *ev, char *path, size_t cap)
{
	memset(ev, 0, sizeof *ev);
	unsigned k = rnd() % 10;
	if (k < 4) {
		ev->domain = IR_FILE;
		gen_path(gs, path, cap);
		ev->u.file.path = path;
		ev->u.file.perm = 1u << (rnd() % 7);
		ev->u.file.dir = rnd() % 4 == 0;   /* named "path" and "path/" */
	} else if (k < 5) {
		ev->domain = IR_EXEC;
		gen_path(gs, path, cap);
		ev->u.exec.path = path;
	} else if (k < 6) {
		ev->domain = IR_CAPABILITY;
		ev->u.cap.cap = (int)(rnd() % 45);
	} else if (k < 7) {
		ev->domain = IR_MOUNT;
		ev->u.mount.op = (ir_mount_op)(rnd() % 3);
		ev->u.mount.fstype = fstypes[rnd() % 10];
		const ir_stmt_list *l = &p->dom[IR_MOUNT];
		if (l->n && l->v[0].u.mount.nfstype && rnd() % 2)
			ev->u.mount.fstype = l->v[0].u.mount.fstypes[0];
		if (rnd() % 5) {
			gen_path(gs, path, cap);
			ev->u.mount.target = path;
		}
	} else if (k < 9) {
		ev->domain = IR_NETWORK;
		gen_net(p, ev);
	} else if (rnd() % 2) {
		ev->domain = IR_PTRACE;
		ev->u.ptrace.mode = rnd() % 2 ? IR_PTRACE_READ : IR_PTRACE_TRACE;
	} else {
		ev->domain = IR_SIGNAL;
	}
}

static size_t event_path_len(const ir_event *ev)
{
	const char *s = ev->domain == IR_FILE ? ev->u.file.path :
			ev->domain == IR_EXEC ? ev->u.exec.path :
			ev->domain == IR_MOUNT ? ev->u.mount.target : NULL;
	return s ? strlen(s) : 0;
}

static int rank(ir_verdict v) { return v == IR_KILL ? 3 : (int)v; }

static uint32_t net_class(ir_net_op op)
{
	switch (op) {
	case IR_NET_CREATE: return BPFB_NEEDS_NET_CREATE;
	case IR_NET_CONNECT: return BPFB_NEEDS_NET_CONNECT;
	case IR_NET_BIND: return BPFB_NEEDS_NET_BIND;
	case IR_NET_LISTEN: return BPFB_NEEDS_NET_LISTEN;
	case IR_NET_ACCEPT: return BPFB_NEEDS_NET_ACCEPT;
	/* socket_sendmsg, attached for either: a send to an address is a
	 * connect to it too (ir_decide) */
	case IR_NET_SEND: return BPFB_NEEDS_NET_SEND | BPFB_NEEDS_NET_CONNECT;
	default: return BPFB_NEEDS_NET;
	}
}

/* The bpfb_needs class of the hook that decides ev as `d` (loader.c attaches
 * a hook only for the classes some loaded policy needs). An exec: the exec
 * open (file_open) makes only a statement's deny in enforce mode,
 * bprm_check every other decision. */
static uint32_t needs_class(const ir_event *ev, const ir_decision *d)
{
	switch (ev->domain) {
	case IR_FILE: return 1u << __builtin_ctz(ev->u.file.perm);   /* IR_PERM_* = POLC_CH_* */
	case IR_EXEC: return d->verdict >= IR_DENY && d->by ? 1u << POLC_CH_EXEC : BPFB_NEEDS_BPRM;
	case IR_MOUNT: return BPFB_NEEDS_MOUNT;
	case IR_CAPABILITY: return BPFB_NEEDS_CAP;
	case IR_NETWORK: return net_class(ev->u.net.op);
	case IR_PTRACE: return BPFB_NEEDS_PTRACE;
	case IR_SIGNAL: return BPFB_NEEDS_SIGNAL;
	default: return 0;
	}
}

static long total_events;

/* The header's send_open (bpf_layout.h) says a family's sends without an
 * address need no deciding: each must then be an allow for ir_decide and
 * for the bundle's evaluator (the enforcer's matcher), for socket types
 * 0..15 with and without SOCK_NONBLOCK and protocols 0..64 and beyond. */
static void check_send_open(const ir_policy *p, const uint32_t *w, size_t nw, const char *what)
{
	const struct polc_hdr *h = (const void *)w;
	static const int far[] = { 132, 255, 256, 262, 1000 };
	for (int f = 0; f < 64; f++) {
		if (!(h->send_open[f / 32] >> (f % 32) & 1))
			continue;
		for (int t = 0; t < 32; t++)
			for (int k = 0; k < 65 + (int)(sizeof far / sizeof *far); k++) {
				ir_event ev = { .domain = IR_NETWORK };
				ev.u.net.op = IR_NET_SEND;
				ev.u.net.family = f;
				ev.u.net.type = (t & 15) | (t & 16 ? SOCK_NONBLOCK : 0);
				ev.u.net.protocol = k < 65 ? k : far[k - 65];
				ir_verdict want = ir_decide(p, &ev).verdict;
				uint32_t got = bpfb_eval(w, nw, &ev);
				if (want != IR_ALLOW || POLC_DEC_VERDICT(got) != POLC_V_ALLOW)
					fail_msg("%s: send_open has family %d, but a send without an "
						 "address (type %d protocol %d) is %s (bundle %u)", what,
						 f, ev.u.net.type, ev.u.net.protocol,
						 ir_verdict_name(want), POLC_DEC_VERDICT(got));
			}
	}
}

/* The header's chan_open and exec_lens (bpf_layout.h) let the enforcer
 * allow without a path: a channel chan_open names, or an exec group event
 * (an exec, a file's exec or mmap) whose path's last name has a length
 * exec_lens leaves out. Every event ir_decide decides other than allow must
 * be outside both. */
static void check_no_path_allows(const ir_policy *p, const uint32_t *w, const ir_event *ev,
				 const char *what)
{
	const struct polc_hdr *h = (const void *)w;
	const char *path;
	uint32_t ch;
	if (ev->domain == IR_EXEC) {
		path = ev->u.exec.path;
		ch = POLC_CH_EXEC;
	} else if (ev->domain == IR_FILE) {
		path = ev->u.file.path;
		ch = (uint32_t)__builtin_ctz(ev->u.file.perm);   /* IR_PERM_* = POLC_CH_* */
	} else {
		return;
	}
	if (ir_decide(p, ev).verdict == IR_ALLOW)
		return;
	if (h->chan_open >> ch & 1)
		fail_msg("%s: chan_open has channel %u, but '%.80s' is decided on it", what, ch, path);
	if (!(POLC_EXEC_GROUP >> ch & 1))
		return;
	const char *last = strrchr(path, '/');
	size_t k = strlen(last ? last + 1 : path);
	if (k > 63)
		k = 63;
	if (!(h->exec_lens[k / 32] >> (k % 32) & 1))
		fail_msg("%s: exec_lens leaves out length %zu, but '%.80s'%s is decided on channel %u",
			 what, k, path, ev->domain == IR_FILE && ev->u.file.dir ? " (a directory)" : "",
			 ch);
}

/* An mmap event the bundle need not decide (bpfb_needs leaves the channel
 * out): ir_decide must refuse the read of its path, and the exec open by a
 * statement (file_open counts only those for it), so no descriptor to map
 * can be had by opening it. */
static bool mmap_refused_at_open(const ir_policy *p, const ir_event *ev)
{
	if (ev->domain != IR_FILE || ev->u.file.perm != IR_PERM_MMAP)
		return false;
	ir_event rd = *ev, ex = *ev;
	rd.u.file.perm = IR_PERM_READ;
	ex.u.file.perm = IR_PERM_EXEC;
	ir_decision r = ir_decide(p, &rd), x = ir_decide(p, &ex);
	return r.verdict >= IR_DENY && x.verdict >= IR_DENY && x.by;
}

/* An operation on a socket of a kind p refuses to create (in both IP
 * families for an IP one: an IPv6 socket's traffic to a v4-mapped address
 * is IPv4's), which bpfb_needs may leave out: the socket could only be
 * passed in. */
static bool socket_refused_at_create(const ir_policy *p, const ir_event *ev)
{
	if (ev->domain != IR_NETWORK || ev->u.net.op == IR_NET_CREATE)
		return false;
	int fam = ev->u.net.family;
	bool inet = fam == AF_INET || fam == AF_INET6;
	for (int i = 0; i < (inet ? 2 : 1); i++) {
		int f = inet ? (i ? AF_INET6 : AF_INET) : fam;
		ir_event cr = ir_net_kind_event(IR_NET_CREATE, f, ev->u.net.type, ev->u.net.protocol);
		if (ir_decide(p, &cr).verdict < IR_DENY)
			return false;
	}
	return true;
}

/* Lower, round-trip through bytes, and compare on nev events. */
static void check_policy_n(const ir_policy *p, const char *what, int nev, bpfb_stats *stp)
{
	diag_ctx d;
	diag_init(&d);
	bpf_bundle b0, b;
	bpfb_stats st;
	if (bpfb_lower(p, "# test\n", &b0, &st, &d) < 0) {
		diag_print(&d, stderr, false);
		fail_msg("%s: lowering failed", what);
	}
	buf bytes;
	buf_init(&bytes);
	bpfb_serialize(&b0, &bytes);
	const char *err = bpfb_parse(bytes.data, bytes.len, &b);
	if (err)
		fail_msg("%s: parse: %s", what, err);
	assert_int_equal(b.nwords, b0.nwords);
	assert_memory_equal(b.w, b0.w, b.nwords * 4);
	globs gs;
	collect(p, &gs);
	uint32_t needs = bpfb_needs(b.w, b.nwords);
	check_send_open(p, b.w, b.nwords, what);
	static char path[POLC_PATH_MAX + 200];
	for (int i = 0; i < nev; i++) {
		ir_event ev;
		gen_event(p, &gs, &ev, path, sizeof path);
		ir_decision want = ir_decide(p, &ev);
		check_no_path_allows(p, b.w, &ev, what);
		if (want.verdict != IR_ALLOW && !(needs & needs_class(&ev, &want)) &&
		    !mmap_refused_at_open(p, &ev) && !socket_refused_at_create(p, &ev))
			fail_msg("%s: a %s event (net op %d fam %d type %d proto %d) is decided %s, "
				 "but the bundle does not need its hook (needs 0x%x)", what,
				 ir_domain_name(ev.domain), ev.u.net.op, ev.u.net.family, ev.u.net.type,
				 ev.u.net.protocol, ir_verdict_name(want.verdict), needs);
		uint32_t got = bpfb_eval(b.w, b.nwords, &ev);
		ir_verdict gv = (ir_verdict)POLC_DEC_VERDICT(got);
		/* a directory is walked as "path/" too: one byte more */
		size_t dirb = ev.domain == IR_FILE && ev.u.file.dir ? 1 : 0;
		if (event_path_len(&ev) + dirb >= POLC_PATH_MAX) {
			if (rank(gv) < rank(want.verdict))
				fail_msg("%s: long path (%zu bytes) decided %s, oracle %s", what,
					 event_path_len(&ev), ir_verdict_name(gv), ir_verdict_name(want.verdict));
			continue;
		}
		const ir_stmt *by = bpfb_stmt(p, POLC_DEC_STMT(got));
		bool ok = gv == want.verdict && by == want.by &&
			  (want.verdict != IR_DENY || (int)POLC_DEC_ERR(got) == want.err);
		if (!ok)
			fail_msg("%s: %s event (path '%.80s' cap %d net op %d fam %d): oracle %s err %d "
				 "by %p; bundle %s err %u stmt %u", what, ir_domain_name(ev.domain),
				 ev.domain == IR_FILE ? ev.u.file.path : ev.domain == IR_EXEC ?
				 ev.u.exec.path : ev.domain == IR_MOUNT && ev.u.mount.target ?
				 ev.u.mount.target : "", ev.u.cap.cap, ev.u.net.op, ev.u.net.family,
				 ir_verdict_name(want.verdict), want.err, (void *)want.by,
				 ir_verdict_name(gv), POLC_DEC_ERR(got), POLC_DEC_STMT(got));
	}
	total_events += nev;
	if (stp)
		*stp = st;
	bpfb_free(&b);
	bpfb_free(&b0);
	buf_free(&bytes);
	diag_free(&d);
}

static void check_policy(const ir_policy *p, const char *what)
{
	check_policy_n(p, what, EVENTS, NULL);
}

static void test_library(void **state)
{
	(void)state;
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	if (polc_compile_library(&d, &prog) < 0) {
		diag_print(&d, stderr, false);
		fail_msg("library does not compile");
	}
	assert_true(prog.nrules > 0);
	uint32_t maxst = 0;
	size_t maxbytes = 0;
	time_t t0 = time(NULL);
	for (size_t i = 0; i < prog.nrules; i++) {
		check_policy(&prog.rules[i]->body, prog.rules[i]->name);
		diag_ctx d2;
		diag_init(&d2);
		bpf_bundle b;
		bpfb_stats st;
		assert_int_equal(bpfb_lower(&prog.rules[i]->body, NULL, &b, &st, &d2), 0);
		if (st.file_states > maxst)
			maxst = st.file_states;
		if (st.blob_bytes > maxbytes)
			maxbytes = st.blob_bytes;
		bpfb_free(&b);
		diag_free(&d2);
	}
	print_message("%zu library rules x %d events agree with ir_decide (%lds); "
		      "largest file DFA %u states, largest blob %zu KiB\n", prog.nrules, EVENTS,
		      (long)(time(NULL) - t0), maxst, maxbytes / 1024);
	ir_program_free(&prog);
	diag_free(&d);
}

static const char *const policies[] = {
	/* the LANGUAGE.md example */
	"policy redis {\n mode enforce;\n default allow;\n"
	" use disallow-umount, mitigate-sa-leak, disallow-metadata-service;\n"
	" deny syscall keyctl, add_key, request_key, bpf, userfaultfd;\n"
	" deny errno EACCES file \"/proc/sys/kernel/**\" write;\n"
	" allow file \"/var/lib/redis/**\" read, write;\n"
	" deny capability sys_admin, sys_module;\n"
	" deny network connect to 169.254.169.254/32;\n"
	" allow network bind tcp port 6379;\n}\n",
	/* default deny with allow holes, overlapping globs, errnos, kill */
	"policy strict {\n default deny file, exec;\n default deny errno EACCES network;\n"
	" allow file \"/usr/**\" read, mmap, exec;\n allow file \"/tmp/*\" read, write, append;\n"
	" deny errno ENOENT file \"/usr/lib/secret*\" read;\n kill file \"/usr/lib/secret-kill\" read;\n"
	" audit file \"/tmp/{a,b,c}*\" write;\n allow exec \"/usr/bin/{ls,cat,sh}\";\n"
	" allow network connect inet tcp to 10.0.0.0/8 port 80, 443, 8000-8100;\n"
	" deny errno ECONNREFUSED network connect to 10.1.0.0/16;\n"
	" allow network inet6 udp to fd00::/8;\n allow network unix;\n"
	" deny ptrace read;\n deny errno ESRCH signal;\n}\n",
	/* audit mode: every deny becomes audit, the deciding statement stays */
	"policy watch {\n mode audit;\n default deny capability;\n audit file \"/etc/**\" read;\n"
	" deny file \"/etc/shadow\" read, write;\n allow capability net_bind_service;\n"
	" deny mount fstype proc, sysfs on \"/proc/**\";\n allow mount on \"/mnt/*\";\n"
	" deny umount;\n deny pivot_root;\n deny network listen;\n}\n",
	/* mount and exec corner cases */
	"policy mounts {\n deny mount fstype tmpfs;\n allow mount fstype tmpfs on \"/run/**\";\n"
	" deny errno EBUSY mount on \"/{,var/}lib/*/\";\n deny exec \"/**/{busybox,sh,bash,dash}\";\n"
	" allow exec \"/bin/sh\";\n deny ptrace trace;\n allow ptrace;\n}\n",
};

static void test_policies(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof policies / sizeof *policies; i++) {
		diag_ctx d;
		diag_init(&d);
		ir_program prog;
		memset(&prog, 0, sizeof prog);
		compile_opts o;
		memset(&o, 0, sizeof o);
		if (polc_compile_text("hand.pol", policies[i], &o, &d, &prog) < 0 || d.nerrors) {
			diag_print(&d, stderr, false);
			fail_msg("policy %zu does not compile", i);
		}
		for (size_t k = 0; k < prog.npolicies; k++)
			check_policy(prog.policies[k], prog.policies[k]->name);
		ir_program_free(&prog);
		diag_free(&d);
	}
	print_message("%ld events in all agree\n", total_events);
}

/* Beyond the enforcer's old fixed limits (16-bit statement ids, 32,767
 * DFA entries): 70,002 statements, every errno up to 4095, verdicts mixed,
 * overlapping globs; the events are drawn near globs spread over all of
 * them and the last (ir_decide is linear in the statements: fewer events). */
static void test_beyond_16_bits(void **state)
{
	(void)state;
	buf t;
	buf_init(&t);
	buf_puts(&t, "policy big {\n default deny errno 4095 exec;\n");
	for (int i = 0; i < 70000; i++) {
		static const char *const act[] = { "deny errno %d", "audit", "allow", "kill" };
		buf_puts(&t, "  ");
		buf_printf(&t, act[i % 4], 1 + i % 4095);
		if (i % 1000 == 999)   /* read: overlaps many */
			buf_printf(&t, " file \"/srv/b/%d*/**\" read;\n", i / 1000);
		else
			buf_printf(&t, " file \"/srv/b/%d/**\" write;\n", i);
	}
	buf_puts(&t, "  allow exec \"/srv/b/1/*\";\n  deny network tcp connect port 30000;\n}\n");
	front_compiled *c = front_compile(buf_cstr(&t), true);
	if (c->rc < 0 || c->d.nerrors || !c->p)
		fail_msg("big policy does not compile");
	bpfb_stats st;
	check_policy_n(c->p, "big", EVENTS / 100, &st);
	print_message("%u statements, %u file DFA states, %u entries: agree\n", st.nstmts,
		      st.file_states, st.file_entries);
	assert_int_equal(st.nstmts, 70002);
	assert_true(st.file_entries > 32767);
	front_release(c);
	buf_free(&t);
}

/* A corrupted or truncated bundle is refused, never evaluated. */
static void test_corrupt(void **state)
{
	(void)state;
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	compile_opts o;
	memset(&o, 0, sizeof o);
	assert_int_equal(polc_compile_text("c.pol", policies[0], &o, &d, &prog), 0);
	bpf_bundle b, b2;
	assert_int_equal(bpfb_lower(prog.policies[0], NULL, &b, NULL, &d), 0);
	buf bytes;
	buf_init(&bytes);
	bpfb_serialize(&b, &bytes);
	assert_null(bpfb_parse(bytes.data, bytes.len, &b2));
	bpfb_free(&b2);
	assert_non_null(bpfb_parse(bytes.data, bytes.len - 1, &b2));
	bytes.data[BPFB_FILE_HDR + 100] ^= 1;
	assert_non_null(bpfb_parse(bytes.data, bytes.len, &b2));
	/* a valid checksum over an out-of-range transition: still refused */
	b.w[b.w[offsetof(struct polc_hdr, file) / 4 + 4]] = 0x7fffffff;   /* file.trans */
	buf_free(&bytes);
	bpfb_serialize(&b, &bytes);
	assert_non_null(bpfb_parse(bytes.data, bytes.len, &b2));
	buf_free(&bytes);
	bpfb_free(&b);
	ir_program_free(&prog);
	diag_free(&d);
}

/* Every enforcer program says when it is attached: marked as the
 * enforcer's own protection where it is defined, or in loader.c's table of
 * what it decides (a new hook must say which). The marked ones are exactly
 * the programs whose refusals hold whatever the policy says: each guards an
 * escape of vm/t_bpf_escape (sb_umount once lost its place here, tied to
 * mount statements, and unmounting the BPF filesystem escaped). */
static void test_hook_table(void **state)
{
	(void)state;
	char err[256], got[512];
	if (bpfl_check_hooks(err, sizeof err) < 0)
		fail_msg("%s", err);
	if (bpfl_self_protection(got, sizeof got, err, sizeof err) < 0)
		fail_msg("%s", err);
	assert_string_equal(got, "polc_bpf_map polc_bpf_prog polc_bpf polc_inode_unlink "
			    "polc_inode_rename polc_task_alloc polc_file_open polc_sb_umount");
}

/* Why the enforcer did not load, by the load's errno: EACCES is the
 * verifier refusing one program (named, with where its log goes), never
 * "this kernel refuses BPF LSM programs", which sent a verifier rejection
 * looking for a kernel command line; EPERM, or bpf not among the active
 * LSMs, is the kernel refusing BPF LSM programs. */
static void test_load_error(void **state)
{
	(void)state;
	static const char refused[] =
		"libbpf: prog 'polc_file_open': BPF program load failed: Permission denied";
	static const struct {
		int e, lsm;
		const char *refused, *want, *not;
	} cases[] = {
		{ EACCES, 1, refused, "the BPF verifier refused the enforcer's program "
		  "polc_file_open (Permission denied); run polc again with POLC_DEBUG=1 to have "
		  "the verifier's log on stderr", "refuses BPF LSM" },
		{ EACCES, -1, refused, "verifier refused the enforcer's program polc_file_open",
		  "refuses BPF LSM" },
		{ EACCES, 1, NULL, "the BPF verifier refused one of the enforcer's programs",
		  "refuses BPF LSM" },
		{ E2BIG, 1, refused, "verifier refused the enforcer's program polc_file_open "
		  "(Argument list too long)", "refuses BPF LSM" },
		{ EPERM, 1, refused, "this kernel refuses BPF LSM programs (loading the enforcer: "
		  "Operation not permitted): bpf is an active LSM here, but loading its programs "
		  "is not permitted (not root, or BPF trampolines blocked)", "verifier" },
		{ EPERM, -1, NULL, "this kernel refuses BPF LSM programs (loading the enforcer: "
		  "Operation not permitted): BPF LSM needs root, lsm=...,bpf", "verifier" },
		{ EACCES, 0, refused, "this kernel refuses BPF LSM programs (loading the enforcer: "
		  "Permission denied): bpf is not among its LSMs", "verifier" },
		{ EINVAL, 1, NULL, "the kernel rejected the enforcer program: Invalid argument "
		  "(libbpf: the last line)", "verifier" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char err[512];
		bpfl_load_error(err, sizeof err, cases[i].e, cases[i].lsm, cases[i].refused,
				"libbpf: the last line");
		if (!strstr(err, cases[i].want) || strstr(err, cases[i].not))
			fail_msg("case %zu: %s", i, err);
		if (strchr(err, '\n'))
			fail_msg("case %zu: not one line: %s", i, err);
	}
}

/* A one-policy source compiled and lowered to a bundle (b); the front end's
 * result, to release once b is freed. */
static front_compiled *lower_src(const char *src, bpf_bundle *b)
{
	front_compiled *c = front_compile(src, false);
	if (c->rc < 0 || !c->p)
		fail_msg("%s does not compile", src);
	bpfb_stats st;
	assert_int_equal(bpfb_lower(c->p, NULL, b, &st, &c->d), 0);
	return c;
}

/* A policy that decides nothing needs no hook; one deny needs its class. */
static void test_needs(void **state)
{
	(void)state;
	static const struct { const char *src; uint32_t needs; } cases[] = {
		{ "policy a { use always-allow; }", 0 },
		{ "policy a { deny file \"/x\" read; }", 1u << POLC_CH_READ },
		{ "policy a { deny exec \"/x\"; }", 1u << POLC_CH_EXEC },
		/* an exec decided other than by a statement's deny: bprm_check */
		{ "policy a { audit exec \"/x\"; }", 1u << POLC_CH_EXEC | BPFB_NEEDS_BPRM },
		{ "policy a { mode audit; deny exec \"/x\"; }", 1u << POLC_CH_EXEC | BPFB_NEEDS_BPRM },
		{ "policy a { default deny exec; allow exec \"/x\"; }",
		  1u << POLC_CH_EXEC | BPFB_NEEDS_BPRM },
		{ "policy a { deny exec \"/x/**\"; allow exec \"/x/y\"; }", 1u << POLC_CH_EXEC },
		/* a network operation: its hooks (an address sent to is a connect) */
		{ "policy a { deny network tcp connect; }", BPFB_NEEDS_NET_CONNECT },
		{ "policy a { deny network connect to 10.0.0.1; }", BPFB_NEEDS_NET_CONNECT },
		{ "policy a { deny network bind inet; }", BPFB_NEEDS_NET_BIND },
		{ "policy a { deny network listen; }", BPFB_NEEDS_NET_LISTEN },
		{ "policy a { deny network accept inet6 tcp; }", BPFB_NEEDS_NET_ACCEPT },
		{ "policy a { deny network send to 10.0.0.1; }", BPFB_NEEDS_NET_SEND },
		/* a send without an address on a socket the task can make:
		 * file_permission too (sendfile, splice) */
		{ "policy a { deny network send inet tcp; }", BPFB_NEEDS_NET_SEND | BPFB_NEEDS_SPLICE },
		{ "policy a { mode audit; deny network send unix; }",
		  BPFB_NEEDS_NET_SEND | BPFB_NEEDS_SPLICE },
		/* ... not where every such socket's creation is refused (the
		 * presets' AF_ALG: only creation's hook), nor where the sockets
		 * allowed send freely */
		{ "policy a { deny network alg; }", BPFB_NEEDS_NET_CREATE },
		{ "policy a { mode audit; deny network alg; }", BPFB_NEEDS_NET | BPFB_NEEDS_SPLICE },
		{ "policy a { default deny network; allow network inet tcp; }", BPFB_NEEDS_NET },
		/* an IPv6 socket can carry IPv4's traffic: an IPv4 rule's
		 * operations stay where only IPv4 sockets are refused */
		{ "policy a { deny network inet; }", BPFB_NEEDS_NET },
		{ "policy a { deny network inet; deny network inet6; }", BPFB_NEEDS_NET_CREATE },
		{ "policy a { deny capability sys_admin; }", BPFB_NEEDS_CAP },
		{ "policy a { mode audit; deny capability sys_admin; }", BPFB_NEEDS_CAP },
		{ "policy a { deny syscall ptrace; }", 0 },
		/* mmap refused only where the read and the exec open are: left out */
		{ "policy a { deny file \"/x/**\" read, exec, mmap; }",
		  1u << POLC_CH_READ | 1u << POLC_CH_EXECP },
		{ "policy a { deny file \"/x/**\" read, exec, mmap; deny file \"/y\" read; }",
		  1u << POLC_CH_READ | 1u << POLC_CH_EXECP },
		/* ... not where either is allowed, nor under mode audit */
		{ "policy a { deny file \"/x\" exec, mmap; }",
		  1u << POLC_CH_EXECP | 1u << POLC_CH_MMAP },
		{ "policy a { deny file \"/x\" read, mmap; }",
		  1u << POLC_CH_READ | 1u << POLC_CH_MMAP },
		{ "policy a { deny file \"/x/**\" read, exec, mmap; deny file \"/z\" mmap; }",
		  1u << POLC_CH_READ | 1u << POLC_CH_EXECP | 1u << POLC_CH_MMAP },
		{ "policy a { mode audit; deny file \"/x\" read, exec, mmap; }",
		  1u << POLC_CH_READ | 1u << POLC_CH_EXECP | 1u << POLC_CH_MMAP },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bpf_bundle b;
		front_compiled *c = lower_src(cases[i].src, &b);
		uint32_t got = bpfb_needs(b.w, b.nwords);
		if (got != cases[i].needs)
			fail_msg("%s: needs 0x%x, want 0x%x", cases[i].src, got, cases[i].needs);
		bpfb_free(&b);
		front_release(c);
	}
}

/* Which families' sends without an address the bundle says need no
 * deciding (send_open, bit = AF_*): exactly those no statement or default
 * can decide. */
static void test_send_open(void **state)
{
	(void)state;
	static const struct { const char *src; uint64_t open; } cases[] = {
		{ "policy a { use always-allow; }", ~0ull },
		{ "policy a { deny network connect to 169.254.169.254/32; }", ~0ull },
		{ "policy a { deny network send to 10.0.0.0/8; }", ~0ull },
		{ "policy a { deny network tcp port 80; }", ~0ull },
		{ "policy a { deny network listen; allow network send; }", ~0ull },
		{ "policy a { deny network alg; }", ~0ull & ~(1ull << 38) },
		{ "policy a { deny network send; }", 0 },
		{ "policy a { deny network udp send; }", ~0ull & ~(1ull << AF_INET | 1ull << AF_INET6) },
		{ "policy a { deny network icmp; }", ~0ull & ~(1ull << AF_INET | 1ull << AF_INET6) },
		{ "policy a { deny network raw; }", 0 },
		{ "policy a { mode audit; deny network unix; }", ~0ull & ~(1ull << AF_UNIX) },
		{ "policy a { audit network send; }", 0 },
		{ "policy a { default deny network; allow network inet; allow network inet6; }",
		  1ull << AF_INET | 1ull << AF_INET6 },
		{ "policy a { default deny network; allow network send; }", ~0ull },
		{ "policy a { default deny network; allow network tcp send; }", 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bpf_bundle b;
		front_compiled *c = lower_src(cases[i].src, &b);
		const struct polc_hdr *h = (const void *)b.w;
		uint64_t got = h->send_open[0] | (uint64_t)h->send_open[1] << 32;
		if (got != cases[i].open)
			fail_msg("%s: send_open 0x%016llx, want 0x%016llx", cases[i].src,
				 (unsigned long long)got, (unsigned long long)cases[i].open);
		check_send_open(c->p, b.w, b.nwords, cases[i].src);
		bpfb_free(&b);
		front_release(c);
	}
}

/* exec_lens and chan_open for policies whose answer is known by hand: the
 * bits a deny of named programs leaves set, and what a '*', a '**', a
 * directory, a default or an mmap or exec-permission statement sets. Each
 * is also checked against ir_decide on random events (check_policy). */
#define LEN(k) (1ull << (k))
#define FROM(k) (~0ull << (k))
static void test_exec_lens(void **state)
{
	(void)state;
	static const struct { const char *src; uint64_t lens; } cases[] = {
		{ "policy a { use always-allow; }", 0 },
		{ "policy a { deny file \"/etc/**\" read, write; }", 0 },
		{ "policy a { deny exec \"/usr/bin/nc\"; }", LEN(2) },
		{ "policy a { deny exec \"/usr/bin/{nc,ncat,socat}\"; }", LEN(2) | LEN(4) | LEN(5) },
		{ "policy a { deny exec \"/polc-bench-rule-1/bin\"; }", LEN(3) },
		{ "policy a { deny exec \"/**/nc\"; }", LEN(2) },
		{ "policy a { deny exec \"/usr/bin/nc*\"; }", FROM(2) },
		{ "policy a { deny exec \"/usr/bin/*\"; }", FROM(1) },
		{ "policy a { deny exec \"/usr/**\"; }", ~0ull },   /* "/usr/a/": a last name of 0 */
		{ "policy a { deny file \"/opt/x\" exec; }", LEN(1) },
		{ "policy a { deny file \"/opt/lib.so\" mmap; }", LEN(6) },
		{ "policy a { audit exec \"/bin/sh\"; }", LEN(2) },
		{ "policy a { default deny exec; allow exec \"/usr/bin/*\"; }", ~0ull },
		{ "policy a { deny exec \"/usr/bin/\"; }", LEN(0) | LEN(3) },   /* "bin" + "/" */
		{ "policy a { deny exec \"/usr/bin/ab/\"; }", LEN(2) | LEN(0) },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		bpf_bundle b;
		front_compiled *c = lower_src(cases[i].src, &b);
		const struct polc_hdr *h = (const void *)b.w;
		uint64_t got = h->exec_lens[0] | (uint64_t)h->exec_lens[1] << 32;
		if (got != cases[i].lens)
			fail_msg("%s: exec_lens 0x%016llx, want 0x%016llx", cases[i].src,
				 (unsigned long long)got, (unsigned long long)cases[i].lens);
		check_policy(c->p, cases[i].src);
		bpfb_free(&b);
		front_release(c);
	}
}

/* Whether seed `p` is good: a bundle (NAME.bpfpol) parses, a bare-words
 * seed (NAME.words) validates; 0 or what is wrong with it. */
static const char *seed_fault(const char *p, int words)
{
	static char why[256];
	buf raw;
	buf_init(&raw);
	if (buf_read_file(&raw, p) != 0) {
		buf_free(&raw);
		return "unreadable";
	}
	const char *e;
	if (words) {
		e = raw.len % 4 ? "not whole words" : bpfb_validate((const uint32_t *)raw.data, raw.len / 4);
	} else {
		bpf_bundle b;
		e = bpfb_parse(raw.data, raw.len, &b);
		if (!e)
			bpfb_free(&b);
	}
	if (e)
		snprintf(why, sizeof why, "%s", e);
	buf_free(&raw);
	return e ? why : 0;
}

/* The bundle fuzzer starts from tests/fuzz/corpus/bundle/: seeds of an old
 * format are refused at once (version), and the fuzzer then never gets
 * past the header. Every seed there parses or validates, or
 * tests/fuzz/bundle-seeds.sh must rewrite them. */
static void test_fuzz_seeds(void **state)
{
	(void)state;
	char dir[512];
	snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/bundle", POLC_SRC_DIR);
	DIR *d = opendir(dir);
	assert_non_null(d);
	int bundles = 0, words = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		int is_words = n > 6 && !strcmp(e->d_name + n - 6, ".words");
		int is_bundle = n > 7 && !strcmp(e->d_name + n - 7, ".bpfpol");
		if (!is_words && !is_bundle)
			continue;
		char p[1024];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		const char *why = seed_fault(p, is_words);
		if (why)
			fail_msg("%s: %s (run tests/fuzz/bundle-seeds.sh)", p, why);
		bundles += is_bundle;
		words += is_words;
	}
	closedir(d);
	assert_true(bundles > 0 && words == bundles);
}

/* The loader installs no enforcer on a kernel that skips a preempted LSM
 * program's other runs: a BTF without the checking sleepable trampoline
 * entry is such a kernel's, one with it (this host's, when readable) not. */
static void test_kernel_runs_nested(void **state)
{
	(void)state;
	assert_false(bpfl_kernel_runs_nested(NULL));
	struct btf *b = btf__new_empty();
	assert_non_null(b);
	int proto = btf__add_func_proto(b, 0);
	assert_true(proto > 0);
	assert_true(btf__add_func(b, "__bpf_prog_enter_sleepable", BTF_FUNC_STATIC, proto) > 0);
	assert_false(bpfl_kernel_runs_nested(b));
	assert_true(btf__add_func(b, "__bpf_prog_enter_sleepable_recur", BTF_FUNC_STATIC, proto) > 0);
	assert_true(bpfl_kernel_runs_nested(b));
	btf__free(b);
	struct btf *v = btf__load_vmlinux_btf();
	if (v) {   /* this host's kernel (6.18) has the split */
		assert_true(bpfl_kernel_runs_nested(v));
		btf__free(v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library),
		cmocka_unit_test(test_policies),
		cmocka_unit_test(test_beyond_16_bits),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_hook_table),
		cmocka_unit_test(test_load_error),
		cmocka_unit_test(test_needs),
		cmocka_unit_test(test_kernel_runs_nested),
		cmocka_unit_test(test_send_open),
		cmocka_unit_test(test_exec_lens),
		cmocka_unit_test(test_fuzz_seeds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
