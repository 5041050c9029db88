/* ns_via MODE - make a new user namespace by one route and print "ok" (it
 * was made) or the errno name of the failure. A policy that conditions
 * clone(2)/unshare(2) on CLONE_NEWUSER must hold on each route
 * (tests/t_bypass_seccomp.sh):
 *   clone3      clone3() with CLONE_NEWUSER in struct clone_args (flags in
 *               memory, where seccomp cannot look)
 *   clone3-none clone3() with no namespace flag (a plain fork)
 *   clone       clone(CLONE_NEWUSER | SIGCHLD)
 *   unshare     unshare(CLONE_NEWUSER)
 * The child of a clone exits at once; the parent reaps it.
 */
#include <errno.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

static int result(long r)
{
	if (r < 0) {
		printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
		return 1;
	}
	if (r == 0)
		_exit(0);      /* the child of a clone */
	int st;
	waitpid((pid_t)r, &st, 0);
	printf("ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: ns_via clone3|clone3-none|clone|unshare\n");
		return 2;
	}
	const char *m = argv[1];
	if (!strcmp(m, "clone3") || !strcmp(m, "clone3-none")) {
		struct clone_args ca;
		memset(&ca, 0, sizeof ca);
		ca.flags = strcmp(m, "clone3") ? 0 : CLONE_NEWUSER;
		ca.exit_signal = SIGCHLD;
		return result(syscall(SYS_clone3, &ca, sizeof ca));
	}
	if (!strcmp(m, "clone"))
		return result(syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
	if (!strcmp(m, "unshare")) {
		if (unshare(CLONE_NEWUSER) < 0)
			return result(-1);
		printf("ok\n");
		return 0;
	}
	fprintf(stderr, "ns_via: unknown mode %s\n", m);
	return 2;
}
