/* tracer/ - the learning stage: record what a command does into a trace
 * (ptrace, eBPF, seccomp user notification, AppArmor's log), and turn
 * traces into policy source (gen.h). Reads the IR, never a backend.
 *
 * tracer.h - record what a command (or a running cgroup) does, into a trace.
 *
 * Takes: a command line (or a cgroup path, eBPF only) and options.
 * Gives: a trace (trace.h) of the whole process tree: syscall counts per
 *        arch, file accesses with results, execs, network operations,
 *        mounts, implied capabilities, and meta (command, tracer, duration,
 *        exit, processes, lost events).
 * Promises: the recording ends when the tree exits, the duration ends or on
 *        SIGINT/SIGTERM; in the last two cases the tree is killed and the
 *        trace is still complete for what ran. Every event a tracer could not
 *        record is counted in meta lost. The ptrace tracer loses nothing; it
 *        stops the tracee once per syscall (seccomp RET_TRACE for all, as
 *        strace --seccomp-bpf) and twice for the syscalls it decodes.
 */
#ifndef POLC_TRACER_H
#define POLC_TRACER_H

#include <stdbool.h>
#include <signal.h>
#include <sys/types.h>
#include "trace.h"

typedef struct {
	char *const *argv;     /* command; NULL with cgroup */
	const char *cgroup;    /* record an existing cgroup (eBPF only) */
	double duration;       /* seconds; 0: until the tree exits */
	bool allow_loss;       /* eBPF: lost events do not fail the record */
	bool status;           /* live status line on stderr */
} record_opts;

/* Each returns 0 with the trace filled, or -1 with *err allocated. The
 * workload's exit is in meta exit; it does not change the return value. */
int record_ptrace(const record_opts *o, trace *out, char **err);
int record_ebpf(const record_opts *o, trace *out, char **err);

/* `polc run --mode audit` (seccomp): run prog with argv under filter
 * (ninsn instructions; its refusals turned into SECCOMP_RET_USER_NOTIF, see
 * sc_build_audit_bpf) with polc as the supervisor: each notified call is
 * added to out as a syscall record and then continues as if allowed.
 * Returns 0 with the command's wait status in *status, or -1 with *err. */
int record_notify(const void *filter, size_t ninsn, const char *prog, char *const *argv,
		  trace *out, int *status, char **err);

/* `polc run --target apparmor --mode audit`: the kernel log from now on
 * (aalog_open: /dev/kmsg at its end, or -1), and after the run the
 * apparmor="ALLOWED" records of profile (and its children) as trace
 * records: file perms, execs, capabilities, network creates/binds/...
 * Returns how many records were the profile's; records the kernel's rate
 * limit dropped are counted in meta lost. */
int aalog_open(void);
uint64_t aalog_collect(int fd, const char *profile, trace *t);

/* Can the eBPF tracer run here? If not, *why (static) says why. */
bool ebpf_available(const char **why);

/* Shared by the tracers. */
/* Interrupt flag set by SIGINT/SIGTERM/SIGHUP handlers installed by
 * tracer_signals_install(); restored by tracer_signals_restore(). */
extern volatile sig_atomic_t tracer_stop_requested;
void tracer_signals_install(void);
void tracer_signals_restore(void);
double tracer_now(void);          /* monotonic seconds */
/* The command line as one string (argv joined, shell-quoted where needed). */
char *tracer_cmdline(char *const *argv);
/* The meta records every run writes: runs 1, the command line, the
 * working directory it started in (polc's own, which the command
 * inherits; with_cwd false when polc did not start it), the tracer. */
void tracer_meta_run(trace *t, const char *cmd, const char *tracer, bool with_cwd);

/* Live status line: elapsed, processes, distinct syscalls, events/s, lost.
 * Prints only when enabled; status_done() ends the line. */
typedef struct {
	bool on;
	double start, last;
	uint64_t last_events;
} status_line;
void status_init(status_line *s, bool on);
void status_update(status_line *s, unsigned procs, unsigned distinct,
		   uint64_t events, uint64_t lost);
void status_done(status_line *s);

/* Syscall name for (audit arch, nr), from libseccomp; "nr_N" when unknown.
 * arch_name gets "x86_64", "i386" or "x32". Returns a static/interned name. */
const char *tracer_syscall_name(unsigned audit_arch, unsigned nr, const char **arch_name);

/* meta exit from a wait status: "status N", "signal NAME" (or "killed"
 * when the recorder ended the run). */
void tracer_meta_exit(trace *t, int status, bool killed);

/* The capability an x86_64 syscall implies (sysevents.def's SE_CAP), or
 * NULL. Both recorders record it with the call's result. */
const char *tracer_implied_cap(long nr);
/* The records of one decoded socket operation, the same from both
 * recorders: the net record; a pathname unix socket's file (bind creates
 * it, connect writes to it: AppArmor's view); and the capability implied
 * (net_bind_service for a port below 1024, net_raw for a raw or packet
 * socket). addr: formatted or NULL; port < 0: none. */
void tracer_net_record(trace *t, uint64_t n, const char *op, int family, int type,
		       int proto, const char *addr, int port, int err);

/* Paths: lexical clean-up in place (no "//", "/./", "/../"); and the path
 * with its directory canonicalised (symlinks resolved in our mount
 * namespace) and its last component kept, or followed too if follow. */
void tracer_normalize(char *path);
char *tracer_canon(const char *abspath, bool follow);
/* Trace names of socket families ("inet", "af_N" in tmp) and types. */
const char *tracer_family_name(int family, char *tmp, size_t n);
const char *tracer_type_name(int family, int type, int proto);

#endif
