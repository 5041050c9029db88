/* test_sysnr.c - the syscall numbers polc uses come from libseccomp
 * (build/gen/sysnr.h for the recorders, compiler/syscalls.c for everything
 * else); checked here against what polc did not write: the kernel's uapi
 * headers of this build host (<asm/unistd_64.h>, <asm/unistd_32.h>,
 * <asm/unistd_x32.h>, read through the C preprocessor).
 *  - every syscall the two recorders decode (compiler/sysevents.def and the
 *    special decoders) has the header's x86_64 number;
 *  - for x86_64, i386 and x32, every name both the headers and libseccomp
 *    know resolves to the header's number (no disagreement at all), and
 *    libseccomp knows nearly all of the header's names (a newer kernel
 *    header may name a few calls the library does not know yet).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <seccomp.h>

#include <asm/unistd_64.h>
#include "gen/sysnr.h"
#include "compiler/syscalls.h"

static void recorders_numbers(void **state)
{
	(void)state;
	int n = 0;
#define SE_PATH(name, perm, dirfd, path, follow, flagarg) \
	assert_int_equal(POLC_NR_##name, __NR_##name); n++;
#define SE_PATH2(name, d1, p1, d2, p2) assert_int_equal(POLC_NR_##name, __NR_##name); n++;
#define SE_CAP(name, cap) assert_int_equal(POLC_NR_##name, __NR_##name); n++;
#include "compiler/sysevents.def"
	/* the special decoders of tracer/ptrace.c and tracer/polc_trace.bpf.c */
#define SPECIAL(name) assert_int_equal(POLC_NR_##name, __NR_##name); n++;
	SPECIAL(open) SPECIAL(creat) SPECIAL(openat) SPECIAL(openat2) SPECIAL(execve)
	SPECIAL(execveat) SPECIAL(mmap) SPECIAL(flock) SPECIAL(socket) SPECIAL(bind)
	SPECIAL(connect) SPECIAL(listen) SPECIAL(accept) SPECIAL(accept4) SPECIAL(sendto)
	SPECIAL(mount) SPECIAL(umount2) SPECIAL(pivot_root)
	printf("%d recorder syscalls: libseccomp's number == <asm/unistd_64.h>'s\n", n);
	assert_true(n > 60);
}

/* "#define __NR_name N" or "... (__X32_SYSCALL_BIT + N)" from the header. */
static void compare_header(const char *header, ir_arch a, unsigned bit)
{
	char cmd[256];
	snprintf(cmd, sizeof cmd, "echo '#include <%s>' | ${CC:-cc} -E -dM - 2>/dev/null", header);
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	char line[512], name[128];
	int agree = 0, unknown = 0, differ = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned nr;
		if (sscanf(line, "#define __NR_%127s (__X32_SYSCALL_BIT + %u)", name, &nr) == 2)
			nr |= bit;
		else if (sscanf(line, "#define __NR_%127s %u", name, &nr) != 2)
			continue;
		int got = sys_resolve(a, name);
		if (got < 0) {
			unknown++;
		} else if ((unsigned)got != nr) {
			printf("%s %s: libseccomp %d, header %u\n", ir_arch_name(a), name, got, nr);
			differ++;
		} else {
			agree++;
		}
	}
	pclose(f);
	printf("%s (%s): %d agree, %d differ, %d unknown to libseccomp\n", ir_arch_name(a),
	       header, agree, differ, unknown);
	assert_int_equal(differ, 0);
	assert_true(agree > 300);
	assert_true(unknown * 20 < agree);
}

static void arch_tables(void **state)
{
	(void)state;
	compare_header("asm/unistd_64.h", IR_ARCH_X86_64, 0);
	compare_header("asm/unistd_32.h", IR_ARCH_I386, 0);
	compare_header("asm/unistd_x32.h", IR_ARCH_X32, IR_X32_SYSCALL_BIT);
}

/* build/gen/systab.c (tools/gen-systab.c) holds exactly what the linked
 * libseccomp answers: every number 0..1023 of each ABI, every name in it. */
static void generated_table(void **state)
{
	(void)state;
	static const uint32_t sa[IR_NARCH] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32 };
	const struct scmp_version *v = seccomp_version();
	assert_int_equal(v->major, polc_systab_version[0]);
	assert_int_equal(v->minor, polc_systab_version[1]);
	assert_int_equal(v->micro, polc_systab_version[2]);
	size_t names = 0;
	for (int a = 0; a < IR_NARCH; a++)
		for (int i = 0; i < SYS_TAB_MAX; i++) {
			char *s = seccomp_syscall_resolve_num_arch(sa[a], a == IR_ARCH_X32 ? i | 0x40000000 : i);
			const char *t = polc_systab_name[a][i];
			assert_true(!s == !t);
			if (s)
				assert_string_equal(s, t);
			free(s);
			names += t != NULL;
		}
	assert_true(names > 900);
	for (size_t k = 0; k < polc_systab_nbyname; k++) {
		if (k)
			assert_true(strcmp(polc_systab_byname[k - 1].name, polc_systab_byname[k].name) < 0);
		for (int a = 0; a < IR_NARCH; a++)
			assert_int_equal(polc_systab_byname[k].nr[a],
					 seccomp_syscall_resolve_name_arch(sa[a], polc_systab_byname[k].name));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(recorders_numbers),
		cmocka_unit_test(arch_tables),
		cmocka_unit_test(generated_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
