/* import_varmor.h - a vArmor policy (VarmorPolicy or VarmorClusterPolicy,
 * crd.varmor.org/v1beta1) in, polc source out.
 *
 * Takes: YAML text, one or more documents, read with libyaml, and the
 *        target its syscallRawRules are evaluated for (import_oci.h).
 * Gives: one polc policy per VarmorPolicy/VarmorClusterPolicy document
 *        (other kinds skipped with a note): `use runtime-default` unless the policy is
 *        privileged (vArmor then builds on AlwaysAllow), `mode audit` for
 *        allowViolations, a `use` of the library rule of the same name for
 *        every built-in rule (hardeningRules, attackProtectionRules,
 *        vulMitigationRules), and statements for the custom rules that map:
 *        appArmorRawRules (file, exec, capability, network, mount, umount,
 *        pivot_root, ptrace and signal rules), bpfRawRules (files,
 *        processes, sockets, egress to IPs and CIDRs, ptrace, mounts) and
 *        syscallRawRules (as polc import reads OCI entries). Each block
 *        starts with a comment naming its place and line in the YAML.
 *        Deterministic for the same input and options.
 * Promises: a document that is not a vArmor policy, bad YAML, a built-in
 *        rule polc does not have (with a "did you mean"), and a custom rule
 *        that does not map exactly are errors at the YAML's file:line:col,
 *        and nothing is written; with allow_partial an unmappable custom
 *        rule becomes a comment (and a warning), and rules scoped to
 *        `targets` (executables) apply to the whole container, stricter than
 *        vArmor, with a comment. The output passes `polc check`.
 */
#ifndef POLC_IMPORT_VARMOR_H
#define POLC_IMPORT_VARMOR_H

#include "import_oci.h"

typedef struct {
	const char *name;          /* policy name; NULL: from metadata.name */
	bool allow_partial;
	const import_opts *oci;    /* the target of syscallRawRules */
} varmor_opts;

int import_varmor_text(const char *path, const char *text, size_t len, const varmor_opts *o,
		       diag_ctx *d, buf *out);
int import_varmor_file(const char *path, const varmor_opts *o, diag_ctx *d, buf *out);

#endif
