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

#endif
