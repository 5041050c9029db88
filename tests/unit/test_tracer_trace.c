/* test_tracer_trace.c - the trace format (reader, writer, merge) and the
 * generator's path generalisation and determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/trace.h"
#include "tracer/gen.h"

static char *written(const trace *t)
{
	buf b;
	buf_init(&b);
	trace_write(t, &b);
	return buf_cstr(&b);
}

static void sample(trace *t)
{
	trace_syscall(t, "x86_64", "read", 10);
	trace_syscall(t, "x86_64", "close", 3);
	trace_file(t, "/etc/passwd", "read", 0);
	trace_file(t, "/etc/passwd", "read", 0);
	trace_file(t, "/tmp/odd \"name\"\nx", "write", 2);
	trace_exec(t, "/usr/bin/true", 0);
	trace_add(t, TR_NET, 1, 6, "bind", "inet", "tcp", "0.0.0.0", "6379", "ok");
	trace_meta(t, "runs", NULL, 1);
	trace_meta(t, "command", "redis-server --port 6379", 1);
}

static void test_roundtrip(void **st)
{
	(void)st;
	trace a, b;
	trace_init(&a);
	trace_init(&b);
	sample(&a);
	char *t1 = written(&a), *err = NULL;
	assert_int_equal(trace_parse(&b, "t", t1, strlen(t1), &err), 0);
	char *t2 = written(&b);
	assert_string_equal(t1, t2);
	assert_non_null(strstr(t1, "file \"/etc/passwd\" read ok 2\n"));
	assert_non_null(strstr(t1, "file \"/tmp/odd \\\"name\\\"\\nx\" write ENOENT 1\n"));
	assert_true(strncmp(t1, "polc-trace 1\n", 13) == 0);
	/* Sorted: meta before syscall, close before read. */
	assert_true(strstr(t1, "meta runs") < strstr(t1, "syscall x86_64 close"));
	assert_true(strstr(t1, "syscall x86_64 close") < strstr(t1, "syscall x86_64 read"));
	free(t1);
	free(t2);
	trace_free(&a);
	trace_free(&b);
}

static void test_merge(void **st)
{
	(void)st;
	trace a, b, ab, ba;
	trace_init(&a); trace_init(&b); trace_init(&ab); trace_init(&ba);
	sample(&a);
	trace_syscall(&b, "x86_64", "read", 5);
	trace_syscall(&b, "x86_64", "openat", 1);
	trace_meta(&b, "runs", NULL, 1);
	trace_merge(&ab, &a); trace_merge(&ab, &b);
	trace_merge(&ba, &b); trace_merge(&ba, &a);
	char *x = written(&ab), *y = written(&ba);
	assert_string_equal(x, y);
	assert_non_null(strstr(x, "syscall x86_64 read 15\n"));
	assert_non_null(strstr(x, "syscall x86_64 openat 1\n"));
	assert_non_null(strstr(x, "meta runs 2\n"));
	assert_int_equal(trace_total(&ab, TR_SYSCALL, NULL), 15 + 3 + 1);
	free(x); free(y);
	trace_free(&a); trace_free(&b); trace_free(&ab); trace_free(&ba);
}

static void expect_error(const char *text, const char *want)
{
	trace t;
	trace_init(&t);
	char *err = NULL;
	assert_int_equal(trace_parse(&t, "f.trace", text, strlen(text), &err), -1);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("error \"%s\" lacks \"%s\"", err, want);
	assert_int_equal(t.n, 0);   /* nothing kept on error */
	free(err);
	trace_free(&t);
}

static void test_errors(void **st)
{
	(void)st;
	expect_error("polc-trace 2\n", "f.trace:1: trace version 2 is newer");
	expect_error("not a trace\n", "f.trace:1: not a polc trace");
	expect_error("", "f.trace:1: empty file");
	expect_error("polc-trace 1\nsyscall x86_64 read 1\nbogus x 1\n",
		     "f.trace:3: unknown record kind");
	expect_error("polc-trace 1\n# c\n\nsyscall x86_64 read\n", "f.trace:4:");
	expect_error("polc-trace 1\nsyscall x86_64 read 0\n", "f.trace:2: bad count");
	expect_error("polc-trace 1\nsyscall mips read 1\n", "unknown arch");
	expect_error("polc-trace 1\nfile \"rel\" read ok 1\n", "not absolute");
	expect_error("polc-trace 1\nfile \"/a read ok 1\n", "unterminated string");
	expect_error("polc-trace 1\nfile \"/a\" fly ok 1\n", "unknown permission");
	expect_error("polc-trace 1\nfile \"/a\" read EWHAT 1\n", "unknown result");
	expect_error("polc-trace 1\nnet bind inet tcp - 70000 ok 1\n", "bad port");
	expect_error("polc-trace 1\nsyscall x86_64 read 99999999999999999999999\n", "bad count");
}

/* Lines of spaces and tabs are blank (a fuzzer found them read as a record
 * with no fields). */
static void test_blank_lines(void **st)
{
	(void)st;
	static const char text[] = "polc-trace 1\n \n\t\nsyscall x86_64 read 2\n  \t ";
	trace t;
	trace_init(&t);
	char *err = NULL;
	assert_int_equal(trace_parse(&t, "f.trace", text, sizeof text - 1, &err), 0);
	assert_null(err);
	assert_int_equal(trace_total(&t, TR_SYSCALL, NULL), 2);
	trace_free(&t);
}

static void test_generalize(void **st)
{
	(void)st;
	static const struct { const char *in; bool w; const char *out; } c[] = {
		{ "/proc/1234/stat", false, "/proc/*/stat" },
		{ "/proc/self/status", false, "/proc/*/status" },
		{ "/proc/thread-self/comm", false, "/proc/*/task/*/comm" },
		{ "/proc/12/task/34/stat", false, "/proc/*/task/*/stat" },
		{ "/proc/sys/kernel/ngroups_max", false, "/proc/sys/kernel/ngroups_max" },
		{ "/tmp/tmpa8Zq1x", true, "/tmp/tmp*" },
		{ "/tmp/plainname", true, "/tmp/plainname" },
		{ "/tmp/tmp.Gc8XrrPpg4/dump.rdb", false, "/tmp/tmp.*/dump.rdb" },
		{ "/var/lib/redis/temp-48213.rdb", true, "/var/lib/redis/temp-*.rdb" },
		{ "/usr/lib/libfoo.so.123", false, "/usr/lib/lib*.so*" },
		{ "/usr/lib/libfoo.so.123", true, "/usr/lib/libfoo.so.*" },
		{ "/usr/lib/libfoo.so", false, "/usr/lib/libfoo.so" },
		{ "/sys/devices/virtual/block/loop3/queue/rotational", false,
		  "/sys/devices/virtual/block/loop[0-9]*/queue/rotational" },
		{ "/dev/loop7", false, "/dev/loop[0-9]*" },
		{ "/dev/loop-control", false, "/dev/loop-control" },
		{ "/sys/block/zram0/size", false, "/sys/block/zram[0-9]*/size" },
		{ "/sys/devices/pci0000:00/0000:00:03.0/virtio0/net/eth0/mtu", false,
		  "/sys/devices/pci*/*:*/virtio[0-9]*/net/eth[0-9]*/mtu" },
		{ "/dev/pts/4", true, "/dev/pts/[0-9]*" },
		{ "/dev/null", true, "/dev/null" },
		{ "/var/lib/mysql/#sql-12", false, "/var/lib/mysql/#sql*" },
		{ "/tmp/#sql-temptable-46d9-5-0.MAD", true, "/tmp/#sql*.MAD" },
		{ "/sys/devices/pci0000:00/0000:00:04.0/virtio1/block/vda/queue/rotational", false,
		  "/sys/devices/pci*/*:*/virtio[0-9]*/block/vd[a-z]*/queue/rotational" },
		{ "/sys/block/sdb/size", false, "/sys/block/sd[a-z]*/size" },
		{ "/sys/block/xvda/size", false, "/sys/block/xvd[a-z]*/size" },
		{ "/sys/devices/system/cpu/possible", false, "/sys/devices/system/cpu/possible" },
		{ "/dev/shm/sdx", true, "/dev/shm/sdx" },
		{ "/var/lib/mysql/tmp/#1573", true, "/var/lib/mysql/tmp/#[0-9]*" },
		{ "/etc/we*ird[1]", false, "/etc/we\\*ird\\[1\\]" },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		char *g = gen_generalize_path(c[i].in, c[i].w);
		if (strcmp(g, c[i].out))
			fail_msg("%s -> %s, want %s", c[i].in, g, c[i].out);
		free(g);
	}
}

static void test_gen(void **st)
{
	(void)st;
	trace t;
	trace_init(&t);
	sample(&t);
	for (int i = 0; i < 12; i++) {
		char p[64];
		snprintf(p, sizeof p, "/usr/share/zoneinfo/f%02d", i);
		trace_file(&t, p, "read", 0);
	}
	trace_file(&t, "/etc/shadow", "read", 13);     /* failed: left out */
	trace_file(&t, "/etc/hosts", "stat", 0);       /* no language perm */
	gen_opts o = { .name = "demo" };
	buf a, b;
	buf_init(&a);
	buf_init(&b);
	char *err = NULL;
	assert_int_equal(gen_policy(&t, &o, &a, &err), 0);
	assert_int_equal(gen_policy(&t, &o, &b, &err), 0);
	char *s = buf_cstr(&a);
	assert_string_equal(s, buf_cstr(&b));
	assert_non_null(strstr(s, "policy demo {\n  default deny syscall;\n"));
	assert_non_null(strstr(s, "    close,"));
	assert_non_null(strstr(s, "    read,"));
	assert_non_null(strstr(s, "    readv,                       # family read"));
	assert_true(strstr(s, "close,") < strstr(s, "read,"));
	assert_null(strstr(s, "    write"));   /* read never implies write */
	assert_non_null(strstr(s, "allow file \"/usr/share/zoneinfo/*\" read;"));
	assert_null(strstr(s, "zoneinfo/f01"));
	assert_non_null(strstr(s, "allow file \"/etc/passwd\" read;"));
	assert_null(strstr(s, "/etc/shadow"));
	assert_null(strstr(s, "/etc/hosts"));
	assert_non_null(strstr(s, "allow exec \"/usr/bin/true\";"));
	assert_non_null(strstr(s, "allow network bind inet tcp port 6379;"));
	buf_free(&a);
	buf_free(&b);
	trace_free(&t);
}

/* Collapsing never grants what was not seen: a read-only script in a
 * directory of written files stays read-only, and libraries read in two
 * subdirectories of /usr/lib do not make /usr/lib/\** readable. */
static void test_gen_collapse(void **st)
{
	(void)st;
	trace t;
	trace_init(&t);
	char p[96];
	for (int i = 0; i < 10; i++) {
		snprintf(p, sizeof p, "/srv/db/data/t%02d.frm", i);
		trace_file(&t, p, "write", 0);
		trace_file(&t, p, "read", 0);
		snprintf(p, sizeof p, "/srv/db/logs/l%02d", i);
		trace_file(&t, p, "append", 0);
		snprintf(p, sizeof p, "/usr/lib/python3.11/m%02d.py", i);
		trace_file(&t, p, "read", 0);
		snprintf(p, sizeof p, "/usr/lib/python3/dist-packages/d%02d.py", i);
		trace_file(&t, p, "read", 0);
	}
	trace_file(&t, "/srv/db/data/load.sql", "read", 0);
	gen_opts o = { .name = "c" };
	buf a;
	buf_init(&a);
	char *err = NULL;
	assert_int_equal(gen_policy(&t, &o, &a, &err), 0);
	char *s = buf_cstr(&a);
	assert_non_null(strstr(s, "allow file \"/srv/db/data/*\" read, write;"));
	assert_non_null(strstr(s, "deny file \"/srv/db/data/load.sql\" write;"));
	assert_non_null(strstr(s, "allow file \"/srv/db/logs/*\" append;"));
	assert_non_null(strstr(s, "allow file \"/usr/lib/python3.11/*\" read;"));
	assert_null(strstr(s, "/usr/lib/**"));
	free(s);
	trace_free(&t);
}

static void test_gen_failures(void **st)
{
	(void)st;
	trace t;
	trace_init(&t);
	sample(&t);
	buf m;
	buf_init(&m);
	assert_int_equal(gen_failures(&t, &m), 0);
	trace_meta(&t, "exit", "killed", 1);                /* polc record ended it */
	trace_exec(&t, "/usr/local/bin/true", 2);          /* a PATH search */
	assert_int_equal(gen_failures(&t, &m), 0);
	trace_add(&t, TR_NET, 1, 6, "bind", "inet", "tcp", "127.0.0.1", "6379", "EADDRINUSE");
	trace_meta(&t, "exit", "status 1", 1);
	trace_meta(&t, "exit", "signal SIGSEGV", 1);
	trace_exec(&t, "/usr/bin/x", 8);                    /* ENOEXEC */
	assert_int_equal(gen_failures(&t, &m), 4);
	char *s = buf_cstr(&m);
	assert_non_null(strstr(s, "bind inet tcp 127.0.0.1 port 6379 failed with EADDRINUSE"));
	assert_non_null(strstr(s, "ended with signal SIGSEGV"));
	free(s);
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_blank_lines),
		cmocka_unit_test(test_generalize),
		cmocka_unit_test(test_gen),
		cmocka_unit_test(test_gen_collapse),
		cmocka_unit_test(test_gen_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
