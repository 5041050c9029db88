/* uring_splice.c - splice(2) refused; IORING_OP_SPLICE moves the same
 * bytes between two pipes. See uring.h for the exit codes. */
#include <fcntl.h>
#include "uring.h"

int main(void)
{
	int a[2], b[2];
	if (pipe(a) || pipe(b) || write(a[1], "xy", 2) != 2)
		return 1;
	long r = splice(a[0], NULL, b[1], NULL, 1, 0);
	int e = errno;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_SPLICE;
	sqe.splice_fd_in = a[0];
	sqe.splice_off_in = (__u64)-1;     /* a pipe: no offset */
	sqe.fd = b[1];
	sqe.off = (__u64)-1;
	sqe.len = 1;
	return uring_report("splice", r, e, &sqe);
}
