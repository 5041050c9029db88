# bpf.mk - the BPF LSM enforcer: vmlinux.h from the running kernel's BTF,
# clang -target bpf (CO-RE), and the libbpf skeleton the loader embeds.
# Included by the top Makefile.
BPFTOOL ?= bpftool
# v2: jumps for every comparison (clang 14's default, v1, has only > and >=,
# so `x < imm` took a mov and a jump more). In the lab, per confined openat
# under EnhanceProtect, file_open ran 2,226 guest instructions built for v1
# and 2,188 for v2; v3 (32-bit ALU and jumps) ran 2,051 but had the 6.1
# verifier process 2.96 M instructions to install the enforcer (34 s)
# against v2's 1.33 M (17 s), path_rename 706 k of its 1 M limit.
BPF_CPU ?= v2
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
ENF_DIR := $(BUILD)/backends/bpf
ENF_OBJ := $(ENF_DIR)/enforcer.bpf.o
ENF_SKEL := $(ENF_DIR)/enforcer.skel.h
# Only the loader embeds the skeleton.
$(BUILD)/backends/bpf/loader.o: $(ENF_SKEL)

$(ENF_DIR)/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@

$(ENF_OBJ): backends/bpf/enforcer.bpf.c backends/bpf/bpf_layout.h backends/bpf/bpf.mk $(ENF_DIR)/vmlinux.h
	$(CLANG) -g -O2 -target bpf -mcpu=$(BPF_CPU) -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
	  -I$(ENF_DIR) -Ibackends/bpf -c $< -o $@

$(ENF_SKEL): $(ENF_OBJ)
	$(BPFTOOL) gen skeleton $< name polc_enforcer > $@.tmp && mv $@.tmp $@
