// SPDX-License-Identifier: GPL-2.0
/* polc_trace.bpf.c - the eBPF tracer's kernel half.
 *
 * raw_syscalls:sys_enter counts every syscall of the tasks in the traced
 * cgroup subtree (cgrp map, index 0) in a per-CPU array: nothing is lost at
 * any rate. For the syscalls that carry paths or addresses it builds event
 * keys at entry (paths read from the caller's memory; a relative path gets
 * the path of its dirfd or cwd, rebuilt from dentries) and completes them
 * with the result at raw_syscalls:sys_exit, counting each distinct key in a
 * hash map. Every failure to record is counted in the lost map by reason.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "tracer/trace_bpf.h"
#include "gen/sysnr.h"      /* POLC_NR_*: libseccomp's numbers (tools/gen-sysnr.c) */
#include "backends/bpf/bpf_layout.h"   /* polc_addr_family: as the enforcer reads */

char LICENSE[] SEC("license") = "GPL";

#define AT_FDCWD_ -100
#define AT_EMPTY_PATH_ 0x1000
#define O_ACCMODE_ 3
#define O_WRONLY_ 1
#define O_RDWR_ 2
#define O_CREAT_ 0100
#define O_TRUNC_ 01000
#define O_APPEND_ 02000
#define O_PATH_ 010000000
#define PROT_EXEC_ 4
#define O_NOFOLLOW_ 0400000
#define O_TMPFILE_BIT_ 020000000   /* __O_TMPFILE */
#define F_SETLK_ 6
#define F_SETLKW_ 7
#define F_OFD_SETLK_ 37
#define F_OFD_SETLKW_ 38
#define AT_SYMLINK_NOFOLLOW_ 0x100

struct { __uint(type, BPF_MAP_TYPE_CGROUP_ARRAY); __uint(max_entries, 1);
	 __type(key, __u32); __type(value, __u32); } cgrp SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, TB_NCOUNT);
	 __type(key, __u32); __type(value, __u64); } counts SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, TBL_N);
	 __type(key, __u32); __type(value, __u64); } lost SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, TB_NEVENTS);
	 __uint(map_flags, BPF_F_NO_PREALLOC);
	 __type(key, struct tb_key); __type(value, __u64); } events SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_HASH); __uint(max_entries, TB_NINFLIGHT);
	 __uint(map_flags, BPF_F_NO_PREALLOC);
	 __type(key, __u32); __type(value, struct tb_inflight); } inflight SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	 __type(key, __u32); __type(value, struct tb_scratch); } scratch SEC(".maps");

/* Processes (thread groups) created in the subtree; index 0. */
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	 __type(key, __u32); __type(value, __u64); } procs SEC(".maps");

struct pbuf { char b[2 * TB_PATH]; };
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1);
	 __type(key, __u32); __type(value, struct pbuf); } pathbuf SEC(".maps");

/* Entries in inflight (approximately: only its being 0 matters). While it
 * is 0 the exit program returns without a hash lookup, which is the case
 * for almost every syscall on the machine (every task's sys_exit runs it). */
__u64 ninflight;
/* Syscall numbers (counts indices) decode() has nothing to do for: set the
 * first time one is seen, so that the calls that dominate a busy server
 * (read, write, epoll_wait) cost a count and this test, not the scratch
 * set-up and the two switches (lab, icount: 147 -> 65 instructions a call
 * above the floor). Learnt rather than listed: decode() is the one list. */
__u8 undecoded[TB_NCOUNT + 1];
/* polc bench's floor (POLC_TRACE_FLOOR=1): the programs attached but
 * returning at once, what enabling the syscall tracepoints costs alone. */
const volatile __u32 floor_only = 0;

static __always_inline void lose(__u32 why)
{
	__u64 *v = bpf_map_lookup_elem(&lost, &why);
	if (v)
		*v += 1;
}

static __always_inline struct file *fd_file(int fd)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct file **fds = BPF_CORE_READ(t, files, fdt, fd);
	unsigned int max = BPF_CORE_READ(t, files, fdt, max_fds);
	struct file *f = NULL;
	if (fd < 0 || (unsigned int)fd >= max)
		return NULL;
	bpf_probe_read_kernel(&f, sizeof f, fds + fd);
	return f;
}

/* The absolute path of (dentry, vfsmount) into the per-CPU pathbuf: walk up
 * to the root collecting names (crossing mounts), then write them out. Both
 * loops are bpf_loop callbacks, so the verifier checks each body once. */
struct walk_ctx { __u64 d, m; int n, done, err; unsigned int off; };

static long walk_cb(__u32 i, struct walk_ctx *c)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct dentry *d = (struct dentry *)c->d;
	struct mount *m = (struct mount *)c->m;
	if (!s)
		return 1;
	struct dentry *root = BPF_CORE_READ(m, mnt.mnt_root);
	struct dentry *parent = BPF_CORE_READ(d, d_parent);
	if (d == root || d == parent) {
		struct mount *mp = BPF_CORE_READ(m, mnt_parent);
		if (mp == m || d != root) {
			c->done = 1;
			return 1;
		}
		c->d = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
		c->m = (__u64)mp;
		return 0;
	}
	if (c->n >= 32) {
		c->err = TBL_PATH_DEEP;
		return 1;
	}
	s->names[c->n & 31] = (__u64)BPF_CORE_READ(d, d_name.name);
	c->n++;
	c->d = (__u64)parent;
	return 0;
}

static long copy_cb(__u32 i, struct walk_ctx *c)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	char *tmp = bpf_map_lookup_elem(&pathbuf, &zero);
	int j = c->n - 1 - (int)i;
	if (!s || !tmp || j < 0)
		return 1;
	unsigned int off = c->off;
	if (off > TB_PATH - 2) {
		c->err = TBL_PATH_LONG;
		return 1;
	}
	tmp[off & (TB_PATH - 1)] = '/';
	off++;
	long len = bpf_probe_read_kernel_str(tmp + (off & (TB_PATH - 1)), TB_PATH,
					     (void *)s->names[j & 31]);
	if (len <= 0) {
		c->err = TBL_READ_FAULT;
		return 1;
	}
	off += len - 1;
	if (off >= TB_PATH - 1) {
		c->err = TBL_PATH_LONG;
		return 1;
	}
	c->off = off;
	return 0;
}

__noinline int build_path(__u64 dentry, __u64 vfsmnt)
{
	__u32 zero = 0;
	char *tmp = bpf_map_lookup_elem(&pathbuf, &zero);
	if (!tmp)
		return -1;
	struct walk_ctx c = { .d = dentry,
		.m = (__u64)container_of((struct vfsmount *)vfsmnt, struct mount, mnt) };
	bpf_loop(64, walk_cb, &c, 0);
	if (!c.done && !c.err)
		c.err = TBL_PATH_DEEP;
	tmp[0] = '/';
	tmp[1] = 0;
	if (!c.err)
		bpf_loop(32, copy_cb, &c, 0);
	if (c.err) {
		lose(c.err);
		return -1;
	}
	return 0;
}

static __always_inline int path_str(struct tb_scratch *s, struct path *p, char *out)
{
	__u32 zero = 0;
	if (build_path((__u64)BPF_CORE_READ(p, dentry), (__u64)BPF_CORE_READ(p, mnt)) < 0)
		return -1;
	char *tmp = bpf_map_lookup_elem(&pathbuf, &zero);
	if (!tmp)
		return -1;
	bpf_probe_read_kernel(out, TB_PATH, tmp);
	return 0;
}

/* Fill key->path from a user string and key->base from dirfd when the
 * string is relative (or empty with AT_EMPTY_PATH: the dirfd's own path). */
static __always_inline int key_path(struct tb_scratch *s, struct tb_key *k, int dirfd,
				    const char *up, int empty_ok)
{
	long n = bpf_probe_read_user_str(k->path, TB_PATH, up);
	if (n == TB_PATH) {
		lose(TBL_PATH_LONG);
		return -1;
	}
	if (n > 0 && k->path[0] == '/')
		return 0;
	if (n == 1 && !empty_ok)
		return -1;
	/* Relative, or not readable yet (then the base is kept in case the
	 * string read at exit turns out relative). */
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	int rc;
	if (dirfd == AT_FDCWD_) {
		struct path pwd = BPF_CORE_READ(t, fs, pwd);
		rc = path_str(s, &pwd, k->base);
	} else {
		struct file *f = fd_file(dirfd);
		if (!f)
			return n < 0 ? 1 : -1;
		struct path fp = BPF_CORE_READ(f, f_path);
		rc = path_str(s, &fp, k->base);
	}
	if (n < 0)
		return 1;
	return rc;
}

static __always_inline int key_fd(struct tb_scratch *s, struct tb_key *k, int fd)
{
	struct file *f = fd_file(fd);
	if (!f)
		return -1;
	struct path fp = BPF_CORE_READ(f, f_path);
	return path_str(s, &fp, k->path);
}

static __always_inline unsigned int open_perm(__u64 fl)
{
	unsigned int acc = fl & O_ACCMODE_, p = 0;
	unsigned int w = (fl & O_APPEND_) ? TBP_APPEND : TBP_WRITE;
	if (fl & O_PATH_)
		return TBP_STAT | (fl & O_NOFOLLOW_ ? 0 : TBP_FOLLOW);
	if (acc == 0 || acc == O_RDWR_)
		p |= TBP_READ;
	if (acc == O_WRONLY_ || acc == O_RDWR_ || (fl & (O_CREAT_ | O_TRUNC_)))
		p |= w;
	if ((fl & (O_CREAT_ | O_TRUNC_)) && (fl & O_APPEND_))
		p |= TBP_WRITE;
	if (!(fl & O_NOFOLLOW_))
		p |= TBP_FOLLOW;
	if (fl & O_TMPFILE_BIT_)
		p |= TBP_TMPFILE;
	return p ? p : TBP_READ;
}

static __always_inline struct tb_key *new_key(struct tb_inflight *in, unsigned int kind,
					       unsigned int perm)
{
	unsigned int i = in->nkeys;
	if (i > 1)
		return NULL;
	struct tb_key *k = &in->key[i & 1];
	__builtin_memset(k, 0, sizeof *k);
	k->kind = kind;
	k->perm = perm;
	k->result = 1;
	in->nkeys = i + 1;
	return k;
}

__noinline int file_ev_g(__u32 perm, int dirfd, __u64 up, int empty_ok)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return -1;
	struct tb_key *k = new_key(&s->in, TB_FILE, perm);
	if (!k)
		return -1;
	int rc = key_path(s, k, dirfd, (const char *)up, empty_ok);
	if (rc < 0) {
		s->in.nkeys--;
		return -1;
	}
	if (rc == 1)
		s->in.upath[(s->in.nkeys - 1) & 1] = up;
	return 0;
}

static __always_inline void sock_info(struct tb_key *k, int fd, bool local)
{
	struct file *f = fd_file(fd);
	if (!f)
		return;
	struct socket *so = BPF_CORE_READ(f, private_data);
	struct sock *sk = BPF_CORE_READ(so, sk);
	k->type = BPF_CORE_READ(so, type);
	k->proto = BPF_CORE_READ(sk, sk_protocol);
	if (!k->family)
		k->family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (!local)
		return;
	k->port = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (k->family == 2) {
		__u32 a = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__builtin_memcpy(k->addr, &a, 4);
	} else if (k->family == 10) {
		BPF_CORE_READ_INTO(&k->addr, sk, __sk_common.skc_v6_rcv_saddr);
	}
}

/* The POLC_NET_* operation of a TBN_* one, for polc_addr_family (only
 * connect, bind and send carry an address). */
static __always_inline __u32 polc_op(__u32 op)
{
	return op == TBN_CONNECT ? POLC_NET_CONNECT : op == TBN_BIND ? POLC_NET_BIND
	       : op == TBN_SEND ? POLC_NET_SEND : POLC_NET_ANYOP;
}

/* The address at uaddr, read as the kernel reads it on k's socket (k's
 * family its family, 0: unknown), exactly as the BPF enforcer does
 * (polc_addr_family): an IPv4 socket's AF_UNSPEC send or bind is a
 * sockaddr_in, an IPv6 socket's sockaddr_in is IPv4 traffic, so the key's
 * family becomes the traffic's (polc_event_family). A recorder that read
 * sa_family alone would make allow-lists the enforcer then refuses. */
static __always_inline void key_addr(struct tb_key *k, __u32 op, __u64 uaddr, __u64 len)
{
	unsigned short sa_fam = 0;
	__u16 port;
	bpf_probe_read_user(&sa_fam, 2, (void *)uaddr);
	__u32 fam = polc_addr_family(k->family, polc_op(op), sa_fam);
	k->family = polc_event_family(k->family, fam, sa_fam);
	if (fam == 2 && len >= 8) {
		bpf_probe_read_user(&port, 2, (void *)(uaddr + 2));
		k->port = __builtin_bswap16(port);
		bpf_probe_read_user(k->addr, 4, (void *)(uaddr + 4));
	} else if (fam == 10 && len >= 24) {
		bpf_probe_read_user(&port, 2, (void *)(uaddr + 2));
		k->port = __builtin_bswap16(port);
		bpf_probe_read_user(k->addr, 16, (void *)(uaddr + 8));
	} else if (sa_fam == 1 && len > 2) {
		long n = bpf_probe_read_user_str(k->path, 108, (void *)(uaddr + 2));
		if (n == 1) {   /* abstract: NUL then the name */
			k->path[0] = '@';
			bpf_probe_read_user_str(k->path + 1, 107, (void *)(uaddr + 3));
		}
	}
}

__noinline int net_ev_g(__u32 op, int fd, __u64 uaddr, __u64 len)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return -1;
	struct tb_key *k = new_key(&s->in, TB_NET, op);
	if (!k)
		return -1;
	/* the socket's family first: how its address is read depends on it */
	sock_info(k, fd, op == TBN_LISTEN || op == TBN_ACCEPT);
	if (uaddr)
		key_addr(k, op, uaddr, len);
	return 0;
}

__noinline int mount_ev_g(__u32 op, __u64 target, __u64 fstype)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return -1;
	struct tb_key *k = new_key(&s->in, TB_MOUNT, op);
	if (!k)
		return -1;
	if (fstype)
		bpf_probe_read_user_str(k->fstype, sizeof k->fstype, (void *)fstype);
	if (target && key_path(s, k, AT_FDCWD_, (const char *)target, false) < 0) {
		s->in.nkeys--;
		return -1;
	}
	return 0;
}


__noinline int exec_ev_g(int dirfd, __u64 up, int empty_ok)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return -1;
	struct tb_key *k = new_key(&s->in, TB_EXEC, 0);
	if (!k)
		return -1;
	int rc = key_path(s, k, dirfd, (const char *)up, empty_ok);
	if (rc < 0)
		s->in.nkeys--;
	else if (rc == 1)
		s->in.upath[(s->in.nkeys - 1) & 1] = up;
	return 0;
}

__noinline int fd_ev_g(__u32 perm, int fd)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return -1;
	struct tb_key *k = new_key(&s->in, TB_FILE, perm);
	if (k && key_fd(s, k, fd) < 0)
		s->in.nkeys--;
	return 0;
}

/* A syscall of sysevents.def's SE_PATH kind. */
static __always_inline void path_ev(__u32 perm, int dfd, int pa, int follow, int fa,
				    unsigned long *a)
{
	if (!a[pa & 7])
		return;         /* utimensat(fd, NULL, ...): the fd itself */
	if (follow && !(fa >= 0 && (a[fa & 7] & AT_SYMLINK_NOFOLLOW_)))
		perm |= TBP_FOLLOW;
	file_ev_g(perm, dfd < 0 ? AT_FDCWD_ : (int)a[dfd & 7], a[pa & 7], dfd >= 0);
}

__noinline int cap_ev_g(__u32 nr)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (s)
		new_key(&s->in, TB_CAP, nr);
	return 0;
}

#define TBP_STAT_ TBP_STAT
#define TBP_WRITE_ TBP_WRITE
#define TBP_LINK_ TBP_LINK

/* Returns 0 when nr is none of the decoded syscalls (whatever its arguments). */
static __always_inline int decode(struct tb_scratch *s, long nr, unsigned long *a)
{
	int d0 = (int)a[0], known = 1;
	switch (nr) {
#define SE_PATH(n, perm, dfd, pa, fol, fa) \
	case POLC_NR_##n: path_ev(TBP_##perm##_, dfd, pa, fol, fa, a); break;
#define SE_PATH2(n, d1, p1, d2, p2) \
	case POLC_NR_##n: path_ev(TBP_WRITE, d1, p1, 0, -1, a); \
		       path_ev(TBP_WRITE, d2, p2, 0, -1, a); break;
#include "compiler/sysevents.def"
	case POLC_NR_open: file_ev_g(open_perm(a[1]), AT_FDCWD_, a[0], 0); break;
	case POLC_NR_creat: file_ev_g(TBP_WRITE | TBP_FOLLOW, AT_FDCWD_, a[0], 0); break;
	case POLC_NR_openat: file_ev_g(open_perm(a[2]), d0, a[1], 0); break;
	case POLC_NR_openat2: {
		__u64 fl = 0;
		bpf_probe_read_user(&fl, 8, (void *)a[2]);
		file_ev_g(open_perm(fl), d0, a[1], 0);
		break;
	}
	case POLC_NR_execve: exec_ev_g(AT_FDCWD_, a[0], 0); break;
	case POLC_NR_execveat: exec_ev_g(d0, a[1], 1); break;
	case POLC_NR_mmap:
	case POLC_NR_flock: {
		int fd = nr == POLC_NR_mmap ? (int)a[4] : d0;
		if (nr == POLC_NR_mmap && (!(a[2] & PROT_EXEC_) || fd < 0))
			break;
		fd_ev_g((nr == POLC_NR_mmap ? TBP_MMAP : TBP_LOCK) | TBP_FOLLOW, fd);
		break;
	}
	case POLC_NR_fcntl:
		/* a record lock is the file's lock permission, as flock is (the
		 * kernel's file_lock hook sees both) */
		if (a[1] == F_SETLK_ || a[1] == F_SETLKW_ || a[1] == F_OFD_SETLK_ ||
		    a[1] == F_OFD_SETLKW_)
			fd_ev_g(TBP_LOCK | TBP_FOLLOW, d0);
		break;
	case POLC_NR_socket: {
		struct tb_key *k = new_key(&s->in, TB_NET, TBN_CREATE);
		if (k) {
			k->family = a[0];
			k->type = a[1] & 0xf;
			k->proto = a[2];
		}
		break;
	}
	case POLC_NR_bind: net_ev_g(TBN_BIND, d0, a[1], a[2]); break;
	case POLC_NR_connect: net_ev_g(TBN_CONNECT, d0, a[1], a[2]); break;
	case POLC_NR_listen: net_ev_g(TBN_LISTEN, d0, 0, 0); break;
	case POLC_NR_accept: case POLC_NR_accept4: net_ev_g(TBN_ACCEPT, d0, 0, 0); break;
	case POLC_NR_sendto:
		if (a[4])
			net_ev_g(TBN_SEND, d0, a[4], a[5]);
		break;
	case POLC_NR_mount: mount_ev_g(TBM_MOUNT, a[1], a[2]); break;
	case POLC_NR_umount2: mount_ev_g(TBM_UMOUNT, a[0], 0); break;
	case POLC_NR_pivot_root: mount_ev_g(TBM_PIVOT, a[0], 0); break;
	default: known = 0; break;
	}
	switch (nr) {
#define SE_CAP(n, cap) case POLC_NR_##n:
#include "compiler/sysevents.def"
		cap_ev_g(nr);
		known = 1;
		break;
	default: break;
	}
	return known;
}

/* Raw tracepoints (tp_btf): called directly with the registers, without
 * the perf-event record a classic tracepoint program is given, so a syscall
 * of a task outside the cgroup costs little more than the cgroup test. */
SEC("tp_btf/sys_enter")
int BPF_PROG(polc_enter, struct pt_regs *regs, long nr)
{
	if (floor_only)   /* then nothing is in flight: polc_exit returns at once too */
		return 0;
	if (bpf_current_task_under_cgroup(&cgrp, 0) != 1)
		return 0;
	__u32 idx = nr >= 0 && nr < 512 ? (__u32)nr
		  : (nr & 0x40000000) && (nr & 0x3fffffff) < 512 ? 512 + (nr & 0x1ff) : TB_NCOUNT;
	__u64 *c = bpf_map_lookup_elem(&counts, &idx);
	if (c)
		*c += 1;
	else
		lose(TBL_COUNT_RANGE);
	if (idx <= TB_NCOUNT && undecoded[idx])
		return 0;
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	if (!s)
		return 0;
	unsigned long a[6] = { regs->di, regs->si, regs->dx, regs->r10, regs->r8, regs->r9 };
	s->in.nkeys = 0;
	s->in.nr = nr;
	s->in.upath[0] = s->in.upath[1] = 0;
	if (!decode(s, nr, a) && idx <= TB_NCOUNT)
		undecoded[idx] = 1;
	if (!s->in.nkeys)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&inflight, &tid, &s->in, BPF_ANY) < 0)
		lose(TBL_INFLIGHT_FULL);
	else
		__sync_fetch_and_add(&ninflight, 1);
	return 0;
}

static __always_inline void count_key(struct tb_key *k)
{
	__u64 one = 1, *v = bpf_map_lookup_elem(&events, k);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return;
	}
	if (bpf_map_update_elem(&events, k, &one, BPF_NOEXIST) < 0) {
		v = bpf_map_lookup_elem(&events, k);   /* raced with another CPU? */
		if (v)
			__sync_fetch_and_add(v, 1);
		else
			lose(TBL_EVENTS_FULL);
	}
}

/* An O_TMPFILE open that succeeded: the path of the new file (fd), as the
 * kernel and AppArmor name it, "DIR/#INODE", instead of the directory the
 * call named (the ptrace recorder reads it back from the descriptor). */
__noinline int tmpfile_g(__u32 tid, __u32 i, int fd)
{
	__u32 zero = 0;
	struct tb_scratch *s = bpf_map_lookup_elem(&scratch, &zero);
	struct tb_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!s || !in)
		return -1;
	struct tb_key *k = &in->key[i & 1];
	if (key_fd(s, k, fd) < 0)
		return -1;
	k->base[0] = 0;
	in->upath[i & 1] = 0;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(polc_exit, struct pt_regs *regs, long ret)
{
	if (!*(volatile __u64 *)&ninflight)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct tb_inflight *in = bpf_map_lookup_elem(&inflight, &tid);
	if (!in)
		return 0;
	int res = ret < 0 && ret > -4096 ? (int)ret : 0;
	for (int i = 0; i < 2; i++) {
		if (i >= in->nkeys)
			break;
		struct tb_key *k = &in->key[i & 1];
		k->result = res;
		if (k->kind == TB_FILE && (k->perm & TBP_TMPFILE)) {
			k->perm &= ~TBP_TMPFILE;
			if (ret >= 0 && tmpfile_g(tid, i, (int)ret) < 0)
				lose(TBL_READ_FAULT);
		}
		if (in->upath[i & 1]) {
			long n = bpf_probe_read_user_str(k->path, TB_PATH,
							 (void *)in->upath[i & 1]);
			if (n <= 0 || n == TB_PATH) {
				lose(n == TB_PATH ? TBL_PATH_LONG : TBL_READ_FAULT);
				continue;
			}
			if (k->path[0] == '/')
				k->base[0] = 0;
			else if (!k->base[0]) {
				lose(TBL_READ_FAULT);
				continue;
			}
		}
		count_key(k);
	}
	if (bpf_map_delete_elem(&inflight, &tid) == 0)
		__sync_fetch_and_sub(&ninflight, 1);
	return 0;
}

/* A new process (not a thread) forked by a task of the subtree. */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(polc_fork, struct task_struct *parent, struct task_struct *child)
{
	if (child->pid != child->tgid || bpf_current_task_under_cgroup(&cgrp, 0) != 1)
		return 0;
	__u32 zero = 0;
	__u64 *v = bpf_map_lookup_elem(&procs, &zero);
	if (v)
		*v += 1;
	return 0;
}

/* A successful exec replaces the memory the path was passed in, so a path
 * not resident at entry (a forked child's untouched page) cannot be read at
 * exit: take the kernel's copy of it (bprm->filename) here. A non-leader
 * thread's exec takes the leader's id: its in-flight entry moves with it. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(polc_execd, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 old = (__u32)old_pid, tid = (__u32)bpf_get_current_pid_tgid();
	struct tb_inflight *in = bpf_map_lookup_elem(&inflight, &old);
	if (!in)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (i >= in->nkeys)
			break;
		struct tb_key *k = &in->key[i & 1];
		if (k->kind != TB_EXEC || !in->upath[i & 1])
			continue;
		long n = bpf_probe_read_kernel_str(k->path, TB_PATH, BPF_CORE_READ(bprm, filename));
		if (n > 0 && n < TB_PATH) {
			in->upath[i & 1] = 0;
			if (k->path[0] == '/')
				k->base[0] = 0;
		}
	}
	if (old != tid) {
		bpf_map_update_elem(&inflight, &tid, in, BPF_ANY);
		bpf_map_delete_elem(&inflight, &old);
	}
	return 0;
}
