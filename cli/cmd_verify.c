/* cmd_verify.c - polc verify: derive probes from every statement, run them
 * on the real kernel under each backend's output, compare with ir_decide,
 * and print a matrix rule × backend. */
#include "cli.h"
#include "commands.h"
#include "../backends/backend.h"
#include "../backends/seccomp/seccomp.h"   /* sc_domain_event: what a syscall is */
#include "../base/util.h"
#include "../verify/verify.h"
#include "../compiler/syscalls.h"
#include "../compiler/sysevents.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_GROUPS 512

/* One row of the matrix: the policy's own statements or one used rule. */
typedef struct {
	const char *name;
	int probes, mismatches, skipped;
	int exact, partial, none;       /* statements by support */
	const char *why;                /* first partial/none reason */
	char first_mismatch[512];
} cell;

typedef struct {
	const char *target;
	cell cells[MAX_GROUPS];
	const char *names[MAX_GROUPS];
	int ngroups;
	const char *na;                 /* the whole column is n/a: why */
	char na_text[600];              /* na, when composed */
	struct seen { src_loc at; char *ev; bool denied, want_denied; } *seen;
	size_t nseen;                   /* LSM probes run, for cross-backend checks */
} column;

static cell *cell_for(column *col, const ir_stmt *s)
{
	const char *name = s->rule ? s->rule : "(policy)";
	for (int i = 0; i < col->ngroups; i++)
		if (!strcmp(col->names[i], name))
			return &col->cells[i];
	if (col->ngroups == MAX_GROUPS)
		return &col->cells[MAX_GROUPS - 1];
	col->names[col->ngroups] = name;
	cell *c = &col->cells[col->ngroups++];
	memset(c, 0, sizeof *c);
	c->name = name;
	return c;
}

/* The syscall through which seccomp sees an event of another domain
 * (compiler/sysevents.def): a network statement is a socket(2) call,
 * mount/umount/pivot_root, ptrace and signal statements are their syscalls
 * (the only level seccomp sees). */
static void as_syscall(const ir_event *ev, ir_event *sys)
{
	const char *name = sysevent_syscall(ev);
	if (!name) {
		*sys = *ev;
		return;
	}
	memset(sys, 0, sizeof *sys);
	sys->domain = IR_SYSCALL;
	sys->u.sys.audit_arch = ir_arch_audit(IR_ARCH_X86_64);
	sys->u.sys.nr = (uint32_t)sys_resolve(IR_ARCH_X86_64, name);
	if (ev->domain == IR_NETWORK) {
		sys->u.sys.args[0] = (uint64_t)ev->u.net.family;
		sys->u.sys.args[1] = (uint64_t)ev->u.net.type;
		sys->u.sys.args[2] = (uint64_t)ev->u.net.protocol;
	}
}

static void describe_decision(const ir_decision *d, char *out, size_t n)
{
	if (d->verdict == IR_DENY)
		snprintf(out, n, "deny errno %d", d->err);
	else
		snprintf(out, n, "%s", ir_verdict_name(d->verdict));
}

static void describe_outcome(const outcome *o, char *out, size_t n)
{
	switch (o->kind) {
	case OUT_ALLOWED: snprintf(out, n, "allowed"); break;
	case OUT_DENIED:
		if (o->err)
			snprintf(out, n, "denied errno %d", o->err);
		else
			snprintf(out, n, "denied");
		break;
	case OUT_KILLED: snprintf(out, n, "killed"); break;
	default: snprintf(out, n, "error: %s", o->why ? o->why : o->text[0] ? o->text : "?"); break;
	}
}

static bool list_probes;   /* --probes: one line per probe */

static void list_probe(const char *target, const cell *c, const probe *pr,
		       const ir_decision *want, const outcome *got, const char *verdict)
{
	if (!list_probes)
		return;
	char ev[256], w[64], g[160];
	probe_describe(pr, ev, sizeof ev);
	describe_decision(want, w, sizeof w);
	describe_outcome(got, g, sizeof g);
	if (got->kind == OUT_SKIPPED)
		snprintf(g, sizeof g, "skipped: %s", got->why ? got->why : got->text);
	printf("probe %-8s %-36s %s (%s): expected %s, observed %s: %s\n", target, c->name,
	       ev, pr->what, w, g, verdict);
}

/* Count one probe that ran; keep the first mismatch of the cell. */
static void tally(const char *target, cell *c, const probe *pr, const ir_decision *want,
		  const outcome *got, bool ok)
{
	c->probes++;
	list_probe(target, c, pr, want, got, ok ? "ok" : "MISMATCH");
	if (ok || c->mismatches++)
		return;
	char ev_text[256], want_text[64], got_text[160];
	probe_describe(pr, ev_text, sizeof ev_text);
	describe_decision(want, want_text, sizeof want_text);
	describe_outcome(got, got_text, sizeof got_text);
	snprintf(c->first_mismatch, sizeof c->first_mismatch, "%s (%s): expected %s, observed %s",
		 ev_text, pr->what, want_text, got_text);
}

static ir_decision seccomp_want(const ir_policy *p, const ir_event *ev, const ir_event *sys);

static void filter_probe_one(const ir_policy *p, const void *f, size_t len, column *col,
			     const probe *pr, const ir_event *ev, const ir_event *sys)
{
	ir_decision want = seccomp_want(p, ev, sys);
	outcome got = seccomp_probe_run(f, len, sys);
	cell *c = cell_for(col, pr->from);
	if (got.kind == OUT_SKIPPED) {
		c->skipped++;
		return;
	}
	tally(col->target, c, pr, &want, &got, outcome_matches(&got, &want));
}

/* The other syscalls that are the same mount event for the filter (the new
 * mount API: compiler/sysevents.def, the table the filter is planned from),
 * each probed as the statement's event: every entry of the event's kind
 * with its flag arguments all set, and, where the entry depends on an
 * argument, the call with them clear (open_tree without OPEN_TREE_CLONE,
 * which is no mount). */
static void filter_other_paths(const ir_policy *p, const void *f, size_t len, column *col,
			       const probe *pr, const ir_event *ev, const ir_event *direct)
{
	if (ev->domain != IR_MOUNT)
		return;
	size_t n;
	const sysevent *t = sysevent_table(&n);
	for (size_t i = 0; i < n; i++) {
		int nr = sys_resolve(IR_ARCH_X86_64, t[i].name);
		if (t[i].dom != IR_MOUNT || t[i].sub != (int)ev->u.mount.op || nr < 0 ||
		    (uint32_t)nr == direct->u.sys.nr)
			continue;
		ir_arg_cond k;
		int last = sysevent_cond(&t[i], &k) ? 0 : 1;
		for (int set = 1; set >= last; set--) {
			ir_event sys = *direct;
			sys.u.sys.nr = (uint32_t)nr;
			for (int j = 0; j < 6; j++)
				sys.u.sys.args[j] = set ? 0xffffffffu : 0;
			char what[160];
			snprintf(what, sizeof what, "%s, %s %s", pr->what,
				 set ? "other path:" : "neighbour: no mount,", t[i].name);
			probe one = *pr;
			one.what = what;
			one.ev = sys;
			filter_probe_one(p, f, len, col, &one, &sys, &sys);
		}
	}
}

/* A per-syscall filter (PROBES_FILTER): each probe is the syscall it
 * stands for, judged by the emitted filter without executing it. */
static void verify_filter(const ir_policy *p, const backend *b, column *col)
{
	backend_facts f = backend_prepare(b, p);
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			support su = b->classify(p, f, s);
			cell *c = cell_for(col, s);
			if (su.level == SUPPORT_EXACT)
				c->exact++;
			else {
				su.level == SUPPORT_PARTIAL ? c->partial++ : c->none++;
				if (!c->why)
					c->why = su.why;
			}
		}
	/* Prove what the backend claims: build and judge the policy restricted
	 * to the statements it enforces exactly (a partial lowering may be
	 * broader on purpose; it is reported as partial, not proven). */
	ir_policy exact = *p;
	for (int dd = 0; dd < IR_NDOMAIN; dd++) {
		exact.dom[dd].v = xcalloc(p->dom[dd].n + 1, sizeof *exact.dom[dd].v);
		exact.dom[dd].n = 0;
		for (size_t i = 0; i < p->dom[dd].n; i++)
			if (b->classify(p, f, &p->dom[dd].v[i]).level == SUPPORT_EXACT)
				exact.dom[dd].v[exact.dom[dd].n++] = p->dom[dd].v[i];
	}
	p = &exact;
	f = backend_prepare(b, p);
	buf filter;
	buf_init(&filter);
	backend_opts o = { b->probe_format, false, NULL, POLC_VERSION };
	diag_ctx d;
	diag_init(&d);
	if (b->emit(p, &o, &filter, &d) < 0) {
		diag_print(&d, stderr, false);
		col->na = "the backend failed to build the filter";
		diag_free(&d);
		goto out;
	}
	diag_free(&d);
	probe_set ps = { 0 };
	probes_derive(p, IR_NDOMAIN, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		const probe *pr = &ps.v[i];
		if (b->classify(p, f, pr->from).level != SUPPORT_EXACT)
			continue;
		ir_event ev = pr->ev;
		if (ev.domain == IR_NETWORK)
			ev.u.net.op = IR_NET_CREATE;
		ir_event sys;
		as_syscall(&ev, &sys);
		filter_probe_one(p, filter.data, filter.len, col, pr, &ev, &sys);
		filter_other_paths(p, filter.data, filter.len, col, pr, &ev, &sys);
	}
	probes_free(&ps);
out:
	buf_free(&filter);
	for (int dd = 0; dd < IR_NDOMAIN; dd++)
		free(exact.dom[dd].v);
}

/* What the seccomp filter must decide for the call sys that probe event ev
 * stands for: seccomp sees one syscall, which two domains decide (the
 * syscall domain and the syscall-level one: socket(2) is also a network
 * creation, mount(2) a mount), the more restrictive winning and the
 * syscall domain's on a tie (plan.c, combine). A syscall probe judged by
 * the syscall domain alone expected socket(AF_ALG) allowed under
 * enhance-protect's "deny network alg". */
static ir_decision seccomp_want(const ir_policy *p, const ir_event *ev, const ir_event *sys)
{
	ir_decision w = ir_decide(p, ev);
	if (ev->domain != IR_SYSCALL) {
		ir_decision x = ir_decide(p, sys);
		return x.verdict >= w.verdict ? x : w;
	}
	char name[64];
	ir_event dom;
	if (sys_name(ir_event_arch(sys), sys->u.sys.nr, name, sizeof name) &&
	    sysevent_of(name, sys->u.sys.args, &dom) &&
	    (dom.domain == IR_MOUNT || dom.domain == IR_NETWORK)) {
		ir_decision x = ir_decide(p, &dom);
		if (x.verdict > w.verdict)
			w = x;
	}
	return w;
}

/* ---------------------------------------------------------------- LSMs */

/* The policy reduced to the statements of domain d that b enforces
 * exactly, every other domain open: a probe's helper operations (the file
 * a capability probe chowns, the socket a connect probe made) are never
 * judged by another domain's statements. */
/* The LSM probes run each route as a confined root process that never uses
 * a capability to reach the object (a chroot or clone is made before
 * confinement; a backend's no_tree_clone skips that route). So
 * exactness is judged as if every capability were denied: a statement that
 * is partial only because a capability opens another route (AppArmor's
 * detached mounts need CAP_SYS_ADMIN) is proven on the routes probed here,
 * and its cell still says partial (tally_support judges the policy). */
static ir_policy caps_closed(const ir_policy *p)
{
	ir_policy j = *p;
	j.defaults[IR_CAPABILITY] = (ir_action){ IR_DENY, EPERM };
	j.dom[IR_CAPABILITY].n = 0;
	return j;
}

static void restrict_to_domain(const ir_policy *p, const backend *b, int d, ir_policy *out,
			       const char *name)
{
	ir_policy judge = caps_closed(p);
	*out = *p;
	out->name = name;
	for (int dd = 0; dd < IR_NDOMAIN; dd++) {
		out->dom[dd].v = xcalloc(p->dom[dd].n + 1, sizeof *out->dom[dd].v);
		out->dom[dd].n = 0;
		if (dd != d) {
			out->defaults[dd] = (ir_action){ IR_ALLOW, 0 };
			out->default_set[dd] = false;
			continue;
		}
		const ir_policy *by = dd == IR_CAPABILITY ? p : &judge;
		backend_facts f = backend_prepare(b, by);
		for (size_t i = 0; i < p->dom[dd].n; i++)
			if (b->classify(by, f, &p->dom[dd].v[i]).level == SUPPORT_EXACT)
				out->dom[dd].v[out->dom[dd].n++] = p->dom[dd].v[i];
	}
}

static void free_restricted(ir_policy *r)
{
	for (int dd = 0; dd < IR_NDOMAIN; dd++)
		free(r->dom[dd].v);
}

/* A directory is named with a trailing '/' by the kernel (AppArmor's
 * meaning): the oracle decides the event for the directory. */
static ir_decision decide_observed(const ir_policy *p, const ir_event *ev, const outcome *got)
{
	ir_event e = *ev;
	if (got->isdir && e.domain == IR_FILE)
		e.u.file.dir = true;
	return ir_decide(p, &e);
}

static void probe_route(const ir_policy *r, backend_facts f, const probe *orig,
			lsm_route route, const lsm_confine *conf, column *col);

static void probe_domain(const ir_policy *r, int d, const lsm_confine *conf, column *col)
{
	backend_facts f = backend_prepare(conf->b, r);
	probe_set ps = { 0 };
	probes_derive(r, (ir_domain)d, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		if (ps.v[i].ev.domain == IR_SYSCALL)
			continue;      /* an implied syscall path: the filter's to decide */
		lsm_route routes[LSM_MAX_ROUTES];
		size_t nr = lsm_routes(&ps.v[i].ev, routes);
		for (size_t k = 0; k < nr; k++)
			probe_route(r, f, &ps.v[i], routes[k], conf, col);
	}
	probes_free(&ps);
}

/* The deny a probe decided by the default stands for: one statement of
 * exactly that event. false: no such statement in this domain. */
static bool event_stmt(const ir_event *ev, ir_stmt *s)
{
	memset(s, 0, sizeof *s);
	s->domain = ev->domain;
	s->action = (ir_action){ IR_DENY, EPERM };
	switch (ev->domain) {
	case IR_FILE:
		s->u.file.glob = ev->u.file.path;
		s->u.file.perms = ev->u.file.perm;
		return true;
	case IR_EXEC:
		s->u.file.glob = ev->u.exec.path;
		s->u.file.perms = IR_PERM_EXEC;
		return true;
	case IR_NETWORK:
		s->u.net.op = ev->u.net.op == IR_NET_CREATE ? IR_NET_ANYOP : ev->u.net.op;
		s->u.net.family = ev->u.net.family;
		s->u.net.proto = (ev->u.net.type & 0xf) == SOCK_STREAM ? IR_PROTO_TCP :
				 (ev->u.net.type & 0xf) == SOCK_DGRAM ? IR_PROTO_UDP : IR_PROTO_RAW;
		s->u.net.has_port = ev->u.net.has_addr;
		s->u.net.port_lo = s->u.net.port_hi = ev->u.net.port;
		return true;
	case IR_SIGNAL:
		s->u.signal.peer = ev->u.signal.peer;
		return true;
	default:
		return false;
	}
}

/* A probe decided by a default the target enforces only in part (under
 * Landlock `default deny file` leaves chmod unmediated) proves something
 * only where the target enforces a deny of that very event exactly. NULL:
 * judge it; else why not. */
static const char *default_unjudged(const ir_policy *r, backend_facts f, const backend *b,
				    const ir_event *ev)
{
	ir_decision d = ir_decide(r, ev);
	if (d.by || !b->classify_default || d.verdict < IR_DENY ||
	    b->classify_default(r, f, ev->domain).level == SUPPORT_EXACT)
		return NULL;
	ir_stmt s;
	if (event_stmt(ev, &s) && b->classify(r, f, &s).level == SUPPORT_EXACT)
		return NULL;
	return "decided by a default the target enforces in part, and not this event";
}

/* One probe by one route (verify.h): the event's own decision is expected. */
static void probe_route(const ir_policy *r, backend_facts f, const probe *orig,
			lsm_route route, const lsm_confine *conf, column *col)
{
	char what[160];
	probe one = *orig;
	if (route != ROUTE_DIRECT) {
		snprintf(what, sizeof what, "%s, %s", orig->what, lsm_route_name(route));
		one.what = what;
	}
	const probe *pr = &one;
	{
		cell *c = cell_for(col, pr->from);
		const char *unjudged = default_unjudged(r, f, conf->b, &pr->ev);
		outcome got = unjudged ? (outcome){ .kind = OUT_SKIPPED, .why = unjudged }
				       : lsm_probe_route(conf, &pr->ev, route);
		ir_decision want = decide_observed(r, &pr->ev, &got);
		if (got.kind == OUT_SKIPPED) {
			c->skipped++;
			list_probe(col->target, c, pr, &want, &got, "skipped");
			return;
		}
		col->seen = xrealloc(col->seen, (col->nseen + 1) * sizeof *col->seen);
		char ev_text[256];
		probe_describe(pr, ev_text, sizeof ev_text);
		col->seen[col->nseen++] = (struct seen){ pr->from->loc, xstrdup(ev_text),
							 got.kind == OUT_DENIED,
							 want.verdict >= IR_DENY };
		tally(col->target, c, pr, &want, &got, outcome_matches_route(&got, &want, conf->b, route));
	}
}

static void tally_support(const ir_policy *p, const backend *b, column *col)
{
	backend_facts f = backend_prepare(b, p);
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			support su = b->classify(p, f, s);
			cell *c = cell_for(col, s);
			su.level == SUPPORT_EXACT ? c->exact++ : su.level == SUPPORT_PARTIAL ? c->partial++ : c->none++;
			if (su.level != SUPPORT_EXACT && !c->why)
				c->why = su.why;
		}
}

/* A kernel LSM (PROBES_LSM): one domain at a time, the backend puts the
 * reduced policy in force, then every probe of that domain runs for real. */
static void verify_lsm(const ir_policy *p, const backend *b, column *col)
{
	tally_support(p, b, col);
	char why[300] = "";
	if (geteuid() != 0 && !b->unprivileged) {
		col->na = "needs root (probes build namespaces and load policy)";
		return;
	}
	if (b->available && !b->available(why, sizeof why)) {
		snprintf(col->na_text, sizeof col->na_text, "%s%s", why,
			 b->needs_lab ? "; run with --vm" : "");
		col->na = col->na_text;
		return;
	}
	/* A name of its own: never replace a loaded policy named like this
	 * one, and let several verifications run side by side. */
	lsm_confine conf = { .b = b, .fd = -1 };
	snprintf(conf.tag, sizeof conf.tag, "polc-verify-%d-%s", (int)getpid(), p->name);
	for (int d = 0; d < IR_NDOMAIN && !col->na; d++) {
		if (d == IR_SYSCALL)
			continue;
		ir_policy r;
		restrict_to_domain(p, b, d, &r, conf.tag);
		if (r.dom[d].n) {
			if (b->probe_load(&r, &conf, why, sizeof why) < 0) {
				snprintf(col->na_text, sizeof col->na_text, "%s%s", why,
					 b->needs_lab ? "; run with --vm" : "");
				col->na = col->na_text;
			} else {
				probe_domain(&r, d, &conf, col);
			}
		}
		free_restricted(&r);
	}
	b->probe_unload(&conf);
}

static const char *cell_status(const column *col, const cell *c, char *out, size_t n)
{
	char skipped[32] = "";
	if (c->skipped)
		snprintf(skipped, sizeof skipped, ", %d skipped", c->skipped);
	if (c->mismatches)
		snprintf(out, n, "MISMATCH %d/%d", c->mismatches, c->probes);
	else if (!c->exact && !c->partial)
		snprintf(out, n, "n/a");
	else if (col->na)
		snprintf(out, n, "unverified");
	else if (c->partial || c->none)
		snprintf(out, n, "partial (%d probes%s)", c->probes, skipped);
	else if (!c->probes)
		snprintf(out, n, "unverified (%d skipped)", c->skipped);
	else
		snprintf(out, n, "proven (%d probes%s)", c->probes, skipped);
	return out;
}

static void print_json(const ir_policy *p, column *cols, int ncol, int mismatches)
{
	buf o;
	buf_init(&o);
	buf_puts(&o, "{\"policy\":");
	buf_json_str(&o, p->name);
	buf_printf(&o, ",\"mismatches\":%d,\"targets\":[", mismatches);
	for (int t = 0; t < ncol; t++) {
		column *col = &cols[t];
		buf_puts(&o, t ? ",{\"target\":" : "{\"target\":");
		buf_json_str(&o, col->target);
		if (col->na) {
			buf_puts(&o, ",\"not_here\":");
			buf_json_str(&o, col->na);
		}
		buf_puts(&o, ",\"rules\":[");
		for (int i = 0; i < col->ngroups; i++) {
			cell *c = &col->cells[i];
			char st[64];
			buf_puts(&o, i ? ",{\"rule\":" : "{\"rule\":");
			buf_json_str(&o, c->name);
			buf_puts(&o, ",\"status\":");
			buf_json_str(&o, cell_status(col, c, st, sizeof st));
			buf_printf(&o, ",\"probes\":%d,\"mismatches\":%d,\"exact\":%d,\"partial\":%d,"
				   "\"unsupported\":%d}", c->probes, c->mismatches, c->exact, c->partial, c->none);
		}
		buf_puts(&o, "]}");
	}
	buf_puts(&o, "]}\n");
	fwrite(o.data, 1, o.len, stdout);
	buf_free(&o);
}

/* Statements are compared by where they were written: each target ran
 * its probes on a reduced copy of the policy. */
static bool same_loc(const src_loc *a, const src_loc *b)
{
	return a->file == b->file && a->line == b->line && a->col == b->col;
}

/* Probes of one statement that two backends both ran (both enforce the
 * statement exactly): do the kernels agree? */
static void agreement(const column *a, const column *b, int *same, int *differ)
{
	*same = *differ = 0;
	for (size_t i = 0; i < a->nseen; i++)
		for (size_t j = 0; j < b->nseen; j++)
			/* the same expectation: each target's reduced policy holds only
			 * what it enforces exactly, so another statement may decide a
			 * probe in one and be missing from the other */
			if (same_loc(&a->seen[i].at, &b->seen[j].at) && !strcmp(a->seen[i].ev, b->seen[j].ev) &&
			    a->seen[i].want_denied == b->seen[j].want_denied) {
				a->seen[i].denied == b->seen[j].denied ? (*same)++ : (*differ)++;
				break;
			}
}

static void free_seen(column *c)
{
	for (size_t i = 0; i < c->nseen; i++)
		free(c->seen[i].ev);
	free(c->seen);
}

/* ------------------------------------------------------------ the lab */

/* A directory the lab must share because the guest's /tmp hides the
 * host's (tests/vm/run-in-vm.sh --share). */
static void share_if_tmp(const char *path, char **argv, int *n, int max, char **owned)
{
	char abs[PATH_MAX];
	if (!realpath(path, abs) || strncmp(abs, "/tmp/", 5) || *n + 2 > max)
		return;
	struct stat st;
	if (stat(abs, &st) == 0 && !S_ISDIR(st.st_mode)) {
		char *slash = strrchr(abs, '/');
		if (slash)
			*slash = 0;
	}
	argv[(*n)++] = "--share";
	argv[(*n)++] = *owned = xstrdup(abs);
}

/* polc verify --vm: the same command, run as root in the kernel lab
 * (Debian's kernel in qemu with AppArmor and BPF LSM; docs/lab.md), which
 * sees this machine's files read-only. Its output and exit code are ours. */
static int run_in_lab(const cli_args *a, int argc, char **argv)
{
	const char *src = polc_data_dir("tests/vm/run-in-vm.sh");
	char lab[PATH_MAX], self[PATH_MAX];
	snprintf(lab, sizeof lab, "%s/tests/vm/run-in-vm.sh", src ? src : ".");
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (!src || n <= 0) {
		fprintf(stderr, "polc verify: the kernel lab is not here (tests/vm/run-in-vm.sh "
			"under $POLC_SRC, %s/../share/polc or the source tree): install polc "
			"(make install) or set POLC_SRC to polc's source tree\n", "BINDIR");
		return EXIT_SYSTEM;
	}
	self[n] = 0;
	int max = argc + 2 * (int)a->nfiles + 16, k = 0;
	char **v = xcalloc((size_t)max + 1, sizeof *v);
	v[k++] = "sh";
	v[k++] = lab;
	v[k++] = "--timeout";
	v[k++] = getenv("POLC_LAB_TIMEOUT") ? getenv("POLC_LAB_TIMEOUT") : "1500";
	v[k++] = "--env";
	v[k++] = "POLC_IN_LAB=1";
	char **owned = xcalloc(a->nfiles + 1, sizeof *owned);
	for (size_t i = 0; i < a->nfiles; i++)
		share_if_tmp(a->files[i], v, &k, max - 4, &owned[i]);
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof cwd))
		share_if_tmp(cwd, v, &k, max - 4, &owned[a->nfiles]);
	v[k++] = "--";
	v[k++] = self;
	for (int i = 0; i < argc && k < max; i++)
		if (strcmp(argv[i], "--vm"))
			v[k++] = argv[i];
	v[k] = NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execvp("sh", v);
		_exit(127);
	}
	int st = 0;
	while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	free(v);
	for (size_t i = 0; i <= a->nfiles; i++)
		free(owned[i]);
	free(owned);
	if (pid < 0 || !WIFEXITED(st))
		return EXIT_SYSTEM;
	int rc = WEXITSTATUS(st);
	if (rc == 124 || rc == 125) {
		fprintf(stderr, "polc verify: the kernel lab failed (exit %d)\n", rc);
		return EXIT_SYSTEM;
	}
	return rc;
}

/* The matrix rule x target as text, then agreements, n/a reasons and the
 * first mismatch of every cell. */
static void print_text(const ir_policy *p, const column *cols, int ncol, int probes,
		       int mismatches)
{
	printf("policy %s: %d probes, %d mismatches\n", p->name, probes, mismatches);
	printf("%-44s", "rule");
	for (int t = 0; t < ncol; t++)
		printf(" %-32s", cols[t].target);
	printf("\n");
	/* rows: every group of the first column that has it */
	for (int t = 0; t < ncol; t++)
		for (int i = 0; i < cols[t].ngroups; i++) {
			const char *name = cols[t].names[i];
			bool seen = false;
			for (int u = 0; u < t && !seen; u++)
				for (int k = 0; k < cols[u].ngroups && !seen; k++)
					seen = !strcmp(cols[u].names[k], name);
			if (seen)
				continue;
			printf("%-44s", name);
			for (int u = 0; u < ncol; u++) {
				char st[64] = "n/a";
				for (int k = 0; k < cols[u].ngroups; k++)
					if (!strcmp(cols[u].names[k], name))
						cell_status(&cols[u], &cols[u].cells[k], st, sizeof st);
				printf(" %-32s", st);
			}
			printf("\n");
		}
	for (int t = 0; t < ncol; t++)
		for (int u = t + 1; u < ncol; u++) {
			int same, differ;
			agreement(&cols[t], &cols[u], &same, &differ);
			if (same + differ)
				printf("%s and %s agree on %d of %d probes of statements both enforce exactly\n",
				       cols[t].target, cols[u].target, same, same + differ);
		}
	for (int t = 0; t < ncol; t++) {
		if (cols[t].na)
			printf("%s: %s\n", cols[t].target, cols[t].na);
		for (int i = 0; i < cols[t].ngroups; i++)
			if (cols[t].cells[i].mismatches)
				printf("MISMATCH %s %s: %s\n", cols[t].target, cols[t].names[i],
				       cols[t].cells[i].first_mismatch);
	}
}

int cmd_verify(int argc, char **argv)
{
	cli_args a;
	int parsed = cli_parse(&a, argc, argv, false);
	if (parsed < 0 || a.nfiles == 0) {
		if (parsed == 0) {   /* else cli_parse printed the usage already */
			fprintf(stderr, "polc verify: no policy file given\n");
			cli_usage("verify", stderr);
		}
		cli_done(&a);
		return EXIT_USAGE;
	}
	list_probes = a.probes;
	if (a.vm && !getenv("POLC_IN_LAB")) {
		int rc = run_in_lab(&a, argc, argv);
		cli_done(&a);
		return rc;
	}
	int r = cli_compile(&a, true);
	if (r != EXIT_OK) {
		cli_done(&a);
		return r;
	}
	const char *targets = a.target && strcmp(a.target, "all") ? a.target : backend_names();
	size_t nb = 0;
	while (backends_all[nb])
		nb++;
	column *cols = xcalloc(nb, sizeof *cols);
	int ncol = 0;
	char *list = xstrdup(targets);
	for (char *t = strtok(list, ","); t && ncol < (int)nb; t = strtok(NULL, ",")) {
		const backend *b = backend_find(t);
		if (!b) {
			fprintf(stderr, "polc verify: unknown target '%s' (expected %s)\n", t,
				backend_names());
			free(list);
			free(cols);
			cli_done(&a);
			return EXIT_USAGE;
		}
		column *col = &cols[ncol++];
		col->target = t;
		if (b->probes == PROBES_FILTER)
			verify_filter(a.pol, b, col);
		else
			verify_lsm(a.pol, b, col);
	}
	int mismatches = 0, probes = 0;
	for (int t = 0; t < ncol; t++)
		for (int i = 0; i < cols[t].ngroups; i++) {
			mismatches += cols[t].cells[i].mismatches;
			probes += cols[t].cells[i].probes;
		}
	if (a.json) {
		print_json(a.pol, cols, ncol, mismatches);
	} else {
		print_text(a.pol, cols, ncol, probes, mismatches);
	}
	int disagree = 0;
	for (int t = 0; t < ncol; t++)
		for (int u = t + 1; u < ncol; u++) {
			int same, differ;
			agreement(&cols[t], &cols[u], &same, &differ);
			disagree += differ;
		}
	for (int t = 0; t < ncol; t++)
		free_seen(&cols[t]);
	free(list);
	free(cols);
	cli_done(&a);
	return mismatches || disagree ? EXIT_POLICY : EXIT_OK;
}
