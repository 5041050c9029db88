/* test_import_docker.c - polc import keeps the meaning of Docker's default
 * seccomp profile.
 *
 * The reference is the filter libseccomp builds straight from the JSON, as
 * runc does (a loader written here, independent of import/import_oci.c:
 * seccomp_init(defaultAction), one seccomp_rule_add per name and entry,
 * runc's one-rule-per-condition fallback for repeated argument indexes),
 * exported to BPF and run by a small cBPF interpreter below. runc's ENOSYS
 * stub is mirrored as polc's rule: a syscall unknown to the table that the
 * filter gives the default errno gets ENOSYS.
 * Checked: polc's meaning of the imported source (ir_decide) and, when the
 * seccomp backend is linked, the BPF it builds, decide every syscall
 * 0..1023 of every ABI the profile names (x86_64, i386 with the direct
 * socket and IPC numbers, x32), at every argument boundary of the profile's
 * conditions, exactly as the reference: 0 differences, asserted.
 * The one intended difference met here, counted and printed: a 32-bit
 * argument (C type of at most 32 bits) with a non-zero upper half. polc
 * looks at the lower half, as the kernel does; libseccomp compares 64 bits
 * on x86_64. Each such sample must be decided by polc as the reference
 * decides the same call with the upper half cleared (what the kernel acts
 * on). Not sampled: ABIs the profile does not name (libseccomp kills,
 * polc denies); see docs/import.md, "Docker default round trip".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <yaml.h>

#include "compiler/compile.h"
#include "import/import_oci.h"
#include "compiler/syscalls.h"
#include "backends/backend.h"

/* ---- a classic BPF interpreter for seccomp programs ---- */
static uint32_t bpf_run(const struct sock_filter *p, size_t n, const struct seccomp_data *sd)
{
	uint32_t A = 0, X = 0, M[BPF_MEMWORDS] = { 0 };
	for (size_t pc = 0; pc < n; pc++) {
		const struct sock_filter *f = &p[pc];
		uint32_t k = f->k, src = BPF_SRC(f->code) == BPF_X ? X : k;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			if (BPF_MODE(f->code) == BPF_ABS) {
				assert_true(k % 4 == 0 && k + 4 <= sizeof *sd);
				memcpy(&A, (const char *)sd + k, 4);
			} else if (BPF_MODE(f->code) == BPF_IMM) A = k;
			else if (BPF_MODE(f->code) == BPF_MEM) A = M[k];
			else if (BPF_MODE(f->code) == BPF_LEN) A = sizeof *sd;
			else fail_msg("ld mode %x", f->code);
			break;
		case BPF_LDX:
			X = BPF_MODE(f->code) == BPF_MEM ? M[k] : BPF_MODE(f->code) == BPF_LEN ? sizeof *sd : k;
			break;
		case BPF_ST: M[k] = A; break;
		case BPF_STX: M[k] = X; break;
		case BPF_ALU:
			switch (BPF_OP(f->code)) {
			case BPF_ADD: A += src; break;
			case BPF_SUB: A -= src; break;
			case BPF_MUL: A *= src; break;
			case BPF_DIV: A = src ? A / src : 0; break;
			case BPF_AND: A &= src; break;
			case BPF_OR: A |= src; break;
			case BPF_XOR: A ^= src; break;
			case BPF_LSH: A = src < 32 ? A << src : 0; break;
			case BPF_RSH: A = src < 32 ? A >> src : 0; break;
			case BPF_NEG: A = -A; break;
			default: fail_msg("alu %x", f->code);
			}
			break;
		case BPF_JMP: {
			bool t;
			switch (BPF_OP(f->code)) {
			case BPF_JA: pc += k; continue;
			case BPF_JEQ: t = A == src; break;
			case BPF_JGT: t = A > src; break;
			case BPF_JGE: t = A >= src; break;
			case BPF_JSET: t = (A & src) != 0; break;
			default: fail_msg("jmp %x", f->code); return 0;
			}
			pc += t ? f->jt : f->jf;
			break;
		}
		case BPF_RET: return BPF_RVAL(f->code) == BPF_A ? A : k;
		case BPF_MISC: if (BPF_MISCOP(f->code) == BPF_TAX) X = A; else A = X; break;
		}
	}
	fail_msg("fell off the program");
	return 0;
}

/* ---- the reference loader (runc's way) ---- */
static const char *const docker_caps[] = { "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID",
	"CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP",
	"CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE", NULL };

typedef struct {
	const char *const *caps;
	int kmaj, kmin;
	/* what the profile's conditions mention, for the argument samples */
	uint64_t vals[256];
	size_t nvals;
	unsigned used_args;    /* argument indexes some condition tests */
} ref_target;

static yaml_document_t doc;
static yaml_node_t *nd(int id) { return yaml_document_get_node(&doc, id); }
static const char *sv(yaml_node_t *n) { return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : ""; }

static yaml_node_t *get(yaml_node_t *m, const char *key)
{
	if (!m || m->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++)
		if (!strcmp(sv(nd(p->key)), key))
			return nd(p->value);
	return NULL;
}

static bool seq_has(yaml_node_t *s, const char *x)
{
	if (!s || s->type != YAML_SEQUENCE_NODE)
		return false;
	for (yaml_node_item_t *i = s->data.sequence.items.start; i < s->data.sequence.items.top; i++)
		if (!strcmp(sv(nd(*i)), x))
			return true;
	return false;
}

static size_t seq_len(yaml_node_t *s)
{
	return s && s->type == YAML_SEQUENCE_NODE ? (size_t)(s->data.sequence.items.top - s->data.sequence.items.start) : 0;
}

static bool has_cap(const ref_target *t, const char *c)
{
	for (size_t i = 0; t->caps[i]; i++)
		if (!strcmp(t->caps[i], c))
			return true;
	return false;
}

static bool kernel_ge(const ref_target *t, yaml_node_t *n)
{
	int a, b;
	assert_int_equal(sscanf(sv(n), "%d.%d", &a, &b), 2);
	return t->kmaj > a || (t->kmaj == a && t->kmin >= b);
}

/* moby profiles/seccomp: arches by GOARCH, includes.caps all-of, excludes.caps any-of. */
static bool applies(const ref_target *t, yaml_node_t *e)
{
	yaml_node_t *inc = get(e, "includes"), *exc = get(e, "excludes");
	if (seq_len(get(exc, "arches")) && seq_has(get(exc, "arches"), "amd64"))
		return false;
	if (seq_len(get(inc, "arches")) && !seq_has(get(inc, "arches"), "amd64"))
		return false;
	yaml_node_t *c = get(exc, "caps");
	for (size_t i = 0; i < seq_len(c); i++)
		if (has_cap(t, sv(nd(c->data.sequence.items.start[i]))))
			return false;
	c = get(inc, "caps");
	for (size_t i = 0; i < seq_len(c); i++)
		if (!has_cap(t, sv(nd(c->data.sequence.items.start[i]))))
			return false;
	if (get(exc, "minKernel") && kernel_ge(t, get(exc, "minKernel")))
		return false;
	if (get(inc, "minKernel") && !kernel_ge(t, get(inc, "minKernel")))
		return false;
	return true;
}

static uint32_t ref_action(yaml_node_t *act, yaml_node_t *err)
{
	const char *a = sv(act);
	if (!strcmp(a, "SCMP_ACT_ALLOW")) return SCMP_ACT_ALLOW;
	if (!strcmp(a, "SCMP_ACT_ERRNO")) return SCMP_ACT_ERRNO(err ? atoi(sv(err)) : EPERM);
	if (!strcmp(a, "SCMP_ACT_LOG")) return SCMP_ACT_LOG;
	if (!strcmp(a, "SCMP_ACT_KILL_THREAD") || !strcmp(a, "SCMP_ACT_KILL")) return SCMP_ACT_KILL_THREAD;
	if (!strcmp(a, "SCMP_ACT_KILL_PROCESS")) return SCMP_ACT_KILL_PROCESS;
	fail_msg("action %s", a);
	return 0;
}

static void note_val(ref_target *t, uint64_t v)
{
	if (t->nvals < sizeof t->vals / sizeof *t->vals)
		t->vals[t->nvals++] = v;
}

static struct scmp_arg_cmp ref_cond(ref_target *t, yaml_node_t *c)
{
	static const char *const ops[] = { "", "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",
		"SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ" };
	struct scmp_arg_cmp r = { 0 };
	r.arg = (unsigned)atoi(sv(get(c, "index")));
	r.datum_a = get(c, "value") ? strtoull(sv(get(c, "value")), NULL, 10) : 0;
	r.datum_b = get(c, "valueTwo") ? strtoull(sv(get(c, "valueTwo")), NULL, 10) : 0;
	for (int i = 1; i < 8; i++)
		if (!strcmp(ops[i], sv(get(c, "op"))))
			r.op = (enum scmp_compare)i;
	assert_true(r.op != 0);
	t->used_args |= 1u << r.arg;
	note_val(t, r.datum_a);
	if (r.op == SCMP_CMP_MASKED_EQ)
		note_val(t, r.datum_b);
	return r;
}

static void ref_add(scmp_filter_ctx ctx, ref_target *t, yaml_node_t *e)
{
	uint32_t act = ref_action(get(e, "action"), get(e, "errnoRet"));
	yaml_node_t *args = get(e, "args");
	struct scmp_arg_cmp c[16];
	unsigned nc = 0, count[6] = { 0 };
	bool multi = false;
	for (size_t i = 0; i < seq_len(args) && nc < 16; i++) {
		c[nc] = ref_cond(t, nd(args->data.sequence.items.start[i]));
		multi |= ++count[c[nc].arg] > 1;
		nc++;
	}
	yaml_node_t *names = get(e, "names");
	for (size_t i = 0; i < seq_len(names); i++) {
		int nr = seccomp_syscall_resolve_name(sv(nd(names->data.sequence.items.start[i])));
		if (nr == __NR_SCMP_ERROR)
			continue;      /* runc skips names libseccomp does not know */
		if (multi)
			for (unsigned k = 0; k < nc; k++)
				assert_int_equal(seccomp_rule_add_array(ctx, act, nr, 1, &c[k]), 0);
		else
			assert_int_equal(seccomp_rule_add_array(ctx, act, nr, nc, c), 0);
	}
}

static struct sock_filter *export_bpf(scmp_filter_ctx ctx, size_t *n)
{
	int fd = memfd_create("bpf", 0);
	assert_true(fd >= 0);
	assert_int_equal(seccomp_export_bpf(ctx, fd), 0);
	off_t len = lseek(fd, 0, SEEK_END);
	struct sock_filter *p = malloc((size_t)len);
	assert_int_equal(pread(fd, p, (size_t)len, 0), len);
	close(fd);
	*n = (size_t)len / sizeof *p;
	return p;
}

static unsigned ref_arches(scmp_filter_ctx ctx, yaml_node_t *root)
{
	unsigned set = IR_ARCH_BIT(IR_ARCH_X86_64);
	yaml_node_t *m = get(root, "archMap");
	for (size_t i = 0; i < seq_len(m); i++) {
		yaml_node_t *e = nd(m->data.sequence.items.start[i]);
		if (strcmp(sv(get(e, "architecture")), "SCMP_ARCH_X86_64"))
			continue;
		if (seq_has(get(e, "subArchitectures"), "SCMP_ARCH_X86")) {
			assert_int_equal(seccomp_arch_add(ctx, SCMP_ARCH_X86), 0);
			set |= IR_ARCH_BIT(IR_ARCH_I386);
		}
		if (seq_has(get(e, "subArchitectures"), "SCMP_ARCH_X32")) {
			assert_int_equal(seccomp_arch_add(ctx, SCMP_ARCH_X32), 0);
			set |= IR_ARCH_BIT(IR_ARCH_X32);
		}
	}
	return set;
}

/* ---- the comparison ---- */
typedef struct { ir_verdict v; int err; } verdict;

static verdict from_ret(uint32_t r)
{
	switch (r & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_ALLOW: return (verdict){ IR_ALLOW, 0 };
	case SECCOMP_RET_LOG: return (verdict){ IR_AUDIT, 0 };
	case SECCOMP_RET_ERRNO: return (verdict){ IR_DENY, (int)(r & SECCOMP_RET_DATA) };
	case SECCOMP_RET_KILL_PROCESS: case SECCOMP_RET_KILL_THREAD: return (verdict){ IR_KILL, 0 };
	}
	fail_msg("unexpected filter result %#x", r);
	return (verdict){ IR_KILL, 0 };
}

typedef struct {
	const struct sock_filter *ref, *polc;
	size_t nref, npolc;
	uint32_t ref_default;
	const ir_policy *pol;
	size_t checked, upper_diff, upper_checked, polc_checked;
	char upper_where[512];  /* the syscalls and arguments that differ */
} cmp_ctx;

static void note_upper(cmp_ctx *c, ir_arch a, uint32_t nr, const uint64_t args[6])
{
	char name[64] = "?", one[96];
	sys_name(a, nr, name, sizeof name);
	int arg = 0;
	while (arg < 5 && !(args[arg] >> 32))
		arg++;
	snprintf(one, sizeof one, "%s%s arg%d (%s)", c->upper_where[0] ? ", " : "", name, arg,
		 ir_arch_name(a));
	if (!strstr(c->upper_where, one + (c->upper_where[0] ? 2 : 0)) &&
	    strlen(c->upper_where) + strlen(one) < sizeof c->upper_where)
		strcat(c->upper_where, one);
}

static void check_one(cmp_ctx *c, ir_arch a, uint32_t nr, const uint64_t args[6], bool clean)
{
	struct seccomp_data sd = { (int)nr, ir_arch_audit(a), 0, { 0 } };
	memcpy(sd.args, args, sizeof sd.args);
	uint32_t r = bpf_run(c->ref, c->nref, &sd);
	verdict want = from_ret(r);
	if (r == c->ref_default && !sys_known(a, nr))
		want.err = ENOSYS;    /* runc's ENOSYS stub, as polc defines it */
	ir_event ev = { .domain = IR_SYSCALL };
	ev.u.sys.audit_arch = sd.arch;
	ev.u.sys.nr = nr;
	memcpy(ev.u.sys.args, args, sizeof sd.args);
	ir_decision d = ir_decide(c->pol, &ev);
	if (!clean) {
		/* the intended difference: polc decides as the reference does
		 * on the lower half, the kernel's value of the argument */
		struct seccomp_data low = sd;
		for (int i = 0; i < 6; i++)
			low.args[i] = (uint32_t)low.args[i];
		verdict lw = from_ret(bpf_run(c->ref, c->nref, &low));
		if (bpf_run(c->ref, c->nref, &low) == c->ref_default && !sys_known(a, nr))
			lw.err = ENOSYS;
		c->upper_checked++;
		if (d.verdict != lw.v || d.err != lw.err)
			fail_msg("%s nr %u args %#llx %#llx: upper half of a 32-bit argument: "
				 "libseccomp on the lower half %s/%d, polc %s/%d", ir_arch_name(a),
				 nr, (unsigned long long)args[0], (unsigned long long)args[1],
				 ir_verdict_name(lw.v), lw.err, ir_verdict_name(d.verdict), d.err);
		if (d.verdict != want.v || d.err != want.err) {
			c->upper_diff++;
			note_upper(c, a, nr, args);
		}
		if (c->polc) {
			verdict got = from_ret(bpf_run(c->polc, c->npolc, &sd));
			c->polc_checked++;
			if (got.v != d.verdict || got.err != d.err)
				fail_msg("%s nr %u args %#llx: polc's seccomp BPF %s/%d, ir_decide %s/%d",
					 ir_arch_name(a), nr, (unsigned long long)args[0],
					 ir_verdict_name(got.v), got.err, ir_verdict_name(d.verdict), d.err);
		}
		return;
	}
	c->checked++;
	if (d.verdict != want.v || d.err != want.err) {
		char name[64] = "?";
		sys_name(a, nr, name, sizeof name);
		fail_msg("%s nr %u (%s) args %#llx %#llx: libseccomp %s/%d, polc %s/%d", ir_arch_name(a), nr,
			 name, (unsigned long long)args[0], (unsigned long long)args[1],
			 ir_verdict_name(want.v), want.err, ir_verdict_name(d.verdict), d.err);
	}
	if (c->polc) {
		verdict got = from_ret(bpf_run(c->polc, c->npolc, &sd));
		c->polc_checked++;
		if (got.v != want.v || got.err != want.err)
			fail_msg("%s nr %u args %#llx: libseccomp %s/%d, polc's seccomp BPF %s/%d",
				 ir_arch_name(a), nr, (unsigned long long)args[0], ir_verdict_name(want.v),
				 want.err, ir_verdict_name(got.v), got.err);
	}
}

/* Every syscall; for each argument index, every boundary of every value the
 * profile compares with (v-1, v, v+1), every subset of the bits of small
 * masks, and both extremes. The profile's conditions each test one argument,
 * so one argument at a time covers every region. */
static void check_all(cmp_ctx *c, const ref_target *t, unsigned arches)
{
	uint64_t s[4096];
	size_t ns = 0;
	s[ns++] = 0;
	s[ns++] = UINT64_MAX;
	s[ns++] = 0xffffffffu;
	for (size_t i = 0; i < t->nvals; i++) {
		uint64_t v = t->vals[i];
		s[ns++] = v - 1; s[ns++] = v; s[ns++] = v + 1;
		if (__builtin_popcountll(v) <= 8)     /* masks: every subset of its bits */
			for (uint64_t sub = v; sub && ns < 4000; sub = (sub - 1) & v)
				s[ns++] = sub;
	}
	for (int a = 0; a < IR_NARCH; a++) {
		if (!(arches & IR_ARCH_BIT(a)))
			continue;
		for (uint32_t i = 0; i < 1024; i++) {
			uint32_t nr = a == IR_ARCH_X32 ? i | IR_X32_SYSCALL_BIT : i;
			for (int arg = 0; arg < 6; arg++)
				/* arguments no condition tests: the extremes only */
				for (size_t k = 0; k < ((t->used_args >> arg) & 1 ? ns : 3); k++) {
					uint64_t args[6] = { 0 };
					args[arg] = a == IR_ARCH_I386 ? (uint32_t)s[k] : s[k];
					uint8_t w = a == IR_ARCH_I386 ? 0x3f : 0;
					if (a != IR_ARCH_I386) {
						char name[64];
						if (sys_name((ir_arch)a, nr, name, sizeof name))
							w = sys_arg32(name);
					}
					/* 32-bit C types: the kernel ignores the upper half */
					bool clean = !((w >> arg) & 1) || args[arg] <= 0xffffffffu;
					check_one(c, (ir_arch)a, nr, args, clean);
				}
		}
	}
}

static const char *profile_path(void)
{
	static char p[4096];
	const char *src = getenv("SRC");
	snprintf(p, sizeof p, "%s/../shared/peers/docker-default-seccomp.json", src ? src : ".");
	if (access(p, R_OK) == 0)
		return p;
	return access("/work/shared/peers/docker-default-seccomp.json", R_OK) == 0
	       ? "/work/shared/peers/docker-default-seccomp.json" : NULL;
}

static void run_case(const char *const *caps, int kmaj, int kmin)
{
	const char *path = profile_path();
	if (!path) {
		print_message("SKIP: docker-default-seccomp.json not found under $SRC/../shared/peers\n");
		skip();
	}
	/* polc's side: import, then compile the text */
	size_t ncaps = 0;
	while (caps[ncaps])
		ncaps++;
	import_opts o = { "docker", caps, ncaps, 0, IR_ARCH_X86_64, kmaj, kmin };
	diag_ctx d;
	diag_init(&d);
	buf src;
	buf_init(&src);
	assert_int_equal(import_oci_file(path, &o, &d, &src), 0);
	ir_program prog;
	compile_opts co = { 0 };
	if (polc_compile_text("imported.pol", buf_cstr(&src), &co, &d, &prog) != 0) {
		diag_print(&d, stderr, false);
		fail_msg("imported source does not compile");
	}
	const ir_policy *pol = ir_program_select(&prog, NULL, &d);
	assert_non_null(pol);

	/* the reference */
	ref_target t = { caps, kmaj, kmin, { 0 }, 0, 0 };
	FILE *f = fopen(path, "r");
	yaml_parser_t p;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_file(&p, f);
	assert_true(yaml_parser_load(&p, &doc));
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	uint32_t def = ref_action(get(root, "defaultAction"), get(root, "defaultErrnoRet"));
	scmp_filter_ctx ctx = seccomp_init(def);
	unsigned arches = ref_arches(ctx, root);
	yaml_node_t *sys = get(root, "syscalls");
	for (size_t i = 0; i < seq_len(sys); i++) {
		yaml_node_t *e = nd(sys->data.sequence.items.start[i]);
		if (applies(&t, e))
			ref_add(ctx, &t, e);
	}
	assert_int_equal(pol->arches, arches);
	cmp_ctx c = { 0 };
	c.ref = export_bpf(ctx, &c.nref);
	c.ref_default = def;
	c.pol = pol;

	/* polc's seccomp backend, when this build has it */
	const backend *b = &backend_seccomp;    /* a strong reference links it in */
	buf bpf;
	buf_init(&bpf);
	if (b) {
		backend_opts bo = { "bpf", true, NULL, "test" };   /* partial: see what it builds */
		/* A refusal is the backend's documented limit, not a wrong
		 * decision: say so and compare what it builds when it does. */
		if (b->emit(pol, &bo, &bpf, &d) != 0) {
			print_message("NOTE: polc's seccomp backend refuses this profile:\n");
			diag_print(&d, stdout, false);
		} else {
			c.polc = (const struct sock_filter *)bpf.data;
			c.npolc = bpf.len / sizeof *c.polc;
		}
	}
	check_all(&c, &t, arches);
	print_message("caps %zu kernel %d.%d: %zu decisions equal (ir_decide vs libseccomp, "
		      "0 differences), %zu checked on polc's seccomp BPF%s\n"
		      "  intended differences: %zu of %zu samples with a non-zero upper half "
		      "in a 32-bit argument (polc, like the kernel, decides on the lower half; "
		      "libseccomp compares 64 bits)%s%s\n", ncaps, kmaj, kmin, c.checked,
		      c.polc_checked, c.polc ? "" : " (the backend refused it)", c.upper_diff,
		      c.upper_checked, c.upper_diff ? ": " : "", c.upper_where);
	assert_true(c.checked > 3 * 1024 * 6);
	assert_non_null(c.polc);    /* x86_64, i386 and x32 build */
	assert_true(c.polc_checked >= c.checked);

	buf_free(&bpf);
	free((void *)c.ref);
	seccomp_release(ctx);
	yaml_document_delete(&doc);
	yaml_parser_delete(&p);
	fclose(f);
	ir_program_free(&prog);
	buf_free(&src);
	diag_free(&d);
}

static void docker_default_caps(void **state) { (void)state; run_case(docker_caps, 6, 18); }

static void with_sys_admin_old_kernel(void **state)
{
	(void)state;
	static const char *const caps[] = { "CAP_CHOWN", "CAP_SYS_ADMIN", "CAP_SYS_PTRACE", "CAP_BPF", NULL };
	run_case(caps, 4, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(docker_default_caps),
		cmocka_unit_test(with_sys_admin_old_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
