/* bpf_backend.c - backend_bpf: what the BPF LSM enforcer mediates
 * (classify) and the bundle / JSON artifact (emit). The enforcer program
 * is fixed; a policy is only data (bundle.h). */
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "../backend.h"
#include "bundle.h"
#include "run.h"

static const char *const bpf_formats[] = { "bundle", "json", NULL };
static const char *const bpf_binary[] = { "bundle", NULL };

static support sup(support_level l, const char *why)
{
	support s = { l, why };
	return s;
}

/* File statements: every permission is mediated. read, write, append, exec
 * and the file's exec on open(2) and execve; mmap on mmap(PROT_EXEC); lock
 * on flock/fcntl; write also on the path hooks (create, mknod, mkdir,
 * rmdir, unlink, rename's source and target, symlink, truncate, chmod,
 * chown); link on link(2), the new name. */
static support classify_file(const ir_stmt *s)
{
	(void)s;
	return sup(SUPPORT_EXACT, NULL);
}

/* A mount is decided on mount(2) (sb_mount) and when move_mount attaches
 * a tree made by the new mount API (fsmount, open_tree(OPEN_TREE_CLONE));
 * files under a tree left detached are decided fail closed (enforcer.bpf.c).
 * Changing a mount's attributes is a mount on its target too (mount(2)'s
 * remount is), but mount_setattr(2), and fspick(2) with fsconfig(2)
 * reconfiguring a filesystem, reach no LSM hook in 6.1: a statement that
 * could match such a change (any fstype) is partial. A statement naming
 * fstypes cannot: those calls name none. */
static support classify_mount(const ir_policy *p, const ir_stmt *s)
{
	bool denyish = ir_effective(p, s->action).verdict >= IR_DENY;
	bool closed = p->defaults[IR_MOUNT].verdict >= IR_DENY;
	if (s->u.mount.op != IR_MOUNT_MOUNT || s->u.mount.nfstype || (!denyish && !closed))
		return sup(SUPPORT_EXACT, NULL);
	return sup(SUPPORT_PARTIAL, "mount_setattr(2) and fspick(2)+fsconfig(2) reconfiguration "
		   "have no LSM hook in 6.1: mount attributes (read-only, nosuid, idmap) can still "
		   "be changed; enforce with seccomp too");
}

/* A packet can carry its own destination: a raw socket writing its own IP
 * header (IPPROTO_RAW, IP_HDRINCL, IPV6_HDRINCL) is routed by the send's
 * address, which the enforcer decides, but goes where its header says, and
 * an AF_PACKET socket writes a whole frame that no hook reads (vm/t_bypass:
 * net_via raw-hdrincl reaches 169.254.169.254 under
 * disallow-metadata-service). Both need CAP_NET_RAW and a raw or packet
 * socket: a policy that denies the capability, or creating every such
 * socket, leaves no such route. */
static bool raw_packets_closed(const ir_policy *p)
{
	ir_event cap = { .domain = IR_CAPABILITY, .u.cap.cap = CAP_NET_RAW };
	if (ir_decide(p, &cap).verdict >= IR_DENY)
		return true;
	static const int raw[][3] = {
		{ AF_INET, SOCK_RAW, IPPROTO_RAW }, { AF_INET, SOCK_RAW, IPPROTO_UDP },
		{ AF_INET6, SOCK_RAW, IPPROTO_RAW }, { AF_INET6, SOCK_RAW, IPPROTO_UDP },
		{ AF_PACKET, SOCK_RAW, 0 }, { AF_PACKET, SOCK_DGRAM, 0 },
	};
	for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
		ir_event ev = ir_net_kind_event(IR_NET_CREATE, raw[i][0], raw[i][1], raw[i][2]);
		if (ir_decide(p, &ev).verdict < IR_DENY)
			return false;
	}
	return true;
}

/* This backend's backend_facts bits (bpf_prepare). */
enum { RAW_PACKETS_CLOSED = 1u };

/* What classification reads of the whole policy, worked out once per
 * policy (backend.h's prepare): whether the raw-packet route is closed.
 * raw_packets_closed decides seven events against every statement, and
 * every network statement's classification asks (10,000 port denies took
 * 3 s to build when each asked anew). */
static backend_facts bpf_prepare(const ir_policy *p)
{
	backend_facts f = { raw_packets_closed(p) ? RAW_PACKETS_CLOSED : 0 };
	return f;
}

#define RAW_PACKETS_PARTIAL \
	"a process with CAP_NET_RAW sends packets that carry their own destination (a raw " \
	"socket with its own IP header, an AF_PACKET socket), which no hook reads; deny " \
	"capability net_raw (or creating raw and packet sockets) to make it exact"

/* A deny on where traffic goes (connect or send, to an address or port) is
 * only as good as the closing of the raw-packet route. Socket creation and
 * bind, listen and accept are decided on the socket itself. */
static support classify_network(const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	const ir_network *n = &s->u.net;
	bool sends = n->op == IR_NET_CONNECT || n->op == IR_NET_SEND ||
		     (n->op == IR_NET_ANYOP && (n->has_addr || n->has_port));
	if (!sends || ir_effective(p, s->action).verdict < IR_DENY || (f.bits & RAW_PACKETS_CLOSED))
		return sup(SUPPORT_EXACT, NULL);
	return sup(SUPPORT_PARTIAL, RAW_PACKETS_PARTIAL);
}

static support bpf_classify(const ir_policy *p, backend_facts f, const ir_stmt *s)
{
	switch (s->domain) {
	case IR_SYSCALL:
		return sup(SUPPORT_NONE, "BPF LSM does not see syscall arguments; use seccomp");
	case IR_FILE:
		return classify_file(s);
	case IR_EXEC:
	case IR_CAPABILITY:
	case IR_PTRACE:
		return sup(SUPPORT_EXACT, NULL);
	case IR_MOUNT:
		if (s->u.mount.op == IR_MOUNT_UMOUNT && s->u.mount.target)
			return sup(SUPPORT_PARTIAL, "the BPF enforcer cannot see the umount "
				   "target path yet (umount without 'on' is exact)");
		if (s->u.mount.op == IR_MOUNT_PIVOT_ROOT && s->u.mount.target)
			return sup(SUPPORT_PARTIAL, "the BPF enforcer decides pivot_root "
				   "without its target path");
		return classify_mount(p, s);
	case IR_NETWORK:
		return classify_network(p, f, s);
	case IR_SIGNAL:
		if (s->u.signal.peer)
			return sup(SUPPORT_PARTIAL, "BPF processes carry no label to match "
				   "'signal to' against");
		return sup(SUPPORT_EXACT, NULL);
	case IR_NDOMAIN:
		break;
	}
	return sup(SUPPORT_NONE, "unknown domain");
}

/* A default covers every event of its domain (backend.h). */
static support bpf_classify_default(const ir_policy *p, backend_facts f, ir_domain dom)
{
	if (dom == IR_SYSCALL)
		return sup(SUPPORT_NONE, "BPF LSM does not see syscalls; use seccomp");
	if (dom == IR_NETWORK && ir_effective(p, p->defaults[dom]).verdict >= IR_DENY &&
	    !(f.bits & RAW_PACKETS_CLOSED))
		return sup(SUPPORT_PARTIAL, RAW_PACKETS_PARTIAL);
	return sup(SUPPORT_EXACT, NULL);
}

static int bpf_emit(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d)
{
	const char *fmt = o && o->format ? o->format : "bundle";
	buf hdr;
	buf_init(&hdr);
	backend_header(&backend_bpf, p, o, "# ", &hdr);
	if (fmt[0] != 'j') {
		int r = bpfb_emit_file(p, buf_cstr(&hdr), out, d);
		buf_free(&hdr);
		return r;
	}
	bpf_bundle b;
	int r = bpfb_lower(p, buf_cstr(&hdr), &b, NULL, d);
	buf_free(&hdr);
	if (r < 0)
		return -1;
	bpfb_json(&b, out);
	bpfb_free(&b);
	return 0;
}

const backend backend_bpf = {
	.name = "bpf",
	.title = "BPF LSM",
	.formats = bpf_formats,
	.prepare = bpf_prepare,
	.classify = bpf_classify,
	.classify_default = bpf_classify_default,
	.emit = bpf_emit,
	.available = bpf_available,
	.needs_lab = true,
	.decides_exec_path = true,
	.binary_formats = bpf_binary,
	.confine = bpf_confine,
	.audit = AUDIT_CGROUP_EVENTS,
	.load = bpf_load_cmd,
	.unload = bpf_unload_cmd,
	.status = bpf_status_cmd,
	.probes = PROBES_LSM,
	.probe_load = bpf_probe_load,
	.probe_unload = bpf_probe_unload,
	.probe_open = bpf_probe_open,
	.probe_enter = bpf_probe_enter,
};
