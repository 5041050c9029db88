/* trace_addr: addresses the kernel reads other than by sa_family, on
 * loopback only (run it in a network namespace of its own): a UDP IPv4
 * sendto whose sin_family is AF_UNSPEC (udp_sendmsg takes it as AF_INET) to
 * 127.0.0.2:7000, a sockaddr_in given to an AF_INET6 UDP socket's sendto
 * (udpv6_sendmsg sends it over IPv4) to 127.0.0.3:7001, and a UDP IPv4 bind
 * with AF_UNSPEC and INADDR_ANY (inet_bind takes it) to port 7002. Exits 1
 * if any call fails, so a trace of a run that did not happen is noticed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct sockaddr_in ipv4_addr(int fam, const char *ip, int port)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = (sa_family_t)fam;
	a.sin_port = htons((unsigned short)port);
	inet_pton(AF_INET, ip, &a.sin_addr);
	return a;
}

static int send_to(int domain, struct sockaddr_in a, const char *what)
{
	int s = socket(domain, SOCK_DGRAM, 0);
	int rc = s < 0 ? -1 : (int)sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof a);
	if (rc < 0)
		perror(what);
	if (s >= 0)
		close(s);
	return rc < 0;
}

int main(void)
{
	int bad = send_to(AF_INET, ipv4_addr(AF_UNSPEC, "127.0.0.2", 7000), "udp4 sendto AF_UNSPEC");
	bad |= send_to(AF_INET6, ipv4_addr(AF_INET, "127.0.0.3", 7001), "udp6 sendto sockaddr_in");
	struct sockaddr_in b = ipv4_addr(AF_UNSPEC, "0.0.0.0", 7002);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&b, sizeof b) < 0) {
		perror("udp4 bind AF_UNSPEC");
		bad = 1;
	}
	if (s >= 0)
		close(s);
	return bad;
}
