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
