/* bpf_interp.h - a small classic-BPF interpreter for seccomp filters: the
 * exhaustive tests' judge, the profiled layout's eligibility check and
 * `polc bench`'s cost model (instructions per syscall).
 *
 * Takes: a sock_filter program and one struct seccomp_data.
 * Gives: the SECCOMP_RET_* value it returns, the number of instructions
 *        executed, and whether a word other than nr and arch (an argument
 *        or the instruction pointer) was loaded before the return: the
 *        kernel's action cache (5.11+) emulates a filter per syscall number
 *        and skips it for the numbers it allows without such loads.
 * Promises: never reads outside the program or the data; a malformed
 *        program (jump out of range, bad opcode, no return) gives
 *        BPF_INTERP_BAD.
 */
#ifndef POLC_BPF_INTERP_H
#define POLC_BPF_INTERP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#define BPF_INTERP_BAD 0xffffffffu

typedef struct {
	unsigned steps;
	bool loaded_args;      /* args or instruction_pointer read */
} bpf_run_info;

uint32_t bpf_interp(const struct sock_filter *prog, size_t len,
		    const struct seccomp_data *sd, bpf_run_info *info);

/* A set of filters installed in order (v[0] first) as the kernel runs
 * them (kernel/seccomp.c, seccomp_run_filters): every one, the most
 * recently installed first; the lowest action (SECCOMP_RET_ACTION_FULL
 * bits as a signed 32-bit value: KILL_PROCESS < KILL_THREAD < TRAP < ERRNO
 * < USER_NOTIF < TRACE < LOG < ALLOW) wins, and an equal one does not
 * replace it, so on a tie the later-installed filter's data stands.
 * info: the steps of all of them; loaded_args if any of them loaded one
 * (the action cache skips the set only for a number every filter allows
 * without such loads, seccomp_cache_prepare_bitmap). */
typedef struct {
	const struct sock_filter *f;
	size_t len;
} bpf_prog_ref;

uint32_t bpf_interp_set(const bpf_prog_ref *v, size_t n, const struct seccomp_data *sd,
			bpf_run_info *info);

#endif
