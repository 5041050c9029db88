# tests/vm/vm.mk - the kernel lab's build rules (included by the Makefile).
#   make vmtest    run the lab's own tests (tests/t_vm_*.sh) and every
#                  tests/vm/t_*.sh in the VM lab; prints "N passed, N failed".
#   make vm-image  download the kernel and build the initramfs now
#                  (run-in-vm.sh does this on first use anyway).
#   make lab-servers  the server profiles' whole matrix under AppArmor and
#                  BPF LSM (tests/vm/t_profiles_servers_lsm.sh: nginx,
#                  memcached, mariadb; profiles from load a and shipped;
#                  loads a and b), then the audit loop (t_profiles_audit_lsm.sh:
#                  sqlite3 and mariadb, load b learnt in audit mode by
#                  gen --update, then enforced); the CI runs their lean defaults.
# The probe is a BPF LSM program with a libbpf loader built from a skeleton.

VM_BUILD := $(BUILD)/tests/vm
VM_BPF_CFLAGS := -O2 -g -target bpf -D__TARGET_ARCH_x86 -Wall \
	-I/usr/include/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)

$(VM_BUILD)/lsm_probe.bpf.o: tests/vm/lsm_probe.bpf.c
	@mkdir -p $(dir $@)
	$(CLANG) $(VM_BPF_CFLAGS) -c -o $@ $<

$(VM_BUILD)/lsm_probe.skel.h: $(VM_BUILD)/lsm_probe.bpf.o
	bpftool gen skeleton $< name lsm_probe_bpf >$@.tmp && mv $@.tmp $@

$(VM_BUILD)/lsm_probe: tests/vm/lsm_probe.c $(VM_BUILD)/lsm_probe.skel.h
	$(CC) $(CFLAGS) -I$(VM_BUILD) -o $@ $< $(LDFLAGS) -lbpf -lelf -lz

TEST_EXTRA += $(VM_BUILD)/lsm_probe

# vm/t_bpf_exec_memo's attacker and its CPU-steering helper
$(VM_BUILD)/xmemo_%: tests/vm/xmemo_%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

TEST_EXTRA += $(VM_BUILD)/xmemo_atk $(VM_BUILD)/xmemo_watch

.PHONY: vm-image
vm-image:
	VM_VERBOSE=1 sh tests/vm/build-image.sh $(BUILD)/vm

.PHONY: lab-servers
lab-servers: all
	SERVERS="nginx memcached mariadb" PROFILES="from-load-a shipped" LOADS="a b" \
		LAB_TIMEOUT=$${LAB_TIMEOUT:-7200} BUILD=$(BUILD) sh tests/vm/t_profiles_servers_lsm.sh; r=$$?; \
	SERVERS="sqlite3 mariadb" LAB_TIMEOUT=$${LAB_TIMEOUT:-7200} BUILD=$(BUILD) \
		sh tests/vm/t_profiles_audit_lsm.sh && exit $$r

vmtest: check-deps
	@$(MAKE) --no-print-directory test-bins
	@BUILD=$(BUILD) sh tests/vm/run-vmtests.sh
