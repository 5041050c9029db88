# floor.mk - the floor under any BPF LSM enforcer (tools/lsm-floor/README.md):
# allow-at-once programs on the enforcer's hooks, and the runner that
# attaches them around a command. Included by the top Makefile.
FLOOR_DIR := $(BUILD)/tools/lsm-floor
FLOOR_OBJ := $(FLOOR_DIR)/floor.bpf.o
FLOOR_RUN := $(FLOOR_DIR)/floor-run

$(FLOOR_OBJ): tools/lsm-floor/floor.bpf.c tools/lsm-floor/floor.mk $(ENF_DIR)/vmlinux.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O2 -target bpf -mcpu=$(BPF_CPU) -D__TARGET_ARCH_x86 -Wall -I$(ENF_DIR) -c $< -o $@

$(FLOOR_RUN): tools/lsm-floor/floor-run.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -lbpf

# built with polc and the tests, so that a change to the enforcer's hooks
# or to libbpf that breaks them shows at once
all: $(FLOOR_OBJ) $(FLOOR_RUN)
TEST_EXTRA += $(FLOOR_OBJ) $(FLOOR_RUN)
