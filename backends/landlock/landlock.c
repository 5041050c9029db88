/* landlock.c - the Landlock backend's entry (landlock.h): the artifact, a
 * JSON description of the ruleset, deterministic (sorted paths, port
 * ranges), with backend_header()'s lines; and the backend record. */
#include "landlock.h"
#include "../../base/base.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void put_rights(buf *out, char kind, uint64_t r, int nbits)
{
	buf_puts(out, "[");
	bool first = true;
	for (int b = 0; b < nbits; b++)
		if (r >> b & 1) {
			buf_printf(out, "%s\"%s\"", first ? "" : ", ", ll_right_name(kind, b));
			first = false;
		}
	buf_puts(out, "]");
}

/* backend_header()'s lines as a JSON array of strings. */
static void put_header(const ir_policy *p, const backend_opts *o, buf *out)
{
	buf h;
	buf_init(&h);
	backend_header(&backend_landlock, p, o, "", &h);
	buf_puts(out, "  \"header\": [");
	const char *s = buf_cstr(&h);
	bool first = true;
	while (*s) {
		size_t n = strcspn(s, "\n");
		buf_puts(out, first ? "\n    " : ",\n    ");
		buf_json_strn(out, s, n);
		first = false;
		s += n + (s[n] == '\n');
	}
	buf_puts(out, "\n  ],\n");
	buf_free(&h);
}

int ll_emit_json(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d)
{
	(void)d;
	ll_ruleset r;
	ll_ruleset_build(p, &r);
	buf_puts(out, "{\n");
	put_header(p, o, out);
	buf_printf(out, "  \"abi_needed\": %d,\n", ll_abi_needed(r.fs_handled, r.net_handled, r.scoped));
	buf_puts(out, "  \"handled_access_fs\": ");
	put_rights(out, 'f', r.fs_handled, 16);
	buf_puts(out, ",\n  \"handled_access_net\": ");
	put_rights(out, 'n', r.net_handled, 2);
	buf_puts(out, ",\n  \"scoped\": ");
	put_rights(out, 's', r.scoped, 2);
	buf_puts(out, ",\n  \"path_beneath\": [");
	for (size_t i = 0; i < r.npaths; i++) {
		buf_puts(out, i ? ",\n    { \"path\": " : "\n    { \"path\": ");
		buf_json_str(out, r.paths[i].path);
		buf_printf(out, ", \"beneath\": %s, \"allowed_access\": ",
			   r.paths[i].beneath ? "true" : "false");
		put_rights(out, 'f', r.paths[i].access, 16);
		if (r.paths[i].exec_literal)
			buf_puts(out, ", \"interpreter\": \"granted when confined\"");
		buf_puts(out, " }");
	}
	buf_puts(out, r.npaths ? "\n  ],\n  \"net_port\": [" : "],\n  \"net_port\": [");
	for (size_t i = 0; i < r.nports; i++) {
		buf_printf(out, "%s\n    { \"first\": %u, \"last\": %u, \"allowed_access\": ",
			   i ? "," : "", r.ports[i].first, r.ports[i].last);
		put_rights(out, 'n', r.ports[i].access, 2);
		buf_puts(out, " }");
	}
	buf_puts(out, r.nports ? "\n  ]" : "]");
	if (r.net_handled)      /* what comes with TCP rules (landlock.h) */
		buf_puts(out, ",\n  \"seccomp_beside\": { \"socket IPPROTO_MPTCP\": \"EPROTONOSUPPORT\", "
			 "\"socket IPPROTO_SMC\": \"EPROTONOSUPPORT\", \"socket AF_SMC\": \"EAFNOSUPPORT\", "
			 "\"io_uring_setup\": \"EPERM\", \"i386 socketcall SYS_SOCKET\": \"ENOSYS\" }");
	buf_puts(out, "\n}\n");
	ll_ruleset_free(&r);
	return 0;
}

/* ---- on this kernel: run and verify ---- */

static bool ll_available(char *why, size_t n)
{
	return ll_abi_running(why, n) > 0;
}

/* `polc run`: the ruleset is built and applied in the process that execs. */
static int ll_run_confine(const ir_policy *p, bool allow_partial)
{
	char err[512];
	if (ll_confine(p, "polc run", allow_partial, err, sizeof err) < 0) {
		fprintf(stderr, "polc run: %s\n", err);
		return EXIT_SYSTEM;
	}
	return 0;
}

/* verify: the probe child builds its world (its own root) and the probe's
 * objects first, so the ruleset is built there, from paths as the child
 * sees them, and entered after the probe took its route (a chroot). The
 * policy is the one probe_load was given, alive while its probes run. */
static const ir_policy *probe_policy;

static int probe_load(const ir_policy *p, backend_confine *c, char *err, size_t n)
{
	(void)err;
	(void)n;
	probe_policy = p;
	c->fd = -1;
	return 0;
}

static void probe_unload(backend_confine *c)
{
	(void)c;
	probe_policy = NULL;
}

static int probe_open(const backend_confine *c, char *why, size_t n)
{
	(void)c;
	(void)why;
	(void)n;
	return 0;                /* nothing to open before the world */
}

/* The ruleset's descriptor (INT_MAX: nothing to restrict). */
static int probe_ready(const backend_confine *c, char *why, size_t n)
{
	int fd;
	(void)c;
	if (!probe_policy) {
		snprintf(why, n, "no policy loaded for the probe");
		return -1;
	}
	/* verify measures what partial statements do: the probe accepts them */
	if (ll_ruleset_fd(probe_policy, NULL, true, &fd, why, n) < 0)
		return -1;
	return fd < 0 ? INT_MAX : fd;
}

static int probe_enter(const backend_confine *c, int fd, char *why, size_t n)
{
	(void)c;
	return ll_restrict(fd == INT_MAX ? -1 : fd, ll_closes_mptcp(probe_policy), why, n);
}

/* A denial: EACCES from Landlock agrees with the language's unnamed EPERM
 * (classify() calls any other named errno partial), and so does the
 * EPROTONOSUPPORT that refuses an MPTCP socket beside TCP rules. */
static bool ll_errno_agrees(int want, int got)
{
	return got == want || (want == EPERM && (got == EACCES || got == EPROTONOSUPPORT));
}

static const char *const formats[] = { "json", NULL };

const backend backend_landlock = {
	.name = "landlock",
	.title = "Landlock",
	.formats = formats,
	.classify = ll_classify,
	.classify_default = ll_classify_default,
	.emit = ll_emit_json,
	.available = ll_available,
	.unprivileged = true,
	.decides_exec_path = true,
	.confine = ll_run_confine,
	.audit = AUDIT_NONE,
	.probes = PROBES_LSM,
	.probe_load = probe_load,
	.probe_unload = probe_unload,
	.probe_open = probe_open,
	.probe_ready = probe_ready,
	.probe_enter = probe_enter,
	.errno_agrees = ll_errno_agrees,
};
