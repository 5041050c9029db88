/* trace_fail PORT: a workload that fails as a server does when its port is
 * taken: a listener on 127.0.0.1:PORT, then a second socket's bind to the
 * same port (EADDRINUSE), then exit status 3. Loopback only. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)(argc > 1 ? atoi(argv[1]) : 47002));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 1) < 0) {
		perror("trace_fail: the first bind");
		return 1;
	}
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(s, (struct sockaddr *)&a, sizeof a) == 0) {
		fprintf(stderr, "trace_fail: the second bind succeeded\n");
		return 1;
	}
	return 3;
}
