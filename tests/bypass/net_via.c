/* net_via MODE IPV4 PORT - reach IPV4:PORT by one route and print "ok",
 * or the errno name of the step that failed (ECONNREFUSED means the packet
 * got out: no LSM refused it). Each MODE is one way a socket gets a peer:
 *   connect4   connect() on an AF_INET TCP socket (the direct route)
 *   connect6   connect() on an AF_INET6 TCP socket to ::ffff:IPV4
 *   tfo        sendto(MSG_FASTOPEN) with the address on a fresh TCP socket
 *   udp        sendto() with the address on an unconnected UDP socket
 *   udp6       sendto() to ::ffff:IPV4 on an unconnected AF_INET6 UDP socket
 *   sendmsg    sendmsg() with msg_name on an unconnected UDP socket
 *   mptcp      connect() on an AF_INET MPTCP socket (TCP on the wire: it
 *              falls back to plain TCP towards a TCP-only peer)
 *   sendmmsg   sendmmsg() of one message with msg_name (UDP)
 *   sctp       connect() on an AF_INET SCTP socket (sctp.ko autoloads)
 *   sctp-connectx  setsockopt(SCTP_SOCKOPT_CONNECTX) with the address: the
 *              kernel connects the association without connect(2)
 *              (net/sctp/socket.c: __sctp_setsockopt_connectx calls only
 *              security_sctp_bind_connect, never security_socket_connect;
 *              the BPF enforcer's sctp_bind_connect program decides it)
 *   sctp-connectx-list  the same with two addresses packed: 127.0.0.1 first,
 *              IPV4 second (every address of the list is decided)
 *   sctp-connectx-v6sock  sctp-connectx's AF_INET address on an AF_INET6
 *              SCTP socket (its lists take IPv4 addresses)
 *   sctp-sendmsg  sendmsg() with msg_name on a one-to-many SCTP socket
 *              (SOCK_SEQPACKET): the association is made by the send
 *   sctp-sendmsg-dstaddr  the same to 127.0.0.1, with IPV4 in an
 *              SCTP_DSTADDRV4 cmsg: another peer address of the new
 *              association (no LSM hook sees it; the BPF enforcer's
 *              socket_sendmsg reads the cmsgs)
 *   uring-connect  IORING_OP_CONNECT
 *   tcp-write, tcp-sendfile, tcp-splice  a send without an address: listen
 *              on IPV4:PORT (a loopback address), connect a TCP socket to
 *              it, then write 4 bytes to the connected socket with
 *              write(2), sendfile(2) from a file or splice(2) from a pipe
 *              (6.1: sendfile and splice reach the socket's sendpage, which
 *              calls no security_socket_sendmsg)
 *   raw-hdrincl  a UDP datagram to IPV4:PORT in a hand-made IP header, sent
 *              on a SOCK_RAW/IPPROTO_RAW socket with msg_name 127.0.0.1 (the
 *              route follows msg_name, the packet the header); a UDP socket
 *              bound to IPV4:PORT first must receive it: "ok" if it did,
 *              EAGAIN if nothing came (IPV4 must be on lo; not an attempt of
 *              t_bypass: it passes the BPF enforcer)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <linux/sctp.h>

#ifndef SOL_SCTP
#define SOL_SCTP 132   /* IPPROTO_SCTP: glibc has no netinet/sctp.h */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include "uring.h"

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static int done(long r, const char *step)
{
	if (r >= 0) {
		printf("ok\n");
		return 0;
	}
	printf("%s\n", strerrorname_np(errno) ? strerrorname_np(errno) : "E?");
	fprintf(stderr, "net_via: %s: %s\n", step, strerror(errno));
	return 1;
}

/* A UDP datagram to *to in an IP header of our own, routed by msg_name
 * 127.0.0.1; a socket bound to *to must receive it. */
static int raw_hdrincl(const struct sockaddr_in *to)
{
	int r = socket(AF_INET, SOCK_DGRAM, 0);
	struct timeval tv = { 1, 0 };
	if (r < 0 || bind(r, (const struct sockaddr *)to, sizeof *to) < 0 ||
	    setsockopt(r, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0)
		return done(-1, "bind the receiver");
	int s = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);   /* IP_HDRINCL implied */
	if (s < 0)
		return done(-1, "socket SOCK_RAW");
	struct {
		struct iphdr ip;
		struct udphdr udp;
		char data[4];
	} pkt;
	memset(&pkt, 0, sizeof pkt);
	pkt.ip.version = 4;
	pkt.ip.ihl = 5;
	pkt.ip.ttl = 64;
	pkt.ip.protocol = IPPROTO_UDP;
	pkt.ip.saddr = htonl(INADDR_LOOPBACK);
	pkt.ip.daddr = to->sin_addr.s_addr;    /* the kernel fills tot_len, id, check */
	pkt.udp.source = htons(40000);
	pkt.udp.dest = to->sin_port;
	pkt.udp.len = htons(sizeof pkt.udp + sizeof pkt.data);
	memcpy(pkt.data, "polc", 4);          /* UDP checksum 0: none (IPv4) */
	struct sockaddr_in via = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	if (sendto(s, &pkt, sizeof pkt, 0, (struct sockaddr *)&via, sizeof via) < 0)
		return done(-1, "sendto raw");
	char b[16];
	ssize_t n = recv(r, b, sizeof b, 0);
	if (n == 4 && !memcmp(b, "polc", 4))
		return done(0, "recv");
	return done(-1, "recv");
}

/* A TCP connection to *to, through a listener of our own on it; then 4
 * bytes written to the connected socket by `how` (write, sendfile or
 * splice): a send without an address. */
static int tcp_send(const struct sockaddr_in *to, const char *how)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(l, (const struct sockaddr *)to, sizeof *to) < 0 || listen(l, 1) < 0)
		return done(-1, "listen");
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0 || connect(s, (const struct sockaddr *)to, sizeof *to) < 0)
		return done(-1, "connect");
	if (!strcmp(how, "write"))
		return done(write(s, "polc", 4), "write");
	if (!strcmp(how, "sendfile")) {
		char path[] = "/tmp/net_via.XXXXXX";
		int f = mkstemp(path);
		if (f < 0 || write(f, "polc", 4) != 4)
			return done(-1, "temp file");
		unlink(path);
		off_t off = 0;
		return done(sendfile(s, f, &off, 4), "sendfile");
	}
	int p[2];
	if (pipe(p) < 0 || write(p[1], "polc", 4) != 4)
		return done(-1, "pipe");
	return done(splice(p[0], NULL, s, NULL, 4, 0), "splice");
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: net_via MODE IPV4 PORT\n");
		return 2;
	}
	const char *m = argv[1];
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3])) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = a4.sin_port };
	char mapped[64];
	snprintf(mapped, sizeof mapped, "::ffff:%s", argv[2]);
	if (inet_pton(AF_INET, argv[2], &a4.sin_addr) != 1 || inet_pton(AF_INET6, mapped, &a6.sin6_addr) != 1) {
		fprintf(stderr, "net_via: bad address %s\n", argv[2]);
		return 2;
	}
	if (!strcmp(m, "raw-hdrincl"))
		return raw_hdrincl(&a4);
	if (!strncmp(m, "tcp-", 4))
		return tcp_send(&a4, m + 4);
	int six = !strcmp(m, "connect6") || !strcmp(m, "udp6") || !strcmp(m, "sctp-connectx-v6sock");
	int udp = !strcmp(m, "udp") || !strcmp(m, "udp6") || !strcmp(m, "sendmsg") ||
		  !strcmp(m, "sendmmsg");
	int mptcp = !strcmp(m, "mptcp");
	int sctp = !strncmp(m, "sctp", 4);
	int type = udp ? SOCK_DGRAM : !strncmp(m, "sctp-sendmsg", 12) ? SOCK_SEQPACKET : SOCK_STREAM;
	int s = socket(six ? AF_INET6 : AF_INET, type, mptcp ? IPPROTO_MPTCP : sctp ? IPPROTO_SCTP : 0);
	if (s < 0)
		return done(-1, "socket");
	struct sockaddr *sa = six ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
	socklen_t sl = six ? sizeof a6 : sizeof a4;
	char msg[] = "polc";
	if (!strcmp(m, "connect4") || !strcmp(m, "connect6") || mptcp || !strcmp(m, "sctp"))
		return done(connect(s, sa, sl), "connect");
	if (!strcmp(m, "sctp-connectx"))
		return done(setsockopt(s, SOL_SCTP, SCTP_SOCKOPT_CONNECTX, sa, sl),
			    "setsockopt SCTP_SOCKOPT_CONNECTX");
	if (!strcmp(m, "sctp-connectx-v6sock"))
		return done(setsockopt(s, SOL_SCTP, SCTP_SOCKOPT_CONNECTX, &a4, sizeof a4),
			    "setsockopt SCTP_SOCKOPT_CONNECTX");
	if (!strcmp(m, "sctp-connectx-list")) {
		struct sockaddr_in two[2] = { a4, a4 };
		two[0].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return done(setsockopt(s, SOL_SCTP, SCTP_SOCKOPT_CONNECTX, two, sizeof two),
			    "setsockopt SCTP_SOCKOPT_CONNECTX");
	}
	if (!strcmp(m, "uring-connect")) {
		struct io_uring_sqe sqe;
		memset(&sqe, 0, sizeof sqe);
		sqe.opcode = IORING_OP_CONNECT;
		sqe.fd = s;
		sqe.addr = (__u64)(unsigned long)sa;
		sqe.off = sl;
		int res = 0, r = uring_once(&sqe, &res);
		if (r < 0 || res < 0)
			errno = r < 0 ? -r : -res;
		return done(r < 0 || res < 0 ? -1 : 0, r < 0 ? "io_uring" : "IORING_OP_CONNECT");
	}
	if (!strcmp(m, "sendmmsg")) {
		struct iovec io = { msg, sizeof msg };
		struct mmsghdr h = { .msg_hdr = { .msg_name = sa, .msg_namelen = sl, .msg_iov = &io,
						  .msg_iovlen = 1 } };
		return done(sendmmsg(s, &h, 1, 0) == 1 ? 0 : -1, "sendmmsg");
	}
	if (!strcmp(m, "tfo"))
		return done(sendto(s, msg, sizeof msg, MSG_FASTOPEN, sa, sl), "sendto MSG_FASTOPEN");
	if (!strcmp(m, "udp") || !strcmp(m, "udp6"))
		return done(sendto(s, msg, sizeof msg, 0, sa, sl), "sendto");
	if (!strcmp(m, "sctp-sendmsg-dstaddr")) {
		struct sockaddr_in lo = a4;
		lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		union { char b[CMSG_SPACE(sizeof(struct in_addr))]; struct cmsghdr align; } ctl;
		memset(&ctl, 0, sizeof ctl);
		struct iovec io = { msg, sizeof msg };
		struct msghdr h = { .msg_name = &lo, .msg_namelen = sizeof lo, .msg_iov = &io,
				    .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof ctl.b };
		struct cmsghdr *c = CMSG_FIRSTHDR(&h);
		c->cmsg_level = IPPROTO_SCTP;
		c->cmsg_type = SCTP_DSTADDRV4;
		c->cmsg_len = CMSG_LEN(sizeof(struct in_addr));
		memcpy(CMSG_DATA(c), &a4.sin_addr, sizeof a4.sin_addr);
		return done(sendmsg(s, &h, 0), "sendmsg");
	}
	if (!strcmp(m, "sendmsg") || !strcmp(m, "sctp-sendmsg")) {
		struct iovec io = { msg, sizeof msg };
		struct msghdr h = { .msg_name = sa, .msg_namelen = sl, .msg_iov = &io, .msg_iovlen = 1 };
		return done(sendmsg(s, &h, 0), "sendmsg");
	}
	fprintf(stderr, "net_via: unknown mode %s\n", m);
	return 2;
}
