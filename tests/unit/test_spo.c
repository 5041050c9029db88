/* test_spo.c - the "spo" and "k8s" formats: Security Profiles Operator
 * objects and the pod securityContext selecting them (backends/k8s.h).
 *
 * Every output is read back with libyaml (so it parses), then:
 * - the SeccompProfile's spec is, node for node, the OCI profile of
 *   `--format oci` for the same policy, less the two keys SPO has no field
 *   for (x-polc, defaultErrnoRet);
 * - the k8s snippet selects the profile where the operator installs it
 *   (operator/NAME.json in SPO v1, operator/NAMESPACE/NAME.json with
 *   --spo-version 0.8; the AppArmor profile's name);
 * - the AppArmorProfile's abstract lists are what the policy means
 *   (capabilities and socket kinds against ir_decide), and what the abstract
 *   form cannot carry is refused, or built with --allow-partial and listed;
 * - names Kubernetes would refuse, and argument values SPO cannot store,
 *   are errors; two builds are byte-identical.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <yaml.h>

#include "compiler/compile.h"
#include "compiler/consts.h"
#include "backends/backend.h"
#include "backends/k8s.h"

typedef struct {
	diag_ctx d;
	ir_program prog;
	const ir_policy *p;
	buf out;
	int rc;
} built;

static built *build(const backend *b, const char *body, const char *fmt, bool partial)
{
	built *c = test_calloc(1, sizeof *c);
	char text[4096];
	snprintf(text, sizeof text, "policy t {\n%s\n}\n", body);
	diag_init(&c->d);
	compile_opts o;
	memset(&o, 0, sizeof o);
	if (polc_compile_text("test.pol", text, &o, &c->d, &c->prog) != 0 || c->d.nerrors) {
		diag_print(&c->d, stderr, false);
		fail_msg("policy did not compile: %s", body);
	}
	c->p = ir_program_select(&c->prog, "t", &c->d);
	assert_non_null(c->p);
	backend_opts bo = { .format = fmt, .allow_partial = partial, .polc_version = "test" };
	buf_init(&c->out);
	c->rc = b->emit(c->p, &bo, &c->out, &c->d);
	buf_cstr(&c->out);
	return c;
}

static void release(built *c)
{
	buf_free(&c->out);
	ir_program_free(&c->prog);
	diag_free(&c->d);
	test_free(c);
}

static bool diag_has(const built *c, const char *text)
{
	for (size_t i = 0; i < c->d.n; i++)
		if (strstr(c->d.v[i].msg, text))
			return true;
	return false;
}

/* ---- YAML reading ---- */

typedef struct {
	yaml_document_t doc[4];
	size_t n;
} stream;

static void load(stream *s, const buf *b)
{
	yaml_parser_t p;
	memset(s, 0, sizeof *s);
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)b->data, b->len);
	for (;;) {
		assert_true(s->n < 4);
		if (!yaml_parser_load(&p, &s->doc[s->n]))
			fail_msg("output does not parse: %s at line %zu:\n%s", p.problem,
				 p.problem_mark.line + 1, b->data);
		if (!yaml_document_get_root_node(&s->doc[s->n])) {
			yaml_document_delete(&s->doc[s->n]);
			break;
		}
		s->n++;
	}
	yaml_parser_delete(&p);
}

static void unload(stream *s)
{
	for (size_t i = 0; i < s->n; i++)
		yaml_document_delete(&s->doc[i]);
}

static yaml_node_t *get(yaml_document_t *d, yaml_node_t *n, const char *key)
{
	if (!n || n->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++)
		if (!strcmp((char *)yaml_document_get_node(d, p->key)->data.scalar.value, key))
			return yaml_document_get_node(d, p->value);
	return NULL;
}

/* A dotted path of mapping keys from the root; the scalar's text or NULL. */
static yaml_node_t *at(yaml_document_t *d, const char *path)
{
	char tmp[256];
	snprintf(tmp, sizeof tmp, "%s", path);
	yaml_node_t *n = yaml_document_get_root_node(d);
	for (char *save = NULL, *k = strtok_r(tmp, ".", &save); k && n; k = strtok_r(NULL, ".", &save))
		n = get(d, n, k);
	return n;
}

static const char *text_at(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = at(d, path);
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static bool seq_has(yaml_document_t *d, const char *path, const char *item)
{
	yaml_node_t *n = at(d, path);
	if (!n || n->type != YAML_SEQUENCE_NODE)
		return false;
	for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
		if (!strcmp((char *)yaml_document_get_node(d, *i)->data.scalar.value, item))
			return true;
	return false;
}

static size_t seq_len(yaml_document_t *d, const char *path)
{
	yaml_node_t *n = at(d, path);
	return n && n->type == YAML_SEQUENCE_NODE ?
	       (size_t)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

/* Same tree: scalars by text, mappings by keys in order (the OCI side
 * without the keys SPO has no field for), sequences item by item. */
static bool same(yaml_document_t *a, yaml_node_t *x, yaml_document_t *b, yaml_node_t *y, int depth)
{
	if (x->type != y->type)
		return false;
	switch (x->type) {
	case YAML_SCALAR_NODE:
		return !strcmp((char *)x->data.scalar.value, (char *)y->data.scalar.value);
	case YAML_SEQUENCE_NODE: {
		yaml_node_item_t *i = x->data.sequence.items.start, *j = y->data.sequence.items.start;
		for (; i < x->data.sequence.items.top && j < y->data.sequence.items.top; i++, j++)
			if (!same(a, yaml_document_get_node(a, *i), b, yaml_document_get_node(b, *j), depth + 1))
				return false;
		return i == x->data.sequence.items.top && j == y->data.sequence.items.top;
	}
	case YAML_MAPPING_NODE: {
		yaml_node_pair_t *i = x->data.mapping.pairs.start, *j = y->data.mapping.pairs.start;
		for (;; i++, j++) {
			while (i < x->data.mapping.pairs.top && depth == 0) {
				const char *k = (char *)yaml_document_get_node(a, i->key)->data.scalar.value;
				if (strcmp(k, "x-polc") && strcmp(k, "defaultErrnoRet"))
					break;
				i++;
			}
			if (i == x->data.mapping.pairs.top || j == y->data.mapping.pairs.top)
				return i == x->data.mapping.pairs.top && j == y->data.mapping.pairs.top;
			if (!same(a, yaml_document_get_node(a, i->key), b, yaml_document_get_node(b, j->key), depth + 1) ||
			    !same(a, yaml_document_get_node(a, i->value), b, yaml_document_get_node(b, j->value), depth + 1))
				return false;
		}
	}
	default:
		return false;
	}
}

/* ---- seccomp ---- */

static const char *const seccomp_policies[] = {
	"default deny syscall;\nallow syscall read, write, openat, close, exit_group;\n"
	"allow syscall clone if arg0 & CLONE_NEWUSER == 0;\ndeny errno EACCES syscall unlink;",
	"default allow;\ndeny syscall keyctl, add_key, bpf;\nkill syscall ptrace;\n"
	"audit syscall mkdir;\ndeny syscall socket if arg0 == 17 && arg1 <= 3;",
	"use runtime-default;",
	"arch x86_64, i386;\ndefault allow;\ndeny syscall reboot;",
};

static void test_seccomp_spec_is_oci(void **state)
{
	for (size_t i = 0; i < sizeof seccomp_policies / sizeof *seccomp_policies; i++) {
		built *oci = build(&backend_seccomp, seccomp_policies[i], "oci", true);
		built *spo = build(&backend_seccomp, seccomp_policies[i], "spo", true);
		assert_int_equal(oci->rc, 0);
		assert_int_equal(spo->rc, 0);
		stream o, s;
		load(&o, &oci->out);
		load(&s, &spo->out);
		assert_int_equal(o.n, 1);
		assert_int_equal(s.n, 1);
		assert_string_equal(text_at(&s.doc[0], "apiVersion"),
				    "security-profiles-operator.x-k8s.io/v1");
		assert_string_equal(text_at(&s.doc[0], "kind"), "SeccompProfile");
		assert_string_equal(text_at(&s.doc[0], "metadata.name"), "t");
		assert_null(text_at(&s.doc[0], "metadata.namespace"));   /* cluster-scoped */
		char hash[IR_SOURCE_HASH_SIZE];
		assert_string_equal(text_at(&s.doc[0], "metadata.annotations.polc/source-sha256"),
				    ir_source_hash(spo->p, hash));
		if (!same(&o.doc[0], yaml_document_get_root_node(&o.doc[0]), &s.doc[0],
			  at(&s.doc[0], "spec"), 0))
			fail_msg("spec differs from the OCI profile for:\n%s\n--- oci:\n%s\n--- spo:\n%s",
				 seccomp_policies[i], oci->out.data, spo->out.data);
		/* defaultErrnoRet was in the OCI profile exactly when the header says
		 * it is gone */
		bool had = text_at(&o.doc[0], "defaultErrnoRet") != NULL;
		assert_int_equal(had, strstr(spo->out.data, "no defaultErrnoRet") != NULL);
		unload(&o);
		unload(&s);
		release(oci);
		release(spo);
	}
}

static void test_seccomp_k8s_snippet(void **state)
{
	built *c = build(&backend_seccomp, seccomp_policies[0], "k8s", false);
	assert_int_equal(c->rc, 0);
	stream s;
	load(&s, &c->out);
	assert_int_equal(s.n, 2);
	assert_string_equal(text_at(&s.doc[0], "kind"), "SeccompProfile");
	assert_string_equal(text_at(&s.doc[1], "securityContext.seccompProfile.type"), "Localhost");
	assert_string_equal(text_at(&s.doc[1], "securityContext.seccompProfile.localhostProfile"),
			    "operator/t.json");
	unload(&s);
	release(c);

	k8s_set_names("prod", "redis-cache");
	c = build(&backend_seccomp, seccomp_policies[0], "k8s", false);
	assert_int_equal(c->rc, -1);              /* no namespace in SPO v1 */
	assert_true(diag_has(c, "cluster-scoped"));
	release(c);
	assert_int_equal(k8s_set_spo_version("0.8"), 0);
	c = build(&backend_seccomp, seccomp_policies[0], "k8s", false);
	assert_int_equal(c->rc, 0);
	load(&s, &c->out);
	assert_string_equal(text_at(&s.doc[0], "apiVersion"),
			    "security-profiles-operator.x-k8s.io/v1beta1");
	assert_string_equal(text_at(&s.doc[0], "metadata.name"), "redis-cache");
	assert_string_equal(text_at(&s.doc[0], "metadata.namespace"), "prod");
	assert_string_equal(text_at(&s.doc[1], "securityContext.seccompProfile.localhostProfile"),
			    "operator/prod/redis-cache.json");
	unload(&s);
	release(c);
	k8s_set_names(NULL, NULL);
	k8s_set_spo_version(NULL);
}

static void test_names_checked(void **state)
{
	k8s_set_names(NULL, "Redis_Cache");
	built *c = build(&backend_seccomp, seccomp_policies[0], "spo", false);
	assert_int_equal(c->rc, -1);
	assert_true(diag_has(c, "not a Kubernetes object name"));
	assert_int_equal(c->out.len, 0);
	release(c);
	k8s_set_names("a.b", NULL);
	k8s_set_spo_version("0.8");
	c = build(&backend_seccomp, seccomp_policies[0], "spo", true);
	assert_int_equal(c->rc, -1);
	assert_true(diag_has(c, "is not a Kubernetes namespace"));
	release(c);
	k8s_set_names(NULL, NULL);
	k8s_set_spo_version(NULL);
}

static void test_int64_values(void **state)
{
	const char *big = "default deny syscall;\nallow syscall lseek if arg1 == 0xffffffffffffffff;";
	built *oci = build(&backend_seccomp, big, "oci", false);
	built *spo = build(&backend_seccomp, big, "spo", false);
	assert_int_equal(oci->rc, 0);
	assert_int_equal(spo->rc, -1);
	assert_true(diag_has(spo, "signed 64-bit"));
	release(oci);
	release(spo);
	spo = build(&backend_seccomp, "default deny syscall;\nallow syscall lseek if arg1 == 0x7fffffffffffffff;",
		    "spo", false);
	assert_int_equal(spo->rc, 0);
	release(spo);
}

static void test_deterministic(void **state)
{
	const char *fmts[] = { "spo", "k8s" };
	for (size_t f = 0; f < 2; f++) {
		built *a = build(&backend_seccomp, seccomp_policies[2], fmts[f], true);
		built *b = build(&backend_seccomp, seccomp_policies[2], fmts[f], true);
		assert_int_equal(a->out.len, b->out.len);
		assert_memory_equal(a->out.data, b->out.data, a->out.len);
		release(a);
		release(b);
		a = build(&backend_apparmor, "default allow;\nuse mitigate-sa-leak, disable-write-etc;", fmts[f], true);
		b = build(&backend_apparmor, "default allow;\nuse mitigate-sa-leak, disable-write-etc;", fmts[f], true);
		assert_int_equal(a->rc, 0);
		assert_int_equal(a->out.len, b->out.len);
		assert_memory_equal(a->out.data, b->out.data, a->out.len);
		release(a);
		release(b);
	}
}

/* ---- AppArmor ---- */

/* Domains the template decides alone, closed: what stays is exact. */
/* sys_rawio denied: SPO v1 adds `mount,` to a profile that allows it */
#define CLOSED_REST "default deny network, mount, ptrace, signal;\ndeny capability sys_rawio;\n"

static void test_apparmor_deny_list(void **state)
{
	built *c = build(&backend_apparmor, CLOSED_REST
			 "default allow file, exec, capability;\n"
			 "deny file \"/etc/shadow\" read, write, append, link, lock;\n"
			 "deny file \"/proc/kallsyms\" read;\n"
			 "deny capability sys_admin, sys_module;\n"
			 "allow network tcp;", "spo", false);
	if (c->rc)
		diag_print(&c->d, stderr, false);
	assert_int_equal(c->rc, 0);
	stream s;
	load(&s, &c->out);
	yaml_document_t *d = &s.doc[0];
	assert_string_equal(text_at(d, "apiVersion"), "security-profiles-operator.x-k8s.io/v1");
	assert_string_equal(text_at(d, "kind"), "AppArmorProfile");
	assert_null(text_at(d, "metadata.namespace"));         /* cluster-scoped */
	assert_true(seq_has(d, "spec.abstract.filesystem.readWritePaths", "/**"));
	assert_true(seq_has(d, "spec.abstract.executable.allowedExecutables", "/**"));
	assert_true(seq_has(d, "spec.abstract.executable.allowedLibraries", "/**"));
	assert_true(seq_has(d, "spec.abstract.filesystem.writeOnlyPaths", "/etc/shadow"));
	assert_true(seq_has(d, "spec.abstract.filesystem.readOnlyPaths", "/etc/shadow"));
	assert_true(seq_has(d, "spec.abstract.filesystem.writeOnlyPaths", "/proc/kallsyms"));
	assert_false(seq_has(d, "spec.abstract.filesystem.readOnlyPaths", "/proc/kallsyms"));
	/* every capability ir_decide allows, and no other */
	size_t n = 0;
	for (int cap = 0; cap <= cap_last(); cap++) {
		if (!cap_name(cap))
			continue;
		ir_event ev = { .domain = IR_CAPABILITY, .u.cap.cap = cap };
		bool allowed = ir_decide(c->p, &ev).verdict == IR_ALLOW;
		assert_int_equal(allowed, seq_has(d, "spec.abstract.capability.allowedCapabilities", cap_name(cap)));
		n += allowed;
	}
	assert_int_equal(n, seq_len(d, "spec.abstract.capability.allowedCapabilities"));
	assert_false(seq_has(d, "spec.abstract.capability.allowedCapabilities", "sys_admin"));
	assert_string_equal(text_at(d, "spec.abstract.network.allowRaw"), "false");
	assert_string_equal(text_at(d, "spec.abstract.network.allowedProtocols.allowTcp"), "true");
	assert_null(text_at(d, "spec.abstract.network.allowedProtocols.allowUdp"));
	assert_null(text_at(d, "spec.complainMode"));
	assert_string_equal(text_at(d, "spec.mode"), "Enforce");
	unload(&s);
	release(c);
}

static void test_apparmor_allow_list(void **state)
{
	built *c = build(&backend_apparmor, CLOSED_REST
			 "default deny file, exec, capability;\n"
			 "allow file \"/usr/**\" read, mmap;\n"
			 "allow file \"/data/{a,b}/**\" read, write, append, link, lock;\n"
			 "allow file \"/etc/app.conf\" read;\n"
			 "allow capability net_bind_service;", "k8s", false);
	if (c->rc)
		diag_print(&c->d, stderr, false);
	assert_int_equal(c->rc, 0);
	stream s;
	load(&s, &c->out);
	assert_int_equal(s.n, 2);
	yaml_document_t *d = &s.doc[0];
	assert_true(seq_has(d, "spec.abstract.executable.allowedLibraries", "/usr/**"));
	assert_null(at(d, "spec.abstract.executable.allowedExecutables"));
	assert_true(seq_has(d, "spec.abstract.filesystem.readWritePaths", "/data/a/**"));
	assert_true(seq_has(d, "spec.abstract.filesystem.readWritePaths", "/data/b/**"));
	assert_true(seq_has(d, "spec.abstract.filesystem.readOnlyPaths", "/etc/app.conf"));
	assert_int_equal(seq_len(d, "spec.abstract.capability.allowedCapabilities"), 1);
	assert_string_equal(text_at(&s.doc[1], "securityContext.appArmorProfile.type"), "Localhost");
	assert_string_equal(text_at(&s.doc[1], "securityContext.appArmorProfile.localhostProfile"), "t");
	unload(&s);
	release(c);
}

static void test_apparmor_refusals(void **state)
{
	static const struct { const char *body, *why; } cases[] = {
		{ CLOSED_REST "default allow file, exec;\ndeny exec \"/bin/sh\";", "cannot deny exec" },
		{ CLOSED_REST "default allow file, exec;\ndeny file \"/etc/**\" write;",
		  "readOnlyPaths denies write, append, link and lock together" },
		{ CLOSED_REST "default deny file;\nallow file \"/data/**\" read;\ndeny file \"/data/x\" read;",
		  "exception out of an allow-list" },
		{ "default allow;", "the abstract form can allow only tcp, udp and raw sockets" },
		{ "default deny network, ptrace, signal;\ndeny capability sys_rawio;", "denies every mount" },
		{ "default deny network, ptrace, signal, mount;", "adds `mount,` to the profile when sys_rawio" },
		{ CLOSED_REST "default deny file;\nallow file \"/proc/[0-9]*\" read;",
		  "SPO v1 accepts only paths matching" },
		{ CLOSED_REST "default allow file;\ndeny file \"/a b\" read;", "unquoted" },
		{ "default deny network, ptrace, signal, mount;\nallow network inet tcp;",
		  "allows or denies tcp sockets as one" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		built *c = build(&backend_apparmor, cases[i].body, "spo", false);
		assert_int_equal(c->rc, -1);
		if (!diag_has(c, cases[i].why)) {
			diag_print(&c->d, stderr, false);
			fail_msg("no '%s' for:\n%s", cases[i].why, cases[i].body);
		}
		assert_int_equal(c->out.len, 0);
		release(c);
		c = build(&backend_apparmor, cases[i].body, "spo", true);
		assert_int_equal(c->rc, 0);
		assert_non_null(strstr(c->out.data, "# not carried exactly by the AppArmorProfile: "));
		assert_non_null(strstr(c->out.data, cases[i].why));
		stream s;
		load(&s, &c->out);
		unload(&s);
		release(c);
	}
}

static void test_apparmor_mode_audit(void **state)
{
	built *c = build(&backend_apparmor, CLOSED_REST "mode audit;\ndefault deny file, exec, capability;\n"
			 "allow file \"/usr/**\" read, mmap;", "spo", false);
	assert_int_equal(c->rc, -1);       /* allowRaw: false is a deny rule */
	assert_true(diag_has(c, "even in complain mode"));
	release(c);
	c = build(&backend_apparmor, CLOSED_REST "mode audit;\ndefault deny file, exec, capability;\n"
		  "allow file \"/usr/**\" read, mmap;", "spo", true);
	stream s;
	load(&s, &c->out);
	assert_string_equal(text_at(&s.doc[0], "spec.mode"), "Complain");
	assert_null(text_at(&s.doc[0], "spec.complainMode"));
	unload(&s);
	release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seccomp_spec_is_oci),
		cmocka_unit_test(test_seccomp_k8s_snippet),
		cmocka_unit_test(test_names_checked),
		cmocka_unit_test(test_int64_values),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_apparmor_deny_list),
		cmocka_unit_test(test_apparmor_allow_list),
		cmocka_unit_test(test_apparmor_refusals),
		cmocka_unit_test(test_apparmor_mode_audit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
