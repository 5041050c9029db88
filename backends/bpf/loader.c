/* loader.c - see loader.h. */
#include "loader.h"
#include "tripwire.h"
#include "backends/bpf/enforcer.skel.h"
#include "../../base/base.h"
#include "../../base/strset.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <sys/file.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

static const char *const pinned_maps[] = { "polc_cgroups", "polc_blob", "polc_counters",
					   "polc_events", "polc_drops", "polc_fast", "polc_needs",
					   "polc_sends", "polc_gen" };
enum { M_CGROUPS, M_BLOB, M_COUNTERS, M_EVENTS, M_DROPS, M_FAST, M_NEEDS, M_SENDS, M_GEN, M_N };
#define M_OLDEST_LAYOUT M_FAST   /* maps from here on: an older layout may lack them */

static void seterr(char *err, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
}

/* libbpf's own messages: kept (last line, and the line naming a program
 * the kernel refused) for our one-line error, shown in full (the verifier's
 * log among them) only with POLC_DEBUG set, read once per object opened
 * (libbpf_debug): opening the object calls it 2,376 times. */
static char libbpf_last[256], libbpf_prog_refused[256];
static bool libbpf_debug;
static int libbpf_quiet(enum libbpf_print_level lvl, const char *fmt, va_list ap)
{
	if (lvl == LIBBPF_DEBUG && !libbpf_debug)
		return 0;
	if (lvl <= LIBBPF_WARN) {
		va_list aq;
		va_copy(aq, ap);
		vsnprintf(libbpf_last, sizeof libbpf_last, fmt, aq);
		va_end(aq);
		libbpf_last[strcspn(libbpf_last, "\n")] = 0;
		if (strstr(libbpf_last, "BPF program load failed"))
			memcpy(libbpf_prog_refused, libbpf_last, sizeof libbpf_prog_refused);
	}
	return libbpf_debug ? vfprintf(stderr, fmt, ap) : 0;
}

int bpfl_lsm_active(char *lsms, size_t n)
{
	lsms[0] = 0;
	FILE *f = fopen("/sys/kernel/security/lsm", "r");
	if (f) {
		if (!fgets(lsms, (int)n, f))
			lsms[0] = 0;
		fclose(f);
	}
	lsms[strcspn(lsms, "\n")] = 0;
	if (!lsms[0])
		return -1;   /* without securityfs the list is unknown */
	for (const char *w = lsms; *w; w += strcspn(w, ","), w += *w == ',')
		if (!strncmp(w, "bpf", 3) && (w[3] == ',' || !w[3]))
			return 1;
	return 0;
}

void bpfl_load_error(char *err, size_t n, int e, int bpf_lsm, const char *refused,
		     const char *detail)
{
	/* libbpf's "prog 'NAME': BPF program load failed: ..." */
	static const char pre[] = "prog '";
	char prog[96] = "one of the enforcer's programs";
	const char *name = refused ? strstr(refused, pre) : NULL, *end = NULL;
	if (name) {
		name += sizeof pre - 1;
		end = strchr(name, '\'');
	}
	if (end)
		snprintf(prog, sizeof prog, "the enforcer's program %.*s", (int)(end - name), name);
	if (!bpf_lsm)
		seterr(err, n, "this kernel refuses BPF LSM programs (loading the enforcer: %s): bpf "
		       "is not among its LSMs (/sys/kernel/security/lsm); BPF LSM needs lsm=...,bpf "
		       "on the kernel command line (the kernel lab: tests/vm/run-in-vm.sh)",
		       strerror(e));
	else if (e == EPERM && bpf_lsm > 0)
		seterr(err, n, "this kernel refuses BPF LSM programs (loading the enforcer: %s): bpf "
		       "is an active LSM here, but loading its programs is not permitted (not root, "
		       "or BPF trampolines blocked); the kernel lab runs them: tests/vm/run-in-vm.sh",
		       strerror(e));
	else if (e == EPERM)
		seterr(err, n, "this kernel refuses BPF LSM programs (loading the enforcer: %s): BPF "
		       "LSM needs root, lsm=...,bpf on the kernel command line and BPF trampolines "
		       "allowed (the kernel lab: tests/vm/run-in-vm.sh)", strerror(e));
	else if (e == EACCES || end)
		seterr(err, n, "the BPF verifier refused %s (%s); run polc again with POLC_DEBUG=1 "
		       "to have the verifier's log on stderr", prog, strerror(e));
	else
		seterr(err, n, "the kernel rejected the enforcer program: %s (%s)", strerror(e),
		       detail ? detail : "");
}

int bpfl_cgroup_root(char *out, size_t n)
{
	return cgroup2_mount(out, n);
}

unsigned long long bpfl_cgroup_id(const char *cg, char *err, size_t n)
{
	struct statfs sf;
	struct stat st;
	if (statfs(cg, &sf) < 0 || stat(cg, &st) < 0) {
		seterr(err, n, "cannot open cgroup '%s': %s", cg, strerror(errno));
		return 0;
	}
	if (sf.f_type != CGROUP2_SUPER_MAGIC || !S_ISDIR(st.st_mode)) {
		seterr(err, n, "'%s' is not a cgroup v2 directory", cg);
		return 0;
	}
	return (unsigned long long)st.st_ino;   /* cgroup v2: the id is the inode number */
}

/* The bundle layout the pinned enforcer reads, written when it is pinned.
 * A pinned enforcer outlives the polc that pinned it: one of another layout
 * must never be fed bundles it would misread (a layout-2 enforcer reads a
 * layout-3 file DFA's worst entry as entry 0, the defaults, and allows). */
#define LAYOUT_FILE BPFL_STATE_DIR "/enforcer.layout"

static void remove_pins(void)
{
	unlink(LAYOUT_FILE);   /* first: never a stale claim beside another enforcer */
	DIR *d = opendir(BPFL_PIN_DIR);
	if (d) {
		struct dirent *e;
		while ((e = readdir(d)))
			if (e->d_name[0] != '.') {
				char p[512];
				snprintf(p, sizeof p, "%s/%s", BPFL_PIN_DIR, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(BPFL_PIN_DIR);
}

/* polc_fast, polc_needs, polc_sends and polc_gen may be missing (-1): an enforcer of an older
 * layout had none, and the layout check, not a failed open, must decide
 * what becomes of it. */
static int open_pinned(int fds[M_N])
{
	for (int i = 0; i < M_N; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", BPFL_PIN_DIR, pinned_maps[i]);
		fds[i] = bpf_obj_get(p);
		if (fds[i] < 0 && i < M_OLDEST_LAYOUT) {
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

static void close_fds(int fds[M_N])
{
	for (int i = 0; i < M_N; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* What each enforcer program decides (enforcer.bpf.c), as BPFB_NEEDS_*
 * classes. A program is attached when the first loaded policy decides one
 * of its classes (bpfb_needs) and stays attached until the enforcer goes:
 * until then it would allow every event it sees, and a task that no policy
 * needs it for pays nothing for it. The enforcer's own protection is not
 * here: the enforcer marks those programs where it defines them
 * (SELF_PROTECTION, read by read_self_protection()) and they are attached with
 * the first policy that decides anything (needs not 0): they keep such a
 * policy in force, and refuse nothing to a task whose policy decides
 * nothing (enforcer.bpf.c, restricted_current), so while only such policies
 * are loaded no program is attached and no task pays a trampoline. */
#define NEEDS_WRITE (1u << POLC_CH_WRITE)
static const struct {
	const char *prog;
	uint32_t needs;
} hook_needs_table[] = {
	{ "polc_path_mknod", NEEDS_WRITE },
	{ "polc_path_mkdir", NEEDS_WRITE },
	{ "polc_path_rmdir", NEEDS_WRITE },
	{ "polc_path_unlink", NEEDS_WRITE },
	{ "polc_path_symlink", NEEDS_WRITE },
	{ "polc_path_truncate", NEEDS_WRITE },
	{ "polc_path_chmod", NEEDS_WRITE },
	{ "polc_path_chown", NEEDS_WRITE },
	/* the link channel, and the new-name rule over every content channel */
	{ "polc_path_link", BPFB_NEEDS_CHANS },
	{ "polc_path_rename", BPFB_NEEDS_CHANS },
	{ "polc_mmap_file", 1u << POLC_CH_MMAP },
	{ "polc_file_mprotect", 1u << POLC_CH_MMAP },
	{ "polc_file_lock", 1u << POLC_CH_LOCK },
	{ "polc_bprm_check", BPFB_NEEDS_BPRM },
	{ "polc_sb_mount", BPFB_NEEDS_MOUNT },
	{ "polc_move_mount", BPFB_NEEDS_MOUNT },
	{ "polc_sb_pivotroot", BPFB_NEEDS_MOUNT },
	{ "polc_capable", BPFB_NEEDS_CAP },
	{ "polc_ptrace", BPFB_NEEDS_PTRACE },
	{ "polc_task_kill", BPFB_NEEDS_SIGNAL },
	{ "polc_socket_create", BPFB_NEEDS_NET_CREATE },
	{ "polc_socket_connect", BPFB_NEEDS_NET_CONNECT },
	{ "polc_socket_bind", BPFB_NEEDS_NET_BIND },
	{ "polc_socket_listen", BPFB_NEEDS_NET_LISTEN },
	{ "polc_socket_accept", BPFB_NEEDS_NET_ACCEPT },
	/* an address given with the data is a connect to it too */
	{ "polc_socket_sendmsg", BPFB_NEEDS_NET_SEND | BPFB_NEEDS_NET_CONNECT },
	{ "polc_file_permission", BPFB_NEEDS_SPLICE },
	/* SCTP's doors to an address: connects and binds */
	{ "polc_sctp_bind_connect", BPFB_NEEDS_NET_CONNECT | BPFB_NEEDS_NET_BIND },
};
#define NHOOKS (sizeof hook_needs_table / sizeof *hook_needs_table)

/* prog's row in hook_needs_table, NHOOKS when it has none. */
static size_t hook_index(const char *prog)
{
	size_t i = 0;
	while (i < NHOOKS && strcmp(hook_needs_table[i].prog, prog))
		i++;
	return i;
}

/* The enforcer's object, opened, and the programs it marks as its own
 * protection: a BTF decl tag POLC_TAG_SELF_PROTECTION on the program's
 * function (enforcer.bpf.c), read in one pass over the object's BTF. */
typedef struct {
	struct polc_enforcer *skel;
	strset self;   /* the marked functions' names */
} enforcer_object;

static void read_self_protection(const struct btf *btf, strset *out)
{
	__u32 ntypes = btf ? btf__type_cnt(btf) : 0;
	for (__u32 id = 1; id < ntypes; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1 ||
		    strcmp(btf__name_by_offset(btf, t->name_off), POLC_TAG_SELF_PROTECTION))
			continue;
		const struct btf_type *f = btf__type_by_id(btf, t->type);
		if (f && btf_is_func(f))
			strset_add(out, btf__name_by_offset(btf, f->name_off));
	}
}

/* Opened (nothing loaded) with libbpf's messages kept for our one-line
 * errors: 0, or -1 with err set. */
static int open_enforcer_object(enforcer_object *eo, char *err, size_t n)
{
	memset(eo, 0, sizeof *eo);
	libbpf_debug = getenv("POLC_DEBUG") != NULL;
	libbpf_set_print(libbpf_quiet);
	eo->skel = polc_enforcer__open();
	if (!eo->skel) {
		seterr(err, n, "cannot open the enforcer program: %s", strerror(errno));
		return -1;
	}
	read_self_protection(bpf_object__btf(eo->skel->obj), &eo->self);
	return 0;
}

static void close_enforcer_object(enforcer_object *eo)
{
	polc_enforcer__destroy(eo->skel);
	strset_free(&eo->self);
}

static bool self_protection(const enforcer_object *eo, const char *prog)
{
	return strset_has(&eo->self, prog);
}

/* Attached with the enforcer: a program neither marked nor in the table
 * (never less enforcement than before the table knew of it;
 * bpfl_check_hooks refuses such a program). */
static bool attach_at_install(const enforcer_object *eo, const char *prog)
{
	return !self_protection(eo, prog) && hook_index(prog) == NHOOKS;
}

int bpfl_check_hooks(char *err, size_t n)
{
	enforcer_object eo;
	if (open_enforcer_object(&eo, err, n) < 0)
		return -1;
	size_t known = 0;
	int r = 0;
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, eo.skel->obj) {
		const char *name = bpf_program__name(prog);
		bool self = self_protection(&eo, name), listed = hook_index(name) < NHOOKS;
		if (self == listed) {
			seterr(err, n, "enforcer program %s is %s", name,
			       self ? "marked SELF_PROTECTION and in loader.c's hook table"
				    : "neither marked SELF_PROTECTION nor in loader.c's hook table");
			r = -1;
			break;
		}
		known += listed;
	}
	for (size_t i = 0; !r && i < NHOOKS; i++)
		if (!hook_needs_table[i].needs) {
			seterr(err, n, "loader.c's hook table row %s needs no class: it would never "
			       "be attached", hook_needs_table[i].prog);
			r = -1;
		}
	if (!r && known != NHOOKS) {
		seterr(err, n, "loader.c's hook table names %zu programs, the enforcer has %zu of them",
		       NHOOKS, known);
		r = -1;
	}
	close_enforcer_object(&eo);
	return r;
}

int bpfl_self_protection(char *out, size_t n, char *err, size_t errlen)
{
	enforcer_object eo;
	if (open_enforcer_object(&eo, err, errlen) < 0)
		return -1;
	size_t len = 0;
	out[0] = 0;
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, eo.skel->obj) {
		const char *name = bpf_program__name(prog);
		if (self_protection(&eo, name) && len < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", name);
	}
	close_enforcer_object(&eo);
	if (len >= n) {
		seterr(err, errlen, "more self-protection programs than %zu bytes name", n);
		return -1;
	}
	return 0;
}

static void pin_path(char *p, size_t n, const char *kind, const char *prog)
{
	snprintf(p, n, "%s/%s%s", BPFL_PIN_DIR, kind, prog);
}

/* Attach the pinned program prog, and pin the link so that it stays
 * attached; already attached is success. */
static int attach_pinned(const char *prog, char *err, size_t n)
{
	char lp[256], pp[256];
	pin_path(lp, sizeof lp, "link_", prog);
	if (access(lp, F_OK) == 0)
		return EXIT_OK;
	pin_path(pp, sizeof pp, "prog_", prog);
	int pfd = bpf_obj_get(pp);
	if (pfd < 0) {
		seterr(err, n, "cannot attach %s: %s", prog, strerror(errno));
		return EXIT_SYSTEM;
	}
	int lfd = bpf_raw_tracepoint_open(NULL, pfd);
	int e = errno;
	close(pfd);   /* the link holds the program */
	if (lfd < 0) {
		seterr(err, n, "cannot attach %s: %s", prog, strerror(e));
		return EXIT_SYSTEM;
	}
	int pinned = bpf_obj_pin(lfd, lp);
	e = errno;
	close(lfd);   /* the pin keeps it attached */
	if (pinned < 0) {
		seterr(err, n, "cannot attach %s: %s", prog, strerror(e));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

/* Attach the enforcer's own protection (the pinned programs it marks). */
static int attach_self_protection(char *err, size_t n)
{
	enforcer_object eo;
	if (open_enforcer_object(&eo, err, n) < 0)
		return EXIT_SYSTEM;
	int r = EXIT_OK;
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, eo.skel->obj) {
		const char *name = bpf_program__name(prog);
		if (self_protection(&eo, name) && (r = attach_pinned(name, err, n)) != EXIT_OK)
			break;
	}
	close_enforcer_object(&eo);
	return r;
}

/* Attach every program a policy deciding `needs` relies on: the enforcer's
 * own protection with any (an attached one: attach_pinned returns at once). */
static int attach_needed(uint32_t needs, char *err, size_t n)
{
	if (needs && attach_self_protection(err, n) != EXIT_OK)
		return EXIT_SYSTEM;
	for (size_t i = 0; i < NHOOKS; i++)
		if ((hook_needs_table[i].needs & needs) &&
		    attach_pinned(hook_needs_table[i].prog, err, n) != EXIT_OK)
			return EXIT_SYSTEM;
	return EXIT_OK;
}

bool bpfl_kernel_runs_nested(const struct btf *vmlinux)
{
	return vmlinux &&
	       btf__find_by_name_kind(vmlinux, "__bpf_prog_enter_sleepable_recur", BTF_KIND_FUNC) > 0;
}

/* The running kernel's answer (bpfl_kernel_runs_nested); an unreadable BTF
 * is left to the load, whose CO-RE relocations need it too. */
static int check_kernel_runs_nested(char *err, size_t n)
{
	struct btf *v = btf__load_vmlinux_btf();
	if (!v)
		return 0;
	bool ok = bpfl_kernel_runs_nested(v);
	btf__free(v);
	if (ok)
		return 0;
	seterr(err, n, "this kernel skips a BPF LSM program while another run of it is preempted "
	       "on the same CPU (its BTF has no __bpf_prog_enter_sleepable_recur: Linux before "
	       "6.2 without the backport of \"bpf: Remove prog->active check for bpf_lsm and "
	       "bpf_iter\"), and a skipped hook allows: no enforcer installed");
	return -1;
}

/* Load, attach and pin the enforcer; all or nothing. */
static int install_enforcer(char *err, size_t n)
{
	if (check_kernel_runs_nested(err, n) < 0)
		return EXIT_SYSTEM;
	enforcer_object eo;
	if (open_enforcer_object(&eo, err, n) < 0)
		return EXIT_SYSTEM;
	struct polc_enforcer *skel = eo.skel;
	/* path buffers: the shared ones and two per CPU (enforcer.bpf.c,
	 * pb_claim); too few only ever denies, so a failure here is harmless */
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu > 0)
		bpf_map__set_max_entries(skel->maps.polc_pbufs,
					 POLC_PBUF_SHARED + 2 * (unsigned)ncpu);
	libbpf_prog_refused[0] = 0;
	int r = polc_enforcer__load(skel);
	if (r) {
		char lsms[256];
		bpfl_load_error(err, n, -r, bpfl_lsm_active(lsms, sizeof lsms),
				libbpf_prog_refused, libbpf_last);
		close_enforcer_object(&eo);
		return EXIT_SYSTEM;
	}
	/* Before anything is pinned or attached: the verifier kept every
	 * callback and subprogram reference (6.1 removed a live one) */
	if (bpft_check_object(skel->obj, err, n) < 0) {
		close_enforcer_object(&eo);
		return EXIT_SYSTEM;
	}
	/* Only now that the kernel took the program: make sure there is a BPF
	 * filesystem to pin it in (as bpftool does). */
	struct statfs sf;
	if ((statfs("/sys/fs/bpf", &sf) < 0 || sf.f_type != BPF_FS_MAGIC) &&
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") < 0) {
		seterr(err, n, "/sys/fs/bpf is not a BPF filesystem and cannot be mounted: %s",
		       strerror(errno));
		close_enforcer_object(&eo);
		return EXIT_SYSTEM;
	}
	if (mkdir(BPFL_PIN_DIR, 0700) < 0 && errno != EEXIST) {
		seterr(err, n, "cannot create %s: %s", BPFL_PIN_DIR, strerror(errno));
		close_enforcer_object(&eo);
		return EXIT_SYSTEM;
	}
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, skel->obj) {
		char p[256];
		const char *name = bpf_program__name(prog);
		pin_path(p, sizeof p, "prog_", name);
		if (bpf_program__pin(prog, p)) {
			seterr(err, n, "cannot pin %s: %s", bpf_program__section_name(prog),
			       strerror(errno));
			goto fail;
		}
		if (attach_at_install(&eo, name) && attach_pinned(name, err, n) != EXIT_OK)
			goto fail;
	}
	for (int i = 0; i < M_N; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", BPFL_PIN_DIR, pinned_maps[i]);
		struct bpf_map *m = bpf_object__find_map_by_name(skel->obj, pinned_maps[i]);
		if (!m || bpf_map__pin(m, p)) {
			seterr(err, n, "cannot pin map %s: %s", pinned_maps[i], strerror(errno));
			goto fail;
		}
	}
	close_enforcer_object(&eo);
	return EXIT_OK;
fail:
	close_enforcer_object(&eo);
	remove_pins();
	return EXIT_SYSTEM;
}

static bool pinned_layout_ours(void)
{
	FILE *f = fopen(LAYOUT_FILE, "r");
	unsigned v = 0;
	bool ours = f && fscanf(f, "%u", &v) == 1 && v == BPFL_ENFORCER_ABI;
	if (f)
		fclose(f);
	return ours;
}

/* Whether the pinned enforcer holds a policy for any cgroup: 1, 0, or -1
 * when its cgroup map cannot be read. The pinned map itself is the
 * authority, not this polc's state files: another polc may keep its state
 * elsewhere, and replacing the enforcer under a policy in force would leave
 * that cgroup unconfined. The key is read at the map's own size, whatever
 * layout pinned it. */
static int holds_policies(int cgroups_fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof info;
	if (bpf_obj_get_info_by_fd(cgroups_fd, &info, &len) < 0 || !info.key_size)
		return -1;
	void *key = xmalloc(info.key_size);
	int held = bpf_map_get_next_key(cgroups_fd, NULL, key) == 0;
	free(key);
	return held;
}

static int ensure_enforcer(int fds[M_N], char *err, size_t n)
{
	if (open_pinned(fds) == 0) {
		if (pinned_layout_ours())
			return EXIT_OK;
		int held = holds_policies(fds[M_CGROUPS]);
		close_fds(fds);
		if (held) {
			seterr(err, n, "the enforcer pinned in %s reads another bundle layout than this "
			       "polc's (%u) and %s: unload them with the polc that loaded them, "
			       "then load again", BPFL_PIN_DIR, BPFL_ENFORCER_ABI,
			       held < 0 ? "its policy map cannot be read" : "holds policies in force");
			return EXIT_SYSTEM;
		}
		/* no policy depends on it: replace it */
	}
	remove_pins();   /* a partial leftover or another layout: start clean */
	int r = install_enforcer(err, n);
	if (r != EXIT_OK)
		return r;
	char v[16];
	int len = snprintf(v, sizeof v, "%u\n", BPFL_ENFORCER_ABI);
	mkdir(BPFL_STATE_DIR, 0755);
	if (write_file_atomic(LAYOUT_FILE, v, (size_t)len) < 0) {
		seterr(err, n, "cannot write %s: %s", LAYOUT_FILE, strerror(errno));
		remove_pins();
		return EXIT_SYSTEM;
	}
	if (open_pinned(fds) < 0) {
		seterr(err, n, "cannot open pinned maps in %s: %s", BPFL_PIN_DIR, strerror(errno));
		remove_pins();
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

static void state_path(char *p, size_t n, uint32_t id, const char *ext)
{
	snprintf(p, n, "%s/%u.%s", BPFL_STATE_DIR, id, ext);
}

static void drop_policy(int fds[M_N], uint32_t id)
{
	for (uint32_t c = 0;; c++) {
		struct polc_blob_key k = { id, c };
		if (bpf_map_delete_elem(fds[M_BLOB], &k) < 0)
			break;
	}
	struct polc_cnt_key k, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(fds[M_COUNTERS], prev, &next) == 0) {
		k = next;
		if (k.policy == id) {
			bpf_map_delete_elem(fds[M_COUNTERS], &k);
			prev = NULL;   /* restart: the iteration order changed */
			continue;
		}
		prev = &k;
	}
	char p[256];
	state_path(p, sizeof p, id, "bpfpol");
	unlink(p);
	state_path(p, sizeof p, id, "cgroup");
	unlink(p);
}

/* The least policy id no cgroup entry names and no policy holds (its
 * chunk 0 written): a policy kept after an uncounted change (set_cgroup)
 * is named by no entry, yet a stale memo entry may still apply it. */
static uint32_t free_id(int fds[M_N])
{
	bool used[POLC_MAX_POLICIES + 1] = { false };
	unsigned long long k, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(fds[M_CGROUPS], prev, &next) == 0) {
		struct polc_cg v;
		k = next;
		if (bpf_map_lookup_elem(fds[M_CGROUPS], &k, &v) == 0 && v.policy <= POLC_MAX_POLICIES)
			used[v.policy] = true;
		prev = &k;
	}
	struct polc_chunk *c = xcalloc(1, sizeof *c);
	uint32_t id = 1;
	for (; id <= POLC_MAX_POLICIES; id++) {
		struct polc_blob_key b = { id, 0 };
		if (!used[id] && bpf_map_lookup_elem(fds[M_BLOB], &b, c) < 0)
			break;
	}
	free(c);
	return id <= POLC_MAX_POLICIES ? id : 0;
}

static int save_state(const bpf_bundle *b, uint32_t id, const char *cg)
{
	buf bytes;
	buf_init(&bytes);
	bpfb_serialize(b, &bytes);
	char p[256];
	mkdir(BPFL_STATE_DIR, 0700);
	state_path(p, sizeof p, id, "bpfpol");
	int r = write_file_atomic(p, bytes.data, bytes.len);
	buf_free(&bytes);
	char *line = xasprintf("%s\n", cg);
	state_path(p, sizeof p, id, "cgroup");
	if (r == 0)
		r = write_file_atomic(p, line, strlen(line));
	free(line);
	return r;
}

/* A fresh policy serial (bpf_layout.h's polc_fast): never 0, and no two
 * loads draw the same one (64 random bits). */
static uint64_t policy_serial(void)
{
	uint64_t s = 0;
	while (s == 0)
		if (getrandom(&s, sizeof s, 0) != (ssize_t)sizeof s)
			s = 0;
	return s;
}

/* The blob's first POLC_FAST_WORDS words, zero past its end, and a fresh
 * serial, as policy id's value in polc_fast (enforcer.bpf.c reads them
 * there). Written twice: first with serial 0, which no run caches under,
 * then, after a full fence, with the fresh serial. One update is one
 * memcpy, whose stores other CPUs may see in any order (fast-string
 * stores on x86, arm64's overlapping tail copies): a run still holding a
 * reused id could see the fresh serial over some of the old policy's
 * words and keep what it walked there under that serial. */
static int write_window(int fd, const bpf_bundle *b, uint32_t id)
{
	struct polc_fast *f = xcalloc(1, sizeof *f);
	size_t cnt = b->nwords < POLC_FAST_WORDS ? b->nwords : POLC_FAST_WORDS;
	memcpy(f->w, b->w, cnt * 4);
	int r = bpf_map_update_elem(fd, &id, f, BPF_ANY);
	atomic_thread_fence(memory_order_seq_cst);   /* orders this CPU's stores, the kernel's too */
	f->serial = policy_serial();
	if (r == 0)
		r = bpf_map_update_elem(fd, &id, f, BPF_ANY);
	free(f);
	return r;
}

/* The one-entry maps polc_needs (u32) and polc_sends (u64) only ever widen
 * while the enforcer stays, since enforcer.bpf.c reads them before any
 * lookup: value |= bits, byte by byte so that one helper serves both
 * widths (size bytes, at most 8). name is the map's, for the error. */
static int widen_loaded(int fd, const char *name, const void *bits, size_t size, char *err,
			size_t n)
{
	uint32_t zero = 0;
	unsigned char all[8] = { 0 };
	const unsigned char *add = bits;
	if (fd < 0 || size > sizeof all || bpf_map_lookup_elem(fd, &zero, all) < 0)
		goto fail;
	for (size_t i = 0; i < size; i++)
		all[i] |= add[i];
	if (bpf_map_update_elem(fd, &zero, all, BPF_ANY) < 0)
		goto fail;
	return EXIT_OK;
fail:
	seterr(err, n, "cannot widen the enforcer's %s: %s", name, strerror(errno));
	return EXIT_SYSTEM;
}

/* One more cgroup entry written or removed: polc_gen counts them, and
 * what the enforcer's per-CPU memo found for a cgroup holds only while it
 * is unchanged. */
static int bump_gen(int fd)
{
	uint32_t zero = 0;
	uint64_t g = 0;
	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &g) < 0)
		return -1;
	g++;
	return bpf_map_update_elem(fd, &zero, &g, BPF_ANY) < 0 ? -1 : 0;
}

enum { CG_SET = 0, CG_UNCOUNTED = 1, CG_UNCHANGED = -1 };

/* Writes cgroup cgid's entry (v; NULL removes it), then counts the change
 * in polc_gen (the syscalls order the two). CG_UNCOUNTED: changed but not
 * counted, so a memo entry may still name the policy the change replaced
 * or removed: that policy must stay (dropped, its id could be given to
 * another cgroup's policy, which the stale entry would then apply).
 * Under the loader's lock. */
static int set_cgroup(int fds[M_N], unsigned long long cgid, const struct polc_cg *v, char *err,
		      size_t n)
{
	int r = v ? bpf_map_update_elem(fds[M_CGROUPS], &cgid, v, BPF_ANY)
		  : bpf_map_delete_elem(fds[M_CGROUPS], &cgid);
	if (r < 0) {
		seterr(err, n, "cannot %s the enforcer's cgroup entry: %s", v ? "write" : "remove",
		       strerror(errno));
		return CG_UNCHANGED;
	}
	if (bump_gen(fds[M_GEN]) < 0) {
		seterr(err, n, "cannot count the change in the enforcer's polc_gen: %s",
		       strerror(errno));
		return CG_UNCOUNTED;
	}
	return CG_SET;
}

/* Drops policy id once the cgroup change that released it is counted
 * (set_cgroup's result); else keeps it, saying so. */
static int retire_policy(int fds[M_N], uint32_t id, int set, char *err, size_t n)
{
	if (set == CG_SET) {
		drop_policy(fds, id);
		return EXIT_OK;
	}
	size_t l = strlen(err);
	if (set == CG_UNCOUNTED && l < n)
		snprintf(err + l, n - l, " (policy %u kept: a task may still be under it)", id);
	return EXIT_SYSTEM;
}

/* What this blob adds to polc_sends: the families whose sends without an
 * address it can decide (its header's send_open clear). As polc_sends
 * only widens, a bit clear there means no loaded policy decides such a
 * send, whoever makes it. */
static uint64_t decided_sends(const bpf_bundle *b)
{
	const struct polc_hdr *h = (const void *)b->w;
	return ~(h->send_open[0] | (uint64_t)h->send_open[1] << 32);
}

static int load_locked(const bpf_bundle *b, const char *cg, char *err, size_t n)
{
	const char *v = bpfb_validate(b->w, b->nwords);
	if (v) {
		seterr(err, n, "invalid bundle: %s", v);
		return EXIT_POLICY;
	}
	unsigned long long cgid = bpfl_cgroup_id(cg, err, n);
	if (!cgid)
		return EXIT_SYSTEM;
	int fds[M_N];
	int r = ensure_enforcer(fds, err, n);
	if (r != EXIT_OK)
		return r;
	struct polc_cg old = { 0 }, cur = { .policy = free_id(fds) };
	uint32_t id = cur.policy;
	bool had = bpf_map_lookup_elem(fds[M_CGROUPS], &cgid, &old) == 0;
	if (!id) {
		seterr(err, n, "%u policies loaded already (the limit)", POLC_MAX_POLICIES);
		close_fds(fds);
		return EXIT_SYSTEM;
	}
	size_t nchunks = (b->nwords + POLC_CHUNK_WORDS - 1) / POLC_CHUNK_WORDS;
	struct polc_chunk *c = xcalloc(1, sizeof *c);
	for (size_t i = 0; i < nchunks; i++) {
		size_t lo = i * POLC_CHUNK_WORDS, cnt = b->nwords - lo;
		if (cnt > POLC_CHUNK_WORDS)
			cnt = POLC_CHUNK_WORDS;
		memset(c, 0, sizeof *c);
		memcpy(c->w, b->w + lo, cnt * 4);
		struct polc_blob_key k = { id, (uint32_t)i };
		if (bpf_map_update_elem(fds[M_BLOB], &k, c, BPF_ANY) < 0) {
			seterr(err, n, "cannot write policy map chunk %zu of %zu: %s", i, nchunks,
			       strerror(errno));
			free(c);
			drop_policy(fds, id);
			close_fds(fds);
			return EXIT_SYSTEM;
		}
	}
	free(c);
	if (write_window(fds[M_FAST], b, id) < 0) {
		seterr(err, n, "cannot write the policy's window map: %s", strerror(errno));
		drop_policy(fds, id);
		close_fds(fds);
		return EXIT_SYSTEM;
	}
	/* the programs and polc_needs first: once the cgroup entry is
	 * written, the policy is in force */
	cur.needs = bpfb_needs(b->w, b->nwords);
	uint64_t sends = decided_sends(b);
	r = attach_needed(cur.needs, err, n);
	if (r == EXIT_OK)
		r = widen_loaded(fds[M_NEEDS], "polc_needs", &cur.needs, sizeof cur.needs, err, n);
	if (r == EXIT_OK)
		r = widen_loaded(fds[M_SENDS], "polc_sends", &sends, sizeof sends, err, n);
	if (r != EXIT_OK) {
		drop_policy(fds, id);
		close_fds(fds);
		return r;
	}
	if (save_state(b, id, cg) < 0) {
		seterr(err, n, "cannot save the policy's state for %s: %s", cg, strerror(errno));
		drop_policy(fds, id);
		close_fds(fds);
		return EXIT_SYSTEM;
	}
	int set = set_cgroup(fds, cgid, &cur, err, n);
	if (set == CG_SET) {
		if (had)
			drop_policy(fds, old.policy);   /* replaced: the new one is in force */
	} else if (set == CG_UNCHANGED) {
		drop_policy(fds, id);
		r = EXIT_SYSTEM;
	} else {
		/* in force, but a task's memo may not see it: back out (counted
		 * too) and drop it, or else keep both policies */
		char why[128];
		if (set_cgroup(fds, cgid, had ? &old : NULL, why, sizeof why) == CG_SET)
			drop_policy(fds, id);
		else
			retire_policy(fds, id, CG_UNCOUNTED, err, n);
		r = EXIT_SYSTEM;
	}
	close_fds(fds);
	return r;
}

static int unload_locked(const char *cg, char *err, size_t n)
{
	int fds[M_N], rc = EXIT_OK;
	if (open_pinned(fds) < 0) {
		seterr(err, n, "no BPF policy is loaded");
		return cg ? EXIT_SYSTEM : EXIT_OK;
	}
	if (cg) {
		unsigned long long cgid = bpfl_cgroup_id(cg, err, n);
		struct polc_cg v;
		if (!cgid || bpf_map_lookup_elem(fds[M_CGROUPS], &cgid, &v) < 0) {
			if (cgid)
				seterr(err, n, "no BPF policy is loaded on %s", cg);
			close_fds(fds);
			return EXIT_SYSTEM;
		}
		rc = retire_policy(fds, v.policy, set_cgroup(fds, cgid, NULL, err, n), err, n);
	} else {
		unsigned long long k;
		while (bpf_map_get_next_key(fds[M_CGROUPS], NULL, &k) == 0) {
			struct polc_cg v;
			bool held = bpf_map_lookup_elem(fds[M_CGROUPS], &k, &v) == 0;
			int set = set_cgroup(fds, k, NULL, err, n);
			if (set == CG_UNCHANGED) {
				rc = EXIT_SYSTEM;
				break;   /* the same key would come back */
			}
			if (held && retire_policy(fds, v.policy, set, err, n) != EXIT_OK)
				rc = EXIT_SYSTEM;
		}
	}
	bool last = holds_policies(fds[M_CGROUPS]) == 0;
	close_fds(fds);
	if (last)
		remove_pins();   /* nothing enforced: detach the program too */
	return rc;
}

/* Loads and unloads from several processes at once (two `polc run`s,
 * verifications side by side) must not pick the same policy id, nor
 * remove the pins under another's load: one at a time, by a lock file. */
static int lock_loader(void)
{
	mkdir(BPFL_STATE_DIR, 0755);
	int fd = open(BPFL_STATE_DIR "/lock", O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		while (flock(fd, LOCK_EX) < 0 && errno == EINTR)
			;
	return fd;
}

int bpfl_load(const bpf_bundle *b, const char *cg, char *err, size_t n)
{
	int lk = lock_loader();
	int r = load_locked(b, cg, err, n);
	if (lk >= 0)
		close(lk);
	return r;
}

int bpfl_unload(const char *cg, char *err, size_t n)
{
	int lk = lock_loader();
	int r = unload_locked(cg, err, n);
	if (lk >= 0)
		close(lk);
	return r;
}

/* Sum of a per-CPU u64 value. */
static unsigned long long percpu_sum(int fd, const void *key)
{
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return 0;
	unsigned long long *v = xcalloc((size_t)ncpu, sizeof *v), s = 0;
	if (bpf_map_lookup_elem(fd, key, v) == 0)
		for (int i = 0; i < ncpu; i++)
			s += v[i];
	free(v);
	return s;
}

/* The metadata line "stmt ID ..." of a saved bundle, or NULL. */
static const char *meta_stmt(const char *meta, uint32_t id, size_t *len)
{
	char pre[32];
	int pl = snprintf(pre, sizeof pre, "stmt %u ", id);
	for (const char *m = meta; m && *m;) {
		const char *nl = strchr(m, '\n');
		size_t l = nl ? (size_t)(nl - m) : strlen(m);
		if (l > (size_t)pl && !strncmp(m, pre, (size_t)pl)) {
			*len = l - (size_t)pl;
			return m + pl;
		}
		m += l + (nl != NULL);
	}
	return NULL;
}

static void show_policy(FILE *out, int fds[M_N], uint32_t id)
{
	char p[256], cg[512] = "?";
	state_path(p, sizeof p, id, "cgroup");
	FILE *f = fopen(p, "r");
	if (f) {
		if (fgets(cg, sizeof cg, f))
			cg[strcspn(cg, "\n")] = 0;
		fclose(f);
	}
	bpf_bundle b;
	memset(&b, 0, sizeof b);
	state_path(p, sizeof p, id, "bpfpol");
	buf raw;
	buf_init(&raw);
	if (buf_read_file(&raw, p) == 0 && bpfb_parse(raw.data, raw.len, &b))
		memset(&b, 0, sizeof b);
	buf_free(&raw);
	const char *name = "?";
	char nm[128] = "?";
	if (b.meta) {
		const char *q = strstr(b.meta, "\npolicy ");
		if (q && sscanf(q + 8, "%127s", nm) == 1)
			name = nm;
	}
	bpfb_stats st = { 0 };
	if (b.w)
		bpfb_get_stats(&b, &st);
	fprintf(out, "policy %s (id %u) on %s: %u statements, %zu KiB of map data\n", name, id,
		cg, st.nstmts, st.blob_bytes / 1024);
	struct polc_cnt_key k, next;
	void *prev = NULL;
	while (bpf_map_get_next_key(fds[M_COUNTERS], prev, &next) == 0) {
		k = next;
		prev = &k;
		if (k.policy != id)
			continue;
		size_t l = 0;
		const char *s = k.stmt == POLC_STMT_DEFAULT ? NULL : meta_stmt(b.meta, k.stmt, &l);
		fprintf(out, "  %llu  %s%.*s\n", percpu_sum(fds[M_COUNTERS], &k),
			k.stmt == POLC_STMT_DEFAULT ? "default" : s ? "stmt " : "stmt ?",
			(int)l, s ? s : "");
	}
	bpfb_free(&b);
}

int bpfl_status(FILE *out, char *err, size_t n)
{
	int fds[M_N];
	if (open_pinned(fds) < 0) {
		fprintf(out, "no BPF policy is loaded\n");
		return EXIT_OK;
	}
	unsigned long long k, next;
	void *prev = NULL;
	int count = 0;
	while (bpf_map_get_next_key(fds[M_CGROUPS], prev, &next) == 0) {
		struct polc_cg v;
		k = next;
		prev = &k;
		if (bpf_map_lookup_elem(fds[M_CGROUPS], &k, &v) == 0) {
			show_policy(out, fds, v.policy);
			count++;
		}
	}
	uint32_t zero = 0;
	size_t linked = 0, progs = 0;
	DIR *d = opendir(BPFL_PIN_DIR);
	for (struct dirent *e; d && (e = readdir(d));) {
		linked += !strncmp(e->d_name, "link_", 5);
		progs += !strncmp(e->d_name, "prog_", 5);
	}
	if (d)
		closedir(d);
	fprintf(out, "%d policies loaded; enforcer pinned at %s, %zu of its %zu programs attached "
		"(its own protection and those the policies need); %llu log records dropped\n",
		count, BPFL_PIN_DIR, linked, progs, percpu_sum(fds[M_DROPS], &zero));
	close_fds(fds);
	(void)err;
	(void)n;
	return EXIT_OK;
}

static int print_event(void *ctx, const struct polc_event *e)
{
	FILE *out = ctx;
	static const char *dn[POLC_ND] = { "syscall", "file", "exec", "capability",
					   "mount", "network", "ptrace", "signal" };
	static const char *vn[] = { "allow", "audit", "deny", "kill" };
	fprintf(out, "policy %u pid %u (%.16s): %s %s", e->policy, e->pid, e->comm,
		vn[POLC_DEC_VERDICT(e->decision)], e->domain < POLC_ND ? dn[e->domain] : "?");
	if (POLC_DEC_STMT(e->decision) == POLC_STMT_DEFAULT)
		fprintf(out, " by default");
	else
		fprintf(out, " by stmt %u", POLC_DEC_STMT(e->decision));
	if (e->detail[0])
		fprintf(out, ": %.128s", e->detail);
	fputc('\n', out);
	fflush(out);
	return 0;
}

struct bpfl_events {
	int fds[M_N];
	struct ring_buffer *rb;
	bpfl_event_fn fn;
	void *ctx;
};

static int pass_event(void *ctx, void *data, size_t len)
{
	struct bpfl_events *ev = ctx;
	return len < sizeof(struct polc_event) ? 0 : ev->fn(ev->ctx, data);
}

bpfl_events *bpfl_events_open(bpfl_event_fn fn, void *ctx, char *err, size_t n)
{
	bpfl_events *ev = calloc(1, sizeof *ev);
	if (!ev) {
		seterr(err, n, "out of memory");
		return NULL;
	}
	if (open_pinned(ev->fds) < 0) {
		seterr(err, n, "no BPF policy is loaded");
		free(ev);
		return NULL;
	}
	ev->fn = fn;
	ev->ctx = ctx;
	ev->rb = ring_buffer__new(ev->fds[M_EVENTS], pass_event, ev, NULL);
	if (!ev->rb) {
		seterr(err, n, "cannot read the event ring buffer: %s", strerror(errno));
		close_fds(ev->fds);
		free(ev);
		return NULL;
	}
	return ev;
}

int bpfl_events_poll(bpfl_events *ev, int timeout_ms)
{
	int r = ring_buffer__poll(ev->rb, timeout_ms);
	return r < 0 && r != -EINTR ? -1 : 0;
}

unsigned long long bpfl_events_dropped(bpfl_events *ev)
{
	uint32_t zero = 0;
	return percpu_sum(ev->fds[M_DROPS], &zero);
}

void bpfl_events_close(bpfl_events *ev)
{
	if (!ev)
		return;
	ring_buffer__free(ev->rb);
	close_fds(ev->fds);
	free(ev);
}

int bpfl_follow(FILE *out, int seconds, char *err, size_t n)
{
	bpfl_events *ev = bpfl_events_open(print_event, out, err, n);
	if (!ev)
		return EXIT_SYSTEM;
	for (int ms = 0; !seconds || ms < seconds * 1000; ms += 100)
		if (bpfl_events_poll(ev, 100) < 0)
			break;
	bpfl_events_close(ev);
	return EXIT_OK;
}
