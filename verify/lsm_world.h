/* lsm_world.h - inside verify/: the throwaway world an LSM probe child
 * builds before it enters the confinement (lsm_probe.c), and the
 * capability triggers (lsm_caps.c).
 *
 * Promises: everything here runs in a forked child that owns private
 * mount, network, UTS and IPC namespaces and a root that is a writable
 * overlay of the real one; nothing it creates is visible outside that
 * child, and nothing outside it is changed.
 */
#ifndef POLC_LSM_WORLD_H
#define POLC_LSM_WORLD_H

#include <stdbool.h>
#include <sys/types.h>

/* What one run of an operation gave: success, or the errno it failed with. */
typedef struct {
	bool ok;
	int err;
	bool isdir;         /* the probed path is a directory */
	bool skip;          /* the world could not be built; why says why */
	bool inconclusive;  /* the operation could not be reached; why says why */
	unsigned ops;       /* write probes: the operations that succeeded (a bit each) */
	char why[120];
} op_result;

/* Private namespaces and an overlay root (pivot_root); not root, in a
 * user namespace of its own first. 0 or -1 (why). */
int world_enter(op_result *r);
/* Make `path` exist: as a regular file (`exec`: a tiny static program that
 * exits 0), or a directory (`dir`). Directories that cannot take new
 * entries (read-only, procfs, sysfs, cgroupfs, devtmpfs) get a fresh tmpfs
 * mounted over them first; symlinks on the way become real directories, so
 * the kernel sees the path as written. 0 or -1 (why). */
int world_make_path(const char *path, bool exec, bool dir, op_result *r);
/* Put an address on lo (network byte order, family AF_INET or AF_INET6). */
int world_add_addr(int family, const unsigned char *addr, op_result *r);
/* A child process that waits to be killed (optionally as uid/gid 1234). */
pid_t world_peer(bool other_uid);

/* Capabilities. Each trigger needs exactly one capability: its setup runs
 * with every capability, its operation with only that one effective. */
typedef struct cap_trigger cap_trigger;
const cap_trigger *cap_trigger_find(int cap);   /* NULL: no trigger */
const char *cap_no_trigger_why(int cap);
int cap_trigger_setup(const cap_trigger *t, op_result *r);
/* Drop every effective capability but `cap` (keep == false: that one too). */
int caps_keep_only(int cap, bool keep);
void cap_trigger_op(const cap_trigger *t, op_result *r);

#endif
