/* confine.c - `polc run --target apparmor`: load the profile, then ask
 * AppArmor to put the next exec under it (aa_change_onexec). See apparmor.h.
 *
 * The profile is loaded with apparmor_parser -r from a temporary file: the
 * parser is the one compiler of AppArmor policy, and its binary format is
 * tied to the kernel's feature set, which the parser reads itself.
 */
#include "apparmor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/apparmor.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../base/base.h"

/* The active LSMs from lsm_list_modules(2) (Linux 6.8), for when
 * securityfs is not mounted. The ids are kernel ABI (uapi linux/lsm.h,
 * newer than this system's headers). */
static void lsms_from_syscall(char *out, size_t len)
{
#ifdef __x86_64__
	static const char *const names[] = { "capability", "selinux", "smack", "tomoyo",
		"apparmor", "yama", "loadpin", "safesetid", "lockdown", "bpf", "landlock",
		"ima", "evm", "ipe" };
	uint64_t ids[32];
	uint32_t size = sizeof ids;
	long n = syscall(461 /* __NR_lsm_list_modules */, ids, &size, 0);
	if (n <= 0)
		return;
	size_t used = 0;
	out[0] = 0;
	for (long i = 0; i < n && i < 32; i++) {
		uint64_t k = ids[i] - 100;
		const char *nm = k < sizeof names / sizeof *names ? names[k] : "?";
		used += (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s",
					 i ? "," : "", nm);
	}
#else
	(void)out; (void)len;
#endif
}

bool aa_available(char *why, size_t whylen)
{
	if (aa_is_enabled() == 1)
		return true;
	char lsm[256] = "unknown";
	FILE *f = fopen("/sys/kernel/security/lsm", "r");
	if (f) {
		if (fgets(lsm, sizeof lsm, f))
			lsm[strcspn(lsm, "\n")] = 0;
		fclose(f);
	} else {
		lsms_from_syscall(lsm, sizeof lsm);
	}
	snprintf(why, whylen, "this kernel has no AppArmor (active LSMs: %s)", lsm);
	return false;
}

/* Run apparmor_parser -r on path; 0 on success. */
static int load_profile(const char *path)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *argv[] = { "apparmor_parser", "-r", "-K", "-q", (char *)path, NULL };
		execvp(argv[0], argv);
		execv("/sbin/apparmor_parser", argv);
		execv("/usr/sbin/apparmor_parser", argv);
		fprintf(stderr, "polc: cannot run apparmor_parser: %s\n", strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int aa_load_profile(const char *text, size_t len, char *err, size_t errlen)
{
	char tmp[] = "/tmp/polc-apparmor-XXXXXX";
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "cannot create a temporary profile: %s", strerror(errno));
		return -1;
	}
	bool ok = write(fd, text, len) == (ssize_t)len;
	int e = errno;
	close(fd);
	int rc = -1;
	if (!ok)
		snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(e));
	else if (load_profile(tmp) < 0)
		snprintf(err, errlen, "apparmor_parser could not load the profile (see its message above)");
	else
		rc = 0;
	unlink(tmp);
	return rc;
}

int aa_remove_profile(const char *name)
{
	static const char *const iface[] = { "/sys/kernel/security/apparmor/.remove",
					     "/sys/kernel/security/apparmor/policy/.remove" };
	for (size_t i = 0; i < sizeof iface / sizeof *iface; i++) {
		int fd = open(iface[i], O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = write(fd, name, strlen(name));
		close(fd);
		return n == (ssize_t)strlen(name) ? 0 : -1;
	}
	return -1;
}

int aa_confine(const ir_policy *p, bool allow_partial)
{
	char why[300];
	if (!aa_available(why, sizeof why)) {
		fprintf(stderr, "polc: %s\n", why);
		return EXIT_SYSTEM;
	}
	diag_ctx d;
	diag_init(&d);
	buf out;
	buf_init(&out);
	backend_opts o = { .format = "profile", .allow_partial = allow_partial,
			   .polc_version = POLC_VERSION };
	int r = backend_apparmor.emit(p, &o, &out, &d);
	diag_print(&d, stderr, false);
	diag_free(&d);
	if (r < 0) {
		buf_free(&out);
		return EXIT_POLICY;
	}
	char err[300];
	r = EXIT_SYSTEM;
	if (aa_load_profile(out.data, out.len, err, sizeof err) < 0)
		fprintf(stderr, "polc: %s\n", err);
	else if (aa_change_onexec(p->name) < 0)
		fprintf(stderr, "polc: cannot change to profile %s on exec: %s\n",
			p->name, strerror(errno));
	else
		r = EXIT_OK;
	buf_free(&out);
	return r;
}

/* ---- polc verify: the probes' confinement (backend.h) ---- */

/* The policy (named c->tag by verify) loaded as a profile, replacing the
 * one the last call loaded. */
int aa_probe_load(const ir_policy *p, backend_confine *c, char *err, size_t n)
{
	diag_ctx d;
	diag_init(&d);
	buf out;
	buf_init(&out);
	backend_opts o = { "profile", false, NULL, POLC_VERSION };
	int rc = -1;
	if (backend_apparmor.emit(p, &o, &out, &d) < 0) {
		diag_print(&d, stderr, false);
		snprintf(err, n, "the apparmor backend failed to build the profile");
	} else {
		rc = aa_load_profile(out.data, out.len, err, n);
		snprintf(c->where, sizeof c->where, "%s", p->name);
	}
	buf_free(&out);
	diag_free(&d);
	return rc;
}

void aa_probe_unload(backend_confine *c)
{
	if (c->where[0])
		aa_remove_profile(c->where);
	c->where[0] = 0;
}

int aa_probe_open(const backend_confine *c, char *why, size_t n)
{
	(void)c;
	int fd = open("/proc/self/attr/apparmor/current", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open("/proc/self/attr/current", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		snprintf(why, n, "open /proc/self/attr: %s", strerror(errno));
	return fd;
}

int aa_probe_enter(const backend_confine *c, int fd, char *why, size_t n)
{
	char cmd[800];
	int len = snprintf(cmd, sizeof cmd, "changeprofile %s", c->where);
	if (write(fd, cmd, (size_t)len) != len) {
		snprintf(why, n, "cannot enter the confinement: %s", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

/* AppArmor fails denials with EACCES (EPERM for capabilities), which
 * agrees with the language's default errno EPERM. */
bool aa_errno_agrees(int want, int got)
{
	return want == EPERM && got == EACCES;
}
