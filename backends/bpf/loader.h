/* loader.h - installs bundles into the kernel: the one enforcer program
 * (libbpf skeleton), attached once and pinned under /sys/fs/bpf/polc/, and
 * per bundle its blob chunks and a cgroup -> policy entry.
 *
 * Takes: a parsed bundle (bundle.h) and a cgroup v2 directory.
 * Gives: load (replace if the cgroup already has one), unload (one cgroup
 *        or all), status (what is loaded where, denials per statement, ring
 *        buffer drops); copies of loaded bundles in /run/polc/ so status can
 *        name statements.
 * Promises: the cgroup entry is written last and removed first, so a
 *        cgroup is either enforced by a complete policy or not at all; if
 *        the kernel refuses the program (EPERM on hosts without BPF LSM),
 *        or its verifier removed a callback or subprogram reference
 *        (tripwire.h), nothing stays pinned and the error is one line. Tasks outside
 *        every enforced cgroup are never affected (the program returns
 *        before reading any policy). A program is attached once a loaded
 *        policy decides something it mediates (bpfb_needs), before that
 *        policy is in force; the enforcer's own protection always is.
 */
#ifndef POLC_BPF_LOADER_H
#define POLC_BPF_LOADER_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include "bundle.h"

#define BPFL_PIN_DIR "/sys/fs/bpf/polc"
#define BPFL_STATE_DIR "/run/polc"

/* What a polc and the pinned enforcer must agree on before it feeds it
 * bundles, recorded in BPFL_STATE_DIR/enforcer.layout: the blob layout,
 * that programs are attached on demand (a polc that attached them all at
 * install would load policies under programs never attached), and the
 * needs a cgroup's entry and polc_needs carry (an enforcer reading a bare
 * policy id, or polc_needs left 0, would let opens through undecided).
 * Blob version 5 brought polc_sends with send_open: an enforcer without it
 * has another layout by the version alone. A fix of a hole in the
 * enforcer bumps it too, so that no polc keeps feeding one with the hole. */
#define BPFL_ENFORCER_ABI (POLC_BLOB_VERSION * 16u + 8u)   /* 2: polc_cg values, polc_needs;
								   3: polc_fast's serial;
								   4: the exec memo void once
								   its task is switched out;
								   5: POLC_NEEDS_BPRM;
								   6: POLC_NEEDS_SPLICE,
								   file_permission;
								   7: a needs bit a
								   network operation;
								   8: addresses read as
								   the kernel reads them
								   (polc_addr_family) */

/* Each returns an exit code of base/base.h and, on failure, a one-line
 * reason in err. */
int bpfl_load(const bpf_bundle *b, const char *cgroup, char *err, size_t errlen);
int bpfl_unload(const char *cgroup /* NULL: all */, char *err, size_t errlen);
int bpfl_status(FILE *out, char *err, size_t errlen);
/* Print the ring buffer's deny/audit records for `seconds` (0: until
 * interrupted). */
int bpfl_follow(FILE *out, int seconds, char *err, size_t errlen);

/* The ring buffer's records as they come: fn is called for each (return 0
 * to go on) from bpfl_events_poll, which waits up to timeout_ms; -1 on an
 * error. NULL from open with err set when no enforcer is pinned. */
struct polc_event;
typedef struct bpfl_events bpfl_events;
typedef int (*bpfl_event_fn)(void *ctx, const struct polc_event *e);
bpfl_events *bpfl_events_open(bpfl_event_fn fn, void *ctx, char *err, size_t errlen);
int bpfl_events_poll(bpfl_events *ev, int timeout_ms);
unsigned long long bpfl_events_dropped(bpfl_events *ev);   /* records lost so far */
void bpfl_events_close(bpfl_events *ev);

/* Whether a kernel (its BTF) runs a BPF LSM program while another run of
 * it is preempted on the same CPU. Before Linux 6.2 ("bpf: Remove
 * prog->active check for bpf_lsm and bpf_iter"; some stable kernels have
 * it backported, Debian's 6.1 among them) the trampoline skipped such a
 * run, and a skipped LSM program allows: a task preempted in a sleepable
 * hook let every other call of it on that CPU through. The change split the
 * trampoline's entries into checking (_recur) and plain ones, so the
 * checking sleepable entry's name in the BTF says the kernel has it. The
 * loader installs no enforcer on a kernel without it. */
struct btf;
bool bpfl_kernel_runs_nested(const struct btf *vmlinux);

/* Check that every enforcer program is either marked as the enforcer's own
 * protection (enforcer.bpf.c, SELF_PROTECTION) or in loader.c's table of
 * what each program decides, never both, and that the table names only the
 * enforcer's programs, each with a class: 0, or -1 with err set.
 * Unprivileged (opens the object, loads nothing). */
int bpfl_check_hooks(char *err, size_t errlen);
/* The programs the enforcer marks as its own protection (attached with it,
 * whatever the policy says), space-separated in the object's order: 0, or
 * -1 with err set. Unprivileged. */
int bpfl_self_protection(char *out, size_t n, char *err, size_t errlen);

/* Whether bpf is among the kernel's active LSMs: 1, 0, or -1 when
 * securityfs cannot tell; the active LSMs' list in lsms ("" if unknown). */
int bpfl_lsm_active(char *lsms, size_t n);

/* The one-line reason the kernel did not take the enforcer, in err: e is
 * the load's errno; bpf_lsm whether bpf is among the kernel's active LSMs
 * (1, 0, -1: cannot tell); refused libbpf's line naming the program the
 * kernel refused ("prog 'NAME': BPF program load failed: ..."), or NULL;
 * detail libbpf's last message. No BPF LSM, or EPERM (not root, BPF
 * trampolines blocked), is the kernel refusing BPF LSM programs; EACCES, or
 * a refused program otherwise, the verifier refusing that program, whose
 * log POLC_DEBUG=1 prints. */
void bpfl_load_error(char *err, size_t errlen, int e, int bpf_lsm, const char *refused,
		     const char *detail);

/* The cgroup v2 mount point (the unified hierarchy): 0, or -1 if none. */
int bpfl_cgroup_root(char *out, size_t n);

/* The cgroup v2 id of a directory, or 0 with err set. */
unsigned long long bpfl_cgroup_id(const char *cgroup, char *err, size_t errlen);

#endif
