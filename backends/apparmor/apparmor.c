/* apparmor.c - the AppArmor backend: classify() and emit(). See apparmor.h. */
#include "apparmor.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "../../compiler/consts.h"

/* ---- small facts about the policy ---- */

/* A domain is "open" when what no statement matches is allowed (or
 * audited): the profile then grants everything and lists the denies. The
 * written default decides, not the mode: under `mode audit` a default-deny
 * domain stays an allow-list and the complain flag logs what it would deny. */
static bool dom_open(const ir_policy *p, ir_domain d)
{
	return p->defaults[d].verdict <= IR_AUDIT;
}

static bool dom_audit(const ir_policy *p, ir_domain d)
{
	return p->defaults[d].verdict == IR_AUDIT;
}

static ir_verdict verdict_of(const ir_policy *p, const ir_stmt *s)
{
	return ir_effective(p, s->action).verdict;
}

static bool is_denyish(const ir_policy *p, const ir_stmt *s)
{
	return verdict_of(p, s) >= IR_DENY;
}

/* Does any allow/audit statement of domain d grant perm bit `perm`? */
static bool any_allow_perm(const ir_policy *p, ir_domain d, unsigned perm)
{
	for (size_t i = 0; i < p->dom[d].n; i++) {
		const ir_stmt *s = &p->dom[d].v[i];
		if (!is_denyish(p, s) && (d == IR_EXEC || (s->u.file.perms & perm)))
			return true;
	}
	return false;
}

/* AppArmor's one execute permission stands for both polc's exec domain and
 * the file domain's exec perm: an exec is allowed when both allow it. With
 * both domains closed the allowed set is the intersection of two allow-lists,
 * which AppArmor rules (a union) cannot express unless one side is empty. */
static bool x_both_closed_nonempty(const ir_policy *p)
{
	return !dom_open(p, IR_FILE) && !dom_open(p, IR_EXEC) &&
	       any_allow_perm(p, IR_FILE, IR_PERM_EXEC) && any_allow_perm(p, IR_EXEC, 0);
}

/* Should an allow/audit x grant of domain d be written? Only where the
 * other domain allows exec by default; otherwise the grant would also
 * open what the other domain forbids (or, both closed, see above). */
static bool x_allow_emitted(const ir_policy *p, ir_domain d)
{
	ir_domain other = d == IR_EXEC ? IR_FILE : IR_EXEC;
	if (dom_open(p, other))
		return true;
	if (dom_open(p, d))
		return false;          /* redundant: d allows by default */
	/* both closed: emit the union only when both sides have allows (then
	 * partial); with one side empty polc allows no exec at all */
	return x_both_closed_nonempty(p);
}

/* ---- classify ---- */

#define EXACT ((support){ SUPPORT_EXACT, NULL })
#define PARTIAL(w) ((support){ SUPPORT_PARTIAL, (w) })
#define NONE(w) ((support){ SUPPORT_NONE, (w) })

/* AppArmor fails a denied operation with a fixed errno: EPERM for
 * capabilities, EACCES for the rest. The IR cannot tell `deny` from `deny
 * errno EPERM` (both carry EPERM), so EPERM, the language's default, is
 * taken as "unnamed" and accepted; any other errno but AppArmor's is not. */
static support errno_support(const ir_policy *p, const ir_stmt *s)
{
	if (verdict_of(p, s) != IR_DENY || s->action.verdict != IR_DENY)
		return EXACT;
	int e = s->action.err;
	if (e == EPERM || (e == EACCES && s->domain != IR_CAPABILITY))
		return EXACT;
	return PARTIAL(s->domain == IR_CAPABILITY ?
		       "AppArmor fails a denied capability with EPERM; another errno cannot be chosen" :
		       "AppArmor fails a denied access with EACCES; another errno cannot be chosen");
}

/* AppArmor names a file under a detached mount (an open_tree(OPEN_TREE_CLONE)
 * copy, an fsmount(2) tree) relative to that mount's root: with
 * attach_disconnected "/srv/secret/x" read through a clone of /srv/secret is
 * "/x", and no deny written for the real path matches (lab, Debian 6.1).
 * Without attach_disconnected every kernel-internal file (memfd, shm) would
 * be refused as well. Every route to a detached tree needs CAP_SYS_ADMIN
 * over the mount namespace (may_mount(); fsopen, fspick too), which AppArmor
 * mediates in every user namespace: a policy that denies it leaves no such
 * route, so its path denies are exact. */
static bool detached_mounts_closed(const ir_policy *p)
{
	ir_event ev = { .domain = IR_CAPABILITY, .u.cap.cap = CAP_SYS_ADMIN };
	return ir_decide(p, &ev).verdict >= IR_DENY;
}

#define DETACHED_PARTIAL \
	PARTIAL("AppArmor names a file under a detached mount (open_tree(OPEN_TREE_CLONE), " \
		"fsmount) relative to that mount, so a process with CAP_SYS_ADMIN reaches it " \
		"by a name this deny does not match; deny capability sys_admin to make it exact")

/* A program's interpreter is opened inside its exec: a script's #!
 * interpreter and an ELF program's PT_INTERP (open_exec). AppArmor 6.1
 * decides the program named to execve (its exec hook runs once per execve),
 * lets every open within the exec pass and caches read and executable mmap
 * for the file (apparmor_file_open: fctx->allow), and has no
 * bprm_check_security hook for the kernel's second pass with a #!
 * interpreter. A `deny m` would not help: aa_file_perm does not revalidate
 * a mapping the cached permissions cover under the same profile. So a
 * refused exec (a deny, or what a default deny leaves out) does not stop
 * `#!/denied/program` nor a PT_INTERP naming a denied copy of ld.so
 * (vm/t_bypass: exec-shebang-interp*, exec-pt_interp*). */
#define SCRIPT_PARTIAL \
	PARTIAL("AppArmor does not check a program's interpreter (a script's #! line, an " \
		"ELF PT_INTERP): a program naming an exec-denied file as its interpreter " \
		"runs it; enforce with the BPF LSM")

static support classify_file(const ir_policy *p, const ir_stmt *s)
{
	unsigned pm = s->u.file.perms;
	bool deny = is_denyish(p, s);
	bool closed = !dom_open(p, IR_FILE);
	if ((pm & IR_PERM_EXEC) && !deny && s->domain == IR_FILE) {
		if (x_both_closed_nonempty(p))
			return PARTIAL("AppArmor has one execute permission for exec and file exec: "
				       "with both domains default deny it grants the union of their allows, "
				       "polc the intersection");
		if (!x_allow_emitted(p, IR_FILE) && verdict_of(p, s) == IR_AUDIT)
			return PARTIAL("not logged: an AppArmor audit rule would also grant the "
				       "execute that the exec domain's default deny forbids");
	}
	if ((s->domain == IR_EXEC || (pm & IR_PERM_EXEC)) && (deny || !dom_open(p, s->domain)))
		return SCRIPT_PARTIAL;
	if (s->domain == IR_EXEC) {
		if (!deny && x_both_closed_nonempty(p))
			return PARTIAL("AppArmor has one execute permission for exec and file exec: "
				       "with both domains default deny it grants the union of their allows, "
				       "polc the intersection");
		if (!deny && !x_allow_emitted(p, IR_EXEC) && verdict_of(p, s) == IR_AUDIT)
			return PARTIAL("not logged: an AppArmor audit rule would also grant the "
				       "execute that the file domain's default deny forbids");
		if (deny && !detached_mounts_closed(p))
			return DETACHED_PARTIAL;
		return errno_support(p, s);
	}
	if (s->domain == IR_FILE && !deny && closed && (pm & IR_PERM_WRITE) && !(pm & IR_PERM_READ))
		return PARTIAL("AppArmor's w also grants append, and renaming the file away also "
			       "needs r there: r is granted too");
	if ((pm & IR_PERM_WRITE) && !(pm & IR_PERM_APPEND)) {
		if (!deny && closed)
			return PARTIAL("AppArmor's w also grants append");
		if (deny && (!closed || any_allow_perm(p, IR_FILE, IR_PERM_APPEND)))
			return PARTIAL("AppArmor's deny w also denies append");
	}
	if (!deny && closed && (pm & IR_PERM_LINK))
		return PARTIAL("AppArmor also requires a hard link's permissions to be a subset "
			       "of its target's");
	if (!deny && closed && (pm & IR_PERM_LOCK) && !(pm & IR_PERM_WRITE))
		return PARTIAL("AppArmor also requires w for a write lock");
	if (deny && !detached_mounts_closed(p))
		return DETACHED_PARTIAL;
	return errno_support(p, s);
}

static support classify_network(const ir_policy *p, const ir_stmt *s)
{
	const ir_network *n = &s->u.net;
	if (n->family && !aa_family_name(n->family))
		return NONE("address family unknown to AppArmor");
	/* Under a default deny, an allow on an address or port is granted for
	 * the whole family and type: left out, it would deny what the policy
	 * allows (a generated profile's `allow network bind inet tcp port N`
	 * would stop the server). A deny cannot be widened that way. */
	if ((n->has_addr || n->has_port) &&
	    (dom_open(p, IR_NETWORK) || s->action.verdict > IR_AUDIT))
		return NONE("AppArmor 3 network rules cannot match addresses or ports");
	if (n->has_addr || n->has_port)
		return PARTIAL("AppArmor 3 network rules cannot match addresses or ports: "
			       "allowed for every address and port of the family and type");
	if (n->op != IR_NET_ANYOP)
		return PARTIAL("AppArmor 3 network rules cover every operation on a socket of "
			       "the family and type (its creation included), not one operation");
	switch (n->proto) {
	case IR_PROTO_TCP:
		return PARTIAL("AppArmor matches the socket type: tcp is every SOCK_STREAM socket "
			       "of inet/inet6 (SCTP stream sockets too; MPTCP is tcp)");
	case IR_PROTO_UDP:
		return PARTIAL("AppArmor matches the socket type: udp is every SOCK_DGRAM socket "
			       "of inet/inet6 (ICMP ping and UDP-Lite sockets too)");
	case IR_PROTO_ICMP:
		return PARTIAL("AppArmor matches the socket type: icmp is every SOCK_RAW socket, "
			       "and ICMP ping (SOCK_DGRAM) sockets are not included");
	case IR_PROTO_RAW:
	case IR_PROTO_ANY:
		break;
	}
	return errno_support(p, s);
}

/* AppArmor in 6.1 mediates mount(2) (sb_mount) only: a new tree made by
 * fsopen/fsconfig/fsmount or open_tree(OPEN_TREE_CLONE) is attached by
 * move_mount(2), and mount attributes changed by mount_setattr(2), with no
 * AppArmor check (its move_mount hook came in a later kernel). A statement
 * that must refuse mounts (a deny, or an allow in a default-deny domain) is
 * therefore partial, unless CAP_SYS_ADMIN is denied (every one of them needs
 * it). umount and pivot_root have their hooks. */
static support classify_mount(const ir_policy *p, const ir_stmt *s)
{
	if (s->u.mount.op == IR_MOUNT_MOUNT && (is_denyish(p, s) || !dom_open(p, IR_MOUNT)) &&
	    !detached_mounts_closed(p))
		return PARTIAL("AppArmor in 6.1 has no hook for the new mount API: move_mount(2) "
			       "attaching an fsmount(2) or open_tree(OPEN_TREE_CLONE) tree, and "
			       "mount_setattr(2), are not mediated; enforce with seccomp too");
	return errno_support(p, s);
}

static support classify_apparmor(const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	switch (s->domain) {
	case IR_SYSCALL:
		return NONE("AppArmor does not mediate syscalls");
	case IR_FILE:
	case IR_EXEC:
		return classify_file(p, s);
	case IR_CAPABILITY:
		for (int c = 0; c < 64; c++)
			if ((s->u.cap.caps >> c & 1) && !cap_name(c))
				return NONE("capability unknown to this build");
		return errno_support(p, s);
	case IR_NETWORK:
		return classify_network(p, s);
	case IR_MOUNT:
		return classify_mount(p, s);
	case IR_PTRACE:
	case IR_SIGNAL:
		return errno_support(p, s);
	case IR_NDOMAIN:
		break;
	}
	return NONE("unknown domain");
}

/* ---- text helpers ---- */

/* polc globs and AppArmor's AARE agree (glob.h), but the text differs in
 * three places: AppArmor's quoted strings interpret \n \t and octal
 * escapes, so a polc escape of an ordinary character is written plainly;
 * AppArmor refuses a one-alternative group "{a}" (and "@{a}" would be a
 * variable); and AppArmor's [^...] may match '/', which polc's never does. */
static const char *const AA_META = "*?[]{},\\^";

static const char *put_class(buf *out, const char *g)
{
	bool neg = false;
	buf_put(out, "[", 1);
	g++;
	if (*g == '^') {
		neg = true;
		buf_put(out, "^", 1);
		g++;
	}
	if (*g == ']') {
		buf_puts(out, "\\]");
		g++;
	}
	while (*g && *g != ']') {
		if (*g == '\\' && g[1]) {
			buf_put(out, g, 2);
			g += 2;
			continue;
		}
		if (*g == '"')
			buf_puts(out, "\\\"");
		else
			buf_put(out, g, 1);
		g++;
	}
	if (neg)
		buf_put(out, "/", 1);
	if (*g == ']') {
		buf_put(out, "]", 1);
		g++;
	}
	return g;
}

/* Skip one glob element (escape, class, group or character) from g. */
static const char *skip_elem(const char *g)
{
	if (*g == '\\' && g[1])
		return g + 2;
	if (*g == '[') {
		g++;
		if (*g == '^')
			g++;
		if (*g == ']')
			g++;
		while (*g && *g != ']')
			g += (*g == '\\' && g[1]) ? 2 : 1;
		return *g ? g + 1 : g;
	}
	if (*g == '{') {
		g++;
		while (*g && *g != '}')
			g = *g == ',' ? g + 1 : skip_elem(g);
		return *g ? g + 1 : g;
	}
	return g + 1;
}

static void put_range(buf *out, const char *g, const char *end);

/* A {..} group. AppArmor refuses a group of one alternative, so "{a}" is
 * written as "a" (which also keeps "@{name}" from reading as a variable). */
static void put_group(buf *out, const char *g, const char *end)
{
	const char *in = g + 1, *close = end - (end > in && end[-1] == '}');
	size_t alts = 1;
	for (const char *q = in; q < close; q = *q == ',' ? q + 1 : skip_elem(q))
		alts += *q == ',';
	if (alts == 1) {
		put_range(out, in, close);
		return;
	}
	buf_put(out, "{", 1);
	const char *a = in;
	for (const char *q = in; ; ) {
		if (q >= close || *q == ',') {
			put_range(out, a, q);
			if (q >= close)
				break;
			buf_put(out, ",", 1);
			a = ++q;
		} else {
			q = skip_elem(q);
		}
	}
	buf_put(out, "}", 1);
}

static void put_range(buf *out, const char *g, const char *end)
{
	while (g < end) {
		unsigned char c = (unsigned char)*g;
		if (c == '\\' && g + 1 < end) {
			if (strchr(AA_META, g[1]))
				buf_put(out, g, 2);
			else if (g[1] == '"')
				buf_puts(out, "\\\"");
			else
				buf_put(out, g + 1, 1);
			g += 2;
		} else if (c == '[') {
			g = put_class(out, g);
		} else if (c == '{') {
			const char *e = skip_elem(g);
			put_group(out, g, e);
			g = e;
		} else if (c == '"') {
			buf_puts(out, "\\\"");
			g++;
		} else if (c < 0x20 || c == 0x7f) {
			buf_printf(out, "\\%03o", c);
			g++;
		} else {
			buf_put(out, g, 1);
			g++;
		}
	}
}

/* polc's star and double star right after a '/' match at least one
 * character. The AppArmor parser gives them that meaning only when the run
 * of stars ends the pattern or is followed by '/' (parser_regex.c); before
 * anything else (a '.', or the "{,/}" directory suffix) they may match
 * nothing, so the directory "/sys/" would match a "/sys/" star "{,/}" rule.
 * There, a "?" in front of the stars restores polc's meaning. Writes t
 * so into out, or with out NULL only counts: returns the '?'s it adds. */
static size_t put_min_one(buf *out, const char *t, size_t n)
{
	size_t added = 0;
	for (size_t i = 0; i < n; ) {
		char c = t[i];
		size_t j = i + 1;
		if (c == '\\' && i + 1 < n) {
			j = i + 2;
		} else if (c == '[') {
			if (j < n && t[j] == '^')
				j++;
			if (j < n && t[j] == ']')
				j++;
			while (j < n && t[j] != ']')
				j += (t[j] == '\\' && j + 1 < n) ? 2 : 1;
			j = j < n ? j + 1 : j;
		} else if (c == '*') {
			j = i;
			while (j < n && t[j] == '*')
				j++;
			if (i > 0 && t[i - 1] == '/' && j < n && t[j] != '/') {
				added++;
				if (out)
					buf_put(out, "?", 1);
			}
		}
		if (out)
			buf_put(out, t + i, j - i);
		i = j;
	}
	return added;
}

void aa_put_glob(buf *out, const char *glob, bool dir_suffix)
{
	size_t n = strlen(glob);
	buf_put(out, "\"", 1);
	size_t at = out->len;
	put_range(out, glob, glob + n);
	/* A glob names a file or a directory, which AppArmor sees as "dir/";
	 * "**" at the end already covers it, and a glob ending in '/' names the
	 * directory form itself. */
	if (dir_suffix && n && glob[n - 1] != '/' && !(n >= 2 && !strcmp(glob + n - 2, "**")))
		buf_puts(out, "{,/}");
	/* written in place; again through a copy only when a '?' goes in */
	if (put_min_one(NULL, out->data + at, out->len - at)) {
		char *text = xstrndup(out->data + at, out->len - at);
		size_t len = out->len - at;
		out->len = at;
		put_min_one(out, text, len);
		free(text);
	}
	buf_put(out, "\"", 1);
}

const char *aa_family_name(int af)
{
	/* AppArmor's names are the AF_ names in lower case (the parser's
	 * table); only the families polc's grammar can name, plus alg. */
	switch (af) {
	case AF_UNIX: return "unix";
	case AF_INET: return "inet";
	case AF_INET6: return "inet6";
	case AF_NETLINK: return "netlink";
	case AF_PACKET: return "packet";
	case AF_ALG: return "alg";
	case AF_KEY: return "key";
	case AF_VSOCK: return "vsock";
	case AF_BLUETOOTH: return "bluetooth";
	case AF_CAN: return "can";
	case AF_XDP: return "xdp";
	}
	return NULL;
}

static const char *prefix(ir_verdict v)
{
	return v == IR_AUDIT ? "audit " : v >= IR_DENY ? "deny " : "";
}

static void put_where_tail(buf *out, const ir_stmt *s)
{
	if (s->rule) {
		buf_puts(out, " rule ");
		buf_puts(out, s->rule);
		buf_puts(out, ",");
	}
	if (s->loc.file) {
		buf_puts(out, " ");
		buf_puts(out, s->loc.file->path);
		buf_puts(out, ":");
		buf_put_dec(out, s->loc.line);
		buf_puts(out, ":");
		buf_put_dec(out, s->loc.col);
	}
	buf_puts(out, "\n");
}

/* The statement's origin as a trailing comment. */
static void put_where(buf *out, const ir_stmt *s)
{
	buf_puts(out, "  #");
	put_where_tail(out, s);
}

/* ---- emit, per domain ---- */

static void emit_file_stmt(const ir_policy *p, const ir_stmt *s, buf *out)
{
	ir_verdict v = verdict_of(p, s);
	bool deny = v >= IR_DENY;
	unsigned pm = s->domain == IR_EXEC ? IR_PERM_EXEC : s->u.file.perms;
	char perms[8];         /* at most "rwmlkix" */
	size_t n = 0;
	/* AppArmor checks a rename's source for r as well as w: polc's write
	 * allows the rename (see classify_file) */
	if ((pm & IR_PERM_READ) || (s->domain == IR_FILE && !deny && !dom_open(p, IR_FILE) &&
				    (pm & IR_PERM_WRITE)))
		perms[n++] = 'r';
	if (pm & IR_PERM_WRITE) perms[n++] = 'w';          /* w includes a */
	else if (pm & IR_PERM_APPEND) perms[n++] = 'a';
	if (pm & IR_PERM_MMAP) perms[n++] = 'm';
	if (pm & IR_PERM_LINK) perms[n++] = 'l';
	if (pm & IR_PERM_LOCK) perms[n++] = 'k';
	if ((pm & IR_PERM_EXEC) && (deny || x_allow_emitted(p, s->domain))) {
		if (!deny)
			perms[n++] = 'i';
		perms[n++] = 'x';
	}
	if (n) {
		buf_puts(out, "  ");
		buf_puts(out, prefix(v));
		aa_put_glob(out, s->u.file.glob, true);
		buf_puts(out, " ");
		buf_put(out, perms, n);
		buf_puts(out, ",");
		put_where(out, s);
	}
}

static void emit_files(const ir_policy *p, buf *out)
{
	bool fo = dom_open(p, IR_FILE), xo = dom_open(p, IR_EXEC);
	const char *fa = dom_audit(p, IR_FILE) ? "audit " : "";
	const char *xa = dom_audit(p, IR_EXEC) ? "audit " : "";
	/* a bare `file,` is /{**,} rwmlkix: use it only when exec is open too */
	if (fo && xo && !strcmp(fa, xa))
		buf_printf(out, "  %sfile,\n", fa);
	else {
		if (fo)
			buf_printf(out, "  %s\"/{,**}\" rwmlk,\n", fa);
		if (fo && xo)
			buf_printf(out, "  %s\"/{,**}\" ix,\n", xa);
	}
	/* Kernel-internal files without a path (SysV shared memory, MAP_HUGETLB
	 * mappings) are named "/" under attach_disconnected; they are no file
	 * event to polc, so a closed file domain must not deny mapping them
	 * (PostgreSQL's huge-page attempt was refused). This also lets "/"
	 * itself be listed. */
	if (!fo)
		buf_printf(out, "  %s\"/\" rw,  # pathless kernel files (shared memory)\n", fa);
	for (int d = IR_FILE; d <= IR_EXEC; d++)
		for (size_t i = 0; i < p->dom[d].n; i++)
			emit_file_stmt(p, &p->dom[d].v[i], out);
}

static void emit_caps(const ir_policy *p, buf *out)
{
	if (dom_open(p, IR_CAPABILITY))
		buf_printf(out, "  %scapability,\n", dom_audit(p, IR_CAPABILITY) ? "audit " : "");
	for (size_t i = 0; i < p->dom[IR_CAPABILITY].n; i++) {
		const ir_stmt *s = &p->dom[IR_CAPABILITY].v[i];
		buf_printf(out, "  %scapability", prefix(verdict_of(p, s)));
		/* every capability this build knows: the bare rule, which also
		 * covers ones newer than the table */
		uint64_t all = cap_last() >= 63 ? ~0ull : (1ull << (cap_last() + 1)) - 1;
		for (int c = 0; c < 64 && (s->u.cap.caps & all) != all; c++)
			if ((s->u.cap.caps >> c & 1) && cap_name(c))
				buf_printf(out, " %s", cap_name(c));
		buf_puts(out, ",");
		put_where(out, s);
	}
}

static void emit_mounts(const ir_policy *p, buf *out)
{
	if (dom_open(p, IR_MOUNT)) {
		const char *a = dom_audit(p, IR_MOUNT) ? "audit " : "";
		buf_printf(out, "  %smount,\n  %sumount,\n  %spivot_root,\n", a, a, a);
	}
	for (size_t i = 0; i < p->dom[IR_MOUNT].n; i++) {
		const ir_stmt *s = &p->dom[IR_MOUNT].v[i];
		const ir_mount *m = &s->u.mount;
		buf_printf(out, "  %s", prefix(verdict_of(p, s)));
		switch (m->op) {
		case IR_MOUNT_MOUNT:
			buf_puts(out, "mount");
			if (m->nfstype) {
				buf_puts(out, " fstype=(");
				for (size_t k = 0; k < m->nfstype; k++)
					buf_printf(out, "%s%s", k ? "," : "", m->fstypes[k]);
				buf_puts(out, ")");
			}
			if (m->target) {
				buf_puts(out, " -> ");
				aa_put_glob(out, m->target, true);
			}
			break;
		case IR_MOUNT_UMOUNT:
			buf_puts(out, "umount");
			if (m->target) {
				buf_puts(out, " ");
				aa_put_glob(out, m->target, true);
			}
			break;
		case IR_MOUNT_PIVOT_ROOT:
			buf_puts(out, "pivot_root");
			if (m->target) {
				buf_puts(out, " ");
				aa_put_glob(out, m->target, true);
			}
			break;
		}
		buf_puts(out, ",");
		put_where(out, s);
	}
}

static const char *proto_word(ir_net_proto pr)
{
	switch (pr) {
	case IR_PROTO_TCP: return "tcp";
	case IR_PROTO_UDP: return "udp";
	case IR_PROTO_RAW: return "raw";
	case IR_PROTO_ICMP: return "icmp";
	case IR_PROTO_ANY: break;
	}
	return NULL;
}

static void emit_network(const ir_policy *p, buf *out)
{
	if (dom_open(p, IR_NETWORK)) {
		const char *a = dom_audit(p, IR_NETWORK) ? "audit " : "";
		/* unix: for kernels with fine-grained af_unix mediation */
		buf_printf(out, "  %snetwork,\n  %sunix,\n", a, a);
	}
	for (size_t i = 0; i < p->dom[IR_NETWORK].n; i++) {
		const ir_stmt *s = &p->dom[IR_NETWORK].v[i];
		const ir_network *n = &s->u.net;
		if (classify_network(p, s).level == SUPPORT_NONE) {
			/* left out; the header says why */
			buf_puts(out, "  # not enforced:");
			put_where_tail(out, s);
			continue;
		}
		const char *fam = n->family ? aa_family_name(n->family) : NULL;
		const char *pr = proto_word(n->proto);
		buf_printf(out, "  %snetwork%s%s%s%s,", prefix(verdict_of(p, s)),
			   fam ? " " : "", fam ? fam : "", pr ? " " : "", pr ? pr : "");
		put_where(out, s);
		if (n->family == AF_UNIX && !pr) {
			buf_printf(out, "  %sunix,", prefix(verdict_of(p, s)));
			put_where(out, s);
		}
	}
}

static void emit_ptrace(const ir_policy *p, buf *out)
{
	if (dom_open(p, IR_PTRACE))
		buf_printf(out, "  %sptrace,\n", dom_audit(p, IR_PTRACE) ? "audit " : "");
	else
		/* polc restricts what the workload does; being traced is the
		 * tracer's business (and its own children share this profile) */
		buf_puts(out, "  ptrace (readby, tracedby),\n");
	for (size_t i = 0; i < p->dom[IR_PTRACE].n; i++) {
		const ir_stmt *s = &p->dom[IR_PTRACE].v[i];
		unsigned m = s->u.ptrace.modes;
		if (!m)
			m = IR_PTRACE_READ | IR_PTRACE_TRACE;
		buf_printf(out, "  %sptrace (%s%s%s),", prefix(verdict_of(p, s)),
			   m & IR_PTRACE_READ ? "read" : "", m == 3 ? ", " : "",
			   m & IR_PTRACE_TRACE ? "trace" : "");
		put_where(out, s);
	}
}

static void emit_signal(const ir_policy *p, buf *out)
{
	if (dom_open(p, IR_SIGNAL))
		buf_printf(out, "  %ssignal,\n", dom_audit(p, IR_SIGNAL) ? "audit " : "");
	else
		buf_puts(out, "  signal (receive),\n");   /* as for ptrace */
	for (size_t i = 0; i < p->dom[IR_SIGNAL].n; i++) {
		const ir_stmt *s = &p->dom[IR_SIGNAL].v[i];
		buf_printf(out, "  %ssignal (send)", prefix(verdict_of(p, s)));
		if (s->u.signal.peer) {
			buf_puts(out, " peer=");
			aa_put_glob(out, s->u.signal.peer, false);
		}
		buf_puts(out, ",");
		put_where(out, s);
	}
}

/* AppArmor cannot hold back syscalls: a syscall default that is not allow
 * is refused, listed or left to seccomp by backend_check(). */
static support classify_default_apparmor(const ir_policy *p, backend_facts f, ir_domain dom)
{
	support exact = { SUPPORT_EXACT, NULL };
	if (dom == IR_SYSCALL && p->defaults[dom].verdict != IR_ALLOW)
		return NONE("AppArmor does not mediate syscalls");
	return exact;
}

static int emit_apparmor(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d)
{
	if (o && o->format && (!strcmp(o->format, "spo") || !strcmp(o->format, "k8s")))
		return aa_emit_spo(p, o, out, d);
	if (o && o->format && strcmp(o->format, "profile")) {
		diag_error(d, src_loc_none(), "apparmor has no format '%s' (profile, spo, k8s)", o->format);
		return -1;
	}
	backend_header(&backend_apparmor, p, o, "# ", out);
	if (ir_decides_nothing(p, ~(1u << IR_SYSCALL))) {
		/* AlwaysAllow's: unconfined mode, in which the kernel checks
		 * nothing (an enforced allow-all profile still names every
		 * opened file: lab openat 1.139 against no LSM); an exec
		 * follows other profiles' attachments, as unconfined's does */
		buf_puts(out, "# decides nothing: unconfined mode, no check made\n");
		buf_puts(out, "abi <abi/3.0>,\n#include <tunables/global>\n\n");
		buf_printf(out, "profile %s flags=(unconfined) {\n}\n", p->name);
		return 0;
	}
	buf_puts(out, "# exec rules use ix: programs run by the workload keep this profile\n");
	buf_puts(out, "abi <abi/3.0>,\n#include <tunables/global>\n\n");
	buf_printf(out, "profile %s flags=(attach_disconnected,mediate_deleted%s) {\n",
		   p->name, p->mode == IR_MODE_AUDIT ? ",complain" : "");
	emit_files(p, out);
	emit_caps(p, out);
	emit_mounts(p, out);
	emit_network(p, out);
	emit_ptrace(p, out);
	emit_signal(p, out);
	buf_puts(out, "}\n");
	return 0;
}

static const char *const aa_formats[] = { "profile", "spo", "k8s", NULL };

const backend backend_apparmor = {
	.name = "apparmor",
	.title = "AppArmor",
	.formats = aa_formats,
	.classify = classify_apparmor,
	.classify_default = classify_default_apparmor,
	.emit = emit_apparmor,
	.available = aa_available,
	.needs_lab = true,
	.decides_exec_path = true,
	.confine = aa_confine,
	.audit = AUDIT_COMPLAIN_LOG,
	.probes = PROBES_LSM,
	.probe_load = aa_probe_load,
	.probe_unload = aa_probe_unload,
	.probe_open = aa_probe_open,
	.probe_enter = aa_probe_enter,
	.errno_agrees = aa_errno_agrees,
	.no_tree_clone = "AppArmor 6.1 names a file under a detached mount relative to that "
			 "mount (attach_disconnected): a known limit",
};
