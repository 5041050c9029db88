# bpf.mk - the BPF LSM enforcer: vmlinux.h from the running kernel's BTF,
# clang -target bpf (CO-RE), and the libbpf skeleton the loader embeds.
# Included by the top Makefile.
BPFTOOL ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
ENF_DIR := $(BUILD)/backends/bpf
ENF_OBJ := $(ENF_DIR)/enforcer.bpf.o
ENF_SKEL := $(ENF_DIR)/enforcer.skel.h
# Only the loader embeds the skeleton.
$(BUILD)/backends/bpf/loader.o: $(ENF_SKEL)

$(ENF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(ENF_OBJ): backends/bpf/enforcer.bpf.c backends/bpf/bpf_layout.h $(ENF_DIR)/vmlinux.h
	$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
	  -I$(ENF_DIR) -Ibackends/bpf -c $< -o $@

$(ENF_SKEL): $(ENF_OBJ)
	$(BPFTOOL) gen skeleton $< name polc_enforcer > $@.tmp && mv $@.tmp $@
