# SPDX-License-Identifier: GPL-2.0-only
# Objects from guest/: the probe and dispatch here, one folder per L0.

obj-y += guest/cpuid-leaves.o
obj-y += guest/hypervisor.o
obj-y += guest/assist-policy.o
obj-y += guest/flush-fault.o
obj-y += guest/resume.o

include guest/xen/build.mk
include guest/kvm/build.mk
include guest/hyperv/build.mk
