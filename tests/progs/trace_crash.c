/* trace_crash FILE: open FILE for reading, then die of SIGSEGV. */
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc > 1)
		close(open(argv[1], O_RDONLY));
	raise(SIGSEGV);
	return 0;
}

/* Under `make asan` these programs run traced: LeakSanitizer's exit-time
 * check needs ptrace itself and cannot work under a tracer; and the crash
 * must stay a real SIGSEGV, not ASan's report. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0:handle_segv=0"; }
