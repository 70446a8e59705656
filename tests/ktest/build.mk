# SPDX-License-Identifier: GPL-2.0-only
# In-kernel test suites (built in with CONFIG_KTEST).

obj-$(CONFIG_KTEST) += tests/ktest/selftest.o
obj-$(CONFIG_KTEST) += tests/ktest/boot-info.o
obj-$(CONFIG_KTEST) += tests/ktest/cmdline.o
obj-$(CONFIG_KTEST) += tests/ktest/frames.o
obj-$(CONFIG_KTEST) += tests/ktest/heap.o
obj-$(CONFIG_KTEST) += tests/ktest/paging.o

# Keep cases in the order they are written: the TAP stream follows it.
$(BUILD)/tests/ktest/%.o: KCFLAGS += -fno-toplevel-reorder
obj-$(CONFIG_KTEST) += tests/ktest/smp.o
obj-$(CONFIG_KTEST) += tests/ktest/entry.o
obj-$(CONFIG_KTEST) += tests/ktest/guarded.o
obj-$(CONFIG_KTEST) += tests/ktest/selfcheck.o
obj-$(CONFIG_KTEST) += tests/ktest/timer.o
obj-$(CONFIG_KTEST) += tests/ktest/clocks.o
obj-$(CONFIG_KTEST) += tests/ktest/tasks.o
obj-$(CONFIG_KTEST) += tests/ktest/ring3.o
obj-$(CONFIG_KTEST) += tests/ktest/tlb.o
obj-$(CONFIG_KTEST) += tests/ktest/tlb-mutation.o
obj-$(CONFIG_KTEST) += tests/ktest/lazy-unmap.o
obj-$(CONFIG_KTEST) += tests/ktest/guest.o
obj-$(CONFIG_KTEST) += tests/ktest/pv-yield.o
# It calls into guest/hyperv/, which CONFIG_GUEST_HYPERV=n leaves out.
ifeq ($(CONFIG_GUEST_HYPERV),y)
obj-$(CONFIG_KTEST) += tests/ktest/hyperv.o
endif
# It calls into guest/xen/, which CONFIG_GUEST_XEN=n leaves out.
ifeq ($(CONFIG_GUEST_XEN),y)
obj-$(CONFIG_KTEST) += tests/ktest/xen-ipi.o
endif
