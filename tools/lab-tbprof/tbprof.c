/* tbprof.c - a qemu TCG plugin (plugin API version 1, qemu 7.2 as in the
 * lab): for every translated block of kernel code, its address, its number
 * of guest instructions and how many times it ran, written at qemu's exit
 * to out=FILE (default /tmp/tbprof.txt) as "ADDR NINSNS COUNT" lines.
 * Under the lab's icount clock these are the instructions the guest's
 * ns count; tools/lab-tbprof/agg.py attributes them to kernel symbols and
 * BPF programs. Single vCPU (the icount lab): no locking.
 * The few declarations it needs from qemu-plugin.h (v1) are written out:
 * the header is not installed with Debian's qemu. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
__attribute__((visibility("default"))) int qemu_plugin_version = 1;
typedef struct {
	const char *target_name;
	struct { int min, cur; } version;
	bool system_emulation;
	union { struct { int smp_vcpus, max_vcpus; } system; };
} qemu_info_t;
struct qemu_plugin_tb;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
				    void *userdata);

struct rec {
	uint64_t va, n, cnt;
	struct rec *next;
};
static struct rec *head;
static const char *out = "/tmp/tbprof.txt";

/* A block translated (again: a block may be translated more than once;
 * agg.py sums by address): count its runs inline, no callback per run. */
static void trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	struct rec *r = calloc(1, sizeof *r);
	if (!r)
		return;
	r->va = qemu_plugin_tb_vaddr(tb);
	r->n = qemu_plugin_tb_n_insns(tb);
	r->next = head;
	head = r;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &r->cnt, 1);
}

static void done(qemu_plugin_id_t id, void *u)
{
	(void)id;
	(void)u;
	FILE *f = fopen(out, "w");
	if (!f)
		return;
	for (struct rec *r = head; r; r = r->next)
		if (r->cnt && r->va >= 0xffff800000000000ULL)   /* kernel only */
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)r->va,
				(unsigned long long)r->n, (unsigned long long)r->cnt);
	fclose(f);
}

__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = argv[i] + 4;
	qemu_plugin_register_vcpu_tb_trans_cb(id, trans);
	qemu_plugin_register_atexit_cb(id, done, NULL);
	return 0;
}
