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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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
	int six = !strcmp(m, "connect6") || !strcmp(m, "udp6");
	int udp = !strcmp(m, "udp") || !strcmp(m, "udp6") || !strcmp(m, "sendmsg");
	int mptcp = !strcmp(m, "mptcp");
	int s = socket(six ? AF_INET6 : AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, mptcp ? IPPROTO_MPTCP : 0);
	if (s < 0)
		return done(-1, "socket");
	struct sockaddr *sa = six ? (struct sockaddr *)&a6 : (struct sockaddr *)&a4;
	socklen_t sl = six ? sizeof a6 : sizeof a4;
	char msg[] = "polc";
	if (!strcmp(m, "connect4") || !strcmp(m, "connect6") || mptcp)
		return done(connect(s, sa, sl), "connect");
	if (!strcmp(m, "tfo"))
		return done(sendto(s, msg, sizeof msg, MSG_FASTOPEN, sa, sl), "sendto MSG_FASTOPEN");
	if (!strcmp(m, "udp") || !strcmp(m, "udp6"))
		return done(sendto(s, msg, sizeof msg, 0, sa, sl), "sendto");
	if (!strcmp(m, "sendmsg")) {
		struct iovec io = { msg, sizeof msg };
		struct msghdr h = { .msg_name = sa, .msg_namelen = sl, .msg_iov = &io, .msg_iovlen = 1 };
		return done(sendmsg(s, &h, 0), "sendmsg");
	}
	fprintf(stderr, "net_via: unknown mode %s\n", m);
	return 2;
}
