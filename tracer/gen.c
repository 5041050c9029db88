/* gen.c - a policy from traces (see gen.h). */
#include "gen.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include "../compiler/compile.h"
#include "../compiler/consts.h"
#include "../compiler/syscalls.h"

/* ---- sorted string sets ---- */

typedef struct {
	char **v;
	size_t n, cap;
} strset;

static void ss_add(strset *s, char *owned)
{
	xgrow(&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = owned;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void ss_sort_uniq(strset *s)
{
	if (!s->n)
		return;
	xqsort(s->v, s->n, sizeof *s->v, str_cmp);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (k && strcmp(s->v[k - 1], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
}

static void ss_free(strset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* ---- path generalisation ---- */

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

static void put_escaped(buf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strchr("*?[]{}\\", s[i]))
			buf_puts(b, "\\");
		buf_put(b, s + i, 1);
	}
}

/* Where a temp name's random part starts, or -1: the trailing run of >= 6
 * alphanumerics (after a "tmp" prefix), mixed (digit and letter, or upper
 * and lower case) so that plain words are left alone. mkstemp gives six,
 * mktemp(1) ten. */
static long random_tail(const char *s, size_t n)
{
	size_t st = n;
	while (st > 0 && isalnum((unsigned char)s[st - 1]))
		st--;
	if (n - st > 3 && !strncmp(s + st, "tmp", 3))
		st += 3;
	if (n - st < 6)
		return -1;
	bool dig = false, up = false, lo = false;
	for (size_t i = st; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		dig |= isdigit(c) != 0, up |= isupper(c) != 0, lo |= islower(c) != 0;
	}
	return ((dig && (up || lo)) || (up && lo)) ? (long)st : -1;
}

/* A component with runs of >= 3 digits (pids, sequence numbers) as '*'. */
static void put_digits_star(buf *b, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n) {
		size_t j = i;
		while (j < n && isdigit((unsigned char)s[j]))
			j++;
		if (j - i >= 3) {
			buf_puts(b, "*");
			i = j;
		} else if (j > i) {
			put_escaped(b, s + i, j - i);
			i = j;
		} else {
			put_escaped(b, s + i, 1);
			i++;
		}
	}
}

static bool under_tmp(const char *p)
{
	static const char *const roots[] = { "/tmp/", "/var/tmp/", "/dev/shm/", NULL };
	for (int i = 0; roots[i]; i++)
		if (strncmp(p, roots[i], strlen(roots[i])) == 0)
			return true;
	return false;
}

char *gen_generalize_path(const char *path, bool written)
{
	buf b;
	buf_init(&b);
	bool tmp = under_tmp(path);
	bool proc = strncmp(path, "/proc/", 6) == 0;
	int idx = 0;
	const char *s = path;
	while (*s == '/') {
		s++;
		const char *e = strchr(s, '/');
		size_t n = e ? (size_t)(e - s) : strlen(s);
		bool last = !e;
		idx++;
		buf_puts(&b, "/");
		if (proc && idx == 2 && (all_digits(s, n) || (n == 4 && !strncmp(s, "self", 4))))
			buf_puts(&b, "*");
		else if (proc && idx == 2 && n == 11 && !strncmp(s, "thread-self", 11))
			buf_puts(&b, "*/task/*");
		else if (proc && idx == 4 && all_digits(s, n) && strstr(path, "/task/"))
			buf_puts(&b, "*");
		else if (tmp && idx >= 2 && random_tail(s, n) >= 0) {
			put_escaped(&b, s, (size_t)random_tail(s, n));
			buf_puts(&b, "*");
		} else if ((written || tmp) && last)
			put_digits_star(&b, s, n);
		else
			put_escaped(&b, s, n);
		s += n;
	}
	if (!b.len)
		buf_puts(&b, "/");
	return buf_cstr(&b);
}

/* Collapse: a directory with >= T entries becomes dir/\*; a directory
 * (at least two levels deep) holding >= 2 collapsed subdirectories becomes
 * dir/\**. Entries covered by a new glob are dropped. */
static char *parent_of(const char *p)
{
	const char *sl = strrchr(p, '/');
	return xstrndup(p, sl ? (size_t)(sl - p) : 0);
}

static int depth(const char *p)
{
	int d = 0;
	for (; *p; p++)
		d += *p == '/';
	return d;
}

static bool covered(const char *path, const char *dir, bool deep)
{
	size_t n = strlen(dir);
	if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1])
		return false;
	return deep || !strchr(path + n + 1, '/');
}

/* The directory an entry counts towards: its parent; in deep mode only
 * collapsed "X/child/\*" entries count, towards X. NULL: counts nowhere. */
static char *group_of(const char *e, bool deep)
{
	size_t l = strlen(e);
	if (!deep)
		return parent_of(e);
	if (l < 2 || strcmp(e + l - 2, "/*") != 0)
		return NULL;
	char *par = xstrndup(e, l - 2);
	char *gp = parent_of(par);
	free(par);
	return gp;
}

static void collapse_level(strset *s, unsigned T, bool deep)
{
	strset groups = { 0 }, globs = { 0 };
	for (size_t i = 0; i < s->n; i++) {
		char *g = group_of(s->v[i], deep);
		if (g)
			ss_add(&groups, g);
	}
	if (groups.n)
		xqsort(groups.v, groups.n, sizeof *groups.v, str_cmp);
	for (size_t i = 0; i < groups.n;) {
		size_t j = i;
		while (j < groups.n && !strcmp(groups.v[j], groups.v[i]))
			j++;
		const char *dir = groups.v[i];
		bool ok = *dir && (deep ? j - i >= 2 && depth(dir) >= 2 : j - i >= T);
		if (ok)
			ss_add(&globs, xasprintf("%s/%s", dir, deep ? "**" : "*"));
		i = j;
	}
	ss_free(&groups);
	if (!globs.n)
		return;
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		bool drop = false;
		for (size_t g = 0; g < globs.n && !drop; g++) {
			size_t l = strlen(globs.v[g]);
			char *dir = xstrndup(globs.v[g], l - (deep ? 3 : 2));
			drop = covered(s->v[i], dir, deep);
			free(dir);
		}
		if (drop)
			free(s->v[i]);
		else
			s->v[k++] = s->v[i];
	}
	s->n = k;
	for (size_t g = 0; g < globs.n; g++)
		ss_add(s, globs.v[g]);
	free(globs.v);
	ss_sort_uniq(s);
}

/* ---- the policy text ---- */

static void put_string(buf *b, const char *s)
{
	buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_puts(b, "\\");
		buf_put(b, s, 1);
	}
	buf_puts(b, "\"");
}

static bool result_ok(const gen_opts *o, const char *res, bool connect)
{
	/* A non-blocking connect in progress is a connect that was allowed. */
	return o->include_failed || !strcmp(res, "ok") ||
	       (connect && !strcmp(res, "EINPROGRESS"));
}

static const char *const file_perms[] = { "read", "write", "append", "exec", "mmap",
	"link", "lock" };
enum { NPERM = 7 };

static unsigned perm_bit(const char *p)
{
	for (int i = 0; i < NPERM; i++)
		if (!strcmp(p, file_perms[i]))
			return 1u << i;
	return 0;
}

typedef struct {
	const ir_policy *base;     /* NULL: no base */
} gen_ctx;

static bool base_allows(const gen_ctx *c, const ir_event *ev)
{
	return c->base && ir_decide(c->base, ev).verdict == IR_ALLOW;
}

static int arch_of(const char *a)
{
	return !strcmp(a, "i386") ? IR_ARCH_I386 : !strcmp(a, "x32") ? IR_ARCH_X32 : IR_ARCH_X86_64;
}

static int by_name(const void *a, const void *b)
{
	const tr_rec *x = *(tr_rec *const *)a, *y = *(tr_rec *const *)b;
	int c = strcmp(x->f[1], y->f[1]);
	return c ? c : strcmp(x->f[0], y->f[0]);
}

static void gen_syscalls(const gen_ctx *c, tr_rec **v, size_t n, buf *out)
{
	unsigned arches = 0;
	size_t nsel = 0, nunknown = 0;
	tr_rec **sel = xmalloc((n + 1) * sizeof *sel);
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_SYSCALL)
			continue;
		int a = arch_of(v[i]->f[0]);
		int nr = sys_resolve((ir_arch)a, v[i]->f[1]);
		if (nr < 0) {
			buf_printf(out, "  # syscall %s on %s (%llu calls) is unknown to polc\n",
				   v[i]->f[1], v[i]->f[0], (unsigned long long)v[i]->count);
			nunknown++;
			continue;
		}
		ir_event ev = { .domain = IR_SYSCALL };
		ev.u.sys.audit_arch = ir_arch_audit((ir_arch)a);
		ev.u.sys.nr = (uint32_t)nr;
		if (base_allows(c, &ev))
			continue;
		arches |= 1u << a;
		sel[nsel++] = v[i];
	}
	/* One list, sorted by name (records are sorted by arch, then name). */
	xqsort(sel, nsel, sizeof *sel, by_name);
	if (arches & ~1u) {
		buf_puts(out, "  arch x86_64");
		if (arches & (1u << IR_ARCH_I386)) buf_puts(out, ", i386");
		if (arches & (1u << IR_ARCH_X32)) buf_puts(out, ", x32");
		buf_puts(out, ";\n");
	}
	if (nsel) {
		buf_puts(out, "  allow syscall\n");
		for (size_t i = 0; i < nsel; i++) {
			/* Same name on two arches: one entry with both counts. */
			uint64_t cnt = sel[i]->count;
			size_t j = i;
			while (j + 1 < nsel && !strcmp(sel[j + 1]->f[1], sel[i]->f[1]))
				cnt += sel[++j]->count;
			bool lastone = j + 1 == nsel;
			char item[128];
			snprintf(item, sizeof item, "    %s%s", sel[i]->f[1], lastone ? ";" : ",");
			buf_printf(out, "%-32s # %llu\n", item, (unsigned long long)cnt);
			i = j;
		}
	}
	(void)nunknown;
	free(sel);
}

/* The ELF interpreter (PT_INTERP) of the program at path, resolved as the
 * kernel opens it, or NULL (not on this host, not ELF64, static). */
static char *elf_interp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *res = NULL;
	Elf64_Ehdr eh;
	if (fread(&eh, sizeof eh, 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		for (unsigned i = 0; i < eh.e_phnum && i < 256 && !res; i++) {
			Elf64_Phdr ph;
			if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof ph), SEEK_SET) ||
			    fread(&ph, sizeof ph, 1, f) != 1)
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz < 2 || ph.p_filesz > PATH_MAX)
				continue;
			char name[PATH_MAX + 1] = "", real[PATH_MAX];
			if (fseek(f, (long)ph.p_offset, SEEK_SET) ||
			    fread(name, 1, ph.p_filesz, f) != ph.p_filesz)
				break;
			name[ph.p_filesz] = 0;
			if (name[0] == '/' && realpath(name, real))
				res = xstrdup(real);
			break;
		}
	}
	fclose(f);
	return res;
}

static void add_file(const gen_ctx *c, strset *per, const char *path, unsigned bit)
{
	ir_event ev = { .domain = IR_FILE };
	ev.u.file.path = path;
	ev.u.file.perm = bit;
	if (base_allows(c, &ev))
		return;
	bool written = bit & (IR_PERM_WRITE | IR_PERM_APPEND | IR_PERM_LINK | IR_PERM_LOCK);
	ss_add(&per[__builtin_ctz(bit)], gen_generalize_path(path, written));
}

static void gen_files(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset per[NPERM] = { { 0 } };
	/* An exec is also a file access that only an LSM sees (no syscall
	 * opens the file): the kernel opens the program and its ELF interpreter
	 * for execute, reads them and maps them executable. polc allows an exec
	 * only where the file domain allows it too, so under `default deny
	 * file` a profile without these would refuse its own entry point. The
	 * interpreter is read from the program on this host. */
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_EXEC || !result_ok(o, v[i]->f[1], false))
			continue;
		char *interp = elf_interp(v[i]->f[0]);
		for (int k = 0; k < 2; k++) {
			const char *f = k ? interp : v[i]->f[0];
			if (f)
				for (unsigned bit = IR_PERM_READ; bit <= IR_PERM_MMAP; bit <<= 1)
					if (bit & (IR_PERM_READ | IR_PERM_EXEC | IR_PERM_MMAP))
						add_file(c, per, f, bit);
		}
		free(interp);
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_FILE || !result_ok(o, v[i]->f[2], false))
			continue;
		unsigned bit = perm_bit(v[i]->f[1]);
		if (!bit)
			continue;   /* stat: no permission in the language */
		add_file(c, per, v[i]->f[0], bit);
	}
	unsigned T = o->dir_threshold ? o->dir_threshold : 8;
	/* glob -> perms, via one sorted list of "glob\x01permindex". */
	strset all = { 0 };
	for (int p = 0; p < NPERM; p++) {
		ss_sort_uniq(&per[p]);
		collapse_level(&per[p], T, false);
		collapse_level(&per[p], T, true);
		for (size_t i = 0; i < per[p].n; i++)
			ss_add(&all, xasprintf("%s\x01%d", per[p].v[i], p));
		ss_free(&per[p]);
	}
	ss_sort_uniq(&all);
	for (size_t i = 0; i < all.n;) {
		char *sep = strchr(all.v[i], '\x01');
		size_t gl = (size_t)(sep - all.v[i]);
		unsigned perms = 0;
		size_t j = i;
		for (; j < all.n && !strncmp(all.v[j], all.v[i], gl) && all.v[j][gl] == '\x01'; j++)
			perms |= 1u << atoi(all.v[j] + gl + 1);
		*sep = 0;
		buf_puts(out, "  allow file ");
		put_string(out, all.v[i]);
		const char *comma = " ";
		for (int p = 0; p < NPERM; p++)
			if (perms & (1u << p)) {
				buf_printf(out, "%s%s", comma, file_perms[p]);
				comma = ", ";
			}
		buf_puts(out, ";\n");
		i = j;
	}
	ss_free(&all);
}

static void gen_execs(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_EXEC || !result_ok(o, v[i]->f[1], false))
			continue;
		ir_event ev = { .domain = IR_EXEC };
		ev.u.exec.path = v[i]->f[0];
		if (base_allows(c, &ev))
			continue;
		char *g = gen_generalize_path(v[i]->f[0], false);
		buf_puts(out, "  allow exec ");
		put_string(out, g);
		buf_puts(out, ";\n");
		free(g);
	}
}

static int fam_num(const char *f)
{
	return !strcmp(f, "inet") ? AF_INET : !strcmp(f, "inet6") ? AF_INET6 :
	       !strcmp(f, "unix") ? AF_UNIX : !strcmp(f, "netlink") ? AF_NETLINK :
	       !strcmp(f, "packet") ? AF_PACKET : -1;
}

static ir_net_op netop_num(const char *op)
{
	return !strcmp(op, "bind") ? IR_NET_BIND : !strcmp(op, "connect") ? IR_NET_CONNECT :
	       !strcmp(op, "listen") ? IR_NET_LISTEN : !strcmp(op, "accept") ? IR_NET_ACCEPT :
	       !strcmp(op, "send") ? IR_NET_SEND : IR_NET_CREATE;
}

/* One network record as a statement, or NULL to skip it. */
static char *net_stmt(const gen_ctx *c, tr_rec *r)
{
	const char *op = r->f[0], *fam = r->f[1], *type = r->f[2], *addr = r->f[3],
		   *port = r->f[4];
	int af = fam_num(fam);
	if (!strcmp(op, "create") || af < 0)
		return NULL;
	bool inet = af == AF_INET || af == AF_INET6;
	const char *proto = inet && strcmp(type, "unknown") ? type : NULL;
	ir_event ev = { .domain = IR_NETWORK };
	ev.u.net.op = netop_num(op);
	ev.u.net.family = af;
	ev.u.net.type = proto && !strcmp(proto, "tcp") ? SOCK_STREAM :
			proto && !strcmp(proto, "raw") ? SOCK_RAW : SOCK_DGRAM;
	bool with_addr = inet && (!strcmp(op, "connect") || !strcmp(op, "send")) &&
			 strcmp(addr, "-") != 0;
	if (with_addr)
		ev.u.net.has_addr = inet_pton(af, addr, ev.u.net.addr) == 1;
	ev.u.net.port = strcmp(port, "-") ? (uint16_t)atoi(port) : 0;
	if (base_allows(c, &ev))
		return NULL;
	buf b;
	buf_init(&b);
	buf_printf(&b, "  allow network %s %s", op, fam);
	if (proto)
		buf_printf(&b, " %s", proto);
	if (with_addr && ev.u.net.has_addr)
		buf_printf(&b, " to %s", addr);
	/* Port 0 asks the kernel for any port: no port to name. */
	if (inet && strcmp(port, "-") && strcmp(port, "0"))
		buf_printf(&b, " port %s", port);
	buf_puts(&b, ";\n");
	return buf_cstr(&b);
}

static void gen_net(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset s = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_NET || !result_ok(o, v[i]->f[5], !strcmp(v[i]->f[0], "connect")))
			continue;
		char *st = net_stmt(c, v[i]);
		if (st)
			ss_add(&s, st);
	}
	ss_sort_uniq(&s);
	for (size_t i = 0; i < s.n; i++)
		buf_puts(out, s.v[i]);
	ss_free(&s);
}

static void gen_mounts(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_MOUNT || !result_ok(o, v[i]->f[4], false))
			continue;
		const char *op = v[i]->f[0], *fst = v[i]->f[2], *tgt = v[i]->f[3];
		ir_event ev = { .domain = IR_MOUNT };
		ev.u.mount.op = !strcmp(op, "mount") ? IR_MOUNT_MOUNT :
				!strcmp(op, "umount") ? IR_MOUNT_UMOUNT : IR_MOUNT_PIVOT_ROOT;
		ev.u.mount.fstype = strcmp(fst, "-") ? fst : NULL;
		ev.u.mount.target = strcmp(tgt, "-") ? tgt : NULL;
		if (base_allows(c, &ev))
			continue;
		if (ev.u.mount.op == IR_MOUNT_PIVOT_ROOT) {
			buf_puts(out, "  allow pivot_root;\n");
			continue;
		}
		buf_printf(out, "  allow %s", op);
		if (ev.u.mount.op == IR_MOUNT_MOUNT && ev.u.mount.fstype &&
		    strspn(fst, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(fst))
			buf_printf(out, " fstype %s", fst);
		if (ev.u.mount.target) {
			char *g = gen_generalize_path(tgt, false);
			buf_puts(out, " on ");
			put_string(out, g);
			free(g);
		}
		buf_puts(out, ";\n");
	}
}

static void gen_caps(const gen_ctx *c, const gen_opts *o, tr_rec **v, size_t n, buf *out)
{
	strset s = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_CAP || !result_ok(o, v[i]->f[1], false))
			continue;
		ir_event ev = { .domain = IR_CAPABILITY };
		ev.u.cap.cap = cap_from_name(v[i]->f[0]);
		if (ev.u.cap.cap < 0 || base_allows(c, &ev))
			continue;
		ss_add(&s, xstrdup(v[i]->f[0]));
	}
	ss_sort_uniq(&s);
	for (size_t i = 0; i < s.n; i++)
		buf_printf(out, "%s%s%s", i ? ", " : "  allow capability ", s.v[i],
			   i + 1 == s.n ? ";\n" : "");
	ss_free(&s);
}

static void gen_header(const trace *t, tr_rec **v, size_t n, buf *out)
{
	buf_printf(out, "# Generated by polc gen from %llu recorded run(s); review before use.\n",
		   (unsigned long long)trace_total(t, TR_META, "runs"));
	for (size_t i = 0; i < n; i++) {
		if (v[i]->kind != TR_META || v[i]->nf != 2)
			continue;
		if (!strcmp(v[i]->f[0], "command") || !strcmp(v[i]->f[0], "tracer") ||
		    !strcmp(v[i]->f[0], "exit")) {
			/* Keep the comment on one line whatever the command holds. */
			buf_printf(out, "# %s: ", v[i]->f[0]);
			for (const char *p = v[i]->f[1]; *p; p++)
				buf_put(out, (unsigned char)*p < ' ' ? "?" : p, 1);
			buf_printf(out, " (%llu)\n", (unsigned long long)v[i]->count);
		}
	}
	buf_printf(out, "# events lost while recording: %llu\n",
		   (unsigned long long)trace_total(t, TR_META, "lost"));
}

static ir_program base_prog;

static int load_base(const gen_opts *o, gen_ctx *c, char **err)
{
	char *text = xasprintf("policy gen-base {\n  default deny syscall%s%s;\n  use %s;\n}\n",
			       o->deny_defaults ? ", " : "",
			       o->deny_defaults ? o->deny_defaults : "", o->base);
	diag_ctx d;
	diag_init(&d);
	memset(&base_prog, 0, sizeof base_prog);
	compile_opts co = { 0 };
	int rc = polc_compile_text("<gen --base>", text, &co, &d, &base_prog);
	if (rc == 0)
		c->base = ir_program_select(&base_prog, "gen-base", &d);
	if (rc < 0 || !c->base) {
		buf b;
		buf_init(&b);
		buf_printf(&b, "cannot use base rule \"%s\"", o->base);
		for (size_t i = 0; i < d.n; i++)
			if (d.v[i].sev == DIAG_ERROR) {
				buf_printf(&b, ": %s", d.v[i].msg);
				break;
			}
		*err = buf_cstr(&b);
		ir_program_free(&base_prog);
		c->base = NULL;
		rc = -1;
	}
	diag_free(&d);
	free(text);
	return rc < 0 ? -1 : 0;
}

int gen_policy(const trace *t, const gen_opts *o, buf *out, char **err)
{
	gen_ctx c = { NULL };
	if (o->base && load_base(o, &c, err) < 0)
		return -1;
	size_t n;
	tr_rec **v = trace_sorted(t, &n);
	gen_header(t, v, n, out);
	buf_printf(out, "policy %s {\n", o->name);
	buf_printf(out, "  default deny syscall%s%s;\n", o->deny_defaults ? ", " : "",
		   o->deny_defaults ? o->deny_defaults : "");
	if (o->base)
		buf_printf(out, "  use %s;\n", o->base);
	buf body;
	buf_init(&body);
	gen_syscalls(&c, v, n, &body);
	gen_files(&c, o, v, n, &body);
	gen_execs(&c, o, v, n, &body);
	gen_net(&c, o, v, n, &body);
	gen_mounts(&c, o, v, n, &body);
	gen_caps(&c, o, v, n, &body);
	if (body.len)
		buf_put(out, body.data, body.len);
	buf_puts(out, "}\n");
	buf_free(&body);
	free(v);
	if (c.base)
		ir_program_free(&base_prog);
	return 0;
}
