/* spo.c - the policy as a Security Profiles Operator AppArmorProfile
 * (security-profiles-operator.x-k8s.io/v1, SPO v1), formats "spo" and "k8s".
 *
 * The operator no longer takes a profile's text: its released AppArmorProfile
 * (cluster-scoped) has only the "abstract" form, allow-lists the operator
 * renders with its own template on every node:
 *   allowedExecutables P   ->  P ixr,       allowedLibraries P  ->  P mr,
 *   readOnlyPaths P        ->  P r,  deny P wlk,
 *   writeOnlyPaths P       ->  P wlk, deny P r,
 *   readWritePaths P       ->  P rwlk,
 *   allowRaw               ->  network raw, (false: deny network raw,)
 *   allowTcp / allowUdp    ->  network tcp, / network udp,
 *   allowedCapabilities C  ->  capability C,
 * inside `#include <abstractions/base>` and fixed denies (mount, writes
 * under /proc and /sys, /proc/{sysrq-trigger,mem,kmem,kcore}); there is no
 * `file,` or `network,` and nothing else. SPO v1 also adds `mount,` when
 * sys_rawio is among the allowed capabilities, accepts only paths matching
 * a leading / then only letters, digits and _ . / * ? + @ { } space - (no
 * character classes, no quoting), and takes
 * `mode audit` as spec.mode Complain.
 *
 * So the mapping works by meaning, domain by domain: capabilities and
 * socket kinds are finite and are decided with ir_decide(); a file or exec
 * domain open by default becomes the whole tree plus the lists that take its denies
 * out (a denied read is a writeOnlyPath, a denied write a readOnlyPath),
 * one closed by default becomes the lists of its allows. What the object
 * cannot carry exactly (a denied exec, an exception out of an allow-list,
 * the permissions a list grants or denies together, mounts, ptrace and
 * signals beyond the template, network families but tcp/udp/raw) is
 * refused with its location, or with --allow-partial warned about and
 * listed in the header, as backend_check() does for statements. What the
 * operator's template adds on every node is stated in the header.
 */
#include "apparmor.h"
#include "../k8s.h"
#include "../../compiler/consts.h"
#include "../../base/strset.h"
#include "../../compiler/glob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef struct {
	const ir_policy *p;
	ir_policy enforce;     /* p with mode enforce: the lists are the policy's,
	                          `mode audit` is the object's complainMode */
	bool partial_ok;
	diag_ctx *d;
	int refused;
	buf notes;             /* header lines: what is not carried exactly */
	strset exe, lib, ro, wo, rw;
	bool carried_deny;     /* a list that writes deny rules is used */
	bool rawio_mount;      /* sys_rawio allowed: SPO v1 adds `mount,` */
} spo;

#define PARTIAL SUPPORT_PARTIAL
#define NONE SUPPORT_NONE


/* Refuse, or (allow_partial) warn; either way the header lists it. */
static void inexact(spo *c, src_loc l, support_level lv, const char *what, const char *why)
{
	const char *how = lv == PARTIAL ? "exactly" : "at all";
	if (c->partial_ok) {
		diag_warn(c->d, l, "an SPO AppArmorProfile does not carry %s %s: %s", what, how, why);
	} else {
		diag_error(c->d, l, "an SPO AppArmorProfile cannot carry %s %s: %s (use --allow-partial "
			   "to build anyway)", what, how, why);
		c->refused++;
	}
	buf_puts(&c->notes, "# not carried exactly by the AppArmorProfile: ");
	if (l.file)
		buf_printf(&c->notes, "%s:%d:%d: ", l.file->path, l.line, l.col);
	buf_printf(&c->notes, "%s: %s: %s\n", support_name(lv), what, why);
}

static void stmt_inexact(spo *c, const ir_stmt *s, support_level lv, const char *why)
{
	inexact(c, s->loc, lv, "this statement", why);
}

static ir_verdict raw_verdict(const ir_stmt *s)
{
	return s->action.verdict;      /* the mode is carried as complainMode */
}

static bool open_dom(const spo *c, ir_domain d)
{
	return c->p->defaults[d].verdict <= IR_AUDIT;
}

typedef struct {
	const char *other;
	bool hit;
} overlap_ctx;

static void overlap_alt(const char *alt, void *ctx)
{
	overlap_ctx *o = ctx;
	if (!o->hit && (glob_is_literal(alt) ? glob_match(o->other, alt) : true))
		o->hit = true;
}

/* Can paths of glob a also be paths of glob b? Exact where one side's
 * alternatives are literal paths; otherwise assumed. */
static bool may_overlap(const char *a, const char *b)
{
	overlap_ctx x = { b, false }, y = { a, false };
	return glob_expand(a, overlap_alt, &x) < 0 || glob_expand(b, overlap_alt, &y) < 0 ||
	       (x.hit && y.hit);
}

/* Does an allow/audit statement of domain d grant any of perms (on paths
 * that may be paths of `near`, when given)? */
static bool any_allow(const spo *c, ir_domain d, unsigned perms, const ir_stmt *near)
{
	for (size_t i = 0; i < c->p->dom[d].n; i++) {
		const ir_stmt *s = &c->p->dom[d].v[i];
		if (s != near && raw_verdict(s) <= IR_AUDIT &&
		    (d == IR_EXEC || (s->u.file.perms & perms)) &&
		    (!near || may_overlap(s->u.file.glob, near->u.file.glob)))
			return true;
	}
	return false;
}

/* ---- paths ---- */

typedef struct {
	strset *dst;
	bool bad;
	char *bad_v1;          /* the first path SPO v1's path rule refuses */
} path_ctx;

/* SPO v1 refuses an abstract with a path other than a leading / then
 * letters, digits and _ . / * ? + @ { } space - only (crd2armor's rule). */
static bool spo_v1_path_ok(const char *t)
{
	if (*t != '/')
		return false;
	for (; *t; t++)
		if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
		      strchr("_./*?+@{} -", *t)))
			return false;
	return true;
}

/* The operator writes paths unquoted into its template: only text AppArmor
 * reads the same way unquoted is carried. */
static bool unquoted_ok(const char *t)
{
	for (; *t; t++)
		if ((unsigned char)*t <= ' ' || *t == 0x7f || strchr("\"#,\\{}", *t))
			return false;
	return true;
}

static void add_alt(const char *alt, void *ctx)
{
	path_ctx *pc = ctx;
	buf b;
	buf_init(&b);
	aa_put_glob(&b, alt, false);
	char *t = buf_cstr(&b);
	size_t n = strlen(t);
	t[n - 1] = 0;                          /* drop the quotes */
	if (!unquoted_ok(t + 1)) {
		pc->bad = true;
	} else if (!spo_v1_path_ok(t + 1)) {
		if (!pc->bad_v1)
			pc->bad_v1 = xstrdup(t + 1);
	} else {
		strset_add(pc->dst, t + 1);
		/* the directory form "dir/", as aa_put_glob's "{,/}" */
		size_t l = strlen(alt);
		if (l && alt[l - 1] != '/' && !(l >= 2 && !strcmp(alt + l - 2, "**"))) {
			char *dir = xasprintf("%s/", t + 1);
			strset_add(pc->dst, dir);
			free(dir);
		}
	}
	buf_free(&b);
}

/* Add a statement's glob (its brace alternatives) to a list. */
static bool add_glob(spo *c, const ir_stmt *s, strset *dst)
{
	path_ctx pc = { dst, false, NULL };
	strset tmp = { 0 };
	pc.dst = &tmp;
	if (glob_expand(s->u.file.glob, add_alt, &pc) < 0 || pc.bad) {
		stmt_inexact(c, s, NONE, "the operator writes paths unquoted into its template; "
			     "this glob needs quoting (a space, quote, '#', ',' or escape)");
		strset_free(&tmp);
		free(pc.bad_v1);
		return false;
	}
	if (pc.bad_v1) {
		char *why = xasprintf("SPO v1 accepts only paths matching ^/[a-zA-Z0-9_./*?+@{} -]*$ "
				      "(no character class), not %s", pc.bad_v1);
		stmt_inexact(c, s, NONE, why);
		free(why);
		free(pc.bad_v1);
		strset_free(&tmp);
		return false;
	}
	for (size_t i = 0; i < tmp.n; i++)
		strset_add(dst, tmp.v[i]);
	strset_free(&tmp);
	return true;
}

/* ---- file and exec ---- */

#define WALK (IR_PERM_WRITE | IR_PERM_APPEND | IR_PERM_LINK | IR_PERM_LOCK)

static void file_deny(spo *c, const ir_stmt *s)
{
	unsigned pm = s->u.file.perms;
	if (!open_dom(c, IR_FILE)) {
		if (any_allow(c, IR_FILE, s->u.file.perms, s))
			stmt_inexact(c, s, NONE, "the abstract form cannot take an exception out of "
				     "an allow-list (`default deny file` with allows)");
		return;                        /* else denied by the default anyway */
	}
	bool some = false;
	if (pm & IR_PERM_READ)
		some |= add_glob(c, s, &c->wo);
	if (pm & WALK) {
		some |= add_glob(c, s, &c->ro);
		if ((pm & WALK) != WALK)
			stmt_inexact(c, s, PARTIAL, "readOnlyPaths denies write, append, link and "
				     "lock together");
	}
	c->carried_deny |= some;
	if (pm & (IR_PERM_EXEC | IR_PERM_MMAP))
		stmt_inexact(c, s, some ? PARTIAL : NONE, "the abstract form cannot deny exec or mmap");
}

/* An allowed exec perm of a file statement, file domain closed. */
static void file_allow_exec(spo *c, const ir_stmt *s)
{
	if (open_dom(c, IR_EXEC)) {
		add_glob(c, s, &c->exe);
		if (!(s->u.file.perms & IR_PERM_READ))
			stmt_inexact(c, s, PARTIAL, "allowedExecutables also grants read");
	} else if (any_allow(c, IR_EXEC, 0, NULL)) {
		stmt_inexact(c, s, PARTIAL, "AppArmor has one execute permission for exec and file "
			     "exec: with both domains default deny it grants the union of their "
			     "allows, polc the intersection");
	}
}

static void file_allow(spo *c, const ir_stmt *s)
{
	unsigned pm = s->u.file.perms;
	if (open_dom(c, IR_FILE))
		return;                        /* granted by the whole tree already */
	if (pm & IR_PERM_EXEC)
		file_allow_exec(c, s);
	bool r = pm & IR_PERM_READ, m = pm & IR_PERM_MMAP, w = pm & WALK;
	if (w && r) {
		add_glob(c, s, &c->rw);
		if ((pm & WALK) != WALK)
			stmt_inexact(c, s, PARTIAL, "readWritePaths grants read, write, append, link "
				     "and lock together");
		if (m)
			add_glob(c, s, &c->lib);
	} else if (w) {
		c->carried_deny |= add_glob(c, s, &c->wo);
		if ((pm & WALK) != WALK)
			stmt_inexact(c, s, PARTIAL, "writeOnlyPaths grants write, append, link and "
				     "lock together");
		if (m || any_allow(c, IR_FILE, IR_PERM_READ | IR_PERM_MMAP, s))
			stmt_inexact(c, s, PARTIAL, "writeOnlyPaths also denies read of these paths, "
				     "over any statement that allows it");
	} else if (m) {
		add_glob(c, s, &c->lib);
		if (!r)
			stmt_inexact(c, s, PARTIAL, "allowedLibraries also grants read");
	} else if (r) {
		c->carried_deny |= add_glob(c, s, &c->ro);
		if (any_allow(c, IR_FILE, WALK, s))
			stmt_inexact(c, s, PARTIAL, "readOnlyPaths also denies write, link and lock of "
				     "these paths, over any statement that allows them");
	}
}

static void exec_stmt(spo *c, const ir_stmt *s)
{
	bool xo = open_dom(c, IR_EXEC);
	if (raw_verdict(s) >= IR_DENY) {
		if (xo)
			stmt_inexact(c, s, NONE, "the abstract form cannot deny exec");
		else if (any_allow(c, IR_EXEC, 0, s))
			stmt_inexact(c, s, NONE, "the abstract form cannot take an exception out of "
				     "an allow-list (`default deny exec` with allows)");
		return;
	}
	if (xo)
		return;
	if (open_dom(c, IR_FILE))
		add_glob(c, s, &c->exe);       /* ixr: read is open anyway */
	else if (any_allow(c, IR_FILE, IR_PERM_EXEC, NULL))
		stmt_inexact(c, s, PARTIAL, "AppArmor has one execute permission for exec and file "
			     "exec: with both domains default deny it grants the union of their "
			     "allows, polc the intersection");
}

static void files(spo *c)
{
	if (open_dom(c, IR_FILE)) {
		strset_add(&c->rw, "/**");
		strset_add(&c->lib, "/**");
		if (open_dom(c, IR_EXEC))
			strset_add(&c->exe, "/**");
	}
	backend_facts f = backend_prepare(&backend_apparmor, c->p);
	for (int d = IR_FILE; d <= IR_EXEC; d++)
		for (size_t i = 0; i < c->p->dom[d].n; i++) {
			const ir_stmt *s = &c->p->dom[d].v[i];
			if (backend_apparmor.classify(c->p, f, s).level == SUPPORT_NONE)
				continue;      /* refused or listed by backend_check() */
			if (raw_verdict(s) == IR_AUDIT)
				stmt_inexact(c, s, PARTIAL, "the abstract form has no audit rules: "
					     "allowed without a log");
			if (d == IR_EXEC)
				exec_stmt(c, s);
			else if (raw_verdict(s) >= IR_DENY)
				file_deny(c, s);
			else
				file_allow(c, s);
		}
}

/* ---- capabilities and sockets: finite, decided one by one ---- */

static src_loc decided_at(const spo *c, ir_decision dc)
{
	return dc.by ? dc.by->loc : c->p->loc;
}

static int caps(spo *c, k8s_doc *doc, int abs)
{
	int seq = k8s_seq(doc), n = 0;
	for (int cap = 0; cap <= cap_last(); cap++) {
		if (!cap_name(cap))
			continue;
		ir_event ev = { .domain = IR_CAPABILITY, .u.cap.cap = cap };
		ir_decision dc = ir_decide(&c->enforce, &ev);
		if (dc.verdict >= IR_DENY)
			continue;
		if (dc.verdict == IR_AUDIT)
			inexact(c, decided_at(c, dc), PARTIAL, "an audited capability",
				"the abstract form has no audit rules: allowed without a log");
		k8s_push(doc, seq, k8s_str(doc, cap_name(cap)));
		n++;
	}
	if (n) {
		int m = k8s_map(doc);
		k8s_put(doc, m, "allowedCapabilities", seq);
		k8s_put(doc, abs, "capability", m);
	}
	ir_event raw = { .domain = IR_CAPABILITY, .u.cap.cap = cap_from_name("sys_rawio") };
	ir_decision dc = ir_decide(&c->enforce, &raw);
	c->rawio_mount = dc.verdict <= IR_AUDIT;
	if (c->rawio_mount && (!open_dom(c, IR_MOUNT) || c->p->dom[IR_MOUNT].n))
		inexact(c, decided_at(c, dc), NONE, "sys_rawio beside mount rules",
			"SPO v1 adds `mount,` to the profile when sys_rawio is allowed, so every "
			"mount, umount and pivot_root would be allowed");
	return n;
}

/* The decision for sockets of one family and type: the most restrictive
 * over creating one and every operation on it, no address. */
static ir_decision sock_decision(spo *c, int family, int type)
{
	static const ir_net_op ops[] = { IR_NET_CREATE, IR_NET_CONNECT, IR_NET_BIND, IR_NET_LISTEN,
					 IR_NET_ACCEPT, IR_NET_SEND };
	ir_decision worst = { IR_ALLOW, 0, NULL };
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++) {
		ir_event ev = ir_net_kind_event(ops[i], family, type, 0);
		ir_decision dc = ir_decide(&c->enforce, &ev);
		if (i == 0 || dc.verdict > worst.verdict)
			worst = dc;
	}
	return worst;
}

typedef struct { int family, type; const char *name; } sock_kind;

/* One block of the abstract form (tcp, udp, raw): all allowed or none.
 * Returns 1 allowed, 0 denied (-1 mixed, reported). */
static int sock_block(spo *c, const sock_kind *k, size_t n, const char *what)
{
	int allowed = 0;
	ir_decision first = { IR_ALLOW, 0, NULL };
	for (size_t i = 0; i < n; i++) {
		ir_decision dc = sock_decision(c, k[i].family, k[i].type);
		if (dc.verdict == IR_AUDIT)
			inexact(c, decided_at(c, dc), PARTIAL, "audited sockets",
				"the abstract form has no audit rules: allowed without a log");
		if (!i) {
			first = dc;
			allowed = dc.verdict <= IR_AUDIT;
		} else if ((dc.verdict <= IR_AUDIT) != allowed) {
			char why[256];
			snprintf(why, sizeof why, "the abstract form allows or denies %s sockets as one: "
				 "%s sockets are %s but %s sockets %s", what, k[0].name,
				 allowed ? "allowed" : "denied", k[i].name, allowed ? "not" : "are");
			inexact(c, decided_at(c, allowed ? dc : first), NONE, "these sockets", why);
			return -1;
		}
	}
	return allowed;
}

static void network(spo *c, k8s_doc *doc, int abs)
{
	static const sock_kind tcp[] = { { AF_INET, SOCK_STREAM, "inet stream" },
					 { AF_INET6, SOCK_STREAM, "inet6 stream" } };
	static const sock_kind udp[] = { { AF_INET, SOCK_DGRAM, "inet dgram" },
					 { AF_INET6, SOCK_DGRAM, "inet6 dgram" } };
	static const sock_kind raw[] = { { AF_INET, SOCK_RAW, "inet raw" },
					 { AF_INET6, SOCK_RAW, "inet6 raw" },
					 { AF_NETLINK, SOCK_RAW, "netlink raw" },
					 { AF_PACKET, SOCK_RAW, "packet raw" } };
	static const sock_kind other[] = { { AF_UNIX, SOCK_STREAM, "unix stream" },
					   { AF_UNIX, SOCK_DGRAM, "unix dgram" },
					   { AF_NETLINK, SOCK_DGRAM, "netlink dgram" },
					   { AF_PACKET, SOCK_DGRAM, "packet dgram" } };
	int t = sock_block(c, tcp, 2, "tcp"), u = sock_block(c, udp, 2, "udp");
	int r = sock_block(c, raw, 4, "raw");
	buf names;
	buf_init(&names);
	src_loc at = c->p->loc;
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		ir_decision dc = sock_decision(c, other[i].family, other[i].type);
		if (dc.verdict <= IR_AUDIT) {
			if (!names.len)
				at = decided_at(c, dc);
			buf_printf(&names, "%s%s", names.len ? ", " : "", other[i].name);
		}
	}
	if (names.len) {
		char *why = xasprintf("the abstract form can allow only tcp, udp and raw sockets; "
				      "these would be denied: %s", buf_cstr(&names));
		inexact(c, at, NONE, "the allowed sockets", why);
		free(why);
	}
	buf_free(&names);
	int net = k8s_map(doc);
	k8s_put(doc, net, "allowRaw", k8s_bool(doc, r > 0));
	c->carried_deny |= r <= 0;
	if (t > 0 || u > 0) {
		int pr = k8s_map(doc);
		if (t > 0)
			k8s_put(doc, pr, "allowTcp", k8s_bool(doc, true));
		if (u > 0)
			k8s_put(doc, pr, "allowUdp", k8s_bool(doc, true));
		k8s_put(doc, net, "allowedProtocols", pr);
	}
	k8s_put(doc, abs, "network", net);
}

/* ---- what the template decides alone ---- */

static void template_domains(spo *c)
{
	const ir_policy *p = c->p;
	if (p->defaults[IR_SYSCALL].verdict != IR_ALLOW)
		inexact(c, p->loc, NONE, "the syscall default", "AppArmor does not mediate syscalls");
	static const struct { ir_domain d; const char *what, *why; } open[] = {
		{ IR_MOUNT, "`default allow mount`", "the operator's template denies every mount, "
		  "umount and pivot_root" },
		{ IR_PTRACE, "`default allow ptrace`", "the operator's template allows only what "
		  "<abstractions/base> does (ptrace read within the profile, being traced)" },
		{ IR_SIGNAL, "`default allow signal`", "the operator's template allows only the "
		  "signals <abstractions/base> does (within the profile, from unconfined)" },
	};
	for (size_t i = 0; i < sizeof open / sizeof *open; i++)
		if (open_dom(c, open[i].d) && !(open[i].d == IR_MOUNT && c->rawio_mount))
			inexact(c, p->loc, NONE, open[i].what, open[i].why);
	for (int d = IR_FILE; d <= IR_EXEC; d++)
		if (p->defaults[d].verdict == IR_AUDIT)
			inexact(c, p->loc, PARTIAL, "an audit default",
				"the abstract form has no audit rules: allowed without a log");
	for (size_t i = 0; i < p->dom[IR_MOUNT].n && !c->rawio_mount; i++)
		if (raw_verdict(&p->dom[IR_MOUNT].v[i]) <= IR_AUDIT)
			stmt_inexact(c, &p->dom[IR_MOUNT].v[i], NONE, "the operator's template denies "
				     "every mount, umount and pivot_root");
	for (size_t i = 0; i < p->dom[IR_PTRACE].n; i++) {
		const ir_stmt *s = &p->dom[IR_PTRACE].v[i];
		unsigned m = s->u.ptrace.modes ? s->u.ptrace.modes : IR_PTRACE_READ | IR_PTRACE_TRACE;
		if (raw_verdict(s) <= IR_AUDIT)
			stmt_inexact(c, s, NONE, "the abstract form has no ptrace rules");
		else if (m & IR_PTRACE_READ)
			stmt_inexact(c, s, PARTIAL, "<abstractions/base> allows ptrace read of "
				     "processes in the same profile");
	}
	for (size_t i = 0; i < p->dom[IR_SIGNAL].n; i++) {
		const ir_stmt *s = &p->dom[IR_SIGNAL].v[i];
		if (raw_verdict(s) <= IR_AUDIT)
			stmt_inexact(c, s, NONE, "the abstract form has no signal rules");
		else if (!s->u.signal.peer)
			stmt_inexact(c, s, PARTIAL, "<abstractions/base> allows signals between "
				     "processes of the same profile");
	}
}

/* ---- the object ---- */

static void put_list(k8s_doc *doc, int map, const char *key, strset *s)
{
	if (!s->n)
		return;
	strset_sort(s);
	int seq = k8s_seq(doc);
	for (size_t i = 0; i < s->n; i++)
		k8s_push(doc, seq, k8s_str(doc, s->v[i]));
	k8s_put(doc, map, key, seq);
}

static void abstract(spo *c, k8s_doc *doc, int spec)
{
	int abs = k8s_map(doc);
	files(c);
	if (c->exe.n || c->lib.n) {
		int m = k8s_map(doc);
		put_list(doc, m, "allowedExecutables", &c->exe);
		put_list(doc, m, "allowedLibraries", &c->lib);
		k8s_put(doc, abs, "executable", m);
	}
	if (c->ro.n || c->wo.n || c->rw.n) {
		int m = k8s_map(doc);
		put_list(doc, m, "readOnlyPaths", &c->ro);
		put_list(doc, m, "writeOnlyPaths", &c->wo);
		put_list(doc, m, "readWritePaths", &c->rw);
		k8s_put(doc, abs, "filesystem", m);
	}
	network(c, doc, abs);
	caps(c, doc, abs);
	template_domains(c);
	k8s_put(doc, spec, "abstract", abs);
	k8s_put(doc, spec, "mode", k8s_str(doc, c->p->mode == IR_MODE_AUDIT ? "Complain" : "Enforce"));
	if (c->p->mode == IR_MODE_AUDIT) {
		if (c->carried_deny)
			inexact(c, c->p->loc, PARTIAL, "`mode audit`", "AppArmor enforces the deny "
				"rules of readOnlyPaths, writeOnlyPaths and allowRaw: false even in "
				"complain mode");
	}
}

static const char *const template_note =
	"# AppArmorProfile, abstract form: the operator renders it with its own template,\n"
	"# which also includes <abstractions/base> (shared libraries, locales, /dev/null,\n"
	"# ptrace, signals and unix sockets within the profile) and denies mount, writes\n"
	"# under /proc and /sys (cgroup files excepted) and /proc/{sysrq-trigger,mem,kmem,kcore}.\n";

int aa_emit_spo(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d)
{
	const char *name, *ns;
	if (k8s_spo_version_in_use() != K8S_SPO_V1) {
		diag_error(d, src_loc_none(), "apparmor spo: polc writes the AppArmorProfile of SPO v1 "
			   "only (its abstract form); drop --spo-version 0.8 for this target");
		return -1;
	}
	if (k8s_names(p, false, &name, &ns, d) < 0)
		return -1;
	spo c;
	memset(&c, 0, sizeof c);
	c.p = p;
	c.enforce = *p;
	c.enforce.mode = IR_MODE_ENFORCE;
	c.partial_ok = o && o->allow_partial;
	c.d = d;
	buf_init(&c.notes);
	buf_puts(&c.notes, template_note);
	k8s_doc docs[2];
	size_t n = 0;
	int spec;
	k8s_doc_init(&docs[n], "AppArmorProfile: the operator loads it on every node");
	/* cluster-scoped: no namespace */
	k8s_object(&docs[n], K8S_SPO_APPARMOR_API, "AppArmorProfile", name, NULL, p, o, &spec);
	abstract(&c, &docs[n++], spec);
	if (k8s_format_wants_snippet(o)) {
		k8s_doc_init(&docs[n], "Pod securityContext selecting it: merge into the pod spec or a "
			     "workload's pod template (not an object to apply)");
		k8s_security_context(&docs[n++], NULL, name);
	}
	int rc = c.refused ? -1 : k8s_write(&backend_apparmor, p, o, buf_cstr(&c.notes), docs, n,
					    out, d);
	for (size_t i = 0; i < n; i++)
		k8s_doc_free(&docs[i]);
	strset *lists[] = { &c.exe, &c.lib, &c.ro, &c.wo, &c.rw };
	for (size_t i = 0; i < 5; i++)
		strset_free(lists[i]);
	buf_free(&c.notes);
	return rc;
}
