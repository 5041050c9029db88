/* ruleset.c - what a policy means for Landlock: the ruleset (handled
 * rights, path and port rules, scopes) and, per statement, how exactly it
 * is enforced (landlock.h). Both come from the same facts below, so the
 * artifact, `polc run` and classify() cannot drift apart. */
#include "landlock.h"
#include "../../compiler/glob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define EXACT ((support){ SUPPORT_EXACT, NULL })
#define PARTIAL(w) ((support){ SUPPORT_PARTIAL, (w) })
#define NONE(w) ((support){ SUPPORT_NONE, (w) })

/* ---- ABI ---- */

uint64_t ll_fs_rights(int abi)
{
	uint64_t r = abi >= 1 ? (LL_FS_MAKE_SYM << 1) - 1 : 0;
	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

int ll_abi_needed(uint64_t fs, uint64_t net, uint64_t scoped)
{
	int abi = fs || net || scoped ? 1 : 0;
	if (fs & LL_FS_REFER)
		abi = 2;
	if (fs & LL_FS_TRUNCATE)
		abi = 3;
	if (net)
		abi = 4;
	if (fs & LL_FS_IOCTL_DEV)
		abi = 5;
	if (scoped)
		abi = 6;
	return abi;
}

const char *ll_right_name(char kind, int bit)
{
	static const char *const fs[] = { "execute", "write_file", "read_file", "read_dir",
		"remove_dir", "remove_file", "make_char", "make_dir", "make_reg", "make_sock",
		"make_fifo", "make_block", "make_sym", "refer", "truncate", "ioctl_dev" };
	static const char *const net[] = { "bind_tcp", "connect_tcp" };
	static const char *const scope[] = { "abstract_unix_socket", "signal" };
	if (kind == 'f' && bit >= 0 && bit < 16)
		return fs[bit];
	if (kind == 'n' && bit >= 0 && bit < 2)
		return net[bit];
	if (kind == 's' && bit >= 0 && bit < 2)
		return scope[bit];
	return "?";
}

/* ---- facts about the policy ---- */

static ir_verdict eff(const ir_policy *p, ir_action a)
{
	return ir_effective(p, a).verdict;
}

/* Default deny (after the mode): Landlock's handled-and-not-granted. */
static bool closed(const ir_policy *p, ir_domain d)
{
	return eff(p, p->defaults[d]) >= IR_DENY;
}

/* Landlock cannot allow and log: an audit default or `mode audit` leaves
 * the domain to the other enforcers. */
static bool audit_default(const ir_policy *p, ir_domain d)
{
	return eff(p, p->defaults[d]) == IR_AUDIT;
}

/* Rights a statement's grant needs, on a path rule (beneath: a hierarchy,
 * where creating and removing entries apply). */
static uint64_t grant_rights(const ir_stmt *s, bool beneath)
{
	if (s->domain == IR_EXEC)
		return LL_FS_EXECUTE | LL_FS_READ_FILE;
	unsigned pm = s->u.file.perms;
	uint64_t r = 0;
	if (pm & IR_PERM_READ)
		r |= LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_IOCTL_DEV;
	if (pm & (IR_PERM_WRITE | IR_PERM_APPEND))
		r |= LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV;
	if (pm & IR_PERM_WRITE) {
		r |= LL_FS_TRUNCATE;
		if (beneath)
			r |= LL_FS_REMOVE_FILE | LL_FS_REMOVE_DIR | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR |
			     LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
			     LL_FS_MAKE_SYM | LL_FS_REFER;
	}
	if (pm & IR_PERM_EXEC)
		r |= LL_FS_EXECUTE | LL_FS_READ_FILE;
	if ((pm & IR_PERM_LINK) && beneath)
		r |= LL_FS_MAKE_REG | LL_FS_REFER;
	return r;
}

/* The rights a deny would have to keep closed. */
static uint64_t deny_rights(const ir_stmt *s)
{
	if (s->domain == IR_EXEC)
		return LL_FS_EXECUTE;
	unsigned pm = s->u.file.perms;
	uint64_t r = 0;
	if (pm & IR_PERM_READ)
		r |= LL_FS_READ_FILE | LL_FS_READ_DIR;
	if (pm & (IR_PERM_WRITE | IR_PERM_APPEND))
		r |= LL_FS_WRITE_FILE;
	if (pm & IR_PERM_WRITE)
		r |= LL_FS_TRUNCATE | LL_FS_REMOVE_FILE | LL_FS_MAKE_REG;
	if (pm & IR_PERM_EXEC)
		r |= LL_FS_EXECUTE;
	if (pm & IR_PERM_LINK)
		r |= LL_FS_MAKE_REG | LL_FS_REFER;
	return r;
}

/* Does this domain's statements become Landlock grants? */
static bool grants_from(const ir_policy *p, ir_domain d)
{
	return closed(p, d) && (d == IR_FILE || d == IR_EXEC);
}

static uint64_t fs_handled(const ir_policy *p)
{
	uint64_t h = 0;
	if (closed(p, IR_FILE))
		h |= ll_fs_rights(LL_ABI_MAX);
	if (closed(p, IR_EXEC))
		h |= LL_FS_EXECUTE;
	return h;
}

/* ---- one glob alternative as a path rule ---- */

typedef enum { ALT_LITERAL, ALT_BENEATH, ALT_PATTERN } alt_kind;

/* The rule an alternative becomes: its path and kind (a pattern: the
 * hierarchy of its literal directory prefix). */
static alt_kind alt_rule(const char *alt, char **path)
{
	size_t n = strlen(alt);
	if (glob_is_literal(alt)) {
		*path = xstrdup(alt);
		return ALT_LITERAL;
	}
	if (n >= 3 && !strcmp(alt + n - 3, "/**")) {
		char *dir = xstrndup(alt, n - 3);
		if (glob_is_literal(dir)) {
			*path = dir[0] ? dir : (free(dir), xstrdup("/"));
			return ALT_BENEATH;
		}
		free(dir);
	}
	size_t lit = strcspn(alt, "*?[]{}\\");
	while (lit > 0 && alt[lit - 1] != '/')
		lit--;
	*path = lit > 1 ? xstrndup(alt, lit - 1) : xstrdup("/");
	return ALT_PATTERN;
}

typedef struct {
	char **alts;
	size_t n;
} alt_list;

static void add_alt(const char *alt, void *ctx)
{
	alt_list *l = ctx;
	l->alts = xrealloc(l->alts, (l->n + 1) * sizeof *l->alts);
	l->alts[l->n++] = xstrdup(alt);
}

static void alts_of(const char *glob, alt_list *l)
{
	l->alts = NULL;
	l->n = 0;
	if (glob_expand(glob, add_alt, l) < 0)
		add_alt(glob, l);
}

static void alts_free(alt_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->alts[i]);
	free(l->alts);
}

/* ---- the file ruleset ---- */

static void add_path(ll_ruleset *r, char *path, bool beneath, uint64_t access, bool exec_lit,
		     src_loc at)
{
	xgrow(&r->paths, &r->pathcap, r->npaths + 1, sizeof *r->paths);
	r->paths[r->npaths++] = (ll_path_rule){ path, access, beneath, exec_lit, at };
}

static void grant_stmt(ll_ruleset *r, const ir_stmt *s)
{
	alt_list l;
	alts_of(s->u.file.glob, &l);
	for (size_t i = 0; i < l.n; i++) {
		char *path;
		alt_kind k = alt_rule(l.alts[i], &path);
		uint64_t acc = grant_rights(s, k != ALT_LITERAL) & r->fs_handled;
		bool exec_lit = k == ALT_LITERAL && (acc & LL_FS_EXECUTE);
		if (acc)
			add_path(r, path, k != ALT_LITERAL, acc, exec_lit, s->loc);
		else
			free(path);
	}
	alts_free(&l);
}

static int path_cmp(const void *a, const void *b)
{
	const ll_path_rule *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : (int)x->beneath - (int)y->beneath;
}

static void build_fs(const ir_policy *p, ll_ruleset *r)
{
	r->fs_handled = fs_handled(p);
	for (int d = IR_FILE; d <= IR_EXEC; d++) {
		if (!grants_from(p, (ir_domain)d))
			continue;
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			if (eff(p, s->action) <= IR_AUDIT)
				grant_stmt(r, s);
		}
	}
	xqsort(r->paths, r->npaths, sizeof *r->paths, path_cmp);
	size_t k = 0;            /* one rule per (path, beneath): rights merged */
	for (size_t i = 0; i < r->npaths; i++) {
		if (k && !path_cmp(&r->paths[k - 1], &r->paths[i])) {
			r->paths[k - 1].access |= r->paths[i].access;
			r->paths[k - 1].exec_literal |= r->paths[i].exec_literal;
			free(r->paths[i].path);
		} else {
			r->paths[k++] = r->paths[i];
		}
	}
	r->npaths = k;
}

/* ---- TCP ports ---- */

/* Does the statement decide TCP binds or connects (what Landlock sees)? */
static bool tcp_relevant(const ir_network *n)
{
	return (n->op == IR_NET_ANYOP || n->op == IR_NET_BIND || n->op == IR_NET_CONNECT) &&
	       (n->proto == IR_PROTO_ANY || n->proto == IR_PROTO_TCP) &&
	       (n->family == 0 || n->family == AF_INET || n->family == AF_INET6);
}

/* listen(2) on an unbound TCP socket binds it to a port of
 * net.ipv4.ip_local_port_range with no bind(2), which Landlock does not
 * see: a process that listens and closes until it gets a port listens on
 * a port a bind deny names (odd ports: ~15,000 tries for one of Linux's
 * default range). Does a bind deny's port range meet [lo, hi]? */
#define AUTOBIND_WHY "listen(2) on an unbound socket binds it to a port of " \
	"net.ipv4.ip_local_port_range without bind(2), which Landlock does not see: " \
	"retried, it listens on a port this denies"

static bool autobind_meets(const ir_network *n, unsigned lo, unsigned hi)
{
	unsigned plo = n->has_port ? n->port_lo : 0, phi = n->has_port ? n->port_hi : 65535;
	return n->op == IR_NET_BIND && plo <= hi && lo <= phi;
}

size_t ll_autobind_here(const ir_policy *p, unsigned lo, unsigned hi, ll_lost_fn *fn, void *ctx)
{
	size_t k = 0;
	const ir_stmt_list *l = &p->dom[IR_NETWORK];
	for (size_t i = 0; i < l->n; i++) {
		const ir_network *n = &l->v[i].u.net;
		if (eff(p, l->v[i].action) >= IR_DENY && tcp_relevant(n) && !n->has_addr &&
		    autobind_meets(n, lo, hi) &&
		    !autobind_meets(n, LL_EPHEMERAL_LO, LL_EPHEMERAL_HI))
			fn(l->v[i].loc, AUTOBIND_WHY, ctx), k++;
	}
	return k;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Ranges of equal decision: between consecutive bounds of the statements. */
static unsigned *port_bounds(const ir_policy *p, size_t *nb)
{
	const ir_stmt_list *l = &p->dom[IR_NETWORK];
	unsigned *b = xcalloc(2 * l->n + 2, sizeof *b);
	size_t n = 0;
	b[n++] = 0;
	b[n++] = 65536;
	for (size_t i = 0; i < l->n; i++)
		if (tcp_relevant(&l->v[i].u.net) && l->v[i].u.net.has_port) {
			b[n++] = l->v[i].u.net.port_lo;
			b[n++] = (unsigned)l->v[i].u.net.port_hi + 1;
		}
	xqsort(b, n, sizeof *b, cmp_uint);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || b[i] != b[k - 1])
			b[k++] = b[i];
	*nb = k;
	return b;
}

/* Does statement n decide the TCP op for family fam, as Landlock can
 * have it? A deny on an address is not enforceable (left out); an allow
 * on an address is granted for every address. */
static bool decides(const ir_policy *p, const ir_stmt *s, ir_net_op op, int fam)
{
	const ir_network *n = &s->u.net;
	return tcp_relevant(n) && (n->op == IR_NET_ANYOP || n->op == op) &&
	       (!n->family || n->family == fam) && !(n->has_addr && eff(p, s->action) >= IR_DENY);
}

static size_t bound_index(const unsigned *b, size_t nb, unsigned v)
{
	const unsigned *hit = bsearch(&v, b, nb, sizeof *b, cmp_uint);
	return hit ? (size_t)(hit - b) : nb - 1;
}

/* Per range between consecutive bounds b[i]..b[i+1]-1: allowed for op in
 * inet or inet6 (Landlock cannot tell them apart)? A sweep over the
 * statements' ranges counts, per range, the matching statements of each
 * verdict: the most restrictive decides, the default where none matches. */
static void ranges_open(const ir_policy *p, ir_net_op op, const unsigned *b, size_t nb, bool *open)
{
	const ir_stmt_list *l = &p->dom[IR_NETWORK];
	int (*cnt)[4] = xcalloc(nb, sizeof *cnt);
	ir_verdict def = eff(p, p->defaults[IR_NETWORK]);
	for (size_t i = 0; i + 1 < nb; i++)
		open[i] = false;
	for (int f = 0; f < 2; f++) {
		int fam = f ? AF_INET6 : AF_INET;
		memset(cnt, 0, nb * sizeof *cnt);
		for (size_t i = 0; i < l->n; i++) {
			const ir_network *n = &l->v[i].u.net;
			if (!decides(p, &l->v[i], op, fam))
				continue;
			ir_verdict v = eff(p, l->v[i].action);
			cnt[n->has_port ? bound_index(b, nb, n->port_lo) : 0][v]++;
			cnt[n->has_port ? bound_index(b, nb, (unsigned)n->port_hi + 1) : nb - 1][v]--;
		}
		int run[4] = { 0, 0, 0, 0 };
		for (size_t i = 0; i + 1 < nb; i++) {
			ir_verdict v = def;
			bool any = false;
			for (int k = 0; k < 4; k++) {
				run[k] += cnt[i][k];
				if (run[k] > 0) {
					v = (ir_verdict)k;
					any = true;
				}
			}
			open[i] |= (any ? v : def) < IR_DENY;
		}
	}
	free(cnt);
}

static void build_net(const ir_policy *p, ll_ruleset *r)
{
	if (audit_default(p, IR_NETWORK))
		return;
	size_t nb;
	unsigned *b = port_bounds(p, &nb);
	bool *open = xcalloc(nb, sizeof *open);
	size_t cap = 0;
	static const struct { ir_net_op op; uint64_t bit; } ops[] = {
		{ IR_NET_BIND, LL_NET_BIND_TCP }, { IR_NET_CONNECT, LL_NET_CONNECT_TCP } };
	for (size_t o = 0; o < 2; o++) {
		ranges_open(p, ops[o].op, b, nb, open);
		bool any_denied = false;
		for (size_t i = 0; i + 1 < nb; i++)
			any_denied |= !open[i];
		if (!any_denied)
			continue;   /* every port allowed: leave the op unhandled */
		r->net_handled |= ops[o].bit;
		for (size_t i = 0; i + 1 < nb; i++) {
			if (!open[i])
				continue;
			if (r->nports && r->ports[r->nports - 1].access == ops[o].bit &&
			    r->ports[r->nports - 1].last + 1u == b[i]) {
				r->ports[r->nports - 1].last = (uint16_t)(b[i + 1] - 1);
				continue;       /* adjacent: one range */
			}
			xgrow(&r->ports, &cap, r->nports + 1, sizeof *r->ports);
			r->ports[r->nports++] = (ll_port_range){ (uint16_t)b[i],
				(uint16_t)(b[i + 1] - 1), ops[o].bit };
		}
	}
	free(open);
	free(b);
}

/* ---- scopes ---- */

static bool unix_reach(const ir_network *n)
{
	return (n->family == 0 || n->family == AF_UNIX) && !n->has_addr && !n->has_port &&
	       (n->op == IR_NET_ANYOP || n->op == IR_NET_CONNECT || n->op == IR_NET_SEND) &&
	       n->proto == IR_PROTO_ANY;
}

/* Abstract unix sockets of other domains are refused when the network
 * domain is closed and no allow reaches unix sockets, or a deny closes
 * them all. */
static bool scope_unix(const ir_policy *p)
{
	const ir_stmt_list *l = &p->dom[IR_NETWORK];
	if (audit_default(p, IR_NETWORK))
		return false;
	bool deny_all = false;
	for (size_t i = 0; i < l->n; i++) {
		const ir_network *n = &l->v[i].u.net;
		bool unixy = (n->family == 0 && n->proto == IR_PROTO_ANY) || n->family == AF_UNIX;
		if (eff(p, l->v[i].action) < IR_DENY && unixy &&
		    (n->op == IR_NET_ANYOP || n->op == IR_NET_CONNECT || n->op == IR_NET_SEND))
			return false;
		deny_all |= eff(p, l->v[i].action) >= IR_DENY && unix_reach(n);
	}
	return closed(p, IR_NETWORK) || deny_all;
}

/* Signals: scoped when the domain is closed with no allow, or an
 * unconditional deny closes them. */
static bool scope_signal(const ir_policy *p)
{
	const ir_stmt_list *l = &p->dom[IR_SIGNAL];
	if (audit_default(p, IR_SIGNAL))
		return false;
	bool deny_all = false;
	for (size_t i = 0; i < l->n; i++) {
		if (eff(p, l->v[i].action) < IR_DENY)
			return false;
		deny_all |= !l->v[i].u.signal.peer;
	}
	return closed(p, IR_SIGNAL) || deny_all;
}

void ll_ruleset_build(const ir_policy *p, ll_ruleset *out)
{
	memset(out, 0, sizeof *out);
	build_fs(p, out);
	build_net(p, out);
	if (scope_unix(p))
		out->scoped |= LL_SCOPE_ABSTRACT_UNIX;
	if (scope_signal(p))
		out->scoped |= LL_SCOPE_SIGNAL;
}

void ll_ruleset_free(ll_ruleset *r)
{
	for (size_t i = 0; i < r->npaths; i++)
		free(r->paths[i].path);
	free(r->paths);
	free(r->ports);
	memset(r, 0, sizeof *r);
}

/* ---- what an older running ABI leaves unenforced ---- */

/* File rights a deny statement (or, s NULL, the file default) relies on. */
static uint64_t relies_fs(const ir_stmt *s)
{
	if (!s)
		return ll_fs_rights(LL_ABI_MAX);
	uint64_t r = deny_rights(s);
	if (s->domain == IR_FILE && (s->u.file.perms & (IR_PERM_READ | IR_PERM_WRITE | IR_PERM_APPEND)))
		r |= LL_FS_IOCTL_DEV;
	return r;
}

static void lost_defaults(const ir_policy *p, const ll_ruleset *r, int abi, ll_lost_fn *fn,
			  void *ctx, size_t *n)
{
	char what[200];
	uint64_t fs = r->fs_handled & ~ll_fs_rights(abi);
	if (fs && closed(p, IR_FILE) && p->default_set[IR_FILE]) {
		size_t k = 0;
		for (int b = 0; b < 16; b++)
			if (fs >> b & 1)
				k += (size_t)snprintf(what + k, sizeof what - k, "%s%s", k ? "," : "",
						      ll_right_name('f', b));
		fn(p->default_loc[IR_FILE], what, ctx), (*n)++;
	}
	if (abi < 4 && r->net_handled && p->default_set[IR_NETWORK])
		fn(p->default_loc[IR_NETWORK], "TCP bind and connect", ctx), (*n)++;
	if (abi < 6 && (r->scoped & LL_SCOPE_SIGNAL) && p->default_set[IR_SIGNAL])
		fn(p->default_loc[IR_SIGNAL], "signal scoping", ctx), (*n)++;
	if (abi < 6 && (r->scoped & LL_SCOPE_ABSTRACT_UNIX) && p->default_set[IR_NETWORK])
		fn(p->default_loc[IR_NETWORK], "abstract unix socket scoping", ctx), (*n)++;
}

size_t ll_lost(const ir_policy *p, const ll_ruleset *r, int abi, ll_lost_fn *fn, void *ctx)
{
	size_t n = 0;
	lost_defaults(p, r, abi, fn, ctx, &n);
	uint64_t fs = r->fs_handled & ~ll_fs_rights(abi);
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			if (eff(p, s->action) < IR_DENY)
				continue;        /* a grant stays a grant */
			const char *what = NULL;
			if ((d == IR_FILE || d == IR_EXEC) && closed(p, (ir_domain)d) && (relies_fs(s) & fs))
				what = "file rights this ABI lacks (refer, truncate or ioctl_dev)";
			else if (d == IR_NETWORK && abi < 4 && tcp_relevant(&s->u.net))
				what = "TCP bind and connect";
			else if (d == IR_NETWORK && abi < 6 && unix_reach(&s->u.net) &&
				 (r->scoped & LL_SCOPE_ABSTRACT_UNIX))
				what = "abstract unix socket scoping";
			else if (d == IR_SIGNAL && abi < 6 && (r->scoped & LL_SCOPE_SIGNAL))
				what = "signal scoping";
			if (what)
				fn(s->loc, what, ctx), n++;
		}
	return n;
}

/* ---- classify ---- */

/* The ruleset of the policy last classified: classify() is asked once per
 * statement, the ruleset is the same for all of them. */
static const ll_ruleset *cached(const ir_policy *p)
{
	struct key {
		const ir_policy *p;
		const ir_stmt *v[IR_NDOMAIN];
		size_t n[IR_NDOMAIN];
		ir_action defaults[IR_NDOMAIN];
		ir_mode mode;
	};
	static ll_ruleset r;
	static struct key last;
	static bool built;
	struct key k;
	memset(&k, 0, sizeof k);
	k.p = p;
	for (int d = 0; d < IR_NDOMAIN; d++) {
		k.v[d] = p->dom[d].v;
		k.n[d] = p->dom[d].n;
		k.defaults[d] = p->defaults[d];
	}
	k.mode = p->mode;
	if (built && !memcmp(&k, &last, sizeof k))
		return &r;
	ll_ruleset_free(&r);
	ll_ruleset_build(p, &r);
	last = k;
	built = true;
	return &r;
}

/* Landlock fails a denial with EACCES; EPERM is the language's unnamed
 * default, accepted as AppArmor's backend does. */
static support errno_support(const ir_policy *p, const ir_stmt *s, int lands)
{
	int e = s->action.err;
	if (eff(p, s->action) != IR_DENY || s->action.verdict != IR_DENY || e == EPERM || e == lands)
		return EXACT;
	return PARTIAL(lands == EACCES ? "Landlock fails a denied access with EACCES; another "
		       "errno cannot be chosen" : "Landlock fails a denied signal with EPERM; "
		       "another errno cannot be chosen");
}

/* Is `path` (a rule's path) the same as, or below, `dir`? */
static bool below(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	if (!strcmp(dir, "/"))
		return true;
	return !strncmp(path, dir, n) && (path[n] == 0 || path[n] == '/');
}

/* A literal "/dir/" granted read_dir: Landlock lets the whole hierarchy
 * of /dir be listed. Its directory, or NULL. */
static char *listed_dir(const ll_path_rule *g)
{
	size_t n = strlen(g->path);
	if (g->beneath || !(g->access & LL_FS_READ_DIR) || n < 2 || g->path[n - 1] != '/')
		return NULL;
	return xstrndup(g->path, n - 1);
}

/* Could a grant reach what this deny alternative names? */
static bool grant_reaches(const ll_path_rule *g, const char *alt, uint64_t need)
{
	char *dpath;
	alt_kind k = alt_rule(alt, &dpath);
	bool hit = (g->beneath && below(dpath, g->path)) ||
		   (k != ALT_LITERAL && below(g->path, dpath)) ||
		   glob_match(alt, g->path) || !strcmp(dpath, g->path);
	char *dir = need & LL_FS_READ_DIR ? listed_dir(g) : NULL;
	if (dir)
		hit |= below(dpath, dir) || (k != ALT_LITERAL && below(dir, dpath));
	free(dir);
	free(dpath);
	return hit;
}

static const ll_path_rule *covering_grant(const ll_ruleset *r, const ir_stmt *s)
{
	uint64_t need = deny_rights(s);
	alt_list l;
	alts_of(s->u.file.glob, &l);
	const ll_path_rule *hit = NULL;
	for (size_t i = 0; i < r->npaths && !hit; i++)
		for (size_t a = 0; a < l.n && !hit; a++)
			if ((r->paths[i].access & need) && grant_reaches(&r->paths[i], l.alts[a], need))
				hit = &r->paths[i];
	alts_free(&l);
	return hit;
}

const ir_stmt *ll_deny_within(const ir_policy *p, const char *path, bool beneath,
			     uint64_t access)
{
	ll_path_rule g = { .path = (char *)path, .access = access, .beneath = beneath };
	for (int d = IR_FILE; d <= IR_EXEC; d++) {
		if (!closed(p, (ir_domain)d))
			continue;
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			if (eff(p, s->action) < IR_DENY || !(access & deny_rights(s)))
				continue;
			alt_list l;
			alts_of(s->u.file.glob, &l);
			bool hit = false;
			for (size_t a = 0; a < l.n && !hit; a++)
				hit = grant_reaches(&g, l.alts[a], deny_rights(s));
			alts_free(&l);
			if (hit)
				return s;
		}
	}
	return NULL;
}

static const ll_ruleset *cached(const ir_policy *p);

/* Does another alternative of this glob, or an allow of the policy (a
 * literal rule of the ruleset with read_dir), read the directory `dir`
 * itself? Then "/dir/" + "**" plus it is the whole hierarchy, exactly
 * what a Landlock rule on dir grants. */
static bool reads_top(const ir_policy *p, const alt_list *l, const char *dir)
{
	size_t n = strlen(dir);
	for (size_t j = 0; j < l->n; j++)
		if (!strncmp(l->alts[j], dir, n) && (!l->alts[j][n] || !strcmp(l->alts[j] + n, "/")))
			return true;
	const ll_ruleset *r = cached(p);
	char *slashed = xasprintf("%s/", dir);
	bool found = false;
	for (int form = 0; form < 2 && !found; form++) {
		ll_path_rule key = { .path = form ? slashed : (char *)dir };
		const ll_path_rule *hit = bsearch(&key, r->paths, r->npaths, sizeof *r->paths, path_cmp);
		found = hit && (hit->access & LL_FS_READ_DIR);
	}
	free(slashed);
	return found;
}

/* Does the ruleset grant listing the hierarchy of `dir` (a rule on it,
 * beneath, with read_dir)? */
static bool hierarchy_listed(const ir_policy *p, const char *dir)
{
	const ll_ruleset *r = cached(p);
	size_t n = strlen(dir);
	char *key = xstrndup(dir, n > 1 && dir[n - 1] == '/' ? n - 1 : n);
	ll_path_rule k = { .path = key, .beneath = true };
	const ll_path_rule *hit = bsearch(&k, r->paths, r->npaths, sizeof *r->paths, path_cmp);
	free(key);
	return hit && (hit->access & LL_FS_READ_DIR);
}

/* How an alternative's rule differs from the glob's meaning. */
static support alt_support(const ir_policy *p, const ir_stmt *s, const alt_list *l)
{
	bool read = s->domain == IR_FILE && (s->u.file.perms & IR_PERM_READ);
	for (size_t i = 0; i < l->n; i++) {
		char *path;
		alt_kind k = alt_rule(l->alts[i], &path);
		bool top = k == ALT_BENEATH && read && reads_top(p, l, path);
		bool dir_lit = k == ALT_LITERAL && read && path[strlen(path) - 1] == '/' &&
			       !hierarchy_listed(p, path);
		free(path);
		if (dir_lit)
			return PARTIAL("Landlock grants the whole hierarchy of a directory: reading "
				       "\"/dir/\" lets every directory below it be listed too");
		if (k == ALT_PATTERN)
			return PARTIAL("Landlock has no patterns: granted for the whole hierarchy "
				       "of the pattern's literal directory");
		if (k == ALT_BENEATH && read && !top)
			return PARTIAL("Landlock grants a hierarchy with its top: \"/dir/**\" read "
				       "also lets /dir itself be listed");
		if (k == ALT_LITERAL && s->domain == IR_FILE &&
		    (s->u.file.perms & (IR_PERM_WRITE | IR_PERM_LINK)))
			return PARTIAL("Landlock checks creating, removing and linking a file on its "
				       "directory: a rule on the file itself grants writing and "
				       "truncating it only");
	}
	return EXACT;
}

/* What Landlock's rename and link rules do to write and link (F6, F7). */
#define RENAME_LINK "Landlock refuses renaming or hard-linking across directories " \
	"(EXDEV) unless both grant refer and the destination grants every right the " \
	"source has, and a write grant on a hierarchy (make_reg+refer) also allows " \
	"hard links there without `link`"

static support classify_fs_allow(const ir_policy *p, const ir_stmt *s)
{
	if (closed(p, IR_FILE) && closed(p, IR_EXEC) &&
	    (s->domain == IR_EXEC || (s->u.file.perms & IR_PERM_EXEC)))
		return PARTIAL("with file and exec both default deny polc allows an exec where "
			       "both domains do; Landlock's one execute right grants the union");
	if (eff(p, s->action) == IR_AUDIT)
		return PARTIAL("allowed but not logged: Landlock logs denials only");
	alt_list l;
	alts_of(s->u.file.glob, &l);
	support su = alt_support(p, s, &l);
	alts_free(&l);
	if (su.level != SUPPORT_EXACT)
		return su;
	unsigned pm = s->domain == IR_FILE ? s->u.file.perms : 0;
	if (closed(p, IR_FILE) && (s->domain == IR_EXEC || (pm & IR_PERM_EXEC)) &&
	    !(s->domain == IR_FILE && (pm & IR_PERM_READ)))
		return PARTIAL("Landlock asks read_file to execute a file (the kernel opens it "
			       "for reading): read is granted too");
	if ((pm & IR_PERM_APPEND) && !(pm & IR_PERM_WRITE))
		return PARTIAL("Landlock's write_file grants every write, not appends only");
	if ((pm & IR_PERM_LINK) && !(pm & IR_PERM_WRITE))
		return PARTIAL("Landlock's make_reg, which a hard link needs, also creates files");
	if (pm & (IR_PERM_WRITE | IR_PERM_LINK))
		return PARTIAL(RENAME_LINK);
	return EXACT;
}

static support classify_fs(const ir_policy *p, const ir_stmt *s)
{
	if (audit_default(p, s->domain))
		return NONE("Landlock cannot allow and log: an audit default is left to the "
			    "other enforcers");
	if (eff(p, s->action) == IR_AUDIT && s->action.verdict >= IR_DENY)
		return NONE("under `mode audit` a deny only logs, and Landlock does not log "
			    "what it allows");
	if (eff(p, s->action) == IR_AUDIT && !closed(p, s->domain))
		return PARTIAL("allowed but not logged: Landlock does not log what it allows");
	if (eff(p, s->action) <= IR_AUDIT) {
		if (!closed(p, s->domain))
			return EXACT;
		return classify_fs_allow(p, s);
	}
	if (!closed(p, s->domain))
		return NONE("Landlock only grants: with the domain's default allow it cannot deny");
	if (covering_grant(cached(p), s))
		return NONE("inside what an allow grants: Landlock only grants, it cannot deny "
			    "within a granted hierarchy");
	if (s->domain == IR_FILE && (s->u.file.perms & (IR_PERM_MMAP | IR_PERM_LOCK)))
		return PARTIAL("Landlock does not mediate mmap or lock; only opening the file is "
			       "refused, which a descriptor opened before confinement escapes");
	if (s->domain == IR_FILE && (s->u.file.perms & IR_PERM_WRITE))
		return PARTIAL("Landlock does not mediate chmod, chown, utimes, xattrs or "
			       "connecting to a unix socket by its path, which polc's write covers; "
			       RENAME_LINK);
	if (s->domain == IR_FILE && (s->u.file.perms & IR_PERM_LINK))
		return PARTIAL(RENAME_LINK);
	return errno_support(p, s, EACCES);
}

/* Does a granted range of op `bit` meet [lo, hi]? build_net() writes the
 * bind ranges, then the connect ranges, each sorted and disjoint: one
 * binary search over (op, last) finds the first range of the op ending at
 * or after lo (a scan for the op's start made a policy with thousands of
 * port statements quadratic). */
static bool granted_in(const ll_ruleset *r, uint64_t bit, unsigned lo, unsigned hi)
{
	int want = bit == LL_NET_CONNECT_TCP;
	size_t a = 0, z = r->nports;
	while (a < z) {
		size_t m = a + (z - a) / 2;
		int op = r->ports[m].access == LL_NET_CONNECT_TCP;
		if (op < want || (op == want && r->ports[m].last < lo))
			a = m + 1;
		else
			z = m;
	}
	return a < r->nports && r->ports[a].access == bit && r->ports[a].first <= hi;
}

/* Are all ports of the statement closed to the TCP ops it names? */
static bool ports_closed(const ir_policy *p, const ir_network *n)
{
	const ll_ruleset *r = cached(p);
	unsigned lo = n->has_port ? n->port_lo : 0, hi = n->has_port ? n->port_hi : 65535;
	uint64_t need = n->op == IR_NET_BIND ? LL_NET_BIND_TCP : n->op == IR_NET_CONNECT ?
			LL_NET_CONNECT_TCP : LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if ((r->net_handled & need) != need)
		return false;
	return !((need & LL_NET_BIND_TCP) && granted_in(r, LL_NET_BIND_TCP, lo, hi)) &&
	       !((need & LL_NET_CONNECT_TCP) && granted_in(r, LL_NET_CONNECT_TCP, lo, hi));
}

bool ll_handles_tcp(const ir_policy *p)
{
	return cached(p)->net_handled != 0;
}

static support classify_net(const ir_policy *p, const ir_stmt *s)
{
	const ir_network *n = &s->u.net;
	ir_verdict v = eff(p, s->action);
	if (audit_default(p, IR_NETWORK))
		return NONE("Landlock cannot allow and log: an audit default is left to the "
			    "other enforcers");
	if (v == IR_AUDIT)
		return PARTIAL("allowed but not logged: Landlock logs denials only");
	if (v == IR_ALLOW) {
		if (!tcp_relevant(n))
			return EXACT;      /* Landlock refuses nothing else but scopes */
		if (n->has_addr)
			return PARTIAL("Landlock matches TCP ports only: granted for every address");
		if (n->family)
			return PARTIAL("Landlock cannot tell inet from inet6: granted for both");
		if (cached(p)->net_handled)
			return PARTIAL("granted to TCP sockets only: an MPTCP socket, which Landlock "
				       "cannot mediate, is refused when made (programs fall back to TCP)");
		return EXACT;
	}
	if (n->family == AF_UNIX && unix_reach(n) && (cached(p)->scoped & LL_SCOPE_ABSTRACT_UNIX))
		return PARTIAL("Landlock scoping refuses connecting to abstract unix sockets of "
			       "other Landlock domains only");
	if (!tcp_relevant(n))
		return NONE("Landlock mediates TCP bind and connect only");
	if (n->has_addr)
		return NONE("Landlock matches TCP ports only, not addresses");
	if (!ports_closed(p, n))
		return NONE("an allow grants some of these ports, and Landlock only grants");
	if (n->op == IR_NET_ANYOP || n->proto == IR_PROTO_ANY)
		return PARTIAL("Landlock mediates TCP bind and connect only: listen, accept, send "
			       "and other protocols are not refused");
	if (autobind_meets(n, LL_EPHEMERAL_LO, LL_EPHEMERAL_HI))
		return PARTIAL(AUTOBIND_WHY " (Linux's default range 32768-60999)");
	if (n->family)
		return PARTIAL("Landlock cannot tell inet from inet6: denied for both");
	return errno_support(p, s, EACCES);
}

static support classify_signal(const ir_policy *p, const ir_stmt *s)
{
	if (audit_default(p, IR_SIGNAL) || eff(p, s->action) == IR_AUDIT)
		return NONE("Landlock cannot allow and log");
	if (eff(p, s->action) == IR_ALLOW)
		return EXACT;     /* closed domain: scoping is then left off */
	if (!s->u.signal.peer && (cached(p)->scoped & LL_SCOPE_SIGNAL))
		return PARTIAL("Landlock scoping refuses signals to processes outside the Landlock "
			       "domain only: the workload's own processes can be signalled");
	return NONE("Landlock scoping cannot tell one peer from another");
}

static support classify_landlock(const ir_policy *p, const ir_stmt *s)
{
	switch (s->domain) {
	case IR_FILE:
	case IR_EXEC:
		return classify_fs(p, s);
	case IR_NETWORK:
		return classify_net(p, s);
	case IR_SIGNAL:
		return classify_signal(p, s);
	case IR_MOUNT:
		if (eff(p, s->action) < IR_DENY && cached(p)->fs_handled)
			return NONE("Landlock refuses every mount while it restricts file access");
		return NONE("Landlock does not mediate mounts by statement");
	case IR_SYSCALL:
		return NONE("Landlock does not mediate syscalls");
	case IR_CAPABILITY:
		return NONE("Landlock does not mediate capabilities");
	case IR_PTRACE:
		return NONE("Landlock does not mediate ptrace by statement");
	case IR_NDOMAIN:
		break;
	}
	return NONE("unknown domain");
}

support ll_classify(const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	return classify_landlock(p, s);
}

support ll_classify_default(const ir_policy *p, backend_facts f, ir_domain dom)
{
	if (audit_default(p, dom))
		return NONE("Landlock cannot allow and log");
	switch (dom) {
	case IR_FILE:
		return PARTIAL("Landlock does not mediate chmod, chown, utimes or xattrs (polc's "
			       "write), connecting or sending to a unix socket by its path (a "
			       "write for polc: /run/docker.sock stays reachable), mmap or lock, "
			       "kernel-internal files (a memfd, a pipe or socket reopened through "
			       "/proc/self/fd), nor a descriptor opened before confinement");
	case IR_EXEC:
		return PARTIAL("an allowed program's ELF interpreter (PT_INTERP), and for a "
			       "hierarchy grant the system's dynamic loaders, are executable too: "
			       "the kernel opens them for execution; and Landlock does not check "
			       "kernel-internal files, so a memfd runs whatever the workload writes "
			       "into it (fexecve, execveat AT_EMPTY_PATH)");
	case IR_NETWORK:
		return PARTIAL("Landlock mediates TCP bind and connect by port, and abstract unix "
			       "sockets of other domains; nothing else (beside TCP rules MPTCP "
			       "sockets and io_uring are refused when made; an MPTCP socket made "
			       "before confinement is not)");
	case IR_SIGNAL:
		if (!(cached(p)->scoped & LL_SCOPE_SIGNAL))
			return NONE("an allow is written: Landlock scoping cannot grant one peer");
		return PARTIAL("Landlock scoping refuses signals to processes outside the Landlock "
			       "domain only");
	case IR_PTRACE:
		if (cached(p)->fs_handled || cached(p)->net_handled || cached(p)->scoped)
			return PARTIAL("any Landlock domain forbids tracing processes outside it; "
				       "its own processes can be traced");
		return NONE("Landlock does not mediate ptrace by itself");
	default:
		return NONE("Landlock does not mediate this domain");
	}
}
