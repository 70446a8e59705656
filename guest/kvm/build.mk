# SPDX-License-Identifier: GPL-2.0-only
# The KVM backend (CONFIG_GUEST_KVM).

obj-$(CONFIG_GUEST_KVM) += guest/kvm/kvm.o
obj-$(CONFIG_GUEST_KVM) += guest/kvm/kvm-pv.o
