/* exec_via MODE PATH - run the program PATH (it must exit 0) by one route
 * and print "ok" or the errno name of the step that failed:
 *   execve     execve(PATH) (the direct route)
 *   execveat   execveat(open(PATH, O_PATH), "", AT_EMPTY_PATH)
 *   ldso       the dynamic loader runs it: ld.so PATH (a path-based LSM
 *              sees only ld.so's exec and PATH's read and mmap)
 * exec_via memfd PATH NAME - PATH's bytes copied into memfd_create(NAME),
 *   run by fexecve (execveat(fd, "", AT_EMPTY_PATH)): the kernel names the
 *   file "memfd:NAME" on its internal mount, and NAME may hold '/'
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0x1000
#endif

/* A memfd named `name` holding the bytes of the file at p, or -1. */
static int memfd_copy(const char *p, const char *name)
{
	int in = open(p, O_RDONLY | O_CLOEXEC);
	int fd = memfd_create(name, 0);
	struct stat st;
	if (in < 0 || fd < 0 || fstat(in, &st) < 0 ||
	    sendfile(fd, in, NULL, (size_t)st.st_size) != st.st_size)
		fd = -1;
	if (in >= 0)
		close(in);
	return fd;
}

int main(int argc, char **argv)
{
	int memfd = argc == 4 && !strcmp(argv[1], "memfd");
	if (argc != 3 && !memfd) {
		fprintf(stderr, "usage: exec_via execve|execveat|ldso PATH\n"
				"       exec_via memfd PATH NAME\n");
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
		} else if (memfd) {
			char *av[] = { (char *)p, NULL };
			int fd = memfd_copy(p, argv[3]);
			if (fd >= 0)
				fexecve(fd, av, env);
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
