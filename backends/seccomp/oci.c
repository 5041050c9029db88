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

#include <stdlib.h>
#include <string.h>

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
