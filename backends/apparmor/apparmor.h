/* apparmor.h - the AppArmor backend: IR in, one AppArmor 3 profile out.
 *
 * Takes: an ir_policy (read only).
 * Gives: backend_apparmor (backend.h; format "profile", and "spo"/"k8s":
 *        the Security Profiles Operator's object, spo.c): a profile named
 *        after the policy, `abi <abi/3.0>`, with file, exec, capability,
 *        mount, network, ptrace and signal rules; confine() loads it and
 *        arranges for the next exec to run under it; verify's probes load
 *        it per domain and change to it (confine.c).
 * Promises: deny wins in AppArmor as in polc, so statements map one to one;
 *        a `default deny` domain becomes an allow-list, a `default allow`
 *        one an open rule (`file,` `network,` ...) plus the denies. Allowed
 *        execs use `ix`: the program keeps this profile, so the policy covers
 *        the workload and everything it runs. AppArmor has one execute bit
 *        for both polc's exec domain and a file statement's `exec` perm
 *        (an exec is allowed only when both domains allow it); see
 *        classify() for the cases it cannot express. What classify() calls
 *        unsupported is left out of the profile (the header lists it).
 */
#ifndef POLC_APPARMOR_H
#define POLC_APPARMOR_H

#include "../backend.h"

/* Append glob as a quoted AppArmor path; dir_suffix appends "{,/}" so that
 * a glob naming a directory also matches AppArmor's "dir/" form of it. */
void aa_put_glob(buf *out, const char *glob, bool dir_suffix);

/* AppArmor's name of an address family (AF_INET -> "inet"); NULL if none. */
const char *aa_family_name(int af);

/* The policy as a Security Profiles Operator AppArmorProfile (format
 * "spo"), plus the pod securityContext selecting it ("k8s"); spo.c. */
int aa_emit_spo(const ir_policy *p, const backend_opts *o, buf *out, diag_ctx *d);

/* Is AppArmor active in this kernel? If not, *why says which LSMs are. */
bool aa_available(char *why, size_t whylen);

/* Load (or replace) a profile in the kernel with apparmor_parser -r.
 * 0, or -1 with a one-line reason in err. */
int aa_load_profile(const char *text, size_t len, char *err, size_t errlen);
/* Remove a loaded profile by name. 0, or -1. */
int aa_remove_profile(const char *name);

/* backend_apparmor's run and verify hooks (confine.c). */
int aa_confine(const ir_policy *p, bool allow_partial);
int aa_probe_load(const ir_policy *p, backend_confine *c, char *err, size_t n);
void aa_probe_unload(backend_confine *c);
int aa_probe_open(const backend_confine *c, char *why, size_t n);
int aa_probe_enter(const backend_confine *c, int fd, char *why, size_t n);
bool aa_errno_agrees(int want, int got);

#endif
