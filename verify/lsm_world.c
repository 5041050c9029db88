/* lsm_world.c - the throwaway world of an LSM probe child (lsm_world.h).
 *
 * The child gets private namespaces and pivots into an overlay of the real
 * root whose upper layer is a tmpfs of its own: it can create /etc/x or
 * /var/run/secrets/... for a probe without touching the real files, and the
 * kernel still names them by the paths the policy wrote (AppArmor and
 * bpf_d_path resolve against the mount namespace's root).
 */
#include "lsm_world.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define OVERLAYFS_MAGIC 0x794c7630

static bool in_userns;      /* world_enter made a user namespace */
#define PEER_UID 1234

static int fail(op_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(op_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
	r->skip = true;
	return -1;
}

static int lo_up(op_result *r)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	strcpy(ifr.ifr_name, "lo");
	int rc = s < 0 ? -1 : ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	int e = errno;
	if (s >= 0)
		close(s);
	return rc < 0 ? fail(r, "cannot bring lo up: %s", strerror(e)) : 0;
}

/* Not root: a user namespace of its own, whose root is the caller, owns
 * the other namespaces (an LSM that needs no privilege, Landlock, is
 * probed by an ordinary user). Files of other owners keep their access
 * modes: a probe of one the user cannot read is refused unconfined too,
 * and skipped. */
static int own_userns(op_result *r)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (uid == 0)
		return 0;
	if (unshare(CLONE_NEWUSER) < 0)
		return fail(r, "unshare(CLONE_NEWUSER): %s", strerror(errno));
	in_userns = true;
	static const char *const files[] = { "/proc/self/uid_map", "/proc/self/setgroups",
					     "/proc/self/gid_map" };
	char text[3][64];
	snprintf(text[0], sizeof text[0], "0 %u 1\n", (unsigned)uid);
	snprintf(text[1], sizeof text[1], "deny\n");
	snprintf(text[2], sizeof text[2], "0 %u 1\n", (unsigned)gid);
	for (int i = 0; i < 3; i++) {
		int fd = open(files[i], O_WRONLY | O_CLOEXEC);
		ssize_t n = (ssize_t)strlen(text[i]);
		bool ok = fd >= 0 && write(fd, text[i], (size_t)n) == n;
		if (fd >= 0)
			close(fd);
		if (!ok)
			return fail(r, "writing %s: %s", files[i], strerror(errno));
	}
	return 0;
}

static int pivot_in(op_result *r)
{
	if (mkdir("/tmp/r/.polc-old", 0700) < 0 ||
	    syscall(SYS_pivot_root, "/tmp/r", "/tmp/r/.polc-old") < 0 || chdir("/") < 0)
		return fail(r, "pivot_root into the probe root: %s", strerror(errno));
	if (umount2("/.polc-old", MNT_DETACH) < 0)
		return fail(r, "detach the old root: %s", strerror(errno));
	rmdir("/.polc-old");
	return lo_up(r);
}

/* In a user namespace the kernel will not overlay "/" (its submounts are
 * locked to it): the root is then a tmpfs holding an overlay of each
 * top-level directory (so each takes new entries), a recursive bind of
 * those with submounts (/proc, /sys, /dev, ...), and the top-level
 * symlinks; the kernel names every path as before. */
static int per_dir_root(op_result *r)
{
	if (mount("polc-probe", "/tmp/r", "tmpfs", 0, "mode=0755") < 0)
		return fail(r, "tmpfs root: %s", strerror(errno));
	DIR *d = opendir("/");
	if (!d)
		return fail(r, "opendir /: %s", strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d))) {
		char from[300], to[300], up[300], work[300], opts[1000], link[4096];
		struct stat st;
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		snprintf(from, sizeof from, "/%s", e->d_name);
		snprintf(to, sizeof to, "/tmp/r/%s", e->d_name);
		if (lstat(from, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			ssize_t n = readlink(from, link, sizeof link - 1);
			if (n > 0 && (link[n] = 0, symlink(link, to) < 0))
				rc = fail(r, "symlink %s: %s", to, strerror(errno));
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		if (mkdir(to, st.st_mode & 07777) < 0)
			rc = fail(r, "mkdir %s: %s", to, strerror(errno));
		if (rc || !strcmp(e->d_name, "tmp"))
			continue;
		snprintf(up, sizeof up, "/tmp/u/%s", e->d_name);
		snprintf(work, sizeof work, "/tmp/w/%s", e->d_name);
		snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s", from, up, work);
		if ((mkdir(up, 0755) < 0 || mkdir(work, 0755) < 0 ||
		     mount("polc-probe", to, "overlay", 0, opts) < 0) &&
		    mount(from, to, NULL, MS_BIND | MS_REC, NULL) < 0)
			rc = fail(r, "bind %s: %s", from, strerror(errno));
	}
	closedir(d);
	return rc;
}

int world_enter(op_result *r)
{
	if (own_userns(r) < 0)
		return -1;
	if (unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWIPC) < 0)
		return fail(r, "unshare: %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail(r, "making mounts private: %s", strerror(errno));
	/* The overlay's upper and work directories live in a tmpfs over /tmp
	 * that only this child sees. */
	if (mount("polc-probe", "/tmp", "tmpfs", 0, "mode=0700") < 0 ||
	    mkdir("/tmp/u", 0755) || mkdir("/tmp/w", 0755) || mkdir("/tmp/r", 0755))
		return fail(r, "tmpfs for the probe root: %s", strerror(errno));
	if (mount("polc-probe", "/tmp/r", "overlay", 0,
		  "lowerdir=/,upperdir=/tmp/u,workdir=/tmp/w") < 0) {
		if (errno != EINVAL || !in_userns)
			return fail(r, "overlay of / : %s", strerror(errno));
		return per_dir_root(r) < 0 ? -1 : pivot_in(r);
	}
	static const char *const keep[] = { "/proc", "/sys", "/dev" };
	for (size_t i = 0; i < sizeof keep / sizeof *keep; i++) {
		char to[64];
		snprintf(to, sizeof to, "/tmp/r%s", keep[i]);
		if (mount(keep[i], to, NULL, MS_BIND | MS_REC, NULL) < 0)
			return fail(r, "bind %s: %s", keep[i], strerror(errno));
	}
	return pivot_in(r);
}

/* ---- paths ---- */

/* Directories that got a fresh tmpfs in this child: they take entries. */
static char *fresh[32];
static int nfresh;

static bool takes_entries(const char *dir)
{
	for (int i = 0; i < nfresh; i++)
		if (!strcmp(fresh[i], dir))
			return true;
	/* in a user namespace, a directory of an unmapped owner refuses entries */
	struct statfs sf;
	return statfs(dir, &sf) == 0 && (unsigned long)sf.f_type == OVERLAYFS_MAGIC &&
	       (!in_userns || access(dir, W_OK) == 0);
}

/* Make dir able to take new entries: the overlay can; anything else
 * (procfs, sysfs, cgroupfs, devtmpfs, a read-only mount) gets a tmpfs over
 * it, which hides what was there from this child only. */
static int writable_dir(const char *dir, op_result *r)
{
	if (takes_entries(dir))
		return 0;
	if (nfresh == (int)(sizeof fresh / sizeof *fresh))
		return fail(r, "too many tmpfs mounts");
	if (mount("polc-probe", dir, "tmpfs", 0, "mode=0755") < 0)
		return fail(r, "tmpfs over %s: %s", dir, strerror(errno));
	fresh[nfresh++] = strdup(dir);
	return 0;
}

/* A static x86-64 program of 129 bytes: exit(0). No interpreter, no
 * libraries: an allowed exec needs no permission but the exec itself. */
static int write_exit0(int fd)
{
	static const unsigned char code[] = {
		0x31, 0xff,                         /* xor edi, edi */
		0xb8, 0x3c, 0x00, 0x00, 0x00,       /* mov eax, 60 (exit) */
		0x0f, 0x05,                         /* syscall */
	};
	struct __attribute__((packed)) {
		Elf64_Ehdr e;
		Elf64_Phdr p;
		unsigned char code[sizeof code];
	} img;
	memset(&img, 0, sizeof img);
	const Elf64_Addr base = 0x400000;
	memcpy(img.e.e_ident, ELFMAG, SELFMAG);
	img.e.e_ident[EI_CLASS] = ELFCLASS64;
	img.e.e_ident[EI_DATA] = ELFDATA2LSB;
	img.e.e_ident[EI_VERSION] = EV_CURRENT;
	img.e.e_type = ET_EXEC;
	img.e.e_machine = EM_X86_64;
	img.e.e_version = EV_CURRENT;
	img.e.e_entry = base + offsetof(__typeof__(img), code);
	img.e.e_phoff = sizeof img.e;
	img.e.e_ehsize = sizeof img.e;
	img.e.e_phentsize = sizeof img.p;
	img.e.e_phnum = 1;
	img.p.p_type = PT_LOAD;
	img.p.p_flags = PF_R | PF_X;
	img.p.p_vaddr = img.p.p_paddr = base;
	img.p.p_filesz = img.p.p_memsz = sizeof img;
	img.p.p_align = 0x1000;
	memcpy(img.code, code, sizeof code);
	return write(fd, &img, sizeof img) == (ssize_t)sizeof img ? 0 : -1;
}

static int make_file(const char *path, bool exec, op_result *r)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, exec ? 0755 : 0644);
	if (fd < 0)
		return fail(r, "create %s: %s", path, strerror(errno));
	int rc = exec ? write_exit0(fd) : (write(fd, "polc-probe\n", 11) == 11 ? 0 : -1);
	if (rc == 0 && exec)
		rc = fchmod(fd, 0755);
	close(fd);
	return rc < 0 ? fail(r, "write %s: %s", path, strerror(errno)) : 0;
}

/* Replace whatever is at path (a symlink, a device, ...) so that it can be
 * created anew: its directory must take entries first. */
static int clear_entry(const char *dir, const char *path, op_result *r)
{
	if (writable_dir(dir, r) < 0)
		return -1;
	struct stat st;
	if (lstat(path, &st) < 0)
		return 0;                   /* the tmpfs hid it */
	if ((S_ISDIR(st.st_mode) ? rmdir(path) : unlink(path)) < 0)
		return fail(r, "remove %s: %s", path, strerror(errno));
	return 0;
}

static int make_last(const char *dir, const char *path, bool exec, bool wantdir,
		     op_result *r)
{
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (wantdir && S_ISDIR(st.st_mode))
			return 0;
		if (!wantdir && !exec && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
			r->isdir = S_ISDIR(st.st_mode);
			return 0;            /* an existing file or directory serves */
		}
		if (exec && S_ISREG(st.st_mode) && takes_entries(dir))
			return make_file(path, true, r);
		if (clear_entry(dir, path, r) < 0)
			return -1;
	} else if (writable_dir(dir, r) < 0) {
		return -1;
	}
	if (wantdir) {
		if (mkdir(path, 0755) < 0)
			return fail(r, "mkdir %s: %s", path, strerror(errno));
		r->isdir = true;
		return 0;
	}
	return make_file(path, exec, r);
}

int world_make_path(const char *path, bool exec, bool dir, op_result *r)
{
	size_t len = strlen(path);
	if (path[0] != '/' || len >= 4096)
		return fail(r, "not an absolute path: %s", path);
	char cur[4096] = "/", next[4096];
	const char *p = path + 1;
	while (*p) {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool last = !end || !end[1];
		if (n == 0) {                /* "//" or a trailing "/" */
			p += 1;
			continue;
		}
		snprintf(next, sizeof next, "%s%s%.*s", cur, strcmp(cur, "/") ? "/" : "", (int)n, p);
		if (last)
			return make_last(cur, next, exec, dir || (end && !end[1]), r);
		struct stat st;
		if (lstat(next, &st) < 0 || !S_ISDIR(st.st_mode)) {
			/* missing, a symlink or not a directory: a real directory */
			if (clear_entry(cur, next, r) < 0)
				return -1;
			if (mkdir(next, 0755) < 0)
				return fail(r, "mkdir %s: %s", next, strerror(errno));
		}
		memcpy(cur, next, strlen(next) + 1);
		p += n + (end ? 1 : 0);
	}
	r->isdir = true;                     /* "/" itself */
	return 0;
}

/* ---- network ---- */

/* An IPv6 address becomes local when the kernel's DAD work inserts its
 * local route, later even with IFA_F_NODAD; on a busy host a probe that came
 * first saw ENETUNREACH instead of the verdict. A UDP connect is no test:
 * the /128 prefix route on lo, there at once, satisfies it while a TCP SYN
 * to the address still finds it not local. So wait until a TCP connect to
 * an unused port is answered by this stack: refused (or accepted). */
static int tcp_answers(const struct sockaddr_in6 *sa)
{
	int s = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct timeval tv = { .tv_usec = 200000 };   /* bounds connect */
	setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	int rc = connect(s, (const struct sockaddr *)sa, sizeof *sa);
	int err = errno;
	close(s);
	return rc == 0 || err == ECONNREFUSED;
}

static int wait_routable(const unsigned char *addr, op_result *r)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(9) };
	memcpy(&sa.sin6_addr, addr, 16);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (t = t0; t.tv_sec - t0.tv_sec < 5; clock_gettime(CLOCK_MONOTONIC, &t)) {
		int ok = tcp_answers(&sa);
		if (ok < 0)
			return fail(r, "socket: %s", strerror(errno));
		if (ok)
			return 0;
		usleep(1000);
	}
	return fail(r, "address on lo: not local after 5 s");
}

int world_add_addr(int family, const unsigned char *addr, op_result *r)
{
	int s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		return fail(r, "netlink: %s", strerror(errno));
	int alen = family == AF_INET6 ? 16 : 4;
	struct {
		struct nlmsghdr nh;
		struct ifaddrmsg ifa;
		struct rtattr rta1;
		unsigned char a1[16];
		struct rtattr rta2;
		unsigned char a2[16];
	} req;
	memset(&req, 0, sizeof req);
	req.ifa.ifa_family = (unsigned char)family;
	req.ifa.ifa_prefixlen = (unsigned char)(alen * 8);
	req.ifa.ifa_flags = IFA_F_NODAD;
	req.ifa.ifa_index = 1;                  /* lo */
	req.rta1.rta_type = IFA_LOCAL;
	req.rta1.rta_len = RTA_LENGTH(16);
	memcpy(req.a1, addr, alen);
	req.rta2.rta_type = IFA_ADDRESS;
	req.rta2.rta_len = RTA_LENGTH(16);
	memcpy(req.a2, addr, alen);
	req.nh.nlmsg_len = sizeof req;
	req.nh.nlmsg_type = RTM_NEWADDR;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_REPLACE;
	int err = 0;
	if (send(s, &req, sizeof req, 0) < 0) {
		err = errno;
	} else {
		char ack[512];
		ssize_t n = recv(s, ack, sizeof ack, 0);
		struct nlmsghdr *h = (struct nlmsghdr *)ack;
		if (n < (ssize_t)sizeof *h)
			err = n < 0 ? errno : EIO;
		else if (h->nlmsg_type == NLMSG_ERROR)
			err = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
	}
	close(s);
	/* the address may be one lo has already (127.0.0.1, ::1) */
	if (err && err != EEXIST)
		return fail(r, "address on lo: %s", strerror(err));
	return family == AF_INET6 ? wait_routable(addr, r) : 0;
}

/* ---- peers ---- */

pid_t world_peer(bool other_uid)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (other_uid && (setgroups(0, NULL) || setresgid(PEER_UID, PEER_UID, PEER_UID) ||
			  setresuid(PEER_UID, PEER_UID, PEER_UID)))
		_exit(1);
	/* after the uid change, which clears the death signal */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (;;)
		pause();
}
