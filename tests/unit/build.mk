# SPDX-License-Identifier: GPL-2.0-only
# Host unit tests (cmocka), compiling the kernel's own pure files.

UNIT_DIR    := $(BUILD)/unit
# <shimk/compiler.h> goes first: it defines __always_inline as glibc's
# <sys/cdefs.h> does, and only the redefinition inside a system header
# passes -Werror, so it must not come second.
UNIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
               -fsanitize=address,undefined -fno-sanitize-recover=all \
               -fno-omit-frame-pointer -Itests/unit/include -Iinclude \
               -include include/shimk/compiler.h \
               -include $(CONFIG_H) -include include/shimk/kconfig.h \
               -D__XEN_INTERFACE_VERSION__=0x00040e00 -DSHIMK_HOST_TEST
UNIT_LIBS   := -lcmocka

# Any header may reach any test; rebuilding them all takes seconds.
UNIT_HDRS = $(wildcard tests/unit/*.h tests/unit/include/*.h include/*/*.h)

# test name -> sources (the test file first, then the kernel files it
# tests); unit-<name>-libs: what that test needs beyond cmocka
unit-tests :=

UNIT_BINS = $(addprefix $(UNIT_DIR)/test-,$(unit-tests))
# Tests of the Python tools, printing TAP as the cmocka binaries do.
UNIT_SCRIPTS := tests/unit/test-xen-stall.py tests/unit/test-kvm-stall.py \
                tests/unit/test-mutation-table.py tests/unit/test-linux-peer.py \
                tests/unit/test-xen-triple.py tests/unit/test-memcheck.py \
                tests/unit/test-linuxcheck.py \
                tests/unit/test-faultdump.py tests/unit/test-bounds.py \
                tests/unit/test-btf.py tests/unit/test-nested-verdict.py \
                tests/unit/test-detector-verdict.py \
                tests/unit/test-aptsuite.py tests/unit/test-qemu-choice.py \
                tests/unit/test-l0-rates.py tests/unit/test-docs.py \
                tests/unit/test-lost-expiry.py tests/unit/test-demo.py \
                tests/unit/test-matrix.py tests/unit/test-tlbb.py \
                tests/unit/test-fences.py tests/unit/test-model.py \
                tests/unit/test-lifecycle.py

define unit-rule
$(UNIT_DIR)/test-$(1): $$(unit-$(1)-src) $(CONFIG_H) $$(UNIT_HDRS) \
                       tests/unit/build.mk tests/unit/tests.mk
	@mkdir -p $$(dir $$@)
	@echo "  HOSTCC  $$@"
	@$(HOSTCC) $(UNIT_CFLAGS) -o $$@ $$(unit-$(1)-src) $(UNIT_LIBS) \
	           $$(unit-$(1)-libs)
endef

include tests/unit/tests.mk
$(foreach t,$(unit-tests),$(eval $(call unit-rule,$(t))))

# The empty recipe keeps make from saying "Nothing to be done".
unit-build: $(UNIT_BINS)
	@:

# Build failures count as failures: the summary line always appears.
unit:
	@if $(MAKE) --no-print-directory unit-build; then \
	  tools/run-unit $(UNIT_BINS) $(UNIT_SCRIPTS); \
	else \
	  echo "unit: 0 passed, 1 failed (unit tests did not build)"; \
	  exit 1; \
	fi
