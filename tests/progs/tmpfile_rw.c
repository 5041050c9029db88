/* tmpfile_rw DIR: make an unnamed file in DIR with O_TMPFILE, as a server's
 * scratch file (tmpfile(3), InnoDB), write to it and read it back. Exit 0;
 * 77 if DIR's file system cannot make O_TMPFILE files; 1 on any other
 * error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: tmpfile_rw DIR\n");
		return 2;
	}
	int fd = open(argv[1], O_TMPFILE | O_RDWR, 0600);
	if (fd < 0) {
		fprintf(stderr, "tmpfile_rw: O_TMPFILE in %s: %s\n", argv[1], strerror(errno));
		return errno == EOPNOTSUPP || errno == EISDIR ? 77 : 1;
	}
	char b[4] = "";
	if (write(fd, "row", 3) != 3 || pread(fd, b, 3, 0) != 3 || memcmp(b, "row", 3)) {
		perror("tmpfile_rw");
		return 1;
	}
	return close(fd) ? 1 : 0;
}

/* Under `make asan` these programs run traced: LeakSanitizer's exit-time
 * check needs ptrace itself and cannot work under a tracer. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
