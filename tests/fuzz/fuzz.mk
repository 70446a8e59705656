# SPDX-License-Identifier: GPL-2.0-only
# Coverage-guided fuzz targets (libFuzzer, ASan, UBSan) of every parser.

FUZZ_DIR    := $(BUILD)/fuzz
FUZZ_CC     ?= clang
# The unit tests' flags, for clang and libFuzzer; <shimk/compiler.h>
# first for the same reason as there (tests/unit/build.mk).
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror \
               -Wno-unused-parameter -Wno-string-concatenation \
               -fsanitize=fuzzer,address,undefined \
               -fno-sanitize-recover=all -fno-omit-frame-pointer \
               -Itests/unit/include -Itests/unit -Iinclude \
               -include include/shimk/compiler.h \
               -include $(CONFIG_H) -include include/shimk/kconfig.h \
               -D__XEN_INTERFACE_VERSION__=0x00040e00 -DSHIMK_HOST_TEST

FUZZ_COMMON := kernel/lib/vsnprintf.c tests/unit/printk-capture.c

fuzz-targets :=

fuzz-targets += cmdline
fuzz-cmdline-src := tests/fuzz/fuzz-cmdline.c kernel/boot/cmdline.c

fuzz-targets += pvh
fuzz-pvh-src := tests/fuzz/fuzz-pvh.c arch/x86/boot/pvh-parse.c \
                kernel/boot/memory-map.c kernel/boot/cmdline.c tests/unit/fake-phys.c

fuzz-targets += mb2
fuzz-mb2-src := tests/fuzz/fuzz-mb2.c arch/x86/boot/mb2-parse.c \
                kernel/boot/memory-map.c kernel/boot/cmdline.c tests/unit/fake-phys.c

fuzz-targets += mmap
fuzz-mmap-src := tests/fuzz/fuzz-mmap.c kernel/boot/memory-map.c \
                 kernel/mm/frame-alloc.c

fuzz-targets += acpi
fuzz-acpi-src := tests/fuzz/fuzz-acpi.c kernel/boot/acpi-walk.c \
                 kernel/boot/acpi-tables.c tests/unit/fake-phys.c

fuzz-targets += cpuid
fuzz-cpuid-src := tests/fuzz/fuzz-cpuid.c guest/cpuid-leaves.c

fuzz-targets += cpio
fuzz-cpio-src := tests/fuzz/fuzz-cpio.c kernel/task/cpio.c

fuzz-targets += elf
fuzz-elf-src := tests/fuzz/fuzz-elf.c kernel/task/elf-load.c

fuzz-targets += run-list
fuzz-run-list-src := tests/fuzz/fuzz-run-list.c kernel/task/run-list.c

fuzz-targets += xs-reply
fuzz-xs-reply-src := tests/fuzz/fuzz-xs-reply.c guest/xen/xs-wire.c

FUZZ_BINS = $(addprefix $(FUZZ_DIR)/fuzz-,$(fuzz-targets))

define fuzz-rule
$(FUZZ_DIR)/fuzz-$(1): $$(fuzz-$(1)-src) $(FUZZ_COMMON) $(CONFIG_H) \
                       $$(UNIT_HDRS) $$(wildcard tests/fuzz/*.h) \
                       tests/fuzz/fuzz.mk
	@mkdir -p $$(dir $$@)
	@echo "  FUZZCC  $$@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -o $$@ $$(sort $$(fuzz-$(1)-src) \
	            $(FUZZ_COMMON))
endef
$(foreach t,$(fuzz-targets),$(eval $(call fuzz-rule,$(t))))

fuzz-build: $(FUZZ_BINS) | $(XEN_INC)
	@:
