/* trace_getppid N: call getppid(2) exactly N times (raw syscalls, so libc
 * cannot cache or add any), then exit 0. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

/* Under `make asan` these programs run traced: LeakSanitizer's exit-time
 * check needs ptrace itself and cannot work under a tracer. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
