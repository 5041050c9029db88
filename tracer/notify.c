/* notify.c - record what a seccomp filter would refuse (see tracer.h,
 * record_notify): the command runs under a filter whose refusals were
 * turned into SECCOMP_RET_USER_NOTIF; polc is the supervisor, records each
 * notified call and lets it continue. No audit daemon or kernel log is
 * involved: every notified call reaches us, none is rate-limited away.
 */
#include "tracer.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Shared with the child: the listener's fd number there, and our ack. */
typedef struct {
	volatile int fd;       /* -1: not yet; -2: installing failed (errno in err) */
	volatile int err;
	volatile int ack;
} handoff;

/* The child: filter in place, then wait for the supervisor without a
 * syscall (any call could be one the filter refers to us) and exec. */
static void child(handoff *h, const struct sock_fprog *fp, const char *prog, char *const *argv)
{
	extern char **environ;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		h->err = errno;
		__atomic_store_n(&h->fd, -2, __ATOMIC_RELEASE);
		_exit(126);
	}
	long fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, fp);
	if (fd < 0) {
		h->err = errno;
		__atomic_store_n(&h->fd, -2, __ATOMIC_RELEASE);
		_exit(126);
	}
	__atomic_store_n(&h->fd, (int)fd, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&h->ack, __ATOMIC_ACQUIRE))
		;
	execve(prog, argv, environ);
	_exit(errno == ENOENT ? 127 : 126);
}

static void on_notice(int lfd, trace *out, uint64_t *n)
{
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	memset(&req, 0, sizeof req);
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
		return;   /* the caller died meanwhile (ENOENT) */
	const char *an, *name = tracer_syscall_name(req.data.arch, (unsigned)req.data.nr, &an);
	trace_syscall(out, an, name, 1);
	(*n)++;
	memset(&resp, 0, sizeof resp);
	resp.id = req.id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* Wait for the child's listener and take a copy of it. */
static int take_listener(handoff *h, pid_t pid, int pidfd, char **err)
{
	for (;;) {
		int fd = __atomic_load_n(&h->fd, __ATOMIC_ACQUIRE);
		if (fd >= 0) {
			int l = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
			if (l < 0)
				*err = xasprintf("taking the seccomp listener (pidfd_getfd): %s",
						 strerror(errno));
			return l;
		}
		if (fd == -2) {
			*err = xasprintf("installing the seccomp filter: %s", strerror(h->err));
			return -1;
		}
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			*err = xasprintf("the child ended before installing the filter");
			return -1;
		}
		usleep(1000);
	}
}

int record_notify(const void *filter, size_t ninsn, const char *prog, char *const *argv,
		  trace *out, int *status, char **err)
{
	struct sock_fprog fp = { .len = (unsigned short)ninsn,
				 .filter = (struct sock_filter *)filter };
	handoff *h = mmap(NULL, sizeof *h, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			  -1, 0);
	if (h == MAP_FAILED) {
		*err = xasprintf("mmap: %s", strerror(errno));
		return -1;
	}
	h->fd = -1;
	double start = tracer_now();
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		munmap(h, sizeof *h);
		return -1;
	}
	if (pid == 0)
		child(h, &fp, prog, argv);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int lfd = pidfd < 0 ? -1 : take_listener(h, pid, pidfd, err);
	if (pidfd < 0)
		*err = xasprintf("pidfd_open: %s", strerror(errno));
	if (lfd < 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (pidfd >= 0)
			close(pidfd);
		munmap(h, sizeof *h);
		return -1;
	}
	__atomic_store_n(&h->ack, 1, __ATOMIC_RELEASE);
	/* Serve until the command has ended and no task holds the filter any
	 * more (the listener hangs up): its descendants are audited too. */
	uint64_t n = 0;
	bool reaped = false, hup = false;
	int st = 0;
	tracer_signals_install();
	while (!(reaped && hup)) {
		struct pollfd p[2] = { { lfd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
		int r = poll(p, reaped ? 1 : 2, reaped ? 200 : -1);
		if (r < 0 && errno == EINTR) {
			if (tracer_stop_requested)
				kill(pid, (int)tracer_stop_requested);
			continue;
		}
		if (p[0].revents & POLLIN)
			on_notice(lfd, out, &n);
		else if (p[0].revents & (POLLHUP | POLLERR))
			hup = true;
		if (!reaped && (p[1].revents & POLLIN) && waitpid(pid, &st, 0) == pid)
			reaped = true;
	}
	tracer_signals_restore();
	close(lfd);
	close(pidfd);
	munmap(h, sizeof *h);
	char *cmd = tracer_cmdline(argv);
	tracer_meta_run(out, cmd, "seccomp-notify", true);
	tracer_meta_exit(out, st, false);
	uint64_t ms = (uint64_t)((tracer_now() - start) * 1000);
	trace_meta(out, "duration_ms", NULL, ms ? ms : 1);
	free(cmd);
	*status = st;
	(void)n;
	return 0;
}
