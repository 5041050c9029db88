/* seccomp.h - the seccomp backend: IR in, a libseccomp filter out.
 *
 * Takes: an ir_policy. Only the syscall domain and the syscall-level parts
 *        of mount, network (socket(2) family/type/protocol), ptrace and
 *        signal are lowered; classify() says which statements are exact.
 * Gives: a plan (per arch, per syscall number, disjoint argument regions
 *        each with one action), the libseccomp filter built from it, and the
 *        artifacts "bpf" (raw sock_filter array, host order, as
 *        seccomp_export_bpf writes it), "pfc" (header + seccomp_export_pfc),
 *        "oci" (OCI / Docker seccomp JSON), "spo" (the same profile as a
 *        Security Profiles Operator SeccompProfile) and "k8s" (that object
 *        plus the pod securityContext selecting it).
 * Promises: precedence is polc's (kill > deny > audit > allow, first in
 *        source order among equals), never libseccomp's merge rules: the
 *        regions of one syscall are disjoint, computed here. Comparisons on
 *        32-bit arguments look only at the lower half (masked-eq terms with
 *        masks inside 0xffffffff). Under a deny default, syscalls unknown to
 *        libseccomp's table fail with ENOSYS, known ones with the policy's
 *        errno. A syscall allowed without conditions gets no argument loads.
 */
#ifndef POLC_SECCOMP_H
#define POLC_SECCOMP_H

#include <seccomp.h>
#include <linux/filter.h>
#include "../backend.h"
#include "../../compiler/syscalls.h"

/* A disjunction of conjunctions of libseccomp comparisons. In every
 * conjunction there is at most one comparison per argument (libseccomp
 * refuses two). */
typedef struct { struct scmp_arg_cmp *v; size_t n, cap; } sc_conj;
typedef struct { sc_conj *v; size_t n, cap; } sc_dnf;

typedef struct {
	ir_action act;         /* effective (mode applied) */
	sc_dnf dnf;
} sc_region;

/* First match wins: the plan for polc's own generator keeps each domain's
 * statements as an ordered list (most restrictive written verdict first,
 * source order among equals: ir_decide's order) instead of disjoint
 * regions, so no statement is ever negated and any combination of
 * conditions stays linear in size. */
typedef struct { ir_arg_cond *c; size_t n; } sc_alt;   /* a conjunction */
typedef struct {
	ir_action act;
	sc_alt *alt;           /* matches when one alternative holds (none: never) */
	size_t nalt;
	uint8_t low;           /* bit i: argument i is compared on its lower 32
	                          bits (32-bit C type, or the i386 ABI) */
} sc_rule;
typedef struct {
	sc_rule *v;
	size_t n;
	ir_action def;         /* when none matches */
	bool present;
} sc_rules;

typedef struct {
	uint32_t nr;           /* arch's number (x32: with the 0x40000000 bit) */
	char name[64];
	sc_region *v;          /* disjoint; regions with the filter default's
	                          action are left out */
	size_t n;
	bool complete;         /* none was left out: the regions cover every
	                          argument value (codegen may then test all but
	                          one of them) */
	bool ordered;          /* built for polc's generator: v is empty, the
	                          decision is the more restrictive of sys's and
	                          dom's (syscall-level domain, when present) */
	sc_rules sys, dom;
} sc_sysplan;

typedef struct {
	bool present;
	sc_sysplan *v;
	size_t n, cap;
} sc_archplan;

/* Does the plan give syscall nr one rule without conditions? (filter.c: an
 * i386 socketcall/ipc rule that swallows libseccomp's multiplexed copies.) */
bool sc_one_uncond_rule(const sc_archplan *ap, uint32_t nr);

struct ir_arena;
typedef struct {
	ir_action def;         /* filter default (ENOSYS under a deny default) */
	ir_action badarch;     /* ABIs the policy does not name */
	sc_archplan arch[IR_NARCH];
	struct ir_arena *mem;  /* the ordered rules' arrays and alternatives
	                          (sc_rules), freed with the plan at once */
} sc_plan;

/* Most conjunctions one statement's region may expand to. */
#define SC_MAX_CONJ 4096

int sc_plan_build(const ir_policy *p, bool allow_partial, diag_ctx *d, sc_plan *out);
/* libseccomp false: the plan is for polc's own generator, which compares
 * every word itself; the refusals of what libseccomp would merge or
 * translate wrongly (same-action range pairs, x32 upper halves, i386
 * socketcall/ipc copies) do not apply. sc_plan_build() is libseccomp true
 * (PFC, OCI, SPO: runc builds those with libseccomp). */
int sc_plan_build_for(const ir_policy *p, bool allow_partial, bool libseccomp, diag_ctx *d,
		      sc_plan *out);
void sc_plan_free(sc_plan *pl);

/* The libseccomp filter of a plan. Returns NULL with a diagnostic. */
scmp_filter_ctx sc_filter_new(const sc_plan *pl, diag_ctx *d);
/* Policy -> raw BPF program bytes (what `--format bpf` writes): polc's own
 * generator (codegen.c) over the plan; PFC stays libseccomp's export. */
int sc_build_bpf(const ir_policy *p, bool allow_partial, diag_ctx *d, buf *out);
/* sc_build_bpf() with every refusal (kill, trap, errno, trace) turned into
 * SECCOMP_RET_USER_NOTIF: `polc run --mode audit` (audit.c). */
int sc_build_audit_bpf(const ir_policy *p, bool allow_partial, diag_ctx *d, buf *out);
/* Append libseccomp's export of ctx: raw BPF, or PFC text when pfc. */
int sc_export(scmp_filter_ctx ctx, bool pfc, buf *out, diag_ctx *d);

/* polc's own code generator (codegen.c): the plan as a classic BPF
 * program, appended to out as struct sock_filter (host order). The syscalls
 * of mix (NULL: sc_typical_mix) are laid out for a low weighted mean.
 * Never fails; the caller checks the length against BPF_MAXINSNS. */
typedef struct {
	size_t len;            /* instructions */
	size_t hot;            /* syscalls in the jeq chain per ABI block */
	double mean;           /* over the mix, arguments 0 */
	size_t block_len[IR_NARCH * 1024];  /* argument block per syscall, before
	                                       jumps farther than 255 got their ja */
	size_t block_emitted[IR_NARCH * 1024];  /* the same as emitted (split.c) */
} sc_codegen_info;
int sc_codegen(const sc_plan *pl, const sys_freq *mix, size_t nmix, buf *out,
	       sc_codegen_info *info);
/* sc_build_bpf laid out for mix (NULL: typical); ci (may be NULL) gets
 * the generator's figures. Refuses (exit 1 diagnostics, nothing appended)
 * a program over BPF_MAXINSNS, naming the costliest statements. */
int sc_build_bpf_mix(const ir_policy *p, bool allow_partial, const sys_freq *mix,
		     size_t nmix, diag_ctx *d, buf *out, sc_codegen_info *ci);
/* Is the plan's decision for s one action whatever the arguments (a leaf
 * of the number search, no argument block)? */
bool sc_sysplan_const(const sc_sysplan *s);
/* Notes (at most max) naming the syscalls whose argument blocks
 * (block_len, as sc_codegen_info has them) cost most, at their first
 * conditional statement. */
void sc_costliest_notes(const ir_policy *p, const size_t *block_len, size_t max, diag_ctx *d);

/* --allow-split (split.c): the policy as filters to install in order,
 * v[0] first. One when sc_build_bpf's program fits in BPF_MAXINSNS (the
 * same bytes); else the syscall numbers are partitioned (per ABI): each
 * filter decides its own numbers exactly as the one program would and
 * returns SECCOMP_RET_ALLOW for every other call, and v[0] alone also
 * carries the architecture check, the unknown numbers and the default.
 * The kernel runs them all and takes the most restrictive action
 * (bpf_interp_set), which is then the deciding filter's. A syscall whose
 * decision depends on its arguments stays in one filter. Refuses (nothing
 * in *out) a syscall whose own checks exceed BPF_MAXINSNS, and a set over
 * the kernel's instruction budget for a process's filters
 * (SC_MAX_INSNS_PER_PATH). */
typedef struct {
	buf *v;
	size_t n;
} sc_filters;
/* kernel/seccomp.c, seccomp_attach_filter: the instructions of all of a
 * process's filters, each counted with SC_FILTER_PENALTY more. */
#define SC_MAX_INSNS_PER_PATH ((1 << 18) / 8)
#define SC_FILTER_PENALTY 4
int sc_build_bpf_split(const ir_policy *p, bool allow_partial, diag_ctx *d, sc_filters *out);
void sc_filters_free(sc_filters *f);
/* Install every filter of f on the calling process, in order (run.c).
 * Returns 0, or -1 with errno set (no_new_privs must be set). */
int sc_install(const sc_filters *f);
/* `polc run --allow-split`: sc_confine() with a split set. */
int sc_confine_split(const ir_policy *p, bool allow_partial);

/* The longest path through f from its first instruction, whatever the
 * data (a bound on the instructions any syscall with any arguments runs). */
unsigned sc_longest_path(const struct sock_filter *f, size_t len);
/* A typical server's syscall mix (x86_64) into out; returns the count. */
size_t sc_typical_mix(sys_freq *out, size_t cap);

/* `polc run`: install the policy's filter on the calling process (run.c).
 * Returns an exit code (base/base.h). */
int sc_confine(const ir_policy *p, bool allow_partial);

/* --profile-from: emit_profiled of backend_seccomp (filter.c). */
int sc_emit_profiled(const ir_policy *p, const backend_opts *o, const sys_freq *mix,
		     size_t n, buf *out, diag_ctx *d);

/* Profile-guided layout: sc_build_bpf_profiled() is polc's generator laid
 * out for the mix (its search tree weighted by it, a jeq chain when that
 * lowers the mean), figures against the typical layout. sc_layout_profiled()
 * (layout.c) puts a prefix of the mix's constant-verdict syscalls before
 * any exported program (libseccomp's, for polc bench's comparison). */
typedef struct {
	size_t hot;            /* syscalls decided by the prefix (a jeq chain) */
	size_t eligible;       /* mix syscalls (sc_build_bpf_profiled); with a
	                          constant verdict (sc_layout_profiled) */
	size_t len_before, len_after;       /* instructions */
	double mean_before, mean_after;     /* instructions per syscall, mix-weighted */
} sc_layout_info;
int sc_build_bpf_profiled(const ir_policy *p, bool allow_partial, const sys_freq *mix,
			  size_t nmix, diag_ctx *d, buf *out, sc_layout_info *info);
/* Lay out an exported program f (len instructions) for mix; appends to out.
 * -1 (nothing appended) if the result would decide anything differently. */
int sc_layout_profiled(const struct sock_filter *f, size_t len, const sys_freq *mix,
		       size_t nmix, buf *out, sc_layout_info *info);
/* Instructions executed per syscall on f, weighted by the mix (arguments 0). */
double sc_mix_mean(const struct sock_filter *f, size_t len, const sys_freq *mix, size_t n);

/* Append the OCI JSON of a plan. */
int sc_emit_oci(const ir_policy *p, const sc_plan *pl, const backend_opts *o,
		buf *out, diag_ctx *d);

/* Refuse (exit 1 diagnostics naming the costliest statements) an OCI
 * profile json whose filter, as runc builds it with libseccomp plus its
 * ENOSYS stub, exceeds BPF_MAXINSNS: the container would not start (oci.c).
 * spo: read as SPO hands it on, without defaultErrnoRet. */
int sc_oci_check_size(const ir_policy *p, const char *json, size_t len, bool spo, diag_ctx *d);

/* Append the plan as an SPO SeccompProfile (format "spo"), plus the pod
 * securityContext selecting it (format "k8s"); spo.c. */
int sc_emit_spo(const ir_policy *p, const sc_plan *pl, const backend_opts *o,
		buf *out, diag_ctx *d);

uint32_t sc_action(ir_action a);       /* ir_action -> SCMP_ACT_* */
uint32_t sc_arch_token(ir_arch a);     /* IR_ARCH_* -> SCMP_ARCH_* */


support sc_classify(const ir_policy *p, backend_facts f, const ir_stmt *s);
support sc_classify_default(const ir_policy *p, backend_facts f, ir_domain dom);

/* DNF engine (dnf.c), exported for the unit tests. */
void sc_dnf_free(sc_dnf *f);
void sc_dnf_true(sc_dnf *f);
/* f := f AND (lowered cond, negated if neg). -1: more than SC_MAX_CONJ. */
int sc_dnf_and_cond(sc_dnf *f, const ir_arg_cond *c, bool wide32, bool neg);
/* f := f AND g. */
int sc_dnf_and(sc_dnf *f, const sc_dnf *g);
void sc_dnf_or(sc_dnf *f, const sc_dnf *g);
/* Drop conjunctions contained in another one: same union, fewer rules. */
void sc_dnf_prune(sc_dnf *f);
void sc_dnf_copy(sc_dnf *dst, const sc_dnf *src);
bool sc_conj_holds(const sc_conj *c, const uint64_t args[6]);

extern const backend backend_seccomp;

#endif
