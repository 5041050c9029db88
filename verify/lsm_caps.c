/* lsm_caps.c - one operation per capability that needs exactly that
 * capability (lsm_world.h).
 *
 * capable() answers yes or no, so a denial shows as each operation's own
 * error, never as the policy's errno. To isolate one capability the probe
 * child drops every other one from its effective set just before the
 * operation: the capability LSM then refuses the others without asking
 * AppArmor or BPF, and the only LSM question left is the probed one. The
 * runner calibrates each trigger on the running kernel (with and without
 * the capability, unconfined) and uses it only if the two differ.
 * Every operation is confined to the probe child's own namespaces and
 * files, or changes nothing (the same value written back).
 */
#include "lsm_world.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/bpf.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/io.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/reboot.h>
#include <time.h>
#include <unistd.h>

#define OTHER 1234          /* a uid/gid the probe child is not */
#define DIR_ "/polc-cap"
#define FILE_ DIR_ "/f"

struct cap_trigger {
	int cap;
	int (*setup)(op_result *r);
	int (*op)(void);            /* 0, or -1 with errno */
};

/* State a setup leaves for its operation (one trigger per child). */
static int st_fd = -1, st_fd2 = -1, st_shm = -1;
static pid_t st_peer = -1;
static void *st_page;
static struct rlimit st_rlim;
static char st_buf[64];

static int setup_fail(op_result *r, const char *what)
{
	snprintf(r->why, sizeof r->why, "%s: %s", what, strerror(errno));
	r->skip = true;
	return -1;
}

/* A file in a fresh tmpfs, owned by uid:gid with mode. */
static int file_as(uid_t uid, gid_t gid, mode_t mode, op_result *r)
{
	if (world_make_path(FILE_, false, false, r) < 0)
		return -1;
	if (chown(FILE_, uid, gid) < 0 || chmod(FILE_, mode) < 0)
		return setup_fail(r, "prepare " FILE_);
	return 0;
}

static int s_root_file(op_result *r) { return file_as(0, 0, 0644, r); }
static int s_other_000(op_result *r) { return file_as(OTHER, OTHER, 0, r); }
static int s_other_644(op_result *r) { return file_as(OTHER, OTHER, 0644, r); }
static int s_group_other(op_result *r) { return file_as(0, OTHER, 0644, r); }

static int s_open_root_file(op_result *r)
{
	if (file_as(0, 0, 0644, r) < 0)
		return -1;
	st_fd = open(FILE_, O_RDONLY | O_CLOEXEC);
	return st_fd < 0 ? setup_fail(r, "open " FILE_) : 0;
}

static int s_open_other_file(op_result *r)
{
	if (file_as(OTHER, OTHER, 0644, r) < 0)
		return -1;
	st_fd = open(FILE_, O_RDONLY | O_CLOEXEC);
	return st_fd < 0 ? setup_fail(r, "open " FILE_) : 0;
}

static int s_peer_other(op_result *r)
{
	st_peer = world_peer(true);
	usleep(20000);                       /* let it change its uid */
	return st_peer < 0 ? setup_fail(r, "fork a peer") : 0;
}

static int s_tcp(op_result *r)
{
	st_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return st_fd < 0 ? setup_fail(r, "socket") : 0;
}

static int s_udp(op_result *r)
{
	st_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	return st_fd < 0 ? setup_fail(r, "socket") : 0;
}

static int s_memlock0(op_result *r)
{
	struct rlimit z = { 0, 0 };
	st_page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st_page == MAP_FAILED || setrlimit(RLIMIT_MEMLOCK, &z) < 0)
		return setup_fail(r, "mmap/RLIMIT_MEMLOCK");
	return 0;
}

/* A segment created by another uid, mode 0: only CAP_IPC_OWNER attaches. */
static int s_shm_other(op_result *r)
{
	int p[2];
	if (pipe(p) < 0)
		return setup_fail(r, "pipe");
	pid_t pid = fork();
	if (pid == 0) {
		int id = -1;
		if (setresgid(OTHER, OTHER, OTHER) == 0 && setresuid(OTHER, OTHER, OTHER) == 0)
			id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
		if (write(p[1], &id, sizeof id) != sizeof id)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	int id = -1;
	if (pid < 0 || read(p[0], &id, sizeof id) != sizeof id || id < 0) {
		close(p[0]);
		return setup_fail(r, "shmget as another uid");
	}
	close(p[0]);
	waitpid(pid, NULL, 0);
	st_shm = id;
	return 0;
}

static int s_newpid(op_result *r)
{
	return unshare(CLONE_NEWPID) < 0 ? setup_fail(r, "unshare(CLONE_NEWPID)") : 0;
}

static int s_nofile(op_result *r)
{
	if (getrlimit(RLIMIT_NOFILE, &st_rlim) < 0)
		return setup_fail(r, "getrlimit");
	st_rlim.rlim_max = st_rlim.rlim_cur;          /* lowering needs nothing */
	return setrlimit(RLIMIT_NOFILE, &st_rlim) < 0 ? setup_fail(r, "setrlimit") : 0;
}

static int s_setsid(op_result *r)
{
	(void)r;
	setsid();                           /* no controlling tty to hang up */
	return 0;
}

static int s_audit(op_result *r)
{
	st_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	return st_fd < 0 ? setup_fail(r, "audit netlink socket") : 0;
}

static int s_epoll(op_result *r)
{
	st_fd = epoll_create1(EPOLL_CLOEXEC);
	st_fd2 = eventfd(0, EFD_CLOEXEC);
	return st_fd < 0 || st_fd2 < 0 ? setup_fail(r, "epoll/eventfd") : 0;
}

static int s_ns_last_pid(op_result *r)
{
	st_fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
	ssize_t n = st_fd < 0 ? -1 : read(st_fd, st_buf, sizeof st_buf - 1);
	if (n <= 0)
		return setup_fail(r, "read ns_last_pid");
	st_buf[n] = 0;
	return 0;
}

/* ---- operations ---- */

static int o_chown(void) { return chown(FILE_, OTHER, OTHER); }
static int o_open_w(void) { int fd = open(FILE_, O_WRONLY | O_CLOEXEC); return fd < 0 ? -1 : close(fd); }
static int o_open_r(void) { int fd = open(FILE_, O_RDONLY | O_CLOEXEC); return fd < 0 ? -1 : close(fd); }
static int o_chmod(void) { return chmod(FILE_, 0600); }

/* Without CAP_FSETID the setgid bit is dropped silently: report that as
 * the failure it is. */
static int o_fsetid(void)
{
	struct stat st;
	if (chmod(FILE_, 02755) < 0 || stat(FILE_, &st) < 0)
		return -1;
	if (!(st.st_mode & S_ISGID)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static int o_kill(void) { return kill(st_peer, 0); }
static int o_setgid(void) { return setresgid(OTHER, OTHER, OTHER); }
static int o_setuid(void) { return setresuid(OTHER, OTHER, OTHER); }
static int o_setpcap(void) { return prctl(PR_CAPBSET_DROP, CAP_WAKE_ALARM, 0, 0, 0); }

static int o_immutable(void)
{
	int flags = FS_APPEND_FL;
	return ioctl(st_fd, FS_IOC_SETFLAGS, &flags);
}

static int o_bind_80(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(81),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	return bind(st_fd, (struct sockaddr *)&a, sizeof a);
}

static int o_net_admin(void)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(st_fd, SIOCGIFMTU, &ifr) < 0)
		return -1;
	return ioctl(st_fd, SIOCSIFMTU, &ifr);       /* the same MTU back */
}

static int o_raw(void)
{
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	return fd < 0 ? -1 : close(fd);
}

static int o_mlock(void) { return mlock(st_page, 4096); }

static int o_shmat(void)
{
	void *p = shmat(st_shm, NULL, SHM_RDONLY);
	return p == (void *)-1 ? -1 : shmdt(p);
}

static int o_module(void) { return (int)syscall(SYS_init_module, NULL, 0, ""); }
static int o_ioperm(void) { return ioperm(0x80, 1, 1); }
static int o_chroot(void) { return chroot("/"); }
static int o_ptrace(void) { return (int)ptrace(PTRACE_ATTACH, st_peer, 0, 0); }
static int o_acct(void) { return acct(NULL); }
static int o_hostname(void) { return sethostname("polc-probe", 10); }

/* In a new PID namespace, reboot() asks for CAP_SYS_BOOT and then only
 * signals that namespace's init; CAD_ON there is EINVAL. */
static int o_reboot(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		long rc = syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, LINUX_REBOOT_MAGIC2,
				  LINUX_REBOOT_CMD_CAD_ON, NULL);
		_exit(rc == 0 ? 0 : errno & 0xff);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	errno = WEXITSTATUS(st);
	return errno ? -1 : 0;
}

static int o_nice(void) { return setpriority(PRIO_PROCESS, 0, -1); }

static int o_rlimit(void)
{
	struct rlimit up = st_rlim;
	up.rlim_max = st_rlim.rlim_max + 1;
	return setrlimit(RLIMIT_NOFILE, &up);
}

/* The same tick written back: asks for CAP_SYS_TIME, changes nothing. */
static int o_adjtime(void)
{
	struct timex t;
	memset(&t, 0, sizeof t);
	if (adjtimex(&t) < 0)
		return -1;
	long tick = t.tick;
	memset(&t, 0, sizeof t);
	t.modes = ADJ_TICK;
	t.tick = tick;
	return adjtimex(&t) < 0 ? -1 : 0;
}

static int o_vhangup(void) { return vhangup(); }
static int o_mknod(void) { return mknod(DIR_ "/null", S_IFCHR | 0600, makedev(1, 3)); }
static int o_lease(void) { return fcntl(st_fd, F_SETLEASE, F_RDLCK); }

/* One audit netlink request with an ACK: the kernel's answer is the errno. */
static int audit_request(int type, const void *data, size_t len)
{
	struct { struct nlmsghdr h; char d[256]; } m;
	memset(&m, 0, sizeof m);
	m.h.nlmsg_len = (unsigned)NLMSG_LENGTH(len);
	m.h.nlmsg_type = (unsigned short)type;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	memcpy(m.d, data, len);
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	if (sendto(st_fd, &m, m.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof k) < 0)
		return -1;
	for (int i = 0; i < 4; i++) {
		char buf[1024];
		ssize_t n = recv(st_fd, buf, sizeof buf, 0);
		if (n < (ssize_t)sizeof(struct nlmsghdr))
			return -1;
		struct nlmsghdr *h = (struct nlmsghdr *)buf;
		if (h->nlmsg_type == NLMSG_ERROR) {
			int e = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			errno = e;
			return e ? -1 : 0;
		}
	}
	return 0;
}

static int o_audit_write(void) { return audit_request(AUDIT_USER, "polc-probe", 11); }
static int o_audit_control(void) { return audit_request(AUDIT_GET, "", 0); }

static int o_audit_read(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0)
		return -1;
	struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG };
	int rc = bind(fd, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

static int o_setfcap(void)
{
	struct vfs_cap_data v;
	memset(&v, 0, sizeof v);
	v.magic_etc = VFS_CAP_REVISION_2;
	v.data[0].permitted = 1u << CAP_NET_RAW;
	return setxattr(FILE_, "security.capability", &v, XATTR_CAPS_SZ_2, 0);
}

static int o_syslog(void) { return klogctl(9 /* SYSLOG_ACTION_SIZE_UNREAD */, NULL, 0) < 0 ? -1 : 0; }

static int o_wake_alarm(void)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_NONE;
	timer_t t;
	if (timer_create(CLOCK_REALTIME_ALARM, &ev, &t) < 0)
		return -1;
	return timer_delete(t);
}

/* Without CAP_BLOCK_SUSPEND EPOLLWAKEUP is dropped silently; fdinfo shows
 * the event mask the kernel kept. */
static int o_epollwakeup(void)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLWAKEUP };
	if (epoll_ctl(st_fd, EPOLL_CTL_ADD, st_fd2, &ev) < 0)
		return -1;
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", st_fd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *e = strstr(buf, "events:");
	unsigned long mask = e ? strtoul(e + 7, NULL, 16) : 0;
	if (!(mask & EPOLLWAKEUP)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static int o_perfmon(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.disabled = 1;                      /* kernel counting: needs CAP_PERFMON */
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	return fd < 0 ? -1 : close(fd);
}

static int o_bpf(void)
{
	union bpf_attr a;
	memset(&a, 0, sizeof a);
	a.map_type = BPF_MAP_TYPE_ARRAY;
	a.key_size = 4;
	a.value_size = 4;
	a.max_entries = 1;
	int fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
	return fd < 0 ? -1 : close(fd);
}

/* The value read back in: asks for CAP_CHECKPOINT_RESTORE, changes nothing. */
static int o_ns_last_pid(void)
{
	size_t n = strlen(st_buf);
	return pwrite(st_fd, st_buf, n, 0) == (ssize_t)n ? 0 : -1;
}

static int s_tmpfs_dir(op_result *r)
{
	return world_make_path(DIR_ "/x", false, false, r);
}

static const cap_trigger triggers[] = {
	{ CAP_CHOWN, s_root_file, o_chown },
	{ CAP_DAC_OVERRIDE, s_other_000, o_open_w },
	{ CAP_DAC_READ_SEARCH, s_other_000, o_open_r },
	{ CAP_FOWNER, s_other_644, o_chmod },
	{ CAP_FSETID, s_group_other, o_fsetid },
	{ CAP_KILL, s_peer_other, o_kill },
	{ CAP_SETGID, NULL, o_setgid },
	{ CAP_SETUID, NULL, o_setuid },
	{ CAP_SETPCAP, NULL, o_setpcap },
	{ CAP_LINUX_IMMUTABLE, s_open_root_file, o_immutable },
	{ CAP_NET_BIND_SERVICE, s_tcp, o_bind_80 },
	{ CAP_NET_ADMIN, s_udp, o_net_admin },
	{ CAP_NET_RAW, NULL, o_raw },
	{ CAP_IPC_LOCK, s_memlock0, o_mlock },
	{ CAP_IPC_OWNER, s_shm_other, o_shmat },
	{ CAP_SYS_MODULE, NULL, o_module },
	{ CAP_SYS_RAWIO, NULL, o_ioperm },
	{ CAP_SYS_CHROOT, NULL, o_chroot },
	{ CAP_SYS_PTRACE, s_peer_other, o_ptrace },
	{ CAP_SYS_PACCT, NULL, o_acct },
	{ CAP_SYS_ADMIN, NULL, o_hostname },
	{ CAP_SYS_BOOT, s_newpid, o_reboot },
	{ CAP_SYS_NICE, NULL, o_nice },
	{ CAP_SYS_RESOURCE, s_nofile, o_rlimit },
	{ CAP_SYS_TIME, NULL, o_adjtime },
	{ CAP_SYS_TTY_CONFIG, s_setsid, o_vhangup },
	{ CAP_MKNOD, s_tmpfs_dir, o_mknod },
	{ CAP_LEASE, s_open_other_file, o_lease },
	{ CAP_AUDIT_WRITE, s_audit, o_audit_write },
	{ CAP_AUDIT_CONTROL, s_audit, o_audit_control },
	{ CAP_SETFCAP, s_root_file, o_setfcap },
	{ CAP_SYSLOG, NULL, o_syslog },
	{ CAP_WAKE_ALARM, NULL, o_wake_alarm },
	{ CAP_BLOCK_SUSPEND, s_epoll, o_epollwakeup },
	{ CAP_AUDIT_READ, NULL, o_audit_read },
	{ CAP_PERFMON, NULL, o_perfmon },
	{ CAP_BPF, NULL, o_bpf },
	{ CAP_CHECKPOINT_RESTORE, s_ns_last_pid, o_ns_last_pid },
};

const cap_trigger *cap_trigger_find(int cap)
{
	for (size_t i = 0; i < sizeof triggers / sizeof *triggers; i++)
		if (triggers[i].cap == cap)
			return &triggers[i];
	return NULL;
}

const char *cap_no_trigger_why(int cap)
{
	switch (cap) {
	case CAP_NET_BROADCAST: return "the kernel never checks CAP_NET_BROADCAST";
	case CAP_MAC_OVERRIDE: return "only Smack checks CAP_MAC_OVERRIDE";
	case CAP_MAC_ADMIN: return "CAP_MAC_ADMIN is checked by loading MAC policy: no harmless trigger";
	default: return "no trigger for this capability";
	}
}

int cap_trigger_setup(const cap_trigger *t, op_result *r)
{
	return t->setup ? t->setup(r) : 0;
}

int caps_keep_only(int cap, bool keep)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	d[0].effective = d[1].effective = 0;
	if (keep)
		d[cap / 32].effective = (1u << (cap % 32)) & d[cap / 32].permitted;
	return (int)syscall(SYS_capset, &h, d);
}

void cap_trigger_op(const cap_trigger *t, op_result *r)
{
	errno = 0;
	r->ok = t->op() == 0;
	r->err = r->ok ? 0 : errno;
}
