/* syscalls.h - syscall names and numbers per ABI (from libseccomp's tables)
 * and argument widths (compiler/syscall-args.tsv, from the kernel's
 * SYSCALL_DEFINE types).
 * Promises: numbers for IR_ARCH_X32 carry the 0x40000000 bit; a name that
 * libseccomp maps to a pseudo (negative) number on an ABI counts as absent
 * there, except the i386 socket and SysV IPC calls that also have a direct
 * number (socket 359, recvmmsg 337, shmget 395, ...): the name resolves to
 * that number. Their multiplexed forms (socketcall(2)/ipc(2)) are the
 * syscalls socketcall and ipc.
 */
#ifndef POLC_SYSCALLS_H
#define POLC_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "ir.h"

/* How often syscall nr of ABI arch ran: one entry of a recorded syscall mix
 * (tracer/sysmix.h reads it from a trace; the seccomp backend lays its
 * filter out by it, polc bench weighs instruction counts by it). */
typedef struct {
	ir_arch arch;
	uint32_t nr;           /* x32: with the 0x40000000 bit */
	uint64_t count;
} sys_freq;

int sys_resolve(ir_arch a, const char *name);     /* -1 if absent */
/* sys_resolve() of name on every ABI, the name looked up once */
void sys_resolve_abis(const char *name, int nr[IR_NARCH]);
bool sys_known(ir_arch a, uint32_t nr);           /* in the table? */
/* sys_known() of ABI a's numbers 0..1023 (x32: with its bit) as a table */
const uint8_t *sys_known_table(ir_arch a);
/* The syscall (socketcall 102 or ipc 117) that also reaches direct syscall
 * nr of arch a, multiplexed (libseccomp adds each rule for nr there too);
 * -1 when nr has no multiplexed form. */
int sys_multiplexed(ir_arch a, uint32_t nr);
/* Name of nr on arch into out (size n); false if unknown. */
bool sys_name(ir_arch a, uint32_t nr, char *out, size_t n);
/* Bit i set: argument i of the syscall has a C type of at most 32 bits. */
uint8_t sys_arg32(const char *name);
/* Every x86_64 syscall name, for "did you mean". */
const char *const *sys_names(size_t *n);

/* libseccomp's answers for the three ABIs, generated on the build host
 * (tools/gen-systab.c); used only while the library polc runs with is the
 * one they came from (else every question goes to the library). */
#define SYS_TAB_MAX 1024
typedef struct { const char *name; int nr[IR_NARCH]; } sys_tabname;
extern const unsigned polc_systab_version[3];
extern const char *const polc_systab_name[IR_NARCH][SYS_TAB_MAX];
extern const sys_tabname polc_systab_byname[];
extern const size_t polc_systab_nbyname;

/* The generated argument-width table. */
typedef struct { const char *name; uint8_t arg32; } sys_argwidth;
extern const sys_argwidth polc_sys_argwidths[];
extern const size_t polc_sys_nargwidths;

#endif
