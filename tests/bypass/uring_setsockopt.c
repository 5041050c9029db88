/* uring_setsockopt.c - setsockopt(SO_ATTACH_FILTER) refused; IORING_OP_URING_CMD
 * with SOCKET_URING_OP_SETSOCKOPT (6.7+) attaches the same classic BPF
 * filter. The socket is a UDP socket that never sends. See uring.h. */
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/filter.h>
#include "uring.h"

#define SOCKET_URING_OP_SETSOCKOPT 3   /* linux/io_uring.h of 6.7 */

int main(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return 1;
	struct sock_filter accept_all = BPF_STMT(BPF_RET | BPF_K, 0xffff);
	struct sock_fprog prog = { 1, &accept_all };
	long r = setsockopt(s, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog);
	int e = errno;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_URING_CMD;
	sqe.fd = s;
	/* 6.7's layout: cmd_op in off's low half, level and optname in addr,
	 * optlen where splice_fd_in is, optval in addr3 */
	sqe.off = SOCKET_URING_OP_SETSOCKOPT;
	sqe.addr = (__u64)SOL_SOCKET | (__u64)SO_ATTACH_FILTER << 32;
	sqe.splice_fd_in = sizeof prog;
	sqe.addr3 = (__u64)(unsigned long)&prog;
	return uring_report("setsockopt(SO_ATTACH_FILTER)", r, e, &sqe);
}
