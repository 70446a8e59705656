# SPDX-License-Identifier: GPL-2.0-only
# The Xen backend (CONFIG_GUEST_XEN).

obj-$(CONFIG_GUEST_XEN) += guest/xen/xen.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/console.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/vcpu.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/evtchn-ipi.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/evtchn-2l.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/runstate.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/xs-wire.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/xenstore.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/control-parse.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/control.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/suspend.o
obj-$(CONFIG_GUEST_XEN) += guest/xen/flush-late.o
