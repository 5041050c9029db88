/* trace_bpf.h - the eBPF tracer's map layouts, shared by the kernel program
 * (tracer/polc_trace.bpf.c) and its userspace reader (tracer/ebpf.c) so the
 * two cannot drift. Plain fixed-size types only.
 */
#ifndef POLC_TRACE_BPF_H
#define POLC_TRACE_BPF_H

#define TB_PATH 256            /* bytes of a path in a key (with NUL) */
#define TB_NCOUNT 1024         /* syscall counters: x86_64 0..511, x32 512.. */
#define TB_NEVENTS 65536       /* distinct events kept */
#define TB_NINFLIGHT 16384     /* threads inside a decoded syscall */

/* Event kinds. */
/* TB_CAP: a call of sysevents.def's SE_CAP list; perm is its number. */
enum { TB_FILE = 1, TB_EXEC = 2, TB_NET = 3, TB_MOUNT = 4, TB_CAP = 5 };
/* File perms (bit per trace perm). */
enum { TBP_READ = 1, TBP_WRITE = 2, TBP_APPEND = 4, TBP_EXEC = 8, TBP_MMAP = 16,
       TBP_LINK = 32, TBP_LOCK = 64, TBP_STAT = 128,
       TBP_FOLLOW = 256, /* not a perm: the last component is followed */
       TBP_TMPFILE = 512 /* not a perm, never leaves the kernel: an O_TMPFILE
                            open, named at exit by its new file (DIR/#INODE) */ };
/* Network operations. */
enum { TBN_CREATE = 1, TBN_BIND, TBN_CONNECT, TBN_LISTEN, TBN_ACCEPT, TBN_SEND };
/* Mount operations. */
enum { TBM_MOUNT = 1, TBM_UMOUNT, TBM_PIVOT };

/* Reasons an event was not recorded (index into the lost map). */
enum { TBL_EVENTS_FULL, TBL_INFLIGHT_FULL, TBL_PATH_LONG, TBL_PATH_DEEP,
       TBL_READ_FAULT, TBL_COUNT_RANGE, TBL_N };

/* One distinct event; the value is its count (u64). A path is base + "/" +
 * path when base is set (a relative path and the dir it is relative to),
 * else path alone. */
struct tb_key {
	unsigned int kind, perm;       /* perm: TBP_* (file), TBN_* (net), TBM_* */
	int result;                    /* 0 or -errno; 1: not yet known */
	unsigned short family, port;   /* net */
	unsigned short type, proto;    /* net socket type and protocol */
	unsigned char addr[16];        /* net, network byte order */
	char fstype[32];               /* mount */
	char base[TB_PATH];
	char path[TB_PATH];
};

/* A thread inside a decoded syscall: keys built at entry, completed at exit. */
struct tb_inflight {
	unsigned int nkeys;
	unsigned int nr;
	/* A user string not resident at entry (a page not yet touched) is read
	 * again at exit, once the kernel has faulted it in: its address. */
	unsigned long long upath[2];
	struct tb_key key[2];
};

/* Per-CPU scratch for building keys and paths. */
struct tb_scratch {
	unsigned long long names[32];
	struct tb_inflight in;
};

#endif
