/* backend.c - the shared backend helpers of backend.h: the registry,
 * lookup, the --allow-partial check and the artifact header. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKEND(n) &backend_##n,
const backend *const backends_all[] = {
#include "registry.def"
	NULL
};
#undef BACKEND

const backend *backend_find(const char *name)
{
	for (size_t i = 0; backends_all[i]; i++)
		if (!strcmp(backends_all[i]->name, name))
			return backends_all[i];
	return NULL;
}

const char *backend_names(void)
{
	static char names[256];
	if (!names[0])
		for (size_t i = 0; backends_all[i]; i++)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
				 i ? "," : "", backends_all[i]->name);
	return names;
}

const char *support_name(support_level l)
{
	switch (l) {
	case SUPPORT_EXACT: return "exact";
	case SUPPORT_PARTIAL: return "partial";
	case SUPPORT_NONE: return "unsupported";
	}
	return "?";
}

backend_facts backend_prepare(const backend *b, const ir_policy *p)
{
	backend_facts none = { 0 };
	return b->prepare ? b->prepare(p) : none;
}

/* An allow decides nothing that the domain's allow default would not:
 * verdicts combine most-restrictive-first, so removing it changes no
 * decision, and an artifact that ignores it decides as ir_decide does. */
support backend_classify(const backend *b, const ir_policy *p, backend_facts f,
			 const ir_stmt *s)
{
	support exact = { SUPPORT_EXACT, NULL };
	if (s->action.verdict == IR_ALLOW && p->defaults[s->domain].verdict == IR_ALLOW)
		return exact;
	return b->classify(p, f, s);
}

static unsigned covered;          /* bit per domain; 0: not given */

int backend_set_domains(const char *list)
{
	covered = 0;
	if (!list)
		return 0;
	if (!strcmp(list, "all")) {
		covered = (1u << IR_NDOMAIN) - 1;
		return 0;
	}
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int d = 0;
		while (d < IR_NDOMAIN && strcmp(ir_domain_name((ir_domain)d), t))
			d++;
		if (d == IR_NDOMAIN)
			rc = -1;
		else
			covered |= 1u << d;
	}
	free(dup);
	if (!covered)
		rc = -1;
	return rc;
}

static bool from_library(src_loc l)
{
	return l.file && l.file->builtin;
}

static support default_support(const backend *b, const ir_policy *p, backend_facts f, int dom);

bool backend_left_stmt(const backend *b, const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	if (covered)
		return !(covered & (1u << s->domain));
	return from_library(s->loc) && backend_classify(b, p, f, s).level != SUPPORT_EXACT;
}

bool backend_left_default(const backend *b, const ir_policy *p, backend_facts f, int dom)
{
	if (covered)
		return !(covered & (1u << dom));
	return p->default_set[dom] && from_library(p->default_loc[dom]) &&
	       default_support(b, p, f, dom).level == SUPPORT_NONE;
}

/* "file (12 statements, the default), exec (3 statements)", or NULL. */
static char *left_summary(const backend *b, const ir_policy *p, backend_facts f)
{
	buf s;
	buf_init(&s);
	for (int dom = 0; dom < IR_NDOMAIN; dom++) {
		size_t n = 0, partly = 0;
		for (size_t i = 0; i < p->dom[dom].n; i++) {
			support_level lv = backend_classify(b, p, f, &p->dom[dom].v[i]).level;
			if (lv != SUPPORT_EXACT && backend_left_stmt(b, p, f, &p->dom[dom].v[i])) {
				n++;
				partly += lv == SUPPORT_PARTIAL;
			}
		}
		bool def = default_support(b, p, f, dom).level != SUPPORT_EXACT &&
			   backend_left_default(b, p, f, dom);
		if (!n && !def)
			continue;
		buf_printf(&s, "%s%s (", s.len ? ", " : "", ir_domain_name((ir_domain)dom));
		if (n)
			buf_printf(&s, "%zu statement%s", n, n == 1 ? "" : "s");
		if (partly)
			buf_printf(&s, ", %zu of them enforced here in part", partly);
		if (def)
			buf_printf(&s, "%s`default %s`", n ? ", " : "",
				   ir_verdict_name(p->defaults[dom].verdict));
		buf_puts(&s, ")");
	}
	if (!s.len) {
		buf_free(&s);
		return NULL;
	}
	return buf_cstr(&s);
}

/* The support of domain dom's default: exact when it is allow (nothing to
 * enforce) or the backend enforces every default. */
static support default_support(const backend *b, const ir_policy *p, backend_facts f, int dom)
{
	support exact = { SUPPORT_EXACT, NULL };
	if (p->defaults[dom].verdict == IR_ALLOW || !b->classify_default)
		return exact;
	return b->classify_default(p, f, (ir_domain)dom);
}

/* Whether b leaves statement s inexact: neither enforced exactly nor left
 * to the other enforcers. *su then says how far, with a reason. Refusals
 * (backend_check) and an artifact's header (backend_header) both ask. */
static bool stmt_inexact(const backend *b, const ir_policy *p, backend_facts f, const ir_stmt *s,
			 support *su)
{
	*su = backend_classify(b, p, f, s);
	if (!su->why)
		su->why = "no reason given";
	return su->level != SUPPORT_EXACT && !backend_left_stmt(b, p, f, s);
}

/* The same for domain dom's default; *at is where it was written (the
 * policy when nowhere). */
static bool default_inexact(const backend *b, const ir_policy *p, backend_facts f, int dom,
			    support *su, src_loc *at)
{
	*su = default_support(b, p, f, dom);
	if (!su->why)
		su->why = "no reason given";
	*at = p->default_set[dom] ? p->default_loc[dom] : p->loc;
	return su->level != SUPPORT_EXACT && !backend_left_default(b, p, f, dom);
}

/* A default the target cannot enforce is refused like a statement: before,
 * `default deny file;` built for seccomp as "allow everything" in silence. */
static int check_defaults(const backend *b, const ir_policy *p, backend_facts f,
			  bool allow_partial, diag_ctx *d)
{
	int refused = 0;
	for (int dom = 0; dom < IR_NDOMAIN; dom++) {
		support su;
		src_loc at;
		if (!default_inexact(b, p, f, dom, &su, &at))
			continue;
		const char *v = ir_verdict_name(p->defaults[dom].verdict);
		const char *dn = ir_domain_name((ir_domain)dom);
		if (allow_partial) {
			diag_warn(d, at, "%s enforces `default %s %s` %s: %s", b->name, v, dn,
				  su.level == SUPPORT_PARTIAL ? "only partially" : "not at all",
				  su.why);
		} else {
			diag_error(d, at, "target %s cannot enforce `default %s %s`%s: %s "
				   "(use --allow-partial to build anyway)", b->name, v, dn,
				   su.level == SUPPORT_PARTIAL ? " exactly" : "", su.why);
			refused++;
		}
	}
	return refused;
}

int backend_check(const backend *b, const ir_policy *p, bool allow_partial,
		  diag_ctx *d)
{
	backend_facts f = backend_prepare(b, p);
	int refused = check_defaults(b, p, f, allow_partial, d);
	for (int dom = 0; dom < IR_NDOMAIN; dom++) {
		for (size_t i = 0; i < p->dom[dom].n; i++) {
			const ir_stmt *s = &p->dom[dom].v[i];
			support su;
			if (!stmt_inexact(b, p, f, s, &su))
				continue;
			if (allow_partial) {
				diag_warn(d, s->loc, "%s enforces this statement %s: %s",
					  b->name, su.level == SUPPORT_PARTIAL ?
					  "only partially" : "not at all", su.why);
			} else {
				diag_error(d, s->loc, "target %s cannot enforce this "
					   "statement%s: %s (use --allow-partial to "
					   "build anyway)", b->name,
					   su.level == SUPPORT_PARTIAL ? " exactly" : "",
					   su.why);
				refused++;
			}
		}
	}
	char *left = left_summary(b, p, f);
	if (left && !refused)
		diag_note(d, p->loc, "%s artifact: left to the other enforcers: %s", b->name, left);
	free(left);
	return refused;
}

static void put_loc(buf *out, src_loc l)
{
	if (l.file) {
		buf_puts(out, l.file->path);
		buf_puts(out, ":");
		buf_put_dec(out, l.line);
		buf_puts(out, ":");
		buf_put_dec(out, l.col);
	} else {
		buf_puts(out, "<no location>");
	}
}

size_t backend_implied_list(const backend *b, const ir_policy *p, backend_implied out[2])
{
	static const struct { const char *sys, *what; } imp[] = {
		{ "io_uring_setup", "io_uring closed: io_uring_setup, io_uring_enter and "
		  "io_uring_register fail with EPERM, since io_uring could do what this denies" },
		{ "clone3", "clone3 fails with ENOSYS (libc falls back to clone, whose flags "
		  "are checked), since the flags of clone3 cannot be read" },
	};
	/* does this backend decide syscalls at all? */
	ir_stmt sys;
	memset(&sys, 0, sizeof sys);
	sys.domain = IR_SYSCALL;
	sys.action.verdict = IR_DENY;
	sys.u.sys.name = "clone3";
	if (b->classify(p, backend_prepare(b, p), &sys).level == SUPPORT_NONE)
		return 0;
	size_t n = 0;
	for (size_t i = 0; i < sizeof imp / sizeof *imp; i++) {
		ir_implied_action a;
		if (ir_implied(p, imp[i].sys, &a)) {
			out[n].what = imp[i].what;
			out[n++].by = a.by;
		}
	}
	return n;
}

void backend_header(const backend *b, const ir_policy *p, const backend_opts *o,
		    const char *comment, buf *out)
{
	buf_printf(out, "%sgenerated by polc %s; do not edit\n", comment,
		   o && o->polc_version ? o->polc_version : "?");
	buf_printf(out, "%spolicy: %s\n", comment, p->name ? p->name : "?");
	char hash[IR_SOURCE_HASH_SIZE];
	buf_printf(out, "%ssource-sha256: %s\n", comment, ir_source_hash(p, hash));
	buf_printf(out, "%starget: %s\n", comment, b->name);
	backend_facts f = backend_prepare(b, p);
	for (int dom = 0; dom < IR_NDOMAIN; dom++) {
		for (size_t i = 0; i < p->dom[dom].n; i++) {
			const ir_stmt *s = &p->dom[dom].v[i];
			support su;
			if (!stmt_inexact(b, p, f, s, &su))
				continue;
			/* puts, no formatter: a policy of 100,000 statements
			 * has as many lines */
			buf_puts(out, comment);
			buf_puts(out, "not enforced exactly: ");
			put_loc(out, s->loc);
			buf_puts(out, ": ");
			buf_puts(out, support_name(su.level));
			buf_puts(out, ": ");
			buf_puts(out, su.why);
			buf_puts(out, "\n");
		}
	}
	for (int dom = 0; dom < IR_NDOMAIN; dom++) {
		support su;
		src_loc at;
		if (!default_inexact(b, p, f, dom, &su, &at))
			continue;
		buf_printf(out, "%snot enforced exactly: ", comment);
		put_loc(out, at);
		buf_printf(out, ": %s: default %s %s: %s\n", support_name(su.level),
			   ir_verdict_name(p->defaults[dom].verdict), ir_domain_name((ir_domain)dom),
			   su.why);
	}
	char *left = left_summary(b, p, f);
	if (left)
		buf_printf(out, "%sleft to the other enforcers: %s\n", comment, left);
	free(left);
	backend_implied imp[2];
	size_t nimp = backend_implied_list(b, p, imp);
	for (size_t i = 0; i < nimp; i++) {
		buf_printf(out, "%simplied by ", comment);
		put_loc(out, imp[i].by->loc);
		buf_printf(out, ": %s\n", imp[i].what);
	}
}
