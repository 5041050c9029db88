# tracer.mk - the eBPF tracer's kernel program: vmlinux.h from the running
# kernel's BTF, clang -target bpf, and a libbpf skeleton that tracer/ebpf.c
# embeds. Included by the top Makefile.
BPFTOOL ?= bpftool
PROFILE_TRACER ?= ebpf
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
TRACER_BPF_OBJ := $(BUILD)/tracer/polc_trace.bpf.o
TRACER_SKEL := $(BUILD)/tracer/polc_trace.skel.h
EXTRA_HDRS += $(TRACER_SKEL)

$(BUILD)/tracer/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# Syscall numbers for the BPF program, from the system headers (the same
# numbers <sys/syscall.h> gives the C recorders), not typed by hand.
$(BUILD)/tracer/sysnr.h:
	@mkdir -p $(dir $@)
	echo '#include <sys/syscall.h>' | $(CC) -E -dM - | grep '^#define __NR_' > $@.tmp && mv $@.tmp $@

$(TRACER_BPF_OBJ): tracer/polc_trace.bpf.c tracer/trace_bpf.h tracer/sysevents.def \
		$(BUILD)/tracer/vmlinux.h $(BUILD)/tracer/sysnr.h
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD)/tracer -I. -c $< -o $@

$(TRACER_SKEL): $(TRACER_BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name polc_trace > $@.tmp && mv $@.tmp $@

# Soak workloads on loopback under `polc record`, then `polc gen`.
profiles: $(POLC)
	sh profiles/soak/run.sh $(POLC) $(PROFILE_TRACER)
