/* oci.c - the plan as OCI runtime-spec / Docker seccomp JSON.
 *
 * Keys in a fixed order; rules with the same action and arguments share one
 * entry (names in syscall-number order). Provenance goes in a top-level
 * "x-polc" object: runc, containerd and Docker decode the profile with Go's
 * encoding/json, which ignores unknown keys. Masked-eq follows
 * libseccomp-golang: "value" is the mask, "valueTwo" the datum.
 * Under a deny default, defaultErrnoRet is ENOSYS and the known syscalls are
 * listed with the policy's errno, so runc needs no patching for new ones.
 */
#include "seccomp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

static const char *act_name(ir_action a)
{
	switch (a.verdict) {
	case IR_ALLOW: return "SCMP_ACT_ALLOW";
	case IR_AUDIT: return "SCMP_ACT_LOG";
	case IR_DENY: return "SCMP_ACT_ERRNO";
	case IR_KILL: return "SCMP_ACT_KILL_PROCESS";
	}
	return "SCMP_ACT_KILL_PROCESS";
}

static const char *op_name(enum scmp_compare op)
{
	switch (op) {
	case SCMP_CMP_NE: return "SCMP_CMP_NE";
	case SCMP_CMP_LT: return "SCMP_CMP_LT";
	case SCMP_CMP_LE: return "SCMP_CMP_LE";
	case SCMP_CMP_EQ: return "SCMP_CMP_EQ";
	case SCMP_CMP_GE: return "SCMP_CMP_GE";
	case SCMP_CMP_GT: return "SCMP_CMP_GT";
	case SCMP_CMP_MASKED_EQ: return "SCMP_CMP_MASKED_EQ";
	default: return "?";
	}
}

static const char *arch_name(ir_arch a)
{
	switch (a) {
	case IR_ARCH_X86_64: return "SCMP_ARCH_X86_64";
	case IR_ARCH_I386: return "SCMP_ARCH_X86";
	case IR_ARCH_X32: return "SCMP_ARCH_X32";
	default: return "?";
	}
}


/* The part of an entry after "names": action, errnoRet, args. */
static char *entry_key(ir_action act, const sc_conj *c)
{
	buf b;
	buf_init(&b);
	buf_printf(&b, "\"action\": \"%s\"", act_name(act));
	if (act.verdict == IR_DENY)
		buf_printf(&b, ", \"errnoRet\": %d", act.err);
	if (c->n) {
		buf_puts(&b, ", \"args\": [");
		for (size_t i = 0; i < c->n; i++) {
			const struct scmp_arg_cmp *a = &c->v[i];
			buf_printf(&b, "%s{\"index\": %u, \"value\": %llu, \"valueTwo\": %llu, "
				   "\"op\": \"%s\"}", i ? ", " : "", a->arg,
				   (unsigned long long)a->datum_a,
				   (unsigned long long)(a->op == SCMP_CMP_MASKED_EQ ?
							 a->datum_b : 0),
				   op_name(a->op));
		}
		buf_puts(&b, "]");
	}
	return buf_cstr(&b);
}

typedef struct { char *key; const char **names; size_t n, cap; } entry;

/* The "syscalls" array of one arch. */
static void syscalls_json(const sc_archplan *ap, buf *out)
{
	entry *e = NULL;
	size_t ne = 0, cap = 0;
	for (size_t i = 0; i < ap->n; i++) {
		const sc_sysplan *s = &ap->v[i];
		for (size_t r = 0; r < s->n; r++) {
			for (size_t j = 0; j < s->v[r].dnf.n; j++) {
				char *k = entry_key(s->v[r].act, &s->v[r].dnf.v[j]);
				size_t x = 0;
				while (x < ne && strcmp(e[x].key, k))
					x++;
				if (x == ne) {
					xgrow(&e, &cap, ne + 1, sizeof *e);
					memset(&e[ne], 0, sizeof *e);
					e[ne++].key = k;
				} else {
					free(k);
				}
				if (e[x].n && !strcmp(e[x].names[e[x].n - 1], s->name))
					continue;
				xgrow(&e[x].names, &e[x].cap, e[x].n + 1, sizeof *e[x].names);
				e[x].names[e[x].n++] = s->name;
			}
		}
	}
	buf_puts(out, "[");
	for (size_t x = 0; x < ne; x++) {
		buf_puts(out, x ? ",\n    {\"names\": [" : "\n    {\"names\": [");
		for (size_t i = 0; i < e[x].n; i++) {
			if (i)
				buf_puts(out, ", ");
			buf_json_str(out, e[x].names[i]);
		}
		buf_printf(out, "], %s}", e[x].key);
		free(e[x].key);
		free(e[x].names);
	}
	free(e);
	buf_puts(out, ne ? "\n  ]" : "]");
}

int sc_emit_oci(const ir_policy *p, const sc_plan *pl, const backend_opts *o,
		buf *out, diag_ctx *d)
{
	/* One rule list for all ABIs: runc applies each entry by name to every
	 * architecture, so the lists must agree (i386 has 32-bit args). */
	buf first, other;
	buf_init(&first);
	int firstarch = -1;
	for (int a = 0; a < IR_NARCH; a++) {
		if (!pl->arch[a].present)
			continue;
		if (firstarch < 0) {
			firstarch = a;
			syscalls_json(&pl->arch[a], &first);
			continue;
		}
		buf_init(&other);
		syscalls_json(&pl->arch[a], &other);
		bool same = other.len == first.len && !memcmp(other.data, first.data, first.len);
		buf_free(&other);
		if (!same) {
			diag_error(d, p->loc, "seccomp oci: the rules for %s differ from "
				   "those for %s, and an OCI profile applies one list to "
				   "every architecture; build one profile per arch",
				   ir_arch_name((ir_arch)a), ir_arch_name((ir_arch)firstarch));
			buf_free(&first);
			return -1;
		}
	}
	buf_printf(out, "{\n  \"defaultAction\": \"%s\",\n", act_name(pl->def));
	if (pl->def.verdict == IR_DENY)
		buf_printf(out, "  \"defaultErrnoRet\": %d,\n", pl->def.err);
	buf_puts(out, "  \"architectures\": [");
	for (int a = 0, n = 0; a < IR_NARCH; a++)
		if (pl->arch[a].present)
			buf_printf(out, "%s\"%s\"", n++ ? ", " : "", arch_name((ir_arch)a));
	buf_puts(out, "],\n  \"syscalls\": ");
	buf_put(out, first.data, first.len);
	buf_free(&first);
	/* provenance: the backend header lines as strings */
	buf h;
	buf_init(&h);
	backend_header(&backend_seccomp, p, o, "", &h);
	buf_puts(out, ",\n  \"x-polc\": {\"header\": [");
	char *line = buf_cstr(&h), *nl;
	for (int i = 0; line && *line; i++, line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = 0;
		buf_puts(out, i ? ",\n    " : "\n    ");
		buf_json_str(out, line);
	}
	buf_puts(out, "\n  ]}\n}\n");
	buf_free(&h);
	return 0;
}

/* ---- The filter runc builds from an OCI profile ----
 * runc (libcontainer/specconv SetupSeccomp, libcontainer/seccomp
 * InitSeccomp and patchbpf) reads the JSON and hands libseccomp:
 * seccomp_init(defaultAction), every listed architecture added (the native
 * one is always there), optimize 2 when more than 32 syscall names are
 * listed, then per entry and name one rule (names libseccomp does not know
 * skipped; an entry with the default's action skipped; an entry comparing
 * one argument twice as one rule per comparison). It exports that and
 * prepends its ENOSYS stub unless the default allows/logs or its errno is
 * already ENOSYS; the kernel takes the whole program or nothing. */

typedef struct {
	yaml_document_t doc;
	yaml_node_t *root;
	bool spo;              /* defaultErrnoRet dropped (spo.c: SPO has none) */
} oci_doc;

static yaml_node_t *node(oci_doc *o, int id)
{
	return yaml_document_get_node(&o->doc, id);
}

static yaml_node_t *member(oci_doc *o, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
		if (!strcmp((const char *)node(o, p->key)->data.scalar.value, key))
			return node(o, p->value);
	return NULL;
}

static const char *scalar(yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
}

static size_t items(yaml_node_t *n)
{
	return n && n->type == YAML_SEQUENCE_NODE
		? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

static yaml_node_t *item(oci_doc *o, yaml_node_t *seq, size_t i)
{
	return node(o, seq->data.sequence.items.start[i]);
}

/* An action as runc reads it: the names act_name writes, ERRNO without
 * errnoRet is EPERM. */
static uint32_t read_action(yaml_node_t *act, yaml_node_t *err)
{
	static const ir_verdict vs[] = { IR_ALLOW, IR_AUDIT, IR_DENY, IR_KILL };
	for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
		ir_action a = { vs[i], err ? atoi(scalar(err)) : EPERM };
		if (!strcmp(scalar(act), act_name(a)))
			return sc_action(a);
	}
	return SCMP_ACT_KILL_THREAD;           /* runc: SCMP_ACT_KILL */
}

static struct scmp_arg_cmp read_cmp(oci_doc *o, yaml_node_t *c)
{
	struct scmp_arg_cmp r = { .arg = (unsigned)atoi(scalar(member(o, c, "index"))) };
	r.datum_a = strtoull(scalar(member(o, c, "value")), NULL, 10);
	r.datum_b = strtoull(scalar(member(o, c, "valueTwo")), NULL, 10);
	for (int op = SCMP_CMP_NE; op <= SCMP_CMP_MASKED_EQ; op++)
		if (!strcmp(scalar(member(o, c, "op")), op_name((enum scmp_compare)op)))
			r.op = (enum scmp_compare)op;
	return r;
}

static uint32_t default_action(oci_doc *o)
{
	yaml_node_t *err = o->spo ? NULL : member(o, o->root, "defaultErrnoRet");
	return read_action(member(o, o->root, "defaultAction"), err);
}

/* The profile's architectures as IR arches (bit per arch); the native one
 * is always among them. */
static unsigned profile_arches(oci_doc *o)
{
	unsigned m = 1u << IR_ARCH_X86_64;     /* polc's tables: x86 hosts */
	yaml_node_t *as = member(o, o->root, "architectures");
	for (size_t i = 0; i < items(as); i++)
		for (int a = 0; a < IR_NARCH; a++)
			if (!strcmp(scalar(item(o, as, i)), arch_name((ir_arch)a)))
				m |= 1u << a;
	return m;
}

static size_t name_count(oci_doc *o)
{
	yaml_node_t *sys = member(o, o->root, "syscalls");
	size_t n = 0;
	for (size_t i = 0; i < items(sys); i++)
		n += items(member(o, item(o, sys, i), "names"));
	return n;
}

/* One entry's rules for one name (runc's matchCall). */
static int add_entry(oci_doc *o, scmp_filter_ctx ctx, yaml_node_t *e, int nr, uint32_t act)
{
	yaml_node_t *args = member(o, e, "args");
	struct scmp_arg_cmp c[16];
	unsigned nc = 0, count[6] = { 0 };
	bool twice = false;
	for (size_t i = 0; i < items(args) && nc < 16; i++) {
		c[nc] = read_cmp(o, item(o, args, i));
		twice |= c[nc].arg < 6 && ++count[c[nc].arg] > 1;
		nc++;
	}
	if (!twice)
		return seccomp_rule_add_array(ctx, act, nr, nc, c);
	for (unsigned k = 0; k < nc; k++)
		if (seccomp_rule_add_array(ctx, act, nr, 1, &c[k]))
			return -1;
	return 0;
}

/* runc's libseccomp filter of the profile, limited to the arches in mask
 * and, when only is set, to the entries naming it (the cost of one
 * syscall). NULL with a diagnostic where runc would fail too. */
static scmp_filter_ctx runc_filter(oci_doc *o, unsigned mask, const char *only, bool opt2,
				   const ir_policy *p, diag_ctx *d)
{
	uint32_t def = default_action(o);
	scmp_filter_ctx ctx = seccomp_init(def);
	if (!ctx)
		return NULL;
	for (int a = 0; a < IR_NARCH; a++)
		if (mask >> a & 1)
			seccomp_arch_add(ctx, sc_arch_token((ir_arch)a));   /* -EEXIST: native */
	if (!(mask >> IR_ARCH_X86_64 & 1))
		seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	if (opt2)
		seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	yaml_node_t *sys = member(o, o->root, "syscalls");
	for (size_t i = 0; i < items(sys); i++) {
		yaml_node_t *e = item(o, sys, i), *names = member(o, e, "names");
		uint32_t act = read_action(member(o, e, "action"), member(o, e, "errnoRet"));
		if (act == def)
			continue;
		for (size_t j = 0; j < items(names); j++) {
			const char *name = scalar(item(o, names, j));
			int nr = seccomp_syscall_resolve_name(name);
			if ((only && strcmp(name, only)) || nr == __NR_SCMP_ERROR)
				continue;
			if (add_entry(o, ctx, e, nr, act)) {
				diag_error(d, p->loc, "seccomp oci: libseccomp refuses the rule for %s "
					   "as runc would add it", name);
				seccomp_release(ctx);
				return NULL;
			}
		}
	}
	return ctx;
}

/* The length of runc's ENOSYS stub (patchbpf generateEnosysStub): a load
 * of the arch, one jeq per audit arch, a ja, per audit arch a section (a
 * load, jgt + ja, a jset for x86_64's x32 bit; x86_64 with x32: jset and
 * two jgt + ja), and the ja / ret ENOSYS tail. Its jumps stay short (under
 * 256) at this size, so none takes runc's long form. */
static size_t stub_len(oci_doc *o, unsigned mask)
{
	yaml_node_t *err = o->spo ? NULL : member(o, o->root, "defaultErrnoRet");
	const char *def = scalar(member(o, o->root, "defaultAction"));
	if ((err && atoi(scalar(err)) == ENOSYS) || !strcmp(def, "SCMP_ACT_ALLOW") ||
	    !strcmp(def, "SCMP_ACT_LOG") || !strcmp(def, "SCMP_ACT_TRACE"))
		return 0;
	bool has[IR_NARCH] = { 0 };
	yaml_node_t *sys = member(o, o->root, "syscalls");
	for (int a = 0; a < IR_NARCH; a++)
		for (size_t i = 0; i < items(sys) && (mask >> a & 1) && !has[a]; i++) {
			yaml_node_t *names = member(o, item(o, sys, i), "names");
			for (size_t j = 0; j < items(names) && !has[a]; j++)
				has[a] = seccomp_syscall_resolve_name_arch(sc_arch_token((ir_arch)a),
						scalar(item(o, names, j))) > 0;
		}
	size_t n = 1 + 1 + 2;                  /* ld arch, ja filter, ja + ret ENOSYS */
	bool amd64 = mask >> IR_ARCH_X86_64 & 1 || mask >> IR_ARCH_X32 & 1;
	bool i386 = mask >> IR_ARCH_I386 & 1;
	n += amd64 + i386;                     /* jeq per audit arch */
	if (has[IR_ARCH_X86_64] && has[IR_ARCH_X32])
		n += 1 + 4;
	else if (has[IR_ARCH_X86_64] || has[IR_ARCH_X32])
		n += 1 + 3;
	if (has[IR_ARCH_I386])
		n += 1 + 2;
	return n;
}

static long export_len(scmp_filter_ctx ctx, diag_ctx *d)
{
	buf b;
	buf_init(&b);
	long n = sc_export(ctx, false, &b, d) ? -1 : (long)(b.len / sizeof(struct sock_filter));
	buf_free(&b);
	return n;
}

/* Per syscall and arch, the instructions its entries add to runc's filter
 * (block_len as sc_costliest_notes reads it); entries with arguments only. */
static void entry_costs(oci_doc *o, unsigned mask, bool opt2, const ir_policy *p, size_t *cost,
			diag_ctx *d)
{
	yaml_node_t *sys = member(o, o->root, "syscalls");
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(mask >> a & 1))
			continue;
		scmp_filter_ctx none = runc_filter(o, 1u << a, "", opt2, p, d);
		long base = none ? export_len(none, d) : -1;
		if (none)
			seccomp_release(none);
		for (size_t i = 0; i < items(sys) && base >= 0; i++) {
			yaml_node_t *e = item(o, sys, i), *names = member(o, e, "names");
			for (size_t j = 0; j < items(names) && items(member(o, e, "args")); j++) {
				const char *name = scalar(item(o, names, j));
				int nr = seccomp_syscall_resolve_name_arch(sc_arch_token((ir_arch)a), name);
				size_t *c = nr < 0 ? NULL : &cost[a * 1024 + ((uint32_t)nr & 1023)];
				if (!c || *c)
					continue;
				scmp_filter_ctx one = runc_filter(o, 1u << a, name, opt2, p, d);
				long n = one ? export_len(one, d) : -1;
				if (one)
					seccomp_release(one);
				*c = n > base ? (size_t)(n - base) : 0;
			}
		}
	}
}

int sc_oci_check_size(const ir_policy *p, const char *json, size_t len, bool spo, diag_ctx *d)
{
	oci_doc o = { .spo = spo };
	yaml_parser_t ps;
	yaml_parser_initialize(&ps);
	yaml_parser_set_input_string(&ps, (const unsigned char *)json, len);
	int ok = yaml_parser_load(&ps, &o.doc);
	yaml_parser_delete(&ps);
	if (!ok || !(o.root = yaml_document_get_root_node(&o.doc))) {
		diag_error(d, p->loc, "seccomp oci: cannot read back the profile");
		if (ok)
			yaml_document_delete(&o.doc);
		return -1;
	}
	unsigned mask = profile_arches(&o);
	bool opt2 = name_count(&o) > 32;
	scmp_filter_ctx ctx = runc_filter(&o, mask, NULL, opt2, p, d);
	long n = ctx ? export_len(ctx, d) : -1;
	if (ctx)
		seccomp_release(ctx);
	size_t stub = stub_len(&o, mask);
	int rc = n < 0 ? -1 : 0;
	if (n >= 0 && (size_t)n + stub > BPF_MAXINSNS) {
		diag_error(d, p->loc, "seccomp oci: runc would build a filter of %zu instructions "
			   "from this profile (libseccomp's %ld plus its %zu-instruction ENOSYS "
			   "stub); the kernel loads at most %d (BPF_MAXINSNS), so the container "
			   "would not start; nothing written (simplify the argument conditions "
			   "below: the runtime builds one filter, so --allow-split cannot help)",
			   (size_t)n + stub, n, stub, BPF_MAXINSNS);
		size_t *cost = xcalloc(IR_NARCH * 1024, sizeof *cost);
		entry_costs(&o, mask, opt2, p, cost, d);
		sc_costliest_notes(p, cost, 5, d);
		free(cost);
		rc = -1;
	}
	yaml_document_delete(&o.doc);
	return rc;
}
