/* bpf_layout.h - the map layout shared by the enforcer program
 * (enforcer.bpf.c) and the userspace writer, evaluator and loader.
 *
 * Takes: nothing (constants, structs and small inline functions).
 * Gives: the one definition of a policy "blob": an array of u32 words split
 *        into chunks of POLC_CHUNK_WORDS, stored in the polc_blob hash map
 *        under {policy id, chunk index}. Chunk 0 starts with polc_hdr and
 *        holds the byte-class tables; the rest are DFA transitions, per-state
 *        accept words, accept entries and network rules at word offsets named
 *        in the header. The first POLC_FAST_WORDS words are also the policy's
 *        value in the polc_fast array map (indexed by policy id), which the
 *        program reads by plain pointer arithmetic; words beyond that window
 *        are read from their chunk. Decisions are single u32 words (POLC_DEC_*).
 *        polc_net_match() is compiled into both the kernel program and the
 *        userspace evaluator, so the two cannot disagree.
 * Promises: every offset in a valid blob is checked against blob_words by
 *        the writer; the program additionally bounds every index it uses.
 *        Bump POLC_BLOB_VERSION whenever anything here changes.
 */
#ifndef POLC_BPF_LAYOUT_H
#define POLC_BPF_LAYOUT_H

#if defined(__bpf__)
/* vmlinux.h supplies __u8.. __u64 */
#else
#include <linux/types.h>
#endif

#define POLC_BLOB_VERSION 9u   /* 4: the polc_fast window; 5: send_open;
				  6: transitions name rows (polc_row);
				  7: dead bits per channel group;
				  8: the exec group holds mmap;
				  9: chan_open, exec_lens */
#define POLC_BLOB_MAGIC 0x504c4342u          /* "PLCB" */

#define POLC_CHUNK_WORDS 1024u                /* one map value: 4 KiB */
#define POLC_CHUNK_SHIFT 10u
#define POLC_MAX_CHUNKS 65536u                /* polc_blob max_entries */
#define POLC_MAX_BLOB_WORDS (1u << 26)        /* 256 MiB: writer refuses more */
#define POLC_FAST_WORDS 32768u                /* the window: 128 KiB a policy, a
                                                 multiple of POLC_CHUNK_WORDS */

#define POLC_PATH_MAX 4096u                   /* longest path walked exactly */
#define POLC_PATH_STEPS 4096u                 /* names + mount crossings when a path
                                                 is built without bpf_d_path */
#define POLC_MAX_STATES 4000000u              /* per DFA, compile-time check; the
                                                 blob (POLC_MAX_BLOB_WORDS) bounds
                                                 states x byte classes as well */
#define POLC_MAX_ENTRIES (POLC_MAX_STATES + 2u) /* distinct accept entries per DFA:
                                                 one per state, the defaults and the
                                                 worst entry at most */
#define POLC_MAX_STMTS 262142u                /* statements per policy: an 18-bit
                                                 field, POLC_STMT_DEFAULT excluded */
#define POLC_MAX_NET POLC_MAX_STMTS           /* network rules per policy: each is a
                                                 statement; the program walks them
                                                 with bpf_loop */
#define POLC_MAX_POLICIES 64u                 /* loaded at once */
#define POLC_CGROUP_DEPTH 16u                 /* ancestor levels searched */
#define POLC_PBUF_SHARED 8u                   /* path buffers any CPU may take; the
                                                 loader adds two per possible CPU */

/* ---- decision words: [31:30] verdict, [29:18] errno, [17:0] statement ----
 * An errno is 1..4095 (the language's range, the kernel's MAX_ERRNO), so 12
 * bits hold it and 18 name up to POLC_MAX_STMTS statements. */
#define POLC_V_ALLOW 0u
#define POLC_V_AUDIT 1u
#define POLC_V_DENY 2u
#define POLC_V_KILL 3u                        /* kill: a deny that ranks higher */
#define POLC_STMT_DEFAULT 0x3ffffu
#define POLC_DEC(v, err, stmt) (((__u32)(v) << 30) | (((__u32)(err) & 0xfffu) << 18) | ((__u32)(stmt) & 0x3ffffu))
#define POLC_DEC_VERDICT(d) ((__u32)(d) >> 30)
#define POLC_DEC_ERR(d) (((__u32)(d) >> 18) & 0xfffu)
#define POLC_DEC_STMT(d) ((__u32)(d) & 0x3ffffu)

/* Is decision a more restrictive than b? Ties: the earlier statement
 * (smaller index) wins, as in ir_decide. */
static inline int polc_dec_wins(__u32 a, __u32 b)
{
	if (POLC_DEC_VERDICT(a) != POLC_DEC_VERDICT(b))
		return POLC_DEC_VERDICT(a) > POLC_DEC_VERDICT(b);
	return POLC_DEC_STMT(a) < POLC_DEC_STMT(b);
}

/* Decisions are stored with the statement's own verdict (ir_decide ranks
 * those); `mode audit` turns deny and kill into audit only at the end. */
static inline __u32 polc_apply_mode(__u32 mode, __u32 d)
{
	if (mode && POLC_DEC_VERDICT(d) >= POLC_V_DENY)
		return POLC_DEC(POLC_V_AUDIT, 0, POLC_DEC_STMT(d));
	return d;
}

/* ---- path channels of the file DFA (one decision per channel) ---- */
enum {
	POLC_CH_READ, POLC_CH_WRITE, POLC_CH_APPEND, POLC_CH_EXECP, POLC_CH_MMAP,
	POLC_CH_LINK, POLC_CH_LOCK,   /* file statements, one per IR_PERM_* bit */
	POLC_CH_EXEC,                 /* exec statements (bprm_check_security) */
	POLC_NCHAN
};

/* ---- domains (same order as ir_domain) ---- */
enum {
	POLC_D_SYSCALL, POLC_D_FILE, POLC_D_EXEC, POLC_D_CAP, POLC_D_MOUNT,
	POLC_D_NET, POLC_D_PTRACE, POLC_D_SIGNAL, POLC_ND
};

/* A DFA in the blob. State s's row of transitions starts at word
 * polc_row(d, s) = trans + s * ncls, and its transition on byte c is the
 * word W[polc_row(d, s) + cls[c]]: the row of the target state (not its
 * number), so a walk's state is a row and each byte costs an add and a
 * load, no multiply (enforcer.bpf.c: walk_step).
 * W[accept + s]: bits 0..27 index the accept entry of s (entries are
 * nchan decision words at W[entries + i * nchan]). Entry 0 is the all-default
 * entry. Bit 31 of W[accept + s] ("dead") says only entry 0 is reachable
 * from s; transition words into such a state carry POLC_TRANS_DEAD, so the
 * walk stops early. A transition word's low bits (POLC_TRANS_ROW) are the
 * row; bits 28..30 say the target is dead for a group of channels: from
 * it, every reachable state's entry decides the group's channels as entry
 * 0 does (the file DFA's; set with bit 31; polc_dead_groups), so a walk
 * asking only those channels stops there too (an open for reading under a
 * policy whose `**` rules all deny writes stops after the first byte that
 * no read rule can follow). `start` is a state number. `worst` indexes the
 * entry of the most restrictive decision reachable from start, which
 * decides a path of POLC_PATH_MAX bytes or more (fail closed); the program
 * has it from the header it already holds. */
#define POLC_TRANS_DEAD 0x80000000u   /* in a transition word: target is dead */
#define POLC_TRANS_DEAD_READ 0x40000000u   /* dead for POLC_CH_READ */
#define POLC_TRANS_DEAD_MMAP 0x20000000u   /* dead for POLC_CH_MMAP */
#define POLC_TRANS_DEAD_EXEC 0x10000000u   /* dead for POLC_CH_EXECP, POLC_CH_EXEC and
					      POLC_CH_MMAP: an exec open's walk
					      decides the program's mapping too */
#define POLC_TRANS_ROW 0x03ffffffu   /* the row: below POLC_MAX_BLOB_WORDS */
#define POLC_ACC_DEAD 0x80000000u     /* in an accept word: only entry 0 reachable */
/* An accept word's bits 28..31 are its state's own dead bits, those a
 * transition into it carries (a cached state is asked without a walk). */
#define POLC_ACC_DEAD_BITS 0xf0000000u
#define POLC_ACC_ENTRY(a) ((a) & 0x0fffffffu)
_Static_assert(POLC_MAX_ENTRIES <= 0x0fffffffu, "accept entries below the dead bits");
_Static_assert(POLC_ACC_DEAD_BITS == (POLC_TRANS_DEAD | POLC_TRANS_DEAD_READ |
				      POLC_TRANS_DEAD_MMAP | POLC_TRANS_DEAD_EXEC),
	       "an accept word's dead bits are a transition's");
struct polc_dfa {
	__u32 nstates, ncls, nchan, nentries;
	__u32 trans, accept, entries;  /* word offsets */
	__u32 start, worst;
};

/* The row of state s, and the state of a row (the writer checks that each
 * transition word's row is one). */
static inline __u32 polc_row(const struct polc_dfa *d, __u32 s)
{
	return d->trans + s * d->ncls;
}

static inline __u32 polc_row_state(const struct polc_dfa *d, __u32 row)
{
	return d->ncls ? (row - d->trans) / d->ncls : 0;
}

/* The exec group's channels: an exec open decides the exec permission and
 * (its deny statements) exec, and the kernel maps the program it opened
 * right after, in the same execve, which the enforcer then decides from the
 * open's walk (enforcer.bpf.c: the exec memo). */
#define POLC_EXEC_GROUP (1u << POLC_CH_EXECP | 1u << POLC_CH_EXEC | 1u << POLC_CH_MMAP)

/* The dead bit a walk asking channels `chans` (1 << POLC_CH_*) stops on:
 * the one group's that holds them all, else POLC_TRANS_DEAD. */
static inline __u32 polc_dead_bit(__u32 chans)
{
	if (!(chans & ~(1u << POLC_CH_READ)))
		return POLC_TRANS_DEAD_READ;
	if (!(chans & ~(1u << POLC_CH_MMAP)))
		return POLC_TRANS_DEAD_MMAP;
	if (!(chans & ~POLC_EXEC_GROUP))
		return POLC_TRANS_DEAD_EXEC;
	return POLC_TRANS_DEAD;
}

/* The dead bits of a state from the channels live in it (bit c: some state
 * reachable from it, itself included, decides channel c otherwise than
 * entry 0): the file DFA's transition words carry these of their target. */
static inline __u32 polc_dead_bits(__u32 live)
{
	__u32 b = 0;
	if (!live)
		b |= POLC_TRANS_DEAD;
	if (!(live & (1u << POLC_CH_READ)))
		b |= POLC_TRANS_DEAD_READ;
	if (!(live & (1u << POLC_CH_MMAP)))
		b |= POLC_TRANS_DEAD_MMAP;
	if (!(live & POLC_EXEC_GROUP))
		b |= POLC_TRANS_DEAD_EXEC;
	return b;
}

/* Mount DFA input: op byte, fstype, '\n', target path. */
#define POLC_MOUNT_OP_MOUNT 'm'
#define POLC_MOUNT_OP_UMOUNT 'u'
#define POLC_MOUNT_OP_PIVOT 'p'
#define POLC_MOUNT_SEP '\n'
#define POLC_FSTYPE_MAX 64u

/* ---- network rules: POLC_NET_WORDS words each, in statement order ---- */
#define POLC_NET_WORDS 8u
/* w0: op | family << 8 | proto << 16 | flags << 24
 * w1: prefix (bits) | address family << 8
 * w2..w5: address, network byte order (first 4 bytes for IPv4)
 * w6: port_lo | port_hi << 16 (host order)
 * w7: decision word */
#define POLC_NETF_ADDR 1u
#define POLC_NETF_PORT 2u

/* Operation and protocol numbers: the same values as ir_net_op/ir_net_proto. */
enum { POLC_NET_ANYOP, POLC_NET_CONNECT, POLC_NET_BIND, POLC_NET_LISTEN,
       POLC_NET_ACCEPT, POLC_NET_SEND, POLC_NET_CREATE };
enum { POLC_PROTO_ANY, POLC_PROTO_TCP, POLC_PROTO_UDP, POLC_PROTO_RAW,
       POLC_PROTO_ICMP };

struct polc_net_ev {
	__u32 op, family, type, protocol;
	__u32 has_addr;
	__u8 addr[16];
	__u32 port;
};

#define POLC_AF_INET 2
#define POLC_AF_INET6 10
#define POLC_SOCK_STREAM 1
#define POLC_SOCK_DGRAM 2
#define POLC_SOCK_RAW 3
#define POLC_IPPROTO_ICMP 1
#define POLC_IPPROTO_TCP 6
#define POLC_IPPROTO_MPTCP 262
#define POLC_IPPROTO_UDP 17
#define POLC_IPPROTO_ICMPV6 58

/* The family 6.1 reads an address given to an operation op on a socket of
 * family sock_fam as (0: none), from its sa_family. An IPv4 socket's send
 * or bind address is a sockaddr_in whatever sa_family says: udp_sendmsg,
 * raw_sendmsg and l2tp_ip_sendmsg take AF_UNSPEC as AF_INET, inet_bind
 * does with INADDR_ANY, raw_bind reads no family, and the rest refuse the
 * call. An IPv6 socket's AF_UNSPEC is IPv6 to rawv6_sendmsg and
 * l2tp_ip6_sendmsg (udpv6_sendmsg takes it as no address: deciding the
 * bytes given fails closed), and a sockaddr_in sends or connects over
 * IPv4 (udpv6_sendmsg, ip6_datagram_connect). A connect's AF_UNSPEC is a
 * disconnect. */
static inline __u32 polc_addr_family(__u32 sock_fam, __u32 op, __u32 sa_fam)
{
	if (op != POLC_NET_CONNECT && sock_fam == POLC_AF_INET)
		return POLC_AF_INET;
	if (op != POLC_NET_CONNECT && sock_fam == POLC_AF_INET6 && sa_fam == 0)
		return POLC_AF_INET6;
	return sa_fam == POLC_AF_INET || sa_fam == POLC_AF_INET6 ? sa_fam : 0;
}

/* The family of the event an operation with an address makes, addr_fam
 * being polc_addr_family's answer: an IP socket's traffic goes where the
 * address the kernel reads says (an IPv6 socket given a sockaddr_in sends
 * IPv4), so its event takes that family when there is one; any other
 * socket keeps its own. A socket of family 0 is one a recorder could not
 * read: the address's own sa_family is the best it has. The enforcer and
 * both recorders decide an event's family here, so that an allow-list
 * made from a record names what the enforcer will be asked. */
static inline __u32 polc_event_family(__u32 sock_fam, __u32 addr_fam, __u32 sa_fam)
{
	if (sock_fam && sock_fam != POLC_AF_INET && sock_fam != POLC_AF_INET6)
		return sock_fam;
	return addr_fam ? addr_fam : sock_fam ? sock_fam : sa_fam;
}

/* An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address a.b.c.d
 * (family inet): a dual-stack socket sends to that IPv4 peer, so a statement
 * on the IPv4 address must decide it (LANGUAGE.md). */
static inline void polc_net_normalise(struct polc_net_ev *e)
{
	int i;
	if (!e->has_addr || e->family != POLC_AF_INET6)
		return;
	for (i = 0; i < 10; i++)
		if (e->addr[i])
			return;
	if (e->addr[10] != 0xff || e->addr[11] != 0xff)
		return;
	e->family = POLC_AF_INET;
	for (i = 0; i < 4; i++)
		e->addr[i] = e->addr[12 + i];
	for (i = 4; i < 16; i++)
		e->addr[i] = 0;
}

/* Does an event's socket have protocol p? A stream socket with protocol 0
 * is TCP (inet families), a datagram socket with protocol 0 UDP; MPTCP is
 * TCP (ir_decide's proto_matches says why). */
static inline int polc_proto_is(__u32 p, const struct polc_net_ev *e)
{
	__u32 type = e->type & 0xf;   /* drop SOCK_NONBLOCK / SOCK_CLOEXEC */
	int inet = e->family == POLC_AF_INET || e->family == POLC_AF_INET6;
	switch (p) {
	case POLC_PROTO_ANY:
		return 1;
	case POLC_PROTO_TCP:
		return inet && type == POLC_SOCK_STREAM &&
		       (e->protocol == 0 || e->protocol == POLC_IPPROTO_TCP ||
			e->protocol == POLC_IPPROTO_MPTCP);
	case POLC_PROTO_UDP:
		return inet && type == POLC_SOCK_DGRAM &&
		       (e->protocol == 0 || e->protocol == POLC_IPPROTO_UDP);
	case POLC_PROTO_RAW:
		return type == POLC_SOCK_RAW;
	case POLC_PROTO_ICMP:
		return inet && (e->protocol == POLC_IPPROTO_ICMP ||
				e->protocol == POLC_IPPROTO_ICMPV6);
	}
	return 0;
}

static inline int polc_prefix_match(const __u32 *r, const struct polc_net_ev *e)
{
	__u32 bits = r[1] & 0xff, i;
	if ((r[1] >> 8) != e->family)
		return 0;
	const __u8 *a = (const __u8 *)&r[2];
	for (i = 0; i < 16; i++) {
		__u32 n = bits >= 8 ? 8 : bits;
		__u8 mask = n ? (__u8)(0xff << (8 - n)) : 0;
		if ((a[i] ^ e->addr[i]) & mask)
			return 0;
		bits -= n;
	}
	return 1;
}

/* Does the network rule r (POLC_NET_WORDS words) match the event? */
static inline int polc_net_match(const __u32 *r, const struct polc_net_ev *e)
{
	__u32 op = r[0] & 0xff, fam = (r[0] >> 8) & 0xff;
	__u32 proto = (r[0] >> 16) & 0xff, fl = r[0] >> 24;
	if (op != POLC_NET_ANYOP && op != e->op)
		return 0;
	if (fam && fam != e->family)
		return 0;
	if (!polc_proto_is(proto, e))
		return 0;
	if (fl & POLC_NETF_ADDR) {
		if (!e->has_addr || !polc_prefix_match(r, e))
			return 0;
	}
	if (fl & POLC_NETF_PORT) {
		if (!e->has_addr || e->port < (r[6] & 0xffff) || e->port > (r[6] >> 16))
			return 0;
	}
	return 1;
}

/* ---- the header: chunk 0, word 0 ---- */
struct polc_hdr {
	__u32 magic, version, blob_words, mode;   /* mode: 0 enforce, 1 audit */
	__u32 nstmts;
	__u32 defaults[POLC_ND];                  /* decision words */
	__u32 caps[64];                           /* decision per capability */
	__u32 ptrace[2];                          /* read, trace */
	__u32 signal;                             /* any peer */
	__u32 net, nnet;                          /* rules at W[net], nnet of them */
	struct polc_dfa file, mount;
	/* bit f (word f / 32, bit f % 32): every send without an address on a
	 * socket of family f is allowed (ir_net_unaddressed_allowed, asked at
	 * build time), so the enforcer need not decide it. A clear bit says
	 * nothing: the send is decided as before. */
	__u32 send_open[2];
	/* bit c: the file DFA's worst entry allows channel c, so every path
	 * is allowed on it and the enforcer walks none (set at build time,
	 * checked at load: bundle.c's chans_open) */
	__u32 chan_open;
	/* bit k (word k / 32, bit k % 32): some path whose last name is k
	 * bytes long (63: 63 or more), with or without a '/' after it, may be
	 * decided other than allow on a channel of POLC_EXEC_GROUP. A clear
	 * bit: every such path is allowed on all three, whatever the names
	 * before it, so an exec, exec open or executable mapping of a file
	 * named so is allowed without its path (set at build time, checked at
	 * load: bundle.c's exec_name_lens) */
	__u32 exec_lens[2];
	__u32 reserved[3];
};

/* Chunk 0: the header then the two byte-class tables at fixed offsets so
 * the program reads them from the one chunk it already holds. */
#define POLC_CLS_FILE_OFF 512u                /* words: 256 bytes = 64 words */
#define POLC_CLS_MOUNT_OFF 576u
#define POLC_HDR_WORDS 640u                    /* first free word */

/* The BTF decl tag on a program of the enforcer's own protection
 * (enforcer.bpf.c, SELF_PROTECTION): the loader attaches those at install. */
#define POLC_TAG_SELF_PROTECTION "polc:self-protection"

/* ---- maps (names used by the loader) ---- */
/* polc_cgroups' value for a cgroup: its policy's id and what that policy
 * can decide other than allow (bundle.h's bpfb_needs(): bit c < POLC_NCHAN
 * is file DFA channel c; the higher bits are the other hook classes). A
 * program returns before any policy map lookup for an event none of whose
 * channels the policy decides. polc_needs' one value is the OR of these over
 * every policy loaded since the enforcer was installed. */
struct polc_cg { __u32 policy, needs; };
/* The needs bit of bprm_check: the policy decides an exec its exec open
 * does not (file_open counts only an exec statement's deny there): an exec
 * domain's default, an audit, or any exec under mode audit. A policy whose
 * exec decisions are all statements' denies has the exec channel's bit
 * (POLC_CH_EXEC) without it, and no bprm_check is attached for it. */
#define POLC_NEEDS_BPRM (1u << (POLC_NCHAN + 5))
/* The needs bit of file_permission: the policy decides a send without an
 * address on a kind of socket its tasks can make. sendfile(2) and
 * splice(2) into a connected socket reach its sendpage on 6.1, which calls
 * no security_socket_sendmsg; the write check before them does. */
#define POLC_NEEDS_SPLICE (1u << (POLC_NCHAN + 6))
struct polc_blob_key { __u32 policy, chunk; };
struct polc_chunk { __u32 w[POLC_CHUNK_WORDS]; };
/* serial: a number the loader draws for each policy it writes (never 0),
 * after the words (written last): the enforcer's mount-prefix cache keys
 * the DFA states it keeps by it, so a state walked in a replaced policy (a
 * reused id) is never taken for one of the new policy. */
struct polc_fast {
	__u32 w[POLC_FAST_WORDS];   /* words 0.. of a blob, zero past its end */
	__u64 serial;
};
struct polc_cnt_key { __u32 policy, stmt; };

/* Ring-buffer record of one denial or audited event: enough to learn from
 * (polc run --mode audit --target bpf): what: file and exec events the
 * channels asked for (1 << POLC_CH_*), capability events the capability,
 * network events POLC_EV_NET(op, type, family); arg: a network event's
 * port | POLC_EV_PORT when it had an address. Not part of the blob. */
struct polc_event {
	__u64 cgroup;
	__u32 policy, decision, domain, pid;
	__u32 what, arg;
	char comm[16];
	char detail[128];                          /* path, truncated */
};
/* The enforcer passes domain, what and arg to its logger as one word. */
#define POLC_EV_INFO(domain, what, arg) \
	((__u64)(domain) | (__u64)((what) & 0xffffffu) << 8 | (__u64)(arg) << 32)
#define POLC_EV_NET(op, type, family) \
	(((op) & 7u) | ((type) & 15u) << 3 | ((family) & 63u) << 7)
#define POLC_EV_PORT 0x10000u

#endif
