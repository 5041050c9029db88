/* aalog.c - AppArmor's audit records of a complain-mode profile, read from
 * the kernel log (/dev/kmsg), as trace records (see tracer.h,
 * aalog_collect): what `polc run --target apparmor --mode audit` learnt.
 */
#include "tracer.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The value of ` key=` in rec: "quoted", or bare (AppArmor hex-encodes a
 * name with spaces or quotes: decoded when hex is set). NULL if absent. */
static char *field(const char *rec, const char *key, bool hex)
{
	char pat[48];
	snprintf(pat, sizeof pat, " %s=", key);
	const char *p = strstr(rec, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	if (*p == '"') {
		const char *e = strchr(++p, '"');
		return e ? xstrndup(p, (size_t)(e - p)) : NULL;
	}
	size_t n = strcspn(p, " \n");
	bool allhex = hex && n % 2 == 0 && n > 0;
	for (size_t i = 0; allhex && i < n; i++)
		allhex = isxdigit((unsigned char)p[i]);
	if (!allhex)
		return xstrndup(p, n);
	char *s = xmalloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++) {
		char b[3] = { p[2 * i], p[2 * i + 1], 0 };
		s[i] = (char)strtol(b, NULL, 16);
	}
	s[n / 2] = 0;
	return s;
}

static void file_rec(trace *t, const char *name, const char *mask)
{
	static const struct { char c; const char *perm; } m[] = {
		{ 'r', "read" }, { 'w', "write" }, { 'a', "append" }, { 'x', "exec" },
		{ 'm', "mmap" }, { 'l', "link" }, { 'k', "lock" }, { 'c', "write" },
		{ 'd', "write" },
	};
	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		if (strchr(mask, m[i].c))
			trace_file(t, name, m[i].perm, 0);
}

static void net_rec(trace *t, const char *op, const char *fam, const char *type)
{
	static const char *const ops[] = { "create", "bind", "connect", "listen", "accept" };
	const char *o = !strcmp(op, "sendmsg") ? "send" : NULL;
	for (size_t i = 0; !o && i < sizeof ops / sizeof *ops; i++)
		if (!strcmp(op, ops[i]))
			o = ops[i];
	if (!o || !fam)
		return;
	bool inet = !strcmp(fam, "inet") || !strcmp(fam, "inet6");
	const char *ty = !type ? "-" : !inet ? type : !strcmp(type, "stream") ? "tcp"
		       : !strcmp(type, "dgram") ? "udp" : type;
	trace_add(t, TR_NET, 1, 6, o, fam, ty, "-", "-", "ok");
}

/* One kmsg record; returns true if it was the profile's. */
static bool record(const char *rec, const char *profile, trace *t)
{
	if (!strstr(rec, " apparmor=\"ALLOWED\""))
		return false;
	char *prof = field(rec, "profile", true);
	size_t pl = strlen(profile);
	bool ours = prof && !strncmp(prof, profile, pl) &&
		    (!prof[pl] || !strncmp(prof + pl, "//", 2));
	free(prof);
	if (!ours)
		return false;
	char *op = field(rec, "operation", false), *name = field(rec, "name", true);
	char *mask = field(rec, "requested_mask", false), *cls = field(rec, "class", false);
	if (op && !strcmp(op, "capable")) {
		char *cap = field(rec, "capname", false);
		if (cap)
			trace_add(t, TR_CAP, 1, 2, cap, "ok");
		free(cap);
	} else if (cls && !strcmp(cls, "net")) {
		char *fam = field(rec, "family", false), *ty = field(rec, "sock_type", false);
		net_rec(t, op ? op : "", fam, ty);
		free(fam);
		free(ty);
	} else if (name && name[0] == '/' && mask) {
		if (op && !strcmp(op, "exec"))
			trace_exec(t, name, 0);
		file_rec(t, name, mask);
	}
	free(op);
	free(name);
	free(mask);
	free(cls);
	return true;
}

int aalog_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

uint64_t aalog_collect(int fd, const char *profile, trace *t)
{
	char rec[8192];
	uint64_t n = 0, suppressed = 0;
	for (;;) {
		ssize_t k = read(fd, rec, sizeof rec - 1);
		if (k < 0 && errno == EPIPE)
			continue;          /* overwritten records: go on */
		if (k <= 0)
			break;
		rec[k] = 0;
		const char *msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (strstr(msg, "callbacks suppressed"))
			suppressed += strtoull(strstr(msg, ":") ? strstr(msg, ":") + 1 : "0", NULL, 10);
		char *line = xasprintf(" %s", msg);   /* field() wants a space before a key */
		n += record(line, profile, t);
		free(line);
	}
	if (suppressed) {
		trace_meta(t, "lost", NULL, suppressed);
		trace_meta(t, "lost_reason", "kernel_log_ratelimit", suppressed);
	}
	return n;
}
