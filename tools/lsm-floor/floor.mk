# floor.mk - the floor under any BPF LSM enforcer (tools/lsm-floor/README.md):
# the runner that attaches allow-at-once programs on the hooks of the
# enforcer's programs named (read off $(ENF_OBJ)) around a command.
# Included by the top Makefile.
FLOOR_RUN := $(BUILD)/tools/lsm-floor/floor-run

$(FLOOR_RUN): tools/lsm-floor/floor-run.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -lbpf

# built with polc and the tests (tests/t_lsm_floor.sh reads the enforcer's
# object with it), so that a change to the enforcer or to libbpf that
# breaks it shows at once
all: $(FLOOR_RUN)
TEST_EXTRA += $(FLOOR_RUN) $(ENF_OBJ)
