/* sc_probe - make syscalls by name and print what happened, one line each:
 * "NAME ok" or "NAME errno N". For polc run --target seccomp tests.
 *   sc_probe getppid|getpid|dup1|uname|unshare-user ...
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct utsname u;
		long r;
		if (!strcmp(argv[i], "getppid")) r = syscall(SYS_getppid);
		else if (!strcmp(argv[i], "getpid")) r = syscall(SYS_getpid);
		else if (!strcmp(argv[i], "dup1")) r = syscall(SYS_dup, 1);
		else if (!strcmp(argv[i], "uname")) r = syscall(SYS_uname, &u);
		else if (!strcmp(argv[i], "unshare-user")) r = syscall(SYS_unshare, CLONE_NEWUSER);
		else { fprintf(stderr, "sc_probe: unknown call %s\n", argv[i]); return 2; }
		if (r >= 0)
			printf("%s ok\n", argv[i]);
		else
			printf("%s errno %d\n", argv[i], errno);
		fflush(stdout);
	}
	return 0;
}
