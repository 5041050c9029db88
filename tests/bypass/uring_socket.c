/* uring_socket.c - socket(AF_NETLINK) refused; IORING_OP_SOCKET (5.19+)
 * creates the same socket. No message is ever sent. See uring.h. */
#include <sys/socket.h>
#include <linux/netlink.h>
#include "uring.h"

int main(void)
{
	long r = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	int e = errno;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_SOCKET;
	sqe.fd = AF_NETLINK;               /* domain */
	sqe.off = SOCK_RAW;                /* type */
	sqe.len = NETLINK_ROUTE;           /* protocol */
	return uring_report("socket(AF_NETLINK)", r, e, &sqe);
}
