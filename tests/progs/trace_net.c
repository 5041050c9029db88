/* trace_net PORT: on loopback only, bind a TCP listener to 127.0.0.1:PORT,
 * connect to it, accept, and send a UDP datagram to 127.0.0.1:PORT. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int port = argc > 1 ? atoi(argv[1]) : 47001;
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	int one = 1;
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0) {
		perror("bind/listen");
		return 1;
	}
	int c = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(c, (struct sockaddr *)&a, sizeof a) < 0) {
		perror("connect");
		return 1;
	}
	int s = accept(l, NULL, NULL);
	close(s);
	close(c);
	close(l);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	sendto(u, "x", 1, 0, (struct sockaddr *)&a, sizeof a);
	close(u);
	return 0;
}

/* Under `make asan` these programs run traced: LeakSanitizer's exit-time
 * check needs ptrace itself and cannot work under a tracer. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "detect_leaks=0"; }
