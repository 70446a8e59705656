# SPDX-License-Identifier: GPL-2.0-only
# The Hyper-V backend (CONFIG_GUEST_HYPERV).

obj-$(CONFIG_GUEST_HYPERV) += guest/hyperv/hyperv.o
obj-$(CONFIG_GUEST_HYPERV) += guest/hyperv/tlb.o
obj-$(CONFIG_GUEST_HYPERV) += guest/hyperv/leaves.o
obj-$(CONFIG_GUEST_HYPERV) += guest/hyperv/hcall.o
