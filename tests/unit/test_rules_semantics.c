/* test_rules_semantics.c - the rule library means what RULES.md says.
 *
 * Compiles small policies that `use` library rules and asks the oracle
 * (ir_decide) about concrete events: the /proc and /sys exceptions of
 * runtime-default, masked mode bits of the chmod rules, exact literal paths,
 * user-namespace clone flags, the preset defaults. A wrong glob or a wrong
 * constant in a rules/ file fails here, whatever the backends do.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <arpa/inet.h>
#include <linux/audit.h>
#include <linux/bpf.h>

#include "compiler/compile.h"
#include "compiler/ir.h"

typedef struct {
	diag_ctx d;
	ir_program prog;
	const ir_policy *p;
} compiled;

/* Compile `policy t { BODY }` with the library; fail the test on errors. */
static compiled *compile_body(const char *body)
{
	compiled *c = test_calloc(1, sizeof *c);
	char text[4096];
	snprintf(text, sizeof text, "policy t {\n%s\n}\n", body);
	diag_init(&c->d);
	compile_opts o;
	memset(&o, 0, sizeof o);
	int rc = polc_compile_text("test.pol", text, &o, &c->d, &c->prog);
	if (rc != 0 || c->d.nerrors) {
		diag_print(&c->d, stderr, false);
		fail_msg("policy did not compile: %s", body);
	}
	c->p = ir_program_select(&c->prog, "t", &c->d);
	assert_non_null(c->p);
	return c;
}

static void release(compiled *c)
{
	ir_program_free(&c->prog);
	diag_free(&c->d);
	test_free(c);
}

static ir_decision sys6(const compiled *c, long nr, uint64_t a0, uint64_t a1,
			uint64_t a2)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_SYSCALL;
	ev.u.sys.audit_arch = AUDIT_ARCH_X86_64;
	ev.u.sys.nr = (uint32_t)nr;
	ev.u.sys.args[0] = a0;
	ev.u.sys.args[1] = a1;
	ev.u.sys.args[2] = a2;
	return ir_decide(c->p, &ev);
}

static ir_verdict sysv(const compiled *c, long nr, uint64_t a0, uint64_t a1, uint64_t a2)
{
	return sys6(c, nr, a0, a1, a2).verdict;
}

static ir_verdict file(const compiled *c, const char *path, unsigned perm)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_FILE;
	ev.u.file.path = path;
	ev.u.file.perm = perm;
	return ir_decide(c->p, &ev).verdict;
}

static ir_verdict execv(const compiled *c, const char *path)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_EXEC;
	ev.u.exec.path = path;
	return ir_decide(c->p, &ev).verdict;
}

static ir_verdict capv(const compiled *c, int cap)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_CAPABILITY;
	ev.u.cap.cap = cap;
	return ir_decide(c->p, &ev).verdict;
}

static ir_verdict mountv(const compiled *c, ir_mount_op op, const char *fstype,
			 const char *target)
{
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_MOUNT;
	ev.u.mount.op = op;
	ev.u.mount.fstype = fstype;
	ev.u.mount.target = target;
	return ir_decide(c->p, &ev).verdict;
}

static ir_verdict netv(const compiled *c, ir_net_op op, int family, int type,
		       int protocol, const char *addr, uint16_t port)
{
	ir_event ev = ir_net_kind_event(op, family, type, protocol);
	if (addr) {
		ev.u.net.has_addr = true;
		assert_int_equal(inet_pton(family, addr, ev.u.net.addr), 1);
	}
	ev.u.net.port = port;
	return ir_decide(c->p, &ev).verdict;
}

#define R IR_PERM_READ
#define W IR_PERM_WRITE

/* ---- the library as a whole ---- */

static void library_compiles(void **state)
{
	(void)state;
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	int rc = polc_compile_library(&d, &prog);
	if (rc != 0)
		diag_print(&d, stderr, false);
	assert_int_equal(rc, 0);
	assert_int_equal(d.nerrors, 0);
	assert_true(prog.nrules >= 98);
	for (size_t i = 0; i < prog.nrules; i++) {
		const ir_rule *r = prog.rules[i];
		if (!r->summary || !*r->summary)
			fail_msg("rule %s has no summary", r->name);
		assert_true(r->builtin);
	}
	/* One rule per capability, 0 .. CAP_CHECKPOINT_RESTORE (40). */
	const ir_rule *r = ir_program_rule(&prog, "disable-cap-checkpoint-restore");
	assert_non_null(r);
	assert_int_equal(r->body.dom[IR_CAPABILITY].n, 1);
	assert_true(r->body.dom[IR_CAPABILITY].v[0].u.cap.caps == 1ull << 40);
	r = ir_program_rule(&prog, "disable-cap-privilege");
	assert_non_null(r);
	uint64_t caps = 0;
	for (size_t i = 0; i < r->body.dom[IR_CAPABILITY].n; i++)
		caps |= r->body.dom[IR_CAPABILITY].v[i].u.cap.caps;
	assert_int_equal(__builtin_popcountll(caps), 27);
	assert_true(ir_program_rule(&prog, "always-allow") != NULL);
	ir_program_free(&prog);
	diag_free(&d);
}

/* ---- runtime-default: the seccomp part ---- */

static void runtime_default_syscalls(void **state)
{
	(void)state;
	compiled *c = compile_body("use runtime-default;");
	assert_int_equal(sysv(c, SYS_getpid, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_read, 0, 0, 0), IR_ALLOW);
	/* Not in Docker's list: EPERM (defaultErrnoRet 1). */
	ir_decision dd = sys6(c, SYS_keyctl, 0, 0, 0);
	assert_int_equal(dd.verdict, IR_DENY);
	assert_int_equal(dd.err, EPERM);
	assert_int_equal(sysv(c, SYS_mount, 0, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_unshare, CLONE_NEWNS, 0, 0), IR_DENY);
	/* clone3 fails with ENOSYS so libc falls back to clone. */
	dd = sys6(c, SYS_clone3, 0, 0, 0);
	assert_int_equal(dd.verdict, IR_DENY);
	assert_int_equal(dd.err, ENOSYS);
	/* clone: allowed unless a namespace flag is set. */
	assert_int_equal(sysv(c, SYS_clone, 17 /* SIGCHLD */, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_clone, CLONE_VM | CLONE_THREAD | CLONE_SIGHAND, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_clone, CLONE_NEWUSER | 17, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_clone, CLONE_NEWNET, 0, 0), IR_DENY);
	/* socket: every family but AF_VSOCK (40) and AF_ALG (38). */
	assert_int_equal(sysv(c, SYS_socket, AF_INET, SOCK_STREAM, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_socket, 39, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_socket, 38, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_socket, 40, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_socket, 41, 0, 0), IR_ALLOW);
	/* personality: the five values Docker lets through. */
	assert_int_equal(sysv(c, SYS_personality, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_personality, 0xffffffff, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_personality, 0x20008, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_personality, 0x0040000, 0, 0), IR_DENY);
	/* Capability-gated entries: Docker's default set has sys_chroot only. */
	assert_int_equal(sysv(c, SYS_chroot, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_bpf, 0, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_ptrace, 0, 0, 0), IR_ALLOW);  /* minKernel 4.8 */
	assert_int_equal(sysv(c, SYS_kcmp, 0, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_arch_prctl, 0, 0, 0), IR_ALLOW);
	release(c);
}

/* ---- runtime-default: the AppArmor part ---- */

static void runtime_default_proc(void **state)
{
	(void)state;
	compiled *c = compile_body("use runtime-default;");
	/* The exceptions stay writable. */
	assert_int_equal(file(c, "/proc/1234/attr/current", W), IR_ALLOW);
	assert_int_equal(file(c, "/proc/1/oom_score_adj", W), IR_ALLOW);
	assert_int_equal(file(c, "/proc/1234/task/1235/comm", W), IR_ALLOW);
	assert_int_equal(file(c, "/proc/sys/kernel/shmmax", W), IR_ALLOW);
	assert_int_equal(file(c, "/proc/sys/kernel/shm_rmid_forced", W), IR_ALLOW);
	/* Everything else under /proc is not. */
	assert_int_equal(file(c, "/proc/sys/kernel/core_pattern", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sys/kernel/sysrq", W), IR_DENY);       /* Docker misses it */
	assert_int_equal(file(c, "/proc/sys/kernel/sched_child_runs_first", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sys/kernel/sh", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sys/vm/overcommit_memory", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sys/kernelx/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sys/net/ipv4/ip_forward", IR_PERM_APPEND), IR_DENY);
	assert_int_equal(file(c, "/proc/sysrq-trigger", W), IR_DENY);
	assert_int_equal(file(c, "/proc/1x/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/12a/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/s/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sy/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/sysx/a", W), IR_DENY);
	assert_int_equal(file(c, "/proc/irq/0/smp_affinity", W), IR_DENY);
	assert_int_equal(file(c, "/proc/driver/rtc", W), IR_DENY);
	/* Reading /proc stays allowed, but not the kernel's memory files. */
	assert_int_equal(file(c, "/proc/cpuinfo", R), IR_ALLOW);
	assert_int_equal(file(c, "/proc/sys/kernel/core_pattern", R), IR_ALLOW);
	assert_int_equal(file(c, "/proc/kcore", R), IR_DENY);
	assert_int_equal(file(c, "/proc/kmem", R), IR_DENY);
	assert_int_equal(file(c, "/proc/mem", R), IR_DENY);
	assert_int_equal(file(c, "/proc/sysrq-trigger", R), IR_DENY);
	release(c);
}

static void runtime_default_sys_and_mount(void **state)
{
	(void)state;
	compiled *c = compile_body("use runtime-default;");
	assert_int_equal(file(c, "/sys/fs/cgroup/cpu.max", W), IR_ALLOW);
	assert_int_equal(file(c, "/sys/fs/cgroup/a/b/cgroup.procs", W), IR_ALLOW);
	assert_int_equal(file(c, "/sys/fs/cgroupx/a", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/fuse/connections/1/abort", W), IR_DENY);
	assert_int_equal(file(c, "/sys/f/a", W), IR_DENY);                /* Docker misses it */
	assert_int_equal(file(c, "/sys/class/net/eth0/mtu", W), IR_DENY);
	assert_int_equal(file(c, "/sys/kernel/mm/transparent_hugepage/enabled", W), IR_DENY);
	assert_int_equal(file(c, "/sys/class/net/eth0/mtu", R), IR_ALLOW);
	assert_int_equal(file(c, "/sys/kernel/debug/x", R), IR_ALLOW);
	assert_int_equal(file(c, "/sys/firmware/efi/efivars/x", R), IR_DENY);
	assert_int_equal(file(c, "/sys/devices/virtual/powercap/intel-rapl/energy_uj", R), IR_DENY);
	assert_int_equal(file(c, "/sys/kernel/security/apparmor/profiles", R), IR_DENY);
	assert_int_equal(file(c, "/etc/hostname", W), IR_ALLOW);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "tmpfs", "/mnt"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_PIVOT_ROOT, NULL, NULL), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_UMOUNT, NULL, "/mnt"), IR_ALLOW);
	release(c);
}

/* A policy's own default overrides the preset's. */
static void preset_default_overridden(void **state)
{
	(void)state;
	compiled *c = compile_body("default allow syscall;\nuse runtime-default;");
	assert_int_equal(sysv(c, SYS_keyctl, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_socket, 38, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_clone3, 0, 0, 0), IR_DENY);        /* a statement */
	release(c);
	c = compile_body("use always-allow;");
	assert_int_equal(sysv(c, SYS_keyctl, 0, 0, 0), IR_ALLOW);
	assert_int_equal(file(c, "/proc/sysrq-trigger", W), IR_ALLOW);
	release(c);
}

static void enhance_protect(void **state)
{
	(void)state;
	compiled *c = compile_body("use enhance-protect;");
	assert_int_equal(sysv(c, SYS_keyctl, 0, 0, 0), IR_DENY);        /* from runtime-default */
	assert_int_equal(sysv(c, SYS_getpid, 0, 0, 0), IR_ALLOW);
	assert_int_equal(capv(c, 21 /* sys_admin */), IR_DENY);
	assert_int_equal(capv(c, 0 /* chown */), IR_ALLOW);
	assert_int_equal(mountv(c, IR_MOUNT_UMOUNT, NULL, "/mnt"), IR_DENY);
	assert_int_equal(file(c, "/proc/partitions", R), IR_DENY);
	assert_int_equal(file(c, "/proc/1/mountinfo", R), IR_DENY);
	assert_int_equal(file(c, "/proc/1/net/arp", R), IR_DENY);
	assert_int_equal(file(c, "/run/secrets/kubernetes.io/serviceaccount/token", R), IR_DENY);
	assert_int_equal(file(c, "/usr/bin/runc", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/devices/devices.allow", W), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "169.254.169.254", 80), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "10.0.0.1", 80), IR_ALLOW);
	release(c);
}

/* ---- single rules ---- */

static void chmod_bits(void **state)
{
	(void)state;
	compiled *c = compile_body("use disable-chmod-x-bit;");
	assert_int_equal(sysv(c, SYS_chmod, 0, 0755, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_chmod, 0, 0644, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_chmod, 0, 0001, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_fchmod, 3, 0010, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_fchmodat, (uint64_t)-100, 0, 0700), IR_DENY);
	assert_int_equal(sysv(c, SYS_fchmodat, (uint64_t)-100, 0, 0600), IR_ALLOW);
	/* The mode of fchmodat is arg2: arg1 (the path pointer) is not looked at. */
	assert_int_equal(sysv(c, SYS_fchmodat, (uint64_t)-100, 0111, 0600), IR_ALLOW);
	assert_int_equal(sysv(c, 452 /* fchmodat2 */, 0, 0, 0755), IR_DENY);
	release(c);
	c = compile_body("use disable-chmod-s-bit;");
	assert_int_equal(sysv(c, SYS_chmod, 0, 04755, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_chmod, 0, 02755, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_chmod, 0, 01777, 0), IR_ALLOW);   /* sticky is fine */
	assert_int_equal(sysv(c, SYS_chmod, 0, 0755, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_fchmodat, 0, 0, 06755), IR_DENY);
	release(c);
}

static void user_ns_and_bpf(void **state)
{
	(void)state;
	compiled *c = compile_body("use disallow-create-user-ns, disallow-load-all-bpf-prog,\n"
				   "  disallow-load-bpf-via-setsockopt, dirty-pipe-mitigation;");
	assert_int_equal(sysv(c, SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_unshare, CLONE_NEWNS, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_clone, CLONE_NEWUSER, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_clone, 17, 0, 0), IR_ALLOW);
	ir_decision dd = sys6(c, SYS_clone3, 0, 0, 0);
	assert_int_equal(dd.verdict, IR_DENY);
	assert_int_equal(dd.err, ENOSYS);
	assert_int_equal(sysv(c, SYS_bpf, BPF_PROG_LOAD, 0, 0), IR_DENY);
	assert_int_equal(sysv(c, SYS_bpf, BPF_MAP_CREATE, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_setsockopt, 3, SOL_SOCKET, SO_ATTACH_FILTER), IR_DENY);
	assert_int_equal(sysv(c, SYS_setsockopt, 3, SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF), IR_DENY);
	assert_int_equal(sysv(c, SYS_setsockopt, 3, SOL_SOCKET, SO_REUSEADDR), IR_ALLOW);
	/* SO_ATTACH_FILTER's value at another level is another option. */
	assert_int_equal(sysv(c, SYS_setsockopt, 3, 0 /* SOL_IP */, SO_ATTACH_FILTER), IR_ALLOW);
	assert_int_equal(sysv(c, SYS_splice, 0, 0, 0), IR_DENY);
	release(c);
}

static void exact_paths(void **state)
{
	(void)state;
	compiled *c = compile_body("use disable-access-passwd, mitigate-sa-leak, disable-shell,\n"
				   "  disallow-write-release-agent, cgroups-lxcfs-escape-mitigation,\n"
				   "  disable-access-ssh-dir, block-access-to-container-runtime,\n"
				   "  disallow-debug-disk-device, disable-write-etc;");
	assert_int_equal(file(c, "/etc/passwd", R), IR_DENY);
	assert_int_equal(file(c, "/etc/passwd-", R), IR_ALLOW);     /* vArmor's prefix bug */
	assert_int_equal(file(c, "/etc/passwd", W), IR_DENY);
	assert_int_equal(file(c, "/etc/hosts", R), IR_ALLOW);
	assert_int_equal(file(c, "/etc/hosts", W), IR_DENY);
	assert_int_equal(file(c, "/run/secrets/kubernetes.io/serviceaccount/token", R), IR_DENY);
	assert_int_equal(file(c, "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt", R), IR_DENY);
	assert_int_equal(file(c, "/run/secrets/other/token", R), IR_ALLOW);
	assert_int_equal(execv(c, "/bin/sh"), IR_DENY);
	assert_int_equal(execv(c, "/usr/bin/bash"), IR_DENY);
	assert_int_equal(execv(c, "/usr/bin/dash"), IR_DENY);
	assert_int_equal(execv(c, "/usr/bin/shx"), IR_ALLOW);
	assert_int_equal(execv(c, "/usr/bin/python3"), IR_ALLOW);
	assert_int_equal(file(c, "/sys/fs/cgroup/release_agent", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/memory/release_agent", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/memory/release_agent", R), IR_ALLOW);
	assert_int_equal(file(c, "/sys/fs/cgroup/devices/devices.allow", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/devices/docker/abc/devices.allow", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/devices/tasks", W), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/devices/a/cgroup.procs", IR_PERM_APPEND), IR_DENY);
	assert_int_equal(file(c, "/sys/fs/cgroup/cpu/tasks", W), IR_ALLOW);
	assert_int_equal(file(c, "/root/.ssh/authorized_keys", W), IR_DENY);
	assert_int_equal(file(c, "/home/u/.ssh/id_ed25519", R), IR_DENY);
	assert_int_equal(file(c, "/run/containerd/containerd.sock", W), IR_DENY);
	assert_int_equal(file(c, "/var/run/docker.sock", R), IR_DENY);
	assert_int_equal(file(c, "/dev/sda1", R), IR_DENY);
	assert_int_equal(file(c, "/dev/nvme0n1", W), IR_DENY);
	assert_int_equal(file(c, "/dev/null", W), IR_ALLOW);
	release(c);
}

static void mounts(void **state)
{
	(void)state;
	compiled *c = compile_body("use disallow-mount-procfs, disallow-mount-cgroupfs,\n"
				   "  disallow-mount-securityfs, disallow-umount;");
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "proc", "/tmp/p"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "cgroup2", "/tmp/c"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "securityfs", "/tmp/s"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "tmpfs", "/proc/sys"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "tmpfs", "/proc"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "tmpfs", "/sys/fs/cgroup"), IR_DENY);
	assert_int_equal(mountv(c, IR_MOUNT_MOUNT, "tmpfs", "/mnt"), IR_ALLOW);
	assert_int_equal(mountv(c, IR_MOUNT_UMOUNT, NULL, "/mnt"), IR_DENY);
	release(c);
}

static void network(void **state)
{
	(void)state;
	compiled *c = compile_body("use disable-tcp;");
	/* A stream socket with protocol 0 is TCP (vArmor's BPF form misses it). */
	assert_int_equal(netv(c, IR_NET_CREATE, AF_INET, SOCK_STREAM, 0, NULL, 0), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CREATE, AF_INET6, SOCK_STREAM, 6, NULL, 0), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CREATE, AF_INET, SOCK_DGRAM, 0, NULL, 0), IR_ALLOW);
	release(c);
	c = compile_body("use disallow-metadata-service, block-access-to-oci-metadata-service;");
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "169.254.169.254", 80), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_DGRAM, 0, "100.96.0.96", 53), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET6, SOCK_STREAM, 0, "fd00:ec2::254", 80), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "192.0.0.192", 80), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "169.254.169.253", 80), IR_ALLOW);
	assert_int_equal(netv(c, IR_NET_BIND, AF_INET, SOCK_STREAM, 0, "169.254.169.254", 80), IR_ALLOW);
	release(c);
	c = compile_body("use disable-unix-domain-socket, copy-fail-mitigation;");
	assert_int_equal(netv(c, IR_NET_CREATE, AF_UNIX, SOCK_STREAM, 0, NULL, 0), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CREATE, AF_ALG, SOCK_SEQPACKET, 0, NULL, 0), IR_DENY);
	assert_int_equal(netv(c, IR_NET_CREATE, AF_INET, SOCK_STREAM, 0, NULL, 0), IR_ALLOW);
	release(c);
}

/* The examples compile and mean what their comments say. */
static void examples(void **state)
{
	(void)state;
	/* run-tests.sh sets SRC; run by hand from the repository root. */
	const char *src = getenv("SRC") ? getenv("SRC") : ".";
	char f0[4096], f1[4096], f2[4096];
	snprintf(f0, sizeof f0, "%s/examples/redis.pol", src);
	snprintf(f1, sizeof f1, "%s/examples/webapp.pol", src);
	snprintf(f2, sizeof f2, "%s/examples/presets.pol", src);
	const char *files[] = { f0, f1, f2 };
	diag_ctx d;
	diag_init(&d);
	ir_program prog;
	memset(&prog, 0, sizeof prog);
	compile_opts o;
	memset(&o, 0, sizeof o);
	int rc = polc_compile_files(files, 3, &o, &d, &prog);
	if (rc != 0)
		diag_print(&d, stderr, false);
	assert_int_equal(rc, 0);
	assert_int_equal(prog.npolicies, 5);
	compiled c = { .p = ir_program_select(&prog, "redis", &d) };
	assert_non_null(c.p);
	assert_int_equal(sysv(&c, SYS_epoll_wait, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(&c, SYS_keyctl, 0, 0, 0), IR_DENY);
	assert_int_equal(file(&c, "/var/lib/redis/dump.rdb", W), IR_ALLOW);
	assert_int_equal(file(&c, "/root/.ssh/authorized_keys", W), IR_DENY);
	assert_int_equal(execv(&c, "/bin/sh"), IR_DENY);
	assert_int_equal(netv(&c, IR_NET_BIND, AF_INET, SOCK_STREAM, 0, "0.0.0.0", 6379), IR_ALLOW);
	assert_int_equal(netv(&c, IR_NET_BIND, AF_INET, SOCK_STREAM, 0, "0.0.0.0", 6380), IR_DENY);
	c.p = ir_program_select(&prog, "enhance-protect", &d);
	assert_non_null(c.p);
	assert_int_equal(sysv(&c, SYS_keyctl, 0, 0, 0), IR_DENY);
	c.p = ir_program_select(&prog, "webapp", &d);
	assert_non_null(c.p);
	assert_int_equal(sysv(&c, SYS_getpid, 0, 0, 0), IR_ALLOW);
	assert_int_equal(sysv(&c, SYS_bpf, 0, 0, 0), IR_DENY);
	assert_int_equal(execv(&c, "/srv/webapp/uploads/x.php"), IR_DENY);
	ir_program_free(&prog);
	diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(library_compiles),
		cmocka_unit_test(runtime_default_syscalls),
		cmocka_unit_test(runtime_default_proc),
		cmocka_unit_test(runtime_default_sys_and_mount),
		cmocka_unit_test(preset_default_overridden),
		cmocka_unit_test(enhance_protect),
		cmocka_unit_test(chmod_bits),
		cmocka_unit_test(user_ns_and_bpf),
		cmocka_unit_test(exact_paths),
		cmocka_unit_test(mounts),
		cmocka_unit_test(network),
		cmocka_unit_test(examples),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
