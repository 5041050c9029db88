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
