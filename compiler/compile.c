/* compile.c - files → AST → IR: includes, rule resolution, and the lowering
 * of every statement to normalized IR statements; see compile.h. */
#include "compile.h"
#include "../base/arena.h"
#include "consts.h"
#include "glob.h"
#include "syscalls.h"
#include "../base/util.h"
#include "../grammar/ast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One rule or policy definition found in the sources. */
typedef struct {
	const ast_block *block;
	bool builtin;
} def;

typedef struct {
	diag_ctx *d;
	const compile_opts *o;
	ast_file **files;              /* every parsed file, kept for the AST */
	size_t nfiles, capfiles;
	def *rules, *policies;
	size_t nrules, caprules, npolicies, cappolicies;
	bool library_loaded;
	size_t nlibrary_first;         /* index in rules where library rules start */
	char **include_stack;          /* realpaths being included */
	size_t ninclude, capinclude;
} compiler;

/* ---------- loading ---------- */

static void add_def(def **v, size_t *n, size_t *cap, const ast_block *b, bool builtin)
{
	xgrow(v, cap, *n + 1, sizeof **v);
	(*v)[*n].block = b;
	(*v)[*n].builtin = builtin;
	(*n)++;
}

static const def *find_def(const def *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].block->name.s, name))
			return &v[i];
	return NULL;
}

static void load_source(compiler *c, const src_file *src, int depth);

static char *resolve_include(compiler *c, const char *from, const char *name)
{
	if (name[0] == '/')
		return access(name, F_OK) == 0 ? xstrdup(name) : NULL;
	char *dir = xstrdup(from);
	const char *base = dirname(dir);
	/* print paths as the user wrote them: no "./" for the current dir */
	char *p = strcmp(base, ".") ? xasprintf("%s/%s", base, name) : xstrdup(name);
	free(dir);
	if (access(p, F_OK) == 0)
		return p;
	free(p);
	for (size_t i = 0; i < c->o->ninclude; i++) {
		p = xasprintf("%s/%s", c->o->include_dirs[i], name);
		if (access(p, F_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

static void do_include(compiler *c, const src_file *from, const ast_block *b, int depth)
{
	int max = c->o->max_include_depth ? c->o->max_include_depth : 64;
	if (depth >= max) {
		diag_error(c->d, b->loc, "includes nested more than %d deep", max);
		return;
	}
	char *path = from->builtin ? NULL : resolve_include(c, from->path, b->name.s);
	if (!path) {
		diag_error(c->d, b->name.loc, "cannot find include file '%s'%s", b->name.s,
			   c->o->ninclude ? " (searched the including file's directory and -I paths)" :
			   " (searched the including file's directory; add -I DIR)");
		return;
	}
	char real[PATH_MAX];
	if (!realpath(path, real))
		snprintf(real, sizeof real, "%s", path);
	for (size_t i = 0; i < c->ninclude; i++)
		if (!strcmp(c->include_stack[i], real)) {
			if (i + 1 == c->ninclude)
				diag_error(c->d, b->loc, "include loop: '%s' includes itself", b->name.s);
			else
				diag_error(c->d, b->loc, "include loop: '%s' is already being included (it includes this file)",
					   b->name.s);
			free(path);
			return;
		}
	src_file *f = diag_read_include(c->d, path, b->name.loc);
	free(path);
	if (!f)
		return;
	load_source(c, f, depth + 1);
}

static void load_source(compiler *c, const src_file *src, int depth)
{
	char real[PATH_MAX];
	if (src->builtin || !realpath(src->path, real))
		snprintf(real, sizeof real, "%s", src->path);
	xgrow(&c->include_stack, &c->capinclude, c->ninclude + 1, sizeof *c->include_stack);
	c->include_stack[c->ninclude++] = xstrdup(real);

	ast_file *f = parse_source(c->d, src);
	xgrow(&c->files, &c->capfiles, c->nfiles + 1, sizeof *c->files);
	c->files[c->nfiles++] = f;
	for (size_t i = 0; i < f->n; i++) {
		const ast_block *b = f->blocks[i];
		if (b->kind == BLOCK_INCLUDE) {
			do_include(c, src, b, depth);
			continue;
		}
		bool rule = b->kind == BLOCK_RULE;
		const def *prev = rule ? find_def(c->rules, c->nrules, b->name.s)
				       : find_def(c->policies, c->npolicies, b->name.s);
		if (prev && src->builtin)
			continue;      /* the user's rule of that name shadows the library's */
		if (prev && !prev->builtin) {
			diag_error(c->d, b->name.loc, "%s '%s' is defined twice",
				   rule ? "rule" : "policy", b->name.s);
			diag_note(c->d, prev->block->name.loc, "first defined here");
			continue;
		}
		if (rule)
			add_def(&c->rules, &c->nrules, &c->caprules, b, src->builtin);
		else if (!src->builtin)
			add_def(&c->policies, &c->npolicies, &c->cappolicies, b, false);
	}
	free(c->include_stack[--c->ninclude]);
}

/* The embedded library: its rules come after the user's, so a user rule
 * of the same name shadows the library's (find_def returns the first). */
static void load_library(compiler *c)
{
	if (c->library_loaded || c->o->no_library)
		return;
	c->library_loaded = true;
	c->nlibrary_first = c->nrules;
	for (size_t i = 0; i < polc_rule_library_n; i++) {
		const embedded_file *e = &polc_rule_library[i];
		src_file *f = diag_add_text(c->d, e->path, e->text, strlen(e->text), true);
		load_source(c, f, 0);
	}
}

static const def *lookup_rule(compiler *c, const char *name)
{
	const def *r = find_def(c->rules, c->nrules, name);
	if (!r && !c->library_loaded && !c->o->no_library) {
		load_library(c);
		r = find_def(c->rules, c->nrules, name);
	}
	return r;
}

/* ---------- lowering: one block to an ir_policy ---------- */

typedef struct {
	compiler *c;
	ir_policy *p;
	size_t caps[IR_NDOMAIN];
	src_loc default_loc[IR_NDOMAIN];
	const char *default_from[IR_NDOMAIN];   /* rule that set it; NULL: the policy */
	const char **used;                      /* rules brought in so far */
	size_t nused, capused;
	const char **stack;                     /* rules being expanded (cycle check) */
	size_t nstack, capstack;
} lowering;

static const char *const domain_names[] = { "syscall", "file", "exec", "capability",
					    "mount", "network", "ptrace", "signal" };

static ir_stmt *new_stmt(lowering *L, ir_domain dom, ir_action act, src_loc loc, const char *rule)
{
	ir_stmt_list *l = &L->p->dom[dom];
	xgrow(&l->v, &L->caps[dom], l->n + 1, sizeof *l->v);
	ir_stmt *s = &l->v[l->n++];
	memset(s, 0, sizeof *s);
	s->domain = dom;
	s->action = act;
	s->loc = loc;
	s->rule = rule;
	return s;
}

/* The domain a statement's subject lowers into: mount, umount and
 * pivot_root are all mount operations. */
static ir_domain subject_domain(ast_subject s)
{
	switch (s) {
	case SUBJ_SYSCALL: return IR_SYSCALL;
	case SUBJ_FILE: return IR_FILE;
	case SUBJ_EXEC: return IR_EXEC;
	case SUBJ_CAPABILITY: return IR_CAPABILITY;
	case SUBJ_MOUNT:
	case SUBJ_UMOUNT:
	case SUBJ_PIVOT_ROOT: return IR_MOUNT;
	case SUBJ_NETWORK: return IR_NETWORK;
	case SUBJ_PTRACE: return IR_PTRACE;
	case SUBJ_SIGNAL: return IR_SIGNAL;
	}
	return IR_NDOMAIN;   /* not reached: the parser makes only the subjects above */
}

static void did_you_mean(diag_ctx *d, src_loc loc, const char *what, const char *word,
			 const char *const *cands, size_t n)
{
	const char *best = diag_closest(word, cands, n);
	if (best)
		diag_error(d, loc, "unknown %s '%s'; did you mean '%s'?", what, word, best);
	else
		diag_error(d, loc, "unknown %s '%s'", what, word);
}

static bool lower_atom(lowering *L, const ast_atom *a, uint64_t *out)
{
	if (!a->is_name) {
		*out = a->num;
		return true;
	}
	long long v;
	if (consts_lookup(a->name, &v)) {
		*out = (uint64_t)v;
		return true;
	}
	size_t n;
	const char *const *names = const_names(&n);
	did_you_mean(L->c->d, a->loc, "constant", a->name, names, n);
	return false;
}

static bool lower_value(lowering *L, const ast_value *v, uint64_t *out)
{
	uint64_t acc = 0;
	bool ok = true;
	for (size_t i = 0; i < v->n; i++) {
		uint64_t x = 0;
		ok &= lower_atom(L, &v->v[i], &x);
		acc |= x;
	}
	*out = acc;
	return ok;
}

static bool lower_action(lowering *L, const ast_action *a, ir_action *out)
{
	static const ir_verdict map[] = { IR_ALLOW, IR_AUDIT, IR_DENY, IR_KILL };
	out->verdict = map[a->verdict];
	out->err = EPERM;
	if (!a->has_errno)
		return true;
	if (a->err.is_name) {
		int e = errno_from_name(a->err.name);
		if (e < 0) {
			size_t n;
			const char *const *names = const_names(&n);
			const char *best = diag_closest(a->err.name, names, n);
			if (best && errno_from_name(best) > 0)
				diag_error(L->c->d, a->err.loc, "unknown errno '%s'; did you mean '%s'?",
					   a->err.name, best);
			else
				diag_error(L->c->d, a->err.loc, "unknown errno '%s' (expected a name such as EACCES or a number)",
					   a->err.name);
			return false;
		}
		out->err = e;
	} else {
		if (a->err.num < 1 || a->err.num > 4095) {
			diag_error(L->c->d, a->err.loc, "errno %llu is out of range (1..4095)",
				   (unsigned long long)a->err.num);
			return false;
		}
		out->err = (int)a->err.num;
	}
	return true;
}

static int arg_index(lowering *L, const ast_word *w)
{
	const char *s = w->s;
	if (!strncmp(s, "arg", 3) && s[3] >= '0' && s[3] <= '9' && !s[4]) {
		if (s[3] <= '5')
			return s[3] - '0';
		diag_error(L->c->d, w->loc, "bad argument index '%s': syscalls have arg0 to arg5", s);
		return -1;
	}
	diag_error(L->c->d, w->loc, "expected an argument (arg0 to arg5), found '%s'", s);
	return -1;
}

static void lower_syscall(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	diag_ctx *d = L->c->d;
	ir_arg_cond *conds = NULL;
	bool ok = true;
	if (st->ncond) {
		conds = arena_alloc(L->p->arena, st->ncond * sizeof *conds);
		for (size_t i = 0; i < st->ncond; i++) {
			const ast_term *t = &st->conds[i];
			static const ir_cmp map[] = { IR_CMP_EQ, IR_CMP_NE, IR_CMP_LT, IR_CMP_LE,
						      IR_CMP_GT, IR_CMP_GE, IR_CMP_MASKED_EQ };
			conds[i].arg = arg_index(L, &t->arg);
			ok &= conds[i].arg >= 0;
			conds[i].op = map[t->op];
			ok &= lower_value(L, &t->value, &conds[i].value);
			if (t->op == AST_MASKED_EQ) {
				ok &= lower_value(L, &t->mask, &conds[i].mask);
				if (ok && (conds[i].value & ~conds[i].mask))
					diag_warn(d, t->loc, "condition can never hold: the value has bits outside the mask");
			}
		}
	}
	/* names absent on one of the policy's arches: one note per arch */
	buf missing[IR_NARCH];
	size_t nmissing[IR_NARCH] = { 0 };
	for (int a = 0; a < IR_NARCH; a++)
		buf_init(&missing[a]);
	for (size_t i = 0; i < st->names.n; i++) {
		const ast_word *w = &st->names.v[i];
		int nr[IR_NARCH], every[IR_NARCH];
		bool any = false, elsewhere = false;
		sys_resolve_abis(w->s, every);
		for (int a = 0; a < IR_NARCH; a++) {
			nr[a] = (L->p->arches & IR_ARCH_BIT(a)) ? every[a] : -1;
			any |= nr[a] >= 0;
			elsewhere |= every[a] >= 0;
		}
		if (!any) {
			if (elsewhere) {
				diag_note(d, w->loc, "syscall '%s' does not exist on the policy's architectures; statement skipped", w->s);
				continue;
			}
			size_t n;
			const char *const *names = sys_names(&n);
			did_you_mean(d, w->loc, "syscall", w->s, names, n);
			ok = false;
			continue;
		}
		for (int a = 0; a < IR_NARCH; a++)
			if ((L->p->arches & IR_ARCH_BIT(a)) && nr[a] < 0) {
				if (nmissing[a]++ < 6)
					buf_printf(&missing[a], "%s'%s'", nmissing[a] > 1 ? ", " : "", w->s);
			}
		if (!ok)
			continue;
		ir_stmt *s = new_stmt(L, IR_SYSCALL, act, st->loc, rule);
		s->u.sys.name = arena_strdup(L->p->arena, w->s);
		memcpy(s->u.sys.nr, nr, sizeof nr);
		s->u.sys.arg32 = sys_arg32(w->s);
		s->u.sys.conds = conds;
		s->u.sys.ncond = st->ncond;
	}
	for (int a = 0; a < IR_NARCH; a++) {
		char more[32] = "";
		if (nmissing[a] > 6)
			snprintf(more, sizeof more, " and %zu more", nmissing[a] - 6);
		if (nmissing[a])
			diag_note(d, st->loc, "%s%s %s not exist on %s; skipped there", buf_cstr(&missing[a]),
				  more, nmissing[a] == 1 ? "does" : "do", ir_arch_name((ir_arch)a));
		buf_free(&missing[a]);
	}
}

/* The location of byte pos of a string token's value: walk the source
 * text past the quote, where \" and \\ take two bytes, counting
 * characters as the lexer does. */
static src_loc string_loc(src_loc l, size_t pos)
{
	const src_file *f = l.file;
	if (!f)
		return l;
	const char *p = f->text, *end = f->text + f->len;
	for (int line = 1; line < l.line && p < end; p++)
		if (*p == '\n')
			line++;
	for (int col = 1; col < l.col && p < end; col++)       /* to the quote */
		for (p++; p < end && ((unsigned char)*p & 0xc0) == 0x80; p++)
			;
	if (p < end)
		p++;                                           /* past the quote */
	l.col++;
	for (size_t i = 0; i < pos && p < end; i++) {
		if (*p == '\\' && p + 1 < end && (p[1] == '"' || p[1] == '\\')) {
			p++;
			l.col++;
		}
		if (((unsigned char)*p & 0xc0) != 0x80)
			l.col++;
		p++;
	}
	return l;
}

static const char *check_glob(lowering *L, const ast_word *w)
{
	size_t pos;
	const char *err = glob_validate(w->s, &pos);
	if (err) {
		/* a hostile glob can be megabytes: quote its start */
		int n = strlen(w->s) > 80 ? 64 : 80;
		diag_error(L->c->d, string_loc(w->loc, pos), "invalid glob \"%.*s%s\": %s", n,
			   w->s, strlen(w->s) > 80 ? "..." : "", err);
		return NULL;
	}
	return arena_strdup(L->p->arena, w->s);
}

static unsigned lower_perms(lowering *L, const ast_words *perms)
{
	static const char *const names[] = { "read", "write", "append", "exec", "mmap", "link", "lock" };
	unsigned bits = 0;
	for (size_t i = 0; i < perms->n; i++) {
		size_t k = 0;
		while (k < 7 && strcmp(perms->v[i].s, names[k]))
			k++;
		if (k == 7)
			did_you_mean(L->c->d, perms->v[i].loc, "file permission", perms->v[i].s, names, 7);
		else
			bits |= 1u << k;
	}
	return bits;
}

static void lower_files(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	ir_domain dom = subject_domain(st->subject);
	unsigned perms = dom == IR_EXEC ? IR_PERM_EXEC : lower_perms(L, &st->perms);
	for (size_t i = 0; i < st->strings.n; i++) {
		const char *g = check_glob(L, &st->strings.v[i]);
		if (!g || !perms)
			continue;
		ir_stmt *s = new_stmt(L, dom, act, st->loc, rule);
		s->u.file.glob = g;
		s->u.file.perms = perms;
	}
}

static void lower_capability(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	uint64_t caps = 0;
	if (st->cap_all) {
		for (int i = 0; i <= cap_last(); i++)
			caps |= 1ull << i;
	}
	for (size_t i = 0; i < st->names.n; i++) {
		int cap = cap_from_name(st->names.v[i].s);
		if (cap < 0) {
			size_t n;
			const char *const *names = cap_names(&n);
			did_you_mean(L->c->d, st->names.v[i].loc, "capability", st->names.v[i].s, names, n);
			return;
		}
		caps |= 1ull << cap;
	}
	new_stmt(L, IR_CAPABILITY, act, st->loc, rule)->u.cap.caps = caps;
}

static void lower_mount(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	ir_mount_op op = st->subject == SUBJ_MOUNT ? IR_MOUNT_MOUNT :
			 st->subject == SUBJ_UMOUNT ? IR_MOUNT_UMOUNT : IR_MOUNT_PIVOT_ROOT;
	const char **fstypes = NULL;
	if (st->fstypes.n) {
		fstypes = arena_alloc(L->p->arena, st->fstypes.n * sizeof *fstypes);
		for (size_t i = 0; i < st->fstypes.n; i++)
			fstypes[i] = arena_strdup(L->p->arena, st->fstypes.v[i].s);
	}
	size_t ntarget = st->strings.n ? st->strings.n : 1;
	for (size_t i = 0; i < ntarget; i++) {
		const char *target = NULL;
		if (st->strings.n && !(target = check_glob(L, &st->strings.v[i])))
			continue;
		ir_stmt *s = new_stmt(L, IR_MOUNT, act, st->loc, rule);
		s->u.mount.op = op;
		s->u.mount.fstypes = fstypes;
		s->u.mount.nfstype = st->fstypes.n;
		s->u.mount.target = target;
	}
}

/* network [netop] [family] [proto] — any order is accepted, once each. */
static bool lower_net_words(lowering *L, const ast_stmt *st, ir_network *n)
{
	static const char *const ops[] = { "connect", "bind", "listen", "accept", "send" };
	static const char *const protos[] = { "tcp", "udp", "raw", "icmp" };
	static const char *const all[] = { "connect", "bind", "listen", "accept", "send", "inet",
					   "inet6", "unix", "netlink", "packet", "alg", "tcp",
					   "udp", "raw", "icmp" };
	bool seen_op = false, seen_fam = false, seen_proto = false;
	for (size_t i = 0; i < st->names.n; i++) {
		const ast_word *w = &st->names.v[i];
		bool dup = false;
		size_t k;
		for (k = 0; k < 5 && strcmp(w->s, ops[k]); k++)
			;
		if (k < 5) {
			dup = seen_op;
			seen_op = true;
			n->op = (ir_net_op)(IR_NET_CONNECT + k);
		} else {
			for (k = 0; k < 4 && strcmp(w->s, protos[k]); k++)
				;
			if (k < 4) {
				dup = seen_proto;
				seen_proto = true;
				n->proto = (ir_net_proto)(IR_PROTO_TCP + k);
			} else {
				char *up = xasprintf("AF_%s", w->s);
				for (char *p = up; *p; p++)
					*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
				long long fam;
				bool known = consts_lookup(up, &fam) && fam > 0 && fam < 64 &&
					     strcmp(w->s, "max") && strcmp(w->s, "unspec");
				free(up);
				if (!known) {
					did_you_mean(L->c->d, w->loc, "network word", w->s, all, 15);
					return false;
				}
				dup = seen_fam;
				seen_fam = true;
				n->family = (int)fam;
			}
		}
		if (dup) {
			diag_error(L->c->d, w->loc, "'%s': a network statement names at most one operation, one family and one protocol", w->s);
			return false;
		}
	}
	return true;
}

static bool parse_cidr(lowering *L, const ast_word *w, ir_cidr *c)
{
	char *s = xstrdup(w->s), *slash = strchr(s, '/');
	if (slash)
		*slash++ = 0;
	bool v6 = strchr(s, ':') != NULL;
	c->family = v6 ? AF_INET6 : AF_INET;
	int max = v6 ? 128 : 32;
	bool ok = inet_pton(c->family, s, c->addr) == 1;
	c->prefix = max;
	if (!ok) {
		diag_error(L->c->d, w->loc, "invalid %s address '%s'", v6 ? "IPv6" : "IPv4", s);
	} else if (slash) {
		char *end;
		long p = strtol(slash, &end, 10);
		ok = *slash && !*end && p >= 0 && p <= max;
		c->prefix = (int)p;
		src_loc at = w->loc;
		at.col += (int)(slash - s) - 1;      /* the '/' of the prefix */
		if (!ok)
			diag_error(L->c->d, at, "invalid prefix '/%s' in '%s' (%s prefixes are 0..%d)",
				   slash, w->s, v6 ? "IPv6" : "IPv4", max);
	}
	free(s);
	/* ::ffff:a.b.c.d/p is a.b.c.d/(p-96): events to mapped addresses are
	 * decided as IPv4 (LANGUAGE.md), so the statement is IPv4 too */
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (ok && v6 && c->prefix >= 96 && !memcmp(c->addr, mapped, 12)) {
		c->family = AF_INET;
		memmove(c->addr, c->addr + 12, 4);
		memset(c->addr + 4, 0, 12);
		c->prefix -= 96;
	}
	return ok;
}

static void lower_network(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	ir_network base;
	memset(&base, 0, sizeof base);
	if (!lower_net_words(L, st, &base))
		return;
	bool ok = true;
	for (size_t i = 0; i < st->nport; i++) {
		unsigned long long lo = st->ports[i].lo, hi = st->ports[i].hi;
		if (lo == hi && lo > 65535)
			diag_error(L->c->d, st->ports[i].loc, "port %llu is out of range (ports are 0..65535)", lo);
		else if (lo > 65535 || hi > 65535)
			diag_error(L->c->d, st->ports[i].loc, "port range %llu-%llu is out of range (ports are 0..65535)", lo, hi);
		else if (lo > hi)
			diag_error(L->c->d, st->ports[i].loc, "reversed port range %llu-%llu (write the lower port first)", lo, hi);
		else
			continue;
		ok = false;
	}
	size_t naddr = st->addrs.n ? st->addrs.n : 1, nport = st->nport ? st->nport : 1;
	for (size_t a = 0; a < naddr && ok; a++) {
		ir_network n = base;
		if (st->addrs.n) {
			if (!parse_cidr(L, &st->addrs.v[a], &n.addr))
				continue;
			if (n.family && n.family != n.addr.family) {
				diag_error(L->c->d, st->addrs.v[a].loc, "address '%s' is %s, but the statement names family %s",
					   st->addrs.v[a].s, n.addr.family == AF_INET6 ? "IPv6" : "IPv4",
					   n.family == AF_INET6 ? "inet6" : n.family == AF_INET ? "inet" : "non-IP");
				continue;
			}
			n.family = n.addr.family;
			n.has_addr = true;
		}
		for (size_t p = 0; p < nport; p++) {
			if (st->nport) {
				n.has_port = true;
				n.port_lo = (uint16_t)st->ports[p].lo;
				n.port_hi = (uint16_t)st->ports[p].hi;
			}
			new_stmt(L, IR_NETWORK, act, st->loc, rule)->u.net = n;
		}
	}
}

static void lower_ptrace(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	unsigned modes = IR_PTRACE_READ | IR_PTRACE_TRACE;
	if (st->names.n > 1) {
		diag_error(L->c->d, st->names.v[1].loc, "ptrace takes at most one mode (read or trace)");
		return;
	}
	if (st->names.n) {
		const char *m = st->names.v[0].s;
		static const char *const names[] = { "read", "trace" };
		if (!strcmp(m, "read"))
			modes = IR_PTRACE_READ;
		else if (!strcmp(m, "trace"))
			modes = IR_PTRACE_TRACE;
		else {
			did_you_mean(L->c->d, st->names.v[0].loc, "ptrace mode", m, names, 2);
			return;
		}
	}
	new_stmt(L, IR_PTRACE, act, st->loc, rule)->u.ptrace.modes = modes;
}

/* A peer is a glob over labels, not paths: validated as if it were
 * absolute (with a '/' in front), so only its syntax is checked. */
static bool check_peer(lowering *L, const ast_word *w)
{
	char *g = xasprintf("/%s", w->s);
	size_t pos;
	const char *err = glob_validate(g, &pos);
	free(g);
	if (err)
		diag_error(L->c->d, string_loc(w->loc, pos ? pos - 1 : 0), "invalid glob \"%s\": %s", w->s, err);
	return !err;
}

static void lower_signal(lowering *L, const ast_stmt *st, ir_action act, const char *rule)
{
	size_t n = st->strings.n ? st->strings.n : 1;
	for (size_t i = 0; i < n; i++) {
		if (st->strings.n && !check_peer(L, &st->strings.v[i]))
			continue;
		new_stmt(L, IR_SIGNAL, act, st->loc, rule)->u.signal.peer =
			st->strings.n ? arena_strdup(L->p->arena, st->strings.v[i].s) : NULL;
	}
}

static void lower_statement(lowering *L, const ast_stmt *st, const char *rule)
{
	ir_action act;
	if (!lower_action(L, &st->action, &act))
		return;
	switch (subject_domain(st->subject)) {
	case IR_SYSCALL: lower_syscall(L, st, act, rule); break;
	case IR_FILE:
	case IR_EXEC: lower_files(L, st, act, rule); break;
	case IR_CAPABILITY: lower_capability(L, st, act, rule); break;
	case IR_MOUNT: lower_mount(L, st, act, rule); break;
	case IR_NETWORK: lower_network(L, st, act, rule); break;
	case IR_PTRACE: lower_ptrace(L, st, act, rule); break;
	case IR_SIGNAL: lower_signal(L, st, act, rule); break;
	case IR_NDOMAIN: break;
	}
}

/* default ACTION [domain, ...]; a rule's default yields to the policy's. */
static void lower_default(lowering *L, const ast_stmt *st, const char *rule)
{
	ir_action act;
	if (!lower_action(L, &st->action, &act))
		return;
	bool doms[IR_NDOMAIN] = { false };
	if (!st->names.n)
		for (int i = 0; i < IR_NDOMAIN; i++)
			doms[i] = true;
	for (size_t i = 0; i < st->names.n; i++) {
		int k = 0;
		while (k < IR_NDOMAIN && strcmp(st->names.v[i].s, domain_names[k]))
			k++;
		if (k == IR_NDOMAIN) {
			did_you_mean(L->c->d, st->names.v[i].loc, "domain", st->names.v[i].s, domain_names, IR_NDOMAIN);
			return;
		}
		doms[k] = true;
	}
	for (int k = 0; k < IR_NDOMAIN; k++) {
		if (!doms[k])
			continue;
		ir_policy *p = L->p;
		if (p->default_set[k]) {
			bool same = p->defaults[k].verdict == act.verdict && p->defaults[k].err == act.err;
			if (!rule && !L->default_from[k] && !same) {
				diag_error(L->c->d, st->loc, "default for %s set twice", domain_names[k]);
				diag_note(L->c->d, L->default_loc[k], "first set here");
				continue;
			}
			if (rule && !L->default_from[k])
				continue;          /* the policy's own default wins */
			if (rule && L->default_from[k] && !same) {
				diag_error(L->c->d, st->loc, "rule '%s' sets a default for %s that conflicts with rule '%s'",
					   rule, domain_names[k], L->default_from[k]);
				diag_note(L->c->d, L->default_loc[k], "the other default is here");
				continue;
			}
		}
		p->defaults[k] = act;
		p->default_set[k] = true;
		p->default_loc[k] = st->loc;
		L->default_loc[k] = st->loc;
		L->default_from[k] = rule;
	}
}

static void lower_arch(lowering *L, const ast_stmt *st)
{
	static const char *const names[] = { "x86_64", "i386", "x32" };
	unsigned mask = 0;
	for (size_t i = 0; i < st->names.n; i++) {
		int k = 0;
		while (k < IR_NARCH && strcmp(st->names.v[i].s, names[k]))
			k++;
		if (k == IR_NARCH) {
			did_you_mean(L->c->d, st->names.v[i].loc, "architecture", st->names.v[i].s, names, 3);
			continue;
		}
		mask |= IR_ARCH_BIT(k);
	}
	if (mask)
		L->p->arches = mask;
}

static void lower_block(lowering *L, const ast_block *b, const char *rule);

static bool in_list(const char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* "rule cycle: a -> b -> a", from the rule first on the stack. */
static void report_cycle(lowering *L, const ast_word *w)
{
	size_t k = 0;
	while (strcmp(L->stack[k], w->s))
		k++;
	if (k == L->nstack - 1) {
		diag_error(L->c->d, w->loc, "rule '%s' uses itself", w->s);
		return;
	}
	buf b;
	buf_init(&b);
	for (size_t i = k; i < L->nstack; i++)
		buf_printf(&b, "%s -> ", L->stack[i]);
	diag_error(L->c->d, w->loc, "rule cycle: %s%s", buf_cstr(&b), w->s);
	buf_free(&b);
}

static void lower_use(lowering *L, const ast_stmt *st)
{
	for (size_t i = 0; i < st->names.n; i++) {
		const ast_word *w = &st->names.v[i];
		const def *r = lookup_rule(L->c, w->s);
		if (!r) {
			const char **names = xcalloc(L->c->nrules + 1, sizeof *names);
			for (size_t k = 0; k < L->c->nrules; k++)
				names[k] = L->c->rules[k].block->name.s;
			did_you_mean(L->c->d, w->loc, "rule", w->s, names, L->c->nrules);
			free(names);
			continue;
		}
		if (in_list(L->stack, L->nstack, w->s)) {
			report_cycle(L, w);
			continue;
		}
		if (in_list(L->used, L->nused, w->s))
			continue;      /* already brought in: once is enough */
		xgrow(&L->used, &L->capused, L->nused + 1, sizeof *L->used);
		L->used[L->nused++] = r->block->name.s;
		xgrow(&L->stack, &L->capstack, L->nstack + 1, sizeof *L->stack);
		L->stack[L->nstack++] = r->block->name.s;
		lower_block(L, r->block, arena_strdup(L->p->arena, r->block->name.s));
		L->nstack--;
	}
}

/* Room for the block's statements in each domain's list before lowering
 * them (a capacity hint: a syscall statement counts its names, any other
 * one statement): the lists of a large policy then grow once, not by a
 * dozen doublings each copied into fresh pages. */
static void reserve_block(lowering *L, const ast_block *b)
{
	size_t n[IR_NDOMAIN + 1] = { 0 };   /* + subject_domain's not-reached one */
	for (size_t i = 0; i < b->n; i++) {
		const ast_stmt *st = b->stmts[i];
		if (st->kind == ST_STATEMENT)
			n[subject_domain(st->subject)] +=
				st->subject == SUBJ_SYSCALL && st->names.n ? st->names.n : 1;
	}
	for (int d = 0; d < IR_NDOMAIN; d++) {
		ir_stmt_list *l = &L->p->dom[d];
		if (n[d] > 64)
			xgrow(&l->v, &L->caps[d], l->n + n[d], sizeof *l->v);
	}
}

static void lower_block(lowering *L, const ast_block *b, const char *rule)
{
	reserve_block(L, b);
	for (size_t i = 0; i < b->n; i++) {
		const ast_stmt *st = b->stmts[i];
		switch (st->kind) {
		case ST_STATEMENT: lower_statement(L, st, rule); break;
		case ST_USE: lower_use(L, st); break;
		case ST_DEFAULT: lower_default(L, st, rule); break;
		case ST_SUMMARY:
			if (b->kind == BLOCK_POLICY)
				diag_error(L->c->d, st->loc, "'summary' belongs in a rule, not a policy");
			break;
		case ST_MODE:
			if (rule) {
				diag_error(L->c->d, st->loc, "'mode' is a policy setting; rules cannot set it");
			} else if (!strcmp(st->word.s, "enforce")) {
				L->p->mode = IR_MODE_ENFORCE;
			} else if (!strcmp(st->word.s, "audit")) {
				L->p->mode = IR_MODE_AUDIT;
			} else {
				static const char *const modes[] = { "enforce", "audit" };
				did_you_mean(L->c->d, st->word.loc, "mode", st->word.s, modes, 2);
			}
			break;
		case ST_ARCH:
			if (rule)
				diag_error(L->c->d, st->loc, "'arch' is a policy setting; rules cannot set it");
			break;     /* a policy's arch was read by prescan_arch */
		}
	}
}

/* Arch settings decide how syscall names resolve, so they are read before
 * any statement is lowered. */
static void prescan_arch(lowering *L, const ast_block *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == ST_ARCH && b->kind == BLOCK_POLICY)
			lower_arch(L, b->stmts[i]);
}

/* A statement no event can be decided by: an earlier statement at least as
 * restrictive, or a later one more restrictive, covers its whole subject. */
static bool covers(const ir_stmt *t, const ir_stmt *s)
{
	switch (s->domain) {
	case IR_SYSCALL:
		return t->u.sys.ncond == 0 && !strcmp(t->u.sys.name, s->u.sys.name);
	case IR_CAPABILITY:
		return (t->u.cap.caps & s->u.cap.caps) == s->u.cap.caps;
	case IR_FILE:
	case IR_EXEC:
		return !strcmp(t->u.file.glob, s->u.file.glob) &&
		       (t->u.file.perms & s->u.file.perms) == s->u.file.perms;
	default:
		return false;
	}
}

/* Statements with different keys never cover each other (see covers()):
 * NULL for a domain where covers() is always false. */
static const char *cover_key(const ir_stmt *s)
{
	switch (s->domain) {
	case IR_SYSCALL: return s->u.sys.name;
	case IR_FILE:
	case IR_EXEC: return s->u.file.glob;
	case IR_CAPABILITY: return "";
	default: return NULL;
	}
}

static int by_key(const void *a, const void *b, void *base)
{
	const ir_stmt *v = base;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(cover_key(&v[i]), cover_key(&v[j]));
	return c ? c : (i > j) - (i < j);
}

static bool shadows(const ir_stmt *t, size_t j, const ir_stmt *s, size_t i)
{
	if (!covers(t, s))
		return false;
	bool wins = t->action.verdict > s->action.verdict ||
		    (t->action.verdict == s->action.verdict && j < i);
	return wins && !(s->rule && t->rule) &&
	       !(t->action.verdict == s->action.verdict && t->action.err == s->action.err &&
		 (s->rule || t->rule));
}

/* Pairs compared per domain at most: a 10 MB policy of one capability
 * statement repeated must not take minutes for a warning. */
#define UNREACHABLE_BUDGET 20000000ull

/* Only statements of one key are compared (sorted into groups), so a
 * policy of many distinct paths or syscalls is checked in n log n, not n^2
 * (a 10 MB policy took minutes). Warnings come in statement order, each
 * naming the first statement in source order that decides it instead, as a
 * plain pairwise scan would. */
static void warn_unreachable_dom(diag_ctx *d, const ir_policy *p, const ir_stmt_list *l)
{
	if (l->n < 2 || !cover_key(&l->v[0]))
		return;
	size_t *idx = xmalloc(l->n * sizeof *idx), *by = xmalloc(l->n * sizeof *by);
	for (size_t i = 0; i < l->n; i++) {
		idx[i] = i;
		by[i] = SIZE_MAX;
	}
	qsort_r(idx, l->n, sizeof *idx, by_key, l->v);
	unsigned long long work = 0;
	bool skipped = false;
	for (size_t lo = 0, hi; lo < l->n && !skipped; lo = hi) {
		for (hi = lo + 1; hi < l->n && !strcmp(cover_key(&l->v[idx[lo]]), cover_key(&l->v[idx[hi]])); hi++)
			;
		for (size_t a = lo; a < hi && !skipped; a++) {
			size_t i = idx[a];
			for (size_t b = lo; b < hi; b++)
				if (idx[b] != i && shadows(&l->v[idx[b]], idx[b], &l->v[i], i)) {
					by[i] = idx[b];
					break;
				}
			work += hi - lo;
			skipped = work > UNREACHABLE_BUDGET;
		}
	}
	for (size_t i = 0; i < l->n && !skipped; i++)
		if (by[i] != SIZE_MAX) {
			diag_warn(d, l->v[i].loc, "statement is unreachable: every event it matches is decided by another statement");
			diag_note(d, l->v[by[i]].loc, "decided here instead");
		}
	if (skipped)
		diag_note(d, p->loc, "%zu %s statements: too many to check which are unreachable",
			  l->n, ir_domain_name(l->v[0].domain));
	free(idx);
	free(by);
}

/* The settings naming a program the kernel runs as root outside every
 * cgroup and profile (a usermode helper): core_pattern ("|prog" on a crash),
 * modprobe (request_module), hotplug and uevent_helper (every uevent),
 * poweroff_cmd, binfmt_misc registration (an interpreter for any exec), a
 * cgroup v1 release_agent. rules/hardening.pol's disallow-usermode-helpers
 * denies writing them. */
static const char *const helper_paths[] = {
	"/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe", "/proc/sys/kernel/hotplug",
	"/proc/sys/kernel/poweroff_cmd", "/sys/kernel/uevent_helper",
	"/proc/sys/fs/binfmt_misc/register", "/sys/fs/cgroup/release_agent",
	"/sys/fs/cgroup/memory/release_agent",
};

/* A policy that denies files but lets one of them be written has a hole its
 * author likely did not mean. */
static void warn_helpers(diag_ctx *d, const ir_policy *p)
{
	bool denies = p->defaults[IR_FILE].verdict >= IR_DENY;
	for (size_t i = 0; i < p->dom[IR_FILE].n && !denies; i++)
		denies = p->dom[IR_FILE].v[i].action.verdict >= IR_DENY;
	if (!denies)
		return;
	buf open;
	buf_init(&open);
	for (size_t i = 0; i < sizeof helper_paths / sizeof *helper_paths; i++) {
		ir_event ev;
		memset(&ev, 0, sizeof ev);
		ev.domain = IR_FILE;
		ev.u.file.path = helper_paths[i];
		ev.u.file.perm = IR_PERM_WRITE;
		if (ir_decide(p, &ev).verdict < IR_DENY)
			buf_printf(&open, "%s%s", open.len ? ", " : "", helper_paths[i]);
	}
	if (open.len)
		diag_warn(d, p->loc, "policy '%s' denies files but leaves usermode-helper settings "
			  "writable (%s): the kernel runs the program they name as root outside "
			  "the container; use disallow-usermode-helpers", p->name, buf_cstr(&open));
	buf_free(&open);
}

/* Entries of /proc that are links to a file (an open through one resolves
 * to the file itself: a descriptor's, a namespace's, a task's root, working
 * directory or program), and entries that are not. An enforcer that
 * decides such an open decides it by the path of the file it reaches, never
 * by the link's name: BPF LSM names a namespace file, a pipe or a socket
 * "/", which AppArmor leaves undecided (docs/bpf-bundle.md). */
static const char *const proc_links[] = {
	"/proc/1/fd/3", "/proc/self/fd/3", "/proc/thread-self/fd/3", "/proc/1/task/1/fd/3",
	"/proc/1/ns/mnt", "/proc/self/ns/net", "/proc/1/task/1/ns/mnt", "/proc/1/root/etc/passwd",
	"/proc/self/root/etc/passwd", "/proc/1/cwd/x",
	"/proc/self/cwd/x", "/proc/self/exe", "/proc/1/map_files/400000-401000",
};
static const char *const proc_plain[] = { "/proc/1/status", "/proc/self/status",
					  "/proc/1/task/1/status" };

static bool glob_matches_any(const char *glob, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (glob_match(glob, paths[i]))
			return true;
	return false;
}

/* A file or exec statement that names only such links decides no open
 * through them: its author likely meant the file behind, or another task's
 * links, which a ptrace read deny closes (disallow-access-procfs-root). */
static void warn_proc_links(diag_ctx *d, const ir_policy *p)
{
	for (int dom = IR_FILE; dom <= IR_EXEC; dom++)
		for (size_t i = 0; i < p->dom[dom].n; i++) {
			const ir_stmt *s = &p->dom[dom].v[i];
			if (glob_matches_any(s->u.file.glob, proc_links, sizeof proc_links / sizeof *proc_links) &&
			    !glob_matches_any(s->u.file.glob, proc_plain, sizeof proc_plain / sizeof *proc_plain))
				diag_warn(d, s->loc, "\"%s\" names links in /proc: an open through one is "
					  "decided by the path of the file it leads to, so this statement "
					  "decides no such open", s->u.file.glob);
		}
}

static void warn_unreachable(diag_ctx *d, const ir_policy *p)
{
	for (int dom = 0; dom < IR_NDOMAIN; dom++)
		warn_unreachable_dom(d, p, &p->dom[dom]);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static ir_policy *lower_top(compiler *c, const ast_block *b, bool is_rule)
{
	ir_policy *p = xcalloc(1, sizeof *p);
	p->arena = arena_new();
	p->name = arena_strdup(p->arena, b->name.s);
	p->loc = b->name.loc;
	p->arches = IR_ARCH_BIT(IR_ARCH_X86_64);
	for (int i = 0; i < IR_NDOMAIN; i++)
		p->defaults[i] = (ir_action){ IR_ALLOW, 0 };
	lowering L;
	memset(&L, 0, sizeof L);
	L.c = c;
	L.p = p;
	prescan_arch(&L, b);
	if (is_rule) {
		L.stack = xcalloc(1, sizeof *L.stack);
		L.capstack = 1;
		L.stack[L.nstack++] = b->name.s;
	}
	lower_block(&L, b, is_rule ? p->name : NULL);
	if (!is_rule) {
		warn_unreachable(c->d, p);
		warn_proc_links(c->d, p);
	}
	if (!is_rule && c->o->lint_helpers && !c->d->nerrors)
		warn_helpers(c->d, p);
	if (L.nused)
		xqsort(L.used, L.nused, sizeof *L.used, cmp_str);
	p->rules_used = arena_alloc(p->arena, (L.nused + 1) * sizeof *p->rules_used);
	for (size_t i = 0; i < L.nused; i++)
		p->rules_used[i] = arena_strdup(p->arena, L.used[i]);
	p->nrules_used = L.nused;
	free(L.used);
	free(L.stack);
	return p;
}

/* The hash covers every byte read, in order: the same sources give the
 * same hash on every machine. */
/* SHA-256 of "LEN:TEXT" for each of the first nfiles files, hashed in place
 * (a copy of a large policy's text is a page fault per 4 KiB). */
static void hash_sources(src_file *const *files, size_t nfiles, char out[65])
{
	size_t n = 2 * nfiles;
	const void **part = xcalloc(n + 1, sizeof *part);
	size_t *len = xcalloc(n + 1, sizeof *len);
	char (*pre)[24] = xcalloc(nfiles + 1, sizeof *pre);
	for (size_t i = 0; i < nfiles; i++) {
		len[2 * i] = (size_t)snprintf(pre[i], sizeof pre[i], "%zu:", files[i]->len);
		part[2 * i] = pre[i];
		part[2 * i + 1] = files[i]->text;
		len[2 * i + 1] = files[i]->len;
	}
	sha256_hex_parts(part, len, n, out);
	free(part);
	free(len);
	free(pre);
}

static const char *summary_of(const ast_block *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->stmts[i]->kind == ST_SUMMARY)
			return b->stmts[i]->word.s;
	return NULL;
}

/* r is a copy: lowering may load the library, which moves c->rules. */
static void add_rule_ir(compiler *c, ir_program *out, def r_copy)
{
	const def *r = &r_copy;
	ir_rule *ir = xcalloc(1, sizeof *ir);
	ir_policy *body = lower_top(c, r->block, true);
	ir->body = *body;
	free(body);
	ir->name = ir->body.name;
	const char *s = summary_of(r->block);
	ir->summary = s ? arena_strdup(ir->body.arena, s) : NULL;
	ir->loc = r->block->name.loc;
	ir->builtin = r->builtin;
	out->rules = xrealloc(out->rules, (out->nrules + 1) * sizeof *out->rules);
	out->rules[out->nrules++] = ir;
}

static int cmp_rule(const void *a, const void *b)
{
	return strcmp((*(ir_rule *const *)a)->name, (*(ir_rule *const *)b)->name);
}

/* Lower all policies, then every rule that was defined in the user's files
 * or used (all of them with all_rules). */
static int finish(compiler *c, ir_program *out, bool all_rules)
{
	memset(out, 0, sizeof *out);
	out->policies = xcalloc(c->npolicies + 1, sizeof *out->policies);
	for (size_t i = 0; i < c->npolicies; i++)
		out->policies[out->npolicies++] = lower_top(c, c->policies[i].block, false);
	for (size_t i = 0; i < c->nrules; i++) {
		const def *r = &c->rules[i];
		if (find_def(c->rules, c->nrules, r->block->name.s) != r)
			continue;      /* shadowed library rule */
		bool used = !r->builtin || all_rules;
		for (size_t k = 0; k < out->npolicies && !used; k++)
			used = in_list(out->policies[k]->rules_used, out->policies[k]->nrules_used,
				       r->block->name.s);
		if (used)
			add_rule_ir(c, out, *r);
	}
	if (out->nrules)
		xqsort(out->rules, out->nrules, sizeof *out->rules, cmp_rule);
	/* hashed when an output asks for it (ir_source_hash): the files read
	 * so far are the sources, whatever this diag context reads later, and
	 * each policy holds them (the context may go first) */
	for (size_t i = 0; i < out->npolicies; i++) {
		ir_policy *p = out->policies[i];
		p->nsources = c->d->nfiles;
		p->sources = xcalloc(p->nsources + 1, sizeof *p->sources);
		for (size_t k = 0; k < p->nsources; k++)
			p->sources[k] = src_file_hold(c->d->files[k]);
	}
	for (size_t i = 0; i < c->nfiles; i++)
		ast_file_free(c->files[i]);
	free(c->files);
	free(c->rules);
	free(c->policies);
	free(c->include_stack);
	if (c->d->nerrors) {
		ir_program_free(out);
		return -1;
	}
	return 0;
}

static const compile_opts no_opts;

int polc_compile_files(const char *const *files, size_t nfiles, const compile_opts *o,
		       diag_ctx *d, ir_program *out)
{
	compiler c;
	memset(&c, 0, sizeof c);
	c.d = d;
	c.o = o ? o : &no_opts;
	for (size_t i = 0; i < nfiles; i++) {
		src_file *f = diag_read_file(d, files[i], src_loc_none());
		if (f)
			load_source(&c, f, 0);
	}
	return finish(&c, out, false);
}

int polc_compile_text(const char *name, const char *text, const compile_opts *o,
		      diag_ctx *d, ir_program *out)
{
	compiler c;
	memset(&c, 0, sizeof c);
	c.d = d;
	c.o = o ? o : &no_opts;
	load_source(&c, diag_add_text(d, name, text, strlen(text), false), 0);
	return finish(&c, out, false);
}

int polc_compile_library(diag_ctx *d, ir_program *out)
{
	compiler c;
	memset(&c, 0, sizeof c);
	c.d = d;
	c.o = &no_opts;
	load_library(&c);
	return finish(&c, out, true);
}

const ir_policy *ir_program_select(const ir_program *prog, const char *name, diag_ctx *d)
{
	if (name) {
		for (size_t i = 0; i < prog->npolicies; i++)
			if (!strcmp(prog->policies[i]->name, name))
				return prog->policies[i];
		buf b;
		buf_init(&b);
		for (size_t i = 0; i < prog->npolicies; i++)
			buf_printf(&b, "%s%s", i ? ", " : "", prog->policies[i]->name);
		diag_error(d, src_loc_none(), "no policy named '%s'%s%s", name,
			   prog->npolicies ? "; the files define: " : " (the files define no policy)",
			   buf_cstr(&b));
		buf_free(&b);
		return NULL;
	}
	if (prog->npolicies == 1)
		return prog->policies[0];
	if (!prog->npolicies) {
		diag_error(d, src_loc_none(), "no policy to build: the files define only rules (write a 'policy NAME { use ...; }')");
		return NULL;
	}
	buf b;
	buf_init(&b);
	for (size_t i = 0; i < prog->npolicies; i++)
		buf_printf(&b, "%s%s", i ? ", " : "", prog->policies[i]->name);
	diag_error(d, src_loc_none(), "several policies (%s): choose one with --policy NAME", buf_cstr(&b));
	buf_free(&b);
	return NULL;
}

const ir_rule *ir_program_rule(const ir_program *prog, const char *name)
{
	for (size_t i = 0; i < prog->nrules; i++)
		if (!strcmp(prog->rules[i]->name, name))
			return prog->rules[i];
	return NULL;
}

void ir_free(ir_policy *p)
{
	if (!p)
		return;
	for (int i = 0; i < IR_NDOMAIN; i++)
		free(p->dom[i].v);
	for (size_t i = 0; i < p->nsources; i++)
		src_file_release(p->sources[i]);
	free(p->sources);
	arena_free(p->arena);
	memset(p, 0, sizeof *p);
}

const char *ir_source_hash(const ir_policy *p, char out[IR_SOURCE_HASH_SIZE])
{
	out[0] = 0;
	if (p->nsources)
		hash_sources(p->sources, p->nsources, out);
	return out;
}

void ir_program_free(ir_program *prog)
{
	for (size_t i = 0; i < prog->npolicies; i++) {
		ir_free(prog->policies[i]);
		free(prog->policies[i]);
	}
	for (size_t i = 0; i < prog->nrules; i++) {
		ir_free(&prog->rules[i]->body);
		free(prog->rules[i]);
	}
	free(prog->policies);
	free(prog->rules);
	memset(prog, 0, sizeof *prog);
}
