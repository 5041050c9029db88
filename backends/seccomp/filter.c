/* filter.c - plan -> libseccomp filter -> bpf / pfc / oci artifacts, and
 * the backend_seccomp descriptor.
 *
 * One libseccomp context per ABI, merged: libseccomp takes syscall numbers
 * in the native numbering and translates them by name, so each rule is
 * added by name and the translation is checked against the plan's number.
 */
#include "seccomp.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Binary-tree syscall dispatch (libseccomp >= 2.5): O(log n) instructions
 * per syscall instead of a linear scan; measured by test_seccomp_size. */
#define SC_OPTIMIZE 2

uint32_t sc_action(ir_action a)
{
	switch (a.verdict) {
	case IR_ALLOW: return SCMP_ACT_ALLOW;
	case IR_AUDIT: return SCMP_ACT_LOG;
	case IR_DENY: return SCMP_ACT_ERRNO((uint32_t)a.err & 0xffff);
	case IR_KILL: return SCMP_ACT_KILL_PROCESS;
	}
	return SCMP_ACT_KILL_PROCESS;
}

uint32_t sc_arch_token(ir_arch a)
{
	switch (a) {
	case IR_ARCH_X86_64: return SCMP_ARCH_X86_64;
	case IR_ARCH_I386: return SCMP_ARCH_X86;
	case IR_ARCH_X32: return SCMP_ARCH_X32;
	default: return 0;
	}
}

static scmp_filter_ctx ctx_for(const sc_plan *pl, ir_arch a, diag_ctx *d)
{
	scmp_filter_ctx ctx = seccomp_init(sc_action(pl->def));
	if (!ctx)
		return NULL;
	uint32_t tok = sc_arch_token(a);
	int rc = 0;
	if (tok != seccomp_arch_native()) {
		rc = seccomp_arch_add(ctx, tok);
		if (!rc)
			rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	}
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, sc_action(pl->badarch));
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, SC_OPTIMIZE);
	if (rc) {
		diag_error(d, src_loc_none(), "seccomp: libseccomp setup for %s: %s",
			   ir_arch_name(a), strerror(-rc));
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* On i386 the socket and SysV IPC calls (socket 359, shmget 395, ...) also
 * exist multiplexed through socketcall(2)/ipc(2) (arg0 = the call), and
 * libseccomp adds every rule for such a name to the multiplexed syscall too
 * (its arg0 condition replaced by the call, the others kept: with exact
 * rules and conditions it refuses, so these rules are added non-exact).
 * polc's meaning keeps the two apart: the name is the direct syscall, and
 * socketcall/ipc are decided by their own statements. That holds in the
 * filter only when socketcall/ipc has one unconditional rule: added first
 * (its number is lower), it swallows the rules added to it later. Anything
 * else is refused (plan.c, plan_sys). */
bool sc_one_uncond_rule(const sc_archplan *ap, uint32_t nr)
{
	for (size_t i = 0; i < ap->n; i++)
		if (ap->v[i].nr == nr)
			return ap->v[i].n == 1 && ap->v[i].v[0].dnf.n == 1 &&
			       ap->v[i].v[0].dnf.v[0].n == 0;
	return false;
}

static int add_sys(scmp_filter_ctx ctx, ir_arch a, const sc_archplan *ap, const sc_sysplan *s,
		   diag_ctx *d)
{
	int nr = seccomp_syscall_resolve_name(s->name);
	int byname = seccomp_syscall_resolve_name_arch(sc_arch_token(a), s->name);
	int mux = sys_multiplexed(a, s->nr);
	if (byname != (int)s->nr && mux < 0)
		nr = __NR_SCMP_ERROR;
	if (nr == __NR_SCMP_ERROR) {
		diag_error(d, src_loc_none(), "seccomp: libseccomp cannot translate "
			   "%s (%u) on %s", s->name, s->nr, ir_arch_name(a));
		return -1;
	}
	if (mux >= 0 && !sc_one_uncond_rule(ap, (uint32_t)mux)) {
		/* plan.c refuses these with the statement's location */
		diag_error(d, src_loc_none(), "seccomp: %s (%u) on %s: its rules would "
			   "change %s(2)", s->name, s->nr, ir_arch_name(a),
			   mux == 117 ? "ipc" : "socketcall");
		return -1;
	}
	for (size_t i = 0; i < s->n; i++) {
		const sc_region *r = &s->v[i];
		for (size_t j = 0; j < r->dnf.n; j++) {
			const sc_conj *c = &r->dnf.v[j];
			int rc = mux >= 0
				 ? seccomp_rule_add_array(ctx, sc_action(r->act), nr,
							  (unsigned)c->n, c->v)
				 : seccomp_rule_add_exact_array(ctx, sc_action(r->act), nr,
								(unsigned)c->n, c->v);
			if (rc) {
				diag_error(d, src_loc_none(), "seccomp: libseccomp "
					   "refused a rule for %s on %s: %s", s->name,
					   ir_arch_name(a), strerror(-rc));
				return -1;
			}
		}
	}
	return 0;
}

scmp_filter_ctx sc_filter_new(const sc_plan *pl, diag_ctx *d)
{
	scmp_filter_ctx all = NULL;
	for (int a = 0; a < IR_NARCH; a++) {
		if (!pl->arch[a].present)
			continue;
		scmp_filter_ctx ctx = ctx_for(pl, (ir_arch)a, d);
		if (!ctx)
			goto fail;
		for (size_t i = 0; i < pl->arch[a].n; i++)
			if (add_sys(ctx, (ir_arch)a, &pl->arch[a], &pl->arch[a].v[i], d)) {
				seccomp_release(ctx);
				goto fail;
			}
		if (!all) {
			all = ctx;
		} else {
			int rc = seccomp_merge(all, ctx);
			if (rc) {
				diag_error(d, src_loc_none(), "seccomp: merging the %s "
					   "filter: %s", ir_arch_name(a), strerror(-rc));
				seccomp_release(ctx);
				goto fail;
			}
		}
	}
	if (!all)
		diag_error(d, src_loc_none(), "seccomp: the policy names no architecture");
	return all;
fail:
	if (all)
		seccomp_release(all);
	return NULL;
}

/* libseccomp 2.5 exports only to a file descriptor: use a memfd. */
int sc_export(scmp_filter_ctx ctx, bool pfc, buf *out, diag_ctx *d)
{
	int fd = memfd_create("polc-seccomp", MFD_CLOEXEC);
	if (fd < 0) {
		diag_error(d, src_loc_none(), "seccomp: memfd_create: %s", strerror(errno));
		return -1;
	}
	int rc = pfc ? seccomp_export_pfc(ctx, fd) : seccomp_export_bpf(ctx, fd);
	if (rc) {
		diag_error(d, src_loc_none(), "seccomp: export: %s", strerror(-rc));
		close(fd);
		return -1;
	}
	off_t len = lseek(fd, 0, SEEK_END);
	char tmp[4096];
	for (off_t off = 0; off < len;) {
		ssize_t n = pread(fd, tmp, sizeof tmp, off);
		if (n <= 0) {
			diag_error(d, src_loc_none(), "seccomp: reading the export: %s",
				   n < 0 ? strerror(errno) : "short read");
			close(fd);
			return -1;
		}
		buf_put(out, tmp, (size_t)n);
		off += n;
	}
	close(fd);
	return 0;
}

static int by_cost(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	return x[1] < y[1] ? 1 : x[1] > y[1] ? -1 : (x[0] > y[0]) - (x[0] < y[0]);
}

void sc_costliest_notes(const ir_policy *p, const size_t *block_len, size_t max, diag_ctx *d)
{
	size_t (*v)[2] = xcalloc(IR_NARCH * 1024, sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < IR_NARCH * 1024; i++)
		if (block_len[i]) {
			v[n][0] = i;
			v[n++][1] = block_len[i];
		}
	xqsort(v, n, sizeof *v, by_cost);
	for (size_t k = 0; k < n && k < max; k++) {
		ir_arch a = (ir_arch)(v[k][0] / 1024);
		uint32_t nr = (uint32_t)(v[k][0] % 1024) | (a == IR_ARCH_X32 ? IR_X32_SYSCALL_BIT : 0);
		char name[64];
		if (!sys_name(a, nr, name, sizeof name))
			snprintf(name, sizeof name, "%u", nr);
		const ir_stmt_list *sl = &p->dom[IR_SYSCALL];
		size_t nst = 0;
		src_loc at = p->loc;
		for (size_t i = 0; i < sl->n; i++)
			if (sl->v[i].u.sys.nr[a] == (int)nr && sl->v[i].u.sys.ncond) {
				if (!nst)
					at = sl->v[i].loc;
				nst++;
			}
		diag_note(d, at, "%s on %s: %zu instructions of argument checks, from %zu "
			  "conditional statement%s (the first here)", name, ir_arch_name(a),
			  v[k][1], nst, nst == 1 ? "" : "s");
	}
	free(v);
}

/* The program would not load: say so, with the syscalls whose argument
 * checks cost most and the statements behind them. */
static void too_big(const ir_policy *p, const sc_codegen_info *ci, diag_ctx *d)
{
	diag_error(d, p->loc, "seccomp: the filter would be %zu instructions; the kernel "
		   "loads at most %d (BPF_MAXINSNS); nothing written (simplify the "
		   "argument conditions below, or split the policy)", ci->len, BPF_MAXINSNS);
	sc_costliest_notes(p, ci->block_len, 5, d);
}

int sc_build_bpf_mix(const ir_policy *p, bool allow_partial, const sys_freq *mix,
		     size_t nmix, diag_ctx *d, buf *out, sc_codegen_info *ci)
{
	sc_plan pl;
	if (sc_plan_build_for(p, allow_partial, false, d, &pl))
		return -1;
	buf b;
	buf_init(&b);
	sc_codegen(&pl, mix, nmix, &b, ci);
	if (b.len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		/* the argument blocks' lengths name the costliest statements:
		 * gathered only now (the same program again), since an info is
		 * two 24 KiB tables to clear */
		sc_codegen_info *own = ci ? ci : xcalloc(1, sizeof *own);
		if (!ci) {
			buf again;
			buf_init(&again);
			sc_codegen(&pl, mix, nmix, &again, own);
			buf_free(&again);
		}
		too_big(p, own, d);
		if (!ci)
			free(own);
		sc_plan_free(&pl);
		buf_free(&b);
		return -1;
	}
	sc_plan_free(&pl);
	buf_put(out, b.data, b.len);
	buf_free(&b);
	return 0;
}

static int build(const ir_policy *p, bool allow_partial, bool pfc, buf *out, diag_ctx *d)
{
	if (!pfc)
		return sc_build_bpf_mix(p, allow_partial, NULL, 0, d, out, NULL);
	sc_plan pl;
	if (sc_plan_build(p, allow_partial, d, &pl))
		return -1;
	scmp_filter_ctx ctx = sc_filter_new(&pl, d);
	sc_plan_free(&pl);
	if (!ctx)
		return -1;
	int rc = sc_export(ctx, pfc, out, d);
	seccomp_release(ctx);
	return rc;
}

int sc_build_bpf(const ir_policy *p, bool allow_partial, diag_ctx *d, buf *out)
{
	return build(p, allow_partial, false, out, d);
}

static int emit(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d)
{
	const char *fmt = o && o->format ? o->format : "bpf";
	bool partial = o && o->allow_partial;
	if (!strcmp(fmt, "bpf"))
		return build(p, partial, false, out, d);
	if (!strcmp(fmt, "pfc")) {
		backend_header(&backend_seccomp, p, o, "# ", out);
		return build(p, partial, true, out, d);
	}
	if (!strcmp(fmt, "oci") || !strcmp(fmt, "spo") || !strcmp(fmt, "k8s")) {
		sc_plan pl;
		if (sc_plan_build(p, partial, d, &pl))
			return -1;
		/* Make sure libseccomp accepts it too (runc builds it with
		 * libseccomp). */
		scmp_filter_ctx ctx = sc_filter_new(&pl, d);
		if (!ctx) {
			sc_plan_free(&pl);
			return -1;
		}
		seccomp_release(ctx);
		if (strcmp(fmt, "oci")) {
			int rc = sc_emit_spo(p, &pl, o, out, d);
			sc_plan_free(&pl);
			return rc;
		}
		buf json;
		buf_init(&json);
		int rc = sc_emit_oci(p, &pl, o, &json, d);
		sc_plan_free(&pl);
		if (!rc)
			rc = sc_oci_check_size(p, json.data, json.len, false, d);
		if (!rc)
			buf_put(out, json.data, json.len);
		buf_free(&json);
		return rc;
	}
	diag_error(d, src_loc_none(), "seccomp: unknown format '%s' (bpf, pfc, oci, spo, k8s)", fmt);
	return -1;
}

int sc_emit_profiled(const ir_policy *p, const backend_opts *o, const sys_freq *mix,
		     size_t n, buf *out, diag_ctx *d)
{
	sc_layout_info info;
	int rc = sc_build_bpf_profiled(p, o->allow_partial, mix, n, d, out, &info);
	if (!rc)
		fprintf(stderr, "polc: --profile-from %s: laid out for its mix of %zu syscalls "
			"(%zu tested first); %.2f -> %.2f instructions per syscall on its mix\n",
			o->profile_trace, info.eligible, info.hot, info.mean_before, info.mean_after);
	return rc;
}

static int emit_split(const ir_policy *p, const backend_opts *o, buf **out, size_t *n,
		      diag_ctx *d)
{
	sc_filters f;
	if (sc_build_bpf_split(p, o && o->allow_partial, d, &f))
		return -1;
	*out = f.v;
	*n = f.n;
	return 0;
}

static const char *const formats[] = { "bpf", "pfc", "oci", "spo", "k8s", NULL };
static const char *const binary[] = { "bpf", NULL };

const backend backend_seccomp = {
	.name = "seccomp",
	.title = "seccomp",
	.formats = formats,
	.classify = sc_classify,
	.classify_default = sc_classify_default,
	.emit = emit,
	.binary_formats = binary,
	.profile_format = "bpf",
	.emit_profiled = sc_emit_profiled,
	.split_format = "bpf",
	.no_split = "oci, spo and k8s hand the rules to the container runtime, which builds "
		    "one filter from them with libseccomp and installs it (the OCI runtime spec "
		    "has no way to ask for several); pfc is libseccomp's own export",
	.emit_split = emit_split,
	.confine_split = sc_confine_split,
	.confine = sc_confine,
	.audit = AUDIT_NOTIFY,
	.audit_filter = sc_build_audit_bpf,
	.probes = PROBES_FILTER,
	.probe_format = "bpf",
};
