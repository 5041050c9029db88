/* cmd_verify.c - polc verify: derive probes from every statement, run them
 * on the real kernel under each backend's output, compare with ir_decide,
 * and print a matrix rule × backend. */
#include "cli.h"
#include "commands.h"
#include "../backends/backend.h"
#include "../compiler/util.h"
#include "../verify/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
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

/* The syscall through which seccomp sees an event of another domain: a
 * network statement is a socket(2) call, mount/umount/pivot_root, ptrace
 * and signal statements are their syscalls (the only level seccomp sees). */
static void as_syscall(const ir_event *ev, ir_event *sys)
{
	memset(sys, 0, sizeof *sys);
	sys->domain = IR_SYSCALL;
	sys->u.sys.audit_arch = ir_arch_audit(IR_ARCH_X86_64);
	switch (ev->domain) {
	case IR_NETWORK:
		sys->u.sys.nr = SYS_socket;
		sys->u.sys.args[0] = (uint64_t)ev->u.net.family;
		sys->u.sys.args[1] = (uint64_t)ev->u.net.type;
		sys->u.sys.args[2] = (uint64_t)ev->u.net.protocol;
		break;
	case IR_MOUNT:
		sys->u.sys.nr = ev->u.mount.op == IR_MOUNT_MOUNT ? SYS_mount :
				ev->u.mount.op == IR_MOUNT_UMOUNT ? SYS_umount2 : SYS_pivot_root;
		break;
	case IR_PTRACE: sys->u.sys.nr = SYS_ptrace; break;
	case IR_SIGNAL: sys->u.sys.nr = SYS_kill; break;
	default: *sys = *ev; break;
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
	case OUT_DENIED: snprintf(out, n, "denied errno %d", o->err); break;
	case OUT_KILLED: snprintf(out, n, "killed"); break;
	default: snprintf(out, n, "error: %s", o->why ? o->why : "?"); break;
	}
}

static void verify_seccomp(const ir_policy *p, column *col)
{
	const backend *b = backend_find("seccomp");
	if (!b) {
		col->na = "the seccomp backend is not in this build";
		return;
	}
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			support su = b->classify(p, s);
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
			if (b->classify(p, &p->dom[dd].v[i]).level == SUPPORT_EXACT)
				exact.dom[dd].v[exact.dom[dd].n++] = p->dom[dd].v[i];
	}
	p = &exact;
	buf filter;
	buf_init(&filter);
	backend_opts o = { "bpf", false, NULL, POLC_VERSION };
	diag_ctx d;
	diag_init(&d);
	if (b->emit(p, &o, &filter, &d) < 0) {
		diag_print(&d, stderr, false);
		col->na = "the seccomp backend failed to build the filter";
		diag_free(&d);
		goto out;
	}
	diag_free(&d);
	probe_set ps = { 0 };
	probes_derive(p, IR_NDOMAIN, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		const probe *pr = &ps.v[i];
		if (b->classify(p, pr->from).level != SUPPORT_EXACT)
			continue;
		ir_event ev = pr->ev;
		if (ev.domain == IR_NETWORK)
			ev.u.net.op = IR_NET_CREATE;
		ir_decision want = ir_decide(p, &ev);
		ir_event sys;
		as_syscall(&ev, &sys);
		outcome got = seccomp_probe_run(filter.data, filter.len, &sys);
		cell *c = cell_for(col, pr->from);
		if (got.kind == OUT_SKIPPED) {
			c->skipped++;
			continue;
		}
		c->probes++;
		if (!outcome_matches(&got, &want)) {
			if (!c->mismatches++) {
				char ev_text[256], want_text[64], got_text[96];
				probe_describe(pr, ev_text, sizeof ev_text);
				describe_decision(&want, want_text, sizeof want_text);
				describe_outcome(&got, got_text, sizeof got_text);
				snprintf(c->first_mismatch, sizeof c->first_mismatch,
					 "%s (%s): expected %s, observed %s", ev_text, pr->what,
					 want_text, got_text);
			}
		}
	}
	probes_free(&ps);
out:
	buf_free(&filter);
	for (int dd = 0; dd < IR_NDOMAIN; dd++)
		free(exact.dom[dd].v);
}

static void not_here(const ir_policy *p, column *col, const char *target)
{
	const backend *b = backend_find(target);
	col->na = b ? "needs the kernel lab: AppArmor and BPF LSM probes run under tests/vm (not yet wired into verify)"
		    : "backend not in this build";
	if (!b)
		return;
	for (int d = 0; d < IR_NDOMAIN; d++)
		for (size_t i = 0; i < p->dom[d].n; i++) {
			const ir_stmt *s = &p->dom[d].v[i];
			support su = b->classify(p, s);
			cell *c = cell_for(col, s);
			su.level == SUPPORT_EXACT ? c->exact++ : su.level == SUPPORT_PARTIAL ? c->partial++ : c->none++;
			if (su.level != SUPPORT_EXACT && !c->why)
				c->why = su.why;
		}
}

static const char *cell_status(const column *col, const cell *c, char *out, size_t n)
{
	if (c->mismatches)
		snprintf(out, n, "MISMATCH %d/%d", c->mismatches, c->probes);
	else if (!c->exact && !c->partial)
		snprintf(out, n, "n/a");
	else if (col->na || !c->probes)
		snprintf(out, n, "unverified");
	else if (c->partial || c->none)
		snprintf(out, n, "partial (%d probes)", c->probes);
	else
		snprintf(out, n, "proven (%d probes)", c->probes);
	return out;
}

static void print_json(const ir_policy *p, column *cols, int ncol, int mismatches)
{
	printf("{\"policy\":\"%s\",\"mismatches\":%d,\"targets\":[", p->name, mismatches);
	for (int t = 0; t < ncol; t++) {
		column *col = &cols[t];
		printf("%s{\"target\":\"%s\"", t ? "," : "", col->target);
		if (col->na)
			printf(",\"not_here\":\"%s\"", col->na);
		printf(",\"rules\":[");
		for (int i = 0; i < col->ngroups; i++) {
			cell *c = &col->cells[i];
			char st[64];
			printf("%s{\"rule\":\"%s\",\"status\":\"%s\",\"probes\":%d,\"mismatches\":%d,"
			       "\"exact\":%d,\"partial\":%d,\"unsupported\":%d}",
			       i ? "," : "", c->name, cell_status(col, c, st, sizeof st), c->probes,
			       c->mismatches, c->exact, c->partial, c->none);
		}
		printf("]}");
	}
	printf("]}\n");
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
	int r = cli_compile(&a, true);
	if (r != EXIT_OK) {
		cli_done(&a);
		return r;
	}
	const char *targets = a.target && strcmp(a.target, "all") ? a.target : "seccomp,apparmor,bpf";
	column *cols = xcalloc(3, sizeof *cols);
	int ncol = 0;
	char *list = xstrdup(targets);
	for (char *t = strtok(list, ","); t && ncol < 3; t = strtok(NULL, ",")) {
		if (strcmp(t, "seccomp") && strcmp(t, "apparmor") && strcmp(t, "bpf")) {
			fprintf(stderr, "polc verify: unknown target '%s'\n", t);
			free(list);
			free(cols);
			cli_done(&a);
			return EXIT_USAGE;
		}
		column *col = &cols[ncol++];
		col->target = t;
		if (!strcmp(t, "seccomp"))
			verify_seccomp(a.pol, col);
		else
			not_here(a.pol, col, t);
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
		printf("policy %s: %d probes, %d mismatches\n", a.pol->name, probes, mismatches);
		printf("%-44s", "rule");
		for (int t = 0; t < ncol; t++)
			printf(" %-24s", cols[t].target);
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
					printf(" %-24s", st);
				}
				printf("\n");
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
	free(list);
	free(cols);
	cli_done(&a);
	return mismatches ? EXIT_POLICY : EXIT_OK;
}
