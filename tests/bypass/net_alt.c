/* net_alt MODE IPV4 PORT [ARG...] - one of the kernel's other routes to a
 * network operation (Linux 6.1; the study behind them: tables 1 and 3 of
 * the netcg notes): print "ok", the errno name of the step that failed,
 * or "unavailable" when this kernel cannot make the socket at all (no
 * module, protocol not built). ECONNREFUSED means the packet got out: no
 * LSM refused it. Only loopback addresses are ever given (t_bypass).
 *   ping-connect, ping-sendto   a ping socket (SOCK_DGRAM, IPPROTO_ICMP;
 *              needs net.ipv4.ping_group_range to hold the caller's gid)
 *   raw-connect, raw-sendto     SOCK_RAW, IPPROTO_ICMP (CAP_NET_RAW)
 *   raw-sendto-unspec           the same with sin_family AF_UNSPEC: 6.1
 *              raw_sendmsg takes it as AF_INET (a pr_info_once)
 *   udplite-connect-send        IPPROTO_UDPLITE: connect, then send(2)
 *   udplite-sendto, udplite-sendto-unspec
 *   udp-sendto-unspec           sendto with sin_family AF_UNSPEC and an
 *              IPv4 address: udp_sendmsg takes AF_UNSPEC as AF_INET
 *   udp6-connect-mapped         AF_INET6 UDP: connect ::ffff:IPV4, send(2)
 *   udp6-connect-v4addr, udp6-sendto-v4addr  AF_INET6 UDP socket given a
 *              sockaddr_in (ip6_datagram_connect, udpv6_sendmsg take it)
 *   tcp6-tfo-mapped             sendto(MSG_FASTOPEN) to ::ffff:IPV4
 *   tfo-sockopt                 TCP_FASTOPEN_CONNECT, connect, write
 *   sendmmsg-second             sendmmsg of two UDP datagrams, the first to
 *              127.0.0.1 PORT, the second to IPV4: "ok" if both went;
 *              if only the first, the errno of sending the second again
 *              (as a caller retries the rest); "first-ERR" if the first
 *              failed
 *   uring-sendmsg               IORING_OP_SENDMSG with msg_name (UDP)
 *   udp-connected-cmsg          connect UDP to IPV4, sendmsg with an IP_TTL
 *              cmsg and no address (6.1 udp_sendmsg then clears
 *              `connected`: must still be a send to the socket's peer)
 *   l2tp-connect, l2tp-sendto, l2tp-sendto-unspec  L2TP/IP (IPPROTO_L2TP,
 *              SOCK_DGRAM), bound to 127.0.0.1 first (connect needs it)
 *   dccp-connect                SOCK_DCCP
 *   bind4, bind-unspec, bind6-mapped, ping-bind, raw-bind, raw-bind-unspec,
 *   udplite-bind  bind to IPV4:PORT: bind-unspec with sin_family
 *              AF_UNSPEC (inet_bind takes it as AF_INET for INADDR_ANY),
 *              raw-bind-unspec likewise (raw_bind reads no family)
 *   tcp-uring-send, mptcp-write  a send without an address on a TCP (MPTCP)
 *              socket connected to a listener of our own on IPV4:PORT
 *   fd-send PATH KIND           unconfined, in the background: make a socket
 *              (udp, tcp, or tcp-conn: TCP connected to our own listener on
 *              IPV4:PORT), hand it over the unix socket PATH (SCM_RIGHTS)
 *              and wait until the peer closes
 *   fd-recv-OP PATH             take that socket, then OP: sendto, connect
 *              (to IPV4:PORT) or write (4 bytes, no address)
 *   hold KIND PROCS CMD...      make a KIND socket as fd 3 (tcp-conn: to
 *              127.0.0.1:7790), then write our pid to the cgroup.procs file
 *              PROCS (confining ourselves) and exec CMD: a socket made
 *              before confinement, inherited across exec
 *   fd3-OP                      OP on descriptor 3
 *   smc-connect, smc6-connect-mapped, smc-bind  an SMC socket (AF_SMC,
 *              SMCPROTO_SMC or SMCPROTO_SMC6: the smc module, which
 *              socket(2) loads): connect to IPV4:PORT (the mapped IPv6
 *              address for smc6), or bind to it. Its TCP connection is
 *              one the kernel makes itself (kernel_connect), to the same
 *              peer, with no LSM hook of its own
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include "uring.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE 136
#endif
#ifndef IPPROTO_L2TP
#define IPPROTO_L2TP 115
#endif
#ifndef SOCK_DCCP
#define SOCK_DCCP 6
#endif
#ifndef IPPROTO_DCCP
#define IPPROTO_DCCP 33
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef TCP_FASTOPEN_CONNECT
#define TCP_FASTOPEN_CONNECT 30
#endif

/* linux/l2tp.h's sockaddr_l2tpip (that header drags in linux/in.h, which
 * clashes with glibc's): the address where sockaddr_in has it, so an LSM
 * reading a sockaddr_in sees it; the port's place is unused (0). */
struct l2tpip {
	unsigned short family, unused;
	struct in_addr addr;
	unsigned int conn_id;
	unsigned char pad[4];
};

struct args {
	struct sockaddr_in a4;     /* IPV4:PORT */
	struct sockaddr_in6 a6;    /* ::ffff:IPV4, PORT */
	char **rest;               /* the arguments after PORT */
	int nrest;
};

static char msg[] = "polc";

static const char *ename(int e)
{
	return strerrorname_np(e) ? strerrorname_np(e) : "E?";
}

static int done(long r, const char *step)
{
	if (r >= 0) {
		printf("ok\n");
		return 0;
	}
	printf("%s\n", ename(errno));
	fprintf(stderr, "net_alt: %s: %s\n", step, strerror(errno));
	return 1;
}

/* A socket of this kind, or -1 after printing why: "unavailable" when the
 * kernel has no such protocol (only then: another refusal is a result). */
static int sock(int family, int type, int protocol)
{
	int s = socket(family, type, protocol);
	if (s >= 0)
		return s;
	if (errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT) {
		printf("unavailable\n");
		fprintf(stderr, "net_alt: socket(%d, %d, %d): %s\n", family, type, protocol,
			strerror(errno));
		return -1;
	}
	done(-1, "socket");
	return -1;
}

static struct sockaddr *sa4(const struct args *a)
{
	return (struct sockaddr *)&a->a4;
}

static struct sockaddr *sa6(const struct args *a)
{
	return (struct sockaddr *)&a->a6;
}

static int icmp_sendto(int s, const struct sockaddr *to, socklen_t tl)
{
	/* an echo request; the checksum is left 0 (a ping socket fills it,
	 * a raw one's receiver drops it): only the send is decided */
	struct icmphdr h = { .type = ICMP_ECHO };
	return done(sendto(s, &h, sizeof h, 0, to, tl), "sendto");
}

static int unspec_sendto(int s, const struct args *a, const void *data, size_t n)
{
	struct sockaddr_in u = a->a4;
	u.sin_family = AF_UNSPEC;
	return done(sendto(s, data, n, 0, (struct sockaddr *)&u, sizeof u), "sendto AF_UNSPEC");
}

static int m_ping_connect(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	return s < 0 ? 1 : done(connect(s, sa4(a), sizeof a->a4), "connect");
}

static int m_ping_sendto(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
	return s < 0 ? 1 : icmp_sendto(s, sa4(a), sizeof a->a4);
}

static int m_raw_connect(const struct args *a)
{
	int s = sock(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	return s < 0 ? 1 : done(connect(s, sa4(a), sizeof a->a4), "connect");
}

static int m_raw_sendto(const struct args *a)
{
	int s = sock(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	return s < 0 ? 1 : icmp_sendto(s, sa4(a), sizeof a->a4);
}

static int m_raw_sendto_unspec(const struct args *a)
{
	struct icmphdr h = { .type = ICMP_ECHO };
	int s = sock(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	return s < 0 ? 1 : unspec_sendto(s, a, &h, sizeof h);
}

static int m_udplite_connect_send(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE);
	if (s < 0)
		return 1;
	if (connect(s, sa4(a), sizeof a->a4) < 0)
		return done(-1, "connect");
	return done(send(s, msg, sizeof msg, 0), "send");
}

static int m_udplite_sendto(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE);
	return s < 0 ? 1 : done(sendto(s, msg, sizeof msg, 0, sa4(a), sizeof a->a4), "sendto");
}

static int m_udplite_sendto_unspec(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE);
	return s < 0 ? 1 : unspec_sendto(s, a, msg, sizeof msg);
}

static int m_udp_sendto_unspec(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, 0);
	return s < 0 ? 1 : unspec_sendto(s, a, msg, sizeof msg);
}

static int m_udp6_connect_mapped(const struct args *a)
{
	int s = sock(AF_INET6, SOCK_DGRAM, 0);
	if (s < 0)
		return 1;
	if (connect(s, sa6(a), sizeof a->a6) < 0)
		return done(-1, "connect");
	return done(send(s, msg, sizeof msg, 0), "send");
}

static int m_udp6_connect_v4addr(const struct args *a)
{
	int s = sock(AF_INET6, SOCK_DGRAM, 0);
	return s < 0 ? 1 : done(connect(s, sa4(a), sizeof a->a4), "connect");
}

static int m_udp6_sendto_v4addr(const struct args *a)
{
	int s = sock(AF_INET6, SOCK_DGRAM, 0);
	return s < 0 ? 1 : done(sendto(s, msg, sizeof msg, 0, sa4(a), sizeof a->a4), "sendto");
}

static int m_tcp6_tfo_mapped(const struct args *a)
{
	int s = sock(AF_INET6, SOCK_STREAM, 0);
	return s < 0 ? 1 : done(sendto(s, msg, sizeof msg, MSG_FASTOPEN, sa6(a), sizeof a->a6),
				"sendto MSG_FASTOPEN");
}

static int m_tfo_sockopt(const struct args *a)
{
	int s = sock(AF_INET, SOCK_STREAM, 0), one = 1;
	if (s < 0)
		return 1;
	if (setsockopt(s, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof one) < 0)
		return done(-1, "setsockopt TCP_FASTOPEN_CONNECT");
	if (connect(s, sa4(a), sizeof a->a4) < 0)
		return done(-1, "connect");
	return done(write(s, msg, sizeof msg), "write");   /* the deferred SYN goes now */
}

static int m_sendmmsg_second(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return 1;
	struct sockaddr_in lo = a->a4;
	lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct iovec io = { msg, sizeof msg };
	struct mmsghdr h[2] = {
		{ .msg_hdr = { .msg_name = &lo, .msg_namelen = sizeof lo, .msg_iov = &io, .msg_iovlen = 1 } },
		{ .msg_hdr = { .msg_name = sa4(a), .msg_namelen = sizeof a->a4, .msg_iov = &io,
			       .msg_iovlen = 1 } },
	};
	int n = sendmmsg(s, h, 2, 0);
	if (n == 2)
		return done(0, "sendmmsg");
	if (n < 0) {
		printf("first-%s\n", ename(errno));
		return 1;
	}
	/* the kernel returns the count sent and drops the second's error */
	return done(sendmmsg(s, &h[1], 1, 0) == 1 ? 0 : -1, "sendmmsg of the second");
}

/* One io_uring submission; "io_uring-ERR" when io_uring itself refused
 * (setup or enter), so that is not taken for the operation's refusal. */
static int uring_done(const struct io_uring_sqe *sqe, const char *op)
{
	int res = 0, r = uring_once(sqe, &res);
	if (r < 0) {
		printf("io_uring-%s\n", ename(-r));
		return 1;
	}
	errno = res < 0 ? -res : 0;
	return done(res < 0 ? -1 : 0, op);
}

static int m_uring_sendmsg(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return 1;
	struct iovec io = { msg, sizeof msg };
	struct msghdr h = { .msg_name = sa4(a), .msg_namelen = sizeof a->a4, .msg_iov = &io,
			    .msg_iovlen = 1 };
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_SENDMSG;
	sqe.fd = s;
	sqe.addr = (__u64)(unsigned long)&h;
	sqe.len = 1;
	return uring_done(&sqe, "IORING_OP_SENDMSG");
}

static int m_udp_connected_cmsg(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DGRAM, 0), ttl = 7;
	if (s < 0)
		return 1;
	if (connect(s, sa4(a), sizeof a->a4) < 0)
		return done(-1, "connect");
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec io = { msg, sizeof msg };
	struct msghdr h = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof ctl.b };
	struct cmsghdr *c = CMSG_FIRSTHDR(&h);
	c->cmsg_level = IPPROTO_IP;
	c->cmsg_type = IP_TTL;
	c->cmsg_len = CMSG_LEN(sizeof ttl);
	memcpy(CMSG_DATA(c), &ttl, sizeof ttl);
	return done(sendmsg(s, &h, 0), "sendmsg IP_TTL");
}

/* An L2TP/IP socket bound to 127.0.0.1 (connect needs a bound socket:
 * l2tp_ip_connect refuses a zapped one), or -1 after printing why. */
static int l2tp_bound(void)
{
	int s = sock(AF_INET, SOCK_DGRAM, IPPROTO_L2TP);
	if (s < 0)
		return -1;
	struct l2tpip me = { .family = AF_INET, .addr.s_addr = htonl(INADDR_LOOPBACK), .conn_id = 7 };
	if (bind(s, (struct sockaddr *)&me, sizeof me) < 0) {
		done(-1, "bind L2TP/IP");
		return -1;
	}
	return s;
}

static int l2tp_to(const struct args *a, int family, int how)
{
	int s = l2tp_bound();
	if (s < 0)
		return 1;
	struct l2tpip to = { .family = (unsigned short)family, .addr = a->a4.sin_addr, .conn_id = 8 };
	if (how == 'c')
		return done(connect(s, (struct sockaddr *)&to, sizeof to), "connect");
	return done(sendto(s, msg, sizeof msg, 0, (struct sockaddr *)&to, sizeof to), "sendto");
}

static int m_l2tp_connect(const struct args *a) { return l2tp_to(a, AF_INET, 'c'); }
static int m_l2tp_sendto(const struct args *a) { return l2tp_to(a, AF_INET, 's'); }
static int m_l2tp_sendto_unspec(const struct args *a) { return l2tp_to(a, AF_UNSPEC, 's'); }

static int m_dccp_connect(const struct args *a)
{
	int s = sock(AF_INET, SOCK_DCCP, IPPROTO_DCCP);
	struct timeval tv = { 5, 0 };   /* a connect waits sk_sndtimeo for its reset */
	if (s < 0)
		return 1;
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	return done(connect(s, sa4(a), sizeof a->a4), "connect");
}

enum { AF_SMC_ = 43, SMCPROTO_SMC_ = 0, SMCPROTO_SMC6_ = 1 };

static int m_smc_connect(const struct args *a)
{
	int s = sock(AF_SMC_, SOCK_STREAM, SMCPROTO_SMC_);
	return s < 0 ? 1 : done(connect(s, sa4(a), sizeof a->a4), "connect");
}

static int m_smc6_connect_mapped(const struct args *a)
{
	int s = sock(AF_SMC_, SOCK_STREAM, SMCPROTO_SMC6_);
	return s < 0 ? 1 : done(connect(s, sa6(a), sizeof a->a6), "connect");
}

static int bind_as(int family, int type, int protocol, const struct sockaddr *to, socklen_t tl)
{
	int s = sock(family, type, protocol);
	return s < 0 ? 1 : done(bind(s, to, tl), "bind");
}

static int m_bind4(const struct args *a)
{
	return bind_as(AF_INET, SOCK_DGRAM, 0, sa4(a), sizeof a->a4);
}

static int m_smc_bind(const struct args *a)
{
	return bind_as(AF_SMC_, SOCK_STREAM, SMCPROTO_SMC_, sa4(a), sizeof a->a4);
}

static int m_bind6_mapped(const struct args *a)
{
	return bind_as(AF_INET6, SOCK_DGRAM, 0, sa6(a), sizeof a->a6);
}

static int m_ping_bind(const struct args *a)
{
	return bind_as(AF_INET, SOCK_DGRAM, IPPROTO_ICMP, sa4(a), sizeof a->a4);
}

static int m_raw_bind(const struct args *a)
{
	return bind_as(AF_INET, SOCK_RAW, IPPROTO_ICMP, sa4(a), sizeof a->a4);
}

static int m_udplite_bind(const struct args *a)
{
	return bind_as(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE, sa4(a), sizeof a->a4);
}

static int m_bind_unspec(const struct args *a)
{
	struct sockaddr_in u = a->a4;
	u.sin_family = AF_UNSPEC;
	return bind_as(AF_INET, SOCK_DGRAM, 0, (struct sockaddr *)&u, sizeof u);
}

static int m_raw_bind_unspec(const struct args *a)
{
	struct sockaddr_in u = a->a4;
	u.sin_family = AF_UNSPEC;
	return bind_as(AF_INET, SOCK_RAW, IPPROTO_ICMP, (struct sockaddr *)&u, sizeof u);
}

/* A socket of `protocol` (TCP or MPTCP) connected to a listener of our own
 * on *at (left open: the caller's process keeps it), or -1 after printing
 * why. */
static int tcp_connected(const struct sockaddr_in *at, int protocol)
{
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
	    bind(l, (const struct sockaddr *)at, sizeof *at) < 0 || listen(l, 1) < 0) {
		done(-1, "listen");
		return -1;
	}
	int s = sock(AF_INET, SOCK_STREAM, protocol);
	if (s >= 0 && connect(s, (const struct sockaddr *)at, sizeof *at) < 0) {
		done(-1, "connect");
		return -1;
	}
	return s;
}

static int m_tcp_uring_send(const struct args *a)
{
	int s = tcp_connected(&a->a4, 0);
	if (s < 0)
		return 1;
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_SEND;
	sqe.fd = s;
	sqe.addr = (__u64)(unsigned long)msg;
	sqe.len = sizeof msg;
	return uring_done(&sqe, "IORING_OP_SEND");
}

static int m_mptcp_write(const struct args *a)
{
	int s = tcp_connected(&a->a4, IPPROTO_MPTCP);
	return s < 0 ? 1 : done(write(s, msg, sizeof msg), "write");
}

/* A socket of KIND: udp, tcp, or tcp-conn (connected to our listener on
 * *at); -1 after printing why. */
static int kind_socket(const char *kind, const struct sockaddr_in *at)
{
	if (!strcmp(kind, "udp"))
		return sock(AF_INET, SOCK_DGRAM, 0);
	if (!strcmp(kind, "tcp"))
		return sock(AF_INET, SOCK_STREAM, 0);
	if (!strcmp(kind, "tcp-conn"))
		return tcp_connected(at, 0);
	fprintf(stderr, "net_alt: unknown socket kind %s\n", kind);
	return -1;
}

/* OP (sendto, connect, write) on the socket s, towards IPV4:PORT. */
static int use_fd(int s, const char *op, const struct args *a)
{
	if (!strcmp(op, "sendto"))
		return done(sendto(s, msg, sizeof msg, 0, sa4(a), sizeof a->a4), "sendto");
	if (!strcmp(op, "connect"))
		return done(connect(s, sa4(a), sizeof a->a4), "connect");
	if (!strcmp(op, "write"))
		return done(write(s, msg, sizeof msg), "write");
	fprintf(stderr, "net_alt: unknown operation %s\n", op);
	return 2;
}

static int unix_at(const char *path, struct sockaddr_un *u)
{
	memset(u, 0, sizeof *u);
	u->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof u->sun_path)
		return -1;
	strcpy(u->sun_path, path);
	return socket(AF_UNIX, SOCK_STREAM, 0);
}

static int m_fd_send(const struct args *a)
{
	if (a->nrest != 2)
		return 2;
	struct sockaddr_un t;
	char tmp[sizeof t.sun_path];
	snprintf(tmp, sizeof tmp, "%s.tmp", a->rest[0]);
	int l = unix_at(tmp, &t), s = kind_socket(a->rest[1], &a->a4);
	struct timeval tv = { 30, 0 };   /* no peer came: give up, never hang the suite */
	/* listen under a temporary name, then rename: the peer, which waits
	 * for PATH to appear, never finds it not yet listening */
	if (l < 0 || s < 0 || bind(l, (struct sockaddr *)&t, sizeof t) < 0 || listen(l, 1) < 0 ||
	    setsockopt(l, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 || rename(tmp, a->rest[0]) < 0)
		return done(-1, "unix listen");
	int c = accept(l, NULL, NULL);
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
	memset(&ctl, 0, sizeof ctl);
	struct iovec io = { msg, 1 };
	struct msghdr h = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof ctl.b };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof s);
	memcpy(CMSG_DATA(cm), &s, sizeof s);
	if (c < 0 || sendmsg(c, &h, 0) < 0)
		return done(-1, "send the descriptor");
	char b;
	while (read(c, &b, 1) > 0)   /* keep a tcp-conn's listener until the peer is done */
		;
	return 0;
}

static int m_fd_recv(const struct args *a, const char *op)
{
	if (a->nrest != 1)
		return 2;
	struct sockaddr_un u;
	int c = unix_at(a->rest[0], &u);
	if (c < 0 || connect(c, (struct sockaddr *)&u, sizeof u) < 0)
		return done(-1, "unix connect");
	union { char b[CMSG_SPACE(sizeof(int))]; struct cmsghdr align; } ctl;
	char b;
	struct iovec io = { &b, 1 };
	struct msghdr h = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = ctl.b,
			    .msg_controllen = sizeof ctl.b };
	struct cmsghdr *cm;
	if (recvmsg(c, &h, 0) < 1 || !(cm = CMSG_FIRSTHDR(&h)) || cm->cmsg_type != SCM_RIGHTS) {
		printf("no-descriptor\n");
		return 1;
	}
	int s;
	memcpy(&s, CMSG_DATA(cm), sizeof s);
	return use_fd(s, op, a);
}

static int m_hold(const struct args *a)
{
	if (a->nrest < 3)
		return 2;
	struct sockaddr_in lo = { .sin_family = AF_INET, .sin_port = htons(7790),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int s = kind_socket(a->rest[0], &lo);
	if (s < 0 || dup2(s, 3) < 0)
		return 1;
	FILE *f = fopen(a->rest[1], "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
		return done(-1, "join the cgroup");
	execvp(a->rest[2], a->rest + 2);
	return done(-1, "exec");
}

static const struct { const char *name; int (*fn)(const struct args *); } modes[] = {
	{ "ping-connect", m_ping_connect }, { "ping-sendto", m_ping_sendto },
	{ "raw-connect", m_raw_connect }, { "raw-sendto", m_raw_sendto },
	{ "raw-sendto-unspec", m_raw_sendto_unspec },
	{ "udplite-connect-send", m_udplite_connect_send }, { "udplite-sendto", m_udplite_sendto },
	{ "udplite-sendto-unspec", m_udplite_sendto_unspec },
	{ "udp-sendto-unspec", m_udp_sendto_unspec },
	{ "udp6-connect-mapped", m_udp6_connect_mapped },
	{ "udp6-connect-v4addr", m_udp6_connect_v4addr },
	{ "udp6-sendto-v4addr", m_udp6_sendto_v4addr },
	{ "tcp6-tfo-mapped", m_tcp6_tfo_mapped }, { "tfo-sockopt", m_tfo_sockopt },
	{ "sendmmsg-second", m_sendmmsg_second }, { "uring-sendmsg", m_uring_sendmsg },
	{ "udp-connected-cmsg", m_udp_connected_cmsg },
	{ "l2tp-connect", m_l2tp_connect }, { "l2tp-sendto", m_l2tp_sendto },
	{ "l2tp-sendto-unspec", m_l2tp_sendto_unspec }, { "dccp-connect", m_dccp_connect },
	{ "bind4", m_bind4 }, { "bind-unspec", m_bind_unspec }, { "bind6-mapped", m_bind6_mapped },
	{ "ping-bind", m_ping_bind }, { "raw-bind", m_raw_bind },
	{ "raw-bind-unspec", m_raw_bind_unspec }, { "udplite-bind", m_udplite_bind },
	{ "tcp-uring-send", m_tcp_uring_send }, { "mptcp-write", m_mptcp_write },
	{ "smc-connect", m_smc_connect }, { "smc6-connect-mapped", m_smc6_connect_mapped },
	{ "smc-bind", m_smc_bind },
	{ "fd-send", m_fd_send }, { "hold", m_hold },
};

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: net_alt MODE IPV4 PORT [ARG...]\n");
		return 2;
	}
	const char *m = argv[1];
	struct args a = { .a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3])) },
			  .rest = argv + 4, .nrest = argc - 4 };
	a.a6.sin6_family = AF_INET6;
	a.a6.sin6_port = a.a4.sin_port;
	char mapped[64];
	snprintf(mapped, sizeof mapped, "::ffff:%s", argv[2]);
	if (inet_pton(AF_INET, argv[2], &a.a4.sin_addr) != 1 ||
	    inet_pton(AF_INET6, mapped, &a.a6.sin6_addr) != 1) {
		fprintf(stderr, "net_alt: bad address %s\n", argv[2]);
		return 2;
	}
	if (!strncmp(m, "fd-recv-", 8))
		return m_fd_recv(&a, m + 8);
	if (!strncmp(m, "fd3-", 4))
		return use_fd(3, m + 4, &a);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		if (!strcmp(m, modes[i].name))
			return modes[i].fn(&a);
	fprintf(stderr, "net_alt: unknown mode %s\n", m);
	return 2;
}
