/* bpf_interp.h - the tests' name for the cBPF interpreter, which lives in
 * the seccomp backend (backends/seccomp/bpf_interp.h) since polc itself
 * uses it (profiled layout, polc bench). */
#include "backends/seccomp/bpf_interp.h"
