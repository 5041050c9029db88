/* enforcer.bpf.c - the one BPF LSM program of polc. Fixed: a policy is data
 * in its maps (bpf_layout.h), never code. Every hook first finds the
 * policy of the current task's cgroup (or of its nearest enforced
 * ancestor); a task outside every enforced cgroup returns at once. Each
 * hook passes through a denial from an earlier BPF LSM program
 * (`if (ret) return ret;`), then decides the event from the tables exactly
 * as backends/bpf/eval.c does, counts it per statement, logs deny/audit
 * decisions to a ring buffer (drops are counted), and returns -errno for a
 * denial.
 *
 * Every path is built by a bounded walk up d_parent that crosses mounts
 * through struct mount (build_path), to the root of the task's mount
 * namespace, as AppArmor resolves it: not to the task's root, which chroot
 * moves (bpf_d_path would name a file from inside a chroot). A path that
 * does not reach that root is decided by the start state's worst entry
 * (fail closed, with the policy's errno): a file under a detached mount
 * (open_tree(OPEN_TREE_CLONE), fsmount, a lazy unmount), under another
 * namespace's mounts, or a disconnected dentry would otherwise be named by a
 * shortened path. So is a path that does not fit POLC_PATH_MAX or needs more
 * than POLC_PATH_STEPS steps, and a map lookup that fails (policy being
 * replaced). Only kernel-internal mounts (MNT_INTERNAL: pipes, sockets,
 * memfd, SysV shm, MAP_HUGETLB; and private clones, through which overlayfs
 * opens its layers' directories) are named from their own root, as d_path
 * does: no path of the namespace reaches them. A directory is named
 * "path/" as well (AppArmor's name for it): the statements matching either
 * form decide, as in ir_decide. The part of a path above the file's own
 * mount is walked once per mount, not per event: its DFA state is kept in
 * the path buffer while nothing it rests on has changed (see cache_lookup),
 * and a file opened or mapped again is allowed without a walk while its
 * path cannot have changed (see wpc_hit).
 *
 * Every route to an operation is one event: file_mprotect adding PROT_EXEC
 * is the file's mmap permission as mmap_file is; move_mount is a mount
 * (the new mount API's trees get attached only through it); sendmsg with an
 * address is also a connect to it (TCP Fast Open and unconnected datagram
 * sockets never call connect); an IPv4-mapped IPv6 address is decided as
 * the IPv4 address (polc_net_normalise, shared with eval.c).
 *
 * Self-protection, whatever the policy says: a confined task cannot reach
 * the enforcer's maps or programs (bpf_map, bpf_prog: by pin or by id),
 * detach or update a link, unlink or rename anything on a BPF filesystem
 * (a pin's last reference detaches its link), unmount a BPF filesystem or
 * lazily unmount a tree with mounts below it (the pins die with the
 * superblock), or leave its cgroup (a write open of cgroup.procs,
 * cgroup.threads or tasks; clone3 with CLONE_INTO_CGROUP). Each was an
 * escape, shown by tests/vm/t_bpf_escape.sh. These denials are not the
 * policy's decisions: they are neither counted nor logged.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "bpf_layout.h"

char LICENSE[] SEC("license") = "GPL";

#define FMODE_READ 0x1
#define FMODE_WRITE 0x2
#define FMODE_EXEC 0x20
#define O_APPEND_ 02000
#define RENAME_EXCHANGE_ 2   /* uapi linux/fs.h */
#define PTRACE_MODE_ATTACH 0x02
#define CAP_OPT_NOAUDIT 0x2
#define EPERM_ 1
#define MNT_DETACH_ 2
#define MNT_INTERNAL_ 0x4000
#define MNT_NS_INTERNAL_ ((unsigned long)-22)   /* ERR_PTR(-EINVAL) */
#define PROT_EXEC_ 0x4
#define BPF_FS_MAGIC_ 0xcafe4a11
#define CGROUP_SUPER_MAGIC_ 0x27e0eb
#define CGROUP2_SUPER_MAGIC_ 0x63677270
#define CLONE_INTO_CGROUP_ 0x200000000ULL
#define S_IFMT_ 0170000
#define S_IFDIR_ 0040000
#define S_IFSOCK_ 0140000
#define MAY_WRITE_ 2
#define NAME_MAX_ 255u
/* The path buffer: bpf_d_path writes from 0; build_path prepends names
 * ending at POLC_PATH_MAX. The slack lets the verifier bound a name copied
 * at any offset below POLC_PATH_MAX. */
#define PBUF (POLC_PATH_MAX + NAME_MAX_ + 1)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, POLC_MAX_POLICIES * 16);
	__type(key, __u64);                  /* cgroup id */
	__type(value, struct polc_cg);       /* policy id, what it decides */
} polc_cgroups SEC(".maps");

/* What the policies loaded since the enforcer was installed can decide (the
 * OR of their polc_cg needs; the loader writes it before a policy's cgroup
 * entry and never narrows it while the enforcer stays, as it attaches
 * programs): an open no loaded policy decides, which cannot leave a cgroup
 * either, returns before the cgroup lookup that every task on the machine
 * would otherwise pay. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} polc_needs SEC(".maps");

/* The families (bit f) in which some policy loaded since the enforcer was
 * installed can decide a send without an address: the OR of their headers'
 * cleared send_open bits (the loader writes it before a policy's cgroup
 * entry and never narrows it while the enforcer stays). A send of a family
 * clear here is allowed whoever makes it: socket_sendmsg returns before
 * the cgroup lookup that every send on the machine would otherwise pay. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} polc_sends SEC(".maps");

/* How many times the loader has written or removed a policy cgroup entry
 * since the enforcer was installed: it adds one after each (the syscalls
 * order the two). What cgroup lookups found stays true while this is
 * unchanged: a cgroup never moves under another, and ids are not reused. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} polc_gen SEC(".maps");

/* Per CPU, what confinement() found for the last few cgroups (direct-mapped
 * by id): the packed entry (0: none confines it) and polc_gen as read
 * before the lookups that found it (0: empty). A run owns the memo from
 * the atomic exchange that sets busy until it clears it: a hook that
 * preempts one on the same CPU looks up without it. */
#define CGMEMO_N 4
struct cgmemo {
	__u64 cg, gen, val;
};
struct cgmemos {
	struct cgmemo e[CGMEMO_N];
	__u64 busy;
	__u64 fence;   /* an atomic add of 0 here orders loads */
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cgmemos);
} polc_cgmemo SEC(".maps");

/* The exec memo (exec_memo_set, exec_memo_hit): an exec open whose
 * decision allowed mapping or executing the file it opened says so to the
 * same execve's mmap_file (the kernel maps the program and a PT_INTERP
 * interpreter) and bprm_check, which take it instead of walking the path
 * again. Kept in a path buffer of the CPU the exec open ran on, and read
 * only while its task has not been switched out since (see exec_memo_set:
 * a memo read on another CPU was a failed execve's, stale,
 * vm/t_bpf_exec_memo). */
struct xmemo {
	__u64 task, start;         /* the task: its address and start_time */
	__u64 nsw;                 /* its context switches when it was kept */
	__u64 file, dentry, mnt;   /* the open file and its path */
	__u64 serial;              /* the policy's polc_fast serial */
	__u32 policy, ok;          /* ok: XM_* the decision allowed */
};
#define XM_MMAP 1u   /* mapping the file executable */
#define XM_EXEC 2u   /* executing it (bprm_check) */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, POLC_MAX_CHUNKS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct polc_blob_key);
	__type(value, struct polc_chunk);
} polc_blob SEC(".maps");

/* The first POLC_FAST_WORDS words of each policy's blob (header, byte
 * classes and, for most policies, every DFA word), indexed by policy id: an
 * array lookup the verifier inlines and then plain loads, where a polc_blob
 * chunk costs a hash lookup. Words beyond it come from polc_blob (chunk). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, POLC_MAX_POLICIES + 1);   /* ids 1..POLC_MAX_POLICIES */
	__type(key, __u32);
	__type(value, struct polc_fast);
} polc_fast SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct polc_cnt_key);
	__type(value, __u64);
} polc_counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} polc_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} polc_drops SEC(".maps");

/* The path of the event being decided, in one of a few buffers claimed for
 * the length of one program run. A buffer per task (task storage) cost
 * each new task's first confined event ~19,000 instructions (allocating
 * and zeroing it: bench/raw/hooks-bpf-cost.txt); these are allocated once.
 *
 * Why no two runs share one: a run owns a buffer from the atomic exchange
 * that turns its busy word from 0 to 1 until it stores 0 there after its
 * last read of it. Migration is disabled while a program runs, but it may
 * be preempted (and a sleepable one may sleep), so another task on the
 * same CPU can run the enforcer before this run ends: it finds the busy
 * word set and takes the CPU's second buffer, or one of the shared ones.
 * Ownership rests on the exchange alone, not on the CPU number, so no
 * interleaving can give two runs one buffer. When every buffer it may try
 * is taken (more than two runs preempted on one CPU and all shared ones
 * taken) the event is decided by the worst entry, as when task storage
 * could not be allocated: fail closed, never a shared buffer. */
/* The mount-prefix cache (see cache_lookup): for a mount, the file DFA's
 * state after the path of its root in the task's mount namespace ("/tmp"),
 * and what that path was walked under. */
#define PCACHE_N 8   /* entries a buffer, direct-mapped by mount */
#define PCACHE_AGE 1000   /* jiffies an entry is used at most: 1-10 s */
/* The tokens a cache entry was stored under (ctok_put, ctok_holds). */
struct ctok {
	__u64 serial;              /* the policy's polc_fast serial */
	__u64 ns, ns_seq, ns_event;   /* the task's mnt_namespace, its seq and event */
	__u64 born;                /* bpf_jiffies64() when stored */
	__u32 policy;
	__u32 rseq, mseq;          /* rename_lock's and mount_lock's sequence */
	__u32 pad;
};

struct pcache {
	__u64 mnt;                 /* the vfsmount (0: empty) */
	struct ctok t;
	__u32 st, dead;            /* the DFA's state (its row) after the prefix;
				      dead: 0, or the dead bit its walk stopped on */
	__u32 plen, psteps;        /* the prefix's bytes and build_path steps */
};

/* The whole-path cache (see wpc_hit): a file's decision, kept per buffer
 * (direct-mapped by its dentry) while its path cannot have changed. */
#define WPC_N 8          /* entries a buffer */
#define WPC_DEPTH 16     /* names within the mount a path kept may have */
#define WPC_XDEN (1u << 8)   /* ok: the exec channel's denies too (exec_denies) */
#define WPC_XM (1u << 9)     /* ok: xm holds an exec open's memo bits */
_Static_assert(POLC_NCHAN <= 8, "wpc_want: a channel's bit is below WPC_XDEN");
#define DCACHE_OP_HASH_ 0x1u   /* dentry d_flags: its filesystem hashes names (d_op->d_hash) */
struct wpc {
	__u64 dentry, mnt;         /* the file's dentry and vfsmount (0: empty) */
	__u64 dig;                 /* chain_digest of its names within the mount */
	struct ctok t;
	__u32 ok;                  /* the channels (bit POLC_CH_*) and WPC_* allowed */
	__u32 xm, dir;             /* XM_* of an exec open; the dentry was a directory */
};


struct pathbuf {
	char p[PBUF];
	char save[128];   /* rename: the source path, for the log record */
	__u32 pos;        /* build_path: where the path starts (struct walk) */
	__u32 tci;        /* walk_step: the chunk index of struct walk's tc */
	__u32 wpos, wend; /* walk_step: the next byte to walk, the end */
	__u32 steps;      /* dwalk_step: steps taken, as one a loop step each */
	__u32 up_known;   /* dwalk_step: up_mnt and up_dentry hold the current
			     mount's parent and mountpoint */
	__u32 dir, worst; /* walk_name: the name's "path/" form and its fail-closed
			     flag, kept here across the walks (see walk_name) */
	__u64 up_mnt, up_dentry;
	__u64 dw[9];      /* dwalk_step: a dentry's or a mount's fields, read at once */
	/* the mount-prefix cache (see cache_lookup) and this run's use of it */
	struct pcache pc[PCACHE_N];
	__u64 c_serial, c_ns, c_ns_seq, c_ns_event;   /* this run's tokens */
	__u32 c_rseq, c_mseq, c_ok;   /* c_ok: the tokens could be read, both
					 sequences even (no writer) */
	__u32 c_idx;      /* the entry of the hook's mount */
	__u32 c_stop;     /* dwalk_step: stop at the hook's mount's root */
	__u32 c_marked, c_mark, c_mark_steps;   /* dwalk_step: the walk left the
						   hook's mount at p[c_mark],
						   after c_mark_steps steps */
	__u32 c_reached;  /* dwalk_step: the walk reached the namespace's root */
	__u64 c_mnt;      /* the hook's vfsmount (a number: see cache_lookup) */
	__u32 c_store;    /* walk_name: store the prefix's state (pc[c_idx]) */
	__u32 c_psteps;   /* the prefix's steps, to store or of a hit */
	__u32 ch0, ch1, xden;   /* decide_obj's channels and exec_denies, read
				   back after the walks (see walk_name) */
	__u32 xwon;       /* named_best: the exec channel's deny decided, so
			     the log record is the exec domain's */
	__u32 dbit;       /* the file walks' dead bit (struct walk's dead_bit) */
	__u32 c_hit;      /* cache_use's answer */
	__u32 c_plen, c_st;   /* a live hit's prefix: bytes, state (c_psteps its steps) */
	__u64 c_now;      /* bpf_jiffies64() at cache_tokens */
	__u64 c_fence;    /* an atomic add of 0 here orders loads (decide_obj) */
	__u32 x_open;     /* an exec open: the exec memo's bits are asked for
			     (decide_obj), kept here across the walks */
	struct xmemo xm[2];   /* the exec memo: the program's and its
				 interpreter's (both are opened before
				 either is mapped); only in a CPU's own
				 buffers (pb_claim_own) */
	__u32 xm_next;
	/* the whole-path cache and this run's key in it (wpc_hit) */
	struct wpc wp[WPC_N];
	__u64 w_dig, w_dentry, w_mnt;   /* w_dig 0: nothing to look up or keep */
	__u32 w_idx, w_dir;
	__u64 busy;       /* 1 while a run owns it (pb_claim) */
};
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, POLC_PBUF_SHARED + 2);   /* the loader: + 2 per CPU */
	__type(key, __u32);
	__type(value, struct pathbuf);
} polc_pbufs SEC(".maps");

static __always_inline struct pathbuf *pb_try(__u32 i)
{
	struct pathbuf *pb = bpf_map_lookup_elem(&polc_pbufs, &i);
	if (pb && __sync_lock_test_and_set(&pb->busy, 1) == 0)
		return pb;
	return 0;
}

/* One of this CPU's own two buffers, not a shared one: see exec_memo_set. */
static __always_inline struct pathbuf *pb_claim_own(void)
{
	__u32 own = POLC_PBUF_SHARED + 2 * bpf_get_smp_processor_id();
	struct pathbuf *pb = pb_try(own);
	return pb ? pb : pb_try(own + 1);
}

/* A free buffer, owned until pb_release; NULL when none is: the CPU's own
 * first, then a shared one (a run preempted on this CPU holds its own). */
static __always_inline struct pathbuf *pb_claim(void)
{
	struct pathbuf *pb = pb_claim_own();
#pragma unroll
	for (__u32 i = 0; i < POLC_PBUF_SHARED; i++)
		if (!pb)
			pb = pb_try(i);
	return pb;
}

static __always_inline void pb_release(struct pathbuf *pb)
{
	__sync_lock_test_and_set(&pb->busy, 0);
}

/* ------------------------------------------------------------- scope */

/* A polc_cg entry as one number (a subprogram returns no map pointer):
 * policy | needs << 32; 0 for none (policy ids start at 1). */
static __always_inline __u64 cg_pack(const struct polc_cg *p)
{
	return p ? p->policy | (__u64)p->needs << 32 : 0;
}

static __always_inline __u32 packed_policy(__u64 v)
{
	return (__u32)v;
}

static __always_inline __u32 packed_needs(__u64 v)
{
	return (__u32)(v >> 32);
}

/* The entry of cgroup cg or of its nearest enforced ancestor, packed.
 * Only the levels above the task's own are asked (a plain load, no helper
 * call): asking all POLC_CGROUP_DEPTH levels cost an unconfined openat
 * ~10 % in the lab (bench/RESULTS.md, per-hook costs). */
static __always_inline __u64 cg_lookup(__u64 cg)
{
	struct polc_cg *p = bpf_map_lookup_elem(&polc_cgroups, &cg);
	if (p)
		return cg_pack(p);
	struct task_struct *t = bpf_get_current_task_btf();
	int level = t->cgroups->dfl_cgrp->level;
	for (int l = POLC_CGROUP_DEPTH - 1; l >= 1; l--) {   /* deepest first */
		if (l >= level)
			continue;
		__u64 a = bpf_get_current_ancestor_cgroup_id(l);
		if (!a || a == cg)
			continue;
		p = bpf_map_lookup_elem(&polc_cgroups, &a);
		if (p)
			return cg_pack(p);
	}
	return 0;
}

/* The policy confining the current task and what it decides, packed
 * (cg_pack); 0 when none does. Every hook of every task on the machine
 * starts here: the per-CPU memo (polc_cgmemo) spares the hash lookups
 * (the task's cgroup, then its ancestors': ~400 guest instructions an
 * unconfined openat in the lab). An entry holds while polc_gen, read
 * before the lookups that found it (a full barrier between, for weakly
 * ordered CPUs), is unchanged. A subprogram: inlined into every hook, its
 * locals took socket_sendmsg's stack past 512 bytes. */
static __noinline __u64 confinement(void)
{
	__u64 cg = bpf_get_current_cgroup_id(), v;
	__u32 z = 0;
	__u64 *gp = bpf_map_lookup_elem(&polc_gen, &z);
	struct cgmemos *m = bpf_map_lookup_elem(&polc_cgmemo, &z);
	if (!gp || !m || __sync_lock_test_and_set(&m->busy, 1))
		return cg_lookup(cg);   /* no memo, or a preempted run holds it */
	__u64 g = *(volatile __u64 *)gp;
	struct cgmemo *e = &m->e[cg & (CGMEMO_N - 1)];
	if (g && e->gen == g && e->cg == cg) {
		v = e->val;
	} else {
		__sync_fetch_and_add(&m->fence, 0);
		v = cg_lookup(cg);
		e->cg = cg;
		e->val = v;
		e->gen = g;
	}
	__sync_lock_test_and_set(&m->busy, 0);
	return v;
}

static __always_inline int policy_of_current(__u32 *pid)
{
	__u64 v = confinement();
	if (!v)
		return 0;
	*pid = packed_policy(v);
	return 1;
}

/* policy_of_current, for a policy that decides anything (needs not 0).
 * The enforcer's own protection (its maps, programs and pins, the BPF
 * filesystem, the task's cgroup) is there to keep such a policy in force;
 * a policy that decides nothing (AlwaysAllow's) refuses its tasks nothing,
 * that included, and then no program need be attached at all (loader.c). */
static __always_inline int restricted_current(__u32 *pid)
{
	__u64 v = confinement();
	if (!v || !packed_needs(v))
		return 0;
	*pid = packed_policy(v);
	return 1;
}

/* policy_of_current, for a policy that decides one of the file channels
 * chans (1 << POLC_CH_*); 0 for a task no such policy confines. */
static __always_inline int policy_deciding(__u32 chans, __u32 *pid)
{
	__u64 v = confinement();
	if (!v || !(packed_needs(v) & chans))
		return 0;
	*pid = packed_policy(v);
	return 1;
}

/* polc_cg needs' and polc_needs' bits of the file DFA's channels */
#define POLC_FILE_CHANS ((1u << POLC_NCHAN) - 1)

/* The policy's window (polc_fast), NULL for an id past the map. */
static __always_inline struct polc_fast *fast_of(__u32 policy)
{
	return bpf_map_lookup_elem(&polc_fast, &policy);
}

/* The chunk holding word idx: in the window a slice of it, else polc_blob's. */
static __always_inline struct polc_chunk *chunk(__u32 policy, __u32 idx)
{
	if (idx < POLC_FAST_WORDS) {
		struct polc_fast *f = fast_of(policy);
		if (!f)
			return 0;
		barrier_var(f);   /* no arithmetic before the check (6.1 refuses it) */
		/* the mask changes nothing but gives the verifier its bound */
		return (struct polc_chunk *)&f->w[idx & (POLC_FAST_WORDS - POLC_CHUNK_WORDS)];
	}
	struct polc_blob_key k = { .policy = policy, .chunk = idx >> POLC_CHUNK_SHIFT };
	return bpf_map_lookup_elem(&polc_blob, &k);
}

static __always_inline int word(__u32 policy, __u32 idx, __u32 *out)
{
	struct polc_chunk *c = chunk(policy, idx);
	if (!c)
		return 0;
	*out = c->w[idx & (POLC_CHUNK_WORDS - 1)];
	return 1;
}

/* ---------------------------------------------------- self-protection */

/* Marks a program of the enforcer's own protection (the opening comment's
 * list), where it is defined: the loader attaches each so marked with the
 * enforcer, whatever the policy says, and every other program when a policy
 * decides one of its classes (loader.c's table). The mark is a BTF decl tag
 * on the program's function, read from the object's BTF. */
#define SELF_PROTECTION __attribute__((btf_decl_tag(POLC_TAG_SELF_PROTECTION)))

static __always_inline int own_map(const struct bpf_map *m)
{
	return m == (void *)&polc_cgroups || m == (void *)&polc_needs || m == (void *)&polc_sends ||
	       m == (void *)&polc_gen || m == (void *)&polc_cgmemo ||
	       m == (void *)&polc_blob || m == (void *)&polc_fast ||
	       m == (void *)&polc_counters || m == (void *)&polc_events ||
	       m == (void *)&polc_drops || m == (void *)&polc_pbufs;
}

static __always_inline __u64 sb_magic(const struct super_block *sb)
{
	return sb ? BPF_CORE_READ(sb, s_magic) : 0;
}

/* Name of a dentry is one of cgroup.procs, cgroup.threads, tasks. */
static __always_inline int migration_file(const struct dentry *de)
{
	char n[16] = {};
	bpf_probe_read_kernel_str(n, sizeof n, BPF_CORE_READ(de, d_name.name));
	if (n[0] == 't')
		return n[1] == 'a' && n[2] == 's' && n[3] == 'k' && n[4] == 's' && !n[5];
	if (n[0] != 'c' || n[1] != 'g' || n[2] != 'r' || n[3] != 'o' || n[4] != 'u' ||
	    n[5] != 'p' || n[6] != '.')
		return 0;
	if (n[7] == 'p')
		return n[8] == 'r' && n[9] == 'o' && n[10] == 'c' && n[11] == 's' && !n[12];
	return n[7] == 't' && n[8] == 'h' && n[9] == 'r' && n[10] == 'e' && n[11] == 'a' &&
	       n[12] == 'd' && n[13] == 's' && !n[14];
}

/* Whether a mount has mounts below it (struct mount is the vfsmount's
 * container: CO-RE offsets, read as plain addresses). */
static __always_inline int has_submounts(const struct vfsmount *mnt)
{
	unsigned long m = (unsigned long)mnt - bpf_core_field_offset(struct mount, mnt);
	unsigned long head = m + bpf_core_field_offset(struct mount, mnt_mounts);
	unsigned long next = 0;
	bpf_probe_read_kernel(&next, sizeof next, (void *)head);
	return next && next != head;
}

SEC("lsm/bpf_map") SELF_PROTECTION
int BPF_PROG(polc_bpf_map, struct bpf_map *map, fmode_t fmode, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	return own_map(map) && restricted_current(&policy) ? -EPERM_ : 0;
}

SEC("lsm/bpf_prog") SELF_PROTECTION
int BPF_PROG(polc_bpf_prog, struct bpf_prog *prog, int ret)
{
	__u32 policy;
	char n[8] = {};
	if (ret)
		return ret;
	bpf_probe_read_kernel(n, 5, BPF_CORE_READ(prog, aux, name));
	if (n[0] != 'p' || n[1] != 'o' || n[2] != 'l' || n[3] != 'c' || n[4] != '_')
		return 0;
	return restricted_current(&policy) ? -EPERM_ : 0;
}

SEC("lsm/bpf") SELF_PROTECTION
int BPF_PROG(polc_bpf, int cmd, union bpf_attr *attr, unsigned int size, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (cmd != BPF_LINK_DETACH && cmd != BPF_LINK_UPDATE && cmd != BPF_LINK_GET_FD_BY_ID)
		return 0;
	return restricted_current(&policy) ? -EPERM_ : 0;
}

SEC("lsm/inode_unlink") SELF_PROTECTION
int BPF_PROG(polc_inode_unlink, struct inode *dir, struct dentry *dentry, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (sb_magic(BPF_CORE_READ(dir, i_sb)) != BPF_FS_MAGIC_)
		return 0;
	return restricted_current(&policy) ? -EPERM_ : 0;
}

SEC("lsm/inode_rename") SELF_PROTECTION
int BPF_PROG(polc_inode_rename, struct inode *old_dir, struct dentry *old_dentry,
	     struct inode *new_dir, struct dentry *new_dentry, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (sb_magic(BPF_CORE_READ(old_dir, i_sb)) != BPF_FS_MAGIC_ &&
	    sb_magic(BPF_CORE_READ(new_dir, i_sb)) != BPF_FS_MAGIC_)
		return 0;
	return restricted_current(&policy) ? -EPERM_ : 0;
}

SEC("lsm/task_alloc") SELF_PROTECTION
int BPF_PROG(polc_task_alloc, struct task_struct *task, unsigned long clone_flags, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!((__u64)clone_flags & CLONE_INTO_CGROUP_))
		return 0;
	return restricted_current(&policy) ? -EPERM_ : 0;   /* current: the parent */
}

/* ---------------------------------------------------------- decisions */

static __always_inline __u32 deny_all(void)
{
	return POLC_DEC(POLC_V_DENY, EPERM_, POLC_STMT_DEFAULT);
}

/* A deny statement's decision, not a default's: the exec channel of an exec
 * open counts only such (polc_file_open), and a name denied by the default
 * alone (an allow-list's "not granted") may be renamed to a granted one, as
 * a server renames its written temp file over the file it serves. */
static __always_inline int dec_denies(__u32 dec)
{
	return POLC_DEC_VERDICT(dec) >= POLC_V_DENY && POLC_DEC_STMT(dec) != POLC_STMT_DEFAULT;
}

static __always_inline int finish(__u32 policy, __u32 mode, __u32 dec, __u64 info,
				  const char *detail, int log)
{
	dec = polc_apply_mode(mode, dec);
	__u32 v = POLC_DEC_VERDICT(dec);
	if (v == POLC_V_ALLOW)
		return 0;
	struct polc_cnt_key ck = { .policy = policy, .stmt = POLC_DEC_STMT(dec) };
	__u64 *n = bpf_map_lookup_elem(&polc_counters, &ck);
	if (n) {
		__sync_fetch_and_add(n, 1);
	} else {
		__u64 one = 1;
		bpf_map_update_elem(&polc_counters, &ck, &one, BPF_NOEXIST);
	}
	if (log) {
		struct polc_event *e = bpf_ringbuf_reserve(&polc_events, sizeof *e, 0);
		if (e) {
			e->cgroup = bpf_get_current_cgroup_id();
			e->policy = policy;
			e->decision = dec;
			e->domain = (__u32)info & 0xff;   /* POLC_EV_INFO */
			e->what = (__u32)info >> 8;
			e->arg = info >> 32;
			e->pid = bpf_get_current_pid_tgid() >> 32;
			bpf_get_current_comm(e->comm, sizeof e->comm);
			e->detail[0] = 0;
			if (detail)
				bpf_probe_read_kernel_str(e->detail, sizeof e->detail, detail);
			bpf_ringbuf_submit(e, 0);
		} else {
			__u32 z = 0;
			__u64 *d = bpf_map_lookup_elem(&polc_drops, &z);
			if (d)
				__sync_fetch_and_add(d, 1);
		}
	}
	if (v == POLC_V_AUDIT)
		return 0;
	__u32 e = POLC_DEC_ERR(dec);
	return -(int)(e ? e : EPERM_);   /* a deny never returns 0, an allow */
}

/* ---------------------------------------------------------- DFA walk */

/* The map values a walk reads, looked up once per walk_bytes rather than
 * once per byte: the task's path buffer and, for a transition beyond the
 * window, the chunk of the last one read (a row is rarely in another chunk
 * than its neighbours; its index is pb->tci). The window (polc_fast: the
 * byte classes and the transitions in it) is looked up again by each
 * walk_step (an array lookup the verifier inlines), not kept here:
 * path_rename holds struct walk copies, and a pointer more in each took its
 * stack past 512 bytes on 6.1.
 *
 * A bpf_loop callback must not branch on a value its context holds as a
 * constant at the first call: the 6.1 verifier checks a callback once, with
 * the state of that call, and removes the branches it did not see taken as
 * dead code. (The transition cache began as NULL: the verifier saw it empty
 * and compiled the callback to look its chunk up on every byte, ~240 guest
 * instructions a byte.) So the cache starts as chunk 0 itself, a pointer,
 * and its index and the walk's position and end are kept in the path
 * buffer (map memory: pb->tci, wpos, wend), never constants the verifier
 * could fold (sb_pivotroot walks 2 bytes from 0: with those constants the
 * verifier would see only the first step, and a second one would walk past
 * the end). */
struct walk {
	__u32 policy, st, dead, fail;   /* st: the state's row (polc_row) */
	__u32 dead_bit;   /* the walk stops on it: the channels asked are decided
			     as entry 0 decides them (polc_dead_bit) */
	struct pathbuf *pb;
	struct polc_chunk *tc;
};

#define WALK_BYTES 32   /* path bytes one walk_step reads (written out): 64
			   took the 6.1 verifier 4.7x main's time to load the
			   enforcer (71 s against 15 s in the lab), 32 most of
			   a short path's bytes in one step */

/* Transition word idx from beyond the window: the cached chunk when it holds
 * idx, else its chunk from polc_blob (cached). 0 when it cannot be read. */
static __always_inline int trans_beyond(struct walk *w, struct pathbuf *pb, __u64 idx,
					__u32 *t)
{
	struct polc_chunk *tc = w->tc;
	if (pb->tci != idx >> POLC_CHUNK_SHIFT || !tc) {
		tc = chunk(w->policy, idx);
		if (!tc)
			return 0;
		w->tc = tc;
		pb->tci = idx >> POLC_CHUNK_SHIFT;
	}
	*t = tc->w[idx & (POLC_CHUNK_WORDS - 1)];
	return 1;
}

/* The end of a step at p[at] (a constant): the state for the next one, and
 * the position, read back from memory (w->pb, pb->wpos) so that no register
 * holds them across the bytes (held, they sent p to the stack: a load more
 * each byte). more: whether the walk goes on. */
#define WALK_STOP(at, more) do {					\
		struct pathbuf *pb_ = *(struct pathbuf *volatile *)&w->pb;	\
		w->st = st;						\
		if (pb_)						\
			pb_->wpos = *(volatile __u32 *)&pb_->wpos + (at);	\
		else							\
			w->fail = 1;					\
		return !(more) || !pb_;					\
	} while (0)

/* Byte k (a constant) of the step, p[k], whose transition is in the
 * window (n bytes are left from p; the class table is at cls_off words
 * into the window, a constant): at the end, or into a dead state, the walk
 * ends; a transition beyond the window ends the step (the next one reads
 * it from its chunk). The state is a row (polc_row), so a byte is two adds
 * and three loads at constant offsets from p and f; dead is dead for the
 * channels the walk asks (dead_bit); every exit is a few stores, so the
 * verifier's cost stays linear. */
#define WB(k) do {							\
		if (n <= (k))						\
			WALK_STOP(k, 0);				\
		idx = st + ((const __u8 *)f->w)[cls_off * 4 + p[k]];	\
		if (idx >= POLC_FAST_WORDS)				\
			WALK_STOP(k, 1);				\
		t = f->w[idx];						\
		st = t & POLC_TRANS_ROW;				\
		if (t & dead_bit) {					\
			w->dead = 1;					\
			WALK_STOP((k) + 1, 0);				\
		}							\
	} while (0);
#define WB4(k) WB(k) WB((k) + 1) WB((k) + 2) WB((k) + 3)
#define WB16(k) WB4(k) WB4((k) + 4) WB4((k) + 8) WB4((k) + 12)
_Static_assert(WALK_BYTES == 32, "walk_step reads byte 0, then WB(1) .. WB(31)");
_Static_assert(POLC_CLS_FILE_OFF + 64 <= POLC_CHUNK_WORDS &&
	       POLC_CLS_MOUNT_OFF + 64 <= POLC_CHUNK_WORDS, "class tables in chunk 0");

/* Up to WALK_BYTES bytes of the path from pb->wpos through the DFA whose
 * class table is at cls_off: the first from the window or its chunk, the
 * rest while their transitions are in the window. Returns 1 at the end, in
 * a dead state or on failure. */
static __always_inline long walk_step(struct walk *w, const __u32 cls_off)
{
	struct pathbuf *pb = w->pb;
	struct polc_fast *f = fast_of(w->policy);
	__u64 st = w->st, pos, end, n, idx, dead_bit = w->dead_bit;
	__u32 t;
	if (!pb || !w->tc || !f) {
		w->fail = 1;
		return 1;
	}
	pos = pb->wpos;
	end = pb->wend;
	/* a path ends at POLC_PATH_MAX + 1 at most ("path/"): pos + WALK_BYTES
	 * stays in the buffer, one bound for every byte of the step */
	if (pos > PBUF - WALK_BYTES) {
		w->fail = 1;
		return 1;
	}
	const __u8 *p = (const __u8 *)&pb->p[pos];
	if (pos >= end)
		return 1;
	n = end - pos;
	idx = st + ((const __u8 *)f->w)[cls_off * 4 + p[0]];
	if (idx < POLC_FAST_WORDS) {
		t = f->w[idx];
	} else if (!trans_beyond(w, pb, idx, &t)) {
		w->fail = 1;
		return 1;
	}
	st = t & POLC_TRANS_ROW;
	if (t & dead_bit) {
		w->dead = 1;
		WALK_STOP(1, 0);
	}
	WB(1) WB(2) WB(3) WB4(4) WB4(8) WB4(12) WB16(16)
	WALK_STOP(WALK_BYTES, n > WALK_BYTES);
}

/* bpf_loop callbacks: the file DFA's walk and the mount DFA's */
static long walk_step_file(__u64 i, void *w)
{
	return walk_step(w, POLC_CLS_FILE_OFF);
}

static long walk_step_mount(__u64 i, void *w)
{
	return walk_step(w, POLC_CLS_MOUNT_OFF);
}

/* Walk n bytes of the path buffer pb from offset base through the file
 * DFA, or the mount DFA with `mount` (a constant); c0: the policy's chunk 0. */
static __always_inline void walk_bytes(struct walk *w, struct pathbuf *pb,
				       struct polc_chunk *c0, __u32 base, __u32 n,
				       const int mount)
{
	if (w->dead || w->fail)
		return;
	pb->wpos = base;
	pb->wend = base + n;
	w->pb = pb;
	w->tc = c0;   /* chunk 0: see struct walk */
	pb->tci = 0;
	/* WALK_BYTES a step, fewer beyond the window */
	bpf_loop(n, mount ? walk_step_mount : walk_step_file, w, 0);
}

/* The decision word of channel ch for the walk's end (or the start's worst
 * entry if `worst`). */
static __always_inline __u32 walk_result(struct walk *w, const struct polc_dfa *d,
					 __u32 ch, int worst)
{
	__u32 a, entry, dec;
	if (w->fail)
		return deny_all();
	if (worst) {
		entry = d->worst;
	} else if (w->dead) {
		entry = 0;
	} else {
		if (!word(w->policy, d->accept + polc_row_state(d, w->st), &a))
			return deny_all();
		entry = POLC_ACC_ENTRY(a);
	}
	if (!word(w->policy, d->entries + entry * d->nchan + ch, &dec))
		return deny_all();
	return dec;
}

/* ---------------------------------------------------------- file hooks */

/* A directory decided in both forms, "path" and "path/": the statements
 * matching either decide; the default only when neither form matches
 * (ir_decide with ev.dir). */
static __always_inline __u32 dir_combine(__u32 a, __u32 b)
{
	if (POLC_DEC_STMT(a) == POLC_STMT_DEFAULT)
		return b;
	if (POLC_DEC_STMT(b) == POLC_STMT_DEFAULT)
		return a;
	return polc_dec_wins(b, a) ? b : a;
}

/* One channel's decision for the walked path (w), or for a directory also
 * for the path with a '/' more (w2). */
static __always_inline __u32 chan_result(struct walk *w, struct walk *w2, const struct polc_dfa *d,
					 __u32 ch, int worst, int dir)
{
	__u32 a = walk_result(w, d, ch, worst);
	if (dir && !worst)
		a = dir_combine(a, walk_result(w2, d, ch, 0));
	return a;
}

/* A name walked through the file DFA: the walk of "path" (w) and, for a
 * directory, of "path/" (w2, whose state is where everything beneath the
 * directory starts); worst: the path could not be had or is too long (fail
 * closed). */
struct named {
	struct walk w, w2;
	int worst, dir;
};

/* A flag read back from the path buffer (or another map value): a load
 * from map memory, whose value the verifier never knows (see walk_name). */
static __always_inline __u32 pb_flag(const __u32 *f)
{
	return *(const volatile __u32 *)f;
}

/* Walk the n bytes of the task's buffer at `base` (for a directory, pb->dir
 * set before the path was built, also with a '/' put at base + n, which the
 * caller left free; it is a NUL again afterwards). A buffer that cannot
 * take the '/' fails the walk.
 *
 * dir and worst cross bpf_loop calls (build_path's, walk_bytes') in map
 * memory and every test after a call reads them back from there, never
 * from a register or the stack: 6.1's verifier loses a caller's value
 * across a bpf_loop callback. Pruning a state inside walk_step, it marks
 * the old state's precise caller registers in the new one by walking back
 * walk_step's own instructions as if they were the caller's, so walk_step's
 * "r8 = *(u64 *)(r7 +32)" ends the mark of the caller's r8; a state whose
 * r8 (dir) was 1 then matched one where it was 0, no state with dir set
 * and worst clear ever reached the "path/" test, and the walk of "path/"
 * was removed as dead code (558451b: every directory was decided as a
 * file). A value loaded from map memory is unknown to the verifier, so
 * both sides of each test here are always verified. */
static __always_inline void cache_store(struct pathbuf *pb, const struct walk *w, __u32 plen);

/* walk_name of a path whose first nfull - n bytes (the path of a mount's
 * root, decide_cached) were walked before: from state st0 (a row), the n bytes at
 * base. With pb->c_store set, the bytes before pb->c_mark (the prefix) are
 * walked first and their state stored (cache_store). */
static __always_inline void walk_name_from(__u32 policy, const struct polc_dfa *d,
					   struct polc_chunk *c0, struct pathbuf *pb, __u32 base,
					   __u32 n, __u32 nfull, __u32 st0, int worst,
					   struct named *o, const int cached)
{
	struct walk *w = &o->w;   /* in o: no copies on the stack (path_rename's is full) */
	*w = (struct walk){ .policy = policy, .st = st0, .dead_bit = pb_flag(&pb->dbit) };
	int dir = pb_flag(&pb->dir);
	if (dir && nfull + 1 >= POLC_PATH_MAX)
		worst = 1;   /* "path/" too long to walk (eval.c) */
	if (nfull <= 1)
		dir = 0;     /* "/" already ends in '/' */
	pb->dir = dir;
	pb->worst = worst;
	if (!worst && cached) {
		/* the prefix (up to pb->c_mark when storing, else none), then
		 * the rest: each bpf_loop call site has its callback verified
		 * again, so the same two serve both */
		__u32 mid = pb_flag(&pb->c_store) ? pb_flag(&pb->c_mark) : base;
		walk_bytes(w, pb, c0, base, mid - base, 0);   /* base <= mid <= base + n */
		if (pb_flag(&pb->c_store))
			cache_store(pb, w, mid - base);
		walk_bytes(w, pb, c0, mid, base + n - mid, 0);
	} else if (!worst) {
		walk_bytes(w, pb, c0, base, n, 0);
	}
	o->w2 = *w;
	if (pb_flag(&pb->dir) && !pb_flag(&pb->worst)) {
		__u32 at = base + n;
		if (at < PBUF - 1) {
			pb->p[at] = '/';
			walk_bytes(&o->w2, pb, c0, at, 1, 0);
			pb->p[at] = 0;
		} else {
			w->fail = 1;
		}
	}
	o->worst = pb_flag(&pb->worst);
	o->dir = pb_flag(&pb->dir);
}

static __always_inline void walk_name(__u32 policy, const struct polc_dfa *d,
				     struct polc_chunk *c0, struct pathbuf *pb, __u32 base,
				     __u32 n, int worst, struct named *o)
{
	walk_name_from(policy, d, c0, pb, base, n, n, polc_row(d, d->start), worst, o, 0);
}

/* The decision of a walked name for decide_obj's channels ch0 and ch1 (the
 * more restrictive wins; ch1 == ch0 for one) and, with exec_denies, the exec
 * channel by its deny statements only (an exec open: see polc_file_open):
 * pb->ch0, ch1, xden, read back from map memory (see walk_name). */
static __always_inline __u32 named_best(const struct polc_dfa *d, struct pathbuf *pb,
					struct named *o)
{
	__u32 ch0 = pb_flag(&pb->ch0), ch1 = pb_flag(&pb->ch1);
	__u32 best = chan_result(&o->w, &o->w2, d, ch0, o->worst, o->dir);
	pb->xwon = 0;
	if (ch1 != ch0) {
		__u32 x = chan_result(&o->w, &o->w2, d, ch1, o->worst, o->dir);
		if (polc_dec_wins(x, best))
			best = x;
	}
	if (pb_flag(&pb->xden)) {
		__u32 x = chan_result(&o->w, &o->w2, d, POLC_CH_EXEC, o->worst, o->dir);
		if (dec_denies(x) && polc_dec_wins(x, best)) {
			best = x;
			pb->xwon = 1;
		}
	}
	return best;
}

/* de: a dentry the hook was given (or a field of one), read directly
 * (BTF), not by helper: two helper calls a decided open did before. */
static __always_inline int dentry_is_dir(const struct dentry *de)
{
	const struct inode *ino = de->d_inode;
	return ino && (ino->i_mode & S_IFMT_) == S_IFDIR_;
}

/* ------------------------------------------------------- path walk */

struct dwalk {
	__u64 dentry, vfsmnt, mnt;           /* where the walk is; mnt: vfsmnt's struct mount */
	__u64 mnt_root;                      /* vfsmnt's root dentry */
	__u64 root_dentry, root_mnt;         /* the namespace's root */
	struct pathbuf *pb;                  /* the path, ending at p[POLC_PATH_MAX]; its
						start pb->pos (map memory: see struct walk) */
	__u32 done, fail;
};

/* A mount no namespace holds by design: kern_mount's (MNT_INTERNAL), or a
 * private clone a filesystem made of another mount (clone_private_mount:
 * overlayfs opens its layers' directories through them), both with mnt_ns
 * MNT_NS_INTERNAL. open_tree and fsmount trees have an anonymous namespace,
 * a lazily unmounted tree none: those are not internal. */
static __always_inline int internal_mount(const struct vfsmount *vm)
{
	unsigned long m = (unsigned long)vm - bpf_core_field_offset(struct mount, mnt);
	unsigned long ns = (unsigned long)BPF_CORE_READ((struct mount *)m, mnt_ns);
	return (BPF_CORE_READ(vm, mnt_flags) & MNT_INTERNAL_) || ns == MNT_NS_INTERNAL_;
}

#define INLINE_NAMES 6
#define INAME_LEN 32u   /* 6.1's DNAME_INLINE_LEN; a short name is shorter */
struct dentry___iname {
	unsigned char d_iname[INAME_LEN];
} __attribute__((preserve_access_index));

/* An 8-byte word at any address: clang would split an access it cannot
 * prove aligned into eight byte accesses (x86 needs no alignment). */
static __always_inline __u64 *u64_at(const void *p)
{
	barrier_var(p);
	return (__u64 *)p;
}

/* Put a short name (len < INAME_LEN; its INAME_LEN bytes in q0..q3) and a
 * '/' before pos. Returns where the path now starts, or 0 when it does not
 * fit below POLC_PATH_MAX. The 32 bytes go at pos - len; what they cover
 * past the name (the path built so far) is put back. */
static __always_inline __u64 put_short_name(struct pathbuf *pb, __u64 pos, __u64 len,
					    __u64 q0, __u64 q1, __u64 q2, __u64 q3)
{
	if (len >= INAME_LEN || len + 2 > pos || pos > POLC_PATH_MAX)
		return 0;
	__u64 slash = pos - len - 1;
	barrier_var(slash);
	if (slash >= POLC_PATH_MAX)
		return 0;   /* never (len + 2 <= pos); the verifier's bound */
	__u64 at = slash + 1;
	__u64 s0 = *u64_at(&pb->p[pos]), s1 = *u64_at(&pb->p[pos + 8]);
	__u64 s2 = *u64_at(&pb->p[pos + 16]), s3 = *u64_at(&pb->p[pos + 24]);
	*u64_at(&pb->p[at]) = q0;
	*u64_at(&pb->p[at + 8]) = q1;
	*u64_at(&pb->p[at + 16]) = q2;
	*u64_at(&pb->p[at + 24]) = q3;
	*u64_at(&pb->p[pos]) = s0;
	*u64_at(&pb->p[pos + 8]) = s1;
	*u64_at(&pb->p[pos + 16]) = s2;
	*u64_at(&pb->p[pos + 24]) = s3;
	pb->p[slash] = '/';
	return slash;
}

/* The '/' bytes among the first `left` bytes of little-endian word w, as
 * high bits (a zero byte of w XORed with "////////"; a bit above a true
 * hit may be false, which only costs a walk); 0 when there is none. */
static __always_inline __u64 word_slashes(__u64 w, __u32 left)
{
	__u64 v = w ^ 0x2f2f2f2f2f2f2f2fULL;
	__u64 z = (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
	if (left < 8)
		z &= (1ULL << (left * 8)) - 1;
	return z;
}

/* Whether the len bytes at pb->p[at] (at + len <= POLC_PATH_MAX) hold a
 * '/': eight at a time (a word XORed with "////////" has a zero byte
 * there), the bytes past the name masked off. Only a pseudo file's name can:
 * memfd_create takes any bytes, and "memfd:x/bin/t" named "/memfd:x/bin/t"
 * would be decided as a file t in a directory /memfd:x/bin, which a glob
 * for every bin directory one level down matches. */
static __always_inline int name_has_slash(struct pathbuf *pb, __u32 at, __u32 len)
{
	__u64 hit = 0;
#pragma clang loop unroll(disable)
	for (__u32 k = 0; k < (NAME_MAX_ + 7) / 8; k++) {
		if (k * 8 >= len)
			break;
		hit |= word_slashes(*u64_at(&pb->p[(at + k * 8) & (POLC_PATH_MAX - 1)]),
				    len - k * 8);
	}
	return hit != 0;
}

/* A dentry's parent, name and name length, and in q[0..3] the 32 bytes of
 * its short name (d_iname) when *name points there and *len < INAME_LEN
 * (*inl 1): one read where d_name follows d_parent and d_iname lies
 * within the next 48 bytes (as in 6.1), so a short name costs no second
 * helper call; each read is a helper call of a path step's few. */
static __always_inline int dentry_link(struct pathbuf *pb, const struct dentry *de,
				       __u64 *parent, const unsigned char **name, __u32 *len,
				       int *inl)
{
	__u32 po = bpf_core_field_offset(struct dentry, d_parent);
	__u32 io = bpf_core_field_offset(struct dentry___iname, d_iname);
	*inl = 0;
	if (bpf_core_field_offset(struct dentry, d_name) == po + 8 &&
	    bpf_core_type_size(struct qstr) == 16 && bpf_core_field_offset(struct qstr, name) == 8) {
		if (bpf_core_field_exists(struct dentry___iname, d_iname) && io >= po + 24 &&
		    io + INAME_LEN <= po + sizeof pb->dw && !((io - po) & 7)) {
			if (bpf_probe_read_kernel(pb->dw, sizeof pb->dw, (const char *)de + po) < 0)
				return -1;
			*inl = pb->dw[2] == (__u64)de + io && (__u32)(pb->dw[1] >> 32) < INAME_LEN;
		} else if (bpf_probe_read_kernel(pb->dw, 24, (const char *)de + po) < 0) {
			return -1;
		}
		*parent = pb->dw[0];
		*len = pb->dw[1] >> 32;   /* hash_len: hash, then len (little-endian) */
		*name = (const unsigned char *)pb->dw[2];
		return 0;
	}
	*parent = (__u64)BPF_CORE_READ(de, d_parent);
	*len = BPF_CORE_READ(de, d_name.len);
	*name = BPF_CORE_READ(de, d_name.name);
	return 0;
}

/* A mount's parent and mountpoint: one read where they are neighbours (as
 * in every kernel since 3.x). */
static __always_inline int mount_link(const struct mount *m, struct mount **parent,
				      __u64 *mountpoint)
{
	__u64 r[2];
	__u32 po = bpf_core_field_offset(struct mount, mnt_parent);
	if (bpf_core_field_offset(struct mount, mnt_mountpoint) == po + 8) {
		if (bpf_probe_read_kernel(r, sizeof r, (const char *)m + po) < 0)
			return -1;
		*parent = (struct mount *)r[0];
		*mountpoint = r[1];
		return 0;
	}
	*parent = BPF_CORE_READ(m, mnt_parent);
	*mountpoint = (__u64)BPF_CORE_READ(m, mnt_mountpoint);
	return 0;
}

/* Entering mount mp (not the namespace's root mount): its root dentry, and
 * in pb its parent and mountpoint for the crossing out of it (up_known),
 * in one read where mnt_parent, mnt_mountpoint and mnt (mnt_root first)
 * are neighbours (as in 6.1); 0 when it cannot be read. */
static __always_inline __u64 mount_enter(struct pathbuf *pb, const struct mount *mp)
{
	__u32 po = bpf_core_field_offset(struct mount, mnt_parent);
	pb->up_known = 0;
	if (bpf_core_field_offset(struct mount, mnt_mountpoint) == po + 8 &&
	    bpf_core_field_offset(struct mount, mnt) == po + 16 &&
	    bpf_core_field_offset(struct vfsmount, mnt_root) == 0) {
		if (bpf_probe_read_kernel(pb->dw, 24, (const char *)mp + po) < 0)
			return 0;
		pb->up_mnt = pb->dw[0];
		pb->up_dentry = pb->dw[1];
		pb->up_known = 1;
		return pb->dw[2];
	}
	return (__u64)BPF_CORE_READ(mp, mnt.mnt_root);
}

/* At the namespace's root (the next step's first test, made at the end of
 * this one: a loop step fewer a path). pb->steps counts it as a step of
 * its own, so a path takes as many steps as when each was a loop step. */
static __always_inline long dwalk_at_root(struct dwalk *x, struct pathbuf *pb)
{
	if (x->dentry != x->root_dentry || x->vfsmnt != x->root_mnt)
		return 0;
	pb->steps++;
	pb->c_reached = 1;
	x->done = 1;
	return 1;
}

/* One step of d_path()'s prepend_path(): at the namespace's root, stop; at
 * a mount's root, continue from its mountpoint in the parent mount; at the
 * top of any other mount tree (detached, another namespace's) fail, unless
 * the mount is kernel-internal (named from its root, as d_path does); else
 * prepend "/name" and go to the parent. A dentry that is its own parent
 * below a mount's root is disconnected (fail), or on an internal mount a
 * pseudo file (memfd, shm: "/name"). Every step that does not stop ends
 * with the next one's root test (dwalk_at_root). */
static long dwalk_step(__u64 i, void *vctx)
{
	struct dwalk *x = vctx;
	struct pathbuf *pb = x->pb;
	if (!pb) {
		x->fail = 1;
		return 1;
	}
	pb->steps++;
	if (x->dentry == x->root_dentry && x->vfsmnt == x->root_mnt) {
		pb->c_reached = 1;
		x->done = 1;
		return 1;
	}
	struct vfsmount *vm = (struct vfsmount *)x->vfsmnt;
	if (x->dentry == x->mnt_root) {
		if (!pb->c_marked) {
			/* leaving the hook's own mount: the rest is the path of
			 * its root (the mount-prefix cache) */
			if (pb->c_stop) {
				pb->steps--;   /* this step is the prefix's */
				x->done = 1;
				return 1;
			}
			pb->c_marked = 1;
			pb->c_mark = pb->pos;
			pb->c_mark_steps = pb->steps - 1;
		}
		struct mount *m = (struct mount *)x->mnt;
		struct mount *mp;
		__u64 mountpoint;
		if (pb->up_known) {
			mp = (struct mount *)pb->up_mnt;
			mountpoint = pb->up_dentry;
		} else if (mount_link(m, &mp, &mountpoint) < 0) {
			x->fail = 1;
			return 1;
		}
		if (!mp || (__u64)mp == x->mnt) {
			/* not the namespace's root: internal, or detached */
			if (internal_mount(vm))
				x->done = 1;
			else
				x->fail = 1;
			return 1;
		}
		x->dentry = mountpoint;
		x->mnt = (__u64)mp;
		x->vfsmnt = (__u64)mp + bpf_core_field_offset(struct mount, mnt);
		if (x->vfsmnt == x->root_mnt) {
			x->mnt_root = x->root_dentry;   /* into the namespace's root mount: known */
			pb->up_known = 0;
		} else {
			x->mnt_root = mount_enter(pb, mp);
		}
		return dwalk_at_root(x, pb);
	}
	__u64 parent;
	const unsigned char *name;
	__u32 len;
	int inl;
	if (dentry_link(pb, (const struct dentry *)x->dentry, &parent, &name, &len, &inl) < 0) {
		x->fail = 1;
		return 1;
	}
	int pseudo = 0;
	if (!parent || parent == x->dentry) {
		if (!internal_mount(vm)) {
			x->fail = 1;   /* disconnected: fail closed */
			return 1;
		}
		pseudo = 1;
	}
	if (pseudo && !len) {
		x->done = 1;   /* a nameless pseudo file (pipe, socket): "/" */
		return 1;
	}
	/* the whole path must stay under POLC_PATH_MAX bytes: pos >= 1 */
	__u32 pos = pb->pos;
	if (len > NAME_MAX_ || len + 2 > pos || pos > POLC_PATH_MAX) {
		x->fail = 1;
		return 1;
	}
	if (inl) {
		/* the short name came with the read: the same bytes, no second call */
		__u32 io = bpf_core_field_offset(struct dentry___iname, d_iname) -
			   bpf_core_field_offset(struct dentry, d_parent);
		__u32 k = io >> 3;   /* 4 in 6.1 (dentry_link: at most 5) */
		if (k > 5) {
			x->fail = 1;
			return 1;
		}
		pos = put_short_name(pb, pos, len, pb->dw[k], pb->dw[k + 1], pb->dw[k + 2],
				     pb->dw[k + 3]);
		if (!pos) {
			x->fail = 1;
			return 1;
		}
	} else {
		pos -= len;
		__u32 n = len;
		barrier_var(n);   /* keep the mask: the verifier needs the bound */
		if (bpf_probe_read_kernel(&pb->p[pos & (POLC_PATH_MAX - 1)], n & NAME_MAX_, name) < 0) {
			x->fail = 1;
			return 1;
		}
		pos -= 1;
		pb->p[pos & (POLC_PATH_MAX - 1)] = '/';
	}
	if (pseudo && len == 1 && pb->p[(pos + 1) & (POLC_PATH_MAX - 1)] == '/') {
		/* d_alloc_anon's name: a dentry that is its own root and was
		 * given none (nsfs: what /proc/PID/ns/... opens). No caller
		 * chooses it (a memfd's is "memfd:..."): named "/", as a
		 * nameless pipe is, not refused as a name with a '/' */
		x->done = 1;
		return 1;
	}
	pb->pos = pos;
	x->dentry = parent;
	if (pseudo) {
		/* a pseudo file's name with a '/' (memfd_create takes any bytes)
		 * cannot be had without looking like a path: fail closed */
		if (name_has_slash(pb, pos + 1, len))
			x->fail = 1;
		else
			x->done = 1;
		return 1;
	}
	return dwalk_at_root(x, pb);
}

/* Whether a short name (len < INAME_LEN; its bytes in q0..q3) holds a '/'. */
static __always_inline int short_name_has_slash(__u32 len, __u64 q0, __u64 q1, __u64 q2, __u64 q3)
{
	__u64 q[4] = { q0, q1, q2, q3 }, hit = 0;
#pragma unroll
	for (int k = 0; k < 4; k++) {
		if (len <= (__u32)k * 8)
			break;
		hit |= word_slashes(q[k], len - k * 8);
	}
	return hit != 0;
}

/* Whether dentry de on mount vm has a path the walk would find, shown
 * without a walk: vm is the root mount of the task's mount namespace (the
 * walk's stop, build_path) or is mounted on that mount's root, as "/" is
 * on rootfs and a container's root on its namespace's (pivot_root puts
 * the new root where the old one was), and de reaches vm's root within
 * WPC_DEPTH names, none its own parent (not disconnected). Any other mount
 * is left to the walk: a detached tree's, a lazily unmounted one's,
 * another namespace's and a kernel mount have no trustworthy path
 * (LANGUAGE.md), and a mount further up can be cut off from the root
 * without leaving the namespace (a directory above its mountpoint renamed
 * out of a bind mount's subtree: the walk finds no path, dwalk_step's
 * disconnected). Proving each mountpoint above connected would take a
 * helper read a mount and a name: more than the walk's whole-path cache. */
static __noinline int reaches_ns_root(const struct dentry *de, const struct vfsmount *vm)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct mnt_namespace *ns = t->nsproxy->mnt_ns;
	struct mount *root = ns ? ns->root : 0, *mp;
	__u64 m = (__u64)vm - bpf_core_field_offset(struct mount, mnt), mountpoint;
	if (!root)
		return 0;
	if (m != (__u64)root &&
	    (mount_link((const struct mount *)m, &mp, &mountpoint) < 0 || mp != root ||
	     mountpoint != (__u64)root->mnt.mnt_root))
		return 0;
	const struct dentry *mroot = vm->mnt_root, *d = de;
#pragma clang loop unroll(disable)
	for (int k = 0; k < WPC_DEPTH; k++) {
		if (d == mroot)
			return 1;
		const struct dentry *parent = d->d_parent;
		if (!parent || parent == d)
			return 0;
		d = parent;
	}
	return 0;
}

/* Whether the exec group's channels (an exec, an exec open, an executable
 * mapping) may decide dentry de on mount vm, by the length of its name
 * alone (the policy header's exec_lens): 0 when no path ending in a name
 * of that length is decided, so none of de's is, whatever its directories.
 * A length the policy may decide, or every length (a '*' as a last name,
 * a '**', a closed domain), costs a load or two; only a name to be allowed
 * is checked to be one the path ends in, as dwalk_step builds it: not a
 * mount's root (named by its mountpoint), a short name (kept in the
 * dentry, read with four loads) without a '/', of a path the walk would
 * find (reaches_ns_root: an object with no trustworthy path is decided as the
 * worst entry, a deny where the domain has one). Else 1: the path
 * decides. */
static __always_inline int exec_name_may_decide(const struct polc_hdr *h,
						const struct dentry *de,
						const struct vfsmount *vm)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	return 1;   /* short_name_has_slash masks a little-endian word */
#endif
	__u32 lens = h->exec_lens[0];   /* lengths 0..31: a short name's */
	if (lens == ~0u || !bpf_core_field_exists(struct dentry___iname, d_iname))
		return 1;
	__u32 len = de->d_name.len;
	if (len >= INAME_LEN || (lens >> (len & 31) & 1) || de == vm->mnt_root)
		return 1;
	const struct dentry___iname *di = (const void *)de;
	__u64 iname = (__u64)de + bpf_core_field_offset(struct dentry___iname, d_iname);
	if ((__u64)de->d_name.name != iname ||
	    short_name_has_slash(len, *u64_at(&di->d_iname[0]), *u64_at(&di->d_iname[8]),
				 *u64_at(&di->d_iname[16]), *u64_at(&di->d_iname[24])))
		return 1;
	return !reaches_ns_root(de, vm);
}

/* The first names of a path, read directly (BTF): while a name is kept in
 * its dentry (a short name, d_iname) and the walk has not reached the root
 * of the file's own mount, the name is copied with a few loads and stores,
 * no helper call and no bpf_loop step (a confined open of
 * /tmp/polc-micro-XXXXXX/f: two of its three names). Everything else (a
 * mount's root, so also the namespace's; a long name; a dentry without a
 * parent) is left to dwalk_step, from the dentry and position this returns
 * and stores in pb->pos: the walk and its checks are the same. */
static __noinline const struct dentry *inline_names(struct pathbuf *pb,
							 const struct dentry *d,
							 const struct dentry *mroot)
{
	__u64 pos = POLC_PATH_MAX;   /* 64-bit: the verifier keeps its bounds */
	pb->p[POLC_PATH_MAX] = 0;
	pb->pos = pos;
	if (!bpf_core_field_exists(struct dentry___iname, d_iname))
		return d;   /* a kernel that keeps short names otherwise: all by dwalk_step */
#pragma clang loop unroll(disable)
	for (int k = 0; k < INLINE_NAMES; k++) {
		if (d == mroot)
			break;
		const struct dentry *parent = d->d_parent;
		if (!parent || parent == d)
			break;
		const struct dentry___iname *di = (const void *)d;
		__u64 iname = (__u64)d + bpf_core_field_offset(struct dentry___iname, d_iname);
		if ((__u64)d->d_name.name != iname)
			break;
		__u64 at = put_short_name(pb, pos, d->d_name.len, *u64_at(&di->d_iname[0]),
					  *u64_at(&di->d_iname[8]), *u64_at(&di->d_iname[16]),
					  *u64_at(&di->d_iname[24]));
		if (!at)
			break;
		pos = at;
		pb->pos = pos;
		d = parent;
	}
	return d;
}

/* Build the path of dentry `de` on mount `vm` in the task's mount namespace,
 * ending at p[POLC_PATH_MAX] (a NUL). Returns where it starts, or -1 when it
 * does not reach the namespace's root, is too long or too deep (the caller
 * decides fail closed). With stop, only the names within `vm` (a mount not
 * the namespace's root mount, whose root's path the cache holds): the walk
 * ends at vm's root, pb->steps its steps (POLC_PATH_MAX: no name). Marks
 * where the walk left vm (pb->c_mark) and whether it reached the
 * namespace's root (pb->c_reached), for the cache. */
static __always_inline long build_path(struct pathbuf *pb, const struct dentry *de,
				       const struct vfsmount *vm, int names, int stop)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct dwalk x = {
		.vfsmnt = (__u64)vm,
		.mnt = (__u64)vm - bpf_core_field_offset(struct mount, mnt),
		.mnt_root = (__u64)vm->mnt_root,   /* vm: a hook's own (BTF), a plain load */
		.pb = pb,
	};
	struct mount *nsroot = t->nsproxy->mnt_ns->root;   /* direct (BTF) reads, no helper */
	if (!nsroot)
		return -1;   /* an exiting task: no namespace to name a path in */
	x.root_mnt = (__u64)nsroot + bpf_core_field_offset(struct mount, mnt);
	x.root_dentry = (__u64)nsroot->mnt.mnt_root;
	pb->p[POLC_PATH_MAX] = 0;
	pb->pos = POLC_PATH_MAX;
	pb->steps = 0;
	pb->up_known = 0;
	pb->c_stop = stop;
	pb->c_marked = 0;
	pb->c_reached = 0;
	pb->c_store = 0;
	/* names: the first short names directly (decide_obj); rename, link and
	 * mount, whose programs' stacks are full, leave them to dwalk_step */
	x.dentry = names ? (__u64)inline_names(pb, de, (const struct dentry *)x.mnt_root)
			 : (__u64)de;
	bpf_loop(POLC_PATH_STEPS, dwalk_step, &x, 0);
	__u32 pos = pb->pos;
	if (x.fail || !x.done || pb->steps > POLC_PATH_STEPS || pos > POLC_PATH_MAX)
		return -1;
	if (pos == POLC_PATH_MAX && !pb_flag(&pb->c_stop)) {   /* the root itself */
		pb->c_marked = 0;   /* "/" is no mount's prefix plus its names */
		pos--;
		pb->p[POLC_PATH_MAX - 1] = '/';
	}
	return pos;
}

/* Walk the name of dentry `de` on mount `vm` into o; its path is left in
 * pb from *at (-1: no path, o decides as the worst entry). */
static __always_inline void name_of(__u32 policy, const struct polc_dfa *d,
				    struct polc_chunk *c0, struct pathbuf *pb,
				    const struct dentry *de, const struct vfsmount *vm,
				    int dir, struct named *o, long *at)
{
	pb->dir = dir;   /* in map memory across the walks: see walk_name */
	pb->dbit = POLC_TRANS_DEAD;   /* rename and link compare whole states */
	long pos = build_path(pb, de, vm, 0, 0);
	*at = pos;
	if (pos < 0) {
		pb->dir = 0;
		walk_name(policy, d, c0, pb, 0, 0, 1, o);
		return;
	}
	__u32 base = (__u32)pos & (POLC_PATH_MAX - 1);
	walk_name(policy, d, c0, pb, base, POLC_PATH_MAX - base, 0, o);
}


/* -------------------------------------------------- mount-prefix cache */

/* The part of a path above the file's own mount (the path of the mount's
 * root: mount crossings, the mountpoints' names) is most of a path walk's
 * cost, and the same for every file on that mount; under a policy with few
 * path statements it alone drives the file DFA dead. So each path buffer
 * keeps, per mount (direct-mapped by its vfsmount), the DFA state after the
 * path of the mount's root in the task's mount namespace, with its length
 * and build_path steps, and the tokens it was walked under. An entry is
 * used only while each token is as it was from before that walk's first
 * read to after its last one:
 *  - the policy: its id and polc_fast's serial, a fresh number each load
 *    (a reused id never meets an old policy's state);
 *  - the task's mount namespace: its address and seq (unique per boot: a
 *    freed and reused namespace has another) and its event (bumped when a
 *    mount of it is attached, moved or detached);
 *  - mount_lock's sequence: every change to the mount tree (attach, move,
 *    umount, pivot_root, a mountpoint's dentry dropped in any namespace) is
 *    made under its write side, so an unchanged even value means the
 *    mounts and mountpoints walked are as they were (a freed and reused
 *    vfsmount address was attached under it);
 *  - rename_lock's sequence: every change to a dentry's name or parent
 *    (d_move, d_exchange, a filesystem's d_splice_alias) is made under its
 *    write side.
 * These are the two sequences d_path's prepend_path itself retries on. The
 * sequences are 32 bits: an entry older than PCACHE_AGE jiffies is not used
 * (2^31 renames, to bring rename_lock's back where it was, take far longer).
 * Only
 * a path that reached the namespace's root is kept (not a detached,
 * internal or another namespace's mount), and not the namespace's root
 * mount's (no prefix). A buffer is one run's from pb_claim to pb_release,
 * so no entry is read while written. Decisions are those of the whole
 * path: the within-mount names are still built (or, for a dead state,
 * counted, so a path too long or too deep still fails closed), and an
 * event to be denied or audited is decided again from the whole path (its
 * log record carries it). */

struct mnt_namespace___v61 {   /* 6.1: seq, a namespace's unique number */
	__u64 seq;
	__u64 event;
} __attribute__((preserve_access_index));

extern const void rename_lock __ksym __weak;
extern const void mount_lock __ksym __weak;

/* A seqlock's sequence, when it can be read and no writer holds it (even). */
static __always_inline int seq_even(const void *lock, __u32 *s)
{
	if (!lock)
		return 0;
	*s = 1;
	if (bpf_probe_read_kernel(s, sizeof *s, (const char *)lock +
				  bpf_core_field_offset(seqlock_t, seqcount.seqcount.sequence)) < 0)
		return 0;
	return !(*s & 1);
}

/* rename_lock's and mount_lock's sequences, when both can be read and no
 * writer holds either (even). Two reads: one of both locks (adjacent in
 * 6.1's .data) copied 132 bytes and cost more (lab, file_open). */
static __always_inline int seqs_even(__u32 *r, __u32 *m)
{
	return seq_even(&rename_lock, r) && seq_even(&mount_lock, m);
}

/* A full barrier for weakly ordered CPUs (an atomic op with fetch; x86
 * needs none): the loads before it are done before those after it. */
static __always_inline void load_fence(struct pathbuf *pb)
{
	__u64 v = __sync_fetch_and_add(&pb->c_fence, 0);
	barrier_var(v);
}

/* The task's mount namespace and its seq and event; 0 when unknown. */
static __always_inline __u64 task_mnt_ns(__u64 *seq, __u64 *event)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct mnt_namespace *ns = t->nsproxy->mnt_ns;
	if (!ns || !bpf_core_field_exists(struct mnt_namespace___v61, seq))
		return 0;
	struct mnt_namespace___v61 *nv = (void *)ns;
	*seq = nv->seq;
	*event = nv->event;
	return (__u64)ns;
}

/* This run's tokens (pb->c_*), read before any path walk; c_ok 0 when any
 * cannot be had (no entry is then used or stored). */
static __always_inline void cache_tokens(struct pathbuf *pb, __u32 policy)
{
	struct polc_fast *f = fast_of(policy);
	__u64 seq = 0, event = 0;
	__u32 r, m;
	pb->c_ok = 0;
	if (!f)
		return;
	pb->c_serial = f->serial;
	pb->c_ns = task_mnt_ns(&seq, &event);
	pb->c_ns_seq = seq;
	pb->c_ns_event = event;
	if (!pb->c_serial || !pb->c_ns || !seqs_even(&r, &m))
		return;
	pb->c_rseq = r;
	pb->c_mseq = m;
	pb->c_now = bpf_jiffies64();
	pb->c_ok = 1;
}

/* Store this run's tokens (pb->c_*) and the policy in an entry's t. */
static __always_inline void ctok_put(struct ctok *t, const struct pathbuf *pb, __u32 policy)
{
	t->policy = policy;
	t->serial = pb->c_serial;
	t->ns = pb->c_ns;
	t->ns_seq = pb->c_ns_seq;
	t->ns_event = pb->c_ns_event;
	t->rseq = pb->c_rseq;
	t->mseq = pb->c_mseq;
	t->born = pb->c_now;
}

/* Whether an entry's tokens t are this run's, for policy, and t is young
 * enough (PCACHE_AGE). */
static __always_inline int ctok_holds(const struct ctok *t, const struct pathbuf *pb,
				      __u32 policy)
{
	return t->policy == policy && t->serial == pb->c_serial && t->ns == pb->c_ns &&
	       t->ns_seq == pb->c_ns_seq && t->ns_event == pb->c_ns_event &&
	       t->rseq == pb->c_rseq && t->mseq == pb->c_mseq && pb->c_now - t->born <= PCACHE_AGE;
}

/* The slot of a direct-mapped cache of n entries (a power of two) that
 * kernel address a keeps: slab objects are at least 64 bytes apart, so the
 * bits above 6 tell neighbours apart, and those above 12 pages. */
static __always_inline __u32 slot_of(__u64 a, __u32 n)
{
	return ((a >> 6) ^ (a >> 12)) & (n - 1);
}

/* The entry of mount vm valid under this run's tokens, or NULL. */
static __always_inline struct pcache *cache_lookup(struct pathbuf *pb, __u32 policy,
						   const struct vfsmount *vm)
{
	pb->c_mnt = (__u64)vm;
	/* read back from map memory: a number now (no pointer may be hashed) */
	__u64 m = *(volatile __u64 *)&pb->c_mnt;
	__u32 i = slot_of(m, PCACHE_N);
	pb->c_idx = i;
	struct pcache *e = &pb->pc[i];
	if (!pb->c_ok || e->mnt != m || !ctok_holds(&e->t, pb, policy))
		return 0;
	return e;
}

/* Whether this run's tokens (read before its walk) still hold, after every
 * load of the walk (a full barrier first). */
static __always_inline int tokens_unchanged(struct pathbuf *pb)
{
	__u64 seq = 0, event = 0;
	__u32 r, m;
	load_fence(pb);
	return seqs_even(&r, &m) && r == pb->c_rseq && m == pb->c_mseq &&
	       task_mnt_ns(&seq, &event) == pb->c_ns && seq == pb->c_ns_seq &&
	       event == pb->c_ns_event;
}

/* After build_path of the whole path (from pos): whether its prefix may be
 * stored (pb->c_store, for walk_name_from): it reached the namespace's root
 * from a mount not its root mount, and no token changed during the walk. */
static __always_inline void cache_prepare_store(struct pathbuf *pb, long pos)
{
	pb->c_store = 0;
	if (pos < 0 || !pb_flag(&pb->c_ok) || !pb_flag(&pb->c_marked) || !pb_flag(&pb->c_reached))
		return;
	__u32 mark = pb_flag(&pb->c_mark), steps = pb_flag(&pb->steps);
	__u32 msteps = pb_flag(&pb->c_mark_steps);
	if (mark < (__u64)pos || mark > POLC_PATH_MAX || msteps > steps)
		return;
	if (!tokens_unchanged(pb))
		return;
	pb->c_psteps = steps - msteps;
	pb->c_store = 1;
}

/* Store the state after the prefix's plen bytes (walk_name_from). */
static __always_inline void cache_store(struct pathbuf *pb, const struct walk *w, __u32 plen)
{
	struct pcache *e = &pb->pc[pb->c_idx & (PCACHE_N - 1)];
	e->mnt = 0;
	if (w->fail)
		return;
	ctok_put(&e->t, pb, w->policy);
	e->st = w->st;
	e->dead = w->dead ? w->dead_bit : 0;   /* dead for which channels */
	e->plen = plen;
	e->psteps = pb->c_psteps;
	e->mnt = pb->c_mnt;
}

/* The length of the names within the mount (from d up to its root mroot)
 * when inline_names would copy them all (short names, at most
 * INLINE_NAMES): then build_path's first step leaves the mount. -1 else. */
static __noinline long names_len(const struct dentry *d, const struct dentry *mroot)
{
	__u64 n = 0;
	if (!bpf_core_field_exists(struct dentry___iname, d_iname))
		return -1;
#pragma clang loop unroll(disable)
	for (int k = 0; k < INLINE_NAMES; k++) {
		if (d == mroot)
			return n;
		const struct dentry *parent = d->d_parent;
		if (!parent || parent == d)
			return -1;
		__u64 iname = (__u64)d + bpf_core_field_offset(struct dentry___iname, d_iname);
		__u32 len = d->d_name.len;
		if ((__u64)d->d_name.name != iname || len >= INAME_LEN)
			return -1;
		n += len + 1;
		d = parent;
	}
	return d == mroot ? (long)n : -1;
}

/* What the valid entry e of mount vm lets decide_obj skip (pb->c_hit): 2,
 * the walks (its state is dead, so is every longer path's: the names within
 * the mount are only counted, all short names inline_names would copy, and
 * the path fits); 1, the prefix (build_path stops at vm's root; its bytes,
 * steps and state in pb->c_plen, c_psteps, c_st); 0, nothing (no entry, or
 * the dentry is the root of a mount with an empty prefix: its path is "/").
 * Either way the decision is the whole path's: build_path fails on a
 * suffix exactly where it fails on the whole path, and the whole path fits
 * exactly when suffix and prefix together do. */
static __always_inline void cache_use(struct pathbuf *pb, const struct pcache *e,
				      const struct dentry *de, const struct vfsmount *vm,
				      __u32 policy, const struct polc_dfa *d)
{
	pb->c_hit = 0;
	if (!e)
		return;
	__u32 plen = e->plen, psteps = e->psteps, a = 0;
	const struct dentry *mroot = vm->mnt_root;
	if (plen >= POLC_PATH_MAX || psteps > POLC_PATH_STEPS || (!plen && de == mroot))
		return;
	/* The entry's state: where the prefix's walk ended, or stopped (dead
	 * for the channels that walk asked: the bit asked now, or all, needs
	 * no more). Its accept word carries its own dead bits, so whichever
	 * channels stored it, a state dead for the ones asked now decides
	 * every longer path as entry 0 does. */
	__u32 bit = pb_flag(&pb->dbit), dead = e->dead;
	if (dead && (dead == bit || dead == POLC_TRANS_DEAD))
		a = bit;
	else if (!word(policy, d->accept + polc_row_state(d, e->st), &a))
		return;
	if (a & bit) {
		long n = names_len(de, mroot);
		if (n < 0 || n + plen + 1 >= POLC_PATH_MAX)
			return;   /* "path/" too: see walk_name_from */
		pb->c_hit = 2;
		return;
	}
	if (dead)
		return;   /* stopped before the prefix's end: nothing to resume */
	pb->c_plen = plen;
	pb->c_psteps = psteps;
	pb->c_st = e->st;
	pb->c_hit = 1;
}

/* After an exec open's walk: what its decision allows of the file for
 * the same execve (XM_*): mapping it (mmap_file) and executing it
 * (bprm_check), for exec_memo_set. The walk's dead bit is the exec group's,
 * which holds mmap and exec (POLC_EXEC_GROUP), so its state decides both
 * channels, stopped or not. Only a plain allow counts (a deny or an audit
 * is decided and logged by the hook itself). */
static __always_inline __u32 exec_memo_bits(const struct polc_dfa *d, struct named *o,
					    __u32 mode)
{
	__u32 m = chan_result(&o->w, &o->w2, d, POLC_CH_MMAP, o->worst, o->dir);
	__u32 e = chan_result(&o->w, &o->w2, d, POLC_CH_EXEC, o->worst, o->dir);
	return (POLC_DEC_VERDICT(polc_apply_mode(mode, m)) == POLC_V_ALLOW ? XM_MMAP : 0) |
	       (POLC_DEC_VERDICT(polc_apply_mode(mode, e)) == POLC_V_ALLOW ? XM_EXEC : 0);
}

/* The current task's context switches so far (task_struct's nvcsw and
 * nivcsw: the scheduler counts each switch away from it). */
static __always_inline __u64 switches(const struct task_struct *t)
{
	return t->nvcsw + t->nivcsw;
}

/* After every exec open decided for a confined task: drop a memo of this
 * open file (an older open's whose struct file had the same address: a
 * failed execve's) and keep ok (XM_*) as its new one, under the policy's
 * serial read before the decision (0: none is kept).
 *
 * A memo counts only while its task has not been switched out since it
 * was kept (exec_memo_hit). Until then the task runs on this CPU, and only
 * its own runs claim and release this CPU's buffers (another run holding
 * one is this CPU's, preempted or asleep, and stays so until the task is
 * switched out): every claim of pb_claim_own it makes gets the same buffer.
 * So the exec open that must drop a memo finds it where it was kept, and
 * a hook that reads one finds the last exec open's; a memo kept before a
 * switch, on this CPU or another, is read by no one. When both own buffers
 * are held, a memo kept in one was kept before the task was switched out:
 * already void. The task is named by its address and its start_time (an
 * exited task's memory reused by a new task is another task). */
static __always_inline void exec_memo_set(const struct file *file, __u32 policy, __u64 serial,
					  __u32 ok)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pathbuf *pb = pb_claim_own();
	if (!pb)
		return;
	if (pb->xm[0].file == (__u64)file)
		pb->xm[0].file = 0;
	if (pb->xm[1].file == (__u64)file)
		pb->xm[1].file = 0;
	if (ok && serial) {
		struct xmemo *x = &pb->xm[pb->xm_next & 1];
		pb->xm_next++;
		x->task = (__u64)t;
		x->start = t->start_time;
		x->dentry = (__u64)file->f_path.dentry;
		x->mnt = (__u64)file->f_path.mnt;
		x->policy = policy;
		x->serial = serial;
		x->ok = ok;
		x->nsw = switches(t);
		x->file = (__u64)file;
	}
	pb_release(pb);
}

/* Whether an exec memo allows `what` (XM_*) of `file`: the current task is
 * in an execve (task_struct.in_execve; a kernel without it keeps no memo),
 * has not been switched out since the memo was kept (exec_memo_set), and
 * opened this same file for it, at the same dentry and mount, under the
 * policy of the same serial. A rename between the open and the mapping or
 * the exec check goes unseen: the file was allowed at the path it was
 * opened by, and what runs or is mapped is that open file's content
 * (AppArmor decides an exec by the path bprm_creds_for_exec finds, later,
 * and a mapping by the open file's permissions, fctx->allow). */
static __always_inline int exec_memo_hit(__u32 policy, const struct file *file, __u32 what)
{
	struct task_struct *t = bpf_get_current_task_btf();
	if (!bpf_core_field_exists(t->in_execve) || !BPF_CORE_READ_BITFIELD(t, in_execve))
		return 0;
	struct polc_fast *f = fast_of(policy);
	if (!f)
		return 0;
	__u64 serial = f->serial, start = t->start_time;
	struct pathbuf *pb = pb_claim_own();
	if (!pb)
		return 0;
	__u64 nsw = switches(t);   /* after the claim: a switch before it voids */
	int hit = 0;
	for (int k = 0; k < 2; k++) {
		struct xmemo *x = &pb->xm[k];
		if (serial && x->file == (__u64)file && x->task == (__u64)t &&
		    x->nsw == nsw && x->start == start &&
		    x->dentry == (__u64)file->f_path.dentry &&
		    x->mnt == (__u64)file->f_path.mnt && x->policy == policy &&
		    x->serial == serial && (x->ok & what))
			hit = 1;
	}
	pb_release(pb);
	return hit;
}

/* ------------------------------------------------- whole-path cache */

/* A file opened or mapped again (a program run again, a file read again)
 * has the same path, so the same decision, while nothing its path is made
 * of has changed. Each buffer keeps, per dentry (direct-mapped), the plain
 * allows of the last decision of a file: the channels it allowed, under
 * which tokens (the mount-prefix cache's: policy and serial, the task's
 * mount namespace, rename_lock's and mount_lock's sequences, at most
 * PCACHE_AGE old), for which mount and with which names. The part of the
 * path above the file's mount is the mount-prefix cache's case. The names
 * within the mount are the chain of dentries from the file up to the
 * mount's root: while rename_lock's sequence holds, no dentry of it has
 * changed name or parent, but a dentry freed and its memory reused by
 * another name is not a rename. So the chain itself is the key: the
 * address and the name's hash and length of each dentry (d_name, hashed
 * with the parent's address as salt by the kernel's word-at-a-time hash),
 * mixed into one 64-bit digest (chain_digest). A reused address matches
 * only when every dentry up to the mount's root is at the same address
 * under a name of the same hash and length: the same path, short of a
 * 32-bit collision under a salt no task can read. Not every name hash is
 * that one: a filesystem that hashes names itself (DCACHE_OP_HASH:
 * casefolded directories, vfat, exfat, cifs nocase, ...) uses the
 * byte-at-a-time hash, in which the salt cancels out and names of one
 * length collide at will ("a~" and "bs"), as does every name on an
 * architecture without word-at-a-time access; an O_TMPFILE's name ("#ino")
 * keeps hash 0. A path through any such name is never kept. A hit needs
 * nothing walked: the tokens, the chain (a few loads a name) and the
 * entry. Only plain allows are kept: a deny or an audit is decided,
 * counted and logged by the walk as before. */

static __always_inline __u64 mix64(__u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/* The digest of the chain from d up to mroot (a dentry's address goes
 * through pb->dw[0] to become a number: no pointer may be hashed); 0 when
 * the chain is longer than WPC_DEPTH names or does not reach mroot. */
static __noinline __u64 chain_digest(struct pathbuf *pb, const struct dentry *d,
				     const struct dentry *mroot)
{
	__u64 h = 0x9e3779b97f4a7c15ULL;
#if !defined(__TARGET_ARCH_x86) && !defined(__TARGET_ARCH_arm64)
	return 0;   /* full_name_hash may be the byte hash: see wpc_hit */
#endif
#pragma clang loop unroll(disable)
	for (int k = 0; k < WPC_DEPTH; k++) {
		if (d == mroot)
			return h | 1;
		const struct dentry *parent = d->d_parent;
		if (!parent || parent == d)
			return 0;   /* disconnected: its path is not the chain's */
		__u32 len = d->d_name.len, hash = d->d_name.hash;
		if ((d->d_flags & DCACHE_OP_HASH_) || !hash)
			return 0;   /* a hash anyone can collide, or none */
		pb->dw[0] = (__u64)d;
		h = mix64(h ^ *(volatile __u64 *)&pb->dw[0]);
		h = mix64(h ^ ((__u64)len << 32 | hash));
		d = parent;
	}
	return 0;
}

/* What decide_obj asks of the whole-path cache: its channels (pb->ch0,
 * ch1), the exec denies (pb->xden) and an exec open's memo bits. */
static __always_inline __u32 wpc_want(struct pathbuf *pb)
{
	return 1u << (pb_flag(&pb->ch0) & 7) | 1u << (pb_flag(&pb->ch1) & 7) |
	       (pb_flag(&pb->xden) ? WPC_XDEN : 0) | (pb_flag(&pb->x_open) ? WPC_XM : 0);
}

/* Whether the whole-path cache allows what decide_obj asks of dentry de on
 * mount vm (pb's tokens read, pb->dir known); *xm: an exec open's memo
 * bits, from the entry. Sets this run's key for wpc_store. The tokens are
 * not read again after the chain, as the walk's are not after its walk: a
 * rename while the chain is read can make it match one that held link by
 * link rather than at one instant, but only by moving the file's own
 * directories, which whoever can do so can do before the open, to the
 * same effect. */
static __always_inline int wpc_hit(struct pathbuf *pb, __u32 policy, const struct dentry *de,
				   const struct vfsmount *vm, __u32 *xm)
{
	pb->w_dig = 0;
	if (!pb_flag(&pb->c_ok))
		return 0;
	__u64 dig = chain_digest(pb, de, vm->mnt_root);
	if (!dig)
		return 0;
	pb->w_dig = dig;
	pb->w_dentry = (__u64)de;
	pb->w_mnt = (__u64)vm;
	pb->w_dir = pb->dir;
	__u64 k = *(volatile __u64 *)&pb->w_dentry, m = *(volatile __u64 *)&pb->w_mnt;
	__u32 i = slot_of(k, WPC_N), want = wpc_want(pb);
	pb->w_idx = i;
	struct wpc *e = &pb->wp[i];
	if (e->dentry != k || e->mnt != m || e->dig != dig || e->dir != pb->w_dir ||
	    (want & ~e->ok) || !ctok_holds(&e->t, pb, policy))
		return 0;
	*xm = (want & WPC_XM) ? e->xm : 0;
	return 1;
}

/* Keep a plain allow of what this run asked (xm: an exec open's memo bits)
 * when its key was set and no token changed during its walk. */
static __always_inline void wpc_store(struct pathbuf *pb, __u32 policy, __u32 xm)
{
	if (!*(volatile __u64 *)&pb->w_dig)
		return;
	struct wpc *e = &pb->wp[pb_flag(&pb->w_idx) & (WPC_N - 1)];
	e->dentry = 0;
	if (!tokens_unchanged(pb))
		return;
	e->mnt = pb->w_mnt;
	e->dig = pb->w_dig;
	e->dir = pb->w_dir;
	e->ok = wpc_want(pb);
	e->xm = xm;
	ctok_put(&e->t, pb, policy);
	e->dentry = pb->w_dentry;
}

/* Decide the object `de` on mount `vm` for channels ch0 and ch1 (the more
 * restrictive wins; ch1 == ch0 for one); dir: also as "path/"; DIR_ASK: if
 * `de` is a directory (asked only when a path is decided: an
 * allowed-by-all channel, AlwaysAllow for one, reads nothing of the file);
 * exec_denies: the exec channel too, by its deny statements only (see
 * named_best; left out in mode audit). xmemo: an exec open, whose allow
 * returns what it allows of the file for the exec memo (XM_*, 0 for
 * none: exec_memo_set); every other call returns 0 or an error. cached:
 * use the mount-prefix cache (file_open's and mmap_file's, the hot paths:
 * each bpf_loop call site the cache adds has its callback verified again,
 * so the other hooks go without and their programs verify as before). */
#define DIR_ASK (-1)
static __always_inline int decide_obj(__u32 policy, const struct dentry *de,
				      const struct vfsmount *vm, __u32 ch0, __u32 ch1,
				      __u32 domain, int dir, int exec_denies, int xmemo,
				      const int cached)
{
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), domain, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	__u32 mode = h->mode;
	if (mode)
		exec_denies = 0;
	/* no statement of the operation can deny or audit any path: the
	 * path walk and the DFA walk (most of a confined open's cost) go, and
	 * finish() neither counts nor logs an allow. One word of the header
	 * (chan_open), not the worst entry's words: each is a lookup. */
	__u32 open = h->chan_open;
	if ((open >> (ch0 & 31) & 1) && (open >> (ch1 & 31) & 1) &&
	    (!exec_denies || (open >> POLC_CH_EXEC & 1)))
		return 0;
	__u32 asked = 1u << (ch0 & 31) | 1u << (ch1 & 31) | (exec_denies ? 1u << POLC_CH_EXEC : 0);
	int by_name = !(asked & ~POLC_EXEC_GROUP) && !exec_name_may_decide(h, de, vm);
	/* an exec open allowed by its name: the exec memo says so to
	 * bprm_check and mmap_file, which would ask reaches_ns_root again */
	if (by_name)
		return xmemo ? XM_MMAP | XM_EXEC : 0;
	struct polc_dfa d = h->file;
	struct pathbuf *pb = pb_claim();
	if (!pb)
		return finish(policy, mode, deny_all(), domain, 0, 1);
	/* in map memory across the path walk: see walk_name */
	pb->dir = dir == DIR_ASK ? dentry_is_dir(de) : dir;
	pb->ch0 = ch0;
	pb->ch1 = ch1;
	pb->xden = exec_denies != 0;
	pb->x_open = xmemo != 0;
	pb->dbit = polc_dead_bit(1u << ch0 | 1u << ch1 | (exec_denies ? 1u << POLC_CH_EXEC : 0));
	pb->c_ok = 0;
	pb->c_hit = 0;
	if (cached) {
		cache_tokens(pb, policy);
		/* the tokens' loads before the entry's and the walk's (a full
		 * barrier: weakly ordered CPUs; cache_prepare_store orders the
		 * re-check), and the DFA's header again, after the policy's
		 * serial: the loader rewrites a reused id's window with serial
		 * 0 first and its fresh serial only after (write_window), so a
		 * state walked with an old header over new words can only be
		 * stored under the old serial or 0, which no later run reads */
		load_fence(pb);
		d = h->file;
		__u32 wxm = 0;
		if (wpc_hit(pb, policy, de, vm, &wxm)) {
			pb_release(pb);
			return xmemo ? wxm : 0;
		}
		cache_use(pb, cache_lookup(pb, policy, vm), de, vm, policy, &d);
	}
	struct named o;
	__u32 base = 0;
	if (cached && pb_flag(&pb->c_hit) == 2) {
		/* what walk_result reads of a dead walk: no whole struct
		 * written twice on the hot path */
		o.w.policy = o.w2.policy = policy;
		o.w.dead = o.w2.dead = 1;
		o.w.fail = o.w2.fail = 0;
		o.worst = 0;
		o.dir = pb_flag(&pb->dir);
	} else {
		/* With the cache, the tokens were read and fenced above, and the
		 * header read after them: the walk's loads come after the
		 * serial's. */
		long pos = build_path(pb, de, vm, 1, cached ? pb_flag(&pb->c_hit) : 0);
		int worst = pos < 0;
		base = worst ? 0 : (__u32)pos;   /* <= POLC_PATH_MAX */
		__u32 n = POLC_PATH_MAX - base, nfull = n, st0 = polc_row(&d, d.start);
		if (cached && pb_flag(&pb->c_hit)) {
			nfull = n + pb_flag(&pb->c_plen);
			if (nfull >= POLC_PATH_MAX ||
			    pb_flag(&pb->steps) + pb_flag(&pb->c_psteps) > POLC_PATH_STEPS)
				worst = 1;   /* as build_path of the whole path */
			st0 = pb_flag(&pb->c_st);
		} else if (cached) {
			cache_prepare_store(pb, pos);
		}
		if (worst)
			base = n = nfull = 0;
		walk_name_from(policy, &d, c0, pb, base, n, nfull, st0, worst, &o, cached);
	}
	__u32 best = named_best(&d, pb, &o);
	/* mode read again from map memory: the value tested above, held across
	 * the walks' bpf_loops, is one 6.1's verifier can lose (see walk_name),
	 * and pruned to 0 it would turn every deny into an audit */
	mode = pb_flag(&h->mode);
	__u32 xm = 0;
	if (pb_flag(&pb->x_open))
		xm = exec_memo_bits(&d, &o, mode);
	if (POLC_DEC_VERDICT(polc_apply_mode(mode, best)) == POLC_V_ALLOW) {
		if (cached && !o.worst)
			wpc_store(pb, policy, xm);
		pb_release(pb);   /* finish() neither counts nor logs an allow */
		return xm;   /* 0 unless xmemo (x_open) */
	}
	const char *detail = o.worst ? 0 : &pb->p[base & (POLC_PATH_MAX - 1)];
	if (cached && pb_flag(&pb->c_hit)) {
		/* the log record carries the whole path */
		long pos = build_path(pb, de, vm, 1, 0);
		detail = pos < 0 ? 0 : &pb->p[(__u32)pos & (POLC_PATH_MAX - 1)];
	}
	__u32 chans = 1u << (pb_flag(&pb->ch0) & 7) | 1u << (pb_flag(&pb->ch1) & 7) |
		      (pb_flag(&pb->xden) ? 1u << POLC_CH_EXEC : 0);
	if (pb_flag(&pb->xwon))
		domain = POLC_D_EXEC;   /* an exec open refused by an exec statement */
	int rc = finish(policy, mode, best, POLC_EV_INFO(domain, chans, 0), detail, 1);
	pb_release(pb);
	return rc;
}

/* A path hook on one object: the dentry `de` on mount `vm`. */
static __always_inline int path_hook(const struct dentry *de, const struct vfsmount *vm,
				     __u32 ch, int dir)
{
	__u32 policy;
	if (!policy_deciding(1u << ch, &policy))
		return 0;
	return decide_obj(policy, de, vm, ch, ch, POLC_D_FILE, dir, 0, 0, 0);
}

/* An open file, mapped or executed: exec statements name the file, so the
 * directory form is only for file channels. f is the hook's own argument
 * (or a field of one): its fields are read directly, not by helper. */
static __always_inline int file_hook(__u32 policy, const struct file *f, __u32 ch,
				     __u32 domain)
{
	return decide_obj(policy, f->f_path.dentry, f->f_path.mnt, ch, ch, domain,
			  domain == POLC_D_FILE ? DIR_ASK : 0, 0, 0, 0);
}

/* Creating, removing, truncating or changing the mode or owner of a file is
 * the write permission (AppArmor: w grants create, delete, setattr, chmod,
 * chown); a new hard link is the link permission on the link's name. */

SEC("lsm/path_mknod")
int BPF_PROG(polc_path_mknod, const struct path *dir, struct dentry *dentry, umode_t mode,
	     unsigned int dev, int ret)
{
	if (ret)
		return ret;
	return path_hook(dentry, dir->mnt, POLC_CH_WRITE, 0);
}

SEC("lsm/path_mkdir")
int BPF_PROG(polc_path_mkdir, const struct path *dir, struct dentry *dentry, umode_t mode,
	     int ret)
{
	if (ret)
		return ret;
	return path_hook(dentry, dir->mnt, POLC_CH_WRITE, 1);
}

SEC("lsm/path_rmdir")
int BPF_PROG(polc_path_rmdir, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return path_hook(dentry, dir->mnt, POLC_CH_WRITE, 1);
}

SEC("lsm/path_unlink")
int BPF_PROG(polc_path_unlink, const struct path *dir, struct dentry *dentry, int ret)
{
	if (ret)
		return ret;
	return path_hook(dentry, dir->mnt, POLC_CH_WRITE, 0);
}

SEC("lsm/path_symlink")
int BPF_PROG(polc_path_symlink, const struct path *dir, struct dentry *dentry,
	     const char *old_name, int ret)
{
	if (ret)
		return ret;
	return path_hook(dentry, dir->mnt, POLC_CH_WRITE, 0);
}

SEC("lsm/path_truncate")
int BPF_PROG(polc_path_truncate, const struct path *path, int ret)
{
	if (ret)
		return ret;
	return path_hook(path->dentry, path->mnt, POLC_CH_WRITE, DIR_ASK);
}

SEC("lsm/path_chmod")
int BPF_PROG(polc_path_chmod, const struct path *path, umode_t mode, int ret)
{
	if (ret)
		return ret;
	return path_hook(path->dentry, path->mnt, POLC_CH_WRITE, DIR_ASK);
}

SEC("lsm/path_chown")
int BPF_PROG(polc_path_chown, const struct path *path, __u64 uid, __u64 gid, int ret)
{
	if (ret)
		return ret;
	return path_hook(path->dentry, path->mnt, POLC_CH_WRITE, DIR_ASK);
}

/* ------------------------------------------------------- new names */

/* rename(2) and link(2) give a file another name, and path statements
 * decide by name: were the new name to allow what the old one denies, a
 * file whose read or exec is denied would be read or run under its new
 * name (renamed, hard-linked, or under a renamed directory above it). So
 * the new name may not allow a use of the content (read, write, append,
 * exec, mmap) that a deny statement denies the old name: AppArmor's link
 * subset rule, here for rename too, for written denies. A renamed directory
 * carries everything beneath it: the file DFA must be in the same state
 * after "new/" as after "old/" (equal states decide every longer path
 * alike), or the rename is refused. */
#define CONTENT_CHANS (1u << POLC_CH_READ | 1u << POLC_CH_WRITE | 1u << POLC_CH_APPEND | \
		       1u << POLC_CH_EXECP | 1u << POLC_CH_MMAP | 1u << POLC_CH_EXEC)

/* A name's decisions and where what lies beneath it starts. */
struct name_decs {
	__u32 dec[POLC_NCHAN];
	__u32 sub;   /* the state after "name/"; SUB_NONE when not walked */
};
#define SUB_SINK 0xfffffffeu   /* past every statement: the defaults */
#define SUB_NONE 0xffffffffu

static __always_inline void name_decs(const struct polc_dfa *d, struct named *o,
				      struct name_decs *nd)
{
#pragma unroll   /* 6.1 refuses a loop whose back-edge follows a helper call */
	for (__u32 ch = 0; ch < POLC_NCHAN; ch++)
		nd->dec[ch] = chan_result(&o->w, &o->w2, d, ch, o->worst, o->dir);
	if (o->worst || !o->dir || o->w2.fail)
		nd->sub = SUB_NONE;
	else
		nd->sub = o->w2.dead ? SUB_SINK : o->w2.st;
}

/* What refuses giving the object named `from` the name `to` (an allow if
 * nothing does): the first content channel `from` denies and `to` does
 * not; for a directory, subtrees that start in different states. *ch: the
 * channel that refused. */
static __always_inline __u32 new_name_refusal(const struct name_decs *from,
					      const struct name_decs *to, int dir, __u32 *ch)
{
	*ch = POLC_CH_WRITE;
	for (__u32 c = 0; c < POLC_NCHAN; c++) {
		if (!(CONTENT_CHANS & (1u << c)))
			continue;
		if (dec_denies(from->dec[c]) && !dec_denies(to->dec[c])) {
			*ch = c;
			return from->dec[c];
		}
	}
	if (dir && (from->sub == SUB_NONE || from->sub != to->sub)) {
		*ch = POLC_CH_READ;
		return deny_all();
	}
	return POLC_DEC(POLC_V_ALLOW, 0, POLC_STMT_DEFAULT);
}

/* The more restrictive of a and b, and its channel. */
static __always_inline __u32 worse(__u32 a, __u32 cha, __u32 b, __u32 chb, __u32 *ch)
{
	if (polc_dec_wins(b, a)) {
		*ch = chb;
		return b;
	}
	*ch = cha;
	return a;
}

/* link: the link channel on the new name, and the new name no wider than
 * the old (a hard link never crosses a mount: EXDEV comes first). */
SEC("lsm/path_link")
int BPF_PROG(polc_path_link, struct dentry *old_dentry, const struct path *new_dir,
	     struct dentry *new_dentry, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), POLC_D_FILE, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	struct polc_dfa d = h->file;
	__u32 mode = h->mode;
	struct pathbuf *pb = pb_claim();
	if (!pb)
		return finish(policy, mode, deny_all(), POLC_D_FILE, 0, 1);
	const struct vfsmount *vm = new_dir->mnt;   /* BTF: build_path reads it directly */
	struct named o;
	struct name_decs from, to;
	long at;
	name_of(policy, &d, c0, pb, old_dentry, vm, 0, &o, &at);
	name_decs(&d, &o, &from);
	name_of(policy, &d, c0, pb, new_dentry, vm, 0, &o, &at);
	name_decs(&d, &o, &to);
	__u32 ch, rch = POLC_CH_LINK;
	__u32 r = new_name_refusal(&from, &to, 0, &rch);
	__u32 best = worse(to.dec[POLC_CH_LINK], POLC_CH_LINK, r, rch, &ch);
	int rc = finish(policy, mode, best, POLC_EV_INFO(POLC_D_FILE, 1u << (ch & 7), 0),
			at < 0 ? 0 : &pb->p[(__u32)at & (POLC_PATH_MAX - 1)], 1);
	pb_release(pb);
	return rc;
}

/* rename: write on the source and on the target (with RENAME_EXCHANGE each
 * is both), and each new name no wider than the old (a rename never
 * crosses a mount); the most restrictive decides. */
SEC("lsm/path_rename")
int BPF_PROG(polc_path_rename, const struct path *old_dir, struct dentry *old_dentry,
	     const struct path *new_dir, struct dentry *new_dentry, unsigned int flags, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), POLC_D_FILE, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	struct polc_dfa d = h->file;
	__u32 mode = h->mode;
	struct pathbuf *pb = pb_claim();
	if (!pb)
		return finish(policy, mode, deny_all(), POLC_D_FILE, 0, 1);
	const struct vfsmount *vm = old_dir->mnt;   /* BTF: build_path reads it directly */
	int odir = dentry_is_dir(old_dentry);
	int ndir = odir || dentry_is_dir(new_dentry);
	int exchange = (flags & RENAME_EXCHANGE_) != 0;
	struct named o;
	struct name_decs from, to;
	long at;
	name_of(policy, &d, c0, pb, old_dentry, vm, odir, &o, &at);
	name_decs(&d, &o, &from);
	pb->save[0] = 0;
	if (at >= 0)
		bpf_probe_read_kernel_str(pb->save, sizeof pb->save,
					  &pb->p[(__u32)at & (POLC_PATH_MAX - 1)]);
	name_of(policy, &d, c0, pb, new_dentry, vm, ndir, &o, &at);
	name_decs(&d, &o, &to);
	__u32 ch, rch = POLC_CH_WRITE;
	__u32 a = from.dec[POLC_CH_WRITE];
	/* asked again, not odir: a value held across the walks' bpf_loops and
	 * tested after them is one 6.1's verifier can lose (see walk_name) */
	__u32 r = new_name_refusal(&from, &to, dentry_is_dir(old_dentry), &rch);
	a = worse(a, POLC_CH_WRITE, r, rch, &ch);
	__u32 b = to.dec[POLC_CH_WRITE], bch = POLC_CH_WRITE;
	if (exchange) {
		r = new_name_refusal(&to, &from, dentry_is_dir(new_dentry), &rch);
		b = worse(b, POLC_CH_WRITE, r, rch, &bch);
	}
	int rc;
	if (polc_dec_wins(b, a))
		rc = finish(policy, mode, b, POLC_EV_INFO(POLC_D_FILE, 1u << (bch & 7), 0),
			    at < 0 ? 0 : &pb->p[(__u32)at & (POLC_PATH_MAX - 1)], 1);
	else
		rc = finish(policy, mode, a, POLC_EV_INFO(POLC_D_FILE, 1u << (ch & 7), 0),
			    pb->save, 1);
	pb_release(pb);
	return rc;
}

SEC("lsm.s/file_open") SELF_PROTECTION
int BPF_PROG(polc_file_open, struct file *file, int ret)
{
	if (ret)
		return ret;
	__u32 fmode = file->f_mode;
	/* every open on the machine passes here: one that cannot leave a
	 * cgroup (no write) and that no policy loaded since the enforcer's
	 * install decides (polc_needs; unreadable: decided) needs no cgroup
	 * lookup. While none decides any file channel (AlwaysAllow's) that
	 * is known before the open's channels are worked out. */
	__u32 z = 0, *loaded = bpf_map_lookup_elem(&polc_needs, &z);
	if (!(fmode & FMODE_WRITE) && loaded && !(*loaded & POLC_FILE_CHANS))
		return 0;
	__u32 flags = file->f_flags;
	__u32 c0, c1;
	/* an exec open: 6.1 marks it in f_flags (__FMODE_EXEC), not f_mode */
	int exec = (fmode & FMODE_EXEC) || (flags & FMODE_EXEC);
	if (exec) {
		/* open_exec: execve's program, a #! script's interpreter, an
		 * ELF program's interpreter (PT_INTERP), uselib. The file's exec
		 * permission, and the exec statements too: load_elf_binary
		 * opens and maps the PT_INTERP file with no exec check (no
		 * bprm_check for it), so a program naming an exec-denied copy
		 * of ld.so would run it. Only a statement's deny counts for
		 * exec here (decide_obj's exec_denies): a closed exec domain's
		 * default would refuse ld.so itself, which allow-lists grant
		 * as a file (exec, mmap) and not as a program; an audit is
		 * logged once, by bprm_check. One walk for both. */
		c0 = c1 = POLC_CH_EXECP;
	} else {
		/* plain assignments, no array filled by an index: clang once
		 * built c[n++] as fp | n << 2, which the 6.1 verifier refuses
		 * (EACCES at load) */
		__u32 wch = (flags & O_APPEND_) ? POLC_CH_APPEND : POLC_CH_WRITE;
		if (fmode & FMODE_READ)
			c0 = POLC_CH_READ;
		else if (fmode & FMODE_WRITE)
			c0 = wch;
		else
			return 0;
		c1 = (fmode & FMODE_WRITE) ? wch : c0;
	}
	__u32 chans = (1u << c0) | (1u << c1) | (exec ? 1u << POLC_CH_EXEC : 0);
	/* or every open but writes under a write-only policy */
	if (!(fmode & FMODE_WRITE) && loaded && !(*loaded & chans))
		return 0;
	__u64 cg = confinement();
	if (!cg)
		return 0;
	if ((fmode & FMODE_WRITE) && packed_needs(cg)) {   /* restricted_current's test */
		__u64 magic = sb_magic(BPF_CORE_READ(file, f_path.dentry, d_sb));
		if ((magic == CGROUP2_SUPER_MAGIC_ || magic == CGROUP_SUPER_MAGIC_) &&
		    migration_file(BPF_CORE_READ(file, f_path.dentry)))
			return -EPERM_;   /* leaving the cgroup: self-protection */
	}
	if (!(packed_needs(cg) & chans))
		return 0;
	__u32 policy = packed_policy(cg);
	if (!exec)
		return decide_obj(policy, file->f_path.dentry, file->f_path.mnt, c0, c1,
				  POLC_D_FILE, DIR_ASK, 0, 0, 1);
	/* an exec open keeps (or drops) the exec memo that bprm_check and
	 * mmap_file read, under the serial read before its decision; a
	 * policy that needs neither reads no memo (a memo names its policy,
	 * whose needs are its own), so none is kept or dropped */
	int xmemo = (packed_needs(cg) & (1u << POLC_CH_MMAP | POLC_NEEDS_BPRM)) != 0;
	__u64 serial = 0;
	if (xmemo) {
		struct polc_fast *f = fast_of(policy);
		serial = f ? f->serial : 0;
	}
	/* an exec open is never of a directory: may_open refuses MAY_EXEC on
	 * one (EACCES) before the open reaches this hook */
	int rc = decide_obj(policy, file->f_path.dentry, file->f_path.mnt, c0, c1,
			    POLC_D_FILE, 0, 1, xmemo, 1);
	if (xmemo)
		exec_memo_set(file, policy, serial, rc > 0 ? (__u32)rc : 0);
	return rc > 0 ? 0 : rc;
}

/* exec_name_may_decide for a hook that reads the exec memo first (an exec
 * open allowed by its name keeps one): a name no path of the exec group is
 * decided by needs no path. */
static __always_inline int exec_name_allowed(__u32 policy, const struct file *f)
{
	struct polc_chunk *c0 = chunk(policy, 0);
	return c0 && !exec_name_may_decide((const struct polc_hdr *)c0->w, f->f_path.dentry,
					   f->f_path.mnt);
}

SEC("lsm.s/mmap_file")
int BPF_PROG(polc_mmap_file, struct file *file, unsigned long reqprot, unsigned long prot,
	     unsigned long flags, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!file || !(prot & PROT_EXEC_) || !policy_deciding(1u << POLC_CH_MMAP, &policy))
		return 0;
	if (exec_memo_hit(policy, file, XM_MMAP) || exec_name_allowed(policy, file))
		return 0;
	/* with the mount-prefix cache: every exec maps its program and
	 * libraries, each a whole path built from its mount's root otherwise */
	return decide_obj(policy, file->f_path.dentry, file->f_path.mnt, POLC_CH_MMAP,
			  POLC_CH_MMAP, POLC_D_FILE, DIR_ASK, 0, 0, 1);
}

/* mprotect adding PROT_EXEC to a file mapping is mapping it executable
 * (AppArmor: file_mprotect is its mmap check too). */
SEC("lsm/file_mprotect")
int BPF_PROG(polc_file_mprotect, struct vm_area_struct *vma, unsigned long reqprot,
	     unsigned long prot, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!(prot & PROT_EXEC_))
		return 0;
	struct file *file = vma->vm_file;
	if (!file || !policy_deciding(1u << POLC_CH_MMAP, &policy))
		return 0;
	return file_hook(policy, file, POLC_CH_MMAP, POLC_D_FILE);
}

SEC("lsm.s/file_lock")
int BPF_PROG(polc_file_lock, struct file *file, unsigned int cmd, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_deciding(1u << POLC_CH_LOCK, &policy))
		return 0;
	return file_hook(policy, file, POLC_CH_LOCK, POLC_D_FILE);
}

SEC("lsm.s/bprm_check_security")
int BPF_PROG(polc_bprm_check, struct linux_binprm *bprm, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	/* attached for a policy whose exec open leaves an exec undecided
	 * (POLC_NEEDS_BPRM); one whose exec decisions are all statements'
	 * denies has each made by the exec open of every program execve runs
	 * (do_open_execat, binfmt_misc's file_clone_open of an F interpreter:
	 * each an open with __FMODE_EXEC, by this task, of this bprm->file) */
	if (!policy_deciding(POLC_NEEDS_BPRM, &policy))
		return 0;
	struct file *f = bprm->file;
	if (!f)
		return 0;
	/* the exec open of this file in this execve walked its path for the
	 * exec channel too (file_open): an allow it found stands (its walk
	 * has the mount-prefix cache; this hook's would build the whole path
	 * again: 1,747 guest instructions an execl in the lab,
	 * bench/raw/hooks-rules1-aslr0.txt) */
	if (exec_memo_hit(policy, f, XM_EXEC) || exec_name_allowed(policy, f))
		return 0;
	return file_hook(policy, f, POLC_CH_EXEC, POLC_D_EXEC);
}

/* ------------------------------------------------------------- mount */

/* Input: op byte, fstype, '\n', target path (bpf_layout.h). The prefix is
 * walked first: the target's path is then built over the same buffer. */
static __always_inline int decide_mount(__u32 policy, __u8 op, const char *fstype,
					const struct dentry *tde, const struct vfsmount *tvm)
{
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), POLC_D_MOUNT, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	struct polc_dfa d = h->mount;
	__u32 mode = h->mode;
	struct pathbuf *pb = pb_claim();
	if (!pb)
		return finish(policy, mode, deny_all(), POLC_D_MOUNT, 0, 1);
	struct walk w = { .policy = policy, .st = polc_row(&d, d.start),
			  .dead_bit = POLC_TRANS_DEAD };
	int worst = 0;
	long fl = 0;
	pb->p[0] = op;
	if (fstype && op == POLC_MOUNT_OP_MOUNT) {
		fl = bpf_probe_read_kernel_str(&pb->p[1], POLC_FSTYPE_MAX + 1, fstype);
		if (fl < 1)
			fl = 1;   /* unreadable: as if empty */
		if (fl > POLC_FSTYPE_MAX)
			worst = 1;   /* fstype of POLC_FSTYPE_MAX bytes or more (eval.c) */
		fl -= 1;
	}
	__u32 off = 1 + ((__u32)fl & 63);
	pb->p[off & 127] = POLC_MOUNT_SEP;
	off = (off + 1) & 127;
	if (!worst)
		walk_bytes(&w, pb, c0, 0, off, 1);
	long pos = -1;
	if (tde && !worst) {
		pos = build_path(pb, tde, tvm, 0, 0);
		if (pos < 0)
			worst = 1;
		else
			walk_bytes(&w, pb, c0, (__u32)pos & (POLC_PATH_MAX - 1),
				   POLC_PATH_MAX - ((__u32)pos & (POLC_PATH_MAX - 1)), 1);
	}
	__u32 dec = walk_result(&w, &d, 0, worst);
	int rc = finish(policy, mode, dec, POLC_D_MOUNT,
			pos < 0 ? 0 : &pb->p[(__u32)pos & (POLC_PATH_MAX - 1)], 1);
	pb_release(pb);
	return rc;
}

SEC("lsm.s/sb_mount")
int BPF_PROG(polc_sb_mount, const char *dev_name, const struct path *path, const char *type,
	     unsigned long flags, void *data, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	return decide_mount(policy, POLC_MOUNT_OP_MOUNT, type, path->dentry, path->mnt);
}

/* move_mount: attaching a tree (open_tree(OPEN_TREE_CLONE), fsmount) or
 * moving one is a mount of that tree's filesystem type on the target. */
SEC("lsm/move_mount")
int BPF_PROG(polc_move_mount, const struct path *from_path, const struct path *to_path, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	const char *fstype = BPF_CORE_READ(from_path, mnt, mnt_sb, s_type, name);
	return decide_mount(policy, POLC_MOUNT_OP_MOUNT, fstype, to_path->dentry,
			    to_path->mnt);
}

SEC("lsm/sb_umount") SELF_PROTECTION
int BPF_PROG(polc_sb_umount, struct vfsmount *mnt, int flags, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!restricted_current(&policy))
		return 0;
	/* self-protection: the pins live in the BPF filesystem's superblock */
	if (sb_magic(BPF_CORE_READ(mnt, mnt_sb)) == BPF_FS_MAGIC_ ||
	    ((flags & MNT_DETACH_) && has_submounts(mnt)))
		return -EPERM_;
	return decide_mount(policy, POLC_MOUNT_OP_UMOUNT, 0, 0, 0);   /* target unseen: classify */
}

SEC("lsm/sb_pivotroot")
int BPF_PROG(polc_sb_pivotroot, const struct path *old_path, const struct path *new_path, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	/* non-sleepable: no bpf_d_path; decided without the target (classify) */
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), POLC_D_MOUNT, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	struct polc_dfa d = h->mount;
	__u32 mode = h->mode;
	struct pathbuf *pb = pb_claim();
	if (!pb)
		return finish(policy, mode, deny_all(), POLC_D_MOUNT, 0, 1);
	pb->p[0] = POLC_MOUNT_OP_PIVOT;
	pb->p[1] = POLC_MOUNT_SEP;
	struct walk w = { .policy = policy, .st = polc_row(&d, d.start),
			  .dead_bit = POLC_TRANS_DEAD };
	walk_bytes(&w, pb, c0, 0, 2, 1);
	__u32 dec = walk_result(&w, &d, 0, 0);
	pb_release(pb);
	return finish(policy, mode, dec, POLC_D_MOUNT, 0, 1);
}

/* -------------------------------------------------- simple decisions */

static __always_inline int decide_word(__u32 policy, __u32 idx, __u64 domain, int log)
{
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), domain, 0, log);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	__u32 mode = h->mode;
	if (idx >= POLC_CHUNK_WORDS)
		return finish(policy, mode, deny_all(), domain, 0, log);
	return finish(policy, mode, c0->w[idx], domain, 0, log);
}

#define HDR_WORD(field) (__builtin_offsetof(struct polc_hdr, field) / 4)

SEC("lsm/capable")
int BPF_PROG(polc_capable, const struct cred *cred, struct user_namespace *ns, int cap,
	     unsigned int opts, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	return decide_word(policy, HDR_WORD(caps) + ((__u32)cap & 63),
			   POLC_EV_INFO(POLC_D_CAP, (__u32)cap & 63, 0), !(opts & CAP_OPT_NOAUDIT));
}

SEC("lsm/ptrace_access_check")
int BPF_PROG(polc_ptrace, struct task_struct *child, unsigned int mode, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	return decide_word(policy, HDR_WORD(ptrace) + ((mode & PTRACE_MODE_ATTACH) ? 1 : 0),
			   POLC_D_PTRACE, 1);
}

SEC("lsm/task_kill")
int BPF_PROG(polc_task_kill, struct task_struct *p, struct kernel_siginfo *info, int sig,
	     const struct cred *cred, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	return decide_word(policy, HDR_WORD(signal), POLC_D_SIGNAL, 1);
}

/* ------------------------------------------------------------ network */

struct netwalk {
	__u32 policy, net, best, hit, fail;
	struct polc_net_ev ev;
};

static long net_step(__u64 i, void *vctx)
{
	struct netwalk *x = vctx;
	__u32 at = x->net + (__u32)i * POLC_NET_WORDS;
	struct polc_chunk *c = chunk(x->policy, at);
	if (!c) {
		x->fail = 1;
		return 1;
	}
	const __u32 *r = &c->w[at & (POLC_CHUNK_WORDS - POLC_NET_WORDS)];
	if (polc_net_match(r, &x->ev) && (!x->hit || polc_dec_wins(r[7], x->best))) {
		x->best = r[7];
		x->hit = 1;
	}
	return 0;
}

/* The address of an operation on a socket, e's op and family set: read as
 * the kernel reads it (polc_addr_family), the event's family then
 * polc_event_family's. */
static __always_inline void read_addr(struct polc_net_ev *e, const struct sockaddr *sa)
{
	__u16 sa_fam = 0;
	if (!sa)
		return;
	bpf_probe_read_kernel(&sa_fam, sizeof sa_fam, &sa->sa_family);
	__u32 fam = polc_addr_family(e->family, e->op, sa_fam);
	e->family = polc_event_family(e->family, fam, sa_fam);
	if (fam == POLC_AF_INET) {
		struct sockaddr_in in;
		bpf_probe_read_kernel(&in, sizeof in, sa);
		__builtin_memcpy(e->addr, &in.sin_addr, 4);
		e->port = bpf_ntohs(in.sin_port);
		e->has_addr = 1;
	} else if (fam == POLC_AF_INET6) {
		struct sockaddr_in6 in6;
		bpf_probe_read_kernel(&in6, sizeof in6, sa);
		__builtin_memcpy(e->addr, &in6.sin6_addr, 16);
		e->port = bpf_ntohs(in6.sin6_port);
		e->has_addr = 1;
	}
	polc_net_normalise(e);
}

static __always_inline int decide_net(__u32 policy, struct netwalk *x)
{
	struct polc_chunk *c0 = chunk(policy, 0);
	if (!c0)
		return finish(policy, 0, deny_all(), POLC_D_NET, 0, 1);
	struct polc_hdr *h = (struct polc_hdr *)c0->w;
	__u32 mode = h->mode, nnet = h->nnet;
	x->policy = policy;
	x->net = h->net;
	x->best = h->defaults[POLC_D_NET];
	if (nnet > POLC_MAX_NET)
		nnet = POLC_MAX_NET;
	bpf_loop(nnet, net_step, x, 0);
	__u64 info = POLC_EV_INFO(POLC_D_NET, POLC_EV_NET(x->ev.op, x->ev.type, x->ev.family),
				  x->ev.has_addr ? (x->ev.port & 0xffff) | POLC_EV_PORT : 0);
	return finish(policy, mode, x->fail ? deny_all() : x->best, info, 0, 1);
}

/* The hook's socket, read by plain loads (its BTF pointer: a faulting load
 * gives 0), not bpf_probe_read_kernel: ~100 guest instructions each, four
 * of them on every reply a confined server writes (lab redis). */
static __always_inline void sock_ev(struct netwalk *x, struct socket *sock, __u32 op)
{
	struct sock *sk = sock->sk;
	x->ev.op = op;
	x->ev.type = (__u16)sock->type;
	if (sk) {
		x->ev.family = sk->__sk_common.skc_family;
		x->ev.protocol = sk->sk_protocol;
	}
}

static __always_inline __u32 sock_family(struct socket *sock)
{
	struct sock *sk = sock->sk;
	return sk ? sk->__sk_common.skc_family : 0;   /* sock_ev's, as it reads it */
}

/* Can a policy loaded since the install decide a send without an address
 * on a socket of this family (polc_sends; unreadable or a family past it:
 * yes)? */
static __always_inline int loaded_send_decided(__u32 family)
{
	__u32 z = 0;
	__u64 *dec = bpf_map_lookup_elem(&polc_sends, &z);
	if (!dec || family >= 64)
		return 1;
	return (*dec >> family) & 1;
}

/* Is every send without an address on a socket of this family allowed by
 * the policy? Its header's send_open (bpf_layout.h), derived at build time
 * from ir_decide: then deciding it would give an allow, which is neither
 * counted nor logged. No window, or a clear bit: decide it. */
static __always_inline int send_open(__u32 policy, __u32 family)
{
	struct polc_fast *f = fast_of(policy);
	if (!f || family >= 64)
		return 0;
	barrier_var(f);
	const struct polc_hdr *h = (const struct polc_hdr *)f->w;
	return (h->send_open[family >> 5] >> (family & 31)) & 1;
}

SEC("lsm/socket_create")
int BPF_PROG(polc_socket_create, int family, int type, int protocol, int kern, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (kern || !policy_of_current(&policy))
		return 0;
	struct netwalk x = { .ev = { .op = POLC_NET_CREATE, .family = family, .type = type,
				     .protocol = protocol } };
	return decide_net(policy, &x);
}

SEC("lsm/socket_connect")
int BPF_PROG(polc_socket_connect, struct socket *sock, struct sockaddr *address, int addrlen,
	     int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_CONNECT);
	read_addr(&x.ev, address);
	return decide_net(policy, &x);
}

SEC("lsm/socket_bind")
int BPF_PROG(polc_socket_bind, struct socket *sock, struct sockaddr *address, int addrlen,
	     int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_BIND);
	read_addr(&x.ev, address);
	return decide_net(policy, &x);
}

SEC("lsm/socket_listen")
int BPF_PROG(polc_socket_listen, struct socket *sock, int backlog, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_LISTEN);
	return decide_net(policy, &x);
}

SEC("lsm/socket_accept")
int BPF_PROG(polc_socket_accept, struct socket *sock, struct socket *newsock, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	if (!policy_of_current(&policy))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_ACCEPT);
	return decide_net(policy, &x);
}

/* A one-to-many SCTP sendmsg that starts an association adds each
 * SCTP_DSTADDRV4/V6 cmsg's address as a peer of it (6.1
 * sctp_sendmsg_new_asoc: sctp_connect_add_peer, no LSM call;
 * security_sctp_bind_connect sees only msg_name): each is a connect to that
 * address at the destination's port. The control buffer is the kernel's
 * copy (____sys_sendmsg) or, where msg_control_is_user (io_uring), the
 * caller's. A buffer with more than CMSGS_MAX messages is refused. */
#define IPPROTO_SCTP_ 132
#define SCTP_DSTADDRV4_ 7
#define SCTP_DSTADDRV6_ 8
#define CMSGS_MAX 16

struct cmsg_walk {
	const char *ctl;
	__u64 off, len;
	__u32 policy, user, done;
	int rc;
	struct polc_net_ev dst;   /* the send's destination: type, protocol, port */
};

static __always_inline long ctl_read(struct cmsg_walk *c, void *to, __u32 n, __u64 off)
{
	const char *at = c->ctl + off;
	return c->user ? bpf_probe_read_user(to, n, at) : bpf_probe_read_kernel(to, n, at);
}

static long cmsg_step(__u64 i, void *vctx)
{
	struct cmsg_walk *c = vctx;
	struct { __u64 len; int level, type; } h = {};   /* struct cmsghdr */
	if (c->off + sizeof h > c->len || ctl_read(c, &h, sizeof h, c->off) ||
	    h.len < sizeof h || h.len > c->len - c->off) {
		c->done = 1;   /* the end, or what the kernel refuses (EINVAL) */
		return 1;
	}
	if (h.level == IPPROTO_SCTP_ && (h.type == SCTP_DSTADDRV4_ || h.type == SCTP_DSTADDRV6_)) {
		struct netwalk x = { .ev = c->dst };
		x.ev.op = POLC_NET_CONNECT;
		__builtin_memset(x.ev.addr, 0, sizeof x.ev.addr);
		if (h.type == SCTP_DSTADDRV4_) {
			x.ev.family = POLC_AF_INET;
			x.ev.has_addr = h.len >= sizeof h + 4 && !ctl_read(c, x.ev.addr, 4, c->off + sizeof h);
		} else {
			x.ev.family = POLC_AF_INET6;
			x.ev.has_addr = h.len >= sizeof h + 16 && !ctl_read(c, x.ev.addr, 16, c->off + sizeof h);
		}
		if (x.ev.has_addr) {   /* else the kernel refuses it (EINVAL) */
			polc_net_normalise(&x.ev);
			c->rc = decide_net(c->policy, &x);
			if (c->rc)
				return 1;
		}
	}
	c->off += (h.len + 7) & ~7ull;   /* CMSG_ALIGN */
	return 0;
}

static __always_inline int sctp_dstaddrs(__u32 policy, const struct polc_net_ev *dst,
					 struct msghdr *msg)
{
	struct cmsg_walk c = { .policy = policy, .dst = *dst };
	c.len = BPF_CORE_READ(msg, msg_controllen);
	if (!c.len)
		return 0;
	c.ctl = BPF_CORE_READ(msg, msg_control);
	c.user = BPF_CORE_READ_BITFIELD_PROBED(msg, msg_control_is_user);
	bpf_loop(CMSGS_MAX + 1, cmsg_step, &c, 0);
	if (c.rc || c.done)
		return c.rc;
	struct netwalk x = { .ev = { .op = POLC_NET_CONNECT }, .fail = 1 };   /* fail closed */
	return decide_net(policy, &x);
}

SEC("lsm/socket_sendmsg")
int BPF_PROG(polc_socket_sendmsg, struct socket *sock, struct msghdr *msg, int size, int ret)
{
	__u32 policy;
	if (ret)
		return ret;
	int named = msg->msg_namelen >= 2;   /* 0: msg_name is stale */
	__u32 family = sock_family(sock);
	if (!named && !loaded_send_decided(family))
		return 0;
	if (!policy_of_current(&policy))
		return 0;
	if (!named && send_open(policy, family))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_SEND);
	if (named)
		read_addr(&x.ev, msg->msg_name);
	int r = decide_net(policy, &x);
	if (r || !x.ev.has_addr)
		return r;
	/* an address given with the data gives the socket that peer: a connect */
	struct netwalk c = { .ev = x.ev };
	c.ev.op = POLC_NET_CONNECT;
	r = decide_net(policy, &c);
	if (r || x.ev.protocol != IPPROTO_SCTP_)
		return r;
	return sctp_dstaddrs(policy, &x.ev, msg);
}

/* A write into a socket's file, which sendfile(2) and splice(2) check
 * (rw_verify_area) before reaching the socket's sendpage, where 6.1 calls
 * no security_socket_sendmsg: decided as a send without an address. A
 * write(2) passes here before socket_sendmsg, which decides it again (a
 * deny refuses it here first). Attached only for a policy that decides
 * such sends (POLC_NEEDS_SPLICE): every read and write on the machine runs
 * it. */
SEC("lsm/file_permission")
int BPF_PROG(polc_file_permission, struct file *file, int mask, int ret)
{
	if (ret || !(mask & MAY_WRITE_))
		return ret;
	const struct inode *ino = file->f_inode;
	if (!ino || (ino->i_mode & S_IFMT_) != S_IFSOCK_)
		return 0;
	struct socket *sock = bpf_sock_from_file(file);
	if (!sock)
		return 0;
	__u32 family = sock_family(sock), policy;
	if (!loaded_send_decided(family) || !policy_of_current(&policy) ||
	    send_open(policy, family))
		return 0;
	struct netwalk x = {};
	sock_ev(&x, sock, POLC_NET_SEND);
	return decide_net(policy, &x);
}

/* SCTP's other doors to an address (net/sctp/socket.c, 6.1): each calls
 * only security_sctp_bind_connect(sk, optname, addrs, len), never
 * socket_connect or socket_bind. A connect to the address: setsockopt
 * SCTP_SOCKOPT_CONNECTX (its _OLD and CONNECTX3 forms pass the same
 * optname) starts an association to a packed list; a one-to-many sendmsg's
 * new association (SCTP_SENDMSG_CONNECT: its destination and each
 * SCTP_DSTADDRV4/V6 cmsg); SCTP_PRIMARY_ADDR makes a peer's address the
 * one data goes to. A bind: SCTP_SOCKOPT_BINDX_ADD (a packed list) and
 * SCTP_SET_PEER_PRIMARY_ADDR (a local address). Each address is decided as
 * that connect or bind (sockaddr_in 16 bytes, sockaddr_in6 28, as the
 * kernel walks the list; another family ends the walk: the kernel refuses
 * the call with EINVAL). A list longer than SCTP_ADDRS_MAX is refused
 * (fail closed). SCTP_PARAM_ADD_IP and SCTP_PARAM_SET_PRIMARY come from a
 * peer's ASCONF chunk, in softirq: not the current task's act, not decided
 * (docs/language.md). */
#define SCTP_SET_PEER_PRIMARY_ADDR_ 5
#define SCTP_PRIMARY_ADDR_ 6
#define SCTP_SOCKOPT_BINDX_ADD_ 100
#define SCTP_SOCKOPT_CONNECTX_ 110
#define SCTP_SENDMSG_CONNECT_ 126
#define SCTP_ADDRS_MAX 8

/* One address of an SCTP list a step (bpf_loop: the 6.1 verifier checks
 * the step once; a loop written out took it past its 1M instructions).
 * done: the list ended (every address decided); rc: a refusal. */
struct sctp_walk {
	const char *list;
	__u32 policy, op, off, len, done;
	int rc;
	__u16 type, protocol;
};

static long sctp_step(__u64 i, void *vctx)
{
	struct sctp_walk *s = vctx;
	__u16 fam = 0;
	if (s->off + sizeof fam > s->len) {
		s->done = 1;
		return 1;
	}
	bpf_probe_read_kernel(&fam, sizeof fam, s->list + s->off);
	if (fam != POLC_AF_INET && fam != POLC_AF_INET6) {
		s->done = 1;
		return 1;
	}
	/* the address's family, not the socket's: an AF_INET6 SCTP socket
	 * takes IPv4 addresses in its lists (the traffic is IPv4) */
	struct netwalk x = { .ev = { .op = s->op, .type = s->type, .family = fam,
				     .protocol = s->protocol } };
	read_addr(&x.ev, (const struct sockaddr *)(s->list + s->off));
	s->rc = decide_net(s->policy, &x);
	s->off += fam == POLC_AF_INET ? 16 : 28;
	return s->rc ? 1 : 0;
}

SEC("lsm/sctp_bind_connect")
int BPF_PROG(polc_sctp_bind_connect, struct sock *sk, int optname, struct sockaddr *address,
	     int addrlen, int ret)
{
	__u32 policy, op;
	if (ret)
		return ret;
	if (optname == SCTP_SOCKOPT_CONNECTX_ || optname == SCTP_SENDMSG_CONNECT_ ||
	    optname == SCTP_PRIMARY_ADDR_)
		op = POLC_NET_CONNECT;
	else if (optname == SCTP_SOCKOPT_BINDX_ADD_ || optname == SCTP_SET_PEER_PRIMARY_ADDR_)
		op = POLC_NET_BIND;
	else
		return 0;
	if (!policy_of_current(&policy))
		return 0;
	struct sctp_walk s = { .list = (const char *)address, .policy = policy, .op = op,
			       .len = addrlen > 0 ? (__u32)addrlen : 0 };
	s.type = BPF_CORE_READ(sk, sk_type);
	s.protocol = BPF_CORE_READ(sk, sk_protocol);
	bpf_loop(SCTP_ADDRS_MAX + 1, sctp_step, &s, 0);
	if (s.rc || s.done)
		return s.rc;
	struct netwalk x = { .ev = { .op = op }, .fail = 1 };   /* too many: fail closed */
	return decide_net(policy, &x);
}
