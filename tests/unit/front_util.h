/* front_util.h - helpers shared by the front end's unit tests
 * (tests/unit/test_front_*.c): compile policy text, build events.
 * Linked into every unit test binary, so everything here is front_-prefixed
 * and nothing calls cmocka: failures are returned, the tests assert.
 */
#ifndef POLC_TESTS_FRONT_UTIL_H
#define POLC_TESTS_FRONT_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include "compiler/compile.h"
#include "compiler/ir.h"

typedef struct {
	diag_ctx d;
	ir_program prog;
	int rc;                    /* polc_compile_text's return */
	const ir_policy *p;        /* the only policy, or NULL */
} front_compiled;

/* Compile text as "test.pol" (library offered unless no_library). Prints
 * the diagnostics to stderr when there are any. Never NULL. */
front_compiled *front_compile(const char *text, bool no_library);
void front_release(front_compiled *c);

/* The text of diagnostic i as printed without the source line ("" past
 * the end); caller frees. */
char *front_diag_text(const front_compiled *c, size_t i);

/* The policy's statements of one domain. */
const ir_stmt_list *front_dom(const front_compiled *c, ir_domain d);

/* Events. */
ir_event front_sys(ir_arch a, uint32_t nr, uint64_t a0, uint64_t a1);
ir_event front_file(const char *path, unsigned perm);
ir_event front_net(ir_net_op op, int family, int type, int protocol,
		   const char *addr, uint16_t port);    /* addr NULL: none */

#endif
