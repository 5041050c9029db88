/* map_exec MODE PATH - map PATH executable and print "ok" or the errno
 * name of the step that failed:
 *   mmap       mmap(PROT_READ|PROT_EXEC) at once (the direct route)
 *   mprotect   mmap(PROT_READ), then mprotect(PROT_READ|PROT_EXEC)
 *   implies    personality(READ_IMPLIES_EXEC), then mmap(PROT_READ): the
 *              kernel adds PROT_EXEC after the call; "ok" only if the
 *              mapping came out executable (/proc/self/maps), "noexec" if
 *              it did not
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <unistd.h>

static int fail(const char *step)
{
	printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fprintf(stderr, "map_exec: %s: %s\n", step, strerror(errno));
	return 1;
}

/* Whether the mapping at p is executable: "ok" if so, "noexec" if not. */
static int exec_mapped(const char *p)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	unsigned long lo, hi;
	char perm[8];
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 &&
		    (unsigned long)p >= lo && (unsigned long)p < hi) {
			puts(perm[2] == 'x' ? "ok" : "noexec");
			return perm[2] == 'x' ? 0 : 1;
		}
	puts("nomap");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: map_exec mmap|mprotect|implies PATH\n");
		return 2;
	}
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0)
		return fail("open");
	if (!strcmp(argv[1], "implies")) {
		if (personality(READ_IMPLIES_EXEC) < 0)
			return fail("personality");
		char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED)
			return fail("mmap");
		return exec_mapped(p);
	}
	int direct = !strcmp(argv[1], "mmap");
	void *p = mmap(NULL, 4096, PROT_READ | (direct ? PROT_EXEC : 0), MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	if (!direct && mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0)
		return fail("mprotect");
	printf("ok\n");
	return 0;
}
