// SPDX-License-Identifier: GPL-2.0
/* floor.bpf.c - the recording mechanisms a syscall recorder could sit on,
 * each as a program that returns at once (its floor) or, for cnt_*, that
 * does the least a complete recorder must: test the cgroup and count the
 * syscall. tools/recorder-floor/floor.c attaches the ones named. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

struct { __uint(type, BPF_MAP_TYPE_CGROUP_ARRAY); __uint(max_entries, 1);
	 __type(key, __u32); __type(value, __u32); } cgrp SEC(".maps");
struct { __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY); __uint(max_entries, 1024);
	 __type(key, __u32); __type(value, __u64); } counts SEC(".maps");
const volatile __u64 cgid = 0;

SEC("tp_btf/sys_enter") int BPF_PROG(btf_enter, struct pt_regs *r, long nr) { return 0; }
SEC("tp_btf/sys_exit") int BPF_PROG(btf_exit, struct pt_regs *r, long ret) { return 0; }
SEC("raw_tracepoint/sys_enter") int raw_enter(void *ctx) { return 0; }
SEC("raw_tracepoint/sys_exit") int raw_exit(void *ctx) { return 0; }
SEC("tracepoint/raw_syscalls/sys_enter") int tp_enter(void *ctx) { return 0; }
SEC("tracepoint/raw_syscalls/sys_exit") int tp_exit(void *ctx) { return 0; }
SEC("kprobe/x64_sys_call") int kp_x64(void *ctx) { return 0; }
SEC("kretprobe/x64_sys_call") int kretp_x64(void *ctx) { return 0; }
SEC("kprobe.multi/__x64_sys_openat") int kpm_openat(void *ctx) { return 0; }
SEC("fentry/x64_sys_call") int BPF_PROG(fentry_x64, struct pt_regs *r, unsigned int nr) { return 0; }
SEC("fexit/x64_sys_call") int BPF_PROG(fexit_x64, struct pt_regs *r, unsigned int nr, long ret) { return 0; }

static __always_inline void count(long nr)
{
	__u32 i = (__u32)nr & 1023;
	__u64 *c = bpf_map_lookup_elem(&counts, &i);
	if (c)
		*c += 1;
}

/* the least a complete recorder does per syscall: the subtree test and a count */
SEC("tp_btf/sys_enter") int BPF_PROG(cnt_enter, struct pt_regs *r, long nr)
{
	if (bpf_current_task_under_cgroup(&cgrp, 0) != 1)
		return 0;
	count(nr);
	return 0;
}
/* the same with the cheaper exact-cgroup test (no subtree) */
SEC("tp_btf/sys_enter") int BPF_PROG(cntid_enter, struct pt_regs *r, long nr)
{
	if (bpf_get_current_cgroup_id() != cgid)
		return 0;
	count(nr);
	return 0;
}
