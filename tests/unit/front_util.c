/* front_util.c - see front_util.h. */
#include "front_util.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "base/util.h"

front_compiled *front_compile(const char *text, bool no_library)
{
	front_compiled *c = xcalloc(1, sizeof *c);
	compile_opts o;
	memset(&o, 0, sizeof o);
	o.no_library = no_library;
	diag_init(&c->d);
	c->rc = polc_compile_text("test.pol", text, &o, &c->d, &c->prog);
	if (c->rc == 0 && c->prog.npolicies == 1)
		c->p = c->prog.policies[0];
	if (c->d.n)
		diag_print(&c->d, stderr, false);
	return c;
}

void front_release(front_compiled *c)
{
	if (c->rc == 0)
		ir_program_free(&c->prog);
	diag_free(&c->d);
	free(c);
}

char *front_diag_text(const front_compiled *c, size_t i)
{
	return i < c->d.n ? diag_format(&c->d.v[i], false) : xstrdup("");
}

const ir_stmt_list *front_dom(const front_compiled *c, ir_domain d)
{
	return &c->p->dom[d];
}

ir_event front_sys(ir_arch a, uint32_t nr, uint64_t a0, uint64_t a1)
{
	ir_event e;
	memset(&e, 0, sizeof e);
	e.domain = IR_SYSCALL;
	e.u.sys.audit_arch = ir_arch_audit(a);
	e.u.sys.nr = nr;
	e.u.sys.args[0] = a0;
	e.u.sys.args[1] = a1;
	return e;
}

ir_event front_file(const char *path, unsigned perm)
{
	ir_event e;
	memset(&e, 0, sizeof e);
	e.domain = IR_FILE;
	e.u.file.path = path;
	e.u.file.perm = perm;
	return e;
}

ir_event front_net(ir_net_op op, int family, int type, int protocol,
		   const char *addr, uint16_t port)
{
	ir_event e = ir_net_kind_event(op, family, type, protocol);
	if (addr) {
		e.u.net.has_addr = inet_pton(family, addr, e.u.net.addr) == 1;
		e.u.net.port = port;
	}
	return e;
}
