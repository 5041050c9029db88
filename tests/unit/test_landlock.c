/* test_landlock.c - the Landlock backend's ruleset agrees with ir_decide
 * where classify() says exact, and classify() is honest where it is not.
 *
 * Ports: for policies whose network statements classify() calls exact,
 * every TCP bind and connect port 0..65535 is granted by the ruleset
 * exactly when ir_decide (the oracle, not this backend) allows that event,
 * for inet and inet6. Paths: which statements are exact, partial or none
 * for the reasons landlock.h gives. What the kernel does with the ruleset
 * is t_landlock.sh's and verify's job.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "front_util.h"
#include "backends/backend.h"
#include "backends/landlock/landlock.h"
#include "backends/seccomp/bpf_interp.h"
#include <errno.h>
#include <linux/audit.h>
#include <netinet/in.h>

static bool granted(const ll_ruleset *r, uint64_t bit, unsigned port)
{
	if (!(r->net_handled & bit))
		return true;
	for (size_t i = 0; i < r->nports; i++)
		if (r->ports[i].access == bit && port >= r->ports[i].first && port <= r->ports[i].last)
			return true;
	return false;
}

/* Every port of both ops and both families against the oracle. */
static void ports_agree(const char *text)
{
	front_compiled *c = front_compile(text, true);
	assert_non_null(c->p);
	const ir_stmt_list *l = front_dom(c, IR_NETWORK);
	backend_facts f = backend_prepare(&backend_landlock, c->p);
	/* a grant is partial: MPTCP sockets are refused when made */
	for (size_t i = 0; i < l->n; i++)
		assert_int_equal(backend_classify(&backend_landlock, c->p, f, &l->v[i]).level,
				 l->v[i].action.verdict == IR_ALLOW ? SUPPORT_PARTIAL : SUPPORT_EXACT);
	ll_ruleset r;
	ll_ruleset_build(c->p, &r);
	static const struct { ir_net_op op; uint64_t bit; } ops[] = {
		{ IR_NET_BIND, LL_NET_BIND_TCP }, { IR_NET_CONNECT, LL_NET_CONNECT_TCP } };
	for (int o = 0; o < 2; o++)
		for (unsigned port = 0; port < 65536; port++) {
			ir_event e4 = front_net(ops[o].op, AF_INET, SOCK_STREAM, 0, "127.0.0.1",
						(uint16_t)port);
			ir_event e6 = front_net(ops[o].op, AF_INET6, SOCK_STREAM, 0, "::1",
						(uint16_t)port);
			ir_event m4 = front_net(ops[o].op, AF_INET, SOCK_STREAM, IPPROTO_MPTCP,
						"127.0.0.1", (uint16_t)port);
			bool want4 = ir_decide(c->p, &e4).verdict < IR_DENY;
			/* MPTCP reaches the same TCP port: the language decides it alike */
			assert_true(want4 == (ir_decide(c->p, &m4).verdict < IR_DENY));
			bool want6 = ir_decide(c->p, &e6).verdict < IR_DENY;
			assert_true(want4 == want6);
			if (granted(&r, ops[o].bit, port) != want4)
				fail_msg("%s port %u: ruleset %s, ir_decide %s", o ? "connect" : "bind",
					 port, want4 ? "denies" : "grants", want4 ? "allows" : "denies");
		}
	ll_ruleset_free(&r);
	front_release(c);
}

/* What the filter beside TCP rules must decide (landlock.h), written
 * apart from its instructions. */
static uint32_t mptcp_expected(uint32_t arch, uint32_t nr, uint64_t a0, uint64_t a2)
{
	if (arch == AUDIT_ARCH_X86_64) {
		uint32_t n = nr & ~0x40000000u;    /* x32: the same call */
		if (n == 41 && ((uint32_t)a2 == IPPROTO_MPTCP || (uint32_t)a2 == 256))
			return SECCOMP_RET_ERRNO | EPROTONOSUPPORT;
		if (n == 41 && (uint32_t)a0 == 43)         /* AF_SMC */
			return SECCOMP_RET_ERRNO | EAFNOSUPPORT;
		if (n == 425)
			return SECCOMP_RET_ERRNO | EPERM;
	} else if (arch == AUDIT_ARCH_I386) {
		if (nr == 359 && ((uint32_t)a2 == IPPROTO_MPTCP || (uint32_t)a2 == 256))
			return SECCOMP_RET_ERRNO | EPROTONOSUPPORT;
		if (nr == 359 && (uint32_t)a0 == 43)
			return SECCOMP_RET_ERRNO | EAFNOSUPPORT;
		if (nr == 425)
			return SECCOMP_RET_ERRNO | EPERM;
		if (nr == 102 && (uint32_t)a0 == 1)
			return SECCOMP_RET_ERRNO | ENOSYS;
	}
	return SECCOMP_RET_ALLOW;
}

/* Every syscall number of each ABI (x32 included) with the argument
 * values around the ones the filter compares, upper halves set or not. */
static void test_mptcp_filter(void **state)
{
	(void)state;
	struct sock_filter f[LL_MPTCP_FILTER_LEN];
	ll_mptcp_filter(f);
	const uint32_t arches[] = { AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64 };
	const uint64_t vals[] = { 0, 1, 2, 6, 43, 255, 256, 261, 262, 263, 0xffffffffull,
				  0x100000106ull, 0x10000002bull, 0x100000100ull,
				  0xffffffff00000001ull, 0x8000000000000106ull };
	const size_t nv = sizeof vals / sizeof *vals;
	size_t runs = 0;
	for (size_t a = 0; a < 3; a++)
		for (uint32_t base = 0; base <= 0x40000000u; base += 0x40000000u)
			for (uint32_t nr = base; nr < base + 1024; nr++)
				for (size_t i = 0; i < nv; i++)
					for (size_t j = 0; j < nv; j++) {
						struct seccomp_data sd = { .nr = (int)nr, .arch = arches[a] };
						sd.args[0] = vals[i];
						sd.args[2] = vals[j];
						bpf_run_info info;
						uint32_t got = bpf_interp(f, LL_MPTCP_FILTER_LEN, &sd, &info);
						uint32_t want = mptcp_expected(arches[a], nr, vals[i], vals[j]);
						if (got != want)
							fail_msg("arch %#x nr %#x a0 %#llx a2 %#llx: %#x, want %#x",
								 arches[a], nr, (unsigned long long)vals[i],
								 (unsigned long long)vals[j], got, want);
						runs++;
					}
	assert_true(runs > 700000);
}

static void test_ports_closed(void **state)
{
	(void)state;
	ports_agree("policy t {\n default deny network;\n"
		    " allow network bind tcp port 8080, 9000-9010;\n"
		    " allow network connect port 443;\n"
		    " deny network connect tcp port 9005;\n}\n");
}

static void test_ports_open_with_denies(void **state)
{
	(void)state;
	ports_agree("policy t {\n deny network connect tcp port 25, 465-587;\n"
		    " deny network bind tcp port 0-1023;\n}\n");
}

/* A deny of TCP ports is enforceable (classify not none) exactly when no
 * range the ruleset grants for its ops meets its ports: checked port by
 * port against the granted() scan, for hundreds of deny statements among
 * bind and connect grants (the backend binary-searches the bind ranges and
 * the connect ranges of one sorted array). */
static void test_deny_levels_many(void **state)
{
	(void)state;
	buf t;
	buf_init(&t);
	buf_puts(&t, "policy t {\n default deny network;\n");
	uint32_t x = 12345;
	for (int i = 0; i < 120; i++) {
		x = x * 1103515245u + 12345u;
		unsigned lo = (x >> 8) % 60000, len = (x >> 4) % 400;
		buf_printf(&t, " allow network %s tcp port %u-%u;\n", i % 3 ? "connect" : "bind", lo,
			   lo + len);
	}
	static const char *const ops[] = { "bind", "connect", "" };
	for (int i = 0; i < 300; i++) {
		x = x * 1103515245u + 12345u;
		unsigned lo = (x >> 8) % 60000, len = (x >> 3) % 300;
		/* inet only: an allow still opens the ports for inet6, and
		 * Landlock cannot tell the families apart */
		buf_printf(&t, " deny network %s %stcp port %u-%u;\n", ops[i % 3],
			   i % 5 ? "inet " : "", lo, lo + len);
	}
	buf_puts(&t, "}\n");
	front_compiled *c = front_compile(buf_cstr(&t), true);
	assert_non_null(c->p);
	ll_ruleset r;
	ll_ruleset_build(c->p, &r);
	assert_true(r.net_handled == (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP));
	const ir_stmt_list *l = front_dom(c, IR_NETWORK);
	backend_facts f = backend_prepare(&backend_landlock, c->p);
	size_t closed = 0, open = 0;
	for (size_t i = 0; i < l->n; i++) {
		const ir_network *n = &l->v[i].u.net;
		if (l->v[i].action.verdict < IR_DENY)
			continue;
		bool want = true;
		for (unsigned port = n->port_lo; port <= n->port_hi && want; port++)
			want = !((n->op != IR_NET_CONNECT && granted(&r, LL_NET_BIND_TCP, port)) ||
				 (n->op != IR_NET_BIND && granted(&r, LL_NET_CONNECT_TCP, port)));
		support_level lv = backend_classify(&backend_landlock, c->p, f, &l->v[i]).level;
		if ((lv != SUPPORT_NONE) != want)
			fail_msg("deny statement %zu (ports %u-%u): classify says %s", i, n->port_lo,
				 n->port_hi, lv == SUPPORT_NONE ? "none" : "enforceable");
		closed += want;
		open += !want;
	}
	assert_true(closed > 50 && open > 50);   /* both answers are exercised */
	ll_ruleset_free(&r);
	front_release(c);
	buf_free(&t);
}

/* The level classify() gives statement i of domain d. */
static support_level level(const char *text, ir_domain d, size_t i)
{
	front_compiled *c = front_compile(text, true);
	assert_non_null(c->p);
	assert_true(front_dom(c, d)->n > i);
	support_level lv = backend_classify(&backend_landlock, c->p,
					    backend_prepare(&backend_landlock, c->p),
					    &front_dom(c, d)->v[i]).level;
	front_release(c);
	return lv;
}

static void test_paths(void **state)
{
	(void)state;
	const char *p = "policy t {\n default deny file;\n"
			" allow file \"/etc/passwd\" read;\n"          /* 0: a file: exact */
			" allow file \"/usr/lib/*.so\" read;\n"        /* 1: a pattern */
			" allow file \"/srv\", \"/srv/**\" read;\n"    /* 2,3: a whole hierarchy */
			" allow file \"/opt/**\" read;\n"              /* 4: /opt listed too */
			" deny file \"/srv/secret\" read;\n"           /* 5: inside a grant */
			" deny file \"/root/**\" read;\n"              /* 6: nothing grants it */
			" deny file \"/home/**\" write;\n"             /* 7: chmod unmediated */
			" allow file \"/var/log/x\" append;\n"         /* 8: write_file is more */
			"}\n";
	assert_int_equal(level(p, IR_FILE, 0), SUPPORT_EXACT);
	assert_int_equal(level(p, IR_FILE, 1), SUPPORT_PARTIAL);
	assert_int_equal(level(p, IR_FILE, 2), SUPPORT_EXACT);
	assert_int_equal(level(p, IR_FILE, 3), SUPPORT_EXACT);
	assert_int_equal(level(p, IR_FILE, 4), SUPPORT_PARTIAL);
	assert_int_equal(level(p, IR_FILE, 5), SUPPORT_NONE);
	assert_int_equal(level(p, IR_FILE, 6), SUPPORT_EXACT);
	assert_int_equal(level(p, IR_FILE, 7), SUPPORT_PARTIAL);
	assert_int_equal(level(p, IR_FILE, 8), SUPPORT_PARTIAL);
	/* Landlock only grants: a deny under a default allow is not enforced */
	assert_int_equal(level("policy t { deny file \"/etc/shadow\" read; }", IR_FILE, 0),
			 SUPPORT_NONE);
	/* mode audit: Landlock cannot allow and log */
	assert_int_equal(level("policy t { mode audit; default deny file; "
			       "deny file \"/x\" read; }", IR_FILE, 0), SUPPORT_NONE);
}

static void test_ruleset_paths(void **state)
{
	(void)state;
	front_compiled *c = front_compile("policy t {\n default deny file;\n"
					  " allow file \"/srv/**\" read, write;\n"
					  " allow file \"/usr/lib/*.so\" read;\n"
					  " allow file \"/bin/true\" read, exec;\n}\n", true);
	ll_ruleset r;
	ll_ruleset_build(c->p, &r);
	assert_int_equal(r.npaths, 3);
	/* sorted by path: /bin/true, /srv, /usr/lib (the pattern's directory) */
	assert_string_equal(r.paths[0].path, "/bin/true");
	assert_false(r.paths[0].beneath);
	assert_true(r.paths[0].access & LL_FS_EXECUTE);
	assert_true(r.paths[0].exec_literal);
	assert_string_equal(r.paths[1].path, "/srv");
	assert_true(r.paths[1].beneath);
	assert_true((r.paths[1].access & (LL_FS_MAKE_REG | LL_FS_REMOVE_FILE | LL_FS_TRUNCATE)) ==
		    (LL_FS_MAKE_REG | LL_FS_REMOVE_FILE | LL_FS_TRUNCATE));
	assert_string_equal(r.paths[2].path, "/usr/lib");
	assert_false(r.paths[2].access & LL_FS_WRITE_FILE);
	assert_int_equal(ll_abi_needed(r.fs_handled, r.net_handled, r.scoped), 5);
	ll_ruleset_free(&r);
	front_release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mptcp_filter),
		cmocka_unit_test(test_ports_closed),
		cmocka_unit_test(test_ports_open_with_denies),
		cmocka_unit_test(test_deny_levels_many),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_ruleset_paths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
