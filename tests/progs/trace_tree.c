/* trace_tree: a workload for the tracer tests. In directory DIR (argv[1]):
 * a thread writes DIR/thread.txt, a forked child writes DIR/child.txt, a
 * vforked child execs /bin/true, the main process opens DIR/sub/rel.txt
 * through a dirfd and DIR/cwd.txt relative to its cwd, connects nowhere. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;

static void touch_at(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd < 0) {
		perror(name);
		exit(1);
	}
	close(fd);
}

static void *thread_main(void *arg)
{
	(void)arg;
	int dfd = open(dir, O_PATH | O_DIRECTORY);
	touch_at(dfd, "thread.txt");
	close(dfd);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	dir = argv[1];
	pthread_t th;
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_join(th, NULL);
	pid_t p = fork();
	if (p == 0) {
		int dfd = open(dir, O_PATH | O_DIRECTORY);
		touch_at(dfd, "child.txt");
		_exit(0);
	}
	waitpid(p, NULL, 0);
	p = vfork();
	if (p == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	waitpid(p, NULL, 0);
	char sub[4096];
	snprintf(sub, sizeof sub, "%s/sub", dir);
	mkdir(sub, 0755);
	int dfd = open(sub, O_RDONLY | O_DIRECTORY);
	touch_at(dfd, "rel.txt");
	close(dfd);
	if (chdir(dir) != 0)
		return 1;
	touch_at(AT_FDCWD, "cwd.txt");
	int fd = open("./sub/../cwd.txt", O_RDONLY);
	close(fd);
	return 0;
}

/* Under `make asan` these programs run traced: LeakSanitizer's exit-time
 * check needs ptrace itself and cannot work under a tracer. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
