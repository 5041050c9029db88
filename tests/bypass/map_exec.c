/* map_exec MODE PATH - map PATH executable and print "ok" or the errno
 * name of the step that failed:
 *   mmap       mmap(PROT_READ|PROT_EXEC) at once (the direct route)
 *   mprotect   mmap(PROT_READ), then mprotect(PROT_READ|PROT_EXEC)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail(const char *step)
{
	printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fprintf(stderr, "map_exec: %s: %s\n", step, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: map_exec mmap|mprotect PATH\n");
		return 2;
	}
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return fail("open");
	int direct = !strcmp(argv[1], "mmap");
	void *p = mmap(NULL, 4096, PROT_READ | (direct ? PROT_EXEC : 0), MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	if (!direct && mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0)
		return fail("mprotect");
	printf("ok\n");
	return 0;
}
