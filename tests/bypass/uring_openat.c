/* uring_openat.c PATH - openat(PATH, O_WRONLY|O_CREAT) refused by an
 * argument rule; IORING_OP_OPENAT opens the same file for writing. See
 * uring.h. */
#include <fcntl.h>
#include "uring.h"

int main(int argc, char **argv)
{
	if (argc != 2)
		return 1;
	long r = openat(AT_FDCWD, argv[1], O_WRONLY | O_CREAT, 0600);
	int e = errno;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (__u64)(unsigned long)argv[1];
	sqe.len = 0600;
	sqe.open_flags = O_WRONLY | O_CREAT;
	return uring_report("openat(O_WRONLY)", r, e, &sqe);
}
