// SPDX-License-Identifier: GPL-2.0
/* lsm_probe.bpf.c - the kernel lab's BPF LSM probe (not a polc enforcer).
 *
 * Denies file_open (-EPERM) of one inode (target_ino on target_dev) to tasks
 * in one cgroup (target_cgid), and counts the denials; everything else is
 * left alone.  The loader (lsm_probe.c) fills in the targets before load.
 * No vmlinux.h: the few kernel fields it reads are declared here and
 * relocated by CO-RE against the running kernel's BTF.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

struct super_block {
	unsigned int s_dev; /* dev_t: kernel encoding, major << 20 | minor */
} __attribute__((preserve_access_index));

struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

const volatile __u64 target_cgid = 0;
const volatile __u64 target_ino = 0;
const volatile __u32 target_dev = 0;
__u64 denials = 0;

SEC("lsm/file_open")
int BPF_PROG(lsm_probe_file_open, struct file *file, int ret)
{
	struct inode *inode;

	if (ret)
		return ret; /* an earlier program already decided */
	if (bpf_get_current_cgroup_id() != target_cgid)
		return 0;
	inode = file->f_inode;
	if (inode->i_ino != target_ino || inode->i_sb->s_dev != target_dev)
		return 0;
	__sync_fetch_and_add(&denials, 1);
	return -1; /* -EPERM */
}

char LICENSE[] SEC("license") = "GPL";
