/* common.c - what both tracers share: stop signals, clock, command line,
 * the live status line, syscall names (see tracer.h). */
#include "tracer.h"

#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "gen/sysnr.h"     /* the numbers decoded by (tools/gen-sysnr.c) */
#include <sys/wait.h>

volatile sig_atomic_t tracer_stop_requested;
static struct sigaction old_int, old_term, old_hup;

static void on_stop(int sig)
{
	tracer_stop_requested = sig;
}

void tracer_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;   /* no SA_RESTART: waits return EINTR */
	sigemptyset(&sa.sa_mask);
	tracer_stop_requested = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
}

void tracer_signals_restore(void)
{
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
}

double tracer_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *tracer_cmdline(char *const *argv)
{
	buf b;
	buf_init(&b);
	for (int i = 0; argv && argv[i]; i++) {
		const char *a = argv[i];
		bool plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789-_./=:,+@%") == strlen(a);
		if (i)
			buf_puts(&b, " ");
		if (plain) {
			buf_puts(&b, a);
			continue;
		}
		buf_puts(&b, "'");
		for (; *a; a++)
			buf_puts(&b, *a == '\'' ? "'\\''" : (char[2]){ *a, 0 });
		buf_puts(&b, "'");
	}
	return buf_cstr(&b);
}

void status_init(status_line *s, bool on)
{
	memset(s, 0, sizeof *s);
	s->on = on;
	s->start = s->last = tracer_now();
}

void status_update(status_line *s, unsigned procs, unsigned distinct,
		   uint64_t events, uint64_t lost)
{
	double now = tracer_now();
	if (!s->on || now - s->last < 0.5)
		return;
	double rate = (double)(events - s->last_events) / (now - s->last);
	fprintf(stderr, "\r\033[Kpolc record: %.1fs  processes %u  syscalls %u distinct"
		"  %.0f events/s  lost %llu", now - s->start, procs, distinct, rate,
		(unsigned long long)lost);
	fflush(stderr);
	s->last = now;
	s->last_events = events;
}

void status_done(status_line *s)
{
	if (s->on)
		fputs("\r\033[K", stderr);
}

const char *tracer_syscall_name(unsigned audit_arch, unsigned nr, const char **arch_name)
{
	/* Interned names: libseccomp returns a malloc'd copy per call. */
	enum { NARCH = 3, MAXNR = 1024 };
	static char *names[NARCH][MAXNR];
	static char other[32];
	uint32_t sarch;
	int a;
	unsigned n = nr;
	if (audit_arch == AUDIT_ARCH_I386) {
		a = 1, sarch = SCMP_ARCH_X86, *arch_name = "i386";
	} else if (nr & 0x40000000u) {
		a = 2, sarch = SCMP_ARCH_X32, *arch_name = "x32";
		n = nr & ~0x40000000u;
	} else {
		a = 0, sarch = SCMP_ARCH_X86_64, *arch_name = "x86_64";
	}
	if (n < MAXNR && names[a][n])
		return names[a][n];
	char *s = seccomp_syscall_resolve_num_arch(sarch, (int)nr);
	if (!s)
		s = xasprintf("nr_%u", n);
	if (n < MAXNR)
		return names[a][n] = s;
	snprintf(other, sizeof other, "%s", s);
	free(s);
	return other;
}

/* Lexical clean-up: no "//", "/./", "/../", no trailing '/'. */
void tracer_normalize(char *p)
{
	char *out = p, *s = p;
	while (*s) {
		while (*s == '/')
			s++;
		char *e = s;
		while (*e && *e != '/')
			e++;
		size_t n = (size_t)(e - s);
		if (n == 0)
			break;
		if (n == 1 && s[0] == '.') {
		} else if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (out > p && *--out != '/')
				;
		} else {
			*out++ = '/';
			memmove(out, s, n);
			out += n;
		}
		s = e;
	}
	if (out == p)
		*out++ = '/';
	*out = 0;
}

/* See tracer.h. */
char *tracer_canon(const char *abspath, bool follow)
{
	char rp[PATH_MAX];
	if (follow && realpath(abspath, rp))
		return xstrdup(rp);
	/* Canonicalise the directory, keep the name (lstat, unlink, creat...). */
	char *full = xstrdup(abspath);
	char *slash = strrchr(full, '/');
	if (!slash) {
		free(full);
		return xstrdup(abspath);
	}
	char *name = xstrdup(slash + 1);
	*slash = 0;
	char *res;
	if (strcmp(name, "..") != 0 && strcmp(name, ".") != 0 &&
	    realpath(*full ? full : "/", rp))
		res = xasprintf("%s/%s", strcmp(rp, "/") == 0 ? "" : rp, name);
	else {
		*slash = '/';
		res = xstrdup(full);
	}
	free(name);
	free(full);
	tracer_normalize(res);
	return res;
}

const char *tracer_family_name(int f, char *tmp, size_t n)
{
	switch (f) {
	case AF_INET: return "inet";
	case AF_INET6: return "inet6";
	case AF_UNIX: return "unix";
	case AF_NETLINK: return "netlink";
	case AF_PACKET: return "packet";
	default: snprintf(tmp, n, "af_%d", f); return tmp;
	}
}

const char *tracer_type_name(int fam, int type, int proto)
{
	bool inet = fam == AF_INET || fam == AF_INET6;
	switch (type) {
	case SOCK_STREAM: return inet ? "tcp" : "stream";
	case SOCK_DGRAM:
		if (inet && (proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6))
			return "icmp";
		return inet ? "udp" : "dgram";
	case SOCK_RAW: return "raw";
	case SOCK_SEQPACKET: return "seqpacket";
	default: return "unknown";
	}
}


const char *tracer_implied_cap(long nr)
{
	switch (nr) {
#define SE_CAP(n, cap) case POLC_NR_##n: return #cap;
#include "../compiler/sysevents.def"
	default: return NULL;
	}
}

void tracer_net_record(trace *t, uint64_t n, const char *op, int family, int type,
		       int proto, const char *addr, int port, int err)
{
	char famtmp[16], portb[12];
	bool inet = family == AF_INET || family == AF_INET6;
	bool has_port = port >= 0 && inet;
	const char *res = tr_result_name(err);
	snprintf(portb, sizeof portb, "%d", port);
	trace_add(t, TR_NET, n, 6, op, tracer_family_name(family, famtmp, sizeof famtmp),
		  tracer_type_name(family, type, proto), addr && *addr ? addr : "-",
		  has_port ? portb : "-", res);
	if (family == AF_UNIX && addr && addr[0] == '/' &&
	    (!strcmp(op, "bind") || !strcmp(op, "connect")))
		trace_add(t, TR_FILE, n, 3, addr, "write", res);
	if (!strcmp(op, "bind") && has_port && port > 0 && port < 1024)
		trace_add(t, TR_CAP, n, 2, "net_bind_service", res);
	if (!strcmp(op, "create") && (type == SOCK_RAW || family == AF_PACKET))
		trace_add(t, TR_CAP, n, 2, "net_raw", res);
}

void tracer_meta_run(trace *t, const char *cmd, const char *tracer, bool with_cwd)
{
	char cwd[4096];
	trace_meta(t, "runs", NULL, 1);
	trace_meta(t, "command", cmd, 1);
	if (with_cwd && getcwd(cwd, sizeof cwd))
		trace_meta(t, "cwd", cwd, 1);
	trace_meta(t, "tracer", tracer, 1);
}

void tracer_meta_exit(trace *t, int status, bool killed)
{
	char tmp[64];
	if (killed)
		snprintf(tmp, sizeof tmp, "killed");
	else if (WIFEXITED(status))
		snprintf(tmp, sizeof tmp, "status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(tmp, sizeof tmp, "signal %s", sigabbrev_np(WTERMSIG(status))
			 ? sigabbrev_np(WTERMSIG(status)) : "?");
	else
		snprintf(tmp, sizeof tmp, "unknown");
	trace_meta(t, "exit", tmp, 1);
}
