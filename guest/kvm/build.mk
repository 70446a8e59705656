# SPDX-License-Identifier: GPL-2.0-only
# The KVM backend (CONFIG_GUEST_KVM).

obj-$(CONFIG_GUEST_KVM) += guest/kvm/kvm.o
# KVM's areas and pure rules serve Hyper-V's backend too: it takes
# kvmclock's stop signal where KVM's leaves sit beside its own.
ifneq ($(CONFIG_GUEST_KVM)$(CONFIG_GUEST_HYPERV),)
obj-y += guest/kvm/kvm-pv.o
obj-y += guest/kvm/area.o
endif
