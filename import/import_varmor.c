/* import_varmor.c - a vArmor policy -> polc source (import_varmor.h).
 *
 * One pass over the libyaml document: each list of the enhanceProtect
 * section appends statements (or `use`s) to the policy's body, with a
 * comment naming where they came from; the header and the preset are
 * written around the body at the end, when every error is known.
 * Field names follow vArmor's CRD (apis/varmor/v1beta1): the current layout
 * (appArmorRawRules as {rules, targets}, bpfRawRules.network.{sockets,
 * egress}, enhanceProtect.privileged) and the older one (appArmorRawRules
 * as strings, spec.policy.privileged).
 */
#include "import_varmor.h"
#include "source.h"
#include "yaml_node.h"
#include "../compiler/compile.h"
#include "../compiler/consts.h"
#include "../compiler/glob.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct {
	const char **v;
	size_t n, cap;
} names;

typedef struct {
	diag_ctx *d;
	src_file *f;
	yaml_document_t doc;
	const varmor_opts *o;
	int nerr;
	buf body;                  /* the policy's statements */
	names used;                /* rules `use`d so far */
	diag_ctx libd;             /* the rule library, for its names */
	ir_program lib;
	bool have_lib, privileged;
	const char *verb;          /* a bpfRawRules entry's verdict: its qualifiers */
} vr;

/* ---- YAML access ---- */

static src_loc loc_of(vr *r, yaml_node_t *n)
{
	src_loc l = { r->f, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1 };
	return l;
}

#define verr(r, n, ...) (diag_error((r)->d, loc_of((r), (n)), __VA_ARGS__), (r)->nerr++)

static yaml_node_t *nd(vr *r, int id)
{
	return yaml_document_get_node(&r->doc, id);
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static yaml_node_t *get(vr *r, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = scalar(nd(r, p->key));
		if (k && !strcmp(k, key))
			return nd(r, p->value);
	}
	return NULL;
}

/* Warn about keys vArmor does not define here (a typo drops a rule list). */
static void check_keys(vr *r, yaml_node_t *map, const char *what, const char *const *keys)
{
	size_t nk = 0;
	while (keys[nk])
		nk++;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = nd(r, p->key);
		const char *ks = scalar(k) ? scalar(k) : "";
		size_t i = 0;
		while (i < nk && strcmp(keys[i], ks))
			i++;
		if (i < nk)
			continue;
		const char *best = diag_closest(ks, keys, nk);
		if (best)
			diag_warn(r->d, loc_of(r, k), "unknown key '%s' in %s ignored; did you mean '%s'?",
				  ks, what, best);
		else
			diag_warn(r->d, loc_of(r, k), "unknown key '%s' in %s ignored", ks, what);
	}
}

/* A bpfRawRules entry's qualifiers as its polc verdict: none or `deny`
 * (with or without `audit`) deny, `audit` alone only logs (vArmor's audit
 * mode for that rule: allowed, logged), so it is polc's `audit`. */
static bool want_seq(vr *r, yaml_node_t *n, const char *what, yaml_node_item_t **b,
		     yaml_node_item_t **e);

static bool qualify(vr *r, yaml_node_t *n, const char *what)
{
	r->verb = "deny";
	yaml_node_t *q = get(r, n, "qualifiers");
	yaml_node_item_t *b, *e;
	if (!q || yaml_node_is_null(q))
		return true;
	if (!want_seq(r, q, "qualifiers", &b, &e))
		return false;
	bool audit = false, deny = false;
	for (; b < e; b++) {
		const char *w = scalar(nd(r, *b));
		if (w && !strcmp(w, "audit"))
			audit = true;
		else if (w && !strcmp(w, "deny"))
			deny = true;
		else {
			verr(r, nd(r, *b), "%s: unknown qualifier '%s' (audit, deny)", what, w ? w : "?");
			return false;
		}
	}
	if (audit && !deny)
		r->verb = "audit";
	return true;
}

static bool want_map(vr *r, yaml_node_t *n, const char *what)
{
	if (n->type == YAML_MAPPING_NODE)
		return true;
	verr(r, n, "%s must be a mapping", what);
	return false;
}

static const char *want_str(vr *r, yaml_node_t *n, const char *what)
{
	if (n->type == YAML_SCALAR_NODE && !yaml_node_is_null(n))
		return scalar(n);
	verr(r, n, "%s must be a string", what);
	return NULL;
}

/* A list's items (null or absent: none). */
static bool want_seq(vr *r, yaml_node_t *n, const char *what, yaml_node_item_t **b,
		     yaml_node_item_t **e)
{
	*b = *e = NULL;
	if (yaml_node_is_null(n))
		return true;
	if (n->type != YAML_SEQUENCE_NODE) {
		verr(r, n, "%s must be a list", what);
		return false;
	}
	*b = n->data.sequence.items.start;
	*e = n->data.sequence.items.top;
	return true;
}

static bool want_bool(vr *r, yaml_node_t *n, const char *what, bool *out)
{
	const char *s = n ? scalar(n) : NULL;
	*out = false;
	if (!n || yaml_node_is_null(n))
		return true;
	if (s && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (!strcmp(s, "true") || !strcmp(s, "false"))) {
		*out = !strcmp(s, "true");
		return true;
	}
	verr(r, n, "%s must be true or false", what);
	return false;
}

/* ---- output ---- */

/* A comment line naming a rule's origin; only printable ASCII of `what`. */
static void comment(vr *r, const char *what, int line)
{
	buf_puts(&r->body, "\n\t# ");
	src_comment(&r->body, what);
	buf_printf(&r->body, " (line %d)\n", line);
}

/* A custom rule that does not map exactly: an error, or (allow_partial) a
 * warning and a comment in its place. */
static void unmapped(vr *r, src_loc l, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void unmapped(vr *r, src_loc l, const char *what, const char *fmt, ...)
{
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (r->o->allow_partial) {
		diag_warn(r->d, l, "%s not imported: %s", what, why);
		char *line = xasprintf("not imported (line %d): %s: %s", l.line, what, why);
		buf_puts(&r->body, "\t# ");
		src_comment(&r->body, line);
		buf_puts(&r->body, "\n");
		free(line);
	} else {
		diag_error(r->d, l, "cannot import %s: %s (--allow-partial keeps it as a comment)",
			   what, why);
		r->nerr++;
	}
}

/* ---- built-in rules ---- */

static const struct { const char *varmor, *polc; } aliases[] = {
	{ "disallow-load-ebpf", "disallow-load-bpf-prog" },     /* vArmor's old id */
	{ "disable-cap-privileged", "disable-cap-privilege" },
	{ "block-access-to-metadata-service", "disallow-metadata-service" },
	{ "disable-ipv4", "disable-inet" },                     /* vArmor's second names */
	{ "disable-ipv6", "disable-inet6" },
};

static const struct { const char *name, *why; } not_in_library[] = {
	{ "ingress-nightmare-mitigation", "it blocks ingress-nginx's admission service, whose "
	  "addresses vArmor looks up in the cluster; write `deny network connect to ADDRESS` "
	  "statements for them" },
	{ "block-access-to-kube-apiserver", "it blocks the ClusterIP and the endpoints of the "
	  "kubernetes Service in the default namespace, which vArmor looks up in the cluster; "
	  "write `deny network connect to ADDRESS` statements for them" },
};

static bool load_library(vr *r)
{
	if (!r->have_lib) {
		diag_init(&r->libd);
		if (polc_compile_library(&r->libd, &r->lib) < 0) {
			diag_print(&r->libd, stderr, false);
			diag_free(&r->libd);
			diag_error(r->d, src_loc_none(), "the rule library does not compile");
			r->nerr++;
			return false;
		}
		r->have_lib = true;
	}
	return true;
}

static void unknown_rule(vr *r, yaml_node_t *n, const char *name)
{
	for (size_t i = 0; i < sizeof not_in_library / sizeof *not_in_library; i++)
		if (!strcmp(name, not_in_library[i].name)) {
			verr(r, n, "vArmor's built-in rule '%s' has no polc equivalent: %s", name,
			     not_in_library[i].why);
			return;
		}
	const char **cands = xcalloc(r->lib.nrules + 1, sizeof *cands);
	size_t nc = 0;
	for (size_t i = 0; i < r->lib.nrules; i++)
		if (r->lib.rules[i]->builtin)
			cands[nc++] = r->lib.rules[i]->name;
	const char *best = diag_closest(name, cands, nc);
	if (best)
		verr(r, n, "unknown built-in rule '%s'; did you mean '%s'? (polc rules lists them)",
		     name, best);
	else
		verr(r, n, "unknown built-in rule '%s' (polc rules lists the library)", name);
	free(cands);
}

/* `use` the library rules a list names, on one wrapped line. */
static void use_rules(vr *r, yaml_node_t *list, const char *what)
{
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, what, &b, &e) || !load_library(r))
		return;
	names now = { 0 };
	for (; b < e; b++) {
		yaml_node_t *n = nd(r, *b);
		const char *name = want_str(r, n, what);
		if (!name)
			continue;
		for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
			if (!strcmp(name, aliases[i].varmor))
				name = aliases[i].polc;
		const ir_rule *rule = ir_program_rule(&r->lib, name);
		if (!rule || !rule->builtin) {
			unknown_rule(r, n, name);
			continue;
		}
		bool dup = false;
		for (size_t i = 0; i < r->used.n && !dup; i++)
			dup = !strcmp(r->used.v[i], rule->name);
		if (dup)
			continue;
		xgrow(&r->used.v, &r->used.cap, r->used.n + 1, sizeof *r->used.v);
		r->used.v[r->used.n++] = rule->name;
		xgrow(&now.v, &now.cap, now.n + 1, sizeof *now.v);
		now.v[now.n++] = rule->name;
	}
	size_t col = 0;
	for (size_t i = 0; i < now.n; i++) {
		size_t w = strlen(now.v[i]) + 2;
		if (!i) {
			buf_puts(&r->body, "\tuse ");
			col = 12;
		} else if (col + w > 78) {
			buf_puts(&r->body, ",\n\t\t");
			col = 16;
		} else {
			buf_puts(&r->body, ", ");
		}
		buf_puts(&r->body, now.v[i]);
		col += w;
	}
	if (now.n)
		buf_puts(&r->body, ";\n");
	free(now.v);
}

/* `targets` scope rules to executables (AppArmor child profiles); polc's
 * rules hold for the whole container. Returns false to skip the rules. */
static bool whole_container(vr *r, yaml_node_t *targets, const char *what)
{
	yaml_node_item_t *b, *e;
	if (!targets || !want_seq(r, targets, "targets", &b, &e) || b == e)
		return true;
	if (!r->o->allow_partial) {
		verr(r, targets, "%s.targets: polc has no rules for single executables (vArmor "
		     "confines only these with AppArmor child profiles); --allow-partial applies "
		     "the rules to the whole container, which is stricter", what);
		return false;
	}
	diag_warn(r->d, loc_of(r, targets), "%s.targets: the rules apply to the whole container, "
		  "not only to these executables", what);
	buf_puts(&r->body, "\t# vArmor applies these only to");
	for (; b < e; b++) {
		const char *s = scalar(nd(r, *b));
		buf_puts(&r->body, " ");
		for (const char *c = s ? s : "?"; *c; c++)
			if (isprint((unsigned char)*c) && *c != '\n')
				buf_put(&r->body, c, 1);
		if (b + 1 < e)
			buf_puts(&r->body, ",");
	}
	buf_puts(&r->body, "; here the whole container\n");
	return true;
}

static void attack_protection(vr *r, yaml_node_t *list)
{
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, "attackProtectionRules", &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[64];
		snprintf(what, sizeof what, "attackProtectionRules[%zu]", i);
		if (!want_map(r, n, what))
			continue;
		static const char *const keys[] = { "rules", "targets", NULL };
		check_keys(r, n, what, keys);
		comment(r, what, loc_of(r, n).line);
		if (whole_container(r, get(r, n, "targets"), what) && get(r, n, "rules"))
			use_rules(r, get(r, n, "rules"), what);
	}
}

/* ---- paths ---- */

/* AppArmor variables in a path: the kernel's (tunables/kernelvars) */
static const struct { const char *var, *value; } aa_vars[] = {
	{ "@{PROC}", "/proc" }, { "@{sys}", "/sys" },
	{ "@{pid}", "{[1-9],[1-9][0-9],[1-9][0-9][0-9],[1-9][0-9][0-9][0-9],[1-9][0-9][0-9][0-9][0-9],"
		    "[1-9][0-9][0-9][0-9][0-9][0-9],[1-4][0-9][0-9][0-9][0-9][0-9][0-9]}" },
	{ "@{pids}", "{[1-9],[1-9][0-9],[1-9][0-9][0-9],[1-9][0-9][0-9][0-9],[1-9][0-9][0-9][0-9][0-9],"
		     "[1-9][0-9][0-9][0-9][0-9][0-9],[1-4][0-9][0-9][0-9][0-9][0-9][0-9]}" },
};

/* A pattern as a polc glob (caller frees), or NULL with *why set. */
static char *to_glob(const char *pat, bool aa, const char **why)
{
	buf b;
	buf_init(&b);
	/* vArmor's "**" matches across '/', so "**ping" is every path ending
	 * in "ping": the same as "/" "**ping" for the absolute paths checked */
	if (!strncmp(pat, "**", 2))
		buf_puts(&b, "/");
	for (const char *s = pat; *s;) {
		if (aa && s[0] == '@' && s[1] == '{') {
			size_t i = 0;
			while (i < sizeof aa_vars / sizeof *aa_vars &&
			       strncmp(s, aa_vars[i].var, strlen(aa_vars[i].var)))
				i++;
			if (i == sizeof aa_vars / sizeof *aa_vars) {
				*why = "an AppArmor variable other than @{PROC}, @{sys}, @{pid} and @{pids}";
				buf_free(&b);
				return NULL;
			}
			buf_puts(&b, aa_vars[i].value);
			s += strlen(aa_vars[i].var);
			if (*s == '/' && b.len && b.data[b.len - 1] == '/')
				s++;
		} else {
			buf_put(&b, s++, 1);
		}
	}
	char *g = buf_cstr(&b);
	size_t pos;
	bool ctl = false;
	for (const char *c = g; *c; c++)
		ctl |= (unsigned char)*c < 0x20 || *c == 0x7f;
	if (ctl) {
		*why = "the pattern has a control character";
	} else if (g[0] != '/') {
		*why = "the pattern is not an absolute path";
	} else if ((*why = glob_validate(g, &pos)) == NULL) {
		return g;
	}
	buf_free(&b);
	return NULL;
}

/* ---- appArmorRawRules ---- */

typedef struct {
	char *v[24];
	size_t n;
} toks;

/* Split one rule into words: quoted strings and (...) groups are one word
 * (with what is glued to them: fstype=(a,b)). */
static bool tokenize(char *s, toks *t)
{
	t->n = 0;
	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (t->n == sizeof t->v / sizeof *t->v)
			return false;
		t->v[t->n++] = s;
		while (*s && !isspace((unsigned char)*s)) {
			if (*s == '"' || *s == '(') {
				char close = *s == '"' ? '"' : ')';
				for (s++; *s && *s != close; s++)
					if (close == '"' && *s == '\\' && s[1])
						s++;
				if (!*s)
					return false;
			}
			s++;
		}
		if (*s)
			*s++ = 0;
	}
	return true;
}

static char *unquote(char *w)
{
	size_t n = strlen(w);
	if (n < 2 || w[0] != '"' || w[n - 1] != '"')
		return w;
	w[n - 1] = 0;
	char *o = w, *i = w + 1;
	for (; *i; i++) {
		if (*i == '\\' && i[1])
			i++;
		*o++ = *i;
	}
	*o = 0;
	return w;
}

typedef struct {
	vr *r;
	src_loc l;
	const char *what;
	const char *act;           /* "deny", "allow", "audit" */
	buf out;
} aa_rule;

/* rwalkm and the x modes as polc perms; NULL when a letter is foreign. */
static const char *file_perms(const char *w, unsigned *pm)
{
	*pm = 0;
	for (const char *c = w; *c; c++) {
		switch (*c) {
		case 'r': *pm |= IR_PERM_READ; break;
		case 'w': *pm |= IR_PERM_WRITE | IR_PERM_APPEND; break;
		case 'a': *pm |= IR_PERM_APPEND; break;
		case 'l': *pm |= IR_PERM_LINK; break;
		case 'k': *pm |= IR_PERM_LOCK; break;
		case 'm': *pm |= IR_PERM_MMAP; break;
		case 'x': *pm |= IR_PERM_EXEC; break;
		case 'i': case 'p': case 'c': case 'u': case 'P': case 'C': case 'U':
			if (!strchr(c, 'x'))
				return "an exec mode without x";
			break;
		default:
			return "an access letter polc has no permission for";
		}
	}
	return *pm ? NULL : "no access letters";
}

static bool perms_word(const char *w)
{
	unsigned pm;
	return *w && !file_perms(w, &pm);
}

static void put_perms(buf *b, unsigned pm)
{
	static const struct { unsigned bit; const char *name; } n[] = {
		{ IR_PERM_READ, "read" }, { IR_PERM_WRITE, "write" }, { IR_PERM_APPEND, "append" },
		{ IR_PERM_MMAP, "mmap" }, { IR_PERM_LINK, "link" }, { IR_PERM_LOCK, "lock" },
	};
	bool first = true;
	for (size_t i = 0; i < sizeof n / sizeof *n; i++)
		if (pm & n[i].bit) {
			buf_printf(b, "%s%s", first ? " " : ", ", n[i].name);
			first = false;
		}
}

/* PATH PERMS (or PERMS PATH). Execute access becomes the exec domain. */
static const char *aa_file(aa_rule *a, char **w, size_t n)
{
	if (n == 0) {                  /* bare `file,`: every path, every access */
		static char all[] = "/{,**}", rw[] = "rwamlkx";
		char *v[2] = { all, rw };
		return aa_file(a, v, 2);
	}
	if (n != 2)
		return n > 2 && !strcmp(w[2], "->") ? "link rules have no polc equivalent"
						    : "a file rule polc cannot read";
	char *path = w[0], *perms = w[1];
	if (!(w[0][0] == '/' || w[0][0] == '"' || w[0][0] == '@')) {
		path = w[1];
		perms = w[0];
	}
	unsigned pm;
	const char *why = file_perms(perms, &pm);
	if (why)
		return why;
	char *g = to_glob(unquote(path), true, &why);
	if (!g)
		return why;
	if (pm & ~IR_PERM_EXEC) {
		buf_printf(&a->out, "\t%s file ", a->act);
		src_string(&a->out, g);
		put_perms(&a->out, pm & ~IR_PERM_EXEC);
		buf_puts(&a->out, ";\n");
	}
	if (pm & IR_PERM_EXEC) {
		buf_printf(&a->out, "\t%s exec ", a->act);
		src_string(&a->out, g);
		buf_puts(&a->out, ";\n");
	}
	free(g);
	return NULL;
}

static const char *aa_capability(aa_rule *a, char **w, size_t n)
{
	buf_printf(&a->out, "\t%s capability", a->act);
	if (!n)
		buf_puts(&a->out, " all");
	for (size_t i = 0; i < n; i++) {
		if (cap_from_name(w[i]) < 0)
			return "a capability this build does not know";
		buf_printf(&a->out, "%s %s", i ? "," : "", w[i]);
	}
	buf_puts(&a->out, ";\n");
	return NULL;
}

/* An address family as polc writes it (AF_ name, lower case), or NULL. */
static bool family_word(const char *w)
{
	char up[64];
	long long v;
	if (strlen(w) + 4 >= sizeof up || !strcmp(w, "unspec") || !strcmp(w, "max"))
		return false;
	snprintf(up, sizeof up, "AF_%s", w);
	for (char *p = up; *p; p++)
		*p = (char)toupper((unsigned char)*p);
	for (const char *p = w; *p; p++)
		if (!islower((unsigned char)*p) && !isdigit((unsigned char)*p))
			return false;
	return consts_lookup(up, &v) && v > 0 && v < 64;
}

static bool proto_word(const char *w)
{
	return !strcmp(w, "tcp") || !strcmp(w, "udp") || !strcmp(w, "raw") || !strcmp(w, "icmp");
}

static const char *aa_network(aa_rule *a, char **w, size_t n)
{
	const char *fam = NULL, *proto = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!fam && family_word(w[i]))
			fam = w[i];
		else if (!proto && proto_word(w[i]))
			proto = w[i];
		else if (!strcmp(w[i], "stream") || !strcmp(w[i], "dgram") || !strcmp(w[i], "seqpacket") ||
			 !strcmp(w[i], "rdm") || !strcmp(w[i], "packet"))
			return "polc names protocols (tcp, udp, raw, icmp), not socket types";
		else
			return "a network rule polc cannot read (addresses, peers or permissions)";
	}
	buf_printf(&a->out, "\t%s network%s%s%s%s;\n", a->act, fam ? " " : "", fam ? fam : "",
		   proto ? " " : "", proto ? proto : "");
	return NULL;
}

/* mount [fstype=X|fstype=(X,Y)] [-> TARGET] */
static const char *aa_mount(aa_rule *a, char **w, size_t n)
{
	buf fs;
	buf_init(&fs);
	char *target = NULL;
	const char *why = NULL;
	for (size_t i = 0; i < n && !why; i++) {
		if (!strncmp(w[i], "fstype=", 7)) {
			char *v = w[i] + 7;
			if (*v == '(') {
				v++;
				v[strcspn(v, ")")] = 0;
			}
			for (char *save = NULL, *t = strtok_r(v, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
				if (!src_valid_name(t))
					why = "an fstype polc cannot name";
				buf_printf(&fs, "%s%s", fs.len ? ", " : "", t);
			}
		} else if (!strcmp(w[i], "->") && i + 1 < n) {
			target = w[++i];
		} else {
			why = "mount options and sources have no polc equivalent (polc matches the "
			      "fstype and the mount point)";
		}
	}
	char *g = NULL;
	if (!why && target && !(g = to_glob(unquote(target), true, &why))) {
		buf_free(&fs);
		return why;
	}
	if (!why) {
		buf_printf(&a->out, "\t%s mount", a->act);
		if (fs.len)
			buf_printf(&a->out, " fstype %s", buf_cstr(&fs));
		if (g) {
			buf_puts(&a->out, " on ");
			src_string(&a->out, g);
		}
		buf_puts(&a->out, ";\n");
	}
	free(g);
	buf_free(&fs);
	return why;
}

static const char *aa_umount(aa_rule *a, const char *kind, char **w, size_t n)
{
	const char *why = NULL;
	char *g = NULL;
	if (n > 1 || (n == 1 && !strcmp(kind, "pivot_root")))
		return "only a bare pivot_root or `umount [PATH]` maps";
	if (n == 1 && !(g = to_glob(unquote(w[0]), true, &why)))
		return why;
	buf_printf(&a->out, "\t%s %s", a->act, kind);
	if (g) {
		buf_puts(&a->out, " on ");
		src_string(&a->out, g);
	}
	buf_puts(&a->out, ";\n");
	free(g);
	return NULL;
}

static const char *aa_ptrace(aa_rule *a, char **w, size_t n)
{
	bool rd = false, tr = false;
	for (size_t i = 0; i < n; i++) {
		if (!strncmp(w[i], "peer=", 5))
			return "ptrace peers have no polc equivalent";
		char *v = w[i];
		if (*v == '(') {
			v++;
			v[strcspn(v, ")")] = 0;
		}
		for (char *save = NULL, *t = strtok_r(v, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
			if (!strcmp(t, "read"))
				rd = true;
			else if (!strcmp(t, "trace"))
				tr = true;
			else
				return "only the read and trace modes map (polc restricts what the "
				       "workload does, not what is done to it)";
		}
	}
	buf_printf(&a->out, "\t%s ptrace%s;\n", a->act, rd && !tr ? " read" : tr && !rd ? " trace" : "");
	return NULL;
}

static const char *aa_rule_words(aa_rule *a, char **w, size_t n)
{
	size_t i = 0;
	bool deny = false, audit = false, allow = false;
	for (; i < n; i++) {
		if (!strcmp(w[i], "deny"))
			deny = true;
		else if (!strcmp(w[i], "audit"))
			audit = true;
		else if (!strcmp(w[i], "allow"))
			allow = true;
		else if (!strcmp(w[i], "owner") || !strncmp(w[i], "priority=", 9))
			return "owner and priority qualifiers have no polc equivalent";
		else
			break;
	}
	if (deny && allow)
		return "deny and allow together";
	/* `audit deny` denies and logs: polc's deny (the log is the kernel's) */
	a->act = deny ? "deny" : audit ? "audit" : "allow";
	if (i == n)
		return "an empty rule";
	const char *k = w[i++];
	char **rest = w + i;
	size_t nr = n - i;
	if (!strcmp(k, "file"))
		return aa_file(a, rest, nr);
	if (k[0] == '/' || k[0] == '"' || k[0] == '@' || (perms_word(k) && nr == 1))
		return aa_file(a, w + i - 1, nr + 1);
	if (!strcmp(k, "capability"))
		return aa_capability(a, rest, nr);
	if (!strcmp(k, "network"))
		return aa_network(a, rest, nr);
	if (!strcmp(k, "mount"))
		return aa_mount(a, rest, nr);
	if (!strcmp(k, "umount") || !strcmp(k, "pivot_root"))
		return aa_umount(a, k, rest, nr);
	if (!strcmp(k, "ptrace"))
		return aa_ptrace(a, rest, nr);
	if (!strcmp(k, "signal"))
		return nr ? "signal rules with sets or peers have no polc equivalent" :
		       (buf_printf(&a->out, "\t%s signal;\n", a->act), NULL);
	return "this kind of AppArmor rule has no polc equivalent";
}

/* The source column of line `line`'s first non-blank character. */
static int first_col(vr *r, int line)
{
	const char *s = r->f->text;
	for (int l = 1; l < line && s; l++) {
		s = strchr(s, '\n');
		s = s ? s + 1 : NULL;
	}
	if (!s)
		return 1;
	int col = 1;
	while (*s == ' ' || *s == '\t')
		s++, col++;
	return col;
}

static void aa_one(vr *r, src_loc l, char *line, const char *what)
{
	/* a comment outside quotes ends the rule */
	bool q = false;
	for (char *c = line; *c; c++) {
		if (*c == '"')
			q = !q;
		else if (*c == '#' && !q) {
			*c = 0;
			break;
		}
	}
	size_t n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		line[--n] = 0;
	char *start = line;
	while (isspace((unsigned char)*start))
		start++;
	if (!*start)
		return;
	char label[200];
	snprintf(label, sizeof label, "%s rule '%.120s'", what, start);
	if (line[n - 1] != ',') {
		unmapped(r, l, label, "an AppArmor rule ends with ','");
		return;
	}
	line[n - 1] = 0;
	toks t;
	aa_rule a = { r, l, what, "deny", { 0 } };
	buf_init(&a.out);
	const char *why = !tokenize(start, &t) ? "a rule polc cannot split into words" :
			  aa_rule_words(&a, t.v, t.n);
	if (why)
		unmapped(r, l, label, "%s", why);
	else
		buf_put(&r->body, a.out.data, a.out.len);
	buf_free(&a.out);
}

/* One rules string: a rule per line (literal block: exact lines). */
static void aa_rules(vr *r, yaml_node_t *n, const char *what)
{
	const char *s = want_str(r, n, what);
	if (!s)
		return;
	bool literal = n->data.scalar.style == YAML_LITERAL_SCALAR_STYLE;
	int line = loc_of(r, n).line + (literal ? 1 : 0);
	char *copy = xstrdup(s);
	for (char *p = copy, *ln; (ln = strsep(&p, "\n")); line += literal) {
		src_loc l = loc_of(r, n);
		if (literal) {
			l.line = line;
			l.col = first_col(r, line);
		}
		aa_one(r, l, ln, what);
	}
	free(copy);
}

static void apparmor_raw(vr *r, yaml_node_t *list)
{
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, "appArmorRawRules", &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[64];
		snprintf(what, sizeof what, "appArmorRawRules[%zu]", i);
		comment(r, what, loc_of(r, n).line);
		if (n->type == YAML_SCALAR_NODE) {        /* the older CRD: one rule */
			aa_rules(r, n, what);
			continue;
		}
		if (!want_map(r, n, what))
			continue;
		static const char *const keys[] = { "rules", "targets", NULL };
		check_keys(r, n, what, keys);
		yaml_node_t *rules = get(r, n, "rules");
		if (!rules) {
			verr(r, n, "%s without \"rules\"", what);
			continue;
		}
		if (whole_container(r, get(r, n, "targets"), what))
			aa_rules(r, rules, what);
	}
}

/* ---- bpfRawRules ---- */

/* Open the bpfRawRules entry n (named what): a mapping with these keys
 * (others warned about), its qualifiers made r->verb, the comment naming
 * it written. false after an error: skip the entry. */
static bool bpf_entry(vr *r, yaml_node_t *n, const char *what, const char *const *keys)
{
	if (!want_map(r, n, what))
		return false;
	check_keys(r, n, what, keys);
	if (!qualify(r, n, what))
		return false;
	comment(r, what, loc_of(r, n).line);
	return true;
}

/* permissions: [read|r, write|w, exec|x, append|a, all|*] */
static bool bpf_perms(vr *r, yaml_node_t *owner, yaml_node_t *list, const char *what, unsigned *pm)
{
	static const struct { const char *name; unsigned pm; } map[] = {
		{ "read", IR_PERM_READ }, { "r", IR_PERM_READ }, { "write", IR_PERM_WRITE },
		{ "w", IR_PERM_WRITE }, { "exec", IR_PERM_EXEC }, { "x", IR_PERM_EXEC },
		{ "append", IR_PERM_APPEND }, { "a", IR_PERM_APPEND },
		{ "all", IR_PERM_READ | IR_PERM_WRITE | IR_PERM_APPEND | IR_PERM_EXEC },
		{ "*", IR_PERM_READ | IR_PERM_WRITE | IR_PERM_APPEND | IR_PERM_EXEC },
	};
	yaml_node_item_t *b, *e;
	*pm = 0;
	if (!list) {
		verr(r, owner, "%s without \"permissions\"", what);
		return false;
	}
	if (!want_seq(r, list, "permissions", &b, &e))
		return false;
	if (b == e) {
		verr(r, list, "%s: no permissions", what);
		return false;
	}
	for (; b < e; b++) {
		const char *s = want_str(r, nd(r, *b), "permissions");
		size_t i = 0;
		while (s && i < sizeof map / sizeof *map && strcmp(map[i].name, s))
			i++;
		if (!s)
			return false;
		if (i == sizeof map / sizeof *map) {
			verr(r, nd(r, *b), "unknown permission '%s' (read, write, exec, append, all)", s);
			return false;
		}
		*pm |= map[i].pm;
	}
	return true;
}

static void bpf_files(vr *r, yaml_node_t *list, bool processes)
{
	const char *lname = processes ? "bpfRawRules.processes" : "bpfRawRules.files";
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, lname, &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[64];
		snprintf(what, sizeof what, "%s[%zu]", lname, i);
		static const char *const keys[] = { "pattern", "permissions", "qualifiers", NULL };
		if (!bpf_entry(r, n, what, keys))
			continue;
		yaml_node_t *pn = get(r, n, "pattern");
		const char *pat = pn ? want_str(r, pn, "pattern") : NULL;
		if (!pn)
			verr(r, n, "%s without \"pattern\"", what);
		unsigned pm;
		bool ok = bpf_perms(r, n, get(r, n, "permissions"), what, &pm);
		if (!pat || !ok)
			continue;
		const char *why;
		char *g = to_glob(pat, false, &why);
		if (!g) {
			unmapped(r, loc_of(r, pn), what, "pattern '%.100s': %s", pat, why);
			continue;
		}
		if (processes) {
			if (!(pm & IR_PERM_EXEC)) {
				unmapped(r, loc_of(r, n), what, "a process rule maps only with the exec "
					 "permission");
			} else {
				buf_printf(&r->body, "\t%s exec ", r->verb);
				src_string(&r->body, g);
				buf_puts(&r->body, ";\n");
			}
		} else {
			if (pm & ~IR_PERM_EXEC) {
				buf_printf(&r->body, "\t%s file ", r->verb);
				src_string(&r->body, g);
				put_perms(&r->body, pm & ~IR_PERM_EXEC);
				buf_puts(&r->body, pm & IR_PERM_EXEC ? ", exec;\n" : ";\n");
			} else {
				buf_printf(&r->body, "\t%s file ", r->verb);
				src_string(&r->body, g);
				buf_puts(&r->body, " exec;\n");
			}
		}
		free(g);
	}
}

/* A list of words, "all" or "*" meaning any (NULL in the output). */
static bool word_list(vr *r, yaml_node_t *n, const char *what, const char **v, size_t max,
		      size_t *count)
{
	yaml_node_item_t *b, *e;
	*count = 0;
	if (!n)
		return true;
	if (!want_seq(r, n, what, &b, &e))
		return false;
	for (; b < e; b++) {
		const char *s = want_str(r, nd(r, *b), what);
		if (!s)
			return false;
		if (!strcmp(s, "all") || !strcmp(s, "*")) {
			*count = 0;
			return true;
		}
		if (*count == max) {
			verr(r, nd(r, *b), "%s: too many entries", what);
			return false;
		}
		v[(*count)++] = s;
	}
	return true;
}

static void bpf_sockets(vr *r, yaml_node_t *list)
{
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, "bpfRawRules.network.sockets", &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[64];
		snprintf(what, sizeof what, "bpfRawRules.network.sockets[%zu]", i);
		static const char *const keys[] = { "domains", "types", "protocols", "qualifiers", NULL };
		if (!bpf_entry(r, n, what, keys))
			continue;
		const char *dom[48], *typ[8], *pro[8];
		size_t nd_, nt, np;
		if (!word_list(r, get(r, n, "domains"), "domains", dom, 48, &nd_) ||
		    !word_list(r, get(r, n, "types"), "types", typ, 8, &nt) ||
		    !word_list(r, get(r, n, "protocols"), "protocols", pro, 8, &np))
			continue;
		const char *why = NULL;
		for (size_t k = 0; k < nd_ && !why; k++)
			if (!family_word(dom[k]))
				why = "a domain this build has no address family for";
		for (size_t k = 0; k < nt && !why; k++)
			if (strcmp(typ[k], "raw"))
				why = "socket types other than raw have no polc word (polc names "
				      "protocols: tcp, udp, raw, icmp)";
		for (size_t k = 0; k < np && !why; k++)
			if (!proto_word(pro[k]))
				why = "a protocol polc has no word for";
		if (nt && np)
			why = "types and protocols together (vArmor refuses them too)";
		if (why) {
			unmapped(r, loc_of(r, n), what, "%s", why);
			continue;
		}
		const char **pv = nt ? typ : pro;
		size_t npv = nt ? nt : np;
		for (size_t k = 0; k < (nd_ ? nd_ : 1); k++)
			for (size_t m = 0; m < (npv ? npv : 1); m++)
				buf_printf(&r->body, "\t%s network%s%s%s%s;\n", r->verb, nd_ ? " " : "",
					   nd_ ? dom[k] : "", npv ? " " : "", npv ? pv[m] : "");
	}
}

/* The addresses of a destination: an IP, a CIDR, or a vArmor entity. */
static int dest_addrs(const char *ip, const char *cidr, const char **v, const char **why)
{
	if (ip && !strcmp(ip, "localhost")) {
		v[0] = "127.0.0.1/32";
		v[1] = "::1/128";
		return 2;
	}
	if (ip && !strcmp(ip, "unspecified")) {
		v[0] = "0.0.0.0/32";
		v[1] = "::/128";
		return 2;
	}
	if (ip && !strcmp(ip, "pod-self")) {
		*why = "pod-self is the pod's own address, known only at run time";
		return -1;
	}
	const char *a = ip ? ip : cidr;
	char host[64];
	const char *slash = strchr(a, '/');
	size_t hl = slash ? (size_t)(slash - a) : strlen(a);
	unsigned char tmp[16];
	if (hl >= sizeof host || (ip && slash)) {
		*why = "not an IP address";
		return -1;
	}
	memcpy(host, a, hl);
	host[hl] = 0;
	bool v6 = strchr(host, ':') != NULL;
	char *end;
	long pfx = slash ? strtol(slash + 1, &end, 10) : 0;
	if (inet_pton(v6 ? AF_INET6 : AF_INET, host, tmp) != 1 ||
	    (slash && (!slash[1] || *end || pfx < 0 || pfx > (v6 ? 128 : 32)))) {
		*why = ip ? "not an IP address" : "not a CIDR";
		return -1;
	}
	v[0] = a;
	return 1;
}

static void bpf_egress(vr *r, yaml_node_t *eg)
{
	if (!want_map(r, eg, "bpfRawRules.network.egress"))
		return;
	static const char *const keys[] = { "toDestinations", "toServices", "toPods", NULL };
	check_keys(r, eg, "bpfRawRules.network.egress", keys);
	static const char *const k8s[] = { "toServices", "toPods" };
	for (size_t k = 0; k < 2; k++) {
		yaml_node_t *n = get(r, eg, k8s[k]);
		if (n && !yaml_node_is_null(n)) {
			char what[64];
			snprintf(what, sizeof what, "bpfRawRules.network.egress.%s", k8s[k]);
			comment(r, what, loc_of(r, n).line);
			unmapped(r, loc_of(r, n), what, "it selects Kubernetes objects whose addresses "
				 "vArmor looks up in the cluster; write their addresses as toDestinations");
		}
	}
	yaml_node_item_t *b, *e;
	if (!want_seq(r, get(r, eg, "toDestinations"), "toDestinations", &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[80];
		snprintf(what, sizeof what, "bpfRawRules.network.egress.toDestinations[%zu]", i);
		static const char *const dkeys[] = { "ip", "cidr", "ports", "qualifiers", NULL };
		if (!bpf_entry(r, n, what, dkeys))
			continue;
		yaml_node_t *ipn = get(r, n, "ip"), *cn = get(r, n, "cidr");
		const char *ip = ipn ? want_str(r, ipn, "ip") : NULL;
		const char *cidr = cn ? want_str(r, cn, "cidr") : NULL;
		if ((ipn && !ip) || (cn && !cidr))
			continue;
		if (ip && cidr) {
			verr(r, n, "%s: give one of ip and cidr", what);
			continue;
		}
		const char *addrs[2], *why = NULL;
		/* ports alone: to every address (vArmor matches the port only) */
		int na = !ip && !cidr ? (addrs[0] = "0.0.0.0/0", addrs[1] = "::/0", 2)
				      : dest_addrs(ip, cidr, addrs, &why);
		if (na < 0) {
			unmapped(r, loc_of(r, ipn ? ipn : cn), what, "'%s': %s", ip ? ip : cidr, why);
			continue;
		}
		/* ports: [{port, endPort}] */
		yaml_node_item_t *pb, *pe;
		if (!want_seq(r, get(r, n, "ports"), "ports", &pb, &pe))
			continue;
		char ports[16][32];
		size_t np = 0;
		bool bad = false;
		for (; pb < pe && !bad; pb++) {
			yaml_node_t *pn = nd(r, *pb);
			const char *p = scalar(get(r, pn, "port")), *ep = scalar(get(r, pn, "endPort"));
			char *end1 = NULL, *end2 = NULL;
			long lo = p ? strtol(p, &end1, 10) : 0, hi = ep ? strtol(ep, &end2, 10) : lo;
			lo = lo < 0 ? 0 : lo;
			if (pn->type != YAML_MAPPING_NODE || !p || *end1 || (ep && *end2) || lo < 1 ||
			    lo > 65535 || hi < lo || hi > 65535 || np == 16) {
				verr(r, pn, "%s: a port is {port: 1..65535, endPort: port..65535}", what);
				bad = true;
				break;
			}
			if (hi != lo)
				snprintf(ports[np++], sizeof ports[0], "%ld-%ld", lo, hi);
			else
				snprintf(ports[np++], sizeof ports[0], "%ld", lo);
		}
		if (bad)
			continue;
		for (int a = 0; a < na; a++)
			for (size_t k = 0; k < (np ? np : 1); k++) {
				buf_printf(&r->body, "\t%s network connect to %s", r->verb, addrs[a]);
				if (np)
					buf_printf(&r->body, " port %s", ports[k]);
				buf_puts(&r->body, ";\n");
			}
	}
}

static void bpf_ptrace(vr *r, yaml_node_t *n)
{
	const char *what = "bpfRawRules.ptrace";
	static const char *const keys[] = { "strictMode", "permissions", "qualifiers", NULL };
	if (!bpf_entry(r, n, what, keys))
		return;
	bool strict;
	const char *pv[8];
	size_t np;
	yaml_node_t *perms = get(r, n, "permissions");
	if (!want_bool(r, get(r, n, "strictMode"), "strictMode", &strict) ||
	    !word_list(r, perms, "permissions", pv, 8, &np))
		return;
	bool rd = !np, tr = !np, by = !np;
	for (size_t i = 0; i < np; i++) {
		if (!strcmp(pv[i], "read"))
			rd = true;
		else if (!strcmp(pv[i], "trace"))
			tr = true;
		else if (!strcmp(pv[i], "readby") || !strcmp(pv[i], "traceby"))
			by = true;
		else
			verr(r, perms, "unknown ptrace permission '%s' (trace, traceby, read, readby, all)",
			     pv[i]);
	}
	if (by)
		unmapped(r, loc_of(r, perms ? perms : n), "the readby and traceby permissions",
			 "polc restricts what the workload does, not what other processes do to it");
	if (!strict && (rd || tr)) {
		diag_warn(r->d, loc_of(r, n), "%s: without strictMode vArmor lets processes of the "
			  "container trace each other; polc's statement denies that too", what);
		buf_puts(&r->body, "\t# vArmor (strictMode false) allows this within the container; "
			 "polc denies it everywhere\n");
	}
	if (rd || tr)
		buf_printf(&r->body, "\t%s ptrace%s;\n", r->verb, rd && !tr ? " read" : tr && !rd ? " trace" : "");
}

static void bpf_mounts(vr *r, yaml_node_t *list)
{
	yaml_node_item_t *b, *e;
	if (!want_seq(r, list, "bpfRawRules.mounts", &b, &e))
		return;
	for (size_t i = 0, cnt = b ? (size_t)(e - b) : 0; i < cnt; i++) {
		yaml_node_t *n = nd(r, b[i]);
		char what[64];
		snprintf(what, sizeof what, "bpfRawRules.mounts[%zu]", i);
		static const char *const keys[] = { "sourcePattern", "fstype", "flags", "qualifiers", NULL };
		if (!bpf_entry(r, n, what, keys))
			continue;
		yaml_node_t *sn = get(r, n, "sourcePattern"), *fn = get(r, n, "fstype");
		const char *src = sn ? want_str(r, sn, "sourcePattern") : NULL;
		const char *fs = fn ? want_str(r, fn, "fstype") : NULL;
		const char *fl[32];
		size_t nf;
		if (!src || !fs) {
			if (!sn || !fn)
				verr(r, n, "%s needs sourcePattern and fstype", what);
			continue;
		}
		if (!word_list(r, get(r, n, "flags"), "flags", fl, 32, &nf))
			continue;
		bool any_src = !strcmp(src, "*") || !strcmp(src, "**") || !strcmp(src, "/**");
		bool all = !nf, umount = false, other = false;
		for (size_t k = 0; k < nf; k++) {
			if (!strcmp(fl[k], "umount"))
				umount = true;
			else
				other = true;
		}
		if (!any_src || other) {
			unmapped(r, loc_of(r, any_src ? n : sn), what, "%s", !any_src ?
				 "polc matches a mount's target and fstype, not its source" :
				 "mount flags other than all and umount have no polc equivalent");
			continue;
		}
		bool anyfs = !strcmp(fs, "*");
		if (!anyfs && !src_valid_name(fs)) {
			unmapped(r, loc_of(r, fn), what, "fstype '%.40s'", fs);
			continue;
		}
		if (all) {
			buf_printf(&r->body, "\t%s mount", r->verb);
			if (!anyfs)
				buf_printf(&r->body, " fstype %s", fs);
			buf_puts(&r->body, ";\n");
		}
		if (umount)
			buf_printf(&r->body, "\t%s umount;\n", r->verb);
	}
}

static void bpf_raw(vr *r, yaml_node_t *n)
{
	if (yaml_node_is_null(n) || !want_map(r, n, "bpfRawRules"))
		return;
	static const char *const keys[] = { "files", "processes", "network", "ptrace", "mounts", NULL };
	check_keys(r, n, "bpfRawRules", keys);
	bpf_files(r, get(r, n, "files"), false);
	bpf_files(r, get(r, n, "processes"), true);
	yaml_node_t *net = get(r, n, "network");
	if (net && !yaml_node_is_null(net) && want_map(r, net, "bpfRawRules.network")) {
		static const char *const nkeys[] = { "sockets", "egress", "egresses", NULL };
		check_keys(r, net, "bpfRawRules.network", nkeys);
		bpf_sockets(r, get(r, net, "sockets"));
		if (get(r, net, "egress") && !yaml_node_is_null(get(r, net, "egress")))
			bpf_egress(r, get(r, net, "egress"));
		if (get(r, net, "egresses") && !yaml_node_is_null(get(r, net, "egresses"))) {
			yaml_node_t *old = get(r, net, "egresses");
			comment(r, "bpfRawRules.network.egresses", loc_of(r, old).line);
			unmapped(r, loc_of(r, old), "bpfRawRules.network.egresses", "the older egress "
				 "layout; write it as egress.toDestinations");
		}
	}
	if (get(r, n, "ptrace") && !yaml_node_is_null(get(r, n, "ptrace")))
		bpf_ptrace(r, get(r, n, "ptrace"));
	bpf_mounts(r, get(r, n, "mounts"));
}

/* ---- the policy ---- */

static void syscall_raw(vr *r, yaml_node_t *list)
{
	if (r->privileged) {
		diag_warn(r->d, loc_of(r, list), "syscallRawRules ignored: vArmor builds no seccomp "
			  "profile for a privileged policy");
		buf_puts(&r->body, "\n\t# syscallRawRules: none, as in vArmor (privileged: no seccomp profile)\n");
		return;
	}
	buf_printf(&r->body, "\n\t# syscallRawRules (line %d): added to the seccomp profile\n",
		   loc_of(r, list).line);
	if (import_oci_syscalls(&r->doc, list, r->f, r->o->oci, "syscallRawRules", r->d, &r->body) < 0)
		r->nerr++;
}

static void enhance_protect(vr *r, yaml_node_t *ep)
{
	static const char *const keys[] = { "hardeningRules", "attackProtectionRules",
		"vulMitigationRules", "appArmorRawRules", "bpfRawRules", "syscallRawRules",
		"privileged", "auditViolations", "allowViolations", NULL };
	check_keys(r, ep, "enhanceProtect", keys);
	yaml_node_t *n;
	if ((n = get(r, ep, "hardeningRules")) && !yaml_node_is_null(n)) {
		comment(r, "hardeningRules", loc_of(r, n).line);
		use_rules(r, n, "hardeningRules");
	}
	if ((n = get(r, ep, "attackProtectionRules")))
		attack_protection(r, n);
	if ((n = get(r, ep, "vulMitigationRules")) && !yaml_node_is_null(n)) {
		comment(r, "vulMitigationRules", loc_of(r, n).line);
		use_rules(r, n, "vulMitigationRules");
	}
	if ((n = get(r, ep, "appArmorRawRules")))
		apparmor_raw(r, n);
	if ((n = get(r, ep, "bpfRawRules")))
		bpf_raw(r, n);
	if ((n = get(r, ep, "syscallRawRules")) && !yaml_node_is_null(n))
		syscall_raw(r, n);
}

static char *policy_name(vr *r, const char *meta)
{
	const char *src = r->o->name ? r->o->name : meta;
	char *s = xstrdup(src);
	if (!r->o->name)
		for (char *p = s; *p; p++)
			if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
				*p = '-';
	bool ok = isalpha((unsigned char)s[0]) || s[0] == '_';
	for (const char *p = s; *p && ok; p++)
		ok = isalnum((unsigned char)*p) || *p == '_' || *p == '-';
	if (!ok && !r->o->name) {
		char *t = xasprintf("varmor-%s", s);
		free(s);
		return t;
	}
	if (!ok) {
		diag_error(r->d, src_loc_none(), "--name '%s' is not a polc name ([A-Za-z_][A-Za-z0-9_-]*)", s);
		r->nerr++;
	}
	return s;
}

typedef struct {
	const char *kind, *name, *ns, *enforcer, *mode;
	bool allow_violations, audit_violations;
} facts;

static void write_policy(vr *r, const facts *fc, buf *out)
{
	src_import_header(out, "--from varmor", r->f);
	buf_puts(out, "# ");
	src_comment(out, fc->kind);
	buf_puts(out, " ");
	if (fc->ns) {
		src_comment(out, fc->ns);
		buf_puts(out, "/");
	}
	src_comment(out, fc->name);
	buf_puts(out, ": enforcer ");
	src_comment(out, fc->enforcer ? fc->enforcer : "(none)");
	buf_puts(out, ", mode ");
	src_comment(out, fc->mode);
	buf_printf(out, "%s.\n", r->privileged ? ", privileged" : "");
	buf_puts(out, "# vArmor applies a built-in rule only with the enforcers that implement it;\n"
		      "# polc's rule of the same name holds on every target that can enforce it\n"
		      "# (polc rules NAME shows which).\n");
	char *name = policy_name(r, fc->name);
	buf_printf(out, "policy %s {\n", name);
	free(name);
	if (!strcmp(fc->mode, "AlwaysAllow") || r->privileged)
		buf_printf(out, "\t# %s: vArmor builds on AlwaysAllow\n\tuse always-allow;\n",
			   r->privileged ? "privileged" : "AlwaysAllow");
	else
		buf_puts(out, "\t# not privileged: vArmor builds on RuntimeDefault\n\tuse runtime-default;\n");
	if (fc->allow_violations)
		buf_puts(out, "\t# allowViolations: log what would be denied, deny nothing\n\tmode audit;\n");
	else if (fc->audit_violations)
		buf_puts(out, "\t# auditViolations: the kernel logs denials; polc's deny is the same\n");
	buf_put(out, r->body.data ? r->body.data : "", r->body.len);
	buf_puts(out, "}\n");
}

static const char *want_text(vr *r, yaml_node_t *map, const char *key, const char *what, bool need)
{
	yaml_node_t *n = get(r, map, key);
	if (!n) {
		if (need)
			verr(r, map, "%s without \"%s\"", what, key);
		return NULL;
	}
	return want_str(r, n, key);
}

static int import_root(vr *r, yaml_node_t *root, buf *out)
{
	if (root->type != YAML_MAPPING_NODE) {
		verr(r, root, "not a vArmor policy: the document is not a mapping");
		return -1;
	}
	yaml_node_t *api = get(r, root, "apiVersion"), *kind = get(r, root, "kind");
	const char *as = scalar(api), *ks = scalar(kind);
	if (!api || !kind || !as || !ks || strncmp(as, "crd.varmor.org/", 15) ||
	    (strcmp(ks, "VarmorPolicy") && strcmp(ks, "VarmorClusterPolicy"))) {
		yaml_node_t *at = kind && ks && strcmp(ks, "VarmorPolicy") && strcmp(ks, "VarmorClusterPolicy") ?
				  kind : api ? api : root;
		verr(r, at, "not a vArmor policy: want apiVersion crd.varmor.org/v1beta1 and kind "
		     "VarmorPolicy or VarmorClusterPolicy, got %s %s", as ? as : "(no apiVersion)",
		     ks ? ks : "(no kind)");
		return -1;
	}
	if (strcmp(as, "crd.varmor.org/v1beta1"))
		diag_warn(r->d, loc_of(r, api), "apiVersion %s: read as crd.varmor.org/v1beta1", as);
	facts fc = { ks, NULL, NULL, NULL, NULL, false, false };
	yaml_node_t *meta = get(r, root, "metadata"), *spec = get(r, root, "spec");
	if (!meta || !want_map(r, meta, "metadata") || !(fc.name = want_text(r, meta, "name", "metadata", true)))
		return meta ? -1 : (verr(r, root, "no metadata"), -1);
	fc.ns = want_text(r, meta, "namespace", "metadata", false);
	if (!spec || !want_map(r, spec, "spec"))
		return spec ? -1 : (verr(r, root, "no spec"), -1);
	yaml_node_t *pol = get(r, spec, "policy");
	if (!pol || !want_map(r, pol, "spec.policy"))
		return pol ? -1 : (verr(r, spec, "spec without \"policy\""), -1);
	static const char *const pkeys[] = { "enforcer", "mode", "enhanceProtect", "modelingOptions",
		"defenseInDepth", "privileged", "seccomp", "customPolicy", "modelOptions", NULL };
	check_keys(r, pol, "spec.policy", pkeys);
	fc.enforcer = want_text(r, pol, "enforcer", "spec.policy", false);
	if (fc.enforcer && strstr(fc.enforcer, "NetworkProxy")) {
		verr(r, get(r, pol, "enforcer"), "enforcer NetworkProxy cannot be imported: vArmor's "
		     "network proxy is a sidecar proxy (TLS interception, HTTP, DNS and domain rules, "
		     "header injection) with no polc equivalent; polc enforces connect and bind by "
		     "address and port in the kernel (bpfRawRules.network.egress)");
		return -1;
	}
	yaml_node_t *mn = get(r, pol, "mode");
	if (!(fc.mode = want_text(r, pol, "mode", "spec.policy", true)))
		return -1;
	bool priv_old = false;
	want_bool(r, get(r, pol, "privileged"), "privileged", &priv_old);
	yaml_node_t *ep = get(r, pol, "enhanceProtect");
	if (!strcmp(fc.mode, "EnhanceProtect")) {
		if (!ep || yaml_node_is_null(ep) || !want_map(r, ep, "enhanceProtect")) {
			if (!ep || yaml_node_is_null(ep))
				verr(r, mn, "mode EnhanceProtect without an enhanceProtect section");
			return -1;
		}
		bool priv;
		want_bool(r, get(r, ep, "privileged"), "privileged", &priv);
		r->privileged = priv || priv_old;
		want_bool(r, get(r, ep, "allowViolations"), "allowViolations", &fc.allow_violations);
		want_bool(r, get(r, ep, "auditViolations"), "auditViolations", &fc.audit_violations);
		enhance_protect(r, ep);
	} else if (!strcmp(fc.mode, "AlwaysAllow") || !strcmp(fc.mode, "RuntimeDefault")) {
		r->privileged = priv_old;
		if (ep && !yaml_node_is_null(ep))
			diag_warn(r->d, loc_of(r, ep), "enhanceProtect ignored: mode is %s", fc.mode);
	} else if (!strcmp(fc.mode, "BehaviorModeling")) {
		verr(r, mn, "mode BehaviorModeling cannot be imported: it enforces nothing, it records "
		     "what the workload does in the cluster to build a profile later; polc's "
		     "equivalent is `polc record` then `polc gen`");
		return -1;
	} else if (!strcmp(fc.mode, "DefenseInDepth")) {
		verr(r, mn, "mode DefenseInDepth cannot be imported: its profile is the behaviour "
		     "vArmor modelled in the cluster (an ArmorProfileModel from a BehaviorModeling "
		     "run), which this file does not hold; record the workload with `polc record` "
		     "and `polc gen` instead");
		return -1;
	} else {
		verr(r, mn, "mode %s cannot be imported: polc reads EnhanceProtect, RuntimeDefault and "
		     "AlwaysAllow policies", fc.mode);
		return -1;
	}
	if (r->nerr)
		return -1;
	write_policy(r, &fc, out);
	return r->nerr ? -1 : 0;
}

static bool varmor_kind(const char *k)
{
	return k && (!strcmp(k, "VarmorPolicy") || !strcmp(k, "VarmorClusterPolicy"));
}

/* One document: a vArmor policy is imported (its own policy block), any
 * other kind is skipped with a note (a Deployment beside its policy). */
static int import_doc(src_file *f, const varmor_opts *o, diag_ctx *d, yaml_document_t *doc,
		      size_t ndocs, int *imported, buf *out)
{
	vr r;
	memset(&r, 0, sizeof r);
	r.d = d;
	r.f = f;
	r.o = o;
	r.doc = *doc;
	buf_init(&r.body);
	yaml_node_t *root = yaml_document_get_root_node(doc);
	const char *kind = scalar(get(&r, root, "kind"));
	int rc = 0;
	if (ndocs > 1 && root && root->type == YAML_MAPPING_NODE && kind && !varmor_kind(kind)) {
		diag_note(d, loc_of(&r, root), "skipped: a %s, not a VarmorPolicy or "
			  "VarmorClusterPolicy", kind);
	} else {
		if (*imported && out->len)
			buf_puts(out, "\n");
		rc = import_root(&r, root, out);
		if (rc == 0)
			++*imported;
	}
	buf_free(&r.body);
	free(r.used.v);
	if (r.have_lib) {
		ir_program_free(&r.lib);
		diag_free(&r.libd);
	}
	return rc;
}

/* Every document of the stream: each vArmor policy becomes a polc policy. */
static int import_src(src_file *f, const void *opts, diag_ctx *d, buf *out)
{
	const varmor_opts *o = opts;
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)f->text, f->len);
	yaml_document_t docs[64];
	size_t n = 0;
	int rc = 0;
	for (;;) {
		if (n == sizeof docs / sizeof *docs) {
			src_loc l = { f, 1, 1 };
			diag_error(d, l, "more than %zu YAML documents", n);
			rc = -1;
			break;
		}
		if (!yaml_parser_load(&p, &docs[n])) {
			src_loc l = { f, (int)p.problem_mark.line + 1, (int)p.problem_mark.column + 1 };
			diag_error(d, l, "cannot read the YAML: %s%s%s", p.problem ? p.problem : "syntax error",
				   p.context ? " " : "", p.context ? p.context : "");
			rc = -1;
			break;
		}
		if (!yaml_document_get_root_node(&docs[n])) {
			yaml_document_delete(&docs[n]);   /* the end of the stream */
			break;
		}
		n++;
	}
	yaml_parser_delete(&p);
	int imported = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (import_doc(f, o, d, &docs[i], n, &imported, out) < 0)
			rc = -1;
	if (rc == 0 && !imported) {
		src_loc l = { f, 1, 1 };
		diag_error(d, l, n ? "no VarmorPolicy or VarmorClusterPolicy in the file"
				   : "empty file: no vArmor policy");
		rc = -1;
	}
	if (rc == 0 && imported > 1 && o->name) {
		diag_error(d, src_loc_none(), "--name: the file has %d vArmor policies, each named "
			   "after its metadata.name", imported);
		rc = -1;
	}
	for (size_t i = 0; i < n; i++)
		yaml_document_delete(&docs[i]);
	return rc;
}

int import_varmor_text(const char *path, const char *text, size_t len, const varmor_opts *o,
		       diag_ctx *d, buf *out)
{
	return src_import(diag_add_text(d, path, text, len, false), import_src, o, d, out);
}

int import_varmor_file(const char *path, const varmor_opts *o, diag_ctx *d, buf *out)
{
	return src_import(diag_read_file(d, path, src_loc_none()), import_src, o, d, out);
}
