/* bpf_interp.h - a small classic-BPF interpreter for seccomp filters (test
 * support, not a test).
 *
 * Takes: a sock_filter program and one struct seccomp_data.
 * Gives: the SECCOMP_RET_* value it returns, the number of instructions
 *        executed, and whether an argument word (offset >= 16) was loaded
 *        before the return (the kernel's action cache needs none).
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
	bool loaded_args;
} bpf_run_info;

uint32_t bpf_interp(const struct sock_filter *prog, size_t len,
		    const struct seccomp_data *sd, bpf_run_info *info);

#endif
