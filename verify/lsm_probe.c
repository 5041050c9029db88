/* lsm_probe.c - ask the running kernel how an LSM (AppArmor profile or BPF
 * LSM cgroup) decides one event, by doing it (verify.h).
 *
 * Each probe runs twice, each time in a fresh child that first builds its
 * world (lsm_world.c: private namespaces, an overlay root, the probe's path
 * as a real file, its address on lo, a peer process): once unconfined, the
 * baseline, and once confined. Allowed means the confined run ended as the
 * baseline did (success, or the same harmless error such as ECONNREFUSED);
 * denied means it failed where the baseline did not, or with another
 * errno. A baseline refused with EPERM or EACCES proves nothing: skipped.
 * Capabilities are calibrated instead (lsm_caps.c): with and without the
 * one capability, unconfined, once per capability.
 * A write probe does every operation write covers (open for writing,
 * truncate, chmod, chown, unlink, create; a directory: chmod, chown), which
 * must all end alike; a link probe links a file beside the path to it.
 * The child reports through a pipe, which neither LSM mediates once open.
 * A route (verify.h) changes how the operation is reached, not the event:
 * prepare() makes the chroot or the detached clone unconfined, operate()
 * goes through it.
 */
#include "verify.h"
#include "lsm_world.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum run_mode { RUN_BASE, RUN_BASE_NOCAP, RUN_CONFINED };

#define MOUNT_SOURCE "/polc-probe-source"
#define LINK_SRC ".polc-link-source"

/* What the world left for the operation. */
typedef struct {
	int fd, fd2;
	pid_t peer;
	const cap_trigger *trig;
	struct sockaddr_storage sa;
	socklen_t salen;
	lsm_route route;
	bool own_socket;          /* the socket is made under confinement */
	int tree;                 /* ROUTE_TREE_CLONE: the detached directory */
	char base[256];           /* ROUTE_CHROOT / ROUTE_TREE_CLONE: the file's name */
} op_state;

static int skipf(op_result *r, const char *fmt, const char *arg)
{
	snprintf(r->why, sizeof r->why, fmt, arg);
	r->skip = true;
	return -1;
}

static void set_result(op_result *r, int rc)
{
	r->ok = rc >= 0;
	r->err = r->ok ? 0 : errno;
}

/* ---- network ---- */

static void sockaddr_of(const ir_event *ev, op_state *s)
{
	memset(&s->sa, 0, sizeof s->sa);
	if (ev->u.net.family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&s->sa;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(ev->u.net.port);
		if (ev->u.net.has_addr)
			memcpy(&a->sin6_addr, ev->u.net.addr, 16);
		else
			a->sin6_addr = in6addr_loopback;
		s->salen = sizeof *a;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&s->sa;
		a->sin_family = AF_INET;
		a->sin_port = htons(ev->u.net.port);
		if (ev->u.net.has_addr)
			memcpy(&a->sin_addr, ev->u.net.addr, 4);
		else
			a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		s->salen = sizeof *a;
	}
}

static const unsigned char *sa_addr(const op_state *s)
{
	return s->sa.ss_family == AF_INET6
		? (const unsigned char *)&((const struct sockaddr_in6 *)&s->sa)->sin6_addr
		: (const unsigned char *)&((const struct sockaddr_in *)&s->sa)->sin_addr;
}

static int new_socket(const ir_event *ev, op_result *r)
{
	int fd = socket(ev->u.net.family, ev->u.net.type | SOCK_CLOEXEC, ev->u.net.protocol);
	if (fd < 0)
		skipf(r, "cannot create the socket unconfined: %s", strerror(errno));
	return fd;
}

static int prepare_net(const ir_event *ev, op_state *s, op_result *r)
{
	int op = ev->u.net.op;
	if (op == IR_NET_CREATE)
		return 0;
	int fam = ev->u.net.family;
	if (fam != AF_INET && fam != AF_INET6)
		return skipf(r, "%s needs an inet address", "this network operation");
	sockaddr_of(ev, s);
	if (world_add_addr(fam, sa_addr(s), r) < 0)
		return -1;
	/* An MPTCP socket is the workload's own, made under confinement (of
	 * s->sa's family): a backend may refuse MPTCP sockets when made
	 * (landlock.h), which closes the route for what runs confined. */
	s->own_socket = ev->u.net.protocol == IPPROTO_MPTCP &&
			(op == IR_NET_BIND || op == IR_NET_CONNECT);
	if (s->route == ROUTE_MAPPED6) {
		ir_event e6 = *ev;
		e6.u.net.family = AF_INET6;
		struct sockaddr_in *a4 = (struct sockaddr_in *)&s->sa;
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = a4->sin_port };
		a6.sin6_addr.s6_addr[10] = a6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&a6.sin6_addr.s6_addr[12], &a4->sin_addr, 4);
		memcpy(&s->sa, &a6, sizeof a6);
		s->salen = sizeof a6;
		return s->own_socket ? 0 : (s->fd = new_socket(&e6, r)) < 0 ? -1 : 0;
	}
	if (s->own_socket)
		return 0;
	if ((s->fd = new_socket(ev, r)) < 0)
		return -1;
	int one = 1;
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (op == IR_NET_BIND || op == IR_NET_CONNECT)
		return 0;
	bool stream = ev->u.net.type == SOCK_STREAM;
	if (op == IR_NET_SEND && !stream)
		return 0;                    /* sendto an address */
	/* listen, accept, send on a stream: a bound socket; accept and send
	 * also a connection to it, made on loopback before confinement */
	if (bind(s->fd, (struct sockaddr *)&s->sa, s->salen) < 0)
		return skipf(r, "cannot bind unconfined: %s", strerror(errno));
	if (op == IR_NET_LISTEN)
		return 0;
	if (!stream)
		return skipf(r, "%s", "accept needs a stream socket");
	if (listen(s->fd, 4) < 0 || (s->fd2 = new_socket(ev, r)) < 0 ||
	    connect(s->fd2, (struct sockaddr *)&s->sa, s->salen) < 0)
		return skipf(r, "cannot connect on loopback unconfined: %s", strerror(errno));
	return 0;
}

static void op_net(const ir_event *ev, op_state *s, op_result *r)
{
	int rc;
	switch (ev->u.net.op) {
	case IR_NET_CREATE:
		rc = socket(ev->u.net.family, ev->u.net.type | SOCK_CLOEXEC, ev->u.net.protocol);
		break;
	case IR_NET_CONNECT:
	case IR_NET_BIND:
		if (s->own_socket &&
		    (s->fd = socket(s->sa.ss_family, ev->u.net.type | SOCK_CLOEXEC,
				    ev->u.net.protocol)) < 0) {
			rc = -1;
			break;
		}
		if (ev->u.net.op == IR_NET_BIND)
			rc = bind(s->fd, (struct sockaddr *)&s->sa, s->salen);
		else if (s->route == ROUTE_SENDTO)   /* TCP Fast Open, or a datagram's peer */
			rc = (int)sendto(s->fd, "x", 1, MSG_NOSIGNAL |
					 (ev->u.net.type == SOCK_STREAM ? MSG_FASTOPEN : 0),
					 (struct sockaddr *)&s->sa, s->salen);
		else
			rc = connect(s->fd, (struct sockaddr *)&s->sa, s->salen);
		break;
	case IR_NET_LISTEN: rc = listen(s->fd, 4); break;
	case IR_NET_ACCEPT: rc = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC); break;
	case IR_NET_SEND:
		rc = ev->u.net.type == SOCK_STREAM
			? (int)send(s->fd2, "x", 1, MSG_NOSIGNAL)
			: (int)sendto(s->fd, "x", 1, 0, (struct sockaddr *)&s->sa, s->salen);
		break;
	default:
		errno = EINVAL;
		rc = -1;
	}
	set_result(r, rc);
}

/* ---- files ---- */

/* exec in a grandchild, which inherits the confinement; a CLOEXEC pipe
 * tells whether execve() itself failed. */
static int do_exec(const char *path)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = { (char *)path, NULL }, *envp[] = { NULL };
		execve(path, argv, envp);
		int e = errno;
		if (write(p[1], &e, sizeof e) != sizeof e)
			_exit(126);
		_exit(127);
	}
	close(p[1]);
	int e = 0;
	ssize_t n = pid < 0 ? -1 : read(p[0], &e, sizeof e);
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (n == sizeof e) {
		errno = e;
		return -1;
	}
	return pid < 0 ? -1 : 0;
}

/* The file's directory, made the root (chroot) or cloned detached, and its
 * name there; unconfined, before the confinement is entered. */
static int prepare_route(const char *path, op_state *s, op_result *r)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1] || strlen(slash + 1) >= sizeof s->base)
		return skipf(r, "%s", "this route needs a file below a directory");
	char dir[4200];
	snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
	snprintf(s->base, sizeof s->base, "%s", slash + 1);
	if (s->route == ROUTE_CHROOT) {
		if (chroot(dir) < 0 || chdir("/") < 0)
			return skipf(r, "chroot: %s", strerror(errno));
		return 0;
	}
	s->tree = (int)syscall(SYS_open_tree, AT_FDCWD, dir, 1 /* OPEN_TREE_CLONE */ | O_CLOEXEC);
	return s->tree < 0 ? skipf(r, "open_tree(OPEN_TREE_CLONE): %s", strerror(errno)) : 0;
}

static int prepare_file(const ir_event *ev, op_state *s, op_result *r)
{
	bool exec = ev->domain == IR_EXEC || ev->u.file.perm == IR_PERM_EXEC;
	const char *path = ev->domain == IR_EXEC ? ev->u.exec.path : ev->u.file.path;
	if (world_make_path(path, exec, false, r) < 0)
		return -1;
	/* link: the probed path is the new name of a hard link to a file
	 * beside it, on the same mount */
	if (ev->domain == IR_FILE && ev->u.file.perm == IR_PERM_LINK) {
		char src[4200];
		if (r->isdir)
			return skipf(r, "%s", "a link probe needs a file, not a directory");
		snprintf(src, sizeof src, "%s" LINK_SRC, path);
		if (rename(path, src) < 0)
			return skipf(r, "cannot move the file beside its name: %s", strerror(errno));
		return 0;
	}
	/* An overlay copies a lower file up when it is first opened for
	 * writing, reading the lower file as the task: the BPF LSM would judge
	 * that read, which the workload never asked for. Copy it up now. */
	if (ev->domain == IR_FILE && !r->isdir &&
	    (ev->u.file.perm == IR_PERM_WRITE || ev->u.file.perm == IR_PERM_APPEND)) {
		int fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	if (s->route == ROUTE_CHROOT || s->route == ROUTE_TREE_CLONE)
		return 0;            /* take_route(), once the objects exist */
	struct stat st;   /* a directory, too, for chmod (write) */
	if (ev->domain == IR_FILE && r->isdir && ev->u.file.perm == IR_PERM_WRITE &&
	    stat(path, &st) == 0 && st.st_uid == geteuid())
		(void)chmod(path, st.st_mode & 07777);
	return 0;
}

/* mmap and lock need an open file. AppArmor does not re-check a file that
 * an unconfined task opened (delegation), so it is opened confined; if the
 * policy refuses that open, the probe proves nothing. */
static int open_confined(const char *path, op_result *r)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(r->why, sizeof r->why, "the policy refuses the open it needs (%s)",
			 strerror(errno));
		r->inconclusive = true;
	}
	return fd;
}

/* write: every operation the write permission covers, on the probed path:
 * open for writing and truncate (a file), chmod and chown to what it has,
 * then unlink and create it again (a file). Those that need the path's
 * owner to be the caller (else a capability would be asked as well) run
 * only when it is. The baseline runs them all and keeps those that
 * succeed (r->ops: procfs refuses chmod and unlink to everyone); the
 * confined run does only those (`allow`), and they must all end alike: a
 * difference is an enforcer that mediates some of them only. */
enum { W_OPEN, W_TRUNCATE, W_CHMOD, W_CHOWN, W_UNLINK, W_CREATE };
static void op_write(const char *path, unsigned allow, bool base, op_result *r)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		set_result(r, -1);
		return;
	}
	bool dir = S_ISDIR(st.st_mode), owned = st.st_uid == geteuid();
	const char *name[6];
	int err[6], n = 0, fd;
	unsigned ok = 0;
#define STEP(bit, nm, call) do { int x_ = (call); name[n] = (nm); err[n] = x_ < 0 ? errno : 0; \
		if (!err[n++]) ok |= 1u << (bit); } while (0)
#define MAY(bit) (allow >> (bit) & 1)
	if (!dir && MAY(W_OPEN)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		STEP(W_OPEN, "open", fd);
		if (fd >= 0)
			close(fd);
	}
	if (!dir && MAY(W_TRUNCATE))
		STEP(W_TRUNCATE, "truncate", truncate(path, st.st_size));
	if (owned && MAY(W_CHMOD))
		STEP(W_CHMOD, "chmod", chmod(path, st.st_mode & 07777));
	if (owned && MAY(W_CHOWN))
		STEP(W_CHOWN, "chown", chown(path, st.st_uid, st.st_gid));
	if (owned && !dir && MAY(W_UNLINK)) {
		STEP(W_UNLINK, "unlink", unlink(path));
		if (!err[n - 1] && MAY(W_CREATE)) {
			fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
			STEP(W_CREATE, "create", fd);
			if (fd >= 0)
				close(fd);
		}
	}
#undef MAY
#undef STEP
	r->ops = ok;
	if (!n) {
		snprintf(r->why, sizeof r->why, "%s",
			 "a directory of another owner: no write operation to try");
		r->skip = true;
		return;
	}
	if (base) {                  /* allowed when any operation is */
		r->ok = ok != 0;
		r->err = ok ? 0 : err[0];
		return;
	}
	r->ok = true;
	r->err = 0;
	for (int i = 0; i < n; i++) {
		if (err[i] && r->ok) {
			r->ok = false;
			r->err = err[i];
		}
		if (err[i] != err[0]) {
			snprintf(r->why, sizeof r->why, "write operations disagree: %s %s, %s %s",
				 name[0], err[0] ? strerror(err[0]) : "ok",
				 name[i], err[i] ? strerror(err[i]) : "ok");
			r->skip = true;
			return;
		}
	}
}

/* The write operations the baseline could do (set before a confined run). */
static unsigned confined_ops = ~0u;

static void op_file(const ir_event *ev, op_state *s, enum run_mode mode, op_result *r)
{
	if (ev->domain == IR_EXEC) {
		set_result(r, do_exec(ev->u.exec.path));
		return;
	}
	const char *path = ev->u.file.path;
	int fd = -1, rc;
	switch (ev->u.file.perm) {
	case IR_PERM_READ:
		if (s->route == ROUTE_CHROOT) {
			char p[300];
			snprintf(p, sizeof p, "/%s", s->base);
			fd = open(p, O_RDONLY | O_CLOEXEC);
		} else if (s->route == ROUTE_TREE_CLONE) {
			fd = openat(s->tree, s->base, O_RDONLY | O_CLOEXEC);
		} else {
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		rc = fd;
		break;
	case IR_PERM_WRITE:
		op_write(path, mode == RUN_CONFINED ? confined_ops : ~0u, mode != RUN_CONFINED, r);
		return;
	case IR_PERM_LINK: {
		char src[4200];
		snprintf(src, sizeof src, "%s" LINK_SRC, path);
		rc = link(src, path);
		break;
	}
	case IR_PERM_APPEND: fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC); rc = fd; break;
	case IR_PERM_EXEC: rc = do_exec(path); break;
	case IR_PERM_MMAP: {
		if ((fd = open_confined(path, r)) < 0)
			return;
		void *m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		rc = m == MAP_FAILED ? -1 : 0;
		break;
	}
	case IR_PERM_LOCK:
		if ((fd = open_confined(path, r)) < 0)
			return;
		/* a shared lock: AppArmor asks w as well for a write lock */
		rc = flock(fd, LOCK_SH | LOCK_NB);
		break;
	default: errno = EINVAL; rc = -1; break;
	}
	set_result(r, rc);
	if (fd >= 0)
		close(fd);
}

/* ---- mount ---- */

static int prepare_mount(const ir_event *ev, op_result *r)
{
	const char *t = ev->u.mount.target ? ev->u.mount.target : "/mnt";
	if (world_make_path(t, false, true, r) < 0)
		return -1;
	/* An existing source: AppArmor looks a device path up before it
	 * decides, and a missing one fails with ENOENT either way. */
	if (ev->u.mount.op == IR_MOUNT_MOUNT)
		return world_make_path(MOUNT_SOURCE, false, false, r);
	if (mount("polc-probe", t, "tmpfs", 0, NULL) < 0)
		return skipf(r, "cannot mount a tmpfs on the target unconfined: %s", strerror(errno));
	if (ev->u.mount.op == IR_MOUNT_PIVOT_ROOT) {
		char old[4200];
		snprintf(old, sizeof old, "%s/.old", t);
		if (mkdir(old, 0700) < 0)
			return skipf(r, "mkdir put_old: %s", strerror(errno));
	}
	return 0;
}

static void op_mount(const ir_event *ev, op_result *r)
{
	const char *t = ev->u.mount.target ? ev->u.mount.target : "/mnt";
	int rc;
	switch (ev->u.mount.op) {
	case IR_MOUNT_MOUNT:
		rc = mount(MOUNT_SOURCE, t, ev->u.mount.fstype ? ev->u.mount.fstype : "tmpfs", 0, NULL);
		break;
	case IR_MOUNT_UMOUNT: rc = umount2(t, 0); break;
	default: {
		char old[4200];
		snprintf(old, sizeof old, "%s/.old", t);
		rc = (int)syscall(SYS_pivot_root, t, old);
		break;
	}
	}
	set_result(r, rc);
}

/* ---- ptrace, signal ---- */

static void op_ptrace(const ir_event *ev, op_state *s, op_result *r)
{
	if (ev->u.ptrace.mode == IR_PTRACE_READ) {
		char p[64];
		snprintf(p, sizeof p, "/proc/%d/environ", (int)s->peer);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		set_result(r, fd);
		if (fd >= 0)
			close(fd);
	} else {
		set_result(r, (int)ptrace(PTRACE_ATTACH, s->peer, 0, 0));
	}
}

/* ---- one run ---- */

static int prepare(const ir_event *ev, op_state *s, enum run_mode mode, op_result *r)
{
	switch (ev->domain) {
	case IR_FILE:
	case IR_EXEC:
		return prepare_file(ev, s, r);
	case IR_CAPABILITY:
		s->trig = cap_trigger_find(ev->u.cap.cap);
		return s->trig ? cap_trigger_setup(s->trig, r) : skipf(r, "%s", cap_no_trigger_why(ev->u.cap.cap));
	case IR_NETWORK:
		return prepare_net(ev, s, r);
	case IR_MOUNT:
		return prepare_mount(ev, r);
	case IR_PTRACE:
		s->peer = world_peer(false);
		return s->peer < 0 ? skipf(r, "fork a peer: %s", strerror(errno)) : 0;
	case IR_SIGNAL:
		if (ev->u.signal.peer && strcmp(ev->u.signal.peer, "unconfined"))
			return skipf(r, "needs a peer confined by '%s'", ev->u.signal.peer);
		s->peer = world_peer(false);
		return s->peer < 0 ? skipf(r, "fork a peer: %s", strerror(errno)) : 0;
	default:
		return skipf(r, "%s", "not an LSM event");
	}
	(void)mode;
}

static void operate(const ir_event *ev, op_state *s, enum run_mode mode, op_result *r)
{
	switch (ev->domain) {
	case IR_FILE: case IR_EXEC: op_file(ev, s, mode, r); break;
	case IR_CAPABILITY:
		if (caps_keep_only(ev->u.cap.cap, mode != RUN_BASE_NOCAP) < 0) {
			skipf(r, "capset: %s", strerror(errno));
			return;
		}
		cap_trigger_op(s->trig, r);
		break;
	case IR_NETWORK: op_net(ev, s, r); break;
	case IR_MOUNT: op_mount(ev, r); break;
	case IR_PTRACE: op_ptrace(ev, s, r); break;
	case IR_SIGNAL: set_result(r, kill(s->peer, SIGCONT)); break;
	default: break;
	}
}

/* The descriptor through which the child confines itself, opened before
 * its world hides /proc or /sys (the backend's probe_open). */
static int open_confine(const lsm_confine *c, op_result *r)
{
	char why[200] = "";
	int fd = c->b->probe_open(c, why, sizeof why);
	return fd < 0 ? skipf(r, "%s", why) : fd;
}

static int confine(const lsm_confine *c, int fd, op_result *r)
{
	char why[200] = "";
	if (c->b->probe_enter(c, fd, why, sizeof why) < 0)
		return skipf(r, "%s", why);
	return 0;
}

/* A file's route (a chroot, a detached clone), taken once the probe's
 * objects exist (and a confinement that names objects is built: backend.h,
 * probe_ready), unconfined. */
static int take_route(const ir_event *ev, op_state *s, op_result *r)
{
	if ((ev->domain != IR_FILE && ev->domain != IR_EXEC) ||
	    (s->route != ROUTE_CHROOT && s->route != ROUTE_TREE_CLONE))
		return 0;
	return prepare_route(ev->domain == IR_EXEC ? ev->u.exec.path : ev->u.file.path, s, r);
}

/* The backend's probe_ready (backend.h), whose descriptor replaces
 * probe_open's. */
static int ready_confine(const lsm_confine *c, int *cfd, op_result *r)
{
	if (!c->b->probe_ready)
		return 0;
	char why[200] = "";
	int fd = c->b->probe_ready(c, why, sizeof why);
	if (fd < 0)
		return skipf(r, "%s", why);
	if (*cfd > 0)
		close(*cfd);
	*cfd = fd;
	return 0;
}

static __attribute__((noreturn)) void child(const lsm_confine *c, const ir_event *ev,
					    lsm_route route, enum run_mode mode, int out)
{
	op_result r;
	memset(&r, 0, sizeof r);
	op_state s = { .fd = -1, .fd2 = -1, .peer = -1, .route = route, .tree = -1 };
	int cfd = -1;
	signal(SIGPIPE, SIG_IGN);
	if ((mode != RUN_CONFINED || (cfd = open_confine(c, &r)) >= 0) &&
	    world_enter(&r) == 0 && prepare(ev, &s, mode, &r) == 0 &&
	    (mode != RUN_CONFINED || ready_confine(c, &cfd, &r) == 0) &&
	    take_route(ev, &s, &r) == 0 &&
	    (mode != RUN_CONFINED || confine(c, cfd, &r) == 0))
		operate(ev, &s, mode, &r);
	if (write(out, &r, sizeof r) != sizeof r)
		_exit(1);
	_exit(0);
}

static lsm_route cur_route;   /* the route of the probe being run */

static op_result run_once(const lsm_confine *c, const ir_event *ev, enum run_mode mode)
{
	op_result r;
	memset(&r, 0, sizeof r);
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		skipf(&r, "pipe: %s", strerror(errno));
		return r;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		child(c, ev, cur_route, mode, p[1]);
	}
	close(p[1]);
	ssize_t n = pid < 0 ? -1 : read(p[0], &r, sizeof r);
	close(p[0]);
	int st = 0;
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	if (n != (ssize_t)sizeof r) {
		memset(&r, 0, sizeof r);
		r.skip = true;
		snprintf(r.why, sizeof r.why, "the probe child died (%s %d)",
			 WIFSIGNALED(st) ? "signal" : "status",
			 WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	return r;
}

/* "ok", or the errno's name (a skipped or unreachable run: "skipped") */
static const char *result_name(const op_result *r)
{
	if (r->skip || r->inconclusive)
		return "skipped";
	if (r->ok)
		return "ok";
	const char *n = strerrorname_np(r->err);
	return n ? n : "error";
}

static bool same(const op_result *a, const op_result *b)
{
	return a->ok == b->ok && (a->ok || a->err == b->err);
}

static outcome judged(outcome_kind k, int err, const char *fmt, const char *arg)
{
	outcome o;
	memset(&o, 0, sizeof o);
	o.kind = k;
	o.err = err;
	if (fmt) {
		snprintf(o.text, sizeof o.text, fmt, arg);
		o.why = NULL;
	}
	return o;
}

/* Per capability: with and without it, unconfined (0: not yet run). */
static struct { int done; op_result with, without; } calib[64];

static outcome run_cap(const lsm_confine *c, const ir_event *ev)
{
	int cap = ev->u.cap.cap;
	if (cap < 0 || cap >= 64 || !cap_trigger_find(cap))
		return judged(OUT_SKIPPED, 0, "%s", cap_no_trigger_why(cap));
	if (!calib[cap].done) {
		calib[cap].with = run_once(c, ev, RUN_BASE);
		calib[cap].without = run_once(c, ev, RUN_BASE_NOCAP);
		calib[cap].done = 1;
	}
	const op_result *w = &calib[cap].with, *wo = &calib[cap].without;
	if (w->skip)
		return judged(OUT_SKIPPED, 0, "%s", w->why);
	if (wo->skip || same(w, wo))
		return judged(OUT_SKIPPED, 0, "%s", "its trigger does not depend on the capability on this kernel");
	op_result got = run_once(c, ev, RUN_CONFINED);
	if (got.skip)
		return judged(OUT_ERROR, 0, "%s", got.why);
	if (same(&got, w))
		return judged(OUT_ALLOWED, 0, NULL, NULL);
	if (same(&got, wo))
		return judged(OUT_DENIED, 0, NULL, NULL);
	return judged(OUT_ERROR, 0, "confined the trigger failed with %s, neither allowed nor denied",
		      strerror(got.err));
}

outcome lsm_probe_route(const lsm_confine *c, const ir_event *ev, lsm_route route)
{
	if (route == ROUTE_TREE_CLONE && c->b->no_tree_clone)
		return judged(OUT_SKIPPED, 0, "%s", c->b->no_tree_clone);
	cur_route = route;
	outcome o = lsm_probe_run(c, ev);
	cur_route = ROUTE_DIRECT;
	return o;
}

size_t lsm_routes(const ir_event *ev, lsm_route out[LSM_MAX_ROUTES])
{
	size_t n = 0;
	out[n++] = ROUTE_DIRECT;
	if (ev->domain == IR_FILE && ev->u.file.perm == IR_PERM_READ && !ev->u.file.dir) {
		out[n++] = ROUTE_CHROOT;
		out[n++] = ROUTE_TREE_CLONE;
	} else if (ev->domain == IR_NETWORK && ev->u.net.op == IR_NET_CONNECT &&
		   ev->u.net.family == AF_INET && ev->u.net.has_addr &&
		   (ev->u.net.type & 0xf) != SOCK_RAW) {
		out[n++] = ROUTE_MAPPED6;
		out[n++] = ROUTE_SENDTO;
	}
	return n;
}

const char *lsm_route_name(lsm_route r)
{
	static const char *const names[] = { "direct", "from a chroot of its directory",
		"through a detached clone of its directory", "to its IPv4-mapped IPv6 address",
		"as a send with the address" };
	return (unsigned)r < sizeof names / sizeof *names ? names[r] : "?";
}

bool outcome_matches_route(const outcome *o, const ir_decision *d, const backend *b, lsm_route r)
{
	if (r == ROUTE_TREE_CLONE && d->verdict < IR_DENY && o->kind == OUT_DENIED)
		return true;   /* failed closed */
	return outcome_matches_lsm(o, d, b->errno_agrees);
}

outcome lsm_probe_run(const lsm_confine *c, const ir_event *ev)
{
	if (ev->domain == IR_CAPABILITY)
		return run_cap(c, ev);
	op_result base = run_once(c, ev, RUN_BASE);
	if (base.skip)
		return judged(OUT_SKIPPED, 0, "%s", base.why);
	if (!base.ok && (base.err == EPERM || base.err == EACCES))
		return judged(OUT_SKIPPED, 0, "refused unconfined too (%s)", strerror(base.err));
	/* A file operation that fails unconfined (write to a directory: EISDIR)
	 * fails before any LSM is asked. Network and mount operations ask the
	 * LSM first, so their harmless errors (ECONNREFUSED, ENODEV) still tell. */
	if (!base.ok && (ev->domain == IR_FILE || ev->domain == IR_EXEC))
		return judged(OUT_SKIPPED, 0, "fails unconfined (%s)", strerror(base.err));
	confined_ops = base.ops;
	op_result got = run_once(c, ev, RUN_CONFINED);
	if (!got.skip && !got.inconclusive && !same(&got, &base)) {
		/* A difference must hold twice: a loopback address that was not
		 * ready yet must not pass for a denial. */
		op_result base2 = run_once(c, ev, RUN_BASE), got2 = run_once(c, ev, RUN_CONFINED);
		if (!same(&base2, &base) || !same(&got2, &got)) {
			char why[sizeof ((outcome *)0)->text];
			snprintf(why, sizeof why, "unstable: two runs ended differently (unconfined "
				 "%s then %s, confined %s then %s)", result_name(&base),
				 result_name(&base2), result_name(&got), result_name(&got2));
			return judged(OUT_ERROR, 0, "%s", why);
		}
	}
	outcome o;
	if (got.inconclusive)
		o = judged(OUT_SKIPPED, 0, "%s", got.why);
	else if (got.skip)
		o = judged(OUT_ERROR, 0, "%s", got.why);
	else if (same(&got, &base))
		o = judged(OUT_ALLOWED, 0, NULL, NULL);
	else if (!got.ok)
		/* ptrace read access is asked as a yes/no (ptrace_may_access):
		 * the caller's errno is its own, not the LSM's */
		o = judged(OUT_DENIED, ev->domain == IR_PTRACE && ev->u.ptrace.mode == IR_PTRACE_READ
			   ? 0 : got.err, NULL, NULL);
	else
		o = judged(OUT_ERROR, 0, "succeeded confined but failed unconfined (%s)",
			   strerror(base.err));
	o.isdir = base.isdir;
	return o;
}

bool outcome_matches_lsm(const outcome *o, const ir_decision *d, bool (*agrees)(int, int))
{
	if (d->verdict != IR_DENY && d->verdict != IR_KILL)
		return o->kind == OUT_ALLOWED;
	if (o->kind != OUT_DENIED)
		return false;
	if (o->err == 0 || o->err == d->err)
		return true;
	return agrees && agrees(d->err, o->err);
}
