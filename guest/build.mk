# SPDX-License-Identifier: GPL-2.0-only
# Objects from guest/.

obj-y += guest/cpuid-leaves.o
obj-y += guest/hypervisor.o
obj-y += guest/assist-policy.o
obj-$(CONFIG_GUEST_XEN) += guest/xen.o
obj-$(CONFIG_GUEST_XEN) += guest/xen-console.o
obj-$(CONFIG_GUEST_XEN) += guest/xen-vcpu.o
obj-$(CONFIG_GUEST_KVM) += guest/kvm.o
obj-$(CONFIG_GUEST_KVM) += guest/kvm-pv.o
