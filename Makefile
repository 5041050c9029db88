# polc - policy compiler. Plain make; see README.md.
#   make            build ./polc
#   make deps       install the Debian packages the project needs (idempotent)
#   make test       build and run every test
#   make asan       the same tests under ASan + UBSan (build-asan/)
#   make install PREFIX=/usr/local
# BUILD=dir keeps a separate object tree (parallel work, sanitizer builds).

VERSION   := 0.1.0
BUILD     ?= build
PREFIX    ?= /usr/local
CC        ?= cc
CLANG     ?= clang
BISON     ?= bison
FLEX      ?= flex
SAN       ?=

WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS    ?= -O2 -g
override CFLAGS += -std=c11 -D_GNU_SOURCE $(WARN) $(SAN) -I. -I$(BUILD) -I$(BUILD)/gen \
             -DPOLC_VERSION='"$(VERSION)"' -DPOLC_SRC_DIR='"$(CURDIR)"'
override LDFLAGS += $(SAN)
LDLIBS    += -lseccomp -lbpf -lelf -lz -lyaml -lapparmor -lcrypto

# Every module's C files; *.bpf.c are kernel programs built by backends/bpf/bpf.mk.
LIB_SRCS  := $(filter-out %.bpf.c,$(wildcard base/*.c grammar/*.c compiler/*.c import/*.c verify/*.c backends/*.c backends/*/*.c tracer/*.c bench/*.c cli/*.c))
LIB_SRCS  := $(filter-out cli/main.c bench/micro.c,$(LIB_SRCS))
GEN_SRCS  := $(BUILD)/grammar/parser.c $(BUILD)/grammar/lexer.c \
             $(BUILD)/gen/consts.c $(BUILD)/gen/rules_embedded.c $(BUILD)/gen/syscall_args.c \
             $(BUILD)/gen/systab.c
GEN_HDRS  := $(BUILD)/grammar/parser.h $(BUILD)/grammar/lexer.h $(BUILD)/gen/consts_table.h
LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(GEN_SRCS:%.c=%.o)
LIB       := $(BUILD)/libpolc.a

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_SUPPORT_SRCS := $(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c))
TEST_SUPPORT_OBJS := $(TEST_SUPPORT_SRCS:%.c=$(BUILD)/%.o)
TEST_PROGS_SRCS := $(wildcard tests/progs/*.c)
TEST_PROGS := $(TEST_PROGS_SRCS:tests/progs/%.c=$(BUILD)/tests/progs/%)
# The attack programs of tests/vm/t_bypass.sh, one route to an operation each.
BYPASS_SRCS := $(wildcard tests/bypass/*.c)
TEST_PROGS += $(BYPASS_SRCS:tests/bypass/%.c=$(BUILD)/tests/bypass/%)

POLC      := $(BUILD)/polc

.PHONY: all deps test asan install clean demo check-deps vmtest fuzz bench profiles
all: $(POLC) polc

polc: $(POLC)
	@ln -sf $(POLC) polc

-include backends/bpf/bpf.mk
-include tracer/tracer.mk
-include tests/vm/vm.mk
-include tests/fuzz/fuzz.mk
-include bench/bench.mk
-include tools/lsm-floor/floor.mk

$(POLC): $(BUILD)/cli/main.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(BUILD)/cli/main.o $(LIB) $(LDLIBS)

$(LIB): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# Generated headers are made before any object (order-only); after that an
# object depends on what it includes (-MMD), so only what includes a BPF
# skeleton rebuilds when a kernel program changes (bpf.mk, tracer.mk).
$(BUILD)/%.o: %.c | $(GEN_HDRS) $(BUILD)/.dirs
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/grammar/%.o: $(BUILD)/grammar/%.c $(GEN_HDRS)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-sign-compare -Wno-shadow -c -o $@ $<

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c $(GEN_HDRS)
	$(CC) $(CFLAGS) -c -o $@ $<

$(BUILD)/.dirs:
	@mkdir -p $(BUILD)/grammar $(BUILD)/gen $(BUILD)/tests/progs
	@touch $@

$(BUILD)/grammar/parser.c $(BUILD)/grammar/parser.h &: grammar/parser.y | $(BUILD)/.dirs
	$(BISON) -Wall -Werror --defines=$(BUILD)/grammar/parser.h -o $(BUILD)/grammar/parser.c $<

$(BUILD)/grammar/lexer.c $(BUILD)/grammar/lexer.h &: grammar/lexer.l $(BUILD)/grammar/parser.h | $(BUILD)/.dirs
	$(FLEX) --header-file=$(BUILD)/grammar/lexer.h -o $(BUILD)/grammar/lexer.c $<

# Symbolic constants come from the system headers, read at build time.
$(BUILD)/gen/consts.c $(BUILD)/gen/consts_table.h &: compiler/gen-consts.sh | $(BUILD)/.dirs
	sh compiler/gen-consts.sh $(CC) $(BUILD)/gen

# Argument widths: compiler/syscall-args.tsv (tools/gen-syscall-args.sh).
$(BUILD)/gen/syscall_args.c: compiler/syscall-args.tsv | $(BUILD)/.dirs
	LC_ALL=C awk -F'\t' 'BEGIN { print "#include \"compiler/syscalls.h\""; print "const sys_argwidth polc_sys_argwidths[] = {" } \
	  !/^#/ { printf "\t{ \"%s\", %s },\n", $$1, $$2; n++ } END { print "};"; printf "const size_t polc_sys_nargwidths = %d;\n", n }' $< > $@.tmp && mv $@.tmp $@

# libseccomp's syscall tables for x86_64/i386/x32, dumped on the build host.
$(BUILD)/gen/systab.c: tools/gen-systab.c | $(BUILD)/.dirs
	$(CC) -O1 -o $(BUILD)/gen/gen-systab $< -lseccomp
	$(BUILD)/gen/gen-systab > $@.tmp && mv $@.tmp $@

# The rule library is embedded so that `use` works wherever polc runs.
RULE_FILES := $(sort $(wildcard rules/*.pol))
$(BUILD)/gen/rules_embedded.c: $(RULE_FILES) compiler/gen-rules.sh | $(BUILD)/.dirs
	sh compiler/gen-rules.sh $@ $(RULE_FILES)

$(BUILD)/tests/%: tests/unit/%.c $(LIB) $(TEST_SUPPORT_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/unit -o $@ $< $(TEST_SUPPORT_OBJS) $(LIB) $(LDFLAGS) $(LDLIBS) -lcmocka

# Workload programs for tests run confined (seccomp filters that deny mmap,
# tracers): they are built without sanitizers, whose runtimes cannot live
# under such filters. They are not the code under test.
PROG_CFLAGS := -O1 -g -std=c11 -D_GNU_SOURCE $(WARN) -I.
$(BUILD)/tests/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<
$(BUILD)/tests/bypass/%: tests/bypass/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -o $@ $<

test-bins: $(POLC) $(UNIT_BINS) $(TEST_PROGS) $(TEST_EXTRA)

test: check-deps
	@$(MAKE) --no-print-directory test-bins
	@BUILD=$(BUILD) SKIP_TESTS="$(SKIP_TESTS)" sh tests/run-tests.sh

asan: check-deps
	@$(MAKE) --no-print-directory BUILD=build-asan CC=clang \
	  SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  CFLAGS="-O1 -g" SKIP_TESTS="t_vm_ vm/ t_verify_seccomp" test

deps:
	@sh tools/deps.sh

check-deps:
	@sh tools/deps.sh --check-or-install

demo: check-deps
	@$(MAKE) --no-print-directory $(POLC)
	@sh tools/demo.sh $(POLC)

# The installed binary finds its data under PREFIX/share/polc (base/util.h
# polc_data_dir: BINDIR/../share/polc), never the source tree: the rule
# library (also embedded), the lab's scripts, the bench scripts and micro
# program, the server profiles bench runs, and the kernel programs (the
# enforcer's object, also embedded in polc by its skeleton).
DATADIR = $(PREFIX)/share/polc
LAB_FILES := tests/vm/run-in-vm.sh tests/vm/build-image.sh tests/vm/guest-stage2.sh \
             tests/vm/initramfs-init
install: $(POLC) $(BENCH_MICRO) $(ENF_OBJ) $(TRACER_BPF_OBJ)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(POLC) $(DESTDIR)$(PREFIX)/bin/polc
	install -m 0644 docs/polc.1 $(DESTDIR)$(PREFIX)/share/man/man1/polc.1
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0644 tools/polc.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/polc
	install -d $(DESTDIR)$(DATADIR)/rules $(DESTDIR)$(DATADIR)/tests/vm \
	  $(DESTDIR)$(DATADIR)/bench $(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(DATADIR)/bpf
	install -m 0644 $(RULE_FILES) $(DESTDIR)$(DATADIR)/rules/
	install -m 0755 $(LAB_FILES) $(DESTDIR)$(DATADIR)/tests/vm/
	install -m 0755 bench/*.sh $(BENCH_MICRO) $(DESTDIR)$(DATADIR)/bench/
	install -m 0644 profiles/*.pol $(DESTDIR)$(DATADIR)/profiles/
	install -m 0644 $(ENF_OBJ) $(TRACER_BPF_OBJ) $(DESTDIR)$(DATADIR)/bpf/
	install -m 0644 LICENSE $(DESTDIR)$(DATADIR)/

clean:
	rm -rf build build-* polc

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
