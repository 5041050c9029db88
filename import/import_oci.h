/* import_oci.h - OCI runtime-spec / Docker seccomp profiles in, polc source out.
 *
 * Takes: a profile as JSON or YAML text (one libyaml document: JSON is a
 *        flow YAML document; json.h reads plain JSON without libyaml's
 *        scanner, to the same document), and the target it is evaluated
 *        for: the host arch (decides archMap and includes/excludes.arches),
 *        the capability set (includes/excludes.caps; default Docker's
 *        default set) and the kernel version (includes/excludes.minKernel;
 *        default uname).
 * Gives: polc source text of one policy, deterministic for the same input
 *        and options, with comments naming every profile entry it came from
 *        and every entry the target skips.
 * Promises: the meaning is that of runc/Docker loading the profile with
 *        libseccomp (docs/import.md has the table): ALLOW -> allow, ERRNO ->
 *        deny errno (errnoRet, else EPERM), KILL/KILL_PROCESS/KILL_THREAD
 *        -> kill, LOG -> audit; TRAP, TRACE and NOTIFY have no polc meaning
 *        and are refused. Several conditions on one argument index in one
 *        entry become one statement per condition (runc's fallback, an OR).
 *        Errors carry the profile's file:line:col; on any error the return
 *        is -1 and out holds nothing to use.
 */
#ifndef POLC_IMPORT_OCI_H
#define POLC_IMPORT_OCI_H

#include "../compiler/ir.h"
#include "../base/util.h"

typedef struct {
	const char *name;          /* policy name; NULL: from the file name */
	const char *const *caps;   /* "CAP_SYS_ADMIN" or "sys_admin"; NULL: Docker's default set */
	size_t ncaps;
	unsigned arches;           /* IR_ARCH_BIT set to keep; 0: all the profile names for host */
	ir_arch host;              /* the machine's arch (archMap, includes.arches) */
	int kmajor, kminor;        /* kernel for minKernel; kmajor < 0: uname() */
} import_opts;

/* Docker's default capability set, NULL-terminated ("CAP_CHOWN", ...). */
extern const char *const import_docker_caps[];

int import_oci_text(const char *path, const char *text, size_t len, const import_opts *o,
		    diag_ctx *d, buf *out);
int import_oci_file(const char *path, const import_opts *o, diag_ctx *d, buf *out);

/* The statements of a list of OCI syscall entries read by another importer
 * (a VarmorPolicy's syscallRawRules): each entry as import_oci_text() would
 * print it, its comment naming label[i] and its line; the ABIs are o->host's
 * and o->arches. doc stays the caller's. Returns 0, or -1 after errors at
 * f's file:line:col (out may then hold part of the list). */
struct yaml_document_s;
struct yaml_node_s;
int import_oci_syscalls(struct yaml_document_s *doc, struct yaml_node_s *list, src_file *f,
			const import_opts *o, const char *label, diag_ctx *d, buf *out);

#endif
