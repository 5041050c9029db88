/* import_oci.c - OCI / Docker seccomp profile -> polc source (import_oci.h).
 * Two passes: read the libyaml document into plain entries (checking every
 * key and value, with marks for errors), then evaluate each entry for the
 * target and print statements. */
#include "import_oci.h"
#include "json.h"
#include "source.h"
#include "yaml_node.h"
#include "../compiler/consts.h"
#include "../compiler/syscalls.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <yaml.h>

const char *const import_docker_caps[] = {
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP",
	"CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL
};

typedef struct {
	diag_ctx *d;
	src_file *f;
	yaml_document_t *doc;       /* read only */
	int nerr;
	bool yaml_ints;            /* YAML 1.1 integers: 0x hex too (vArmor's YAML) */
} reader;

static src_loc mark_loc(reader *r, yaml_mark_t m)
{
	src_loc l = { r->f, (int)m.line + 1, (int)m.column + 1 };
	return l;
}

static src_loc nloc(reader *r, yaml_node_t *n)
{
	return mark_loc(r, n->start_mark);
}

#define rerr(r, n, ...) (diag_error((r)->d, nloc((r), (n)), __VA_ARGS__), (r)->nerr++)

static yaml_node_t *node(reader *r, int id)
{
	return yaml_document_get_node(r->doc, id);
}

static const char *str(reader *r, yaml_node_t *n, const char *what)
{
	if (n->type != YAML_SCALAR_NODE || yaml_node_is_null(n)) {
		rerr(r, n, "%s must be a string", what);
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

static bool u64(reader *r, yaml_node_t *n, const char *what, uint64_t max, uint64_t *out)
{
	const char *s = n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
			? (const char *)n->data.scalar.value : NULL;
	char *end = NULL;
	errno = 0;
	bool hex = r->yaml_ints && s && (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) &&
		   isxdigit((unsigned char)s[2]);
	unsigned long long v = hex ? strtoull(s + 2, &end, 16)
			       : s && isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
	if (!s || !isdigit((unsigned char)*s) || *end || errno || v > max) {
		rerr(r, n, "%s must be an integer 0..%llu", what, (unsigned long long)max);
		return false;
	}
	*out = v;
	return true;
}

/* Items of a sequence (null: none). Returns false after an error. */
static bool seq(reader *r, yaml_node_t *n, const char *what, yaml_node_item_t **b,
		yaml_node_item_t **e)
{
	*b = *e = NULL;
	if (yaml_node_is_null(n))
		return true;
	if (n->type != YAML_SEQUENCE_NODE) {
		rerr(r, n, "%s must be a list", what);
		return false;
	}
	*b = n->data.sequence.items.start;
	*e = n->data.sequence.items.top;
	return true;
}

/* Walk a mapping: each key must be one of `keys` (NULL-terminated), and not
 * repeated; vals[i] gets the value of keys[i] or NULL. */
static bool mapping(reader *r, yaml_node_t *n, const char *what, const char *const *keys,
		    yaml_node_t **vals)
{
	size_t nk = 0;
	while (keys[nk])
		vals[nk++] = NULL;
	if (n->type != YAML_MAPPING_NODE) {
		rerr(r, n, "%s must be an object", what);
		return false;
	}
	bool ok = true;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node(r, p->key);
		const char *ks = k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
		size_t i = 0;
		while (i < nk && strcmp(keys[i], ks))
			i++;
		if (i == nk) {
			const char *best = diag_closest(ks, keys, nk);
			if (best)
				diag_warn(r->d, nloc(r, k), "unknown key '%s' in %s ignored; did you mean '%s'?",
					  ks, what, best);
			else
				diag_warn(r->d, nloc(r, k), "unknown key '%s' in %s ignored", ks, what);
			continue;
		}
		if (vals[i]) {
			rerr(r, k, "duplicate key '%s' in %s", ks, what);
			ok = false;
		}
		vals[i] = node(r, p->value);
	}
	return ok;
}

/* ---- the profile as plain data ---- */

typedef enum { ACT_ALLOW, ACT_ERRNO, ACT_KILL, ACT_KILL_THREAD, ACT_LOG } act_kind;

typedef struct {
	act_kind kind;
	int err;
	const char *text;          /* as written */
} act;

typedef struct {
	const char **v;
	size_t n, cap;
} strv;

typedef struct {
	bool has_min;
	int kmaj, kmin;
	strv caps, arches;
} filt;

typedef struct {
	int index;
	const char *op;            /* "==", ... or "&" */
	uint64_t value, value2;
} cond;

typedef struct {
	int line;
	strv names;
	act a;
	cond *c;
	size_t nc;
	filt inc, exc;
} entry;

static void strv_push(strv *s, const char *x)
{
	if (s->n == s->cap)
		xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = x;
}

static bool strv_has(const strv *s, const char *x)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcasecmp(s->v[i], x))
			return true;
	return false;
}

/* On failure *out is left empty: callers never free a half-read list. */
static bool read_strv(reader *r, yaml_node_t *n, const char *what, strv *out)
{
	yaml_node_item_t *b, *e;
	if (!n)
		return true;
	if (!seq(r, n, what, &b, &e))
		return false;
	for (; b < e; b++) {
		const char *s = str(r, node(r, *b), what);
		if (!s) {
			free(out->v);
			*out = (strv){ 0 };
			return false;
		}
		strv_push(out, s);
	}
	return true;
}

static bool read_action(reader *r, yaml_node_t *n, act *out)
{
	static const struct { const char *name; act_kind k; } map[] = {
		{ "SCMP_ACT_ALLOW", ACT_ALLOW }, { "SCMP_ACT_ERRNO", ACT_ERRNO },
		{ "SCMP_ACT_KILL", ACT_KILL }, { "SCMP_ACT_KILL_PROCESS", ACT_KILL },
		{ "SCMP_ACT_KILL_THREAD", ACT_KILL_THREAD }, { "SCMP_ACT_LOG", ACT_LOG },
	};
	const char *s = str(r, n, "action");
	if (!s)
		return false;
	out->text = s;
	out->err = EPERM;
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (!strcmp(map[i].name, s)) {
			out->kind = map[i].k;
			return true;
		}
	if (!strcmp(s, "SCMP_ACT_TRAP"))
		rerr(r, n, "SCMP_ACT_TRAP raises SIGSYS for a handler in the process; polc has no such "
		     "action (use kill, which no handler can catch, or deny errno)");
	else if (!strcmp(s, "SCMP_ACT_TRACE"))
		rerr(r, n, "SCMP_ACT_TRACE hands the syscall to a ptrace tracer; polc has no such action "
		     "(without a tracer the kernel fails it with ENOSYS: write deny errno ENOSYS)");
	else if (!strcmp(s, "SCMP_ACT_NOTIFY"))
		rerr(r, n, "SCMP_ACT_NOTIFY defers the decision to a user-space supervisor; polc cannot "
		     "express what that supervisor decides");
	else {
		static const char *const names[] = { "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL",
			"SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_LOG", "SCMP_ACT_TRAP",
			"SCMP_ACT_TRACE", "SCMP_ACT_NOTIFY" };
		const char *best = diag_closest(s, names, sizeof names / sizeof *names);
		if (best)
			rerr(r, n, "unknown action '%s'; did you mean '%s'?", s, best);
		else
			rerr(r, n, "unknown action '%s'", s);
	}
	return false;
}

static bool read_errno(reader *r, yaml_node_t *n, act *a)
{
	uint64_t v;
	if (!n)
		return true;
	if (!u64(r, n, "errnoRet", 4095, &v))
		return false;
	if (a->kind != ACT_ERRNO) {
		diag_warn(r->d, nloc(r, n), "errnoRet ignored: the action is %s, not SCMP_ACT_ERRNO",
			  a->text);
		return true;
	}
	if (v == 0) {
		rerr(r, n, "errnoRet 0 would make the syscall return success without running it; "
		     "polc cannot express that");
		return false;
	}
	a->err = (int)v;
	return true;
}

static bool read_kernel(reader *r, yaml_node_t *n, int *maj, int *min)
{
	const char *s = str(r, n, "minKernel");
	if (!s)
		return false;
	if (sscanf(s, "%d.%d", maj, min) != 2 || *maj < 0 || *min < 0) {
		rerr(r, n, "minKernel must look like \"4.8\"");
		return false;
	}
	return true;
}

static bool read_filter(reader *r, yaml_node_t *n, const char *what, filt *f)
{
	static const char *const keys[] = { "caps", "arches", "minKernel", NULL };
	yaml_node_t *v[3];
	if (!n || yaml_node_is_null(n))
		return true;
	if (!mapping(r, n, what, keys, v))
		return false;
	if (!read_strv(r, v[0], "caps", &f->caps) || !read_strv(r, v[1], "arches", &f->arches))
		return false;
	if (v[2] && !yaml_node_is_null(v[2])) {
		f->has_min = true;
		return read_kernel(r, v[2], &f->kmaj, &f->kmin);
	}
	return true;
}

static bool read_cond(reader *r, yaml_node_t *n, cond *c)
{
	static const char *const keys[] = { "index", "value", "valueTwo", "op", NULL };
	static const struct { const char *name, *op; } ops[] = {
		{ "SCMP_CMP_EQ", "==" }, { "SCMP_CMP_NE", "!=" }, { "SCMP_CMP_LT", "<" },
		{ "SCMP_CMP_LE", "<=" }, { "SCMP_CMP_GT", ">" }, { "SCMP_CMP_GE", ">=" },
		{ "SCMP_CMP_MASKED_EQ", "&" },
	};
	yaml_node_t *v[4];
	uint64_t idx;
	if (!mapping(r, n, "argument condition", keys, v))
		return false;
	if (!v[0] || !v[3]) {
		rerr(r, n, "an argument condition needs \"index\" and \"op\"");
		return false;
	}
	c->value = c->value2 = 0;
	if (!u64(r, v[0], "index", 5, &idx) || (v[1] && !u64(r, v[1], "value", UINT64_MAX, &c->value)) ||
	    (v[2] && !u64(r, v[2], "valueTwo", UINT64_MAX, &c->value2)))
		return false;
	c->index = (int)idx;
	const char *op = str(r, v[3], "op");
	if (!op)
		return false;
	for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(ops[i].name, op)) {
			c->op = ops[i].op;
			if (v[2] && c->op[0] != '&')
				diag_warn(r->d, nloc(r, v[2]), "valueTwo ignored: only SCMP_CMP_MASKED_EQ uses it");
			return true;
		}
	rerr(r, v[3], "unknown comparison '%s' (expected SCMP_CMP_EQ, _NE, _LT, _LE, _GT, _GE or _MASKED_EQ)", op);
	return false;
}

static bool read_entry(reader *r, yaml_node_t *n, entry *e)
{
	static const char *const keys[] = { "names", "name", "action", "errnoRet", "args",
					    "includes", "excludes", "comment", NULL };
	yaml_node_t *v[8];
	memset(e, 0, sizeof *e);
	e->line = (int)n->start_mark.line + 1;
	if (!mapping(r, n, "syscall entry", keys, v))
		return false;
	if (!read_strv(r, v[0], "names", &e->names))
		return false;
	if (v[1]) {
		const char *s = str(r, v[1], "name");
		if (!s)
			return false;
		strv_push(&e->names, s);
	}
	if (!v[2]) {
		rerr(r, n, "syscall entry without \"action\"");
		return false;
	}
	if (!read_action(r, v[2], &e->a) || !read_errno(r, v[3], &e->a))
		return false;
	yaml_node_item_t *b, *end;
	if (v[4] && !seq(r, v[4], "args", &b, &end))
		return false;
	if (v[4])
		for (; b < end; b++) {
			e->c = xrealloc(e->c, (e->nc + 1) * sizeof *e->c);
			if (!read_cond(r, node(r, *b), &e->c[e->nc++]))
				return false;
		}
	return read_filter(r, v[5], "includes", &e->inc) && read_filter(r, v[6], "excludes", &e->exc);
}

static void entry_free(entry *e)
{
	free(e->names.v);
	free(e->c);
	free(e->inc.caps.v);
	free(e->inc.arches.v);
	free(e->exc.caps.v);
	free(e->exc.arches.v);
}

/* ---- the target ---- */

typedef struct {
	const import_opts *o;
	strv caps;                 /* normalized "CAP_X" */
	char **capstore;
	int kmaj, kmin;
	unsigned arches;           /* the filter's ABIs */
	const char *label;         /* the entries' list, for comments: "syscalls" */
} target;

static const char *scmp_arch(ir_arch a)
{
	static const char *const n[] = { "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32" };
	return n[a];
}

static int arch_from_scmp(const char *s)
{
	for (int a = 0; a < IR_NARCH; a++)
		if (!strcmp(scmp_arch((ir_arch)a), s))
			return a;
	return -1;
}

/* Docker compares includes.arches with Go's GOARCH ("amd64", "386"). */
static bool host_arch_named(const target *t, const strv *arches)
{
	static const char *const names[IR_NARCH][3] = {
		{ "amd64", "x86_64", NULL }, { "386", "x86", "i386" }, { "x32", NULL, NULL } };
	for (int i = 0; i < 3 && names[t->o->host][i]; i++)
		if (strv_has(arches, names[t->o->host][i]))
			return true;
	return false;
}

static bool kernel_at_least(const target *t, int maj, int min)
{
	return t->kmaj > maj || (t->kmaj == maj && t->kmin >= min);
}

/* Why the entry does not apply to the target (static text), or NULL. The
 * order and the all-of/any-of rules are Docker's (profiles/seccomp). */
static const char *skip_reason(const target *t, const entry *e, char *why, size_t n)
{
	if (e->exc.arches.n && host_arch_named(t, &e->exc.arches))
		return snprintf(why, n, "excludes.arches names this arch"), why;
	if (e->inc.arches.n && !host_arch_named(t, &e->inc.arches))
		return snprintf(why, n, "includes.arches does not name this arch"), why;
	for (size_t i = 0; i < e->exc.caps.n; i++)
		if (strv_has(&t->caps, e->exc.caps.v[i]))
			return snprintf(why, n, "excludes.caps: %s is held", e->exc.caps.v[i]), why;
	for (size_t i = 0; i < e->inc.caps.n; i++)
		if (!strv_has(&t->caps, e->inc.caps.v[i]))
			return snprintf(why, n, "includes.caps: %s is not held", e->inc.caps.v[i]), why;
	if (e->exc.has_min && kernel_at_least(t, e->exc.kmaj, e->exc.kmin))
		return snprintf(why, n, "excludes.minKernel %d.%d", e->exc.kmaj, e->exc.kmin), why;
	if (e->inc.has_min && !kernel_at_least(t, e->inc.kmaj, e->inc.kmin))
		return snprintf(why, n, "includes.minKernel %d.%d", e->inc.kmaj, e->inc.kmin), why;
	return NULL;
}

static void target_init(target *t, const import_opts *o)
{
	memset(t, 0, sizeof *t);
	t->o = o;
	t->label = "syscalls";
	const char *const *caps = o->caps ? o->caps : import_docker_caps;
	size_t n = 0;
	if (o->caps)
		n = o->ncaps;
	else
		while (caps[n])
			n++;
	t->capstore = xcalloc(n + 1, sizeof *t->capstore);
	for (size_t i = 0; i < n; i++) {
		const char *c = caps[i];
		char *s = strncasecmp(c, "CAP_", 4) ? xasprintf("CAP_%s", c) : xstrdup(c);
		for (char *p = s; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		t->capstore[i] = s;
		strv_push(&t->caps, s);
	}
	t->kmaj = o->kmajor;
	t->kmin = o->kminor;
	struct utsname u;
	if (t->kmaj < 0 && (uname(&u) || sscanf(u.release, "%d.%d", &t->kmaj, &t->kmin) != 2))
		t->kmaj = t->kmin = 0;
}

static void target_free(target *t)
{
	for (size_t i = 0; t->capstore && t->capstore[i]; i++)
		free(t->capstore[i]);
	free(t->capstore);
	free(t->caps.v);
}

/* The ABIs of the filter: the host's archMap entry, or "architectures"
 * (libseccomp adds the native arch to every filter). */
static bool read_arches(reader *r, target *t, yaml_node_t *archmap, yaml_node_t *archs)
{
	t->arches = IR_ARCH_BIT(t->o->host);
	yaml_node_item_t *b, *e;
	if (archmap && !yaml_node_is_null(archmap)) {
		if (!seq(r, archmap, "archMap", &b, &e))
			return false;
		for (; b < e; b++) {
			static const char *const keys[] = { "architecture", "subArchitectures", NULL };
			yaml_node_t *v[2];
			strv subs = { 0 };
			if (!mapping(r, node(r, *b), "archMap entry", keys, v) || !v[0])
				return false;
			const char *a = str(r, v[0], "architecture");
			if (!a || !read_strv(r, v[1], "subArchitectures", &subs))
				return false;
			if (arch_from_scmp(a) == (int)t->o->host)
				for (size_t i = 0; i < subs.n; i++)
					if (arch_from_scmp(subs.v[i]) >= 0)
						t->arches |= IR_ARCH_BIT(arch_from_scmp(subs.v[i]));
			free(subs.v);
		}
	} else if (archs && !yaml_node_is_null(archs)) {
		strv l = { 0 };
		if (!read_strv(r, archs, "architectures", &l))
			return false;
		for (size_t i = 0; i < l.n; i++)
			if (arch_from_scmp(l.v[i]) >= 0)
				t->arches |= IR_ARCH_BIT(arch_from_scmp(l.v[i]));
		free(l.v);
	}
	if (t->o->arches) {
		for (int a = 0; a < IR_NARCH; a++)
			if ((t->o->arches & IR_ARCH_BIT(a)) && !(t->arches & IR_ARCH_BIT(a)))
				diag_warn(r->d, src_loc_none(), "--arch %s: the profile does not name %s for this "
					  "host; its syscalls stay denied", ir_arch_name((ir_arch)a),
					  scmp_arch((ir_arch)a));
		t->arches &= t->o->arches | IR_ARCH_BIT(t->o->host);
	}
	return true;
}

/* ---- printing ---- */

static void put_action(buf *out, const act *a)
{
	switch (a->kind) {
	case ACT_ALLOW: buf_puts(out, "allow"); break;
	case ACT_LOG: buf_puts(out, "audit"); break;
	case ACT_KILL: case ACT_KILL_THREAD: buf_puts(out, "kill"); break;
	case ACT_ERRNO: {
		const char *n = errno_name(a->err);
		if (n)
			buf_printf(out, "deny errno %s", n);
		else
			buf_printf(out, "deny errno %d", a->err);
		break;
	}
	}
}

static void put_num(buf *out, uint64_t v)
{
	if (v < 4096)
		buf_put_dec(out, (long long)v);
	else
		buf_printf(out, "0x%llx", (unsigned long long)v);
}

static void put_cond(buf *out, const cond *c)
{
	buf_printf(out, "arg%d ", c->index);
	if (c->op[0] == '&') {
		buf_puts(out, "& ");
		put_num(out, c->value);
		buf_puts(out, " == ");
		put_num(out, c->value2);
	} else {
		buf_printf(out, "%s ", c->op);
		put_num(out, c->value);
	}
}

/* "allow syscall a, b, c" wrapped at ~78 columns, then the condition. */
static void put_stmt(buf *out, const act *a, const strv *names, const cond *c, size_t nc)
{
	size_t start = out->len;
	buf_puts(out, "\t");
	put_action(out, a);
	buf_puts(out, " syscall");
	size_t col = out->len - start + 7;
	for (size_t i = 0; i < names->n; i++) {
		size_t w = strlen(names->v[i]) + 2;
		if (i && col + w > 78) {
			buf_puts(out, ",\n\t\t");
			col = 16;
		} else {
			buf_puts(out, i ? ", " : " ");
		}
		buf_puts(out, names->v[i]);
		col += w;
	}
	for (size_t i = 0; i < nc; i++) {
		buf_puts(out, i ? " && " : " if ");
		put_cond(out, &c[i]);
	}
	buf_puts(out, ";\n");
}

static bool known_somewhere(const target *t, const char *name)
{
	for (int a = 0; a < IR_NARCH; a++)
		if ((t->arches & IR_ARCH_BIT(a)) && sys_resolve((ir_arch)a, name) >= 0)
			return true;
	return false;
}

static bool same_index_twice(const entry *e)
{
	for (size_t i = 0; i < e->nc; i++)
		for (size_t j = i + 1; j < e->nc; j++)
			if (e->c[i].index == e->c[j].index)
				return true;
	return false;
}

static void emit_entry(const target *t, const entry *e, size_t idx, buf *out)
{
	char why[160];
	const char *skip = skip_reason(t, e, why, sizeof why);
	buf_puts(out, "\n\t# ");
	buf_puts(out, t->label);
	buf_puts(out, "[");
	buf_put_dec(out, (long long)idx);
	buf_puts(out, "] (line ");
	buf_put_dec(out, e->line);
	buf_puts(out, "): ");
	src_comment(out, e->a.text);
	if (e->a.kind == ACT_ERRNO)
		buf_printf(out, " %d", e->a.err);
	if (skip) {
		buf_printf(out, " -- skipped: %s\n", why);
		return;
	}
	buf_puts(out, "\n");
	if (e->a.kind == ACT_KILL_THREAD)
		buf_puts(out, "\t# KILL_THREAD kills only the calling thread; polc's kill kills the process\n");
	strv keep = { 0 }, gone = { 0 };
	for (size_t i = 0; i < e->names.n; i++)
		strv_push(known_somewhere(t, e->names.v[i]) ? &keep : &gone, e->names.v[i]);
	if (gone.n) {
		buf_puts(out, "\t# not a syscall of this filter's arches (libseccomp skips these too):");
		for (size_t i = 0; i < gone.n; i++)
			buf_printf(out, " %s", gone.v[i]);
		buf_puts(out, "\n");
	}
	if (keep.n && same_index_twice(e)) {
		/* libseccomp takes one comparison per argument in a rule; runc then
		 * adds every condition as a rule of its own (an OR). */
		buf_puts(out, "\t# several conditions on one argument: one statement each (an OR), as runc does\n");
		for (size_t i = 0; i < e->nc; i++)
			put_stmt(out, &e->a, &keep, &e->c[i], 1);
	} else if (keep.n) {
		put_stmt(out, &e->a, &keep, e->c, e->nc);
	}
	free(keep.v);
	free(gone.v);
}

static bool same_act(const act *a, const act *b)
{
	bool ka = a->kind == ACT_KILL || a->kind == ACT_KILL_THREAD;
	bool kb = b->kind == ACT_KILL || b->kind == ACT_KILL_THREAD;
	return (ka && kb) || (a->kind == b->kind && a->err == b->err);
}

/* Entries that name one syscall with different actions, one of them without
 * conditions, overlap: polc lets the most restrictive win, which is not how
 * libseccomp merges such rules. Say so where it happens. */
static void warn_overlaps(reader *r, const target *t, const entry *e, size_t n)
{
	char why[160];
	bool *skip = xcalloc(n + 1, sizeof *skip);   /* each entry's, once */
	for (size_t i = 0; i < n; i++)
		skip[i] = skip_reason(t, &e[i], why, sizeof why) != NULL;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (same_act(&e[i].a, &e[j].a) || (e[i].nc && e[j].nc) || skip[i] || skip[j])
				continue;
			for (size_t k = 0; k < e[j].names.n; k++)
				if (strv_has(&e[i].names, e[j].names.v[k])) {
					src_loc l = { r->f, e[j].line, 1 };
					diag_warn(r->d, l, "syscall '%s' is also in %s[%zu] (line %d) with "
						  "another action; polc applies the more restrictive of the two",
						  e[j].names.v[k], t->label, i, e[i].line);
					break;
				}
		}
	free(skip);
}

static char *policy_name(const char *path, const char *given)
{
	if (given)
		return xstrdup(given);
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *s = xstrdup(b);
	char *dot = strchr(s, '.');
	if (dot && dot != s)
		*dot = 0;
	for (char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			*p = '-';
	if (!isalpha((unsigned char)s[0]) && s[0] != '_') {
		char *t = xasprintf("imported-%s", s);
		free(s);
		s = t;
	}
	return s;
}

static void emit_header(const target *t, const src_file *f, const act *def, buf *out)
{
	src_import_header(out, NULL, f);
	buf_puts(out, "# Evaluated for: arch ");
	buf_puts(out, ir_arch_name(t->o->host));
	buf_printf(out, ", kernel %d.%d, caps", t->kmaj, t->kmin);
	for (size_t i = 0; i < t->caps.n; i++)
		buf_printf(out, "%s%s", i ? "," : " ", t->caps.v[i]);
	if (!t->caps.n)
		buf_puts(out, " (none)");
	buf_puts(out, ".\n# defaultAction ");
	src_comment(out, def->text);
	if (def->kind == ACT_ERRNO)
		buf_printf(out, " (errno %d)", def->err);
	buf_puts(out, "; polc fails syscalls unknown to its table with ENOSYS under a deny default,\n"
		      "# as runc's ENOSYS stub does for syscalls newer than the profile.\n");
}

typedef struct {
	yaml_node_t *v[7];
} toplevel;

static int emit(reader *r, target *t, const char *path, const import_opts *o, toplevel *top,
		buf *out)
{
	act def = { ACT_ALLOW, EPERM, "SCMP_ACT_ALLOW" };
	yaml_node_t **v = top->v;
	if (!v[0]) {
		diag_error(r->d, nloc(r, yaml_document_get_root_node(r->doc)), "profile without \"defaultAction\"");
		return -1;
	}
	if (!read_action(r, v[0], &def))
		return -1;
	if (v[1] && def.kind == ACT_ERRNO && !read_errno(r, v[1], &def))
		return -1;
	if (v[5] && !yaml_node_is_null(v[5]))
		diag_warn(r->d, nloc(r, v[5]), "\"flags\" ignored: polc chooses the filter flags itself");
	if (!read_arches(r, t, v[2], v[3]))
		return -1;
	yaml_node_item_t *b = NULL, *e = NULL;
	if (v[4] && !seq(r, v[4], "syscalls", &b, &e))
		return -1;
	size_t n = (size_t)(e - b);
	entry *ents = xcalloc(n + 1, sizeof *ents);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (!read_entry(r, node(r, b[i]), &ents[i]))
			rc = -1;
	if (rc == 0)
		warn_overlaps(r, t, ents, n);
	char *name = policy_name(path, o->name);
	if (!src_valid_name(name)) {
		diag_error(r->d, src_loc_none(), "--name '%s' is not a polc name ([A-Za-z_][A-Za-z0-9_-]*)", name);
		rc = -1;
	}
	if (rc == 0) {
		emit_header(t, r->f, &def, out);
		buf_printf(out, "policy %s {\n", name);
		buf_puts(out, "\tarch");
		for (int a = 0, k = 0; a < IR_NARCH; a++)
			if (t->arches & IR_ARCH_BIT(a))
				buf_printf(out, "%s %s", k++ ? "," : "", ir_arch_name((ir_arch)a));
		buf_puts(out, ";\n\tdefault ");
		put_action(out, &def);
		buf_puts(out, " syscall;\n");
		for (size_t i = 0; i < n; i++)
			emit_entry(t, &ents[i], i, out);
		buf_puts(out, "}\n");
	}
	for (size_t i = 0; i < n; i++)
		entry_free(&ents[i]);
	free(ents);
	free(name);
	return rc;
}

static int import_src(src_file *f, const void *opts, diag_ctx *d, buf *out)
{
	const import_opts *o = opts;
	reader r;
	memset(&r, 0, sizeof r);
	r.d = d;
	r.f = f;
	const char *problem, *context;
	yaml_mark_t m;
	import_doc doc;
	if (!json_or_yaml_load(f->text, f->len, &doc, &problem, &context, &m)) {
		diag_error(d, mark_loc(&r, m), "cannot read the profile: %s%s%s", problem,
			   context ? " " : "", context ? context : "");
		return -1;
	}
	r.doc = &doc.doc;
	int rc = -1;
	yaml_node_t *root = yaml_document_get_root_node(r.doc);
	static const char *const keys[] = { "defaultAction", "defaultErrnoRet", "archMap",
		"architectures", "syscalls", "flags", "listenerPath", "listenerMetadata", NULL };
	toplevel top;
	yaml_node_t *v[8];
	if (!root) {
		src_loc l1 = { f, 1, 1 };
		diag_error(d, l1, "empty profile");
	} else if (mapping(&r, root, "profile", keys, v)) {
		if (v[6] && !yaml_node_is_null(v[6]))
			diag_warn(d, nloc(&r, v[6]), "listenerPath ignored: NOTIFY is not imported");
		memcpy(top.v, v, sizeof top.v);
		target t;
		target_init(&t, o);
		rc = emit(&r, &t, f->path, o, &top, out);
		target_free(&t);
	}
	import_doc_free(&doc);
	return rc;
}

int import_oci_text(const char *path, const char *text, size_t len, const import_opts *o,
		    diag_ctx *d, buf *out)
{
	return src_import(diag_add_text(d, path, text, len, false), import_src, o, d, out);
}

int import_oci_file(const char *path, const import_opts *o, diag_ctx *d, buf *out)
{
	return src_import(diag_read_file(d, path, src_loc_none()), import_src, o, d, out);
}

int import_oci_syscalls(yaml_document_t *doc, yaml_node_t *list, src_file *f,
			const import_opts *o, const char *label, diag_ctx *d, buf *out)
{
	reader r;
	memset(&r, 0, sizeof r);
	r.d = d;
	r.f = f;
	r.doc = doc;               /* the caller's */
	r.yaml_ints = true;        /* a YAML policy's entries, not OCI JSON */
	yaml_node_item_t *b, *e;
	if (!seq(&r, list, label, &b, &e))
		return -1;
	size_t n = (size_t)(e - b);
	entry *ents = xcalloc(n + 1, sizeof *ents);
	int rc = 0;
	for (size_t i = 0; i < n; i++)
		if (!read_entry(&r, node(&r, b[i]), &ents[i]))
			rc = -1;
	target t;
	target_init(&t, o);
	t.label = label;
	/* no profile to name ABIs: the host's, and those asked for */
	t.arches = IR_ARCH_BIT(o->host) | o->arches;
	if (rc == 0) {
		warn_overlaps(&r, &t, ents, n);
		for (size_t i = 0; i < n; i++)
			emit_entry(&t, &ents[i], i, out);
	}
	for (size_t i = 0; i < n; i++)
		entry_free(&ents[i]);
	free(ents);
	target_free(&t);
	return rc;
}
