/* ebpf.c - the eBPF tracer (see tracer.h). Not built yet. */
#include "tracer.h"

bool ebpf_available(const char **why)
{
	*why = "the eBPF tracer is not built yet";
	return false;
}

int record_ebpf(const record_opts *o, trace *out, char **err)
{
	*err = xstrdup("the eBPF tracer is not built yet");
	return -1;
}
