# tracer.mk - the eBPF tracer's kernel program: vmlinux.h from the running
# kernel's BTF, clang -target bpf, and a libbpf skeleton that tracer/ebpf.c
# embeds. Included by the top Makefile.
BPFTOOL ?= bpftool
PROFILE_TRACER ?= ebpf
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
TRACER_BPF_OBJ := $(BUILD)/tracer/polc_trace.bpf.o
TRACER_SKEL := $(BUILD)/tracer/polc_trace.skel.h
# Only the eBPF recorder embeds the skeleton.
$(BUILD)/tracer/ebpf.o: $(TRACER_SKEL)

$(BUILD)/tracer/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

# Syscall numbers for both recorders, generated from libseccomp's table by
# a program run on the build host (tools/gen-sysnr.c), never typed by hand.
$(BUILD)/gen/sysnr.h: tools/gen-sysnr.c | $(BUILD)/.dirs
	$(CC) -O1 -o $(BUILD)/gen/gen-sysnr $< -lseccomp
	$(BUILD)/gen/gen-sysnr > $@.tmp && mv $@.tmp $@
$(BUILD)/tracer/ptrace.o $(BUILD)/tracer/common.o: $(BUILD)/gen/sysnr.h

$(TRACER_BPF_OBJ): tracer/polc_trace.bpf.c tracer/trace_bpf.h compiler/sysevents.def backends/bpf/bpf_layout.h \
		$(BUILD)/tracer/vmlinux.h $(BUILD)/gen/sysnr.h
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -I$(BUILD)/tracer -I$(BUILD) -I. -c $< -o $@

$(TRACER_SKEL): $(TRACER_BPF_OBJ)
	$(BPFTOOL) gen skeleton $< name polc_trace > $@.tmp && mv $@.tmp $@

# Soak workloads on loopback under `polc record`, then `polc gen`.
profiles: $(POLC)
	sh profiles/soak/run.sh $(POLC) $(PROFILE_TRACER)
