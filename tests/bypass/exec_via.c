/* exec_via MODE PATH - run the program PATH (it must exit 0) by one route
 * and print "ok" or the errno name of the step that failed:
 *   execve     execve(PATH) (the direct route)
 *   execveat   execveat(open(PATH, O_PATH), "", AT_EMPTY_PATH)
 *   ldso       the dynamic loader runs it: ld.so PATH (a path-based LSM
 *              sees only ld.so's exec and PATH's read and mmap)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: exec_via execve|execveat|ldso PATH\n");
		return 2;
	}
	const char *m = argv[1], *p = argv[2];
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return 3;
	pid_t c = fork();
	if (c == 0) {
		char *env[] = { NULL };
		if (!strcmp(m, "execve")) {
			char *av[] = { (char *)p, NULL };
			execve(p, av, env);
		} else if (!strcmp(m, "execveat")) {
			char *av[] = { (char *)p, NULL };
			int fd = open(p, O_PATH);
			if (fd >= 0)
				syscall(SYS_execveat, fd, "", av, env, AT_EMPTY_PATH);
		} else {
			char *av[] = { "ld.so", (char *)p, NULL };
			execve("/lib64/ld-linux-x86-64.so.2", av, env);
		}
		int e = errno;
		(void)!write(pfd[1], &e, sizeof e);
		_exit(127);
	}
	close(pfd[1]);
	int e = 0, st = 0;
	ssize_t n = read(pfd[0], &e, sizeof e);
	waitpid(c, &st, 0);
	if (n == (ssize_t)sizeof e) {
		errno = e;
		printf("%s\n", strerrorname_np(e) ? strerrorname_np(e) : "E?");
		return 1;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		printf("ok\n");
		return 0;
	}
	printf("exit%d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 1;
}
