/* test_front_consts.c - compiler/constants.c: symbolic constants read from
 * the system headers equal the headers' own values; capability and errno
 * name tables in both directions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <linux/capability.h>

#include "compiler/consts.h"

static long long val(const char *name)
{
	long long v = -12345;
	if (!consts_lookup(name, &v))
		fail_msg("constant %s not found", name);
	return v;
}

static void header_values(void **state)
{
	(void)state;
	assert_int_equal(val("CLONE_NEWUSER"), CLONE_NEWUSER);
	assert_int_equal(val("CLONE_NEWUSER"), 0x10000000);
	assert_int_equal(val("CLONE_NEWNS"), CLONE_NEWNS);
	assert_int_equal(val("EPERM"), EPERM);
	assert_int_equal(val("EPERM"), 1);
	assert_int_equal(val("EACCES"), 13);
	assert_int_equal(val("ENOSYS"), ENOSYS);
	assert_int_equal(val("AF_INET"), AF_INET);
	assert_int_equal(val("AF_INET6"), AF_INET6);
	assert_int_equal(val("AF_NETLINK"), AF_NETLINK);
	assert_int_equal(val("SOCK_STREAM"), SOCK_STREAM);
	assert_int_equal(val("SOCK_DGRAM"), SOCK_DGRAM);
	assert_int_equal(val("PER_LINUX"), PER_LINUX);
	assert_int_equal(val("PER_LINUX"), 0);
	assert_int_equal(val("O_WRONLY"), O_WRONLY);
	assert_int_equal(val("CAP_SYS_ADMIN"), CAP_SYS_ADMIN);
	assert_int_equal(val("CAP_SYS_ADMIN"), 21);
	assert_int_equal(val("CAP_LAST_CAP"), CAP_LAST_CAP);
}

static void unknown_names(void **state)
{
	(void)state;
	long long v = 77;
	assert_false(consts_lookup("CLONE_NEWUSR", &v));
	assert_false(consts_lookup("", &v));
	assert_false(consts_lookup("clone_newuser", &v));
	assert_int_equal(v, 77);
}

static void table_sorted(void **state)
{
	(void)state;
	assert_true(polc_nconsts > 500);
	for (size_t i = 1; i < polc_nconsts; i++)
		if (strcmp(polc_consts[i - 1].name, polc_consts[i].name) >= 0)
			fail_msg("not sorted at %s, %s", polc_consts[i - 1].name, polc_consts[i].name);
}

static void capabilities(void **state)
{
	(void)state;
	assert_int_equal(cap_last(), CAP_LAST_CAP);
	assert_int_equal(cap_from_name("sys_admin"), CAP_SYS_ADMIN);
	assert_int_equal(cap_from_name("CAP_SYS_ADMIN"), CAP_SYS_ADMIN);
	assert_int_equal(cap_from_name("chown"), CAP_CHOWN);
	assert_int_equal(cap_from_name("chown"), 0);
	assert_int_equal(cap_from_name("net_raw"), CAP_NET_RAW);
	assert_int_equal(cap_from_name("bpf"), CAP_BPF);
	assert_int_equal(cap_from_name("sys_admn"), -1);
	assert_int_equal(cap_from_name("last_cap"), -1);
	assert_string_equal(cap_name(CAP_SYS_ADMIN), "sys_admin");
	assert_string_equal(cap_name(0), "chown");
	assert_null(cap_name(-1));
	assert_null(cap_name(64));
	size_t n;
	const char *const *names = cap_names(&n);
	assert_int_equal(n, CAP_LAST_CAP + 1);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(names[i]);
		assert_int_equal(cap_from_name(names[i]), (int)i);
	}
}

static void errnos(void **state)
{
	(void)state;
	assert_int_equal(errno_from_name("EACCES"), EACCES);
	assert_int_equal(errno_from_name("EPERM"), 1);
	assert_int_equal(errno_from_name("ENOSYS"), ENOSYS);
	assert_int_equal(errno_from_name("EWOULDBLOCK"), EAGAIN);
	assert_int_equal(errno_from_name("CLONE_NEWUSER"), -1);
	assert_int_equal(errno_from_name("EACCESS"), -1);
	assert_int_equal(errno_from_name("E"), -1);
	assert_string_equal(errno_name(EACCES), "EACCES");
	assert_string_equal(errno_name(ENOSYS), "ENOSYS");
	assert_string_equal(errno_name(EAGAIN), "EAGAIN");   /* first in sorted order */
	assert_null(errno_name(0));
	assert_null(errno_name(-1));
	assert_null(errno_name(4096));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(header_values),
		cmocka_unit_test(unknown_names),
		cmocka_unit_test(table_sorted),
		cmocka_unit_test(capabilities),
		cmocka_unit_test(errnos),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
