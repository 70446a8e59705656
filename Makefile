# SPDX-License-Identifier: GPL-2.0-only
# shimk: build the kernel image, boot it, test it.  "make help" lists targets.

# Debian's interpreter: python3-kconfiglib lives in its dist-packages,
# which a pyenv python3 earlier on PATH would not see.
PYTHON        := /usr/bin/python3
CROSS_COMPILE ?=
CC            := $(CROSS_COMPILE)gcc
LD            := $(CROSS_COMPILE)ld
HOSTCC        ?= gcc
BUILD         := build
# bash: make run needs its pipe status.
SHELL         := /bin/bash
KCONFIG_CONFIG ?= .config
export KCONFIG_CONFIG

CONFIG_H := $(BUILD)/include/generated/config.h
AUTOCONF := $(BUILD)/include/config/auto.conf
KDEPS    := $(BUILD)/include/config/auto.conf.d
XEN_INC  := $(BUILD)/include/xen

no-config-goals := defconfig menuconfig olddefconfig savedefconfig clean help deps
ifneq ($(filter-out $(no-config-goals),$(or $(MAKECMDGOALS),all)),)
-include $(AUTOCONF)
-include $(KDEPS)
endif

.DEFAULT_GOAL := all
.PHONY: all run check bench stress iso defconfig menuconfig olddefconfig \
        savedefconfig clean help deps unit unit-build matrix user-elf \
        linux-peer \
        fuzz fuzz-build fuzz-smoke model

# --- configuration -----------------------------------------------------------

# No .config yet: start from the defconfig, as Xen's build does.
$(KCONFIG_CONFIG):
	@echo "  KCONFIG defconfig (no $(KCONFIG_CONFIG) yet)"
	@$(PYTHON) tools/kconfig.py defconfig arch/x86/configs/defconfig >/dev/null

$(CONFIG_H) $(AUTOCONF): $(KCONFIG_CONFIG)
	@echo "  KCONFIG $(CONFIG_H)"
	@$(PYTHON) tools/kconfig.py genconfig $(CONFIG_H) $(AUTOCONF) $(KDEPS)

defconfig:
	$(PYTHON) tools/kconfig.py defconfig arch/x86/configs/defconfig

olddefconfig:
	$(PYTHON) tools/kconfig.py olddefconfig

savedefconfig:
	$(PYTHON) tools/kconfig.py savedefconfig $(BUILD)/defconfig

menuconfig:
	$(PYTHON) tools/kconfig.py menuconfig

# Xen's public headers from libxen-dev, used as they are, not copied.
$(XEN_INC):
	@test -f /usr/include/xen/xen.h || \
	  { echo "Xen public headers missing: run tools/deps.sh" >&2; exit 1; }
	@mkdir -p $(dir $@)
	@ln -sfn /usr/include/xen $@

# --- the kernel image --------------------------------------------------------

obj-y :=
include arch/x86/build.mk
include guest/build.mk
include kernel/build.mk
include tests/ktest/build.mk

KERNEL_OBJS := $(addprefix $(BUILD)/,$(obj-y))

GCC_INC := $(shell $(CC) -print-file-name=include)
KCFLAGS := -std=gnu11 -O2 -g -pipe -march=x86-64 \
           -Wall -Wextra -Werror -Wno-unused-parameter -Wvla \
           -ffreestanding -fno-pic -fno-pie -fno-stack-protector -fno-common \
           -fno-asynchronous-unwind-tables -fno-omit-frame-pointer \
           -fno-strict-aliasing -fno-tree-loop-distribute-patterns \
           -fcf-protection=none -mcmodel=kernel -mno-red-zone \
           -mgeneral-regs-only -mno-mmx -mno-sse -mno-sse2 -mno-80387 \
           -nostdinc -isystem $(GCC_INC) -Iinclude -I$(BUILD)/include \
           -include $(CONFIG_H) -include include/shimk/kconfig.h \
           -D__XEN_INTERFACE_VERSION__=0x00040e00 -MMD -MP
KLDFLAGS := -nostdlib -static -no-pie -z max-page-size=0x1000 \
            -z noexecstack --no-warn-rwx-segments --build-id=none \
            --fatal-warnings -T linker.ld

all: $(BUILD)/shimk.elf user-elf linux-peer

$(BUILD)/%.o: %.c $(CONFIG_H) | $(XEN_INC)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(KCFLAGS) -c $< -o $@

$(BUILD)/%.o: %.S $(CONFIG_H) | $(XEN_INC)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(KCFLAGS) -c $< -o $@

user-y :=
include user/build.mk

# Static ELF programs for run= (the SDK's examples and the hostile
# inputs made from them), built with the SDK's own tools/shimk-cc.
SDK_EXAMPLES := $(patsubst sdk/examples/%.c,$(BUILD)/user-elf/%,\
                  $(wildcard sdk/examples/*.c))
SDK_FILES    := tools/shimk-cc sdk/crt0.S sdk/lib.c sdk/user.ld \
                $(wildcard sdk/include/*.h) include/shimk/syscall-abi.h

$(BUILD)/user-elf/%: sdk/examples/%.c $(SDK_FILES)
	@mkdir -p $(dir $@)
	@echo "  SHIMKCC $@"
	@tools/shimk-cc -o $@ $< -Werror

$(BUILD)/user-elf/bad/stamp: $(BUILD)/user-elf/hello tools/mkbadelf
	@echo "  BADELF  $(dir $@)"
	@tools/mkbadelf $< $(dir $@)
	@touch $@

user-elf: $(SDK_EXAMPLES) $(BUILD)/user-elf/bad/stamp

# Linux beside shimk (docs/linux-peer.md): tlbpeer, static for the host's
# glibc, and the initramfs whose /init it is.
PEER_DIR := $(BUILD)/linux-peer

# shimk's own pure files, so that both guests' figures are summarized by
# the same code and the peer names the L0 by shimk's rule; compiled as
# the host unit tests compile them, then linked with tlbpeer.
PEER_KSRC := kernel/tlbbench/bench-stats.c kernel/tlbbench/tlbb-line.c \
             kernel/lib/sort.c \
             guest/cpuid-leaves.c guest/hyperv/leaves.c kernel/lib/vsnprintf.c
PEER_KOBJS := $(patsubst %.c,$(PEER_DIR)/obj/%.o,$(PEER_KSRC))
PEER_KCFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -Wno-unused-parameter \
                -Iinclude -include include/shimk/compiler.h \
                -include $(CONFIG_H) -include include/shimk/kconfig.h \
                -DSHIMK_HOST_TEST

$(PEER_DIR)/obj/%.o: %.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	@echo "  CC [L]  $@"
	@$(HOSTCC) $(PEER_KCFLAGS) -MMD -MP -c $< -o $@

-include $(PEER_KOBJS:.o=.d)

$(PEER_DIR)/tlbpeer: peer/tlbpeer.c $(PEER_KOBJS) include/shimk/bench-stats.h \
                     include/shimk/tlbb-line.h \
                     include/guest/cpuid-leaves.h include/shimk/types.h
	@mkdir -p $(dir $@)
	@echo "  CC [L]  $@"
	@$(HOSTCC) -std=gnu11 -O2 -static -pthread -Wall -Wextra -Werror \
	  -Iinclude -o $@ peer/tlbpeer.c $(PEER_KOBJS)

$(PEER_DIR)/initramfs.cpio: $(PEER_DIR)/tlbpeer tools/linux-peer \
                            tools/bootlib/common.py
	@echo "  CPIO    $@"
	@$(PYTHON) tools/linux-peer $< $@

linux-peer: $(PEER_DIR)/initramfs.cpio

$(BUILD)/shimk.elf: $(KERNEL_OBJS) $(USER_OBJS) $(BUILD)/user/checked linker.ld
	@echo "  LD      $@"
	@$(LD) $(KLDFLAGS) -o $@ $(KERNEL_OBJS) $(USER_OBJS) \
	  -Map $(BUILD)/shimk.map

-include $(KERNEL_OBJS:.o=.d)

# --- host unit tests ---------------------------------------------------------

include tests/unit/build.mk
include tests/fuzz/fuzz.mk

# --- running -----------------------------------------------------------------

deps:
	@tools/deps.sh

iso: $(BUILD)/shimk.elf
	tools/mkiso --out $(BUILD)/shimk.iso --kernel $(BUILD)/shimk.elf
	tools/fetch-xen
	tools/mkiso --out $(BUILD)/shimk-xen.iso --kernel $(BUILD)/shimk.elf \
	  --xen $(BUILD)/xen/xen \
	  --xen-cmdline "$$(tools/boot --print-xen-cmdline --smp 2)"

# shimk under a real L0 (KVM if it can be trusted, else Xen in TCG; L0=
# chooses), a quick tlbbench, and assisted against IPI flushes.
run: deps
	@$(MAKE) --no-print-directory all
	@tools/demo $(if $(L0),--env $(L0)) --append "$(APPEND)"

# Unit tests, then the boot matrix; the last line is the verdict.
check: deps
	@$(MAKE) --no-print-directory all
	@mkdir -p $(BUILD)/check
	@{ $(MAKE) --no-print-directory unit || true; \
	   $(MAKE) --no-print-directory fuzz-smoke || true; \
	   $(MAKE) --no-print-directory model || true; \
	   tools/run-matrix || true; \
	   tests/gdb-check || true; } 2>&1 | tee $(BUILD)/check/check.log
	@tools/check-summary $(BUILD)/check/check.log

matrix: all
	tools/run-matrix

# The SPIN model of the shootdown protocol (docs/model.md): the quick set
# (a few minutes on 2 cores); MODEL_SET=stress checks every row.
MODEL_SET ?= quick

model: $(CONFIG_H)
	@tools/model --set $(MODEL_SET) --config-h $(CONFIG_H)

# The detector rows at 1,000,000 checked flushes each (over an hour), then
# the mutation table with 250,000 clean flushes per class: 1,000,000 or
# more per environment, over the four or more classes each can show; then
# the ring-3 fuzzer at 1,000,000 iterations per environment; last the
# nested migrate rows at 4 vCPUs (make check runs them at 2).
# Timeouts at 10 times a row's own: 50 times the flushes take 30-40
# times as long here, and a hung row must still end (docs/flush.md).
stress: deps
	@$(MAKE) --no-print-directory all
	tools/model --set stress --config-h $(CONFIG_H)
	tools/run-matrix --group detector --timeout-scale 10 \
	  --extra-append "tlb-detect-flushes=1000000 tlb-detect-ms=3000000"
	tools/run-matrix --group mutation --timeout-scale 60 \
	  --extra-append "tlb-mutation-flushes=250000 tlb-mutation-ms=3000000"
	tools/run-matrix --group ring3 --timeout-scale 60 \
	  --extra-append "ring3-fuzz-iterations=1000000"
	tools/run-matrix --only \
	  kvm-nested-migrate-detector-smp4,hyperv-nested-migrate-detector-smp4

# Every parser's fuzz target for FUZZ_SECONDS each, FUZZ_JOBS at once,
# from its seeds and the corpus kept in $(BUILD)/fuzz/corpus/; findings
# land in $(BUILD)/fuzz/findings/.  make check runs each for 3 s.
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 2

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	tools/run-fuzz --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS)

# Build failures count as failures: the summary line always appears.
fuzz-smoke:
	@if $(MAKE) --no-print-directory fuzz-build; then \
	  tools/run-fuzz --seconds 3; \
	else \
	  echo "fuzz: 0 passed, 1 failed (fuzz targets did not build)"; \
	  exit 1; \
	fi

# tlbbench (full profile, 4 vCPUs) under tcg, kvm, xen and xl, whichever
# this machine has; writes $(BUILD)/bench/report.md and latency.svg.
bench: deps
	@$(MAKE) --no-print-directory all
	tools/bench

clean:
	rm -rf $(BUILD)

help:
	@echo "make              build $(BUILD)/shimk.elf (defconfig if no .config)"
	@echo "make run          install deps, build, boot under QEMU, exit"
	@echo "make check        install deps, unit tests, model, boot matrix"
	@echo "make bench        tlbbench in every environment, $(BUILD)/bench/report.md"
	@echo "make stress       every model row, the detector rows at 1,000,000 flushes"
	@echo "make unit         host unit tests only"
	@echo "make fuzz         every parser's fuzz target, FUZZ_SECONDS (600) each"
	@echo "make user-elf     the SDK's example programs, $(BUILD)/user-elf/"
	@echo "make linux-peer   the Linux peer's tlbpeer and initramfs, $(BUILD)/linux-peer/"
	@echo "make matrix       boot matrix only (tests/matrix/*.ini)"
	@echo "make model        SPIN model of the shootdown, Frama-C EVA (docs/model.md)"
	@echo "make iso          GRUB ISOs: $(BUILD)/shimk.iso, $(BUILD)/shimk-xen.iso"
	@echo "make defconfig | menuconfig | olddefconfig | savedefconfig"
	@echo "make clean"
