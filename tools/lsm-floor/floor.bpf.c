/* floor.bpf.c - one program for each LSM hook polc's enforcer has, each of
 * which allows at once. Attached on the hooks a policy's enforcer uses
 * (floor-run), they cost what the kernel's BPF LSM dispatch costs (the
 * hook's trampoline, its enter/exit and the program's call) and nothing of
 * polc's: the floor under any BPF LSM enforcer that must see the same
 * operations. Each keeps the sleepability of polc's program of the same
 * hook (backends/bpf/enforcer.bpf.c): a sleepable program's trampoline
 * enters and leaves differently. Build: see README.md. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

#define ALLOW(sec, name) \
	SEC(sec) int name(unsigned long long *ctx) { return 0; }

ALLOW("lsm/bpf_map", floor_bpf_map)
ALLOW("lsm/bpf_prog", floor_bpf_prog)
ALLOW("lsm/bpf", floor_bpf)
ALLOW("lsm/inode_unlink", floor_inode_unlink)
ALLOW("lsm/inode_rename", floor_inode_rename)
ALLOW("lsm/task_alloc", floor_task_alloc)
ALLOW("lsm/path_mknod", floor_path_mknod)
ALLOW("lsm/path_mkdir", floor_path_mkdir)
ALLOW("lsm/path_rmdir", floor_path_rmdir)
ALLOW("lsm/path_unlink", floor_path_unlink)
ALLOW("lsm/path_symlink", floor_path_symlink)
ALLOW("lsm/path_truncate", floor_path_truncate)
ALLOW("lsm/path_chmod", floor_path_chmod)
ALLOW("lsm/path_chown", floor_path_chown)
ALLOW("lsm/path_link", floor_path_link)
ALLOW("lsm/path_rename", floor_path_rename)
ALLOW("lsm.s/file_open", floor_file_open)
ALLOW("lsm.s/mmap_file", floor_mmap_file)
ALLOW("lsm/file_mprotect", floor_file_mprotect)
ALLOW("lsm.s/file_lock", floor_file_lock)
ALLOW("lsm.s/bprm_check_security", floor_bprm_check)
ALLOW("lsm.s/sb_mount", floor_sb_mount)
ALLOW("lsm/move_mount", floor_move_mount)
ALLOW("lsm/sb_umount", floor_sb_umount)
ALLOW("lsm/sb_pivotroot", floor_sb_pivotroot)
ALLOW("lsm/capable", floor_capable)
ALLOW("lsm/ptrace_access_check", floor_ptrace)
ALLOW("lsm/task_kill", floor_task_kill)
ALLOW("lsm/socket_create", floor_socket_create)
ALLOW("lsm/socket_connect", floor_socket_connect)
ALLOW("lsm/socket_bind", floor_socket_bind)
ALLOW("lsm/socket_listen", floor_socket_listen)
ALLOW("lsm/socket_accept", floor_socket_accept)
ALLOW("lsm/socket_sendmsg", floor_socket_sendmsg)
ALLOW("lsm/sctp_bind_connect", floor_sctp_bind_connect)
