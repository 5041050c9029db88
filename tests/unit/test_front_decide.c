/* test_front_decide.c - compiler/decide.c, the oracle: precedence
 * kill > deny > audit > allow, first-among-equals errno, mode audit, ENOSYS
 * for unknown syscalls under default deny only, other-ABI denial, 32-bit
 * argument truncation, tcp for SOCK_STREAM protocol 0, CIDR edges, port
 * ranges. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "front_util.h"

static front_compiled *ok(const char *text)
{
	front_compiled *c = front_compile(text, true);
	assert_int_equal(c->rc, 0);
	assert_non_null(c->p);
	return c;
}

static void expect(const ir_policy *p, ir_event ev, ir_verdict v, int err)
{
	ir_decision d = ir_decide(p, &ev);
	if (d.verdict != v || d.err != err)
		fail_msg("decision %s/%d, want %s/%d", ir_verdict_name(d.verdict), d.err,
			 ir_verdict_name(v), err);
}

#define X64 IR_ARCH_X86_64

static void precedence(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  allow syscall getpid;\n  audit syscall getpid;\n"
			       "  kill syscall getpid;\n  deny syscall getpid;\n  allow syscall read;\n"
			       "  audit syscall read;\n  deny errno EIO syscall write;\n  audit syscall write;\n}\n");
	ir_event ev = front_sys(X64, __NR_getpid, 0, 0);
	ir_decision d = ir_decide(c->p, &ev);
	assert_int_equal(d.verdict, IR_KILL);
	assert_ptr_equal(d.by, &front_dom(c, IR_SYSCALL)->v[2]);
	expect(c->p, front_sys(X64, __NR_read, 0, 0), IR_AUDIT, 0);
	expect(c->p, front_sys(X64, __NR_write, 0, 0), IR_DENY, EIO);
	/* no statement: the default (allow), decided by nothing */
	ev = front_sys(X64, __NR_close, 0, 0);
	d = ir_decide(c->p, &ev);
	assert_int_equal(d.verdict, IR_ALLOW);
	assert_null(d.by);
	front_release(c);
}

static void first_among_equals(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny errno EACCES file \"/etc/**\" write;\n"
			       "  deny errno EROFS file \"/etc/passwd\" write;\n  deny file \"/etc/shadow\" read;\n}\n");
	ir_event ev = front_file("/etc/passwd", IR_PERM_WRITE);
	ir_decision d = ir_decide(c->p, &ev);
	assert_int_equal(d.verdict, IR_DENY);
	assert_int_equal(d.err, EACCES);
	assert_ptr_equal(d.by, &front_dom(c, IR_FILE)->v[0]);
	expect(c->p, front_file("/etc/shadow", IR_PERM_READ), IR_DENY, EPERM);
	expect(c->p, front_file("/etc/shadow", IR_PERM_EXEC), IR_ALLOW, 0);   /* perm not named */
	expect(c->p, front_file("/etc", IR_PERM_WRITE), IR_ALLOW, 0);
	front_release(c);
}

static void mode_audit(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  mode audit;\n  default deny syscall;\n  kill syscall ptrace;\n"
			       "  deny syscall bpf;\n  allow syscall read;\n}\n");
	expect(c->p, front_sys(X64, __NR_ptrace, 0, 0), IR_AUDIT, 0);
	expect(c->p, front_sys(X64, __NR_bpf, 0, 0), IR_AUDIT, 0);
	expect(c->p, front_sys(X64, __NR_read, 0, 0), IR_ALLOW, 0);
	expect(c->p, front_sys(X64, __NR_write, 0, 0), IR_AUDIT, 0);          /* the default */
	expect(c->p, front_sys(IR_ARCH_I386, 3, 0, 0), IR_AUDIT, 0);         /* other ABI */
	ir_action a = ir_effective(c->p, (ir_action){ IR_KILL, EPERM });
	assert_int_equal(a.verdict, IR_AUDIT);
	front_release(c);
}

static void enosys_for_unknown_syscalls(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  default deny syscall;\n  allow syscall read;\n}\n");
	expect(c->p, front_sys(X64, 999, 0, 0), IR_DENY, ENOSYS);            /* not in the table */
	expect(c->p, front_sys(X64, __NR_write, 0, 0), IR_DENY, EPERM);      /* known */
	expect(c->p, front_sys(X64, __NR_read, 0, 0), IR_ALLOW, 0);
	front_release(c);
	c = ok("policy p {\n  deny syscall write;\n}\n");                 /* default allow */
	expect(c->p, front_sys(X64, 999, 0, 0), IR_ALLOW, 0);
	front_release(c);
	/* an unknown number matched by no statement, but a statement's errno
	 * is never replaced */
	c = ok("policy p {\n  default deny errno EACCES syscall;\n}\n");
	expect(c->p, front_sys(X64, 999, 0, 0), IR_DENY, ENOSYS);
	expect(c->p, front_sys(X64, __NR_write, 0, 0), IR_DENY, EACCES);
	front_release(c);
}

static void other_abi_killed(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  allow syscall read;\n}\n");
	expect(c->p, front_sys(X64, __NR_read, 0, 0), IR_ALLOW, 0);
	expect(c->p, front_sys(IR_ARCH_I386, 3, 0, 0), IR_KILL, 0);
	expect(c->p, front_sys(X64, IR_X32_SYSCALL_BIT | 0, 0, 0), IR_KILL, 0);
	front_release(c);
	c = ok("policy p {\n  arch x86_64, x32;\n  deny syscall read;\n}\n");
	expect(c->p, front_sys(X64, IR_X32_SYSCALL_BIT | 0, 0, 0), IR_DENY, EPERM);   /* by the statement */
	expect(c->p, front_sys(X64, IR_X32_SYSCALL_BIT | 1, 0, 0), IR_ALLOW, 0);      /* x32 write */
	expect(c->p, front_sys(IR_ARCH_I386, 4, 0, 0), IR_KILL, 0);                  /* i386 not named */
	ir_event ev = front_sys(X64, IR_X32_SYSCALL_BIT | 1, 0, 0);
	assert_int_equal(ir_event_arch(&ev), IR_ARCH_X32);
	front_release(c);
	c = ok("policy p {\n  arch i386;\n  deny syscall read;\n}\n");
	expect(c->p, front_sys(IR_ARCH_I386, 3, 0, 0), IR_DENY, EPERM);
	expect(c->p, front_sys(IR_ARCH_I386, 4, 0, 0), IR_ALLOW, 0);
	expect(c->p, front_sys(X64, __NR_write, 0, 0), IR_KILL, 0);       /* x86_64 not named */
	front_release(c);
	/* under mode audit the kill is an audit */
	c = ok("policy p {\n  mode audit;\n  allow syscall read;\n}\n");
	expect(c->p, front_sys(IR_ARCH_I386, 3, 0, 0), IR_AUDIT, 0);
	front_release(c);
}

static void argument_truncation(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  arch x86_64, i386;\n  deny syscall kill if arg1 == 9;\n"
			       "  deny syscall clone if arg0 == 0x10;\n  deny syscall clone if arg1 > 0xffffffff;\n}\n");
	/* kill's sig is an int: the upper half is ignored */
	expect(c->p, front_sys(X64, __NR_kill, 1, 0xffffffff00000009ull), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_kill, 1, 9), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_kill, 1, 10), IR_ALLOW, 0);
	/* clone's flags are unsigned long: all 64 bits count on x86_64 */
	expect(c->p, front_sys(X64, __NR_clone, 0x100000010ull, 0), IR_ALLOW, 0);
	expect(c->p, front_sys(X64, __NR_clone, 0x10, 0), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_clone, 0, 0x100000000ull), IR_DENY, EPERM);
	/* on i386 every argument is 32 bits */
	expect(c->p, front_sys(IR_ARCH_I386, 120, 0x100000010ull, 0), IR_DENY, EPERM);
	expect(c->p, front_sys(IR_ARCH_I386, 120, 0, 0x100000000ull), IR_ALLOW, 0);
	front_release(c);
}

static void conditions(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny syscall clone if arg0 & CLONE_NEWUSER == CLONE_NEWUSER;\n"
			       "  deny syscall socket if arg0 == AF_PACKET && arg1 != SOCK_DGRAM;\n"
			       "  deny syscall mmap if arg2 >= 4 && arg2 <= 7;\n}\n");
	expect(c->p, front_sys(X64, __NR_clone, 0x10000000 | 0x11, 0), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_clone, 0x00020000, 0), IR_ALLOW, 0);
	expect(c->p, front_sys(X64, __NR_socket, AF_PACKET, SOCK_RAW), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_socket, AF_PACKET, SOCK_DGRAM), IR_ALLOW, 0);
	expect(c->p, front_sys(X64, __NR_socket, AF_INET, SOCK_RAW), IR_ALLOW, 0);
	ir_event ev = front_sys(X64, __NR_mmap, 0, 0);
	for (uint64_t prot = 0; prot < 10; prot++) {
		ev.u.sys.args[2] = prot;
		ir_decision d = ir_decide(c->p, &ev);
		assert_int_equal(d.verdict, prot >= 4 && prot <= 7 ? IR_DENY : IR_ALLOW);
	}
	front_release(c);
}

static void network_protocols(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny network tcp;\n  audit network udp;\n}\n");
	expect(c->p, front_net(IR_NET_CREATE, AF_INET, SOCK_STREAM, 0, NULL, 0), IR_DENY, EPERM);
	expect(c->p, front_net(IR_NET_CREATE, AF_INET6, SOCK_STREAM, IPPROTO_TCP, NULL, 0), IR_DENY, EPERM);
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, NULL, 0),
	       IR_DENY, EPERM);
	expect(c->p, front_net(IR_NET_CREATE, AF_UNIX, SOCK_STREAM, 0, NULL, 0), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_CREATE, AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, 0), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_CREATE, AF_INET, SOCK_DGRAM, 0, NULL, 0), IR_AUDIT, 0);
	expect(c->p, front_net(IR_NET_CREATE, AF_INET, SOCK_RAW, IPPROTO_ICMP, NULL, 0), IR_ALLOW, 0);
	front_release(c);
	c = ok("policy p {\n  deny network connect inet6;\n  deny network raw;\n}\n");
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET6, SOCK_STREAM, 0, "::1", 80), IR_DENY, EPERM);
	expect(c->p, front_net(IR_NET_BIND, AF_INET6, SOCK_STREAM, 0, "::1", 80), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "127.0.0.1", 80), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_CREATE, AF_PACKET, SOCK_RAW, 0, NULL, 0), IR_DENY, EPERM);
	front_release(c);
}

static void cidr_edges(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny network to 10.0.0.0/8;\n  deny network to 192.168.1.7;\n"
			       "  deny network to 172.16.0.0/12;\n  audit network to 0.0.0.0/0;\n"
			       "  deny network to fe80::/10;\n  deny network to 2001:db8::1/127;\n}\n");
	static const struct { int fam; const char *addr; ir_verdict v; } cases[] = {
		{ AF_INET, "10.0.0.0", IR_DENY }, { AF_INET, "10.255.255.255", IR_DENY },
		{ AF_INET, "9.255.255.255", IR_AUDIT }, { AF_INET, "11.0.0.0", IR_AUDIT },
		{ AF_INET, "192.168.1.7", IR_DENY }, { AF_INET, "192.168.1.6", IR_AUDIT },
		{ AF_INET, "192.168.1.8", IR_AUDIT },
		{ AF_INET, "172.16.0.0", IR_DENY }, { AF_INET, "172.31.255.255", IR_DENY },
		{ AF_INET, "172.32.0.0", IR_AUDIT }, { AF_INET, "172.15.255.255", IR_AUDIT },
		{ AF_INET6, "fe80::1", IR_DENY }, { AF_INET6, "febf:ffff::", IR_DENY },
		{ AF_INET6, "fec0::", IR_ALLOW }, { AF_INET6, "fe7f::", IR_ALLOW },
		{ AF_INET6, "2001:db8::", IR_DENY }, { AF_INET6, "2001:db8::1", IR_DENY },
		{ AF_INET6, "2001:db8::2", IR_ALLOW },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ir_event ev = front_net(IR_NET_CONNECT, cases[i].fam, SOCK_STREAM, 0, cases[i].addr, 443);
		assert_true(ev.u.net.has_addr);
		ir_decision d = ir_decide(c->p, &ev);
		if (d.verdict != cases[i].v)
			fail_msg("%s: %s, want %s", cases[i].addr, ir_verdict_name(d.verdict),
				 ir_verdict_name(cases[i].v));
	}
	/* an address statement never matches an event without an address */
	expect(c->p, front_net(IR_NET_CREATE, AF_INET, SOCK_STREAM, 0, NULL, 0), IR_ALLOW, 0);
	front_release(c);
}

static void port_ranges(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  deny network bind port 80-90, 443;\n  deny network port 0;\n"
			       "  deny network port 65535;\n}\n");
	static const struct { uint16_t port; ir_verdict v; } cases[] = {
		{ 79, IR_ALLOW }, { 80, IR_DENY }, { 85, IR_DENY }, { 90, IR_DENY }, { 91, IR_ALLOW },
		{ 442, IR_ALLOW }, { 443, IR_DENY }, { 444, IR_ALLOW }, { 0, IR_DENY }, { 1, IR_ALLOW },
		{ 65534, IR_ALLOW }, { 65535, IR_DENY },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ir_event ev = front_net(IR_NET_BIND, AF_INET, SOCK_STREAM, 0, "127.0.0.1", cases[i].port);
		ir_decision d = ir_decide(c->p, &ev);
		if (d.verdict != cases[i].v)
			fail_msg("port %u: %s", cases[i].port, ir_verdict_name(d.verdict));
	}
	/* 80-90 is for bind only */
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "127.0.0.1", 85), IR_ALLOW, 0);
	/* no address, no port: port statements do not match */
	expect(c->p, front_net(IR_NET_BIND, AF_INET, SOCK_STREAM, 0, NULL, 0), IR_ALLOW, 0);
	front_release(c);
}

/* LANGUAGE.md "A statement covers every kernel path": mapped IPv6 is
 * IPv4, a send with an address is also a connect, clone3 and io_uring are
 * implied. */
static void every_path(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  default deny network;\n  allow network send;\n"
			       "  deny errno EACCES network connect to 169.254.169.254;\n"
			       "  allow network connect to ::ffff:10.0.0.0/104;\n}\n");
	/* ::ffff:169.254.169.254 on an inet6 socket is the IPv4 address */
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET6, SOCK_STREAM, 0, "::ffff:169.254.169.254", 80),
	       IR_DENY, EACCES);
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET6, SOCK_STREAM, 0, "::ffff:169.254.169.253", 80),
	       IR_DENY, EPERM);
	/* the mapped statement compiled to 10.0.0.0/8 and matches both forms */
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET, SOCK_STREAM, 0, "10.1.2.3", 80), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_CONNECT, AF_INET6, SOCK_DGRAM, 0, "::ffff:10.1.2.3", 80), IR_ALLOW, 0);
	/* an allowed send with an address is decided as its connect too */
	expect(c->p, front_net(IR_NET_SEND, AF_INET, SOCK_DGRAM, 0, "169.254.169.254", 80), IR_DENY, EACCES);
	expect(c->p, front_net(IR_NET_SEND, AF_INET, SOCK_DGRAM, 0, "192.0.2.1", 80), IR_DENY, EPERM);
	expect(c->p, front_net(IR_NET_SEND, AF_INET, SOCK_DGRAM, 0, "10.9.9.9", 80), IR_ALLOW, 0);
	expect(c->p, front_net(IR_NET_SEND, AF_INET, SOCK_DGRAM, 0, NULL, 0), IR_ALLOW, 0);
	front_release(c);

	c = ok("policy p {\n  default deny syscall;\n  allow syscall clone3, io_uring_setup;\n"
	       "  allow syscall clone if arg0 & CLONE_NEWUSER == 0;\n  deny syscall splice;\n}\n");
	/* implied actions beat allows and the default */
	expect(c->p, front_sys(X64, __NR_clone3, 0, 0), IR_DENY, ENOSYS);
	expect(c->p, front_sys(X64, __NR_io_uring_setup, 0, 0), IR_DENY, EPERM);
	expect(c->p, front_sys(X64, __NR_io_uring_enter, 0, 0), IR_DENY, EPERM);
	front_release(c);
	c = ok("policy p {\n  kill syscall clone3;\n  deny syscall unshare if arg0 == 1;\n"
	       "  audit syscall openat if arg1 == 0;\n}\n");
	/* a written kill wins; an audit closes nothing */
	expect(c->p, front_sys(X64, __NR_clone3, 0, 0), IR_KILL, EPERM);
	expect(c->p, front_sys(X64, __NR_io_uring_setup, 0, 0), IR_ALLOW, 0);
	front_release(c);
	c = ok("policy p {\n  mode audit;\n  deny network netlink;\n}\n");
	expect(c->p, front_sys(X64, __NR_io_uring_register, 0, 0), IR_AUDIT, 0);
	front_release(c);
}

static void other_domains(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  default deny capability;\n  allow capability net_bind_service;\n"
			       "  deny ptrace trace;\n  deny signal to \"other-*\";\n  deny umount on \"/proc/**\";\n"
			       "  deny mount fstype proc;\n  deny exec \"/bin/*sh\";\n}\n");
	ir_event ev;
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_CAPABILITY;
	ev.u.cap.cap = 10;          /* CAP_NET_BIND_SERVICE */
	expect(c->p, ev, IR_ALLOW, 0);
	ev.u.cap.cap = 21;
	expect(c->p, ev, IR_DENY, EPERM);
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_PTRACE;
	ev.u.ptrace.mode = IR_PTRACE_TRACE;
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.ptrace.mode = IR_PTRACE_READ;
	expect(c->p, ev, IR_ALLOW, 0);
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_SIGNAL;
	ev.u.signal.peer = "other-1";
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.signal.peer = "self";
	expect(c->p, ev, IR_ALLOW, 0);
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_MOUNT;
	ev.u.mount.op = IR_MOUNT_UMOUNT;
	ev.u.mount.target = "/proc/sys";
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.mount.target = "/mnt";
	expect(c->p, ev, IR_ALLOW, 0);
	ev.u.mount.op = IR_MOUNT_MOUNT;
	ev.u.mount.fstype = "proc";
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.mount.fstype = "tmpfs";
	expect(c->p, ev, IR_ALLOW, 0);
	memset(&ev, 0, sizeof ev);
	ev.domain = IR_EXEC;
	ev.u.exec.path = "/bin/bash";
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.exec.path = "/usr/bin/bash";
	expect(c->p, ev, IR_ALLOW, 0);
	front_release(c);
}

/* A directory is named "d/" by the kernel (AppArmor's meaning): a glob
 * matches it in either form; a star right after '/' still needs a
 * character, so "/sys/" star does not name /sys itself. */
static void directories(void **state)
{
	(void)state;
	front_compiled *c = ok("policy p {\n  default deny file;\n  allow file \"/etc/**\" read;\n"
			       "  allow file \"/srv/\" read;\n  deny file \"/sys/*\" lock;\n}\n");
	ir_event ev = front_file("/etc", IR_PERM_READ);
	expect(c->p, ev, IR_DENY, EPERM);          /* a file named /etc */
	ev.u.file.dir = true;
	expect(c->p, ev, IR_DENY, EPERM);          /* ** after '/' needs a character */
	ev = front_file("/etc/ssl", IR_PERM_READ);
	ev.u.file.dir = true;
	expect(c->p, ev, IR_ALLOW, 0);
	ev = front_file("/srv", IR_PERM_READ);
	expect(c->p, ev, IR_DENY, EPERM);
	ev.u.file.dir = true;
	expect(c->p, ev, IR_ALLOW, 0);             /* "/srv/" names the directory */
	ev = front_file("/sys", IR_PERM_LOCK);
	ev.u.file.dir = true;
	expect(c->p, ev, IR_DENY, EPERM);          /* the default: /sys/ star misses /sys/ */
	ev = front_file("/sys/fs", IR_PERM_LOCK);
	ev.u.file.dir = true;
	ir_decision d = ir_decide(c->p, &ev);
	assert_ptr_equal(d.by, &front_dom(c, IR_FILE)->v[2]);
	front_release(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(precedence),
		cmocka_unit_test(first_among_equals),
		cmocka_unit_test(mode_audit),
		cmocka_unit_test(enosys_for_unknown_syscalls),
		cmocka_unit_test(other_abi_killed),
		cmocka_unit_test(argument_truncation),
		cmocka_unit_test(conditions),
		cmocka_unit_test(network_protocols),
		cmocka_unit_test(cidr_edges),
		cmocka_unit_test(port_ranges),
		cmocka_unit_test(every_path),
		cmocka_unit_test(other_domains),
		cmocka_unit_test(directories),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
